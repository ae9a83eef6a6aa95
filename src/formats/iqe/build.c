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
    uint32_t id;        /* provisional number inside its mesh */
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
        /* The largest influences (sorted while parsing), renormalized;
         * unused slots are joint 0 with weight 0. Weights that already
         * sum to 1 up to their float rounding (half an ulp each, at most
         * 2^-25 below 1) are kept bit for bit: dividing them by their sum
         * would move them by an ulp on every read, and a file written
         * from the model would never read back the same. */
        uint32_t K = d->influences, n = b->influences;
        const unsigned char *r = d->blend.data + (size_t)v * K * 8;
        const uint32_t *ji = (const uint32_t *)r;
        const float *w = (const float *)(r + (size_t)K * 4);
        double sum = 0;
        for (uint32_t k = 0; k < n; k++) sum += w[k] > 0 ? w[k] : 0;
        if (fabs(sum - 1) <= n * 0x1p-25) sum = 1;
        for (uint32_t k = 0; k < n; k++) {
            bool used = sum > 0 && w[k] > 0;
            idx[k] = used ? b->remap[ji[k]] : 0;
            out[k] = used ? (float)(w[k] / sum) : 0.0f;
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

static uint32_t hash_record(const uint32_t *rec, uint32_t words)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = 0; i < words; i++) {
        h ^= rec[i];
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    return (uint32_t)h;
}

/* -- Geometry -- */

