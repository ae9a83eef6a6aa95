/* illEngine binary writers (docs/formats/ill.md §7, §11): the files the
 * engine's loaders of April 2013 on read. Little-endian, floats f32, the
 * magic as 8 ASCII bytes:
 *
 *   ILLMESH1  u8 feature mask, u8 groups (1: one triangle list), u32
 *             vertices, u16 indices, the group {u8 3, u16 0, u16 indices},
 *             the vertices (f32, v0b order), u16 indices
 *   ILLSKEL0  u16 bones; per bone 16 f32 parent-relative bind matrix and
 *             16 f32 offset matrix (the inverse of the accumulated bind),
 *             both column-major; u16 parents, a root names itself
 *   ILLANIM0  f32 duration (s), u16 bones; per bone u16 index, then the
 *             position, rotation (x y z w) and scale keys, each as u16
 *             count and count x (f32 time, values)
 *   ILANSET0  u16 names; per name u16 big-endian length, the bytes
 *
 * Every limit of the 16-bit counts is checked before a byte is written;
 * the caller discards the buffer on failure, so no file is ever partial. */
#include "formats/ill/ill.h"

#include <math.h>
#include <stdio.h>

/* Binary files count bones, keys and indices in 16 bits. */
#define ILL_U16_MAX 65535u

/* -- Bytes --------------------------------------------------------------------- */

/* The buffer and the first value that is not finite, for the error. */
typedef struct bin {
    ossa_buf *out;
    bool bad;
    const char *section;
    uint32_t item;
} bin;

static void put_raw(bin *w, const void *p, size_t n) { ossa__buf_append(w->out, p, n); }

static void put_u8(bin *w, unsigned v)
{
    unsigned char c = (unsigned char)v;
    put_raw(w, &c, 1);
}

static void put_u16(bin *w, uint32_t v)
{
    unsigned char b[2];
    ossa__wr16(b, (uint16_t)v);
    put_raw(w, b, 2);
}

static void put_u32(bin *w, uint32_t v)
{
    unsigned char b[4];
    ossa__wr32(b, v);
    put_raw(w, b, 4);
}

static void put_f32(bin *w, float f)
{
    unsigned char b[4];
    if (!isfinite(f)) {
        w->bad = true;
        f = 0;
    }
    ossa__wrf32(b, f);
    put_raw(w, b, 4);
}

static void set_item(bin *w, const char *section, uint32_t item)
{
    if (!w->bad) {
        w->section = section;
        w->item = item;
    }
}

static ossa_status finish(const bin *w, ossa_error *error)
{
    if (w->bad)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "%s %u holds a value that is not a finite number; illEngine files hold "
                          "finite numbers only",
                          w->section, w->item);
    return OSSA_OK;
}

static void bin_init(bin *w, ossa_buf *out, const char *magic)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    put_raw(w, magic, ILL_MAGIC_SIZE);
}

/* -- Skeleton matrices ----------------------------------------------------------- */

/* Joint j's parent-relative bind matrix as the file stores it: f32,
 * column-major. */
static void relative_matrix(const ossa_model *m, uint32_t j, float out[16])
{
    double d[16];
    ossa__transform_to_mat4d(&m->joints[j].bind, d);
    for (int k = 0; k < 16; k++) out[k] = (float)d[k];
}

/* The reader turns a mesh by Rx(-90) when the binary skeleton has a root
 * whose matrix is Rx(-90) (§10): the mesh is then written turned back.
 * Decided on the floats written, with the reader's own test. */
static bool rx_root(const ossa_model *m)
{
    if (m->num_joints > ILL_U16_MAX) return false;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        if (m->joints[j].parent >= 0) continue;
        float f[16];
        double d[16];
        relative_matrix(m, j, f);
        for (int k = 0; k < 16; k++) d[k] = f[k];
        if (ossa__ill_is_rx_minus_90(d)) return true;
    }
    return false;
}

