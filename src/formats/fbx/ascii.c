/* ASCII FBX (fbx.md §3) into the node tree the binary reader builds:
 * `Name: value, value, ... { children }`, `;` comments, `*N { a: ... }`
 * arrays mapped to one array value. Errors name line:column. Numbers go
 * through text/ (integers exactly as int64, reals as doubles, never
 * through the C locale). */
#include "formats/fbx/fbx.h"

#include <stdio.h>
#include <stdlib.h>
#include "text/text.h"

#include <math.h>

bool ossa__fbx_sniff_ascii(const unsigned char *data, size_t size)
{
    size_t i = 0;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) i = 3;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    if (i == size) return false;
    if (data[i] == ';') {
        /* A comment: FBX's own first line names it; other text formats
         * start with other comment characters. */
        static const char tag[] = "; FBX ";
        return size - i >= sizeof tag - 1 && memcmp(data + i, tag, sizeof tag - 1) == 0;
    }
    size_t start = i;
    while (i < size && (data[i] == '_' || (data[i] >= 'a' && data[i] <= 'z') ||
                        (data[i] >= 'A' && data[i] <= 'Z') || (data[i] >= '0' && data[i] <= '9')))
        i++;
    if (i == start || i - start > 64) return false;
    while (i < size && (data[i] == ' ' || data[i] == '\t')) i++;
    if (i >= size || data[i] != ':') return false;
    /* Only FBX's own first records: other "name:" texts are not FBX. */
    return (i - start >= 18 && memcmp(data + start, "FBXHeaderExtension", 18) == 0);
}

typedef struct lexer {
    fbx_doc *doc;
    const char *p, *end, *line_start;
    uint32_t line;
} lexer;

static uint32_t column_of(const lexer *lx, const char *at)
{
    return (uint32_t)(at - lx->line_start) + 1;
}

static ossa_status fail_at(lexer *lx, const char *at, const char *fmt, ...) OSSA_PRINTF(3, 4);
static ossa_status fail_at(lexer *lx, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(lx->doc->error, at == lx->end ? OSSA_ERROR_TRUNCATED : OSSA_ERROR_CORRUPT,
                OSSA_NO_OFFSET, lx->line, column_of(lx, at), fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

/* Skips blanks, line breaks and comments. */
static void skip(lexer *lx)
{
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == '\n') {
            lx->p++;
            lx->line++;
            lx->line_start = lx->p;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
        } else if (c == ';') {
            while (lx->p < lx->end && *lx->p != '\n') lx->p++;
        } else {
            break;
        }
    }
}

static bool word_char(char c)
{
    return c == '_' || c == '-' || c == '(' || c == ')' || c == '|' || c == '.' || c == '+' ||
           c == '#' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (unsigned char)c >= 0x80;
}

/* End of the bare token at p. */
static const char *token_end(const lexer *lx, const char *p)
{
    while (p < lx->end && word_char(*p)) p++;
    return p;
}

/* True when the bare word at lx->p is followed (after blanks) by ':'. */
static bool is_name(const lexer *lx)
{
    const char *q = token_end(lx, lx->p);
    if (q == lx->p) return false;
    while (q < lx->end && (*q == ' ' || *q == '\t')) q++;
    return q < lx->end && *q == ':';
}

/* A growable list of values in the scratch memory. */
typedef struct vlist {
    fbx_value *v;
    size_t n, cap;
} vlist;

static fbx_value *vlist_push(lexer *lx, vlist *l)
{
    if (l->n == l->cap) {
        fbx_value *nv = ossa__arena_grow(&lx->doc->scratch, l->v, l->n, &l->cap, sizeof *nv);
        if (!nv) {
            ossa__fail_nomem(lx->doc->error);
            return NULL;
        }
        l->v = nv;
    }
    fbx_value *v = &l->v[l->n++];
    memset(v, 0, sizeof *v);
    return v;
}

/* One number token at lx->p into v ('L' or 'D'). */
static ossa_status number(lexer *lx, fbx_value *v)
{
    const char *s = lx->p, *e = token_end(lx, s);
    if (e == s) return fail_at(lx, s, "expected a number");
    int64_t i;
    double d;
    if (ossa__text_parse_int(s, e, &i) == e) {
        v->type = 'L';
        v->v.i = i;
    } else if (ossa__text_parse_double(s, e, &d) == e) {
        if (!isfinite(d))
            return fail_at(lx, s, "number '%.*s' is not finite", (int)(e - s > 40 ? 40 : e - s), s);
        v->type = 'D';
        v->v.d = d;
    } else {
        return fail_at(lx, s, "expected a number, found '%.*s'", (int)(e - s > 40 ? 40 : e - s), s);
    }
    lx->p = e;
    return OSSA_OK;
}

