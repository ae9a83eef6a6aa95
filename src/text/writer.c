/* The line writer of text/text.h. */
#include "text/text.h"

#include <math.h>
#include <stdio.h>

void ossa__out_init(ossa_text_out *o, ossa_buf *buf)
{
    o->buf = buf;
    o->n = 0;
}

void ossa__out_flush(ossa_text_out *o)
{
    /* Appending nothing to a buffer without storage would hand memset a
     * null pointer. */
    if (o->n) ossa__buf_append(o->buf, o->line, o->n);
    o->n = 0;
}

void ossa__out_mem(ossa_text_out *o, const char *s, size_t n)
{
    if (o->n + n > sizeof o->line) {
        ossa__out_flush(o);
        if (n > sizeof o->line / 2) {
            ossa__buf_append(o->buf, s, n);
            return;
        }
    }
    memcpy(o->line + o->n, s, n);
    o->n += n;
}

void ossa__out_str(ossa_text_out *o, const char *s) { ossa__out_mem(o, s, strlen(s)); }

void ossa__out_char(ossa_text_out *o, char c)
{
    if (o->n == sizeof o->line) ossa__out_flush(o);
    o->line[o->n++] = c;
}

void ossa__out_float(ossa_text_out *o, float f)
{
    if (o->n + OSSA_FLOAT_CHARS > sizeof o->line) ossa__out_flush(o);
    o->n += ossa__text_format_float(o->line + o->n, f);
}

void ossa__out_int(ossa_text_out *o, int64_t v)
{
    char tmp[24];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t n = 0;
    do {
        tmp[sizeof tmp - ++n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) tmp[sizeof tmp - ++n] = '-';
    ossa__out_mem(o, tmp + sizeof tmp - n, n);
}

void ossa__out_fixed(ossa_text_out *o, float f, int decimals)
{
    if (decimals < 0) decimals = 0;
    if (decimals > 9) decimals = 9;
    if (!isfinite(f)) {
        ossa__out_str(o, f != f ? "nan" : f < 0 ? "-inf" : "inf");
        return;
    }
    /* A float's mantissa has 24 bits and 10^9 = 2^9 * 1953125 (21 bits):
     * the product is exact in a double, so one rounding (to nearest, ties
     * to even, as glibc's printf) gives the correctly rounded digits. */
    static const double pow10[10] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    double r = nearbyint(fabs((double)f) * pow10[decimals]);
    /* "%.0f" of an integral double has no decimal point, so the locale
     * cannot change it; the point is placed here. */
    char digits[64];
    int n = snprintf(digits, sizeof digits, "%.0f", r);
    if (n < 0 || n >= (int)sizeof digits) n = 0;
    if (signbit(f)) ossa__out_char(o, '-');
    if (n <= decimals) {
        ossa__out_char(o, '0');
        if (decimals) ossa__out_char(o, '.');
        for (int i = n; i < decimals; i++) ossa__out_char(o, '0');
        ossa__out_mem(o, digits, (size_t)n);
        return;
    }
    ossa__out_mem(o, digits, (size_t)(n - decimals));
    if (decimals) {
        ossa__out_char(o, '.');
        ossa__out_mem(o, digits + n - decimals, (size_t)decimals);
    }
}

void ossa__out_format(ossa_text_out *o, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    ossa__out_mem(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
