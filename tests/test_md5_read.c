/* MD5 reader (formats/md5.md): every keyword on small files whose
 * expected joints, positions, normals, blend data and frames were worked
 * out by hand (the derivations are in the comments), the text layouts
 * id's tokenizer allows, the real files' counts and geometry, and located
 * errors for malformed input. */
#include "md5_test.h"

#include "formats/md5/lex.h"

#define TOL 1e-6

/* -- A mesh by hand ------------------------------------------------------------
 *
 * root: model space t (1,2,3), q xyz (0,0,0.6) -> w = -0.8. As a rotation
 * about Z with cos(a/2) = 0.8, sin(a/2) = -0.6: cos a = 0.28, sin a = -0.96,
 * so R x = (0.28, -0.96, 0), R y = (0.96, 0.28, 0), R z = z.
 * arm: model space t (3,2,3), q identity. Parent-relative:
 *   t = R^T ((3,2,3) - (1,2,3)) = R^T (2,0,0) = (2*0.28, 2*0.96, 0) = (0.56, 1.92, 0)
 *   q = conj(q_root) * identity = (0, 0, -0.6, -0.8) (w <= 0 as written)
 * vert 0: root, offset (1,0,0): (1,2,3) + R x = (1.28, 1.04, 3)
 * vert 1: arm, offset (0,1,0): (3,3,3)
 * vert 2: root 0.25 at (0,1,0): (1,2,3) + R y = (1.96, 2.28, 3);
 *         arm 0.75 at (-1.04, 0.28, 0): (1.96, 2.28, 3); the same point.
 * Normal: (p2 - p0) x (p1 - p0) = (0.68, 1.24, 0) x (1.72, 1.96, 0)
 *         = (0, 0, 0.68*1.96 - 1.24*1.72) = (0, 0, -0.8) -> (0, 0, -1). */
static const char hand_mesh[] = "MD5Version 10\n"
                                "commandline \"by hand\"\n"
                                "\n"
                                "numJoints 2\n"
                                "numMeshes 1\n"
                                "\n"
                                "joints {\n"
                                "\t\"root\"\t-1 ( 1 2 3 ) ( 0 0 0.6 )\t\t// \n"
                                "\t\"arm\"\t0 ( 3 2 3 ) ( 0 0 0 )\t\t// root\n"
                                "}\n"
                                "\n"
                                "mesh {\n"
                                "\t// meshes: body\n"
                                "\tshader \"models/characters/body\"\n"
                                "\n"
                                "\tnumverts 3\n"
                                "\tvert 0 ( 0.25 0.5 ) 0 1\n"
                                "\tvert 1 ( 1 0 ) 1 1\n"
                                "\tvert 2 ( 0 1 ) 2 2\n"
                                "\n"
                                "\tnumtris 1\n"
                                "\ttri 0 0 1 2\n"
                                "\n"
                                "\tnumweights 4\n"
                                "\tweight 0 0 1 ( 1 0 0 )\n"
                                "\tweight 1 1 1 ( 0 1 0 )\n"
                                "\tweight 2 0 0.25 ( 0 1 0 )\n"
                                "\tweight 3 1 0.75 ( -1.04 0.28 0 )\n"
                                "}\n";

static void check_hand_mesh(const ossa_model *m)
{
    assert_int_equal(m->source_format, OSSA_FORMAT_MD5MESH);
    assert_int_equal(m->num_joints, 2);
    assert_string_equal(m->joints[0].name, "root");
    assert_string_equal(m->joints[1].name, "arm");
    assert_int_equal(m->joints[0].parent, -1);
    assert_int_equal(m->joints[1].parent, 0);
    const ossa_transform *r = &m->joints[0].bind, *a = &m->joints[1].bind;
    float rt[3] = {1, 2, 3}, rq[4] = {0, 0, 0.6f, -0.8f};
    float at[3] = {0.56f, 1.92f, 0}, aq[4] = {0, 0, -0.6f, -0.8f};
    for (int i = 0; i < 3; i++) {
        TS_ASSERT_NEAR(r->translation[i], rt[i], TOL);
        TS_ASSERT_NEAR(a->translation[i], at[i], TOL);
        TS_ASSERT_NEAR(r->scale[i], 1, 0);
        TS_ASSERT_NEAR(a->scale[i], 1, 0);
    }
    for (int i = 0; i < 4; i++) {
        TS_ASSERT_NEAR(r->rotation[i], rq[i], TOL);
        TS_ASSERT_NEAR(a->rotation[i], aq[i], TOL);
    }

    assert_int_equal(m->num_vertices, 3);
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "body");
    assert_string_equal(m->meshes[0].material, "models/characters/body");
    assert_int_equal(m->triangles[0].v[0], 0);
    assert_int_equal(m->triangles[0].v[1], 1);
    assert_int_equal(m->triangles[0].v[2], 2);
    static const float pos[3][3] = {{1.28f, 1.04f, 3}, {3, 3, 3}, {1.96f, 2.28f, 3}};
    static const float uv[3][2] = {{0.25f, 0.5f}, {1, 0}, {0, 1}};
    static const float idx[3][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}};
    static const float wgt[3][4] = {{1, 0, 0, 0}, {1, 0, 0, 0}, {0.75f, 0.25f, 0, 0}};
    for (uint32_t v = 0; v < 3; v++) {
        float f[8];
        assert_int_equal(mt_vertex(m, OSSA_VERTEX_POSITION, v, f), 3);
        for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(f[i], pos[v][i], TOL);
        assert_int_equal(mt_vertex(m, OSSA_VERTEX_TEXCOORD, v, f), 2);
        for (int i = 0; i < 2; i++) TS_ASSERT_NEAR(f[i], uv[v][i], 0);
        assert_int_equal(mt_vertex(m, OSSA_VERTEX_NORMAL, v, f), 3);
        TS_ASSERT_NEAR(f[0], 0, TOL);
        TS_ASSERT_NEAR(f[1], 0, TOL);
        TS_ASSERT_NEAR(f[2], -1, TOL);
        assert_int_equal(mt_vertex(m, OSSA_VERTEX_BLENDINDEXES, v, f), 4);
        for (int i = 0; i < 4; i++) TS_ASSERT_NEAR(f[i], idx[v][i], 0);
        assert_int_equal(mt_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, v, f), 4);
        for (int i = 0; i < 4; i++) TS_ASSERT_NEAR(f[i], wgt[v][i], TOL);
    }
}

