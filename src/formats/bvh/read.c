/* BVH HIERARCHY section (docs/formats/bvh.md §1, §2, §5): ROOT, JOINT and
 * End Site blocks into bvh_node records, in file order, which is parent
 * first. The nesting is followed with the parent index alone (no
 * recursion), so a deep file cannot exhaust the stack. */
#include "formats/bvh/bvh.h"

#include <math.h>
#include <stdio.h>

/* Per node while its block is open. */
typedef struct open_state {
    bool offset, channels;
} open_state;

static bvh_node *node_at(bvh_doc *d, int32_t i)
{
    return &OSSA_LIST_AT(d->nodes, bvh_node, (size_t)i);
}

/* Interns `name` (len bytes, at most BVH_MAX_NAME) under a name no other
 * joint has: NAME, else NAME.2, NAME.3, ... with one warning (§5). */
static ossa_status intern_unique(bvh_doc *d, const char *name, size_t len, const char *at,
                                 uint32_t *id)
{
    char buf[BVH_MAX_NAME + 16];
    memcpy(buf, name, len);
    buf[len] = 0;
    size_t n = len;
    for (uint32_t k = 2;; k++) {
        size_t before = ossa__intern_count(&d->names);
        int64_t got = ossa__intern(d->model, &d->names, buf, n);
        if (got < 0) return ossa__fail_nomem(d->error);
        if ((size_t)got == before) {
            *id = (uint32_t)got;
            if (k > 2)
                ossa__bvh_warn(d, OSSA_WARNING_RENAMED, at,
                               "a joint named '%.*s' exists already: this one is named '%s'",
                               (int)len, name, buf);
            return OSSA_OK;
        }
        n = len + (size_t)snprintf(buf + len, sizeof buf - len, ".%u", k);
    }
}

/* The name after ROOT or JOINT: the rest of the line up to a '{', its
 * tokens joined with '_' as Blender joins them ("Left Arm" -> "Left_Arm"). */
static ossa_status read_name(bvh_doc *d, const char *keyword, uint32_t *id)
{
    bvh_lex *lx = &d->lx;
    char buf[BVH_MAX_NAME];
    size_t len = 0;
    const char *first = lx->p;
    while (ossa__bvh_skip_blanks(lx) && *lx->p != '{') {
        size_t n = ossa__bvh_token_len(lx);
        if (n == 0) break; /* a lone '}' cannot be part of a name */
        if (len == 0) first = lx->p;
        if (len + n + 1 > BVH_MAX_NAME)
            return ossa__bvh_fail(d, lx->p, false, "a joint name is longer than %u bytes",
                                  BVH_MAX_NAME - 1);
        const char *nul = memchr(lx->p, 0, n);
        if (nul) return ossa__bvh_fail(d, nul, false, "a NUL byte in a joint name");
        if (len) buf[len++] = '_';
        memcpy(buf + len, lx->p, n);
        len += n;
        lx->p += n;
    }
    if (len == 0)
        return ossa__bvh_fail(d, lx->p, true, "expected a joint name after %s", keyword);
    return intern_unique(d, buf, len, first, id);
}

static ossa_status expect_open(bvh_doc *d, const char *what)
{
    bvh_lex *lx = &d->lx;
    if (ossa__bvh_skip_space(lx) && *lx->p == '{') {
        lx->p++;
        return OSSA_OK;
    }
    return ossa__bvh_fail(d, lx->p, true, "expected '{' after %s", what);
}

static ossa_status new_node(bvh_doc *d, int32_t parent, uint32_t name, bool end_site,
                            uint32_t line, int32_t *index)
{
    if (d->nodes.count >= BVH_MAX_NODES)
        return ossa__bvh_fail(d, d->lx.p, false, "more than %u joints and End Sites",
                              BVH_MAX_NODES);
    bvh_node *n = ossa__list_push(d->model, &d->nodes, sizeof *n);
    if (!n) return ossa__fail_nomem(d->error);
    n->parent = parent;
    n->name = name;
    n->end_site = end_site;
    n->line = line;
    n->first = d->num_channels;
    if (parent >= 0) node_at(d, parent)->has_children = true;
    *index = (int32_t)(d->nodes.count - 1);
    return OSSA_OK;
}

/* "End Site" (any case; a name after it is ignored, as Blender ignores
 * it). The End Site is named after its joint with "_end" (§5). */
