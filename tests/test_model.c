/* The builder API, merging, validation and adjacency (docs/formats/iqm.md §10) on small
 * hand-built models. Every expected value is worked out by hand in the
 * comments. Vertex encoding is in test_vertex_format.c, allocation failure
 * in test_alloc_failure.c. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ossa_transform translated(float x, float y, float z)
{
    ossa_transform t = ossa_transform_identity();
    t.translation[0] = x;
    t.translation[1] = y;
    t.translation[2] = z;
    return t;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void assert_transform_equal(const ossa_transform *a, const ossa_transform *b)
{
    assert_memory_equal(a, b, sizeof *a);
}

/* -- Joints, vertex count, arrays, triangles, meshes, animations ----------- */

static void test_add_joint_parents(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    ossa_error err;
    /* No joint 0 exists yet, so parent 0 is not an earlier joint. */
    assert_int_equal(ossa_model_add_joint(m, "bad", 0, NULL, &err), -1);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_true(err.message[0] != 0);
    assert_int_equal(m->num_joints, 0);

    char name[8] = "root";
    assert_int_equal(ossa_model_add_joint(m, name, -1, NULL, &err), 0);
    strcpy(name, "XXXX"); /* the model keeps its own copy */
    assert_string_equal(m->joints[0].name, "root");
    ossa_transform identity = ossa_transform_identity();
    assert_transform_equal(&m->joints[0].bind, &identity); /* NULL bind = identity */

    ossa_transform b = translated(1, 2, 3);
    assert_int_equal(ossa_model_add_joint(m, "a", 0, &b, &err), 1);
    assert_int_equal(ossa_model_add_joint(m, NULL, 1, &b, &err), 2);
    assert_string_equal(m->joints[2].name, ""); /* names are never NULL */
    assert_transform_equal(&m->joints[1].bind, &b);
    assert_int_equal(m->joints[2].parent, 1);

    /* A parent equal to the new joint's own index, a later one, or < -1. */
    const int32_t bad[] = {3, 4, 100, -2, INT32_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.code = OSSA_CODE_NONE;
        assert_int_equal(ossa_model_add_joint(m, "bad", bad[i], NULL, &err), -1);
        assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    }
    assert_int_equal(m->num_joints, 3);

    /* Once animations exist the frame layout is fixed: no more joints. */
    assert_non_null(ossa_model_add_animation(m, "idle", 2, 30, 0, &err));
    assert_int_equal(ossa_model_add_joint(m, "late", -1, NULL, &err), -1);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_int_equal(m->num_joints, 3);
    ossa_model_free(m);
}

static void test_vertex_count_and_array_arguments(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    assert_int_equal(ossa_model_set_num_vertices(m, 5, &err), OSSA_OK);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, &err), OSSA_OK); /* no arrays yet */
    const float pos[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    const ossa_vertex_array *a =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "ignored", pos, &err);
    assert_non_null(a);
    assert_string_equal(a->name, ""); /* names are for custom arrays only */
    assert_memory_equal(a->data, pos, sizeof pos);
    assert_int_equal(ossa_model_set_num_vertices(m, 4, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_int_equal(m->num_vertices, 3);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, &err), OSSA_OK); /* unchanged: fine */

    /* Unknown format, 0 or too many components, a reserved type. */
    assert_null(
        ossa_model_add_vertex_array(m, OSSA_VERTEX_COLOR, (ossa_component)9, 4, NULL, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 0, NULL, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_COLOR, OSSA_UBYTE,
                                            OSSA_MAX_COMPONENTS + 1, NULL, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_null(
        ossa_model_add_vertex_array(m, (ossa_vertex_type)7, OSSA_UBYTE, 4, NULL, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_int_equal(m->num_vertex_arrays, 1);

    const ossa_vertex_array *c =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_CUSTOM, OSSA_UBYTE, 1, "mask", NULL, &err);
    assert_non_null(c);
    assert_string_equal(c->name, "mask");
    assert_ptr_equal(ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "mask"), c);
    assert_null(ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "other"));
    assert_null(ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL));
    ossa_model_free(m);
}

