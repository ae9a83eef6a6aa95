/* The line lexer of text/text.h: tokens, numbers and located errors for
 * the line-oriented text formats. */
#include "text/text.h"

#include <stdio.h>

void ossa__lex_init(ossa_lexer *lx, const unsigned char *data, size_t size, const char *comment,
                    const char *delims, ossa_error *error)
{
    lx->data = (const char *)data;
    lx->end = lx->data + size;
    lx->line_start = lx->p = lx->data;
    lx->line = 1;
    lx->comment = comment;
    lx->delims = delims ? delims : "";
    lx->error = error;
    lx->block_comments = false;
}

/* Called for every byte of every token: formats without delimiters
 * (SMD, OBJ) skip the search. */
static bool is_delim(const ossa_lexer *lx, char c)
{
    return lx->delims[0] && c && strchr(lx->delims, c) != NULL;
}

static bool at_comment(const ossa_lexer *lx, const char *p)
{
    if (!lx->comment) return false;
    size_t n = strlen(lx->comment);
    return (size_t)(lx->end - p) >= n && memcmp(p, lx->comment, n) == 0;
}

bool ossa__lex_more(ossa_lexer *lx)
{
    const char *p = lx->p;
    while (p < lx->end && ossa__text_blank(*p)) p++;
    lx->p = p;
    return p < lx->end && *p != '\n' && !at_comment(lx, p);
}

bool ossa__lex_next_line(ossa_lexer *lx)
{
    const char *nl = lx->p < lx->end ? memchr(lx->p, '\n', (size_t)(lx->end - lx->p)) : NULL;
    if (!nl) {
        lx->p = lx->end;
        return false;
    }
    lx->p = lx->line_start = nl + 1;
    lx->line++;
    return lx->p < lx->end;
}

bool ossa__lex_skip_empty(ossa_lexer *lx)
{
    for (;;) {
        if (ossa__lex_more(lx)) return true;
        if (!ossa__lex_next_line(lx)) return false;
    }
}

int ossa__lex_skip_space(ossa_lexer *lx)
{
    const char *p = lx->p, *end = lx->end;
    size_t clen = lx->comment ? strlen(lx->comment) : 0;
    while (p < end) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\v' || c == '\f') {
            p++;
        } else if (c == '\n' || c == '\r') {
            /* CRLF is one break: its LF counts it */
            p++;
            if (c == '\r' && p < end && *p == '\n') continue;
            lx->line++;
            lx->line_start = p;
        } else if (clen && (size_t)(end - p) >= clen && memcmp(p, lx->comment, clen) == 0) {
            while (p < end && *p != '\n' && *p != '\r') p++;
        } else if (lx->block_comments && c == '/' && end - p >= 2 && p[1] == '*') {
            const char *open = p, *open_line = lx->line_start;
            uint32_t line = lx->line;
            for (p += 2;; p++) {
                if (p >= end) {
                    lx->p = open;
                    lx->line = line;
                    lx->line_start = open_line;
                    ossa__fail_line(lx->error, OSSA_ERROR_TRUNCATED, line,
                                    ossa__lex_column(lx, open),
                                    "the comment opened here does not end ('*/' expected)");
                    return -1;
                }
                if (*p == '*' && end - p >= 2 && p[1] == '/') {
                    p += 2;
                    break;
                }
                if (*p == '\n' || (*p == '\r' && (end - p < 2 || p[1] != '\n'))) {
                    lx->line++;
                    lx->line_start = p + 1;
                }
            }
        } else {
            break;
        }
    }
    lx->p = p;
    return p < end;
}

size_t ossa__lex_token_len(ossa_lexer *lx)
{
    if (!ossa__lex_more(lx)) return 0;
    const char *p = lx->p;
    if (is_delim(lx, *p)) return 1;
    while (p < lx->end && !ossa__text_blank(*p) && *p != '\n' && !is_delim(lx, *p)) p++;
    return (size_t)(p - lx->p);
}

