/* Helpers shared by the IQE tests (tests/test_iqe_*.c): loading IQE text
 * with options, expected errors and warnings, reading vertices back and
 * writing other formats. The text-format helpers (text_format_test.h)
 * with the format fixed to IQE; header-only, so each test stays one
 * executable. */
#ifndef OSSA_IQE_TEST_H
#define OSSA_IQE_TEST_H

#include "text_format_test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline ossa_model *load_opts(const char *text, const ossa_load_options *opts, ossa_error *err)
{
    return tf_try(OSSA_FORMAT_IQE, text, strlen(text), opts, err);
}

static inline ossa_model *load_with(const char *text, const ossa_load_options *opts)
{
    return tf_load_with(OSSA_FORMAT_IQE, text, opts);
}

static inline ossa_model *load(const char *text) { return load_with(text, NULL); }

/* Loading must fail with `kind` at line:column. */
#define expect_error(text, kind, line, column)                                                     \
    tf_expect_error(OSSA_FORMAT_IQE, (text), (kind), (line), (column), NULL, __LINE__)

static inline bool has_warning(const ossa_model *m, const char *needle, uint32_t line)
{
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (strstr(m->warnings[i].message, needle) && (!line || m->warnings[i].line == line))
            return true;
    return false;
}

#define NEAR TF_NEAR

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
    tf_near(f[0], x, 1e-6, "x", line);
    tf_near(f[1], y, 1e-6, "y", line);
    tf_near(f[2], z, 1e-6, "z", line);
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
#define QUAT_NEAR(q, x, y, z, w) TF_QUAT((q), (x), (y), (z), (w), 1e-6)

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
