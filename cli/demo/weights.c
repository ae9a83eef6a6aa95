/* Skinning weights of the demo character. A limb's vertex is placed
 * along its chain of joints (shoulder, elbow, wrist, fingertip; hip,
 * knee, ankle) by its nearest point on the chain, and its weight moves
 * from one joint to the next over a zone around the joint between them
 * (a smooth step, so a ring of vertices turns partly with each bone and
 * the surface bends instead of folding). The torso does the same up the
 * spine, with the shoulders taking part of the clavicles' motion and the
 * hips part of the thighs'. Every vertex ends with at most four
 * influences, largest first, summing to 1. */
#include "demo.h"

#include <math.h>
#include <string.h>

/* A chain: joint[i] takes over from joint[i - 1] across the zone
 * [at[i] - before[i], at[i] + after[i]] of the distance along the chain. */
typedef struct chain {
    int n;
    int joint[5];
    float at[5], before[5], after[5];
} chain;

/* Adds w to joint j's entry in the list (joints[], weights[], *count). */
static void add(int *joints, float *weights, int *count, int j, float w)
{
    if (w <= 0) return;
    for (int i = 0; i < *count; i++)
        if (joints[i] == j) {
            weights[i] += w;
            return;
        }
    joints[*count] = j;
    weights[(*count)++] = w;
}

/* Weights along a chain at distance s: step_i - step_(i+1), which are
 * never negative while the zones come in order and add up to 1. */
static void chain_weights(const chain *c, float s, float scale, int *joints, float *weights,
                          int *count)
{
    for (int i = 0; i < c->n; i++) {
        float here = i == 0 ? 1 : demo_smoothstep(c->at[i] - c->before[i], c->at[i] + c->after[i], s);
        float next = i + 1 < c->n
                         ? demo_smoothstep(c->at[i + 1] - c->before[i + 1], c->at[i + 1] + c->after[i + 1], s)
                         : 0;
        add(joints, weights, count, c->joint[i], scale * (here - next));
    }
}

/* Distance along the polyline points[0..n) to the point nearest `p`;
 * before the first and past the last point the ends extend. */
static float along_polyline(const float (*points)[3], int n, const float p[3])
{
    float best = INFINITY, best_s = 0, start = 0;
    for (int i = 0; i + 1 < n; i++) {
        float d[3], rel[3];
        demo_v_sub(points[i + 1], points[i], d);
        demo_v_sub(p, points[i], rel);
        float len = sqrtf(demo_v_dot(d, d));
        float t = demo_v_dot(rel, d) / len;
        float tc = t;
        if (i > 0 && tc < 0) tc = 0;
        if (i + 2 < n && tc > len) tc = len;
        float dist2 = 0;
        for (int k = 0; k < 3; k++) {
            float e = rel[k] - d[k] / len * tc;
            dist2 += e * e;
        }
        if (dist2 < best) best = dist2, best_s = start + tc;
        start += len;
    }
    return best_s;
}

/* The chain of joints j0, j1, j2 (and the point `tip` past j2, or NULL)
 * as points, and the distances of j1 and j2 along it. */
static int chain_points(int j0, int j1, int j2, const float *tip, float points[4][3], float at[3])
{
    demo_joint_position(j0, points[0]);
    demo_joint_position(j1, points[1]);
    demo_joint_position(j2, points[2]);
    int n = 3;
    if (tip) memcpy(points[n++], tip, sizeof points[0]);
    at[0] = 0;
    for (int i = 1; i < 3; i++) {
        float d[3];
        demo_v_sub(points[i], points[i - 1], d);
        at[i] = at[i - 1] + sqrtf(demo_v_dot(d, d));
    }
    return n;
}

static void arm_weights(const float p[3], int o, int *joints, float *weights, int *count)
{
    float pts[4][3], at[3], d[3], tip[3];
    demo_joint_position(DEMO_LOWER_ARM_L + o, pts[0]);
    demo_joint_position(DEMO_HAND_L + o, pts[1]);
    demo_v_sub(pts[1], pts[0], d);
    demo_v_normalize(d);
    for (int k = 0; k < 3; k++) tip[k] = pts[1][k] + 0.19f * d[k];
    int n = chain_points(DEMO_UPPER_ARM_L + o, DEMO_LOWER_ARM_L + o, DEMO_HAND_L + o, tip, pts, at);
    float s = along_polyline((const float(*)[3])pts, n, p);
    /* The deltoid's top follows the clavicle halfway; the elbow bends
     * over 8 cm, the wrist over 5. */
    chain c = {4,
               {DEMO_CLAVICLE_L + o, DEMO_UPPER_ARM_L + o, DEMO_LOWER_ARM_L + o, DEMO_HAND_L + o},
               {0, 0, at[1], at[2]},
               {0, 0.05f, 0.04f, 0.025f},
               {0, 0.05f, 0.04f, 0.025f}};
    chain_weights(&c, s, 1, joints, weights, count);
}

