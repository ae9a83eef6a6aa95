/* glTF 2.0 reader: the primitives of the scene's mesh nodes become the
 * model's vertex arrays, triangles and meshes (their materials:
 * read_materials.c).
 *
 * Skinned primitives keep their vertices (they are in the space the
 * inverse bind matrices expect); other primitives are moved by their
 * node's world transform and, when that node is a joint or hangs below
 * one, bound rigidly to it in its bind pose. Everything is then turned from glTF's axes to
 * the model's (gltf.h). */
#include "formats/gltf/scene.h"

#include "core/influences.h"

#include <stdio.h>
#include <stdlib.h>

/* World transforms of nodes at rest, glTF axes, each computed once (a walk
 * up to the root per node would take time in the square of the depth). */
typedef struct world_cache {
    double (*m)[16];
    uint8_t *done;
    uint32_t *chain;
} world_cache;

static void node_world(const gltf_scene *s, world_cache *w, uint32_t node, double out[16])
{
    uint32_t n = 0;
    for (int32_t p = (int32_t)node; p >= 0 && !w->done[p]; p = s->parent[p]) w->chain[n++] = (uint32_t)p;
    while (n) {
        uint32_t c = w->chain[--n];
        int32_t p = s->parent[c];
        double *o = w->m[c];
        if (p >= 0) memcpy(o, w->m[p], sizeof w->m[p]);
        else
            for (int k = 0; k < 16; k++) o[k] = k % 5 == 0;
        if (!s->identity[c]) {
            double m[16];
            ossa__transform_to_mat4d(&s->local[c], m);
            ossa__mat4d_mul(o, m, o);
        }
        w->done[c] = 1;
    }
    memcpy(out, w->m[node], sizeof w->m[node]);
}

/* A mesh that hangs under joint `joint` (unskinned) is placed by its node
 * at rest; the model binds it to the joint in the bind pose. Where the two
 * poses differ (the skin's inverse bind matrices disagree with the nodes)
 * its world transform `w` becomes bind * inverse(rest) * w, so that the
 * joint carries it to the same place at rest and follows it in every
 * frame (raylib's Wizard: the staff under Weapon.R, the face under Head). */
static void to_bind_space(const gltf_scene *s, uint32_t joint, double w[16])
{
    if (!memcmp(s->rest_world[joint], s->bind_world[joint], sizeof s->rest_world[joint])) return;
    double inv[16], m[16];
    if (!ossa__mat4d_invert_affine(s->rest_world[joint], inv)) return;
    ossa__mat4d_mul(s->bind_world[joint], inv, m);
    ossa__mat4d_mul(m, w, w);
}

/* -- Meshes -- */

typedef struct prim {
    const cJSON *obj;
    uint32_t node, mesh, index;
    int mode;
    int64_t skin;   /* skinned with this skin, or -1 */
    int32_t rigid;  /* bound whole to this joint, or -1 */
    uint32_t first, count;
} prim;

#define MAX_SETS 8

typedef struct layout {
    bool normal, tangent, blend;
    int texcoord[MAX_SETS]; /* 0 = absent, GLTF_FLOAT or a normalized ctype */
    int color[MAX_SETS];
    uint32_t color_n[MAX_SETS];
    uint32_t influences;
    bool ubyte_weights;
    uint32_t num_custom;
    struct {
        const char *name;
        int ctype;
        uint32_t ncomp;
        bool bad;
    } custom[16];
} layout;

static int attr_set(const char *key, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(key, prefix, n) != 0 || key[n] < '0' || key[n] > '9' || key[n + 1]) return -1;
    return key[n] - '0';
}

static void merge_format(int *slot, const gltf_accessor *a)
{
    int f = a->normalized && (a->ctype == GLTF_UNSIGNED_BYTE || a->ctype == GLTF_UNSIGNED_SHORT) ? a->ctype : GLTF_FLOAT;
    if (!*slot) *slot = f;
    else if (*slot != f) *slot = GLTF_FLOAT;
}

