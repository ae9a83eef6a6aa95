/* SMD text pass (docs/formats/smd.md §1-§7): the blocks into raw lists.
 *
 * Lexical choices (§1): statements are lines; blank lines and lines whose
 * first token starts with "//", "#" or ";" are skipped everywhere, as the
 * IQM SDK does (studiomdl would end a block or take them as material
 * names); a comment may also follow the fields of a line. Keywords are
 * compared without case, as studiomdl does. Every line of a block is
 * checked whole: a missing field, a field that is not a number, a number
 * that is not finite or a stray token is an error at its line and
 * column. */
#include "formats/smd/smd.h"

#include <math.h>
#include <stdlib.h>

static bool comment_at(const ossa_lexer *lx, const char *p)
{
    if (*p == '#' || *p == ';') return true;
    return *p == '/' && p + 1 < lx->end && p[1] == '/';
}

/* Moves to the next line holding a statement; false at the end of the
 * data. */
static bool next_statement(ossa_lexer *lx)
{
    for (;;) {
        if (!ossa__lex_skip_empty(lx)) return false;
        if (!comment_at(lx, lx->p)) return true;
        if (!ossa__lex_next_line(lx)) return false;
    }
}

/* The rest of the line must be empty (or a comment); moves past it. */
static ossa_status end_line(smd_doc *d, const char *what)
{
    ossa_lexer *lx = &d->lx;
    if (ossa__lex_more(lx) && !comment_at(lx, lx->p))
        return ossa__lex_fail(lx, lx->p, true, "expected the end of the line after %s", what);
    ossa__lex_next_line(lx);
    return OSSA_OK;
}

static bool word_is(const char *p, size_t n, const char *word)
{
    if (strlen(word) != n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != word[i]) return false;
    }
    return true;
}

/* Whether the token at the cursor is `word` (any case); consumed if so. */
static bool accept_word(ossa_lexer *lx, const char *word)
{
    size_t n = ossa__lex_token_len(lx);
    if (!n || !word_is(lx->p, n, word)) return false;
    lx->p += n;
    return true;
}

/* Whether the line holds `end` alone (a comment may follow). */
static bool is_end_line(ossa_lexer *lx)
{
    const char *p = lx->p;
    bool end = accept_word(lx, "end") && !(ossa__lex_more(lx) && !comment_at(lx, lx->p));
    lx->p = p;
    return end;
}

/* The same, and moves past the line when it is. */
static bool at_end_line(ossa_lexer *lx)
{
    if (!is_end_line(lx)) return false;
    ossa__lex_next_line(lx);
    return true;
}

static ossa_status read_float(smd_doc *d, float *out, const char *what)
{
    ossa_lexer *lx = &d->lx;
    ossa__lex_more(lx);
    const char *at = lx->p;
    if (ossa__lex_float(lx, out, what)) return OSSA_FAILED;
    if (!isfinite(*out)) return ossa__lex_fail(lx, at, false, "%s is not a finite number", what);
    return OSSA_OK;
}

static ossa_status fail_eof(smd_doc *d, const char *block, uint32_t line)
{
    return ossa__lex_fail(&d->lx, d->lx.end, false,
                          "the file ends inside the '%s' block of line %u: expected 'end'", block,
                          line);
}

/* -- nodes (§4) -- */

