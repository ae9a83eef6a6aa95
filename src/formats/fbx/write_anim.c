/* FBX writer: animations (fbx.md §7.6, §10.4, §15). One AnimationStack
 * and one AnimationLayer per animation; per joint and channel that any
 * animation moves, an AnimationCurveNode (T, R or S) with three
 * AnimationCurves, keyed at every frame with linear keys: the reader
 * samples the stack on the same frame grid and meets every key exactly.
 * Every animation keys every channel that some animation moves, since
 * importers that switch actions (Blender) keep the last value of a channel
 * an action leaves unkeyed; a curve that does not change holds two keys,
 * the first and the last frame, so that the action still spans the
 * animation. Rotations are Euler XYZ degrees, each frame's the solution
 * nearest the previous frame's (the bind pose's for the first), so that
 * interpolating between keys never spins the long way round. */
#include "formats/fbx/write.h"

#include <math.h>
#include <stdio.h>

#define DEG (180.0 / 3.14159265358979323846)

/* §7.6: linear segments (0x4; 0x100 as the SDK's 2013 files write it),
 * tangent weights 1/3 each (0x0D04 = 3332 per 10 000) in slot 2's bits. */
#define KEY_FLAGS 0x104
#define KEY_WEIGHTS 0x0D040D04u

void ossa__fbxw_euler(const float q[4], const double *near, double out[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double n = x * x + y * y + z * z + w * w;
    if (!(n > 0) || !isfinite(n)) {
        x = y = z = 0;
        w = 1;
    } else {
        n = 1 / sqrt(n);
        x *= n, y *= n, z *= n, w *= n;
    }
    /* R = Rz·Ry·Rx (§8.1, order XYZ): r20 = -sin(ry), r21 / r22 give rx,
     * r10 / r00 give rz. */
    double r00 = 1 - 2 * (y * y + z * z), r10 = 2 * (x * y + w * z), r20 = 2 * (x * z - w * y);
    double r21 = 2 * (y * z + w * x), r22 = 1 - 2 * (x * x + y * y);
    double r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - w * x);
    double cy = sqrt(r00 * r00 + r10 * r10);
    double a[3];
    a[1] = atan2(-r20, cy) * DEG;
    if (cy > 1e-12) {
        a[0] = atan2(r21, r22) * DEG;
        a[2] = atan2(r10, r00) * DEG;
    } else {
        /* Gimbal lock: x and z turn about the same axis; z takes nothing. */
        a[0] = atan2(-r12, r11) * DEG;
        a[2] = 0;
    }
    if (!near) {
        memcpy(out, a, sizeof a);
        return;
    }
    /* The same rotation is also (x + 180, 180 - y, z + 180); each angle
     * may move by whole turns. Take the set nearest `near`. */
    double b[3] = {a[0] + 180, 180 - a[1], a[2] + 180}, best = INFINITY;
    const double *cand[2] = {a, b};
    for (int c = 0; c < 2; c++) {
        double v[3], d = 0;
        for (int k = 0; k < 3; k++) {
            v[k] = cand[c][k] + 360 * floor((near[k] - cand[c][k]) / 360 + 0.5);
            d += fabs(v[k] - near[k]);
        }
        if (d < best) {
            best = d;
            memcpy(out, v, sizeof v);
        }
    }
}

int64_t ossa__fbxw_frame_time(double fps, uint32_t frame)
{
    /* anim.c samples frame f at start + floor(f · 46186158000 / fps + 0.5),
     * in double: the same expression gives the same tick. */
    double t = floor((double)frame * (double)FBX_KTIME_PER_SECOND / fps + 0.5);
    return t < 9.2e18 ? (int64_t)t : INT64_MAX;
}

const char *ossa__fbxw_anim_name(const fbxw *w, uint32_t a, char buf[32])
{
    /* Unnamed animations are named: importers make actions named after
     * their stacks ("Armature|" helps nobody). */
    const char *n = w->m->animations[a].name;
    if (n && n[0]) return n;
    snprintf(buf, 32, "animation%u", a);
    return buf;
}

