/* SMD reader (docs/formats/smd.md): every block and rule on small texts, with
 * the expected values worked out by hand or by independent code here
 * (Euler angles through rotation matrices, not the library's formula). */
#include "text_format_test.h"

#define SMD OSSA_FORMAT_SMD

static ossa_model *load(const char *text) { return tf_load_with(SMD, text, NULL); }
#define EXPECT_ERROR(text, code, line, column, needle)                                              \
    tf_expect_error(SMD, (text), (code), (line), (column), (needle), __LINE__)

/* -- Euler angles, independently: R = Rz * Ry * Rx, then the quaternion of
 * the matrix by the largest-diagonal method. -- */

static void matmul3(double a[3][3], double b[3][3], double out[3][3])
{
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            out[r][c] = 0;
            for (int k = 0; k < 3; k++) out[r][c] += a[r][k] * b[k][c];
        }
}

static void euler_quat(double rx, double ry, double rz, double q[4])
{
    double X[3][3] = {{1, 0, 0}, {0, cos(rx), -sin(rx)}, {0, sin(rx), cos(rx)}};
    double Y[3][3] = {{cos(ry), 0, sin(ry)}, {0, 1, 0}, {-sin(ry), 0, cos(ry)}};
    double Z[3][3] = {{cos(rz), -sin(rz), 0}, {sin(rz), cos(rz), 0}, {0, 0, 1}};
    double zy[3][3], r[3][3];
    matmul3(Z, Y, zy);
    matmul3(zy, X, r);
    double t = r[0][0] + r[1][1] + r[2][2];
    if (t > 0) {
        double s = sqrt(t + 1) * 2;
        q[3] = s / 4;
        q[0] = (r[2][1] - r[1][2]) / s;
        q[1] = (r[0][2] - r[2][0]) / s;
        q[2] = (r[1][0] - r[0][1]) / s;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        double s = sqrt(1 + r[0][0] - r[1][1] - r[2][2]) * 2;
        q[3] = (r[2][1] - r[1][2]) / s;
        q[0] = s / 4;
        q[1] = (r[0][1] + r[1][0]) / s;
        q[2] = (r[0][2] + r[2][0]) / s;
    } else if (r[1][1] > r[2][2]) {
        double s = sqrt(1 + r[1][1] - r[0][0] - r[2][2]) * 2;
        q[3] = (r[0][2] - r[2][0]) / s;
        q[0] = (r[0][1] + r[1][0]) / s;
        q[1] = s / 4;
        q[2] = (r[1][2] + r[2][1]) / s;
    } else {
        double s = sqrt(1 + r[2][2] - r[0][0] - r[1][1]) * 2;
        q[3] = (r[1][0] - r[0][1]) / s;
        q[0] = (r[0][2] + r[2][0]) / s;
        q[1] = (r[1][2] + r[2][1]) / s;
        q[2] = s / 4;
    }
}

static void test_euler_angles(void **state)
{
    (void)state;
    static const double angles[][3] = {
        {0, 0, 0},      {1.570796, 0, 0}, {0, 1.570796, 0},     {0, 0, 1.570796},
        {0.3, -0.7, 2}, {-2.5, 1.2, -0.4}, {3.14159, 0.5, 0.25}, {0.1, 1.5707963, 0.2},
    };
    for (size_t i = 0; i < sizeof angles / sizeof angles[0]; i++) {
        char text[400];
        snprintf(text, sizeof text,
                 "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 1 2 3 %.7f %.7f %.7f\n"
                 "end\ntriangles\nend\n",
                 angles[i][0], angles[i][1], angles[i][2]);
        ossa_model *m = load(text);
        assert_int_equal(m->num_joints, 1);
        double q[4];
        euler_quat(angles[i][0], angles[i][1], angles[i][2], q);
        const ossa_transform *b = &m->joints[0].bind;
        TF_QUAT(b->rotation, q[0], q[1], q[2], q[3], 2e-7);
        assert_true(b->rotation[3] <= 0); /* stored with w <= 0, as IQM does */
        TF_NEAR(b->translation[0], 1, 0);
        TF_NEAR(b->translation[2], 3, 0);
        TF_NEAR(b->scale[1], 1, 0);
        ossa_model_free(m);
    }
    /* By hand: 90 degrees about X is (sin 45, 0, 0, cos 45), turned to w <= 0. */
    ossa_model *m = load("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n"
                         "0 0 0 0 1.5707963268 0 0\nend\ntriangles\nend\n");
    const float *q = m->joints[0].bind.rotation;
    TF_NEAR(q[0], -0.70710678, 1e-7);
    TF_NEAR(q[1], 0, 1e-7);
    TF_NEAR(q[2], 0, 1e-7);
    TF_NEAR(q[3], -0.70710678, 1e-7);
    ossa_model_free(m);
}

