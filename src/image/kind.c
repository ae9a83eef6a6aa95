/* What kind of image some bytes hold: PNG and JPEG by their signatures,
 * TGA (which has none) by its file name or its TGA 2.0 footer. */
#include "image/image.h"

bool ossa__image_name_has(const char *name, const char *ext)
{
    if (!name) return false;
    size_t n = strlen(name), e = strlen(ext);
    if (n < e) return false;
    for (size_t k = 0; k < e; k++) {
        char c = name[n - e + k];
        if ((c >= 'A' && c <= 'Z' ? (char)(c + 32) : c) != ext[k]) return false;
    }
    return true;
}

ossa_image_kind ossa__image_kind(const void *data, size_t size, const char *name)
{
    const unsigned char *p = data;
    if (size >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) return OSSA_IMAGE_PNG;
    if (size >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return OSSA_IMAGE_JPEG;
    if (ossa__image_name_has(name, ".tga")) return OSSA_IMAGE_TGA;
    /* TGA 2.0 files end with a 26-byte footer: two offsets, then the
     * signature "TRUEVISION-XFILE", '.' and a NUL. */
    if (size >= 18 + 26 && memcmp(p + size - 18, "TRUEVISION-XFILE.", 18) == 0)
        return OSSA_IMAGE_TGA;
    return OSSA_IMAGE_UNKNOWN;
}
