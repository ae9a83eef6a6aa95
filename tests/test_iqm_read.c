/* The IQM reader against the real files (checked field by field with the
 * independent decoder of support.c) and against small files built here
 * byte by byte, valid and with one field broken at a time (docs/formats/iqm.md §12). */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -- guy.iqm ----------------------------------------------------------------- */

/* Every decoded frame of every animation equals the spec's decoding of the
 * file (§7), quaternions compared after normalizing and with their sign. */
static void check_frames(const ossa_model *m, const unsigned char *file)
{
    uint32_t np = ts_iqm_header(file, TS_IQM_NUM_POSES);
    assert_int_equal(m->num_joints, np);
    for (uint32_t a = 0; a < m->num_animations; a++) {
        ts_iqm_anim an;
        ts_iqm_anim_at(file, a, &an);
        const ossa_animation *la = &m->animations[a];
        assert_string_equal(la->name, an.name);
        assert_int_equal(la->num_frames, an.num_frames);
        assert_true(la->framerate == an.framerate);
        assert_int_equal(la->flags, an.flags);
        for (uint32_t f = 0; f < an.num_frames; f++)
            for (uint32_t j = 0; j < np; j++) {
                float v[10];
                ts_iqm_channels(file, an.first_frame + f, j, v);
                const ossa_transform *t = &la->frames[(size_t)f * np + j];
                for (int k = 0; k < 3; k++) {
                    TS_ASSERT_NEAR(t->translation[k], v[k], 1e-6);
                    TS_ASSERT_NEAR(t->scale[k], v[7 + k], 1e-6);
                }
                TS_ASSERT_QUAT_SAME(t->rotation, v + 3, 1e-6);
            }
    }
}

static void test_guy_structure(void **state)
{
    (void)state;
    size_t size;
    unsigned char *file = ts_read_shared("iqm/guy.iqm", &size);
    ossa_model *m = ts_load(file, size);

    /* MANIFEST.md's description, then the header itself. */
    assert_int_equal(m->num_joints, 14);
    assert_int_equal(m->num_vertices, 240);
    assert_int_equal(m->num_triangles, 120);
    assert_int_equal(m->num_meshes, 1);
    assert_int_equal(m->num_vertex_arrays, 6);
    assert_int_equal(m->num_animations, 2);
    assert_int_equal(m->num_joints, ts_iqm_header(file, TS_IQM_NUM_JOINTS));
    assert_int_equal(m->num_vertices, ts_iqm_header(file, TS_IQM_NUM_VERTEXES));
    assert_int_equal(m->num_triangles, ts_iqm_header(file, TS_IQM_NUM_TRIANGLES));
    assert_int_equal(m->source_format, OSSA_FORMAT_IQM);
    assert_int_equal(m->flags & OSSA_MODEL_SKELETON_FROM_POSES, 0);
    assert_null(m->comment);
    assert_int_equal(m->num_extras, 0);
    assert_int_equal(m->num_warnings, 0); /* a clean exporter's file */

    /* Mesh record: 24 bytes at ofs_meshes (§3). */
    const unsigned char *mr = file + ts_iqm_header(file, TS_IQM_OFS_MESHES);
    assert_string_equal(m->meshes[0].name, ts_iqm_text(file, ts_le32(mr)));
    assert_string_equal(m->meshes[0].name, "Cube.005");
    assert_string_equal(m->meshes[0].material, ts_iqm_text(file, ts_le32(mr + 4)));
    assert_int_equal(m->meshes[0].first_vertex, ts_le32(mr + 8));
    assert_int_equal(m->meshes[0].num_vertices, ts_le32(mr + 12));
    assert_int_equal(m->meshes[0].first_triangle, ts_le32(mr + 16));
    assert_int_equal(m->meshes[0].num_triangles, ts_le32(mr + 20));

    /* Vertex arrays: position float3, texcoord float2, normal float3,
     * tangent float4, blend indexes and weights ubyte4; data byte-exact. */
    const uint32_t expect[6][3] = {{0, 7, 3}, {1, 7, 2}, {2, 7, 3},
                                   {3, 7, 4}, {4, 1, 4}, {5, 1, 4}};
    const unsigned char *va = file + ts_iqm_header(file, TS_IQM_OFS_VERTEXARRAYS);
    for (uint32_t i = 0; i < 6; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        const unsigned char *r = va + 20 * i;
        assert_int_equal(ts_le32(r), expect[i][0]);
        assert_int_equal(ts_le32(r + 8), expect[i][1]);
        assert_int_equal(ts_le32(r + 12), expect[i][2]);
        assert_int_equal(a->type, expect[i][0]);
        assert_int_equal(a->format, expect[i][1]);
        assert_int_equal(a->size, expect[i][2]);
        const unsigned char *src = file + ts_le32(r + 16);
        size_t n = 240u * a->size;
        for (size_t c = 0; c < n; c++) {
            if (a->format == OSSA_FLOAT) {
                uint32_t got;
                memcpy(&got, (const unsigned char *)a->data + 4 * c, 4);
                assert_int_equal(got, ts_le32(src + 4 * c));
            } else {
                assert_int_equal(((const uint8_t *)a->data)[c], src[c]);
            }
        }
    }

    /* Triangles and the stored adjacency, entry by entry. */
    const unsigned char *tr = file + ts_iqm_header(file, TS_IQM_OFS_TRIANGLES);
    const unsigned char *adj = file + ts_iqm_header(file, TS_IQM_OFS_ADJACENCY);
    assert_non_null(m->adjacency);
    for (uint32_t i = 0; i < 360; i++) {
        assert_int_equal(m->triangles[i / 3].v[i % 3], ts_le32(tr + 4 * i));
        assert_int_equal(m->adjacency[i], ts_le32(adj + 4 * i));
    }

    /* Joints: names, parents and the bind pose as stored. */
    const char *names[14] = {"root",      "body",      "root.001",  "root.002", "neck",
                             "arm_L",     "arm_r",     "leg_L",     "leg_R",    "head",
                             "arm_L.001", "arm_r.001", "leg_L.001", "leg_R.001"};
    for (uint32_t j = 0; j < 14; j++) {
        ts_iqm_joint jt;
        ts_iqm_joint_at(file, j, &jt);
        const ossa_joint *lj = &m->joints[j];
        assert_string_equal(lj->name, jt.name);
        assert_string_equal(lj->name, names[j]);
        assert_int_equal(lj->parent, jt.parent < 0 ? -1 : jt.parent);
        assert_true(lj->parent < (int32_t)j);
        for (int k = 0; k < 3; k++) {
            assert_true(lj->bind.translation[k] == jt.t[k]);
            assert_true(lj->bind.scale[k] == jt.s[k]);
        }
        TS_ASSERT_QUAT_SAME(lj->bind.rotation, jt.q, 1e-6);
    }
    ossa_model_free(m);
    free(file);
}

