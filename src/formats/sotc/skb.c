/* Shadow of the Colossus skeletons (.skb, docs/formats/sotc.md §4): main bones with
 * names, parents and bind pose; "opt" bones and the unknown blocks after the
 * bone pointers are kept as extras so that a round trip keeps them. */
#include "formats/sotc/sotc.h"

#include <math.h>
#include <stdio.h>

#define SKB_HEADER_SIZE 0x2C
#define SKB_BONE_SIZE 64
#define SKB_TAIL_SIZE 28 /* the unknown struct that pointer entry N names */

/* Extras: the opt bones as {u32 count; count x 64-byte records whose +0
 * is an offset into the names that follow; names}, and the unknown header
 * bytes 0x10..0x1F plus the three unknown blocks after the bone pointers
 * (16 + 28 + 4 + 4 bytes), all as in the file. */
#define SKB_EXTRA_OPT "sotc.skb.opt"
#define SKB_EXTRA_UNKNOWN "sotc.skb.unknown"
#define SKB_UNKNOWN_SIZE (16 + SKB_TAIL_SIZE + 4 + 4)

/* -- Reading -- */

/* Bones may all share one long name: name bytes copied beyond this are out
 * of proportion to the file. */
static uint64_t name_limit(const sotc_xff *x) { return ((uint64_t)16 << 20) + (uint64_t)x->size * 16; }

/* Opt bones are not needed to use the skeleton: a bad block is dropped with
 * a warning instead of failing the load. */
static ossa_status read_opt_bones(ossa_model *m, const sotc_xff *x, ossa_error *error)
{
    uint32_t e = x->entry, count = ossa__rd32(xff_at(x, e + 0x20));
    uint32_t recs = ossa__rd32(xff_at(x, e + 0x24)), names = ossa__rd32(xff_at(x, e + 0x28));
    if (!count) return OSSA_OK;
    if (!ossa__xff_fits(x, recs, count, SKB_BONE_SIZE)) {
        ossa__warn(m, OSSA_WARNING_DROPPED, xff_file(x, e + 0x24), 0, 0,
                   "%u opt bones at .rodata offset %u run past .rodata: opt bones dropped", count,
                   recs);
        return OSSA_OK;
    }
    /* Names first, to size the blob. */
    uint64_t name_bytes = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t at = (uint64_t)recs + (uint64_t)i * SKB_BONE_SIZE;
        const char *name;
        if (ossa__xff_string(x, (uint64_t)names + ossa__rd32(xff_at(x, at)), at, "opt bone name",
                             &name, NULL)) {
            ossa__warn(m, OSSA_WARNING_DROPPED, xff_file(x, at), 0, 0,
                       "opt bone %u: name outside .rodata: opt bones dropped", i);
            return OSSA_OK;
        }
        name_bytes += strlen(name) + 1;
        if (name_bytes > name_limit(x)) {
            ossa__warn(m, OSSA_WARNING_DROPPED, xff_file(x, at), 0, 0,
                       "opt bone names add up to more than %llu bytes, out of proportion to the "
                       "file: opt bones dropped",
                       (unsigned long long)name_limit(x));
            return OSSA_OK;
        }
    }
    size_t size = 4 + (size_t)count * SKB_BONE_SIZE + (size_t)name_bytes;
    unsigned char *blob = ossa__arena_alloc(ossa__model_arena(m), size);
    if (!blob) return ossa__fail_nomem(error);
    ossa__wr32(blob, count);
    size_t name_at = 4 + (size_t)count * SKB_BONE_SIZE;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t at = (uint64_t)recs + (uint64_t)i * SKB_BONE_SIZE;
        unsigned char *rec = blob + 4 + (size_t)i * SKB_BONE_SIZE;
        memcpy(rec, xff_at(x, at), SKB_BONE_SIZE);
        const char *name = (const char *)xff_at(x, (uint64_t)names + ossa__rd32(rec));
        size_t len = strlen(name) + 1;
        ossa__wr32(rec, (uint32_t)(name_at - 4 - (size_t)count * SKB_BONE_SIZE));
        memcpy(blob + name_at, name, len);
        name_at += len;
    }
    return ossa_model_add_extra(m, SKB_EXTRA_OPT, blob, size, error);
}

