/* Retargeting at merge time (docs/formats/bvh.md §10): an animation whose
 * model poses its joints about a rest pose of its own
 * (OSSA_MODEL_REST_POSE_REFERENCE: a BVH's offsets with no rotation) is
 * carried onto another skeleton's bind pose instead of being copied.
 *
 * For a target joint d driven by source joint s (same name):
 *   world rotation   Wd(t) = Ws(t) * Rs^-1 * A_d * Gd
 * where Ws(t) is s's world rotation at frame t, Rs its world rotation at
 * rest, Gd d's world rotation at bind, and A_d the turn that takes d's
 * bone (towards its one driven child) at bind onto s's bone at rest, so
 * that the source's rest pose maps to the target's bones pointing the same
 * ways (a T-pose onto an A-pose character lifts its arms). Joints with no
 * driven child or several take their parent's A (identity at a root).
 * Root positions: the target root is put at k * (the source root's world
 * position), k = the ratio of the two roots' heights above their
 * skeleton's lowest joint at rest; a driven joint below the root that the
 * source moves keeps its bind translation plus k times the source's
 * displacement from its offset, turned as the source's parent turned it.
 * Undriven target joints keep their bind pose relative to their parent.
 * "Bind" is the target's rest pose where it has one (ossa_model.rest_pose:
 * a glTF whose skin was bound in another pose than its nodes rest), the
 * pose it is shown in when nothing plays.
 *
 * When both models say where they face (ossa_model.front) and differ, the
 * source is first turned about +Z to face the target's way (README "Where
 * a model faces"): a BVH, facing -Y, walks forward on an IQM character,
 * facing +X, instead of sideways. */
#include "core/front.h"

#include <math.h>

typedef double quat[4];
typedef double vec3[3];

static void qconj(const double q[4], double out[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

static void unit(const float in[4], double q[4])
{
    double n = sqrt((double)in[0] * in[0] + (double)in[1] * in[1] + (double)in[2] * in[2] +
                    (double)in[3] * in[3]);
    if (!(n > 0) || !isfinite(n)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    for (int k = 0; k < 4; k++) q[k] = in[k] / n;
}

/* World rotations and positions of a pose (parents first), the whole pose
 * turned by `turn` (a unit quaternion) about the origin. */
static void pose_world(const ossa_model *m, const ossa_transform *local, const double turn[4],
                       quat *rot, vec3 *pos)
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double q[4], t[3] = {local[j].translation[0], local[j].translation[1],
                             local[j].translation[2]};
        unit(local[j].rotation, q);
        int32_t p = m->joints[j].parent;
        if (p < 0) {
            ossa__quatd_mul(turn, q, rot[j]);
            ossa__quatd_rotate(turn, t, pos[j]);
        } else {
            double o[3];
            ossa__quatd_mul(rot[p], q, rot[j]);
            ossa__quatd_rotate(rot[p], t, o);
            for (int k = 0; k < 3; k++) pos[j][k] = pos[p][k] + o[k];
        }
    }
}

/* The shortest turn taking direction a onto direction b (both nonzero). */
static void shortest_arc(const double a[3], const double b[3], double q[4])
{
    double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    double u[3] = {a[0] / la, a[1] / la, a[2] / la}, v[3] = {b[0] / lb, b[1] / lb, b[2] / lb};
    double d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    if (d < -1 + 1e-12) {
        /* Opposite: half a turn about any axis perpendicular to u. */
        double axis[3] = {0, -u[2], u[1]};
        if (fabs(u[0]) > 0.9) axis[0] = -u[1], axis[1] = u[0], axis[2] = 0;
        double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
        q[0] = axis[0] / n, q[1] = axis[1] / n, q[2] = axis[2] / n, q[3] = 0;
        return;
    }
    q[0] = c[0], q[1] = c[1], q[2] = c[2], q[3] = 1 + d;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] /= n;
}

/* Height of joint j above the lowest joint of the skeleton (z up). */
static double height_above_lowest(const ossa_model *m, vec3 *pos, uint32_t j)
{
    double low = pos[j][2];
    for (uint32_t i = 0; i < m->num_joints; i++)
        if (pos[i][2] < low) low = pos[i][2];
    return pos[j][2] - low;
}

typedef struct retarget {
    const ossa_model *dst, *src;
    const int32_t *map; /* src joint -> dst joint or -1 */
    int32_t *src_of;    /* dst joint -> src joint or -1 */
    quat *bind_rot, *rest_rot, *fix;    /* Gd; Rs; A_d */
    vec3 *bind_pos, *rest_pos;
    quat *src_rot, *dst_rot;            /* per frame */
    vec3 *src_pos, *dst_pos;
    double k;                           /* position scale */
    double turn[4];                     /* the source's turn to the target's front */
} retarget;