static void test_mesh_by_hand(void **state)
{
    (void)state;
    ossa_model *m = mt_load(hand_mesh, "hand.md5mesh");
    check_hand_mesh(m);
    assert_int_equal(m->num_warnings, 0);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    ossa_model_free(m);
}

/* The same statements in layouts id's tokenizer reads: one line, comments
 * of both kinds anywhere, CRLF and lone CR line ends, a byte order mark,
 * no blanks next to parentheses, bare words for strings. */
static void test_mesh_layouts(void **state)
{
    (void)state;
    static const char one_line[] =
        "MD5Version 10 commandline \"by hand\" numJoints 2 numMeshes 1 joints { \"root\" -1 "
        "(1 2 3)(0 0 0.6) /* a comment */ arm 0 (3 2 3)(0 0 0) } mesh { // meshes: body\n"
        "shader models/characters/body numverts 3 vert 0(0.25 0.5)0 1 vert 1 (1 0) 1 1 vert 2 (0 "
        "1) 2 2 numtris 1 tri 0 0 1 2 numweights 4 weight 0 0 1 (1 0 0) weight 1 1 1 (0 1 0) "
        "weight 2 0 0.25 (0 1 0) weight 3 1 0.75 (-1.04 0.28 0) }";
    ossa_model *m = mt_load(one_line, "a.md5mesh");
    check_hand_mesh(m);
    ossa_model_free(m);

    /* CRLF, a block comment over several lines, a BOM (with a warning) */
    char *crlf = malloc(sizeof hand_mesh * 3 + 64);
    assert_non_null(crlf);
    size_t n = 0;
    static const char prefix[] = "\xEF\xBB\xBF/* a\r\n comment */";
    memcpy(crlf, prefix, sizeof prefix - 1);
    n = sizeof prefix - 1;
    for (const char *p = hand_mesh; *p; p++) {
        if (*p == '\n') crlf[n++] = '\r';
        crlf[n++] = *p;
    }
    crlf[n] = 0;
    m = mt_load(crlf, "b.md5mesh");
    check_hand_mesh(m);
    assert_true(mt_has_warning(m, OSSA_WARNING_NONSTANDARD, "byte order mark"));
    ossa_model_free(m);
    /* lone CR line ends: line numbers still count them */
    for (size_t i = 0; i < n; i++)
        if (crlf[i] == '\n') crlf[i] = ' ';
    m = mt_load(crlf, "c.md5mesh");
    check_hand_mesh(m);
    ossa_model_free(m);
    char *broken = strstr(crlf, "tri 0 0 1 2");
    assert_non_null(broken);
    memcpy(broken, "tri 0 0 1 9", 11);
    /* "\ttri 0 0 1 9" is line 22 of hand_mesh, 23 after the comment's line
     * break; each line now starts with the blank that replaced its LF */
    mt_expect_error(crlf, n, OSSA_ERROR_CORRUPT, 23, 13, "vertex 9 does not exist", __LINE__);
    free(crlf);
}

/* -- Weights (md5.md §5) ---------------------------------------------------------
 *
 * Six joints at the origin with the identity rotation, so that a weight's
 * point is its offset. Vertex 0 lists j1 0.3, j2 0.2, j1 0.1, j3 0.0005,
 * j4 0.15, j5 0.1, j0 0.05: j1 sums to 0.4, j3 goes (<= 0.001); the four
 * largest are j1 0.4, j2 0.2, j4 0.15, j5 0.1 (sum 0.85), renormalized;
 * j0's 0.05 of 0.9 (5.6%) is lost to the limit. Raw biases sum to 0.9005,
 * so the position is 0.9005 * (1, 2, 3). Vertex 1 has a single bias of
 * 0.0005: bound to its joint alone, position 0.0005 * (2, 0, 0). Vertex 2
 * has j3 0.5 and j2 0.5: ties keep file order. */
static const char weights_mesh[] =
    "MD5Version 10\ncommandline \"\"\nnumJoints 6\nnumMeshes 1\njoints {\n"
    "\"j0\" -1 ( 0 0 0 ) ( 0 0 0 )\n\"j1\" 0 ( 0 0 0 ) ( 0 0 0 )\n\"j2\" 0 ( 0 0 0 ) ( 0 0 0 )\n"
    "\"j3\" 0 ( 0 0 0 ) ( 0 0 0 )\n\"j4\" 0 ( 0 0 0 ) ( 0 0 0 )\n\"j5\" 0 ( 0 0 0 ) ( 0 0 0 )\n}\n"
    "mesh {\nshader \"s\"\nnumverts 3\n"
    "vert 0 ( 0 0 ) 0 7\nvert 1 ( 0 0 ) 7 1\nvert 2 ( 0 0 ) 8 2\n"
    "numtris 1\ntri 0 0 1 2\nnumweights 10\n"
    "weight 0 1 0.3 ( 1 2 3 )\nweight 1 2 0.2 ( 1 2 3 )\nweight 2 1 0.1 ( 1 2 3 )\n"
    "weight 3 3 0.0005 ( 1 2 3 )\nweight 4 4 0.15 ( 1 2 3 )\nweight 5 5 0.1 ( 1 2 3 )\n"
    "weight 6 0 0.05 ( 1 2 3 )\nweight 7 4 0.0005 ( 2 0 0 )\n"
    "weight 8 3 0.5 ( 0 1 0 )\nweight 9 2 0.5 ( 0 1 0 )\n}\n";

