/* The built-in demo character of `ossa demo`: a small humanoid made by
 * code, built only through the public API so that it doubles as an
 * example of the model builders.
 *
 * The model follows ossa's conventions: Z up, the character facing -Y
 * (its left hand at +X), metres (1.75 m tall, feet on z = 0), front
 * faces clockwise (ossa_triangle). Every bind rotation is the identity,
 * so the joints' axes are the model's and animation rotations read as
 * turns about X (pitch), Y (roll) and Z (yaw).
 *
 * One job per file: skeleton.c (joints), shape.c (a surface swept along a
 * path), body.c (the body parts), weights.c (skinning weights),
 * texture.c (the procedural texture), rig.c (forward kinematics and leg
 * IK), walk.c and idle.c (the animations), model.c (the whole model). */
#ifndef OSSA_DEMO_H
#define OSSA_DEMO_H

#include <ossa.h>

#include <stdint.h>

/* -- Skeleton (skeleton.c) ------------------------------------------------ */

/* Joint indices; parents come before their children. The left side (+X)
 * comes first and each right joint is its left one plus DEMO_SIDE. */
enum {
    DEMO_PELVIS,
    DEMO_SPINE_01,
    DEMO_SPINE_02,
    DEMO_NECK,
    DEMO_HEAD,
    DEMO_CLAVICLE_L,
    DEMO_UPPER_ARM_L,
    DEMO_LOWER_ARM_L,
    DEMO_HAND_L,
    DEMO_THIGH_L,
    DEMO_CALF_L,
    DEMO_FOOT_L,
    DEMO_TOE_L,
    DEMO_CLAVICLE_R,
    DEMO_UPPER_ARM_R,
    DEMO_LOWER_ARM_R,
    DEMO_HAND_R,
    DEMO_THIGH_R,
    DEMO_CALF_R,
    DEMO_FOOT_R,
    DEMO_TOE_R,
    DEMO_NUM_JOINTS
};
#define DEMO_SIDE (DEMO_CLAVICLE_R - DEMO_CLAVICLE_L)

/* The joint's name ("pelvis", "upper_arm_l"...) and parent (-1 for the
 * root). */
const char *demo_joint_name(int joint);
int demo_joint_parent(int joint);
/* The joint's bind position in model space (metres). */
void demo_joint_position(int joint, float out[3]);
/* Adds the joints to `model`; returns OSSA_OK or fails with `error`. */
ossa_status demo_add_skeleton(ossa_model *model, ossa_error *error);

/* -- Small vector and quaternion helpers (vecmath.c) ----------------------- */

void demo_v_sub(const float a[3], const float b[3], float out[3]);
float demo_v_dot(const float a[3], const float b[3]);
void demo_v_cross(const float a[3], const float b[3], float out[3]);
/* Scales `v` to unit length; a zero vector stays zero. Returns the old
 * length. */
float demo_v_normalize(float v[3]);
/* out = q * r (apply r first, then q). */
void demo_q_mul(const float q[4], const float r[4], float out[4]);
void demo_q_conj(const float q[4], float out[4]);
/* The rotation of `angle` radians about the unit `axis`. */
void demo_q_axis_angle(const float axis[3], double angle, float out[4]);
/* The rotation about X, then Y, then Z... in that order of application:
 * out = Rz(z) * Ry(y) * Rx(x). */
void demo_q_euler(double x, double y, double z, float out[4]);
void demo_q_rotate(const float q[4], const float v[3], float out[3]);
/* The rotation whose matrix has these columns (an orthonormal, right-
 * handed basis). */
void demo_q_from_basis(const float x[3], const float y[3], const float z[3], float out[4]);

/* Smooth step from 0 at `e0` to 1 at `e1` (either order). */
float demo_smoothstep(float e0, float e1, float x);

/* -- Geometry (shape.c, body.c) ------------------------------------------- */

/* Which part of the body a vertex belongs to: the weights and the
 * texture depend on it. */
typedef enum demo_part_kind {
    DEMO_PART_TORSO,
    DEMO_PART_HEAD,
    DEMO_PART_ARM,
    DEMO_PART_HAND,
    DEMO_PART_LEG,
    DEMO_PART_SHOE,
    DEMO_PART_NOSE,
    DEMO_NUM_PART_KINDS
} demo_part_kind;

/* The body's vertices and triangles, in the bind pose. */
typedef struct demo_mesh {
    uint32_t num_vertices, num_triangles;
    float *position;      /* 3 per vertex */
    float *normal;        /* 3 per vertex, unit */
    float *texcoord;      /* 2 per vertex: the texture atlas (texture.c) */
    uint8_t *kind;        /* demo_part_kind per vertex */
    int8_t *side;         /* +1 left (+X), -1 right, 0 the middle */
    ossa_triangle *triangles;
} demo_mesh;

/* One cross-section of a swept part. */
typedef struct demo_ring {
    float along;  /* metres along the path from its first point; may lie
                     before it or past its end (the path is extended) */
    float a, b;   /* half-widths along the ring's U and V axes */
    float du, dv; /* offset of the centre from the path along U and V */
} demo_ring;