static ossa_status scan_primitive(gltf_scene *s, prim *p, layout *L)
{
    gltf_reader *r = s->r;
    char path[80];
    snprintf(path, sizeof path, "meshes[%u].primitives[%u].attributes", p->mesh, p->index);
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(p->obj, "attributes");
    if (!cJSON_IsObject(attrs))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an object", path);
    bool joints0 = false, weights0 = false;
    for (const cJSON *a = attrs->child; a; a = a->next) {
        char ap[120];
        snprintf(ap, sizeof ap, "%s.%s", path, a->string);
        if (!gltf_is_index(a))
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an accessor index", ap);
        gltf_accessor info;
        if (ossa__gltf_accessor(r, (int64_t)a->valuedouble, ap, &info)) return OSSA_FAILED;
        if (info.count != p->count)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: %u elements, POSITION has %u", ap,
                                   info.count, p->count);
        const char *k = a->string;
        int set;
        if (((set = attr_set(k, "TEXCOORD_")) >= MAX_SETS || (set = attr_set(k, "COLOR_")) >= MAX_SETS)) {
            ossa__warn(s->m, OSSA_WARNING_LIMITED, OSSA_NO_OFFSET, 0, 0, "%s: only sets 0..%d are read (ignored)", ap,
                       MAX_SETS - 1);
            continue;
        }
        if (strcmp(k, "NORMAL") == 0) L->normal = true;
        else if (strcmp(k, "TANGENT") == 0) L->tangent = true;
        else if ((set = attr_set(k, "TEXCOORD_")) >= 0) merge_format(&L->texcoord[set], &info);
        else if ((set = attr_set(k, "COLOR_")) >= 0) {
            merge_format(&L->color[set], &info);
            if (info.ncomp > L->color_n[set]) L->color_n[set] = info.ncomp;
        } else if ((set = attr_set(k, "JOINTS_")) >= 0) joints0 |= set == 0;
        else if ((set = attr_set(k, "WEIGHTS_")) >= 0) {
            weights0 |= set == 0;
            if (info.ctype != GLTF_UNSIGNED_BYTE || !info.normalized) L->ubyte_weights = false;
            if (set == 1 && s->r->options->max_influences > 4) L->influences = 8;
        } else if (k[0] == '_' && k[1]) {
            uint32_t c = 0;
            while (c < L->num_custom && strcmp(L->custom[c].name, k + 1) != 0) c++;
            if (c == L->num_custom && c < 16) {
                L->custom[c].name = k + 1;
                L->custom[c].ctype = info.ctype;
                L->custom[c].ncomp = info.ncomp;
                L->custom[c].bad = info.ncomp > 4 || info.ctype == GLTF_UNSIGNED_INT;
                L->num_custom++;
            } else if (c < 16 && (L->custom[c].ctype != info.ctype || L->custom[c].ncomp != info.ncomp)) {
                L->custom[c].bad = true;
            }
        }
    }
    if (p->skin >= 0 && !(joints0 && weights0)) p->skin = -1;
    if (p->skin >= 0) L->blend = true;
    return OSSA_OK;
}

/* Nodes of the scene in depth-first order: the default scene's, or every
 * root node when the file has no scene. */
static ossa_status scene_nodes(gltf_scene *s, uint32_t **out, uint32_t *count)
{
    gltf_reader *r = s->r;
    uint32_t *stack = gltf_scratch(s, s->N, sizeof *stack), *order = gltf_scratch(s, s->N, sizeof *order);
    if (!stack || !order) return ossa__fail_nomem(r->error);
    uint32_t top = 0, n = 0;
    int64_t sc = -1;
    if (ossa__gltf_index(r, r->root, "scene", "scene", r->scenes.count, "scene", &sc)) return OSSA_FAILED;
    if (sc < 0 && r->scenes.count) sc = 0;
    if (sc >= 0) {
        const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(r->scenes.items[sc], "nodes");
        if (nodes && !cJSON_IsArray(nodes))
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "scenes[%lld].nodes: expected an array", (long long)sc);
        int k = 0;
        for (const cJSON *e = nodes ? nodes->child : NULL; e; e = e->next, k++) {
            if (!gltf_is_index(e) || e->valuedouble >= s->N)
                return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                       "scenes[%lld].nodes[%d]: expected a node index below %u",
                                       (long long)sc, k, s->N);
            uint32_t v = (uint32_t)e->valuedouble;
            if (s->parent[v] >= 0)
                return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                       "scenes[%lld].nodes[%d]: node %u is not a root node",
                                       (long long)sc, k, v);
            if (top < s->N) stack[top++] = v;
        }
        for (uint32_t a = 0, b = top; b > a + 1; a++, b--) { /* pop in scene order */
            uint32_t t = stack[a];
            stack[a] = stack[b - 1];
            stack[b - 1] = t;
        }
    } else {
        for (uint32_t v = s->N; v-- > 0;)
            if (s->parent[v] < 0) stack[top++] = v;
    }
    uint8_t *seen = gltf_scratch(s, s->N, 1);
    if (!seen) return ossa__fail_nomem(r->error);
    while (top) {
        uint32_t v = stack[--top];
        if (seen[v]) continue;
        seen[v] = 1;
        order[n++] = v;
        const cJSON *children = cJSON_GetObjectItemCaseSensitive(r->nodes.items[v], "children");
        uint32_t first = top;
        for (const cJSON *c = children ? children->child : NULL; c && top < s->N; c = c->next)
            stack[top++] = (uint32_t)c->valuedouble;
        for (uint32_t a = first, b = top; b > a + 1; a++, b--) { /* keep child order */
            uint32_t t = stack[a];
            stack[a] = stack[b - 1];
            stack[b - 1] = t;
        }
    }
    *out = order;
    *count = n;
    return OSSA_OK;
}

