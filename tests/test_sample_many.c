/* ossa_sample_run_many: sampling at many times in one call gives, block by
 * block, the bytes of one ossa_sample_run per time (float and compressed
 * clips, with and without a sampling cache, every SIMD level, local and
 * model outputs, seconds and frames, both wraps, root motion removed);
 * outputs larger than the skeleton keep their gaps; a time that is not
 * finite, a missing array and bad jobs fail before anything is written. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ossa_simd levels[] = {OSSA_SIMD_REFERENCE, OSSA_SIMD_SCALAR, OSSA_SIMD_SSE2,
                                   OSSA_SIMD_AVX2};
#define NUM_LEVELS (sizeof levels / sizeof levels[0])

/* 9 joints in a chain with a branch; every joint turns, joints 0 and 3
 * slide, joint 6 scales. 25 frames at 24 fps. */
static ossa_model *synthetic(void)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error e;
    char name[16];
    for (int j = 0; j < 9; j++) {
        ossa_transform t = ossa_transform_identity();
        t.translation[2] = j ? 0.5f : 0;
        snprintf(name, sizeof name, "j%d", j);
        assert_true(ossa_model_add_joint(m, name, j == 0 ? -1 : j == 5 ? 2 : j - 1, &t, &e) >= 0);
    }
    uint32_t nf = 25, n = m->num_joints;
    ossa_animation *a = ossa_model_add_animation(m, "sway", nf, 24, OSSA_ANIMATION_LOOP, &e);
    assert_non_null(a);
    for (uint32_t f = 0; f < nf; f++)
        for (uint32_t j = 0; j < n; j++) {
            ossa_transform *t = &a->frames[f * n + j];
            *t = m->joints[j].bind;
            double ang = 0.9 * sin(0.31 * f + 0.7 * j), ax[3] = {cos(j * 1.0), sin(j * 2.0), 0.6};
            double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
            for (int c = 0; c < 3; c++) t->rotation[c] = (float)(ax[c] / l * sin(ang / 2));
            t->rotation[3] = (float)cos(ang / 2);
            if (j == 0 || j == 3) t->translation[0] = (float)(0.4 * sin(0.2 * f + j));
            if (j == 6)
                for (int c = 0; c < 3; c++) t->scale[c] = (float)(1 + 0.2 * sin(0.15 * f + c));
        }
    return m;
}

/* The times of one test: forward at 60 Hz past the end, then back, then
 * exact frames and times before the start. */
static size_t make_times(double *times, double duration)
{
    size_t n = 0;
    for (int i = 0; i < 80; i++) times[n++] = i / 60.0;
    for (int i = 30; i >= 0; i -= 4) times[n++] = i / 60.0 + 0.003;
    for (int f = 0; f < 26; f += 5) times[n++] = f / 24.0;
    times[n++] = -0.37;
    times[n++] = -duration * 3.5;
    return n;
}

/* One call of ossa_sample_run_many against one ossa_sample_run per time,
 * with `stride` entries per block (>= the clip's joints: the entries
 * between are left as they were). */
static void compare(const ossa_clip *clip, ossa_sample_job job, ossa_sample_cache *cache,
                    uint32_t stride, const char *what)
{
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    double times[160];
    size_t count = make_times(times, info.duration);
    if (job.flags & OSSA_SAMPLE_FRAMES)
        for (size_t i = 0; i < count; i++) times[i] *= info.framerate;
    size_t total = count * stride;
    ossa_transform *l1 = malloc(total * sizeof *l1), *l2 = malloc(total * sizeof *l2);
    float(*m1)[16] = malloc(total * sizeof *m1), (*m2)[16] = malloc(total * sizeof *m2);
    memset(l1, 0xA5, total * sizeof *l1), memset(l2, 0xA5, total * sizeof *l2);
    memset(m1, 0x5A, total * sizeof *m1), memset(m2, 0x5A, total * sizeof *m2);
    job.clip = clip;
    job.num_outputs = stride;
    job.cache = NULL;
    ossa_error e;
    for (size_t i = 0; i < count; i++) {
        job.time = times[i];
        job.local = l1 + i * stride;
        job.model = m1 + i * stride;
        assert_int_equal(ossa_sample_run(&job, &e), OSSA_OK);
    }
    job.time = 12345; /* ignored */
    job.local = l2;
    job.model = m2;
    job.cache = cache;
    if (ossa_sample_run_many(&job, times, count, &e) != OSSA_OK) fail_msg("%s: %s", what, e.message);
    if (memcmp(l1, l2, total * sizeof *l1) || memcmp(m1, m2, total * sizeof *m1))
        fail_msg("%s: simd %d, wrap %d, flags %u, stride %u: the samples differ", what,
                 (int)job.simd, (int)job.wrap, (unsigned)job.flags, (unsigned)stride);
    /* One output alone (model matrices only, which take another path for
     * the root when root motion is removed): the same as one by one, and
     * the local poses untouched. */
    job.cache = NULL;
    for (size_t i = 0; i < count; i++) {
        job.time = times[i];
        job.local = NULL;
        job.model = m1 + i * stride;
        assert_int_equal(ossa_sample_run(&job, &e), OSSA_OK);
    }
    memset(l2, 0xA5, total * sizeof *l2);
    job.local = NULL;
    job.model = m2;
    job.cache = cache;
    if (cache) ossa_sample_cache_reset(cache);
    assert_int_equal(ossa_sample_run_many(&job, times, count, &e), OSSA_OK);
    assert_memory_equal(m1, m2, total * sizeof *m1);
    unsigned char fill[sizeof *l2];
    memset(fill, 0xA5, sizeof fill);
    for (size_t i = 0; i < total; i++) assert_memory_equal(&l2[i], fill, sizeof fill);
    free(l1), free(l2), free(m1), free(m2);
}

