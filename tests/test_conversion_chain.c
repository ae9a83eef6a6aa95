/* Conversion chains keep what they carry: a model converted again and
 * again (glTF -> IQE -> IQE -> IQE, glTF -> IQM -> IQE -> IQM) keeps its
 * triangle count after the first step, IQE text written from a model reads
 * back to the same text, and what a reader changes on the way is a load
 * warning (which `ossa info` and `ossa validate` both print), never a
 * silent difference that only validation finds. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Validation findings of one code. */
typedef struct findings {
    ossa_code code;
    uint32_t count;
} findings;

static void count_finding(void *user, const ossa_diagnostic *d)
{
    findings *f = user;
    if (d->code == f->code) f->count++;
}

static uint32_t degenerate_findings(const ossa_model *m)
{
    findings f = {OSSA_PROBLEM_DEGENERATE, 0};
    ossa_model_validate(m, count_finding, &f, NULL);
    return f.count;
}

/* Triangles that repeat a vertex, counted here from the index lists. */
static uint32_t repeated_vertex_triangles(const ossa_model *m)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        const uint32_t *v = m->triangles[t].v;
        n += v[0] == v[1] || v[1] == v[2] || v[0] == v[2];
    }
    return n;
}

static unsigned char *write_as(const ossa_model *m, ossa_format format, size_t *size)
{
    ossa_write_options o = {.format = format, .bounds = OSSA_BOUNDS_NONE};
    return ts_write(m, &o, size);
}

static ossa_model *load_as(const void *data, size_t size, ossa_format format)
{
    ossa_load_options o = {.format = format};
    ossa_error err;
    ossa_model *m = ossa_load_memory(data, size, &o, &err);
    if (!m) print_error("load failed: %s: %s\n", ossa_code_name(err.code), err.message);
    assert_non_null(m);
    return m;
}

/* What a loaded model of the chain must satisfy: no triangle repeats a
 * vertex (so validation finds nothing the load did not report) and no
 * load warning (nothing was changed on the way). */
static void check_clean(const ossa_model *m, const char *step)
{
    if (repeated_vertex_triangles(m) || m->num_warnings)
        print_error("%s: %u triangles repeat a vertex, %u load warnings (first: %s)\n", step,
                    repeated_vertex_triangles(m), m->num_warnings,
                    m->num_warnings ? m->warnings[0].message : "");
    assert_int_equal(repeated_vertex_triangles(m), 0);
    assert_int_equal(degenerate_findings(m), 0);
    assert_int_equal(m->num_warnings, 0);
}

/* robot.glb has 4 triangles whose corners are distinct vertices with equal
 * attributes: one vertex once welded, so the triangles repeat it. IQE once
 * read back with those corners merged (triangles repeating a vertex, found
 * by validate but not reported by the load) and lost them on the next read:
 * 3238, 3238, 3234, 3234 triangles. Every load now drops them, the IQM
 * SDK's rule, with one warning: 3234 from the first read on. */
static void robot_glb_iqe_chain(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("gltf/robot.glb", &file, &size);
    uint32_t triangles = m->num_triangles;
    assert_int_equal(triangles, 3234);
    assert_int_equal(repeated_vertex_triangles(m), 0);
    assert_int_equal(degenerate_findings(m), 0);
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (strstr(m->warnings[i].message, "4 degenerate triangles (a vertex repeated) dropped")) {
            assert_int_equal(m->warnings[i].code, OSSA_WARNING_IGNORED);
            dropped++;
        }
    assert_int_equal(dropped, 1);
    unsigned char *text[3];
    size_t text_size[3];
    for (int pass = 0; pass < 3; pass++) {
        text[pass] = write_as(m, OSSA_FORMAT_IQE, &text_size[pass]);
        ossa_model_free(m);
        m = load_as(text[pass], text_size[pass], OSSA_FORMAT_IQE);
        char step[32];
        snprintf(step, sizeof step, "IQE pass %d", pass + 1);
        check_clean(m, step);
        assert_int_equal(m->num_triangles, triangles);
    }
    /* From the second write on, the text is a fixed point. */
    assert_int_equal(text_size[1], text_size[2]);
    assert_memory_equal(text[1], text[2], text_size[1]);
    for (int pass = 0; pass < 3; pass++) ossa_free(text[pass], NULL);
    ossa_model_free(m);
    free(file);
}