static void test_weights(void **state)
{
    (void)state;
    ossa_model *m = mt_load(weights_mesh, "w.md5mesh");
    float f[8];
    mt_vertex(m, OSSA_VERTEX_POSITION, 0, f);
    TS_ASSERT_NEAR(f[0], 0.9005, TOL);
    TS_ASSERT_NEAR(f[1], 1.801, TOL);
    TS_ASSERT_NEAR(f[2], 2.7015, TOL);
    static const float idx0[4] = {1, 2, 4, 5};
    static const double w0[4] = {0.4 / 0.85, 0.2 / 0.85, 0.15 / 0.85, 0.1 / 0.85};
    mt_vertex(m, OSSA_VERTEX_BLENDINDEXES, 0, f);
    for (int i = 0; i < 4; i++) TS_ASSERT_NEAR(f[i], idx0[i], 0);
    mt_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, 0, f);
    for (int i = 0; i < 4; i++) TS_ASSERT_NEAR(f[i], w0[i], TOL);

    mt_vertex(m, OSSA_VERTEX_POSITION, 1, f);
    TS_ASSERT_NEAR(f[0], 0.001, TOL);
    TS_ASSERT_NEAR(f[1], 0, 0);
    mt_vertex(m, OSSA_VERTEX_BLENDINDEXES, 1, f);
    TS_ASSERT_NEAR(f[0], 4, 0);
    mt_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, 1, f);
    TS_ASSERT_NEAR(f[0], 1, 0);
    TS_ASSERT_NEAR(f[1], 0, 0);

    mt_vertex(m, OSSA_VERTEX_BLENDINDEXES, 2, f);
    TS_ASSERT_NEAR(f[0], 3, 0);
    TS_ASSERT_NEAR(f[1], 2, 0);
    mt_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, 2, f);
    TS_ASSERT_NEAR(f[0], 0.5, 0);
    TS_ASSERT_NEAR(f[1], 0.5, 0);

    assert_true(mt_has_warning(m, OSSA_WARNING_LIMITED, "1 vertices lose"));
    assert_true(mt_has_warning(m, OSSA_WARNING_REPAIRED, "no bias above 0.001"));
    /* vertices 0 (0.9005) and 1 (0.0005) do not sum to 1 */
    assert_true(mt_has_warning(m, OSSA_WARNING_INCONSISTENT, "2 vertices have biases"));
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    assert_int_equal(bi->format, OSSA_UBYTE);
    ossa_model_free(m);

    /* max_influences 2: j1 and j2, renormalized over 0.6 */
    m = mt_load_n(weights_mesh, "w.md5mesh", 2);
    mt_vertex(m, OSSA_VERTEX_BLENDINDEXES, 0, f);
    assert_int_equal(ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL)->size, 2);
    TS_ASSERT_NEAR(f[0], 1, 0);
    TS_ASSERT_NEAR(f[1], 2, 0);
    mt_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, 0, f);
    TS_ASSERT_NEAR(f[0], 0.4 / 0.6, TOL);
    TS_ASSERT_NEAR(f[1], 0.2 / 0.6, TOL);
    ossa_model_free(m);
}

/* -- Mesh blocks and normals -------------------------------------------------------
 *
 * One joint at the origin (points = offsets). Block 0 folds along the
 * edge (1,0,0)-(0,1,0), which its two triangles do not share as vertices
 * (a texture seam: vertices 1 and 3, 2 and 4 are apart in UV only):
 *   A = (0,0,0) (1,0,0) (0,1,0): (p2-p0) x (p1-p0) = (0,1,0) x (1,0,0) = (0,0,-1)
 *   B = (1,0,0) (1,1,1) (0,1,0): (-1,1,0) x (0,1,1) = (1,1,-1)
 * At the seam both add up: (1,1,-2)/sqrt(6); vertex 0: (0,0,-1); vertex 5:
 * (1,1,-1)/sqrt(3). Block 1 (same shader, no "// meshes:" comment, a
 * `name` statement) has a corner at (0,0,0): blocks do not smooth each
 * other. Block 2 is empty and skipped. */
static const char blocks_mesh[] =
    "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 3\njoints {\n"
    "\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
    "mesh {\nshader \"skin\"\nnumverts 6\n"
    "vert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\nvert 2 ( 0 1 ) 2 1\n"
    "vert 3 ( 0.5 0 ) 3 1\nvert 4 ( 0.5 1 ) 4 1\nvert 5 ( 1 1 ) 5 1\n"
    "numtris 2\ntri 0 0 1 2\ntri 1 3 5 4\nnumweights 6\n"
    "weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 1 0 0 )\nweight 2 0 1 ( 0 1 0 )\n"
    "weight 3 0 1 ( 1 0 0 )\nweight 4 0 1 ( 0 1 0 )\nweight 5 0 1 ( 1 1 1 )\n}\n"
    "mesh {\nname \"second\"\nshader \"skin\"\nnumverts 3\n"
    "vert 0 ( 0 0 ) 0 1\nvert 1 ( 0 0 ) 1 1\nvert 2 ( 0 0 ) 2 1\n"
    "numtris 1\ntri 0 0 1 2\nnumweights 3\n"
    "weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 0 0 1 )\nweight 2 0 1 ( 1 0 0 )\n}\n"
    "mesh {\nshader \"nothing\"\nnumverts 0\nnumtris 0\nnumweights 0\n}\n";

static void test_blocks_and_normals(void **state)
{
    (void)state;
    ossa_model *m = mt_load(blocks_mesh, "b.md5mesh");
    assert_int_equal(m->num_meshes, 2);
    assert_string_equal(m->meshes[0].name, "");
    assert_string_equal(m->meshes[0].material, "skin");
    assert_string_equal(m->meshes[1].name, "second");
    assert_string_equal(m->meshes[1].material, "skin");
    assert_int_equal(m->meshes[1].first_vertex, 6);
    assert_int_equal(m->meshes[1].num_vertices, 3);
    assert_int_equal(m->meshes[1].first_triangle, 2);
    assert_int_equal(m->num_triangles, 3);
    /* block 1's triangle in model numbering */
    assert_int_equal(m->triangles[2].v[0], 6);
    assert_int_equal(m->triangles[2].v[2], 8);
    assert_true(mt_has_warning(m, OSSA_WARNING_IGNORED, "mesh block 2 has 0 vertices"));

    double s6 = sqrt(6), s3 = sqrt(3);
    const double expect[6][3] = {{0, 0, -1},
                                 {1 / s6, 1 / s6, -2 / s6},
                                 {1 / s6, 1 / s6, -2 / s6},
                                 {1 / s6, 1 / s6, -2 / s6},
                                 {1 / s6, 1 / s6, -2 / s6},
                                 {1 / s3, 1 / s3, -1 / s3}};
    float f[3];
    for (uint32_t v = 0; v < 6; v++) {
        mt_vertex(m, OSSA_VERTEX_NORMAL, v, f);
        for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(f[i], expect[v][i], TOL);
    }
    /* block 1: (p2-p0) x (p1-p0) = (1,0,0) x (0,0,1) = (0,-1,0) */
    for (uint32_t v = 6; v < 9; v++) {
        mt_vertex(m, OSSA_VERTEX_NORMAL, v, f);
        TS_ASSERT_NEAR(f[0], 0, TOL);
        TS_ASSERT_NEAR(f[1], -1, TOL);
        TS_ASSERT_NEAR(f[2], 0, TOL);
    }
    ossa_model_free(m);
}

