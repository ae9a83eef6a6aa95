/* BVH reader robustness: every prefix of sample texts, random byte
 * patches, and every allocation failing in turn. Whatever loads must
 * validate, write as BVH and load again; whatever fails must say where
 * and why, and nothing may leak. */
#include "text_format_test.h"

#define BVH OSSA_FORMAT_BVH

/* Two roots, positions after rotations on a child, an End Site with a
 * name, CRLF, a frame line with an extra number and trailing text. */
static const char sample[] =
    "HIERARCHY\r\n"
    "ROOT Hips\r\n"
    "{\r\n"
    "\tOFFSET 0 1 0\r\n"
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\r\n"
    "\tJOINT Left Leg\r\n"
    "\t{\r\n"
    "\t\tOFFSET 1 -2 0.5\r\n"
    "\t\tCHANNELS 6 Xrotation Yrotation Zrotation Xposition Yposition Zposition\r\n"
    "\t\tEnd Site foot\r\n"
    "\t\t{\r\n"
    "\t\t\tOFFSET 0 -1 0\r\n"
    "\t\t}\r\n"
    "\t}\r\n"
    "}\r\n"
    "ROOT prop\r\n"
    "{\r\n"
    "\tOFFSET 2 0 0\r\n"
    "\tCHANNELS 1 Yrotation\r\n"
    "}\r\n"
    "MOTION\r\n"
    "Frames: 2\r\n"
    "Frame Time: .0083333\r\n"
    "0.5 1 -2 10 20 30 -5 5 15 1 -2 0.5 90\r\n"
    "1.5 1 -2 1e1 2E1 .3e2 -5 5 15 1 -2 0.5 -90 7\r\n"
    "end\r\n";

/* The simplest file: one joint, no channel, no frame. */
static const char tiny[] = "HIERARCHY ROOT a { OFFSET 0 0 0 CHANNELS 0 } MOTION Frames: 0 "
                           "Frame Time: 0.1";

static void test_truncation(void **state)
{
    (void)state;
    tf_truncations(BVH, sample);
    tf_truncations(BVH, tiny);
}

static void test_patches(void **state)
{
    (void)state;
    tf_patches(BVH, sample, 4000, 0x5EED1234u);
    tf_patches(BVH, tiny, 1000, 0xB0A710u);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    tf_allocation_failures(BVH, sample, "walk.bvh");
    tf_allocation_failures(BVH, tiny, "t.bvh");
}

static void test_write_allocation_failures(void **state)
{
    (void)state;
    tf_write_allocation_failures(BVH, sample);
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
