/* Skinning by influence groups (see ossa.h, ossa_skin_groups): the mesh is
 * prepared once, its vertices bucketed by their number of non-zero
 * influences and copied into packed arrays per bucket, then every bucket
 * runs a loop specialised for its count: no test of a weight, no stride,
 * and loads that stream. The arithmetic per vertex is the skinning job's
 * (blend the matrices, then transform), influences in the same order. */
#include "runtime/runtime.h"
#include "runtime/simd.h"

#include <math.h>

#if defined(__GNUC__) || defined(__clang__)
#define SG_INLINE inline __attribute__((always_inline))
#else
#define SG_INLINE inline
#endif

/* One bucket: `count` vertices with k influences each. */
typedef struct group {
    uint32_t k, count;
    const uint16_t *idx;   /* k per vertex */
    const float *w;        /* k per vertex */
    const float *pos;      /* 3 per vertex */
    const float *nrm;      /* 3 per vertex, or NULL */
    const float *tan;      /* 4 per vertex, or NULL */
    const uint32_t *order; /* the source index of each vertex */
    int unit;              /* k = 1 and every weight is 1: no blend needed */
} group;

struct ossa_skin_groups {
    ossa_allocator allocator;
    size_t size;
    uint32_t num_vertices, max_index;
    int normals, tangents;
    group groups[OSSA_MAX_INFLUENCES + 1]; /* by k; k = 0: no influence */
    uint32_t *order;                       /* all groups' orders, concatenated */
};

#define CAT(type, base, stride, i)                                                             \
    ((const type *)(const void *)((const char *)(base) + (size_t)(i) * (stride)))
#define AT(type, base, stride, i) ((type *)(void *)((char *)(base) + (size_t)(i) * (stride)))

static size_t align16(size_t x) { return (x + 15) & ~(size_t)15; }

/* Bytes after the last array of the block: the kernels read a vertex's
 * 3 floats with one 16-byte load, which may run past an array's end. */
#define SLACK 16u

