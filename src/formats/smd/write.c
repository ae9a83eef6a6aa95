/* SMD writer (docs/formats/smd.md §12): one reference file (skeleton with the
 * bind pose, triangles) and one animation file per animation, laid out as
 * studiomdl and Blender Source Tools read them:
 *
 *   version 1
 *   nodes                 ids 0..n-1 in joint order (parents first), quoted
 *   end                   names ('"' replaced), unique
 *   skeleton
 *   time 0                every bone in every frame
 *   0 tx ty tz rx ry rz   "%.6f", angles in radians (§5)
 *   end
 *   triangles             reference files: per triangle the material line
 *   material              (no blanks, at most 62 characters), then the
 *   p x y z nx ny nz u v n b w ...   corners reversed (ossa's clockwise ->
 *   end                   counter-clockwise), v flipped, at most 4 links,
 *                         normalized
 *
 * LF line ends, no blank lines or comments inside blocks. A model without
 * joints gets one bone "root" at the origin. */
#include "formats/smd/smd.h"

#include "core/normals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* studiomdl reads material lines of 64 characters or more wrongly (§1),
 * and BST and the IQM SDK cut names at blanks. */
#define SMD_MAX_MATERIAL 62
/* studiomdl's vertex line reader takes up to 4 (bone, weight) pairs
 * (and keeps 3 of them); IQM models have 4 at most anyway. */
#define SMD_MAX_LINKS 4

typedef struct smd_writer {
    const ossa_model *m;
    const ossa_write_options *options;
    ossa_error *error;
    ossa_intern names; /* bone names as written; id = bone */
    uint32_t num_bones;
    bool root_only; /* a model without joints: one bone "root" */
} smd_writer;

/* -- Names -- */

/* Quoted names cannot hold '"' or line breaks; empty names cannot bind
 * animations by name; names must be unique for the same reason. */
static ossa_status make_names(smd_writer *w)
{
    const ossa_model *m = w->m;
    uint32_t renamed = 0, first = 0;
    char *buf = NULL;
    size_t cap = 0;
    ossa_status st = OSSA_OK;
    for (uint32_t j = 0; j < w->num_bones && !st; j++) {
        const char *name = w->root_only ? "root" : m->joints[j].name;
        size_t len = strlen(name);
        if (len + 32 > cap) {
            ossa__temp_free(m, buf);
            cap = len + 32;
            buf = ossa__temp_alloc(m, cap);
            if (!buf) {
                st = ossa__fail_nomem(w->error);
                break;
            }
        }
        bool changed = false;
        for (size_t i = 0; i < len; i++) {
            char c = name[i];
            if (c == '"') c = '\'';
            if (c == '\n' || c == '\r') c = ' ';
            changed |= c != name[i];
            buf[i] = c;
        }
        if (!len) {
            len = (size_t)snprintf(buf, cap, "joint%u", j);
            changed = true;
        }
        buf[len] = 0;
        for (uint32_t k = 1;; k++) {
            size_t before = ossa__intern_count(&w->names);
            int64_t id = ossa__intern(m, &w->names, buf, strlen(buf));
            if (id < 0) {
                st = ossa__fail_nomem(w->error);
                break;
            }
            if ((size_t)id == before) break;
            /* taken: "name.2", "name.3", ... */
            snprintf(buf + len, cap - len, ".%u", k + 1);
            changed = true;
        }
        if (changed && !renamed++) first = j;
    }
    ossa__temp_free(m, buf);
    if (!st && renamed)
        ossa__write_warn(w->options, OSSA_WARNING_RENAMED,
             "%u joint names changed to be quoted, unique and non-empty (first: joint %u)", renamed,
             first);
    return st;
}

/* -- Shared blocks -- */

/* `a`: the animation of a sequence file, whose name, frame rate and loop
 * flag (SMD has no place for them) go into a comment after `version`,
 * which studiomdl skips and ossa's reader reads (read.c); NULL for the
 * reference. */
