/* glTF 2.0 reader: the materials that primitives use, with their
 * textures, samplers and images, become the model's OSSA_EXTRA_MATERIAL
 * and OSSA_EXTRA_IMAGE extras (ossa.h, core/materials.h), so that glTF ->
 * glTF keeps them and formats that name an image per material get theirs.
 *
 * Material properties are read leniently: a malformed factor or texture
 * reference is skipped (the default stays) rather than failing a load
 * whose geometry is fine. Image bytes come from a bufferView, a data URI
 * or a file beside the .gltf; a file outside the model's folder fails the
 * load (OSSA_ERROR_ACCESS, as buffers do), any other image that cannot be
 * had leaves its name in the material with a warning. */
#include "core/materials.h"
#include "formats/gltf/scene.h"

#include <stdio.h>

static const cJSON *get(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Adds `what` to the list of features skipped (one warning at the end). */
static void note_ignored(gltf_scene *s, const char *what)
{
    size_t n = strlen(s->ignored), w = strlen(what);
    for (const char *p = s->ignored; (p = strstr(p, what)) != NULL; p += w)
        if ((p == s->ignored || p[-1] == ' ') && (p[w] == ',' || p[w] == 0)) return;
    if (n + w + 3 >= sizeof s->ignored) {
        if (n + 5 < sizeof s->ignored && !strstr(s->ignored, "...")) strcat(s->ignored, ", ...");
        return;
    }
    if (n) strcat(s->ignored, ", ");
    strcat(s->ignored, what);
}

static void note_extensions(gltf_scene *s, const cJSON *obj)
{
    const cJSON *ext = get(obj, "extensions"), *e;
    if (cJSON_IsObject(ext))
        cJSON_ArrayForEach(e, ext) note_ignored(s, e->string);
}

static bool get_floats(const cJSON *obj, const char *key, float *out, int n)
{
    const cJSON *v = get(obj, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n) return false;
    float tmp[4];
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || fabs(e->valuedouble) > 1e30) return false;
        tmp[i] = (float)e->valuedouble;
    }
    memcpy(out, tmp, (size_t)n * sizeof *out);
    return true;
}

static void get_float(const cJSON *obj, const char *key, float *out)
{
    const cJSON *v = get(obj, key);
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && fabs(v->valuedouble) < 1e30)
        *out = (float)v->valuedouble;
}

/* A valid index below `limit`, else -1. */
static int64_t get_index(const cJSON *obj, const char *key, uint32_t limit)
{
    const cJSON *v = get(obj, key);
    return gltf_is_index(v) && v->valuedouble < limit ? (int64_t)v->valuedouble : -1;
}

/* -- Images ------------------------------------------------------------------ */

/* Whether the name is taken by another image (each image is named once);
 * a free name is taken for the caller. Without memory for the table the
 * name is given as it is (at worst two images share it). */
static bool name_taken(gltf_scene *s, const char *name)
{
    size_t before = ossa__intern_count(&s->image_names);
    if (ossa__intern(s->m, &s->image_names, name, strlen(name)) < 0) return false;
    return ossa__intern_count(&s->image_names) == before;
}

/* A file name for image j: its uri's file name, else its name, else the
 * material and slot that use it; with the extension of its kind, unique
 * in the model. */