static ossa_status collect_primitives(gltf_scene *s, prim **out, uint32_t *count, layout *L)
{
    gltf_reader *r = s->r;
    uint32_t *order = NULL, n = 0;
    if (scene_nodes(s, &order, &n)) return OSSA_FAILED;
    prim *list = NULL;
    size_t cap = 0, used = 0;
    uint64_t vertices = 0;
    bool warned_targets = false;
    L->ubyte_weights = true;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t node = order[i];
        int64_t mi = s->node_mesh[node];
        if (mi < 0) continue;
        const cJSON *prims = cJSON_GetObjectItemCaseSensitive(r->meshes.items[mi], "primitives");
        if (!cJSON_IsArray(prims) || !prims->child)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "meshes[%lld].primitives: expected a non-empty array", (long long)mi);
        uint32_t pi = 0;
        for (const cJSON *po = prims->child; po; po = po->next, pi++) {
            char path[64];
            snprintf(path, sizeof path, "meshes[%lld].primitives[%u]", (long long)mi, pi);
            if (!cJSON_IsObject(po)) return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an object", path);
            const cJSON *mode = cJSON_GetObjectItemCaseSensitive(po, "mode");
            int md = GLTF_TRIANGLES;
            if (mode) {
                if (!gltf_is_index(mode) || mode->valuedouble > 6)
                    return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.mode: expected 0..6", path);
                md = (int)mode->valuedouble;
            }
            if (md < GLTF_TRIANGLES) {
                ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s: points and lines (mode %d) skipped", path, md);
                continue;
            }
            if (cJSON_GetObjectItemCaseSensitive(po, "targets") && !warned_targets) {
                ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s: morph targets are not supported (ignored)", path);
                warned_targets = true;
            }
            const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(po, "attributes");
            const cJSON *pos = cJSON_GetObjectItemCaseSensitive(attrs, "POSITION");
            if (!pos) {
                ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s: no POSITION attribute: skipped", path);
                continue;
            }
            char pp[96];
            snprintf(pp, sizeof pp, "%s.attributes.POSITION", path);
            gltf_accessor info;
            if (!gltf_is_index(pos)) return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an accessor index", pp);
            if (ossa__gltf_accessor(r, (int64_t)pos->valuedouble, pp, &info)) return OSSA_FAILED;
            if (info.ncomp != 3)
                return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected a VEC3 accessor", pp);
            prim *list2 = ossa__arena_grow(ossa__model_arena(s->m), list, used, &cap, sizeof *list);
            if (!list2) return ossa__fail_nomem(r->error);
            list = list2;
            prim *p = &list[used++];
            memset(p, 0, sizeof *p);
            p->obj = po;
            p->node = node;
            p->mesh = (uint32_t)mi;
            p->index = pi;
            p->mode = md;
            p->skin = s->node_skin[node];
            p->count = info.count;
            p->first = (uint32_t)vertices;
            vertices += info.count;
            /* Decoded vertices take about 100 bytes each: refuse counts out
             * of proportion to the file (one accessor may be used by any
             * number of primitives). */
            if (vertices > UINT32_MAX / 2 || vertices * 100 > ((uint64_t)256 << 20) + (uint64_t)r->file_size * 256)
                return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED,
                                       "%s: %llu vertices in all are out of proportion to the file", path,
                                       (unsigned long long)vertices);
            if (scan_primitive(s, p, L)) return OSSA_FAILED;
            p->rigid = -1;
            if (p->skin < 0) {
                int32_t jn = s->joint_of[node] >= 0 ? (int32_t)node : gltf_joint_parent(s, node);
                if (jn >= 0) {
                    p->rigid = s->joint_of[jn];
                    L->blend = true;
                }
            }
        }
    }
    /* 4 influences, or up to max_influences when JOINTS_1 has more. */
    uint32_t wants = ossa__influence_max(r->options->max_influences);
    bool second_set = L->influences == 8;
    L->influences = wants > 4 && !second_set ? 4 : wants;
    *out = list;
    *count = (uint32_t)used;
    return OSSA_OK;
}

