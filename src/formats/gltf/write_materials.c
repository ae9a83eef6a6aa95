/* glTF writer: materials, textures, samplers and images.
 *
 * A material is written from its OSSA_EXTRA_MATERIAL description when the
 * model has one (a glTF source), else by IQM's convention: a material
 * named like an image file has that image as its base colour texture, and
 * is not metallic (metallicFactor 0, as ossa has always written them).
 * Images come from the model's OSSA_EXTRA_IMAGE extras: inside the file
 * (a bufferView with its mimeType) or as files beside it (a uri), as
 * ossa_write_options.images says. glTF holds PNG and JPEG only: a TGA
 * image (the textures of most IQM, MD5 and SMD content) is decoded and
 * written as a PNG of the same pixels, named with ".png" (src/image). A
 * texture whose image the model lacks, or whose image glTF cannot hold
 * (other kinds, a TGA that does not decode), is not referenced: no
 * reference to a file that is not there (the validator's IO_ERROR).
 * Its image name stays in the material's extras ("ossa": {"SLOT_texture":
 * NAME}), which the reader takes back, and the write warns once. */
#include "core/image_files.h"
#include "formats/gltf/write.h"
#include "image/image.h"

#include <math.h>
#include <stdio.h>

enum { DROP_MISSING, DROP_KIND, DROP_TEXCOORD, DROP_UNCONVERTED };

ossa_status ossa__gltfw_images_begin(gw *w, write_mode mode, const char *path)
{
    const ossa_model *m = w->m;
    ossa_images im = w->opt->images;
    if (im == OSSA_IMAGES_DEFAULT) im = mode == MODE_EXTERNAL ? OSSA_IMAGES_BESIDE : OSSA_IMAGES_EMBED;
    if (im == OSSA_IMAGES_BESIDE && !path) im = OSSA_IMAGES_EMBED; /* nothing is beside a buffer */
    w->images_mode = im;
    w->path = path;
    ossa__extra_index_build(m, &w->index);
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++)
        w->texcoords += m->vertex_arrays[i].type == OSSA_VERTEX_TEXCOORD && m->vertex_arrays[i].size == 2;
    if (!m->num_extras) return OSSA_OK;
    w->image_of_extra = ossa__alloc(w->alloc, m->num_extras * sizeof *w->image_of_extra);
    w->beside = ossa__alloc(w->alloc, m->num_extras * sizeof *w->beside);
    w->beside_names = ossa__alloc(w->alloc, m->num_extras * sizeof *w->beside_names);
    w->png_of_extra = ossa__alloc(w->alloc, m->num_extras * sizeof *w->png_of_extra);
    /* cleared first: ossa__gltfw_images_end frees what it holds */
    if (w->png_of_extra) memset(w->png_of_extra, 0, m->num_extras * sizeof *w->png_of_extra);
    if (!w->image_of_extra || !w->beside || !w->beside_names || !w->png_of_extra)
        return ossa__fail_nomem(w->error);
    for (uint32_t i = 0; i < m->num_extras; i++) w->image_of_extra[i] = -1;
    return OSSA_OK;
}

void ossa__gltfw_images_end(gw *w)
{
    ossa__extra_index_free(&w->index);
    ossa__intern_free(w->m, &w->material_names);
    ossa__intern_free(w->m, &w->texture_keys);
    ossa__intern_free(w->m, &w->sampler_keys);
    ossa__intern_free(w->m, &w->beside_taken);
    for (size_t i = 0; i < w->nbeside; i++) {
        ossa__free(w->alloc, (void *)w->beside[i].path, 0);
        ossa__free(w->alloc, w->beside_names[i], 0);
    }
    for (uint32_t i = 0; w->png_of_extra && i < w->m->num_extras; i++)
        ossa__free(w->alloc, w->png_of_extra[i].data, w->png_of_extra[i].size);
    ossa__free(w->alloc, w->image_of_extra, 0);
    ossa__free(w->alloc, w->beside, 0);
    ossa__free(w->alloc, w->beside_names, 0);
    ossa__free(w->alloc, w->png_of_extra, 0);
}

static void drop(gw *w, int kind, const char *name)
{
    char *list = w->dropped[kind];
    size_t cap = sizeof w->dropped[kind];
    if (strstr(list, name)) return; /* named already (or a prefix of it: good enough) */
    if (++w->ndropped[kind] > 3) return;
    size_t n = strlen(list);
    snprintf(list + n, cap - n, "%s'%.50s'", n ? ", " : "", name);
}

