/* MD5 writer (docs/formats/md5.md §11): exact text for a model built by
 * hand, numbers without exponents, the "origin" root, scale, names, the
 * multi-file write, and round trips (md5 -> model -> md5 -> model,
 * IQM -> MD5 -> IQM) compared in model space. */
#include "md5_test.h"

#include "formats/md5/md5.h"

#include <sys/stat.h>
#include <unistd.h>

/* -- Numbers -------------------------------------------------------------------- */

static void float_text(float f, char *out)
{
    ossa_buf b;
    ossa__buf_init(&b, NULL);
    ossa_text_out o;
    ossa__out_init(&o, &b);
    ossa__md5_out_float(&o, f);
    ossa__out_flush(&o);
    assert_false(b.failed);
    assert_true(b.size < 64);
    memcpy(out, b.data, b.size);
    out[b.size] = 0;
    ossa__buf_release(&b);
}

static void test_numbers(void **state)
{
    (void)state;
    static const struct {
        float f;
        const char *text;
    } cases[] = {
        {0, "0"},
        {-0.0f, "0"},
        {0.5f, "0.5"},
        {-32, "-32"},
        {1e-7f, "0.0000001"},
        {1.5e10f, "15000000000"},
        {123456789.0f, "123456790"},
        {0.1f, "0.1"},
        {1e-12f, "0"},
        {-4e-11f, "0"},
        {-6e-11f, "-0.0000000001"},
        {0.70710677f, "0.70710677"},
        {3.4028235e38f, "340282350000000000000000000000000000000"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float_text(cases[i].f, buf);
        if (strcmp(buf, cases[i].text))
            fail_msg("%.9g: '%s', expected '%s'", cases[i].f, buf, cases[i].text);
    }
    /* Random floats: no exponent, no '+', exact from 0.01 up; below, exact
     * or the value to 10 decimals, as printf's %.10f gives it. */
    uint32_t state_ = 12345;
    for (int i = 0; i < 200000; i++) {
        state_ = state_ * 1664525u + 1013904223u;
        uint32_t bits = state_;
        float f;
        memcpy(&f, &bits, 4);
        if (!isfinite(f)) continue;
        float_text(f, buf);
        assert_null(strpbrk(buf, "eE+in"));
        double back = strtod(buf, NULL);
        if (fabsf(f) >= 0.01f) {
            if ((float)back != f) fail_msg("%.9g written as %s", f, buf);
        } else {
            /* the shortest decimal when it has at most 10 decimals, else
             * the value rounded to 10 */
            char ref[64];
            snprintf(ref, sizeof ref, "%.10f", (double)f);
            if ((float)back != f && back != strtod(ref, NULL))
                fail_msg("%.9g written as %s, %%.10f gives %s", f, buf, ref);
            assert_true((float)back == f || fabs(back - f) <= 5.1e-11);
        }
    }
}

/* -- A model by hand and its exact text ------------------------------------------
 *
 * root at the origin; child at (0,0,2) turned 180 degrees about Z
 * (q = (0,0,1,0): w = 0, written as is; R(conj q) (x,y,z) = (-x,-y,z)).
 * v0 (1,0,0) on root; v1 (0,1,2) on child: offset R^T (0,1,0) = (0,-1,0);
 * v2 (1,1,2) half on each: root offset (1,1,2), child R^T (1,1,0) = (-1,-1,0).
 * Animation "wave", 10 fps, looping: root x 0, 1, 2; child turned 180
 * degrees about Z, then Y, then X. Flags: root Tx (1), child Qx Qy Qz (56)
 * from component 1; a fourth frame repeats frame 0. Exact bounds:
 *   f0 = bind: (1,0,0) (0,1,2) (1,1,2)
 *   f1: root at x 1, child at (1,0,2) turned about Y: (2,0,0) (1,-1,2) (2,0,2)
 *   f2: root at x 2, child at (2,0,2) turned about X: (3,0,0) (2,1,2) (2,1,2) */
static ossa_model *hand_model(void)
{
    ts_joint joints[2] = {{"root", -1, ossa_transform_identity(), true},
                          {"child", 0, ossa_transform_identity(), true}};
    joints[1].pose.translation[2] = 2;
    static const float q180z[4] = {0, 0, 1, 0};
    memcpy(joints[1].pose.rotation, q180z, sizeof q180z);
    static const float pos[9] = {1, 0, 0, 0, 1, 2, 1, 1, 2};
    static const float uv[6] = {0, 0, 1, 0, 0.5f, 1};
    static const float idx[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    static const float wgt[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    static const ts_array arrays[4] = {{OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos},
                                       {OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, "", uv},
                                       {OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx},
                                       {OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, "", wgt}};
    static const ossa_triangle t = {{0, 1, 2}};
    static const ts_mesh mesh = {"m", "mat", 0, 3, 0, 1};
    static const ts_anim wave = {"wave", 3, 10, OSSA_ANIMATION_LOOP};
    ts_model_spec spec = {.num_joints = 2, .joints = joints, .num_vertices = 3, .num_arrays = 4,
                          .arrays = arrays, .num_triangles = 1, .triangles = &t, .num_meshes = 1,
                          .meshes = &mesh, .num_animations = 1, .animations = &wave};
    ossa_model *m = ts_model_build(&spec);
    ossa_animation *a = &m->animations[0];
    static const float q[3][4] = {{0, 0, 1, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}};
    for (int f = 0; f < 3; f++) {
        a->frames[f * 2].translation[0] = (float)f;
        memcpy(a->frames[f * 2 + 1].rotation, q[f], sizeof q[f]);
    }
    return m;
}

static const char hand_md5mesh[] = "MD5Version 10\n"
                                   "commandline \"\"\n"
                                   "\n"
                                   "numJoints 2\n"
                                   "numMeshes 1\n"
                                   "\n"
                                   "joints {\n"
                                   "\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
                                   "\t\"child\"\t0 ( 0 0 2 ) ( 0 0 1 )\t\t// root\n"
                                   "}\n"
                                   "\n"
                                   "mesh {\n"
                                   "\t// meshes: m\n"
                                   "\tshader \"mat\"\n"
                                   "\n"
                                   "\tnumverts 3\n"
                                   "\tvert 0 ( 0 0 ) 0 1\n"
                                   "\tvert 1 ( 1 0 ) 1 1\n"
                                   "\tvert 2 ( 0.5 1 ) 2 2\n"
                                   "\n"
                                   "\tnumtris 1\n"
                                   "\ttri 0 0 1 2\n"
                                   "\n"
                                   "\tnumweights 4\n"
                                   "\tweight 0 0 1 ( 1 0 0 )\n"
                                   "\tweight 1 1 1 ( 0 -1 0 )\n"
                                   "\tweight 2 0 0.5 ( 1 1 2 )\n"
                                   "\tweight 3 1 0.5 ( -1 -1 0 )\n"
                                   "}\n";

static const char hand_md5anim[] = "MD5Version 10\n"
                                   "commandline \"ossa --loop --name wave\"\n"
                                   "\n"
                                   "numFrames 4\n"
                                   "numJoints 2\n"
                                   "frameRate 10\n"
                                   "numAnimatedComponents 4\n"
                                   "\n"
                                   "hierarchy {\n"
                                   "\t\"root\"\t-1 1 0\n"
                                   "\t\"child\"\t0 56 1\t// root\n"
                                   "}\n"
                                   "\n"
                                   "bounds {\n"
                                   "\t( 0 0 0 ) ( 1 1 2 )\n"
                                   "\t( 1 -1 0 ) ( 2 0 2 )\n"
                                   "\t( 2 0 0 ) ( 3 1 2 )\n"
                                   "\t( 0 0 0 ) ( 1 1 2 )\n"
                                   "}\n"
                                   "\n"
                                   "baseframe {\n"
                                   "\t( 0 0 0 ) ( 0 0 0 )\n"
                                   "\t( 0 0 2 ) ( 0 0 1 )\n"
                                   "}\n"
                                   "\n"
                                   "frame 0 {\n\t0\n\t0 0 1\n}\n"
                                   "\n"
                                   "frame 1 {\n\t1\n\t0 1 0\n}\n"
                                   "\n"
                                   "frame 2 {\n\t2\n\t1 0 0\n}\n"
                                   "\n"
                                   "frame 3 {\n\t0\n\t0 0 1\n}\n";

typedef struct messages {
    int count;
    char text[8][256];
    int wrote;
    char paths[8][256];
} messages;

static void collect(void *user, const ossa_diagnostic *d)
{
    messages *m = user;
    if (m->count < 8) snprintf(m->text[m->count], sizeof m->text[0], "%s", d->message);
    m->count++;
}

static void wrote(void *user, const char *path)
{
    messages *m = user;
    if (m->wrote < 8) snprintf(m->paths[m->wrote], sizeof m->paths[0], "%s", path);
    m->wrote++;
}

static bool has_message(const messages *m, const char *needle)
{
    for (int i = 0; i < m->count && i < 8; i++)
        if (strstr(m->text[i], needle)) return true;
    return false;
}

static char *write_text(const ossa_model *m, ossa_format format, uint32_t animation,
                        ossa_bounds_mode bounds, messages *msg)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.animation = animation;
    o.bounds = bounds;
    o.diagnostic = collect;
    o.user = msg;
    void *data;
    size_t size;
    ossa_error err;
    if (ossa_write_memory(m, &o, &data, &size, &err) != OSSA_OK) {
        char buf[600];
        fail_msg("write failed: %s", ossa_error_format(&err, buf, sizeof buf));
    }
    char *text = malloc(size + 1);
    assert_non_null(text);
    memcpy(text, data, size);
    text[size] = 0;
    ossa_free(data, NULL);
    return text;
}

static void test_exact_text(void **state)
{
    (void)state;
    ossa_model *m = hand_model();
    messages msg = {0};
    char *mesh = write_text(m, OSSA_FORMAT_MD5MESH, 0, OSSA_BOUNDS_DEFAULT, &msg);
    assert_string_equal(mesh, hand_md5mesh);
    char *anim = write_text(m, OSSA_FORMAT_MD5ANIM, 0, OSSA_BOUNDS_EXACT, &msg);
    assert_string_equal(anim, hand_md5anim);
    assert_int_equal(msg.count, 0);

    /* and it reads back as the model: the name and loop flag from the
     * command line, the closing copy of frame 0 dropped */
    ossa_model *back = mt_load(anim, "whatever.md5anim");
    assert_string_equal(back->animations[0].name, "wave");
    assert_int_equal(back->animations[0].num_frames, 3);
    assert_int_equal(back->animations[0].flags, OSSA_ANIMATION_LOOP);
    ossa_model_free(back);
    free(mesh);
    free(anim);
    ossa_model_free(m);
}

/* -- Round trips ------------------------------------------------------------------- */

static float model_size(const ossa_model *m)
{
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[3];
        mt_vertex(m, OSSA_VERTEX_POSITION, v, p);
        for (int i = 0; i < 3; i++) {
            if (!v || p[i] < lo[i]) lo[i] = p[i];
            if (!v || p[i] > hi[i]) hi[i] = p[i];
        }
    }
    return sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                 (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* Joints of `b` matched to `a` by name: same parent name, same model-space
 * bind and frames (translation within tol, rotation within rtol). */
static void compare_poses(const ossa_model *a, const ossa_model *b, uint32_t anim_a,
                          uint32_t anim_b, double tol, double rtol)
{
    double *wa = malloc(a->num_joints * MT_WORLD * sizeof *wa),
           *wb = malloc(b->num_joints * MT_WORLD * sizeof *wb);
    ossa_transform *pa = mt_bind_pose(a), *pb = mt_bind_pose(b);
    assert_true(wa && wb);
    uint32_t frames = anim_a == UINT32_MAX ? 1 : a->animations[anim_a].num_frames;
    if (anim_a != UINT32_MAX) assert_true(b->animations[anim_b].num_frames >= frames);
    for (uint32_t f = 0; f < frames; f++) {
        const ossa_transform *fa =
            anim_a == UINT32_MAX ? pa : a->animations[anim_a].frames + (size_t)f * a->num_joints;
        const ossa_transform *fb =
            anim_a == UINT32_MAX ? pb : b->animations[anim_b].frames + (size_t)f * b->num_joints;
        mt_model_space(a, fa, wa);
        mt_model_space(b, fb, wb);
        for (uint32_t j = 0; j < a->num_joints; j++) {
            int32_t k = mt_joint(b, a->joints[j].name);
            if (k < 0) fail_msg("joint '%s' is missing", a->joints[j].name);
            int32_t p = a->joints[j].parent, q = b->joints[k].parent;
            if (p >= 0) assert_string_equal(a->joints[p].name, b->joints[q].name);
            for (int i = 0; i < 3; i++)
                if (fabs(wa[j * MT_WORLD + i] - wb[k * MT_WORLD + i]) > tol)
                    fail_msg("frame %u joint '%s' t[%d]: %.9g vs %.9g", f, a->joints[j].name, i,
                             wa[j * MT_WORLD + i], wb[k * MT_WORLD + i]);
            if (mt_qdist(wa + j * MT_WORLD + 3, wb + k * MT_WORLD + 3) > rtol)
                fail_msg("frame %u joint '%s': rotations differ by %g", f, a->joints[j].name,
                         mt_qdist(wa + j * MT_WORLD + 3, wb + k * MT_WORLD + 3));
        }
    }
    free(wa);
    free(wb);
    free(pa);
    free(pb);
}

static void compare_mesh(const ossa_model *a, const ossa_model *b, double tol)
{
    assert_int_equal(a->num_vertices, b->num_vertices);
    assert_int_equal(a->num_triangles, b->num_triangles);
    assert_int_equal(a->num_meshes, b->num_meshes);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        assert_string_equal(a->meshes[i].name, b->meshes[i].name);
        assert_string_equal(a->meshes[i].material, b->meshes[i].material);
        assert_int_equal(a->meshes[i].num_triangles, b->meshes[i].num_triangles);
    }
    assert_memory_equal(a->triangles, b->triangles, a->num_triangles * sizeof *a->triangles);
    for (uint32_t v = 0; v < a->num_vertices; v++) {
        float x[8], y[8], ia[8] = {0}, ib[8] = {0}, wa[8] = {0}, wb[8] = {0};
        mt_vertex(a, OSSA_VERTEX_POSITION, v, x);
        mt_vertex(b, OSSA_VERTEX_POSITION, v, y);
        for (int i = 0; i < 3; i++)
            if (fabsf(x[i] - y[i]) > tol) fail_msg("vertex %u: %.9g vs %.9g", v, x[i], y[i]);
        mt_vertex(a, OSSA_VERTEX_TEXCOORD, v, x);
        mt_vertex(b, OSSA_VERTEX_TEXCOORD, v, y);
        assert_memory_equal(x, y, 2 * sizeof(float));
        /* influences by joint name, same weight */
        uint32_t n = mt_vertex(a, OSSA_VERTEX_BLENDINDEXES, v, ia);
        mt_vertex(a, OSSA_VERTEX_BLENDWEIGHTS, v, wa);
        mt_vertex(b, OSSA_VERTEX_BLENDINDEXES, v, ib);
        mt_vertex(b, OSSA_VERTEX_BLENDWEIGHTS, v, wb);
        for (uint32_t k = 0; k < n; k++) {
            if (wa[k] <= 0) continue;
            bool found = false;
            for (uint32_t l = 0; l < 8 && !found; l++)
                found = wb[l] > 0 &&
                        strcmp(a->joints[(int)ia[k]].name, b->joints[(int)ib[l]].name) == 0 &&
                        fabsf(wa[k] - wb[l]) < 2e-3f;
            if (!found)
                fail_msg("vertex %u: influence of '%s' (%g) is lost", v, a->joints[(int)ia[k]].name,
                         wa[k]);
        }
    }
}

static ossa_model *reload(const ossa_model *m, ossa_format format, uint32_t anim, const char *name)
{
    messages msg = {0};
    char *text = write_text(m, format, anim, OSSA_BOUNDS_DEFAULT, &msg);
    ossa_model *back = mt_load(text, name);
    free(text);
    return back;
}

/* md5 -> model -> md5 -> model: the same poses, mesh and text. */
static void test_round_trip_md5(void **state)
{
    (void)state;
    ossa_model *m = hand_model();
    ossa_model *a = reload(m, OSSA_FORMAT_MD5MESH, 0, "a.md5mesh");
    ossa_model *an = reload(m, OSSA_FORMAT_MD5ANIM, 0, "a.md5anim");
    ossa_error err;
    assert_int_equal(ossa_model_merge(a, an, &err), OSSA_OK);
    ossa_model_free(an);
    compare_poses(m, a, UINT32_MAX, 0, 1e-6, 1e-6);
    compare_poses(m, a, 0, 0, 1e-6, 1e-6);
    compare_mesh(m, a, 1e-6);

    /* a second time: the text is the same */
    messages msg = {0};
    char *t1 = write_text(a, OSSA_FORMAT_MD5MESH, 0, OSSA_BOUNDS_DEFAULT, &msg);
    char *t2 = write_text(a, OSSA_FORMAT_MD5ANIM, 0, OSSA_BOUNDS_EXACT, &msg);
    assert_string_equal(t1, hand_md5mesh);
    /* the loop's closing frame was dropped on reading and is added again:
     * the same four frames */
    ossa_model *b = mt_load(t2, "b.md5anim");
    assert_int_equal(b->animations[0].num_frames, 3);
    assert_int_equal(b->animations[0].flags, OSSA_ANIMATION_LOOP);
    ossa_model_free(b);
    free(t1);
    free(t2);
    ossa_model_free(a);
    ossa_model_free(m);

    /* SimpleCube: joints and vertices survive */
    unsigned char *file;
    size_t size;
    m = ts_load_shared("md5/SimpleCube.md5mesh", &file, &size);
    a = reload(m, OSSA_FORMAT_MD5MESH, 0, "c.md5mesh");
    compare_poses(m, a, UINT32_MAX, 0, 1e-5, 1e-6);
    compare_mesh(m, a, 1e-4);
    ossa_model *c = reload(a, OSSA_FORMAT_MD5MESH, 0, "d.md5mesh");
    compare_poses(a, c, UINT32_MAX, 0, 1e-5, 1e-6);
    compare_mesh(a, c, 1e-4);
    ossa_model_free(c);
    ossa_model_free(a);
    ossa_model_free(m);
    free(file);
}

/* -- The "origin" root ----------------------------------------------------------- */

static void test_origin(void **state)
{
    (void)state;
    ossa_error err;
    /* two roots, one at a hip height, and a vertex without weights */
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform hip = ossa_transform_identity(), other = ossa_transform_identity();
    hip.translation[2] = 1;
    other.translation[0] = 3;
    ossa_model_add_joint(m, "hip", -1, &hip, &err);
    ossa_model_add_joint(m, "prop", -1, &other, &err);
    static const float pos[9] = {0, 0, 1, 3, 0, 0, 5, 5, 5};
    static const float idx[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    static const float wgt[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    ossa_model_set_num_vertices(m, 3, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, "", wgt, &err);
    ossa_triangle t = {{0, 1, 2}};
    ossa_model_set_triangles(m, 1, &t, &err);
    ossa_animation *a = ossa_model_add_animation(m, "bob", 2, 30, 0, &err);
    a->frames[2].translation[2] = 2; /* hip rises in frame 1 */

    ossa_model *back = reload(m, OSSA_FORMAT_MD5MESH, 0, "o.md5mesh");
    ossa_model *anim = reload(m, OSSA_FORMAT_MD5ANIM, 0, "o.md5anim");
    assert_int_equal(back->num_joints, 3);
    assert_string_equal(back->joints[0].name, "origin");
    assert_int_equal(back->joints[0].parent, -1);
    assert_int_equal(back->joints[1].parent, 0);
    assert_int_equal(back->joints[2].parent, 0);
    assert_int_equal(ossa_model_merge(back, anim, &err), OSSA_OK);
    compare_poses(m, back, UINT32_MAX, 0, 1e-6, 1e-6);
    compare_poses(m, back, 0, 0, 1e-6, 1e-6);
    /* the unweighted vertex hangs from "origin", which never moves */
    float f[4];
    mt_vertex(back, OSSA_VERTEX_BLENDINDEXES, 2, f);
    TS_ASSERT_NEAR(f[0], 0, 0);
    mt_vertex(back, OSSA_VERTEX_POSITION, 2, f);
    TS_ASSERT_NEAR(f[0], 5, 0);
    for (uint32_t fr = 0; fr < 2; fr++) {
        const ossa_transform *o = &back->animations[0].frames[fr * 3];
        TS_ASSERT_NEAR(o->translation[0], 0, 0);
        TS_ASSERT_NEAR(o->rotation[3], -1, 0);
    }
    ossa_model_free(anim);
    ossa_model_free(back);
    ossa_model_free(m);

    /* a mesh without joints: one "origin" joint holds every vertex */
    m = ossa_model_create(NULL);
    ossa_model_set_num_vertices(m, 3, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_set_triangles(m, 1, &t, &err);
    back = reload(m, OSSA_FORMAT_MD5MESH, 0, "s.md5mesh");
    assert_int_equal(back->num_joints, 1);
    assert_string_equal(back->joints[0].name, "origin");
    assert_int_equal(back->num_meshes, 1);
    for (uint32_t v = 0; v < 3; v++) {
        mt_vertex(back, OSSA_VERTEX_POSITION, v, f);
        for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(f[i], pos[v * 3 + i], 0);
    }
    ossa_model_free(back);
    ossa_model_free(m);
}

/* One root at index 0, away from the origin (a hip, as in Blender's
 * exports: Bob's root sits off the origin): the skeleton is written as it
 * is, no joint added, in the md5mesh and the md5anim alike. */
static ossa_model *hip_model(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform hip = ossa_transform_identity(), leg = ossa_transform_identity();
    hip.translation[0] = 0.25f;
    hip.translation[1] = -0.5f;
    hip.translation[2] = 1;
    leg.translation[2] = -1;
    assert_int_equal(ossa_model_add_joint(m, "hip", -1, &hip, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "leg", 0, &leg, &err), 1);
    static const float pos[9] = {0.25f, -0.5f, 1, 0.25f, -0.5f, 0, 1, 1, 1};
    static const float idx[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    static const float wgt[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    ossa_model_set_num_vertices(m, 3, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, "", wgt, &err);
    ossa_triangle t = {{0, 1, 2}};
    ossa_model_set_triangles(m, 1, &t, &err);
    return m;
}

static void test_one_root_kept(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = hip_model();
    /* the third vertex has no weight: it hangs from the root, which never
     * moves in "stand" */
    ossa_animation *a = ossa_model_add_animation(m, "stand", 2, 30, 0, &err);
    assert_non_null(a);
    a->frames[3].rotation[0] = 0.6f; /* the leg swings in frame 1 */
    a->frames[3].rotation[3] = 0.8f;
    ossa_model *back = reload(m, OSSA_FORMAT_MD5MESH, 0, "h.md5mesh");
    ossa_model *anim = reload(m, OSSA_FORMAT_MD5ANIM, 0, "h.md5anim");
    assert_int_equal(back->num_joints, 2);
    assert_string_equal(back->joints[0].name, "hip");
    assert_string_equal(back->joints[1].name, "leg");
    assert_int_equal(back->joints[0].parent, -1);
    assert_int_equal(back->joints[1].parent, 0);
    TS_ASSERT_NEAR(back->joints[0].bind.translation[0], 0.25, 0);
    TS_ASSERT_NEAR(back->joints[0].bind.translation[1], -0.5, 0);
    TS_ASSERT_NEAR(back->joints[0].bind.translation[2], 1, 0);
    assert_int_equal(anim->num_joints, 2);
    assert_int_equal(ossa_model_merge(back, anim, &err), OSSA_OK);
    compare_poses(m, back, UINT32_MAX, 0, 1e-6, 1e-6);
    compare_poses(m, back, 0, 0, 1e-6, 1e-6);
    float f[4];
    mt_vertex(back, OSSA_VERTEX_BLENDINDEXES, 2, f);
    TS_ASSERT_NEAR(f[0], 0, 0);
    mt_vertex(back, OSSA_VERTEX_POSITION, 2, f);
    for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(f[i], 1, 1e-6);
    ossa_model_free(anim);
    ossa_model_free(back);

    /* the root walks: the unweighted vertex now needs a joint that stays,
     * and only then is "origin" added */
    a = &m->animations[0];
    a->frames[2].translation[0] = 2;
    back = reload(m, OSSA_FORMAT_MD5MESH, 0, "w.md5mesh");
    assert_int_equal(back->num_joints, 3);
    assert_string_equal(back->joints[0].name, "origin");
    assert_string_equal(back->joints[1].name, "hip");
    ossa_model_free(back);
    ossa_model_free(m);
}

/* -- Scale ------------------------------------------------------------------------ */

/* Skinned positions of every vertex at frame f (frame UINT32_MAX: bind),
 * through the library's runtime functions. */
static float *skinned(const ossa_model *m, uint32_t f)
{
    float(*model)[16] = malloc(m->num_joints * sizeof *model);
    float(*inv)[16] = malloc(m->num_joints * sizeof *inv);
    ossa_transform *bind = mt_bind_pose(m);
    ossa_local_to_model(
        m, f == UINT32_MAX ? bind : m->animations[0].frames + (size_t)f * m->num_joints, model);
    ossa_model_inverse_bind_matrices(m, inv);
    float *out = calloc(m->num_vertices * 3, sizeof *out);
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[4], idx[8], w[8];
        mt_vertex(m, OSSA_VERTEX_POSITION, v, p);
        uint32_t n = mt_vertex(m, OSSA_VERTEX_BLENDINDEXES, v, idx);
        mt_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, v, w);
        for (uint32_t k = 0; k < n; k++) {
            float s[16];
            ossa__mat4_mul(model[(int)idx[k]], inv[(int)idx[k]], s);
            for (int r = 0; r < 3; r++)
                out[v * 3 + r] +=
                    w[k] * (s[r] * p[0] + s[4 + r] * p[1] + s[8 + r] * p[2] + s[12 + r]);
        }
    }
    free(model);
    free(inv);
    free(bind);
    return out;
}

static void test_scale(void **state)
{
    (void)state;
    ossa_error err;
    /* a uniform scale of 2 on the root, kept in every frame: skinning is
     * rigid, so the MD5 skins every vertex where ossa does */
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform root = ossa_transform_identity(), arm = ossa_transform_identity();
    for (int i = 0; i < 3; i++) root.scale[i] = 2;
    arm.translation[0] = 1;
    float q[4] = {0, 0, 0.6f, 0.8f};
    memcpy(arm.rotation, q, sizeof q);
    ossa_model_add_joint(m, "root", -1, &root, &err);
    ossa_model_add_joint(m, "arm", 0, &arm, &err);
    static const float pos[9] = {0, 0, 0, 2, 0, 0, 3, 1, 0};
    static const float idx[12] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const float wgt[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    ossa_model_set_num_vertices(m, 3, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, "", wgt, &err);
    ossa_triangle t = {{0, 1, 2}};
    ossa_model_set_triangles(m, 1, &t, &err);
    ossa_animation *a = ossa_model_add_animation(m, "turn", 2, 30, 0, &err);
    float q2[4] = {0, 0.6f, 0, 0.8f};
    memcpy(a->frames[3].rotation, q2, sizeof q2);
    a->frames[3].translation[1] = 0.5f;

    messages msg = {0};
    char *mesh = write_text(m, OSSA_FORMAT_MD5MESH, 0, OSSA_BOUNDS_DEFAULT, &msg);
    char *anim = write_text(m, OSSA_FORMAT_MD5ANIM, 0, OSSA_BOUNDS_DEFAULT, &msg);
    assert_int_equal(msg.count, 0);
    ossa_model *back = mt_load(mesh, "s.md5mesh"), *ba = mt_load(anim, "s.md5anim");
    assert_int_equal(ossa_model_merge(back, ba, &err), OSSA_OK);
    for (uint32_t f = 0; f < 2; f++) {
        float *x = skinned(m, f), *y = skinned(back, f);
        for (int i = 0; i < 9; i++)
            if (fabsf(x[i] - y[i]) > 1e-5f)
                fail_msg("frame %u value %d: %g vs %g", f, i, x[i], y[i]);
        free(x);
        free(y);
    }
    ossa_model_free(ba);
    ossa_model_free(back);
    free(mesh);
    free(anim);

    /* a scale that changes: joints keep their model-space places, the
     * writer says what skinning loses */
    for (int i = 0; i < 3; i++) a->frames[2].scale[i] = 3;
    msg.count = 0;
    anim = write_text(m, OSSA_FORMAT_MD5ANIM, 0, OSSA_BOUNDS_DEFAULT, &msg);
    assert_true(has_message(&msg, "animation 'turn': md5anim files store no scale"));
    ba = mt_load(anim, "s.md5anim");
    double w1[2 * MT_WORLD], w2[2 * MT_WORLD];
    mt_model_space(m, a->frames + 2, w1);
    mt_model_space(ba, ba->animations[0].frames + 2, w2);
    /* arm's place: root at the origin scaled by 3 -> (3, 1.5, 0) */
    TS_ASSERT_NEAR(w2[MT_WORLD], 3, 1e-6);
    TS_ASSERT_NEAR(w2[MT_WORLD + 1], 1.5, 1e-6);
    TS_ASSERT_NEAR(w1[MT_WORLD], 3, 1e-6);
    assert_true(mt_qdist(w1 + MT_WORLD + 3, w2 + MT_WORLD + 3) < 1e-6);
    ossa_model_free(ba);
    free(anim);
    ossa_model_free(m);
}

/* -- Names and files --------------------------------------------------------------- */

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_files(void **state)
{
    (void)state;
    ossa_model *m = hand_model();
    ossa_error err;
    ossa_model_add_animation(m, "run fast", 2, 30, 0, &err);
    ossa_model_add_animation(m, "", 1, 30, 0, &err);
    ossa_model_add_animation(m, "wave", 1, 30, 0, &err);
    ossa_model_add_animation(m, "empty", 0, 30, 0, &err);
    ossa_model_add_animation(m, "wave.3", 1, 30, 0, &err); /* the name the second wave took */
    char *dir = ts_tmp_path("md5_files");
    mkdir(dir, 0777);
    char *path = ts_path_join(dir, "hero.md5mesh");
    static const char *const names[] = {"hero.md5mesh", "hero.wave.md5anim",
                                        "hero.run_fast.md5anim", "hero.2.md5anim",
                                        "hero.wave.3.md5anim", "hero.wave.3.5.md5anim"};
    for (int i = 0; i < 6; i++) {
        char *p = ts_path_join(dir, names[i]);
        unlink(p);
        free(p);
    }
    messages msg = {0};
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.diagnostic = collect;
    o.wrote = wrote;
    o.user = &msg;
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    assert_int_equal(msg.wrote, 6);
    assert_true(has_message(&msg, "animation 'empty' has no frames"));
    for (int i = 0; i < 6; i++) {
        char *p = ts_path_join(dir, names[i]);
        assert_string_equal(msg.paths[i], p);
        assert_true(exists(p));
        /* each loads, and the animations keep their names */
        size_t size;
        unsigned char *data = ts_read_file(p, &size);
        ossa_model *x = mt_try(data, size, p, 0, &err);
        assert_non_null(x);
        if (i == 2) assert_string_equal(x->animations[0].name, "run fast");
        /* unnamed: named after its file */
        if (i == 3) assert_string_equal(x->animations[0].name, "hero.2");
        ossa_model_free(x);
        free(data);
        unlink(p);
        free(p);
    }

    /* a failure leaves nothing: an animation with a value that is not
     * finite stops the write */
    m->animations[1].frames[0].translation[0] = NAN;
    msg.wrote = 0;
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_int_equal(msg.wrote, 0);
    for (int i = 0; i < 6; i++) {
        char *p = ts_path_join(dir, names[i]);
        assert_false(exists(p));
        free(p);
    }
    free(path);
    free(dir);
    ossa_model_free(m);
}

static void test_names(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_model_add_joint(m, "a\"b", -1, NULL, &err);
    ossa_model_add_joint(m, "", 0, NULL, &err);
    ossa_model_add_joint(m, "a_b", 0, NULL, &err);
    ossa_model_add_joint(m, "origin", 0, NULL, &err);
    ossa_model_add_joint(m, "x\ny", -1, NULL, &err); /* a second root: "origin" is inserted */
    messages msg = {0};
    char *text = write_text(m, OSSA_FORMAT_MD5MESH, 0, OSSA_BOUNDS_DEFAULT, &msg);
    assert_true(has_message(&msg, "joint names were made writable and unique"));
    ossa_model *back = mt_load(text, "n.md5mesh");
    assert_int_equal(back->num_joints, 6);
    /* the model's joints keep their names first; the inserted root gives way */
    assert_string_equal(back->joints[1].name, "a_b");
    assert_string_equal(back->joints[2].name, "joint2");
    assert_string_equal(back->joints[3].name, "a_b_3");
    assert_string_equal(back->joints[4].name, "origin");
    assert_string_equal(back->joints[5].name, "x_y");
    assert_string_equal(back->joints[0].name, "origin_0");
    ossa_model_free(back);
    free(text);
    ossa_model_free(m);
}

static void test_write_errors(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_model_add_joint(m, "j", -1, NULL, &err);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_MD5ANIM;
    void *data;
    size_t size;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "no animation"));
    ossa_model_add_animation(m, "a", 2, 30, 0, &err);
    o.animation = 1;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_non_null(strstr(err.message, "animation 1 does not exist"));
    o.animation = 0;
    /* frameRate is an integer: 29.97 becomes 30 with a warning */
    m->animations[0].framerate = 29.97f;
    messages msg = {0};
    o.diagnostic = collect;
    o.user = &msg;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    assert_true(has_message(&msg, "29.97 frames per second written as 30"));
    assert_true(has_message(&msg, "no mesh, so its bounds are the box of the joints"));
    ossa_free(data, NULL);
    ossa_model_free(m);

    /* finite values whose offsets from their joint overflow a float */
    m = ossa_model_create(NULL);
    ossa_transform far = ossa_transform_identity();
    far.translation[0] = -3e38f;
    ossa_model_add_joint(m, "far", -1, &far, &err);
    static const float pos[9] = {3e38f, 0, 0, 0, 1, 0, 0, 0, 1};
    static const float one[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const float w1[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    ossa_model_set_num_vertices(m, 3, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", one, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, "", w1, &err);
    ossa_triangle t = {{0, 1, 2}};
    ossa_model_set_triangles(m, 1, &t, &err);
    o.format = OSSA_FORMAT_MD5MESH;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "too far from joint"));
    ossa_model_free(m);
}

/* -- IQM -> MD5 -> IQM ------------------------------------------------------------- */

/* guy.iqm with guyanim.iqm's animations, through MD5 files and back: the
 * same joints (its one root kept where it stands), model-space poses of every frame
 * within 1e-4 of the model's size, the same mesh. guy's "dance" scales
 * its body (up to 2.8): joint places and rotations survive, which is
 * what is compared. */
static void test_iqm_round_trip(void **state)
{
    (void)state;
    unsigned char *f1, *f2;
    size_t s1, s2;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &f1, &s1);
    ossa_model *anims = ts_load_shared("iqm/guyanim.iqm", &f2, &s2);
    ossa_error err;
    assert_int_equal(ossa_model_merge(m, anims, &err), OSSA_OK);
    ossa_model_free(anims);
    assert_true(m->num_animations >= 2);

    char *dir = ts_tmp_path("md5_guy");
    mkdir(dir, 0777);
    char *path = ts_path_join(dir, "guy.md5mesh");
    messages msg = {0};
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.wrote = wrote;
    o.diagnostic = collect;
    o.user = &msg;
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    assert_int_equal(msg.wrote, 1 + (int)m->num_animations);

    ossa_model *back = ossa_load_file(msg.paths[0], NULL, &err);
    assert_non_null(back);
    for (int i = 1; i < msg.wrote; i++) {
        ossa_model *a = ossa_load_file(msg.paths[i], NULL, &err);
        assert_non_null(a);
        assert_int_equal(ossa_model_merge(back, a, &err), OSSA_OK);
        ossa_model_free(a);
    }
    /* IQM again */
    ossa_write_options iqm = {.format = OSSA_FORMAT_IQM};
    void *data;
    size_t size;
    assert_int_equal(ossa_write_memory(back, &iqm, &data, &size, &err), OSSA_OK);
    ossa_model *again = ts_load(data, size);
    ossa_free(data, NULL);

    double tol = 1e-4 * model_size(m);
    assert_int_equal(again->num_joints, m->num_joints); /* one root, off the origin: kept */
    compare_poses(m, again, UINT32_MAX, 0, tol, 1e-4);
    for (uint32_t a = 0; a < m->num_animations; a++) {
        assert_string_equal(again->animations[a].name, m->animations[a].name);
        compare_poses(m, again, a, a, tol, 1e-4);
    }
    assert_int_equal(again->num_vertices, m->num_vertices);
    assert_memory_equal(again->triangles, m->triangles, m->num_triangles * sizeof *m->triangles);
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float x[4], y[4];
        mt_vertex(m, OSSA_VERTEX_POSITION, v, x);
        mt_vertex(again, OSSA_VERTEX_POSITION, v, y);
        for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(x[i], y[i], tol);
    }
    for (int i = 0; i < msg.wrote && i < 8; i++) unlink(msg.paths[i]);
    ossa_model_free(again);
    ossa_model_free(back);
    ossa_model_free(m);
    free(path);
    free(dir);
    free(f1);
    free(f2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),        cmocka_unit_test(test_exact_text),
        cmocka_unit_test(test_round_trip_md5), cmocka_unit_test(test_origin),
        cmocka_unit_test(test_one_root_kept),
        cmocka_unit_test(test_scale),          cmocka_unit_test(test_files),
        cmocka_unit_test(test_names),          cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_iqm_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