static void robot_glb_iqm_iqe_iqm_chain(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *glb = ts_load_shared("gltf/robot.glb", &file, &size);
    size_t n1, n2, n3;
    unsigned char *iqm = write_as(glb, OSSA_FORMAT_IQM, &n1);
    ossa_model *a = load_as(iqm, n1, OSSA_FORMAT_IQM);
    check_clean(a, "IQM");
    unsigned char *iqe = write_as(a, OSSA_FORMAT_IQE, &n2);
    ossa_model *b = load_as(iqe, n2, OSSA_FORMAT_IQE);
    check_clean(b, "IQM -> IQE");
    unsigned char *iqm2 = write_as(b, OSSA_FORMAT_IQM, &n3);
    ossa_model *c = load_as(iqm2, n3, OSSA_FORMAT_IQM);
    check_clean(c, "IQE -> IQM");
    assert_int_equal(a->num_triangles, glb->num_triangles);
    assert_int_equal(b->num_triangles, glb->num_triangles);
    assert_int_equal(c->num_triangles, glb->num_triangles);
    ossa_model_free(glb);
    ossa_model_free(a);
    ossa_model_free(b);
    ossa_model_free(c);
    ossa_free(iqm, NULL);
    ossa_free(iqe, NULL);
    ossa_free(iqm2, NULL);
    free(file);
}

/* The same situation, small and without the shared data: vertices 1 and 2
 * are equal, and the second face uses both. */
static const char identical_corners[] = "# Inter-Quake Export\n"
                                        "vp 0 0 0\n"
                                        "vp 1 0 0\n"
                                        "vp 1 0 0\n"
                                        "vp 0 1 0\n"
                                        "vn 0 0 1\n"
                                        "vn 0 0 1\n"
                                        "vn 0 0 1\n"
                                        "vn 0 0 1\n"
                                        "fm 0 1 3\n"
                                        "fm 0 2 1\n";

static void identical_corners_weld_and_drop(void **state)
{
    (void)state;
    ossa_model *m = load_as(identical_corners, strlen(identical_corners), OSSA_FORMAT_IQE);
    /* File vertices 1 and 2 weld into one vertex (1): the second face
     * repeats it and goes, with the warning; its vertices stay, the first
     * face uses them. */
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_vertices, 3);
    const uint32_t *t0 = m->triangles[0].v;
    assert_int_equal(t0[0], 0);
    assert_int_equal(t0[1], 1);
    assert_int_equal(t0[2], 2);
    assert_int_equal(m->num_warnings, 1);
    assert_int_equal(m->warnings[0].code, OSSA_WARNING_IGNORED);
    assert_string_equal(m->warnings[0].message,
                        "1 degenerate triangle (a vertex repeated) dropped (the first: triangle 1 "
                        "of mesh '')");
    assert_int_equal(m->meshes[0].num_triangles, 1);
    assert_int_equal(m->meshes[0].num_vertices, 3);
    /* Written and read again: the same text, nothing more dropped. */
    size_t n1, n2;
    unsigned char *a = write_as(m, OSSA_FORMAT_IQE, &n1);
    ossa_model *back = load_as(a, n1, OSSA_FORMAT_IQE);
    check_clean(back, "identical corners, read back");
    assert_int_equal(back->num_triangles, 1);
    unsigned char *b = write_as(back, OSSA_FORMAT_IQE, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    ossa_free(a, NULL);
    ossa_free(b, NULL);
    ossa_model_free(back);
    ossa_model_free(m);
    /* Kept for validation, the second face repeats the welded vertex. */
    ossa_load_options keep = {.format = OSSA_FORMAT_IQE, .flags = OSSA_LOAD_KEEP_DEGENERATE};
    ossa_error err;
    m = ossa_load_memory(identical_corners, strlen(identical_corners), &keep, &err);
    assert_non_null(m);
    assert_int_equal(m->num_triangles, 2);
    assert_int_equal(m->num_warnings, 0);
    assert_int_equal(m->triangles[1].v[1], 1);
    assert_int_equal(m->triangles[1].v[2], 1);
    assert_int_equal(degenerate_findings(m), 1);
    ossa_model_free(m);
}

/* A face that repeats an index has no area and no defined normal: it is
 * dropped, as by the IQM compiler, but with one warning that counts them
 * and names the first. */
static void repeated_index_dropped_with_warning(void **state)
{
    (void)state;
    static const char text[] = "# Inter-Quake Export\n" /* 1 */
                               "vp 0 0 0\n"             /* 2 */
                               "vp 1 0 0\n"             /* 3 */
                               "vp 0 1 0\n"             /* 4 */
                               "fm 0 1 2\n"             /* 5 */
                               "fm 0 0 1\n"             /* 6 */
                               "fm 2 1 2\n";            /* 7 */
    ossa_model *m = load_as(text, strlen(text), OSSA_FORMAT_IQE);
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_warnings, 1);
    assert_int_equal(m->warnings[0].code, OSSA_WARNING_IGNORED);
    assert_int_equal(m->warnings[0].severity, OSSA_SEVERITY_WARNING);
    assert_string_equal(m->warnings[0].message,
                        "2 degenerate triangles (a vertex repeated) dropped (the first: triangle 1 "
                        "of mesh '')");
    ossa_model_free(m);
    /* Without such faces, no warning. */
    static const char clean[] = "# Inter-Quake Export\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n";
    m = load_as(clean, strlen(clean), OSSA_FORMAT_IQE);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);
}