/* -- An animation by hand (md5.md §6) -------------------------------------------
 *
 * root: flags 1 (Tx) from value 0; a: nothing animated; b: flags 56
 * (Qx Qy Qz) from values 1..3. Frames:
 *   f0: root t (10,6,7);  b q (0,0,0) -> w -1
 *   f1: root t (11,6,7);  b q (0,0.6,0) -> w -0.8
 *   f2: root t (12,6,7);  b q (0,0,0.8) -> w -0.6
 * a keeps its baseframe: t (0,0,1), q (0.6,0,0,-0.8). */
static const char hand_anim[] =
    "MD5Version 10\ncommandline \"\"\n\nnumFrames 3\nnumJoints 3\nframeRate 24\n"
    "numAnimatedComponents 4\n\nhierarchy {\n\t\"root\"\t-1 1 0\n\t\"a\"\t0 0 0\t// root\n"
    "\t\"b\"\t1 56 1\t// a\n}\n\nbounds {\n\t( -1 -2 -3 ) ( 1 2 3 )\n\t( -1 -2 -3 ) ( 1 2 4 )\n"
    "\t( 0 0 0 ) ( 3 4 0 )\n}\n\nbaseframe {\n\t( 5 6 7 ) ( 0 0 0 )\n\t( 0 0 1 ) ( 0.6 0 0 )\n"
    "\t( 1 0 0 ) ( 0.1 0.2 0.3 )\n}\n\nframe 0 {\n\t10 0 0 0\n}\n\nframe 1 {\n\t11 0 0.6 0\n}\n\n"
    "frame 2 {\n\t12 0 0 0.8\n}\n";

static void check_hand_frames(const ossa_model *m, const ossa_animation *a, const int map[3])
{
    static const float t[3][3][3] = {{{10, 6, 7}, {0, 0, 1}, {1, 0, 0}},
                                     {{11, 6, 7}, {0, 0, 1}, {1, 0, 0}},
                                     {{12, 6, 7}, {0, 0, 1}, {1, 0, 0}}};
    static const float q[3][3][4] = {{{0, 0, 0, -1}, {0.6f, 0, 0, -0.8f}, {0, 0, 0, -1}},
                                     {{0, 0, 0, -1}, {0.6f, 0, 0, -0.8f}, {0, 0.6f, 0, -0.8f}},
                                     {{0, 0, 0, -1}, {0.6f, 0, 0, -0.8f}, {0, 0, 0.8f, -0.6f}}};
    assert_int_equal(a->num_frames, 3);
    for (int f = 0; f < 3; f++)
        for (int j = 0; j < 3; j++) {
            const ossa_transform *x = &a->frames[(size_t)f * m->num_joints + (size_t)map[j]];
            for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(x->translation[i], t[f][j][i], TOL);
            for (int i = 0; i < 4; i++) TS_ASSERT_NEAR(x->rotation[i], q[f][j][i], TOL);
            for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(x->scale[i], 1, 0);
        }
}

static void test_anim_by_hand(void **state)
{
    (void)state;
    ossa_model *m = mt_load(hand_anim, "dir/walk.fast.md5anim");
    assert_int_equal(m->source_format, OSSA_FORMAT_MD5ANIM);
    assert_true(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    assert_int_equal(m->num_joints, 3);
    assert_int_equal(m->num_vertices, 0);
    static const char *const names[3] = {"root", "a", "b"};
    static const int parents[3] = {-1, 0, 1};
    for (int j = 0; j < 3; j++) {
        assert_string_equal(m->joints[j].name, names[j]);
        assert_int_equal(m->joints[j].parent, parents[j]);
    }
    assert_int_equal(m->num_animations, 1);
    const ossa_animation *a = &m->animations[0];
    assert_string_equal(a->name, "walk.fast");
    TS_ASSERT_NEAR(a->framerate, 24, 0);
    assert_int_equal(a->flags, 0);
    static const int same[3] = {0, 1, 2};
    check_hand_frames(m, a, same);
    /* the stand-in bind pose is frame 0 */
    for (int j = 0; j < 3; j++)
        assert_memory_equal(&m->joints[j].bind, &a->frames[j], sizeof(ossa_transform));
    /* translation and rotation of every joint, never scale */
    assert_non_null(a->channels);
    for (int j = 0; j < 3; j++)
        assert_int_equal(a->channels[j], OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION);
    /* bounds as stored; radii from the corners */
    assert_non_null(a->bounds);
    TS_ASSERT_NEAR(a->bounds[1].max[2], 4, 0);
    TS_ASSERT_NEAR(a->bounds[2].min[0], 0, 0);
    TS_ASSERT_NEAR(a->bounds[2].radius, 5, TOL);
    TS_ASSERT_NEAR(a->bounds[2].xy_radius, 5, TOL);
    TS_ASSERT_NEAR(a->bounds[0].radius, sqrt(14), TOL);
    TS_ASSERT_NEAR(a->bounds[0].xy_radius, sqrt(5), TOL);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);

    /* memory without a name: an unnamed animation */
    m = mt_load(hand_anim, NULL);
    assert_string_equal(m->animations[0].name, "");
    ossa_model_free(m);
}

/* A mesh and an animation merge by joint name, whatever the order of the
 * animation's joints (siblings a and b swapped here), and in either order
 * of the inputs. */
