/* glTF 2.0 reader, second half: nodes, skins, meshes and animations become
 * the model.
 *
 * Joints are the nodes of every skin plus every node an animation moves,
 * ordered parents first (a skin's own order is kept where it allows).
 * Nodes that are not joints but sit above a joint (an "Armature" node, a
 * Z-up correction) are folded into that joint's transform, at rest and in
 * every frame. The bind pose comes from the skin's inverse bind matrices
 * where they disagree with the nodes' rest transforms; frames hold the
 * rest transform in channels no animation drives. Skinned primitives keep
 * their vertices (they are in the space the inverse bind matrices expect);
 * other primitives are moved by their node's world transform and, when
 * that node is a joint or hangs below one, bound rigidly to it. Animations
 * are sampled on a frame grid: the keys' own rate when they are evenly
 * spaced, else the load options' rate (30 fps by default). Everything is
 * then turned from glTF's axes to the model's (gltf.h). */
#include "formats/gltf/read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct scene {
    gltf_reader *r;
    ossa_model *m;
    uint32_t N;
    int32_t *parent;      /* per node */
    ossa_transform *local; /* per node, glTF axes */
    uint8_t *identity;    /* per node: local is the identity */
    int64_t *node_mesh, *node_skin;
    int32_t *joint_of;    /* per node: joint index or -1 */
    int32_t *joint_above; /* per node: nearest ancestor that is a joint, or -1 */
    uint32_t J;
    uint32_t *node_of;    /* per joint */
    uint8_t *has_fold;    /* per joint */
    double (*fold)[16];   /* per joint: the non-joint nodes above it */
    ossa_transform *rest; /* per joint: folded rest transform */
    ossa_transform *bind; /* per joint: bind transform */
    int32_t **skin_map;   /* per skin: joint list as model joints */
    uint32_t *skin_size;
    bool warned_static;
} scene;

static void *scratch(scene *s, size_t count, size_t elem)
{
    return ossa__arena_array(ossa__model_arena(s->m), count ? count : 1, elem);
}

static bool is_index(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 4294967295.0 &&
           v->valuedouble == floor(v->valuedouble);
}

static bool transform_is_identity(const ossa_transform *t)
{
    return t->translation[0] == 0 && t->translation[1] == 0 && t->translation[2] == 0 &&
           t->rotation[0] == 0 && t->rotation[1] == 0 && t->rotation[2] == 0 &&
           t->rotation[3] == 1 && t->scale[0] == 1 && t->scale[1] == 1 && t->scale[2] == 1;
}

/* -- Nodes -- */

static ossa_status read_node(scene *s, uint32_t i)
{
    gltf_reader *r = s->r;
    const cJSON *n = r->nodes.items[i];
    char path[32];
    snprintf(path, sizeof path, "nodes[%u]", i);
    ossa_transform t = ossa_transform_identity();
    const cJSON *matrix = cJSON_GetObjectItemCaseSensitive(n, "matrix");
    if (matrix) {
        float mf[16];
        if (ossa__gltf_floats(r, n, "matrix", path, mf, 16)) return OSSA_FAILED;
        if (cJSON_GetObjectItemCaseSensitive(n, "translation") ||
            cJSON_GetObjectItemCaseSensitive(n, "rotation") ||
            cJSON_GetObjectItemCaseSensitive(n, "scale"))
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s: has both a matrix and translation/rotation/scale", path);
        double md[16];
        for (int k = 0; k < 16; k++) md[k] = mf[k];
        ossa__mat4d_to_transform(md, &t);
    } else if (ossa__gltf_floats(r, n, "translation", path, t.translation, 3) ||
               ossa__gltf_floats(r, n, "rotation", path, t.rotation, 4) ||
               ossa__gltf_floats(r, n, "scale", path, t.scale, 3)) {
        return OSSA_FAILED;
    }
    ossa__quat_tidy(t.rotation);
    s->local[i] = t;
    s->identity[i] = transform_is_identity(&t);
    s->node_mesh[i] = s->node_skin[i] = -1;
    if (ossa__gltf_index(r, n, "mesh", path, r->meshes.count, "mesh", &s->node_mesh[i]) ||
        ossa__gltf_index(r, n, "skin", path, r->skins.count, "skin", &s->node_skin[i]))
        return OSSA_FAILED;
    const cJSON *children = cJSON_GetObjectItemCaseSensitive(n, "children");
    if (!children) return OSSA_OK;
    if (!cJSON_IsArray(children))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.children: expected an array", path);
    int k = 0;
    for (const cJSON *c = children->child; c; c = c->next, k++) {
        if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble >= s->N ||
            c->valuedouble != floor(c->valuedouble))
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s.children[%d]: expected a node index below %u", path, k, s->N);
        uint32_t ci = (uint32_t)c->valuedouble;
        if (ci == i)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.children[%d]: the node itself", path, k);
        if (s->parent[ci] >= 0)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s.children[%d]: node %u already has the parent %d", path, k,
                                   ci, s->parent[ci]);
        s->parent[ci] = (int32_t)i;
    }
    return OSSA_OK;
}

static ossa_status read_nodes(scene *s)
{
    s->N = s->r->nodes.count;
    s->parent = scratch(s, s->N, sizeof *s->parent);
    s->local = scratch(s, s->N, sizeof *s->local);
    s->identity = scratch(s, s->N, 1);
    s->node_mesh = scratch(s, s->N, sizeof *s->node_mesh);
    s->node_skin = scratch(s, s->N, sizeof *s->node_skin);
    s->joint_of = scratch(s, s->N, sizeof *s->joint_of);
    uint32_t *stamp = scratch(s, s->N, sizeof *stamp);
    if (!s->parent || !s->local || !s->identity || !s->node_mesh || !s->node_skin ||
        !s->joint_of || !stamp)
        return ossa__fail_nomem(s->r->error);
    for (uint32_t i = 0; i < s->N; i++) s->parent[i] = -1, s->joint_of[i] = -1;
    for (uint32_t i = 0; i < s->N; i++)
        if (read_node(s, i)) return OSSA_FAILED;
    /* With one parent per node, a loop is a walk up that meets itself. */
    for (uint32_t i = 0; i < s->N; i++) {
        for (int32_t n = (int32_t)i; n >= 0 && stamp[n] != i + 1; n = s->parent[n]) {
            if (stamp[n]) break; /* reached a node checked before */
            stamp[n] = i + 1;
            if (s->parent[n] >= 0 && stamp[s->parent[n]] == i + 1)
                return ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT,
                                       "nodes[%u]: the node hierarchy has a loop through node %d",
                                       i, s->parent[n]);
        }
    }
    return OSSA_OK;
}