static void put_header(smd_writer *w, ossa_text_out *o, const ossa_animation *a)
{
    ossa__out_str(o, "version 1\n");
    if (a) {
        ossa__out_str(o, "// ");
        ossa__anim_tag_write(o, a->name, a->framerate, (a->flags & OSSA_ANIMATION_LOOP) != 0, 0);
        ossa__out_char(o, '\n');
    }
    ossa__out_str(o, "nodes\n");
    for (uint32_t j = 0; j < w->num_bones; j++) {
        ossa__out_int(o, j);
        ossa__out_str(o, " \"");
        ossa__out_str(o, ossa__intern_str(&w->names, j));
        ossa__out_str(o, "\" ");
        ossa__out_int(o, w->root_only ? -1 : w->m->joints[j].parent);
        ossa__out_char(o, '\n');
    }
    ossa__out_str(o, "end\nskeleton\n");
}

/* SMD has no scale (the writer gets it baked, core/scale.h, unless a value
 * is not finite), and studiomdl reads any text: refuse what cannot be
 * written faithfully. */
static ossa_status check_pose(smd_writer *w, const ossa_transform *t, uint32_t joint,
                              const char *where)
{
    for (int k = 0; k < 3; k++)
        if (fabsf(t->scale[k] - 1.0f) > 1e-5f)
            return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                              "joint '%s' has scale (%g %g %g) in %s: SMD stores no scale",
                              ossa__intern_str(&w->names, joint), (double)t->scale[0], (double)t->scale[1],
                              (double)t->scale[2], where);
    bool finite = ossa__finite3(t->translation) && ossa__finite3(t->rotation) &&
                  isfinite(t->rotation[3]);
    if (!finite)
        return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "joint '%s' has a pose that is not finite in %s",
                          ossa__intern_str(&w->names, joint), where);
    return OSSA_OK;
}

static void put_pose(ossa_text_out *o, uint32_t bone, const ossa_transform *t)
{
    double a[3];
    ossa__smd_quat_to_euler(t->rotation, a);
    ossa__out_int(o, bone);
    for (int k = 0; k < 3; k++) {
        ossa__out_char(o, ' ');
        ossa__out_fixed(o, t->translation[k], 6);
    }
    for (int k = 0; k < 3; k++) {
        ossa__out_char(o, ' ');
        ossa__out_fixed(o, (float)a[k] + 0.0f, 6); /* -0 from atan2 as 0 */
    }
    ossa__out_char(o, '\n');
}

/* -- Triangles -- */

/* Every array the triangles need, decoded to floats. */
typedef struct vertex_data {
    float *pos, *nrm, *uv, *idx, *wgt;
    uint32_t influences;
    float *corner_normals; /* generated: 3 per triangle corner */
} vertex_data;

static void free_vertex_data(const ossa_model *m, vertex_data *v)
{
    ossa__temp_free(m, v->pos);
    ossa__temp_free(m, v->nrm);
    ossa__temp_free(m, v->uv);
    ossa__temp_free(m, v->idx);
    ossa__temp_free(m, v->wgt);
    ossa__temp_free(m, v->corner_normals);
}

/* The array of `type` as `size` floats per vertex (missing components 0);
 * *out stays NULL when the model has no such array. */
static ossa_status decode(smd_writer *w, ossa_vertex_type type, uint32_t size, float **out)
{
    const ossa_model *m = w->m;
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    *out = NULL;
    if (!a) return OSSA_OK;
    size_t nv = m->num_vertices;
    float *tmp = ossa__temp_alloc(m, ((size_t)a->size + 1) * sizeof *tmp);
    float *v = ossa__temp_calloc(m, nv * size + 1, sizeof *v);
    if (!tmp || !v) {
        ossa__temp_free(m, tmp);
        ossa__temp_free(m, v);
        return ossa__fail_nomem(w->error);
    }
    for (uint32_t i = 0; i < nv; i++) {
        ossa_vertex_array_read(m, a, i, 1, tmp);
        for (uint32_t k = 0; k < size && k < a->size; k++) v[(size_t)i * size + k] = tmp[k];
    }
    ossa__temp_free(m, tmp);
    *out = v;
    return OSSA_OK;
}