static void test_merge(void **state)
{
    (void)state;
    static const char mesh[] =
        "MD5Version 10\ncommandline \"\"\nnumJoints 3\nnumMeshes 0\njoints {\n"
        "\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n\"a\" 0 ( 0 0 1 ) ( 0 0 0 )\n\"b\" 0 ( 0 1 0 ) ( 0 0 0 "
        ")\n}\n";
    static const char anim[] =
        "MD5Version 10\ncommandline \"\"\nnumFrames 2\nnumJoints 3\nframeRate 30\n"
        "numAnimatedComponents 2\nhierarchy {\n\"root\" -1 0 0\n\"b\" 0 1 0\n\"a\" 0 4 1\n}\n"
        "bounds {\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}\n"
        "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n( 0 1 0 ) ( 0 0 0 )\n( 0 0 1 ) ( 0 0 0 )\n}\n"
        "frame 0 {\n0.5 1\n}\nframe 1 {\n0.25 2\n}\n";
    ossa_model *m = mt_load(mesh, "m.md5mesh"), *a = mt_load(anim, "swing.md5anim");
    ossa_error err;
    assert_int_equal(ossa_model_merge(m, a, &err), OSSA_OK);
    assert_int_equal(m->num_animations, 1);
    const ossa_animation *an = &m->animations[0];
    assert_string_equal(an->name, "swing");
    /* b (mesh joint 2) moves in x, a (mesh joint 1) in z */
    TS_ASSERT_NEAR(an->frames[2].translation[0], 0.5, 0);
    TS_ASSERT_NEAR(an->frames[3 + 2].translation[0], 0.25, 0);
    TS_ASSERT_NEAR(an->frames[1].translation[2], 1, 0);
    TS_ASSERT_NEAR(an->frames[3 + 1].translation[2], 2, 0);
    TS_ASSERT_NEAR(an->frames[3 + 2].translation[1], 1, 0);
    ossa_model_free(a);
    ossa_model_free(m);

    /* the animation first: it takes names and the real bind pose */
    m = mt_load(anim, "swing.md5anim");
    a = mt_load(mesh, "m.md5mesh");
    assert_int_equal(ossa_model_merge(m, a, &err), OSSA_OK);
    assert_false(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    int32_t ja = mt_joint(m, "a");
    assert_true(ja >= 0);
    TS_ASSERT_NEAR(m->joints[ja].bind.translation[2], 1, 0);
    TS_ASSERT_NEAR(m->animations[0].frames[m->num_joints + (uint32_t)ja].translation[2], 2, 0);
    ossa_model_free(a);
    ossa_model_free(m);

    /* the animation of the hand mesh's skeleton, by hand */
    m = mt_load(hand_anim, "x.md5anim");
    static const int same[3] = {0, 1, 2};
    check_hand_frames(m, &m->animations[0], same);
    ossa_model_free(m);
}

/* -- Real files ------------------------------------------------------------------ */

/* SimpleCube (md5.md §15): written by id's Maya exporter. Composing the
 * parent-relative binds must give back the file's model-space joints, and
 * every vertex lies on the 64-unit cube around the origin. */
static void test_simple_cube(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("md5/SimpleCube.md5mesh", &file, &size);
    assert_int_equal(m->source_format, OSSA_FORMAT_MD5MESH);
    assert_int_equal(m->num_joints, 3);
    assert_string_equal(m->joints[0].name, "origin");
    assert_string_equal(m->joints[1].name, "root");
    assert_string_equal(m->joints[2].name, "joint1");
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "Mesh");
    assert_string_equal(m->meshes[0].material, "");
    assert_int_equal(m->num_vertices, 24);
    assert_int_equal(m->num_triangles, 12);
    assert_int_equal(m->num_animations, 0);

    ossa_transform *bind = mt_bind_pose(m);
    double world[3 * MT_WORLD];
    mt_model_space(m, bind, world);
    static const double file_t[3][3] = {
        {0, 0, 0}, {0, 0, 0}, {0.0249728262, 0.0000019062, 31.9803333282}};
    static const double file_q[3][3] = {{0, 0, 0},
                                        {-0.5001951456, 0.4998047054, -0.4998047054},
                                        {-0.7071067691, 0.0000000527, 0.0000000105}};
    for (int j = 0; j < 3; j++) {
        double q[4] = {file_q[j][0], file_q[j][1], file_q[j][2], 0};
        q[3] = -sqrt(fmax(0, 1 - q[0] * q[0] - q[1] * q[1] - q[2] * q[2]));
        for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(world[j * MT_WORLD + i], file_t[j][i], 1e-5);
        assert_true(mt_qdist(world + j * MT_WORLD + 3, q) < 1e-6);
    }
    free(bind);

    float lo[3] = {1e9f, 1e9f, 1e9f}, hi[3] = {-1e9f, -1e9f, -1e9f};
    for (uint32_t v = 0; v < 24; v++) {
        float p[3], uv[2], w[4];
        mt_vertex(m, OSSA_VERTEX_POSITION, v, p);
        float most = 0;
        for (int i = 0; i < 3; i++) {
            most = fmaxf(most, fabsf(p[i]));
            lo[i] = fminf(lo[i], p[i]);
            hi[i] = fmaxf(hi[i], p[i]);
        }
        TS_ASSERT_NEAR(most, 32, 0.01);
        mt_vertex(m, OSSA_VERTEX_TEXCOORD, v, uv);
        assert_true(uv[0] >= -0.3125f && uv[0] <= 0.3125f && uv[1] >= -0.5f && uv[1] <= 0.25f);
        mt_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, v, w);
        TS_ASSERT_NEAR(w[0] + w[1], 1, 1e-6);
        assert_true(w[1] > 0); /* two weights per vertex */
    }
    for (int i = 0; i < 3; i++) {
        TS_ASSERT_NEAR(lo[i], -32, 0.01);
        TS_ASSERT_NEAR(hi[i], 32, 0.01);
    }
    /* per-weight points agree: no warning of the kind */
    assert_false(mt_has_warning(m, OSSA_WARNING_INCONSISTENT, "different points"));
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    ossa_model_free(m);
    free(file);
}

static void expect_shared_error(const char *rel, uint32_t line, uint32_t column, const char *needle)
{
    size_t size;
    unsigned char *data = ts_read_shared(rel, &size);
    char name[300];
    snprintf(name, sizeof name, "%s", rel);
    ossa_error err;
    ossa_model *m = mt_try(data, size, name, 0, &err);
    char buf[600];
    if (m) fail_msg("%s loads", rel);
    ossa_error_format(&err, buf, sizeof buf);
    print_message("%s\n", buf);
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_int_equal(err.line, line);
    assert_int_equal(err.column, column);
    assert_non_null(strstr(err.message, needle));
    assert_string_equal(err.file, rel);
    free(data);
}

static void test_invalid_files(void **state)
{
    (void)state;
    expect_shared_error("md5/invalid/InvalidBoneIndex.md5mesh", 23, 10, "joint 999 does not exist");
    expect_shared_error("md5/invalid/OverflowingVertexIndex.md5mesh", 15, 6,
                        "vert number 4294967295: expected 0");
    expect_shared_error("md5/invalid/OverflowingTriangleIndex.md5mesh", 18, 5,
                        "tri number 4294967295: expected 0");
    expect_shared_error("md5/invalid/OverflowingWeightIndex.md5mesh", 21, 8,
                        "weight number 4294967295: expected 0");
}

/* -- Malformed input --------------------------------------------------------------- */

#define HEAD "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\njoints {\n"
#define JOINT "\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
/* lines 8-16 */
#define MESH(vert, tri, weight)                                                                    \
    "mesh {\nshader \"s\"\nnumverts 1\n" vert "\nnumtris 1\n" tri "\nnumweights 1\n" weight "\n}"  \
    "\n"
