/* The animation runtime: clips, sampling (guy.iqm against values computed
 * here from the model's frames, loop and clamp edges, every SIMD level
 * against the reference), local-to-model and root motion. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static const ossa_simd levels[] = {OSSA_SIMD_REFERENCE, OSSA_SIMD_SCALAR, OSSA_SIMD_SSE2,
                                   OSSA_SIMD_AVX2};
#define NUM_LEVELS (sizeof levels / sizeof levels[0])

/* -- Independent math (double) ------------------------------------------------ */

static void qnorm(const float in[4], double out[4])
{
    double n = sqrt((double)in[0] * in[0] + (double)in[1] * in[1] + (double)in[2] * in[2] +
                    (double)in[3] * in[3]);
    for (int i = 0; i < 4; i++) out[i] = in[i] / n;
}

/* Slerp along the shorter arc, written from the textbook formula. */
static void my_slerp(const double a[4], const double b_in[4], double t, double out[4])
{
    double b[4], d = 0;
    for (int i = 0; i < 4; i++) d += a[i] * b_in[i];
    for (int i = 0; i < 4; i++) b[i] = d < 0 ? -b_in[i] : b_in[i];
    d = fabs(d);
    if (d > 1) d = 1;
    double th = acos(d);
    double wa = 1 - t, wb = t;
    if (th > 1e-9) wa = sin((1 - t) * th) / sin(th), wb = sin(t * th) / sin(th);
    double n = 0;
    for (int i = 0; i < 4; i++) {
        out[i] = wa * a[i] + wb * b[i];
        n += out[i] * out[i];
    }
    for (int i = 0; i < 4; i++) out[i] /= sqrt(n);
}

typedef struct dtrs {
    double t[3], q[4], s[3];
} dtrs;

/* Joint j of `anim` at frame position p (0 <= p < num_frames): frames
 * floor(p) and the next one, the one after the last being frame 0. */
static dtrs expected_local(const ossa_model *m, const ossa_animation *anim, double p, uint32_t j)
{
    uint32_t n = anim->num_frames, f0 = (uint32_t)floor(p), f1 = (f0 + 1) % n;
    double a = p - f0;
    const ossa_transform *x = &anim->frames[(size_t)f0 * m->num_joints + j];
    const ossa_transform *y = &anim->frames[(size_t)f1 * m->num_joints + j];
    dtrs r;
    for (int c = 0; c < 3; c++) {
        r.t[c] = x->translation[c] + a * ((double)y->translation[c] - x->translation[c]);
        r.s[c] = x->scale[c] + a * ((double)y->scale[c] - x->scale[c]);
    }
    double qa[4], qb[4];
    qnorm(x->rotation, qa);
    qnorm(y->rotation, qb);
    my_slerp(qa, qb, a, r.q);
    return r;
}

/* Column-major T * R * S. */
static void trs_matrix(const dtrs *x, double m[16])
{
    double qx = x->q[0], qy = x->q[1], qz = x->q[2], qw = x->q[3];
    double r[9] = {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qw * qz), 2 * (qx * qz - qw * qy),
                   2 * (qx * qy - qw * qz), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qw * qx),
                   2 * (qx * qz + qw * qy), 2 * (qy * qz - qw * qx), 1 - 2 * (qx * qx + qy * qy)};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) m[c * 4 + row] = r[c * 3 + row] * x->s[c];
        m[c * 4 + 3] = 0;
    }
    for (int row = 0; row < 3; row++) m[12 + row] = x->t[row];
    m[15] = 1;
}

static void dmul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

/* Largest |a - b| / (1 + |b|) over the matrix. */
static double matrix_error(const float a[16], const double b[16])
{
    double e = 0;
    for (int i = 0; i < 16; i++) {
        double d = fabs(a[i] - b[i]) / (1 + fabs(b[i]));
        if (d > e) e = d;
    }
    return e;
}

/* -- Models ------------------------------------------------------------------- */

static ossa_model *load_guy(void)
{
    size_t size;
    unsigned char *data = ts_read_shared("iqm/guy.iqm", &size);
    ossa_error error;
    ossa_model *m = ossa_load_memory(data, size, NULL, &error);
    free(data);
    if (!m) fail_msg("guy.iqm: %s", error.message);
    return m;
}

