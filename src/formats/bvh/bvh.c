/* BVH (docs/formats/bvh.md): the format table's entry, detection and the
 * read entry point. */
#include "formats/bvh/bvh.h"

/* "HIERARCHY" (any case) as the first token, after a UTF-8 byte order mark
 * and blanks (§1). */
static bool bvh_sniff(const unsigned char *data, size_t size)
{
    const unsigned char *p = data, *end = data + size;
    if (size >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    while (p < end && (ossa__text_blank((char)*p) || *p == '\n')) p++;
    static const char word[] = "hierarchy";
    for (size_t i = 0; i < sizeof word - 1; i++, p++)
        if (p >= end || (*p | 0x20) != word[i]) return false;
    return p == end || ossa__text_blank((char)*p) || *p == '\n';
}

static ossa_status bvh_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    bvh_doc d;
    memset(&d, 0, sizeof d);
    d.model = model;
    d.options = options;
    d.error = error;
    d.file_size = size;
    ossa__bvh_lex_init(&d.lx, data, size);
    ossa_status st = ossa__bvh_read_hierarchy(&d);
    if (!st) st = ossa__bvh_add_joints(&d);
    if (!st && d.motion) st = ossa__bvh_read_motion(&d);
    ossa__list_free(model, &d.nodes);
    ossa__intern_free(model, &d.names);
    /* A BVH pose is about a rest pose of its own (offsets, no rotation):
     * merging it onto a character retargets it (§10). */
    if (!st) model->flags |= OSSA_MODEL_REST_POSE_REFERENCE;
    return st;
}

/* docs/formats/bvh.md §11 (the first word of a choice is its default) */
static const ossa_option_info bvh_write_options[] = {
    {"bvh.rotation_order", OSSA_OPTION_CHOICE, BVH_ORDERS, "ZYX",
     "the order of every joint's rotation channels: XYZ means R = Rx * Ry * Rz; ZYX is the CMU "
     "files' order"},
    {"bvh.positions", OSSA_OPTION_CHOICE, "root all", "root",
     "position channels on the roots only, or on every joint (keeps joints that move)"},
};

const ossa_format_ops ossa__bvh_format = {
    .id = OSSA_FORMAT_BVH,
    .name = "bvh",
    .extensions = ".bvh",
    .sniff = bvh_sniff,
    .read = bvh_read,
    .write = ossa__bvh_write,
    .write_files = ossa__bvh_write_files,
    .holds = OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS | OSSA_HOLDS_PICKS_ANIMATION,
    /* Y up, facing +Z (the CMU files' toes and Boxing_Toes' point to +Z),
     * which the reader's (x, -z, y) puts at -Y (bvh.md §3) */
    .front = OSSA_FRONT_NEG_Y,
    /* no scale channels: baked as for MD5 and SMD (core/scale.h) */
    .scale = OSSA__SCALE_NONE,
    .option_family = "bvh",
    .write_options = bvh_write_options,
    .num_write_options = sizeof bvh_write_options / sizeof *bvh_write_options,
};
