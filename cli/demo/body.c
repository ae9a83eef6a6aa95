/* The demo character's body: smooth parts swept along its bones (torso
 * with neck, head, nose, arms, hands, legs, shoes), each a closed surface
 * (shape.c). The limbs run the length of their chain in one piece, so
 * that elbows and knees bend a continuous surface; where parts meet, one
 * ends inside the other (the thighs' tops inside the hips, the neck's top
 * inside the head, the wrists inside the hands, the ankles inside the
 * shoes). Ring tables give (along, a, b, du, dv) in metres: the distance
 * along the part's path, the half-widths across it and the offset of the
 * centre (see demo_ring). The right side mirrors the left. */
#include "demo.h"

#include <stdlib.h>
#include <string.h>

#define PI_F 3.14159265f

/* Torso and neck, up the Z axis from z = 0.80 (along = z - 0.80). U is
 * +X (a: half the width), V is +Y (b: half the depth; dv > 0 moves the
 * centre back): hips, waist, chest, shoulders sloping to the neck. */
static const demo_ring torso_rings[] = {
    {0.06f, 0.140f, 0.095f, 0, 0.005f},  {0.12f, 0.170f, 0.112f, 0, 0.012f},
    {0.18f, 0.168f, 0.106f, 0, 0.006f},  {0.24f, 0.152f, 0.096f, 0, 0.001f},
    {0.30f, 0.148f, 0.095f, 0, -0.002f}, {0.36f, 0.154f, 0.100f, 0, -0.006f},
    {0.42f, 0.165f, 0.108f, 0, -0.008f}, {0.48f, 0.173f, 0.112f, 0, -0.008f},
    {0.54f, 0.179f, 0.108f, 0, -0.004f}, {0.585f, 0.178f, 0.098f, 0, 0.002f},
    {0.615f, 0.176f, 0.088f, 0, 0.006f}, {0.645f, 0.128f, 0.068f, 0, 0.01f},
    {0.67f, 0.060f, 0.056f, 0, 0.01f},   {0.76f, 0.054f, 0.054f, 0, 0.005f},
};

/* The head from z = 1.50 (along = z - 1.50): the jaw narrower and
 * forward (dv < 0), the skull behind it, closed by a round crown. */
static const demo_ring head_rings[] = {
    {0.025f, 0.040f, 0.045f, 0, -0.035f}, {0.055f, 0.062f, 0.072f, 0, -0.020f},
    {0.10f, 0.074f, 0.088f, 0, -0.008f},  {0.15f, 0.080f, 0.096f, 0, -0.002f},
    {0.20f, 0.078f, 0.094f, 0, 0.004f},
};

/* The nose, out of the face and slightly down. */
static const demo_ring nose_rings[] = {
    {0.0f, 0.011f, 0.012f, 0, 0},
    {0.016f, 0.012f, 0.014f, 0, 0},
};

/* An arm from the shoulder through the elbow to the wrist: deltoid,
 * biceps, elbow, forearm, wrist. U is +X, V is -Y (forward). */
static const demo_ring arm_rings[] = {
    {0.00f, 0.050f, 0.054f, 0, 0}, {0.09f, 0.049f, 0.052f, 0, 0},
    {0.18f, 0.044f, 0.047f, 0, 0}, {0.27f, 0.038f, 0.041f, 0, 0},
    {0.30f, 0.037f, 0.040f, 0, 0}, {0.36f, 0.040f, 0.044f, 0, 0},
    {0.45f, 0.034f, 0.037f, 0, 0}, {0.53f, 0.028f, 0.031f, 0, 0},
};

/* A hand as a mitten, palm towards the thigh: thin across (a), wide
 * front to back (b). */
static const demo_ring hand_rings[] = {
    {0.00f, 0.020f, 0.030f, 0, 0},
    {0.05f, 0.023f, 0.046f, 0, 0},
    {0.10f, 0.021f, 0.047f, 0, 0},
    {0.14f, 0.017f, 0.041f, 0, 0},
};

/* A leg from the hip through the knee to the ankle. */
static const demo_ring leg_rings[] = {
    {0.00f, 0.075f, 0.085f, 0, 0}, {0.06f, 0.077f, 0.084f, 0, 0},
    {0.14f, 0.073f, 0.078f, 0, 0}, {0.24f, 0.066f, 0.070f, 0, 0},
    {0.34f, 0.056f, 0.059f, 0, 0}, {0.42f, 0.052f, 0.055f, 0, 0},
    {0.50f, 0.055f, 0.060f, 0, 0}, {0.60f, 0.050f, 0.054f, 0, 0},
    {0.71f, 0.041f, 0.043f, 0, 0}, {0.80f, 0.038f, 0.040f, 0, 0},
};

/* A shoe from the heel forward along -Y; V is +Z. Every ring's centre is
 * raised by its half-height (dv = b), so that the sole lies on z = 0: high
 * at the ankle, low at the toe. */
