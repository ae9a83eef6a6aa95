/* OBJ model building (docs/formats/obj.md §3-§8, §10): indices checked, faces
 * triangulated and reversed (OBJ counter-clockwise -> ossa clockwise),
 * meshes per (name, material) pair in order of first appearance, the axis
 * map and texture V flip, normals taken or generated (core/normals.h), and
 * vertices welded by their (v, vt, vn) triple and normal inside each mesh
 * (core/weld.h). */
#include "formats/obj/obj.h"

#include "core/axes.h"
#include "core/normals.h"
#include "core/weld.h"

#include <math.h>

typedef struct builder {
    obj_doc *d;
    ossa_model *m;
    const obj_corner *corners;
    const obj_face *faces;
    size_t num_tris;
    uint32_t *tri_corner; /* 3 corners per triangle, ossa's winding, grouped by mesh */
    uint32_t *tri_face;
    float *pos;     /* ossa-space positions per `v` */
    float *normals; /* per triangle corner */
} builder;

static void map_axes(const obj_doc *d, const float *in, float *out)
{
    if (d->blender_axes) {
        ossa__y_up_to_z_up(in, out); /* Blender's: +90 degrees about X, as glTF */
        return;
    }
    float x = in[0], y = in[1], z = in[2];
    out[0] = z; /* the IQM SDK: OBJ up (+Y) to +Z, front (+Z) to +X */
    out[1] = x;
    out[2] = y;
}

static ossa_status check_indices(builder *b)
{
    obj_doc *d = b->d;
    for (size_t i = 0; i < d->corners.count; i++) {
        const obj_corner *c = &b->corners[i];
        if (c->v >= d->vertices.count)
            return ossa__obj_fail_at(d, OSSA_ERROR_CORRUPT, c->at,
                                     "position index %llu is out of range (the file has %zu 'v' "
                                     "lines)",
                                     (unsigned long long)c->v + 1, d->vertices.count);
        if (c->vt != OBJ_NONE && c->vt >= d->texcoords.count)
            return ossa__obj_fail_at(d, OSSA_ERROR_CORRUPT, c->at,
                                     "texture coordinate index %llu is out of range (the file has "
                                     "%zu 'vt' lines)",
                                     (unsigned long long)c->vt + 1, d->texcoords.count);
        if (c->vn != OBJ_NONE && c->vn >= d->normals.count)
            return ossa__obj_fail_at(d, OSSA_ERROR_CORRUPT, c->at,
                                     "normal index %llu is out of range (the file has %zu 'vn' "
                                     "lines)",
                                     (unsigned long long)c->vn + 1, d->normals.count);
    }
    return OSSA_OK;
}

/* Every face to triangles (§4), reversed, grouped by mesh. Triangles
 * whose corners weld into one vertex go with every reader's degenerate
 * triangles, after the read. */
/* Two corners that name the same position, texture coordinate and
 * normal. */
static bool same_corner(const obj_corner *a, const obj_corner *b)
{
    return a->v == b->v && a->vt == b->vt && a->vn == b->vn;
}

