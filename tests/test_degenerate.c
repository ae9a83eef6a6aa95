/* Degenerate-triangle removal, the post-read step the loader runs on every
 * model (src/core/degenerate.h): which triangles repeat a vertex, what
 * goes with them (vertices only they used, meshes they empty), how the
 * rest is renumbered, the warning, and OSSA_LOAD_KEEP_DEGENERATE with
 * validation reporting the same triangles.
 *
 * The model, worked out by hand (position; texcoord):
 *   v0 (0,0,0; 0,0)  v1 (1,0,0; 1,0)  v2 (0,1,0; 0,1)  v3 (1,1,0; 1,1)
 *   v4 = v3 in every array           v5 (2,2,0; 0,0)  v6 (1,1,0; .5,.5)
 *   v7 (9,9,9; 0,0) no triangle      v8 (5,5,5)  v9 (6,5,5)  v10 (5,6,5)
 *   T0 (0,1,2)  T1 (1,3,4) v3 = v4  T2 (1,1,5) an index twice
 *   T3 (1,3,6) no area, but v3 and v6 differ: kept
 *   T4 (8,8,9) an index twice       T5 (2,3,0)
 *   mesh A: vertices 0+8, triangles 0+4; B: 8+3, 4+1; C: 0+4, 5+1.
 * T1, T2 and T4 go. v4, v5, v8 and v9 were used by them only and go; v7
 * and v10 were used by nothing and stay. New numbers: v0 v1 v2 v3 v6 v7
 * v10 -> 0..6; triangles (0,1,2) (1,3,4) (2,3,0); A keeps T0 and T3
 * (vertices 0+6, triangles 0+2), B loses its only triangle and goes, C
 * keeps T5 (vertices 0+4, triangle 2+1). */
#include "support.h"

#include "core/degenerate.h"

#include <string.h>

static const float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 2, 2, 0,
                                  1, 1, 0, 9, 9, 9, 5, 5, 5, 6, 5, 5, 5, 6, 5};
static const float texcoords[] = {0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0,
                                  0.5f, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0};
static const ossa_triangle triangles[] = {{{0, 1, 2}}, {{1, 3, 4}}, {{1, 1, 5}},
                                          {{1, 3, 6}}, {{8, 8, 9}}, {{2, 3, 0}}};

static ossa_model *build(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, 11, &err), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", positions, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, "", texcoords, &err));
    assert_int_equal(ossa_model_set_triangles(m, 6, triangles, &err), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "A", "", 0, 8, 0, 4, &err) >= 0);
    assert_true(ossa_model_add_mesh(m, "B", "", 8, 3, 4, 1, &err) >= 0);
    assert_true(ossa_model_add_mesh(m, "C", "", 0, 4, 5, 1, &err) >= 0);
    return m;
}

static void which_triangles(void **state)
{
    (void)state;
    ossa_model *m = build();
    const bool want[6] = {false, true, true, false, true, false};
    for (uint32_t t = 0; t < 6; t++) assert_int_equal(ossa__triangle_repeats_vertex(m, t), want[t]);
    ossa_model_free(m);
}

