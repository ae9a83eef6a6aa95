/* The IQM writer: round trips of the real files, the layout of §5,
 * adjacency by §10 computed here from the written bytes, bounds (§9),
 * comments and extensions. Quantization is in test_iqm_quantize.c, the
 * file writer in test_write_file.c. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decoded frames of `b` are those of `a` up to half a quantization step of
 * the original file (its channelscale per pose and channel, from the
 * independent decoder), plus the float rounding of decoding (1 ulp each). */
static void assert_frames_close(const ossa_model *a, const ossa_model *b, const unsigned char *orig)
{
    assert_int_equal(a->num_animations, b->num_animations);
    assert_int_equal(a->num_joints, b->num_joints);
    uint32_t nj = a->num_joints;
    for (uint32_t n = 0; n < a->num_animations; n++) {
        assert_int_equal(a->animations[n].num_frames, b->animations[n].num_frames);
        for (uint32_t f = 0; f < a->animations[n].num_frames; f++)
            for (uint32_t j = 0; j < nj; j++) {
                const ossa_transform *x = &a->animations[n].frames[(size_t)f * nj + j];
                const ossa_transform *y = &b->animations[n].frames[(size_t)f * nj + j];
                ts_iqm_pose pose;
                ts_iqm_pose_at(orig, j, &pose);
                float dot = 0;
                for (int k = 0; k < 4; k++) dot += x->rotation[k] * y->rotation[k];
                for (int k = 0; k < 10; k++) {
                    /* q and -q are one rotation: the writer may flip the sign (§8.2). */
                    double u = ts_channel(x, k);
                    double v = ts_channel(y, k);
                    if (k >= 3 && k < 7 && dot < 0) v = -v;
                    double tol = (pose.mask >> k & 1) ? 0.5 * pose.scale[k] * 1.0001 : 0;
                    tol += 2 * ts_ulp(fmax(fabs(u), fabs(v)));
                    if (fabs(u - v) > tol)
                        print_error("anim %u frame %u joint %u channel %d\n", n, f, j, k);
                    TS_ASSERT_NEAR(u, v, tol);
                }
            }
    }
}

static void test_guy_round_trip(void **state)
{
    (void)state;
    unsigned char *file;
    size_t file_size, s1, s1b, s2;
    ossa_model *m1 = ts_load_shared("iqm/guy.iqm", &file, &file_size);
    unsigned char *w1 = ts_write(m1, NULL, &s1);
    unsigned char *w1b = ts_write(m1, NULL, &s1b);
    ossa_model *m2 = ts_load(w1, s1);

    /* Deterministic: the same model gives the same bytes. */
    assert_int_equal(s1, s1b);
    assert_memory_equal(w1, w1b, s1);

    assert_int_equal(m2->num_joints, 14);
    assert_int_equal(m2->num_vertices, 240);
    assert_int_equal(m2->num_triangles, 120);
    assert_int_equal(m2->num_meshes, 1);
    assert_int_equal(m2->num_vertex_arrays, 6);
    assert_int_equal(m2->num_warnings, 0);
    assert_string_equal(m2->meshes[0].name, "Cube.005");
    assert_string_equal(m2->meshes[0].material, m1->meshes[0].material);
    for (uint32_t j = 0; j < 14; j++) {
        assert_string_equal(m2->joints[j].name, m1->joints[j].name);
        assert_int_equal(m2->joints[j].parent, m1->joints[j].parent);
        for (int k = 0; k < 3; k++) {
            assert_true(m2->joints[j].bind.translation[k] == m1->joints[j].bind.translation[k]);
            assert_true(m2->joints[j].bind.scale[k] == m1->joints[j].bind.scale[k]);
        }
        TS_ASSERT_QUAT_EQUIV(m2->joints[j].bind.rotation, m1->joints[j].bind.rotation, 1e-7);
    }
    for (uint32_t i = 0; i < 6; i++) {
        const ossa_vertex_array *a = &m1->vertex_arrays[i], *b = &m2->vertex_arrays[i];
        assert_int_equal(a->type, b->type);
        assert_int_equal(a->format, b->format);
        assert_int_equal(a->size, b->size);
        assert_memory_equal(a->data, b->data, 240u * a->size * ossa_component_size(a->format));
    }
    assert_memory_equal(m1->triangles, m2->triangles, 120 * sizeof(ossa_triangle));
    for (uint32_t n = 0; n < 2; n++) {
        assert_string_equal(m2->animations[n].name, m1->animations[n].name);
        assert_true(m2->animations[n].framerate == m1->animations[n].framerate);
        assert_int_equal(m2->animations[n].flags, m1->animations[n].flags);
        assert_non_null(m2->animations[n].bounds);
    }
    assert_frames_close(m1, m2, file);

    /* A fixed point after one trip: write(read(write(x))) == write(x). */
    unsigned char *w2 = ts_write(m2, NULL, &s2);
    assert_int_equal(s2, s1);
    assert_memory_equal(w2, w1, s1);

    ossa_free(w2, NULL);
    ossa_free(w1b, NULL);
    ossa_free(w1, NULL);
    ossa_model_free(m2);
    ossa_model_free(m1);
    free(file);
}

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

