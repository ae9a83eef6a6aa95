/* IQE normal generation (docs/formats/iqe.md §5): smoothing angles, groups,
 * edges and texture seams on cubes whose normals are computed here. */
#include "iqe_test.h"

/* A unit cube on 8 shared corners, vertex index = x | y<<1 | z<<2, faces
 * wound so that cross(p2 - p0, p1 - p0) points outwards (worked out by
 * hand for each face: top [4 6 7 5] gives (0,0,1), and so on). */
#define CUBE_VERTICES                                                                          \
    "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 1 1 0\nvp 0 0 1\nvp 1 0 1\nvp 0 1 1\nvp 1 1 1\n"
#define FACE_TOP "fa 4 6 7 5\n"
#define FACE_BOTTOM "fa 0 1 3 2\n"
#define FACE_X0 "fa 0 2 6 4\n"
#define FACE_X1 "fa 1 5 7 3\n"
#define FACE_Y0 "fa 0 4 5 1\n"
#define FACE_Y1 "fa 2 3 7 6\n"
#define CUBE_FACES FACE_TOP FACE_BOTTOM FACE_X0 FACE_X1 FACE_Y0 FACE_Y1

static const int cube_faces[6][4] = {{4, 6, 7, 5}, {0, 1, 3, 2}, {0, 2, 6, 4},
                                     {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}};
static const int cube_normals[6][3] = {{0, 0, 1}, {0, 0, -1}, {-1, 0, 0},
                                       {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
enum { TOP = 1, BOTTOM = 2, SIDES = 0x3c, ALL = 0x3f };

/* §5 by hand: a smoothed normal is the normalized sum of the unnormalized
 * normals of the triangles whose corners join. Each quad splits into
 * (P0 P1 P2) and (P0 P2 P3), each of area 1/2 (|cross| = 1), so a face
 * adds its unit normal once per fan triangle touching the corner: P0 and
 * P2 twice, P1 and P3 once. `faces` is a bit mask of the faces that join. */
static void expected_normal(const float p[3], unsigned faces, double n[3])
{
    static const int fan[2][3] = {{0, 1, 2}, {0, 2, 3}};
    int c = (p[0] != 0) | (p[1] != 0) << 1 | (p[2] != 0) << 2;
    n[0] = n[1] = n[2] = 0;
    for (int f = 0; f < 6; f++) {
        if (!(faces & (1u << f))) continue;
        for (int t = 0; t < 2; t++)
            for (int k = 0; k < 3; k++)
                if (cube_faces[f][fan[t][k]] == c)
                    for (int a = 0; a < 3; a++) n[a] += cube_normals[f][a];
    }
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int a = 0; a < 3; a++) n[a] /= len;
}

static void check_normal(const float p[3], const float n[3], unsigned faces, int line)
{
    double e[3];
    expected_normal(p, faces, e);
    for (int k = 0; k < 3; k++)
        if (fabs(n[k] - e[k]) > 1e-6)
            fail_msg("line %d: at (%g %g %g): normal (%g %g %g), expected (%g %g %g)", line, p[0],
                     p[1], p[2], n[0], n[1], n[2], e[0], e[1], e[2]);
}

/* Every vertex smooth over all faces. */
static void check_smooth(const ossa_model *m, uint32_t expected_vertices, int line)
{
    assert_int_equal(m->num_vertices, expected_vertices);
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[4], n[4];
        get(m, OSSA_VERTEX_POSITION, NULL, v, p);
        get(m, OSSA_VERTEX_NORMAL, NULL, v, n);
        check_normal(p, n, ALL, line);
    }
}
#define CHECK_SMOOTH(m, count) check_smooth((m), (count), __LINE__)

/* Flat: each vertex normal is axis-aligned and the vertex lies on that
 * face; the check is by triangle below. */
static void check_flat(const ossa_model *m)
{
    assert_int_equal(m->num_vertices, 24);
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        float n0[4], p[3][4];
        get(m, OSSA_VERTEX_NORMAL, NULL, m->triangles[t].v[0], n0);
        for (int k = 0; k < 3; k++) {
            float n[4];
            get(m, OSSA_VERTEX_NORMAL, NULL, m->triangles[t].v[k], n);
            get(m, OSSA_VERTEX_POSITION, NULL, m->triangles[t].v[k], p[k]);
            assert_memory_equal(n, n0, 3 * sizeof(float));
        }
        /* axis = the coordinate shared by the three corners */
        int axis = -1;
        for (int c = 0; c < 3; c++)
            if (p[0][c] == p[1][c] && p[1][c] == p[2][c]) axis = c;
        assert_true(axis >= 0);
        for (int c = 0; c < 3; c++) {
            double e = c == axis ? (p[0][c] == 1 ? 1 : -1) : 0;
            NEAR(n0[c], e, 1e-6);
        }
    }
}

