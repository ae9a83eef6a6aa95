/* Editing animations: the IQM SDK's --start/--end range rule, trimming,
 * frame rate and loop flag, renaming, removing and resampling. Expected
 * frames are computed here by hand (comments) or with plain arithmetic. */
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* One root joint; animation `name` of `n` frames whose translation x is
 * xs[f] and whose rotation is about Z by angles[f] degrees (NULL = 0). */
static void add_anim(ossa_model *m, const char *name, uint32_t n, float fps, uint32_t flags,
                     const float *xs, const float *angles)
{
    ossa_error err;
    ossa_animation *a = ossa_model_add_animation(m, name, n, fps, flags, &err);
    assert_non_null(a);
    uint32_t index = m->num_animations - 1;
    ossa_transform *f = calloc(n, sizeof *f);
    for (uint32_t i = 0; i < n; i++) {
        f[i] = ossa_transform_identity();
        f[i].translation[0] = xs[i];
        double half = (angles ? angles[i] : 0) * PI / 360;
        f[i].rotation[2] = (float)sin(half);
        f[i].rotation[3] = (float)cos(half);
    }
    assert_int_equal(ossa_model_set_animation_frames(m, index, 0, n, f, &err), OSSA_OK);
    free(f);
}

static ossa_model *one_joint(void)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    assert_int_equal(ossa_model_add_joint(m, "root", -1, NULL, &err), 0);
    return m;
}

