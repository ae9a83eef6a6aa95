/* OBJ reader (docs/formats/obj.md): every statement and rule on small texts,
 * with expected values worked out by hand. The default axis map takes OBJ
 * (x, y, z) to ossa (z, x, y); texture v becomes 1 - v; faces are
 * reversed. */
#include "text_format_test.h"

#define OBJ OSSA_FORMAT_OBJ

static ossa_model *load(const char *text) { return tf_load_with(OBJ, text, NULL); }
#define EXPECT_ERROR(text, code, line, column, needle)                                              \
    tf_expect_error(OBJ, (text), (code), (line), (column), (needle), __LINE__)

static void expect3(const ossa_model *m, ossa_vertex_type type, uint32_t v, double x, double y,
                    double z, double tol, int line)
{
    float f[8];
    tf_get(m, type, v, f);
    tf_near(f[0], x, tol, "x", line);
    tf_near(f[1], y, tol, "y", line);
    tf_near(f[2], z, tol, "z", line);
}
#define EXPECT3(m, type, v, x, y, z) expect3((m), (type), (v), (x), (y), (z), 1e-6, __LINE__)

static void test_basic(void **state)
{
    (void)state;
    ossa_model *m = load("# a unit quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                         "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1 0.5\nvn 0 0 2\n"
                         "f -4/-4/-1 -3/-3/-1 -2/-2/-1 -1/-1/-1\n");
    assert_int_equal(m->num_triangles, 2);
    assert_int_equal(m->num_vertices, 4);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "");
    assert_string_equal(m->meshes[0].material, "");
    assert_int_equal(m->num_warnings, 0);
    /* The fan (c0 c1 c2) (c0 c2 c3) reversed: (c2 c1 c0) (c3 c2 c0);
     * vertices in order of first appearance: c2 c1 c0 c3. */
    assert_int_equal(m->triangles[0].v[0], 0);
    assert_int_equal(m->triangles[0].v[1], 1);
    assert_int_equal(m->triangles[0].v[2], 2);
    assert_int_equal(m->triangles[1].v[0], 3);
    assert_int_equal(m->triangles[1].v[1], 0);
    assert_int_equal(m->triangles[1].v[2], 2);
    /* c2 = OBJ (1, 1, 0) -> ossa (0, 1, 1); c3 = (0, 1, 0) -> (0, 0, 1) */
    EXPECT3(m, OSSA_VERTEX_POSITION, 0, 0, 1, 1);
    EXPECT3(m, OSSA_VERTEX_POSITION, 1, 0, 1, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, 3, 0, 0, 1);
    /* vn (0, 0, 2) normalized -> ossa (1, 0, 0), which is also the
     * outward normal of the clockwise triangle (0,1,1) (0,1,0) (0,0,0) */
    EXPECT3(m, OSSA_VERTEX_NORMAL, 2, 1, 0, 0);
    float t[8];
    tf_get(m, OSSA_VERTEX_TEXCOORD, 0, t); /* vt 1 1 */
    TF_NEAR(t[0], 1, 0);
    TF_NEAR(t[1], 0, 0);
    tf_get(m, OSSA_VERTEX_TEXCOORD, 3, t); /* vt 0 1 (w ignored) */
    TF_NEAR(t[1], 0, 0);
    tf_get(m, OSSA_VERTEX_TEXCOORD, 2, t); /* vt 0 0 */
    TF_NEAR(t[1], 1, 0);
    ossa_model_free(m);

    /* Blender's axes: (x, y, z) -> (x, -z, y) */
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    const ossa_option blender = {"obj.axes", "blender"};
    o.format_options = &blender;
    o.num_format_options = 1;
    m = tf_load_with(OBJ, "v 1 2 3\nv 4 5 6\nv 7 8 9.5\nvn 0 1 0\nf 1//1 2//1 3//1\n", &o);
    EXPECT3(m, OSSA_VERTEX_POSITION, 2, 1, -3, 2); /* the first corner, reversed to last */
    EXPECT3(m, OSSA_VERTEX_NORMAL, 0, 0, 0, 1);
    ossa_model_free(m);
}

