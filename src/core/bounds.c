/* Per-frame bounds of the skinned mesh (docs/formats/iqm.md §9).
 *
 * EXACT skins every vertex with linear blend skinning in double precision.
 * CONSERVATIVE moves, for every joint, the bind-space box of the vertices it
 * influences by that joint's skinning matrix and takes the union. A skinned
 * vertex is a convex combination (weights summing to 1) of its influences'
 * transformed positions, each inside its joint's moved box, so it lies inside
 * the union: the result always contains the exact box, at O(joints) per
 * frame instead of O(vertices). */
#include "core/internal.h"

#include <math.h>

typedef struct skin_data {
    uint32_t nv, nj;
    float *pos;     /* 3 per vertex */
    float *idx;     /* 4 per vertex */
    float *wgt;     /* 4 per vertex */
    float *inv_bind; /* 16 per joint */
    float *world;    /* 16 per joint */
    float *skin;     /* 16 per joint */
    const ossa_model *model; /* whose allocator holds the buffers */
} skin_data;

static void skin_free(skin_data *s)
{
    ossa__temp_free(s->model, s->pos);
    ossa__temp_free(s->model, s->idx);
    ossa__temp_free(s->model, s->wgt);
    ossa__temp_free(s->model, s->inv_bind);
    ossa__temp_free(s->model, s->world);
    ossa__temp_free(s->model, s->skin);
}

static ossa_status read_channel(const ossa_model *m, ossa_vertex_type type, uint32_t want, float *out)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    float tmp[OSSA_MAX_COMPONENTS];
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        for (uint32_t c = 0; c < want; c++) out[(size_t)v * want + c] = 0;
        if (!a) continue;
        ossa_vertex_array_read(m, a, v, 1, tmp);
        for (uint32_t c = 0; c < want && c < a->size; c++) out[(size_t)v * want + c] = tmp[c];
    }
    return OSSA_OK;
}

static ossa_status skin_setup(const ossa_model *m, skin_data *s, ossa_error *error)
{
    memset(s, 0, sizeof *s);
    s->model = m;
    s->nv = m->num_vertices;
    s->nj = m->num_joints;
    s->pos = ossa__temp_alloc(m, ((size_t)s->nv + 1) * 3 * sizeof(float));
    s->idx = ossa__temp_alloc(m, ((size_t)s->nv + 1) * 4 * sizeof(float));
    s->wgt = ossa__temp_alloc(m, ((size_t)s->nv + 1) * 4 * sizeof(float));
    s->inv_bind = ossa__temp_alloc(m, ((size_t)s->nj + 1) * 16 * sizeof(float));
    s->world = ossa__temp_alloc(m, ((size_t)s->nj + 1) * 16 * sizeof(float));
    s->skin = ossa__temp_alloc(m, ((size_t)s->nj + 1) * 16 * sizeof(float));
    ossa_transform *bind = ossa__temp_alloc(m, ((size_t)s->nj + 1) * sizeof *bind);
    if (!s->pos || !s->idx || !s->wgt || !s->inv_bind || !s->world || !s->skin || !bind) {
        ossa__temp_free(m, bind);
        skin_free(s);
        return ossa__fail_nomem(error);
    }
    read_channel(m, OSSA_VERTEX_POSITION, 3, s->pos);
    read_channel(m, OSSA_VERTEX_BLENDINDEXES, 4, s->idx);
    read_channel(m, OSSA_VERTEX_BLENDWEIGHTS, 4, s->wgt);
    for (uint32_t j = 0; j < s->nj; j++) bind[j] = m->joints[j].bind;
    ossa_local_to_model(m, bind, (float(*)[16])s->world);
    for (uint32_t j = 0; j < s->nj; j++)
        if (!ossa__mat4_invert_affine(s->world + 16 * j, s->inv_bind + 16 * j)) {
            /* A singular bind pose (zero scale): such a joint cannot move
             * vertices sensibly; treat its inverse as identity. */
            memset(s->inv_bind + 16 * j, 0, 16 * sizeof(float));
            s->inv_bind[16 * j] = s->inv_bind[16 * j + 5] = s->inv_bind[16 * j + 10] =
                s->inv_bind[16 * j + 15] = 1;
        }
    ossa__temp_free(m, bind);
    return OSSA_OK;
}