static void test_guy_animations(void **state)
{
    (void)state;
    size_t size;
    unsigned char *file = ts_read_shared("iqm/guy.iqm", &size);
    ossa_model *m = ts_load(file, size);
    assert_string_equal(m->animations[0].name, "jump");
    assert_string_equal(m->animations[1].name, "dance");
    for (int a = 0; a < 2; a++) {
        assert_int_equal(m->animations[a].num_frames, 61);
        assert_true(m->animations[a].framerate == 24.0f);
    }
    check_frames(m, file);

    /* Stored bounds: one 32-byte record per global frame (§9). */
    const unsigned char *b = file + ts_iqm_header(file, TS_IQM_OFS_BOUNDS);
    for (uint32_t a = 0; a < 2; a++) {
        ts_iqm_anim an;
        ts_iqm_anim_at(file, a, &an);
        assert_non_null(m->animations[a].bounds);
        for (uint32_t f = 0; f < an.num_frames; f++) {
            const unsigned char *r = b + 32 * (size_t)(an.first_frame + f);
            const ossa_bounds *lb = &m->animations[a].bounds[f];
            for (int k = 0; k < 3; k++) {
                assert_true(lb->min[k] == ts_lef32(r + 4 * k));
                assert_true(lb->max[k] == ts_lef32(r + 12 + 4 * k));
            }
            assert_true(lb->xy_radius == ts_lef32(r + 24));
            assert_true(lb->radius == ts_lef32(r + 28));
        }
    }
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);

    /* Loading the file by path gives the same model (the data directory
     * exists: ts_read_shared did not skip). */
    char *path = ts_path_join(getenv("OSSA_SHARED_DIR"), "data/iqm/guy.iqm");
    ossa_error err;
    ossa_model *fm = ossa_load_file(path, NULL, &err);
    assert_non_null(fm);
    assert_int_equal(fm->num_joints, 14);
    assert_memory_equal(fm->animations[1].frames, m->animations[1].frames,
                        61 * 14 * sizeof(ossa_transform));
    ossa_model_free(fm);
    free(path);
    ossa_model_free(m);
    free(file);
}

