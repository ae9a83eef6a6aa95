/* FBX writer: meshes and materials (fbx.md §7.2, §7.5, §10.3, §15).
 *
 * Each ossa mesh becomes a Model of subclass Mesh at the origin with its
 * own Geometry. The control points are the vertices its triangles use, in
 * the order the reader meets them, and every triangle (a, b, c) is the
 * polygon (a, c, b): FBX front faces are counter-clockwise, ossa's
 * clockwise, and the reader emits (a, c, b) again. Normals, tangents,
 * texture coordinates (v flipped: FBX's origin is bottom-left) and colours
 * are one value per control point: ByVertice, Direct, the smallest form,
 * read by Blender, assimp and ossa alike. The material is one per mesh
 * (LayerElementMaterial AllSame).
 *
 * Materials keep what the FBX reader reads back (Blender's reading): the
 * base colour as DiffuseColor, metallic as ReflectionFactor, roughness as
 * Shininess = (10 (1 - roughness))², and the base colour texture as a
 * Texture on DiffuseColor with its Video: the image inside (Content) or
 * beside the file (RelativeFilename), as ossa_write_options.images says. */
#include "core/image_files.h"
#include "formats/fbx/write.h"

#include <math.h>
#include <stdio.h>

/* The model's vertex data as floats, decoded once. */
typedef struct geo {
    float *pos, *nrm, *tan, *uv, *col; /* 3, 3, 4, 2, 4 per vertex; NULL when absent */
    uint32_t num_sets;                 /* extra texture coordinate sets (custom, 2 wide) */
    float *sets[8];
    const char *set_names[8];
    ossa_intern names; /* material names, in order of first use */
} geo;

static float *decode(fbxw *w, ossa_vertex_type type, const char *name, uint32_t want)
{
    const ossa_vertex_array *a = ossa_model_find_array(w->m, type, name);
    if (!a) return NULL;
    float *out = ossa__alloc(w->alloc, (size_t)w->m->num_vertices * want * sizeof *out + 1);
    if (!out) {
        w->nomem = true;
        return NULL;
    }
    if (ossa_vertex_array_read_padded(w->m, a, 0, w->m->num_vertices, want, out)) {
        w->failed = true;
        ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "%s array: unknown component format", ossa_vertex_type_name(type));
        return out;
    }
    /* Readers refuse layer data and control points that are not finite. */
    for (size_t i = 0; i < (size_t)w->m->num_vertices * want && !w->failed; i++)
        if (!isfinite(out[i])) {
            w->failed = true;
            ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                       "%s array: vertex %zu is not finite", ossa_vertex_type_name(type), i / want);
        }
    return out;
}

/* Custom arrays of two floats are extra texture coordinate sets (what the
 * reader makes of UV layers after the first); other custom arrays and
 * further sets have no place in FBX. */
