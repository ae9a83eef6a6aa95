/* md5anim writer (docs/formats/md5.md §6, §7, §11): one animation for the
 * joints of the md5mesh written beside it.
 *
 * The baseframe is frame 0; a component (Tx Ty Tz Qx Qy Qz) is animated,
 * and gets its flag bit, when some frame differs from the baseframe in it
 * by more than 1e-6. Animated joints take consecutive runs of a frame's
 * values; the others get firstComponent 0 (a running total equal to
 * numAnimatedComponents is fatal to id's loader). A looping animation gets
 * a copy of frame 0 at its end, because id plays the last frame as the
 * first frame of the next cycle, and "--loop" in the command line, by
 * which ossa's reader drops that copy again. Bounds are the skinned mesh's per frame
 * (ossa_model_compute_bounds, conservative unless the write options ask
 * for exact or stored ones), or the joints' box for a model without mesh. */
#include "formats/md5/md5.h"

#include <math.h>

#define MOTION_TOLERANCE 1e-6f

static void put_vec(ossa_text_out *o, const float *v)
{
    ossa__out_str(o, "( ");
    for (int i = 0; i < 3; i++) {
        ossa__md5_out_float(o, v[i]);
        ossa__out_char(o, ' ');
    }
    ossa__out_char(o, ')');
}

/* Model-space joint positions of a frame of written poses, boxed. */
static void joint_box(const md5_skeleton *s, const float *pose, double *world, ossa_bounds *b)
{
    for (uint32_t j = 0; j < s->num_joints; j++) {
        const float *P = pose + (size_t)j * 6;
        double *W = world + (size_t)j * 7;
        double sq = (double)P[3] * P[3] + (double)P[4] * P[4] + (double)P[5] * P[5];
        double q[4] = {P[3], P[4], P[5], -sqrt(sq < 1 ? 1 - sq : 0)};
        double t[3] = {P[0], P[1], P[2]};
        int32_t p = s->parents[j];
        if (p < 0) {
            memcpy(W, t, sizeof t);
            memcpy(W + 3, q, sizeof q);
        } else {
            const double *Q = world + (size_t)p * 7 + 3;
            double c1[3] = {Q[1] * t[2] - Q[2] * t[1], Q[2] * t[0] - Q[0] * t[2],
                            Q[0] * t[1] - Q[1] * t[0]};
            double c2[3] = {Q[1] * c1[2] - Q[2] * c1[1], Q[2] * c1[0] - Q[0] * c1[2],
                            Q[0] * c1[1] - Q[1] * c1[0]};
            for (int i = 0; i < 3; i++)
                W[i] = world[(size_t)p * 7 + i] + t[i] + 2 * (Q[3] * c1[i] + c2[i]);
            W[3] = Q[3] * q[0] + Q[0] * q[3] + Q[1] * q[2] - Q[2] * q[1];
            W[4] = Q[3] * q[1] - Q[0] * q[2] + Q[1] * q[3] + Q[2] * q[0];
            W[5] = Q[3] * q[2] + Q[0] * q[1] - Q[1] * q[0] + Q[2] * q[3];
            W[6] = Q[3] * q[3] - Q[0] * q[0] - Q[1] * q[1] - Q[2] * q[2];
        }
        for (int i = 0; i < 3; i++) {
            float x = (float)W[i];
            if (!j || x < b->min[i]) b->min[i] = x;
            if (!j || x > b->max[i]) b->max[i] = x;
        }
    }
}

static ossa_status frame_bounds(const md5_skeleton *s, uint32_t a, const float *poses,
                                uint32_t frames, ossa_bounds *out, ossa_error *error)
{
    const ossa_model *m = s->model;
    const ossa_animation *an = &m->animations[a];
    if (m->num_vertices && ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)) {
        ossa_bounds_mode mode =
            s->options->bounds == OSSA_BOUNDS_EXACT ? OSSA_BOUNDS_EXACT : OSSA_BOUNDS_CONSERVATIVE;
        if (s->options->bounds == OSSA_BOUNDS_STORED && an->bounds) {
            memcpy(out, an->bounds, (size_t)an->num_frames * sizeof *out);
            return OSSA_OK;
        }
        return ossa__compute_bounds(m, a, mode, out, s->options->threads, error);
    }
    double *world = ossa__temp_calloc(m, s->num_joints, 7 * sizeof *world);
    if (!world) return ossa__fail_nomem(error);
    for (uint32_t f = 0; f < frames; f++)
        joint_box(s, poses + (size_t)f * s->num_joints * 6, world, &out[f]);
    ossa__temp_free(m, world);
    ossa__write_warn(s->options, OSSA_WARNING_DROPPED,
                         "animation '%s': no mesh, so its bounds are the box of the joints",
                         an->name);
    return OSSA_OK;
}