static ossa_status too_many_joints(const ossa_model *m, ossa_error *error)
{
    return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                      "%u joints: binary illEngine files number bones in 16 bits (at most %u); "
                      "text files (ill.encoding=text) hold any number",
                      m->num_joints, ILL_U16_MAX);
}

/* -- ILLMESH1 ------------------------------------------------------------------- */

/* What a mesh file cannot hold, refused before anything is written: more
 * than 65535 indices in all, or a vertex beyond 16-bit indices. */
static ossa_status check_mesh(const ossa_model *m, ossa_error *error)
{
    uint64_t indices = (uint64_t)m->num_triangles * 3;
    if (indices > ILL_U16_MAX)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "%u triangles need %llu indices; a binary illEngine mesh holds at most "
                          "%u (%u triangles); text files (ill.encoding=text) hold any number",
                          m->num_triangles, (unsigned long long)indices, ILL_U16_MAX,
                          ILL_U16_MAX / 3);
    for (uint32_t t = 0; t < m->num_triangles; t++)
        for (int k = 0; k < 3; k++)
            if (m->triangles[t].v[k] > ILL_U16_MAX)
                return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                                  "triangle %u uses vertex %u; binary illEngine indices are 16-bit "
                                  "(vertices 0 to %u)",
                                  t, m->triangles[t].v[k], ILL_U16_MAX);
    return OSSA_OK;
}

ossa_status ossa__ill_write_mesh_binary(const ossa_model *m, const ossa_write_options *opt,
                                        ossa_buf *out, ossa_error *error)
{
    if (check_mesh(m, error)) return OSSA_FAILED;
    ill_vertex_source s;
    ossa__ill_vertex_source(m, opt, rx_root(m), &s);
    uint32_t ni = m->num_triangles * 3, stride = ossa__ill_vertex_floats(s.mask);
    bin w;
    bin_init(&w, out, "ILLMESH1");
    put_u8(&w, s.mask);
    /* One triangle-list group over every index, as the engine's converter
     * writes (ossa reads all groups into one mesh; §7). */
    put_u8(&w, ni ? 1 : 0);
    put_u32(&w, m->num_vertices);
    put_u16(&w, ni);
    if (ni) {
        put_u8(&w, 3); /* GL triangles */
        put_u16(&w, 0);
        put_u16(&w, ni);
    }
    uint32_t cut = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float f[32];
        set_item(&w, "vertex", v);
        cut += ossa__ill_vertex(m, &s, v, f);
        for (uint32_t k = 0; k < stride; k++) put_f32(&w, f[k]);
    }
    if (cut)
        ossa__write_warn(opt, OSSA_WARNING_LIMITED,
                         "%u vertices have more than 4 blend influences: the 4 largest are kept", cut);
    /* ossa's front faces are clockwise, illEngine's counter-clockwise. */
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        const uint32_t *v = m->triangles[t].v;
        put_u16(&w, v[0]);
        put_u16(&w, v[2]);
        put_u16(&w, v[1]);
    }
    return finish(&w, error);
}

/* -- ILLSKEL0 ------------------------------------------------------------------- */

/* Joint j's offset matrix: the inverse of its accumulated bind pose, from
 * the f32 matrices as written, so that the reader's check of it holds. A
 * bind pose without an inverse (a zero scale) gets zeros, reported once. */
static void offset_matrix(const double *world, uint32_t j, float out[16], uint32_t *singular)
{
    double inv[16];
    bool ok = ossa__mat4d_invert_affine(world + (size_t)j * 16, inv);
    for (int k = 0; k < 16; k++) {
        out[k] = ok ? (float)inv[k] : 0;
        ok = ok && isfinite(out[k]);
        if (out[k] == 0) out[k] = 0; /* no -0 from the arithmetic */
    }
    if (!ok) {
        memset(out, 0, 16 * sizeof *out);
        (*singular)++;
    }
}

