/* BVH writer (docs/formats/bvh.md §11): one file per animation, laid out as
 * the CMU files are:
 *
 *   HIERARCHY
 *   ROOT name             joints depth-first, TAB indentation
 *   {
 *   	OFFSET x y z        the joint's place at rest (Y up)
 *   	CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
 *   	JOINT ...           other joints: CHANNELS 3 (positions only when asked)
 *   	End Site            every leaf (a leaf named PARENT_end that never
 *   	{                   moves is one itself)
 *   		OFFSET x y z
 *   	}
 *   }
 *   MOTION
 *   Frames: N
 *   Frame Time: 0.00833333333333
 *   numbers, one line per frame
 *
 * BVH has no rest rotations: the joints' bind rotations are folded into the
 * motion, so that the written rest pose (offsets, no rotation) is the bind
 * pose and every frame puts each joint where the model does. */
#include "formats/bvh/bvh.h"

#include <math.h>
#include <stdio.h>

/* What can be chosen: the options bvh.rotation_order (default ZYX) and
 * bvh.positions (default root). */
typedef struct bvh_write_config {
    bvh_order order;
    bool all_positions;
} bvh_write_config;

static void config_from_options(const ossa_write_options *options, bvh_write_config *c)
{
    static const char *const orders[6] = {"ZYX", "XYZ", "XZY", "YXZ", "YZX", "ZXY"};
    uint32_t k = ossa__option_choice(OSSA__OPTIONS(options), "bvh.rotation_order", BVH_ORDERS);
    ossa__bvh_order_parse(orders[k < 6 ? k : 0], 3, &c->order);
    c->all_positions = ossa__option_choice(OSSA__OPTIONS(options), "bvh.positions", "root all") == 1;
}

/* The deepest indentation written: deeper joints stay at this depth, so
 * that a long chain cannot make the file grow with its square. */
#define BVH_MAX_INDENT 64

typedef struct bvh_writer {
    const ossa_model *m;
    const ossa_write_options *options;
    ossa_error *error;
    bvh_write_config config;
    ossa_intern names;    /* names as written; id = joint */
    double (*world)[4];   /* per joint: bind rotation in model space */
    double (*offset)[3];  /* per joint: OFFSET, BVH axes */
    uint32_t *order;      /* joints in the order written (depth-first) */
    uint32_t *depth;      /* per joint */
    uint32_t *first_child, *next_sibling;
    bool *end_site;       /* joints written as an End Site */
    bool *positions;      /* joints with position channels */
    uint32_t num_channels;
} bvh_writer;

static void release(bvh_writer *w)
{
    const ossa_model *m = w->m;
    ossa__intern_free(m, &w->names);
    ossa__temp_free(m, w->world);
    ossa__temp_free(m, w->offset);
    ossa__temp_free(m, w->order);
    ossa__temp_free(m, w->depth);
    ossa__temp_free(m, w->first_child);
    ossa__temp_free(m, w->next_sibling);
    ossa__temp_free(m, w->end_site);
    ossa__temp_free(m, w->positions);
}

/* -- Names -- */

/* A name is one token: blanks, braces and control bytes become '_' (as
 * Blender joins a name's words), an empty name becomes "jointN", a
 * repeated one NAME.2, NAME.3, ... */
static ossa_status make_names(bvh_writer *w)
{
    const ossa_model *m = w->m;
    uint32_t renamed = 0, first = 0;
    ossa_status st = OSSA_OK;
    for (uint32_t j = 0; j < m->num_joints && !st; j++) {
        char buf[BVH_MAX_NAME + 32];
        const char *name = m->joints[j].name;
        size_t len = strlen(name);
        if (len > BVH_MAX_NAME - 1) len = BVH_MAX_NAME - 1;
        bool changed = len != strlen(name);
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)name[i];
            bool bad = c <= ' ' || c == '{' || c == '}' || c == 0x7f;
            buf[i] = bad ? '_' : (char)c;
            changed |= bad;
        }
        if (!len) {
            len = (size_t)snprintf(buf, sizeof buf, "joint%u", j);
            changed = true;
        }
        buf[len] = 0;
        for (uint32_t k = 1;; k++) {
            size_t before = ossa__intern_count(&w->names);
            int64_t id = ossa__intern(m, &w->names, buf, strlen(buf));
            if (id < 0) {
                st = ossa__fail_nomem(w->error);
                break;
            }
            if ((size_t)id == before) break;
            snprintf(buf + len, sizeof buf - len, ".%u", k + 1);
            changed = true;
        }
        if (changed && !renamed++) first = j;
    }
    if (!st && renamed)
        ossa__write_warn(w->options, OSSA_WARNING_RENAMED,
                         "%u joint names changed to be single non-empty, unique words (first: "
                         "joint %u)",
                         renamed, first);
    return st;
}

