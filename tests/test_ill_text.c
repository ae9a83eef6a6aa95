/* illEngine ASCII files (docs/formats/ill.md §2-§6, §10): small hand-written
 * ILLMESH0 (v0a and v0b), ILLSKEL0, ILLANIM0 and ILLANIM1 files with
 * expectations computed here from the format description; layout
 * detection and its overrides; skeleton reordering with blend index
 * remapping; keyed resampling; the Rx(-90) correction; errors with line
 * and column. */
#include "ill_test.h"

/* -- ILLMESH0 ------------------------------------------------------------------ */

/* Three vertices with every attribute, v0b: one line per attribute, a
 * blank line after each vertex. */
static const char mesh_v0b[] =
    "ILLMESH0\n1\n1\n1\n1\n1\n1\n3\n3\n"
    /* vertex 0 */
    "0 0 0\n0 0 1\n1 0 0\n0 1 0\n2 0 0 0\n1 0 0 0\n0.25 0.75\n1 0 0 1\n\n"
    /* vertex 1: bitangent on the other side */
    "1 0 0\n0 0 1\n1 0 0\n0 -1 0\n0 2 0 0\n0.5 0.5 0 0\n1 0\n0 1 0 1\n\n"
    /* vertex 2 */
    "0 1 0\n0 0 1\n0 1 0\n-1 0 0\n1 0 0 0\n1 0 0 0\n0 1\n0 0 1 0.5\n\n"
    "0 1 2\n";

/* The same mesh in the v0a order (texcoord before blend data), no blank
 * lines, spread over lines differently (line breaks carry no meaning). */
static const char mesh_v0a[] =
    "ILLMESH0 1 1 1 1 1 1\n3 3\n"
    "0 0 0 0 0 1 1 0 0 0 1 0 0.25 0.75 2 0 0 0 1 0 0 0 1 0 0 1\n"
    "1 0 0 0 0 1 1 0 0 0 -1 0 1 0 0 2 0 0 0.5 0.5 0 0 0 1 0 1\n"
    "0 1 0 0 0 1 0 1 0 -1 0 0 0 1 1 0 0 0 1 0 0 0 0 0 1 0.5\n"
    "0 1 2\n";

static void check_full_mesh(const ossa_model *m)
{
    float v[8];
    assert_int_equal(m->num_joints, 0);
    assert_int_equal(m->num_vertices, 3);
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "hero");
    assert_int_equal(m->source_format, OSSA_FORMAT_ILLMESH);
    it_vertex(m, OSSA_VERTEX_POSITION, NULL, 1, v);
    assert_true(v[0] == 1 && v[1] == 0 && v[2] == 0);
    it_vertex(m, OSSA_VERTEX_NORMAL, NULL, 2, v);
    assert_true(v[0] == 0 && v[1] == 0 && v[2] == 1);
    /* tangent w: the side of the bitangent, sign(cross(n, t) . b) */
    it_vertex(m, OSSA_VERTEX_TANGENT, NULL, 0, v);
    assert_true(v[0] == 1 && v[1] == 0 && v[2] == 0 && v[3] == 1);
    it_vertex(m, OSSA_VERTEX_TANGENT, NULL, 1, v);
    assert_true(v[3] == -1);
    it_vertex(m, OSSA_VERTEX_TANGENT, NULL, 2, v);
    assert_true(v[0] == 0 && v[1] == 1 && v[3] == 1); /* cross((0,0,1),(0,1,0)) = (-1,0,0) */
    it_vertex(m, OSSA_VERTEX_CUSTOM, "bitangent", 1, v);
    assert_true(v[0] == 0 && v[1] == -1 && v[2] == 0);
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 0, v);
    assert_true(v[0] == 0.25f && v[1] == 0.75f);
    it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 1, v);
    assert_true(v[0] == 0 && v[1] == 2 && v[2] == 0 && v[3] == 0);
    it_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, 1, v);
    assert_true(v[0] == 0.5f && v[1] == 0.5f && v[2] == 0 && v[3] == 0);
    it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, v);
    assert_true(v[0] == 2);
    it_vertex(m, OSSA_VERTEX_COLOR, NULL, 2, v);
    assert_true(v[0] == 0 && v[1] == 0 && v[2] == 1 && v[3] == 0.5f);
    /* counter-clockwise in the file, clockwise in ossa */
    assert_int_equal(m->triangles[0].v[0], 0);
    assert_int_equal(m->triangles[0].v[1], 2);
    assert_int_equal(m->triangles[0].v[2], 1);
}

static void test_mesh_v0b(void **state)
{
    (void)state;
    ossa_model *m = it_load(mesh_v0b, 0, "dir/hero.illmesh");
    check_full_mesh(m);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);
}

static void test_mesh_v0a(void **state)
{
    (void)state;
    ossa_model *m = it_load(mesh_v0a, 0, "hero.illmesh");
    check_full_mesh(m);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);
}

static void test_mesh_crlf(void **state)
{
    (void)state;
    char crlf[sizeof mesh_v0b * 2];
    size_t n = 0;
    for (const char *p = mesh_v0b; *p; p++) {
        if (*p == '\n') crlf[n++] = '\r';
        crlf[n++] = *p;
    }
    crlf[n] = 0;
    ossa_model *m = it_load(crlf, 0, "hero.illmesh");
    check_full_mesh(m);
    ossa_model_free(m);
}

/* The early test box (docs/formats/ill.md §3): bone 0 only, UVs 0 or 1: plausible under
 * both layouts, so only the blank lines decide (and the overrides). */
static const char box_v0a[] = "ILLMESH0\n1\n0\n0\n1\n1\n0\n1\n0\n"
                              "1 2 3\n"
                              "1 0\n"
                              "0 0 0 0\n"
                              "1 0 0 0\n";

