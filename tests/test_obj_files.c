/* OBJ on real files and through the writer: the shared samples' counts
 * (docs/formats/obj.md §13), the exact text the writer gives for a model built
 * here, the MTL file beside it, round trips obj -> model -> obj -> model,
 * and a skinned model written posed, checked against the runtime. */
#include "text_format_test.h"

#include <unistd.h>

#define OBJ OSSA_FORMAT_OBJ

/* Every triangle's winding agrees with its vertices' normals (the
 * reversal of §7): counts the triangles that do. */
static uint32_t agreeing(const ossa_model *m)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        float a[8], b[8], c[8], nr[8];
        tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[0], a);
        tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[1], b);
        tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[2], c);
        tf_get(m, OSSA_VERTEX_NORMAL, m->triangles[t].v[0], nr);
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = (double)c[k] - a[k];
            e2[k] = (double)b[k] - a[k];
        }
        double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        n += f[0] * nr[0] + f[1] * nr[1] + f[2] * nr[2] > 0;
    }
    return n;
}

static double area(const ossa_model *m, uint32_t t)
{
    float a[8], b[8], c[8];
    tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[0], a);
    tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[1], b);
    tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[2], c);
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)b[k] - a[k];
        e2[k] = (double)c[k] - a[k];
    }
    double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    return sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) / 2;
}

static void test_box(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("obj/box.obj");
    assert_int_equal(m->source_format, OSSA_FORMAT_OBJ);
    assert_int_equal(m->num_triangles, 12);
    /* no vn: smooth normals, one per position */
    assert_int_equal(m->num_vertices, 8);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "1");
    assert_string_equal(m->meshes[0].material, "Default");
    assert_int_equal(m->num_warnings, 0);
    /* the quads point outward: every generated normal points away from
     * the centre, and the faces wind with them */
    for (uint32_t v = 0; v < 8; v++) {
        float p[8], n[8];
        tf_get(m, OSSA_VERTEX_POSITION, v, p);
        tf_get(m, OSSA_VERTEX_NORMAL, v, n);
        assert_true(p[0] * n[0] + p[1] * n[1] + p[2] * n[2] > 0.5);
    }
    assert_int_equal(agreeing(m), 12);
    ossa_model_free(m);
}

static void test_concave(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("obj/concave_polygon.obj");
    /* 66 corners, 64 distinct: ear clipping gives 64 triangles, none
     * overlapping (the fan's add up to 3.22) */
    assert_int_equal(m->num_triangles, 64);
    assert_int_equal(m->num_vertices, 64);
    double sum = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++) sum += area(m, t);
    print_message("concave_polygon.obj: %u triangles, area %.6f\n", m->num_triangles, sum);
    TF_NEAR(sum, 0.2455, 5e-5);
    /* one vn for the whole face: every triangle winds with it */
    assert_int_equal(agreeing(m), 64);
    assert_string_equal(m->meshes[0].material, "test");
    assert_int_equal(m->num_extras, 1);
    assert_string_equal(m->extras[0].key, "obj.mtllib");
    ossa_model_free(m);
}

static void test_cube_usemtl(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("obj/cube_usemtl.obj");
    /* 12 triangles, each after its own usemtl, three materials: every
     * triangle kept (the IQM SDK keeps 3) */
    assert_int_equal(m->num_triangles, 12);
    assert_int_equal(m->num_meshes, 3);
    static const char *const mats[3] = {"mtl3", "mtl", "mtl2"};
    static const uint32_t tris[3] = {2, 6, 4};
    for (int i = 0; i < 3; i++) {
        assert_string_equal(m->meshes[i].name, "cube");
        assert_string_equal(m->meshes[i].material, mats[i]);
        assert_int_equal(m->meshes[i].num_triangles, tris[i]);
    }
    assert_int_equal(agreeing(m), 12);
    assert_int_equal(m->extras[0].size, strlen("cube_usemtl.mtl\n"));
    ossa_model_free(m);
}

