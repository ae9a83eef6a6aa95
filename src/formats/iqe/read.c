/* IQE reader, first half: one pass over the text turns commands into raw
 * lists (iqe.h: iqe_doc). Nothing is allocated per token; lists grow by
 * doubling. Lexical rules: docs/formats/iqe.md §1. */
#include "formats/iqe/iqe.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* -- Parser state -- */

#define MAX_UNKNOWN_WARNINGS 10

typedef struct parser {
    iqe_doc *d;
    ossa_error *error;
    const char *data, *end;
    const char *line_start; /* first byte of the current line */
    const char *p;          /* cursor inside the current line */
    const char *word;       /* the command word, for messages */
    int word_len;
    uint32_t line;

    uint32_t mesh_name, material;
    uint32_t mesh_first_vertex;
    bool group_dirty;
    uint32_t group;
    iqe_state state;
    bool state_dirty;
    uint32_t state_id;
    bool in_animation, frame_open;

    uint32_t *group_slots; /* hash of (name, material) -> group + 1 */
    size_t group_cap;

    iqe_vec face_idx; /* per-line temporaries: face indices (uint32) */
    iqe_vec pairs;    /* and blend pairs */
    uint32_t unknown; /* unknown commands seen */
    uint32_t short_fs;

    const char *file_end; /* ps.end is the end of the range being parsed */
    /* A share parsed on another thread (see "Parallel shares"): anything
     * that would warn stops it instead (aborted), and the calling thread
     * parses that text again itself. */
    bool speculative, aborted;
} parser;

static uint32_t column_of(const parser *ps, const char *at)
{
    return (uint32_t)(at - ps->line_start) + 1;
}

static ossa_status nomem(parser *ps) { return ossa__fail_nomem(ps->error); }

