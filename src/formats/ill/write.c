/* illEngine writers: canonical ASCII ILLMESH0 (layout v0b), ILLSKEL0 and
 * ILLANIM0 (docs/formats/ill.md §11), which the engine's loaders read: tokens
 * separated by whitespace, booleans 0 and 1, names without whitespace.
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

/* Names the files can hold, one per joint: whitespace and control bytes
 * become '_', empty names "bone<index>", and repeated ones get "_<index>"
 * appended, because the loaders split tokens at whitespace and an
 * animation must not name a bone twice. One block: pointers, then text.
 * The changes are reported when `report` is set: a write of several files
 * names the joints in each of them, but reports once. */
static char **joint_names(const ossa_model *m, const ossa_write_options *opt, bool report,
                          ossa_error *error)
{
    ossa_write_options quiet;
    if (!report) {
        quiet = *opt;
        quiet.diagnostic = NULL;
        opt = &quiet;
    }
    size_t total = (size_t)m->num_joints * sizeof(char *);
    for (uint32_t j = 0; j < m->num_joints; j++) total += strlen(m->joints[j].name) + 48;
    char **names = ossa__alloc(opt->allocator, total + 1);
    ill_name_set set;
    if (!names || !ossa__ill_set_init(&set, m->num_joints, opt->allocator)) {
        ossa__free(opt->allocator, names, 0);
        ossa__fail_nomem(error);
        return NULL;
    }
    char *text = (char *)(names + m->num_joints);
    uint32_t unnamed = 0, changed = 0, renamed = 0;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        const char *src = m->joints[j].name;
        size_t len = strlen(src);
        names[j] = text;
        if (!len) {
            len = (size_t)sprintf(text, "bone%u", j);
            unnamed++;
        } else {
            bool touched = false;
            for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)src[i];
                text[i] = c <= 0x20 || c == 0x7f ? '_' : (char)c;
                touched |= text[i] != src[i];
            }
            text[len] = 0;
            if (touched && !changed++)
                ossa__write_warn(opt, OSSA_WARNING_RENAMED, "joint %u '%s': whitespace or control characters in its name are "
                           "written as '_'",
                      j, src);
        }
        for (int k = 0; ossa__ill_set_add(&set, names[j]); k++) {
            sprintf(text + len, k ? "_%u_%d" : "_%u", j, k);
            if (!renamed++)
                ossa__write_warn(opt, OSSA_WARNING_RENAMED, "joint %u: its name is taken by an earlier joint; written as '%s'", j,
                      names[j]);
        }
        text += strlen(text) + 1;
    }
    ossa__free(opt->allocator, (void *)set.slot, 0);
    if (unnamed) ossa__write_warn(opt, OSSA_WARNING_RENAMED, "%u joints have no name: written as bone<index>", unnamed);
    if (changed > 1) ossa__write_warn(opt, OSSA_WARNING_RENAMED, "%u joint names had whitespace or control characters", changed);
    if (renamed > 1) ossa__write_warn(opt, OSSA_WARNING_RENAMED, "%u joint names were repeats and were renamed", renamed);
    return names;
}

static bool has_md5_root(const ossa_model *m)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (strcmp(m->joints[j].name, ILL_MD5_ROOT) == 0) return true;
    return false;
}

/* -- ILLMESH0 ---------------------------------------------------------------- */

static void read_vertex(const ossa_model *m, const ossa_vertex_array *a, uint32_t v, float *out,
                        uint32_t want, float fill_last)
{
    float tmp[OSSA_MAX_COMPONENTS];
    for (uint32_t k = 0; k < want; k++) out[k] = 0;
    if (want == 4) out[3] = fill_last;
    if (!a) return;
    ossa_vertex_array_read(m, a, v, 1, tmp);
    for (uint32_t k = 0; k < want && k < a->size; k++) out[k] = tmp[k];
}

/* Rx(+90), the inverse of the reader's correction: (x, y, z) -> (x, -z, y).
 * Exact in floats. */
static void undo_rx(float *v)
{
    float y = v[1], z = v[2];
    v[1] = z == 0 ? 0 : -z;
    v[2] = y;
}

static void put_floats(writer *w, const float *v, int n)
{
    for (int i = 0; i < n; i++) put_float(w, v[i]);
    newline(w);
}

/* Up to 4 influences, used ones first in ascending joint order, unused ones
 * index 0 weight 0 (docs/formats/ill.md §3); more are cut to the largest 4, renormalized. */
