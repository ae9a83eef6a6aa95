/* glTF writer: the building blocks of the document (write.h): JSON values
 * that record a failed allocation once, strings made valid UTF-8, URIs, and
 * buffer views and accessors in the one binary buffer. */
#include "formats/gltf/write.h"

#include <stdio.h>

/* -- JSON building. A failed allocation in cJSON sets nomem once; the
 *    document is then dropped as a whole. -- */

cJSON *ossa__gltfw_put(gw *w, cJSON *parent, const char *key, cJSON *item)
{
    if (!item) {
        w->nomem = true;
        return NULL;
    }
    if (!parent) {
        cJSON_Delete(item);
        w->nomem = true;
        return NULL;
    }
    cJSON_bool ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
    if (!ok) {
        cJSON_Delete(item);
        w->nomem = true;
        return NULL;
    }
    return item;
}

cJSON *ossa__gltfw_jfloat(float v)
{
    char buf[32];
    ossa__gltf_float_text(v, buf);
    return cJSON_CreateRaw(buf);
}

void ossa__gltfw_put_int(gw *w, cJSON *obj, const char *key, double v)
{
    ossa__gltfw_put(w, obj, key, cJSON_CreateNumber(v));
}

void ossa__gltfw_put_floats(gw *w, cJSON *obj, const char *key, const float *v, int n)
{
    cJSON *a = ossa__gltfw_put(w, obj, key, cJSON_CreateArray());
    for (int i = 0; i < n; i++) ossa__gltfw_put(w, a, NULL, ossa__gltfw_jfloat(v[i]));
}

/* Names come from files and may hold anything: JSON needs valid UTF-8, so
 * bytes that do not form it become U+FFFD. */
