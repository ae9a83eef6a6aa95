/* illEngine writers: canonical ASCII ILLMESH0 (layout v0b), ILLSKEL0 and
 * ILLANIM0 (docs/formats/ill.md §11), which the engine's loaders read: tokens
 * separated by whitespace, booleans 0 and 1, names without whitespace; the
 * choice between them and the binary files (write_binary.c) by the write
 * option ill.encoding; and the sets of files written together.
 *
 *   ILLMESH0            ILLSKEL0                 ILLANIM0
 *   1 (x6 flags)        N                        frame rate
 *   vertex count        4 matrix rows x N,       frame count
 *   index count         blank line after each    bone count
 *   per vertex one      parents (-1 = root)      per bone: its name, one
 *   line per attribute, names                    line of 10 numbers per
 *   then a blank line                            frame (p, q x y z w, s)
 *   3 indices per line
 *
 * Text goes through the shared line writer (text/text.h, ossa_text_out);
 * numbers are the shortest decimals that read back as the same float
 * (ossa__out_float). Names are made whitespace-free and unique; every
 * change is reported through the write options' warn callback. */
#include "formats/ill/ill.h"
#include "text/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct writer {
    const ossa_model *m;
    const ossa_write_options *opt;
    ossa_text_out out;
    bool at_line_start;
    /* The first value that is not finite, for the error. */
    bool bad;
    const char *section;
    uint32_t item;
} writer;

/* Tokens are separated by one space within a line. */
static void sep(writer *w)
{
    if (!w->at_line_start) ossa__out_char(&w->out, ' ');
    w->at_line_start = false;
}

static void newline(writer *w)
{
    ossa__out_char(&w->out, '\n');
    w->at_line_start = true;
}

static void put_float(writer *w, float f)
{
    if (!isfinite(f)) {
        if (!w->bad) w->bad = true;
        f = 0;
    }
    sep(w);
    ossa__out_float(&w->out, f);
}

static void put_int(writer *w, int64_t v)
{
    sep(w);
    ossa__out_int(&w->out, v);
}

static void put_word(writer *w, const char *s)
{
    sep(w);
    ossa__out_str(&w->out, s);
}

static void set_item(writer *w, const char *section, uint32_t item)
{
    if (!w->bad) {
        w->section = section;
        w->item = item;
    }
}

static ossa_status finish(writer *w, ossa_error *error)
{
    ossa__out_flush(&w->out);
    if (w->bad)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "%s %u holds a value that is not a finite number; illEngine files hold "
                          "finite numbers only",
                          w->section, w->item);
    return OSSA_OK;
}

static void writer_init(writer *w, const ossa_model *m, const ossa_write_options *opt, ossa_buf *out)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->opt = opt;
    ossa__out_init(&w->out, out);
    w->at_line_start = true;
}

/* -- Names ------------------------------------------------------------------- */

/* Text files name the bones: the reader turns a mesh by Rx(-90) when its
 * skeleton has a bone named <MD5_Root> (docs/formats/ill.md §10). */
static bool has_md5_root(const ossa_model *m)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (strcmp(m->joints[j].name, ILL_MD5_ROOT) == 0) return true;
    return false;
}

/* -- ILLMESH0 ---------------------------------------------------------------- */

static void put_floats(writer *w, const float *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) put_float(w, v[i]);
    newline(w);
}