/* Header bytes 0x10..0x1F and the blocks that pointer entries N..N+2 name,
 * when all are inside .rodata. */
static ossa_status read_unknown(ossa_model *m, const sotc_xff *x, uint32_t n, ossa_error *error)
{
    unsigned char blob[SKB_UNKNOWN_SIZE];
    uint64_t pairs = (uint64_t)x->entry + SKB_HEADER_SIZE + (uint64_t)n * 8;
    uint32_t tail = ossa__rd32(xff_at(x, pairs)), a = ossa__rd32(xff_at(x, pairs + 8)),
             b = ossa__rd32(xff_at(x, pairs + 16));
    if (!ossa__xff_fits(x, tail, 1, SKB_TAIL_SIZE) || !ossa__xff_fits(x, a, 1, 4) ||
        !ossa__xff_fits(x, b, 1, 4))
        return OSSA_OK;
    memcpy(blob, xff_at(x, x->entry + 0x10), 16);
    memcpy(blob + 16, xff_at(x, tail), SKB_TAIL_SIZE);
    memcpy(blob + 16 + SKB_TAIL_SIZE, xff_at(x, a), 4);
    memcpy(blob + 20 + SKB_TAIL_SIZE, xff_at(x, b), 4);
    return ossa_model_add_extra(m, SKB_EXTRA_UNKNOWN, blob, sizeof blob, error);
}

ossa_status ossa__skb_read(ossa_model *m, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    (void)options;
    sotc_xff x;
    if (ossa__xff_open(&x, data, size, error)) return OSSA_FAILED;
    uint32_t e = x.entry;
    if (ossa__xff_need(&x, e, 1, SKB_HEADER_SIZE, e, "skeleton header", error))
        return OSSA_FAILED;
    const unsigned char *h = xff_at(&x, e);
    if (ossa__rd32(h) != 1)
        return ossa__fail(error, OSSA_ERROR_FORMAT, xff_file(&x, e),
                          "expected a skeleton (first word 1), found %u", ossa__rd32(h));
    uint32_t n = ossa__rd32(h + 4), strtab = ossa__rd32(h + 0x0C);
    /* N + 3 pointer pairs; the N name pairs after them are not needed (each
     * record holds its own name offset). */
    if (ossa__xff_need(&x, (uint64_t)e + SKB_HEADER_SIZE, (uint64_t)n + 3, 8, e + 4,
                       "bone pointers", error))
        return OSSA_FAILED;
    uint64_t name_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t field = (uint64_t)e + SKB_HEADER_SIZE + (uint64_t)i * 8;
        uint32_t at = ossa__rd32(xff_at(&x, field));
        char what[48];
        snprintf(what, sizeof what, "bone %u", i);
        if (ossa__xff_need(&x, at, 1, SKB_BONE_SIZE, field, what, error)) return OSSA_FAILED;
        const unsigned char *rec = xff_at(&x, at);
        const char *name;
        if (ossa__xff_string(&x, (uint64_t)strtab + ossa__rd32(rec), at, what, &name, error))
            return OSSA_FAILED;
        name_bytes += strlen(name) + 1;
        if (name_bytes > name_limit(&x))
            return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, xff_file(&x, at),
                              "bone %u: bone names add up to more than %llu bytes, out of "
                              "proportion to a %u-byte file",
                              i, (unsigned long long)name_limit(&x), x.size);
        int32_t parent = (int32_t)ossa__rd32(rec + 0x38);
        /* Bones are evaluated in array order (docs/formats/sotc.md §4.2), and .anb tracks
         * and skin weights address them by index: a parent after its child
         * cannot be reordered without breaking those, so it is an error. */
        if (parent < -1 || parent >= (int32_t)i)
            return ossa__fail(error, OSSA_ERROR_CORRUPT, xff_file(&x, at + 0x38),
                              "bone %u '%s': parent %d does not come before it (bones are "
                              "evaluated in array order)",
                              i, name, parent);
        ossa_transform t = ossa_transform_identity();
        float stored[4];
        for (int k = 0; k < 3; k++) t.translation[k] = ossa__rdf32(rec + 0x10 + 4 * k);
        for (int k = 0; k < 4; k++) stored[k] = ossa__rdf32(rec + 0x20 + 4 * k);
        sotc_quat_to_model(stored, t.rotation);
        ossa__quat_tidy(t.rotation);
        if (ossa_model_add_joint(m, name, parent, &t, error) < 0) return OSSA_FAILED;
    }
    if (read_opt_bones(m, &x, error) || read_unknown(m, &x, n, error)) return OSSA_FAILED;
    return OSSA_OK;
}