/* -- Joints -- */

static int32_t joint_parent(const scene *s, uint32_t node)
{
    return s->joint_above[node];
}

/* Fills joint_above once the joints are marked (-2), in time linear in the
 * nodes (`chain` has room for them all); adding them keeps it valid. */
static void find_joints_above(scene *s, uint32_t *chain)
{
    uint8_t *done = (uint8_t *)(chain + s->N); /* N bytes after the chain */
    memset(done, 0, s->N);
    for (uint32_t i = 0; i < s->N; i++) {
        uint32_t n = 0;
        for (int32_t p = (int32_t)i; p >= 0 && !done[p]; p = s->parent[p]) chain[n++] = (uint32_t)p;
        while (n) {
            uint32_t c = chain[--n];
            int32_t p = s->parent[c];
            s->joint_above[c] = p < 0 ? -1 : s->joint_of[p] != -1 ? p : s->joint_above[p];
            done[c] = 1;
        }
    }
}

/* Adds `node` (marked -2) after any marked ancestor not yet added. Above
 * a joint already added there is none (it was added after them). */
static void add_joint_node(scene *s, uint32_t node, uint32_t *chain)
{
    uint32_t n = 0;
    for (int32_t p = (int32_t)node; p >= 0 && s->joint_of[p] < 0; p = s->joint_above[p])
        if (s->joint_of[p] == -2) chain[n++] = (uint32_t)p;
    while (n) {
        uint32_t v = chain[--n];
        s->joint_of[v] = (int32_t)s->J;
        s->node_of[s->J++] = v;
    }
}

static ossa_status mark_animated(scene *s)
{
    gltf_reader *r = s->r;
    for (uint32_t a = 0; a < r->animations.count; a++) {
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(r->animations.items[a], "channels");
        if (!cJSON_IsArray(channels)) continue; /* reported when the animation is read */
        for (const cJSON *c = channels->child; c; c = c->next) {
            const cJSON *target = cJSON_GetObjectItemCaseSensitive(c, "target");
            const cJSON *node = cJSON_GetObjectItemCaseSensitive(target, "node");
            const char *path = ossa__gltf_string(target, "path");
            if (!cJSON_IsNumber(node) || !path || node->valuedouble < 0 || node->valuedouble >= s->N ||
                node->valuedouble != floor(node->valuedouble))
                continue;
            if (strcmp(path, "translation") == 0 || strcmp(path, "rotation") == 0 ||
                strcmp(path, "scale") == 0)
                if (s->joint_of[(uint32_t)node->valuedouble] == -1)
                    s->joint_of[(uint32_t)node->valuedouble] = -2;
        }
    }
    return OSSA_OK;
}

static ossa_status read_skins_and_joints(scene *s)
{
    gltf_reader *r = s->r;
    s->skin_map = scratch(s, r->skins.count, sizeof *s->skin_map);
    s->skin_size = scratch(s, r->skins.count, sizeof *s->skin_size);
    s->node_of = scratch(s, s->N, sizeof *s->node_of);
    s->joint_above = scratch(s, s->N, sizeof *s->joint_above);
    uint32_t *chain = scratch(s, s->N, sizeof *chain + 1);
    if (!s->skin_map || !s->skin_size || !s->node_of || !s->joint_above || !chain)
        return ossa__fail_nomem(r->error);
    for (uint32_t k = 0; k < r->skins.count; k++) {
        const cJSON *joints = cJSON_GetObjectItemCaseSensitive(r->skins.items[k], "joints");
        if (!cJSON_IsArray(joints) || !joints->child)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "skins[%u].joints: expected a non-empty array", k);
        uint32_t n = 0;
        for (const cJSON *j = joints->child; j; j = j->next, n++) {
            if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble >= s->N ||
                j->valuedouble != floor(j->valuedouble))
                return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                       "skins[%u].joints[%u]: expected a node index below %u", k, n, s->N);
            if (s->joint_of[(uint32_t)j->valuedouble] == -1) s->joint_of[(uint32_t)j->valuedouble] = -2;
        }
        s->skin_size[k] = n;
        s->skin_map[k] = scratch(s, n, sizeof **s->skin_map);
        if (!s->skin_map[k]) return ossa__fail_nomem(r->error);
    }
    mark_animated(s);
    find_joints_above(s, chain);
    /* Skin order first (parents pulled in ahead), then animated nodes. */
    for (uint32_t k = 0; k < r->skins.count; k++) {
        const cJSON *joints = cJSON_GetObjectItemCaseSensitive(r->skins.items[k], "joints");
        for (const cJSON *j = joints->child; j; j = j->next) add_joint_node(s, (uint32_t)j->valuedouble, chain);
    }
    for (uint32_t n = 0; n < s->N; n++)
        if (s->joint_of[n] == -2) add_joint_node(s, n, chain);
    for (uint32_t k = 0; k < r->skins.count; k++) {
        const cJSON *joints = cJSON_GetObjectItemCaseSensitive(r->skins.items[k], "joints");
        uint32_t n = 0;
        for (const cJSON *j = joints->child; j; j = j->next, n++)
            s->skin_map[k][n] = s->joint_of[(uint32_t)j->valuedouble];
    }
    return OSSA_OK;
}

/* Products of the non-joint nodes from each non-joint node up to the
 * nearest joint above it (or the root), outermost first, computed once per
 * node: a walk per joint would take time in the square of the depth. */
typedef struct fold_cache {
    double (*m)[16];
    uint8_t *any, *done;
    uint32_t *chain;
} fold_cache;

/* The product of the non-joint nodes between a joint and its joint
 * parent (the root for root joints), outermost first. */