static uint64_t rng_state = 88172645463325252ull;
static double rnd(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static float rndf(float lo, float hi) { return lo + (float)rnd() * (hi - lo); }

static void random_quat(float q[4])
{
    double n = 0, v[4];
    do {
        n = 0;
        for (int i = 0; i < 4; i++) v[i] = rnd() * 2 - 1, n += v[i] * v[i];
    } while (n < 0.01 || n > 1);
    for (int i = 0; i < 4; i++) q[i] = (float)(v[i] / sqrt(n));
}

static void random_transform(ossa_transform *t, float tscale)
{
    for (int c = 0; c < 3; c++) {
        t->translation[c] = rndf(-tscale, tscale);
        t->scale[c] = rndf(0.5f, 1.5f);
    }
    random_quat(t->rotation);
}

/* A random skeleton of `joints` joints with one animation of `frames`
 * random frames: rotations anywhere (so consecutive keys are up to 180
 * degrees apart), not always on the same hemisphere. */
static ossa_model *random_model(uint32_t joints, uint32_t frames, uint32_t flags)
{
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    for (uint32_t j = 0; j < joints; j++) {
        ossa_transform t;
        random_transform(&t, 1);
        char name[32];
        snprintf(name, sizeof name, "j%u", (unsigned)j);
        int32_t parent = j == 0 ? -1 : (int32_t)(rnd() * j);
        assert_int_equal(ossa_model_add_joint(m, name, parent, &t, NULL), (int32_t)j);
    }
    ossa_animation *a = ossa_model_add_animation(m, "random", frames, 20, flags, NULL);
    assert_non_null(a);
    for (uint32_t i = 0; i < frames * joints; i++) random_transform(&a->frames[i], 1);
    return m;
}

static ossa_clip *make_clip(const ossa_model *m, uint32_t anim)
{
    ossa_error error;
    ossa_clip *c = ossa_clip_create(m, anim, NULL, &error);
    if (!c) fail_msg("clip: %s", error.message);
    return c;
}

/* Samples with `level`; returns 0 when the CPU lacks it. */
static int sample(const ossa_clip *clip, ossa_simd level, double time, uint32_t flags,
                  ossa_wrap wrap, ossa_transform *local, float (*model)[16], uint32_t n)
{
    if (!ossa_simd_supported(level)) return 0;
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.time = time;
    job.flags = flags;
    job.wrap = wrap;
    job.simd = level;
    job.local = local;
    job.model = model;
    job.num_outputs = n;
    ossa_error error;
    if (ossa_sample_run(&job, &error) != OSSA_OK) fail_msg("sample: %s", error.message);
    return 1;
}

/* -- guy.iqm -------------------------------------------------------------------- */

/* Sampled locals and model matrices against the independent computation
 * at frame position p (already wrapped) for a job time given as `time`. */
static void check_guy_at(const ossa_model *m, uint32_t anim, const ossa_clip *clip, double time,
                         uint32_t flags, ossa_wrap wrap, double p)
{
    uint32_t n = m->num_joints;
    ossa_transform *local = calloc(n, sizeof *local);
    float(*model)[16] = calloc(n, sizeof *model);
    double(*want)[16] = calloc(n, sizeof *want);
    for (uint32_t j = 0; j < n; j++) {
        dtrs x = expected_local(m, &m->animations[anim], p, j);
        double lm[16];
        trs_matrix(&x, lm);
        int32_t parent = m->joints[j].parent;
        if (parent >= 0)
            dmul(want[parent], lm, want[j]);
        else
            memcpy(want[j], lm, sizeof lm);
    }
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        memset(local, 0, n * sizeof *local);
        memset(model, 0, n * sizeof *model);
        if (!sample(clip, levels[l], time, flags, wrap, local, model, n)) continue;
        for (uint32_t j = 0; j < n; j++) {
            dtrs x = expected_local(m, &m->animations[anim], p, j);
            for (int c = 0; c < 3; c++) {
                TS_ASSERT_NEAR(local[j].translation[c], x.t[c], 1e-5 * (1 + fabs(x.t[c])));
                TS_ASSERT_NEAR(local[j].scale[c], x.s[c], 1e-6);
            }
            float q[4] = {(float)x.q[0], (float)x.q[1], (float)x.q[2], (float)x.q[3]};
            TS_ASSERT_QUAT_EQUIV(local[j].rotation, q, 1e-6);
            double e = matrix_error(model[j], want[j]);
            if (e > 1e-5)
                fail_msg("%s: joint %u model matrix off by %g (time %g, p %g)",
                         ossa_simd_name(levels[l]), (unsigned)j, e, time, p);
        }
    }
    free(local);
    free(model);
    free(want);
}

