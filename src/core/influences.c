/* Influence limiting (influences.h): one rule for every reader.
 *
 * A vertex rarely has more than a handful of pairs, so the sorts are
 * insertion sorts (stable, no calls) below 16 pairs and qsort above; the
 * comparisons break every tie, so both give the same order. */
#include "core/influences.h"

#include <math.h>
#include <stdlib.h>

uint32_t ossa__influence_max(uint32_t max_influences)
{
    if (!max_influences) return 4;
    return max_influences > OSSA_MAX_COMPONENTS ? OSSA_MAX_COMPONENTS : max_influences;
}

static int by_joint(const void *a, const void *b)
{
    const ossa__influence *x = a, *y = b;
    if (x->joint != y->joint) return x->joint < y->joint ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_weight(const void *a, const void *b)
{
    const ossa__influence *x = a, *y = b;
    if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return x->joint < y->joint ? -1 : x->joint > y->joint;
}

static int by_order(const void *a, const void *b)
{
    const ossa__influence *x = a, *y = b;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return x->joint < y->joint ? -1 : x->joint > y->joint;
}

static void sort(ossa__influence *p, uint32_t n, int (*cmp)(const void *, const void *))
{
    if (n > 16) {
        qsort(p, n, sizeof *p, cmp);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        ossa__influence x = p[i];
        uint32_t j = i;
        while (j > 0 && cmp(&p[j - 1], &x) > 0) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = x;
    }
}

uint32_t ossa__influences_limit(ossa__influence *p, uint32_t n, const ossa__influence_rule *rule,
                                ossa__influence_stats *stats)
{
    ossa__influence_stats s;
    memset(&s, 0, sizeof s);
    /* 1. Only positive finite weights move a vertex. */
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (p[i].weight > 0 && isfinite(p[i].weight)) p[m++] = p[i];
    /* 2. Repeated joints summed, in the order given. A handful of pairs
     * is checked pair by pair; long lists are sorted by joint anyway. */
    bool repeated = m > 16;
    for (uint32_t i = 0; i < m && !repeated; i++)
        for (uint32_t k = 0; k < i && !repeated; k++) repeated = p[k].joint == p[i].joint;
    if (repeated) {
        sort(p, m, by_joint);
        uint32_t u = 0;
        for (uint32_t i = 0; i < m; i++) {
            if (u && p[u - 1].joint == p[i].joint)
                p[u - 1].weight += p[i].weight;
            else
                p[u++] = p[i];
        }
        m = u;
    }
    s.merged = m;
    /* 3 and 4. Largest first; the tiny ones are at the end. */
    sort(p, m, by_weight);
    uint32_t above = 0;
    while (above < m && p[above].weight > rule->min_weight) s.total += p[above++].weight;
    uint32_t kept = above < rule->max ? above : rule->max;
    for (uint32_t i = 0; i < kept; i++) s.kept_weight += p[i].weight;
    if (rule->in_order) sort(p, kept, by_order);
    s.above = above;
    s.kept = kept;
    if (stats) *stats = s;
    return kept;
}

void ossa__influences_normalize(const ossa__influence *p, uint32_t n, uint32_t slots, float *out)
{
    double sum = 0;
    for (uint32_t k = 0; k < n; k++) sum += (float)p[k].weight;
    /* Weights that sum to 1 up to their float rounding (half an ulp
     * each, at most 2^-25 below 1) stay as they are: dividing them by
     * their sum would move them by an ulp on every read. */
    bool keep = fabs(sum - 1) <= (slots > n ? slots : n) * 0x1p-25;
    if (!keep) {
        sum = 0;
        for (uint32_t k = 0; k < n; k++) sum += p[k].weight;
    }
    for (uint32_t k = 0; k < n; k++)
        out[k] = !(sum > 0) ? 0.0f : keep ? (float)p[k].weight : (float)(p[k].weight / sum);
}