#define OK_VERT "vert 0 ( 0 0 ) 0 1"
#define OK_TRI "tri 0 0 0 0"
#define OK_WEIGHT "weight 0 0 1 ( 0 0 0 )"

/* The block of MESH has one vertex, and its triangle repeats it: a load
 * drops it. The tests of the text below keep it. */
static ossa_model *load_keeping_degenerate(const char *text)
{
    ossa_load_options o = {.file_name = "t.md5mesh", .flags = OSSA_LOAD_KEEP_DEGENERATE};
    ossa_error err;
    ossa_model *m = ossa_load_memory(text, strlen(text), &o, &err);
    if (!m) fail_msg("%s", err.message);
    return m;
}

static void test_mesh_errors(void **state)
{
    (void)state;
    /* the base text loads; its triangle repeats its one vertex: dropped
     * with the block's vertex and mesh, and said */
    ossa_model *m = mt_load(HEAD JOINT MESH(OK_VERT, OK_TRI, OK_WEIGHT), "ok.md5mesh");
    assert_int_equal(m->num_triangles, 0);
    assert_int_equal(m->num_vertices, 0);
    assert_int_equal(m->num_meshes, 0);
    assert_true(mt_has_warning(m, OSSA_WARNING_IGNORED,
                               "1 degenerate triangle (a vertex repeated) dropped (the first: "
                               "triangle 0 of mesh '')"));
    ossa_model_free(m);
    m = load_keeping_degenerate(HEAD JOINT MESH(OK_VERT, OK_TRI, OK_WEIGHT));
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_meshes, 1);
    ossa_model_free(m);

    MT_ERROR("", OSSA_ERROR_TRUNCATED, 1, 1, "expected 'MD5Version'");
    MT_ERROR("hello there", OSSA_ERROR_FORMAT, 1, 1, "expected 'MD5Version'");
    MT_ERROR("MD5Version 11\n", OSSA_ERROR_UNSUPPORTED, 1, 12, "MD5Version 11 is not supported");
    MT_ERROR("MD5Version 10\nnumJoints 1\n", OSSA_ERROR_CORRUPT, 2, 1,
             "expected 'commandline', found 'numJoints'");
    MT_ERROR("MD5Version 10\ncommandline \"\"\nnumMeshes 1\n", OSSA_ERROR_CORRUPT, 3, 1,
             "expected 'numJoints' (an md5mesh) or 'numFrames' (an md5anim)");
    MT_ERROR("MD5Version 10\ncommandline \"\nnumJoints 1\n", OSSA_ERROR_CORRUPT, 2, 13,
             "the string does not end on its line");
    MT_ERROR("MD5Version 10\ncommandline \"\"\n/* never\nends\n", OSSA_ERROR_TRUNCATED, 3, 1,
             "the comment opened here does not end");
    MT_ERROR(HEAD "\"j\" 0 ( 0 0 0 ) ( 0 0 0 )\n}\n" MESH(OK_VERT, OK_TRI, OK_WEIGHT),
             OSSA_ERROR_CORRUPT, 6, 5, "joint 0: parent 0 is not an earlier joint");
    MT_ERROR(HEAD "\"j\" -1 ( 0 0 ) ( 0 0 0 )\n}\n" MESH(OK_VERT, OK_TRI, OK_WEIGHT),
             OSSA_ERROR_CORRUPT, 6, 14, "expected the joint's position (a number), found ')'");
    MT_ERROR(HEAD JOINT MESH("vert 1 ( 0 0 ) 0 1", OK_TRI, OK_WEIGHT), OSSA_ERROR_CORRUPT, 11, 6,
             "vert number 1: expected 0");
    MT_ERROR(HEAD JOINT MESH("vert 0 0 0 ) 0 1", OK_TRI, OK_WEIGHT), OSSA_ERROR_CORRUPT, 11, 8,
             "expected '(' in the texcoord, found '0'");
    MT_ERROR(HEAD JOINT MESH("vert 0 ( 0 0 ) 0 0", OK_TRI, OK_WEIGHT), OSSA_ERROR_CORRUPT, 11, 18,
             "vert 0 has no weights");
    MT_ERROR(HEAD JOINT MESH("vert 0 ( 0 0 ) 0 2", OK_TRI, OK_WEIGHT), OSSA_ERROR_CORRUPT, 11, 16,
             "vert 0: weights 0 to 1 are past the 1 weights");
    MT_ERROR(HEAD JOINT MESH(OK_VERT, "tri 0 0 0 1", OK_WEIGHT), OSSA_ERROR_CORRUPT, 13, 11,
             "tri 0: vertex 1 does not exist");
    MT_ERROR(HEAD JOINT MESH(OK_VERT, "tri 0 0 -1 0", OK_WEIGHT), OSSA_ERROR_CORRUPT, 13, 9,
             "vertex -1 does not exist");
    MT_ERROR(HEAD JOINT MESH(OK_VERT, OK_TRI, "weight 0 1 1 ( 0 0 0 )"), OSSA_ERROR_CORRUPT, 15, 10,
             "weight 0: joint 1 does not exist (numJoints is 1: 0 to 0)");
    MT_ERROR(HEAD JOINT MESH(OK_VERT, OK_TRI, "weight 0 0 1.#INF ( 0 0 0 )"), OSSA_ERROR_CORRUPT,
             15, 12, "expected the weight's bias (a number), found '1.#INF'");
    MT_ERROR(HEAD JOINT MESH(OK_VERT, OK_TRI, "weight 0 0 nan ( 0 0 0 )"), OSSA_ERROR_CORRUPT, 15,
             12, "found 'nan'");
    MT_ERROR(HEAD JOINT MESH(OK_VERT, OK_TRI, "weight 0 0 1e39 ( 0 0 0 )"), OSSA_ERROR_CORRUPT, 15,
             12, "1e39 is too large for a float");
    MT_ERROR(HEAD JOINT MESH(OK_VERT, OK_TRI, "weight 0 0 1 ( 0 0 0 ) weight"), OSSA_ERROR_CORRUPT,
             15, 24, "expected '}' in the mesh block (after numweights entries), found 'weight'");
    MT_ERROR(HEAD JOINT "mesh {\nshader \"s\"\nnumverts 100000\n", OSSA_ERROR_TRUNCATED, 10, 10,
             "numverts 100000: that many entries cannot fit");
    MT_ERROR(HEAD JOINT "mesh {\nshader \"s\"\nnumverts 2\n" OK_VERT "\nnumtris 1\n" OK_TRI
                        "\nnumweights 1\n" OK_WEIGHT "\n}\n",
             OSSA_ERROR_CORRUPT, 12, 1,
             "expected 'vert' for entry 1 (numverts is 2), found 'numtris'");
}