static void test_guy_poses(void **state)
{
    (void)state;
    ossa_model *m = load_guy();
    assert_int_equal(m->num_joints, 14);
    for (uint32_t a = 0; a < m->num_animations; a++) {
        ossa_clip *clip = make_clip(m, a);
        ossa_clip_info info;
        ossa_clip_get_info(clip, &info);
        uint32_t nf = m->animations[a].num_frames;
        float fps = m->animations[a].framerate;
        assert_int_equal(info.num_frames, nf);
        TS_ASSERT_NEAR(info.framerate, fps, 0);
        TS_ASSERT_NEAR(info.duration, nf / (double)fps, 1e-12);
        /* Whole frames, fractional frames, times. */
        const double frames[] = {0, 1, 10, 10.25, 30.5, 59.999, (double)nf - 1};
        for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
            check_guy_at(m, a, clip, frames[i], OSSA_SAMPLE_FRAMES, OSSA_WRAP_LOOP, frames[i]);
            check_guy_at(m, a, clip, frames[i], OSSA_SAMPLE_FRAMES, OSSA_WRAP_CLAMP, frames[i]);
        }
        check_guy_at(m, a, clip, 0.5, 0, OSSA_WRAP_LOOP, 0.5 * fps);
        /* Looping past the end: 0.5 s after the duration, and between the
         * last frame and frame 0 again. */
        double dur = nf / (double)fps;
        check_guy_at(m, a, clip, dur + 0.5, 0, OSSA_WRAP_LOOP, 0.5 * fps);
        check_guy_at(m, a, clip, (nf - 0.5) / fps, 0, OSSA_WRAP_LOOP, nf - 0.5);
        check_guy_at(m, a, clip, 3 * dur + 0.25, 0, OSSA_WRAP_LOOP,
                     fmod((3 * dur + 0.25) * fps, nf));
        ossa_clip_free(clip);
    }
    ossa_model_free(m);
}

/* Exact frames come out as the model's frames (normalized), bit for bit on
 * every level. */
static void test_guy_exact_frames(void **state)
{
    (void)state;
    ossa_model *m = load_guy();
    ossa_clip *clip = make_clip(m, 0);
    uint32_t n = m->num_joints;
    ossa_transform local[14];
    for (size_t l = 0; l < NUM_LEVELS; l++)
        for (uint32_t f = 0; f < m->animations[0].num_frames; f += 7) {
            if (!sample(clip, levels[l], f, OSSA_SAMPLE_FRAMES, OSSA_WRAP_CLAMP, local, NULL, n))
                continue;
            for (uint32_t j = 0; j < n; j++) {
                const ossa_transform *src = &m->animations[0].frames[f * n + j];
                assert_memory_equal(local[j].translation, src->translation, 12);
                assert_memory_equal(local[j].scale, src->scale, 12);
                TS_ASSERT_QUAT_EQUIV(local[j].rotation, src->rotation, 1e-7);
            }
        }
    ossa_clip_free(clip);
    ossa_model_free(m);
}

/* -- Loop and clamp edges -------------------------------------------------------- */

