/* SOTC .nto pixels (docs/formats/sotc.md §8): textures of every kind, swizzle and
 * level made by tests/gen_nto.py, an encoder written from the format notes
 * and the GS memory arrangement alone, decode to exactly the pictures it
 * made them from (RGBA32 sources within one step of the PS2 alpha
 * scaling); the size nibbles stored either way are told apart by the
 * picture; the image a .nto load keeps is a PNG with those texels. The
 * swizzle maps every texel of every size to its own byte or nibble, and
 * a few texels sit where the GS manual's tables put them. Every cut,
 * patched bytes and every failed allocation end in a located error or a
 * picture, never a crash or a leak. */
#include "nto_test.h"

#include "formats/sotc/sotc.h"

typedef struct nto_case {
    char name[64];
    unsigned kind, width, height, levels, swizzle;
    bool high; /* the file keeps the width in the high nibble */
    unsigned char *file;
    size_t size;
} nto_case;

typedef struct nto_cases {
    nto_case c[32];
    int n;
    char *dir;
} nto_cases;

static nto_cases *cases(void)
{
    static nto_cases all;
    if (all.n) return &all;
    all.dir = ts_tmp_path("nto_cases");
    char args[4200];
    snprintf(args, sizeof args, "cases '%s'", all.dir);
    if (!nto_generate(args)) return NULL;
    char *list = ts_path_join(all.dir, "cases.txt");
    FILE *f = fopen(list, "r");
    assert_non_null(f);
    char nibbles[8];
    nto_case *c = &all.c[0];
    while (all.n < 32 && fscanf(f, "%63s %u %u %u %u %u %7s", c->name, &c->kind, &c->width,
                                &c->height, &c->levels, &c->swizzle, nibbles) == 7) {
        c->high = strcmp(nibbles, "high") == 0;
        char file[128];
        snprintf(file, sizeof file, "%s.nto", c->name);
        char *path = ts_path_join(all.dir, file);
        c->file = ts_read_file(path, &c->size);
        assert_non_null(c->file);
        free(path);
        c = &all.c[++all.n];
    }
    fclose(f);
    free(list);
    assert_true(all.n >= 15);
    return &all;
}

static nto_picture picture(const nto_cases *all, const nto_case *c, unsigned level, const char *ext)
{
    char file[128];
    snprintf(file, sizeof file, "%s.%u.%s", c->name, level, ext);
    char *path = ts_path_join(all->dir, file);
    nto_picture p = nto_read_picture(path);
    free(path);
    return p;
}

static sotc_nto open_case(const nto_case *c, unsigned order)
{
    sotc_nto_request rq;
    memset(&rq, 0, sizeof rq);
    rq.order = order;
    sotc_nto t;
    ossa_error err;
    memset(&err, 0, sizeof err);
    if (ossa__nto_open(&t, c->file, c->size, &rq, NULL, &err))
        fail_msg("%s: %s", c->name, err.message);
    return t;
}

/* Every level of every case, the width nibble found by the picture. */
static void test_every_case(void **state)
{
    (void)state;
    nto_cases *all = cases();
    if (!all) return;
    for (int k = 0; k < all->n; k++) {
        const nto_case *c = &all->c[k];
        sotc_nto t = open_case(c, 0);
        assert_int_equal(t.num_levels, c->levels);
        assert_int_equal(t.width_high, c->high && c->width != c->height);
        /* Square: no question; else the picture decides, the order of
         * a 2x1 level being a tie (two texels side by side or stacked
         * differ alike). */
        assert_int_equal(t.order_by, c->width == c->height         ? NTO_BY_SQUARE
                                     : c->width * c->height == 2 ? NTO_BY_DEFAULT
                                                                 : NTO_BY_PICTURE);
        for (unsigned l = 0; l < c->levels; l++) {
            nto_picture want = picture(all, c, l, "rgba");
            assert_non_null(want.rgba);
            assert_int_equal(t.levels[l].width, want.width);
            assert_int_equal(t.levels[l].height, want.height);
            uint8_t *got;
            ossa_error err;
            if (ossa__nto_decode(&t, l, 0, NULL, &got, &err))
                fail_msg("%s level %u: %s", c->name, l, err.message);
            size_t texels = (size_t)want.width * want.height;
            long at = nto_first_difference(got, want.rgba, texels, 0);
            if (at >= 0)
                fail_msg("%s level %u: texel (%ld, %ld) is %u %u %u %u, expected %u %u %u %u",
                         c->name, l, at % (long)want.width, at / (long)want.width, got[4 * at],
                         got[4 * at + 1], got[4 * at + 2], got[4 * at + 3], want.rgba[4 * at],
                         want.rgba[4 * at + 1], want.rgba[4 * at + 2], want.rgba[4 * at + 3]);
            /* RGBA32: the picture the encoder started from, within the
             * alpha scaling (0..255 kept in 129 steps). */
            nto_picture src = picture(all, c, l, "src");
            if (src.rgba) assert_int_equal(nto_first_difference(got, src.rgba, texels, 1), -1);
            assert_int_equal(c->kind == 0x00, src.rgba != NULL);
            free(src.rgba);
            free(want.rgba);
            free(got);
        }
        /* The other order by the option: the sides swapped. */
        if (c->width != c->height) {
            sotc_nto o = open_case(c, c->high ? 1 : 2);
            assert_int_equal(o.levels[0].width, c->height);
            assert_int_equal(o.order_by, NTO_BY_OPTION);
            o = open_case(c, c->high ? 2 : 1);
            assert_int_equal(o.levels[0].width, c->width);
        }
    }
}

