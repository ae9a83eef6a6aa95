/* MD5 tokens: the parts of lex.h that are not on the hot path — words,
 * strings, unusual numbers and every error message. */
#include "formats/md5/lex.h"

#include <math.h>
#include <stdio.h>

const unsigned char ossa__md5_ends[256] = {
    [' '] = 1, ['\n'] = 1, ['\t'] = 1, ['\r'] = 1, ['\v'] = 1, ['\f'] = 1,
    ['('] = 1, [')'] = 1,  ['{'] = 1,  ['}'] = 1,  ['"'] = 1,  ['/'] = 2,
};

void ossa__md5_lex_init(md5_lexer *L, ossa_model *model, const unsigned char *data, size_t size,
                        ossa_error *error)
{
    memset(L, 0, sizeof *L);
    ossa__lex_init(&L->lx, data, size, "//", "(){}", error);
    L->lx.block_comments = true;
    L->model = model;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) {
        L->lx.p += 3;
        L->lx.line_start += 3;
        ossa__md5_warn(L, OSSA_WARNING_NONSTANDARD, NULL,
                       "a UTF-8 byte order mark starts the file (id's tokenizer has none)");
    }
}

/* The token at the cursor, for messages: words end where id's tokenizer
 * would end them; at least one byte. */
static size_t token_length(const md5_lexer *L)
{
    const char *p = L->lx.p;
    if (p >= L->lx.end) return 0;
    if (strchr("(){}", *p)) return 1;
    if (*p == '"') {
        const char *q = p + 1;
        while (q < L->lx.end && *q != '"' && *q != '\n' && *q != '\r') q++;
        return (size_t)(q - p) + (q < L->lx.end && *q == '"');
    }
    const char *q = p + 1;
    while (!ossa__md5_is_end(L, q)) q++;
    return (size_t)(q - p);
}

static ossa_status fail_found(md5_lexer *L, const char *fmt, ...) OSSA_PRINTF(2, 3);
static ossa_status fail_found(md5_lexer *L, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *at = L->lx.p;
    uint32_t column = ossa__lex_column(&L->lx, at);
    if (at >= L->lx.end)
        return ossa__fail_line(L->lx.error, OSSA_ERROR_TRUNCATED, L->lx.line, column,
                               "%s, found the end of the file", msg);
    size_t n = token_length(L);
    return ossa__fail_line(L->lx.error, OSSA_ERROR_CORRUPT, L->lx.line, column, "%s, found '%.*s'",
                           msg, (int)(n > 40 ? 40 : n), at);
}

ossa_status ossa__md5_expected(md5_lexer *L, const char *what)
{
    return fail_found(L, "expected %s", what);
}

static bool word_at(md5_lexer *L, const char *word)
{
    size_t n = strlen(word);
    const char *p = L->lx.p;
    return (size_t)(L->lx.end - p) >= n && memcmp(p, word, n) == 0 && ossa__md5_is_end(L, p + n);
}

ossa_status ossa__md5_keyword(md5_lexer *L, const char *word, const char *context)
{
    int r = ossa__md5_space(L);
    if (r < 0) return OSSA_FAILED;
    if (r && word_at(L, word)) {
        L->lx.p += strlen(word);
        return OSSA_OK;
    }
    return fail_found(L, "expected '%s'%s%s", word, *context ? " " : "", context);
}

bool ossa__md5_accept(md5_lexer *L, const char *word)
{
    if (ossa__md5_space(L) <= 0 || !word_at(L, word)) return false;
    L->lx.p += strlen(word);
    return true;
}

ossa_status ossa__md5_punct_slow(md5_lexer *L, char c, const char *context)
{
    int r = ossa__md5_space(L);
    if (r < 0) return OSSA_FAILED;
    if (r && *L->lx.p == c) {
        L->lx.p++;
        return OSSA_OK;
    }
    return fail_found(L, "expected '%c'%s%s", c, *context ? " in " : "", context);
}

ossa_status ossa__md5_string(md5_lexer *L, const char **s, size_t *len, const char *what)
{
    int r = ossa__md5_space(L);
    if (r < 0) return OSSA_FAILED;
    const char *p = L->lx.p;
    if (!r || strchr("(){}", *p)) return fail_found(L, "expected %s (a quoted string)", what);
    if (*p != '"') {
        /* a bare word, as idLexer reads names and paths */
        size_t n = token_length(L);
        *s = p;
        *len = n;
        L->lx.p = p + n;
        return OSSA_OK;
    }
    const char *q = p + 1;
    while (q < L->lx.end && *q != '"' && *q != '\n' && *q != '\r') q++;
    if (q >= L->lx.end || *q != '"')
        return ossa__fail_line(
            L->lx.error, q >= L->lx.end ? OSSA_ERROR_TRUNCATED : OSSA_ERROR_CORRUPT, L->lx.line,
            ossa__lex_column(&L->lx, p),
            "%s: the string does not end on its line (a closing '\"' expected)", what);
    *s = p + 1;
    *len = (size_t)(q - p - 1);
    L->lx.p = q + 1;
    return OSSA_OK;
}

/* A number token in the syntax ossa reads (docs/formats/md5.md §1): optional sign,
 * digits with at most one point, an optional exponent. Returns its end, or
 * NULL. Sets *plus and *upper for the forms id does not read. */
