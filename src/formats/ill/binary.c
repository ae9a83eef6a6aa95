/* illEngine binary readers: ILLMESH0, ILLMESH1, ILLSKEL0, ILLANIM0 and
 * ILANSET0 (docs/formats/ill.md §7). Little-endian, floats are f32; every count
 * is checked against the data, in 64-bit arithmetic, before it is used. */
#include "formats/ill/ill.h"

#include <math.h>
#include <stdio.h>

typedef struct cursor {
    const unsigned char *data;
    size_t size, pos;
    ossa_error *error;
} cursor;

static ill_loc at_byte(uint64_t offset)
{
    ill_loc at = {offset, 0, 0};
    return at;
}

/* n more bytes must be there for `what`. */
static ossa_status need(cursor *c, uint64_t n, const char *what)
{
    if (n <= (uint64_t)(c->size - c->pos)) return OSSA_OK;
    return ossa__fail(c->error, OSSA_ERROR_TRUNCATED, c->pos,
                      "%s needs %llu bytes at byte %zu; the data has %zu", what,
                      (unsigned long long)n, c->pos, c->size);
}

static uint8_t u8(cursor *c) { return c->data[c->pos++]; }
static uint16_t u16(cursor *c)
{
    uint16_t v = ossa__rd16(c->data + c->pos);
    c->pos += 2;
    return v;
}
static uint32_t u32(cursor *c)
{
    uint32_t v = ossa__rd32(c->data + c->pos);
    c->pos += 4;
    return v;
}

/* A finite f32 at the cursor. */
static ossa_status f32(cursor *c, float *out, const char *what)
{
    *out = ossa__rdf32(c->data + c->pos);
    if (!isfinite(*out))
        return ossa__fail(c->error, OSSA_ERROR_CORRUPT, c->pos, "%s is not a finite number", what);
    c->pos += 4;
    return OSSA_OK;
}

static void trailing(ossa_model *model, const cursor *c)
{
    if (c->pos < c->size)
        ossa__warn(model, OSSA_WARNING_IGNORED, c->pos, 0, 0, "%zu bytes after the end of the data are ignored",
                   c->size - c->pos);
}

/* -- ILLMESH0 and ILLMESH1 --------------------------------------------------- */

typedef struct vertex_locator {
    size_t start;
    uint32_t stride;
} vertex_locator;

static void locate_vertex_value(void *user, uint32_t vertex, uint32_t slot, ill_loc *out)
{
    const vertex_locator *l = user;
    *out = at_byte(l->start + ((uint64_t)vertex * l->stride + slot) * 4);
}

enum { PRIM_POINTS, PRIM_LINES, PRIM_LINE_LOOP, PRIM_TRIANGLES, PRIM_STRIP, PRIM_FAN };