bool ossa__skb_sniff(const unsigned char *data, size_t size)
{
    uint32_t first;
    return ossa__xff_sniff(data, size, &first) && first == 1;
}

/* -- Writing (docs/formats/sotc.md §9.2) -- */

static const ossa_extra *find_extra(const ossa_model *m, const char *key)
{
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, key) == 0) return &m->extras[i];
    return NULL;
}

/* Checks a "sotc.skb.opt" blob: its records and NUL-terminated names. */
static bool opt_blob_ok(const ossa_extra *e, uint32_t *count, size_t *names)
{
    if (!e || e->size < 4) return false;
    const unsigned char *p = e->data;
    *count = ossa__rd32(p);
    if ((uint64_t)*count * SKB_BONE_SIZE > e->size - 4) return false;
    *names = 4 + (size_t)*count * SKB_BONE_SIZE;
    size_t names_size = e->size - *names;
    for (uint32_t i = 0; i < *count; i++) {
        uint32_t ofs = ossa__rd32(p + 4 + (size_t)i * SKB_BONE_SIZE);
        if (ofs >= names_size || !memchr(p + *names + ofs, 0, names_size - ofs)) return false;
    }
    return true;
}

ossa_status ossa__skb_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out,
                             ossa_error *error)
{
    uint32_t n = m->num_joints;
    if (!n)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the model has no joints: a .skb holds a skeleton");
    const ossa_extra *opt = find_extra(m, SKB_EXTRA_OPT);
    const ossa_extra *unknown = find_extra(m, SKB_EXTRA_UNKNOWN);
    uint32_t opt_count = 0;
    size_t opt_names = 0;
    if (opt && !opt_blob_ok(opt, &opt_count, &opt_names)) {
        ossa__write_warn(options, OSSA_WARNING_DROPPED, "the model's opt-bone data is malformed: opt bones not written");
        opt = NULL;
        opt_count = 0;
    }
    if (unknown && unknown->size != SKB_UNKNOWN_SIZE) unknown = NULL;

    uint32_t scaled = 0;
    for (uint32_t j = 0; j < n; j++) {
        const float *s = m->joints[j].bind.scale;
        if (fabsf(s[0] - 1) > 1e-6f || fabsf(s[1] - 1) > 1e-6f || fabsf(s[2] - 1) > 1e-6f) {
            if (!scaled)
                ossa__write_warn(options, OSSA_WARNING_DROPPED,
                                "joint %u '%s': bind scale (%g, %g, %g) dropped: .skb bones have "
                                "no scale",
                                j, m->joints[j].name, s[0], s[1], s[2]);
            scaled++;
        }
    }
    if (scaled > 1)
        ossa__write_warn(options, OSSA_WARNING_DROPPED, "%u joints in all have a bind scale that is dropped", scaled);

    sotc_rodata r;
    ossa__ro_init(&r, options->allocator);
    uint32_t h = ossa__ro_alloc(&r, SKB_HEADER_SIZE, 16);
    uint32_t pairs = ossa__ro_alloc(&r, ((size_t)n + 3) * 8, 4);
    uint32_t name_pairs = ossa__ro_alloc(&r, (size_t)n * 8, 4);
    uint32_t bones = ossa__ro_alloc(&r, (size_t)n * SKB_BONE_SIZE, 16);
    uint32_t strtab = ossa__ro_alloc(&r, 0, 4);
    for (uint32_t j = 0; j < n && !ossa__ro_failed(&r); j++) {
        const ossa_joint *jt = &m->joints[j];
        uint32_t name = ossa__ro_string(&r, jt->name) - strtab;
        uint32_t rec = bones + j * SKB_BONE_SIZE;
        ossa__ro_ptr(&r, pairs + 8 * j, rec);
        ossa__ro_u32(&r, name_pairs + 8 * j, name);
        ossa__ro_u32(&r, rec, name);
        ossa__ro_u32(&r, rec + 0x04, 0xFFFFFFFFu);
        ossa__ro_u32(&r, rec + 0x08, 0xFFFFFFFFu);
        ossa__ro_f32(&r, rec + 0x0C, 0.0f);
        for (int k = 0; k < 3; k++) ossa__ro_f32(&r, rec + 0x10 + 4 * k, jt->bind.translation[k]);
        ossa__ro_f32(&r, rec + 0x1C, 1.0f);
        float q[4], stored[4];
        memcpy(q, jt->bind.rotation, sizeof q);
        ossa__quat_normalize(q);
        sotc_quat_to_model(q, stored); /* the conversion is its own inverse */
        for (int k = 0; k < 4; k++) ossa__ro_f32(&r, rec + 0x20 + 4 * k, stored[k]);
        /* Links A and B: first child and next sibling (docs/formats/sotc.md §9.2). */
        int32_t child = -1, sibling = -1;
        for (uint32_t c = j + 1; c < n && child < 0; c++)
            if (m->joints[c].parent == (int32_t)j) child = (int32_t)c;
        for (uint32_t s = j + 1; s < n && sibling < 0; s++)
            if (m->joints[s].parent == jt->parent) sibling = (int32_t)s;
        ossa__ro_u32(&r, rec + 0x30, (uint32_t)child);
        ossa__ro_u32(&r, rec + 0x34, (uint32_t)sibling);
        ossa__ro_u32(&r, rec + 0x38, (uint32_t)jt->parent);
        ossa__ro_f32(&r, rec + 0x3C, 0.0f);
    }

    /* Opt bones: records, then their names. */
    uint32_t opt_recs = ossa__ro_alloc(&r, (size_t)opt_count * SKB_BONE_SIZE, 16);
    uint32_t opt_strtab = ossa__ro_alloc(&r, 0, 4);
    if (opt && !ossa__ro_failed(&r)) {
        const unsigned char *p = opt->data;
        memcpy(r.data.data + opt_recs, p + 4, (size_t)opt_count * SKB_BONE_SIZE);
        for (uint32_t i = 0; i < opt_count; i++) {
            const char *name = (const char *)p + opt_names + ossa__rd32(p + 4 + (size_t)i * 64);
            uint32_t ofs = ossa__ro_string(&r, name) - opt_strtab;
            ossa__ro_u32(&r, opt_recs + i * SKB_BONE_SIZE, ofs);
        }
    }

    /* The unknown blocks that pointer entries N, N+1 and N+2 name. */
    const unsigned char *u = unknown ? unknown->data : NULL;
    uint32_t tail = ossa__ro_alloc(&r, SKB_TAIL_SIZE + 8, 16);
    if (u && !ossa__ro_failed(&r)) {
        memcpy(r.data.data + tail, u + 16, SKB_TAIL_SIZE + 8);
        memcpy(r.data.data + h + 0x10, u, 16);
    }
    ossa__ro_ptr(&r, pairs + 8 * n, tail);
    ossa__ro_ptr(&r, pairs + 8 * (n + 1), tail + SKB_TAIL_SIZE);
    ossa__ro_ptr(&r, pairs + 8 * (n + 2), tail + SKB_TAIL_SIZE + 4);

    ossa__ro_u32(&r, h, 1);
    ossa__ro_u32(&r, h + 4, n);
    /* +0x08 is a pointer of unknown purpose; it is left 0 (dormin ignores it). */
    ossa__ro_ptr(&r, h + 0x0C, strtab);
    ossa__ro_u32(&r, h + 0x20, opt_count);
    ossa__ro_ptr(&r, h + 0x24, opt_recs);
    ossa__ro_ptr(&r, h + 0x28, opt_strtab);

    ossa_status st = ossa__xff_write(&r, h, 0, out, error);
    ossa__ro_release(&r);
    return st;
}
