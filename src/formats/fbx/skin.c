/* Skin deformers (fbx.md §7.3, §10.3): every cluster's (index, weight)
 * pairs per control point, limited by the shared step (core/influences.h:
 * repeated joints summed, the largest `max_influences` kept, ties to the
 * lower joint, renormalized); the mesh's bind-time global matrix from the
 * first cluster with matrices (TransformLink · Transform), checked against
 * the others. */
#include "formats/fbx/fbx.h"

#include "core/influences.h"

#include <stdio.h>
#include <stdlib.h>

#include <math.h>

typedef struct pair {
    uint32_t cp, joint;
    double w;
} pair;

static int by_point_then_joint(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->cp != y->cp) return x->cp < y->cp ? -1 : 1;
    return x->joint < y->joint ? -1 : x->joint > y->joint;
}

static bool close_matrices(const double a[16], const double b[16])
{
    double scale = 1;
    for (int i = 0; i < 16; i++) scale = fmax(scale, fabs(a[i]));
    for (int i = 0; i < 16; i++)
        if (fabs(a[i] - b[i]) > 1e-4 * scale) return false;
    return true;
}

static ossa_status cluster_matrix(fbx_doc *doc, const fbx_node *cl, const char *name,
                                  double out[16], bool *found)
{
    bool failed = false;
    const fbx_value *v = ossa__fbx_child_array(doc, cl, name, &failed);
    *found = false;
    if (failed) return OSSA_FAILED;
    if (!v) return OSSA_OK;
    if (v->count != 16)
        return ossa__fbx_fail(doc, ossa__fbx_child(cl, name), v, OSSA_ERROR_CORRUPT,
                              "cluster %s: %u values, expected 16", name, v->count);
    ossa__fbx_matrix_from_array(v, out);
    for (int i = 0; i < 16; i++)
        if (!isfinite(out[i]))
            return ossa__fbx_fail(doc, ossa__fbx_child(cl, name), v, OSSA_ERROR_CORRUPT,
                                  "cluster %s: a value is not finite", name);
    *found = true;
    return OSSA_OK;
}

/* The joint a cluster moves (the model below it), or -1. */
static int32_t cluster_joint(const fbx_scene *sc, const fbx_object *cl)
{
    for (uint32_t c = 0; c < cl->num_in; c++) {
        const fbx_object *m = &sc->objs[sc->conns[cl->in[c]].child];
        if (m->kind == FBX_MODEL) return m->joint;
    }
    return -1;
}

/* What reading the clusters of one geometry gathers. */
typedef struct gather {
    fbx_scene *sc;
    uint32_t num_points;
    fbx_skin_data *out;
    pair *pairs; /* NULL while counting */
    size_t n;
    bool have_bind;
} gather;

/* The mesh's bind-time matrix from cluster `cl` (the first one that has
 * it wins; the others are checked against it). */
static ossa_status cluster_bind(gather *g, const fbx_object *cl)
{
    fbx_doc *doc = g->sc->doc;
    double link[16], xf[16];
    bool fl, ft;
    if (cluster_matrix(doc, cl->node, "TransformLink", link, &fl) ||
        cluster_matrix(doc, cl->node, "Transform", xf, &ft))
        return OSSA_FAILED;
    if (!fl || !ft) return OSSA_OK;
    double mb[16];
    ossa__mat4d_mul(link, xf, mb);
    if (!g->have_bind) {
        memcpy(g->out->mesh_bind, mb, sizeof mb);
        g->have_bind = true;
    } else if (!close_matrices(mb, g->out->mesh_bind)) {
        ossa__fbx_warn(doc, cl->node,
                       "cluster '%s' places the mesh differently at bind time than the first "
                       "cluster, which is used",
                       cl->name);
    }
    return OSSA_OK;
}

/* One cluster's pairs: counted (g->pairs NULL) or gathered, with their
 * control points checked. Weights that move nothing are left out. */
static ossa_status cluster_pairs(gather *g, const fbx_object *cl, int32_t joint)
{
    fbx_doc *doc = g->sc->doc;
    bool failed = false;
    const fbx_value *idx = ossa__fbx_child_array(doc, cl->node, "Indexes", &failed);
    const fbx_value *w = ossa__fbx_child_array(doc, cl->node, "Weights", &failed);
    if (failed) return OSSA_FAILED;
    uint32_t ni = idx ? idx->count : 0, nw = w ? w->count : 0;
    if (ni != nw)
        return ossa__fbx_fail(doc, cl->node, idx ? idx : w, OSSA_ERROR_CORRUPT,
                              "cluster '%s': %u indexes but %u weights", cl->name, ni, nw);
    if (!g->pairs) {
        g->n += ni;
        return OSSA_OK;
    }
    if (cluster_bind(g, cl)) return OSSA_FAILED;
    for (uint32_t k = 0; k < ni; k++) {
        int64_t cp = ossa__fbx_array_int(idx, k);
        double wk = ossa__fbx_array_double(w, k);
        if (cp < 0 || cp >= g->num_points)
            return ossa__fbx_fail(doc, ossa__fbx_child(cl->node, "Indexes"), idx, OSSA_ERROR_CORRUPT,
                                  "cluster '%s': index %lld (element %u) outside the %u control "
                                  "points",
                                  cl->name, (long long)cp, k, g->num_points);
        if (!(wk > 0) || !isfinite(wk)) continue;
        g->pairs[g->n++] = (pair){(uint32_t)cp, (uint32_t)joint, wk};
    }
    return OSSA_OK;
}

