/* Normal generation for IQE files without `vn` (docs/formats/iqe.md §5).
 *
 * Triangle corners that share an exact position (X Y Z W; -0 equals 0) are
 * candidates; two of them join when their smoothing keys are equal, the
 * angle between their face normals is within the stricter of the two
 * smoothing angles, their texcoords match if either triangle smooths by
 * UV, their `vs` indices match if the file has any, and, if the file has
 * `fs` edge flags, their triangles share an edge through the corner that
 * one of them flags as smooth. Joins are closed transitively (union-find)
 * and every class gets the normalized sum of its corners' area-weighted
 * face normals. This works across mesh boundaries.
 *
 * Corners sharing a position are compared pairwise. A position shared by
 * more than WINDOW corners (a pathological file) compares each corner with
 * the WINDOW corners before it only, which keeps the cost linear; chains of
 * joins still connect most of such a fan. */
#include "formats/iqe/iqe.h"
#include "core/normals.h"

#include <math.h>
#include <stdlib.h>

#define WINDOW 256

typedef struct smoother {
    const iqe_doc *d;
    const iqe_tri *tris;
    size_t nt;
    const ossa_allocator *alloc;
    uint32_t *cls;     /* position class per file vertex */
    double *unit;      /* unit face normal per triangle (3) */
    double *area;      /* unnormalized face normal per triangle (3) */
    double *cosine;    /* per smoothing state: cos(angle), or -2 for 180 */
    unsigned char *edges; /* per triangle: bit k = edge k may smooth (fs) */
    uint32_t *state;   /* per triangle: smoothing state */
    uint32_t *uf;      /* union-find parent per corner */
} smoother;

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
    if (a == b) return;
    if (a < b)
        uf[b] = a;
    else
        uf[a] = b;
}

static uint32_t mix(uint32_t h, uint32_t v)
{
    h ^= v;
    h *= 0x9E3779B1u;
    return h ^ (h >> 15);
}

static void position_key(const float *p, uint32_t out[4])
{
    for (int k = 0; k < 4; k++) {
        float f = p[k] == 0 ? 0.0f : p[k]; /* -0 and 0 are one position */
        memcpy(&out[k], &f, 4);
    }
}

/* cls[v] = a dense class number shared by the vertices at one position. */
static uint32_t position_classes(smoother *s)
{
    const iqe_doc *d = s->d;
    size_t nv = d->pos.count;
    size_t cap = 16;
    while (cap < nv * 2) cap *= 2;
    uint32_t *slots = ossa__alloc(s->alloc, cap * sizeof *slots);
    if (!slots) return UINT32_MAX;
    memset(slots, 0, cap * sizeof *slots);
    const float *pos = (const float *)d->pos.data;
    uint32_t classes = 0;
    for (size_t v = 0; v < nv; v++) {
        uint32_t key[4];
        position_key(pos + v * 4, key);
        uint32_t h = mix(mix(mix(mix(0, key[0]), key[1]), key[2]), key[3]);
        size_t i = h & (cap - 1);
        for (;;) {
            if (!slots[i]) {
                slots[i] = (uint32_t)v + 1;
                s->cls[v] = classes++;
                break;
            }
            uint32_t other[4];
            position_key(pos + (size_t)(slots[i] - 1) * 4, other);
            if (memcmp(key, other, sizeof key) == 0) {
                s->cls[v] = s->cls[slots[i] - 1];
                break;
            }
            i = (i + 1) & (cap - 1);
        }
    }
    ossa__free(s->alloc, slots, cap * sizeof *slots);
    return classes;
}

static void face_normals(smoother *s)
{
    const float *pos = (const float *)s->d->pos.data;
    for (size_t t = 0; t < s->nt; t++) {
        double n[3];
        ossa__face_normal(pos, 4, s->tris[t].v, n);
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) {
            s->area[t * 3 + k] = isfinite(n[k]) ? n[k] : 0;
            s->unit[t * 3 + k] = len > 0 && isfinite(len) ? n[k] / len : 0;
        }
    }
}

/* Edge flags of each triangle from the fs command paired with its face:
 * face f with n indices made the n-2 triangles that follow those of the
 * faces before it; its fan triangle k = (P0, Pk+1, Pk+2) has polygon edge
 * 0 first when k = 0, polygon edge k+1 second, polygon edge n-1 last when
 * k = n-3; fan diagonals always smooth. */
