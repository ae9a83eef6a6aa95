/* The per-call constants of the fast slerp (see sample.c for the method),
 * shared by the float and the compressed samplers. */
#ifndef OSSA_SLERP_H
#define OSSA_SLERP_H

#include "runtime/runtime.h"

#if defined(__GNUC__) || defined(__clang__)
#define OSSA_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define OSSA_ALWAYS_INLINE inline
#endif

#if defined(__GNUC__) || defined(__clang__)
#define OSSA_PREFETCH(p) __builtin_prefetch(p)
#else
#define OSSA_PREFETCH(p) ((void)(p))
#endif

#define OSSA_SLERP_TERMS 6
#define OSSA_SLERP_MU 1.155
/* Key pairs at most 45 degrees of rotation apart (cos of the half-angle
 * in 4D >= cos(22.5 degrees)) skip the halving and take 3 terms on the
 * whole arc, last term scaled by 1.02: accurate to 5.8e-9 there. */
#define OSSA_SLERP_NEAR 0.92388f
#define OSSA_SLERP_MU3 1.02

/* Everything about one call that does not depend on the joint. */
typedef struct ossa__slerp_consts {
    float alpha;  /* lerp factor between the two frames */
    int second;   /* alpha >= 0.5: interpolate from the midpoint on */
    float tt, dd; /* t' (the factor on the halved arc) and 1 - t' */
    float ct[OSSA_SLERP_TERMS], cd[OSSA_SLERP_TERMS];
    float ct3[3], cd3[3]; /* the direct series on the whole arc (t = alpha) */
} ossa__slerp_consts;

static inline void ossa__slerp_consts_init(ossa__slerp_consts *s, float alpha)
{
    s->alpha = alpha;
    s->second = alpha >= 0.5f;
    s->tt = s->second ? 2 * alpha - 1 : 2 * alpha; /* exact in float */
    s->dd = 1 - s->tt;
    for (int i = 0; i < OSSA_SLERP_TERMS; i++) {
        double u = 1.0 / ((i + 1.0) * (2.0 * i + 3.0)), v = (i + 1.0) / (2.0 * i + 3.0);
        if (i == OSSA_SLERP_TERMS - 1) u *= OSSA_SLERP_MU, v *= OSSA_SLERP_MU;
        s->ct[i] = (float)(u * s->tt * s->tt - v);
        s->cd[i] = (float)(u * s->dd * s->dd - v);
    }
    double a = alpha, d = 1 - (double)alpha;
    for (int i = 0; i < 3; i++) {
        double u = 1.0 / ((i + 1.0) * (2.0 * i + 3.0)), v = (i + 1.0) / (2.0 * i + 3.0);
        if (i == 2) u *= OSSA_SLERP_MU3, v *= OSSA_SLERP_MU3;
        s->ct3[i] = (float)(u * a * a - v);
        s->cd3[i] = (float)(u * d * d - v);
    }
}

_Static_assert(OSSA_SLERP_TERMS == 6, "the kernels spell out 6 terms");
_Static_assert(sizeof(ossa_transform) == 10 * sizeof(float), "ossa_transform is 10 floats");

#endif
