/* What the FBX writer's tests share: a binary FBX 7.4 record walker
 * written from ../shared/formats/fbx.md §2 alone (it uses nothing of the
 * library, so the tests check the writer against the specification), and
 * the comparison of a model with its FBX round trip. */
#ifndef OSSA_FBX_WRITE_TEST_H
#define OSSA_FBX_WRITE_TEST_H

#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -- The walker -------------------------------------------------------------- */

/* One record of a 7.4 file (13-byte headers). */
typedef struct fw_rec {
    size_t at;           /* offset of the header */
    uint32_t end;        /* end offset */
    uint32_t num_values; /* values */
    uint32_t values_len; /* bytes of the values */
    char name[256];
    size_t values; /* offset of the first value */
} fw_rec;

static inline bool fw_read(const unsigned char *d, size_t size, size_t at, fw_rec *r)
{
    if (at + 13 > size) return false;
    r->at = at;
    r->end = ts_le32(d + at);
    r->num_values = ts_le32(d + at + 4);
    r->values_len = ts_le32(d + at + 8);
    unsigned n = d[at + 12];
    if (at + 13 + n > size) return false;
    memcpy(r->name, d + at + 13, n);
    r->name[n] = 0;
    r->values = at + 13 + n;
    return true;
}

/* The child named `name` (the first at or after record `after`'s end when
 * `after` is given) of the record at `parent` (0: the top level). */
static inline bool fw_child(const unsigned char *d, size_t size, const fw_rec *parent,
                            const char *name, fw_rec *out)
{
    size_t at = parent ? parent->values + parent->values_len : 27;
    size_t stop = parent ? parent->end - 13 : size;
    while (at + 13 <= stop) {
        fw_rec r;
        if (!fw_read(d, size, at, &r) || r.end == 0) return false; /* the null record */
        if (strcmp(r.name, name) == 0) {
            *out = r;
            return true;
        }
        at = r.end;
    }
    return false;
}

/* The next sibling named like `r`, inside `parent` (0: the top level). */
static inline bool fw_next(const unsigned char *d, size_t size, const fw_rec *parent,
                           const fw_rec *r, fw_rec *out)
{
    size_t stop = parent ? parent->end - 13 : size;
    for (size_t at = r->end; at + 13 <= stop;) {
        fw_rec x;
        if (!fw_read(d, size, at, &x) || x.end == 0) return false;
        if (strcmp(x.name, r->name) == 0) {
            *out = x;
            return true;
        }
        at = x.end;
    }
    return false;
}

/* Value k of a record: its type code and the offset of its payload. */
static inline size_t fw_value(const unsigned char *d, const fw_rec *r, uint32_t k, char *type)
{
    size_t at = r->values;
    for (uint32_t i = 0;; i++) {
        char t = (char)d[at];
        if (i == k) {
            *type = t;
            return at + 1;
        }
        at++;
        switch (t) {
        case 'Y': at += 2; break;
        case 'C': at += 1; break;
        case 'I': case 'F': at += 4; break;
        case 'D': case 'L': at += 8; break;
        case 'S': case 'R': at += 4 + ts_le32(d + at); break;
        default: at += 12 + ts_le32(d + at + 8); break; /* arrays */
        }
    }
}

static inline int64_t fw_i64(const unsigned char *p)
{
    return (int64_t)((uint64_t)ts_le32(p) | (uint64_t)ts_le32(p + 4) << 32);
}

static inline double fw_f64(const unsigned char *p)
{
    uint64_t u = (uint64_t)fw_i64(p);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* -- Comparing a model with its round trip ---------------------------------- */

/* The reader's joint order (fbx.md §10.1): depth first, children in the
 * order the writer connects them (index order). order[k] is the source
 * joint of read joint k. */
static inline void fw_dfs_order(const ossa_model *m, uint32_t *order)
{
    uint32_t n = 0;
    uint32_t *stack = malloc((m->num_joints + 1) * sizeof *stack);
    uint32_t sp = 0;
    for (uint32_t r = m->num_joints; r-- > 0;)
        if (m->joints[r].parent < 0) stack[sp++] = r;
    while (sp) {
        uint32_t j = stack[--sp];
        order[n++] = j;
        for (uint32_t c = m->num_joints; c-- > 0;)
            if (m->joints[c].parent == (int32_t)j) stack[sp++] = c;
    }
    free(stack);
}

static inline void fw_vertex(const ossa_model *m, ossa_vertex_type type, const char *name,
                             uint32_t v, uint32_t n, float *out)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, name);
    float tmp[OSSA_MAX_COMPONENTS] = {0};
    for (uint32_t k = 0; k < n; k++) out[k] = 0;
    if (!a) return;
    assert_int_equal(ossa_vertex_array_read(m, a, v, 1, tmp), OSSA_OK);
    for (uint32_t k = 0; k < n && k < a->size; k++) out[k] = tmp[k];
}

