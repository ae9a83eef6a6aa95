/* Blending poses: normalized weighted blends with per-joint masks,
 * additive layers, cross-fades between clips (see ossa.h, Blending).
 *
 * These work joint by joint on ossa_transform arrays: a blend of N layers
 * reads N transforms per joint and is bound by memory, not arithmetic, so
 * there is no separate SIMD path. */
#include "runtime/runtime.h"

#include <math.h>

#define DEFAULT_THRESHOLD 0.1f

static ossa_status check_layers(const ossa_blend_layer *layers, uint32_t count, const char *what,
                                const ossa_blend_job *job, ossa_error *error)
{
    if (count && !layers)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "blend job: %u %s layers but no array", (unsigned)count, what);
    for (uint32_t i = 0; i < count; i++) {
        const ossa_blend_layer *l = &layers[i];
        if (!l->pose)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "blend job: %s layer %u has no pose", what, (unsigned)i);
        if (!(l->weight >= 0) || !isfinite(l->weight))
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "blend job: %s layer %u has weight %g (must be finite, >= 0)", what,
                              (unsigned)i, (double)l->weight);
        if (l->pose == job->output)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "blend job: %s layer %u is also the output", what, (unsigned)i);
    }
    return OSSA_OK;
}

ossa_status ossa_blend_validate(const ossa_blend_job *job, ossa_error *error)
{
    if (!job) return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no blend job");
    if (job->num_joints && !job->output)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "blend job without output");
    if (!(job->threshold >= 0) || !isfinite(job->threshold))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "blend job: threshold %g (must be finite, >= 0)",
                          (double)job->threshold);
    if (job->rest_pose && job->rest_pose == job->output)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "blend job: the rest pose is also the output");
    if (check_layers(job->layers, job->num_layers, "blend", job, error) != OSSA_OK)
        return OSSA_FAILED;
    return check_layers(job->additive, job->num_additive, "additive", job, error);
}

static float layer_weight(const ossa_blend_layer *l, uint32_t j)
{
    float w = l->weight;
    if (l->joint_weights) {
        float m = l->joint_weights[j];
        w = m > 0 ? w * m : 0; /* NaN and negative masks count as 0 */
    }
    return w;
}

/* q = q * slerp(identity, dq, w), in double; dq unit. */
static void apply_rotation(float q[4], const float dq_in[4], double w)
{
    double dq[4] = {dq_in[0], dq_in[1], dq_in[2], dq_in[3]};
    if (w != 1) {
        if (dq[3] < 0)
            for (int c = 0; c < 4; c++) dq[c] = -dq[c];
        double c = dq[3] > 1 ? 1 : dq[3];
        double th = acos(c), s = sin(th);
        double k = s > 1e-12 ? sin(w * th) / s : w;
        for (int i = 0; i < 3; i++) dq[i] *= k;
        dq[3] = cos(w * th);
    }
    double ax = q[0], ay = q[1], az = q[2], aw = q[3];
    q[0] = (float)(aw * dq[0] + ax * dq[3] + ay * dq[2] - az * dq[1]);
    q[1] = (float)(aw * dq[1] - ax * dq[2] + ay * dq[3] + az * dq[0]);
    q[2] = (float)(aw * dq[2] + ax * dq[1] - ay * dq[0] + az * dq[3]);
    q[3] = (float)(aw * dq[3] - ax * dq[0] - ay * dq[1] - az * dq[2]);
}

ossa_status ossa_blend_run(const ossa_blend_job *job, ossa_error *error)
{
    if (ossa_blend_validate(job, error) != OSSA_OK) return OSSA_FAILED;
    float threshold = job->threshold > 0 ? job->threshold : DEFAULT_THRESHOLD;
    ossa_transform identity = ossa_transform_identity();
    for (uint32_t j = 0; j < job->num_joints; j++) {
        double t[3] = {0, 0, 0}, s[3] = {0, 0, 0}, q[4] = {0, 0, 0, 0}, total = 0;
        const float *qref = NULL;
        uint32_t contributors = 0, last = 0;
        for (uint32_t i = 0; i < job->num_layers; i++) {
            const ossa_blend_layer *l = &job->layers[i];
            float w = layer_weight(l, j);
            if (!(w > 0)) continue;
            const ossa_transform *x = &l->pose[j];
            contributors++;
            last = i;
            if (!qref) qref = x->rotation;
            double d = (double)qref[0] * x->rotation[0] + (double)qref[1] * x->rotation[1] +
                       (double)qref[2] * x->rotation[2] + (double)qref[3] * x->rotation[3];
            double wq = d < 0 ? -w : w;
            for (int c = 0; c < 3; c++) {
                t[c] += (double)w * x->translation[c];
                s[c] += (double)w * x->scale[c];
            }
            for (int c = 0; c < 4; c++) q[c] += wq * x->rotation[c];
            total += w;
        }
        ossa_transform *out = &job->output[j];
        if (contributors == 1 && total >= threshold) {
            *out = job->layers[last].pose[j];
        } else {
            if (total < threshold) {
                const ossa_transform *x = job->rest_pose ? &job->rest_pose[j] : &identity;
                double w = threshold - total;
                if (!qref) qref = x->rotation;
                double d = (double)qref[0] * x->rotation[0] + (double)qref[1] * x->rotation[1] +
                           (double)qref[2] * x->rotation[2] + (double)qref[3] * x->rotation[3];
                double wq = d < 0 ? -w : w;
                for (int c = 0; c < 3; c++) {
                    t[c] += w * x->translation[c];
                    s[c] += w * x->scale[c];
                }
                for (int c = 0; c < 4; c++) q[c] += wq * x->rotation[c];
                total = threshold;
            }
            double n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
            double inv = n > 0 ? 1 / sqrt(n) : 0;
            for (int c = 0; c < 3; c++) {
                out->translation[c] = (float)(t[c] / total);
                out->scale[c] = (float)(s[c] / total);
            }
            if (inv > 0) {
                for (int c = 0; c < 4; c++) out->rotation[c] = (float)(q[c] * inv);
            } else {
                /* Opposite rotations of equal weight cancel: keep the first. */
                memcpy(out->rotation, qref, sizeof out->rotation);
            }
        }
        for (uint32_t i = 0; i < job->num_additive; i++) {
            const ossa_blend_layer *l = &job->additive[i];
            float w = layer_weight(l, j);
            if (!(w > 0)) continue;
            const ossa_transform *d = &l->pose[j];
            for (int c = 0; c < 3; c++) {
                out->translation[c] += w * d->translation[c];
                out->scale[c] *= 1 + w * (d->scale[c] - 1);
            }
            apply_rotation(out->rotation, d->rotation, w);
        }
    }
    return OSSA_OK;
}

