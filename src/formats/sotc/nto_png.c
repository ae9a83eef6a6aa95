/* Decoded .nto levels as PNG files (the PNG specification, ISO/IEC 15948)
 * on zlib, so that the model can keep a texture the way it keeps every
 * image, as the bytes of an image file that the glTF writer embeds and the
 * other writers put beside their output. 8-bit RGB when every texel is
 * opaque, else RGBA; not interlaced; one IDAT chunk, zlib's default level
 * (textures are written once and kept). Rows of a palette texture go
 * unfiltered: their texels repeat a few exact colours, which deflate finds
 * best as they are (bench_nto: half the bytes in a third of the time of
 * filtered rows); RGBA32 rows take the filter that makes their bytes
 * smallest in magnitude (the specification's suggested heuristic). The
 * format library links zlib already (FBX arrays); libpng is the
 * renderer's. */
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

/* Row `row` (n bytes of `bpp`-byte pixels; `up` the row above, zeros for
 * the first) filtered with type f into out[0..n]: out[0] = f. Returns the
 * sum of the filtered bytes taken as signed. One loop per type: the
 * texels of a large texture pass through each. */
static uint64_t filter(unsigned f, const uint8_t *row, const uint8_t *up, size_t n, size_t bpp,
                       uint8_t *out)
{
    uint8_t *o = out + 1;
    out[0] = (uint8_t)f;
    size_t i = 0;
    switch (f) {
    case 0:
        memcpy(o, row, n);
        break;
    case 1:
        for (; i < bpp && i < n; i++) o[i] = row[i];
        for (; i < n; i++) o[i] = (uint8_t)(row[i] - row[i - bpp]);
        break;
    case 2:
        for (; i < n; i++) o[i] = (uint8_t)(row[i] - up[i]);
        break;
    case 3:
        for (; i < bpp && i < n; i++) o[i] = (uint8_t)(row[i] - up[i] / 2);
        for (; i < n; i++) o[i] = (uint8_t)(row[i] - (row[i - bpp] + up[i]) / 2);
        break;
    default:
        for (; i < bpp && i < n; i++) o[i] = (uint8_t)(row[i] - up[i]);
        for (; i < n; i++) o[i] = (uint8_t)(row[i] - paeth(row[i - bpp], up[i], up[i - bpp]));
        break;
    }
    uint64_t cost = 0;
    for (i = 0; i < n; i++) cost += o[i] < 128 ? o[i] : 256u - o[i];
    return cost;
}

/* The image's rows, packed (RGB or RGBA), each behind its best filter or
 * (`adaptive` false) none. */
static void filter_rows(const uint8_t *rgba, uint32_t w, uint32_t h, size_t bpp, bool adaptive,
                        uint8_t *packed, uint8_t *out, uint8_t *trial, const uint8_t *zeros)
{
    size_t n = (size_t)w * bpp;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *row = packed + (y & 1) * n;
        const uint8_t *up = y ? packed + ((y - 1) & 1) * n : zeros;
        const uint8_t *src = rgba + (size_t)y * w * 4;
        for (uint32_t x = 0; x < w; x++) memcpy(row + x * bpp, src + (size_t)x * 4, bpp);
        uint8_t *dst = out + (size_t)y * (n + 1);
        uint64_t best = filter(0, row, up, n, bpp, dst);
        for (unsigned f = 1; adaptive && f < 5; f++) {
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

ossa_status ossa__nto_png(const uint8_t *rgba, uint32_t w, uint32_t h, bool palette,
                          const ossa_allocator *allocator, ossa_buf *out, ossa_error *error)
{
    bool opaque = true;
    for (size_t i = 3; opaque && i < (size_t)w * h * 4; i += 4) opaque = rgba[i] == 255;
    size_t bpp = opaque ? 3 : 4, n = (size_t)w * bpp;
    size_t filtered_size = (n + 1) * h, scratch_size = 4 * n + 1;
    uint8_t *filtered = ossa__alloc(allocator, filtered_size);
    /* two packed rows, a trial row, a row of zeros above the first */
    uint8_t *scratch = ossa__calloc(allocator, scratch_size, 1);
    ossa_status st = OSSA_OK;
    if (!filtered || !scratch) st = ossa__fail_nomem(error);
    if (!st) {
        filter_rows(rgba, w, h, bpp, !palette, scratch, filtered, scratch + 2 * n,
                    scratch + 3 * n + 1);
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
