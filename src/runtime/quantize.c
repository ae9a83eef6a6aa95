/* The arithmetic of clip compression: the error metric's matrices, range
 * reduction, quantization and bit packing (see quantize.h). */
#include "runtime/quantize.h"

#include <math.h>

/* -- The error metric ------------------------------------------------------------ */

double ossa__shell_error(const double a[12], const double b[12], double r)
{
    double dt[3] = {a[9] - b[9], a[10] - b[10], a[11] - b[11]}, worst = 0;
    for (int c = 0; c < 3; c++) {
        double d[3] = {(a[c * 3] - b[c * 3]) * r, (a[c * 3 + 1] - b[c * 3 + 1]) * r,
                       (a[c * 3 + 2] - b[c * 3 + 2]) * r};
        double p = (dt[0] + d[0]) * (dt[0] + d[0]) + (dt[1] + d[1]) * (dt[1] + d[1]) +
                   (dt[2] + d[2]) * (dt[2] + d[2]);
        double m = (dt[0] - d[0]) * (dt[0] - d[0]) + (dt[1] - d[1]) * (dt[1] - d[1]) +
                   (dt[2] - d[2]) * (dt[2] - d[2]);
        worst = p > worst ? p : worst;
        worst = m > worst ? m : worst;
    }
    return sqrt(worst);
}

/* -- Quantization ---------------------------------------------------------------- */

void ossa__segment_range(const float lo[3], const float hi[3], const float min[3],
                         const float extent[3], unsigned char info[7])
{
    for (int c = 0; c < 3; c++) {
        int a = 0, b = 0;
        if (extent[c] > 0) {
            double fa = ((double)lo[c] - min[c]) / extent[c] * 255;
            double fb = ((double)hi[c] - min[c]) / extent[c] * 255;
            a = (int)floor(fa);
            b = (int)ceil(fb);
            a = a < 0 ? 0 : a > 255 ? 255 : a;
            b = b < a ? a : b > 255 ? 255 : b;
            /* The decoder computes the start in float: step back while that
             * lands above lo, and widen while the end lands below hi. */
            while (a > 0 && min[c] + extent[c] * ((float)a * (1.0f / 255.0f)) > lo[c]) a--;
            while (b < 255 &&
                   min[c] + extent[c] * ((float)a * (1.0f / 255.0f)) +
                           extent[c] * ((float)(b - a) * (1.0f / 255.0f)) <
                       hi[c])
                b++;
        }
        info[1 + c] = (unsigned char)a;
        info[4 + c] = (unsigned char)(b - a);
    }
}

uint32_t ossa__quantize(float v, float offset, float scale, uint32_t bits)
{
    if (!(scale > 0) || bits == 0) return 0;
    double q = floor(((double)v - offset) / scale + 0.5);
    double top = (double)((1u << bits) - 1);
    return (uint32_t)(q < 0 ? 0 : q > top ? top : q);
}

void ossa__put_bits(unsigned char *buf, uint64_t pos, uint64_t v, uint32_t n)
{
    v &= n >= 64 ? ~0ull : (1ull << n) - 1;
    unsigned char *p = buf + (pos >> 3);
    v <<= (pos & 7);
    for (int i = 0; i < 8 && v; i++, v >>= 8) p[i] |= (unsigned char)(v & 0xFF);
}