/* A_d for every driven target joint (§10). */
static void corrections(retarget *r)
{
    const ossa_model *dst = r->dst, *src = r->src;
    for (uint32_t d = 0; d < dst->num_joints; d++) {
        int32_t p = dst->joints[d].parent;
        double *a = r->fix[d];
        if (p >= 0)
            memcpy(a, r->fix[p], sizeof(quat));
        else
            a[0] = a[1] = a[2] = 0, a[3] = 1;
        int32_t s = r->src_of[d];
        if (s < 0) continue;
        /* The one driven child whose source is below s. */
        int32_t only = -1, count = 0;
        for (uint32_t c = d + 1; c < dst->num_joints; c++) {
            if (dst->joints[c].parent != (int32_t)d || r->src_of[c] < 0) continue;
            int32_t sc = r->src_of[c];
            while (sc >= 0 && sc != s) sc = src->joints[sc].parent;
            if (sc != s) continue;
            only = (int32_t)c;
            count++;
        }
        if (count != 1) continue;
        double dc[3], ds[3], n1 = 0, n2 = 0;
        for (int k = 0; k < 3; k++) {
            dc[k] = r->bind_pos[only][k] - r->bind_pos[d][k];
            ds[k] = r->rest_pos[r->src_of[only]][k] - r->rest_pos[s][k];
            n1 += dc[k] * dc[k];
            n2 += ds[k] * ds[k];
        }
        if (n1 > 1e-20 && n2 > 1e-20) shortest_arc(dc, ds, a);
    }
}

static void retarget_frame(retarget *r, const ossa_transform *src_pose, const uint8_t *src_ch,
                           ossa_transform *out)
{
    const ossa_model *dst = r->dst, *src = r->src;
    pose_world(src, src_pose, r->turn, r->src_rot, r->src_pos);
    for (uint32_t d = 0; d < dst->num_joints; d++) {
        const ossa_transform *jd = ossa__rest(dst, d);
        int32_t p = dst->joints[d].parent, s = r->src_of[d];
        unsigned ch = s >= 0 ? (src_ch ? src_ch[s] : 7u) : 0u;
        double q[4], t[3] = {jd->translation[0], jd->translation[1], jd->translation[2]};
        double prot[4] = {0, 0, 0, 1}, ppos[3] = {0, 0, 0};
        if (p >= 0) {
            memcpy(prot, r->dst_rot[p], sizeof prot);
            memcpy(ppos, r->dst_pos[p], sizeof ppos);
        }
        double pinv[4];
        qconj(prot, pinv);
        if (ch & OSSA_CHANNEL_ROTATION) {
            /* Wd = Ws * Rs^-1 * A_d * Gd; local = Wp^-1 * Wd. */
            double w[4], rinv[4];
            qconj(r->rest_rot[s], rinv);
            ossa__quatd_mul(r->src_rot[s], rinv, w);
            ossa__quatd_mul(w, r->fix[d], w);
            ossa__quatd_mul(w, r->bind_rot[d], r->dst_rot[d]);
            ossa__quatd_mul(pinv, r->dst_rot[d], q);
        } else {
            unit(jd->rotation, q);
            ossa__quatd_mul(prot, q, r->dst_rot[d]);
        }
        if (ch & OSSA_CHANNEL_TRANSLATION) {
            int32_t sp = src->joints[s].parent;
            double world[3];
            if (sp < 0) {
                for (int k = 0; k < 3; k++) world[k] = r->k * r->src_pos[s][k] - ppos[k];
            } else {
                /* the source's displacement from its offset, in world */
                double disp[3], wd[3], o[3];
                for (int k = 0; k < 3; k++)
                    disp[k] = (double)src_pose[s].translation[k] -
                              ossa__rest(src, (uint32_t)s)->translation[k];
                ossa__quatd_rotate(r->src_rot[sp], disp, wd);
                ossa__quatd_rotate(prot, t, o);
                for (int k = 0; k < 3; k++) world[k] = o[k] + r->k * wd[k];
            }
            ossa__quatd_rotate(pinv, world, t);
        }
        double o[3];
        ossa__quatd_rotate(prot, t, o);
        for (int k = 0; k < 3; k++) r->dst_pos[d][k] = ppos[k] + o[k];
        ossa_transform *x = &out[d];
        for (int k = 0; k < 3; k++) {
            x->translation[k] = (float)t[k];
            x->rotation[k] = (float)q[k];
        }
        x->rotation[3] = (float)q[3];
        memcpy(x->scale, jd->scale, sizeof x->scale);
    }
}

static void free_all(const ossa_model *dst, void **blocks, size_t n)
{
    for (size_t i = 0; i < n; i++) ossa__temp_free(dst, blocks[i]);
}

