/* Degenerate-triangle removal (degenerate.h). Everything moves down in
 * place: a kept triangle, vertex or mesh never goes to a later place. */
#include "core/degenerate.h"

#include <stdio.h>

/* The vertex arrays as (bytes, bytes per vertex), worked out once per
 * model: every triangle asks about three pairs of vertices. */
typedef struct array_view {
    const unsigned char *data;
    size_t bytes;
} array_view;

enum { VIEWS = 32 };

static uint32_t views_of(const ossa_model *m, array_view *v)
{
    uint32_t n = m->num_vertex_arrays < VIEWS ? m->num_vertex_arrays : VIEWS;
    for (uint32_t i = 0; i < n; i++) {
        const ossa_vertex_array *va = &m->vertex_arrays[i];
        v[i].data = va->data;
        v[i].bytes = (size_t)va->size * ossa_component_size(va->format);
    }
    return n;
}

static bool same_vertex(const ossa_model *m, const array_view *v, uint32_t n, uint32_t a, uint32_t b)
{
    if (a == b) return true;
    if (!m->num_vertex_arrays) return false; /* nothing to compare: only indices tell */
    /* The first array (positions, nearly always) usually answers: a byte
     * loop costs less than calls. */
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *x = v[i].data + a * v[i].bytes, *y = v[i].data + b * v[i].bytes;
        for (size_t k = 0; k < v[i].bytes; k++)
            if (x[k] != y[k]) return false;
    }
    /* More arrays than views (a model of many custom arrays): the rest one
     * by one. */
    for (uint32_t i = n; i < m->num_vertex_arrays; i++) {
        const ossa_vertex_array *va = &m->vertex_arrays[i];
        size_t bytes = (size_t)va->size * ossa_component_size(va->format);
        const unsigned char *d = va->data;
        if (memcmp(d + a * bytes, d + b * bytes, bytes) != 0) return false;
    }
    return true;
}

static bool repeats(const ossa_model *m, const array_view *v, uint32_t n, uint32_t t)
{
    const uint32_t *c = m->triangles[t].v;
    if (c[0] >= m->num_vertices || c[1] >= m->num_vertices || c[2] >= m->num_vertices) return false;
    return same_vertex(m, v, n, c[0], c[1]) || same_vertex(m, v, n, c[1], c[2]) ||
           same_vertex(m, v, n, c[0], c[2]);
}

bool ossa__triangle_repeats_vertex(const ossa_model *m, uint32_t t)
{
    array_view v[VIEWS];
    return repeats(m, v, views_of(m, v), t);
}

/* What the removal works with: per triangle 1 = kept; per vertex its new
 * number, or UINT32_MAX when it goes (NULL: every vertex stays, as in a
 * model without vertex arrays, whose vertex count stands for no data and
 * may be large). */
typedef struct removal {
    ossa_model *m;
    uint8_t *keep;
    uint32_t *tri_map; /* per triangle: its new number (kept ones) */
    uint32_t *vmap;
    uint32_t dropped, first, first_mesh;
} removal;

/* Vertices that only dropped triangles used go; unused ones stay (an
 * IQM file may keep vertices no triangle names). */
static void map_vertices(removal *r, uint8_t *use)
{
    ossa_model *m = r->m;
    for (uint32_t t = 0; t < m->num_triangles; t++)
        for (int k = 0; k < 3; k++) use[m->triangles[t].v[k]] |= r->keep[t] ? 2 : 1;
    uint32_t next = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) r->vmap[v] = use[v] == 1 ? UINT32_MAX : next++;
}

static void move_vertices(removal *r)
{
    ossa_model *m = r->m;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        ossa_vertex_array *va = &m->vertex_arrays[i];
        size_t bytes = (size_t)va->size * ossa_component_size(va->format);
        unsigned char *d = va->data;
        for (uint32_t v = 0; v < m->num_vertices; v++)
            if (r->vmap[v] != UINT32_MAX && r->vmap[v] != v) memmove(d + r->vmap[v] * bytes, d + v * bytes, bytes);
    }
    for (uint32_t v = 0; v < m->num_vertices; v++) kept += r->vmap[v] != UINT32_MAX;
    m->num_vertices = kept;
}