/* §5: the order and padding of the compiler's layout, on written guy.iqm. */
static void test_guy_layout(void **state)
{
    (void)state;
    unsigned char *file;
    size_t file_size, size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &file_size);
    unsigned char *w = ts_write(m, NULL, &size);
#define H(field) ts_iqm_header(w, TS_IQM_##field)
    assert_memory_equal(w, "INTERQUAKEMODEL", 16);
    assert_int_equal(H(VERSION), 2);
    assert_int_equal(H(FILESIZE), size);
    assert_int_equal(H(FLAGS), 0);
    /* Every offset is a multiple of 4 (§1). */
    const int offsets[] = {TS_IQM_OFS_TEXT,      TS_IQM_OFS_MESHES,    TS_IQM_OFS_VERTEXARRAYS,
                           TS_IQM_OFS_TRIANGLES, TS_IQM_OFS_ADJACENCY, TS_IQM_OFS_JOINTS,
                           TS_IQM_OFS_POSES,     TS_IQM_OFS_ANIMS,     TS_IQM_OFS_FRAMES,
                           TS_IQM_OFS_BOUNDS,    TS_IQM_OFS_COMMENT,   TS_IQM_OFS_EXTENSIONS};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
        assert_int_equal(ts_iqm_header(w, offsets[i]) % 4, 0);

    /* Text right after the header, first string empty, NUL-padded to 4. */
    assert_int_equal(H(OFS_TEXT), 124);
    assert_int_equal(w[124], 0);
    assert_int_equal(H(NUM_TEXT) % 4, 0);
    assert_int_equal(w[124 + H(NUM_TEXT) - 1], 0);

    /* Meshes, vertex array records, then the 8-aligned vertex data with each
     * array aligned to max(component size, 4) from that start, in type order. */
    assert_int_equal(H(OFS_MESHES), 124 + H(NUM_TEXT));
    assert_int_equal(H(OFS_VERTEXARRAYS), H(OFS_MESHES) + 24 * H(NUM_MESHES));
    uint32_t start = align_up(H(OFS_VERTEXARRAYS) + 20 * H(NUM_VERTEXARRAYS), 8);
    uint32_t at = start, prev_type = 0;
    for (uint32_t i = 0; i < H(NUM_VERTEXARRAYS); i++) {
        const unsigned char *r = w + H(OFS_VERTEXARRAYS) + 20 * i;
        uint32_t type = ts_le32(r), format = ts_le32(r + 8), n = ts_le32(r + 12);
        uint32_t cs = (uint32_t)ossa_component_size((ossa_component)format);
        uint32_t align = cs > 4 ? cs : 4;
        assert_true(type >= prev_type);
        prev_type = type;
        assert_int_equal(ts_le32(r + 4), 0); /* flags */
        at = start + align_up(at - start, align);
        assert_int_equal(ts_le32(r + 16), at);
        at += H(NUM_VERTEXES) * n * cs;
    }
    assert_int_equal(start % 8, 0);
    assert_int_equal(H(OFS_TRIANGLES), align_up(at, 4));
    assert_int_equal(H(OFS_ADJACENCY), H(OFS_TRIANGLES) + 12 * H(NUM_TRIANGLES));
    assert_int_equal(H(OFS_JOINTS), H(OFS_ADJACENCY) + 12 * H(NUM_TRIANGLES));
    assert_int_equal(H(OFS_POSES), H(OFS_JOINTS) + 48 * H(NUM_JOINTS));
    assert_int_equal(H(OFS_ANIMS), H(OFS_POSES) + 88 * H(NUM_POSES));
    assert_int_equal(H(OFS_FRAMES), H(OFS_ANIMS) + 20 * H(NUM_ANIMS));
    assert_int_equal(H(OFS_BOUNDS),
                     align_up(H(OFS_FRAMES) + 2 * H(NUM_FRAMES) * H(NUM_FRAMECHANNELS), 4));
    assert_int_equal(size, H(OFS_BOUNDS) + 32 * H(NUM_FRAMES));
    assert_int_equal(H(NUM_COMMENT), 0);
    assert_int_equal(H(OFS_COMMENT), 0);
    assert_int_equal(H(NUM_EXTENSIONS), 0);
    assert_int_equal(H(NUM_FRAMES), 122);

    /* Joints with w <= 0 (§8.2); poses repeat the parents; the mask popcounts
     * add up to num_framechannels; constant channels have scale 0. */
    uint32_t channels = 0;
    for (uint32_t j = 0; j < 14; j++) {
        ts_iqm_joint jt;
        ts_iqm_joint_at(w, j, &jt);
        assert_true(jt.q[3] <= 0);
        ts_iqm_pose p, orig;
        ts_iqm_pose_at(w, j, &p);
        ts_iqm_pose_at(file, j, &orig);
        assert_int_equal(p.parent, jt.parent);
        channels += (uint32_t)ts_popcount(p.mask);
        assert_int_equal(p.mask >> 10, 0);
        for (int k = 0; k < 10; k++) {
            if (!(p.mask >> k & 1)) assert_true(p.scale[k] == 0);
            /* Constant in the original file: constant here, same value. */
            if (!(orig.mask >> k & 1)) {
                assert_int_equal(p.mask >> k & 1, 0);
                assert_true(p.offset[k] == orig.offset[k]);
            }
        }
        /* guy's scale channels are constant 1 except on joint 1 ("body"). */
        if (j != 1)
            for (int k = 7; k < 10; k++) {
                assert_int_equal(p.mask >> k & 1, 0);
                assert_true(p.offset[k] == 1);
            }
        /* Every decoded frame keeps w <= 0 too (§11). */
        for (uint32_t g = 0; g < 122; g++) {
            float v[10];
            ts_iqm_channels(w, g, j, v);
            assert_true(v[6] <= 0);
        }
    }
    assert_int_equal(channels, H(NUM_FRAMECHANNELS));
