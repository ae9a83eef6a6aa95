/* The render scene: a model's vertices decoded once into the forms the
 * renderer reads every frame, normals generated when missing, a culling
 * mode per mesh from its winding and whether it is closed, and one
 * material per mesh. */
#include "render/render.h"

#include <math.h>
#include <stdlib.h>

/* Flat colours for meshes without a material: light enough to show the
 * shading, far enough apart to tell neighbouring meshes apart. */
static const uint8_t palette[8][3] = {
    {222, 184, 135}, {110, 160, 210}, {140, 190, 120}, {210, 120, 110},
    {180, 150, 210}, {230, 200, 110}, {110, 190, 190}, {200, 200, 200},
};

/* -- Memory -- */

static void *scene_calloc(ossa_render_scene *s, size_t count, size_t elem)
{
    if (count == 0) count = 1;
    if (elem && count > SIZE_MAX / elem) return NULL;
    void *p = ossa__alloc(&s->allocator, count * elem);
    if (p) {
        memset(p, 0, count * elem);
        s->memory += count * elem;
    }
    return p;
}

static void scene_release(ossa_render_scene *s, void *p)
{
    ossa__free(&s->allocator, p, 0);
}

void ossa_render_scene_free(ossa_render_scene *scene)
{
    if (!scene) return;
    ossa_render_scene *s = scene;
    if (s->materials)
        for (uint32_t m = 0; m <= s->num_meshes; m++) scene_release(s, s->materials[m].texture);
    const rd_work *w = &s->work;
    void *blocks[] = {s->positions,      s->normals,         s->texcoords,    s->colors,
                      s->blend_indices,
                      s->blend_weights,  s->triangles,       s->triangle_mesh, s->materials,
                      s->parents,        s->inverse_bind,    s->rest_model,   s->skin,
                      s->skinned_positions, s->skinned_normals, s->vertices, w->band_color,
                      w->band_depth,     w->bin_start,       w->bin_items,    w->bin_ranges,
                      w->bin_slots,      w->under.items,     w->over.items};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) scene_release(s, blocks[i]);
    ossa_allocator a = s->allocator;
    ossa__free(&a, s, sizeof *s);
}

/* -- Vertex data -- */

float ossa__rd_srgb_from_linear(float c)
{
    if (!(c > 0)) return 0;
    if (c >= 1) return 1;
    return c <= 0.0031308f ? 12.92f * c : 1.055f * powf(c, 1 / 2.4f) - 0.055f;
}

/* Decodes an array of `type` into n * size floats, or leaves *out NULL
 * when the model has none. */
static ossa_status decode(ossa_render_scene *s, const ossa_model *model, ossa_vertex_type type,
                          uint32_t want, float **out, uint32_t *size, ossa_error *error)
{
    *out = NULL;
    const ossa_vertex_array *a = ossa_model_find_array(model, type, NULL);
    if (!a || a->size == 0 || a->size > OSSA_MAX_COMPONENTS) return OSSA_OK;
    uint32_t n = model->num_vertices, k = want ? want : a->size;
    float *data = scene_calloc(s, (size_t)n, (size_t)k * sizeof(float));
    if (!data) return ossa__fail_nomem(error);
    if (ossa_vertex_array_read_padded(model, a, 0, n, k, data) != OSSA_OK) {
        scene_release(s, data);
        return OSSA_OK; /* unreadable: as if absent */
    }
    if (size) *size = a->size;
    *out = data;
    return OSSA_OK;
}

static void normalize3(float v[3])
{
    float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (len > 0 && isfinite(len)) {
        v[0] /= len, v[1] /= len, v[2] /= len;
    } else {
        v[0] = v[1] = v[2] = 0;
    }
}

/* cross(p2 - p0, p1 - p0): the outward normal of a front face (clockwise
 * seen from outside), twice the triangle's area long. */
