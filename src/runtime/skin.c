/* Skinning: skinning and normal matrices, and CPU linear blend skinning
 * (ossa/runtime.h).
 *
 * The fast paths blend the influences' matrices first (sum of w_k * M_k)
 * and transform each attribute once with the blended matrix: 4 matrix
 * loads per influence instead of one transform per influence and
 * attribute. AVX2 keeps two matrix columns per register. The reference
 * path transforms by each influence in double precision. */
#include "runtime/runtime.h"
#include "runtime/simd.h"

#include <math.h>

#if defined(__GNUC__) || defined(__clang__)
#define SKIN_INLINE inline __attribute__((always_inline))
#else
#define SKIN_INLINE inline
#endif

/* -- Matrices -------------------------------------------------------------- */

void ossa_skinning_matrices(uint32_t count, const float (*model)[16],
                            const float (*inverse_bind)[16], float (*out)[16])
{
    ossa__mat_mul_many(count, model, inverse_bind, out);
}

void ossa_normal_matrices(uint32_t count, const float (*matrices)[16], float (*out)[16])
{
    for (uint32_t i = 0; i < count; i++) {
        const float *m = matrices[i];
        double a = m[0], b = m[4], c = m[8];
        double d = m[1], e = m[5], f = m[9];
        double g = m[2], h = m[6], k = m[10];
        /* Cofactors: the inverse-transpose is cof / det. */
        double cof[9] = {e * k - f * h, -(d * k - f * g), d * h - e * g,
                         -(b * k - c * h), a * k - c * g,  -(a * h - b * g),
                         b * f - c * e,  -(a * f - c * d), a * e - b * d};
        /* cof[row * 3 + col] for rows (a b c), (d e f), (g h i). */
        double det = a * cof[0] + b * cof[1] + c * cof[2];
        float r[16] = {0};
        if (det != 0 && isfinite(det)) {
            double s = 1 / det;
            for (int row = 0; row < 3; row++)
                for (int col = 0; col < 3; col++)
                    r[col * 4 + row] = (float)(cof[row * 3 + col] * s);
        } else {
            for (int col = 0; col < 3; col++)
                for (int row = 0; row < 3; row++) r[col * 4 + row] = m[col * 4 + row];
        }
        r[15] = 1;
        memcpy(out[i], r, sizeof r);
    }
}

/* -- Validation ------------------------------------------------------------ */

static ossa_status check_array(const void *ptr, size_t stride, size_t min_stride, size_t align,
                               const char *what, ossa_error *error)
{
    if (!ptr)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "skinning job: no %s", what);
    if ((uintptr_t)ptr % align)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: %s is not %zu-byte aligned", what, align);
    if (stride < min_stride || stride % align)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: %s stride %zu (must be a multiple of %zu, >= %zu)", what,
                          stride, align, min_stride);
    return OSSA_OK;
}

ossa_status ossa_skinning_validate(const ossa_skinning_job *job, ossa_error *error)
{
    if (!job) return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no skinning job");
    uint32_t inf = job->influences ? job->influences : 4;
    if (inf > OSSA_MAX_INFLUENCES)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: %u influences (at most %d)", (unsigned)inf,
                          OSSA_MAX_INFLUENCES);
    ossa_simd level;
    if (ossa__simd_resolve(job->simd, OSSA_SIMD_AUTO, &level, error) != OSSA_OK)
        return OSSA_FAILED;
    if ((job->in_normals == NULL) != (job->out_normals == NULL))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: normals need both an input and an output");
    if ((job->in_tangents == NULL) != (job->out_tangents == NULL))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: tangents need both an input and an output");
    if (job->num_vertices == 0) return OSSA_OK;
    if (!job->matrices || job->num_matrices == 0)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: no skinning matrices");
    if (check_array(job->indices, job->indices_stride, 2 * (size_t)inf, 2, "indices", error) ||
        check_array(job->weights, job->weights_stride, 4 * (size_t)inf, 4, "weights", error) ||
        check_array(job->in_positions, job->in_positions_stride, 12, 4, "input positions",
                    error) ||
        check_array(job->out_positions, job->out_positions_stride, 12, 4, "output positions",
                    error))
        return OSSA_FAILED;
    if (job->in_normals &&
        (check_array(job->in_normals, job->in_normals_stride, 12, 4, "input normals", error) ||
         check_array(job->out_normals, job->out_normals_stride, 12, 4, "output normals", error)))
        return OSSA_FAILED;
    if (job->in_tangents &&
        (check_array(job->in_tangents, job->in_tangents_stride, 16, 4, "input tangents", error) ||
         check_array(job->out_tangents, job->out_tangents_stride, 16, 4, "output tangents",
                     error)))
        return OSSA_FAILED;
    /* In place is allowed only as the very same array. */
    if (job->out_positions == job->in_positions &&
        job->out_positions_stride != job->in_positions_stride)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: in-place positions with different strides");
    if (job->in_normals && job->out_normals == job->in_normals &&
        job->out_normals_stride != job->in_normals_stride)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: in-place normals with different strides");
    if (job->in_tangents && job->out_tangents == job->in_tangents &&
        job->out_tangents_stride != job->in_tangents_stride)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "skinning job: in-place tangents with different strides");
    return OSSA_OK;
}

