/*
 * ossa/runtime.h — playing animations back: clips, sampling, blending,
 * local-to-model, skinning. Needs libc and libm only (pkg-config
 * ossa-runtime, libossa-runtime): a game that samples and skins links this
 * and nothing else. Conventions: ossa/common.h.
 *
 * Quick start (error handling shortened):
 *
 *   ossa_error err;
 *   ossa_clip *clip = ossa_clip_load_file("walk.ossaclip", NULL, &err);
 *   ossa_clip_info info;
 *   ossa_clip_get_info(clip, &info);
 *   float (*model)[16] = malloc(info.num_joints * sizeof *model);
 *   ossa_sample_job job = {0};
 *   job.clip = clip;
 *   job.time = 0.5;                 // seconds, looped or clamped
 *   job.model = model;              // model-space matrices (and/or job.local)
 *   job.num_outputs = info.num_joints;
 *   ossa_sample_run(&job, &err);    // no allocation, no global state
 *   ossa_clip_free(clip);
 */
#ifndef OSSA_RUNTIME_H
#define OSSA_RUNTIME_H

#include "ossa/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -- Runtime ---------------------------------------------------------------
 *
 * Playing animations back: compile an animation into a clip, sample it at
 * any time, blend poses, turn local poses into model-space and skinning
 * matrices and skin vertices on the CPU. Every step is a plain function or
 * a small "job" struct (zero-initialise it, fill the fields, call
 * ossa_*_validate if you want the checks alone, then ossa_*_run, which
 * validates too). Jobs read and write caller-owned buffers and never
 * allocate, lock or touch global state: any number of threads may run jobs
 * on the same clip at once.
 *
 * A "pose" is an array of num_joints ossa_transform, parent-relative, in
 * joint order. Times are in seconds unless a field says frames. */

/* Which code a job runs. Every level computes the same function and the
 * fast ones are tested against OSSA_SIMD_REFERENCE: sampled local
 * transforms and skinned vertices agree within 1e-6 per component for
 * unit-scale data; model matrices, which add up rounding along the
 * hierarchy, within 1e-5 relative (tests/test_runtime.c checks both; the
 * README gives what is measured). The results of one level are the same on every CPU that runs
 * it; AVX2 differs from SSE2 in the last bits (it fuses multiply-adds). */
typedef enum ossa_simd {
    OSSA_SIMD_AUTO = 0,  /* the fastest level this CPU supports */
    OSSA_SIMD_REFERENCE, /* plain C, double precision where it matters, exact
                            slerp: the path the fast ones are tested against */
    OSSA_SIMD_SCALAR,    /* the fast algorithm in portable C, 4 lanes: what
                            CPUs other than x86-64 get (and x86-64 builds
                            made with -DOSSA_NO_SIMD) */
    OSSA_SIMD_SSE2,      /* x86-64 only: 4 lanes of SSE2 */
    OSSA_SIMD_AVX2       /* x86-64 with AVX2 and FMA: 8 lanes */
} ossa_simd;

/* The level AUTO resolves to on this CPU (AVX2 when the CPU has AVX2 and
 * FMA, else SSE2 on x86-64, else SCALAR). */
ossa_simd ossa_simd_best(void);
/* Whether `level` can run here (AUTO, REFERENCE and SCALAR always can). */
int ossa_simd_supported(ossa_simd level);
const char *ossa_simd_name(ossa_simd level); /* "auto", "reference", ... */

/* How time maps to frames. */
typedef enum ossa_wrap {
    OSSA_WRAP_DEFAULT = 0, /* LOOP if the animation has OSSA_ANIMATION_LOOP, else CLAMP */
    OSSA_WRAP_LOOP,        /* after the last frame comes frame 0 again: frame
                              position p is taken modulo num_frames, and between
                              the last frame and p = num_frames the pose moves
                              from the last frame back to frame 0. Negative times
                              wrap too. */
    OSSA_WRAP_CLAMP        /* p is clamped to [0, num_frames - 1]: before the
                              start, frame 0; at and after the last frame, the
                              last frame */
} ossa_wrap;

