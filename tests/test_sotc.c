/* SOTC XFF, .skb and .nmo (docs/formats/sotc.md §2, §4-§7, §9), and a whole
 * character: a skeleton, a mesh and two animations written by the library
 * from a model built here, loaded and merged as `ossa convert knight.skb
 * knight.nmo walk.anb run.anb -o knight.iqm` does, converted to IQM and
 * posed, then checked against a step-by-step evaluation of the SOTC
 * convention (§5, §6) written in this file. Also malformed containers, a
 * hand-built VIF stream, truncation at every byte and random patches. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -- Quaternions, the SOTC way (§5): stored q = (x, y, z, w); dormin rotates
 *    a point by the textbook formula with w replaced by -w and composes
 *    globals as Q_i = L_i (x) Q_parent. -- */

static void hamilton(const double a[4], const double b[4], double out[4])
{
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof r);
}

/* v' = q' v q'^-1 with q' = (x, y, z, -w): dormin's point rotation. */
static void dormin_rotate(const double q[4], const double v[3], double out[3])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double p[4] = {q[0] / n, q[1] / n, q[2] / n, -q[3] / n};
    double pc[4] = {-p[0], -p[1], -p[2], p[3]}, vq[4] = {v[0], v[1], v[2], 0}, t[4], r[4];
    hamilton(p, vq, t);
    hamilton(t, pc, r);
    memcpy(out, r, 3 * sizeof *out);
}

/* Globals of a SOTC skeleton: rotation Q_i (stored convention) and
 * position P_i = P_parent + rotate(Q_parent, T_i). */
typedef struct sotc_pose {
    double q[8][4], p[8][3];
} sotc_pose;

static void sotc_globals(uint32_t n, const int32_t *parent, const double (*local_q)[4],
                         const double (*t)[3], sotc_pose *out)
{
    for (uint32_t i = 0; i < n; i++) {
        int32_t pa = parent[i];
        if (pa < 0) {
            memcpy(out->q[i], local_q[i], sizeof out->q[i]);
            memcpy(out->p[i], t[i], sizeof out->p[i]);
            continue;
        }
        hamilton(local_q[i], out->q[pa], out->q[i]);
        double r[3];
        dormin_rotate(out->q[pa], t[i], r);
        for (int k = 0; k < 3; k++) out->p[i][k] = out->p[pa][k] + r[k];
    }
}

/* Compares an ossa model matrix with a SOTC global (rotation columns are
 * the rotated unit axes). */
static void expect_global(const float m[16], const sotc_pose *s, uint32_t i, double tol)
{
    for (int c = 0; c < 3; c++) {
        double e[3] = {c == 0, c == 1, c == 2}, r[3];
        dormin_rotate(s->q[i], e, r);
        for (int k = 0; k < 3; k++) TS_ASSERT_NEAR(m[c * 4 + k], r[k], tol);
    }
    for (int k = 0; k < 3; k++) TS_ASSERT_NEAR(m[12 + k], s->p[i][k], tol);
}

/* -- A minimal XFF (§2) around hand-made .rodata -- */

static unsigned char *wrap_xff(const unsigned char *ro, size_t ro_size, uint32_t entry,
                               size_t *size)
{
    size_t total = 0x100 + ro_size;
    unsigned char *f = calloc(1, total);
    assert_non_null(f);
    memcpy(f, "xff\0", 4);
    ts_put32(f + 0x14, (uint32_t)total);
    ts_put32(f + 0x40, 2);
    ts_put32(f + 0x4C, entry);
    ts_put32(f + 0x5C, 0x78);
    ts_put32(f + 0x78 + 0x10, 8);
    ts_put32(f + 0x98 + 0x08, (uint32_t)ro_size);
    ts_put32(f + 0x98 + 0x10, 1);
    ts_put32(f + 0x98 + 0x1C, 0x100);
    memcpy(f + 0x100, ro, ro_size);
    *size = total;
    return f;
}

static ossa_error load_error(const unsigned char *f, size_t size, ossa_format format)
{
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_load_options o = {.format = format};
    ossa_model *m = ossa_load_memory(f, size, &o, &err);
    assert_null(m);
    return err;
}

/* -- The character -- */

#define NJ 4
#define NTRI 4

static const char *const joint_names[NJ] = {"root", "spine", "arm", "hand"};
static const int32_t joint_parent[NJ] = {-1, 0, 1, 2};
static const float joint_t[NJ][3] = {{0, 0, 0.5f}, {0, 0, 1}, {0.5f, 0, 0.5f}, {0.4f, 0.1f, 0}};

static void axis_angle(double x, double y, double z, double angle, double q[4])
{
    double n = sqrt(x * x + y * y + z * z), s = sin(angle / 2) / n;
    q[0] = x * s;
    q[1] = y * s;
    q[2] = z * s;
    q[3] = cos(angle / 2);
}

/* The usual (active) rotation of joint j in the bind pose and in frame f
 * of animation a (-1 = bind). */
static void source_rotation(int a, uint32_t f, uint32_t j, double q[4])
{
    double t = (double)f;
    if (a < 0) {
        const double ax[NJ][4] = {{0, 0, 1, 0.2}, {1, 0, 0, 0.3}, {0, 1, 0, -0.4}, {1, 1, 0, 0.1}};
        axis_angle(ax[j][0], ax[j][1], ax[j][2], ax[j][3], q);
        return;
    }
    double k = a == 0 ? 0.3 : 0.7;
    switch (j) {
    case 0: axis_angle(0, 0, 1, 0.2, q); break;               /* still */
    case 1: axis_angle(1, 0, 0, 0.3 + k * sin(t), q); break;  /* one axis */
    case 2: axis_angle(sin(k * t), 1, cos(t), -0.4 + k * t, q); break;
    default: axis_angle(1, cos(k * t), 0.5, 0.1 + 0.5 * sin(k * t), q); break;
    }
}

static const uint32_t anim_frames[2] = {10, 6};
static const char *const anim_names[2] = {"walk", "run"};

/* Per vertex: position, and skin of up to 3 influences. Four triangles,
 * each with its own three vertices and a face normal that matches ossa's
 * winding (outward = cross(p2 - p0, p1 - p0)). */