static void test_indices(void **state)
{
    (void)state;
    /* negative indices count back from what is read so far; positive ones
     * may point forward */
    ossa_model *m = load("v 0 0 0\nv 1 0 0\nf -2 -1 3\nv 0 1 0\nv 9 9 9\n");
    assert_int_equal(m->num_triangles, 1);
    EXPECT3(m, OSSA_VERTEX_POSITION, 0, 0, 0, 1); /* corner 3: OBJ (0, 1, 0) */
    ossa_model_free(m);
    EXPECT_ERROR("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 0 2\n", OSSA_ERROR_CORRUPT, 4, 5, "index 0");
    EXPECT_ERROR("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2  9\n", OSSA_ERROR_CORRUPT, 4, 8,
                 "position index 9 is out of range (the file has 3 'v' lines)");
    EXPECT_ERROR("v 0 0 0\nv 1 0 0\nf 1 2 -3\nv 0 1 0\n", OSSA_ERROR_CORRUPT, 3, 7,
                 "counts back past the first position (2 read so far)");
    EXPECT_ERROR("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", OSSA_ERROR_CORRUPT, 5, 7,
                 "texture coordinate index 2");
    EXPECT_ERROR("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n", OSSA_ERROR_CORRUPT, 4, 3,
                 "normal index 1");
    EXPECT_ERROR("v 0 0 0\nf 1/x 1 1\n", OSSA_ERROR_CORRUPT, 2, 5, "texture coordinate index");
    EXPECT_ERROR("v 0 0 0\nf 1/1/1/1 1 1\n", OSSA_ERROR_CORRUPT, 2, 8, "end of the face corner");
    EXPECT_ERROR("v 0 0 0\nf 1// 1 1\n", OSSA_ERROR_CORRUPT, 2, 6, "normal index");
    /* the same triple in two meshes is two vertices; in one mesh, one */
    m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 3 2 4\ng b\nf 1 2 3\n");
    assert_int_equal(m->num_meshes, 2);
    assert_int_equal(m->meshes[0].num_vertices, 4);
    assert_int_equal(m->meshes[1].num_vertices, 3);
    assert_int_equal(m->num_vertices, 7);
    ossa_model_free(m);
}

/* Twice the signed area, in the OBJ xy plane, of model triangle t (whose
 * positions are ossa (z, x, y)), counter-clockwise positive as OBJ winds. */
static double obj_area2(const ossa_model *m, uint32_t t)
{
    float a[8], b[8], c[8];
    tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[0], a);
    tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[1], b);
    tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[2], c);
    /* ossa (a b c) is OBJ (c b a) */
    return ((double)b[1] - c[1]) * ((double)a[2] - c[2]) - ((double)b[2] - c[2]) * ((double)a[1] - c[1]);
}

