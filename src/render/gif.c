/* Animated GIF through giflib: each frame gets its own 256-colour
 * palette (quantize.c) and is LZW-encoded by giflib into a buffer that
 * grows as frames arrive. */
#include "render/render.h"

#include <gif_lib.h>
#include <math.h>

struct ossa_render_gif {
    ossa_allocator allocator;
    uint32_t width, height, flags;
    double fps;
    GifFileType *gif; /* NULL once closed */
    ossa_buf out;
    uint32_t frames;
    bool finished;
    bool failed; /* an earlier call failed: the stream is unusable */
    rd_quantizer *quantizer;
    uint8_t *index;    /* one frame's palette indices */
    uint8_t *previous; /* the last frame's pixels (width * 4 per row) */
    bool previous_transparent;
};

static int write_bytes(GifFileType *gif, const GifByteType *data, int len)
{
    ossa_render_gif *g = gif->UserData;
    if (len <= 0) return 0;
    ossa__buf_append(&g->out, data, (size_t)len);
    return g->out.failed ? 0 : len;
}

static ossa_status gif_fail(ossa_render_gif *g, int code, ossa_error *error)
{
    g->failed = true;
    if (code == E_GIF_ERR_NOT_ENOUGH_MEM || code == D_GIF_ERR_NOT_ENOUGH_MEM || g->out.failed)
        return ossa__fail_nomem(error);
    const char *why = GifErrorString(code);
    return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "GIF encoding failed: %s",
                      why ? why : "unknown giflib error");
}

void ossa_render_gif_free(ossa_render_gif *gif)
{
    if (!gif) return;
    if (gif->gif) EGifCloseFile(gif->gif, NULL);
    ossa__buf_release(&gif->out);
    ossa__free(&gif->allocator, gif->quantizer, sizeof *gif->quantizer);
    ossa__free(&gif->allocator, gif->index, (size_t)gif->width * gif->height);
    ossa__free(&gif->allocator, gif->previous, (size_t)gif->width * gif->height * 4);
    ossa_allocator a = gif->allocator;
    ossa__free(&a, gif, sizeof *gif);
}

ossa_render_gif *ossa_render_gif_create(const ossa_render_gif_options *given, ossa_error *error)
{
    ossa_render_gif_options copy;
    if (given &&
        ossa__copy_sized(&copy, sizeof copy, given, RD_GIF_OPTIONS_0_2, "ossa_render_gif_options", error))
        return NULL;
    const ossa_render_gif_options *options = given ? &copy : NULL;
    if (!options || options->width == 0 || options->height == 0 ||
        options->width > RD_MAX_IMAGE_SIDE || options->height > RD_MAX_IMAGE_SIDE ||
        !(options->fps >= 0 && options->fps <= 1000)) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "a GIF needs a size of 1..%d pixels on a side and 0 <= fps <= 1000",
                   RD_MAX_IMAGE_SIDE);
        return NULL;
    }
    ossa_render_gif *g = ossa__alloc(options->allocator, sizeof *g);
    if (!g) {
        ossa__fail_nomem(error);
        return NULL;
    }
    memset(g, 0, sizeof *g);
    if (options->allocator) g->allocator = *options->allocator;
    g->width = options->width;
    g->height = options->height;
    g->flags = options->flags;
    g->fps = options->fps > 0 ? options->fps : 30.0;
    ossa__buf_init(&g->out, &g->allocator);
    g->quantizer = ossa__alloc(&g->allocator, sizeof *g->quantizer);
    g->index = ossa__alloc(&g->allocator, (size_t)g->width * g->height);
    g->previous = ossa__alloc(&g->allocator, (size_t)g->width * g->height * 4);
    int code = 0;
    if (g->quantizer && g->index && g->previous) {
        memset(g->quantizer, 0, sizeof *g->quantizer);
        g->gif = EGifOpen(g, write_bytes, &code);
    }
    if (!g->gif) {
        ossa__fail_nomem(error);
        ossa_render_gif_free(g);
        return NULL;
    }
    /* GIF89a for the delays, transparency and the loop extension. */
    EGifSetGifVersion(g->gif, true);
    bool ok = EGifPutScreenDesc(g->gif, (int)g->width, (int)g->height, 8, 0, NULL) == GIF_OK;
    if (ok && !(g->flags & OSSA_RENDER_GIF_ONCE)) {
        /* Netscape's application extension: sub-block 1, loop count 0 =
         * forever (little-endian 16 bits). */
        static const unsigned char loop[3] = {1, 0, 0};
        ok = EGifPutExtensionLeader(g->gif, APPLICATION_EXT_FUNC_CODE) == GIF_OK &&
             EGifPutExtensionBlock(g->gif, 11, "NETSCAPE2.0") == GIF_OK &&
             EGifPutExtensionBlock(g->gif, 3, loop) == GIF_OK &&
             EGifPutExtensionTrailer(g->gif) == GIF_OK;
    }
    if (!ok) {
        gif_fail(g, g->gif->Error, error);
        ossa_render_gif_free(g);
        return NULL;
    }
    return g;
}