typedef struct arrays {
    int pos, nrm, tan, idx, wgt;
    int tex[MAX_SETS], col[MAX_SETS], custom[16];
} arrays;

static int new_array(gltf_scene *s, ossa_vertex_type type, ossa_component fmt, uint32_t size, const char *name)
{
    if (!ossa_model_add_vertex_array(s->m, type, fmt, size, name, NULL, s->r->error)) return -2;
    return (int)s->m->num_vertex_arrays - 1;
}

static ossa_component component_of(int ctype)
{
    switch (ctype) {
    case GLTF_BYTE: return OSSA_BYTE;
    case GLTF_UNSIGNED_BYTE: return OSSA_UBYTE;
    case GLTF_SHORT: return OSSA_SHORT;
    case GLTF_UNSIGNED_SHORT: return OSSA_USHORT;
    case GLTF_UNSIGNED_INT: return OSSA_UINT;
    default: return OSSA_FLOAT;
    }
}

static ossa_status make_arrays(gltf_scene *s, const layout *L, arrays *A, uint32_t total)
{
    if (ossa_model_set_num_vertices(s->m, total, s->r->error)) return OSSA_FAILED;
    for (int k = 0; k < MAX_SETS; k++) A->tex[k] = A->col[k] = -1;
    for (int k = 0; k < 16; k++) A->custom[k] = -1;
    A->nrm = A->tan = A->idx = A->wgt = -1;
    bool fail = false;
    fail |= (A->pos = new_array(s, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "")) < -1;
    for (int k = 0; k < MAX_SETS; k++)
        if (L->texcoord[k]) fail |= (A->tex[k] = new_array(s, OSSA_VERTEX_TEXCOORD, component_of(L->texcoord[k]), 2, "")) < -1;
    if (L->normal) fail |= (A->nrm = new_array(s, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, "")) < -1;
    if (L->tangent) fail |= (A->tan = new_array(s, OSSA_VERTEX_TANGENT, OSSA_FLOAT, 4, "")) < -1;
    if (L->blend) {
        ossa_component f = s->J <= 256 ? OSSA_UBYTE : s->J <= 65536 ? OSSA_USHORT : OSSA_UINT;
        fail |= (A->idx = new_array(s, OSSA_VERTEX_BLENDINDEXES, f, L->influences, "")) < -1;
        fail |= (A->wgt = new_array(s, OSSA_VERTEX_BLENDWEIGHTS, L->ubyte_weights ? OSSA_UBYTE : OSSA_FLOAT,
                                    L->influences, "")) < -1;
    }
    for (int k = 0; k < MAX_SETS; k++)
        if (L->color[k]) {
            fail |= (A->col[k] = new_array(s, OSSA_VERTEX_COLOR, component_of(L->color[k]),
                                           L->color_n[k] == 3 ? 3 : 4, "")) < -1;
            s->m->flags |= OSSA_MODEL_LINEAR_COLORS; /* glTF's colours are linear */
        }
    for (uint32_t k = 0; k < L->num_custom; k++)
        if (!L->custom[k].bad)
            fail |= (A->custom[k] = new_array(s, OSSA_VERTEX_CUSTOM, component_of(L->custom[k].ctype),
                                              L->custom[k].ncomp, L->custom[k].name)) < -1;
    return fail ? OSSA_FAILED : OSSA_OK;
}

static void *array_at(gltf_scene *s, int idx, uint32_t vertex)
{
    ossa_vertex_array *a = &s->m->vertex_arrays[idx];
    return (unsigned char *)a->data + (size_t)vertex * a->size * ossa_component_size(a->format);
}

/* Reads attribute `key` of a primitive, or gives *out = NULL when absent. */
static ossa_status attribute(gltf_scene *s, const prim *p, const char *key, bool raw, gltf_accessor *info, void **out)
{
    *out = NULL;
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(p->obj, "attributes");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(attrs, key);
    if (!a) return OSSA_OK;
    char path[128];
    snprintf(path, sizeof path, "meshes[%u].primitives[%u].attributes.%s", p->mesh, p->index, key);
    if (raw) return ossa__gltf_accessor_raw(s->r, (int64_t)a->valuedouble, path, info, (unsigned char **)out);
    return ossa__gltf_accessor_floats(s->r, (int64_t)a->valuedouble, path, info, (float **)out);
}