ossa_skin_groups *ossa_skin_groups_create(const ossa_skinning_job *mesh,
                                          const ossa_allocator *allocator, ossa_error *error)
{
    /* Matrices are not needed yet: check the mesh with a stand-in. */
    static const float identity[1][16] = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    if (!mesh) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no mesh");
        return NULL;
    }
    ossa_skinning_job check = *mesh;
    check.matrices = identity, check.num_matrices = 1, check.normal_matrices = NULL;
    float scratch[4];
    if (!check.out_positions) check.out_positions = scratch, check.out_positions_stride = 12;
    if (check.in_normals && !check.out_normals) check.out_normals = scratch, check.out_normals_stride = 12;
    if (check.in_tangents && !check.out_tangents) check.out_tangents = scratch, check.out_tangents_stride = 16;
    if (ossa_skinning_validate(&check, error) != OSSA_OK) return NULL;
    uint32_t inf = mesh->influences ? mesh->influences : 4, nv = mesh->num_vertices;
    int normals = mesh->in_normals != NULL, tangents = mesh->in_tangents != NULL;

    /* Count the buckets first: one block holds everything. */
    uint32_t counts[OSSA_MAX_INFLUENCES + 1] = {0}, max_index = 0;
    for (uint32_t v = 0; v < nv; v++) {
        const float *w = CAT(float, mesh->weights, mesh->weights_stride, v);
        const uint16_t *idx = CAT(uint16_t, mesh->indices, mesh->indices_stride, v);
        uint32_t k = 0;
        for (uint32_t i = 0; i < inf; i++)
            if (w[i] != 0) {
                k++;
                max_index = idx[i] > max_index ? idx[i] : max_index;
            }
        counts[k]++;
    }
    size_t size = align16(sizeof(ossa_skin_groups)) + align16((size_t)nv * 4);
    for (uint32_t k = 0; k <= OSSA_MAX_INFLUENCES; k++) {
        size_t c = counts[k];
        size += align16(c * k * 2) + align16(c * k * 4) + align16(c * 12) +
                (normals ? align16(c * 12) : 0) + (tangents ? align16(c * 16) : 0);
    }
    ossa_allocator alloc = {0};
    if (allocator) alloc = *allocator;
    unsigned char *block = ossa__alloc(&alloc, size + 16 + SLACK);
    if (!block) {
        ossa__fail_nomem(error);
        return NULL;
    }
    ossa_skin_groups *s = (ossa_skin_groups *)(void *)block;
    memset(block, 0, size + 16 + SLACK); /* the slack too: loads read it */
    s->allocator = alloc;
    s->size = size + 16 + SLACK;
    s->num_vertices = nv;
    s->max_index = max_index;
    s->normals = normals, s->tangents = tangents;
    unsigned char *p = (unsigned char *)(((uintptr_t)block + align16(sizeof *s) + 15) & ~(uintptr_t)15);
    s->order = (uint32_t *)(void *)p;
    p += align16((size_t)nv * 4);
    uint32_t *order_at = s->order;
    uint16_t *idx_out[OSSA_MAX_INFLUENCES + 1];
    float *w_out[OSSA_MAX_INFLUENCES + 1], *pos_out[OSSA_MAX_INFLUENCES + 1];
    float *nrm_out[OSSA_MAX_INFLUENCES + 1], *tan_out[OSSA_MAX_INFLUENCES + 1];
    uint32_t *ord_out[OSSA_MAX_INFLUENCES + 1];
    for (uint32_t k = 0; k <= OSSA_MAX_INFLUENCES; k++) {
        size_t c = counts[k];
        group *g = &s->groups[k];
        g->k = k, g->count = counts[k];
        idx_out[k] = (uint16_t *)(void *)p, p += align16(c * k * 2);
        w_out[k] = (float *)(void *)p, p += align16(c * k * 4);
        pos_out[k] = (float *)(void *)p, p += align16(c * 12);
        nrm_out[k] = normals ? (float *)(void *)p : NULL, p += normals ? align16(c * 12) : 0;
        tan_out[k] = tangents ? (float *)(void *)p : NULL, p += tangents ? align16(c * 16) : 0;
        ord_out[k] = order_at, order_at += c;
        g->idx = idx_out[k], g->w = w_out[k], g->pos = pos_out[k];
        g->nrm = nrm_out[k], g->tan = tan_out[k], g->order = ord_out[k];
    }
    for (uint32_t v = 0; v < nv; v++) {
        const float *w = CAT(float, mesh->weights, mesh->weights_stride, v);
        const uint16_t *idx = CAT(uint16_t, mesh->indices, mesh->indices_stride, v);
        uint32_t k = 0;
        for (uint32_t i = 0; i < inf; i++) k += w[i] != 0;
        for (uint32_t i = 0; i < inf; i++)
            if (w[i] != 0) *idx_out[k]++ = idx[i], *w_out[k]++ = w[i];
        memcpy(pos_out[k], CAT(float, mesh->in_positions, mesh->in_positions_stride, v), 12);
        pos_out[k] += 3;
        if (normals) {
            memcpy(nrm_out[k], CAT(float, mesh->in_normals, mesh->in_normals_stride, v), 12);
            nrm_out[k] += 3;
        }
        if (tangents) {
            memcpy(tan_out[k], CAT(float, mesh->in_tangents, mesh->in_tangents_stride, v), 16);
            tan_out[k] += 4;
        }
        *ord_out[k]++ = v;
    }
    group *single = &s->groups[1];
    single->unit = 1;
    for (uint32_t i = 0; i < single->count; i++) single->unit &= single->w[i] == 1.0f;
    return s;
}

void ossa_skin_groups_free(ossa_skin_groups *groups)
{
    if (!groups) return;
    ossa_allocator alloc = groups->allocator;
    ossa__free(&alloc, groups, groups->size);
}

void ossa_skin_groups_get_info(const ossa_skin_groups *groups, ossa_skin_groups_info *info)
{
    memset(info, 0, sizeof *info);
    info->num_vertices = groups->num_vertices;
    for (uint32_t k = 0; k <= OSSA_MAX_INFLUENCES; k++) info->counts[k] = groups->groups[k].count;
    info->order = groups->order;
    info->max_index = groups->max_index;
    info->memory = groups->size;
}

/* -- Kernels ------------------------------------------------------------------------ */

/* Where vertex i of a group goes: the source order or the prepared one. */
typedef struct sink {
    float *pos, *nrm, *tan;
    size_t spos, snrm, stan;
    const uint32_t *order; /* NULL = prepared order, from `base` on */
    uint32_t base;
} sink;