void ossa__gltfw_images_report(gw *w)
{
    static const char *const what[4] = {
        "images the model does not have (not found beside the input?): %s%s: their names are kept "
        "in the materials' extras",
        "images glTF cannot hold (PNG and JPEG only): %s%s: their names are kept in the materials' "
        "extras",
        "textures on texture coordinates the model lacks: %s%s: not written",
        "TGA images that do not decode, so cannot become PNG: %s%s: their names are kept in the "
        "materials' extras"};
    for (int k = 0; k < 4; k++) {
        if (!w->ndropped[k]) continue;
        char more[240] = "";
        if (w->ndropped[k] > 3) snprintf(more, sizeof more, " and %u more", w->ndropped[k] - 3);
        if (k == DROP_UNCONVERTED) {
            size_t n = strlen(more);
            snprintf(more + n, sizeof more - n, " (%s%s)", w->ndropped[k] > 1 ? "the first: " : "",
                     w->unconverted);
        }
        ossa__report(w->opt->diagnostic, w->opt->user, OSSA_SEVERITY_WARNING, OSSA_WARNING_DROPPED,
                     what[k], w->dropped[k], more);
    }
}

/* -- Images, samplers, textures ------------------------------------------------ */

/* Model image `name` (extra k), a TGA, as PNG bytes of the same pixels
 * in png_of_extra[k] and the name with ".png" for ".tga" (or added) in
 * png_name: 0, or -3 when memory ran out, -4 when it does not decode
 * (w->unconverted says why, for the first). */
static int tga_to_png(gw *w, size_t k, const char *name, char png_name[OSSA_IMAGE_NAME_MAX])
{
    const ossa_extra *e = &w->m->extras[k];
    ossa_rgba_image im;
    ossa_error err;
    if (ossa__tga_decode(e->data, e->size, w->alloc, &im, &err)) {
        if (err.code == OSSA_ERROR_NOMEM) {
            w->nomem = true;
            return -3;
        }
        if (!w->unconverted[0])
            snprintf(w->unconverted, sizeof w->unconverted, "byte %llu: %.160s",
                     (unsigned long long)err.offset, err.message);
        return -4;
    }
    struct gw_png *p = &w->png_of_extra[k];
    ossa_status st = ossa__png_encode(&im, 0, w->alloc, &p->data, &p->size, &err);
    ossa__free(w->alloc, im.pixels, im.stride * im.height);
    if (st) {
        w->nomem = true; /* the picture is valid: only memory can fail */
        return -3;
    }
    size_t stem = ossa__image_name_has(name, ".tga") ? strlen(name) - 4 : strlen(name);
    if (stem > OSSA_IMAGE_NAME_MAX - 5) stem = OSSA_IMAGE_NAME_MAX - 5;
    snprintf(png_name, OSSA_IMAGE_NAME_MAX, "%.*s.png", (int)stem, name);
    return 0;
}

/* The glTF image of model image `name`: -1 when the model lacks it, -2
 * when glTF cannot hold its kind, -3 when memory ran out, -4 for a TGA
 * that does not decode. */
static int image_index(gw *w, const char *name)
{
    const ossa_model *m = w->m;
    const ossa_extra *e = ossa__extra_lookup(&w->index, OSSA_EXTRA_IMAGE, name);
    if (!e) return -1;
    size_t k = (size_t)(e - m->extras);
    if (w->image_of_extra[k] >= 0) return w->image_of_extra[k];
    const void *data = e->data;
    size_t size = e->size;
    const char *mime = ossa__image_mime(data, size);
    char png_name[OSSA_IMAGE_NAME_MAX];
    if (!mime && ossa__image_kind(data, size, name) == OSSA_IMAGE_TGA) {
        int r = tga_to_png(w, k, name, png_name);
        if (r) return r;
        data = w->png_of_extra[k].data;
        size = w->png_of_extra[k].size;
        mime = "image/png";
        name = png_name;
    }
    if (!mime) return -2;
    cJSON *img = put(w, w->images, NULL, cJSON_CreateObject());
    if (w->images_mode == OSSA_IMAGES_BESIDE) {
        char file[OSSA_IMAGE_NAME_MAX];
        bool present;
        if (ossa__image_beside_name(w->path, name, data, size, w->opt, &w->beside_taken, file,
                                    &present, w->error)) {
            w->failed = true; /* the error is filled in; the document is dropped */
            return -3;
        }
        if (ossa__intern(m, &w->beside_taken, file, strlen(file)) < 0) {
            w->nomem = true;
            return -3;
        }
        size_t len = strlen(file) + 1, cap = ossa__sibling_path(w->path, file, NULL, 0) + 1;
        char *copy = ossa__alloc(w->alloc, len), *full = ossa__alloc(w->alloc, cap);
        if (!copy || !full) {
            ossa__free(w->alloc, copy, len);
            ossa__free(w->alloc, full, cap);
            w->nomem = true;
            return -3;
        }
        memcpy(copy, file, len);
        ossa__sibling_path(w->path, file, full, cap);
        /* a file already there with these bytes is referenced, not written */
        w->beside[w->nbeside].path = full;
        w->beside[w->nbeside].data = present ? NULL : data;
        w->beside[w->nbeside].size = present ? 0 : size;
        w->beside_names[w->nbeside++] = copy;
        put(w, img, "uri", juri(w, file));
    } else {
        put_int(w, img, "bufferView", add_view(w, data, size, 0, 0));
        put(w, img, "mimeType", cJSON_CreateString(mime));
        put_name(w, img, name);
    }
    w->image_of_extra[k] = w->nimages++;
    return w->image_of_extra[k];
}

