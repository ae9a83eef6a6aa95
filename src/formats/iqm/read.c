/* IQM reader, versions 1 and 2 (docs/formats/iqm.md). Every count and offset is
 * checked against the buffer, in 64-bit arithmetic, before it is used. */
#include "formats/iqm/iqm.h"

#include <math.h>
#include <stdio.h>

typedef struct iqm_reader {
    const unsigned char *data;
    size_t size; /* the header's filesize: trailing bytes are ignored */
    uint32_t version;
    ossa_model *model;
    ossa_error *error;
    const char *text;
    uint32_t num_text;
    /* When the file lists a joint (or, in an animation-only file, a pose)
     * before its parent, the skeleton is reordered so that parents come
     * first: old_of_new[i] is the file index of model joint i and
     * new_of_old the reverse. NULL when the file order is kept. */
    uint32_t *old_of_new, *new_of_old;
    /* Bytes of names handed out so far: every record may name the same
     * long string, and each is copied into the model. */
    uint64_t name_bytes;
} iqm_reader;

/* Decoded pose channel setup, always in the v2 layout of ten channels
 * (Tx Ty Tz Qx Qy Qz Qw Sx Sy Sz). */
typedef struct iqm_pose {
    int32_t parent;
    uint32_t mask; /* in the file's own channel numbering */
    float offset[10], scale[10];
} iqm_pose;

static uint32_t header(const iqm_reader *r, int field) { return ossa__rd32(r->data + field); }

static ossa_status corrupt(iqm_reader *r, uint64_t offset, const char *what)
{
    return ossa__fail(r->error, OSSA_ERROR_CORRUPT, offset, "%s", what);
}

/* Checks that `count` records of `elem` bytes at `ofs` lie inside the file.
 * `field` is the header offset of the section's ofs_* field, for the
 * message. */
static ossa_status section(iqm_reader *r, const char *what, uint32_t ofs, uint64_t count,
                           uint64_t elem, int field)
{
    if (count == 0) return OSSA_OK;
    if (ofs < IQM_HEADER_SIZE)
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, (uint64_t)field,
                          "%s: offset %u points into the header (expected >= %d)", what, ofs,
                          IQM_HEADER_SIZE);
    uint64_t end = (uint64_t)ofs + count * elem;
    if (count * elem / elem != count || end > r->size)
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, (uint64_t)ofs,
                          "%s: %llu x %llu bytes at byte %u run past the end of the data "
                          "(%zu bytes)",
                          what, (unsigned long long)count, (unsigned long long)elem, ofs, r->size);
    return OSSA_OK;
}

/* The text-block string at `ofs`; `where` is the byte offset of the field
 * that holds the name. */
static ossa_status name_at(iqm_reader *r, uint32_t ofs, uint64_t where, const char **out)
{
    if (ofs == 0 && r->num_text == 0) {
        *out = "";
        return OSSA_OK;
    }
    if (ofs >= r->num_text)
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, where,
                          "name offset %u is outside the text block (%u bytes)", ofs, r->num_text);
    *out = r->text + ofs; /* the block ends with a NUL (checked), so this terminates */
    /* Names are copied per record: bound the total in proportion to the
     * file, or many records naming one long string would multiply it. */
    r->name_bytes += strlen(*out) + 1;
    if (r->name_bytes > ((uint64_t)16 << 20) + (uint64_t)r->size * 16)
        return ossa__fail(r->error, OSSA_ERROR_UNSUPPORTED, where,
                          "names add up to more than %llu bytes, out of proportion to the file",
                          (unsigned long long)(((uint64_t)16 << 20) + (uint64_t)r->size * 16));
    return OSSA_OK;
}

static ossa_status read_header(iqm_reader *r)
{
    if (r->size < IQM_HEADER_SIZE)
        return ossa__fail(r->error, OSSA_ERROR_TRUNCATED, r->size,
                          "expected a %d-byte IQM header, the data has %zu bytes", IQM_HEADER_SIZE,
                          r->size);
    if (memcmp(r->data, IQM_MAGIC, 16) != 0)
        return ossa__fail(r->error, OSSA_ERROR_FORMAT, 0,
                          "expected the magic \"INTERQUAKEMODEL\\0\"");
    r->version = header(r, IQM_H_VERSION);
    if (r->version != 1 && r->version != 2)
        return ossa__fail(r->error, OSSA_ERROR_UNSUPPORTED, IQM_H_VERSION,
                          "IQM version %u (expected 1 or 2)", r->version);
    uint32_t filesize = header(r, IQM_H_FILESIZE);
    if (filesize > r->size)
        return ossa__fail(r->error, OSSA_ERROR_TRUNCATED, r->size,
                          "the header declares %u bytes, the data has %zu", filesize, r->size);
    if (filesize < IQM_HEADER_SIZE)
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, IQM_H_FILESIZE,
                          "filesize %u is smaller than the header", filesize);
    r->size = filesize;
    if (header(r, IQM_H_FLAGS))
        ossa__warn(r->model, OSSA_WARNING_NONSTANDARD, IQM_H_FLAGS, 0, 0, "header flags 0x%x are reserved (expected 0)",
                   header(r, IQM_H_FLAGS));
    return OSSA_OK;
}