static void test_same_as_one_by_one(void **state)
{
    (void)state;
    ossa_model *m = synthetic();
    ossa_error e;
    ossa_clip *floats = ossa_clip_create(m, 0, NULL, &e);
    assert_non_null(floats);
    ossa_clip *packed = ts_compress(m, 0, 1e-4f);
    ossa_sample_cache *cache = ossa_sample_cache_create(m->num_joints, NULL, &e);
    assert_non_null(cache);
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        for (int variant = 0; variant < 4; variant++) {
            ossa_sample_job job = {0};
            job.simd = levels[l];
            job.wrap = variant & 1 ? OSSA_WRAP_CLAMP : OSSA_WRAP_DEFAULT;
            job.flags = (variant & 2 ? OSSA_SAMPLE_FRAMES : 0) |
                        (variant == 3 ? OSSA_SAMPLE_REMOVE_ROOT_MOTION : 0);
            compare(floats, job, NULL, m->num_joints, "float clip");
            compare(floats, job, NULL, m->num_joints + 3, "float clip, wide outputs");
            compare(packed, job, NULL, m->num_joints, "compressed clip");
            ossa_sample_cache_reset(cache);
            compare(packed, job, cache, m->num_joints + 1, "compressed clip with a cache");
        }
    }
    ossa_sample_cache_free(cache);
    ossa_clip_free(packed);
    ossa_clip_free(floats);
    ossa_model_free(m);
}

/* Known values, independent of ossa_sample_run: a root sliding along x by
 * one unit per frame at 10 fps, sampled at 0, 0.05, 0.25 s and frame 2
 * (clamped, 3 frames). */
static void test_known_values(void **state)
{
    (void)state;
    const int32_t parents[1] = {-1};
    ossa_transform bind = ossa_transform_identity(), frames[3];
    for (int f = 0; f < 3; f++) {
        frames[f] = bind;
        frames[f].translation[0] = (float)f;
    }
    ossa_clip_source src = {"slide", 1, parents, &bind, 3, frames, 10, 0, 0};
    ossa_error e;
    ossa_clip *clip = ossa_clip_build(&src, NULL, &e);
    assert_non_null(clip);
    const double times[4] = {0, 0.05, 0.25, 0.1};
    ossa_transform local[4];
    float model[4][16];
    ossa_sample_job job = {0};
    job.clip = clip;
    job.local = local;
    job.model = model;
    job.num_outputs = 1;
    assert_int_equal(ossa_sample_run_many(&job, times, 4, &e), OSSA_OK);
    const float want[4] = {0, 0.5f, 2, 1}; /* 0.25 s = frame 2.5, clamped to the last frame */
    for (int i = 0; i < 4; i++) {
        TS_ASSERT_NEAR(local[i].translation[0], want[i], 1e-6);
        TS_ASSERT_NEAR(model[i][12], want[i], 1e-6);
        TS_ASSERT_NEAR(model[i][0], 1, 1e-6);
    }
    ossa_clip_free(clip);
}

static void test_refused(void **state)
{
    (void)state;
    ossa_model *m = synthetic();
    ossa_error e;
    ossa_clip *clip = ossa_clip_create(m, 0, NULL, &e);
    assert_non_null(clip);
    uint32_t n = m->num_joints;
    float(*model)[16] = malloc(4 * n * sizeof *model);
    memset(model, 0x77, 4 * n * sizeof *model);
    float(*copy)[16] = malloc(4 * n * sizeof *copy);
    memcpy(copy, model, 4 * n * sizeof *copy);
    ossa_sample_job job = {0};
    job.clip = clip;
    job.model = model;
    job.num_outputs = n;
    double times[4] = {0.1, 0.2, NAN, 0.4};
    /* the third time is not finite: nothing written, not even the first two */
    assert_int_equal(ossa_sample_run_many(&job, times, 4, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    assert_string_equal(e.message, "sample time 2 of 4 is not finite");
    assert_memory_equal(model, copy, 4 * n * sizeof *model);
    times[2] = INFINITY;
    assert_int_equal(ossa_sample_run_many(&job, times, 4, &e), OSSA_FAILED);
    assert_memory_equal(model, copy, 4 * n * sizeof *model);
    /* no array of times */
    assert_int_equal(ossa_sample_run_many(&job, NULL, 2, &e), OSSA_FAILED);
    assert_string_equal(e.message, "sampling 2 times without an array of times");
    /* count 0: the job is checked, nothing written */
    assert_int_equal(ossa_sample_run_many(&job, NULL, 0, &e), OSSA_OK);
    assert_memory_equal(model, copy, 4 * n * sizeof *model);
    /* the job's own checks */
    job.num_outputs = n - 1;
    assert_int_equal(ossa_sample_run_many(&job, times, 1, &e), OSSA_FAILED);
    assert_non_null(strstr(e.message, "output holds"));
    job.num_outputs = n;
    job.model = NULL;
    assert_int_equal(ossa_sample_run_many(&job, times, 1, &e), OSSA_FAILED);
    assert_non_null(strstr(e.message, "without an output"));
    assert_int_equal(ossa_sample_run_many(NULL, times, 1, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    assert_memory_equal(model, copy, 4 * n * sizeof *model);
    free(model);
    free(copy);
    ossa_clip_free(clip);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_one_by_one),
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
