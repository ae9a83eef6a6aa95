/* "idle": standing, 60 frames at 15 fps (4 s). One breath per loop (the
 * chest rises and opens, the shoulders lift) and one slow shift of the
 * weight from one foot to the other and back (the pelvis slides over the
 * foot that carries it and rises on that side, the chest leans against
 * it); the head looks a little to either side. The feet stay where they
 * are and the legs follow by IK. Every motion is a whole number of cycles
 * per loop, so the last frame leads to the first. */
#include "demo.h"

#include <math.h>

#define PI 3.14159265358979323846

static void pose_trunk(double t, double breath, demo_pose *pose)
{
    double shift = sin(2 * PI * t);
    ossa_transform *p = &pose->local[DEMO_PELVIS];
    p->translation[0] = (float)(0.022 * shift);
    p->translation[2] = (float)(0.97 - 0.003 - 0.004 * shift * shift);
    float q[4];
    double roll = -0.035 * shift;
    demo_q_euler(0.02, roll, 0.03 * sin(2 * PI * t + 0.6), q);
    demo_pose_rotate(pose, DEMO_PELVIS, q);
    /* Breathing opens the chest a little backwards (pitch < 0). */
    demo_q_euler(-0.01 - 0.01 * breath, -0.55 * roll, -0.02 * sin(2 * PI * t + 0.6), q);
    demo_pose_rotate(pose, DEMO_SPINE_01, q);
    demo_q_euler(0.01 - 0.018 * breath, -0.35 * roll, 0, q);
    demo_pose_rotate(pose, DEMO_SPINE_02, q);
    demo_q_euler(0.01 + 0.01 * breath, -0.1 * roll, 0.04 * sin(4 * PI * t + 1.0), q);
    demo_pose_rotate(pose, DEMO_NECK, q);
    demo_q_euler(0.02 * sin(2 * PI * t + 1.2), 0.02 * sin(2 * PI * t), 0.09 * sin(4 * PI * t + 1.0), q);
    demo_pose_rotate(pose, DEMO_HEAD, q);
}

static void pose_arms(double t, double breath, demo_pose *pose)
{
    for (int side = 0; side < 2; side++) {
        int o = side ? DEMO_SIDE : 0;
        double sign = side ? -1 : 1;
        float q[4];
        /* The outer end of the clavicle rises as the lungs fill. */
        demo_q_euler(0, -sign * 0.035 * breath, 0, q);
        demo_pose_rotate(pose, DEMO_CLAVICLE_L + o, q);
        demo_q_euler(0.03 * sin(2 * PI * t + 1.5 + side), -sign * 0.02, sign * 0.08, q);
        demo_pose_rotate(pose, DEMO_UPPER_ARM_L + o, q);
        demo_q_euler(-0.16 - 0.03 * breath, 0, 0, q);
        demo_pose_rotate(pose, DEMO_LOWER_ARM_L + o, q);
        demo_q_euler(-0.08, 0, -sign * 0.1, q);
        demo_pose_rotate(pose, DEMO_HAND_L + o, q);
    }
}

void demo_idle_pose(uint32_t frame, demo_pose *pose)
{
    double t = (double)frame / DEMO_IDLE_FRAMES;
    /* How full the lungs are, 0 to 1: one slow breath per loop. */
    double breath = 0.5 - 0.5 * cos(2 * PI * t + 0.3);
    demo_pose_bind(pose);
    pose_trunk(t, breath, pose);
    pose_arms(t, breath, pose);
    demo_pose_update(pose);
    for (int side = 0; side < 2; side++) {
        double sign = side ? -1 : 1, yaw = sign * 0.12;
        demo_foot_target target;
        target.ankle[0] = (float)(sign * 0.10);
        target.ankle[1] = 0.0f;
        target.ankle[2] = 0.08f;
        demo_q_euler(0, 0, yaw, target.foot_rotation);
        demo_q_euler(0, 0, 0, target.toe_rotation);
        float knee[3] = {(float)sin(yaw), (float)-cos(yaw), 0};
        demo_pose_leg(pose, side, &target, knee);
    }
}
