/* The binary FBX 7.4 container (fbx.md §2, §15): the header, records with
 * 13-byte headers patched when they close, typed values, arrays (zlib where
 * that is smaller), null records and the footer. Every byte is little-endian
 * whatever the host. Failures (memory, a file past 4 GiB) are remembered in
 * the writer and reported once by the entry point. */
#include "formats/fbx/write.h"

#include <stdio.h>

/* §2.1: "Kaydara FBX Binary", two spaces, NUL, 0x1A, NUL. */
static const unsigned char magic[23] = "Kaydara FBX Binary  \0\x1a";

/* §2.5, as Blender's exporter and the FBX SDK end a file: a 16-byte block,
 * zero padding, the version, 120 zero bytes and this constant. */
static const unsigned char foot_id[16] = {0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66,
                                          0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e};
static const unsigned char foot_magic[16] = {0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
                                             0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b};

enum { HEADER = 13 }; /* record header below version 7500 (§2.2) */

static unsigned char *push(fbxw *w, size_t n)
{
    unsigned char *p = ossa__buf_push(w->out, n);
    if (!p) w->nomem = true;
    return p;
}

void *ossa__fbxw_scratch(fbxw *w, size_t bytes)
{
    if (bytes <= w->tmp_cap) return w->tmp;
    size_t cap = w->tmp_cap ? w->tmp_cap : 4096;
    while (cap < bytes) cap = cap > SIZE_MAX / 2 ? bytes : cap * 2;
    void *p = ossa__alloc(w->alloc, cap);
    if (!p) {
        w->nomem = true;
        return NULL;
    }
    ossa__free(w->alloc, w->tmp, w->tmp_cap);
    w->tmp = p;
    w->tmp_cap = cap;
    return p;
}

static unsigned char *le_scratch(fbxw *w, size_t bytes)
{
    if (bytes <= w->le_cap) return w->le;
    size_t cap = w->le_cap ? w->le_cap : 4096;
    while (cap < bytes) cap = cap > SIZE_MAX / 2 ? bytes : cap * 2;
    unsigned char *p = ossa__alloc(w->alloc, cap);
    if (!p) {
        w->nomem = true;
        return NULL;
    }
    ossa__free(w->alloc, w->le, w->le_cap);
    w->le = p;
    w->le_cap = cap;
    return p;
}

void ossa__fbxw_header(fbxw *w)
{
    unsigned char *p = push(w, 27);
    if (!p) return;
    memcpy(p, magic, 23);
    ossa__wr32(p + 23, FBXW_VERSION);
}

/* Values end where the first child begins (or the record ends). */
static void close_values(fbxw *w, fbxw_open *o)
{
    if (o->values_closed || w->nomem) return;
    o->values_closed = true;
    size_t len = w->out->size - o->values_start;
    ossa__wr32(w->out->data + o->start + 4, o->num_values);
    ossa__wr32(w->out->data + o->start + 8, (uint32_t)len);
}

void ossa__fbxw_begin(fbxw *w, const char *name)
{
    if (w->depth >= FBXW_MAX_DEPTH) {
        /* Nothing the writer makes nests this deep: a bug, not an input. */
        w->failed = true;
        ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "FBX records nest too deep");
        return;
    }
    if (w->depth > 0) {
        fbxw_open *parent = &w->open[w->depth - 1];
        close_values(w, parent);
        parent->has_children = true;
    }
    size_t n = strlen(name);
    if (n > 255) n = 255;
    fbxw_open *o = &w->open[w->depth++];
    memset(o, 0, sizeof *o);
    o->start = w->out->size;
    unsigned char *p = push(w, HEADER + n);
    if (!p) return;
    p[12] = (unsigned char)n;
    memcpy(p + HEADER, name, n);
    o->values_start = w->out->size;
}