static ossa_status fail_at(parser *ps, const char *at, const char *fmt, ...) OSSA_PRINTF(3, 4);
static ossa_status fail_at(parser *ps, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(ps->error, OSSA_ERROR_CORRUPT, OSSA_NO_OFFSET, ps->line, column_of(ps, at), fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

static void warn_at(parser *ps, ossa_code code, const char *at, const char *fmt, ...)
    OSSA_PRINTF(4, 5);
static void warn_at(parser *ps, ossa_code code, const char *at, const char *fmt, ...)
{
    if (ps->speculative) {
        ps->aborted = true;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    ossa__warnv(ps->d->model, code, (uint64_t)(ps->line_start - ps->data), ps->line,
                column_of(ps, at), fmt, ap);
    va_end(ap);
}

/* Length of the token at p, for quoting it in messages (at most 40). */
static int token_len(const parser *ps, const char *p)
{
    int n = 0;
    while (p + n < ps->end && n < 40 && !ossa__text_blank(p[n]) && p[n] != '\n') n++;
    return n;
}

/* Moves to the next token of the line; false at the end of the line. A
 * token starting with '#' begins a trailing comment. */
static inline bool next_token(parser *ps)
{
    const char *p = ps->p, *end = ps->end;
    while (p < end && ossa__text_blank(*p)) p++;
    ps->p = p;
    return p < end && *p != '\n' && *p != '#';
}

static ossa_status not_a_number(parser *ps, const char *what)
{
    return fail_at(ps, ps->p, "expected %s after '%.*s', found '%.*s'", what, ps->word_len,
                   ps->word, token_len(ps, ps->p), ps->p);
}

/* Reads up to `max` numbers into v; returns how many (or -1 on error). */
static int floats(parser *ps, float *v, int max)
{
    int n = 0;
    while (n < max && next_token(ps)) {
        const char *q = ossa__text_parse_float(ps->p, ps->end, &v[n]);
        if (!q) return not_a_number(ps, "a number"), -1;
        ps->p = q;
        n++;
    }
    return n;
}

/* 1: an integer was read, 0: end of line, -1: error. */
static int integer(parser *ps, int64_t *out)
{
    if (!next_token(ps)) return 0;
    const char *q = ossa__text_parse_int(ps->p, ps->end, out);
    if (!q) return not_a_number(ps, "an integer"), -1;
    ps->p = q;
    return 1;
}

/* A quoted or bare name into the pool; "" when the line has none. */
static ossa_status name(parser *ps, uint32_t *out)
{
    *out = 0;
    if (!next_token(ps) && !(ps->p < ps->end && *ps->p == '#')) return OSSA_OK;
    const char *p = ps->p, *s, *e;
    if (*p == '"') {
        s = ++p;
        while (p < ps->end && *p != '"' && *p != '\n') p++;
        e = p;
        if (p < ps->end && *p == '"') p++;
        else if (e > s && e[-1] == '\r') e--; /* unterminated: up to the line end */
    } else {
        s = p;
        while (p < ps->end && !ossa__text_blank(*p) && *p != '\n') p++;
        e = p;
    }
    ps->p = p;
    size_t len = (size_t)(e - s);
    if (len == 0) return OSSA_OK;
    iqe_vec *pool = &ps->d->pool;
    if (!ossa__iqe_vec_reserve(ps->d->allocator, pool, pool->count + len + 1, 1)) return nomem(ps);
    if (pool->count + len + 1 > UINT32_MAX) return fail_at(ps, s, "too many names");
    *out = (uint32_t)pool->count;
    memcpy(pool->data + pool->count, s, len);
    pool->data[pool->count + len] = 0;
    pool->count += len + 1;
    return OSSA_OK;
}

/* Appends one element of `elem` bytes; NULL when memory runs out. */
static inline void *push(parser *ps, iqe_vec *v, size_t elem)
{
    if (v->count == v->cap && !ossa__iqe_vec_reserve(ps->d->allocator, v, v->count + 1, elem))
        return NULL;
    return v->data + elem * v->count++;
}

static uint32_t num_vertices(const parser *ps) { return (uint32_t)ps->d->pos.count; }

/* -- Vertex attributes (§2) -- */

static ossa_status attribute(parser *ps, iqe_vec *v, int slot, const float *defaults, int max)
{
    float f[6];
    memcpy(f, defaults, (size_t)max * sizeof *f);
    if (floats(ps, f, max) < 0) return OSSA_FAILED;
    float *dst = push(ps, v, (size_t)max * sizeof(float));
    if (!dst) return nomem(ps);
    memcpy(dst, f, (size_t)max * sizeof *f);
    if (v->count > UINT32_MAX - 1) return fail_at(ps, ps->word, "too many vertices");
    ps->d->last_line[slot] = ps->line;
    return OSSA_OK;
}

static ossa_status cmd_vp(parser *ps)
{
    static const float def[4] = {0, 0, 0, 1};
    return attribute(ps, &ps->d->pos, OSSA_VERTEX_POSITION, def, 4);
}

static ossa_status cmd_vx(parser *ps)
{
    float f[6] = {0, 0, 0, 0, 0, 0};
    int n = floats(ps, f, 6);
    if (n < 0) return OSSA_FAILED;
    float *t = push(ps, &ps->d->tan, 8 * sizeof(float));
    if (!t) return nomem(ps);
    t[0] = f[0];
    t[1] = f[1];
    t[2] = f[2];
    if (n > 4) { /* X Y Z A B C: the sign comes from the bitangent later */
        t[3] = 1;
        t[4] = f[3];
        t[5] = f[4];
        t[6] = f[5];
        t[7] = 1;
    } else { /* X Y Z [W]: store +-1, missing or 0 -> +1 */
        t[3] = f[3] < 0 ? -1.0f : 1.0f;
        t[4] = t[5] = t[6] = t[7] = 0;
    }
    ps->d->last_line[OSSA_VERTEX_TANGENT] = ps->line;
    return OSSA_OK;
}

/* vb: (joint, weight) pairs in any number and order, limited by the
 * shared step (core/influences.h): repeated joints summed, weights <=
 * 0.001 (compared as floats, the value the file's number reads as)
 * dropped, the largest kept, largest first, ties in line order.
 * Renormalizing waits for the builder, which knows how many slots the
 * blend arrays finally have. */
static ossa_status cmd_vb(parser *ps)
{
    iqe_doc *d = ps->d;
    uint32_t n = 0;
    for (;;) {
        int64_t joint;
        const char *at = (next_token(ps), ps->p);
        int r = integer(ps, &joint);
        if (r < 0) return OSSA_FAILED;
        if (r == 0) break;
        if (joint < 0 || joint > INT32_MAX)
            return fail_at(ps, at, "joint index %lld is out of range", (long long)joint);
        float w = 0;
        if (floats(ps, &w, 1) < 0) return OSSA_FAILED;
        if ((uint64_t)joint >= d->joints.count) {
            iqe_ref *ref = push(ps, &d->joint_refs, sizeof *ref);
            if (!ref) return nomem(ps);
            ref->value = (uint64_t)joint;
            ref->line = ps->line;
            ref->column = column_of(ps, at);
        }
        if (n == UINT32_MAX ||
            !ossa__iqe_vec_reserve(d->allocator, &ps->pairs, (size_t)n + 1, sizeof(ossa__influence)))
            return nomem(ps);
        ossa__influence *pair = (ossa__influence *)ps->pairs.data + n;
        pair->joint = (uint32_t)joint;
        pair->order = n++;
        pair->weight = w;
    }
    ossa__influence *pairs = (ossa__influence *)ps->pairs.data;
    uint32_t K = d->influences;
    ossa__influence_rule rule = {K, 0.001f, false};
    n = n ? ossa__influences_limit(pairs, n, &rule, NULL) : 0;
    unsigned char *rec = push(ps, &d->blend, (size_t)K * 8);
    if (!rec) return nomem(ps);
    uint32_t *idx = (uint32_t *)rec;
    float *wgt = (float *)(rec + (size_t)K * 4);
    for (uint32_t k = 0; k < K; k++) {
        idx[k] = k < n ? pairs[k].joint : 0;
        wgt[k] = k < n ? (float)pairs[k].weight : 0;
    }
    d->last_line[OSSA_VERTEX_BLENDINDEXES] = ps->line;
    return OSSA_OK;
}

static ossa_status cmd_vs(parser *ps)
{
    int64_t v = 0;
    if (integer(ps, &v) < 0) return OSSA_FAILED;
    int64_t *dst = push(ps, &ps->d->vs, sizeof *dst);
    if (!dst) return nomem(ps);
    *dst = v;
    ps->d->last_line[IQE_NUM_SLOTS] = ps->line;
    return OSSA_OK;
}

/* -- Meshes and faces (§4, §5) -- */

static uint32_t hash_name(const char *s, uint32_t h)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static uint32_t group_hash(const iqe_doc *d, uint32_t name, uint32_t material)
{
    uint32_t h = hash_name(ossa__iqe_str(d, name), 2166136261u);
    return hash_name(ossa__iqe_str(d, material), (h ^ 0xff) * 16777619u);
}

static bool group_rehash(parser *ps, size_t cap)
{
    uint32_t *slots = ossa__alloc(ps->d->allocator, cap * sizeof *slots);
    if (!slots) return false;
    memset(slots, 0, cap * sizeof *slots);
    const iqe_group *g = (const iqe_group *)ps->d->groups.data;
    for (size_t i = 0; i < ps->d->groups.count; i++) {
        size_t s = group_hash(ps->d, g[i].name, g[i].material) & (cap - 1);
        while (slots[s]) s = (s + 1) & (cap - 1);
        slots[s] = (uint32_t)i + 1;
    }
    ossa__free(ps->d->allocator, ps->group_slots, ps->group_cap * sizeof *slots);
    ps->group_slots = slots;
    ps->group_cap = cap;
    return true;
}

/* The group of the current (name, material) pair: every occurrence of a
 * pair is one mesh, consecutive or not (docs/formats/iqm.md §14, bug 2). */
static ossa_status current_group(parser *ps)
{
    if (!ps->group_dirty) return OSSA_OK;
    iqe_doc *d = ps->d;
    const char *name = ossa__iqe_str(d, ps->mesh_name), *mat = ossa__iqe_str(d, ps->material);
    if ((d->groups.count + 1) * 2 > ps->group_cap && !group_rehash(ps, ps->group_cap ? ps->group_cap * 2 : 16))
        return nomem(ps);
    size_t s = group_hash(d, ps->mesh_name, ps->material) & (ps->group_cap - 1);
    const iqe_group *g = (const iqe_group *)d->groups.data;
    while (ps->group_slots[s]) {
        const iqe_group *c = &g[ps->group_slots[s] - 1];
        if (strcmp(ossa__iqe_str(d, c->name), name) == 0 &&
            strcmp(ossa__iqe_str(d, c->material), mat) == 0) {
            ps->group = ps->group_slots[s] - 1;
            ps->group_dirty = false;
            return OSSA_OK;
        }
        s = (s + 1) & (ps->group_cap - 1);
    }
    iqe_group *ng = push(ps, &d->groups, sizeof *ng);
    if (!ng) return nomem(ps);
    ng->name = ps->mesh_name;
    ng->material = ps->material;
    ps->group = (uint32_t)d->groups.count - 1;
    ps->group_slots[s] = ps->group + 1;
    ps->group_dirty = false;
    return OSSA_OK;
}

static ossa_status current_state(parser *ps)
{
    if (!ps->state_dirty) return OSSA_OK;
    iqe_vec *v = &ps->d->states;
    if (v->count) {
        const iqe_state *last = &IQE_AT(*v, iqe_state, v->count - 1);
        if (last->group == ps->state.group && last->angle == ps->state.angle &&
            last->uv == ps->state.uv) {
            ps->state_dirty = false;
            return OSSA_OK;
        }
    }
    iqe_state *s = push(ps, v, sizeof *s);
    if (!s) return nomem(ps);
    *s = ps->state;
    ps->state_id = (uint32_t)v->count - 1;
    ps->state_dirty = false;
    return OSSA_OK;
}

/* Starts a run when the group or smoothing state of the next triangles
 * differs from the last run's. */
static ossa_status add_run(parser *ps)
{
    iqe_vec *runs = &ps->d->runs;
    if (runs->count) {
        const iqe_run *last = &IQE_AT(*runs, iqe_run, runs->count - 1);
        if (last->group == ps->group && last->state == ps->state_id) return OSSA_OK;
    }
    iqe_run *r = push(ps, runs, sizeof *r);
    if (!r) return nomem(ps);
    r->first = (uint32_t)ps->d->tris.count;
    r->group = ps->group;
    r->state = ps->state_id;
    return OSSA_OK;
}

static ossa_status new_segment(parser *ps)
{
    if (current_state(ps)) return OSSA_FAILED;
    iqe_segment *s = push(ps, &ps->d->segments, sizeof *s);
    if (!s) return nomem(ps);
    s->first_vertex = num_vertices(ps);
    s->name = ps->mesh_name;
    s->material = ps->material;
    s->state = ps->state_id;
    s->line = ps->line;
    return OSSA_OK;
}

static ossa_status cmd_mesh(parser *ps)
{
    if (name(ps, &ps->mesh_name)) return OSSA_FAILED;
    ps->mesh_first_vertex = num_vertices(ps);
    ps->group_dirty = true;
    return new_segment(ps);
}

static ossa_status cmd_material(parser *ps)
{
    if (name(ps, &ps->material)) return OSSA_FAILED;
    ps->group_dirty = true;
    return new_segment(ps);
}

/* fa / fm: a convex polygon split as a fan (A,B,C), (A,C,D), ... */
static ossa_status cmd_face(parser *ps, bool mesh_relative)
{
    iqe_doc *d = ps->d;
    uint32_t nv = num_vertices(ps);
    uint64_t base = mesh_relative ? ps->mesh_first_vertex : 0;
    uint32_t n = 0;
    for (;;) {
        int64_t i;
        const char *at = (next_token(ps), ps->p);
        int r = integer(ps, &i);
        if (r < 0) return OSSA_FAILED;
        if (r == 0) break;
        int64_t v;
        if (i < 0) {
            /* Negative: back from the last vertex read so far, never
             * mesh-relative (§4). */
            v = (int64_t)nv + i;
            if (v < 0)
                return fail_at(ps, at,
                               "vertex index %lld points before the first vertex (%u vertices so "
                               "far)",
                               (long long)i, nv);
        } else {
            if ((uint64_t)i > UINT32_MAX - 1 - base)
                return fail_at(ps, at, "vertex index %lld is out of range", (long long)i);
            v = (int64_t)(base + (uint64_t)i);
        }
        if (v >= (int64_t)nv) { /* may be defined later: checked at the end */
            iqe_ref *ref = push(ps, &d->vertex_refs, sizeof *ref);
            if (!ref) return nomem(ps);
            ref->value = (uint64_t)v;
            ref->line = ps->line;
            ref->column = column_of(ps, at);
        }
        if (!ossa__iqe_vec_reserve(d->allocator, &ps->face_idx, n + 1, sizeof(uint32_t)))
            return nomem(ps);
        ((uint32_t *)ps->face_idx.data)[n++] = (uint32_t)v;
    }
    d->any_faces = true;
    uint32_t *face_n = push(ps, &d->face_n, sizeof *face_n);
    if (!face_n) return nomem(ps);
    *face_n = n;
    if (d->face_n.count > UINT32_MAX - 1) return fail_at(ps, ps->word, "too many faces");
    if (n < 3) return OSSA_OK;
    if (current_group(ps) || current_state(ps) || add_run(ps)) return OSSA_FAILED;
    const uint32_t *idx = (const uint32_t *)ps->face_idx.data;
    if (d->tris.count + n - 2 > UINT32_MAX / 3) return fail_at(ps, ps->word, "too many triangles");
    if (!ossa__iqe_vec_reserve(d->allocator, &d->tris, d->tris.count + n - 2, sizeof(iqe_tri)))
        return nomem(ps);
    for (uint32_t k = 0; k + 2 < n; k++) {
        iqe_tri *t = &IQE_AT(d->tris, iqe_tri, d->tris.count++);
        t->v[0] = idx[0];
        t->v[1] = idx[k + 1];
        t->v[2] = idx[k + 2];
    }
    return OSSA_OK;
}

static ossa_status cmd_fs(parser *ps)
{
    iqe_doc *d = ps->d;
    size_t first = d->fs_flags.count;
    int64_t f;
    int r;
    while ((r = integer(ps, &f)) > 0) {
        unsigned char *flag = push(ps, &d->fs_flags, 1);
        if (!flag) return nomem(ps);
        *flag = f != 0;
    }
    if (r < 0) return OSSA_FAILED;
    size_t count = d->fs_flags.count - first;
    if (count < 3) { /* ignored (§5) */
        d->fs_flags.count = first;
        if (ps->short_fs++ == 0)
            warn_at(ps, OSSA_WARNING_TRUNCATED, ps->word, "'fs' with fewer than 3 flags is ignored");
        return OSSA_OK;
    }
    if (first > UINT32_MAX || count > UINT32_MAX) return fail_at(ps, ps->word, "too many flags");
    iqe_fs *fs = push(ps, &d->fs, sizeof *fs);
    if (!fs) return nomem(ps);
    fs->first = (uint32_t)first;
    fs->count = (uint32_t)count;
    fs->line = ps->line;
    return OSSA_OK;
}

static ossa_status cmd_smooth(parser *ps, char which)
{
    if (which == 'u') { /* smoothuv [N]: N > 0 or no N: on */
        int64_t n = 1;
        if (integer(ps, &n) < 0) return OSSA_FAILED;
        ps->state.uv = n > 0;
    } else if (which == 'g') { /* smoothgroup [N]: no N keeps the key */
        int64_t n;
        int r = integer(ps, &n);
        if (r < 0) return OSSA_FAILED;
        if (r > 0) ps->state.group = n;
    } else { /* smoothangle [A]: no A reads 0 */
        float a = 0;
        if (floats(ps, &a, 1) < 0) return OSSA_FAILED;
        ps->state.angle = !(a > 0) ? 0 : a > 180 ? 180 : a;
    }
    ps->state_dirty = true;
    return OSSA_OK;
}

/* -- Vertex array declarations (§3) -- */

static bool word_is(const char *p, size_t n, const char *w)
{
    if (strlen(w) != n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != w[i]) return false;
    }
    return true;
}

static ossa_status cmd_vertexarray(parser *ps)
{
    static const char *const types[] = {"position", "texcoord", "normal", "tangent",
                                        "blendindexes", "blendweights", "color"};
    static const char *const formats[] = {"byte", "ubyte", "short", "ushort", "int",
                                          "uint", "half",  "float", "double"};
    if (!next_token(ps)) return warn_at(ps, OSSA_WARNING_IGNORED, ps->word, "'vertexarray' without a type is ignored"), OSSA_OK;
    const char *tw = ps->p;
    int tl = token_len(ps, tw);
    ps->p += tl;
    int slot = -1;
    for (int i = 0; i < 7; i++)
        if (word_is(tw, (size_t)tl, types[i])) slot = i;
    if (tl == 7 && word_is(tw, 6, "custom") && tw[6] >= '0' && tw[6] <= '9')
        slot = IQE_SLOT_CUSTOM0 + (tw[6] - '0');
    if (slot < 0) {
        warn_at(ps, OSSA_WARNING_IGNORED, tw, "unknown vertex array type '%.*s': line ignored", tl, tw);
        return OSSA_OK;
    }
    iqe_decl *decl = &ps->d->decl[slot];
    if (decl->declared) {
        warn_at(ps, OSSA_WARNING_IGNORED, tw, "'%.*s' is declared again: the first declaration is kept", tl, tw);
        return OSSA_OK;
    }
    decl->declared = true;
    if (next_token(ps)) {
        const char *fw = ps->p;
        int fl = token_len(ps, fw);
        ps->p += fl;
        for (int i = 0; i < 9; i++)
            if (word_is(fw, (size_t)fl, formats[i])) {
                decl->format = (ossa_component)i;
                decl->has_format = true;
            }
        if (!decl->has_format)
            warn_at(ps, OSSA_WARNING_IGNORED, fw, "unknown component format '%.*s': the default is kept", fl, fw);
    }
    const char *at = (next_token(ps), ps->p);
    int64_t size;
    int r = integer(ps, &size);
    if (r < 0) return OSSA_FAILED;
    if (r > 0) {
        if (size >= 1 && size <= 4) {
            decl->size = (uint32_t)size;
            decl->has_size = true;
        } else {
            warn_at(ps, OSSA_WARNING_IGNORED, at, "vertex array size %lld is not 1..4: the default is kept",
                    (long long)size);
        }
    }
    if (slot >= IQE_SLOT_CUSTOM0) {
        if (name(ps, &decl->name)) return OSSA_FAILED;
        if (!decl->name) { /* default: the type word */
            char def[8] = "custom0";
            def[6] = (char)('0' + slot - IQE_SLOT_CUSTOM0);
            iqe_vec *pool = &ps->d->pool;
            if (!ossa__iqe_vec_reserve(ps->d->allocator, pool, pool->count + 8, 1)) return nomem(ps);
            decl->name = (uint32_t)pool->count;
            memcpy(pool->data + pool->count, def, 8);
            pool->count += 8;
        }
    }
    return OSSA_OK;
}

/* -- Skeleton and animations (§6-§8) -- */

/* pq, pm, pa -> a transform. */
static ossa_status pose(parser *ps, char kind, ossa_transform *t)
{
    float v[15];
    int n = floats(ps, v, kind == 'q' ? 10 : kind == 'm' ? 15 : 9);
    if (n < 0) return OSSA_FAILED;
    if (kind == 'q')
        ossa__iqe_pose_pq(v, n, t);
    else if (kind == 'm')
        ossa__iqe_pose_pm(v, n, t);
    else
        ossa__iqe_pose_pa(v, n, t);
    return OSSA_OK;
}

static ossa_status cmd_pose(parser *ps, char kind)
{
    iqe_doc *d = ps->d;
    ossa_transform t;
    if (pose(ps, kind, &t)) return OSSA_FAILED;
    if (!ps->in_animation) {
        ossa_transform *dst = push(ps, &d->base_poses, sizeof *dst);
        if (!dst) return nomem(ps);
        *dst = t;
        uint32_t *line = push(ps, &d->base_lines, sizeof *line);
        if (!line) return nomem(ps);
        *line = ps->line;
        return OSSA_OK;
    }
    if (!ps->frame_open) {
        iqe_frame *f = push(ps, &d->frames, sizeof *f);
        if (!f) return nomem(ps);
        f->first = d->num_poses;
        f->count = 0;
        f->line = ps->line;
        IQE_AT(d->anims, iqe_anim, d->anims.count - 1).num_frames++;
        ps->frame_open = true;
    }
    bool scaled = t.scale[0] != 1 || t.scale[1] != 1 || t.scale[2] != 1;
    uint32_t need = scaled ? 10 : 7;
    iqe_chunk *c = d->last_chunk;
    if (!c || c->count + need > IQE_CHUNK_FLOATS) {
        iqe_chunk *nc = ossa__alloc(d->allocator, sizeof *nc);
        if (!nc) return nomem(ps);
        nc->next = NULL;
        nc->count = 0;
        if (c)
            c->next = nc;
        else
            d->chunks = nc;
        d->last_chunk = c = nc;
    }
    float *dst = c->v + c->count;
    memcpy(dst, t.translation, 3 * sizeof(float));
    memcpy(dst + 3, t.rotation, 4 * sizeof(float));
    if (scaled) memcpy(dst + 7, t.scale, 3 * sizeof(float));
    c->count += need;
    if ((d->num_poses & 7) == 0) {
        unsigned char *bits = push(ps, &d->scaled, 1);
        if (!bits) return nomem(ps);
        *bits = 0;
    }
    if (scaled) d->scaled.data[d->num_poses >> 3] |= (unsigned char)(1u << (d->num_poses & 7));
    d->num_poses++;
    iqe_frame *f = &IQE_AT(d->frames, iqe_frame, d->frames.count - 1);
    if (f->count < UINT32_MAX) f->count++;
    return OSSA_OK;
}

static ossa_status cmd_joint(parser *ps)
{
    iqe_doc *d = ps->d;
    iqe_joint j;
    if (name(ps, &j.name)) return OSSA_FAILED;
    j.parent = -1;
    const char *at = (next_token(ps), ps->p);
    if (integer(ps, &j.parent) < 0) return OSSA_FAILED;
    j.line = ps->line;
    j.column = column_of(ps, at);
    if (d->joints.count >= INT32_MAX) return fail_at(ps, ps->word, "too many joints");
    iqe_joint *dst = push(ps, &d->joints, sizeof *dst);
    if (!dst) return nomem(ps);
    *dst = j;
    return OSSA_OK;
}

static ossa_status cmd_animation(parser *ps)
{
    iqe_doc *d = ps->d;
    iqe_anim a;
    memset(&a, 0, sizeof a);
    if (name(ps, &a.name)) return OSSA_FAILED;
    a.first_frame = (uint32_t)d->frames.count;
    a.line = ps->line;
    if (d->frames.count > UINT32_MAX - 1 || d->anims.count > UINT32_MAX - 1)
        return fail_at(ps, ps->word, "too many animations");
    iqe_anim *dst = push(ps, &d->anims, sizeof *dst);
    if (!dst) return nomem(ps);
    *dst = a;
    ps->in_animation = true;
    ps->frame_open = false;
    return OSSA_OK;
}

static ossa_status cmd_framerate(parser *ps)
{
    float rate = 0;
    if (floats(ps, &rate, 1) < 0) return OSSA_FAILED;
    if (!ps->in_animation) return OSSA_OK;
    IQE_AT(ps->d->anims, iqe_anim, ps->d->anims.count - 1).framerate =
        rate > 0 && rate <= FLT_MAX ? rate : 0;
    return OSSA_OK;
}

/* Triangle soup (§4): with no fa/fm in the file, the vertices of each
 * segment (from one mesh or material command to the next) are taken three
 * at a time. */
static ossa_status soup(parser *ps)
{
    iqe_doc *d = ps->d;
    uint32_t nv = num_vertices(ps);
    size_t ns = d->segments.count;
    for (size_t i = 0; i <= ns; i++) {
        /* Vertices before the first mesh command form a segment too. */
        uint32_t first = i == 0 ? 0 : IQE_AT(d->segments, iqe_segment, i - 1).first_vertex;
        uint32_t last = i < ns ? IQE_AT(d->segments, iqe_segment, i).first_vertex : nv;
        if (last <= first) continue;
        if (i == 0) {
            ps->mesh_name = ps->material = 0;
            ps->state.group = -1;
            ps->state.angle = 180;
            ps->state.uv = false;
            ps->state_dirty = true;
            if (current_state(ps)) return OSSA_FAILED;
        } else {
            const iqe_segment *s = &IQE_AT(d->segments, iqe_segment, i - 1);
            ps->mesh_name = s->name;
            ps->material = s->material;
            ps->state_id = s->state;
            ps->state_dirty = false;
        }
        ps->group_dirty = true;
        if (current_group(ps)) return OSSA_FAILED;
        if (last - first >= 3 && add_run(ps)) return OSSA_FAILED;
        if (!ossa__iqe_vec_reserve(d->allocator, &d->tris, d->tris.count + (last - first) / 3,
                                   sizeof(iqe_tri)))
            return nomem(ps);
        for (uint32_t v = first; last - v >= 3; v += 3) {
            iqe_tri *t = &IQE_AT(d->tris, iqe_tri, d->tris.count++);
            t->v[0] = v;
            t->v[1] = v + 1;
            t->v[2] = v + 2;
        }
        if ((last - first) % 3)
            ossa__warn(d->model, OSSA_WARNING_TRUNCATED, OSSA_NO_OFFSET, i ? IQE_AT(d->segments, iqe_segment, i - 1).line : 0,
                       0, "mesh '%s': %u vertices left over after the last whole triangle",
                       ossa__iqe_str(d, ps->mesh_name), (last - first) % 3);
    }
    return OSSA_OK;
}

/* -- Dispatch -- */

static ossa_status unknown(parser *ps)
{
    if (ps->unknown++ < MAX_UNKNOWN_WARNINGS)
        warn_at(ps, OSSA_WARNING_IGNORED, ps->word, "unknown command '%.*s' ignored", ps->word_len, ps->word);
    return OSSA_OK;
}

static ossa_status command(parser *ps, const char *w, size_t n)
{
    iqe_doc *d = ps->d;
    static const float zero[4] = {0, 0, 0, 0}, color[4] = {0, 0, 0, 1};
    if (n == 2) {
        char a = w[0], b = w[1];
        if (a == 'p' && (b == 'q' || b == 'm' || b == 'a')) return cmd_pose(ps, b);
        if (a == 'v') {
            switch (b) {
            case 'p': return cmd_vp(ps);
            case 't': return attribute(ps, &d->tc, OSSA_VERTEX_TEXCOORD, zero, 2);
            case 'n': return attribute(ps, &d->nrm, OSSA_VERTEX_NORMAL, zero, 3);
            case 'x': return cmd_vx(ps);
            case 'b': return cmd_vb(ps);
            case 'c': return attribute(ps, &d->color, OSSA_VERTEX_COLOR, color, 4);
            case 's': return cmd_vs(ps);
            default:
                if (b >= '0' && b <= '9')
                    return attribute(ps, &d->custom[b - '0'], IQE_SLOT_CUSTOM0 + (b - '0'), zero, 4);
            }
        }
        if (a == 'f') {
            if (b == 'm' || b == 'a') return cmd_face(ps, b == 'm');
            if (b == 's') return cmd_fs(ps);
        }
        return unknown(ps);
    }
#define IS(s) (n == sizeof(s) - 1 && memcmp(w, s, n) == 0)
    if (IS("mesh")) return cmd_mesh(ps);
    if (IS("material")) return cmd_material(ps);
    if (IS("joint")) return cmd_joint(ps);
    if (IS("animation")) return cmd_animation(ps);
    if (IS("frame")) {
        ps->frame_open = false;
        return OSSA_OK;
    }
    if (IS("loop")) {
        if (ps->in_animation) IQE_AT(d->anims, iqe_anim, d->anims.count - 1).loop = true;
        return OSSA_OK;
    }
    if (IS("framerate")) return cmd_framerate(ps);
    if (IS("smoothuv")) return cmd_smooth(ps, 'u');
    if (IS("smoothgroup")) return cmd_smooth(ps, 'g');
    if (IS("smoothangle")) return cmd_smooth(ps, 'a');
    if (IS("vertexarray")) return cmd_vertexarray(ps);
#undef IS
    return unknown(ps);
}

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl : end;
}

/* The last line has no newline: a file cut in the middle of a line reads
 * as a shorter command (a face of two indices is no triangle, a number
 * loses digits) without any other sign, so say where (§1). */
static void unterminated(parser *ps, const char *at, const char *end)
{
    ossa__warn(ps->d->model, OSSA_WARNING_TRUNCATED, (uint64_t)(end - ps->data), ps->line,
               column_of(ps, end),
               "the file ends without a newline inside line %u ('%.*s'): the file may be cut "
               "there",
               ps->line, token_len(ps, at), at);
}

/* The first non-blank line must hold the header (text before it on that
 * line is tolerated, as by the compiler); a UTF-8 BOM is skipped. */
static const char *header(const char *p, const char *end, uint32_t *line)
{
    if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    for (;;) {
        *line += 1;
        const char *s = p;
        while (p < end && ossa__text_blank(*p)) p++;
        const char *e = line_end(p, end);
        if (p == e) {
            if (e == end) return NULL;
            p = e + 1;
            continue;
        }
        size_t hl = sizeof IQE_HEADER - 1;
        for (const char *q = s; (size_t)(e - q) >= hl; q++)
            if (memcmp(q, IQE_HEADER, hl) == 0) return e < end ? e + 1 : e;
        return NULL;
    }
}

bool ossa__iqe_sniff(const unsigned char *data, size_t size)
{
    uint32_t line = 0;
    size_t n = size < 4096 ? size : 4096;
    return header((const char *)data, (const char *)data + n, &line) != NULL;
}

/* Moves *pp past blank and comment lines (each counted in ps->line) to the
 * next command, whose word it gives (ps->word, ps->p after it; its length
 * returned). 0 at the end of [*pp, end); then *cut is the comment line that
 * ran to the end without a newline, if one did (else NULL). */
static size_t next_command(parser *ps, const char **pp, const char *end, const char **cut)
{
    const char *p = *pp;
    *cut = NULL;
    while (p < end) {
        ps->line++;
        ps->line_start = p;
        while (p < end && ossa__text_blank(*p)) p++;
        if (p == end) break;
        if (*p == '\n' || *p == '#') {
            const char *at = p;
            p = line_end(p, end);
            if (p < end)
                p++;
            else if (*at == '#')
                *cut = at;
            continue;
        }
        const char *w = p;
        while (p < end && !ossa__text_blank(*p) && *p != '\n') p++;
        size_t wl = (size_t)(p - w);
        ps->word = w;
        ps->word_len = wl > 40 ? 40 : (int)wl;
        ps->p = *pp = p;
        return wl;
    }
    *pp = p;
    return 0;
}

/* The commands of [p, end), each line counted in ps->line. Stops at a
 * `comment` command (the rest of the file is the comment). */
static ossa_status parse_range(parser *ps, const char *p, const char *end)
{
    iqe_doc *d = ps->d;
    ps->end = end;
    const char *cut;
    size_t wl;
    while ((wl = next_command(ps, &p, end, &cut)) > 0) {
        const char *w = ps->word;
        if (wl == 7 && memcmp(w, "comment", 7) == 0) {
            /* Everything after this line is the comment (§9). */
            p = line_end(p, end);
            if (p < end) p++;
            d->comment = p;
            d->comment_size = (size_t)(ps->file_end - p);
            d->has_comment = true;
            return OSSA_OK;
        }
        if (command(ps, w, wl)) return OSSA_FAILED;
        d->last_command_line = ps->line;
        p = line_end(ps->p, end);
        if (p < end)
            p++;
        else
            unterminated(ps, w, p);
    }
    if (cut) unterminated(ps, cut, p);
    return OSSA_OK;
}

/* -- Parallel shares --
 *
 * Animations are most of a large file, and their frames need nothing from
 * the text before them but whether an animation is open. With threads, the
 * text is cut at `frame` lines into shares; the calling thread parses the
 * first share as usual while each other one is parsed on its own thread
 * into its own lists, accepting only frame, pose, animation, framerate and
 * loop lines. The calling thread then appends the shares' lists in order,
 * exactly as if it had read them. A share that meets anything else (another
 * command, a warning, an error) is given up: the calling thread parses the
 * text from that share on itself, so that every message is the serial
 * parse's, in the same order. */

typedef struct share {
    const char *start, *end;
    iqe_doc doc; /* frames, poses and animations; anims[0] stands for the
                  * animation open where the share starts */
    parser ps;
    ossa_error error;
    ossa_status status;
} share;

static void share_init(share *sh, const iqe_doc *d, const char *data, const char *file_end,
                       const char *start, const char *end)
{
    memset(sh, 0, sizeof *sh);
    sh->start = start;
    sh->end = end;
    sh->doc.allocator = d->allocator;
    sh->doc.size = d->size;
    sh->ps.d = &sh->doc;
    sh->ps.error = &sh->error;
    sh->ps.data = data;
    sh->ps.file_end = file_end;
    sh->ps.speculative = true;
    sh->ps.in_animation = true;
}

static bool share_command(parser *ps, const char *w, size_t n)
{
    iqe_doc *d = ps->d;
    if (n == 2 && w[0] == 'p' && (w[1] == 'q' || w[1] == 'm' || w[1] == 'a'))
        return cmd_pose(ps, w[1]) == OSSA_OK;
    if (n == 5 && memcmp(w, "frame", 5) == 0) {
        ps->frame_open = false;
        return true;
    }
    if (n == 9 && memcmp(w, "animation", 9) == 0) return cmd_animation(ps) == OSSA_OK;
    /* framerate and loop only for an animation of this share */
    if (d->anims.count < 2) return false;
    if (n == 9 && memcmp(w, "framerate", 9) == 0) return cmd_framerate(ps) == OSSA_OK;
    if (n == 4 && memcmp(w, "loop", 4) == 0) {
        IQE_AT(d->anims, iqe_anim, d->anims.count - 1).loop = true;
        return true;
    }
    return false;
}

static void share_parse(share *sh)
{
    parser *ps = &sh->ps;
    iqe_doc *d = &sh->doc;
    sh->status = OSSA_FAILED;
    iqe_anim *open = ossa__iqe_vec_reserve(d->allocator, &d->anims, 16, sizeof *open)
                         ? (iqe_anim *)d->anims.data
                         : NULL;
    if (!open || !ossa__iqe_vec_reserve(d->allocator, &d->pool, 16, 1)) return;
    memset(open, 0, sizeof *open);
    d->anims.count = 1;
    d->pool.data[0] = 0;
    d->pool.count = 1;
    const char *p = sh->start, *end = sh->end, *cut;
    ps->end = end;
    size_t wl;
    while ((wl = next_command(ps, &p, end, &cut)) > 0) {
        if (!share_command(ps, ps->word, wl) || ps->aborted) return;
        p = line_end(ps->p, end);
        if (p == end) return; /* the unterminated-line warning */
        p++;
    }
    if (cut) return; /* the unterminated-line warning */
    sh->status = OSSA_OK;
}

/* The first line at or after `from` whose command is `frame`, or NULL. */
static const char *next_frame_line(const char *data, const char *from, const char *end)
{
    const char *p = from;
    if (p > data && p[-1] != '\n') {
        p = line_end(p, end);
        if (p < end) p++;
    }
    while (p < end) {
        const char *q = p;
        while (q < end && ossa__text_blank(*q)) q++;
        if (end - q > 5 && memcmp(q, "frame", 5) == 0 &&
            (ossa__text_blank(q[5]) || q[5] == '\n'))
            return p;
        p = line_end(q, end);
        if (p < end) p++;
    }
    return NULL;
}

/* Appends a share's lists to the document as the serial parse would have
 * made them; false when it cannot stand for that parse (then nothing is
 * changed). */
static bool append_share(parser *ps, share *sh)
{
    iqe_doc *d = ps->d, *s = &sh->doc;
    const iqe_anim *open = (const iqe_anim *)s->anims.data;
    if (sh->status || (open->num_frames && !ps->in_animation)) return false;
    if (d->frames.count + s->frames.count > UINT32_MAX - 1 ||
        d->anims.count + s->anims.count > UINT32_MAX - 1 ||
        d->pool.count + s->pool.count > UINT32_MAX)
        return false;
    uint64_t pose_base = d->num_poses;
    uint32_t frame_base = (uint32_t)d->frames.count, line_base = ps->line;
    size_t bytes = (size_t)((pose_base + s->num_poses + 7) / 8);
    if (!ossa__iqe_vec_reserve(d->allocator, &d->frames, d->frames.count + s->frames.count,
                               sizeof(iqe_frame)) ||
        !ossa__iqe_vec_reserve(d->allocator, &d->anims, d->anims.count + s->anims.count,
                               sizeof(iqe_anim)) ||
        !ossa__iqe_vec_reserve(d->allocator, &d->pool, d->pool.count + s->pool.count, 1) ||
        !ossa__iqe_vec_reserve(d->allocator, &d->scaled, bytes, 1))
        return false;
    for (size_t i = 0; i < s->frames.count; i++) {
        iqe_frame f = IQE_AT(s->frames, iqe_frame, i);
        f.first += pose_base;
        f.line += line_base;
        IQE_AT(d->frames, iqe_frame, d->frames.count++) = f;
    }
    if (open->num_frames) IQE_AT(d->anims, iqe_anim, d->anims.count - 1).num_frames += open->num_frames;
    for (size_t i = 1; i < s->anims.count; i++) {
        iqe_anim a = IQE_AT(s->anims, iqe_anim, i);
        const char *name = ossa__iqe_str(s, a.name);
        size_t len = strlen(name);
        if (len) {
            memcpy(d->pool.data + d->pool.count, name, len + 1);
            a.name = (uint32_t)d->pool.count;
            d->pool.count += len + 1;
        }
        a.first_frame += frame_base;
        a.line += line_base;
        IQE_AT(d->anims, iqe_anim, d->anims.count++) = a;
        ps->in_animation = true;
    }
    if (s->chunks) {
        if (d->last_chunk)
            d->last_chunk->next = s->chunks;
        else
            d->chunks = s->chunks;
        d->last_chunk = s->last_chunk;
        s->chunks = s->last_chunk = NULL;
    }
    memset(d->scaled.data + d->scaled.count, 0, bytes - d->scaled.count);
    d->scaled.count = bytes;
    for (uint64_t i = 0; i < s->num_poses; i++)
        if ((s->scaled.data[i >> 3] >> (i & 7)) & 1) {
            uint64_t at = pose_base + i;
            d->scaled.data[at >> 3] |= (unsigned char)(1u << (at & 7));
        }
    d->num_poses += s->num_poses;
    ps->frame_open = sh->ps.frame_open;
    ps->line += sh->ps.line;
    return true;
}

typedef struct shares_job {
    parser *ps; /* the calling thread's: the first share */
    const char *first, *first_end;
    ossa_status status;
    share *shares;
} shares_job;

static void shares_worker(void *ctx, uint32_t index)
{
    shares_job *job = ctx;
    if (index == 0)
        job->status = parse_range(job->ps, job->first, job->first_end);
    else
        share_parse(&job->shares[index - 1]);
}

/* Parses [p, end) with shares on up to `threads` threads (1 MiB of text a
 * share at least: a thread costs tens of microseconds, a MiB milliseconds),
 * or serially. */
static ossa_status parse_text(parser *ps, const char *p, const char *end, uint32_t threads)
{
    iqe_doc *d = ps->d;
    uint32_t workers = ossa__workers(threads, (uint64_t)(end - p), 1u << 20);
    const char *cut[64];
    uint32_t n = 0;
    for (uint32_t k = 1; k < workers; k++) {
        const char *from = p + (size_t)(end - p) / workers * k;
        if (n && from <= cut[n - 1]) from = cut[n - 1] + 1;
        const char *c = next_frame_line(ps->data, from, end);
        if (!c) break;
        cut[n++] = c;
    }
    if (!n) return parse_range(ps, p, end);
    share *shares = ossa__alloc(d->allocator, n * sizeof *shares);
    if (!shares) return parse_range(ps, p, end);
    for (uint32_t k = 0; k < n; k++)
        share_init(&shares[k], d, ps->data, ps->file_end, cut[k], k + 1 < n ? cut[k + 1] : end);
    shares_job job = {ps, p, cut[0], OSSA_OK, shares};
    ossa__parallel(n + 1, shares_worker, &job);
    ossa_status st = job.status;
    uint32_t k = 0;
    if (!st && !d->has_comment) {
        while (k < n && append_share(ps, &shares[k])) k++;
        if (k < n) st = parse_range(ps, cut[k], end);
    }
    for (uint32_t i = 0; i < n; i++) {
        ossa__iqe_doc_free(&shares[i].doc);
        ossa__iqe_vec_free(d->allocator, &shares[i].ps.face_idx);
        ossa__iqe_vec_free(d->allocator, &shares[i].ps.pairs);
    }
    ossa__free(d->allocator, shares, n * sizeof *shares);
    return st;
}

ossa_status ossa__iqe_parse(iqe_doc *d, ossa_model *model, const unsigned char *data,
                            size_t size, const ossa_load_options *options, ossa_error *error)
{
    memset(d, 0, sizeof *d);
    d->allocator = options->allocator;
    d->size = size;
    d->model = model;
    d->influences = ossa__influence_max(options->max_influences);

    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.d = d;
    ps.error = error;
    ps.data = (const char *)data;
    ps.end = ps.file_end = ps.data + size;
    ps.state.group = -1;
    ps.state.angle = 180;
    ps.state_dirty = true;
    ps.group_dirty = true;
    if (!ossa__iqe_vec_reserve(d->allocator, &d->pool, 256, 1)) return ossa__fail_nomem(error);
    d->pool.data[0] = 0;
    d->pool.count = 1;

    const char *p = header(ps.data, ps.end, &ps.line);
    if (!p)
        return ossa__fail_line(error, OSSA_ERROR_FORMAT, ps.line ? ps.line : 1, 1,
                               "expected the header '%s'", IQE_HEADER);
    ossa_status st = parse_text(&ps, p, ps.file_end, options->threads);
    ps.end = ps.file_end;
    if (!st && ps.unknown > MAX_UNKNOWN_WARNINGS)
        ossa__warn(model, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%u more unknown commands ignored",
                   ps.unknown - MAX_UNKNOWN_WARNINGS);
    if (!st && !d->any_faces) st = soup(&ps);
    ossa__iqe_vec_free(d->allocator, &ps.face_idx);
    ossa__iqe_vec_free(d->allocator, &ps.pairs);
    ossa__free(d->allocator, ps.group_slots, ps.group_cap * sizeof *ps.group_slots);
    return st;
}
