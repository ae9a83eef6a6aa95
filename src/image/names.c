/* Image file names: which names are images, the names under which the
 * image a material names is looked for, and plain file names for images
 * written beside a model. Shared by the model (materials, images beside
 * the files) and the renderer (textures beside the model). */
#include "image/image.h"

bool ossa__is_image_name(const char *name)
{
    static const char *const exts[] = {".png", ".jpg", ".jpeg", ".tga", ".bmp", ".dds",
                                       ".gif", ".webp", ".ktx", ".ktx2"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n <= e) continue;
        bool same = true;
        for (size_t k = 0; k < e && same; k++) {
            char c = name[n - e + k];
            same = (c >= 'A' && c <= 'Z' ? (char)(c + 32) : c) == exts[i][k];
        }
        if (same) return true;
    }
    return false;
}

bool ossa__image_candidate(const char *name, unsigned k, char out[OSSA_IMAGE_NAME_MAX])
{
    static const char *const kinds[3] = {".tga", ".png", ".jpg"};
    size_t n = strlen(name), stem = n;
    bool named = ossa__is_image_name(name);
    if (named) {
        const char *dot = strrchr(name, '.');
        stem = (size_t)(dot - name);
    }
    /* Slot 0 is the name itself; slots 1-3 the stem with each kind, the
     * kind the name has (if any) already tried in slot 0. */
    for (unsigned slot = named ? 0 : 1; slot < 4; slot++) {
        if (slot == 0) {
            if (n >= OSSA_IMAGE_NAME_MAX) continue;
            if (k-- == 0) {
                memcpy(out, name, n + 1);
                return true;
            }
            continue;
        }
        const char *ext = kinds[slot - 1];
        if (named && n - stem == 4) {
            bool same = true;
            for (size_t i = 0; i < 4 && same; i++) {
                char c = name[stem + i];
                same = (c >= 'A' && c <= 'Z' ? (char)(c + 32) : c) == ext[i];
            }
            if (same) continue;
        }
        if (stem + 4 >= OSSA_IMAGE_NAME_MAX) continue;
        if (k-- == 0) {
            memcpy(out, name, stem);
            memcpy(out + stem, ext, 5);
            return true;
        }
    }
    return false;
}

void ossa__image_file_name(const char *name, char *out)
{
    const char *base = name;
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)base; *p && n + 1 < OSSA_IMAGE_NAME_MAX; p++)
        out[n++] = *p < 0x20 || *p == 0x7F || strchr(":*?\"<>|", *p) ? '_' : (char)*p;
    out[n] = 0;
    if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0) out[0] = 0;
}
