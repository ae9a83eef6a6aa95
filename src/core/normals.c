/* Normal generation (normals.h).
 *
 * Points are numbered by position through a hash table (one probe per
 * point, not per corner); candidates (corners of one key at one position)
 * are then the position's number when every triangle has one key, else
 * numbered through a second table of (key, position number) pairs, in
 * order of first appearance. Without pairwise conditions a candidate set
 * is a class, and its sum is made by walking the corners in order. With
 * them, each set is walked pairwise (a counting sort lines the sets up)
 * and joins are closed by union-find; a class's sum is still made in
 * corner order, so that the same corners always give the same bits. */
#include "core/normals.h"

#include <math.h>

#define NO_CLASS UINT32_MAX

typedef struct smoother {
    const ossa__normals_in *in;
    const ossa_model *m;
    size_t nt, nc, np;
    bool pairwise;    /* some condition is tested corner against corner */
    double *area;     /* per triangle: area-weighted normal (3) */
    double *unit;     /* per triangle: unit normal (3), pairwise only */
    double *cosine;   /* per rule: cos(angle), or -2 for no limit */
    uint32_t *pos;    /* per point: its position's number */
    uint32_t num_pos;
    uint32_t *cls;    /* per corner: candidate set, NO_CLASS when flat */
    uint32_t *rep;    /* per set: its first corner (keyed sets only) */
    uint32_t num_sets;
    uint32_t *slots;  /* hash table of point or set + 1 */
    size_t num_slots;
} smoother;

/* -- Triangles -- */

static const ossa__smoothing *rule(const smoother *s, size_t t)
{
    const ossa__normals_in *in = s->in;
    if (!in->rules) return NULL;
    uint32_t r = in->rule_of ? in->rule_of[t] : 0;
    return r < in->num_rules ? &in->rules[r] : NULL;
}

static int64_t key_of(const smoother *s, size_t t) { return s->in->keys ? s->in->keys[t] : 1; }

static bool is_flat(const smoother *s, size_t t)
{
    const ossa__smoothing *r = rule(s, t);
    return (r && r->flat) || (s->in->zero_key_flat && key_of(s, t) == 0);
}

static const float *point(const smoother *s, uint32_t p) { return s->in->positions + (size_t)p * s->in->stride; }

/* (p2 - p0) x (p1 - p0) in double: front faces are clockwise. */
static void face_normal(const smoother *s, size_t t, double n[3])
{
    const uint32_t *c = s->in->corners + t * 3;
    const float *p0 = point(s, c[0]), *p1 = point(s, c[1]), *p2 = point(s, c[2]);
    double a[3], b[3];
    for (int k = 0; k < 3; k++) {
        a[k] = (double)p2[k] - p0[k];
        b[k] = (double)p1[k] - p0[k];
    }
    n[0] = a[1] * b[2] - a[2] * b[1];
    n[1] = a[2] * b[0] - a[0] * b[2];
    n[2] = a[0] * b[1] - a[1] * b[0];
    for (int k = 0; k < 3; k++)
        if (!isfinite(n[k])) n[0] = n[1] = n[2] = 0;
}

static void put_unit(const double n[3], float *out)
{
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) out[k] = len > 0 && isfinite(len) ? (float)(n[k] / len) : 0.0f;
}

/* Pairwise conditions compare face normals corner by corner: kept per
 * triangle, area-weighted and unit. Without them each is made once, when
 * the sums are. */
static void face_normals(smoother *s)
{
    for (size_t t = 0; s->area && t < s->nt; t++) {
        double *n = s->area + t * 3;
        face_normal(s, t, n);
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) s->unit[t * 3 + k] = len > 0 && isfinite(len) ? n[k] / len : 0;
    }
}

/* -- Candidate sets: one key, one position -- */

static void position_bits(const smoother *s, uint32_t p, uint32_t bits[4])
{
    const float *x = point(s, p);
    for (uint32_t k = 0; k < 4; k++) {
        float f = k < s->in->components ? x[k] : 0.0f;
        if (f == 0) f = 0.0f; /* -0 and 0 are one position */
        memcpy(&bits[k], &f, 4);
    }
}

static uint32_t mix(uint64_t h, uint32_t v)
{
    h ^= v;
    h *= 0xFF51AFD7ED558CCDull;
    return (uint32_t)(h ^ (h >> 32));
}

/* A fresh table of at least twice `count` slots. */
static bool new_table(smoother *s, size_t count)
{
    ossa__temp_free(s->m, s->slots);
    s->num_slots = 16;
    while (s->num_slots < count * 2) s->num_slots *= 2;
    s->slots = ossa__temp_calloc(s->m, s->num_slots, sizeof *s->slots);
    return s->slots != NULL;
}

