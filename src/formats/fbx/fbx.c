/* FBX (formats/fbx.md): the format table's entry, detection by content
 * (binary magic or ASCII's first record) and the read entry point: the
 * container into a node tree, then the scene into the model. Writing is
 * write.c's (binary 7.4). */
#include "formats/fbx/write.h"

static bool fbx_sniff(const unsigned char *data, size_t size)
{
    return ossa__fbx_sniff_binary(data, size) || ossa__fbx_sniff_ascii(data, size);
}

static ossa_status fbx_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    fbx_doc doc;
    ossa__fbx_doc_init(&doc, model, options, size, error);
    ossa_status st = ossa__fbx_sniff_binary(data, size) ? ossa__fbx_parse_binary(&doc, data, size)
                                                        : ossa__fbx_parse_ascii(&doc, data, size);
    if (!st) st = ossa__fbx_build(&doc);
    ossa__fbx_doc_release(&doc);
    return st;
}

/* docs/formats/fbx.md §3 */
static const ossa_option_info fbx_load_options[] = {
    {"fbx.keep_axes", OSSA_OPTION_SWITCH, "", "off",
     "keep the file's axes (default: converted to Z up, front -Y, from GlobalSettings)"},
    {"fbx.keep_units", OSSA_OPTION_SWITCH, "", "off",
     "keep the file's units (default: metres, from UnitScaleFactor)"},
};

/* The reader turns the file's front axis (GlobalSettings) to -Y, and the
 * writer declares -Y; with the file's axes kept, the front is not known. */
static ossa_front fbx_front(const ossa_option *options, uint32_t count, bool writing)
{
    return !writing && ossa__option_on(options, count, "fbx.keep_axes") ? OSSA_FRONT_UNKNOWN
                                                                         : OSSA_FRONT_NEG_Y;
}

const ossa_format_ops ossa__fbx_format = {
    .id = OSSA_FORMAT_FBX,
    .name = "fbx",
    .extensions = ".fbx",
    .sniff = fbx_sniff,
    .read = fbx_read,
    .write = ossa__fbx_write,
    .write_files = ossa__fbx_write_files,
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS,
    .images = OSSA__IMAGES_STORED,
    .front_of = fbx_front,
    .option_family = "fbx",
    .load_options = fbx_load_options,
    .num_load_options = sizeof fbx_load_options / sizeof *fbx_load_options,
};
