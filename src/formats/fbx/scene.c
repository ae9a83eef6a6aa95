/* The object graph (fbx.md §4, §6) into the model: objects by id,
 * connections, global settings (§9), the model tree, which models become
 * joints and their bind pose (§10.1, §10.2), then meshes, animations and
 * embedded images. */
#include "core/lists.h"
#include "core/materials.h"
#include "formats/fbx/fbx.h"
#include "text/text.h"

#include <stdio.h>
#include <stdlib.h>

#include <math.h>

/* -- Objects and ids -- */

typedef struct idmap {
    int64_t *ids;
    uint32_t *index;
    size_t mask;
} idmap;

static size_t id_hash(int64_t id, size_t mask)
{
    uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & mask;
}

static uint32_t id_find(const idmap *m, int64_t id)
{
    for (size_t h = id_hash(id, m->mask);; h = (h + 1) & m->mask) {
        if (m->index[h] == UINT32_MAX) return UINT32_MAX;
        if (m->ids[h] == id) return m->index[h];
    }
}

static fbx_kind kind_of(const fbx_node *n, const fbx_value *sub)
{
    if (ossa__fbx_name_is(n, "Model")) return FBX_MODEL;
    if (ossa__fbx_name_is(n, "Geometry"))
        return ossa__fbx_str_is(sub, "Shape") ? FBX_BLENDSHAPE
               : ossa__fbx_str_is(sub, "Mesh") || !sub ? FBX_GEOMETRY
                                                       : FBX_OTHER;
    if (ossa__fbx_name_is(n, "Deformer")) {
        if (ossa__fbx_str_is(sub, "Skin")) return FBX_SKIN;
        if (ossa__fbx_str_is(sub, "Cluster")) return FBX_CLUSTER;
        if (ossa__fbx_str_is(sub, "BlendShape") || ossa__fbx_str_is(sub, "BlendShapeChannel"))
            return FBX_BLENDSHAPE;
        return FBX_OTHER;
    }
    if (ossa__fbx_name_is(n, "Pose")) return FBX_POSE;
    if (ossa__fbx_name_is(n, "Material")) return FBX_MATERIAL;
    if (ossa__fbx_name_is(n, "AnimationStack")) return FBX_STACK;
    if (ossa__fbx_name_is(n, "AnimationLayer")) return FBX_LAYER;
    if (ossa__fbx_name_is(n, "AnimationCurveNode")) return FBX_CURVE_NODE;
    if (ossa__fbx_name_is(n, "AnimationCurve")) return FBX_CURVE;
    if (ossa__fbx_name_is(n, "Video")) return FBX_VIDEO;
    if (ossa__fbx_name_is(n, "Texture")) return FBX_TEXTURE;
    if (ossa__fbx_name_is(n, "NodeAttribute")) return FBX_ATTRIBUTE;
    return FBX_OTHER;
}

/* "Name\0\1Class" (binary) or "Class::Name" (ASCII) -> "Name". */
static char *object_name(fbx_doc *doc, const fbx_value *v)
{
    if (!v || v->type != 'S') return ossa__fbx_strdup(doc, "", 0);
    const char *s = v->v.s;
    size_t n = v->count;
    if (doc->ascii) {
        for (size_t i = 0; i + 1 < n; i++)
            if (s[i] == ':' && s[i + 1] == ':') return ossa__fbx_strdup(doc, s + i + 2, n - i - 2);
        return ossa__fbx_strdup(doc, s, n);
    }
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == 0 && s[i + 1] == 1) return ossa__fbx_strdup(doc, s, i);
    /* Stray NULs would cut the name short anyway. */
    size_t len = 0;
    while (len < n && s[len]) len++;
    return ossa__fbx_strdup(doc, s, len);
}

static const char *template_kind(fbx_kind k, const fbx_node *n)
{
    switch (k) {
    case FBX_MODEL: return "Model";
    case FBX_GEOMETRY: return "Geometry";
    case FBX_STACK: return "AnimationStack";
    case FBX_LAYER: return "AnimationLayer";
    case FBX_CURVE_NODE: return "AnimationCurveNode";
    case FBX_MATERIAL: return "Material";
    default: (void)n; return NULL;
    }
}

