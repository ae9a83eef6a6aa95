/* Decoded .nto levels as PNG files (the PNG specification, ISO/IEC 15948)
 * on zlib, so that the model can keep a texture the way it keeps every
 * image, as the bytes of an image file that the glTF writer embeds and the
 * other writers put beside their output. 8-bit RGB when every texel is
 * opaque, else RGBA; not interlaced; each row with the filter that makes
 * its bytes smallest in magnitude (the specification's suggested
 * heuristic); one IDAT chunk. The format library links zlib already (FBX
 * arrays); libpng is the renderer's. */
#include "formats/sotc/sotc.h"

#include <stdlib.h>
#include <zlib.h>

/* zlib's allocations through the caller's allocator. zlib frees without
 * a size, so each block starts with its own. */
static void *z_alloc(void *opaque, uInt items, uInt size)
{
    size_t n = (size_t)items * size;
    unsigned char *p = ossa__alloc(opaque, n + 16);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    return p + 16;
}

static void z_free(void *opaque, void *block)
{
    if (!block) return;
    unsigned char *p = (unsigned char *)block - 16;
    size_t n;
    memcpy(&n, p, sizeof n);
    ossa__free(opaque, p, n + 16);
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A chunk is its length, type, data and the CRC of type and data. */
static void chunk(ossa_buf *b, const char *type, const unsigned char *data, size_t n)
{
    unsigned char *p = ossa__buf_push(b, 12 + n);
    if (!p) return;
    put_be32(p, (uint32_t)n);
    memcpy(p + 4, type, 4);
    if (n) memcpy(p + 8, data, n);
    put_be32(p + 8 + n, (uint32_t)crc32(0, p + 4, (uInt)(n + 4)));
}

/* The Paeth predictor (PNG §9.4). */
static unsigned paeth(unsigned a, unsigned b, unsigned c)
{
    int p = (int)a + (int)b - (int)c;
    int pa = abs(p - (int)a), pb = abs(p - (int)b), pc = abs(p - (int)c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Row `row` (n bytes of `bpp`-byte pixels; `up` the row above, NULL for
 * the first) filtered with type f into out[0..n]: out[0] = f. Returns the
 * sum of the filtered bytes taken as signed. */
static uint64_t filter(unsigned f, const uint8_t *row, const uint8_t *up, size_t n, size_t bpp,
                       uint8_t *out)
{
    uint64_t cost = 0;
    out[0] = (uint8_t)f;
    for (size_t i = 0; i < n; i++) {
        unsigned a = i >= bpp ? row[i - bpp] : 0, b = up ? up[i] : 0;
        unsigned c = i >= bpp && up ? up[i - bpp] : 0;
        unsigned pred = f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : f == 4 ? paeth(a, b, c) : 0;
        uint8_t v = (uint8_t)(row[i] - pred);
        out[1 + i] = v;
        cost += v < 128 ? v : 256u - v;
    }
    return cost;
}

/* The image's rows, packed (RGB or RGBA), each behind its best filter. */
static void filter_rows(const uint8_t *rgba, uint32_t w, uint32_t h, size_t bpp, uint8_t *packed,
                        uint8_t *out, uint8_t *trial)
{
    size_t n = (size_t)w * bpp;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *row = packed + (y & 1) * n, *up = y ? packed + ((y - 1) & 1) * n : NULL;
        const uint8_t *src = rgba + (size_t)y * w * 4;
        for (uint32_t x = 0; x < w; x++) memcpy(row + x * bpp, src + (size_t)x * 4, bpp);
        uint8_t *dst = out + (size_t)y * (n + 1);
        uint64_t best = filter(0, row, up, n, bpp, dst);
        for (unsigned f = 1; f < 5; f++) {
            uint64_t cost = filter(f, row, up, n, bpp, trial);
            if (cost < best) {
                best = cost;
                memcpy(dst, trial, n + 1);
            }
        }
    }
}

/* Deflates src[0..n) into an IDAT chunk at the end of `out`. */
static ossa_status idat(ossa_buf *out, const uint8_t *src, size_t n, const ossa_allocator *a,
                        ossa_error *error)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    z.zalloc = z_alloc;
    z.zfree = z_free;
    z.opaque = (void *)a;
    if (deflateInit(&z, Z_DEFAULT_COMPRESSION) != Z_OK) return ossa__fail_nomem(error);
    size_t room = deflateBound(&z, (uLong)n), at = out->size;
    unsigned char *p = ossa__buf_push(out, 12 + room);
    int rc = Z_MEM_ERROR;
    if (p) {
        z.next_in = (Bytef *)(uintptr_t)src;
        z.avail_in = (uInt)n;
        z.next_out = p + 8;
        z.avail_out = (uInt)room;
        rc = deflate(&z, Z_FINISH);
    }
    size_t made = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) return ossa__fail_nomem(error); /* room is enough: only memory fails */
    out->size = at + 12 + made;
    p = out->data + at;
    put_be32(p, (uint32_t)made);
    memcpy(p + 4, "IDAT", 4);
    put_be32(p + 8 + made, (uint32_t)crc32(0, p + 4, (uInt)(made + 4)));
    return OSSA_OK;
}

ossa_status ossa__nto_png(const uint8_t *rgba, uint32_t w, uint32_t h,
                          const ossa_allocator *allocator, ossa_buf *out, ossa_error *error)
{
    bool opaque = true;
    for (size_t i = 3; opaque && i < (size_t)w * h * 4; i += 4) opaque = rgba[i] == 255;
    size_t bpp = opaque ? 3 : 4, n = (size_t)w * bpp;
    size_t filtered_size = (n + 1) * h, scratch_size = 3 * n + 1;
    uint8_t *filtered = ossa__alloc(allocator, filtered_size);
    uint8_t *scratch = ossa__alloc(allocator, scratch_size); /* two packed rows, a trial row */
    ossa_status st = OSSA_OK;
    if (!filtered || !scratch) st = ossa__fail_nomem(error);
    if (!st) {
        filter_rows(rgba, w, h, bpp, scratch, filtered, scratch + 2 * n);
        static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
        ossa__buf_append(out, signature, sizeof signature);
        unsigned char ihdr[13];
        put_be32(ihdr, w);
        put_be32(ihdr + 4, h);
        ihdr[8] = 8;                /* bits per sample */
        ihdr[9] = opaque ? 2 : 6;   /* truecolour, with alpha or not */
        ihdr[10] = ihdr[11] = ihdr[12] = 0; /* deflate, adaptive filters, no interlace */
        chunk(out, "IHDR", ihdr, sizeof ihdr);
        st = idat(out, filtered, filtered_size, allocator, error);
        if (!st) chunk(out, "IEND", NULL, 0);
        if (!st && out->failed) st = ossa__fail_nomem(error);
    }
    ossa__free(allocator, filtered, filtered_size);
    ossa__free(allocator, scratch, scratch_size);
    return st;
}