static void leg_weights(const float p[3], int o, int *joints, float *weights, int *count)
{
    float pts[4][3], at[3];
    int n = chain_points(DEMO_THIGH_L + o, DEMO_CALF_L + o, DEMO_FOOT_L + o, NULL, pts, at);
    float s = along_polyline((const float(*)[3])pts, n, p);
    chain c = {4,
               {DEMO_PELVIS, DEMO_THIGH_L + o, DEMO_CALF_L + o, DEMO_FOOT_L + o},
               {0, 0, at[1], at[2]},
               {0, 0.07f, 0.05f, 0.04f},
               {0, 0.12f, 0.05f, 0.02f}};
    chain_weights(&c, s, 1, joints, weights, count);
}

static void shoe_weights(const float p[3], int o, int *joints, float *weights, int *count)
{
    float toe[3], ankle[3];
    demo_joint_position(DEMO_TOE_L + o, toe);
    demo_joint_position(DEMO_FOOT_L + o, ankle);
    /* Forward (-Y) of the ball of the foot, the toe joint bends the shoe;
     * the collar around the ankle follows the shin a little. */
    float w_toe = demo_smoothstep(toe[1] + 0.025f, toe[1] - 0.025f, p[1]);
    float w_calf = 0.4f * demo_smoothstep(0.085f, 0.115f, p[2]) *
                   demo_smoothstep(0.06f, 0.02f, fabsf(p[1] - ankle[1]));
    add(joints, weights, count, DEMO_TOE_L + o, w_toe);
    add(joints, weights, count, DEMO_CALF_L + o, w_calf);
    add(joints, weights, count, DEMO_FOOT_L + o, 1 - w_toe - w_calf);
}

static void torso_weights(const float p[3], int *joints, float *weights, int *count)
{
    int o = p[0] < 0 ? DEMO_SIDE : 0;
    /* The shoulders' top and outside go with the clavicle (up to 0.6);
     * the hips and the seat with the thighs: up to 0.45 over each hip
     * joint, less towards the middle, where both share the crotch. */
    float clavicle = 0.6f * demo_smoothstep(0.07f, 0.17f, fabsf(p[0])) *
                     demo_smoothstep(1.28f, 1.38f, p[2]) * demo_smoothstep(1.49f, 1.42f, p[2]);
    float low = 0.45f * demo_smoothstep(0.97f, 0.86f, p[2]);
    float thigh_l = low * demo_smoothstep(-0.06f, 0.10f, p[0]);
    float thigh_r = low * demo_smoothstep(-0.06f, 0.10f, -p[0]);
    chain c = {5,
               {DEMO_PELVIS, DEMO_SPINE_01, DEMO_SPINE_02, DEMO_NECK, DEMO_HEAD},
               {0, 1.08f, 1.24f, 1.455f, 1.57f},
               {0, 0.08f, 0.08f, 0.035f, 0.04f},
               {0, 0.08f, 0.08f, 0.035f, 0.04f}};
    chain_weights(&c, p[2], 1 - clavicle - thigh_l - thigh_r, joints, weights, count);
    add(joints, weights, count, DEMO_CLAVICLE_L + o, clavicle);
    add(joints, weights, count, DEMO_THIGH_L, thigh_l);
    add(joints, weights, count, DEMO_THIGH_R, thigh_r);
}

void demo_vertex_weights(const demo_mesh *m, uint32_t v, float out_joints[4], float out_weights[4])
{
    int joints[8], count = 0;
    float weights[8];
    const float *p = &m->position[v * 3];
    int o = m->side[v] < 0 ? DEMO_SIDE : 0;
    switch ((demo_part_kind)m->kind[v]) {
    case DEMO_PART_TORSO: torso_weights(p, joints, weights, &count); break;
    case DEMO_PART_ARM:
    case DEMO_PART_HAND: arm_weights(p, o, joints, weights, &count); break;
    case DEMO_PART_LEG: leg_weights(p, o, joints, weights, &count); break;
    case DEMO_PART_SHOE: shoe_weights(p, o, joints, weights, &count); break;
    default: add(joints, weights, &count, DEMO_HEAD, 1); break;
    }
    /* Largest first (insertion sort of at most 8), the four largest kept;
     * weights too small to survive as a byte (1/255) are dropped. */
    for (int i = 1; i < count; i++)
        for (int k = i; k > 0 && weights[k] > weights[k - 1]; k--) {
            float tw = weights[k];
            weights[k] = weights[k - 1], weights[k - 1] = tw;
            int tj = joints[k];
            joints[k] = joints[k - 1], joints[k - 1] = tj;
        }
    if (count > 4) count = 4;
    while (count > 1 && weights[count - 1] < 0.5f / 255) count--;
    float sum = 0;
    for (int i = 0; i < count; i++) sum += weights[i];
    for (int i = 0; i < 4; i++) {
        out_joints[i] = i < count ? (float)joints[i] : 0;
        out_weights[i] = i < count ? weights[i] / sum : 0;
    }
}