void ossa_pose_make_additive(uint32_t num_joints, const ossa_transform *reference,
                             const ossa_transform *pose, ossa_transform *delta)
{
    for (uint32_t j = 0; j < num_joints; j++) {
        ossa_transform r = reference[j], p = pose[j], d;
        ossa__quat_normalize(r.rotation);
        ossa__quat_normalize(p.rotation);
        for (int c = 0; c < 3; c++) {
            d.translation[c] = p.translation[c] - r.translation[c];
            d.scale[c] = r.scale[c] != 0 ? p.scale[c] / r.scale[c] : 1;
        }
        float conj[4] = {-r.rotation[0], -r.rotation[1], -r.rotation[2], r.rotation[3]};
        ossa__quat_mul(conj, p.rotation, d.rotation);
        ossa__quat_normalize(d.rotation);
        delta[j] = d;
    }
}

/* -- Cross-fade -------------------------------------------------------------- */

ossa_status ossa_crossfade_validate(const ossa_crossfade_job *job, ossa_error *error)
{
    if (!job || !job->from || !job->to || !job->scratch || !job->output)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "cross-fade job needs two clips, scratch and output");
    uint32_t n = job->from->num_joints;
    if (job->to->num_joints != n)
        return ossa__fail(error, OSSA_ERROR_MISMATCH, OSSA_NO_OFFSET,
                          "cross-fade between clips of %u and %u joints", (unsigned)n,
                          (unsigned)job->to->num_joints);
    if (job->scratch == job->output)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "cross-fade scratch and output are the same array");
    if (!isfinite(job->elapsed) || !isfinite(job->duration))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "cross-fade times must be finite");
    if (!isfinite(job->from_time) || !isfinite(job->to_time))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "cross-fade clip times must be finite");
    if ((unsigned)job->wrap > OSSA_WRAP_CLAMP)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "unknown wrap mode %d",
                          (int)job->wrap);
    return OSSA_OK;
}

ossa_status ossa_crossfade_run(const ossa_crossfade_job *job, ossa_error *error)
{
    if (ossa_crossfade_validate(job, error)) return OSSA_FAILED;
    uint32_t n = job->from->num_joints;
    double w = job->duration > 0 ? job->elapsed / job->duration : 1;
    if (w < 0) w = 0;
    if (w > 1) w = 1;

    ossa_sample_job s;
    memset(&s, 0, sizeof s);
    s.wrap = job->wrap;
    s.num_outputs = n;
    if (w < 1) {
        s.clip = job->from;
        s.time = job->from_time;
        s.local = w > 0 ? job->scratch : job->output;
        if (ossa_sample_run(&s, error) != OSSA_OK) return OSSA_FAILED;
        if (w == 0) return OSSA_OK;
    }
    s.clip = job->to;
    s.time = job->to_time;
    s.local = job->output;
    if (ossa_sample_run(&s, error) != OSSA_OK) return OSSA_FAILED;
    if (w == 1) return OSSA_OK;

    ossa_blend_layer layers[2] = {{job->scratch, (float)(1 - w), NULL},
                                  {job->output, (float)w, NULL}};
    /* Blend joint by joint into the output: each joint reads only its own
     * entries, so the output may be one of the inputs here. */
    for (uint32_t j = 0; j < n; j++) {
        const ossa_transform *a = &layers[0].pose[j], *b = &layers[1].pose[j];
        double wa = 1 - w, wb = w;
        double d =
            (double)a->rotation[0] * b->rotation[0] + (double)a->rotation[1] * b->rotation[1] +
            (double)a->rotation[2] * b->rotation[2] + (double)a->rotation[3] * b->rotation[3];
        double wq = d < 0 ? -wb : wb, q[4], nn = 0;
        ossa_transform r;
        for (int c = 0; c < 3; c++) {
            r.translation[c] = (float)(wa * a->translation[c] + wb * b->translation[c]);
            r.scale[c] = (float)(wa * a->scale[c] + wb * b->scale[c]);
        }
        for (int c = 0; c < 4; c++) {
            q[c] = wa * a->rotation[c] + wq * b->rotation[c];
            nn += q[c] * q[c];
        }
        nn = nn > 0 ? 1 / sqrt(nn) : 0;
        for (int c = 0; c < 4; c++) r.rotation[c] = nn > 0 ? (float)(q[c] * nn) : a->rotation[c];
        job->output[j] = r;
    }
    return OSSA_OK;
}