static void test_more_errors_and_warnings(void **state)
{
    (void)state;
    /* more blocks than numMeshes: ignored with a warning */
    ossa_model *m = load_keeping_degenerate(
        HEAD JOINT MESH(OK_VERT, OK_TRI, OK_WEIGHT) MESH(OK_VERT, OK_TRI, OK_WEIGHT));
    assert_int_equal(m->num_meshes, 1);
    assert_true(mt_has_warning(m, OSSA_WARNING_IGNORED, "text after the 1 mesh blocks"));
    ossa_model_free(m);
    /* fewer: the end of the file where a block should be */
    MT_ERROR("MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 2\njoints {\n" JOINT MESH(
                 OK_VERT, OK_TRI, OK_WEIGHT),
             OSSA_ERROR_TRUNCATED, 17, 1, "expected 'mesh' for block 1 (numMeshes is 2)");
    /* '+' and 'E' are read, with one warning each */
    m = load_keeping_degenerate(HEAD JOINT MESH(OK_VERT, OK_TRI, "weight 0 0 1E0 ( +0 0 +2.5e+1 )"));
    assert_true(mt_has_warning(m, OSSA_WARNING_NONSTANDARD, "'+' sign"));
    assert_true(mt_has_warning(m, OSSA_WARNING_NONSTANDARD, "'E' exponent"));
    float p[3];
    mt_vertex(m, OSSA_VERTEX_POSITION, 0, p);
    TS_ASSERT_NEAR(p[2], 25, 0);
    ossa_model_free(m);
    /* a quaternion longer than unit: normalized with w = 0, a warning */
    m = mt_load(HEAD "\"j\" -1 ( 0 0 0 ) ( 0 1.5 0 )\n}\n" MESH(OK_VERT, OK_TRI, OK_WEIGHT),
                "t.md5mesh");
    assert_true(mt_has_warning(m, OSSA_WARNING_REPAIRED, "longer than a unit quaternion"));
    TS_ASSERT_NEAR(m->joints[0].bind.rotation[1], 1, 0);
    TS_ASSERT_NEAR(m->joints[0].bind.rotation[3], 0, 0);
    ossa_model_free(m);
    /* numJoints 0 */
    MT_ERROR("MD5Version 10\ncommandline \"\"\nnumJoints 0\nnumMeshes 0\njoints {\n}\n",
             OSSA_ERROR_CORRUPT, 3, 1, "numJoints 0");
    /* repeated joint names: a warning */
    m = mt_load("MD5Version 10\ncommandline \"\"\nnumJoints 2\nnumMeshes 0\njoints {\n"
                "\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n\"j\" 0 ( 0 0 0 ) ( 0 0 0 )\n}\n",
                "t.md5mesh");
    assert_true(mt_has_warning(m, OSSA_WARNING_INCONSISTENT, "repeat the name"));
    ossa_model_free(m);
    /* weights that disagree about the vertex's place: the mean, a warning */
    m = mt_load("MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\njoints {\n" JOINT
                "mesh {\nshader \"s\"\nnumverts 3\nvert 0 ( 0 0 ) 0 2\nvert 1 ( 0 0 ) 2 1\n"
                "vert 2 ( 0 0 ) 3 1\nnumtris 1\ntri 0 0 1 2\nnumweights 4\n"
                "weight 0 0 0.5 ( 0 0 0 )\nweight 1 0 0.5 ( 2 0 0 )\nweight 2 0 1 ( 10 0 0 )\n"
                "weight 3 0 1 ( 0 10 0 )\n}\n",
                "t.md5mesh");
    mt_vertex(m, OSSA_VERTEX_POSITION, 0, p);
    TS_ASSERT_NEAR(p[0], 1, 0);
    assert_true(mt_has_warning(m, OSSA_WARNING_INCONSISTENT, "1 vertices place their weights"));
    ossa_model_free(m);
}

#define ANIM_HEAD "MD5Version 10\ncommandline \"\"\nnumFrames 1\nnumJoints 2\n"
/* lines 5-20 */
#define ANIM(rate, nac, h0, h1, frame)                                                             \
    "frameRate " rate "\nnumAnimatedComponents " nac "\nhierarchy {\n" h0 "\n" h1 "\n}\n"          \
    "bounds {\n( 0 0 0 ) ( 1 1 1 )\n}\nbaseframe {\n( 0 0 0 ) ( 0 0 0 )\n( 0 0 0 ) ( 0 0 0 )\n}\n" \
    "frame 0 {\n" frame "\n}\n"
#define H0 "\"r\" -1 0 0"
#define H1 "\"c\" 0 1 0"