static ossa_status load_vertex_data(smd_writer *w, vertex_data *v)
{
    const ossa_model *m = w->m;
    memset(v, 0, sizeof *v);
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    v->influences = bi && bw && !w->root_only ? (bi->size < bw->size ? bi->size : bw->size) : 0;
    if (decode(w, OSSA_VERTEX_POSITION, 3, &v->pos) || decode(w, OSSA_VERTEX_NORMAL, 3, &v->nrm) ||
        decode(w, OSSA_VERTEX_TEXCOORD, 2, &v->uv))
        return OSSA_FAILED;
    if (v->influences && (decode(w, OSSA_VERTEX_BLENDINDEXES, v->influences, &v->idx) ||
                          decode(w, OSSA_VERTEX_BLENDWEIGHTS, v->influences, &v->wgt)))
        return OSSA_FAILED;
    if (!v->pos && m->num_triangles)
        return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "the model has triangles but no positions");
    /* "nan" and "inf" would make a file that no reader takes. */
    for (uint32_t t = 0; t < m->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t i = m->triangles[t].v[k];
            if (i >= m->num_vertices) continue;
            bool finite = ossa__finite3(v->pos + (size_t)i * 3) &&
                          (!v->nrm || ossa__finite3(v->nrm + (size_t)i * 3)) &&
                          (!v->uv || (isfinite(v->uv[(size_t)i * 2]) &&
                                      isfinite(v->uv[(size_t)i * 2 + 1])));
            if (!finite)
                return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                                  "vertex %u has a value that is not finite", i);
        }
    if (!v->nrm && m->num_triangles) {
        /* SMD requires normals (§12): smooth ones from the faces. */
        size_t nc = (size_t)m->num_triangles * 3;
        v->corner_normals = ossa__temp_alloc(m, (nc + 1) * 3 * sizeof(float));
        if (!v->corner_normals) return ossa__fail_nomem(w->error);
        if (ossa__smooth_normals(m, v->pos, 3, &m->triangles[0].v[0], NULL, m->num_triangles,
                                 v->corner_normals, w->error))
            return OSSA_FAILED;
    }
    return OSSA_OK;
}

typedef struct link {
    uint32_t bone;
    float weight;
} link;

static int cmp_link(const void *a, const void *b)
{
    const link *x = a, *y = b;
    if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
    return x->bone < y->bone ? -1 : x->bone > y->bone;
}

typedef struct link_stats {
    uint64_t over_four, over_three, below_005, bad_index, unweighted;
} link_stats;

/* A vertex's influences: positive weights on existing joints, duplicates
 * summed, the largest SMD_MAX_LINKS, largest first, normalized to sum 1.
 * Returns how many. */
static uint32_t vertex_links(const smd_writer *w, const vertex_data *v, uint32_t vi, link *out,
                             link_stats *s)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < v->influences; k++) {
        float wt = v->wgt[(size_t)vi * v->influences + k];
        float ix = v->idx[(size_t)vi * v->influences + k];
        if (!(wt > 0) || !isfinite(wt)) continue;
        if (!(ix >= 0 && ix < (float)w->num_bones)) {
            s->bad_index++;
            continue;
        }
        uint32_t bone = (uint32_t)ix, i = 0;
        while (i < n && out[i].bone != bone) i++;
        if (i == n) out[n++] = (link){bone, 0};
        out[i].weight += wt;
    }
    if (!n) {
        /* no influence: the vertex follows the root (the parent column
         * and one link say so for every reader) */
        if (!w->root_only) s->unweighted++;
        out[0] = (link){0, 1};
        return 1;
    }
    qsort(out, n, sizeof *out, cmp_link);
    if (n > SMD_MAX_LINKS) {
        s->over_four++;
        n = SMD_MAX_LINKS;
    }
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += out[i].weight;
    for (uint32_t i = 0; i < n; i++) {
        out[i].weight = (float)(out[i].weight / sum);
        if (out[i].weight < 0.05f) s->below_005++;
    }
    s->over_three += n > 3;
    return n;
}