static void decode_arrays(fbxw *w, geo *g)
{
    const ossa_model *m = w->m;
    g->pos = decode(w, OSSA_VERTEX_POSITION, NULL, 3);
    g->nrm = decode(w, OSSA_VERTEX_NORMAL, NULL, 3);
    g->tan = g->nrm ? decode(w, OSSA_VERTEX_TANGENT, NULL, 4) : NULL;
    g->uv = decode(w, OSSA_VERTEX_TEXCOORD, NULL, 2);
    const ossa_vertex_array *c = ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL);
    g->col = decode(w, OSSA_VERTEX_COLOR, NULL, 4);
    if (g->col && c->size < 4) /* RGB: opaque */
        for (uint32_t v = 0; v < m->num_vertices; v++) g->col[(size_t)v * 4 + 3] = 1;
    const ossa_vertex_array *t = ossa_model_find_array(m, OSSA_VERTEX_TANGENT, NULL);
    if (g->tan && t->size < 4)
        for (uint32_t v = 0; v < m->num_vertices; v++) g->tan[(size_t)v * 4 + 3] = 1;
    uint32_t dropped = 0, texcoords = 0;
    const char *first = NULL;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        texcoords += a->type == OSSA_VERTEX_TEXCOORD;
        if (a->type != OSSA_VERTEX_CUSTOM) continue;
        if (a->size == 2 && g->uv && g->num_sets < 8 && ossa_model_find_array(m, a->type, a->name) == a) {
            g->set_names[g->num_sets] = a->name;
            g->sets[g->num_sets++] = decode(w, OSSA_VERTEX_CUSTOM, a->name, 2);
            continue;
        }
        if (!dropped++) first = a->name;
    }
    if (dropped)
        ossa__write_warn(w->opt, OSSA_WARNING_DROPPED,
                         "fbx files hold custom vertex arrays of two floats only (as texture "
                         "coordinate sets): %u arrays ('%.60s'%s) not written",
                         dropped, first, dropped > 1 ? ", ..." : "");
    if (!g->nrm && ossa_model_find_array(m, OSSA_VERTEX_TANGENT, NULL))
        ossa__write_warn(w->opt, OSSA_WARNING_DROPPED,
                         "fbx: tangents without normals not written (binormals need both)");
    if (texcoords > 1)
        ossa__write_warn(w->opt, OSSA_WARNING_DROPPED,
                         "fbx: %u texture coordinate arrays: the first is written", texcoords);
}

/* Control points of mesh mi: w->point_vertex[0..n), and w->local_of set
 * for them (cleared by forget_points). */
static uint32_t gather_points(fbxw *w, uint32_t mi)
{
    const ossa_mesh *me = &w->m->meshes[mi];
    uint32_t n = 0;
    static const int corner[3] = {0, 2, 1};
    for (uint32_t t = me->first_triangle; t < me->first_triangle + me->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = w->m->triangles[t].v[corner[k]];
            if (w->local_of[v]) continue;
            w->point_vertex[n] = v;
            w->local_of[v] = ++n;
        }
    return n;
}

static void forget_points(fbxw *w, uint32_t n)
{
    for (uint32_t p = 0; p < n; p++) w->local_of[w->point_vertex[p]] = 0;
}

static ossa_status plan_materials(fbxw *w, geo *g)
{
    const ossa_model *m = w->m;
    uint32_t n = ossa__intern_count(&g->names);
    if (!n) return OSSA_OK;
    w->materials = ossa__alloc(w->alloc, n * sizeof *w->materials);
    if (!w->materials) return ossa__fail_nomem(w->error);
    memset(w->materials, 0, n * sizeof *w->materials);
    w->num_materials = n;
    ossa__extra_index_build(m, &w->index);
    uint32_t lost = 0, missing = 0;
    const char *lost_name = NULL, *missing_name = NULL;
    for (uint32_t i = 0; i < n; i++) {
        fbxw_material *mt = &w->materials[i];
        mt->name = ossa__intern_str(&g->names, i);
        mt->id = ossa__fbxw_id(w);
        if (!ossa__material_in(&w->index, mt->name, &mt->desc)) ossa__material_defaults(&mt->desc);
        uint32_t beyond = ossa__material_beyond_base_image(&mt->desc) & ~(1u << 0 | 1u << 1 | 1u << 7);
        if (beyond && !lost) lost_name = mt->name;
        lost |= beyond;
        const char *image = mt->desc.textures[OSSA_TEXTURE_BASE_COLOR].image;
        if (!image[0]) continue;
        mt->texture = ossa__fbxw_id(w);
        mt->video = ossa__fbxw_id(w);
        ossa__image_file_name(image, mt->file);
        if (!mt->file[0]) snprintf(mt->file, sizeof mt->file, "texture%u", i);
        if (w->images == OSSA_IMAGES_NONE) continue;
        mt->image = ossa__extra_lookup(&w->index, OSSA_EXTRA_IMAGE, image);
        if (!mt->image) {
            if (!missing++) missing_name = image;
            continue;
        }
        if (w->images != OSSA_IMAGES_BESIDE) continue;
        bool present;
        if (ossa__image_beside_name(w->path, image, mt->image->data, mt->image->size, w->opt,
                                    &w->beside_taken, mt->file, &present, w->error))
            return OSSA_FAILED;
        if (ossa__intern(m, &w->beside_taken, mt->file, strlen(mt->file)) < 0)
            return ossa__fail_nomem(w->error);
        if (!w->beside) {
            w->beside = ossa__alloc(w->alloc, n * sizeof *w->beside);
            if (!w->beside) return ossa__fail_nomem(w->error);
        }
        size_t cap = ossa__sibling_path(w->path, mt->file, NULL, 0) + 1;
        char *full = ossa__alloc(w->alloc, cap);
        if (!full) return ossa__fail_nomem(w->error);
        ossa__sibling_path(w->path, mt->file, full, cap);
        ossa_output_file *f = &w->beside[w->num_beside++];
        f->path = full;
        f->data = present ? NULL : mt->image->data; /* there already: referenced only */
        f->size = present ? 0 : mt->image->size;
    }
    if (lost) {
        char words[200];
        ossa__material_lost_text(lost, words, sizeof words);
        ossa__write_warn(w->opt, OSSA_WARNING_DROPPED,
                         "fbx materials keep base colour, metallic, roughness and the base "
                         "colour texture: %s not written (material '%.60s'%s)",
                         words, lost_name, n > 1 ? " and others" : "");
    }
    if (missing)
        ossa__write_warn(w->opt, OSSA_WARNING_DROPPED,
                         "%u images the model does not have ('%.60s'%s): textures name them "
                         "without their bytes",
                         missing, missing_name, missing > 1 ? ", ..." : "");
    return OSSA_OK;
}