/* -- Kernels ------------------------------------------------------------------ */

#define AT(type, base, stride, i) ((type *)(void *)((char *)(base) + (size_t)(i) * (stride)))
#define CAT(type, base, stride, i)                                                             \
    ((const type *)(const void *)((const char *)(base) + (size_t)(i) * (stride)))

/* Double precision, one transform per influence. */
static void skin_reference(const ossa_skinning_job *job, uint32_t inf)
{
    const float(*nm)[16] = job->normal_matrices ? job->normal_matrices : job->matrices;
    for (uint32_t v = 0; v < job->num_vertices; v++) {
        const uint16_t *idx = CAT(uint16_t, job->indices, job->indices_stride, v);
        const float *w = CAT(float, job->weights, job->weights_stride, v);
        const float *p = CAT(float, job->in_positions, job->in_positions_stride, v);
        const float *n = job->in_normals ? CAT(float, job->in_normals, job->in_normals_stride, v)
                                         : NULL;
        const float *t = job->in_tangents
                             ? CAT(float, job->in_tangents, job->in_tangents_stride, v)
                             : NULL;
        double op[3] = {0, 0, 0}, on[3] = {0, 0, 0}, ot[3] = {0, 0, 0};
        float tw = t ? t[3] : 0;
        for (uint32_t k = 0; k < inf; k++) {
            uint32_t i = idx[k];
            if (i >= job->num_matrices) continue;
            double wk = w[k];
            const float *m = job->matrices[i], *q = nm[i];
            ossa__skin_add_reference(wk, m, q, p, n, t, op, on, ot);
        }
        float *o = AT(float, job->out_positions, job->out_positions_stride, v);
        for (int r = 0; r < 3; r++) o[r] = (float)op[r];
        if (n) {
            o = AT(float, job->out_normals, job->out_normals_stride, v);
            for (int r = 0; r < 3; r++) o[r] = (float)on[r];
        }
        if (t) {
            o = AT(float, job->out_tangents, job->out_tangents_stride, v);
            for (int r = 0; r < 3; r++) o[r] = (float)ot[r];
            o[3] = tw;
        }
    }
}

/* Portable float: blend the matrices, then transform. The 12 blended
 * elements are separate variables (compilers keep those in registers,
 * not an array indexed in loops). */
