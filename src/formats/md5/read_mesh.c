/* md5mesh reader (docs/formats/md5.md §2-§5, §10, §12): joints in model space
 * become parent-relative bind poses, each mesh block one mesh whose
 * vertices are placed by their weights, blend data from the weights
 * (duplicates merged, biases <= 0.001 dropped, the max_influences largest
 * kept and renormalized) and normals smoothed by position per block, both
 * by the shared post-read steps (core/influences.h, core/normals.h).
 *
 * Blocks are parsed into scratch lists that the next block reuses; their
 * vertices go straight to the model's arrays, which grow by doubling. */
#include "formats/md5/md5.h"

#include "core/influences.h"
#include "core/normals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Smallest text of one entry (idLexer needs no blank next to a
 * parenthesis): counts that could not fit in the bytes left are refused
 * before anything is allocated for them. */
enum { MIN_JOINT = 16, MIN_MESH = 16, MIN_VERT = 12, MIN_TRI = 10, MIN_WEIGHT = 16 };

typedef struct vert_rec {
    float u, v;
    uint32_t first, count;
    const char *at; /* the firstWeight token, for the late range check */
} vert_rec;

typedef struct weight_rec {
    uint32_t joint;
    float bias;
    float offset[3];
} weight_rec;

typedef struct mesh_rec {
    char *name, *shader; /* scratch copies */
    uint32_t first_vertex, num_vertices, first_triangle, num_triangles;
} mesh_rec;

typedef struct reader {
    md5_lexer *L;
    ossa_model *m;
    ossa_error *error;
    uint32_t nj, K;
    double *joints; /* model space: t xyz, q xyzw (7 per joint) */

    /* scratch lists of the current block */
    vert_rec *verts;
    size_t cap_verts;
    uint32_t *tris;
    size_t cap_tris;
    weight_rec *weights;
    size_t cap_weights;
    ossa__influence *pairs;
    size_t cap_pairs;

    /* the model's vertices so far */
    uint32_t nv, nt;
    size_t cap_v, cap_t;
    float *pos, *uv, *nrm, *bidx, *bwgt, *spread;
    uint32_t *out_tris;
    mesh_rec *meshes;
    uint32_t num_meshes;

    /* counted problems, reported once each */
    uint32_t limited, limited_line, light, light_line, unbalanced, unbalanced_line;
    /* weights referenced by all vertices so far: runs may overlap, so a
     * few bytes of text could ask for work without end (see read_block) */
    uint64_t referenced;
} reader;

static void *talloc(const reader *r, size_t count, size_t elem)
{
    if (elem && count > SIZE_MAX / elem) return NULL;
    return ossa__temp_alloc(r->m, count && elem ? count * elem : 1);
}

static void tfree(const reader *r, void *p) { ossa__temp_free(r->m, p); }

/* Grows *p to hold `need` elements (doubling), keeping its contents. */
static bool grow(const reader *r, void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    void *q = talloc(r, n, elem);
    if (!q) return false;
    if (*p) memcpy(q, *p, *cap * elem);
    tfree(r, *p);
    *p = q;
    *cap = n;
    return true;
}

static ossa_status nomem(reader *r) { return ossa__fail_nomem(r->error); }

/* A count announced by the file, refused when its entries cannot fit in
 * the bytes left. */
static ossa_status count(reader *r, const char *keyword, int64_t max, size_t min_bytes,
                         uint32_t *out)
{
    md5_lexer *L = r->L;
    int64_t v;
    if (ossa__md5_keyword(L, keyword, "") || ossa__md5_space(L) < 0) return OSSA_FAILED;
    const char *at = L->lx.p;
    if (ossa__md5_int(L, &v, 0, max, keyword)) return OSSA_FAILED;
    size_t left = (size_t)(L->lx.end - L->lx.p);
    if ((uint64_t)v > left / min_bytes)
        return ossa__fail_line(L->lx.error, OSSA_ERROR_TRUNCATED, L->lx.line,
                               ossa__lex_column(&L->lx, at),
                               "%s %lld: that many entries cannot fit in the %zu bytes left",
                               keyword, (long long)v, left);
    *out = (uint32_t)v;
    return OSSA_OK;
}

/* "keyword i" with i equal to the entry's position (docs/formats/md5.md
 * §12: id ignores the numbers, other readers place entries by them; both
 * agree only when they count up from 0). `n` is the keyword's length. */