/* Up axis for root motion. */
typedef enum ossa_axis { OSSA_AXIS_Z = 0, OSSA_AXIS_Y = 1, OSSA_AXIS_X = 2 } ossa_axis;

/* An animation compiled for sampling: every frame normalized and laid out
 * as structure-of-arrays (joints padded to a multiple of 8, each channel of
 * 8 joints contiguous), rotations flipped so that consecutive frames are on
 * the same hemisphere, one extra frame after the last that repeats frame 0
 * for looping. One allocation. Immutable once created, so it may be shared
 * between threads. It copies what it needs: the source may be freed. */
typedef struct ossa_clip ossa_clip;

/* How a clip stores its frames. */
typedef enum ossa_clip_compression {
    OSSA_CLIP_FLOATS = 0,  /* every frame as floats: the layout above */
    /* Compressed, within ossa_clip_options.max_error: tracks (a joint's
     * rotation, translation or scale) that a constant keeps within the
     * bound cost nothing per frame; the others are cut into segments of 16
     * frames, range-reduced per clip (and per segment where that saves
     * bits) and quantized with the fewest bits per component (0, 3-19, or
     * raw floats) that keep every frame within the bound (measured at
     * every frame; ossa_clip_info.measured_error). Sampling costs more per
     * joint than a float clip (the keys are decoded; README, bench_clip).
     * A sample still reads two key frames, found from the time alone (no
     * cursor): random seeks cost what forward playback costs. Sampling
     * between frames interpolates the decoded keys as for float clips.
     * Little-endian hosts only (OSSA_ERROR_UNSUPPORTED elsewhere). */
    OSSA_CLIP_COMPRESSED
} ossa_clip_compression;

typedef struct ossa_clip_options {
    uint32_t struct_size;            /* 0, or sizeof(ossa_clip_options) */
    const ossa_allocator *allocator; /* NULL = malloc/free; the clip and temporaries */
    /* Root motion (see ossa_root_motion): the joint whose horizontal
     * motion and yaw are tracked (zero = joint 0; must be a root, i.e.
     * parent -1) and the up axis (zero = Z, the IQM convention). */
    uint32_t root_joint;
    ossa_axis up_axis;
    /* OSSA_CLIP_COMPRESSED stores the keys quantized (see below); zero
     * keeps every frame as floats. */
    ossa_clip_compression compression;
    /* Compressed clips: the error bound, in model units. The error is
     * ACL's: the largest distance, over every frame and joint, between a
     * virtual vertex at `shell_distance` from the joint (+-d along each of
     * its axes, moved by the joint's model-space transform: errors that
     * add up down the hierarchy count) from the source frames and from the
     * compressed ones. 0 = 0.01% of the source's size
     * (ossa_clip_source.size), and for shell_distance 0 = 1% of it. */
    float max_error;
    float shell_distance;
} ossa_clip_options;

/* An animation as the runtime takes it, in memory the caller owns (the
 * "raw animation" of ozz-animation): ossa_clip_build compiles it. From a
 * model, ossa_clip_create (ossa/model.h) fills one. */
typedef struct ossa_clip_source {
    const char *name;                /* NULL = "" */
    uint32_t num_joints;
    const int32_t *parents;          /* num_joints; each < its own index, or -1 */
    const ossa_transform *bind_pose; /* num_joints parent-relative transforms */
    uint32_t num_frames;             /* 0 = one frame of the bind pose */
    const ossa_transform *frames;    /* num_frames * num_joints, frame-major */
    float framerate;                 /* 0 = OSSA_DEFAULT_FRAMERATE */
    uint32_t flags;                  /* OSSA_ANIMATION_LOOP */
    /* The character's size in model units, for the defaults of
     * ossa_clip_options.max_error and shell_distance; 0 = the extent of the
     * bind-pose joints (ossa_clip_create gives the diagonal of the box
     * around the bind-pose vertices and joints). */
    double size;
} ossa_clip_source;

/* Compiles `source` (which the clip copies: it may be freed afterwards).
 * Fails (NULL, error filled) on a source whose counts, parents or
 * pointers are missing or out of range, a root_joint that is not a root,
 * or when memory runs out. `options` may be NULL. */