static bool valid_sampler_value(int k, uint32_t v)
{
    if (k == 0) return v == 9728 || v == 9729;               /* magFilter */
    if (k == 1) return v == 9728 || v == 9729 || (v >= 9984 && v <= 9987); /* minFilter */
    return v == 33071 || v == 33648 || v == 10497;           /* wrapS, wrapT */
}

/* The sampler of these values, created on first use; -1 when none of them
 * is given (glTF's defaults). Samplers and textures are found by their
 * values through interned keys: a model may have as many as meshes. */
static int sampler_index(gw *w, const uint32_t s[4])
{
    static const char *const keys[4] = {"magFilter", "minFilter", "wrapS", "wrapT"};
    uint32_t v[4];
    bool any = false;
    for (int k = 0; k < 4; k++) {
        v[k] = valid_sampler_value(k, s[k]) ? s[k] : 0;
        any |= v[k] != 0;
    }
    if (!any) return -1;
    char key[48];
    int len = snprintf(key, sizeof key, "%u %u %u %u", (unsigned)v[0], (unsigned)v[1], (unsigned)v[2],
                       (unsigned)v[3]);
    uint32_t n = ossa__intern_count(&w->sampler_keys);
    int64_t id = ossa__intern(w->m, &w->sampler_keys, key, (size_t)len);
    if (id < 0) {
        w->nomem = true;
        return -1;
    }
    if (id < n) return (int)id;
    cJSON *o = put(w, w->samplers, NULL, cJSON_CreateObject());
    for (int k = 0; k < 4; k++)
        if (v[k]) put_int(w, o, keys[k], v[k]);
    return (int)id;
}

static int texture_index(gw *w, int image, int sampler)
{
    char key[32];
    int len = snprintf(key, sizeof key, "%d %d", image, sampler);
    uint32_t n = ossa__intern_count(&w->texture_keys);
    int64_t id = ossa__intern(w->m, &w->texture_keys, key, (size_t)len);
    if (id < 0) {
        w->nomem = true;
        return 0;
    }
    if (id < n) return (int)id;
    cJSON *t = put(w, w->textures, NULL, cJSON_CreateObject());
    if (sampler >= 0) put_int(w, t, "sampler", sampler);
    put_int(w, t, "source", image);
    return (int)id;
}

/* A textureInfo for slot `slot` under `key` of `parent`, or NULL when the
 * texture cannot be written (its image name then goes into `names`, the
 * material's own extras, created on demand). */
static cJSON *texture_info(gw *w, cJSON *parent, const char *key, int slot, const ossa_material_texture *t,
                           cJSON *mat, cJSON **names)
{
    if (!t->image[0]) return NULL;
    int image = -1;
    if (w->images_mode != OSSA_IMAGES_NONE) {
        if (t->texcoord >= w->texcoords) {
            drop(w, DROP_TEXCOORD, t->image);
        } else {
            image = image_index(w, t->image);
            if (image == -1) drop(w, DROP_MISSING, t->image);
            if (image == -2) drop(w, DROP_KIND, t->image);
            if (image == -4) drop(w, DROP_UNCONVERTED, t->image);
        }
    }
    if (image < 0) {
        if (!*names) {
            cJSON *extras = put(w, mat, "extras", cJSON_CreateObject());
            *names = put(w, extras, GLTF_EXTRAS_KEY, cJSON_CreateObject());
        }
        char k[48];
        snprintf(k, sizeof k, "%s_texture", ossa__tex_slot_names[slot]);
        put(w, *names, k, jstring(w, t->image));
        return NULL;
    }
    cJSON *info = put(w, parent, key, cJSON_CreateObject());
    put_int(w, info, "index", texture_index(w, image, sampler_index(w, t->sampler)));
    if (t->texcoord) put_int(w, info, "texCoord", t->texcoord);
    return info;
}

