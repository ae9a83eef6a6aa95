/* Helpers shared by the IQE tests (tests/test_iqe_*.c): loading IQE text
 * with options, expected errors and warnings, reading vertices back and
 * writing other formats. Built on support.h; header-only, so each test
 * stays one executable. */
#ifndef OSSA_IQE_TEST_H
#define OSSA_IQE_TEST_H

#include "support.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline ossa_model *load_opts(const char *text, const ossa_load_options *opts, ossa_error *err)
{
    ossa_load_options o;
    if (opts)
        o = *opts;
    else
        memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQE;
    return ossa_load_memory(text, strlen(text), &o, err);
}

static inline ossa_model *load_with(const char *text, const ossa_load_options *opts)
{
    ossa_error err;
    ossa_model *m = load_opts(text, opts, &err);
    if (!m) {
        char buf[600];
        print_error("load failed: %s\n", ossa_error_format(&err, buf, sizeof buf));
    }
    assert_non_null(m);
    return m;
}

static inline ossa_model *load(const char *text) { return load_with(text, NULL); }

/* Loading must fail with `kind` at line:column. */
static inline void expect_error(const char *text, ossa_code kind, uint32_t line, uint32_t column)
{
    ossa_error err;
    ossa_model *m = load_opts(text, NULL, &err);
    if (m) {
        ossa_model_free(m);
        fail_msg("loading should fail at %u:%u", line, column);
    }
    char buf[600];
    if (err.code != kind || err.line != line || err.column != column)
        print_error("got %s: %s\n", ossa_code_name(err.code),
                    ossa_error_format(&err, buf, sizeof buf));
    assert_int_equal(err.code, kind);
    assert_int_equal(err.line, line);
    assert_int_equal(err.column, column);
}

static inline bool has_warning(const ossa_model *m, const char *needle, uint32_t line)
{
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (strstr(m->warnings[i].message, needle) && (!line || m->warnings[i].line == line))
            return true;
    return false;
}

static inline void near(double a, double b, double tol, const char *what, int line)
{
    if (!(fabs(a - b) <= tol)) fail_msg("line %d: %s: %.9g, expected %.9g", line, what, a, b);
}
#define NEAR(a, b, tol) near((a), (b), (tol), #a, __LINE__)

/* Vertex v of an array as floats. */
static inline void get(const ossa_model *m, ossa_vertex_type type, const char *name, uint32_t v, float *out)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, name);
    assert_non_null(a);
    assert_int_equal(ossa_vertex_array_read(m, a, v, 1, out), OSSA_OK);
}

static inline void expect3(const ossa_model *m, ossa_vertex_type type, uint32_t v, double x, double y,
                    double z, int line)
{
    float f[8];
    get(m, type, NULL, v, f);
    near(f[0], x, 1e-6, "x", line);
    near(f[1], y, 1e-6, "y", line);
    near(f[2], z, 1e-6, "z", line);
}
#define EXPECT3(m, type, v, x, y, z) expect3((m), (type), (v), (x), (y), (z), __LINE__)

static inline const ossa_vertex_array *array(const ossa_model *m, ossa_vertex_type type)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    assert_non_null(a);
    return a;
}

static inline unsigned char *write_fmt(const ossa_model *m, ossa_format f, size_t *size)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = f;
    void *data;
    ossa_error err;
    ossa_status st = ossa_write_memory(m, &o, &data, size, &err);
    if (st) print_error("write failed: %s\n", err.message);
    assert_int_equal(st, OSSA_OK);
    return data;
}

/* q equals (x, y, z, w) up to sign (q and -q are the same rotation). */
static inline void quat_near(const float q[4], double x, double y, double z, double w, double tol,
                             int line)
{
    double s = (q[0] * x + q[1] * y + q[2] * z + q[3] * w) < 0 ? -1 : 1;
    near(q[0], s * x, tol, "qx", line);
    near(q[1], s * y, tol, "qy", line);
    near(q[2], s * z, tol, "qz", line);
    near(q[3], s * w, tol, "qw", line);
}
#define QUAT_NEAR(q, x, y, z, w) quat_near((q), (x), (y), (z), (w), 1e-6, __LINE__)

/* A repeatable random sequence for the tests that patch bytes. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static inline uint64_t rnd(void) { return ts_rand(&rng_state); }
static inline float random_float(void) { return ts_random_float(&rng_state); }

/* $OSSA_SHARED_DIR/data/<rel>: the test is skipped (visibly) when the
 * shared data is missing. */
static inline unsigned char *shared(const char *rel, size_t *size)
{
    return ts_read_shared(rel, size);
}

#endif
