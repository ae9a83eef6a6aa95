/* Normal generation, the shared post-read step (src/core/normals.h), on
 * meshes made by hand. The fold: p0 (0,0,0), p1 (1,0,0), p2 (0,1,0),
 * p3 (0,0,1); T0 = (p0, p2, p1) lies in z = 0 and T1 = (p0, p1, p3) in
 * y = 0. Front faces are clockwise, so a face's area-weighted normal is
 * (c2 - c0) x (c1 - c0): T0 (1,0,0) x (0,1,0) = (0,0,1), T1 (0,0,1) x
 * (1,0,0) = (0,1,0), both of length 1 (twice the area, 1/2). The faces
 * meet at 90 degrees along p0-p1. Smoothed together, corners at p0 and p1
 * get (0,1,1)/sqrt(2); p2 keeps (0,0,1) and p3 (0,1,0). */
#include "support.h"

#include "core/normals.h"

#include <math.h>
#include <string.h>

static const float fold_points[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static const uint32_t fold[] = {0, 2, 1, 0, 1, 3};

static ossa_model *model;

static int setup(void **state)
{
    (void)state;
    model = ossa_model_create(NULL);
    return model ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ossa_model_free(model);
    return 0;
}

static ossa__normals_in fold_input(void)
{
    ossa__normals_in in;
    memset(&in, 0, sizeof in);
    in.positions = fold_points;
    in.stride = 3;
    in.components = 3;
    in.num_points = 4;
    in.corners = fold;
    in.num_triangles = 2;
    return in;
}

static void run(const ossa__normals_in *in, float *out)
{
    ossa_error err;
    assert_int_equal(ossa__normals(model, in, out, NULL, NULL, &err), OSSA_OK);
}

static void expect(const float *n, double x, double y, double z)
{
    TS_ASSERT_NEAR(n[0], x, 1e-7);
    TS_ASSERT_NEAR(n[1], y, 1e-7);
    TS_ASSERT_NEAR(n[2], z, 1e-7);
}

/* Corner c of the fold: T0's are 0..2 (p0, p2, p1), T1's 3..5 (p0, p1, p3). */
static void expect_fold_smooth(const float *out)
{
    const double h = sqrt(0.5);
    expect(out + 0, 0, h, h);  /* T0 at p0 */
    expect(out + 3, 0, 0, 1);  /* T0 at p2 */
    expect(out + 6, 0, h, h);  /* T0 at p1 */
    expect(out + 9, 0, h, h);  /* T1 at p0 */
    expect(out + 12, 0, h, h); /* T1 at p1 */
    expect(out + 15, 0, 1, 0); /* T1 at p3 */
}

static void expect_fold_sharp(const float *out)
{
    for (int k = 0; k < 3; k++) expect(out + 3 * k, 0, 0, 1);
    for (int k = 3; k < 6; k++) expect(out + 3 * k, 0, 1, 0);
}

static void one_group(void **state)
{
    (void)state;
    ossa__normals_in in = fold_input();
    float out[18];
    run(&in, out);
    expect_fold_smooth(out);
}

/* Smoothing keys: different keys never join; key 0 is flat only when the
 * caller says so (OBJ's `s 0`), otherwise an ordinary key (IQE's). */
static void keys(void **state)
{
    (void)state;
    ossa__normals_in in = fold_input();
    int64_t k[2] = {1, 2};
    in.keys = k;
    float out[18];
    run(&in, out);
    expect_fold_sharp(out);
    int64_t zero[2] = {0, 0};
    in.keys = zero;
    run(&in, out);
    expect_fold_smooth(out);
    in.zero_key_flat = true;
    run(&in, out);
    expect_fold_sharp(out);
}

/* The angle limit: the faces are 90 degrees apart. 60 (cos 0.5) keeps them
 * apart, 100 joins them; the stricter of two triangles' limits counts.
 * A flat rule joins nothing. */
static void angles(void **state)
{
    (void)state;
    ossa__normals_in in = fold_input();
    ossa__smoothing rules[3] = {{60, false, false}, {100, false, false}, {180, false, true}};
    uint32_t rule_of[2] = {0, 0};
    in.rules = rules;
    in.rule_of = rule_of;
    in.num_rules = 3;
    float out[18];
    run(&in, out);
    expect_fold_sharp(out);
    rule_of[0] = rule_of[1] = 1;
    run(&in, out);
    expect_fold_smooth(out);
    rule_of[0] = 0; /* 60 and 100: 60 counts */
    run(&in, out);
    expect_fold_sharp(out);
    rule_of[0] = 2;
    rule_of[1] = 1;
    run(&in, out);
    expect_fold_sharp(out);
}

/* Area weighting: T0 twice as large (p2 at (0,2,0)) gives (0,0,2) + (0,1,0)
 * at p0 and p1: (0,1,2)/sqrt(5). */
static void area_weighted(void **state)
{
    (void)state;
    static const float pts[] = {0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1};
    ossa__normals_in in = fold_input();
    in.positions = pts;
    float out[18];
    run(&in, out);
    expect(out + 0, 0, 1 / sqrt(5), 2 / sqrt(5));
    expect(out + 6, 0, 1 / sqrt(5), 2 / sqrt(5));
    expect(out + 3, 0, 0, 1);
}

/* Texcoords (IQE smoothuv): p1 is two points, 1 and 4, at one place with
 * other texcoords. With the rule, p1's corners stay apart (p0's join);
 * without it they join. Ids (IQE vs) do the same for p0. */
static void uv_and_ids(void **state)
{
    (void)state;
    static const float pts[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0};
    static const float uv[] = {0, 0, 0.5, 0, 0, 1, 0, 1, 0.25, 0};
    static const uint32_t tris[] = {0, 2, 1, 0, 4, 3};
    const double h = sqrt(0.5);
    ossa__normals_in in = fold_input();
    in.positions = pts;
    in.num_points = 5;
    in.corners = tris;
    in.texcoords = uv;
    ossa__smoothing rules[1] = {{180, true, false}};
    in.rules = rules;
    in.num_rules = 1;
    float out[18];
    run(&in, out);
    expect(out + 0, 0, h, h);  /* p0 joined */
    expect(out + 6, 0, 0, 1);  /* point 1: T0 alone */
    expect(out + 12, 0, 1, 0); /* point 4: T1 alone */
    rules[0].uv = false;
    run(&in, out);
    expect(out + 6, 0, h, h);
    expect(out + 12, 0, h, h);
    static const int64_t ids[] = {7, 1, 2, 3, 1};
    static const int64_t other_ids[] = {7, 1, 2, 3, 9};
    in.point_ids = ids;
    run(&in, out);
    expect(out + 6, 0, h, h);
    in.point_ids = other_ids;
    run(&in, out);
    expect(out + 0, 0, h, h);
    expect(out + 6, 0, 0, 1);
    expect(out + 12, 0, 1, 0);
}

/* Edge flags (IQE fs): bit k smooths the edge from corner k to k+1. The
 * shared edge p0-p1 is T0's edge 2 (p1 -> p0) and T1's edge 0 (p0 -> p1):
 * sharp on both, the corners stay apart; smooth on either, they join. */
static void edges(void **state)
{
    (void)state;
    ossa__normals_in in = fold_input();
    uint8_t flags[2] = {3, 6};
    in.edges = flags;
    float out[18];
    run(&in, out);
    expect_fold_sharp(out);
    flags[0] = 7;
    run(&in, out);
    expect_fold_smooth(out);
    flags[0] = 3;
    flags[1] = 7;
    run(&in, out);
    expect_fold_smooth(out);
}

/* A fourth component (IQE's W) makes another position when asked to; -0
 * and 0 are one position. */
static void positions_w_and_zero(void **state)
{
    (void)state;
    static const float pts[] = {0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1,
                                -0.0f, 0, 0, 2, 1, 0, 0, 1};
    static const uint32_t tris[] = {0, 2, 1, 4, 5, 3};
    const double h = sqrt(0.5);
    ossa__normals_in in = fold_input();
    in.positions = pts;
    in.stride = 4;
    in.num_points = 6;
    in.corners = tris;
    float out[18];
    run(&in, out); /* xyz: point 4 (-0, 0, 0) is p0 */
    expect(out + 0, 0, h, h);
    expect(out + 9, 0, h, h);
    in.components = 4; /* its W is 2, p0's 1 */
    run(&in, out);
    expect(out + 0, 0, 0, 1);
    expect(out + 9, 0, 1, 0);
    expect(out + 6, 0, h, h); /* p1, W 1 on both */
}

/* A triangle of no area adds nothing to the classes its corners join:
 * (p0, p0, p1) and (p2, p2, p2) get the fold's normals. */
static void zero_area(void **state)
{
    (void)state;
    static const uint32_t tris[] = {0, 2, 1, 0, 1, 3, 0, 0, 1, 2, 2, 2};
    const double h = sqrt(0.5);
    ossa__normals_in in = fold_input();
    in.corners = tris;
    in.num_triangles = 4;
    float out[36];
    run(&in, out);
    expect_fold_smooth(out);
    expect(out + 18, 0, h, h); /* (p0, p0, p1) at p0 */
    expect(out + 24, 0, h, h);
    expect(out + 27, 0, 0, 1); /* (p2, p2, p2): T0's p2 class */
}

/* Point normals (MD5 vertices): each point gets its own position's class
 * (0 when no corner is there); keys per point pick the class. */
static void point_normals(void **state)
{
    (void)state;
    static const float pts[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 5, 5, 5};
    const double h = sqrt(0.5);
    ossa__normals_in in = fold_input();
    in.positions = pts;
    in.num_points = 6;
    float pn[18];
    ossa_error err;
    assert_int_equal(ossa__normals(model, &in, NULL, NULL, pn, &err), OSSA_OK);
    expect(pn + 0, 0, h, h);
    expect(pn + 3, 0, h, h);
    expect(pn + 6, 0, 0, 1);
    expect(pn + 9, 0, 1, 0);
    expect(pn + 12, 0, h, h); /* point 4, no corner, at p0 */
    expect(pn + 15, 0, 0, 0); /* point 5, alone */
    int64_t k[2] = {3, 3}, pk[6] = {3, 3, 3, 3, 4, 3};
    in.keys = k;
    assert_int_equal(ossa__normals(model, &in, NULL, pk, pn, &err), OSSA_OK);
    expect(pn + 0, 0, h, h);
    expect(pn + 12, 0, 0, 0); /* key 4: no class */
    /* not with pairwise conditions */
    uint8_t flags[2] = {7, 7};
    in.edges = flags;
    assert_int_equal(ossa__normals(model, &in, NULL, NULL, pn, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
}

/* Through a reader: an OBJ of the fold without normals and no `s` line
 * smooths as one group; `s 1` / `s 2` keep the faces apart. OBJ's axes
 * (x, y, z) -> (z, x, y) and reversed corners move the normals: the
 * fold's (0,1,1)/sqrt(2) in OBJ space becomes (1,0,1)/sqrt(2). */
static void through_obj(void **state)
{
    (void)state;
    static const char one[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 4 2\n";
    static const char two[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\ns 1\nf 1 2 3\ns 2\nf 1 4 2\n";
    ossa_load_options o = {.format = OSSA_FORMAT_OBJ};
    ossa_error err;
    ossa_model *m = ossa_load_memory(one, strlen(one), &o, &err);
    assert_non_null(m);
    assert_int_equal(m->num_vertices, 4);
    const ossa_vertex_array *n = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    const ossa_vertex_array *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    uint32_t found = 0;
    for (uint32_t i = 0; i < m->num_vertices; i++) {
        float at[3], v[3];
        ossa_vertex_array_read(m, p, i, 1, at);
        if (at[0] || at[1] || at[2]) continue; /* OBJ vertex 1, at the origin */
        ossa_vertex_array_read(m, n, i, 1, v);
        expect(v, sqrt(0.5), 0, sqrt(0.5));
        found++;
    }
    assert_int_equal(found, 1);
    ossa_model_free(m);
    m = ossa_load_memory(two, strlen(two), &o, &err);
    assert_non_null(m);
    assert_int_equal(m->num_vertices, 6);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_group),         cmocka_unit_test(keys),
        cmocka_unit_test(angles),            cmocka_unit_test(area_weighted),
        cmocka_unit_test(uv_and_ids),        cmocka_unit_test(edges),
        cmocka_unit_test(positions_w_and_zero), cmocka_unit_test(zero_area),
        cmocka_unit_test(point_normals),     cmocka_unit_test(through_obj),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
