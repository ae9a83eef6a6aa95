/* SOTC .nto texture headers (docs/formats/sotc.md §8): files built here with the
 * library's XFF writer (or by hand for the entry variants), each pixel
 * kind, the size-nibble order both ways, the header found at the entry or
 * at the start of .rodata, bad pointers, every truncation of the file and
 * of .rodata, and random patches: clean errors, never a crash. The CLUT
 * order and the alpha scaling on a palette of every index; the levels
 * that cannot be decoded. (test_sotc_nto_pixels.c decodes the textures of
 * an independent encoder.) */
#include "support.h"

#include "formats/sotc/sotc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A texture: kind, byte 0x1D, byte 0x1E, swizzle; pixel and palette sizes
 * as the test computes them from the layout. */
typedef struct nto_spec {
    uint8_t kind, mips, size, swizzle;
    uint32_t version;
    size_t pixel_bytes, palette_bytes;
    uint32_t lead; /* bytes of filler before the header (entry = lead) */
} nto_spec;

typedef struct nto_built {
    unsigned char *data;
    size_t size;
    uint32_t ro;                       /* file offset of .rodata */
    uint32_t hdr, pixels, palette, end; /* .rodata offsets; end = last byte used + 1 */
} nto_built;

/* Builds the file with ossa__ro_* and ossa__xff_write (docs/formats/sotc.md §9.2). */
static nto_built build(const nto_spec *s)
{
    ossa_allocator alloc;
    memset(&alloc, 0, sizeof alloc);
    sotc_rodata r;
    ossa__ro_init(&r, &alloc);
    nto_built b;
    memset(&b, 0, sizeof b);
    if (s->lead) ossa__ro_alloc(&r, s->lead, 16);
    b.hdr = ossa__ro_alloc(&r, 0x20, 16);
    b.pixels = ossa__ro_alloc(&r, s->pixel_bytes, 16);
    b.end = b.pixels + (uint32_t)s->pixel_bytes;
    b.palette = 0;
    if (s->palette_bytes) {
        b.palette = ossa__ro_alloc(&r, s->palette_bytes, 16);
        b.end = b.palette + (uint32_t)s->palette_bytes;
    }
    for (uint32_t i = b.pixels; i < b.end; i++) ossa__ro_u8(&r, i, (uint8_t)(i * 7));
    ossa__ro_u8(&r, b.hdr + 0, 'N');
    ossa__ro_u8(&r, b.hdr + 1, 'T');
    ossa__ro_u8(&r, b.hdr + 2, 'O');
    ossa__ro_u8(&r, b.hdr + 3, '2');
    ossa__ro_u32(&r, b.hdr + 0x04, s->version);
    ossa__ro_ptr(&r, b.hdr + 0x14, b.pixels);
    ossa__ro_ptr(&r, b.hdr + 0x18, b.palette);
    ossa__ro_u8(&r, b.hdr + 0x1C, s->kind);
    ossa__ro_u8(&r, b.hdr + 0x1D, s->mips);
    ossa__ro_u8(&r, b.hdr + 0x1E, s->size);
    ossa__ro_u8(&r, b.hdr + 0x1F, s->swizzle);
    ossa_buf out;
    ossa__buf_init(&out, &alloc);
    assert_int_equal(ossa__xff_write(&r, b.hdr, 1, &out, NULL), OSSA_OK);
    ossa__ro_release(&r);
    b.data = malloc(out.size);
    assert_non_null(b.data);
    memcpy(b.data, out.data, out.size);
    b.size = out.size;
    ossa__buf_release(&out);
    uint32_t table = ts_le32(b.data + 0x5C);
    b.ro = ts_le32(b.data + table + 0x20 + 0x1C);
    return b;
}

/* `high_width`: the option sotc.nto_width=high, else low (the filler
 * texels are no picture to choose the order by) */
static ossa_model *load(const unsigned char *data, size_t size, bool high_width, ossa_error *err)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_SOTC_NTO;
    static const ossa_option high = {"sotc.nto_width", "high"}, low = {"sotc.nto_width", "low"};
    o.format_options = high_width ? &high : &low;
    o.num_format_options = 1;
    memset(err, 0, sizeof *err);
    return ossa_load_memory(data, size, &o, err);
}

static const ossa_extra *extra(const ossa_model *m, const char *key)
{
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, key) == 0) return &m->extras[i];
    return NULL;
}