static bool blend_slots(const float *idx, const float *wt, uint32_t n, float out[8])
{
    uint32_t used[OSSA_MAX_COMPONENTS], nu = 0;
    for (uint32_t k = 0; k < n; k++)
        if (wt[k] > 0) used[nu++] = k;
    bool cut = nu > 4;
    if (cut) {
        /* the 4 largest weights */
        for (uint32_t a = 0; a < nu; a++)
            for (uint32_t b = a + 1; b < nu; b++)
                if (wt[used[b]] > wt[used[a]]) {
                    uint32_t t = used[a];
                    used[a] = used[b];
                    used[b] = t;
                }
        nu = 4;
    }
    for (uint32_t a = 0; a < nu; a++)
        for (uint32_t b = a + 1; b < nu; b++)
            if (idx[used[b]] < idx[used[a]]) {
                uint32_t t = used[a];
                used[a] = used[b];
                used[b] = t;
            }
    double sum = 0;
    for (uint32_t k = 0; k < nu; k++) sum += wt[used[k]];
    for (uint32_t k = 0; k < 4; k++) {
        out[k] = k < nu ? idx[used[k]] : 0;
        out[4 + k] = k < nu ? (cut ? (float)(wt[used[k]] / sum) : wt[used[k]]) : 0;
    }
    return cut;
}