static void mat3_apply(const double m[16], const float in[3], float out[3])
{
    double v[3];
    for (int row = 0; row < 3; row++) v[row] = m[row] * in[0] + m[4 + row] * in[1] + m[8 + row] * in[2];
    for (int k = 0; k < 3; k++) out[k] = (float)v[k];
}

static void normalize3(float v[3])
{
    double n = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    if (n > 0 && fabs(n - 1) > 1e-6)
        for (int k = 0; k < 3; k++) v[k] = (float)(v[k] / n);
}

/* Positions, normals and tangents: moved by the node for unskinned
 * primitives, then turned into the model's axes. */
static ossa_status fill_vectors(gltf_scene *s, const prim *p, const arrays *A, bool moved, const double w[16])
{
    gltf_accessor info;
    float *v;
    double nm[16];
    if (moved) { /* normals take the inverse transpose */
        double inv[16];
        if (!ossa__mat4d_invert_affine(w, inv)) memcpy(inv, w, sizeof inv);
        for (int c = 0; c < 3; c++)
            for (int row = 0; row < 3; row++) nm[c * 4 + row] = inv[row * 4 + c];
    }
    if (attribute(s, p, "POSITION", false, &info, (void **)&v)) return OSSA_FAILED;
    float *out = array_at(s, A->pos, p->first);
    for (uint32_t i = 0; i < p->count; i++) {
        float q[3] = {v[i * 3], v[i * 3 + 1], v[i * 3 + 2]};
        if (moved) {
            mat3_apply(w, q, q);
            for (int k = 0; k < 3; k++) q[k] = (float)(q[k] + w[12 + k]);
        }
        gltf_vec_from_gltf(q, out + i * 3);
    }
    ossa__free(s->r->alloc, v, 0);
    if (A->nrm >= 0) {
        if (attribute(s, p, "NORMAL", false, &info, (void **)&v)) return OSSA_FAILED;
        out = array_at(s, A->nrm, p->first);
        for (uint32_t i = 0; v && i < p->count; i++) {
            float q[3] = {0, 0, 0};
            for (uint32_t k = 0; k < 3 && k < info.ncomp; k++) q[k] = v[i * info.ncomp + k];
            if (moved) {
                mat3_apply(nm, q, q);
                normalize3(q);
            }
            gltf_vec_from_gltf(q, out + i * 3);
        }
        ossa__free(s->r->alloc, v, 0);
    }
    if (A->tan >= 0) {
        if (attribute(s, p, "TANGENT", false, &info, (void **)&v)) return OSSA_FAILED;
        out = array_at(s, A->tan, p->first);
        for (uint32_t i = 0; v && i < p->count; i++) {
            float q[4] = {0, 0, 0, 1};
            for (uint32_t k = 0; k < 4 && k < info.ncomp; k++) q[k] = v[i * info.ncomp + k];
            if (moved) {
                mat3_apply(w, q, q);
                normalize3(q);
            }
            gltf_vec_from_gltf(q, out + i * 4);
            out[i * 4 + 3] = q[3];
        }
        ossa__free(s->r->alloc, v, 0);
    }
    return OSSA_OK;
}

/* TEXCOORD_n, COLOR_n and custom attributes: copied as stored when the
 * model keeps their integer format, else as floats. */
static ossa_status fill_plain(gltf_scene *s, const prim *p, const layout *L, const arrays *A)
{
    char key[80];
    for (int k = 0; k < MAX_SETS * 2; k++) {
        bool color = k >= MAX_SETS;
        int set = k % MAX_SETS, idx = color ? A->col[set] : A->tex[set];
        if (idx < 0) continue;
        snprintf(key, sizeof key, "%s%d", color ? "COLOR_" : "TEXCOORD_", set);
        ossa_vertex_array *arr = &s->m->vertex_arrays[idx];
        bool raw = arr->format != OSSA_FLOAT;
        gltf_accessor info;
        void *v;
        if (attribute(s, p, key, raw, &info, &v)) return OSSA_FAILED;
        unsigned char *out = array_at(s, idx, p->first);
        size_t cs = ossa_component_size(arr->format);
        for (uint32_t i = 0; v && i < p->count; i++)
            for (uint32_t c = 0; c < arr->size; c++) {
                unsigned char *o = out + ((size_t)i * arr->size + c) * cs;
                if (c < info.ncomp) {
                    if (raw) memcpy(o, (unsigned char *)v + ((size_t)i * info.ncomp + c) * cs, cs);
                    else memcpy(o, (float *)v + (size_t)i * info.ncomp + c, 4);
                } else { /* alpha of an RGB colour */
                    float one = 1;
                    uint16_t max16 = 65535;
                    if (arr->format == OSSA_FLOAT) memcpy(o, &one, 4);
                    else if (arr->format == OSSA_USHORT) memcpy(o, &max16, 2);
                    else *o = 255;
                }
            }
        ossa__free(s->r->alloc, v, 0);
    }
    for (uint32_t c = 0; c < L->num_custom; c++) {
        if (A->custom[c] < 0) continue;
        snprintf(key, sizeof key, "_%s", L->custom[c].name);
        gltf_accessor info;
        void *v;
        if (attribute(s, p, key, true, &info, &v)) return OSSA_FAILED;
        if (v) memcpy(array_at(s, A->custom[c], p->first), v, (size_t)p->count * info.ncomp * info.csize);
        ossa__free(s->r->alloc, v, 0);
    }
    return OSSA_OK;
}

