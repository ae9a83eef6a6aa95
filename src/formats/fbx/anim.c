/* Animation (fbx.md §7.6, §10.4): every AnimationStack becomes one ossa
 * animation sampled on a frame grid over the stack's range. Channels come
 * from the curve nodes of every layer of the stack, blended in connection
 * order (the first layer replaces the rest value; later layers override
 * or add with their Weight), curves evaluated with their own key
 * interpolation (constant, linear, cubic Bézier with weights, TCB), Euler
 * angles evaluated before any conversion. Each frame rebuilds the full
 * local transform (§8) of every joint, folds non-joint ancestors into the
 * top joints, and converts by K. */
#include "formats/fbx/fbx.h"

#include <stdio.h>
#include <stdlib.h>

#include <math.h>

enum { CH_T, CH_R, CH_S };
enum { MODE_ADD, MODE_OVERRIDE, MODE_PASSTHROUGH };

typedef struct curve {
    const fbx_value *times, *values;
    uint32_t n;
    uint32_t *attr;         /* attribute index per key */
    const fbx_value *flags; /* KeyAttrFlags */
    const fbx_value *data;  /* KeyAttrDataFloat, 4 per attribute */
} curve;

typedef struct binding {
    uint32_t model;
    int prop;
    uint32_t layer;
    int32_t curve[3]; /* into the curve table, -1 = none */
    double value[3];  /* the curve node's d|X d|Y d|Z */
} binding;

typedef struct layer_info {
    double weight; /* 0..1 */
    int mode;
    bool mute;
} layer_info;

typedef struct ctx {
    fbx_scene *sc;
    fbx_doc *doc;
    curve *curves;
    uint32_t num_curves;
    int32_t *curve_of_obj; /* object -> curve table index, -1 */
    bool warned_passthrough, warned_tcb;
} ctx;

static int prop_of(const fbx_value *p)
{
    if (ossa__fbx_str_is(p, "Lcl Translation")) return CH_T;
    if (ossa__fbx_str_is(p, "Lcl Rotation")) return CH_R;
    if (ossa__fbx_str_is(p, "Lcl Scaling")) return CH_S;
    return -1;
}

bool ossa__fbx_model_animated(const fbx_scene *sc, uint32_t obj)
{
    const fbx_object *o = &sc->objs[obj];
    for (uint32_t k = 0; k < o->num_in; k++) {
        const fbx_conn *c = &sc->conns[o->in[k]];
        const fbx_object *cn = &sc->objs[c->child];
        if (cn->kind != FBX_CURVE_NODE || prop_of(c->prop) < 0) continue;
        for (uint32_t q = 0; q < cn->num_in; q++)
            if (sc->objs[sc->conns[cn->in[q]].child].kind == FBX_CURVE) return true;
    }
    return false;
}

/* -- Curves -- */