ossa_status ossa__fbxw_plan_meshes(fbxw *w)
{
    const ossa_model *m = w->m;
    if (!m->num_meshes) return OSSA_OK;
    geo *g = ossa__alloc(w->alloc, sizeof *g);
    w->meshes = ossa__alloc(w->alloc, m->num_meshes * sizeof *w->meshes);
    w->local_of = ossa__alloc(w->alloc, ((size_t)m->num_vertices + 1) * sizeof *w->local_of);
    w->point_vertex = ossa__alloc(w->alloc, ((size_t)m->num_vertices + 1) * sizeof *w->point_vertex);
    uint32_t *stamp = ossa__alloc(w->alloc, ((size_t)m->num_joints + 1) * sizeof *stamp);
    if (g) memset(g, 0, sizeof *g);
    w->geo = g;
    if (!g || !w->meshes || !w->local_of || !w->point_vertex || !stamp) {
        ossa__free(w->alloc, stamp, 0);
        return ossa__fail_nomem(w->error);
    }
    memset(w->meshes, 0, m->num_meshes * sizeof *w->meshes);
    memset(w->local_of, 0, ((size_t)m->num_vertices + 1) * sizeof *w->local_of);
    memset(stamp, 0, ((size_t)m->num_joints + 1) * sizeof *stamp);
    ossa_status st = OSSA_OK;
    for (uint32_t t = 0; t < m->num_triangles && !st; t++)
        for (int k = 0; k < 3; k++)
            if (m->triangles[t].v[k] >= m->num_vertices) {
                st = ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                                "triangle %u names vertex %u of %u", t, m->triangles[t].v[k],
                                m->num_vertices);
                break;
            }
    uint32_t empty = 0;
    for (uint32_t i = 0; i < m->num_meshes && !st; i++) {
        const ossa_mesh *me = &m->meshes[i];
        fbxw_mesh *fm = &w->meshes[i];
        fm->material = -1;
        if ((uint64_t)me->first_triangle + me->num_triangles > m->num_triangles) {
            st = ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                            "mesh %u: triangles run past the model's", i);
            break;
        }
        if (!me->num_triangles) {
            empty++; /* nothing to draw: the reader would make nothing of it */
            continue;
        }
        fm->model = ossa__fbxw_id(w);
        fm->geometry = ossa__fbxw_id(w);
        if (me->material && me->material[0]) {
            int64_t id = ossa__intern(m, &g->names, me->material, strlen(me->material));
            if (id < 0) st = ossa__fail_nomem(w->error);
            fm->material = (int32_t)id;
        }
        fm->num_points = gather_points(w, i);
        uint32_t clusters = ossa__fbxw_count_clusters(w, i, stamp);
        forget_points(w, fm->num_points);
        if (clusters) {
            fm->skin = ossa__fbxw_id(w);
            w->num_clusters += clusters;
            w->num_skinned++;
        }
    }
    ossa__free(w->alloc, stamp, 0);
    if (empty)
        ossa__write_warn(w->opt, OSSA_WARNING_DROPPED, "fbx: %u meshes without triangles not written",
                         empty);
    if (!st) decode_arrays(w, g);
    if (!st && w->failed) st = OSSA_FAILED;
    if (!st && w->nomem) st = ossa__fail_nomem(w->error);
    if (!st) st = plan_materials(w, g);
    return st;
}