static ossa_status read_mesh(ossa_model *model, cursor *c, int version,
                             const ossa_load_options *options)
{
    /* ILLMESH0: u8 mask, u32 vertices, u16 indices. ILLMESH1: u8 mask,
     * u8 groups, u32 vertices, u16 indices, groups x {u8 type, u16 first,
     * u16 count}. */
    if (need(c, version ? 8 : 7, "the header")) return OSSA_FAILED;
    size_t mask_at = c->pos;
    unsigned mask = u8(c);
    uint32_t ng = version ? u8(c) : 0;
    uint32_t nv = u32(c);
    size_t ni_at = c->pos;
    uint32_t ni = u16(c);
    if (mask & ~(unsigned)ILL_ALL_FEATURES)
        return ossa__fail(c->error, OSSA_ERROR_UNSUPPORTED, mask_at,
                          "feature mask 0x%02x has unknown bits (known: 0x3f)", mask);
    if (!version && ni % 3)
        return ossa__fail(c->error, OSSA_ERROR_CORRUPT, ni_at,
                          "%u indices: expected a multiple of 3 (a triangle list)", ni);
    size_t groups_at = c->pos;
    if (need(c, (uint64_t)ng * 5, "the primitive groups")) return OSSA_FAILED;
    c->pos += (size_t)ng * 5;
    uint32_t stride = ossa__ill_vertex_floats(mask);
    size_t vertices_at = c->pos;
    /* Vertices without attributes take no bytes: at most one per byte of
     * the file, so that their count stays in proportion to it. */
    if (!stride && nv > c->size)
        return ossa__fail(c->error, OSSA_ERROR_CORRUPT, mask_at + (version ? 2 : 1),
                          "%u vertices without attributes in a file of %zu bytes", nv, c->size);
    if (need(c, (uint64_t)nv * stride * 4, "the vertices")) return OSSA_FAILED;
    float *v = ossa__ill_talloc(options, (size_t)nv * stride + 1, sizeof *v);
    if (!v) return ossa__fail_nomem(c->error);
    ossa_status st = OSSA_OK;
    for (size_t i = 0; i < (size_t)nv * stride && !st; i++) st = f32(c, &v[i], "a vertex value");
    size_t indices_at = c->pos;
    if (!st) st = need(c, (uint64_t)ni * 2, "the indices");
    uint32_t *idx = NULL;
    uint32_t nt = 0;
    /* Groups may share indices: count their triangles first. */
    uint64_t room = version ? 0 : ni / 3;
    for (uint32_t g = 0; g < ng; g++) {
        const unsigned char *p = c->data + groups_at + (size_t)g * 5;
        uint32_t count = ossa__rd16(p + 3);
        if (p[0] == PRIM_TRIANGLES) room += count / 3;
        if ((p[0] == PRIM_STRIP || p[0] == PRIM_FAN) && count > 2) room += count - 2;
    }
    if (!st) {
        idx = ossa__ill_talloc(options, (size_t)room * 3 + 3, sizeof *idx);
        if (!idx) st = ossa__fail_nomem(c->error);
    }
    for (uint32_t i = 0; i < ni && !st; i++) {
        uint32_t x = ossa__rd16(c->data + indices_at + (size_t)i * 2);
        if (x >= nv)
            st = ossa__fail(c->error, OSSA_ERROR_CORRUPT, indices_at + (size_t)i * 2,
                            "index %u: vertex %u is out of range (%u vertices)", i, x, nv);
    }
    if (!st) c->pos += (size_t)ni * 2;
    const unsigned char *ix = c->data + indices_at;
#define IX(i) ((uint32_t)ossa__rd16(ix + (size_t)(i) * 2))
    if (!st && !version) {
        for (uint32_t i = 0; i < ni; i++) idx[i] = IX(i);
        nt = ni / 3;
    }
    /* Primitive groups: lists, strips and fans become triangles in
     * OpenGL's order (a strip's odd triangles swap their first two
     * corners); degenerate strip and fan triangles (restarts) are dropped. */
    uint64_t skipped = 0;
    for (uint32_t g = 0; g < ng && !st; g++) {
        size_t at = groups_at + (size_t)g * 5;
        unsigned type = c->data[at];
        uint32_t first = ossa__rd16(c->data + at + 1), count = ossa__rd16(c->data + at + 3);
        if ((uint64_t)first + count > ni) {
            st = ossa__fail(c->error, OSSA_ERROR_CORRUPT, at + 1,
                            "primitive group %u: indices %u to %llu are out of range (%u indices)",
                            g, first, (unsigned long long)first + count, ni);
            break;
        }
        switch (type) {
        case PRIM_TRIANGLES:
            if (count % 3)
                ossa__warn(model, OSSA_WARNING_TRUNCATED, at + 3, 0, 0,
                           "primitive group %u: %u indices are not whole triangles; the last %u "
                           "are ignored",
                           g, count, count % 3);
            for (uint32_t i = 0; i + 2 < count; i += 3) {
                idx[nt * 3] = IX(first + i);
                idx[nt * 3 + 1] = IX(first + i + 1);
                idx[nt * 3 + 2] = IX(first + i + 2);
                nt++;
            }
            break;
        case PRIM_STRIP:
        case PRIM_FAN:
            for (uint32_t i = 0; i + 2 < count; i++) {
                uint32_t a, b, d = IX(first + i + 2);
                if (type == PRIM_FAN) {
                    a = IX(first);
                    b = IX(first + i + 1);
                } else if (i % 2 == 0) {
                    a = IX(first + i);
                    b = IX(first + i + 1);
                } else {
                    a = IX(first + i + 1);
                    b = IX(first + i);
                }
                if (a == b || b == d || a == d) continue;
                idx[nt * 3] = a;
                idx[nt * 3 + 1] = b;
                idx[nt * 3 + 2] = d;
                nt++;
            }
            break;
        case PRIM_POINTS:
        case PRIM_LINES:
        case PRIM_LINE_LOOP:
            skipped++;
            break;
        default:
            st = ossa__fail(c->error, OSSA_ERROR_CORRUPT, at,
                            "primitive group %u: type %u is unknown (0 to 5)", g, type);
        }
    }
#undef IX
    if (skipped)
        ossa__warn(model, OSSA_WARNING_IGNORED, groups_at, 0, 0,
                   "%llu primitive groups of points or lines are not triangles: ignored",
                   (unsigned long long)skipped);
    if (!st) {
        trailing(model, c);
        vertex_locator loc = {vertices_at, stride};
        ill_mesh mesh = {mask, nv, v, nt, idx, locate_vertex_value, &loc};
        st = ossa__ill_build_mesh(model, &mesh, options, c->error);
    }
    ossa__ill_tfree(options, v);
    ossa__ill_tfree(options, idx);
    return st;
}