/* Encodes n single-component values and returns the model (caller frees). */
static void test_triangles_and_meshes(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_model_set_num_vertices(m, 4, &err);
    const ossa_triangle bad[] = {{{0, 1, 2}}, {{1, 2, 4}}};
    assert_int_equal(ossa_model_set_triangles(m, 2, bad, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_int_equal(m->num_triangles, 0);
    const ossa_triangle good[] = {{{0, 1, 2}}, {{1, 3, 2}}};
    assert_int_equal(ossa_model_set_triangles(m, 2, good, &err), OSSA_OK);
    assert_int_equal(m->num_triangles, 2);
    assert_memory_equal(m->triangles, good, sizeof good);
    assert_null(m->adjacency); /* no stale hint for the new triangles */

    /* Ranges [first, first + count) must lie inside 4 vertices, 2 triangles. */
    assert_int_equal(ossa_model_add_mesh(m, "a", "m", 0, 4, 0, 2, &err), 0);
    /* Empty ranges may sit at the very end. */
    assert_int_equal(ossa_model_add_mesh(m, "b", NULL, 4, 0, 2, 0, &err), 1);
    assert_string_equal(m->meshes[1].material, "");
    const uint32_t bad_ranges[][4] = {{0, 5, 0, 1}, {4, 1, 0, 1},          {0, 1, 1, 2},
                                      {0, 1, 3, 0}, {UINT32_MAX, 2, 0, 0}, {0, 0, 1, UINT32_MAX}};
    for (size_t i = 0; i < COUNT(bad_ranges); i++) {
        const uint32_t *r = bad_ranges[i];
        err.code = OSSA_CODE_NONE;
        assert_int_equal(ossa_model_add_mesh(m, "x", "y", r[0], r[1], r[2], r[3], &err), -1);
        assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    }
    assert_int_equal(m->num_meshes, 2);
    assert_string_equal(m->meshes[0].name, "a");
    assert_int_equal(m->meshes[0].num_vertices, 4);
    ossa_model_free(m);
}

static void test_animation_starts_at_bind_pose(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_transform b0 = translated(1, 2, 3), b1 = translated(-4, 5, 6);
    b1.rotation[0] = 0.6f;
    b1.rotation[3] = -0.8f;
    b1.scale[2] = 2;
    ossa_model_add_joint(m, "a", -1, &b0, &err);
    ossa_model_add_joint(m, "b", 0, &b1, &err);
    ossa_animation *an = ossa_model_add_animation(m, "run", 3, 12.5f, OSSA_ANIMATION_LOOP, &err);
    assert_non_null(an);
    assert_string_equal(an->name, "run");
    assert_int_equal(an->num_frames, 3);
    assert_true(an->framerate == 12.5f);
    assert_int_equal(an->flags, OSSA_ANIMATION_LOOP);
    assert_null(an->bounds);
    for (int f = 0; f < 3; f++) {
        assert_transform_equal(&an->frames[f * 2], &b0);
        assert_transform_equal(&an->frames[f * 2 + 1], &b1);
    }
    ossa_animation *empty = ossa_model_add_animation(m, "none", 0, 0, 0, &err);
    assert_non_null(empty);
    assert_int_equal(m->num_animations, 2);
    assert_int_equal(m->animations[1].num_frames, 0);
    ossa_model_free(m);
}

/* -- Merging ---------------------------------------------------------------- */

static ossa_model *skeleton(const char *const *names, const int32_t *parents, uint32_t n,
                            float bind_x)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    for (uint32_t j = 0; j < n; j++) {
        ossa_transform b = translated(bind_x + (float)j, 0, 0);
        assert_int_equal(ossa_model_add_joint(m, names ? names[j] : "", parents[j], &b, &err),
                         (int32_t)j);
    }
    return m;
}

/* Adds a 2-frame animation whose joint j at frame f sits at (j, f, tag). */
static void add_marked_animation(ossa_model *m, const char *name, float tag)
{
    ossa_error err;
    ossa_animation *an = ossa_model_add_animation(m, name, 2, 24, 0, &err);
    assert_non_null(an);
    for (uint32_t f = 0; f < 2; f++)
        for (uint32_t j = 0; j < m->num_joints; j++)
            an->frames[f * m->num_joints + j] = translated((float)j, (float)f, tag);
}

static void test_find_by_name(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    assert_int_equal(ossa_model_add_joint(m, "hips", -1, NULL, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "spine", 0, NULL, &err), 1);
    assert_int_equal(ossa_model_add_joint(m, "spine", 1, NULL, &err), 2); /* a second of one name */
    assert_non_null(ossa_model_add_animation(m, "walk", 2, 30, 0, &err));
    assert_non_null(ossa_model_add_animation(m, "run", 2, 30, 0, &err));
    assert_int_equal(ossa_model_find_joint(m, "hips"), 0);
    assert_int_equal(ossa_model_find_joint(m, "spine"), 1); /* the first */
    assert_int_equal(ossa_model_find_joint(m, "Spine"), -1); /* names are exact */
    assert_int_equal(ossa_model_find_joint(m, ""), -1);
    assert_int_equal(ossa_model_find_joint(m, NULL), -1);
    assert_int_equal(ossa_model_find_animation(m, "run"), 1);
    assert_int_equal(ossa_model_find_animation(m, "swim"), -1);
    assert_int_equal(ossa_model_find_animation(NULL, "run"), -1);
    ossa_model_free(m);
}

static void test_merge_by_name(void **state)
{
    (void)state;
    const char *dst_names[] = {"hips", "spine", "head"};
    const char *src_names[] = {"spine", "head", "tail"};
    const int32_t chain[] = {-1, 0, 1};
    ossa_model *dst = skeleton(dst_names, chain, 3, 100);
    ossa_model *src = skeleton(src_names, chain, 3, 200);
    add_marked_animation(src, "walk", 7);
    ossa_error err;
    uint32_t warnings = dst->num_warnings;
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    assert_int_equal(dst->num_joints, 3);
    assert_int_equal(dst->num_animations, 1);
    const ossa_animation *an = &dst->animations[0];
    assert_string_equal(an->name, "walk");
    assert_int_equal(an->num_frames, 2);
    for (uint32_t f = 0; f < 2; f++) {
        /* hips is not in src: it keeps dst's bind pose. */
        assert_transform_equal(&an->frames[f * 3 + 0], &dst->joints[0].bind);
        ossa_transform spine = translated(0, (float)f, 7), head = translated(1, (float)f, 7);
        assert_transform_equal(&an->frames[f * 3 + 1], &spine); /* src joint 0 */
        assert_transform_equal(&an->frames[f * 3 + 2], &head);  /* src joint 1 */
    }
    /* src's "tail" has no place in dst: dropped, with a warning naming it;
     * dst's "hips" is not animated by src: a warning says it keeps its bind
     * pose (docs/formats/smd.md §10). */
    assert_int_equal(dst->num_warnings, warnings + 2);
    assert_non_null(strstr(dst->warnings[warnings].message, "tail"));
    assert_non_null(strstr(dst->warnings[warnings + 1].message, "1 of the skeleton's joints"));
    assert_non_null(strstr(dst->warnings[warnings + 1].message, "'hips'"));
    ossa_model_free(dst);
    ossa_model_free(src);
}

static void test_merge_by_index(void **state)
{
    (void)state;
    const int32_t chain[] = {-1, 0, 1}, fork[] = {-1, 0, 0};
    const char *named[] = {"a", "b", "c"};
    ossa_error err;

    /* Unnamed on both sides, same parents: joint j takes src joint j. */
    ossa_model *dst = skeleton(NULL, chain, 3, 0), *src = skeleton(NULL, chain, 3, 50);
    add_marked_animation(src, "x", 3);
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    assert_int_equal(dst->num_animations, 1);
    assert_memory_equal(dst->animations[0].frames, src->animations[0].frames,
                        6 * sizeof(ossa_transform));
    ossa_model_free(dst);
    ossa_model_free(src);

    /* Names on one side only: still by index. */
    dst = skeleton(named, chain, 3, 0);
    src = skeleton(NULL, chain, 3, 50);
    add_marked_animation(src, "x", 3);
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    assert_memory_equal(dst->animations[0].frames, src->animations[0].frames,
                        6 * sizeof(ossa_transform));
    ossa_model_free(dst);
    ossa_model_free(src);

    /* By index, the parents must agree and so must the counts. */
    dst = skeleton(NULL, chain, 3, 0);
    src = skeleton(NULL, fork, 3, 0);
    add_marked_animation(src, "x", 3);
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_MISMATCH);
    assert_true(err.message[0] != 0);
    ossa_model_free(src);
    src = skeleton(NULL, chain, 2, 0);
    add_marked_animation(src, "x", 3);
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_MISMATCH);
    ossa_model_free(dst);
    ossa_model_free(src);

    /* Named on both sides but no name in common. */
    const char *other[] = {"x", "y", "z"};
    dst = skeleton(named, chain, 3, 0);
    src = skeleton(other, chain, 3, 0);
    add_marked_animation(src, "x", 3);
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_MISMATCH);
    ossa_model_free(dst);
    ossa_model_free(src);
}