static void test_loop_clamp_edges(void **state)
{
    (void)state;
    ossa_model *m = random_model(5, 10, 0);
    ossa_clip *clip = make_clip(m, 0);
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    double dur = info.duration; /* 10 frames at 20 fps */
    TS_ASSERT_NEAR(dur, 0.5, 1e-12);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, dur, OSSA_WRAP_LOOP), 0, 0);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, dur, OSSA_WRAP_CLAMP), 9, 0);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, dur, OSSA_WRAP_DEFAULT), 9, 0); /* not looping */
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, -0.05, OSSA_WRAP_LOOP), 9, 1e-9);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, -0.025, OSSA_WRAP_LOOP), 9.5, 1e-9);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, -0.05, OSSA_WRAP_CLAMP), 0, 0);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, 0.475, OSSA_WRAP_CLAMP), 9, 0);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, 0.44, OSSA_WRAP_CLAMP), 8.8, 1e-9);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, 2 * dur + 0.1, OSSA_WRAP_LOOP), 2, 1e-9);
    TS_ASSERT_NEAR(ossa_clip_frame_at(clip, NAN, OSSA_WRAP_LOOP), 0, 0);

    uint32_t n = 5;
    ossa_transform got[5], want[5];
    const ossa_transform *frames = m->animations[0].frames;
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        /* t = duration: loop gives frame 0, clamp the last frame. */
        if (!sample(clip, levels[l], dur, 0, OSSA_WRAP_LOOP, got, NULL, n)) continue;
        for (uint32_t j = 0; j < n; j++) {
            assert_memory_equal(got[j].translation, frames[j].translation, 12);
            TS_ASSERT_QUAT_EQUIV(got[j].rotation, frames[j].rotation, 1e-7);
        }
        sample(clip, levels[l], dur, 0, OSSA_WRAP_CLAMP, got, NULL, n);
        for (uint32_t j = 0; j < n; j++)
            assert_memory_equal(got[j].translation, frames[9 * n + j].translation, 12);
        /* Far past the end, clamped: the last frame. */
        sample(clip, levels[l], 100, 0, OSSA_WRAP_CLAMP, got, NULL, n);
        for (uint32_t j = 0; j < n; j++)
            assert_memory_equal(got[j].translation, frames[9 * n + j].translation, 12);
        /* Negative times: clamp gives frame 0, loop wraps to the seam
         * between the last frame and frame 0. */
        sample(clip, levels[l], -0.3, 0, OSSA_WRAP_CLAMP, got, NULL, n);
        for (uint32_t j = 0; j < n; j++)
            assert_memory_equal(got[j].translation, frames[j].translation, 12);
        sample(clip, levels[l], -0.025, 0, OSSA_WRAP_LOOP, got, NULL, n);
        sample(clip, OSSA_SIMD_REFERENCE, 9.5, OSSA_SAMPLE_FRAMES, OSSA_WRAP_LOOP, want, NULL, n);
        for (uint32_t j = 0; j < n; j++) {
            for (int c = 0; c < 3; c++) {
                double mid =
                    0.5 * ((double)frames[9 * n + j].translation[c] + frames[j].translation[c]);
                TS_ASSERT_NEAR(got[j].translation[c], mid, 1e-6);
            }
            TS_ASSERT_QUAT_EQUIV(got[j].rotation, want[j].rotation, 1e-6);
        }
    }
    ossa_clip_free(clip);
    ossa_model_free(m);
}

/* -- SIMD against the reference ------------------------------------------------------ */

static void compare_levels(const ossa_clip *clip, uint32_t n, double time, uint32_t flags,
                           double *max_local, double *max_model)
{
    ossa_transform *ref = calloc(n, sizeof *ref), *got = calloc(n, sizeof *got);
    float(*mref)[16] = calloc(n, sizeof *mref), (*mgot)[16] = calloc(n, sizeof *mgot);
    sample(clip, OSSA_SIMD_REFERENCE, time, flags, OSSA_WRAP_DEFAULT, ref, mref, n);
    for (size_t l = 1; l < NUM_LEVELS; l++) {
        if (!sample(clip, levels[l], time, flags, OSSA_WRAP_DEFAULT, got, mgot, n)) continue;
        for (uint32_t j = 0; j < n; j++) {
            for (int c = 0; c < 3; c++) {
                double e = fabs(got[j].translation[c] - ref[j].translation[c]);
                e = fmax(e, fabs(got[j].scale[c] - ref[j].scale[c]));
                if (e > *max_local) *max_local = e;
            }
            double e = ts_quat_distance(got[j].rotation, ref[j].rotation);
            if (e > *max_local) *max_local = e;
            for (int i = 0; i < 16; i++) {
                e = fabs(mgot[j][i] - mref[j][i]) / (1 + fabs(mref[j][i]));
                if (e > *max_model) *max_model = e;
            }
        }
        /* Only `model` asked for: the same matrices. */
        float(*monly)[16] = calloc(n, sizeof *monly);
        sample(clip, levels[l], time, flags, OSSA_WRAP_DEFAULT, NULL, monly, n);
        assert_memory_equal(monly, mgot, n * sizeof *monly);
        free(monly);
    }
    free(ref);
    free(got);
    free(mref);
    free(mgot);
}

static void test_simd_vs_reference(void **state)
{
    (void)state;
    const uint32_t sizes[] = {1, 3, 8, 13, 67, 100};
    double max_local = 0, max_model = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        ossa_model *m = random_model(sizes[s], 16, OSSA_ANIMATION_LOOP);
        ossa_clip *clip = make_clip(m, 0);
        for (int i = 0; i < 50; i++) {
            double t = rnd() * 2 - 0.5;
            compare_levels(clip, sizes[s], t, 0, &max_local, &max_model);
        }
        compare_levels(clip, sizes[s], 3.5, OSSA_SAMPLE_FRAMES, &max_local, &max_model);
        compare_levels(clip, sizes[s], 0.3, OSSA_SAMPLE_REMOVE_ROOT_MOTION, &max_local, &max_model);
        ossa_clip_free(clip);
        ossa_model_free(m);
    }
    printf("fast levels vs reference: local %.3g, model %.3g (relative)\n", max_local, max_model);
    assert_true(max_local < 1e-6);
    assert_true(max_model < 1e-5);
}

