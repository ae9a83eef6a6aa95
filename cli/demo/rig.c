/* Posing the demo character: forward kinematics of the local rotations
 * (the bind translations never change, except the pelvis's) and the legs
 * placed by two-bone inverse kinematics, so that the animations say where
 * the feet are and the knees follow. */
#include "demo.h"

#include <math.h>
#include <string.h>

void demo_pose_bind(demo_pose *pose)
{
    for (int j = 0; j < DEMO_NUM_JOINTS; j++) {
        ossa_transform *t = &pose->local[j];
        *t = ossa_transform_identity();
        float p[3], q[3] = {0, 0, 0};
        demo_joint_position(j, p);
        int parent = demo_joint_parent(j);
        if (parent >= 0) demo_joint_position(parent, q);
        demo_v_sub(p, q, t->translation);
    }
    demo_pose_update(pose);
}

void demo_pose_rotate(demo_pose *pose, int joint, const float rotation[4])
{
    memcpy(pose->local[joint].rotation, rotation, sizeof(float) * 4);
}

void demo_pose_update(demo_pose *pose)
{
    for (int j = 0; j < DEMO_NUM_JOINTS; j++) {
        const ossa_transform *t = &pose->local[j];
        int parent = demo_joint_parent(j);
        if (parent < 0) {
            memcpy(pose->world_rotation[j], t->rotation, sizeof(float) * 4);
            memcpy(pose->world_position[j], t->translation, sizeof(float) * 3);
            continue;
        }
        float offset[3];
        demo_q_rotate(pose->world_rotation[parent], t->translation, offset);
        for (int k = 0; k < 3; k++) pose->world_position[j][k] = pose->world_position[parent][k] + offset[k];
        demo_q_mul(pose->world_rotation[parent], t->rotation, pose->world_rotation[j]);
    }
}

/* The rotation that turns the bind pose's bone from `from` to `to` (both
 * joints' bind positions) into the direction `dir` (unit), keeping the
 * bind pose's forward (-Y) as near as it can to `forward`: the basis
 * (bone, forward, bone x forward) of the bind pose goes to that of the
 * target. */
static void aim_bone(int from, int to, const float dir[3], const float forward[3], float out[4])
{
    float a[3], b[3];
    demo_joint_position(from, a);
    demo_joint_position(to, b);
    float bone[3], bind_fwd[3] = {0, -1, 0}, side[3];
    demo_v_sub(b, a, bone);
    demo_v_normalize(bone);
    /* Gram-Schmidt: forward made perpendicular to the bone. */
    float d = demo_v_dot(bind_fwd, bone);
    for (int k = 0; k < 3; k++) bind_fwd[k] -= d * bone[k];
    demo_v_normalize(bind_fwd);
    demo_v_cross(bone, bind_fwd, side);

    float fwd[3], tside[3];
    d = demo_v_dot(forward, dir);
    for (int k = 0; k < 3; k++) fwd[k] = forward[k] - d * dir[k];
    demo_v_normalize(fwd);
    demo_v_cross(dir, fwd, tside);

    /* R = target basis * bind basis^T; its columns are R applied to the
     * model axes. */
    float col[3][3];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            col[c][r] = dir[r] * bone[c] + fwd[r] * bind_fwd[c] + tside[r] * side[c];
    demo_q_from_basis(col[0], col[1], col[2], out);
}

/* Bone length between two joints in the bind pose. */
static float bone_length(int a, int b)
{
    float pa[3], pb[3], d[3];
    demo_joint_position(a, pa);
    demo_joint_position(b, pb);
    demo_v_sub(pb, pa, d);
    return sqrtf(demo_v_dot(d, d));
}

void demo_pose_leg(demo_pose *pose, int side, const demo_foot_target *target,
                   const float knee_direction[3])
{
    int o = side ? DEMO_SIDE : 0;
    int thigh = DEMO_THIGH_L + o, calf = DEMO_CALF_L + o, foot = DEMO_FOOT_L + o, toe = DEMO_TOE_L + o;
    float l1 = bone_length(thigh, calf), l2 = bone_length(calf, foot);

    /* The hip, where the posed pelvis puts it. */
    int pelvis = demo_joint_parent(thigh);
    float hip[3];
    demo_q_rotate(pose->world_rotation[pelvis], pose->local[thigh].translation, hip);
    for (int k = 0; k < 3; k++) hip[k] += pose->world_position[pelvis][k];

    /* The triangle hip-knee-ankle: the knee lies off the hip-ankle line
     * by h, towards knee_direction, at x along it (law of cosines). A
     * target out of reach leaves the leg just short of straight. */
    float e[3];
    demo_v_sub(target->ankle, hip, e);
    float dist = demo_v_normalize(e);
    float lo = fabsf(l1 - l2) + 1e-4f, hi = (l1 + l2) * 0.9995f;
    dist = dist < lo ? lo : dist > hi ? hi : dist;
    float x = (l1 * l1 - l2 * l2 + dist * dist) / (2 * dist);
    float h = sqrtf(fmaxf(l1 * l1 - x * x, 0));
    float n[3];
    float d = demo_v_dot(knee_direction, e);
    for (int k = 0; k < 3; k++) n[k] = knee_direction[k] - d * e[k];
    demo_v_normalize(n);
    float knee[3], ankle[3];
    for (int k = 0; k < 3; k++) {
        knee[k] = hip[k] + e[k] * x + n[k] * h;
        ankle[k] = hip[k] + e[k] * dist;
    }

    /* World rotations of thigh and calf aim each bone, its forward side
     * towards the knee's direction; then every local rotation is the
     * parent's world rotation undone. */
    float thigh_dir[3], calf_dir[3], thigh_world[4], calf_world[4], inv[4], local[4];
    demo_v_sub(knee, hip, thigh_dir);
    demo_v_normalize(thigh_dir);
    demo_v_sub(ankle, knee, calf_dir);
    demo_v_normalize(calf_dir);
    aim_bone(thigh, calf, thigh_dir, n, thigh_world);
    aim_bone(calf, foot, calf_dir, n, calf_world);

    demo_q_conj(pose->world_rotation[pelvis], inv);
    demo_q_mul(inv, thigh_world, local);
    demo_pose_rotate(pose, thigh, local);
    demo_q_conj(thigh_world, inv);
    demo_q_mul(inv, calf_world, local);
    demo_pose_rotate(pose, calf, local);
    demo_q_conj(calf_world, inv);
    demo_q_mul(inv, target->foot_rotation, local);
    demo_pose_rotate(pose, foot, local);
    demo_pose_rotate(pose, toe, target->toe_rotation);
    demo_pose_update(pose);
}