static void test_mesh_layout_ambiguous(void **state)
{
    (void)state;
    float v[4];
    /* no blank line: v0a, texcoord (1, 0) */
    ossa_model *m = it_load(box_v0a, 0, "box.illmesh");
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 0, v);
    assert_true(v[0] == 1 && v[1] == 0);
    it_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, 0, v);
    assert_true(v[0] == 1 && v[1] == 0);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);
    /* forced v0b: the first two blend values are then the texcoord's */
    m = it_load(box_v0a, "ill.vertex_order=blend-first", "box.illmesh");
    it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, v);
    assert_true(v[0] == 1 && v[1] == 0 && v[2] == 0 && v[3] == 0);
    it_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, 0, v);
    assert_true(v[0] == 0 && v[1] == 0 && v[2] == 1 && v[3] == 0);
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 0, v);
    assert_true(v[0] == 0 && v[1] == 0);
    ossa_model_free(m);
    /* the same tokens with a blank line after the vertex: v0b */
    char blank[256];
    snprintf(blank, sizeof blank, "%s\n", box_v0a);
    m = it_load(blank, 0, "box.illmesh");
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 0, v);
    assert_true(v[0] == 0 && v[1] == 0);
    ossa_model_free(m);
    /* and forced back to v0a */
    m = it_load(blank, "ill.vertex_order=texcoord-first", "box.illmesh");
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 0, v);
    assert_true(v[0] == 1 && v[1] == 0);
    ossa_model_free(m);
}

static void test_mesh_layout_conflicts(void **state)
{
    (void)state;
    float v[4];
    /* Blank lines say v0b, but under v0b the texcoord 0.25 would be a blend
     * index: read as v0a, with a warning. */
    const char *a = "ILLMESH0\n1 0 0 1 1 0\n1 0\n"
                    "1 2 3\n0.25 0.75\n1 0 0 0\n1 0 0 0\n\n";
    ossa_model *m = it_load(a, 0, "x.illmesh");
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 0, v);
    assert_true(v[0] == 0.25f && v[1] == 0.75f);
    assert_true(it_has_warning(m, "read as v0a"));
    ossa_model_free(m);
    /* Blank lines say v0b and v0b is readable, but only v0a's blend data is
     * plausible (three influences summing to 1): v0b, with a warning. */
    const char *b = "ILLMESH0\n1 0 0 1 1 0\n1 0\n"
                    "1 2 3\n0 1\n1 2 3 0\n0.5 0.3 0.2 0\n\n";
    m = it_load(b, 0, "x.illmesh");
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 0, v);
    assert_true(v[0] == 0.2f && v[1] == 0);
    assert_true(it_has_warning(m, "all of them as v0a"));
    ossa_model_free(m);
    m = it_load(b, "ill.vertex_order=texcoord-first", "x.illmesh");
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 0, v);
    assert_true(v[0] == 0 && v[1] == 1);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);
    /* neither layout gives whole indices: an error at the offending value
     * (v0a, no blank line: the blend indices follow the texcoord) */
    const char *c = "ILLMESH0\n1 0 0 1 1 0\n1 0\n1 2 3\n0.5 0.5\n0.5 0 0 0\n1 0 0 0\n";
    IT_TEXT_ERROR(c, 0, OSSA_ERROR_CORRUPT, 6, 1, "blend index 0.5");
}

static void test_mesh_errors(void **state)
{
    (void)state;
    /* booleans are 0 or 1 */
    IT_TEXT_ERROR("ILLMESH0\n1\ntrue\n", 0, OSSA_ERROR_CORRUPT, 3, 1, "normal flag");
    IT_TEXT_ERROR("ILLMESH0\n1 1 0 0 0 2\n", 0, OSSA_ERROR_CORRUPT, 2, 11, "colour flag");
    /* the index count is a multiple of 3 */
    IT_TEXT_ERROR("ILLMESH0\n1 0 0 0 0 0\n3  4\n", 0, OSSA_ERROR_CORRUPT, 3, 4, "multiple of 3");
    /* an index past the vertices */
    IT_TEXT_ERROR("ILLMESH0\n1 0 0 0 0 0\n3 3\n0 0 0\n1 1 1\n2 2 2\n0 1 3\n", 0,
                  OSSA_ERROR_CORRUPT, 7, 5, "vertex index");
    /* malformed and non-finite numbers */
    IT_TEXT_ERROR("ILLMESH0\n1 0 0 0 0 0\n1 0\n0 1.2.3 0\n", 0, OSSA_ERROR_CORRUPT, 4, 3,
                  "'1.2.3'");
    IT_TEXT_ERROR("ILLMESH0\n1 0 0 0 0 0\n1 0\n0 nan 0\n", 0, OSSA_ERROR_CORRUPT, 4, 3, "'nan'");
    IT_TEXT_ERROR("ILLMESH0\n1 0 0 0 0 0\n1 0\n0 1e39 0\n", 0, OSSA_ERROR_CORRUPT, 4, 3, "1e39");
    IT_TEXT_ERROR("ILLMESH0\n1 0 0 0 0 0\n-1 0\n", 0, OSSA_ERROR_CORRUPT, 3, 1, "vertex count");
    /* the file ends early: the position is the end of the data */
    IT_TEXT_ERROR("ILLMESH0\n1\n", 0, OSSA_ERROR_TRUNCATED, 3, 1, "normal flag");
    IT_TEXT_ERROR("ILLMESH0\n1 0 0 0 0 0\n2 0\n0.000 0.000 0.000 1.000 1.000", 0,
                  OSSA_ERROR_TRUNCATED, 4, 30, "vertex value");
    /* a count larger than the file can hold fails before allocating */
    IT_TEXT_ERROR("ILLMESH0\n1 0 0 0 0 0\n4000000000 0\n", 0, OSSA_ERROR_TRUNCATED, 3, 1,
                  "cannot fit");
    /* forced text on something that is not */
    IT_TEXT_ERROR("ILLMESH0x 1 0", "ill.encoding=text", OSSA_ERROR_FORMAT, 1, 1, "magic");
    /* trailing data is ignored, as the engine did */
    ossa_model *m = it_load("ILLMESH0\n1 0 0 0 0 0\n0 0\nanything at all", 0, "e.illmesh");
    assert_int_equal(m->num_vertices, 0);
    ossa_model_free(m);
}