static void test_vertex_colors(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("obj/cube_with_vertexcolors.obj");
    assert_int_equal(m->num_triangles, 12);
    assert_int_equal(m->num_vertices, 24); /* (v, vn) pairs, as the IQM SDK */
    assert_int_equal(agreeing(m), 12);
    assert_non_null(ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL));
    /* each vertex has the colour of its `v` line, to ubyte precision */
    static const float file[8][6] = {
        {0, 0, 0, 0.48627f, 0.43137f, 0.47059f}, {0, 0, 1, 0.09412f, 0.00000f, 0.47451f},
        {0, 1, 0, 0.01569f, 0.00000f, 0.17255f}, {0, 1, 1, 0.87843f, 0.00000f, 0.03922f},
        {1, 0, 0, 0.09412f, 0.78431f, 0.09804f}, {1, 0, 1, 0.48627f, 0.03922f, 0.21961f},
        {1, 1, 0, 0.30588f, 0.03922f, 0.19608f}, {1, 1, 1, 0.09020f, 0.00000f, 0.78431f}};
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[8], c[8];
        tf_get(m, OSSA_VERTEX_POSITION, v, p);
        tf_get(m, OSSA_VERTEX_COLOR, v, c);
        /* OBJ (x, y, z) = ossa (y, z, x) */
        int i = (int)p[1] * 4 + (int)p[2] * 2 + (int)p[0];
        for (int k = 0; k < 3; k++) TF_NEAR(c[k], file[i][3 + k], 0.5 / 255);
        TF_NEAR(c[3], 1, 0);
    }
    ossa_model_free(m);
}

static void test_number_formats(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("obj/number_formats.obj");
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_vertices, 3);
    /* f 1 2 4: (0 0 0), (1 2 3), (-1 -2 -3), in ossa order (4 2 1) */
    float p[8];
    tf_get(m, OSSA_VERTEX_POSITION, 0, p);
    TF_NEAR(p[0], -3, 0);
    TF_NEAR(p[1], -1, 0);
    TF_NEAR(p[2], -2, 0);
    tf_get(m, OSSA_VERTEX_POSITION, 1, p);
    TF_NEAR(p[0], 3, 0);
    /* 3.1+e2, +3.1+e2, -3.1+e2, and the three 3.1-e2 read as 3.1 */
    const ossa_diagnostic *w = tf_warning(m, OSSA_WARNING_REPAIRED, "6 numbers");
    assert_non_null(w);
    assert_int_equal(w->line, 11);
    ossa_model_free(m);
}

/* -- The writer -- */

static ossa_model *small_model(const char *material)
{
    static const float pos[9] = {1, 2, 3, 4, 5, 6, 7, 8, 10};
    static const float nrm[9] = {1, 0, 0, 1, 0, 0, 1, 0, 0};
    static const float uv[6] = {0.25f, 0.5f, 1, 0, 0, 1};
    static const ts_array arrays[3] = {{OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos},
                                       {OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm},
                                       {OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv}};
    static const ossa_triangle tri = {{0, 1, 2}};
    const ts_mesh mesh = {"body", material, 0, 3, 0, 1};
    ts_model_spec spec = {.num_vertices = 3, .num_arrays = 3, .arrays = arrays, .num_triangles = 1,
                          .triangles = &tri, .num_meshes = 1, .meshes = &mesh};
    return ts_model_build(&spec);
}

static void test_writer_text(void **state)
{
    (void)state;
    ossa_model *m = small_model("skin");
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OBJ;
    size_t size;
    char *text = tf_write(m, &o, &size);
    /* OBJ (x, y, z) = ossa (y, z, x); v flipped; faces reversed */
    char expected[400];
    snprintf(expected, sizeof expected,
             "# ossa %s\n"
             "v 2 3 1\nv 5 6 4\nv 8 10 7\n"
             "vt 0.25 0.5\nvt 1 1\nvt 0 0\n"
             "vn 0 0 1\nvn 0 0 1\nvn 0 0 1\n"
             "o body\nusemtl skin\n"
             "f 3/3/3 2/2/2 1/1/1\n",
             ossa_version_string());
    assert_string_equal(text, expected);
    ossa_model *again = tf_load_with(OBJ, text, NULL);
    float p[8];
    tf_get(again, OSSA_VERTEX_POSITION, again->triangles[0].v[2], p);
    TF_NEAR(p[0], 7, 0);
    TF_NEAR(p[2], 10, 0);
    ossa_model_free(again);
    free(text);

    /* Blender's axes: OBJ (x, y, z) = ossa (x, z, -y) */
    const ossa_option blender = {"obj.axes", "blender"};
    o.format_options = &blender;
    o.num_format_options = 1;
    text = tf_write(m, &o, &size);
    assert_non_null(strstr(text, "\nv 1 3 -2\nv 4 6 -5\n"));
    assert_non_null(strstr(text, "\nvn 1 0 0\n"));
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.format_options = &blender;
    lo.num_format_options = 1;
    again = tf_load_with(OBJ, text, &lo);
    tf_get(again, OSSA_VERTEX_POSITION, again->triangles[0].v[0], p);
    TF_NEAR(p[0], 1, 0);
    TF_NEAR(p[1], 2, 0);
    TF_NEAR(p[2], 3, 0);
    ossa_model_free(again);
    free(text);
    ossa_model_free(m);

    /* normals generated when the model has none */
    m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, NULL), OSSA_OK);
    static const float pos[9] = {0, 0, 0, 0, 1, 0, 0, 0, 1};
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, NULL));
    ossa_triangle tri = {{0, 1, 2}};
    assert_int_equal(ossa_model_set_triangles(m, 1, &tri, NULL), OSSA_OK);
    o.num_format_options = 0;
    text = tf_write(m, &o, &size);
    /* (0,0,0) (0,1,0) (0,0,1) turns clockwise seen from -x: its normal is
     * ossa -x, OBJ (0, 0, -1) */
    assert_non_null(strstr(text, "vn 0 0 -1\nvn 0 0 -1\nvn 0 0 -1\nf 3//3 2//2 1//1\n"));
    free(text);
    ossa_model_free(m);

    /* A name may not start a comment, nor end in a '\' that would join the
     * face after it to its line. */
    m = small_model("a#b\\");
    text = tf_write(m, &o, &size);
    assert_non_null(strstr(text, "\nusemtl a_b_\nf 3/3/3 2/2/2 1/1/1\n"));
    again = tf_load_with(OBJ, text, NULL);
    assert_int_equal(again->num_triangles, 1);
    assert_string_equal(again->meshes[0].material, "a_b_");
    ossa_model_free(again);
    free(text);
    ossa_model_free(m);
}

