/* The textures of an .nmo (docs/formats/sotc.md §8.6): each TEX record that a
 * mesh's material names is the file NAME.nto beside the .nmo (dormin opens
 * it so). Its level 0 becomes the image NAME.png (PNG bytes, as the model
 * keeps every image) and the material NAME gets it as its base colour
 * texture, so that the renderer draws it and the writers embed it or put
 * it beside their output. A texture file that is missing is skipped as
 * other formats skip missing images; one that cannot be read or decoded
 * is a warning, never a failure of the mesh. */
#include "core/materials.h"
#include "formats/sotc/sotc.h"

#include <stdio.h>

#define NMO_TEX_SIZE 32

/* The image NAME.png and the material NAME that shows it. */
static ossa_status add_texture(ossa_model *m, const char *name, const char *image,
                               const void *png, size_t size, ossa_error *error)
{
    size_t klen = strlen(OSSA_EXTRA_IMAGE) + strlen(image) + 1;
    size_t mlen = strlen(OSSA_EXTRA_MATERIAL) + strlen(name) + 1;
    const ossa_allocator *a = &m->internal->arena.allocator;
    char *key = ossa__alloc(a, klen > mlen ? klen : mlen);
    if (!key) return ossa__fail_nomem(error);
    snprintf(key, klen, "%s%s", OSSA_EXTRA_IMAGE, image);
    ossa_status st = ossa_model_add_extra(m, key, png, size, error);
    ossa_material d;
    ossa__material_defaults(&d);
    d.metallic = 0; /* glTF's default is a metal; game textures carry the colour */
    snprintf(d.textures[OSSA_TEXTURE_BASE_COLOR].image, OSSA_IMAGE_NAME_MAX, "%s", image);
    ossa_buf text;
    ossa__buf_init(&text, a);
    ossa__material_format(&d, &text);
    snprintf(key, mlen, "%s%s", OSSA_EXTRA_MATERIAL, name);
    if (!st && text.failed) st = ossa__fail_nomem(error);
    if (!st) st = ossa_model_add_extra(m, key, text.data, text.size, error);
    ossa__buf_release(&text);
    ossa__free(a, key, klen > mlen ? klen : mlen);
    return st;
}

/* Reads NAME.nto beside the .nmo into the model. `tex_w`, `tex_h`: the TEX
 * record's size. */
static ossa_status load_texture(ossa_model *m, const char *name, uint32_t tex_w, uint32_t tex_h,
                                const ossa_load_options *options, ossa_error *error)
{
    char file[OSSA_IMAGE_NAME_MAX], image[OSSA_IMAGE_NAME_MAX], what[OSSA_IMAGE_NAME_MAX + 16];
    if (snprintf(file, sizeof file, "%s.nto", name) >= (int)sizeof file ||
        snprintf(image, sizeof image, "%s.png", name) >= (int)sizeof image) {
        ossa__warn(m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0,
                   "texture '%.60s...': a name of %zu bytes is too long for an image: not read",
                   name, strlen(name));
        return OSSA_OK;
    }
    if (ossa__model_image(m, image)) return OSSA_OK;
    snprintf(what, sizeof what, "texture '%s'", file);
    const ossa_allocator *a = &m->internal->arena.allocator;
    ossa_sibling sibling;
    ossa_error sub;
    memset(&sub, 0, sizeof sub);
    if (ossa__open_sibling(options, options->file_name, file, what, a, &sibling, &sub)) {
        if (sub.code == OSSA_ERROR_NOMEM) return ossa__fail_nomem(error);
        if (sub.code == OSSA_ERROR_ACCESS)
            ossa__warn(m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s", sub.message);
        return OSSA_OK; /* missing: as images beside other formats */
    }
    sotc_nto_request rq = ossa__nto_request(options, a);
    rq.tex_width = tex_w;
    rq.tex_height = tex_h;
    sotc_nto t;
    void *png = NULL;
    size_t size = 0;
    ossa_status st = ossa__nto_open(&t, sibling.data, sibling.size, &rq, NULL, &sub);
    if (!st) st = ossa__nto_png(&t, 0, rq.flags, a, &png, &size, &sub);
    ossa__close_sibling(&sibling);
    if (st && sub.code == OSSA_ERROR_NOMEM) {
        st = ossa__fail_nomem(error);
    } else if (st) {
        char where[32] = "";
        if (sub.offset != OSSA_NO_OFFSET)
            snprintf(where, sizeof where, "byte %llu: ", (unsigned long long)sub.offset);
        ossa__warn(m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0,
                   "texture '%s': %s%s; material '%s' has no image", file, where, sub.message, name);
        st = OSSA_OK;
    } else {
        st = add_texture(m, name, image, png, size, error);
    }
    ossa__free(a, png, size);
    return st;
}

static bool used_by_a_mesh(const ossa_model *m, const char *name)
{
    for (uint32_t i = 0; i < m->num_meshes; i++)
        if (strcmp(m->meshes[i].material, name) == 0) return true;
    return false;
}

ossa_status ossa__nmo_textures(ossa_model *m, const sotc_xff *x, uint32_t tex, uint32_t count,
                               const ossa_load_options *options, ossa_error *error)
{
    if (!options->file_name || !options->file_name[0] || (options->flags & OSSA_LOAD_NO_IMAGES))
        return OSSA_OK;
    for (uint32_t i = 0; i < count; i++) {
        /* TEX record (docs/formats/sotc.md §7): "TEX\0", +4 the name, +0x1C and
         * +0x1E the width and height. The reader checked the records. */
        uint64_t at = (uint64_t)tex + (uint64_t)i * NMO_TEX_SIZE;
        const unsigned char *r = xff_at(x, at);
        const char *name;
        if (ossa__xff_string(x, ossa__rd32(r + 4), at + 4, "texture", &name, NULL) || !name[0] ||
            !used_by_a_mesh(m, name))
            continue;
        if (load_texture(m, name, ossa__rd16(r + 0x1C), ossa__rd16(r + 0x1E), options, error))
            return OSSA_FAILED;
    }
    return OSSA_OK;
}
