/* IQE (docs/formats/iqe.md): the format table's entry and the read entry point,
 * which parses the text into raw lists and builds the model from them. */
#include "formats/iqe/iqe.h"

ossa_status ossa__iqe_read(ossa_model *model, const unsigned char *data, size_t size,
                           const ossa_load_options *options, ossa_error *error)
{
    iqe_doc doc;
    ossa_status st = ossa__iqe_parse(&doc, model, data, size, options, error);
    if (!st) st = ossa__iqe_build(model, &doc, options, error);
    ossa__iqe_doc_free(&doc);
    return st;
}

const ossa_format_ops ossa__iqe_format = {
    .id = OSSA_FORMAT_IQE,
    .name = "iqe",
    .extensions = ".iqe",
    .sniff = ossa__iqe_sniff,
    .read = ossa__iqe_read,
    .write = ossa__iqe_write,
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS,
    .images = OSSA__IMAGES_NAMED,
    .front = OSSA_FRONT_POS_X, /* IQM's */
};