static const float tri_pos[NTRI][3][3] = {
    {{0, 0, 0.5f}, {0.2f, 0, 1.2f}, {0, 0.3f, 1.0f}},
    {{0.2f, 0, 1.2f}, {0.6f, 0.1f, 1.5f}, {0, 0.3f, 1.0f}},
    {{0.6f, 0.1f, 1.5f}, {0.9f, 0.2f, 1.6f}, {0.7f, 0.3f, 1.4f}},
    {{0.9f, 0.2f, 1.6f}, {1.0f, 0.0f, 1.5f}, {0.7f, 0.3f, 1.4f}},
};
static const float vert_bone[3][3] = {{0, 1, 2}, {1, 2, 3}, {2, 3, 0}};
static const float vert_weight[3][3] = {{0.5f, 0.3f, 0.2f}, {0.75f, 0.25f, 0}, {1.0f, 0, 0}};

static ossa_model *build_character(void)
{
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    for (uint32_t j = 0; j < NJ; j++) {
        ossa_transform t = ossa_transform_identity();
        double q[4];
        source_rotation(-1, 0, j, q);
        for (int k = 0; k < 4; k++) t.rotation[k] = (float)q[k];
        memcpy(t.translation, joint_t[j], sizeof t.translation);
        assert_int_equal(ossa_model_add_joint(m, joint_names[j], joint_parent[j], &t, NULL),
                         (int)j);
    }
    uint32_t nv = NTRI * 3;
    float pos[NTRI * 3][3], nrm[NTRI * 3][3], uv[NTRI * 3][2], col[NTRI * 3][4];
    float bi[NTRI * 3][4], bw[NTRI * 3][4];
    ossa_triangle tris[NTRI];
    for (uint32_t t = 0; t < NTRI; t++) {
        const float *p0 = tri_pos[t][0], *p1 = tri_pos[t][1], *p2 = tri_pos[t][2];
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = p2[k] - p0[k];
            e2[k] = p1[k] - p0[k];
        }
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (uint32_t c = 0; c < 3; c++) {
            uint32_t v = 3 * t + c;
            tris[t].v[c] = v;
            for (int k = 0; k < 3; k++) {
                pos[v][k] = tri_pos[t][c][k];
                nrm[v][k] = (float)(n[k] / len);
            }
            uv[v][0] = 0.25f * (float)c;
            uv[v][1] = 0.5f - 0.125f * (float)t;
            for (int k = 0; k < 4; k++) col[v][k] = (float)(64 + 16 * k + c) / 255.0f;
            for (int k = 0; k < 3; k++) {
                bi[v][k] = vert_bone[c][k];
                bw[v][k] = vert_weight[c][k];
            }
            bi[v][3] = 0;
            bw[v][3] = 0;
        }
    }
    assert_int_equal(ossa_model_set_num_vertices(m, nv, NULL), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL,
                                                       &pos[0][0], NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL,
                                                       &nrm[0][0], NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL,
                                                       &uv[0][0], NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 4, NULL,
                                                       &col[0][0], NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4,
                                                       NULL, &bi[0][0], NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4,
                                                       NULL, &bw[0][0], NULL));
    assert_int_equal(ossa_model_set_triangles(m, NTRI, tris, NULL), OSSA_OK);
    assert_int_equal(ossa_model_add_mesh(m, "body", "knight_tex", 0, nv, 0, NTRI, NULL), 0);
    for (int a = 0; a < 2; a++) {
        ossa_animation *an =
            ossa_model_add_animation(m, anim_names[a], anim_frames[a], 30, 0, NULL);
        assert_non_null(an);
        for (uint32_t f = 0; f < anim_frames[a]; f++)
            for (uint32_t j = 0; j < NJ; j++) {
                double q[4];
                source_rotation(a, f, j, q);
                for (int k = 0; k < 4; k++) an->frames[f * NJ + j].rotation[k] = (float)q[k];
            }
    }
    return m;
}

static char *write_to(const ossa_model *m, const char *name, uint32_t animation)
{
    char *path = ts_tmp_path(name);
    ossa_write_options wo = {0};
    wo.animation = animation;
    ossa_error err;
    memset(&err, 0, sizeof err);
    if (ossa_write_file(m, path, &wo, &err) != OSSA_OK) print_error("%s: %s\n", path, err.message);
    return path;
}

static ossa_model *load_merged(char **paths, int n)
{
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_model *dst = ossa_load_file(paths[0], NULL, &err);
    if (!dst) print_error("%s: %s\n", paths[0], err.message);
    assert_non_null(dst);
    for (int i = 1; i < n; i++) {
        ossa_model *src = ossa_load_file(paths[i], NULL, &err);
        if (!src) print_error("%s: %s\n", paths[i], err.message);
        assert_non_null(src);
        if (ossa_model_merge(dst, src, &err) != OSSA_OK) print_error("merge: %s\n", err.message);
        ossa_model_free(src);
        assert_int_equal(err.code, OSSA_CODE_NONE);
    }
    return dst;
}

/* The posed globals the SOTC way: stored rotations are the conjugates of
 * the source's; the animated pose replaces the local rotation and keeps
 * the skeleton's translation (§6). */
static void expected_pose(int a, uint32_t f, sotc_pose *out)
{
    double lq[NJ][4], t[NJ][3];
    for (uint32_t j = 0; j < NJ; j++) {
        double q[4];
        source_rotation(a, f, j, q);
        lq[j][0] = -q[0];
        lq[j][1] = -q[1];
        lq[j][2] = -q[2];
        lq[j][3] = q[3];
        for (int k = 0; k < 3; k++) t[j][k] = joint_t[j][k];
    }
    sotc_globals(NJ, joint_parent, (const double(*)[4])lq, (const double(*)[3])t, out);
}

/* Checks the merged (and IQM-converted) character. */
/* weight_tol: how far a weight may be from the character's (IQM's ubyte
 * weights: half a unit of 1/255). */
