/* Quaternions and 4x4 matrices shared by the whole library: the model
 * core, the runtime and every format. Column-major matrices, element
 * [col*4+row], column vectors; quaternions (x, y, z, w). Not installed. */
#ifndef OSSA_MATH_H
#define OSSA_MATH_H

#include "ossa/common.h"

#include <stdbool.h>

/* -- Single precision (and the double TRS matrix) -- */

void ossa__quat_normalize(float q[4]);
/* Readers keep quaternions that are unit up to quantization error as they
 * are, so that decoding and encoding again reproduces the same bytes
 * (renormalizing would move every channel range); others are normalized.
 * Everything that uses a rotation normalizes it first. */
#define OSSA_QUAT_TOLERANCE 1e-4
void ossa__quat_tidy(float q[4]);
/* Column-major T * R * S in double precision, the rotation normalized
 * first (identity when it has no finite, nonzero length). */
void ossa__transform_to_mat4d(const ossa_transform *t, double m[16]);
void ossa__mat4_mul(const float a[16], const float b[16], float out[16]);
/* Inverse of an affine matrix; false when singular. */
bool ossa__mat4_invert_affine(const float m[16], float out[16]);
bool ossa__finite3(const float v[3]);

/* -- Double precision: for readers that compose file matrices -- */

void ossa__mat4d_mul(const double a[16], const double b[16], double out[16]);
/* Inverse of an affine matrix; false when singular or not finite. */
bool ossa__mat4d_invert_affine(const double m[16], double out[16]);
/* out = a * b (Hamilton product; out may alias a or b). */
void ossa__quatd_mul(const double a[4], const double b[4], double out[4]);
/* out = q v q* for a unit q: v + 2w(u x v) + 2u x (u x v), u = q.xyz. */
void ossa__quatd_rotate(const double q[4], const double v[3], double out[3]);
/* The unit quaternion of a rotation matrix given as columns c[col][row]
 * (Shepperd's method, normalized in double; the identity when the matrix
 * gives no finite, nonzero quaternion). */
void ossa__quat_from_rotation(const double c[3][3], double q[4]);
/* Slerp from a to b by t along the shorter arc, in double precision. Keys
 * need not be unit (files round them): each is normalized first, and a key
 * with no finite, nonzero length gives the identity. Keys whose cosine is
 * within 1e-12 of 1 are blended linearly (sin(theta) has no digits left
 * there, and the linear blend is exact to double). The result is unit. */
void ossa__quat_slerp(const float a[4], const float b[4], double t, float out[4]);
/* Translation, rotation and scale of an affine matrix: column lengths are
 * the scales (the first negated when the matrix mirrors); a zero column is
 * rebuilt from the other two. Shear is lost. */
void ossa__mat4d_to_transform(const double m[16], ossa_transform *t);

/* -- Affine 3x4 matrices in double, column-major: m[col * 3 + row], column
 * 3 the translation (the clip compressor's error metric, and the
 * character size it starts from) -- */

void ossa__affine_from_trs(const float t[3], const float q[4], const float s[3], double m[12]);
/* out = a * b; out may alias neither. */
void ossa__affine_mul(const double a[12], const double b[12], double out[12]);

/* -- Boxes (min xyz, max xyz) in double -- */

/* Grows `box` by p; *any says whether it holds a point yet. */
void ossa__box_grow(double box[6], const double p[3], int *any);
/* Grows `box` by the model-space origins of n joints given by their
 * parents and parent-relative bind transforms; `world` is n matrices of
 * scratch. */
void ossa__box_grow_joints(double box[6], int *any, uint32_t n, const int32_t *parents,
                           const ossa_transform *bind, double (*world)[12]);
/* The box's diagonal; 1 when it is empty, flat to a point or not finite. */
double ossa__box_size(const double box[6]);

#endif