static SG_INLINE uint32_t sink_at(const sink *o, const group *g, uint32_t i)
{
    return o->order ? g->order[i] : o->base + i;
}

/* Reference: the skinning job's reference arithmetic in double. */
static void group_reference(const group *g, const ossa_grouped_skinning_job *job, const sink *o)
{
    const float(*nm)[16] = job->normal_matrices ? job->normal_matrices : job->matrices;
    for (uint32_t i = 0; i < g->count; i++) {
        const float *p = g->pos + 3 * (size_t)i;
        const float *n = g->nrm ? g->nrm + 3 * (size_t)i : NULL;
        const float *t = g->tan ? g->tan + 4 * (size_t)i : NULL;
        double op[3] = {0, 0, 0}, on[3] = {0, 0, 0}, ot[3] = {0, 0, 0};
        for (uint32_t k = 0; k < g->k; k++) {
            uint32_t m = g->idx[(size_t)i * g->k + k];
            double wk = g->w[(size_t)i * g->k + k];
            const float *a = job->matrices[m], *q = nm[m];
            ossa__skin_add_reference(wk, a, q, p, n, t, op, on, ot);
        }
        uint32_t at = sink_at(o, g, i);
        float *out = AT(float, o->pos, o->spos, at);
        for (int r = 0; r < 3; r++) out[r] = (float)op[r];
        if (n && o->nrm) {
            out = AT(float, o->nrm, o->snrm, at);
            for (int r = 0; r < 3; r++) out[r] = (float)on[r];
        }
        if (t && o->tan) {
            out = AT(float, o->tan, o->stan, at);
            for (int r = 0; r < 3; r++) out[r] = (float)ot[r];
            out[3] = t[3];
        }
    }
}

/* Portable float, and the fallback for more than 4 influences. */
static void group_scalar(const group *g, const ossa_grouped_skinning_job *job, const sink *o)
{
    int separate = job->normal_matrices != NULL;
    for (uint32_t i = 0; i < g->count; i++) {
        float m[12] = {0}, q[9] = {0};
        for (uint32_t k = 0; k < g->k; k++) {
            uint32_t idx = g->idx[(size_t)i * g->k + k];
            float wk = g->w[(size_t)i * g->k + k];
            const float *a = job->matrices[idx];
            static const int e[12] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14};
            for (int c = 0; c < 12; c++) m[c] += wk * a[e[c]];
            if (separate)
                for (int c = 0; c < 9; c++) q[c] += wk * job->normal_matrices[idx][e[c]];
        }
        if (!separate) memcpy(q, m, sizeof q);
        const float *p = g->pos + 3 * (size_t)i;
        uint32_t at = sink_at(o, g, i);
        float *out = AT(float, o->pos, o->spos, at);
        float r[3];
        for (int c = 0; c < 3; c++) r[c] = m[c] * p[0] + m[3 + c] * p[1] + m[6 + c] * p[2] + m[9 + c];
        memcpy(out, r, 12);
        if (g->nrm && o->nrm) {
            const float *n = g->nrm + 3 * (size_t)i;
            for (int c = 0; c < 3; c++) r[c] = q[c] * n[0] + q[3 + c] * n[1] + q[6 + c] * n[2];
            memcpy(AT(float, o->nrm, o->snrm, at), r, 12);
        }
        if (g->tan && o->tan) {
            const float *t = g->tan + 4 * (size_t)i;
            float u[4];
            for (int c = 0; c < 3; c++) u[c] = q[c] * t[0] + q[3 + c] * t[1] + q[6 + c] * t[2];
            u[3] = t[3];
            memcpy(AT(float, o->tan, o->stan, at), u, 16);
        }
    }
}

/* A group's loop for its constants: k, normals, prepared order and unit
 * weights become compile-time constants in each case. Groups the fast
 * loops do not cover (tangents, separate normal matrices, more than 4
 * influences) take the portable one. */
