/* Smooth vertex normals for readers of files without them (normals.c). */
#ifndef OSSA_NORMALS_H
#define OSSA_NORMALS_H

#include "core/internal.h"

/* One normal per triangle corner, by docs/formats/iqe.md §5 without an angle limit:
 * the corners at one exact position (-0 equals 0) whose triangles have the
 * same smoothing key form a class, and each class gets the normalized sum
 * of its triangles' area-weighted face normals; this works across meshes.
 * Triangles with key 0 are flat: their corners get the triangle's own unit
 * normal. A class (or flat triangle) whose sum has no length gets 0.
 *
 * Triangles are ossa's (front faces clockwise): corners[3t..3t+2] index
 * `positions`, whose point i is positions[i * stride .. + 2]. keys holds
 * one key per triangle, or is NULL for one group (key 1) everywhere. `out`
 * receives 3 floats per corner. Temporary memory comes from the model's
 * allocator. */
/* The area-weighted face normal of the triangle at corners c (indexes into
 * positions, as above): (p2 - p0) x (p1 - p0) in double, front faces being
 * clockwise; components may be infinite or NaN for huge coordinates. */
void ossa__face_normal(const float *positions, size_t stride, const uint32_t c[3], double n[3]);

ossa_status ossa__smooth_normals(const ossa_model *model, const float *positions, size_t stride,
                                 const uint32_t *corners, const int64_t *keys,
                                 size_t num_triangles, float *out, ossa_error *error);

#endif