double ossa__fbxw_anim_fps(const fbxw *w, uint32_t a)
{
    float r = w->m->animations[a].framerate;
    if (!(r > 0) || !isfinite(r) || r == (float)w->fps) return w->fps;
    return r;
}

int64_t ossa__fbxw_time_stop(const fbxw *w)
{
    int64_t stop = 0;
    for (uint32_t a = 0; a < w->m->num_animations; a++) {
        const ossa_animation *an = &w->m->animations[a];
        if (!an->num_frames) continue;
        int64_t t = ossa__fbxw_frame_time(ossa__fbxw_anim_fps(w, a), an->num_frames - 1);
        if (t > stop) stop = t;
    }
    return stop;
}

static bool same_rotation(const float a[4], const float b[4])
{
    bool same = true, opposite = true;
    for (int k = 0; k < 4; k++) {
        same &= a[k] == b[k];
        opposite &= a[k] == -b[k];
    }
    return same || opposite;
}

ossa_status ossa__fbxw_plan_anims(fbxw *w)
{
    const ossa_model *m = w->m;
    uint32_t J = m->num_joints;
    if (!J || !m->num_animations) return OSSA_OK;
    w->keyed = ossa__alloc(w->alloc, J);
    if (!w->keyed) return ossa__fail_nomem(w->error);
    memset(w->keyed, 0, J);
    uint32_t empty = 0, other_rate = 0;
    const char *other_name = NULL;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        if (!an->num_frames) {
            empty++;
            continue;
        }
        if (ossa__fbxw_anim_fps(w, a) != w->fps && !other_rate++) other_name = an->name;
        for (uint32_t f = 0; f < an->num_frames; f++)
            for (uint32_t j = 0; j < J; j++) {
                const ossa_transform *t = &an->frames[(size_t)f * J + j], *b = &m->joints[j].bind;
                /* Readers refuse keys that are not finite. */
                for (int k = 0; k < 3; k++)
                    if (!isfinite(t->translation[k]) || !isfinite(t->scale[k]))
                        return ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                                          "animation %u ('%.60s') frame %u joint %u: a "
                                          "translation or scale is not finite",
                                          a, an->name, f, j);
                if (memcmp(t->translation, b->translation, sizeof t->translation))
                    w->keyed[j] |= OSSA_CHANNEL_TRANSLATION;
                if (!same_rotation(t->rotation, b->rotation)) w->keyed[j] |= OSSA_CHANNEL_ROTATION;
                if (memcmp(t->scale, b->scale, sizeof t->scale)) w->keyed[j] |= OSSA_CHANNEL_SCALE;
            }
    }
    for (uint32_t j = 0; j < J; j++)
        for (int c = 0; c < 3; c++) w->num_curve_nodes += (w->keyed[j] >> c) & 1;
    if (empty)
        ossa__write_warn(w->opt, OSSA_WARNING_DROPPED, "fbx: %u animations without frames not written",
                         empty);
    if (other_rate)
        ossa__write_warn(w->opt, OSSA_WARNING_DROPPED,
                         "fbx files have one frame rate (%g fps, the first animation's): %u "
                         "animations at other rates ('%.60s'%s) keep their key times and their "
                         "rate in the property ossa|FrameRate, and readers other than ossa "
                         "sample them at %g fps",
                         w->fps, other_rate, other_name, other_rate > 1 ? ", ..." : "", w->fps);
    return OSSA_OK;
}

typedef struct track {
    int64_t *times; /* per frame */
    float *values;  /* 3 per frame */
    int64_t two[2]; /* first and last time */
    /* Where the full KeyTime array of this animation was written first,
     * for the curves after it: the same bytes, copied. */
    size_t times_at, times_len;
} track;