void ossa__fbxw_release_meshes(fbxw *w)
{
    geo *g = w->geo;
    if (g) {
        ossa__free(w->alloc, g->pos, 0);
        ossa__free(w->alloc, g->nrm, 0);
        ossa__free(w->alloc, g->tan, 0);
        ossa__free(w->alloc, g->uv, 0);
        ossa__free(w->alloc, g->col, 0);
        for (uint32_t s = 0; s < g->num_sets; s++) ossa__free(w->alloc, g->sets[s], 0);
        ossa__intern_free(w->m, &g->names);
        ossa__free(w->alloc, g, 0);
    }
    ossa__extra_index_free(&w->index);
    ossa__intern_free(w->m, &w->beside_taken);
    for (size_t i = 0; i < w->num_beside; i++) ossa__free(w->alloc, (void *)w->beside[i].path, 0);
    ossa__free(w->alloc, w->beside, 0);
    ossa__free(w->alloc, w->materials, 0);
    ossa__free(w->alloc, w->meshes, 0);
}

/* -- Geometry -- */

/* `comps` of every control point's `width`-wide record of src, as doubles;
 * v flipped (1 - v) in the second component when flip_v. */
static void per_point(fbxw *w, const float *src, uint32_t width, uint32_t comps, uint32_t n,
                      bool flip_v)
{
    double *d = ossa__fbxw_scratch(w, ((size_t)n * comps + 1) * sizeof *d);
    if (!d) return;
    for (uint32_t p = 0; p < n; p++) {
        const float *s = src + (size_t)w->point_vertex[p] * width;
        for (uint32_t c = 0; c < comps; c++) d[(size_t)p * comps + c] = s[c];
        if (flip_v) d[(size_t)p * comps + 1] = 1 - (double)s[1];
    }
    ossa__fbxw_array_f64(w, d, (size_t)n * comps);
}

static void element_head(fbxw *w, const char *element, int32_t set, const char *name,
                         const char *mapping, const char *reference)
{
    ossa__fbxw_begin(w, element);
    ossa__fbxw_i32(w, set);
    ossa__fbxw_child_i32(w, "Version", 101);
    ossa__fbxw_child_str(w, "Name", name);
    ossa__fbxw_child_str(w, "MappingInformationType", mapping);
    ossa__fbxw_child_str(w, "ReferenceInformationType", reference);
}

static void element(fbxw *w, const char *element, const char *data, const float *src,
                    uint32_t width, uint32_t comps, uint32_t n, int32_t set, const char *name)
{
    element_head(w, element, set, name, "ByVertice", "Direct");
    ossa__fbxw_begin(w, data);
    per_point(w, src, width, comps, n, strcmp(data, "UV") == 0);
    ossa__fbxw_end(w);
    ossa__fbxw_end(w);
}