static int cmp_id(const void *a, const void *b)
{
    const smd_id_entry *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* The node declared with `id`, or -1. */
static int64_t find_node(const smd_doc *d, int64_t id)
{
    const smd_id_entry *e = (const smd_id_entry *)d->by_id.data;
    size_t lo = 0, hi = d->by_id.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->by_id.count && e[lo].id == id ? (int64_t)e[lo].node : -1;
}

/* Reads a bone id and resolves it to its node. */
static ossa_status read_bone(smd_doc *d, uint32_t *node, const char *what)
{
    ossa_lexer *lx = &d->lx;
    int64_t id;
    ossa__lex_more(lx);
    const char *at = lx->p;
    if (ossa__lex_int(lx, &id, INT64_MIN / 2, INT64_MAX / 2, what)) return OSSA_FAILED;
    int64_t n = find_node(d, id);
    if (n < 0)
        return ossa__lex_fail(lx, at, false, "%s %lld is not declared in the 'nodes' block", what,
                              (long long)id);
    *node = (uint32_t)n;
    return OSSA_OK;
}

/* Ids and names unique, parents declared, no cycle; then the joint order:
 * every node after its parent, otherwise in file order. */
static ossa_status finish_nodes(smd_doc *d)
{
    smd_node *nodes = (smd_node *)d->nodes.data;
    uint32_t n = (uint32_t)d->nodes.count;
    if (!ossa__list_reserve(d->model, &d->by_id, n, sizeof(smd_id_entry)))
        return ossa__fail_nomem(d->error);
    smd_id_entry *e = (smd_id_entry *)d->by_id.data;
    for (uint32_t i = 0; i < n; i++) {
        e[i].id = nodes[i].id;
        e[i].node = i;
    }
    d->by_id.count = n;
    if (n) qsort(e, n, sizeof *e, cmp_id); /* (an empty block has no storage) */
    for (uint32_t i = 1; i < n; i++)
        if (e[i].id == e[i - 1].id) {
            const smd_node *later = &nodes[e[i].node];
            return ossa__fail_line(d->error, OSSA_ERROR_CORRUPT, later->line, 1,
                                   "bone id %lld is declared twice (first on line %u)",
                                   (long long)later->id, nodes[e[i - 1].node].line);
        }
    for (uint32_t i = 0; i < n; i++) {
        nodes[i].parent_node = -1;
        if (nodes[i].parent == -1) continue;
        int64_t p = find_node(d, nodes[i].parent);
        if (p < 0)
            return ossa__fail_line(d->error, OSSA_ERROR_CORRUPT, nodes[i].line,
                                   nodes[i].parent_column,
                                   "the parent %lld of bone %lld is not a declared bone id",
                                   (long long)nodes[i].parent, (long long)nodes[i].id);
        nodes[i].parent_node = (int32_t)p;
    }

    d->joint_of = ossa__temp_alloc(d->model, ((size_t)n + 1) * sizeof *d->joint_of);
    d->node_of = ossa__temp_alloc(d->model, ((size_t)n + 1) * sizeof *d->node_of);
    uint32_t *chain = ossa__temp_alloc(d->model, ((size_t)n + 1) * sizeof *chain);
    if (!d->joint_of || !d->node_of || !chain) {
        ossa__temp_free(d->model, chain);
        return ossa__fail_nomem(d->error);
    }
    /* joint_of: UNPLACED, or ON_CHAIN while the walk from a node up to
     * its first placed ancestor passes it (meeting it again: a cycle). */
    const uint32_t UNPLACED = UINT32_MAX, ON_CHAIN = UINT32_MAX - 1;
    for (uint32_t i = 0; i < n; i++) d->joint_of[i] = UNPLACED;
    uint32_t placed = 0;
    bool reordered = false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = 0, x = i;
        bool cycle = false;
        for (;;) {
            if (d->joint_of[x] != UNPLACED) {
                cycle = d->joint_of[x] == ON_CHAIN;
                break;
            }
            d->joint_of[x] = ON_CHAIN;
            chain[len++] = x;
            if (nodes[x].parent_node < 0) break;
            x = (uint32_t)nodes[x].parent_node;
        }
        if (cycle) {
            ossa__temp_free(d->model, chain);
            return ossa__fail_line(d->error, OSSA_ERROR_CORRUPT, nodes[x].line,
                                   nodes[x].parent_column,
                                   "bone %lld is its own ancestor (the parents form a cycle)",
                                   (long long)nodes[x].id);
        }
        reordered |= len > 1;
        while (len) {
            uint32_t y = chain[--len];
            d->node_of[placed] = y;
            d->joint_of[y] = placed++;
        }
    }
    ossa__temp_free(d->model, chain);
    if (reordered)
        ossa__warn(d->model, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->nodes_line, 1,
                   "bones listed before their parents: joints reordered parents first");
    return OSSA_OK;
}

