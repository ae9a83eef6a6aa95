/* IQE reader, second half: the raw lists become a model (docs/formats/iqe.md
 * §2-§9).
 *
 * - Counts and references that could only be checked with the whole file
 *   (attribute counts, forward face indices, joint numbers, parents).
 * - Joints: parents first. A file whose parent references point forward is
 *   reordered (keeping the file order wherever it is already valid) and
 *   blend indexes and poses are remapped.
 * - Geometry: each (name, material) group becomes one mesh with its own
 *   contiguous vertex range. Inside a mesh, corners with identical final
 *   attributes (position with W, texcoord, final normal, tangent with its
 *   sign, blend data, colour, custom arrays) share one vertex; unreferenced
 *   vertices are dropped. Vertices keep the file order (by the first file
 *   vertex that produced them), so files that are already deduplicated
 *   keep their numbering.
 * - Frames: poses in file order, padded with the joint's base pose. */
#include "formats/iqe/iqe.h"

#include "core/normals.h"
#include "core/weld.h"

#include <math.h>
#include <stdlib.h>

typedef struct builder {
    ossa_model *m;
    iqe_doc *d;
    ossa_error *error;
    const ossa_allocator *alloc;
    uint32_t nv;           /* file vertices */
    uint32_t nj;           /* joints */
    uint32_t *remap;       /* file joint -> model joint */
    uint32_t influences;   /* blend slots in the model */
    bool has[IQE_NUM_SLOTS]; /* attributes the file gives */
    bool normals;          /* given or generated */
    float *corner_normals; /* generated: 3 per corner, else NULL */
    uint32_t words;        /* 32-bit words of a vertex record */
} builder;

/* An output vertex: the file vertex and the triangle corner (for its
 * generated normal) it stands for. */
typedef struct out_vertex {
    uint32_t src, corner;
    uint32_t first_src; /* smallest file vertex merged into it */
    uint32_t id;        /* its number from the welder: order of first appearance */
} out_vertex;

static void *talloc(builder *b, size_t count, size_t elem)
{
    return ossa__iqe_talloc(b->alloc, count, elem);
}

static void tfree(builder *b, void *p) { ossa__iqe_tfree(b->alloc, p); }

/* -- Checks that need the whole file -- */

static ossa_status check_counts(builder *b)
{
    static const char *const names[] = {"vp", "vt", "vn", "vx", "vb", "", "vc",
                                        "v0", "v1", "v2", "v3", "v4", "v5", "v6",
                                        "v7", "v8", "v9", "vs"};
    iqe_doc *d = b->d;
    const iqe_vec *vecs[IQE_NUM_SLOTS + 1] = {&d->pos, &d->tc, &d->nrm, &d->tan, &d->blend, NULL,
                                              &d->color};
    for (int i = 0; i < IQE_NUM_CUSTOM; i++) vecs[IQE_SLOT_CUSTOM0 + i] = &d->custom[i];
    vecs[IQE_NUM_SLOTS] = &d->vs;
    uint32_t last_vertex_line = 0;
    for (int i = 0; i <= IQE_NUM_SLOTS; i++)
        if (d->last_line[i] > last_vertex_line) last_vertex_line = d->last_line[i];
    for (int i = 1; i <= IQE_NUM_SLOTS; i++) {
        if (!vecs[i] || !vecs[i]->count || vecs[i]->count == b->nv) continue;
        /* The file's last command is vertex data and a vertex lacks this
         * attribute: a file cut there, which is what to say. */
        if (vecs[i]->count < b->nv && last_vertex_line && last_vertex_line == d->last_command_line)
            return ossa__fail_line(b->error, OSSA_ERROR_TRUNCATED, d->last_command_line, 1,
                                   "the file ends early, inside the vertex data: vertex %zu has "
                                   "'vp' but no '%s' line (%zu '%s' lines for %u vertices)",
                                   vecs[i]->count, names[i], vecs[i]->count, names[i], b->nv);
        return ossa__fail_line(b->error, OSSA_ERROR_CORRUPT, d->last_line[i], 1,
                               "%zu '%s' lines for %u vertices ('vp' lines): every vertex needs "
                               "one or none has any",
                               vecs[i]->count, names[i], b->nv);
    }
    for (size_t i = 0; i < d->vertex_refs.count; i++) {
        const iqe_ref *r = &IQE_AT(d->vertex_refs, iqe_ref, i);
        if (r->value >= b->nv)
            return ossa__fail_line(b->error, OSSA_ERROR_CORRUPT, r->line, r->column,
                                   "vertex %llu does not exist (the file has %u vertices)",
                                   (unsigned long long)r->value, b->nv);
    }
    for (size_t i = 0; i < d->joint_refs.count; i++) {
        const iqe_ref *r = &IQE_AT(d->joint_refs, iqe_ref, i);
        if (r->value >= b->nj)
            return ossa__fail_line(b->error, OSSA_ERROR_CORRUPT, r->line, r->column,
                                   "joint %llu does not exist (the file has %u joints)",
                                   (unsigned long long)r->value, b->nj);
    }
    return OSSA_OK;
}