/* Hundredths of a second from the start of frame i to the start of frame
 * i + 1, rounded so that the errors do not add up. */
static int frame_delay(const ossa_render_gif *g, uint32_t i)
{
    double a = floor(i * 100.0 / g->fps + 0.5), b = floor((i + 1) * 100.0 / g->fps + 0.5);
    double d = b - a;
    return d < 1 ? 1 : d > 65535 ? 65535 : (int)d;
}

/* The rectangle of pixels that differ from the previous frame (an empty
 * one as 1x1 at the origin, since every frame must carry its delay). */
static void changed_rect(const ossa_render_gif *g, const uint8_t *px, size_t stride,
                         uint32_t r[4])
{
    const size_t row_bytes = (size_t)g->width * 4;
    uint32_t y0 = 0, y1 = g->height, x0 = g->width, x1 = 0;
    while (y0 < y1 && !memcmp(px + y0 * stride, g->previous + y0 * row_bytes, row_bytes)) y0++;
    while (y1 > y0 && !memcmp(px + (y1 - 1) * stride, g->previous + (y1 - 1) * row_bytes, row_bytes))
        y1--;
    for (uint32_t y = y0; y < y1; y++) {
        const uint8_t *a = px + y * stride, *b = g->previous + y * row_bytes;
        uint32_t l = 0, h = g->width;
        while (l < x0 && !memcmp(a + l * 4, b + l * 4, 4)) l++;
        while (h > x1 && h > l && !memcmp(a + (h - 1) * 4, b + (h - 1) * 4, 4)) h--;
        if (l < x0) x0 = l;
        if (h > x1) x1 = h;
    }
    if (y0 >= y1 || x0 >= x1) x0 = y0 = 0, x1 = y1 = 1;
    r[0] = x0, r[1] = y0, r[2] = x1 - x0, r[3] = y1 - y0;
}

