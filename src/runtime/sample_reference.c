/* The reference sampling arithmetic, joint by joint in double precision
 * with the exact slerp, shared by the float (sample.c) and the compressed
 * (sample_packed.c) samplers: their reference levels, and root motion
 * removal at every level. */
#include "runtime/runtime.h"

#include <math.h>

void ossa__interpolate_reference(const ossa_transform *a, const ossa_transform *b, float alpha,
                                 ossa_transform *out)
{
    double t = alpha;
    for (int c = 0; c < 3; c++) {
        out->translation[c] =
            (float)(a->translation[c] + t * ((double)b->translation[c] - a->translation[c]));
        out->scale[c] = (float)(a->scale[c] + t * ((double)b->scale[c] - a->scale[c]));
    }
    ossa__quat_slerp(a->rotation, b->rotation, t, out->rotation);
}

void ossa__sample_joint_reference(const ossa_clip *clip, uint32_t f0, float alpha, uint32_t joint,
                                  ossa_transform *out)
{
    ossa_transform a, b;
    ossa__clip_key(clip, f0, joint, &a);
    if (alpha == 0) {
        *out = a;
        return;
    }
    ossa__clip_key(clip, f0 + 1, joint, &b);
    ossa__interpolate_reference(&a, &b, alpha, out);
}

void ossa__remove_root_motion(const ossa_clip *clip, ossa_transform *t)
{
    ossa_transform first;
    ossa__clip_key(clip, 0, clip->root, &first);
    int up = clip->up == OSSA_AXIS_X ? 0 : clip->up == OSSA_AXIS_Y ? 1 : 2;
    for (int c = 0; c < 3; c++)
        if (c != up) t->translation[c] = first.translation[c];
    double d = ossa__yaw_of(first.rotation, clip->up) - ossa__yaw_of(t->rotation, clip->up);
    float turn[4] = {0, 0, 0, (float)cos(d / 2)};
    turn[up] = (float)sin(d / 2);
    ossa__quat_mul(turn, t->rotation, t->rotation);
    ossa__quat_normalize(t->rotation);
}

void ossa__sample_put_reference(const ossa_sample_job *job, uint32_t j, ossa_transform t)
{
    const ossa_clip *clip = job->clip;
    if ((job->flags & OSSA_SAMPLE_REMOVE_ROOT_MOTION) && j == clip->root)
        ossa__remove_root_motion(clip, &t);
    if (job->local) job->local[j] = t;
    if (job->model) {
        float m[16];
        ossa_transform_to_matrix(&t, m);
        int32_t p = clip->parents[j];
        if (p >= 0)
            ossa__mat4_mul(job->model[p], m, job->model[j]);
        else
            memcpy(job->model[j], m, sizeof m);
    }
}