ossa_status ossa__ill_write_skel_binary(const ossa_model *m, const ossa_write_options *opt,
                                        ossa_buf *out, ossa_error *error)
{
    if (!m->num_joints)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the model has no joints: there is no skeleton to write");
    if (m->num_joints > ILL_U16_MAX) return too_many_joints(m, error);
    uint32_t n = m->num_joints, singular = 0, first_singular = 0;
    double *world = ossa__alloc(opt->allocator, (size_t)n * 16 * sizeof *world);
    if (!world) return ossa__fail_nomem(error);
    bin w;
    bin_init(&w, out, "ILLSKEL0");
    put_u16(&w, n);
    for (uint32_t j = 0; j < n; j++) {
        float rel[16], off[16];
        double d[16];
        set_item(&w, "joint", j);
        relative_matrix(m, j, rel);
        for (int k = 0; k < 16; k++) d[k] = rel[k];
        /* Parents come first in a model: theirs is known. */
        int32_t p = m->joints[j].parent;
        if (p >= 0)
            ossa__mat4d_mul(world + (size_t)p * 16, d, world + (size_t)j * 16);
        else
            memcpy(world + (size_t)j * 16, d, sizeof d);
        uint32_t before = singular;
        offset_matrix(world, j, off, &singular);
        if (singular > before && !before) first_singular = j;
        for (int k = 0; k < 16; k++) put_f32(&w, rel[k]);
        for (int k = 0; k < 16; k++) put_f32(&w, off[k]);
    }
    /* A root names itself: a u16 cannot hold -1 (§7). */
    for (uint32_t j = 0; j < n; j++) put_u16(&w, m->joints[j].parent < 0 ? j : (uint32_t)m->joints[j].parent);
    ossa__free(opt->allocator, world, 0);
    if (singular && !w.bad)
        ossa__write_warn(opt, OSSA_WARNING_REPAIRED,
                         "%u joints (first: %u) have a bind pose without an inverse (a zero "
                         "scale): their offset matrices are written as zeros",
                         singular, first_singular);
    return finish(&w, error);
}

/* -- ILLANIM0 ------------------------------------------------------------------- */

/* One channel: every frame a key at frame / rate seconds. A single frame
 * gets a second, equal key at the duration, so that the keys still show
 * the frame grid the reader takes them back at (§8). */
static void put_channel(bin *w, const ossa_model *m, const ill_anim_plan *plan, uint32_t j, int what,
                        float duration)
{
    uint32_t keys = plan->frames == 1 ? 2 : plan->frames;
    put_u16(w, keys);
    for (uint32_t k = 0; k < keys; k++) {
        uint32_t f = k < plan->frames ? k : 0;
        const ossa_transform *t = ossa__ill_anim_pose(m, plan, f, j);
        put_f32(w, k < plan->frames ? (float)((double)k / plan->rate) : duration);
        const float *v = what == 0 ? t->translation : what == 1 ? t->rotation : t->scale;
        for (int i = 0; i < (what == 1 ? 4 : 3); i++) put_f32(w, v[i]);
    }
}

