/* BVH tokens (docs/formats/bvh.md §1): blanks and line ends separate them;
 * '{' and '}' are tokens even when written against a word ("Hips{"), as
 * some exporters write them. Lines matter only for locating messages and
 * for frames and names (motion.c, read.c). */
#include "formats/bvh/bvh.h"

#include <stdio.h>

void ossa__bvh_lex_init(bvh_lex *lx, const unsigned char *data, size_t size)
{
    lx->data = lx->p = lx->line_start = (const char *)data;
    lx->end = (const char *)data + size;
    lx->line = 1;
}

bool ossa__bvh_skip_blanks(bvh_lex *lx)
{
    const char *p = lx->p, *end = lx->end;
    /* A CR ends a line only when alone (old Mac files); before an LF it is
     * a blank of the line that the LF ends. */
    while (p < end && ossa__text_blank(*p) && !(*p == '\r' && (p + 1 == end || p[1] != '\n')))
        p++;
    lx->p = p;
    return p < end && *p != '\n' && *p != '\r';
}

bool ossa__bvh_skip_space(bvh_lex *lx)
{
    const char *p = lx->p, *end = lx->end;
    while (p < end) {
        char c = *p;
        if (c == '\n' || (c == '\r' && (p + 1 == end || p[1] != '\n'))) {
            lx->line++;
            lx->line_start = ++p;
        } else if (ossa__text_blank(c)) {
            p++;
        } else {
            break;
        }
    }
    lx->p = p;
    return p < end;
}

size_t ossa__bvh_token_len(const bvh_lex *lx)
{
    const char *p = lx->p, *end = lx->end;
    if (p >= end || *p == '\n' || ossa__text_blank(*p)) return 0;
    if (*p == '{' || *p == '}') return 1;
    while (p < end && *p != '\n' && !ossa__text_blank(*p) && *p != '{' && *p != '}') p++;
    return (size_t)(p - lx->p);
}

uint32_t ossa__bvh_column(const bvh_lex *lx, const char *at)
{
    return (uint32_t)(at - lx->line_start) + 1;
}

bool ossa__bvh_word_is(const char *p, size_t n, const char *word)
{
    size_t i = 0;
    for (; i < n && word[i]; i++) {
        char c = p[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        char w = word[i];
        if (w >= 'A' && w <= 'Z') w = (char)(w - 'A' + 'a');
        if (c != w) return false;
    }
    return i == n && !word[i];
}

ossa_status ossa__bvh_fail(bvh_doc *d, const char *at, bool found, const char *fmt, ...)
{
    bvh_lex *lx = &d->lx;
    char msg[200], tail[80] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (found) {
        const char *p = lx->p;
        lx->p = at;
        size_t n = ossa__bvh_token_len(lx);
        lx->p = p;
        ossa__lex_found(tail, sizeof tail, at, lx->end, n);
    }
    ossa_code kind = at >= lx->end ? OSSA_ERROR_TRUNCATED : OSSA_ERROR_CORRUPT;
    return ossa__fail_line(d->error, kind, lx->line, ossa__bvh_column(lx, at), "%s%s", msg, tail);
}

void ossa__bvh_warn(bvh_doc *d, ossa_code code, const char *at, const char *fmt, ...)
{
    bvh_lex *lx = &d->lx;
    va_list ap;
    va_start(ap, fmt);
    ossa__warnv(d->model, code, (uint64_t)(lx->line_start - lx->data), lx->line,
                ossa__bvh_column(lx, at), fmt, ap);
    va_end(ap);
}
