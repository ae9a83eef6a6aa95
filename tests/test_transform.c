/* Whole-model transforms (scale, mesh translation, rotation, forced
 * joints) and appending meshes, on small hand-built models. Expected values
 * are worked out by hand in the comments or with plain arithmetic here. */
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ossa_transform at(float x, float y, float z)
{
    ossa_transform t = ossa_transform_identity();
    t.translation[0] = x;
    t.translation[1] = y;
    t.translation[2] = z;
    return t;
}

static float pos(const ossa_model *m, uint32_t v, int c)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    float out[OSSA_MAX_COMPONENTS];
    assert_int_equal(ossa_vertex_array_read(m, a, v, 1, out), OSSA_OK);
    return out[c];
}

/* Joints root (1, 0, 0) and child (0, 2, 0); two vertices; one animation
 * of two frames whose root moves to x = 3 then 5, with stored bounds. */
static ossa_model *small_model(void)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_transform root = at(1, 0, 0), child = at(0, 2, 0);
    assert_int_equal(ossa_model_add_joint(m, "root", -1, &root, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "child", 0, &child, &err), 1);
    assert_int_equal(ossa_model_set_num_vertices(m, 2, &err), OSSA_OK);
    const float p[6] = {1, 2, 3, -1, 0, 0.5f};
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, p, &err));
    const float n[6] = {1, 0, 0, 0, 0, 1};
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, n, &err));
    ossa_animation *a = ossa_model_add_animation(m, "move", 2, 10, 0, &err);
    assert_non_null(a);
    ossa_transform frames[4] = {at(3, 0, 0), at(0, 2, 0), at(5, 0, 0), at(0, 2, 0)};
    assert_int_equal(ossa_model_set_animation_frames(m, 0, 0, 2, frames, &err), OSSA_OK);
    ossa_bounds b[2] = {{{-1, 0, 0}, {4, 2, 3}, 4.5f, 5}, {{1, 0, 0}, {6, 2, 3}, 6.5f, 7}};
    assert_int_equal(ossa_model_set_animation_bounds(m, 0, b, &err), OSSA_OK);
    return m;
}

static void test_scale(void **state)
{
    (void)state;
    ossa_model *m = small_model();
    ossa_error err;
    /* Refused factors change nothing. */
    const float bad[] = {0, -2, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ossa_model_scale(m, bad[i], &err), OSSA_FAILED);
        assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    }
    assert_true(pos(m, 0, 0) == 1.0f);

    assert_int_equal(ossa_model_scale(m, 2.5f, &err), OSSA_OK);
    /* 2.5 times each value; all exact in float. */
    const float want[6] = {2.5f, 5, 7.5f, -2.5f, 0, 1.25f};
    for (int i = 0; i < 6; i++) assert_true(pos(m, (uint32_t)(i / 3), i % 3) == want[i]);
    assert_true(m->joints[0].bind.translation[0] == 2.5f);
    assert_true(m->joints[1].bind.translation[1] == 5.0f);
    assert_true(m->animations[0].frames[0].translation[0] == 7.5f);
    assert_true(m->animations[0].frames[2].translation[0] == 12.5f);
    assert_true(m->animations[0].frames[3].translation[1] == 5.0f);
    /* Normals and rotations do not scale. */
    const ossa_vertex_array *n = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    assert_true(((const float *)n->data)[0] == 1.0f);
    /* Bounds: min (1, 0, 0) max (6, 2, 3) radii 6.5, 7 times 2.5. */
    const ossa_bounds *b = &m->animations[0].bounds[1];
    assert_true(b->min[0] == 2.5f && b->max[0] == 15.0f && b->max[2] == 7.5f);
    assert_true(b->xy_radius == 16.25f && b->radius == 17.5f);
    ossa_model_free(m);
}

static void test_scale_integer_positions(void **state)
{
    (void)state;
    /* ubyte positions are normalized (v / 255): 51 is 0.2, 255 is 1. Scaled
     * by 4 they leave 0..1, so the array becomes float. */
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    assert_int_equal(ossa_model_set_num_vertices(m, 1, &err), OSSA_OK);
    const uint8_t p[3] = {51, 255, 0};
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_UBYTE, 3, NULL, p, &err));
    assert_int_equal(ossa_model_scale(m, 4, &err), OSSA_OK);
    const ossa_vertex_array *a = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    assert_int_equal(a->format, OSSA_FLOAT);
    assert_true(pos(m, 0, 0) == (float)(51 / 255.0) * 4);
    assert_true(pos(m, 0, 1) == 4.0f);
    assert_true(pos(m, 0, 2) == 0.0f);
    ossa_model_free(m);
}