static void test_range(void **state)
{
    (void)state;
    /* docs/formats/iqm.md §15: --end is inclusive and counted from frame 0; -1 is the
     * end, below that the last kept frame is count + end + 1. */
    static const struct {
        uint32_t n;
        int64_t start, end;
        uint32_t first, count; /* count 0: refused */
    } cases[] = {
        {10, 0, -1, 0, 10},  {10, 0, -2, 0, 10}, {10, 0, -3, 0, 9},  {10, 2, 5, 2, 4},
        {10, 0, 100, 0, 10}, {10, 9, -1, 9, 1},  {10, 0, -11, 0, 1}, {10, 0, -12, 0, 0},
        {10, 5, 3, 0, 0},    {10, -1, -1, 0, 0}, {10, 10, -1, 0, 0}, {0, 0, -1, 0, 0},
        {1, 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint32_t first = 99, count = 99;
        ossa_error err;
        ossa_status st = ossa_animation_range(cases[i].n, cases[i].start, cases[i].end, &first,
                                              &count, &err);
        if (cases[i].count == 0) {
            assert_int_equal(st, OSSA_FAILED);
            assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
        } else {
            assert_int_equal(st, OSSA_OK);
            assert_int_equal(first, cases[i].first);
            assert_int_equal(count, cases[i].count);
        }
    }
}

static void test_trim(void **state)
{
    (void)state;
    ossa_model *m = one_joint();
    const float xs[5] = {0, 1, 2, 3, 4};
    add_anim(m, "walk", 5, 10, 0, xs, NULL);
    ossa_bounds b[5];
    memset(b, 0, sizeof b);
    for (int f = 0; f < 5; f++) b[f].max[0] = (float)f;
    ossa_error err;
    assert_int_equal(ossa_model_set_animation_bounds(m, 0, b, &err), OSSA_OK);
    assert_int_equal(ossa_model_trim_animation(m, 0, 4, 2, &err), OSSA_FAILED);
    assert_int_equal(ossa_model_trim_animation(m, 0, 0, 0, &err), OSSA_FAILED);
    assert_int_equal(ossa_model_trim_animation(m, 1, 0, 1, &err), OSSA_FAILED);
    assert_int_equal(m->animations[0].num_frames, 5);
    /* Frames 2 and 3 remain, with their boxes. */
    assert_int_equal(ossa_model_trim_animation(m, 0, 2, 2, &err), OSSA_OK);
    assert_int_equal(m->animations[0].num_frames, 2);
    assert_true(m->animations[0].frames[0].translation[0] == 2.0f);
    assert_true(m->animations[0].frames[1].translation[0] == 3.0f);
    assert_true(m->animations[0].bounds[0].max[0] == 2.0f);
    assert_true(m->animations[0].bounds[1].max[0] == 3.0f);
    ossa_model_free(m);
}

static void test_timing_rename_remove(void **state)
{
    (void)state;
    ossa_model *m = one_joint();
    const float xs[2] = {0, 1};
    add_anim(m, "a", 2, 10, 0, xs, NULL);
    add_anim(m, "b", 2, 20, 0, xs, NULL);
    add_anim(m, "c", 2, 30, 0, xs, NULL);
    ossa_error err;
    assert_int_equal(ossa_model_set_animation_timing(m, 1, 24, OSSA_ANIMATION_LOOP, &err), OSSA_OK);
    assert_true(m->animations[1].framerate == 24.0f);
    assert_int_equal(m->animations[1].flags, OSSA_ANIMATION_LOOP);
    assert_int_equal(ossa_model_set_animation_timing(m, 1, -1, 0, &err), OSSA_FAILED);
    /* Flags a reader kept beyond the loop bit stay as given. */
    assert_int_equal(ossa_model_set_animation_timing(m, 2, 30, 6, &err), OSSA_OK);
    assert_int_equal(m->animations[2].flags, 6);
    assert_int_equal(ossa_model_set_animation_timing(m, 3, 24, 0, &err), OSSA_FAILED);

    assert_int_equal(ossa_model_rename_animation(m, 0, "c", &err), OSSA_FAILED);
    assert_non_null(strstr(err.message, "'c'"));
    assert_int_equal(ossa_model_rename_animation(m, 0, "", &err), OSSA_FAILED);
    char name[8] = "walk";
    assert_int_equal(ossa_model_rename_animation(m, 0, name, &err), OSSA_OK);
    strcpy(name, "XXXX"); /* the model keeps a copy */
    assert_string_equal(m->animations[0].name, "walk");
    /* Renaming to its own name is no clash. */
    assert_int_equal(ossa_model_rename_animation(m, 2, "c", &err), OSSA_OK);

    assert_int_equal(ossa_model_remove_animation(m, 3, &err), OSSA_FAILED);
    assert_int_equal(ossa_model_remove_animation(m, 1, &err), OSSA_OK);
    assert_int_equal(m->num_animations, 2);
    assert_string_equal(m->animations[0].name, "walk");
    assert_string_equal(m->animations[1].name, "c");
    assert_true(m->animations[1].framerate == 30.0f);
    assert_int_equal(ossa_model_remove_animation(m, 0, &err), OSSA_OK);
    assert_int_equal(ossa_model_remove_animation(m, 0, &err), OSSA_OK);
    assert_int_equal(m->num_animations, 0);
    ossa_model_free(m);
}

static float x_at(const ossa_model *m, uint32_t a, uint32_t f)
{
    return m->animations[a].frames[f].translation[0];
}

static void test_resample_once(void **state)
{
    (void)state;
    ossa_model *m = one_joint();
    /* 3 frames at 10 fps: 0.2 s. At 20 fps: 0.2 * 20 + 1 = 5 frames at
     * positions 0, 0.5, 1, 1.5, 2. Frame 1 turns 90 degrees about Z. */
    const float xs[3] = {0, 1, 4}, angles[3] = {0, 90, 90};
    add_anim(m, "a", 3, 10, 0, xs, angles);
    ossa_bounds b[3];
    memset(b, 0, sizeof b);
    ossa_error err;
    ossa_model_set_animation_bounds(m, 0, b, &err);
    assert_int_equal(ossa_model_resample_animation(m, 0, 0, &err), OSSA_FAILED);
    assert_int_equal(ossa_model_resample_animation(m, 0, NAN, &err), OSSA_FAILED);
    assert_int_equal(ossa_model_resample_animation(m, 0, 20, &err), OSSA_OK);
    assert_int_equal(m->animations[0].num_frames, 5);
    assert_true(m->animations[0].framerate == 20.0f);
    assert_null(m->animations[0].bounds);
    const float want[5] = {0, 0.5f, 1, 2.5f, 4};
    for (uint32_t f = 0; f < 5; f++) TS_ASSERT_NEAR(x_at(m, 0, f), want[f], 1e-6);
    /* Halfway from 0 to 90 degrees: 45 degrees, q = (0, 0, sin 22.5, cos 22.5). */
    const float q45[4] = {0, 0, (float)sin(PI / 8), (float)cos(PI / 8)};
    TS_ASSERT_QUAT_SAME(m->animations[0].frames[1].rotation, q45, 1e-7);
    /* Between two equal keys: that key. */
    const float q90[4] = {0, 0, (float)sin(PI / 4), (float)cos(PI / 4)};
    TS_ASSERT_QUAT_SAME(m->animations[0].frames[3].rotation, q90, 1e-7);

    /* 10 -> 24 fps: 0.2 s * 24 = 4.8, rounded to 5 steps, 6 frames at
     * positions k * 10 / 24; the last (2.083) holds the last frame. */
    ossa_model *n = one_joint();
    add_anim(n, "a", 3, 10, 0, xs, NULL);
    assert_int_equal(ossa_model_resample_animation(n, 0, 24, &err), OSSA_OK);
    assert_int_equal(n->animations[0].num_frames, 6);
    for (uint32_t k = 0; k < 6; k++) {
        double p = k * 10.0 / 24.0;
        if (p > 2) p = 2;
        double want_x = p <= 1 ? p : 1 + (p - 1) * 3; /* 0 -> 1 -> 4 */
        TS_ASSERT_NEAR(x_at(n, 0, k), want_x, 1e-6);
    }
    ossa_model_free(n);
    ossa_model_free(m);
}

static void test_resample_loop(void **state)
{
    (void)state;
    ossa_model *m = one_joint();
    /* Looping: 2 frames at 10 fps last 0.2 s (the second blends back into
     * the first). At 20 fps: 4 frames at 0, 0.5, 1, 1.5: x = 0, 1, 2, 1. */
    const float xs[4] = {0, 2, 6, 8};
    add_anim(m, "loop", 2, 10, OSSA_ANIMATION_LOOP, xs, NULL);
    ossa_error err;
    assert_int_equal(ossa_model_resample_animation(m, 0, 20, &err), OSSA_OK);
    assert_int_equal(m->animations[0].num_frames, 4);
    const float want[4] = {0, 1, 2, 1};
    for (uint32_t f = 0; f < 4; f++) TS_ASSERT_NEAR(x_at(m, 0, f), want[f], 1e-6);

    /* Down: 4 frames at 4 fps to 2 fps: frames 0 and 2, copied exactly. */
    add_anim(m, "down", 4, 4, OSSA_ANIMATION_LOOP, xs, NULL);
    assert_int_equal(ossa_model_resample_animation(m, 1, 2, &err), OSSA_OK);
    assert_int_equal(m->animations[1].num_frames, 2);
    assert_true(x_at(m, 1, 0) == 0.0f && x_at(m, 1, 1) == 6.0f);

    /* The same rate changes nothing; frame rate 0 counts as 30. */
    add_anim(m, "same", 4, 0, 0, xs, NULL);
    assert_int_equal(ossa_model_resample_animation(m, 2, 30, &err), OSSA_OK);
    assert_int_equal(m->animations[2].num_frames, 4);
    assert_true(x_at(m, 2, 3) == 8.0f);
    assert_true(m->animations[2].framerate == 30.0f);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_trim),
        cmocka_unit_test(test_timing_rename_remove),
        cmocka_unit_test(test_resample_once),
        cmocka_unit_test(test_resample_loop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
