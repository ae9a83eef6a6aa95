/* glTF 2.0 reader, first half: the GLB container, the JSON document
 * (through libcjson), buffers (GLB BIN chunk, base64 data URIs, files
 * beside the .gltf) and accessors (every component type, normalized
 * integers, byteStride, sparse). read_nodes.c, read_meshes.c,
 * read_materials.c and read_anims.c build the model. */
#include "formats/gltf/read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

ossa_status ossa__gltf_fail(gltf_reader *r, ossa_code kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(r->error, kind, OSSA_NO_OFFSET, 0, 0, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

/* -- JSON access -- */

static const cJSON *get(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

const char *ossa__gltf_string(const cJSON *obj, const char *key)
{
    const cJSON *v = get(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool is_integer(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi &&
           v->valuedouble == floor(v->valuedouble);
}

ossa_status ossa__gltf_index(gltf_reader *r, const cJSON *obj, const char *key, const char *path,
                             uint32_t limit, const char *what, int64_t *out)
{
    const cJSON *v = get(obj, key);
    if (!v) return OSSA_OK;
    if (!is_integer(v, 0, 4294967295.0))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.%s: expected an index, found %s", path,
                               key, cJSON_IsNumber(v) ? "a number that is not one" : "no number");
    if (v->valuedouble >= limit)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.%s: %s %.0f does not exist (%u %s)", path,
                               key, what, v->valuedouble, limit, limit == 1 ? "exists" : "exist");
    *out = (int64_t)v->valuedouble;
    return OSSA_OK;
}

ossa_status ossa__gltf_number(gltf_reader *r, const cJSON *obj, const char *key, const char *path,
                              double *out)
{
    const cJSON *v = get(obj, key);
    if (!v) return OSSA_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.%s: expected a number", path, key);
    *out = v->valuedouble;
    return OSSA_OK;
}

ossa_status ossa__gltf_floats(gltf_reader *r, const cJSON *obj, const char *key, const char *path,
                              float *out, int n)
{
    const cJSON *v = get(obj, key);
    if (!v) return OSSA_OK;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.%s: expected an array of %d numbers",
                               path, key, n);
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || fabs(e->valuedouble) > 3.4e38)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.%s[%d]: expected a finite number",
                                   path, key, i);
        out[i] = (float)e->valuedouble;
    }
    return OSSA_OK;
}

static ossa_status load_table(gltf_reader *r, const char *key, gltf_table *t)
{
    const cJSON *v = get(r->root, key);
    t->items = NULL;
    t->count = 0;
    if (!v) return OSSA_OK;
    if (!cJSON_IsArray(v))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an array", key);
    uint32_t n = 0;
    for (const cJSON *e = v->child; e; e = e->next) n++;
    if (!n) return OSSA_OK;
    t->items = ossa__arena_array(ossa__model_arena(r->model), n, sizeof *t->items);
    if (!t->items) return ossa__fail_nomem(r->error);
    uint32_t i = 0;
    for (cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsObject(e))
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s[%u]: expected an object", key, i);
        t->items[i] = e;
    }
    t->count = n;
    return OSSA_OK;
}

/* -- Buffers -- */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

ossa_status ossa__gltf_data_uri(gltf_reader *r, const char *uri, const char *what,
                               unsigned char **out, size_t *size, size_t *cap)
{
    *out = NULL;
    *size = *cap = 0;
    const char *comma = strchr(uri, ',');
    const char *b64 = comma ? strstr(uri, ";base64,") : NULL;
    if (!comma || !b64 || b64 + 7 != comma)
        return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED, "%s: only base64 data URIs are supported",
                               what);
    const char *data = comma + 1;
    size_t len = strlen(data), n = 0, bad = 0;
    *cap = ossa__base64_decoded_max(len);
    unsigned char *buf = ossa__alloc(r->alloc, *cap);
    if (!buf) return ossa__fail_nomem(r->error);
    if (!ossa__base64_decode(data, len, OSSA_BASE64_STRICT, buf, &n, &bad)) {
        ossa__free(r->alloc, buf, *cap);
        *cap = 0;
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: invalid base64 at character %zu of the data",
                               what, (size_t)(data - uri) + bad);
    }
    *out = buf;
    *size = n;
    return OSSA_OK;
}