static void test_smooth_angles(void **state)
{
    (void)state;
    /* Default angle 180: every corner smooths: one vertex per corner. */
    ossa_model *m = load("# Inter-Quake Export\n" CUBE_VERTICES CUBE_FACES);
    CHECK_SMOOTH(m, 8);
    ossa_model_free(m);
    m = load("# Inter-Quake Export\nsmoothangle 135\n" CUBE_VERTICES CUBE_FACES);
    CHECK_SMOOTH(m, 8);
    ossa_model_free(m);
    /* 0 and 45: faces meet at 90 degrees: flat, 4 vertices per face. */
    m = load("# Inter-Quake Export\nsmoothangle 0\n" CUBE_VERTICES CUBE_FACES);
    check_flat(m);
    ossa_model_free(m);
    m = load("# Inter-Quake Export\nsmoothangle 45\n" CUBE_VERTICES CUBE_FACES);
    check_flat(m);
    ossa_model_free(m);
    /* No A reads 0. */
    m = load("# Inter-Quake Export\nsmoothangle\n" CUBE_VERTICES CUBE_FACES);
    check_flat(m);
    ossa_model_free(m);
    /* The stricter angle of the two triangles counts: the top is flat
     * against its neighbours, which still smooth among themselves. */
    m = load("# Inter-Quake Export\n" CUBE_VERTICES FACE_BOTTOM FACE_X0 FACE_X1 FACE_Y0 FACE_Y1
             "smoothangle 10\n" FACE_TOP);
    assert_int_equal(m->num_vertices, 12);
    ossa_model_free(m);
}

/* Top face in its own smoothing group: flat (0 0 1) on top; the sides and
 * bottom smooth together: at a top corner the two side normals sum to
 * (2x-1, 2y-1, 0)/sqrt2, at a bottom corner all three to the diagonal. */
static void test_smooth_groups(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n" CUBE_VERTICES "smoothgroup 0\n" FACE_BOTTOM
                         FACE_X0 FACE_X1 FACE_Y0 FACE_Y1 "smoothgroup 1\n" FACE_TOP
                         "smoothgroup\n" /* no N: unchanged */);
    assert_int_equal(m->num_vertices, 12);
    uint32_t top = 0, side = 0, bottom = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[4], n[4];
        get(m, OSSA_VERTEX_POSITION, NULL, v, p);
        get(m, OSSA_VERTEX_NORMAL, NULL, v, n);
        if (p[2] == 0) {
            bottom++;
            check_normal(p, n, ALL & ~TOP, __LINE__);
        } else if (n[2] > 0.5f) {
            top++;
            check_normal(p, n, TOP, __LINE__);
        } else {
            side++;
            check_normal(p, n, SIDES, __LINE__);
        }
    }
    assert_int_equal(top, 4);
    assert_int_equal(side, 4);
    assert_int_equal(bottom, 4);
    ossa_model_free(m);

    /* Smoothing crosses mesh boundaries: the top in another mesh still
     * smooths with the sides. */
    m = load("# Inter-Quake Export\n" CUBE_VERTICES "mesh a\n" FACE_BOTTOM FACE_X0 FACE_X1 FACE_Y0
             FACE_Y1 "mesh b\n" FACE_TOP);
    assert_int_equal(m->num_meshes, 2);
    assert_int_equal(m->num_vertices, 12); /* 8 + the 4 top corners again */
    CHECK_SMOOTH(m, 12);
    ossa_model_free(m);
}

/* fs: edges between sides smooth (1), edges to the top and bottom do not
 * (0 on both faces). Flags follow each face's vertex order: flag i is the
 * edge from vertex i to vertex i+1. */
