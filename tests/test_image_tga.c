/* TGA decoding (src/image/tga.c, ossa_render_tga_decode) and PNG encoding
 * (src/image/png.c). The TGA files and the pixels they must decode to are
 * made by tests/gen_tga.py from the TGA 2.0 specification alone, one file
 * per kind (colour-mapped, true-colour, greyscale; every depth; plain and
 * run-length encoded; every origin; alpha bits or none; an image ID, an
 * unused colour map, a TGA 2.0 footer). Every cut, every patched byte and
 * every failed allocation ends in a located error or a picture, never a
 * crash; damaged headers and data fail at the byte at fault. PNGs written
 * by the encoder decode (through libpng) to the pixels they were given. */
#include "support.h"

#include "image/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tga_case {
    char name[64];
    unsigned char *file;
    size_t size;
    uint32_t width, height;
    unsigned char *rgba; /* expected, rows top first */
} tga_case;

typedef struct tga_cases {
    tga_case c[64];
    int n;
    char *dir;
} tga_cases;

static tga_cases *load_cases(void)
{
    static tga_cases all;
    if (all.n) return &all;
    all.dir = ts_generate_tga("tga_cases");
    char *list_path = ts_path_join(all.dir, "cases.txt");
    size_t size;
    char *list = (char *)ts_read_file(list_path, &size);
    assert_non_null(list);
    list = realloc(list, size + 1); /* a string, for strtok */
    assert_non_null(list);
    list[size] = 0;
    for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
        assert_true(all.n < 64);
        tga_case *c = &all.c[all.n++];
        snprintf(c->name, sizeof c->name, "%s", line);
        char file[128];
        snprintf(file, sizeof file, "%s.tga", line);
        char *p = ts_path_join(all.dir, file);
        c->file = ts_read_file(p, &c->size);
        assert_non_null(c->file);
        free(p);
        snprintf(file, sizeof file, "%s.rgba", line);
        p = ts_path_join(all.dir, file);
        size_t n;
        unsigned char *rgba = ts_read_file(p, &n);
        assert_non_null(rgba);
        free(p);
        c->width = ts_le32(rgba);
        c->height = ts_le32(rgba + 4);
        assert_int_equal(n, 8 + (size_t)c->width * c->height * 4);
        c->rgba = rgba;
    }
    free(list);
    free(list_path);
    assert_true(all.n >= 30);
    return &all;
}

static const tga_case *find_case(const char *name)
{
    tga_cases *all = load_cases();
    for (int i = 0; i < all->n; i++)
        if (strcmp(all->c[i].name, name) == 0) return &all->c[i];
    fail_msg("no case %s", name);
    return NULL;
}

static void assert_pixels(const char *what, const ossa_render_image *im, const tga_case *c)
{
    assert_int_equal(im->width, c->width);
    assert_int_equal(im->height, c->height);
    assert_int_equal(im->stride, (size_t)c->width * 4);
    const unsigned char *want = c->rgba + 8;
    for (uint32_t i = 0; i < c->width * c->height; i++)
        if (memcmp(im->pixels + i * 4, want + i * 4, 4) != 0)
            fail_msg("%s: pixel (%u, %u) is %u %u %u %u, expected %u %u %u %u", what,
                     (unsigned)(i % c->width), (unsigned)(i / c->width), im->pixels[i * 4],
                     im->pixels[i * 4 + 1], im->pixels[i * 4 + 2], im->pixels[i * 4 + 3],
                     want[i * 4], want[i * 4 + 1], want[i * 4 + 2], want[i * 4 + 3]);
}

/* -- Every kind decodes to its pixels ---------------------------------------- */

