/* "walk": a walk cycle in place, 32 frames at 30 fps (1.07 s, two steps
 * of 0.53 m: 0.99 m/s). The feet are placed and the legs follow by IK
 * (rig.c); everything else is a periodic function of the cycle's phase,
 * so frame 32 would be frame 0 again and the loop closes without a jump.
 *
 * Each foot is on the ground for 62% of the cycle (both feet during
 * 12%). A foot on the ground moves back at the walking speed under a
 * still body, as on a treadmill: a game that moves the character forward
 * at 0.99 m/s (root motion is left to it) sees the foot stand still. On
 * the ground the foot rolls over the heel after it strikes, lies flat,
 * then rolls over the ball of the foot (the toe joint stays flat on the
 * ground) until it leaves; in the air it swings forward along a curve that
 * starts and ends with the velocities it had on the ground, lifted clear.
 * The pelvis bobs (lowest when both feet are down), sways over the foot
 * that carries it, drops on the side of the swinging leg and turns with
 * the leg that reaches forward; the chest turns against it, the head
 * stays level and forward, and each arm swings with the opposite leg, the
 * elbow bending more in front. */
#include "demo.h"

#include <math.h>

#define PI 3.14159265358979323846

/* The cycle: phase 0 is the left heel striking; the right heel strikes
 * at 0.5. */
static const double STANCE = 0.62;    /* fraction of the cycle a foot is down */
static const double STRIDE = 1.06;    /* metres per cycle (two steps) */
static const double STRIKE = 0.285;   /* ankle ahead of the hip at the strike, flat-footed */
static const double HEEL_UP = 0.26;   /* toe up at the heel strike (radians, 15 degrees) */
static const double TOE_OFF = 0.61;   /* heel up when the toe leaves (35 degrees) */
static const double HEEL_ROLL = 0.10; /* phase at which the foot is flat after the strike */
static const double BALL_ROLL = 0.40; /* phase at which the heel starts to rise */
static const double LIFT = 0.075;     /* extra height of the ankle in the swing */

/* Where the foot's parts lie relative to the ankle (forward, up), with
 * the foot flat: the bottom of the heel and of the ball of the foot. */
static const double HEEL_F = -0.05, BALL_F = 0.125, ANKLE_Z = 0.08;

/* The state of a foot: the ankle's forward position, sideways offset and
 * height, and the foot's pitch (toe up > 0). */
typedef struct foot_state {
    double f, x, z, pitch;
} foot_state;

static double smooth(double e0, double e1, double x)
{
    return demo_smoothstep((float)e0, (float)e1, (float)x);
}

/* The foot on the ground at phase p (0..STANCE), turned out by `yaw`
 * (radians, > 0 towards +X): the point under the flat foot's ankle moves
 * back at the walking speed; around it the foot turns over the heel's
 * bottom, then over the ball's, both on the foot's own line. */
static foot_state stance(double p, double yaw)
{
    double anchor = STRIKE - STRIDE * p;
    double pitch = 0, pivot = 0;
    if (p < HEEL_ROLL) {
        pitch = HEEL_UP * (1 - smooth(0, HEEL_ROLL, p));
        pivot = HEEL_F;
    } else if (p > BALL_ROLL) {
        /* Quadratic start: the heel leaves the ground gently. */
        double t = (p - BALL_ROLL) / (STANCE - BALL_ROLL);
        pitch = -TOE_OFF * t * t;
        pivot = BALL_F;
    }
    /* The ankle turned about the pivot (on the ground) by the pitch. */
    double df = -pivot, dz = ANKLE_Z, c = cos(pitch), s = sin(pitch);
    double along = pivot + df * c - dz * s;
    foot_state st = {anchor + along * cos(yaw), along * sin(yaw), df * s + dz * c, pitch};
    return st;
}

/* Cubic Hermite between a and b with end slopes ma and mb, at t. */
static double hermite(double a, double b, double ma, double mb, double t)
{
    double t2 = t * t, t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * a + (t3 - 2 * t2 + t) * ma + (-2 * t3 + 3 * t2) * b +
           (t3 - t2) * mb;
}

/* The foot in the air at phase p (STANCE..1): from the state it left the
 * ground in to the one it strikes in, with the velocities it had there,
 * lifted by a bump that peaks early in the swing (as the knee folds). */
static foot_state swing(double p, double yaw)
{
    const double h = 1e-4, span = 1 - STANCE;
    foot_state a = stance(STANCE, yaw), a0 = stance(STANCE - h, yaw);
    foot_state b = stance(0, yaw), b1 = stance(h, yaw);
    double t = (p - STANCE) / span, k = span / h;
    foot_state st = {
        hermite(a.f, b.f, (a.f - a0.f) * k, (b1.f - b.f) * k, t),
        hermite(a.x, b.x, (a.x - a0.x) * k, (b1.x - b.x) * k, t),
        hermite(a.z, b.z, (a.z - a0.z) * k, (b1.z - b.z) * k, t),
        hermite(a.pitch, b.pitch, (a.pitch - a0.pitch) * k, (b1.pitch - b.pitch) * k, t),
    };
    double bump = sin(PI * pow(t, 0.75));
    st.z += LIFT * bump * bump;
    return st;
}