static void test_translate_meshes(void **state)
{
    (void)state;
    ossa_model *m = small_model();
    ossa_error err;
    const float bad[3] = {0, NAN, 0};
    assert_int_equal(ossa_model_translate_meshes(m, bad, &err), OSSA_FAILED);
    assert_non_null(m->animations[0].bounds);
    const float off[3] = {0.5f, -1, 2};
    assert_int_equal(ossa_model_translate_meshes(m, off, &err), OSSA_OK);
    const float want[6] = {1.5f, 1, 5, -0.5f, -1, 2.5f};
    for (int i = 0; i < 6; i++) assert_true(pos(m, (uint32_t)(i / 3), i % 3) == want[i]);
    /* The skeleton stays; the stored boxes are gone. */
    assert_true(m->joints[0].bind.translation[0] == 1.0f);
    assert_true(m->animations[0].frames[0].translation[0] == 3.0f);
    assert_null(m->animations[0].bounds);
    ossa_model_free(m);
}

static void test_rotate(void **state)
{
    (void)state;
    ossa_model *m = small_model();
    ossa_error err;
    const float zero[4] = {0, 0, 0, 0};
    assert_int_equal(ossa_model_rotate(m, zero, &err), OSSA_FAILED);
    /* 90 degrees about +Z: (x, y, z) -> (-y, x, z). */
    const float s = (float)sqrt(0.5);
    const float q[4] = {0, 0, s, s};
    assert_int_equal(ossa_model_rotate(m, q, &err), OSSA_OK);
    const float want[6] = {-2, 1, 3, 0, -1, 0.5f};
    for (int i = 0; i < 6; i++) TS_ASSERT_NEAR(pos(m, (uint32_t)(i / 3), i % 3), want[i], 1e-6);
    const ossa_vertex_array *n = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    const float *nv = n->data;
    TS_ASSERT_NEAR(nv[0], 0, 1e-6); /* (1, 0, 0) -> (0, 1, 0) */
    TS_ASSERT_NEAR(nv[1], 1, 1e-6);
    TS_ASSERT_NEAR(nv[5], 1, 1e-6); /* (0, 0, 1) stays */
    /* The root turns: (1, 0, 0) -> (0, 1, 0), rotation q; the child, below
     * it, keeps its parent-relative transform. */
    const ossa_transform *r = &m->joints[0].bind;
    TS_ASSERT_NEAR(r->translation[0], 0, 1e-6);
    TS_ASSERT_NEAR(r->translation[1], 1, 1e-6);
    TS_ASSERT_QUAT_EQUIV(r->rotation, q, 1e-6);
    assert_true(m->joints[1].bind.translation[1] == 2.0f);
    assert_true(m->joints[1].bind.rotation[3] == 1.0f);
    /* Frame 1's root at (5, 0, 0) -> (0, 5, 0). */
    const ossa_transform *f1 = &m->animations[0].frames[2];
    TS_ASSERT_NEAR(f1->translation[0], 0, 1e-6);
    TS_ASSERT_NEAR(f1->translation[1], 5, 1e-6);
    assert_null(m->animations[0].bounds);
    ossa_model_free(m);
}