static bool fold_of(const scene *s, fold_cache *f, uint32_t node, double out[16])
{
    uint32_t n = 0;
    for (int32_t p = s->parent[node]; p >= 0 && s->joint_of[p] < 0 && !f->done[p]; p = s->parent[p])
        f->chain[n++] = (uint32_t)p;
    while (n) {
        uint32_t c = f->chain[--n];
        int32_t p = s->parent[c];
        double *o = f->m[c];
        bool above = p >= 0 && s->joint_of[p] < 0;
        if (above) memcpy(o, f->m[p], sizeof f->m[p]);
        else
            for (int k = 0; k < 16; k++) o[k] = k % 5 == 0;
        f->any[c] = above && f->any[p];
        if (!s->identity[c]) {
            double m[16];
            ossa__transform_to_mat4d(&s->local[c], m);
            ossa__mat4d_mul(o, m, o);
            f->any[c] = 1;
        }
        f->done[c] = 1;
    }
    int32_t p = s->parent[node];
    if (p < 0 || s->joint_of[p] >= 0 || !f->any[p]) {
        for (int k = 0; k < 16; k++) out[k] = k % 5 == 0;
        return false;
    }
    memcpy(out, f->m[p], sizeof f->m[p]);
    return true;
}

static void apply_fold(const scene *s, uint32_t joint, ossa_transform *t)
{
    if (!s->has_fold[joint]) return;
    double m[16];
    ossa__transform_to_mat4d(t, m);
    ossa__mat4d_mul(s->fold[joint], m, m);
    ossa__mat4d_to_transform(m, t);
}

/* Inverse bind matrix of `joint` from the first skin that lists it, whose
 * index and slot are first_skin[joint] and first_slot[joint] (-1: none). */
static ossa_status inverse_bind(scene *s, uint32_t joint, const int64_t *first_skin,
                                const uint32_t *first_slot, float **cache, bool *found, double out[16])
{
    gltf_reader *r = s->r;
    *found = false;
    if (first_skin[joint] >= 0) {
        uint32_t k = (uint32_t)first_skin[joint], slot = first_slot[joint];
        if (!cJSON_GetObjectItemCaseSensitive(r->skins.items[k], "inverseBindMatrices")) return OSSA_OK;
        if (!cache[k]) {
            char path[48];
            snprintf(path, sizeof path, "skins[%u].inverseBindMatrices", k);
            int64_t acc = -1;
            gltf_accessor info;
            if (ossa__gltf_index(r, r->skins.items[k], "inverseBindMatrices", path, r->accessors.count,
                                 "accessor", &acc) ||
                ossa__gltf_accessor_floats(r, acc, path, &info, &cache[k]))
                return OSSA_FAILED;
            if (info.ncomp != 16 || info.count < s->skin_size[k]) {
                ossa__free(r->alloc, cache[k], 0);
                cache[k] = NULL;
                return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                       "%s: expected at least %u MAT4 elements", path, s->skin_size[k]);
            }
        }
        for (int e = 0; e < 16; e++) out[e] = cache[k][(size_t)slot * 16 + e];
        *found = true;
    }
    return OSSA_OK;
}

static double mat_distance(const double a[16], const double b[16])
{
    double d = 0, scale = 1;
    for (int k = 0; k < 16; k++) {
        d = fmax(d, fabs(a[k] - b[k]));
        scale = fmax(scale, fabs(b[k]));
    }
    return d / scale;
}