/* Loads `b` and compares the first line of the texture text. */
static void expect_text(const nto_built *b, bool high_width, const char *want)
{
    ossa_error err;
    ossa_model *m = load(b->data, b->size, high_width, &err);
    if (!m) fail_msg("load failed: %s", err.message);
    assert_int_equal(m->source_format, OSSA_FORMAT_SOTC_NTO);
    assert_int_equal(m->num_joints, 0);
    assert_int_equal(m->num_vertices, 0);
    assert_int_equal(m->num_meshes, 0);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    const ossa_extra *t = extra(m, "sotc.nto.texture");
    assert_non_null(t);
    char text[1024];
    assert_true(t->size < sizeof text);
    memcpy(text, t->data, t->size);
    text[t->size] = 0;
    if (strchr(text, '\n')) *strchr(text, '\n') = 0;
    assert_string_equal(text, want);
    const ossa_extra *h = extra(m, "sotc.nto.header");
    assert_non_null(h);
    assert_int_equal(h->size, 0x20);
    assert_memory_equal(h->data, b->data + b->ro + b->hdr, 0x20);
    ossa_model_free(m);
}

/* RGBA32 16x8 (low nibble 4 = width), 2 mips (16x8, 8x4), no palette;
 * swizzle bits, which RGBA32 ignores. */
static const nto_spec rgba = {0x00, 0x20, 0x34, 0x03, 3, (16 * 8 + 8 * 4) * 4, 0, 0};
/* 8-bit palette 8x16, 1 mip. */
static const nto_spec pal8 = {0x13, 0x10, 0x43, 0x00, 3, 8 * 16, 256 * 4, 0};
/* 4-bit palette 32x32, 3 mips (32x32, 16x16, 8x8): half a byte per texel. */
static const nto_spec pal4 = {0x14, 0x30, 0x55, 0x00, 3, (32 * 32 + 16 * 16 + 8 * 8) / 2, 16 * 4,
                              0};

static void test_kinds(void **state)
{
    (void)state;
    nto_built b = build(&rgba);
    char want[256];
    snprintf(want, sizeof want,
             "width=16 height=8 kind=rgba32 mips=2 swizzle=0x03 version=3 pixels=0x%x palette=0x0",
             b.pixels);
    expect_text(&b, false, want);
    free(b.data);

    b = build(&pal8);
    snprintf(want, sizeof want,
             "width=8 height=16 kind=8bit-palette mips=1 swizzle=0x00 version=3 pixels=0x%x "
             "palette=0x%x",
             b.pixels, b.palette);
    expect_text(&b, false, want);
    free(b.data);

    b = build(&pal4);
    snprintf(want, sizeof want,
             "width=32 height=32 kind=4bit-palette mips=3 swizzle=0x00 version=3 pixels=0x%x "
             "palette=0x%x",
             b.pixels, b.palette);
    expect_text(&b, false, want);
    free(b.data);
}

static void test_nibble_order(void **state)
{
    (void)state;
    /* 0x34: low nibble 4, high 3. Default 16x8, swapped 8x16; both fit. */
    nto_spec s = rgba;
    nto_built b = build(&s);
    char want[256];
    snprintf(want, sizeof want,
             "width=8 height=16 kind=rgba32 mips=2 swizzle=0x03 version=3 pixels=0x%x palette=0x0",
             b.pixels);
    expect_text(&b, true, want);
    free(b.data);

    /* 1x256 RGBA32 either way is 1024 bytes, and its level 1 512;
     * 0x80: low 0 (width 1), high 8. */
    s.size = 0x80;
    s.pixel_bytes = (256 + 128) * 4;
    b = build(&s);
    snprintf(want, sizeof want,
             "width=1 height=256 kind=rgba32 mips=2 swizzle=0x03 version=3 pixels=0x%x palette=0x0",
             b.pixels);
    expect_text(&b, false, want);
    snprintf(want, sizeof want,
             "width=256 height=1 kind=rgba32 mips=2 swizzle=0x03 version=3 pixels=0x%x palette=0x0",
             b.pixels);
    expect_text(&b, true, want);
    free(b.data);
}

/* The header at the entry after filler, and (dormin's reading) at the start
 * of .rodata while the entry points elsewhere. */