ossa_clip *ossa_clip_build(const ossa_clip_source *source, const ossa_clip_options *options,
                           ossa_error *error);
void ossa_clip_free(ossa_clip *clip); /* NULL is fine */

typedef struct ossa_clip_info {
    const char *name;        /* the animation's name (owned by the clip) */
    uint32_t num_joints;     /* poses sampled from the clip have this many */
    uint32_t num_frames;     /* >= 1 */
    float framerate;         /* effective frames per second (> 0; see
                                OSSA_DEFAULT_FRAMERATE) */
    double duration;         /* looping length in seconds: num_frames / framerate;
                                a clamped clip reaches its last frame at
                                (num_frames - 1) / framerate */
    uint32_t flags;          /* the animation's flags (OSSA_ANIMATION_LOOP) */
    const int32_t *parents;  /* num_joints parent indices (owned by the clip),
                                ready for ossa_local_to_model_job */
    const ossa_transform *bind_pose; /* num_joints bind transforms, normalized */
    const uint32_t *order;   /* num_joints joint indices sorted by depth in the
                                hierarchy, for ossa_local_to_model_job.order */
    ossa_simd simd;          /* the level AUTO means for jobs on this clip */
    size_t memory;           /* bytes held by the clip */
    ossa_clip_compression compression;
    /* Compressed clips: the bound and shell distance the clip was made
     * with, and the largest error measured then over every frame (model
     * units); 0 for float clips. */
    float max_error, shell_distance, measured_error;
} ossa_clip_info;

void ossa_clip_get_info(const ossa_clip *clip, ossa_clip_info *info);

/* Compressed clips saved and loaded (.ossaclip, docs/formats/ossaclip.md):
 * the file holds exactly the clip's memory image, little-endian, so a
 * load is one allocation, a read and a check of every count and offset
 * (nothing is decoded), and saving the same clip gives the same bytes.
 * ossa_clip_data gives the image (owned by the clip; NULL with *size 0 for
 * float clips, which cannot be saved). Files are written atomically. */
const void *ossa_clip_data(const ossa_clip *clip, size_t *size);
ossa_status ossa_clip_save(const ossa_clip *clip, const char *path, ossa_error *error);
/* `allocator` NULL = malloc/free. Bad data fails with the byte offset of
 * the problem. */
ossa_clip *ossa_clip_load_memory(const void *data, size_t size, const ossa_allocator *allocator,
                                 ossa_error *error);
ossa_clip *ossa_clip_load_file(const char *path, const ossa_allocator *allocator,
                               ossa_error *error);

/* What compression did to one animation (ossa_clip_measure_source, or
 * ossa_clip_measure of a model). */
typedef struct ossa_clip_stats {
    size_t raw_bytes;        /* memory of the float clip of the same animation */
    size_t compressed_bytes; /* memory of the clip measured */
    /* The error metric of ossa_clip_options (the clip's shell distance; 1%
     * of the source's size for float clips) between the source's frames
     * and the clip sampled at every frame by OSSA_SIMD_REFERENCE, over
     * every joint and frame: the largest and the 99th percentile of the
     * per-joint, per-frame errors. Model units. */
    double max_error, p99_error;
    uint32_t constant_tracks; /* tracks with no per-frame data */
    uint32_t animated_tracks;
    /* Animated tracks per segment by bits per component: [b] counts the
     * (track, segment) pairs stored with b bits (32 = raw floats). */
    uint32_t bits_histogram[33];
} ossa_clip_stats;

/* Measures `clip`, built from `source`, against it. Temporaries come from
 * the clip's allocator. */
ossa_status ossa_clip_measure_source(const ossa_clip_source *source, const ossa_clip *clip,
                                     ossa_clip_stats *stats, ossa_error *error);

/* Frame position for a time: `seconds * framerate` wrapped or clamped by
 * `wrap`; in [0, num_frames) when looping, [0, num_frames - 1] otherwise.
 * NaN gives 0. */