static ossa_status read_curve(ctx *x, const fbx_object *o, curve *cv)
{
    fbx_doc *doc = x->doc;
    const fbx_node *n = o->node;
    bool failed = false;
    memset(cv, 0, sizeof *cv);
    const fbx_value *t = ossa__fbx_child_array(doc, n, "KeyTime", &failed);
    const fbx_value *v = ossa__fbx_child_array(doc, n, "KeyValueFloat", &failed);
    const fbx_value *fl = ossa__fbx_child_array(doc, n, "KeyAttrFlags", &failed);
    const fbx_value *df = ossa__fbx_child_array(doc, n, "KeyAttrDataFloat", &failed);
    const fbx_value *rc = ossa__fbx_child_array(doc, n, "KeyAttrRefCount", &failed);
    if (failed) return OSSA_FAILED;
    uint32_t nt = t ? t->count : 0, nv = v ? v->count : 0;
    if (nt != nv)
        return ossa__fbx_fail(doc, n, t ? t : v, OSSA_ERROR_CORRUPT,
                              "AnimationCurve: %u key times but %u values", nt, nv);
    for (uint32_t k = 0; k < nt; k++) {
        if (k && ossa__fbx_array_int(t, k) < ossa__fbx_array_int(t, k - 1))
            return ossa__fbx_fail(doc, ossa__fbx_child(n, "KeyTime"), t, OSSA_ERROR_CORRUPT,
                                  "KeyTime: key %u goes back in time", k);
        if (!isfinite(ossa__fbx_array_double(v, k)))
            return ossa__fbx_fail(doc, ossa__fbx_child(n, "KeyValueFloat"), v, OSSA_ERROR_CORRUPT,
                                  "KeyValueFloat: key %u is not finite", k);
    }
    cv->times = t;
    cv->values = v;
    cv->n = nt;
    if (!nt || !fl) return OSSA_OK;
    uint32_t na = fl->count;
    if (!rc || rc->count != na)
        return ossa__fbx_fail(doc, n, rc ? rc : fl, OSSA_ERROR_CORRUPT,
                              "AnimationCurve: %u attribute flags but %u reference counts", na,
                              rc ? rc->count : 0);
    if (!df || df->count != 4 * na)
        return ossa__fbx_fail(doc, n, df ? df : fl, OSSA_ERROR_CORRUPT,
                              "KeyAttrDataFloat: %u values, expected 4 per attribute (%u)",
                              df ? df->count : 0, 4 * na);
    cv->attr = ossa__fbx_alloc(doc, nt, sizeof *cv->attr);
    if (!cv->attr) return OSSA_FAILED;
    uint64_t k = 0;
    for (uint32_t a = 0; a < na; a++) {
        int64_t count = ossa__fbx_array_int(rc, a);
        if (count < 0 || k + (uint64_t)count > nt)
            return ossa__fbx_fail(doc, ossa__fbx_child(n, "KeyAttrRefCount"), rc,
                                  OSSA_ERROR_CORRUPT,
                                  "KeyAttrRefCount: counts run past the %u keys at attribute %u",
                                  nt, a);
        for (int64_t q = 0; q < count; q++) cv->attr[k++] = a;
    }
    if (k != nt)
        return ossa__fbx_fail(doc, ossa__fbx_child(n, "KeyAttrRefCount"), rc, OSSA_ERROR_CORRUPT,
                              "KeyAttrRefCount: counts sum to %llu, the curve has %u keys",
                              (unsigned long long)k, nt);
    cv->flags = fl;
    cv->data = df;
    return OSSA_OK;
}