/* -- version -- */

static void test_version(void **state)
{
    (void)state;
    EXPECT_ERROR("", OSSA_ERROR_TRUNCATED, 1, 1, "expected 'version 1'");
    EXPECT_ERROR("nodes\nend\n", OSSA_ERROR_CORRUPT, 1, 1, "expected 'version 1'");
    EXPECT_ERROR("version 3\nnodes\nend\n", OSSA_ERROR_UNSUPPORTED, 1, 9, "version 3");
    EXPECT_ERROR("version one\n", OSSA_ERROR_CORRUPT, 1, 9, "version number");
    EXPECT_ERROR("version 1 2\n", OSSA_ERROR_CORRUPT, 1, 11, "end of the line");
    /* keywords in any case, comments and blank lines anywhere */
    ossa_model *m = load("// made by hand\n\nVERSION 2 # later studiomdl\nNodes\n; a comment\n"
                         "0 \"a\" -1\nEND\nskeleton\n# here too\ntime 0\n0 0 0 0 0 0 0\nend\n"
                         "triangles\nend\n");
    assert_non_null(tf_warning(m, OSSA_WARNING_NONSTANDARD, "version 2"));
    assert_int_equal(m->warnings[0].line, 3);
    assert_int_equal(m->num_joints, 1);
    ossa_model_free(m);
    EXPECT_ERROR("version 1\n", OSSA_ERROR_TRUNCATED, 2, 1, "no 'nodes' block");
    EXPECT_ERROR("version 1\nnodes\nend\n", OSSA_ERROR_TRUNCATED, 4, 1, "no 'skeleton' block");
    EXPECT_ERROR("version 1\nversion 1\n", OSSA_ERROR_CORRUPT, 2, 1, "second 'version'");
    /* an unknown statement is skipped with a warning */
    m = load("version 1\nnodes\nend\nskeleton\nend\nbogus 1 2\n");
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "unknown statement 'bogus'"));
    ossa_model_free(m);
    /* one warning per keyword, for 16 keywords: garbage costs no memory
     * per line */
    char text[4000] = "version 1\nnodes\nend\nskeleton\nend\n";
    for (int i = 0; i < 30; i++)
        for (int k = 0; k < 3; k++)
            snprintf(text + strlen(text), sizeof text - strlen(text), "junk%d\n", i);
    m = load(text);
    uint32_t unknown = 0;
    for (uint32_t i = 0; i < m->num_warnings; i++)
        unknown += strstr(m->warnings[i].message, "unknown statement") != NULL;
    assert_int_equal(unknown, 17);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "more unknown statements"));
    ossa_model_free(m);
}

/* -- nodes (§4) -- */

