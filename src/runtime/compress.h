/* Compressing an animation into a clip image (compress.c). */
#ifndef OSSA_COMPRESS_H
#define OSSA_COMPRESS_H

#include "runtime/packed.h"

/* The diagonal of the box around the model's bind pose: the bind-pose
 * vertex positions and joint origins (model space); 1 for a model with
 * neither, or where they all coincide; -1 when memory runs out. */
double ossa__bind_size(const ossa_model *model);

/* Compresses model->animations[animation] (already checked to exist) so
 * that no virtual vertex at `shell` from a joint moves by more than
 * `max_error` (model units) at any frame; both > 0. The image (packed.h)
 * comes from ossa__temp_alloc(model) with its order and root track left
 * zero for the caller to fill. */
ossa_status ossa__compress(const ossa_model *model, uint32_t animation, float max_error,
                           float shell, uint32_t root_joint, ossa_axis up, unsigned char **image,
                           size_t *size, ossa_error *error);

#endif
