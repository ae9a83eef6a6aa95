/* Helpers shared by the illEngine tests (tests/test_ill_*.c): loading
 * text or bytes with options, expected errors and warnings, reading vertex
 * arrays back, building binary files byte by byte, and a few matrix and
 * quaternion computations written here from docs/formats/ill.md, independent of
 * the library. Header-only: each test is one executable. */
#ifndef OSSA_ILL_TEST_H
#define OSSA_ILL_TEST_H

#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -- Loading ------------------------------------------------------------------ */

/* `options`: format options as ts_options_parse reads them ("ill.encoding=text"), or NULL. */
static inline ossa_model *it_try(const void *data, size_t size, const char *options, float fps,
                                 const char *name, ossa_error *err)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    ts_options opts;
    ts_options_parse(&opts, options);
    o.format_options = opts.list;
    o.num_format_options = opts.count;
    o.framerate = fps;
    o.file_name = name;
    memset(err, 0, sizeof *err);
    return ossa_load_memory(data, size, &o, err);
}

static inline ossa_model *it_load_bytes(const void *data, size_t size, const char *options,
                                        const char *name)
{
    ossa_error err;
    ossa_model *m = it_try(data, size, options, 0, name, &err);
    if (!m) {
        char buf[600];
        print_error("load failed: %s\n", ossa_error_format(&err, buf, sizeof buf));
    }
    assert_non_null(m);
    return m;
}

static inline ossa_model *it_load(const char *text, const char *options, const char *name)
{
    return it_load_bytes(text, strlen(text), options, name);
}

/* Loading must fail with `kind` at line:column (text) or at `offset`
 * (binary, line 0). */
static inline void it_expect_error_at(const void *data, size_t size, const char *options,
                                      ossa_code kind, uint32_t line, uint32_t column,
                                      uint64_t offset, const char *needle, int at_line)
{
    ossa_error err;
    ossa_model *m = it_try(data, size, options, 0, "t", &err);
    char buf[600];
    if (m) {
        ossa_model_free(m);
        fail_msg("line %d: loading should fail", at_line);
    }
    bool ok = err.code == kind && err.line == line && err.column == column &&
              (line || err.offset == offset) && (!needle || strstr(err.message, needle));
    if (!ok) {
        print_error("line %d: got %s: %s\n", at_line, ossa_code_name(err.code),
                    ossa_error_format(&err, buf, sizeof buf));
        fail_msg("line %d: expected %s at %u:%u / byte %llu%s%s", at_line,
                 ossa_code_name(kind), line, column, (unsigned long long)offset,
                 needle ? " with " : "", needle ? needle : "");
    }
}
#define IT_TEXT_ERROR(text, options, kind, line, column, needle)                                     \
    it_expect_error_at((text), strlen(text), (options), (kind), (line), (column), 0, (needle),       \
                       __LINE__)
#define IT_BYTES_ERROR(data, size, options, kind, offset, needle)                                    \
    it_expect_error_at((data), (size), (options), (kind), 0, 0, (offset), (needle), __LINE__)

static inline bool it_has_warning(const ossa_model *m, const char *needle)
{
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (strstr(m->warnings[i].message, needle)) return true;
    return false;
}

/* Merges each model into the first, in order; frees the others. */
static inline ossa_model *it_merge(ossa_model *dst, ossa_model *src)
{
    ossa_error err;
    memset(&err, 0, sizeof err);
    if (ossa_model_merge(dst, src, &err) != OSSA_OK) {
        char buf[600];
        print_error("merge failed: %s\n", ossa_error_format(&err, buf, sizeof buf));
        fail();
    }
    ossa_model_free(src);
    return dst;
}

/* Vertex v of the first array of `type` (custom: `name`) as floats. */
static inline void it_vertex(const ossa_model *m, ossa_vertex_type type, const char *name,
                             uint32_t v, float *out)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, name);
    assert_non_null(a);
    assert_int_equal(ossa_vertex_array_read(m, a, v, 1, out), OSSA_OK);
}

