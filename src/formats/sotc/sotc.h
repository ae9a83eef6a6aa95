/* Shadow of the Colossus (PS2) assets: the XFF container that wraps them
 * and the .skb, .anb, .nmo and .nto formats inside (docs/formats/sotc.md). */
#ifndef OSSA_SOTC_H
#define OSSA_SOTC_H

#include "formats/format.h"
#include "image/image.h"

/* The words of the choice options of .nto textures (sotc.c); the first is
 * the default. */
#define SOTC_NTO_WIDTH_NIBBLES "auto low high"
#define SOTC_NTO_ALPHA "ps2 raw"
#define SOTC_NTO_CLUT "csm1 linear"

/* -- XFF container (docs/formats/sotc.md §2) -- */

#define XFF_HEADER_SIZE 0x70
#define XFF_SECTION_SIZE 0x20

/* Header fields (u32, offsets from the start of the XFF). */
enum {
    XFF_H_MAGIC = 0x00,
    XFF_H_SPECIAL = 0x0C,    /* "special section" count; readers ignore it */
    XFF_H_SIZE = 0x14,       /* total size */
    XFF_H_NUM_IMPORTS = 0x1C,
    XFF_H_NUM_SYMBOLS = 0x24,
    XFF_H_NUM_RELOCS = 0x38,
    XFF_H_NUM_SECTIONS = 0x40,
    XFF_H_ENTRY = 0x4C,      /* format header offset inside .rodata */
    XFF_H_OFS_IMPORTS = 0x50,
    XFF_H_OFS_SYMBOLS = 0x54,
    XFF_H_OFS_SYMSTR = 0x58,
    XFF_H_OFS_SECTIONS = 0x5C,
    XFF_H_OFS_SYMADDR = 0x60,
    XFF_H_OFS_RELOCS = 0x64,
    XFF_H_OFS_SECNAMES = 0x68,
    XFF_H_OFS_SECSTR = 0x6C
};

/* An opened XFF data file: where .rodata lies and where the format header
 * starts in it. Every pointer inside a format is a .rodata offset. */
typedef struct sotc_xff {
    const unsigned char *data; /* the file */
    uint32_t size;             /* total size from the header (<= the buffer) */
    uint32_t ro;               /* file offset of .rodata */
    uint32_t ro_size;
    uint32_t entry;            /* .rodata offset of the format header */
} sotc_xff;

/* Checks the header and the section table. `error` may be NULL (sniffing). */
ossa_status ossa__xff_open(sotc_xff *x, const unsigned char *data, size_t size, ossa_error *error);

/* The first u32 of the format header, for telling the asset types apart;
 * false when the data is not a well-formed XFF. */
bool ossa__xff_sniff(const unsigned char *data, size_t size, uint32_t *first_word);

/* The byte at .rodata offset `ofs` (checked by the caller). */
static inline const unsigned char *xff_at(const sotc_xff *x, uint64_t ofs)
{
    return x->data + x->ro + ofs;
}
/* File offset of .rodata offset `ofs`, for messages. */
static inline uint64_t xff_file(const sotc_xff *x, uint64_t ofs) { return (uint64_t)x->ro + ofs; }

/* True when `count` records of `elem` bytes at .rodata offset `ofs` lie
 * inside .rodata (64-bit arithmetic, no overflow). */
bool ossa__xff_fits(const sotc_xff *x, uint64_t ofs, uint64_t count, uint64_t elem);

/* Like ossa__xff_fits, but fails with OSSA_ERROR_CORRUPT naming `what` and
 * pointing at `field`, the .rodata offset of the word that holds `ofs`. */
ossa_status ossa__xff_need(const sotc_xff *x, uint64_t ofs, uint64_t count, uint64_t elem,
                           uint64_t field, const char *what, ossa_error *error);

/* The NUL-terminated string at .rodata offset `ofs`; fails when it leaves
 * .rodata unterminated. */
ossa_status ossa__xff_string(const sotc_xff *x, uint64_t ofs, uint64_t field, const char *what,
                             const char **out, ossa_error *error);

/* Building .rodata for the writers: a byte buffer plus the offsets of the
 * words that hold pointers (they get relocation entries). */
typedef struct sotc_rodata {
    ossa_buf data;
    ossa_buf pointers; /* u32 .rodata offsets of pointer words, host order */
} sotc_rodata;

void ossa__ro_init(sotc_rodata *r, const ossa_allocator *allocator);
void ossa__ro_release(sotc_rodata *r);
/* Reserves n zeroed bytes at an `align`-aligned offset and returns that
 * offset (0 after an allocation failure: check ossa__ro_failed). */
uint32_t ossa__ro_alloc(sotc_rodata *r, size_t n, size_t align);
bool ossa__ro_failed(const sotc_rodata *r);
void ossa__ro_u32(sotc_rodata *r, uint32_t at, uint32_t v);
void ossa__ro_u8(sotc_rodata *r, uint32_t at, uint8_t v);
void ossa__ro_f32(sotc_rodata *r, uint32_t at, float v);
/* Writes the pointer `target` (a .rodata offset) at `at` and records it. */
void ossa__ro_ptr(sotc_rodata *r, uint32_t at, uint32_t target);
/* Appends a NUL-terminated string; returns its offset. */
uint32_t ossa__ro_string(sotc_rodata *r, const char *s);

