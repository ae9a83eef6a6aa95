/* Internal parts of the animation runtime shared by clip.c, sample.c,
 * sample_packed.c, blend.c and skin.c. Not installed. */
#ifndef OSSA_RUNTIME_INTERNAL_H
#define OSSA_RUNTIME_INTERNAL_H

#include "base/base.h"
#include "math/math.h"
#include "ossa/runtime.h"

/* Joints per SoA group in a clip: every channel of 8 joints is 8
 * consecutive floats, so AVX2 reads one group per load and SSE2 half of
 * one. */
#define OSSA_CLIP_LANES 8
/* Channels per joint: translation xyz, rotation xyzw, scale xyz. */
#define OSSA_CLIP_CHANNELS 10
/* Floats per group and frame. */
#define OSSA_CLIP_GROUP (OSSA_CLIP_LANES * OSSA_CLIP_CHANNELS)

enum { OSSA_CH_TX = 0, OSSA_CH_QX = 3, OSSA_CH_SX = 7 };

/* The size of ossa_clip_options in ossa 0.2, what struct_size 0 means
 * (ossa__copy_sized): when a field is added, the offset of the new field. */
#define OSSA__CLIP_OPTIONS_0_2 sizeof(ossa_clip_options)

struct ossa_clip {
    ossa_allocator allocator;
    size_t size;          /* bytes of the single allocation */
    uint32_t num_joints;
    uint32_t num_groups;  /* ceil(num_joints / 8) */
    uint32_t num_frames;  /* >= 1; frame num_frames repeats frame 0 */
    float framerate;      /* > 0 */
    uint32_t flags;
    ossa_simd simd;       /* what AUTO means for this clip */
    uint32_t root;        /* root-motion joint (< num_joints unless 0 joints) */
    ossa_axis up;
    const char *name;
    int32_t *parents;
    /* Joints sorted by depth in the hierarchy (stable): the order in which
     * model matrices are composed. Joints of one depth do not depend on
     * each other, so their matrix products overlap in the CPU instead of
     * waiting for one another along a chain. */
    uint32_t *order;
    ossa_transform *bind;
    /* (num_frames + 1) frames of num_groups * OSSA_CLIP_GROUP floats;
     * 32-byte aligned. */
    float *data;
    /* Root motion track, (num_frames + 1) entries of 4 floats: the root's
     * translation with the up component zeroed and its unwrapped yaw. The
     * last entry extrapolates one step past the last frame. */
    float *root_track;
    /* Compressed clips (packed.h): the image that holds everything above
     * and the keys; `data` is then NULL. NULL for float clips. */
    const unsigned char *packed;
};

/* Joint j of a frame laid out in SoA groups (as clip->data holds one). */
static inline void ossa__soa_get(const float *frame, uint32_t j, ossa_transform *t)
{
    const float *g = frame + (size_t)(j / OSSA_CLIP_LANES) * OSSA_CLIP_GROUP + j % OSSA_CLIP_LANES;
    for (int c = 0; c < 3; c++) t->translation[c] = g[(OSSA_CH_TX + c) * OSSA_CLIP_LANES];
    for (int c = 0; c < 4; c++) t->rotation[c] = g[(OSSA_CH_QX + c) * OSSA_CLIP_LANES];
    for (int c = 0; c < 3; c++) t->scale[c] = g[(OSSA_CH_SX + c) * OSSA_CLIP_LANES];
}

static inline void ossa__soa_put(float *frame, uint32_t j, const ossa_transform *t)
{
    float *g = frame + (size_t)(j / OSSA_CLIP_LANES) * OSSA_CLIP_GROUP + j % OSSA_CLIP_LANES;
    for (int c = 0; c < 3; c++) g[(OSSA_CH_TX + c) * OSSA_CLIP_LANES] = t->translation[c];
    for (int c = 0; c < 4; c++) g[(OSSA_CH_QX + c) * OSSA_CLIP_LANES] = t->rotation[c];
    for (int c = 0; c < 3; c++) g[(OSSA_CH_SX + c) * OSSA_CLIP_LANES] = t->scale[c];
}

/* Joint j's key at frame f <= num_frames (frame num_frames is frame 0
 * again), of a float or a compressed clip. */
void ossa__clip_key(const ossa_clip *clip, uint32_t f, uint32_t j, ossa_transform *t);

/* The level a job runs at: `requested` with AUTO replaced by `automatic`.
 * Fails when the CPU cannot run it. */
ossa_status ossa__simd_resolve(ossa_simd requested, ossa_simd automatic, ossa_simd *out,
                               ossa_error *error);

/* Frame pair and interpolation factor for a frame position already wrapped
 * or clamped by ossa_clip_frame_at. */
void ossa__clip_locate(const ossa_clip *clip, double position, ossa_wrap wrap, uint32_t *f0,
                       float *alpha);

/* The reference samplers' arithmetic (sample_reference.c). */
/* Keys a and b interpolated by alpha (!= 0): lerp in double and the exact
 * slerp. */
void ossa__interpolate_reference(const ossa_transform *a, const ossa_transform *b, float alpha,
                                 ossa_transform *out);
/* One joint sampled in double precision from the keys at f0 and f0 + 1. */
void ossa__sample_joint_reference(const ossa_clip *clip, uint32_t f0, float alpha, uint32_t joint,
                                  ossa_transform *out);
/* The root's transform t pinned to frame 0's horizontal position and yaw. */
void ossa__remove_root_motion(const ossa_clip *clip, ossa_transform *t);
/* Joint j's reference sample t into the job's outputs, root motion removed
 * when asked (parents come first, so model[parent] is ready). */
void ossa__sample_put_reference(const ossa_sample_job *job, uint32_t j, ossa_transform t);

/* Root yaw (radians) of a rotation about the up axis, in (-pi, pi]. */
double ossa__yaw_of(const float q[4], ossa_axis up);

/* Quaternion product, in double (float out). */
void ossa__quat_mul(const float a[4], const float b[4], float out[4]);

/* Fills order[0..n) with the joints sorted by depth (stable). `scratch`
 * holds 2 * n + 1 words. A parent not smaller than its joint counts as -1. */
void ossa__depth_order(uint32_t n, const int32_t *parents, uint32_t *order, uint32_t *scratch);

/* The reference skinning step (skin.c, skin_groups.c): one influence of
 * weight wk, matrix m and normal matrix q, added in double to the point
 * p, the normal n and the tangent t (n, t may be NULL). */
static inline void ossa__skin_add_reference(double wk, const float *m, const float *q,
                                            const float *p, const float *n, const float *t,
                                            double op[3], double on[3], double ot[3])
{
    for (int r = 0; r < 3; r++) {
        op[r] += wk * ((double)m[r] * p[0] + (double)m[4 + r] * p[1] + (double)m[8 + r] * p[2] +
                       m[12 + r]);
        if (n)
            on[r] += wk * ((double)q[r] * n[0] + (double)q[4 + r] * n[1] + (double)q[8 + r] * n[2]);
        if (t)
            ot[r] += wk * ((double)q[r] * t[0] + (double)q[4 + r] * t[1] + (double)q[8 + r] * t[2]);
    }
}

/* out[i] = a[i] * b[i] with the best code this CPU has; out may alias. */
void ossa__mat_mul_many(uint32_t count, const float (*a)[16], const float (*b)[16],
                        float (*out)[16]);

#endif
