/* OBJ files (docs/formats/obj.md §9, §10): x.obj, x.mtl beside it when a
 * mesh has a material, and the images its textures name, copied beside
 * under free names (core/image_files.h: never replacing another image),
 * all written at once.
 *
 * Per material, what the reader (materials.c) reads back to the same
 * description:
 *   newmtl NAME
 *   Kd R G B            the base colour (1 1 1 under a texture)
 *   d A                 when the alpha is below 1
 *   Ke R G B            when emissive
 *   Ns N, Pr R          when the roughness is below 1 (Ns = 1000 (1 - R)^2,
 *                       Blender's mapping inverted, for readers without Pr)
 *   Pm M                when metallic
 *   map_Kd FILE         the base colour texture; map_Ke the emissive one;
 *   map_Bump -bm S FILE the normal map
 * A material without a description (IQM's convention: named like its
 * image) is white with that image. What MTL cannot hold (occlusion and
 * metallic-roughness maps, alpha masks, factors under a texture) is said
 * in one warning. */
#include "core/image_files.h"
#include "formats/obj/obj.h"

#include <math.h>
#include <stdio.h>

typedef struct mtl_writer {
    const ossa_model *m;
    const char *path; /* the OBJ being written */
    const ossa_write_options *o;
    ossa_extra_index index;
    ossa_intern taken;       /* image names given beside the output */
    uint32_t *given;         /* per model extra: 1 + the id in `taken` of its name, 0 = none */
    ossa_output_file *files; /* images to write */
    size_t nfiles;
    char dropped[200], missing[200];
    uint32_t ndropped, nmissing, lost;
} mtl_writer;

static void note(char *list, size_t cap, const char *name, uint32_t *count)
{
    if (++*count > 3) return;
    size_t n = strlen(list);
    snprintf(list + n, cap - n, "%s'%.50s'", n ? ", " : "", name);
}

/* The file name a texture's image gets beside the output (in out): the
 * image is copied there when the model holds it (and images are written),
 * else its name is kept. */
static ossa_status image_file(mtl_writer *w, const char *material, const char *image,
                              char out[OSSA_IMAGE_NAME_MAX], ossa_error *error)
{
    snprintf(out, OSSA_IMAGE_NAME_MAX, "%s", image);
    const ossa_extra *e = ossa__extra_lookup(&w->index, OSSA_EXTRA_IMAGE, image);
    if (!e) {
        if (strcmp(image, material) != 0) note(w->missing, sizeof w->missing, image, &w->nmissing);
        return OSSA_OK;
    }
    if (w->o->images == OSSA_IMAGES_NONE) return OSSA_OK;
    size_t k = (size_t)(e - w->m->extras);
    if (w->given[k]) {
        snprintf(out, OSSA_IMAGE_NAME_MAX, "%s", ossa__intern_str(&w->taken, w->given[k] - 1));
        return OSSA_OK;
    }
    bool present;
    if (ossa__image_beside_name(w->path, image, e->data, e->size, w->o, &w->taken, out, &present, error))
        return OSSA_FAILED;
    int64_t id = ossa__intern(w->m, &w->taken, out, strlen(out));
    if (id < 0) return ossa__fail_nomem(error);
    w->given[k] = (uint32_t)id + 1;
    if (present) return OSSA_OK; /* there already with these bytes */
    size_t cap = ossa__sibling_path(w->path, out, NULL, 0) + 1;
    char *full = ossa__alloc(w->o->allocator, cap);
    if (!full) return ossa__fail_nomem(error);
    ossa__sibling_path(w->path, out, full, cap);
    w->files[w->nfiles].path = full;
    w->files[w->nfiles].data = e->data;
    w->files[w->nfiles].size = e->size;
    w->nfiles++;
    return OSSA_OK;
}

static void put_floats(ossa_text_out *t, const char *kw, const float *v, int n)
{
    ossa__out_str(t, kw);
    for (int k = 0; k < n; k++) {
        ossa__out_char(t, ' ');
        ossa__out_float(t, v[k] == 0 ? 0.0f : v[k]);
    }
    ossa__out_char(t, '\n');
}

/* A texture statement; a file name that starts with '-' would read as an
 * option, so it goes through "./". */