cJSON *ossa__gltfw_jstring(gw *w, const char *s)
{
    size_t n = strlen(s), bad = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t len = p[i] < 0x80 ? 1 : (p[i] & 0xE0) == 0xC0 ? 2 : (p[i] & 0xF0) == 0xE0 ? 3
                                   : (p[i] & 0xF8) == 0xF0 ? 4 : 0;
        bool ok = len && i + len <= n && !(len == 2 && p[i] < 0xC2);
        for (size_t k = 1; ok && k < len; k++) ok = (p[i + k] & 0xC0) == 0x80;
        if (!ok) {
            bad++;
            len = 1;
        }
        i += len;
    }
    if (!bad) return cJSON_CreateString(s);
    char *clean = ossa__alloc(w->alloc, n + bad * 2 + 1), *o = clean;
    if (!clean) return NULL;
    for (size_t i = 0; i < n;) {
        size_t len = p[i] < 0x80 ? 1 : (p[i] & 0xE0) == 0xC0 ? 2 : (p[i] & 0xF0) == 0xE0 ? 3
                                   : (p[i] & 0xF8) == 0xF0 ? 4 : 0;
        bool ok = len && i + len <= n && !(len == 2 && p[i] < 0xC2);
        for (size_t k = 1; ok && k < len; k++) ok = (p[i + k] & 0xC0) == 0x80;
        if (ok) {
            memcpy(o, p + i, len);
            o += len;
            i += len;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    *o = 0;
    cJSON *r = cJSON_CreateString(clean);
    ossa__free(w->alloc, clean, n + bad * 2 + 1);
    return r;
}

void ossa__gltfw_put_name(gw *w, cJSON *obj, const char *name)
{
    if (name && name[0]) ossa__gltfw_put(w, obj, "name", ossa__gltfw_jstring(w, name));
}

/* -- Buffer views and accessors -- */

/* Appends `size` bytes as a new bufferView (4-byte aligned, so every
 * accessor offset is a multiple of its component size: ACCESSOR_*_ALIGNMENT). */
int ossa__gltfw_add_view(gw *w, const void *data, size_t size, size_t stride, int target)
{
    ossa__buf_pad(&w->bin, 4);
    size_t offset = w->bin.size;
    ossa__buf_append(&w->bin, data, size);
    ossa__buf_pad(&w->bin, 4);
    cJSON *v = ossa__gltfw_put(w, w->views, NULL, cJSON_CreateObject());
    ossa__gltfw_put_int(w, v, "buffer", 0);
    if (offset) ossa__gltfw_put_int(w, v, "byteOffset", (double)offset);
    ossa__gltfw_put_int(w, v, "byteLength", (double)size);
    if (stride) ossa__gltfw_put_int(w, v, "byteStride", (double)stride);
    if (target) ossa__gltfw_put_int(w, v, "target", target);
    return w->nviews++;
}

int ossa__gltfw_add_accessor(gw *w, int view, int ctype, uint32_t count, const char *type,
                        bool normalized, const float *min, const float *max, int ncomp)
{
    cJSON *a = ossa__gltfw_put(w, w->accessors, NULL, cJSON_CreateObject());
    ossa__gltfw_put_int(w, a, "bufferView", view);
    ossa__gltfw_put_int(w, a, "componentType", ctype);
    if (normalized) ossa__gltfw_put(w, a, "normalized", cJSON_CreateTrue());
    ossa__gltfw_put_int(w, a, "count", count);
    ossa__gltfw_put(w, a, "type", cJSON_CreateString(type));
    if (min) ossa__gltfw_put_floats(w, a, "min", min, ncomp);
    if (max) ossa__gltfw_put_floats(w, a, "max", max, ncomp);
    return w->naccessors++;
}

const char *ossa__gltfw_type_name(uint32_t n)
{
    static const char *const names[] = {"SCALAR", "VEC2", "VEC3", "VEC4"};
    return names[n - 1];
}

size_t ossa__gltfw_ctype_size(int ctype)
{
    switch (ctype) {
    case GLTF_BYTE:
    case GLTF_UNSIGNED_BYTE: return 1;
    case GLTF_SHORT:
    case GLTF_UNSIGNED_SHORT: return 2;
    default: return 4;
    }
}

/* A vertex attribute accessor. Vertex data must be 4-byte aligned per
 * element (MESH_PRIMITIVE_ACCESSOR_UNALIGNED): elements of 3 or 6 bytes get
 * a padded copy and a byteStride. */
int ossa__gltfw_add_vertex_accessor(gw *w, const void *data, uint32_t count, int ctype, uint32_t ncomp,
                               bool normalized, const float *min, const float *max)
{
    size_t elem = ossa__gltfw_ctype_size(ctype) * ncomp, stride = (elem + 3) & ~(size_t)3;
    int view;
    if (stride == elem) {
        view = ossa__gltfw_add_view(w, data, elem * count, 0, GLTF_ARRAY_BUFFER);
    } else {
        unsigned char *tmp = ossa__alloc(w->alloc, stride * count);
        if (!tmp) {
            w->nomem = true;
            return -1;
        }
        memset(tmp, 0, stride * count);
        for (uint32_t i = 0; i < count; i++)
            memcpy(tmp + i * stride, (const unsigned char *)data + i * elem, elem);
        view = ossa__gltfw_add_view(w, tmp, stride * count, stride, GLTF_ARRAY_BUFFER);
        ossa__free(w->alloc, tmp, stride * count);
    }
    return ossa__gltfw_add_accessor(w, view, ctype, count, ossa__gltfw_type_name(ncomp), normalized, min, max, (int)ncomp);
}

/* A URI reference for a file name: bytes other than unreserved characters
 * and '/' are percent-encoded. */
cJSON *ossa__gltfw_juri(gw *w, const char *s)
{
    size_t n = strlen(s);
    char *out = ossa__alloc(w->alloc, n * 3 + 1), *o = out;
    if (!out) return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            strchr("-._~/", c))
            *o++ = (char)c;
        else
            o += sprintf(o, "%%%02X", c);
    }
    *o = 0;
    cJSON *r = cJSON_CreateString(out);
    ossa__free(w->alloc, out, n * 3 + 1);
    return r;
}