static void check_character_w(const ossa_model *m, float weight_tol)
{
    assert_int_equal(m->num_joints, NJ);
    for (uint32_t j = 0; j < NJ; j++) {
        assert_string_equal(m->joints[j].name, joint_names[j]);
        assert_int_equal(m->joints[j].parent, joint_parent[j]);
    }
    assert_int_equal(m->flags & (OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_PARENTS_UNKNOWN), 0);

    /* Bind pose: exact up to float rounding. */
    ossa_transform bind[NJ];
    float mats[NJ][16];
    for (uint32_t j = 0; j < NJ; j++) bind[j] = m->joints[j].bind;
    ossa_local_to_model(m, bind, mats);
    sotc_pose want;
    expected_pose(-1, 0, &want);
    for (uint32_t j = 0; j < NJ; j++) expect_global(mats[j], &want, j, 2e-6);

    /* Animations: names from the files, 30 fps, every frame posed. */
    assert_int_equal(m->num_animations, 2);
    for (int a = 0; a < 2; a++) {
        assert_string_equal(m->animations[a].name, anim_names[a]);
        assert_int_equal(m->animations[a].num_frames, anim_frames[a]);
        assert_true(fabsf(m->animations[a].framerate - 30.0f) < 1e-6f);
        ossa_error err;
        ossa_clip *clip = ossa_clip_create(m, (uint32_t)a, NULL, &err);
        assert_non_null(clip);
        for (uint32_t f = 0; f < anim_frames[a]; f++) {
            ossa_sample_job job = {0};
            job.clip = clip;
            job.time = f;
            job.flags = OSSA_SAMPLE_FRAMES;
            job.wrap = OSSA_WRAP_CLAMP;
            job.model = mats;
            job.num_outputs = NJ;
            assert_int_equal(ossa_sample_run(&job, &err), OSSA_OK);
            expected_pose(a, f, &want);
            /* 9-bit fields cost up to ~0.4 degrees per joint. */
            for (uint32_t j = 0; j < NJ; j++) expect_global(mats[j], &want, j, 0.02);
        }
        ossa_clip_free(clip);
    }

    /* The mesh: four triangles with the source's corners and winding. */
    assert_int_equal(m->num_triangles, NTRI);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "body");
    assert_string_equal(m->meshes[0].material, "knight_tex");
    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    const ossa_vertex_array *uv = ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL);
    assert_non_null(pos);
    assert_non_null(bi);
    assert_non_null(bw);
    assert_non_null(uv);
    for (uint32_t t = 0; t < NTRI; t++) {
        float p[3][3];
        for (int c = 0; c < 3; c++)
            assert_int_equal(ossa_vertex_array_read(m, pos, m->triangles[t].v[c], 1, p[c]),
                             OSSA_OK);
        /* Same cyclic order as the source triangle t. */
        int start = -1;
        for (int c = 0; c < 3; c++)
            if (p[c][0] == tri_pos[t][0][0] && p[c][1] == tri_pos[t][0][1] &&
                p[c][2] == tri_pos[t][0][2])
                start = c;
        assert_true(start >= 0);
        for (int c = 0; c < 3; c++) {
            uint32_t v = m->triangles[t].v[(start + c) % 3];
            for (int k = 0; k < 3; k++) assert_true(p[(start + c) % 3][k] == tri_pos[t][c][k]);
            float idx[4], w[4], tc[2];
            ossa_vertex_array_read(m, bi, v, 1, idx);
            ossa_vertex_array_read(m, bw, v, 1, w);
            ossa_vertex_array_read(m, uv, v, 1, tc);
            for (int k = 0; k < 3; k++) {
                if (vert_weight[c][k] == 0) continue;
                /* The influence is there with its weight (a fraction of
                 * a float near the bone index). */
                int found = 0;
                for (int i = 0; i < 4; i++)
                    if (idx[i] == vert_bone[c][k] && fabsf(w[i] - vert_weight[c][k]) < weight_tol)
                        found = 1;
                assert_true(found);
            }
            TS_ASSERT_NEAR(tc[0], 0.25 * c, 1.0 / 4096);
            TS_ASSERT_NEAR(tc[1], 0.5 - 0.125 * t, 1.0 / 4096);
        }
    }
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
}

/* Skinning one vertex of the posed mesh: ossa's matrices against
 * v' = sum w_j (A_j B_j^-1 v) evaluated the SOTC way. */
static void check_skinning(const ossa_model *m)
{
    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    float inv[NJ][16], posed[NJ][16], skin[NJ][16];
    ossa_model_inverse_bind_matrices(m, inv);
    const uint32_t frame = 4;
    ossa_transform *local = &m->animations[0].frames[frame * NJ];
    ossa_transform norm[NJ];
    for (uint32_t j = 0; j < NJ; j++) {
        norm[j] = local[j];
        double n = 0;
        for (int k = 0; k < 4; k++) n += (double)norm[j].rotation[k] * norm[j].rotation[k];
        for (int k = 0; k < 4; k++) norm[j].rotation[k] = (float)(norm[j].rotation[k] / sqrt(n));
    }
    ossa_local_to_model(m, norm, posed);
    ossa_skinning_matrices(NJ, (const float(*)[16])posed, (const float(*)[16])inv, skin);
    sotc_pose A, B;
    expected_pose(0, frame, &A);
    expected_pose(-1, 0, &B);
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[3], idx[4], w[4];
        ossa_vertex_array_read(m, pos, v, 1, p);
        ossa_vertex_array_read(m, bi, v, 1, idx);
        ossa_vertex_array_read(m, bw, v, 1, w);
        double got[3] = {0, 0, 0}, want[3] = {0, 0, 0};
        for (int i = 0; i < 4; i++) {
            if (w[i] == 0) continue;
            uint32_t j = (uint32_t)idx[i];
            const float *k = skin[j];
            for (int r = 0; r < 3; r++)
                got[r] += w[i] * (k[r] * p[0] + k[4 + r] * p[1] + k[8 + r] * p[2] + k[12 + r]);
            /* B^-1: into bone space by the inverse (conjugate) rotation. */
            double d[3] = {p[0] - B.p[j][0], p[1] - B.p[j][1], p[2] - B.p[j][2]}, local_p[3], r3[3];
            double bc[4] = {-B.q[j][0], -B.q[j][1], -B.q[j][2], B.q[j][3]};
            dormin_rotate(bc, d, local_p);
            dormin_rotate(A.q[j], local_p, r3);
            for (int r = 0; r < 3; r++) want[r] += w[i] * (A.p[j][r] + r3[r]);
        }
        for (int r = 0; r < 3; r++) TS_ASSERT_NEAR(got[r], want[r], 0.02);
    }
}