OSSA_MD5_HOT ossa_status entry(reader *r, const char *keyword, size_t n, uint32_t i, uint32_t count,
                               const char *counter)
{
    md5_lexer *L = r->L;
    if (!ossa__md5_accept_n(L, keyword, n)) {
        char context[96];
        snprintf(context, sizeof context, "for entry %u (%s is %u)", i, counter, count);
        return ossa__md5_keyword(L, keyword, context);
    }
    int64_t v;
    if (ossa__md5_space(L) < 0) return OSSA_FAILED;
    const char *at = L->lx.p;
    if (ossa__md5_int_try(L, &v) && v == i) return OSSA_OK;
    /* not the number expected: read it again to say what it is */
    L->lx.p = at;
    if (ossa__md5_int(L, &v, INT64_MIN + 1, INT64_MAX, keyword)) return OSSA_FAILED;
    return ossa__fail_line(L->lx.error, OSSA_ERROR_CORRUPT, L->lx.line,
                           ossa__lex_column(&L->lx, at),
                           "%s number %lld: expected %u (entries are numbered in order from 0; "
                           "%s is %u)",
                           keyword, (long long)v, i, counter, count);
}

/* -- Quaternions (§3) -- */

/* w = -sqrt(1 - x² - y² - z²), clamped at 0, then normalized. */
static void rebuild_w(reader *r, const float xyz[3], double q[4], const char *at)
{
    double s = (double)xyz[0] * xyz[0] + (double)xyz[1] * xyz[1] + (double)xyz[2] * xyz[2];
    double k = s > 1 ? 1 / sqrt(s) : 1;
    for (int i = 0; i < 3; i++) q[i] = xyz[i] * k;
    q[3] = s < 1 ? -sqrt(1 - s) : 0;
    if (s > 1.001)
        ossa__md5_warn(r->L, OSSA_WARNING_REPAIRED, at,
                       "rotation (%g %g %g) is longer than a unit quaternion allows (x²+y²+z² = "
                       "%g): normalized with w = 0",
                       xyz[0], xyz[1], xyz[2], s);
}

/* -- Joints (§4) -- */

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* Joint names should be unique: animations bind to them (merging takes
 * the first of equal names). */
static ossa_status check_names(reader *r)
{
    uint32_t nj = r->m->num_joints, cap = 16;
    while (cap < nj * 2) cap *= 2;
    uint32_t *slot = talloc(r, cap, sizeof *slot);
    if (!slot) return nomem(r);
    memset(slot, 0, (size_t)cap * sizeof *slot);
    uint32_t dups = 0, first = 0;
    for (uint32_t j = 0; j < nj; j++) {
        const char *name = r->m->joints[j].name;
        size_t n = strlen(name);
        for (uint32_t s = hash_name(name, n) & (cap - 1);; s = (s + 1) & (cap - 1)) {
            if (!slot[s]) {
                slot[s] = j + 1;
                break;
            }
            if (strcmp(r->m->joints[slot[s] - 1].name, name) == 0) {
                if (!dups++) first = j;
                break;
            }
        }
    }
    tfree(r, slot);
    if (dups)
        ossa__warn(r->m, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "%u joints repeat the name of an earlier one (first: joint %u '%s'); animations "
                   "bind to the first joint of a name",
                   dups, first, r->m->joints[first].name);
    return OSSA_OK;
}