static void test_polygons(void **state)
{
    (void)state;
    /* A "C" of area 7 that the fan around its first corner gets wrong: the
     * notch x in (1, 3), y in (1, 2) is outside. */
    ossa_model *m = load("v 0 0 0\nv 3 0 0\nv 3 1 0\nv 1 1 0\nv 1 2 0\nv 3 2 0\nv 3 3 0\nv 0 3 0\n"
                         "f 1 2 3 4 5 6 7 8\n");
    assert_int_equal(m->num_triangles, 6);
    double sum = 0, sum_abs = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        double a = obj_area2(m, t) / 2;
        assert_true(a > -1e-12);
        sum += a;
        sum_abs += fabs(a);
    }
    TF_NEAR(sum, 7, 1e-9);
    TF_NEAR(sum_abs, 7, 1e-9);
    ossa_model_free(m);

    /* convex: the fan, the IQM SDK's triangles */
    m = load("v 0 0 0\nv 2 0 0\nv 3 1 0\nv 2 2 0\nv 0 2 0\nf 1 2 3 4 5\n");
    assert_int_equal(m->num_triangles, 3);
    /* fan (1 2 3) reversed: (3 2 1), its last corner is OBJ vertex 1 */
    EXPECT3(m, OSSA_VERTEX_POSITION, m->triangles[0].v[2], 0, 0, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, m->triangles[1].v[2], 0, 0, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, m->triangles[2].v[2], 0, 0, 0);
    ossa_model_free(m);

    /* repeated corners: a quad written twice around is two triangles
     * (the fan's triangles whose corners weld into one vertex are dropped
     * after the read) */
    m = load("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4 1 2 3 4\n");
    assert_int_equal(m->num_triangles, 4);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "2 degenerate triangles (a vertex repeated) dropped"));
    ossa_model_free(m);
    /* one position with two texture coordinates is two vertices: the
     * triangle of zero area stays (the IQM SDK keeps it too) */
    m = load("v 0 0 0\nv 1 0 0\nvt 0 0\nvt 1 0\nf 1/1 1/2 2/1\n");
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_vertices, 3);
    assert_null(tf_warning(m, OSSA_WARNING_IGNORED, "degenerate"));
    ossa_model_free(m);
    /* three `v` lines at one point with the same texture coordinate and
     * normal are one vertex three times: dropped (spider.obj's teeth) */
    m = load("v 0 0 0\nv 0 0 0\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n"
             "f 1/1/1 2/1/1 3/1/1\nf 1/1/1 4/1/1 5/1/1\n");
    assert_int_equal(m->num_triangles, 1);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "1 degenerate triangle (a vertex repeated) dropped"));
    ossa_model_free(m);

    /* a bow tie cannot be ear-clipped: the fan, with a warning */
    m = load("v 0 0 0\nv 2 2 0\nv 2 0 0\nv 0 2 0\nv -1 1 0\nf 1 2 3 4 5\n");
    assert_int_equal(m->num_triangles, 3);
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "could not be ear-clipped"));
    ossa_model_free(m);

    /* fewer than 3 corners: skipped */
    m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\nf 1 2 3\n");
    assert_int_equal(m->num_triangles, 1);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "fewer than 3 corners"));
    assert_int_equal(m->warnings[0].line, 4);
    ossa_model_free(m);
}

static void test_meshes(void **state)
{
    (void)state;
    ossa_model *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                         "o first\nusemtl a # comment\nf 1 2 3\n"
                         "g g1  g2\nf 1 2 3\n"
                         "usemtl  Hard Shiny Plastic \nf 1 2 3\n"
                         "g g1 g2\nusemtl a\nf 3 2 1\n"
                         "o second\nf 1 2 3\n"
                         "g\nf 1 2 3\n");
    assert_int_equal(m->num_meshes, 5);
    static const char *const names[5][2] = {{"first", "a"},
                                            {"g1 g2", "a"},
                                            {"g1 g2", "Hard Shiny Plastic"},
                                            {"second", "a"},
                                            {"default", "a"}};
    static const uint32_t tris[5] = {1, 2, 1, 1, 1};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(m->meshes[i].name, names[i][0]);
        assert_string_equal(m->meshes[i].material, names[i][1]);
        assert_int_equal(m->meshes[i].num_triangles, tris[i]);
    }
    /* the interleaved face joined its mesh: triangles 1 and 2 are g1 g2 / a */
    assert_int_equal(m->meshes[1].first_triangle, 1);
    ossa_model_free(m);

    /* mtllib names recorded, once each, never opened */
    m = load("mtllib a.mtl b.mtl\nmtllib a.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    assert_int_equal(m->num_extras, 1);
    assert_string_equal(m->extras[0].key, "obj.mtllib");
    assert_int_equal(m->extras[0].size, 12);
    assert_memory_equal(m->extras[0].data, "a.mtl\nb.mtl\n", 12);
    ossa_model_free(m);
}