static ossa_status read_text(iqm_reader *r)
{
    uint32_t num = header(r, IQM_H_NUM_TEXT), ofs = header(r, IQM_H_OFS_TEXT);
    if (section(r, "text block", ofs, num, 1, IQM_H_OFS_TEXT)) return OSSA_FAILED;
    if (num && r->data[(size_t)ofs + num - 1] != 0)
        return corrupt(r, (uint64_t)ofs + num - 1, "the text block does not end with a NUL byte");
    r->text = (const char *)r->data + ofs;
    r->num_text = num;
    return OSSA_OK;
}

static ossa_status read_vertex_arrays(iqm_reader *r)
{
    uint32_t num = header(r, IQM_H_NUM_VERTEXARRAYS), ofs = header(r, IQM_H_OFS_VERTEXARRAYS);
    uint32_t nv = header(r, IQM_H_NUM_VERTEXES);
    if (section(r, "vertex arrays", ofs, num, IQM_VERTEXARRAY_SIZE, IQM_H_OFS_VERTEXARRAYS))
        return OSSA_FAILED;
    ossa_model_set_num_vertices(r->model, nv, NULL);
    for (uint32_t i = 0; i < num; i++) {
        uint64_t at = (uint64_t)ofs + (uint64_t)i * IQM_VERTEXARRAY_SIZE;
        const unsigned char *p = r->data + at;
        uint32_t type = ossa__rd32(p), format = ossa__rd32(p + 8), size = ossa__rd32(p + 12),
                 data_ofs = ossa__rd32(p + 16);
        if (type > OSSA_VERTEX_COLOR && type < OSSA_VERTEX_CUSTOM) {
            ossa__warn(r->model, OSSA_WARNING_NONSTANDARD, at, 0, 0, "vertex array %u has reserved type %u: skipped", i, type);
            continue;
        }
        size_t cs = ossa_component_size((ossa_component)format);
        if (!cs)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at + 8,
                              "vertex array %u: unknown component format %u (expected 0..8)", i,
                              format);
        if (size < 1 || size > 4)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at + 12,
                              "vertex array %u: %u components per vertex (expected 1..4)", i, size);
        const char *name = "";
        if (type >= OSSA_VERTEX_CUSTOM && name_at(r, type - OSSA_VERTEX_CUSTOM, at, &name))
            return OSSA_FAILED;
        char what[64];
        snprintf(what, sizeof what, "vertex array %u data", i);
        if (section(r, what, data_ofs, (uint64_t)nv * size, cs, (int)(at + 16))) return OSSA_FAILED;
        if (data_ofs % (cs > 4 ? cs : 4))
            ossa__warn(r->model, OSSA_WARNING_NONSTANDARD, at + 16, 0, 0, "vertex array %u: offset %u is not aligned", i,
                       data_ofs);
        ossa_vertex_type vt = type >= OSSA_VERTEX_CUSTOM ? OSSA_VERTEX_CUSTOM : (ossa_vertex_type)type;
        ossa_vertex_array *a = ossa_model_add_vertex_array(r->model, vt, (ossa_component)format,
                                                           size, name, NULL, r->error);
        if (!a) return OSSA_FAILED;
        ossa__copy_le(a->data, r->data + data_ofs, (size_t)nv * size, cs);
    }
    /* Vertices that no array holds cost a file nothing to claim and cost
     * every writer a record each (a 600-byte file would convert to a
     * 3 GB .illmesh): a vertex count needs data. */
    if (nv && !r->model->num_vertex_arrays)
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, IQM_H_NUM_VERTEXES,
                          "%u vertices, but no vertex array holds them", nv);
    return OSSA_OK;
}