static void move_triangles(removal *r)
{
    ossa_model *m = r->m;
    uint32_t n = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        r->tri_map[t] = n;
        if (!r->keep[t]) continue;
        for (int k = 0; k < 3; k++)
            if (r->vmap) m->triangles[n].v[k] = r->vmap[m->triangles[t].v[k]];
        if (m->adjacency)
            for (int k = 0; k < 3; k++) m->adjacency[(size_t)n * 3 + k] = m->adjacency[(size_t)t * 3 + k];
        n++;
    }
    if (m->adjacency) /* neighbours by their new numbers; dropped ones are none */
        for (size_t i = 0; i < (size_t)n * 3; i++) {
            uint32_t o = m->adjacency[i];
            m->adjacency[i] = o < m->num_triangles && r->keep[o] ? r->tri_map[o] : OSSA_NO_NEIGHBOR;
        }
    m->num_triangles = n;
}

/* Mesh ranges in the new numbers (through the maps of the old ones), and
 * meshes left without triangles gone. */
static void move_meshes(removal *r, uint32_t old_triangles, uint32_t old_vertices)
{
    ossa_model *m = r->m;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        ossa_mesh me = m->meshes[i];
        uint32_t tris = 0, verts = 0, first_tri = me.first_triangle, first_vertex = me.first_vertex;
        for (uint32_t t = me.first_triangle; t < me.first_triangle + me.num_triangles && t < old_triangles; t++)
            tris += r->keep[t];
        for (uint32_t v = me.first_vertex; r->vmap && v < me.first_vertex + me.num_vertices && v < old_vertices; v++)
            verts += r->vmap[v] != UINT32_MAX;
        if (me.num_triangles && !tris) continue;
        me.first_triangle = first_tri < old_triangles ? r->tri_map[first_tri] : m->num_triangles;
        me.num_triangles = tris;
        if (!r->vmap) {
            m->meshes[n++] = me;
            continue;
        }
        uint32_t fv = first_vertex;
        while (fv < old_vertices && r->vmap[fv] == UINT32_MAX) fv++;
        me.first_vertex = fv < old_vertices ? r->vmap[fv] : m->num_vertices;
        me.num_vertices = verts;
        m->meshes[n++] = me;
    }
    m->num_meshes = n;
}

static void warn(removal *r)
{
    const ossa_model *m = r->m;
    const char *mesh = NULL;
    for (uint32_t i = 0; i < m->num_meshes && !mesh; i++)
        if (r->first >= m->meshes[i].first_triangle &&
            r->first - m->meshes[i].first_triangle < m->meshes[i].num_triangles)
            mesh = m->meshes[i].name;
    char where[300] = "";
    if (mesh) snprintf(where, sizeof where, " of mesh '%.256s'", mesh);
    ossa__warn(r->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0,
               "%u degenerate triangle%s (a vertex repeated) dropped (the first: triangle %u%s)",
               r->dropped, r->dropped == 1 ? "" : "s", r->first, where);
}

ossa_status ossa__drop_degenerate(ossa_model *m, ossa_error *error)
{
    removal r;
    memset(&r, 0, sizeof r);
    r.m = m;
    array_view v[VIEWS];
    uint32_t nv = views_of(m, v);
    for (uint32_t t = 0; t < m->num_triangles; t++)
        if (repeats(m, v, nv, t) && !r.dropped++) r.first = t;
    if (!r.dropped) return OSSA_OK;
    r.keep = ossa__temp_calloc(m, (size_t)m->num_triangles + 1, 1);
    r.tri_map = ossa__temp_calloc(m, (size_t)m->num_triangles + 1, sizeof *r.tri_map);
    /* Vertex maps only where vertices hold data: the arrays bound their
     * count by the file (each takes a byte or more per vertex). */
    bool vertices = m->num_vertex_arrays > 0;
    r.vmap = vertices ? ossa__temp_calloc(m, (size_t)m->num_vertices + 1, sizeof *r.vmap) : NULL;
    uint8_t *use = vertices ? ossa__temp_calloc(m, (size_t)m->num_vertices + 1, 1) : NULL;
    if (!r.keep || !r.tri_map || (vertices && (!r.vmap || !use))) {
        ossa__temp_free(m, r.keep);
        ossa__temp_free(m, r.tri_map);
        ossa__temp_free(m, r.vmap);
        ossa__temp_free(m, use);
        return ossa__fail_nomem(error);
    }
    for (uint32_t t = 0; t < m->num_triangles; t++) r.keep[t] = !repeats(m, v, nv, t);
    warn(&r);
    uint32_t old_triangles = m->num_triangles, old_vertices = m->num_vertices;
    if (vertices) map_vertices(&r, use);
    move_triangles(&r);
    if (vertices) move_vertices(&r);
    move_meshes(&r, old_triangles, old_vertices);
    ossa__temp_free(m, r.keep);
    ossa__temp_free(m, r.tri_map);
    ossa__temp_free(m, r.vmap);
    ossa__temp_free(m, use);
    return OSSA_OK;
}