static inline int32_t it_joint(const ossa_model *m, const char *name)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (strcmp(m->joints[j].name, name) == 0) return (int32_t)j;
    return -1;
}

static inline void it_near(double a, double b, double tol, const char *what, int line)
{
    if (!(fabs(a - b) <= tol)) fail_msg("line %d: %s: %.9g, expected %.9g", line, what, a, b);
}
#define IT_NEAR(a, b, tol) it_near((a), (b), (tol), #a, __LINE__)

/* -- Binary files byte by byte ------------------------------------------------ */

typedef struct it_bytes {
    unsigned char b[8192];
    size_t n;
} it_bytes;

static inline void it_raw(it_bytes *w, const void *p, size_t n)
{
    assert_true(w->n + n <= sizeof w->b);
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static inline void it_u8(it_bytes *w, unsigned v)
{
    unsigned char c = (unsigned char)v;
    it_raw(w, &c, 1);
}
static inline void it_u16(it_bytes *w, unsigned v)
{
    it_u8(w, v & 0xff);
    it_u8(w, (v >> 8) & 0xff);
}
static inline void it_u16be(it_bytes *w, unsigned v)
{
    it_u8(w, (v >> 8) & 0xff);
    it_u8(w, v & 0xff);
}
static inline void it_u32(it_bytes *w, uint32_t v)
{
    it_u16(w, v & 0xffff);
    it_u16(w, v >> 16);
}
static inline void it_f32(it_bytes *w, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    it_u32(w, u);
}
static inline void it_f32s(it_bytes *w, const float *v, int n)
{
    for (int i = 0; i < n; i++) it_f32(w, v[i]);
}

/* -- Matrices (column-major, element [col*4+row]) and quaternions ------------- */

static inline void it_mat_mul(const double *a, const double *b, double *out)
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + i] * b[c * 4 + k];
            r[c * 4 + i] = s;
        }
    memcpy(out, r, sizeof r);
}

/* Rotation by `deg` degrees about axis 0 (x), 1 (y) or 2 (z), then
 * translation t and uniform-per-axis scale s: T * R * S. */
static inline void it_trs_axis(int axis, double deg, const double t[3], const double s[3],
                               double *m)
{
    double a = deg * 3.14159265358979323846 / 180, c = cos(a), sn = sin(a);
    double r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}; /* r[col*3+row] */
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    r[i * 3 + i] = c;
    r[i * 3 + j] = sn;
    r[j * 3 + i] = -sn;
    r[j * 3 + j] = c;
    /* exact zeros where the angle is a multiple of 90 degrees */
    for (int k = 0; k < 9; k++)
        if (fabs(r[k]) < 1e-12) r[k] = 0;
    memset(m, 0, 16 * sizeof *m);
    for (int col = 0; col < 3; col++)
        for (int row = 0; row < 3; row++) m[col * 4 + row] = r[col * 3 + row] * s[col];
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

/* The quaternion (x y z w) of that rotation. */
static inline void it_quat_axis(int axis, double deg, float q[4])
{
    double h = deg * 3.14159265358979323846 / 360;
    q[0] = q[1] = q[2] = 0;
    q[axis] = (float)sin(h);
    q[3] = (float)cos(h);
}

/* Row-major text of a column-major matrix, "%.9g", 4 lines. */
static inline void it_matrix_text(const double *m, char *out, size_t cap)
{
    size_t n = 0;
    for (int r = 0; r < 4; r++)
        n += (size_t)snprintf(out + n, cap - n, "%.9g %.9g %.9g %.9g\n", m[r], m[4 + r], m[8 + r],
                              m[12 + r]);
}

/* Model-space matrices of a local pose, from the model's parents. */
static inline void it_model_pose(const ossa_model *m, const ossa_transform *local,
                                 double (*out)[16])
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        float f[16];
        double d[16];
        ossa_transform_to_matrix(&local[j], f);
        for (int k = 0; k < 16; k++) d[k] = f[k];
        int32_t p = m->joints[j].parent;
        if (p >= 0)
            it_mat_mul(out[p], d, out[j]);
        else
            memcpy(out[j], d, sizeof d);
    }
}

#endif