static void dropped_and_renumbered(void **state)
{
    (void)state;
    ossa_model *m = build();
    /* A stored adjacency (a hint, as IQM files hold it): neighbours that go
     * become none, the others take their new numbers; 99 was never one. */
    uint32_t adjacency[18] = {1, 5, OSSA_NO_NEIGHBOR, 0, 0, 0, 0, 0, 0,
                              2, 0, 4,                0, 0, 0, 0, 3, 99};
    m->adjacency = adjacency;
    ossa_error err;
    assert_int_equal(ossa__drop_degenerate(m, &err), OSSA_OK);
    assert_int_equal(m->num_triangles, 3);
    const uint32_t tris[9] = {0, 1, 2, 1, 3, 4, 2, 3, 0};
    assert_memory_equal(m->triangles, tris, sizeof tris);
    assert_int_equal(m->num_vertices, 7);
    float p[21], uv[14];
    assert_int_equal(ossa_vertex_array_read(m, &m->vertex_arrays[0], 0, 7, p), OSSA_OK);
    assert_int_equal(ossa_vertex_array_read(m, &m->vertex_arrays[1], 0, 7, uv), OSSA_OK);
    const uint32_t kept[7] = {0, 1, 2, 3, 6, 7, 10};
    for (int i = 0; i < 7; i++) {
        assert_memory_equal(p + i * 3, positions + kept[i] * 3, 3 * sizeof(float));
        assert_memory_equal(uv + i * 2, texcoords + kept[i] * 2, 2 * sizeof(float));
    }
    assert_int_equal(m->num_meshes, 2);
    assert_string_equal(m->meshes[0].name, "A");
    assert_int_equal(m->meshes[0].first_vertex, 0);
    assert_int_equal(m->meshes[0].num_vertices, 6);
    assert_int_equal(m->meshes[0].first_triangle, 0);
    assert_int_equal(m->meshes[0].num_triangles, 2);
    assert_string_equal(m->meshes[1].name, "C");
    assert_int_equal(m->meshes[1].first_vertex, 0);
    assert_int_equal(m->meshes[1].num_vertices, 4);
    assert_int_equal(m->meshes[1].first_triangle, 2);
    assert_int_equal(m->meshes[1].num_triangles, 1);
    const uint32_t adj[9] = {OSSA_NO_NEIGHBOR, 2, OSSA_NO_NEIGHBOR, OSSA_NO_NEIGHBOR, 0,
                             OSSA_NO_NEIGHBOR, 0, 1, OSSA_NO_NEIGHBOR};
    assert_memory_equal(adjacency, adj, sizeof adj);
    m->adjacency = NULL;
    assert_int_equal(m->num_warnings, 1);
    assert_int_equal(m->warnings[0].code, OSSA_WARNING_IGNORED);
    assert_string_equal(m->warnings[0].message,
                        "3 degenerate triangles (a vertex repeated) dropped (the first: triangle 1 "
                        "of mesh 'A')");
    /* Nothing left to drop: no second warning. */
    assert_int_equal(ossa__drop_degenerate(m, &err), OSSA_OK);
    assert_int_equal(m->num_warnings, 1);
    ossa_model_free(m);
}

/* Through the loader: the model written as IQM (which keeps every
 * triangle) and read back, by default and with OSSA_LOAD_KEEP_DEGENERATE,
 * which validation then reports with the same rule. */
static void count_degenerate(void *user, const ossa_diagnostic *d)
{
    if (d->code == OSSA_PROBLEM_DEGENERATE) {
        assert_string_equal(d->message, "triangle 1 repeats a vertex (and 2 more like it)");
        ++*(int *)user;
    }
}

static void through_the_loader(void **state)
{
    (void)state;
    ossa_model *m = build();
    size_t size;
    unsigned char *iqm = ts_write(m, NULL, &size);
    ossa_model_free(m);
    ossa_error err;
    m = ossa_load_memory(iqm, size, NULL, &err);
    assert_non_null(m);
    assert_int_equal(m->num_triangles, 3);
    assert_int_equal(m->num_vertices, 7);
    assert_int_equal(m->num_meshes, 2);
    assert_int_equal(m->num_warnings, 1);
    assert_non_null(strstr(m->warnings[0].message, "3 degenerate triangles (a vertex repeated) dropped"));
    int found = 0;
    ossa_model_validate(m, count_degenerate, &found, NULL);
    assert_int_equal(found, 0);
    ossa_model_free(m);

    ossa_load_options keep = {.flags = OSSA_LOAD_KEEP_DEGENERATE};
    m = ossa_load_memory(iqm, size, &keep, &err);
    assert_non_null(m);
    assert_int_equal(m->num_triangles, 6);
    assert_int_equal(m->num_vertices, 11);
    assert_int_equal(m->num_meshes, 3);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_validate(m, count_degenerate, &found, NULL);
    assert_int_equal(found, 1);
    ossa_model_free(m);
    ossa_free(iqm, NULL);
}

/* Every allocation failing in turn while loading a model that has
 * degenerate triangles: a clean failure, nothing leaked. */
static void out_of_memory(void **state)
{
    (void)state;
    ossa_model *m = build();
    size_t size;
    unsigned char *iqm = ts_write(m, NULL, &size);
    ossa_model_free(m);
    for (long fail = 0;; fail++) {
        ts_alloc a;
        ts_alloc_init(&a, fail, false);
        ossa_load_options o = {.allocator = &a.allocator};
        ossa_error err;
        m = ossa_load_memory(iqm, size, &o, &err);
        if (m) {
            assert_int_equal(m->num_triangles, 3);
            ossa_model_free(m);
        } else {
            assert_int_equal(err.code, OSSA_ERROR_NOMEM);
        }
        assert_int_equal(a.live, 0);
        if (m) break;
    }
    ossa_free(iqm, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(which_triangles),
        cmocka_unit_test(dropped_and_renumbered),
        cmocka_unit_test(through_the_loader),
        cmocka_unit_test(out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