static const demo_ring shoe_rings[] = {
    {0.02f, 0.040f, 0.048f, 0, 0.048f}, {0.07f, 0.045f, 0.060f, 0, 0.060f},
    {0.13f, 0.048f, 0.045f, 0, 0.045f}, {0.19f, 0.050f, 0.035f, 0, 0.035f},
    {0.24f, 0.046f, 0.030f, 0, 0.030f},
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The paths (model space), filled in for each side by body_shapes. */
typedef struct paths {
    float torso[2][3], head[2][3], nose[2][3];
    float arm[2][3][3], hand[2][2][3], leg[2][3][3], shoe[2][2][3];
} paths;

static void mirror(float p[3], int side)
{
    if (side < 0) p[0] = -p[0];
}

static void fill_paths(paths *p)
{
    static const float torso[2][3] = {{0, 0, 0.80f}, {0, 0, 1.60f}};
    static const float head[2][3] = {{0, 0, 1.50f}, {0, 0, 1.80f}};
    static const float nose[2][3] = {{0, -0.088f, 1.628f}, {0, -0.114f, 1.614f}};
    memcpy(p->torso, torso, sizeof torso);
    memcpy(p->head, head, sizeof head);
    memcpy(p->nose, nose, sizeof nose);
    for (int s = 0; s < 2; s++) {
        int o = s * DEMO_SIDE;
        demo_joint_position(DEMO_UPPER_ARM_L + o, p->arm[s][0]);
        demo_joint_position(DEMO_LOWER_ARM_L + o, p->arm[s][1]);
        demo_joint_position(DEMO_HAND_L + o, p->arm[s][2]);
        /* The hand goes on in the forearm's direction. */
        float d[3];
        demo_v_sub(p->arm[s][2], p->arm[s][1], d);
        demo_v_normalize(d);
        memcpy(p->hand[s][0], p->arm[s][2], sizeof d);
        for (int k = 0; k < 3; k++) p->hand[s][1][k] = p->arm[s][2][k] + 0.19f * d[k];
        demo_joint_position(DEMO_THIGH_L + o, p->leg[s][0]);
        demo_joint_position(DEMO_CALF_L + o, p->leg[s][1]);
        demo_joint_position(DEMO_FOOT_L + o, p->leg[s][2]);
        /* From behind the heel, under the ankle, to the toe. */
        float heel[3] = {0.09f, 0.065f, 0}, toe[3] = {0.09f, -0.215f, 0};
        mirror(heel, s ? -1 : 1);
        mirror(toe, s ? -1 : 1);
        memcpy(p->shoe[s][0], heel, sizeof heel);
        memcpy(p->shoe[s][1], toe, sizeof toe);
    }
}

/* Every part. Returns the number of shapes written to `out` (room for
 * 16). Ends hidden inside another part are closed by a cone. */
static int body_shapes(const paths *p, demo_shape *out)
{
    int n = 0;
    out[n++] = (demo_shape){DEMO_PART_TORSO, 0, p->torso, 2, {1, 0, 0}, torso_rings,
                            COUNT(torso_rings), 12, 2, 0, 0.04f, 0.03f, 2.5f, -PI_F / 2};
    out[n++] = (demo_shape){DEMO_PART_HEAD, 0, p->head, 2, {1, 0, 0}, head_rings,
                            COUNT(head_rings), 12, 2, 2, 0.022f, 0.055f, 2.2f, -PI_F / 2};
    out[n++] = (demo_shape){DEMO_PART_NOSE, 0, p->nose, 2, {1, 0, 0}, nose_rings,
                            COUNT(nose_rings), 6, 0, 1, 0.006f, 0.01f, 2.0f, PI_F / 2};
    for (int s = 0; s < 2; s++) {
        int side = s ? -1 : 1;
        out[n++] = (demo_shape){DEMO_PART_ARM, side, (const float(*)[3])p->arm[s], 3, {1, 0, 0},
                                arm_rings, COUNT(arm_rings), 8, 1, 0, 0.028f, 0.02f, 2.0f, PI_F / 2};
        out[n++] = (demo_shape){DEMO_PART_HAND, side, (const float(*)[3])p->hand[s], 2, {1, 0, 0},
                                hand_rings, COUNT(hand_rings), 6, 0, 1, 0.015f, 0.045f, 2.5f, PI_F / 2};
        out[n++] = (demo_shape){DEMO_PART_LEG, side, (const float(*)[3])p->leg[s], 3, {1, 0, 0},
                                leg_rings, COUNT(leg_rings), 8, 0, 0, 0.07f, 0.03f, 2.0f, PI_F / 2};
        out[n++] = (demo_shape){DEMO_PART_SHOE, side, (const float(*)[3])p->shoe[s], 2, {1, 0, 0},
                                shoe_rings, COUNT(shoe_rings), 8, 1, 1, 0.02f, 0.035f, 3.0f, PI_F / 2};
    }
    return n;
}

void demo_mesh_free(demo_mesh *m)
{
    free(m->position);
    free(m->normal);
    free(m->texcoord);
    free(m->kind);
    free(m->side);
    free(m->triangles);
    memset(m, 0, sizeof *m);
}

int demo_mesh_build(demo_mesh *m)
{
    memset(m, 0, sizeof *m);
    paths p;
    fill_paths(&p);
    demo_shape shapes[16];
    int n = body_shapes(&p, shapes);
    uint32_t nv = 0, nt = 0;
    for (int i = 0; i < n; i++) nv += demo_shape_vertices(&shapes[i]), nt += demo_shape_triangles(&shapes[i]);
    m->position = malloc(sizeof(float) * 3 * nv);
    m->normal = malloc(sizeof(float) * 3 * nv);
    m->texcoord = malloc(sizeof(float) * 2 * nv);
    m->kind = malloc(nv);
    m->side = malloc(nv);
    m->triangles = malloc(sizeof(ossa_triangle) * nt);
    if (!m->position || !m->normal || !m->texcoord || !m->kind || !m->side || !m->triangles) {
        demo_mesh_free(m);
        return -1;
    }
    for (int i = 0; i < n; i++) demo_shape_add(m, &shapes[i]);
    return 0;
}