static uint32_t float_bits(const fbx_value *arr, uint32_t i)
{
    /* Weight slots are integers stored in float slots: the raw bits. */
    if (arr->type == 'f') {
        const unsigned char *p = (const unsigned char *)arr->v.data + (size_t)i * 4;
        return ossa__rd32(p);
    }
    float f = (float)ossa__fbx_array_double(arr, i);
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static double key_time(const curve *cv, uint32_t k)
{
    return (double)ossa__fbx_array_int(cv->times, k) / (double)FBX_KTIME_PER_SECOND;
}

static double key_value(const curve *cv, uint32_t k)
{
    return ossa__fbx_array_double(cv->values, k);
}

/* Kochanek–Bartels slopes (value per second) leaving key k (out) and
 * arriving at key k (in), from the key's tension, continuity and bias. */
static void tcb_slopes(const curve *cv, uint32_t k, double *in, double *out)
{
    uint32_t a = cv->attr[k];
    double T = ossa__fbx_array_double(cv->data, 4 * a), C = ossa__fbx_array_double(cv->data, 4 * a + 1),
           B = ossa__fbx_array_double(cv->data, 4 * a + 2);
    double prev = 0, next = 0;
    bool hp = k > 0, hn = k + 1 < cv->n;
    if (hp) {
        double dt = key_time(cv, k) - key_time(cv, k - 1);
        prev = dt > 0 ? (key_value(cv, k) - key_value(cv, k - 1)) / dt : 0;
    }
    if (hn) {
        double dt = key_time(cv, k + 1) - key_time(cv, k);
        next = dt > 0 ? (key_value(cv, k + 1) - key_value(cv, k)) / dt : 0;
    }
    if (!hp) prev = next;
    if (!hn) next = prev;
    *out = (1 - T) * (1 - C) * (1 + B) / 2 * prev + (1 - T) * (1 + C) * (1 - B) / 2 * next;
    *in = (1 - T) * (1 + C) * (1 + B) / 2 * prev + (1 - T) * (1 - C) * (1 - B) / 2 * next;
}

static double bezier(double p0, double p1, double p2, double p3, double u)
{
    double v = 1 - u;
    return v * v * v * p0 + 3 * v * v * u * p1 + 3 * v * u * u * p2 + u * u * u * p3;
}

static double eval_curve(ctx *x, const curve *cv, int64_t kt)
{
    uint32_t n = cv->n;
    if (kt <= ossa__fbx_array_int(cv->times, 0)) return key_value(cv, 0);
    if (kt >= ossa__fbx_array_int(cv->times, n - 1)) return key_value(cv, n - 1);
    uint32_t lo = 0, hi = n - 1; /* times[lo] <= kt < times[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ossa__fbx_array_int(cv->times, mid) <= kt)
            lo = mid;
        else
            hi = mid;
    }
    int64_t t0 = ossa__fbx_array_int(cv->times, lo), t1 = ossa__fbx_array_int(cv->times, lo + 1);
    double v0 = key_value(cv, lo), v1 = key_value(cv, lo + 1);
    /* Differences in double: a hostile file's key times may lie at the
     * ends of int64 (exact for every time below 2^53 ticks, 54 hours). */
    double s = t1 > t0 ? ((double)kt - (double)t0) / ((double)t1 - (double)t0) : 1;
    uint32_t flags = cv->flags ? (uint32_t)ossa__fbx_array_int(cv->flags, cv->attr[lo]) : 4;
    if (flags & 2) return (flags & 0x100) ? v1 : v0;
    if (!(flags & 8)) return v0 + (v1 - v0) * s;
    double dt = ((double)t1 - (double)t0) / (double)FBX_KTIME_PER_SECOND;
    uint32_t a = cv->attr[lo];
    double sr, sl;
    if (flags & 0x200) {
        double in0, out0, in1, out1;
        tcb_slopes(cv, lo, &in0, &out0);
        tcb_slopes(cv, lo + 1, &in1, &out1);
        sr = out0;
        sl = in1;
        (void)in0;
        (void)out1;
        x->warned_tcb = true;
    } else {
        sr = ossa__fbx_array_double(cv->data, 4 * a);
        sl = ossa__fbx_array_double(cv->data, 4 * a + 1);
    }
    double wr = 1.0 / 3, wl = 1.0 / 3;
    uint32_t wbits = float_bits(cv->data, 4 * a + 2);
    if (flags & 0x01000000) wr = (wbits & 0xffff) / 10000.0;
    if (flags & 0x02000000) wl = (wbits >> 16) / 10000.0;
    if (!isfinite(sr)) sr = 0;
    if (!isfinite(sl)) sl = 0;
    double p1 = v0 + sr * wr * dt, p2 = v1 - sl * wl * dt;
    double u = s;
    if (wr != 1.0 / 3 || wl != 1.0 / 3) {
        /* The time polynomial is not linear in u: solve x(u) = s by
         * bisection (it is monotonic for weights in 0..1). */
        double a1 = wr < 0 ? 0 : wr > 1 ? 1 : wr, a2 = 1 - (wl < 0 ? 0 : wl > 1 ? 1 : wl);
        double ulo = 0, uhi = 1;
        for (int it = 0; it < 60; it++) {
            double um = (ulo + uhi) / 2;
            if (bezier(0, a1, a2, 1, um) < s)
                ulo = um;
            else
                uhi = um;
        }
        u = (ulo + uhi) / 2;
    }
    return bezier(v0, p1, p2, v1, u);
}

/* -- Stacks -- */

static int cmp_binding(const void *a, const void *b)
{
    const binding *x = a, *y = b;
    if (x->model != y->model) return x->model < y->model ? -1 : 1;
    if (x->prop != y->prop) return x->prop - y->prop;
    return x->layer < y->layer ? -1 : x->layer > y->layer;
}

typedef struct stack_data {
    binding *b;
    uint32_t nb;
    uint32_t *first; /* per object: first binding, num_objs + 1 */
    layer_info *layers;
    uint32_t num_layers;
} stack_data;

static ossa_status collect(ctx *x, const fbx_object *stack, stack_data *sd)
{
    fbx_scene *sc = x->sc;
    fbx_doc *doc = x->doc;
    /* Layers in connection order. */
    uint32_t nl = 0, nb = 0;
    for (uint32_t k = 0; k < stack->num_in; k++)
        if (sc->objs[sc->conns[stack->in[k]].child].kind == FBX_LAYER) nl++;
    sd->layers = ossa__fbx_alloc(doc, nl, sizeof *sd->layers);
    if (!sd->layers) return OSSA_FAILED;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t li = 0;
        nb = 0;
        for (uint32_t k = 0; k < stack->num_in; k++) {
            const fbx_object *layer = &sc->objs[sc->conns[stack->in[k]].child];
            if (layer->kind != FBX_LAYER) continue;
            if (pass == 0) {
                layer_info *L = &sd->layers[li];
                L->weight = ossa__fbx_prop_double(&layer->props, "Weight", 100) / 100;
                if (!isfinite(L->weight)) L->weight = 1;
                int64_t mode = ossa__fbx_prop_int(&layer->props, "BlendMode", 0);
                L->mode = mode == 1 ? MODE_OVERRIDE : mode == 2 ? MODE_PASSTHROUGH : MODE_ADD;
                L->mute = ossa__fbx_prop_int(&layer->props, "Mute", 0) != 0;
            }
            for (uint32_t q = 0; q < layer->num_in; q++) {
                const fbx_object *cn = &sc->objs[sc->conns[layer->in[q]].child];
                if (cn->kind != FBX_CURVE_NODE) continue;
                for (uint32_t r = 0; r < cn->num_out; r++) {
                    const fbx_conn *c = &sc->conns[cn->out[r]];
                    int prop = prop_of(c->prop);
                    if (prop < 0 || c->parent == UINT32_MAX || sc->objs[c->parent].kind != FBX_MODEL)
                        continue;
                    if (pass == 1) {
                        binding *b = &sd->b[nb];
                        b->model = c->parent;
                        b->prop = prop;
                        b->layer = li;
                        static const char *comp[3] = {"d|X", "d|Y", "d|Z"};
                        const fbx_object *m = &sc->objs[c->parent];
                        const double *rest = prop == CH_T ? m->xf.t : prop == CH_R ? m->xf.r : m->xf.s;
                        for (int a = 0; a < 3; a++) {
                            b->curve[a] = -1;
                            b->value[a] = ossa__fbx_prop_double(&cn->props, comp[a], rest[a]);
                        }
                        for (uint32_t s = 0; s < cn->num_in; s++) {
                            const fbx_conn *cc = &sc->conns[cn->in[s]];
                            int32_t ci = x->curve_of_obj[cc->child];
                            if (ci < 0 || !cc->prop) continue;
                            for (int a = 0; a < 3; a++)
                                if (ossa__fbx_str_is(cc->prop, comp[a]) && x->curves[ci].n)
                                    b->curve[a] = ci;
                        }
                    }
                    nb++;
                }
            }
            li++;
        }
        if (pass == 0) {
            sd->b = ossa__fbx_alloc(doc, nb, sizeof *sd->b);
            if (!sd->b) return OSSA_FAILED;
        }
    }
    sd->num_layers = nl;
    sd->nb = nb;
    qsort(sd->b, nb, sizeof *sd->b, cmp_binding);
    sd->first = ossa__fbx_alloc(doc, (size_t)sc->num_objs + 1, sizeof *sd->first);
    if (!sd->first) return OSSA_FAILED;
    uint32_t k = 0;
    for (uint32_t o = 0; o <= sc->num_objs; o++) {
        while (k < nb && sd->b[k].model < o) k++;
        sd->first[o] = k;
    }
    return OSSA_OK;
}