static void skin_frame(const ossa_model *m, skin_data *s, const ossa_transform *local)
{
    ossa_local_to_model(m, local, (float(*)[16])s->world);
    for (uint32_t j = 0; j < s->nj; j++)
        ossa__mat4_mul(s->world + 16 * j, s->inv_bind + 16 * j, s->skin + 16 * j);
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

static void transform_point(const float *mat, const float *v, double out[3])
{
    for (int r = 0; r < 3; r++)
        out[r] = (double)mat[r] * v[0] + (double)mat[4 + r] * v[1] + (double)mat[8 + r] * v[2] +
                 mat[12 + r];
}

static void exact_frame(const skin_data *s, ossa_bounds *b)
{
    extent e;
    extent_reset(&e);
    for (uint32_t v = 0; v < s->nv; v++) {
        const float *p = s->pos + (size_t)v * 3;
        double acc[3] = {0, 0, 0}, wsum = 0;
        for (int k = 0; k < 4; k++) {
            double w = s->wgt[(size_t)v * 4 + k];
            float fi = s->idx[(size_t)v * 4 + k];
            if (w <= 0 || !(fi >= 0) || fi >= (float)s->nj) continue;
            double q[3];
            transform_point(s->skin + 16 * (size_t)fi, p, q);
            for (int c = 0; c < 3; c++) acc[c] += w * q[c];
            wsum += w;
        }
        if (wsum > 0) {
            for (int c = 0; c < 3; c++) acc[c] /= wsum;
        } else {
            for (int c = 0; c < 3; c++) acc[c] = p[c];
        }
        extent_add(&e, acc);
    }
    extent_finish(&e, b);
}

/* Bind-space boxes: one per joint over the vertices it influences, plus one
 * (index nj) for vertices with no influence, which stay where they are. */
static float *joint_boxes(const skin_data *s)
{
    float *box = ossa__temp_alloc(s->model, ((size_t)s->nj + 1) * 6 * sizeof(float));
    if (!box) return NULL;
    for (uint32_t j = 0; j <= s->nj; j++) {
        for (int c = 0; c < 3; c++) {
            box[j * 6 + c] = INFINITY;
            box[j * 6 + 3 + c] = -INFINITY;
        }
    }
    for (uint32_t v = 0; v < s->nv; v++) {
        const float *p = s->pos + (size_t)v * 3;
        bool any = false;
        for (int k = 0; k < 4; k++) {
            float w = s->wgt[(size_t)v * 4 + k], fi = s->idx[(size_t)v * 4 + k];
            if (w <= 0 || !(fi >= 0) || fi >= (float)s->nj) continue;
            any = true;
            float *b = box + (size_t)fi * 6;
            for (int c = 0; c < 3; c++) {
                if (p[c] < b[c]) b[c] = p[c];
                if (p[c] > b[3 + c]) b[3 + c] = p[c];
            }
        }
        if (!any) {
            float *b = box + (size_t)s->nj * 6;
            for (int c = 0; c < 3; c++) {
                if (p[c] < b[c]) b[c] = p[c];
                if (p[c] > b[3 + c]) b[3 + c] = p[c];
            }
        }
    }
    return box;
}

static void conservative_frame(const skin_data *s, const float *box, ossa_bounds *b)
{
    static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    extent e;
    extent_reset(&e);
    for (uint32_t j = 0; j <= s->nj; j++) {
        const float *bx = box + (size_t)j * 6;
        if (bx[0] > bx[3]) continue; /* no vertex */
        const float *mat = j < s->nj ? s->skin + 16 * (size_t)j : identity;
        for (int corner = 0; corner < 8; corner++) {
            float p[3] = {bx[(corner & 1) ? 3 : 0], bx[(corner & 2) ? 4 : 1],
                          bx[(corner & 4) ? 5 : 2]};
            double q[3];
            transform_point(mat, p, q);
            extent_add(&e, q);
        }
    }
    extent_finish(&e, b);
}

ossa_status ossa_model_compute_bounds(const ossa_model *m, uint32_t animation, ossa_bounds_mode mode,
                                ossa_bounds *out, ossa_error *error)
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
    if (!ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "bounds need vertex positions");
    skin_data s;
    if (skin_setup(m, &s, error) != OSSA_OK) return OSSA_FAILED;
    float *box = NULL;
    if (mode != OSSA_BOUNDS_EXACT && !(box = joint_boxes(&s))) {
        skin_free(&s);
        return ossa__fail_nomem(error);
    }
    for (uint32_t f = 0; f < an->num_frames; f++) {
        skin_frame(m, &s, an->frames + (size_t)f * m->num_joints);
        if (box)
            conservative_frame(&s, box, &out[f]);
        else
            exact_frame(&s, &out[f]);
    }
    ossa__temp_free(m, box);
    skin_free(&s);
    return OSSA_OK;
}
