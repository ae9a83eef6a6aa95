/* glTF 2.0 (formats/gltf.md): the table's two entries (.gltf and .glb),
 * detection, and the read entry point: parse the document (read.c), then
 * build the model from its nodes, meshes and animations (scene.c). */
#include "formats/gltf/read.h"

ossa_status ossa__gltf_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    gltf_reader r;
    ossa_status st = ossa__gltf_parse(&r, model, data, size, options, error);
    if (!st) st = ossa__gltf_build_model(&r);
    ossa__gltf_reader_free(&r);
    return st;
}

static bool gltf_sniff(const unsigned char *data, size_t size)
{
    /* JSON whose first key is near the top and a glTF one: real files
     * start with "asset", "accessors", "extensionsUsed" and the like, so
     * look for "asset" in the first kilobytes. */
    size_t i = 0;
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) i = 3;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')) i++;
    if (i >= size || data[i] != '{') return false;
    size_t n = size < 65536 ? size : 65536;
    for (size_t k = i; k + 7 <= n; k++)
        if (memcmp(data + k, "\"asset\"", 7) == 0) return true;
    return false;
}

static bool glb_sniff(const unsigned char *data, size_t size)
{
    return size >= 4 && ossa__rd32(data) == GLB_MAGIC;
}

const ossa_format_ops ossa__gltf_format = {
    .id = OSSA_FORMAT_GLTF,
    .name = "gltf",
    .extensions = ".gltf",
    .sniff = gltf_sniff,
    .read = ossa__gltf_read,
    .write = ossa__gltf_write,
    .write_files = ossa__gltf_write_files,
};

const ossa_format_ops ossa__glb_format = {
    .id = OSSA_FORMAT_GLB,
    .name = "glb",
    .extensions = ".glb",
    .sniff = glb_sniff,
    .read = ossa__gltf_read,
    .write = ossa__glb_write,
};
