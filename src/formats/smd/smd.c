/* SMD (docs/formats/smd.md): the format table's entry, detection and the read
 * entry point, which parses the text into raw lists and builds the model
 * from them. */
#include "formats/smd/smd.h"

/* "version" (any case) as the first statement, after blank and comment
 * lines, followed by a blank and a digit. */
static bool smd_sniff(const unsigned char *data, size_t size)
{
    const unsigned char *p = data, *end = data + size;
    for (;;) {
        while (p < end && (ossa__text_blank((char)*p) || *p == '\n')) p++;
        if (p < end && (*p == '#' || *p == ';' || (*p == '/' && p + 1 < end && p[1] == '/'))) {
            while (p < end && *p != '\n') p++;
            continue;
        }
        break;
    }
    static const char word[] = "version";
    for (size_t i = 0; i < sizeof word - 1; i++, p++)
        if (p >= end || (*p | 0x20) != word[i]) return false;
    if (p >= end || !ossa__text_blank((char)*p)) return false;
    while (p < end && ossa__text_blank((char)*p)) p++;
    return p < end && *p >= '0' && *p <= '9';
}

/* Old Mac files end lines with a lone CR (§1): a copy with LF instead, so
 * that the lexer sees lines; NULL when there is no lone CR (or memory ran
 * out: *failed). */
static unsigned char *lone_cr_copy(const ossa_model *m, const unsigned char *data, size_t size,
                                   bool *failed)
{
    *failed = false;
    const unsigned char *cr = size ? memchr(data, '\r', size) : NULL;
    bool lone = false;
    for (; cr && !lone; cr = memchr(cr + 1, '\r', (size_t)(data + size - cr - 1)))
        lone = cr + 1 == data + size ? false : cr[1] != '\n';
    if (!lone) return NULL;
    unsigned char *copy = ossa__temp_alloc(m, size);
    if (!copy) {
        *failed = true;
        return NULL;
    }
    for (size_t i = 0; i < size; i++)
        copy[i] = data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n') ? '\n' : data[i];
    return copy;
}

static ossa_status smd_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    bool failed;
    unsigned char *copy = lone_cr_copy(model, data, size, &failed);
    if (failed) return ossa__fail_nomem(error);
    smd_doc doc;
    ossa_status st = ossa__smd_parse(&doc, model, copy ? copy : data, size, options, error);
    if (!st) st = ossa__smd_build(&doc, size);
    ossa__smd_doc_free(&doc);
    ossa__temp_free(model, copy);
    return st;
}

/* docs/formats/smd.md */
static const ossa_option_info smd_load_options[] = {
    {"smd.turn", OSSA_OPTION_SWITCH, "", "off",
     "turn the model +90 degrees about Z, as studiomdl does when it compiles (front -Y becomes +X); "
     "default: coordinates as written"},
};

/* Characters are made facing -Y for studiomdl, which turns them to +X
 * (docs/formats/smd.md §8); smd.turn does that turn on reading. */
static ossa_front smd_front(const ossa_option *options, uint32_t count, bool writing)
{
    return !writing && ossa__option_on(options, count, "smd.turn") ? OSSA_FRONT_POS_X
                                                                    : OSSA_FRONT_NEG_Y;
}

const ossa_format_ops ossa__smd_format = {
    .id = OSSA_FORMAT_SMD,
    .name = "smd",
    .extensions = ".smd",
    .sniff = smd_sniff,
    .read = smd_read,
    .write = ossa__smd_write,
    .write_files = ossa__smd_write_files,
    /* a model of animations alone: `animation` is the one in the main file */
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS |
             OSSA_HOLDS_PICKS_ANIMATION,
    .images = OSSA__IMAGES_NAMED, /* a triangle's material is its texture file */
    .scale = OSSA__SCALE_NONE,
    .front_of = smd_front,
    .option_family = "smd",
    .load_options = smd_load_options,
    .num_load_options = sizeof smd_load_options / sizeof *smd_load_options,
};