static void put_map(ossa_text_out *t, const char *kw, const char *file, float bump)
{
    ossa__out_str(t, kw);
    if (bump != 1) {
        ossa__out_str(t, " -bm ");
        ossa__out_float(t, bump);
    }
    ossa__out_str(t, file[0] == '-' ? " ./" : " ");
    ossa__obj_put_name(t, file);
    ossa__out_char(t, '\n');
}

/* What MTL cannot hold of a description (ossa__material_lost_text bits). */
static uint32_t lost_bits(const ossa_material *d)
{
    uint32_t lost = 0;
    const float *c = d->base_color;
    if (d->textures[OSSA_TEXTURE_BASE_COLOR].image[0] && (c[0] != 1 || c[1] != 1 || c[2] != 1)) lost |= 1u << 0;
    const float *e = d->emissive;
    if (d->textures[OSSA_TEXTURE_EMISSIVE].image[0] && (e[0] != 1 || e[1] != 1 || e[2] != 1)) lost |= 1u << 2;
    if (d->textures[OSSA_TEXTURE_OCCLUSION].image[0]) lost |= 1u << 4;
    if (d->textures[OSSA_TEXTURE_METALLIC_ROUGHNESS].image[0]) lost |= 1u << 5;
    if (d->alpha_mode == OSSA_ALPHA_MASK || (d->alpha_mode == OSSA_ALPHA_BLEND && c[3] >= 1))
        lost |= 1u << 6;
    return lost;
}

static ossa_status put_material(mtl_writer *w, ossa_text_out *t, const char *name, ossa_error *error)
{
    ossa_material d;
    bool described = ossa__extra_lookup(&w->index, OSSA_EXTRA_MATERIAL, name) != NULL;
    ossa__material_in(&w->index, name, &d);
    if (!described) d.metallic = 0; /* IQM's convention, as glTF writes it */
    ossa__out_str(t, "newmtl ");
    ossa__obj_put_name(t, name);
    ossa__out_char(t, '\n');
    float kd[3] = {d.base_color[0], d.base_color[1], d.base_color[2]};
    if (d.textures[OSSA_TEXTURE_BASE_COLOR].image[0]) kd[0] = kd[1] = kd[2] = 1;
    put_floats(t, "Kd", kd, 3);
    if (d.base_color[3] < 1) put_floats(t, "d", &d.base_color[3], 1);
    if (d.emissive[0] != 0 || d.emissive[1] != 0 || d.emissive[2] != 0)
        put_floats(t, "Ke", d.emissive, 3);
    if (d.roughness < 1) {
        /* Ns to a thousandth: Pr holds the exact value */
        float r = d.roughness > 0 ? d.roughness : 0;
        float ns = (float)(floor(1e6 * (1 - (double)r) * (1 - (double)r) + 0.5) / 1000);
        put_floats(t, "Ns", &ns, 1);
        put_floats(t, "Pr", &r, 1);
    }
    if (d.metallic > 0) put_floats(t, "Pm", &d.metallic, 1);
    static const struct {
        int slot;
        const char *kw;
    } maps[3] = {{OSSA_TEXTURE_BASE_COLOR, "map_Kd"},
                 {OSSA_TEXTURE_EMISSIVE, "map_Ke"},
                 {OSSA_TEXTURE_NORMAL, "map_Bump"}};
    for (int k = 0; k < 3; k++) {
        const char *image = d.textures[maps[k].slot].image;
        if (!image[0]) continue;
        char file[OSSA_IMAGE_NAME_MAX];
        if (image_file(w, name, image, file, error)) return OSSA_FAILED;
        put_map(t, maps[k].kw, file, maps[k].slot == OSSA_TEXTURE_NORMAL ? d.normal_scale : 1);
    }
    uint32_t lost = described ? lost_bits(&d) : 0;
    if (lost) {
        w->lost |= lost;
        note(w->dropped, sizeof w->dropped, name, &w->ndropped);
    }
    return OSSA_OK;
}