#define SG_GROUP(name, attr, loop)                                                              \
    static attr void name(const group *g, const ossa_grouped_skinning_job *job, const sink *o)   \
    {                                                                                           \
        int normals = g->nrm && o->nrm;                                                         \
        if ((g->tan && o->tan) || job->normal_matrices || g->k > 4 || g->k == 0) {              \
            group_scalar(g, job, o);                                                            \
            return;                                                                             \
        }                                                                                       \
        int prepared = o->order == NULL;                                                        \
        switch (((g->k * 2 + normals) * 2 + prepared) * 2 + g->unit) {                          \
            SG_CASE(loop, 1, 0, 0) SG_CASE(loop, 1, 1, 0) SG_CASE(loop, 1, 0, 1)                \
            SG_CASE(loop, 1, 1, 1) SG_CASE(loop, 2, 0, 0) SG_CASE(loop, 2, 1, 0)                \
            SG_CASE(loop, 3, 0, 0) SG_CASE(loop, 3, 1, 0) SG_CASE(loop, 4, 0, 0)                \
            SG_CASE(loop, 4, 1, 0)                                                              \
        }                                                                                       \
    }
#define SG_CASE(loop, k, nrm, unit)                                                             \
    case (((k) * 2 + (nrm)) * 2) * 2 + (unit): loop(g, job, o, k, nrm, 0, unit); break;          \
    case (((k) * 2 + (nrm)) * 2 + 1) * 2 + (unit): loop(g, job, o, k, nrm, 1, unit); break;

#ifdef OSSA_HAVE_SSE2
static SG_INLINE void sg_store3(float *p, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}

/* Stores x y z at p; with `wide`, as one 16-byte store whose fourth float
 * lands where the next vertex of a packed output (stride 12, prepared
 * order) will be written afterwards. */
static SG_INLINE void sg_put3(float *p, __m128 v, int wide)
{
    if (wide)
        _mm_storeu_ps(p, v);
    else
        sg_store3(p, v);
}

/* Where a loop's outputs go: in the prepared order, pointers that advance
 * by their strides, with 16-byte stores at stride 12; else each vertex at
 * its source index. */
typedef struct sg_out {
    char *pos, *nrm;
    int wide_pos, wide_nrm;
} sg_out;

static SG_INLINE sg_out sg_out_begin(const sink *o, const int normals, const int prepared)
{
    sg_out c = {(char *)o->pos + (size_t)o->base * o->spos,
                normals ? (char *)o->nrm + (size_t)o->base * o->snrm : NULL,
                prepared && o->spos == 12, prepared && o->snrm == 12};
    return c;
}

/* Vertex i's position r and, with normals, its normal n. */
static SG_INLINE void sg_out_put(sg_out *c, const sink *o, const group *g, uint32_t i,
                                 const int normals, const int prepared, __m128 r, __m128 n)
{
    int more = i + 1 < g->count;
    size_t at = prepared ? 0 : g->order[i];
    if (normals) {
        if (prepared)
            sg_put3((float *)(void *)c->nrm, n, c->wide_nrm && more), c->nrm += o->snrm;
        else
            sg_store3(AT(float, o->nrm, o->snrm, at), n);
    }
    if (prepared)
        sg_put3((float *)(void *)c->pos, r, c->wide_pos && more), c->pos += o->spos;
    else
        sg_store3(AT(float, o->pos, o->spos, at), r);
}

#define SG_SPLAT(v, i) _mm_shuffle_ps(v, v, _MM_SHUFFLE(i, i, i, i))

/* k, normals, prepared (outputs in the prepared order, packed) and unit
 * (k = 1 with weight 1: the matrix as it is, which is what multiplying by
 * 1 gives) are constants after inlining. */
