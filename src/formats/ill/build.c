/* illEngine formats (docs/formats/ill.md): detection, the format table entries
 * and the builders that text and binary readers share. */
#include "formats/ill/ill.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Rx(-90) maps (x, y, z) to (x, z, -y) (docs/formats/ill.md §10). Column-major. */
const float ossa__ill_rx_minus_90[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};

/* -- Messages, names, temporary memory -------------------------------------- */

ossa_status ossa__ill_fail(ossa_error *error, ossa_code kind, ill_loc at, const char *fmt,
                           ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (at.line)
        ossa__failv(error, kind, OSSA_NO_OFFSET, at.line, at.column, fmt, ap);
    else
        ossa__failv(error, kind, at.offset, 0, 0, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

void ossa__ill_warn(ossa_model *model, ossa_code code, ill_loc at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ossa__warnv(model, code, at.line ? OSSA_NO_OFFSET : at.offset, at.line, at.column, fmt, ap);
    va_end(ap);
}

void ossa__ill_stem(const ossa_load_options *options, const char *fallback, char *out, size_t cap)
{
    const char *path = options->file_name;
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    size_t len = base ? strlen(base) : 0;
    const char *dot = len ? strrchr(base, '.') : NULL;
    if (dot && dot != base) len = (size_t)(dot - base);
    if (!len)
        snprintf(out, cap, "%s", fallback);
    else
        snprintf(out, cap, "%.*s", (int)len, base);
}

void *ossa__ill_talloc(const ossa_load_options *options, size_t count, size_t elem)
{
    if (elem && count > (SIZE_MAX - 16) / elem) return NULL;
    return ossa__alloc(options->allocator, count * elem + 16);
}

void ossa__ill_tfree(const ossa_load_options *options, void *ptr)
{
    ossa__free(options->allocator, ptr, 0);
}

bool ossa__ill_set_init(ill_name_set *s, uint32_t count, const ossa_allocator *allocator)
{
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)count) cap *= 2;
    s->slot = ossa__alloc(allocator, (size_t)cap * sizeof *s->slot);
    s->mask = cap - 1;
    if (s->slot) memset(s->slot, 0, (size_t)cap * sizeof *s->slot);
    return s->slot != NULL;
}

const char *ossa__ill_set_add(ill_name_set *s, const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 16777619u;
    for (uint32_t i = h & s->mask;; i = (i + 1) & s->mask) {
        if (!s->slot[i]) {
            s->slot[i] = name;
            return NULL;
        }
        if (strcmp(s->slot[i], name) == 0) return s->slot[i];
    }
}

/* -- Meshes ------------------------------------------------------------------ */

uint32_t ossa__ill_vertex_floats(unsigned mask)
{
    return (mask & ILL_HAS_POSITION ? 3u : 0u) + (mask & ILL_HAS_NORMAL ? 3u : 0u) +
           (mask & ILL_HAS_TANGENT ? 6u : 0u) + (mask & ILL_HAS_BLEND ? 8u : 0u) +
           (mask & ILL_HAS_TEXCOORD ? 2u : 0u) + (mask & ILL_HAS_COLOR ? 4u : 0u);
}

bool ossa__ill_blend_plausible(const float *b)
{
    double sum = 0;
    for (int k = 0; k < 4; k++)
        if (!(b[k] >= 0 && b[k] < 65536 && b[k] == floorf(b[k]))) return false;
    for (int k = 4; k < 8; k++) {
        if (!(b[k] >= 0)) return false;
        sum += b[k];
    }
    return fabs(sum - 1) <= 1e-3;
}