/* -- ILLSKEL0 ------------------------------------------------------------------- */

typedef struct bone_def {
    const char *name;
    int parent;
    double m[16];
} bone_def;

static size_t skeleton_text(const bone_def *b, int n, char *out, size_t cap)
{
    size_t k = (size_t)snprintf(out, cap, "ILLSKEL0\n%d\n", n);
    for (int i = 0; i < n; i++) {
        it_matrix_text(b[i].m, out + k, cap - k);
        k += strlen(out + k);
        k += (size_t)snprintf(out + k, cap - k, "\n");
    }
    for (int i = 0; i < n; i++) k += (size_t)snprintf(out + k, cap - k, "%d\n", b[i].parent);
    for (int i = 0; i < n; i++) k += (size_t)snprintf(out + k, cap - k, "%s\n", b[i].name);
    return k;
}

static void check_bind_matrix(const ossa_model *m, uint32_t j, const double *want, double tol)
{
    float f[16];
    ossa_transform_to_matrix(&m->joints[j].bind, f);
    for (int k = 0; k < 16; k++)
        if (!(fabs(f[k] - want[k]) <= tol))
            fail_msg("joint %u matrix[%d] = %.9g, expected %.9g", j, k, (double)f[k], want[k]);
}

static void test_skeleton_matrices(void **state)
{
    (void)state;
    bone_def b[3];
    double t0[3] = {1, 2, 3}, s0[3] = {2, 2, 2};
    double t1[3] = {0, 0, 5}, s1[3] = {1, 3, 1};
    double t2[3] = {-4, 0.5, 0}, s2[3] = {-1, 1, 1}; /* mirrored */
    it_trs_axis(2, 90, t0, s0, b[0].m);
    it_trs_axis(0, 30, t1, s1, b[1].m);
    it_trs_axis(1, -45, t2, s2, b[2].m);
    b[0].name = "root";
    b[0].parent = -1;
    b[1].name = "child";
    b[1].parent = 0;
    b[2].name = "other_root";
    b[2].parent = 2; /* its own index: a root too */
    char text[4096];
    skeleton_text(b, 3, text, sizeof text);
    /* the text is row-major: line 1 of the first matrix is row 0 */
    assert_non_null(strstr(text, "ILLSKEL0\n3\n0 -2 0 1\n2 0 0 2\n0 0 2 3\n0 0 0 1\n\n"));
    ossa_model *m = it_load(text, 0, "s.illskel");
    assert_int_equal(m->num_joints, 3);
    assert_int_equal(m->source_format, OSSA_FORMAT_ILLSKEL);
    assert_string_equal(m->joints[0].name, "root");
    assert_int_equal(m->joints[0].parent, -1);
    assert_int_equal(m->joints[1].parent, 0);
    assert_int_equal(m->joints[2].parent, -1);
    /* translation, rotation and scale of T * R * S */
    float q[4];
    it_quat_axis(2, 90, q);
    TS_ASSERT_QUAT_EQUIV(m->joints[0].bind.rotation, q, 1e-6);
    for (int i = 0; i < 3; i++) {
        IT_NEAR(m->joints[0].bind.translation[i], t0[i], 1e-6);
        IT_NEAR(m->joints[0].bind.scale[i], s0[i], 1e-6);
        IT_NEAR(m->joints[1].bind.scale[i], s1[i], 1e-6);
    }
    it_quat_axis(0, 30, q);
    TS_ASSERT_QUAT_EQUIV(m->joints[1].bind.rotation, q, 1e-6);
    for (int j = 0; j < 3; j++) check_bind_matrix(m, (uint32_t)j, b[j].m, 1e-6);
    /* two roots: the engine keeps the last one; ossa keeps both */
    assert_true(it_has_warning(m, "2 root bones"));
    /* no reordering: no joint numbering extra */
    for (uint32_t i = 0; i < m->num_extras; i++)
        assert_string_not_equal(m->extras[i].key, OSSA_EXTRA_JOINT_INDEX);
    ossa_model_free(m);
}

/* Bones listed before their parents (docs/formats/ill.md §4: Body, origin, <MD5_Root>),
 * here with a plain root name so that the Rx(-90) rule stays out. */
static size_t forward_skeleton(char *text, size_t cap, const char *root_name)
{
    bone_def b[4];
    double z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    double tb[3] = {0, 0, 2}, to[3] = {0, 1, 0}, th[3] = {0, 0, 1};
    it_trs_axis(2, 0, tb, one, b[0].m);
    it_trs_axis(2, 90, to, one, b[1].m);
    it_trs_axis(2, 0, z, one, b[2].m);
    it_trs_axis(0, 10, th, one, b[3].m);
    b[0].name = "Body";
    b[0].parent = 1;
    b[1].name = "origin";
    b[1].parent = 2;
    b[2].name = root_name;
    b[2].parent = -1;
    b[3].name = "Head";
    b[3].parent = 0;
    return skeleton_text(b, 4, text, cap);
}

/* One triangle; vertex v uses file bone v (0 Body, 1 origin, 2 root), and
 * vertex 0 also bone 3 (Head). */