static ossa_status read_nodes(smd_doc *d)
{
    ossa_lexer *lx = &d->lx;
    if (d->nodes_line)
        return ossa__lex_fail(lx, lx->p, false, "a second 'nodes' block (the first is on line %u)",
                              d->nodes_line);
    d->nodes_line = lx->line;
    ossa__lex_next_line(lx);
    for (;;) {
        if (!next_statement(lx)) return fail_eof(d, "nodes", d->nodes_line);
        if (at_end_line(lx)) break;
        smd_node node;
        memset(&node, 0, sizeof node);
        node.line = lx->line;
        const char *name;
        size_t len;
        if (ossa__lex_int(lx, &node.id, 0, INT32_MAX, "a bone id")) return OSSA_FAILED;
        ossa__lex_more(lx);
        uint32_t name_column = ossa__lex_column(lx, lx->p);
        if (ossa__lex_string(lx, &name, &len, "a bone name (in quotes)")) return OSSA_FAILED;
        ossa__lex_more(lx);
        node.parent_column = ossa__lex_column(lx, lx->p);
        if (ossa__lex_int(lx, &node.parent, -1, INT32_MAX, "the parent's bone id (-1 for a root)"))
            return OSSA_FAILED;
        if (end_line(d, "the parent's bone id")) return OSSA_FAILED;
        int64_t id = ossa__intern(d->model, &d->names, name, len);
        if (id < 0) return ossa__fail_nomem(d->error);
        if ((uint64_t)id != d->nodes.count) {
            const smd_node *first = &OSSA_LIST_AT(d->nodes, smd_node, id);
            return ossa__fail_line(d->error, OSSA_ERROR_CORRUPT, node.line, name_column,
                                   "bone name '%.*s' is declared twice (first on line %u)",
                                   (int)(len > 60 ? 60 : len), name, first->line);
        }
        smd_node *slot = ossa__list_push(d->model, &d->nodes, sizeof *slot);
        if (!slot) return ossa__fail_nomem(d->error);
        *slot = node;
    }
    return finish_nodes(d);
}

/* -- skeleton (§5) -- */

static ossa_status read_skeleton(smd_doc *d)
{
    ossa_lexer *lx = &d->lx;
    if (d->skeleton_line)
        return ossa__lex_fail(lx, lx->p, false,
                              "a second 'skeleton' block (the first is on line %u)",
                              d->skeleton_line);
    if (!d->nodes_line)
        return ossa__lex_fail(lx, lx->p, false, "'skeleton' before the 'nodes' block");
    d->skeleton_line = lx->line;
    ossa__lex_next_line(lx);
    static const char *const fields[6] = {"the position x", "the position y", "the position z",
                                          "the rotation x (radians)", "the rotation y (radians)",
                                          "the rotation z (radians)"};
    for (;;) {
        if (!next_statement(lx)) return fail_eof(d, "skeleton", d->skeleton_line);
        if (at_end_line(lx)) break;
        if (accept_word(lx, "time")) {
            smd_time *t = ossa__list_push(d->model, &d->times, sizeof *t);
            if (!t) return ossa__fail_nomem(d->error);
            t->line = lx->line;
            t->first_key = (uint32_t)d->keys.count;
            if (ossa__lex_int(lx, &t->time, INT32_MIN, INT32_MAX, "a frame number after 'time'") ||
                end_line(d, "the frame number"))
                return OSSA_FAILED;
            continue;
        }
        if (!d->times.count) {
            size_t n = ossa__lex_token_len(lx);
            if (n && ossa__text_parse_int(lx->p, lx->p + n, &(int64_t){0}))
                return ossa__lex_fail(lx, lx->p, false,
                                      "expected 'time N' before the first bone line");
            return ossa__lex_fail(lx, lx->p, true, "expected 'time N', a bone line or 'end'");
        }
        if (d->keys.count >= UINT32_MAX - 1)
            return ossa__lex_fail(lx, lx->p, false, "too many bone lines");
        smd_key *k = ossa__list_push(d->model, &d->keys, sizeof *k);
        if (!k) return ossa__fail_nomem(d->error);
        if (read_bone(d, &k->node, "bone id")) return OSSA_FAILED;
        for (int i = 0; i < 6; i++)
            if (read_float(d, &k->v[i], fields[i])) return OSSA_FAILED;
        if (end_line(d, "the rotation z")) return OSSA_FAILED;
        OSSA_LIST_AT(d->times, smd_time, d->times.count - 1).num_keys++;
    }
    return OSSA_OK;
}