static ossa_status read_end_site(bvh_doc *d, int32_t cur, int32_t *index)
{
    bvh_lex *lx = &d->lx;
    uint32_t line = lx->line;
    const char *at = lx->p;
    lx->p += 3;
    if (!ossa__bvh_skip_space(lx) || !ossa__bvh_word_is(lx->p, ossa__bvh_token_len(lx), "site"))
        return ossa__bvh_fail(d, lx->p, true, "expected 'Site' after 'End'");
    lx->p += 4;
    while (ossa__bvh_skip_blanks(lx) && *lx->p != '{') lx->p += ossa__bvh_token_len(lx);
    const char *parent = ossa__intern_str(&d->names, node_at(d, cur)->name);
    char buf[BVH_MAX_NAME + 16];
    int n = snprintf(buf, sizeof buf, "%s_end", parent);
    size_t len = n < 0 ? 0 : (size_t)n >= BVH_MAX_NAME ? BVH_MAX_NAME - 1 : (size_t)n;
    uint32_t id;
    if (intern_unique(d, buf, len, at, &id)) return OSSA_FAILED;
    if (new_node(d, cur, id, true, line, index)) return OSSA_FAILED;
    return expect_open(d, "'End Site'");
}

static ossa_status read_offset(bvh_doc *d, bvh_node *n)
{
    bvh_lex *lx = &d->lx;
    for (int k = 0; k < 3; k++) {
        ossa__bvh_skip_space(lx);
        const char *at = lx->p;
        size_t len = ossa__bvh_token_len(lx);
        const char *q = len ? ossa__text_parse_float(at, at + len, &n->offset[k]) : NULL;
        if (!q) return ossa__bvh_fail(d, at, true, "expected 3 numbers after OFFSET");
        if (!isfinite(n->offset[k]))
            return ossa__bvh_fail(d, at, false, "an OFFSET number is not finite");
        lx->p = q;
    }
    return OSSA_OK;
}

static int channel_kind(const char *p, size_t n)
{
    static const char *const names[6] = {"Xposition", "Yposition", "Zposition",
                                         "Xrotation", "Yrotation", "Zrotation"};
    for (int k = 0; k < 6; k++)
        if (ossa__bvh_word_is(p, n, names[k])) return k;
    return -1;
}

static ossa_status read_channels(bvh_doc *d, bvh_node *n)
{
    bvh_lex *lx = &d->lx;
    ossa__bvh_skip_space(lx);
    const char *at = lx->p;
    int64_t count;
    size_t len = ossa__bvh_token_len(lx);
    if (!len || ossa__text_parse_int(at, at + len, &count) != at + len)
        return ossa__bvh_fail(d, at, true, "expected the number of channels after CHANNELS");
    if (count < 0 || count > 6)
        return ossa__bvh_fail(d, at, false,
                              "%lld channels: a joint has at most 6 (one of each kind)",
                              (long long)count);
    lx->p += len;
    bool seen[6] = {false};
    for (int i = 0; i < (int)count; i++) {
        ossa__bvh_skip_space(lx);
        at = lx->p;
        len = ossa__bvh_token_len(lx);
        int kind = channel_kind(at, len);
        if (kind < 0)
            return ossa__bvh_fail(d, at, true,
                                  "expected a channel name (Xposition, Yposition, Zposition, "
                                  "Xrotation, Yrotation or Zrotation)");
        if (seen[kind])
            return ossa__bvh_fail(d, at, false, "channel '%.*s' is listed twice", (int)len, at);
        seen[kind] = true;
        n->kind[i] = (uint8_t)kind;
        n->num_rot += kind >= BVH_XROT;
        lx->p += len;
    }
    n->count = (uint8_t)count;
    n->first = d->num_channels;
    d->num_channels += (uint32_t)count;
    return OSSA_OK;
}

/* A '}' closes the block of node `cur`. */
static ossa_status close_node(bvh_doc *d, int32_t cur, const open_state *st)
{
    bvh_node *n = node_at(d, cur);
    if (!st->offset)
        return ossa__bvh_fail(d, d->lx.p, false, "the block of '%s' (line %u) has no OFFSET",
                              ossa__intern_str(&d->names, n->name), n->line);
    if (!n->end_site && !st->channels)
        ossa__bvh_warn(d, OSSA_WARNING_NONSTANDARD, d->lx.p,
                       "joint '%s' (line %u) has no CHANNELS line: it has no channels",
                       ossa__intern_str(&d->names, n->name), n->line);
    return OSSA_OK;
}

/* One keyword of the hierarchy at the cursor, inside node `*cur` (-1:
 * between ROOTs); *done after MOTION. */
