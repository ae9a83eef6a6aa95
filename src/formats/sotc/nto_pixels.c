/* Shadow of the Colossus texture pixels (.nto, docs/formats/sotc.md §8.3-§8.5): one
 * level decoded to RGBA8, or to a PNG file (image/png.c, the library's
 * encoder). Texels are RGBA32, or 8-bit and 4-bit indices
 * into a CLUT of 32-bit colours; PS2 alpha (0x80 is opaque) is scaled to
 * 0..255. A swizzled level holds the PSMCT32 rectangle that the game
 * uploads so that the GS, reading the same memory as PSMT8 or PSMT4, sees
 * the texture: the GS addressing below takes each texel to its GS memory
 * word and that word back to its place in the rectangle. */
#include "formats/sotc/sotc.h"

#include <stdlib.h>

/* -- GS local memory ------------------------------------------------------------
 *
 * The GS User's Manual's arrangement: memory is pages of 8 KiB, a page is
 * 32 blocks of 256 bytes, a block 4 columns of 64 bytes. Addresses below
 * count from the texture's base pointer; buffer widths are in pages. */

/* The number of block (bx, by) in a PSMCT32 or PSMT8 page of 8 x 4 blocks:
 *      0  1  4  5 16 17 20 21
 *      2  3  6  7 18 19 22 23
 *      8  9 12 13 24 25 28 29
 *     10 11 14 15 26 27 30 31
 * i.e. the bits of bx and by interleaved. A PSMT4 page has 4 x 8 blocks
 * numbered as the transpose (PSMCT16's arrangement): its block (bx, by) is
 * gs_block(by, bx). */
static unsigned gs_block(unsigned bx, unsigned by)
{
    return (bx & 1) | (by & 1) << 1 | (bx & 2) << 1 | (by & 2) << 2 | (bx & 4) << 2;
}

/* The word of pixel (x, y), x < 8, y < 2, in a PSMCT32 column of 8 x 2
 * pixels:  0 1 4 5  8  9 12 13
 *          2 3 6 7 10 11 14 15 */
static unsigned gs_column_word(unsigned x, unsigned y)
{
    return (x & 1) | (y & 1) << 1 | (x & 6) << 1;
}

/* The address of texel (x, y) of a PSMT8 (bpp 8: in bytes) or PSMT4 (bpp
 * 4: in nibbles) texture `tbw` pages wide. Pages are 128 x 64 (PSMT8) or
 * 128 x 128 (PSMT4) texels, blocks 16 x 16 or 32 x 16, columns 16 x 4 or
 * 32 x 4. In a column, texel row yy takes word row yy & 1 and part
 * (byte or nibble) 2 * (xx / 8) + yy / 2 of the word; the words of rows 2
 * and 3 of even columns, and of rows 0 and 1 of odd ones, are taken four
 * to the right (cyclically), which is how the GS spreads a column's texels
 * over its memory banks. */
static uint64_t gs_texel(unsigned bpp, uint32_t tbw, uint32_t x, uint32_t y)
{
    uint64_t page;
    unsigned block, xx;
    if (bpp == 8) {
        page = (uint64_t)(y >> 6) * tbw + (x >> 7);
        block = gs_block((x >> 4) & 7, (y >> 4) & 3);
        xx = x & 15;
    } else {
        page = (uint64_t)(y >> 7) * tbw + (x >> 7);
        block = gs_block((y >> 4) & 7, (x >> 5) & 3);
        xx = x & 31;
    }
    unsigned column = (y >> 2) & 3, yy = y & 3;
    unsigned shift = (((yy >> 1) ^ column) & 1) * 4;
    unsigned word = gs_column_word((xx + shift) & 7, yy & 1);
    unsigned part = 2 * (xx >> 3) + (yy >> 1);
    unsigned per_word = 32 / bpp; /* 4 bytes or 8 nibbles */
    uint64_t in_page = (uint64_t)block * 64 + column * 16 + word;
    return (page * 2048 + in_page) * per_word + part;
}

/* Where word `w` lies in a PSMCT32 buffer `dbw` pages wide (pages of 64 x
 * 32 pixels, blocks of 8 x 8, columns of 8 x 2): the inverse of the
 * arrangement above. */
