/* Helpers shared by the SMD, OBJ and IQE tests (tests/test_smd_*.c,
 * tests/test_obj_*.c, and tests/test_iqe_*.c through iqe_test.h):
 * loading text with a format and options, expected errors and warnings,
 * vertex data as floats, writing to memory, and the robustness sweeps
 * (every truncation, random byte patches, every allocation failing,
 * reading and writing) that every reader gets. Header-only, built on
 * support.h. */
#ifndef OSSA_TEXT_FORMAT_TEST_H
#define OSSA_TEXT_FORMAT_TEST_H

#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline ossa_model *tf_try(ossa_format format, const char *text, size_t size,
                                 const ossa_load_options *opts, ossa_error *err)
{
    ossa_load_options o;
    if (opts)
        o = *opts;
    else
        memset(&o, 0, sizeof o);
    o.format = format;
    /* an exact-size copy, so that a sanitizer sees any read past the end */
    char *copy = malloc(size ? size : 1);
    assert_non_null(copy);
    memcpy(copy, text, size);
    ossa_model *m = ossa_load_memory(copy, size, &o, err);
    free(copy);
    return m;
}

static inline ossa_model *tf_load_with(ossa_format format, const char *text,
                                       const ossa_load_options *opts)
{
    ossa_error err;
    ossa_model *m = tf_try(format, text, strlen(text), opts, &err);
    if (!m) {
        char buf[600];
        print_error("load failed: %s\n", ossa_error_format(&err, buf, sizeof buf));
    }
    assert_non_null(m);
    return m;
}

/* Loading must fail with `code` at line:column, with `needle` in the
 * message (NULL: any message). */
static inline void tf_expect_error(ossa_format format, const char *text, ossa_code code,
                                   uint32_t line, uint32_t column, const char *needle, int at)
{
    ossa_error err;
    ossa_model *m = tf_try(format, text, strlen(text), NULL, &err);
    if (m) {
        ossa_model_free(m);
        fail_msg("line %d: loading should fail at %u:%u", at, line, column);
    }
    char buf[600];
    if (err.code != code || err.line != line || err.column != column ||
        (needle && !strstr(err.message, needle)))
        print_error("line %d: got %s: %s\n", at, ossa_code_name(err.code),
                    ossa_error_format(&err, buf, sizeof buf));
    assert_int_equal(err.code, code);
    assert_int_equal(err.line, line);
    assert_int_equal(err.column, column);
    if (needle) assert_non_null(strstr(err.message, needle));
}

/* The first warning with `code` whose message holds `needle`, or NULL. */
static inline const ossa_diagnostic *tf_warning(const ossa_model *m, ossa_code code,
                                                const char *needle)
{
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (m->warnings[i].code == code && strstr(m->warnings[i].message, needle))
            return &m->warnings[i];
    return NULL;
}

static inline void tf_near(double a, double b, double tol, const char *what, int line)
{
    if (!(fabs(a - b) <= tol)) fail_msg("line %d: %s: %.9g, expected %.9g", line, what, a, b);
}
#define TF_NEAR(a, b, tol) tf_near((a), (b), (tol), #a, __LINE__)

/* Vertex v of the model's array of `type` as floats (at least 8 slots). */
static inline void tf_get(const ossa_model *m, ossa_vertex_type type, uint32_t v, float *out)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    assert_non_null(a);
    memset(out, 0, OSSA_MAX_COMPONENTS * sizeof *out);
    assert_int_equal(ossa_vertex_array_read(m, a, v, 1, out), OSSA_OK);
}

/* q equals (x, y, z, w) up to sign. */
static inline void tf_quat(const float q[4], double x, double y, double z, double w, double tol,
                           int line)
{
    double s = (q[0] * x + q[1] * y + q[2] * z + q[3] * w) < 0 ? -1 : 1;
    tf_near(q[0], s * x, tol, "qx", line);
    tf_near(q[1], s * y, tol, "qy", line);
    tf_near(q[2], s * z, tol, "qz", line);
    tf_near(q[3], s * w, tol, "qw", line);
}
#define TF_QUAT(q, x, y, z, w, tol) tf_quat((q), (x), (y), (z), (w), (tol), __LINE__)

/* $OSSA_SHARED_DIR/data/<rel>, loaded with its name (format detected);
 * fails the test when it does not load. */
static inline ossa_model *tf_load_shared(const char *rel)
{
    size_t size;
    unsigned char *data = ts_read_shared(rel, &size);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = rel;
    ossa_error err;
    ossa_model *m = ossa_load_memory(data, size, &o, &err);
    if (!m) fail_msg("%s: %d:%d: %s", rel, (int)err.line, (int)err.column, err.message);
    free(data);
    return m;
}

static inline char *tf_write(const ossa_model *m, const ossa_write_options *opts, size_t *size)
{
    void *data;
    ossa_error err;
    ossa_status st = ossa_write_memory(m, opts, &data, size, &err);
    if (st) print_error("write failed: %s\n", err.message);
    assert_int_equal(st, OSSA_OK);
    /* text for strstr: the buffer may hold exactly `size` bytes */
    char *text = malloc(*size + 1);
    assert_non_null(text);
    memcpy(text, data, *size);
    text[*size] = 0;
    ossa_free(data, opts->allocator);
    return text;
}