static void image_name(gltf_scene *s, uint32_t j, const char *material, int slot,
                       const unsigned char *bytes, size_t size, char out[OSSA_IMAGE_NAME_MAX])
{
    gltf_reader *r = s->r;
    const cJSON *img = r->images.items[j];
    const char *uri = ossa__gltf_string(img, "uri"), *name = ossa__gltf_string(img, "name");
    out[0] = 0;
    if (uri && strncmp(uri, "data:", 5) != 0) {
        char *decoded = ossa__gltf_uri_to_name(r, uri);
        if (decoded) {
            ossa__image_file_name(decoded, out);
            ossa__free(r->alloc, decoded, strlen(uri) + 1);
        }
    }
    if (!out[0] && name) ossa__image_file_name(name, out);
    if (!out[0] && material[0]) {
        char tmp[OSSA_IMAGE_NAME_MAX];
        snprintf(tmp, sizeof tmp, "%.200s%s%s", material, slot ? "_" : "",
                 slot ? ossa__tex_slot_names[slot] : "");
        ossa__image_file_name(tmp, out);
    }
    if (!out[0]) snprintf(out, OSSA_IMAGE_NAME_MAX, "image%u", (unsigned)(j % 1000000));
    const char *mime = ossa__image_mime(bytes, size);
    if (!mime) mime = ossa__gltf_string(img, "mimeType");
    const char *ext = !mime ? "" : strcmp(mime, "image/png") == 0 ? ".png"
                                 : strcmp(mime, "image/jpeg") == 0 ? ".jpg" : "";
    size_t n = strlen(out);
    if (!ossa__is_image_name(out) && ext[0] && n + strlen(ext) < OSSA_IMAGE_NAME_MAX) strcat(out, ext);
    if (!name_taken(s, out)) return;
    /* NAME_2.png, NAME_3.png, ... */
    const char *dot = strrchr(out, '.');
    char stem[OSSA_IMAGE_NAME_MAX], suffix[OSSA_IMAGE_NAME_MAX];
    size_t sl = dot && dot != out ? (size_t)(dot - out) : strlen(out);
    snprintf(stem, sizeof stem, "%.*s", (int)(sl < 200 ? sl : 200), out);
    snprintf(suffix, sizeof suffix, "%.16s", dot && dot != out ? dot : "");
    for (uint32_t k = 2;; k++) {
        snprintf(out, OSSA_IMAGE_NAME_MAX, "%.200s_%u%.16s", stem, k, suffix);
        if (!name_taken(s, out)) return;
    }
}

/* The bytes of image j into *data (owned by `file`, `owned` or the file's
 * buffers). A problem other than a refused reference or memory becomes a
 * warning and no bytes. */
static ossa_status image_bytes(gltf_scene *s, uint32_t j, ossa_sibling *file, unsigned char **owned,
                               size_t *owned_cap, const unsigned char **data, size_t *size)
{
    gltf_reader *r = s->r;
    const cJSON *img = r->images.items[j];
    const char *uri = ossa__gltf_string(img, "uri");
    char what[40];
    snprintf(what, sizeof what, "images[%u]%s", j, uri ? ".uri" : "");
    /* Read with a private error, so that a broken image is a warning. */
    ossa_error sub, *keep = r->error;
    memset(&sub, 0, sizeof sub);
    r->error = &sub;
    ossa_status st = OSSA_OK;
    *data = NULL;
    *size = 0;
    int64_t v = get_index(img, "bufferView", r->views.count);
    if (uri && strncmp(uri, "data:", 5) == 0) {
        st = ossa__gltf_data_uri(r, uri, what, owned, size, owned_cap);
        *data = *owned;
    } else if (uri) {
        st = ossa__gltf_open_uri(r, uri, what, file);
        *data = file->data;
        *size = file->size;
    } else if (v >= 0) {
        size_t stride;
        st = ossa__gltf_view(r, v, data, size, &stride);
    } else {
        st = ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: neither a uri nor a bufferView", what);
    }
    r->error = keep;
    if (!st) return OSSA_OK;
    *data = NULL;
    *size = 0;
    if (sub.code == OSSA_ERROR_NOMEM || sub.code == OSSA_ERROR_ACCESS) {
        *r->error = sub;
        return OSSA_FAILED;
    }
    ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s: the image is not kept (only its name)",
               sub.message);
    return OSSA_OK;
}

/* The model's name of image j, its bytes recorded as an OSSA_EXTRA_IMAGE
 * extra the first time (unless OSSA_LOAD_NO_IMAGES). */
static ossa_status image(gltf_scene *s, uint32_t j, const char *material, int slot, const char **out)
{
    gltf_reader *r = s->r;
    if (s->image_name[j]) {
        *out = s->image_name[j];
        return OSSA_OK;
    }
    ossa_sibling file;
    memset(&file, 0, sizeof file);
    unsigned char *owned = NULL;
    size_t owned_cap = 0, size = 0;
    const unsigned char *data = NULL;
    ossa_status st = OSSA_OK;
    if (!(r->options->flags & OSSA_LOAD_NO_IMAGES))
        st = image_bytes(s, j, &file, &owned, &owned_cap, &data, &size);
    char name[OSSA_IMAGE_NAME_MAX];
    if (!st) {
        image_name(s, j, material, slot, data, size, name);
        s->image_name[j] = ossa__arena_strdup(ossa__model_arena(s->m), name);
        if (!s->image_name[j]) st = ossa__fail_nomem(r->error);
    }
    if (!st && data) {
        char key[sizeof OSSA_EXTRA_IMAGE + OSSA_IMAGE_NAME_MAX];
        snprintf(key, sizeof key, "%s%s", OSSA_EXTRA_IMAGE, name);
        st = ossa_model_add_extra(s->m, key, data, size, r->error);
    }
    ossa__free(r->alloc, owned, owned_cap);
    ossa__close_sibling(&file);
    if (!st) *out = s->image_name[j];
    return st;
}