static ossa_status read_triangles(iqm_reader *r)
{
    uint32_t num = header(r, IQM_H_NUM_TRIANGLES), ofs = header(r, IQM_H_OFS_TRIANGLES);
    uint32_t nv = header(r, IQM_H_NUM_VERTEXES);
    if (section(r, "triangles", ofs, num, IQM_TRIANGLE_SIZE, IQM_H_OFS_TRIANGLES))
        return OSSA_FAILED;
    ossa_model *m = r->model;
    if (!num) return OSSA_OK;
    ossa_triangle *tris = ossa__arena_array(ossa__model_arena(m), num, sizeof *tris);
    if (!tris) return ossa__fail_nomem(r->error);
    for (uint32_t t = 0; t < num; t++) {
        for (int k = 0; k < 3; k++) {
            uint64_t at = (uint64_t)ofs + (uint64_t)t * 12 + (uint64_t)k * 4;
            uint32_t v = ossa__rd32(r->data + at);
            if (v >= nv)
                return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at,
                                  "triangle %u: vertex index %u is out of range (%u vertices)", t,
                                  v, nv);
            tris[t].v[k] = v;
        }
    }
    m->triangles = tris;
    m->num_triangles = num;

    /* Stored adjacency is only a hint (docs/formats/iqm.md §10): a bad one is dropped,
     * not fatal. */
    uint32_t adj = header(r, IQM_H_OFS_ADJACENCY);
    if (!adj) return OSSA_OK;
    if (section(r, "adjacency", adj, num, 12, IQM_H_OFS_ADJACENCY)) return OSSA_FAILED;
    uint32_t *a = ossa__arena_array(ossa__model_arena(m), (size_t)num * 3, sizeof *a);
    if (!a) return ossa__fail_nomem(r->error);
    for (size_t i = 0; i < (size_t)num * 3; i++) {
        a[i] = ossa__rd32(r->data + adj + i * 4);
        if (a[i] != OSSA_NO_NEIGHBOR && a[i] >= num) {
            ossa__warn(m, OSSA_WARNING_DROPPED, adj + i * 4, 0, 0,
                       "adjacency entry %zu names triangle %u of %u: adjacency dropped", i, a[i],
                       num);
            return OSSA_OK;
        }
    }
    m->adjacency = a;
    return OSSA_OK;
}

static ossa_status read_meshes(iqm_reader *r)
{
    uint32_t num = header(r, IQM_H_NUM_MESHES), ofs = header(r, IQM_H_OFS_MESHES);
    if (section(r, "meshes", ofs, num, IQM_MESH_SIZE, IQM_H_OFS_MESHES)) return OSSA_FAILED;
    for (uint32_t i = 0; i < num; i++) {
        uint64_t at = (uint64_t)ofs + (uint64_t)i * IQM_MESH_SIZE;
        const unsigned char *p = r->data + at;
        const char *name = "", *material = "";
        if (name_at(r, ossa__rd32(p), at, &name) || name_at(r, ossa__rd32(p + 4), at + 4, &material))
            return OSSA_FAILED;
        uint32_t fv = ossa__rd32(p + 8), nv = ossa__rd32(p + 12);
        uint32_t ft = ossa__rd32(p + 16), nt = ossa__rd32(p + 20);
        if ((uint64_t)fv + nv > r->model->num_vertices)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at + 8,
                              "mesh %u: vertices %u..%llu are outside the %u vertices", i, fv,
                              (unsigned long long)fv + nv, r->model->num_vertices);
        if ((uint64_t)ft + nt > r->model->num_triangles)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at + 16,
                              "mesh %u: triangles %u..%llu are outside the %u triangles", i, ft,
                              (unsigned long long)ft + nt, r->model->num_triangles);
        if (ossa_model_add_mesh(r->model, name, material, fv, nv, ft, nt, r->error) < 0)
            return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* v1 stores x y z only; the reference restores w = -sqrt(1 - x²-y²-z²). */
static float restore_w(float x, float y, float z)
{
    float t = 1.0f - x * x - y * y - z * z;
    return t > 0 ? -sqrtf(t) : 0.0f;
}

/* Checks parent links (each < n, no cycles) and, when some parent comes
 * after its child, computes an order with parents first: roots in file
 * order, each followed depth-first by its children in file order. Record
 * j's parent field is at byte base + j * stride, for messages. */