static ossa_status load_data_uri(gltf_reader *r, uint32_t i, const char *uri, gltf_buffer *b)
{
    char what[32];
    snprintf(what, sizeof what, "buffers[%u].uri", i);
    if (ossa__gltf_data_uri(r, uri, what, &b->owned, &b->size, &b->owned_size)) return OSSA_FAILED;
    b->data = b->owned;
    return OSSA_OK;
}

/* A relative URI reference as a file name: percent-decoded ("a%20b.bin"
 * is the file "a b.bin"), in a new buffer from the reader's allocator. */
char *ossa__gltf_uri_to_name(gltf_reader *r, const char *uri)
{
    size_t n = strlen(uri);
    char *name = ossa__alloc(r->alloc, n + 1), *o = name;
    if (!name) return NULL;
    for (size_t k = 0; k < n; k++) {
        int hi, lo;
        if (uri[k] == '%' && k + 2 < n && (hi = hex_value(uri[k + 1])) >= 0 &&
            (lo = hex_value(uri[k + 2])) >= 0) {
            *o++ = (char)(hi * 16 + lo);
            k += 2;
        } else {
            *o++ = uri[k];
        }
    }
    *o = 0;
    return name;
}

ossa_status ossa__gltf_open_uri(gltf_reader *r, const char *uri, const char *what, ossa_sibling *out)
{
    memset(out, 0, sizeof *out);
    if (strstr(uri, "://"))
        return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED, "%s: '%s' is not a relative file reference",
                               what, uri);
    if (!r->options->file_name || !r->options->file_name[0])
        return ossa__gltf_fail(r, OSSA_ERROR_ARGUMENT,
                               "%s: the file '%s' cannot be found without the name of the .gltf "
                               "file (load the file by path, or set ossa_load_options.file_name)",
                               what, uri);
    char *name = ossa__gltf_uri_to_name(r, uri);
    if (!name) return ossa__fail_nomem(r->error);
    ossa_status st = ossa__open_sibling(r->options, r->options->file_name, name, what, r->alloc, out,
                                        r->error);
    ossa__free(r->alloc, name, strlen(uri) + 1);
    return st;
}

static ossa_status load_external(gltf_reader *r, uint32_t i, const char *uri, gltf_buffer *b)
{
    char what[32];
    snprintf(what, sizeof what, "buffers[%u].uri", i);
    if (ossa__gltf_open_uri(r, uri, what, &b->file)) return OSSA_FAILED;
    b->data = b->file.data;
    b->size = b->file.size;
    return OSSA_OK;
}

/* The bytes of buffer `i`, loaded on first use. */
static ossa_status buffer(gltf_reader *r, uint32_t i, const gltf_buffer **out)
{
    gltf_buffer *b = &r->buffer_data[i];
    if (!b->loaded) {
        const cJSON *obj = r->buffers.items[i];
        char path[32];
        snprintf(path, sizeof path, "buffers[%u]", i);
        const cJSON *len = get(obj, "byteLength");
        if (!is_integer(len, 1, 9007199254740992.0))
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s.byteLength: expected an integer >= 1", path);
        const char *uri = ossa__gltf_string(obj, "uri");
        ossa_status st = OSSA_OK;
        if (!uri) {
            if (!r->glb || i != 0)
                return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                       "%s: no uri (only the first buffer of a .glb file may "
                                       "have none)",
                                       path);
            if (!r->bin)
                return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                       "%s: refers to the GLB BIN chunk, which the file lacks", path);
            b->data = r->bin;
            b->size = r->bin_size;
        } else if (strncmp(uri, "data:", 5) == 0) {
            st = load_data_uri(r, i, uri, b);
        } else {
            st = load_external(r, i, uri, b);
            if (!st) r->external_bytes += b->size;
        }
        if (st) return st;
        b->loaded = true;
        if (len->valuedouble > (double)b->size)
            return ossa__gltf_fail(r, uri ? OSSA_ERROR_CORRUPT : OSSA_ERROR_TRUNCATED,
                                   "%s.byteLength: %.0f bytes, but the data has %zu", path,
                                   len->valuedouble, b->size);
        b->size = (size_t)len->valuedouble;
    }
    *out = b;
    return OSSA_OK;
}