/* -- Robustness sweeps -- */

/* Whatever loads must be walkable and writable in `format` (or refused
 * with a code and a message), and what is written must load again. */
static inline void tf_check_model(ossa_model *m, ossa_format format)
{
    ossa_model_validate(m, NULL, NULL, NULL);
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.format = format;
    void *data;
    size_t size;
    ossa_error err;
    if (ossa_write_memory(m, &wo, &data, &size, &err) == OSSA_OK) {
        ossa_load_options lo;
        memset(&lo, 0, sizeof lo);
        lo.format = format;
        ossa_model *again = ossa_load_memory(data, size, &lo, &err);
        if (!again) {
            print_error("%.*s\n", (int)(size < 3000 ? size : 3000), (const char *)data);
            fail_msg("the written file does not load: %d:%d: %s", (int)err.line, (int)err.column,
                     err.message);
        }
        ossa_model_free(again);
        ossa_free(data, NULL);
    } else {
        assert_true(err.code != OSSA_CODE_NONE);
        assert_true(err.message[0] != 0);
    }
}

/* Every prefix of `text` loads or fails with a located error. */
static inline void tf_truncations(ossa_format format, const char *text)
{
    size_t size = strlen(text);
    uint32_t loaded = 0, failed = 0;
    for (size_t n = 0; n < size; n++) {
        ossa_error err;
        ossa_model *m = tf_try(format, text, n, NULL, &err);
        if (m) {
            loaded++;
            tf_check_model(m, format);
            ossa_model_free(m);
            continue;
        }
        failed++;
        if (!err.message[0] || err.code == OSSA_CODE_NONE || err.code > OSSA_ERROR_EXISTS)
            fail_msg("cut at %zu: no error code or message", n);
        /* text errors are located (a file with nothing in it has no line) */
        if (err.code != OSSA_ERROR_NOMEM && n > 0 && err.line == 0)
            fail_msg("cut at %zu: '%s' has no line", n, err.message);
    }
    print_message("%zu prefixes: %u load, %u fail\n", size, loaded, failed);
}

/* Random patches of 1-3 bytes, with characters that matter to text
 * formats most of the time. */
static inline void tf_patches(ossa_format format, const char *text, int trials, uint64_t seed)
{
    static const char bytes[] = "0123456789-+.e \n\t\r/#\"\\xyz";
    size_t size = strlen(text);
    char *copy = malloc(size + 1);
    assert_non_null(copy);
    int loaded = 0;
    for (int t = 0; t < trials; t++) {
        memcpy(copy, text, size);
        int patches = 1 + (int)(ts_rand(&seed) % 3);
        for (int p = 0; p < patches; p++) {
            size_t at = ts_rand(&seed) % size;
            uint64_t r = ts_rand(&seed);
            copy[at] = r % 4 ? bytes[(r >> 8) % (sizeof bytes - 1)] : (char)(r >> 16);
        }
        ossa_error err;
        ossa_model *m = tf_try(format, copy, size, NULL, &err);
        if (m) {
            loaded++;
            tf_check_model(m, format);
            ossa_model_free(m);
        } else {
            assert_true(err.code != OSSA_CODE_NONE);
            assert_true(err.message[0] != 0);
        }
    }
    free(copy);
    print_message("%d of %d patched texts load\n", loaded, trials);
    assert_true(loaded > 0);
}

/* Allocation number k fails, for every k until the load succeeds: the
 * load fails with NOMEM and frees everything. */
static inline void tf_allocation_failures(ossa_format format, const char *text,
                                          const char *file_name)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.file_name = file_name;
    ts_alloc_sweep_load(file_name ? file_name : ossa_format_name(format), text, strlen(text), &o,
                        &(ts_sweep){.modes = TS_SWEEP_STICKY});
}

/* `text` loaded with a counting allocator, then written as `format` with
 * allocation number k failing, for every k until the write succeeds:
 * the write fails with NOMEM and frees all it took. The model's
 * allocator (temporaries) and the options' (the output) are one here. */
typedef struct tf_write_job {
    ossa_format format;
    const char *text;
} tf_write_job;

static inline ossa_status tf_write_op(void *ctx, ts_alloc *a, ossa_error *err, ts_result *result)
{
    const tf_write_job *job = ctx;
    ts_alloc_pause(a); /* the load is not swept */
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.allocator = &a->allocator;
    lo.format = job->format;
    ossa_model *m = ossa_load_memory(job->text, strlen(job->text), &lo, err);
    assert_non_null(m);
    long live = a->live;
    ts_alloc_resume(a);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = job->format;
    o.allocator = &a->allocator;
    void *data;
    size_t size;
    ossa_status st = ossa_write_memory(m, &o, &data, &size, err);
    ts_alloc_pause(a);
    if (st == OSSA_OK) {
        ts_result_copy(result, data, size);
        ossa_free(data, &a->allocator);
    }
    assert_int_equal(a->live, live); /* the write holds nothing once done */
    ossa_model_free(m);
    return st;
}

static inline void tf_write_allocation_failures(ossa_format format, const char *text)
{
    tf_write_job job = {format, text};
    ts_alloc_sweep_with(ossa_format_name(format), tf_write_op, &job,
                        &(ts_sweep){.modes = TS_SWEEP_STICKY, .max_calls = 1000});
}

#endif