static SG_INLINE void sse2_loop(const group *g, const ossa_grouped_skinning_job *job,
                                const sink *o, const uint32_t k, const int normals,
                                const int prepared, const int unit)
{
    const float(*mats)[16] = job->matrices;
    const uint16_t *idx = g->idx;
    const float *w = g->w, *p = g->pos, *n = g->nrm;
    sg_out out = sg_out_begin(o, normals, prepared);
    for (uint32_t i = 0; i < g->count; i++, idx += k, w += k, p += 3) {
        const float *a = mats[idx[0]];
        __m128 c0 = _mm_loadu_ps(a), c1 = _mm_loadu_ps(a + 4);
        __m128 c2 = _mm_loadu_ps(a + 8), c3 = _mm_loadu_ps(a + 12);
        if (!unit) {
            __m128 ww = _mm_set1_ps(w[0]);
            c0 = _mm_mul_ps(ww, c0), c1 = _mm_mul_ps(ww, c1);
            c2 = _mm_mul_ps(ww, c2), c3 = _mm_mul_ps(ww, c3);
        }
        for (uint32_t j = 1; j < k; j++) {
            __m128 ww = _mm_set1_ps(w[j]);
            a = mats[idx[j]];
            c0 = _mm_add_ps(c0, _mm_mul_ps(ww, _mm_loadu_ps(a)));
            c1 = _mm_add_ps(c1, _mm_mul_ps(ww, _mm_loadu_ps(a + 4)));
            c2 = _mm_add_ps(c2, _mm_mul_ps(ww, _mm_loadu_ps(a + 8)));
            c3 = _mm_add_ps(c3, _mm_mul_ps(ww, _mm_loadu_ps(a + 12)));
        }
        /* 16 bytes at p: the block's slack covers the last vertex. */
        __m128 v = _mm_loadu_ps(p);
        __m128 r = _mm_add_ps(_mm_mul_ps(c0, SG_SPLAT(v, 0)), c3);
        r = _mm_add_ps(r, _mm_mul_ps(c1, SG_SPLAT(v, 1)));
        r = _mm_add_ps(r, _mm_mul_ps(c2, SG_SPLAT(v, 2)));
        __m128 s = _mm_setzero_ps();
        if (normals) {
            v = _mm_loadu_ps(n);
            s = _mm_mul_ps(c0, SG_SPLAT(v, 0));
            s = _mm_add_ps(s, _mm_mul_ps(c1, SG_SPLAT(v, 1)));
            s = _mm_add_ps(s, _mm_mul_ps(c2, SG_SPLAT(v, 2)));
            n += 3;
        }
        sg_out_put(&out, o, g, i, normals, prepared, r, s);
    }
}
#undef SG_SPLAT

SG_GROUP(group_sse2, , sse2_loop)
#endif

#ifdef OSSA_HAVE_AVX2
static SG_INLINE OSSA_AVX2 __m128 sg_hsum(__m256 v)
{
    return _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
}

/* Matrices as [column 0 | column 1] and [column 2 | column 3], as in the
 * skinning job: a point is m01 * [x x x x y y y y] + m23 * [z z z z 1 1 1 1].
 * Constants as in sse2_loop. */
static SG_INLINE OSSA_AVX2 void avx2_loop(const group *g, const ossa_grouped_skinning_job *job,
                                          const sink *o, const uint32_t k, const int normals,
                                          const int prepared, const int unit)
{
    const float(*mats)[16] = job->matrices;
    const uint16_t *idx = g->idx;
    const float *w = g->w, *p = g->pos, *n = g->nrm;
    sg_out out = sg_out_begin(o, normals, prepared);
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    const __m256i lo4 = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const __m256i two = _mm256_set1_epi32(2);
    for (uint32_t i = 0; i < g->count; i++, idx += k, w += k, p += 3) {
        const float *a = mats[idx[0]];
        __m256 m01 = _mm256_loadu_ps(a), m23 = _mm256_loadu_ps(a + 8);
        if (!unit) {
            __m256 ww = _mm256_broadcast_ss(&w[0]);
            m01 = _mm256_mul_ps(ww, m01), m23 = _mm256_mul_ps(ww, m23);
        }
        for (uint32_t j = 1; j < k; j++) {
            __m256 ww = _mm256_broadcast_ss(&w[j]);
            a = mats[idx[j]];
            m01 = _mm256_fmadd_ps(ww, _mm256_loadu_ps(a), m01);
            m23 = _mm256_fmadd_ps(ww, _mm256_loadu_ps(a + 8), m23);
        }
        /* 16 bytes at p: the block's slack covers the last vertex. */
        __m256 v = _mm256_castps128_ps256(_mm_loadu_ps(p));
        __m256 xy = _mm256_permutevar8x32_ps(v, lo4);
        __m256 zw = _mm256_blend_ps(_mm256_permutevar8x32_ps(v, two), one, 0xF0);
        __m128 r = sg_hsum(_mm256_fmadd_ps(m23, zw, _mm256_mul_ps(m01, xy)));
        __m128 s = _mm_setzero_ps();
        if (normals) {
            v = _mm256_castps128_ps256(_mm_loadu_ps(n));
            xy = _mm256_permutevar8x32_ps(v, lo4);
            zw = _mm256_blend_ps(_mm256_permutevar8x32_ps(v, two), zero, 0xF0);
            n += 3;
            s = sg_hsum(_mm256_fmadd_ps(m23, zw, _mm256_mul_ps(m01, xy)));
        }
        sg_out_put(&out, o, g, i, normals, prepared, r, s);
    }
}

