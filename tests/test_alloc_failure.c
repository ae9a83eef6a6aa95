/* Allocation failure: a small build, write and load sequence run once per
 * allocation it makes, with that allocation failing (once, or from then on).
 * Each run must end in success or a clean OSSA_ERROR_NOMEM, free everything
 * it allocated through the allocator and, when it succeeds, write the same
 * bytes as a run without failures. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ossa_transform translated(float x, float y, float z)
{
    ossa_transform t = ossa_transform_identity();
    t.translation[0] = x;
    t.translation[1] = y;
    t.translation[2] = z;
    return t;
}

#define ALLOC_NV 1500 /* positions > 16 KiB: the array gets an arena chunk of its own */

/* Builds a model, writes it, loads the result and writes that again, all
 * through `alloc`. Returns OSSA_OK, or OSSA_FAILED with err->code set. */
static ossa_status build_write_load(const ossa_allocator *alloc, ossa_error *err, void **bytes,
                                    size_t *size)
{
    *bytes = NULL;
    ossa_model *m = ossa_model_create(alloc);
    if (!m) {
        err->code = OSSA_ERROR_NOMEM; /* documented: NULL on allocation failure */
        return OSSA_FAILED;
    }
    static float pos[ALLOC_NV * 3], idx[ALLOC_NV * 4], wgt[ALLOC_NV * 4];
    static ossa_triangle tris[ALLOC_NV / 3];
    for (uint32_t v = 0; v < ALLOC_NV; v++) {
        pos[v * 3] = (float)(v % 37);
        pos[v * 3 + 1] = (float)(v / 37);
        pos[v * 3 + 2] = (float)(v % 5) * 0.25f;
        idx[v * 4] = (float)(v % 3);
        wgt[v * 4] = 1;
    }
    for (uint32_t t = 0; t < ALLOC_NV / 3; t++)
        tris[t] = (ossa_triangle){{3 * t, 3 * t + 1, 3 * t + 2}};
    ossa_transform b = translated(0, 1, 0);
    ossa_status st = OSSA_FAILED;
    ossa_model *back = NULL;
    void *again = NULL;
    size_t again_size = 0;
    ossa_write_options wo = {
        .format = OSSA_FORMAT_IQM, .bounds = OSSA_BOUNDS_EXACT, .allocator = alloc};
    ossa_load_options lo = {.file_name = "alloc.iqm", .allocator = alloc};
    if (ossa_model_add_joint(m, "root", -1, NULL, err) < 0 ||
        ossa_model_add_joint(m, "a", 0, &b, err) < 0 ||
        ossa_model_add_joint(m, "b", 1, &b, err) < 0 ||
        ossa_model_set_num_vertices(m, ALLOC_NV, err) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos,
                                            err) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, idx,
                                            err) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL, wgt,
                                            err) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_CUSTOM, OSSA_HALF, 1, "heat", pos,
                                            err) ||
        ossa_model_set_triangles(m, ALLOC_NV / 3, tris, err) ||
        ossa_model_add_mesh(m, "body", "skin", 0, ALLOC_NV, 0, ALLOC_NV / 3, err) < 0 ||
        ossa_model_set_comment(m, "comment", 7, err) ||
        ossa_model_add_extra(m, "iqm.extension:x", "data", 4, err))
        goto done;
    for (int a = 0; a < 2; a++) {
        ossa_animation *an = ossa_model_add_animation(m, a ? "two" : "one", 4, 10, 0, err);
        if (!an) goto done;
        for (uint32_t i = 0; i < 4 * 3; i++) an->frames[i].translation[2] = (float)(i * (a + 1));
    }
    if (ossa_write_memory(m, &wo, bytes, size, err)) goto done;
    back = ossa_load_memory(*bytes, *size, &lo, err);
    if (!back) goto done;
    if (ossa_write_memory(back, &wo, &again, &again_size, err)) goto done;
    assert_true(again_size > 0);
    st = OSSA_OK;
done:
    ossa_free_buffer(again, wo.allocator);
    ossa_model_free(back);
    ossa_model_free(m);
    return st;
}

static void run_failures(bool sticky)
{
    ts_alloc good;
    ts_alloc_init(&good, -1, false);
    ossa_error err;
    void *reference;
    size_t reference_size;
    assert_int_equal(build_write_load(&good.allocator, &err, &reference, &reference_size), OSSA_OK);
    long total = good.calls;
    assert_true(total > 10);
    printf("allocation-failure sweep over %ld allocations%s\n", total, sticky ? " (sticky)" : "");
    for (long n = 0; n < total; n++) {
        ts_alloc a;
        ts_alloc_init(&a, n, sticky);
        memset(&err, 0, sizeof err);
        void *bytes;
        size_t size;
        ossa_status st = build_write_load(&a.allocator, &err, &bytes, &size);
        if (st != OSSA_OK) {
            if (err.code != OSSA_ERROR_NOMEM)
                print_error("failing allocation %ld of %ld: error kind %s (%s)\n", n, total,
                            ossa_code_name(err.code), err.message);
            assert_int_equal(err.code, OSSA_ERROR_NOMEM);
            assert_int_equal(a.failures > 0, 1); /* failed only because of us */
        } else {
            /* An allocation failure that was recovered from: same output. */
            assert_int_equal(size, reference_size);
            assert_memory_equal(bytes, reference, size);
        }
        ossa_free_buffer(bytes, &a.allocator);
        if (a.live != 0) print_error("failing allocation %ld: %ld blocks leaked\n", n, a.live);
        assert_int_equal(a.live, 0);
        assert_int_equal(a.bad_frees, 0);
    }
    ossa_free_buffer(reference, &good.allocator);
    assert_int_equal(good.live, 0);
    assert_int_equal(good.bad_frees, 0);
}

static void test_allocation_failure_once(void **state)
{
    (void)state;
    run_failures(false);
}

static void test_allocation_failure_sticky(void **state)
{
    (void)state;
    run_failures(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocation_failure_once),
        cmocka_unit_test(test_allocation_failure_sticky),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