static const char *material_of(const ossa_mesh *mesh)
{
    if (mesh->material[0]) return mesh->material;
    if (mesh->name[0]) return mesh->name;
    return "no_material";
}

/* The material line as studiomdl, BST and the IQM SDK all read it alike:
 * one token of at most 62 characters that no reader takes for `end` or a
 * comment. Returns whether it changed. */
static bool put_material(ossa_text_out *o, const char *name)
{
    char buf[SMD_MAX_MATERIAL + 1];
    size_t len = strlen(name), n = 0;
    bool changed = len > SMD_MAX_MATERIAL;
    bool prefix = (len == 3 && (name[0] | 0x20) == 'e' && (name[1] | 0x20) == 'n' &&
                   (name[2] | 0x20) == 'd') ||
                  name[0] == '#' || name[0] == ';' || (name[0] == '/' && name[1] == '/');
    if (prefix) {
        buf[n++] = '_';
        changed = true;
    }
    for (size_t i = 0; i < len && n < SMD_MAX_MATERIAL; i++) {
        char c = name[i];
        if (ossa__text_blank(c) || c == '\n' || c == '"') c = '_';
        changed |= c != name[i];
        buf[n++] = c;
    }
    ossa__out_mem(o, buf, n);
    ossa__out_char(o, '\n');
    return changed;
}

static void put_corner(smd_writer *w, ossa_text_out *o, const vertex_data *v, uint32_t t, int k,
                       link *links, link_stats *s)
{
    const ossa_model *m = w->m;
    uint32_t vi = m->triangles[t].v[k];
    uint32_t n = vertex_links(w, v, vi, links, s);
    const float *nrm = v->nrm ? v->nrm + (size_t)vi * 3 : v->corner_normals + ((size_t)t * 3 + (size_t)k) * 3;
    float uv[2] = {v->uv ? v->uv[(size_t)vi * 2] : 0, v->uv ? v->uv[(size_t)vi * 2 + 1] : 0};
    float values[8] = {v->pos[(size_t)vi * 3], v->pos[(size_t)vi * 3 + 1], v->pos[(size_t)vi * 3 + 2],
                       nrm[0], nrm[1], nrm[2], uv[0], 1.0f - uv[1]};
    /* The parent column is the strongest bone (GoldSrc reads nothing else). */
    ossa__out_int(o, links[0].bone);
    for (int i = 0; i < 8; i++) {
        ossa__out_char(o, ' ');
        ossa__out_fixed(o, values[i], 6);
    }
    ossa__out_char(o, ' ');
    ossa__out_int(o, n);
    for (uint32_t i = 0; i < n; i++) {
        ossa__out_char(o, ' ');
        ossa__out_int(o, links[i].bone);
        ossa__out_char(o, ' ');
        ossa__out_fixed(o, links[i].weight, 6);
    }
    ossa__out_char(o, '\n');
}