static ossa_status read_joints(reader *r)
{
    md5_lexer *L = r->L;
    uint32_t nj = r->nj;
    r->joints = talloc(r, (size_t)nj * 7, sizeof *r->joints);
    if (!r->joints) return nomem(r);
    if (ossa__md5_keyword(L, "joints", "") || ossa__md5_punct(L, '{', "the joints block"))
        return OSSA_FAILED;
    char *name = NULL;
    size_t name_cap = 0;
    ossa_status st = OSSA_OK;
    for (uint32_t j = 0; j < nj && !st; j++) {
        const char *s, *at;
        size_t len;
        int64_t parent;
        float t[3], q[3];
        if (ossa__md5_space(L) < 0 || ossa__md5_string(L, &s, &len, "a joint name")) {
            st = OSSA_FAILED;
            break;
        }
        if (ossa__md5_space(L) < 0) {
            st = OSSA_FAILED;
            break;
        }
        at = L->lx.p;
        if (ossa__md5_int(L, &parent, INT32_MIN, INT32_MAX, "the joint's parent") ||
            ossa__md5_vector(L, t, 3, "the joint's position") ||
            ossa__md5_vector(L, q, 3, "the joint's rotation")) {
            st = OSSA_FAILED;
            break;
        }
        /* id composes joints in file order: a parent must come first. */
        if (parent < -1 || parent >= (int64_t)j) {
            st = ossa__md5_fail_at(L, at,
                                   "joint %u: parent %lld is not an earlier joint (-1 for a root, "
                                   "0 to %u)",
                                   j, (long long)parent, j ? j - 1 : 0);
            break;
        }
        double *J = r->joints + (size_t)j * 7;
        for (int i = 0; i < 3; i++) J[i] = t[i];
        rebuild_w(r, q, J + 3, at);
        /* parent-relative: t = R(conj(qp))(tc - tp), q = conj(qp) qc */
        ossa_transform bind = ossa_transform_identity();
        if (parent < 0) {
            for (int i = 0; i < 3; i++) bind.translation[i] = t[i];
            for (int i = 0; i < 4; i++) bind.rotation[i] = (float)J[3 + i];
        } else {
            const double *P = r->joints + (size_t)parent * 7;
            double inv[4] = {-P[3], -P[4], -P[5], P[6]}, d[3], lt[3], lq[4];
            for (int i = 0; i < 3; i++) d[i] = J[i] - P[i];
            ossa__quatd_rotate(inv, d, lt);
            ossa__quatd_mul(inv, J + 3, lq);
            double n = sqrt(lq[0] * lq[0] + lq[1] * lq[1] + lq[2] * lq[2] + lq[3] * lq[3]);
            double k = (lq[3] > 0 ? -1 : 1) / n; /* w <= 0, as IQM writers keep it */
            for (int i = 0; i < 3; i++) bind.translation[i] = (float)lt[i];
            for (int i = 0; i < 4; i++) bind.rotation[i] = (float)(lq[i] * k);
        }
        if (!ossa__finite3(bind.translation)) {
            st = ossa__md5_fail_at(L, at,
                                   "joint %u: its position relative to its parent is not a finite "
                                   "float",
                                   j);
            break;
        }
        if (!grow(r, (void **)&name, &name_cap, len + 1, 1)) {
            st = nomem(r);
            break;
        }
        memcpy(name, s, len);
        name[len] = 0;
        if (ossa_model_add_joint(r->m, name, (int32_t)parent, &bind, r->error) < 0)
            st = OSSA_FAILED;
    }
    tfree(r, name);
    if (!st) st = ossa__md5_punct(L, '}', "the joints block (after numJoints entries)");
    if (!st) st = check_names(r);
    return st;
}

/* -- Blend data (§5) -- */

/* The vertex's influences into slots idx/wgt (K each) by the shared step
 * (core/influences.h): repeated joints summed, biases <= 0.001 dropped,
 * the K largest kept and renormalized (ties keep file order); unused
 * slots are joint 0, weight 0. A vertex with no bias above 0.001 is bound
 * to its largest one alone. */
static void blend(reader *r, const weight_rec *w, uint32_t n, float *idx, float *wgt, uint32_t line)
{
    ossa__influence *p = r->pairs;
    double raw = 0, largest = 0;
    uint32_t largest_joint = w[0].joint;
    for (uint32_t k = 0; k < n; k++) {
        p[k].joint = w[k].joint;
        p[k].order = k;
        p[k].weight = w[k].bias;
        raw += w[k].bias;
        if (!k || w[k].bias > largest) {
            largest = w[k].bias;
            largest_joint = w[k].joint;
        }
    }
    if (fabs(raw - 1) > 0.01 && !r->unbalanced++) r->unbalanced_line = line;
    uint32_t K = r->K;
    ossa__influence_rule rule = {K, 0.001, false};
    ossa__influence_stats stats;
    uint32_t used = ossa__influences_limit(p, n, &rule, &stats);
    if (!used) {
        /* nothing above the threshold: the largest bias alone */
        if (!r->light++) r->light_line = line;
        p[0].joint = stats.merged ? p[0].joint : largest_joint;
        p[0].weight = 1;
        used = 1;
    } else if ((stats.total - stats.kept_weight) > 0.01 * stats.total && !r->limited++) {
        r->limited_line = line;
    }
    ossa__influences_normalize(p, used, K, wgt);
    for (uint32_t k = 0; k < K; k++) {
        idx[k] = k < used ? (float)p[k].joint : 0;
        if (k >= used) wgt[k] = 0;
    }
}