ossa_status ossa__gltf_view(gltf_reader *r, int64_t i, const unsigned char **data, size_t *size,
                            size_t *stride)
{
    const cJSON *obj = r->views.items[i];
    char path[32];
    snprintf(path, sizeof path, "bufferViews[%u]", (unsigned)i);
    int64_t bi = -1;
    double offset = 0, length = -1, st = 0;
    if (ossa__gltf_index(r, obj, "buffer", path, r->buffers.count, "buffer", &bi) ||
        ossa__gltf_number(r, obj, "byteOffset", path, &offset) ||
        ossa__gltf_number(r, obj, "byteLength", path, &length) ||
        ossa__gltf_number(r, obj, "byteStride", path, &st))
        return OSSA_FAILED;
    if (bi < 0) return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.buffer: missing", path);
    if (!(length >= 1) || length != floor(length))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.byteLength: expected an integer >= 1", path);
    if (offset < 0 || offset != floor(offset))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.byteOffset: expected an integer >= 0", path);
    if (st != 0 && (st < 4 || st > 252 || fmod(st, 4) != 0))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                               "%s.byteStride: %g is not a multiple of 4 in 4..252", path, st);
    const gltf_buffer *b = NULL;
    if (buffer(r, (uint32_t)bi, &b)) return OSSA_FAILED;
    if (offset + length > (double)b->size)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                               "%s: bytes %.0f..%.0f are outside buffer %u (%zu bytes)", path,
                               offset, offset + length, (unsigned)bi, b->size);
    *data = b->data + (size_t)offset;
    *size = (size_t)length;
    *stride = (size_t)st;
    return OSSA_OK;
}

/* -- Accessors -- */

static size_t component_size(int ctype)
{
    switch (ctype) {
    case GLTF_BYTE:
    case GLTF_UNSIGNED_BYTE: return 1;
    case GLTF_SHORT:
    case GLTF_UNSIGNED_SHORT: return 2;
    case GLTF_UNSIGNED_INT:
    case GLTF_FLOAT: return 4;
    default: return 0;
    }
}

static uint32_t type_components(const char *type)
{
    static const struct {
        const char *name;
        uint32_t n;
    } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4},
                 {"MAT2", 4},   {"MAT3", 9}, {"MAT4", 16}};
    for (size_t i = 0; type && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i].name) == 0) return types[i].n;
    return 0;
}

ossa_status ossa__gltf_accessor(gltf_reader *r, int64_t index, const char *path, gltf_accessor *out)
{
    if (index < 0 || index >= r->accessors.count)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: accessor %lld does not exist (%u exist)",
                               path, (long long)index, r->accessors.count);
    const cJSON *a = r->accessors.items[index];
    char ap[32];
    snprintf(ap, sizeof ap, "accessors[%u]", (unsigned)index);
    const cJSON *ct = get(a, "componentType"), *cnt = get(a, "count");
    const char *type = ossa__gltf_string(a, "type");
    out->ctype = is_integer(ct, 0, 1e6) ? (int)ct->valuedouble : 0;
    out->csize = component_size(out->ctype);
    if (!out->csize)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                               "%s.componentType: expected 5120, 5121, 5122, 5123, 5125 or 5126", ap);
    out->ncomp = type_components(type);
    if (!out->ncomp)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                               "%s.type: expected SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4", ap);
    if (out->ncomp > 4 && out->ncomp != 16)
        return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED, "%s.type: %s is not used by ossa", ap, type);
    if (out->ncomp == 16 && out->ctype != GLTF_FLOAT)
        return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED, "%s: MAT4 of integers is not supported", ap);
    if (!is_integer(cnt, 1, 4294967295.0))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.count: expected an integer >= 1", ap);
    out->count = (uint32_t)cnt->valuedouble;
    const cJSON *norm = get(a, "normalized");
    out->normalized = cJSON_IsTrue(norm);
    if (out->normalized && (out->ctype == GLTF_FLOAT || out->ctype == GLTF_UNSIGNED_INT))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                               "%s.normalized: only byte and short components can be normalized", ap);
    return OSSA_OK;
}

/* Copies `count` elements from a strided source into packed host-order
 * components. */
static void copy_elements(unsigned char *dst, const unsigned char *src, size_t count, size_t elem,
                          size_t stride, size_t csize)
{
    for (size_t i = 0; i < count; i++)
        ossa__copy_le(dst + i * elem, src + i * stride, elem / csize, csize);
}

static uint32_t read_index(const unsigned char *p, int ctype)
{
    if (ctype == GLTF_UNSIGNED_BYTE) return p[0];
    if (ctype == GLTF_UNSIGNED_SHORT) return ossa__rd16(p);
    return ossa__rd32(p);
}