/* The slerp approximation over every angle: pairs of keys from 0 to
 * `max_angle` radians of rotation apart (2 pi: also past the hemisphere
 * flip; 45 degrees: only pairs close enough for the direct series), sampled
 * at many factors. */
static void slerp_accuracy(double max_angle)
{
    enum { JOINTS = 181 };
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform id = ossa_transform_identity();
    for (int j = 0; j < JOINTS; j++) ossa_model_add_joint(m, "", j ? 0 : -1, &id, NULL);
    ossa_animation *a = ossa_model_add_animation(m, "", 2, 1, 0, NULL);
    for (int j = 0; j < JOINTS; j++) {
        float q0[4], axis[4];
        random_quat(q0);
        random_quat(axis);
        double len =
            sqrt((double)axis[0] * axis[0] + (double)axis[1] * axis[1] + (double)axis[2] * axis[2]);
        double ang = max_angle * j / (JOINTS - 1);
        float r[4] = {(float)(axis[0] / len * sin(ang / 2)), (float)(axis[1] / len * sin(ang / 2)),
                      (float)(axis[2] / len * sin(ang / 2)), (float)cos(ang / 2)};
        memcpy(a->frames[j].rotation, q0, sizeof q0);
        float q1[4];
        /* q1 = r * q0 */
        q1[0] = r[3] * q0[0] + r[0] * q0[3] + r[1] * q0[2] - r[2] * q0[1];
        q1[1] = r[3] * q0[1] - r[0] * q0[2] + r[1] * q0[3] + r[2] * q0[0];
        q1[2] = r[3] * q0[2] + r[0] * q0[1] - r[1] * q0[0] + r[2] * q0[3];
        q1[3] = r[3] * q0[3] - r[0] * q0[0] - r[1] * q0[1] - r[2] * q0[2];
        memcpy(a->frames[JOINTS + j].rotation, q1, sizeof q1);
    }
    ossa_clip *clip = make_clip(m, 0);
    ossa_transform got[JOINTS];
    double worst[NUM_LEVELS] = {0};
    for (int k = 0; k <= 200; k++) {
        double t = k / 200.0;
        for (size_t l = 0; l < NUM_LEVELS; l++) {
            if (!sample(clip, levels[l], t, OSSA_SAMPLE_FRAMES, OSSA_WRAP_CLAMP, got, NULL, JOINTS))
                continue;
            for (int j = 0; j < JOINTS; j++) {
                double qa[4], qb[4], want[4];
                qnorm(a->frames[j].rotation, qa);
                qnorm(a->frames[JOINTS + j].rotation, qb);
                my_slerp(qa, qb, t, want);
                float w[4] = {(float)want[0], (float)want[1], (float)want[2], (float)want[3]};
                /* At exactly 180 degrees both arcs are as short: skip. */
                if (max_angle > 6 && j == (JOINTS - 1) / 2) continue;
                double e = ts_quat_distance(got[j].rotation, w);
                if (e > worst[l]) worst[l] = e;
            }
        }
    }
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        printf("slerp %-9s keys 0 to %3.0f degrees apart: max component error %.3g\n",
               ossa_simd_name(levels[l]), max_angle * 180 / PI, worst[l]);
        assert_true(worst[l] < 1e-6);
    }
    ossa_clip_free(clip);
    ossa_model_free(m);
}

static void test_slerp_accuracy(void **state)
{
    (void)state;
    slerp_accuracy(2 * PI);
    slerp_accuracy(45 * PI / 180 * 0.9999);
}

/* -- Local to model ---------------------------------------------------------------- */

