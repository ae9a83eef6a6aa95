/* IQM (docs/formats/iqm.md): the format table's entry. */
#include "formats/iqm/iqm.h"

static bool iqm_sniff(const unsigned char *data, size_t size)
{
    return size >= 16 && memcmp(data, IQM_MAGIC, 16) == 0;
}

/* docs/formats/iqm.md §4 */
static const ossa_option_info iqm_write_options[] = {
    {"iqm.keep_scale", OSSA_OPTION_SWITCH, "", "off",
     "keep joint scales that are the same in every pose (an FBX armature's 100); default: baked "
     "into translations and the mesh, since raylib composes frames without the parent's scale"},
    {"iqm.keep_formats", OSSA_OPTION_SWITCH, "", "off",
     "write vertex arrays in the model's own formats (float blend weights from glTF, MD5, FBX), "
     "which the IQM SDK's demo, raylib and Sauerbraten do not read; default: float position, "
     "normal, tangent, texcoord and ubyte x 4 blend indexes, blend weights (summing to 255) and "
     "colours"},
};

const ossa_format_ops ossa__iqm_format = {
    .id = OSSA_FORMAT_IQM,
    .name = "iqm",
    .extensions = ".iqm",
    .sniff = iqm_sniff,
    .read = ossa__iqm_read,
    .write = ossa__iqm_write,
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS,
    .images = OSSA__IMAGES_NAMED,
    .front = OSSA_FRONT_POS_X, /* the IQM SDK's demo looks from +X; mrfixit faces it */
    .scale = OSSA__SCALE_IGNORED, /* raylib composes frames without the parent's scale */
    .option_family = "iqm",
    .write_options = iqm_write_options,
    .num_write_options = sizeof iqm_write_options / sizeof *iqm_write_options,
};