static void check_character(const ossa_model *m) { check_character_w(m, 1e-6f); }

static void test_character(void **state)
{
    (void)state;
    ossa_model *src = build_character();
    char *paths[4] = {write_to(src, "sotc_knight.skb", 0), write_to(src, "sotc_knight.nmo", 0),
                      write_to(src, "walk.anb", 0), write_to(src, "run.anb", 1)};
    ossa_model *m = load_merged(paths, 4);
    check_character(m);

    /* Converted to IQM and loaded again: the same character. */
    size_t size;
    unsigned char *iqm = ts_write(m, NULL, &size);
    ossa_model *back = ts_load(iqm, size);
    check_character_w(back, 1.0f / 255); /* ubyte weights: within a unit (iqm.md §8.3) */
    check_skinning(back);
    ossa_model_free(back);
    ossa_free(iqm, NULL);
    ossa_model_free(m);

    /* Mesh first (no joints), then the skeleton, then the animations. */
    char *order2[4] = {paths[1], paths[0], paths[2], paths[3]};
    m = load_merged(order2, 4);
    check_character(m);
    ossa_model_free(m);

    /* Animations first: the skeleton that comes later brings names,
     * parents and translations. */
    char *order3[4] = {paths[2], paths[3], paths[0], paths[1]};
    m = load_merged(order3, 4);
    check_character(m);
    ossa_model_free(m);

    /* An animation for another skeleton does not merge. */
    ossa_model *small = ossa_model_create(NULL);
    ossa_model_add_joint(small, "a", -1, NULL, NULL);
    ossa_model_add_animation(small, "x", 2, 30, 0, NULL);
    char *other = write_to(small, "sotc_other.anb", 0);
    ossa_model *skel = ossa_load_file(paths[0], NULL, NULL);
    ossa_model *anim = ossa_load_file(other, NULL, NULL);
    assert_non_null(skel);
    assert_non_null(anim);
    ossa_error err;
    assert_int_equal(ossa_model_merge(skel, anim, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_MISMATCH);
    ossa_model_free(skel);
    ossa_model_free(anim);
    ossa_model_free(small);
    remove(other);
    free(other);

    for (int i = 0; i < 4; i++) {
        remove(paths[i]);
        free(paths[i]);
    }
    ossa_model_free(src);
}

/* -- .skb -- */

static unsigned char *write_memory(const ossa_model *m, ossa_format format, size_t *size)
{
    ossa_write_options wo = {0};
    wo.format = format;
    void *out;
    ossa_error err;
    memset(&err, 0, sizeof err);
    if (ossa_write_memory(m, &wo, &out, size, &err) != OSSA_OK) print_error("%s\n", err.message);
    assert_non_null(out);
    unsigned char *copy = malloc(*size);
    assert_non_null(copy);
    memcpy(copy, out, *size);
    ossa_free(out, wo.allocator);
    return copy;
}

static void test_skb_layout_and_opt_bones(void **state)
{
    (void)state;
    ossa_model *src = build_character();
    /* Two opt bones as the reader keeps them: count, 64-byte records whose
     * +0 is an offset into the names after them, names. */
    unsigned char opt[4 + 128 + 12];
    memset(opt, 0, sizeof opt);
    ts_put32(opt, 2);
    ts_put32(opt + 4, 0);
    ts_putf32(opt + 4 + 0x10, 1.5f);
    ts_put32(opt + 4 + 64, 6);
    ts_put16(opt + 4 + 64 + 0x30, 0x1234);
    memcpy(opt + 132, "ik_a\0\0ik_b\0\0", 12);
    assert_int_equal(ossa_model_add_extra(src, "sotc.skb.opt", opt, 4 + 128 + 11, NULL), OSSA_OK);
    size_t size;
    unsigned char *f = write_memory(src, OSSA_FORMAT_SOTC_SKB, &size);

    /* By hand (§2, §4): .rodata from section 1, the header at entry. */
    uint32_t ro = ts_le32(f + ts_le32(f + 0x5C) + 0x20 + 0x1C);
    assert_int_equal(ts_le32(f + 0x40), 2);
    assert_true(memcmp(f, "xff\0", 4) == 0);
    assert_int_equal(ts_le32(f + 0x14), size);
    const unsigned char *h = f + ro + ts_le32(f + 0x4C);
    assert_int_equal(ts_le32(h), 1);
    assert_int_equal(ts_le32(h + 4), NJ);
    for (uint32_t j = 0; j < NJ; j++) {
        const unsigned char *rec = f + ro + ts_le32(h + 0x2C + 8 * j);
        const char *strtab = (const char *)f + ro + ts_le32(h + 0x0C);
        assert_string_equal(strtab + ts_le32(rec), joint_names[j]);
        assert_int_equal((int32_t)ts_le32(rec + 0x38), joint_parent[j]);
        assert_int_equal(ts_le32(rec + 4), 0xFFFFFFFFu);
        assert_true(ts_lef32(rec + 0x1C) == 1.0f);
        double q[4];
        source_rotation(-1, 0, j, q);
        /* Stored: the conjugate of the usual rotation. */
        TS_ASSERT_NEAR(ts_lef32(rec + 0x20), -q[0], 1e-7);
        TS_ASSERT_NEAR(ts_lef32(rec + 0x24), -q[1], 1e-7);
        TS_ASSERT_NEAR(ts_lef32(rec + 0x28), -q[2], 1e-7);
        TS_ASSERT_NEAR(ts_lef32(rec + 0x2C), q[3], 1e-7);
        for (int k = 0; k < 3; k++) assert_true(ts_lef32(rec + 0x10 + 4 * k) == joint_t[j][k]);
    }
    assert_int_equal(ts_le32(h + 0x20), 2);
    const unsigned char *opt1 = f + ro + ts_le32(h + 0x24) + 64;
    assert_string_equal((const char *)f + ro + ts_le32(h + 0x28) + ts_le32(opt1), "ik_b");
    assert_int_equal(ts_le16(opt1 + 0x30), 0x1234);

    /* Read back: the skeleton alone, the opt bones as the same extra. */
    ossa_model *m = ts_load(f, size);
    assert_int_equal(m->source_format, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(m->num_joints, NJ);
    assert_int_equal(m->num_animations, 0);
    const ossa_extra *e = NULL;
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, "sotc.skb.opt") == 0) e = &m->extras[i];
    assert_non_null(e);
    assert_int_equal(e->size, 4 + 128 + 10);
    /* The records as given, but for the name offsets (the names are
     * packed: "ik_b" now starts at 5). */
    assert_memory_equal(e->data, opt, 4 + 64);
    assert_int_equal(ts_le32((const unsigned char *)e->data + 4 + 64), 5);
    assert_memory_equal((const char *)e->data + 4 + 64 + 4, opt + 4 + 64 + 4, 60);
    assert_memory_equal((const char *)e->data + 132, "ik_a\0ik_b\0", 10);

    /* A parent after its child is refused, naming the bone. */
    unsigned char *bad = malloc(size);
    assert_non_null(bad);
    memcpy(bad, f, size);
    unsigned char *rec1 = bad + ro + ts_le32(h + 0x2C + 8);
    ts_put32(rec1 + 0x38, 2);
    ossa_error err = load_error(bad, size, OSSA_FORMAT_AUTO);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "bone 1 'spine'"));
    assert_int_equal(err.offset, (uint64_t)(rec1 + 0x38 - bad));
    /* A bone pointer outside .rodata. */
    memcpy(bad, f, size);
    ts_put32(bad + (h - f) + 0x2C + 8, 0x7FFFFFF0u);
    err = load_error(bad, size, OSSA_FORMAT_AUTO);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "bone 1"));
    free(bad);
    ossa_model_free(m);
    free(f);
    ossa_model_free(src);
}

