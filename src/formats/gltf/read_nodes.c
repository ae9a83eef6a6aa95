/* glTF 2.0 reader: nodes, skins and joints become the model's skeleton.
 *
 * Joints are the nodes of every skin plus every node an animation moves,
 * ordered parents first (a skin's own order is kept where it allows).
 * Nodes that are not joints but sit above a joint (an "Armature" node, a
 * Z-up correction) are folded into that joint's transform, at rest and in
 * every frame. The bind pose comes from the skin's inverse bind matrices
 * where they disagree with the nodes' rest transforms, which are then kept
 * as the model's rest pose; frames hold the rest transform in channels no
 * animation drives. Everything is then
 * turned from glTF's axes to the model's (gltf.h). */
#include "formats/gltf/scene.h"

#include <stdio.h>
#include <stdlib.h>

static bool transform_is_identity(const ossa_transform *t)
{
    return t->translation[0] == 0 && t->translation[1] == 0 && t->translation[2] == 0 &&
           t->rotation[0] == 0 && t->rotation[1] == 0 && t->rotation[2] == 0 &&
           t->rotation[3] == 1 && t->scale[0] == 1 && t->scale[1] == 1 && t->scale[2] == 1;
}

/* -- Nodes -- */

static ossa_status read_node(gltf_scene *s, uint32_t i)
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

static ossa_status read_nodes(gltf_scene *s)
{
    s->N = s->r->nodes.count;
    s->parent = gltf_scratch(s, s->N, sizeof *s->parent);
    s->local = gltf_scratch(s, s->N, sizeof *s->local);
    s->identity = gltf_scratch(s, s->N, 1);
    s->node_mesh = gltf_scratch(s, s->N, sizeof *s->node_mesh);
    s->node_skin = gltf_scratch(s, s->N, sizeof *s->node_skin);
    s->joint_of = gltf_scratch(s, s->N, sizeof *s->joint_of);
    uint32_t *stamp = gltf_scratch(s, s->N, sizeof *stamp);
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

/* Fills joint_above once the joints are marked (-2), in time linear in the
 * nodes (`chain` has room for them all); adding them keeps it valid. */
static void find_joints_above(gltf_scene *s, uint32_t *chain)
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
static void add_joint_node(gltf_scene *s, uint32_t node, uint32_t *chain)
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

static ossa_status mark_animated(gltf_scene *s)
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

static ossa_status read_skins_and_joints(gltf_scene *s)
{
    gltf_reader *r = s->r;
    s->skin_map = gltf_scratch(s, r->skins.count, sizeof *s->skin_map);
    s->skin_size = gltf_scratch(s, r->skins.count, sizeof *s->skin_size);
    s->node_of = gltf_scratch(s, s->N, sizeof *s->node_of);
    s->joint_above = gltf_scratch(s, s->N, sizeof *s->joint_above);
    uint32_t *chain = gltf_scratch(s, s->N, sizeof *chain + 1);
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
        s->skin_map[k] = gltf_scratch(s, n, sizeof **s->skin_map);
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
static bool fold_of(const gltf_scene *s, fold_cache *f, uint32_t node, double out[16])
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

void ossa__gltf_apply_fold(const gltf_scene *s, uint32_t joint, ossa_transform *t)
{
    if (!s->has_fold[joint]) return;
    double m[16];
    ossa__transform_to_mat4d(t, m);
    ossa__mat4d_mul(s->fold[joint], m, m);
    ossa__mat4d_to_transform(m, t);
}

/* Inverse bind matrix of `joint` from the first skin that lists it, whose
 * index and slot are first_skin[joint] and first_slot[joint] (-1: none). */
static ossa_status inverse_bind(gltf_scene *s, uint32_t joint, const int64_t *first_skin,
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

/* The nodes' rest transforms, kept beside the skin's bind pose. */
static ossa_status set_rest_pose(gltf_scene *s)
{
    ossa_transform *rest = gltf_scratch(s, s->J, sizeof *rest);
    if (!rest) return ossa__fail_nomem(s->r->error);
    for (uint32_t j = 0; j < s->J; j++) ossa__gltf_transform_from_gltf(&s->rest[j], &rest[j]);
    return ossa_model_set_rest_pose(s->m, rest, s->r->error);
}

static ossa_status build_joints(gltf_scene *s)
{
    gltf_reader *r = s->r;
    uint32_t J = s->J;
    s->has_fold = gltf_scratch(s, J, 1);
    s->fold = gltf_scratch(s, J, sizeof *s->fold);
    s->rest = gltf_scratch(s, J, sizeof *s->rest);
    s->bind = gltf_scratch(s, J, sizeof *s->bind);
    s->rest_world = gltf_scratch(s, J, sizeof *s->rest_world);
    s->bind_world = gltf_scratch(s, J, sizeof *s->bind_world);
    double (*world)[16] = s->bind_world;
    float **cache = gltf_scratch(s, r->skins.count, sizeof *cache);
    int64_t *first_skin = gltf_scratch(s, J, sizeof *first_skin);
    uint32_t *first_slot = gltf_scratch(s, J, sizeof *first_slot);
    if (!s->has_fold || !s->fold || !s->rest || !s->bind || !s->rest_world || !world || !cache ||
        !first_skin || !first_slot)
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
        ossa__gltf_apply_fold(s, j, &s->rest[j]);
        int32_t pn = gltf_joint_parent(s, node);
        int32_t pj = pn >= 0 ? s->joint_of[pn] : -1;
        double m[16], ibm[16], b[16];
        ossa__transform_to_mat4d(&s->rest[j], m);
        if (pj >= 0) ossa__mat4d_mul(world[pj], m, world[j]);
        else memcpy(world[j], m, sizeof m);
        if (pj >= 0) ossa__mat4d_mul(s->rest_world[pj], m, s->rest_world[j]);
        else memcpy(s->rest_world[j], m, sizeof m);
        s->bind[j] = s->rest[j];
        bool found;
        st = inverse_bind(s, j, first_skin, first_slot, cache, &found, ibm);
        if (st || !found || !ossa__mat4d_invert_affine(ibm, b)) continue;
        /* The skin was bound in another pose than the nodes' rest: the
         * bind pose follows the skin for the vertices to fit, the rest
         * pose stays what the nodes say (the model keeps both). */
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
    for (uint32_t j = 0; j < J; j++) {
        uint32_t node = s->node_of[j];
        int32_t pn = gltf_joint_parent(s, node);
        const char *name = ossa__gltf_string(r->nodes.items[node], "name");
        ossa_transform t;
        ossa__gltf_transform_from_gltf(&s->bind[j], &t);
        if (ossa_model_add_joint(s->m, name ? name : "", pn >= 0 ? s->joint_of[pn] : -1, &t, r->error) < 0)
            return OSSA_FAILED;
    }
    return replaced ? set_rest_pose(s) : OSSA_OK;
}

ossa_status ossa__gltf_read_skeleton(gltf_scene *s)
{
    if (read_nodes(s) || read_skins_and_joints(s) || build_joints(s)) return OSSA_FAILED;
    return OSSA_OK;
}
