/* The binary container (fbx.md §2): records with 13- or 25-byte headers by
 * version, typed values, zlib arrays. Every offset, length and count is
 * checked against the enclosing record and the file before use, in 64-bit
 * arithmetic; inflated arrays share a budget proportional to the file. */
#include "formats/fbx/fbx.h"

#include <stdio.h>
#include <stdlib.h>

#include <zlib.h>

static const unsigned char magic[23] = "Kaydara FBX Binary  \0\x1a";

bool ossa__fbx_sniff_binary(const unsigned char *data, size_t size)
{
    return size >= 18 && memcmp(data, magic, 18) == 0;
}

typedef struct reader {
    fbx_doc *doc;
    const unsigned char *data;
    size_t size;
    bool wide; /* 25-byte record headers (version >= 7500) */
} reader;

static uint64_t rd64(const unsigned char *p)
{
    return ossa__rd32(p) | ((uint64_t)ossa__rd32(p + 4) << 32);
}

static ossa_status fail(reader *r, uint64_t at, ossa_code kind, const char *fmt, ...)
    OSSA_PRINTF(4, 5);
static ossa_status fail(reader *r, uint64_t at, ossa_code kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(r->doc->error, kind, at, 0, 0, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
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

/* Inflates exactly `want` bytes (< 4 GiB, checked by the caller) from
 * src[0..n) into dst; more, fewer or a corrupt stream is an error. */
static ossa_status inflate_array(reader *r, uint64_t at, const unsigned char *src, size_t n,
                                 unsigned char *dst, size_t want)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    z.zalloc = zalloc;
    z.zfree = zfree;
    z.opaque = (void *)&r->doc->model->internal->arena.allocator;
    int rc = inflateInit(&z);
    if (rc == Z_MEM_ERROR) return ossa__fail_nomem(r->doc->error);
    if (rc != Z_OK) return fail(r, at, OSSA_ERROR_CORRUPT, "zlib array: cannot start inflating");
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)want;
    rc = inflate(&z, Z_FINISH);
    uLong out = z.total_out;
    bool more = rc == Z_BUF_ERROR && z.avail_out == 0 && z.avail_in > 0;
    inflateEnd(&z);
    if (rc == Z_MEM_ERROR) return ossa__fail_nomem(r->doc->error);
    if (rc != Z_STREAM_END || out != want)
        return fail(r, at, OSSA_ERROR_CORRUPT,
                    "zlib array: %s (expected exactly %zu bytes)",
                    rc == Z_STREAM_END ? "the stream inflates to fewer bytes" :
                    more ? "the stream inflates to more bytes" :
                    rc == Z_BUF_ERROR ? "the stream ends early" : "corrupt stream",
                    want);
    return OSSA_OK;
}

static size_t array_elem(char t)
{
    return t == 'f' || t == 'i' ? 4 : t == 'd' || t == 'l' ? 8 : 1;
}