static void test_every_kind(void **state)
{
    (void)state;
    tga_cases *all = load_cases();
    for (int i = 0; i < all->n; i++) {
        const tga_case *c = &all->c[i];
        ossa_render_image im;
        ossa_error e;
        if (ossa_render_tga_decode(c->file, c->size, NULL, &im, &e) != OSSA_OK)
            fail_msg("%s: %s at byte %llu", c->name, e.message, (unsigned long long)e.offset);
        assert_pixels(c->name, &im, c);
        assert_null(im.depth);
        ossa_free(im.pixels, NULL);
        assert_int_equal(ossa__image_kind(c->file, c->size, "x.TGA"), OSSA_IMAGE_TGA);
        /* Without a name, only the TGA 2.0 footer tells a TGA. */
        bool footer = strstr(c->name, "footer") != NULL;
        assert_int_equal(ossa__image_kind(c->file, c->size, NULL),
                         footer ? OSSA_IMAGE_TGA : OSSA_IMAGE_UNKNOWN);
    }
}

/* -- Cuts, patches, allocation failures -------------------------------------- */

static void test_truncated(void **state)
{
    (void)state;
    tga_cases *all = load_cases();
    for (int i = 0; i < all->n; i++) {
        const tga_case *c = &all->c[i];
        /* The TGA 2.0 extension area and footer (495 + 26 bytes) are not
         * read: cutting into them changes nothing. */
        size_t data_end = strstr(c->name, "footer") ? c->size - 521 : c->size;
        for (size_t n = 0; n < c->size; n++) {
            ossa_render_image im;
            ossa_error e;
            ossa_status st = ossa_render_tga_decode(c->file, n, NULL, &im, &e);
            if (n >= data_end) {
                assert_int_equal(st, OSSA_OK);
                assert_pixels(c->name, &im, c);
                ossa_free(im.pixels, NULL);
                continue;
            }
            if (st == OSSA_OK) fail_msg("%s: the first %zu of %zu bytes decoded", c->name, n, c->size);
            if (e.code != OSSA_ERROR_TRUNCATED)
                fail_msg("%s cut to %zu bytes: %s (%s)", c->name, n, ossa_code_name(e.code), e.message);
            assert_true(e.offset <= n);
            assert_non_null(strstr(e.message, "TGA: "));
        }
    }
}

static void test_patched(void **state)
{
    (void)state;
    static const char *const names[] = {"true24_bottom_up", "rle32_alpha", "true16_alpha_bit",
                                        "mapped8_32_alpha", "rle_mapped16_16", "rle_grey16_alpha",
                                        "true24_id_and_unused_map"};
    static const int patches[3] = {0x00, 0xFF, -1};
    uint64_t decoded = 0, refused = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const tga_case *c = find_case(names[k]);
        unsigned char *p = malloc(c->size);
        for (size_t i = 0; i < c->size; i++)
            for (int j = 0; j < 3; j++) {
                memcpy(p, c->file, c->size);
                p[i] = (unsigned char)(patches[j] < 0 ? c->file[i] ^ 0x55 : patches[j]);
                ossa_render_image im;
                ossa_error e;
                if (ossa_render_tga_decode(p, c->size, NULL, &im, &e) == OSSA_OK) {
                    assert_true(im.width >= 1 && im.width <= OSSA_IMAGE_MAX_SIDE);
                    assert_true(im.height >= 1 && im.height <= OSSA_IMAGE_MAX_SIDE);
                    unsigned sum = 0;
                    for (size_t b = 0; b < im.stride * im.height; b++) sum += im.pixels[b];
                    (void)sum;
                    ossa_free(im.pixels, NULL);
                    decoded++;
                } else {
                    assert_non_null(strstr(e.message, "TGA: "));
                    assert_true(e.offset <= c->size);
                    assert_true(e.code == OSSA_ERROR_CORRUPT || e.code == OSSA_ERROR_TRUNCATED ||
                                e.code == OSSA_ERROR_UNSUPPORTED);
                    refused++;
                }
            }
        free(p);
    }
    printf("byte patches: %llu decoded, %llu refused\n", (unsigned long long)decoded,
           (unsigned long long)refused);
    assert_true(decoded > 0 && refused > 0);
}