static void put64(unsigned char *p, uint64_t u)
{
    ossa__wr32(p, (uint32_t)u);
    ossa__wr32(p + 4, (uint32_t)(u >> 32));
}

/* `*N { a: v, v, ... }` after the marker: the array's values. */
static ossa_status array_block(lexer *lx, fbx_value *out, int64_t declared)
{
    lx->p++; /* '{' */
    skip(lx);
    size_t cap = 0, n = 0;
    unsigned char *data = NULL;
    bool all_int = true;
    if (lx->p < lx->end && *lx->p != '}') {
        const char *name = lx->p, *ne = token_end(lx, name);
        if (!(ne - name == 1 && *name == 'a') || !is_name(lx))
            return fail_at(lx, name, "expected 'a:' inside the array block");
        lx->p = ne;
        while (*lx->p != ':') lx->p++;
        lx->p++;
        for (;;) {
            skip(lx);
            if (lx->p >= lx->end) return fail_at(lx, lx->p, "array block not closed by '}'");
            if (*lx->p == '}') break;
            fbx_value v;
            memset(&v, 0, sizeof v);
            if (number(lx, &v)) return OSSA_FAILED;
            if (n == cap) {
                unsigned char *nd = ossa__arena_grow(&lx->doc->scratch, data, n, &cap, 8);
                if (!nd) return ossa__fail_nomem(lx->doc->error);
                data = nd;
            }
            if (v.type == 'D' && all_int) {
                /* From now on every element is a double. */
                for (size_t k = 0; k < n; k++) {
                    int64_t iv = (int64_t)(ossa__rd32(data + 8 * k) |
                                           ((uint64_t)ossa__rd32(data + 8 * k + 4) << 32));
                    double dv = (double)iv;
                    uint64_t u;
                    memcpy(&u, &dv, 8);
                    put64(data + 8 * k, u);
                }
                all_int = false;
            }
            uint64_t u;
            if (all_int) {
                u = (uint64_t)v.v.i;
            } else {
                double dv = v.type == 'L' ? (double)v.v.i : v.v.d;
                memcpy(&u, &dv, 8);
            }
            put64(data + 8 * n, u);
            n++;
            skip(lx);
            if (lx->p < lx->end && *lx->p == ',') {
                lx->p++;
                continue;
            }
            skip(lx);
            if (lx->p >= lx->end || *lx->p != '}')
                return fail_at(lx, lx->p, "expected ',' or '}' in the array block");
        }
    }
    skip(lx);
    if (lx->p >= lx->end || *lx->p != '}') return fail_at(lx, lx->p, "array block not closed by '}'");
    lx->p++;
    if ((int64_t)n != declared)
        return ossa__fail_line(lx->doc->error, OSSA_ERROR_CORRUPT, out->line, out->column,
                               "array declares *%lld elements but holds %zu", (long long)declared, n);
    out->type = all_int ? 'l' : 'd';
    out->count = (uint32_t)n;
    out->v.data = data ? data : (const void *)"";
    return OSSA_OK;
}

static ossa_status node_list(lexer *lx, fbx_node *parent, int depth, bool braced);