/* A small skinned quad: 4 vertices, 2 triangles, 2 joints. */
static ossa_model *quad(float tag)
{
    const int32_t parents[] = {-1, 0};
    const char *names[] = {"root", "arm"};
    ossa_model *m = skeleton(names, parents, 2, tag);
    ossa_error err;
    const float pos[] = {0, 0, tag, 1, 0, tag, 0, 1, tag, 1, 1, tag};
    const float idx[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    const float wgt[] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    const ossa_triangle tris[] = {{{0, 1, 2}}, {{1, 3, 2}}};
    assert_int_equal(ossa_model_set_num_vertices(m, 4, &err), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL,
                                                       pos, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4,
                                                       NULL, idx, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4,
                                                       NULL, wgt, &err));
    assert_int_equal(ossa_model_set_triangles(m, 2, tris, &err), OSSA_OK);
    assert_int_equal(ossa_model_add_mesh(m, "quad", "mat", 0, 4, 0, 2, &err), 0);
    return m;
}

static void test_merge_skeleton_and_mesh(void **state)
{
    (void)state;
    ossa_error err;
    /* An empty model takes the skeleton, the mesh and the animations. */
    ossa_model *dst = ossa_model_create(NULL), *src = quad(5);
    add_marked_animation(src, "wave", 1);
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    assert_int_equal(dst->num_joints, 2);
    assert_string_equal(dst->joints[1].name, "arm");
    assert_int_equal(dst->joints[1].parent, 0);
    assert_int_equal(dst->num_vertices, 4);
    assert_int_equal(dst->num_triangles, 2);
    assert_int_equal(dst->num_meshes, 1);
    assert_memory_equal(dst->vertex_arrays[0].data, src->vertex_arrays[0].data, 12 * sizeof(float));
    assert_int_equal(dst->num_animations, 1);

    /* A second mesh is not merged: dst keeps its own (z = 5, not 9). */
    ossa_model *other = quad(9);
    add_marked_animation(other, "jump", 2);
    uint32_t warnings = dst->num_warnings;
    assert_int_equal(ossa_model_merge(dst, other, &err), OSSA_OK);
    assert_int_equal(dst->num_animations, 2);
    assert_int_equal(dst->num_vertices, 4);
    assert_true(((const float *)dst->vertex_arrays[0].data)[2] == 5);
    assert_true(dst->num_warnings > warnings);
    ossa_model_free(dst);
    ossa_model_free(src);
    ossa_model_free(other);
}