/* The public path: a .nto load keeps level sotc.nto_level as NAME.png,
 * whose texels (read back through libpng) are the expected ones. */
static void test_images(void **state)
{
    (void)state;
    nto_cases *all = cases();
    if (!all) return;
    for (int k = 0; k < all->n; k++) {
        const nto_case *c = &all->c[k];
        for (unsigned l = 0; l < c->levels; l++) {
            char file[96], level[16], key[128];
            snprintf(file, sizeof file, "%s.nto", c->name);
            snprintf(level, sizeof level, "%u", l);
            ossa_option opt = {"sotc.nto_level", level};
            ossa_load_options lo = {.file_name = file, .format_options = &opt,
                                    .num_format_options = 1};
            ossa_error err;
            ossa_model *m = ossa_load_memory(c->file, c->size, &lo, &err);
            if (!m) fail_msg("%s: %s", file, err.message);
            assert_int_equal(m->source_format, OSSA_FORMAT_SOTC_NTO);
            assert_int_equal(m->num_warnings, 0);
            snprintf(key, sizeof key, "%s.png", c->name);
            size_t size;
            const void *png = ossa_model_get_image(m, key, &size);
            assert_non_null(png);
            ossa_render_image im;
            assert_int_equal(ossa_render_png_decode(png, size, NULL, &im, &err), OSSA_OK);
            nto_picture want = picture(all, c, l, "rgba");
            assert_int_equal(im.width, want.width);
            assert_int_equal(im.height, want.height);
            assert_memory_equal(im.pixels, want.rgba, (size_t)want.width * want.height * 4);
            ossa_free(im.pixels, NULL);
            free(want.rgba);
            ossa_model_free(m);
        }
        /* A level the texture does not have. */
        ossa_option opt = {"sotc.nto_level", "15"};
        ossa_load_options lo = {.format_options = &opt, .num_format_options = 1};
        ossa_error err;
        assert_null(ossa_load_memory(c->file, c->size, &lo, &err));
        assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
        assert_non_null(strstr(err.message, "level"));
    }
}

/* The texture text names every level, and with OSSA_LOAD_NO_IMAGES no
 * picture is made. */
static void test_text(void **state)
{
    (void)state;
    nto_cases *all = cases();
    if (!all) return;
    const nto_case *c = NULL;
    for (int k = 0; k < all->n; k++)
        if (strcmp(all->c[k].name, "pal8_high") == 0) c = &all->c[k];
    assert_non_null(c);
    ossa_load_options lo = {.flags = OSSA_LOAD_NO_IMAGES};
    ossa_error err;
    ossa_model *m = ossa_load_memory(c->file, c->size, &lo, &err);
    assert_non_null(m);
    assert_int_equal(m->num_extras, 2);
    char text[1024];
    assert_true(m->extras[0].size < sizeof text);
    memcpy(text, m->extras[0].data, m->extras[0].size);
    text[m->extras[0].size] = 0;
    /* 32x128, the width in the high nibble; level 0 swizzled (8192
     * bytes after the 32-byte header), level 1 not. */
    assert_string_equal(text,
                        "width=32 height=128 kind=8bit-palette mips=2 swizzle=0x01 version=3 "
                        "pixels=0x20 palette=0x1420\n"
                        "level 0: 32x128 swizzled at 0x20, 4096 bytes\n"
                        "level 1: 16x64 at 0x1020, 1024 bytes\n"
                        "width from the high nibble of byte 0x1E (the smoother picture of level 0)");
    ossa_model_free(m);
}

