/* MD5 (docs/formats/md5.md): the format table's two entries, detection, the
 * read entry point, which reads the common header and hands the rest to
 * the md5mesh or md5anim reader by what follows it, and the writers' entry
 * points: an md5mesh in memory, one md5anim in memory, and the md5mesh
 * with one md5anim per animation written together as files. */
#include "formats/md5/md5.h"

#include <stdio.h>

/* -- Detection and reading -- */

/* The first token, after an optional byte order mark, blanks and
 * comments, is MD5Version. */
static bool md5_sniff(const unsigned char *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) p += 3;
    for (int guard = 0; guard < 64; guard++) {
        while (p < end && (ossa__text_blank(*p) || *p == '\n')) p++;
        if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
            while (p < end && *p != '\n') p++;
        } else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
            for (p += 2; p < end - 1 && !(p[0] == '*' && p[1] == '/'); p++) {
            }
            p += 2;
        } else {
            break;
        }
    }
    static const char word[] = "MD5Version";
    size_t n = sizeof word - 1;
    return p < end && (size_t)(end - p) > n && memcmp(p, word, n) == 0 &&
           (ossa__text_blank(p[n]) || p[n] == '\n');
}

static bool next_is(md5_lexer *L, const char *word)
{
    size_t n = strlen(word);
    const char *p = L->lx.p;
    return (size_t)(L->lx.end - p) >= n && memcmp(p, word, n) == 0 && ossa__md5_is_end(L, p + n);
}

static ossa_status md5_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    md5_lexer L;
    ossa__md5_lex_init(&L, model, data, size, error);
    int r = ossa__md5_space(&L);
    if (r < 0) return OSSA_FAILED;
    if (r && !next_is(&L, "MD5Version"))
        return ossa__fail_line(error, OSSA_ERROR_FORMAT, L.lx.line, ossa__lex_column(&L.lx, L.lx.p),
                               "expected 'MD5Version' (an MD5 file starts with it)");
    int64_t version;
    if (ossa__md5_keyword(&L, "MD5Version", "") || ossa__md5_space(&L) < 0) return OSSA_FAILED;
    const char *at = L.lx.p;
    if (ossa__md5_int(&L, &version, INT64_MIN + 1, INT64_MAX, "the version")) return OSSA_FAILED;
    if (version != 10)
        return ossa__fail_line(
            error, OSSA_ERROR_UNSUPPORTED, L.lx.line, ossa__lex_column(&L.lx, at),
            "MD5Version %lld is not supported (only 10, id Tech 4's)", (long long)version);
    const char *s;
    size_t n;
    if (ossa__md5_keyword(&L, "commandline", "") ||
        ossa__md5_string(&L, &s, &n, "the command line") || ossa__md5_space(&L) < 0)
        return OSSA_FAILED;
    if (next_is(&L, "numJoints")) return ossa__md5_read_mesh(&L, model, options);
    if (next_is(&L, "numFrames")) return ossa__md5_read_anim(&L, model, options, s, n);
    return ossa__md5_expected(&L, "'numJoints' (an md5mesh) or 'numFrames' (an md5anim)");
}

/* -- Writing -- */

static ossa_status write_mesh(const ossa_model *model, const ossa_write_options *options,
                              ossa_buf *out, ossa_error *error)
{
    md5_skeleton s;
    if (ossa__md5_skeleton_init(&s, model, options, error)) return OSSA_FAILED;
    ossa_status st = ossa__md5_write_mesh_text(&s, out, error);
    ossa__md5_skeleton_free(&s);
    return st;
}

static ossa_status check_animation(const ossa_model *model, uint32_t a, ossa_error *error)
{
    if (!model->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the model has no animation to write as an md5anim");
    if (a >= model->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u does not exist (the model has %u)", a,
                          model->num_animations);
    return OSSA_OK;
}

static ossa_status write_anim(const ossa_model *model, const ossa_write_options *options,
                              ossa_buf *out, ossa_error *error)
{
    if (check_animation(model, options->animation, error)) return OSSA_FAILED;
    md5_skeleton s;
    if (ossa__md5_skeleton_init(&s, model, options, error)) return OSSA_FAILED;
    ossa_status st = ossa__md5_write_anim_text(&s, options->animation, out, error);
    ossa__md5_skeleton_free(&s);
    return st;
}

/* STEM.md5mesh (the path given) and STEM.NAME.md5anim per animation with
 * frames, all in place or none. */
static ossa_status write_files(const ossa_model *model, const char *path,
                               const ossa_write_options *options, ossa_error *error)
{
    md5_skeleton s;
    if (ossa__md5_skeleton_init(&s, model, options, error)) return OSSA_FAILED;
    ossa_output_set set;
    ossa_status st = ossa__output_set_init(&set, path, 1 + (size_t)model->num_animations,
                                           options->allocator, error);
    ossa_buf *b = st ? NULL : ossa__output_set_add(&set, NULL, NULL, error);
    st = b ? ossa__md5_write_mesh_text(&s, b, error) : OSSA_FAILED;
    if (!st && b->failed) st = ossa__fail_nomem(error);
    for (uint32_t a = 0; a < model->num_animations && !st; a++) {
        const ossa_animation *an = &model->animations[a];
        if (!an->num_frames) {
            ossa__write_warn(options, OSSA_WARNING_DROPPED,
                             "animation '%s' has no frames and is not written", an->name);
            continue;
        }
        char part[OSSA_OUTPUT_PART_SIZE];
        ossa__output_set_animation_part(&set, an->name, a, ".md5anim", part);
        b = ossa__output_set_add(&set, part, ".md5anim", error);
        st = b ? ossa__md5_write_anim_text(&s, a, b, error) : OSSA_FAILED;
        if (!st && b->failed) st = ossa__fail_nomem(error);
    }
    st = ossa__output_set_finish(&set, st, options, error);
    ossa__md5_skeleton_free(&s);
    return st;
}

const ossa_format_ops ossa__md5mesh_format = {
    .id = OSSA_FORMAT_MD5MESH,
    .name = "md5mesh",
    .extensions = ".md5mesh",
    .sniff = md5_sniff,
    .read = md5_read,
    .write = write_mesh,
    .write_files = write_files,
    .images = OSSA__IMAGES_NAMED, /* a shader may name an image file */
    .scale = OSSA__SCALE_NONE,
    .front = OSSA_FRONT_POS_X, /* id's models face +X (docs/formats/md5.md §9) */
    /* the md5mesh and one md5anim beside it per animation */
    .holds = OSSA_HOLDS_MESHES | OSSA_HOLDS_SKELETON | OSSA_HOLDS_ANIMATIONS,
};

/* Detection finds the md5mesh entry first; md5_read tells the kinds
 * apart by content, so this entry's sniff only serves forced formats. */
const ossa_format_ops ossa__md5anim_format = {
    .id = OSSA_FORMAT_MD5ANIM,
    .name = "md5anim",
    .extensions = ".md5anim",
    .sniff = md5_sniff,
    .read = md5_read,
    .write = write_anim,
    /* id Tech 4 refuses an md5anim whose joints are not the mesh's
     * (docs/formats/md5.md §6): merging one follows it. */
    .model_flags = OSSA_MODEL_STRICT_JOINTS,
    .scale = OSSA__SCALE_NONE,
    .front = OSSA_FRONT_POS_X,
};
