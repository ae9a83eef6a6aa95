/* The sampling cache (ossa_sample_cache): samples of a compressed clip give
 * the same bytes with and without it, at every SIMD level, playing
 * forward, backward, at exact frames and at random times, with clips
 * taking turns in one cache; a cache too small for a clip is refused;
 * float clips ignore it; allocation failure. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ossa_simd levels[] = {OSSA_SIMD_REFERENCE, OSSA_SIMD_SCALAR, OSSA_SIMD_SSE2,
                                   OSSA_SIMD_AVX2};
#define NUM_LEVELS (sizeof levels / sizeof levels[0])

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* 11 joints (two SoA groups): rotations of odd joints, translations of
 * every third joint and the scale of joint 4 animated; joint 5's scale a
 * constant that is not the bind pose's (a constant record); the rest
 * still. 40 frames at 30 fps; `phase` makes a second, different clip. */
static ossa_model *synthetic(double phase)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error e;
    char name[16];
    for (int j = 0; j < 11; j++) {
        ossa_transform t = ossa_transform_identity();
        t.translation[j % 3] = j ? 0.25f * (float)j : 0;
        snprintf(name, sizeof name, "j%d", j);
        assert_true(ossa_model_add_joint(m, name, j ? (j - 1) / 2 : -1, &t, &e) >= 0);
    }
    uint32_t nf = 40, n = m->num_joints;
    ossa_animation *a = ossa_model_add_animation(m, "walk", nf, 30, 0, &e);
    assert_non_null(a);
    for (uint32_t f = 0; f < nf; f++)
        for (uint32_t j = 0; j < n; j++) {
            ossa_transform *t = &a->frames[f * n + j];
            *t = m->joints[j].bind;
            if (j % 2) {
                double ang = 1.3 * sin(0.23 * f + j + phase), ax[3] = {sin(j + 1.0), cos(j), 0.4};
                double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
                for (int c = 0; c < 3; c++) t->rotation[c] = (float)(ax[c] / l * sin(ang / 2));
                t->rotation[3] = (float)cos(ang / 2);
            }
            if (j % 3 == 0) t->translation[1] = (float)(0.8 * sin(0.17 * f + phase));
            if (j == 4)
                for (int c = 0; c < 3; c++) t->scale[c] = (float)(1 + 0.3 * sin(0.1 * f + c));
            if (j == 5) t->scale[0] = t->scale[1] = t->scale[2] = 1.5f;
        }
    return m;
}

/* Samples `clip` at `job`'s settings without and with `cache`: the local
 * poses and model matrices must be the same bytes. */
static void same_with_cache(ossa_sample_job job, ossa_sample_cache *cache, uint32_t n,
                            const char *what)
{
    ossa_transform *l1 = calloc(n, sizeof *l1), *l2 = calloc(n, sizeof *l2);
    float(*m1)[16] = calloc(n, sizeof *m1), (*m2)[16] = calloc(n, sizeof *m2);
    job.num_outputs = n;
    job.cache = NULL, job.local = l1, job.model = m1;
    assert_int_equal(ossa_sample_run(&job, NULL), OSSA_OK);
    job.cache = cache, job.local = l2, job.model = m2;
    ossa_error e;
    if (ossa_sample_run(&job, &e) != OSSA_OK) fail_msg("%s: %s", what, e.message);
    if (memcmp(l1, l2, n * sizeof *l1) || memcmp(m1, m2, n * sizeof *m1))
        fail_msg("%s: time %.9g (simd %d, wrap %d, flags %u): cached sample differs", what,
                 job.time, (int)job.simd, (int)job.wrap, (unsigned)job.flags);
    free(l1), free(l2), free(m1), free(m2);
}

/* Forward at 60 Hz, backward, exact frames, random times (both wraps,
 * seconds and frames, root motion removed or not), at every level. */
static void play(const ossa_clip *clip, ossa_sample_cache *cache, const char *what)
{
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        ossa_sample_job job = {0};
        job.clip = clip;
        job.simd = levels[l];
        job.wrap = OSSA_WRAP_LOOP;
        for (int i = 0; i < 150; i++) { /* forward, past the end */
            job.time = (i + 0.37) / 60.0;
            same_with_cache(job, cache, info.num_joints, what);
        }
        for (int i = 150; i >= 0; i -= 3) { /* backward */
            job.time = (i + 0.11) / 60.0;
            same_with_cache(job, cache, info.num_joints, what);
        }
        job.flags = OSSA_SAMPLE_FRAMES;
        for (uint32_t f = 0; f < info.num_frames + 2; f++) { /* exact frames */
            job.time = f;
            same_with_cache(job, cache, info.num_joints, what);
        }
        for (int i = 0; i < 200; i++) {
            job.flags = (rnd() < 0.5 ? OSSA_SAMPLE_FRAMES : 0) |
                        (rnd() < 0.3 ? OSSA_SAMPLE_REMOVE_ROOT_MOTION : 0);
            job.wrap = rnd() < 0.5 ? OSSA_WRAP_LOOP : OSSA_WRAP_CLAMP;
            double span = (job.flags & OSSA_SAMPLE_FRAMES) ? info.num_frames : info.duration;
            job.time = (rnd() * 1.4 - 0.2) * span;
            same_with_cache(job, cache, info.num_joints, what);
        }
    }
}

