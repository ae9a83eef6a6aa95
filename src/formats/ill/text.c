/* illEngine ASCII readers: ILLMESH0 (layouts v0a and v0b), ILLSKEL0,
 * ILLANIM0 and ILLANIM1 (docs/formats/ill.md §2-§6).
 *
 * The engine read these files with C++ stream extraction: a token is a run
 * of non-whitespace, line breaks mean nothing, and whatever follows the last
 * expected token is ignored. Numbers use IQE's exact, locale-free parser
 * (text/number.c); infinities and NaN are refused (the format has none). */
#include "formats/ill/ill.h"
#include "text/text.h"

#include <math.h>
#include <stdio.h>

typedef struct lexer {
    const char *begin, *p, *end;
    uint32_t line;
    const char *line_start;
    const char *tok; /* the last token */
    size_t len;
    ill_loc at;
    ossa_model *model;
    const ossa_load_options *options;
    ossa_error *error;
} lexer;

static inline bool ws(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static ill_loc here(const lexer *lx, const char *p)
{
    ill_loc at = {OSSA_NO_OFFSET, lx->line, 0};
    size_t col = (size_t)(p - lx->line_start) + 1;
    at.column = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
    return at;
}

/* Moves to the next token; false at the end of the data. */
static bool next(lexer *lx)
{
    const char *p = lx->p, *end = lx->end;
    while (p < end && ws(*p)) {
        if (*p == '\n') {
            lx->line++;
            lx->line_start = p + 1;
        }
        p++;
    }
    lx->tok = p;
    lx->at = here(lx, p);
    while (p < end && !ws(*p)) p++;
    lx->len = (size_t)(p - lx->tok);
    lx->p = p;
    return lx->len > 0;
}

/* The last token for a message: at most 24 bytes, non-printable bytes as '?'. */
static const char *shown(const lexer *lx, char buf[32])
{
    size_t n = lx->len < 24 ? lx->len : 24, k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)lx->tok[i];
        buf[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    if (lx->len > n) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = 0;
    return buf;
}

static ossa_status need(lexer *lx, const char *what)
{
    if (next(lx)) return OSSA_OK;
    return ossa__ill_fail(lx->error, OSSA_ERROR_TRUNCATED, lx->at,
                          "the file ends where %s was expected", what);
}

static ossa_status bad(lexer *lx, const char *what)
{
    char buf[32];
    return ossa__ill_fail(lx->error, OSSA_ERROR_CORRUPT, lx->at, "expected %s, found '%s'", what,
                          shown(lx, buf));
}

static inline ossa_status read_float(lexer *lx, float *out, const char *what)
{
    if (!next(lx)) return need(lx, what);
    const char *end = lx->tok + lx->len;
    if (ossa__text_parse_float(lx->tok, end, out) != end || !isfinite(*out)) return bad(lx, what);
    return OSSA_OK;
}

static ossa_status read_int(lexer *lx, int64_t *out, int64_t lo, int64_t hi, const char *what)
{
    if (need(lx, what)) return OSSA_FAILED;
    const char *end = lx->tok + lx->len;
    if (ossa__text_parse_int(lx->tok, end, out) != end || *out < lo || *out > hi) {
        char buf[32], w[96];
        snprintf(w, sizeof w, "%s (a whole number from %lld to %lld)", what, (long long)lo,
                 (long long)hi);
        return ossa__ill_fail(lx->error, OSSA_ERROR_CORRUPT, lx->at, "expected %s, found '%s'", w,
                              shown(lx, buf));
    }
    return OSSA_OK;
}

static ossa_status read_count(lexer *lx, uint32_t *out, const char *what)
{
    int64_t v;
    if (read_int(lx, &v, 0, UINT32_MAX, what)) return OSSA_FAILED;
    *out = (uint32_t)v;
    return OSSA_OK;
}

/* Checks that `count` records of at least `tokens` tokens each can still
 * be in the file (a token and its separator take 2 bytes at least), so
 * that a huge count in a small file fails before anything is allocated. */
static ossa_status fits(lexer *lx, ill_loc at, uint64_t count, uint64_t tokens, const char *what)
{
    double need_bytes = (double)count * (double)tokens * 2 - 1;
    if (count && need_bytes > (double)(lx->end - lx->p))
        return ossa__ill_fail(lx->error, OSSA_ERROR_TRUNCATED, at,
                              "%llu %s cannot fit in the %zu bytes that follow",
                              (unsigned long long)count, what, (size_t)(lx->end - lx->p));
    return OSSA_OK;
}

static ossa_status read_magic(lexer *lx, const char *magic)
{
    if (!next(lx) || lx->len != ILL_MAGIC_SIZE || memcmp(lx->tok, magic, ILL_MAGIC_SIZE) != 0)
        return ossa__ill_fail(lx->error, OSSA_ERROR_FORMAT, lx->at,
                              "expected the magic %s followed by whitespace", magic);
    return OSSA_OK;
}

/* A name token copied into `pool` (NUL-terminated); the pool has room for
 * every remaining byte of the file. */
static ossa_status read_name(lexer *lx, char **pool, const char **out, const char *what)
{
    if (need(lx, what)) return OSSA_FAILED;
    memcpy(*pool, lx->tok, lx->len);
    (*pool)[lx->len] = 0;
    *out = *pool;
    *pool += lx->len + 1;
    return OSSA_OK;
}

/* Position of token `index` (0-based, from the start of the file). */
static ill_loc token_at(const lexer *src, uint64_t index)
{
    lexer lx = *src;
    lx.p = lx.begin;
    lx.line = 1;
    lx.line_start = lx.begin;
    for (uint64_t i = 0; i <= index; i++)
        if (!next(&lx)) break;
    return lx.at;
}

/* -- ILLMESH0 ---------------------------------------------------------------- */

typedef struct mesh_locator {
    const lexer *lx;
    uint32_t stride;
    const uint32_t *file_slot; /* v0b slot -> slot in the file's order */
} mesh_locator;

static void locate_vertex_value(void *user, uint32_t vertex, uint32_t slot, ill_loc *out)
{
    const mesh_locator *m = user;
    /* magic, 6 flags and 2 counts come first */
    *out = token_at(m->lx, 9 + (uint64_t)vertex * m->stride + m->file_slot[slot]);
}

/* Slot of each v0b-order float in the file's order; v0a has the texcoord
 * (2) before the blend data (8). */
static void slot_map(unsigned mask, bool v0a, uint32_t *map, uint32_t stride)
{
    for (uint32_t i = 0; i < stride; i++) map[i] = i;
    if (!v0a || !(mask & ILL_HAS_TEXCOORD) || !(mask & ILL_HAS_BLEND)) return;
    uint32_t b = (mask & ILL_HAS_POSITION ? 3u : 0u) + (mask & ILL_HAS_NORMAL ? 3u : 0u) +
                 (mask & ILL_HAS_TANGENT ? 6u : 0u);
    for (uint32_t k = 0; k < 8; k++) map[b + k] = b + 2 + k; /* blend after the texcoord */
    map[b + 8] = b;
    map[b + 9] = b + 1;
}

/* Counts the vertices whose blend data is plausible, and whether every
 * index is a whole number in range, when the blend data starts at float
 * `ofs` of each vertex. */
static void blend_stats(const float *v, uint32_t nv, uint32_t stride, uint32_t ofs,
                        uint32_t *plausible, bool *valid)
{
    *plausible = 0;
    *valid = true;
    for (uint32_t i = 0; i < nv; i++) {
        const float *b = v + (size_t)i * stride + ofs;
        if (ossa__ill_blend_plausible(b)) ++*plausible;
        for (int k = 0; k < 4; k++)
            if (!(b[k] >= 0 && b[k] <= 65535 && b[k] == floorf(b[k]))) *valid = false;
    }
}

/* Whether the whitespace after the last token holds an empty line. */
static bool blank_line_follows(const lexer *lx)
{
    int newlines = 0;
    for (const char *p = lx->p; p < lx->end && ws(*p); p++)
        if (*p == '\n' && ++newlines == 2) return true;
    return false;
}

static ossa_status read_mesh(lexer *lx)
{
    static const char *const flag_names[6] = {"the position flag (0 or 1)",
                                              "the normal flag (0 or 1)",
                                              "the tangent flag (0 or 1)",
                                              "the texcoord flag (0 or 1)",
                                              "the blend data flag (0 or 1)",
                                              "the colour flag (0 or 1)"};
    const ossa_load_options *options = lx->options;
    unsigned mask = 0;
    for (int i = 0; i < 6; i++) {
        int64_t b;
        /* Booleans are the integers 0 and 1 only (docs/formats/ill.md §2). */
        if (need(lx, flag_names[i])) return OSSA_FAILED;
        if (lx->len != 1 || (lx->tok[0] != '0' && lx->tok[0] != '1')) return bad(lx, flag_names[i]);
        b = lx->tok[0] - '0';
        if (b) mask |= 1u << i;
    }
    uint32_t nv, ni;
    if (read_count(lx, &nv, "the vertex count")) return OSSA_FAILED;
    ill_loc nv_at = lx->at;
    if (read_count(lx, &ni, "the index count")) return OSSA_FAILED;
    ill_loc ni_at = lx->at;
    if (ni % 3)
        return ossa__ill_fail(lx->error, OSSA_ERROR_CORRUPT, ni_at,
                              "%u indices: expected a multiple of 3 (a triangle list)", ni);
    uint32_t stride = ossa__ill_vertex_floats(mask);
    /* Vertices without attributes take no tokens; each is still a line
     * (a blank one) of the canonical layout, which bounds their count. */
    double bytes = (stride ? 2.0 * stride : 1.0) * nv + 2.0 * ni - 1;
    if (bytes > (double)(lx->end - lx->p))
        return ossa__ill_fail(lx->error, OSSA_ERROR_TRUNCATED, nv_at,
                              "%u vertices and %u indices cannot fit in the %zu bytes that "
                              "follow",
                              nv, ni, (size_t)(lx->end - lx->p));

    float *v = ossa__ill_talloc(options, (size_t)nv * stride + 1, sizeof *v);
    uint32_t *idx = ossa__ill_talloc(options, (size_t)ni + 1, sizeof *idx);
    ossa_status st = OSSA_OK;
    if (!v || !idx) st = ossa__fail_nomem(lx->error);
    bool blank = false;
    for (uint32_t i = 0; i < nv && !st; i++) {
        float *o = v + (size_t)i * stride;
        for (uint32_t k = 0; k < stride && !st; k++) st = read_float(lx, &o[k], "a vertex value");
        if (i == 0) blank = blank_line_follows(lx);
    }
    for (uint32_t i = 0; i < ni && !st; i++) {
        int64_t x;
        st = read_int(lx, &x, 0, nv ? (int64_t)nv - 1 : -1, "a vertex index");
        idx[i] = (uint32_t)x;
    }

    /* v0a (2-3 Dec 2012) put the texcoord before the blend data; v0b the
     * other way round. The blank line after each v0b vertex tells them
     * apart; the blend data's plausibility confirms (docs/formats/ill.md §3). */
    bool v0a = false;
    uint32_t map[32];
    if (!st && nv && (mask & ILL_HAS_TEXCOORD) && (mask & ILL_HAS_BLEND)) {
        uint32_t b = (mask & ILL_HAS_POSITION ? 3u : 0u) + (mask & ILL_HAS_NORMAL ? 3u : 0u) +
                     (mask & ILL_HAS_TANGENT ? 6u : 0u);
        uint32_t plaus_a, plaus_b;
        bool valid_a, valid_b;
        blend_stats(v, nv, stride, b + 2, &plaus_a, &valid_a);
        blend_stats(v, nv, stride, b, &plaus_b, &valid_b);
        uint32_t order =
            ossa__option_choice(OSSA__OPTIONS(options), "ill.vertex_order", ILL_VERTEX_ORDERS);
        if (order != 0)
            v0a = order == 2;
        else {
            v0a = !blank;
            bool valid = v0a ? valid_a : valid_b, other_valid = v0a ? valid_b : valid_a;
            uint32_t plaus = v0a ? plaus_a : plaus_b, other = v0a ? plaus_b : plaus_a;
            if (!valid && other_valid) {
                ossa__ill_warn(lx->model, OSSA_WARNING_INCONSISTENT, nv_at,
                               "the layout says %s (%s blank line after each vertex), but its "
                               "blend indices are not whole numbers: read as %s",
                               v0a ? "v0a" : "v0b", v0a ? "no" : "a", v0a ? "v0b" : "v0a");
                v0a = !v0a;
            } else if (other == nv && plaus < nv) {
                ossa__ill_warn(lx->model, OSSA_WARNING_INCONSISTENT, nv_at,
                               "read as %s (%s blank line after each vertex), but the blend data "
                               "is plausible for %u of %u vertices, and for all of them as %s",
                               v0a ? "v0a" : "v0b", v0a ? "no" : "a", plaus, nv,
                               v0a ? "v0b" : "v0a");
            }
        }
        if (v0a) {
            /* Into the v0b order: blend data first, then the texcoord. */
            for (uint32_t i = 0; i < nv; i++) {
                float *o = v + (size_t)i * stride + b, tc[2] = {o[0], o[1]};
                memmove(o, o + 2, 8 * sizeof *o);
                o[8] = tc[0];
                o[9] = tc[1];
            }
        }
    }
    if (!st) {
        slot_map(mask, v0a, map, stride);
        mesh_locator loc = {lx, stride, map};
        ill_mesh mesh = {mask, nv, v, ni / 3, idx, locate_vertex_value, &loc};
        st = ossa__ill_build_mesh(lx->model, &mesh, options, lx->error);
    }
    ossa__ill_tfree(options, v);
    ossa__ill_tfree(options, idx);
    return st;
}

/* -- ILLSKEL0 ---------------------------------------------------------------- */

static ossa_status read_skeleton(lexer *lx)
{
    const ossa_load_options *options = lx->options;
    uint32_t n;
    if (read_count(lx, &n, "the bone count")) return OSSA_FAILED;
    if (n > INT32_MAX)
        return ossa__ill_fail(lx->error, OSSA_ERROR_UNSUPPORTED, lx->at, "%u bones are too many", n);
    if (fits(lx, lx->at, n, 18, "bones (16 numbers, a parent and a name each)")) return OSSA_FAILED;
    ill_bone *bones = ossa__ill_talloc(options, (size_t)n + 1, sizeof *bones);
    char *pool = ossa__ill_talloc(options, (size_t)(lx->end - lx->p) + 1, 1);
    char *cursor = pool;
    ossa_status st = OSSA_OK;
    if (!bones || !pool) st = ossa__fail_nomem(lx->error);
    /* Row-major text: token row*4+col goes to column-major [col*4+row]
     * (docs/formats/ill.md §4). */
    for (uint32_t i = 0; i < n && !st; i++) {
        for (int k = 0; k < 16 && !st; k++) {
            float f;
            st = read_float(lx, &f, "a matrix value");
            if (k == 0) bones[i].at = lx->at;
            bones[i].matrix[(k % 4) * 4 + k / 4] = f;
        }
    }
    for (uint32_t i = 0; i < n && !st; i++) {
        st = read_int(lx, &bones[i].parent, -1, INT32_MAX, "a parent index");
        bones[i].parent_at = lx->at;
    }
    for (uint32_t i = 0; i < n && !st; i++) {
        st = read_name(lx, &cursor, &bones[i].name, "a bone name");
        bones[i].name_at = lx->at;
    }
    if (!st) st = ossa__ill_build_skeleton(lx->model, bones, n, true, options, lx->error);
    ossa__ill_tfree(options, bones);
    ossa__ill_tfree(options, pool);
    return st;
}

/* -- ILLANIM0 ---------------------------------------------------------------- */

/* The engine reads nothing after the last frame (§2); ossa's writer puts the
 * animation's name and loop flag there as a line of their own (text.h's
 * animation tag), the first after the frames. */
static bool trailing_tag(const lexer *lx, ossa_anim_tag *tag)
{
    const char *p = lx->p, *end = lx->end;
    while (p < end && (ossa__text_blank(*p) || *p == '\n')) p++;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    return ossa__anim_tag_parse(p, (size_t)((eol ? eol : end) - p), tag);
}

static ossa_status read_anim0(lexer *lx)
{
    const ossa_load_options *options = lx->options;
    float rate;
    uint32_t nf, nb;
    if (read_float(lx, &rate, "the frame rate")) return OSSA_FAILED;
    if (!(rate > 0))
        return ossa__ill_fail(lx->error, OSSA_ERROR_CORRUPT, lx->at,
                              "frame rate %g: expected a number above 0", (double)rate);
    if (read_count(lx, &nf, "the frame count")) return OSSA_FAILED;
    if (!nf)
        return ossa__ill_fail(lx->error, OSSA_ERROR_CORRUPT, lx->at,
                              "0 frames: an animation needs at least one");
    if (read_count(lx, &nb, "the bone count")) return OSSA_FAILED;
    if (fits(lx, lx->at, nb, 1 + (uint64_t)nf * 10, "bones (a name and 10 numbers per frame)"))
        return OSSA_FAILED;
    ill_frames *tracks = ossa__ill_talloc(options, (size_t)nb + 1, sizeof *tracks);
    float *values = ossa__ill_talloc(options, (size_t)nb * nf * 10 + 1, sizeof *values);
    char *pool = ossa__ill_talloc(options, (size_t)(lx->end - lx->p) + 1, 1);
    char *cursor = pool;
    ossa_status st = OSSA_OK;
    if (!tracks || !values || !pool) st = ossa__fail_nomem(lx->error);
    for (uint32_t i = 0; i < nb && !st; i++) {
        st = read_name(lx, &cursor, &tracks[i].name, "a bone name");
        tracks[i].at = lx->at;
        float *o = values + (size_t)i * nf * 10;
        tracks[i].values = o;
        for (size_t k = 0; k < (size_t)nf * 10 && !st; k++) st = read_float(lx, &o[k], "a key value");
    }
    ossa_anim_tag tag;
    bool tagged = !st && trailing_tag(lx, &tag);
    if (!st)
        st = ossa__ill_build_fixed(lx->model, rate, nf, tracks, nb, tagged ? &tag : NULL, options,
                                   lx->error);
    ossa__ill_tfree(options, tracks);
    ossa__ill_tfree(options, values);
    ossa__ill_tfree(options, pool);
    return st;
}

/* -- ILLANIM1 ---------------------------------------------------------------- */

/* Keys of all tracks in one growing buffer; tracks hold offsets into it
 * until the end. */
typedef struct key_buf {
    float *data;
    size_t size, cap;
} key_buf;

static bool key_push(const ossa_load_options *options, key_buf *b, size_t n)
{
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->size + n) cap *= 2;
        float *d = ossa__ill_talloc(options, cap, sizeof *d);
        if (!d) return false;
        if (b->size) memcpy(d, b->data, b->size * sizeof *d);
        ossa__ill_tfree(options, b->data);
        b->data = d;
        b->cap = cap;
    }
    b->size += n;
    return true;
}

