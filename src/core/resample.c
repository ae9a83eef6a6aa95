/* Resampling an animation at another frame rate: the same motion over the
 * same time, in frames of the new rate. */
#include "core/internal.h"

#include <math.h>

static double effective_rate(float r)
{
    return r > 0 && isfinite(r) ? (double)r : (double)OSSA_DEFAULT_FRAMERATE;
}

static void blend(const ossa_transform *a, const ossa_transform *b, double u, ossa_transform *out)
{
    for (int c = 0; c < 3; c++) {
        out->translation[c] = (float)(a->translation[c] + u * ((double)b->translation[c] - a->translation[c]));
        out->scale[c] = (float)(a->scale[c] + u * ((double)b->scale[c] - a->scale[c]));
    }
    ossa__quat_slerp(a->rotation, b->rotation, u, out->rotation);
}

ossa_status ossa_model_resample_animation(ossa_model *model, uint32_t animation, float framerate,
                                          ossa_error *error)
{
    ossa__error_clear(error);
    if (animation >= model->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u does not exist (the model has %u)", animation,
                          model->num_animations);
    if (!(framerate > 0) || !isfinite(framerate))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "frame rate %g: expected a finite number above 0", (double)framerate);
    ossa_animation *a = &model->animations[animation];
    double r0 = effective_rate(a->framerate), r1 = framerate;
    uint32_t n = a->num_frames, joints = model->num_joints;
    bool loop = (a->flags & OSSA_ANIMATION_LOOP) != 0;
    if (r0 == r1 || n <= 1) {
        a->framerate = framerate;
        return OSSA_OK;
    }
    /* A looping animation lasts n frames (the last one blends back into
     * frame 0); one that plays once ends on its last frame, n - 1 frames
     * after its first. The new frames cover the same time. */
    double span = loop ? n * r1 / r0 : (n - 1) * r1 / r0;
    double m_real = loop ? fmax(1, floor(span + 0.5)) : floor(span + 0.5) + 1;
    if (!(m_real <= (double)UINT32_MAX) || m_real * joints * sizeof(ossa_transform) > (double)SIZE_MAX / 2)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "animation '%s' at %g fps would have %.0f frames", a->name,
                          (double)framerate, m_real);
    uint32_t m = (uint32_t)m_real;
    ossa_transform *frames = ossa__arena_array(ossa__model_arena(model), (size_t)m * joints + 1,
                                               sizeof *frames);
    if (!frames) return ossa__fail_nomem(error);
    for (uint32_t k = 0; k < m; k++) {
        double p = k * r0 / r1;
        uint32_t i, next;
        double u;
        if (loop) {
            p = fmod(p, (double)n);
            i = (uint32_t)floor(p);
            if (i >= n) i = n - 1;
            next = i + 1 < n ? i + 1 : 0;
        } else {
            if (p > n - 1) p = n - 1;
            i = (uint32_t)floor(p);
            next = i + 1 < n ? i + 1 : i;
        }
        u = p - i;
        const ossa_transform *fa = a->frames + (size_t)i * joints;
        const ossa_transform *fb = a->frames + (size_t)next * joints;
        ossa_transform *o = frames + (size_t)k * joints;
        for (uint32_t j = 0; j < joints; j++) {
            if (u == 0)
                o[j] = fa[j]; /* on a frame: its values exactly */
            else
                blend(&fa[j], &fb[j], u, &o[j]);
        }
    }
    a->frames = frames;
    a->num_frames = m;
    a->framerate = framerate;
    a->bounds = NULL; /* boxes between frames are unknown: writers compute new ones */
    a->sampling = NULL; /* the reader's choice of frames no longer applies */
    return OSSA_OK;
}