ossa_status ossa__ill_write_mesh(const ossa_model *m, const ossa_write_options *opt, ossa_buf *out,
                                 ossa_error *error)
{
    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *nrm = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    const ossa_vertex_array *tan = ossa_model_find_array(m, OSSA_VERTEX_TANGENT, NULL);
    const ossa_vertex_array *bit = ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "bitangent");
    const ossa_vertex_array *tc = ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL);
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    const ossa_vertex_array *col = ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL);
    if (!bi || !bw) bi = bw = NULL;
    if (bit && bit->size < 3) bit = NULL;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        if (a->type == OSSA_VERTEX_CUSTOM && a != bit)
            ossa__write_warn(opt, OSSA_WARNING_DROPPED, "custom vertex array '%s' has no place in the file: not written", a->name);
    }
    if (m->num_meshes > 1)
        ossa__write_warn(opt, OSSA_WARNING_DROPPED, "%u meshes are written as one (the file holds one mesh)", m->num_meshes);
    /* The reader turns a mesh by Rx(-90) when its skeleton has a bone
     * named <MD5_Root> (docs/formats/ill.md §10): write it turned back so that reading
     * gives this model again. */
    bool md5 = has_md5_root(m);

    writer w;
    writer_init(&w, m, opt, out);
    put_word(&w, "ILLMESH0");
    newline(&w);
    const void *present[6] = {pos, nrm, tan, tc, bi, col};
    for (int i = 0; i < 6; i++) {
        put_word(&w, present[i] ? "1" : "0");
        newline(&w);
    }
    put_int(&w, m->num_vertices);
    newline(&w);
    put_int(&w, (int64_t)m->num_triangles * 3);
    newline(&w);
    uint32_t cut = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[4], n[4], t[4], b[4], uv[4], c[4], bl[8];
        set_item(&w, "vertex", v);
        if (pos) {
            read_vertex(m, pos, v, p, 3, 0);
            if (md5) undo_rx(p);
            put_floats(&w, p, 3);
        }
        if (nrm) {
            read_vertex(m, nrm, v, n, 3, 0);
            if (md5) undo_rx(n);
            put_floats(&w, n, 3);
        }
        if (tan) {
            read_vertex(m, tan, v, t, 4, 1);
            if (bit)
                read_vertex(m, bit, v, b, 3, 0);
            else if (nrm) {
                /* bitangent = w * cross(normal, tangent) */
                float nn[4];
                read_vertex(m, nrm, v, nn, 3, 0);
                float s = t[3] < 0 ? -1.0f : 1.0f;
                b[0] = s * (nn[1] * t[2] - nn[2] * t[1]);
                b[1] = s * (nn[2] * t[0] - nn[0] * t[2]);
                b[2] = s * (nn[0] * t[1] - nn[1] * t[0]);
            } else {
                b[0] = b[1] = b[2] = 0;
            }
            if (md5) {
                undo_rx(t);
                undo_rx(b);
            }
            put_floats(&w, t, 3);
            put_floats(&w, b, 3);
        }
        if (bi) {
            float idx[OSSA_MAX_COMPONENTS], wt[OSSA_MAX_COMPONENTS];
            uint32_t k = bi->size < bw->size ? bi->size : bw->size;
            ossa_vertex_array_read(m, bi, v, 1, idx);
            ossa_vertex_array_read(m, bw, v, 1, wt);
            cut += blend_slots(idx, wt, k, bl);
            put_floats(&w, bl, 4);
            put_floats(&w, bl + 4, 4);
        }
        if (tc) {
            read_vertex(m, tc, v, uv, 2, 0);
            put_floats(&w, uv, 2);
        }
        if (col) {
            read_vertex(m, col, v, c, 4, 1);
            put_floats(&w, c, 4);
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
    char **names = joint_names(m, opt, report, error);
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

ossa_status ossa__ill_write_skel(const ossa_model *m, const ossa_write_options *opt, ossa_buf *out,
                                 ossa_error *error)
{
    return write_skel(m, opt, true, out, error);
}

/* -- ILLANIM0 ---------------------------------------------------------------- */

static ossa_status write_anim(const ossa_model *m, const ossa_write_options *opt, uint32_t index,
                              bool report_names, ossa_buf *out, ossa_error *error)
{
    if (index >= m->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          m->num_animations ? "animation %u does not exist (the model has %u)"
                                            : "the model has no animation to write",
                          index, m->num_animations);
    const ossa_animation *a = &m->animations[index];
    char **names = joint_names(m, opt, report_names, error);
    if (!names) return OSSA_FAILED;
    float rate = a->framerate;
    if (!(rate > 0) || !isfinite(rate)) {
        ossa__write_warn(opt, OSSA_WARNING_REPAIRED, "animation '%s': no frame rate; written as %g", a->name,
              (double)OSSA_DEFAULT_FRAMERATE);
        rate = OSSA_DEFAULT_FRAMERATE;
    }
    uint32_t frames = a->num_frames;
    if (!frames) ossa__write_warn(opt, OSSA_WARNING_REPAIRED, "animation '%s' has no frames: the bind pose is written as one", a->name);
    /* Bones whose channels the animation does not drive keep their bind
     * pose when read: they are left out. */
    uint32_t bones = 0;
    for (uint32_t j = 0; j < m->num_joints; j++) bones += !a->channels || a->channels[j];

    writer w;
    writer_init(&w, m, opt, out);
    put_word(&w, "ILLANIM0");
    newline(&w);
    put_float(&w, rate);
    newline(&w);
    put_int(&w, frames ? frames : 1);
    newline(&w);
    put_int(&w, bones);
    newline(&w);
    for (uint32_t j = 0; j < m->num_joints; j++) {
        if (a->channels && !a->channels[j]) continue;
        set_item(&w, "joint", j);
        put_word(&w, names[j]);
        newline(&w);
        for (uint32_t f = 0; f < (frames ? frames : 1); f++) {
            const ossa_transform *t =
                frames ? &a->frames[(size_t)f * m->num_joints + j] : &m->joints[j].bind;
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
    ossa__anim_tag_write(&w.out, a->name, 0, (a->flags & OSSA_ANIMATION_LOOP) != 0, 0);
    newline(&w);
    return finish(&w, error);
}

ossa_status ossa__ill_write_anim(const ossa_model *m, const ossa_write_options *opt, ossa_buf *out,
                                 ossa_error *error)
{
    if (m->num_animations > 1)
        ossa__write_warn(opt, OSSA_WARNING_DROPPED, "the file holds one animation: '%s' is written, %u others are not "
                   "(write a .illmesh to get every animation)",
              opt->animation < m->num_animations ? m->animations[opt->animation].name : "",
              m->num_animations - 1);
    return write_anim(m, opt, opt->animation, true, out, error);
}

/* -- Three files ------------------------------------------------------------- */

ossa_status ossa__ill_write_files(const ossa_model *m, const char *path,
                                  const ossa_write_options *opt, ossa_error *error)
{
    /* STEM.illmesh (always), STEM.illskel (a real skeleton), STEM.illanim
     * (the chosen animation), STEM.NAME.illanim (each other one). */
    bool skel = m->num_joints && !(m->flags & (OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_NAMES_ONLY));
    uint32_t na = m->num_animations;
    if (na && opt->animation >= na)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u does not exist (the model has %u)", opt->animation, na);
    ossa_output_set set;
    if (ossa__output_set_init(&set, path, 1 + (skel ? 1 : 0) + (size_t)na, opt->allocator, error))
        return OSSA_FAILED;
    ossa_buf *b = ossa__output_set_add(&set, "", NULL, error);
    ossa_status st = b ? ossa__ill_write_mesh(m, opt, b, error) : OSSA_FAILED;
    if (!st && b->failed) st = ossa__fail_nomem(error);
    if (!st && skel) {
        b = ossa__output_set_add(&set, "", ".illskel", error);
        st = b ? write_skel(m, opt, true, b, error) : OSSA_FAILED;
        if (!st && b->failed) st = ossa__fail_nomem(error);
    }
    for (uint32_t n = 0; n < na && !st; n++) {
        /* the chosen animation first */
        uint32_t anim = n == 0 ? opt->animation : (n <= opt->animation ? n - 1 : n);
        char part[OSSA_OUTPUT_PART_SIZE] = "";
        if (n) ossa__output_set_animation_part(&set, m->animations[anim].name, anim, ".illanim", part);
        b = ossa__output_set_add(&set, part, ".illanim", error);
        /* joint names are reported once: with the skeleton, else the first animation */
        st = b ? write_anim(m, opt, anim, !skel && n == 0, b, error) : OSSA_FAILED;
        if (!st && b->failed) st = ossa__fail_nomem(error);
    }
    return ossa__output_set_finish(&set, st, opt, error);
}