static void gs_word_position(uint64_t w, uint32_t dbw, uint64_t *x, uint64_t *y)
{
    uint64_t page = w >> 11;
    unsigned b = (unsigned)(w >> 6) & 31, column = (unsigned)(w >> 4) & 3, cw = (unsigned)w & 15;
    unsigned bx = (b & 1) | (b >> 1 & 2) | (b >> 2 & 4), by = (b >> 1 & 1) | (b >> 2 & 2);
    *x = (page % dbw) * 64 + bx * 8 + ((cw & 1) | (cw >> 2) << 1);
    *y = (page / dbw) * 32 + by * 8 + column * 2 + (cw >> 1 & 1);
}

/* The PSMCT32 rectangle (rw x rh pixels, uploaded to a buffer dbw pages
 * wide) that covers exactly the GS memory of a w x h texture of `bpp`
 * bits in a buffer tbw pages wide (docs/formats/sotc.md §8.4); false when the
 * texture does not fill whole blocks, so that no rectangle does. */
typedef struct nto_upload {
    uint32_t tbw, rw, rh, dbw;
} nto_upload;

static bool upload_of(unsigned bpp, uint32_t w, uint32_t h, nto_upload *u)
{
    u->tbw = w >= 128 ? w / 128 : 1;
    if (bpp == 8) {
        /* PSMT8 blocks (16 x 16) are numbered as PSMCT32 blocks (8 x 8):
         * the rectangle is the texture at half size either way. */
        if (w < 16 || h < 16) return false;
        u->rw = w / 2;
        u->rh = h / 2;
        u->dbw = u->tbw;
        return true;
    }
    /* PSMT4 blocks (32 x 16) are numbered as the transpose of PSMCT32
     * blocks: whole pages map whatever the rectangle's shape, and dormin's
     * decoding of 2:1 textures takes w/2 x h/4; a part of a page maps only
     * to the transposed rectangle h/2 x w/4 (equal for square textures). */
    if (w < 32 || h < 16) return false;
    if (w >= 128 && h >= 128) {
        u->rw = w / 2;
        u->rh = h / 4;
        u->dbw = w / 128;
    } else {
        u->rw = h / 2;
        u->rh = w / 4;
        u->dbw = h >= 128 ? h / 128 : 1;
    }
    return true;
}

static uint64_t swizzled_at(unsigned bpp, const nto_upload *u, uint32_t x, uint32_t y)
{
    unsigned per_word = 32 / bpp;
    uint64_t t = gs_texel(bpp, u->tbw, x, y), rx, ry;
    gs_word_position(t / per_word, u->dbw, &rx, &ry);
    return (ry * u->rw + rx) * per_word + t % per_word;
}

bool ossa__nto_swizzled_texel(unsigned bpp, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                              uint64_t *at)
{
    nto_upload u;
    if ((bpp != 8 && bpp != 4) || !upload_of(bpp, w, h, &u)) return false;
    *at = swizzled_at(bpp, &u, x, y);
    return true;
}

/* -- Colours --------------------------------------------------------------------- */

/* PS2 alpha: 0x80 is 1.0 (the GS blends with A / 128); 0..128 scales to
 * 0..255 rounded, anything above 128 is over-opaque and clamps to 255. */
static uint8_t ps2_alpha(unsigned a) { return a >= 128 ? 255 : (uint8_t)((a * 255 + 64) / 128); }

/* The CLUT as RGBA8 by index. An 8-bit CLUT is stored as the GS holds it
 * in storage mode CSM1 (a 16 x 16 PSMCT32 picture uploaded row by row):
 * colour i sits at entry i with bits 3 and 4 swapped. A 16-entry CLUT
 * (8 x 2) is in order. */
static void clut_colours(const sotc_nto *t, unsigned flags, uint8_t out[256][4])
{
    const unsigned char *p = xff_at(&t->x, t->palette);
    for (unsigned i = 0; i < t->palette_entries; i++) {
        unsigned e = i;
        if (t->palette_entries == 256 && !(flags & NTO_LINEAR_CLUT))
            e = (i & ~0x18u) | (i & 0x08) << 1 | (i & 0x10) >> 1;
        memcpy(out[i], p + 4 * e, 4);
        if (!(flags & NTO_RAW_ALPHA)) out[i][3] = ps2_alpha(out[i][3]);
    }
}

