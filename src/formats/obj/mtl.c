/* MTL text (docs/formats/obj.md §9): `newmtl NAME` and the statements
 * after it, into material records. MTL files come from every tool there
 * is and a model never depends on them, so nothing here fails on the
 * text: a statement that cannot be read is skipped with a warning that
 * names the file, line and column ("x.mtl:3:7: Kd: expected a number,
 * found 'x'"), a bounded number of times.
 *
 * Read: Kd, Ka, Ke (1 or 3 numbers: one is grey, as the format defines),
 * Ns, d, Tr, Pr, Pm, illum, and the textures map_Kd, map_Ke, map_Bump and
 * bump (and `norm`) with their options skipped. Statements ossa has no
 * place for (Ks, Ni, Tf, sharpness, map_Ka, map_Ks, map_d, refl, disp,
 * the PBR extension's others) are passed over silently; unknown ones
 * with one warning each. */
#include "formats/obj/obj.h"

#include <math.h>
#include <stdio.h>

/* Warnings per file, beyond which only a count is given. */
#define MAX_WARNINGS 16

typedef struct mtl_reader {
    ossa_model *model;
    const char *name; /* the file, for messages */
    ossa_lexer lx;
    ossa_error *error;
    mtl_file *out;
    mtl_material *current; /* the material being read, or NULL before the first newmtl */
    ossa_intern names;     /* material names defined (the first definition wins) */
    ossa_intern keywords;  /* unknown keywords warned about */
    uint32_t warnings;
    bool skipping; /* inside a repeated newmtl: its statements are ignored */
} mtl_reader;

static void warn_at(mtl_reader *r, const char *at, const char *fmt, ...) OSSA_PRINTF(3, 4);
static void warn_at(mtl_reader *r, const char *at, const char *fmt, ...)
{
    if (r->warnings++ >= MAX_WARNINGS) return;
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ossa__warn(r->model, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%.60s:%u:%u: %s", r->name,
               (unsigned)r->lx.line, (unsigned)ossa__lex_column(&r->lx, at), msg);
}

/* The token at the cursor, for messages. */
static int token_len(mtl_reader *r)
{
    size_t n = ossa__lex_more(&r->lx) ? ossa__lex_token_len(&r->lx) : 0;
    return (int)(n > 40 ? 40 : n);
}

/* Up to `max` numbers; returns how many were read, -1 (warned) when a
 * token is not a finite number. */
static int numbers(mtl_reader *r, const char *kw, float *v, int max)
{
    ossa_lexer *lx = &r->lx;
    int n = 0;
    while (n < max && ossa__lex_more(lx)) {
        size_t len = ossa__lex_token_len(lx);
        if (!ossa__text_parse_float(lx->p, lx->p + len, &v[n]) || !isfinite(v[n])) {
            int t = token_len(r);
            warn_at(r, lx->p, "%s: expected a number, found '%.*s'", kw, t, lx->p);
            return -1;
        }
        lx->p += len;
        n++;
    }
    return n;
}

/* Kd, Ka, Ke: r [g b] (one number is a grey); `Kd spectral file` and
 * `Kd xyz x y z` are not read. */
static void colour(mtl_reader *r, const char *kw, float out[3], bool *has)
{
    ossa_lexer *lx = &r->lx;
    if (ossa__lex_more(lx)) {
        const char *at = lx->p;
        if (ossa__lex_accept(lx, "spectral") || ossa__lex_accept(lx, "xyz")) {
            warn_at(r, at, "%s: spectral and CIE XYZ colours are not read", kw);
            return;
        }
    }
    float v[3];
    const char *at = lx->p;
    int n = numbers(r, kw, v, 3);
    if (n < 0) return;
    if (n == 0 || n == 2) {
        warn_at(r, at, "%s: expected 1 or 3 numbers, found %d", kw, n);
        return;
    }
    if (n == 1) v[1] = v[2] = v[0];
    memcpy(out, v, sizeof v);
    *has = true;
}