/* -- triangles (§6) -- */

/* The weight rule of §6 for one vertex line: a sum short of 1 completed
 * on the parent bone, then the shared step (core/influences.h):
 * duplicates summed, weights <= 0.001 dropped, the largest `influences`
 * kept (ties to the lower bone number) and renormalized. */
static ossa_status blend(smd_doc *d, smd_corner *c, uint32_t parent)
{
    size_t n = d->links.count;
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += OSSA_LIST_AT(d->links, ossa__influence, i).weight;
    if (n && sum < 1 - 1e-3) {
        ossa__influence *l = ossa__list_push(d->model, &d->links, sizeof *l);
        if (!l) return ossa__fail_nomem(d->error);
        l->joint = l->order = parent;
        l->weight = 1 - sum;
        n++;
    }
    ossa__influence *l = (ossa__influence *)d->links.data;
    ossa__influence_rule rule = {d->influences, 0.001, false};
    ossa__influence_stats stats;
    uint32_t k = n ? ossa__influences_limit(l, (uint32_t)n, &rule, &stats) : 0;
    if (k == 0) {
        c->node[0] = parent;
        c->w[0] = 1;
        return OSSA_OK;
    }
    if (stats.above > k && !d->over_limit++) d->over_limit_line = d->lx.line;
    ossa__influences_normalize(l, k, d->influences, c->w);
    for (uint32_t i = 0; i < k; i++) c->node[i] = l[i].joint;
    return OSSA_OK;
}

static ossa_status read_vertex(smd_doc *d, smd_corner *c)
{
    static const char *const fields[8] = {
        "the position x", "the position y", "the position z", "the normal x",
        "the normal y",   "the normal z",   "the texture u",  "the texture v"};
    ossa_lexer *lx = &d->lx;
    uint32_t parent;
    c->line = lx->line;
    if (read_bone(d, &parent, "parent bone id")) return OSSA_FAILED;
    float *v[8] = {&c->p[0], &c->p[1], &c->p[2], &c->n[0], &c->n[1], &c->n[2], &c->uv[0], &c->uv[1]};
    for (int i = 0; i < 8; i++)
        if (read_float(d, v[i], fields[i])) return OSSA_FAILED;
    d->links.count = 0;
    if (ossa__lex_more(lx) && !comment_at(lx, lx->p)) {
        /* Source's extension: links, then (bone, weight) pairs. */
        int64_t links;
        if (ossa__lex_int(lx, &links, 0, INT32_MAX, "the number of links")) return OSSA_FAILED;
        for (int64_t i = 0; i < links; i++) {
            ossa__influence *l = ossa__list_push(d->model, &d->links, sizeof *l);
            if (!l) return ossa__fail_nomem(d->error);
            float w;
            if (!ossa__lex_more(lx) || comment_at(lx, lx->p))
                return ossa__lex_fail(lx, lx->p, true,
                                      "expected %lld (bone, weight) pairs after the link count, "
                                      "found %lld",
                                      (long long)links, (long long)i);
            if (read_bone(d, &l->joint, "link bone id") || read_float(d, &w, "the link weight"))
                return OSSA_FAILED;
            l->order = l->joint; /* ties go to the lower bone number */
            l->weight = w;
        }
    }
    if (end_line(d, "the vertex")) return OSSA_FAILED;
    return blend(d, c, parent);
}