/* pos[p]: the number of p's position, in order of first appearance. */
static bool number_positions(smoother *s)
{
    if (!new_table(s, s->np)) return false;
    for (size_t p = 0; p < s->np; p++) {
        uint32_t bits[4], other[4];
        position_bits(s, (uint32_t)p, bits);
        uint64_t h = 0x9E3779B97F4A7C15ull;
        for (int k = 0; k < 4; k++) h = mix(h, bits[k]);
        for (size_t k = h & (s->num_slots - 1);; k = (k + 1) & (s->num_slots - 1)) {
            if (!s->slots[k]) {
                s->slots[k] = (uint32_t)p + 1;
                s->pos[p] = s->num_pos++;
                break;
            }
            position_bits(s, s->slots[k] - 1, other);
            if (memcmp(bits, other, sizeof bits) == 0) {
                s->pos[p] = s->pos[s->slots[k] - 1];
                break;
            }
        }
    }
    return true;
}

/* The keyed set of (key, position number), or NO_CLASS; *slot is where
 * it would go. */
static uint32_t find_set(const smoother *s, int64_t key, uint32_t pos, size_t *slot)
{
    size_t k = mix(mix((uint64_t)key * 0x9E3779B97F4A7C15ull, (uint32_t)((uint64_t)key >> 32)), pos) &
               (s->num_slots - 1);
    for (;; k = (k + 1) & (s->num_slots - 1)) {
        if (!s->slots[k]) break;
        uint32_t set = s->slots[k] - 1, c = s->rep[set];
        if (s->pos[s->in->corners[c]] == pos && key_of(s, c / 3) == key) return set;
    }
    *slot = k;
    return NO_CLASS;
}

static bool find_sets(smoother *s)
{
    if (!number_positions(s)) return false;
    const ossa__normals_in *in = s->in;
    if (in->keys) {
        s->rep = ossa__temp_calloc(s->m, s->nc + 1, sizeof *s->rep);
        if (!s->rep || !new_table(s, s->nc)) return false;
    } else {
        s->num_sets = s->num_pos; /* one key: a position is a set */
    }
    for (size_t c = 0; s->cls && c < s->nc; c++) {
        size_t t = c / 3;
        uint32_t pos = s->pos[in->corners[c]];
        if (is_flat(s, t)) {
            s->cls[c] = NO_CLASS;
        } else if (!in->keys) {
            s->cls[c] = pos;
        } else {
            size_t slot;
            uint32_t set = find_set(s, in->keys[t], pos, &slot);
            if (set == NO_CLASS) {
                set = s->num_sets++;
                s->rep[set] = (uint32_t)c;
                s->slots[slot] = set + 1;
            }
            s->cls[c] = set;
        }
    }
    return true;
}

/* -- Pairwise conditions -- */

static uint32_t find(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

static void unite(uint32_t *uf, uint32_t a, uint32_t b)
{
    a = find(uf, a);
    b = find(uf, b);
    if (a < b)
        uf[b] = a;
    else if (b < a)
        uf[a] = b;
}

static bool same_position(const smoother *s, uint32_t p, uint32_t q) { return s->pos[p] == s->pos[q]; }

/* Do corners a and b (one position) share an edge that one of their
 * triangles flags as smooth? Edge k runs from corner k to corner k+1;
 * through corner c pass edge c (other end c+1) and edge c+2 (other end
 * c+2). */
static bool shared_edge(const smoother *s, uint32_t a, uint32_t b)
{
    const uint32_t *pa = s->in->corners + (size_t)(a / 3) * 3, *pb = s->in->corners + (size_t)(b / 3) * 3;
    uint32_t ka = a % 3, kb = b % 3;
    uint8_t fa = s->in->edges[a / 3], fb = s->in->edges[b / 3];
    uint32_t ea[2] = {ka, (ka + 2) % 3}, oa[2] = {pa[(ka + 1) % 3], pa[(ka + 2) % 3]};
    uint32_t eb[2] = {kb, (kb + 2) % 3}, ob[2] = {pb[(kb + 1) % 3], pb[(kb + 2) % 3]};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (((fa >> ea[i]) & 1 || (fb >> eb[j]) & 1) && same_position(s, oa[i], ob[j])) return true;
    return false;
}

static bool joins(const smoother *s, uint32_t a, uint32_t b)
{
    const ossa__normals_in *in = s->in;
    size_t ta = a / 3, tb = b / 3;
    const ossa__smoothing *ra = rule(s, ta), *rb = rule(s, tb);
    if (ra && rb) {
        size_t ia = (size_t)(ra - in->rules), ib = (size_t)(rb - in->rules);
        double c = s->cosine[ia] > s->cosine[ib] ? s->cosine[ia] : s->cosine[ib];
        const double *na = s->unit + ta * 3, *nb = s->unit + tb * 3;
        if (c > -2 && na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2] < c) return false;
    }
    uint32_t pa = in->corners[a], pb = in->corners[b];
    if (in->texcoords && ((ra && ra->uv) || (rb && rb->uv))) {
        const float *ua = in->texcoords + (size_t)pa * 2, *ub = in->texcoords + (size_t)pb * 2;
        if (ua[0] != ub[0] || ua[1] != ub[1]) return false;
    }
    if (in->point_ids && in->point_ids[pa] != in->point_ids[pb]) return false;
    if (in->edges && !shared_edge(s, a, b)) return false;
    return true;
}