ossa_status ossa__ill_write_anim_binary(const ossa_model *m, const ossa_write_options *opt,
                                        uint32_t animation, ossa_buf *out, ossa_error *error)
{
    ill_anim_plan plan;
    if (ossa__ill_anim_plan(m, opt, animation, &plan, error)) return OSSA_FAILED;
    if (m->num_joints > ILL_U16_MAX) return too_many_joints(m, error);
    const char *name = plan.anim->name;
    if (plan.frames > ILL_U16_MAX)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "animation '%s' has %u frames; a binary illEngine channel holds at most "
                          "%u keys; text files (ill.encoding=text) hold any number",
                          name, plan.frames, ILL_U16_MAX);
    /* One cycle: the last frame runs into the first, as the engine and
     * ossa play fixed-rate frames (§8). */
    float duration = (float)((double)plan.frames / plan.rate);
    if (!isfinite(duration) || !(duration > 0))
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "animation '%s': %u frames at %g frames per second do not last a "
                          "float number of seconds",
                          name, plan.frames, (double)plan.rate);
    uint32_t *number = ossa__alloc(opt->allocator, ((size_t)m->num_joints + 1) * sizeof *number);
    if (!number) return ossa__fail_nomem(error);
    ossa__ill_bone_numbers(m, number);
    bin w;
    bin_init(&w, out, "ILLANIM0");
    put_f32(&w, duration);
    put_u16(&w, plan.bones);
    /* Every joint the animation drives, by its number in the skeleton, with
     * all three channels: the engine needs a key in each (it takes one
     * from an empty list). */
    for (uint32_t j = 0; j < m->num_joints; j++) {
        if (!ossa__ill_anim_drives(&plan, j)) continue;
        set_item(&w, "joint", j);
        put_u16(&w, number[j]);
        for (int what = 0; what < 3; what++) put_channel(&w, m, &plan, j, what, duration);
    }
    ossa__free(opt->allocator, number, 0);
    /* The name and loop flag, which ILLANIM0 has no place for, after the
     * data, where the engine stops reading, as in text files (ill.md §2);
     * ossa's reader takes them back (binary.c). */
    ossa_text_out tag;
    ossa__out_init(&tag, out);
    ossa__anim_tag_write(&tag, name, 0, (plan.anim->flags & OSSA_ANIMATION_LOOP) != 0, 0);
    ossa__out_char(&tag, '\n');
    ossa__out_flush(&tag);
    return finish(&w, error);
}

/* -- ILANSET0 ------------------------------------------------------------------- */

/* One name: u16 big-endian length (unlike every other number, §7), the
 * bytes. */
static void put_name(bin *w, const char *name)
{
    size_t len = strlen(name);
    put_u8(w, (unsigned)(len >> 8));
    put_u8(w, (unsigned)(len & 0xff));
    put_raw(w, name, len);
}

ossa_status ossa__ill_write_anset(const ossa_model *m, const ossa_write_options *opt, bool report,
                                  ossa_buf *out, ossa_error *error)
{
    if (m->num_joints > ILL_U16_MAX) return too_many_joints(m, error);
    /* The names a text skeleton would hold, so that text and binary files
     * of one model read back alike. */
    char **names = ossa__ill_joint_names(m, opt, report, error);
    uint32_t *number = ossa__alloc(opt->allocator, ((size_t)m->num_joints + 1) * sizeof *number);
    /* by bone number: the joint there, or none */
    uint32_t *at = ossa__alloc(opt->allocator, ((size_t)ILL_U16_MAX + 1) * sizeof *at);
    ossa_status st = names && number && at ? OSSA_OK : OSSA_FAILED;
    if (names && (!number || !at)) ossa__fail_nomem(error);
    for (uint32_t j = 0; j < m->num_joints && !st; j++)
        if (strlen(names[j]) > ILL_U16_MAX)
            st = ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                            "joint %u: its name has %zu bytes; an .illanset holds at most %u",
                            j, strlen(names[j]), ILL_U16_MAX);
    if (!st) {
        uint32_t count = ossa__ill_bone_numbers(m, number);
        for (uint32_t k = 0; k < count; k++) at[k] = UINT32_MAX;
        for (uint32_t j = 0; j < m->num_joints; j++) at[number[j]] = j;
        bin w;
        bin_init(&w, out, "ILANSET0");
        put_u16(&w, count);
        for (uint32_t k = 0; k < count; k++) {
            /* A number no joint has (an animation of some bones of a
             * skeleton) gets a name with a space, which no joint's name
             * written here has. */
            char unused[32];
            snprintf(unused, sizeof unused, "(unused %u)", k);
            put_name(&w, at[k] == UINT32_MAX ? unused : names[at[k]]);
        }
    }
    ossa__free(opt->allocator, names, 0);
    ossa__free(opt->allocator, number, 0);
    ossa__free(opt->allocator, at, 0);
    return st;
}