static void test_nodes(void **state)
{
    (void)state;
    /* ids need not be sequential; a child may come before its parent; names
     * may be bare words */
    ossa_model *m = load("version 1\nnodes\n7 \"hand\" 3\n3 \"arm\" 10\n10 root -1\n"
                         "12 \"two words\" 10\nend\nskeleton\ntime 0\n"
                         "7 1 0 0 0 0 0\n3 2 0 0 0 0 0\n10 3 0 0 0 0 0\n12 4 0 0 0 0 0\nend\n"
                         "triangles\nend\n");
    assert_int_equal(m->num_joints, 4);
    /* parents first, otherwise file order: root, arm, hand, two words */
    assert_string_equal(m->joints[0].name, "root");
    assert_string_equal(m->joints[1].name, "arm");
    assert_string_equal(m->joints[2].name, "hand");
    assert_string_equal(m->joints[3].name, "two words");
    assert_int_equal(m->joints[0].parent, -1);
    assert_int_equal(m->joints[1].parent, 0);
    assert_int_equal(m->joints[2].parent, 1);
    assert_int_equal(m->joints[3].parent, 0);
    /* poses follow their bones, not the file order */
    TF_NEAR(m->joints[0].bind.translation[0], 3, 0);
    TF_NEAR(m->joints[1].bind.translation[0], 2, 0);
    TF_NEAR(m->joints[2].bind.translation[0], 1, 0);
    TF_NEAR(m->joints[3].bind.translation[0], 4, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "reordered"));
    ossa_model_free(m);

    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\n0 \"b\" 0\nend\n", OSSA_ERROR_CORRUPT, 4, 1,
                 "bone id 0 is declared twice (first on line 3)");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\n1 \"a\" 0\nend\n", OSSA_ERROR_CORRUPT, 4, 3,
                 "'a' is declared twice");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\n1 \"b\" 5\nend\n", OSSA_ERROR_CORRUPT, 4, 7,
                 "parent 5 of bone 1");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" 1\n1 \"b\" 0\nend\n", OSSA_ERROR_CORRUPT, 3, 7,
                 "cycle");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" 0\nend\n", OSSA_ERROR_CORRUPT, 3, 7, "cycle");
    EXPECT_ERROR("version 1\nnodes\n-1 \"a\" -1\nend\n", OSSA_ERROR_CORRUPT, 3, 1, "out of range");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -2\nend\n", OSSA_ERROR_CORRUPT, 3, 7, "out of range");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\"\nend\n", OSSA_ERROR_CORRUPT, 3, 6, "parent's bone id");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1 x\nend\n", OSSA_ERROR_CORRUPT, 3, 10,
                 "end of the line");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\n", OSSA_ERROR_TRUNCATED, 4, 1,
                 "ends inside the 'nodes' block of line 2");
    EXPECT_ERROR("version 1\nnodes\nend\nnodes\nend\n", OSSA_ERROR_CORRUPT, 4, 1, "second 'nodes'");
}

/* -- skeleton (§5) -- */

static const char anim_text[] =
    "version 1\n"
    "nodes\n"
    "0 \"root\" -1\n"
    "1 \"child\" 0\n"
    "end\n"
    "skeleton\n"
    "time 10\n"      /* the first time is frame 0 */
    "0 1 0 0 0 0 0\n" /* child missing from the first frame */
    "time 12\n"      /* time 11 missing: repeats frame 0 */
    "1 5 0 0 0 0 0\n" /* root missing: takes frame 1's */
    "time 13\n"
    "0 3 0 0 0 0 0\n"
    "1 6 0 0 0 0 0\n"
    "time 12\n" /* a later block for the same time overrides */
    "0 2 0 0 0 0 0\n"
    "end\n";

static void test_skeleton_frames(void **state)
{
    (void)state;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = "dir/walk.cycle.smd";
    ossa_model *m = tf_load_with(SMD, anim_text, &o);
    assert_true(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    assert_int_equal(m->num_animations, 1);
    const ossa_animation *a = &m->animations[0];
    assert_string_equal(a->name, "walk.cycle");
    assert_int_equal(a->num_frames, 4);
    TF_NEAR(a->framerate, 30, 0);
    assert_int_equal(a->flags, 0);
    /* expected root x and child x per frame, by the rules of §5 */
    static const float root[4] = {1, 1, 2, 3}, child[4] = {5, 5, 5, 6};
    for (uint32_t f = 0; f < 4; f++) {
        TF_NEAR(a->frames[f * 2 + 0].translation[0], root[f], 0);
        TF_NEAR(a->frames[f * 2 + 1].translation[0], child[f], 0);
    }
    /* frame 0 stands in for the bind pose */
    TF_NEAR(m->joints[0].bind.translation[0], 1, 0);
    TF_NEAR(m->joints[1].bind.translation[0], 5, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "1 frame numbers have no 'time'"));
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "missing from the first frame"));
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "no frame rate"));
    ossa_model_free(m);

    /* the frame rate comes from the load options when given */
    o.framerate = 24;
    m = tf_load_with(SMD, anim_text, &o);
    TF_NEAR(m->animations[0].framerate, 24, 0);
    assert_null(tf_warning(m, OSSA_WARNING_REPAIRED, "no frame rate"));
    ossa_model_free(m);

    /* a bone with no pose at all is marked as not animated */
    m = load("version 1\nnodes\n0 \"root\" -1\n1 \"child\" 0\nend\nskeleton\ntime 0\n"
             "0 1 0 0 0 0 0\ntime 1\n0 2 0 0 0 0 0\nend\n");
    assert_non_null(m->animations[0].channels);
    assert_int_equal(m->animations[0].channels[0], 7);
    assert_int_equal(m->animations[0].channels[1], 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "no pose in any frame (first: 'child')"));
    ossa_model_free(m);

    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\n0 0 0 0 0 0 0\nend\n",
                 OSSA_ERROR_CORRUPT, 6, 1, "'time N' before the first bone line");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n1 0 0 0 0 0 0\nend\n",
                 OSSA_ERROR_CORRUPT, 7, 1, "bone id 1 is not declared");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0\nend\n",
                 OSSA_ERROR_CORRUPT, 7, 12, "rotation z");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 nan 0 0 0 0\nend\n",
                 OSSA_ERROR_CORRUPT, 7, 5, "not a finite number");
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime x\n", OSSA_ERROR_CORRUPT, 6, 6,
                 "frame number");
    EXPECT_ERROR("version 1\nskeleton\nend\n", OSSA_ERROR_CORRUPT, 2, 1, "before the 'nodes'");
    EXPECT_ERROR("version 1\nnodes\nend\nskeleton\ntime 0\n", OSSA_ERROR_TRUNCATED, 6, 1,
                 "'skeleton' block of line 4");
    /* a time jump that asks for far more frames than the text could hold */
    EXPECT_ERROR("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\n"
                 "time 2000000000\nend\n",
                 OSSA_ERROR_CORRUPT, 8, 1, "out of proportion");
}

