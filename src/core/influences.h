/* Influence limiting, a step of the post-read pipeline (influences.c): the
 * (joint, weight) pairs a reader gathered for one vertex become at most
 * `max` influences whose weights sum to 1. Every reader that can meet more
 * influences than a vertex keeps (IQE `vb`, MD5 weights, SMD links, FBX
 * clusters, glTF JOINTS_0/JOINTS_1) goes through it. */
#ifndef OSSA_INFLUENCES_H
#define OSSA_INFLUENCES_H

#include "core/internal.h"

/* One (joint, weight) pair as the file gives it. */
typedef struct ossa__influence {
    uint32_t joint;
    /* Ties in weight keep the smaller `order` first: the reader sets it to
     * the pair's position in the file (IQE, MD5, glTF) or to the bone's
     * number (SMD, FBX), as each sorted before the step was shared. */
    uint32_t order;
    double weight;
} ossa__influence;

typedef struct ossa__influence_rule {
    /* Influences kept: 1..OSSA_MAX_COMPONENTS (the load option
     * max_influences; ossa__influence_max turns it into this). */
    uint32_t max;
    /* After repeated joints are summed, weights <= min_weight are dropped:
     * 0.001 where the format's own tools drop tiny weights (the IQM SDK:
     * IQE, MD5, SMD), else 0 (glTF, FBX: every positive weight counts). */
    double min_weight;
    /* The kept influences stay in the order given (glTF's slots) instead
     * of largest first. */
    bool in_order;
} ossa__influence_rule;

/* What a call did, for the readers' warnings. */
typedef struct ossa__influence_stats {
    uint32_t merged;  /* distinct joints with a positive weight */
    uint32_t above;   /* of those, above min_weight */
    uint32_t kept;    /* of those, kept: min(above, max) */
    double total;     /* the weight above min_weight */
    double kept_weight;
} ossa__influence_stats;

/* The load option's influence count: 0 means 4, more than
 * OSSA_MAX_COMPONENTS means OSSA_MAX_COMPONENTS. */
uint32_t ossa__influence_max(uint32_t max_influences);

/* Limits the n pairs of p in place (docs: README "Post-read pipeline"):
 *   1. pairs whose weight is not a positive finite number are dropped;
 *   2. repeated joints are summed into one pair (in order, in double),
 *      which keeps the smallest `order` of them;
 *   3. sums <= rule->min_weight are dropped;
 *   4. largest first, ties by `order`; the first rule->max are kept
 *      (with in_order, they then go back to the order given).
 * Returns the number kept, in p[0..kept). When nothing is above
 * min_weight (kept is 0), p[0..stats->merged) still holds the merged
 * pairs, largest first, for a reader's own fallback. `stats` may be
 * NULL. */
uint32_t ossa__influences_limit(ossa__influence *p, uint32_t n, const ossa__influence_rule *rule,
                                ossa__influence_stats *stats);

/* The weights of n kept pairs as floats that sum to 1 (renormalization):
 * each divided by their sum in double, except weights that already sum to
 * 1 up to the float rounding of the vertex's `slots` weights (half an ulp
 * each: at most slots * 2^-25 away), which are kept bit for bit, so that a
 * file written from the model reads back the same. Writes n floats; all
 * zero when the sum is not positive. */
void ossa__influences_normalize(const ossa__influence *p, uint32_t n, uint32_t slots, float *out);

#endif