static ossa_status triangulate(builder *b)
{
    obj_doc *d = b->d;
    ossa_model *m = b->m;
    size_t nf = d->faces.count, max_n = 0, total = 0;
    for (size_t f = 0; f < nf; f++) {
        total += b->faces[f].count - 2;
        if (b->faces[f].count > max_n) max_n = b->faces[f].count;
    }
    uint32_t nmesh = ossa__intern_count(&d->meshes);
    const float **pts = ossa__temp_alloc(m, (max_n + 1) * sizeof *pts);
    uint64_t *work = ossa__temp_alloc(m, (max_n + 1) * 24);
    uint32_t *local = ossa__temp_alloc(m, (max_n + 1) * 3 * sizeof *local);
    uint32_t *tc = ossa__temp_alloc(m, (total + 1) * 3 * sizeof *tc);
    uint32_t *tf = ossa__temp_alloc(m, (total + 1) * sizeof *tf);
    uint32_t *start = ossa__temp_calloc(m, (size_t)nmesh + 1, sizeof *start);
    b->tri_corner = ossa__temp_alloc(m, (total + 1) * 3 * sizeof *b->tri_corner);
    b->tri_face = ossa__temp_alloc(m, (total + 1) * sizeof *b->tri_face);
    ossa_status st = OSSA_OK;
    if (!pts || !work || !local || !tc || !tf || !start || !b->tri_corner || !b->tri_face) {
        st = ossa__fail_nomem(d->error);
        goto done;
    }
    /* Ear clipping costs up to the square of a polygon's size: the whole
     * file gets a budget in proportion to its corners. */
    uint64_t budget = 50000000u + (uint64_t)d->corners.count * 64;
    uint64_t fans = 0, first_fan = 0;
    size_t nt = 0, three_corners = 0;
    for (size_t f = 0; f < nf; f++) {
        const obj_face *face = &b->faces[f];
        const obj_corner *c = &b->corners[face->first];
        for (uint32_t i = 0; i < face->count; i++)
            pts[i] = ((const obj_vertex *)d->vertices.data)[c[i].v].p;
        if (!ossa__obj_triangulate(pts, face->count, local, work, &budget) && !fans++)
            first_fan = face->at;
        for (uint32_t t = 0; t + 2 < face->count; t++) {
            const uint32_t *l = local + t * 3;
            three_corners += !same_corner(&c[l[0]], &c[l[1]]) && !same_corner(&c[l[1]], &c[l[2]]) &&
                             !same_corner(&c[l[0]], &c[l[2]]);
            /* OBJ is counter-clockwise, ossa clockwise: (c2, c1, c0) */
            for (int k = 0; k < 3; k++) tc[nt * 3 + (size_t)k] = face->first + l[2 - k];
            tf[nt++] = (uint32_t)f;
            start[face->mesh + 1]++;
        }
    }
    if (fans)
        ossa__obj_warn_at(d, OSSA_WARNING_REPAIRED, first_fan,
                          "%llu polygons could not be ear-clipped (self-intersecting, or too "
                          "large): triangulated as fans",
                          (unsigned long long)fans);
    for (uint32_t i = 0; i < nmesh; i++) start[i + 1] += start[i];
    for (size_t t = 0; t < nt; t++) {
        size_t to = start[b->faces[tf[t]].mesh]++;
        memcpy(b->tri_corner + to * 3, tc + t * 3, 3 * sizeof *tc);
        b->tri_face[to] = tf[t];
    }
    b->num_tris = nt;
    /* A file whose every face names one corner (v/vt/vn) twice holds no
     * face at all, as a file without faces: refused. (Distinct corners
     * that turn out to be one vertex, equal in every attribute, go after
     * the read with every reader's degenerate triangles.) */
    if (!three_corners)
        st = ossa__obj_fail_at(d, OSSA_ERROR_FORMAT, b->faces[0].at, "no face has three different corners");
done:
    ossa__temp_free(m, pts);
    ossa__temp_free(m, work);
    ossa__temp_free(m, local);
    ossa__temp_free(m, tc);
    ossa__temp_free(m, tf);
    ossa__temp_free(m, start);
    return st;
}

/* Normals per corner: the file's (normalized) where a corner has a
 * usable one, the rest generated by the smoothing groups (§6). */
static ossa_status normals(builder *b)
{
    obj_doc *d = b->d;
    ossa_model *m = b->m;
    size_t nc = b->num_tris * 3;
    b->normals = ossa__temp_alloc(m, (nc + 1) * 3 * sizeof *b->normals);
    if (!b->normals) return ossa__fail_nomem(d->error);
    const float *vn = (const float *)d->normals.data;
    size_t missing = 0, zero = 0;
    uint64_t zero_at = 0;
    for (size_t i = 0; i < nc; i++) {
        const obj_corner *c = &b->corners[b->tri_corner[i]];
        float *out = b->normals + i * 3;
        out[0] = out[1] = out[2] = 0;
        if (c->vn == OBJ_NONE) {
            missing++;
            continue;
        }
        const float *n = vn + (size_t)c->vn * 3;
        double len = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
        if (!(len > 0) || !isfinite(len)) {
            if (!zero++) zero_at = c->at;
            continue;
        }
        float u[3] = {(float)(n[0] / len), (float)(n[1] / len), (float)(n[2] / len)};
        map_axes(d, u, out);
    }
    if (!missing && !zero) return OSSA_OK;

    int64_t *keys = ossa__temp_alloc(m, (b->num_tris + 1) * sizeof *keys);
    uint32_t *vidx = ossa__temp_alloc(m, (nc + 1) * sizeof *vidx);
    float *gen = ossa__temp_alloc(m, (nc + 1) * 3 * sizeof *gen);
    ossa_status st = OSSA_OK;
    if (!keys || !vidx || !gen) st = ossa__fail_nomem(d->error);
    for (size_t t = 0; !st && t < b->num_tris; t++) {
        int64_t s = b->faces[b->tri_face[t]].smooth;
        keys[t] = s == OBJ_SMOOTH_UNSET ? (d->any_smooth ? 0 : 1) : s;
        for (int k = 0; k < 3; k++)
            vidx[t * 3 + (size_t)k] = b->corners[b->tri_corner[t * 3 + (size_t)k]].v;
    }
    if (!st) st = ossa__smooth_normals(m, b->pos, 3, vidx, keys, b->num_tris, gen, d->error);
    for (size_t i = 0; !st && i < nc; i++) {
        float *out = b->normals + i * 3;
        if (out[0] == 0 && out[1] == 0 && out[2] == 0) memcpy(out, gen + i * 3, 3 * sizeof *out);
    }
    if (!st && missing && missing < nc)
        ossa__obj_warn_at(d, OSSA_WARNING_REPAIRED, b->faces[0].at,
                          "%zu of %zu face corners have no normal: theirs are generated", missing,
                          nc);
    if (!st && zero)
        ossa__obj_warn_at(d, OSSA_WARNING_REPAIRED, zero_at,
                          "%zu face corners use a 'vn' of zero length: their normals are generated",
                          zero);
    ossa__temp_free(m, keys);
    ossa__temp_free(m, vidx);
    ossa__temp_free(m, gen);
    return st;
}

