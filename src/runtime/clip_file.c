/* Saving and loading compressed clips (.ossaclip, docs/formats/ossaclip.md):
 * the file is the clip's image (packed.h), so saving writes it out and
 * loading reads it into one allocation, checks it and points the clip at
 * it; nothing is decoded. */
#include "runtime/packed.h"

#include <stdio.h>

const void *ossa_clip_data(const ossa_clip *clip, size_t *size)
{
    if (!clip || !clip->packed) {
        *size = 0;
        return NULL;
    }
    const ossa__packed_header *h = (const ossa__packed_header *)(const void *)clip->packed;
    *size = h->image_size;
    return clip->packed;
}

ossa_status ossa_clip_save(const ossa_clip *clip, const char *path, ossa_error *error)
{
    ossa__error_begin(error, path);
    size_t size;
    const void *data = ossa_clip_data(clip, &size);
    if (!data)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "only compressed clips can be saved (OSSA_CLIP_COMPRESSED)");
    ossa_output_file file = {path, data, size};
    return ossa__write_files(&file, 1, NULL, error);
}

/* One block for the clip, its image and the checker's scratch; the bytes
 * come from `src` or, when it is NULL, from `fp`. */
static ossa_clip *load(const void *src, FILE *fp, size_t size, const ossa_allocator *allocator,
                       ossa_error *error)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    (void)src, (void)fp, (void)size, (void)allocator;
    ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
               "compressed clips need a little-endian CPU");
    return NULL;
#else
    if (size < sizeof(ossa__packed_header) || size > UINT32_MAX) {
        ossa__fail(error, OSSA_ERROR_CORRUPT, size < 128 ? size : OSSA_NO_OFFSET,
                   "a compressed clip has a 128-byte header and at most 4 GiB, this one has %zu "
                   "bytes",
                   size);
        return NULL;
    }
    ossa_allocator alloc = {0};
    if (allocator) alloc = *allocator;
    unsigned char *image;
    /* num_joints bytes of scratch for the checker: a joint takes at least
     * 48 bytes of the image (parent, order, bind pose), and larger counts
     * fail the check before the scratch is used. */
    ossa_clip *clip = ossa__packed_new(&alloc, size, size / 32 + 1, &image);
    if (!clip) {
        ossa__fail_nomem(error);
        return NULL;
    }
    if (src) {
        memcpy(image, src, size);
    } else if (fread(image, 1, size, fp) != size) {
        ossa_clip_free(clip);
        ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot read the file");
        return NULL;
    }
    if (ossa__packed_check(image, size, image + size + 16, error) != OSSA_OK) {
        ossa_clip_free(clip);
        return NULL;
    }
    ossa__packed_attach(clip, image);
    clip->simd = ossa_simd_best();
    return clip;
#endif
}

ossa_clip *ossa_clip_load_memory(const void *data, size_t size, const ossa_allocator *allocator,
                                 ossa_error *error)
{
    ossa__error_begin(error, NULL);
    if (!data && size) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no data");
        return NULL;
    }
    return load(data ? data : "", NULL, size, allocator, error);
}

ossa_clip *ossa_clip_load_file(const char *path, const ossa_allocator *allocator,
                               ossa_error *error)
{
    ossa__error_begin(error, path);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot open the file");
        return NULL;
    }
    long end = -1;
    if (fseek(fp, 0, SEEK_END) == 0) end = ftell(fp);
    if (end < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot find the size of the file");
        return NULL;
    }
    ossa_clip *clip = load(NULL, fp, (size_t)end, allocator, error);
    fclose(fp);
    return clip;
}