ossa_status ossa_render_gif_add_frame(ossa_render_gif *gif, const ossa_render_image *frame,
                                      ossa_error *error)
{
    if (!gif || gif->finished || gif->failed)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the GIF is finished or failed earlier");
    if (!frame || !frame->pixels || frame->width != gif->width || frame->height != gif->height ||
        (frame->stride && frame->stride < (size_t)frame->width * 4))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the frame must be %ux%u pixels", (unsigned)gif->width,
                          (unsigned)gif->height);
    const size_t stride = frame->stride ? frame->stride : (size_t)frame->width * 4;
    bool transparent = false;
    for (uint32_t y = 0; y < gif->height && !transparent; y++) {
        const uint8_t *row = frame->pixels + (size_t)y * stride;
        for (uint32_t x = 0; x < gif->width; x++) transparent |= row[x * 4 + 3] < 128;
    }
    /* Opaque frames after an opaque frame store only what changed, and
     * leave the rest of the previous one in place: on a still background
     * that is a fraction of the pixels to quantize and compress. A frame
     * with transparency is whole, and clears itself before the next. */
    uint32_t r[4] = {0, 0, gif->width, gif->height};
    bool partial = gif->frames > 0 && !transparent && !gif->previous_transparent;
    if (partial) changed_rect(gif, frame->pixels, stride, r);
    const uint8_t *origin = frame->pixels + (size_t)r[1] * stride + (size_t)r[0] * 4;
    /* With transparency the last palette entry is kept for it. */
    uint8_t palette[256][3];
    memset(palette, 0, sizeof palette);
    ossa__rd_quantize(gif->quantizer, origin, r[2], r[3], stride, transparent ? 255 : 256,
                      gif->index, palette);
    if (transparent)
        for (uint32_t y = 0; y < gif->height; y++) {
            const uint8_t *row = frame->pixels + (size_t)y * stride;
            for (uint32_t x = 0; x < gif->width; x++)
                if (row[x * 4 + 3] < 128) gif->index[(size_t)y * gif->width + x] = 255;
        }
    GifColorType colors[256];
    for (int i = 0; i < 256; i++)
        colors[i] = (GifColorType){palette[i][0], palette[i][1], palette[i][2]};
    ColorMapObject *map = GifMakeMapObject(256, colors);
    if (!map) return gif_fail(gif, E_GIF_ERR_NOT_ENOUGH_MEM, error);
    GraphicsControlBlock gcb;
    memset(&gcb, 0, sizeof gcb);
    gcb.DisposalMode = transparent ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT;
    gcb.DelayTime = frame_delay(gif, gif->frames);
    gcb.TransparentColor = transparent ? 255 : NO_TRANSPARENT_COLOR;
    GifByteType ext[4];
    size_t ext_len = EGifGCBToExtension(&gcb, ext);
    GifFileType *gf = gif->gif;
    bool ok = EGifPutExtension(gf, GRAPHICS_EXT_FUNC_CODE, (int)ext_len, ext) == GIF_OK &&
              EGifPutImageDesc(gf, (int)r[0], (int)r[1], (int)r[2], (int)r[3], false, map) ==
                  GIF_OK &&
              EGifPutLine(gf, gif->index, (int)(r[2] * r[3])) == GIF_OK;
    GifFreeMapObject(map);
    if (!ok) return gif_fail(gif, gf->Error, error);
    for (uint32_t y = 0; y < gif->height; y++)
        memcpy(gif->previous + (size_t)y * gif->width * 4, frame->pixels + (size_t)y * stride,
               (size_t)gif->width * 4);
    gif->previous_transparent = transparent;
    gif->frames++;
    return OSSA_OK;
}

ossa_status ossa_render_gif_finish(ossa_render_gif *gif, void **out_data, size_t *out_size,
                                   ossa_error *error)
{
    if (!out_data || !out_size)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no output buffer");
    *out_data = NULL;
    *out_size = 0;
    if (!gif || gif->finished || gif->failed || gif->frames == 0)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the GIF has no frames, is finished or failed earlier");
    gif->finished = true;
    int code = 0;
    int rc = EGifCloseFile(gif->gif, &code); /* frees the handle even on failure */
    gif->gif = NULL;
    if (rc != GIF_OK || gif->out.failed) return gif_fail(gif, code, error);
    *out_data = gif->out.data;
    *out_size = gif->out.size;
    memset(&gif->out, 0, sizeof gif->out); /* the caller owns the bytes now */
    ossa__buf_init(&gif->out, &gif->allocator);
    return OSSA_OK;
}

ossa_status ossa_render_gif_write(ossa_render_gif *gif, const char *path, ossa_error *error)
{
    if (!path || !path[0])
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no output path");
    void *data;
    size_t size;
    if (ossa_render_gif_finish(gif, &data, &size, error)) return OSSA_FAILED;
    ossa_output_file file = {path, data, size};
    ossa_status st = ossa__write_files(&file, 1, NULL, error);
    ossa_free(data, &gif->allocator);
    if (st) ossa__error_set_file(error, path);
    return st;
}