static ossa_status read_objects(fbx_scene *sc, idmap *map)
{
    fbx_doc *doc = sc->doc;
    const fbx_node *objects = ossa__fbx_child(&doc->root, "Objects");
    if (!objects)
        return ossa__fbx_fail(doc, &doc->root, NULL, OSSA_ERROR_CORRUPT,
                              "no Objects record: nothing to read");
    uint32_t n = 0;
    for (const fbx_node *c = objects->first_child; c; c = c->next) n++;
    sc->objs = ossa__fbx_alloc(doc, n, sizeof *sc->objs);
    size_t cap = 16;
    while (cap < (size_t)n * 2) cap *= 2;
    map->ids = ossa__fbx_alloc(doc, cap, sizeof *map->ids);
    map->index = ossa__fbx_alloc(doc, cap, sizeof *map->index);
    if (!sc->objs || !map->ids || !map->index) return OSSA_FAILED;
    map->mask = cap - 1;
    memset(map->index, 0xff, cap * sizeof *map->index);
    const char *names[] = {"Model", "Geometry", "AnimationStack", "AnimationLayer",
                           "AnimationCurveNode", "Material"};
    const fbx_node *templates[6];
    for (int i = 0; i < 6; i++) templates[i] = ossa__fbx_template(doc, names[i]);
    for (const fbx_node *c = objects->first_child; c; c = c->next) {
        if (c->num_values < 1 || !ossa__fbx_is_int(&c->values[0]))
            return ossa__fbx_fail(doc, c, NULL, OSSA_ERROR_CORRUPT,
                                  "object '%.*s': the first value is not an integer id",
                                  (int)c->name_len, c->name);
        fbx_object *o = &sc->objs[sc->num_objs];
        o->id = c->values[0].v.i;
        o->node = c;
        o->subclass = c->num_values >= 3 && c->values[2].type == 'S' ? &c->values[2] : NULL;
        o->kind = kind_of(c, o->subclass);
        o->name = object_name(doc, c->num_values >= 2 ? &c->values[1] : NULL);
        if (!o->name) return OSSA_FAILED;
        o->props.own = ossa__fbx_child(c, "Properties70");
        const char *tk = template_kind(o->kind, c);
        for (int i = 0; tk && i < 6; i++)
            if (strcmp(tk, names[i]) == 0) o->props.tmpl = templates[i];
        o->parent = -1;
        o->joint = -1;
        size_t h = id_hash(o->id, map->mask);
        while (map->index[h] != UINT32_MAX) {
            if (map->ids[h] == o->id)
                return ossa__fbx_fail(doc, c, NULL, OSSA_ERROR_CORRUPT,
                                      "object id %lld is used twice", (long long)o->id);
            h = (h + 1) & map->mask;
        }
        map->ids[h] = o->id;
        map->index[h] = sc->num_objs++;
    }
    return OSSA_OK;
}

static ossa_status read_connections(fbx_scene *sc, const idmap *map)
{
    fbx_doc *doc = sc->doc;
    const fbx_node *list = ossa__fbx_child(&doc->root, "Connections");
    if (!list) {
        ossa__fbx_warn(doc, NULL, "no Connections record: objects stay unconnected");
        return OSSA_OK;
    }
    uint32_t n = 0, unknown = 0;
    for (const fbx_node *c = list->first_child; c; c = c->next) n++;
    sc->conns = ossa__fbx_alloc(doc, n, sizeof *sc->conns);
    if (!sc->conns) return OSSA_FAILED;
    const fbx_node *first_unknown = NULL;
    for (const fbx_node *c = list->first_child; c; c = c->next) {
        if (!ossa__fbx_name_is(c, "C")) continue;
        if (c->num_values < 3 || c->values[0].type != 'S' || !ossa__fbx_is_int(&c->values[1]) ||
            !ossa__fbx_is_int(&c->values[2]))
            return ossa__fbx_fail(doc, c, NULL, OSSA_ERROR_CORRUPT,
                                  "connection: expected a type string and two integer ids");
        uint32_t child = id_find(map, c->values[1].v.i);
        int64_t pid = c->values[2].v.i;
        uint32_t parent = pid == 0 ? UINT32_MAX : id_find(map, pid);
        if (child == UINT32_MAX || (pid != 0 && parent == UINT32_MAX)) {
            if (!unknown++) first_unknown = c;
            continue;
        }
        fbx_conn *k = &sc->conns[sc->num_conns++];
        k->child = child;
        k->parent = parent;
        k->prop = ossa__fbx_str_is(&c->values[0], "OP") && c->num_values >= 4 &&
                          c->values[3].type == 'S'
                      ? &c->values[3]
                      : NULL;
    }
    if (unknown)
        ossa__fbx_warn(doc, first_unknown, "%u connections name unknown objects: skipped", unknown);
    /* Per-object lists, in file order. */
    for (uint32_t i = 0; i < sc->num_conns; i++) {
        sc->objs[sc->conns[i].child].num_out++;
        if (sc->conns[i].parent != UINT32_MAX) sc->objs[sc->conns[i].parent].num_in++;
    }
    uint32_t *pool = ossa__fbx_alloc(doc, (size_t)sc->num_conns * 2, sizeof *pool);
    if (!pool) return OSSA_FAILED;
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        fbx_object *o = &sc->objs[i];
        o->in = pool;
        pool += o->num_in;
        o->out = pool;
        pool += o->num_out;
        o->num_in = o->num_out = 0;
    }
    for (uint32_t i = 0; i < sc->num_conns; i++) {
        fbx_object *c = &sc->objs[sc->conns[i].child];
        c->out[c->num_out++] = i;
        if (sc->conns[i].parent != UINT32_MAX) {
            fbx_object *p = &sc->objs[sc->conns[i].parent];
            p->in[p->num_in++] = i;
        }
    }
    return OSSA_OK;
}

