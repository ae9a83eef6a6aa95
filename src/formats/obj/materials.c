/* The materials of an OBJ model (docs/formats/obj.md §9): the `mtllib`
 * files beside the model are read (through ossa__open_sibling: the
 * model's folder only unless OSSA_LOAD_ALLOW_PARENT_PATHS, read_file when
 * set), and every material a mesh uses that a file defines becomes an
 * OSSA_EXTRA_MATERIAL description, mapped as Blender 3.4's OBJ importer
 * maps it to its Principled BSDF, with the images of its textures as
 * OSSA_EXTRA_IMAGE. Nothing here fails a load but a lack of memory:
 * missing, refused and damaged files are warnings, and the materials then
 * keep their names only. */
#include "core/materials.h"
#include "formats/obj/obj.h"

#include <math.h>
#include <stdio.h>

typedef struct lib {
    mtl_file file;
    char dir[OSSA_IMAGE_NAME_MAX]; /* the folder of its name as written ("sub/"), for its images */
    char name[OSSA_IMAGE_NAME_MAX];
} lib;

typedef struct mats {
    obj_doc *d;
    ossa_model *m;
    const ossa_load_options *o;
    const ossa_allocator *alloc;
    ossa_list libs;     /* lib */
    ossa_intern opened; /* names of the files read (or tried) */
    ossa_intern images; /* image names read into the model */
    bool warned_placed;
} mats;

/* -- The mtllib files ------------------------------------------------------- */

/* Reads MTL file `name` (as the OBJ gives it) and parses it. Returns 1
 * when read, 0 when missing or refused (warned unless `quiet` and it is
 * missing), -1 when memory ran out. */
static int read_lib(mats *x, const char *name, size_t n, uint64_t at, bool quiet)
{
    if (!n || n >= OSSA_IMAGE_NAME_MAX) return 0;
    char file[OSSA_IMAGE_NAME_MAX];
    memcpy(file, name, n);
    file[n] = 0;
    uint32_t before = ossa__intern_count(&x->opened);
    int64_t id = ossa__intern(x->m, &x->opened, file, n);
    if (id < 0) {
        ossa__fail_nomem(x->d->error);
        return -1;
    }
    if ((uint32_t)id < before) return 1; /* named again */
    char what[OSSA_IMAGE_NAME_MAX + 16];
    snprintf(what, sizeof what, "mtllib '%s'", file);
    ossa_sibling s;
    ossa_error sub;
    memset(&sub, 0, sizeof sub);
    if (ossa__open_sibling(x->o, x->o->file_name, file, what, x->alloc, &s, &sub)) {
        if (sub.code == OSSA_ERROR_NOMEM) {
            ossa__fail_nomem(x->d->error);
            return -1;
        }
        if (!quiet || sub.code == OSSA_ERROR_ACCESS)
            ossa__obj_warn_at(x->d, OSSA_WARNING_IGNORED, at, "%.200s: its materials are not read",
                              sub.message);
        return 0;
    }
    lib *l = ossa__list_push(x->m, &x->libs, sizeof *l);
    if (!l) {
        ossa__close_sibling(&s);
        ossa__fail_nomem(x->d->error);
        return -1;
    }
    memcpy(l->name, file, n + 1);
    const char *slash = NULL;
    for (const char *p = file; *p; p++)
        if (*p == '/' || *p == '\\') slash = p;
    size_t dir = slash ? (size_t)(slash - file) + 1 : 0;
    memcpy(l->dir, file, dir);
    l->dir[dir] = 0;
    ossa_status st = ossa__mtl_parse(x->m, l->name, s.data, s.size, &l->file, x->d->error);
    ossa__close_sibling(&s);
    return st ? -1 : 1;
}

/* One `mtllib` statement: its whole text as one name when a file of that
 * name exists (names may hold blanks, which Blender reads so), else each
 * name, as the OBJ specification lists them: separated by blanks, or in
 * double quotes (which may hold blanks). */
static ossa_status read_statement(mats *x, const obj_span *span)
{
    const char *s = x->d->text + span->at;
    size_t n = (size_t)span->len;
    bool blanks = false;
    for (size_t i = 0; i < n; i++) blanks |= ossa__text_blank(s[i]);
    if (blanks && !(s[0] == '"')) {
        int r = read_lib(x, s, n, span->at, true);
        if (r) return r < 0 ? OSSA_FAILED : OSSA_OK;
    }
    for (size_t i = 0; i < n;) {
        while (i < n && ossa__text_blank(s[i])) i++;
        size_t e = i, a = i, b;
        if (i < n && s[i] == '"') {
            a = ++e;
            while (e < n && s[e] != '"') e++;
            b = e;
            if (e < n) e++; /* past the closing quote */
        } else {
            while (e < n && !ossa__text_blank(s[e])) e++;
            b = e;
        }
        if (b > a && read_lib(x, s + a, b - a, span->at + i, false) < 0) return OSSA_FAILED;
        i = e;
    }
    return OSSA_OK;
}