static void face_normal(const float *pos, const uint32_t *t, float n[3])
{
    const float *p0 = pos + (size_t)t[0] * 3, *p1 = pos + (size_t)t[1] * 3,
                *p2 = pos + (size_t)t[2] * 3;
    float a[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    float b[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    n[0] = a[1] * b[2] - a[2] * b[1];
    n[1] = a[2] * b[0] - a[0] * b[2];
    n[2] = a[0] * b[1] - a[1] * b[0];
}

static void generate_normals(ossa_render_scene *s)
{
    float *n = s->normals;
    for (uint32_t t = 0; t < s->num_triangles; t++) {
        const uint32_t *tri = s->triangles + (size_t)t * 3;
        float fn[3];
        face_normal(s->positions, tri, fn);
        if (!isfinite(fn[0] + fn[1] + fn[2])) continue;
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < 3; c++) n[(size_t)tri[k] * 3 + c] += fn[c];
    }
    for (uint32_t v = 0; v < s->num_vertices; v++) normalize3(n + (size_t)v * 3);
}

/* Blend data with every index in range and weights summing to 1; a
 * vertex with nothing usable follows the identity matrix that comes after
 * the joints. Without joints (or with more than 16-bit indices can name)
 * the model is drawn unskinned. */
static ossa_status decode_blend(ossa_render_scene *s, const ossa_model *model, ossa_error *error)
{
    uint32_t ni = 0, nw = 0, nv = s->num_vertices, nj = s->num_joints;
    if (nj == 0 || nj >= UINT16_MAX) return OSSA_OK;
    float *idx = NULL, *wt = NULL;
    if (decode(s, model, OSSA_VERTEX_BLENDINDEXES, 0, &idx, &ni, error) ||
        decode(s, model, OSSA_VERTEX_BLENDWEIGHTS, 0, &wt, &nw, error)) {
        scene_release(s, idx);
        scene_release(s, wt);
        return OSSA_FAILED;
    }
    uint32_t k = ni < nw ? ni : nw;
    if (!idx || !wt || k == 0) {
        scene_release(s, idx);
        scene_release(s, wt);
        return OSSA_OK;
    }
    s->influences = k;
    s->blend_indices = scene_calloc(s, (size_t)nv * k, sizeof(uint16_t));
    s->blend_weights = scene_calloc(s, (size_t)nv * k, sizeof(float));
    if (!s->blend_indices || !s->blend_weights) {
        scene_release(s, idx);
        scene_release(s, wt);
        return ossa__fail_nomem(error);
    }
    for (uint32_t v = 0; v < nv; v++) {
        uint16_t *oi = s->blend_indices + (size_t)v * k;
        float *ow = s->blend_weights + (size_t)v * k;
        double sum = 0;
        for (uint32_t c = 0; c < k; c++) {
            float j = idx[(size_t)v * ni + c], w = wt[(size_t)v * nw + c];
            if (!(j >= 0 && j < (float)nj) || !(w > 0 && isfinite(w))) continue;
            oi[c] = (uint16_t)j;
            ow[c] = w;
            sum += w;
        }
        if (!(sum > 1e-6)) {
            memset(ow, 0, k * sizeof *ow);
            oi[0] = (uint16_t)nj;
            ow[0] = 1;
            continue;
        }
        for (uint32_t c = 0; c < k; c++) ow[c] = (float)(ow[c] / sum);
    }
    scene_release(s, idx);
    scene_release(s, wt);
    return OSSA_OK;
}

/* -- Winding -- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* How a mesh's triangles [first, first + count) are to be culled. With
 * normals from the file the winding is checked against them: a mesh whose
 * triangles mostly agree culls back faces, one that mostly disagrees was
 * wound the other way and culls front faces, a mixed one culls nothing.
 * Generated normals follow the winding, so then the winding is checked
 * against itself (an edge run the same way by two triangles means
 * neighbours disagree) and against the sign of the enclosed volume. */
static int mesh_cull(ossa_render_scene *s, uint32_t first, uint32_t count, bool *flip)
{
    *flip = false;
    if (count == 0) return RD_CULL_BACK;
    if (!s->generated_normals) {
        uint32_t agree = 0, disagree = 0;
        for (uint32_t t = first; t < first + count; t++) {
            const uint32_t *tri = s->triangles + (size_t)t * 3;
            float fn[3], vn[3] = {0, 0, 0};
            face_normal(s->positions, tri, fn);
            for (int k = 0; k < 3; k++)
                for (int c = 0; c < 3; c++) vn[c] += s->normals[(size_t)tri[k] * 3 + c];
            float d = rd_dot3(fn, vn);
            if (d > 0) agree++;
            else if (d < 0) disagree++;
        }
        uint32_t total = agree + disagree;
        if (total == 0 || (double)agree >= 0.9 * total) return RD_CULL_BACK;
        if ((double)disagree >= 0.9 * total) return RD_CULL_FRONT;
        return RD_CULL_NONE;
    }
    uint64_t *edges = ossa__alloc(&s->allocator, (size_t)count * 3 * sizeof *edges);
    if (!edges) return RD_CULL_NONE; /* always correct, only slower */
    double volume = 0, scale = 0;
    for (uint32_t t = 0; t < count; t++) {
        const uint32_t *tri = s->triangles + (size_t)(first + t) * 3;
        for (int k = 0; k < 3; k++)
            edges[(size_t)t * 3 + k] = (uint64_t)tri[k] << 32 | tri[(k + 1) % 3];
        const float *p0 = s->positions + (size_t)tri[0] * 3;
        float fn[3];
        face_normal(s->positions, tri, fn);
        double v = (double)rd_dot3(p0, fn);
        if (isfinite(v)) volume += v, scale += fabs(v);
    }
    qsort(edges, (size_t)count * 3, sizeof *edges, cmp_u64);
    size_t repeated = 0;
    for (size_t i = 1; i < (size_t)count * 3; i++) repeated += edges[i] == edges[i - 1];
    ossa__free(&s->allocator, edges, 0);
    if ((double)repeated > 0.02 * count * 3) return RD_CULL_NONE;
    /* A closed mesh turned inside out encloses a negative volume; an open
     * one gives a sum near zero relative to its terms and is left alone. */
    if (volume < -0.5 * scale) {
        *flip = true;
        return RD_CULL_FRONT;
    }
    return RD_CULL_BACK;
}

/* A vertex record for finding vertices at the same place. */
typedef struct placed {
    float p[3];
    uint32_t index;
} placed;

static int cmp_placed(const void *a, const void *b)
{
    int c = memcmp(((const placed *)a)->p, ((const placed *)b)->p, sizeof(float[3]));
    if (c) return c;
    uint32_t x = ((const placed *)a)->index, y = ((const placed *)b)->index;
    return (x > y) - (x < y);
}

/* One id per position: vertices at the same place (bitwise) get the
 * lowest index among them, so that the seams where a mesh splits its
 * vertices for texture coordinates or hard edges are not taken for holes.
 * NULL when memory runs out. */
static uint32_t *position_ids(ossa_render_scene *s)
{
    uint32_t n = s->num_vertices;
    placed *v = ossa__alloc(&s->allocator, (size_t)(n ? n : 1) * sizeof *v);
    uint32_t *ids = ossa__alloc(&s->allocator, (size_t)(n ? n : 1) * sizeof *ids);
    if (!v || !ids) {
        ossa__free(&s->allocator, v, 0);
        ossa__free(&s->allocator, ids, 0);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        memcpy(v[i].p, s->positions + (size_t)i * 3, sizeof v[i].p);
        v[i].index = i;
    }
    qsort(v, n, sizeof *v, cmp_placed);
    for (uint32_t i = 0, first = 0; i < n; i++) {
        if (i == 0 || memcmp(v[i].p, v[i - 1].p, sizeof v[i].p) != 0) first = v[i].index;
        ids[v[i].index] = first;
    }
    ossa__free(&s->allocator, v, 0);
    return ids;
}

/* Whether triangles [first, first + count) leave an edge with one
 * triangle on it (vertices by `ids`): an open mesh (a plane, a cape, a
 * body with a hole at the neck) shows its back faces from some side. */
static bool mesh_open(ossa_render_scene *s, const uint32_t *ids, uint32_t first, uint32_t count)
{
    if (count == 0 || !ids) return false;
    uint64_t *edges = ossa__alloc(&s->allocator, (size_t)count * 3 * sizeof *edges);
    if (!edges) return false;
    for (uint32_t t = 0; t < count; t++) {
        const uint32_t *tri = s->triangles + (size_t)(first + t) * 3;
        for (int k = 0; k < 3; k++) {
            uint64_t a = ids[tri[k]], b = ids[tri[(k + 1) % 3]];
            edges[(size_t)t * 3 + k] = a < b ? a << 32 | b : b << 32 | a;
        }
    }
    size_t n = (size_t)count * 3;
    qsort(edges, n, sizeof *edges, cmp_u64);
    bool open = false;
    for (size_t i = 0; i < n && !open;) {
        size_t j = i + 1;
        while (j < n && edges[j] == edges[i]) j++;
        uint32_t a = (uint32_t)(edges[i] >> 32), b = (uint32_t)edges[i];
        open = j - i == 1 && a != b; /* a collapsed edge bounds nothing */
        i = j;
    }
    ossa__free(&s->allocator, edges, 0);
    return open;
}

static void assign_meshes(ossa_render_scene *s, const ossa_model *model)
{
    uint32_t none = s->num_meshes;
    uint32_t *ids = (s->flags & OSSA_RENDER_SCENE_TWO_SIDED) ? NULL : position_ids(s);
    for (uint32_t t = 0; t < s->num_triangles; t++) s->triangle_mesh[t] = none;
    for (uint32_t m = s->num_meshes; m-- > 0;) {
        const ossa_mesh *mesh = &model->meshes[m];
        if (mesh->first_triangle >= s->num_triangles) continue;
        uint32_t end = mesh->first_triangle +
                       (mesh->num_triangles < s->num_triangles - mesh->first_triangle
                            ? mesh->num_triangles
                            : s->num_triangles - mesh->first_triangle);
        /* Lower mesh indices win where ranges overlap (the loop runs down). */
        for (uint32_t t = mesh->first_triangle; t < end; t++) s->triangle_mesh[t] = m;
    }
    for (uint32_t m = 0; m <= s->num_meshes; m++) {
        rd_material *mat = &s->materials[m];
        for (int c = 0; c < 3; c++) {
            mat->color[c] = 1;
            mat->flat[c] = palette[(m == none ? 0 : m) % 8][c];
        }
        uint32_t first = 0, count = 0;
        if (m < none) {
            const ossa_mesh *mesh = &model->meshes[m];
            if (mesh->first_triangle < s->num_triangles) {
                first = mesh->first_triangle;
                count = s->num_triangles - first < mesh->num_triangles ? s->num_triangles - first
                                                                       : mesh->num_triangles;
            }
        }
        bool flip = false;
        mat->cull = mat->cull_winding = RD_CULL_NONE;
        if (!(s->flags & OSSA_RENDER_SCENE_TWO_SIDED)) {
            mat->cull_winding = mesh_cull(s, first, count, &flip);
            /* Both sides of an open mesh, as modelling tools show them,
             * unless its material says one (ossa_render_scene_load_materials). */
            mat->cull = mesh_open(s, ids, first, count) ? RD_CULL_NONE : mat->cull_winding;
        }
        if (flip && m < none) {
            /* The mesh's own vertex range, each vertex once. */
            const ossa_mesh *mesh = &model->meshes[m];
            uint32_t v0 = mesh->first_vertex < s->num_vertices ? mesh->first_vertex : s->num_vertices;
            uint32_t v1 = s->num_vertices - v0 < mesh->num_vertices ? s->num_vertices
                                                                    : v0 + mesh->num_vertices;
            for (float *n = s->normals + (size_t)v0 * 3; n < s->normals + (size_t)v1 * 3; n++)
                *n = -*n;
        }
    }
    ossa__free(&s->allocator, ids, 0);
}

/* -- Joints -- */

static ossa_status setup_joints(ossa_render_scene *s, const ossa_model *model, ossa_error *error)
{
    uint32_t nj = s->num_joints;
    s->parents = scene_calloc(s, nj, sizeof *s->parents);
    s->inverse_bind = scene_calloc(s, nj, sizeof *s->inverse_bind);
    s->rest_model = scene_calloc(s, nj, sizeof *s->rest_model);
    s->skin = scene_calloc(s, (size_t)nj + 1, sizeof *s->skin);
    ossa_transform *local = ossa__alloc(&s->allocator, (nj ? nj : 1) * sizeof *local);
    if (!s->parents || !s->inverse_bind || !s->rest_model || !s->skin || !local) {
        ossa__free(&s->allocator, local, 0);
        return ossa__fail_nomem(error);
    }
    for (uint32_t j = 0; j < nj; j++) {
        s->parents[j] = model->joints[j].parent;
        local[j] = model->rest_pose ? model->rest_pose[j] : model->joints[j].bind;
        float *q = local[j].rotation;
        float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (len > 0 && isfinite(len))
            q[0] /= len, q[1] /= len, q[2] /= len, q[3] /= len;
        else
            q[0] = q[1] = q[2] = 0, q[3] = 1;
    }
    if (nj) {
        ossa_local_to_model(model, local, s->rest_model);
        s->rest_skins = model->rest_pose != NULL;
        ossa_model_inverse_bind_matrices(model, s->inverse_bind);
    }
    ossa__free(&s->allocator, local, 0);
    return OSSA_OK;
}

/* -- Creation -- */

static void compute_bounds(ossa_render_scene *s)
{
    ossa_bounds *b = &s->bind_bounds;
    bool any = false;
    for (uint32_t v = 0; v < s->num_vertices; v++) {
        const float *p = s->positions + (size_t)v * 3;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
        for (int c = 0; c < 3; c++) {
            if (!any || p[c] < b->min[c]) b->min[c] = p[c];
            if (!any || p[c] > b->max[c]) b->max[c] = p[c];
        }
        float xy = sqrtf(p[0] * p[0] + p[1] * p[1]);
        float r = sqrtf(xy * xy + p[2] * p[2]);
        if (!any || xy > b->xy_radius) b->xy_radius = xy;
        if (!any || r > b->radius) b->radius = r;
        any = true;
    }
}

static ossa_status build(ossa_render_scene *s, const ossa_model *model, ossa_error *error)
{
    uint32_t nv = model->num_vertices, nt = model->num_triangles;
    float *pos = NULL;
    uint32_t size = 0;
    if (decode(s, model, OSSA_VERTEX_POSITION, 3, &pos, &size, error)) return OSSA_FAILED;
    if (!pos) nv = nt = 0; /* nothing to draw */
    s->num_vertices = nv;
    s->positions = pos;
    s->num_triangles = nt;
    s->num_meshes = model->num_meshes;
    s->num_joints = model->num_joints;

    s->triangles = scene_calloc(s, (size_t)nt * 3, sizeof *s->triangles);
    s->triangle_mesh = scene_calloc(s, nt, sizeof *s->triangle_mesh);
    s->materials = scene_calloc(s, (size_t)s->num_meshes + 1, sizeof *s->materials);
    if (!s->triangles || !s->triangle_mesh || !s->materials) return ossa__fail_nomem(error);
    /* Triangles naming a vertex that does not exist stay (0, 0, 0), which
     * is never drawn (a model built through the API cannot have them; this
     * keeps the renderer safe on its own). Mesh ranges still count them. */
    for (uint32_t t = 0; t < nt; t++) {
        const uint32_t *v = model->triangles[t].v;
        if (v[0] < nv && v[1] < nv && v[2] < nv)
            memcpy(s->triangles + (size_t)t * 3, v, 3 * sizeof *v);
    }

    if (nv) {
        if (decode(s, model, OSSA_VERTEX_NORMAL, 3, &s->normals, NULL, error) ||
            decode(s, model, OSSA_VERTEX_TEXCOORD, 2, &s->texcoords, NULL, error) ||
            decode(s, model, OSSA_VERTEX_COLOR, 3, &s->colors, NULL, error))
            return OSSA_FAILED;
        /* Colours multiply the albedo in sRGB: linear ones (glTF) are
         * converted, and every one is kept to 0..1. */
        bool linear = (model->flags & OSSA_MODEL_LINEAR_COLORS) != 0;
        for (size_t i = 0; s->colors && i < (size_t)nv * 3; i++) {
            float c = s->colors[i];
            s->colors[i] = linear ? ossa__rd_srgb_from_linear(c) : !(c > 0) ? 0 : c > 1 ? 1 : c;
        }
    }
    if (!s->normals) {
        s->normals = scene_calloc(s, (size_t)nv * 3, sizeof(float));
        if (!s->normals) return ossa__fail_nomem(error);
        s->generated_normals = 1;
        generate_normals(s);
    } else {
        for (uint32_t v = 0; v < nv; v++) normalize3(s->normals + (size_t)v * 3);
    }
    if (decode_blend(s, model, error) || setup_joints(s, model, error)) return OSSA_FAILED;
    assign_meshes(s, model);
    compute_bounds(s);
    return OSSA_OK;
}

ossa_render_scene *ossa_render_scene_create(const ossa_model *model,
                                            const ossa_render_scene_options *options,
                                            ossa_error *error)
{
    ossa_render_scene_options copy;
    if (ossa__copy_sized(&copy, sizeof copy, options, RD_SCENE_OPTIONS_0_2,
                         "ossa_render_scene_options", error))
        return NULL;
    options = &copy;
    if (!model) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no model");
        return NULL;
    }
    ossa_allocator allocator = {0};
    if (options && options->allocator) allocator = *options->allocator;
    ossa_render_scene *s = ossa__alloc(&allocator, sizeof *s);
    if (!s) {
        ossa__fail_nomem(error);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->allocator = allocator;
    s->flags = options ? options->flags : 0;
    s->memory = sizeof *s;
    if (build(s, model, error) != OSSA_OK) {
        ossa_render_scene_free(s);
        return NULL;
    }
    return s;
}

void ossa_render_scene_get_info(const ossa_render_scene *scene, ossa_render_scene_info *info)
{
    memset(info, 0, sizeof *info);
    info->num_vertices = scene->num_vertices;
    info->num_triangles = scene->num_triangles;
    info->num_meshes = scene->num_meshes;
    info->num_joints = scene->num_joints;
    info->generated_normals = scene->generated_normals;
    for (uint32_t m = 0; m < scene->num_meshes; m++) {
        info->two_sided_meshes += scene->materials[m].cull == RD_CULL_NONE;
        info->textured_meshes += scene->materials[m].texture != NULL;
    }
    info->bind_bounds = scene->bind_bounds;
    info->memory = scene->memory;
}

ossa_status ossa_render_scene_set_material(ossa_render_scene *scene, uint32_t mesh,
                                           const ossa_render_material *material,
                                           ossa_error *error)
{
    return ossa__rd_set_material(scene, mesh, material, false, error);
}

ossa_status ossa__rd_set_material(ossa_render_scene *scene, uint32_t mesh,
                                  const ossa_render_material *material, bool take,
                                  ossa_error *error)
{
    if (!scene || !material || mesh >= scene->num_meshes)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "mesh %u out of range (the model has %u)", (unsigned)mesh,
                          scene ? (unsigned)scene->num_meshes : 0u);
    const uint32_t w = material->texture_width, h = material->texture_height;
    if (material->texture && (w == 0 || h == 0 || w > 16384 || h > 16384))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "texture size %ux%u out of range (1..16384)", (unsigned)w, (unsigned)h);
    for (int c = 0; c < 4; c++)
        if (!isfinite(material->color[c]) || material->color[c] < 0)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "material colour component %d is negative or not finite", c);
    rd_material *m = &scene->materials[mesh];
    uint8_t *copy = NULL;
    if (material->texture && take) {
        /* Decoded into the scene's memory for this mesh: kept as it is. */
        copy = (uint8_t *)(uintptr_t)material->texture;
        scene->memory += (size_t)w * h * 4;
    } else if (material->texture) {
        size_t bytes = (size_t)w * h * 4;
        copy = ossa__alloc(&scene->allocator, bytes);
        if (!copy) return ossa__fail_nomem(error);
        memcpy(copy, material->texture, bytes);
        scene->memory += bytes;
    }
    if (m->texture) scene->memory -= (size_t)m->texture_width * m->texture_height * 4;
    scene_release(scene, m->texture);
    m->texture = copy;
    m->texture_width = copy ? w : 0;
    m->texture_height = copy ? h : 0;
    const float *c = material->color;
    bool unset = c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0;
    for (int k = 0; k < 3; k++) {
        float v = unset ? 1.0f : c[k];
        m->color[k] = v;
        if (!unset) m->flat[k] = fminf(v, 1.0f) * 255.0f;
        else if (!copy) m->flat[k] = palette[mesh % 8][k];
    }
    return OSSA_OK;
}