static ossa_status put_triangles(smd_writer *w, ossa_text_out *o)
{
    const ossa_model *m = w->m;
    ossa__out_str(o, "triangles\n");
    vertex_data v;
    link *links = ossa__temp_alloc(m, (OSSA_MAX_COMPONENTS + 1) * sizeof *links);
    ossa_status st = links ? load_vertex_data(w, &v) : ossa__fail_nomem(w->error);
    if (!links) memset(&v, 0, sizeof v);
    link_stats s;
    memset(&s, 0, sizeof s);
    uint32_t renamed = 0, bad_vertices = 0;
    /* triangles outside every mesh (a model built without meshes) too */
    ossa_mesh all = {"", "", 0, m->num_vertices, 0, m->num_triangles};
    uint32_t num_meshes = m->num_meshes ? m->num_meshes : 1;
    for (uint32_t mi = 0; !st && mi < num_meshes; mi++) {
        const ossa_mesh *mesh = m->num_meshes ? &m->meshes[mi] : &all;
        for (uint32_t t = mesh->first_triangle; t < mesh->first_triangle + mesh->num_triangles;
             t++) {
            const uint32_t *tv = m->triangles[t].v;
            if (tv[0] >= m->num_vertices || tv[1] >= m->num_vertices || tv[2] >= m->num_vertices) {
                bad_vertices++;
                continue;
            }
            renamed += put_material(o, material_of(mesh));
            for (int k = 2; k >= 0; k--) put_corner(w, o, &v, t, k, links, &s);
        }
    }
    ossa__out_str(o, "end\n");
    free_vertex_data(m, &v);
    ossa__temp_free(m, links);
    if (st) return st;
    if (renamed)
        ossa__write_warn(w->options, OSSA_WARNING_RENAMED,
             "%u triangles' material names changed (blanks to '_', at most %d characters, never "
             "'end' or a comment)",
             renamed, SMD_MAX_MATERIAL);
    if (bad_vertices)
        ossa__write_warn(w->options, OSSA_WARNING_DROPPED, "%u triangles name vertices that do not exist: dropped",
             bad_vertices);
    if (s.bad_index)
        ossa__write_warn(w->options, OSSA_WARNING_DROPPED, "%llu blend influences name no joint: dropped",
             (unsigned long long)s.bad_index);
    if (s.unweighted)
        ossa__write_warn(w->options, OSSA_WARNING_REPAIRED,
             "%llu triangle corners have no blend weight: they are bound to joint 0",
             (unsigned long long)s.unweighted);
    if (s.over_four)
        ossa__write_warn(w->options, OSSA_WARNING_LIMITED,
             "%llu triangle corners have more than %d influences: the largest %d are written",
             (unsigned long long)s.over_four, SMD_MAX_LINKS, SMD_MAX_LINKS);
    if (s.over_three)
        ossa__write_warn(w->options, OSSA_WARNING_LIMITED,
             "%llu triangle corners have more than 3 influences: the Source SDK 2013 studiomdl "
             "keeps the 3 largest",
             (unsigned long long)s.over_three);
    if (s.below_005)
        ossa__write_warn(w->options, OSSA_WARNING_LIMITED,
             "%llu influences weigh less than 0.05: the Source SDK 2013 studiomdl drops them",
             (unsigned long long)s.below_005);
    return OSSA_OK;
}

/* -- Files -- */

static ossa_status write_reference(smd_writer *w, ossa_buf *out)
{
    const ossa_model *m = w->m;
    ossa_text_out o;
    ossa__out_init(&o, out);
    put_header(w, &o, NULL);
    ossa__out_str(&o, "time 0\n");
    ossa_status st = OSSA_OK;
    for (uint32_t j = 0; j < w->num_bones && !st; j++) {
        ossa_transform t = w->root_only ? ossa_transform_identity() : m->joints[j].bind;
        st = check_pose(w, &t, j, "the bind pose");
        if (!st) put_pose(&o, j, &t);
    }
    ossa__out_str(&o, "end\n");
    if (!st) st = put_triangles(w, &o);
    ossa__out_flush(&o);
    return st;
}

static ossa_status write_animation(smd_writer *w, uint32_t index, ossa_buf *out)
{
    const ossa_model *m = w->m;
    const ossa_animation *a = &m->animations[index];
    ossa_text_out o;
    ossa__out_init(&o, out);
    put_header(w, &o, a);
    ossa_status st = OSSA_OK;
    char where[300];
    snprintf(where, sizeof where, "animation '%s'", a->name);
    if (!a->num_frames)
        ossa__write_warn(w->options, OSSA_WARNING_REPAIRED,
             "animation '%s' has no frames: its file holds the bind pose as frame 0", a->name);
    uint32_t frames = a->num_frames ? a->num_frames : 1;
    for (uint32_t f = 0; f < frames && !st; f++) {
        ossa__out_str(&o, "time ");
        ossa__out_int(&o, f);
        ossa__out_char(&o, '\n');
        for (uint32_t j = 0; j < w->num_bones && !st; j++) {
            ossa_transform t = w->root_only    ? ossa_transform_identity()
                               : a->num_frames ? a->frames[(size_t)f * m->num_joints + j]
                                               : m->joints[j].bind;
            st = check_pose(w, &t, j, where);
            if (!st) put_pose(&o, j, &t);
        }
    }
    ossa__out_str(&o, "end\n");
    ossa__out_flush(&o);
    if (!st && a->framerate > 0 && a->framerate != OSSA_DEFAULT_FRAMERATE)
        ossa__write_warn(w->options, OSSA_WARNING_DROPPED,
             "animation '%s' plays at %g fps: SMD stores no rate (give it to $sequence in the QC; "
             "ossa reads it back from the file's comment)",
             a->name, (double)a->framerate);
    return st;
}