/* -- The skeleton -- */

static bool same3(const float a[3], const float b[3])
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* Whether joint j stays at its bind pose in every frame of every
 * animation, with no rotation and unit scale. */
static bool static_leaf(const ossa_model *m, uint32_t j)
{
    const ossa_transform *b = &m->joints[j].bind;
    static const float one[3] = {1, 1, 1};
    if (b->rotation[0] || b->rotation[1] || b->rotation[2] || !same3(b->scale, one)) return false;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        for (uint32_t f = 0; f < an->num_frames; f++) {
            const ossa_transform *t = &an->frames[(size_t)f * m->num_joints + j];
            if (!same3(t->translation, b->translation) || t->rotation[0] || t->rotation[1] ||
                t->rotation[2] || !same3(t->scale, one))
                return false;
        }
    }
    return true;
}

/* A leaf is written as an End Site when reading it back gives it again:
 * it never moves and is named as the reader names End Sites (§5). */
static bool is_end_site(const bvh_writer *w, uint32_t j)
{
    const ossa_model *m = w->m;
    int32_t p = m->joints[j].parent;
    if (p < 0 || w->first_child[j] != UINT32_MAX) return false;
    const char *pn = ossa__intern_str(&w->names, (uint32_t)p);
    const char *jn = ossa__intern_str(&w->names, j);
    size_t n = strlen(pn);
    return strncmp(jn, pn, n) == 0 && strcmp(jn + n, "_end") == 0 && static_leaf(m, j);
}

