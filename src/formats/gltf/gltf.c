/* glTF 2.0 (formats/gltf.md): the table's two entries (.gltf and .glb),
 * detection, and the read entry point: parse the document (read.c), then
 * build the model from its nodes (read_nodes.c), meshes (read_meshes.c)
 * and animations (read_anims.c). */
#include "formats/gltf/scene.h"

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
        size_t len = strlen(data), cap = len / 4 * 3 + 3, size = 0, bad = 0;
        unsigned char *buf = ossa__alloc(s->r->alloc, cap);
        if (!buf) return ossa__fail_nomem(s->r->error);
        ossa_status st = OSSA_OK;
        if (ossa__base64_decode(data, len, buf, &size, &bad))
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
    if (ossa__gltf_read_skeleton(&s) || ossa__gltf_read_meshes(&s) || ossa__gltf_read_animations(&s) ||
        read_root_extras(&s))
        return OSSA_FAILED;
    return OSSA_OK;
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
