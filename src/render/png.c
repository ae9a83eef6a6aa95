/* PNG files: read through libpng's simplified API (libpng 1.6), which
 * converts every PNG flavour to RGBA8 and reports errors in the image
 * struct instead of longjmp-ing through our frames; written by the
 * library's own encoder (src/image/png.c), which the glTF writer uses for
 * textures too. */
#include "render/render.h"

#include <png.h>

static ossa_status check_image(const ossa_render_image *im, ossa_error *error)
{
    if (!im || !im->pixels || im->width == 0 || im->height == 0 || im->width > RD_MAX_IMAGE_SIDE ||
        im->height > RD_MAX_IMAGE_SIDE ||
        (im->stride && im->stride < (size_t)im->width * 4) || im->stride > INT32_MAX)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "an image of 1..%d pixels on a side with pixels and a stride of at "
                          "least 4 * width is needed",
                          RD_MAX_IMAGE_SIDE);
    return OSSA_OK;
}

ossa_status ossa_render_png_encode(const ossa_render_image *image, const ossa_allocator *allocator,
                                   void **out_data, size_t *out_size, ossa_error *error)
{
    if (!out_data || !out_size)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no output buffer");
    *out_data = NULL;
    *out_size = 0;
    if (check_image(image, error)) return OSSA_FAILED;
    /* No filters and zlib level 3 (libpng's "fast" setting, which this
     * used before): rendered pictures are mostly flat runs; on four of them
     * libpng's default settings took 5 times as long for files from 20%
     * smaller to 4% larger. */
    ossa_rgba_image im = {image->width, image->height, image->pixels,
                          image->stride ? image->stride : (size_t)image->width * 4};
    return ossa__png_encode(&im, OSSA_PNG_FAST, allocator, out_data, out_size, error);
}

ossa_status ossa_render_png_decode(const void *data, size_t size, const ossa_allocator *allocator,
                                   ossa_render_image *out, ossa_error *error)
{
    if (!out || (!data && size))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no input or output");
    memset(out, 0, sizeof *out);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0)
        return ossa__fail(error, OSSA_ERROR_FORMAT, 0, "not a PNG file");
    if (!png_image_begin_read_from_memory(&pi, data, size))
        return ossa__fail(error, OSSA_ERROR_CORRUPT, OSSA_NO_OFFSET, "PNG: %s", pi.message);
    if (pi.width == 0 || pi.height == 0 || pi.width > RD_MAX_TEXTURE_SIDE ||
        pi.height > RD_MAX_TEXTURE_SIDE || (uint64_t)pi.width * pi.height > RD_MAX_TEXTURE_PIXELS) {
        png_image_free(&pi);
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "PNG of %ux%u pixels is too large (at most %d on a side, %u in all)",
                          (unsigned)pi.width, (unsigned)pi.height, RD_MAX_TEXTURE_SIDE,
                          RD_MAX_TEXTURE_PIXELS);
    }
    pi.format = PNG_FORMAT_RGBA;
    size_t bytes = PNG_IMAGE_SIZE(pi);
    uint8_t *pixels = ossa__alloc(allocator, bytes);
    if (!pixels) {
        png_image_free(&pi);
        return ossa__fail_nomem(error);
    }
    if (!png_image_finish_read(&pi, NULL, pixels, 0, NULL)) {
        ossa__free(allocator, pixels, bytes);
        png_image_free(&pi);
        return ossa__fail(error, OSSA_ERROR_CORRUPT, OSSA_NO_OFFSET, "PNG: %s", pi.message);
    }
    out->width = pi.width;
    out->height = pi.height;
    out->pixels = pixels;
    out->stride = (size_t)pi.width * 4;
    return OSSA_OK;
}

ossa_status ossa_render_png_write(const ossa_render_image *image, const char *path,
                                  ossa_error *error)
{
    if (!path || !path[0])
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no output path");
    void *data;
    size_t size;
    if (ossa_render_png_encode(image, NULL, &data, &size, error)) return OSSA_FAILED;
    ossa_output_file file = {path, data, size};
    ossa_status st = ossa__write_files(&file, 1, NULL, error);
    ossa_free(data, NULL);
    if (st) ossa__error_set_file(error, path);
    return st;
}