ossa_status ossa__ill_build_mesh(ossa_model *model, const ill_mesh *mesh,
                                 const ossa_load_options *options, ossa_error *error)
{
    uint32_t nv = mesh->num_vertices, stride = ossa__ill_vertex_floats(mesh->mask);
    unsigned mask = mesh->mask;
    /* Offsets of the attributes in the v0b order. */
    uint32_t o = 0, o_pos = o, o_nrm, o_tan, o_bit, o_blend, o_tc, o_col;
    o += mask & ILL_HAS_POSITION ? 3 : 0;
    o_nrm = o;
    o += mask & ILL_HAS_NORMAL ? 3 : 0;
    o_tan = o;
    o_bit = o + 3;
    o += mask & ILL_HAS_TANGENT ? 6 : 0;
    o_blend = o;
    o += mask & ILL_HAS_BLEND ? 8 : 0;
    o_tc = o;
    o += mask & ILL_HAS_TEXCOORD ? 2 : 0;
    o_col = o;

    if (ossa_model_set_num_vertices(model, nv, error)) return OSSA_FAILED;
    float *tmp = ossa__ill_talloc(options, stride ? (size_t)nv + 1 : 1, 4 * sizeof *tmp);
    if (!tmp) return ossa__fail_nomem(error);
    ossa_status st = OSSA_OK;
    const float *vx = mesh->vertices;
#define ILL_COPY(n, off)                                                                           \
    for (uint32_t v = 0; v < nv; v++)                                                              \
        for (int k = 0; k < (n); k++) tmp[(size_t)v * (n) + (size_t)k] = vx[(size_t)v * stride + (off) + (size_t)k];

    if (mask & ILL_HAS_POSITION) {
        ILL_COPY(3, o_pos);
        if (!ossa_model_add_vertex_array(model, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, tmp, error))
            st = OSSA_FAILED;
    }
    if (!st && (mask & ILL_HAS_TEXCOORD)) {
        ILL_COPY(2, o_tc);
        if (!ossa_model_add_vertex_array(model, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, tmp, error))
            st = OSSA_FAILED;
    }
    if (!st && (mask & ILL_HAS_NORMAL)) {
        ILL_COPY(3, o_nrm);
        if (!ossa_model_add_vertex_array(model, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, tmp, error))
            st = OSSA_FAILED;
    }
    if (!st && (mask & ILL_HAS_TANGENT)) {
        /* IQM's tangent: xyz and the bitangent's side as w = +-1; the
         * bitangent itself is kept in a custom array so that writing the
         * file again gives it back exactly. */
        for (uint32_t v = 0; v < nv; v++) {
            const float *p = vx + (size_t)v * stride;
            const float *t = p + o_tan, *b = p + o_bit;
            float w = 1;
            if (mask & ILL_HAS_NORMAL) {
                const float *n = p + o_nrm;
                double cx = (double)n[1] * t[2] - (double)n[2] * t[1];
                double cy = (double)n[2] * t[0] - (double)n[0] * t[2];
                double cz = (double)n[0] * t[1] - (double)n[1] * t[0];
                if (cx * b[0] + cy * b[1] + cz * b[2] < 0) w = -1;
            }
            float *d = tmp + (size_t)v * 4;
            d[0] = t[0];
            d[1] = t[1];
            d[2] = t[2];
            d[3] = w;
        }
        if (!ossa_model_add_vertex_array(model, OSSA_VERTEX_TANGENT, OSSA_FLOAT, 4, NULL, tmp, error))
            st = OSSA_FAILED;
    }
    if (!st && (mask & ILL_HAS_BLEND)) {
        /* Indices are floats in the file (docs/formats/ill.md §3): whole numbers only. */
        float largest = 0;
        for (uint32_t v = 0; v < nv && !st; v++)
            for (uint32_t k = 0; k < 4; k++) {
                float x = vx[(size_t)v * stride + o_blend + k];
                if (!(x >= 0 && x <= 65535 && x == floorf(x))) {
                    ill_loc at = {OSSA_NO_OFFSET, 0, 0};
                    if (mesh->locate) mesh->locate(mesh->locate_user, v, o_blend + k, &at);
                    st = ossa__ill_fail(error, OSSA_ERROR_CORRUPT, at,
                                        "vertex %u: blend index %g is not a whole number from 0 "
                                        "to 65535",
                                        v, (double)x);
                    break;
                }
                if (x > largest) largest = x;
                tmp[(size_t)v * 4 + k] = x;
            }
        if (!st && !ossa_model_add_vertex_array_floats(model, OSSA_VERTEX_BLENDINDEXES,
                                                       largest < 256 ? OSSA_UBYTE : OSSA_USHORT, 4,
                                                       NULL, tmp, error))
            st = OSSA_FAILED;
        if (!st) {
            ILL_COPY(4, o_blend + 4);
            if (!ossa_model_add_vertex_array(model, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL,
                                             tmp, error))
                st = OSSA_FAILED;
        }
    }
    if (!st && (mask & ILL_HAS_COLOR)) {
        ILL_COPY(4, o_col);
        if (!ossa_model_add_vertex_array(model, OSSA_VERTEX_COLOR, OSSA_FLOAT, 4, NULL, tmp, error))
            st = OSSA_FAILED;
    }
    if (!st && (mask & ILL_HAS_TANGENT)) {
        ILL_COPY(3, o_bit);
        if (!ossa_model_add_vertex_array(model, OSSA_VERTEX_CUSTOM, OSSA_FLOAT, 3, "bitangent", tmp,
                                         error))
            st = OSSA_FAILED;
    }
#undef ILL_COPY
    ossa__ill_tfree(options, tmp);
    if (st) return st;

    /* illEngine draws with OpenGL's counter-clockwise front faces (the
     * Assimp output it was converted from); ossa's are clockwise. */
    uint32_t nt = mesh->num_triangles;
    ossa_triangle *tris = ossa__arena_array(ossa__model_arena(model), (size_t)nt + 1, sizeof *tris);
    if (!tris) return ossa__fail_nomem(error);
    for (uint32_t t = 0; t < nt; t++) {
        tris[t].v[0] = mesh->triangles[(size_t)t * 3];
        tris[t].v[1] = mesh->triangles[(size_t)t * 3 + 2];
        tris[t].v[2] = mesh->triangles[(size_t)t * 3 + 1];
    }
    model->triangles = tris;
    model->num_triangles = nt;
    if (nv || nt) {
        char name[128];
        ossa__ill_stem(options, "mesh", name, sizeof name);
        if (ossa_model_add_mesh(model, name, "", 0, nv, 0, nt, error) < 0) return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* -- Skeletons --------------------------------------------------------------- */

/* M = T * R * S. Columns give the scales (the first one negated when the
 * matrix mirrors); a matrix with shear has no exact split: the returned
 * error is the largest difference of the rebuilt 3x4 part, relative to the
 * largest entry (at least 1). */
static double decompose(const double m[16], ossa_transform *t)
{
    ossa__mat4d_to_transform(m, t);
    double back[16], big = 1, err = 0;
    ossa__transform_to_mat4d(t, back);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++) {
            double e = fabs(back[k * 4 + i] - m[k * 4 + i]);
            if (e > err) err = e;
            if (fabs(m[k * 4 + i]) > big) big = fabs(m[k * 4 + i]);
        }
    return err / big;
}

bool ossa__ill_is_rx_minus_90(const double m[16])
{
    for (int i = 0; i < 16; i++)
        if (!(fabs(m[i] - ossa__ill_rx_minus_90[i]) <= 1e-5)) return false;
    return true;
}

/* Whether the Rx(-90) mesh-to-bind correction applies (docs/formats/ill.md §10). */
static bool wants_md5_fix(const ill_bone *bones, uint32_t count, bool text,
                          const ossa_load_options *options)
{
    uint32_t choice = ossa__option_choice(OSSA__OPTIONS(options), "ill.md5_fix", ILL_MD5_FIX_CHOICES);
    if (choice != 0) return choice == 1;
    for (uint32_t i = 0; i < count; i++) {
        if (text && bones[i].name && strcmp(bones[i].name, ILL_MD5_ROOT) == 0) return true;
        /* Binary skeletons have no names; their Doom 3 ones carry Rx(-90)
         * on the root (<MD5_Root>) itself (docs/formats/ill.md §7). */
        if (!text && (bones[i].parent == -1 || bones[i].parent == (int64_t)i) &&
            ossa__ill_is_rx_minus_90(bones[i].matrix))
            return true;
    }
    return false;
}

ossa_status ossa__ill_build_skeleton(ossa_model *model, ill_bone *bones, uint32_t count, bool text,
                                     const ossa_load_options *options, ossa_error *error)
{
    /* Parents: -1 or the own index = root (docs/formats/ill.md §4). */
    int32_t *parent = ossa__ill_talloc(options, count, sizeof *parent);
    uint32_t *order = ossa__ill_talloc(options, count, sizeof *order);
    uint32_t *pos = ossa__ill_talloc(options, count, sizeof *pos);
    uint32_t *chain = ossa__ill_talloc(options, count, sizeof *chain);
    unsigned char *state = ossa__ill_talloc(options, count, 1);
    ill_name_set names = {NULL, 0};
    ossa_status st = OSSA_OK;
    if (!parent || !order || !pos || !chain || !state || (text && !ossa__ill_set_init(&names, count, options->allocator))) {
        st = ossa__fail_nomem(error);
        goto done;
    }
    uint32_t roots = 0, last_root = 0;
    for (uint32_t i = 0; i < count && !st; i++) {
        int64_t p = bones[i].parent;
        state[i] = 0;
        if (p == -1 || p == (int64_t)i) {
            parent[i] = -1;
            roots++;
            last_root = i;
        } else if (p < 0 || p >= (int64_t)count) {
            st = ossa__ill_fail(error, OSSA_ERROR_CORRUPT, bones[i].parent_at,
                                "bone %u: parent %lld is not a bone (-1, or 0 to %u)", i,
                                (long long)p, count - 1);
        } else {
            parent[i] = (int32_t)p;
        }
    }
    if (st) goto done;
    /* Parents before children, otherwise in file order: each bone is placed
     * after its chain of unplaced ancestors. */
    uint32_t placed = 0;
    for (uint32_t i = 0; i < count && !st; i++) {
        uint32_t depth = 0;
        for (int32_t j = (int32_t)i; j >= 0 && state[j] != 2; j = parent[j]) {
            if (state[j] == 1) {
                st = ossa__ill_fail(error, OSSA_ERROR_CORRUPT, bones[j].parent_at,
                                    "bone %d: its parents form a cycle", j);
                break;
            }
            state[j] = 1;
            chain[depth++] = (uint32_t)j;
        }
        while (!st && depth) {
            uint32_t j = chain[--depth];
            state[j] = 2;
            pos[j] = placed;
            order[placed++] = j;
        }
    }
    if (st) goto done;
    if (roots > 1)
        ossa__warn(model, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "%u root bones; the engine uses only the last one (bone %u)", roots, last_root);

    uint64_t sheared = 0, projective = 0;
    uint32_t first_sheared = 0, first_projective = 0;
    for (uint32_t k = 0; k < count && !st; k++) {
        const ill_bone *b = &bones[order[k]];
        for (int i = 0; i < 16; i++)
            if (!isfinite(b->matrix[i]) || fabs(b->matrix[i]) > 3.4e38) {
                st = ossa__ill_fail(error, OSSA_ERROR_CORRUPT, b->at,
                                    "bone %u: the matrix holds a value that is not a finite float",
                                    order[k]);
                break;
            }
        if (st) break;
        if (b->matrix[3] != 0 || b->matrix[7] != 0 || b->matrix[11] != 0 || b->matrix[15] != 1)
            if (!projective++) first_projective = order[k];
        ossa_transform t;
        if (decompose(b->matrix, &t) > 1e-4)
            if (!sheared++) first_sheared = order[k];
        if (!ossa__finite3(t.scale)) {
            st = ossa__ill_fail(error, OSSA_ERROR_CORRUPT, b->at,
                                "bone %u: the matrix's scale is too large for a float", order[k]);
            break;
        }
        const char *name = b->name ? b->name : "";
        if (b->name) {
            const char *dup = ossa__ill_set_add(&names, b->name);
            if (dup)
                ossa__ill_warn(model, OSSA_WARNING_INCONSISTENT, b->name_at,
                               "bone %u: the name '%s' is taken by an earlier bone; the engine "
                               "finds only the first",
                               order[k], name);
        }
        int32_t p = parent[order[k]];
        if (ossa_model_add_joint(model, name, p < 0 ? -1 : (int32_t)pos[p], &t, error) < 0)
            st = OSSA_FAILED;
    }
    if (st) goto done;
    if (projective)
        ossa__warn(model, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "%llu bone matrices (first: bone %u) have a last row other than 0 0 0 1; it "
                   "is ignored",
                   (unsigned long long)projective, first_projective);
    if (sheared)
        ossa__warn(model, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "%llu bone matrices (first: bone %u) are not translation * rotation * scale "
                   "(shear); they are approximated",
                   (unsigned long long)sheared, first_sheared);

    bool reordered = false;
    for (uint32_t k = 0; k < count; k++) reordered |= order[k] != k;
    if (reordered && ossa_model_add_extra(model, OSSA_EXTRA_JOINT_INDEX, order,
                                          (size_t)count * sizeof *order, error))
        st = OSSA_FAILED;
    if (!st && wants_md5_fix(bones, count, text, options) &&
        ossa_model_add_extra(model, OSSA_EXTRA_MESH_TO_BIND, ossa__ill_rx_minus_90,
                             sizeof ossa__ill_rx_minus_90, error))
        st = OSSA_FAILED;
done:
    ossa__ill_tfree(options, parent);
    ossa__ill_tfree(options, order);
    ossa__ill_tfree(options, pos);
    ossa__ill_tfree(options, chain);
    ossa__ill_tfree(options, state);
    ossa__ill_tfree(options, (void *)names.slot);
    return st;
}

/* -- Animations -------------------------------------------------------------- */

/* The joints stand in for a skeleton that lives in another file. */
static ossa_status animation_only(ossa_model *model)
{
    model->flags |= OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_PARENTS_UNKNOWN;
    return OSSA_OK;
}

static ossa_status check_names(const char *const *names, const ill_loc *at, size_t stride_at,
                               uint32_t count, const ossa_load_options *options, ossa_error *error)
{
    ill_name_set set;
    if (!ossa__ill_set_init(&set, count, options->allocator)) return ossa__fail_nomem(error);
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < count && !st; i++) {
        const ill_loc *loc = (const ill_loc *)((const char *)at + i * stride_at);
        if (ossa__ill_set_add(&set, names[i]))
            st = ossa__ill_fail(error, OSSA_ERROR_CORRUPT, *loc,
                                "bone '%s' has a second track (the engine refuses the file)",
                                names[i]);
    }
    ossa__ill_tfree(options, (void *)set.slot);
    return st;
}