static ossa_status read_triangles(smd_doc *d)
{
    ossa_lexer *lx = &d->lx;
    if (!d->nodes_line)
        return ossa__lex_fail(lx, lx->p, false, "'triangles' before the 'nodes' block");
    uint32_t block_line = lx->line;
    if (!d->triangles_line) d->triangles_line = block_line;
    ossa__lex_next_line(lx);
    for (;;) {
        if (!next_statement(lx)) return fail_eof(d, "triangles", block_line);
        if (at_end_line(lx)) break;
        /* The material is the whole line (§6), trailing blanks dropped. */
        uint32_t tri_line = lx->line;
        const char *name;
        size_t len;
        ossa__lex_rest(lx, &name, &len);
        ossa__lex_next_line(lx);
        int64_t material = ossa__intern(d->model, &d->materials, name, len);
        if (material < 0) return ossa__fail_nomem(d->error);
        if (d->corners.count >= UINT32_MAX - 3)
            return ossa__lex_fail(lx, lx->p, false, "too many triangles");
        for (int k = 0; k < 3; k++) {
            if (!next_statement(lx))
                return ossa__lex_fail(lx, lx->end, false,
                                      "the file ends inside the triangle of line %u: expected "
                                      "vertex line %d of 3",
                                      tri_line, k + 1);
            if (is_end_line(lx))
                return ossa__lex_fail(lx, lx->p, true,
                                      "expected vertex line %d of 3 of the triangle of line %u", k + 1,
                                      tri_line);
            smd_corner *c = ossa__list_push(d->model, &d->corners, sizeof *c);
            if (!c) return ossa__fail_nomem(d->error);
            c->material = (uint32_t)material;
            if (read_vertex(d, c)) return OSSA_FAILED;
        }
    }
    return OSSA_OK;
}

/* -- vertexanimation (§7): skipped -- */

/* A warning located at `at` in the lexer's current line. */
static void warn_at(smd_doc *d, ossa_code code, const char *at, const char *fmt, ...)
    OSSA_PRINTF(4, 5);
static void warn_at(smd_doc *d, ossa_code code, const char *at, const char *fmt, ...)
{
    const ossa_lexer *lx = &d->lx;
    va_list ap;
    va_start(ap, fmt);
    ossa__warnv(d->model, code, (uint64_t)(lx->line_start - lx->data), lx->line,
                ossa__lex_column(lx, at), fmt, ap);
    va_end(ap);
}

static ossa_status skip_vertexanimation(smd_doc *d)
{
    ossa_lexer *lx = &d->lx;
    uint32_t line = lx->line;
    warn_at(d, OSSA_WARNING_IGNORED, lx->line_start, "'vertexanimation' (flex shapes) is not supported: the block is skipped");
    ossa__lex_next_line(lx);
    for (;;) {
        if (!next_statement(lx)) return fail_eof(d, "vertexanimation", line);
        if (at_end_line(lx)) return OSSA_OK;
        ossa__lex_next_line(lx);
    }
}

/* -- The file -- */

/* One warning per unknown keyword, for the first few keywords: a file of
 * garbage lines must not cost a warning each. */
#define MAX_UNKNOWN 16

static ossa_status unknown_statement(smd_doc *d, const char *p, size_t n)
{
    if (n > 40) n = 40;
    size_t before = ossa__intern_count(&d->unknown);
    if (before > MAX_UNKNOWN) return OSSA_OK;
    int64_t id = ossa__intern(d->model, &d->unknown, p, n);
    if (id < 0) return ossa__fail_nomem(d->error);
    if ((size_t)id != before) return OSSA_OK;
    if (before == MAX_UNKNOWN)
        warn_at(d, OSSA_WARNING_IGNORED, p, "more unknown statements: ignored without further warnings");
    else
        warn_at(d, OSSA_WARNING_IGNORED, p, "unknown statement '%.*s': the line is ignored", (int)n, p);
    return OSSA_OK;
}

static ossa_status read_version(smd_doc *d)
{
    ossa_lexer *lx = &d->lx;
    if (!next_statement(lx) || !accept_word(lx, "version"))
        return ossa__lex_fail(lx, lx->p, true, "expected 'version 1' at the start of an SMD file");
    d->version_line = lx->line;
    int64_t version;
    ossa__lex_more(lx);
    const char *at = lx->p;
    if (ossa__lex_int(lx, &version, INT64_MIN / 2, INT64_MAX / 2, "the version number"))
        return OSSA_FAILED;
    if (version != 1 && version != 2)
        return ossa__fail_line(d->error, OSSA_ERROR_UNSUPPORTED, lx->line, ossa__lex_column(lx, at),
                               "SMD version %lld is not supported (expected 1)", (long long)version);
    if (version == 2)
        warn_at(d, OSSA_WARNING_NONSTANDARD, at, "SMD version 2 (later studiomdl builds) read as version 1");
    return end_line(d, "the version number");
}