/* Wraps .rodata into an XFF file in `out` (docs/formats/sotc.md §9.2): header, section
 * names, section table, symbols (null, .rodata, the entry), .rodata and one
 * relocation table for its pointers. `special` is the word at 0x0C. */
ossa_status ossa__xff_write(const sotc_rodata *r, uint32_t entry, uint32_t special, ossa_buf *out,
                            ossa_error *error);

/* -- Quaternions: stored (x, y, z, w) is the conjugate of the usual active
 *    rotation (docs/formats/sotc.md §5); the model holds (-x, -y, -z, w). -- */

static inline void sotc_quat_to_model(const float stored[4], float out[4])
{
    out[0] = -stored[0];
    out[1] = -stored[1];
    out[2] = -stored[2];
    out[3] = stored[3];
}

/* -- .anb rotation encodings (docs/formats/sotc.md §3) -- */

/* Descriptor sizes by flag; 0 for an unknown flag. */
uint32_t ossa__anb_descriptor_size(unsigned flag);
/* Payload bytes per frame by flag (0 for flag 0). */
uint32_t ossa__anb_sample_size(unsigned flag);
/* Decodes frame `sample` (the payload entry, NULL for flag 0) of a bone
 * whose descriptor is `desc` into a quaternion in the stored convention,
 * exactly as docs/formats/sotc.md §3.2 says (not renormalized). */
void ossa__anb_decode(unsigned flag, const unsigned char *desc, const unsigned char *sample,
                      float q[4]);
/* Encodes `frames` unit quaternions in the stored convention, each on the
 * previous one's side, with `flag` (docs/formats/sotc.md §9.1): the descriptor into
 * `desc` (its payload pointer left 0), the samples into `payload` (frames x
 * ossa__anb_sample_size(flag) bytes). Returns the largest angle in radians
 * between a source rotation and its decoded value, or -1 when `flag`
 * cannot hold the track (13 for rotations about more than one axis) or is
 * unknown. The writer picks among these per bone. */
double ossa__anb_encode(unsigned flag, const double (*q)[4], uint32_t frames,
                        unsigned char desc[36], unsigned char *payload);

/* -- .nto textures (docs/formats/sotc.md §8) -- */

/* The mip count is a nibble: at most 15 levels. */
#define NTO_MAX_LEVELS 15

/* Header fields (docs/formats/sotc.md §8.1), from "NTO2". */
enum {
    NTO_VERSION = 0x04,
    NTO_PIXELS = 0x14,
    NTO_PALETTE = 0x18,
    NTO_KIND = 0x1C,
    NTO_MIPS = 0x1D,   /* mip count in the high nibble */
    NTO_SIZE = 0x1E,   /* log2 width / height nibbles */
    NTO_SWIZZLE = 0x1F /* one bit per mip level */
};
#define NTO_HEADER_SIZE 0x20

typedef struct sotc_nto_level {
    uint32_t width, height;
    uint64_t offset; /* .rodata offset of its pixels */
    uint64_t bytes;
    bool swizzled; /* its bit of byte 0x1F */
} sotc_nto_level;

/* Why the width was taken from the nibble it was (docs/formats/sotc.md §8.2). */
typedef enum sotc_nto_order_by {
    NTO_BY_SQUARE = 0, /* both nibbles alike: no question */
    NTO_BY_OPTION,     /* sotc.nto_width low or high */
    NTO_BY_TEX,        /* the width and height of the .nmo TEX record naming it */
    NTO_BY_PICTURE,    /* the order whose level 0 is the smoother picture */
    NTO_BY_DEFAULT     /* no evidence either way: the low nibble */
} sotc_nto_order_by;

/* An opened texture: its header and where each level lies, checked
 * against .rodata. */
typedef struct sotc_nto {
    sotc_xff x;
    uint32_t at;               /* .rodata offset of "NTO2" */
    uint32_t version;
    unsigned kind;             /* byte 0x1C */
    unsigned bpp;              /* 32, 8 or 4; 0 for an unknown kind (no pixels read) */
    const char *kind_name;     /* "rgba32", "8bit-palette", "4bit-palette", or NULL */
    uint64_t palette;          /* .rodata offset of the CLUT */
    unsigned palette_entries;  /* 256, 16, or 0 */
    unsigned mips;             /* the mip count as stored (high nibble of 0x1D) */
    unsigned swizzle;          /* byte 0x1F */
    bool width_high;           /* the width is the high nibble of 0x1E */
    sotc_nto_order_by order_by;
    unsigned num_levels;       /* levels read: the mip count, 0 read as 1, at most to 1x1 */
    sotc_nto_level levels[NTO_MAX_LEVELS];
} sotc_nto;

