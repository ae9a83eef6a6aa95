/* Materials from the files a model came from: the image a material names
 * beside the model (IQM, IQE, MD5...), or a glTF material's base colour
 * and base colour texture. Everything here is best effort: a picture that
 * cannot be had leaves the mesh's palette colour and says why. */
#include "core/files.h"
#include "render/render.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct loader {
    ossa_render_scene *scene;
    const ossa_model *model;
    const char *path;
    ossa_diagnostic_fn diagnostic;
    void *user;
    uint32_t set;
} loader;

static void note(const loader *l, const char *file, const char *fmt, ...) OSSA_PRINTF(3, 4);
static void note(const loader *l, const char *file, const char *fmt, ...)
{
    if (!l->diagnostic) return;
    ossa_diagnostic d;
    memset(&d, 0, sizeof d);
    d.code = OSSA_WARNING_IGNORED;
    d.severity = OSSA_SEVERITY_WARNING;
    d.offset = OSSA_NO_OFFSET;
    snprintf(d.file, sizeof d.file, "%s", file ? file : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d.message, sizeof d.message, fmt, ap);
    va_end(ap);
    l->diagnostic(l->user, &d);
}

static bool is_png(const unsigned char *data, size_t size)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    return size >= 8 && memcmp(data, sig, 8) == 0;
}

static void apply(loader *l, uint32_t mesh, const float color[4], const ossa_render_image *img)
{
    ossa_render_material m;
    memset(&m, 0, sizeof m);
    memcpy(m.color, color, sizeof m.color);
    if (img && img->pixels) {
        m.texture = img->pixels;
        m.texture_width = img->width;
        m.texture_height = img->height;
    }
    if (ossa_render_scene_set_material(l->scene, mesh, &m, NULL) == OSSA_OK) l->set++;
}

/* -- Images beside the model -- */

/* Reads and decodes `name` beside the model; false (quietly) when there
 * is no such file. */
static bool try_image(loader *l, const char *name, ossa_render_image *out, bool *reported)
{
    char file[4096];
    if (ossa__sibling_path(l->path, name, file, sizeof file) >= sizeof file) return false;
    unsigned char *data;
    size_t size;
    if (ossa__read_file(file, NULL, &data, &size, NULL) != OSSA_OK) return false;
    ossa_error err;
    bool ok = false;
    if (!is_png(data, size))
        note(l, file, "not a PNG image (only PNG textures are read)");
    else if (ossa_render_png_decode(data, size, NULL, out, &err) != OSSA_OK)
        note(l, file, "%s", err.message);
    else
        ok = true;
    *reported = !ok;
    ossa__free(NULL, data, size + 1);
    return ok;
}

/* The material's own name, then the name with .png instead of its
 * extension (or added when it has none). */
static void load_beside(loader *l)
{
    const ossa_model *m = l->model;
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        const char *mat = m->meshes[i].material;
        if (!mat || !mat[0]) continue;
        bool seen = false;
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = m->meshes[k].material && strcmp(m->meshes[k].material, mat) == 0;
        if (seen) continue; /* handled with the first mesh of this material */
        ossa_render_image img;
        bool reported = false;
        bool ok = try_image(l, mat, &img, &reported);
        if (!ok && !reported) {
            char alt[1024];
            const char *slash = strrchr(mat, '/'), *dot = strrchr(mat, '.');
            size_t stem = (dot && (!slash || dot > slash)) ? (size_t)(dot - mat) : strlen(mat);
            if (stem < sizeof alt - 5) {
                snprintf(alt, sizeof alt, "%.*s.png", (int)stem, mat);
                if (strcmp(alt, mat) != 0) ok = try_image(l, alt, &img, &reported);
            }
        }
        if (!ok) {
            if (!reported) note(l, NULL, "material '%s': no image file beside the model", mat);
            continue;
        }
        static const float unset[4] = {0, 0, 0, 0};
        for (uint32_t k = i; k < m->num_meshes; k++)
            if (m->meshes[k].material && strcmp(m->meshes[k].material, mat) == 0)
                apply(l, k, unset, &img);
        ossa_render_free(img.pixels, NULL);
    }
}

/* -- glTF -- */

/* The GLB container (glTF 2.0 specification, "Binary glTF Layout"). */
#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_HEADER_SIZE 12
#define GLB_CHUNK_HEADER_SIZE 8
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

