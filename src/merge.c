/* Merging models: a mesh file plus animation files become one model, joints
 * matched by name (or by index when names are missing). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

static bool all_named(const ossa_model *m)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (!m->joints[j].name[0]) return false;
    return m->num_joints > 0;
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
            if (map[s] < 0)
                ossa__warn(dst, OSSA_NO_OFFSET, 0, 0,
                           "joint '%s' is not in the skeleton: its animation is dropped",
                           src->joints[s].name);
        }
        if (!matched)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "no joint name matches the skeleton's");
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
    if (ossa_model_set_vertex_count(dst, src->num_vertices, error)) return OSSA_FAILED;
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

static bool identity_map(const int32_t *map, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++)
        if (map[j] != (int32_t)j) return false;
    return true;
}

ossa_status ossa_model_merge(ossa_model *dst, const ossa_model *src, ossa_error *error)
{
    bool took_skeleton = false;
    if (dst->num_joints == 0 && src->num_joints) {
        if (dst->num_animations)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "a model with animations but no joints cannot take a skeleton");
        for (uint32_t j = 0; j < src->num_joints; j++)
            if (ossa_model_add_joint(dst, src->joints[j].name, src->joints[j].parent,
                                     &src->joints[j].bind, error) < 0)
                return OSSA_FAILED;
        dst->flags |=
            src->flags & (OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_PARENTS_UNKNOWN);
        took_skeleton = true;
    }
    int32_t *map = malloc(((size_t)src->num_joints + 1) * sizeof *map);
    if (!map) return ossa__fail_nomem(error);
    ossa_status st = OSSA_OK;
    if (src->num_joints) st = match_joints(dst, src, map, error);

    /* A skeleton made from poses learns names and bind pose from a real one. */
    if (!st && !took_skeleton && (dst->flags & OSSA_MODEL_SKELETON_FROM_POSES) &&
        !(src->flags & OSSA_MODEL_SKELETON_FROM_POSES) && src->num_joints) {
        for (uint32_t j = 0; j < src->num_joints; j++) {
            char *name = ossa__arena_strdup(ossa__model_arena(dst), src->joints[j].name);
            if (!name) {
                st = ossa__fail_nomem(error);
                break;
            }
            dst->joints[j].name = name;
            dst->joints[j].bind = src->joints[j].bind;
            if (dst->flags & OSSA_MODEL_PARENTS_UNKNOWN)
                dst->joints[j].parent = src->joints[j].parent;
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
            ossa__warn(dst, OSSA_NO_OFFSET, 0, 0,
                       "a mesh whose joints are in another order is not merged");
        } else {
            st = copy_geometry(dst, src, error);
            took_mesh = true;
        }
    } else if (!st && src->num_vertices) {
        ossa__warn(dst, OSSA_NO_OFFSET, 0, 0, "the model already has a mesh: another is ignored");
    }

    for (uint32_t a = 0; !st && a < src->num_animations; a++) {
        const ossa_animation *sa = &src->animations[a];
        ossa_animation *da = ossa_model_add_animation(dst, sa->name, sa->num_frames, sa->framerate,
                                                      sa->flags, error);
        if (!da) {
            st = OSSA_FAILED;
            break;
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
            da->channels = ossa__arena_alloc(ossa__model_arena(dst), dst->num_joints + 1);
            if (!da->channels) {
                st = ossa__fail_nomem(error);
                break;
            }
            for (uint32_t j = 0; j < src->num_joints; j++)
                if (map[j] >= 0) da->channels[map[j]] = sa->channels[j];
        }
        /* Stored bounds belong to src's mesh. */
        if (sa->bounds && (took_mesh || (src->num_vertices == 0 && dst->num_vertices == 0))) {
            da->bounds = ossa__arena_array(ossa__model_arena(dst), sa->num_frames, sizeof *da->bounds);
            if (!da->bounds) {
                st = ossa__fail_nomem(error);
                break;
            }
            memcpy(da->bounds, sa->bounds, (size_t)sa->num_frames * sizeof *da->bounds);
        }
    }
    if (!st && !dst->comment && src->comment)
        st = ossa_model_set_comment(dst, src->comment, src->comment_size, error);
    for (uint32_t i = 0; !st && i < src->num_extras; i++)
        st = ossa_model_add_extra(dst, src->extras[i].key, src->extras[i].data, src->extras[i].size,
                                  error);
    free(map);
    return st;
}