double ossa_clip_frame_at(const ossa_clip *clip, double seconds, ossa_wrap wrap);

/* Sampling flags. */
enum {
    /* `time` is a (fractional) frame position, not seconds. */
    OSSA_SAMPLE_FRAMES = 1,
    /* Pin the root joint's horizontal translation and its yaw (about the
     * clip's up axis) to their values at frame 0, removing the motion that
     * ossa_clip_root_motion reports. */
    OSSA_SAMPLE_REMOVE_ROOT_MOTION = 2
};

/* Key frames of a compressed clip decoded by earlier samples, for the
 * samples that follow (ozz-animation's sampling context). Without one, a
 * sample of a compressed clip decodes its two key frames every time; with
 * one, playing forward decodes each key frame once: samples between the
 * same two frames decode nothing, the next pair decodes one frame, with
 * the ranges of its segment (16 frames) worked out once. A random seek
 * decodes what it would without a cache. Samples give the same bytes with
 * or without it. Float clips ignore it.
 *
 * A cache belongs to one playing animation: jobs that run at the same time
 * need their own. It remembers the clip by its address and header; after
 * freeing a clip, call ossa_sample_cache_reset before sampling a clip that
 * may have taken its place. It holds two decoded frames and a segment's
 * ranges: a few hundred bytes per joint (the README gives the figure). */
typedef struct ossa_sample_cache ossa_sample_cache;
/* For clips of at most num_joints joints; allocator NULL = malloc. */
ossa_sample_cache *ossa_sample_cache_create(uint32_t num_joints, const ossa_allocator *allocator,
                                            ossa_error *error);
void ossa_sample_cache_reset(ossa_sample_cache *cache);
void ossa_sample_cache_free(ossa_sample_cache *cache); /* NULL is fine */

/* Samples a clip at one time: for every joint, translation and scale are
 * interpolated linearly between the two frames around the time and the
 * rotation by slerp along the shorter arc. Random access costs the same as
 * playing forward: there is no cursor, a sample reads exactly two frames
 * (of a compressed clip, it decodes them, unless `cache` holds them).
 *
 * At an exact frame position the frame's (normalized) values come out
 * unchanged. The fast levels compute slerp without trigonometry: the arc is
 * halved first (the normalized sum of the two keys is the exact
 * midpoint), then Eberly's polynomial ("A Fast and Accurate Algorithm for
 * Computing SLERP", 2011; 6 terms, within 2.2e-9 of slerp on half-arcs up
 * to 90 degrees of rotation) weighs the keys of the half that holds the
 * time, and the result is renormalized: within float rounding of the
 * exact slerp in double precision for rotations 0 to 360 degrees apart
 * (tests/test_runtime.c). Keys exactly 180 degrees apart have two
 * shortest arcs; which one is taken is unspecified. */
typedef struct ossa_sample_job {
    const ossa_clip *clip;
    double time;       /* seconds, or frames with OSSA_SAMPLE_FRAMES; any
                          finite value (wrapped or clamped by `wrap`) */
    ossa_wrap wrap;
    uint32_t flags;    /* OSSA_SAMPLE_* */
    ossa_simd simd;    /* AUTO = the clip's level */
    /* Outputs; at least one must be set. Each has room for num_joints
     * entries (the clip's). */
    ossa_transform *local;  /* the parent-relative pose, or NULL */
    /* Model-space matrices of the sampled pose (like ossa_local_to_model),
     * computed in the same pass (faster than sampling into `local` and then
     * running ossa_local_to_model_job), or NULL. */
    float (*model)[16];
    uint32_t num_outputs; /* entries in each output: >= num_joints */
    /* Decoded key frames kept for the next sample of a compressed clip, or
     * NULL (see ossa_sample_cache). */
    ossa_sample_cache *cache;
} ossa_sample_job;

ossa_status ossa_sample_validate(const ossa_sample_job *job, ossa_error *error);
ossa_status ossa_sample_run(const ossa_sample_job *job, ossa_error *error);