static ossa_status read_channel(lexer *lx, key_buf *buf, ill_keys *k, size_t *ofs, int width,
                                const char *what_count)
{
    uint32_t n;
    if (read_count(lx, &n, what_count)) return OSSA_FAILED;
    if (fits(lx, lx->at, n, (uint64_t)width + 1, "keys")) return OSSA_FAILED;
    /* times first, then the values */
    size_t base = buf->size;
    k->count = 0;
    *ofs = base;
    if (!n) return OSSA_OK;
    if (!key_push(lx->options, buf, (size_t)n * (size_t)(width + 1)))
        return ossa__fail_nomem(lx->error);
    float *times = buf->data + base, *values = times + n;
    for (uint32_t i = 0; i < n; i++) {
        if (read_float(lx, &times[i], "a key time")) return OSSA_FAILED;
        if (i && times[i] < times[i - 1])
            return ossa__ill_fail(lx->error, OSSA_ERROR_CORRUPT, lx->at,
                                  "key time %g comes before the previous key's %g",
                                  (double)times[i], (double)times[i - 1]);
        for (int c = 0; c < width; c++)
            if (read_float(lx, &values[(size_t)i * (size_t)width + (size_t)c], "a key value"))
                return OSSA_FAILED;
    }
    k->count = n;
    *ofs = base;
    return OSSA_OK;
}

