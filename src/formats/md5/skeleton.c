/* What the md5mesh and md5anim writers share (docs/formats/md5.md §11): the
 * joints as written, their model-space bind poses, each frame's
 * parent-relative poses, and MD5's number and name text.
 *
 * - id needs one root at index 0: when the model has several roots or
 *   none, or vertices that no joint moves while its root moves, a joint
 *   "origin" with the identity pose is inserted at index 0 and the old
 *   roots hang from it. A skeleton with one root is never changed, even
 *   when that root stands away from the origin (id then plays its motion
 *   from the baseframe, §7).
 * - MD5 holds no scale: the writers get the model with its scale baked
 *   (core/scale.h, the format table's rule), so poses are written as they
 *   are, with scales within 1e-5 of 1 taken as 1.
 */
#include "formats/md5/md5.h"

#include "core/world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ORIGIN_TOLERANCE 1e-5

/* -- Text -- */

void ossa__md5_out_float(ossa_text_out *o, float f)
{
    char g[OSSA_FLOAT_CHARS + 1], digits[OSSA_FLOAT_CHARS + 1], out[80];
    if (!isfinite(f)) f = 0; /* callers check; never "inf" or "nan" in a file */
    size_t n = ossa__text_format_float(g, f), nd = 0, k = 0;
    g[n] = 0;
    /* the shortest digits and where the point goes */
    const char *p = g + (g[0] == '-');
    int int_len = -1, exp10 = 0;
    for (; *p && *p != 'e'; p++) {
        if (*p == '.')
            int_len = (int)nd;
        else
            digits[nd++] = *p;
    }
    if (int_len < 0) int_len = (int)nd;
    if (*p == 'e') exp10 = (int)strtol(p + 1, NULL, 10);
    size_t lead = 0;
    while (lead < nd && digits[lead] == '0') lead++;
    memmove(digits, digits + lead, nd - lead);
    nd -= lead;
    int_len -= (int)lead;
    while (nd && digits[nd - 1] == '0') nd--; /* never after the point: %g drops them */
    int point = int_len + exp10;
    if (nd == 0) {
        ossa__out_char(o, '0');
        return;
    }
    if (f < 0) out[k++] = '-';
    if ((int)nd - point > 10) {
        /* more than 10 decimals: |f| < 1, and |f| * 1e10 is exact in a
         * double (24 + 24 significant bits), so one rounding gives the
         * value to 10 decimals */
        double r = nearbyint(fabs((double)f) * 1e10);
        if (r == 0) {
            ossa__out_char(o, '0');
            return;
        }
        char frac[16];
        snprintf(frac, sizeof frac, "%010lld", (long long)r);
        size_t fl = strlen(frac);
        if (fl > 10) { /* rounded up to 1 */
            out[k++] = '1';
        } else {
            out[k++] = '0';
            out[k++] = '.';
            while (fl && frac[fl - 1] == '0') fl--;
            memcpy(out + k, frac, fl);
            k += fl;
        }
        ossa__out_mem(o, out, k);
        return;
    }
    if (point <= 0) {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = 0; i < -point; i++) out[k++] = '0';
        memcpy(out + k, digits, nd);
        k += nd;
    } else if ((size_t)point >= nd) {
        memcpy(out + k, digits, nd);
        k += nd;
        for (size_t i = nd; i < (size_t)point; i++) out[k++] = '0';
    } else {
        memcpy(out + k, digits, (size_t)point);
        k += (size_t)point;
        out[k++] = '.';
        memcpy(out + k, digits + point, nd - (size_t)point);
        k += nd - (size_t)point;
    }
    ossa__out_mem(o, out, k);
}

static bool bad_name_char(unsigned char c) { return c == '"' || c < 0x20 || c == 0x7f; }

void ossa__md5_out_name(ossa_text_out *o, const char *name)
{
    ossa__out_char(o, '"');
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        ossa__out_char(o, bad_name_char(*p) ? '_' : (char)*p);
    ossa__out_char(o, '"');
}

/* -- Names -- */

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Inserts names[i] into the set; false when an equal name is there. */
static bool set_insert(uint32_t *slot, uint32_t cap, char **names, uint32_t i)
{
    for (uint32_t s = hash_str(names[i]) & (cap - 1);; s = (s + 1) & (cap - 1)) {
        if (!slot[s]) {
            slot[s] = i + 1;
            return true;
        }
        if (strcmp(names[slot[s] - 1], names[i]) == 0) return false;
    }
}

/* Writable unique names: '"' and control bytes become '_', empty names
 * "joint<i>", and a repeated name gets "_<i>" (animations bind by name). */