/* -- Mesh blocks -- */

/* "// meshes: NAME", the comment id's exporter writes first in a block
 * and the IQM SDK takes the mesh name from: the text after the colon and
 * one space, trailing blanks dropped. */
static void comment_name(const md5_lexer *L, const char **name, size_t *len)
{
    const char *p = L->lx.p, *end = L->lx.end;
    *name = NULL;
    *len = 0;
    for (;;) {
        while (p < end && (ossa__text_blank(*p) || *p == '\n')) p++;
        if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
            const char *e = p;
            while (e < end && *e != '\n' && *e != '\r') e++;
            static const char tag[] = "// meshes:";
            if ((size_t)(e - p) >= sizeof tag - 1 && memcmp(p, tag, sizeof tag - 1) == 0) {
                const char *s = p + sizeof tag - 1;
                if (s < e && *s == ' ') s++;
                while (e > s && ossa__text_blank(e[-1])) e--;
                *name = s;
                *len = (size_t)(e - s);
                return;
            }
            p = e;
        } else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
            const char *e = p + 2;
            while (e + 1 < end && !(e[0] == '*' && e[1] == '/')) e++;
            if (e + 1 >= end) return;
            p = e + 2;
        } else {
            return;
        }
    }
}

static char *scratch_string(reader *r, const char *s, size_t n)
{
    char *c = talloc(r, n + 1, 1);
    if (c) {
        if (n) memcpy(c, s, n);
        c[n] = 0;
    }
    return c;
}

ossa_status ossa__md5_normals(const ossa_model *model, const float *pos, uint32_t nv,
                              const uint32_t *tris, uint32_t nt, float *out, ossa_error *error)
{
    ossa__normals_in in;
    memset(&in, 0, sizeof in);
    in.positions = pos;
    in.stride = 3;
    in.components = 3;
    in.num_points = nv;
    in.corners = tris;
    in.num_triangles = nt;
    return ossa__normals(model, &in, NULL, NULL, out, error);
}

/* Vertices, blend data and normals of the parsed block, appended to the
 * model's lists. */
static ossa_status finish_block(reader *r, uint32_t nv, uint32_t nt, uint32_t nw, mesh_rec *mr,
                                uint32_t block_line)
{
    md5_lexer *L = r->L;
    uint32_t K = r->K;
    for (uint32_t v = 0; v < nv; v++) {
        const vert_rec *vr = &r->verts[v];
        if ((uint64_t)vr->first + vr->count > nw)
            return ossa__md5_fail_at(L, vr->at,
                                     "vert %u: weights %u to %llu are past the %u weights of its "
                                     "mesh (numweights)",
                                     v, vr->first, (unsigned long long)vr->first + vr->count - 1,
                                     nw);
    }
    if ((uint64_t)r->nv + nv > UINT32_MAX || (uint64_t)r->nt + nt > UINT32_MAX)
        return ossa__fail_line(r->error, OSSA_ERROR_UNSUPPORTED, block_line, 1,
                               "more than 2^32 - 1 vertices or triangles");
    size_t need = (size_t)r->nv + nv;
    size_t cap = r->cap_v;
    if (!grow(r, (void **)&r->pos, &cap, need, 3 * sizeof(float))) return nomem(r);
    cap = r->cap_v;
    if (!grow(r, (void **)&r->uv, &cap, need, 2 * sizeof(float))) return nomem(r);
    cap = r->cap_v;
    if (!grow(r, (void **)&r->nrm, &cap, need, 3 * sizeof(float))) return nomem(r);
    cap = r->cap_v;
    if (!grow(r, (void **)&r->bidx, &cap, need, K * sizeof(float))) return nomem(r);
    cap = r->cap_v;
    if (!grow(r, (void **)&r->bwgt, &cap, need, K * sizeof(float))) return nomem(r);
    cap = r->cap_v;
    if (!grow(r, (void **)&r->spread, &cap, need, sizeof(float))) return nomem(r);
    r->cap_v = cap;
    if (!grow(r, (void **)&r->out_tris, &r->cap_t, (size_t)r->nt + nt, 3 * sizeof(uint32_t)))
        return nomem(r);

    size_t base = r->nv;
    for (uint32_t v = 0; v < nv; v++) {
        const vert_rec *vr = &r->verts[v];
        const weight_rec *w = r->weights + vr->first;
        /* p = sum of bias * (t_j + R(q_j) offset), raw biases as id skins */
        double p[3] = {0, 0, 0}, lo[3], hi[3];
        for (uint32_t k = 0; k < vr->count; k++) {
            const double *J = r->joints + (size_t)w[k].joint * 7;
            double o[3] = {w[k].offset[0], w[k].offset[1], w[k].offset[2]}, x[3];
            ossa__quatd_rotate(J + 3, o, x);
            for (int i = 0; i < 3; i++) {
                x[i] += J[i];
                p[i] += w[k].bias * x[i];
                if (!k || x[i] < lo[i]) lo[i] = x[i];
                if (!k || x[i] > hi[i]) hi[i] = x[i];
            }
        }
        float *P = r->pos + (base + v) * 3;
        double spread = 0;
        for (int i = 0; i < 3; i++) {
            P[i] = (float)p[i];
            if (hi[i] - lo[i] > spread) spread = hi[i] - lo[i];
        }
        if (!ossa__finite3(P))
            return ossa__md5_fail_at(L, vr->at,
                                     "vert %u: its weights place it at a point that is not a "
                                     "finite float",
                                     v);
        r->spread[base + v] = (float)spread;
        r->uv[(base + v) * 2] = vr->u;
        r->uv[(base + v) * 2 + 1] = vr->v;
        if (!grow(r, (void **)&r->pairs, &r->cap_pairs, vr->count, sizeof(ossa__influence))) return nomem(r);
        blend(r, w, vr->count, r->bidx + (base + v) * K, r->bwgt + (base + v) * K, block_line);
    }
    for (size_t i = 0; i < (size_t)nt * 3; i++)
        r->out_tris[(size_t)r->nt * 3 + i] = (uint32_t)base + r->tris[i];
    if (ossa__md5_normals(r->m, r->pos + base * 3, nv, r->tris, nt, r->nrm + base * 3, r->error))
        return OSSA_FAILED;
    mr->first_vertex = (uint32_t)base;
    mr->num_vertices = nv;
    mr->first_triangle = r->nt;
    mr->num_triangles = nt;
    r->nv += nv;
    r->nt += nt;
    return OSSA_OK;
}

