/* Image files below the formats and the renderer (src/image/): Truevision
 * TGA decoded to RGBA8 (tga.c), RGBA8 encoded as PNG on zlib (png.c), and
 * what kind of image some bytes hold (kind.c). The glTF writer turns TGA
 * textures into PNG with them and the renderer draws with them, so they
 * sit below both and use nothing but the base helpers (allocation,
 * errors). PNG decoding is libpng's, in the renderer. Not installed. */
#ifndef OSSA_IMAGE_H
#define OSSA_IMAGE_H

#include "base/base.h"

/* Decoded pictures are capped before any pixel memory is taken, so that a
 * small hostile file cannot ask for gigabytes: at most this many pixels on
 * a side and in all (the renderer's PNG and JPEG decoders use the same). */
#define OSSA_IMAGE_MAX_SIDE 16384
#define OSSA_IMAGE_MAX_PIXELS (1u << 26)

/* An RGBA8 picture, not premultiplied, rows top first: row y starts at
 * pixels + y * stride. */
typedef struct ossa_rgba_image {
    uint32_t width, height;
    uint8_t *pixels;
    size_t stride;
} ossa_rgba_image;

typedef enum ossa_image_kind {
    OSSA_IMAGE_UNKNOWN = 0,
    OSSA_IMAGE_PNG,
    OSSA_IMAGE_JPEG,
    OSSA_IMAGE_TGA
} ossa_image_kind;

/* -- Kinds (kind.c) -- */

/* PNG and JPEG by their signatures. TGA has none: bytes are taken as TGA
 * when `name` (may be NULL) ends in ".tga" (any case), or when they end
 * with the TGA 2.0 footer ("TRUEVISION-XFILE.\0"). Anything else is
 * UNKNOWN. */
ossa_image_kind ossa__image_kind(const void *data, size_t size, const char *name);
/* Whether `name` ends in `ext` (".tga"), ignoring ASCII case. */
bool ossa__image_name_has(const char *name, const char *ext);

/* -- TGA (tga.c) -- */

/* Decodes a Truevision TGA file (colour-mapped, true-colour and greyscale,
 * uncompressed or run-length encoded, any origin) into out->pixels: a new
 * buffer of width * height * 4 bytes from `allocator` (free it with
 * ossa__free), stride width * 4. Fails with the byte offset of the
 * problem: FORMAT for what is not a TGA image, UNSUPPORTED for kinds and
 * sizes not read (over OSSA_IMAGE_MAX_SIDE or OSSA_IMAGE_MAX_PIXELS,
 * refused before any allocation), TRUNCATED when the data ends early,
 * CORRUPT for damaged data, NOMEM. docs/formats/tga.md says what is read
 * and why. */
ossa_status ossa__tga_decode(const void *data, size_t size, const ossa_allocator *allocator,
                             ossa_rgba_image *out, ossa_error *error);

/* -- PNG (png.c) -- */

enum {
    /* No filters and zlib level 3 (libpng's "fast" setting), for pictures
     * written often and read once (rendered frames). Default: the
     * adaptive filter of each row and level 6, for files kept (textures). */
    OSSA_PNG_FAST = 1u << 0
};

/* Encodes the picture as an 8-bit PNG: RGB when every alpha is 255, else
 * RGBA; the decoded pixels are the input's exactly. The bytes go into a
 * new buffer from `allocator` (free it with ossa__free); zlib allocates
 * through the allocator too. Fails on a size of 0 or over
 * OSSA_IMAGE_MAX_SIDE, a stride below width * 4, and NOMEM. */
ossa_status ossa__png_encode(const ossa_rgba_image *image, uint32_t flags,
                             const ossa_allocator *allocator, void **out_data, size_t *out_size,
                             ossa_error *error);

/* -- Names (names.c) -- */

/* The longest image name with its NUL, as ossa/model.h defines it (for the
 * material descriptions that hold these names). */
#define OSSA_IMAGE_NAME_MAX 256

/* A name that ends in an image file extension (.png .jpg .jpeg .tga .bmp
 * .dds .gif .webp .ktx .ktx2, any case). */
bool ossa__is_image_name(const char *name);
/* A plain file name made from `name` (which may hold directories or
 * anything): the part after the last slash or backslash, control
 * characters, ':' and the like replaced by '_', "" when nothing is left
 * (or it is "." or ".."). `out` holds OSSA_IMAGE_NAME_MAX bytes. */
void ossa__image_file_name(const char *name, char *out);

/* The k-th name (k = 0, 1, ...) under which the image that `name` means
 * (a material or texture name, as IQM, MD5 and SMD files give them) is
 * looked for: `name` itself when it ends in an image extension, then its
 * stem (`name` without that extension, else the whole name) with ".tga",
 * ".png" and ".jpg", skipping the one already tried: "Body.tga" gives
 * Body.tga, Body.png, Body.jpg; "skin.png" gives skin.png, skin.tga,
 * skin.jpg; "Body" and "Body.001" give Body.tga, Body.png, Body.jpg and
 * Body.001.tga, ... False when there are no more (names too long for
 * OSSA_IMAGE_NAME_MAX are skipped). */
bool ossa__image_candidate(const char *name, unsigned k, char out[OSSA_IMAGE_NAME_MAX]);

#endif