static inline void fw_near(const float *a, const float *b, uint32_t n, double tol, const char *what)
{
    for (uint32_t k = 0; k < n; k++) {
        double scale = fabs(a[k]) > 1 ? fabs(a[k]) : 1;
        if (!(fabs((double)a[k] - b[k]) <= tol * scale)) {
            print_error("%s[%u]: %.9g vs %.9g (tolerance %g)\n", what, k, a[k], b[k], tol * scale);
            fail();
        }
    }
}

/* Influences of vertex v as a weight per joint (the source's joint
 * numbers; `inverse` maps the read model's), normalized, largest 4. */
static inline void fw_weights(const ossa_model *m, uint32_t v, const uint32_t *map, double *per_joint)
{
    float idx[OSSA_MAX_COMPONENTS], wgt[OSSA_MAX_COMPONENTS];
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    memset(per_joint, 0, m->num_joints * sizeof *per_joint);
    if (!bi || !bw) return;
    fw_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, v, bi->size, idx);
    fw_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, v, bw->size, wgt);
    double sum = 0;
    for (uint32_t k = 0; k < bi->size && k < bw->size; k++)
        if (wgt[k] > 0 && idx[k] < (float)m->num_joints) {
            per_joint[map ? map[(uint32_t)idx[k]] : (uint32_t)idx[k]] += wgt[k];
            sum += wgt[k];
        }
    for (uint32_t j = 0; j < m->num_joints && sum > 0; j++) per_joint[j] /= sum;
}

/* b, read from a's FBX, holds a: joints (in the reader's order), bind
 * poses, every triangle corner's attributes and weights, every frame;
 * within `tol` (relative above 1). */