bool ossa__lex_accept(ossa_lexer *lx, const char *word)
{
    size_t n = ossa__lex_token_len(lx);
    if (n == 0 || n != strlen(word) || memcmp(lx->p, word, n) != 0) return false;
    lx->p += n;
    return true;
}

uint32_t ossa__lex_column(const ossa_lexer *lx, const char *at)
{
    return (uint32_t)(at - lx->line_start) + 1;
}

void ossa__lex_found(char *out, size_t cap, const char *at, const char *end, size_t n)
{
    if (at >= end)
        snprintf(out, cap, ", found the end of the file");
    else if (n == 0)
        snprintf(out, cap, ", found the end of the line");
    else
        snprintf(out, cap, ", found '%.*s'", (int)(n > 40 ? 40 : n), at);
}

ossa_status ossa__lex_fail(ossa_lexer *lx, const char *at, bool found, const char *fmt, ...)
{
    char msg[200], tail[80] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (found) {
        const char *p = lx->p;
        lx->p = at;
        size_t n = ossa__lex_token_len(lx);
        lx->p = p;
        ossa__lex_found(tail, sizeof tail, at, lx->end, n);
    }
    ossa_code kind = at >= lx->end ? OSSA_ERROR_TRUNCATED : OSSA_ERROR_CORRUPT;
    return ossa__fail_line(lx->error, kind, lx->line, ossa__lex_column(lx, at), "%s%s", msg, tail);
}

ossa_status ossa__lex_expect(ossa_lexer *lx, const char *word, const char *context)
{
    if (ossa__lex_accept(lx, word)) return OSSA_OK;
    ossa__lex_more(lx);
    return ossa__lex_fail(lx, lx->p, true, "expected '%s'%s%s", word, *context ? " " : "",
                          context);
}

ossa_status ossa__lex_float(ossa_lexer *lx, float *out, const char *what)
{
    size_t n = ossa__lex_token_len(lx);
    const char *q = n ? ossa__text_parse_float(lx->p, lx->p + n, out) : NULL;
    if (!q) return ossa__lex_fail(lx, lx->p, true, "expected %s", what);
    lx->p = q;
    return OSSA_OK;
}

ossa_status ossa__lex_int(ossa_lexer *lx, int64_t *out, int64_t min, int64_t max, const char *what)
{
    size_t n = ossa__lex_token_len(lx);
    const char *at = lx->p;
    const char *q = n ? ossa__text_parse_int(at, at + n, out) : NULL;
    if (!q) return ossa__lex_fail(lx, at, true, "expected %s (an integer)", what);
    if (*out < min || *out > max)
        return ossa__lex_fail(lx, at, false, "%s %lld is out of range (%lld to %lld)", what,
                              (long long)*out, (long long)min, (long long)max);
    lx->p = q;
    return OSSA_OK;
}

ossa_status ossa__lex_string(ossa_lexer *lx, const char **s, size_t *len, const char *what)
{
    size_t n = ossa__lex_token_len(lx);
    if (n == 0) return ossa__lex_fail(lx, lx->p, true, "expected %s", what);
    const char *p = lx->p;
    if (*p != '"') {
        *s = p;
        *len = n;
        lx->p = p + n;
        return OSSA_OK;
    }
    const char *start = ++p;
    while (p < lx->end && *p != '"' && *p != '\n') p++;
    const char *e = p;
    if (p < lx->end && *p == '"') p++;
    else if (e > start && e[-1] == '\r') e--; /* unterminated: up to the line end */
    *s = start;
    *len = (size_t)(e - start);
    lx->p = p;
    return OSSA_OK;
}

void ossa__lex_rest(ossa_lexer *lx, const char **s, size_t *len)
{
    ossa__lex_more(lx);
    const char *p = lx->p, *e = p;
    while (e < lx->end && *e != '\n') e++;
    lx->p = e;
    while (e > p && (ossa__text_blank(e[-1]))) e--;
    *s = p;
    *len = (size_t)(e - p);
}
