/* Merging (ossa_model_merge): animations whose names repeat get unique
 * names with a warning, as importers would otherwise invent their own
 * (Blender: "jump.001"); merging takes every temporary from the
 * destination model's allocator. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A two-joint skeleton with the named animations (2 frames each). */
static ossa_model *skeleton_with(const ossa_allocator *alloc, const char *const *names,
                                 uint32_t count)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(alloc);
    assert_non_null(m);
    assert_int_equal(ossa_model_add_joint(m, "root", -1, NULL, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "arm", 0, NULL, &err), 1);
    for (uint32_t i = 0; i < count; i++) {
        ossa_animation *a = ossa_model_add_animation(m, names[i], 2, 24, 0, &err);
        assert_non_null(a);
        a->frames[3].translation[0] = (float)(i + 1); /* frame 1, joint 1 */
    }
    return m;
}

static uint32_t count_code(const ossa_model *m, uint32_t from, ossa_code code)
{
    uint32_t n = 0;
    for (uint32_t i = from; i < m->num_warnings; i++) n += m->warnings[i].code == code;
    return n;
}

static void repeated_animation_names_renamed(void **state)
{
    (void)state;
    static const char *const first[] = {"jump", "dance"};
    static const char *const more[] = {"jump", "dance", "walk"};
    ossa_model *dst = skeleton_with(NULL, first, 2);
    ossa_model *src = skeleton_with(NULL, more, 3);
    ossa_error err;
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    assert_int_equal(dst->num_animations, 5);
    static const char *const want[] = {"jump", "dance", "jump_2", "dance_2", "walk"};
    for (uint32_t a = 0; a < 5; a++) assert_string_equal(dst->animations[a].name, want[a]);
    /* The frames came along with their animations. */
    assert_true(dst->animations[2].frames[3].translation[0] == 1);
    assert_true(dst->animations[4].frames[3].translation[0] == 3);
    assert_int_equal(count_code(dst, 0, OSSA_WARNING_RENAMED), 2);
    for (uint32_t i = 0; i < dst->num_warnings; i++)
        assert_int_equal(dst->warnings[i].severity, OSSA_SEVERITY_WARNING);
    /* A third time: _3, since _2 is taken. */
    uint32_t before = dst->num_warnings;
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    assert_string_equal(dst->animations[5].name, "jump_3");
    assert_string_equal(dst->animations[6].name, "dance_3");
    assert_string_equal(dst->animations[7].name, "walk_2");
    assert_int_equal(count_code(dst, before, OSSA_WARNING_RENAMED), 3);
    ossa_model_free(src);
    ossa_model_free(dst);
}

static void suffix_already_taken(void **state)
{
    (void)state;
    /* dst holds "jump" and "jump_2" already; the incoming "jump_2" is a
     * repeat too. Unnamed animations stay unnamed and do not warn. */
    static const char *const first[] = {"jump", "jump_2", ""};
    static const char *const more[] = {"jump", "jump_2", ""};
    ossa_model *dst = skeleton_with(NULL, first, 3);
    ossa_model *src = skeleton_with(NULL, more, 3);
    ossa_error err;
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    static const char *const want[] = {"jump", "jump_2", "", "jump_3", "jump_2_2", ""};
    assert_int_equal(dst->num_animations, 6);
    for (uint32_t a = 0; a < 6; a++) assert_string_equal(dst->animations[a].name, want[a]);
    assert_int_equal(count_code(dst, 0, OSSA_WARNING_RENAMED), 2);
    ossa_model_free(src);
    ossa_model_free(dst);
}

static void distinct_names_untouched(void **state)
{
    (void)state;
    static const char *const first[] = {"jump"};
    static const char *const more[] = {"Jump", "run"};
    ossa_model *dst = skeleton_with(NULL, first, 1);
    ossa_model *src = skeleton_with(NULL, more, 2);
    ossa_error err;
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    assert_string_equal(dst->animations[1].name, "Jump"); /* names are case-sensitive */
    assert_string_equal(dst->animations[2].name, "run");
    assert_int_equal(dst->num_warnings, 0);
    ossa_model_free(src);
    ossa_model_free(dst);
}

/* guy.iqm and guyanim.iqm both hold "jump" and "dance". */
static void guy_and_guyanim(void **state)
{
    (void)state;
    unsigned char *f1, *f2;
    size_t n1, n2;
    ossa_model *dst = ts_load_shared("iqm/guy.iqm", &f1, &n1);
    ossa_model *src = ts_load_shared("iqm/guyanim.iqm", &f2, &n2);
    ossa_error err;
    assert_int_equal(ossa_model_merge(dst, src, &err), OSSA_OK);
    static const char *const want[] = {"jump", "dance", "jump_2", "dance_2"};
    assert_int_equal(dst->num_animations, 4);
    for (uint32_t a = 0; a < 4; a++) assert_string_equal(dst->animations[a].name, want[a]);
    assert_int_equal(count_code(dst, 0, OSSA_WARNING_RENAMED), 2);
    ossa_model_free(src);
    ossa_model_free(dst);
    free(f1);
    free(f2);
}