static void test_local_to_model_job(void **state)
{
    (void)state;
    const uint32_t n = 45;
    ossa_model *m = random_model(n, 1, 0);
    ossa_transform local[45];
    for (uint32_t j = 0; j < n; j++) {
        random_transform(&local[j], 2);
    }
    int32_t parents[45];
    for (uint32_t j = 0; j < n; j++) parents[j] = m->joints[j].parent;
    float want[45][16], got[45][16];
    ossa_local_to_model(m, local, want);
    float root[16];
    ossa_transform rt;
    random_transform(&rt, 3);
    ossa_transform_to_matrix(&rt, root);
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        ossa_local_to_model_job job = {n, parents, local, NULL, got, levels[l], NULL};
        assert_int_equal(ossa_local_to_model_run(&job, NULL), OSSA_OK);
        for (uint32_t j = 0; j < n; j++)
            for (int i = 0; i < 16; i++)
                TS_ASSERT_NEAR(got[j][i], want[j][i], 1e-5 * (1 + fabs(want[j][i])));
        /* With a root matrix: every matrix is root * (the same). */
        job.root = root;
        assert_int_equal(ossa_local_to_model_run(&job, NULL), OSSA_OK);
        for (uint32_t j = 0; j < n; j++) {
            float r[16];
            /* root * want[j] */
            for (int c = 0; c < 4; c++)
                for (int row = 0; row < 4; row++) {
                    double s = 0;
                    for (int k = 0; k < 4; k++) s += (double)root[k * 4 + row] * want[j][c * 4 + k];
                    r[c * 4 + row] = (float)s;
                }
            for (int i = 0; i < 16; i++) TS_ASSERT_NEAR(got[j][i], r[i], 1e-4 * (1 + fabs(r[i])));
        }
    }
    ossa_local_to_model_job bad = {n, NULL, local, NULL, got, OSSA_SIMD_AUTO, NULL};
    ossa_error error;
    assert_int_equal(ossa_local_to_model_validate(&bad, &error), OSSA_FAILED);
    assert_int_equal(error.code, OSSA_ERROR_ARGUMENT);
    ossa_model_free(m);
}

/* -- Validation ----------------------------------------------------------------------- */

static void test_sample_validation(void **state)
{
    (void)state;
    ossa_model *m = random_model(10, 3, 0);
    ossa_clip *clip = make_clip(m, 0);
    ossa_transform local[10];
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    ossa_error error;
    assert_int_equal(ossa_sample_validate(&job, &error), OSSA_FAILED); /* no clip */
    job.clip = clip;
    assert_int_equal(ossa_sample_validate(&job, &error), OSSA_FAILED); /* no output */
    job.local = local;
    job.num_outputs = 9;
    assert_int_equal(ossa_sample_validate(&job, &error), OSSA_FAILED); /* too small */
    assert_int_equal(error.code, OSSA_ERROR_ARGUMENT);
    job.num_outputs = 10;
    assert_int_equal(ossa_sample_validate(&job, &error), OSSA_OK);
    job.time = INFINITY;
    assert_int_equal(ossa_sample_run(&job, &error), OSSA_FAILED);
    job.time = 0;
    job.wrap = (ossa_wrap)7;
    assert_int_equal(ossa_sample_run(&job, &error), OSSA_FAILED);
    job.wrap = OSSA_WRAP_DEFAULT;
    job.flags = 0x100;
    assert_int_equal(ossa_sample_run(&job, &error), OSSA_FAILED);
    job.flags = 0;
    job.simd = (ossa_simd)42;
    assert_int_equal(ossa_sample_run(&job, &error), OSSA_FAILED);
    job.simd = OSSA_SIMD_AUTO;
    assert_int_equal(ossa_sample_run(&job, &error), OSSA_OK);

    /* Clip creation errors. */
    assert_null(ossa_clip_create(m, 1, NULL, &error));
    assert_int_equal(error.code, OSSA_ERROR_ARGUMENT);
    ossa_clip_options opt;
    memset(&opt, 0, sizeof opt);
    opt.root_joint = 3; /* not a root */
    assert_null(ossa_clip_create(m, 0, &opt, &error));
    /* Allocation failure. */
    ts_alloc alloc;
    ts_alloc_init(&alloc, 0, 1);
    memset(&opt, 0, sizeof opt);
    opt.allocator = &alloc.allocator;
    assert_null(ossa_clip_create(m, 0, &opt, &error));
    assert_int_equal(error.code, OSSA_ERROR_NOMEM);
    ts_alloc_init(&alloc, -1, 0);
    ossa_clip *c2 = ossa_clip_create(m, 0, &opt, &error);
    assert_non_null(c2);
    assert_int_equal(alloc.live, 1);
    ossa_clip_free(c2);
    assert_int_equal(alloc.live, 0);
    ossa_clip_free(NULL);
    ossa_clip_free(clip);
    ossa_model_free(m);
}

/* An animation without frames gives the bind pose; framerate 0 means the
 * default rate. */
