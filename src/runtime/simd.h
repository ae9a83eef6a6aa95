/* A small vector abstraction for the runtime (sample.c, skin.c).
 *
 * Three backends with the same operations, named by prefix:
 *   ossa_f4_*  4 lanes in portable C (a struct of 4 floats): every platform;
 *   ossa_m4_*  4 lanes of SSE2: x86-64, where SSE2 is always present;
 *   ossa_m8_*  8 lanes of AVX2 + FMA: x86-64 compiled with GCC or Clang; the
 *              functions carry __attribute__((target("avx2,fma"))) so the
 *              rest of the library stays baseline x86-64, and callers pick
 *              them only when __builtin_cpu_supports says the CPU has both.
 * Kernels are written once in sample_kernels.inc against V(op) and VT and
 * instantiated per backend. Nothing here has state. */
#ifndef OSSA_SIMD_H
#define OSSA_SIMD_H

#include <math.h>
#include <stddef.h>
#include <string.h>

/* OSSA_NO_SIMD builds the portable path alone, as on other CPUs (for
 * testing it on x86-64). */
#if (defined(__x86_64__) || defined(_M_X64)) && !defined(OSSA_NO_SIMD)
#define OSSA_HAVE_SSE2 1
#include <emmintrin.h>
#if defined(__GNUC__) || defined(__clang__)
#define OSSA_HAVE_AVX2 1
#include <immintrin.h>
#define OSSA_AVX2 __attribute__((target("avx2,fma")))
#endif
#endif

/* -- Portable: 4 lanes of plain C ------------------------------------------ */

typedef struct ossa_f4 {
    float v[4];
} ossa_f4;

/* Each operation spells out its 4 lanes: compilers then keep the lanes
 * in registers, which they do not for a loop over an array member. */
#define OSSA_F4_MAP2(name, op)                                                                  \
    static inline ossa_f4 ossa_f4_##name(ossa_f4 a, ossa_f4 b)                                  \
    {                                                                                           \
        ossa_f4 r = {{a.v[0] op b.v[0], a.v[1] op b.v[1], a.v[2] op b.v[2], a.v[3] op b.v[3]}};  \
        return r;                                                                               \
    }
OSSA_F4_MAP2(add, +)
OSSA_F4_MAP2(sub, -)
OSSA_F4_MAP2(mul, *)
OSSA_F4_MAP2(div, /)
#undef OSSA_F4_MAP2

/* a with its sign flipped in the lanes where x is negative (or -0). */
static inline float ossa__f1_xorsign(float a, float x) { return signbit(x) ? -a : a; }
static inline ossa_f4 ossa_f4_xorsign(ossa_f4 a, ossa_f4 x)
{
    ossa_f4 r = {{ossa__f1_xorsign(a.v[0], x.v[0]), ossa__f1_xorsign(a.v[1], x.v[1]),
                  ossa__f1_xorsign(a.v[2], x.v[2]), ossa__f1_xorsign(a.v[3], x.v[3])}};
    return r;
}

