/* Double-precision numbers for text formats that store doubles (FBX), in
 * the C locale whatever the process's locale is.
 *
 * The token's first 19 significant digits make a 64-bit mantissa m and the
 * rest a power of ten e. When m < 2^53 and |e| <= 22 both are exact doubles
 * and one IEEE operation rounds correctly (Clinger's fast path). Otherwise
 * m (exact in the 64-bit mantissa of x87 long double, where there is one)
 * is scaled by 10^e in long double and rounded to double once: the result
 * is the correctly rounded double except within about 2^-11 ulp of a
 * midpoint, and never more than one ulp away. */
#include "text/text.h"

#include <math.h>

static const double pow10_d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static bool word_is(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - p) != n) return false;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != w[i]) return false;
    return true;
}

static long double pow10_ld(int e)
{
    long double r = 1, b = 10;
    unsigned k = (unsigned)(e < 0 ? -e : e);
    /* Exact up to 10^27 with a 64-bit mantissa; beyond, a few roundings. */
    while (k) {
        if (k & 1) r *= b;
        b *= b;
        k >>= 1;
    }
    return e < 0 ? 1 / r : r;
}

const char *ossa__text_parse_double(const char *p, const char *end, double *out)
{
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) negative = *p++ == '-';
    if (word_is(p, end, "inf") || word_is(p, end, "infinity")) {
        *out = negative ? -HUGE_VAL : HUGE_VAL;
        return end;
    }
    if (word_is(p, end, "nan")) {
        *out = NAN;
        return end;
    }
    uint64_t m = 0;
    int digits = 0, e = 0;
    bool any = false;
    for (; p < end && (unsigned)(*p - '0') < 10; p++) {
        any = true;
        if (digits < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            if (m) digits++;
        } else {
            e++;
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && (unsigned)(*p - '0') < 10; p++) {
            any = true;
            if (digits < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                if (m) digits++;
                e--;
            }
        }
    }
    if (!any) return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool eneg = false;
        if (p < end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
        if (p == end || (unsigned)(*p - '0') >= 10) return NULL;
        int x = 0;
        for (; p < end && (unsigned)(*p - '0') < 10; p++)
            if (x < 100000) x = x * 10 + (*p - '0');
        e += eneg ? -x : x;
    }
    if (p != end) return NULL;
    double v;
    if (m == 0)
        v = 0;
    else if (m < (1ull << 53) && e >= -22 && e <= 22)
        v = e < 0 ? (double)m / pow10_d[-e] : (double)m * pow10_d[e];
    else if (e > 400)
        v = HUGE_VAL;
    else if (e < -400)
        v = 0;
    else if (e < -300)
        v = (double)((long double)m * pow10_ld(e + 100) * pow10_ld(-100));
    else
        v = (double)((long double)m * pow10_ld(e));
    *out = negative ? -v : v;
    return p;
}