static void edge_flags(smoother *s)
{
    const iqe_doc *d = s->d;
    const iqe_fs *fs = (const iqe_fs *)d->fs.data;
    const unsigned char *flags = d->fs_flags.data;
    memset(s->edges, 7, s->nt);
    size_t t = 0;
    for (size_t face = 0; face < d->face_n.count && face < d->fs.count; face++) {
        uint32_t n = IQE_AT(d->face_n, uint32_t, face);
        const iqe_fs *f = &fs[face];
        for (uint32_t k = 0; k + 2 < n && t < s->nt; k++, t++) {
#define FLAG(i) ((i) < f->count ? flags[f->first + (i)] : 1)
            unsigned char e = 0;
            if (k == 0 ? FLAG(0) : 1) e |= 1;
            if (FLAG(k + 1)) e |= 2;
            if (k + 3 == n ? FLAG(n - 1) : 1) e |= 4;
#undef FLAG
            s->edges[t] = e;
        }
    }
}

/* Do corners a and b (same position) share an edge that one of their
 * triangles flags as smooth? */
static bool shared_edge(const smoother *s, uint32_t a, uint32_t b)
{
    uint32_t ta = a / 3, ka = a % 3, tb = b / 3, kb = b % 3;
    const uint32_t *va = s->tris[ta].v, *vb = s->tris[tb].v;
    /* Edge k runs from corner k to corner k+1; through corner c pass edge
     * c (other end c+1) and edge c+2 (other end c+2). */
    uint32_t ea[2] = {ka, (ka + 2) % 3}, oa[2] = {s->cls[va[(ka + 1) % 3]], s->cls[va[(ka + 2) % 3]]};
    uint32_t eb[2] = {kb, (kb + 2) % 3}, ob[2] = {s->cls[vb[(kb + 1) % 3]], s->cls[vb[(kb + 2) % 3]]};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (oa[i] == ob[j] && (((s->edges[ta] >> ea[i]) & 1) || ((s->edges[tb] >> eb[j]) & 1)))
                return true;
    return false;
}

static bool joins(const smoother *s, uint32_t a, uint32_t b)
{
    const iqe_doc *d = s->d;
    const iqe_tri *A = &s->tris[a / 3], *B = &s->tris[b / 3];
    uint32_t ia = s->state[a / 3], ib = s->state[b / 3];
    const iqe_state *sa = &IQE_AT(d->states, iqe_state, ia);
    const iqe_state *sb = &IQE_AT(d->states, iqe_state, ib);
    if (sa->group != sb->group) return false;
    double c = s->cosine[ia] > s->cosine[ib] ? s->cosine[ia] : s->cosine[ib];
    if (c > -2) {
        const double *na = s->unit + (size_t)(a / 3) * 3, *nb = s->unit + (size_t)(b / 3) * 3;
        if (na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2] < c) return false;
    }
    uint32_t va = A->v[a % 3], vb = B->v[b % 3];
    if (d->tc.count && (sa->uv || sb->uv)) {
        const float *ua = (const float *)d->tc.data + (size_t)va * 2;
        const float *ub = (const float *)d->tc.data + (size_t)vb * 2;
        if (ua[0] != ub[0] || ua[1] != ub[1]) return false;
    }
    if (d->vs.count && IQE_AT(d->vs, int64_t, va) != IQE_AT(d->vs, int64_t, vb)) return false;
    if (d->fs.count && !shared_edge(s, a, b)) return false;
    return true;
}