static void test_empty_animation(void **state)
{
    (void)state;
    ossa_model *m = random_model(4, 2, 0);
    ossa_animation *a = ossa_model_add_animation(m, "empty", 0, 0, 0, NULL);
    assert_non_null(a);
    ossa_clip *clip = make_clip(m, 1);
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    assert_int_equal(info.num_frames, 1);
    TS_ASSERT_NEAR(info.framerate, OSSA_DEFAULT_FRAMERATE, 0);
    assert_string_equal(info.name, "empty");
    ossa_transform local[4];
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!sample(clip, levels[l], 0.37, 0, OSSA_WRAP_LOOP, local, NULL, 4)) continue;
        for (uint32_t j = 0; j < 4; j++) {
            for (int c = 0; c < 3; c++)
                TS_ASSERT_NEAR(local[j].translation[c], m->joints[j].bind.translation[c], 1e-7);
            TS_ASSERT_QUAT_EQUIV(local[j].rotation, m->joints[j].bind.rotation, 1e-6);
        }
    }
    ossa_clip_free(clip);
    ossa_model_free(m);
}

/* -- Root motion ------------------------------------------------------------------------- */

/* A root walking +0.1 per frame along x and turning 2 degrees per frame
 * about Z, with a child. */
static ossa_model *walker(uint32_t frames, uint32_t flags)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    ossa_model_add_joint(m, "root", -1, &t, NULL);
    t.translation[2] = 1;
    ossa_model_add_joint(m, "child", 0, &t, NULL);
    ossa_animation *a = ossa_model_add_animation(m, "walk", frames, 10, flags, NULL);
    for (uint32_t f = 0; f < frames; f++) {
        ossa_transform *r = &a->frames[f * 2];
        r->translation[0] = 0.1f * (float)f;
        r->translation[1] = 0;
        r->translation[2] = 0.5f + 0.01f * (float)f; /* up: never root motion */
        double yaw = 2 * PI / 180 * f;
        r->rotation[0] = r->rotation[1] = 0;
        r->rotation[2] = (float)sin(yaw / 2);
        r->rotation[3] = (float)cos(yaw / 2);
    }
    return m;
}

static void test_root_motion(void **state)
{
    (void)state;
    ossa_model *m = walker(11, OSSA_ANIMATION_LOOP);
    ossa_clip *clip = make_clip(m, 0);
    ossa_root_motion rm;
    /* 0.5 s = 5 frames: 0.5 along x, 10 degrees. */
    ossa_clip_root_motion(clip, 0.1, 0.6, OSSA_WRAP_DEFAULT, &rm);
    TS_ASSERT_NEAR(rm.translation[0], 0.5, 1e-5);
    TS_ASSERT_NEAR(rm.translation[1], 0, 1e-6);
    TS_ASSERT_NEAR(rm.translation[2], 0, 0);
    TS_ASSERT_NEAR(rm.yaw, 10 * PI / 180, 1e-5);
    /* One full loop (11 frames, 1.1 s) moves 11 steps: 10 real ones and the
     * extrapolated seam; three loops three times that. */
    ossa_clip_root_motion(clip, 0, 1.1, OSSA_WRAP_DEFAULT, &rm);
    TS_ASSERT_NEAR(rm.translation[0], 1.1, 1e-5);
    TS_ASSERT_NEAR(rm.yaw, 22 * PI / 180, 1e-5);
    ossa_clip_root_motion(clip, 0.25, 0.25 + 3.3, OSSA_WRAP_DEFAULT, &rm);
    TS_ASSERT_NEAR(rm.translation[0], 3.3, 1e-4);
    /* Backwards. */
    ossa_clip_root_motion(clip, 0.6, 0.1, OSSA_WRAP_DEFAULT, &rm);
    TS_ASSERT_NEAR(rm.translation[0], -0.5, 1e-5);
    /* Clamped: stops at the last frame. */
    ossa_clip_root_motion(clip, 0, 5, OSSA_WRAP_CLAMP, &rm);
    TS_ASSERT_NEAR(rm.translation[0], 1.0, 1e-5);
    TS_ASSERT_NEAR(rm.yaw, 20 * PI / 180, 1e-5);

    /* Removal pins the root to frame 0 (x = 0, yaw 0) but keeps its height,
     * on every level. */
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        ossa_transform local[2];
        float model[2][16];
        if (!sample(clip, levels[l], 0.73, OSSA_SAMPLE_REMOVE_ROOT_MOTION, OSSA_WRAP_DEFAULT, local,
                    model, 2))
            continue;
        TS_ASSERT_NEAR(local[0].translation[0], 0, 1e-6);
        TS_ASSERT_NEAR(local[0].translation[1], 0, 1e-6);
        TS_ASSERT_NEAR(local[0].translation[2], 0.5 + 0.073, 1e-5);
        float id[4] = {0, 0, 0, 1};
        TS_ASSERT_QUAT_EQUIV(local[0].rotation, id, 1e-6);
        TS_ASSERT_NEAR(model[1][12], 0, 1e-5);
        TS_ASSERT_NEAR(model[1][14], 1.573, 1e-5);
    }
    ossa_clip_free(clip);
    ossa_model_free(m);
}