static inline ossa_f4 ossa_f4_load(const float *p)
{
    ossa_f4 r = {{p[0], p[1], p[2], p[3]}};
    return r;
}
#define ossa_f4_loadu ossa_f4_load
static inline void ossa_f4_store(float *p, ossa_f4 a)
{
    p[0] = a.v[0], p[1] = a.v[1], p[2] = a.v[2], p[3] = a.v[3];
}
#define ossa_f4_storeu ossa_f4_store
static inline ossa_f4 ossa_f4_set1(float f)
{
    ossa_f4 r = {{f, f, f, f}};
    return r;
}
/* a * b + c and c - a * b; not fused (each step rounds, like SSE2). */
static inline ossa_f4 ossa_f4_madd(ossa_f4 a, ossa_f4 b, ossa_f4 c)
{
    return ossa_f4_add(ossa_f4_mul(a, b), c);
}
static inline ossa_f4 ossa_f4_nmadd(ossa_f4 a, ossa_f4 b, ossa_f4 c)
{
    return ossa_f4_sub(c, ossa_f4_mul(a, b));
}
/* Whether every lane of a is >= the same lane of b. */
static inline int ossa_f4_all_ge(ossa_f4 a, ossa_f4 b)
{
    return a.v[0] >= b.v[0] && a.v[1] >= b.v[1] && a.v[2] >= b.v[2] && a.v[3] >= b.v[3];
}
static inline ossa_f4 ossa_f4_abs(ossa_f4 a)
{
    ossa_f4 r = {{fabsf(a.v[0]), fabsf(a.v[1]), fabsf(a.v[2]), fabsf(a.v[3])}};
    return r;
}
static inline ossa_f4 ossa_f4_sqrt(ossa_f4 a)
{
    ossa_f4 r = {{sqrtf(a.v[0]), sqrtf(a.v[1]), sqrtf(a.v[2]), sqrtf(a.v[3])}};
    return r;
}
/* Lane k of a, b, c, d goes to p[k*stride + 0..3] (stride in floats). */
static inline void ossa_f4_store_t4(float *p, size_t stride, ossa_f4 a, ossa_f4 b, ossa_f4 c,
                                    ossa_f4 d)
{
    for (size_t k = 0; k < 4; k++) {
        float *q = p + k * stride;
        q[0] = a.v[k], q[1] = b.v[k], q[2] = c.v[k], q[3] = d.v[k];
    }
}
/* Lane k of a, b goes to p[k*stride + 0..1]. */
static inline void ossa_f4_store_t2(float *p, size_t stride, ossa_f4 a, ossa_f4 b)
{
    for (size_t k = 0; k < 4; k++) {
        float *q = p + k * stride;
        q[0] = a.v[k], q[1] = b.v[k];
    }
}
/* The inverses: lane k of a..d from p[k*stride + 0..3]. */
static inline void ossa_f4_load_t4(const float *p, size_t stride, ossa_f4 *a, ossa_f4 *b,
                                   ossa_f4 *c, ossa_f4 *d)
{
    for (size_t k = 0; k < 4; k++) {
        const float *q = p + k * stride;
        a->v[k] = q[0], b->v[k] = q[1], c->v[k] = q[2], d->v[k] = q[3];
    }
}
static inline void ossa_f4_load_t2(const float *p, size_t stride, ossa_f4 *a, ossa_f4 *b)
{
    for (size_t k = 0; k < 4; k++) {
        const float *q = p + k * stride;
        a->v[k] = q[0], b->v[k] = q[1];
    }
}
/* out = a * b for column-major 4x4 matrices where b is affine (last row
 * 0 0 0 1, which is not read); out may alias a or b. */
static inline void ossa_f4_mat_mul(const float *a, const float *b, float *out)
{
#define OSSA_F4_MM(c, row) a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] + a[8 + row] * b[c * 4 + 2]
    float r[16] = {OSSA_F4_MM(0, 0), OSSA_F4_MM(0, 1), OSSA_F4_MM(0, 2), OSSA_F4_MM(0, 3),
                   OSSA_F4_MM(1, 0), OSSA_F4_MM(1, 1), OSSA_F4_MM(1, 2), OSSA_F4_MM(1, 3),
                   OSSA_F4_MM(2, 0), OSSA_F4_MM(2, 1), OSSA_F4_MM(2, 2), OSSA_F4_MM(2, 3),
                   OSSA_F4_MM(3, 0) + a[12], OSSA_F4_MM(3, 1) + a[13],
                   OSSA_F4_MM(3, 2) + a[14], OSSA_F4_MM(3, 3) + a[15]};
#undef OSSA_F4_MM
    memcpy(out, r, sizeof r);
}

/* -- SSE2: 4 lanes --------------------------------------------------------- */

#ifdef OSSA_HAVE_SSE2
typedef __m128 ossa_m4;

#define ossa_m4_load(p) _mm_load_ps(p)
#define ossa_m4_loadu(p) _mm_loadu_ps(p)
#define ossa_m4_store(p, a) _mm_store_ps(p, a)
#define ossa_m4_storeu(p, a) _mm_storeu_ps(p, a)
#define ossa_m4_set1(f) _mm_set1_ps(f)
#define ossa_m4_add(a, b) _mm_add_ps(a, b)
#define ossa_m4_sub(a, b) _mm_sub_ps(a, b)
#define ossa_m4_mul(a, b) _mm_mul_ps(a, b)
#define ossa_m4_div(a, b) _mm_div_ps(a, b)
#define ossa_m4_sqrt(a) _mm_sqrt_ps(a)
#define ossa_m4_madd(a, b, c) _mm_add_ps(_mm_mul_ps(a, b), c)
#define ossa_m4_nmadd(a, b, c) _mm_sub_ps(c, _mm_mul_ps(a, b))
#define ossa_m4_xorsign(a, x) _mm_xor_ps(a, _mm_and_ps(x, _mm_set1_ps(-0.0f)))
#define ossa_m4_abs(a) _mm_andnot_ps(_mm_set1_ps(-0.0f), a)
#define ossa_m4_all_ge(a, b) (_mm_movemask_ps(_mm_cmpge_ps(a, b)) == 0xF)

