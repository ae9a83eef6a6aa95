/* OBJ text pass (docs/formats/obj.md §1-§5, §8, §9): the text prepared
 * (UTF-16 with a byte order mark converted, a UTF-8 mark skipped, lone CR
 * line ends and `\` continuations joined), then one pass over the
 * statements into raw lists.
 *
 * Every error and warning is located by its byte offset in the prepared
 * text and reported at the line and column of the file as written (a
 * continuation joins two lines into one statement but each keeps its
 * number). */
#include "formats/obj/obj.h"

#include <math.h>
#include <stdio.h>

/* One-time warnings (obj_doc.warned bits). */
enum {
    WARNED_W = 1,
    WARNED_ALPHA = 2,
    WARNED_LINES = 4,
    WARNED_FREEFORM = 8,
    WARNED_CALL = 16,
    WARNED_KEYWORDS = 32 /* the limit of distinct unknown keywords reached */
};

#define MAX_KEYWORD_WARNINGS 32

/* -- Locations -- */

void ossa__obj_locate(const obj_doc *d, uint64_t at, uint32_t *line, uint32_t *column)
{
    if (at > d->size) at = d->size;
    uint64_t lines = 1, start = 0;
    /* memchr: the warnings of a large file each count its lines */
    for (const char *p = d->text, *end = d->text + at;
         (p = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL) != NULL; p++) {
        lines++;
        start = (uint64_t)(p - d->text) + 1;
    }
    const uint64_t *joins = (const uint64_t *)d->joins.data;
    for (size_t i = 0; i < d->joins.count && joins[i] < at; i++) {
        lines++;
        if (joins[i] + 1 > start) start = joins[i] + 1;
    }
    *line = lines > UINT32_MAX ? UINT32_MAX : (uint32_t)lines;
    *column = at - start + 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(at - start + 1);
}