/* -- Materials --------------------------------------------------------------- */

/* A textureInfo of slot `slot` into d->textures[slot]. */
static ossa_status texture_info(gltf_scene *s, const cJSON *info, int slot, const char *material,
                                ossa_material *d)
{
    gltf_reader *r = s->r;
    if (!cJSON_IsObject(info)) return OSSA_OK;
    note_extensions(s, info); /* KHR_texture_transform and the like */
    int64_t ti = get_index(info, "index", r->textures.count);
    if (ti < 0) {
        note_ignored(s, "texture references out of range");
        return OSSA_OK;
    }
    ossa_material_texture *t = &d->textures[slot];
    int64_t tc = get_index(info, "texCoord", 8);
    t->texcoord = tc > 0 ? (uint32_t)tc : 0;
    const cJSON *tex = r->textures.items[ti];
    int64_t src = get_index(tex, "source", r->images.count);
    if (src < 0) { /* the image is in an extension (KTX2, WebP...) */
        note_extensions(s, tex);
        if (!cJSON_IsObject(get(tex, "extensions"))) note_ignored(s, "textures without an image");
        return OSSA_OK;
    }
    int64_t si = get_index(tex, "sampler", r->samplers.count);
    if (si >= 0) {
        static const char *const keys[4] = {"magFilter", "minFilter", "wrapS", "wrapT"};
        for (int k = 0; k < 4; k++) {
            int64_t v = get_index(r->samplers.items[si], keys[k], 65536);
            t->sampler[k] = v > 0 ? (uint32_t)v : 0;
        }
    }
    const char *name;
    if (image(s, (uint32_t)src, material, slot, &name)) return OSSA_FAILED;
    snprintf(t->image, sizeof t->image, "%s", name);
    return OSSA_OK;
}

static ossa_status describe(gltf_scene *s, const cJSON *m, const char *name, ossa_material *d)
{
    ossa__material_defaults(d);
    const cJSON *pbr = get(m, "pbrMetallicRoughness");
    get_floats(pbr, "baseColorFactor", d->base_color, 4);
    get_float(pbr, "metallicFactor", &d->metallic);
    get_float(pbr, "roughnessFactor", &d->roughness);
    get_float(get(m, "normalTexture"), "scale", &d->normal_scale);
    get_float(get(m, "occlusionTexture"), "strength", &d->occlusion_strength);
    get_floats(m, "emissiveFactor", d->emissive, 3);
    const char *mode = ossa__gltf_string(m, "alphaMode");
    if (mode && strcmp(mode, "MASK") == 0) d->alpha_mode = OSSA_ALPHA_MASK;
    if (mode && strcmp(mode, "BLEND") == 0) d->alpha_mode = OSSA_ALPHA_BLEND;
    get_float(m, "alphaCutoff", &d->alpha_cutoff);
    d->double_sided = cJSON_IsTrue(get(m, "doubleSided"));
    note_extensions(s, m);
    note_extensions(s, pbr);
    const cJSON *infos[OSSA_TEXTURE_COUNT] = {get(pbr, "baseColorTexture"), get(pbr, "metallicRoughnessTexture"),
                                          get(m, "normalTexture"), get(m, "occlusionTexture"),
                                          get(m, "emissiveTexture")};
    for (int k = 0; k < OSSA_TEXTURE_COUNT; k++)
        if (texture_info(s, infos[k], k, name, d)) return OSSA_FAILED;
    /* Images that ossa's writer did not have: their names only. */
    const cJSON *x = gltf_ours(m);
    for (int k = 0; k < OSSA_TEXTURE_COUNT; k++) {
        char key[40];
        snprintf(key, sizeof key, "%s_texture", ossa__tex_slot_names[k]);
        const char *image = ossa__gltf_string(x, key);
        if (image && !d->textures[k].image[0]) snprintf(d->textures[k].image, sizeof d->textures[k].image, "%s", image);
    }
    return OSSA_OK;
}

/* The name a material has in the model: its own; without one, its base
 * colour image's file reference or name (IQM's convention); else
 * "materialN". */
