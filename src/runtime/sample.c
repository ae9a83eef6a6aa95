/* Sampling a compiled clip, and local-to-model matrices (see ossa.h,
 * Runtime). The reference path works joint by joint in double precision
 * with the exact slerp (sample_reference.c); the fast paths run the kernels of
 * sample_kernels.inc on 4 or 8 joints at a time.
 *
 * Slerp in the fast paths: the angle between the two keys is halved first
 * (the normalized sum of the keys is the exact midpoint), so that the
 * polynomial of Eberly ("A Fast and Accurate Algorithm for Computing
 * SLERP", 2011) only ever sees half-angles up to pi/4, where 6 terms with
 * the last one scaled by mu = 1.155 are accurate to 2.2e-9 in exact
 * arithmetic (checked on a 200 x 50 grid of angles and t). When all the
 * key pairs of a group of joints are close (the usual case between two
 * frames), 3 terms on the whole arc do as well without the halving.
 * Float rounding dominates the error of the result (see the runtime
 * tests). */
#include "runtime/packed.h"
#include "runtime/runtime.h"
#include "runtime/simd.h"

#include <math.h>

#include "runtime/slerp.h"

/* -- Kernel instantiations ------------------------------------------------- */

#define VT ossa_f4
#define VW 4
#define V(op) ossa_f4_##op
#define K(name) ossa__scalar_##name
#define KATTR
#include "runtime/sample_kernels.inc"
#undef VT
#undef VW
#undef V
#undef K
#undef KATTR

#ifdef OSSA_HAVE_SSE2
#define VT ossa_m4
#define VW 4
#define V(op) ossa_m4_##op
#define K(name) ossa__sse2_##name
#define KATTR
#include "runtime/sample_kernels.inc"
#undef VT
#undef VW
#undef V
#undef K
#undef KATTR
#endif

#ifdef OSSA_HAVE_AVX2
#define VT ossa_m8
#define VW 8
#define V(op) ossa_m8_##op
#define K(name) ossa__avx2_##name
#define KATTR OSSA_AVX2
#include "runtime/sample_kernels.inc"
#undef VT
#undef VW
#undef V
#undef K
#undef KATTR
#endif

/* -- Sampling -------------------------------------------------------------- */

ossa_status ossa_sample_validate(const ossa_sample_job *job, ossa_error *error)
{
    if (!job || !job->clip)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "sample job without a clip");
    const ossa_clip *clip = job->clip;
    if (!job->local && !job->model)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "sample job without an output (local or model)");
    if (job->num_outputs < clip->num_joints)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "sample job output holds %u entries, the clip has %u joints",
                          (unsigned)job->num_outputs, (unsigned)clip->num_joints);
    if ((unsigned)job->wrap > OSSA_WRAP_CLAMP)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "unknown wrap mode %d",
                          (int)job->wrap);
    if (job->flags & ~(uint32_t)(OSSA_SAMPLE_FRAMES | OSSA_SAMPLE_REMOVE_ROOT_MOTION))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "unknown sample flags 0x%x",
                          (unsigned)job->flags);
    if (!isfinite(job->time))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "sample time is not finite");
    if (job->cache && clip->packed && job->cache->groups < clip->num_groups)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "sample cache holds %u joints, the clip has %u",
                          (unsigned)job->cache->groups * OSSA_CLIP_LANES,
                          (unsigned)clip->num_joints);
    ossa_simd level;
    return ossa__simd_resolve(job->simd, clip->simd, &level, error);
}