#undef H
    ossa_free(w, NULL);
    ossa_model_free(m);
    free(file);
}

static void adjacency_by_spec(const unsigned char *w, uint32_t *out)
{
    uint32_t nt = ts_iqm_header(w, TS_IQM_NUM_TRIANGLES),
             nva = ts_iqm_header(w, TS_IQM_NUM_VERTEXARRAYS);
    const unsigned char *pos = NULL, *bi = NULL, *bw = NULL;
    for (uint32_t i = 0; i < nva; i++) {
        const unsigned char *r = w + ts_iqm_header(w, TS_IQM_OFS_VERTEXARRAYS) + 20 * i;
        const unsigned char *data = w + ts_le32(r + 16);
        if (ts_le32(r) == 0) pos = data;
        if (ts_le32(r) == 4) bi = data;
        if (ts_le32(r) == 5) bw = data;
    }
    assert_true(pos && bi && bw);
    const unsigned char *tri = w + ts_iqm_header(w, TS_IQM_OFS_TRIANGLES);
#define VERTEX(t, k) ts_le32(tri + 12 * (t) + 4 * ((k) % 3))
#define SAME(a, b)                                                                                 \
    (memcmp(pos + 12 * (a), pos + 12 * (b), 12) == 0 &&                                            \
     memcmp(bi + 4 * (a), bi + 4 * (b), 4) == 0 && memcmp(bw + 4 * (a), bw + 4 * (b), 4) == 0)
    for (uint32_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = VERTEX(t, k), b = VERTEX(t, k + 1), uses = 0, other = 0;
            for (uint32_t u = 0; u < nt; u++)
                for (int l = 0; l < 3; l++) {
                    uint32_t c = VERTEX(u, l), d = VERTEX(u, l + 1);
                    if ((SAME(a, c) && SAME(b, d)) || (SAME(a, d) && SAME(b, c))) {
                        uses++;
                        if (u != t || l != k) other = u;
                    }
                }
            out[3 * t + k] = uses == 2 ? other : UINT32_MAX;
        }
#undef VERTEX
#undef SAME
}