static void test_reference_pose(void **state)
{
    (void)state;
    /* with triangles: the first frame is the bind pose; others are
     * ignored; bones it omits get the identity */
    ossa_model *m = load("version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\nend\nskeleton\ntime 5\n"
                         "1 0 0 0 0 0 0\ntime 4\n0 7 8 9 0 0 0\nend\ntriangles\nend\n");
    assert_int_equal(m->num_animations, 0);
    assert_false(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    TF_NEAR(m->joints[0].bind.translation[1], 8, 0);
    TF_NEAR(m->joints[1].bind.translation[0], 0, 0);
    TF_NEAR(m->joints[1].bind.rotation[3], 1, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "bind pose is frame 4"));
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "1 bones have no pose in the reference"));
    ossa_model_free(m);
}

/* -- triangles (§6) -- */

/* The synthetic pair of §16: weights (root 0.75, child 0.25), (0.5, 0.5),
 * (child 1.0); materials a.bmp, b.bmp, a.bmp give two meshes. */
static const char weights_text[] =
    "version 1\n"
    "nodes\n"
    "0 \"root\" -1\n"
    "1 \"child\" 0\n"
    "end\n"
    "skeleton\n"
    "time 0\n"
    "0 0 0 0 0 0 0\n"
    "1 0 0 1 0 0 0\n"
    "end\n"
    "triangles\n"
    "a.bmp\n"
    "0 0 0 0 0 0 1 0.25 0.75 1 1 0.25\n"
    "1 1 0 0 0 0 1 0.5 0.5 2 0 0.5 1 0.5\n"
    "1 0 1 0 0 0 1 1 1 1 1 1.0\n"
    "b.bmp\n"
    "0 5 0 0 0 0 2 0 0\n"
    "0 6 0 0 0 0 2 0 0\n"
    "0 5 1 0 0 0 2 0 0\n"
    "a.bmp\n"
    "1 9 0 0 0 0 1 0 0 0\n"
    "1 9 1 0 0 0 1 0 0 0\n"
    "1 8 1 0 0 0 1 0 0 0\n"
    "end\n";

/* Weight of joint j at vertex v (0 when it has none). */
static float weight_of(const ossa_model *m, uint32_t v, uint32_t j)
{
    float idx[8], w[8], sum = 0;
    tf_get(m, OSSA_VERTEX_BLENDINDEXES, v, idx);
    tf_get(m, OSSA_VERTEX_BLENDWEIGHTS, v, w);
    for (int k = 0; k < 4; k++)
        if (w[k] > 0 && idx[k] == (float)j) sum += w[k];
    return sum;
}

/* The model vertex with this position. */
static uint32_t vertex_at(const ossa_model *m, float x, float y, float z)
{
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[8];
        tf_get(m, OSSA_VERTEX_POSITION, v, p);
        if (p[0] == x && p[1] == y && p[2] == z) return v;
    }
    fail_msg("no vertex at %g %g %g", x, y, z);
    return 0;
}