static SKIN_INLINE void skin_scalar_vertex(const ossa_skinning_job *job, uint32_t v,
                                           const uint32_t inf, int normals, int tangents)
{
    const uint16_t *idx = CAT(uint16_t, job->indices, job->indices_stride, v);
    const float *w = CAT(float, job->weights, job->weights_stride, v);
    float m0 = 0, m1 = 0, m2 = 0, m4 = 0, m5 = 0, m6 = 0, m8 = 0, m9 = 0, m10 = 0;
    float m12 = 0, m13 = 0, m14 = 0;
    float q0 = 0, q1 = 0, q2 = 0, q4 = 0, q5 = 0, q6 = 0, q8 = 0, q9 = 0, q10 = 0;
    int separate = job->normal_matrices != NULL;
    for (uint32_t k = 0; k < inf; k++) {
        uint32_t i = idx[k];
        float wk = w[k];
        if (i >= job->num_matrices) continue;
        const float *a = job->matrices[i];
        m0 += wk * a[0], m1 += wk * a[1], m2 += wk * a[2];
        m4 += wk * a[4], m5 += wk * a[5], m6 += wk * a[6];
        m8 += wk * a[8], m9 += wk * a[9], m10 += wk * a[10];
        m12 += wk * a[12], m13 += wk * a[13], m14 += wk * a[14];
        if (separate) {
            const float *b = job->normal_matrices[i];
            q0 += wk * b[0], q1 += wk * b[1], q2 += wk * b[2];
            q4 += wk * b[4], q5 += wk * b[5], q6 += wk * b[6];
            q8 += wk * b[8], q9 += wk * b[9], q10 += wk * b[10];
        }
    }
    if (!separate) {
        q0 = m0, q1 = m1, q2 = m2, q4 = m4, q5 = m5, q6 = m6, q8 = m8, q9 = m9, q10 = m10;
    }
    const float *p = CAT(float, job->in_positions, job->in_positions_stride, v);
    float px = p[0], py = p[1], pz = p[2];
    float nx = 0, ny = 0, nz = 0, tx = 0, ty = 0, tz = 0, tw = 0;
    if (normals) {
        const float *n = CAT(float, job->in_normals, job->in_normals_stride, v);
        nx = n[0], ny = n[1], nz = n[2];
    }
    if (tangents) {
        const float *t = CAT(float, job->in_tangents, job->in_tangents_stride, v);
        tx = t[0], ty = t[1], tz = t[2], tw = t[3];
    }
    /* All inputs of the vertex are read before anything is written. */
    float *o = AT(float, job->out_positions, job->out_positions_stride, v);
    o[0] = m0 * px + m4 * py + m8 * pz + m12;
    o[1] = m1 * px + m5 * py + m9 * pz + m13;
    o[2] = m2 * px + m6 * py + m10 * pz + m14;
    if (normals) {
        o = AT(float, job->out_normals, job->out_normals_stride, v);
        o[0] = q0 * nx + q4 * ny + q8 * nz;
        o[1] = q1 * nx + q5 * ny + q9 * nz;
        o[2] = q2 * nx + q6 * ny + q10 * nz;
    }
    if (tangents) {
        o = AT(float, job->out_tangents, job->out_tangents_stride, v);
        o[0] = q0 * tx + q4 * ty + q8 * tz;
        o[1] = q1 * tx + q5 * ty + q9 * tz;
        o[2] = q2 * tx + q6 * ty + q10 * tz;
        o[3] = tw;
    }
}

static void skin_scalar(const ossa_skinning_job *job, uint32_t inf)
{
    int normals = job->in_normals != NULL, tangents = job->in_tangents != NULL;
    if (inf == 4 && normals && !tangents)
        for (uint32_t v = 0; v < job->num_vertices; v++) skin_scalar_vertex(job, v, 4, 1, 0);
    else
        for (uint32_t v = 0; v < job->num_vertices; v++)
            skin_scalar_vertex(job, v, inf, normals, tangents);
}

/* Running pointers over the job's arrays: advancing by a stride per
 * vertex is cheaper than multiplying, and copies of the job's fields in
 * locals stay in registers (the output stores could alias the job). */
typedef struct skin_cursor {
    const char *idx, *wgt, *ip, *in, *it;
    char *op, *on, *ot;
    size_t sidx, swgt, sip, sin, sit, sop, son, sot;
} skin_cursor;

static SKIN_INLINE void cursor_init(skin_cursor *c, const ossa_skinning_job *job)
{
    c->idx = (const char *)job->indices, c->sidx = job->indices_stride;
    c->wgt = (const char *)job->weights, c->swgt = job->weights_stride;
    c->ip = (const char *)job->in_positions, c->sip = job->in_positions_stride;
    c->op = (char *)job->out_positions, c->sop = job->out_positions_stride;
    c->in = (const char *)job->in_normals, c->sin = job->in_normals_stride;
    c->on = (char *)job->out_normals, c->son = job->out_normals_stride;
    c->it = (const char *)job->in_tangents, c->sit = job->in_tangents_stride;
    c->ot = (char *)job->out_tangents, c->sot = job->out_tangents_stride;
}

static SKIN_INLINE void cursor_next(skin_cursor *c, int normals, int tangents)
{
    c->idx += c->sidx, c->wgt += c->swgt, c->ip += c->sip, c->op += c->sop;
    if (normals) c->in += c->sin, c->on += c->son;
    if (tangents) c->it += c->sit, c->ot += c->sot;
}

