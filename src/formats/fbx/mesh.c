/* Geometry into the model (fbx.md §7.2, §10.3): control points and
 * polygons, layer elements resolved per corner for every mapping and
 * reference mode, one mesh per (mesh model, material), corners welded into
 * vertices when every attribute is bitwise equal (core/weld.h), polygons triangulated
 * (fan when convex, ear clipping otherwise), placed in bind space with the
 * geometric transform baked in and converted by K. */
#include "formats/fbx/fbx.h"

#include "core/influences.h"
#include "core/weld.h"

#include <stdio.h>
#include <stdlib.h>

#include <math.h>

enum { MAP_CORNER, MAP_POINT, MAP_POLYGON, MAP_EDGE, MAP_ALL };
enum { MAX_UV = 8, EAR_CLIP_LIMIT = 256 };

typedef struct elem {
    const fbx_node *node;
    const fbx_value *data, *index;
    uint32_t comps;
    int mapping;
} elem;

typedef struct layout {
    bool normal, tangent, color, blend;
    uint32_t num_uv;
    const char *uv_name[MAX_UV];
    uint32_t influences;
    /* float offsets in a vertex record */
    uint32_t o_nrm, o_tan, o_uv, o_col, o_idx, o_wgt, width;
} layout;

typedef struct out_mesh {
    const char *name, *material;
    uint32_t first_vertex, num_vertices, first_triangle, num_triangles;
} out_mesh;

typedef struct builder {
    fbx_scene *sc;
    fbx_doc *doc;
    layout L;
    ossa__welder welder; /* vertex records (L.width floats), welded per mesh */
    uint32_t *tri; /* 3 per triangle, model-global */
    size_t num_tri, cap_tri;
    out_mesh *meshes;
    size_t num_meshes, cap_meshes;
    uint32_t dropped_polygons, fanned_polygons;
} builder;

/* -- Layer elements -- */

static int mapping_of(const fbx_value *v)
{
    if (!v) return MAP_ALL;
    if (ossa__fbx_str_is(v, "ByPolygonVertex")) return MAP_CORNER;
    if (ossa__fbx_str_is(v, "ByVertice") || ossa__fbx_str_is(v, "ByVertex") ||
        ossa__fbx_str_is(v, "ByControlPoint"))
        return MAP_POINT;
    if (ossa__fbx_str_is(v, "ByPolygon")) return MAP_POLYGON;
    if (ossa__fbx_str_is(v, "ByEdge")) return MAP_EDGE;
    if (ossa__fbx_str_is(v, "AllSame")) return MAP_ALL;
    return -1;
}

typedef struct counts {
    uint32_t corners, points, polygons, edges;
} counts;

static uint32_t items_of(int mapping, const counts *c)
{
    switch (mapping) {
    case MAP_CORNER: return c->corners;
    case MAP_POINT: return c->points;
    case MAP_POLYGON: return c->polygons;
    case MAP_EDGE: return c->edges;
    default: return 1;
    }
}

/* Reads the element record `e_node` with data `data_name` (comps each) and
 * optional index `index_name`, checked against the mapping's item count.
 * An element without data leaves out->data NULL. */
static ossa_status read_elem(builder *b, const fbx_node *e_node, const char *data_name,
                             const char *index_name, uint32_t comps, const counts *c, elem *out)
{
    fbx_doc *doc = b->doc;
    memset(out, 0, sizeof *out);
    bool failed = false;
    const fbx_value *data = ossa__fbx_child_array(doc, e_node, data_name, &failed);
    const fbx_value *index = index_name ? ossa__fbx_child_array(doc, e_node, index_name, &failed) : NULL;
    if (failed) return OSSA_FAILED;
    if (!data || data->count == 0) return OSSA_OK;
    const fbx_value *mv = ossa__fbx_child_string(e_node, "MappingInformationType");
    int mapping = mapping_of(mv);
    if (mapping < 0)
        return ossa__fbx_fail(doc, ossa__fbx_child(e_node, "MappingInformationType"), mv,
                              OSSA_ERROR_UNSUPPORTED, "%.*s: MappingInformationType '%.*s'",
                              (int)e_node->name_len, e_node->name, (int)mv->count, mv->v.s);
    if (data->count % comps)
        return ossa__fbx_fail(doc, ossa__fbx_child(e_node, data_name), data, OSSA_ERROR_CORRUPT,
                              "%s: %u values are not a multiple of %u", data_name, data->count,
                              comps);
    for (uint32_t k = 0; k < data->count; k++)
        if (!isfinite(ossa__fbx_array_double(data, k)))
            return ossa__fbx_fail(doc, ossa__fbx_child(e_node, data_name), data,
                                  OSSA_ERROR_CORRUPT, "%s: element %u is not finite", data_name, k);
    uint32_t items = items_of(mapping, c), entries = data->count / comps;
    if (index && index->count) {
        if (index->count < items)
            return ossa__fbx_fail(doc, ossa__fbx_child(e_node, index_name), index,
                                  OSSA_ERROR_CORRUPT, "%s: %u entries, the mapping needs %u",
                                  index_name, index->count, items);
        for (uint32_t k = 0; k < items; k++) {
            int64_t i = ossa__fbx_array_int(index, k);
            if (i < -1 || i >= entries)
                return ossa__fbx_fail(doc, ossa__fbx_child(e_node, index_name), index,
                                      OSSA_ERROR_CORRUPT,
                                      "%s: entry %u is %lld, outside -1..%u", index_name, k,
                                      (long long)i, entries - 1);
        }
        out->index = index;
    } else if (entries < items) {
        return ossa__fbx_fail(doc, ossa__fbx_child(e_node, data_name), data, OSSA_ERROR_CORRUPT,
                              "%s: %u entries, the mapping needs %u", data_name, entries, items);
    }
    out->node = e_node;
    out->data = data;
    out->comps = comps;
    out->mapping = mapping;
    return OSSA_OK;
}