/* -- Global settings (§9) -- */

static void unit_vector(int64_t axis, int64_t sign, double v[3])
{
    v[0] = v[1] = v[2] = 0;
    if (axis >= 0 && axis <= 2) v[axis] = sign < 0 ? -1 : 1;
}

static void read_settings(fbx_scene *sc)
{
    fbx_doc *doc = sc->doc;
    const fbx_node *gs = ossa__fbx_child(&doc->root, "GlobalSettings");
    fbx_props p = {ossa__fbx_child(gs, "Properties70"), NULL};
    double r[3], u[3], f[3];
    unit_vector(ossa__fbx_prop_int(&p, "CoordAxis", 0), ossa__fbx_prop_int(&p, "CoordAxisSign", 1), r);
    unit_vector(ossa__fbx_prop_int(&p, "UpAxis", 1), ossa__fbx_prop_int(&p, "UpAxisSign", 1), u);
    unit_vector(ossa__fbx_prop_int(&p, "FrontAxis", 2), ossa__fbx_prop_int(&p, "FrontAxisSign", 1), f);
    double *c = sc->axes.c;
    /* C = [X Z -Y] · [r u f]ᵀ: row i of C is X_i r + Z_i u - Y_i f. */
    static const double X[3] = {1, 0, 0}, Y[3] = {0, 1, 0}, Z[3] = {0, 0, 1};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) c[i * 3 + j] = X[i] * r[j] + Z[i] * u[j] - Y[i] * f[j];
    double det = c[0] * (c[4] * c[8] - c[5] * c[7]) - c[1] * (c[3] * c[8] - c[5] * c[6]) +
                 c[2] * (c[3] * c[7] - c[4] * c[6]);
    if (fabs(det) != 1) {
        ossa__fbx_warn(doc, gs, "GlobalSettings axes are not three distinct axes: kept as they are");
        memset(c, 0, 9 * sizeof *c);
        c[0] = c[4] = c[8] = 1;
        det = 1;
    } else if (det < 0) {
        ossa__fbx_warn(doc, gs, "GlobalSettings declare left-handed axes: converted by a mirror, "
                                "triangles reversed");
    }
    if (doc->options && ossa__option_on(OSSA__OPTIONS(doc->options), "fbx.keep_axes")) {
        memset(c, 0, 9 * sizeof *c);
        c[0] = c[4] = c[8] = 1;
        det = 1;
    }
    sc->axes.mirror = det < 0;
    double k = 1;
    if (!(doc->options && ossa__option_on(OSSA__OPTIONS(doc->options), "fbx.keep_units"))) {
        double unit = ossa__fbx_prop_double(&p, "UnitScaleFactor", 1);
        if (!(unit > 0) || !isfinite(unit) || unit > 1e12) {
            ossa__fbx_warn(doc, gs, "UnitScaleFactor %g is not a positive number: 1 cm is used", unit);
            unit = 1;
        }
        k = unit / 100;
    }
    ossa__fbx_identity(sc->axes.k);
    ossa__fbx_identity(sc->axes.kinv);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            sc->axes.k[j * 4 + i] = k * c[i * 3 + j];
            sc->axes.kinv[i * 4 + j] = c[i * 3 + j] / k; /* Cᵀ / k */
        }
    /* Frame rate (§9's table). */
    static const double rates[19] = {0,  120, 100, 60, 50,         48,  30, 30, 30000.0 / 1001,
                                     30000.0 / 1001, 25, 24, 1000, 24000.0 / 1001, -1, 96, 72,
                                     60000.0 / 1001, 120000.0 / 1001};
    int64_t mode = ossa__fbx_prop_int(&p, "TimeMode", 0);
    double fps = mode >= 0 && mode <= 18 ? rates[mode] : 0;
    if (mode == 14) {
        double custom = ossa__fbx_prop_double(&p, "CustomFrameRate", -1);
        fps = custom > 0 && custom <= 1e6 ? custom : 0;
    }
    if (doc->options && doc->options->framerate > 0) fps = doc->options->framerate;
    sc->fps = fps > 0 ? fps : 30;
}

/* -- The model tree and joints (§10.1) -- */

static bool is_limb(const fbx_object *o)
{
    return ossa__fbx_str_is(o->subclass, "LimbNode") || ossa__fbx_str_is(o->subclass, "Limb") ||
           ossa__fbx_str_is(o->subclass, "Root");
}