static void scalar(mtl_reader *r, const char *kw, float *out, bool *has)
{
    float v;
    const char *at = r->lx.p;
    int n = numbers(r, kw, &v, 1);
    if (n < 0) return;
    if (n == 0) {
        warn_at(r, at, "%s: expected a number, found the end of the line", kw);
        return;
    }
    *out = v;
    *has = true;
}

static char *copy(mtl_reader *r, const char *s, size_t n)
{
    char *c = ossa__temp_alloc(r->model, n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = 0;
    }
    return c;
}

/* The rest of the line up to a comment, trimmed, without surrounding
 * quotes (names may hold blanks). */
static void rest(mtl_reader *r, const char **s, size_t *n)
{
    ossa_lexer *lx = &r->lx;
    *s = lx->p;
    *n = 0;
    const char *first = NULL, *end = NULL;
    while (ossa__lex_more(lx)) {
        if (!first) first = lx->p;
        lx->p += ossa__lex_token_len(lx);
        end = lx->p; /* before the blanks that may precede a comment */
    }
    if (!first) return;
    *s = first;
    *n = (size_t)(end - first);
    if (*n >= 2 && (*s)[0] == '"' && (*s)[*n - 1] == '"') {
        (*s)++;
        *n -= 2;
    }
}

/* Texture options (the MTL specification's, with their argument counts):
 * skipped, except -bm (a bump multiplier: the normal map's scale) and the
 * placements -o, -s, -t (not kept: noted). */
typedef struct option {
    const char *name;
    int min, max;  /* arguments */
    bool numeric;  /* numbers: as many as parse, from min to max */
} option;

static const option options[] = {
    {"-blendu", 1, 1, false}, {"-blendv", 1, 1, false}, {"-boost", 1, 1, true},
    {"-cc", 1, 1, false},     {"-clamp", 1, 1, false},  {"-imfchan", 1, 1, false},
    {"-mm", 1, 2, true},      {"-o", 1, 3, true},       {"-s", 1, 3, true},
    {"-t", 1, 3, true},       {"-texres", 1, 1, false}, {"-bm", 1, 1, true},
    {"-type", 1, 1, false},
};

static bool option_args(mtl_reader *r, const option *o, mtl_texture *t, const char *kw)
{
    ossa_lexer *lx = &r->lx;
    for (int k = 0; k < o->max; k++) {
        if (!ossa__lex_more(lx)) break;
        size_t n = ossa__lex_token_len(lx);
        float v = 1;
        if (o->numeric && (!ossa__text_parse_float(lx->p, lx->p + n, &v) || !isfinite(v))) {
            if (k >= o->min) break;
            warn_at(r, lx->p, "%s %s: expected a number, found '%.*s'", kw, o->name, token_len(r),
                    lx->p);
            return false;
        }
        if (!strcmp(o->name, "-bm")) t->bump_scale = v;
        /* a placement other than none: offset or turbulence 0, scale 1 */
        if ((!strcmp(o->name, "-o") || !strcmp(o->name, "-t")) && v != 0) t->placed = true;
        if (!strcmp(o->name, "-s") && v != 1) t->placed = true;
        lx->p += n;
    }
    return true;
}

/* A texture statement whose keyword `kw` starts at `kw_at`. */
static ossa_status texture(mtl_reader *r, const char *kw, const char *kw_at, mtl_texture *t)
{
    ossa_lexer *lx = &r->lx;
    mtl_texture got = {NULL, 1, false, r->lx.line, ossa__lex_column(lx, kw_at)};
    for (bool again = true; again && ossa__lex_more(lx);) {
        again = false;
        size_t n = ossa__lex_token_len(lx);
        for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
            if (strlen(options[i].name) == n && !memcmp(lx->p, options[i].name, n)) {
                lx->p += n;
                if (!option_args(r, &options[i], &got, kw)) return OSSA_OK;
                again = true;
                break;
            }
    }
    const char *s;
    size_t n;
    rest(r, &s, &n);
    if (!n) {
        warn_at(r, lx->p, "%s: expected a file name, found the end of the line", kw);
        return OSSA_OK;
    }
    got.file = copy(r, s, n);
    if (!got.file) return ossa__fail_nomem(r->error);
    /* the last statement of a kind counts, as Blender takes it */
    ossa__temp_free(r->model, t->file);
    *t = got;
    return OSSA_OK;
}

