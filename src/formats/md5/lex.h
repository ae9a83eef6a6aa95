/* MD5 tokens (docs/formats/md5.md §1) over the shared lexer of text/text.h.
 *
 * id reads MD5 with its general tokenizer (idLexer): line breaks are
 * ordinary blanks, comments are line and block comments, strings are
 * quoted without escapes, and "(){}" are tokens of their own. The readers
 * take statements in the fixed order id's loader does; every function here
 * either consumes what was asked for or fails with line:column, what was
 * expected and what was found.
 *
 * The number, keyword and blank scanners are inline: frame values and mesh
 * entries are nearly all of a large file. The common number token
 * ("-0.7071067691": at most 15 digits around one point, no exponent) is
 * converted here with one multiply whose result is checked against float
 * midpoints (see ossa__md5_float); everything else goes to lex.c, which
 * rounds exactly through text/number.c. */
#ifndef OSSA_MD5_LEX_H
#define OSSA_MD5_LEX_H

#include "core/internal.h"
#include "text/text.h"

#include <float.h>

typedef struct md5_lexer {
    ossa_lexer lx;
    ossa_model *model;                 /* receives warnings */
    bool warned_plus, warned_exponent; /* each reported once per file */
    /* A lexer on another thread (a share of frames, read_anim.c) reports
     * no warning: it sets `unusual` instead, and the calling thread reads
     * that text again itself so that the warning is the serial parse's. */
    bool speculative, unusual;
} md5_lexer;

/* Starts at the first byte (a UTF-8 byte order mark is skipped). */
void ossa__md5_lex_init(md5_lexer *L, ossa_model *model, const unsigned char *data, size_t size,
                        ossa_error *error);

/* The hot functions are inlined whatever the compiler's size estimates:
 * frame values and mesh entries are nearly all of a large file. */
#if defined(__GNUC__)
#define OSSA_MD5_HOT static inline __attribute__((always_inline))
#else
#define OSSA_MD5_HOT static inline
#endif

/* Bytes that end a number or a word without being part of it: blanks,
 * line breaks, ( ) { } and '"' (1), and '/' when a comment starts (2). */
extern const unsigned char ossa__md5_ends[256];

OSSA_MD5_HOT bool ossa__md5_is_end(const md5_lexer *L, const char *p)
{
    if (p >= L->lx.end) return true;
    unsigned char k = ossa__md5_ends[(unsigned char)*p];
    return k == 1 || (k == 2 && L->lx.end - p >= 2 && (p[1] == '/' || p[1] == '*'));
}

/* Skips to the next token: 1 when there is one, 0 at the end, -1 failed
 * (a comment that never ends). One or two spaces between tokens on a line
 * are the common case and cost a compare each. */
OSSA_MD5_HOT int ossa__md5_space(md5_lexer *L)
{
    const char *p = L->lx.p, *end = L->lx.end;
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        if (p < end && *p == '\n') { /* a line break and the next line's indent */
            L->lx.line++;
            L->lx.line_start = ++p;
            continue;
        }
        break;
    }
    L->lx.p = p;
    if (p < end && (unsigned char)*p > ' ' && *p != '/') return 1;
    return ossa__lex_skip_space(&L->lx);
}

/* Fails at the cursor: "expected <what>, found <token>". */
ossa_status ossa__md5_expected(md5_lexer *L, const char *what);

/* Consumes the word `word` (a keyword, case-sensitive) or fails with
 * "expected 'word'<context>". */
ossa_status ossa__md5_keyword(md5_lexer *L, const char *word, const char *context);
/* Whether the next token is `word` (consumed when it is); never fails. */
bool ossa__md5_accept(md5_lexer *L, const char *word);
/* The same for the keyword of an entry, `n` its length: inline. */
OSSA_MD5_HOT bool ossa__md5_accept_n(md5_lexer *L, const char *word, size_t n)
{
    if (ossa__md5_space(L) <= 0) return false;
    const char *p = L->lx.p;
    if ((size_t)(L->lx.end - p) < n || memcmp(p, word, n) != 0 || !ossa__md5_is_end(L, p + n))
        return false;
    L->lx.p = p + n;
    return true;
}
/* Consumes one of ( ) { }. */
ossa_status ossa__md5_punct_slow(md5_lexer *L, char c, const char *context);
OSSA_MD5_HOT ossa_status ossa__md5_punct(md5_lexer *L, char c, const char *context)
{
    const char *p = L->lx.p;
    if (p + 1 < L->lx.end && *p == ' ' && p[1] == c) { /* the common layout: one blank */
        L->lx.p = p + 2;
        return OSSA_OK;
    }
    return ossa__md5_punct_slow(L, c, context);
}
/* A quoted string, or a bare word (id accepts both). The result points
 * into the text, without quotes. */
ossa_status ossa__md5_string(md5_lexer *L, const char **s, size_t *len, const char *what);
/* A decimal integer in [min, max] (a leading '+' is accepted with a
 * warning). `at` receives the token's position (may be NULL). */
ossa_status ossa__md5_int_slow(md5_lexer *L, int64_t *out, int64_t min, int64_t max,
                               const char *what, const char **at);