/* Binormals b = -w · (n × t): the reader's w is -sign((n × t) · b)
 * (§10.3: the V flip reverses the bitangent), which gives w back. */
static void binormals(fbxw *w, const geo *g, uint32_t n)
{
    element_head(w, "LayerElementBinormal", 0, "", "ByVertice", "Direct");
    ossa__fbxw_begin(w, "Binormals");
    double *d = ossa__fbxw_scratch(w, ((size_t)n * 3 + 1) * sizeof *d);
    if (d) {
        for (uint32_t p = 0; p < n; p++) {
            size_t v = w->point_vertex[p];
            const float *nv = g->nrm + v * 3, *t = g->tan + v * 4;
            double c[3] = {(double)nv[1] * t[2] - (double)nv[2] * t[1],
                           (double)nv[2] * t[0] - (double)nv[0] * t[2],
                           (double)nv[0] * t[1] - (double)nv[1] * t[0]};
            double s = t[3] < 0 ? 1 : -1;
            for (int k = 0; k < 3; k++) d[(size_t)p * 3 + k] = s * c[k];
        }
        ossa__fbxw_array_f64(w, d, (size_t)n * 3);
    }
    ossa__fbxw_end(w);
    ossa__fbxw_end(w);
}

static void layer_ref(fbxw *w, const char *type, int32_t index)
{
    ossa__fbxw_begin(w, "LayerElement");
    ossa__fbxw_child_str(w, "Type", type);
    ossa__fbxw_child_i32(w, "TypedIndex", index);
    ossa__fbxw_end(w);
}

static void layers(fbxw *w, const geo *g, bool material)
{
    ossa__fbxw_begin(w, "Layer");
    ossa__fbxw_i32(w, 0);
    ossa__fbxw_child_i32(w, "Version", 100);
    if (g->nrm) layer_ref(w, "LayerElementNormal", 0);
    if (g->tan) {
        layer_ref(w, "LayerElementTangent", 0);
        layer_ref(w, "LayerElementBinormal", 0);
    }
    if (g->col) layer_ref(w, "LayerElementColor", 0);
    if (g->uv) layer_ref(w, "LayerElementUV", 0);
    if (material) layer_ref(w, "LayerElementMaterial", 0);
    ossa__fbxw_end(w);
    for (uint32_t s = 0; s < g->num_sets; s++) {
        ossa__fbxw_begin(w, "Layer");
        ossa__fbxw_i32(w, (int32_t)s + 1);
        ossa__fbxw_child_i32(w, "Version", 100);
        layer_ref(w, "LayerElementUV", (int32_t)s + 1);
        ossa__fbxw_end(w);
    }
}