static ossa_status write_mesh_text(const ossa_model *m, const ossa_write_options *opt,
                                   ossa_buf *out, ossa_error *error)
{
    /* Written turned back by Rx(+90) when the reader will turn it, so that
     * reading gives this model again. */
    ill_vertex_source s;
    ossa__ill_vertex_source(m, opt, has_md5_root(m), &s);

    writer w;
    writer_init(&w, m, opt, out);
    put_word(&w, "ILLMESH0");
    newline(&w);
    /* The six flags in the order of the mask bits: position, normal,
     * tangent, texcoord, blend data, colour. */
    for (unsigned bit = 1; bit <= ILL_HAS_COLOR; bit <<= 1) {
        put_word(&w, s.mask & bit ? "1" : "0");
        newline(&w);
    }
    put_int(&w, m->num_vertices);
    newline(&w);
    put_int(&w, (int64_t)m->num_triangles * 3);
    newline(&w);
    /* One line per attribute, in the v0b order (§3). */
    static const struct {
        unsigned bit;
        uint32_t size;
    } lines[] = {{ILL_HAS_POSITION, 3}, {ILL_HAS_NORMAL, 3}, {ILL_HAS_TANGENT, 3},
                 {ILL_HAS_TANGENT, 3},  {ILL_HAS_BLEND, 4},  {ILL_HAS_BLEND, 4},
                 {ILL_HAS_TEXCOORD, 2}, {ILL_HAS_COLOR, 4}};
    uint32_t cut = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float f[32];
        set_item(&w, "vertex", v);
        cut += ossa__ill_vertex(m, &s, v, f);
        const float *p = f;
        for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
            if (s.mask & lines[i].bit) {
                put_floats(&w, p, lines[i].size);
                p += lines[i].size;
            }
        newline(&w);
    }
    if (cut)
        ossa__write_warn(opt, OSSA_WARNING_LIMITED, "%u vertices have more than 4 blend influences: the 4 largest are kept", cut);
    /* ossa's front faces are clockwise, illEngine's counter-clockwise. */
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        const uint32_t *v = m->triangles[t].v;
        put_int(&w, v[0]);
        put_int(&w, v[2]);
        put_int(&w, v[1]);
        newline(&w);
    }
    return finish(&w, error);
}

/* -- ILLSKEL0 ---------------------------------------------------------------- */

static ossa_status write_skel(const ossa_model *m, const ossa_write_options *opt, bool report,
                              ossa_buf *out, ossa_error *error)
{
    if (!m->num_joints)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the model has no joints: there is no skeleton to write");
    char **names = ossa__ill_joint_names(m, opt, report, error);
    if (!names) return OSSA_FAILED;
    writer w;
    writer_init(&w, m, opt, out);
    put_word(&w, "ILLSKEL0");
    newline(&w);
    put_int(&w, m->num_joints);
    newline(&w);
    /* The parent-relative bind matrix, row-major (docs/formats/ill.md §4). */
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double mt[16];
        set_item(&w, "joint", j);
        ossa__transform_to_mat4d(&m->joints[j].bind, mt);
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 4; c++) put_float(&w, (float)mt[c * 4 + r]);
            newline(&w);
        }
        put_word(&w, "0 0 0 1");
        newline(&w);
        newline(&w);
    }
    for (uint32_t j = 0; j < m->num_joints; j++) {
        put_int(&w, m->joints[j].parent < 0 ? -1 : m->joints[j].parent);
        newline(&w);
    }
    for (uint32_t j = 0; j < m->num_joints; j++) {
        put_word(&w, names[j]);
        newline(&w);
    }
    ossa__free(opt->allocator, names, 0);
    return finish(&w, error);
}

/* -- ILLANIM0 ---------------------------------------------------------------- */

static ossa_status write_anim(const ossa_model *m, const ossa_write_options *opt, uint32_t index,
                              bool report_names, ossa_buf *out, ossa_error *error)
{
    ill_anim_plan plan;
    if (ossa__ill_anim_plan(m, opt, index, &plan, error)) return OSSA_FAILED;
    char **names = ossa__ill_joint_names(m, opt, report_names, error);
    if (!names) return OSSA_FAILED;

    writer w;
    writer_init(&w, m, opt, out);
    put_word(&w, "ILLANIM0");
    newline(&w);
    put_float(&w, plan.rate);
    newline(&w);
    put_int(&w, plan.frames);
    newline(&w);
    put_int(&w, plan.bones);
    newline(&w);
    for (uint32_t j = 0; j < m->num_joints; j++) {
        if (!ossa__ill_anim_drives(&plan, j)) continue;
        set_item(&w, "joint", j);
        put_word(&w, names[j]);
        newline(&w);
        for (uint32_t f = 0; f < plan.frames; f++) {
            const ossa_transform *t = ossa__ill_anim_pose(m, &plan, f, j);
            for (int i = 0; i < 3; i++) put_float(&w, t->translation[i]);
            for (int i = 0; i < 4; i++) put_float(&w, t->rotation[i]);
            for (int i = 0; i < 3; i++) put_float(&w, t->scale[i]);
            newline(&w);
        }
        newline(&w);
    }
    ossa__free(opt->allocator, names, 0);
    /* The name and loop flag, which ILLANIM0 has no place for, after the
     * last frame, where the engine stops reading (ill.md §2); ossa's
     * reader takes them back (text.c). */
    const ossa_animation *a = &m->animations[index];
    ossa__anim_tag_write(&w.out, a->name, 0, (a->flags & OSSA_ANIMATION_LOOP) != 0, 0);
    newline(&w);
    return finish(&w, error);
}