/* Decoding flags: the options sotc.nto_alpha=raw and sotc.nto_clut=linear. */
enum { NTO_RAW_ALPHA = 1u << 0, NTO_LINEAR_CLUT = 1u << 1 };

/* What an opening asks for. */
typedef struct sotc_nto_request {
    unsigned order;                 /* sotc.nto_width: 0 auto, 1 low, 2 high */
    uint32_t tex_width, tex_height; /* an .nmo TEX record's (+0x1C, +0x1E); 0 = none */
    unsigned flags;                 /* for decoding level 0 when the picture decides */
    const ossa_allocator *allocator;
} sotc_nto_request;

/* The request the load options make (sotc.nto_width, _alpha, _clut). */
sotc_nto_request ossa__nto_request(const ossa_load_options *options, const ossa_allocator *allocator);
/* Reads the header and lays out the levels with the width in the low
 * (width_high false) or high nibble; every level and the palette must lie
 * in .rodata (OSSA_ERROR_CORRUPT at the pointer's byte). Oddities are
 * warnings on `m` (may be NULL: none). order_by is left NTO_BY_SQUARE. */
ossa_status ossa__nto_parse(sotc_nto *t, const unsigned char *data, size_t size, bool width_high,
                            ossa_model *m, ossa_error *error);
/* ossa__nto_parse with the nibble order chosen as `request` says
 * (docs/formats/sotc.md §8.2): the option, else the TEX record's size, else the order
 * whose level 0 decodes to the smoother picture, else low. */
ossa_status ossa__nto_open(sotc_nto *t, const unsigned char *data, size_t size,
                           const sotc_nto_request *request, ossa_model *m, ossa_error *error);
/* Decodes level `level` into *out: width * height RGBA8 texels, rows top
 * first, from `allocator` (free with ossa__free(allocator, *out, w * h * 4)).
 * Fails (OSSA_ERROR_UNSUPPORTED, at the header byte at fault) for an
 * unknown kind, a level over OSSA_IMAGE_MAX_SIDE or OSSA_IMAGE_MAX_PIXELS
 * (before any allocation; the limits of every decoded picture), or a
 * swizzled level too small to have been uploaded whole (docs/formats/sotc.md §8.4);
 * OSSA_ERROR_NOMEM. */
ossa_status ossa__nto_decode(const sotc_nto *t, unsigned level, unsigned flags,
                             const ossa_allocator *allocator, uint8_t **out, ossa_error *error);
/* Where texel (x, y) of a swizzled w x h level of `bpp` (8 or 4) bits lies
 * in its data, in texels from the start (bytes for 8, nibbles for 4), per
 * docs/formats/sotc.md §8.4; false when such a level cannot be swizzled (too small). */
bool ossa__nto_swizzled_texel(unsigned bpp, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                              uint64_t *at);
/* The sum of absolute differences between every texel and its right and
 * lower neighbours, over the four channels: lower is smoother. */
uint64_t ossa__nto_roughness(const uint8_t *rgba, uint32_t w, uint32_t h);
/* Level `level` of `t` decoded with `flags` as a PNG file (the library's
 * encoder, image/png.c), from `allocator` (free with ossa__free): palette
 * textures, whose texels repeat a few exact colours, go unfiltered (they
 * deflate best so: OSSA_PNG_FAST), RGBA32 ones with adaptive filters.
 * Decoding failures are as ossa__nto_decode's. */
ossa_status ossa__nto_png(const sotc_nto *t, unsigned level, unsigned flags,
                          const ossa_allocator *allocator, void **png, size_t *size,
                          ossa_error *error);
/* After an .nmo is read (docs/formats/sotc.md §8.6): the textures its meshes use,
 * from NAME.nto beside options->file_name, as images and materials
 * (nmo_textures.c). `tex` and `count`: the TEX records. */
ossa_status ossa__nmo_textures(ossa_model *m, const sotc_xff *x, uint32_t tex, uint32_t count,
                               const ossa_load_options *options, ossa_error *error);

/* -- Entry points of the table (sotc.c) -- */

bool ossa__skb_sniff(const unsigned char *data, size_t size);
ossa_status ossa__skb_read(ossa_model *m, const unsigned char *data, size_t size, const ossa_load_options *options, ossa_error *error);
ossa_status ossa__skb_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out, ossa_error *error);
bool ossa__anb_sniff(const unsigned char *data, size_t size);
ossa_status ossa__anb_read(ossa_model *m, const unsigned char *data, size_t size, const ossa_load_options *options, ossa_error *error);
ossa_status ossa__anb_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out, ossa_error *error);
bool ossa__nmo_sniff(const unsigned char *data, size_t size);
ossa_status ossa__nmo_read(ossa_model *m, const unsigned char *data, size_t size, const ossa_load_options *options, ossa_error *error);
ossa_status ossa__nmo_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out, ossa_error *error);
bool ossa__nto_sniff(const unsigned char *data, size_t size);
ossa_status ossa__nto_read(ossa_model *m, const unsigned char *data, size_t size, const ossa_load_options *options, ossa_error *error);

#endif