static inline void ossa_m4_store_t4(float *p, size_t stride, __m128 a, __m128 b, __m128 c,
                                    __m128 d)
{
    _MM_TRANSPOSE4_PS(a, b, c, d);
    _mm_storeu_ps(p, a);
    _mm_storeu_ps(p + stride, b);
    _mm_storeu_ps(p + 2 * stride, c);
    _mm_storeu_ps(p + 3 * stride, d);
}
static inline void ossa_m4_store_t2(float *p, size_t stride, __m128 a, __m128 b)
{
    __m128 lo = _mm_unpacklo_ps(a, b), hi = _mm_unpackhi_ps(a, b);
    _mm_storel_pi((__m64 *)(void *)p, lo);
    _mm_storeh_pi((__m64 *)(void *)(p + stride), lo);
    _mm_storel_pi((__m64 *)(void *)(p + 2 * stride), hi);
    _mm_storeh_pi((__m64 *)(void *)(p + 3 * stride), hi);
}
static inline void ossa_m4_load_t4(const float *p, size_t stride, __m128 *a, __m128 *b,
                                   __m128 *c, __m128 *d)
{
    __m128 r0 = _mm_loadu_ps(p), r1 = _mm_loadu_ps(p + stride);
    __m128 r2 = _mm_loadu_ps(p + 2 * stride), r3 = _mm_loadu_ps(p + 3 * stride);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    *a = r0, *b = r1, *c = r2, *d = r3;
}
static inline void ossa_m4_load_t2(const float *p, size_t stride, __m128 *a, __m128 *b)
{
    __m128 z = _mm_setzero_ps();
    __m128 lo = _mm_loadh_pi(_mm_loadl_pi(z, (const __m64 *)(const void *)p),
                             (const __m64 *)(const void *)(p + stride));
    __m128 hi = _mm_loadh_pi(_mm_loadl_pi(z, (const __m64 *)(const void *)(p + 2 * stride)),
                             (const __m64 *)(const void *)(p + 3 * stride));
    *a = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    *b = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
}
#define OSSA_M4_MAT_COL(bc)                                                                     \
    _mm_add_ps(_mm_add_ps(_mm_mul_ps(a0, _mm_shuffle_ps(bc, bc, 0x00)),                         \
                          _mm_mul_ps(a1, _mm_shuffle_ps(bc, bc, 0x55))),                        \
               _mm_mul_ps(a2, _mm_shuffle_ps(bc, bc, 0xAA)))
/* out = a * b for column-major 4x4 matrices where b is affine (last row
 * 0 0 0 1, which is not read); out may alias a or b. */
static inline void ossa_m4_mat_mul(const float *a, const float *b, float *out)
{
    __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4);
    __m128 a2 = _mm_loadu_ps(a + 8), a3 = _mm_loadu_ps(a + 12);
    __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4);
    __m128 b2 = _mm_loadu_ps(b + 8), b3 = _mm_loadu_ps(b + 12);
    __m128 r0 = OSSA_M4_MAT_COL(b0), r1 = OSSA_M4_MAT_COL(b1);
    __m128 r2 = OSSA_M4_MAT_COL(b2), r3 = _mm_add_ps(OSSA_M4_MAT_COL(b3), a3);
    _mm_storeu_ps(out, r0);
    _mm_storeu_ps(out + 4, r1);
    _mm_storeu_ps(out + 8, r2);
    _mm_storeu_ps(out + 12, r3);
}
#undef OSSA_M4_MAT_COL
#endif

/* -- AVX2 + FMA: 8 lanes --------------------------------------------------- */