/* Samples the job's clip at `count` times in one call (an animation
 * sampled every frame into one array, without a call per time): sample i
 * is what ossa_sample_run gives with job->time = times[i] (seconds, or
 * frames with OSSA_SAMPLE_FRAMES; job->time itself is ignored), written
 * to job->local + i * job->num_outputs and job->model + i * job->num_outputs
 * (each output set holds count * num_outputs entries). The job, every time
 * (finite) and the size of the outputs are checked before anything is
 * written: on failure the outputs are untouched. With job->cache, times
 * in increasing order decode each key frame of a compressed clip once.
 * count 0 (times may then be NULL) checks the job and writes nothing. */
ossa_status ossa_sample_run_many(const ossa_sample_job *job, const double *times, size_t count,
                                 ossa_error *error);

/* Model-space matrices from a local pose: model[j] = model[parent[j]] *
 * matrix(local[j]), roots get root * matrix(local[j]). A parent index that
 * is not smaller than its joint's (which a valid model never has) makes
 * the joint a root. */
typedef struct ossa_local_to_model_job {
    uint32_t num_joints;
    const int32_t *parents;      /* num_joints entries (-1 = root) */
    const ossa_transform *local; /* num_joints entries; rotations unit */
    const float *root;           /* 16 floats applied to roots, or NULL = identity */
    float (*model)[16];          /* num_joints matrices out */
    ossa_simd simd;
    /* Optional order in which to compose the matrices: a permutation of
     * the joints with every parent before its children, such as
     * ossa_clip_info.order (sorted by depth, which lets the products of a
     * skeleton's independent chains overlap: faster for long chains).
     * NULL = joint order. */
    const uint32_t *order;
} ossa_local_to_model_job;

ossa_status ossa_local_to_model_validate(const ossa_local_to_model_job *job, ossa_error *error);
ossa_status ossa_local_to_model_run(const ossa_local_to_model_job *job, ossa_error *error);

/* out[j] = model[j] * inverse_bind[j] for j < count: the matrices that
 * move a bind-pose vertex to the posed one. `out` may alias `model`. Both
 * inputs must be affine (last row 0 0 0 1). */
void ossa_skinning_matrices(uint32_t count, const float (*model)[16],
                            const float (*inverse_bind)[16], float (*out)[16]);

/* Inverse-transpose of the upper 3x3 of each matrix (translation 0), for
 * skinning normals and tangents when scales are not uniform. A singular
 * matrix gives its own 3x3. `out` may alias `matrices`. */
void ossa_normal_matrices(uint32_t count, const float (*matrices)[16], float (*out)[16]);

/* CPU linear blend skinning:
 *   out = sum_k weight[k] * M[index[k]] * (position, 1)
 *   out_normal = sum_k weight[k] * N[index[k]] * (normal, 0)   (tangent xyz alike)
 * with M = matrices and N = normal_matrices (or M when NULL: exact for
 * rotations and uniform scales). Weights are used as given (they should sum
 * to 1); normals and tangents are not renormalized; tangent w (the
 * bitangent sign) is copied. An influence whose index is >= num_matrices
 * contributes nothing. Every array is addressed as base + i * stride (bytes):
 * strides are multiples of 4 and at least the element size; a stride may
 * be larger (interleaved vertices). An output may be its own input (same
 * pointer and stride): every input of a vertex is read before any of its
 * outputs is written, so in-place skinning of interleaved buffers works.
 * Outputs must not otherwise overlap the inputs of later vertices. The
 * run checks every index once up front (one pass over the indices) so
 * that the loops need no per-influence check when all are in range. */