/* A closed surface swept along a polyline. At each ring, T is the path's
 * direction, U is `lateral` made perpendicular to T and V = T x U, so
 * that (U, V, T) is right-handed and the ring's vertices, at angles from
 * U towards V, make clockwise front faces outside. The ring's outline is
 * a superellipse of exponent `exponent` (2: an ellipse; larger: boxier).
 * Each end is closed by a pole `cap_start` / `cap_end` metres beyond the
 * end ring, rounded by `round_start` / `round_end` rings on a quarter
 * ellipse between them (0 for an end hidden inside another part: a
 * cone). */
typedef struct demo_shape {
    demo_part_kind kind;
    int side;                 /* +1 left, -1 right, 0 middle */
    const float (*path)[3];   /* num_path points, model space */
    int num_path;
    float lateral[3];
    const demo_ring *rings;
    int num_rings;
    int sides, round_start, round_end;
    float cap_start, cap_end;
    float exponent;
    /* The angle (radians from U towards V) of the part's front, where the
     * texture's u is 0.5; its back, opposite, is the texture's seam. */
    float front;
} demo_shape;

/* Vertices and triangles that demo_shape_add appends. */
uint32_t demo_shape_vertices(const demo_shape *shape);
uint32_t demo_shape_triangles(const demo_shape *shape);
/* Appends the shape to `mesh` (which has room for it): positions,
 * normals (smooth, from the surface's neighbours), texture coordinates,
 * kind, side and triangles. */
void demo_shape_add(demo_mesh *mesh, const demo_shape *shape);

/* Builds the body (malloc'd arrays; free with demo_mesh_free). Returns
 * 0, or -1 when memory runs out. */
int demo_mesh_build(demo_mesh *mesh);
void demo_mesh_free(demo_mesh *mesh);

/* -- Skinning weights (weights.c) ------------------------------------------ */

/* Up to four influences per vertex, largest first, summing to 1; unused
 * slots are joint 0 with weight 0. */
void demo_vertex_weights(const demo_mesh *mesh, uint32_t vertex, float joints[4],
                         float weights[4]);

/* -- Texture (texture.c) ----------------------------------------------------- */

enum { DEMO_TEXTURE_WIDTH = 512, DEMO_TEXTURE_HEIGHT = 512 };

/* Each part kind has a rectangle of the atlas: its width goes once
 * around the part, starting and ending at the part's back (u 0 and 1;
 * the front at u = 0.5), its height runs along the part's path over the
 * stretch that the part covers. These are the texture coordinates of the
 * point at fraction `u` around a part of `kind`, `along` metres along its
 * path (demo_ring.along). */
void demo_texture_coords(demo_part_kind kind, float u, float along, float out[2]);
/* Paints the atlas: DEMO_TEXTURE_WIDTH x DEMO_TEXTURE_HEIGHT RGBA8
 * texels, rows top first. */
void demo_texture_paint(uint8_t *rgba);

/* -- Posing (rig.c) ------------------------------------------------------------ */

/* A pose being built: parent-relative transforms (translation and
 * rotation; scale stays 1) and, after demo_pose_update, the model-space
 * rotation and position of each joint. */
typedef struct demo_pose {
    ossa_transform local[DEMO_NUM_JOINTS];
    float world_rotation[DEMO_NUM_JOINTS][4];
    float world_position[DEMO_NUM_JOINTS][3];
} demo_pose;

/* The bind pose. */
void demo_pose_bind(demo_pose *pose);
/* Sets a joint's local rotation. */
void demo_pose_rotate(demo_pose *pose, int joint, const float rotation[4]);
/* Model-space rotations and positions from the local transforms. */
void demo_pose_update(demo_pose *pose);

/* Where a foot goes: the ankle's model-space position, the foot's
 * model-space rotation, and the toe's rotation relative to the foot. */
typedef struct demo_foot_target {
    float ankle[3];
    float foot_rotation[4];
    float toe_rotation[4];
} demo_foot_target;

/* Poses the leg of `side` (0 left, 1 right) so that its ankle reaches
 * the target (as near as the leg's length allows) with the knee bent
 * towards `knee_direction` (model space), and the foot and toe turned
 * as asked. The pelvis (and everything above it) must be posed and
 * updated first; updates the pose. */
void demo_pose_leg(demo_pose *pose, int side, const demo_foot_target *target,
                   const float knee_direction[3]);

/* -- Animations (walk.c, idle.c) ---------------------------------------------- */

enum {
    DEMO_WALK_FRAMES = 32,
    DEMO_IDLE_FRAMES = 60
};
#define DEMO_WALK_FPS 30.0f
#define DEMO_IDLE_FPS 15.0f

/* The pose at frame `frame` of the loop (frames of the loop: the counts
 * above). */
void demo_walk_pose(uint32_t frame, demo_pose *pose);
void demo_idle_pose(uint32_t frame, demo_pose *pose);

/* -- The model (model.c) --------------------------------------------------------- */

/* The name of the texture image, also the mesh's material. */
#define DEMO_TEXTURE_NAME "demo_texture.png"

/* The whole model: skeleton, skinned and textured mesh, "walk" and
 * "idle". NULL on failure (out of memory), with `error` filled. */
ossa_model *demo_build_model(ossa_error *error);

#endif /* OSSA_DEMO_H */