static ossa_status build_joints(scene *s)
{
    gltf_reader *r = s->r;
    uint32_t J = s->J;
    s->has_fold = scratch(s, J, 1);
    s->fold = scratch(s, J, sizeof *s->fold);
    s->rest = scratch(s, J, sizeof *s->rest);
    s->bind = scratch(s, J, sizeof *s->bind);
    double (*world)[16] = scratch(s, J, sizeof *world);
    float **cache = scratch(s, r->skins.count, sizeof *cache);
    int64_t *first_skin = scratch(s, J, sizeof *first_skin);
    uint32_t *first_slot = scratch(s, J, sizeof *first_slot);
    if (!s->has_fold || !s->fold || !s->rest || !s->bind || !world || !cache || !first_skin ||
        !first_slot)
        return ossa__fail_nomem(r->error);
    /* Where each joint is first listed (a search per joint would take time
     * in the square of the joint count). */
    for (uint32_t j = 0; j < J; j++) first_skin[j] = -1;
    for (uint32_t k = r->skins.count; k-- > 0;)
        for (uint32_t slot = s->skin_size[k]; slot-- > 0;) {
            uint32_t j = (uint32_t)s->skin_map[k][slot];
            first_skin[j] = k;
            first_slot[j] = slot;
        }
    fold_cache fc;
    fc.m = ossa__alloc(r->alloc, (size_t)s->N * sizeof *fc.m);
    fc.any = ossa__alloc(r->alloc, s->N);
    fc.done = ossa__alloc(r->alloc, s->N);
    fc.chain = ossa__alloc(r->alloc, (size_t)s->N * sizeof *fc.chain);
    ossa_status st = OSSA_OK;
    if (!fc.m || !fc.any || !fc.done || !fc.chain) st = ossa__fail_nomem(r->error);
    else memset(fc.done, 0, s->N);
    uint32_t replaced = 0;
    for (uint32_t j = 0; j < J && !st; j++) {
        uint32_t node = s->node_of[j];
        s->has_fold[j] = fold_of(s, &fc, node, s->fold[j]);
        s->rest[j] = s->local[node];
        apply_fold(s, j, &s->rest[j]);
        int32_t pn = joint_parent(s, node);
        int32_t pj = pn >= 0 ? s->joint_of[pn] : -1;
        double m[16], ibm[16], b[16];
        ossa__transform_to_mat4d(&s->rest[j], m);
        if (pj >= 0) ossa__mat4d_mul(world[pj], m, world[j]);
        else memcpy(world[j], m, sizeof m);
        s->bind[j] = s->rest[j];
        bool found;
        st = inverse_bind(s, j, first_skin, first_slot, cache, &found, ibm);
        if (st || !found || !ossa__mat4d_invert_affine(ibm, b)) continue;
        /* The skin was bound in another pose than the nodes' rest: the
         * bind pose must follow the skin for the vertices to fit. */
        if (mat_distance(world[j], b) > 1e-4) {
            double inv_parent[16], l[16];
            if (pj >= 0 && ossa__mat4d_invert_affine(world[pj], inv_parent))
                ossa__mat4d_mul(inv_parent, b, l);
            else
                memcpy(l, b, sizeof l);
            ossa_transform tb;
            ossa__mat4d_to_transform(l, &tb);
            bool finite = true;
            for (int k = 0; k < 3; k++)
                finite &= isfinite(tb.translation[k]) && isfinite(tb.scale[k]) && tb.scale[k] != 0;
            if (!finite) continue; /* beyond float range: the rest pose stays */
            s->bind[j] = tb;
            ossa__transform_to_mat4d(&s->bind[j], m);
            if (pj >= 0) ossa__mat4d_mul(world[pj], m, world[j]);
            else memcpy(world[j], m, sizeof m);
            replaced++;
        }
    }
    for (uint32_t k = 0; k < r->skins.count; k++) ossa__free(r->alloc, cache[k], 0);
    ossa__free(r->alloc, fc.m, 0);
    ossa__free(r->alloc, fc.any, 0);
    ossa__free(r->alloc, fc.done, 0);
    ossa__free(r->alloc, fc.chain, 0);
    if (st) return st;
    if (replaced)
        ossa__warn(s->m, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "%u joint%s: the skin's inverse bind matrices differ from the nodes' rest "
                   "transforms; the bind pose follows the skin",
                   replaced, replaced == 1 ? "" : "s");
    for (uint32_t j = 0; j < J; j++) {
        uint32_t node = s->node_of[j];
        int32_t pn = joint_parent(s, node);
        const char *name = ossa__gltf_string(r->nodes.items[node], "name");
        ossa_transform t;
        ossa__gltf_transform_from_gltf(&s->bind[j], &t);
        if (ossa_model_add_joint(s->m, name ? name : "", pn >= 0 ? s->joint_of[pn] : -1, &t, r->error) < 0)
            return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* World transforms of nodes at rest, glTF axes, each computed once (a walk
 * up to the root per node would take time in the square of the depth). */
typedef struct world_cache {
    double (*m)[16];
    uint8_t *done;
    uint32_t *chain;
} world_cache;

static void node_world(const scene *s, world_cache *w, uint32_t node, double out[16])
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

static ossa_status scan_primitive(scene *s, prim *p, layout *L)
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
        if (!is_index(a))
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
static ossa_status scene_nodes(scene *s, uint32_t **out, uint32_t *count)
{
    gltf_reader *r = s->r;
    uint32_t *stack = scratch(s, s->N, sizeof *stack), *order = scratch(s, s->N, sizeof *order);
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
            if (!is_index(e) || e->valuedouble >= s->N)
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
    uint8_t *seen = scratch(s, s->N, 1);
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

static ossa_status collect_primitives(scene *s, prim **out, uint32_t *count, layout *L)
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
                if (!is_index(mode) || mode->valuedouble > 6)
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
            if (!is_index(pos)) return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an accessor index", pp);
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
                int32_t jn = s->joint_of[node] >= 0 ? (int32_t)node : joint_parent(s, node);
                if (jn >= 0) {
                    p->rigid = s->joint_of[jn];
                    L->blend = true;
                }
            }
        }
    }
    /* 4 influences, or up to max_influences when JOINTS_1 has more. */
    uint32_t wants = r->options->max_influences ? r->options->max_influences : 4;
    if (wants > 8) wants = 8;
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

static int new_array(scene *s, ossa_vertex_type type, ossa_component fmt, uint32_t size, const char *name)
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

static ossa_status make_arrays(scene *s, const layout *L, arrays *A, uint32_t total)
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
        if (L->color[k])
            fail |= (A->col[k] = new_array(s, OSSA_VERTEX_COLOR, component_of(L->color[k]),
                                           L->color_n[k] == 3 ? 3 : 4, "")) < -1;
    for (uint32_t k = 0; k < L->num_custom; k++)
        if (!L->custom[k].bad)
            fail |= (A->custom[k] = new_array(s, OSSA_VERTEX_CUSTOM, component_of(L->custom[k].ctype),
                                              L->custom[k].ncomp, L->custom[k].name)) < -1;
    return fail ? OSSA_FAILED : OSSA_OK;
}

static void *array_at(scene *s, int idx, uint32_t vertex)
{
    ossa_vertex_array *a = &s->m->vertex_arrays[idx];
    return (unsigned char *)a->data + (size_t)vertex * a->size * ossa_component_size(a->format);
}

/* Reads attribute `key` of a primitive, or gives *out = NULL when absent. */
static ossa_status attribute(scene *s, const prim *p, const char *key, bool raw, gltf_accessor *info, void **out)
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
static ossa_status fill_vectors(scene *s, const prim *p, const arrays *A, bool moved, const double w[16])
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
static ossa_status fill_plain(scene *s, const prim *p, const layout *L, const arrays *A)
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

static void store_influences(scene *s, const arrays *A, uint32_t vertex, const int32_t *j, const float *w,
                             const uint8_t *raw, uint32_t n, bool exact)
{
    ossa_vertex_array *ia = &s->m->vertex_arrays[A->idx], *wa = &s->m->vertex_arrays[A->wgt];
    uint32_t size = ia->size;
    for (uint32_t k = 0; k < n; k++) {
        if (ia->format == OSSA_UBYTE) ((uint8_t *)ia->data)[(size_t)vertex * size + k] = (uint8_t)j[k];
        else if (ia->format == OSSA_USHORT) ((uint16_t *)ia->data)[(size_t)vertex * size + k] = (uint16_t)j[k];
        else ((uint32_t *)ia->data)[(size_t)vertex * size + k] = (uint32_t)j[k];
    }
    if (wa->format == OSSA_FLOAT) {
        float *o = (float *)wa->data + (size_t)vertex * size;
        double sum = 0;
        for (uint32_t k = 0; k < n; k++) sum += w[k];
        for (uint32_t k = 0; k < n; k++) o[k] = exact || !(sum > 0) ? w[k] : (float)(w[k] / sum);
        return;
    }
    uint8_t *o = (uint8_t *)wa->data + (size_t)vertex * size;
    int raw_sum = 0;
    for (uint32_t k = 0; raw && k < n; k++) raw_sum += raw[k];
    if (exact && raw && raw_sum == 255) {
        memcpy(o, raw, n);
        return;
    }
    ossa__ubyte_weights(w, n, o);
}