static ossa_status make_names(md5_skeleton *s, ossa_error *error)
{
    const ossa_model *m = s->model;
    uint32_t n = s->num_joints, cap = 16;
    while (cap < n * 2) cap *= 2;
    uint32_t *slot = ossa__temp_calloc(m, cap, sizeof *slot);
    s->names = ossa__temp_calloc(m, n, sizeof *s->names);
    if (!slot || !s->names) {
        ossa__temp_free(m, slot);
        return ossa__fail_nomem(error);
    }
    uint32_t changed = 0, first = 0;
    /* the model's joints claim their names before an inserted "origin" */
    for (uint32_t ii = 0; ii < n; ii++) {
        uint32_t i = (ii + s->shift) % n;
        const char *src = i < s->shift ? "origin" : m->joints[i - s->shift].name;
        size_t len = strlen(src);
        char *c = ossa__temp_alloc(m, len + 32);
        if (!c) {
            ossa__temp_free(m, slot);
            return ossa__fail_nomem(error);
        }
        s->names[i] = c;
        bool renamed = false;
        for (size_t k = 0; k <= len; k++) {
            c[k] = k < len && bad_name_char((unsigned char)src[k]) ? '_' : src[k];
            renamed |= c[k] != src[k];
        }
        if (!len) {
            snprintf(c, len + 32, "joint%u", i);
            renamed = true;
        }
        for (uint32_t attempt = 0; !set_insert(slot, cap, s->names, i); attempt++) {
            size_t l = strlen(c);
            snprintf(c + l, len + 32 - l, "_%u", i);
            renamed = true;
            if (attempt > 2) { /* pathological: fall back to the index alone */
                snprintf(c, len + 32, "joint%u_%u", i, attempt);
            }
        }
        if (renamed && i >= s->shift && !changed++) first = i - s->shift;
    }
    ossa__temp_free(m, slot);
    if (changed)
        ossa__write_warn(s->options, OSSA_WARNING_RENAMED,
                             "%u joint names were made writable and unique (first: joint %u "
                             "'%s')",
                             changed, first, m->joints[first].name);
    return OSSA_OK;
}

/* -- The skeleton -- */

/* Whether every vertex has an influence on an existing joint; vertices
 * without one stay put in ossa and need a joint that never moves. */
static ossa_status all_weighted(const md5_skeleton *s, bool *out, ossa_error *error)
{
    const ossa_model *m = s->model;
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    *out = m->num_vertices == 0;
    if (!m->num_vertices || !bi || !bw || !m->num_joints) return OSSA_OK;
    uint32_t k = bi->size < bw->size ? bi->size : bw->size;
    float *idx = ossa__temp_calloc(m, bi->size, sizeof *idx);
    float *wgt = ossa__temp_calloc(m, bw->size, sizeof *wgt);
    if (!idx || !wgt) {
        ossa__temp_free(m, idx);
        ossa__temp_free(m, wgt);
        return ossa__fail_nomem(error);
    }
    bool all = true;
    for (uint32_t v = 0; v < m->num_vertices && all; v++) {
        ossa_vertex_array_read(m, bi, v, 1, idx);
        ossa_vertex_array_read(m, bw, v, 1, wgt);
        bool any = false;
        for (uint32_t i = 0; i < k; i++) any |= wgt[i] > 0 && idx[i] >= 0 && idx[i] < m->num_joints;
        all = any;
    }
    ossa__temp_free(m, idx);
    ossa__temp_free(m, wgt);
    *out = all;
    return OSSA_OK;
}

/* Whether a root keeps its bind pose in every frame of every animation
 * (vertices bound to it then never move, as unweighted vertices must not). */
static bool root_still(const ossa_model *m, uint32_t j)
{
    const ossa_transform *b = &m->joints[j].bind;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        for (uint32_t f = 0; f < an->num_frames; f++) {
            const ossa_transform *t = &an->frames[(size_t)f * m->num_joints + j];
            for (int i = 0; i < 3; i++)
                if (fabsf(t->translation[i] - b->translation[i]) > ORIGIN_TOLERANCE ||
                    fabsf(t->scale[i] - b->scale[i]) > ORIGIN_TOLERANCE)
                    return false;
            double qt[4], qb[4], d = 0;
            ossa__unit_quatd(t->rotation, qt);
            ossa__unit_quatd(b->rotation, qb);
            for (int i = 0; i < 4; i++) d += qt[i] * qb[i];
            if (!(fabs(d) >= 1 - ORIGIN_TOLERANCE)) return false;
        }
    }
    return true;
}

static ossa_status check_finite(const ossa_model *m, const ossa_transform *t, const char *where,
                                ossa_error *error)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (!ossa__finite3(t[j].translation) || !isfinite(t[j].rotation[0]) ||
            !isfinite(t[j].rotation[1]) || !isfinite(t[j].rotation[2]) ||
            !isfinite(t[j].rotation[3]) || !ossa__finite3(t[j].scale))
            return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                              "joint %u '%s' has a value that is not a finite number in %s; MD5 "
                              "holds finite numbers only",
                              j, m->joints[j].name, where);
    return OSSA_OK;
}