static void elem_get(const elem *e, uint32_t corner, uint32_t cp, uint32_t poly,
                     const int32_t *edge_of, double *out)
{
    int64_t item;
    switch (e->mapping) {
    case MAP_CORNER: item = corner; break;
    case MAP_POINT: item = cp; break;
    case MAP_POLYGON: item = poly; break;
    case MAP_EDGE: item = edge_of ? edge_of[corner] : -1; break;
    default: item = 0; break;
    }
    if (item >= 0 && e->index) item = ossa__fbx_array_int(e->index, (uint32_t)item);
    for (uint32_t k = 0; k < e->comps; k++)
        out[k] = item < 0 ? 0 : ossa__fbx_array_double(e->data, (uint32_t)item * e->comps + k);
}

/* The element record `name` whose set index (first value) is `set`. */
static const fbx_node *find_elem(const fbx_node *geom, const char *name, int64_t set)
{
    for (const fbx_node *e = ossa__fbx_child(geom, name); e; e = ossa__fbx_next_named(e->next, name)) {
        int64_t s = e->num_values >= 1 && ossa__fbx_is_int(&e->values[0]) ? e->values[0].v.i : 0;
        if (s == set) return e;
    }
    return NULL;
}

/* -- Which models draw which geometry -- */

static uint32_t geometry_of(const fbx_scene *sc, const fbx_object *m)
{
    for (uint32_t k = 0; k < m->num_in; k++) {
        const fbx_conn *c = &sc->conns[m->in[k]];
        if (!c->prop && sc->objs[c->child].kind == FBX_GEOMETRY) return c->child;
    }
    return UINT32_MAX;
}

static const char *material_name(const fbx_scene *sc, const fbx_object *m, int64_t index)
{
    int64_t i = 0;
    for (uint32_t k = 0; k < m->num_in; k++) {
        const fbx_conn *c = &sc->conns[m->in[k]];
        if (c->prop || sc->objs[c->child].kind != FBX_MATERIAL) continue;
        if (i++ == index) return sc->objs[c->child].name;
    }
    return "";
}

/* -- Layout over every mesh -- */

static void scan_layout(builder *b)
{
    fbx_scene *sc = b->sc;
    layout *L = &b->L;
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        const fbx_object *m = &sc->objs[i];
        if (m->kind != FBX_MODEL) continue;
        uint32_t g = geometry_of(sc, m);
        if (g == UINT32_MAX) continue;
        const fbx_node *gn = sc->objs[g].node;
        const fbx_node *e;
        if ((e = find_elem(gn, "LayerElementNormal", 0)) && ossa__fbx_child(e, "Normals"))
            L->normal = true;
        if ((e = find_elem(gn, "LayerElementTangent", 0)) && ossa__fbx_child(e, "Tangents") &&
            (e = find_elem(gn, "LayerElementBinormal", 0)) && ossa__fbx_child(e, "Binormals"))
            L->tangent = true;
        if ((e = find_elem(gn, "LayerElementColor", 0)) && ossa__fbx_child(e, "Colors"))
            L->color = true;
        uint32_t uv = 0;
        for (e = ossa__fbx_child(gn, "LayerElementUV"); e && uv < MAX_UV;
             e = ossa__fbx_next_named(e->next, "LayerElementUV")) {
            const fbx_node *d = ossa__fbx_child(e, "UV");
            if (!d || !d->num_values || !ossa__fbx_is_array(&d->values[0]) || !d->values[0].count)
                continue;
            if (uv >= L->num_uv) {
                const fbx_value *nm = ossa__fbx_child_string(e, "Name");
                char *s = nm && nm->count ? ossa__arena_strndup(&b->doc->scratch, nm->v.s, nm->count)
                                          : NULL;
                L->uv_name[uv] = s;
                L->num_uv = uv + 1;
            }
            uv++;
        }
    }
    L->blend = sc->num_joints > 0;
    L->influences = ossa__influence_max(b->doc->options ? b->doc->options->max_influences : 0);
    uint32_t w = 3;
    L->o_nrm = w;
    w += L->normal ? 3 : 0;
    L->o_tan = w;
    w += L->tangent ? 4 : 0;
    L->o_uv = w;
    w += 2 * L->num_uv;
    L->o_col = w;
    w += L->color ? 4 : 0;
    L->o_idx = w;
    w += L->blend ? L->influences : 0;
    L->o_wgt = w;
    w += L->blend ? L->influences : 0;
    L->width = w;
}