static void test_colors(void **state)
{
    (void)state;
    ossa_model *m = load("v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0\nf 1 2 3\n");
    float c[8];
    /* vertices in ossa order: corner 3 (no colour: white), 2, 1 */
    tf_get(m, OSSA_VERTEX_COLOR, 0, c);
    TF_NEAR(c[0], 1, 0);
    TF_NEAR(c[1], 1, 0);
    TF_NEAR(c[3], 1, 0);
    tf_get(m, OSSA_VERTEX_COLOR, 1, c);
    TF_NEAR(c[0], 0, 0);
    TF_NEAR(c[1], 1, 0);
    TF_NEAR(c[3], 1, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "no colour"));
    ossa_model_free(m);

    m = load("v 0 0 0 1 0 0 0.2\nv 1 0 0 1 0 0 1\nv 0 1 0 1 0 0 1\nf 1 2 3\n");
    tf_get(m, OSSA_VERTEX_COLOR, 2, c);
    TF_NEAR(c[3], 0.2, 0.5 / 255);
    assert_non_null(tf_warning(m, OSSA_WARNING_NONSTANDARD, "alpha"));
    ossa_model_free(m);

    m = load("v 0 0 0 2\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    assert_null(ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL));
    EXPECT3(m, OSSA_VERTEX_POSITION, 2, 0, 0, 0); /* w is not divided by */
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "weight w"));
    ossa_model_free(m);

    EXPECT_ERROR("v 0 0 0 1 1\n", OSSA_ERROR_CORRUPT, 1, 1, "found 5");
    EXPECT_ERROR("v 0 0 0 1 1 1 1 1\n", OSSA_ERROR_CORRUPT, 1, 1, "more than 7");
    EXPECT_ERROR("v 0 0\n", OSSA_ERROR_CORRUPT, 1, 6, "1 more numbers after 'v'");
    EXPECT_ERROR("vt\n", OSSA_ERROR_CORRUPT, 1, 3, "texture coordinate u");
    EXPECT_ERROR("vt 0 0 0 0\n", OSSA_ERROR_CORRUPT, 1, 10, "end of the line");
    EXPECT_ERROR("vn 0 0\n", OSSA_ERROR_CORRUPT, 1, 7, "1 more numbers after 'vn'");
    EXPECT_ERROR("v 0 nan 0\n", OSSA_ERROR_CORRUPT, 1, 5, "not a finite number");
    EXPECT_ERROR("v 0 x 0\n", OSSA_ERROR_CORRUPT, 1, 5, "expected a number after 'v', found 'x'");
}

/* Two triangles meeting at a right angle along the OBJ edge (0,0,0)-(0,1,0):
 * the first (0,0,0) (1,0,0) (0,1,0) faces OBJ +z, the second (0,0,0)
 * (0,0,1) (0,1,0) faces -x, both of area 1/2. In ossa (z, x, y): +z is
 * (1, 0, 0) and -x is (0, -1, 0). */
static const char roof[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n%s\nf 1 2 3\n%s\nf 1 4 3\n";

static ossa_model *roof_with(const char *s1, const char *s2)
{
    char text[200];
    snprintf(text, sizeof text, roof, s1, s2);
    return load(text);
}

static void test_smoothing(void **state)
{
    (void)state;
    double h = sqrt(0.5);
    /* one group (and no `s` at all): the shared corners average */
    const char *const same[][2] = {{"s 1", "s 1"}, {"", ""}, {"s 3", "s 3"}};
    for (int i = 0; i < 3; i++) {
        ossa_model *m = roof_with(same[i][0], same[i][1]);
        assert_int_equal(m->num_vertices, 4);
        for (uint32_t v = 0; v < 4; v++) {
            float p[8], n[8];
            tf_get(m, OSSA_VERTEX_POSITION, v, p);
            tf_get(m, OSSA_VERTEX_NORMAL, v, n);
            double ex = h, ey = -h; /* OBJ (0,0,0) and (0,1,0): both triangles */
            if (p[1] == 1) ex = 1, ey = 0;  /* OBJ (1,0,0): the first only */
            if (p[0] == 1) ex = 0, ey = -1; /* OBJ (0,0,1): the second only */
            TF_NEAR(n[0], ex, 1e-6);
            TF_NEAR(n[1], ey, 1e-6);
            TF_NEAR(n[2], 0, 1e-6);
        }
        ossa_model_free(m);
    }
    /* flat (s off, s 0, different groups, faces before the first `s`) */
    const char *const apart[][2] = {{"s off", "s off"}, {"s 1", "s 2"}, {"", "s 1"}, {"s 0", ""}};
    for (int i = 0; i < 4; i++) {
        ossa_model *m = roof_with(apart[i][0], apart[i][1]);
        assert_int_equal(m->num_vertices, 6);
        /* the first triangle's corners face ossa +x, the second's -y */
        for (int k = 0; k < 3; k++) {
            float n[8];
            tf_get(m, OSSA_VERTEX_NORMAL, m->triangles[0].v[k], n);
            TF_NEAR(n[0], 1, 1e-6);
            tf_get(m, OSSA_VERTEX_NORMAL, m->triangles[1].v[k], n);
            TF_NEAR(n[1], -1, 1e-6);
        }
        ossa_model_free(m);
    }
    /* some corners with vn: those kept, the rest generated */
    ossa_model *m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 1 0\nvn 0 0 0\nf 1//1 2 3//2\n");
    float n[8];
    tf_get(m, OSSA_VERTEX_NORMAL, m->triangles[0].v[2], n); /* corner 1: vn 1 */
    TF_NEAR(n[2], 1, 0);
    tf_get(m, OSSA_VERTEX_NORMAL, m->triangles[0].v[1], n); /* corner 2: generated */
    TF_NEAR(n[0], 1, 1e-6);
    tf_get(m, OSSA_VERTEX_NORMAL, m->triangles[0].v[0], n); /* corner 3: zero vn */
    TF_NEAR(n[0], 1, 1e-6);
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "1 of 3 face corners have no normal"));
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "zero length"));
    ossa_model_free(m);
    /* a texture coordinate missing beside others of the mesh: OBJ (0, 0) */
    m = load("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0.5 0.5\nf 1/1 2 3/1\n");
    float t[8];
    tf_get(m, OSSA_VERTEX_TEXCOORD, m->triangles[0].v[1], t);
    TF_NEAR(t[0], 0, 0);
    TF_NEAR(t[1], 1, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_REPAIRED, "no texture coordinate"));
    ossa_model_free(m);
}