static ossa_status fill_blend(scene *s, const prim *p, const arrays *A)
{
    if (A->idx < 0) return OSSA_OK;
    uint32_t size = s->m->vertex_arrays[A->idx].size;
    if (p->skin < 0) {
        int32_t j = p->rigid;
        float one = 1;
        uint8_t full = 255;
        if (j < 0 && !s->warned_static) {
            ossa__warn(s->m, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0,
                       "meshes[%u]: not skinned and not below a joint: its vertices have no "
                       "blend weights",
                       p->mesh);
            s->warned_static = true;
        }
        for (uint32_t i = 0; j >= 0 && i < p->count; i++) store_influences(s, A, p->first + i, &j, &one, &full, 1, true);
        return OSSA_OK;
    }
    uint32_t sets = size > 4 ? 2 : 1;
    float *jv[2] = {NULL, NULL}, *wv[2] = {NULL, NULL};
    uint8_t *wr[2] = {NULL, NULL};
    gltf_accessor ji[2], wi[2];
    bool ubyte = s->m->vertex_arrays[A->wgt].format == OSSA_UBYTE;
    ossa_status st = OSSA_OK;
    for (uint32_t k = 0; k < sets && !st; k++) {
        char jk[32], wk[32];
        snprintf(jk, sizeof jk, "JOINTS_%u", k);
        snprintf(wk, sizeof wk, "WEIGHTS_%u", k);
        st = attribute(s, p, jk, false, &ji[k], (void **)&jv[k]);
        if (!st) st = attribute(s, p, wk, false, &wi[k], (void **)&wv[k]);
        if (!st && ubyte && wv[k]) st = attribute(s, p, wk, true, &wi[k], (void **)&wr[k]);
        if (!st && (!jv[k] != !wv[k] || (jv[k] && (ji[k].ncomp != 4 || wi[k].ncomp != 4))))
            st = ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT,
                                 "meshes[%u].primitives[%u]: %s and %s must both be VEC4", p->mesh,
                                 p->index, jk, wk);
    }
    const int32_t *map = s->skin_map[p->skin];
    uint32_t map_n = s->skin_size[p->skin];
    for (uint32_t i = 0; !st && i < p->count; i++) {
        int32_t j[8];
        float w[8];
        uint8_t raw[8];
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
            j[n] = map[(uint32_t)jf];
            w[n] = wt;
            raw[n] = wr[set] ? wr[set][i * 4 + c] : 0;
            n++;
        }
        bool exact = true;
        while (n > size) { /* drop the smallest, keep the order */
            uint32_t low = 0;
            for (uint32_t k = 1; k < n; k++)
                if (w[k] < w[low]) low = k;
            memmove(j + low, j + low + 1, (n - low - 1) * sizeof *j);
            memmove(w + low, w + low + 1, (n - low - 1) * sizeof *w);
            memmove(raw + low, raw + low + 1, (n - low - 1));
            n--;
            exact = false;
        }
        if (!st) store_influences(s, A, p->first + i, j, w, ubyte ? raw : NULL, n, exact);
    }
    for (uint32_t k = 0; k < 2; k++) {
        ossa__free(s->r->alloc, jv[k], 0);
        ossa__free(s->r->alloc, wv[k], 0);
        ossa__free(s->r->alloc, wr[k], 0);
    }
    return st;
}

typedef struct tri_list {
    ossa_triangle *t;
    size_t n, cap;
} tri_list;

static ossa_status fill_triangles(scene *s, const prim *p, bool flip, tri_list *out, uint32_t *added)
{
    gltf_reader *r = s->r;
    const cJSON *ind = cJSON_GetObjectItemCaseSensitive(p->obj, "indices");
    uint32_t *idx = NULL, n = p->count;
    char path[80];
    snprintf(path, sizeof path, "meshes[%u].primitives[%u].indices", p->mesh, p->index);
    if (ind) {
        if (!is_index(ind)) return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an accessor index", path);
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

static const char *material_name(scene *s, const cJSON *po)
{
    gltf_reader *r = s->r;
    const cJSON *mat = cJSON_GetObjectItemCaseSensitive(po, "material");
    if (!is_index(mat) || mat->valuedouble >= r->materials.count) return "";
    const cJSON *m = r->materials.items[(uint32_t)mat->valuedouble];
    const char *name = ossa__gltf_string(m, "name");
    if (name && name[0]) return name;
    /* No name: the base colour image's file name or name, if any. */
    const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(m, "pbrMetallicRoughness");
    const cJSON *tex = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"), "index");
    if (!is_index(tex) || tex->valuedouble >= r->textures.count) return "";
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(r->textures.items[(uint32_t)tex->valuedouble], "source");
    if (!is_index(src) || src->valuedouble >= r->images.count) return "";
    const cJSON *img = r->images.items[(uint32_t)src->valuedouble];
    const char *uri = ossa__gltf_string(img, "uri");
    if (uri && strncmp(uri, "data:", 5) != 0) return uri;
    name = ossa__gltf_string(img, "name");
    return name ? name : "";
}

static ossa_status read_meshes(scene *s)
{
    gltf_reader *r = s->r;
    layout L;
    memset(&L, 0, sizeof L);
    prim *prims;
    uint32_t np;
    if (collect_primitives(s, &prims, &np, &L)) return OSSA_FAILED;
    if (!np) return OSSA_OK;
    uint32_t total = prims[np - 1].first + prims[np - 1].count;
    arrays A;
    if (make_arrays(s, &L, &A, total)) return OSSA_FAILED;
    tri_list tris = {NULL, 0, 0};
    uint32_t *tri_counts = scratch(s, np, sizeof *tri_counts);
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
        if (ossa_model_add_mesh(s->m, name, material_name(s, p->obj), p->first, p->count, first_tri,
                                tri_counts[i], r->error) < 0)
            return OSSA_FAILED;
        first_tri += tri_counts[i];
    }
    return OSSA_OK;
}

/* -- Animations -- */

typedef struct track {
    uint32_t joint;
    int path; /* 0 translation, 1 rotation, 2 scale */
    int interp; /* 0 LINEAR, 1 STEP, 2 CUBICSPLINE */
    const float *times;
    uint32_t keys;
    float *values; /* keys * ncomp, or keys * 3 * ncomp for CUBICSPLINE */
    uint32_t ncomp;
} track;

/* Decoded sampler inputs, shared between samplers that use one accessor. */
typedef struct input_cache {
    int64_t accessor;
    float *times;
    uint32_t count;
} input_cache;

static ossa_status read_input(scene *s, const char *path, int64_t acc, input_cache *cache, uint32_t *ncache,
                              const float **times, uint32_t *count)
{
    for (uint32_t i = 0; i < *ncache; i++)
        if (cache[i].accessor == acc) {
            *times = cache[i].times;
            *count = cache[i].count;
            return OSSA_OK;
        }
    gltf_accessor info;
    float *t;
    if (ossa__gltf_accessor_floats(s->r, acc, path, &info, &t)) return OSSA_FAILED;
    input_cache *c = &cache[(*ncache)++];
    c->accessor = acc;
    c->times = t;
    c->count = info.count;
    if (info.ncomp != 1 || info.ctype != GLTF_FLOAT)
        return ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT, "%s: expected a SCALAR float accessor", path);
    for (uint32_t k = 0; k < info.count; k++) {
        if (t[k] < 0)
            return ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT, "%s: key %u has the negative time %g", path,
                                   k, (double)t[k]);
        if (k && !(t[k] > t[k - 1]))
            return ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT,
                                   "%s: key times must increase (key %u: %g after %g)", path, k,
                                   (double)t[k], (double)t[k - 1]);
    }
    *times = t;
    *count = info.count;
    return OSSA_OK;
}