static ossa_status order_skeleton(iqm_reader *r, const int32_t *parent, uint32_t n, uint64_t base,
                                  uint32_t stride, const char *what)
{
    bool forward = false;
    for (uint32_t j = 0; j < n; j++) {
        if (parent[j] >= (int32_t)n)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, base + (uint64_t)j * stride,
                              "%s %u: parent %d is not one of the %u %ss", what, j, parent[j], n,
                              what);
        if (parent[j] >= (int32_t)j) forward = true;
    }
    if (!forward) return OSSA_OK;
    ossa_arena *arena = ossa__model_arena(r->model);
    uint32_t *first = ossa__arena_array(arena, (size_t)n + 1, sizeof *first);
    uint32_t *next = ossa__arena_array(arena, (size_t)n + 1, sizeof *next);
    uint32_t *stack = ossa__arena_array(arena, (size_t)n + 1, sizeof *stack);
    r->old_of_new = ossa__arena_array(arena, (size_t)n + 1, sizeof *r->old_of_new);
    r->new_of_old = ossa__arena_array(arena, (size_t)n + 1, sizeof *r->new_of_old);
    if (!first || !next || !stack || !r->old_of_new || !r->new_of_old)
        return ossa__fail_nomem(r->error);
    /* Child lists in file order: insert from the last joint backwards.
     * Index n stands for "no parent" (the list of roots). */
    for (uint32_t j = 0; j <= n; j++) first[j] = r->new_of_old[j] = UINT32_MAX;
    for (uint32_t j = n; j-- > 0;) {
        uint32_t p = parent[j] < 0 ? n : (uint32_t)parent[j];
        next[j] = first[p];
        first[p] = j;
    }
    uint32_t count = 0, depth = 0;
    for (uint32_t root = first[n]; root != UINT32_MAX; root = next[root]) {
        stack[depth++] = root;
        while (depth) {
            uint32_t j = stack[--depth];
            r->new_of_old[j] = count;
            r->old_of_new[count++] = j;
            /* Push children in reverse so the first is visited first. */
            uint32_t kids = 0;
            for (uint32_t c = first[j]; c != UINT32_MAX; c = next[c]) kids++;
            uint32_t at = depth + kids;
            for (uint32_t c = first[j]; c != UINT32_MAX; c = next[c]) stack[--at] = c;
            depth += kids;
        }
    }
    /* Joints not reached from a root sit on a cycle. */
    if (count != n) {
        uint32_t j = 0;
        while (r->new_of_old[j] != UINT32_MAX) j++;
        r->old_of_new = r->new_of_old = NULL;
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, base + (uint64_t)j * stride,
                          "%s %u: its parents form a cycle", what, j);
    }
    ossa__warn(r->model, OSSA_WARNING_REPAIRED, base, 0, 0, "%ss are listed before their parents: reordered", what);
    return OSSA_OK;
}

/* Blend indexes name joints by file index: map them to the new order. */
static void remap_blend_indexes(iqm_reader *r, uint32_t n)
{
    ossa_model *m = r->model;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        ossa_vertex_array *a = &m->vertex_arrays[i];
        if (a->type != OSSA_VERTEX_BLENDINDEXES) continue;
        size_t cs = ossa_component_size(a->format);
        unsigned char *p = a->data;
        for (size_t c = 0; c < (size_t)m->num_vertices * a->size; c++, p += cs) {
            float v = ossa__component_get(a->format, p, true);
            if (v >= 0 && v < (float)n) ossa__component_put(a->format, p, (float)r->new_of_old[(uint32_t)v], true);
        }
    }
}

static ossa_status read_joints(iqm_reader *r)
{
    uint32_t num = header(r, IQM_H_NUM_JOINTS), ofs = header(r, IQM_H_OFS_JOINTS);
    uint32_t size = r->version == 1 ? IQM_JOINT_V1_SIZE : IQM_JOINT_SIZE;
    if (section(r, "joints", ofs, num, size, IQM_H_OFS_JOINTS)) return OSSA_FAILED;
    if (!num) return OSSA_OK;
    int32_t *parent = ossa__arena_array(ossa__model_arena(r->model), num, sizeof *parent);
    if (!parent) return ossa__fail_nomem(r->error);
    for (uint32_t j = 0; j < num; j++) {
        int32_t p = (int32_t)ossa__rd32(r->data + ofs + (uint64_t)j * size + 4);
        parent[j] = p < 0 ? -1 : p;
    }
    if (order_skeleton(r, parent, num, (uint64_t)ofs + 4, size, "joint")) return OSSA_FAILED;
    for (uint32_t i = 0; i < num; i++) {
        uint32_t j = r->old_of_new ? r->old_of_new[i] : i;
        uint64_t at = (uint64_t)ofs + (uint64_t)j * size;
        const unsigned char *p = r->data + at;
        const char *name = "";
        if (name_at(r, ossa__rd32(p), at, &name)) return OSSA_FAILED;
        int32_t pa = parent[j] < 0 ? -1
                     : r->new_of_old ? (int32_t)r->new_of_old[parent[j]]
                                     : parent[j];
        ossa_transform t;
        const unsigned char *f = p + 8;
        for (int k = 0; k < 3; k++) t.translation[k] = ossa__rdf32(f + 4 * k);
        if (r->version == 1) {
            for (int k = 0; k < 3; k++) t.rotation[k] = ossa__rdf32(f + 12 + 4 * k);
            t.rotation[3] = restore_w(t.rotation[0], t.rotation[1], t.rotation[2]);
            for (int k = 0; k < 3; k++) t.scale[k] = ossa__rdf32(f + 24 + 4 * k);
        } else {
            for (int k = 0; k < 4; k++) t.rotation[k] = ossa__rdf32(f + 12 + 4 * k);
            for (int k = 0; k < 3; k++) t.scale[k] = ossa__rdf32(f + 28 + 4 * k);
        }
        ossa__quat_tidy(t.rotation);
        if (ossa_model_add_joint(r->model, name, pa, &t, r->error) < 0) return OSSA_FAILED;
    }
    if (r->new_of_old) remap_blend_indexes(r, num);
    return OSSA_OK;
}