/* -- ILLSKEL0 ---------------------------------------------------------------- */

static void mul4d(const double a[16], const double b[16], double out[16])
{
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + row] * b[col * 4 + k];
            out[col * 4 + row] = s;
        }
}

/* The stored offset matrices should be the inverse of the accumulated bind
 * pose (docs/formats/ill.md §7); ossa derives its own from the bind pose, so a mismatch
 * is only reported. Called after the skeleton was accepted (no cycles). */
static void check_offsets(ossa_model *model, const ill_bone *bones, const double *offsets,
                          uint32_t n, size_t first_at, const ossa_load_options *options)
{
    double *world = ossa__ill_talloc(options, (size_t)n * 16 + 1, sizeof *world);
    unsigned char *done = ossa__ill_talloc(options, (size_t)n + 1, 1);
    uint32_t *chain = ossa__ill_talloc(options, (size_t)n + 1, sizeof *chain);
    if (!world || !done || !chain) goto out;
    memset(done, 0, n);
    uint64_t bad = 0;
    uint32_t first_bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t depth = 0;
        for (int64_t j = i; j >= 0 && !done[j]; j = bones[j].parent) {
            chain[depth++] = (uint32_t)j;
            if (bones[j].parent == j || depth > n) break;
        }
        while (depth) {
            uint32_t j = chain[--depth];
            int64_t p = bones[j].parent;
            if (p >= 0 && p != j)
                mul4d(world + (size_t)p * 16, bones[j].matrix, world + (size_t)j * 16);
            else
                memcpy(world + (size_t)j * 16, bones[j].matrix, 16 * sizeof *world);
            done[j] = 1;
        }
        double prod[16], err = 0, big = 1;
        mul4d(offsets + (size_t)i * 16, world + (size_t)i * 16, prod);
        for (int k = 0; k < 16; k++) {
            double e = fabs(prod[k] - (k % 5 == 0));
            if (e > err) err = e;
            if (fabs(world[(size_t)i * 16 + (size_t)k]) > big) big = fabs(world[(size_t)i * 16 + (size_t)k]);
        }
        if (!(err <= 1e-3 * big) && !bad++) first_bad = i;
    }
    if (bad)
        ossa__warn(model, OSSA_WARNING_INCONSISTENT, first_at + (size_t)first_bad * 128 + 64, 0, 0,
                   "%llu offset matrices (first: bone %u) are not the inverse of the accumulated "
                   "bind pose; ossa uses the bind pose",
                   (unsigned long long)bad, first_bad);
out:
    ossa__ill_tfree(options, world);
    ossa__ill_tfree(options, done);
    ossa__ill_tfree(options, chain);
}

static ossa_status read_skeleton(ossa_model *model, cursor *c, const ossa_load_options *options)
{
    /* u16 bones; per bone 16 f32 relative bind and 16 f32 offset matrix,
     * both column-major; then u16 parents, root = own index. */
    if (need(c, 2, "the bone count")) return OSSA_FAILED;
    uint32_t n = u16(c);
    size_t first_at = c->pos;
    if (need(c, (uint64_t)n * 130, "the bones")) return OSSA_FAILED;
    ill_bone *bones = ossa__ill_talloc(options, (size_t)n + 1, sizeof *bones);
    double *offsets = ossa__ill_talloc(options, (size_t)n * 16 + 1, sizeof *offsets);
    ossa_status st = OSSA_OK;
    if (!bones || !offsets) st = ossa__fail_nomem(c->error);
    for (uint32_t i = 0; i < n && !st; i++) {
        memset(&bones[i], 0, sizeof bones[i]);
        bones[i].at = at_byte(c->pos);
        for (int k = 0; k < 16 && !st; k++) {
            float f;
            st = f32(c, &f, "a bind matrix value");
            bones[i].matrix[k] = f;
        }
        for (int k = 0; k < 16 && !st; k++) {
            float f;
            st = f32(c, &f, "an offset matrix value");
            offsets[(size_t)i * 16 + (size_t)k] = f;
        }
    }
    for (uint32_t i = 0; i < n && !st; i++) {
        bones[i].parent_at = at_byte(c->pos);
        uint32_t p = u16(c);
        /* The root names itself; 0xFFFF would be a -1 stored in 16 bits. */
        bones[i].parent = p == 0xffff ? -1 : (int64_t)p;
    }
    if (!st) st = ossa__ill_build_skeleton(model, bones, n, false, options, c->error);
    if (!st) {
        check_offsets(model, bones, offsets, n, first_at, options);
        trailing(model, c);
    }
    ossa__ill_tfree(options, bones);
    ossa__ill_tfree(options, offsets);
    return st;
}