static void geometry(fbxw *w, uint32_t mi, const char *name, uint32_t n)
{
    const ossa_model *m = w->m;
    const ossa_mesh *me = &m->meshes[mi];
    const fbxw_mesh *fm = &w->meshes[mi];
    const geo *g = w->geo;
    ossa__fbxw_begin(w, "Geometry");
    ossa__fbxw_i64(w, fm->geometry);
    ossa__fbxw_object_name(w, name, "Geometry");
    ossa__fbxw_cstr(w, "Mesh");
    ossa__fbxw_begin(w, "Vertices");
    if (g->pos) {
        per_point(w, g->pos, 3, 3, n, false);
    } else {
        double *z = ossa__fbxw_scratch(w, ((size_t)n * 3 + 1) * sizeof *z);
        if (z) memset(z, 0, (size_t)n * 3 * sizeof *z);
        if (z) ossa__fbxw_array_f64(w, z, (size_t)n * 3);
    }
    ossa__fbxw_end(w);
    ossa__fbxw_begin(w, "PolygonVertexIndex");
    int32_t *pvi = ossa__fbxw_scratch(w, ((size_t)me->num_triangles * 3 + 1) * sizeof *pvi);
    if (pvi) {
        for (uint32_t t = 0; t < me->num_triangles; t++) {
            const uint32_t *v = m->triangles[me->first_triangle + t].v;
            pvi[3 * t] = (int32_t)w->local_of[v[0]] - 1;
            pvi[3 * t + 1] = (int32_t)w->local_of[v[2]] - 1;
            pvi[3 * t + 2] = ~((int32_t)w->local_of[v[1]] - 1); /* §7.2: -(index + 1) ends it */
        }
        ossa__fbxw_array_i32(w, pvi, (size_t)me->num_triangles * 3);
    }
    ossa__fbxw_end(w);
    ossa__fbxw_child_i32(w, "GeometryVersion", 124);
    if (g->nrm) element(w, "LayerElementNormal", "Normals", g->nrm, 3, 3, n, 0, "");
    if (g->tan) {
        element(w, "LayerElementTangent", "Tangents", g->tan, 4, 3, n, 0, "");
        binormals(w, g, n);
    }
    if (g->col) element(w, "LayerElementColor", "Colors", g->col, 4, 4, n, 0, "Col");
    if (g->uv) element(w, "LayerElementUV", "UV", g->uv, 2, 2, n, 0, "UVMap");
    for (uint32_t s = 0; s < g->num_sets; s++)
        element(w, "LayerElementUV", "UV", g->sets[s], 2, 2, n, (int32_t)s + 1, g->set_names[s]);
    if (fm->material >= 0) {
        element_head(w, "LayerElementMaterial", 0, "", "AllSame", "IndexToDirect");
        static const int32_t zero = 0;
        ossa__fbxw_begin(w, "Materials");
        ossa__fbxw_array_i32(w, &zero, 1);
        ossa__fbxw_end(w);
        ossa__fbxw_end(w);
    }
    layers(w, g, fm->material >= 0);
    ossa__fbxw_end(w);
}

static void mesh_model(fbxw *w, uint32_t mi, const char *name)
{
    static const double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    const fbxw_mesh *fm = &w->meshes[mi];
    ossa__fbxw_begin(w, "Model");
    ossa__fbxw_i64(w, fm->model);
    ossa__fbxw_object_name(w, name, "Model");
    ossa__fbxw_cstr(w, "Mesh");
    ossa__fbxw_child_i32(w, "Version", 232);
    ossa__fbxw_begin(w, "Properties70");
    ossa__fbxw_p_int(w, "InheritType", "enum", 1);
    ossa__fbxw_p_int(w, "DefaultAttributeIndex", "int", 0);
    ossa__fbxw_p_vec3(w, "Lcl Translation", "Lcl Translation", "", "A", zero);
    ossa__fbxw_p_vec3(w, "Lcl Rotation", "Lcl Rotation", "", "A", zero);
    ossa__fbxw_p_vec3(w, "Lcl Scaling", "Lcl Scaling", "", "A", one);
    ossa__fbxw_end(w);
    ossa__fbxw_begin(w, "Shading");
    ossa__fbxw_bool(w, true);
    ossa__fbxw_end(w);
    ossa__fbxw_child_str(w, "Culling", "CullingOff");
    ossa__fbxw_end(w);
    ossa__fbxw_connect(w, fm->geometry, fm->model, NULL);
    ossa__fbxw_connect(w, fm->model, 0, NULL);
    if (fm->material >= 0) ossa__fbxw_connect(w, w->materials[fm->material].id, fm->model, NULL);
}

void ossa__fbxw_meshes(fbxw *w)
{
    const ossa_model *m = w->m;
    for (uint32_t i = 0; i < m->num_meshes && !w->nomem && !w->failed; i++) {
        if (!w->meshes[i].model) continue;
        char name[512];
        if (m->meshes[i].name && m->meshes[i].name[0])
            snprintf(name, sizeof name, "%s", m->meshes[i].name);
        else
            snprintf(name, sizeof name, "mesh%u", i);
        uint32_t n = gather_points(w, i);
        geometry(w, i, name, n);
        mesh_model(w, i, name);
        ossa__fbxw_skin(w, i);
        forget_points(w, n);
    }
}