ossa_status ossa__ill_build_fixed(ossa_model *model, float framerate, uint32_t num_frames,
                                  const ill_frames *tracks, uint32_t count,
                                  const ossa_anim_tag *tag, const ossa_load_options *options,
                                  ossa_error *error)
{
    const char **names = ossa__ill_talloc(options, count, sizeof *names);
    if (!names) return ossa__fail_nomem(error);
    for (uint32_t i = 0; i < count; i++) names[i] = tracks[i].name;
    ossa_status st = check_names(names, &tracks[0].at, sizeof *tracks, count, options, error);
    ossa__ill_tfree(options, (void *)names);
    if (st) return st;
    for (uint32_t i = 0; i < count; i++) {
        const float *v = tracks[i].values; /* frame 0 stands in for the bind pose */
        ossa_transform t = {{v[0], v[1], v[2]}, {v[3], v[4], v[5], v[6]}, {v[7], v[8], v[9]}};
        ossa__quat_tidy(t.rotation);
        if (ossa_model_add_joint(model, tracks[i].name, -1, &t, error) < 0) return OSSA_FAILED;
    }
    char name[sizeof tag->name];
    if (tag)
        memcpy(name, tag->name, sizeof name);
    else
        ossa__ill_stem(options, "animation", name, sizeof name);
    uint32_t flags = !tag || tag->loop ? OSSA_ANIMATION_LOOP : 0;
    ossa_animation *a = ossa_model_add_animation(model, name, num_frames, framerate, flags, error);
    if (!a) return OSSA_FAILED;
    if (!ossa__animation_channels(model, a)) return ossa__fail_nomem(error);
    memset(a->channels, 7, count);
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t f = 0; f < num_frames; f++) {
            const float *v = tracks[i].values + (size_t)f * 10;
            ossa_transform *t = &a->frames[(size_t)f * count + i];
            memcpy(t->translation, v, 3 * sizeof *v);
            memcpy(t->rotation, v + 3, 4 * sizeof *v);
            memcpy(t->scale, v + 7, 3 * sizeof *v);
            ossa__quat_tidy(t->rotation);
        }
    return animation_only(model);
}

