/* Shadow of the Colossus textures (.nto, docs/formats/sotc.md §8): the header, the
 * mip levels and where they lie, the order of the size nibbles, and the
 * table's reader. A texture holds no geometry, so the model is empty (no
 * joints, no vertices) and carries the texture as extras:
 *
 *   sotc.nto.texture  text: "width=256 height=128 kind=8bit-palette mips=3
 *                     swizzle=0x01 version=3 pixels=0x40 palette=0x8040",
 *                     then a line per level and one on the nibble order
 *   sotc.nto.header   the 32 header bytes as in the file
 *   ossa.image:NAME.png  one level (sotc.nto_level, default 0) as a PNG
 *
 * The pixels themselves are decoded in nto_pixels.c. */
#include "formats/sotc/sotc.h"

#include <math.h>
#include <stdio.h>

#define NTO_EXTRA_TEXTURE "sotc.nto.texture"
#define NTO_EXTRA_HEADER "sotc.nto.header"

/* Pixel kinds (byte 0x1C): bits per texel and CLUT entries (4 bytes each). */
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

/* -- Header and levels -- */

/* The levels: the mip count (0 read as 1, and no more than halving reaches
 * 1 x 1), each half the one before (never below 1), their data one after
 * another from the pixel pointer (docs/formats/sotc.md §8.5). */
static ossa_status nto_levels(sotc_nto *t, const unsigned char *h, unsigned log_w, unsigned log_h,
                              ossa_model *m, ossa_error *error)
{
    const sotc_xff *x = &t->x;
    unsigned possible = 1 + (log_w > log_h ? log_w : log_h);
    t->num_levels = t->mips ? t->mips : 1;
    if (!t->mips && m)
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(x, t->at + NTO_MIPS), 0, 0,
                   "mip count 0 (expected at least 1): level 0 read");
    if (t->num_levels > possible) {
        if (m)
            ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(x, t->at + NTO_MIPS), 0, 0,
                       "mip count %u, but a %ux%u texture halves to 1x1 in %u levels: %u read",
                       t->mips, 1u << log_w, 1u << log_h, possible, possible);
        t->num_levels = possible;
    }
    if (!t->bpp) t->num_levels = 1; /* unknown kind: only where level 0 starts is known */
    if (m && (t->swizzle >> t->num_levels))
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(x, t->at + NTO_SWIZZLE), 0, 0,
                   "swizzle bits 0x%02x name levels beyond the %u read: ignored", t->swizzle,
                   t->num_levels);
    if (m && t->bpp == 32 && (t->swizzle & ((1u << t->num_levels) - 1)))
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(x, t->at + NTO_SWIZZLE), 0, 0,
                   "swizzle bits 0x%02x on RGBA32 texels, which need no swizzling: read in "
                   "rows",
                   t->swizzle);
    uint64_t offset = ossa__rd32(h + NTO_PIXELS);
    for (unsigned i = 0; i < t->num_levels; i++) {
        sotc_nto_level *l = &t->levels[i];
        l->width = log_w >= i ? 1u << (log_w - i) : 1;
        l->height = log_h >= i ? 1u << (log_h - i) : 1;
        l->offset = offset;
        l->swizzled = (t->swizzle >> i) & 1;
        if (!t->bpp) {
            if (offset >= x->ro_size)
                return ossa__fail(error, OSSA_ERROR_CORRUPT, xff_file(x, t->at + NTO_PIXELS),
                                  "pixel data: .rodata offset %llu is outside .rodata (%u bytes)",
                                  (unsigned long long)offset, x->ro_size);
            break;
        }
        l->bytes = ((uint64_t)l->width * l->height * t->bpp + 7) / 8;
        char what[96];
        snprintf(what, sizeof what, "pixel data of mip level %u (%ux%u, %s)", i, l->width,
                 l->height, t->kind_name);
        if (ossa__xff_need(x, offset, 1, l->bytes, t->at + NTO_PIXELS, what, error))
            return OSSA_FAILED;
        offset += l->bytes;
    }
    return OSSA_OK;
}