static ossa_status write_text(const md5_skeleton *s, uint32_t a, const float *poses,
                              uint32_t frames, const ossa_bounds *bounds, ossa_buf *out)
{
    const ossa_model *m = s->model;
    const ossa_animation *an = &m->animations[a];
    uint32_t nj = s->num_joints;
    uint8_t *flags = ossa__temp_calloc(m, nj, 1);
    uint32_t *first = ossa__temp_calloc(m, nj, sizeof *first);
    if (!flags || !first) {
        ossa__temp_free(m, flags);
        ossa__temp_free(m, first);
        return OSSA_FAILED;
    }
    uint32_t total = 0;
    for (uint32_t j = 0; j < nj; j++) {
        const float *base = poses + (size_t)j * 6;
        for (uint32_t f = 1; f < frames; f++) {
            const float *P = poses + ((size_t)f * nj + j) * 6;
            for (int c = 0; c < 6; c++)
                if (fabsf(P[c] - base[c]) > MOTION_TOLERANCE) flags[j] |= (uint8_t)(1u << c);
        }
        for (int c = 0; c < 6; c++)
            if (flags[j] & (1u << c)) {
                if (!(flags[j] & ((1u << c) - 1))) first[j] = total;
                total++;
            }
    }
    float fps =
        an->framerate > 0 && isfinite(an->framerate) ? an->framerate : OSSA_DEFAULT_FRAMERATE;
    long rate = lroundf(fps < 1 ? 1 : fps > 1e6f ? 1e6f : fps);
    if (fabsf((float)rate - fps) > 1e-3f)
        ossa__write_warn(s->options, OSSA_WARNING_DROPPED,
                             "animation '%s': %g frames per second written as %ld (frameRate is "
                             "an integer; the command line keeps %g for ossa)",
                             an->name, fps, rate, fps);

    ossa_text_out o;
    ossa__out_init(&o, out);
    /* The name, the loop flag and a rate frameRate cannot hold in the
     * command line, which id and the IQM SDK ignore, so that ossa reads
     * them back (read_anim.c; text.h's animation tag). */
    ossa__out_str(&o, "MD5Version 10\ncommandline \"");
    bool loop = (an->flags & OSSA_ANIMATION_LOOP) != 0;
    if (an->name[0] || loop || (float)rate != fps)
        ossa__anim_tag_write(&o, an->name, (float)rate != fps ? fps : 0, loop, '"');
    ossa__out_char(&o, '"');
    ossa__out_format(&o,
                     "\n\nnumFrames %u\nnumJoints %u\nframeRate %ld\nnumAnimatedComponents %u\n\n"
                     "hierarchy {\n",
                     frames, nj, rate, total);
    for (uint32_t j = 0; j < nj; j++) {
        ossa__out_char(&o, '\t');
        ossa__md5_out_name(&o, s->names[j]);
        ossa__out_format(&o, "\t%d %u %u", s->parents[j], flags[j], first[j]);
        if (s->parents[j] >= 0) {
            ossa__out_str(&o, "\t// ");
            ossa__out_str(&o, s->names[s->parents[j]]);
        }
        ossa__out_char(&o, '\n');
    }
    ossa__out_str(&o, "}\n\nbounds {\n");
    for (uint32_t f = 0; f < frames; f++) {
        const ossa_bounds *b = &bounds[f < an->num_frames ? f : 0];
        ossa__out_char(&o, '\t');
        put_vec(&o, b->min);
        ossa__out_char(&o, ' ');
        put_vec(&o, b->max);
        ossa__out_char(&o, '\n');
    }
    ossa__out_str(&o, "}\n\nbaseframe {\n");
    for (uint32_t j = 0; j < nj; j++) {
        ossa__out_char(&o, '\t');
        put_vec(&o, poses + (size_t)j * 6);
        ossa__out_char(&o, ' ');
        put_vec(&o, poses + (size_t)j * 6 + 3);
        ossa__out_char(&o, '\n');
    }
    ossa__out_str(&o, "}\n");
    for (uint32_t f = 0; f < frames; f++) {
        ossa__out_format(&o, "\nframe %u {\n", f);
        for (uint32_t j = 0; j < nj; j++) {
            if (!flags[j]) continue;
            const float *P = poses + ((size_t)f * nj + j) * 6;
            ossa__out_char(&o, '\t');
            bool sep = false;
            for (int c = 0; c < 6; c++) {
                if (!(flags[j] & (1u << c))) continue;
                if (sep) ossa__out_char(&o, ' ');
                ossa__md5_out_float(&o, P[c]);
                sep = true;
            }
            ossa__out_char(&o, '\n');
        }
        ossa__out_str(&o, "}\n");
    }
    ossa__out_flush(&o);
    ossa__temp_free(m, flags);
    ossa__temp_free(m, first);
    return OSSA_OK;
}

ossa_status ossa__md5_write_anim_text(const md5_skeleton *s, uint32_t a, ossa_buf *out,
                                      ossa_error *error)
{
    const ossa_model *m = s->model;
    const ossa_animation *an = &m->animations[a];
    if (!an->num_frames)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "animation '%s' has no frames; an md5anim needs at least one", an->name);
    bool loop = (an->flags & OSSA_ANIMATION_LOOP) != 0;
    uint32_t frames = an->num_frames + (loop && an->num_frames < UINT32_MAX);
    size_t per = (size_t)s->num_joints * 6;
    float *poses = ossa__temp_calloc(m, (size_t)frames, per * sizeof *poses);
    ossa_bounds *bounds = ossa__temp_calloc(m, frames, sizeof *bounds);
    ossa_status st = OSSA_OK;
    if (!poses || !bounds) st = ossa__fail_nomem(error);
    for (uint32_t f = 0; f < an->num_frames && !st; f++) ossa__md5_frame(s, a, f, poses + f * per);
    if (!st && frames > an->num_frames)
        memcpy(poses + (size_t)an->num_frames * per, poses, per * sizeof *poses);
    if (!st) st = frame_bounds(s, a, poses, frames, bounds, error);
    /* boxes of huge models may overflow: MD5 holds finite numbers only */
    for (uint32_t f = 0; f < frames && !st; f++)
        for (int i = 0; i < 3; i++) {
            if (!isfinite(bounds[f].min[i])) bounds[f].min[i] = -FLT_MAX;
            if (!isfinite(bounds[f].max[i])) bounds[f].max[i] = FLT_MAX;
        }
    if (!st && write_text(s, a, poses, frames, bounds, out)) st = ossa__fail_nomem(error);
    ossa__temp_free(m, poses);
    ossa__temp_free(m, bounds);
    return st;
}