/* One vertex's influences into the blend arrays: float weights
 * renormalized by the shared step (which keeps weights that sum to 1 as
 * they are), ubyte ones quantized by the model's rule
 * (ossa__ubyte_weights), which gives back the file's bytes when they sum
 * to 255 (checked for every 4 bytes that do). */
static void store_influences(gltf_scene *s, const arrays *A, uint32_t vertex, const ossa__influence *p,
                             uint32_t n)
{
    ossa_vertex_array *ia = &s->m->vertex_arrays[A->idx], *wa = &s->m->vertex_arrays[A->wgt];
    uint32_t size = ia->size;
    for (uint32_t k = 0; k < n; k++) {
        if (ia->format == OSSA_UBYTE) ((uint8_t *)ia->data)[(size_t)vertex * size + k] = (uint8_t)p[k].joint;
        else if (ia->format == OSSA_USHORT) ((uint16_t *)ia->data)[(size_t)vertex * size + k] = (uint16_t)p[k].joint;
        else ((uint32_t *)ia->data)[(size_t)vertex * size + k] = p[k].joint;
    }
    float w[OSSA_MAX_COMPONENTS];
    for (uint32_t k = 0; k < n; k++) w[k] = (float)p[k].weight;
    if (wa->format == OSSA_FLOAT) {
        ossa__influences_normalize(p, n, size, w);
        memcpy((float *)wa->data + (size_t)vertex * size, w, n * sizeof *w);
    } else {
        ossa__ubyte_weights(w, n, (uint8_t *)wa->data + (size_t)vertex * size);
    }
}

static ossa_status fill_blend(gltf_scene *s, const prim *p, const arrays *A)
{
    if (A->idx < 0) return OSSA_OK;
    uint32_t size = s->m->vertex_arrays[A->idx].size;
    if (p->skin < 0) {
        int32_t j = p->rigid;
        if (j < 0 && !s->warned_static) {
            ossa__warn(s->m, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0,
                       "meshes[%u]: not skinned and not below a joint: its vertices have no "
                       "blend weights",
                       p->mesh);
            s->warned_static = true;
        }
        ossa__influence rigid = {(uint32_t)j, 0, 1};
        for (uint32_t i = 0; j >= 0 && i < p->count; i++) store_influences(s, A, p->first + i, &rigid, 1);
        return OSSA_OK;
    }
    uint32_t sets = size > 4 ? 2 : 1;
    float *jv[2] = {NULL, NULL}, *wv[2] = {NULL, NULL};
    gltf_accessor ji[2], wi[2];
    ossa_status st = OSSA_OK;
    for (uint32_t k = 0; k < sets && !st; k++) {
        char jk[32], wk[32];
        snprintf(jk, sizeof jk, "JOINTS_%u", k);
        snprintf(wk, sizeof wk, "WEIGHTS_%u", k);
        st = attribute(s, p, jk, false, &ji[k], (void **)&jv[k]);
        if (!st) st = attribute(s, p, wk, false, &wi[k], (void **)&wv[k]);
        if (!st && (!jv[k] != !wv[k] || (jv[k] && (ji[k].ncomp != 4 || wi[k].ncomp != 4))))
            st = ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT,
                                 "meshes[%u].primitives[%u]: %s and %s must both be VEC4", p->mesh,
                                 p->index, jk, wk);
    }
    const int32_t *map = s->skin_map[p->skin];
    uint32_t map_n = s->skin_size[p->skin];
    /* The shared limit, keeping glTF's slot order: every positive weight
     * counts, repeated joints are summed, the smallest go past `size`. */
    ossa__influence_rule rule = {size, 0, true};
    for (uint32_t i = 0; !st && i < p->count; i++) {
        ossa__influence pairs[8];
        uint32_t n = 0;
        for (uint32_t k = 0; k < sets * 4; k++) {
            uint32_t set = k / 4, c = k % 4;
            if (!jv[set]) continue;
            float wt = wv[set][i * 4 + c], jf = jv[set][i * 4 + c];
            if (!(wt > 0)) continue;
            if (!(jf >= 0) || jf >= (float)map_n) {
                st = ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT,
                                     "meshes[%u].primitives[%u].attributes.JOINTS_%u: vertex %u names "
                                     "joint %.0f, skin %lld has %u",
                                     p->mesh, p->index, set, i, (double)jf, (long long)p->skin, map_n);
                break;
            }
            pairs[n++] = (ossa__influence){(uint32_t)map[(uint32_t)jf], k, wt};
        }
        if (st) break;
        n = n ? ossa__influences_limit(pairs, n, &rule, NULL) : 0;
        store_influences(s, A, p->first + i, pairs, n);
    }
    for (uint32_t k = 0; k < 2; k++) {
        ossa__free(s->r->alloc, jv[k], 0);
        ossa__free(s->r->alloc, wv[k], 0);
    }
    return st;
}