static void test_header_position(void **state)
{
    (void)state;
    nto_spec s = pal8;
    s.lead = 0x30;
    nto_built b = build(&s);
    assert_int_equal(b.hdr, 0x30);
    assert_int_equal(ossa_format_detect(b.data, b.size), OSSA_FORMAT_SOTC_NTO);
    char want[256];
    snprintf(want, sizeof want,
             "width=8 height=16 kind=8bit-palette mips=1 swizzle=0x00 version=3 pixels=0x%x "
             "palette=0x%x",
             b.pixels, b.palette);
    expect_text(&b, false, want);
    free(b.data);

    b = build(&pal8);
    assert_int_equal(b.hdr, 0);
    ts_put32(b.data + 0x4C, b.pixels); /* entry: the pixels, not "NTO2" */
    assert_int_equal(ossa_format_detect(b.data, b.size), OSSA_FORMAT_SOTC_NTO);
    snprintf(want, sizeof want,
             "width=8 height=16 kind=8bit-palette mips=1 swizzle=0x00 version=3 pixels=0x%x "
             "palette=0x%x",
             b.pixels, b.palette);
    expect_text(&b, false, want);

    /* Neither place holds "NTO2". */
    b.data[b.ro] = 'X';
    ossa_error err;
    assert_null(load(b.data, b.size, 0, &err));
    assert_int_equal(err.code, OSSA_ERROR_FORMAT);
    assert_int_equal(err.offset, b.ro + b.pixels);
    assert_int_not_equal(ossa_format_detect(b.data, b.size), OSSA_FORMAT_SOTC_NTO);
    free(b.data);
}

static void test_warnings(void **state)
{
    (void)state;
    nto_spec s = rgba;
    s.kind = 0x07;
    s.version = 2;
    s.mips = 0x00;
    nto_built b = build(&s);
    ossa_error err;
    ossa_model *m = load(b.data, b.size, 0, &err);
    assert_non_null(m);
    /* The version, the kind, the mip count, and swizzle bits of levels
     * that are not read (one, as the mip count of 0 reads as 1). */
    assert_int_equal(m->num_warnings, 4);
    assert_int_equal(m->warnings[0].offset, b.ro + b.hdr + 0x04);
    assert_int_equal(m->warnings[1].offset, b.ro + b.hdr + 0x1C);
    assert_non_null(strstr(m->warnings[1].message, "0x07"));
    assert_int_equal(m->warnings[2].offset, b.ro + b.hdr + 0x1D);
    assert_int_equal(m->warnings[3].offset, b.ro + b.hdr + 0x1F);
    assert_null(ossa_model_get_image(m, "texture.png", NULL));
    const ossa_extra *t = extra(m, "sotc.nto.texture");
    assert_non_null(t);
    char text[256];
    assert_true(t->size < sizeof text);
    memcpy(text, t->data, t->size);
    text[t->size] = 0;
    assert_non_null(strstr(text, " kind=0x07 "));
    ossa_model_free(m);

    /* An unknown kind still needs its pixel pointer inside .rodata. */
    ts_put32(b.data + b.ro + b.hdr + 0x14, 0x7FFFFFF0u);
    assert_null(load(b.data, b.size, 0, &err));
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_int_equal(err.offset, b.ro + b.hdr + 0x14);
    free(b.data);
}

static void expect_corrupt(const nto_built *b, uint64_t offset, const char *what)
{
    ossa_error err;
    ossa_model *m = load(b->data, b->size, 0, &err);
    if (m) fail_msg("loaded a bad file (%s)", what);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_int_equal(err.offset, offset);
    assert_non_null(strstr(err.message, what));
}