/* -- Validation ------------------------------------------------------------- */

typedef struct problems {
    uint32_t errors, warnings;
    char text[2048];
} problems;

static void collect(void *user, const ossa_diagnostic *p)
{
    problems *ps = user;
    if (p->severity == OSSA_SEVERITY_ERROR)
        ps->errors++;
    else
        ps->warnings++;
    size_t used = strlen(ps->text);
    snprintf(ps->text + used, sizeof ps->text - used, "%s: %s\n",
             p->severity == OSSA_SEVERITY_ERROR ? "error" : "warning", p->message);
}

/* The number of errors; the status and the error say the same. */
static uint32_t validate(const ossa_model *m, problems *ps)
{
    memset(ps, 0, sizeof *ps);
    ossa_error err;
    ossa_status st = ossa_model_validate(m, collect, ps, &err);
    assert_int_equal(st, ps->errors ? OSSA_FAILED : OSSA_OK);
    if (ps->errors) {
        /* the first error, and how many more there are */
        assert_int_equal(err.severity, OSSA_SEVERITY_ERROR);
        assert_true(err.code >= 200 && err.code < 300);
        assert_non_null(strstr(ps->text, err.message[0] ? "error: " : "?"));
        if (ps->errors > 1) {
            char more[48];
            snprintf(more, sizeof more, "(and %u more errors)", ps->errors - 1);
            assert_non_null(strstr(err.message, more));
        }
    } else {
        assert_int_equal(err.code, OSSA_CODE_NONE);
    }
    return ps->errors;
}