typedef struct tri_list {
    ossa_triangle *t;
    size_t n, cap;
} tri_list;

static ossa_status fill_triangles(gltf_scene *s, const prim *p, bool flip, tri_list *out, uint32_t *added)
{
    gltf_reader *r = s->r;
    const cJSON *ind = cJSON_GetObjectItemCaseSensitive(p->obj, "indices");
    uint32_t *idx = NULL, n = p->count;
    char path[80];
    snprintf(path, sizeof path, "meshes[%u].primitives[%u].indices", p->mesh, p->index);
    if (ind) {
        if (!gltf_is_index(ind)) return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an accessor index", path);
        gltf_accessor info;
        unsigned char *raw;
        if (ossa__gltf_accessor_raw(r, (int64_t)ind->valuedouble, path, &info, &raw)) return OSSA_FAILED;
        if (info.ncomp != 1 || (info.ctype != GLTF_UNSIGNED_BYTE && info.ctype != GLTF_UNSIGNED_SHORT &&
                                info.ctype != GLTF_UNSIGNED_INT)) {
            ossa__free(r->alloc, raw, 0);
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s: expected SCALAR unsigned byte, short or int indices", path);
        }
        n = info.count;
        idx = ossa__alloc(r->alloc, (size_t)n * sizeof *idx);
        if (!idx) {
            ossa__free(r->alloc, raw, 0);
            return ossa__fail_nomem(r->error);
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = info.ctype == GLTF_UNSIGNED_BYTE ? raw[i]
                         : info.ctype == GLTF_UNSIGNED_SHORT ? ((uint16_t *)(void *)raw)[i]
                                                            : ((uint32_t *)(void *)raw)[i];
            if (v >= p->count) {
                ossa__free(r->alloc, raw, 0);
                ossa__free(r->alloc, idx, 0);
                return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                       "%s: index %u (element %u) is out of range (%u vertices)", path,
                                       v, i, p->count);
            }
            idx[i] = v;
        }
        ossa__free(r->alloc, raw, 0);
    }
    uint32_t count = p->mode == GLTF_TRIANGLES ? n / 3 : n >= 3 ? n - 2 : 0;
    if (p->mode == GLTF_TRIANGLES && n % 3)
        ossa__warn(s->m, OSSA_WARNING_TRUNCATED, OSSA_NO_OFFSET, 0, 0, "%s: %u indices are not a multiple of 3", path, n);
    /* An index accessor may be shared by any number of primitives: refuse
     * triangle counts out of proportion to the file (every triangle takes
     * at least 3 bytes of it otherwise). */
    uint64_t most = ((((uint64_t)64 << 20) + (uint64_t)r->file_size * 64) / sizeof(ossa_triangle));
    if (most > UINT32_MAX) most = UINT32_MAX;
    if ((uint64_t)out->n + count > most) {
        ossa__free(r->alloc, idx, 0);
        return ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED,
                               "%s: %llu triangles in all are out of proportion to the file", path,
                               (unsigned long long)out->n + count);
    }
    if (out->n + count > out->cap) {
        size_t cap = out->cap * 2 > out->n + count ? out->cap * 2 : out->n + count;
        if (cap > most) cap = (size_t)most;
        ossa_triangle *t = ossa__arena_array(ossa__model_arena(s->m), cap, sizeof *t);
        if (!t) {
            ossa__free(r->alloc, idx, 0);
            return ossa__fail_nomem(r->error);
        }
        if (out->n) memcpy(t, out->t, out->n * sizeof *t);
        out->t = t;
        out->cap = cap;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint32_t a, b, c;
        if (p->mode == GLTF_TRIANGLES) a = i * 3, b = i * 3 + 1, c = i * 3 + 2;
        else if (p->mode == GLTF_TRIANGLE_STRIP) {
            if (i % 2) a = i + 1, b = i, c = i + 2;
            else a = i, b = i + 1, c = i + 2;
        } else a = i + 1, b = i + 2, c = 0;
        if (idx) a = idx[a], b = idx[b], c = idx[c];
        /* counter-clockwise glTF -> clockwise ossa, unless a mirroring
         * node transform has turned the triangle over already */
        ossa_triangle *o = &out->t[out->n++];
        o->v[0] = p->first + a;
        o->v[1] = p->first + (flip ? b : c);
        o->v[2] = p->first + (flip ? c : b);
    }
    ossa__free(r->alloc, idx, 0);
    *added = count;
    return OSSA_OK;
}