/* What makes a vertex: the mesh, the corner's triple and its normal (two
 * corners with one triple get different generated normals in different
 * smoothing groups). */
typedef struct vertex_record {
    uint32_t mesh, v, vt, vn;
    float n[3];
} vertex_record;

static float canonical(float f) { return f == 0 ? 0.0f : f; }

static ossa_status vertices(builder *b)
{
    obj_doc *d = b->d;
    ossa_model *m = b->m;
    size_t nc = b->num_tris * 3;
    vertex_record *rec = ossa__temp_alloc(m, (nc + 1) * sizeof *rec);
    uint32_t *remap = ossa__temp_alloc(m, (nc + 1) * sizeof *remap);
    ossa_status st = OSSA_OK;
    float *pos = NULL, *nrm = NULL, *uv = NULL, *col = NULL;
    ossa_triangle *tris = NULL;
    if (!rec || !remap) {
        st = ossa__fail_nomem(d->error);
        goto done;
    }
    bool any_vt = false, any_color = false;
    for (size_t i = 0; i < nc; i++) {
        const obj_corner *c = &b->corners[b->tri_corner[i]];
        vertex_record *r = &rec[i];
        memset(r, 0, sizeof *r);
        r->mesh = b->faces[b->tri_face[i / 3]].mesh;
        r->v = c->v;
        r->vt = c->vt;
        r->vn = c->vn;
        for (int k = 0; k < 3; k++) r->n[k] = canonical(b->normals[i * 3 + (size_t)k]);
        any_vt |= c->vt != OBJ_NONE;
        any_color |= ((const obj_vertex *)d->vertices.data)[c->v].has_color;
    }
    size_t nv = ossa__weld(m, rec, nc, sizeof *rec, remap);
    if (nv == SIZE_MAX) {
        st = ossa__fail_nomem(d->error);
        goto done;
    }
    pos = ossa__temp_alloc(m, (nv + 1) * 3 * sizeof *pos);
    nrm = ossa__temp_alloc(m, (nv + 1) * 3 * sizeof *nrm);
    uv = any_vt ? ossa__temp_alloc(m, (nv + 1) * 2 * sizeof *uv) : NULL;
    col = any_color ? ossa__temp_alloc(m, (nv + 1) * 4 * sizeof *col) : NULL;
    tris = ossa__temp_alloc(m, (b->num_tris + 1) * sizeof *tris);
    if (!pos || !nrm || (any_vt && !uv) || (any_color && !col) || !tris) {
        st = ossa__fail_nomem(d->error);
        goto done;
    }
    /* Texture coordinates missing beside others in a mesh, colours
     * missing beside others: defaults, counted for warnings. */
    uint32_t nmesh = ossa__intern_count(&d->meshes);
    bool *mesh_vt = ossa__temp_calloc(m, (size_t)nmesh + 1, sizeof *mesh_vt);
    if (!mesh_vt) {
        st = ossa__fail_nomem(d->error);
        goto done;
    }
    for (size_t i = 0; i < nc; i++) mesh_vt[rec[i].mesh] |= rec[i].vt != OBJ_NONE;
    size_t no_vt = 0, no_color = 0;
    uint32_t next = 0;
    for (size_t i = 0; i < nc; i++) {
        if (remap[i] != next) continue;
        const vertex_record *r = &rec[i];
        const obj_vertex *v = &((const obj_vertex *)d->vertices.data)[r->v];
        memcpy(pos + (size_t)next * 3, b->pos + (size_t)r->v * 3, 3 * sizeof *pos);
        memcpy(nrm + (size_t)next * 3, r->n, 3 * sizeof *nrm);
        if (uv) {
            /* OBJ's texture origin is bottom-left, ossa's top-left (§7) */
            const float *t = r->vt != OBJ_NONE ? (const float *)d->texcoords.data + (size_t)r->vt * 2
                                               : (const float[2]){0, 0};
            uv[(size_t)next * 2] = t[0];
            uv[(size_t)next * 2 + 1] = 1.0f - t[1];
            no_vt += r->vt == OBJ_NONE && mesh_vt[r->mesh];
        }
        if (col) {
            static const float white[4] = {1, 1, 1, 1};
            memcpy(col + (size_t)next * 4, v->has_color ? v->c : white, 4 * sizeof *col);
            no_color += !v->has_color;
        }
        next++;
    }
    ossa__temp_free(m, mesh_vt);
    if (no_vt)
        ossa__obj_warn_at(d, OSSA_WARNING_REPAIRED, b->faces[0].at,
                          "%zu vertices have no texture coordinate beside others of their mesh: "
                          "(0, 0) used",
                          no_vt);
    if (no_color)
        ossa__obj_warn_at(d, OSSA_WARNING_REPAIRED, b->faces[0].at,
                          "%zu vertices have no colour beside others that do: white used",
                          no_color);
    for (size_t t = 0; t < b->num_tris; t++)
        for (int k = 0; k < 3; k++) tris[t].v[k] = remap[t * 3 + (size_t)k];
    if (ossa_model_set_num_vertices(m, (uint32_t)nv, d->error) ||
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, d->error) ||
        (uv && !ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv,
                                            d->error)) ||
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm, d->error) ||
        (col && !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 4, NULL, col,
                                                   d->error)) ||
        ossa_model_set_triangles(m, (uint32_t)b->num_tris, tris, d->error)) {
        st = OSSA_FAILED;
        goto done;
    }
    /* Meshes: triangles are grouped by mesh, and vertices carry the mesh,
     * so both come as one range per mesh. */
    for (size_t t = 0; t < b->num_tris && !st;) {
        uint32_t mesh = rec[t * 3].mesh;
        size_t e = t;
        while (e < b->num_tris && rec[e * 3].mesh == mesh) e++;
        uint32_t first_vertex = remap[t * 3];
        uint32_t end_vertex = e < b->num_tris ? remap[e * 3] : (uint32_t)nv;
        const char *key = ossa__intern_str(&d->meshes, mesh);
        const char *nl = strchr(key, '\n');
        char *name = ossa__arena_strndup(ossa__model_arena(m), key, (size_t)(nl - key));
        if (!name)
            st = ossa__fail_nomem(d->error);
        else if (ossa_model_add_mesh(m, name, nl + 1, first_vertex, end_vertex - first_vertex,
                                     (uint32_t)t, (uint32_t)(e - t), d->error) < 0)
            st = OSSA_FAILED;
        t = e;
    }