/* The value of channel `prop` of model `o` at time kt. */
static void channel(ctx *x, const stack_data *sd, uint32_t o, int prop, int64_t kt, double out[3])
{
    const fbx_object *m = &x->sc->objs[o];
    const double *rest = prop == CH_T ? m->xf.t : prop == CH_R ? m->xf.r : m->xf.s;
    memcpy(out, rest, 3 * sizeof *out);
    bool first = true;
    for (uint32_t k = sd->first[o]; k < sd->first[o + 1]; k++) {
        const binding *b = &sd->b[k];
        if (b->prop != prop) continue;
        const layer_info *L = &sd->layers[b->layer];
        if (L->mute) continue;
        double lv[3];
        for (int a = 0; a < 3; a++)
            lv[a] = b->curve[a] >= 0 ? eval_curve(x, &x->curves[b->curve[a]], kt) : b->value[a];
        double w = L->weight;
        for (int a = 0; a < 3; a++) {
            if (first || L->mode != MODE_ADD) {
                out[a] = out[a] * (1 - w) + lv[a] * w;
            } else if (prop == CH_S) {
                out[a] *= lv[a] > 0 ? pow(lv[a], w) : lv[a] * w;
            } else {
                out[a] += lv[a] * w;
            }
        }
        if (L->mode == MODE_PASSTHROUGH && !first) x->warned_passthrough = true;
        first = false;
    }
}