static const char forward_mesh[] = "ILLMESH0\n1 0 0 0 1 0\n3 3\n"
                                   "1 0 0\n0 3 0 0\n0.75 0.25 0 0\n\n"
                                   "0 1 0\n1 0 0 0\n1 0 0 0\n\n"
                                   "0 0 1\n2 0 0 0\n1 0 0 0\n\n"
                                   "0 1 2\n";

static void check_forward_model(const ossa_model *m)
{
    /* parents first: root, origin, Body, Head */
    assert_int_equal(m->num_joints, 4);
    assert_string_equal(m->joints[0].name, "Root");
    assert_string_equal(m->joints[1].name, "origin");
    assert_string_equal(m->joints[2].name, "Body");
    assert_string_equal(m->joints[3].name, "Head");
    assert_int_equal(m->joints[0].parent, -1);
    assert_int_equal(m->joints[1].parent, 0);
    assert_int_equal(m->joints[2].parent, 1);
    assert_int_equal(m->joints[3].parent, 2);
    /* file bone -> joint: 0 Body -> 2, 1 origin -> 1, 2 Root -> 0, 3 Head -> 3 */
    float v[4], w[4];
    it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, v);
    it_vertex(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, 0, w);
    assert_true(v[0] == 2 && v[1] == 3 && w[0] == 0.75f && w[1] == 0.25f);
    it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 1, v);
    assert_true(v[0] == 1);
    it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 2, v);
    assert_true(v[0] == 0);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
}

static void test_skeleton_forward_references(void **state)
{
    (void)state;
    char text[4096];
    forward_skeleton(text, sizeof text, "Root");
    ossa_model *s = it_load(text, 0, "f.illskel");
    const ossa_extra *e = NULL;
    for (uint32_t i = 0; i < s->num_extras; i++)
        if (!strcmp(s->extras[i].key, OSSA_EXTRA_JOINT_INDEX)) e = &s->extras[i];
    assert_non_null(e);
    assert_int_equal(e->size, 16);
    uint32_t order[4];
    memcpy(order, e->data, 16);
    assert_true(order[0] == 2 && order[1] == 1 && order[2] == 0 && order[3] == 3);
    /* Body's bind world position: origin (0,1,0) turned by 90 about z
     * then (0,0,2): (0, 1, 2) */
    ossa_transform pose[4];
    double world[4][16];
    for (int j = 0; j < 4; j++) pose[j] = s->joints[j].bind;
    it_model_pose(s, pose, world);
    IT_NEAR(world[2][12], 0, 1e-6);
    IT_NEAR(world[2][13], 1, 1e-6);
    IT_NEAR(world[2][14], 2, 1e-6);
    ossa_model_free(s);

    /* mesh then skeleton, and skeleton then mesh */
    ossa_model *m = it_load(forward_mesh, 0, "f.illmesh");
    m = it_merge(m, it_load(text, 0, "f.illskel"));
    check_forward_model(m);
    ossa_model_free(m);
    m = it_load(text, 0, "f.illskel");
    m = it_merge(m, it_load(forward_mesh, 0, "f.illmesh"));
    check_forward_model(m);
    ossa_model_free(m);
}

static void test_skeleton_errors(void **state)
{
    (void)state;
    bone_def b[2];
    double z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    it_trs_axis(0, 0, z, one, b[0].m);
    it_trs_axis(0, 0, z, one, b[1].m);
    b[0].name = "a";
    b[1].name = "b";
    char text[2048];
    /* a cycle: a -> b -> a; lines: magic 1, count 2, matrices 3-12,
     * parents 13-14 */
    b[0].parent = 1;
    b[1].parent = 0;
    skeleton_text(b, 2, text, sizeof text);
    IT_TEXT_ERROR(text, 0, OSSA_ERROR_CORRUPT, 13, 1, "cycle");
    b[0].parent = -1;
    b[1].parent = 5;
    skeleton_text(b, 2, text, sizeof text);
    IT_TEXT_ERROR(text, 0, OSSA_ERROR_CORRUPT, 14, 1, "parent 5");
    b[1].parent = -2;
    skeleton_text(b, 2, text, sizeof text);
    IT_TEXT_ERROR(text, 0, OSSA_ERROR_CORRUPT, 14, 1, "parent index");
    /* duplicate names: a warning (the engine keeps the first) */
    b[1].parent = 0;
    b[1].name = "a";
    skeleton_text(b, 2, text, sizeof text);
    ossa_model *m = it_load(text, 0, "d.illskel");
    assert_true(it_has_warning(m, "taken by an earlier bone"));
    assert_int_equal(m->warnings[0].line, 16);
    ossa_model_free(m);
    /* a missing name */
    text[strlen(text) - 2] = 0;
    IT_TEXT_ERROR(text, 0, OSSA_ERROR_TRUNCATED, 16, 1, "bone name");
    text[strlen(text) - 1] = 0;
    IT_TEXT_ERROR(text, 0, OSSA_ERROR_TRUNCATED, 15, 2, "bone name");
    /* a matrix value that is not a number */
    IT_TEXT_ERROR("ILLSKEL0\n1\n1 0 0 0\n0 1 0 x\n0 0 1 0\n0 0 0 1\n\n0\nname\n", 0,
                  OSSA_ERROR_CORRUPT, 4, 7, "matrix value");
}

/* -- ILLANIM0 ------------------------------------------------------------------- */

static const char anim0[] = "ILLANIM0\n24\n3\n2\n"
                            "root\n"
                            "0 0 0 0 0 0 1 1 1 1\n"
                            "1 0 0 0 0 0 1 1 1 1\n"
                            "2 0 0 0 0 0 1 1 1 1\n"
                            "child\n"
                            "0 2 0 0 0 0 1 1 1 1\n"
                            "0 2 0 0 0 0.70710678 0.70710678 1 1 1\n"
                            "0 2 0 0 0 1 0 2 2 2\n";