ossa_status ossa__iqe_smooth(const iqe_doc *d, float *out, ossa_error *error)
{
    const iqe_tri *tris = (const iqe_tri *)d->tris.data;
    size_t nt = d->tris.count;
    smoother s;
    memset(&s, 0, sizeof s);
    s.d = d;
    s.tris = tris;
    s.nt = nt;
    s.alloc = d->allocator;
    size_t nc = nt * 3, nv = d->pos.count, ns = d->states.count;
    s.cls = ossa__iqe_talloc(s.alloc, (nv + 1) * sizeof *s.cls, 1);
    s.unit = ossa__iqe_talloc(s.alloc, (nc + 1) * sizeof *s.unit, 1);
    s.area = ossa__iqe_talloc(s.alloc, (nc + 1) * sizeof *s.area, 1);
    s.cosine = ossa__iqe_talloc(s.alloc, (ns + 1) * sizeof *s.cosine, 1);
    s.edges = ossa__iqe_talloc(s.alloc, nt + 1, 1);
    s.state = ossa__iqe_talloc(s.alloc, (nt + 1) * sizeof *s.state, 1);
    s.uf = ossa__iqe_talloc(s.alloc, (nc + 1) * sizeof *s.uf, 1);
    uint32_t *start = NULL, *order = NULL;
    double *sum = NULL;
    ossa_status st = OSSA_OK;
    uint32_t classes = 0;
    if (!s.cls || !s.unit || !s.area || !s.cosine || !s.edges || !s.state || !s.uf ||
        (classes = position_classes(&s)) == UINT32_MAX) {
        st = ossa__fail_nomem(error);
        goto done;
    }
    for (size_t i = 0; i < ns; i++) {
        float a = IQE_AT(d->states, iqe_state, i).angle;
        s.cosine[i] = a >= 180 ? -2 : cos(a * (3.14159265358979323846 / 180));
    }
    for (size_t r = 0; r < d->runs.count; r++) {
        const iqe_run *run = &IQE_AT(d->runs, iqe_run, r);
        size_t e = r + 1 < d->runs.count ? IQE_AT(d->runs, iqe_run, r + 1).first : nt;
        for (size_t t = run->first; t < e && t < nt; t++) s.state[t] = run->state;
    }
    face_normals(&s);
    if (d->fs.count) edge_flags(&s);

    /* Corners grouped by position class (counting sort). */
    start = ossa__iqe_talloc(s.alloc, ((size_t)classes + 2) * sizeof *start, 1);
    order = ossa__iqe_talloc(s.alloc, (nc + 1) * sizeof *order, 1);
    if (!start || !order) {
        st = ossa__fail_nomem(error);
        goto done;
    }
    memset(start, 0, ((size_t)classes + 2) * sizeof *start);
    for (size_t c = 0; c < nc; c++)
        if (!ossa__iqe_degenerate(&tris[c / 3])) start[s.cls[tris[c / 3].v[c % 3]] + 1]++;
    for (uint32_t i = 0; i < classes; i++) start[i + 1] += start[i];
    for (size_t c = 0; c < nc; c++) {
        s.uf[c] = (uint32_t)c;
        if (!ossa__iqe_degenerate(&tris[c / 3])) order[start[s.cls[tris[c / 3].v[c % 3]]]++] = (uint32_t)c;
    }
    /* start[i] is now the end of class i, start[i-1] its beginning. */
    for (uint32_t i = 0; i < classes; i++) {
        uint32_t b = i ? start[i - 1] : 0, e = start[i];
        for (uint32_t x = b + 1; x < e; x++) {
            uint32_t from = x - b > WINDOW ? x - WINDOW : b;
            for (uint32_t y = from; y < x; y++)
                if (joins(&s, order[y], order[x])) unite(s.uf, order[y], order[x]);
        }
    }

    /* Class sums; the corner normals are the normalized sums. */
    sum = ossa__iqe_talloc(s.alloc, (nc + 1) * 3 * sizeof *sum, 1);
    if (!sum) {
        st = ossa__fail_nomem(error);
        goto done;
    }
    memset(sum, 0, (nc + 1) * 3 * sizeof *sum);
    for (size_t c = 0; c < nc; c++) {
        uint32_t r = find(s.uf, (uint32_t)c);
        for (int k = 0; k < 3; k++) sum[(size_t)r * 3 + k] += s.area[(c / 3) * 3 + k];
    }
    for (size_t c = 0; c < nc; c++) {
        const double *n = sum + (size_t)find(s.uf, (uint32_t)c) * 3;
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++)
            out[c * 3 + k] = len > 0 && isfinite(len) ? (float)(n[k] / len) : 0.0f;
    }

done:
    ossa__iqe_tfree(s.alloc, sum);
    ossa__iqe_tfree(s.alloc, start);
    ossa__iqe_tfree(s.alloc, order);
    ossa__iqe_tfree(s.alloc, s.cls);
    ossa__iqe_tfree(s.alloc, s.unit);
    ossa__iqe_tfree(s.alloc, s.area);
    ossa__iqe_tfree(s.alloc, s.cosine);
    ossa__iqe_tfree(s.alloc, s.edges);
    ossa__iqe_tfree(s.alloc, s.state);
    ossa__iqe_tfree(s.alloc, s.uf);
    return st;
}