/* -- Encoding ---------------------------------------------------------------- */

/* The write option ill.encoding: text (the default) or binary (§11). */
static bool binary(const ossa_write_options *opt)
{
    return ossa__option_choice(OSSA__OPTIONS(opt), "ill.encoding", ILL_WRITE_ENCODINGS) == 1;
}

/* A binary skeleton or animation written alone, without the .illanset
 * that ossa_write_file writes beside it: the names are not written. */
static void names_left_out(const ossa_model *m, const ossa_write_options *opt, const char *kind)
{
    if (m->num_joints)
        ossa__write_warn(opt, OSSA_WARNING_DROPPED,
                         "binary %s files hold no joint names: they go to the .illanset that "
                         "writing to a file puts beside it; here they are not written",
                         kind);
}

ossa_status ossa__ill_write_mesh(const ossa_model *m, const ossa_write_options *opt, ossa_buf *out,
                                 ossa_error *error)
{
    if (binary(opt)) return ossa__ill_write_mesh_binary(m, opt, out, error);
    return write_mesh_text(m, opt, out, error);
}

ossa_status ossa__ill_write_skel(const ossa_model *m, const ossa_write_options *opt, ossa_buf *out,
                                 ossa_error *error)
{
    if (!binary(opt)) return write_skel(m, opt, true, out, error);
    ossa_status st = ossa__ill_write_skel_binary(m, opt, out, error);
    if (!st) names_left_out(m, opt, ".illskel");
    return st;
}

/* The note on the animations a file of one leaves out. */
static void one_animation(const ossa_model *m, const ossa_write_options *opt)
{
    if (m->num_animations > 1)
        ossa__write_warn(opt, OSSA_WARNING_DROPPED, "the file holds one animation: '%s' is written, %u others are not "
                   "(write a .illmesh to get every animation)",
              opt->animation < m->num_animations ? m->animations[opt->animation].name : "",
              m->num_animations - 1);
}

ossa_status ossa__ill_write_anim(const ossa_model *m, const ossa_write_options *opt, ossa_buf *out,
                                 ossa_error *error)
{
    one_animation(m, opt);
    if (!binary(opt)) return write_anim(m, opt, opt->animation, true, out, error);
    ossa_status st = ossa__ill_write_anim_binary(m, opt, opt->animation, out, error);
    if (!st) names_left_out(m, opt, ".illanim");
    return st;
}

/* -- Sets of files ----------------------------------------------------------- */

/* The files of one write, all put in place together or none. */
typedef struct ill_set_writer {
    ossa_output_set set;
    const ossa_model *m;
    const ossa_write_options *opt;
    ossa_error *error;
} ill_set_writer;

/* The buffer of the file STEM`part``ext` (the path itself when ext is
 * NULL); NULL when memory runs out. */
static ossa_buf *add_file(ill_set_writer *s, const char *part, const char *ext)
{
    return ossa__output_set_add(&s->set, part, ext, s->error);
}

/* The outcome of writing into b: out of memory when the buffer could not
 * grow. */
static ossa_status filled(ill_set_writer *s, ossa_buf *b, ossa_status st)
{
    if (!st && b->failed) st = ossa__fail_nomem(s->error);
    return st;
}

/* STEM.illanset, the joint names of a binary set (reported here, once). */
static ossa_status add_anset(ill_set_writer *s)
{
    ossa_buf *b = add_file(s, "", ".illanset");
    return b ? filled(s, b, ossa__ill_write_anset(s->m, s->opt, true, b, s->error)) : OSSA_FAILED;
}