static void test_bad_pointers(void **state)
{
    (void)state;
    nto_built b = build(&pal8);
    unsigned char *h = b.data + b.ro + b.hdr;
    uint64_t pix_field = b.ro + b.hdr + 0x14, pal_field = b.ro + b.hdr + 0x18;
    uint32_t ro_size = ts_le32(b.data + ts_le32(b.data + 0x5C) + 0x20 + 0x08);

    ts_put32(h + 0x14, 0xFFFFFFFFu); /* would wrap in 32 bits */
    expect_corrupt(&b, pix_field, "pixel data of mip level 0 (8x16, 8bit-palette)");
    ts_put32(h + 0x14, ro_size - 8 * 16 + 1); /* one byte short */
    expect_corrupt(&b, pix_field, "pixel data");
    ts_put32(h + 0x14, ro_size - 8 * 16); /* exactly at the end: fine */
    ossa_error err;
    ossa_model *m = load(b.data, b.size, 0, &err);
    assert_non_null(m);
    ossa_model_free(m);
    ts_put32(h + 0x14, b.pixels);

    ts_put32(h + 0x18, 0xFFFFFFFCu);
    expect_corrupt(&b, pal_field, "palette (256 entries)");
    ts_put32(h + 0x18, ro_size - 1023);
    expect_corrupt(&b, pal_field, "palette");
    ts_put32(h + 0x18, b.palette);

    /* A 4-bit palette needs only 16 entries: 64 bytes before the end fit. */
    h[0x1C] = 0x14;
    ts_put32(h + 0x18, ro_size - 64);
    m = load(b.data, b.size, 0, &err);
    assert_non_null(m);
    ossa_model_free(m);
    ts_put32(h + 0x18, ro_size - 63);
    expect_corrupt(&b, pal_field, "palette (16 entries)");
    ts_put32(h + 0x18, b.palette);
    h[0x1C] = 0x13;

    /* 32768 x 32768 RGBA32 is 4 GiB: no 32-bit overflow lets it pass. */
    h[0x1C] = 0x00;
    h[0x1E] = 0xFF;
    ts_put32(h + 0x14, 0);
    expect_corrupt(&b, pix_field, "32768x32768");
    free(b.data);
}

/* Every prefix of the file, and every .rodata size short of the data. */
static void test_truncation(void **state)
{
    (void)state;
    const nto_spec *specs[] = {&rgba, &pal8, &pal4};
    for (size_t k = 0; k < 3; k++) {
        nto_built b = build(specs[k]);
        for (size_t n = 0; n < b.size; n++) {
            unsigned char *copy = malloc(n ? n : 1);
            assert_non_null(copy);
            memcpy(copy, b.data, n);
            ossa_error err;
            ossa_model *m = load(copy, n, 0, &err);
            if (m) fail_msg("spec %zu: a %zu-byte prefix of %zu loaded", k, n, b.size);
            assert_true(err.message[0] != 0);
            free(copy);
        }
        uint32_t size_field = ts_le32(b.data + 0x5C) + 0x20 + 0x08;
        uint32_t ro_size = ts_le32(b.data + size_field);
        for (uint32_t s = 0; s <= ro_size; s++) {
            ts_put32(b.data + size_field, s);
            ossa_error err;
            ossa_model *m = load(b.data, b.size, 0, &err);
            if ((m != NULL) != (s >= b.end))
                fail_msg("spec %zu: .rodata of %u bytes (data ends at %u): %s", k, s, b.end,
                         m ? "loaded" : err.message);
            ossa_model_free(m);
        }
        free(b.data);
    }
}

static void test_random_patches(void **state)
{
    (void)state;
    const nto_spec *specs[] = {&rgba, &pal8, &pal4};
    srand(1234);
    for (size_t k = 0; k < 3; k++) {
        nto_built b = build(specs[k]);
        unsigned char *copy = malloc(b.size);
        assert_non_null(copy);
        for (int round = 0; round < 3000; round++) {
            memcpy(copy, b.data, b.size);
            int patches = 1 + rand() % 4;
            for (int p = 0; p < patches; p++) {
                /* Mostly the XFF header and the texture header. */
                size_t at = rand() % 2 ? (size_t)rand() % 0xC0
                                       : b.ro + b.hdr + (size_t)rand() % 0x20;
                copy[at % b.size] = (unsigned char)rand();
            }
            ossa_error err;
            ossa_model *m = load(copy, b.size, round & 1,
                                 &err);
            if (m) ossa_model_validate(m, NULL, NULL, NULL);
            ossa_model_free(m);
            ossa_format_detect(copy, b.size);
        }
        free(copy);
        free(b.data);
    }
}

static void test_detection(void **state)
{
    (void)state;
    assert_int_equal(ossa_format_from_name("tex.NTO"), OSSA_FORMAT_SOTC_NTO);
    assert_string_equal(ossa_format_name(OSSA_FORMAT_SOTC_NTO), "nto");
    assert_true(ossa_format_can_read(OSSA_FORMAT_SOTC_NTO));
    assert_false(ossa_format_can_write(OSSA_FORMAT_SOTC_NTO));
    nto_built b = build(&pal4);
    assert_int_equal(ossa_format_detect(b.data, b.size), OSSA_FORMAT_SOTC_NTO);
    /* A skeleton's first word at the entry is 1, not "NTO2". */
    memcpy(b.data + b.ro + b.hdr, "\1\0\0\0", 4);
    assert_int_not_equal(ossa_format_detect(b.data, b.size), OSSA_FORMAT_SOTC_NTO);
    free(b.data);
}