static ossa_status read_tracks(scene *s, uint32_t a, track **out, uint32_t *ntracks, input_cache *cache,
                               uint32_t *ncache)
{
    gltf_reader *r = s->r;
    const cJSON *an = r->animations.items[a];
    const cJSON *channels = cJSON_GetObjectItemCaseSensitive(an, "channels");
    const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(an, "samplers");
    if (!cJSON_IsArray(channels) || !cJSON_IsArray(samplers))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "animations[%u]: channels and samplers must be arrays", a);
    uint32_t nsamp = (uint32_t)cJSON_GetArraySize(samplers), nch = (uint32_t)cJSON_GetArraySize(channels);
    const cJSON **samp = scratch(s, nsamp, sizeof *samp);
    track *tracks = scratch(s, nch, sizeof *tracks);
    uint8_t *used = scratch(s, (size_t)s->J * 3, 1);
    if (!samp || !tracks || !used) return ossa__fail_nomem(r->error);
    uint32_t k = 0;
    for (const cJSON *e = samplers->child; e; e = e->next) samp[k++] = e;
    *out = tracks; /* the caller frees the values of *ntracks tracks, also on failure */
    *ntracks = 0;
    uint32_t n = 0, ci = 0;
    bool warned = false;
    for (const cJSON *c = channels->child; c; c = c->next, ci++) {
        char path[64];
        snprintf(path, sizeof path, "animations[%u].channels[%u]", a, ci);
        int64_t si = -1, node = -1;
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(c, "target");
        if (!cJSON_IsObject(c) || !cJSON_IsObject(target))
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an object with a target", path);
        char tp[80];
        snprintf(tp, sizeof tp, "%s.target", path);
        if (ossa__gltf_index(r, c, "sampler", path, nsamp, "sampler", &si) ||
            ossa__gltf_index(r, target, "node", tp, s->N, "node", &node))
            return OSSA_FAILED;
        if (si < 0) return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.sampler: missing", path);
        const char *tpath = ossa__gltf_string(target, "path");
        int pk = !tpath ? -1 : strcmp(tpath, "translation") == 0 ? 0 : strcmp(tpath, "rotation") == 0 ? 1
                             : strcmp(tpath, "scale") == 0 ? 2 : -1;
        if (pk < 0 || node < 0) {
            if (!warned)
                ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s: target path '%s' is not supported (ignored)",
                           path, tpath ? tpath : "(none)");
            warned = true;
            continue;
        }
        track *t = &tracks[n];
        t->joint = (uint32_t)s->joint_of[node];
        t->path = pk;
        if (used[t->joint * 3 + (uint32_t)pk])
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: node %lld's %s is animated twice", path,
                                   (long long)node, tpath);
        used[t->joint * 3 + (uint32_t)pk] = 1;
        const cJSON *so = samp[si];
        char sp[64];
        snprintf(sp, sizeof sp, "animations[%u].samplers[%lld]", a, (long long)si);
        const char *interp = ossa__gltf_string(so, "interpolation");
        t->interp = !interp || strcmp(interp, "LINEAR") == 0 ? 0 : strcmp(interp, "STEP") == 0 ? 1
                    : strcmp(interp, "CUBICSPLINE") == 0 ? 2 : -1;
        if (t->interp < 0)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s.interpolation: expected LINEAR, STEP or CUBICSPLINE", sp);
        int64_t in = -1, outp = -1;
        char ip[80], op[80];
        snprintf(ip, sizeof ip, "%s.input", sp);
        snprintf(op, sizeof op, "%s.output", sp);
        if (ossa__gltf_index(r, so, "input", sp, r->accessors.count, "accessor", &in) ||
            ossa__gltf_index(r, so, "output", sp, r->accessors.count, "accessor", &outp))
            return OSSA_FAILED;
        if (in < 0 || outp < 0)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: input and output are required", sp);
        if (read_input(s, ip, in, cache, ncache, &t->times, &t->keys)) return OSSA_FAILED;
        gltf_accessor info;
        if (ossa__gltf_accessor_floats(r, outp, op, &info, &t->values)) return OSSA_FAILED;
        *ntracks = ++n; /* owned from here: freed by the caller */
        t->ncomp = pk == 1 ? 4 : 3;
        uint32_t per = t->interp == 2 ? 3 : 1;
        if (info.ncomp != t->ncomp)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected %s elements for %s", op,
                                   pk == 1 ? "VEC4" : "VEC3", tpath);
        if (info.count != (uint64_t)t->keys * per)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: %u elements for %u keys (expected %u)", op,
                                   info.count, t->keys, t->keys * per);
        if (t->interp == 2 && t->keys < 2)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: CUBICSPLINE needs at least 2 keys", ip);
        if (pk != 1 && info.ctype != GLTF_FLOAT)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: %s must be float", op, tpath);
    }
    return OSSA_OK;
}