/* -- XFF container -- */

static void test_xff_container(void **state)
{
    (void)state;
    unsigned char ro[128] = {0};
    ts_put32(ro, 1); /* a skeleton of no bones */
    size_t size;
    unsigned char *f = wrap_xff(ro, sizeof ro, 0, &size);
    ossa_model *m = ts_load(f, size);
    assert_int_equal(m->source_format, OSSA_FORMAT_SOTC_SKB);
    ossa_model_free(m);
    assert_int_equal(ossa_format_detect(f, size), OSSA_FORMAT_SOTC_SKB);
    f[3] = '2'; /* "xff2" is accepted too */
    assert_int_equal(ossa_format_detect(f, size), OSSA_FORMAT_SOTC_SKB);

    unsigned char *g = malloc(size);
    assert_non_null(g);
    ossa_error err;
    memcpy(g, f, size);
    g[1] = 'X';
    err = load_error(g, size, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_FORMAT);
    assert_int_equal(ossa_format_detect(g, size), OSSA_FORMAT_AUTO);

    memcpy(g, f, size);
    err = load_error(g, 0x60, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_TRUNCATED);
    err = load_error(g, size - 1, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_TRUNCATED);

    ts_put32(g + 0x5C, (uint32_t)size - 0x30); /* the section table runs past the end */
    err = load_error(g, size, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "section table"));
    assert_int_equal(err.offset, 0x5C);

    memcpy(g, f, size);
    ts_put32(g + 0x98 + 0x1C, 0xFFFFFF00u); /* .rodata out of the file */
    err = load_error(g, size, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, ".rodata"));

    memcpy(g, f, size);
    ts_put32(g + 0x98 + 0x08, 129); /* .rodata one byte longer than the file */
    err = load_error(g, size, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);

    memcpy(g, f, size);
    ts_put32(g + 0x40, 3);
    err = load_error(g, size, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);

    memcpy(g, f, size);
    ts_put32(g + 0x4C, 100); /* entry inside .rodata, header past its end */
    err = load_error(g, size, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    free(g);
    free(f);
}

/* -- .nmo: a VIF stream built by hand (§7) -- */

typedef struct bytes {
    unsigned char b[2048];
    size_t n;
} bytes;

static void put_code(bytes *s, unsigned addr, unsigned num, unsigned cmd)
{
    ts_put32(s->b + s->n, addr | 0x80u << 8 | num << 16 | cmd << 24);
    s->n += 4;
}
static void put_f(bytes *s, float v)
{
    ts_putf32(s->b + s->n, v);
    s->n += 4;
}
static void put_s16(bytes *s, int v)
{
    ts_put16(s->b + s->n, (uint16_t)(int16_t)v);
    s->n += 2;
}
static void put_u32(bytes *s, uint32_t v)
{
    ts_put32(s->b + s->n, v);
    s->n += 4;
}

/* .rodata: header at 0 (0x80), TEX at 0x80, SRF at 0xA0, geometry at
 * 0x1C0, names at 0x1E0, the VIF stream at 0x200. */
static unsigned char *nmo_file(const bytes *vif, size_t *size)
{
    static unsigned char ro[0x200 + sizeof(((bytes *)0)->b)];
    memset(ro, 0, sizeof ro);
    memcpy(ro, "NMO\0", 4);
    ts_put32(ro + 4, 3);
    const uint32_t tex = 0x80, srf = 0xA0, geom = 0x1C0, names = 0x1E0, stream = 0x200;
    ts_put32(ro + 0x40, tex);
    ts_put32(ro + 0x44, 1);
    ts_put32(ro + 0x50, srf);
    ts_put32(ro + 0x54, 1);
    ts_put32(ro + 0x60, geom);
    ts_put32(ro + 0x64, 1);
    ts_put32(ro + 0x70, names + 10);
    ts_put32(ro + 0x74, 1);
    memcpy(ro + names, "tex0\0srf0\0hero", 15);
    memcpy(ro + tex, "TEX\0", 4);
    ts_put32(ro + tex + 4, names);
    memcpy(ro + srf, "SRF\0", 4);
    ts_put32(ro + srf + 0x0C, names + 5);
    ro[srf + 0x18] = 7;
    ts_put32(ro + srf + 0x1C, 1);
    ts_put32(ro + srf + 0x2C, 0);
    ts_put32(ro + geom, (uint32_t)vif->n);
    ts_put32(ro + geom + 0x10, stream);
    memcpy(ro + stream, vif->b, vif->n);
    return wrap_xff(ro, stream + vif->n, 0, size);
}

