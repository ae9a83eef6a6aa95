/* Helpers for the demo character's tests (test_demo*.c): the model as
 * cli/demo/ builds it, joints by name, and poses and skinning computed
 * here in double precision from the model's joints, frames and blend data
 * (not by the runtime). Header-only, so each test stays one file. */
#ifndef OSSA_DEMO_TEST_H
#define OSSA_DEMO_TEST_H

#include "support.h"

#include "demo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline ossa_model *dmt_model(void)
{
    ossa_error err;
    ossa_model *m = demo_build_model(&err);
    if (!m) fail_msg("demo_build_model: %s", err.message);
    return m;
}

/* Index of the joint named `name`; fails the test when there is none. */
static inline int dmt_joint(const ossa_model *m, const char *name)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (strcmp(m->joints[j].name, name) == 0) return (int)j;
    fail_msg("no joint named '%s'", name);
    return -1;
}

static inline int dmt_animation(const ossa_model *m, const char *name)
{
    for (uint32_t a = 0; a < m->num_animations; a++)
        if (strcmp(m->animations[a].name, name) == 0) return (int)a;
    fail_msg("no animation named '%s'", name);
    return -1;
}

/* A rigid transform in double: rotation matrix r (row-major) and
 * translation t; scale is taken from the transform too. */
typedef struct dmt_xf {
    double r[3][3], t[3];
} dmt_xf;

static inline dmt_xf dmt_from_transform(const ossa_transform *tr)
{
    double x = tr->rotation[0], y = tr->rotation[1], z = tr->rotation[2], w = tr->rotation[3];
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    dmt_xf o;
    const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) o.r[i][k] = r[i][k] * tr->scale[k];
        o.t[i] = tr->translation[i];
    }
    return o;
}

/* a * b: apply b, then a. */
static inline dmt_xf dmt_mul(const dmt_xf *a, const dmt_xf *b)
{
    dmt_xf o;
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++)
            o.r[i][k] = a->r[i][0] * b->r[0][k] + a->r[i][1] * b->r[1][k] + a->r[i][2] * b->r[2][k];
        o.t[i] = a->r[i][0] * b->t[0] + a->r[i][1] * b->t[1] + a->r[i][2] * b->t[2] + a->t[i];
    }
    return o;
}

static inline void dmt_apply(const dmt_xf *a, const double p[3], double out[3])
{
    double o[3];
    for (int i = 0; i < 3; i++) o[i] = a->r[i][0] * p[0] + a->r[i][1] * p[1] + a->r[i][2] * p[2] + a->t[i];
    memcpy(out, o, sizeof o);
}

/* Inverse of a transform whose r is a rotation (no scale). */
static inline dmt_xf dmt_inverse_rigid(const dmt_xf *a)
{
    dmt_xf o;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) o.r[i][k] = a->r[k][i];
    for (int i = 0; i < 3; i++) o.t[i] = -(o.r[i][0] * a->t[0] + o.r[i][1] * a->t[1] + o.r[i][2] * a->t[2]);
    return o;
}

/* Model-space transforms of every joint for parent-relative `local`
 * (num_joints of them). */
static inline void dmt_world(const ossa_model *m, const ossa_transform *local, dmt_xf *out)
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        dmt_xf l = dmt_from_transform(&local[j]);
        int p = m->joints[j].parent;
        out[j] = p >= 0 ? dmt_mul(&out[p], &l) : l;
    }
}

/* The bind pose's local transforms (malloc'd). */
static inline ossa_transform *dmt_bind_locals(const ossa_model *m)
{
    ossa_transform *l = malloc(m->num_joints * sizeof *l);
    assert_non_null(l);
    for (uint32_t j = 0; j < m->num_joints; j++) l[j] = m->joints[j].bind;
    return l;
}

/* Frame f of animation a, or the bind pose for a < 0: model-space joint
 * positions (num_joints x 3 doubles, malloc'd). */
static inline double *dmt_joint_positions(const ossa_model *m, int a, uint32_t f)
{
    ossa_transform *bind = a < 0 ? dmt_bind_locals(m) : NULL;
    const ossa_transform *local = a < 0 ? bind : &m->animations[a].frames[(size_t)f * m->num_joints];
    dmt_xf *w = malloc(m->num_joints * sizeof *w);
    double *out = malloc(m->num_joints * 3 * sizeof *out);
    assert_true(w && out);
    dmt_world(m, local, w);
    for (uint32_t j = 0; j < m->num_joints; j++) memcpy(&out[j * 3], w[j].t, sizeof w[j].t);
    free(w);
    free(bind);
    return out;
}

/* Vertex array `type` decoded to floats (num_vertices x its size,
 * malloc'd). */
static inline float *dmt_array(const ossa_model *m, ossa_vertex_type type)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    assert_non_null(a);
    float *out = malloc((size_t)m->num_vertices * a->size * sizeof *out);
    assert_non_null(out);
    assert_int_equal(ossa_vertex_array_read(m, a, 0, m->num_vertices, out), OSSA_OK);
    return out;
}

/* The vertices skinned at frame f of animation a (the bind pose for
 * a < 0): num_vertices x 3 doubles, malloc'd. Linear blend skinning with
 * the stored blend indexes and weights (4 per vertex) and the inverse of
 * the bind pose's rigid joint transforms. */
static inline double *dmt_skin(const ossa_model *m, int a, uint32_t f)
{
    uint32_t nv = m->num_vertices, nj = m->num_joints;
    float *pos = dmt_array(m, OSSA_VERTEX_POSITION), *idx = dmt_array(m, OSSA_VERTEX_BLENDINDEXES),
          *wt = dmt_array(m, OSSA_VERTEX_BLENDWEIGHTS);
    double *out = malloc(nv * 3 * sizeof *out);
    dmt_xf *bind = malloc(nj * sizeof *bind), *pose = malloc(nj * sizeof *pose);
    assert_true(out && bind && pose);
    ossa_transform *bl = dmt_bind_locals(m);
    dmt_world(m, bl, bind);
    dmt_world(m, a < 0 ? bl : &m->animations[a].frames[(size_t)f * nj], pose);
    free(bl);
    for (uint32_t j = 0; j < nj; j++) {
        dmt_xf inv = dmt_inverse_rigid(&bind[j]);
        pose[j] = dmt_mul(&pose[j], &inv);
    }
    for (uint32_t v = 0; v < nv; v++) {
        double p[3] = {pos[v * 3], pos[v * 3 + 1], pos[v * 3 + 2]}, sum[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            double w = wt[v * 4 + k], q[3];
            uint32_t j = (uint32_t)idx[v * 4 + k];
            if (w == 0) continue;
            assert_true(j < nj);
            dmt_apply(&pose[j], p, q);
            for (int c = 0; c < 3; c++) sum[c] += w * q[c];
        }
        memcpy(&out[v * 3], sum, sizeof sum);
    }
    free(pos), free(idx), free(wt), free(bind), free(pose);
    return out;
}

#endif /* OSSA_DEMO_TEST_H */