static void test_guy_adjacency(void **state)
{
    (void)state;
    unsigned char *file;
    size_t file_size, size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &file_size);
    unsigned char *w = ts_write(m, NULL, &size);
    uint32_t expect[360];
    adjacency_by_spec(w, expect);
    const unsigned char *adj = w + ts_iqm_header(w, TS_IQM_OFS_ADJACENCY);
    uint32_t linked = 0;
    for (uint32_t i = 0; i < 360; i++) {
        uint32_t got = ts_le32(adj + 4 * i);
        assert_int_equal(got, expect[i]);
        if (got == UINT32_MAX) continue;
        linked++;
        /* Symmetric: the neighbour lists this triangle back on one edge. */
        uint32_t back = 0;
        for (int k = 0; k < 3; k++) back += ts_le32(adj + 12 * got + 4 * k) == i / 3;
        assert_true(back >= 1);
    }
    assert_true(linked > 300); /* guy is mostly closed: not a vacuous check */
    /* guy.iqm's own adjacency came from the Blender exporter, which follows
     * §10 closely: an outside reference that must agree. */
    const unsigned char *stored = file + ts_iqm_header(file, TS_IQM_OFS_ADJACENCY);
    assert_memory_equal(adj, stored, 360 * 4);
    /* The library's own function agrees with the file it wrote. */
    uint32_t computed[360];
    ossa_error err;
    assert_int_equal(ossa_model_compute_adjacency(m, computed, &err), OSSA_OK);
    assert_memory_equal(computed, expect, sizeof expect);
    ossa_free(w, NULL);
    ossa_model_free(m);
    free(file);
}