static void test_force_joints(void **state)
{
    (void)state;
    ossa_error err;
    ossa_write_options wo = {0};
    wo.format = OSSA_FORMAT_IQM;
    /* The small IQM file of support_mini.c without joints and mesh: an
     * animation-only file (poses for 2 joints, docs/formats/iqm.md §2). */
    ts_mini mini;
    ts_mini_build(&mini, 2);
    const int fields[] = {TS_IQM_NUM_JOINTS, TS_IQM_OFS_JOINTS, TS_IQM_NUM_MESHES,
                          TS_IQM_OFS_MESHES, TS_IQM_NUM_VERTEXARRAYS, TS_IQM_NUM_VERTEXES,
                          TS_IQM_OFS_VERTEXARRAYS, TS_IQM_NUM_TRIANGLES, TS_IQM_OFS_TRIANGLES,
                          TS_IQM_OFS_ADJACENCY};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) ts_put32(mini.b + fields[i], 0);
    ossa_model *m = ts_load(mini.b, mini.size);
    assert_true(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    assert_int_equal(m->num_joints, 2);
    void *data;
    size_t size;
    /* Written as it is: animation-only again. */
    assert_int_equal(ossa_write_memory(m, &wo, &data, &size, &err), OSSA_OK);
    assert_int_equal(ts_iqm_header(data, TS_IQM_NUM_JOINTS), 0);
    assert_int_equal(ts_iqm_header(data, TS_IQM_NUM_POSES), 2);
    ossa_free(data, NULL);
    /* Forced: the two joints are written. */
    ossa_model_force_joints(m);
    assert_false(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    assert_int_equal(ossa_write_memory(m, &wo, &data, &size, &err), OSSA_OK);
    assert_int_equal(ts_iqm_header(data, TS_IQM_NUM_JOINTS), 2);
    ossa_free(data, NULL);
    ossa_model_free(m);
}

/* -- Appending meshes -- */

/* Joints a, b, c (a root, b and c its children); three vertices on joint
 * 1 (b), one triangle, mesh "body". */
static ossa_model *body_with(const ossa_allocator *allocator)
{
    ossa_model *m = ossa_model_create(allocator);
    ossa_error err;
    ossa_model_add_joint(m, "a", -1, NULL, &err);
    ossa_model_add_joint(m, "b", 0, NULL, &err);
    ossa_model_add_joint(m, "c", 0, NULL, &err);
    ossa_model_set_num_vertices(m, 3, &err);
    const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, p, &err);
    const uint8_t bi[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    const uint8_t bw[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0};
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, bi, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL, bw, &err);
    const ossa_triangle t = {{0, 1, 2}};
    ossa_model_set_triangles(m, 1, &t, &err);
    ossa_model_add_mesh(m, "body", "skin.png", 0, 3, 0, 1, &err);
    ossa_model_add_animation(m, "idle", 1, 30, 0, &err);
    ossa_bounds b = {{0, 0, 0}, {1, 1, 0}, 1, 1};
    ossa_model_set_animation_bounds(m, 0, &b, &err);
    return m;
}

static ossa_model *body(void) { return body_with(NULL); }

/* Joints c then a (another order, a subset); half-float positions and
 * normals; two vertices on its joint 0 (c) and 1 (a); one triangle. */
static ossa_model *head(const char *first_joint)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_model_add_joint(m, first_joint, -1, NULL, &err);
    ossa_model_add_joint(m, "a", -1, NULL, &err);
    ossa_model_set_num_vertices(m, 3, &err);
    const float p[9] = {0, 0, 2, 1, 0, 2, 0.5f, 0, 3};
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_HALF, 3, NULL, p, &err);
    const float n[9] = {0, -1, 0, 0, -1, 0, 0, -1, 0};
    ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, n, &err);
    const uint8_t bi[12] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    const uint8_t bw[12] = {128, 127, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0};
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, bi, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL, bw, &err);
    const ossa_triangle t = {{0, 2, 1}};
    ossa_model_set_triangles(m, 1, &t, &err);
    ossa_model_add_mesh(m, "head", "face.png", 0, 3, 0, 1, &err);
    return m;
}