static void curve(fbxw *w, int64_t id, track *tr, uint32_t frames, uint32_t comp)
{
    /* One component's values, and whether they ever change. */
    float *v = ossa__fbxw_scratch(w, ((size_t)frames + 1) * sizeof *v);
    if (!v) return;
    bool constant = true;
    for (uint32_t f = 0; f < frames; f++) {
        v[f] = tr->values[(size_t)f * 3 + comp];
        constant &= v[f] == v[0];
    }
    uint32_t keys = constant ? (frames > 1 ? 2 : 1) : frames;
    if (constant) v[1] = v[0];
    ossa__fbxw_begin(w, "AnimationCurve");
    ossa__fbxw_i64(w, id);
    ossa__fbxw_object_name(w, "", "AnimCurve");
    ossa__fbxw_cstr(w, "");
    ossa__fbxw_child_f64(w, "Default", v[0]);
    ossa__fbxw_child_i32(w, "KeyVer", 4008);
    ossa__fbxw_begin(w, "KeyTime");
    if (constant) {
        ossa__fbxw_array_i64(w, tr->two, keys);
    } else if (tr->times_len) {
        ossa__fbxw_value_copy(w, tr->times_at, tr->times_len);
    } else {
        tr->times_at = w->out->size;
        ossa__fbxw_array_i64(w, tr->times, keys);
        tr->times_len = w->nomem ? 0 : w->out->size - tr->times_at;
    }
    ossa__fbxw_end(w);
    ossa__fbxw_begin(w, "KeyValueFloat");
    ossa__fbxw_array_f32(w, v, keys);
    ossa__fbxw_end(w);
    static const int32_t flags = KEY_FLAGS;
    ossa__fbxw_begin(w, "KeyAttrFlags");
    ossa__fbxw_array_i32(w, &flags, 1);
    ossa__fbxw_end(w);
    float data[4] = {0, 0, 0, 0};
    uint32_t bits = KEY_WEIGHTS;
    memcpy(&data[2], &bits, 4); /* an integer in a float slot: the bits, not a value */
    ossa__fbxw_begin(w, "KeyAttrDataFloat");
    ossa__fbxw_array_f32(w, data, 4);
    ossa__fbxw_end(w);
    int32_t count = (int32_t)keys;
    ossa__fbxw_begin(w, "KeyAttrRefCount");
    ossa__fbxw_array_i32(w, &count, 1);
    ossa__fbxw_end(w);
    ossa__fbxw_end(w);
}

/* Channel c (0 T, 1 R, 2 S) of joint j in animation `an`, into tr->values. */
static void channel_values(fbxw *w, const ossa_animation *an, uint32_t j, int c, track *tr)
{
    uint32_t J = w->m->num_joints;
    double prev[3];
    if (c == 1) ossa__fbxw_euler(w->m->joints[j].bind.rotation, NULL, prev);
    for (uint32_t f = 0; f < an->num_frames; f++) {
        const ossa_transform *t = &an->frames[(size_t)f * J + j];
        float *v = tr->values + (size_t)f * 3;
        if (c == 0) memcpy(v, t->translation, 3 * sizeof *v);
        if (c == 2) memcpy(v, t->scale, 3 * sizeof *v);
        if (c != 1) continue;
        double e[3];
        ossa__fbxw_euler(t->rotation, prev, e);
        for (int k = 0; k < 3; k++) v[k] = (float)e[k];
        /* Continue from what the file holds, so that rounding never adds
         * up across frames. */
        for (int k = 0; k < 3; k++) prev[k] = v[k];
    }
}