static void test_guy_bounds(void **state)
{
    (void)state;
    unsigned char *file;
    size_t file_size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &file_size);
    ossa_bounds exact[61], loose[61];
    ossa_error err;
    double worst = 0;
    for (uint32_t a = 0; a < 2; a++) {
        const ossa_animation *an = &m->animations[a];
        assert_int_equal(ossa_model_compute_bounds(m, a, OSSA_BOUNDS_EXACT, exact, &err), OSSA_OK);
        assert_int_equal(ossa_model_compute_bounds(m, a, OSSA_BOUNDS_CONSERVATIVE, loose, &err), OSSA_OK);
        for (uint32_t f = 0; f < 61; f++) {
            const ossa_bounds *s = &an->bounds[f], *e = &exact[f], *c = &loose[f];
            /* The file's bounds came from the exporter's unquantized poses,
             * ours from the decoded ones: rotation channels are off by up to
             * half a step (3.4e-6 in guy), which moves a vertex 21 units out
             * by ~1e-4 (measured: 9.9e-5 on the box, 1.05e-4 on the radius,
             * in both directions, so neither box contains the other). The
             * tolerance is 1e-5 of the model's extent. */
            double tol = 1e-5 * (1 + s->radius);
            for (int k = 0; k < 3; k++) {
                worst = fmax(worst, fmax(fabs(e->min[k] - s->min[k]), fabs(e->max[k] - s->max[k])));
                TS_ASSERT_NEAR(e->min[k], s->min[k], tol);
                TS_ASSERT_NEAR(e->max[k], s->max[k], tol);
                /* Conservative bounds contain the exact box. */
                assert_true(c->min[k] <= e->min[k]);
                assert_true(c->max[k] >= e->max[k]);
            }
            TS_ASSERT_NEAR(e->radius, s->radius, tol);
            TS_ASSERT_NEAR(e->xy_radius, s->xy_radius, tol);
            assert_true(c->radius >= e->radius);
            assert_true(c->xy_radius >= e->xy_radius);
        }
    }
    printf("guy.iqm: exact bounds within %.3g of the stored ones\n", worst);

    /* OSSA_BOUNDS_EXACT as a write option stores those same exact bounds,
     * and OSSA_BOUNDS_STORED keeps the file's records byte for byte. */
    ossa_write_options o = {.format = OSSA_FORMAT_IQM, .bounds = OSSA_BOUNDS_EXACT};
    size_t size;
    unsigned char *w = ts_write(m, &o, &size);
    assert_int_equal(ossa_model_compute_bounds(m, 1, OSSA_BOUNDS_EXACT, exact, &err), OSSA_OK);
    const unsigned char *rec = w + ts_iqm_header(w, TS_IQM_OFS_BOUNDS) + 32 * 61;
    for (uint32_t f = 0; f < 61; f++)
        for (int k = 0; k < 3; k++) assert_true(ts_lef32(rec + 32 * f + 4 * k) == exact[f].min[k]);
    ossa_free(w, NULL);
    o.bounds = OSSA_BOUNDS_STORED;
    w = ts_write(m, &o, &size);
    assert_memory_equal(w + ts_iqm_header(w, TS_IQM_OFS_BOUNDS),
                        file + ts_iqm_header(file, TS_IQM_OFS_BOUNDS), 122 * 32);
    ossa_free(w, NULL);
    o.bounds = OSSA_BOUNDS_NONE;
    w = ts_write(m, &o, &size);
    assert_int_equal(ts_iqm_header(w, TS_IQM_OFS_BOUNDS), 0);
    ossa_free(w, NULL);
    ossa_model_free(m);
    free(file);
}

/* Conservative bounds contain the exact ones on every frame of every
 * animation of real models (boxes and both radii, after rounding to
 * float). */
static void test_conservative_contains_exact(void **state)
{
    (void)state;
    static const char *const files[] = {"iqm/guy.iqm", "gltf/Fox.glb", "gltf/CesiumMan.glb",
                                        "gltf/RiggedFigure.glb", "gltf/RiggedSimple.glb"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        unsigned char *file;
        size_t file_size;
        ossa_model *m = ts_load_shared(files[i], &file, &file_size);
        double slack = 0;
        for (uint32_t a = 0; a < m->num_animations; a++) {
            uint32_t n = m->animations[a].num_frames;
            ossa_bounds *exact = calloc(n + 1, sizeof *exact), *loose = calloc(n + 1, sizeof *loose);
            assert_true(exact && loose);
            ossa_error err;
            assert_int_equal(ossa_model_compute_bounds(m, a, OSSA_BOUNDS_EXACT, exact, &err), OSSA_OK);
            assert_int_equal(ossa_model_compute_bounds(m, a, OSSA_BOUNDS_CONSERVATIVE, loose, &err),
                             OSSA_OK);
            for (uint32_t f = 0; f < n; f++) {
                for (int k = 0; k < 3; k++) {
                    assert_true(loose[f].min[k] <= exact[f].min[k]);
                    assert_true(loose[f].max[k] >= exact[f].max[k]);
                    slack = fmax(slack, fmax(exact[f].min[k] - loose[f].min[k],
                                             loose[f].max[k] - exact[f].max[k]));
                }
                assert_true(loose[f].radius >= exact[f].radius);
                assert_true(loose[f].xy_radius >= exact[f].xy_radius);
            }
            free(exact);
            free(loose);
        }
        printf("%s: conservative boxes at most %.3g beyond the exact ones\n", files[i], slack);
        ossa_model_free(m);
        free(file);
    }
}