/* -- Skeleton (§7) -- */

static ossa_status build_joints(builder *b)
{
    iqe_doc *d = b->d;
    uint32_t nj = b->nj;
    const iqe_joint *J = (const iqe_joint *)d->joints.data;
    uint32_t *order = talloc(b, (size_t)nj + 1, sizeof *order);
    unsigned char *state = talloc(b, (size_t)nj + 1, 1); /* 0 new, 1 on the stack, 2 placed */
    uint32_t *stack = talloc(b, (size_t)nj + 1, sizeof *stack);
    b->remap = talloc(b, (size_t)nj + 1, sizeof *b->remap);
    if (!order || !state || !stack || !b->remap) {
        tfree(b, order);
        tfree(b, state);
        tfree(b, stack);
        return ossa__fail_nomem(b->error);
    }
    memset(state, 0, (size_t)nj + 1);
    ossa_status st = OSSA_OK;
    uint32_t placed = 0;
    bool reordered = false;
    /* Every parent is checked before any chain is followed. */
    for (uint32_t j = 0; j < nj && !st; j++)
        if (J[j].parent >= (int64_t)nj)
            st = ossa__fail_line(b->error, OSSA_ERROR_CORRUPT, J[j].line, J[j].column,
                                 "joint '%s': parent %lld does not exist (the file has %u joints)",
                                 ossa__iqe_str(d, J[j].name), (long long)J[j].parent, nj);
    for (uint32_t j = 0; j < nj && !st; j++) {
        /* Place j after its unplaced ancestors (iteratively: chains may be
         * long). */
        uint32_t depth = 0, x = j;
        while (state[x] == 0) {
            state[x] = 1;
            stack[depth++] = x;
            if (J[x].parent < 0) break;
            uint32_t p = (uint32_t)J[x].parent;
            if (state[p] == 1) {
                st = ossa__fail_line(b->error, OSSA_ERROR_CORRUPT, J[x].line, J[x].column,
                                     "joint '%s': its parents form a cycle",
                                     ossa__iqe_str(d, J[x].name));
                break;
            }
            if (p > x) reordered = true;
            x = p;
        }
        while (!st && depth) {
            uint32_t y = stack[--depth];
            state[y] = 2;
            b->remap[y] = placed;
            order[placed++] = y;
        }
    }
    if (!st && reordered)
        ossa__warn(b->m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, 0, 0,
                   "joints with a parent listed after them: joints reordered parents-first");
    uint32_t missing = 0;
    for (uint32_t i = 0; i < nj && !st; i++) {
        uint32_t j = order[i];
        ossa_transform bind = {{0, 0, 0}, {0, 0, 0, -1}, {1, 1, 1}};
        if (j < d->base_poses.count)
            bind = IQE_AT(d->base_poses, ossa_transform, j);
        else
            missing++;
        int32_t parent = J[j].parent < 0 ? -1 : (int32_t)b->remap[J[j].parent];
        if (ossa_model_add_joint(b->m, ossa__iqe_str(d, J[j].name), parent, &bind, b->error) < 0)
            st = OSSA_FAILED;
    }
    if (!st && missing)
        ossa__warn(b->m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, nj ? J[nj - missing].line : 0, 0,
                   "%u joints have no base pose: identity used", missing);
    if (!st && d->base_poses.count > nj)
        ossa__warn(b->m, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, IQE_AT(d->base_lines, uint32_t, nj), 1,
                   "%zu base poses for %u joints: the extra ones are ignored",
                   d->base_poses.count, nj);
    tfree(b, order);
    tfree(b, state);
    tfree(b, stack);
    return st;
}

/* -- Vertex attributes -- */

static const float *normal_of(const builder *b, uint32_t src, uint32_t corner)
{
    if (b->corner_normals) return b->corner_normals + (size_t)corner * 3;
    return (const float *)b->d->nrm.data + (size_t)src * 3;
}

/* The final components of one attribute (slot, or IQE_NUM_SLOTS for
 * nothing) of a vertex; blend indexes come back as raw integers in `idx`.
 * Returns the number of components. */