/* Reads the values of one record in [pos, end). */
static ossa_status read_values(reader *r, fbx_node *node, uint64_t pos, uint64_t end,
                               uint64_t count)
{
    /* Each value takes at least 2 bytes: a count beyond that is corrupt and
     * must not size an allocation. */
    if (count > (end - pos) / 2)
        return fail(r, node->offset, OSSA_ERROR_CORRUPT,
                    "record '%.*s': %llu values cannot fit in %llu bytes", (int)node->name_len,
                    node->name, (unsigned long long)count, (unsigned long long)(end - pos));
    node->values = ossa__fbx_alloc(r->doc, (size_t)count, sizeof *node->values);
    if (!node->values) return OSSA_FAILED;
    node->num_values = (uint32_t)count;
    for (uint64_t k = 0; k < count; k++) {
        fbx_value *v = &node->values[k];
        if (pos >= end)
            return fail(r, pos, OSSA_ERROR_CORRUPT,
                        "record '%.*s': value %llu of %llu starts past the value list's end",
                        (int)node->name_len, node->name, (unsigned long long)k,
                        (unsigned long long)count);
        const unsigned char *p = r->data + pos;
        v->type = (char)p[0];
        v->offset = pos;
        uint64_t left = end - pos - 1, need;
        switch (v->type) {
        case 'Y': need = 2; break;
        case 'C': need = 1; break;
        case 'I': case 'F': need = 4; break;
        case 'D': case 'L': need = 8; break;
        case 'S': case 'R': need = 4; break;
        case 'f': case 'd': case 'l': case 'i': case 'b': case 'c': need = 12; break;
        default:
            return fail(r, pos, OSSA_ERROR_CORRUPT, "record '%.*s': unknown value type 0x%02x",
                        (int)node->name_len, node->name, p[0]);
        }
        if (need > left)
            return fail(r, pos, OSSA_ERROR_CORRUPT,
                        "record '%.*s': value of type '%c' needs %llu bytes, %llu left in the "
                        "value list",
                        (int)node->name_len, node->name, v->type, (unsigned long long)need,
                        (unsigned long long)left);
        p++;
        switch (v->type) {
        case 'Y': v->v.i = (int16_t)ossa__rd16(p); break;
        case 'C': v->v.i = p[0]; break;
        case 'I': v->v.i = (int32_t)ossa__rd32(p); break;
        case 'L': v->v.i = (int64_t)rd64(p); break;
        case 'F': v->v.d = ossa__rdf32(p); break;
        case 'D': {
            uint64_t u = rd64(p);
            memcpy(&v->v.d, &u, 8);
            break;
        }
        case 'S': case 'R': {
            uint64_t n = ossa__rd32(p);
            if (n > left - 4)
                return fail(r, pos, OSSA_ERROR_CORRUPT,
                            "record '%.*s': %s of %llu bytes runs past the value list (%llu "
                            "bytes left)",
                            (int)node->name_len, node->name, v->type == 'S' ? "string" : "raw data",
                            (unsigned long long)n, (unsigned long long)(left - 4));
            v->count = (uint32_t)n;
            v->v.s = (const char *)p + 4;
            need += n;
            break;
        }
        default: {
            uint64_t n = ossa__rd32(p), enc = ossa__rd32(p + 4), bytes = ossa__rd32(p + 8);
            uint64_t want = n * array_elem(v->type);
            if (bytes > left - 12)
                return fail(r, pos, OSSA_ERROR_CORRUPT,
                            "record '%.*s': array of %llu bytes runs past the value list (%llu "
                            "bytes left)",
                            (int)node->name_len, node->name, (unsigned long long)bytes,
                            (unsigned long long)(left - 12));
            v->count = (uint32_t)n;
            if (enc == 0) {
                if (bytes != want)
                    return fail(r, pos, OSSA_ERROR_CORRUPT,
                                "record '%.*s': raw array of %llu elements holds %llu bytes, "
                                "expected %llu",
                                (int)node->name_len, node->name, (unsigned long long)n,
                                (unsigned long long)bytes, (unsigned long long)want);
                v->v.data = p + 12;
            } else if (enc == 1) {
                if (want > r->doc->inflate_budget || want > 0xffffffffu)
                    return fail(r, pos, OSSA_ERROR_CORRUPT,
                                "record '%.*s': compressed array of %llu elements (%llu bytes) "
                                "is out of proportion to the file (%zu bytes)",
                                (int)node->name_len, node->name, (unsigned long long)n,
                                (unsigned long long)want, r->size);
                r->doc->inflate_budget -= want;
                unsigned char *dst = ossa__fbx_alloc(r->doc, (size_t)want, 1);
                if (!dst) return OSSA_FAILED;
                if (inflate_array(r, pos, p + 12, (size_t)bytes, dst, (size_t)want))
                    return OSSA_FAILED;
                v->v.data = dst;
            } else {
                return fail(r, pos + 5, OSSA_ERROR_CORRUPT,
                            "record '%.*s': array encoding %llu (expected 0 raw or 1 zlib)",
                            (int)node->name_len, node->name, (unsigned long long)enc);
            }
            need += bytes;
            break;
        }
        }
        pos += 1 + need;
    }
    if (pos != end)
        return fail(r, pos, OSSA_ERROR_CORRUPT,
                    "record '%.*s': %llu values end %llu bytes before the value list's end",
                    (int)node->name_len, node->name, (unsigned long long)count,
                    (unsigned long long)(end - pos));
    return OSSA_OK;
}

static bool all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return false;
    return true;
}

/* Reads records from *pos up to `end` (exclusive) into parent's children.
 * Top level: stops at the null record (or the end of the file, with a
 * warning). Child lists: `end` is where the closing null record starts. */