/* quad() plus a 2-frame animation: a model with nothing wrong. */
static ossa_model *clean_model(void)
{
    ossa_model *m = quad(0);
    ossa_error err;
    ossa_animation *an = ossa_model_add_animation(m, "idle", 2, 30, OSSA_ANIMATION_LOOP, &err);
    assert_non_null(an);
    an->frames[3].translation[1] = 0.5f;
    return m;
}

static void test_validate_clean(void **state)
{
    (void)state;
    ossa_model *m = clean_model();
    problems ps;
    if (validate(m, &ps) || ps.warnings) print_error("%s", ps.text);
    assert_int_equal(ps.errors, 0);
    assert_int_equal(ps.warnings, 0);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0); /* fn may be NULL */
    ossa_model_free(m);
}

static void test_validate_planted(void **state)
{
    (void)state;
    problems ps;
    ossa_error err;

    /* A NaN in one animated pose. */
    ossa_model *m = clean_model();
    m->animations[0].frames[1 * 2 + 1].rotation[2] = NAN;
    assert_true(validate(m, &ps) >= 1);
    assert_non_null(strstr(ps.text, "not finite"));
    ossa_model_free(m);

    /* ubyte weights 100 + 100 = 200 of 255: they do not sum to 1. Raw bytes,
     * so the sum-to-255 fix-up of the float builder does not repair them. */
    m = quad(0);
    const uint8_t idx[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    const uint8_t bad_sum[] = {255, 0, 0, 0, 100, 100, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0};
    ossa_vertex_array *w =
        (ossa_vertex_array *)ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    memcpy(w->data, bad_sum, sizeof bad_sum);
    assert_true(validate(m, &ps) >= 1);
    assert_non_null(strstr(ps.text, "vertex 1"));
    assert_non_null(strstr(ps.text, "sum"));
    ossa_model_free(m);

    /* Blend index 5 with weight 255 in a 2-joint model. */
    m = quad(0);
    uint8_t bad_idx[sizeof idx];
    memcpy(bad_idx, idx, sizeof idx);
    bad_idx[3 * 4] = 5;
    ossa_vertex_array *bi =
        (ossa_vertex_array *)ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    memcpy(bi->data, bad_idx, sizeof bad_idx);
    assert_true(validate(m, &ps) >= 1);
    assert_non_null(strstr(ps.text, "vertex 3"));
    ossa_model_free(m);

    /* A triangle of mesh "low" uses vertex 3, outside the mesh's 0..2 (§3:
     * a mesh's triangles reference only its own vertices). */
    m = ossa_model_create(NULL);
    ossa_model_set_num_vertices(m, 4, &err);
    const float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, &err);
    const ossa_triangle tri[] = {{{1, 3, 2}}};
    ossa_model_set_triangles(m, 1, tri, &err);
    assert_int_equal(ossa_model_add_mesh(m, "low", "", 0, 3, 0, 1, &err), 0);
    validate(m, &ps);
    assert_true(ps.errors + ps.warnings >= 1);
    assert_non_null(strstr(ps.text, "outside the mesh"));
    ossa_model_free(m);

    /* A bind pose with an infinite scale. */
    m = clean_model();
    m->joints[1].bind.scale[0] = INFINITY;
    assert_true(validate(m, &ps) >= 1);
    assert_non_null(strstr(ps.text, "joint 1"));
    ossa_model_free(m);
}

/* -- Adjacency (§10) --------------------------------------------------------- */

static ossa_model *mesh_of(const float *pos, uint32_t nv, const ossa_triangle *tris, uint32_t nt)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_model_set_num_vertices(m, nv, &err);
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL,
                                                       pos, &err));
    assert_int_equal(ossa_model_set_triangles(m, nt, tris, &err), OSSA_OK);
    return m;
}