static void report(const mtl_writer *w)
{
    char more[32] = "";
    if (w->ndropped) {
        char words[160];
        ossa__material_lost_text(w->lost, words, sizeof words);
        if (w->ndropped > 3) snprintf(more, sizeof more, " and %u more", w->ndropped - 3);
        ossa__write_warn(w->o, OSSA_WARNING_DROPPED,
                         "MTL files cannot hold the %s of %s %s%s: not written", words,
                         w->ndropped == 1 ? "material" : "materials", w->dropped, more);
    }
    if (w->nmissing) {
        more[0] = 0;
        if (w->nmissing > 3) snprintf(more, sizeof more, " and %u more", w->nmissing - 3);
        ossa__write_warn(w->o, OSSA_WARNING_DROPPED,
                         "images not in the model (%s%s): the MTL file names them", w->missing, more);
    }
}

/* The MTL text of every material the meshes use, each once, and the
 * images to copy beside. */
static ossa_status write_mtl(mtl_writer *w, ossa_buf *out, ossa_error *error)
{
    const ossa_model *m = w->m;
    ossa_text_out t;
    ossa__out_init(&t, out);
    ossa__out_str(&t, "# ossa ");
    ossa__out_str(&t, ossa_version_string());
    ossa__out_char(&t, '\n');
    ossa_intern seen;
    memset(&seen, 0, sizeof seen);
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < m->num_meshes && !st; i++) {
        const char *mat = m->meshes[i].material;
        uint32_t before = ossa__intern_count(&seen);
        if (!mat[0]) continue;
        if (ossa__intern(m, &seen, mat, strlen(mat)) < 0) st = ossa__fail_nomem(error);
        else if (ossa__intern_count(&seen) != before) st = put_material(w, &t, mat, error);
    }
    ossa__out_flush(&t);
    ossa__intern_free(m, &seen);
    if (!st) report(w);
    return st;
}

ossa_status ossa__obj_write_files(const ossa_model *m, const char *path,
                                  const ossa_write_options *options, ossa_error *error)
{
    /* PATH, and STEM.mtl beside it when a mesh has a material. */
    bool mtl = ossa__obj_any_material(m);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
    const ossa_allocator *a = options->allocator;
    mtl_writer w;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.path = path;
    w.o = options;
    ossa__extra_index_build(m, &w.index);
    char *mtl_path = mtl ? ossa__alloc(a, stem + 5) : NULL;
    /* the OBJ, the MTL, and at most one image per extra */
    ossa_output_file *files = ossa__alloc(a, ((size_t)m->num_extras + 2) * sizeof *files);
    w.given = ossa__alloc(a, ((size_t)m->num_extras + 1) * sizeof *w.given);
    ossa_buf bufs[2];
    ossa__buf_init(&bufs[0], a);
    ossa__buf_init(&bufs[1], a);
    ossa_status st = (mtl && !mtl_path) || !files || !w.given ? ossa__fail_nomem(error) : OSSA_OK;
    if (!st) {
        memset(w.given, 0, ((size_t)m->num_extras + 1) * sizeof *w.given);
        w.files = files + 2;
        if (mtl_path) {
            memcpy(mtl_path, path, stem);
            memcpy(mtl_path + stem, ".mtl", 5);
        }
        const char *mtl_base = mtl_path ? mtl_path + (size_t)(base - path) : NULL;
        st = ossa__obj_write_text(m, options, mtl_base, false, &bufs[0], error);
        if (!st && mtl) st = write_mtl(&w, &bufs[1], error);
        if (!st && (bufs[0].failed || bufs[1].failed)) st = ossa__fail_nomem(error);
    }
    if (!st) {
        for (int k = 0; k < 2; k++) {
            files[k].path = k ? mtl_path : path;
            files[k].data = bufs[k].data ? (const void *)bufs[k].data : "";
            files[k].size = bufs[k].size;
        }
        /* images only come with materials, so with the MTL in slot 1 */
        st = ossa__write_files_atomic(files, mtl ? 2 + w.nfiles : 1, options, error);
    }
    for (size_t i = 0; i < w.nfiles; i++) ossa__free(a, (void *)w.files[i].path, 0);
    ossa__buf_release(&bufs[0]);
    ossa__buf_release(&bufs[1]);
    ossa__free(a, mtl_path, stem + 5);
    ossa__free(a, files, 0);
    ossa__free(a, w.given, 0);
    ossa__extra_index_free(&w.index);
    ossa__intern_free(m, &w.taken);
    return st;
}