/* Loads with extra options ("sotc.nto_clut=linear ...") and decodes the
 * kept image through libpng into *px (w x h RGBA, malloc'd). */
static ossa_model *load_image(const nto_built *b, const char *options, uint32_t w, uint32_t h,
                              unsigned char **px)
{
    ts_options o;
    ts_options_parse(&o, options);
    ossa_load_options lo = {.format = OSSA_FORMAT_SOTC_NTO, .file_name = "t.nto",
                            .format_options = o.list, .num_format_options = o.count};
    ossa_error err;
    ossa_model *m = ossa_load_memory(b->data, b->size, &lo, &err);
    if (!m) fail_msg("%s: %s", options, err.message);
    size_t size;
    const void *png = ossa_model_get_image(m, "t.png", &size);
    *px = NULL;
    if (!png) return m;
    ossa_render_image im;
    assert_int_equal(ossa_render_png_decode(png, size, NULL, &im, &err), OSSA_OK);
    assert_int_equal(im.width, w);
    assert_int_equal(im.height, h);
    *px = malloc((size_t)w * h * 4);
    assert_non_null(*px);
    memcpy(*px, im.pixels, (size_t)w * h * 4);
    ossa_free(im.pixels, NULL);
    return m;
}

/* 0..128 to 0..255, rounded; above 128 clamped (docs/formats/sotc.md §8.3). */
static unsigned expect_alpha(unsigned a) { return a >= 128 ? 255 : (a * 255 + 64) / 128; }

/* A 16x16 8-bit texture of every index (texel i = index i) over a CLUT
 * whose entry p is (p, 255 - p, p ^ 0x55, alpha p or 0xFF): CSM1 puts
 * colour i at entry i with bits 3 and 4 swapped (entry 8 holds colour 16);
 * linear at entry i. Alpha scaled from the PS2 range, or raw. */
static void test_clut_order_and_alpha(void **state)
{
    (void)state;
    nto_spec s = {0x13, 0x10, 0x44, 0x00, 3, 256, 256 * 4, 0};
    nto_built b = build(&s);
    unsigned char *px = b.data + b.ro + b.pixels, *pal = b.data + b.ro + b.palette;
    for (unsigned i = 0; i < 256; i++) {
        px[i] = (unsigned char)i;
        unsigned char e[4] = {(unsigned char)i, (unsigned char)(255 - i), (unsigned char)(i ^ 0x55),
                              (unsigned char)(i < 140 ? i : 0xFF)};
        memcpy(pal + 4 * i, e, 4);
    }
    static const char *const options[] = {"sotc.nto_width=low", "sotc.nto_clut=linear",
                                          "sotc.nto_alpha=raw sotc.nto_clut=csm1"};
    for (int k = 0; k < 3; k++) {
        unsigned char *got;
        ossa_model *m = load_image(&b, options[k], 16, 16, &got);
        assert_non_null(got);
        for (unsigned i = 0; i < 256; i++) {
            unsigned e = k == 1 ? i : (i & ~0x18u) | (i & 0x08) << 1 | (i & 0x10) >> 1;
            unsigned a = e < 140 ? e : 0xFF;
            unsigned char want[4] = {(unsigned char)e, (unsigned char)(255 - e),
                                     (unsigned char)(e ^ 0x55),
                                     (unsigned char)(k == 2 ? a : expect_alpha(a))};
            if (memcmp(got + 4 * i, want, 4) != 0)
                fail_msg("%s: index %u is %u %u %u %u, expected %u %u %u %u", options[k], i,
                         got[4 * i], got[4 * i + 1], got[4 * i + 2], got[4 * i + 3], want[0],
                         want[1], want[2], want[3]);
        }
        free(got);
        ossa_model_free(m);
    }
    free(b.data);
}

/* 4-bit texels: the first of a byte in its low nibble, the 16-entry CLUT
 * in order. RGBA32 alpha: 0, 1, 64, 127, 128, 129, 255. */