/* ossa's writer keeps an animation's name, frame rate and loop flag, which
 * SMD has no place for, in a comment right after `version` (§1: studiomdl
 * skips comments between blocks): "// ossa --fps 24 --loop --name Walk".
 * Other comments are skipped as everywhere. */
static void read_tag(smd_doc *d)
{
    ossa_lexer *lx = &d->lx;
    if (!ossa__lex_skip_empty(lx) || lx->end - lx->p < 2 || lx->p[0] != '/' || lx->p[1] != '/')
        return;
    const char *s;
    size_t n;
    lx->p += 2;
    ossa__lex_rest(lx, &s, &n);
    d->tagged = ossa__anim_tag_parse(s, n, &d->tag);
    ossa__lex_next_line(lx);
}

ossa_status ossa__smd_parse(smd_doc *d, ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    memset(d, 0, sizeof *d);
    d->model = model;
    d->options = options;
    d->error = error;
    d->influences = ossa__influence_max(options->max_influences);
    ossa_lexer *lx = &d->lx;
    ossa__lex_init(lx, data, size, NULL, "", error);

    const unsigned char *nul = size ? memchr(data, 0, size) : NULL;
    if (nul) {
        uint32_t line = 1;
        const unsigned char *start = data;
        for (const unsigned char *p = data; p < nul; p++)
            if (*p == '\n') {
                line++;
                start = p + 1;
            }
        return ossa__fail_line(error, OSSA_ERROR_FORMAT, line, (uint32_t)(nul - start) + 1,
                               "a NUL byte: not a text SMD file");
    }

    if (read_version(d)) return OSSA_FAILED;
    read_tag(d);
    while (next_statement(lx)) {
        size_t n = ossa__lex_token_len(lx);
        const char *p = lx->p;
        ossa_status st;
        if (word_is(p, n, "nodes"))
            st = read_nodes(d);
        else if (word_is(p, n, "skeleton"))
            st = read_skeleton(d);
        else if (word_is(p, n, "triangles"))
            st = read_triangles(d);
        else if (word_is(p, n, "vertexanimation"))
            st = skip_vertexanimation(d);
        else if (word_is(p, n, "version"))
            st = ossa__lex_fail(lx, p, false, "a second 'version' line (the first is on line %u)",
                                d->version_line);
        else {
            st = unknown_statement(d, p, n);
            ossa__lex_next_line(lx);
        }
        if (st) return st;
    }
    if (d->over_limit)
        ossa__warn(d->model, OSSA_WARNING_LIMITED, OSSA_NO_OFFSET, d->over_limit_line, 1,
                   "%llu vertex lines have more than %u influences: the largest %u are kept",
                   (unsigned long long)d->over_limit, d->influences, d->influences);
    if (!d->nodes_line)
        return ossa__lex_fail(lx, lx->end, false, "the file has no 'nodes' block");
    if (!d->skeleton_line)
        return ossa__lex_fail(lx, lx->end, false, "the file has no 'skeleton' block");
    return OSSA_OK;
}

void ossa__smd_doc_free(smd_doc *d)
{
    if (!d->model) return;
    ossa__list_free(d->model, &d->nodes);
    ossa__intern_free(d->model, &d->names);
    ossa__list_free(d->model, &d->by_id);
    ossa__temp_free(d->model, d->joint_of);
    ossa__temp_free(d->model, d->node_of);
    ossa__list_free(d->model, &d->times);
    ossa__list_free(d->model, &d->keys);
    ossa__list_free(d->model, &d->corners);
    ossa__intern_free(d->model, &d->materials);
    ossa__intern_free(d->model, &d->unknown);
    ossa__list_free(d->model, &d->links);
    d->model = NULL;
}