/* Checks that `count` elements of `elem` bytes at `offset` with `stride`
 * lie inside a view of `size` bytes. */
static ossa_status fits(gltf_reader *r, const char *path, double offset, size_t count, size_t elem,
                        size_t stride, size_t size)
{
    if (offset < 0 || offset != floor(offset))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.byteOffset: expected an integer >= 0", path);
    double end = offset + (double)stride * (double)(count - 1) + (double)elem;
    if (end > (double)size)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                               "%s: %zu elements of %zu bytes from byte %.0f need %.0f bytes; its "
                               "buffer view has %zu",
                               path, count, elem, offset, end, size);
    return OSSA_OK;
}

static ossa_status apply_sparse(gltf_reader *r, const cJSON *sparse, const char *ap,
                                const gltf_accessor *info, unsigned char *out)
{
    char path[64];
    snprintf(path, sizeof path, "%s.sparse", ap);
    const cJSON *cnt = get(sparse, "count"), *ind = get(sparse, "indices"), *val = get(sparse, "values");
    if (!is_integer(cnt, 1, info->count))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.count: expected an integer in 1..%u", path,
                               info->count);
    if (!cJSON_IsObject(ind) || !cJSON_IsObject(val))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: indices and values are required", path);
    size_t n = (size_t)cnt->valuedouble, elem = info->csize * info->ncomp;
    char ip[80], vp[80];
    snprintf(ip, sizeof ip, "%s.indices", path);
    snprintf(vp, sizeof vp, "%s.values", path);
    int64_t iv = -1, vv = -1;
    double ioff = 0, voff = 0;
    if (ossa__gltf_index(r, ind, "bufferView", ip, r->views.count, "buffer view", &iv) ||
        ossa__gltf_index(r, val, "bufferView", vp, r->views.count, "buffer view", &vv) ||
        ossa__gltf_number(r, ind, "byteOffset", ip, &ioff) ||
        ossa__gltf_number(r, val, "byteOffset", vp, &voff))
        return OSSA_FAILED;
    if (iv < 0 || vv < 0)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: bufferView is required", iv < 0 ? ip : vp);
    const cJSON *ict = get(ind, "componentType");
    int ictype = is_integer(ict, 0, 1e6) ? (int)ict->valuedouble : 0;
    if (ictype != GLTF_UNSIGNED_BYTE && ictype != GLTF_UNSIGNED_SHORT && ictype != GLTF_UNSIGNED_INT)
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                               "%s.componentType: expected 5121, 5123 or 5125", ip);
    const unsigned char *idata, *vdata;
    size_t isize, vsize, istride, vstride;
    if (ossa__gltf_view(r, iv, &idata, &isize, &istride) || ossa__gltf_view(r, vv, &vdata, &vsize, &vstride)) return OSSA_FAILED;
    size_t is = component_size(ictype);
    if (fits(r, ip, ioff, n, is, is, isize) || fits(r, vp, voff, n, elem, elem, vsize)) return OSSA_FAILED;
    idata += (size_t)ioff;
    vdata += (size_t)voff;
    uint32_t prev = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t at = read_index(idata + k * is, ictype);
        if (at >= info->count)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s: index %u at element %zu is outside the accessor's %u "
                                   "elements",
                                   ip, at, k, info->count);
        if (k && at <= prev)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s: indices must increase (element %zu: %u after %u)", ip, k,
                                   at, prev);
        prev = at;
        copy_elements(out + (size_t)at * elem, vdata + k * elem, 1, elem, elem, info->csize);
    }
    return OSSA_OK;
}