/* Joins within every candidate set; uf[c] ends as c's class root. */
static ossa_status join_pairs(smoother *s, uint32_t *uf, ossa_error *error)
{
    uint32_t *start = ossa__temp_calloc(s->m, (size_t)s->num_sets + 2, sizeof *start);
    uint32_t *order = ossa__temp_calloc(s->m, s->nc + 1, sizeof *order);
    if (!start || !order) {
        ossa__temp_free(s->m, start);
        ossa__temp_free(s->m, order);
        return ossa__fail_nomem(error);
    }
    for (size_t c = 0; c < s->nc; c++) {
        uf[c] = (uint32_t)c;
        if (s->cls[c] != NO_CLASS) start[s->cls[c] + 1]++;
    }
    for (uint32_t i = 0; i < s->num_sets; i++) start[i + 1] += start[i];
    for (size_t c = 0; c < s->nc; c++)
        if (s->cls[c] != NO_CLASS) order[start[s->cls[c]]++] = (uint32_t)c;
    /* start[i] is now the end of set i, start[i - 1] its beginning. */
    uint32_t window = s->in->window ? s->in->window : 256;
    for (uint32_t i = 0; i < s->num_sets; i++) {
        uint32_t b = i ? start[i - 1] : 0, e = start[i];
        for (uint32_t x = b + 1; x < e; x++)
            for (uint32_t y = x - b > window ? x - window : b; y < x; y++)
                if (joins(s, order[y], order[x])) unite(uf, order[y], order[x]);
    }
    ossa__temp_free(s->m, start);
    ossa__temp_free(s->m, order);
    return OSSA_OK;
}

/* -- Sums -- */

/* Corner c's class: its union-find root with pairwise conditions, else
 * its candidate set; NO_CLASS when its triangle is flat. */
static uint32_t class_of(const smoother *s, const uint32_t *uf, size_t c)
{
    if (s->cls) return s->cls[c] == NO_CLASS ? NO_CLASS : uf ? uf[c] : s->cls[c];
    return is_flat(s, c / 3) ? NO_CLASS : s->pos[s->in->corners[c]];
}

static void triangle_normal(const smoother *s, size_t t, double n[3])
{
    if (s->area)
        memcpy(n, s->area + t * 3, 3 * sizeof *n);
    else
        face_normal(s, t, n);
}

/* Class sums in corner order; flat corners get their own triangle's
 * normal. */
static ossa_status class_normals(smoother *s, const uint32_t *uf, size_t groups, float *corner_out,
                                 float *class_out, ossa_error *error)
{
    double *sum = ossa__temp_calloc(s->m, groups + 1, 3 * sizeof *sum);
    if (!sum) return ossa__fail_nomem(error);
    for (size_t t = 0; t < s->nt; t++) {
        double f[3];
        triangle_normal(s, t, f);
        for (size_t c = t * 3; c < t * 3 + 3; c++) {
            uint32_t g = class_of(s, uf, c);
            if (g == NO_CLASS) continue;
            for (int k = 0; k < 3; k++) sum[(size_t)g * 3 + k] += f[k];
        }
    }
    for (size_t t = 0; corner_out && t < s->nt; t++)
        for (size_t c = t * 3; c < t * 3 + 3; c++) {
            uint32_t g = class_of(s, uf, c);
            if (g != NO_CLASS) {
                put_unit(sum + (size_t)g * 3, corner_out + c * 3);
                continue;
            }
            double f[3];
            triangle_normal(s, t, f);
            put_unit(f, corner_out + c * 3);
        }
    for (size_t g = 0; class_out && g < groups; g++) put_unit(sum + g * 3, class_out + g * 3);
    ossa__temp_free(s->m, sum);
    return OSSA_OK;
}

/* Point normals: the class of each point's own key and position. */
static void point_normals(const smoother *s, const float *class_normal, const int64_t *point_keys,
                          float *out)
{
    for (size_t p = 0; p < s->np; p++) {
        int64_t key = point_keys ? point_keys[p] : 1;
        uint32_t set = NO_CLASS;
        size_t slot;
        if (s->in->keys)
            set = find_set(s, key, s->pos[p], &slot);
        else if (key == 1)
            set = s->pos[p];
        if (set == NO_CLASS)
            memset(out + p * 3, 0, 3 * sizeof *out);
        else
            memcpy(out + p * 3, class_normal + (size_t)set * 3, 3 * sizeof *out);
    }
}

