/* SMD reader robustness: every prefix of sample texts, random byte
 * patches, and every allocation failing in turn. Whatever loads must
 * validate, write as SMD and load again; whatever fails must say where
 * and why, and nothing may leak. */
#include "text_format_test.h"

#define SMD OSSA_FORMAT_SMD

/* A reference with every kind of vertex line, and an animation with
 * gaps, overrides and bones listed before their parents. */
static const char reference[] =
    "version 1\n"
    "// comment\n"
    "nodes\n"
    "5 \"hand\" 2\n"
    "2 \"arm\" 0\n"
    "0 \"root\" -1\n"
    "end\n"
    "skeleton\n"
    "time 0\n"
    "0 0 0 1 0 0 0\n"
    "2 0 1 0 0.5 0 0\n"
    "5 0 1 0 0 0 1.5707963\n"
    "end\n"
    "triangles\n"
    "skin.tga\n"
    "0 0 0 0 0 0 1 0 0\n"
    "2 1 0 0 0 0 1 1 0 0\n"
    "5 0 1 0 0 0 1 0 1 2 2 0.5 5 0.25\n"
    "cloth\n"
    "5 0 1 0 0 0 0 0 1 1 5 1\n"
    "2 1 1 0 0 0 0 1 1 3 0 0.2 2 0.3 5 0.5\n"
    "0 1 2 3 0 1 0 0.5 0.5\n"
    "end\n";

static const char animation[] =
    "version 1\n"
    "nodes\n"
    "1 \"b\" 0\n"
    "0 \"a\" -1\n"
    "end\n"
    "skeleton\n"
    "time 3\n"
    "0 0 0 0 0 0 0\n"
    "time 5\n"
    "0 1 0 0 0.1 0.2 0.3\n"
    "1 0 1 0 0 0 0\n"
    "time 4 ; a comment\n"
    "1 0 2 0 0 0 0\n"
    "time 5\n"
    "0 2 0 0 0 0 0\n"
    "end\n"
    "vertexanimation\n"
    "time 0\n"
    "0 0 0 0 0 0 1\n"
    "end\n";

static void test_truncation(void **state)
{
    (void)state;
    tf_truncations(SMD, reference);
    tf_truncations(SMD, animation);
}

static void test_patches(void **state)
{
    (void)state;
    tf_patches(SMD, reference, 3000, 0x1234567u);
    tf_patches(SMD, animation, 3000, 0x89ABCDEu);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    tf_allocation_failures(SMD, reference, "ref.smd");
    tf_allocation_failures(SMD, animation, "walk.smd");
}

/* Writing fails cleanly when memory runs out at any point: the model's
 * allocator (temporaries) and the options' (the output) are one here. */
static void test_write_allocation_failures(void **state)
{
    (void)state;
    ts_alloc a;
    ts_alloc_init(&a, -1, true);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.allocator = &a.allocator;
    lo.format = SMD;
    ossa_error err;
    ossa_model *m = ossa_load_memory(reference, strlen(reference), &lo, &err);
    assert_non_null(m);
    long live = a.live;
    for (long k = 0;; k++) {
        a.fail_at = a.calls + k;
        ossa_write_options o;
        memset(&o, 0, sizeof o);
        o.format = SMD;
        o.allocator = &a.allocator;
        void *data;
        size_t size;
        ossa_status st = ossa_write_memory(m, &o, &data, &size, &err);
        a.fail_at = -1;
        if (st == OSSA_OK) {
            ossa_free_buffer(data, &a.allocator);
            assert_int_equal(a.live, live);
            print_message("%ld allocations\n", k);
            break;
        }
        assert_int_equal(err.code, OSSA_ERROR_NOMEM);
        assert_int_equal(a.live, live);
        assert_true(k < 1000);
    }
    ossa_model_free(m);
    assert_int_equal(a.live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_patches),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_write_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