static void test_allocation_failure(void **state)
{
    (void)state;
    static const char *const names[] = {"rle_mapped8_32_cross_rows", "true32_alpha"};
    for (size_t k = 0; k < 2; k++) {
        const tga_case *c = find_case(names[k]);
        ts_alloc good;
        ts_alloc_init(&good, -1, false);
        ossa_render_image im;
        ossa_error e;
        assert_int_equal(ossa_render_tga_decode(c->file, c->size, &good.allocator, &im, &e), OSSA_OK);
        ossa_free(im.pixels, &good.allocator);
        assert_int_equal(good.live, 0);
        assert_true(good.calls >= 1);
        for (long n = 0; n < good.calls; n++) {
            ts_alloc a;
            ts_alloc_init(&a, n, false);
            assert_int_equal(ossa_render_tga_decode(c->file, c->size, &a.allocator, &im, &e),
                             OSSA_FAILED);
            assert_int_equal(e.code, OSSA_ERROR_NOMEM);
            assert_int_equal(a.live, 0);
        }
    }
}

/* -- Located errors ---------------------------------------------------------- */

static unsigned char *header_of(const char *name, size_t *size)
{
    const tga_case *c = find_case(name);
    unsigned char *p = malloc(c->size);
    memcpy(p, c->file, c->size);
    *size = c->size;
    return p;
}

static void expect(const unsigned char *p, size_t size, ossa_code code, uint64_t at, const char *text)
{
    ts_alloc a;
    ts_alloc_init(&a, -1, false);
    ossa_render_image im;
    ossa_error e;
    assert_int_equal(ossa_render_tga_decode(p, size, &a.allocator, &im, &e), OSSA_FAILED);
    if (e.code != code || e.offset != at || !strstr(e.message, text))
        fail_msg("got %s at byte %llu: %s; expected %s at byte %llu: ...%s...", ossa_code_name(e.code),
                 (unsigned long long)e.offset, e.message, ossa_code_name(code),
                 (unsigned long long)at, text);
    assert_int_equal(a.live, 0);
}