static ossa_status build_tree(fbx_scene *sc)
{
    fbx_doc *doc = sc->doc;
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        fbx_object *o = &sc->objs[i];
        if (o->kind != FBX_MODEL) continue;
        bool seen = false;
        for (uint32_t k = 0; k < o->num_out; k++) {
            const fbx_conn *c = &sc->conns[o->out[k]];
            if (c->prop) continue;
            bool to_model = c->parent != UINT32_MAX && sc->objs[c->parent].kind == FBX_MODEL;
            if (!to_model && c->parent != UINT32_MAX) continue;
            if (seen) {
                ossa__fbx_warn(doc, o->node, "model '%s' has a second parent: ignored", o->name);
                break;
            }
            seen = true;
            o->parent = to_model ? (int32_t)c->parent : -1;
        }
        o->is_limb = is_limb(o);
        ossa__fbx_xform_read(doc, o->node, &o->props, &o->xf);
    }
    /* Cycles: walking up from any model must reach a root within the
     * number of models. */
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        if (sc->objs[i].kind != FBX_MODEL) continue;
        int32_t p = sc->objs[i].parent;
        for (uint32_t steps = 0; p >= 0; steps++) {
            if (steps > sc->num_objs)
                return ossa__fbx_fail(doc, sc->objs[i].node, NULL, OSSA_ERROR_CORRUPT,
                                      "model '%s' is its own ancestor (a hierarchy cycle)",
                                      sc->objs[i].name);
            p = sc->objs[p].parent;
        }
    }
    return OSSA_OK;
}

/* Rest local and world matrices, parents first (recursion bounded by the
 * acyclic tree; memoized through `done`). */
static void rest_world(fbx_scene *sc, uint32_t i, uint8_t *done)
{
    /* Iterative: collect the chain of models not yet done, then fill it
     * from the top. */
    uint32_t chain_len = 0;
    for (int32_t p = (int32_t)i; p >= 0 && !done[p]; p = sc->objs[p].parent) chain_len++;
    while (chain_len) {
        int32_t p = (int32_t)i;
        for (uint32_t k = 1; k < chain_len; k++) p = sc->objs[p].parent;
        fbx_object *o = &sc->objs[p];
        const double *ps = o->parent >= 0 ? sc->objs[o->parent].xf.s : NULL;
        ossa__fbx_node_local(&o->xf, o->xf.t, o->xf.r, o->xf.s, ps, o->rest_local);
        if (o->parent >= 0) {
            if (o->xf.inherit != 1 && ps && (ps[0] != ps[1] || ps[1] != ps[2]))
                ossa__fbx_warn(sc->doc, o->node,
                               "model '%s': InheritType %d under a non-uniform scale is "
                               "composed as a plain product",
                               o->name, o->xf.inherit);
            ossa__mat4d_mul(sc->objs[o->parent].rest_world, o->rest_local, o->rest_world);
        } else {
            memcpy(o->rest_world, o->rest_local, sizeof o->rest_world);
        }
        done[p] = 1;
        chain_len--;
    }
}

static bool has_geometry(const fbx_scene *sc, const fbx_object *o)
{
    for (uint32_t k = 0; k < o->num_in; k++) {
        const fbx_conn *c = &sc->conns[o->in[k]];
        if (!c->prop && sc->objs[c->child].kind == FBX_GEOMETRY) return true;
    }
    return false;
}

/* The first cluster linked to model i, or UINT32_MAX. */
static uint32_t first_cluster(const fbx_scene *sc, const fbx_object *o)
{
    for (uint32_t k = 0; k < o->num_out; k++) {
        const fbx_conn *c = &sc->conns[o->out[k]];
        if (c->parent != UINT32_MAX && sc->objs[c->parent].kind == FBX_CLUSTER) return c->parent;
    }
    return UINT32_MAX;
}

static ossa_status choose_joints(fbx_scene *sc, uint8_t *mark)
{
    uint32_t n = sc->num_objs;
    /* mark: 1 joint, 2 has a joint below, 4 carries a mesh or has one below */
    for (uint32_t i = 0; i < n; i++) {
        fbx_object *o = &sc->objs[i];
        if (o->kind != FBX_MODEL) continue;
        if (o->is_limb || first_cluster(sc, o) != UINT32_MAX) mark[i] |= 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const fbx_object *o = &sc->objs[i];
        if (o->kind != FBX_MODEL) continue;
        bool mesh = has_geometry(sc, o), joint = mark[i] & 1;
        for (int32_t p = o->parent; p >= 0 && (mesh || joint); p = sc->objs[p].parent) {
            if (mesh) mark[p] |= 4;
            if (joint) mark[p] |= 2;
        }
        if (mesh) mark[i] |= 4;
    }
    /* Rigidly animated models: not above a chosen joint. */
    for (uint32_t i = 0; i < n; i++) {
        const fbx_object *o = &sc->objs[i];
        if (o->kind != FBX_MODEL || (mark[i] & 3) || !(mark[i] & 4)) continue;
        if (ossa__fbx_model_animated(sc, i)) mark[i] |= 8;
    }
    for (uint32_t i = 0; i < n; i++)
        if (mark[i] & 8) mark[i] |= 1;
    /* Every model between two joints. */
    for (uint32_t i = 0; i < n; i++) {
        if (!(mark[i] & 1)) continue;
        int32_t top = -1;
        for (int32_t p = sc->objs[i].parent; p >= 0; p = sc->objs[p].parent)
            if (mark[p] & 1) top = p;
        if (top < 0) continue;
        for (int32_t p = sc->objs[i].parent; p != top; p = sc->objs[p].parent) mark[p] |= 1;
    }
    return OSSA_OK;
}

