/* Merging models: a mesh file plus animation files become one model, joints
 * matched by name (or by index when names are missing). Temporary memory
 * comes from dst's allocator. */
#include "core/internal.h"

#include <stdio.h>

static bool all_named(const ossa_model *m)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (!m->joints[j].name[0]) return false;
    return m->num_joints > 0;
}

/* -- Source-file joint numbering and mesh-to-bind (OSSA_EXTRA_*) -- */

static const ossa_extra *find_extra(const ossa_model *m, const char *key, size_t size)
{
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, key) == 0 && m->extras[i].size == size) return &m->extras[i];
    return NULL;
}

static bool has_joint_index(const ossa_model *m)
{
    return m->num_joints && find_extra(m, OSSA_EXTRA_JOINT_INDEX, (size_t)m->num_joints * 4);
}

/* The source-file index of every joint (the joint order when the model has
 * no OSSA_EXTRA_JOINT_INDEX), from dst's allocator (ossa__temp_free(dst,
 * ...)); NULL when memory runs out. */
static uint32_t *file_indices(const ossa_model *dst, const ossa_model *m)
{
    uint32_t *out = ossa__temp_calloc(dst, (size_t)m->num_joints + 1, sizeof *out);
    if (!out) return NULL;
    for (uint32_t j = 0; j < m->num_joints; j++) out[j] = j;
    if (has_joint_index(m))
        memcpy(out, find_extra(m, OSSA_EXTRA_JOINT_INDEX, (size_t)m->num_joints * 4)->data,
               (size_t)m->num_joints * 4);
    return out;
}

static void remove_extra(ossa_model *m, const ossa_extra *e)
{
    size_t i = (size_t)(e - m->extras);
    memmove(&m->extras[i], &m->extras[i + 1], (m->num_extras - i - 1) * sizeof *m->extras);
    m->num_extras--;
}

/* Blend indexes of m's mesh, written in the numbering `fi` describes
 * (fi[j] = file index of joint j), become joint indices. */
static ossa_status remap_blend_indexes(ossa_model *m, const uint32_t *fi, ossa_error *error)
{
    ossa_vertex_array *a = (ossa_vertex_array *)ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *w = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    uint32_t n = m->num_joints, top = 0;
    bool identity = true;
    for (uint32_t j = 0; j < n; j++) {
        identity &= fi[j] == j;
        if (fi[j] >= top) top = fi[j] + 1;
    }
    if (!a || identity) return OSSA_OK;
    size_t count = (size_t)m->num_vertices * a->size;
    int32_t *inv = ossa__temp_calloc(m, (size_t)top + 1, sizeof *inv);
    float *v = ossa__temp_calloc(m, count + 1, sizeof *v);
    float *wt = ossa__temp_calloc(m, count + 1, sizeof *wt);
    if (!inv || !v || !wt) {
        ossa__temp_free(m, inv);
        ossa__temp_free(m, v);
        ossa__temp_free(m, wt);
        return ossa__fail_nomem(error);
    }
    for (uint32_t i = 0; i < top; i++) inv[i] = -1;
    for (uint32_t j = n; j-- > 0;) inv[fi[j]] = (int32_t)j;
    ossa_vertex_array_read(m, a, 0, m->num_vertices, v);
    for (size_t i = 0; i < count; i++) wt[i] = 1;
    if (w && w->size == a->size) ossa_vertex_array_read(m, w, 0, m->num_vertices, wt);
    uint64_t missing = 0, first = 0;
    float largest = 0;
    for (size_t i = 0; i < count; i++) {
        float x = v[i];
        int32_t j = x >= 0 && x < (float)top ? inv[(uint32_t)x] : -1;
        if (j < 0 && wt[i] > 0 && !missing++) first = i / a->size;
        /* unused slots (weight 0) get joint 0, as illEngine writes them */
        v[i] = j < 0 || wt[i] == 0 ? 0 : (float)j;
        if (v[i] > largest) largest = v[i];
    }
    ossa_status st = OSSA_OK;
    /* The joint numbers may not fit the array's format any more. */
    ossa_component format = a->format;
    if ((format == OSSA_UBYTE && largest > 255) || (format == OSSA_BYTE && largest > 127) ||
        (format == OSSA_SHORT && largest > 32767) || (format == OSSA_USHORT && largest > 65535) ||
        format == OSSA_HALF)
        format = largest > 65535 ? OSSA_UINT : OSSA_USHORT;
    if (format != a->format) {
        void *data = ossa__arena_array(ossa__model_arena(m), count + 1, ossa_component_size(format));
        if (!data)
            st = ossa__fail_nomem(error);
        else {
            a->data = data;
            a->format = format;
        }
    }
    size_t cs = ossa_component_size(a->format);
    for (size_t i = 0; !st && i < count; i++)
        ossa__component_put(a->format, (unsigned char *)a->data + i * cs, v[i], true);
    if (missing)
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, 0, 0,
                   "%llu blend influences name no joint of the skeleton (first: vertex %llu); "
                   "they now use joint 0",
                   (unsigned long long)missing, (unsigned long long)first);
    ossa__temp_free(m, inv);
    ossa__temp_free(m, v);
    ossa__temp_free(m, wt);
    return st;
}

