/* What the model layer (core) and the formats above it share: the
 * model's own memory, warnings kept in a model, writers' diagnostics,
 * vertex component conversion and bounds. Not installed. */
#ifndef OSSA_INTERNAL_H
#define OSSA_INTERNAL_H

#include "base/base.h"
#include "math/math.h"
#include "ossa/model.h"

#include <stddef.h>

/* -- The model's memory ------------------------------------------------------- */

/* Temporary memory of computations on a model (adjacency, bounds, merging,
 * validation), from the model's allocator: *_calloc zeroes and checks the
 * multiplication; free accepts NULL. */
void *ossa__temp_alloc(const ossa_model *model, size_t size);
void *ossa__temp_calloc(const ossa_model *model, size_t count, size_t elem);
void ossa__temp_free(const ossa_model *model, void *ptr);

struct ossa_model_internal {
    ossa_arena arena;
    size_t cap_joints, cap_arrays, cap_meshes, cap_animations, cap_extras, cap_warnings;
    size_t cap_rest; /* of model->rest_pose */
};

static inline ossa_arena *ossa__model_arena(ossa_model *m) { return &m->internal->arena; }

/* Where joint j stands when nothing plays: its rest pose, or its bind
 * pose when the model has no rest pose. */
static inline const ossa_transform *ossa__rest(const ossa_model *m, uint32_t j)
{
    return m->rest_pose ? &m->rest_pose[j] : &m->joints[j].bind;
}

/* Zeroed storage for an animation of the model (num_joints channel masks,
 * num_frames bounds), set on the animation and returned; NULL when memory
 * runs out. Readers fill them in place. */
uint8_t *ossa__animation_channels(ossa_model *model, ossa_animation *animation);
ossa_bounds *ossa__animation_bounds(ossa_model *model, ossa_animation *animation);
/* ossa_model_compute_bounds on up to `threads` threads (0 = 1). */
ossa_status ossa__compute_bounds(const ossa_model *model, uint32_t animation, ossa_bounds_mode mode,
                                 ossa_bounds *out, uint32_t threads, ossa_error *error);
/* The same in pieces, for callers that make poses as they go (the IQM
 * writer decodes its quantized frames): prepare once (EXACT, else
 * conservative), then the bounds of any number of poses, on any threads,
 * each with its own scratch of ossa__bounds_scratch_floats floats. */
typedef struct ossa__bounds_prep {
    const ossa_model *model;
    uint32_t nv, nj;
    bool exact;
    float *pos, *idx, *wgt; /* per vertex (EXACT only) */
    float *inv_bind;        /* 16 per joint */
    double *box; /* per joint and one more: joint-space centre, half-extent (conservative) */
} ossa__bounds_prep;
ossa_status ossa__bounds_prepare(const ossa_model *model, ossa_bounds_mode mode,
                                 ossa__bounds_prep *prep, ossa_error *error);
size_t ossa__bounds_scratch_floats(const ossa__bounds_prep *prep);
void ossa__bounds_of_pose(const ossa__bounds_prep *prep, const ossa_transform *local,
                          float *scratch, ossa_bounds *out);
void ossa__bounds_release(ossa__bounds_prep *prep);

/* The sizes of the option structs of ossa 0.2, what struct_size 0 means
 * (ossa__copy_sized): when a field is added to a struct, this becomes the
 * offset of the new field (offsetof), never the new sizeof. */
#define OSSA__LOAD_OPTIONS_0_2 offsetof(ossa_load_options, front)
#define OSSA__WRITE_OPTIONS_0_2 sizeof(ossa_write_options)

/* Records a non-fatal problem in the model; silently drops it when memory
 * runs out (a warning must never turn a good load into a failure). */
void ossa__warn(ossa_model *model, ossa_code code, uint64_t offset, uint32_t line,
                uint32_t column, const char *fmt, ...) OSSA_PRINTF(6, 7);
void ossa__warnv(ossa_model *model, ossa_code code, uint64_t offset, uint32_t line,
                 uint32_t column, const char *fmt, va_list ap);
/* A writer's warning (data it loses) or note, to the write options'
 * diagnostic callback when one is set (options may be NULL). */
void ossa__write_warn(const ossa_write_options *options, ossa_code code, const char *fmt, ...)
    OSSA_PRINTF(3, 4);
void ossa__write_note(const ossa_write_options *options, const char *fmt, ...) OSSA_PRINTF(2, 3);

/* Fills da (an animation just added to dst) from sa, an animation of a
 * model with OSSA_MODEL_REST_POSE_REFERENCE, retargeted onto dst's bind
 * pose (retarget.c); map[src joint] = dst joint or -1. */
ossa_status ossa__retarget_animation(ossa_model *dst, const ossa_model *src, const int32_t *map,
                                     const ossa_animation *sa, ossa_animation *da,
                                     ossa_error *error);

/* -- Vertex component conversion (vertex.c) -------------------------------- */

float ossa__half_to_float(uint16_t h);
uint16_t ossa__float_to_half(float f);
/* Decodes one component; normalized unless `raw` (blend indexes). */
float ossa__component_get(ossa_component format, const void *p, bool raw);
void ossa__component_put(ossa_component format, void *p, float v, bool raw);

/* One vertex's n (<= OSSA_MAX_COMPONENTS) weights as ubytes summing to
 * exactly 255 (docs/formats/iqm.md §8.3): normalized, floored, then the missing units
 * go to the largest remainders, ties to the lower slot. Weights <= 0 get
 * 0; all zero gives all 0. */
void ossa__ubyte_weights(const float *w, uint32_t n, uint8_t *out);

#endif