/* -- ILLANIM0 ---------------------------------------------------------------- */

/* One channel: u16 count, then count x (f32 time, width x f32). On the
 * second pass (`times` set) the keys are copied. */
static ossa_status channel(cursor *c, int width, uint32_t *count, float *times, float *values,
                           const char *what)
{
    if (need(c, 2, what)) return OSSA_FAILED;
    uint32_t n = u16(c);
    if (need(c, (uint64_t)n * (uint64_t)(width + 1) * 4, what)) return OSSA_FAILED;
    float prev = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        float t;
        if (f32(c, &t, "a key time")) return OSSA_FAILED;
        if (t < prev)
            return ossa__fail(c->error, OSSA_ERROR_CORRUPT, c->pos - 4,
                              "key time %g comes before the previous key's %g", (double)t,
                              (double)prev);
        prev = t;
        if (times) times[i] = t;
        for (int k = 0; k < width; k++) {
            float v;
            if (f32(c, &v, "a key value")) return OSSA_FAILED;
            if (values) values[(size_t)i * (size_t)width + (size_t)k] = v;
        }
    }
    *count = n;
    return OSSA_OK;
}

static ossa_status read_anim(ossa_model *model, cursor *c, const ossa_load_options *options)
{
    /* f32 duration, u16 bones; per bone u16 index, then the position,
     * rotation (x y z w) and scale channels. */
    if (need(c, 6, "the header")) return OSSA_FAILED;
    ill_loc duration_at = at_byte(c->pos);
    float duration = ossa__rdf32(c->data + c->pos);
    c->pos += 4;
    uint32_t nb = u16(c);
    size_t start = c->pos;
    ill_track *tracks = ossa__ill_talloc(options, (size_t)nb + 1, sizeof *tracks);
    if (!tracks) return ossa__fail_nomem(c->error);
    /* First pass: structure and key counts; second: copy. */
    ossa_status st = OSSA_OK;
    uint64_t floats = 0;
    for (uint32_t i = 0; i < nb && !st; i++) {
        ill_track *t = &tracks[i];
        memset(t, 0, sizeof *t);
        st = need(c, 2, "a bone index");
        if (st) break;
        t->at = at_byte(c->pos);
        t->index = u16(c);
        st = channel(c, 3, &t->pos.count, NULL, NULL, "the position keys");
        if (!st) st = channel(c, 4, &t->rot.count, NULL, NULL, "the rotation keys");
        if (!st) st = channel(c, 3, &t->scale.count, NULL, NULL, "the scale keys");
        floats += (uint64_t)t->pos.count * 4 + (uint64_t)t->rot.count * 5 + (uint64_t)t->scale.count * 4;
    }
    float *keys = NULL;
    if (!st) {
        keys = ossa__ill_talloc(options, (size_t)floats + 1, sizeof *keys);
        if (!keys) st = ossa__fail_nomem(c->error);
    }
    if (!st) {
        c->pos = start;
        float *k = keys;
        for (uint32_t i = 0; i < nb && !st; i++) {
            ill_track *t = &tracks[i];
            ill_keys *ch[3] = {&t->pos, &t->rot, &t->scale};
            static const int width[3] = {3, 4, 3};
            c->pos += 2;
            for (int j = 0; j < 3 && !st; j++) {
                uint32_t n = ch[j]->count;
                ch[j]->times = k;
                ch[j]->values = k + n;
                st = channel(c, width[j], &ch[j]->count, k, k + n, "keys");
                k += (size_t)n * (size_t)(width[j] + 1);
            }
        }
    }
    if (!st) {
        /* ossa's writer keeps the name and loop flag after the data, as
         * text files hold them after the last frame (write_binary.c) */
        ossa_anim_tag tag;
        const char *rest = (const char *)c->data + c->pos;
        size_t left = c->size - c->pos, line = left && rest[left - 1] == '\n' ? left - 1 : left;
        bool tagged = left && ossa__anim_tag_parse(rest, line, &tag);
        if (!tagged) trailing(model, c);
        st = ossa__ill_build_keyed(model, duration, duration_at, tracks, nb, c->size, options,
                                   c->error);
        if (!st && tagged) st = ossa__ill_apply_tag(model, &tag, c->error);
    }
    ossa__ill_tfree(options, tracks);
    ossa__ill_tfree(options, keys);
    return st;
}

