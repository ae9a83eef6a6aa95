/* Truevision TGA to RGBA8 (docs/formats/tga.md): every image type of the
 * TGA 2.0 specification that holds pixels (1 colour-mapped, 2 true-colour,
 * 3 greyscale, and 9, 10, 11 the same run-length encoded), every pixel
 * depth they allow, both origins and both directions of a row.
 *
 * Everything the header says is checked against the file before memory
 * is taken: the pixels must fit the limits, and the data must be long
 * enough to hold them (uncompressed: all of them; run-length encoded: at
 * least one packet per 128 pixels). Errors give the byte offset of the
 * field, packet or pixel at fault. The TGA 2.0 extension and developer
 * areas and the footer that ends the file are never read: nothing here
 * depends on them (docs/formats/tga.md §6). */
#include "image/image.h"

#include <stdio.h>

/* The 18-byte header (TGA 2.0, "Image File Format Description", fields 1
 * to 5): byte offsets; numbers are little-endian. */
enum {
    H_ID_LENGTH = 0,   /* bytes of image ID after the header */
    H_MAP_TYPE = 1,    /* 0: no colour map, 1: a colour map follows the ID */
    H_IMAGE_TYPE = 2,  /* 1, 2, 3; 9, 10, 11 run-length encoded */
    H_MAP_FIRST = 3,   /* u16: the index of the first colour map entry */
    H_MAP_LENGTH = 5,  /* u16: colour map entries */
    H_MAP_BITS = 7,    /* bits per colour map entry: 15, 16, 24, 32 */
    H_WIDTH = 12,      /* u16 (8 and 10 hold the screen origin: unused) */
    H_HEIGHT = 14,     /* u16 */
    H_DEPTH = 16,      /* bits per pixel */
    H_DESCRIPTOR = 17, /* bits 0-3 alpha bits, 4 right-to-left, 5 top-down, 6-7 zero */
    HEADER_SIZE = 18
};

enum { KIND_MAPPED = 1, KIND_TRUE = 2, KIND_GREY = 3 }; /* the image type without bit 3 */

typedef struct tga {
    const unsigned char *data;
    size_t size;
    ossa_error *error;
    int kind;
    bool rle;
    uint32_t width, height;
    unsigned depth; /* bits per pixel in the data */
    unsigned bytes; /* bytes per pixel in the data */
    bool alpha;     /* the descriptor gives alpha bits and the pixel has room for them */
    bool right_to_left, top_down;
    uint64_t pixels_at; /* byte offset of the image data */
    uint32_t map_first, map_length;
    uint8_t *palette; /* map_length RGBA entries (colour-mapped images) */
} tga;

static ossa_status fail(const tga *t, ossa_code code, uint64_t at, const char *fmt, ...)
    OSSA_PRINTF(4, 5);
static ossa_status fail(const tga *t, ossa_code code, uint64_t at, const char *fmt, ...)
{
    char msg[220];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ossa__fail(t->error, code, at, "TGA: %s", msg);
}

/* A 5-bit channel to 8 bits: the nearest of 0..255 to v * 255 / 31 (never
 * a tie: 31 is odd). Bit replication ((v << 3) | (v >> 2)), which some
 * readers use, is up to one level off (3 -> 24 instead of 25). */
static inline uint8_t from5(unsigned v) { return (uint8_t)((v * 255 + 15) / 31); }

/* 15- and 16-bit colours, little-endian ARRRRRGG GGGBBBBB: the A bit is
 * alpha only when `alpha`. */
static inline void from16(const unsigned char *p, bool alpha, uint8_t out[4])
{
    unsigned v = (unsigned)p[0] | (unsigned)p[1] << 8;
    out[0] = from5((v >> 10) & 31);
    out[1] = from5((v >> 5) & 31);
    out[2] = from5(v & 31);
    out[3] = alpha ? (v & 0x8000 ? 255 : 0) : 255;
}

/* A colour as stored in the pixels or the colour map: 15/16 bits as
 * above, 24 bits B G R, 32 bits B G R A. */
static inline void from_colour(const unsigned char *p, unsigned bits, bool alpha, uint8_t out[4])
{
    if (bits <= 16) {
        from16(p, alpha, out);
        return;
    }
    out[0] = p[2];
    out[1] = p[1];
    out[2] = p[0];
    out[3] = bits == 32 && alpha ? p[3] : 255;
}

/* One pixel of the data at byte `at` into out; false (error filled) for a
 * colour index outside the colour map. */
