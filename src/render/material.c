/* The renderer's materials from what the model holds: each mesh's
 * material (OSSA_EXTRA_MATERIAL: glTF's base colour, double-sidedness and
 * base colour texture; or the IQM convention, a material named like an
 * image file or after one) and the image's bytes (OSSA_EXTRA_IMAGE, kept
 * by the readers: the images of a glTF file, the files IQM-style materials
 * name beside the model). Given the model file's path, what the model
 * lacks is looked for beside it, by the names ossa__image_candidate gives
 * (the image named, then its name with .tga, .png and .jpg). Images are
 * PNG, JPEG (the kinds glTF allows) or TGA. Everything here is best
 * effort: a picture that cannot be had leaves the mesh's palette colour
 * and says why. */
#include "render/render.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct loader {
    ossa_render_scene *scene;
    const ossa_model *model;
    const char *path; /* the model file, or NULL */
    ossa_diagnostic_fn diagnostic;
    void *user;
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
    snprintf(d.file, sizeof d.file, "%s", file ? file : l->path ? l->path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d.message, sizeof d.message, fmt, ap);
    va_end(ap);
    l->diagnostic(l->user, &d);
}

/* Why no texture was found for a material: the first reason met, said
 * once at the end, and only if nothing else worked. */
typedef struct miss {
    char file[4096];
    char why[300];
} miss;

static void missed(miss *m, const char *file, const char *fmt, ...) OSSA_PRINTF(3, 4);
static void missed(miss *m, const char *file, const char *fmt, ...)
{
    if (m->why[0]) return;
    snprintf(m->file, sizeof m->file, "%s", file ? file : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why, sizeof m->why, fmt, ap);
    va_end(ap);
}

/* Decodes image bytes: PNG through libpng, JPEG through libjpeg, TGA
 * (by its name or its TGA 2.0 footer) through src/image. */
static bool decode(const loader *l, miss *m, const char *file, const char *what, const char *name,
                   const void *data, size_t size, ossa_render_image *out)
{
    ossa_image_kind kind = ossa__image_kind(data, size, name);
    if (kind == OSSA_IMAGE_UNKNOWN) {
        missed(m, file, "%s is not PNG, JPEG or TGA (the texture kinds read)", what);
        return false;
    }
    ossa_error err;
    const ossa_allocator *a = &l->scene->allocator;
    ossa_status st = kind == OSSA_IMAGE_PNG    ? ossa_render_png_decode(data, size, a, out, &err)
                     : kind == OSSA_IMAGE_JPEG ? ossa_render_jpeg_decode(data, size, a, out, &err)
                                               : ossa_render_tga_decode(data, size, a, out, &err);
    if (st != OSSA_OK) {
        if (err.offset != OSSA_NO_OFFSET)
            missed(m, file, "%s: byte %llu: %s", what, (unsigned long long)err.offset, err.message);
        else
            missed(m, file, "%s: %s", what, err.message);
        return false;
    }
    return true;
}

/* The file `name` beside the model, decoded. Names that leave the
 * model's folder are not read: loading reads those only with
 * OSSA_LOAD_ALLOW_PARENT_PATHS, into the model. */
static bool beside(const loader *l, miss *m, const char *name, ossa_render_image *out)
{
    char file[4096];
    if (!l->path || !ossa__reference_is_inside(name) ||
        ossa__sibling_path(l->path, name, file, sizeof file) >= sizeof file)
        return false;
    unsigned char *data;
    size_t size;
    if (ossa__read_file(file, NULL, &data, &size, NULL) != OSSA_OK) return false;
    char what[OSSA_IMAGE_NAME_MAX + 16];
    snprintf(what, sizeof what, "'%s'", name);
    bool ok = decode(l, m, file, what, name, data, size, out);
    ossa__free(NULL, data, size + 1);
    return ok;
}


/* The texture of a material (name): the image its description names, or
 * for an undescribed one the material's own name, taken through its
 * candidates (ossa__image_candidate): each from the model's images, else
 * from beside the model. */