/* -- Materials ------------------------------------------------------------------ */

static float unit(float v)
{
    return v > 0 ? (v < 1 ? v : 1) : 0; /* also NaN -> 0 */
}

static void put_unit_floats(gw *w, cJSON *obj, const char *key, const float *v, int n)
{
    float c[4];
    for (int k = 0; k < n; k++) c[k] = unit(v[k]);
    put_floats(w, obj, key, c, n);
}

int ossa__gltfw_material(gw *w, const char *name)
{
    /* materials[i] is interned name i: one lookup per mesh */
    int n = (int)ossa__intern_count(&w->material_names);
    int64_t id = ossa__intern(w->m, &w->material_names, name, strlen(name));
    if (id < 0) {
        w->nomem = true;
        return 0;
    }
    if (id < n) return (int)id;
    cJSON *mat = put(w, w->materials, NULL, cJSON_CreateObject());
    put_name(w, mat, name);
    ossa_material d;
    bool described = ossa__extra_lookup(&w->index, OSSA_EXTRA_MATERIAL, name) != NULL;
    ossa__material_in(&w->index, name, &d);
    if (!described) {
        d.metallic = 0;
        /* a name like an image file on a model without texture
         * coordinates is only a name */
        if (!w->texcoords) d.textures[OSSA_TEXTURE_BASE_COLOR].image[0] = 0;
    }
    cJSON *names = NULL;
    cJSON *pbr = put(w, mat, "pbrMetallicRoughness", cJSON_CreateObject());
    if (d.base_color[0] != 1 || d.base_color[1] != 1 || d.base_color[2] != 1 || d.base_color[3] != 1)
        put_unit_floats(w, pbr, "baseColorFactor", d.base_color, 4);
    if (d.metallic != 1) put(w, pbr, "metallicFactor", jfloat(unit(d.metallic)));
    if (d.roughness != 1) put(w, pbr, "roughnessFactor", jfloat(unit(d.roughness)));
    texture_info(w, pbr, "baseColorTexture", OSSA_TEXTURE_BASE_COLOR, &d.textures[OSSA_TEXTURE_BASE_COLOR], mat, &names);
    texture_info(w, pbr, "metallicRoughnessTexture", OSSA_TEXTURE_METALLIC_ROUGHNESS,
                 &d.textures[OSSA_TEXTURE_METALLIC_ROUGHNESS], mat, &names);
    if (!pbr->child) cJSON_DeleteItemFromObjectCaseSensitive(mat, "pbrMetallicRoughness");
    cJSON *info = texture_info(w, mat, "normalTexture", OSSA_TEXTURE_NORMAL, &d.textures[OSSA_TEXTURE_NORMAL], mat, &names);
    if (info && d.normal_scale != 1 && isfinite(d.normal_scale)) put(w, info, "scale", jfloat(d.normal_scale));
    info = texture_info(w, mat, "occlusionTexture", OSSA_TEXTURE_OCCLUSION, &d.textures[OSSA_TEXTURE_OCCLUSION], mat, &names);
    if (info && d.occlusion_strength != 1) put(w, info, "strength", jfloat(unit(d.occlusion_strength)));
    texture_info(w, mat, "emissiveTexture", OSSA_TEXTURE_EMISSIVE, &d.textures[OSSA_TEXTURE_EMISSIVE], mat, &names);
    if (d.emissive[0] != 0 || d.emissive[1] != 0 || d.emissive[2] != 0)
        put_unit_floats(w, mat, "emissiveFactor", d.emissive, 3);
    if (d.alpha_mode == OSSA_ALPHA_MASK || d.alpha_mode == OSSA_ALPHA_BLEND)
        put(w, mat, "alphaMode", cJSON_CreateString(d.alpha_mode == OSSA_ALPHA_MASK ? "MASK" : "BLEND"));
    /* alphaCutoff only with MASK (MATERIAL_ALPHA_CUTOFF_INVALID_MODE) */
    if (d.alpha_mode == OSSA_ALPHA_MASK && d.alpha_cutoff != 0.5f && d.alpha_cutoff >= 0)
        put(w, mat, "alphaCutoff", jfloat(d.alpha_cutoff));
    if (d.double_sided) put(w, mat, "doubleSided", cJSON_CreateTrue());
    return n;
}