static void test_statements(void **state)
{
    (void)state;
    ossa_model *m = load("vp 0.5\nmg 1\nl 1 2\np 1\nfoo 1\nfoo 2\nbar\ncall x.obj\n"
                         "cstype bspline\ndeg 3\ncurv 0 1 1 2\nparm u 0 1\nend\n"
                         "v 0 0 0\nv 1 0 0\nv 0 1 0\ns off\nf 1 2 3\n");
    assert_int_equal(m->num_triangles, 1);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "'l') and points"));
    const ossa_diagnostic *w = tf_warning(m, OSSA_WARNING_IGNORED, "unknown statement 'foo'");
    assert_non_null(w);
    assert_int_equal(w->line, 5);
    assert_int_equal(w->column, 1);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "unknown statement 'bar'"));
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "never executed"));
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "free-form"));
    uint32_t foo = 0;
    for (uint32_t i = 0; i < m->num_warnings; i++) foo += strstr(m->warnings[i].message, "'foo'") != NULL;
    assert_int_equal(foo, 1);
    ossa_model_free(m);

    EXPECT_ERROR("v 0 0 0\nl 1 1\n", OSSA_ERROR_FORMAT, 3, 1, "no faces");
    EXPECT_ERROR("", OSSA_ERROR_FORMAT, 1, 1, "no faces");
    EXPECT_ERROR("v 0 0 0\ns x\n", OSSA_ERROR_CORRUPT, 2, 3, "smoothing group");
    /* faces that all name one corner twice: no face at all, refused as a
     * file without faces is */
    EXPECT_ERROR("v 0 0 0\nf 1 1 1\n", OSSA_ERROR_FORMAT, 2, 1, "no face has three different corners");
    EXPECT_ERROR("v 0 0 0\nv 1 0 0\nvn 0 0 1\nf 1 2 1\nf 2//1 2//1 1//1\n", OSSA_ERROR_FORMAT, 4, 1, "no face has three different corners");
    /* three `v` lines at one point: faces of three points, but one vertex
     * three times: they go after the read, leaving an empty model, said */
    m = load("v 0 0 0\nv 0 0 0\nv 0 0 0\nf 1 2 3\nf 3 2 1\n");
    assert_int_equal(m->num_triangles, 0);
    assert_int_equal(m->num_vertices, 0);
    assert_int_equal(m->num_meshes, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "2 degenerate triangles (a vertex repeated) dropped"));
    ossa_model_free(m);
}