/* Depth-first, children in connection order: joint indices parents first. */
static ossa_status order_joints(fbx_scene *sc, const uint8_t *mark)
{
    fbx_doc *doc = sc->doc;
    uint32_t n = sc->num_objs, count = 0;
    for (uint32_t i = 0; i < n; i++)
        if (mark[i] & 1) count++;
    sc->joint_obj = ossa__fbx_alloc(doc, count, sizeof *sc->joint_obj);
    uint32_t *stack = ossa__fbx_alloc(doc, n + 1, sizeof *stack);
    if (!sc->joint_obj || !stack) return OSSA_FAILED;
    uint32_t sp = 0;
    /* Roots in object order, pushed reversed so that they pop in order. */
    for (uint32_t i = n; i-- > 0;)
        if (sc->objs[i].kind == FBX_MODEL && sc->objs[i].parent < 0) stack[sp++] = i;
    while (sp) {
        uint32_t i = stack[--sp];
        fbx_object *o = &sc->objs[i];
        if (mark[i] & 1) {
            o->joint = (int32_t)sc->num_joints;
            sc->joint_obj[sc->num_joints++] = i;
        }
        /* Children: model connections into this one, reversed onto the stack. */
        for (uint32_t k = o->num_in; k-- > 0;) {
            const fbx_conn *c = &sc->conns[o->in[k]];
            uint32_t ch = c->child;
            if (c->prop || sc->objs[ch].kind != FBX_MODEL || sc->objs[ch].parent != (int32_t)i)
                continue;
            stack[sp++] = ch;
        }
    }
    return OSSA_OK;
}

static int32_t parent_joint(const fbx_scene *sc, const fbx_object *o)
{
    for (int32_t p = o->parent; p >= 0; p = sc->objs[p].parent)
        if (sc->objs[p].joint >= 0) return sc->objs[p].joint;
    return -1;
}

static bool matrices_agree(const double a[16], const double b[16])
{
    double scale = 0;
    for (int i = 0; i < 16; i++) scale = fmax(scale, fabs(a[i]));
    for (int i = 0; i < 16; i++)
        if (fabs(a[i] - b[i]) > 1e-4 * (scale > 1 ? scale : 1)) return false;
    return true;
}

static ossa_status matrix_child(fbx_doc *doc, const fbx_node *n, const char *name, double out[16],
                                bool *found)
{
    bool failed = false;
    const fbx_value *v = ossa__fbx_child_array(doc, n, name, &failed);
    *found = false;
    if (failed) return OSSA_FAILED;
    if (!v) return OSSA_OK;
    if (v->count != 16)
        return ossa__fbx_fail(doc, ossa__fbx_child(n, name), v, OSSA_ERROR_CORRUPT,
                              "%s: %u values, expected 16", name, v->count);
    ossa__fbx_matrix_from_array(v, out);
    for (int i = 0; i < 16; i++)
        if (!isfinite(out[i]))
            return ossa__fbx_fail(doc, ossa__fbx_child(n, name), v, OSSA_ERROR_CORRUPT,
                                  "%s: not finite", name);
    *found = true;
    return OSSA_OK;
}