/* Every allocation of a merge comes from dst's allocator: with allocation
 * N failing, the merge fails with OSSA_ERROR_NOMEM or succeeds, and once
 * both models are freed nothing is left. The merge exercises the
 * temporaries of joint matching by file index and blend index remapping
 * (a mesh without joints meets a skeleton with OSSA_EXTRA_JOINT_INDEX) and
 * the renaming. */
static ossa_status merge_once(ts_alloc *alloc, ossa_error *err, uint32_t *num_anims,
                              long *merge_calls)
{
    static const char *const names[] = {"jump", "dance"};
    ossa_model *mesh = ossa_model_create(&alloc->allocator);
    ossa_model *skel = NULL, *anims = NULL;
    ossa_status st = OSSA_FAILED;
    if (!mesh) {
        err->code = OSSA_ERROR_NOMEM;
        return st;
    }
    static const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const float idx[] = {7, 0, 0, 0, 9, 0, 0, 0, 7, 9, 0, 0};
    static const float wgt[] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    static const ossa_triangle tri[] = {{{0, 1, 2}}};
    static const uint32_t file_index[2] = {7, 9};
    if (ossa_model_set_num_vertices(mesh, 3, err) ||
        !ossa_model_add_vertex_array_floats(mesh, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos,
                                            err) ||
        !ossa_model_add_vertex_array_floats(mesh, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL,
                                            idx, err) ||
        !ossa_model_add_vertex_array_floats(mesh, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL,
                                            wgt, err) ||
        ossa_model_set_triangles(mesh, 1, tri, err) ||
        ossa_model_add_mesh(mesh, "m", "", 0, 3, 0, 1, err) < 0)
        goto done;
    skel = ossa_model_create(NULL);
    anims = ossa_model_create(NULL);
    assert_non_null(skel);
    assert_non_null(anims);
    ossa_error e2;
    assert_int_equal(ossa_model_add_joint(skel, "root", -1, NULL, &e2), 0);
    assert_int_equal(ossa_model_add_joint(skel, "arm", 0, NULL, &e2), 1);
    assert_int_equal(ossa_model_add_extra(skel, OSSA_EXTRA_JOINT_INDEX, file_index,
                                          sizeof file_index, &e2),
                     OSSA_OK);
    for (int i = 0; i < 2; i++) assert_non_null(ossa_model_add_animation(skel, names[i], 2, 24, 0, &e2));
    assert_int_equal(ossa_model_add_joint(anims, "root", -1, NULL, &e2), 0);
    assert_int_equal(ossa_model_add_joint(anims, "arm", 0, NULL, &e2), 1);
    for (int i = 0; i < 2; i++) assert_non_null(ossa_model_add_animation(anims, names[i], 2, 24, 0, &e2));
    long before = alloc->calls;
    if (ossa_model_merge(mesh, skel, err) || ossa_model_merge(mesh, anims, err)) goto done;
    *merge_calls = alloc->calls - before;
    *num_anims = mesh->num_animations;
    /* Blend indexes 7 and 9 were the file's numbers of joints 0 and 1. */
    float got[4];
    const ossa_vertex_array *a = ossa_model_find_array(mesh, OSSA_VERTEX_BLENDINDEXES, NULL);
    assert_int_equal(ossa_vertex_array_read(mesh, a, 2, 1, got), OSSA_OK);
    assert_true(got[0] == 0 && got[1] == 1);
    assert_string_equal(mesh->animations[3].name, "dance_2");
    st = OSSA_OK;
done:
    ossa_model_free(anims);
    ossa_model_free(skel);
    ossa_model_free(mesh);
    return st;
}

/* The result is the number of animations merged (4 every time). */
static ossa_status merge_op(void *ctx, ts_alloc *a, ossa_error *err, ts_result *result)
{
    long *merge_calls = ctx, calls = 0;
    uint32_t anims = 0;
    ossa_status st = merge_once(a, err, &anims, &calls);
    if (st) return st;
    assert_int_equal(anims, 4);
    if (a->fail_at < 0) *merge_calls = calls;
    ts_result_copy(result, &anims, sizeof anims);
    return OSSA_OK;
}

static void allocation_failure_sweep(void **state)
{
    (void)state;
    long merge_calls = 0;
    ts_alloc_sweep("merge", merge_op, &merge_calls);
    /* The temporaries (joint maps, file indices, blend remapping, the
     * renamed names) were asked of the allocator: the models' arenas
     * alone would need at most one new chunk here. */
    printf("the merges made %ld allocations\n", merge_calls);
    assert_true(merge_calls >= 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repeated_animation_names_renamed),
        cmocka_unit_test(suffix_already_taken),
        cmocka_unit_test(distinct_names_untouched),
        cmocka_unit_test(guy_and_guyanim),
        cmocka_unit_test(allocation_failure_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