void ossa__fbxw_end(fbxw *w)
{
    if (w->depth <= 0) return;
    fbxw_open *o = &w->open[--w->depth];
    close_values(w, o);
    const unsigned char *name = w->nomem ? NULL : w->out->data + o->start + HEADER;
    size_t name_len = name ? name[-1] : 0;
    bool sentinel = o->has_children || o->num_values == 0 ||
                    (name_len == 14 && memcmp(name, "AnimationStack", 14) == 0) ||
                    (name_len == 14 && memcmp(name, "AnimationLayer", 14) == 0);
    if (sentinel) push(w, HEADER); /* zeroed: the null record */
    if (w->nomem) return;
    if (w->out->size > UINT32_MAX) {
        if (!w->failed)
            ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                       "the FBX file would pass 4 GiB, beyond the 32-bit offsets of FBX 7.4");
        w->failed = true;
        return;
    }
    ossa__wr32(w->out->data + o->start, (uint32_t)w->out->size);
}

static unsigned char *value(fbxw *w, char type, size_t payload)
{
    if (w->depth <= 0) return NULL;
    fbxw_open *o = &w->open[w->depth - 1];
    o->num_values++;
    unsigned char *p = push(w, 1 + payload);
    if (p) p[0] = (unsigned char)type;
    return p ? p + 1 : NULL;
}

static void put64(unsigned char *p, uint64_t v)
{
    ossa__wr32(p, (uint32_t)v);
    ossa__wr32(p + 4, (uint32_t)(v >> 32));
}

void ossa__fbxw_bool(fbxw *w, bool v)
{
    unsigned char *p = value(w, 'C', 1);
    if (p) p[0] = v ? 1 : 0;
}

void ossa__fbxw_i32(fbxw *w, int32_t v)
{
    unsigned char *p = value(w, 'I', 4);
    if (p) ossa__wr32(p, (uint32_t)v);
}

void ossa__fbxw_i64(fbxw *w, int64_t v)
{
    unsigned char *p = value(w, 'L', 8);
    if (p) put64(p, (uint64_t)v);
}

void ossa__fbxw_f32(fbxw *w, float v)
{
    unsigned char *p = value(w, 'F', 4);
    if (p) ossa__wrf32(p, v);
}

void ossa__fbxw_f64(fbxw *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    unsigned char *p = value(w, 'D', 8);
    if (p) put64(p, u);
}

static void bytes_value(fbxw *w, char type, const void *s, size_t len)
{
    if (len > UINT32_MAX) len = UINT32_MAX; /* the file would pass 4 GiB: caught on closing */
    unsigned char *p = value(w, type, 4 + len);
    if (!p) return;
    ossa__wr32(p, (uint32_t)len);
    if (len) memcpy(p + 4, s, len);
}

void ossa__fbxw_str(fbxw *w, const char *s, size_t len) { bytes_value(w, 'S', s, len); }
void ossa__fbxw_cstr(fbxw *w, const char *s) { bytes_value(w, 'S', s, strlen(s)); }
void ossa__fbxw_raw(fbxw *w, const void *data, size_t len) { bytes_value(w, 'R', data, len); }

void ossa__fbxw_object_name(fbxw *w, const char *name, const char *cls)
{
    /* §4: binary names are Name 0x00 0x01 Class; a NUL inside the name
     * would end it early for readers, so the name stops at the first. */
    size_t n = strlen(name), c = strlen(cls);
    unsigned char *p = value(w, 'S', 4 + n + 2 + c);
    if (!p) return;
    ossa__wr32(p, (uint32_t)(n + 2 + c));
    memcpy(p + 4, name, n);
    p[4 + n] = 0;
    p[5 + n] = 1;
    memcpy(p + 6 + n, cls, c);
}

static void *zalloc(void *opaque, uInt items, uInt size)
{
    const ossa_allocator *a = opaque;
    size_t n = (size_t)items * size;
    /* zlib frees without a size: keep it in front of the block. */
    unsigned char *p = ossa__alloc(a, n + 16);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    return p + 16;
}

static void zfree(void *opaque, void *ptr)
{
    if (!ptr) return;
    unsigned char *p = (unsigned char *)ptr - 16;
    size_t n;
    memcpy(&n, p, sizeof n);
    ossa__free(opaque, p, n + 16);
}

/* Deflates src[0..n) at the end of the output; returns the stream's size,
 * or 0 when it is not smaller than n (nothing is kept then) or zlib fails
 * for want of memory (nomem set). One stream serves the whole write
 * (deflateReset between arrays): starting one allocates and clears some
 * 300 KB, more than most arrays cost to compress. */