/* A model whose own triangle repeats a vertex (as an IQM file may hold):
 * the IQE written from it loses that triangle once, with the warning, and
 * the chain is stable from there. */
static void model_degenerate_triangle_dropped_once(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    static const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const ossa_triangle tris[] = {{{0, 1, 2}}, {{0, 1, 1}}};
    ossa_error err;
    assert_int_equal(ossa_model_set_num_vertices(m, 3, &err), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3,
                                                       NULL, pos, &err));
    assert_int_equal(ossa_model_set_triangles(m, 2, tris, &err), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "m", "", 0, 3, 0, 2, &err) >= 0);
    size_t n1, n2;
    unsigned char *a = write_as(m, OSSA_FORMAT_IQE, &n1);
    ossa_model *once = load_as(a, n1, OSSA_FORMAT_IQE);
    assert_int_equal(once->num_triangles, 1);
    assert_int_equal(once->num_warnings, 1);
    assert_int_equal(once->warnings[0].code, OSSA_WARNING_IGNORED);
    unsigned char *b = write_as(once, OSSA_FORMAT_IQE, &n2);
    ossa_model *twice = load_as(b, n2, OSSA_FORMAT_IQE);
    assert_int_equal(twice->num_triangles, 1);
    assert_int_equal(twice->num_warnings, 0);
    ossa_free(a, NULL);
    ossa_free(b, NULL);
    ossa_model_free(m);
    ossa_model_free(once);
    ossa_model_free(twice);
}

/* Blend weights written from a model (already summing to 1 in float) read
 * back bit for bit: renormalizing them on every read moved them by an ulp
 * per pass, so IQE -> IQE never reached a fixed point. */
static void normalized_weights_kept(void **state)
{
    (void)state;
    /* As floats, 0.71200234 + 0.2583141 + 0.029683521 is 1 - 1.3125 * 2^-25
     * in double: within the rounding of the weights (half an ulp each,
     * at most 2^-25). Divided by that sum, the last one would become
     * 0.029683523. */
    static const char text[] = "# Inter-Quake Export\n"
                               "joint a -1\npq 0 0 0 0 0 0 1\n"
                               "joint b 0\npq 0 0 0 0 0 0 1\n"
                               "joint c 0\npq 0 0 0 0 0 0 1\n"
                               "vertexarray blendweights float 4\n"
                               "vp 0 0 0\nvb 0 0.71200234 1 0.2583141 2 0.029683521\n"
                               "vp 1 0 0\nvb 0 1\n"
                               "vp 0 1 0\nvb 0 0.5 1 0.5\n"
                               "fm 0 1 2\n";
    ossa_model *m = load_as(text, strlen(text), OSSA_FORMAT_IQE);
    const ossa_vertex_array *w = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    assert_non_null(w);
    assert_int_equal(w->format, OSSA_FLOAT);
    float got[4];
    assert_int_equal(ossa_vertex_array_read(m, w, 0, 1, got), OSSA_OK);
    assert_true(got[0] == 0.71200234f);
    assert_true(got[1] == 0.2583141f);
    assert_true(got[2] == 0.029683521f);
    ossa_model_free(m);
    /* Weights that do not sum to 1 are still renormalized. */
    static const char loose[] = "# Inter-Quake Export\n"
                                "joint a -1\npq 0 0 0 0 0 0 1\n"
                                "joint b 0\npq 0 0 0 0 0 0 1\n"
                                "vertexarray blendweights float 4\n"
                                "vp 0 0 0\nvb 0 0.25 1 0.25\n"
                                "vp 1 0 0\nvb 0 1\n"
                                "vp 0 1 0\nvb 0 1\n"
                                "fm 0 1 2\n";
    m = load_as(loose, strlen(loose), OSSA_FORMAT_IQE);
    w = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    assert_int_equal(ossa_vertex_array_read(m, w, 0, 1, got), OSSA_OK);
    assert_true(got[0] == 0.5f);
    assert_true(got[1] == 0.5f);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(robot_glb_iqe_chain),
        cmocka_unit_test(robot_glb_iqm_iqe_iqm_chain),
        cmocka_unit_test(identical_corners_weld_and_drop),
        cmocka_unit_test(repeated_index_dropped_with_warning),
        cmocka_unit_test(model_degenerate_triangle_dropped_once),
        cmocka_unit_test(normalized_weights_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