static inline bool pixel(const tga *t, uint64_t at, uint8_t out[4])
{
    const unsigned char *p = t->data + at;
    if (t->kind == KIND_TRUE) {
        from_colour(p, t->depth, t->alpha, out);
    } else if (t->kind == KIND_GREY) {
        out[0] = out[1] = out[2] = p[0];
        out[3] = t->depth == 16 && t->alpha ? p[1] : 255;
    } else {
        uint32_t index = t->bytes == 2 ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : p[0];
        if (index < t->map_first || index - t->map_first >= t->map_length) {
            fail(t, OSSA_ERROR_CORRUPT, at,
                 "colour index %u is outside the colour map (entries %u to %u)", (unsigned)index,
                 (unsigned)t->map_first, (unsigned)(t->map_first + t->map_length - 1));
            return false;
        }
        memcpy(out, t->palette + (size_t)(index - t->map_first) * 4, 4);
    }
    return true;
}

/* -- Header ------------------------------------------------------------------ */

static ossa_status check_depth(const tga *t)
{
    static const char *const kinds[4] = {"", "colour-mapped", "true-colour", "greyscale"};
    static const char *const allowed[4] = {"", "8 or 16", "15, 16, 24 or 32", "8 or 16"};
    unsigned d = t->depth;
    bool ok = t->kind == KIND_TRUE ? d == 15 || d == 16 || d == 24 || d == 32 : d == 8 || d == 16;
    if (!ok)
        return fail(t, OSSA_ERROR_CORRUPT, H_DEPTH, "pixel depth %u of a %s image is not %s bits", d,
                    kinds[t->kind], allowed[t->kind]);
    return OSSA_OK;
}

/* The colour map: its place, and its entries as RGBA (colour-mapped
 * images; others skip it, as the specification allows them one). */
static ossa_status read_map(tga *t, const ossa_allocator *allocator, uint64_t at)
{
    const unsigned char *h = t->data;
    unsigned bits = h[H_MAP_BITS];
    uint64_t entry = (bits + 7u) / 8u;
    uint64_t bytes = (uint64_t)t->map_length * entry;
    if (at + bytes > t->size)
        return fail(t, OSSA_ERROR_TRUNCATED, t->size,
                    "the colour map (%u entries of %u bytes from byte %llu) runs past the end of "
                    "the file (%zu bytes)",
                    (unsigned)t->map_length, (unsigned)entry, (unsigned long long)at, t->size);
    t->pixels_at = at + bytes;
    if (t->kind != KIND_MAPPED) return OSSA_OK;
    if (bits != 15 && bits != 16 && bits != 24 && bits != 32)
        return fail(t, OSSA_ERROR_CORRUPT, H_MAP_BITS,
                    "colour map entries of %u bits (15, 16, 24 or 32 expected)", bits);
    if (!t->map_length)
        return fail(t, OSSA_ERROR_CORRUPT, H_MAP_LENGTH,
                    "a colour-mapped image with an empty colour map");
    t->palette = ossa__alloc(allocator, (size_t)t->map_length * 4);
    if (!t->palette) return ossa__fail_nomem(t->error);
    /* The descriptor's alpha bits say whether 16- and 32-bit entries hold
     * alpha, as they do for pixels. */
    bool alpha = (h[H_DESCRIPTOR] & 15) != 0;
    for (uint32_t i = 0; i < t->map_length; i++)
        from_colour(h + at + i * entry, bits, alpha, t->palette + (size_t)i * 4);
    t->alpha = alpha && (bits == 16 || bits == 32);
    return OSSA_OK;
}