#define OSSA_MAX_INFLUENCES 8
typedef struct ossa_skinning_job {
    uint32_t num_vertices;
    uint32_t influences;          /* per vertex, 1..OSSA_MAX_INFLUENCES; 0 = 4 */
    const float (*matrices)[16];  /* skinning matrices (affine) */
    const float (*normal_matrices)[16]; /* NULL = use `matrices` */
    uint32_t num_matrices;

    const uint16_t *indices;      /* `influences` joint indices per vertex */
    size_t indices_stride;        /* >= 2 * influences; multiple of 2 */
    const float *weights;         /* `influences` weights per vertex */
    size_t weights_stride;        /* >= 4 * influences */

    const float *in_positions;    /* xyz; required */
    size_t in_positions_stride;   /* >= 12 */
    float *out_positions;         /* required */
    size_t out_positions_stride;

    const float *in_normals;      /* xyz, or NULL with out_normals NULL */
    size_t in_normals_stride;
    float *out_normals;
    size_t out_normals_stride;

    const float *in_tangents;     /* xyzw, or NULL with out_tangents NULL */
    size_t in_tangents_stride;    /* >= 16 */
    float *out_tangents;
    size_t out_tangents_stride;

    ossa_simd simd;
} ossa_skinning_job;

ossa_status ossa_skinning_validate(const ossa_skinning_job *job, ossa_error *error);
ossa_status ossa_skinning_run(const ossa_skinning_job *job, ossa_error *error);

/* Skinning by influence groups: prepare a mesh once, then skin it with
 * loops specialised for 1, 2, 3 and 4 influences (faster than the
 * skinning job, which tests weights per vertex). Preparing buckets the
 * vertices by their number of non-zero weights (influences of weight 0
 * are dropped, the others keep their order) and copies indices, weights,
 * positions, normals and tangents into packed arrays per bucket. The
 * result per vertex is the skinning job's with the same matrices: same
 * blending order and arithmetic at every SIMD level (equal floats, up to
 * the sign of zeros; tests/test_skin_groups.c). */
typedef struct ossa_skin_groups ossa_skin_groups;

/* `mesh` describes the mesh as a skinning job does (num_vertices,
 * influences, indices, weights, in_positions, in_normals, in_tangents
 * and their strides; the matrices and outputs are ignored) and is checked
 * like one. The groups copy what they need. */
ossa_skin_groups *ossa_skin_groups_create(const ossa_skinning_job *mesh,
                                          const ossa_allocator *allocator, ossa_error *error);
void ossa_skin_groups_free(ossa_skin_groups *groups); /* NULL is fine */

typedef struct ossa_skin_groups_info {
    uint32_t num_vertices;
    uint32_t counts[OSSA_MAX_INFLUENCES + 1]; /* vertices by non-zero influences */
    /* Vertex i of the prepared order is source vertex order[i] (groups by
     * influence count, 0 first, source order within a group). */
    const uint32_t *order;
    uint32_t max_index;  /* largest matrix index used (0 when none) */
    size_t memory;       /* bytes held */
} ossa_skin_groups_info;

void ossa_skin_groups_get_info(const ossa_skin_groups *groups, ossa_skin_groups_info *info);

enum {
    /* Write vertex i of the prepared order (ossa_skin_groups_info.order) at
     * index i of the outputs, instead of at its source index: sequential
     * stores, for renderers that draw from a reordered vertex buffer. */
    OSSA_SKIN_PREPARED_ORDER = 1
};

typedef struct ossa_grouped_skinning_job {
    const ossa_skin_groups *groups;
    const float (*matrices)[16];        /* skinning matrices (affine) */
    const float (*normal_matrices)[16]; /* NULL = use `matrices` */
    uint32_t num_matrices;              /* > every index the mesh uses */
    float *out_positions;               /* required; num_vertices entries */
    size_t out_positions_stride;        /* bytes, >= 12, a multiple of 4 */
    float *out_normals;                 /* or NULL; needs normals in the mesh */
    size_t out_normals_stride;
    float *out_tangents;                /* or NULL; needs tangents in the mesh */
    size_t out_tangents_stride;         /* >= 16 */
    uint32_t flags;                     /* OSSA_SKIN_* */
    ossa_simd simd;
} ossa_grouped_skinning_job;

ossa_status ossa_grouped_skinning_validate(const ossa_grouped_skinning_job *job,
                                           ossa_error *error);
ossa_status ossa_grouped_skinning_run(const ossa_grouped_skinning_job *job, ossa_error *error);

/* -- Blending -- */