static uint32_t attribute(const builder *b, int slot, uint32_t v, uint32_t corner, float *out,
                          uint32_t *idx)
{
    const iqe_doc *d = b->d;
    switch (slot) {
    case OSSA_VERTEX_POSITION:
        memcpy(out, (const float *)d->pos.data + (size_t)v * 4, 4 * sizeof(float));
        return 4;
    case OSSA_VERTEX_TEXCOORD:
        memcpy(out, (const float *)d->tc.data + (size_t)v * 2, 2 * sizeof(float));
        return 2;
    case OSSA_VERTEX_NORMAL: memcpy(out, normal_of(b, v, corner), 3 * sizeof(float)); return 3;
    case OSSA_VERTEX_TANGENT: {
        const float *t = (const float *)d->tan.data + (size_t)v * 8;
        memcpy(out, t, 4 * sizeof(float));
        if (t[7] != 0) { /* bitangent given: w = sign(dot(cross(n, t), b)), 0 -> +1 */
            double c[3] = {0, 0, 0};
            if (b->normals) {
                const float *n = normal_of(b, v, corner);
                c[0] = (double)n[1] * t[2] - (double)n[2] * t[1];
                c[1] = (double)n[2] * t[0] - (double)n[0] * t[2];
                c[2] = (double)n[0] * t[1] - (double)n[1] * t[0];
            }
            out[3] = c[0] * t[4] + c[1] * t[5] + c[2] * t[6] < 0 ? -1.0f : 1.0f;
        }
        return 4;
    }
    case OSSA_VERTEX_BLENDINDEXES:
    case OSSA_VERTEX_BLENDWEIGHTS: {
        /* The largest influences (limited while parsing), renormalized
         * by the shared step, which keeps weights that already sum to 1
         * bit for bit; unused slots are joint 0 with weight 0. */
        uint32_t K = d->influences, n = b->influences;
        const unsigned char *r = d->blend.data + (size_t)v * K * 8;
        const uint32_t *ji = (const uint32_t *)r;
        const float *w = (const float *)(r + (size_t)K * 4);
        ossa__influence p[OSSA_MAX_COMPONENTS] = {{0, 0, 0}};
        for (uint32_t k = 0; k < n; k++) {
            p[k].joint = ji[k];
            p[k].order = k;
            p[k].weight = w[k] > 0 ? w[k] : 0;
        }
        ossa__influences_normalize(p, n, n, out);
        for (uint32_t k = 0; k < n; k++) {
            if (!(out[k] > 0)) out[k] = 0;
            idx[k] = out[k] > 0 ? b->remap[ji[k]] : 0;
        }
        return n;
    }
    case OSSA_VERTEX_COLOR:
        memcpy(out, (const float *)d->color.data + (size_t)v * 4, 4 * sizeof(float));
        return 4;
    default:
        if (slot >= IQE_SLOT_CUSTOM0 && slot < IQE_NUM_SLOTS) {
            memcpy(out, (const float *)d->custom[slot - IQE_SLOT_CUSTOM0].data + (size_t)v * 4,
                   4 * sizeof(float));
            return 4;
        }
        return 0;
    }
}

/* Every final attribute of a vertex as 32-bit words: its identity. */
static void make_record(const builder *b, uint32_t v, uint32_t corner, uint32_t *rec)
{
    float f[OSSA_MAX_COMPONENTS];
    uint32_t idx[OSSA_MAX_COMPONENTS], n = 0;
    for (int slot = 0; slot < IQE_NUM_SLOTS; slot++) {
        if (!b->has[slot] || slot == OSSA_VERTEX_BLENDWEIGHTS) continue;
        uint32_t c = attribute(b, slot, v, corner, f, idx);
        memcpy(rec + n, f, c * 4);
        n += c;
        if (slot == OSSA_VERTEX_BLENDINDEXES) {
            memcpy(rec + n, idx, c * 4);
            n += c;
        }
    }
}