ossa_status ossa__gltf_read_meshes(gltf_scene *s)
{
    gltf_reader *r = s->r;
    layout L;
    memset(&L, 0, sizeof L);
    prim *prims = NULL;
    uint32_t np = 0;
    if (collect_primitives(s, &prims, &np, &L)) return OSSA_FAILED;
    if (!np) return OSSA_OK;
    uint32_t total = prims[np - 1].first + prims[np - 1].count;
    arrays A;
    if (make_arrays(s, &L, &A, total)) return OSSA_FAILED;
    tri_list tris = {NULL, 0, 0};
    uint32_t *tri_counts = gltf_scratch(s, np, sizeof *tri_counts);
    world_cache wc;
    wc.m = ossa__alloc(r->alloc, (size_t)s->N * sizeof *wc.m);
    wc.done = ossa__alloc(r->alloc, s->N);
    wc.chain = ossa__alloc(r->alloc, (size_t)s->N * sizeof *wc.chain);
    ossa_status st = OSSA_OK;
    if (!tri_counts || !wc.m || !wc.done || !wc.chain) st = ossa__fail_nomem(r->error);
    else memset(wc.done, 0, s->N);
    for (uint32_t i = 0; i < np && !st; i++) {
        prim *p = &prims[i];
        double w[16];
        bool moved = p->skin < 0;
        node_world(s, &wc, p->node, w);
        if (p->rigid >= 0) to_bind_space(s, (uint32_t)p->rigid, w);
        double det = w[0] * (w[5] * w[10] - w[9] * w[6]) - w[4] * (w[1] * w[10] - w[9] * w[2]) +
                     w[8] * (w[1] * w[6] - w[5] * w[2]);
        if (fill_vectors(s, p, &A, moved, w) || fill_plain(s, p, &L, &A) || fill_blend(s, p, &A) ||
            fill_triangles(s, p, moved && det < 0, &tris, &tri_counts[i]))
            st = OSSA_FAILED;
    }
    ossa__free(r->alloc, wc.m, 0);
    ossa__free(r->alloc, wc.done, 0);
    ossa__free(r->alloc, wc.chain, 0);
    if (st) return st;
    if (ossa_model_set_triangles(s->m, (uint32_t)tris.n, tris.t, r->error)) return OSSA_FAILED;
    uint32_t first_tri = 0;
    for (uint32_t i = 0; i < np; i++) {
        prim *p = &prims[i];
        const char *mname = ossa__gltf_string(r->meshes.items[p->mesh], "name");
        if (!mname || !mname[0]) mname = ossa__gltf_string(r->nodes.items[p->node], "name");
        if (!mname) mname = "";
        char name[256];
        if (p->index) snprintf(name, sizeof name, "%s.%u", mname, p->index);
        else snprintf(name, sizeof name, "%s", mname);
        const char *material;
        if (ossa__gltf_material(s, p->obj, &material) ||
            ossa_model_add_mesh(s->m, name, material, p->first, p->count, first_tri, tri_counts[i],
                                r->error) < 0)
            return OSSA_FAILED;
        first_tri += tri_counts[i];
    }
    ossa__gltf_materials_done(s);
    return OSSA_OK;
}