/* The float clip's kernels over the keys at f0 and f0 + 1. */
static void sample_float(const ossa_sample_job *job, ossa_simd level, uint32_t f0, float alpha)
{
    const ossa_clip *clip = job->clip;
    size_t frame_floats = (size_t)clip->num_groups * OSSA_CLIP_GROUP;
    const float *a = clip->data + f0 * frame_floats, *b = a + frame_floats;
    /* Ask for both frames at once: a random seek then waits for memory
     * about once instead of once per group of joints. */
    size_t frame_bytes = frame_floats * sizeof(float);
    for (size_t off = 0; off < frame_bytes; off += 64) {
        OSSA_PREFETCH((const char *)a + off);
        if (alpha != 0) OSSA_PREFETCH((const char *)b + off);
    }
    ossa__slerp_consts sc;
    ossa__slerp_consts_init(&sc, alpha);
    switch (level) {
#ifdef OSSA_HAVE_AVX2
    case OSSA_SIMD_AVX2: ossa__avx2_sample(clip, &sc, a, b, job->local, job->model); break;
#endif
#ifdef OSSA_HAVE_SSE2
    case OSSA_SIMD_SSE2: ossa__sse2_sample(clip, &sc, a, b, job->local, job->model); break;
#endif
    default: ossa__scalar_sample(clip, &sc, a, b, job->local, job->model); break;
    }
}

/* After the kernels of either kind of clip: root motion removed, then the
 * model matrices composed down the hierarchy. */
static void sample_finish(const ossa_sample_job *job, ossa_simd level, uint32_t f0, float alpha)
{
    const ossa_clip *clip = job->clip;
    ossa_transform *local = job->local;
    float(*model)[16] = job->model;
    uint32_t n = clip->num_joints;
    if (job->flags & OSSA_SAMPLE_REMOVE_ROOT_MOTION) {
        ossa_transform t;
        if (local)
            t = local[clip->root];
        else
            ossa__sample_joint_reference(clip, f0, alpha, clip->root, &t);
        ossa__remove_root_motion(clip, &t);
        if (local) local[clip->root] = t;
        if (model) ossa_transform_to_matrix(&t, model[clip->root]);
    }
    if (model) {
        switch (level) {
#ifdef OSSA_HAVE_AVX2
        case OSSA_SIMD_AVX2: ossa__avx2_parents(n, clip->parents, clip->order, NULL, model); break;
#endif
#ifdef OSSA_HAVE_SSE2
        case OSSA_SIMD_SSE2: ossa__sse2_parents(n, clip->parents, clip->order, NULL, model); break;
#endif
        default: ossa__scalar_parents(n, clip->parents, clip->order, NULL, model); break;
        }
    }
}

/* One sample of a job that has been validated. */
static void sample_validated(const ossa_sample_job *job)
{
    const ossa_clip *clip = job->clip;
    ossa_simd level;
    ossa__simd_resolve(job->simd, clip->simd, &level, NULL);
    uint32_t n = clip->num_joints;
    if (n == 0) return;
    double position = (job->flags & OSSA_SAMPLE_FRAMES) ? job->time : job->time * clip->framerate;
    uint32_t f0;
    float alpha;
    ossa__clip_locate(clip, position, job->wrap, &f0, &alpha);
    if (clip->packed) {
        ossa__packed_sample(job, level, f0, alpha);
    } else if (level == OSSA_SIMD_REFERENCE) {
        for (uint32_t j = 0; j < n; j++) {
            ossa_transform t;
            ossa__sample_joint_reference(clip, f0, alpha, j, &t);
            ossa__sample_put_reference(job, j, t);
        }
    } else {
        sample_float(job, level, f0, alpha);
    }
    if (level != OSSA_SIMD_REFERENCE) sample_finish(job, level, f0, alpha);
}

ossa_status ossa_sample_run(const ossa_sample_job *job, ossa_error *error)
{
    if (ossa_sample_validate(job, error) != OSSA_OK) return OSSA_FAILED;
    sample_validated(job);
    return OSSA_OK;
}

