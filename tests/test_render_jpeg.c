/* JPEG textures (ossa_render_jpeg_decode): pictures written here with
 * libjpeg itself decode to their colours (baseline, progressive, grey);
 * foreign, cut, patched and oversized data and failed allocations fail
 * cleanly, with the byte the decoder reached. */
#include "render_test.h"

static void assert_rgb_near(const uint8_t *got, const uint8_t *want, int tol)
{
    for (int c = 0; c < 3; c++)
        if (abs((int)got[c] - (int)want[c]) > tol)
            fail_msg("channel %d: %d, expected %d +- %d", c, got[c], want[c], tol);
}

static void test_colours(void **state)
{
    (void)state;
    uint8_t px[16 * 16 * 3];
    rtt_quadrants(px);
    ossa_render_image first;
    memset(&first, 0, sizeof first);
    for (int progressive = 0; progressive < 2; progressive++) {
        size_t size;
        unsigned char *jpg = rtt_jpeg_encode(px, 16, 16, 3, 100, progressive, &size);
        ossa_render_image im;
        ossa_error e;
        assert_int_equal(ossa_render_jpeg_decode(jpg, size, NULL, &im, &e), OSSA_OK);
        assert_int_equal(im.width, 16);
        assert_int_equal(im.height, 16);
        assert_int_equal(im.stride, 64);
        /* Flat 8 x 8 blocks at quality 100 come back within a few levels
         * (the colour transform rounds twice). */
        for (int i = 0; i < 16 * 16; i++) {
            assert_rgb_near(im.pixels + 4 * i, px + 3 * i, 3);
            assert_int_equal(im.pixels[4 * i + 3], 255);
        }
        /* Progressive scans refine to the same coefficients. */
        if (progressive)
            assert_memory_equal(im.pixels, first.pixels, 16 * 16 * 4);
        else
            first = im;
        if (progressive) ossa_free(im.pixels, NULL);
        free(jpg);
    }
    ossa_free(first.pixels, NULL);

    /* Grey: the level in red, green and blue. */
    uint8_t grey[8 * 8];
    for (int i = 0; i < 64; i++) grey[i] = (uint8_t)(i * 4);
    size_t size;
    unsigned char *jpg = rtt_jpeg_encode(grey, 8, 8, 1, 100, false, &size);
    ossa_render_image im;
    ossa_error e;
    assert_int_equal(ossa_render_jpeg_decode(jpg, size, NULL, &im, &e), OSSA_OK);
    for (int i = 0; i < 64; i++) {
        const uint8_t *p = im.pixels + 4 * i;
        assert_int_equal(p[0], p[1]);
        assert_int_equal(p[1], p[2]);
        assert_true(abs((int)p[0] - grey[i]) <= 2);
    }
    ossa_free(im.pixels, NULL);
    free(jpg);
}

static void test_rejects(void **state)
{
    (void)state;
    ossa_render_image out;
    ossa_error e;
    assert_int_equal(ossa_render_jpeg_decode("GIF89a", 6, NULL, &out, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_FORMAT);
    assert_int_equal(ossa_render_jpeg_decode("\x89PNG\r\n\x1a\n", 8, NULL, &out, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_FORMAT);
    assert_int_equal(ossa_render_jpeg_decode("\xFF\xD8", 2, NULL, &out, &e), OSSA_FAILED);
    assert_int_equal(ossa_render_jpeg_decode(NULL, 4, NULL, &out, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);

    uint8_t px[16 * 16 * 3];
    rtt_quadrants(px);
    size_t size;
    unsigned char *jpg = rtt_jpeg_encode(px, 16, 16, 3, 90, false, &size);

    /* Every cut of the file fails, as cut or damaged, at a byte inside
     * what was given. */
    for (size_t n = 0; n < size; n++) {
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, jpg, n);
        if (ossa_render_jpeg_decode(cut, n, NULL, &out, &e) == OSSA_OK)
            fail_msg("the first %zu of %zu bytes decoded", n, size);
        assert_true(e.code == OSSA_ERROR_FORMAT || e.code == OSSA_ERROR_TRUNCATED ||
                    e.code == OSSA_ERROR_CORRUPT);
        assert_true(e.offset == OSSA_NO_OFFSET || e.offset <= n);
        assert_non_null(strstr(e.message, n < 3 ? "not a JPEG" : "JPEG"));
        free(cut);
    }
    /* The whole file less its last byte: cut (libjpeg would fill it in). */
    assert_int_equal(ossa_render_jpeg_decode(jpg, size - 1, NULL, &out, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_TRUNCATED);

    /* Every byte changed three ways: a picture of the same size or a
     * clean failure (the sanitizers watch the rest). */
    unsigned char *patched = malloc(size);
    static const int patches[3] = {0x00, 0xFF, -1};
    for (size_t i = 0; i < size; i++)
        for (int k = 0; k < 3; k++) {
            memcpy(patched, jpg, size);
            patched[i] = (unsigned char)(patches[k] < 0 ? jpg[i] ^ 0x55 : patches[k]);
            if (ossa_render_jpeg_decode(patched, size, NULL, &out, &e) == OSSA_OK) {
                assert_true(out.width > 0 && out.height > 0);
                ossa_free(out.pixels, NULL);
            } else {
                assert_true(e.message[0] != 0);
            }
        }

    /* Dimensions past the texture limits in the frame header: refused
     * before any pixel memory is asked for. */
    size_t sof = 2;
    while (sof + 9 < size && !(jpg[sof] == 0xFF && jpg[sof + 1] == 0xC0)) sof++;
    assert_true(sof + 9 < size);
    memcpy(patched, jpg, size);
    patched[sof + 7] = 0x4E, patched[sof + 8] = 0x20; /* width 20000 */
    ts_alloc a;
    ts_alloc_init(&a, -1, false);
    assert_int_equal(ossa_render_jpeg_decode(patched, size, &a.allocator, &out, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(e.message, "20000x16"));
    assert_int_equal(a.calls, 0);

    /* The pixel buffer cannot be had: out of memory, nothing held. */
    ts_alloc_init(&a, 0, true);
    assert_int_equal(ossa_render_jpeg_decode(jpg, size, &a.allocator, &out, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_NOMEM);
    assert_int_equal(a.live, 0);
    free(patched);
    free(jpg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_colours),
        cmocka_unit_test(test_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