/* Positions by the 4x4 matrix `mt`; normals, tangents (xyz) and custom
 * "bitangent" arrays by its 3x3 part. */
static void transform_mesh(ossa_model *m, const void *matrix)
{
    float mt[16], v[OSSA_MAX_COMPONENTS];
    memcpy(mt, matrix, sizeof mt);
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        ossa_vertex_array *a = &m->vertex_arrays[i];
        bool point = a->type == OSSA_VERTEX_POSITION;
        bool direction = a->type == OSSA_VERTEX_NORMAL || a->type == OSSA_VERTEX_TANGENT ||
                         (a->type == OSSA_VERTEX_CUSTOM && strcmp(a->name, "bitangent") == 0);
        if ((!point && !direction) || a->size < 3) continue;
        size_t cs = ossa_component_size(a->format);
        for (uint32_t vi = 0; vi < m->num_vertices; vi++) {
            ossa_vertex_array_read(m, a, vi, 1, v);
            double x = v[0], y = v[1], z = v[2];
            for (int r = 0; r < 3; r++) {
                double o = mt[r] * x + mt[4 + r] * y + mt[8 + r] * z + (point ? mt[12 + r] : 0);
                unsigned char *p = (unsigned char *)a->data + ((size_t)vi * a->size + (size_t)r) * cs;
                ossa__component_put(a->format, p, (float)o, false);
            }
        }
    }
}

/* Names-only src (OSSA_MODEL_NAMES_ONLY): dst joints without a name take
 * the name of the same file index. */
static ossa_status take_names(ossa_model *dst, const char *const *names, uint32_t count,
                              const uint32_t *fi, ossa_error *error)
{
    for (uint32_t d = 0; d < dst->num_joints; d++) {
        if (fi[d] >= count) continue;
        const char *name = names[fi[d]];
        if (!dst->joints[d].name[0]) {
            char *copy = ossa__arena_strdup(ossa__model_arena(dst), name);
            if (!copy) return ossa__fail_nomem(error);
            dst->joints[d].name = copy;
        } else if (strcmp(dst->joints[d].name, name) != 0) {
            ossa__warn(dst, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                       "joint %u is '%s', the name list says '%s': the joint keeps its name", d,
                       dst->joints[d].name, name);
        }
    }
    return OSSA_OK;
}

static ossa_status merge_names(ossa_model *dst, const ossa_model *src, ossa_error *error)
{
    const char **names = ossa__temp_calloc(dst, (size_t)src->num_joints + 1, sizeof *names);
    uint32_t *fi = file_indices(dst, dst);
    ossa_status st = OSSA_OK;
    if (!names || !fi)
        st = ossa__fail_nomem(error);
    else {
        for (uint32_t j = 0; j < src->num_joints; j++) names[j] = src->joints[j].name;
        st = take_names(dst, names, src->num_joints, fi, error);
    }
    ossa__temp_free(dst, (void *)names);
    ossa__temp_free(dst, fi);
    return st;
}

/* Joints of the skeleton that animations merged in by name do not list
 * keep their bind pose: said once, naming the first (docs/formats/smd.md
 * §10, md5.md §6); joints listed in another order are matched by name. */
