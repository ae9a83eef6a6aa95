/* Where a model faces (README "Where a model faces"): every format's
 * convention, readers giving it to their models, writers turning a model
 * to their format's front (exactly, by quarter turns about +Z), the
 * front view looking at it, and OSSA_WRITE_KEEP_FRONT / the load option
 * front for files that break their format's rule. A character is checked
 * by its nose: the one vertex 1 away from the body's axis, on the side it
 * faces. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The unit vector of a front (the model's own words, written out here). */
static void direction(ossa_front f, double d[3])
{
    d[0] = f == OSSA_FRONT_POS_X ? 1 : f == OSSA_FRONT_NEG_X ? -1 : 0;
    d[1] = f == OSSA_FRONT_POS_Y ? 1 : f == OSSA_FRONT_NEG_Y ? -1 : 0;
    d[2] = 0;
}

/* A post 0.4 wide and 2 high with a nose 1 in front of it at -Y, one
 * joint, one animation of two frames that nods it about X. */
static ossa_model *character(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform up = ossa_transform_identity();
    up.translation[2] = 1;
    assert_int_equal(ossa_model_add_joint(m, "body", -1, NULL, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "head", 0, &up, &err), 1);
    static const float pos[] = {-0.2f, -0.2f, 0, 0.2f, -0.2f, 0, 0.2f, 0.2f, 0, -0.2f, 0.2f, 0,
                                0,     0,     2, 0,    -1,    1.5f};
    static const float idx[6 * 4] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                      0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const float wgt[6 * 4] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
                                      1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const ossa_triangle tris[] = {{{0, 1, 4}}, {{1, 2, 4}}, {{2, 3, 4}},
                                         {{3, 0, 4}}, {{0, 5, 1}}, {{0, 2, 1}}};
    ossa_model_set_num_vertices(m, 6, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, "", wgt, &err);
    ossa_model_set_triangles(m, 6, tris, &err);
    ossa_model_add_mesh(m, "body", "", 0, 6, 0, 6, &err);
    ossa_animation *a = ossa_model_add_animation(m, "nod", 2, 30, 0, &err);
    a->frames[3].rotation[0] = (float)sin(0.2);
    a->frames[3].rotation[3] = (float)cos(0.2);
    ossa_model_set_front(m, OSSA_FRONT_NEG_Y);
    return m;
}

/* How far the model reaches along d (the largest dot product). */
static double reach(const ossa_model *m, const double d[3])
{
    double best = -1e300;
    float p[4];
    const ossa_vertex_array *a = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        ossa_vertex_array_read_padded(m, a, v, 1, 3, p);
        best = fmax(best, p[0] * d[0] + p[1] * d[1] + p[2] * d[2]);
    }
    return best;
}

typedef struct written {
    int count;
    char paths[8][512];
} written;

static void on_wrote(void *user, const char *path)
{
    written *w = user;
    if (w->count < 8) snprintf(w->paths[w->count++], sizeof w->paths[0], "%s", path);
}

/* Writes tmp/NAME with `flags`, loads the main file back (with the load
 * option front when given). */
static ossa_model *through(const ossa_model *m, const char *name, uint32_t flags, ossa_front front)
{
    char *path = ts_tmp_path(name);
    written w = {0};
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.flags = flags;
    wo.wrote = on_wrote;
    wo.user = &w;
    ossa_error err;
    if (ossa_write_file(m, path, &wo, &err) != OSSA_OK) fail_msg("%s: %s", name, err.message);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.struct_size = sizeof lo;
    lo.front = front;
    ossa_model *back = ossa_load_file(path, &lo, &err);
    if (!back) fail_msg("%s: %s", name, err.message);
    for (int i = 0; i < w.count; i++) unlink(w.paths[i]);
    unlink(path);
    free(path);
    return back;
}

static const struct {
    const char *file;
    ossa_format format;
    ossa_front front;
} formats[] = {
    {"f.iqm", OSSA_FORMAT_IQM, OSSA_FRONT_POS_X},      {"f.iqe", OSSA_FORMAT_IQE, OSSA_FRONT_POS_X},
    {"f.md5mesh", OSSA_FORMAT_MD5MESH, OSSA_FRONT_POS_X},
    {"f.illmesh", OSSA_FORMAT_ILLMESH, OSSA_FRONT_POS_X},
    {"f.obj", OSSA_FORMAT_OBJ, OSSA_FRONT_POS_X},      {"f.glb", OSSA_FORMAT_GLB, OSSA_FRONT_NEG_Y},
    {"f.gltf", OSSA_FORMAT_GLTF, OSSA_FRONT_NEG_Y},    {"f.fbx", OSSA_FORMAT_FBX, OSSA_FRONT_NEG_Y},
    {"f.smd", OSSA_FORMAT_SMD, OSSA_FRONT_NEG_Y},
};