static void local_at(ctx *x, const stack_data *sd, uint32_t o, int64_t kt, double out[16])
{
    const fbx_object *m = &x->sc->objs[o];
    double t[3], r[3], s[3], ps[3];
    channel(x, sd, o, CH_T, kt, t);
    channel(x, sd, o, CH_R, kt, r);
    channel(x, sd, o, CH_S, kt, s);
    const double *pscale = NULL;
    if (m->parent >= 0 && m->xf.inherit == 2) {
        channel(x, sd, (uint32_t)m->parent, CH_S, kt, ps);
        pscale = ps;
    }
    ossa__fbx_node_local(&m->xf, t, r, s, pscale, out);
}

/* The stack's time range in KTime (§10.4). */
static void stack_range(ctx *x, const fbx_object *stack, const stack_data *sd, int64_t *start,
                        int64_t *stop)
{
    fbx_doc *doc = x->doc;
    int64_t a = ossa__fbx_prop_int(&stack->props, "LocalStart", 0);
    int64_t b = ossa__fbx_prop_int(&stack->props, "LocalStop", 0);
    if (b > a) {
        *start = a;
        *stop = b;
        return;
    }
    const fbx_node *takes = ossa__fbx_child(&doc->root, "Takes");
    for (const fbx_node *t = ossa__fbx_child(takes, "Take"); t; t = ossa__fbx_next_named(t->next, "Take")) {
        if (t->num_values < 1 || t->values[0].type != 'S') continue;
        size_t n = strlen(stack->name);
        const fbx_value *tn = &t->values[0];
        /* ASCII takes are named plainly; so are binary ones. */
        if (tn->count != n || memcmp(tn->v.s, stack->name, n) != 0) continue;
        const fbx_node *lt = ossa__fbx_child(t, "LocalTime");
        if (lt && lt->num_values >= 2 && ossa__fbx_is_int(&lt->values[0]) &&
            ossa__fbx_is_int(&lt->values[1]) && lt->values[1].v.i > lt->values[0].v.i) {
            *start = lt->values[0].v.i;
            *stop = lt->values[1].v.i;
            return;
        }
    }
    bool any = false;
    int64_t lo = 0, hi = 0;
    for (uint32_t k = 0; k < sd->nb; k++)
        for (int c = 0; c < 3; c++) {
            if (sd->b[k].curve[c] < 0) continue;
            const curve *cv = &x->curves[sd->b[k].curve[c]];
            int64_t t0 = ossa__fbx_array_int(cv->times, 0), t1 = ossa__fbx_array_int(cv->times, cv->n - 1);
            if (!any || t0 < lo) lo = t0;
            if (!any || t1 > hi) hi = t1;
            any = true;
        }
    *start = any ? lo : 0;
    *stop = any ? hi : 0;
}

/* start + ticks rounded, kept inside int64 (a stack may start or stop at
 * its ends). */
static int64_t ktime_after(int64_t start, double ticks)
{
    double t = floor(ticks + 0.5);
    int64_t off = t < 9.2e18 ? (int64_t)t : INT64_MAX; /* ticks >= 0 */
    return start > INT64_MAX - off ? INT64_MAX : start + off;
}