/* Global bind matrices (§10.2): cluster TransformLink, BindPose, rest. */
static ossa_status bind_pose(fbx_scene *sc, const idmap *map)
{
    fbx_doc *doc = sc->doc;
    uint32_t J = sc->num_joints;
    sc->bind_world = ossa__fbx_alloc(doc, J, sizeof *sc->bind_world);
    uint8_t *have = ossa__fbx_alloc(doc, J, 1);
    if (!sc->bind_world || !have) return OSSA_FAILED;
    /* 1. clusters */
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        const fbx_object *cl = &sc->objs[i];
        if (cl->kind != FBX_CLUSTER) continue;
        int32_t j = -1;
        for (uint32_t k = 0; k < cl->num_in && j < 0; k++) {
            const fbx_conn *c = &sc->conns[cl->in[k]];
            if (sc->objs[c->child].kind == FBX_MODEL) j = sc->objs[c->child].joint;
        }
        if (j < 0) continue;
        double m[16];
        bool found;
        if (matrix_child(doc, cl->node, "TransformLink", m, &found)) return OSSA_FAILED;
        if (!found) continue;
        if (!have[j]) {
            memcpy(sc->bind_world[j], m, sizeof m);
            have[j] = 1;
        } else if (!matrices_agree(m, sc->bind_world[j])) {
            ossa__fbx_warn(doc, cl->node,
                           "joint '%s': clusters give different TransformLink matrices; the "
                           "first is used",
                           sc->objs[sc->joint_obj[j]].name);
        }
    }
    /* 2. bind poses */
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        const fbx_object *po = &sc->objs[i];
        if (po->kind != FBX_POSE || !ossa__fbx_str_is(po->subclass, "BindPose")) continue;
        for (const fbx_node *pn = ossa__fbx_child(po->node, "PoseNode"); pn;
             pn = ossa__fbx_next_named(pn->next, "PoseNode")) {
            const fbx_node *nn = ossa__fbx_child(pn, "Node");
            if (!nn || nn->num_values < 1 || !ossa__fbx_is_int(&nn->values[0])) continue;
            uint32_t o = id_find(map, nn->values[0].v.i);
            if (o == UINT32_MAX || sc->objs[o].joint < 0) continue;
            int32_t j = sc->objs[o].joint;
            double m[16];
            bool found;
            if (matrix_child(doc, pn, "Matrix", m, &found)) return OSSA_FAILED;
            if (!found) continue;
            if (!have[j]) {
                memcpy(sc->bind_world[j], m, sizeof m);
                have[j] = 2;
            } else if (have[j] == 1 && !matrices_agree(m, sc->bind_world[j])) {
                ossa__fbx_warn(doc, pn,
                               "joint '%s': the BindPose matrix differs from the cluster's "
                               "TransformLink, which is used",
                               sc->objs[o].name);
            }
        }
    }
    /* 3. the rest pose under the parent's bind (joints parents first) */
    for (uint32_t j = 0; j < J; j++) {
        if (have[j]) continue;
        const fbx_object *o = &sc->objs[sc->joint_obj[j]];
        int32_t pj = parent_joint(sc, o);
        if (pj >= 0)
            ossa__mat4d_mul(sc->bind_world[pj], o->rest_local, sc->bind_world[j]);
        else
            memcpy(sc->bind_world[j], o->rest_world, sizeof sc->bind_world[j]);
    }
    return OSSA_OK;
}

