/*
 * JPEG texture fuzz target: ossa_render_jpeg_decode on any bytes. A decode
 * either fails with a message or gives a picture within the texture limits
 * whose every pixel is read here (so that the sanitizers see uninitialised
 * or out-of-bounds rows).
 */
#include "fuzz_common.h"

static volatile unsigned sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_render_image im;
    ossa_error error;
    if (ossa_render_jpeg_decode(data, size, NULL, &im, &error) != OSSA_OK) {
        if (!error.message[0]) __builtin_trap();
        return 0;
    }
    if (im.width == 0 || im.height == 0 || im.width > 16384 || im.height > 16384 ||
        im.stride != (size_t)im.width * 4)
        __builtin_trap();
    unsigned sum = 0;
    for (size_t i = 0; i < im.stride * im.height; i++) sum += im.pixels[i];
    /* Alpha is opaque everywhere. */
    for (size_t i = 3; i < im.stride * im.height; i += 4)
        if (im.pixels[i] != 255) __builtin_trap();
    sink = sum;
    ossa_free(im.pixels, NULL);
    return 0;
}