static ossa_status begin(smd_writer *w, const ossa_model *m, const ossa_write_options *options,
                         ossa_error *error)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->options = options;
    w->error = error;
    w->root_only = m->num_joints == 0;
    w->num_bones = w->root_only ? 1 : m->num_joints;
    if (m->num_animations && options->animation >= m->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u does not exist (the model has %u)", options->animation,
                          m->num_animations);
    if (w->num_bones > 128)
        ossa__write_warn(w->options, OSSA_WARNING_LIMITED,
             "%u bones: the Source SDK 2013 studiomdl accepts 128 (later branches 256)",
             w->num_bones);
    return make_names(w);
}

/* A model made from animation files alone has no bind pose or mesh worth
 * a reference file: its files are animations. */
static bool animation_only(const ossa_model *m)
{
    return (m->flags & OSSA_MODEL_SKELETON_FROM_POSES) && !m->num_triangles &&
           m->num_animations;
}

ossa_status ossa__smd_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out,
                            ossa_error *error)
{
    smd_writer w;
    ossa_status st = begin(&w, m, options, error);
    if (!st)
        st = animation_only(m) ? write_animation(&w, options->animation, out)
                               : write_reference(&w, out);
    ossa__intern_free(m, &w.names);
    return st;
}

ossa_status ossa__smd_write_files(const ossa_model *m, const char *path,
                                  const ossa_write_options *options, ossa_error *error)
{
    /* PATH: the reference (or, for an animation-only model, the chosen
     * animation); STEM.NAME.smd: every other animation. Scale comes
     * baked (core/scale.h: the format table's rule). */
    smd_writer w;
    ossa_status st = begin(&w, m, options, error);
    bool anim_only = animation_only(m);
    uint32_t *anims = ossa__temp_alloc(m, ((size_t)m->num_animations + 1) * sizeof *anims);
    size_t num_anims = 0;
    if (!st && !anims) st = ossa__fail_nomem(error);
    for (uint32_t n = 0; !st && n < m->num_animations; n++)
        /* the chosen animation first when it goes to PATH */
        anims[num_anims++] =
            !anim_only ? n : n == 0 ? options->animation : n <= options->animation ? n - 1 : n;
    size_t count = anim_only ? num_anims : num_anims + 1;
    ossa_output_set set = {0};
    if (!st) st = ossa__output_set_init(&set, path, count, options->allocator, error);
    for (size_t i = 0; i < count && !st; i++) {
        bool reference = !anim_only && i == 0;
        uint32_t anim = reference ? 0 : anims[anim_only ? i : i - 1];
        char part[OSSA_OUTPUT_PART_SIZE] = "";
        if (i > 0) ossa__output_set_animation_part(&set, m->animations[anim].name, anim, ".smd", part);
        ossa_buf *b = ossa__output_set_add(&set, part, i > 0 ? ".smd" : NULL, error);
        if (!b) {
            st = OSSA_FAILED;
            break;
        }
        st = reference ? write_reference(&w, b) : write_animation(&w, anim, b);
        if (!st && b->failed) st = ossa__fail_nomem(error);
    }
    if (!st) ossa__error_set_file(error, path);
    st = ossa__output_set_finish(&set, st, options, error);
    ossa__temp_free(m, anims);
    ossa__intern_free(m, &w.names);
    return st;
}