static size_t deflate_into(fbxw *w, const unsigned char *src, size_t n)
{
    z_stream *z = &w->z;
    if (!w->z_ready) {
        memset(z, 0, sizeof *z);
        z->zalloc = zalloc;
        z->zfree = zfree;
        z->opaque = (void *)w->alloc;
        /* Level 1: what Blender writes and what every compressed array of
         * the sample files holds (streams start 0x78 0x01); far faster
         * than the default level for a few per cent more bytes. */
        if (deflateInit(z, 1) != Z_OK) {
            w->nomem = true;
            return 0;
        }
        w->z_ready = true;
    } else if (deflateReset(z) != Z_OK) {
        w->nomem = true;
        return 0;
    }
    size_t room = deflateBound(z, (uLong)n);
    if (room > n) room = n; /* larger is no use */
    size_t at = w->out->size;
    if (!push(w, room)) return 0;
    z->next_in = (Bytef *)(uintptr_t)src;
    z->avail_in = (uInt)n;
    z->next_out = w->out->data + at;
    z->avail_out = (uInt)room;
    int rc = deflate(z, Z_FINISH);
    size_t made = z->total_out;
    w->out->size = at; /* taken back; kept below only when smaller */
    if (rc == Z_MEM_ERROR) {
        w->nomem = true;
        return 0;
    }
    if (rc != Z_STREAM_END || made >= n) return 0;
    w->out->size = at + made;
    return made;
}

void ossa__fbxw_zlib_end(fbxw *w)
{
    if (w->z_ready) deflateEnd(&w->z);
    w->z_ready = false;
}

void ossa__fbxw_value_copy(fbxw *w, size_t at, size_t len)
{
    if (w->nomem || w->depth <= 0) return;
    w->open[w->depth - 1].num_values++;
    unsigned char *p = push(w, len);
    if (p) memmove(p, w->out->data + at, len); /* after push: the data may have moved */
}

/* An array value of `count` elements whose little-endian bytes are
 * le[0..count * size). */
static void array_value(fbxw *w, char type, const unsigned char *le, size_t count, size_t size)
{
    if (w->nomem || w->depth <= 0) return;
    size_t n = count * size;
    if (count > UINT32_MAX || n > UINT32_MAX) {
        w->failed = true;
        ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                   "an FBX array of %zu elements does not fit in 4 GiB", count);
        return;
    }
    unsigned char *p = value(w, type, 12);
    if (!p) return;
    size_t head = (size_t)(p - w->out->data);
    ossa__wr32(p, (uint32_t)count);
    size_t made = 0;
    /* §2.3 encoding 1 for arrays above 128 bytes, as Blender decides;
     * smaller ones gain nothing from a zlib header and checksum. */
    if (n > 128) made = deflate_into(w, le, n);
    if (w->nomem) return;
    p = w->out->data + head;
    if (made) {
        ossa__wr32(p + 4, 1);
        ossa__wr32(p + 8, (uint32_t)made);
        return;
    }
    ossa__wr32(p + 4, 0);
    ossa__wr32(p + 8, (uint32_t)n);
    unsigned char *d = push(w, n);
    if (d && n) memcpy(d, le, n);
}

static void typed_array(fbxw *w, char type, const void *v, size_t count, size_t size)
{
    if (count > SIZE_MAX / size) {
        w->nomem = true;
        return;
    }
    unsigned char *le = le_scratch(w, count * size + 1);
    if (!le) return;
    ossa__copy_le(le, v, count, size);
    array_value(w, type, le, count, size);
}

void ossa__fbxw_array_f64(fbxw *w, const double *v, size_t count) { typed_array(w, 'd', v, count, 8); }
void ossa__fbxw_array_f32(fbxw *w, const float *v, size_t count) { typed_array(w, 'f', v, count, 4); }
void ossa__fbxw_array_i32(fbxw *w, const int32_t *v, size_t count) { typed_array(w, 'i', v, count, 4); }
void ossa__fbxw_array_i64(fbxw *w, const int64_t *v, size_t count) { typed_array(w, 'l', v, count, 8); }

