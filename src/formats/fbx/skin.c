/* Skin deformers (fbx.md §7.3, §10.3): every cluster's (index, weight)
 * pairs summed per control point, the largest `max_influences` kept and
 * renormalized; the mesh's bind-time global matrix from the first cluster
 * with matrices (TransformLink · Transform), checked against the others. */
#include "formats/fbx/fbx.h"

#include <stdio.h>
#include <stdlib.h>

#include <math.h>

typedef struct pair {
    uint32_t cp, joint;
    double w;
} pair;

static int by_point_then_weight(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->cp != y->cp) return x->cp < y->cp ? -1 : 1;
    if (x->w != y->w) return x->w > y->w ? -1 : 1;
    return x->joint < y->joint ? -1 : x->joint > y->joint;
}

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

ossa_status ossa__fbx_skin_read(fbx_scene *sc, uint32_t geometry, uint32_t mesh_model,
                                uint32_t num_points, fbx_skin_data *out)
{
    fbx_doc *doc = sc->doc;
    memset(out, 0, sizeof *out);
    out->first_joint = -1;
    const fbx_object *g = &sc->objs[geometry];
    /* Clusters of every skin on this geometry: count their pairs first. */
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        pair *pairs = NULL;
        if (pass == 1) {
            if (!out->skinned) return OSSA_OK;
            pairs = ossa__fbx_alloc(doc, total, sizeof *pairs);
            if (!pairs) return OSSA_FAILED;
        }
        size_t n = 0;
        bool have_bind = false;
        for (uint32_t a = 0; a < g->num_in; a++) {
            const fbx_object *skin = &sc->objs[sc->conns[g->in[a]].child];
            if (skin->kind != FBX_SKIN) continue;
            for (uint32_t b = 0; b < skin->num_in; b++) {
                const fbx_object *cl = &sc->objs[sc->conns[skin->in[b]].child];
                if (cl->kind != FBX_CLUSTER) continue;
                int32_t joint = -1;
                for (uint32_t c = 0; c < cl->num_in && joint < 0; c++) {
                    const fbx_object *m = &sc->objs[sc->conns[cl->in[c]].child];
                    if (m->kind == FBX_MODEL) joint = m->joint;
                }
                if (joint < 0) continue; /* a cluster without a joint moves nothing */
                out->skinned = true;
                if (out->first_joint < 0) out->first_joint = joint;
                bool failed = false;
                const fbx_value *idx = ossa__fbx_child_array(doc, cl->node, "Indexes", &failed);
                const fbx_value *w = ossa__fbx_child_array(doc, cl->node, "Weights", &failed);
                if (failed) return OSSA_FAILED;
                uint32_t ni = idx ? idx->count : 0, nw = w ? w->count : 0;
                if (ni != nw)
                    return ossa__fbx_fail(doc, cl->node, idx ? idx : w, OSSA_ERROR_CORRUPT,
                                          "cluster '%s': %u indexes but %u weights", cl->name, ni,
                                          nw);
                if (pass == 0) {
                    total += ni;
                    continue;
                }
                double link[16], xf[16];
                bool fl, ft;
                if (cluster_matrix(doc, cl->node, "TransformLink", link, &fl) ||
                    cluster_matrix(doc, cl->node, "Transform", xf, &ft))
                    return OSSA_FAILED;
                if (fl && ft) {
                    double mb[16];
                    ossa__mat4d_mul(link, xf, mb);
                    if (!have_bind) {
                        memcpy(out->mesh_bind, mb, sizeof mb);
                        have_bind = true;
                    } else if (!close_matrices(mb, out->mesh_bind)) {
                        ossa__fbx_warn(doc, cl->node,
                                       "cluster '%s' places the mesh differently at bind time "
                                       "than the first cluster, which is used",
                                       cl->name);
                    }
                }
                for (uint32_t k = 0; k < ni; k++) {
                    int64_t cp = ossa__fbx_array_int(idx, k);
                    double wk = ossa__fbx_array_double(w, k);
                    if (cp < 0 || cp >= num_points)
                        return ossa__fbx_fail(doc, ossa__fbx_child(cl->node, "Indexes"), idx,
                                              OSSA_ERROR_CORRUPT,
                                              "cluster '%s': index %lld (element %u) outside "
                                              "the %u control points",
                                              cl->name, (long long)cp, k, num_points);
                    if (!(wk > 0) || !isfinite(wk)) continue;
                    pairs[n].cp = (uint32_t)cp;
                    pairs[n].joint = (uint32_t)joint;
                    pairs[n].w = wk;
                    n++;
                }
            }
        }
        if (pass == 0) continue;
        if (!have_bind) memcpy(out->mesh_bind, sc->objs[mesh_model].rest_world, sizeof out->mesh_bind);
        qsort(pairs, n, sizeof *pairs, by_point_then_joint);
        /* Merge repeated (point, joint) pairs: several clusters of one joint. */
        size_t m = 0;
        for (size_t k = 0; k < n; k++) {
            if (m && pairs[m - 1].cp == pairs[k].cp && pairs[m - 1].joint == pairs[k].joint)
                pairs[m - 1].w += pairs[k].w;
            else
                pairs[m++] = pairs[k];
        }
        qsort(pairs, m, sizeof *pairs, by_point_then_weight);
        uint32_t limit = doc->options && doc->options->max_influences
                             ? doc->options->max_influences
                             : 4;
        if (limit > OSSA_MAX_COMPONENTS) limit = OSSA_MAX_COMPONENTS;
        out->first = ossa__fbx_alloc(doc, (size_t)num_points + 1, sizeof *out->first);
        out->list = ossa__fbx_alloc(doc, m + num_points, sizeof *out->list);
        if (!out->first || !out->list) return OSSA_FAILED;
        /* Unweighted points: the mesh model's nearest joint ancestor, else
         * the skin's first joint. */
        int32_t fallback = -1;
        for (int32_t p = (int32_t)mesh_model; p >= 0 && fallback < 0; p = sc->objs[p].parent)
            fallback = sc->objs[p].joint;
        if (fallback < 0) fallback = out->first_joint;
        uint32_t count = 0, unweighted = 0;
        size_t k = 0;
        for (uint32_t cp = 0; cp < num_points; cp++) {
            out->first[cp] = count;
            size_t start = k;
            while (k < m && pairs[k].cp == cp) k++;
            size_t keep = k - start < limit ? k - start : limit;
            double sum = 0;
            for (size_t q = 0; q < keep; q++) sum += pairs[start + q].w;
            if (!keep || !(sum > 0)) {
                unweighted++;
                out->list[count].joint = (uint32_t)fallback;
                out->list[count++].weight = 1;
                continue;
            }
            for (size_t q = 0; q < keep; q++) {
                out->list[count].joint = pairs[start + q].joint;
                out->list[count++].weight = (float)(pairs[start + q].w / sum);
            }
        }
        out->first[num_points] = count;
        if (unweighted)
            ossa__fbx_warn(doc, g->node,
                           "geometry of '%s': %u control points have no weights: bound to "
                           "joint %d",
                           sc->objs[mesh_model].name, unweighted, fallback);
    }
    return OSSA_OK;
}