static int popcount(uint32_t v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

static ossa_status read_poses(iqm_reader *r, iqm_pose **out)
{
    uint32_t num = header(r, IQM_H_NUM_POSES), ofs = header(r, IQM_H_OFS_POSES);
    uint32_t size = r->version == 1 ? IQM_POSE_V1_SIZE : IQM_POSE_SIZE;
    int channels = r->version == 1 ? 9 : 10;
    *out = NULL;
    if (section(r, "poses", ofs, num, size, IQM_H_OFS_POSES)) return OSSA_FAILED;
    if (!num) return OSSA_OK;
    iqm_pose *poses = ossa__arena_array(ossa__model_arena(r->model), num, sizeof *poses);
    if (!poses) return ossa__fail_nomem(r->error);
    uint64_t total = 0;
    for (uint32_t j = 0; j < num; j++) {
        uint64_t at = (uint64_t)ofs + (uint64_t)j * size;
        const unsigned char *p = r->data + at;
        iqm_pose *pose = &poses[j];
        pose->parent = (int32_t)ossa__rd32(p);
        if (pose->parent < 0) pose->parent = -1;
        if (pose->parent >= (int32_t)num)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at,
                              "pose %u: parent %d is not one of the %u poses", j, pose->parent, num);
        pose->mask = ossa__rd32(p + 4);
        if (pose->mask >> channels)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at + 4,
                              "pose %u: channel mask 0x%x has bits above channel %d", j, pose->mask,
                              channels - 1);
        for (int k = 0; k < channels; k++) {
            pose->offset[k] = ossa__rdf32(p + 8 + 4 * k);
            pose->scale[k] = ossa__rdf32(p + 8 + 4 * channels + 4 * k);
        }
        total += (uint64_t)popcount(pose->mask);
    }
    if (total != header(r, IQM_H_NUM_FRAMECHANNELS))
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, IQM_H_NUM_FRAMECHANNELS,
                          "num_framechannels is %u but the pose masks select %llu channels",
                          header(r, IQM_H_NUM_FRAMECHANNELS), (unsigned long long)total);
    *out = poses;
    return OSSA_OK;
}

/* Decodes global frame g of every pose into `out` (num_poses transforms). */
static void decode_frame(const iqm_reader *r, const iqm_pose *poses, uint32_t num_poses,
                         const unsigned char *samples, ossa_transform *out)
{
    int channels = r->version == 1 ? 9 : 10;
    for (uint32_t j = 0; j < num_poses; j++) {
        const iqm_pose *pose = &poses[j];
        float v[10];
        for (int k = 0; k < channels; k++) {
            v[k] = pose->offset[k];
            if (pose->mask & (1u << k)) {
                v[k] += (float)ossa__rd16(samples) * pose->scale[k];
                samples += 2;
            }
        }
        if (channels == 9) { /* v1: Sx Sy Sz move up, w is restored */
            v[9] = v[8];
            v[8] = v[7];
            v[7] = v[6];
            v[6] = restore_w(v[3], v[4], v[5]);
        }
        ossa_transform *t = &out[j];
        memcpy(t->translation, v, sizeof t->translation);
        memcpy(t->rotation, v + 3, sizeof t->rotation);
        memcpy(t->scale, v + 7, sizeof t->scale);
        ossa__quat_tidy(t->rotation);
    }
}