/* Every cluster of every skin on the geometry. */
static ossa_status each_cluster(gather *g, const fbx_object *geometry)
{
    fbx_scene *sc = g->sc;
    for (uint32_t a = 0; a < geometry->num_in; a++) {
        const fbx_object *skin = &sc->objs[sc->conns[geometry->in[a]].child];
        if (skin->kind != FBX_SKIN) continue;
        for (uint32_t b = 0; b < skin->num_in; b++) {
            const fbx_object *cl = &sc->objs[sc->conns[skin->in[b]].child];
            if (cl->kind != FBX_CLUSTER) continue;
            int32_t joint = cluster_joint(sc, cl);
            if (joint < 0) continue; /* a cluster without a joint moves nothing */
            g->out->skinned = true;
            if (g->out->first_joint < 0) g->out->first_joint = joint;
            if (cluster_pairs(g, cl, joint)) return OSSA_FAILED;
        }
    }
    return OSSA_OK;
}

/* Per control point, the limited influences; points without any are
 * bound to `fallback` with weight 1. Returns how many had none. */
static uint32_t limit_points(gather *g, ossa__influence *scratch, uint32_t limit, int32_t fallback)
{
    fbx_skin_data *out = g->out;
    ossa__influence_rule rule = {limit, 0, false};
    uint32_t count = 0, unweighted = 0;
    size_t k = 0;
    for (uint32_t cp = 0; cp < g->num_points; cp++) {
        out->first[cp] = count;
        uint32_t n = 0;
        for (; k < g->n && g->pairs[k].cp == cp; k++, n++)
            scratch[n] = (ossa__influence){g->pairs[k].joint, g->pairs[k].joint, g->pairs[k].w};
        uint32_t keep = n ? ossa__influences_limit(scratch, n, &rule, NULL) : 0;
        if (!keep) {
            unweighted++;
            out->list[count].joint = (uint32_t)fallback;
            out->list[count++].weight = 1;
            continue;
        }
        float w[OSSA_MAX_COMPONENTS];
        ossa__influences_normalize(scratch, keep, limit, w);
        for (uint32_t q = 0; q < keep; q++) {
            out->list[count].joint = scratch[q].joint;
            out->list[count++].weight = w[q];
        }
    }
    out->first[g->num_points] = count;
    return unweighted;
}

ossa_status ossa__fbx_skin_read(fbx_scene *sc, uint32_t geometry, uint32_t mesh_model,
                                uint32_t num_points, fbx_skin_data *out)
{
    fbx_doc *doc = sc->doc;
    memset(out, 0, sizeof *out);
    out->first_joint = -1;
    const fbx_object *geo = &sc->objs[geometry];
    gather g = {sc, num_points, out, NULL, 0, false};
    /* Clusters of every skin on this geometry: count their pairs first. */
    if (each_cluster(&g, geo)) return OSSA_FAILED;
    if (!out->skinned) return OSSA_OK;
    g.pairs = ossa__fbx_alloc(doc, g.n, sizeof *g.pairs);
    if (!g.pairs) return OSSA_FAILED;
    g.n = 0;
    if (each_cluster(&g, geo)) return OSSA_FAILED;
    if (!g.have_bind) memcpy(out->mesh_bind, sc->objs[mesh_model].rest_world, sizeof out->mesh_bind);
    qsort(g.pairs, g.n, sizeof *g.pairs, by_point_then_joint);
    size_t longest = 0;
    for (size_t k = 0, run = 0; k < g.n; k++) {
        run = k && g.pairs[k - 1].cp == g.pairs[k].cp ? run + 1 : 1;
        if (run > longest) longest = run;
    }
    uint32_t limit = ossa__influence_max(doc->options ? doc->options->max_influences : 0);
    out->first = ossa__fbx_alloc(doc, (size_t)num_points + 1, sizeof *out->first);
    out->list = ossa__fbx_alloc(doc, g.n + num_points, sizeof *out->list);
    ossa__influence *scratch = ossa__fbx_alloc(doc, longest + 1, sizeof *scratch);
    if (!out->first || !out->list || !scratch) return OSSA_FAILED;
    /* Unweighted points: the mesh model's nearest joint ancestor, else
     * the skin's first joint. */
    int32_t fallback = -1;
    for (int32_t p = (int32_t)mesh_model; p >= 0 && fallback < 0; p = sc->objs[p].parent)
        fallback = sc->objs[p].joint;
    if (fallback < 0) fallback = out->first_joint;
    uint32_t unweighted = limit_points(&g, scratch, limit, fallback);
    if (unweighted)
        ossa__fbx_warn(doc, geo->node,
                       "geometry of '%s': %u control points have no weights: bound to joint %d",
                       sc->objs[mesh_model].name, unweighted, fallback);
    return OSSA_OK;
}