static void test_conventions(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        assert_int_equal(ossa_format_front(formats[i].format), formats[i].front);
    assert_int_equal(ossa_format_front(OSSA_FORMAT_MD5ANIM), OSSA_FRONT_POS_X);
    assert_int_equal(ossa_format_front(OSSA_FORMAT_ILLANIM), OSSA_FRONT_POS_X);
    assert_int_equal(ossa_format_front(OSSA_FORMAT_SOTC_NMO), OSSA_FRONT_UNKNOWN);
    assert_int_equal(ossa_format_front(OSSA_FORMAT_OSSACLIP), OSSA_FRONT_UNKNOWN);
    assert_int_equal(ossa_format_front(OSSA_FORMAT_AUTO), OSSA_FRONT_UNKNOWN);
}

/* The character written to every format faces that format's front when
 * read back: the nose is 1 out along it, the body 0.2 everywhere else. */
static void test_written_to_every_format(void **state)
{
    (void)state;
    ossa_model *m = character();
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        ossa_model *b = through(m, formats[i].file, 0, OSSA_FRONT_UNKNOWN);
        if (b->front != formats[i].front) fail_msg("%s: front %d", formats[i].file, b->front);
        double d[3], back[3];
        direction(b->front, d);
        for (int k = 0; k < 3; k++) back[k] = -d[k];
        double ahead = reach(b, d), behind = reach(b, back);
        if (fabs(ahead - 1) > 1e-6 || fabs(behind - 0.2) > 1e-6)
            fail_msg("%s: %g ahead, %g behind", formats[i].file, ahead, behind);
        ossa_model_free(b);
    }
    /* kept where it faces: the nose stays at -Y */
    static const double neg_y[3] = {0, -1, 0};
    ossa_model *b = through(m, "k.iqm", OSSA_WRITE_KEEP_FRONT, OSSA_FRONT_UNKNOWN);
    TS_ASSERT_NEAR(reach(b, neg_y), 1, 1e-6);
    ossa_model_free(b);
    /* a file that breaks its format's rule, said when reading it */
    b = through(m, "k.iqm", OSSA_WRITE_KEEP_FRONT, OSSA_FRONT_NEG_Y);
    assert_int_equal(b->front, OSSA_FRONT_NEG_Y);
    ossa_model_free(b);
    ossa_model_free(m);
}

/* A model turned there and back is the model, bit for bit but for the sign
 * of zeros: guy.iqm (IQM, +X) through glTF (-Y) and IQM again, with the
 * skinned pose of its frames. */
static void test_turn_is_exact(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &size);
    assert_int_equal(m->front, OSSA_FRONT_POS_X);
    ossa_model *g = through(m, "guy.glb", 0, OSSA_FRONT_UNKNOWN);
    /* a quarter turn clockwise: (x, y) -> (y, -x) */
    float p[3], q[3];
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), 7, 1, p);
    ossa_vertex_array_read(g, ossa_model_find_array(g, OSSA_VERTEX_POSITION, NULL), 7, 1, q);
    assert_true(q[0] == p[1] && q[1] == -p[0] && q[2] == p[2]);
    ossa_model *b = through(g, "guy2.iqm", 0, OSSA_FRONT_UNKNOWN);
    assert_int_equal(b->num_vertices, m->num_vertices);
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), v, 1, p);
        ossa_vertex_array_read(b, ossa_model_find_array(b, OSSA_VERTEX_POSITION, NULL), v, 1, q);
        for (int k = 0; k < 3; k++) assert_true(p[k] == q[k]);
    }
    for (uint32_t j = 0; j < m->num_joints; j++) {
        const ossa_transform *x = &m->joints[j].bind, *y = &b->joints[j].bind;
        for (int k = 0; k < 3; k++) assert_true(x->translation[k] == y->translation[k]);
        for (int k = 0; k < 4; k++) assert_true(x->rotation[k] == y->rotation[k]);
    }
    ossa_model_free(b);
    ossa_model_free(g);
    ossa_model_free(m);
    free(file);
}

/* The front view looks at the model's front: its eye on that side. */
static void test_front_view(void **state)
{
    (void)state;
    ossa_bounds box = {{-1, -1, 0}, {1, 1, 2}, 0, 0};
    for (int f = OSSA_FRONT_UNKNOWN; f <= OSSA_FRONT_NEG_X; f++) {
        ossa_render_camera_options o;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.view = OSSA_RENDER_VIEW_FRONT;
        o.front = (ossa_front)f;
        ossa_render_camera cam;
        ossa_error err;
        assert_int_equal(ossa_render_camera_frame(&o, &box, OSSA_AXIS_Z, 64, 64, &cam, &err), OSSA_OK);
        /* view = [R | -R eye]: eye = -R^T t, relative to the box's centre */
        const float *V = cam.view;
        double eye[3];
        for (int i = 0; i < 3; i++)
            eye[i] = -(V[i * 4 + 0] * V[12] + V[i * 4 + 1] * V[13] + V[i * 4 + 2] * V[14]);
        double d[3];
        direction(f ? (ossa_front)f : OSSA_FRONT_NEG_Y, d);
        double n = sqrt(eye[0] * eye[0] + eye[1] * eye[1]);
        if (fabs(eye[0] / n - d[0]) > 1e-6 || fabs(eye[1] / n - d[1]) > 1e-6)
            fail_msg("front %d: eye at %g %g", f, eye[0], eye[1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conventions),
        cmocka_unit_test(test_written_to_every_format),
        cmocka_unit_test(test_turn_is_exact),
        cmocka_unit_test(test_front_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