static void test_guyanim(void **state)
{
    (void)state;
    size_t size, guy_size;
    unsigned char *file = ts_read_shared("iqm/guyanim.iqm", &size);
    unsigned char *guy_file = ts_read_shared("iqm/guy.iqm", &guy_size);
    ossa_model *m = ts_load(file, size), *guy = ts_load(guy_file, guy_size);

    /* 0 joints, 14 poses in the file: the skeleton comes from the poses. */
    assert_int_equal(ts_iqm_header(file, TS_IQM_NUM_JOINTS), 0);
    assert_int_equal(ts_iqm_header(file, TS_IQM_NUM_POSES), 14);
    assert_int_equal(m->num_joints, 14);
    assert_true(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    assert_int_equal(m->num_vertices, 0);
    assert_int_equal(m->num_meshes, 0);
    for (uint32_t j = 0; j < 14; j++) {
        ts_iqm_pose p;
        ts_iqm_pose_at(file, j, &p);
        assert_string_equal(m->joints[j].name, "");
        assert_int_equal(m->joints[j].parent, p.parent < 0 ? -1 : p.parent);
        /* No bind pose in the file: frame 0 of the first animation stands in. */
        float v[10];
        ts_iqm_channels(file, 0, j, v);
        for (int k = 0; k < 3; k++) {
            TS_ASSERT_NEAR(m->joints[j].bind.translation[k], v[k], 1e-6);
            TS_ASSERT_NEAR(m->joints[j].bind.scale[k], v[7 + k], 1e-6);
        }
        TS_ASSERT_QUAT_SAME(m->joints[j].bind.rotation, v + 3, 1e-6);
    }
    assert_int_equal(m->num_animations, 2);
    check_frames(m, file);

    /* The claim that both files hold the same animations, checked on the
     * data: identical pose records and frame samples... */
    size_t pose_bytes = 14 * 88, frame_bytes = 122u * 69 * 2;
    assert_int_equal(ts_iqm_header(file, TS_IQM_NUM_FRAMES), 122);
    assert_int_equal(ts_iqm_header(file, TS_IQM_NUM_FRAMECHANNELS), 69);
    assert_int_equal(ts_iqm_header(guy_file, TS_IQM_NUM_FRAMECHANNELS), 69);
    assert_memory_equal(file + ts_iqm_header(file, TS_IQM_OFS_POSES),
                        guy_file + ts_iqm_header(guy_file, TS_IQM_OFS_POSES), pose_bytes);
    assert_memory_equal(file + ts_iqm_header(file, TS_IQM_OFS_FRAMES),
                        guy_file + ts_iqm_header(guy_file, TS_IQM_OFS_FRAMES), frame_bytes);
    /* ...so the decoded frames must be equal too. */
    for (uint32_t a = 0; a < 2; a++) {
        assert_string_equal(m->animations[a].name, guy->animations[a].name);
        assert_int_equal(m->animations[a].num_frames, guy->animations[a].num_frames);
        assert_true(m->animations[a].framerate == guy->animations[a].framerate);
        for (size_t i = 0; i < 61u * 14; i++) {
            const ossa_transform *x = &m->animations[a].frames[i],
                                 *y = &guy->animations[a].frames[i];
            for (int k = 0; k < 3; k++) {
                TS_ASSERT_NEAR(x->translation[k], y->translation[k], 1e-6);
                TS_ASSERT_NEAR(x->scale[k], y->scale[k], 1e-6);
            }
            TS_ASSERT_QUAT_SAME(x->rotation, y->rotation, 1e-6);
        }
        assert_null(m->animations[a].bounds); /* ofs_bounds is 0 in guyanim.iqm */
    }
    ossa_model_free(m);
    ossa_model_free(guy);
    free(file);
    free(guy_file);
}

/* An error that says what and where (§12). */
static void assert_load_error(const unsigned char *data, size_t size, ossa_format format,
                              ossa_code kind1, ossa_code kind2, const char *what)
{
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_load_options opts = {.format = format};
    ossa_model *m = ossa_load_memory(data, size, &opts, &err);
    if (m || (err.code != kind1 && err.code != kind2) || !err.message[0] ||
        err.offset == OSSA_NO_OFFSET || err.offset > size)
        print_error("%s: got %s, kind %s, offset %llu, message \"%s\"\n", what,
                    m ? "a model" : "an error", ossa_code_name(err.code),
                    (unsigned long long)err.offset, err.message);
    ossa_model_free(m);
    assert_null(m);
    assert_true(err.code == kind1 || err.code == kind2);
    assert_true(err.message[0] != 0);
    assert_true(err.offset != OSSA_NO_OFFSET);
    assert_true(err.offset <= size);
}

static void test_invalid_mesh_offset(void **state)
{
    (void)state;
    size_t size;
    unsigned char *file = ts_read_shared("iqm/invalid/InvalidMeshOffset.iqm", &size);
    assert_load_error(file, size, OSSA_FORMAT_AUTO, OSSA_ERROR_CORRUPT, OSSA_ERROR_TRUNCATED,
                      "InvalidMeshOffset.iqm");
    ossa_error err;
    assert_null(ossa_load_memory(file, size, NULL, &err));
    assert_non_null(strstr(err.message, "mesh"));
    free(file);
}

/* -- Files built here (ts_mini_build) --------------------------------------- */

/* The values the mini file encodes, by hand; v1 restores w = -sqrt(1 - x²-y²-z²).
 * `tol` covers a re-quantized copy (then the bounds are recomputed ones). */
static void check_mini(const ossa_model *m, int version, double tol)
{
    assert_int_equal(m->num_joints, 2);
    assert_string_equal(m->joints[0].name, "root");
    assert_string_equal(m->joints[1].name, "child");
    assert_int_equal(m->joints[0].parent, -1);
    assert_int_equal(m->joints[1].parent, 0);
    const float child_q[4] = {0.6f, 0, 0, -0.8f};
    TS_ASSERT_QUAT_SAME(m->joints[1].bind.rotation, child_q, 1e-6);
    TS_ASSERT_NEAR(m->joints[1].bind.rotation[3], -0.8, 1e-6);
    for (int k = 0; k < 3; k++) assert_true(m->joints[1].bind.scale[k] == 2);
    assert_int_equal(m->num_vertices, 4);
    assert_int_equal(m->num_triangles, 2);
    assert_string_equal(m->meshes[0].material, "mat");
    assert_int_equal(m->num_animations, 1);
    const ossa_animation *an = &m->animations[0];
    assert_string_equal(an->name, "wave");
    assert_int_equal(an->flags, OSSA_ANIMATION_LOOP);
    assert_true(an->framerate == 10);
    for (int f = 0; f < 3; f++) {
        const ossa_transform *root = &an->frames[f * 2], *child = &an->frames[f * 2 + 1];
        TS_ASSERT_NEAR(root->translation[0], 1 + f, tol);
        TS_ASSERT_NEAR(root->translation[1], 2, 0);
        double z = 0.1 * f;
        /* v2 stores w = -1: (0,0,z,-1) normalized; v1 restores a unit w. */
        double w = version == 1 ? -sqrt(1 - z * z) : -1;
        const float q[4] = {0, 0, (float)z, (float)w};
        TS_ASSERT_QUAT_SAME(root->rotation, q, tol);
        TS_ASSERT_NEAR(child->translation[1], 1 + 0.25 * f, tol);
        TS_ASSERT_NEAR(child->scale[0], 2 + f, tol);
        TS_ASSERT_NEAR(child->scale[1], 2, 0);
        TS_ASSERT_QUAT_SAME(child->rotation, child_q, 1e-6);
        if (tol <= 1e-6) TS_ASSERT_NEAR(an->bounds[f].max[0], f + 1, 0);
    }
    assert_int_equal(m->comment_size, 5);
    assert_memory_equal(m->comment, "hello", 6);
    assert_int_equal(m->num_extras, 1);
    assert_string_equal(m->extras[0].key, "iqm.extension:ext");
    assert_int_equal(m->extras[0].size, 4);
    assert_memory_equal(m->extras[0].data, "DATA", 4);
}

static void test_mini_valid(void **state)
{
    (void)state;
    ts_mini mf;
    ts_mini_build(&mf, 2);
    ossa_model *m = ts_load(mf.b, mf.size);
    check_mini(m, 2, 1e-6);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);
    /* Bytes after filesize are ignored (§12). */
    m = ts_load(mf.b, mf.size + 16);
    ossa_model_free(m);
}

