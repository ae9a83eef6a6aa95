/* Numbers both ways, independent of the C locale.
 *
 * Reading: a token is scanned once into a 64-bit decimal mantissa (first 19
 * significant digits) and a power of ten. When the mantissa is below 2^53
 * and the power within +-22, mantissa and power are exact doubles, so one
 * IEEE multiplication or division gives the correctly rounded double; the
 * conversion to float is then correct too, except when that double lies
 * exactly halfway between two floats (the exact value may be on either
 * side of it): such values, very long tokens, huge or tiny exponents and
 * results in the subnormal range take the exact path, which compares the
 * decimal value with the midpoints between neighbouring floats in big
 * integer arithmetic.
 *
 * Writing: for 6, 7, 8 and 9 significant digits, the nearest decimal is
 * checked with the reader; the first that reads back as the same float is
 * printed (with its trailing zeros dropped). Six digits are never ambiguous
 * for float32 (a float's rounding interval is narrower than the spacing of
 * 6-digit decimals), so this is the shortest representation. */
#include "text/text.h"

#include <float.h>
#include <math.h>

static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const uint64_t pow10_u64[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

static inline bool is_digit(char c) { return (unsigned)(c - '0') < 10; }

static inline bool token_end(const char *p, const char *end)
{
    return p == end || ossa__text_blank(*p) || *p == '\n';
}

/* -- Big integers for the exact path -- */

/* 2048 bits: the largest operand is below 2^1100 (200 significant digits,
 * powers of ten down to 1e-47 and up to 1e39, powers of two down to 2^-202). */
#define BIG_LIMBS 64
#define MAX_DIGITS 200

typedef struct big {
    uint32_t n; /* used limbs, little-endian */
    uint32_t d[BIG_LIMBS];
} big;

static void big_set(big *b, uint64_t v)
{
    b->n = 0;
    while (v) {
        b->d[b->n++] = (uint32_t)v;
        v >>= 32;
    }
}

static void big_mul_add(big *b, uint32_t m, uint32_t add)
{
    uint64_t carry = add;
    for (uint32_t i = 0; i < b->n; i++) {
        uint64_t t = (uint64_t)b->d[i] * m + carry;
        b->d[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry && b->n < BIG_LIMBS) b->d[b->n++] = (uint32_t)carry;
}

static void big_mul_pow10(big *b, int k)
{
    for (; k >= 9; k -= 9) big_mul_add(b, 1000000000u, 0);
    if (k > 0) big_mul_add(b, (uint32_t)pow10_u64[k], 0);
}

static void big_shl(big *b, int k)
{
    if (!b->n) return;
    int words = k / 32, bits = k % 32;
    if (b->n + (uint32_t)words + 1 > BIG_LIMBS) return; /* cannot happen for our ranges */
    if (bits) {
        uint32_t carry = 0;
        for (uint32_t i = 0; i < b->n; i++) {
            uint32_t v = b->d[i];
            b->d[i] = (v << bits) | carry;
            carry = v >> (32 - bits);
        }
        if (carry) b->d[b->n++] = carry;
    }
    if (words) {
        for (uint32_t i = b->n; i-- > 0;) b->d[i + (uint32_t)words] = b->d[i];
        for (int i = 0; i < words; i++) b->d[i] = 0;
        b->n += (uint32_t)words;
    }
}

static int big_cmp(const big *a, const big *b)
{
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (uint32_t i = a->n; i-- > 0;)
        if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

/* A decimal value digits * 10^exp10, plus `sticky` when non-zero digits
 * beyond the kept ones were dropped (the value is then slightly larger). */
typedef struct decimal {
    big digits;
    int exp10;
    bool sticky;
} decimal;

/* Sign of (value - mid) for a positive double `mid` (exactly). */
static int compare_mid(const decimal *x, double mid)
{
    int e2;
    double fr = frexp(mid, &e2);
    uint64_t m = (uint64_t)ldexp(fr, 53);
    int q = e2 - 53;
    big a = x->digits, b;
    big_set(&b, m);
    if (x->exp10 >= 0)
        big_mul_pow10(&a, x->exp10);
    else
        big_mul_pow10(&b, -x->exp10);
    if (q >= 0)
        big_shl(&b, q);
    else
        big_shl(&a, -q);
    int c = big_cmp(&a, &b);
    if (c == 0 && x->sticky) c = 1;
    return c;
}

static bool mantissa_odd(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u & 1;
}

/* The correctly rounded float of a positive decimal, starting from an
 * approximation `approx` (a few double ulps off at most) and moving to the
 * neighbouring float while the exact value is beyond a midpoint. */
static float exact_convert(const decimal *x, double approx)
{
    float f;
    if (approx >= (double)FLT_MAX)
        f = FLT_MAX;
    else
        f = (float)approx;
    for (int guard = 0; guard < 8; guard++) {
        if (f == FLT_MAX) {
            /* Halfway to the next power of two, 2^128 - 2^103, rounds up
             * (FLT_MAX's mantissa is odd). */
            if (compare_mid(x, (double)FLT_MAX + ldexp(1.0, 103)) >= 0) return INFINITY;
        } else {
            float up = nextafterf(f, INFINITY);
            int c = compare_mid(x, ((double)f + (double)up) / 2);
            if (c > 0 || (c == 0 && mantissa_odd(f))) {
                f = up;
                continue;
            }
        }
        if (f > 0) {
            float down = nextafterf(f, 0);
            int c = compare_mid(x, ((double)f + (double)down) / 2);
            if (c < 0 || (c == 0 && mantissa_odd(f))) {
                f = down;
                continue;
            }
        }
        break;
    }
    return f;
}

/* approx = m * 10^e in double, within a few ulps; the caller has bounded
 * the decimal exponent so nothing overflows. */
static double approximate(uint64_t m, int e)
{
    double v = (double)m;
    while (e > 22) {
        v *= 1e22;
        e -= 22;
    }
    while (e < -22) {
        v /= 1e22;
        e += 22;
    }
    return e >= 0 ? v * pow10_exact[e] : v / pow10_exact[-e];
}

/* Decimal exponents outside this range are certainly infinite or zero:
 * FLT_MAX is 3.4e38 and half the smallest subnormal is 7.0e-46. */
#define MAX_DEXP 39
#define MIN_DEXP (-47)

/* Exact conversion of a token whose digits are re-read into a big integer.
 * `m`, `e`, `nd` are the fast scan's mantissa (first 19 digits), its power
 * and its digit count. */
static float slow_token(const char *p, const char *end, uint64_t m, int e, int nd)
{
    int dexp = e + nd - 1; /* decimal exponent of the leading digit */
    if (dexp >= MAX_DEXP) return INFINITY;
    if (dexp < MIN_DEXP) return 0;
    decimal x;
    x.digits.n = 0;
    x.sticky = false;
    /* Re-read up to MAX_DIGITS significant digits, 9 at a time. */
    int kept = 0;
    uint32_t chunk = 0;
    int chunk_digits = 0;
    for (; p < end; p++) {
        char c = *p;
        if (c == '.') continue; /* its place is in dexp already */
        if (!is_digit(c)) break;
        if (kept == 0 && c == '0') continue; /* leading zeros */
        if (kept < MAX_DIGITS) {
            chunk = chunk * 10 + (uint32_t)(c - '0');
            if (++chunk_digits == 9) {
                big_mul_add(&x.digits, 1000000000u, chunk);
                chunk = 0;
                chunk_digits = 0;
            }
            kept++;
        } else if (c != '0') {
            x.sticky = true;
        }
    }
    if (chunk_digits) big_mul_add(&x.digits, (uint32_t)pow10_u64[chunk_digits], chunk);
    /* value = kept digits * 10^(dexp - kept + 1) */
    x.exp10 = dexp - kept + 1;
    return exact_convert(&x, approximate(m, e));
}

float ossa__text_decimal_to_float(uint64_t m, int e, bool negative)
{
    float f;
    if (m == 0) {
        f = 0;
    } else if (m < (1ull << 53) && e >= -22 && e <= 22) {
        /* m and 10^|e| are exact doubles: one IEEE operation gives the
         * correctly rounded double, and converting that to float is right
         * unless it lies exactly on a float midpoint (the 29 bits a float
         * drops are 0x10000000). Results outside the normal float range
         * take the exact path too. */
        double d = e >= 0 ? (double)m * pow10_exact[e] : (double)m / pow10_exact[-e];
        f = (float)d;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        if ((bits & 0x1fffffffu) == 0x10000000u || !(f >= FLT_MIN) || f > FLT_MAX) goto slow;
    } else {
        goto slow;
    }
    return negative ? -f : f;
slow:;
    int nd = 1;
    while (nd < 20 && m >= pow10_u64[nd]) nd++;
    int dexp = e + nd - 1;
    if (dexp >= MAX_DEXP)
        f = INFINITY;
    else if (dexp < MIN_DEXP)
        f = 0;
    else {
        decimal x;
        big_set(&x.digits, m);
        x.exp10 = e;
        x.sticky = false;
        f = exact_convert(&x, approximate(m, e));
    }
    return negative ? -f : f;
}

static bool match_word(const char *p, const char *end, const char *word, size_t n)
{
    if ((size_t)(end - p) < n) return false;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != word[i]) return false;
    return true;
}

/* inf, infinity, nan (any case) after an optional sign. */
static const char *parse_special(const char *p, const char *end, bool negative, float *out)
{
    if (match_word(p, end, "infinity", 8) && token_end(p + 8, end)) {
        *out = negative ? -INFINITY : INFINITY;
        return p + 8;
    }
    if (match_word(p, end, "inf", 3) && token_end(p + 3, end)) {
        *out = negative ? -INFINITY : INFINITY;
        return p + 3;
    }
    if (match_word(p, end, "nan", 3) && token_end(p + 3, end)) {
        *out = negative ? -NAN : NAN;
        return p + 3;
    }
    return NULL;
}

/* An optional exponent part ("e-12") at p, added to *e; the position after
 * it, or NULL when an 'e' has no digits. Huge exponents saturate. */
static const char *scan_exponent(const char *p, const char *end, int *e)
{
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool eneg = false;
        if (p < end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
        if (p == end || !is_digit(*p)) return NULL;
        int x = 0;
        for (; p < end && is_digit(*p); p++)
            if (x < 100000) x = x * 10 + (*p - '0');
        *e += eneg ? -x : x;
    }
    return p;
}

/* The general scan: any number of digits (only the first 19 significant
 * ones go into the mantissa, the rest into the exponent and a sticky
 * flag) and the exact path when needed. */
static const char *parse_careful(const char *p, const char *end, float *out)
{
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) negative = *p++ == '-';
    const char *digits = p;
    uint64_t m = 0;
    int nd = 0, e = 0; /* value = m * 10^e, nd digits in m */
    bool dropped = false, any = false;
    for (; p < end && is_digit(*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        any = true;
        if (nd < 19) {
            if (m || d) {
                m = m * 10 + d;
                nd++;
            }
        } else {
            e++;
            dropped |= d != 0;
        }
    }
    if (p < end && *p == '.') {
        for (p++; p < end && is_digit(*p); p++) {
            unsigned d = (unsigned)(*p - '0');
            any = true;
            if (nd < 19) {
                if (m || d) {
                    m = m * 10 + d;
                    nd++;
                }
                e--;
            } else {
                dropped |= d != 0;
            }
        }
    }
    if (!any) return parse_special(digits, end, negative, out);
    const char *mantissa_end = p;
    p = scan_exponent(p, end, &e);
    if (!p) return NULL;
    if (!token_end(p, end)) return NULL;
    if (m == 0) {
        *out = negative ? -0.0f : 0.0f;
        return p;
    }
    if (!dropped && m < (1ull << 53) && e >= -22 && e <= 22) {
        double d = e >= 0 ? (double)m * pow10_exact[e] : (double)m / pow10_exact[-e];
        float f = (float)d;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        if ((bits & 0x1fffffffu) != 0x10000000u && f >= FLT_MIN && f <= FLT_MAX) {
            *out = negative ? -f : f;
            return p;
        }
    }
    float f;
    if (dropped) {
        /* The exponent of the kept digits is e; tokens of more than 19
         * significant digits re-read all of them (up to MAX_DIGITS). */
        int dexp = e + nd - 1;
        if (dexp >= MAX_DEXP)
            f = INFINITY;
        else if (dexp < MIN_DEXP)
            f = 0;
        else {
            /* The exponent part applies to all digits; slow_token counts
             * positions itself, so pass the token without its exponent and
             * correct: its dexp equals ours. */
            f = slow_token(digits, mantissa_end, m, e, nd);
        }
    } else {
        f = ossa__text_decimal_to_float(m, e, false);
    }
    *out = negative ? -f : f;
    return p;
}

const float ossa__text_pow10f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                    1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

/* The rest of a token the inline scan (iqe.h) could not finish. */
const char *ossa__text_parse_float_slow(const char *start, const char *p, const char *end,
                                       uint64_t m, size_t digits, int e, bool negative,
                                       float *out)
{
    if (digits == 0) { /* no digit: only inf, infinity, nan (right after the sign) */
        const char *word = start + (*start == '-' || *start == '+');
        return parse_special(word, end, negative, out);
    }
    if (digits > 19) return parse_careful(start, end, out);
    p = scan_exponent(p, end, &e);
    if (!p) return NULL;
    if (!token_end(p, end)) return NULL;
    *out = ossa__text_decimal_to_float(m, e, negative);
    return p;
}

const char *ossa__text_parse_int(const char *p, const char *end, int64_t *out)
{
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) negative = *p++ == '-';
    if (p == end || !is_digit(*p)) return NULL;
    uint64_t v = 0;
    for (; p < end && is_digit(*p); p++) {
        if (v > (UINT64_MAX - 9) / 10) return NULL;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (!token_end(p, end)) return NULL;
    if (v > (uint64_t)INT64_MAX + (negative ? 1 : 0)) return NULL;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return p;
}

/* -- Shortest formatting -- */

/* Round-to-nearest of x * 10^k for x > 0 (a few ulps of error in the
 * scaling are harmless: every candidate is verified). */
static uint64_t scaled_round(double x, int k)
{
    double v = x;
    while (k > 22) {
        v *= 1e22;
        k -= 22;
    }
    while (k < -22) {
        v /= 1e22;
        k += 22;
    }
    v = k >= 0 ? v * pow10_exact[k] : v / pow10_exact[-k];
    return (uint64_t)floor(v + 0.5);
}

static size_t put_uint(char *out, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

/* Prints digits D (nd digits, no trailing zeros) with the leading digit at
 * decimal exponent x, %g style: fixed for -4 <= x < 9, else d.ddde+XX. */
static size_t put_decimal(char *o, uint64_t D, int nd, int x)
{
    char dig[24];
    put_uint(dig, D);
    size_t n = 0;
    if (x >= -4 && x < 9) {
        if (x < 0) {
            o[n++] = '0';
            o[n++] = '.';
            for (int i = 0; i < -x - 1; i++) o[n++] = '0';
            for (int i = 0; i < nd; i++) o[n++] = dig[i];
        } else {
            for (int i = 0; i <= x; i++) o[n++] = i < nd ? dig[i] : '0';
            if (nd > x + 1) {
                o[n++] = '.';
                for (int i = x + 1; i < nd; i++) o[n++] = dig[i];
            }
        }
        return n;
    }
    o[n++] = dig[0];
    if (nd > 1) {
        o[n++] = '.';
        for (int i = 1; i < nd; i++) o[n++] = dig[i];
    }
    o[n++] = 'e';
    o[n++] = x < 0 ? '-' : '+';
    int ax = x < 0 ? -x : x;
    if (ax < 10) o[n++] = '0';
    n += put_uint(o + n, (uint64_t)ax);
    return n;
}

size_t ossa__text_format_float(char *out, float f)
{
    size_t n = 0;
    if (f != f) {
        memcpy(out, "nan", 3);
        return 3;
    }
    if (signbit(f)) out[n++] = '-';
    double x = fabs((double)f);
    if (x == INFINITY) {
        memcpy(out + n, "inf", 3);
        return n + 3;
    }
    if (x == 0) {
        out[n++] = '0';
        return n;
    }
    int e10 = (int)floor(log10(x));
    /* log10 may be off by one right at powers of ten. */
    if (x < approximate(1, e10)) e10--;
    if (x >= approximate(1, e10 + 1)) e10++;
    float target = (float)x;
    /* Subnormals have wider rounding intervals: shorter decimals may fit. */
    for (int digits = x < FLT_MIN ? 1 : 6; digits <= 17; digits++) {
        int k = digits - 1 - e10; /* D = x * 10^k has `digits` digits */
        uint64_t D = scaled_round(x, k);
        for (int delta = 0; delta < 3; delta++) {
            /* The nearest first; at 9+ digits also its neighbours, in case
             * the scaling rounded the wrong way at a near-tie. */
            uint64_t c = delta == 0 ? D : delta == 1 ? D - 1 : D + 1;
            if (delta && digits < 9) break;
            if (ossa__text_decimal_to_float(c, -k, false) != target) continue;
            int nd = digits, x10 = e10;
            if (c >= pow10_u64[digits]) { /* rounded up to 10^digits */
                c /= 10;
                x10++;
            }
            while (c % 10 == 0 && nd > 1) {
                c /= 10;
                nd--;
            }
            /* c may have fewer digits than nd when trailing zeros were cut
             * before: recount. */
            nd = 1;
            while (nd < 20 && c >= pow10_u64[nd]) nd++;
            return n + put_decimal(out + n, c, nd, x10);
        }
    }
    /* Unreachable: 9 digits always round-trip. */
    out[n++] = '0';
    return n;
}
