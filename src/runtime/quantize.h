/* The arithmetic of clip compression (quantize.c): double-precision affine
 * matrices for the error metric, range reduction and quantization of key
 * values, and the bit writer. */
#ifndef OSSA_QUANTIZE_H
#define OSSA_QUANTIZE_H

#include "runtime/packed.h"

/* -- The error metric -- */

/* (The affine 3x4 matrices in double are math/math.h's.) */
/* The largest distance between a * v and b * v over the six virtual
 * vertices v = +-r along the axes of the space both map from. */
double ossa__shell_error(const double a[12], const double b[12], double r);

/* -- Quantization -- */

/* A track's range in a segment as 8-bit fractions of the clip's range
 * [min, min + extent] per component: info[1..3] the start (rounded down),
 * info[4..6] the extent (rounded up), so that [lo, hi] is covered. */
void ossa__segment_range(const float lo[3], const float hi[3], const float min[3],
                         const float extent[3], unsigned char info[7]);
/* The `bits`-bit integer nearest to (v - offset) / scale, clamped. */
uint32_t ossa__quantize(float v, float offset, float scale, uint32_t bits);
/* ORs the n-bit value v (n <= 32) into `buf` at bit `pos` (least
 * significant bit first; the 8 bytes from pos / 8 must exist and the
 * bits be zero). */
void ossa__put_bits(unsigned char *buf, uint64_t pos, uint64_t v, uint32_t n);

#endif