ossa_status ossa_sample_run_many(const ossa_sample_job *job, const double *times, size_t count,
                                 ossa_error *error)
{
    if (!job) return ossa_sample_validate(job, error);
    /* Everything is checked before anything is written: the job (its own
     * time aside), the times, and that the outputs' size fits in size_t. */
    ossa_sample_job one = *job;
    one.time = 0;
    if (ossa_sample_validate(&one, error) != OSSA_OK) return OSSA_FAILED;
    if (count && !times)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "sampling %zu times without an array of times", count);
    for (size_t i = 0; i < count; i++)
        if (!isfinite(times[i]))
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "sample time %zu of %zu is not finite", i, count);
    size_t stride = job->num_outputs;
    if (count && stride > SIZE_MAX / sizeof(float[16]) / count)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "%zu samples of %zu outputs do not fit in memory", count, stride);
    if (job->clip->num_joints == 0) return OSSA_OK;
    for (size_t i = 0; i < count; i++) {
        one.time = times[i];
        one.local = job->local ? job->local + i * stride : NULL;
        one.model = job->model ? job->model + i * stride : NULL;
        sample_validated(&one);
    }
    return OSSA_OK;
}

/* -- Local to model -------------------------------------------------------- */

ossa_status ossa_local_to_model_validate(const ossa_local_to_model_job *job, ossa_error *error)
{
    if (!job)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no local-to-model job");
    if (job->num_joints && (!job->parents || !job->local || !job->model))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "local-to-model job needs parents, local and model arrays");
    ossa_simd level;
    return ossa__simd_resolve(job->simd, OSSA_SIMD_AUTO, &level, error);
}

ossa_status ossa_local_to_model_run(const ossa_local_to_model_job *job, ossa_error *error)
{
    if (ossa_local_to_model_validate(job, error) != OSSA_OK) return OSSA_FAILED;
    ossa_simd level;
    ossa__simd_resolve(job->simd, OSSA_SIMD_AUTO, &level, NULL);
    uint32_t n = job->num_joints;
    float(*model)[16] = job->model;
    const uint32_t *order = job->order;
    switch (level) {
#ifdef OSSA_HAVE_AVX2
    case OSSA_SIMD_AVX2:
        ossa__avx2_local_matrices(n, job->local, model);
        ossa__avx2_parents(n, job->parents, order, job->root, model);
        break;
#endif
#ifdef OSSA_HAVE_SSE2
    case OSSA_SIMD_SSE2:
        ossa__sse2_local_matrices(n, job->local, model);
        ossa__sse2_parents(n, job->parents, order, job->root, model);
        break;
#endif
    case OSSA_SIMD_SCALAR:
        ossa__scalar_local_matrices(n, job->local, model);
        ossa__scalar_parents(n, job->parents, order, job->root, model);
        break;
    default:
        for (uint32_t j = 0; j < n; j++) {
            float m[16];
            ossa_transform_to_matrix(&job->local[j], m);
            int32_t p = job->parents[j];
            if (p >= 0 && (uint32_t)p < j)
                ossa__mat4_mul(model[p], m, model[j]);
            else if (job->root)
                ossa__mat4_mul(job->root, m, model[j]);
            else
                memcpy(model[j], m, sizeof m);
        }
        break;
    }
    return OSSA_OK;
}

/* Products of matrix pairs with the best code this CPU has. */
#ifdef OSSA_HAVE_AVX2
static OSSA_AVX2 void mat_mul_many_avx2(uint32_t count, const float (*a)[16],
                                        const float (*b)[16], float (*out)[16])
{
    for (uint32_t i = 0; i < count; i++) ossa_m8_mat_mul(a[i], b[i], out[i]);
}
#endif

void ossa__mat_mul_many(uint32_t count, const float (*a)[16], const float (*b)[16],
                        float (*out)[16])
{
#ifdef OSSA_HAVE_AVX2
    if (ossa_simd_best() == OSSA_SIMD_AVX2) {
        mat_mul_many_avx2(count, a, b, out);
        return;
    }
#endif
#ifdef OSSA_HAVE_SSE2
    for (uint32_t i = 0; i < count; i++) ossa_m4_mat_mul(a[i], b[i], out[i]);
#else
    for (uint32_t i = 0; i < count; i++) ossa_f4_mat_mul(a[i], b[i], out[i]);
#endif
}
