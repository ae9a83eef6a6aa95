/* Channel quantization of the IQM writer (docs/formats/iqm.md §8.1): the rule redone
 * here in float32 and compared sample by sample on guy.iqm, the fixed point
 * after one round trip on a model that lies on no grid, and the cost of
 * quantizing. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float decode_sample(uint16_t sample, float offset, float scale)
{
    volatile float step = (float)sample * scale;
    volatile float v = offset + step;
    return v;
}

/* §8.1 in float32, step by step, for every channel of every pose, compared
 * sample by sample with the written frames. Every written sample must decode
 * (§7) to the same float as §8.1's sample; with `bit_exact` the bytes must be
 * §8.1's too ("match the compiler bit for bit"). */
static void check_quantization(bool bit_exact)
{
    unsigned char *file;
    size_t file_size, size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &file_size);
    unsigned char *w = ts_write(m, NULL, &size);
    uint32_t nj = m->num_joints, checked = 0, differ = 0, channels_differ = 0;
    for (uint32_t j = 0; j < nj; j++) {
        ts_iqm_pose p;
        ts_iqm_pose_at(w, j, &p);
        for (int k = 0; k < 10; k++) {
            /* Values over all frames of all animations, quaternions flipped to w <= 0. */
            float lo = 0, hi = 0;
            bool first = true;
            for (uint32_t a = 0; a < m->num_animations; a++)
                for (uint32_t f = 0; f < m->animations[a].num_frames; f++) {
                    const ossa_transform *t = &m->animations[a].frames[(size_t)f * nj + j];
                    float v = ts_channel(t, k);
                    if (k >= 3 && k < 7 && t->rotation[3] > 0) v = -v;
                    if (first || v < lo) lo = v;
                    if (first || v > hi) hi = v;
                    first = false;
                }
            volatile float range = hi - lo;
            assert_true(p.offset[k] == lo);
            if (!(range >= 1e-10f)) {
                assert_int_equal(p.mask >> k & 1, 0);
                assert_true(p.scale[k] == 0);
                continue;
            }
            assert_int_equal(p.mask >> k & 1, 1);
            volatile float scale = range / 65535.0f;
            /* The written scale may sit a few ulps off range / 65535, so that
             * a second trip reproduces it (see the writer); not more. */
            TS_ASSERT_NEAR(p.scale[k], scale, 4 * ts_ulp(scale));
            uint32_t g = 0, before = differ;
            for (uint32_t a = 0; a < m->num_animations; a++)
                for (uint32_t f = 0; f < m->animations[a].num_frames; f++, g++) {
                    const ossa_transform *t = &m->animations[a].frames[(size_t)f * nj + j];
                    float v = ts_channel(t, k);
                    if (k >= 3 && k < 7 && t->rotation[3] > 0) v = -v;
                    volatile float d = v - lo;
                    volatile float q = d / scale;
                    volatile float r = 0.5f + q;
                    uint16_t expect = (uint16_t)floorf(r);
                    uint16_t got = ts_iqm_sample(w, g, j, k);
                    float want = decode_sample(expect, p.offset[k], p.scale[k]);
                    float have = decode_sample(got, p.offset[k], p.scale[k]);
                    if (have != want)
                        print_error("joint %u channel %d frame %u: sample %u decodes to %.9g, "
                                    "§8.1's %u to %.9g\n",
                                    j, k, g, got, have, expect, want);
                    assert_true(have == want);
                    differ += got != expect;
                    checked++;
                }
            channels_differ += differ != before;
        }
    }
    assert_true(checked > 8000);
    if (bit_exact && differ)
        print_error("%u of %u samples (in %u channels) differ from §8.1's, though they decode to "
                    "the same floats\n",
                    differ, checked, channels_differ);
    ossa_free(w, NULL);
    ossa_model_free(m);
    free(file);
    if (bit_exact) assert_int_equal(differ, 0);
}

static void test_guy_quantization_values(void **state)
{
    (void)state;
    check_quantization(false);
}

static void test_guy_quantization_bit_exact(void **state)
{
    (void)state;
    check_quantization(true);
}

/* A skinned strip whose poses lie on no quantization grid: 3 joints, two
 * animations of 17 and 5 frames with irregular values, rotations of both
 * signs of w (the writer flips them, §8.2) and constant channels. */