static ossa_status add_joints(fbx_scene *sc)
{
    fbx_doc *doc = sc->doc;
    for (uint32_t j = 0; j < sc->num_joints; j++) {
        const fbx_object *o = &sc->objs[sc->joint_obj[j]];
        int32_t pj = parent_joint(sc, o);
        double local[16], inv[16];
        if (!ossa__mat4d_invert_affine(sc->bind_world[j], inv))
            return ossa__fbx_fail(doc, o->node, NULL, OSSA_ERROR_CORRUPT,
                                  "joint '%s': the bind matrix is singular", o->name);
        if (pj >= 0) {
            if (!ossa__mat4d_invert_affine(sc->bind_world[pj], inv))
                return ossa__fbx_fail(doc, o->node, NULL, OSSA_ERROR_CORRUPT,
                                      "joint '%s': the parent's bind matrix is singular", o->name);
            ossa__mat4d_mul(inv, sc->bind_world[j], local);
        } else {
            memcpy(local, sc->bind_world[j], sizeof local);
        }
        ossa_transform t;
        ossa__fbx_store_transform(sc, local, &t);
        if (ossa_model_add_joint(doc->model, o->name, pj, &t, doc->error) < 0) return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* -- Images, materials and notes -- */

/* The name an image goes by: the base name (after either slash) of the
 * Video's or Texture's file name, else the object's name. */
static void image_name(const fbx_object *o, char out[OSSA_IMAGE_NAME_MAX])
{
    static const char *const keys[] = {"RelativeFilename", "FileName", "Filename"};
    const fbx_value *fn = NULL;
    for (int k = 0; k < 3 && !(fn && fn->count); k++) fn = ossa__fbx_child_string(o->node, keys[k]);
    if (!(fn && fn->count)) {
        snprintf(out, OSSA_IMAGE_NAME_MAX, "%s", o->name);
        return;
    }
    const char *s = fn->v.s, *e = s + fn->count, *b = s;
    for (const char *q = s; q < e; q++)
        if (*q == '/' || *q == '\\') b = q + 1;
    snprintf(out, OSSA_IMAGE_NAME_MAX, "%.*s", (int)(e - b), b);
}

/* Whether `name` is new to `seen` (which then holds it); -1 when memory
 * runs out. A hash set: files may hold any number of objects of a name. */
static int first_of_name(fbx_doc *doc, ossa_intern *seen, const char *name)
{
    uint32_t before = ossa__intern_count(seen);
    int64_t id = ossa__intern(doc->model, seen, name, strlen(name));
    if (id < 0) {
        ossa__fail_nomem(doc->error);
        return -1;
    }
    return (uint32_t)id == before;
}

/* Every Video with Content (binary bytes, ASCII base64) becomes the image
 * OSSA_EXTRA_IMAGE + its name (the first of a name wins). */
static ossa_status add_images(fbx_scene *sc)
{
    fbx_doc *doc = sc->doc;
    if (doc->options && (doc->options->flags & OSSA_LOAD_NO_IMAGES)) return OSSA_OK;
    ossa_intern seen;
    memset(&seen, 0, sizeof seen);
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < sc->num_objs && !st; i++) {
        const fbx_object *o = &sc->objs[i];
        if (o->kind != FBX_VIDEO) continue;
        const fbx_node *content = ossa__fbx_child(o->node, "Content");
        if (!content || content->num_values < 1) continue;
        const fbx_value *v = &content->values[content->num_values - 1];
        const unsigned char *bytes;
        size_t n;
        unsigned char *decoded = NULL;
        if (v->type == 'R') {
            bytes = (const unsigned char *)v->v.s;
            n = v->count;
        } else if (v->type == 'S') {
            decoded = ossa__fbx_alloc(doc, ossa__base64_decoded_max(v->count), 1);
            if (!decoded) {
                st = OSSA_FAILED;
                break;
            }
            /* Lenient: spaces, line breaks and '=' anywhere are skipped. */
            size_t bad = 0;
            if (!ossa__base64_decode(v->v.s, v->count, OSSA_BASE64_LENIENT, decoded, &n, &bad)) {
                st = ossa__fbx_fail(doc, content, v, OSSA_ERROR_CORRUPT,
                                    "Video '%s': Content is not base64 (byte %zu)", o->name, bad);
                break;
            }
            bytes = decoded;
        } else {
            continue;
        }
        if (!n) continue;
        char name[OSSA_IMAGE_NAME_MAX];
        image_name(o, name);
        int first = name[0] ? first_of_name(doc, &seen, name) : 0;
        if (first < 0) st = OSSA_FAILED;
        if (first <= 0) continue;
        char key[sizeof OSSA_EXTRA_IMAGE + OSSA_IMAGE_NAME_MAX];
        snprintf(key, sizeof key, "%s%s", OSSA_EXTRA_IMAGE, name);
        st = ossa_model_add_extra(doc->model, key, bytes, n, doc->error);
    }
    ossa__intern_free(doc->model, &seen);
    return st;
}

/* The image of a material's diffuse texture (a Texture connected to its
 * DiffuseColor, or 3ds Max's diffuse map): its Video's name when it has
 * one, else its own file name; "" without one. */
static void diffuse_image(const fbx_scene *sc, const fbx_object *mat, char out[OSSA_IMAGE_NAME_MAX])
{
    out[0] = 0;
    for (uint32_t k = 0; k < mat->num_in && !out[0]; k++) {
        const fbx_conn *c = &sc->conns[mat->in[k]];
        if (!c->prop || sc->objs[c->child].kind != FBX_TEXTURE ||
            !(ossa__fbx_str_is(c->prop, "DiffuseColor") ||
              ossa__fbx_str_is(c->prop, "3dsMax|maps|texmap_diffuse")))
            continue;
        const fbx_object *tex = &sc->objs[c->child];
        image_name(tex, out);
        for (uint32_t v = 0; v < tex->num_in; v++) {
            const fbx_conn *cv = &sc->conns[tex->in[v]];
            if (!cv->prop && sc->objs[cv->child].kind == FBX_VIDEO) {
                image_name(&sc->objs[cv->child], out);
                break;
            }
        }
    }
}

/* Every named Material as OSSA_EXTRA_MATERIAL + its name, the way Blender's
 * importer reads it: the diffuse texture as the base colour texture, else
 * DiffuseColor as the base colour; ReflectionFactor as metallic (0 by
 * default, where glTF's default is 1) and 1 - sqrt(Shininess) / 10 as
 * roughness; both sides shown (FBX has no culling flag: Blender shows both
 * and exports glTF doubleSided). The renderer and the glTF writer use them;
 * formats that name an image as a mesh's material name it after the
 * texture. */
static ossa_status add_materials(fbx_scene *sc)
{
    fbx_doc *doc = sc->doc;
    ossa_intern seen;
    memset(&seen, 0, sizeof seen);
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < sc->num_objs && !st; i++) {
        const fbx_object *o = &sc->objs[i];
        if (o->kind != FBX_MATERIAL || !o->name[0]) continue;
        char key[sizeof OSSA_EXTRA_MATERIAL + 1024];
        if (snprintf(key, sizeof key, "%s%s", OSSA_EXTRA_MATERIAL, o->name) >= (int)sizeof key)
            continue;
        /* The first material of a name describes it. */
        int first = first_of_name(doc, &seen, o->name);
        if (first < 0) st = OSSA_FAILED;
        if (first <= 0) continue;
        ossa_material d;
        ossa__material_defaults(&d);
        diffuse_image(sc, o, d.textures[OSSA_TEXTURE_BASE_COLOR].image);
        if (!d.textures[OSSA_TEXTURE_BASE_COLOR].image[0]) {
            static const double white[3] = {1, 1, 1};
            double rgb[3];
            ossa__fbx_prop_numbers(&o->props, "DiffuseColor", rgb, 3, white);
            for (int c = 0; c < 3; c++)
                d.base_color[c] = (float)(rgb[c] > 0 ? rgb[c] < 1 ? rgb[c] : 1 : 0);
        }
        double metal = ossa__fbx_prop_double(&o->props, "ReflectionFactor", 0);
        double shine = ossa__fbx_prop_double(&o->props, "Shininess", 20);
        double rough = 1 - sqrt(shine > 0 ? shine : 0) / 10;
        d.metallic = (float)(metal > 0 ? metal < 1 ? metal : 1 : 0);
        d.roughness = (float)(rough > 0 ? rough < 1 ? rough : 1 : 0);
        d.double_sided = true;
        ossa_buf text;
        ossa__buf_init(&text, &doc->scratch.allocator);
        ossa__material_format(&d, &text);
        st = text.failed ? ossa__fail_nomem(doc->error)
                         : ossa_model_add_extra(doc->model, key,
                                                text.size ? text.data : (const void *)"",
                                                text.size, doc->error);
        ossa__buf_release(&text);
    }
    ossa__intern_free(doc->model, &seen);
    return st;
}

