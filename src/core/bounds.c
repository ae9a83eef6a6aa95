/* Per-frame bounds of the skinned mesh (docs/formats/iqm.md §9).
 *
 * EXACT skins every vertex with linear blend skinning in double precision.
 * CONSERVATIVE moves, for every joint, the box of the vertices it influences
 * (taken into the joint's space by its inverse bind matrix) by the joint's
 * model-space matrix and takes the union. A skinned vertex is a convex
 * combination (weights summing to 1) of its influences' transformed
 * positions, each inside its joint's moved box, so it lies inside the
 * union: the result always contains the exact box, at O(joints) per frame
 * instead of O(vertices), without the skinning matrices. */
#include "core/internal.h"

#include <math.h>

/* The read-only state of a bounds computation, shared by every worker:
 * the vertices (EXACT) or the joints' bind-space boxes (CONSERVATIVE), and
 * the inverse bind matrices. */
static void prep_free(ossa__bounds_prep *p)
{
    ossa__temp_free(p->model, p->pos);
    ossa__temp_free(p->model, p->idx);
    ossa__temp_free(p->model, p->wgt);
    ossa__temp_free(p->model, p->inv_bind);
    ossa__temp_free(p->model, p->box);
    p->pos = p->idx = p->wgt = p->inv_bind = NULL;
    p->box = NULL;
}

void ossa__bounds_release(ossa__bounds_prep *p) { prep_free(p); }

static void transform_point(const float *mat, const float *v, double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = (double)mat[r] * v[0] + (double)mat[4 + r] * v[1] + (double)mat[8 + r] * v[2] +
                 mat[12 + r];
}

/* Joint-space boxes: per joint, the box of the vertices it influences
 * taken into its space by the inverse bind matrix, plus one (index nj) for
 * vertices with no influence, which stay where they are. Kept as centre
 * and half-extent, in double, widened by a relative 1e-6 so that the
 * rounding of the float matrices met later stays inside. */
static void joint_boxes(const ossa__bounds_prep *p, double *box)
{
    for (uint32_t j = 0; j <= p->nj; j++)
        for (int c = 0; c < 3; c++) {
            box[j * 6 + c] = INFINITY;
            box[j * 6 + 3 + c] = -INFINITY;
        }
    for (uint32_t v = 0; v < p->nv; v++) {
        const float *pos = p->pos + (size_t)v * 3;
        bool any = false;
        for (int k = 0; k <= 4; k++) {
            double q[3];
            double *b;
            if (k < 4) {
                float w = p->wgt[(size_t)v * 4 + k], fi = p->idx[(size_t)v * 4 + k];
                if (w <= 0 || !(fi >= 0) || fi >= (float)p->nj) continue;
                any = true;
                transform_point(p->inv_bind + 16 * (size_t)fi, pos, q);
                b = box + (size_t)fi * 6;
            } else {
                if (any) break;
                for (int c = 0; c < 3; c++) q[c] = pos[c];
                b = box + (size_t)p->nj * 6;
            }
            for (int c = 0; c < 3; c++) {
                b[c] = q[c] < b[c] ? q[c] : b[c];
                b[3 + c] = q[c] > b[3 + c] ? q[c] : b[3 + c];
            }
        }
    }
    for (uint32_t j = 0; j <= p->nj; j++) {
        double *b = box + (size_t)j * 6;
        if (!(b[0] <= b[3])) continue; /* no vertex (or not finite): skipped */
        double size = 0;
        for (int c = 0; c < 3; c++) size = fmax(size, fmax(fabs(b[c]), fabs(b[3 + c])));
        for (int c = 0; c < 3; c++) {
            double lo = b[c], hi = b[3 + c];
            b[c] = (lo + hi) / 2;
            b[3 + c] = (hi - lo) / 2 + 1e-6 * size + 1e-30;
        }
    }
}

