/* A model with a rest pose (ossa_model.rest_pose) as a format with one
 * pose sees it (docs/formats/gltf.md §9): the mesh skinned into the rest
 * pose, which becomes the bind pose, so that the file looks at rest as the
 * source looks in a glTF viewer and plays its animations as it did.
 *
 * Skinning by K_j = rest_j * inverse(bind_j) (model space) moves each
 * vertex to where the viewer draws it at rest. In a frame F the new file
 * draws sum_i w_i F_i rest_i^-1 v', the source sum_i w_i F_i bind_i^-1 v:
 * the same whenever a vertex's joints share one K (CesiumMan, whose rest
 * pose is its bind pose turned upright, BrainStem, whose vertices each
 * follow one joint), else off by up to how far apart the K_i v of its
 * joints lie. Where that exceeds 1e-4 of the mesh's size (Wizard: bound in
 * a T-pose, resting with its arms down), writers keep the mesh in its bind
 * pose and leave the rest pose out, with a warning: exact animations
 * matter more than the look without one. ossa_model_apply_rest_pose
 * re-poses regardless. */
#include "core/rest_pose.h"

#include <math.h>
#include <stdio.h>

/* Model-space matrices of a pose, in double. */
static void pose_world(const ossa_model *m, bool rest, double (*out)[16])
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double l[16];
        ossa__transform_to_mat4d(rest ? ossa__rest(m, j) : &m->joints[j].bind, l);
        int32_t p = m->joints[j].parent;
        if (p >= 0 && (uint32_t)p < j)
            ossa__mat4d_mul(out[p], l, out[j]);
        else
            memcpy(out[j], l, sizeof l);
    }
}

/* Per joint: K = rest * inverse(bind) and the inverse transpose of its
 * 3x3 part (for normals), as two matrices in a row. */
static void skin_matrices(const ossa_model *m, double (*k)[16], double (*tmp)[16])
{
    uint32_t n = m->num_joints;
    pose_world(m, false, tmp);
    pose_world(m, true, k);
    for (uint32_t j = 0; j < n; j++) {
        double inv[16];
        if (!ossa__mat4d_invert_affine(tmp[j], inv))
            for (int c = 0; c < 16; c++) inv[c] = c % 5 == 0;
        ossa__mat4d_mul(k[j], inv, tmp[j]);
    }
    for (uint32_t j = 0; j < n; j++) {
        memcpy(k[2 * (size_t)j], tmp[j], sizeof tmp[j]);
        double inv[16], *nm = k[2 * (size_t)j + 1];
        if (!ossa__mat4d_invert_affine(tmp[j], inv)) memcpy(inv, tmp[j], sizeof inv);
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) nm[c * 4 + r] = inv[r * 4 + c];
    }
}

static void apply(const double m[16], const double in[3], bool point, double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = m[r] * in[0] + m[4 + r] * in[1] + m[8 + r] * in[2] + (point ? m[12 + r] : 0);
}

/* One vertex's influences, weights normalized to sum 1 (the skinned
 * vertex then stays exact where every K is one matrix); 0 = none. */
static uint32_t influences(const float *idx, const float *wgt, uint32_t size, uint32_t joints,
                           uint32_t *j, double *w)
{
    double sum = 0;
    uint32_t n = 0;
    for (uint32_t c = 0; c < size; c++)
        if (wgt[c] > 0 && idx[c] >= 0 && idx[c] < (float)joints) {
            j[n] = (uint32_t)idx[c];
            w[n] = wgt[c];
            sum += wgt[c];
            n++;
        }
    for (uint32_t c = 0; c < n; c++) w[c] /= sum;
    return sum > 0 ? n : 0;
}

static bool moves(const ossa_vertex_array *a)
{
    return a->size >= 3 && (a->type == OSSA_VERTEX_POSITION || a->type == OSSA_VERTEX_NORMAL ||
                            a->type == OSSA_VERTEX_TANGENT ||
                            (a->type == OSSA_VERTEX_CUSTOM && strcmp(a->name, "bitangent") == 0));
}

/* Skins array `a` into `out` (floats, a->size per vertex); for positions
 * also the largest distance between K_i v of one vertex's joints. */