/* The mini file with its two joints listed child first: joint records,
 * pose records, each frame's sample groups and blend indexes swapped by
 * hand (§3, §7), parents pointing forward. The reader must put the parent
 * first again, giving exactly the model of the intact file. */
static void test_mini_forward_parent_reordered(void **state)
{
    (void)state;
    ts_mini orig, mf;
    ts_mini_build(&orig, 2);
    ts_mini_build(&mf, 2);
    /* Joints (48 bytes) and poses (88 bytes) trade places. */
    memcpy(mf.b + mf.joints, orig.b + orig.joints + 48, 48);
    memcpy(mf.b + mf.joints + 48, orig.b + orig.joints, 48);
    memcpy(mf.b + mf.poses, orig.b + orig.poses + 88, 88);
    memcpy(mf.b + mf.poses + 88, orig.b + orig.poses, 88);
    /* File joint 0 is now the child of file joint 1, the root. */
    ts_put32(mf.b + mf.joints + 4, 1);
    ts_put32(mf.b + mf.joints + 48 + 4, UINT32_MAX);
    ts_put32(mf.b + mf.poses, 1);
    ts_put32(mf.b + mf.poses + 88, UINT32_MAX);
    /* Every frame holds root's samples then child's: swap the groups. */
    uint32_t n0 = (uint32_t)ts_popcount(ts_le32(orig.b + orig.poses + 4));
    uint32_t n1 = (uint32_t)ts_popcount(ts_le32(orig.b + orig.poses + 88 + 4));
    uint32_t frames = ts_iqm_header(orig.b, TS_IQM_NUM_FRAMES);
    for (uint32_t f = 0; f < frames; f++) {
        const unsigned char *src = orig.b + orig.frames + (size_t)f * (n0 + n1) * 2;
        unsigned char *dst = mf.b + mf.frames + (size_t)f * (n0 + n1) * 2;
        memcpy(dst, src + n0 * 2, n1 * 2);
        memcpy(dst + n1 * 2, src, n0 * 2);
    }
    /* Blend indexes (ubyte) name file joints: 0 <-> 1. */
    uint32_t num_arrays = ts_iqm_header(orig.b, TS_IQM_NUM_VERTEXARRAYS);
    uint32_t nv = ts_iqm_header(orig.b, TS_IQM_NUM_VERTEXES);
    for (uint32_t i = 0; i < num_arrays; i++) {
        const unsigned char *rec = mf.b + mf.arrays + i * 20;
        if (ts_le32(rec) != OSSA_VERTEX_BLENDINDEXES) continue;
        assert_int_equal(ts_le32(rec + 8), OSSA_UBYTE);
        unsigned char *idx = mf.b + ts_le32(rec + 16);
        for (uint32_t c = 0; c < nv * ts_le32(rec + 12); c++)
            if (idx[c] <= 1) idx[c] = (unsigned char)(1 - idx[c]);
    }
    ossa_model *want = ts_load(orig.b, orig.size);
    ossa_model *got = ts_load(mf.b, mf.size);
    assert_int_equal(got->num_joints, 2);
    assert_string_equal(got->joints[0].name, want->joints[0].name);
    assert_string_equal(got->joints[1].name, want->joints[1].name);
    assert_int_equal(got->joints[0].parent, -1);
    assert_int_equal(got->joints[1].parent, 0);
    assert_memory_equal(&got->joints[0].bind, &want->joints[0].bind, sizeof(ossa_transform));
    assert_memory_equal(&got->joints[1].bind, &want->joints[1].bind, sizeof(ossa_transform));
    assert_int_equal(got->num_animations, want->num_animations);
    const ossa_animation *ga = &got->animations[0], *wa = &want->animations[0];
    assert_memory_equal(ga->frames, wa->frames, (size_t)wa->num_frames * 2 * sizeof(ossa_transform));
    const ossa_vertex_array *gi = ossa_model_find_array(got, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wi = ossa_model_find_array(want, OSSA_VERTEX_BLENDINDEXES, NULL);
    assert_memory_equal(gi->data, wi->data, (size_t)nv * wi->size);
    assert_true(got->num_warnings >= 1);
    ossa_model_free(got);
    ossa_model_free(want);
}

/* 20,000 joints that all name one 60,000-byte string: a 1 MB file whose
 * names, copied per joint, would take 1.2 GB. Refused, not allocated. */
static void test_shared_long_name(void **state)
{
    (void)state;
    const uint32_t name_len = 60000, joints = 20000;
    uint32_t text_size = (name_len + 2 + 3) & ~3u;
    size_t size = 124 + text_size + (size_t)joints * 48;
    unsigned char *b = calloc(1, size);
    assert_non_null(b);
    memcpy(b, "INTERQUAKEMODEL", 16);
    ts_put32(b + TS_IQM_VERSION, 2);
    ts_put32(b + TS_IQM_FILESIZE, (uint32_t)size);
    ts_put32(b + TS_IQM_NUM_TEXT, text_size);
    ts_put32(b + TS_IQM_OFS_TEXT, 124);
    memset(b + 124 + 1, 'n', name_len);
    ts_put32(b + TS_IQM_NUM_JOINTS, joints);
    ts_put32(b + TS_IQM_OFS_JOINTS, 124 + text_size);
    for (uint32_t j = 0; j < joints; j++) {
        unsigned char *p = b + 124 + text_size + (size_t)j * 48;
        ts_put32(p, 1);                                   /* the long name */
        ts_put32(p + 4, j ? j - 1 : UINT32_MAX);          /* a chain */
        ts_putf32(p + 8 + 24, 1);                         /* w */
        for (int k = 0; k < 3; k++) ts_putf32(p + 8 + 28 + 4 * k, 1);
    }
    ts_alloc a;
    ts_alloc_init(&a, -1, false);
    ossa_load_options opts = {.allocator = &a.allocator};
    ossa_error err;
    ossa_model *m = ossa_load_memory(b, size, &opts, &err);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_true(err.offset != OSSA_NO_OFFSET);
    assert_true(a.max_request < ((size_t)64 << 20));
    assert_int_equal(a.live, 0);
    free(b);
}

/* One broken field at a time (§12); the intact file loads (test above). */
static void test_mini_corrupt(void **state)
{
    (void)state;
    ts_mini mf;
#define BROKEN(kind, what, change)                                                                 \
    do {                                                                                           \
        ts_mini_build(&mf, 2);                                                                     \
        change;                                                                                    \
        assert_load_error(mf.b, mf.size, OSSA_FORMAT_IQM, kind, kind, what);                       \
    } while (0)
    BROKEN(OSSA_ERROR_FORMAT, "bad magic", mf.b[0] = 'X');
    BROKEN(OSSA_ERROR_UNSUPPORTED, "version 3", ts_put32(mf.b + TS_IQM_VERSION, 3));
    BROKEN(OSSA_ERROR_UNSUPPORTED, "version 0", ts_put32(mf.b + TS_IQM_VERSION, 0));
    BROKEN(OSSA_ERROR_TRUNCATED, "filesize > data",
           ts_put32(mf.b + TS_IQM_FILESIZE, (uint32_t)mf.size + 4));
    BROKEN(OSSA_ERROR_TRUNCATED, "short header", mf.size = 100);
    BROKEN(OSSA_ERROR_CORRUPT, "text without NUL", mf.b[mf.text + mf.num_text - 1] = 'x');
    BROKEN(OSSA_ERROR_CORRUPT, "mesh name outside text", ts_put32(mf.b + mf.meshes, mf.num_text));
    BROKEN(OSSA_ERROR_CORRUPT, "joint name far outside text",
           ts_put32(mf.b + mf.joints, 0xFFFFFFF0u));
    BROKEN(OSSA_ERROR_CORRUPT, "anim name outside text", ts_put32(mf.b + mf.anims, 1000));
    BROKEN(OSSA_ERROR_CORRUPT, "vertex format 9", ts_put32(mf.b + mf.arrays + 20 + 8, 9));
    BROKEN(OSSA_ERROR_CORRUPT, "vertex size 5", ts_put32(mf.b + mf.arrays + 12, 5));
    BROKEN(OSSA_ERROR_CORRUPT, "vertex size 0", ts_put32(mf.b + mf.arrays + 12, 0));
    BROKEN(OSSA_ERROR_CORRUPT, "vertex data past the end",
           ts_put32(mf.b + mf.arrays + 16, (uint32_t)mf.size - 8));
    BROKEN(OSSA_ERROR_CORRUPT, "vertices without arrays", ts_put32(mf.b + TS_IQM_NUM_VERTEXARRAYS, 0));
    BROKEN(OSSA_ERROR_CORRUPT, "triangle index 4 of 4", ts_put32(mf.b + mf.triangles + 16, 4));
    BROKEN(OSSA_ERROR_CORRUPT, "huge triangle count",
           ts_put32(mf.b + TS_IQM_NUM_TRIANGLES, 0x40000000));
    BROKEN(OSSA_ERROR_CORRUPT, "mesh offset in header", ts_put32(mf.b + TS_IQM_OFS_MESHES, 0));
    BROKEN(OSSA_ERROR_CORRUPT, "mesh vertex range", ts_put32(mf.b + mf.meshes + 12, 5));
    BROKEN(OSSA_ERROR_CORRUPT, "joint 1 is its own parent", ts_put32(mf.b + mf.joints + 48 + 4, 1));
    BROKEN(OSSA_ERROR_CORRUPT, "joint 0 has parent 0", ts_put32(mf.b + mf.joints + 4, 0));
    BROKEN(OSSA_ERROR_CORRUPT, "pose mask bit 10", ts_put32(mf.b + mf.poses + 4, 1u << 10 | 0x21));
    BROKEN(OSSA_ERROR_CORRUPT, "num_framechannels 5", ts_put32(mf.b + TS_IQM_NUM_FRAMECHANNELS, 5));
    BROKEN(OSSA_ERROR_CORRUPT, "anim frames 1..4 of 3", ts_put32(mf.b + mf.anims + 4, 1));
    BROKEN(OSSA_ERROR_CORRUPT, "anim 4 frames of 3", ts_put32(mf.b + mf.anims + 8, 4));
    BROKEN(OSSA_ERROR_CORRUPT, "extension data past the end", ts_put32(mf.b + mf.ext + 4, 1000));
#undef BROKEN
    /* A bad magic is not recognised as IQM by detection either. */
    ts_mini_build(&mf, 2);
    mf.b[3] = 0;
    assert_load_error(mf.b, mf.size, OSSA_FORMAT_AUTO, OSSA_ERROR_FORMAT, OSSA_ERROR_FORMAT,
                      "auto");
}

/* A cyclic extension list (§12: "bounded walk ... (detect cycles)"): the
 * only record points back to itself and num_extensions claims 100000. A
 * walk bounded by num_extensions alone terminates here, but it loads the
 * same record 100000 times, and with num_extensions = 2^32-1 it would run
 * four billion times, allocating as it goes. A cycle is not a valid list:
 * it must be rejected. */
static void test_mini_extension_cycle(void **state)
{
    (void)state;
    ts_mini mf;
    ts_mini_build(&mf, 2);
    ts_put32(mf.b + mf.ext + 12, mf.ext);
    ts_put32(mf.b + TS_IQM_NUM_EXTENSIONS, 100000);
    assert_load_error(mf.b, mf.size, OSSA_FORMAT_IQM, OSSA_ERROR_CORRUPT, OSSA_ERROR_CORRUPT,
                      "extension cycle");
    /* A two-record cycle: the second record points back to the first. */
    ts_mini_build(&mf, 2);
    unsigned char *second = mf.b + mf.size;
    mf.size += 16;
    ts_put32(second, TS_MINI_EXT);
    ts_put32(second + 12, mf.ext);
    ts_put32(mf.b + mf.ext + 12, (uint32_t)(second - mf.b));
    ts_put32(mf.b + TS_IQM_NUM_EXTENSIONS, 3);
    ts_put32(mf.b + TS_IQM_FILESIZE, (uint32_t)mf.size);
    assert_load_error(mf.b, mf.size, OSSA_FORMAT_IQM, OSSA_ERROR_CORRUPT, OSSA_ERROR_CORRUPT,
                      "two-record extension cycle");
}

/* 2 joints, 0 poses and every channel constant: nothing in the file limits
 * the frame count, so a 2^32-1 frame animation costs 20 bytes of file but
 * would decode to 2^32 * 2 transforms (320 GiB). The reader must refuse it
 * as it refuses other absurd decoded sizes, not try to allocate it. */
static void test_mini_absurd_frame_count(void **state)
{
    (void)state;
    ts_mini mf;
    ts_mini_build(&mf, 2);
    ts_put32(mf.b + TS_IQM_NUM_POSES, 0);
    ts_put32(mf.b + TS_IQM_OFS_POSES, 0);
    ts_put32(mf.b + TS_IQM_NUM_FRAMECHANNELS, 0);
    ts_put32(mf.b + TS_IQM_OFS_FRAMES, 0);
    ts_put32(mf.b + TS_IQM_OFS_BOUNDS, 0);
    ts_put32(mf.b + TS_IQM_NUM_FRAMES, UINT32_MAX);
    ts_put32(mf.b + mf.anims + 8, UINT32_MAX);
    /* A custom allocator, so that the size of the attempt can be seen and
     * a sanitizer's allocator never sees it. */
    ts_alloc a;
    ts_alloc_init(&a, -1, false);
    a.refuse_above = (size_t)256 << 20;
    ossa_load_options opts = {.allocator = &a.allocator};
    ossa_error err;
    ossa_model *m = ossa_load_memory(mf.b, mf.size, &opts, &err);
    if (m || err.code != OSSA_ERROR_UNSUPPORTED)
        print_error("got %s (%s: %s); largest allocation attempted: %zu bytes\n",
                    m ? "a model" : "an error", ossa_code_name(err.code), err.message,
                    a.max_request);
    ossa_model_free(m);
    assert_int_equal(a.live, 0);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_true(a.max_request <= ((size_t)1 << 30) + 4096);
}

/* IQM v1 (§13): 44-byte joints and 80-byte poses without w, 9 channels with
 * the scale in 6..8. Read, then written as v2 with the rule of §13: w is a
 * new channel 6 and the scale bits move to 7..9. */
static void test_mini_v1_upgrade(void **state)
{
    (void)state;
    ts_mini mf;
    ts_mini_build(&mf, 1);
    ossa_model *m = ts_load(mf.b, mf.size);
    check_mini(m, 1, 1e-6);

    ossa_write_options wo = {.format = OSSA_FORMAT_IQM};
    void *out;
    size_t size;
    ossa_error err;
    assert_int_equal(ossa_write_memory(m, &wo, &out, &size, &err), OSSA_OK);
    const unsigned char *o = out;
    assert_int_equal(ts_iqm_header(o, TS_IQM_VERSION), 2);
    ts_iqm_pose root, child;
    ts_iqm_pose_at(o, 0, &root);
    ts_iqm_pose_at(o, 1, &child);
    /* root: Tx, Qz and now Qw (w = -sqrt(1 - 0.01 f²) varies); child: Ty
     * and Sx, which moved from bit 6 to bit 7. Every other channel is constant. */
    assert_int_equal(root.mask, 1u << 0 | 1u << 5 | 1u << 6);
    assert_int_equal(child.mask, 1u << 1 | 1u << 7);
    assert_int_equal(ts_iqm_header(o, TS_IQM_NUM_FRAMECHANNELS), 5);
    /* v2 joints are 48 bytes and carry w explicitly. */
    ts_iqm_joint j1;
    ts_iqm_joint_at(o, 1, &j1);
    TS_ASSERT_NEAR(j1.q[3], -0.8, 1e-6);
    TS_ASSERT_NEAR(j1.s[0], 2, 0);
    for (uint32_t f = 0; f < 3; f++) {
        float v[10];
        ts_iqm_channels(o, f, 0, v);
        /* Half a quantization step of the w channel, plus float rounding. */
        TS_ASSERT_NEAR(v[6], -sqrt(1 - 0.01 * f * f), 0.5 * root.scale[6] + 1e-7);
        ts_iqm_channels(o, f, 1, v);
        TS_ASSERT_NEAR(v[7], 2 + f, 0.5 * child.scale[7] + 1e-6);
    }
    /* And the v2 file reads back as the same model, up to half a step of the
     * widest channel (range 2: 2 / 65535 / 2) plus float rounding. */
    ossa_model *back = ts_load(o, size);
    check_mini(back, 1, 1.0 / 65535 + 1e-6);
    ossa_model_free(back);
    ossa_free(out, wo.allocator);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guy_structure),
        cmocka_unit_test(test_guy_animations),
        cmocka_unit_test(test_guyanim),
        cmocka_unit_test(test_invalid_mesh_offset),
        cmocka_unit_test(test_mini_valid),
        cmocka_unit_test(test_mini_corrupt),
        cmocka_unit_test(test_mini_forward_parent_reordered),
        cmocka_unit_test(test_shared_long_name),
        cmocka_unit_test(test_mini_extension_cycle),
        cmocka_unit_test(test_mini_absurd_frame_count),
        cmocka_unit_test(test_mini_v1_upgrade),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