static void hand_stream(bytes *s)
{
    memset(s, 0, sizeof *s);
    s->n = 12; /* not unpack codes */
    /* Strip A: 4 vertices, f32 normals toward +z. */
    put_code(s, 0, 1, 0x6C);
    s->n += 16;
    put_code(s, 1, 4, 0x68);
    const float p[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    for (int v = 0; v < 4; v++)
        for (int k = 0; k < 3; k++) put_f(s, p[v][k]);
    put_code(s, 2, 4, 0x68);
    for (int v = 0; v < 4; v++) {
        put_f(s, 0);
        put_f(s, 0);
        put_f(s, 1);
    }
    put_code(s, 0, 0, 0x05); /* STMOD: no data */
    put_code(s, 3, 4, 0x65); /* texcoords s16/4096 */
    const int uv[4][2] = {{4096, -2048}, {0, 0}, {1024, 8192}, {-4096, 4095}};
    for (int v = 0; v < 4; v++) {
        put_s16(s, uv[v][0]);
        put_s16(s, uv[v][1]);
    }
    put_code(s, 4, 4, 0x6E); /* colours */
    /* bytes 0x10 + v, 0x20, 0x40, 0x80 (PS2's 1.0); vertex 3's alpha 0x81,
     * brighter than 1.0 */
    for (int v = 0; v < 4; v++) put_u32(s, (v == 3 ? 0x81402010u : 0x80402010u) + (uint32_t)v);
    put_code(s, 3, 1, 0x6D); /* V4-16 at address 3: skipped */
    s->n += 8;
    put_code(s, 6, 1, 0x68); /* V3-32 at address 6: skipped */
    s->n += 12;
    put_code(s, 5, 4, 0x6C); /* skin */
    /* 2.25 -> bone 2 weight .25; -0.5 -> bone -1 weight .5
     * 3.0 -> bone 3, a whole number: weight 1
     * 0.75 -> bone 0 weight .75; 1.25 -> bone 1 weight .25
     * -1.5 is no valid value (dropped); 1.5 -> bone 1 weight .5 */
    const float skin[4][3] = {{2.25f, -0.5f, 0}, {3.0f, 0, 0}, {0.75f, 1.25f, 0}, {-1.5f, 1.5f, 0}};
    const uint32_t count[4] = {2, 1, 2, 2};
    for (int v = 0; v < 4; v++) {
        for (int k = 0; k < 3; k++) put_f(s, skin[v][k]);
        put_u32(s, count[v]);
    }
    /* Strip B: 3 vertices, s16 normals toward -z. */
    put_code(s, 1, 3, 0x68);
    const float q[3][3] = {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < 3; k++) put_f(s, q[v][k]);
    put_code(s, 2, 3, 0x6D);
    for (int v = 0; v < 3; v++) {
        put_s16(s, 0);
        put_s16(s, 0);
        put_s16(s, -4096);
        put_s16(s, 0);
    }
    put_code(s, 0, 0, 0x17); /* MSCNT */
    put_u32(s, 0);           /* NOP: the end */
    put_code(s, 9, 9, 0x99); /* never read */
    while (s->n % 16) s->n++;
}

static void test_nmo_hand_stream(void **state)
{
    (void)state;
    bytes s;
    hand_stream(&s);
    size_t size;
    unsigned char *f = nmo_file(&s, &size);
    ossa_model *m = ts_load(f, size);
    assert_int_equal(m->source_format, OSSA_FORMAT_SOTC_NMO);
    assert_int_equal(m->num_vertices, 7);
    assert_int_equal(m->num_triangles, 3);
    /* Strip A, normals +z: (0, 2, 1) and (2, 3, 1) turn clockwise seen
     * from +z... i.e. their ossa outward normal cross(p2-p0, p1-p0) is +z. */
    const uint32_t want[3][3] = {{0, 2, 1}, {2, 3, 1}, {4, 5, 6}};
    for (int t = 0; t < 3; t++)
        for (int k = 0; k < 3; k++) assert_int_equal(m->triangles[t].v[k], want[t][k]);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "srf0");
    assert_string_equal(m->meshes[0].material, "tex0");
    const ossa_vertex_array *uv = ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL);
    const ossa_vertex_array *nrm = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    const ossa_vertex_array *col = ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL);
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    const ossa_vertex_array *pw =
        ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "sotc.parent_weight");
    assert_non_null(uv);
    assert_non_null(nrm);
    assert_non_null(col);
    assert_non_null(bi);
    assert_non_null(bw);
    assert_non_null(pw);
    float v[4];
    ossa_vertex_array_read(m, uv, 0, 1, v);
    assert_true(v[0] == 1.0f && v[1] == -0.5f);
    ossa_vertex_array_read(m, uv, 3, 1, v);
    assert_true(v[0] == -1.0f && v[1] == 4095.0f / 4096.0f);
    ossa_vertex_array_read(m, nrm, 5, 1, v);
    assert_true(v[0] == 0 && v[1] == 0 && v[2] == -1.0f);
    /* 0..128 to 0..255: 0x12 = 18 is 18 * 255 / 128 = 35.86 -> 36; 0x40 is
     * 127.5 -> 128 (half up); 0x80 is 1.0; 0x81 clamps, said */
    assert_int_equal(((const uint8_t *)col->data)[4 * 2 + 0], 36);
    assert_int_equal(((const uint8_t *)col->data)[4 * 2 + 2], 128);
    assert_int_equal(((const uint8_t *)col->data)[4 * 2 + 3], 255);
    assert_int_equal(((const uint8_t *)col->data)[4 * 3 + 3], 255);
    bool clamped = false;
    for (uint32_t i = 0; i < m->num_warnings; i++)
        clamped |= m->warnings[i].code == OSSA_WARNING_REPAIRED &&
                   strstr(m->warnings[i].message, "1 vertex colour components above 0x80") != NULL;
    assert_true(clamped);
    const float want_bone[4][4] = {{2, 0, 0, 0}, {3, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}};
    const float want_w[4][4] = {{0.25f, 0, 0, 0}, {1, 0, 0, 0}, {0.75f, 0.25f, 0, 0},
                                {0.5f, 0, 0, 0}};
    const float want_parent[4] = {0.5f, 0, 0, 0};
    for (uint32_t i = 0; i < 4; i++) {
        float idx[4], w[4], par;
        ossa_vertex_array_read(m, bi, i, 1, idx);
        ossa_vertex_array_read(m, bw, i, 1, w);
        ossa_vertex_array_read(m, pw, i, 1, &par);
        for (int k = 0; k < 4; k++) {
            assert_true(idx[k] == want_bone[i][k]);
            TS_ASSERT_NEAR(w[k], want_w[i][k], 1e-7);
        }
        TS_ASSERT_NEAR(par, want_parent[i], 1e-7);
    }
    /* Warnings: the parent slot and the dropped value. */
    assert_true(m->num_warnings >= 2);
    const ossa_extra *e = NULL;
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, "sotc.nmo.name") == 0) e = &m->extras[i];
    assert_non_null(e);
    assert_string_equal(e->data, "hero");

    /* Written and read again: the same triangles, attributes and skin,
     * the parent-slot weights included. */
    size_t n2;
    unsigned char *g = write_memory(m, OSSA_FORMAT_SOTC_NMO, &n2);
    ossa_model *m2 = ts_load(g, n2);
    assert_int_equal(m2->num_triangles, 3);
    assert_int_equal(m2->num_vertices, 7);
    /* Vertices may come in another order within a strip; the corners of
     * each triangle keep their positions and cyclic order. */
    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *pos2 = ossa_model_find_array(m2, OSSA_VERTEX_POSITION, NULL);
    for (int t = 0; t < 3; t++) {
        float a[3][3], b[3][3];
        for (int k = 0; k < 3; k++) {
            ossa_vertex_array_read(m, pos, m->triangles[t].v[k], 1, a[k]);
            ossa_vertex_array_read(m2, pos2, m2->triangles[t].v[k], 1, b[k]);
        }
        int match = 0;
        for (int r = 0; r < 3; r++)
            match |= memcmp(a[0], b[r], 12) == 0 && memcmp(a[1], b[(r + 1) % 3], 12) == 0 &&
                     memcmp(a[2], b[(r + 2) % 3], 12) == 0;
        assert_true(match);
    }
    const ossa_vertex_array *pw2 =
        ossa_model_find_array(m2, OSSA_VERTEX_CUSTOM, "sotc.parent_weight");
    assert_non_null(pw2);
    for (uint32_t i = 0; i < 7; i++) {
        float a[4], b[4], pa[3], pb[3];
        uint32_t j = 0;
        ossa_vertex_array_read(m, pos, i, 1, pa);
        for (j = 0; j < 7; j++) {
            ossa_vertex_array_read(m2, pos2, j, 1, pb);
            if (memcmp(pa, pb, 12) == 0) break;
        }
        assert_true(j < 7);
        ossa_vertex_array_read(m, bw, i, 1, a);
        ossa_vertex_array_read(m2, ossa_model_find_array(m2, OSSA_VERTEX_BLENDWEIGHTS, NULL), j, 1,
                               b);
        for (int k = 0; k < 4; k++) TS_ASSERT_NEAR(a[k], b[k], 1e-6);
        ossa_vertex_array_read(m, pw, i, 1, a);
        ossa_vertex_array_read(m2, pw2, j, 1, b);
        TS_ASSERT_NEAR(a[0], b[0], 1e-6);
    }
    ossa_model_free(m2);
    free(g);
    ossa_model_free(m);
    free(f);
}

