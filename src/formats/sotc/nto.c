/* Shadow of the Colossus textures (.nto, docs/formats/sotc.md §8): the header only. A
 * texture holds no geometry, so the model is empty (no joints, no
 * vertices) and carries the texture facts as extras:
 *
 *   sotc.nto.texture  text, "width=256 height=128 kind=8bit-palette mips=3
 *                     swizzle=0x01 version=3 pixels=0x40 palette=0x8040"
 *                     (pointers are .rodata offsets)
 *   sotc.nto.header   the 32 header bytes as in the file
 *
 * Pixels are not decoded: the PS2 swizzle is not settled. Which size
 * nibble is the width is disputed; the low one is taken as the width
 * unless the option sotc.nto_width is "high" (docs/formats/sotc.md §8). */
#include "formats/sotc/sotc.h"

#include <stdio.h>

#define NTO_HEADER_SIZE 0x20
#define NTO_EXTRA_TEXTURE "sotc.nto.texture"
#define NTO_EXTRA_HEADER "sotc.nto.header"

enum {
    NTO_VERSION = 0x04,
    NTO_PIXELS = 0x14,
    NTO_PALETTE = 0x18,
    NTO_KIND = 0x1C,
    NTO_MIPS = 0x1D,    /* mip count in the high nibble */
    NTO_SIZE = 0x1E,    /* log2 width / height nibbles */
    NTO_SWIZZLE = 0x1F  /* one bit per mip level */
};

/* Pixel kinds: bits per pixel and palette entries (4 bytes each). */
typedef struct nto_kind {
    unsigned code, bpp, palette;
    const char *name;
} nto_kind;

static const nto_kind kinds[] = {
    {0x00, 32, 0, "rgba32"},
    {0x13, 8, 256, "8bit-palette"},
    {0x14, 4, 16, "4bit-palette"},
};

static const nto_kind *find_kind(unsigned code)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].code == code) return &kinds[i];
    return NULL;
}

/* The .rodata offset of the "NTO2" header: at the entry (as most tools
 * read it), else at the start of .rodata (as dormin does). */
static bool nto_locate(const sotc_xff *x, uint32_t *at)
{
    if (ossa__xff_fits(x, x->entry, 1, 4) && memcmp(xff_at(x, x->entry), "NTO2", 4) == 0) {
        *at = x->entry;
        return true;
    }
    if (ossa__xff_fits(x, 0, 1, 4) && memcmp(xff_at(x, 0), "NTO2", 4) == 0) {
        *at = 0;
        return true;
    }
    return false;
}

ossa_status ossa__nto_read(ossa_model *m, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    sotc_xff x;
    if (ossa__xff_open(&x, data, size, error)) return OSSA_FAILED;
    uint32_t e;
    if (!nto_locate(&x, &e))
        return ossa__fail(error, OSSA_ERROR_FORMAT, xff_file(&x, x.entry),
                          "expected a texture (\"NTO2\" at the entry, .rodata offset %u, or at "
                          "the start of .rodata)",
                          x.entry);
    if (ossa__xff_need(&x, e, 1, NTO_HEADER_SIZE, e, "texture header", error)) return OSSA_FAILED;
    const unsigned char *h = xff_at(&x, e);
    uint32_t version = ossa__rd32(h + NTO_VERSION);
    uint32_t pixels = ossa__rd32(h + NTO_PIXELS), palette = ossa__rd32(h + NTO_PALETTE);
    unsigned code = h[NTO_KIND], mips = h[NTO_MIPS] >> 4, swizzle = h[NTO_SWIZZLE];
    unsigned log_w = h[NTO_SIZE] & 0x0F, log_h = h[NTO_SIZE] >> 4;
    if (ossa__option_choice(OSSA__OPTIONS(options), "sotc.nto_width", SOTC_NTO_WIDTH_NIBBLES) == 1) {
        unsigned t = log_w;
        log_w = log_h;
        log_h = t;
    }
    uint64_t width = (uint64_t)1 << log_w, height = (uint64_t)1 << log_h;

    if (version != 3)
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(&x, e + NTO_VERSION), 0, 0,
                   "texture version %u (known files have 3)", version);
    if (mips == 0)
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(&x, e + NTO_MIPS), 0, 0, "mip count 0 (expected at least 1)");

    const nto_kind *kind = find_kind(code);
    char kind_name[16];
    if (kind) {
        snprintf(kind_name, sizeof kind_name, "%s", kind->name);
        char what[96];
        /* Mip 0 only: where further levels lie is not known. */
        uint64_t bytes = (width * height * kind->bpp + 7) / 8;
        snprintf(what, sizeof what, "pixel data of mip 0 (%llux%llu, %s)",
                 (unsigned long long)width, (unsigned long long)height, kind->name);
        if (ossa__xff_need(&x, pixels, 1, bytes, e + NTO_PIXELS, what, error))
            return OSSA_FAILED;
        if (kind->palette) {
            snprintf(what, sizeof what, "palette (%u entries)", kind->palette);
            if (ossa__xff_need(&x, palette, kind->palette, 4, e + NTO_PALETTE, what, error))
                return OSSA_FAILED;
        }
    } else {
        snprintf(kind_name, sizeof kind_name, "0x%02x", code);
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(&x, e + NTO_KIND), 0, 0,
                   "unknown texture kind 0x%02x (known: 0x00 RGBA32, 0x13 8-bit palette, 0x14 "
                   "4-bit palette): pixel and palette sizes not checked",
                   code);
        if (pixels >= x.ro_size)
            return ossa__fail(error, OSSA_ERROR_CORRUPT, xff_file(&x, e + NTO_PIXELS),
                              "pixel data: .rodata offset %u is outside .rodata (%u bytes)",
                              pixels, x.ro_size);
    }

    char text[256];
    int n = snprintf(text, sizeof text,
                     "width=%llu height=%llu kind=%s mips=%u swizzle=0x%02x version=%u "
                     "pixels=0x%x palette=0x%x",
                     (unsigned long long)width, (unsigned long long)height, kind_name, mips,
                     swizzle, version, pixels, palette);
    if (n < 0 || (size_t)n >= sizeof text) n = (int)strlen(text);
    if (ossa_model_add_extra(m, NTO_EXTRA_TEXTURE, text, (size_t)n, error) ||
        ossa_model_add_extra(m, NTO_EXTRA_HEADER, h, NTO_HEADER_SIZE, error))
        return OSSA_FAILED;
    return OSSA_OK;
}

bool ossa__nto_sniff(const unsigned char *data, size_t size)
{
    sotc_xff x;
    uint32_t at;
    return ossa__xff_open(&x, data, size, NULL) == OSSA_OK && nto_locate(&x, &at);
}