static ossa_status read_list(reader *r, fbx_node *parent, uint64_t pos, uint64_t end, int depth,
                             bool top)
{
    size_t hdr = r->wide ? 25 : 13;
    fbx_node **tail = &parent->first_child;
    if (depth > FBX_MAX_DEPTH)
        return fail(r, pos, OSSA_ERROR_CORRUPT, "records nested deeper than %d", FBX_MAX_DEPTH);
    while (pos < end || top) {
        if (top && pos == r->size) {
            ossa__warn(r->doc->model, OSSA_WARNING_TRUNCATED, pos, 0, 0,
                       "the file ends without the null record that closes the top level");
            return OSSA_OK;
        }
        if (end - pos < hdr)
            return fail(r, pos, OSSA_ERROR_TRUNCATED,
                        "record header of %zu bytes runs past the %s (%llu bytes left)", hdr,
                        top ? "end of the file" : "parent record",
                        (unsigned long long)(end - pos));
        const unsigned char *p = r->data + pos;
        uint64_t end_offset, num, plen;
        unsigned name_len;
        if (r->wide) {
            end_offset = rd64(p);
            num = rd64(p + 8);
            plen = rd64(p + 16);
            name_len = p[24];
        } else {
            end_offset = ossa__rd32(p);
            num = ossa__rd32(p + 4);
            plen = ossa__rd32(p + 8);
            name_len = p[12];
        }
        if (end_offset == 0) {
            if (!all_zero(p, hdr))
                return fail(r, pos, OSSA_ERROR_CORRUPT,
                            "null record (end offset 0) with non-zero bytes");
            if (top) return OSSA_OK;
            return fail(r, pos, OSSA_ERROR_CORRUPT,
                        "null record at byte %llu, before the parent's children end at %llu",
                        (unsigned long long)pos, (unsigned long long)end);
        }
        uint64_t vstart = pos + hdr + name_len;
        /* A top-level record that runs past the end of the file: a file
         * cut short, which is what to say, with how long it should at
         * least be. (A nested one that leaves its parent is corrupt.) */
        if (top && end_offset > r->size && end_offset >= vstart && plen <= end_offset - vstart)
            return fail(r, pos, OSSA_ERROR_TRUNCATED,
                        "the file ends early: it has %llu bytes, and the record at byte %llu "
                        "runs to byte %llu (the file should be at least that long)",
                        (unsigned long long)r->size, (unsigned long long)pos,
                        (unsigned long long)end_offset);
        if (end_offset > end || end_offset < vstart || plen > end_offset - vstart)
            return fail(r, pos, end_offset > r->size ? OSSA_ERROR_TRUNCATED : OSSA_ERROR_CORRUPT,
                        "record ends at byte %llu, outside %llu..%llu (its header, name and "
                        "%llu bytes of values, within the %s)",
                        (unsigned long long)end_offset,
                        (unsigned long long)(vstart > UINT64_MAX - plen ? UINT64_MAX : vstart + plen),
                        (unsigned long long)end, (unsigned long long)plen,
                        top ? "file" : "parent record");
        fbx_node *node = ossa__fbx_alloc(r->doc, 1, sizeof *node);
        if (!node) return OSSA_FAILED;
        node->name = (const char *)p + hdr;
        node->name_len = name_len;
        node->offset = pos;
        *tail = node;
        tail = &node->next;
        if (read_values(r, node, vstart, vstart + plen, num)) return OSSA_FAILED;
        uint64_t cursor = vstart + plen;
        if (cursor < end_offset) {
            if (end_offset - cursor < hdr)
                return fail(r, cursor, OSSA_ERROR_CORRUPT,
                            "record '%.*s': %llu bytes after the values, too few for the null "
                            "record that closes its children",
                            (int)name_len, node->name, (unsigned long long)(end_offset - cursor));
            uint64_t child_end = end_offset - hdr;
            if (read_list(r, node, cursor, child_end, depth + 1, false)) return OSSA_FAILED;
            if (!all_zero(r->data + child_end, hdr))
                return fail(r, child_end, OSSA_ERROR_CORRUPT,
                            "record '%.*s': the null record closing its children has non-zero "
                            "bytes",
                            (int)name_len, node->name);
        }
        pos = end_offset;
    }
    return OSSA_OK;
}

ossa_status ossa__fbx_parse_binary(fbx_doc *doc, const unsigned char *data, size_t size)
{
    reader r = {doc, data, size, false};
    if (size < 27 || memcmp(data, magic, 23) != 0)
        return ossa__fail(doc->error, size < 27 ? OSSA_ERROR_TRUNCATED : OSSA_ERROR_FORMAT,
                          size < 27 ? size : 0,
                          size < 27 ? "binary FBX header needs 27 bytes, the file has %zu"
                                    : "binary FBX magic (23 bytes) does not match%.0zu",
                          size);
    doc->version = ossa__rd32(data + 23);
    r.wide = doc->version >= 7500;
    return read_list(&r, &doc->root, 27, size, 1, true);
}