static const char *number_end(const md5_lexer *L, const char *p, bool *plus, bool *upper)
{
    const char *end = L->lx.end;
    *plus = *upper = false;
    if (p < end && (*p == '-' || *p == '+')) *plus = *p++ == '+';
    size_t digits = 0;
    while (p < end && *p >= '0' && *p <= '9') p++, digits++;
    if (p < end && *p == '.') {
        p++;
        while (p < end && *p >= '0' && *p <= '9') p++, digits++;
    }
    if (!digits) return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        *upper = *p == 'E';
        p++;
        if (p < end && (*p == '-' || *p == '+')) p++;
        if (p >= end || *p < '0' || *p > '9') return NULL;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    return ossa__md5_is_end(L, p) ? p : NULL;
}

static void warn_forms(md5_lexer *L, bool plus, bool upper, const char *at)
{
    if (plus && !L->warned_plus) {
        L->warned_plus = true;
        ossa__md5_warn(L, OSSA_WARNING_NONSTANDARD, at,
                       "a number with a '+' sign (id's tokenizer reads none; further ones are "
                       "not reported)");
    }
    if (upper && !L->warned_exponent) {
        L->warned_exponent = true;
        ossa__md5_warn(L, OSSA_WARNING_NONSTANDARD, at,
                       "a number with an 'E' exponent (id's tokenizer reads lowercase 'e' only; "
                       "further ones are not reported)");
    }
}

ossa_status ossa__md5_float_slow(md5_lexer *L, float *out, const char *what)
{
    const char *p = L->lx.p;
    bool plus, upper;
    const char *e = number_end(L, p, &plus, &upper);
    /* The shared parser also reads inf and nan; MD5 has neither. */
    float f = 0;
    if (!e || !ossa__text_parse_float(p, e, &f))
        return fail_found(L, "expected %s (a number)", what);
    if (!isfinite(f))
        return ossa__fail_line(L->lx.error, OSSA_ERROR_CORRUPT, L->lx.line,
                               ossa__lex_column(&L->lx, p), "%s %.*s is too large for a float",
                               what, (int)(e - p > 40 ? 40 : e - p), p);
    warn_forms(L, plus, upper, p);
    *out = f;
    L->lx.p = e;
    return OSSA_OK;
}

ossa_status ossa__md5_int_slow(md5_lexer *L, int64_t *out, int64_t min, int64_t max,
                               const char *what, const char **at)
{
    if (ossa__md5_space(L) < 0) return OSSA_FAILED;
    const char *p = L->lx.p;
    if (at) *at = p;
    bool plus, upper;
    const char *e = number_end(L, p, &plus, &upper);
    int64_t v;
    if (e && ossa__text_parse_int(p + plus, e, &v) == e) {
        if (v < min || v > max)
            return ossa__fail_line(L->lx.error, OSSA_ERROR_CORRUPT, L->lx.line,
                                   ossa__lex_column(&L->lx, p),
                                   "%s %lld is out of range (%lld to %lld)", what, (long long)v,
                                   (long long)min, (long long)max);
        warn_forms(L, plus, false, p);
        *out = v;
        L->lx.p = e;
        return OSSA_OK;
    }
    if (e) {
        /* digits that do not fit, or a fraction where id would truncate */
        bool integral = true;
        for (const char *q = p; q < e; q++)
            integral &= (*q >= '0' && *q <= '9') || *q == '-' || *q == '+';
        if (integral)
            return ossa__fail_line(
                L->lx.error, OSSA_ERROR_CORRUPT, L->lx.line, ossa__lex_column(&L->lx, p),
                "%s %.*s is out of range (%lld to %lld)", what, (int)(e - p > 40 ? 40 : e - p), p,
                (long long)min, (long long)max);
    }
    return fail_found(L, "expected %s (an integer)", what);
}

void ossa__md5_locate(const md5_lexer *L, const char *at, uint32_t *line, uint32_t *column)
{
    /* Only on the error path: count line breaks as ossa__lex_skip_space
     * does. */
    uint32_t n = 1;
    const char *start = L->lx.data;
    for (const char *p = L->lx.data; p < at; p++) {
        if (*p == '\n' || (*p == '\r' && (p + 1 >= L->lx.end || p[1] != '\n'))) {
            n++;
            start = p + 1;
        }
    }
    *line = n;
    *column = (uint32_t)(at - start) + 1;
}

ossa_status ossa__md5_fail_at(md5_lexer *L, const char *at, const char *fmt, ...)
{
    uint32_t line, column;
    ossa__md5_locate(L, at, &line, &column);
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(L->lx.error, OSSA_ERROR_CORRUPT, OSSA_NO_OFFSET, line, column, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

void ossa__md5_warn(md5_lexer *L, ossa_code code, const char *at, const char *fmt, ...)
{
    if (L->speculative) {
        L->unusual = true;
        return;
    }
    uint32_t line, column;
    if (at && (at < L->lx.line_start || at > L->lx.p)) {
        ossa__md5_locate(L, at, &line, &column);
    } else {
        line = L->lx.line;
        column = ossa__lex_column(&L->lx, at ? at : L->lx.p);
    }
    va_list ap;
    va_start(ap, fmt);
    ossa__warnv(L->model, code, (uint64_t)((at ? at : L->lx.p) - L->lx.data), line, column, fmt,
                ap);
    va_end(ap);
}