static void test_anim0(void **state)
{
    (void)state;
    ossa_model *m = it_load(anim0, 0, "anims/walk.illanim");
    assert_int_equal(m->source_format, OSSA_FORMAT_ILLANIM);
    assert_true(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    assert_int_equal(m->num_joints, 2);
    assert_string_equal(m->joints[1].name, "child");
    assert_int_equal(m->joints[1].parent, -1);
    assert_int_equal(m->num_animations, 1);
    const ossa_animation *a = &m->animations[0];
    assert_string_equal(a->name, "walk");
    assert_int_equal(a->num_frames, 3);
    assert_true(a->framerate == 24);
    assert_true(a->flags & OSSA_ANIMATION_LOOP);
    assert_true(a->frames[2 * 2 + 0].translation[0] == 2);
    /* quaternions are x y z w */
    assert_true(a->frames[1 * 2 + 1].rotation[2] == 0.70710678f);
    assert_true(a->frames[1 * 2 + 1].rotation[3] == 0.70710678f);
    assert_true(a->frames[2 * 2 + 1].rotation[2] == 1 && a->frames[2 * 2 + 1].scale[1] == 2);
    /* frame 0 stands in for the bind pose */
    assert_true(m->joints[1].bind.translation[1] == 2);
    ossa_model_free(m);

    IT_TEXT_ERROR("ILLANIM0\n0\n3\n0\n", 0, OSSA_ERROR_CORRUPT, 2, 1, "frame rate");
    IT_TEXT_ERROR("ILLANIM0\n-24\n3\n0\n", 0, OSSA_ERROR_CORRUPT, 2, 1, "frame rate");
    IT_TEXT_ERROR("ILLANIM0\n24\n0\n0\n", 0, OSSA_ERROR_CORRUPT, 3, 1, "0 frames");
    IT_TEXT_ERROR("ILLANIM0 24 1 2\na 0 0 0 0 0 0 1 1 1 1\na 0 0 0 0 0 0 1 1 1 1\n", 0,
                  OSSA_ERROR_CORRUPT, 3, 1, "second track");
    IT_TEXT_ERROR("ILLANIM0 24 1 1\na 0 0 0 0 0 0 1 1 1\n", 0, OSSA_ERROR_TRUNCATED, 3, 1,
                  "key value");
}

/* A skeleton of three bones, an animation of two of them plus one the
 * skeleton lacks: matched by name, the third bone keeps its bind pose. */
static void test_anim0_merge(void **state)
{
    (void)state;
    bone_def b[3];
    double one[3] = {1, 1, 1}, t[3] = {0, 0, 4}, t2[3] = {7, 0, 0};
    it_trs_axis(2, 0, t, one, b[0].m);
    it_trs_axis(2, 0, t, one, b[1].m);
    it_trs_axis(1, 20, t2, one, b[2].m);
    b[0].name = "child";
    b[0].parent = 1;
    b[1].name = "root";
    b[1].parent = -1;
    b[2].name = "extra";
    b[2].parent = 1;
    char text[4096];
    skeleton_text(b, 3, text, sizeof text);
    ossa_model *m = it_load(text, 0, "s.illskel");
    const char *anim = "ILLANIM0\n10\n2\n3\n"
                       "child 0 5 0 0 0 0 1 1 1 1 0 6 0 0 0 0 1 1 1 1\n"
                       "ghost 0 0 0 0 0 0 1 1 1 1 0 0 0 0 0 0 1 1 1 1\n"
                       "root 1 0 0 0 0 0 1 1 1 1 2 0 0 0 0 0 1 1 1 1\n";
    uint32_t before = m->num_warnings;
    m = it_merge(m, it_load(anim, 0, "a.illanim"));
    assert_int_equal(m->num_animations, 1);
    bool warned = false;
    for (uint32_t i = before; i < m->num_warnings; i++)
        warned |= strstr(m->warnings[i].message, "'ghost'") != NULL;
    assert_true(warned);
    int32_t root = it_joint(m, "root"), child = it_joint(m, "child"), extra = it_joint(m, "extra");
    const ossa_animation *a = &m->animations[0];
    const ossa_transform *f1 = &a->frames[1 * m->num_joints];
    assert_true(f1[root].translation[0] == 2);
    assert_true(f1[child].translation[1] == 6);
    float q[4];
    it_quat_axis(1, 20, q);
    TS_ASSERT_QUAT_EQUIV(f1[extra].rotation, q, 1e-6);
    IT_NEAR(f1[extra].translation[0], 7, 1e-6);
    assert_non_null(a->channels);
    assert_int_equal(a->channels[extra], 0);
    assert_int_equal(a->channels[root], 7);
    ossa_model_free(m);
}

/* -- ILLANIM1 ------------------------------------------------------------------- */

static void test_anim1_resampling(void **state)
{
    (void)state;
    float rz90[4], rz45[4];
    it_quat_axis(2, 90, rz90);
    it_quat_axis(2, 45, rz45);
    char text[1024];
    snprintf(text, sizeof text,
             "ILLANIM1\n1\n2\n"
             "a\n2\n0 0 0 0\n0.5 1 0 0\n2\n0 0 0 0 1\n0.5 %.9g %.9g %.9g %.9g\n0\n"
             "b\n2\n0.25 1 0 0\n0.75 3 0 0\n0\n1\n0 2 2 2\n",
             (double)rz90[0], (double)rz90[1], (double)rz90[2], (double)rz90[3]);
    ossa_error err;
    ossa_model *m = it_try(text, strlen(text), 0, 4, "k.illanim", &err);
    assert_non_null(m);
    const ossa_animation *a = &m->animations[0];
    /* 1 s at 4 fps: frames at 0, 0.25, 0.5, 0.75 */
    assert_int_equal(a->num_frames, 4);
    IT_NEAR(a->framerate, 4, 0);
    const ossa_transform *f = a->frames;
    /* a: positions lerp, rotations slerp; after the last key (0.5) toward
     * key 0 one duration later */
    static const double ax[4] = {0, 0.5, 1, 0.5};
    for (int k = 0; k < 4; k++) IT_NEAR(f[k * 2].translation[0], ax[k], 1e-6);
    float id[4] = {0, 0, 0, 1};
    TS_ASSERT_QUAT_EQUIV(f[0].rotation, id, 1e-6);
    TS_ASSERT_QUAT_EQUIV(f[2].rotation, rz45, 1e-6);
    TS_ASSERT_QUAT_EQUIV(f[4].rotation, rz90, 1e-6);
    TS_ASSERT_QUAT_EQUIV(f[6].rotation, rz45, 1e-6);
    /* no scale keys: scale is not a channel of a */
    assert_int_equal(a->channels[0], OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION);
    assert_int_equal(a->channels[1], OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_SCALE);
    IT_NEAR(f[0].scale[0], 1, 0);
    /* b: before its first key (0.25), from the last key (0.75 - 1 s) */
    static const double bx[4] = {2, 1, 2, 3};
    for (int k = 0; k < 4; k++) IT_NEAR(f[k * 2 + 1].translation[0], bx[k], 1e-6);
    IT_NEAR(f[3].scale[2], 2, 0);
    ossa_model_free(m);

    /* the default 30 fps: whole frames over one cycle, 0.875 s -> 26 */
    m = it_load("ILLANIM1 0.875 1 a 1 0 1 2 3 0 0\n", 0, "k.illanim");
    assert_int_equal(m->animations[0].num_frames, 26);
    IT_NEAR(m->animations[0].framerate, 26 / 0.875, 1e-4);
    IT_NEAR(m->animations[0].frames[25].translation[2], 3, 0);
    assert_int_equal(m->animations[0].channels[0], OSSA_CHANNEL_TRANSLATION);
    ossa_model_free(m);
}

/* A duration so short that frames / duration is beyond float: the rate
 * stays a finite number (one frame, as for a duration of 0). */
static void test_anim1_tiny_duration(void **state)
{
    (void)state;
    ossa_model *m = it_load("ILLANIM1 1e-40 1 a 1 0 1 2 3 0 0\n", 0, "k.illanim");
    assert_int_equal(m->animations[0].num_frames, 1);
    assert_true(isfinite(m->animations[0].framerate) && m->animations[0].framerate > 0);
    IT_NEAR(m->animations[0].frames[0].translation[2], 3, 0);
    ossa_model_free(m);
}

static void test_anim1_shorter_arc(void **state)
{
    (void)state;
    /* keys q and -q' (docs/formats/ill.md §8: MD5 keys flip sign): the shorter arc */
    float r10[4], r30[4], r20[4];
    it_quat_axis(0, 10, r10);
    it_quat_axis(0, 30, r30);
    it_quat_axis(0, 20, r20);
    char text[512];
    snprintf(text, sizeof text, "ILLANIM1 1 1 a 0 2 0 %.9g %.9g %.9g %.9g 0.5 %.9g %.9g %.9g %.9g 0",
             (double)r10[0], (double)r10[1], (double)r10[2], (double)r10[3], (double)-r30[0],
             (double)-r30[1], (double)-r30[2], (double)-r30[3]);
    ossa_error err;
    ossa_model *m = it_try(text, strlen(text), 0, 4, "k.illanim", &err);
    assert_non_null(m);
    TS_ASSERT_QUAT_EQUIV(m->animations[0].frames[1].rotation, r20, 1e-6);
    ossa_model_free(m);
}

/* For MD5 sources the ILLANIM1 keys equal the ILLANIM0 frames, keys at
 * k / 24 and duration (N - 1) / 24 (docs/formats/ill.md §6). */
static void test_anim1_matches_anim0(void **state)
{
    (void)state;
    const char *fixed = "ILLANIM0 24 4 1 a\n"
                        "0 0 0 0 0 0 1 1 1 1\n"
                        "1 0 0 0 0 0.258819 0.965926 1 1 1\n"
                        "3 0 0 0 0 0.5 0.866025 1 1 1\n"
                        "0 0 0 0 0 0 1 1 1 1\n";
    const char *keyed = "ILLANIM1 0.125 1 a\n"
                        "4 0 0 0 0 0.0416667 1 0 0 0.0833333 3 0 0 0.125 0 0 0\n"
                        "4 0 0 0 0 1 0.0416667 0 0 0.258819 0.965926 0.0833333 0 0 0.5 0.866025 "
                        "0.125 0 0 0 1\n"
                        "1 0 1 1 1\n";
    ossa_model *f = it_load(fixed, 0, "f.illanim");
    ossa_error err;
    ossa_model *k = it_try(keyed, strlen(keyed), 0, 24, "k.illanim", &err);
    assert_non_null(k);
    assert_int_equal(k->animations[0].num_frames, 3);
    IT_NEAR(k->animations[0].framerate, 24, 1e-4);
    for (int i = 0; i < 3; i++) {
        const ossa_transform *a = &f->animations[0].frames[i], *b = &k->animations[0].frames[i];
        for (int c = 0; c < 3; c++) IT_NEAR(a->translation[c], b->translation[c], 1e-5);
        TS_ASSERT_QUAT_EQUIV(a->rotation, b->rotation, 1e-5);
    }
    ossa_model_free(f);
    ossa_model_free(k);
}

static void test_anim1_errors(void **state)
{
    (void)state;
    /* no channel has a key: every bone keeps its bind pose */
    ossa_model *m = it_load("ILLANIM1 1 2 a 0 0 0 b 0 0 0", 0, "n.illanim");
    assert_int_equal(m->num_joints, 2);
    assert_int_equal(m->animations[0].channels[1], 0);
    ossa_model_free(m);
    IT_TEXT_ERROR("ILLANIM1\n-1\n0\n", 0, OSSA_ERROR_CORRUPT, 2, 1, "duration");
    IT_TEXT_ERROR("ILLANIM1 1 1\na 2 0.5 0 0 0\n0.25 1 1 1\n0 0 0\n", 0, OSSA_ERROR_CORRUPT, 3, 1,
                  "comes before");
    IT_TEXT_ERROR("ILLANIM1 1 2 a 0 0 0 a 0 0 0", 0, OSSA_ERROR_CORRUPT, 1, 22, "second track");
    IT_TEXT_ERROR("ILLANIM1 1 1 bone 0 0", 0, OSSA_ERROR_TRUNCATED, 1, 22, "scale key count");
    /* a huge duration would decode to more frames than the file justifies */
    IT_TEXT_ERROR("ILLANIM1 1e30 1 a 0 0 0", 0, OSSA_ERROR_UNSUPPORTED, 1, 10, "frames");
    /* ILLANIM1 has no binary form */
    IT_TEXT_ERROR("ILLANIM1 1 0", "ill.encoding=binary", OSSA_ERROR_UNSUPPORTED, 0, 0, "text only");
}

/* -- The Rx(-90) correction (docs/formats/ill.md §10) ---------------------------- */

/* Doom 3 style: <MD5_Root> (identity) above origin, whose bind is
 * Rx(-90) * (MD5 pose); Body is origin's child. Listed before its parents. */
static size_t md5_skeleton(char *text, size_t cap, const char *root_name)
{
    bone_def b[3];
    double z[3] = {0, 0, 0}, one[3] = {1, 1, 1}, tb[3] = {1, 2, 30};
    double rx[16], md5_origin[16];
    it_trs_axis(0, -90, z, one, rx);
    double to[3] = {0, 0, 0};
    it_trs_axis(2, 30, to, one, md5_origin);
    it_mat_mul(rx, md5_origin, b[1].m); /* origin: Rx(-90) * R_md5 */
    it_trs_axis(1, 15, tb, one, b[0].m);
    it_trs_axis(0, 0, z, one, b[2].m);
    b[0].name = "Body";
    b[0].parent = 1;
    b[1].name = "origin";
    b[1].parent = 2;
    b[2].name = root_name;
    b[2].parent = -1;
    return skeleton_text(b, 3, text, cap);
}

/* A vertex at Body's MD5 (Z-up) position, one elsewhere, one on origin. */
static void md5_mesh(char *text, size_t cap)
{
    double md5_origin[16], body[16], world[16];
    double z[3] = {0, 0, 0}, one[3] = {1, 1, 1}, tb[3] = {1, 2, 30};
    it_trs_axis(2, 30, z, one, md5_origin);
    it_trs_axis(1, 15, tb, one, body);
    it_mat_mul(md5_origin, body, world);
    snprintf(text, cap,
             "ILLMESH0\n1 1 0 0 1 0\n3 3\n"
             "%.9g %.9g %.9g\n0 0 1\n0 0 0 0\n1 0 0 0\n\n"
             "5 0 0\n1 0 0\n0 1 0 0\n0.5 0.5 0 0\n\n"
             "0 0 0\n0 1 0\n1 0 0 0\n1 0 0 0\n\n"
             "0 1 2\n",
             world[12], world[13], world[14]);
}

/* Positions of vertex 0 and normal of vertex 1. */
static void md5_vertex(const ossa_model *m, float p[3], float n[3])
{
    float v[4];
    it_vertex(m, OSSA_VERTEX_POSITION, NULL, 0, v);
    memcpy(p, v, 3 * sizeof *p);
    it_vertex(m, OSSA_VERTEX_NORMAL, NULL, 1, v);
    memcpy(n, v, 3 * sizeof *n);
}

static void test_md5_correction(void **state)
{
    (void)state;
    char skel[4096], mesh[1024];
    md5_mesh(mesh, sizeof mesh);
    md5_skeleton(skel, sizeof skel, "<MD5_Root>");
    float p[3], n[3];

    /* detected: the mesh turns into the skeleton's Y-up bind space, where
     * vertex 0 lies on Body's bind position */
    for (int order = 0; order < 2; order++) {
        ossa_model *m = order ? it_load(skel, 0, "s.illskel") : it_load(mesh, 0, "m.illmesh");
        m = it_merge(m, order ? it_load(mesh, 0, "m.illmesh") : it_load(skel, 0, "s.illskel"));
        assert_int_equal(m->num_joints, 3);
        assert_string_equal(m->joints[0].name, "<MD5_Root>");
        ossa_transform bind[3];
        double world[3][16];
        for (int j = 0; j < 3; j++) bind[j] = m->joints[j].bind;
        it_model_pose(m, bind, world);
        md5_vertex(m, p, n);
        for (int i = 0; i < 3; i++) IT_NEAR(p[i], world[2][12 + i], 1e-4);
        /* normal (1,0,0) unchanged by Rx; Rx(-90) maps (x,y,z) to (x,z,-y) */
        IT_NEAR(n[0], 1, 0);
        IT_NEAR(n[1], 0, 0);
        /* used up: no second application, nothing left to write */
        for (uint32_t i = 0; i < m->num_extras; i++)
            assert_string_not_equal(m->extras[i].key, OSSA_EXTRA_MESH_TO_BIND);
        assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
        ossa_model_free(m);
    }

    /* suppressed: the vertex stays at its Z-up MD5 position */
    ossa_model *m = it_load(mesh, 0, "m.illmesh");
    m = it_merge(m, it_load(skel, "ill.md5_fix=off", "s.illskel"));
    float raw[3];
    md5_vertex(m, raw, n);
    ossa_model_free(m);
    /* and the corrected one is exactly Rx(-90) of it */
    m = it_load(mesh, 0, "m.illmesh");
    m = it_merge(m, it_load(skel, 0, "s.illskel"));
    md5_vertex(m, p, n);
    assert_true(p[0] == raw[0] && p[1] == raw[2] && p[2] == -raw[1]);
    ossa_model_free(m);

    /* no <MD5_Root>: nothing, unless forced */
    md5_skeleton(skel, sizeof skel, "Root");
    m = it_load(mesh, 0, "m.illmesh");
    m = it_merge(m, it_load(skel, 0, "s.illskel"));
    md5_vertex(m, p, n);
    assert_true(p[0] == raw[0] && p[1] == raw[1] && p[2] == raw[2]);
    ossa_model_free(m);
    m = it_load(mesh, 0, "m.illmesh");
    m = it_merge(m, it_load(skel, "ill.md5_fix=on", "s.illskel"));
    md5_vertex(m, p, n);
    assert_true(p[0] == raw[0] && p[1] == raw[2] && p[2] == -raw[1]);
    ossa_model_free(m);
}

/* The skinned vertex equals the engine's (docs/formats/ill.md §9): palette =
 * current * inverse(bindGlobal) * Rx(-90), applied to the raw MD5 vertex,
 * with the animation keys of origin left unrotated (§10). */
static void test_md5_matches_engine(void **state)
{
    (void)state;
    char skel[4096], mesh[1024];
    md5_mesh(mesh, sizeof mesh);
    md5_skeleton(skel, sizeof skel, "<MD5_Root>");
    float ro[4], rb[4];
    it_quat_axis(2, 50, ro);
    it_quat_axis(1, -25, rb);
    char anim[1024];
    snprintf(anim, sizeof anim,
             "ILLANIM0 24 1 2\n"
             "origin 5 6 0 %.9g %.9g %.9g %.9g 1 1 1\n"
             "Body 1 2 30 %.9g %.9g %.9g %.9g 1 1 1\n",
             (double)ro[0], (double)ro[1], (double)ro[2], (double)ro[3], (double)rb[0],
             (double)rb[1], (double)rb[2], (double)rb[3]);
    ossa_model *raw = it_load(mesh, 0, "m.illmesh");
    ossa_model *m = it_load(mesh, 0, "m.illmesh");
    m = it_merge(m, it_load(skel, 0, "s.illskel"));
    m = it_merge(m, it_load(anim, 0, "a.illanim"));
    /* the engine, in double, from the file's values */
    ossa_transform bind[3];
    double bw[3][16], cur[3][16], rx[16], inv[16], pal[16];
    for (int j = 0; j < 3; j++) bind[j] = m->joints[j].bind;
    it_model_pose(m, bind, bw);
    it_model_pose(m, m->animations[0].frames, cur);
    double z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    it_trs_axis(0, -90, z, one, rx);
    int body = it_joint(m, "Body");
    /* inverse(bindGlobal) in double */
    float invbind[3][16];
    ossa_model_inverse_bind_matrices(m, invbind);
    for (int k = 0; k < 16; k++) inv[k] = invbind[body][k];
    double check[16];
    it_mat_mul(inv, bw[body], check);
    for (int k = 0; k < 16; k++) IT_NEAR(check[k], k % 5 == 0, 1e-5);
    it_mat_mul(cur[body], inv, pal);
    it_mat_mul(pal, rx, pal);
    float v[4];
    it_vertex(raw, OSSA_VERTEX_POSITION, NULL, 0, v);
    double engine[3];
    for (int r = 0; r < 3; r++)
        engine[r] = pal[r] * v[0] + pal[4 + r] * v[1] + pal[8 + r] * v[2] + pal[12 + r];
    /* ossa: the runtime's skinning matrices on the corrected mesh */
    float model_m[3][16], skin[3][16];
    ossa_local_to_model(m, m->animations[0].frames, model_m);
    ossa_skinning_matrices(3, (const float(*)[16])model_m, (const float(*)[16])invbind, skin);
    it_vertex(m, OSSA_VERTEX_POSITION, NULL, 0, v);
    for (int r = 0; r < 3; r++) {
        double o = skin[body][r] * v[0] + skin[body][4 + r] * v[1] + skin[body][8 + r] * v[2] +
                   skin[body][12 + r];
        IT_NEAR(o, engine[r], 1e-3);
    }
    /* and it is Body's animated position: MD5 space, Z-up */
    IT_NEAR(engine[0], cur[body][12], 1e-3);
    IT_NEAR(engine[2], cur[body][14], 1e-3);
    ossa_model_free(raw);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh_v0b),
        cmocka_unit_test(test_mesh_v0a),
        cmocka_unit_test(test_mesh_crlf),
        cmocka_unit_test(test_mesh_layout_ambiguous),
        cmocka_unit_test(test_mesh_layout_conflicts),
        cmocka_unit_test(test_mesh_errors),
        cmocka_unit_test(test_skeleton_matrices),
        cmocka_unit_test(test_skeleton_forward_references),
        cmocka_unit_test(test_skeleton_errors),
        cmocka_unit_test(test_anim0),
        cmocka_unit_test(test_anim0_merge),
        cmocka_unit_test(test_anim1_resampling),
        cmocka_unit_test(test_anim1_tiny_duration),
        cmocka_unit_test(test_anim1_shorter_arc),
        cmocka_unit_test(test_anim1_matches_anim0),
        cmocka_unit_test(test_anim1_errors),
        cmocka_unit_test(test_md5_correction),
        cmocka_unit_test(test_md5_matches_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