static ossa_status add_anim(ill_set_writer *s, const char *part, const char *ext, uint32_t anim,
                            bool report_names, bool bin)
{
    ossa_buf *b = add_file(s, part, ext);
    if (!b) return OSSA_FAILED;
    ossa_status st = bin ? ossa__ill_write_anim_binary(s->m, s->opt, anim, b, s->error)
                         : write_anim(s->m, s->opt, anim, report_names, b, s->error);
    return filled(s, b, st);
}

ossa_status ossa__ill_write_files(const ossa_model *m, const char *path,
                                  const ossa_write_options *opt, ossa_error *error)
{
    /* STEM.illmesh (always), STEM.illskel (a real skeleton), STEM.illanim
     * (the chosen animation), STEM.NAME.illanim (each other one), and for
     * binary files STEM.illanset (the joint names of the skeleton and the
     * animations). */
    bool bin = binary(opt);
    bool skel = m->num_joints && !(m->flags & (OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_NAMES_ONLY));
    uint32_t na = m->num_animations;
    bool anset = bin && m->num_joints && (skel || na);
    if (na && opt->animation >= na)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u does not exist (the model has %u)", opt->animation, na);
    ill_set_writer s = {.m = m, .opt = opt, .error = error};
    if (ossa__output_set_init(&s.set, path, 1 + (skel ? 1 : 0) + (size_t)na + anset, opt->allocator,
                              error))
        return OSSA_FAILED;
    ossa_buf *b = add_file(&s, "", NULL);
    ossa_status st = b ? filled(&s, b, ossa__ill_write_mesh(m, opt, b, error)) : OSSA_FAILED;
    if (!st && skel) {
        b = add_file(&s, "", ".illskel");
        st = !b ? OSSA_FAILED
             : bin ? filled(&s, b, ossa__ill_write_skel_binary(m, opt, b, error))
                   : filled(&s, b, write_skel(m, opt, true, b, error));
    }
    for (uint32_t n = 0; n < na && !st; n++) {
        /* the chosen animation first */
        uint32_t anim = n == 0 ? opt->animation : (n <= opt->animation ? n - 1 : n);
        char part[OSSA_OUTPUT_PART_SIZE] = "";
        if (n) ossa__output_set_animation_part(&s.set, m->animations[anim].name, anim, ".illanim", part);
        /* joint names are reported once: with the skeleton, else the first animation */
        st = add_anim(&s, part, ".illanim", anim, !skel && n == 0, bin);
    }
    if (!st && anset) st = add_anset(&s);
    return ossa__output_set_finish(&s.set, st, opt, error);
}

ossa_status ossa__ill_write_skel_files(const ossa_model *m, const char *path,
                                       const ossa_write_options *opt, ossa_error *error)
{
    /* The path given, and in binary STEM.illanset with the names. */
    bool bin = binary(opt);
    ill_set_writer s = {.m = m, .opt = opt, .error = error};
    if (ossa__output_set_init(&s.set, path, bin ? 2 : 1, opt->allocator, error)) return OSSA_FAILED;
    ossa_buf *b = add_file(&s, "", NULL);
    ossa_status st = !b ? OSSA_FAILED
                     : bin ? filled(&s, b, ossa__ill_write_skel_binary(m, opt, b, error))
                           : filled(&s, b, write_skel(m, opt, true, b, error));
    if (!st && bin) st = add_anset(&s);
    return ossa__output_set_finish(&s.set, st, opt, error);
}

ossa_status ossa__ill_write_anim_files(const ossa_model *m, const char *path,
                                       const ossa_write_options *opt, ossa_error *error)
{
    /* The path given, and in binary STEM.illanset with the names. */
    bool bin = binary(opt);
    one_animation(m, opt);
    ill_set_writer s = {.m = m, .opt = opt, .error = error};
    if (ossa__output_set_init(&s.set, path, bin ? 2 : 1, opt->allocator, error)) return OSSA_FAILED;
    ossa_status st = add_anim(&s, "", NULL, opt->animation, true, bin);
    if (!st && bin && m->num_joints) st = add_anset(&s);
    return ossa__output_set_finish(&s.set, st, opt, error);
}