/* The values after `name:` and an optional child block. */
static ossa_status values(lexer *lx, fbx_node *node, int depth)
{
    vlist l = {0};
    bool need_sep = false;
    for (;;) {
        skip(lx);
        if (lx->p >= lx->end) break;
        char c = *lx->p;
        if (c == '{') {
            lx->p++;
            if (node_list(lx, node, depth + 1, true)) return OSSA_FAILED;
            break;
        }
        if (c == '}') break;
        if (c == ',') {
            if (!need_sep && l.n) return fail_at(lx, lx->p, "expected a value before ','");
            lx->p++;
            need_sep = false;
            continue;
        }
        if (c != '"' && c != '*' && is_name(lx)) break; /* the next record */
        if (need_sep) return fail_at(lx, lx->p, "expected ',' between values");
        fbx_value *v = vlist_push(lx, &l);
        if (!v) return OSSA_FAILED;
        v->line = lx->line;
        v->column = column_of(lx, lx->p);
        if (c == '"') {
            const char *s = ++lx->p;
            while (lx->p < lx->end && *lx->p != '"') {
                if (*lx->p == '\n') {
                    lx->line++;
                    lx->line_start = lx->p + 1;
                }
                lx->p++;
            }
            if (lx->p >= lx->end) {
                lx->line = v->line;
                return ossa__fail_line(lx->doc->error, OSSA_ERROR_TRUNCATED, v->line, v->column,
                                       "unterminated string");
            }
            v->type = 'S';
            v->v.s = s;
            v->count = (uint32_t)(lx->p - s);
            lx->p++;
        } else if (c == '*') {
            const char *marker = lx->p;
            lx->p++;
            const char *e = token_end(lx, lx->p);
            int64_t n;
            if (ossa__text_parse_int(lx->p, e, &n) != e || n < 0 || n > 0xffffffffLL)
                return fail_at(lx, marker, "expected an element count after '*'");
            lx->p = e;
            skip(lx);
            if (lx->p >= lx->end || *lx->p != '{')
                return fail_at(lx, lx->p, "expected '{' after the array marker *%lld", (long long)n);
            if (array_block(lx, v, n)) return OSSA_FAILED;
            need_sep = false;
            /* An array is the record's whole content. */
            skip(lx);
            break;
        } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
            if (number(lx, v)) return OSSA_FAILED;
        } else if (word_char(c)) {
            const char *e = token_end(lx, lx->p);
            v->type = 'S';
            v->v.s = lx->p;
            v->count = (uint32_t)(e - lx->p);
            lx->p = e;
        } else {
            return fail_at(lx, lx->p, "unexpected character '%c'", c);
        }
        need_sep = true;
    }
    node->values = l.v;
    node->num_values = (uint32_t)l.n;
    return OSSA_OK;
}

static ossa_status node_list(lexer *lx, fbx_node *parent, int depth, bool braced)
{
    if (depth > FBX_MAX_DEPTH)
        return fail_at(lx, lx->p, "records nested deeper than %d", FBX_MAX_DEPTH);
    fbx_node **tail = &parent->first_child;
    for (;;) {
        skip(lx);
        if (lx->p >= lx->end) {
            if (braced)
                return ossa__fail_line(lx->doc->error, OSSA_ERROR_TRUNCATED, parent->line,
                                       parent->column, "'{' of '%.*s' is never closed",
                                       (int)parent->name_len, parent->name);
            return OSSA_OK;
        }
        if (*lx->p == '}') {
            if (!braced) return fail_at(lx, lx->p, "'}' without a matching '{'");
            lx->p++;
            return OSSA_OK;
        }
        if (!is_name(lx)) return fail_at(lx, lx->p, "expected a record name followed by ':'");
        fbx_node *node = ossa__fbx_alloc(lx->doc, 1, sizeof *node);
        if (!node) return OSSA_FAILED;
        node->name = lx->p;
        lx->p = token_end(lx, lx->p);
        node->name_len = (uint32_t)(lx->p - node->name);
        node->line = lx->line;
        node->column = column_of(lx, node->name);
        while (*lx->p != ':') lx->p++;
        lx->p++;
        *tail = node;
        tail = &node->next;
        if (values(lx, node, depth)) return OSSA_FAILED;
    }
}

ossa_status ossa__fbx_parse_ascii(fbx_doc *doc, const unsigned char *data, size_t size)
{
    lexer lx = {doc, (const char *)data, (const char *)data + size, (const char *)data, 1};
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) lx.p += 3;
    doc->ascii = true;
    doc->root.line = 1;
    doc->root.column = 1;
    if (node_list(&lx, &doc->root, 1, false)) return OSSA_FAILED;
    const fbx_node *h = ossa__fbx_child(&doc->root, "FBXHeaderExtension");
    const fbx_node *v = ossa__fbx_child(h, "FBXVersion");
    if (!v || v->num_values < 1 || v->values[0].type != 'L')
        return ossa__fail_line(doc->error, OSSA_ERROR_FORMAT, h ? h->line : 1, h ? h->column : 1,
                               "ASCII FBX without FBXHeaderExtension/FBXVersion");
    doc->version = v->values[0].v.i < 0 || v->values[0].v.i > 100000 ? 0 : (uint32_t)v->values[0].v.i;
    return OSSA_OK;
}