/* -- Triangles -- */

static ossa_status push_triangle(builder *b, const uint32_t v[3])
{
    if (b->num_tri == b->cap_tri) {
        uint32_t *n = ossa__arena_grow(&b->doc->scratch, b->tri, b->num_tri, &b->cap_tri,
                                       3 * sizeof *n);
        if (!n) return ossa__fail_nomem(b->doc->error);
        b->tri = n;
    }
    memcpy(b->tri + b->num_tri * 3, v, 3 * sizeof *v);
    b->num_tri++;
    return OSSA_OK;
}

/* -- Triangulation -- */

/* Corner triples (offsets within the polygon, counter-clockwise as in
 * the file) of polygon `pts` (n points, xyz). Returns the count. */
static uint32_t triangulate(const double *pts, uint32_t n, uint32_t *tris, uint32_t *work,
                            bool *fanned)
{
    uint32_t t = 0;
    /* Newell normal: the plane to work in and the polygon's orientation. */
    double nn[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        const double *a = pts + 3 * i, *c = pts + 3 * ((i + 1) % n);
        nn[0] += (a[1] - c[1]) * (a[2] + c[2]);
        nn[1] += (a[2] - c[2]) * (a[0] + c[0]);
        nn[2] += (a[0] - c[0]) * (a[1] + c[1]);
    }
    int ax = fabs(nn[0]) > fabs(nn[1]) ? (fabs(nn[0]) > fabs(nn[2]) ? 0 : 2)
                                       : (fabs(nn[1]) > fabs(nn[2]) ? 1 : 2);
    int u = (ax + 1) % 3, v = (ax + 2) % 3;
    double sign = nn[ax] < 0 ? -1 : 1;
#define CROSS(i, j, k)                                                                             \
    (((pts[3 * (j) + u] - pts[3 * (i) + u]) * (pts[3 * (k) + v] - pts[3 * (i) + v]) -              \
      (pts[3 * (j) + v] - pts[3 * (i) + v]) * (pts[3 * (k) + u] - pts[3 * (i) + u])) *             \
     sign)
    bool convex = true;
    for (uint32_t i = 0; i < n && convex; i++)
        if (CROSS(i, (i + 1) % n, (i + 2) % n) < 0) convex = false;
    if (convex || n > EAR_CLIP_LIMIT || nn[ax] == 0) {
        if (!convex) *fanned = true;
        for (uint32_t i = 1; i + 1 < n; i++) {
            tris[t++] = 0;
            tris[t++] = i;
            tris[t++] = i + 1;
        }
        return t / 3;
    }
    /* Ear clipping in the plane. */
    uint32_t m = n;
    for (uint32_t i = 0; i < n; i++) work[i] = i;
    uint32_t guard = 0;
    while (m > 3 && guard < 2 * m + 8) {
        bool clipped = false;
        for (uint32_t k = 0; k < m; k++) {
            uint32_t a = work[(k + m - 1) % m], bb = work[k], c = work[(k + 1) % m];
            if (CROSS(a, bb, c) <= 0) continue;
            bool inside = false;
            for (uint32_t q = 0; q < m && !inside; q++) {
                uint32_t p = work[q];
                if (p == a || p == bb || p == c) continue;
                if (CROSS(a, bb, p) >= 0 && CROSS(bb, c, p) >= 0 && CROSS(c, a, p) >= 0) inside = true;
            }
            if (inside) continue;
            tris[t++] = a;
            tris[t++] = bb;
            tris[t++] = c;
            for (uint32_t q = k; q + 1 < m; q++) work[q] = work[q + 1];
            m--;
            clipped = true;
            break;
        }
        if (!clipped) {
            /* Degenerate remainder: fan what is left. */
            *fanned = true;
            break;
        }
        guard++;
    }
    for (uint32_t i = 1; i + 1 < m; i++) {
        tris[t++] = work[0];
        tris[t++] = work[i];
        tris[t++] = work[i + 1];
    }
#undef CROSS
    return t / 3;
}