static void test_triangles(void **state)
{
    (void)state;
    ossa_model *m = load(weights_text);
    /* one mesh per material, in order of first appearance */
    assert_int_equal(m->num_meshes, 2);
    assert_string_equal(m->meshes[0].name, "a");
    assert_string_equal(m->meshes[0].material, "a.bmp");
    assert_int_equal(m->meshes[0].num_triangles, 2);
    assert_string_equal(m->meshes[1].name, "b");
    assert_int_equal(m->meshes[1].num_triangles, 1);
    assert_int_equal(m->num_triangles, 3);

    /* weights: links short of 1 give the rest to the parent bone */
    uint32_t v0 = vertex_at(m, 0, 0, 0), v1 = vertex_at(m, 1, 0, 0), v2 = vertex_at(m, 0, 1, 0);
    TF_NEAR(weight_of(m, v0, 0), 0.75, 1.0 / 255);
    TF_NEAR(weight_of(m, v0, 1), 0.25, 1.0 / 255);
    TF_NEAR(weight_of(m, v1, 0), 0.5, 1.0 / 255);
    TF_NEAR(weight_of(m, v1, 1), 0.5, 1.0 / 255);
    TF_NEAR(weight_of(m, v2, 1), 1, 0);
    /* GoldSrc lines (9 fields) and links 0: the parent column, weight 1 */
    TF_NEAR(weight_of(m, vertex_at(m, 5, 0, 0), 0), 1, 0);
    TF_NEAR(weight_of(m, vertex_at(m, 9, 0, 0), 1), 1, 0);

    /* winding: the file's corners (0 1 2) are ossa's (2 1 0) */
    const ossa_triangle *t = &m->triangles[0];
    assert_int_equal(t->v[0], v2);
    assert_int_equal(t->v[1], v1);
    assert_int_equal(t->v[2], v0);
    /* texture v flipped: (0.25, 0.75) -> (0.25, 0.25) */
    float uv[8];
    tf_get(m, OSSA_VERTEX_TEXCOORD, v0, uv);
    TF_NEAR(uv[0], 0.25, 0);
    TF_NEAR(uv[1], 0.25, 0);
    /* normals normalized: (0, 0, 2) -> (0, 0, 1) */
    float n[8];
    tf_get(m, OSSA_VERTEX_NORMAL, vertex_at(m, 5, 0, 0), n);
    TF_NEAR(n[2], 1, 0);
    ossa_model_free(m);

    /* duplicates summed, more than 4 influences cut to the largest 4 */
    m = load("version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\n2 \"c\" 0\n3 \"d\" 0\n4 \"e\" 0\nend\n"
             "skeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nm\n"
             "0 0 0 0 0 0 1 0 0 6 1 0.1 1 0.1 2 0.3 3 0.25 4 0.15 0 0.1\n"
             "0 1 0 0 0 0 1 0 0 1 4 1\n0 0 1 0 0 0 1 0 0 1 4 1\nend\n");
    uint32_t v = vertex_at(m, 0, 0, 0);
    /* b 0.2, c 0.3, d 0.25, e 0.15, a 0.1: a is dropped, the rest / 0.9 */
    TF_NEAR(weight_of(m, v, 0), 0, 0);
    TF_NEAR(weight_of(m, v, 1), 0.2 / 0.9, 1.0 / 255);
    TF_NEAR(weight_of(m, v, 2), 0.3 / 0.9, 1.0 / 255);
    TF_NEAR(weight_of(m, v, 3), 0.25 / 0.9, 1.0 / 255);
    TF_NEAR(weight_of(m, v, 4), 0.15 / 0.9, 1.0 / 255);
    assert_non_null(tf_warning(m, OSSA_WARNING_LIMITED, "more than 4"));
    ossa_model_free(m);

    /* more influences kept when asked */
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.max_influences = 2;
    m = tf_load_with(SMD,
                     "version 1\nnodes\n0 \"a\" -1\n1 \"b\" 0\n2 \"c\" 0\nend\nskeleton\ntime 0\n"
                     "0 0 0 0 0 0 0\nend\ntriangles\nm\n0 0 0 0 0 0 1 0 0 3 0 0.2 1 0.3 2 0.5\n"
                     "0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n",
                     &o);
    assert_int_equal(ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL)->size, 2);
    v = vertex_at(m, 0, 0, 0);
    TF_NEAR(weight_of(m, v, 2), 0.5 / 0.8, 1.0 / 255);
    TF_NEAR(weight_of(m, v, 1), 0.3 / 0.8, 1.0 / 255);
    ossa_model_free(m);
}