static void slerp(const float *a, const float *b, double u, float *out)
{
    double d = 0;
    for (int k = 0; k < 4; k++) d += (double)a[k] * b[k];
    double sign = d < 0 ? -1 : 1, wa, wb;
    d = fabs(d);
    if (d > 0.9995) {
        wa = 1 - u;
        wb = u;
    } else {
        double th = acos(d), sn = sin(th);
        wa = sin((1 - u) * th) / sn;
        wb = sin(u * th) / sn;
    }
    double q[4], n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = wa * a[k] + wb * sign * b[k];
        n += q[k] * q[k];
    }
    n = n > 0 ? 1 / sqrt(n) : 0;
    for (int k = 0; k < 4; k++) out[k] = (float)(q[k] * n);
}

/* The track's value at time t. `cursor` keeps the key interval between
 * calls at increasing times. Times within 1/1000 of a frame of a key give
 * that key exactly. */
static void sample_track(const track *t, double time, double frame_time, uint32_t *cursor, float *out)
{
    uint32_t nc = t->ncomp, per = t->interp == 2 ? 3 : 1, off = t->interp == 2 ? nc : 0;
    while (*cursor + 1 < t->keys && t->times[*cursor + 1] <= time) ++*cursor;
    uint32_t k = *cursor;
    double eps = frame_time * 1e-3;
    uint32_t exact = UINT32_MAX;
    if (fabs(t->times[k] - time) <= eps) exact = k;
    else if (k + 1 < t->keys && fabs(t->times[k + 1] - time) <= eps) exact = k + 1;
    else if (time < t->times[0]) exact = 0;
    else if (k + 1 >= t->keys) exact = t->keys - 1;
    if (exact != UINT32_MAX || t->interp == 1) {
        if (exact == UINT32_MAX) exact = k;
        memcpy(out, t->values + (size_t)exact * nc * per + off, nc * sizeof *out);
        if (t->path == 1) ossa__quat_tidy(out);
        return;
    }
    double t0 = t->times[k], t1 = t->times[k + 1], dt = t1 - t0, u = (time - t0) / dt;
    const float *a = t->values + (size_t)k * nc * per + off, *b = t->values + (size_t)(k + 1) * nc * per + off;
    if (t->interp == 0) {
        if (t->path == 1) {
            slerp(a, b, u, out);
        } else {
            for (uint32_t c = 0; c < nc; c++) out[c] = (float)(a[c] + (b[c] - (double)a[c]) * u);
        }
        return;
    }
    /* CUBICSPLINE: Hermite with the out-tangent of key k and the in-tangent
     * of key k + 1, scaled by the interval (spec, Appendix C). */
    const float *bk = a + nc, *ak1 = b - nc;
    double u2 = u * u, u3 = u2 * u;
    double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    for (uint32_t c = 0; c < nc; c++)
        out[c] = (float)(h00 * a[c] + h10 * dt * bk[c] + h01 * b[c] + h11 * dt * ak1[c]);
    if (t->path == 1) ossa__quat_normalize(out);
}

static const cJSON *ours(const cJSON *obj)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "extras"), GLTF_EXTRAS_KEY);
}

/* Frame rate and count of an animation: the rate of the file's own extras
 * when the keys fit it, else the keys' own spacing when they are evenly
 * spaced, else the load options' rate. */
static void frame_grid(scene *s, const cJSON *an, const track *tracks, uint32_t n, float *rate,
                       double *grid, uint32_t *frames, uint32_t *flags)
{
    double tmax = 0, dt = 0;
    for (uint32_t i = 0; i < n; i++) {
        const track *t = &tracks[i];
        if (t->times[t->keys - 1] > tmax) tmax = t->times[t->keys - 1];
        for (uint32_t k = 1; k < t->keys; k++) {
            double d = (double)t->times[k] - t->times[k - 1];
            if (dt == 0 || d < dt) dt = d;
        }
    }
    const cJSON *x = ours(an);
    const cJSON *xr = cJSON_GetObjectItemCaseSensitive(x, "framerate");
    const cJSON *xf = cJSON_GetObjectItemCaseSensitive(x, "frames");
    *flags = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "loop")) ? OSSA_ANIMATION_LOOP : 0;
    double fallback = s->r->options->framerate > 0 && isfinite(s->r->options->framerate)
                          ? s->r->options->framerate : OSSA_DEFAULT_FRAMERATE;
    double candidates[2];
    int nc = 0;
    bool from_extras = cJSON_IsNumber(xr) && isfinite(xr->valuedouble) && xr->valuedouble >= 0 &&
                       xr->valuedouble < 1e6;
    if (from_extras) candidates[nc++] = xr->valuedouble > 0 ? xr->valuedouble : OSSA_DEFAULT_FRAMERATE;
    if (dt > 0) {
        double f = 1 / dt;
        if (fabs(f - floor(f + 0.5)) < 1e-3 * f) f = floor(f + 0.5);
        candidates[nc++] = f;
    }
    double fps = 0;
    for (int c = 0; c < nc && fps == 0; c++) {
        double f = candidates[c];
        if (!(f > 0) || f > 1000 || tmax * f > 1e6) continue;
        bool fit = true;
        for (uint32_t i = 0; i < n && fit; i++)
            for (uint32_t k = 0; k < tracks[i].keys && fit; k++) {
                double v = tracks[i].times[k] * f;
                fit = fabs(v - floor(v + 0.5)) < 1e-3;
            }
        if (fit) fps = f;
    }
    if (fps == 0) fps = fallback;
    *grid = fps;
    *rate = (float)fps;
    if (from_extras && candidates[0] == fps) *rate = (float)xr->valuedouble;
    double count = floor(tmax * fps + 0.5) + 1;
    if (from_extras && cJSON_IsNumber(xf) && xf->valuedouble >= 0 && xf->valuedouble <= 1e9 &&
        (xf->valuedouble >= count || xf->valuedouble == 0 || n == 0))
        count = floor(xf->valuedouble);
    *frames = count > 4e9 ? UINT32_MAX : (uint32_t)count;
}