static void test_same_bytes(void **state)
{
    (void)state;
    ossa_model *m = synthetic(0);
    ossa_clip *clip = ts_compress(m, 0, 0);
    ossa_error e;
    ossa_sample_cache *cache = ossa_sample_cache_create(m->num_joints, NULL, &e);
    assert_non_null(cache);
    play(clip, cache, "synthetic");
    ossa_clip_free(clip);
    ossa_model_free(m);

    unsigned char *buf;
    size_t size;
    ossa_model *fox = ts_load_shared("gltf/Fox.glb", &buf, &size);
    if (fox) {
        ossa_sample_cache *big = ossa_sample_cache_create(fox->num_joints, NULL, &e);
        assert_non_null(big);
        for (uint32_t a = 0; a < fox->num_animations; a++) {
            ossa_clip *c = ts_compress(fox, a, 0);
            play(c, big, "Fox");
            ossa_clip_free(c);
        }
        ossa_sample_cache_free(big);
        ossa_model_free(fox);
        free(buf);
    }
    ossa_sample_cache_free(cache);
}

/* Two clips take turns in one cache, without a reset: each sample is still
 * its own clip's. Then a clip freed and another created (perhaps at the
 * same address) after ossa_sample_cache_reset. */
static void test_clips_take_turns(void **state)
{
    (void)state;
    ossa_model *m = synthetic(0), *other = synthetic(1.7);
    ossa_clip *a = ts_compress(m, 0, 0), *b = ts_compress(other, 0, 0);
    ossa_clip *tight = ts_compress(m, 0, 1e-5f); /* same animation, another bound */
    ossa_sample_cache *cache = ossa_sample_cache_create(m->num_joints, NULL, NULL);
    assert_non_null(cache);
    const ossa_clip *clips[3] = {a, b, tight};
    for (int i = 0; i < 300; i++) {
        ossa_sample_job job = {0};
        job.clip = clips[i % 3];
        job.time = (i / 3 + 0.4) / 60.0;
        job.simd = levels[i % NUM_LEVELS];
        if (!ossa_simd_supported(job.simd)) job.simd = OSSA_SIMD_SCALAR;
        same_with_cache(job, cache, m->num_joints, "turns");
    }
    for (int round = 0; round < 4; round++) {
        ossa_clip_free(a);
        a = ts_compress(round % 2 ? other : m, 0, 0);
        ossa_sample_cache_reset(cache);
        ossa_sample_job job = {0};
        job.clip = a;
        for (int i = 0; i < 20; i++) {
            job.time = (i + 0.5) / 60.0;
            same_with_cache(job, cache, m->num_joints, "after reset");
        }
    }
    ossa_sample_cache_free(cache);
    ossa_clip_free(a), ossa_clip_free(b), ossa_clip_free(tight);
    ossa_model_free(m), ossa_model_free(other);
}

/* A cache for fewer joints than a compressed clip has is refused, by
 * validation and by the run, naming both counts; float clips ignore the
 * cache, whatever its size. */
static void test_too_small(void **state)
{
    (void)state;
    ossa_model *m = synthetic(0);
    ossa_clip *packed = ts_compress(m, 0, 0), *floats = ossa_clip_create(m, 0, NULL, NULL);
    ossa_sample_cache *small = ossa_sample_cache_create(8, NULL, NULL);
    assert_non_null(small);
    uint32_t n = m->num_joints;
    float(*out)[16] = calloc(n, sizeof *out);
    ossa_sample_job job = {0};
    job.clip = packed, job.model = out, job.num_outputs = n, job.cache = small, job.time = 0.3;
    ossa_error e;
    assert_int_equal(ossa_sample_validate(&job, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(e.message, "cache holds 8 joints, the clip has 11"));
    assert_int_equal(ossa_sample_run(&job, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    job.clip = floats;
    same_with_cache(job, small, n, "float clip");
    free(out);
    ossa_sample_cache_free(small);
    ossa_clip_free(packed), ossa_clip_free(floats);
    ossa_model_free(m);
}

static void test_alloc_failure(void **state)
{
    (void)state;
    ts_alloc al;
    ts_alloc_init(&al, 0, true);
    ossa_error e;
    assert_null(ossa_sample_cache_create(30, &al.allocator, &e));
    assert_int_equal(e.code, OSSA_ERROR_NOMEM);
    assert_int_equal(al.live, 0);
    ts_alloc_init(&al, -1, false);
    ossa_sample_cache *c = ossa_sample_cache_create(30, &al.allocator, &e);
    assert_non_null(c);
    assert_int_equal(al.live, 1);
    /* Two frames of four groups of 8 joints, 320 bytes each. */
    assert_true(al.max_request >= 2 * 4 * 320);
    ossa_sample_cache_free(c);
    assert_int_equal(al.live, 0);
    assert_int_equal(al.bad_frees, 0);
    ossa_sample_cache_free(NULL);
    ossa_sample_cache_reset(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes),
        cmocka_unit_test(test_clips_take_turns),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
