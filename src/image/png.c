/* RGBA8 to PNG (ISO/IEC 15948, the PNG specification) on zlib: 8-bit RGB
 * or RGBA, not interlaced. One encoder for the library: the renderer's
 * pictures (OSSA_PNG_FAST) and the textures the glTF writer turns from TGA
 * into PNG (adaptive filters).
 *
 * The file is the signature, IHDR, the zlib stream of the filtered rows in
 * IDAT chunks of at most IDAT_MAX bytes, and IEND. zlib deflates straight
 * into the output buffer, which grows by a chunk at a time, so the
 * compressed data is written once. */
#include "image/image.h"

#include <zlib.h>

#define IDAT_MAX (256u * 1024u)

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

static void put32be(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A chunk's CRC covers its type and data (PNG §5.3). */
static void chunk_end(ossa_buf *b, size_t start)
{
    size_t len = b->size - start - 8;
    put32be(b->data + start, (uint32_t)len);
    uLong crc = crc32(0L, b->data + start + 4, (uInt)(len + 4));
    unsigned char *p = ossa__buf_push(b, 4);
    if (p) put32be(p, (uint32_t)crc);
}

static void chunk_begin(ossa_buf *b, const char *type)
{
    unsigned char *p = ossa__buf_push(b, 8);
    if (p) memcpy(p + 4, type, 4);
}

/* -- Filters (PNG §9) ----------------------------------------------------- */

static inline unsigned paeth(unsigned a, unsigned b, unsigned c)
{
    int p = (int)a + (int)b - (int)c;
    int pa = p > (int)a ? p - (int)a : (int)a - p;
    int pb = p > (int)b ? p - (int)b : (int)b - p;
    int pc = p > (int)c ? p - (int)c : (int)c - p;
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Row `cur` (n bytes, `bpp` per pixel; `prev` the row above, zeros for
 * the first) filtered with filter type f into out[1..n], out[0] = f. */
static void filter_row(int f, const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp,
                       uint8_t *out)
{
    out[0] = (uint8_t)f;
    for (size_t i = 0; i < n; i++) {
        unsigned a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
        unsigned pred = f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : f == 4 ? paeth(a, b, c) : 0;
        out[1 + i] = (uint8_t)(cur[i] - pred);
    }
}

/* The specification's heuristic for choosing a row's filter: the least
 * sum of the filtered bytes taken as signed (PNG §12.8). */
static size_t cost(const uint8_t *f, size_t n)
{
    size_t s = 0;
    for (size_t i = 1; i <= n; i++) s += f[i] < 128 ? f[i] : 256u - f[i];
    return s;
}

/* -- Encoding ------------------------------------------------------------- */

typedef struct encoder {
    z_stream z;
    ossa_buf *out;
    size_t idat;  /* offset of the open IDAT chunk */
    bool failed;  /* out of memory (zlib or the buffer) */
} encoder;

/* Deflates `n` bytes (finishing the stream when `last`), opening a new
 * IDAT chunk whenever the current one is full. */
static void deflate_bytes(encoder *e, const uint8_t *data, size_t n, bool last)
{
    e->z.next_in = (Bytef *)(uintptr_t)data;
    e->z.avail_in = (uInt)n;
    for (;;) {
        size_t used = e->out->size - e->idat - 8;
        if (used == IDAT_MAX) {
            chunk_end(e->out, e->idat);
            e->idat = e->out->size;
            chunk_begin(e->out, "IDAT");
            used = 0;
        }
        size_t room = IDAT_MAX - used;
        /* room to deflate into: grown (and zeroed) only when it lacks */
        if (e->out->capacity - e->out->size < room) {
            if (!ossa__buf_push(e->out, room)) {
                e->failed = true;
                return;
            }
            e->out->size -= room;
        }
        e->z.next_out = e->out->data + e->out->size;
        e->z.avail_out = (uInt)room;
        int rc = deflate(&e->z, last ? Z_FINISH : Z_NO_FLUSH);
        e->out->size += room - e->z.avail_out;
        if (rc == Z_STREAM_END) return;
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            e->failed = true; /* Z_MEM_ERROR is the only failure left here */
            return;
        }
        if (!last && e->z.avail_in == 0 && e->z.avail_out != 0) return;
    }
}

static bool has_alpha(const ossa_rgba_image *im)
{
    for (uint32_t y = 0; y < im->height; y++) {
        const uint8_t *row = im->pixels + (size_t)y * im->stride;
        for (uint32_t x = 0; x < im->width; x++)
            if (row[x * 4 + 3] != 255) return true;
    }
    return false;
}

/* The rows, packed (RGB or RGBA), filtered and deflated. `work` holds
 * 2 rows of n bytes and 6 of n + 1. */
static void encode_rows(encoder *e, const ossa_rgba_image *im, size_t bpp, bool fast, uint8_t *work)
{
    size_t n = (size_t)im->width * bpp;
    uint8_t *prev = work, *cur = work + n, *trial = work + 2 * n;
    memset(prev, 0, n);
    for (uint32_t y = 0; y < im->height && !e->failed; y++) {
        const uint8_t *src = im->pixels + (size_t)y * im->stride;
        if (bpp == 4) {
            memcpy(cur, src, n);
        } else {
            for (uint32_t x = 0; x < im->width; x++) memcpy(cur + (size_t)x * 3, src + (size_t)x * 4, 3);
        }
        const uint8_t *row = trial;
        if (fast) {
            filter_row(0, cur, prev, n, bpp, trial);
        } else {
            size_t best = SIZE_MAX;
            for (int f = 0; f < 5; f++) {
                uint8_t *t = trial + (size_t)(f + 1) * (n + 1);
                filter_row(f, cur, prev, n, bpp, t);
                size_t c = cost(t, n);
                if (c < best) best = c, row = t;
            }
        }
        deflate_bytes(e, row, n + 1, y + 1 == im->height);
        uint8_t *swap = prev;
        prev = cur;
        cur = swap;
    }
}

ossa_status ossa__png_encode(const ossa_rgba_image *im, uint32_t flags, const ossa_allocator *allocator,
                             void **out_data, size_t *out_size, ossa_error *error)
{
    *out_data = NULL;
    *out_size = 0;
    if (!im || !im->pixels || !im->width || !im->height || im->width > OSSA_IMAGE_MAX_SIDE ||
        im->height > OSSA_IMAGE_MAX_SIDE || im->stride < (size_t)im->width * 4)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "PNG: a picture of 1..%d pixels on a side with a stride of at least 4 * "
                          "width is needed",
                          OSSA_IMAGE_MAX_SIDE);
    bool fast = flags & OSSA_PNG_FAST;
    size_t bpp = has_alpha(im) ? 4 : 3, n = (size_t)im->width * bpp;
    uint8_t *work = ossa__alloc(allocator, 2 * n + 6 * (n + 1));
    if (!work) return ossa__fail_nomem(error);
    ossa_buf out;
    ossa__buf_init(&out, allocator);
    ossa__buf_append(&out, "\x89PNG\r\n\x1a\n", 8);
    size_t at = out.size;
    chunk_begin(&out, "IHDR");
    unsigned char *h = ossa__buf_push(&out, 13);
    if (h) {
        put32be(h, im->width);
        put32be(h + 4, im->height);
        h[8] = 8;                   /* bits per channel */
        h[9] = bpp == 4 ? 6 : 2;    /* colour type: RGBA or RGB */
        h[10] = h[11] = h[12] = 0;  /* deflate, adaptive filtering, no interlace */
        chunk_end(&out, at);
    }
    encoder e;
    memset(&e, 0, sizeof e);
    e.out = &out;
    e.z.zalloc = zalloc;
    e.z.zfree = zfree;
    e.z.opaque = (void *)allocator;
    /* Filtered rows deflate best with Z_FILTERED (as libpng does); rows
     * left unfiltered with the default strategy. */
    int rc = deflateInit2(&e.z, fast ? 3 : 6, Z_DEFLATED, 15, 8, fast ? Z_DEFAULT_STRATEGY : Z_FILTERED);
    e.failed = rc != Z_OK || out.failed;
    if (!e.failed) {
        e.idat = out.size;
        chunk_begin(&out, "IDAT");
        encode_rows(&e, im, bpp, fast, work);
        if (!e.failed) chunk_end(&out, e.idat);
        at = out.size;
        chunk_begin(&out, "IEND");
        if (!out.failed) chunk_end(&out, at);
    }
    if (rc == Z_OK) deflateEnd(&e.z);
    ossa__free(allocator, work, 2 * n + 6 * (n + 1));
    if (e.failed || out.failed) {
        ossa__buf_release(&out);
        return ossa__fail_nomem(error);
    }
    *out_data = out.data;
    *out_size = out.size;
    return OSSA_OK;
}