/* -- Images ------------------------------------------------------------------ */

/* Reads image `ref` (a name relative to the model) into the model, once.
 * 1 read (or held already), 0 not there, -1 out of memory; *why says why
 * not. */
static int read_image(mats *x, const char *ref, ossa_error *why)
{
    if (ossa__intern_find(&x->images, ref, strlen(ref)) >= 0) return 1;
    ossa_sibling s;
    memset(why, 0, sizeof *why);
    char what[OSSA_IMAGE_NAME_MAX + 4];
    snprintf(what, sizeof what, "'%s'", ref);
    if (ossa__open_sibling(x->o, x->o->file_name, ref, what, x->alloc, &s, why)) {
        if (why->code != OSSA_ERROR_NOMEM) return 0;
        ossa__fail_nomem(x->d->error);
        return -1;
    }
    char key[sizeof OSSA_EXTRA_IMAGE + OSSA_IMAGE_NAME_MAX];
    snprintf(key, sizeof key, "%s%s", OSSA_EXTRA_IMAGE, ref);
    ossa_status st = ossa_model_add_extra(x->m, key, s.data, s.size, x->d->error);
    ossa__close_sibling(&s);
    if (!st && ossa__intern(x->m, &x->images, ref, strlen(ref)) < 0) st = ossa__fail_nomem(x->d->error);
    return st ? -1 : 1;
}

/* The image of a texture statement, as a name relative to the model (in
 * out): the file it names in its MTL file's folder (backslashes taken as
 * the folder separators they are in files made on Windows), read into the
 * model; when that cannot be read, the same file name alone in that folder
 * (absolute paths of the machine that wrote the file), as Blender looks
 * for it. False (warned) when the name is too long to keep. */