SG_GROUP(group_avx2, OSSA_AVX2, avx2_loop)
#endif

/* -- Jobs ----------------------------------------------------------------------------- */

ossa_status ossa_grouped_skinning_validate(const ossa_grouped_skinning_job *job,
                                           ossa_error *error)
{
    if (!job || !job->groups)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "grouped skinning job without groups");
    const ossa_skin_groups *s = job->groups;
    ossa_simd level;
    if (ossa__simd_resolve(job->simd, OSSA_SIMD_AUTO, &level, error) != OSSA_OK)
        return OSSA_FAILED;
    if (!job->out_positions || job->out_positions_stride < 12 || job->out_positions_stride % 4 ||
        (uintptr_t)job->out_positions % 4)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "grouped skinning job: output positions need 4-byte alignment and a "
                          "stride of at least 12, a multiple of 4");
    if (job->out_normals && (!s->normals || job->out_normals_stride < 12 ||
                             job->out_normals_stride % 4 || (uintptr_t)job->out_normals % 4))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "grouped skinning job: output normals without input normals, or a bad "
                          "stride or alignment");
    if (job->out_tangents && (!s->tangents || job->out_tangents_stride < 16 ||
                              job->out_tangents_stride % 4 || (uintptr_t)job->out_tangents % 4))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "grouped skinning job: output tangents without input tangents, or a "
                          "bad stride or alignment");
    if (job->flags & ~(uint32_t)OSSA_SKIN_PREPARED_ORDER)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "grouped skinning job: unknown flags 0x%x", (unsigned)job->flags);
    uint32_t used = s->num_vertices - s->groups[0].count;
    if (used && (!job->matrices || s->max_index >= job->num_matrices))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "grouped skinning job: the mesh uses matrix %u, the job has %u",
                          (unsigned)s->max_index, (unsigned)job->num_matrices);
    return OSSA_OK;
}

ossa_status ossa_grouped_skinning_run(const ossa_grouped_skinning_job *job, ossa_error *error)
{
    if (ossa_grouped_skinning_validate(job, error) != OSSA_OK) return OSSA_FAILED;
    ossa_simd level;
    ossa__simd_resolve(job->simd, OSSA_SIMD_AUTO, &level, NULL);
    const ossa_skin_groups *s = job->groups;
    sink o = {job->out_positions, job->out_normals, job->out_tangents,
              job->out_positions_stride, job->out_normals_stride, job->out_tangents_stride,
              (job->flags & OSSA_SKIN_PREPARED_ORDER) ? NULL : s->order, 0};
    for (uint32_t k = 0; k <= OSSA_MAX_INFLUENCES; k++) {
        const group *g = &s->groups[k];
        if (g->count == 0) continue;
        if (k == 0) {
            /* No influence: the skinning job gives zeros (tangent w kept). */
            for (uint32_t i = 0; i < g->count; i++) {
                uint32_t at = sink_at(&o, g, i);
                memset(AT(float, o.pos, o.spos, at), 0, 12);
                if (o.nrm) memset(AT(float, o.nrm, o.snrm, at), 0, 12);
                if (o.tan) {
                    float *t = AT(float, o.tan, o.stan, at);
                    memset(t, 0, 12);
                    t[3] = g->tan[4 * (size_t)i + 3];
                }
            }
        } else {
            switch (level) {
#ifdef OSSA_HAVE_AVX2
            case OSSA_SIMD_AVX2: group_avx2(g, job, &o); break;
#endif
#ifdef OSSA_HAVE_SSE2
            case OSSA_SIMD_SSE2: group_sse2(g, job, &o); break;
#endif
            case OSSA_SIMD_SCALAR: group_scalar(g, job, &o); break;
            default: group_reference(g, job, &o); break;
            }
        }
        o.base += g->count;
    }
    return OSSA_OK;
}