static uint32_t record_words(const builder *b)
{
    static const uint32_t words[IQE_NUM_SLOTS] = {4, 2, 3, 4, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
    uint32_t n = 0;
    for (int slot = 0; slot < IQE_NUM_SLOTS; slot++)
        if (b->has[slot]) n += slot == OSSA_VERTEX_BLENDINDEXES ? 2 * b->influences : words[slot];
    return n;
}

/* -- Geometry -- */

static ossa_component default_format(int slot)
{
    switch (slot) {
    case OSSA_VERTEX_BLENDINDEXES:
    case OSSA_VERTEX_BLENDWEIGHTS:
    case OSSA_VERTEX_COLOR: return OSSA_UBYTE;
    default: return OSSA_FLOAT;
    }
}

/* Largest raw blend index a format holds exactly. */
static double index_limit(ossa_component f)
{
    switch (f) {
    case OSSA_BYTE: return 127;
    case OSSA_UBYTE: return 255;
    case OSSA_SHORT: return 32767;
    case OSSA_USHORT: return 65535;
    case OSSA_HALF: return 2048;
    case OSSA_FLOAT: return 16777216.0;
    default: return 2147483647.0;
    }
}

/* One model array in the declared (or the recommended) format, padded with
 * zeros to the declared size. */
static ossa_status add_array(builder *b, const out_vertex *ov, size_t n, int slot,
                             uint32_t default_size)
{
    const iqe_decl *decl = &b->d->decl[slot];
    ossa_component format = decl->declared && decl->has_format ? decl->format : default_format(slot);
    uint32_t size = decl->declared && decl->has_size ? decl->size : default_size;
    ossa_vertex_type type = slot >= IQE_SLOT_CUSTOM0 ? OSSA_VERTEX_CUSTOM : (ossa_vertex_type)slot;
    const char *name = "";
    char def[8] = "custom0";
    if (slot >= IQE_SLOT_CUSTOM0) {
        def[6] = (char)('0' + slot - IQE_SLOT_CUSTOM0);
        name = decl->declared ? ossa__iqe_str(b->d, decl->name) : def;
    }
    float *vals = talloc(b, n * size + 1, sizeof *vals);
    if (!vals) return ossa__fail_nomem(b->error);
    uint32_t max_index = 0;
    for (size_t v = 0; v < n; v++) {
        float f[OSSA_MAX_COMPONENTS];
        uint32_t idx[OSSA_MAX_COMPONENTS];
        uint32_t have = attribute(b, slot, ov[v].src, ov[v].corner, f, idx);
        float *dst = vals + v * size;
        for (uint32_t k = 0; k < size; k++) {
            if (k >= have) {
                dst[k] = 0;
            } else if (slot == OSSA_VERTEX_BLENDINDEXES) {
                dst[k] = (float)idx[k];
                if (idx[k] > max_index) max_index = idx[k];
            } else {
                dst[k] = f[k];
            }
        }
    }
    ossa_status st = OSSA_OK;
    if (slot == OSSA_VERTEX_BLENDINDEXES && max_index > index_limit(format))
        st = ossa__fail(b->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                        "joint %u does not fit %s blend indexes (declare a wider format with "
                        "'vertexarray blendindexes')",
                        max_index, ossa_component_name(format));
    else if (!ossa_model_add_vertex_array_floats(b->m, type, format, size, name, vals, b->error))
        st = OSSA_FAILED;
    tfree(b, vals);
    return st;
}

/* The arrays in type order; each raw list is freed once nothing else needs
 * it (normals wait for the tangents, whose sign may depend on them). */
static ossa_status add_arrays(builder *b, const out_vertex *ov, size_t n)
{
    static const uint32_t sizes[IQE_NUM_SLOTS] = {3, 2, 3, 4, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
    iqe_doc *d = b->d;
    const ossa_allocator *a = b->alloc;
    for (int slot = 0; slot < IQE_NUM_SLOTS; slot++) {
        if (!b->has[slot]) continue;
        uint32_t size = slot == OSSA_VERTEX_BLENDINDEXES || slot == OSSA_VERTEX_BLENDWEIGHTS
                            ? b->influences
                            : sizes[slot];
        if (add_array(b, ov, n, slot, size)) return OSSA_FAILED;
        switch (slot) {
        case OSSA_VERTEX_POSITION: ossa__iqe_vec_free(a, &d->pos); break;
        case OSSA_VERTEX_TEXCOORD: ossa__iqe_vec_free(a, &d->tc); break;
        case OSSA_VERTEX_TANGENT: ossa__iqe_vec_free(a, &d->tan); break;
        case OSSA_VERTEX_BLENDWEIGHTS:
            ossa__iqe_vec_free(a, &d->blend);
            break;
        case OSSA_VERTEX_COLOR: ossa__iqe_vec_free(a, &d->color); break;
        default:
            if (slot >= IQE_SLOT_CUSTOM0)
                ossa__iqe_vec_free(a, &d->custom[slot - IQE_SLOT_CUSTOM0]);
        }
    }
    ossa__iqe_vec_free(a, &d->nrm);
    return OSSA_OK;
}

static void geometry_warnings(builder *b)
{
    iqe_doc *d = b->d;
    if (d->fs.count && d->fs.count != d->face_n.count)
        ossa__warn(b->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, IQE_AT(d->fs, iqe_fs, 0).line, 0,
                   "%zu 'fs' lines for %zu faces: flags are paired with faces by position",
                   d->fs.count, d->face_n.count);
    uint32_t mismatched = 0, first_bad = 0;
    for (size_t i = 0; i < d->fs.count && i < d->face_n.count; i++)
        if (IQE_AT(d->fs, iqe_fs, i).count != IQE_AT(d->face_n, uint32_t, i) && !mismatched++)
            first_bad = IQE_AT(d->fs, iqe_fs, i).line;
    if (mismatched)
        ossa__warn(b->m, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, first_bad, 0,
                   "%u 'fs' lines have a different number of flags than their face has indices "
                   "(missing flags smooth)",
                   mismatched);
}

/* -- Normals (§5) -- */

/* Edge flags of each triangle from the fs command paired with its face:
 * face f with n indices made the n-2 triangles that follow those of the
 * faces before it; its fan triangle k = (P0, Pk+1, Pk+2) has polygon edge
 * 0 first when k = 0, polygon edge k+1 second, polygon edge n-1 last when
 * k = n-3; fan diagonals always smooth. */
static void edge_flags(const iqe_doc *d, uint8_t *edges, size_t nt)
{
    const iqe_fs *fs = (const iqe_fs *)d->fs.data;
    const unsigned char *flags = d->fs_flags.data;
    memset(edges, 7, nt);
    size_t t = 0;
    for (size_t face = 0; face < d->face_n.count && face < d->fs.count; face++) {
        uint32_t n = IQE_AT(d->face_n, uint32_t, face);
        const iqe_fs *f = &fs[face];
        for (uint32_t k = 0; k + 2 < n && t < nt; k++, t++) {
#define FLAG(i) ((i) < f->count ? flags[f->first + (i)] : 1)
            unsigned char e = 0;
            if (k == 0 ? FLAG(0) : 1) e |= 1;
            if (FLAG(k + 1)) e |= 2;
            if (k + 3 == n ? FLAG(n - 1) : 1) e |= 4;
#undef FLAG
            edges[t] = e;
        }
    }
}

/* One normal per triangle corner by §5, through the shared step: corners
 * at one exact position (X Y Z W) join when their smoothing keys are
 * equal, the stricter angle allows, texcoords match where `smoothuv`
 * asks, `vs` indices match and an `fs` edge flags the corner smooth.
 * Triangles that repeat a file vertex (dropped later) join nothing. */
static ossa_status generate_normals(builder *b)
{
    const iqe_doc *d = b->d;
    size_t nt = d->tris.count, ns = d->states.count;
    const iqe_tri *tris = (const iqe_tri *)d->tris.data;
    int64_t *keys = talloc(b, nt + 1, sizeof *keys);
    uint32_t *rule_of = talloc(b, nt + 1, sizeof *rule_of);
    ossa__smoothing *rules = talloc(b, ns + 2, sizeof *rules);
    uint8_t *edges = d->fs.count ? talloc(b, nt + 1, 1) : NULL;
    b->corner_normals = talloc(b, nt * 9 + 1, sizeof(float));
    ossa_status st = OSSA_OK;
    if (!keys || !rule_of || !rules || (d->fs.count && !edges) || !b->corner_normals) {
        st = ossa__fail_nomem(b->error);
        goto done;
    }
    /* rules: the file's smoothing states, then the default, then flat */
    for (size_t i = 0; i < ns; i++) {
        const iqe_state *state = &IQE_AT(d->states, iqe_state, i);
        rules[i] = (ossa__smoothing){state->angle, state->uv, false};
    }
    rules[ns] = (ossa__smoothing){180, false, false};
    rules[ns + 1] = (ossa__smoothing){180, false, true};
    for (size_t t = 0; t < nt; t++) {
        keys[t] = -1;
        rule_of[t] = (uint32_t)ns;
    }
    for (size_t r = 0; r < d->runs.count; r++) {
        const iqe_run *run = &IQE_AT(d->runs, iqe_run, r);
        size_t e = r + 1 < d->runs.count ? IQE_AT(d->runs, iqe_run, r + 1).first : nt;
        for (size_t t = run->first; t < e && t < nt; t++) {
            keys[t] = IQE_AT(d->states, iqe_state, run->state).group;
            rule_of[t] = run->state;
        }
    }
    for (size_t t = 0; t < nt; t++)
        if (ossa__iqe_degenerate(&tris[t])) rule_of[t] = (uint32_t)ns + 1;
    if (edges) edge_flags(d, edges, nt);
    ossa__normals_in in;
    memset(&in, 0, sizeof in);
    in.positions = (const float *)d->pos.data;
    in.stride = 4;
    in.components = 4;
    in.num_points = d->pos.count;
    in.corners = (const uint32_t *)d->tris.data;
    in.num_triangles = nt;
    in.keys = keys;
    in.rules = rules;
    in.rule_of = rule_of;
    in.num_rules = (uint32_t)ns + 2;
    in.texcoords = d->tc.count ? (const float *)d->tc.data : NULL;
    in.point_ids = d->vs.count ? (const int64_t *)d->vs.data : NULL;
    in.edges = edges;
    st = ossa__normals(b->m, &in, b->corner_normals, NULL, NULL, b->error);
done:
    tfree(b, keys);
    tfree(b, rule_of);
    tfree(b, rules);
    tfree(b, edges);
    return st;
}

/* -- Welding -- */

typedef struct mesh_range {
    uint32_t group, first_vertex, num_vertices, first_triangle, num_triangles;
} mesh_range;

/* What building the geometry holds between its steps. */
typedef struct geometry {
    uint32_t *gstart;     /* per group: end of its triangles in torder */
    uint32_t *torder;     /* triangles grouped, file order inside a group */
    ossa_triangle *tris;  /* output triangles, as torder */
    out_vertex *ov;       /* per welded vertex */
    size_t ov_cap;
    uint32_t *rec;        /* one vertex record */
    uint32_t *perm;       /* provisional id -> place in the mesh */
    uint32_t *seen_mesh, *seen_vertex; /* per file vertex, when normals are given */
    mesh_range *meshes;
    uint32_t num_meshes, tri_out;
    ossa__welder welder;
} geometry;

/* Triangles of each group in file order (counting sort); runs give each
 * triangle its group. */
static void order_triangles(builder *b, geometry *g)
{
    iqe_doc *d = b->d;
    size_t nt = d->tris.count, ng = d->groups.count;
    memset(g->gstart, 0, (ng + 2) * sizeof *g->gstart);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t r = 0; r < d->runs.count; r++) {
            const iqe_run *run = &IQE_AT(d->runs, iqe_run, r);
            size_t e = r + 1 < d->runs.count ? IQE_AT(d->runs, iqe_run, r + 1).first : nt;
            for (size_t t = run->first; t < e; t++) {
                if (pass == 0)
                    g->gstart[run->group + 1]++;
                else
                    g->torder[g->gstart[run->group]++] = (uint32_t)t;
            }
        }
        if (pass == 0)
            for (size_t i = 0; i < ng; i++) g->gstart[i + 1] += g->gstart[i];
    }
    /* gstart[g] is now the end of group g. */
}