static void model_name(gltf_scene *s, uint32_t i, char *out, size_t cap)
{
    gltf_reader *r = s->r;
    const cJSON *m = r->materials.items[i];
    const char *name = ossa__gltf_string(m, "name");
    if (name && name[0]) {
        snprintf(out, cap, "%s", name);
        return;
    }
    int64_t tex = get_index(get(get(m, "pbrMetallicRoughness"), "baseColorTexture"), "index", r->textures.count);
    int64_t src = tex < 0 ? -1 : get_index(r->textures.items[tex], "source", r->images.count);
    const cJSON *img = src < 0 ? NULL : r->images.items[src];
    const char *uri = ossa__gltf_string(img, "uri");
    if (uri && strncmp(uri, "data:", 5) != 0) name = uri;
    else name = ossa__gltf_string(img, "name");
    if (name && name[0]) snprintf(out, cap, "%s", name);
    else snprintf(out, cap, "material%u", i);
}

/* The description of the material already called `name`, if any (*same
 * NULL when the name is new: it is then recorded, and the caller stores
 * its extra in material_extra[*id]). */
static ossa_status named_before(gltf_scene *s, const char *name, const ossa_extra **same,
                                int64_t *id_out)
{
    size_t before = ossa__intern_count(&s->material_names);
    int64_t id = ossa__intern(s->m, &s->material_names, name, strlen(name));
    if (id < 0) return ossa__fail_nomem(s->r->error);
    *id_out = id;
    *same = ossa__intern_count(&s->material_names) == before && s->material_extra[id]
                ? &s->m->extras[s->material_extra[id] - 1] : NULL;
    return OSSA_OK;
}

ossa_status ossa__gltf_material(gltf_scene *s, const cJSON *prim, const char **out)
{
    gltf_reader *r = s->r;
    *out = "";
    int64_t i = get_index(prim, "material", r->materials.count);
    if (i < 0) return OSSA_OK;
    if (!s->material_name) {
        s->material_name = gltf_scratch(s, r->materials.count, sizeof *s->material_name);
        s->image_name = gltf_scratch(s, r->images.count, sizeof *s->image_name);
        /* a name per material, and one more per renamed material */
        s->material_extra = gltf_scratch(s, (size_t)r->materials.count * 2, sizeof *s->material_extra);
        if (!s->material_name || !s->image_name || !s->material_extra) return ossa__fail_nomem(r->error);
    }
    if (s->material_name[i]) {
        *out = s->material_name[i];
        return OSSA_OK;
    }
    char name[256];
    model_name(s, (uint32_t)i, name, sizeof name);
    ossa_material d;
    if (describe(s, r->materials.items[i], name, &d)) return OSSA_FAILED;
    ossa_buf text;
    ossa__buf_init(&text, r->alloc);
    ossa__material_format(&d, &text);
    ossa_status st = text.failed ? ossa__fail_nomem(r->error) : OSSA_OK;
    /* Another material of the same name: shared when it looks the same,
     * else this one is renamed. */
    const ossa_extra *same = NULL;
    int64_t id = 0;
    if (!st) st = named_before(s, name, &same, &id);
    if (same && (same->size != text.size || (text.size && memcmp(same->data, text.data, text.size)))) {
        char renamed[256];
        snprintf(renamed, sizeof renamed, "%.200s.%u", name, (unsigned)i);
        ossa__warn(s->m, OSSA_WARNING_RENAMED, OSSA_NO_OFFSET, 0, 0,
                   "materials[%u]: another material is named '%.100s': renamed '%s'", (unsigned)i,
                   name, renamed);
        snprintf(name, sizeof name, "%s", renamed);
        st = named_before(s, name, &same, &id);
    }
    if (!st && !same) {
        char key[sizeof OSSA_EXTRA_MATERIAL + 256];
        snprintf(key, sizeof key, "%s%s", OSSA_EXTRA_MATERIAL, name);
        st = ossa_model_add_extra(s->m, key, text.size ? text.data : (const void *)"", text.size, r->error);
        if (!st) s->material_extra[id] = s->m->num_extras;
    }
    ossa__buf_release(&text);
    if (st) return st;
    s->material_name[i] = ossa__arena_strdup(ossa__model_arena(s->m), name);
    if (!s->material_name[i]) return ossa__fail_nomem(r->error);
    *out = s->material_name[i];
    return OSSA_OK;
}

void ossa__gltf_materials_free(gltf_scene *s)
{
    ossa__intern_free(s->m, &s->material_names);
    ossa__intern_free(s->m, &s->image_names);
}

void ossa__gltf_materials_done(gltf_scene *s)
{
    if (s->ignored[0])
        ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "materials: not kept: %s",
                   s->ignored);
}
