/* IQM (docs/formats/iqm.md): the format table's entry. */
#include "formats/iqm/iqm.h"

static bool iqm_sniff(const unsigned char *data, size_t size)
{
    return size >= 16 && memcmp(data, IQM_MAGIC, 16) == 0;
}

const ossa_format_ops ossa__iqm_format = {
    .id = OSSA_FORMAT_IQM,
    .name = "iqm",
    .extensions = ".iqm",
    .sniff = iqm_sniff,
    .read = ossa__iqm_read,
    .write = ossa__iqm_write,
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS,
    .images = OSSA__IMAGES_NAMED,
};