static void unit_quat(const float in[4], double q[4])
{
    double n = 0;
    for (int k = 0; k < 4; k++) n += (double)in[k] * in[k];
    n = sqrt(n);
    if (!(n > 0) || !isfinite(n)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    for (int k = 0; k < 4; k++) q[k] = in[k] / n;
}

static ossa_status plan_skeleton(bvh_writer *w)
{
    const ossa_model *m = w->m;
    size_t n = (size_t)m->num_joints + 1;
    w->world = ossa__temp_calloc(m, n, sizeof *w->world);
    w->offset = ossa__temp_calloc(m, n, sizeof *w->offset);
    w->order = ossa__temp_calloc(m, n, sizeof *w->order);
    w->depth = ossa__temp_calloc(m, n, sizeof *w->depth);
    w->first_child = ossa__temp_calloc(m, n, sizeof *w->first_child);
    w->next_sibling = ossa__temp_calloc(m, n, sizeof *w->next_sibling);
    w->end_site = ossa__temp_calloc(m, n, sizeof *w->end_site);
    w->positions = ossa__temp_calloc(m, n, sizeof *w->positions);
    if (!w->world || !w->offset || !w->order || !w->depth || !w->first_child ||
        !w->next_sibling || !w->end_site || !w->positions)
        return ossa__fail_nomem(w->error);
    uint32_t nj = m->num_joints;
    for (uint32_t j = 0; j < nj; j++) w->first_child[j] = w->next_sibling[j] = UINT32_MAX;
    /* Children in index order: link them from the last. */
    for (uint32_t j = nj; j-- > 0;) {
        int32_t p = m->joints[j].parent;
        if (p < 0) continue;
        w->next_sibling[j] = w->first_child[p];
        w->first_child[p] = j;
    }
    for (uint32_t j = 0; j < nj; j++) {
        const ossa_joint *jt = &m->joints[j];
        int32_t p = jt->parent;
        double q[4], t[3] = {jt->bind.translation[0], jt->bind.translation[1],
                             jt->bind.translation[2]};
        unit_quat(jt->bind.rotation, q);
        if (p >= 0) {
            /* OFFSET: the bind translation turned by the parent's bind
             * rotation, since BVH rest frames are unturned. */
            const double *g = w->world[p];
            if (g[0] || g[1] || g[2]) { /* (keeps -0 as the file had it) */
                double o[3];
                ossa__quatd_rotate(g, t, o);
                memcpy(t, o, sizeof o);
            }
            ossa__quatd_mul(w->world[p], q, w->world[j]);
        } else {
            memcpy(w->world[j], q, sizeof q);
        }
        ossa__bvh_from_model(t, w->offset[j]);
        w->positions[j] = p < 0 || w->config.all_positions;
    }
    /* Depth-first order, with an explicit stack (the order array's tail). */
    uint32_t count = 0;
    for (uint32_t r = 0; r < nj; r++) {
        if (m->joints[r].parent >= 0) continue;
        uint32_t j = r;
        w->depth[j] = 0;
        for (;;) {
            w->order[count++] = j;
            if (w->first_child[j] != UINT32_MAX) {
                uint32_t c = w->first_child[j];
                w->depth[c] = w->depth[j] + 1;
                j = c;
                continue;
            }
            while (j != r && w->next_sibling[j] == UINT32_MAX) j = (uint32_t)m->joints[j].parent;
            if (j == r) break;
            uint32_t s = w->next_sibling[j];
            w->depth[s] = w->depth[j];
            j = s;
        }
    }
    w->num_channels = 0;
    for (uint32_t j = 0; j < nj; j++) {
        w->end_site[j] = is_end_site(w, j);
        if (!w->end_site[j]) w->num_channels += w->positions[j] ? 6 : 3;
    }
    return OSSA_OK;
}

static void indent(ossa_text_out *o, uint32_t depth)
{
    for (uint32_t i = 0; i < depth && i < BVH_MAX_INDENT; i++) ossa__out_char(o, '\t');
}

static void put_vec(ossa_text_out *o, const double v[3])
{
    for (int k = 0; k < 3; k++) {
        ossa__out_char(o, ' ');
        ossa__out_float(o, (float)v[k]);
    }
}

static void put_channels(const bvh_writer *w, ossa_text_out *o, uint32_t j)
{
    static const char *const rot[3] = {"Xrotation", "Yrotation", "Zrotation"};
    ossa__out_str(o, w->positions[j] ? "CHANNELS 6 Xposition Yposition Zposition" : "CHANNELS 3");
    for (int k = 0; k < 3; k++) {
        ossa__out_char(o, ' ');
        ossa__out_str(o, rot[w->config.order.axis[k]]);
    }
    ossa__out_char(o, '\n');
}

/* A leaf joint's End Site: half its own offset further along (zero for a
 * joint at its parent's place). */
static void put_end_site(ossa_text_out *o, uint32_t depth, const double off[3])
{
    indent(o, depth);
    ossa__out_str(o, "End Site\n");
    indent(o, depth);
    ossa__out_str(o, "{\n");
    indent(o, depth + 1);
    ossa__out_str(o, "OFFSET");
    put_vec(o, off);
    ossa__out_char(o, '\n');
    indent(o, depth);
    ossa__out_str(o, "}\n");
}

static void put_hierarchy(const bvh_writer *w, ossa_text_out *o)
{
    const ossa_model *m = w->m;
    ossa__out_str(o, "HIERARCHY\n");
    for (uint32_t i = 0; i < m->num_joints; i++) {
        uint32_t j = w->order[i], d = w->depth[j];
        if (w->end_site[j]) {
            put_end_site(o, d, w->offset[j]);
        } else {
            indent(o, d);
            ossa__out_str(o, m->joints[j].parent < 0 ? "ROOT " : "JOINT ");
            ossa__out_str(o, ossa__intern_str(&w->names, j));
            ossa__out_char(o, '\n');
            indent(o, d);
            ossa__out_str(o, "{\n");
            indent(o, d + 1);
            ossa__out_str(o, "OFFSET");
            put_vec(o, w->offset[j]);
            ossa__out_char(o, '\n');
            indent(o, d + 1);
            put_channels(w, o, j);
            if (w->first_child[j] == UINT32_MAX) {
                double half[3] = {w->offset[j][0] / 2, w->offset[j][1] / 2, w->offset[j][2] / 2};
                if (m->joints[j].parent < 0) half[0] = half[1] = half[2] = 0;
                put_end_site(o, d + 1, half);
            }
        }
        /* Close the blocks that end after j: j's own (unless it has
         * children) and its ancestors' whose last descendant it is. */
        if (w->first_child[j] != UINT32_MAX) continue;
        uint32_t k = j;
        for (;;) {
            if (!w->end_site[k]) {
                indent(o, w->depth[k]);
                ossa__out_str(o, "}\n");
            }
            if (w->next_sibling[k] != UINT32_MAX || m->joints[k].parent < 0) break;
            k = (uint32_t)m->joints[k].parent;
        }
    }
}

/* -- The motion -- */

/* Seconds per frame with 12 significant digits, so that 1 / time reads
 * back as the same float rate (§6): "0.00833333333333". */
static void put_frame_time(ossa_text_out *o, double rate)
{
    double t = 1.0 / rate;
    int e = (int)floor(log10(t));
    int decimals = 11 - e;
    if (decimals < 0) decimals = 0;
    if (decimals > 18) decimals = 18;
    double scale = pow(10.0, decimals);
    uint64_t v = (uint64_t)llround(t * scale);
    uint64_t p10 = 1;
    for (int i = 0; i < decimals; i++) p10 *= 10;
    ossa__out_int(o, (int64_t)(v / p10));
    uint64_t frac = v % p10;
    if (!decimals || !frac) return;
    char digits[24];
    for (int i = decimals - 1; i >= 0; i--) {
        digits[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    int n = decimals;
    while (n > 0 && digits[n - 1] == '0') n--;
    ossa__out_char(o, '.');
    ossa__out_mem(o, digits, (size_t)n);
}

/* One frame's numbers; prev holds each joint's last angles (degrees) and
 * is updated. */
static void put_frame(bvh_writer *w, ossa_text_out *o, const ossa_transform *pose,
                      double (*prev)[3], bool first)
{
    const ossa_model *m = w->m;
    bool any = false;
    for (uint32_t i = 0; i < m->num_joints; i++) {
        uint32_t j = w->order[i];
        if (w->end_site[j]) continue;
        const ossa_transform *t = &pose[j];
        int32_t p = m->joints[j].parent;
        if (w->positions[j]) {
            double v[3] = {t->translation[0], t->translation[1], t->translation[2]}, r[3], b[3];
            if (p >= 0) {
                ossa__quatd_rotate(w->world[p], v, r);
                memcpy(v, r, sizeof r);
            }
            ossa__bvh_from_model(v, b);
            for (int k = 0; k < 3; k++) {
                if (any) ossa__out_char(o, ' ');
                ossa__out_float(o, (float)b[k]);
                any = true;
            }
        }
        /* r = G_parent * local * G_joint^-1 (§11), then in BVH axes. */
        double l[4], r[4], inv[4] = {-w->world[j][0], -w->world[j][1], -w->world[j][2],
                                     w->world[j][3]};
        unit_quat(t->rotation, l);
        if (p >= 0)
            ossa__quatd_mul(w->world[p], l, r);
        else
            memcpy(r, l, sizeof l);
        ossa__quatd_mul(r, inv, r);
        double vb[3], bq[4];
        ossa__bvh_from_model(r, vb);
        bq[0] = vb[0], bq[1] = vb[1], bq[2] = vb[2], bq[3] = r[3];
        double deg[3];
        ossa__bvh_quat_to_euler(&w->config.order, bq, first ? NULL : prev[j], deg);
        memcpy(prev[j], deg, sizeof deg);
        for (int k = 0; k < 3; k++) {
            if (any) ossa__out_char(o, ' ');
            /* -0 is written as 0: the same angle, and one form for tests */
            float f = (float)deg[k];
            ossa__out_float(o, f == 0 ? 0.0f : f);
            any = true;
        }
    }
    ossa__out_char(o, '\n');
}

/* What BVH cannot hold of an animation: scale, and moving joints without
 * position channels; one warning each. */
static void report_losses(const bvh_writer *w, const ossa_animation *a)
{
    const ossa_model *m = w->m;
    uint32_t nj = m->num_joints;
    bool scaled = false, moved = false;
    uint32_t scaled_joint = 0, moved_joint = 0, moved_frame = 0;
    for (uint32_t f = 0; f < a->num_frames; f++)
        for (uint32_t j = 0; j < nj; j++) {
            const ossa_transform *t = &a->frames[(size_t)f * nj + j];
            for (int k = 0; k < 3 && !scaled; k++)
                if (!(fabsf(t->scale[k] - 1.0f) <= 1e-5f)) {
                    scaled = true;
                    scaled_joint = j;
                }
            if (!moved && !w->positions[j] && !w->end_site[j]) {
                const float *b = m->joints[j].bind.translation;
                for (int k = 0; k < 3; k++) {
                    float d = fabsf(t->translation[k] - b[k]);
                    if (!(d <= 1e-5f * (1.0f + fabsf(b[k])))) {
                        moved = true;
                        moved_joint = j;
                        moved_frame = f;
                    }
                }
            }
        }
    if (scaled)
        ossa__write_warn(w->options, OSSA_WARNING_DROPPED,
                         "animation '%s' scales joint '%s': BVH stores no scale, it is dropped",
                         a->name, ossa__intern_str(&w->names, scaled_joint));
    if (moved)
        ossa__write_warn(w->options, OSSA_WARNING_DROPPED,
                         "animation '%s' moves joint '%s' away from its offset (frame %u): only "
                         "the roots have position channels, so it is dropped (write positions "
                         "on every joint to keep it)",
                         a->name, ossa__intern_str(&w->names, moved_joint), moved_frame);
}

static ossa_status write_one(bvh_writer *w, int64_t animation, ossa_buf *out)
{
    const ossa_model *m = w->m;
    const ossa_animation *a = animation >= 0 ? &m->animations[animation] : NULL;
    ossa_text_out o;
    ossa__out_init(&o, out);
    put_hierarchy(w, &o);
    uint32_t frames = a ? a->num_frames : 0;
    double rate = a && a->framerate > 0 && isfinite(a->framerate) ? a->framerate
                                                                   : OSSA_DEFAULT_FRAMERATE;
    ossa__out_str(&o, "MOTION\nFrames: ");
    ossa__out_int(&o, frames);
    ossa__out_str(&o, "\nFrame Time: ");
    put_frame_time(&o, rate);
    ossa__out_char(&o, '\n');
    if (a) report_losses(w, a);
    double(*prev)[3] = ossa__temp_calloc(m, (size_t)m->num_joints + 1, sizeof *prev);
    if (!prev) {
        ossa__out_flush(&o);
        return ossa__fail_nomem(w->error);
    }
    for (uint32_t f = 0; f < frames; f++)
        put_frame(w, &o, &a->frames[(size_t)f * m->num_joints], prev, f == 0);
    ossa__temp_free(m, prev);
    ossa__out_flush(&o);
    if (out->failed) return ossa__fail_nomem(w->error);
    return OSSA_OK;
}

static ossa_status begin(bvh_writer *w, const ossa_model *m, const ossa_write_options *options,
                         ossa_error *error)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->options = options;
    w->error = error;
    config_from_options(options, &w->config);
    if (!m->num_joints)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "BVH holds a skeleton and its motion: the model has no joints");
    if (m->num_animations && options->animation >= m->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u does not exist (the model has %u)", options->animation,
                          m->num_animations);
    for (uint32_t j = 0; j < m->num_joints; j++) {
        const ossa_transform *b = &m->joints[j].bind;
        if (!ossa__finite3(b->translation) || !ossa__finite3(b->rotation) ||
            !isfinite(b->rotation[3]))
            return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                              "joint %u has a bind pose that is not finite", j);
        if (!(fabsf(b->scale[0] - 1) <= 1e-5f && fabsf(b->scale[1] - 1) <= 1e-5f &&
              fabsf(b->scale[2] - 1) <= 1e-5f)) {
            ossa__write_warn(options, OSSA_WARNING_DROPPED,
                             "joint '%s' has a bind scale: BVH stores no scale, it is dropped",
                             m->joints[j].name);
            break;
        }
    }
    if (make_names(w)) return OSSA_FAILED;
    return plan_skeleton(w);
}

