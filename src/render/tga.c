/* TGA textures: src/image's decoder behind the renderer's image API, in
 * the shape of ossa_render_png_decode and ossa_render_jpeg_decode. */
#include "render/render.h"

ossa_status ossa_render_tga_decode(const void *data, size_t size, const ossa_allocator *allocator,
                                   ossa_render_image *out, ossa_error *error)
{
    if (!out || (!data && size))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no input or output");
    memset(out, 0, sizeof *out);
    ossa_rgba_image im;
    if (ossa__tga_decode(data, size, allocator, &im, error)) return OSSA_FAILED;
    out->width = im.width;
    out->height = im.height;
    out->pixels = im.pixels;
    out->stride = im.stride;
    return OSSA_OK;
}
