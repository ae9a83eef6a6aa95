/* JPEG textures through libjpeg(-turbo), decoded straight to RGBA8.
 *
 * libjpeg reports a fatal error by calling error_exit, which must not
 * return: ours longjmps back to the decode call, which frees what it holds
 * and fails. Its warnings (corrupt or missing data, which it would paper
 * over with grey) fail the decode too, at the byte the decoder had reached:
 * a texture is either the file's picture or none. Nothing is printed. */
#include "render/render.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */

#include <jpeglib.h>

#include <jerror.h>

/* Progressive files may hold any number of scans, each a pass over the
 * whole picture; real encoders write about ten. */
#define MAX_SCANS 1000

typedef struct jpeg_guard {
    struct jpeg_error_mgr mgr;
    struct jpeg_progress_mgr progress;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
    ossa_code code; /* of the failure */
} jpeg_guard;

static void guard_fail(j_common_ptr cinfo)
{
    jpeg_guard *g = (jpeg_guard *)(void *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, g->message);
    int code = cinfo->err->msg_code;
    g->code = code == JWRN_JPEG_EOF             ? OSSA_ERROR_TRUNCATED
              : code == JERR_CONVERSION_NOTIMPL ? OSSA_ERROR_UNSUPPORTED
                                                : OSSA_ERROR_CORRUPT;
    longjmp(g->escape, 1);
}

/* Warnings (level -1) mean damaged data, except stray bytes between
 * segments, which some encoders write and which leave the picture whole. */
static void guard_message(j_common_ptr cinfo, int level)
{
    if (level < 0 && cinfo->err->msg_code != JWRN_EXTRANEOUS_DATA) guard_fail(cinfo);
}

static void guard_progress(j_common_ptr cinfo)
{
    jpeg_guard *g = (jpeg_guard *)(void *)cinfo->err;
    j_decompress_ptr d = (j_decompress_ptr)(void *)cinfo;
    if (d->input_scan_number > MAX_SCANS) {
        snprintf(g->message, sizeof g->message, "more than %d scans", MAX_SCANS);
        g->code = OSSA_ERROR_UNSUPPORTED;
        longjmp(g->escape, 1);
    }
}

static void guard_silent(j_common_ptr cinfo) { (void)cinfo; }

ossa_status ossa_render_jpeg_decode(const void *data, size_t size, const ossa_allocator *allocator,
                                    ossa_render_image *out, ossa_error *error)
{
    if (!out || (!data && size))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no input or output");
    memset(out, 0, sizeof *out);
    const unsigned char *bytes = data;
    if (size < 3 || bytes[0] != 0xFF || bytes[1] != 0xD8 || bytes[2] != 0xFF)
        return ossa__fail(error, OSSA_ERROR_FORMAT, 0, "not a JPEG file (expected FF D8 FF)");
    if (size > ULONG_MAX)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET, "JPEG too large");

    struct jpeg_decompress_struct cinfo;
    jpeg_guard guard;
    memset(&cinfo, 0, sizeof cinfo); /* what the failure path reads is NULL */
    memset(&guard, 0, sizeof guard);
    cinfo.err = jpeg_std_error(&guard.mgr);
    guard.mgr.error_exit = guard_fail;
    guard.mgr.emit_message = guard_message;
    guard.mgr.output_message = guard_silent;
    /* Set before the jump target, changed after it: volatile, so that the
     * value after a longjmp is the last one stored. */
    uint8_t *volatile pixels = NULL;
    volatile size_t pixel_bytes = 0;
    if (setjmp(guard.escape)) {
        uint64_t at = cinfo.src ? (uint64_t)(size - cinfo.src->bytes_in_buffer) : OSSA_NO_OFFSET;
        jpeg_destroy_decompress(&cinfo);
        if (pixels) ossa__free(allocator, pixels, pixel_bytes);
        return ossa__fail(error, guard.code, at, "JPEG: %s", guard.message);
    }
    jpeg_create_decompress(&cinfo);
    guard.progress.progress_monitor = guard_progress;
    cinfo.progress = &guard.progress;
    jpeg_mem_src(&cinfo, bytes, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    uint32_t w = cinfo.image_width, h = cinfo.image_height;
    if (w == 0 || h == 0 || w > RD_MAX_TEXTURE_SIDE || h > RD_MAX_TEXTURE_SIDE ||
        (uint64_t)w * h > RD_MAX_TEXTURE_PIXELS) {
        jpeg_destroy_decompress(&cinfo);
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "JPEG of %ux%u pixels is too large (at most %d on a side, %u in all)",
                          (unsigned)w, (unsigned)h, RD_MAX_TEXTURE_SIDE, RD_MAX_TEXTURE_PIXELS);
    }
    /* Grey and colour pictures come out as RGBA; CMYK ones fail here
     * (libjpeg-turbo does not convert them), as an unsupported kind. */
    cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)w * 4;
    pixel_bytes = stride * h;
    pixels = ossa__alloc(allocator, pixel_bytes);
    if (!pixels) {
        jpeg_destroy_decompress(&cinfo);
        return ossa__fail_nomem(error);
    }
    while (cinfo.output_scanline < h) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    out->width = w;
    out->height = h;
    out->pixels = pixels;
    out->stride = stride;
    return OSSA_OK;
}