static void test_append_meshes(void **state)
{
    (void)state;
    ossa_model *dst = body(), *src = head("c");
    ossa_error err;
    assert_int_equal(ossa_model_append_meshes(dst, src, &err), OSSA_OK);
    assert_int_equal(dst->num_vertices, 6);
    assert_int_equal(dst->num_triangles, 2);
    assert_int_equal(dst->num_meshes, 2);
    assert_int_equal(dst->num_joints, 3);
    /* The second triangle moves by the first model's 3 vertices. */
    assert_int_equal(dst->triangles[1].v[0], 3);
    assert_int_equal(dst->triangles[1].v[1], 5);
    assert_int_equal(dst->triangles[1].v[2], 4);
    assert_string_equal(dst->meshes[1].name, "head");
    assert_string_equal(dst->meshes[1].material, "face.png");
    assert_int_equal(dst->meshes[1].first_vertex, 3);
    assert_int_equal(dst->meshes[1].first_triangle, 1);
    /* float + half positions: float; values as given (all exact in half). */
    const ossa_vertex_array *p = ossa_model_find_array(dst, OSSA_VERTEX_POSITION, NULL);
    assert_int_equal(p->format, OSSA_FLOAT);
    assert_true(pos(dst, 5, 0) == 0.5f && pos(dst, 5, 2) == 3.0f && pos(dst, 1, 0) == 1.0f);
    /* head's joint 0 is c (2 here), joint 1 is a (0 here). */
    const uint8_t *bi = ossa_model_find_array(dst, OSSA_VERTEX_BLENDINDEXES, NULL)->data;
    assert_int_equal(bi[0], 1);      /* body vertex 0 keeps b */
    assert_int_equal(bi[12 + 0], 2); /* head vertex 0: c */
    assert_int_equal(bi[12 + 1], 0); /* and a */
    assert_int_equal(bi[16 + 0], 0); /* head vertex 1: a */
    const uint8_t *bw = ossa_model_find_array(dst, OSSA_VERTEX_BLENDWEIGHTS, NULL)->data;
    assert_int_equal(bw[12], 128);
    assert_int_equal(bw[13], 127);
    /* Normals only the head had: body vertices get zeros, with a warning. */
    const ossa_vertex_array *n = ossa_model_find_array(dst, OSSA_VERTEX_NORMAL, NULL);
    assert_non_null(n);
    float nv[3];
    ossa_vertex_array_read(dst, n, 0, 1, nv);
    assert_true(nv[0] == 0 && nv[1] == 0 && nv[2] == 0);
    ossa_vertex_array_read(dst, n, 4, 1, nv);
    assert_true(nv[1] == -1.0f);
    assert_int_equal(dst->num_warnings, 1);
    assert_int_equal(dst->warnings[0].code, OSSA_WARNING_REPAIRED);
    /* Boxes were the body's only. */
    assert_null(dst->animations[0].bounds);
    assert_int_equal(ossa_model_validate(dst, NULL, NULL, NULL), 0);
    ossa_model_free(src);
    ossa_model_free(dst);

    /* A joint the skeleton lacks: refused, nothing changed. */
    dst = body();
    src = head("z");
    assert_int_equal(ossa_model_append_meshes(dst, src, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_MISMATCH);
    assert_non_null(strstr(err.message, "'z'"));
    assert_int_equal(dst->num_vertices, 3);
    assert_int_equal(dst->num_meshes, 1);
    assert_non_null(dst->animations[0].bounds);
    ossa_model_free(src);
    ossa_model_free(dst);
}

/* Edit `*(int *)ctx` on a model built with failures held back: a failed
 * edit leaves the model whole (it validates); the result is the edited
 * model. */
static ossa_status edit_op(void *ctx, ts_alloc *a, ossa_error *err, ts_result *result)
{
    int op = *(const int *)ctx;
    ts_alloc_pause(a);
    ossa_model *m, *src = head("c");
    if (op < 3) {
        m = body_with(&a->allocator);
    } else { /* ubyte positions become floats when scaled */
        m = ossa_model_create(&a->allocator);
        assert_int_equal(ossa_model_set_num_vertices(m, 1, err), OSSA_OK);
        const uint8_t p[3] = {1, 2, 3};
        assert_non_null(
            ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_UBYTE, 3, NULL, p, err));
    }
    ts_alloc_resume(a);
    ossa_status st = OSSA_OK;
    if (op == 0) st = ossa_model_append_meshes(m, src, err);
    if (op == 1) st = ossa_model_resample_animation(m, 0, 90, err);
    if (op == 2) st = ossa_model_rename_animation(m, 0, "walk", err);
    if (op == 3) st = ossa_model_scale(m, 2, err);
    ts_alloc_pause(a);
    if (st != OSSA_OK && op == 0) assert_int_equal(m->num_vertices, 3);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    if (st == OSSA_OK) ts_result_model(result, a, m);
    ossa_model_free(src);
    ossa_model_free(m);
    return st;
}

/* Every allocation of each edit failing in turn: the edit fails with
 * OSSA_ERROR_NOMEM and the model is still whole (it validates, nothing
 * leaks); the sweep ends when the edit succeeds. */
static void test_allocation_failures(void **state)
{
    (void)state;
    static const char *const names[4] = {"append meshes", "resample", "rename", "scale"};
    for (int op = 0; op < 4; op++)
        ts_alloc_sweep_with(names[op], edit_op, &op,
                            &(ts_sweep){.modes = TS_SWEEP_ONCE, .max_calls = 1000,
                                        .allow_none = true});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_scale_integer_positions),
        cmocka_unit_test(test_translate_meshes),
        cmocka_unit_test(test_rotate),
        cmocka_unit_test(test_force_joints),
        cmocka_unit_test(test_append_meshes),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