ossa_status ossa__gltf_accessor_raw(gltf_reader *r, int64_t index, const char *path,
                                    gltf_accessor *info, unsigned char **out)
{
    *out = NULL;
    if (ossa__gltf_accessor(r, index, path, info)) return OSSA_FAILED;
    const cJSON *a = r->accessors.items[index];
    char ap[32];
    snprintf(ap, sizeof ap, "accessors[%u]", (unsigned)index);
    size_t elem = info->csize * info->ncomp;
    if ((uint64_t)elem * info->count > SIZE_MAX / 4) /* ossa__gltf_accessor_floats takes 4 per component */
        return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED, "%s: %u elements are too many for this system",
                               ap, info->count);
    size_t total = elem * info->count;
    int64_t vi = -1;
    double offset = 0;
    if (ossa__gltf_index(r, a, "bufferView", ap, r->views.count, "buffer view", &vi) ||
        ossa__gltf_number(r, a, "byteOffset", ap, &offset))
        return OSSA_FAILED;
    const unsigned char *data = NULL;
    size_t size = 0, stride = 0;
    if (vi >= 0) {
        if (ossa__gltf_view(r, vi, &data, &size, &stride)) return OSSA_FAILED;
        if (stride && stride < elem)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s: byteStride %zu of bufferViews[%u] is less than the %zu-byte "
                                   "element",
                                   ap, stride, (unsigned)vi, elem);
        if (!stride) stride = elem;
        if (fits(r, ap, offset, info->count, elem, stride, size)) return OSSA_FAILED;
        if ((size_t)offset % info->csize)
            ossa__warn(r->model, OSSA_WARNING_NONSTANDARD, OSSA_NO_OFFSET, 0, 0,
                       "%s.byteOffset: %.0f is not a multiple of the component size %zu", ap,
                       offset, info->csize);
    }
    /* Decoded data is at most the size of the input, except for accessors
     * without a buffer view (all zeros, then sparse): cap those. */
    if (vi < 0 && total > ((size_t)64 << 20) + r->file_size * 16)
        return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED,
                               "%s: %u elements without a buffer view are out of proportion to the "
                               "file",
                               ap, info->count);
    unsigned char *buf = ossa__alloc(r->alloc, total ? total : 1);
    if (!buf) return ossa__fail_nomem(r->error);
    if (vi >= 0)
        copy_elements(buf, data + (size_t)offset, info->count, elem, stride, info->csize);
    else
        memset(buf, 0, total);
    const cJSON *sparse = get(a, "sparse");
    if (sparse && (!cJSON_IsObject(sparse) || apply_sparse(r, sparse, ap, info, buf))) {
        if (!cJSON_IsObject(sparse))
            ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.sparse: expected an object", ap);
        ossa__free(r->alloc, buf, 0);
        return OSSA_FAILED;
    }
    *out = buf;
    return OSSA_OK;
}

/* glTF's normalized integers: c / max for unsigned, max(c / max, -1) for
 * signed (spec 3.11, "Animations" and "Meshes"). */
static float component_float(const unsigned char *p, int ctype, bool normalized)
{
    switch (ctype) {
    case GLTF_BYTE: {
        int8_t v;
        memcpy(&v, p, 1);
        return normalized ? (v / 127.0f < -1 ? -1 : v / 127.0f) : v;
    }
    case GLTF_UNSIGNED_BYTE: return normalized ? p[0] / 255.0f : p[0];
    case GLTF_SHORT: {
        int16_t v;
        memcpy(&v, p, 2);
        return normalized ? (v / 32767.0f < -1 ? -1 : v / 32767.0f) : v;
    }
    case GLTF_UNSIGNED_SHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return normalized ? v / 65535.0f : v;
    }
    case GLTF_UNSIGNED_INT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return (float)v;
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

ossa_status ossa__gltf_accessor_floats(gltf_reader *r, int64_t index, const char *path,
                                       gltf_accessor *info, float **out)
{
    unsigned char *raw;
    *out = NULL;
    if (ossa__gltf_accessor_raw(r, index, path, info, &raw)) return OSSA_FAILED;
    size_t n = (size_t)info->count * info->ncomp;
    if (info->ctype == GLTF_FLOAT) {
        *out = (float *)(void *)raw; /* packed floats already; ossa__alloc aligns */
    } else {
        float *f = ossa__alloc(r->alloc, n * sizeof *f);
        if (!f) {
            ossa__free(r->alloc, raw, 0);
            return ossa__fail_nomem(r->error);
        }
        for (size_t i = 0; i < n; i++)
            f[i] = component_float(raw + i * info->csize, info->ctype, info->normalized);
        ossa__free(r->alloc, raw, 0);
        *out = f;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite((*out)[i])) {
            ossa__free(r->alloc, *out, 0);
            *out = NULL;
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "accessors[%u]: element %zu is not a finite number",
                                   (unsigned)index, i / info->ncomp);
        }
    return OSSA_OK;
}

/* -- Container -- */