static ossa_status read_header(tga *t, const ossa_allocator *allocator)
{
    const unsigned char *h = t->data;
    if (t->size < HEADER_SIZE)
        return fail(t, OSSA_ERROR_TRUNCATED, t->size,
                    "the file has %zu bytes, the header alone takes 18", t->size);
    unsigned type = h[H_IMAGE_TYPE];
    if (type == 0)
        return fail(t, OSSA_ERROR_UNSUPPORTED, H_IMAGE_TYPE, "image type 0: the file holds no image");
    if (type == 32 || type == 33)
        return fail(t, OSSA_ERROR_UNSUPPORTED, H_IMAGE_TYPE,
                    "image type %u (Huffman and delta coded, from before TGA 2.0) is not read", type);
    if (!(type >= 1 && type <= 3) && !(type >= 9 && type <= 11))
        return fail(t, OSSA_ERROR_CORRUPT, H_IMAGE_TYPE,
                    "image type %u is not one of TGA's 1, 2, 3, 9, 10 and 11", type);
    t->kind = (int)(type & 7);
    t->rle = type & 8;
    if (h[H_MAP_TYPE] > 1)
        return fail(t, OSSA_ERROR_CORRUPT, H_MAP_TYPE, "colour map type %u (0 or 1 expected)",
                    h[H_MAP_TYPE]);
    if (t->kind == KIND_MAPPED && h[H_MAP_TYPE] != 1)
        return fail(t, OSSA_ERROR_CORRUPT, H_MAP_TYPE,
                    "a colour-mapped image (type %u) without a colour map (byte 1 is 0)", type);
    t->depth = h[H_DEPTH];
    if (check_depth(t)) return OSSA_FAILED;
    t->bytes = (t->depth + 7) / 8;
    unsigned desc = h[H_DESCRIPTOR];
    if (desc & 0xC0)
        return fail(t, OSSA_ERROR_UNSUPPORTED, H_DESCRIPTOR,
                    "interleaved rows (descriptor bits 6-7 = %u, a TGA 1.0 layout) are not read",
                    desc >> 6);
    t->right_to_left = desc & 0x10;
    t->top_down = desc & 0x20;
    t->alpha = (desc & 15) && ((t->kind == KIND_TRUE && (t->depth == 16 || t->depth == 32)) ||
                               (t->kind == KIND_GREY && t->depth == 16));
    t->width = ossa__rd16(h + H_WIDTH);
    t->height = ossa__rd16(h + H_HEIGHT);
    if (!t->width || !t->height)
        return fail(t, OSSA_ERROR_CORRUPT, t->width ? H_HEIGHT : H_WIDTH, "an image of %u x %u pixels",
                    (unsigned)t->width, (unsigned)t->height);
    if (t->width > OSSA_IMAGE_MAX_SIDE || t->height > OSSA_IMAGE_MAX_SIDE ||
        (uint64_t)t->width * t->height > OSSA_IMAGE_MAX_PIXELS)
        return fail(t, OSSA_ERROR_UNSUPPORTED, H_WIDTH,
                    "an image of %ux%u pixels is too large (at most %d on a side, %u in all)",
                    (unsigned)t->width, (unsigned)t->height, OSSA_IMAGE_MAX_SIDE,
                    OSSA_IMAGE_MAX_PIXELS);
    t->map_first = ossa__rd16(h + H_MAP_FIRST);
    t->map_length = h[H_MAP_TYPE] ? ossa__rd16(h + H_MAP_LENGTH) : 0;
    uint64_t map_at = (uint64_t)HEADER_SIZE + h[H_ID_LENGTH];
    if (map_at > t->size)
        return fail(t, OSSA_ERROR_TRUNCATED, t->size,
                    "the image ID (%u bytes from byte 18) runs past the end of the file (%zu bytes)",
                    h[H_ID_LENGTH], t->size);
    if (read_map(t, allocator, map_at)) return OSSA_FAILED;
    /* The least the pixels can take, checked before they get memory: every
     * pixel, or one packet header and one pixel per 128 pixels. */
    uint64_t count = (uint64_t)t->width * t->height;
    uint64_t least = t->rle ? (count + 127) / 128 * (1 + t->bytes) : count * t->bytes;
    if (t->size - t->pixels_at < least)
        return fail(t, OSSA_ERROR_TRUNCATED, t->size,
                    "%ux%u pixels of %u bits%s need %s%llu bytes from byte %llu, the file ends "
                    "%llu bytes after it",
                    (unsigned)t->width, (unsigned)t->height, t->depth,
                    t->rle ? ", run-length encoded," : "", t->rle ? "at least " : "",
                    (unsigned long long)least, (unsigned long long)t->pixels_at,
                    (unsigned long long)(t->size - t->pixels_at));
    return OSSA_OK;
}

/* -- Pixels ------------------------------------------------------------------ */

/* Where file pixel `i` (file order: rows from the origin's side, each row
 * from its start) goes in the picture. */
static inline uint8_t *place(const tga *t, const ossa_rgba_image *im, uint64_t i)
{
    uint32_t row = (uint32_t)(i / t->width), col = (uint32_t)(i % t->width);
    uint32_t y = t->top_down ? row : t->height - 1 - row;
    uint32_t x = t->right_to_left ? t->width - 1 - col : col;
    return im->pixels + (size_t)y * im->stride + (size_t)x * 4;
}