static ossa_status read_animations(iqm_reader *r, const iqm_pose *poses)
{
    ossa_model *m = r->model;
    uint32_t num = header(r, IQM_H_NUM_ANIMS), ofs = header(r, IQM_H_OFS_ANIMS);
    uint32_t num_poses = header(r, IQM_H_NUM_POSES);
    uint32_t num_frames = header(r, IQM_H_NUM_FRAMES), nfc = header(r, IQM_H_NUM_FRAMECHANNELS);
    uint32_t ofs_frames = header(r, IQM_H_OFS_FRAMES), ofs_bounds = header(r, IQM_H_OFS_BOUNDS);
    if (section(r, "animations", ofs, num, IQM_ANIM_SIZE, IQM_H_OFS_ANIMS)) return OSSA_FAILED;
    if (section(r, "frames", ofs_frames, (uint64_t)num_frames * nfc, 2, IQM_H_OFS_FRAMES))
        return OSSA_FAILED;
    if (ofs_bounds && section(r, "bounds", ofs_bounds, num_frames, IQM_BOUNDS_SIZE, IQM_H_OFS_BOUNDS))
        return OSSA_FAILED;
    if (!num) return OSSA_OK;

    bool bind = m->num_joints == num_poses;
    if (!bind && num_poses) {
        ossa__warn(m, OSSA_WARNING_INCONSISTENT, IQM_H_NUM_POSES, 0, 0,
                   "%u poses for %u joints: the animations cannot drive this skeleton and are "
                   "not loaded",
                   num_poses, m->num_joints);
        return OSSA_OK;
    }
    uint64_t decoded = 0;
    for (uint32_t a = 0; a < num; a++) {
        const unsigned char *p = r->data + ofs + (uint64_t)a * IQM_ANIM_SIZE;
        /* Frames are allocated for every joint of the model, posed or not. */
        decoded += (uint64_t)ossa__rd32(p + 8) * ((uint64_t)m->num_joints * sizeof(ossa_transform) +
                                                  (ofs_bounds ? sizeof(ossa_bounds) : 0));
    }
    if (decoded > ossa__decode_limit(r->size))
        return ossa__fail(r->error, OSSA_ERROR_UNSUPPORTED, ofs,
                          "the animations would decode to %llu MiB, out of proportion to a "
                          "%zu-byte file (limit %llu MiB)",
                          (unsigned long long)(decoded >> 20), r->size,
                          (unsigned long long)(ossa__decode_limit(r->size) >> 20));

    ossa_transform *scratch = NULL;
    if (r->old_of_new && num_poses) {
        scratch = ossa__arena_array(ossa__model_arena(m), num_poses, sizeof *scratch);
        if (!scratch) return ossa__fail_nomem(r->error);
    }
    for (uint32_t a = 0; a < num; a++) {
        uint64_t at = (uint64_t)ofs + (uint64_t)a * IQM_ANIM_SIZE;
        const unsigned char *p = r->data + at;
        const char *name = "";
        if (name_at(r, ossa__rd32(p), at, &name)) return OSSA_FAILED;
        uint32_t first = ossa__rd32(p + 4), count = ossa__rd32(p + 8), flags = ossa__rd32(p + 16);
        float rate = ossa__rdf32(p + 12);
        if ((uint64_t)first + count > num_frames)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, at + 4,
                              "animation %u '%s': frames %u..%llu are outside the %u frames", a,
                              name, first, (unsigned long long)first + count, num_frames);
        if (!isfinite(rate) || rate < 0) {
            ossa__warn(m, OSSA_WARNING_REPAIRED, at + 12, 0, 0, "animation %u '%s': invalid frame rate, taken as 0", a,
                       name);
            rate = 0;
        }
        if (flags & ~(uint32_t)OSSA_ANIMATION_LOOP)
            ossa__warn(m, OSSA_WARNING_NONSTANDARD, at + 16, 0, 0, "animation %u '%s': unknown flags 0x%x", a, name, flags);
        ossa_animation *anim = ossa_model_add_animation(m, name, count, rate, flags, r->error);
        if (!anim) return OSSA_FAILED;
        for (uint32_t f = 0; f < count && num_poses; f++) {
            const unsigned char *samples = r->data + ofs_frames + ((uint64_t)first + f) * nfc * 2;
            ossa_transform *out = anim->frames + (size_t)f * num_poses;
            if (!r->old_of_new) {
                decode_frame(r, poses, num_poses, samples, out);
                continue;
            }
            /* Samples follow the file's pose order; the model's is new. */
            decode_frame(r, poses, num_poses, samples, scratch);
            for (uint32_t j = 0; j < num_poses; j++) out[r->new_of_old[j]] = scratch[j];
        }
        if (ofs_bounds && count) {
            if (!ossa__animation_bounds(m, anim)) return ossa__fail_nomem(r->error);
            for (uint32_t f = 0; f < count; f++) {
                const unsigned char *b = r->data + ofs_bounds + ((uint64_t)first + f) * 32;
                ossa_bounds *o = &anim->bounds[f];
                for (int k = 0; k < 3; k++) {
                    o->min[k] = ossa__rdf32(b + 4 * k);
                    o->max[k] = ossa__rdf32(b + 12 + 4 * k);
                }
                o->xy_radius = ossa__rdf32(b + 24);
                o->radius = ossa__rdf32(b + 28);
            }
        }
    }
    return OSSA_OK;
}