done:
    ossa__temp_free(m, rec);
    ossa__temp_free(m, remap);
    ossa__temp_free(m, pos);
    ossa__temp_free(m, nrm);
    ossa__temp_free(m, uv);
    ossa__temp_free(m, col);
    ossa__temp_free(m, tris);
    return st;
}

ossa_status ossa__obj_build(obj_doc *d)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.d = d;
    b.m = d->model;
    b.corners = (const obj_corner *)d->corners.data;
    b.faces = (const obj_face *)d->faces.data;
    if (!d->faces.count)
        return ossa__obj_fail_at(d, OSSA_ERROR_FORMAT, d->size,
                                 "no faces ('f' lines): points, lines and free-form geometry are "
                                 "not supported");
    ossa_status st = check_indices(&b);
    if (!st) st = triangulate(&b);
    if (!st) {
        b.pos = ossa__temp_alloc(b.m, (d->vertices.count + 1) * 3 * sizeof *b.pos);
        if (!b.pos) st = ossa__fail_nomem(d->error);
        for (size_t i = 0; !st && i < d->vertices.count; i++)
            map_axes(d, ((const obj_vertex *)d->vertices.data)[i].p, b.pos + i * 3);
    }
    if (!st) st = normals(&b);
    if (!st) st = vertices(&b);
    if (!st && d->mtllib.count)
        st = ossa_model_add_extra(b.m, "obj.mtllib", d->mtllib.data, d->mtllib.count, d->error);
    ossa__temp_free(b.m, b.tri_corner);
    ossa__temp_free(b.m, b.tri_face);
    ossa__temp_free(b.m, b.pos);
    ossa__temp_free(b.m, b.normals);
    return st;
}