static void notes(fbx_scene *sc)
{
    uint32_t cameras = 0, lights = 0, shapes = 0;
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        const fbx_object *o = &sc->objs[i];
        if (o->kind == FBX_MODEL && ossa__fbx_str_is(o->subclass, "Camera")) cameras++;
        if (o->kind == FBX_MODEL && ossa__fbx_str_is(o->subclass, "Light")) lights++;
        if (o->kind == FBX_BLENDSHAPE && o->node && ossa__fbx_name_is(o->node, "Geometry")) shapes++;
    }
    if (cameras || lights)
        ossa__fbx_warn(sc->doc, NULL, "%u %s and %u %s ignored", cameras,
                       cameras == 1 ? "camera" : "cameras", lights, lights == 1 ? "light" : "lights");
    if (shapes)
        ossa__fbx_warn(sc->doc, NULL, "%u %s ignored", shapes, shapes == 1 ? "blend shape" : "blend shapes");
}

/* -- Entry -- */

static ossa_status check_header(fbx_doc *doc)
{
    const fbx_node *h = ossa__fbx_child(&doc->root, "FBXHeaderExtension");
    if (doc->version < 7000)
        return ossa__fbx_fail(doc, h ? h : &doc->root, NULL, OSSA_ERROR_UNSUPPORTED,
                              "FBX version %u: only FBX 7 (7000 and later) is supported",
                              doc->version);
    if (doc->version >= 8000)
        return ossa__fbx_fail(doc, h ? h : &doc->root, NULL, OSSA_ERROR_UNSUPPORTED,
                              "FBX version %u is not FBX 7", doc->version);
    if (doc->version > 7700)
        ossa__fbx_warn(doc, h, "FBX version %u is newer than the newest known (7700)",
                       doc->version);
    const fbx_node *enc = ossa__fbx_child(h, "EncryptionType");
    if (enc && enc->num_values >= 1 && ossa__fbx_is_int(&enc->values[0]) && enc->values[0].v.i)
        return ossa__fbx_fail(doc, enc, NULL, OSSA_ERROR_UNSUPPORTED,
                              "encrypted FBX (EncryptionType %lld)", (long long)enc->values[0].v.i);
    return OSSA_OK;
}

ossa_status ossa__fbx_build(fbx_doc *doc)
{
    if (check_header(doc)) return OSSA_FAILED;
    fbx_scene sc;
    memset(&sc, 0, sizeof sc);
    sc.doc = doc;
    idmap map = {NULL, NULL, 0};
    if (read_objects(&sc, &map) || read_connections(&sc, &map)) return OSSA_FAILED;
    read_settings(&sc);
    if (build_tree(&sc)) return OSSA_FAILED;
    uint8_t *mark = ossa__fbx_alloc(doc, sc.num_objs, 1);
    if (!mark) return OSSA_FAILED;
    for (uint32_t i = 0; i < sc.num_objs; i++)
        if (sc.objs[i].kind == FBX_MODEL) rest_world(&sc, i, mark);
    memset(mark, 0, sc.num_objs);
    if (choose_joints(&sc, mark) || order_joints(&sc, mark) || bind_pose(&sc, &map) ||
        add_joints(&sc))
        return OSSA_FAILED;
    if (ossa__fbx_build_meshes(&sc) || ossa__fbx_build_animations(&sc) || add_images(&sc) ||
        add_materials(&sc))
        return OSSA_FAILED;
    notes(&sc);
    return OSSA_OK;
}