typedef struct wrote_list {
    int count;
    char paths[4][512];
} wrote_list;

static void on_wrote(void *user, const char *path)
{
    wrote_list *w = user;
    if (w->count < 4) snprintf(w->paths[w->count], sizeof w->paths[0], "%s", path);
    w->count++;
}

static void test_write_files(void **state)
{
    (void)state;
    ossa_model *m = small_model("skin.png");
    char *path = ts_tmp_path("obj_small.obj"), *mtl = ts_tmp_path("obj_small.mtl");
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    wrote_list w;
    memset(&w, 0, sizeof w);
    o.wrote = on_wrote;
    o.user = &w;
    ossa_error err;
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    assert_int_equal(w.count, 2);
    assert_string_equal(w.paths[0], path);
    assert_string_equal(w.paths[1], mtl);
    size_t size;
    char *text = (char *)ts_read_file(path, &size);
    assert_non_null(strstr(text, "\nmtllib obj_small.mtl\n"));
    free(text);
    text = (char *)ts_read_file(mtl, &size);
    assert_non_null(strstr(text, "\nnewmtl skin.png\nKd 1 1 1\nmap_Kd skin.png\n"));
    free(text);
    ossa_model *back = ossa_load_file(path, NULL, &err);
    assert_non_null(back);
    assert_string_equal(back->meshes[0].material, "skin.png");
    ossa_model_free(back);
    unlink(path);
    unlink(mtl);
    free(path);
    free(mtl);
    ossa_model_free(m);

    /* no material: no MTL */
    m = small_model("");
    path = ts_tmp_path("obj_plain.obj");
    memset(&w, 0, sizeof w);
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    assert_int_equal(w.count, 1);
    unlink(path);
    free(path);
    ossa_model_free(m);
}

static void compare(const ossa_model *a, const ossa_model *b)
{
    assert_int_equal(a->num_vertices, b->num_vertices);
    assert_int_equal(a->num_triangles, b->num_triangles);
    assert_int_equal(a->num_meshes, b->num_meshes);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        assert_string_equal(a->meshes[i].name, b->meshes[i].name);
        assert_string_equal(a->meshes[i].material, b->meshes[i].material);
        assert_int_equal(a->meshes[i].num_triangles, b->meshes[i].num_triangles);
        assert_int_equal(a->meshes[i].first_vertex, b->meshes[i].first_vertex);
    }
    for (uint32_t t = 0; t < a->num_triangles; t++)
        for (int k = 0; k < 3; k++) assert_int_equal(a->triangles[t].v[k], b->triangles[t].v[k]);
    static const ossa_vertex_type types[] = {OSSA_VERTEX_POSITION, OSSA_VERTEX_NORMAL,
                                             OSSA_VERTEX_TEXCOORD, OSSA_VERTEX_COLOR};
    for (int ty = 0; ty < 4; ty++) {
        bool has = ossa_model_find_array(a, types[ty], NULL) != NULL;
        assert_int_equal(has, ossa_model_find_array(b, types[ty], NULL) != NULL);
        for (uint32_t v = 0; has && v < a->num_vertices; v++) {
            float x[8], y[8];
            tf_get(a, types[ty], v, x);
            tf_get(b, types[ty], v, y);
            /* exact but for normals renormalized on reading */
            for (int c = 0; c < 4; c++) TF_NEAR(x[c], y[c], types[ty] == OSSA_VERTEX_NORMAL ? 1e-7 : 0);
        }
    }
}