/* A key's values as they are: a rotation tidied as the fixed-rate frames
 * are (ossa__ill_build_fixed), so that a key and a frame of equal numbers
 * give the same pose. */
static void key_values(const float *v, int width, double out[4])
{
    float q[4];
    for (int i = 0; i < width; i++) q[i] = v[i];
    if (width == 4) ossa__quat_tidy(q);
    for (int i = 0; i < width; i++) out[i] = q[i];
}

/* Keyed sampling (docs/formats/ill.md §8) at t in [0, duration): key1 = the last key at
 * or before t, key2 the next one, wrapping to key 0 one duration later;
 * before the first key, from the last key across the wrap. A time within
 * float rounding of a key's (4 float epsilons of t: a frame of the grid
 * found by key_grid) takes that key exactly. */
static void sample_keys(const ill_keys *k, int width, double duration, double t, double out[4])
{
    const float *T = k->times, *V = k->values;
    uint32_t n = k->count;
    if (n == 1) {
        key_values(V, width, out);
        return;
    }
    uint32_t lo = 0, hi = n; /* first key with time > t */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((double)T[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t k1, k2;
    double t1, t2;
    if (lo == 0) {
        k1 = n - 1;
        k2 = 0;
        t1 = (double)T[n - 1] - duration;
        t2 = T[0];
    } else {
        k1 = lo - 1;
        k2 = lo < n ? lo : 0;
        t1 = T[k1];
        t2 = lo < n ? (double)T[lo] : (double)T[0] + duration;
    }
    double gap = t2 - t1;
    const float *a = V + (size_t)k1 * (size_t)width, *b = V + (size_t)k2 * (size_t)width;
    double near = 4 * FLT_EPSILON * fabs(t);
    if (!(gap > 0) || fabs(t - t1) <= near) {
        key_values(a, width, out);
        return;
    }
    if (fabs(t2 - t) <= near) {
        key_values(b, width, out);
        return;
    }
    double u = (t - t1) / gap;
    if (u < 0) u = 0;
    if (u > 1) u = 1;
    if (width == 3) {
        for (int i = 0; i < 3; i++) out[i] = a[i] + (b[i] - a[i]) * u;
        return;
    }
    float q[4];
    ossa__quat_slerp(a, b, u, q);
    for (int i = 0; i < 4; i++) out[i] = q[i];
}

static void sample_track(const ill_track *tr, double duration, double t, ossa_transform *out)
{
    double v[4];
    *out = ossa_transform_identity();
    if (tr->pos.count) {
        sample_keys(&tr->pos, 3, duration, t, v);
        for (int i = 0; i < 3; i++) out->translation[i] = (float)v[i];
    }
    if (tr->rot.count) {
        sample_keys(&tr->rot, 4, duration, t, v);
        for (int i = 0; i < 4; i++) out->rotation[i] = (float)v[i];
    }
    if (tr->scale.count) {
        sample_keys(&tr->scale, 3, duration, t, v);
        for (int i = 0; i < 3; i++) out->scale[i] = (float)v[i];
    }
}

/* Whether every key time in `k` is a whole number of frames of duration / n
 * seconds, within a thousandth of a frame plus the float rounding of the
 * time (2.5e-7 of it, in frames). */
static bool keys_on_grid(const ill_keys *k, double n, double duration)
{
    for (uint32_t i = 0; i < k->count; i++) {
        double x = (double)k->times[i] * n / duration;
        if (!(x >= -1e-3 && fabs(x - floor(x + 0.5)) <= 1e-3 + 2.5e-7 * x)) return false;
    }
    return true;
}

/* The frame grid the keys lie on, as frames per cycle; 0 when there is
 * none (docs/formats/ill.md §8). The step comes from the channel with the
 * most keys, over its whole span, so that the float rounding of one time
 * does not count; the duration must be a whole number of steps, and every
 * key of every channel on one. Keys of files written from frames (ossa's,
 * or converted from MD5 at k / 24 s) give their frames back; keys between
 * frames, or no channel with two keys, give no grid. */
static double key_grid(const ill_track *tracks, uint32_t count, double duration)
{
    const ill_keys *longest = NULL;
    for (uint32_t i = 0; i < count; i++) {
        const ill_keys *ch[3] = {&tracks[i].pos, &tracks[i].rot, &tracks[i].scale};
        for (int c = 0; c < 3; c++)
            if (ch[c]->count >= 2 && (!longest || ch[c]->count > longest->count)) longest = ch[c];
    }
    if (!longest || !(duration > 0)) return 0;
    double span = (double)longest->times[longest->count - 1] - (double)longest->times[0];
    if (!(span > 0)) return 0;
    double n = floor(duration * (longest->count - 1) / span + 0.5);
    if (!(n >= 1 && n <= 16777216.0)) return 0;
    for (uint32_t i = 0; i < count; i++)
        if (!keys_on_grid(&tracks[i].pos, n, duration) || !keys_on_grid(&tracks[i].rot, n, duration) ||
            !keys_on_grid(&tracks[i].scale, n, duration))
            return 0;
    return n;
}

ossa_status ossa__ill_build_keyed(ossa_model *model, double duration, ill_loc duration_at,
                                  const ill_track *tracks, uint32_t count, size_t file_size,
                                  const ossa_load_options *options, ossa_error *error)
{
    if (!(duration >= 0) || !isfinite(duration))
        return ossa__ill_fail(error, OSSA_ERROR_CORRUPT, duration_at,
                              "duration %g s: expected a finite number >= 0", duration);
    bool asked = options->framerate > 0 && isfinite(options->framerate);
    double fps = asked ? options->framerate : OSSA_DEFAULT_FRAMERATE;
    /* Whole frames over exactly one cycle, so that looping repeats with
     * the file's period: the frame rate is adjusted to N / duration.
     * Without a rate asked for, keys on one frame grid give its frames. */
    double grid = asked ? 0 : key_grid(tracks, count, duration);
    if (grid) fps = grid / duration;
    double nf = grid ? grid : duration > 0 ? floor(duration * fps + 0.5) : 1;
    if (nf < 1) nf = 1;
    double limit = 256.0 * (double)file_size;
    if (limit < 64.0 * 1024 * 1024) limit = 64.0 * 1024 * 1024;
    if (nf > 16777216.0 || nf * ((double)count + 1) * sizeof(ossa_transform) > limit)
        return ossa__ill_fail(error, OSSA_ERROR_UNSUPPORTED, duration_at,
                              "duration %g s at %g frames per second gives %.0f frames of %u "
                              "bones: more than ossa decodes from a file of %zu bytes",
                              duration, fps, nf, count, file_size);
    uint32_t num_frames = (uint32_t)nf;
    /* A duration too short for nf / duration to be a float plays as one
     * frame at the default rate, as a duration of 0 does. */
    double adjusted = duration > 0 ? nf / duration : fps;
    /* A rate within float rounding of one with 3 decimals (24, 29.97) is
     * that rate: the duration was a float. */
    double decimal = floor(adjusted * 1000 + 0.5) / 1000;
    if (fabs(decimal - adjusted) <= 2.5e-7 * adjusted) adjusted = decimal;
    float rate = adjusted <= FLT_MAX ? (float)adjusted : (float)fps;

    ossa_status st = OSSA_OK;
    if (count && tracks[0].name) {
        const char **names = ossa__ill_talloc(options, count, sizeof *names);
        if (!names) return ossa__fail_nomem(error);
        for (uint32_t i = 0; i < count; i++) names[i] = tracks[i].name;
        st = check_names(names, &tracks[0].at, sizeof *tracks, count, options, error);
        ossa__ill_tfree(options, (void *)names);
    } else if (count) {
        /* Binary: bones by index, each at most once (docs/formats/ill.md §7). */
        unsigned char *seen = ossa__ill_talloc(options, 65536, 1);
        if (!seen) return ossa__fail_nomem(error);
        memset(seen, 0, 65536);
        for (uint32_t i = 0; i < count && !st; i++) {
            uint32_t b = tracks[i].index & 0xffff;
            if (seen[b]++)
                st = ossa__ill_fail(error, OSSA_ERROR_CORRUPT, tracks[i].at,
                                    "bone %u has a second track (the engine refuses the file)", b);
        }
        ossa__ill_tfree(options, seen);
    }
    if (st) return st;

    for (uint32_t i = 0; i < count; i++) {
        ossa_transform t;
        sample_track(&tracks[i], duration, 0, &t);
        if (ossa_model_add_joint(model, tracks[i].name ? tracks[i].name : "", -1, &t, error) < 0)
            return OSSA_FAILED;
    }
    if (count && !tracks[0].name) {
        uint32_t *index = ossa__ill_talloc(options, count, sizeof *index);
        if (!index) return ossa__fail_nomem(error);
        for (uint32_t i = 0; i < count; i++) index[i] = tracks[i].index;
        st = ossa_model_add_extra(model, OSSA_EXTRA_JOINT_INDEX, index, (size_t)count * 4, error);
        ossa__ill_tfree(options, index);
        if (st) return st;
    }
    char name[128];
    ossa__ill_stem(options, "animation", name, sizeof name);
    ossa_animation *a =
        ossa_model_add_animation(model, name, num_frames, rate, OSSA_ANIMATION_LOOP, error);
    if (!a) return OSSA_FAILED;
    if (!ossa__animation_channels(model, a)) return ossa__fail_nomem(error);
    for (uint32_t i = 0; i < count; i++)
        a->channels[i] = (uint8_t)((tracks[i].pos.count ? OSSA_CHANNEL_TRANSLATION : 0) |
                                   (tracks[i].rot.count ? OSSA_CHANNEL_ROTATION : 0) |
                                   (tracks[i].scale.count ? OSSA_CHANNEL_SCALE : 0));
    for (uint32_t f = 0; f < num_frames; f++) {
        double t = duration > 0 ? (double)f * duration / nf : 0;
        for (uint32_t i = 0; i < count; i++)
            sample_track(&tracks[i], duration, t, &a->frames[(size_t)f * count + i]);
    }
    return animation_only(model);
}

ossa_status ossa__ill_apply_tag(ossa_model *model, const ossa_anim_tag *tag, ossa_error *error)
{
    if (!model->num_animations) return OSSA_OK;
    ossa_animation *a = &model->animations[model->num_animations - 1];
    char *name = ossa__arena_strdup(ossa__model_arena(model), tag->name);
    if (!name) return ossa__fail_nomem(error);
    a->name = name;
    if (tag->loop)
        a->flags |= OSSA_ANIMATION_LOOP;
    else
        a->flags &= ~(uint32_t)OSSA_ANIMATION_LOOP;
    return OSSA_OK;
}