/* Threads share the frames (quantization, decoding, bounds): the bytes do
 * not depend on how many. guy's animations resampled to 400 fps have
 * enough frames (over 64 per worker) for every count tried to split them. */
static void test_threads_same_bytes(void **state)
{
    (void)state;
    unsigned char *file;
    size_t file_size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &file_size);
    ossa_error err;
    for (uint32_t a = 0; a < m->num_animations; a++)
        assert_int_equal(ossa_model_resample_animation(m, a, 400, &err), OSSA_OK);
    assert_true(m->animations[0].num_frames > 64 * 7);
    static const ossa_bounds_mode modes[] = {OSSA_BOUNDS_CONSERVATIVE, OSSA_BOUNDS_EXACT};
    for (int i = 0; i < 2; i++) {
        ossa_write_options o = {.format = OSSA_FORMAT_IQM, .bounds = modes[i], .threads = 1};
        size_t size1, size;
        unsigned char *one = ts_write(m, &o, &size1);
        static const uint32_t counts[] = {0, 2, 3, 7, 64, 1000};
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            o.threads = counts[c];
            unsigned char *w = ts_write(m, &o, &size);
            assert_int_equal(size, size1);
            assert_memory_equal(w, one, size);
            ossa_free(w, NULL);
        }
        ossa_free(one, NULL);
    }
    /* A value that is not finite, late in the frames, is named the same
     * way whatever the threads: its animation, frame and joint. */
    ossa_animation *an = &m->animations[1];
    uint32_t frame = an->num_frames - 3, joint = 5;
    an->frames[(size_t)frame * m->num_joints + joint].scale[1] = INFINITY;
    char expected[200];
    snprintf(expected, sizeof expected, "animation '%s', frame %u, joint %u: value not finite",
             an->name, frame, joint);
    for (uint32_t threads = 1; threads <= 3; threads++) {
        ossa_write_options o = {.format = OSSA_FORMAT_IQM, .threads = threads};
        void *data;
        size_t size;
        assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
        assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
        assert_string_equal(err.message, expected);
    }
    ossa_model_free(m);
    free(file);
}