/* -- One mesh model -- */

static void transform_point(const double m[16], const double p[3], double out[3])
{
    for (int r = 0; r < 3; r++) out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

static void transform_dir(const double m[9], const double d[3], double out[3])
{
    for (int r = 0; r < 3; r++) out[r] = m[r] * d[0] + m[3 + r] * d[1] + m[6 + r] * d[2];
    double len = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (len > 0 && isfinite(len))
        for (int r = 0; r < 3; r++) out[r] /= len;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* What one mesh model's geometry holds while it is built. */
typedef struct geometry {
    const fbx_object *m;
    const fbx_node *gn;
    counts c;
    double *pts;          /* control points, xyz */
    uint32_t *cps;        /* control point of each corner */
    uint32_t *poly_first; /* first corner of each polygon, and the end */
    int32_t *edge_of;     /* edge of each corner, for ByEdge elements */
    elem nrm, tan, bin, col, mat, uv[MAX_UV];
    uint32_t nuv;
    fbx_skin_data skin;
    int32_t rigid; /* the joint an unskinned mesh moves with, or -1 */
    double place[16], lin[9], it[9];
    bool flip;
    int64_t *mats;  /* material index of each polygon */
    int64_t *order; /* the same, sorted */
    double *ppts;   /* one polygon's points */
    uint32_t *ptri, *work;
    float *r; /* one vertex record */
} geometry;

/* Control points and polygons (PolygonVertexIndex, a negative index
 * closing each polygon). False with nothing to draw. */
static ossa_status read_polygons(builder *b, geometry *g, bool *any)
{
    fbx_doc *doc = b->doc;
    const fbx_node *gn = g->gn;
    bool failed = false;
    const fbx_value *verts = ossa__fbx_child_array(doc, gn, "Vertices", &failed);
    const fbx_value *pvi = ossa__fbx_child_array(doc, gn, "PolygonVertexIndex", &failed);
    *any = false;
    if (failed) return OSSA_FAILED;
    if (!verts || !pvi) return OSSA_OK; /* nothing to draw */
    if (verts->count % 3)
        return ossa__fbx_fail(doc, ossa__fbx_child(gn, "Vertices"), verts, OSSA_ERROR_CORRUPT,
                              "Vertices: %u values are not a multiple of 3", verts->count);
    g->c = (counts){pvi->count, verts->count / 3, 0, 0};
    counts *c = &g->c;
    g->pts = ossa__fbx_alloc(doc, (size_t)c->points * 3, sizeof *g->pts);
    g->cps = ossa__fbx_alloc(doc, c->corners, sizeof *g->cps);
    g->poly_first = ossa__fbx_alloc(doc, (size_t)c->corners + 2, sizeof *g->poly_first);
    if (!g->pts || !g->cps || !g->poly_first) return OSSA_FAILED;
    for (uint32_t i = 0; i < c->points * 3; i++) {
        g->pts[i] = ossa__fbx_array_double(verts, i);
        if (!isfinite(g->pts[i]))
            return ossa__fbx_fail(doc, ossa__fbx_child(gn, "Vertices"), verts, OSSA_ERROR_CORRUPT,
                                  "Vertices: element %u is not finite", i);
    }
    g->poly_first[0] = 0;
    for (uint32_t k = 0; k < c->corners; k++) {
        int64_t v = ossa__fbx_array_int(pvi, k);
        bool last = v < 0;
        if (last) v = ~v;
        if (v >= c->points)
            return ossa__fbx_fail(doc, ossa__fbx_child(gn, "PolygonVertexIndex"), pvi,
                                  OSSA_ERROR_CORRUPT,
                                  "PolygonVertexIndex: entry %u names control point %lld of %u", k,
                                  (long long)v, c->points);
        g->cps[k] = (uint32_t)v;
        if (last) g->poly_first[++c->polygons] = k + 1;
    }
    if (c->corners && g->poly_first[c->polygons] != c->corners) {
        ossa__fbx_warn(doc, gn, "PolygonVertexIndex: the last polygon is not closed: closed here");
        g->poly_first[++c->polygons] = c->corners;
    }
    *any = true;
    return OSSA_OK;
}

/* The layer elements of the geometry, and the corner -> edge map that
 * ByEdge elements need. */
static ossa_status read_elements(builder *b, geometry *g)
{
    fbx_doc *doc = b->doc;
    const fbx_node *gn = g->gn, *e;
    const counts *c = &g->c;
    bool failed = false;
    const fbx_value *edges = ossa__fbx_child_array(doc, gn, "Edges", &failed);
    if (failed) return OSSA_FAILED;
    g->c.edges = edges ? edges->count : 0;
    if (((e = find_elem(gn, "LayerElementNormal", 0)) &&
         read_elem(b, e, "Normals", "NormalsIndex", 3, c, &g->nrm)) ||
        ((e = find_elem(gn, "LayerElementTangent", 0)) &&
         read_elem(b, e, "Tangents", "TangentsIndex", 3, c, &g->tan)) ||
        ((e = find_elem(gn, "LayerElementBinormal", 0)) &&
         read_elem(b, e, "Binormals", "BinormalsIndex", 3, c, &g->bin)) ||
        ((e = find_elem(gn, "LayerElementColor", 0)) &&
         read_elem(b, e, "Colors", "ColorIndex", 4, c, &g->col)) ||
        ((e = find_elem(gn, "LayerElementMaterial", 0)) &&
         read_elem(b, e, "Materials", NULL, 1, c, &g->mat)))
        return OSSA_FAILED;
    for (e = ossa__fbx_child(gn, "LayerElementUV"); e && g->nuv < b->L.num_uv;
         e = ossa__fbx_next_named(e->next, "LayerElementUV")) {
        if (read_elem(b, e, "UV", "UVIndex", 2, c, &g->uv[g->nuv])) return OSSA_FAILED;
        if (g->uv[g->nuv].data) g->nuv++;
    }
    bool any_edge = g->nrm.mapping == MAP_EDGE || g->tan.mapping == MAP_EDGE || g->col.mapping == MAP_EDGE;
    for (uint32_t k = 0; k < g->nuv; k++) any_edge |= g->uv[k].mapping == MAP_EDGE;
    if (!any_edge) return OSSA_OK;
    g->edge_of = ossa__fbx_alloc(doc, c->corners, sizeof *g->edge_of);
    if (!g->edge_of) return OSSA_FAILED;
    memset(g->edge_of, 0xff, (size_t)c->corners * sizeof *g->edge_of);
    for (uint32_t k = 0; k < c->edges; k++) {
        int64_t at = ossa__fbx_array_int(edges, k);
        if (at >= 0 && at < c->corners && g->edge_of[at] < 0) g->edge_of[at] = (int32_t)k;
    }
    return OSSA_OK;
}

/* Placement (§10.3): the skin's bind-time matrix, or the joint an
 * unskinned mesh moves with, or its rest transform; then the geometric
 * transform and the axis and unit conversion K. Directions take the
 * inverse transpose, mirrored placements reverse the triangles. */
static ossa_status placement(builder *b, geometry *g, uint32_t mi, uint32_t gi)
{
    fbx_scene *sc = b->sc;
    const fbx_object *m = g->m;
    if (ossa__fbx_skin_read(sc, gi, mi, g->c.points, &g->skin)) return OSSA_FAILED;
    g->rigid = -1;
    for (int32_t p = (int32_t)mi; p >= 0 && g->rigid < 0; p = sc->objs[p].parent)
        g->rigid = sc->objs[p].joint;
    double tmp[16], tmp2[16];
    if (g->skin.skinned) {
        ossa__mat4d_mul(g->skin.mesh_bind, m->xf.g, tmp);
    } else if (g->rigid >= 0) {
        double inv[16];
        if (!ossa__mat4d_invert_affine(sc->objs[sc->joint_obj[g->rigid]].rest_world, inv))
            return ossa__fbx_fail(b->doc, m->node, NULL, OSSA_ERROR_CORRUPT,
                                  "model '%s': the rest transform of its joint is singular",
                                  m->name);
        ossa__mat4d_mul(sc->bind_world[g->rigid], inv, tmp2);
        ossa__mat4d_mul(tmp2, m->rest_world, tmp);
        ossa__mat4d_mul(tmp, m->xf.g, tmp2);
        memcpy(tmp, tmp2, sizeof tmp);
    } else {
        ossa__mat4d_mul(m->rest_world, m->xf.g, tmp);
    }
    ossa__mat4d_mul(sc->axes.k, tmp, g->place);
    double *lin = g->lin;
    for (int col3 = 0; col3 < 3; col3++)
        for (int r = 0; r < 3; r++) lin[col3 * 3 + r] = g->place[col3 * 4 + r];
    double det = lin[0] * (lin[4] * lin[8] - lin[5] * lin[7]) -
                 lin[3] * (lin[1] * lin[8] - lin[2] * lin[7]) +
                 lin[6] * (lin[1] * lin[5] - lin[2] * lin[4]);
    /* The inverse transpose is the cofactor matrix over det; its columns
     * are the cross products of the other two columns. Only directions
     * matter: scaled by the sign of det, not its size. */
    for (int k = 0; k < 3; k++) {
        const double *a = lin + 3 * ((k + 1) % 3), *c3 = lin + 3 * ((k + 2) % 3);
        g->it[3 * k] = a[1] * c3[2] - a[2] * c3[1];
        g->it[3 * k + 1] = a[2] * c3[0] - a[0] * c3[2];
        g->it[3 * k + 2] = a[0] * c3[1] - a[1] * c3[0];
    }
    if (det < 0)
        for (int i = 0; i < 9; i++) g->it[i] = -g->it[i];
    g->flip = det < 0;
    return OSSA_OK;
}

/* Materials: each polygon's index, and the indices sorted (meshes come
 * in ascending index); the scratch of the largest polygon. */
static ossa_status material_order(builder *b, geometry *g)
{
    fbx_doc *doc = b->doc;
    const counts *c = &g->c;
    g->mats = ossa__fbx_alloc(doc, (size_t)c->polygons + 1, sizeof *g->mats);
    g->order = ossa__fbx_alloc(doc, (size_t)c->polygons + 1, sizeof *g->order);
    if (!g->mats || !g->order) return OSSA_FAILED;
    const elem *mat = &g->mat;
    for (uint32_t p = 0; p < c->polygons; p++) {
        double v = 0;
        if (mat->data) {
            uint32_t item = mat->mapping == MAP_POLYGON ? p : mat->mapping == MAP_ALL ? 0
                            : mat->mapping == MAP_CORNER ? g->poly_first[p] : 0;
            if (mat->mapping == MAP_POINT) item = g->cps[g->poly_first[p]];
            if (mat->mapping == MAP_EDGE) item = 0;
            v = ossa__fbx_array_double(mat->data, item);
        }
        g->mats[p] = v >= 0 && v < 1e9 ? (int64_t)v : 0;
    }
    memcpy(g->order, g->mats, (size_t)c->polygons * sizeof *g->order);
    qsort(g->order, c->polygons, sizeof *g->order, cmp_i64);
    uint32_t max_n = 0;
    for (uint32_t p = 0; p < c->polygons; p++)
        if (g->poly_first[p + 1] - g->poly_first[p] > max_n) max_n = g->poly_first[p + 1] - g->poly_first[p];
    g->ppts = ossa__fbx_alloc(doc, (size_t)max_n * 3 + 3, sizeof *g->ppts);
    g->ptri = ossa__fbx_alloc(doc, (size_t)max_n * 3 + 3, sizeof *g->ptri);
    g->work = ossa__fbx_alloc(doc, (size_t)max_n + 1, sizeof *g->work);
    g->r = ossa__fbx_alloc(doc, b->L.width, sizeof *g->r);
    return g->ppts && g->ptri && g->work && g->r ? OSSA_OK : OSSA_FAILED;
}

/* The vertex record of polygon p's corner: position, normal, tangent,
 * texcoords (V flipped), colour, blend data. */
static void corner_record(const builder *b, const geometry *g, uint32_t corner, uint32_t p, float *r)
{
    const layout *L = &b->L;
    uint32_t cp = g->cps[corner];
    double d[4], d2[4], pos[3];
    memset(r, 0, L->width * sizeof *r);
    transform_point(g->place, g->pts + 3 * cp, pos);
    for (int q = 0; q < 3; q++) r[q] = (float)pos[q];
    double nv[3] = {0, 0, 0};
    if (L->normal && g->nrm.data) {
        elem_get(&g->nrm, corner, cp, p, g->edge_of, d);
        transform_dir(g->it, d, nv);
        for (int q = 0; q < 3; q++) r[L->o_nrm + q] = (float)nv[q];
    }
    if (L->tangent && g->tan.data && g->bin.data) {
        double tv[3], bv[3];
        elem_get(&g->tan, corner, cp, p, g->edge_of, d);
        elem_get(&g->bin, corner, cp, p, g->edge_of, d2);
        transform_dir(g->lin, d, tv);
        transform_dir(g->lin, d2, bv);
        double cx = nv[1] * tv[2] - nv[2] * tv[1], cy = nv[2] * tv[0] - nv[0] * tv[2],
               cz = nv[0] * tv[1] - nv[1] * tv[0];
        double w = cx * bv[0] + cy * bv[1] + cz * bv[2] < 0 ? -1 : 1;
        for (int q = 0; q < 3; q++) r[L->o_tan + q] = (float)tv[q];
        r[L->o_tan + 3] = (float)-w; /* the V flip reverses the bitangent */
    }
    for (uint32_t s = 0; s < g->nuv; s++) {
        elem_get(&g->uv[s], corner, cp, p, g->edge_of, d);
        r[L->o_uv + 2 * s] = (float)d[0];
        r[L->o_uv + 2 * s + 1] = (float)(1 - d[1]);
    }
    if (L->color && g->col.data) {
        elem_get(&g->col, corner, cp, p, g->edge_of, d);
        for (int q = 0; q < 4; q++) r[L->o_col + q] = (float)d[q];
    }
    if (!L->blend) return;
    if (g->skin.skinned) {
        uint32_t f = g->skin.first[cp], nf = g->skin.first[cp + 1] - f;
        for (uint32_t q = 0; q < nf && q < L->influences; q++) {
            r[L->o_idx + q] = (float)g->skin.list[f + q].joint;
            r[L->o_wgt + q] = g->skin.list[f + q].weight;
        }
    } else if (g->rigid >= 0) {
        r[L->o_idx] = (float)g->rigid;
        r[L->o_wgt] = 1;
    }
}

/* The polygons of material `mat_index` as one mesh: triangulated, their
 * corners welded into the mesh's vertices. */
static ossa_status build_material_mesh(builder *b, const geometry *g, int64_t mat_index)
{
    fbx_doc *doc = b->doc;
    ossa__weld_group(&b->welder);
    uint32_t first_vertex = b->welder.count;
    size_t first_tri = b->num_tri;
    for (uint32_t p = 0; p < g->c.polygons; p++) {
        if (g->mats[p] != mat_index) continue;
        uint32_t n = g->poly_first[p + 1] - g->poly_first[p], base = g->poly_first[p];
        if (n < 3) {
            b->dropped_polygons++;
            continue;
        }
        for (uint32_t k = 0; k < n; k++) memcpy(g->ppts + 3 * k, g->pts + 3 * g->cps[base + k], 3 * sizeof *g->pts);
        bool fanned = false;
        uint32_t nt = triangulate(g->ppts, n, g->ptri, g->work, &fanned);
        if (fanned) b->fanned_polygons++;
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t vi[3];
            for (int k = 0; k < 3; k++) {
                corner_record(b, g, base + g->ptri[3 * t + k], p, g->r);
                if (ossa__weld_add(&b->welder, g->r, &vi[k], doc->error)) return OSSA_FAILED;
            }
            /* FBX is counter-clockwise, ossa clockwise: (a, c, b);
             * a mirroring placement reverses once more. */
            uint32_t out3[3] = {vi[0], g->flip ? vi[1] : vi[2], g->flip ? vi[2] : vi[1]};
            if (push_triangle(b, out3)) return OSSA_FAILED;
        }
    }
    if (b->num_meshes == b->cap_meshes) {
        out_mesh *nm = ossa__arena_grow(&doc->scratch, b->meshes, b->num_meshes, &b->cap_meshes,
                                        sizeof *nm);
        if (!nm) return ossa__fail_nomem(doc->error);
        b->meshes = nm;
    }
    out_mesh *om = &b->meshes[b->num_meshes++];
    om->name = g->m->name;
    om->material = material_name(b->sc, g->m, mat_index);
    om->first_vertex = first_vertex;
    om->num_vertices = b->welder.count - first_vertex;
    om->first_triangle = (uint32_t)first_tri;
    om->num_triangles = (uint32_t)(b->num_tri - first_tri);
    return OSSA_OK;
}

static ossa_status build_model_mesh(builder *b, uint32_t mi, uint32_t gi)
{
    geometry g;
    memset(&g, 0, sizeof g);
    g.m = &b->sc->objs[mi];
    g.gn = b->sc->objs[gi].node;
    bool any;
    if (read_polygons(b, &g, &any)) return OSSA_FAILED;
    if (!any) return OSSA_OK;
    if (read_elements(b, &g) || placement(b, &g, mi, gi) || material_order(b, &g)) return OSSA_FAILED;
    for (uint32_t oi = 0; oi < g.c.polygons; oi++) {
        if (oi > 0 && g.order[oi] == g.order[oi - 1]) continue;
        if (build_material_mesh(b, &g, g.order[oi])) return OSSA_FAILED;
    }
    if (b->L.blend && !g.skin.skinned && g.rigid < 0)
        ossa__fbx_warn(b->doc, g.m->node,
                       "mesh '%s' is neither skinned nor below a joint: its vertices have no "
                       "blend weights",
                       g.m->name);
    return OSSA_OK;
}

static ossa_status add_array(builder *b, ossa_vertex_type type, ossa_component fmt, uint32_t off,
                             uint32_t size, const char *name)
{
    size_t n = b->welder.count;
    float *vals = ossa__fbx_alloc(b->doc, n * size, sizeof *vals);
    if (!vals) return OSSA_FAILED;
    for (size_t v = 0; v < n; v++)
        memcpy(vals + v * size, (const float *)ossa__weld_record(&b->welder, (uint32_t)v) + off,
               size * sizeof *vals);
    return ossa_model_add_vertex_array_floats(b->doc->model, type, fmt, size, name, vals,
                                              b->doc->error)
               ? OSSA_OK
               : OSSA_FAILED;
}

/* The welded vertices, triangles and meshes into the model. */
static ossa_status emit(builder *b)
{
    fbx_scene *sc = b->sc;
    ossa_model *model = b->doc->model;
    ossa_error *error = b->doc->error;
    const layout *L = &b->L;
    if (ossa_model_set_num_vertices(model, b->welder.count, error)) return OSSA_FAILED;
    if (add_array(b, OSSA_VERTEX_POSITION, OSSA_FLOAT, 0, 3, "")) return OSSA_FAILED;
    if (L->normal && add_array(b, OSSA_VERTEX_NORMAL, OSSA_FLOAT, L->o_nrm, 3, ""))
        return OSSA_FAILED;
    if (L->tangent && add_array(b, OSSA_VERTEX_TANGENT, OSSA_FLOAT, L->o_tan, 4, ""))
        return OSSA_FAILED;
    for (uint32_t s = 0; s < L->num_uv; s++) {
        char name[64];
        if (s == 0) {
            if (add_array(b, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, L->o_uv, 2, "")) return OSSA_FAILED;
            continue;
        }
        snprintf(name, sizeof name, "%.60s", L->uv_name[s] ? L->uv_name[s] : "");
        if (!name[0]) snprintf(name, sizeof name, "uv%u", s);
        if (add_array(b, OSSA_VERTEX_CUSTOM, OSSA_FLOAT, L->o_uv + 2 * s, 2, name))
            return OSSA_FAILED;
    }
    if (L->color && add_array(b, OSSA_VERTEX_COLOR, OSSA_FLOAT, L->o_col, 4, ""))
        return OSSA_FAILED;
    if (L->blend) {
        ossa_component f = sc->num_joints <= 256 ? OSSA_UBYTE : sc->num_joints <= 65536 ? OSSA_USHORT : OSSA_UINT;
        if (add_array(b, OSSA_VERTEX_BLENDINDEXES, f, L->o_idx, L->influences, "") ||
            add_array(b, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, L->o_wgt, L->influences, ""))
            return OSSA_FAILED;
    }
    if (b->num_tri > UINT32_MAX)
        return ossa__fbx_fail(b->doc, NULL, NULL, OSSA_ERROR_UNSUPPORTED, "more than 2^32 triangles");
    if (ossa_model_set_triangles(model, (uint32_t)b->num_tri, (const ossa_triangle *)b->tri, error))
        return OSSA_FAILED;
    for (size_t k = 0; k < b->num_meshes; k++) {
        const out_mesh *om = &b->meshes[k];
        if (ossa_model_add_mesh(model, om->name, om->material, om->first_vertex, om->num_vertices,
                                om->first_triangle, om->num_triangles, error) < 0)
            return OSSA_FAILED;
    }
    return OSSA_OK;
}

static ossa_status build_all(builder *b)
{
    fbx_scene *sc = b->sc;
    scan_layout(b);
    ossa__welder_init(&b->welder, b->doc->model, (size_t)b->L.width * sizeof(float));
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        if (sc->objs[i].kind != FBX_MODEL) continue;
        uint32_t g = geometry_of(sc, &sc->objs[i]);
        if (g != UINT32_MAX && build_model_mesh(b, i, g)) return OSSA_FAILED;
    }
    if (b->dropped_polygons)
        ossa__fbx_warn(b->doc, NULL, "%u polygons with fewer than 3 corners dropped",
                       b->dropped_polygons);
    if (b->fanned_polygons)
        ossa__fbx_warn(b->doc, NULL,
                       "%u non-convex polygons triangulated as fans (too large or degenerate "
                       "for ear clipping)",
                       b->fanned_polygons);
    return b->welder.count ? emit(b) : OSSA_OK;
}

ossa_status ossa__fbx_build_meshes(fbx_scene *sc)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.sc = sc;
    b.doc = sc->doc;
    ossa_status st = build_all(&b);
    ossa__welder_free(&b.welder);
    return st;
}