/* Every size a swizzled level can have, up to 1024: each texel has a
 * byte (8-bit) or nibble (4-bit) of its own inside the level. */
static void test_swizzle_is_a_permutation(void **state)
{
    (void)state;
    for (unsigned bpp = 4; bpp <= 8; bpp += 4)
        for (uint32_t w = 1; w <= 1024; w *= 2)
            for (uint32_t h = 1; h <= 1024; h *= 2) {
                uint64_t at;
                bool can = ossa__nto_swizzled_texel(bpp, w, h, 0, 0, &at);
                assert_int_equal(can, bpp == 8 ? w >= 16 && h >= 16 : w >= 32 && h >= 16);
                if (!can) continue;
                size_t n = (size_t)w * h;
                unsigned char *seen = calloc(n, 1);
                assert_non_null(seen);
                for (uint32_t y = 0; y < h; y++)
                    for (uint32_t x = 0; x < w; x++) {
                        assert_true(ossa__nto_swizzled_texel(bpp, w, h, x, y, &at));
                        if (at >= n || seen[at])
                            fail_msg("%u-bit %ux%u: texel (%u, %u) at %llu", bpp, w, h, x, y,
                                     (unsigned long long)at);
                        seen[at] = 1;
                    }
                free(seen);
            }
}

/* Texels placed by hand from the GS User's Manual's tables. In a 16x16
 * PSMT8 block (uploaded as 8x8 PSMCT32 pixels) texel (1, 0) is byte 4 of
 * column 0 (word 1, PSMCT32 pixel (1, 0)): byte 4; texel (8, 0) is byte 2
 * (word 0, byte 2); texel (0, 2) is byte 33 of the column, word 8 at
 * pixel (4, 0), byte 1: byte 17; texel (0, 4) opens column 1 at its byte
 * 32 (word 24 of the block, pixel (4, 2)): byte 2 * 32 + 16 = 80. In a
 * 32x16 PSMT4 block (uploaded as 8x8 pixels) texel (8, 0) is nibble 2 of
 * word 0; texel (0, 2) nibble 65 of the column, word 8 at pixel (4, 0),
 * nibble 1: 33. */
static void test_swizzle_by_hand(void **state)
{
    (void)state;
    static const struct {
        unsigned bpp, w, h, x, y;
        uint64_t at;
    } known[] = {
        {8, 16, 16, 0, 0, 0},  {8, 16, 16, 1, 0, 4},  {8, 16, 16, 8, 0, 2},
        {8, 16, 16, 0, 2, 17}, {8, 16, 16, 0, 4, 80}, {4, 32, 16, 0, 0, 0},
        {4, 32, 16, 8, 0, 2},  {4, 32, 16, 0, 2, 33},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        uint64_t at;
        assert_true(ossa__nto_swizzled_texel(known[i].bpp, known[i].w, known[i].h, known[i].x,
                                             known[i].y, &at));
        if (at != known[i].at)
            fail_msg("%u-bit texel (%u, %u): %llu, expected %llu", known[i].bpp, known[i].x,
                     known[i].y, (unsigned long long)at, (unsigned long long)known[i].at);
    }
}

/* A load of every case's file: NULL, or a model whose image decodes to
 * level 0's size. */
static void load_checked(const unsigned char *data, size_t size, const ossa_allocator *a,
                         ossa_error *err)
{
    ossa_load_options lo = {.format = OSSA_FORMAT_SOTC_NTO, .file_name = "x.nto", .allocator = a};
    ossa_model *m = ossa_load_memory(data, size, &lo, err);
    if (!m) {
        assert_true(err->message[0] != 0);
        return;
    }
    ossa_model_validate(m, NULL, NULL, NULL);
    size_t png_size;
    const void *png = ossa_model_get_image(m, "x.png", &png_size);
    if (png) {
        ossa_render_image im;
        ossa_error e;
        assert_int_equal(ossa_render_png_decode(png, png_size, NULL, &im, &e), OSSA_OK);
        ossa_free(im.pixels, NULL);
    }
    ossa_model_free(m);
}

/* Every prefix fails; every .rodata size short of the palette's end
 * fails, and the full one loads. */