static void test_nibbles_and_rgba_alpha(void **state)
{
    (void)state;
    nto_spec s = {0x14, 0x10, 0x33, 0x00, 3, 8 * 8 / 2, 16 * 4, 0};
    nto_built b = build(&s);
    unsigned char *px = b.data + b.ro + b.pixels, *pal = b.data + b.ro + b.palette;
    for (unsigned i = 0; i < 32; i++) px[i] = (unsigned char)((i % 16) | ((15 - i % 16) << 4));
    for (unsigned i = 0; i < 16; i++) {
        unsigned char e[4] = {(unsigned char)(16 * i), 7, 9, 0x80};
        memcpy(pal + 4 * i, e, 4);
    }
    unsigned char *got;
    ossa_model *m = load_image(&b, "", 8, 8, &got);
    for (unsigned t = 0; t < 64; t++) {
        unsigned byte = px[t / 2], index = t % 2 ? byte >> 4 : byte & 15;
        assert_int_equal(got[4 * t], 16 * index);
        assert_int_equal(got[4 * t + 3], 255);
    }
    free(got);
    ossa_model_free(m);
    free(b.data);

    static const unsigned char alpha[8] = {0, 1, 64, 127, 128, 129, 255, 0x80};
    nto_spec r = {0x00, 0x10, 0x03, 0x00, 3, 8 * 4, 0, 0};
    b = build(&r);
    px = b.data + b.ro + b.pixels;
    for (unsigned t = 0; t < 8; t++) {
        unsigned char texel[4] = {(unsigned char)t, 2, 3, alpha[t]};
        memcpy(px + 4 * t, texel, 4);
    }
    for (int raw = 0; raw < 2; raw++) {
        m = load_image(&b, raw ? "sotc.nto_alpha=raw" : "", 8, 1, &got);
        for (unsigned t = 0; t < 8; t++) {
            assert_int_equal(got[4 * t], t);
            assert_int_equal(got[4 * t + 3], raw ? alpha[t] : expect_alpha(alpha[t]));
        }
        free(got);
        ossa_model_free(m);
    }
    free(b.data);
}

/* Levels that cannot be decoded leave the header and a warning at the
 * byte at fault: an 8x8 4-bit level marked swizzled (GS blocks of PSMT4
 * are 32x16), a 32768-texel side. OSSA_LOAD_NO_IMAGES decodes nothing. */
static void test_undecodable_levels(void **state)
{
    (void)state;
    nto_spec s = pal4;
    s.swizzle = 0x07;
    nto_built b = build(&s);
    unsigned char *got;
    ossa_model *m = load_image(&b, "sotc.nto_level=1", 16, 16, &got);
    assert_null(got); /* 16x16 is too small too */
    assert_int_equal(m->num_warnings, 1);
    assert_int_equal(m->warnings[0].offset, b.ro + b.hdr + 0x1F);
    assert_non_null(strstr(m->warnings[0].message, "level 1 (16x16, 4bit-palette) is marked swizzled"));
    ossa_model_free(m);
    m = load_image(&b, "sotc.nto_level=0", 32, 32, &got);
    assert_non_null(got);
    assert_int_equal(m->num_warnings, 0);
    free(got);
    ossa_model_free(m);
    free(b.data);

    nto_spec wide = {0x00, 0x10, 0x0F, 0x00, 3, 32768 * 4, 0, 0};
    b = build(&wide);
    m = load_image(&b, "", 32768, 1, &got);
    assert_null(got);
    assert_int_equal(m->num_warnings, 1);
    assert_int_equal(m->warnings[0].offset, b.ro + b.hdr + 0x1E);
    assert_non_null(strstr(m->warnings[0].message, "32768x1"));
    ossa_model_free(m);
    ossa_load_options lo = {.flags = OSSA_LOAD_NO_IMAGES};
    ossa_error err;
    m = ossa_load_memory(b.data, b.size, &lo, &err);
    assert_non_null(m);
    assert_int_equal(m->num_warnings, 0);
    assert_int_equal(m->num_extras, 2);
    ossa_model_free(m);
    free(b.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),          cmocka_unit_test(test_nibble_order),
        cmocka_unit_test(test_header_position), cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_bad_pointers),   cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_random_patches), cmocka_unit_test(test_detection),
        cmocka_unit_test(test_clut_order_and_alpha), cmocka_unit_test(test_nibbles_and_rgba_alpha),
        cmocka_unit_test(test_undecodable_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
