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

/* Writing fails cleanly when memory runs out at any point. */
static void test_write_allocation_failures(void **state)
{
    (void)state;
    tf_write_allocation_failures(SMD, reference);
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