static ossa_status build_stack(ctx *x, const fbx_object *stack, double *world_tmp)
{
    fbx_scene *sc = x->sc;
    fbx_doc *doc = x->doc;
    stack_data sd;
    memset(&sd, 0, sizeof sd);
    if (collect(x, stack, &sd)) return OSSA_FAILED;
    int64_t start, stop;
    stack_range(x, stack, &sd, &start, &stop);
    /* The stack's own rate and loop flag where ossa wrote them (the file
     * has one rate; fbx.md, writing), else the file's rate. */
    double fps = sc->fps, own = ossa__fbx_prop_double(&stack->props, "ossa|FrameRate", 0);
    if (isfinite(own) && own > 0 && own <= 1000) fps = own;
    uint32_t loop = ossa__fbx_prop_int(&stack->props, "ossa|Loop", 0) == 1 ? OSSA_ANIMATION_LOOP : 0;
    double span = ((double)stop - (double)start) / (double)FBX_KTIME_PER_SECOND;
    double frames = floor(span * fps + 0.5) + 1;
    uint32_t J = sc->num_joints;
    if (!(frames >= 1) || frames > 1e6)
        return ossa__fbx_fail(doc, stack->node, NULL, OSSA_ERROR_UNSUPPORTED,
                              "AnimationStack '%s': %.0f frames at %g fps (%.3f s) is beyond the "
                              "limit of 1000000",
                              stack->name, frames, fps, span);
    uint32_t nf = (uint32_t)frames;
    uint64_t bytes = (uint64_t)nf * (J ? J : 1) * sizeof(ossa_transform);
    if (bytes > doc->pose_budget)
        return ossa__fbx_fail(doc, stack->node, NULL, OSSA_ERROR_UNSUPPORTED,
                              "AnimationStack '%s': %u frames at %g fps (%.3f s) for %u joints "
                              "would take %llu MiB, out of proportion to the file (%llu MiB left "
                              "for its animations)",
                              stack->name, nf, fps, span, J, (unsigned long long)(bytes >> 20),
                              (unsigned long long)(doc->pose_budget >> 20));
    doc->pose_budget -= bytes;
    ossa_animation *anim =
        ossa_model_add_animation(doc->model, stack->name, nf, (float)fps, loop, doc->error);
    if (!anim) return OSSA_FAILED;
    for (uint32_t f = 0; f < nf; f++) {
        int64_t kt = ktime_after(start, (double)f * (double)FBX_KTIME_PER_SECOND / fps);
        for (uint32_t j = 0; j < J; j++) {
            uint32_t o = sc->joint_obj[j];
            double local[16];
            local_at(x, &sd, o, kt, local);
            int32_t p = sc->objs[o].parent;
            if (p >= 0 && sc->objs[p].joint < 0) {
                /* A top joint under non-joint models: fold them in. */
                double acc[16], l2[16], tmp[16];
                memcpy(acc, local, sizeof acc);
                for (; p >= 0; p = sc->objs[p].parent) {
                    local_at(x, &sd, (uint32_t)p, kt, l2);
                    ossa__mat4d_mul(l2, acc, tmp);
                    memcpy(acc, tmp, sizeof acc);
                }
                memcpy(local, acc, sizeof local);
            }
            ossa_transform *t = &anim->frames[(size_t)f * J + j];
            ossa__fbx_store_transform(sc, local, t);
            if (f > 0) {
                const float *q0 = anim->frames[(size_t)(f - 1) * J + j].rotation;
                float *q = t->rotation;
                if (q0[0] * q[0] + q0[1] * q[1] + q0[2] * q[2] + q0[3] * q[3] < 0)
                    for (int c = 0; c < 4; c++) q[c] = -q[c];
            }
        }
    }
    (void)world_tmp;
    return OSSA_OK;
}

ossa_status ossa__fbx_build_animations(fbx_scene *sc)
{
    fbx_doc *doc = sc->doc;
    ctx x;
    memset(&x, 0, sizeof x);
    x.sc = sc;
    x.doc = doc;
    uint32_t stacks = 0;
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        if (sc->objs[i].kind == FBX_CURVE) x.num_curves++;
        if (sc->objs[i].kind == FBX_STACK) stacks++;
    }
    if (!stacks || !sc->num_joints) return OSSA_OK;
    x.curves = ossa__fbx_alloc(doc, x.num_curves, sizeof *x.curves);
    x.curve_of_obj = ossa__fbx_alloc(doc, sc->num_objs, sizeof *x.curve_of_obj);
    if (!x.curves || !x.curve_of_obj) return OSSA_FAILED;
    uint32_t nc = 0;
    for (uint32_t i = 0; i < sc->num_objs; i++) {
        x.curve_of_obj[i] = -1;
        if (sc->objs[i].kind != FBX_CURVE) continue;
        if (read_curve(&x, &sc->objs[i], &x.curves[nc])) return OSSA_FAILED;
        x.curve_of_obj[i] = (int32_t)nc++;
    }
    for (uint32_t i = 0; i < sc->num_objs; i++)
        if (sc->objs[i].kind == FBX_STACK && build_stack(&x, &sc->objs[i], NULL))
            return OSSA_FAILED;
    if (x.warned_passthrough)
        ossa__fbx_warn(doc, NULL, "BlendMode 2 (override passthrough) layers blended as override");
    if (x.warned_tcb)
        ossa__fbx_warn(doc, NULL,
                       "TCB keys evaluated with Kochanek-Bartels slopes from their neighbours "
                       "(unverified against the SDK)");
    return OSSA_OK;
}