/* A finite number in every syntax ossa accepts (exponents in either case
 * and '+' with a warning). */
ossa_status ossa__md5_float_slow(md5_lexer *L, float *out, const char *what);

static const double ossa__md5_pow10_inv[16] = {1e0,   1e-1,  1e-2,  1e-3, 1e-4,  1e-5,
                                               1e-6,  1e-7,  1e-8,  1e-9, 1e-10, 1e-11,
                                               1e-12, 1e-13, 1e-14, 1e-15};

OSSA_MD5_HOT ossa_status ossa__md5_float(md5_lexer *L, float *out, const char *what)
{
    if (ossa__md5_space(L) < 0) return OSSA_FAILED;
    const char *p = L->lx.p, *end = L->lx.end;
    bool negative = p < end && *p == '-';
    p += negative;
    const char *start = p;
    uint64_t m = 0;
    unsigned d;
    while (p < end && (d = (unsigned)(unsigned char)*p - '0') < 10) {
        m = m * 10 + d;
        p++;
    }
    size_t digits = (size_t)(p - start), frac = 0;
    if (p < end && *p == '.') {
        const char *point = ++p;
        while (p < end && (d = (unsigned)(unsigned char)*p - '0') < 10) {
            m = m * 10 + d;
            p++;
        }
        frac = (size_t)(p - point);
        digits += frac;
    }
    /* Up to 15 digits the mantissa is an exact double, and m * 10^-frac
     * (the power rounded, then the product) is within 2 double ulps of
     * the exact value: its float is the correctly rounded one unless the
     * double lies within a few ulps of a float midpoint (the 29 bits a
     * float drops near 0x10000000), which goes the exact way. A multiply
     * instead of a division: this is most of a large file's cost. */
    if (digits - 1 < 15 && ossa__md5_is_end(L, p)) {
        double v = (double)m * ossa__md5_pow10_inv[frac];
        float f = (float)v;
        uint64_t bits;
        memcpy(&bits, &v, 8);
        if ((uint32_t)((bits & 0x1fffffffu) - 0x0ffffff8u) > 16u && (f >= FLT_MIN || m == 0)) {
            *out = negative ? -f : f;
            L->lx.p = p;
            return OSSA_OK;
        }
    }
    return ossa__md5_float_slow(L, out, what);
}

/* Whether a plain decimal integer token (optional '-', at most 18 digits)
 * is at the cursor: its value and end, nothing consumed or reported. */
OSSA_MD5_HOT bool ossa__md5_scan_int(const md5_lexer *L, int64_t *out, const char **after)
{
    const char *p = L->lx.p, *end = L->lx.end;
    bool negative = p < end && *p == '-';
    p += negative;
    const char *start = p;
    int64_t v = 0;
    unsigned d;
    while (p < end && (d = (unsigned)(unsigned char)*p - '0') < 10 && p - start < 18) {
        v = v * 10 + d;
        p++;
    }
    if (p == start || !ossa__md5_is_end(L, p)) return false;
    *out = negative ? -v : v;
    *after = p;
    return true;
}

/* A plain decimal integer token: true and consumed, or false with nothing
 * reported (after any blanks). */
OSSA_MD5_HOT bool ossa__md5_int_try(md5_lexer *L, int64_t *out)
{
    if (ossa__md5_space(L) <= 0) return false;
    const char *p;
    if (!ossa__md5_scan_int(L, out, &p)) return false;
    L->lx.p = p;
    return true;
}

OSSA_MD5_HOT ossa_status ossa__md5_int(md5_lexer *L, int64_t *out, int64_t min, int64_t max,
                                       const char *what)
{
    if (ossa__md5_space(L) < 0) return OSSA_FAILED;
    const char *p;
    int64_t v;
    if (ossa__md5_scan_int(L, &v, &p) && v >= min && v <= max) {
        *out = v;
        L->lx.p = p;
        return OSSA_OK;
    }
    return ossa__md5_int_slow(L, out, min, max, what, NULL);
}

/* "( a b c )": n numbers in parentheses. */
OSSA_MD5_HOT ossa_status ossa__md5_vector(md5_lexer *L, float *v, int n, const char *what)
{
    if (ossa__md5_punct(L, '(', what)) return OSSA_FAILED;
    for (int i = 0; i < n; i++)
        if (ossa__md5_float(L, &v[i], what)) return OSSA_FAILED;
    return ossa__md5_punct(L, ')', what);
}

/* Line and column of a position (for checks made after the fact). */
void ossa__md5_locate(const md5_lexer *L, const char *at, uint32_t *line, uint32_t *column);
/* Fails with CORRUPT at a position passed earlier. */
ossa_status ossa__md5_fail_at(md5_lexer *L, const char *at, const char *fmt, ...) OSSA_PRINTF(3, 4);
/* A warning located at the cursor (or at `at` when not NULL). */
void ossa__md5_warn(md5_lexer *L, ossa_code code, const char *at, const char *fmt, ...)
    OSSA_PRINTF(4, 5);

#endif