/* The welded vertex (its number) of file vertex v at triangle corner
 * `corner` in mesh `mesh`. */
static ossa_status weld_corner(builder *b, geometry *g, uint32_t mesh, uint32_t v, uint32_t corner,
                               uint32_t *id)
{
    if (g->seen_mesh && g->seen_mesh[v] == mesh) {
        *id = g->seen_vertex[v];
        return OSSA_OK;
    }
    make_record(b, v, corner, g->rec);
    uint32_t before = g->welder.count;
    if (ossa__weld_add(&g->welder, g->rec, id, b->error)) return OSSA_FAILED;
    if (g->welder.count > before) { /* a new vertex */
        if (*id >= g->ov_cap) {
            size_t cap = g->ov_cap ? g->ov_cap * 2 : 1024;
            out_vertex *n = talloc(b, cap, sizeof *n);
            if (!n) return ossa__fail_nomem(b->error);
            if (g->ov_cap) memcpy(n, g->ov, g->ov_cap * sizeof *n);
            tfree(b, g->ov);
            g->ov = n;
            g->ov_cap = cap;
        }
        g->ov[*id] = (out_vertex){v, corner, v, *id};
    } else if (v < g->ov[*id].first_src) {
        g->ov[*id].first_src = v;
    }
    if (g->seen_mesh) {
        g->seen_mesh[v] = mesh;
        g->seen_vertex[v] = *id;
    }
    return OSSA_OK;
}