static ossa_status texture_image(mats *x, const lib *l, const char *kw, const mtl_texture *t,
                                 char out[OSSA_IMAGE_NAME_MAX], bool *ok)
{
    *ok = false;
    char ref[2][OSSA_IMAGE_NAME_MAX];
    /* "./" goes: writers put it before names that start with '-' */
    const char *file = t->file;
    if (file[0] == '.' && (file[1] == '/' || file[1] == '\\')) file += 2;
    const char *base = file;
    for (const char *p = file; *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    int n0 = snprintf(ref[0], sizeof ref[0], "%s%s", l->dir, file);
    int n1 = snprintf(ref[1], sizeof ref[1], "%s%s", l->dir, base);
    if (n0 < 0 || n0 >= OSSA_IMAGE_NAME_MAX || n1 < 0 || n1 >= OSSA_IMAGE_NAME_MAX || !base[0]) {
        ossa__warn(x->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0,
                   "%.60s:%u:%u: %s: the file name is too long or empty: no texture", l->name,
                   (unsigned)t->line, (unsigned)t->column, kw);
        return OSSA_OK;
    }
    for (int k = 0; k < 2; k++)
        for (char *p = ref[k]; *p; p++)
            if (*p == '\\') *p = '/';
    *ok = true;
    memcpy(out, ref[0], (size_t)n0 + 1);
    if (x->o->flags & OSSA_LOAD_NO_IMAGES) return OSSA_OK;
    ossa_error why, why1;
    int r = read_image(x, ref[0], &why);
    if (r == 0 && strcmp(ref[0], ref[1]) != 0) {
        r = read_image(x, ref[1], &why1);
        if (r > 0) memcpy(out, ref[1], (size_t)n1 + 1);
    }
    if (r < 0) return OSSA_FAILED;
    if (r == 0)
        ossa__warn(x->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%.60s:%u:%u: %s: %.150s", l->name,
                   (unsigned)t->line, (unsigned)t->column, kw, why.message);
    if (t->placed && !x->warned_placed) {
        x->warned_placed = true;
        ossa__warn(x->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0,
                   "%.60s:%u:%u: %s: the texture's placement (-o, -s, -t) is not kept", l->name,
                   (unsigned)t->line, (unsigned)t->column, kw);
    }
    return OSSA_OK;
}

/* -- Blender 3.4's mapping ------------------------------------------------------ */

static float clamp01(float v) { return v > 0 ? (v < 1 ? v : 1) : 0; }

/* A material record as Blender 3.4's OBJ importer (the C++ one,
 * wm.obj_import) sets its Principled BSDF, read by importing test files
 * and reading the node values back (docs/formats/obj.md §9):
 *   illum 2 turns highlights on; 3-8 reflection; 4, 6, 7, 9 transparency.
 *   Base Color = Kd (0.8 grey without one; a map_Kd texture replaces it,
 *   so the factor is 1 with one, as Blender's glTF export writes it).
 *   Roughness = 1 - sqrt(Ns / 1000), Ns clamped to 0..1000; without Ns, 0
 *   with highlights and 1 without. Metallic = the mean of Ka with
 *   reflection (1 without Ka), else 0. Pr and Pm replace both.
 *   Alpha = d (Blender 3.4 ignores Tr; here, without d, 1 - Tr); blending
 *   with transparency or an alpha below 1. Emission = Ke (1 with a map_Ke
 *   texture); map_Bump and bump are normal maps (-bm their strength).
 *   Ks (Blender's Specular) and Ni (IOR) have no place in ossa's
 *   materials (glTF's metallic-roughness model), nor in Blender 3.4's glTF
 *   export. Both sides show: Blender imports OBJ materials without
 *   backface culling, and exports them to glTF as doubleSided. */
static void describe(const mtl_material *r, ossa_material *d)
{
    ossa__material_defaults(d);
    int illum = r->has_illum ? r->illum : -1;
    bool highlight = illum == 2, reflection = illum >= 3 && illum <= 8;
    bool transparency = illum == 4 || illum == 6 || illum == 7 || illum == 9;
    bool kd = r->has_kd && r->kd[0] >= 0 && r->kd[1] >= 0 && r->kd[2] >= 0;
    for (int c = 0; c < 3; c++) d->base_color[c] = kd ? r->kd[c] + 0.0f : 0.8f; /* -0 as 0 */
    if (r->map[MTL_MAP_KD].file) d->base_color[0] = d->base_color[1] = d->base_color[2] = 1;
    if (r->has_ns && r->ns >= 0) {
        float ns = r->ns < 1000 ? r->ns : 1000;
        d->roughness = 1 - sqrtf(ns / 1000);
    } else {
        d->roughness = highlight ? 0 : 1;
    }
    float metal = r->has_ka ? (r->ka[0] + r->ka[1] + r->ka[2]) / 3 : -1;
    d->metallic = reflection ? (metal < 0 ? 1 : metal) : 0;
    if (r->has_pr && r->pr >= 0) d->roughness = r->pr;
    if (r->has_pm && r->pm >= 0) d->metallic = r->pm;
    d->roughness = clamp01(d->roughness);
    d->metallic = clamp01(d->metallic);
    float alpha = r->has_d ? r->d : r->has_tr ? 1 - r->tr : 1;
    d->base_color[3] = clamp01(alpha);
    if (transparency || d->base_color[3] < 1) d->alpha_mode = OSSA_ALPHA_BLEND;
    if (r->has_ke && r->ke[0] >= 0 && r->ke[1] >= 0 && r->ke[2] >= 0)
        for (int c = 0; c < 3; c++) d->emissive[c] = r->ke[c] + 0.0f;
    if (r->map[MTL_MAP_KE].file) d->emissive[0] = d->emissive[1] = d->emissive[2] = 1;
    if (r->map[MTL_MAP_BUMP].file) d->normal_scale = r->map[MTL_MAP_BUMP].bump_scale;
    d->double_sided = true;
}

static ossa_status add_material(mats *x, const lib *l, const mtl_material *r)
{
    static const char *const kws[MTL_MAPS] = {"map_Kd", "map_Ke", "map_Bump"};
    static const int slots[MTL_MAPS] = {OSSA_TEXTURE_BASE_COLOR, OSSA_TEXTURE_EMISSIVE, OSSA_TEXTURE_NORMAL};
    ossa_material d;
    describe(r, &d);
    for (int k = 0; k < MTL_MAPS; k++) {
        if (!r->map[k].file) continue;
        bool ok;
        if (texture_image(x, l, kws[k], &r->map[k], d.textures[slots[k]].image, &ok)) return OSSA_FAILED;
        if (!ok) d.textures[slots[k]].image[0] = 0;
    }
    size_t klen = strlen(OSSA_EXTRA_MATERIAL) + strlen(r->name) + 1;
    char *key = ossa__temp_alloc(x->m, klen);
    if (!key) return ossa__fail_nomem(x->d->error);
    snprintf(key, klen, "%s%s", OSSA_EXTRA_MATERIAL, r->name);
    ossa_buf text;
    ossa__buf_init(&text, x->alloc);
    ossa__material_format(&d, &text);
    const void *bytes = text.size ? text.data : (const void *)"";
    ossa_status st = text.failed ? ossa__fail_nomem(x->d->error)
                                 : ossa_model_add_extra(x->m, key, bytes, text.size, x->d->error);
    ossa__buf_release(&text);
    ossa__temp_free(x->m, key);
    return st;
}

/* -- Entry ---------------------------------------------------------------------- */

/* Gives each used material the first definition of its name among the
 * files (in the order the OBJ names them), and says which none defines. */
static ossa_status describe_used(mats *x, const ossa_intern *used)
{
    ossa_intern defined;
    memset(&defined, 0, sizeof defined);
    /* where each defined name's first definition is: lib and record */
    ossa_list where;
    memset(&where, 0, sizeof where);
    ossa_status st = OSSA_OK;
    lib *libs = (lib *)x->libs.data;
    for (size_t i = 0; i < x->libs.count && !st; i++) {
        const mtl_material *r = (const mtl_material *)libs[i].file.materials.data;
        for (size_t k = 0; k < libs[i].file.materials.count && !st; k++) {
            uint32_t before = ossa__intern_count(&defined);
            int64_t id = ossa__intern(x->m, &defined, r[k].name, strlen(r[k].name));
            bool first = id >= 0 && (uint32_t)id == before;
            uint32_t *w = first ? ossa__list_push(x->m, &where, 2 * sizeof *w) : NULL;
            if (id < 0 || (first && !w)) st = ossa__fail_nomem(x->d->error);
            else if (w) w[0] = (uint32_t)i, w[1] = (uint32_t)k;
        }
    }
    char missing[200] = "";
    uint32_t nmissing = 0;
    for (uint32_t u = 0; u < ossa__intern_count(used) && !st; u++) {
        const char *name = ossa__intern_str(used, u);
        int64_t id = ossa__intern_find(&defined, name, strlen(name));
        if (id < 0) {
            if (++nmissing <= 3) {
                size_t n = strlen(missing);
                snprintf(missing + n, sizeof missing - n, "%s'%.40s'", n ? ", " : "", name);
            }
            continue;
        }
        const uint32_t *w = (const uint32_t *)where.data + id * 2;
        const lib *l = &libs[w[0]];
        st = add_material(x, l, (const mtl_material *)l->file.materials.data + w[1]);
    }
    if (!st && nmissing)
        ossa__warn(x->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0,
                   "%u %s that no mtllib file defines (%s%s): %s", nmissing,
                   nmissing == 1 ? "material" : "materials", missing, nmissing > 3 ? ", ..." : "",
                   nmissing == 1 ? "it keeps its name only" : "they keep their names only");
    ossa__intern_free(x->m, &defined);
    ossa__list_free(x->m, &where);
    return st;
}

ossa_status ossa__obj_materials(obj_doc *d)
{
    ossa_model *m = d->model;
    if (!d->mtllib_at.count) return OSSA_OK;
    mats x;
    memset(&x, 0, sizeof x);
    x.d = d;
    x.m = m;
    x.o = d->options;
    x.alloc = &m->internal->arena.allocator;
    /* The materials the meshes use; none, and no file is read. */
    ossa_intern used;
    memset(&used, 0, sizeof used);
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < m->num_meshes && !st; i++)
        if (m->meshes[i].material[0] &&
            ossa__intern(m, &used, m->meshes[i].material, strlen(m->meshes[i].material)) < 0)
            st = ossa__fail_nomem(d->error);
    const obj_span *spans = (const obj_span *)d->mtllib_at.data;
    for (size_t i = 0; !st && ossa__intern_count(&used) && i < d->mtllib_at.count; i++)
        st = read_statement(&x, &spans[i]);
    if (!st && x.libs.count) st = describe_used(&x, &used);
    lib *libs = (lib *)x.libs.data;
    for (size_t i = 0; i < x.libs.count; i++) ossa__mtl_free(m, &libs[i].file);
    ossa__list_free(m, &x.libs);
    ossa__intern_free(m, &x.opened);
    ossa__intern_free(m, &x.images);
    ossa__intern_free(m, &used);
    return st;
}