static void test_nmo_malformed(void **state)
{
    (void)state;
    bytes s;
    size_t size;
    ossa_error err;
    /* An unknown VIF code. */
    memset(&s, 0, sizeof s);
    s.n = 12;
    put_code(&s, 1, 1, 0x42);
    s.n += 16;
    unsigned char *f = nmo_file(&s, &size);
    err = load_error(f, size, OSSA_FORMAT_AUTO);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "VIF code"));
    assert_int_equal(err.offset, 0x100 + 0x200 + 12);
    free(f);
    /* Attributes before any positions. */
    memset(&s, 0, sizeof s);
    s.n = 12;
    put_code(&s, 4, 1, 0x6E);
    s.n += 4;
    f = nmo_file(&s, &size);
    err = load_error(f, size, OSSA_FORMAT_AUTO);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    free(f);
    /* A packet longer than the stream. */
    memset(&s, 0, sizeof s);
    s.n = 12;
    put_code(&s, 1, 200, 0x68);
    s.n += 20;
    f = nmo_file(&s, &size);
    err = load_error(f, size, OSSA_FORMAT_AUTO);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "past the end of the stream"));
    free(f);
    /* More than three influences. */
    memset(&s, 0, sizeof s);
    s.n = 12;
    put_code(&s, 1, 1, 0x68);
    s.n += 12;
    put_code(&s, 5, 1, 0x6C);
    s.n += 12;
    put_u32(&s, 4);
    f = nmo_file(&s, &size);
    err = load_error(f, size, OSSA_FORMAT_AUTO);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "influences"));
    free(f);
}

/* Geometry records that all name one stream, and surfaces whose name is
 * long, must not make the load cost out of proportion to the file. */
static void test_nmo_shared_streams(void **state)
{
    (void)state;
    enum { G = 1000, STREAM = 32 * 1024, GEOM = 0x80 + 288, STR = GEOM + G * 32 };
    size_t ro_size = (size_t)STR + STREAM;
    unsigned char *ro = calloc(1, ro_size);
    assert_non_null(ro);
    memcpy(ro, "NMO\0", 4);
    ts_put32(ro + 4, 3);
    ts_put32(ro + 0x50, 0x80); /* one surface */
    ts_put32(ro + 0x54, 1);
    ts_put32(ro + 0x60, GEOM);
    ts_put32(ro + 0x64, G);
    for (uint32_t g = 0; g < G; g++) {
        ts_put32(ro + GEOM + 32 * g, STREAM);
        ts_put32(ro + GEOM + 32 * g + 0x10, STR);
    }
    /* The stream: packets of 255 positions. */
    size_t at = STR + 12;
    while (at + 4 + 255 * 12 <= ro_size) {
        ts_put32(ro + at, 1u | 0x80u << 8 | 255u << 16 | 0x68u << 24);
        at += 4 + 255 * 12;
    }
    size_t size;
    unsigned char *f = wrap_xff(ro, ro_size, 0, &size);
    ossa_error err = load_error(f, size, OSSA_FORMAT_SOTC_NMO);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "out of proportion"));
    free(f);

    /* Streams of 12 bytes, but the surface name is as long as .rodata
     * allows: every mesh would copy it. */
    memset(ro + GEOM, 0, (size_t)G * 32);
    for (uint32_t g = 0; g < G; g++) {
        ts_put32(ro + GEOM + 32 * g, 12);
        ts_put32(ro + GEOM + 32 * g + 0x10, GEOM); /* 12 zero bytes are a valid stream */
    }
    memset(ro + STR, 'a', STREAM - 1);
    ro[ro_size - 1] = 0;
    ts_put32(ro + 0x80 + 0x0C, STR);
    f = wrap_xff(ro, ro_size, 0, &size);
    err = load_error(f, size, OSSA_FORMAT_SOTC_NMO);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    free(f);
    free(ro);
}