static ossa_status read_glb(gltf_reader *r, const char **json, size_t *json_size)
{
    const unsigned char *d = r->file;
    size_t size = r->file_size;
    if (size < GLB_HEADER_SIZE)
        return ossa__fail(r->error, OSSA_ERROR_TRUNCATED, size,
                          "expected a 12-byte GLB header, the data has %zu bytes", size);
    uint32_t version = ossa__rd32(d + 4), length = ossa__rd32(d + 8);
    if (version != GLB_VERSION)
        return ossa__fail(r->error, OSSA_ERROR_UNSUPPORTED, 4, "GLB version %u (expected 2)", version);
    if (length > size)
        return ossa__fail(r->error, OSSA_ERROR_TRUNCATED, size,
                          "the GLB header declares %u bytes, the data has %zu", length, size);
    if (length < GLB_HEADER_SIZE + GLB_CHUNK_HEADER_SIZE)
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, 8,
                          "the GLB length %u leaves no room for the JSON chunk", length);
    if (length < size)
        ossa__warn(r->model, OSSA_WARNING_IGNORED, length, 0, 0, "%zu bytes after the end of the GLB data ignored",
                   size - length);
    size = length;
    size_t at = GLB_HEADER_SIZE;
    for (int chunk = 0; at < size; chunk++) {
        if (size - at < GLB_CHUNK_HEADER_SIZE)
            return ossa__fail(r->error, OSSA_ERROR_TRUNCATED, at,
                              "chunk %d: expected an 8-byte chunk header, %zu bytes are left",
                              chunk, size - at);
        uint32_t clen = ossa__rd32(d + at), ctype = ossa__rd32(d + at + 4);
        if (clen > size - at - GLB_CHUNK_HEADER_SIZE)
            return ossa__fail(r->error, OSSA_ERROR_TRUNCATED, at,
                              "chunk %d: %u bytes declared, %zu are left", chunk, clen,
                              size - at - GLB_CHUNK_HEADER_SIZE);
        const unsigned char *body = d + at + GLB_CHUNK_HEADER_SIZE;
        if (chunk == 0) {
            if (ctype != GLB_CHUNK_JSON)
                return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at + 4,
                                  "the first chunk must be JSON (type 0x4E4F534A), found 0x%08X",
                                  ctype);
            *json = (const char *)body;
            *json_size = clen;
        } else if (chunk == 1 && ctype == GLB_CHUNK_BIN) {
            r->bin = body;
            r->bin_size = clen;
        } else if (ctype == GLB_CHUNK_JSON || ctype == GLB_CHUNK_BIN) {
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at + 4,
                              "chunk %d: a second %s chunk", chunk,
                              ctype == GLB_CHUNK_JSON ? "JSON" : "BIN");
        } else {
            ossa__warn(r->model, OSSA_WARNING_IGNORED, at + 4, 0, 0, "chunk %d: unknown type 0x%08X skipped", chunk, ctype);
        }
        if (clen % 4)
            ossa__warn(r->model, OSSA_WARNING_NONSTANDARD, at, 0, 0, "chunk %d: length %u is not a multiple of 4", chunk, clen);
        at += GLB_CHUNK_HEADER_SIZE + (size_t)clen;
    }
    return OSSA_OK;
}

/* 1-based line and column of byte `at` of a text. */
static void line_column(const char *text, size_t at, uint32_t *line, uint32_t *column)
{
    *line = 1;
    *column = 1;
    for (size_t i = 0; i < at; i++) {
        if (text[i] == '\n') {
            ++*line;
            *column = 1;
        } else {
            ++*column;
        }
    }
}

static ossa_status parse_json(gltf_reader *r, const char *json, size_t size)
{
    size_t json_offset = (size_t)((const unsigned char *)json - r->file);
    if (size >= 3 && memcmp(json, "\xEF\xBB\xBF", 3) == 0) { /* a BOM, which the spec forbids */
        ossa__warn(r->model, OSSA_WARNING_NONSTANDARD, json_offset, 0, 0, "the JSON starts with a byte order mark");
        json += 3;
        size -= 3;
        json_offset += 3;
    }
    const char *end = NULL;
    r->root = cJSON_ParseWithLengthOpts(json, size, &end, 0);
    if (!r->root) {
        size_t at = end && end >= json && end <= json + size ? (size_t)(end - json) : 0;
        if (!r->glb) {
            uint32_t line, column;
            line_column(json, at, &line, &column);
            return ossa__fail_line(r->error, OSSA_ERROR_FORMAT, line, column,
                                   at + 1 >= size ? "the JSON ends early" : "invalid JSON");
        }
        /* cJSON points at the last byte when the text ends early. */
        return ossa__fail(r->error, OSSA_ERROR_FORMAT, json_offset + at,
                          at + 1 >= size ? "the JSON chunk ends early" : "invalid JSON");
    }
    /* Only spaces may follow the document (GLB pads the chunk with them). */
    for (const char *p = end; p && p < json + size; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != 0)
            return ossa__fail(r->error, OSSA_ERROR_FORMAT, json_offset + (size_t)(p - json),
                              "text after the end of the JSON document");
    if (!cJSON_IsObject(r->root))
        return ossa__fail(r->error, OSSA_ERROR_FORMAT, json_offset,
                          "the JSON document is not an object");
    return OSSA_OK;
}