static ossa_status read_block(reader *r, uint32_t index, uint32_t announced)
{
    md5_lexer *L = r->L;
    char context[80];
    snprintf(context, sizeof context, "for block %u (numMeshes is %u)", index, announced);
    if (ossa__md5_keyword(L, "mesh", context) || ossa__md5_punct(L, '{', "the mesh block"))
        return OSSA_FAILED;
    uint32_t block_line = L->lx.line;
    const char *name, *shader;
    size_t name_len, shader_len;
    comment_name(L, &name, &name_len);
    if (ossa__md5_accept(L, "name") && ossa__md5_string(L, &name, &name_len, "the mesh name"))
        return OSSA_FAILED;
    if (ossa__md5_keyword(L, "shader", "") ||
        ossa__md5_string(L, &shader, &shader_len, "the shader"))
        return OSSA_FAILED;

    uint32_t nv, nt, nw;
    if (count(r, "numverts", INT32_MAX, MIN_VERT, &nv)) return OSSA_FAILED;
    if (!grow(r, (void **)&r->verts, &r->cap_verts, nv, sizeof *r->verts)) return nomem(r);
    for (uint32_t v = 0; v < nv; v++) {
        vert_rec *vr = &r->verts[v];
        float uv[2];
        int64_t first, n;
        if (entry(r, "vert", 4, v, nv, "numverts") || ossa__md5_vector(L, uv, 2, "the texcoord") ||
            ossa__md5_space(L) < 0)
            return OSSA_FAILED;
        vr->at = L->lx.p;
        if (ossa__md5_int(L, &first, 0, UINT32_MAX, "the first weight") || ossa__md5_space(L) < 0)
            return OSSA_FAILED;
        const char *at = L->lx.p;
        if (ossa__md5_int(L, &n, 0, UINT32_MAX, "the weight count")) return OSSA_FAILED;
        if (n == 0)
            return ossa__md5_fail_at(L, at, "vert %u has no weights (id refuses such a vertex)", v);
        /* A vertex line of 12 bytes or more names a handful of weights in
         * any real file; runs of many weights shared by many vertices are
         * refused once they outgrow the file four times over. */
        r->referenced += (uint64_t)n;
        size_t size = (size_t)(L->lx.end - L->lx.data);
        if (r->referenced > (uint64_t)size * 4 + 4096)
            return ossa__md5_fail_at(L, at,
                                     "vert %u: the vertices so far use %llu weights in all, out of "
                                     "proportion to a %zu-byte file",
                                     v, (unsigned long long)r->referenced, size);
        vr->u = uv[0];
        vr->v = uv[1];
        vr->first = (uint32_t)first;
        vr->count = (uint32_t)n;
    }

    if (count(r, "numtris", INT32_MAX, MIN_TRI, &nt)) return OSSA_FAILED;
    if (!grow(r, (void **)&r->tris, &r->cap_tris, (size_t)nt * 3, sizeof *r->tris)) return nomem(r);
    for (uint32_t t = 0; t < nt; t++) {
        if (entry(r, "tri", 3, t, nt, "numtris")) return OSSA_FAILED;
        for (int k = 0; k < 3; k++) {
            int64_t v;
            if (ossa__md5_space(L) < 0) return OSSA_FAILED;
            const char *at = L->lx.p;
            if (ossa__md5_int(L, &v, INT64_MIN + 1, INT64_MAX, "a triangle corner"))
                return OSSA_FAILED;
            if (v < 0 || v >= nv)
                return ossa__md5_fail_at(L, at,
                                         "tri %u: vertex %lld does not exist (the mesh has %u: "
                                         "0 to %lld)",
                                         t, (long long)v, nv, (long long)nv - 1);
            r->tris[(size_t)t * 3 + k] = (uint32_t)v;
        }
    }

    if (count(r, "numweights", INT32_MAX, MIN_WEIGHT, &nw)) return OSSA_FAILED;
    if (!grow(r, (void **)&r->weights, &r->cap_weights, nw, sizeof *r->weights)) return nomem(r);
    for (uint32_t i = 0; i < nw; i++) {
        weight_rec *w = &r->weights[i];
        int64_t joint;
        if (entry(r, "weight", 6, i, nw, "numweights") || ossa__md5_space(L) < 0)
            return OSSA_FAILED;
        const char *at = L->lx.p;
        if (ossa__md5_int(L, &joint, INT64_MIN + 1, INT64_MAX, "the weight's joint"))
            return OSSA_FAILED;
        if (joint < 0 || joint >= r->nj)
            return ossa__md5_fail_at(L, at,
                                     "weight %u: joint %lld does not exist (numJoints is %u: 0 to "
                                     "%u)",
                                     i, (long long)joint, r->nj, r->nj - 1);
        if (ossa__md5_float(L, &w->bias, "the weight's bias") ||
            ossa__md5_vector(L, w->offset, 3, "the weight's position"))
            return OSSA_FAILED;
        w->joint = (uint32_t)joint;
    }
    if (ossa__md5_punct(L, '}', "the mesh block (after numweights entries)")) return OSSA_FAILED;

    if (!nv || !nt) {
        ossa__md5_warn(L, OSSA_WARNING_IGNORED, NULL,
                       "mesh block %u has %u vertices and %u triangles: skipped", index, nv, nt);
        return OSSA_OK;
    }
    mesh_rec *mr = &r->meshes[r->num_meshes];
    mr->name = scratch_string(r, name ? name : "", name_len);
    mr->shader = scratch_string(r, shader, shader_len);
    if (!mr->name || !mr->shader) {
        tfree(r, mr->name);
        tfree(r, mr->shader);
        return nomem(r);
    }
    r->num_meshes++;
    return finish_block(r, nv, nt, nw, mr, block_line);
}

