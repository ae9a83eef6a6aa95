/* OBJ (docs/formats/obj.md): the format table's entry, detection and the read
 * entry point, which parses the text into raw lists and builds the model
 * from them. */
#include "formats/obj/obj.h"

/* OBJ has no signature: the first statement, after blank and comment
 * lines (and a UTF-8 byte order mark), must be one of the statements that
 * OBJ files begin with, followed by a blank. */
static bool obj_sniff(const unsigned char *data, size_t size)
{
    static const char *const first[] = {"v", "vt", "vn", "f", "o", "g", "s", "mtllib", "usemtl",
                                        NULL};
    const unsigned char *p = data, *end = data + size;
    if (size >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) p += 3;
    for (;;) {
        while (p < end && (ossa__text_blank((char)*p) || *p == '\n')) p++;
        if (p < end && *p == '#') {
            while (p < end && *p != '\n') p++;
            continue;
        }
        break;
    }
    const unsigned char *w = p;
    while (p < end && !ossa__text_blank((char)*p) && *p != '\n') p++;
    if (p == end || !ossa__text_blank((char)*p)) return false;
    for (const char *const *k = first; *k; k++)
        if (strlen(*k) == (size_t)(p - w) && memcmp(*k, w, (size_t)(p - w)) == 0) return true;
    return false;
}

static ossa_status obj_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    obj_doc doc;
    ossa_status st = ossa__obj_parse(&doc, model, data, size, options, error);
    if (!st) st = ossa__obj_build(&doc);
    if (!st) st = ossa__obj_materials(&doc);
    ossa__obj_doc_free(&doc);
    return st;
}

/* docs/formats/obj.md §7 and §10 */
static const ossa_option_info obj_load_options[] = {
    {"obj.axes", OSSA_OPTION_CHOICE, OBJ_AXES, "sdk",
     "how OBJ's Y-up axes become ossa's Z up: the IQM SDK's (x, y, z) -> (z, x, y), which also "
     "turns the front (+Z) to +X, or Blender's (x, y, z) -> (x, -z, y)"},
};
static const ossa_option_info obj_write_options[] = {
    {"obj.axes", OSSA_OPTION_CHOICE, OBJ_AXES, "sdk",
     "the inverse of the reading option: (x, y, z) -> (y, z, x), or Blender's (x, z, -y)"},
    {"obj.pose_time", OSSA_OPTION_NUMBER, "", "",
     "write the mesh skinned at this time (seconds) of the animation the write options pick, "
     "looped or clamped as it says, instead of the bind pose"},
};

/* OBJ's front is +Z, as Blender writes it: the IQM SDK's axes turn it to
 * +X, Blender's to -Y (docs/formats/obj.md §7). */
static ossa_front obj_front(const ossa_option *options, uint32_t count, bool writing)
{
    (void)writing;
    return ossa__option_choice(options, count, "obj.axes", OBJ_AXES) ? OSSA_FRONT_NEG_Y
                                                                     : OSSA_FRONT_POS_X;
}

const ossa_format_ops ossa__obj_format = {
    .id = OSSA_FORMAT_OBJ,
    .name = "obj",
    .extensions = ".obj",
    .sniff = obj_sniff,
    .read = obj_read,
    .write = ossa__obj_write,
    .write_files = ossa__obj_write_files,
    /* static meshes; `animation` (and obj.pose_time) pick the pose */
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_PICKS_ANIMATION,
    .front_of = obj_front,
    /* the MTL file beside names the images, which are copied beside */
    .images = OSSA__IMAGES_STORED,
    .option_family = "obj",
    .load_options = obj_load_options,
    .num_load_options = sizeof obj_load_options / sizeof *obj_load_options,
    .write_options = obj_write_options,
    .num_write_options = sizeof obj_write_options / sizeof *obj_write_options,
};