static void test_text(void **state)
{
    (void)state;
    /* a `\` at the end of a line continues the statement; locations stay
     * those of the file */
    ossa_model *m = load("v 0 0 0\nv 1 \\\n 0 0\nv 0 1 0\nf 1 \\\r\n2 3\nfoo\n");
    assert_int_equal(m->num_triangles, 1);
    EXPECT3(m, OSSA_VERTEX_POSITION, 1, 0, 1, 0);
    const ossa_diagnostic *w = tf_warning(m, OSSA_WARNING_IGNORED, "'foo'");
    assert_int_equal(w->line, 7);
    ossa_model_free(m);
    EXPECT_ERROR("v 0 0 \\\n0\nv 1 0 0\nv x 0 0\n", OSSA_ERROR_CORRUPT, 4, 3, "found 'x'");
    EXPECT_ERROR("v 0 0 0\nf 1 \\\n 1 \\\n  9\n", OSSA_ERROR_CORRUPT, 4, 3, "index 9");
    /* a comment's `\` continues nothing */
    m = load("# note \\\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    assert_int_equal(m->num_triangles, 1);
    ossa_model_free(m);

    /* the longest number prefix of a token, with one warning */
    m = load("v 3.1+e2 2.e+1 -1e-1x\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    EXPECT3(m, OSSA_VERTEX_POSITION, 2, -0.1f, 3.1f, 20);
    w = tf_warning(m, OSSA_WARNING_REPAIRED, "2 numbers have characters after them");
    assert_non_null(w);
    assert_int_equal(w->line, 1);
    assert_int_equal(w->column, 3);
    ossa_model_free(m);

    /* CR line ends, a UTF-8 byte order mark, UTF-16 with a byte order mark */
    m = load("v 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2 3");
    assert_int_equal(m->num_triangles, 1);
    ossa_model_free(m);
    m = load("\xEF\xBB\xBFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    assert_int_equal(m->num_triangles, 1);
    ossa_model_free(m);
    static const char ascii[] = "o \xC3\xA9t\xC3\xA9\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    /* "o été": é is U+00E9 */
    static const uint16_t units[] = {'o', ' ', 0xE9, 't', 0xE9};
    for (int big = 0; big < 2; big++) {
        char text[200];
        size_t n = 0;
        text[n++] = (char)(big ? 0xFE : 0xFF);
        text[n++] = (char)(big ? 0xFF : 0xFE);
        const char *rest = strchr(ascii, '\n');
        for (size_t i = 0; i < 5 + strlen(rest); i++) {
            uint16_t u = i < 5 ? units[i] : (uint16_t)(unsigned char)rest[i - 5];
            text[n++] = (char)(big ? u >> 8 : u & 0xFF);
            text[n++] = (char)(big ? u & 0xFF : u >> 8);
        }
        ossa_error err;
        m = tf_try(OBJ, text, n, NULL, &err);
        assert_non_null(m);
        assert_string_equal(m->meshes[0].name, "\xC3\xA9t\xC3\xA9");
        assert_non_null(tf_warning(m, OSSA_WARNING_NONSTANDARD, "UTF-16"));
        ossa_model_free(m);
    }
    ossa_error err;
    static const char nul[] = "v 0 0 0\nv 1\0 0 0\n";
    assert_null(tf_try(OBJ, nul, sizeof nul - 1, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_FORMAT);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 4);

    /* detection: the first statement */
    assert_int_equal(ossa_format_detect("# c\n\nv 1 2 3\n", 13), OSSA_FORMAT_OBJ);
    assert_int_equal(ossa_format_detect("mtllib x.mtl\n", 13), OSSA_FORMAT_OBJ);
    assert_int_equal(ossa_format_detect("vx 1 2 3\n", 9), OSSA_FORMAT_AUTO);
    assert_int_equal(ossa_format_from_name("a/b.OBJ"), OSSA_FORMAT_OBJ);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),     cmocka_unit_test(test_indices),
        cmocka_unit_test(test_polygons),  cmocka_unit_test(test_meshes),
        cmocka_unit_test(test_colors),    cmocka_unit_test(test_smoothing),
        cmocka_unit_test(test_statements), cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