ossa_status ossa__bounds_prepare(const ossa_model *m, ossa_bounds_mode mode, ossa__bounds_prep *p,
                                 ossa_error *error)
{
    memset(p, 0, sizeof *p);
    if (!ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "bounds need vertex positions");
    p->model = m;
    p->nv = m->num_vertices;
    p->nj = m->num_joints;
    p->exact = mode == OSSA_BOUNDS_EXACT;
    p->pos = ossa__temp_alloc(m, ((size_t)p->nv + 1) * 3 * sizeof(float));
    p->idx = ossa__temp_alloc(m, ((size_t)p->nv + 1) * 4 * sizeof(float));
    p->wgt = ossa__temp_alloc(m, ((size_t)p->nv + 1) * 4 * sizeof(float));
    p->inv_bind = ossa__temp_alloc(m, ((size_t)p->nj + 1) * 16 * sizeof(float));
    if (!p->exact) p->box = ossa__temp_alloc(m, ((size_t)p->nj + 1) * 6 * sizeof(double));
    float *world = ossa__temp_alloc(m, ((size_t)p->nj + 1) * 16 * sizeof(float));
    ossa_transform *bind = ossa__temp_alloc(m, ((size_t)p->nj + 1) * sizeof *bind);
    if (!p->pos || !p->idx || !p->wgt || !p->inv_bind || (!p->exact && !p->box) || !world ||
        !bind) {
        ossa__temp_free(m, world);
        ossa__temp_free(m, bind);
        prep_free(p);
        return ossa__fail_nomem(error);
    }
    static const ossa_vertex_type types[3] = {OSSA_VERTEX_POSITION, OSSA_VERTEX_BLENDINDEXES,
                                              OSSA_VERTEX_BLENDWEIGHTS};
    float *const into[3] = {p->pos, p->idx, p->wgt};
    for (int i = 0; i < 3; i++)
        ossa_vertex_array_read_padded(m, ossa_model_find_array(m, types[i], NULL), 0, m->num_vertices,
                                      i ? 4 : 3, into[i]);
    for (uint32_t j = 0; j < p->nj; j++) bind[j] = m->joints[j].bind;
    ossa_local_to_model(m, bind, (float(*)[16])world);
    for (uint32_t j = 0; j < p->nj; j++)
        if (!ossa__mat4_invert_affine(world + 16 * j, p->inv_bind + 16 * j)) {
            /* A singular bind pose (zero scale): such a joint cannot move
             * vertices sensibly; treat its inverse as identity. */
            memset(p->inv_bind + 16 * j, 0, 16 * sizeof(float));
            p->inv_bind[16 * j] = p->inv_bind[16 * j + 5] = p->inv_bind[16 * j + 10] =
                p->inv_bind[16 * j + 15] = 1;
        }
    ossa__temp_free(m, world);
    ossa__temp_free(m, bind);
    if (!p->exact) {
        /* The boxes are all a conservative frame needs of the vertices. */
        joint_boxes(p, p->box);
        ossa__temp_free(m, p->pos);
        ossa__temp_free(m, p->idx);
        ossa__temp_free(m, p->wgt);
        p->pos = p->idx = p->wgt = NULL;
    }
    return OSSA_OK;
}

size_t ossa__bounds_scratch_floats(const ossa__bounds_prep *p)
{
    return 2 * 16 * ((size_t)p->nj + 1);
}

/* Extremes gathered in double and rounded to float once at the end: float
 * rounding and sqrt are monotonic, so this equals rounding every point,
 * without two square roots per point. */
typedef struct extent {
    double min[3], max[3];
    double xy2, r2; /* largest squared distances from the z axis and the origin */
} extent;

static void extent_reset(extent *e)
{
    for (int k = 0; k < 3; k++) {
        e->min[k] = INFINITY;
        e->max[k] = -INFINITY;
    }
    e->xy2 = e->r2 = 0;
}

static void extent_add(extent *e, const double p[3])
{
    for (int k = 0; k < 3; k++) {
        e->min[k] = p[k] < e->min[k] ? p[k] : e->min[k];
        e->max[k] = p[k] > e->max[k] ? p[k] : e->max[k];
    }
    double xy2 = p[0] * p[0] + p[1] * p[1], r2 = xy2 + p[2] * p[2];
    e->xy2 = xy2 > e->xy2 ? xy2 : e->xy2;
    e->r2 = r2 > e->r2 ? r2 : e->r2;
}