static void test_round_trips(void **state)
{
    (void)state;
    static const char *const files[] = {"obj/box.obj", "obj/concave_polygon.obj",
                                        "obj/cube_usemtl.obj", "obj/cube_with_vertexcolors.obj",
                                        "obj/number_formats.obj"};
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OBJ;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        ossa_model *m1 = tf_load_shared(files[i]);
        size_t size;
        char *t1 = tf_write(m1, &o, &size);
        ossa_model *m2 = tf_load_with(OBJ, t1, NULL);
        compare(m1, m2);
        char *t2 = tf_write(m2, &o, &size);
        ossa_model *m3 = tf_load_with(OBJ, t2, NULL);
        compare(m2, m3);
        free(t1);
        free(t2);
        ossa_model_free(m1);
        ossa_model_free(m2);
        ossa_model_free(m3);
    }
}

/* -- Posed -- */

static void test_posed(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("iqm/guy.iqm");
    uint32_t anim = 0;
    double time = 0.73; /* between frames: the option's value below */
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OBJ;
    ossa_option pose = {"obj.pose_time", "0.73"};
    o.format_options = &pose;
    o.num_format_options = 1;
    o.animation = anim;
    size_t size;
    char *text = tf_write(m, &o, &size);
    ossa_model *posed = tf_load_with(OBJ, text, NULL);
    free(text);
    assert_int_equal(posed->num_vertices, m->num_vertices);

    /* the runtime's pose: clip, reference sampling, skinning matrices,
     * then every vertex skinned here */
    ossa_error err;
    ossa_clip *clip = ossa_clip_create(m, anim, NULL, &err);
    assert_non_null(clip);
    uint32_t nj = m->num_joints;
    float (*model)[16] = malloc(nj * sizeof *model), (*inv)[16] = malloc(nj * sizeof *inv);
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.time = time;
    job.model = model;
    job.num_outputs = nj;
    job.simd = OSSA_SIMD_REFERENCE;
    assert_int_equal(ossa_sample_run(&job, &err), OSSA_OK);
    ossa_model_inverse_bind_matrices(m, inv);
    ossa_skinning_matrices(nj, (const float (*)[16])model, (const float (*)[16])inv, model);
    double worst = 0, worst_n = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[8], n[8], idx[8], w[8], q[8], qn[8];
        tf_get(m, OSSA_VERTEX_POSITION, v, p);
        tf_get(m, OSSA_VERTEX_NORMAL, v, n);
        tf_get(m, OSSA_VERTEX_BLENDINDEXES, v, idx);
        tf_get(m, OSSA_VERTEX_BLENDWEIGHTS, v, w);
        double s[3] = {0, 0, 0}, sn[3] = {0, 0, 0};
        for (int k = 0; k < 4; k++) {
            const float *x = model[(uint32_t)idx[k]];
            for (int r = 0; r < 3; r++) {
                s[r] += w[k] * (x[r] * p[0] + x[4 + r] * p[1] + x[8 + r] * p[2] + x[12 + r]);
                sn[r] += w[k] * (x[r] * n[0] + x[4 + r] * n[1] + x[8 + r] * n[2]);
            }
        }
        double len = sqrt(sn[0] * sn[0] + sn[1] * sn[1] + sn[2] * sn[2]);
        /* the OBJ's vertices are in the model's order (one v per vertex) */
        tf_get(posed, OSSA_VERTEX_POSITION, v, q);
        tf_get(posed, OSSA_VERTEX_NORMAL, v, qn);
        for (int r = 0; r < 3; r++) {
            if (fabs(q[r] - s[r]) > worst) worst = fabs(q[r] - s[r]);
            if (fabs(qn[r] - sn[r] / len) > worst_n) worst_n = fabs(qn[r] - sn[r] / len);
        }
    }
    print_message("posed OBJ against the runtime: positions within %.3g, normals %.3g\n", worst,
                  worst_n);
    assert_true(worst < 1e-4);
    assert_true(worst_n < 1e-4);
    /* and it is not the bind pose */
    float a[8], b[8];
    double moved = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        tf_get(m, OSSA_VERTEX_POSITION, v, a);
        tf_get(posed, OSSA_VERTEX_POSITION, v, b);
        moved += fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]);
    }
    assert_true(moved > 1);
    free(model);
    free(inv);
    ossa_clip_free(clip);
    ossa_model_free(posed);

    /* refused: no such animation, a time that is not finite */
    void *data;
    o.animation = 9;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    o.animation = 0;
    pose.value = "nan";
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_box),           cmocka_unit_test(test_concave),
        cmocka_unit_test(test_cube_usemtl),   cmocka_unit_test(test_vertex_colors),
        cmocka_unit_test(test_number_formats), cmocka_unit_test(test_writer_text),
        cmocka_unit_test(test_write_files),   cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_posed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
