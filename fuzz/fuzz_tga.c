/*
 * TGA fuzz target: ossa_render_tga_decode on any bytes. A decode either
 * fails with a message and a byte offset inside the input, or gives a
 * picture within the limits whose every pixel is read here; that picture
 * then goes through the library's PNG encoder, both ways of filtering, and
 * must come back from libpng exactly (a trap otherwise). Seeds: every kind
 * of TGA (tests/gen_tga.py --small fuzz/corpus/tga).
 */
#include <string.h>

#include "fuzz_common.h"
#include "image/image.h"

static volatile unsigned sink;

static void png_round_trip(const ossa_render_image *im, uint32_t flags)
{
    ossa_rgba_image in = {im->width, im->height, im->pixels, im->stride};
    void *png = NULL;
    size_t size = 0;
    ossa_error error;
    if (ossa__png_encode(&in, flags, NULL, &png, &size, &error) != OSSA_OK) __builtin_trap();
    ossa_render_image back;
    if (ossa_render_png_decode(png, size, NULL, &back, &error) != OSSA_OK) __builtin_trap();
    if (back.width != im->width || back.height != im->height ||
        memcmp(back.pixels, im->pixels, (size_t)im->width * im->height * 4) != 0)
        __builtin_trap();
    ossa_free(back.pixels, NULL);
    ossa_free(png, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_render_image im;
    ossa_error error;
    if (ossa_render_tga_decode(data, size, NULL, &im, &error) != OSSA_OK) {
        if (!error.message[0] || (error.offset != OSSA_NO_OFFSET && error.offset > size))
            __builtin_trap();
        return 0;
    }
    if (im.width == 0 || im.height == 0 || im.width > 16384 || im.height > 16384 ||
        (uint64_t)im.width * im.height > (1u << 26) || im.stride != (size_t)im.width * 4)
        __builtin_trap();
    unsigned sum = 0;
    for (size_t i = 0; i < im.stride * im.height; i++) sum += im.pixels[i];
    sink = sum;
    png_round_trip(&im, 0);
    png_round_trip(&im, OSSA_PNG_FAST);
    ossa_free(im.pixels, NULL);
    return 0;
}
