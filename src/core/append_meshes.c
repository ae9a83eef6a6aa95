/* Appending the meshes of one model to another that shares its skeleton
 * (the IQM SDK's comma-joined mesh lists, "body.iqe,head.iqe"). */
#include "core/internal.h"

#include <stdio.h>

/* map[s] = the dst joint of src joint s: by name when both skeletons are
 * named, else by index when the counts agree. */
static ossa_status match(const ossa_model *dst, const ossa_model *src, uint32_t *map,
                         ossa_error *error)
{
    bool named = dst->num_joints && src->num_joints;
    for (uint32_t j = 0; named && j < dst->num_joints; j++) named = dst->joints[j].name[0] != 0;
    for (uint32_t j = 0; named && j < src->num_joints; j++) named = src->joints[j].name[0] != 0;
    if (!named) {
        if (src->num_joints != dst->num_joints)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "the added mesh has %u joints without names, the model %u",
                              src->num_joints, dst->num_joints);
        for (uint32_t j = 0; j < src->num_joints; j++) map[j] = j;
        return OSSA_OK;
    }
    for (uint32_t s = 0; s < src->num_joints; s++) {
        uint32_t d = 0;
        while (d < dst->num_joints && strcmp(dst->joints[d].name, src->joints[s].name) != 0) d++;
        if (d == dst->num_joints)
            return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                              "joint '%s' of the added mesh is not in the model's skeleton",
                              src->joints[s].name);
        map[s] = d;
    }
    return OSSA_OK;
}

static bool same_kind(const ossa_vertex_array *a, const ossa_vertex_array *b)
{
    return a->type == b->type && (a->type != OSSA_VERTEX_CUSTOM || strcmp(a->name, b->name) == 0);
}

static const ossa_vertex_array *find_kind(const ossa_model *m, const ossa_vertex_array *like)
{
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++)
        if (same_kind(&m->vertex_arrays[i], like)) return &m->vertex_arrays[i];
    return NULL;
}

/* The value a vertex gets for an array its model lacks: opaque white
 * colours, joint 0 with full weight (it follows the root), else zeros. */
static float missing_value(ossa_vertex_type type, uint32_t c)
{
    if (type == OSSA_VERTEX_COLOR || (type == OSSA_VERTEX_BLENDWEIGHTS && c == 0)) return 1;
    return 0;
}

/* Fills `count` vertices of `out` (format and size of the result) from
 * `in` (NULL = missing), blend indexes of src mapped through `map`. */
static void fill(const ossa_model *from, const ossa_vertex_array *in, ossa_vertex_array *out,
                 uint32_t first, const uint32_t *map, uint32_t num_map, float *tmp)
{
    size_t cs = ossa_component_size(out->format);
    bool raw = out->type == OSSA_VERTEX_BLENDINDEXES;
    uint32_t count = from->num_vertices;
    if (in && in->format == out->format && in->size == out->size && !map) {
        memcpy((unsigned char *)out->data + (size_t)first * out->size * cs, in->data,
               (size_t)count * out->size * cs);
        return;
    }
    for (uint32_t v = 0; v < count; v++) {
        if (in) ossa_vertex_array_read(from, in, v, 1, tmp);
        for (uint32_t c = 0; c < out->size; c++) {
            float x = in && c < in->size ? tmp[c] : missing_value(out->type, c);
            if (raw && map && in) x = x >= 0 && x < (float)num_map ? (float)map[(uint32_t)x] : 0;
            ossa__component_put(out->format,
                                (unsigned char *)out->data + ((size_t)(first + v) * out->size + c) * cs,
                                x, raw);
        }
    }
}

/* The format that holds both sides: theirs when they agree, else floats
 * (integer formats for blend indexes, wide enough for every joint). */
static ossa_component common_format(const ossa_vertex_array *a, const ossa_vertex_array *b,
                                    uint32_t num_joints)
{
    const ossa_vertex_array *only = a ? a : b;
    ossa_component f = a && b && a->format != b->format ? OSSA_FLOAT : only->format;
    if (only->type == OSSA_VERTEX_BLENDINDEXES) {
        ossa_component need = num_joints > 65536 ? OSSA_UINT : num_joints > 256 ? OSSA_USHORT : OSSA_UBYTE;
        bool fits = (f == OSSA_UBYTE && need == OSSA_UBYTE) ||
                    (f == OSSA_USHORT && need != OSSA_UINT) || f == OSSA_UINT || f == OSSA_INT;
        if (!fits) f = need;
    }
    return f;
}