ossa_status ossa__retarget_animation(ossa_model *dst, const ossa_model *src, const int32_t *map,
                                     const ossa_animation *sa, ossa_animation *da,
                                     ossa_error *error)
{
    uint32_t nd = dst->num_joints, ns = src->num_joints;
    retarget r = {0};
    r.dst = dst;
    r.src = src;
    r.map = map;
    void *blocks[11];
    size_t n = 0;
    blocks[n++] = r.src_of = ossa__temp_calloc(dst, (size_t)nd + 1, sizeof *r.src_of);
    blocks[n++] = r.bind_rot = ossa__temp_calloc(dst, (size_t)nd + 1, sizeof *r.bind_rot);
    blocks[n++] = r.fix = ossa__temp_calloc(dst, (size_t)nd + 1, sizeof *r.fix);
    blocks[n++] = r.bind_pos = ossa__temp_calloc(dst, (size_t)nd + 1, sizeof *r.bind_pos);
    blocks[n++] = r.dst_rot = ossa__temp_calloc(dst, (size_t)nd + 1, sizeof *r.dst_rot);
    blocks[n++] = r.dst_pos = ossa__temp_calloc(dst, (size_t)nd + 1, sizeof *r.dst_pos);
    blocks[n++] = r.rest_rot = ossa__temp_calloc(dst, (size_t)ns + 1, sizeof *r.rest_rot);
    blocks[n++] = r.rest_pos = ossa__temp_calloc(dst, (size_t)ns + 1, sizeof *r.rest_pos);
    blocks[n++] = r.src_rot = ossa__temp_calloc(dst, (size_t)ns + 1, sizeof *r.src_rot);
    blocks[n++] = r.src_pos = ossa__temp_calloc(dst, (size_t)ns + 1, sizeof *r.src_pos);
    ossa_transform *pose = ossa__temp_calloc(dst, (size_t)(nd > ns ? nd : ns) + 1, sizeof *pose);
    blocks[n++] = pose;
    for (size_t i = 0; i < n; i++)
        if (!blocks[i]) {
            free_all(dst, blocks, n);
            return ossa__fail_nomem(error);
        }
    for (uint32_t d = 0; d < nd; d++) r.src_of[d] = -1;
    for (uint32_t s = 0; s < ns; s++)
        if (map[s] >= 0 && r.src_of[map[s]] < 0) r.src_of[map[s]] = (int32_t)s;
    /* quarter turns about +Z, from the source's front to the target's */
    static const double none[4] = {0, 0, 0, 1};
    static const double half[4][2] = {{0, 1}, {0.70710678118654752, 0.70710678118654752},
                                      {1, 0}, {0.70710678118654752, -0.70710678118654752}};
    uint32_t quarters = ossa__front_quarters(src->front, dst->front);
    r.turn[0] = r.turn[1] = 0;
    r.turn[2] = half[quarters][0]; /* sin and cos of half the turn */
    r.turn[3] = half[quarters][1];
    for (uint32_t d = 0; d < nd; d++) pose[d] = *ossa__rest(dst, d);
    pose_world(dst, pose, none, r.bind_rot, r.bind_pos);
    for (uint32_t s = 0; s < ns; s++) pose[s] = *ossa__rest(src, s);
    pose_world(src, pose, r.turn, r.rest_rot, r.rest_pos);
    corrections(&r);
    /* k: the first driven joint that the source moves, a source root. */
    r.k = 1;
    for (uint32_t d = 0; d < nd; d++) {
        int32_t s = r.src_of[d];
        if (s < 0 || src->joints[s].parent >= 0) continue;
        if (sa->channels && !(sa->channels[s] & OSSA_CHANNEL_TRANSLATION)) continue;
        double hd = height_above_lowest(dst, r.bind_pos, d);
        double hs = height_above_lowest(src, r.rest_pos, (uint32_t)s);
        if (hd > 0 && hs > 0 && isfinite(hd / hs)) r.k = hd / hs;
        break;
    }
    uint8_t *channels = ossa__animation_channels(dst, da);
    if (!channels) {
        free_all(dst, blocks, n);
        return ossa__fail_nomem(error);
    }
    for (uint32_t d = 0; d < nd; d++)
        if (r.src_of[d] >= 0) channels[d] = sa->channels ? sa->channels[r.src_of[d]] : 3u;
    for (uint32_t f = 0; f < sa->num_frames; f++)
        retarget_frame(&r, &sa->frames[(size_t)f * ns], sa->channels, &da->frames[(size_t)f * nd]);
    uint32_t before = dst->num_warnings;
    ossa__warn(dst, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, 0, 0,
               "animation '%s' is retargeted from its rest pose onto the skeleton's %s pose "
               "(root positions scaled by %.6g)",
               da->name, dst->rest_pose ? "rest" : "bind", r.k);
    if (dst->num_warnings > before) dst->warnings[before].severity = OSSA_SEVERITY_NOTE;
    free_all(dst, blocks, n);
    return OSSA_OK;
}