static ossa_status read_animation(scene *s, uint32_t a, input_cache *cache)
{
    gltf_reader *r = s->r;
    uint32_t ncache = 0, n = 0;
    track *tracks = NULL;
    ossa_status st = read_tracks(s, a, &tracks, &n, cache, &ncache);
    uint32_t J = s->J;
    if (!st && J) {
        float rate;
        double fps;
        uint32_t frames, flags;
        const cJSON *an = r->animations.items[a];
        frame_grid(s, an, tracks, n, &rate, &fps, &frames, &flags);
        uint64_t bytes = (uint64_t)frames * J * sizeof(ossa_transform);
        uint64_t limit = ((uint64_t)64 << 20) + (uint64_t)r->file_size * 64;
        if (bytes > limit) {
            st = ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED,
                                 "animations[%u]: %u frames at %g fps would decode to %llu MiB, out of "
                                 "proportion to the file",
                                 a, frames, fps, (unsigned long long)(bytes >> 20));
        } else {
            const char *name = ossa__gltf_string(an, "name");
            ossa_animation *anim = ossa_model_add_animation(s->m, name ? name : "", frames, rate, flags, r->error);
            uint8_t *mask = scratch(s, J, 1);
            if (!anim) st = OSSA_FAILED;
            else if (!mask) st = ossa__fail_nomem(r->error);
            for (uint32_t f = 0; !st && f < frames; f++)
                for (uint32_t j = 0; j < J; j++) anim->frames[(size_t)f * J + j] = s->local[s->node_of[j]];
            for (uint32_t i = 0; !st && i < n; i++) {
                track *t = &tracks[i];
                uint32_t cursor = 0;
                mask[t->joint] |= (uint8_t)(1u << t->path);
                for (uint32_t f = 0; f < frames; f++) {
                    ossa_transform *o = &anim->frames[(size_t)f * J + t->joint];
                    float *dst = t->path == 0 ? o->translation : t->path == 1 ? o->rotation : o->scale;
                    sample_track(t, f / fps, 1 / fps, &cursor, dst);
                }
            }
            for (uint32_t j = 0; !st && j < J; j++) {
                ossa_transform bind;
                ossa__gltf_transform_from_gltf(&s->bind[j], &bind);
                for (uint32_t f = 0; f < frames; f++) {
                    ossa_transform *o = &anim->frames[(size_t)f * J + j];
                    apply_fold(s, j, o);
                    ossa__gltf_transform_from_gltf(o, o);
                    /* Channels not animated hold the rest transform; where
                     * that differs from the bind pose they count as animated. */
                    if (memcmp(o->translation, bind.translation, 12)) mask[j] |= OSSA_CHANNEL_TRANSLATION;
                    if (memcmp(o->rotation, bind.rotation, 16)) mask[j] |= OSSA_CHANNEL_ROTATION;
                    if (memcmp(o->scale, bind.scale, 12)) mask[j] |= OSSA_CHANNEL_SCALE;
                }
            }
            bool all = true;
            for (uint32_t j = 0; !st && j < J; j++) all &= mask[j] == 7;
            if (!st && !all) anim->channels = mask;
        }
    }
    for (uint32_t i = 0; i < n; i++) ossa__free(r->alloc, tracks[i].values, 0);
    for (uint32_t i = 0; i < ncache; i++) ossa__free(r->alloc, cache[i].times, 0);
    return st;
}

static ossa_status read_animations(scene *s)
{
    gltf_reader *r = s->r;
    if (!r->animations.count) return OSSA_OK;
    if (!s->J) {
        ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "the animations move no node: ignored");
        return OSSA_OK;
    }
    /* At most one cached input per channel. */
    uint32_t most = 0;
    for (uint32_t a = 0; a < r->animations.count; a++) {
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r->animations.items[a], "channels"));
        if ((uint32_t)n > most) most = (uint32_t)n;
    }
    input_cache *cache = ossa__alloc(r->alloc, (most + 1) * sizeof *cache);
    if (!cache) return ossa__fail_nomem(r->error);
    ossa_status st = OSSA_OK;
    for (uint32_t a = 0; a < r->animations.count && !st; a++) st = read_animation(s, a, cache);
    ossa__free(r->alloc, cache, 0);
    return st;
}

/* -- Model -- */

static ossa_status read_root_extras(scene *s)
{
    const cJSON *x = ours(s->r->root);
    if (!cJSON_IsObject(x)) return OSSA_OK;
    const char *comment = ossa__gltf_string(x, "comment");
    if (comment && ossa_model_set_comment(s->m, comment, strlen(comment), s->r->error)) return OSSA_FAILED;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "skeleton_from_poses"))) {
        bool unnamed = true;
        for (uint32_t j = 0; j < s->m->num_joints; j++) unnamed &= !s->m->joints[j].name[0];
        if (unnamed) s->m->flags |= OSSA_MODEL_SKELETON_FROM_POSES;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(x, "extras");
    for (const cJSON *e = cJSON_IsArray(list) ? list->child : NULL; e; e = e->next) {
        const char *key = ossa__gltf_string(e, "key"), *data = ossa__gltf_string(e, "data");
        if (!key || !data) continue;
        size_t len = strlen(data), cap = len / 4 * 3 + 3, size = 0, bad = 0;
        unsigned char *buf = ossa__alloc(s->r->alloc, cap);
        if (!buf) return ossa__fail_nomem(s->r->error);
        ossa_status st = OSSA_OK;
        if (ossa__base64_decode(data, len, buf, &size, &bad))
            st = ossa_model_add_extra(s->m, key, buf, size, s->r->error);
        else
            ossa__warn(s->m, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0, "extras.%s.extras: '%s' is not base64: dropped",
                       GLTF_EXTRAS_KEY, key);
        ossa__free(s->r->alloc, buf, cap);
        if (st) return st;
    }
    return OSSA_OK;
}

ossa_status ossa__gltf_build_model(gltf_reader *r)
{
    scene s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.m = r->model;
    if (read_nodes(&s) || read_skins_and_joints(&s) || build_joints(&s) || read_meshes(&s) ||
        read_animations(&s) || read_root_extras(&s))
        return OSSA_FAILED;
    return OSSA_OK;
}