ossa_status ossa_model_append_meshes(ossa_model *dst, const ossa_model *src, ossa_error *error)
{
    ossa__error_clear(error);
    if (dst == src)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "a model cannot be appended to itself");
    uint64_t total = (uint64_t)dst->num_vertices + src->num_vertices;
    uint64_t total_tris = (uint64_t)dst->num_triangles + src->num_triangles;
    if (total > UINT32_MAX || total_tris > UINT32_MAX)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "%llu vertices and %llu triangles are more than a model holds",
                          (unsigned long long)total, (unsigned long long)total_tris);
    if (src->num_joints && !dst->num_joints && dst->num_vertices)
        return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                          "the added mesh has joints, the model has none");
    if (!src->num_vertices) return OSSA_OK;
    bool take_skeleton = src->num_joints && !dst->num_joints;
    uint32_t *map = ossa__temp_calloc(dst, (size_t)src->num_joints + 1, sizeof *map);
    if (!map) return ossa__fail_nomem(error);
    ossa_status st = take_skeleton ? OSSA_OK : match(dst, src, map, error);
    if (take_skeleton)
        for (uint32_t j = 0; j < src->num_joints; j++) map[j] = j;

    ossa_arena *arena = ossa__model_arena(dst);
    uint32_t n = dst->num_vertex_arrays;
    for (uint32_t i = 0; i < src->num_vertex_arrays; i++)
        if (!find_kind(dst, &src->vertex_arrays[i])) n++;
    ossa_vertex_array *arrays = st ? NULL : ossa__arena_array(arena, (size_t)n + 1, sizeof *arrays);
    ossa_triangle *tris = st ? NULL : ossa__arena_array(arena, (size_t)total_tris + 1, sizeof *tris);
    ossa_mesh *meshes =
        st ? NULL : ossa__arena_array(arena, (size_t)dst->num_meshes + src->num_meshes + 1, sizeof *meshes);
    if (!st && (!arrays || !tris || !meshes)) st = ossa__fail_nomem(error);
    uint32_t joints = take_skeleton ? src->num_joints : dst->num_joints;

    /* Every array of either side, in dst's order, then src's new ones. */
    float tmp[OSSA_MAX_COMPONENTS];
    for (uint32_t i = 0; !st && i < n; i++) {
        const ossa_vertex_array *da = NULL, *sa;
        if (i < dst->num_vertex_arrays) {
            da = &dst->vertex_arrays[i];
            sa = find_kind(src, da);
        } else {
            uint32_t k = i - dst->num_vertex_arrays, s = 0;
            for (;; s++)
                if (!find_kind(dst, &src->vertex_arrays[s]) && k-- == 0) break;
            sa = &src->vertex_arrays[s];
        }
        ossa_vertex_array *out = &arrays[i];
        *out = da ? *da : *sa;
        out->format = common_format(da, sa, joints);
        out->size = da && sa && sa->size > da->size ? sa->size : out->size;
        out->data = ossa__arena_array(arena, (size_t)total * out->size + 1,
                                      ossa_component_size(out->format));
        if (!out->data) {
            st = ossa__fail_nomem(error);
            break;
        }
        fill(dst, da, out, 0, NULL, 0, tmp);
        bool remap = out->type == OSSA_VERTEX_BLENDINDEXES && sa && !take_skeleton;
        fill(src, sa, out, dst->num_vertices, remap ? map : NULL, src->num_joints, tmp);
        if (!da || !sa)
            ossa__warn(dst, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, 0, 0,
                       "%s %s array: the %s mesh has none; its %u vertices get %s",
                       out->type == OSSA_VERTEX_CUSTOM ? out->name : ossa_vertex_type_name(out->type),
                       out->type == OSSA_VERTEX_CUSTOM ? "custom" : "vertex", da ? "added" : "first",
                       da ? src->num_vertices : dst->num_vertices,
                       out->type == OSSA_VERTEX_COLOR ? "white" :
                       out->type == OSSA_VERTEX_BLENDINDEXES || out->type == OSSA_VERTEX_BLENDWEIGHTS
                           ? "joint 0 with full weight" : "zeros");
    }
    if (st) {
        ossa__temp_free(dst, map);
        return st;
    }
    if (dst->num_triangles) memcpy(tris, dst->triangles, (size_t)dst->num_triangles * sizeof *tris);
    for (uint32_t t = 0; t < src->num_triangles; t++)
        for (int k = 0; k < 3; k++)
            tris[dst->num_triangles + t].v[k] = src->triangles[t].v[k] + dst->num_vertices;
    if (dst->num_meshes) memcpy(meshes, dst->meshes, (size_t)dst->num_meshes * sizeof *meshes);
    for (uint32_t i = 0; i < src->num_meshes; i++) {
        ossa_mesh *m = &meshes[dst->num_meshes + i];
        *m = src->meshes[i];
        m->name = ossa__arena_strdup(arena, src->meshes[i].name);
        m->material = ossa__arena_strdup(arena, src->meshes[i].material);
        if (!m->name || !m->material) st = ossa__fail_nomem(error);
        m->first_vertex += dst->num_vertices;
        m->first_triangle += dst->num_triangles;
    }
    for (uint32_t j = 0; !st && take_skeleton && j < src->num_joints; j++)
        if (ossa_model_add_joint(dst, src->joints[j].name, src->joints[j].parent,
                                 &src->joints[j].bind, error) < 0)
            st = OSSA_FAILED;
    if (!st && take_skeleton) st = ossa_model_set_rest_pose(dst, src->rest_pose, error);
    ossa__temp_free(dst, map);
    if (st) return st;

    dst->vertex_arrays = arrays;
    dst->num_vertex_arrays = n;
    dst->internal->cap_arrays = n + 1;
    dst->num_vertices = (uint32_t)total;
    dst->triangles = tris;
    dst->num_triangles = (uint32_t)total_tris;
    dst->adjacency = NULL;
    dst->meshes = meshes;
    dst->num_meshes += src->num_meshes;
    dst->internal->cap_meshes = dst->num_meshes + 1;
    /* The stored boxes were the first mesh's. */
    for (uint32_t a = 0; a < dst->num_animations; a++) dst->animations[a].bounds = NULL;
    return OSSA_OK;
}