static ossa_status hierarchy_step(bvh_doc *d, int32_t *cur, open_state *st, bool *done)
{
    bvh_lex *lx = &d->lx;
    const char *at = lx->p;
    size_t len = ossa__bvh_token_len(lx);
    bvh_node *n = *cur >= 0 ? node_at(d, *cur) : NULL;
    if (ossa__bvh_word_is(at, len, "ROOT") || ossa__bvh_word_is(at, len, "JOINT")) {
        bool root = len == 4;
        if (root && n)
            return ossa__bvh_fail(d, at, true, "expected '}' closing '%s' (line %u)",
                                  ossa__intern_str(&d->names, n->name), n->line);
        if (!root && !n) return ossa__bvh_fail(d, at, true, "expected ROOT or MOTION");
        if (n && n->end_site)
            return ossa__bvh_fail(d, at, true, "expected '}' closing the End Site of line %u",
                                  n->line);
        uint32_t line = lx->line, name;
        lx->p += len;
        if (read_name(d, root ? "ROOT" : "JOINT", &name)) return OSSA_FAILED;
        if (new_node(d, *cur, name, false, line, cur)) return OSSA_FAILED;
        st[*cur] = (open_state){false, false};
        return expect_open(d, root ? "the ROOT's name" : "the JOINT's name");
    }
    if (ossa__bvh_word_is(at, len, "End")) {
        if (!n || n->end_site) return ossa__bvh_fail(d, at, true, "expected ROOT, JOINT or '}'");
        if (read_end_site(d, *cur, cur)) return OSSA_FAILED;
        st[*cur] = (open_state){false, true};
        return OSSA_OK;
    }
    if (ossa__bvh_word_is(at, len, "OFFSET") && n && !st[*cur].offset) {
        lx->p += len;
        st[*cur].offset = true;
        return read_offset(d, n);
    }
    if (ossa__bvh_word_is(at, len, "CHANNELS") && n && !n->end_site && !st[*cur].channels) {
        lx->p += len;
        st[*cur].channels = true;
        if (n->has_children)
            return ossa__bvh_fail(d, at, false, "CHANNELS of '%s' after its first child",
                                  ossa__intern_str(&d->names, n->name));
        return read_channels(d, n);
    }
    if (len == 1 && *at == '}' && n) {
        if (close_node(d, *cur, &st[*cur])) return OSSA_FAILED;
        lx->p++;
        *cur = n->parent;
        return OSSA_OK;
    }
    if (ossa__bvh_word_is(at, len, "MOTION") && !n && d->nodes.count) {
        lx->p += len;
        *done = d->motion = true;
        return OSSA_OK;
    }
    if (n)
        return ossa__bvh_fail(d, at, true, "expected %s'}' in the block of '%s' (line %u)",
                              n->end_site ? "OFFSET or "
                                          : "OFFSET, CHANNELS, JOINT, End Site or ",
                              ossa__intern_str(&d->names, n->name), n->line);
    return ossa__bvh_fail(d, at, true, d->nodes.count ? "expected ROOT or MOTION"
                                                      : "expected ROOT");
}

ossa_status ossa__bvh_read_hierarchy(bvh_doc *d)
{
    bvh_lex *lx = &d->lx;
    /* A UTF-8 byte order mark (EF BB BF) is skipped. */
    if (lx->end - lx->p >= 3 && memcmp(lx->p, "\xEF\xBB\xBF", 3) == 0) {
        ossa__bvh_warn(d, OSSA_WARNING_NONSTANDARD, lx->p, "a UTF-8 byte order mark is skipped");
        lx->p += 3;
    }
    ossa__bvh_skip_space(lx);
    if (!ossa__bvh_word_is(lx->p, ossa__bvh_token_len(lx), "HIERARCHY"))
        return ossa__bvh_fail(d, lx->p, true, "expected 'HIERARCHY' at the start of a BVH file");
    lx->p += 9;
    /* One open_state per node, grown with the node list. */
    ossa_list states = {0};
    int32_t cur = -1;
    bool done = false;
    ossa_status st = OSSA_OK;
    while (!st && !done) {
        if (!ossa__bvh_skip_space(lx)) {
            if (cur < 0 && d->nodes.count) {
                ossa__bvh_warn(d, OSSA_WARNING_TRUNCATED, lx->p,
                               "the file ends after the hierarchy: no MOTION section, no frames");
                break;
            }
            const bvh_node *n = cur >= 0 ? node_at(d, cur) : NULL;
            st = n ? ossa__bvh_fail(d, lx->p, true, "expected '}' closing '%s' (line %u)",
                                    ossa__intern_str(&d->names, n->name), n->line)
                   : ossa__bvh_fail(d, lx->p, true, "expected ROOT");
            break;
        }
        if (!ossa__list_reserve(d->model, &states, d->nodes.count + 1, sizeof(open_state))) {
            st = ossa__fail_nomem(d->error);
            break;
        }
        states.count = d->nodes.count + 1; /* what a later growth copies */
        st = hierarchy_step(d, &cur, (open_state *)states.data, &done);
    }
    ossa__list_free(d->model, &states);
    return st;
}

ossa_status ossa__bvh_add_joints(bvh_doc *d)
{
    for (size_t i = 0; i < d->nodes.count; i++) {
        const bvh_node *n = &OSSA_LIST_AT(d->nodes, bvh_node, i);
        ossa_transform bind = ossa_transform_identity();
        double v[3] = {n->offset[0], n->offset[1], n->offset[2]};
        ossa__bvh_to_model(v, bind.translation);
        if (ossa_model_add_joint(d->model, ossa__intern_str(&d->names, n->name), n->parent, &bind,
                                 d->error) < 0)
            return OSSA_FAILED;
    }
    return OSSA_OK;
}