#define CUR_F(p) ((const float *)(const void *)(p))
#define OUT_F(p) ((float *)(void *)(p))

#ifdef OSSA_HAVE_SSE2
static SKIN_INLINE void store3_sse(float *p, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}

/* `inf`, `normals`, `tangents` and `separate` are constants after
 * inlining, giving one loop per combination. */
static SKIN_INLINE void skin_sse2_loop(const ossa_skinning_job *job, const uint32_t inf,
                                       const int normals, const int tangents, const int separate,
                                       const int checked, const int wide_out)
{
    (void)wide_out;
    const uint32_t nmat = job->num_matrices, count = job->num_vertices;
    const float(*mats)[16] = job->matrices;
    const float(*nmats)[16] = job->normal_matrices;
    skin_cursor c;
    cursor_init(&c, job);
    for (uint32_t v = 0; v < count; v++, cursor_next(&c, normals, tangents)) {
        const uint16_t *idx = (const uint16_t *)(const void *)c.idx;
        const float *w = CUR_F(c.wgt);
        __m128 c0 = _mm_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, n0 = c0, n1 = c0, n2 = c0;
#define SSE_INFLUENCE(k)                                                                        \
    do {                                                                                        \
        uint32_t i_ = idx[k];                                                                   \
        float w_ = w[k];                                                                        \
        if (checked && i_ >= nmat) i_ = 0, w_ = 0;                                              \
        __m128 ww = _mm_set1_ps(w_);                                                            \
        const float *a = mats[i_];                                                              \
        c0 = _mm_add_ps(c0, _mm_mul_ps(ww, _mm_loadu_ps(a)));                                   \
        c1 = _mm_add_ps(c1, _mm_mul_ps(ww, _mm_loadu_ps(a + 4)));                               \
        c2 = _mm_add_ps(c2, _mm_mul_ps(ww, _mm_loadu_ps(a + 8)));                               \
        c3 = _mm_add_ps(c3, _mm_mul_ps(ww, _mm_loadu_ps(a + 12)));                              \
        if (separate) {                                                                         \
            const float *b = nmats[i_];                                                         \
            n0 = _mm_add_ps(n0, _mm_mul_ps(ww, _mm_loadu_ps(b)));                               \
            n1 = _mm_add_ps(n1, _mm_mul_ps(ww, _mm_loadu_ps(b + 4)));                           \
            n2 = _mm_add_ps(n2, _mm_mul_ps(ww, _mm_loadu_ps(b + 8)));                           \
        }                                                                                       \
    } while (0)
        if (inf == 4) {
            SSE_INFLUENCE(0);
            SSE_INFLUENCE(1);
            /* Zero weights last: see skin_avx2_vertex. */
            if (w[2] != 0) SSE_INFLUENCE(2);
            if (w[3] != 0) SSE_INFLUENCE(3);
        } else {
            for (uint32_t k = 0; k < inf; k++) SSE_INFLUENCE(k);
        }
#undef SSE_INFLUENCE
        if (!separate) n0 = c0, n1 = c1, n2 = c2;
        const float *p = CUR_F(c.ip);
        __m128 r = _mm_add_ps(_mm_mul_ps(c0, _mm_set1_ps(p[0])), c3);
        r = _mm_add_ps(r, _mm_mul_ps(c1, _mm_set1_ps(p[1])));
        r = _mm_add_ps(r, _mm_mul_ps(c2, _mm_set1_ps(p[2])));
        __m128 s = r, u = r;
        float tw = 0;
        if (normals) {
            const float *n = CUR_F(c.in);
            s = _mm_mul_ps(n0, _mm_set1_ps(n[0]));
            s = _mm_add_ps(s, _mm_mul_ps(n1, _mm_set1_ps(n[1])));
            s = _mm_add_ps(s, _mm_mul_ps(n2, _mm_set1_ps(n[2])));
        }
        if (tangents) {
            const float *t = CUR_F(c.it);
            tw = t[3];
            u = _mm_mul_ps(n0, _mm_set1_ps(t[0]));
            u = _mm_add_ps(u, _mm_mul_ps(n1, _mm_set1_ps(t[1])));
            u = _mm_add_ps(u, _mm_mul_ps(n2, _mm_set1_ps(t[2])));
        }
        /* Every input of this vertex is read before anything is written,
         * so in-place and interleaved buffers work. */
        store3_sse(OUT_F(c.op), r);
        if (normals) store3_sse(OUT_F(c.on), s);
        if (tangents) {
            store3_sse(OUT_F(c.ot), u);
            OUT_F(c.ot)[3] = tw;
        }
    }
}
#endif