static bool find_image(const loader *l, const char *material, const ossa_material *d,
                       bool described, ossa_render_image *img)
{
    miss m;
    memset(&m, 0, sizeof m);
    const char *image = described ? d->textures[OSSA_TEXTURE_BASE_COLOR].image : "";
    if (!image[0] && described) return false; /* a material without a texture */
    const char *name = image[0] ? image : material;
    char candidate[OSSA_IMAGE_NAME_MAX], what[OSSA_IMAGE_NAME_MAX + 16];
    for (unsigned k = 0; ossa__image_candidate(name, k, candidate); k++) {
        size_t bytes_size;
        const void *bytes = ossa_model_get_image(l->model, candidate, &bytes_size);
        snprintf(what, sizeof what, "image '%s'", candidate);
        if (bytes ? decode(l, &m, NULL, what, candidate, bytes, bytes_size, img)
                  : beside(l, &m, candidate, img))
            return true;
    }
    /* What was looked for: the name, and the kinds its stem was tried with. */
    char tried[3 * OSSA_IMAGE_NAME_MAX] = "", next[OSSA_IMAGE_NAME_MAX];
    for (unsigned k = 0; ossa__image_candidate(name, k, candidate); k++) {
        size_t n = strlen(tried);
        const char *dot = k ? strrchr(candidate, '.') : NULL;
        const char *sep = !k ? "" : ossa__image_candidate(name, k + 1, next) ? ", " : " or ";
        snprintf(tried + n, sizeof tried - n, "%s'%s'", sep, dot ? dot : candidate);
    }
    if (m.why[0])
        note(l, m.file[0] ? m.file : NULL, "material '%s': %s", material, m.why);
    else if (image[0])
        note(l, NULL, "material '%s': image %s is neither in the model nor beside it", material, tried);
    else if (l->path)
        note(l, NULL, "material '%s': no image %s beside the model", material, tried);
    return false;
}

uint32_t ossa_render_scene_load_materials(ossa_render_scene *scene, const ossa_model *model,
                                          const char *path, ossa_diagnostic_fn diagnostic,
                                          void *user)
{
    if (!scene || !model || model->num_meshes != scene->num_meshes) return 0;
    loader l = {scene, model, path && path[0] ? path : NULL, diagnostic, user};
    uint32_t set = 0;
    for (uint32_t i = 0; i < model->num_meshes; i++) {
        const char *name = model->meshes[i].material;
        if (!name || !name[0]) continue;
        bool seen = false; /* meshes sharing a material take it from the first */
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = model->meshes[k].material && strcmp(model->meshes[k].material, name) == 0;
        if (seen) continue;

        ossa_material d;
        bool described = ossa_model_get_material(model, name, &d) != 0;
        ossa_render_material m;
        memset(&m, 0, sizeof m);
        bool colored = described && (d.base_color[0] != 1 || d.base_color[1] != 1 ||
                                     d.base_color[2] != 1);
        if (colored) {
            /* glTF's factor is linear; the renderer works in sRGB. */
            for (int c = 0; c < 3; c++) m.color[c] = ossa__rd_srgb_from_linear(d.base_color[c]);
            m.color[3] = 1; /* pure black stays black, not "unset" */
        }
        ossa_render_image img;
        memset(&img, 0, sizeof img);
        bool textured = find_image(&l, name, &d, described, &img);
        if (textured) {
            m.texture = img.pixels;
            m.texture_width = img.width;
            m.texture_height = img.height;
        }
        /* The first mesh keeps the decoded texture, others get copies. */
        bool given = false;
        for (uint32_t k = i; k < model->num_meshes; k++) {
            if (!model->meshes[k].material || strcmp(model->meshes[k].material, name) != 0)
                continue;
            if ((textured || colored) &&
                ossa__rd_set_material(scene, k, &m, textured && !given, NULL) == OSSA_OK) {
                set++;
                given |= textured;
            }
            /* The file says whether both sides show (leaves, capes) or one
             * (glTF's default, which viewers cull even on open meshes). */
            if (described)
                scene->materials[k].cull =
                    d.double_sided ? RD_CULL_NONE : scene->materials[k].cull_winding;
        }
        if (!given) ossa_free(img.pixels, &scene->allocator);
    }
    return set;
}