static void test_truncation(void **state)
{
    (void)state;
    nto_cases *all = cases();
    if (!all) return;
    for (int k = 0; k < all->n; k++) {
        const nto_case *c = &all->c[k];
        if (c->size > 20000) continue; /* the small ones cover every field */
        for (size_t n = 0; n < c->size; n++) {
            unsigned char *copy = malloc(n ? n : 1);
            assert_non_null(copy);
            memcpy(copy, c->file, n);
            ossa_error err;
            ossa_load_options lo = {.format = OSSA_FORMAT_SOTC_NTO};
            ossa_model *m = ossa_load_memory(copy, n, &lo, &err);
            if (m) fail_msg("%s: a %zu-byte prefix of %zu loaded", c->name, n, c->size);
            free(copy);
        }
        unsigned char *copy = malloc(c->size);
        assert_non_null(copy);
        memcpy(copy, c->file, c->size);
        uint32_t field = ts_le32(copy + 0x5C) + 0x20 + 0x08, full = ts_le32(copy + field);
        for (uint32_t s = 0; s < full; s += s < 64 ? 1 : 7) {
            ts_put32(copy + field, s);
            ossa_error err;
            ossa_load_options lo = {.format = OSSA_FORMAT_SOTC_NTO};
            ossa_model *m = ossa_load_memory(copy, c->size, &lo, &err);
            if (m) fail_msg("%s: .rodata of %u bytes (of %u) loaded", c->name, s, full);
            assert_true(err.code == OSSA_ERROR_FORMAT || err.code == OSSA_ERROR_CORRUPT);
        }
        ts_put32(copy + field, full);
        ossa_error err;
        load_checked(copy, c->size, NULL, &err);
        free(copy);
    }
}

/* Random bytes of the XFF header, the texture header and the texels. */
static void test_patches(void **state)
{
    (void)state;
    nto_cases *all = cases();
    if (!all) return;
    uint64_t rng = 0x5eed;
    for (int k = 0; k < all->n; k++) {
        const nto_case *c = &all->c[k];
        unsigned char *copy = malloc(c->size);
        assert_non_null(copy);
        for (int round = 0; round < 300; round++) {
            memcpy(copy, c->file, c->size);
            int patches = 1 + (int)(ts_rand(&rng) % 4);
            for (int p = 0; p < patches; p++) {
                uint64_t r = ts_rand(&rng);
                size_t at = r % 3 == 0   ? (size_t)(r >> 8) % 0xC0
                            : r % 3 == 1 ? 0x100 + (size_t)(r >> 8) % 0x20
                                         : (size_t)(r >> 8) % c->size;
                copy[at % c->size] = (unsigned char)(r >> 40);
            }
            ossa_error err;
            load_checked(copy, c->size, NULL, &err);
        }
        free(copy);
    }
}

/* Every allocation of a load (the decoding, the PNG, zlib's) failing in
 * turn, once and from then on: NOMEM and nothing leaked, or the same
 * image as without failures. */
static void test_allocation_failures(void **state)
{
    (void)state;
    nto_cases *all = cases();
    if (!all) return;
    static const char *const names[] = {"rgba32_mips", "pal8_swz", "pal4_high"};
    for (size_t i = 0; i < 3; i++) {
        const nto_case *c = NULL;
        for (int k = 0; k < all->n; k++)
            if (strcmp(all->c[k].name, names[i]) == 0) c = &all->c[k];
        assert_non_null(c);
        ts_alloc good;
        ts_alloc_init(&good, -1, false);
        ossa_load_options lo = {.file_name = "x.nto", .allocator = &good.allocator};
        ossa_error err;
        ossa_model *ref = ossa_load_memory(c->file, c->size, &lo, &err);
        assert_non_null(ref);
        size_t ref_size;
        const void *ref_png = ossa_model_get_image(ref, "x.png", &ref_size);
        assert_non_null(ref_png);
        long total = good.calls;
        for (int sticky = 0; sticky < 2; sticky++)
            for (long n = 0; n < total; n++) {
                ts_alloc a;
                ts_alloc_init(&a, n, sticky);
                lo.allocator = &a.allocator;
                ossa_model *m = ossa_load_memory(c->file, c->size, &lo, &err);
                if (!m) {
                    assert_int_equal(err.code, OSSA_ERROR_NOMEM);
                } else {
                    size_t size;
                    const void *png = ossa_model_get_image(m, "x.png", &size);
                    assert_non_null(png);
                    assert_int_equal(size, ref_size);
                    assert_memory_equal(png, ref_png, size);
                    ossa_model_free(m);
                }
                assert_int_equal(a.live, 0);
                assert_int_equal(a.bad_frees, 0);
            }
        ossa_model_free(ref);
        assert_int_equal(good.live, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_case),
        cmocka_unit_test(test_images),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_swizzle_is_a_permutation),
        cmocka_unit_test(test_swizzle_by_hand),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_patches),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
