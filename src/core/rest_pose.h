/* What a writer of a format with one pose writes of a model with a rest
 * pose (rest_pose.c): a view of the model whose mesh is skinned into the
 * rest pose and whose bind pose is that rest pose (or, where that would
 * bend animations, the model without its rest pose). Not installed. */
#ifndef OSSA_REST_POSE_H
#define OSSA_REST_POSE_H

#include "core/internal.h"

typedef struct ossa__rest_view {
    /* The model as the writer sees it: `source` itself when it has no
     * rest pose; else a shallow copy sharing everything but the joints
     * and the vertex arrays that move (positions, normals, tangents,
     * "bitangent"), which become floats. Valid until released, and while
     * `source` lives. */
    ossa_model view;
    const ossa_model *source;
    ossa_joint *joints;
    ossa_vertex_array *arrays;
    float **owned; /* the moved arrays' data */
    uint32_t num_owned;
    double size; /* the diagonal of the skinned mesh's box (1 without one) */
    const ossa_allocator *alloc;
} ossa__rest_view;

/* Prepares the view from options->allocator and tells options->diagnostic
 * what it did, naming `format_name`. Where re-posing would bend animations
 * (joints that share vertices move apart between the two poses by more
 * than 1e-4 of the mesh's size) and `force` is false, the view keeps the
 * mesh and bind pose and only leaves the rest pose out (with a warning
 * saying by how much). On failure nothing needs releasing. */
ossa_status ossa__rest_view_prepare(const ossa_model *model, const char *format_name,
                                    const ossa_write_options *options, bool force,
                                    ossa__rest_view *out, ossa_error *error);
void ossa__rest_view_release(ossa__rest_view *view);

#endif