static void test_smooth_edges(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n" CUBE_VERTICES
                         FACE_TOP "fs 0 0 0 0\n"
                         FACE_BOTTOM "fs 0 0 0 0\n"
                         FACE_X0 "fs 0 1 0 1\n"
                         FACE_X1 "fs 1 0 1 0\n"
                         FACE_Y0 "fs 1 0 1 0\n"
                         FACE_Y1 "fs 0 1 0 1\n");
    assert_int_equal(m->num_vertices, 16);
    uint32_t caps = 0, sides = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[4], n[4];
        get(m, OSSA_VERTEX_POSITION, NULL, v, p);
        get(m, OSSA_VERTEX_NORMAL, NULL, v, n);
        if (fabsf(n[2]) > 0.5f) {
            caps++;
            check_normal(p, n, p[2] == 1 ? TOP : BOTTOM, __LINE__);
        } else {
            sides++;
            check_normal(p, n, SIDES, __LINE__);
        }
    }
    assert_int_equal(caps, 8);
    assert_int_equal(sides, 8);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);

    /* All flags 1: smooth as without fs. A face without fs after the last
     * one smooths on every edge; count mismatches warn. */
    m = load("# Inter-Quake Export\n" CUBE_VERTICES FACE_TOP "fs 1 1 1 1\n" FACE_BOTTOM
             "fs 1 1 1\n" FACE_X0 FACE_X1 FACE_Y0 FACE_Y1 "fs 1 1\n");
    CHECK_SMOOTH(m, 8);
    assert_true(has_warning(m, "fewer than 3 flags", 0));
    assert_true(has_warning(m, "different number of flags", 0));
    assert_true(has_warning(m, "'fs' lines for", 0));
    ossa_model_free(m);
}

/* A cube with 4 vertices of its own per face (24 vertices). */
static char *cube24(const char *before, const char *per_vertex_fmt)
{
    static const int faces[6][4] = {{4, 6, 7, 5}, {0, 1, 3, 2}, {0, 2, 6, 4},
                                    {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}};
    char *s = malloc(8192);
    strcpy(s, "# Inter-Quake Export\n");
    strcat(s, before);
    for (int f = 0; f < 6; f++)
        for (int k = 0; k < 4; k++) {
            int c = faces[f][k];
            sprintf(s + strlen(s), "vp %d %d %d\n", c & 1, (c >> 1) & 1, (c >> 2) & 1);
            if (per_vertex_fmt) sprintf(s + strlen(s), per_vertex_fmt, f, f);
        }
    for (int f = 0; f < 6; f++)
        sprintf(s + strlen(s), "fa %d %d %d %d\n", 4 * f, 4 * f + 1, 4 * f + 2, 4 * f + 3);
    return s;
}

static void test_smooth_vs_uv(void **state)
{
    (void)state;
    /* Corners at one position smooth across separate vertices, and
     * identical results merge again: 8 vertices. */
    char *t = cube24("", NULL);
    ossa_model *m = load(t);
    CHECK_SMOOTH(m, 8);
    ossa_model_free(m);
    free(t);
    /* Equal vs everywhere: no change. One vs per face: flat. */
    t = cube24("", "vs 7\n");
    m = load(t);
    CHECK_SMOOTH(m, 8);
    ossa_model_free(m);
    free(t);
    t = cube24("", "vs %d\n");
    m = load(t);
    check_flat(m);
    ossa_model_free(m);
    free(t);
    /* One texcoord per face: smooth normals (24 vertices: the texcoords
     * differ), flat with smoothuv. */
    t = cube24("", "vt %d %d\n");
    m = load(t);
    assert_int_equal(m->num_vertices, 24);
    for (uint32_t v = 0; v < 24; v++) {
        float p[4], n[4];
        get(m, OSSA_VERTEX_POSITION, NULL, v, p);
        get(m, OSSA_VERTEX_NORMAL, NULL, v, n);
        check_normal(p, n, ALL, __LINE__);
    }
    ossa_model_free(m);
    free(t);
    t = cube24("smoothuv 1\n", "vt %d %d\n");
    m = load(t);
    check_flat(m);
    ossa_model_free(m);
    free(t);
    t = cube24("smoothuv 0\n", "vt %d %d\n");
    m = load(t);
    assert_int_equal(m->num_vertices, 24);
    float n[4], p[4];
    get(m, OSSA_VERTEX_POSITION, NULL, 0, p);
    get(m, OSSA_VERTEX_NORMAL, NULL, 0, n);
    check_normal(p, n, ALL, __LINE__);
    ossa_model_free(m);
    free(t);
}

/* -- Skeleton and animations (§6-§9) -- */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smooth_angles),
        cmocka_unit_test(test_smooth_groups),
        cmocka_unit_test(test_smooth_edges),
        cmocka_unit_test(test_smooth_vs_uv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