/* Animation-only files (0 joints, N poses): the skeleton comes from the
 * poses. Its bind pose is unknown; frame 0 of the first animation with
 * frames stands in, else the channel offsets. */
static ossa_status joints_from_poses(iqm_reader *r, const iqm_pose *poses)
{
    uint32_t num = header(r, IQM_H_NUM_POSES);
    uint32_t nfc = header(r, IQM_H_NUM_FRAMECHANNELS), ofs_frames = header(r, IQM_H_OFS_FRAMES);
    uint32_t num_anims = header(r, IQM_H_NUM_ANIMS), ofs_anims = header(r, IQM_H_OFS_ANIMS);
    uint32_t num_frames = header(r, IQM_H_NUM_FRAMES);
    if (section(r, "frames", ofs_frames, (uint64_t)num_frames * nfc, 2, IQM_H_OFS_FRAMES) ||
        section(r, "animations", ofs_anims, num_anims, IQM_ANIM_SIZE, IQM_H_OFS_ANIMS))
        return OSSA_FAILED;
    ossa_transform *bind = ossa__arena_array(ossa__model_arena(r->model), num, sizeof *bind);
    if (!bind) return ossa__fail_nomem(r->error);
    int64_t frame = -1;
    for (uint32_t a = 0; a < num_anims && frame < 0; a++) {
        const unsigned char *p = r->data + ofs_anims + (uint64_t)a * IQM_ANIM_SIZE;
        uint32_t first = ossa__rd32(p + 4), count = ossa__rd32(p + 8);
        if (count && (uint64_t)first + count <= num_frames) frame = first;
    }
    if (frame >= 0 && (nfc == 0 || ofs_frames)) {
        decode_frame(r, poses, num, r->data + ofs_frames + (uint64_t)frame * nfc * 2, bind);
    } else {
        iqm_pose *constant = ossa__arena_array(ossa__model_arena(r->model), num, sizeof *constant);
        if (!constant) return ossa__fail_nomem(r->error);
        memcpy(constant, poses, num * sizeof *poses);
        for (uint32_t j = 0; j < num; j++) constant[j].mask = 0;
        decode_frame(r, constant, num, NULL, bind);
    }
    int32_t *parent = ossa__arena_array(ossa__model_arena(r->model), num, sizeof *parent);
    if (!parent) return ossa__fail_nomem(r->error);
    for (uint32_t j = 0; j < num; j++) parent[j] = poses[j].parent;
    uint32_t pose_size = r->version == 1 ? IQM_POSE_V1_SIZE : IQM_POSE_SIZE;
    if (order_skeleton(r, parent, num, header(r, IQM_H_OFS_POSES), pose_size, "pose"))
        return OSSA_FAILED;
    for (uint32_t i = 0; i < num; i++) {
        uint32_t j = r->old_of_new ? r->old_of_new[i] : i;
        int32_t pa = parent[j] < 0 ? -1
                     : r->new_of_old ? (int32_t)r->new_of_old[parent[j]]
                                     : parent[j];
        if (ossa_model_add_joint(r->model, "", pa, &bind[j], r->error) < 0) return OSSA_FAILED;
    }
    r->model->flags |= OSSA_MODEL_SKELETON_FROM_POSES;
    return OSSA_OK;
}

static ossa_status read_comment(iqm_reader *r)
{
    uint32_t num = header(r, IQM_H_NUM_COMMENT), ofs = header(r, IQM_H_OFS_COMMENT);
    if (section(r, "comment", ofs, num, 1, IQM_H_OFS_COMMENT)) return OSSA_FAILED;
    /* Trailing NULs are the terminator and padding, not content. */
    while (num && r->data[(size_t)ofs + num - 1] == 0) num--;
    return ossa_model_set_comment(r->model, r->data + ofs, num, r->error);
}