/* A foot's target at its phase p: side 0 left, 1 right. */
static void foot_target(double p, int side, demo_foot_target *out)
{
    /* The feet turn out a little (6 degrees) and walk on lines 15 cm
     * apart. */
    double yaw = side ? -0.10 : 0.10, x = side ? -0.075 : 0.075;
    foot_state st = p < STANCE ? stance(p, yaw) : swing(p, yaw);
    out->ankle[0] = (float)(x + st.x);
    out->ankle[1] = (float)-st.f;
    out->ankle[2] = (float)st.z;
    demo_q_euler(-st.pitch, 0, yaw, out->foot_rotation);
    /* How far the toes bend up: enough to stay flat on the ground while
     * the heel rises, then straightening early in the swing. */
    double toe = 0;
    if (p > BALL_ROLL && p < STANCE)
        toe = -st.pitch;
    else if (p >= STANCE)
        toe = TOE_OFF * (1 - smooth(STANCE, STANCE + 0.4 * (1 - STANCE), p));
    demo_q_euler(-toe, 0, 0, out->toe_rotation);
}

static void pose_trunk(double phase, demo_pose *pose)
{
    double c1 = cos(2 * PI * phase);
    /* The pelvis: lowest just after each strike, highest over the
     * carrying foot; over the left foot (+X) in the first half. */
    double bob = -0.012 * cos(4 * PI * (phase - 0.03));
    double sway = 0.022 * cos(2 * PI * (phase - 0.28));
    double yaw = -0.09 * c1;
    double roll = -0.05 * cos(2 * PI * (phase - 0.25));
    ossa_transform *p = &pose->local[DEMO_PELVIS];
    p->translation[0] = (float)sway;
    p->translation[2] = (float)(0.97 - 0.025 + bob);
    float q[4];
    demo_q_euler(0.06, roll, yaw, q);
    demo_pose_rotate(pose, DEMO_PELVIS, q);
    /* The chest turns against the pelvis and straightens its roll; neck
     * and head bring the gaze back to level and forward. */
    demo_q_euler(-0.03, -0.6 * roll, -0.7 * yaw, q);
    demo_pose_rotate(pose, DEMO_SPINE_01, q);
    demo_q_euler(0.02 + 0.01 * cos(4 * PI * phase), -0.3 * roll, -0.9 * yaw, q);
    demo_pose_rotate(pose, DEMO_SPINE_02, q);
    demo_q_euler(-0.02, -0.1 * roll, 0.3 * yaw, q);
    demo_pose_rotate(pose, DEMO_NECK, q);
    demo_q_euler(-0.03 - 0.01 * cos(4 * PI * phase), 0, 0.3 * yaw, q);
    demo_pose_rotate(pose, DEMO_HEAD, q);
}

static void pose_arms(double phase, demo_pose *pose)
{
    for (int side = 0; side < 2; side++) {
        int o = side ? DEMO_SIDE : 0;
        double sign = side ? -1 : 1;
        /* Back (> 0) when the same side's leg is forward; a little
         * after the legs. */
        double swing = sign * 0.25 * cos(2 * PI * (phase - 0.04)) - 0.03;
        double forward = 0.5 - 0.5 * swing / 0.25;
        float q[4];
        demo_q_euler(0, 0, sign * 0.02 * cos(2 * PI * (phase - 0.04)), q);
        demo_pose_rotate(pose, DEMO_CLAVICLE_L + o, q);
        demo_q_euler(swing, -sign * 0.06, 0, q);
        demo_pose_rotate(pose, DEMO_UPPER_ARM_L + o, q);
        demo_q_euler(-(0.22 + 0.22 * forward), 0, 0, q);
        demo_pose_rotate(pose, DEMO_LOWER_ARM_L + o, q);
        demo_q_euler(-0.1, 0, 0, q);
        demo_pose_rotate(pose, DEMO_HAND_L + o, q);
    }
}

void demo_walk_pose(uint32_t frame, demo_pose *pose)
{
    double phase = (double)frame / DEMO_WALK_FRAMES;
    demo_pose_bind(pose);
    pose_trunk(phase, pose);
    pose_arms(phase, pose);
    demo_pose_update(pose);
    for (int side = 0; side < 2; side++) {
        double p = fmod(phase + 0.5 * side, 1.0);
        demo_foot_target t;
        foot_target(p, side, &t);
        /* The knee bends towards where the foot points. */
        float knee[3];
        float fwd[3] = {0, -1, 0};
        demo_q_rotate(t.foot_rotation, fwd, knee);
        knee[2] = 0;
        demo_v_normalize(knee);
        demo_pose_leg(pose, side, &t, knee);
    }
}