ossa_status ossa__md5_skeleton_init(md5_skeleton *s, const ossa_model *m,
                                    const ossa_write_options *options, ossa_error *error)
{
    memset(s, 0, sizeof *s);
    s->model = m;
    s->options = options;
    uint32_t nj = m->num_joints;
    ossa_transform *bind = ossa__temp_calloc(m, nj + 1, sizeof *bind);
    if (!bind) return ossa__fail_nomem(error);
    for (uint32_t j = 0; j < nj; j++) bind[j] = m->joints[j].bind;
    ossa_status st = check_finite(m, bind, "the bind pose", error);
    for (uint32_t a = 0; a < m->num_animations && !st; a++) {
        const ossa_animation *an = &m->animations[a];
        char where[300];
        snprintf(where, sizeof where, "animation '%s'", an->name);
        for (uint32_t f = 0; f < an->num_frames && !st; f++)
            st = check_finite(m, an->frames + (size_t)f * nj, where, error);
    }

    /* An "origin" root (§11) only where MD5 needs one: a skeleton with
     * one root (at index 0, parents coming first) is written as it is,
     * wherever that root stands, so that MD5 -> MD5 keeps the skeleton. */
    uint32_t roots = 0;
    bool weighted = true;
    for (uint32_t j = 0; j < nj; j++) roots += m->joints[j].parent < 0;
    if (!st && roots == 1) st = all_weighted(s, &weighted, error);
    s->shift = nj == 0 || roots > 1 || (!weighted && !root_still(m, 0));
    s->num_joints = nj + s->shift;

    double *world = NULL;
    if (!st) {
        world = ossa__temp_calloc(m, (size_t)nj + 1, OSSA__WORLD * sizeof *world);
        s->bind = ossa__temp_calloc(m, s->num_joints, 7 * sizeof *s->bind);
        s->parents = ossa__temp_calloc(m, s->num_joints, sizeof *s->parents);
        if (!world || !s->bind || !s->parents) st = ossa__fail_nomem(error);
    }
    if (!st) {
        ossa__world_poses(m, bind, world);
        if (s->shift) {
            s->parents[0] = -1;
            s->bind[6] = 1;
        }
        for (uint32_t j = 0; j < nj; j++) {
            const double *W = world + (size_t)j * OSSA__WORLD;
            int32_t p = m->joints[j].parent;
            double *B = s->bind + (size_t)(j + s->shift) * 7;
            s->parents[j + s->shift] = p < 0 ? (s->shift ? 0 : -1) : p + (int32_t)s->shift;
            memcpy(B, W + 12, 3 * sizeof *B);
            memcpy(B + 3, W + 16, 4 * sizeof *B);
            float t[3] = {(float)B[0], (float)B[1], (float)B[2]};
            if (!st && !ossa__finite3(t))
                st = ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                                "joint %u '%s' is beyond float range in model space", j,
                                m->joints[j].name);
        }
        st = make_names(s, error);
    }
    ossa__temp_free(m, world);
    ossa__temp_free(m, bind);
    if (st) ossa__md5_skeleton_free(s);
    return st;
}

void ossa__md5_skeleton_free(md5_skeleton *s)
{
    const ossa_model *m = s->model;
    if (!m) return;
    for (uint32_t i = 0; s->names && i < s->num_joints; i++) ossa__temp_free(m, s->names[i]);
    ossa__temp_free(m, s->names);
    ossa__temp_free(m, s->parents);
    ossa__temp_free(m, s->bind);
    memset(s, 0, sizeof *s);
}

/* q with w <= 0 (§3: id's exporter keeps its own w >= 0, which is this
 * sign in ossa's convention), as x y z. */
static void put_quat(const double q[4], float *out)
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double k = (q[3] > 0 ? -1 : 1) / n;
    for (int i = 0; i < 3; i++) out[i] = (float)(q[i] * k) + 0.0f;
}

void ossa__md5_frame(const md5_skeleton *s, uint32_t a, uint32_t f, float *out)
{
    const ossa_model *m = s->model;
    const ossa_transform *fr = m->animations[a].frames + (size_t)f * m->num_joints;
    if (s->shift) {
        memset(out, 0, 6 * sizeof *out);
        out += 6;
    }
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double q[4];
        memcpy(out + (size_t)j * 6, fr[j].translation, 3 * sizeof(float));
        ossa__unit_quatd(fr[j].rotation, q);
        put_quat(q, out + (size_t)j * 6 + 3);
    }
}
