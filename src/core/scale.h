/* One rule for writing joint scale where a format stores none or its
 * players ignore it (scale.c): a view of the model with the scale baked
 * into translations and the mesh, and warnings for what cannot be. Not
 * installed. */
#ifndef OSSA_SCALE_H
#define OSSA_SCALE_H

#include "core/internal.h"

/* What a format does with joint scale (its entry in the format table). */
typedef enum ossa__scale_rule {
    /* The format stores scale and its players use it: written as it is. */
    OSSA__SCALE_STORED = 0,
    /* The format stores none (MD5, SMD): every scale is baked. A scale
     * that is uniform and the same in the bind pose and every frame is
     * exact; any other (one that changes over time, or is not uniform) is
     * lost for the skinned mesh and reported, joints keeping their places
     * and rotations. */
    OSSA__SCALE_NONE,
    /* The format stores it but its players ignore it (IQM: raylib composes
     * frames without the parent's scale): the scales that bake exactly are
     * baked, the others are kept (and noted). */
    OSSA__SCALE_IGNORED
} ossa__scale_rule;

typedef struct ossa__scale_baked {
    /* The model to write: `model` itself when nothing changes, else a
     * shallow copy whose joints, animations (frames, no channel masks)
     * and, when the mesh changes size, position array are new. */
    ossa_model view;
    ossa_joint *joints;
    ossa_animation *animations;
    ossa_transform *frames;
    ossa_vertex_array *arrays;
    float *positions;
    const ossa_allocator *allocator;
} ossa__scale_baked;

/* Bakes scale by `rule` (OSSA__SCALE_STORED: the model as it is):
 *
 * 1. When every root has one uniform scale in every frame of every
 *    animation, and it is the same ratio c (not 1) of the root's bind
 *    scale for all roots, the mesh and the bind pose are scaled by c about
 *    the origin: skinning is unchanged, and the bind pose now has the
 *    frames' scale.
 * 2. Joints are walked parents first, each carrying the uniform scale
 *    its ancestors gave up: a joint's translations are multiplied by it,
 *    and when its scale times it is uniform and the same in the bind pose
 *    and every frame, that scale moves on to its children and the joint's
 *    becomes 1. Joint places and rotations stay exact, and so does
 *    skinning (the scale cancels between bind pose and frame).
 * 3. OSSA__SCALE_NONE only, when scale is left: every pose goes through
 *    model space (each joint where its full transforms put it, turned by
 *    its rotations alone, made relative to its parent again) with a
 *    warning per animation naming the joint whose skinning matrix is
 *    farthest from the rigid motion written, and by how much.
 *
 * Scales within 1e-5 of each other (relative) count as equal, within 1e-5
 * of 1 as none: a model with no other scale is returned as it is. So is a
 * model with a value that is not finite (the writer reports it).
 * `format_name` names the format in messages. Release with
 * ossa__scale_release, also after a failure. */
ossa_status ossa__scale_bake(const ossa_model *model, ossa__scale_rule rule, const char *format_name,
                             const ossa_write_options *options, ossa__scale_baked *out,
                             ossa_error *error);
void ossa__scale_release(ossa__scale_baked *baked);

#endif
