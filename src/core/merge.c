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
            /* id Tech 4 refuses an md5anim whose joints are not the
             * mesh's (docs/formats/md5.md §6). */
            if (map[s] < 0 && src->source_format == OSSA_FORMAT_MD5ANIM)
                return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                                  "joint '%s' of the md5anim is not in the skeleton",
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

static bool identity_map(const int32_t *map, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++)
        if (map[j] != (int32_t)j) return false;
    return true;
}

ossa_status ossa_model_merge(ossa_model *dst, const ossa_model *src, ossa_error *error)
{
    if ((src->flags & OSSA_MODEL_NAMES_ONLY) && dst->num_joints) return merge_names(dst, src, error);
    /* A names-only dst gives way to a real skeleton and names it. */
    const char **saved = NULL;
    uint32_t num_saved = 0;
    if ((dst->flags & OSSA_MODEL_NAMES_ONLY) && src->num_joints) {
        if (dst->num_animations)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "a model of joint names with animations cannot take a skeleton");
        saved = ossa__temp_calloc(dst, (size_t)dst->num_joints + 1, sizeof *saved);
        if (!saved) return ossa__fail_nomem(error);
        for (uint32_t j = 0; j < dst->num_joints; j++) saved[j] = dst->joints[j].name;
        num_saved = dst->num_joints;
        dst->num_joints = 0;
        dst->flags &= ~(uint32_t)OSSA_MODEL_NAMES_ONLY;
        const ossa_extra *e;
        while ((e = find_extra(dst, OSSA_EXTRA_JOINT_INDEX, (size_t)num_saved * 4)) != NULL)
            remove_extra(dst, e);
    }
    bool took_skeleton = false;
    if (dst->num_joints == 0 && src->num_joints) {
        if (dst->num_animations)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "a model with animations but no joints cannot take a skeleton");
        for (uint32_t j = 0; j < src->num_joints; j++)
            if (ossa_model_add_joint(dst, src->joints[j].name, src->joints[j].parent,
                                     &src->joints[j].bind, error) < 0)
                return OSSA_FAILED;
        dst->flags |= src->flags & (OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_PARENTS_UNKNOWN |
                                    OSSA_MODEL_NAMES_ONLY | OSSA_MODEL_REST_POSE_REFERENCE);
        took_skeleton = true;
    }
    int32_t *map = ossa__temp_calloc(dst, (size_t)src->num_joints + 1, sizeof *map);
    if (!map) {
        ossa__temp_free(dst, (void *)saved);
        return ossa__fail_nomem(error);
    }
    ossa_status st = OSSA_OK;
    if (src->num_joints) st = match_joints(dst, src, map, error);

    /* A mesh without joints in dst meets src's skeleton: its blend indexes
     * follow src's file numbering, its vertices go to src's bind space. */
    const ossa_extra *src_to_bind = find_extra(src, OSSA_EXTRA_MESH_TO_BIND, 16 * sizeof(float));
    bool used_src_to_bind = false;
    if (!st && took_skeleton && (dst->num_vertices || saved)) {
        uint32_t *fi = file_indices(dst, src);
        if (!fi)
            st = ossa__fail_nomem(error);
        if (!st && saved) st = take_names(dst, saved, num_saved, fi, error);
        if (!st && dst->num_vertices) st = remap_blend_indexes(dst, fi, error);
        if (!st && dst->num_vertices && src_to_bind) {
            transform_mesh(dst, src_to_bind->data);
            used_src_to_bind = true;
        }
        ossa__temp_free(dst, fi);
    }
    ossa__temp_free(dst, (void *)saved);

    /* A skeleton made from poses learns names and bind pose from a real one. */
    if (!st && !took_skeleton && (dst->flags & OSSA_MODEL_SKELETON_FROM_POSES) &&
        !(src->flags & OSSA_MODEL_SKELETON_FROM_POSES) && src->num_joints) {
        for (uint32_t s = 0; s < src->num_joints; s++) {
            if (map[s] < 0) continue;
            uint32_t j = (uint32_t)map[s];
            char *name = ossa__arena_strdup(ossa__model_arena(dst), src->joints[s].name);
            if (!name) {
                st = ossa__fail_nomem(error);
                break;
            }
            dst->joints[j].name = name;
            dst->joints[j].bind = src->joints[s].bind;
            /* A parent is taken only where it stays before its child. */
            int32_t p = src->joints[s].parent;
            if (dst->flags & OSSA_MODEL_PARENTS_UNKNOWN)
                dst->joints[j].parent = p >= 0 && map[p] >= 0 && map[p] < (int32_t)j ? map[p] : -1;
        }
        /* Channels the animations do not drive came from the stand-in bind
         * pose: take them from the real one. */
        for (uint32_t a = 0; !st && a < dst->num_animations; a++) {
            ossa_animation *da = &dst->animations[a];
            for (uint32_t f = 0; da->channels && f < da->num_frames; f++)
                for (uint32_t j = 0; j < dst->num_joints; j++) {
                    ossa_transform *d = &da->frames[(size_t)f * dst->num_joints + j];
                    const ossa_transform *b = &dst->joints[j].bind;
                    unsigned ch = da->channels[j];
                    if (!(ch & OSSA_CHANNEL_TRANSLATION))
                        memcpy(d->translation, b->translation, sizeof d->translation);
                    if (!(ch & OSSA_CHANNEL_ROTATION))
                        memcpy(d->rotation, b->rotation, sizeof d->rotation);
                    if (!(ch & OSSA_CHANNEL_SCALE)) memcpy(d->scale, b->scale, sizeof d->scale);
                }
        }
        if (!st)
            dst->flags &= ~(uint32_t)(OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_PARENTS_UNKNOWN);
    }

    bool took_mesh = false;
    if (!st && dst->num_vertices == 0 && src->num_vertices) {
        if (src->num_joints && !identity_map(map, src->num_joints) &&
            ossa_model_find_array(src, OSSA_VERTEX_BLENDINDEXES, NULL)) {
            ossa__warn(dst, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0,
                       "a mesh whose joints are in another order is not merged");
        } else {
            st = copy_geometry(dst, src, error);
            took_mesh = true;
            /* A mesh without joints meets dst's skeleton. */
            if (!st && !src->num_joints && dst->num_joints) {
                uint32_t *fi = file_indices(dst, dst);
                st = fi ? remap_blend_indexes(dst, fi, error) : ossa__fail_nomem(error);
                ossa__temp_free(dst, fi);
                const ossa_extra *e = find_extra(dst, OSSA_EXTRA_MESH_TO_BIND, 16 * sizeof(float));
                if (!st && e) {
                    transform_mesh(dst, e->data);
                    remove_extra(dst, e);
                }
            }
        }
    } else if (!st && src->num_vertices) {
        ossa__warn(dst, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0, "the model already has a mesh: another is ignored");
    }

    for (uint32_t a = 0; !st && a < src->num_animations; a++) {
        const ossa_animation *sa = &src->animations[a];
        ossa_animation *da = add_animation_unique(dst, sa, error);
        if (!da) {
            st = OSSA_FAILED;
            break;
        }
        /* Poses about a rest pose of their own: retargeted (retarget.c). */
        if ((src->flags & OSSA_MODEL_REST_POSE_REFERENCE) && !took_skeleton) {
            if ((st = ossa__retarget_animation(dst, src, map, sa, da, error)) != OSSA_OK) break;
            continue;
        }
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
            if (!ossa__animation_channels(dst, da)) {
                st = ossa__fail_nomem(error);
                break;
            }
            for (uint32_t j = 0; j < src->num_joints; j++)
                if (map[j] >= 0) da->channels[map[j]] = sa->channels[j];
        }
        /* Stored bounds belong to src's mesh. */
        if (sa->bounds && (took_mesh || (src->num_vertices == 0 && dst->num_vertices == 0))) {
            if (!ossa__animation_bounds(dst, da)) {
                st = ossa__fail_nomem(error);
                break;
            }
            memcpy(da->bounds, sa->bounds, (size_t)sa->num_frames * sizeof *da->bounds);
        }
    }
    if (!st && !dst->comment && src->comment)
        st = ossa_model_set_comment(dst, src->comment, src->comment_size, error);
    for (uint32_t i = 0; !st && i < src->num_extras; i++) {
        const ossa_extra *e = &src->extras[i];
        /* Numbering and mesh-to-bind belong to a skeleton: they come along
         * with it, the latter only while no mesh has used it. */
        if (strcmp(e->key, OSSA_EXTRA_JOINT_INDEX) == 0 && !took_skeleton) continue;
        if (strcmp(e->key, OSSA_EXTRA_MESH_TO_BIND) == 0 &&
            (!took_skeleton || used_src_to_bind || dst->num_vertices))
            continue;
        st = ossa_model_add_extra(dst, e->key, e->data, e->size, error);
    }
    ossa__temp_free(dst, map);
    /* the first input with a known front gives the merged model's */
    if (!st && dst->front == OSSA_FRONT_UNKNOWN) dst->front = src->front;
    return st;
}