#ifdef OSSA_HAVE_AVX2
typedef __m256 ossa_m8;

#define OSSA_M8 static inline OSSA_AVX2
OSSA_M8 __m256 ossa_m8_load(const float *p) { return _mm256_load_ps(p); }
OSSA_M8 __m256 ossa_m8_loadu(const float *p) { return _mm256_loadu_ps(p); }
OSSA_M8 void ossa_m8_store(float *p, __m256 a) { _mm256_store_ps(p, a); }
OSSA_M8 void ossa_m8_storeu(float *p, __m256 a) { _mm256_storeu_ps(p, a); }
OSSA_M8 __m256 ossa_m8_set1(float f) { return _mm256_set1_ps(f); }
OSSA_M8 __m256 ossa_m8_add(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
OSSA_M8 __m256 ossa_m8_sub(__m256 a, __m256 b) { return _mm256_sub_ps(a, b); }
OSSA_M8 __m256 ossa_m8_mul(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
OSSA_M8 __m256 ossa_m8_div(__m256 a, __m256 b) { return _mm256_div_ps(a, b); }
OSSA_M8 __m256 ossa_m8_sqrt(__m256 a) { return _mm256_sqrt_ps(a); }
OSSA_M8 __m256 ossa_m8_madd(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
OSSA_M8 __m256 ossa_m8_nmadd(__m256 a, __m256 b, __m256 c) { return _mm256_fnmadd_ps(a, b, c); }
OSSA_M8 __m256 ossa_m8_xorsign(__m256 a, __m256 x)
{
    return _mm256_xor_ps(a, _mm256_and_ps(x, _mm256_set1_ps(-0.0f)));
}
OSSA_M8 __m256 ossa_m8_abs(__m256 a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
OSSA_M8 int ossa_m8_all_ge(__m256 a, __m256 b)
{
    return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GE_OQ)) == 0xFF;
}

/* 4x4 transposes inside each 128-bit half: lanes 0-3 and 4-7 separately. */
#define OSSA_M8_TRANSPOSE4(a, b, c, d)                                                          \
    do {                                                                                        \
        __m256 t0_ = _mm256_unpacklo_ps(a, b), t1_ = _mm256_unpackhi_ps(a, b);                  \
        __m256 t2_ = _mm256_unpacklo_ps(c, d), t3_ = _mm256_unpackhi_ps(c, d);                  \
        a = _mm256_shuffle_ps(t0_, t2_, _MM_SHUFFLE(1, 0, 1, 0));                               \
        b = _mm256_shuffle_ps(t0_, t2_, _MM_SHUFFLE(3, 2, 3, 2));                               \
        c = _mm256_shuffle_ps(t1_, t3_, _MM_SHUFFLE(1, 0, 1, 0));                               \
        d = _mm256_shuffle_ps(t1_, t3_, _MM_SHUFFLE(3, 2, 3, 2));                               \
    } while (0)

OSSA_M8 void ossa_m8_store_t4(float *p, size_t stride, __m256 a, __m256 b, __m256 c, __m256 d)
{
    OSSA_M8_TRANSPOSE4(a, b, c, d);
    _mm_storeu_ps(p, _mm256_castps256_ps128(a));
    _mm_storeu_ps(p + stride, _mm256_castps256_ps128(b));
    _mm_storeu_ps(p + 2 * stride, _mm256_castps256_ps128(c));
    _mm_storeu_ps(p + 3 * stride, _mm256_castps256_ps128(d));
    _mm_storeu_ps(p + 4 * stride, _mm256_extractf128_ps(a, 1));
    _mm_storeu_ps(p + 5 * stride, _mm256_extractf128_ps(b, 1));
    _mm_storeu_ps(p + 6 * stride, _mm256_extractf128_ps(c, 1));
    _mm_storeu_ps(p + 7 * stride, _mm256_extractf128_ps(d, 1));
}
OSSA_M8 void ossa_m8_store_t2(float *p, size_t stride, __m256 a, __m256 b)
{
    __m256 lo = _mm256_unpacklo_ps(a, b), hi = _mm256_unpackhi_ps(a, b);
    __m128 l0 = _mm256_castps256_ps128(lo), l1 = _mm256_extractf128_ps(lo, 1);
    __m128 h0 = _mm256_castps256_ps128(hi), h1 = _mm256_extractf128_ps(hi, 1);
    _mm_storel_pi((__m64 *)(void *)p, l0);
    _mm_storeh_pi((__m64 *)(void *)(p + stride), l0);
    _mm_storel_pi((__m64 *)(void *)(p + 2 * stride), h0);
    _mm_storeh_pi((__m64 *)(void *)(p + 3 * stride), h0);
    _mm_storel_pi((__m64 *)(void *)(p + 4 * stride), l1);
    _mm_storeh_pi((__m64 *)(void *)(p + 5 * stride), l1);
    _mm_storel_pi((__m64 *)(void *)(p + 6 * stride), h1);
    _mm_storeh_pi((__m64 *)(void *)(p + 7 * stride), h1);
}
OSSA_M8 void ossa_m8_load_t4(const float *p, size_t stride, __m256 *a, __m256 *b, __m256 *c,
                             __m256 *d)
{
    __m256 r0 = _mm256_loadu2_m128(p + 4 * stride, p);
    __m256 r1 = _mm256_loadu2_m128(p + 5 * stride, p + stride);
    __m256 r2 = _mm256_loadu2_m128(p + 6 * stride, p + 2 * stride);
    __m256 r3 = _mm256_loadu2_m128(p + 7 * stride, p + 3 * stride);
    OSSA_M8_TRANSPOSE4(r0, r1, r2, r3);
    *a = r0, *b = r1, *c = r2, *d = r3;
}
OSSA_M8 void ossa_m8_load_t2(const float *p, size_t stride, __m256 *a, __m256 *b)
{
    /* Lane k holds p[k*stride + 0..1]; gather them as 64-bit pairs. */
    __m128d p01 = _mm_loadh_pd(_mm_load_sd((const double *)(const void *)p),
                               (const double *)(const void *)(p + stride));
    __m128d p23 = _mm_loadh_pd(_mm_load_sd((const double *)(const void *)(p + 2 * stride)),
                               (const double *)(const void *)(p + 3 * stride));
    __m128d p45 = _mm_loadh_pd(_mm_load_sd((const double *)(const void *)(p + 4 * stride)),
                               (const double *)(const void *)(p + 5 * stride));
    __m128d p67 = _mm_loadh_pd(_mm_load_sd((const double *)(const void *)(p + 6 * stride)),
                               (const double *)(const void *)(p + 7 * stride));
    __m256 lo = _mm256_castpd_ps(_mm256_insertf128_pd(_mm256_castpd128_pd256(p01), p45, 1));
    __m256 hi = _mm256_castpd_ps(_mm256_insertf128_pd(_mm256_castpd128_pd256(p23), p67, 1));
    *a = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    *b = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
}
/* out = a * b (column-major 4x4, b affine as above), two columns per
 * register. */
OSSA_M8 void ossa_m8_mat_mul(const float *a, const float *b, float *out)
{
    __m256 a0 = _mm256_broadcast_ps((const __m128 *)(const void *)a);
    __m256 a1 = _mm256_broadcast_ps((const __m128 *)(const void *)(a + 4));
    __m256 a2 = _mm256_broadcast_ps((const __m128 *)(const void *)(a + 8));
    /* Column 3 of a goes to column 3 of out only (b's last row). */
    __m256 a3 = _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_loadu_ps(a + 12), 1);
    __m256 b01 = _mm256_loadu_ps(b), b23 = _mm256_loadu_ps(b + 8);
    __m256 r01 = _mm256_mul_ps(a0, _mm256_permute_ps(b01, 0x00));
    __m256 r23 = _mm256_fmadd_ps(a0, _mm256_permute_ps(b23, 0x00), a3);
    r01 = _mm256_fmadd_ps(a1, _mm256_permute_ps(b01, 0x55), r01);
    r23 = _mm256_fmadd_ps(a1, _mm256_permute_ps(b23, 0x55), r23);
    r01 = _mm256_fmadd_ps(a2, _mm256_permute_ps(b01, 0xAA), r01);
    r23 = _mm256_fmadd_ps(a2, _mm256_permute_ps(b23, 0xAA), r23);
    _mm256_storeu_ps(out, r01);
    _mm256_storeu_ps(out + 8, r23);
}
#undef OSSA_M8
#endif

#endif
