/* The demo character's skeleton: 21 joints named as common game rigs
 * name them (pelvis, spine_01, ..., thigh_l, calf_l, foot_l), placed for
 * a person 1.75 m tall from the usual proportions of body segments to
 * stature (shoulder at 0.82 of the height, elbow 0.63, wrist 0.49, hip
 * 0.53, knee 0.29, ankle 0.04). The arms hang slightly away from the body
 * and the legs are straight, so the bind pose is a standing figure. Every
 * bind rotation is the identity: a joint's local translation is the
 * difference of its position and its parent's. */
#include "demo.h"

#include <string.h>

static const struct {
    const char *name;
    int parent;
    float position[3]; /* the left side's; right joints mirror x */
} joints[DEMO_NUM_JOINTS] = {
    [DEMO_PELVIS] = {"pelvis", -1, {0, 0, 0.97f}},
    [DEMO_SPINE_01] = {"spine_01", DEMO_PELVIS, {0, 0, 1.08f}},
    [DEMO_SPINE_02] = {"spine_02", DEMO_SPINE_01, {0, 0, 1.24f}},
    [DEMO_NECK] = {"neck", DEMO_SPINE_02, {0, 0.005f, 1.46f}},
    [DEMO_HEAD] = {"head", DEMO_NECK, {0, 0, 1.57f}},
    [DEMO_CLAVICLE_L] = {"clavicle_l", DEMO_SPINE_02, {0.03f, -0.01f, 1.41f}},
    [DEMO_UPPER_ARM_L] = {"upper_arm_l", DEMO_CLAVICLE_L, {0.185f, 0.005f, 1.41f}},
    [DEMO_LOWER_ARM_L] = {"lower_arm_l", DEMO_UPPER_ARM_L, {0.215f, 0.015f, 1.115f}},
    [DEMO_HAND_L] = {"hand_l", DEMO_LOWER_ARM_L, {0.235f, 0.0f, 0.86f}},
    [DEMO_THIGH_L] = {"thigh_l", DEMO_PELVIS, {0.09f, 0, 0.92f}},
    [DEMO_CALF_L] = {"calf_l", DEMO_THIGH_L, {0.09f, -0.005f, 0.50f}},
    [DEMO_FOOT_L] = {"foot_l", DEMO_CALF_L, {0.09f, 0, 0.08f}},
    [DEMO_TOE_L] = {"toe_l", DEMO_FOOT_L, {0.09f, -0.125f, 0.012f}},
    [DEMO_CLAVICLE_R] = {"clavicle_r", DEMO_SPINE_02, {0}},
    [DEMO_UPPER_ARM_R] = {"upper_arm_r", DEMO_CLAVICLE_R, {0}},
    [DEMO_LOWER_ARM_R] = {"lower_arm_r", DEMO_UPPER_ARM_R, {0}},
    [DEMO_HAND_R] = {"hand_r", DEMO_LOWER_ARM_R, {0}},
    [DEMO_THIGH_R] = {"thigh_r", DEMO_PELVIS, {0}},
    [DEMO_CALF_R] = {"calf_r", DEMO_THIGH_R, {0}},
    [DEMO_FOOT_R] = {"foot_r", DEMO_CALF_R, {0}},
    [DEMO_TOE_R] = {"toe_r", DEMO_FOOT_R, {0}},
};

const char *demo_joint_name(int joint)
{
    return joints[joint].name;
}

int demo_joint_parent(int joint)
{
    return joints[joint].parent;
}

void demo_joint_position(int joint, float out[3])
{
    int right = joint >= DEMO_CLAVICLE_R;
    memcpy(out, joints[right ? joint - DEMO_SIDE : joint].position, sizeof(float) * 3);
    if (right) out[0] = -out[0];
}

ossa_status demo_add_skeleton(ossa_model *model, ossa_error *error)
{
    for (int j = 0; j < DEMO_NUM_JOINTS; j++) {
        ossa_transform bind = ossa_transform_identity();
        float p[3], q[3] = {0, 0, 0};
        demo_joint_position(j, p);
        if (joints[j].parent >= 0) demo_joint_position(joints[j].parent, q);
        demo_v_sub(p, q, bind.translation);
        if (ossa_model_add_joint(model, joints[j].name, joints[j].parent, &bind, error) < 0)
            return OSSA_FAILED;
    }
    return OSSA_OK;
}
