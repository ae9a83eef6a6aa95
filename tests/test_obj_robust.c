/* OBJ reader robustness: every prefix of sample texts, random byte
 * patches, and every allocation failing in turn. Whatever loads must
 * validate, write as OBJ and load again; whatever fails must say where
 * and why, and nothing may leak. */
#include "text_format_test.h"

#define OBJ OSSA_FORMAT_OBJ

/* Every statement kind: negative and forward indices, a concave polygon,
 * groups, materials, smoothing, colours, continuations, free-form. */
static const char sample[] =
    "# sample\n"
    "mtllib a.mtl\n"
    "o thing\n"
    "v 0 0 0 1 0 0\n"
    "v 3 0 0\n"
    "v 3 1 0\n"
    "v 1 1 0\n"
    "v 1 2 0\n"
    "v 3 2 0\n"
    "v 3 3 0 \\\n"
    "  0 1 0\n"
    "v 0 3 0\n"
    "vt 0 0\n"
    "vt 1 0\n"
    "vt 1 1 0\n"
    "vn 0 0 1\n"
    "g left right\n"
    "usemtl red\n"
    "s 1\n"
    "f 1/1/1 2/2/1 3/3/1 4/1/1 5/2/1 6/3/1 7/1/1 8/2/1\n"
    "usemtl blue\n"
    "s off\n"
    "f -8 -7 -6\n"
    "f 1//1 2//1 9//1\n"
    "v 5 5 5\n"
    "l 1 2\n"
    "cstype bezier\n"
    "end\n"
    "usemtl red\n"
    "f 2 3 4\n";

static void test_truncation(void **state)
{
    (void)state;
    tf_truncations(OBJ, sample);
}

static void test_patches(void **state)
{
    (void)state;
    tf_patches(OBJ, sample, 6000, 0x5151515u);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    tf_allocation_failures(OBJ, sample, "sample.obj");
}

/* Writing (with the pose path too) fails cleanly when memory runs out. */
static void test_write_allocation_failures(void **state)
{
    (void)state;
    tf_write_allocation_failures(OBJ, sample);
}

/* A polygon of many corners that is not convex: ear clipping's budget
 * keeps the time bounded (the fan, with a warning, past it). */
static void test_large_polygon(void **state)
{
    (void)state;
    enum { N = 20000 };
    size_t cap = (size_t)N * 40 + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t n = 0;
    /* a comb: teeth up and down make every other corner reflex */
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(text + n, cap - n, "v %d %d 0\n", i, i % 2 ? 10 : 9);
    n += (size_t)snprintf(text + n, cap - n, "v %d -5 0\nv 0 -5 0\nf", N);
    for (int i = 1; i <= N + 2; i++) n += (size_t)snprintf(text + n, cap - n, " %d", i);
    text[n++] = '\n';
    text[n] = 0;
    ossa_model *m = tf_load_with(OBJ, text, NULL);
    assert_int_equal(m->num_triangles, N);
    ossa_model_free(m);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_patches),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_write_allocation_failures),
        cmocka_unit_test(test_large_polygon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