static void skin_array(const ossa_model *m, const ossa_vertex_array *a, const double (*k)[16],
                       const float *idx, const float *wgt, uint32_t bsize, float *out,
                       double *spread)
{
    bool point = a->type == OSSA_VERTEX_POSITION, normal = a->type == OSSA_VERTEX_NORMAL;
    float v[OSSA_MAX_COMPONENTS];
    for (uint32_t i = 0; i < m->num_vertices; i++) {
        float *o = out + (size_t)i * a->size;
        ossa_vertex_array_read(m, a, i, 1, v);
        memcpy(o, v, a->size * sizeof *o);
        uint32_t j[OSSA_MAX_COMPONENTS];
        double w[OSSA_MAX_COMPONENTS], in[3] = {v[0], v[1], v[2]}, sum[3] = {0, 0, 0},
                                          each[OSSA_MAX_COMPONENTS][3];
        uint32_t n = influences(idx + (size_t)i * bsize, wgt + (size_t)i * bsize, bsize,
                                m->num_joints, j, w);
        if (!n) continue; /* not skinned: it stays where it is */
        for (uint32_t c = 0; c < n; c++) {
            apply(k[2 * (size_t)j[c] + (normal ? 1 : 0)], in, point, each[c]);
            for (int r = 0; r < 3; r++) sum[r] += w[c] * each[c][r];
        }
        if (point)
            for (uint32_t c = 0; c < n; c++) {
                double d = sqrt((each[c][0] - sum[0]) * (each[c][0] - sum[0]) +
                                (each[c][1] - sum[1]) * (each[c][1] - sum[1]) +
                                (each[c][2] - sum[2]) * (each[c][2] - sum[2]));
                if (d > *spread) *spread = d;
            }
        double len = point ? 1 : sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
        if (!(len > 0)) len = 1;
        for (int r = 0; r < 3; r++) o[r] = (float)(sum[r] / len);
    }
}

/* The diagonal of the box around the vertices (1 when there is none). */
static double mesh_size(const ossa_model *m, const ossa_vertex_array *pos, const float *data)
{
    double box[6] = {0};
    int any = 0;
    for (uint32_t i = 0; pos && i < m->num_vertices; i++) {
        const float *p = data + (size_t)i * pos->size;
        double q[3] = {p[0], p[1], p[2]};
        if (isfinite(q[0] + q[1] + q[2])) ossa__box_grow(box, q, &any);
    }
    return ossa__box_size(box);
}

static ossa_status skin_arrays(ossa__rest_view *v, const ossa_allocator *alloc, double *spread,
                               ossa_error *error)
{
    const ossa_model *m = v->source;
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    uint32_t bsize = ia && wa ? (ia->size < wa->size ? ia->size : wa->size) : 0;
    size_t nk = (size_t)m->num_joints * 2 + 1, nb = (size_t)m->num_vertices * OSSA_MAX_COMPONENTS + 1;
    double(*k)[16] = ossa__alloc(alloc, nk * sizeof *k);
    double(*tmp)[16] = ossa__alloc(alloc, nk * sizeof *tmp);
    float *idx = bsize ? ossa__alloc(alloc, nb * sizeof *idx) : NULL;
    float *wgt = bsize ? ossa__alloc(alloc, nb * sizeof *wgt) : NULL;
    ossa_status st = OSSA_OK;
    if (!k || !tmp || (bsize && (!idx || !wgt))) st = ossa__fail_nomem(error);
    if (!st && bsize) {
        ossa_vertex_array_read_padded(m, ia, 0, m->num_vertices, bsize, idx);
        ossa_vertex_array_read_padded(m, wa, 0, m->num_vertices, bsize, wgt);
    }
    if (!st) skin_matrices(m, k, tmp);
    for (uint32_t i = 0; !st && bsize && i < m->num_vertex_arrays; i++) {
        ossa_vertex_array *a = &v->arrays[i];
        if (!moves(a)) continue;
        float *out = ossa__alloc(alloc, ((size_t)m->num_vertices * a->size + 1) * sizeof *out);
        if (!out) {
            st = ossa__fail_nomem(error);
            break;
        }
        skin_array(m, &m->vertex_arrays[i], (const double(*)[16])k, idx, wgt, bsize, out, spread);
        a->data = out;
        a->format = OSSA_FLOAT;
        v->owned[v->num_owned++] = out;
        if (a->type == OSSA_VERTEX_POSITION) v->size = mesh_size(m, a, out);
    }
    ossa__free(alloc, k, 0);
    ossa__free(alloc, tmp, 0);
    ossa__free(alloc, idx, 0);
    ossa__free(alloc, wgt, 0);
    return st;
}