static void test_triangle_details(void **state)
{
    (void)state;
    /* identical corners weld; a material line is the whole line; zero
     * normals are regenerated from the faces */
    ossa_model *m = load("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\n"
                         "triangles\nmy skin.v2.tga  \n0 0 0 0 0 0 0 0 0\n0 1 0 0 0 0 0 0 0\n"
                         "0 0 1 0 0 0 0 0 0\nmy skin.v2.tga\n0 0 0 0 0 0 0 0 0\n"
                         "0 0 1 0 0 0 0 0 0\n0 0 0 1 0 0 0 0 0\nend\n");
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].material, "my skin.v2.tga");
    assert_string_equal(m->meshes[0].name, "my skin.v2");
    assert_int_equal(m->num_vertices, 4);
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "zero normal"));
    /* Counter-clockwise in the file: the first triangle (0,0,0) (1,0,0)
     * (0,1,0) faces +z, the second (0,0,0) (0,1,0) (0,0,1) faces +x, both
     * of area 1/2; corners at one position share the normalized sum. */
    float n[8];
    tf_get(m, OSSA_VERTEX_NORMAL, vertex_at(m, 1, 0, 0), n);
    TF_NEAR(n[0], 0, 1e-7);
    TF_NEAR(n[1], 0, 1e-7);
    TF_NEAR(n[2], 1, 1e-7);
    tf_get(m, OSSA_VERTEX_NORMAL, vertex_at(m, 0, 0, 1), n);
    TF_NEAR(n[0], 1, 1e-7);
    tf_get(m, OSSA_VERTEX_NORMAL, vertex_at(m, 0, 0, 0), n);
    TF_NEAR(n[0], sqrt(0.5), 1e-7);
    TF_NEAR(n[1], 0, 1e-7);
    TF_NEAR(n[2], sqrt(0.5), 1e-7);
    tf_get(m, OSSA_VERTEX_NORMAL, vertex_at(m, 0, 1, 0), n);
    TF_NEAR(n[0], sqrt(0.5), 1e-7);
    ossa_model_free(m);

    /* a triangle whose corners are one vertex twice is dropped */
    m = load("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\n"
             "triangles\nm\n0 0 0 0 0 0 1 0 0\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n"
             "m\n0 0 0 0 0 0 1 0 0\n0 1 0 0 0 0 1 0 0\n0 0 1 0 0 0 1 0 0\nend\n");
    assert_int_equal(m->num_triangles, 1);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "1 degenerate triangle (a vertex repeated) dropped"));
    ossa_model_free(m);

    const char *head = "version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\nend\n";
    char text[600];
    snprintf(text, sizeof text, "%striangles\nm\n0 0 0 0 0 0 1 0\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_CORRUPT, 11, 16, "texture v");
    snprintf(text, sizeof text, "%striangles\nm\n0 0 0 0 0 0 1 0 0 2 0 1\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_CORRUPT, 11, 24, "expected 2 (bone, weight) pairs");
    snprintf(text, sizeof text, "%striangles\nm\n0 0 0 0 0 0 1 0 0 1 3 1\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_CORRUPT, 11, 21, "link bone id 3 is not declared");
    snprintf(text, sizeof text, "%striangles\nm\n4 0 0 0 0 0 1 0 0\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_CORRUPT, 11, 1, "parent bone id 4");
    snprintf(text, sizeof text, "%striangles\nm\n0 0 0 0 0 0 1 0 0\nend\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_CORRUPT, 12, 1, "expected vertex line 2 of 3");
    snprintf(text, sizeof text, "%striangles\nm\n0 0 0 0 0 0 1 0 0\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_TRUNCATED, 12, 1, "vertex line 2 of 3");
    snprintf(text, sizeof text, "%striangles\nm\n0 0 0 0 0 0 1 0 x\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_CORRUPT, 11, 17, "texture v");
    snprintf(text, sizeof text, "%striangles\nm\n0 0 0 0 0 0 1 0 0 1 0 inf\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_CORRUPT, 11, 23, "not a finite number");
    snprintf(text, sizeof text, "%striangles\n", head);
    EXPECT_ERROR(text, OSSA_ERROR_TRUNCATED, 10, 1, "'triangles' block of line 9");
}

/* -- vertexanimation (§7), line ends, NUL -- */

static void test_flex_and_text(void **state)
{
    (void)state;
    ossa_model *m = load("version 1\nnodes\n0 \"a\" -1\nend\nskeleton\ntime 0\ntime 1 # shape\n"
                         "end\nvertexanimation\ntime 0\n0 0 0 0 0 0 1\ntime 1\n0 1 0 0 0 0 1\nend\n");
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "'vertexanimation'"));
    assert_int_equal(m->warnings[0].line, 9);
    assert_int_equal(m->num_animations, 0);
    assert_int_equal(m->num_joints, 1);
    ossa_model_free(m);
    EXPECT_ERROR("version 1\nnodes\nend\nskeleton\nend\nvertexanimation\ntime 0\n",
                 OSSA_ERROR_TRUNCATED, 8, 1, "'vertexanimation' block of line 6");

    /* CRLF and lone CR line ends read alike; errors count CR lines */
    m = load("version 1\r\nnodes\r\n0 \"a b\" -1\r\nend\r\nskeleton\r\ntime 0\r\n"
             "0 1 2 3 0 0 0\r\nend\r\n");
    assert_string_equal(m->joints[0].name, "a b");
    ossa_model_free(m);
    m = load("version 1\rnodes\r0 \"a\" -1\rend\rskeleton\rtime 0\r0 1 2 3 0 0 0\rend\r");
    TF_NEAR(m->joints[0].bind.translation[2], 3, 0);
    ossa_model_free(m);
    EXPECT_ERROR("version 1\rnodes\r0 \"a\" x\rend\r", OSSA_ERROR_CORRUPT, 3, 7, "parent");

    ossa_error err;
    static const char nul[] = "version 1\nno\0des\n";
    assert_null(tf_try(SMD, nul, sizeof nul - 1, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_FORMAT);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 3);
}

/* -- Detection and the studiomdl turn -- */

static void test_detect_and_turn(void **state)
{
    (void)state;
    static const char text[] = "// comment\n\n  Version 1\nnodes\n0 \"a\" -1\nend\nskeleton\n"
                               "time 0\n0 1 2 3 0 0 0\nend\ntriangles\nm\n0 1 0 0 1 0 0 0 0\n"
                               "0 0 1 0 0 1 0 0 0\n0 0 0 1 0 0 1 0 0\nend\n";
    assert_int_equal(ossa_format_detect(text, strlen(text)), OSSA_FORMAT_SMD);
    assert_int_equal(ossa_format_detect("versions 1\n", 11), OSSA_FORMAT_AUTO);
    assert_int_equal(ossa_format_from_name("x/y.SMD"), OSSA_FORMAT_SMD);

    ossa_load_options o;
    memset(&o, 0, sizeof o);
    const ossa_option turn = {"smd.turn", NULL};
    o.format_options = &turn;
    o.num_format_options = 1;
    ossa_model *m = tf_load_with(SMD, text, &o);
    /* +90 degrees about Z: (x, y, z) -> (-y, x, z), for the root's
     * translation and rotation and for the mesh */
    const ossa_transform *b = &m->joints[0].bind;
    TF_NEAR(b->translation[0], -2, 1e-6);
    TF_NEAR(b->translation[1], 1, 1e-6);
    TF_NEAR(b->translation[2], 3, 1e-6);
    TF_QUAT(b->rotation, 0, 0, sqrt(0.5), sqrt(0.5), 1e-7);
    float p[8], n[8];
    tf_get(m, OSSA_VERTEX_POSITION, 0, p);
    tf_get(m, OSSA_VERTEX_NORMAL, 0, n);
    /* vertex 0 is the file's third corner: (0, 0, 1), normal (0, 0, 1) */
    TF_NEAR(p[2], 1, 0);
    uint32_t v1 = 1;
    tf_get(m, OSSA_VERTEX_POSITION, v1, p);
    tf_get(m, OSSA_VERTEX_NORMAL, v1, n);
    /* the file's second corner (0, 1, 0) with normal (0, 1, 0) -> (-1, 0, 0) */
    TF_NEAR(p[0], -1, 1e-7);
    TF_NEAR(p[1], 0, 1e-7);
    TF_NEAR(n[0], -1, 1e-7);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_euler_angles),     cmocka_unit_test(test_version),
        cmocka_unit_test(test_nodes),            cmocka_unit_test(test_skeleton_frames),
        cmocka_unit_test(test_reference_pose),   cmocka_unit_test(test_triangles),
        cmocka_unit_test(test_triangle_details), cmocka_unit_test(test_flex_and_text),
        cmocka_unit_test(test_detect_and_turn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