static inline void fw_compare(const ossa_model *a, const ossa_model *b, double tol)
{
    assert_int_equal(b->num_joints, a->num_joints);
    uint32_t J = a->num_joints;
    uint32_t *order = malloc((J + 1) * sizeof *order), *back = malloc((J + 1) * sizeof *back);
    fw_dfs_order(a, order);
    for (uint32_t k = 0; k < J; k++) back[order[k]] = k;
    for (uint32_t k = 0; k < J; k++) {
        const ossa_joint *ja = &a->joints[order[k]], *jb = &b->joints[k];
        if (ja->name[0]) assert_string_equal(jb->name, ja->name);
        assert_int_equal(jb->parent, ja->parent < 0 ? -1 : (int32_t)back[ja->parent]);
        fw_near(ja->bind.translation, jb->bind.translation, 3, tol, "bind translation");
        fw_near(ja->bind.scale, jb->bind.scale, 3, tol, "bind scale");
        TS_ASSERT_QUAT_EQUIV(ja->bind.rotation, jb->bind.rotation, 1e-6);
    }
    /* Meshes: the non-empty ones, in order, triangle for triangle. */
    uint32_t mb = 0;
    const ossa_vertex_array *custom = NULL;
    for (uint32_t i = 0; i < a->num_vertex_arrays; i++)
        if (a->vertex_arrays[i].type == OSSA_VERTEX_CUSTOM && a->vertex_arrays[i].size == 2)
            custom = &a->vertex_arrays[i];
    double *wa = malloc((J + 1) * sizeof *wa), *wb = malloc((J + 1) * sizeof *wb);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        const ossa_mesh *ma = &a->meshes[i];
        if (!ma->num_triangles) continue;
        assert_true(mb < b->num_meshes);
        const ossa_mesh *mbm = &b->meshes[mb++];
        if (ma->name[0]) assert_string_equal(mbm->name, ma->name);
        assert_string_equal(mbm->material, ma->material);
        assert_int_equal(mbm->num_triangles, ma->num_triangles);
        for (uint32_t t = 0; t < ma->num_triangles; t++)
            for (int c = 0; c < 3; c++) {
                uint32_t va = a->triangles[ma->first_triangle + t].v[c];
                uint32_t vb = b->triangles[mbm->first_triangle + t].v[c];
                static const struct {
                    ossa_vertex_type type;
                    uint32_t n;
                    double tol;
                } kinds[] = {{OSSA_VERTEX_POSITION, 3, 1e-6}, {OSSA_VERTEX_NORMAL, 3, 1e-6},
                             {OSSA_VERTEX_TEXCOORD, 2, 1e-6}, {OSSA_VERTEX_COLOR, 4, 1e-6},
                             {OSSA_VERTEX_TANGENT, 4, 1e-6}};
                for (size_t q = 0; q < sizeof kinds / sizeof kinds[0]; q++) {
                    if (!ossa_model_find_array(a, kinds[q].type, NULL)) continue;
                    float fa[4], fb[4];
                    fw_vertex(a, kinds[q].type, NULL, va, kinds[q].n, fa);
                    fw_vertex(b, kinds[q].type, NULL, vb, kinds[q].n, fb);
                    const ossa_vertex_array *arr = ossa_model_find_array(a, kinds[q].type, NULL);
                    if (kinds[q].type == OSSA_VERTEX_COLOR && arr->size < 4) fa[3] = 1;
                    if (kinds[q].type == OSSA_VERTEX_TANGENT && arr->size < 4) fa[3] = 1;
                    if (kinds[q].type == OSSA_VERTEX_NORMAL) {
                        /* the reader normalizes directions */
                        double len = sqrt((double)fa[0] * fa[0] + (double)fa[1] * fa[1] + (double)fa[2] * fa[2]);
                        for (int k = 0; k < 3 && len > 0; k++) fa[k] = (float)(fa[k] / len);
                    }
                    fw_near(fa, fb, kinds[q].n == 4 && kinds[q].type == OSSA_VERTEX_TANGENT ? 3 : kinds[q].n,
                            kinds[q].tol, ossa_vertex_type_name(kinds[q].type));
                    if (kinds[q].type == OSSA_VERTEX_TANGENT) assert_true(fa[3] * fb[3] > 0);
                }
                if (custom) {
                    float fa[2], fb[2];
                    fw_vertex(a, OSSA_VERTEX_CUSTOM, custom->name, va, 2, fa);
                    fw_vertex(b, OSSA_VERTEX_CUSTOM, custom->name, vb, 2, fb);
                    fw_near(fa, fb, 2, 1e-6, custom->name);
                }
                if (J && ossa_model_find_array(a, OSSA_VERTEX_BLENDWEIGHTS, NULL)) {
                    fw_weights(a, va, NULL, wa);
                    fw_weights(b, vb, order, wb);
                    for (uint32_t j = 0; j < J; j++)
                        if (fabs(wa[j] - wb[j]) > 1e-5) {
                            print_error("mesh %u triangle %u corner %d joint %u: weight %g vs %g\n",
                                        i, t, c, j, wa[j], wb[j]);
                            fail();
                        }
                }
            }
    }
    assert_int_equal(b->num_meshes, mb);
    free(wa);
    free(wb);
    /* Animations: those with frames, frame for frame. */
    uint32_t ab = 0;
    for (uint32_t i = 0; i < a->num_animations && J; i++) {
        const ossa_animation *aa = &a->animations[i];
        if (!aa->num_frames) continue;
        assert_true(ab < b->num_animations);
        const ossa_animation *an = &b->animations[ab++];
        char unnamed[32];
        snprintf(unnamed, sizeof unnamed, "animation%u", i);
        assert_string_equal(an->name, aa->name[0] ? aa->name : unnamed);
        /* Every animation keeps its frames, rate and loop flag (the
         * stack's ossa|FrameRate and ossa|Loop), whatever the file's rate. */
        float rate = aa->framerate > 0 ? aa->framerate : OSSA_DEFAULT_FRAMERATE;
        assert_int_equal(an->num_frames, aa->num_frames);
        assert_true(an->framerate == rate);
        assert_int_equal(an->flags & OSSA_ANIMATION_LOOP, aa->flags & OSSA_ANIMATION_LOOP);
        for (uint32_t f = 0; f < aa->num_frames; f++)
            for (uint32_t k = 0; k < J; k++) {
                const ossa_transform *ta = &aa->frames[(size_t)f * J + order[k]];
                const ossa_transform *tb = &an->frames[(size_t)f * J + k];
                fw_near(ta->translation, tb->translation, 3, tol, "frame translation");
                fw_near(ta->scale, tb->scale, 3, tol, "frame scale");
                TS_ASSERT_QUAT_EQUIV(ta->rotation, tb->rotation, 2e-6);
            }
    }
    assert_int_equal(b->num_animations, ab);
    free(order);
    free(back);
}

#endif