/* Per-weight points of a vertex should coincide (§5); one position plus
 * blend weights cannot say anything else. */
static void check_spread(reader *r)
{
    float lo[3], hi[3];
    for (uint32_t v = 0; v < r->nv; v++)
        for (int i = 0; i < 3; i++) {
            float x = r->pos[(size_t)v * 3 + i];
            if (!v || x < lo[i]) lo[i] = x;
            if (!v || x > hi[i]) hi[i] = x;
        }
    double size = 0;
    for (int i = 0; r->nv && i < 3; i++) size += ((double)hi[i] - lo[i]) * ((double)hi[i] - lo[i]);
    double limit = 1e-3 * sqrt(size);
    uint32_t bad = 0, first = 0;
    float worst = 0;
    for (uint32_t v = 0; v < r->nv; v++)
        if (r->spread[v] > limit) {
            if (!bad++) first = v;
            if (r->spread[v] > worst) worst = r->spread[v];
        }
    if (bad)
        ossa__warn(r->m, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "%u vertices place their weights at different points (first: vertex %u; up to "
                   "%g apart, the model is %g across): each gets the bias-weighted mean",
                   bad, first, worst, sqrt(size));
}

static ossa_status build_model(reader *r)
{
    ossa_model *m = r->m;
    uint32_t K = r->K;
    if (!r->nv) return OSSA_OK;
    check_spread(r);
    ossa_component index_format = r->nj <= 256     ? OSSA_UBYTE
                                  : r->nj <= 65536 ? OSSA_USHORT
                                                   : OSSA_UINT;
    if (ossa_model_set_num_vertices(m, r->nv, r->error) ||
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", r->pos,
                                     r->error) ||
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, "", r->uv, r->error) ||
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, "", r->nrm, r->error) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, index_format, K, "",
                                            r->bidx, r->error) ||
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, K, "", r->bwgt,
                                     r->error))
        return OSSA_FAILED;
    if (ossa_model_set_triangles(m, r->nt, (const ossa_triangle *)r->out_tris, r->error))
        return OSSA_FAILED;
    for (uint32_t i = 0; i < r->num_meshes; i++) {
        const mesh_rec *mr = &r->meshes[i];
        if (ossa_model_add_mesh(m, mr->name, mr->shader, mr->first_vertex, mr->num_vertices,
                                mr->first_triangle, mr->num_triangles, r->error) < 0)
            return OSSA_FAILED;
    }
    if (r->unbalanced)
        ossa__warn(m, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, r->unbalanced_line, 0,
                   "%u vertices have biases that do not sum to 1 (within 0.01): positions use them "
                   "as given, blend weights are renormalized",
                   r->unbalanced);
    if (r->light)
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, r->light_line, 0,
                   "%u vertices have no bias above 0.001: each is bound to its largest one alone",
                   r->light);
    if (r->limited)
        ossa__warn(m, OSSA_WARNING_LIMITED, OSSA_NO_OFFSET, r->limited_line, 0,
                   "%u vertices lose more than 1%% of their weight to the limit of %u influences",
                   r->limited, K);
    return OSSA_OK;
}

