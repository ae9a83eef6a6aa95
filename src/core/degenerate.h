/* Degenerate-triangle removal, the step of the post-read pipeline that the
 * loader runs on every model after its format's reader (degenerate.c),
 * unless OSSA_LOAD_KEEP_DEGENERATE. Validation reports the same
 * triangles (OSSA_PROBLEM_DEGENERATE). */
#ifndef OSSA_DEGENERATE_H
#define OSSA_DEGENERATE_H

#include "core/internal.h"

/* Whether triangle t repeats a vertex: two of its corners are one vertex
 * of the model, the same index or two vertices equal in every vertex
 * array, byte for byte (which welding makes one: the IQM SDK drops a
 * triangle whose corners share one of its merged vertices). Different
 * vertices at one position (another normal or texcoord) are not one
 * vertex: a triangle of zero area with three distinct vertices stays. In
 * a model without vertex arrays only indices tell. False when a corner is
 * out of range (validation reports that). */
bool ossa__triangle_repeats_vertex(const ossa_model *model, uint32_t t);

/* Drops the triangles that repeat a vertex, the vertices that only they
 * used (when the model has vertex arrays: without, there is nothing to
 * drop) and the meshes that they leave without triangles, keeping the
 * order of the rest (stored adjacency follows; a neighbour that went
 * becomes OSSA_NO_NEIGHBOR), with one warning that counts them. Temporary
 * memory: a few bytes per triangle and per vertex. */
ossa_status ossa__drop_degenerate(ossa_model *model, ossa_error *error);

#endif