/* -- ILANSET0 ---------------------------------------------------------------- */

/* u16 count, then count x (u16 length, bytes). Returns the end of the list
 * or 0 when it does not fit; *bad_at gets the failing offset. */
static size_t walk_names(const cursor *c, bool big_endian, size_t *bad_at)
{
    size_t pos = c->pos + 2;
    uint32_t n = ossa__rd16(c->data + c->pos);
    for (uint32_t i = 0; i < n; i++) {
        if (c->size - pos < 2) {
            *bad_at = pos;
            return 0;
        }
        const unsigned char *p = c->data + pos;
        size_t len = big_endian ? (size_t)(p[0] << 8 | p[1]) : (size_t)(p[0] | p[1] << 8);
        pos += 2;
        if (c->size - pos < len) {
            *bad_at = pos - 2;
            return 0;
        }
        pos += len;
    }
    return pos;
}

static ossa_status read_anset(ossa_model *model, cursor *c, const ossa_load_options *options)
{
    if (need(c, 2, "the name count")) return OSSA_FAILED;
    /* Name lengths are big-endian; one transient file of the demo stored
     * them little-endian (docs/formats/ill.md §7): taken when it fits the data exactly
     * and the big-endian reading does not. */
    size_t bad_be = 0, bad_le = 0;
    size_t end_be = walk_names(c, true, &bad_be), end_le = walk_names(c, false, &bad_le);
    bool big_endian = true;
    if (end_be != c->size && end_le == c->size) {
        big_endian = false;
        ossa__warn(model, OSSA_WARNING_NONSTANDARD, c->pos, 0, 0,
                   "name lengths are little-endian (an early variant of the format)");
    } else if (!end_be) {
        return ossa__fail(c->error, OSSA_ERROR_TRUNCATED, bad_be,
                          "the data ends inside a bone name (%zu bytes)", c->size);
    }
    uint32_t n = u16(c);
    ossa_status st = OSSA_OK;
    char *name = ossa__ill_talloc(options, 65536, 1);
    if (!name) return ossa__fail_nomem(c->error);
    uint64_t dups = 0;
    uint32_t first_dup = 0;
    ill_name_set set;
    if (!ossa__ill_set_init(&set, n, options->allocator)) {
        ossa__ill_tfree(options, name);
        return ossa__fail_nomem(c->error);
    }
    for (uint32_t i = 0; i < n && !st; i++) {
        const unsigned char *p = c->data + c->pos;
        size_t len = big_endian ? (size_t)(p[0] << 8 | p[1]) : (size_t)(p[0] | p[1] << 8);
        c->pos += 2;
        if (memchr(c->data + c->pos, 0, len)) {
            st = ossa__fail(c->error, OSSA_ERROR_CORRUPT, c->pos, "bone name %u holds a NUL byte", i);
            break;
        }
        memcpy(name, c->data + c->pos, len);
        name[len] = 0;
        c->pos += len;
        if (ossa_model_add_joint(model, name, -1, NULL, c->error) < 0) {
            st = OSSA_FAILED;
            break;
        }
        /* The model's copy outlives the set. */
        if (ossa__ill_set_add(&set, model->joints[i].name) && !dups++) first_dup = i;
    }
    ossa__ill_tfree(options, name);
    ossa__ill_tfree(options, (void *)set.slot);
    if (st) return st;
    if (dups)
        ossa__warn(model, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, 0, 0,
                   "%llu bone names repeat earlier ones (first: name %u); the engine keeps the "
                   "first",
                   (unsigned long long)dups, first_dup);
    trailing(model, c);
    model->flags |= OSSA_MODEL_NAMES_ONLY;
    return OSSA_OK;
}

ossa_status ossa__ill_read_binary(ossa_model *model, ill_kind kind, int version,
                                  const unsigned char *data, size_t size,
                                  const ossa_load_options *options, ossa_error *error)
{
    cursor c = {data, size, ILL_MAGIC_SIZE, error};
    switch (kind) {
    case ILL_MESH: return read_mesh(model, &c, version, options);
    case ILL_SKEL: return read_skeleton(model, &c, options);
    case ILL_ANIM: return read_anim(model, &c, options);
    case ILL_ANSET: return read_anset(model, &c, options);
    }
    return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, 0, "unknown illEngine file kind");
}
