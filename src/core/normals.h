/* Normal generation, a step of the post-read pipeline (normals.c): the one
 * algorithm that every reader of a file without normals uses (IQE §5 with
 * its angles, UV seams, `vs` and `fs` flags; OBJ smoothing groups; MD5,
 * smoothed by position per mesh block as id does; SMD's zero normals) and
 * the writers that must store normals the model lacks (OBJ, SMD).
 *
 * Corners at one exact position (-0 equals 0) whose triangles have the
 * same smoothing key are candidates; two candidates join when every
 * condition of their triangles' rules holds (angle, UV, ids, edges below).
 * Joins are closed transitively, and each class gets the normalized sum
 * of its corners' area-weighted face normals (added in corner order, in
 * double). This works across meshes: a reader that wants meshes apart
 * gives them different keys. A class whose sum has no length gets 0.
 *
 * Triangles are ossa's (front faces clockwise): the area-weighted face
 * normal of corners (p0, p1, p2) is (p2 - p0) x (p1 - p0), all zero when
 * a component is not finite. */
#ifndef OSSA_NORMALS_H
#define OSSA_NORMALS_H

#include "core/internal.h"

/* How one triangle smooths (IQE's smoothing state, OBJ's `s 0`). */
typedef struct ossa__smoothing {
    /* Faces whose normals are further apart than this join nothing (the
     * smaller limit of two triangles counts): degrees; >= 180 = no
     * limit. */
    float angle;
    /* Joins only corners whose texcoords are equal (IQE `smoothuv`);
     * needs ossa__normals_in.texcoords. */
    bool uv;
    /* Joins nothing: every corner gets its triangle's own unit normal. */
    bool flat;
} ossa__smoothing;

typedef struct ossa__normals_in {
    /* Point i is positions[i * stride ...]; `components` of its floats
     * (3, or 4 with IQE's W) decide which corners share a position, the
     * first 3 are the point. */
    const float *positions;
    size_t stride;
    uint32_t components;
    /* Points: at least those the corners name (0 = as many as they name;
     * more when points no corner names want normals). */
    size_t num_points;
    /* 3 point indices per triangle. */
    const uint32_t *corners;
    size_t num_triangles;
    /* Per triangle: the smoothing key; NULL = key 1 everywhere. */
    const int64_t *keys;
    /* Key 0 is flat (OBJ's `s 0` and `s off`). */
    bool zero_key_flat;
    /* Per triangle: rules[rule_of[t]] (rule_of NULL: rules[0]); rules
     * NULL: no limit, no conditions. */
    const ossa__smoothing *rules;
    const uint32_t *rule_of;
    uint32_t num_rules;
    /* Optional conditions (NULL = none):
     * texcoords: 2 floats per point, for rules with `uv`;
     * point_ids: per point, corners join only with equal ids (IQE `vs`);
     * edges: per triangle, bit k = the edge from corner k to corner k+1
     *   smooths; two corners then join only when their triangles share an
     *   edge through them (the other ends at one position) that either
     *   flags (IQE `fs`). */
    const float *texcoords;
    const int64_t *point_ids;
    const uint8_t *edges;
    /* Corners sharing a position are compared pairwise when some
     * condition needs it; a position shared by more than this many
     * corners (a pathological file) compares each corner with this many
     * before it only, which keeps the cost linear. 0 = 256. */
    uint32_t window;
} ossa__normals_in;

/* Writes 3 floats per corner to `corner_out` (may be NULL), and, when
 * `point_out` is given, 3 per point: the normal of the class of the
 * point's own position and key (point_keys[i], or 1 when NULL), 0 when no
 * corner is in it (MD5 vertices). Point normals need a call without
 * pairwise conditions (no angle limit, uv, ids or edges); with them the
 * call fails with OSSA_ERROR_ARGUMENT. Temporary memory comes from the
 * model's allocator. */
ossa_status ossa__normals(const ossa_model *model, const ossa__normals_in *in, float *corner_out,
                          const int64_t *point_keys, float *point_out, ossa_error *error);

/* The common case: `keys` per triangle (NULL = one group), key 0 flat, no
 * angle limit; 3 floats per corner to `out`. */
ossa_status ossa__smooth_normals(const ossa_model *model, const float *positions, size_t stride,
                                 const uint32_t *corners, const int64_t *keys,
                                 size_t num_triangles, float *out, ossa_error *error);

#endif