ossa_status ossa__bvh_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out,
                            ossa_error *error)
{
    bvh_writer w;
    ossa_status st = begin(&w, m, options, error);
    if (!st) st = write_one(&w, m->num_animations ? (int64_t)options->animation : -1, out);
    release(&w);
    return st;
}

ossa_status ossa__bvh_write_files(const ossa_model *m, const char *path,
                                  const ossa_write_options *options, ossa_error *error)
{
    /* PATH: the chosen animation (or the skeleton alone, no frames);
     * STEM.NAME.bvh: every other one. */
    bvh_writer w;
    ossa_status st = begin(&w, m, options, error);
    size_t count = m->num_animations ? m->num_animations : 1;
    ossa_output_set set = {0};
    if (!st) st = ossa__output_set_init(&set, path, count, options->allocator, error);
    for (size_t i = 0; i < count && !st; i++) {
        int64_t a = -1;
        if (m->num_animations)
            a = i == 0 ? options->animation : i <= options->animation ? (int64_t)i - 1 : (int64_t)i;
        char part[OSSA_OUTPUT_PART_SIZE] = "";
        if (i > 0) ossa__output_set_animation_part(&set, m->animations[a].name, (uint32_t)a, ".bvh", part);
        ossa_buf *b = ossa__output_set_add(&set, part, i > 0 ? ".bvh" : NULL, error);
        if (!b) {
            st = OSSA_FAILED;
            break;
        }
        st = write_one(&w, a, b);
    }
    if (!st) ossa__error_set_file(error, path);
    st = ossa__output_set_finish(&set, st, options, error);
    release(&w);
    return st;
}