/* As extent_finish, rounded away from the box's inside, so that a
 * conservative box stays one after rounding to float. */
static void extent_finish_outward(const extent *e, ossa_bounds *b)
{
    if (!(e->min[0] <= e->max[0])) {
        memset(b, 0, sizeof *b);
        return;
    }
    for (int k = 0; k < 3; k++) {
        float lo = (float)e->min[k], hi = (float)e->max[k];
        b->min[k] = lo > e->min[k] ? nextafterf(lo, -INFINITY) : lo;
        b->max[k] = hi < e->max[k] ? nextafterf(hi, INFINITY) : hi;
    }
    double xy = sqrt(e->xy2), r = sqrt(e->r2);
    float fxy = (float)xy, fr = (float)r;
    b->xy_radius = fxy < xy ? nextafterf(fxy, INFINITY) : fxy;
    b->radius = fr < r ? nextafterf(fr, INFINITY) : fr;
}

static void extent_finish(const extent *e, ossa_bounds *b)
{
    if (e->min[0] > e->max[0]) {
        memset(b, 0, sizeof *b);
        return;
    }
    for (int k = 0; k < 3; k++) {
        b->min[k] = (float)e->min[k];
        b->max[k] = (float)e->max[k];
    }
    b->xy_radius = (float)sqrt(e->xy2);
    b->radius = (float)sqrt(e->r2);
}

static void exact_frame(const ossa__bounds_prep *p, const float *skin, ossa_bounds *b)
{
    extent e;
    extent_reset(&e);
    for (uint32_t v = 0; v < p->nv; v++) {
        const float *pos = p->pos + (size_t)v * 3;
        double acc[3] = {0, 0, 0}, wsum = 0;
        for (int k = 0; k < 4; k++) {
            double w = p->wgt[(size_t)v * 4 + k];
            float fi = p->idx[(size_t)v * 4 + k];
            if (w <= 0 || !(fi >= 0) || fi >= (float)p->nj) continue;
            double q[3];
            transform_point(skin + 16 * (size_t)fi, pos, q);
            for (int c = 0; c < 3; c++) acc[c] += w * q[c];
            wsum += w;
        }
        if (wsum > 0) {
            for (int c = 0; c < 3; c++) acc[c] /= wsum;
        } else {
            for (int c = 0; c < 3; c++) acc[c] = pos[c];
        }
        extent_add(&e, acc);
    }
    extent_finish(&e, b);
}

/* Each joint's box moved by its model-space matrix: its axis-aligned box
 * from the centre and the matrix's absolute values, its distances from the
 * origin and the z axis at its eight corners. */
static void conservative_frame(const ossa__bounds_prep *p, const float *world, ossa_bounds *b)
{
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    extent e;
    extent_reset(&e);
    for (uint32_t j = 0; j <= p->nj; j++) {
        const double *bx = p->box + (size_t)j * 6;
        if (!(bx[3] >= 0)) continue; /* no vertex: the half-extent stayed -inf */
        const float *m = j < p->nj ? world + 16 * (size_t)j : identity;
        double c[3], axis[3][3];
        for (int r = 0; r < 3; r++) {
            c[r] = m[r] * bx[0] + m[4 + r] * bx[1] + m[8 + r] * bx[2] + m[12 + r];
            for (int k = 0; k < 3; k++) axis[k][r] = m[4 * k + r] * bx[3 + k];
        }
        for (int r = 0; r < 3; r++) {
            double half = fabs(axis[0][r]) + fabs(axis[1][r]) + fabs(axis[2][r]);
            double lo = c[r] - half, hi = c[r] + half;
            e.min[r] = lo < e.min[r] ? lo : e.min[r];
            e.max[r] = hi > e.max[r] ? hi : e.max[r];
        }
        /* The corners: c +- a0 +- a1 +- a2, from the four of the last two. */
        double q[4][3];
        for (int r = 0; r < 3; r++) {
            double u = c[r] + axis[1][r], v = c[r] - axis[1][r];
            q[0][r] = u + axis[2][r];
            q[1][r] = u - axis[2][r];
            q[2][r] = v + axis[2][r];
            q[3][r] = v - axis[2][r];
        }
        double xy2 = e.xy2, r2 = e.r2;
        for (int k = 0; k < 4; k++)
            for (int sign = -1; sign <= 1; sign += 2) {
                double x = q[k][0] + sign * axis[0][0], y = q[k][1] + sign * axis[0][1],
                       z = q[k][2] + sign * axis[0][2];
                double d2 = x * x + y * y;
                xy2 = d2 > xy2 ? d2 : xy2;
                d2 += z * z;
                r2 = d2 > r2 ? d2 : r2;
            }
        e.xy2 = xy2;
        e.r2 = r2;
    }
    extent_finish_outward(&e, b);
}