static bool needs_pairs(const ossa__normals_in *in)
{
    if (in->point_ids || in->edges) return true;
    for (uint32_t r = 0; in->rules && r < in->num_rules; r++)
        if (in->rules[r].angle < 180 || (in->rules[r].uv && in->texcoords)) return true;
    return false;
}

static void smoother_free(smoother *s)
{
    ossa__temp_free(s->m, s->area);
    ossa__temp_free(s->m, s->unit);
    ossa__temp_free(s->m, s->cosine);
    ossa__temp_free(s->m, s->pos);
    ossa__temp_free(s->m, s->cls);
    ossa__temp_free(s->m, s->rep);
    ossa__temp_free(s->m, s->slots);
}

static ossa_status smoother_init(smoother *s, const ossa_model *m, const ossa__normals_in *in,
                                 ossa_error *error)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->in = in;
    s->nt = in->num_triangles;
    if (s->nt > SIZE_MAX / 3 / sizeof(double) / 3 || s->nt * 3 >= UINT32_MAX ||
        in->num_points >= UINT32_MAX)
        return ossa__fail_nomem(error);
    s->nc = s->nt * 3;
    /* Points no corner names take part only when asked for their normals;
     * a call that does not say how many there are has as many as its
     * corners name. */
    s->np = in->num_points;
    for (size_t c = 0; c < s->nc; c++)
        if (in->corners[c] >= s->np) s->np = (size_t)in->corners[c] + 1;
    s->pairwise = needs_pairs(in);
    /* Per-triangle normals and per-corner sets are kept only where
     * something reads them again: pairwise conditions, keys. */
    bool keep = s->pairwise || in->keys;
    s->area = s->pairwise ? ossa__temp_calloc(m, s->nt + 1, 3 * sizeof *s->area) : NULL;
    s->unit = s->pairwise ? ossa__temp_calloc(m, s->nt + 1, 3 * sizeof *s->unit) : NULL;
    s->cosine = ossa__temp_calloc(m, (size_t)in->num_rules + 1, sizeof *s->cosine);
    s->pos = ossa__temp_calloc(m, s->np + 1, sizeof *s->pos);
    s->cls = keep ? ossa__temp_calloc(m, s->nc + 1, sizeof *s->cls) : NULL;
    if ((s->pairwise && (!s->area || !s->unit)) || !s->cosine || !s->pos || (keep && !s->cls))
        return ossa__fail_nomem(error);
    for (uint32_t r = 0; in->rules && r < in->num_rules; r++) {
        float a = in->rules[r].angle;
        s->cosine[r] = !(a < 180) ? -2 : cos(a * (3.14159265358979323846 / 180));
    }
    return OSSA_OK;
}

ossa_status ossa__normals(const ossa_model *model, const ossa__normals_in *in, float *corner_out,
                          const int64_t *point_keys, float *point_out, ossa_error *error)
{
    if (point_out && needs_pairs(in))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "point normals need smoothing without pairwise conditions");
    smoother s;
    ossa_status st = smoother_init(&s, model, in, error);
    uint32_t *uf = NULL;
    float *class_out = NULL;
    if (!st) {
        face_normals(&s);
        if (!find_sets(&s)) st = ossa__fail_nomem(error);
    }
    if (!st && s.pairwise) {
        uf = ossa__temp_calloc(model, s.nc + 1, sizeof *uf);
        st = uf ? join_pairs(&s, uf, error) : ossa__fail_nomem(error);
        for (size_t c = 0; !st && c < s.nc; c++) uf[c] = find(uf, (uint32_t)c);
    }
    if (!st && point_out) {
        class_out = ossa__temp_calloc(model, (size_t)s.num_sets + 1, 3 * sizeof *class_out);
        if (!class_out) st = ossa__fail_nomem(error);
    }
    if (!st) st = class_normals(&s, uf, uf ? s.nc : s.num_sets, corner_out, class_out, error);
    if (!st && point_out) point_normals(&s, class_out, point_keys, point_out);
    ossa__temp_free(model, uf);
    ossa__temp_free(model, class_out);
    smoother_free(&s);
    return st;
}

ossa_status ossa__smooth_normals(const ossa_model *model, const float *positions, size_t stride,
                                 const uint32_t *corners, const int64_t *keys,
                                 size_t num_triangles, float *out, ossa_error *error)
{
    ossa__normals_in in;
    memset(&in, 0, sizeof in);
    in.positions = positions;
    in.stride = stride;
    in.components = 3;
    in.corners = corners;
    in.num_triangles = num_triangles;
    in.keys = keys;
    in.zero_key_flat = true;
    return ossa__normals(model, &in, out, NULL, NULL, error);
}