#define NONE OSSA_NO_NEIGHBOR

static void test_adjacency_colocated_vertices(void **state)
{
    (void)state;
    /* Vertices 3 and 4 repeat the positions of 1 and 2 (a UV seam). T0's edge
     * k=1 is 1->2 and T1's edge k=2 is 4->3, the same positions reversed. */
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    const ossa_triangle tris[] = {{{0, 1, 2}}, {{3, 5, 4}}};
    ossa_model *m = mesh_of(pos, 6, tris, 2);
    uint32_t adj[6];
    ossa_error err;
    assert_int_equal(ossa_model_compute_adjacency(m, adj, &err), OSSA_OK);
    const uint32_t expect[6] = {NONE, 1, NONE, NONE, NONE, 0};
    assert_memory_equal(adj, expect, sizeof expect);
    ossa_model_free(m);

    /* -0 and +0 are the same place. */
    const float signed_zero[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, -0.0f, 0, -0.0f, 1, -0.0f, 1, 1, 0};
    m = mesh_of(signed_zero, 6, tris, 2);
    assert_int_equal(ossa_model_compute_adjacency(m, adj, &err), OSSA_OK);
    assert_memory_equal(adj, expect, sizeof expect);
    ossa_model_free(m);
}

static void test_adjacency_nonmanifold_and_blend(void **state)
{
    (void)state;
    /* Three triangles on edge 0-1 (a fin): that edge gives no neighbour. T3
     * shares edge 1-2 with T0 only, so that pair still links. */
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 1, 1, 0};
    const ossa_triangle tris[] = {{{0, 1, 2}}, {{1, 0, 3}}, {{0, 1, 4}}, {{2, 1, 5}}};
    ossa_model *m = mesh_of(pos, 6, tris, 4);
    uint32_t adj[12];
    ossa_error err;
    assert_int_equal(ossa_model_compute_adjacency(m, adj, &err), OSSA_OK);
    /* T0: 0->1 fin, 1->2 = T3, 2->0 none. T1: 1->0 fin, rest none.
     * T2: 0->1 fin, rest none. T3: 2->1 = T0, rest none. */
    const uint32_t expect[12] = {NONE, 3, NONE, NONE, NONE, NONE, NONE, NONE, NONE, 0, NONE, NONE};
    assert_memory_equal(adj, expect, sizeof expect);
    ossa_model_free(m);

    /* With blend data the key includes it: the seam of the first test no
     * longer links when vertex 3 is bound to another joint. */
    const float seam[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    const ossa_triangle two[] = {{{0, 1, 2}}, {{3, 5, 4}}};
    const float idx[24] = {[12] = 1};
    const float wgt[24] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    m = mesh_of(seam, 6, two, 2);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, idx, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL, wgt, &err);
    assert_int_equal(ossa_model_compute_adjacency(m, adj, &err), OSSA_OK);
    for (int i = 0; i < 6; i++) assert_int_equal(adj[i], NONE);
    ossa_model_free(m);

    /* Same blend data everywhere: linked again. */
    const float idx_same[24] = {0};
    m = mesh_of(seam, 6, two, 2);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, idx_same,
                                       &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL, wgt, &err);
    assert_int_equal(ossa_model_compute_adjacency(m, adj, &err), OSSA_OK);
    assert_int_equal(adj[1], 1);
    assert_int_equal(adj[5], 0);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_joint_parents),
        cmocka_unit_test(test_vertex_count_and_array_arguments),
        cmocka_unit_test(test_triangles_and_meshes),
        cmocka_unit_test(test_animation_starts_at_bind_pose),
        cmocka_unit_test(test_find_by_name),
        cmocka_unit_test(test_merge_by_name),
        cmocka_unit_test(test_merge_by_index),
        cmocka_unit_test(test_merge_skeleton_and_mesh),
        cmocka_unit_test(test_validate_clean),
        cmocka_unit_test(test_validate_planted),
        cmocka_unit_test(test_adjacency_colocated_vertices),
        cmocka_unit_test(test_adjacency_nonmanifold_and_blend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