static void test_located_errors(void **state)
{
    (void)state;
    size_t size;
    unsigned char *p = header_of("true24_bottom_up", &size);
    p[2] = 32;
    expect(p, size, OSSA_ERROR_UNSUPPORTED, 2, "image type 32");
    p[2] = 0;
    expect(p, size, OSSA_ERROR_UNSUPPORTED, 2, "holds no image");
    p[2] = 5;
    expect(p, size, OSSA_ERROR_CORRUPT, 2, "image type 5 is not one of");
    p[2] = 2;
    p[1] = 7;
    expect(p, size, OSSA_ERROR_CORRUPT, 1, "colour map type 7");
    p[1] = 0;
    p[16] = 12;
    expect(p, size, OSSA_ERROR_CORRUPT, 16, "pixel depth 12 of a true-colour image");
    p[16] = 24;
    p[17] = 0x40;
    expect(p, size, OSSA_ERROR_UNSUPPORTED, 17, "interleaved");
    p[17] = 0;
    ts_put16(p + 12, 0);
    expect(p, size, OSSA_ERROR_CORRUPT, 12, "0 x 23 pixels");
    /* Too large: refused before anything is allocated (expect() checks
     * that nothing is held; here nothing is even asked for). */
    ts_put16(p + 12, 20000);
    ts_alloc a;
    ts_alloc_init(&a, -1, false);
    ossa_render_image im;
    ossa_error e;
    assert_int_equal(ossa_render_tga_decode(p, size, &a.allocator, &im, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(e.message, "20000x23 pixels is too large"));
    assert_int_equal(a.calls, 0);
    ts_put16(p + 12, 16384);
    ts_put16(p + 14, 16384);
    expect(p, size, OSSA_ERROR_UNSUPPORTED, 12, "16384x16384 pixels is too large");
    /* A picture the data cannot hold: 37x23 pixels of 3 bytes need 2553,
     * and a run-length picture of 16384x4096 at least 131072 packets. */
    ts_put16(p + 12, 37);
    ts_put16(p + 14, 23);
    expect(p, size - 1, OSSA_ERROR_TRUNCATED, size - 1, "need 2553 bytes from byte 18");
    p[2] = 10;
    ts_put16(p + 12, 16384);
    ts_put16(p + 14, 4096);
    ts_alloc_init(&a, -1, false);
    assert_int_equal(ossa_render_tga_decode(p, size, &a.allocator, &im, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_TRUNCATED);
    assert_non_null(strstr(e.message, "at least 2097152 bytes"));
    assert_int_equal(a.calls, 0);
    free(p);

    /* Colour maps: a mapped image without one, entries of a depth TGA
     * does not have, an empty one, one that runs past the file. */
    p = header_of("mapped8_first_index", &size);
    p[1] = 0;
    expect(p, size, OSSA_ERROR_CORRUPT, 1, "without a colour map");
    p[1] = 1;
    p[7] = 20;
    expect(p, size, OSSA_ERROR_CORRUPT, 7, "entries of 20 bits");
    p[7] = 24;
    ts_put16(p + 5, 0);
    expect(p, size, OSSA_ERROR_CORRUPT, 5, "empty colour map");
    ts_put16(p + 5, 60000);
    expect(p, size, OSSA_ERROR_TRUNCATED, size, "colour map (60000 entries of 3 bytes");
    ts_put16(p + 5, 200);
    /* The map holds entries 40 to 239: pixel 5's index made 39 and 240. */
    size_t pixel5 = 18 + 200 * 3 + 5;
    p[pixel5] = 39;
    expect(p, size, OSSA_ERROR_CORRUPT, pixel5,
           "colour index 39 is outside the colour map (entries 40 to 239)");
    p[pixel5] = 240;
    expect(p, size, OSSA_ERROR_CORRUPT, pixel5, "colour index 240");
    free(p);

    /* Run-length packets: one that runs past the last pixel, data that
     * ends inside a packet, data that ends between packets. */
    unsigned char rle[18 + 16] = {0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 24, 0};
    rle[18] = 0x82; /* a run of 3 pixels: the picture has 2 */
    expect(rle, 18 + 4, OSSA_ERROR_CORRUPT, 18,
           "a run packet of 3 pixels runs past the last pixel (2 left)");
    rle[18] = 0x01; /* raw, 2 pixels: 6 bytes, the file has 5 */
    expect(rle, 18 + 6, OSSA_ERROR_TRUNCATED, 24, "the raw packet at byte 18 needs 6 bytes");
    rle[18] = 0x00; /* raw, 1 pixel, then nothing */
    expect(rle, 18 + 4, OSSA_ERROR_TRUNCATED, 22, "ends with 1 of 2 pixels decoded");
    rle[22] = 0x00;
    rle[23] = 1, rle[24] = 2, rle[25] = 3;
    im.pixels = NULL;
    assert_int_equal(ossa_render_tga_decode(rle, 18 + 8, NULL, &im, &e), OSSA_OK);
    assert_int_equal(im.pixels[4], 3); /* second pixel: B G R = 1 2 3 */
    assert_int_equal(im.pixels[6], 1);
    ossa_free(im.pixels, NULL);

    /* Not even a header; no input at all. */
    expect(rle, 17, OSSA_ERROR_TRUNCATED, 17, "the header alone takes 18");
    assert_int_equal(ossa_render_tga_decode(NULL, 4, NULL, &im, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
}

/* -- PNG encoding ------------------------------------------------------------ */

/* The colour type of a PNG: byte 25 (8 signature, 8 chunk head, 9 into IHDR). */
static int png_colour_type(const unsigned char *png) { return png[25]; }

static void round_trip_png(const uint8_t *px, uint32_t w, uint32_t h, size_t stride, uint32_t flags)
{
    ossa_rgba_image im = {w, h, (uint8_t *)px, stride};
    void *png;
    size_t size;
    ossa_error e;
    assert_int_equal(ossa__png_encode(&im, flags, NULL, &png, &size, &e), OSSA_OK);
    bool alpha = false;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) alpha |= px[y * stride + x * 4 + 3] != 255;
    assert_int_equal(png_colour_type(png), alpha ? 6 : 2);
    ossa_render_image back;
    assert_int_equal(ossa_render_png_decode(png, size, NULL, &back, &e), OSSA_OK);
    assert_int_equal(back.width, w);
    assert_int_equal(back.height, h);
    for (uint32_t y = 0; y < h; y++)
        assert_memory_equal(back.pixels + (size_t)y * w * 4, px + y * stride, (size_t)w * 4);
    ossa_free(back.pixels, NULL);
    ossa__free(NULL, png, size);
}

static void test_png_encode(void **state)
{
    (void)state;
    tga_cases *all = load_cases();
    for (int i = 0; i < all->n; i++) {
        const tga_case *c = &all->c[i];
        round_trip_png(c->rgba + 8, c->width, c->height, (size_t)c->width * 4, 0);
        round_trip_png(c->rgba + 8, c->width, c->height, (size_t)c->width * 4, OSSA_PNG_FAST);
    }
    /* A stride beyond the row; noise over several IDAT chunks; one pixel. */
    uint64_t seed = 7;
    enum { W = 613, H = 500, STRIDE = W * 4 + 12 };
    uint8_t *px = malloc((size_t)STRIDE * H);
    for (size_t i = 0; i < (size_t)STRIDE * H; i++) px[i] = (uint8_t)ts_rand(&seed);
    round_trip_png(px, W, H, STRIDE, 0);
    round_trip_png(px, W, H, STRIDE, OSSA_PNG_FAST);
    for (size_t i = 3; i < (size_t)STRIDE * H; i += 4) px[i] = 255;
    round_trip_png(px, W, H, STRIDE, 0);
    round_trip_png(px, 1, 1, 4, 0);
    free(px);

    /* Refused: no pixels, a zero or too large side, a short stride. */
    uint8_t one[4] = {1, 2, 3, 4};
    void *png;
    size_t size;
    ossa_error e;
    ossa_rgba_image bad[4] = {{1, 1, NULL, 4}, {0, 1, one, 4}, {16385, 1, one, 65540}, {2, 1, one, 4}};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(ossa__png_encode(&bad[k], 0, NULL, &png, &size, &e), OSSA_FAILED);
        assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
        assert_null(png);
    }

    /* Every allocation (the buffer, the row work space, zlib's) failed in
     * turn: out of memory, nothing held. */
    const tga_case *c = find_case("true32_alpha");
    ossa_rgba_image im = {c->width, c->height, c->rgba + 8, (size_t)c->width * 4};
    ts_alloc good;
    ts_alloc_init(&good, -1, false);
    assert_int_equal(ossa__png_encode(&im, 0, &good.allocator, &png, &size, &e), OSSA_OK);
    ossa__free(&good.allocator, png, size);
    assert_int_equal(good.live, 0);
    assert_true(good.calls >= 3);
    for (long n = 0; n < good.calls; n++) {
        ts_alloc a;
        ts_alloc_init(&a, n, true);
        assert_int_equal(ossa__png_encode(&im, 0, &a.allocator, &png, &size, &e), OSSA_FAILED);
        assert_int_equal(e.code, OSSA_ERROR_NOMEM);
        assert_int_equal(a.live, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_patched),
        cmocka_unit_test(test_allocation_failure),
        cmocka_unit_test(test_located_errors),
        cmocka_unit_test(test_png_encode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