/* -- Materials, textures, videos -- */

static void texture(fbxw *w, const fbxw_material *mt)
{
    ossa__fbxw_begin(w, "Video");
    ossa__fbxw_i64(w, mt->video);
    ossa__fbxw_object_name(w, mt->file, "Video");
    ossa__fbxw_cstr(w, "Clip");
    ossa__fbxw_child_str(w, "Type", "Clip");
    ossa__fbxw_begin(w, "Properties70");
    ossa__fbxw_p_string(w, "Path", "KString", "XRefUrl", mt->file);
    ossa__fbxw_end(w);
    ossa__fbxw_child_i32(w, "UseMipMap", 0);
    ossa__fbxw_child_str(w, "Filename", mt->file);
    ossa__fbxw_child_str(w, "RelativeFilename", mt->file);
    if (mt->image && w->images == OSSA_IMAGES_EMBED) {
        ossa__fbxw_begin(w, "Content");
        ossa__fbxw_raw(w, mt->image->data, mt->image->size);
        ossa__fbxw_end(w);
    }
    ossa__fbxw_end(w);

    ossa__fbxw_begin(w, "Texture");
    ossa__fbxw_i64(w, mt->texture);
    ossa__fbxw_object_name(w, mt->file, "Texture");
    ossa__fbxw_cstr(w, "");
    ossa__fbxw_child_str(w, "Type", "TextureVideoClip");
    ossa__fbxw_child_i32(w, "Version", 202);
    ossa__fbxw_begin(w, "TextureName");
    ossa__fbxw_object_name(w, mt->file, "Texture");
    ossa__fbxw_end(w);
    ossa__fbxw_begin(w, "Media");
    ossa__fbxw_object_name(w, mt->file, "Video");
    ossa__fbxw_end(w);
    ossa__fbxw_child_str(w, "FileName", mt->file);
    ossa__fbxw_child_str(w, "RelativeFilename", mt->file);
    ossa__fbxw_end(w);
    ossa__fbxw_connect(w, mt->video, mt->texture, NULL);
    ossa__fbxw_connect(w, mt->texture, mt->id, "DiffuseColor");
}

void ossa__fbxw_materials(fbxw *w)
{
    for (uint32_t i = 0; i < w->num_materials; i++) {
        const fbxw_material *mt = &w->materials[i];
        const ossa_material *d = &mt->desc;
        double rgb[3] = {d->base_color[0], d->base_color[1], d->base_color[2]};
        double shine = 10 * (1 - (double)d->roughness);
        ossa__fbxw_begin(w, "Material");
        ossa__fbxw_i64(w, mt->id);
        ossa__fbxw_object_name(w, mt->name, "Material");
        ossa__fbxw_cstr(w, "");
        ossa__fbxw_child_i32(w, "Version", 102);
        ossa__fbxw_child_str(w, "ShadingModel", "Phong");
        ossa__fbxw_child_i32(w, "MultiLayer", 0);
        ossa__fbxw_begin(w, "Properties70");
        ossa__fbxw_p_vec3(w, "DiffuseColor", "Color", "", "A", rgb);
        ossa__fbxw_p_double(w, "DiffuseFactor", "Number", "A", 1);
        ossa__fbxw_p_double(w, "Opacity", "Number", "A", d->base_color[3]);
        ossa__fbxw_p_double(w, "ReflectionFactor", "Number", "A", d->metallic);
        ossa__fbxw_p_double(w, "Shininess", "Number", "A", shine * shine);
        ossa__fbxw_p_double(w, "ShininessExponent", "Number", "A", shine * shine);
        ossa__fbxw_end(w);
        ossa__fbxw_end(w);
        if (mt->texture) texture(w, mt);
    }
}
