/* Editing a model's animations: frame ranges (the IQM SDK's --start and
 * --end), frame rate and loop flag, names, removal. Resampling is in
 * resample.c. */
#include "core/internal.h"

#include <math.h>

static ossa_animation *find(ossa_model *model, uint32_t animation, ossa_error *error)
{
    if (animation < model->num_animations) return &model->animations[animation];
    ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
               "animation %u does not exist (the model has %u)", animation,
               model->num_animations);
    return NULL;
}

ossa_status ossa_animation_range(uint32_t num_frames, int64_t start, int64_t end, uint32_t *first,
                                 uint32_t *count, ossa_error *error)
{
    ossa__error_clear(error);
    *first = 0;
    *count = 0;
    if (start < 0)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "start frame %lld: expected 0 or more", (long long)start);
    if (num_frames == 0)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the animation has no frames to choose from");
    /* docs/formats/iqm.md §15: -1 is the last frame, and below that the last kept frame
     * is count + end + 1, so -2 also keeps every frame and -3 drops one. */
    int64_t last = end == -1 ? (int64_t)num_frames - 1
                   : end < -1 ? (int64_t)num_frames + end + 1
                              : end;
    if (last > (int64_t)num_frames - 1) last = (int64_t)num_frames - 1;
    if (start > last)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "frames %lld to %lld: no frame of 0 to %u is in that range",
                          (long long)start, (long long)last, num_frames - 1);
    *first = (uint32_t)start;
    *count = (uint32_t)(last - start + 1);
    return OSSA_OK;
}

ossa_status ossa_model_trim_animation(ossa_model *model, uint32_t animation, uint32_t first,
                                      uint32_t count, ossa_error *error)
{
    ossa__error_clear(error);
    ossa_animation *a = find(model, animation, error);
    if (!a) return OSSA_FAILED;
    if (first > a->num_frames || count > a->num_frames - first || count == 0)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "frames %u to %llu are not inside animation '%s' (frames 0 to %u)",
                          first, (unsigned long long)first + count - (count ? 1 : 0), a->name,
                          a->num_frames ? a->num_frames - 1 : 0);
    size_t per_frame = model->num_joints;
    if (per_frame && first)
        memmove(a->frames, a->frames + (size_t)first * per_frame,
                (size_t)count * per_frame * sizeof *a->frames);
    if (a->bounds && first) memmove(a->bounds, a->bounds + first, (size_t)count * sizeof *a->bounds);
    a->num_frames = count;
    return OSSA_OK;
}

ossa_status ossa_model_set_animation_timing(ossa_model *model, uint32_t animation,
                                            float framerate, uint32_t flags, ossa_error *error)
{
    ossa__error_clear(error);
    ossa_animation *a = find(model, animation, error);
    if (!a) return OSSA_FAILED;
    if (!(framerate >= 0) || !isfinite(framerate))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "frame rate %g: expected a finite number, 0 or more", (double)framerate);
    a->framerate = framerate;
    a->flags = flags;
    return OSSA_OK;
}

ossa_status ossa_model_rename_animation(ossa_model *model, uint32_t animation, const char *name,
                                        ossa_error *error)
{
    ossa__error_clear(error);
    ossa_animation *a = find(model, animation, error);
    if (!a) return OSSA_FAILED;
    if (!name || !name[0])
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u: a new name must not be empty", animation);
    for (uint32_t i = 0; i < model->num_animations; i++)
        if (i != animation && strcmp(model->animations[i].name, name) == 0)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "animation %u is already called '%s'", i, name);
    char *copy = ossa__arena_strdup(ossa__model_arena(model), name);
    if (!copy) return ossa__fail_nomem(error);
    a->name = copy;
    return OSSA_OK;
}

ossa_status ossa_model_remove_animation(ossa_model *model, uint32_t animation, ossa_error *error)
{
    ossa__error_clear(error);
    if (!find(model, animation, error)) return OSSA_FAILED;
    /* Frames stay in the arena until the model is freed; what matters is
     * that nothing refers to them any more. */
    memmove(&model->animations[animation], &model->animations[animation + 1],
            (model->num_animations - animation - 1) * sizeof *model->animations);
    model->num_animations--;
    return OSSA_OK;
}
