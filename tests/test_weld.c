/* Welding, the shared post-read step (src/core/weld.h): records numbered
 * by content in order of first appearance, groups that never match each
 * other, the array form, and running out of memory. */
#include "support.h"

#include "core/weld.h"

#include <string.h>

typedef struct rec {
    float p[3];
    uint32_t mesh;
} rec;

static void add(ossa__welder *w, float x, uint32_t mesh, uint32_t expected)
{
    rec r = {{x, 0, 0}, mesh};
    uint32_t n = UINT32_MAX;
    ossa_error err;
    assert_int_equal(ossa__weld_add(w, &r, &n, &err), OSSA_OK);
    assert_int_equal(n, expected);
}

/* A B A C B: 0 1 0 2 1, three distinct records kept in that order. -0 and
 * 0 differ: bytes are compared (readers turn -0 into 0 where they want
 * them equal). */
static void first_appearance(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa__welder w;
    ossa__welder_init(&w, m, sizeof(rec));
    add(&w, 1, 0, 0);
    add(&w, 2, 0, 1);
    add(&w, 1, 0, 0);
    add(&w, 3, 0, 2);
    add(&w, 2, 0, 1);
    add(&w, 2, 1, 3); /* another mesh in the record */
    add(&w, 0.0f, 0, 4);
    add(&w, -0.0f, 0, 5);
    assert_int_equal(w.count, 6);
    const float want[6] = {1, 2, 3, 2, 0, -0.0f};
    for (uint32_t i = 0; i < 6; i++) {
        const rec *r = ossa__weld_record(&w, i);
        assert_memory_equal(&r->p[0], &want[i], sizeof(float));
    }
    ossa__welder_free(&w);
    ossa_model_free(m);
}

/* After a group starts, earlier records match nothing: A again is new. */
static void groups(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa__welder w;
    ossa__welder_init(&w, m, sizeof(rec));
    add(&w, 1, 0, 0);
    add(&w, 2, 0, 1);
    ossa__weld_group(&w);
    add(&w, 1, 0, 2);
    add(&w, 1, 0, 2);
    add(&w, 2, 0, 3);
    ossa__welder_free(&w);
    ossa_model_free(m);
}

/* Many records, each seen three times in turn: the table grows (and is
 * rebuilt per group) without changing any number. */
static void many(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa__welder w;
    ossa__welder_init(&w, m, sizeof(rec));
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t i = 0; i < 5000; i++) add(&w, (float)i, 0, i);
    ossa__weld_group(&w);
    for (uint32_t i = 0; i < 5000; i++) add(&w, (float)(i % 7), 0, 5000 + i % 7);
    assert_int_equal(w.count, 5007);
    ossa__welder_free(&w);
    ossa_model_free(m);
}

/* The array form gives the same numbers. */
static void all_at_once(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    rec r[6];
    memset(r, 0, sizeof r);
    const float x[6] = {1, 2, 1, 3, 2, 1};
    for (int i = 0; i < 6; i++) r[i].p[0] = x[i];
    uint32_t remap[6];
    assert_int_equal(ossa__weld(m, r, 6, sizeof *r, remap), 3);
    const uint32_t want[6] = {0, 1, 0, 2, 1, 0};
    assert_memory_equal(remap, want, sizeof want);
    ossa_model_free(m);
}

/* Every allocation failing in turn: a clean OSSA_ERROR_NOMEM, nothing
 * leaked. */
static void out_of_memory(void **state)
{
    (void)state;
    for (long fail = 0;; fail++) {
        ts_alloc a;
        ts_alloc_init(&a, fail, false);
        ossa_model *m = ossa_model_create(&a.allocator);
        if (!m) continue;
        ossa__welder w;
        ossa__welder_init(&w, m, sizeof(rec));
        ossa_status st = OSSA_OK;
        ossa_error err;
        for (uint32_t i = 0; i < 300 && !st; i++) {
            rec r = {{(float)i, 0, 0}, 0};
            uint32_t n;
            st = ossa__weld_add(&w, &r, &n, &err);
        }
        if (st) assert_int_equal(err.code, OSSA_ERROR_NOMEM);
        ossa__welder_free(&w);
        ossa_model_free(m);
        assert_int_equal(a.live, 0);
        if (!st) {
            assert_true(fail > 0);
            break;
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_appearance), cmocka_unit_test(groups),
        cmocka_unit_test(many),             cmocka_unit_test(all_at_once),
        cmocka_unit_test(out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