#ifdef OSSA_HAVE_AVX2
/* The two halves hold partial sums of the x, y, z rows. */
static SKIN_INLINE OSSA_AVX2 __m128 hsum(__m256 v)
{
    return _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
}

static SKIN_INLINE OSSA_AVX2 void store3_avx(float *p, __m256 v)
{
    __m128 s = hsum(v);
    _mm_storel_pi((__m64 *)(void *)p, s);
    _mm_store_ss(p + 2, _mm_movehl_ps(s, s));
}

/* (x, y, z) -> [x x x x y y y y] and [z z z z w w w w]. */
static SKIN_INLINE OSSA_AVX2 void splat3(const float *p, __m256 fill, __m256 *xy, __m256 *zw)
{
    *xy = _mm256_blend_ps(_mm256_broadcast_ss(p), _mm256_broadcast_ss(p + 1), 0xF0);
    *zw = _mm256_blend_ps(_mm256_broadcast_ss(p + 2), fill, 0xF0);
}

/* Matrices as [column 0 | column 1] and [column 2 | column 3]: a point is
 * m01 * [x | y] + m23 * [z | 1], whose halves then add up. For normals the
 * fill is 0, which drops the translation. `checked`: some index may be out
 * of range (else the caller has made sure none is). `wide`: this vertex is
 * not the last one, so 16 bytes may be read at each xyz input (the 4 past
 * the end belong to the next vertex's element or the gap before it). */
static SKIN_INLINE OSSA_AVX2 void splat3w(const float *p, const int wide, __m256 fill,
                                          __m256 *xy, __m256 *zw)
{
    if (wide) {
        __m256 v = _mm256_castps128_ps256(_mm_loadu_ps(p));
        *xy = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
        *zw = _mm256_blend_ps(_mm256_permutevar8x32_ps(v, _mm256_set1_epi32(2)), fill, 0xF0);
    } else {
        splat3(p, fill, xy, zw);
    }
}