static void animation(fbxw *w, uint32_t a, track *tr)
{
    static const char *const node_names[3] = {"T", "R", "S"};
    static const char *const props[3] = {"Lcl Translation", "Lcl Rotation", "Lcl Scaling"};
    static const char *const comps[3] = {"d|X", "d|Y", "d|Z"};
    const ossa_model *m = w->m;
    const ossa_animation *an = &m->animations[a];
    double fps = ossa__fbxw_anim_fps(w, a);
    for (uint32_t f = 0; f < an->num_frames; f++) tr->times[f] = ossa__fbxw_frame_time(fps, f);
    tr->two[0] = 0;
    tr->two[1] = tr->times[an->num_frames - 1];
    tr->times_len = 0;
    int64_t stack = ossa__fbxw_id(w), layer = ossa__fbxw_id(w);
    char buf[32];
    const char *name = ossa__fbxw_anim_name(w, a, buf);
    ossa__fbxw_begin(w, "AnimationStack");
    ossa__fbxw_i64(w, stack);
    ossa__fbxw_object_name(w, name, "AnimStack");
    ossa__fbxw_cstr(w, "");
    ossa__fbxw_begin(w, "Properties70");
    ossa__fbxw_p_time(w, "LocalStart", 0);
    ossa__fbxw_p_time(w, "LocalStop", tr->two[1]);
    ossa__fbxw_p_time(w, "ReferenceStart", 0);
    ossa__fbxw_p_time(w, "ReferenceStop", tr->two[1]);
    /* FBX has one frame rate per file (GlobalSettings) and no loop flag:
     * the animation's own, as user properties that ossa reads back and
     * other readers skip (Blender places the keys by their times anyway). */
    ossa__fbxw_p_double(w, "ossa|FrameRate", "double", "U",
                        an->framerate > 0 ? an->framerate : OSSA_DEFAULT_FRAMERATE);
    ossa__fbxw_p_int(w, "ossa|Loop", "bool", (an->flags & OSSA_ANIMATION_LOOP) ? 1 : 0);
    ossa__fbxw_end(w);
    ossa__fbxw_end(w);
    ossa__fbxw_begin(w, "AnimationLayer");
    ossa__fbxw_i64(w, layer);
    /* Named as its stack: Blender then names the action OBJECT|NAME. */
    ossa__fbxw_object_name(w, name, "AnimLayer");
    ossa__fbxw_cstr(w, "");
    ossa__fbxw_end(w);
    ossa__fbxw_connect(w, layer, stack, NULL);
    for (uint32_t j = 0; j < m->num_joints && !w->nomem; j++)
        for (int c = 0; c < 3; c++) {
            if (!((w->keyed[j] >> c) & 1)) continue;
            channel_values(w, an, j, c, tr);
            int64_t node = ossa__fbxw_id(w);
            ossa__fbxw_begin(w, "AnimationCurveNode");
            ossa__fbxw_i64(w, node);
            ossa__fbxw_object_name(w, node_names[c], "AnimCurveNode");
            ossa__fbxw_cstr(w, "");
            ossa__fbxw_begin(w, "Properties70");
            for (int k = 0; k < 3; k++) ossa__fbxw_p_double(w, comps[k], "Number", "A", tr->values[k]);
            ossa__fbxw_end(w);
            ossa__fbxw_end(w);
            ossa__fbxw_connect(w, node, layer, NULL);
            ossa__fbxw_connect(w, node, w->joint_model[j], props[c]);
            for (uint32_t k = 0; k < 3; k++) {
                int64_t id = ossa__fbxw_id(w);
                curve(w, id, tr, an->num_frames, k);
                ossa__fbxw_connect(w, id, node, comps[k]);
            }
        }
}

void ossa__fbxw_anims(fbxw *w)
{
    const ossa_model *m = w->m;
    if (!m->num_joints) return;
    uint32_t most = 0;
    for (uint32_t a = 0; a < m->num_animations; a++)
        if (m->animations[a].num_frames > most) most = m->animations[a].num_frames;
    if (!most) return;
    track tr;
    tr.times = ossa__alloc(w->alloc, (size_t)most * sizeof *tr.times);
    tr.values = ossa__alloc(w->alloc, (size_t)most * 3 * sizeof *tr.values);
    if (!tr.times || !tr.values) w->nomem = true;
    for (uint32_t a = 0; a < m->num_animations && !w->nomem && !w->failed; a++)
        if (m->animations[a].num_frames) animation(w, a, &tr);
    ossa__free(w->alloc, tr.times, 0);
    ossa__free(w->alloc, tr.values, 0);
}