/* -- Levels ---------------------------------------------------------------------- */

ossa_status ossa__nto_decode(const sotc_nto *t, unsigned level, unsigned flags,
                             const ossa_allocator *allocator, uint8_t **out, ossa_error *error)
{
    *out = NULL;
    const sotc_nto_level *l = &t->levels[level];
    uint64_t at = t->at;
    if (!t->bpp)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, xff_file(&t->x, at + NTO_KIND),
                          "texture kind 0x%02x: its pixels cannot be decoded (known: 0x00 RGBA32, "
                          "0x13 8-bit palette, 0x14 4-bit palette)",
                          t->kind);
    uint32_t w = l->width, h = l->height;
    if (w > OSSA_IMAGE_MAX_SIDE || h > OSSA_IMAGE_MAX_SIDE || (uint64_t)w * h > OSSA_IMAGE_MAX_PIXELS)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, xff_file(&t->x, at + NTO_SIZE),
                          "level %u is %ux%u: more than the %u per side and %u texels decoded",
                          level, w, h, OSSA_IMAGE_MAX_SIDE, OSSA_IMAGE_MAX_PIXELS);
    nto_upload u;
    bool swizzled = l->swizzled && t->bpp != 32;
    if (swizzled && !upload_of(t->bpp, w, h, &u))
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, xff_file(&t->x, at + NTO_SWIZZLE),
                          "level %u (%ux%u, %s) is marked swizzled (bit %u of 0x%02x), but a "
                          "swizzled %u-bit level fills whole GS blocks: at least %ux16",
                          level, w, h, t->kind_name, level, t->swizzle, t->bpp,
                          t->bpp == 8 ? 16u : 32u);
    size_t bytes = (size_t)w * h * 4;
    uint8_t *rgba = ossa__alloc(allocator, bytes);
    if (!rgba) return ossa__fail_nomem(error);
    const unsigned char *src = xff_at(&t->x, l->offset);
    if (t->bpp == 32) {
        for (size_t i = 0; i < bytes; i += 4) {
            memcpy(rgba + i, src + i, 4);
            if (!(flags & NTO_RAW_ALPHA)) rgba[i + 3] = ps2_alpha(src[i + 3]);
        }
        *out = rgba;
        return OSSA_OK;
    }
    uint8_t clut[256][4];
    clut_colours(t, flags, clut);
    uint8_t *dst = rgba;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++, dst += 4) {
            uint64_t i = swizzled ? swizzled_at(t->bpp, &u, x, y) : (uint64_t)y * w + x;
            /* 4-bit texels: the first of each byte in its low nibble. */
            unsigned index = t->bpp == 8 ? src[i] : (src[i >> 1] >> ((i & 1) * 4)) & 15;
            memcpy(dst, clut[index], 4);
        }
    *out = rgba;
    return OSSA_OK;
}

ossa_status ossa__nto_png(const sotc_nto *t, unsigned level, unsigned flags,
                          const ossa_allocator *allocator, void **png, size_t *size,
                          ossa_error *error)
{
    *png = NULL;
    *size = 0;
    uint8_t *rgba;
    if (ossa__nto_decode(t, level, flags, allocator, &rgba, error)) return OSSA_FAILED;
    const sotc_nto_level *l = &t->levels[level];
    ossa_rgba_image im = {l->width, l->height, rgba, (size_t)l->width * 4};
    ossa_status st =
        ossa__png_encode(&im, t->bpp != 32 ? OSSA_PNG_FAST : 0, allocator, png, size, error);
    ossa__free(allocator, rgba, (size_t)l->width * l->height * 4);
    return st;
}

uint64_t ossa__nto_roughness(const uint8_t *rgba, uint32_t w, uint32_t h)
{
    uint64_t sum = 0;
    size_t stride = (size_t)w * 4;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *row = rgba + y * stride;
        for (size_t i = 0; i < stride; i++) {
            if (i + 4 < stride) sum += (uint64_t)abs(row[i] - row[i + 4]);
            if (y + 1 < h) sum += (uint64_t)abs(row[i] - row[i + stride]);
        }
    }
    return sum;
}