static SKIN_INLINE OSSA_AVX2 void skin_avx2_vertex(const skin_cursor *c, const float (*mats)[16],
                                                   const float (*nmats)[16], uint32_t nmat,
                                                   const uint32_t inf, const int normals,
                                                   const int tangents, const int separate,
                                                   const int checked, const int wide,
                                                   const int wide_out)
{
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    static const float zero_weight = 0;
    const uint16_t *idx = (const uint16_t *)(const void *)c->idx;
    const float *w = CUR_F(c->wgt);
    __m256 m01 = zero, m23 = zero, q01 = zero, q2 = zero;
#define AVX_INFLUENCE(k, index)                                                                 \
    do {                                                                                        \
        uint32_t i_ = (index);                                                                  \
        const float *wp_ = &w[k];                                                               \
        if (checked && i_ >= nmat) i_ = 0, wp_ = &zero_weight;                                  \
        __m256 ww = _mm256_broadcast_ss(wp_);                                                   \
        const float *a = mats[i_];                                                              \
        m01 = _mm256_fmadd_ps(ww, _mm256_loadu_ps(a), m01);                                     \
        m23 = _mm256_fmadd_ps(ww, _mm256_loadu_ps(a + 8), m23);                                 \
        if (separate) {                                                                         \
            const float *b = nmats[i_];                                                         \
            q01 = _mm256_fmadd_ps(ww, _mm256_loadu_ps(b), q01);                                 \
            q2 = _mm256_fmadd_ps(ww, _mm256_loadu_ps(b + 8), q2);                               \
        }                                                                                       \
    } while (0)
    if (inf == 4) {
        /* One load for the four indices. */
        uint64_t x;
        memcpy(&x, idx, 8);
        AVX_INFLUENCE(0, (uint32_t)x & 0xFFFF);
        AVX_INFLUENCE(1, (uint32_t)(x >> 16) & 0xFFFF);
        /* Meshes mostly use fewer than 4 influences, with the unused ones
         * last and zero, in runs of similar vertices: skipping them is a
         * well-predicted branch that saves two loads and two FMAs each. */
        if (w[2] != 0) AVX_INFLUENCE(2, (uint32_t)(x >> 32) & 0xFFFF);
        if (w[3] != 0) AVX_INFLUENCE(3, (uint32_t)(x >> 48));
    } else {
        for (uint32_t k = 0; k < inf; k++) AVX_INFLUENCE(k, idx[k]);
    }
#undef AVX_INFLUENCE
    if (!separate) q01 = m01, q2 = m23;
    __m256 xy, zw;
    splat3w(CUR_F(c->ip), wide, one, &xy, &zw);
    __m256 r = _mm256_fmadd_ps(m23, zw, _mm256_mul_ps(m01, xy));
    __m256 s = zero, u = zero;
    float tw = 0;
    if (normals) {
        splat3w(CUR_F(c->in), wide, zero, &xy, &zw);
        s = _mm256_fmadd_ps(q2, zw, _mm256_mul_ps(q01, xy));
    }
    if (tangents) {
        tw = CUR_F(c->it)[3];
        splat3w(CUR_F(c->it), 1, zero, &xy, &zw); /* tangents have 4 floats */
        u = _mm256_fmadd_ps(q2, zw, _mm256_mul_ps(q01, xy));
    }
    /* Every input of this vertex is read before anything is written, so
     * in-place and interleaved buffers work. */
    if (wide && wide_out) {
        /* Packed outputs that overlap no input: the 4 bytes past each
         * element are the next vertex's, written in the next step. */
        _mm_storeu_ps(OUT_F(c->op), hsum(r));
        if (normals) _mm_storeu_ps(OUT_F(c->on), hsum(s));
    } else {
        store3_avx(OUT_F(c->op), r);
        if (normals) store3_avx(OUT_F(c->on), s);
    }
    if (tangents) {
        /* A tangent is 16 bytes: xyz and the copied w in one store. */
        __m128 t4 = hsum(u);
        t4 = _mm_blend_ps(t4, _mm_set1_ps(tw), 8);
        _mm_storeu_ps(OUT_F(c->ot), t4);
    }
}

static SKIN_INLINE OSSA_AVX2 void skin_avx2_loop(const ossa_skinning_job *job, const uint32_t inf,
                                                 const int normals, const int tangents,
                                                 const int separate, const int checked,
                                                 const int wide_out)
{
    const uint32_t nmat = job->num_matrices, count = job->num_vertices;
    const float(*mats)[16] = job->matrices;
    const float(*nmats)[16] = job->normal_matrices;
    skin_cursor c;
    cursor_init(&c, job);
    for (uint32_t v = 0; v + 1 < count; v++, cursor_next(&c, normals, tangents))
        skin_avx2_vertex(&c, mats, nmats, nmat, inf, normals, tangents, separate, checked, 1,
                         wide_out);
    skin_avx2_vertex(&c, mats, nmats, nmat, inf, normals, tangents, separate, checked, 0, 0);
}
#endif

#ifdef OSSA_HAVE_SSE2
/* Whether every index is below num_matrices: one pass over the indices
 * (cheap next to skinning) lets the loops drop the per-influence check. */
static int indices_in_range(const ossa_skinning_job *job, uint32_t inf)
{
    const char *p = (const char *)job->indices;
    uint32_t limit = job->num_matrices;
    if (limit > 0xFFFF) return 1;
    unsigned max = 0;
    if (job->indices_stride == 2 * (size_t)inf) {
        const uint16_t *q = job->indices;
        size_t n = (size_t)job->num_vertices * inf, i = 0;
#ifdef OSSA_HAVE_SSE2
        /* SSE2 has only a signed 16-bit max: flip the top bit first. */
        const __m128i bias = _mm_set1_epi16((short)0x8000);
        __m128i m = _mm_set1_epi16((short)0x8000);
        for (; i + 8 <= n; i += 8)
            m = _mm_max_epi16(
                m, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(q + i)), bias));
        uint16_t lanes[8];
        _mm_storeu_si128((__m128i *)(void *)lanes, _mm_xor_si128(m, bias));
        for (int k = 0; k < 8; k++) max = lanes[k] > max ? lanes[k] : max;