static ossa_status decode_plain(const tga *t, ossa_rgba_image *im)
{
    for (uint32_t row = 0; row < t->height; row++) {
        uint64_t first = (uint64_t)row * t->width;
        uint8_t *out = place(t, im, first);
        int step = t->right_to_left ? -4 : 4;
        uint64_t at = t->pixels_at + first * t->bytes;
        if (t->kind == KIND_TRUE && t->depth >= 24) {
            /* the common case, without a call per pixel */
            const unsigned char *p = t->data + at;
            bool a = t->depth == 32 && t->alpha;
            for (uint32_t x = 0; x < t->width; x++, p += t->bytes, out += step) {
                out[0] = p[2];
                out[1] = p[1];
                out[2] = p[0];
                out[3] = a ? p[3] : 255;
            }
            continue;
        }
        for (uint32_t x = 0; x < t->width; x++, at += t->bytes, out += step)
            if (!pixel(t, at, out)) return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* A cursor over the picture in file order: rows from the origin's side,
 * each row from its start. */
typedef struct cursor {
    uint8_t *out;  /* the next pixel */
    int step;      /* +4 or -4 (right to left) */
    uint32_t left; /* pixels left in the row */
    uint32_t row;  /* file row */
} cursor;

static void cursor_row(const tga *t, const ossa_rgba_image *im, cursor *c)
{
    c->out = place(t, im, (uint64_t)c->row * t->width);
    c->left = t->width;
}

static inline uint8_t *cursor_next(const tga *t, const ossa_rgba_image *im, cursor *c)
{
    if (!c->left) {
        c->row++;
        cursor_row(t, im, c);
    }
    uint8_t *p = c->out;
    c->out += c->step;
    c->left--;
    return p;
}

/* Run-length packets (TGA 2.0, image types 9-11): a header byte whose top
 * bit says run (one pixel value repeated) or raw (that many values), and
 * whose low 7 bits are the pixel count minus one. Packets may cross rows
 * (the 2.0 specification asks encoders not to, TGA 1.0 files do), but not
 * the end of the picture. */
static ossa_status decode_rle(const tga *t, ossa_rgba_image *im)
{
    uint64_t count = (uint64_t)t->width * t->height, at = t->pixels_at;
    cursor c = {NULL, t->right_to_left ? -4 : 4, 0, 0};
    cursor_row(t, im, &c);
    for (uint64_t i = 0; i < count;) {
        if (at >= t->size)
            return fail(t, OSSA_ERROR_TRUNCATED, at,
                        "the run-length data ends with %llu of %llu pixels decoded",
                        (unsigned long long)i, (unsigned long long)count);
        unsigned head = t->data[at];
        uint64_t n = (head & 0x7F) + 1u, packet = at;
        bool run = head & 0x80;
        if (n > count - i)
            return fail(t, OSSA_ERROR_CORRUPT, packet,
                        "a %s packet of %u pixels runs past the last pixel (%llu left)",
                        run ? "run" : "raw", (unsigned)n, (unsigned long long)(count - i));
        uint64_t need = run ? t->bytes : n * t->bytes;
        if (t->size - (at + 1) < need)
            return fail(t, OSSA_ERROR_TRUNCATED, t->size,
                        "the %s packet at byte %llu needs %llu bytes of pixels, the file ends "
                        "after %llu",
                        run ? "run" : "raw", (unsigned long long)packet, (unsigned long long)need,
                        (unsigned long long)(t->size - (at + 1)));
        at++;
        i += n;
        if (run) {
            uint8_t value[4];
            if (!pixel(t, at, value)) return OSSA_FAILED;
            at += t->bytes;
            while (n--) memcpy(cursor_next(t, im, &c), value, 4);
        } else {
            for (; n--; at += t->bytes)
                if (!pixel(t, at, cursor_next(t, im, &c))) return OSSA_FAILED;
        }
    }
    return OSSA_OK;
}

/* A picture whose alpha is 0 everywhere would not show at all; such files
 * come from writers that declare alpha bits and leave the alpha unset
 * (docs/formats/tga.md §4): they are read as opaque. */
static void opaque_when_invisible(const ossa_rgba_image *im)
{
    for (uint32_t y = 0; y < im->height; y++) {
        const uint8_t *row = im->pixels + (size_t)y * im->stride;
        for (uint32_t x = 0; x < im->width; x++)
            if (row[x * 4 + 3]) return;
    }
    for (uint32_t y = 0; y < im->height; y++) {
        uint8_t *row = im->pixels + (size_t)y * im->stride;
        for (uint32_t x = 0; x < im->width; x++) row[x * 4 + 3] = 255;
    }
}

ossa_status ossa__tga_decode(const void *data, size_t size, const ossa_allocator *allocator,
                             ossa_rgba_image *out, ossa_error *error)
{
    memset(out, 0, sizeof *out);
    if (!data && size) return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no input");
    tga t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.size = size;
    t.error = error;
    ossa_status st = read_header(&t, allocator);
    ossa_rgba_image im;
    memset(&im, 0, sizeof im);
    if (!st) {
        im.width = t.width;
        im.height = t.height;
        im.stride = (size_t)t.width * 4;
        im.pixels = ossa__alloc(allocator, im.stride * t.height);
        if (!im.pixels) st = ossa__fail_nomem(error);
    }
    if (!st) st = t.rle ? decode_rle(&t, &im) : decode_plain(&t, &im);
    ossa__free(allocator, t.palette, (size_t)t.map_length * 4);
    if (st) {
        ossa__free(allocator, im.pixels, im.stride * im.height);
        return st;
    }
    if (t.alpha) opaque_when_invisible(&im);
    *out = im;
    return OSSA_OK;
}
