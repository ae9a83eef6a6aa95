/* Helpers shared by the MD5 tests (tests/test_md5_*.c): loading text with
 * a file name and options, expected errors, vertex arrays as floats, and
 * quaternion and pose arithmetic written here from formats/md5.md §3-§4,
 * independent of the library. Header-only: each test is one executable. */
#ifndef OSSA_MD5_TEST_H
#define OSSA_MD5_TEST_H

#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -- Loading ------------------------------------------------------------------ */

static inline ossa_model *mt_try(const void *data, size_t size, const char *name,
                                 uint32_t influences, ossa_error *err)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = name;
    o.max_influences = influences;
    return ossa_load_memory(data, size, &o, err);
}

static inline ossa_model *mt_load_n(const char *text, const char *name, uint32_t influences)
{
    ossa_error err;
    ossa_model *m = mt_try(text, strlen(text), name, influences, &err);
    if (!m) {
        char buf[600];
        print_error("load failed: %s\n", ossa_error_format(&err, buf, sizeof buf));
    }
    assert_non_null(m);
    return m;
}

static inline ossa_model *mt_load(const char *text, const char *name)
{
    return mt_load_n(text, name, 0);
}

/* Loading must fail with `code` at line:column with `needle` in the
 * message. */
static inline void mt_expect_error(const char *text, size_t size, ossa_code code, uint32_t line,
                                   uint32_t column, const char *needle, int at_line)
{
    ossa_error err;
    ossa_model *m = mt_try(text, size, "t.md5mesh", 0, &err);
    char buf[600];
    if (m) {
        ossa_model_free(m);
        fail_msg("line %d: loading should fail", at_line);
    }
    ossa_error_format(&err, buf, sizeof buf);
    if (err.code != code || err.line != line || err.column != column ||
        (needle && !strstr(err.message, needle)))
        fail_msg("line %d: expected %s at %u:%u with \"%s\", got %s: %s", at_line,
                 ossa_code_name(code), line, column, needle ? needle : "", ossa_code_name(err.code),
                 buf);
}
#define MT_ERROR(text, code, line, column, needle)                                                 \
    mt_expect_error((text), strlen(text), (code), (line), (column), (needle), __LINE__)

/* Whether some warning of the model has `code` and contains `needle`. */
static inline bool mt_has_warning(const ossa_model *m, ossa_code code, const char *needle)
{
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (m->warnings[i].code == code && strstr(m->warnings[i].message, needle)) return true;
    return false;
}

/* -- Vertex data -------------------------------------------------------------- */

/* Vertex v of the first array of `type` as floats (0 when absent); returns
 * the array's size. */
static inline uint32_t mt_vertex(const ossa_model *m, ossa_vertex_type type, uint32_t v, float *out)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    if (!a) return 0;
    assert_int_equal(ossa_vertex_array_read(m, a, v, 1, out), OSSA_OK);
    return a->size;
}

/* -- Quaternions in ossa's convention (Hamilton, column vectors) -------------- */

static inline void mt_qmul(const double a[4], const double b[4], double o[4])
{
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

/* Rotation by the matrix of q (normalized), the textbook formula. */
static inline void mt_qrot(const double q[4], const double v[3], double o[3])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double x = q[0] / n, y = q[1] / n, z = q[2] / n, w = q[3] / n;
    double r[3] = {
        (1 - 2 * (y * y + z * z)) * v[0] + 2 * (x * y - w * z) * v[1] + 2 * (x * z + w * y) * v[2],
        2 * (x * y + w * z) * v[0] + (1 - 2 * (x * x + z * z)) * v[1] + 2 * (y * z - w * x) * v[2],
        2 * (x * z - w * y) * v[0] + 2 * (y * z + w * x) * v[1] + (1 - 2 * (x * x + y * y)) * v[2]};
    memcpy(o, r, sizeof r);
}

/* Model-space translation, rotation and scale of every joint of a pose
 * (parent-relative; scales taken as uniform, their x): MT_WORLD doubles
 * per joint, t xyz, q xyzw, s. */
#define MT_WORLD 8
static inline void mt_model_space(const ossa_model *m, const ossa_transform *pose, double *out)
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double t[3] = {pose[j].translation[0], pose[j].translation[1], pose[j].translation[2]};
        double q[4] = {pose[j].rotation[0], pose[j].rotation[1], pose[j].rotation[2],
                       pose[j].rotation[3]};
        double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int i = 0; i < 4; i++) q[i] /= n;
        double *o = out + (size_t)j * MT_WORLD;
        int32_t p = m->joints[j].parent;
        if (p < 0) {
            memcpy(o, t, sizeof t);
            memcpy(o + 3, q, sizeof q);
            o[7] = pose[j].scale[0];
            continue;
        }
        const double *P = out + (size_t)p * MT_WORLD;
        double r[3];
        mt_qrot(P + 3, t, r);
        for (int i = 0; i < 3; i++) o[i] = P[i] + P[7] * r[i];
        mt_qmul(P + 3, q, o + 3);
        o[7] = P[7] * pose[j].scale[0];
    }
}

/* Largest difference of two rotations, q and -q being one. */
static inline double mt_qdist(const double a[4], const double b[4])
{
    double d1 = 0, d2 = 0;
    for (int i = 0; i < 4; i++) {
        d1 = fmax(d1, fabs(a[i] - b[i]));
        d2 = fmax(d2, fabs(a[i] + b[i]));
    }
    return fmin(d1, d2);
}

static inline int32_t mt_joint(const ossa_model *m, const char *name)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (strcmp(m->joints[j].name, name) == 0) return (int32_t)j;
    return -1;
}

static inline ossa_transform *mt_bind_pose(const ossa_model *m)
{
    ossa_transform *t = malloc((m->num_joints + 1) * sizeof *t);
    assert_non_null(t);
    for (uint32_t j = 0; j < m->num_joints; j++) t[j] = m->joints[j].bind;
    return t;
}

#endif