/* Reads the extension record at *ofs (named by the field at *field) and
 * moves both to the link of the next record. */
static ossa_status read_extension(iqm_reader *r, uint32_t i, uint32_t *ofs, uint64_t *field,
                                  unsigned char *visited)
{
    uint32_t at = *ofs;
    if (section(r, "extension", at, 1, IQM_EXTENSION_SIZE, (int)*field)) return OSSA_FAILED;
    /* A record visited twice means the list loops back on itself: without
     * this check a 140-byte file could add extras until memory runs out. */
    if (visited[at / 8] & (1u << (at % 8)))
        return ossa__fail(r->error, OSSA_ERROR_CORRUPT, *field,
                          "extension %u: the list loops back to byte %u", i, at);
    visited[at / 8] |= (unsigned char)(1u << (at % 8));
    const unsigned char *p = r->data + at;
    const char *name = "";
    if (name_at(r, ossa__rd32(p), at, &name)) return OSSA_FAILED;
    uint32_t num_data = ossa__rd32(p + 4), ofs_data = ossa__rd32(p + 8);
    if (section(r, "extension data", ofs_data, num_data, 1, (int)at + 8)) return OSSA_FAILED;
    size_t klen = strlen(IQM_EXTENSION_KEY) + strlen(name) + 1;
    char *key = ossa__arena_alloc(ossa__model_arena(r->model), klen);
    if (!key) return ossa__fail_nomem(r->error);
    snprintf(key, klen, "%s%s", IQM_EXTENSION_KEY, name);
    if (ossa_model_add_extra(r->model, key, num_data ? r->data + ofs_data : NULL, num_data,
                             r->error))
        return OSSA_FAILED;
    *field = (uint64_t)at + 12;
    *ofs = ossa__rd32(p + 12);
    return OSSA_OK;
}

static ossa_status read_extensions(iqm_reader *r)
{
    uint32_t num = header(r, IQM_H_NUM_EXTENSIONS), ofs = header(r, IQM_H_OFS_EXTENSIONS);
    if (!num) return OSSA_OK;
    const ossa_allocator *alloc = &r->model->internal->arena.allocator;
    size_t bits = r->size / 8 + 1;
    unsigned char *visited = ossa__alloc(alloc, bits);
    if (!visited) return ossa__fail_nomem(r->error);
    memset(visited, 0, bits);
    uint64_t field = IQM_H_OFS_EXTENSIONS;
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < num && !st; i++) {
        st = read_extension(r, i, &ofs, &field, visited);
        if (!st && !ofs && i + 1 < num) {
            ossa__warn(r->model, OSSA_WARNING_TRUNCATED, field, 0, 0, "the extension list ends after %u of %u entries",
                       i + 1, num);
            break;
        }
    }
    ossa__free(alloc, visited, bits);
    return st;
}

ossa_status ossa__iqm_read(ossa_model *model, const unsigned char *data, size_t size,
                           const ossa_load_options *options, ossa_error *error)
{
    (void)options;
    iqm_reader r = {data, size, 0, model, error, "", 0, NULL, NULL, 0};
    iqm_pose *poses = NULL;
    if (read_header(&r) || read_text(&r) || read_vertex_arrays(&r) || read_triangles(&r) ||
        read_meshes(&r) || read_joints(&r) || read_poses(&r, &poses))
        return OSSA_FAILED;
    uint32_t num_poses = header(&r, IQM_H_NUM_POSES);
    if (model->num_joints == 0 && num_poses) {
        if (joints_from_poses(&r, poses)) return OSSA_FAILED;
    } else if (model->num_joints == num_poses) {
        for (uint32_t j = 0; j < num_poses; j++) {
            /* Pose j drives file joint j; compare in file numbering. */
            uint32_t joint = r.new_of_old ? r.new_of_old[j] : j;
            int32_t jp = model->joints[joint].parent;
            if (jp >= 0 && r.old_of_new) jp = (int32_t)r.old_of_new[jp];
            if (poses[j].parent != jp)
                ossa__warn(model, OSSA_WARNING_INCONSISTENT,
                           header(&r, IQM_H_OFS_POSES) +
                               (uint64_t)j * (r.version == 1 ? IQM_POSE_V1_SIZE : IQM_POSE_SIZE),
                           0, 0, "pose %u: parent %d differs from its joint's parent %d", j,
                           poses[j].parent, jp);
        }
    }
    if (read_animations(&r, poses) || read_comment(&r) || read_extensions(&r)) return OSSA_FAILED;
    return OSSA_OK;
}
