/* Shadow of the Colossus XFF files (docs/formats/sotc.md): the table's four
 * entries. Each kind of file has its own module: skb.c (skeletons), anb.c
 * (animations), nmo.c (meshes) with nmo_textures.c (the .nto files beside
 * them), nto.c (textures) with nto_pixels.c, over xff.c
 * (the container). */
#include "formats/sotc/sotc.h"

/* The options of every SOTC file (docs/formats/sotc.md). */
static const ossa_option_info sotc_load_options[] = {
    {"sotc.nto_width", OSSA_OPTION_CHOICE, SOTC_NTO_WIDTH_NIBBLES, "auto",
     "which size nibble of a .nto header (byte 0x1E) is log2 of the width, the other being the "
     "height (the order is disputed): auto takes the .nmo TEX record's size, else the order "
     "whose level 0 is the smoother picture, else low"},
    {"sotc.nto_level", OSSA_OPTION_NUMBER, "", "0",
     "the mip level of a .nto texture kept as its image (0 is the largest)"},
    {"sotc.nto_alpha", OSSA_OPTION_CHOICE, SOTC_NTO_ALPHA, "ps2",
     ".nto alpha: ps2 scales the PS2's 0..128 (0x80 opaque) to 0..255, raw keeps the bytes"},
    {"sotc.nto_clut", OSSA_OPTION_CHOICE, SOTC_NTO_CLUT, "csm1",
     "order of a .nto 256-colour palette: csm1 as the GS stores it (entries with bits 3 and 4 "
     "of the index swapped), linear by index as dormin reads it"},
};
#define SOTC_OPTIONS                                                                           \
    .option_family = "sotc", .load_options = sotc_load_options,                                \
    .num_load_options = sizeof sotc_load_options / sizeof *sotc_load_options

const ossa_format_ops ossa__sotc_skb_format = {
    .id = OSSA_FORMAT_SOTC_SKB,
    .name = "skb",
    .extensions = ".skb",
    .sniff = ossa__skb_sniff,
    .read = ossa__skb_read,
    .write = ossa__skb_write,
    .holds = OSSA_HOLDS_SKELETON,
    SOTC_OPTIONS,
};

const ossa_format_ops ossa__sotc_anb_format = {
    .id = OSSA_FORMAT_SOTC_ANB,
    .name = "anb",
    .extensions = ".anb",
    .sniff = ossa__anb_sniff,
    .read = ossa__anb_read,
    .write = ossa__anb_write,
    .holds = OSSA_HOLDS_ONE_ANIMATION | OSSA_HOLDS_PICKS_ANIMATION,
    SOTC_OPTIONS,
};

const ossa_format_ops ossa__sotc_nmo_format = {
    .id = OSSA_FORMAT_SOTC_NMO,
    .name = "nmo",
    .extensions = ".nmo",
    .sniff = ossa__nmo_sniff,
    .read = ossa__nmo_read,
    .write = ossa__nmo_write,
    .holds = OSSA_HOLDS_MESHES,
    SOTC_OPTIONS,
};

const ossa_format_ops ossa__sotc_nto_format = {
    .id = OSSA_FORMAT_SOTC_NTO,
    .name = "nto",
    .extensions = ".nto",
    .sniff = ossa__nto_sniff,
    .read = ossa__nto_read,
    SOTC_OPTIONS,
};
