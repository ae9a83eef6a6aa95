#ifndef OSSA_CORE_WORLD_H
#define OSSA_CORE_WORLD_H

/* Model-space poses in double precision, for writers that store joints in
 * model space (MD5) and for baking scale (scale.c). */

#include "core/internal.h"

/* Doubles per joint in a model-space pose: the full matrix (16, column
 * major, scale included: its translation is where the joint really is),
 * then the rotation composed from rotations alone (4, x y z w). */
enum { OSSA__WORLD = 20 };

/* A rotation as a unit double quaternion (identity when it has no length
 * or is not finite). */
void ossa__unit_quatd(const float r[4], double q[4]);

/* world[j * OSSA__WORLD ...] for every joint of `m` posed by the
 * parent-relative `local` (num_joints transforms; parents come first). */
void ossa__world_poses(const ossa_model *m, const ossa_transform *local, double *world);

#endif