static int out_vertex_cmp(const void *a, const void *b)
{
    const out_vertex *x = a, *y = b;
    if (x->first_src != y->first_src) return x->first_src < y->first_src ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Group gi's triangles become a mesh of welded vertices, which keep the
 * file order (by the first file vertex that made each). Corners that weld
 * into one vertex leave a triangle that repeats it: the loader drops it. */
static ossa_status weld_group(builder *b, geometry *g, uint32_t gi)
{
    const iqe_tri *tris = (const iqe_tri *)b->d->tris.data;
    uint32_t tb = gi ? g->gstart[gi - 1] : 0, te = g->gstart[gi];
    if (tb == te) return OSSA_OK;
    ossa__weld_group(&g->welder);
    uint32_t base = g->welder.count;
    for (uint32_t i = tb; i < te; i++) {
        uint32_t t = g->torder[i];
        for (uint32_t k = 0; k < 3; k++)
            if (weld_corner(b, g, g->num_meshes, tris[t].v[k], t * 3 + k,
                            &g->tris[g->tri_out + (i - tb)].v[k]))
                return OSSA_FAILED;
    }
    uint32_t local = g->welder.count - base;
    out_vertex *mv = g->ov + base;
    qsort(mv, local, sizeof *mv, out_vertex_cmp);
    for (uint32_t i = 0; i < local; i++) g->perm[mv[i].id - base] = base + i;
    for (uint32_t i = g->tri_out; i < g->tri_out + (te - tb); i++)
        for (int k = 0; k < 3; k++) g->tris[i].v[k] = g->perm[g->tris[i].v[k] - base];
    mesh_range *mr = &g->meshes[g->num_meshes++];
    *mr = (mesh_range){gi, base, local, g->tri_out, te - tb};
    g->tri_out += te - tb;
    return OSSA_OK;
}

/* The welded vertices, triangles and meshes into the model. */
static ossa_status emit_geometry(builder *b, geometry *g)
{
    /* Face lists are done with: free them before the model grows. */
    tfree(b, g->seen_mesh), g->seen_mesh = NULL;
    tfree(b, g->seen_vertex), g->seen_vertex = NULL;
    tfree(b, g->torder), g->torder = NULL;
    uint32_t nv = g->welder.count;
    ossa__welder_free(&g->welder);
    if (ossa_model_set_num_vertices(b->m, nv, b->error) ||
        ossa_model_set_triangles(b->m, g->tri_out, g->tris, b->error))
        return OSSA_FAILED;
    tfree(b, g->tris), g->tris = NULL;
    if (add_arrays(b, g->ov, nv)) return OSSA_FAILED;
    for (uint32_t i = 0; i < g->num_meshes; i++) {
        const mesh_range *mr = &g->meshes[i];
        const iqe_group *grp = &IQE_AT(b->d->groups, iqe_group, mr->group);
        if (ossa_model_add_mesh(b->m, ossa__iqe_str(b->d, grp->name), ossa__iqe_str(b->d, grp->material),
                                mr->first_vertex, mr->num_vertices, mr->first_triangle,
                                mr->num_triangles, b->error) < 0)
            return OSSA_FAILED;
    }
    return OSSA_OK;
}

static void geometry_free(builder *b, geometry *g)
{
    tfree(b, g->gstart);
    tfree(b, g->torder);
    tfree(b, g->tris);
    tfree(b, g->ov);
    tfree(b, g->rec);
    tfree(b, g->perm);
    tfree(b, g->seen_mesh);
    tfree(b, g->seen_vertex);
    tfree(b, g->meshes);
    ossa__welder_free(&g->welder);
}

static ossa_status build_geometry(builder *b)
{
    iqe_doc *d = b->d;
    size_t nt = d->tris.count, ng = d->groups.count;
    if (!nt) return OSSA_OK;
    geometry_warnings(b);
    b->normals = true;
    if (!d->nrm.count && generate_normals(b)) return OSSA_FAILED;
    b->has[OSSA_VERTEX_NORMAL] = true;
    b->words = record_words(b);

    geometry g;
    memset(&g, 0, sizeof g);
    ossa__welder_init(&g.welder, b->m, (size_t)b->words * 4);
    g.gstart = talloc(b, ng + 2, sizeof *g.gstart);
    g.torder = talloc(b, nt, sizeof *g.torder);
    g.tris = talloc(b, nt, sizeof *g.tris);
    g.rec = talloc(b, (size_t)b->words + 1, 4);
    g.meshes = talloc(b, ng + 1, sizeof *g.meshes);
    ossa_status st = OSSA_OK;
    if (!g.gstart || !g.torder || !g.tris || !g.rec || !g.meshes) st = ossa__fail_nomem(b->error);
    size_t largest = 0;
    if (!st) {
        order_triangles(b, &g);
        for (size_t i = 0; i < ng; i++) {
            size_t c = g.gstart[i] - (i ? g.gstart[i - 1] : 0);
            if (c > largest) largest = c;
        }
        g.perm = talloc(b, largest * 3 + 1, sizeof *g.perm);
        if (!g.perm) st = ossa__fail_nomem(b->error);
    }
    if (!st && !b->corner_normals) {
        /* Normals per vertex: every corner of a file vertex in a mesh is
         * the same vertex, found without welding the second time. */
        g.seen_mesh = talloc(b, (size_t)b->nv + 1, sizeof *g.seen_mesh);
        g.seen_vertex = talloc(b, (size_t)b->nv + 1, sizeof *g.seen_vertex);
        if (!g.seen_mesh || !g.seen_vertex)
            st = ossa__fail_nomem(b->error);
        else
            memset(g.seen_mesh, 0xff, ((size_t)b->nv + 1) * sizeof *g.seen_mesh);
    }
    for (size_t gi = 0; gi < ng && !st; gi++) st = weld_group(b, &g, (uint32_t)gi);
    if (!st) st = emit_geometry(b, &g);
    geometry_free(b, &g);
    tfree(b, b->corner_normals);
    b->corner_normals = NULL;
    return st;
}

/* -- Animations (§8) -- */

static ossa_status build_animations(builder *b)
{
    iqe_doc *d = b->d;
    uint32_t nj = b->nj;
    uint64_t decoded = 0;
    for (size_t a = 0; a < d->anims.count; a++) {
        const iqe_anim *an = &IQE_AT(d->anims, iqe_anim, a);
        decoded += (uint64_t)an->num_frames * nj * sizeof(ossa_transform);
        if (decoded > ossa__decode_limit(d->size))
            return ossa__fail_line(b->error, OSSA_ERROR_UNSUPPORTED, an->line, 1,
                                   "the animations would decode to %llu MiB, out of proportion "
                                   "to a %zu-byte file (limit %llu MiB)",
                                   (unsigned long long)(decoded >> 20), d->size,
                                   (unsigned long long)(ossa__decode_limit(d->size) >> 20));
    }
    iqe_chunk *chunk = d->chunks;
    uint32_t at = 0;     /* float position in the chunk */
    uint64_t pose = 0;   /* pose number, for the scale bitmap */
    for (size_t a = 0; a < d->anims.count; a++) {
        const iqe_anim *an = &IQE_AT(d->anims, iqe_anim, a);
        ossa_animation *out =
            ossa_model_add_animation(b->m, ossa__iqe_str(d, an->name), an->num_frames,
                                     an->framerate, an->loop ? OSSA_ANIMATION_LOOP : 0, b->error);
        if (!out) return OSSA_FAILED;
        uint32_t short_frames = 0, long_frames = 0, short_line = 0, long_line = 0;
        for (uint32_t f = 0; f < an->num_frames; f++) {
            const iqe_frame *fr = &IQE_AT(d->frames, iqe_frame, an->first_frame + f);
            ossa_transform *dst = out->frames + (size_t)f * nj;
            if (fr->count < nj && !short_frames++) short_line = fr->line;
            if (fr->count > nj && !long_frames++) long_line = fr->line;
            for (uint32_t k = 0; k < fr->count; k++, pose++) {
                if (at == chunk->count) { /* consumed: free it */
                    iqe_chunk *next = chunk->next;
                    ossa__free(d->allocator, chunk, sizeof *chunk);
                    d->chunks = chunk = next;
                    at = 0;
                }
                const float *p = chunk->v + at;
                bool scaled = (d->scaled.data[pose >> 3] >> (pose & 7)) & 1;
                at += scaled ? 10 : 7;
                if (k >= nj) continue;
                ossa_transform *t = &dst[b->remap[k]];
                memcpy(t->translation, p, 3 * sizeof(float));
                memcpy(t->rotation, p + 3, 4 * sizeof(float));
                if (scaled)
                    memcpy(t->scale, p + 7, 3 * sizeof(float));
                else
                    t->scale[0] = t->scale[1] = t->scale[2] = 1;
            }
        }
        if (short_frames)
            ossa__warn(b->m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, short_line, 0,
                       "animation '%s': %u frames have fewer poses than the %u joints: padded "
                       "with the base pose",
                       out->name, short_frames, nj);
        if (long_frames)
            ossa__warn(b->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, long_line, 0,
                       "animation '%s': %u frames have more poses than the %u joints: the extra "
                       "ones are ignored",
                       out->name, long_frames, nj);
    }
    return OSSA_OK;
}

ossa_status ossa__iqe_build(ossa_model *m, iqe_doc *d, const ossa_load_options *options,
                            ossa_error *error)
{
    (void)options;
    builder b;
    memset(&b, 0, sizeof b);
    b.m = m;
    b.d = d;
    b.error = error;
    b.alloc = d->allocator;
    b.nv = (uint32_t)d->pos.count;
    b.nj = (uint32_t)d->joints.count;
    b.influences = d->influences;
    b.has[OSSA_VERTEX_POSITION] = d->pos.count > 0;
    b.has[OSSA_VERTEX_TEXCOORD] = d->tc.count > 0;
    b.has[OSSA_VERTEX_TANGENT] = d->tan.count > 0;
    b.has[OSSA_VERTEX_BLENDINDEXES] = b.has[OSSA_VERTEX_BLENDWEIGHTS] = d->blend.count > 0;
    b.has[OSSA_VERTEX_COLOR] = d->color.count > 0;
    for (int i = 0; i < IQE_NUM_CUSTOM; i++) b.has[IQE_SLOT_CUSTOM0 + i] = d->custom[i].count > 0;
    const iqe_decl *di = &d->decl[OSSA_VERTEX_BLENDINDEXES], *dw = &d->decl[OSSA_VERTEX_BLENDWEIGHTS];
    if (di->declared && di->has_size && di->size < b.influences) b.influences = di->size;
    if (dw->declared && dw->has_size && dw->size < b.influences) b.influences = dw->size;

    ossa_status st = check_counts(&b);
    if (!st) st = build_joints(&b);
    if (!st) st = build_geometry(&b);
    /* The face lists are no longer needed; the pose chunks are freed as
     * the frames are filled. */
    ossa__iqe_vec_free(b.alloc, &d->tris);
    ossa__iqe_vec_free(b.alloc, &d->face_n);
    if (!st) st = build_animations(&b);
    if (!st && d->has_comment && d->comment_size)
        st = ossa_model_set_comment(m, d->comment, d->comment_size, error);
    tfree(&b, b.remap);
    return st;
}