void ossa__fbxw_footer(fbxw *w)
{
    /* The top level's null record (§2.4), then §2.5 as Blender writes it:
     * the 16-byte block, 4 zero bytes, zeros up to the next multiple of 16
     * (a whole 16 when already there), the version, 120 zero bytes and the
     * closing constant. */
    push(w, HEADER);
    unsigned char *p = push(w, 20);
    if (!p) return;
    memcpy(p, foot_id, 16);
    size_t pad = 16 - w->out->size % 16;
    push(w, pad);
    p = push(w, 4 + 120 + 16);
    if (!p) return;
    ossa__wr32(p, FBXW_VERSION);
    memcpy(p + 124, foot_magic, 16);
}

/* -- Object ids and connections -- */

int64_t ossa__fbxw_id(fbxw *w) { return w->next_id++; }

void ossa__fbxw_connect(fbxw *w, int64_t child, int64_t parent, const char *prop)
{
    if (w->num_conns == w->cap_conns) {
        size_t cap = w->cap_conns ? w->cap_conns * 2 : 256;
        fbxw_conn *c = ossa__realloc(w->alloc, w->conns, w->cap_conns * sizeof *c, cap * sizeof *c);
        if (!c) {
            w->nomem = true;
            return;
        }
        w->conns = c;
        w->cap_conns = cap;
    }
    fbxw_conn *c = &w->conns[w->num_conns++];
    c->child = child;
    c->parent = parent;
    c->prop = prop;
}

/* -- Shorthands -- */

void ossa__fbxw_child_i32(fbxw *w, const char *name, int32_t v)
{
    ossa__fbxw_begin(w, name);
    ossa__fbxw_i32(w, v);
    ossa__fbxw_end(w);
}

void ossa__fbxw_child_i64(fbxw *w, const char *name, int64_t v)
{
    ossa__fbxw_begin(w, name);
    ossa__fbxw_i64(w, v);
    ossa__fbxw_end(w);
}

void ossa__fbxw_child_f64(fbxw *w, const char *name, double v)
{
    ossa__fbxw_begin(w, name);
    ossa__fbxw_f64(w, v);
    ossa__fbxw_end(w);
}

void ossa__fbxw_child_str(fbxw *w, const char *name, const char *s)
{
    ossa__fbxw_begin(w, name);
    ossa__fbxw_cstr(w, s);
    ossa__fbxw_end(w);
}

static void p_head(fbxw *w, const char *name, const char *type, const char *sub,
                   const char *flags)
{
    ossa__fbxw_begin(w, "P");
    ossa__fbxw_cstr(w, name);
    ossa__fbxw_cstr(w, type);
    ossa__fbxw_cstr(w, sub);
    ossa__fbxw_cstr(w, flags);
}

void ossa__fbxw_p_int(fbxw *w, const char *name, const char *type, int32_t v)
{
    /* "int" is subtyped "Integer"; enum and bool stand alone. */
    p_head(w, name, type, strcmp(type, "int") == 0 ? "Integer" : "", "");
    ossa__fbxw_i32(w, v);
    ossa__fbxw_end(w);
}

void ossa__fbxw_p_double(fbxw *w, const char *name, const char *type, const char *flags,
                         double v)
{
    /* "double" is subtyped "Number"; "Number" and the rest stand alone. */
    p_head(w, name, type, strcmp(type, "double") == 0 ? "Number" : "", flags);
    ossa__fbxw_f64(w, v);
    ossa__fbxw_end(w);
}

void ossa__fbxw_p_vec3(fbxw *w, const char *name, const char *type, const char *sub,
                       const char *flags, const double v[3])
{
    p_head(w, name, type, sub, flags);
    for (int i = 0; i < 3; i++) ossa__fbxw_f64(w, v[i]);
    ossa__fbxw_end(w);
}

void ossa__fbxw_p_time(fbxw *w, const char *name, int64_t v)
{
    p_head(w, name, "KTime", "Time", "");
    ossa__fbxw_i64(w, v);
    ossa__fbxw_end(w);
}

void ossa__fbxw_p_string(fbxw *w, const char *name, const char *type, const char *sub,
                         const char *v)
{
    p_head(w, name, type, sub, "");
    ossa__fbxw_cstr(w, v);
    ossa__fbxw_end(w);
}