/* A clip built from the caller's own arrays (no model): the runtime
 * library's entry for programs that link it alone. */
static void test_clip_from_arrays(void **state)
{
    (void)state;
    const int32_t parents[2] = {-1, 0};
    ossa_transform bind[2], frames[3 * 2];
    for (int j = 0; j < 2; j++) bind[j] = ossa_transform_identity();
    bind[1].translation[2] = 1;
    for (int f = 0; f < 3; f++)
        for (int j = 0; j < 2; j++) {
            ossa_transform *t = &frames[f * 2 + j];
            *t = bind[j];
            t->translation[0] = (float)(f + 10 * j); /* x = f (root), 10 + f (child, local) */
        }
    ossa_clip_source src = {"slide", 2, parents, bind, 3, frames, 10, 0, 0};
    ossa_error err;
    ossa_clip *clip = ossa_clip_build(&src, NULL, &err);
    assert_non_null(clip);
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    assert_string_equal(info.name, "slide");
    assert_int_equal(info.num_frames, 3);
    assert_true(info.framerate == 10);
    /* 0.15 s = frame 1.5: root x 1.5, child x 1.5 + 11.5 in model space */
    float model[2][16];
    ossa_sample_job job = {0};
    job.clip = clip;
    job.time = 0.15;
    job.model = model;
    job.num_outputs = 2;
    assert_int_equal(ossa_sample_run(&job, &err), OSSA_OK);
    TS_ASSERT_NEAR(model[0][12], 1.5, 1e-6);
    TS_ASSERT_NEAR(model[1][12], 13.0, 1e-5);
    TS_ASSERT_NEAR(model[1][14], 1.0, 1e-6);
    /* a float clip measures as exact against its own source */
    ossa_clip_stats stats;
    assert_int_equal(ossa_clip_measure_source(&src, clip, &stats, &err), OSSA_OK);
    assert_true(stats.max_error < 1e-6);
    ossa_clip_free(clip);
    /* compressed, within the bound given */
    ossa_clip_options opt = {0};
    opt.compression = OSSA_CLIP_COMPRESSED;
    opt.max_error = 1e-3f;
    clip = ossa_clip_build(&src, &opt, &err);
    assert_non_null(clip);
    assert_int_equal(ossa_clip_measure_source(&src, clip, &stats, &err), OSSA_OK);
    assert_true(stats.max_error <= 1e-3);
    ossa_clip_free(clip);

    /* sources that cannot be read */
    const int32_t forward[2] = {1, -1};
    ossa_clip_source bad = src;
    bad.parents = forward;
    assert_null(ossa_clip_build(&bad, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "joint 0: parent 1 does not come before it"));
    bad = src;
    bad.frames = NULL;
    assert_null(ossa_clip_build(&bad, NULL, &err));
    assert_non_null(strstr(err.message, "needs them"));
    bad = src;
    bad.bind_pose = NULL;
    assert_null(ossa_clip_build(&bad, NULL, &err));
    assert_null(ossa_clip_build(NULL, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    /* no frames: one frame of the bind pose */
    bad = src;
    bad.num_frames = 0;
    bad.frames = NULL;
    clip = ossa_clip_build(&bad, NULL, &err);
    assert_non_null(clip);
    ossa_clip_get_info(clip, &info);
    assert_int_equal(info.num_frames, 1);
    ossa_clip_free(clip);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guy_poses),
        cmocka_unit_test(test_guy_exact_frames),
        cmocka_unit_test(test_loop_clamp_edges),
        cmocka_unit_test(test_simd_vs_reference),
        cmocka_unit_test(test_slerp_accuracy),
        cmocka_unit_test(test_local_to_model_job),
        cmocka_unit_test(test_sample_validation),
        cmocka_unit_test(test_empty_animation),
        cmocka_unit_test(test_root_motion),
        cmocka_unit_test(test_clip_from_arrays),
    };
    printf("best SIMD level here: %s\n", ossa_simd_name(ossa_simd_best()));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