#endif
        for (; i < n; i++) max = q[i] > max ? q[i] : max;
    } else {
        for (uint32_t v = 0; v < job->num_vertices; v++, p += job->indices_stride) {
            const uint16_t *q = (const uint16_t *)(const void *)p;
            for (uint32_t k = 0; k < inf; k++) max = q[k] > max ? q[k] : max;
        }
    }
    return max < limit;
}

/* The bytes [first, end) an array spans. */
static void span(const void *base, size_t stride, size_t elem, uint32_t count, uintptr_t *first,
                 uintptr_t *end)
{
    *first = (uintptr_t)base;
    *end = base ? *first + (size_t)(count - 1) * stride + elem : *first;
}

/* Positions and normals out are packed (stride 12) and overlap no input:
 * then every store but the last may write 16 bytes. */
static int packed_outputs(const ossa_skinning_job *job, uint32_t inf)
{
    if (job->out_positions_stride != 12 || (job->out_normals && job->out_normals_stride != 12))
        return 0;
    uintptr_t in[5][2], out[2][2];
    uint32_t n = job->num_vertices;
    span(job->indices, job->indices_stride, 2 * (size_t)inf, n, &in[0][0], &in[0][1]);
    span(job->weights, job->weights_stride, 4 * (size_t)inf, n, &in[1][0], &in[1][1]);
    span(job->in_positions, job->in_positions_stride, 12, n, &in[2][0], &in[2][1]);
    span(job->in_normals, job->in_normals_stride, 12, n, &in[3][0], &in[3][1]);
    span(job->in_tangents, job->in_tangents_stride, 16, n, &in[4][0], &in[4][1]);
    span(job->out_positions, 12, 12, n, &out[0][0], &out[0][1]);
    span(job->out_normals, 12, 12, n, &out[1][0], &out[1][1]);
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < 5; i++)
            if (out[o][0] < in[i][1] && in[i][0] < out[o][1]) return 0;
    return 1;
}

/* One function per backend picks a specialised loop: 4 influences with
 * positions and normals (the common case) and in-range indices get their
 * own, everything else shares generic ones. */
#define SKIN_DISPATCH(loop, job, inf)                                                           \
    do {                                                                                        \
        int n_ = (job)->in_normals != NULL, t_ = (job)->in_tangents != NULL;                    \
        int s_ = (job)->normal_matrices != NULL;                                                \
        if (!indices_in_range(job, inf))                                                        \
            loop(job, inf, n_, t_, s_, 1, 0);                                                   \
        else if ((inf) == 4 && !s_ && n_ && !t_ && packed_outputs(job, inf))                    \
            loop(job, 4, 1, 0, 0, 0, 1);                                                        \
        else if ((inf) == 4 && !s_ && n_ && !t_)                                                \
            loop(job, 4, 1, 0, 0, 0, 0);                                                        \
        else if ((inf) == 4 && !s_ && !n_ && !t_)                                               \
            loop(job, 4, 0, 0, 0, 0, 0);                                                        \
        else                                                                                    \
            loop(job, inf, n_, t_, s_, 0, 0);                                                   \
    } while (0)

#endif

#ifdef OSSA_HAVE_SSE2
static void skin_sse2(const ossa_skinning_job *job, uint32_t inf)
{
    SKIN_DISPATCH(skin_sse2_loop, job, inf);
}
#endif
#ifdef OSSA_HAVE_AVX2
static OSSA_AVX2 void skin_avx2(const ossa_skinning_job *job, uint32_t inf)
{
    SKIN_DISPATCH(skin_avx2_loop, job, inf);
}
#endif

ossa_status ossa_skinning_run(const ossa_skinning_job *job, ossa_error *error)
{
    if (ossa_skinning_validate(job, error) != OSSA_OK) return OSSA_FAILED;
    uint32_t inf = job->influences ? job->influences : 4;
    ossa_simd level;
    ossa__simd_resolve(job->simd, OSSA_SIMD_AUTO, &level, NULL);
    if (job->num_vertices == 0) return OSSA_OK;
    switch (level) {
#ifdef OSSA_HAVE_AVX2
    case OSSA_SIMD_AVX2: skin_avx2(job, inf); break;
#endif
#ifdef OSSA_HAVE_SSE2
    case OSSA_SIMD_SSE2: skin_sse2(job, inf); break;
#endif
    case OSSA_SIMD_SCALAR: skin_scalar(job, inf); break;
    default: skin_reference(job, inf); break;
    }
    return OSSA_OK;
}