/* Bones that all share one long name must not cost memory out of
 * proportion to the file: main bones fail, opt bones are dropped. */
static void test_skb_shared_names(void **state)
{
    (void)state;
    enum { N = 4000, PAIRS = 0x2C, REC = 0x10000, STR = 0x50000, LEN = 32 * 1024 };
    size_t ro_size = (size_t)STR + LEN;
    unsigned char *ro = calloc(1, ro_size);
    assert_non_null(ro);
    ts_put32(ro, 1);
    ts_put32(ro + 4, N);
    ts_put32(ro + 0x0C, STR);
    for (uint32_t i = 0; i < N + 3; i++) ts_put32(ro + PAIRS + 8 * i, REC);
    ts_put32(ro + REC + 0x38, 0xFFFFFFFFu);
    memset(ro + STR, 'b', LEN - 1);
    size_t size;
    unsigned char *f = wrap_xff(ro, ro_size, 0, &size);
    ossa_error err = load_error(f, size, OSSA_FORMAT_SOTC_SKB);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "out of proportion"));
    free(f);

    /* One main bone with a short name; N opt bones named by the long one. */
    ts_put32(ro + 4, 1);
    for (uint32_t i = 0; i < 4; i++) ts_put32(ro + PAIRS + 8 * i, REC);
    ts_put32(ro + 0x0C, ro_size - 1 - 1); /* "b" */
    ts_put32(ro + 0x20, N);
    ts_put32(ro + 0x24, REC);
    ts_put32(ro + 0x28, STR);
    ts_put32(ro + REC, 0);
    f = wrap_xff(ro, ro_size, 0, &size);
    ossa_load_options o = {.format = OSSA_FORMAT_SOTC_SKB};
    ossa_model *m = ossa_load_memory(f, size, &o, &err);
    assert_non_null(m);
    assert_int_equal(m->num_joints, 1);
    for (uint32_t i = 0; i < m->num_extras; i++)
        assert_string_not_equal(m->extras[i].key, "sotc.skb.opt");
    ossa_model_free(m);
    free(f);
    free(ro);
}

/* -- Damaged files: every truncation, random patches -- */

static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Loads `size` bytes of `src` from a buffer of exactly that size; what
 * loads must validate and write back (to IQM and to its own format). */
static void exercise(const unsigned char *src, size_t size, ossa_format format)
{
    unsigned char *data = malloc(size ? size : 1);
    assert_non_null(data);
    if (size) memcpy(data, src, size);
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_load_options o = {.format = format, .file_name = "damaged"};
    ossa_model *m = ossa_load_memory(data, size, &o, &err);
    free(data);
    if (!m) {
        assert_true(err.code != OSSA_CODE_NONE);
        assert_true(err.message[0] != 0);
        return;
    }
    ossa_model_validate(m, NULL, NULL, NULL);
    ossa_format outs[2] = {OSSA_FORMAT_IQM, format};
    for (int i = 0; i < 2; i++) {
        ossa_write_options wo = {0};
        wo.format = outs[i];
        void *out;
        size_t n;
        if (ossa_write_memory(m, &wo, &out, &n, &err) == OSSA_OK) {
            ossa_load_options o2 = {.format = outs[i]};
            ossa_model *again = ossa_load_memory(out, n, &o2, &err);
            if (!again) print_error("written %s does not load: %s\n", ossa_format_name(outs[i]),
                                    err.message);
            assert_non_null(again);
            ossa_model_free(again);
            ossa_free(out, wo.allocator);
        }
    }
    ossa_model_free(m);
}

static void damage(const unsigned char *f, size_t size, ossa_format format)
{
    for (size_t n = 0; n < size; n++) exercise(f, n, format);
    unsigned char *g = malloc(size);
    assert_non_null(g);
    for (int i = 0; i < 1500; i++) {
        memcpy(g, f, size);
        int patches = 1 + (int)(rng() % 4);
        for (int p = 0; p < patches; p++) {
            size_t at = rng() % size;
            uint32_t kind = rng() % 4;
            if (kind == 0) g[at] = (unsigned char)rng();
            else if (kind == 1) g[at] ^= (unsigned char)(1u << (rng() % 8));
            else if (kind == 2 && at + 4 <= size) ts_put32(g + at, rng() % 512);
            else if (at + 4 <= size) ts_put32(g + at, 0xFFFFFFFFu - rng() % 16);
        }
        exercise(g, size, format);
    }
    free(g);
}

static void test_damaged_files(void **state)
{
    (void)state;
    ossa_model *src = build_character();
    ossa_format formats[3] = {OSSA_FORMAT_SOTC_SKB, OSSA_FORMAT_SOTC_ANB, OSSA_FORMAT_SOTC_NMO};
    for (int i = 0; i < 3; i++) {
        size_t size;
        unsigned char *f = write_memory(src, formats[i], &size);
        damage(f, size, formats[i]);
        free(f);
    }
    bytes s;
    hand_stream(&s);
    size_t size;
    unsigned char *f = nmo_file(&s, &size);
    damage(f, size, OSSA_FORMAT_SOTC_NMO);
    free(f);
    ossa_model_free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_character),
        cmocka_unit_test(test_skb_layout_and_opt_bones),
        cmocka_unit_test(test_xff_container),
        cmocka_unit_test(test_nmo_hand_stream),
        cmocka_unit_test(test_nmo_malformed),
        cmocka_unit_test(test_nmo_shared_streams),
        cmocka_unit_test(test_skb_shared_names),
        cmocka_unit_test(test_damaged_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