static ossa_status check_asset(gltf_reader *r)
{
    const cJSON *asset = get(r->root, "asset");
    if (!cJSON_IsObject(asset))
        return ossa__gltf_fail(r, OSSA_ERROR_FORMAT, "asset: missing (not a glTF 2.0 document)");
    const char *version = ossa__gltf_string(asset, "version");
    if (!version)
        return ossa__gltf_fail(r, OSSA_ERROR_FORMAT, "asset.version: missing");
    const char *min = ossa__gltf_string(asset, "minVersion");
    if (strncmp(version, "2.", 2) != 0 || (min && strcmp(min, "2.0") != 0))
        return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED, "asset.%s: \"%s\" (expected 2.0)",
                               min && strcmp(min, "2.0") ? "minVersion" : "version",
                               min && strcmp(min, "2.0") ? min : version);
    const cJSON *req = get(r->root, "extensionsRequired");
    if (req && !cJSON_IsArray(req))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "extensionsRequired: expected an array");
    /* Extensions that change how geometry or animation data is stored make
     * the file unreadable without them; the others (materials, textures,
     * lights) do not touch what the model holds. */
    static const char *const blocking[] = {"KHR_draco_mesh_compression", "EXT_meshopt_compression",
                                           "KHR_animation_pointer"};
    for (const cJSON *e = req ? req->child : NULL; e; e = e->next)
        for (size_t i = 0; i < sizeof blocking / sizeof blocking[0]; i++)
            if (cJSON_IsString(e) && strcmp(e->valuestring, blocking[i]) == 0)
                return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED,
                                       "extensionsRequired: %s is not supported", blocking[i]);
    return OSSA_OK;
}

ossa_status ossa__gltf_parse(gltf_reader *reader, ossa_model *model, const unsigned char *data,
                             size_t size, const ossa_load_options *options, ossa_error *error)
{
    gltf_reader r;
    memset(&r, 0, sizeof r);
    r.model = model;
    r.options = options;
    r.error = error;
    r.alloc = &model->internal->arena.allocator;
    r.file = data;
    r.file_size = size;
    r.glb = size >= 4 && ossa__rd32(data) == GLB_MAGIC;
    const char *json = (const char *)data;
    size_t json_size = size;
    if (r.glb && read_glb(&r, &json, &json_size)) {
        *reader = r;
        return OSSA_FAILED;
    }
    ossa_status st = parse_json(&r, json, json_size);
    if (!st) st = check_asset(&r);
    static const char *const keys[] = {"buffers",    "bufferViews", "accessors", "nodes",
                                       "meshes",     "skins",       "animations", "materials",
                                       "images",     "textures",    "scenes",     "samplers"};
    gltf_table *tables[] = {&r.buffers, &r.views,     &r.accessors, &r.nodes,
                            &r.meshes,  &r.skins,     &r.animations, &r.materials,
                            &r.images,  &r.textures,  &r.scenes,    &r.samplers};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !st; i++) st = load_table(&r, keys[i], tables[i]);
    if (!st && r.buffers.count) {
        r.buffer_data = ossa__arena_array(ossa__model_arena(model), r.buffers.count, sizeof *r.buffer_data);
        if (!r.buffer_data) st = ossa__fail_nomem(error);
    }
    *reader = r;
    return st;
}

void ossa__gltf_reader_free(gltf_reader *r)
{
    for (uint32_t i = 0; r->buffer_data && i < r->buffers.count; i++) {
        ossa__free(r->alloc, r->buffer_data[i].owned, r->buffer_data[i].owned_size);
        ossa__close_sibling(&r->buffer_data[i].file);
    }
    cJSON_Delete(r->root);
}