void ossa__bounds_of_pose(const ossa__bounds_prep *p, const ossa_transform *local, float *scratch,
                          ossa_bounds *out)
{
    float *world = scratch, *skin = scratch + 16 * ((size_t)p->nj + 1);
    ossa_local_to_model(p->model, local, (float(*)[16])world);
    if (!p->exact) {
        conservative_frame(p, world, out);
        return;
    }
    for (uint32_t j = 0; j < p->nj; j++)
        ossa__mat4_mul(world + 16 * j, p->inv_bind + 16 * j, skin + 16 * j);
    exact_frame(p, skin, out);
}

/* One worker's share of an animation's frames. */
typedef struct bounds_job {
    const ossa__bounds_prep *prep;
    const ossa_animation *animation;
    float *scratch; /* per worker */
    ossa_bounds *out;
    uint32_t workers;
} bounds_job;

static void bounds_worker(void *ctx, uint32_t index)
{
    const bounds_job *job = ctx;
    uint32_t nj = job->prep->nj, frames = job->animation->num_frames;
    uint32_t first, end;
    ossa__share(frames, job->workers, index, &first, &end);
    float *scratch = job->scratch + (size_t)index * ossa__bounds_scratch_floats(job->prep);
    for (uint32_t f = first; f < end; f++)
        ossa__bounds_of_pose(job->prep, job->animation->frames + (size_t)f * nj, scratch,
                             &job->out[f]);
}

ossa_status ossa__compute_bounds(const ossa_model *m, uint32_t animation, ossa_bounds_mode mode,
                                 ossa_bounds *out, uint32_t threads, ossa_error *error)
{
    if (animation >= m->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no animation %u", animation);
    const ossa_animation *an = &m->animations[animation];
    if (mode == OSSA_BOUNDS_STORED || mode == OSSA_BOUNDS_NONE) {
        if (!an->bounds)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "animation '%s' has no stored bounds", an->name);
        memcpy(out, an->bounds, (size_t)an->num_frames * sizeof *out);
        return OSSA_OK;
    }
    ossa__bounds_prep prep;
    if (ossa__bounds_prepare(m, mode, &prep, error) != OSSA_OK) return OSSA_FAILED;
    /* A worker per 64 frames at least: fewer are not worth a thread. */
    bounds_job job = {&prep, an, NULL, out, ossa__workers(threads, an->num_frames, 64)};
    job.scratch = ossa__temp_calloc(m, job.workers, ossa__bounds_scratch_floats(&prep) * sizeof(float));
    if (!job.scratch) {
        prep_free(&prep);
        return ossa__fail_nomem(error);
    }
    ossa__parallel(job.workers, bounds_worker, &job);
    ossa__temp_free(m, job.scratch);
    prep_free(&prep);
    return OSSA_OK;
}

ossa_status ossa_model_compute_bounds(const ossa_model *m, uint32_t animation, ossa_bounds_mode mode,
                                ossa_bounds *out, ossa_error *error)
{
    return ossa__compute_bounds(m, animation, mode, out, 1, error);
}