static ossa_model *irregular_model(void)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    for (int j = 0; j < 3; j++) {
        ossa_transform t = ossa_transform_identity();
        t.translation[1] = (float)j;
        assert_int_equal(ossa_model_add_joint(m, j ? "bone" : "root", j - 1, &t, &err), j);
    }
    float pos[8 * 3], idx[8 * 4] = {0}, wgt[8 * 4] = {0};
    ossa_triangle tris[6];
    for (uint32_t v = 0; v < 8; v++) {
        pos[3 * v] = (float)(v % 2);
        pos[3 * v + 1] = (float)(v / 2) * 0.7f;
        pos[3 * v + 2] = 0.1f * (float)v;
        idx[4 * v] = (float)(v / 3);
        idx[4 * v + 1] = (float)((v / 3 + 1) % 3);
        wgt[4 * v] = 0.6f;
        wgt[4 * v + 1] = 0.4f;
    }
    for (uint32_t t = 0; t < 6; t++) tris[t] = (ossa_triangle){{t, t + 1 + t % 2, t + 2 - t % 2}};
    assert_int_equal(ossa_model_set_num_vertices(m, 8, &err), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL,
                                                       pos, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4,
                                                       NULL, idx, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4,
                                                       NULL, wgt, &err));
    assert_int_equal(ossa_model_set_triangles(m, 6, tris, &err), OSSA_OK);
    assert_int_equal(ossa_model_add_mesh(m, "strip", "", 0, 8, 0, 6, &err), 0);
    const uint32_t counts[2] = {17, 5};
    for (uint32_t a = 0; a < 2; a++) {
        ossa_animation *an = ossa_model_add_animation(m, a ? "b" : "a", counts[a], 30, 0, &err);
        assert_non_null(an);
        for (uint32_t i = 0; i < counts[a] * 3; i++) {
            ossa_transform *t = &an->frames[i];
            float x = (float)(i * 7919 % 1000) / 997.0f + (float)a;
            t->translation[0] = x * 1.37f;
            t->translation[2] = -x * x;
            float angle = x * 2.9f, sign = i % 3 ? 1.0f : -1.0f;
            t->rotation[0] = sign * sinf(angle / 2) * 0.6f;
            t->rotation[1] = sign * sinf(angle / 2) * 0.8f;
            t->rotation[2] = 0;
            t->rotation[3] = sign * cosf(angle / 2);
            t->scale[0] = 1 + x / 3;
        }
    }
    return m;
}

/* write(read(write(x))) == write(x) for a model that is not already on a
 * grid: the first trip quantizes, later trips change nothing, bounds
 * included, whatever the bounds mode. */
static void test_fixed_point_after_one_trip(void **state)
{
    (void)state;
    ossa_model *m = irregular_model();
    const ossa_bounds_mode modes[] = {OSSA_BOUNDS_CONSERVATIVE, OSSA_BOUNDS_EXACT};
    for (size_t i = 0; i < 2; i++) {
        ossa_write_options o = {.format = OSSA_FORMAT_IQM, .bounds = modes[i]};
        size_t s1, s2;
        unsigned char *w1 = ts_write(m, &o, &s1);
        ossa_model *back = ts_load(w1, s1);
        unsigned char *w2 = ts_write(back, &o, &s2);
        assert_int_equal(s1, s2);
        size_t first = 0;
        while (first < s1 && w1[first] == w2[first]) first++;
        if (first < s1)
            print_error("bounds mode %d: first difference at byte %zu\n", modes[i], first);
        assert_memory_equal(w1, w2, s1);
        ossa_free(w2, NULL);
        ossa_model_free(back);
        ossa_free(w1, NULL);
    }
    ossa_model_free(m);
}

/* -- Sub-resolution channels ------------------------------------------------ */

/* One joint whose x alternates between a and b for `frames` frames. */
static ossa_model *two_value_channel(float a, float b, uint32_t frames)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    assert_int_equal(ossa_model_add_joint(m, "j", -1, NULL, &err), 0);
    ossa_animation *an = ossa_model_add_animation(m, "flicker", frames, 30, 0, &err);
    assert_non_null(an);
    for (uint32_t f = 0; f < frames; f++) an->frames[f].translation[0] = f % 2 ? b : a;
    return m;
}

/* A channel whose step (range / 65535) is far below float resolution, here
 * 1 and the next float up: thousands of samples decode to each float. The
 * two values must come back exactly, and writing what was read must give
 * the same bytes (the writer settles on one sample per decoded float). */
static void test_sub_resolution_channel(void **state)
{
    (void)state;
    const float a = 1.0f, b = nextafterf(1.0f, 2.0f);
    ossa_model *m = two_value_channel(a, b, 16);
    size_t s1, s2;
    unsigned char *w1 = ts_write(m, NULL, &s1);
    ossa_model *back = ts_load(w1, s1);
    for (uint32_t f = 0; f < 16; f++)
        assert_true(back->animations[0].frames[f].translation[0] == (f % 2 ? b : a));
    unsigned char *w2 = ts_write(back, NULL, &s2);
    assert_int_equal(s1, s2);
    assert_memory_equal(w1, w2, s1);
    ossa_free(w1, NULL);
    ossa_free(w2, NULL);
    ossa_model_free(back);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guy_quantization_values),
        cmocka_unit_test(test_guy_quantization_bit_exact),
        cmocka_unit_test(test_fixed_point_after_one_trip),
        cmocka_unit_test(test_sub_resolution_channel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