static int out_vertex_cmp(const void *a, const void *b)
{
    const out_vertex *x = a, *y = b;
    if (x->first_src != y->first_src) return x->first_src < y->first_src ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

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
    if (d->repeated)
        ossa__warn(b->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, d->repeated_line, 1,
                   "%u triangle%s repeat%s a vertex index and %s dropped (the first on this line)",
                   d->repeated, d->repeated == 1 ? "" : "s", d->repeated == 1 ? "s" : "",
                   d->repeated == 1 ? "is" : "are");
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

typedef struct mesh_range {
    uint32_t group, first_vertex, num_vertices, first_triangle, num_triangles;
} mesh_range;

static ossa_status build_geometry(builder *b)
{
    iqe_doc *d = b->d;
    const iqe_tri *tris = (const iqe_tri *)d->tris.data;
    size_t nt = d->tris.count, ng = d->groups.count;
    if (!nt) return OSSA_OK;
    geometry_warnings(b);

    b->normals = true;
    if (!d->nrm.count) {
        b->corner_normals = talloc(b, nt * 9, sizeof(float));
        if (!b->corner_normals) return ossa__fail_nomem(b->error);
        if (ossa__iqe_smooth(d, b->corner_normals, b->error)) return OSSA_FAILED;
    }
    b->has[OSSA_VERTEX_NORMAL] = true;
    b->words = record_words(b);

    ossa_status st = OSSA_OK;
    uint32_t *gstart = talloc(b, ng + 2, sizeof *gstart);
    uint32_t *torder = talloc(b, nt, sizeof *torder);
    ossa_triangle *out_tris = NULL;
    out_vertex *ov = NULL;
    uint32_t *perm = NULL, *slots = NULL, *used = NULL, *seen_mesh = NULL, *seen_vertex = NULL;
    uint32_t *rec = talloc(b, (size_t)b->words * 2 + 2, 4), *rec2 = NULL;
    mesh_range *meshes = talloc(b, ng + 1, sizeof *meshes);
    size_t ov_count = 0, ov_cap = 0, slot_cap = 16;
    uint32_t num_meshes = 0, tri_out = 0;
    if (!gstart || !torder || !rec || !meshes) goto nomem;
    rec2 = rec + b->words + 1; /* only once rec exists: no arithmetic on NULL */

    /* Triangles of each group in file order (counting sort); runs give
     * each triangle its group, and triangles with a repeated index go. */
    memset(gstart, 0, (ng + 2) * sizeof *gstart);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t r = 0; r < d->runs.count; r++) {
            const iqe_run *run = &IQE_AT(d->runs, iqe_run, r);
            size_t e = r + 1 < d->runs.count ? IQE_AT(d->runs, iqe_run, r + 1).first : nt;
            for (size_t t = run->first; t < e; t++) {
                if (ossa__iqe_degenerate(&tris[t])) continue;
                if (pass == 0)
                    gstart[run->group + 1]++;
                else
                    torder[gstart[run->group]++] = (uint32_t)t;
            }
        }
        if (pass == 0)
            for (size_t i = 0; i < ng; i++) gstart[i + 1] += gstart[i];
    }
    /* gstart[g] is now the end of group g. */
    size_t total = ng ? gstart[ng - 1] : 0, largest = 0;
    for (size_t i = 0; i < ng; i++) {
        size_t c = gstart[i] - (i ? gstart[i - 1] : 0);
        if (c > largest) largest = c;
    }
    if (!total) goto done;
    while (slot_cap < largest * 3 * 2) slot_cap *= 2;
    out_tris = talloc(b, total, sizeof *out_tris);
    slots = talloc(b, slot_cap, sizeof *slots);
    used = talloc(b, largest * 3 + 1, sizeof *used);
    perm = talloc(b, largest * 3 + 1, sizeof *perm);
    if (!out_tris || !slots || !used || !perm) goto nomem;
    memset(slots, 0, slot_cap * sizeof *slots);
    if (!b->corner_normals) {
        /* Normals per vertex: every corner of a file vertex in a mesh is
         * the same vertex, found without hashing the second time. */
        seen_mesh = talloc(b, (size_t)b->nv + 1, sizeof *seen_mesh);
        seen_vertex = talloc(b, (size_t)b->nv + 1, sizeof *seen_vertex);
        if (!seen_mesh || !seen_vertex) goto nomem;
        memset(seen_mesh, 0xff, ((size_t)b->nv + 1) * sizeof *seen_mesh);
    }

    for (size_t gi = 0; gi < ng; gi++) {
        uint32_t tb = gi ? gstart[gi - 1] : 0, te = gstart[gi];
        if (tb == te) continue;
        size_t base = ov_count;
        uint32_t nused = 0, local = 0;
        if (base + (size_t)(te - tb) * 3 > UINT32_MAX) {
            st = ossa__fail(b->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET, "too many vertices");
            goto done;
        }
        if (base + (size_t)(te - tb) * 3 > ov_cap) {
            size_t cap = ov_cap ? ov_cap : 1024;
            while (cap < base + (size_t)(te - tb) * 3) cap *= 2;
            out_vertex *n = talloc(b, cap, sizeof *n);
            if (!n) goto nomem;
            if (ov_count) memcpy(n, ov, ov_count * sizeof *n);
            tfree(b, ov);
            ov = n;
            ov_cap = cap;
        }
        out_vertex *mv = ov + base;
        for (uint32_t i = tb; i < te; i++) {
            uint32_t t = torder[i];
            uint32_t *tv = out_tris[tri_out + (i - tb)].v;
            for (uint32_t k = 0; k < 3; k++) {
                uint32_t v = tris[t].v[k], corner = t * 3 + k, id;
                bool merged = false;
                if (seen_mesh && seen_mesh[v] == num_meshes) {
                    id = seen_vertex[v];
                } else {
                    make_record(b, v, corner, rec);
                    size_t s = hash_record(rec, b->words) & (slot_cap - 1);
                    for (;;) {
                        if (!slots[s]) { /* a new vertex */
                            id = local++;
                            mv[id].src = v;
                            mv[id].corner = corner;
                            mv[id].first_src = v;
                            mv[id].id = id;
                            slots[s] = id + 1;
                            used[nused++] = (uint32_t)s;
                            break;
                        }
                        id = slots[s] - 1;
                        make_record(b, mv[id].src, mv[id].corner, rec2);
                        if (memcmp(rec, rec2, (size_t)b->words * 4) == 0) {
                            merged = true;
                            break;
                        }
                        s = (s + 1) & (slot_cap - 1);
                    }
                }
                if ((k > 0 && tv[0] == id) || (k > 1 && tv[1] == id)) {
                    /* Two distinct file vertices of one triangle with
                     * identical attributes stay two vertices: merged, the
                     * triangle would repeat a vertex, and readers (this
                     * one too) drop such triangles, so that a conversion
                     * chain would lose them on the next read (§4). */
                    id = local++;
                    mv[id].src = v;
                    mv[id].corner = corner;
                    mv[id].first_src = v;
                    mv[id].id = id;
                } else {
                    if (merged && v < mv[id].first_src) mv[id].first_src = v;
                    if (seen_mesh && seen_mesh[v] != num_meshes) {
                        seen_mesh[v] = num_meshes;
                        seen_vertex[v] = id;
                    }
                }
                tv[k] = id;
            }
        }
        for (uint32_t i = 0; i < nused; i++) slots[used[i]] = 0;
        /* File order: by the first file vertex, then renumber. */
        qsort(mv, local, sizeof *mv, out_vertex_cmp);
        for (uint32_t i = 0; i < local; i++) perm[mv[i].id] = i;
        for (uint32_t i = tri_out; i < tri_out + (te - tb); i++)
            for (int k = 0; k < 3; k++) out_tris[i].v[k] = (uint32_t)base + perm[out_tris[i].v[k]];
        mesh_range *mr = &meshes[num_meshes++];
        mr->group = (uint32_t)gi;
        mr->first_vertex = (uint32_t)base;
        mr->num_vertices = local;
        mr->first_triangle = tri_out;
        mr->num_triangles = te - tb;
        ov_count = base + local;
        tri_out += te - tb;
    }
    /* Face lists are done with: free them before the model grows. */
    tfree(b, slots), slots = NULL;
    tfree(b, used), used = NULL;
    tfree(b, seen_mesh), seen_mesh = NULL;
    tfree(b, seen_vertex), seen_vertex = NULL;
    tfree(b, torder), torder = NULL;

    if (ossa_model_set_num_vertices(b->m, (uint32_t)ov_count, b->error) ||
        ossa_model_set_triangles(b->m, tri_out, out_tris, b->error)) {
        st = OSSA_FAILED;
        goto done;
    }
    tfree(b, out_tris), out_tris = NULL;
    if (add_arrays(b, ov, ov_count)) {
        st = OSSA_FAILED;
        goto done;
    }
    for (uint32_t i = 0; i < num_meshes; i++) {
        const mesh_range *mr = &meshes[i];
        const iqe_group *grp = &IQE_AT(d->groups, iqe_group, mr->group);
        if (ossa_model_add_mesh(b->m, ossa__iqe_str(d, grp->name), ossa__iqe_str(d, grp->material),
                                mr->first_vertex, mr->num_vertices, mr->first_triangle,
                                mr->num_triangles, b->error) < 0) {
            st = OSSA_FAILED;
            goto done;
        }
    }
    goto done;
nomem:
    st = ossa__fail_nomem(b->error);
done:
    tfree(b, gstart);
    tfree(b, torder);
    tfree(b, out_tris);
    tfree(b, ov);
    tfree(b, perm);
    tfree(b, slots);
    tfree(b, used);
    tfree(b, seen_mesh);
    tfree(b, seen_vertex);
    tfree(b, rec);
    tfree(b, meshes);
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