static void test_comment_and_extensions(void **state)
{
    (void)state;
    unsigned char *file;
    size_t file_size, size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &file_size);
    ossa_error err;
    static const char comment[] = "made by a test\0with a NUL inside"; /* 32 bytes + NUL */
    const unsigned char blob[7] = {1, 2, 3, 0, 5, 6, 7};
    assert_int_equal(ossa_model_set_comment(m, comment, sizeof comment - 1, &err), OSSA_OK);
    assert_int_equal(ossa_model_add_extra(m, "iqm.extension:ossa.test", blob, sizeof blob, &err),
                     OSSA_OK);
    assert_int_equal(ossa_model_add_extra(m, "other.format:thing", "x", 1, &err), OSSA_OK);
    assert_int_equal(ossa_model_add_extra(m, "iqm.extension:empty", NULL, 0, &err), OSSA_OK);
    unsigned char *w = ts_write(m, NULL, &size);

    /* The comment: NUL-terminated, padded to 4, the padding counted (§5). */
    uint32_t nc = ts_iqm_header(w, TS_IQM_NUM_COMMENT), oc = ts_iqm_header(w, TS_IQM_OFS_COMMENT);
    assert_int_equal(nc, align_up(sizeof comment, 4));
    assert_memory_equal(w + oc, comment, sizeof comment);
    /* Extensions: a linked list of the two IQM ones, in order. */
    assert_int_equal(ts_iqm_header(w, TS_IQM_NUM_EXTENSIONS), 2);
    uint32_t e = ts_iqm_header(w, TS_IQM_OFS_EXTENSIONS);
    assert_string_equal(ts_iqm_text(w, ts_le32(w + e)), "ossa.test");
    assert_int_equal(ts_le32(w + e + 4), sizeof blob);
    assert_memory_equal(w + ts_le32(w + e + 8), blob, sizeof blob);
    e = ts_le32(w + e + 12);
    assert_true(e != 0 && e % 4 == 0);
    assert_string_equal(ts_iqm_text(w, ts_le32(w + e)), "empty");
    assert_int_equal(ts_le32(w + e + 4), 0);
    assert_int_equal(ts_le32(w + e + 12), 0);

    ossa_model *back = ts_load(w, size);
    assert_int_equal(back->comment_size, sizeof comment - 1);
    assert_memory_equal(back->comment, comment, sizeof comment);
    assert_int_equal(back->num_extras, 2); /* the non-IQM extra is not IQM's to keep */
    assert_string_equal(back->extras[0].key, "iqm.extension:ossa.test");
    assert_int_equal(back->extras[0].size, sizeof blob);
    assert_memory_equal(back->extras[0].data, blob, sizeof blob);
    assert_string_equal(back->extras[1].key, "iqm.extension:empty");
    assert_int_equal(back->extras[1].size, 0);
    ossa_model_free(back);
    ossa_free(w, NULL);
    ossa_model_free(m);
    free(file);
}

static void test_guyanim_round_trip(void **state)
{
    (void)state;
    unsigned char *file;
    size_t file_size, size;
    ossa_model *m = ts_load_shared("iqm/guyanim.iqm", &file, &file_size);
    unsigned char *w = ts_write(m, NULL, &size);
    /* Still animation-only: no joints, 14 poses, no geometry, no bounds. */
    assert_int_equal(ts_iqm_header(w, TS_IQM_NUM_JOINTS), 0);
    assert_int_equal(ts_iqm_header(w, TS_IQM_OFS_JOINTS), 0);
    assert_int_equal(ts_iqm_header(w, TS_IQM_NUM_POSES), 14);
    assert_int_equal(ts_iqm_header(w, TS_IQM_NUM_MESHES), 0);
    assert_int_equal(ts_iqm_header(w, TS_IQM_NUM_VERTEXES), 0);
    assert_int_equal(ts_iqm_header(w, TS_IQM_OFS_BOUNDS), 0);
    assert_int_equal(ts_iqm_header(w, TS_IQM_NUM_ANIMS), 2);
    assert_int_equal(ts_iqm_header(w, TS_IQM_NUM_FRAMES), 122);
    ossa_model *back = ts_load(w, size);
    assert_true(back->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    assert_int_equal(back->num_joints, 14);
    for (uint32_t j = 0; j < 14; j++) {
        assert_string_equal(back->joints[j].name, "");
        assert_int_equal(back->joints[j].parent, m->joints[j].parent);
    }
    assert_frames_close(m, back, file);
    ossa_model_free(back);
    ossa_free(w, NULL);
    ossa_model_free(m);
    free(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guy_round_trip),
        cmocka_unit_test(test_guy_layout),
        cmocka_unit_test(test_guy_adjacency),
        cmocka_unit_test(test_guy_bounds),
        cmocka_unit_test(test_conservative_contains_exact),
        cmocka_unit_test(test_threads_same_bytes),
        cmocka_unit_test(test_comment_and_extensions),
        cmocka_unit_test(test_guyanim_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
