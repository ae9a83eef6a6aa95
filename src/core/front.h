/* A model turned about +Z by quarter turns to face another front (front.c):
 * what writers do when their format's front (ossa_format_front) is not the
 * model's. Not installed. */
#ifndef OSSA_FRONT_H
#define OSSA_FRONT_H

#include "core/internal.h"

typedef struct ossa__front_turned {
    /* The model to write: `model` itself when it is not turned, else a
     * shallow copy with its own joints, animations, frames, bounds and
     * the vertex arrays that turn. */
    ossa_model view;
    ossa_joint *joints;
    ossa_transform *rest_pose; /* when the model has one */
    ossa_animation *animations;
    ossa_transform *frames;
    ossa_bounds *bounds;
    ossa_vertex_array *arrays;
    void **data; /* per array: the turned copy, or NULL */
    const ossa_allocator *allocator;
} ossa__front_turned;

/* Turns `model` from its front to `to` (nothing when either is unknown or
 * they agree). The turn is a change of axes by a quarter turn about +Z,
 * exact in floats: positions, normals, tangents and custom "bitangent"
 * arrays (x, y) -> (-y, x) per quarter turn (integer arrays become
 * floats), every joint's bind and frame translation alike, rotations
 * conjugated (their axis turned, the angle kept), scales' x and y swapped
 * per quarter turn, stored bounds turned. Skinning gives the turned mesh.
 * The view's front is `to`. Release with ossa__front_release, also after
 * a failure. */
ossa_status ossa__front_turn(const ossa_model *model, ossa_front to, const ossa_allocator *allocator,
                             ossa__front_turned *out, ossa_error *error);
void ossa__front_release(ossa__front_turned *turned);

/* Quarter turns counter-clockwise about +Z (seen from above) from `from`
 * to `to`, 0..3; 0 when either is unknown. */
uint32_t ossa__front_quarters(ossa_front from, ossa_front to);

#endif