static ossa_status newmtl(mtl_reader *r, const char *kw)
{
    const char *s;
    size_t n;
    rest(r, &s, &n);
    if (!n) {
        warn_at(r, r->lx.p, "%s: expected a material name, found the end of the line", kw);
        r->current = NULL;
        r->skipping = true;
        return OSSA_OK;
    }
    uint32_t before = ossa__intern_count(&r->names);
    int64_t id = ossa__intern(r->model, &r->names, s, n);
    if (id < 0) return ossa__fail_nomem(r->error);
    r->skipping = (uint32_t)id < before; /* the first definition of a name wins */
    r->current = NULL;
    if (r->skipping) {
        warn_at(r, s, "material '%.*s' is defined again: the first definition is used",
                (int)(n > 60 ? 60 : n), s);
        return OSSA_OK;
    }
    mtl_material *m = ossa__list_push(r->model, &r->out->materials, sizeof *m);
    if (!m) return ossa__fail_nomem(r->error);
    m->name = copy(r, s, n);
    if (!m->name) return ossa__fail_nomem(r->error);
    r->current = m;
    return OSSA_OK;
}

static ossa_status unknown(mtl_reader *r, const char *kw, size_t n)
{
    uint32_t before = ossa__intern_count(&r->keywords);
    if (before >= 32) return OSSA_OK;
    int64_t id = ossa__intern(r->model, &r->keywords, kw, n);
    if (id < 0) return ossa__fail_nomem(r->error);
    if ((uint32_t)id == before)
        warn_at(r, kw, "unknown statement '%.*s': ignored", (int)(n > 40 ? 40 : n), kw);
    return OSSA_OK;
}

static ossa_status statement(mtl_reader *r)
{
    static const char *const silent[] = {
        "Ks", "Ni", "Tf", "sharpness", "map_Ka", "map_Ks", "map_Ns", "map_d", "map_Tr", "refl",
        "map_refl", "disp", "decal", "map_aat", "Ps", "Pc", "Pcr", "aniso", "anisor", "map_Pr",
        "map_Pm", "map_Ps", "map_Px", "Tw", NULL};
    ossa_lexer *lx = &r->lx;
    const char *kw = lx->p;
    size_t n = ossa__lex_token_len(lx);
    lx->p += n;
    char word[16];
    snprintf(word, sizeof word, "%.*s", (int)(n < 15 ? n : 15), kw);
    if (n == 6 && !memcmp(kw, "newmtl", 6)) return newmtl(r, word);
    mtl_material *m = r->current;
    if (!m) {
        if (!r->skipping) warn_at(r, kw, "'%s' before any 'newmtl': ignored", word);
        r->skipping = true; /* said once until the next newmtl */
        return OSSA_OK;
    }
#define IS(w) (n == sizeof w - 1 && !memcmp(kw, w, n))
    if (IS("Kd")) colour(r, word, m->kd, &m->has_kd);
    else if (IS("Ka")) colour(r, word, m->ka, &m->has_ka);
    else if (IS("Ke")) colour(r, word, m->ke, &m->has_ke);
    else if (IS("Ns")) scalar(r, word, &m->ns, &m->has_ns);
    else if (IS("d")) {
        /* "d -halo F": a dissolve that depends on the view; F is taken */
        if (ossa__lex_more(lx)) ossa__lex_accept(lx, "-halo");
        scalar(r, word, &m->d, &m->has_d);
    }
    else if (IS("Tr")) scalar(r, word, &m->tr, &m->has_tr);
    else if (IS("Pr")) scalar(r, word, &m->pr, &m->has_pr);
    else if (IS("Pm")) scalar(r, word, &m->pm, &m->has_pm);
    else if (IS("illum")) {
        float v;
        bool has = false;
        ossa__lex_more(lx);
        const char *at = lx->p;
        scalar(r, word, &v, &has);
        if (has && (v != floorf(v) || v < 0 || v > 10))
            warn_at(r, at, "illum: expected an illumination model 0 to 10");
        else if (has)
            m->illum = (int)v, m->has_illum = true;
    } else if (IS("map_Kd")) return texture(r, word, kw, &m->map[MTL_MAP_KD]);
    else if (IS("map_Ke")) return texture(r, word, kw, &m->map[MTL_MAP_KE]);
    else if (IS("map_Bump") || IS("map_bump") || IS("bump") || IS("norm"))
        return texture(r, word, kw, &m->map[MTL_MAP_BUMP]);
    else {
        for (const char *const *s = silent; *s; s++)
            if (strlen(*s) == n && !memcmp(*s, kw, n)) return OSSA_OK;
        return unknown(r, kw, n);
    }
#undef IS
    if (ossa__lex_more(lx))
        warn_at(r, lx->p, "%s: more than it takes, '%.*s', ignored", word, token_len(r), lx->p);
    return OSSA_OK;
}