static void warn_unanimated(ossa_model *dst, const int32_t *map, uint32_t num_src)
{
    unsigned char *animated = ossa__temp_calloc(dst, (size_t)dst->num_joints + 1, 1);
    if (!animated) return; /* only a warning is lost */
    for (uint32_t s = 0; s < num_src; s++)
        if (map[s] >= 0) animated[map[s]] = 1;
    uint32_t missing = 0, first = 0;
    bool reordered = false;
    for (uint32_t d = 0; d < dst->num_joints; d++)
        if (!animated[d] && !missing++) first = d;
    ossa__temp_free(dst, animated);
    for (uint32_t s = 0; s < num_src; s++)
        if (map[s] >= 0 && map[s] != (int32_t)s) reordered = true;
    if (missing)
        ossa__warn(dst, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "%u of the skeleton's joints are not animated by the file merged in "
                   "(the first: '%s'): they keep their bind pose",
                   missing, dst->joints[first].name);
    else if (reordered)
        ossa__warn(dst, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "the file merged in lists the skeleton's joints in another order: "
                   "matched by name");
}

/* map[src joint] = dst joint or -1. */
static ossa_status match_joints(ossa_model *dst, const ossa_model *src, int32_t *map,
                                ossa_error *error)
{
    if (all_named(dst) && all_named(src)) {
        uint32_t matched = 0;
        for (uint32_t s = 0; s < src->num_joints; s++) {
            map[s] = -1;
            for (uint32_t d = 0; d < dst->num_joints; d++)
                if (strcmp(src->joints[s].name, dst->joints[d].name) == 0) {
                    map[s] = (int32_t)d;
                    matched++;
                    break;
                }
            /* Format policy, from the format table through the model:
             * an md5anim's missing joint fails, as in id Tech 4
             * (docs/formats/md5.md §6). */
            if (map[s] < 0 && (src->flags & OSSA_MODEL_STRICT_JOINTS))
                return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                                  "joint '%s' of the animation is not in the skeleton (its "
                                  "format refuses animations of joints the mesh lacks)",
                                  src->joints[s].name);
            if (map[s] < 0)
                ossa__warn(dst, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0,
                           "joint '%s' is not in the skeleton: its animation is dropped",
                           src->joints[s].name);
        }
        if (!matched)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "no joint name matches the skeleton's");
        if (src->num_animations) warn_unanimated(dst, map, src->num_joints);
        return OSSA_OK;
    }
    if (has_joint_index(dst) || has_joint_index(src)) {
        /* Both number their joints as a set of files does (illEngine
         * binary animations drive bones by skeleton file index). */
        uint32_t *di = file_indices(dst, dst), *si = file_indices(dst, src), matched = 0;
        if (!di || !si) {
            ossa__temp_free(dst, di);
            ossa__temp_free(dst, si);
            return ossa__fail_nomem(error);
        }
        for (uint32_t s = 0; s < src->num_joints; s++) {
            map[s] = -1;
            for (uint32_t d = 0; d < dst->num_joints && map[s] < 0; d++)
                if (di[d] == si[s]) map[s] = (int32_t)d;
            if (map[s] >= 0)
                matched++;
            else
                ossa__warn(dst, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0,
                           "joint number %u is not in the skeleton: its animation is dropped",
                           si[s]);
        }
        ossa__temp_free(dst, di);
        ossa__temp_free(dst, si);
        if (!matched)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "no joint number matches the skeleton's");
        return OSSA_OK;
    }
    if (src->num_joints != dst->num_joints)
        return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                          "%u unnamed joints cannot be matched to a skeleton of %u joints",
                          src->num_joints, dst->num_joints);
    /* Parents are compared only when both sides know them (SOTC .anb files
     * have no hierarchy). */
    bool parents = !((dst->flags | src->flags) & OSSA_MODEL_PARENTS_UNKNOWN);
    for (uint32_t j = 0; j < src->num_joints; j++) {
        if (parents && src->joints[j].parent != dst->joints[j].parent)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "joint %u: parent %d differs from the skeleton's %d", j,
                              src->joints[j].parent, dst->joints[j].parent);
        map[j] = (int32_t)j;
    }
    return OSSA_OK;
}