static void reader_free(reader *r)
{
    tfree(r, r->joints);
    tfree(r, r->verts);
    tfree(r, r->tris);
    tfree(r, r->weights);
    tfree(r, r->pairs);
    tfree(r, r->pos);
    tfree(r, r->uv);
    tfree(r, r->nrm);
    tfree(r, r->bidx);
    tfree(r, r->bwgt);
    tfree(r, r->spread);
    tfree(r, r->out_tris);
    for (uint32_t i = 0; r->meshes && i < r->num_meshes; i++) {
        tfree(r, r->meshes[i].name);
        tfree(r, r->meshes[i].shader);
    }
    tfree(r, r->meshes);
}

ossa_status ossa__md5_read_mesh(md5_lexer *L, ossa_model *model, const ossa_load_options *options)
{
    reader r;
    memset(&r, 0, sizeof r);
    r.L = L;
    r.m = model;
    r.error = L->lx.error;
    r.K = ossa__influence_max(options->max_influences);
    model->source_format = OSSA_FORMAT_MD5MESH;

    uint32_t nm = 0;
    ossa_status st = count(&r, "numJoints", INT32_MAX, MIN_JOINT, &r.nj);
    if (!st && r.nj == 0)
        st = ossa__fail_line(r.error, OSSA_ERROR_CORRUPT, L->lx.line, 1,
                             "numJoints 0: an md5mesh needs at least one joint");
    if (!st) st = count(&r, "numMeshes", INT32_MAX, MIN_MESH, &nm);
    if (!st) st = read_joints(&r);
    if (!st && !(r.meshes = talloc(&r, (size_t)nm + 1, sizeof *r.meshes))) st = nomem(&r);
    for (uint32_t i = 0; i < nm && !st; i++) st = read_block(&r, i, nm);
    if (!st) {
        int more = ossa__md5_space(L);
        if (more < 0)
            st = OSSA_FAILED;
        else if (more)
            ossa__md5_warn(L, OSSA_WARNING_IGNORED, NULL,
                           "text after the %u mesh blocks that numMeshes announced is ignored", nm);
    }
    if (!st) st = build_model(&r);
    reader_free(&r);
    return st;
}