ossa_status ossa__nto_parse(sotc_nto *t, const unsigned char *data, size_t size, bool width_high,
                            ossa_model *m, ossa_error *error)
{
    memset(t, 0, sizeof *t);
    sotc_xff *x = &t->x;
    if (ossa__xff_open(x, data, size, error)) return OSSA_FAILED;
    if (!nto_locate(x, &t->at))
        return ossa__fail(error, OSSA_ERROR_FORMAT, xff_file(x, x->entry),
                          "expected a texture (\"NTO2\" at the entry, .rodata offset %u, or at "
                          "the start of .rodata)",
                          x->entry);
    if (ossa__xff_need(x, t->at, 1, NTO_HEADER_SIZE, t->at, "texture header", error))
        return OSSA_FAILED;
    const unsigned char *h = xff_at(x, t->at);
    t->version = ossa__rd32(h + NTO_VERSION);
    t->kind = h[NTO_KIND];
    t->mips = h[NTO_MIPS] >> 4;
    t->swizzle = h[NTO_SWIZZLE];
    t->width_high = width_high;
    t->palette = ossa__rd32(h + NTO_PALETTE);
    unsigned lo = h[NTO_SIZE] & 0x0F, hi = h[NTO_SIZE] >> 4;
    if (m && t->version != 3)
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(x, t->at + NTO_VERSION), 0, 0,
                   "texture version %u (known files have 3)", t->version);
    const nto_kind *kind = find_kind(t->kind);
    if (kind) {
        t->bpp = kind->bpp;
        t->kind_name = kind->name;
        t->palette_entries = kind->palette;
    } else if (m) {
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(x, t->at + NTO_KIND), 0, 0,
                   "unknown texture kind 0x%02x (known: 0x00 RGBA32, 0x13 8-bit palette, 0x14 "
                   "4-bit palette): its pixels are not read",
                   t->kind);
    }
    if (nto_levels(t, h, width_high ? hi : lo, width_high ? lo : hi, m, error)) return OSSA_FAILED;
    if (t->palette_entries) {
        char what[32];
        snprintf(what, sizeof what, "palette (%u entries)", t->palette_entries);
        if (ossa__xff_need(x, t->palette, t->palette_entries, 4, t->at + NTO_PALETTE, what, error))
            return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* -- The order of the size nibbles (docs/formats/sotc.md §8.2) -- */

/* The roughness of level 0 read with the width in the high nibble or not;
 * false when it cannot be decoded that way (*st set only for NOMEM). */
static bool order_roughness(const unsigned char *data, size_t size, bool width_high,
                            const sotc_nto_request *rq, uint64_t *rough, ossa_status *st,
                            ossa_error *error)
{
    sotc_nto t;
    ossa_error sub;
    memset(&sub, 0, sizeof sub);
    uint8_t *rgba;
    if (ossa__nto_parse(&t, data, size, width_high, NULL, &sub) ||
        ossa__nto_decode(&t, 0, rq->flags, rq->allocator, &rgba, &sub)) {
        if (sub.code == OSSA_ERROR_NOMEM) *st = ossa__fail_nomem(error);
        return false;
    }
    *rough = ossa__nto_roughness(rgba, t.levels[0].width, t.levels[0].height);
    ossa__free(rq->allocator, rgba, (size_t)t.levels[0].width * t.levels[0].height * 4);
    return true;
}

/* Which nibble is the width: the option, the TEX record, the smoother
 * picture, else the low one. */
static ossa_status choose_order(const unsigned char *data, size_t size, const sotc_nto *low,
                                const sotc_nto_request *rq, bool *high, sotc_nto_order_by *by,
                                ossa_error *error)
{
    const sotc_nto_level *l = &low->levels[0];
    *high = false;
    if (l->width == l->height) {
        *by = NTO_BY_SQUARE;
        return OSSA_OK;
    }
    if (rq->order) {
        *high = rq->order == 2;
        *by = NTO_BY_OPTION;
        return OSSA_OK;
    }
    if (rq->tex_width && rq->tex_height) {
        if (rq->tex_width == l->width && rq->tex_height == l->height) {
            *by = NTO_BY_TEX;
            return OSSA_OK;
        }
        if (rq->tex_width == l->height && rq->tex_height == l->width) {
            *high = true;
            *by = NTO_BY_TEX;
            return OSSA_OK;
        }
    }
    ossa_status st = OSSA_OK;
    uint64_t r_low = 0, r_high = 0;
    bool ok_low = order_roughness(data, size, false, rq, &r_low, &st, error);
    if (st) return st;
    bool ok_high = order_roughness(data, size, true, rq, &r_high, &st, error);
    if (st) return st;
    *by = NTO_BY_DEFAULT;
    if (ok_high && (!ok_low || r_high < r_low)) *high = true;
    if (ok_high != ok_low || r_high != r_low) *by = NTO_BY_PICTURE;
    return OSSA_OK;
}

ossa_status ossa__nto_open(sotc_nto *t, const unsigned char *data, size_t size,
                           const sotc_nto_request *request, ossa_model *m, ossa_error *error)
{
    if (ossa__nto_parse(t, data, size, false, NULL, error)) return OSSA_FAILED;
    bool high;
    sotc_nto_order_by by;
    if (choose_order(data, size, t, request, &high, &by, error)) return OSSA_FAILED;
    if (ossa__nto_parse(t, data, size, high, m, error)) return OSSA_FAILED;
    t->order_by = by;
    return OSSA_OK;
}

/* -- The table's reader -- */

/* The texture text: the header's facts, a line per level, the order. */
static void texture_text(const sotc_nto *t, ossa_buf *b)
{
    static const char *const why[] = {
        "both nibbles alike", "the option sotc.nto_width", "the .nmo TEX record",
        "the smoother picture of level 0", "no evidence either way: the default"};
    const sotc_nto_level *l0 = &t->levels[0];
    char kind[16], line[200];
    if (t->kind_name) snprintf(kind, sizeof kind, "%s", t->kind_name);
    else snprintf(kind, sizeof kind, "0x%02x", t->kind);
    int n = snprintf(line, sizeof line,
                     "width=%u height=%u kind=%s mips=%u swizzle=0x%02x version=%u pixels=0x%llx "
                     "palette=0x%llx",
                     l0->width, l0->height, kind, t->mips, t->swizzle, t->version,
                     (unsigned long long)l0->offset, (unsigned long long)t->palette);
    ossa__buf_append(b, line, (size_t)n);
    for (unsigned i = 0; t->bpp && i < t->num_levels; i++) {
        const sotc_nto_level *l = &t->levels[i];
        n = snprintf(line, sizeof line, "\nlevel %u: %ux%u%s at 0x%llx, %llu bytes", i, l->width,
                     l->height, l->swizzled && t->bpp != 32 ? " swizzled" : "",
                     (unsigned long long)l->offset, (unsigned long long)l->bytes);
        ossa__buf_append(b, line, (size_t)n);
    }
    n = snprintf(line, sizeof line, "\nwidth from the %s nibble of byte 0x1E (%s)",
                 t->width_high ? "high" : "low", why[t->order_by]);
    ossa__buf_append(b, line, (size_t)n);
}

/* Level `level` as the PNG image STEM.png, STEM being the file's name. A
 * level that cannot be decoded (too large, or swizzled and too small) is a
 * warning: the header is still worth showing. */
static ossa_status add_image(ossa_model *m, const sotc_nto *t, unsigned level, unsigned flags,
                             const ossa_load_options *options, ossa_error *error)
{
    const ossa_allocator *a = &m->internal->arena.allocator;
    void *png;
    size_t size;
    ossa_error sub;
    memset(&sub, 0, sizeof sub);
    if (ossa__nto_png(t, level, flags, a, &png, &size, &sub)) {
        if (sub.code == OSSA_ERROR_NOMEM) return ossa__fail_nomem(error);
        ossa__warn(m, OSSA_WARNING_IGNORED, sub.offset, 0, 0, "%s: no image", sub.message);
        return OSSA_OK;
    }
    char stem[200], key[sizeof OSSA_EXTRA_IMAGE + sizeof stem + 4];
    ossa__path_base_name(options->file_name, "texture", stem, sizeof stem);
    snprintf(key, sizeof key, "%s%s.png", OSSA_EXTRA_IMAGE, stem);
    ossa_status st = ossa_model_add_extra(m, key, png, size, error);
    ossa__free(a, png, size);
    return st;
}

sotc_nto_request ossa__nto_request(const ossa_load_options *options, const ossa_allocator *allocator)
{
    const ossa_option *o = options->format_options;
    uint32_t n = options->num_format_options;
    sotc_nto_request rq;
    memset(&rq, 0, sizeof rq);
    rq.order = ossa__option_choice(o, n, "sotc.nto_width", SOTC_NTO_WIDTH_NIBBLES);
    if (ossa__option_choice(o, n, "sotc.nto_alpha", SOTC_NTO_ALPHA) == 1) rq.flags |= NTO_RAW_ALPHA;
    if (ossa__option_choice(o, n, "sotc.nto_clut", SOTC_NTO_CLUT) == 1) rq.flags |= NTO_LINEAR_CLUT;
    rq.allocator = allocator;
    return rq;
}

ossa_status ossa__nto_read(ossa_model *m, const unsigned char *data, size_t size,
                           const ossa_load_options *options, ossa_error *error)
{
    sotc_nto_request rq = ossa__nto_request(options, &m->internal->arena.allocator);
    double level = ossa__option_number(OSSA__OPTIONS(options), "sotc.nto_level", 0);
    sotc_nto t;
    if (ossa__nto_open(&t, data, size, &rq, m, error)) return OSSA_FAILED;
    if (!(level >= 0 && level < t.num_levels) || level != floor(level))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "sotc.nto_level %g: the texture has %u level%s (0 to %u)", level,
                          t.num_levels, t.num_levels == 1 ? "" : "s", t.num_levels - 1);
    ossa_buf text;
    ossa__buf_init(&text, rq.allocator);
    texture_text(&t, &text);
    ossa_status st = text.failed ? ossa__fail_nomem(error)
                                 : ossa_model_add_extra(m, NTO_EXTRA_TEXTURE, text.data, text.size,
                                                        error);
    ossa__buf_release(&text);
    if (!st) st = ossa_model_add_extra(m, NTO_EXTRA_HEADER, xff_at(&t.x, t.at), NTO_HEADER_SIZE, error);
    if (!st && t.bpp && !(options->flags & OSSA_LOAD_NO_IMAGES))
        st = add_image(m, &t, (unsigned)level, rq.flags, options, error);
    return st;
}

bool ossa__nto_sniff(const unsigned char *data, size_t size)
{
    sotc_xff x;
    uint32_t at;
    return ossa__xff_open(&x, data, size, NULL) == OSSA_OK && nto_locate(&x, &at);
}