ossa_status ossa__rest_view_prepare(const ossa_model *model, const char *format_name,
                                    const ossa_write_options *options, bool force,
                                    ossa__rest_view *out, ossa_error *error)
{
    memset(out, 0, sizeof *out);
    out->source = model;
    out->view = *model;
    out->alloc = options->allocator;
    if (!model->rest_pose || !model->num_joints) return OSSA_OK;
    const ossa_allocator *alloc = options->allocator;
    uint32_t na = model->num_vertex_arrays;
    out->joints = ossa__alloc(alloc, (size_t)model->num_joints * sizeof *out->joints);
    out->arrays = ossa__alloc(alloc, ((size_t)na + 1) * sizeof *out->arrays);
    out->owned = ossa__alloc(alloc, ((size_t)na + 1) * sizeof *out->owned);
    if (!out->joints || !out->arrays || !out->owned) {
        ossa__rest_view_release(out);
        return ossa__fail_nomem(error);
    }
    memcpy(out->joints, model->joints, (size_t)model->num_joints * sizeof *out->joints);
    if (na) memcpy(out->arrays, model->vertex_arrays, (size_t)na * sizeof *out->arrays);
    double spread = 0;
    out->size = 1;
    if (skin_arrays(out, alloc, &spread, error)) {
        ossa__rest_view_release(out);
        return OSSA_FAILED;
    }
    out->view.rest_pose = NULL;
    if (!force && spread > 1e-4 * out->size) {
        /* Re-posed, the mesh would bend otherwise than the source in its
         * animations (Wizard: up to 5% of its size in "Punch"): the mesh
         * stays as it was bound, its animations exact. */
        for (uint32_t i = 0; i < out->num_owned; i++) ossa__free(alloc, out->owned[i], 0);
        out->num_owned = 0;
        ossa__write_warn(options, OSSA_WARNING_DROPPED,
                         "%s holds one pose: the rest pose is left out, the mesh kept in the bind "
                         "pose it was made in (skinned into the rest pose, vertices whose joints "
                         "the two poses move apart, by up to %.2g%% of the mesh's size, would "
                         "bend otherwise than the source in animations)",
                         format_name, 100 * spread / out->size);
        return OSSA_OK;
    }
    for (uint32_t j = 0; j < model->num_joints; j++) out->joints[j].bind = model->rest_pose[j];
    out->view.joints = out->joints;
    out->view.vertex_arrays = out->arrays;
    ossa__write_note(options, "%s holds one pose: the mesh is skinned into the rest pose, which "
                              "becomes the bind pose",
                     format_name);
    return OSSA_OK;
}

void ossa__rest_view_release(ossa__rest_view *v)
{
    for (uint32_t i = 0; v->owned && i < v->num_owned; i++) ossa__free(v->alloc, v->owned[i], 0);
    ossa__free(v->alloc, v->owned, 0);
    ossa__free(v->alloc, v->joints, 0);
    ossa__free(v->alloc, v->arrays, 0);
    v->owned = NULL;
    v->joints = NULL;
    v->arrays = NULL;
    v->num_owned = 0;
}

ossa_status ossa_model_apply_rest_pose(ossa_model *model, ossa_error *error)
{
    ossa__error_clear(error);
    if (!model->rest_pose) return OSSA_OK;
    ossa_write_options quiet;
    memset(&quiet, 0, sizeof quiet);
    quiet.allocator = &model->internal->arena.allocator;
    ossa__rest_view v;
    if (ossa__rest_view_prepare(model, "", &quiet, true, &v, error)) return OSSA_FAILED;
    /* Copies first, so that a failure changes nothing. */
    ossa_status st = OSSA_OK;
    void **copies = ossa__temp_calloc(model, (size_t)model->num_vertex_arrays + 1, sizeof *copies);
    if (!copies) st = ossa__fail_nomem(error);
    for (uint32_t i = 0; i < model->num_vertex_arrays && !st; i++) {
        const ossa_vertex_array *a = &model->vertex_arrays[i];
        if (v.arrays[i].data == a->data) continue; /* not moved */
        size_t bytes = (size_t)model->num_vertices * a->size * sizeof(float);
        copies[i] = ossa__arena_alloc(ossa__model_arena(model), bytes ? bytes : 1);
        if (!copies[i]) st = ossa__fail_nomem(error);
        else memcpy(copies[i], v.arrays[i].data, bytes);
    }
    if (!st) {
        for (uint32_t i = 0; i < model->num_vertex_arrays; i++)
            if (copies[i]) {
                model->vertex_arrays[i].data = copies[i];
                model->vertex_arrays[i].format = OSSA_FLOAT;
            }
        for (uint32_t j = 0; j < model->num_joints; j++) model->joints[j].bind = model->rest_pose[j];
        model->rest_pose = NULL;
        /* Stored boxes were of the mesh as it was bound. */
        for (uint32_t a = 0; a < model->num_animations; a++) model->animations[a].bounds = NULL;
    }
    ossa__temp_free(model, copies);
    ossa__rest_view_release(&v);
    return st;
}
