/* illEngine (docs/formats/ill.md): the format table's four entries, detection
 * of the magic and of text or binary encoding, and the read entry point
 * that hands the data to the text or the binary parser. */
#include "formats/ill/ill.h"

static const struct {
    char magic[ILL_MAGIC_SIZE + 1];
    ill_kind kind;
    int version;
} magics[] = {
    {"ILLMESH0", ILL_MESH, 0}, {"ILLMESH1", ILL_MESH, 1}, {"ILLSKEL0", ILL_SKEL, 0},
    {"ILLANIM0", ILL_ANIM, 0}, {"ILLANIM1", ILL_ANIM, 1}, {"ILANSET0", ILL_ANSET, 0},
};
#define NUM_MAGICS (sizeof magics / sizeof magics[0])

static int find_magic(const unsigned char *data, size_t size)
{
    if (size < ILL_MAGIC_SIZE) return -1;
    for (size_t i = 0; i < NUM_MAGICS; i++)
        if (memcmp(data, magics[i].magic, ILL_MAGIC_SIZE) == 0) return (int)i;
    return -1;
}

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* docs/formats/ill.md §1: text when byte 8 is whitespace, the next other byte is a digit
 * or '-', and the first 64 bytes hold no control byte other than
 * whitespace. A file that ends in whitespace right after the magic counts
 * as (truncated) text. */
static bool looks_text(const unsigned char *data, size_t size)
{
    if (size <= ILL_MAGIC_SIZE) return true;
    if (!is_space(data[ILL_MAGIC_SIZE])) return false;
    size_t n = size < 64 ? size : 64;
    for (size_t i = 0; i < n; i++)
        if (data[i] < 0x09 || (data[i] >= 0x0e && data[i] < 0x20)) return false;
    size_t i = ILL_MAGIC_SIZE;
    while (i < size && is_space(data[i])) i++;
    return i == size || data[i] == '-' || (data[i] >= '0' && data[i] <= '9');
}

static const ossa_format kind_format[] = {OSSA_FORMAT_ILLMESH, OSSA_FORMAT_ILLSKEL,
                                          OSSA_FORMAT_ILLANIM, OSSA_FORMAT_ILLANSET};

static ossa_status ill_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    int m = find_magic(data, size);
    if (m < 0) {
        for (size_t i = 0; size < ILL_MAGIC_SIZE && i < NUM_MAGICS; i++)
            if (memcmp(data, magics[i].magic, size) == 0)
                return ossa__fail(error, OSSA_ERROR_TRUNCATED, size,
                                  "the data ends inside the 8-byte magic");
        return ossa__fail(error, OSSA_ERROR_FORMAT, 0,
                          "expected an illEngine magic (ILLMESH0, ILLMESH1, ILLSKEL0, ILLANIM0, "
                          "ILLANIM1 or ILANSET0)");
    }
    ill_kind kind = magics[m].kind;
    int version = magics[m].version;
    model->source_format = kind_format[kind];
    uint32_t encoding = ossa__option_choice(OSSA__OPTIONS(options), "ill.encoding", ILL_ENCODINGS);
    /* Variants that exist in one encoding only (docs/formats/ill.md §1). */
    bool text_only = kind == ILL_ANIM && version == 1;
    bool binary_only = (kind == ILL_MESH && version == 1) || kind == ILL_ANSET;
    bool text;
    if (encoding != 0)
        text = encoding == 1;
    else
        text = text_only || (!binary_only && looks_text(data, size));
    if (text && binary_only)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, 0, "%s files are binary only",
                          magics[m].magic);
    if (!text && text_only)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, 0, "%s files are text only",
                          magics[m].magic);
    if (text) return ossa__ill_read_text(model, kind, version, data, size, options, error);
    return ossa__ill_read_binary(model, kind, version, data, size, options, error);
}

static bool sniff_kind(const unsigned char *data, size_t size, ill_kind kind)
{
    int m = find_magic(data, size);
    return m >= 0 && magics[m].kind == kind;
}

