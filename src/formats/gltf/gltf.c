/* glTF 2.0 (docs/formats/gltf.md): the table's two entries (.gltf and .glb),
 * detection, and the read entry point: parse the document (read.c), then
 * build the model from its nodes (read_nodes.c), meshes (read_meshes.c,
 * with read_materials.c) and animations (read_anims.c). */
#include "formats/gltf/scene.h"

#include <stdio.h>

/* -- Building the model -- */

static ossa_status read_root_extras(gltf_scene *s)
{
    const cJSON *x = gltf_ours(s->r->root);
    if (!cJSON_IsObject(x)) return OSSA_OK;
    const char *comment = ossa__gltf_string(x, "comment");
    if (comment && ossa_model_set_comment(s->m, comment, strlen(comment), s->r->error)) return OSSA_FAILED;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "skeleton_from_poses"))) {
        bool unnamed = true;
        for (uint32_t j = 0; j < s->m->num_joints; j++) unnamed &= !s->m->joints[j].name[0];
        if (unnamed) s->m->flags |= OSSA_MODEL_SKELETON_FROM_POSES;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(x, "extras");
    for (const cJSON *e = cJSON_IsArray(list) ? list->child : NULL; e; e = e->next) {
        const char *key = ossa__gltf_string(e, "key"), *data = ossa__gltf_string(e, "data");
        if (!key || !data) continue;
        size_t len = strlen(data), cap = ossa__base64_decoded_max(len), size = 0, bad = 0;
        unsigned char *buf = ossa__alloc(s->r->alloc, cap);
        if (!buf) return ossa__fail_nomem(s->r->error);
        ossa_status st = OSSA_OK;
        if (ossa__base64_decode(data, len, OSSA_BASE64_STRICT, buf, &size, &bad))
            st = ossa_model_add_extra(s->m, key, buf, size, s->r->error);
        else
            ossa__warn(s->m, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0, "extras.%s.extras: '%s' is not base64: dropped",
                       GLTF_EXTRAS_KEY, key);
        ossa__free(s->r->alloc, buf, cap);
        if (st) return st;
    }
    return OSSA_OK;
}

static ossa_status build_model(gltf_reader *r)
{
    gltf_scene s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.m = r->model;
    ossa_status st = OSSA_OK;
    if (ossa__gltf_read_skeleton(&s) || ossa__gltf_read_meshes(&s) || ossa__gltf_read_animations(&s) ||
        read_root_extras(&s))
        st = OSSA_FAILED;
    ossa__gltf_materials_free(&s);
    return st;
}

/* -- Entry points -- */

ossa_status ossa__gltf_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    gltf_reader r;
    ossa_status st = ossa__gltf_parse(&r, model, data, size, options, error);
    if (!st) st = build_model(&r);
    ossa__gltf_reader_free(&r);
    return st;
}

/* The first bytes are printable ASCII, whitespace or well-formed UTF-8. */
static bool looks_like_text(const unsigned char *data, size_t size)
{
    size_t n = size < 64 ? size : 64;
    for (size_t i = 0; i < n;) {
        unsigned c = data[i];
        size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                                  : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!len || (c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7F) return false;
        for (size_t k = 1; k < len && i + k < size; k++)
            if ((data[i + k] & 0xC0) != 0x80) return false;
        i += len;
    }
    return true;
}

/* A .glb must start with the magic. Without it the bytes are not parsed
 * as JSON: an empty file, or text saved under .glb, would otherwise be
 * reported as broken JSON, which sends the user looking in the wrong
 * place. (.gltf JSON forced through the GLB entry is refused the same way;
 * detection sends it to the .gltf entry.) */
static ossa_status glb_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    if (size >= 4 && ossa__rd32(data) == GLB_MAGIC)
        return ossa__gltf_read(model, data, size, options, error);
    if (!size)
        return ossa__fail(error, OSSA_ERROR_FORMAT, 0,
                          "the file is empty: a .glb starts with the GLB magic \"glTF\"");
    if (looks_like_text(data, size)) {
        size_t i = 0;
        while (i < size && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) i++;
        return ossa__fail(error, OSSA_ERROR_FORMAT, 0,
                          "no GLB magic: a .glb starts with \"glTF\", this file holds text%s",
                          i < size && data[i] == '{' ? " (JSON: a .gltf file?)" : "");
    }
    char found[16];
    snprintf(found, sizeof found, "%02X %02X %02X %02X", data[0], size > 1 ? data[1] : 0,
             size > 2 ? data[2] : 0, size > 3 ? data[3] : 0);
    if (size < 4) found[size * 3 - 1] = 0;
    return ossa__fail(error, OSSA_ERROR_FORMAT, 0,
                      "no GLB magic: expected \"glTF\" (67 6C 54 46) at byte 0, found %s", found);
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

/* docs/formats/gltf.md */
static const ossa_option_info gltf_write_options[] = {
    {"gltf.embed", OSSA_OPTION_SWITCH, "", "off",
     ".gltf: the buffers as data URIs inside the file, no .bin beside it"},
    {"gltf.sparse_channels", OSSA_OPTION_SWITCH, "", "off",
     "each animation keys only the channels it moves; default: every animation keys every "
     "channel any animation moves, as players that switch actions need"},
};
/* glTF's front is +Z (the specification), -Y after the reader's turn. */
#define GLTF_OPTIONS                                                                           \
    .option_family = "gltf", .write_options = gltf_write_options,                              \
    .num_write_options = sizeof gltf_write_options / sizeof *gltf_write_options,               \
    .front = OSSA_FRONT_NEG_Y

const ossa_format_ops ossa__gltf_format = {
    .id = OSSA_FORMAT_GLTF,
    .name = "gltf",
    .extensions = ".gltf",
    .sniff = gltf_sniff,
    .read = ossa__gltf_read,
    .write = ossa__gltf_write,
    .write_files = ossa__gltf_write_files,
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS,
    .images = OSSA__IMAGES_STORED,
    .rest_pose = true,
    GLTF_OPTIONS,
};

const ossa_format_ops ossa__glb_format = {
    .id = OSSA_FORMAT_GLB,
    .name = "glb",
    .extensions = ".glb",
    .sniff = glb_sniff,
    .read = glb_read,
    .write = ossa__glb_write,
    .write_files = ossa__glb_write_files,
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS,
    .images = OSSA__IMAGES_STORED,
    .rest_pose = true,
    GLTF_OPTIONS,
};