/* A skeleton made from poses learning from a real one takes its rest
 * pose too (dst joints src lacks rest in their stand-in pose). */
static ossa_status take_rest_pose(ossa_model *dst, const ossa_model *src, const int32_t *map,
                                  ossa_error *error)
{
    if (!src->rest_pose || dst->rest_pose) return OSSA_OK;
    ossa_transform *rest = ossa__temp_calloc(dst, (size_t)dst->num_joints + 1, sizeof *rest);
    if (!rest) return ossa__fail_nomem(error);
    for (uint32_t j = 0; j < dst->num_joints; j++) rest[j] = dst->joints[j].bind;
    for (uint32_t s = 0; s < src->num_joints; s++)
        if (map[s] >= 0) rest[map[s]] = src->rest_pose[s];
    ossa_status st = ossa_model_set_rest_pose(dst, rest, error);
    ossa__temp_free(dst, rest);
    return st;
}

static ossa_status copy_geometry(ossa_model *dst, const ossa_model *src, ossa_error *error)
{
    if (ossa_model_set_num_vertices(dst, src->num_vertices, error)) return OSSA_FAILED;
    for (uint32_t i = 0; i < src->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &src->vertex_arrays[i];
        if (!ossa_model_add_vertex_array(dst, a->type, a->format, a->size, a->name, a->data, error))
            return OSSA_FAILED;
    }
    if (ossa_model_set_triangles(dst, src->num_triangles, src->triangles, error)) return OSSA_FAILED;
    for (uint32_t i = 0; i < src->num_meshes; i++) {
        const ossa_mesh *m = &src->meshes[i];
        if (ossa_model_add_mesh(dst, m->name, m->material, m->first_vertex, m->num_vertices,
                                m->first_triangle, m->num_triangles, error) < 0)
            return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* -- Animation names -- */

static bool has_animation(const ossa_model *m, const char *name)
{
    for (uint32_t a = 0; a < m->num_animations; a++)
        if (strcmp(m->animations[a].name, name) == 0) return true;
    return false;
}

/* Adds an animation of src to dst under a name dst does not use yet:
 * NAME, else NAME_2, NAME_3, ... (with a warning). Files are often merged
 * from one exporter's outputs, whose animations share names (guy.iqm and
 * guyanim.iqm both hold "jump" and "dance"), and glTF importers rename
 * repeats their own way (Blender: "jump.001"). Unnamed animations stay
 * unnamed. */
static ossa_animation *add_animation_unique(ossa_model *dst, const ossa_animation *sa,
                                            ossa_error *error)
{
    const char *name = sa->name ? sa->name : "";
    if (!name[0] || !has_animation(dst, name))
        return ossa_model_add_animation(dst, name, sa->num_frames, sa->framerate, sa->flags,
                                        error);
    size_t len = strlen(name);
    char *unique = ossa__temp_alloc(dst, len + 16);
    if (!unique) {
        ossa__fail_nomem(error);
        return NULL;
    }
    /* At most num_animations names are taken, so one of the first
     * num_animations + 1 suffixes is free. */
    for (uint32_t k = 2; k <= dst->num_animations + 2; k++) {
        snprintf(unique, len + 16, "%s_%u", name, k);
        if (!has_animation(dst, unique)) break;
    }
    ossa_animation *da = ossa_model_add_animation(dst, unique, sa->num_frames, sa->framerate,
                                                  sa->flags, error);
    if (da)
        ossa__warn(dst, OSSA_WARNING_RENAMED, OSSA_NO_OFFSET, 0, 0,
                   "animation '%s' is renamed '%s': the model already has an animation of that "
                   "name",
                   name, unique);
    ossa__temp_free(dst, unique);
    return da;
}

/* The same, with the reader's note on how the animation was sampled. */
static ossa_animation *add_animation_like(ossa_model *dst, const ossa_animation *sa,
                                          ossa_error *error)
{
    ossa_animation *da = add_animation_unique(dst, sa, error);
    if (da && sa->sampling) {
        da->sampling = ossa__arena_strdup(ossa__model_arena(dst), sa->sampling);
        if (!da->sampling) {
            ossa__fail_nomem(error);
            return NULL;
        }
    }
    return da;
}

static bool identity_map(const int32_t *map, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++)
        if (map[j] != (int32_t)j) return false;
    return true;
}

/* -- The steps of a merge -- */

/* What the steps of one merge share. */
typedef struct merger {
    ossa_model *dst;
    const ossa_model *src;
    ossa_error *error;
    int32_t *map;          /* src joint -> dst joint, or -1 */
    const char **saved;    /* joint names of a names-only dst that gave way */
    uint32_t num_saved;
    bool took_skeleton;    /* dst had no joints and took src's */
    bool used_src_to_bind; /* dst's mesh went to src's bind space */
    bool took_mesh;
} merger;

/* A names-only dst gives way to a real skeleton and names it later. */
static ossa_status give_way(merger *g)
{
    ossa_model *dst = g->dst;
    if (dst->num_animations)
        return ossa__fail(g->error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                          "a model of joint names with animations cannot take a skeleton");
    g->saved = ossa__temp_calloc(dst, (size_t)dst->num_joints + 1, sizeof *g->saved);
    if (!g->saved) return ossa__fail_nomem(g->error);
    for (uint32_t j = 0; j < dst->num_joints; j++) g->saved[j] = dst->joints[j].name;
    g->num_saved = dst->num_joints;
    dst->num_joints = 0;
    dst->flags &= ~(uint32_t)OSSA_MODEL_NAMES_ONLY;
    const ossa_extra *e;
    while ((e = find_extra(dst, OSSA_EXTRA_JOINT_INDEX, (size_t)g->num_saved * 4)) != NULL)
        remove_extra(dst, e);
    return OSSA_OK;
}

/* A dst without joints takes src's skeleton. */
static ossa_status take_skeleton(merger *g)
{
    ossa_model *dst = g->dst;
    const ossa_model *src = g->src;
    if (dst->num_animations)
        return ossa__fail(g->error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                          "a model with animations but no joints cannot take a skeleton");
    for (uint32_t j = 0; j < src->num_joints; j++)
        if (ossa_model_add_joint(dst, src->joints[j].name, src->joints[j].parent,
                                 &src->joints[j].bind, g->error) < 0)
            return OSSA_FAILED;
    if (ossa_model_set_rest_pose(dst, src->rest_pose, g->error)) return OSSA_FAILED;
    dst->flags |= src->flags & (OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_PARENTS_UNKNOWN |
                                OSSA_MODEL_NAMES_ONLY | OSSA_MODEL_REST_POSE_REFERENCE);
    g->took_skeleton = true;
    return OSSA_OK;
}

/* A mesh without joints in dst meets src's skeleton: its blend indexes
 * follow src's file numbering, its vertices go to src's bind space. */
static ossa_status fit_mesh_to_skeleton(merger *g)
{
    ossa_model *dst = g->dst;
    const ossa_extra *src_to_bind = find_extra(g->src, OSSA_EXTRA_MESH_TO_BIND, 16 * sizeof(float));
    uint32_t *fi = file_indices(dst, g->src);
    ossa_status st = fi ? OSSA_OK : ossa__fail_nomem(g->error);
    if (!st && g->saved) st = take_names(dst, g->saved, g->num_saved, fi, g->error);
    if (!st && dst->num_vertices) st = remap_blend_indexes(dst, fi, g->error);
    if (!st && dst->num_vertices && src_to_bind) {
        transform_mesh(dst, src_to_bind->data);
        g->used_src_to_bind = true;
    }
    ossa__temp_free(dst, fi);
    return st;
}

/* A skeleton made from poses learns names and bind pose from a real one. */
static ossa_status learn_skeleton(merger *g)
{
    ossa_model *dst = g->dst;
    const ossa_model *src = g->src;
    for (uint32_t s = 0; s < src->num_joints; s++) {
        if (g->map[s] < 0) continue;
        uint32_t j = (uint32_t)g->map[s];
        char *name = ossa__arena_strdup(ossa__model_arena(dst), src->joints[s].name);
        if (!name) return ossa__fail_nomem(g->error);
        dst->joints[j].name = name;
        dst->joints[j].bind = src->joints[s].bind;
        if (dst->rest_pose) dst->rest_pose[j] = *ossa__rest(src, s);
        /* A parent is taken only where it stays before its child. */
        int32_t p = src->joints[s].parent;
        if (dst->flags & OSSA_MODEL_PARENTS_UNKNOWN)
            dst->joints[j].parent = p >= 0 && g->map[p] >= 0 && g->map[p] < (int32_t)j ? g->map[p] : -1;
    }
    if (take_rest_pose(dst, src, g->map, g->error)) return OSSA_FAILED;
    /* Channels the animations do not drive came from the stand-in bind
     * pose: take them from the real one's rest. */
    for (uint32_t a = 0; a < dst->num_animations; a++) {
        ossa_animation *da = &dst->animations[a];
        for (uint32_t f = 0; da->channels && f < da->num_frames; f++)
            for (uint32_t j = 0; j < dst->num_joints; j++) {
                ossa_transform *d = &da->frames[(size_t)f * dst->num_joints + j];
                const ossa_transform *b = ossa__rest(dst, j);
                unsigned ch = da->channels[j];
                if (!(ch & OSSA_CHANNEL_TRANSLATION)) memcpy(d->translation, b->translation, sizeof d->translation);
                if (!(ch & OSSA_CHANNEL_ROTATION)) memcpy(d->rotation, b->rotation, sizeof d->rotation);
                if (!(ch & OSSA_CHANNEL_SCALE)) memcpy(d->scale, b->scale, sizeof d->scale);
            }
    }
    dst->flags &= ~(uint32_t)(OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_PARENTS_UNKNOWN);
    return OSSA_OK;
}

/* src's mesh, when dst has none. */
static ossa_status merge_mesh(merger *g)
{
    ossa_model *dst = g->dst;
    const ossa_model *src = g->src;
    if (!src->num_vertices) return OSSA_OK;
    if (dst->num_vertices) {
        ossa__warn(dst, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0, "the model already has a mesh: another is ignored");
        return OSSA_OK;
    }
    if (src->num_joints && !identity_map(g->map, src->num_joints) &&
        ossa_model_find_array(src, OSSA_VERTEX_BLENDINDEXES, NULL)) {
        ossa__warn(dst, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0,
                   "a mesh whose joints are in another order is not merged");
        return OSSA_OK;
    }
    ossa_status st = copy_geometry(dst, src, g->error);
    g->took_mesh = true;
    /* A mesh without joints meets dst's skeleton. */
    if (!st && !src->num_joints && dst->num_joints) {
        uint32_t *fi = file_indices(dst, dst);
        st = fi ? remap_blend_indexes(dst, fi, g->error) : ossa__fail_nomem(g->error);
        ossa__temp_free(dst, fi);
        const ossa_extra *e = find_extra(dst, OSSA_EXTRA_MESH_TO_BIND, 16 * sizeof(float));
        if (!st && e) {
            transform_mesh(dst, e->data);
            remove_extra(dst, e);
        }
    }
    return st;
}

/* One animation of src, its joints by the map. */
static ossa_status merge_animation(merger *g, const ossa_animation *sa)
{
    ossa_model *dst = g->dst;
    const ossa_model *src = g->src;
    const int32_t *map = g->map;
    ossa_animation *da = add_animation_like(dst, sa, g->error);
    if (!da) return OSSA_FAILED;
    /* Poses about a rest pose of their own: retargeted (retarget.c). */
    if ((src->flags & OSSA_MODEL_REST_POSE_REFERENCE) && !g->took_skeleton)
        return ossa__retarget_animation(dst, src, map, sa, da, g->error);
    for (uint32_t f = 0; f < sa->num_frames; f++)
        for (uint32_t j = 0; j < src->num_joints; j++) {
            if (map[j] < 0) continue;
            ossa_transform *d = &da->frames[(size_t)f * dst->num_joints + (uint32_t)map[j]];
            const ossa_transform *s = &sa->frames[(size_t)f * src->num_joints + j];
            unsigned ch = sa->channels ? sa->channels[j] : 7u;
            if (ch & OSSA_CHANNEL_TRANSLATION) memcpy(d->translation, s->translation, sizeof d->translation);
            if (ch & OSSA_CHANNEL_ROTATION) memcpy(d->rotation, s->rotation, sizeof d->rotation);
            if (ch & OSSA_CHANNEL_SCALE) memcpy(d->scale, s->scale, sizeof d->scale);
        }
    if (sa->channels) {
        if (!ossa__animation_channels(dst, da)) return ossa__fail_nomem(g->error);
        for (uint32_t j = 0; j < src->num_joints; j++)
            if (map[j] >= 0) da->channels[map[j]] = sa->channels[j];
    }
    /* Stored bounds belong to src's mesh. */
    if (sa->bounds && (g->took_mesh || (src->num_vertices == 0 && dst->num_vertices == 0))) {
        if (!ossa__animation_bounds(dst, da)) return ossa__fail_nomem(g->error);
        memcpy(da->bounds, sa->bounds, (size_t)sa->num_frames * sizeof *da->bounds);
    }
    return OSSA_OK;
}

/* The comment when dst has none, and src's extras. */
static ossa_status merge_extras(merger *g)
{
    ossa_model *dst = g->dst;
    const ossa_model *src = g->src;
    ossa_status st = OSSA_OK;
    if (!dst->comment && src->comment) st = ossa_model_set_comment(dst, src->comment, src->comment_size, g->error);
    for (uint32_t i = 0; !st && i < src->num_extras; i++) {
        const ossa_extra *e = &src->extras[i];
        /* Numbering and mesh-to-bind belong to a skeleton: they come along
         * with it, the latter only while no mesh has used it. */
        if (strcmp(e->key, OSSA_EXTRA_JOINT_INDEX) == 0 && !g->took_skeleton) continue;
        if (strcmp(e->key, OSSA_EXTRA_MESH_TO_BIND) == 0 &&
            (!g->took_skeleton || g->used_src_to_bind || dst->num_vertices))
            continue;
        st = ossa_model_add_extra(dst, e->key, e->data, e->size, g->error);
    }
    return st;
}

static ossa_status merge_steps(merger *g)
{
    ossa_model *dst = g->dst;
    const ossa_model *src = g->src;
    if ((dst->flags & OSSA_MODEL_NAMES_ONLY) && src->num_joints && give_way(g)) return OSSA_FAILED;
    if (dst->num_joints == 0 && src->num_joints && take_skeleton(g)) return OSSA_FAILED;
    g->map = ossa__temp_calloc(dst, (size_t)src->num_joints + 1, sizeof *g->map);
    if (!g->map) return ossa__fail_nomem(g->error);
    if (src->num_joints && match_joints(dst, src, g->map, g->error)) return OSSA_FAILED;
    if (g->took_skeleton && (dst->num_vertices || g->saved) && fit_mesh_to_skeleton(g)) return OSSA_FAILED;
    ossa__temp_free(dst, (void *)g->saved);
    g->saved = NULL;
    if (!g->took_skeleton && (dst->flags & OSSA_MODEL_SKELETON_FROM_POSES) &&
        !(src->flags & OSSA_MODEL_SKELETON_FROM_POSES) && src->num_joints && learn_skeleton(g))
        return OSSA_FAILED;
    if (merge_mesh(g)) return OSSA_FAILED;
    for (uint32_t a = 0; a < src->num_animations; a++)
        if (merge_animation(g, &src->animations[a])) return OSSA_FAILED;
    return merge_extras(g);
}

ossa_status ossa_model_merge(ossa_model *dst, const ossa_model *src, ossa_error *error)
{
    if ((src->flags & OSSA_MODEL_NAMES_ONLY) && dst->num_joints) return merge_names(dst, src, error);
    merger g;
    memset(&g, 0, sizeof g);
    g.dst = dst;
    g.src = src;
    g.error = error;
    ossa_status st = merge_steps(&g);
    ossa__temp_free(dst, (void *)g.saved);
    ossa__temp_free(dst, g.map);
    /* the first input with a known front gives the merged model's */
    if (!st && dst->front == OSSA_FRONT_UNKNOWN) dst->front = src->front;
    return st;
}
