/* Compressing an animation into a clip image (compress.c). */
#ifndef OSSA_COMPRESS_H
#define OSSA_COMPRESS_H

#include "runtime/packed.h"

/* The source's size (ossa_clip_source.size), or when it gives none the
 * diagonal of the box around its bind-pose joint origins (model space); 1
 * for a source without joints, or whose joints coincide; -1 when memory
 * runs out (temporaries from `alloc`). */
double ossa__source_size(const ossa_clip_source *src, const ossa_allocator *alloc);

/* Compresses `src` (already checked) so that no virtual vertex at `shell`
 * from a joint moves by more than `max_error` (model units) at any frame;
 * both > 0. The image (packed.h) comes from `alloc` with its order and
 * root track left zero for the caller to fill. */
ossa_status ossa__compress(const ossa_clip_source *src, const ossa_allocator *alloc, float max_error,
                           float shell, uint32_t root_joint, ossa_axis up, unsigned char **image,
                           size_t *size, ossa_error *error);

#endif