/* A copy with lone CR line ends made LF, when there are any (classic Mac
 * tools wrote them); NULL (and *copied false) otherwise. */
static ossa_status line_ends(mtl_reader *r, const unsigned char *data, size_t size,
                             unsigned char **copied)
{
    *copied = NULL;
    bool lone = false;
    for (size_t i = 0; i < size && !lone; i++)
        lone = data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n');
    if (!lone) return OSSA_OK;
    unsigned char *c = ossa__temp_alloc(r->model, size + 1);
    if (!c) return ossa__fail_nomem(r->error);
    for (size_t i = 0; i < size; i++)
        c[i] = data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n') ? '\n' : data[i];
    *copied = c;
    return OSSA_OK;
}

ossa_status ossa__mtl_parse(ossa_model *model, const char *name, const unsigned char *data, size_t size,
                            mtl_file *out, ossa_error *error)
{
    memset(out, 0, sizeof *out);
    mtl_reader r;
    memset(&r, 0, sizeof r);
    r.model = model;
    r.name = name;
    r.error = error;
    r.out = out;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) data += 3, size -= 3;
    const unsigned char *nul = size ? memchr(data, 0, size) : NULL;
    if (nul) {
        ossa__warn(model, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0,
                   "%.60s: a NUL byte at byte %zu: not a text MTL file, not read", name,
                   (size_t)(nul - data));
        return OSSA_OK;
    }
    unsigned char *copied;
    if (line_ends(&r, data, size, &copied)) return OSSA_FAILED;
    ossa__lex_init(&r.lx, copied ? copied : data, size, "#", "", error);
    ossa_status st = OSSA_OK;
    while (!st && ossa__lex_skip_empty(&r.lx)) {
        st = statement(&r);
        ossa__lex_next_line(&r.lx);
    }
    if (!st && r.warnings > MAX_WARNINGS)
        ossa__warn(model, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%.60s: %u more problems", name,
                   r.warnings - MAX_WARNINGS);
    ossa__temp_free(model, copied);
    ossa__intern_free(model, &r.names);
    ossa__intern_free(model, &r.keywords);
    if (st) ossa__mtl_free(model, out);
    return st;
}

void ossa__mtl_free(ossa_model *model, mtl_file *file)
{
    mtl_material *m = (mtl_material *)file->materials.data;
    for (size_t i = 0; i < file->materials.count; i++) {
        ossa__temp_free(model, m[i].name);
        for (int k = 0; k < MTL_MAPS; k++) ossa__temp_free(model, m[i].map[k].file);
    }
    ossa__list_free(model, &file->materials);
}