static void test_anim_errors(void **state)
{
    (void)state;
    ossa_model *m = mt_load(ANIM_HEAD ANIM("24", "1", H0, H1, "5"), "ok.md5anim");
    TS_ASSERT_NEAR(m->animations[0].frames[1].translation[0], 5, 0);
    ossa_model_free(m);
    m = mt_load(ANIM_HEAD ANIM("24.5", "1", H0, H1, "5"), "ok.md5anim");
    TS_ASSERT_NEAR(m->animations[0].framerate, 24, 0);
    assert_true(mt_has_warning(m, OSSA_WARNING_NONSTANDARD, "frameRate 24.5 is not an integer"));
    ossa_model_free(m);

    MT_ERROR(ANIM_HEAD ANIM("0", "1", H0, H1, "5"), OSSA_ERROR_CORRUPT, 5, 11,
             "frameRate 0: expected at least 1");
    MT_ERROR(ANIM_HEAD ANIM("24", "13", H0, H1, "5"), OSSA_ERROR_CORRUPT, 6, 23,
             "numAnimatedComponents 13 is out of range (0 to 12)");
    MT_ERROR(ANIM_HEAD ANIM("24", "1", "\"r\" 0 0 0", H1, "5"), OSSA_ERROR_CORRUPT, 8, 5,
             "joint 0: parent 0, expected -1");
    MT_ERROR(ANIM_HEAD ANIM("24", "1", H0, "\"c\" -1 1 0", "5"), OSSA_ERROR_CORRUPT, 9, 5,
             "joint 1: parent -1 is not an earlier joint (0 to 0; only joint 0 is a root)");
    MT_ERROR(ANIM_HEAD ANIM("24", "1", H0, "\"c\" 0 64 0", "5"), OSSA_ERROR_CORRUPT, 9, 7,
             "joint 1: flags 64, expected 0 to 63");
    MT_ERROR(ANIM_HEAD ANIM("24", "1", H0, "\"c\" 0 1 1", "5"), OSSA_ERROR_CORRUPT, 9, 9,
             "joint 1: components 1 to 1 are outside the 1 of a frame");
    MT_ERROR(ANIM_HEAD ANIM("24", "1", H0, "\"c\" 0 3 0", "5"), OSSA_ERROR_CORRUPT, 9, 9,
             "components 0 to 1 are outside");
    MT_ERROR(ANIM_HEAD ANIM("24", "1", H0, H1, "5 6"), OSSA_ERROR_CORRUPT, 19, 3,
             "expected '}' in the frame block (after numAnimatedComponents values), found '6'");
    MT_ERROR(ANIM_HEAD ANIM("24", "2", H0, "\"c\" 0 3 0", "5"), OSSA_ERROR_CORRUPT, 20, 1,
             "expected a frame value (numAnimatedComponents per frame) (a number), found '}'");
    MT_ERROR(
        "MD5Version 10\ncommandline \"\"\nnumFrames 2\nnumJoints 2\n" ANIM("24", "1", H0, H1, "5"),
        OSSA_ERROR_CORRUPT, 13, 1, "expected '(' in a frame's bounds (minimum), found '}'");
    MT_ERROR(ANIM_HEAD "frameRate 24\nnumAnimatedComponents 1\nhierarchy {\n" H0 "\n" H1
                       "\n}\nbounds {\n( 0 0 0 ) ( 1 1 1 )\n}\nbaseframe {\n( 0 0 0 ) ( 0 0 0 )\n"
                       "( 0 0 0 ) ( 0 0 0 )\n}\nframe 1 {\n5\n}\n",
             OSSA_ERROR_CORRUPT, 18, 7, "frame number 1: expected 0");
    MT_ERROR(
        "MD5Version 10\ncommandline \"\"\nnumFrames 1\nframeRate 24\nnumCuts 1\ncuts {\n0\n}\n",
        OSSA_ERROR_UNSUPPORTED, 4, 1, "MD5 camera files are not supported");
    MT_ERROR("MD5Version 10\ncommandline \"\"\nnumFrames 0\n", OSSA_ERROR_CORRUPT, 3, 11,
             "numFrames 0 is out of range");
}

/* Numbers: the inline path (mantissa times a rounded power of ten,
 * checked against float midpoints) and the exact one agree with strtof,
 * correctly rounded, on id-style tokens, near-midpoint tokens and
 * integers. */
static void test_numbers(void **state)
{
    (void)state;
    enum { N = 300000 };
    char *text = malloc((size_t)N * 40), *p = text;
    assert_non_null(text);
    uint64_t s = 0x243F6A8885A308D3ull;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(s >> 32);
        switch (i % 4) {
        case 0: /* id's exporter: %.10f of a float, zeros stripped */
        case 1: {
            uint32_t bits = (r & 0x807fffffu) | ((uint32_t)(100 + r % 40) << 23);
            float f;
            memcpy(&f, &bits, 4);
            int n = sprintf(p, "%.10f", (double)f);
            while (n > 1 && p[n - 1] == '0') n--;
            if (p[n - 1] == '.') n--;
            p += n;
            break;
        }
        case 2: { /* within 1e-15 of the midpoint between two floats */
            uint32_t bits = (r & 0x807fffffu) | ((uint32_t)(110 + r % 30) << 23);
            float f, g;
            memcpy(&f, &bits, 4);
            g = nextafterf(f, INFINITY);
            p += sprintf(p, "%.15g", ((double)f + (double)g) / 2);
            break;
        }
        default: /* integers and short decimals */
            p += sprintf(p, r % 2 ? "%d" : "%d.%u", (int)(r % 2000001) - 1000000, r % 1000);
        }
        *p++ = i % 7 ? ' ' : '\n';
    }
    size_t size = (size_t)(p - text);
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    md5_lexer L;
    ossa__md5_lex_init(&L, m, (const unsigned char *)text, size, &err);
    for (int i = 0; i < N; i++) {
        float f;
        assert_int_equal(ossa__md5_space(&L), 1);
        const char *at = L.lx.p;
        assert_int_equal(ossa__md5_float(&L, &f, "a number"), OSSA_OK);
        char token[64];
        size_t n = (size_t)(L.lx.p - at);
        assert_true(n < sizeof token);
        memcpy(token, at, n);
        token[n] = 0;
        float want = strtof(token, NULL);
        if (memcmp(&f, &want, 4) != 0) fail_msg("'%s': %.9g, strtof gives %.9g", token, f, want);
    }
    assert_int_equal(ossa__md5_space(&L), 0);
    ossa_model_free(m);
    free(text);
}

/* Content, not the extension, tells an md5mesh from an md5anim. */
static void test_detection(void **state)
{
    (void)state;
    assert_int_equal(ossa_format_detect(hand_mesh, strlen(hand_mesh)), OSSA_FORMAT_MD5MESH);
    assert_int_equal(ossa_format_detect("// c\n/* d */ MD5Version 10", 26), OSSA_FORMAT_MD5MESH);
    assert_int_equal(ossa_format_detect("MD5Versions 10", 14), OSSA_FORMAT_AUTO);
    assert_int_equal(ossa_format_from_name("a.md5anim"), OSSA_FORMAT_MD5ANIM);
    assert_int_equal(ossa_format_from_name("a.MD5MESH"), OSSA_FORMAT_MD5MESH);
    assert_string_equal(ossa_format_name(OSSA_FORMAT_MD5ANIM), "md5anim");
    ossa_model *m = mt_load(hand_anim, "looks_like.md5mesh");
    assert_int_equal(m->source_format, OSSA_FORMAT_MD5ANIM);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_by_hand), cmocka_unit_test(test_mesh_layouts),
        cmocka_unit_test(test_weights),      cmocka_unit_test(test_blocks_and_normals),
        cmocka_unit_test(test_anim_by_hand), cmocka_unit_test(test_merge),
        cmocka_unit_test(test_simple_cube),  cmocka_unit_test(test_invalid_files),
        cmocka_unit_test(test_mesh_errors),  cmocka_unit_test(test_more_errors_and_warnings),
        cmocka_unit_test(test_anim_errors),  cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_detection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