static bool sniff_mesh(const unsigned char *d, size_t n) { return sniff_kind(d, n, ILL_MESH); }
static bool sniff_skel(const unsigned char *d, size_t n) { return sniff_kind(d, n, ILL_SKEL); }
static bool sniff_anim(const unsigned char *d, size_t n) { return sniff_kind(d, n, ILL_ANIM); }
static bool sniff_anset(const unsigned char *d, size_t n) { return sniff_kind(d, n, ILL_ANSET); }

/* The options of every illEngine file (docs/formats/ill.md §12). */
static const ossa_option_info ill_load_options[] = {
    {"ill.encoding", OSSA_OPTION_CHOICE, ILL_ENCODINGS, "auto",
     "read the files as text or binary (auto: from byte 8 and the first 64 bytes)"},
    {"ill.md5_fix", OSSA_OPTION_CHOICE, ILL_MD5_FIX_CHOICES, "auto",
     "turn the meshes of MD5-derived skeletons by Rx(-90) as the engine does (auto: when the "
     "skeleton has <MD5_Root>)"},
    {"ill.vertex_order", OSSA_OPTION_CHOICE, ILL_VERTEX_ORDERS, "auto",
     "text meshes: blend data before the texture coordinates (files from 4 December 2012) or "
     "after them (2-3 December 2012) (auto: from the blank lines, confirmed by the blend data)"},
};
/* The front is MD5's: its characters are Doom 3's, +X (ill.md §10). */
#define ILL_OPTIONS                                                                            \
    .option_family = "ill", .load_options = ill_load_options,                                  \
    .num_load_options = sizeof ill_load_options / sizeof *ill_load_options,                    \
    .front = OSSA_FRONT_POS_X

/* Writing: text (the files of December 2012 to February 2013) or binary
 * (the loaders from April 2013 on), docs/formats/ill.md §11. */
static const ossa_option_info ill_write_options[] = {
    {"ill.encoding", OSSA_OPTION_CHOICE, ILL_WRITE_ENCODINGS, "text",
     "write text files, or binary ones as the engine's later loaders read them (ILLMESH1, "
     "ILLSKEL0, ILLANIM0, and the joint names in an .illanset beside them)"},
};
#define ILL_WRITE_OPTIONS                                                                      \
    ILL_OPTIONS, .write_options = ill_write_options,                                           \
    .num_write_options = sizeof ill_write_options / sizeof *ill_write_options

const ossa_format_ops ossa__illmesh_format = {
    .id = OSSA_FORMAT_ILLMESH, .name = "illmesh", .extensions = ".illmesh", .sniff = sniff_mesh,
    .read = ill_read, .write = ossa__ill_write_mesh, .write_files = ossa__ill_write_files,
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS |
             OSSA_HOLDS_PICKS_ANIMATION,
    ILL_WRITE_OPTIONS,
};
const ossa_format_ops ossa__illskel_format = {
    .id = OSSA_FORMAT_ILLSKEL, .name = "illskel", .extensions = ".illskel", .sniff = sniff_skel,
    .read = ill_read, .write = ossa__ill_write_skel, .write_files = ossa__ill_write_skel_files,
    .holds = OSSA_HOLDS_SKELETON, ILL_WRITE_OPTIONS,
};
const ossa_format_ops ossa__illanim_format = {
    .id = OSSA_FORMAT_ILLANIM, .name = "illanim", .extensions = ".illanim", .sniff = sniff_anim,
    .read = ill_read, .write = ossa__ill_write_anim, .write_files = ossa__ill_write_anim_files,
    .holds = OSSA_HOLDS_ONE_ANIMATION | OSSA_HOLDS_PICKS_ANIMATION, ILL_WRITE_OPTIONS,
};
const ossa_format_ops ossa__illanset_format = {
    .id = OSSA_FORMAT_ILLANSET, .name = "illanset", .extensions = ".illanset",
    .sniff = sniff_anset, .read = ill_read, ILL_OPTIONS,
};
