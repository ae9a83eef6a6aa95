/* Vertex component formats: sizes, names, and the conversions between
 * stored components and floats (docs/formats/iqm.md §4: integer arrays other than blend
 * indexes are normalized). */
#include "core/internal.h"

#include <math.h>

size_t ossa_component_size(ossa_component format)
{
    static const unsigned char sizes[] = {1, 1, 2, 2, 4, 4, 2, 4, 8};
    return (unsigned)format < sizeof sizes ? sizes[format] : 0;
}

const char *ossa_component_name(ossa_component format)
{
    static const char *const names[] = {"byte", "ubyte", "short", "ushort", "int",
                                        "uint", "half",  "float", "double"};
    return (unsigned)format < 9 ? names[format] : "unknown";
}

const char *ossa_vertex_type_name(ossa_vertex_type type)
{
    static const char *const names[] = {"position", "texcoord", "normal", "tangent",
                                        "blendindexes", "blendweights", "color"};
    if ((unsigned)type < 7) return names[type];
    return type >= OSSA_VERTEX_CUSTOM ? "custom" : "reserved";
}

float ossa__half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: renormalize */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t ossa__float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10) return sign;
        /* Subnormal half: shift the mantissa (with its implicit 1) and
         * round to nearest even. */
        man |= 0x800000;
        int shift = 14 - e;
        uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) half++; /* may carry into exp: fine */
    return (uint16_t)(sign | half);
}

float ossa__component_get(ossa_component format, const void *p, bool raw)
{
    switch (format) {
    case OSSA_BYTE: {
        int8_t v;
        memcpy(&v, p, 1);
        return raw ? v : (float)((2.0 * v + 1) / 255.0);
    }
    case OSSA_UBYTE: {
        uint8_t v;
        memcpy(&v, p, 1);
        return raw ? v : (float)(v / 255.0);
    }
    case OSSA_SHORT: {
        int16_t v;
        memcpy(&v, p, 2);
        return raw ? v : (float)((2.0 * v + 1) / 65535.0);
    }
    case OSSA_USHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return raw ? v : (float)(v / 65535.0);
    }
    case OSSA_INT: {
        int32_t v;
        memcpy(&v, p, 4);
        return raw ? (float)v : (float)((2.0 * v + 1) / 4294967295.0);
    }
    case OSSA_UINT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return raw ? (float)v : (float)(v / 4294967295.0);
    }
    case OSSA_HALF: {
        uint16_t v;
        memcpy(&v, p, 2);
        return ossa__half_to_float(v);
    }
    case OSSA_FLOAT: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    case OSSA_DOUBLE: {
        double v;
        memcpy(&v, p, 8);
        return (float)v;
    }
    }
    return 0;
}

/* Unsigned n-bit: floor(v * max + 0.5) clamped. */
static double encode_unsigned(double v, double max)
{
    if (!(v > 0)) return 0;
    double c = floor(v * max + 0.5);
    return c > max ? max : c;
}

/* Signed n-bit, the reference compiler's rule: t = v*(2^n-1)/2, then
 * ceil(t-1) below zero and floor(t) above, clamped. */
static double encode_signed(double v, double range, double lo, double hi)
{
    if (v != v) return 0;
    double t = v * range / 2;
    double c = t < 0 ? ceil(t - 1) : floor(t);
    return c < lo ? lo : c > hi ? hi : c;
}

static double clamp_raw(double v, double lo, double hi)
{
    if (v != v) return 0;
    v = floor(v + 0.5);
    return v < lo ? lo : v > hi ? hi : v;
}

void ossa__component_put(ossa_component format, void *p, float value, bool raw)
{
    double v = value;
    switch (format) {
    case OSSA_BYTE: {
        int8_t c = (int8_t)(raw ? clamp_raw(v, -128, 127) : encode_signed(v, 255, -128, 127));
        memcpy(p, &c, 1);
        break;
    }
    case OSSA_UBYTE: {
        uint8_t c = (uint8_t)(raw ? clamp_raw(v, 0, 255) : encode_unsigned(v, 255));
        memcpy(p, &c, 1);
        break;
    }
    case OSSA_SHORT: {
        int16_t c = (int16_t)(raw ? clamp_raw(v, -32768, 32767)
                                  : encode_signed(v, 65535, -32768, 32767));
        memcpy(p, &c, 2);
        break;
    }
    case OSSA_USHORT: {
        uint16_t c = (uint16_t)(raw ? clamp_raw(v, 0, 65535) : encode_unsigned(v, 65535));
        memcpy(p, &c, 2);
        break;
    }
    case OSSA_INT: {
        int32_t c = (int32_t)(raw ? clamp_raw(v, -2147483648.0, 2147483647.0)
                                  : encode_signed(v, 4294967295.0, -2147483648.0, 2147483647.0));
        memcpy(p, &c, 4);
        break;
    }
    case OSSA_UINT: {
        uint32_t c = (uint32_t)(raw ? clamp_raw(v, 0, 4294967295.0) : encode_unsigned(v, 4294967295.0));
        memcpy(p, &c, 4);
        break;
    }
    case OSSA_HALF: {
        uint16_t c = ossa__float_to_half(value);
        memcpy(p, &c, 2);
        break;
    }
    case OSSA_FLOAT: memcpy(p, &value, 4); break;
    case OSSA_DOUBLE: memcpy(p, &v, 8); break;
    }
}

ossa_status ossa_vertex_array_read(const ossa_model *model, const ossa_vertex_array *array,
                                   uint32_t first, uint32_t count, float *out)
{
    if (first > model->num_vertices || count > model->num_vertices - first) return OSSA_FAILED;
    size_t cs = ossa_component_size(array->format);
    if (!cs) return OSSA_FAILED;
    bool raw = array->type == OSSA_VERTEX_BLENDINDEXES;
    size_t n = (size_t)count * array->size;
    const unsigned char *p = (const unsigned char *)array->data + (size_t)first * array->size * cs;
    if (array->format == OSSA_FLOAT) {
        memcpy(out, p, n * sizeof(float));
        return OSSA_OK;
    }
    for (size_t i = 0; i < n; i++) out[i] = ossa__component_get(array->format, p + i * cs, raw);
    return OSSA_OK;
}

ossa_status ossa_vertex_array_read_padded(const ossa_model *model, const ossa_vertex_array *array,
                                         uint32_t first, uint32_t count, uint32_t components,
                                         float *out)
{
    size_t total = (size_t)count * components;
    if (array && array->size == components) {
        if (ossa_vertex_array_read(model, array, first, count, out) == OSSA_OK) return OSSA_OK;
        array = NULL;
    }
    memset(out, 0, total * sizeof *out);
    if (!array) return OSSA_OK;
    if (!ossa_component_size(array->format) || array->size > OSSA_MAX_COMPONENTS ||
        first > model->num_vertices || count > model->num_vertices - first)
        return OSSA_FAILED;
    float tmp[OSSA_MAX_COMPONENTS];
    uint32_t k = array->size < components ? array->size : components;
    for (uint32_t v = 0; v < count; v++) {
        ossa_vertex_array_read(model, array, first + v, 1, tmp);
        memcpy(out + (size_t)v * components, tmp, k * sizeof *tmp);
    }
    return OSSA_OK;
}