typedef struct gltf_doc {
    cJSON *root;
    const unsigned char *bin; /* GLB BIN chunk */
    size_t bin_size;
} gltf_doc;

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool parse_gltf(const unsigned char *data, size_t size, gltf_doc *doc)
{
    memset(doc, 0, sizeof *doc);
    const char *json = (const char *)data;
    size_t json_size = size;
    if (size >= GLB_HEADER_SIZE && rd32(data) == GLB_MAGIC) {
        size_t len = rd32(data + 8);
        if (len > size) len = size;
        size_t at = GLB_HEADER_SIZE;
        json = NULL;
        while (at + GLB_CHUNK_HEADER_SIZE <= len) {
            size_t clen = rd32(data + at), type = rd32(data + at + 4);
            at += GLB_CHUNK_HEADER_SIZE;
            if (clen > len - at) break;
            if (type == GLB_CHUNK_JSON && !json) json = (const char *)data + at, json_size = clen;
            else if (type == GLB_CHUNK_BIN && !doc->bin) doc->bin = data + at, doc->bin_size = clen;
            at += clen;
        }
        if (!json) return false;
    }
    doc->root = cJSON_ParseWithLength(json, json_size);
    return doc->root != NULL;
}

static const cJSON *item(const cJSON *obj, const char *key)
{
    return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static const cJSON *at_index(const cJSON *array, const cJSON *index)
{
    if (!cJSON_IsArray(array) || !cJSON_IsNumber(index)) return NULL;
    double v = index->valuedouble;
    if (!(v >= 0 && v < cJSON_GetArraySize(array)) || v != floor(v)) return NULL;
    return cJSON_GetArrayItem(array, (int)v);
}

static const char *string_of(const cJSON *obj, const char *key)
{
    const cJSON *s = item(obj, key);
    return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* The name the glTF reader gives a mesh for this material (scene.c): its
 * name, else its base colour image's file name or name. */
static const char *material_name(const cJSON *root, const cJSON *mat)
{
    const char *name = string_of(mat, "name");
    if (name && name[0]) return name;
    const cJSON *tex = at_index(item(root, "textures"),
                                item(item(item(mat, "pbrMetallicRoughness"), "baseColorTexture"),
                                     "index"));
    const cJSON *img = at_index(item(root, "images"), item(tex, "source"));
    const char *uri = string_of(img, "uri");
    if (uri && strncmp(uri, "data:", 5) != 0) return uri;
    name = string_of(img, "name");
    return name ? name : "";
}

static int base64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Bytes of a data URI's base64 payload (RFC 4648, padding optional),
 * decoded into *owned (free()). The renderer sits below the formats, so
 * it has its own few lines for this rather than the glTF module's. */
static bool data_uri(const char *uri, unsigned char **owned, size_t *size)
{
    const char *comma = strchr(uri, ',');
    if (!comma || !strstr(uri, ";base64,")) return false;
    const char *in = comma + 1;
    size_t len = strlen(in);
    while (len && in[len - 1] == '=') len--;
    unsigned char *out = malloc(len / 4 * 3 + 3);
    if (!out) return false;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = base64_value(in[i]);
        if (v < 0) {
            free(out);
            return false;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    *owned = out;
    *size = n;
    return true;
}

/* The bytes of image `img`: its buffer view (in the GLB's BIN chunk or a
 * buffer's data URI or file) or its own URI. Fills *owned when the bytes
 * had to be decoded or read (free()); returns NULL when they cannot be
 * had, with a reason. */
static const unsigned char *image_bytes(const loader *l, const gltf_doc *doc, const cJSON *img,
                                        unsigned char **owned, size_t *size, const char **why)
{
    *owned = NULL;
    const char *uri = string_of(img, "uri");
    if (uri) {
        if (strncmp(uri, "data:", 5) == 0) {
            if (!data_uri(uri, owned, size)) *why = "image data URI is not base64";
            return *owned;
        }
        char file[4096];
        if (ossa__sibling_path(l->path, uri, file, sizeof file) >= sizeof file ||
            ossa__read_file(file, NULL, owned, size, NULL) != OSSA_OK) {
            *why = "image file cannot be read";
            *owned = NULL;
            return NULL;
        }
        return *owned;
    }
    const cJSON *view = at_index(item(doc->root, "bufferViews"), item(img, "bufferView"));
    const cJSON *buffer = at_index(item(doc->root, "buffers"), item(view, "buffer"));
    const cJSON *off = item(view, "byteOffset"), *len = item(view, "byteLength");
    double o = cJSON_IsNumber(off) ? off->valuedouble : 0;
    double n = cJSON_IsNumber(len) ? len->valuedouble : -1;
    if (!view || !buffer || !(o >= 0) || !(n >= 0) || o + n > 1e15) {
        *why = "image has no valid buffer view";
        return NULL;
    }
    const unsigned char *base;
    size_t avail;
    unsigned char *buf_owned = NULL;
    const char *buri = string_of(buffer, "uri");
    if (!buri) {
        base = doc->bin, avail = doc->bin_size;
    } else if (strncmp(buri, "data:", 5) == 0 && data_uri(buri, &buf_owned, &avail)) {
        base = buf_owned;
    } else {
        char file[4096];
        if (strncmp(buri, "data:", 5) == 0 ||
            ossa__sibling_path(l->path, buri, file, sizeof file) >= sizeof file ||
            ossa__read_file(file, NULL, &buf_owned, &avail, NULL) != OSSA_OK) {
            *why = "image's buffer cannot be read";
            return NULL;
        }
        base = buf_owned;
    }
    if (!base || o + n > (double)avail) {
        free(buf_owned);
        *why = "image's buffer view lies outside its buffer";
        return NULL;
    }
    *size = (size_t)n;
    if (!buf_owned) return base + (size_t)o;
    /* Keep only the image: move it to the front of the buffer we own. */
    memmove(buf_owned, buf_owned + (size_t)o, (size_t)n);
    *owned = buf_owned;
    return buf_owned;
}

static float srgb_from_linear(float c)
{
    if (!(c > 0)) return 0;
    if (c >= 1) return 1;
    return c <= 0.0031308f ? 12.92f * c : 1.055f * powf(c, 1 / 2.4f) - 0.055f;
}

static void load_gltf(loader *l, const unsigned char *data, size_t size)
{
    gltf_doc doc;
    if (!parse_gltf(data, size, &doc)) {
        note(l, l->path, "glTF JSON cannot be parsed for materials");
        return;
    }
    const cJSON *mats = item(doc.root, "materials"), *images = item(doc.root, "images");
    int nimg = cJSON_IsArray(images) ? cJSON_GetArraySize(images) : 0;
    /* Decoded images, by index, so that materials sharing one decode it once. */
    ossa_render_image *decoded = calloc((size_t)nimg + 1, sizeof *decoded);
    bool *tried = calloc((size_t)nimg + 1, sizeof *tried);
    const ossa_model *m = l->model;
    for (uint32_t i = 0; decoded && tried && i < m->num_meshes; i++) {
        const char *want = m->meshes[i].material;
        if (!want || !want[0] || !cJSON_IsArray(mats)) continue;
        const cJSON *mat = NULL, *it;
        cJSON_ArrayForEach(it, mats) if (!mat && strcmp(material_name(doc.root, it), want) == 0) mat = it;
        if (!mat) continue;
        const cJSON *pbr = item(mat, "pbrMetallicRoughness");
        const cJSON *factor = item(pbr, "baseColorFactor");
        float color[4] = {0, 0, 0, 0};
        bool has_factor = cJSON_IsArray(factor) && cJSON_GetArraySize(factor) == 4;
        for (int c = 0; has_factor && c < 4; c++) {
            const cJSON *v = cJSON_GetArrayItem(factor, c);
            float f = cJSON_IsNumber(v) ? (float)v->valuedouble : 1;
            color[c] = c < 3 ? srgb_from_linear(f) : f;
        }
        /* A factor of pure black would read as "unset": keep it black. */
        if (has_factor && !color[0] && !color[1] && !color[2]) color[3] = 1;
        const cJSON *tex = at_index(item(doc.root, "textures"),
                                    item(item(pbr, "baseColorTexture"), "index"));
        const cJSON *src = item(tex, "source");
        const ossa_render_image *img = NULL;
        if (cJSON_IsNumber(src) && at_index(images, src)) {
            int k = (int)src->valuedouble;
            if (!tried[k]) {
                tried[k] = true;
                unsigned char *owned;
                size_t bytes = 0;
                const char *why = NULL;
                const unsigned char *p =
                    image_bytes(l, &doc, at_index(images, src), &owned, &bytes, &why);
                ossa_error err;
                if (!p)
                    note(l, l->path, "material '%s': %s", want, why ? why : "no image");
                else if (!is_png(p, bytes))
                    note(l, l->path, "material '%s': image %d is not PNG (only PNG textures "
                                     "are read)", want, k);
                else if (ossa_render_png_decode(p, bytes, NULL, &decoded[k], &err) != OSSA_OK)
                    note(l, l->path, "material '%s': image %d: %s", want, k, err.message);
                free(owned);
            }
            if (decoded[k].pixels) img = &decoded[k];
        }
        if (img || has_factor) apply(l, i, color, img);
    }
    for (int k = 0; decoded && k < nimg; k++) ossa_render_free(decoded[k].pixels, NULL);
    free(decoded);
    free(tried);
    cJSON_Delete(doc.root);
}

uint32_t ossa_render_scene_load_materials(ossa_render_scene *scene, const ossa_model *model,
                                          const char *path, ossa_diagnostic_fn diagnostic,
                                          void *user)
{
    if (!scene || !model || !path || model->num_meshes != scene->num_meshes) return 0;
    loader l = {scene, model, path, diagnostic, user, 0};
    if (model->source_format == OSSA_FORMAT_GLTF || model->source_format == OSSA_FORMAT_GLB) {
        unsigned char *data;
        size_t size;
        ossa_error err;
        if (ossa__read_file(path, NULL, &data, &size, &err) != OSSA_OK) {
            note(&l, path, "%s", err.message);
            return 0;
        }
        load_gltf(&l, data, size);
        ossa__free(NULL, data, size + 1);
    } else {
        load_beside(&l);
    }
    return l.set;
}