static ossa_status read_anim1(lexer *lx, size_t file_size)
{
    const ossa_load_options *options = lx->options;
    float duration;
    uint32_t nb;
    if (read_float(lx, &duration, "the duration")) return OSSA_FAILED;
    ill_loc duration_at = lx->at;
    if (read_count(lx, &nb, "the bone count")) return OSSA_FAILED;
    if (fits(lx, lx->at, nb, 4, "bones (a name and three key counts each)")) return OSSA_FAILED;
    ill_track *tracks = ossa__ill_talloc(options, (size_t)nb + 1, sizeof *tracks);
    size_t *ofs = ossa__ill_talloc(options, (size_t)nb * 3 + 1, sizeof *ofs);
    char *pool = ossa__ill_talloc(options, (size_t)(lx->end - lx->p) + 1, 1);
    char *cursor = pool;
    key_buf buf = {NULL, 0, 0};
    ossa_status st = OSSA_OK;
    if (!tracks || !ofs || !pool) st = ossa__fail_nomem(lx->error);
    for (uint32_t i = 0; i < nb && !st; i++) {
        ill_track *t = &tracks[i];
        memset(t, 0, sizeof *t);
        st = read_name(lx, &cursor, &t->name, "a bone name");
        t->at = lx->at;
        if (!st) st = read_channel(lx, &buf, &t->pos, &ofs[i * 3], 3, "the position key count");
        if (!st) st = read_channel(lx, &buf, &t->rot, &ofs[i * 3 + 1], 4, "the rotation key count");
        if (!st) st = read_channel(lx, &buf, &t->scale, &ofs[i * 3 + 2], 3, "the scale key count");
    }
    if (!st) {
        ill_keys *ch[3];
        for (uint32_t i = 0; i < nb; i++) {
            ch[0] = &tracks[i].pos;
            ch[1] = &tracks[i].rot;
            ch[2] = &tracks[i].scale;
            for (int c = 0; c < 3; c++) {
                /* no buffer at all when no channel has a key */
                ch[c]->times = ch[c]->count ? buf.data + ofs[i * 3 + (uint32_t)c] : NULL;
                ch[c]->values = ch[c]->count ? ch[c]->times + ch[c]->count : NULL;
            }
        }
        st = ossa__ill_build_keyed(lx->model, duration, duration_at, tracks, nb, file_size, options,
                                   lx->error);
    }
    ossa__ill_tfree(options, tracks);
    ossa__ill_tfree(options, ofs);
    ossa__ill_tfree(options, pool);
    ossa__ill_tfree(options, buf.data);
    return st;
}

ossa_status ossa__ill_read_text(ossa_model *model, ill_kind kind, int version,
                                const unsigned char *data, size_t size,
                                const ossa_load_options *options, ossa_error *error)
{
    lexer lx;
    memset(&lx, 0, sizeof lx);
    lx.begin = lx.p = lx.line_start = (const char *)data;
    lx.end = lx.begin + size;
    lx.line = 1;
    lx.model = model;
    lx.options = options;
    lx.error = error;
    static const char *const magic[4][2] = {{"ILLMESH0", "ILLMESH1"},
                                            {"ILLSKEL0", "ILLSKEL0"},
                                            {"ILLANIM0", "ILLANIM1"},
                                            {"ILANSET0", "ILANSET0"}};
    if (read_magic(&lx, magic[kind][version ? 1 : 0])) return OSSA_FAILED;
    switch (kind) {
    case ILL_MESH: return read_mesh(&lx);
    case ILL_SKEL: return read_skeleton(&lx);
    case ILL_ANIM: return version ? read_anim1(&lx, size) : read_anim0(&lx);
    case ILL_ANSET: break;
    }
    return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, 0, "this file kind has no text form");
}