/* One weighted input of a blend. */
typedef struct ossa_blend_layer {
    const ossa_transform *pose; /* num_joints transforms */
    float weight;               /* >= 0; 0 = ignored */
    /* Optional per-joint mask (num_joints values >= 0) multiplied with
     * `weight`, e.g. 1 for the upper body and 0 elsewhere; NULL = all 1. */
    const float *joint_weights;
} ossa_blend_layer;

/* out = the normalized weighted blend of `layers`, per joint: with
 * w_i = weight_i * joint_weights_i[j] and W = sum w_i,
 *   translation = sum w_i t_i / W, scale = sum w_i s_i / W,
 *   rotation = normalize(sum w_i q_i) with each q_i first negated if it is
 *   on the other hemisphere from the first contributing layer's rotation.
 * A joint where only one layer has a non-zero weight gets that layer's
 * transform exactly. Where W < threshold, the rest pose is blended in with
 * weight threshold - W (so all-zero weights give the rest pose).
 * Then each additive layer (a delta from ossa_pose_make_additive) is
 * applied, in order, with its weight w (masked as above), not normalized:
 *   t += w * dt,  q = q * slerp(identity, dq, w),  s *= lerp(1, ds, w).
 * `output` must not alias any input pose. */
typedef struct ossa_blend_job {
    uint32_t num_joints;
    const ossa_blend_layer *layers;
    uint32_t num_layers;
    const ossa_blend_layer *additive; /* delta poses, or NULL */
    uint32_t num_additive;
    const ossa_transform *rest_pose;  /* NULL = identity transforms */
    float threshold;                  /* 0 = 0.1 */
    ossa_transform *output;
} ossa_blend_job;

ossa_status ossa_blend_validate(const ossa_blend_job *job, ossa_error *error);
ossa_status ossa_blend_run(const ossa_blend_job *job, ossa_error *error);

/* The additive delta that turns `reference` into `pose`, joint by joint:
 * dt = t - t_ref, dq = conjugate(q_ref) * q, ds = s / s_ref (1 where
 * s_ref is 0). Applying it with weight 1 to `reference` gives `pose` back;
 * the delta of the reference itself is the identity. `delta` may alias
 * `pose`. */
void ossa_pose_make_additive(uint32_t num_joints, const ossa_transform *reference,
                             const ossa_transform *pose, ossa_transform *delta);

/* Cross-fade from one clip to another: both are sampled at their own
 * times and blended with weight w = clamp(elapsed / duration, 0, 1) for
 * `to` and 1 - w for `from` (duration <= 0 means w = 1). The clips must
 * have the same number of joints. */
typedef struct ossa_crossfade_job {
    const ossa_clip *from;
    double from_time;       /* seconds */
    const ossa_clip *to;
    double to_time;         /* seconds */
    double elapsed;         /* seconds since the fade began */
    double duration;        /* length of the fade in seconds */
    ossa_wrap wrap;         /* for both clips */
    ossa_transform *scratch; /* num_joints transforms of work space */
    ossa_transform *output;  /* num_joints transforms */
} ossa_crossfade_job;

ossa_status ossa_crossfade_validate(const ossa_crossfade_job *job, ossa_error *error);
ossa_status ossa_crossfade_run(const ossa_crossfade_job *job, ossa_error *error);

/* -- Root motion -- */

typedef struct ossa_root_motion {
    float translation[3]; /* displacement of the root joint with the up
                             component zeroed, in the root's parent (model)
                             space */
    float yaw;            /* rotation about the up axis in radians,
                             counter-clockwise seen from above */
} ossa_root_motion;

/* The root joint's horizontal motion and yaw from time t0 to time t1
 * (seconds; t1 < t0 gives the motion backwards). Looping clips accumulate
 * whole cycles: one cycle moves by the motion from frame 0 to the last
 * frame plus one more step like the last one (the step back to frame 0 is
 * not a motion). Clamped clips stop at their ends. Yaw is unwrapped frame
 * to frame, so turns of more than pi accumulate. Fills zeros for a clip
 * without joints. */
void ossa_clip_root_motion(const ossa_clip *clip, double t0, double t1, ossa_wrap wrap,
                           ossa_root_motion *out);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_RUNTIME_H */