ossa_status ossa__obj_fail_at(const obj_doc *d, ossa_code code, uint64_t at, const char *fmt, ...)
{
    uint32_t line, column;
    ossa__obj_locate(d, at, &line, &column);
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(d->error, code, OSSA_NO_OFFSET, line, column, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

void ossa__obj_warn_at(const obj_doc *d, ossa_code code, uint64_t at, const char *fmt, ...)
{
    uint32_t line, column;
    ossa__obj_locate(d, at, &line, &column);
    va_list ap;
    va_start(ap, fmt);
    ossa__warnv(d->model, code, at - (column - 1), line, column, fmt, ap);
    va_end(ap);
}

static uint64_t offset_of(const obj_doc *d, const char *p) { return (uint64_t)(p - d->text); }

/* -- Preparing the text (§1) -- */

/* UTF-16 with a byte order mark, to UTF-8. */
static ossa_status from_utf16(obj_doc *d, const unsigned char *data, size_t size)
{
    bool big = data[0] == 0xFE;
    size_t units = (size - 2) / 2;
    if (units > (SIZE_MAX - 1) / 3) return ossa__fail_nomem(d->error);
    d->copy = ossa__temp_alloc(d->model, units * 3 + 1);
    if (!d->copy) return ossa__fail_nomem(d->error);
    size_t n = 0;
    for (size_t i = 0; i < units; i++) {
        const unsigned char *u = data + 2 + i * 2;
        uint32_t c = big ? (uint32_t)(u[0] << 8 | u[1]) : (uint32_t)(u[1] << 8 | u[0]);
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < units) {
            const unsigned char *u2 = u + 2;
            uint32_t c2 = big ? (uint32_t)(u2[0] << 8 | u2[1]) : (uint32_t)(u2[1] << 8 | u2[0]);
            if (c2 >= 0xDC00 && c2 < 0xE000) {
                c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00);
                i++;
            }
        }
        if (c >= 0xD800 && c < 0xE000)
            return ossa__fail(d->error, OSSA_ERROR_FORMAT, 2 + i * 2,
                              "an unpaired UTF-16 surrogate: not a text OBJ file");
        /* 4 bytes only for pairs, which took 4 bytes of input */
        if (c < 0x80) {
            d->copy[n++] = (unsigned char)c;
        } else if (c < 0x800) {
            d->copy[n++] = (unsigned char)(0xC0 | c >> 6);
            d->copy[n++] = (unsigned char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            d->copy[n++] = (unsigned char)(0xE0 | c >> 12);
            d->copy[n++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            d->copy[n++] = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            d->copy[n++] = (unsigned char)(0xF0 | c >> 18);
            d->copy[n++] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
            d->copy[n++] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
            d->copy[n++] = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    d->text = (const char *)d->copy;
    d->size = n;
    return OSSA_OK;
}

/* Lone CRs become LFs; a `\` that ends a line which is not a comment
 * joins the next line to it (both become blanks, the newline's offset is
 * kept for locations). Bytes keep their offsets. */
static ossa_status join_lines(obj_doc *d)
{
    const char *t = d->text;
    size_t size = d->size;
    bool lone_cr = false, join = false;
    for (size_t i = 0; i < size && !(lone_cr && join); i++) {
        if (t[i] == '\r' && (i + 1 == size || t[i + 1] != '\n')) lone_cr = true;
        if (t[i] == '\\') join = true;
    }
    if (!lone_cr && !join) return OSSA_OK;
    if (!d->copy) {
        d->copy = ossa__temp_alloc(d->model, size + 1);
        if (!d->copy) return ossa__fail_nomem(d->error);
        memcpy(d->copy, t, size);
        d->text = (const char *)d->copy;
    }
    char *c = (char *)d->copy;
    for (size_t i = 0; i < size; i++)
        if (c[i] == '\r' && (i + 1 == size || c[i + 1] != '\n')) c[i] = '\n';
    size_t line = 0;
    bool comment = false, first = true;
    for (size_t i = 0; i < size; i++) {
        if (first && !ossa__text_blank(c[i])) {
            comment = c[i] == '#';
            first = false;
        }
        if (c[i] != '\n') continue;
        size_t e = i;
        if (e > line && c[e - 1] == '\r') e--;
        if (!comment && e > line && c[e - 1] == '\\') {
            uint64_t *j = ossa__list_push(d->model, &d->joins, sizeof *j);
            if (!j) return ossa__fail_nomem(d->error);
            *j = i;
            for (size_t k = e - 1; k <= i; k++) c[k] = ' ';
            continue; /* the statement goes on: same line for `first` */
        }
        line = i + 1;
        comment = false;
        first = true;
    }
    return OSSA_OK;
}

static ossa_status prepare(obj_doc *d, const unsigned char *data, size_t size)
{
    d->text = (const char *)data;
    d->size = size;
    if (size >= 2 && ((data[0] == 0xFE && data[1] == 0xFF) || (data[0] == 0xFF && data[1] == 0xFE))) {
        if (from_utf16(d, data, size)) return OSSA_FAILED;
        ossa__warn(d->model, OSSA_WARNING_NONSTANDARD, 0, 1, 1,
                   "a UTF-16 file: read as UTF-8 text");
    } else if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) {
        d->text += 3;
        d->size -= 3;
    }
    const char *nul = d->size ? memchr(d->text, 0, d->size) : NULL;
    if (nul)
        return ossa__obj_fail_at(d, OSSA_ERROR_FORMAT, offset_of(d, nul),
                                 "a NUL byte: not a text OBJ file");
    return join_lines(d);
}

/* -- Tokens -- */

/* Whether a token follows on the line (a `#` starting a token ends it). */
static bool more(obj_doc *d) { return ossa__lex_more(&d->lx); }

static ossa_status fail_here(obj_doc *d, const char *at, bool found, const char *fmt, ...)
    OSSA_PRINTF(4, 5);
static ossa_status fail_here(obj_doc *d, const char *at, bool found, const char *fmt, ...)
{
    char msg[200], tail[80] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (found) {
        const char *p = d->lx.p;
        d->lx.p = at;
        size_t n = more(d) ? ossa__lex_token_len(&d->lx) : 0;
        d->lx.p = p;
        if (n)
            snprintf(tail, sizeof tail, ", found '%.*s'", (int)(n > 40 ? 40 : n), at);
        else
            snprintf(tail, sizeof tail, ", found the end of the line");
    }
    ossa_code code = at >= d->lx.end ? OSSA_ERROR_TRUNCATED : OSSA_ERROR_CORRUPT;
    return ossa__obj_fail_at(d, code, offset_of(d, at), "%s%s", msg, tail);
}

/* The number at the cursor: the longest prefix of the token that is one
 * (§1: "3.1+e2" reads as 3.1, counted for a warning); a token without
 * digits, and a value that is not finite, are errors. */
static ossa_status number(obj_doc *d, float *out, const char *what)
{
    ossa_lexer *lx = &d->lx;
    const char *p = lx->p;
    size_t n = ossa__lex_token_len(lx);
    const char *e = p, *end = p + n;
    if (e < end && (*e == '+' || *e == '-')) e++;
    size_t digits = 0;
    while (e < end && *e >= '0' && *e <= '9') e++, digits++;
    if (e < end && *e == '.') {
        e++;
        while (e < end && *e >= '0' && *e <= '9') e++, digits++;
    }
    if (digits && e < end && (*e == 'e' || *e == 'E')) {
        const char *x = e + 1;
        if (x < end && (*x == '+' || *x == '-')) x++;
        if (x < end && *x >= '0' && *x <= '9') {
            while (x < end && *x >= '0' && *x <= '9') x++;
            e = x;
        }
    }
    if (!digits) {
        /* inf, nan and their kin parse, and are refused below */
        if (!ossa__text_parse_float(p, end, out)) return fail_here(d, p, true, "expected %s", what);
        e = end;
    } else if (!ossa__text_parse_float(p, e, out)) {
        return fail_here(d, p, true, "expected %s", what);
    }
    if (!isfinite(*out)) return fail_here(d, p, false, "%s is not a finite number", what);
    if (e < end && !d->bad_numbers++) d->first_bad_number = offset_of(d, p);
    lx->p = end;
    return OSSA_OK;
}

/* Up to `max` numbers to the end of the line; returns how many in *n. */
static ossa_status numbers(obj_doc *d, float *v, int max, int *n, const char *what)
{
    *n = 0;
    while (more(d)) {
        if (*n == max) return fail_here(d, d->lx.p, true, "expected the end of the line");
        if (number(d, &v[*n], what)) return OSSA_FAILED;
        (*n)++;
    }
    return OSSA_OK;
}

/* The tokens to the end of the line (a comment excluded), as written
 * between the first and the last. */
static void rest(obj_doc *d, const char **s, size_t *len)
{
    ossa_lexer *lx = &d->lx;
    *s = lx->p;
    *len = 0;
    while (more(d)) {
        const char *start = lx->p;
        if (!*len) *s = start;
        lx->p += ossa__lex_token_len(lx);
        *len = (size_t)(lx->p - *s);
    }
}

static ossa_status set_string(obj_doc *d, char **slot, const char *s, size_t len)
{
    char *copy = ossa__temp_alloc(d->model, len + 1);
    if (!copy) return ossa__fail_nomem(d->error);
    memcpy(copy, s, len);
    copy[len] = 0;
    ossa__temp_free(d->model, *slot);
    *slot = copy;
    d->mesh = -1;
    return OSSA_OK;
}

/* -- Statements -- */

static ossa_status read_v(obj_doc *d, const char *kw)
{
    float v[8];
    int n;
    obj_vertex *vx = ossa__list_push(d->model, &d->vertices, sizeof *vx);
    if (!vx) return ossa__fail_nomem(d->error);
    if (numbers(d, v, 8, &n, "a number after 'v'")) return OSSA_FAILED;
    if (n < 3)
        return fail_here(d, d->lx.p, true, "expected %d more numbers after 'v' (x y z)", 3 - n);
    if (n == 5 || n == 8)
        return fail_here(d, kw, false,
                         "'v' takes 3 numbers (x y z), 4 (x y z w), 6 (x y z r g b) or 7 (x y z "
                         "r g b a), found %s",
                         n == 5 ? "5" : "more than 7");
    memcpy(vx->p, v, sizeof vx->p);
    if (n == 4 && v[3] != 1 && !(d->warned & WARNED_W)) {
        d->warned |= WARNED_W;
        ossa__obj_warn_at(d, OSSA_WARNING_IGNORED, offset_of(d, kw),
                          "a 'v' weight w other than 1 (rational curves) is ignored");
    }
    if (n >= 6) {
        vx->has_color = true;
        vx->c[0] = v[3];
        vx->c[1] = v[4];
        vx->c[2] = v[5];
        vx->c[3] = n == 7 ? v[6] : 1;
        if (n == 7 && !(d->warned & WARNED_ALPHA)) {
            d->warned |= WARNED_ALPHA;
            ossa__obj_warn_at(d, OSSA_WARNING_NONSTANDARD, offset_of(d, kw),
                              "'v' with 7 numbers: the 7th is read as the colour's alpha");
        }
    }
    return OSSA_OK;
}

static ossa_status read_vt(obj_doc *d)
{
    float v[3] = {0, 0, 0};
    int n;
    float *t = ossa__list_push(d->model, &d->texcoords, 2 * sizeof *t);
    if (!t) return ossa__fail_nomem(d->error);
    if (numbers(d, v, 3, &n, "a number after 'vt'")) return OSSA_FAILED;
    if (n == 0) return fail_here(d, d->lx.p, true, "expected a texture coordinate u after 'vt'");
    t[0] = v[0];
    t[1] = v[1];
    return OSSA_OK;
}

static ossa_status read_vn(obj_doc *d)
{
    float v[3];
    int n;
    float *nv = ossa__list_push(d->model, &d->normals, 3 * sizeof *nv);
    if (!nv) return ossa__fail_nomem(d->error);
    if (numbers(d, v, 3, &n, "a number after 'vn'")) return OSSA_FAILED;
    if (n < 3) return fail_here(d, d->lx.p, true, "expected %d more numbers after 'vn' (i j k)", 3 - n);
    memcpy(nv, v, 3 * sizeof *nv);
    return OSSA_OK;
}

/* One index of a corner: 1-based, or negative counting back from the
 * elements of its kind read so far (§3). */
static ossa_status corner_index(obj_doc *d, const char **pp, const char *end, size_t count,
                                const char *kind, uint32_t *out)
{
    const char *p = *pp, *q = p;
    if (q < end && (*q == '-' || *q == '+')) q++;
    while (q < end && *q >= '0' && *q <= '9') q++;
    int64_t i;
    if (q == p || !ossa__text_parse_int(p, q, &i))
        return fail_here(d, p, false, "expected a %s index (an integer) in the face corner", kind);
    if (i == 0) return fail_here(d, p, false, "%s index 0: OBJ indices start at 1", kind);
    if (i < 0) {
        if ((uint64_t)-(i + 1) >= count)
            return fail_here(d, p, false,
                             "%s index %lld counts back past the first %s (%zu read so far)", kind,
                             (long long)i, kind, count);
        *out = (uint32_t)(count - (uint64_t)-(i + 1) - 1);
    } else {
        /* checked against the final count once the file is read */
        *out = i > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)(i - 1);
    }
    *pp = q;
    return OSSA_OK;
}

static ossa_status current_mesh(obj_doc *d)
{
    if (d->mesh >= 0) return OSSA_OK;
    const char *name = d->group_since_object && d->group ? d->group : d->object ? d->object : "";
    const char *material = d->material ? d->material : "";
    size_t a = strlen(name), b = strlen(material);
    char *key = ossa__temp_alloc(d->model, a + b + 2);
    if (!key) return ossa__fail_nomem(d->error);
    memcpy(key, name, a);
    key[a] = '\n';
    memcpy(key + a + 1, material, b);
    d->mesh = ossa__intern(d->model, &d->meshes, key, a + b + 1);
    ossa__temp_free(d->model, key);
    return d->mesh < 0 ? ossa__fail_nomem(d->error) : OSSA_OK;
}

static ossa_status read_f(obj_doc *d, const char *kw)
{
    ossa_lexer *lx = &d->lx;
    if (current_mesh(d)) return OSSA_FAILED;
    size_t first = d->corners.count;
    while (more(d)) {
        const char *p = lx->p, *end = p + ossa__lex_token_len(lx);
        if (d->corners.count >= UINT32_MAX - 1) return fail_here(d, p, false, "too many corners");
        obj_corner *c = ossa__list_push(d->model, &d->corners, sizeof *c);
        if (!c) return ossa__fail_nomem(d->error);
        c->at = offset_of(d, p);
        c->vt = c->vn = OBJ_NONE;
        if (corner_index(d, &p, end, d->vertices.count, "position", &c->v)) return OSSA_FAILED;
        if (p < end && *p == '/') {
            p++;
            if (p < end && *p != '/' &&
                corner_index(d, &p, end, d->texcoords.count, "texture coordinate", &c->vt))
                return OSSA_FAILED;
            if (p < end && *p == '/') {
                p++;
                if (corner_index(d, &p, end, d->normals.count, "normal", &c->vn))
                    return OSSA_FAILED;
            }
        }
        if (p != end)
            return fail_here(d, p, false,
                             "expected the end of the face corner (v, v/vt, v//vn or v/vt/vn)");
        lx->p = end;
    }
    size_t count = d->corners.count - first;
    if (count < 3) {
        /* §11: skipped with a warning */
        if (!d->short_faces++)
            ossa__obj_warn_at(d, OSSA_WARNING_IGNORED, offset_of(d, kw),
                              "a face with fewer than 3 corners is skipped");
        d->corners.count = first;
        return OSSA_OK;
    }
    obj_face *f = ossa__list_push(d->model, &d->faces, sizeof *f);
    if (!f) return ossa__fail_nomem(d->error);
    f->first = (uint32_t)first;
    f->count = (uint32_t)count;
    f->mesh = (uint32_t)d->mesh;
    f->smooth = d->smooth;
    f->at = offset_of(d, kw);
    return OSSA_OK;
}

static ossa_status read_g(obj_doc *d)
{
    const char *s;
    size_t len;
    ossa_lexer *lx = &d->lx;
    /* the names joined by one blank, whatever separates them */
    char *joined = ossa__temp_alloc(d->model, (size_t)(lx->end - lx->p) + 8);
    if (!joined) return ossa__fail_nomem(d->error);
    size_t n = 0;
    while (more(d)) {
        s = lx->p;
        len = ossa__lex_token_len(lx);
        if (n) joined[n++] = ' ';
        memcpy(joined + n, s, len);
        n += len;
        lx->p += len;
    }
    if (!n) {
        memcpy(joined, "default", 7);
        n = 7;
    }
    ossa_status st = set_string(d, &d->group, joined, n);
    ossa__temp_free(d->model, joined);
    d->group_since_object = true;
    return st;
}

static ossa_status read_s(obj_doc *d)
{
    ossa_lexer *lx = &d->lx;
    if (!more(d)) return fail_here(d, lx->p, true, "expected a smoothing group number or 'off'");
    size_t n = ossa__lex_token_len(lx);
    const char *p = lx->p;
    if (n == 3 && memcmp(p, "off", 3) == 0) {
        d->smooth = 0;
    } else {
        const char *e = ossa__text_parse_int(p, p + n, &d->smooth);
        if (!e || d->smooth == OBJ_SMOOTH_UNSET)
            return fail_here(d, p, true, "expected a smoothing group number or 'off'");
    }
    lx->p = p + n;
    d->any_smooth = true;
    if (more(d)) return fail_here(d, lx->p, true, "expected the end of the line");
    return OSSA_OK;
}

static ossa_status read_mtllib(obj_doc *d)
{
    ossa_lexer *lx = &d->lx;
    /* The whole argument text too: a name may hold blanks (materials.c) */
    const char *start = more(d) ? lx->p : NULL;
    while (more(d)) {
        size_t n = ossa__lex_token_len(lx);
        size_t before = ossa__intern_count(&d->strings);
        int64_t id = ossa__intern(d->model, &d->strings, lx->p, n);
        if (id < 0) return ossa__fail_nomem(d->error);
        if ((size_t)id == before) {
            /* a new name: one line of the mtllib record */
            if (!ossa__list_reserve(d->model, &d->mtllib, d->mtllib.count + n + 1, 1))
                return ossa__fail_nomem(d->error);
            memcpy(d->mtllib.data + d->mtllib.count, lx->p, n);
            d->mtllib.data[d->mtllib.count + n] = '\n';
            d->mtllib.count += n + 1;
        }
        lx->p += n;
    }
    if (start) {
        obj_span *span = ossa__list_push(d->model, &d->mtllib_at, sizeof *span);
        if (!span) return ossa__fail_nomem(d->error);
        span->at = offset_of(d, start);
        span->len = (uint64_t)(lx->p - start);
    }
    return OSSA_OK;
}

static bool word_in(const char *p, size_t n, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == n && memcmp(*list, p, n) == 0) return true;
    return false;
}

static ossa_status skip_freeform(obj_doc *d, const char *kw, bool block)
{
    ossa_lexer *lx = &d->lx;
    if (!(d->warned & WARNED_FREEFORM)) {
        d->warned |= WARNED_FREEFORM;
        ossa__obj_warn_at(d, OSSA_WARNING_IGNORED, offset_of(d, kw),
                          "free-form geometry (curves and surfaces) is not supported: skipped");
    }
    if (!block) return OSSA_OK;
    /* cstype ... end */
    for (;;) {
        if (!ossa__lex_next_line(lx) || !ossa__lex_skip_empty(lx)) return OSSA_OK;
        size_t n = ossa__lex_token_len(lx);
        if (n == 3 && memcmp(lx->p, "end", 3) == 0) return OSSA_OK;
    }
}

static ossa_status unknown(obj_doc *d, const char *kw, size_t n)
{
    if (d->warned & WARNED_KEYWORDS) return OSSA_OK;
    /* one warning per keyword (§1), for a bounded number of keywords */
    char key[48];
    int len = snprintf(key, sizeof key, "?%.*s", (int)(n > 40 ? 40 : n), kw);
    size_t before = ossa__intern_count(&d->strings);
    int64_t id = ossa__intern(d->model, &d->strings, key, (size_t)len);
    if (id < 0) return ossa__fail_nomem(d->error);
    if ((size_t)id != before) return OSSA_OK;
    ossa__obj_warn_at(d, OSSA_WARNING_IGNORED, offset_of(d, kw),
                      "unknown statement '%.*s': ignored", (int)(n > 40 ? 40 : n), kw);
    if (++d->keyword_warnings >= MAX_KEYWORD_WARNINGS) d->warned |= WARNED_KEYWORDS;
    return OSSA_OK;
}

static ossa_status statement(obj_doc *d)
{
    static const char *const silent[] = {"vp",     "mg",        "bevel",    "c_interp",
                                         "d_interp", "lod",     "shadow_obj", "trace_obj",
                                         "ctech",  "stech",     "maplib",   "usemap",
                                         NULL};
    static const char *const freeform[] = {"deg",  "bmat", "step", "curv", "curv2", "surf", "parm",
                                           "trim", "hole", "scrv", "sp",   "con",   "end",  NULL};
    ossa_lexer *lx = &d->lx;
    const char *kw = lx->p;
    size_t n = ossa__lex_token_len(lx);
    lx->p += n;
#define IS(word) (n == sizeof word - 1 && memcmp(kw, word, n) == 0)
    ossa_status st = OSSA_OK;
    if (IS("v"))
        st = read_v(d, kw);
    else if (IS("vt"))
        st = read_vt(d);
    else if (IS("vn"))
        st = read_vn(d);
    else if (IS("f"))
        st = read_f(d, kw);
    else if (IS("g"))
        st = read_g(d);
    else if (IS("o") || IS("usemtl")) {
        const char *s;
        size_t len;
        rest(d, &s, &len);
        st = set_string(d, IS("o") ? &d->object : &d->material, s, len);
        if (IS("o")) d->group_since_object = false;
    } else if (IS("s"))
        st = read_s(d);
    else if (IS("mtllib"))
        st = read_mtllib(d);
    else if (IS("l") || IS("p")) {
        if (!(d->warned & WARNED_LINES)) {
            d->warned |= WARNED_LINES;
            ossa__obj_warn_at(d, OSSA_WARNING_IGNORED, offset_of(d, kw),
                              "lines ('l') and points ('p') are not supported: ignored");
        }
    } else if (IS("cstype"))
        st = skip_freeform(d, kw, true);
    else if (word_in(kw, n, freeform))
        st = skip_freeform(d, kw, false);
    else if (IS("call") || IS("csh")) {
        if (!(d->warned & WARNED_CALL)) {
            d->warned |= WARNED_CALL;
            ossa__obj_warn_at(d, OSSA_WARNING_IGNORED, offset_of(d, kw),
                              "'%.*s' (include a file, run a command) is never executed",
                              (int)n, kw);
        }
    } else if (!word_in(kw, n, silent))
        st = unknown(d, kw, n);
#undef IS
    if (!st) ossa__lex_next_line(lx);
    return st;
}

ossa_status ossa__obj_parse(obj_doc *d, ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    memset(d, 0, sizeof *d);
    d->model = model;
    d->options = options;
    d->blender_axes = ossa__option_choice(OSSA__OPTIONS(options), "obj.axes", OBJ_AXES) == 1;
    d->error = error;
    d->mesh = -1;
    d->smooth = OBJ_SMOOTH_UNSET;
    if (prepare(d, data, size)) return OSSA_FAILED;
    ossa_lexer *lx = &d->lx;
    ossa__lex_init(lx, (const unsigned char *)d->text, d->size, "#", "", error);
    while (ossa__lex_skip_empty(lx))
        if (statement(d)) return OSSA_FAILED;
    if (d->bad_numbers)
        ossa__obj_warn_at(d, OSSA_WARNING_REPAIRED, d->first_bad_number,
                          "%llu numbers have characters after them that are not part of a number: "
                          "the number before them is used",
                          (unsigned long long)d->bad_numbers);
    if (d->short_faces > 1)
        ossa__obj_warn_at(d, OSSA_WARNING_IGNORED, 0, "%llu faces with fewer than 3 corners skipped",
                          (unsigned long long)d->short_faces);
    return OSSA_OK;
}

void ossa__obj_doc_free(obj_doc *d)
{
    if (!d->model) return;
    ossa_model *m = d->model;
    ossa__temp_free(m, d->copy);
    ossa__list_free(m, &d->joins);
    ossa__list_free(m, &d->vertices);
    ossa__list_free(m, &d->texcoords);
    ossa__list_free(m, &d->normals);
    ossa__list_free(m, &d->corners);
    ossa__list_free(m, &d->faces);
    ossa__intern_free(m, &d->meshes);
    ossa__intern_free(m, &d->strings);
    ossa__list_free(m, &d->mtllib);
    ossa__list_free(m, &d->mtllib_at);
    ossa__temp_free(m, d->group);
    ossa__temp_free(m, d->object);
    ossa__temp_free(m, d->material);
    d->model = NULL;
}
