/* Shadow of the Colossus XFF files (docs/formats/sotc.md): the table's four
 * entries. Each kind of file has its own module: skb.c (skeletons), anb.c
 * (animations), nmo.c (meshes), nto.c (texture headers), over xff.c (the
 * container). */
#include "formats/sotc/sotc.h"

/* The options of every SOTC file (docs/formats/sotc.md). */
static const ossa_option_info sotc_load_options[] = {
    {"sotc.nto_width", OSSA_OPTION_CHOICE, SOTC_NTO_WIDTH_NIBBLES, "low",
     "which size nibble of a .nto header (byte 0x1E) is log2 of the width; the other is the "
     "height (the order is disputed)"},
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
