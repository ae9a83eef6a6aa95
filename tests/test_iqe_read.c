/* The IQE reader (docs/formats/iqe.md): every command on small hand-written
 * files with hand-computed expectations, poses, joint order, animations,
 * the comment section, and errors located by line and column. */
#include "iqe_test.h"

static void test_header(void **state)
{
    (void)state;
    expect_error("vp 1 2 3\n", OSSA_ERROR_FORMAT, 1, 1);
    expect_error("\n\n# Inter-Quake\n", OSSA_ERROR_FORMAT, 3, 1);
    ossa_model *m = load("\xEF\xBB\xBF\n  \n# Inter-Quake Export (exported by hand)\n");
    assert_int_equal(m->num_vertices, 0);
    ossa_model_free(m);
    /* Detection by content: BOM, blank lines, text before the '#'. */
    const char *t = "\xEF\xBB\xBF\r\nfile: # Inter-Quake Export\r\n";
    assert_int_equal(ossa_format_detect(t, strlen(t)), OSSA_FORMAT_IQE);
    assert_int_equal(ossa_format_detect("# Inter-Quake", 13), OSSA_FORMAT_AUTO);
    assert_int_equal(ossa_format_from_name("model.IQE"), OSSA_FORMAT_IQE);
    assert_string_equal(ossa_format_name(OSSA_FORMAT_IQE), "iqe");
}

static void test_vertices(void **state)
{
    (void)state;
    /* vp defaults 0 0 0 1 (W not stored by default), vt 0 0, vn 0 0 0;
     * CRLF, tabs, comments and blank lines. */
    ossa_model *m = load("# Inter-Quake Export\r\n"
                         "\r\n"
                         "# a comment\n"
                         "vp 1 2 3\n"
                         "\tvt 0.5 0.25\n"
                         "\tvn 0 0 1\n"
                         "vp 4 5 6 2\r\n"
                         "\tvt 1\n"
                         "\tvn 0 1\n"
                         "vp 7 8   # trailing comment\n"
                         "\tvt 0 1\n"
                         "\tvn 1 0 0 9 9 9\n"
                         "fa 0 1 2\n");
    assert_int_equal(m->num_vertices, 3);
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "");
    assert_string_equal(m->meshes[0].material, "");
    assert_int_equal(array(m, OSSA_VERTEX_POSITION)->size, 3);
    assert_int_equal(array(m, OSSA_VERTEX_POSITION)->format, OSSA_FLOAT);
    EXPECT3(m, OSSA_VERTEX_POSITION, 0, 1, 2, 3);
    EXPECT3(m, OSSA_VERTEX_POSITION, 1, 4, 5, 6);
    EXPECT3(m, OSSA_VERTEX_POSITION, 2, 7, 8, 0);
    float f[8];
    get(m, OSSA_VERTEX_TEXCOORD, NULL, 1, f);
    assert_true(f[0] == 1 && f[1] == 0);
    get(m, OSSA_VERTEX_TEXCOORD, NULL, 0, f);
    assert_true(f[0] == 0.5f && f[1] == 0.25f);
    EXPECT3(m, OSSA_VERTEX_NORMAL, 1, 0, 1, 0);
    EXPECT3(m, OSSA_VERTEX_NORMAL, 2, 1, 0, 0);
    assert_int_equal(m->triangles[0].v[0], 0);
    assert_int_equal(m->triangles[0].v[1], 1);
    assert_int_equal(m->triangles[0].v[2], 2);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);

    /* vertexarray position float 4 keeps W (default 1). */
    m = load("# Inter-Quake Export\nvertexarray position float 4\n"
             "vp 1 2 3\nvp 4 5 6 2\nvp 7 8 9\nfa 0 1 2\n");
    assert_int_equal(array(m, OSSA_VERTEX_POSITION)->size, 4);
    get(m, OSSA_VERTEX_POSITION, NULL, 0, f);
    assert_true(f[3] == 1);
    get(m, OSSA_VERTEX_POSITION, NULL, 1, f);
    assert_true(f[3] == 2);
    ossa_model_free(m);
}

static void test_tangents(void **state)
{
    (void)state;
    /* Normal +Z, tangent +X everywhere; cross(n, t) = +Y. The 6-number
     * form takes the sign of dot(+Y, bitangent). */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vp 0 0 0\nvn 0 0 1\nvx 1 0 0\n"
                         "vp 1 0 0\nvn 0 0 1\nvx 1 0 0 -0.5\n"
                         "vp 1 1 0\nvn 0 0 1\nvx 1 0 0 0 -1 0\n"
                         "vp 0 1 0\nvn 0 0 1\nvx 1 0 0 0 2 0.5\n"
                         "vp 2 2 0\nvn 0 0 1\nvx 1 0 0 0\n"
                         "fa 0 1 2 3\nfa 0 3 4\n");
    const ossa_vertex_array *t = array(m, OSSA_VERTEX_TANGENT);
    assert_int_equal(t->size, 4);
    assert_int_equal(t->format, OSSA_FLOAT);
    static const float w[5] = {1, -1, -1, 1, 1};
    for (uint32_t v = 0; v < 5; v++) {
        float f[4];
        get(m, OSSA_VERTEX_TANGENT, NULL, v, f);
        assert_true(f[0] == 1 && f[1] == 0 && f[2] == 0);
        if (f[3] != w[v]) fail_msg("vertex %u: w %g, expected %g", v, f[3], w[v]);
    }
    assert_int_equal(m->num_triangles, 3); /* fan (0,1,2) (0,2,3), then (0,3,4) */
    ossa_model_free(m);
}

static void test_blend(void **state)
{
    (void)state;
    const char *text = "# Inter-Quake Export\n"
                       "joint a -1\njoint b 0\njoint c 0\njoint d 0\njoint e 0\njoint f 0\n"
                       "vp 0 0 0\nvb 2 0.1 0 0.5 1 0.0005 3 0.2 4 0.3 5 0.4\n"
                       "vp 1 0 0\nvb 1 0.25 1 0.25 0 0.5\n"
                       "vp 0 1 0\nvb\n"
                       "vp 1 1 0\nvb 3\n"
                       "fa 0 1 2\nfa 1 3 2\n";
    ossa_model *m = load(text);
    const ossa_vertex_array *bi = array(m, OSSA_VERTEX_BLENDINDEXES);
    const ossa_vertex_array *bw = array(m, OSSA_VERTEX_BLENDWEIGHTS);
    assert_int_equal(bi->format, OSSA_UBYTE);
    assert_int_equal(bw->format, OSSA_UBYTE);
    assert_int_equal(bi->size, 4);
    const uint8_t *I = bi->data, *W = bw->data;
    /* Vertex 0: 0.0005 dropped; the 4 largest of .5 .4 .3 .2 (.1 goes),
     * over 1.4: 91.07 72.86 54.64 36.43 of 255 -> floors 91 72 54 36 (253),
     * the 2 missing units to the largest remainders (.86, .64). */
    static const uint8_t i0[4] = {0, 5, 4, 3}, w0[4] = {91, 73, 55, 36};
    assert_memory_equal(I, i0, 4);
    assert_memory_equal(W, w0, 4);
    /* Vertex 1: joint 1 repeated -> 0.5, tie with joint 0 keeps file order;
     * 127.5 + 127.5 -> 127 + 127, the missing unit to the lower slot. */
    static const uint8_t i1[4] = {1, 0, 0, 0}, w1[4] = {128, 127, 0, 0};
    assert_memory_equal(I + 4, i1, 4);
    assert_memory_equal(W + 4, w1, 4);
    /* Vertices 2 and 3: no influence (a missing weight is 0). */
    static const uint8_t zero[8] = {0};
    assert_memory_equal(I + 8, zero, 8);
    assert_memory_equal(W + 8, zero, 8);
    ossa_model_free(m);

    /* Two influences kept: .5/.9 and .4/.9 -> 141.67 113.33 -> 142 113. */
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.max_influences = 2;
    m = load_with(text, &o);
    bi = array(m, OSSA_VERTEX_BLENDINDEXES);
    bw = array(m, OSSA_VERTEX_BLENDWEIGHTS);
    assert_int_equal(bi->size, 2);
    I = bi->data;
    W = bw->data;
    assert_int_equal(I[0], 0);
    assert_int_equal(I[1], 5);
    assert_int_equal(W[0], 142);
    assert_int_equal(W[1], 113);
    ossa_model_free(m);

    /* Eight kept while reading, but the float declaration has 4 slots:
     * .5 .4 .3 .2 renormalized over 1.4. */
    o.max_influences = 8;
    char *t2 = malloc(strlen(text) + 64);
    strcpy(t2, "# Inter-Quake Export\nvertexarray blendweights float 4\n");
    strcat(t2, text + strlen("# Inter-Quake Export\n"));
    m = load_with(t2, &o);
    bw = array(m, OSSA_VERTEX_BLENDWEIGHTS);
    assert_int_equal(bw->format, OSSA_FLOAT);
    assert_int_equal(bw->size, 4); /* the declaration limits the slots */
    float f[4];
    get(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, 0, f);
    NEAR(f[0], 0.5 / 1.4, 1e-6);
    NEAR(f[1], 0.4 / 1.4, 1e-6);
    NEAR(f[2], 0.3 / 1.4, 1e-6);
    NEAR(f[3], 0.2 / 1.4, 1e-6);
    ossa_model_free(m);
    free(t2);

    /* A long line: 40 pairs (sorted, not quadratic), joint 5 repeated:
     * 0.02 * 37 others, 5 gets 0.3 + 0.3, 7 gets 0.5: 5 then 7 first. */
    char line[2048] = "# Inter-Quake Export\n";
    for (int j = 0; j < 40; j++) sprintf(line + strlen(line), "joint j%d -1\n", j);
    strcat(line, "vp 0 0 0\nvb 5 0.3");
    for (int j = 0; j < 40; j++)
        if (j != 5 && j != 7) sprintf(line + strlen(line), " %d 0.02", j);
    strcat(line, " 7 0.5 5 0.3\nvp 1 0 0\nvb 0 1\nvp 0 1 0\nvb 0 1\nfa 0 1 2\n");
    m = load(line);
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, f);
    assert_true(f[0] == 5 && f[1] == 7 && f[2] == 0 && f[3] == 1);
    get(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, 0, f);
    /* 0.6 0.5 0.02 0.02 over 1.14 */
    NEAR(f[0], 0.6 / 1.14, 1.0 / 255), NEAR(f[1], 0.5 / 1.14, 1.0 / 255);
    ossa_model_free(m);

    /* A joint above 255 does not fit ubyte indexes; ushort is fine. */
    char big[8192] = "# Inter-Quake Export\n";
    for (int j = 0; j < 300; j++) sprintf(big + strlen(big), "joint j%d -1\n", j);
    strcat(big, "vp 0 0 0\nvb 299 1\nvp 1 0 0\nvb 0 1\nvp 0 1 0\nvb 0 1\nfa 0 1 2\n");
    ossa_error err;
    assert_null(load_opts(big, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    char big2[8300] = "# Inter-Quake Export\nvertexarray blendindexes ushort 4\n";
    strcat(big2, big + strlen("# Inter-Quake Export\n"));
    m = load(big2);
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, f);
    assert_true(f[0] == 299);
    ossa_model_free(m);
}

static void test_colors_custom(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vertexarray custom3 ubyte 2 \"my data\"\n"
                         "vertexarray color float 3\n"
                         "vp 0 0 0\nvc 1 0.5\nv0 1 2\nv3 0.2 1\n"
                         "vp 1 0 0\nvc 0 0 0 0\nv0\nv3\n"
                         "vp 0 1 0\nvc\nv0 -1 -2 -3 -4\nv3 1 1\n"
                         "fa 0 1 2\n");
    float f[4];
    const ossa_vertex_array *c = array(m, OSSA_VERTEX_COLOR);
    assert_int_equal(c->format, OSSA_FLOAT);
    assert_int_equal(c->size, 3);
    get(m, OSSA_VERTEX_COLOR, NULL, 0, f);
    assert_true(f[0] == 1 && f[1] == 0.5f && f[2] == 0);
    const ossa_vertex_array *c0 = ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "custom0");
    assert_non_null(c0);
    assert_int_equal(c0->format, OSSA_FLOAT);
    assert_int_equal(c0->size, 4);
    get(m, OSSA_VERTEX_CUSTOM, "custom0", 2, f);
    assert_true(f[0] == -1 && f[1] == -2 && f[2] == -3 && f[3] == -4);
    get(m, OSSA_VERTEX_CUSTOM, "custom0", 0, f);
    assert_true(f[0] == 1 && f[1] == 2 && f[2] == 0 && f[3] == 0);
    const ossa_vertex_array *c3 = ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "my data");
    assert_non_null(c3);
    assert_int_equal(c3->format, OSSA_UBYTE);
    assert_int_equal(c3->size, 2);
    const uint8_t *b = c3->data;
    /* floor(0.2 * 255 + 0.5) = 51 */
    assert_int_equal(b[0], 51);
    assert_int_equal(b[1], 255);
    assert_int_equal(b[2], 0);
    ossa_model_free(m);

    /* Colour defaults: ubyte x4, missing alpha 1. */
    m = load("# Inter-Quake Export\nvp 0 0 0\nvc 1 0.5\nvp 1 0 0\nvc\nvp 0 1 0\nvc 0 0 1 0.25\n"
             "fa 0 1 2\n");
    c = array(m, OSSA_VERTEX_COLOR);
    assert_int_equal(c->format, OSSA_UBYTE);
    assert_int_equal(c->size, 4);
    static const uint8_t expect[12] = {255, 128, 0, 255, 0, 0, 0, 255, 0, 0, 255, 64};
    assert_memory_equal(c->data, expect, 12);
    ossa_model_free(m);
}

static void test_vertexarray_warnings(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vertexarray bogus float 3\n"
                         "vertexarray texcoord quad 2\n"
                         "vertexarray normal float 7\n"
                         "vertexarray normal half 3\n"
                         "frobnicate 1 2 3\n"
                         "vp 0 0 0\nvt 1 1\nvn 0 0 1\nvp 1 0 0\nvt 1 1\nvn 0 0 1\nvp 0 1 0\nvt 1 1\nvn 0 0 1\n"
                         "fa 0 1 2\n");
    assert_true(has_warning(m, "bogus", 2));
    assert_true(has_warning(m, "quad", 3));
    assert_true(has_warning(m, "7", 4));
    assert_true(has_warning(m, "declared again", 5));
    assert_true(has_warning(m, "frobnicate", 6));
    assert_int_equal(array(m, OSSA_VERTEX_TEXCOORD)->format, OSSA_FLOAT);
    assert_int_equal(array(m, OSSA_VERTEX_NORMAL)->size, 3);
    assert_int_equal(array(m, OSSA_VERTEX_NORMAL)->format, OSSA_FLOAT);
    ossa_model_free(m);
}

static void test_faces(void **state)
{
    (void)state;
    /* fm counts from the mesh's first vertex; negative indices count back
     * from the last vertex read, in fa and fm alike; repeated indices drop
     * the triangle; unreferenced vertex 1 goes. */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vp 0 0 0\nvp 1 0 0\n"
                         "mesh a\n"
                         "vp 0 1 0\nvp 1 1 0\nvp 2 2 0\n"
                         "fm 0 1 2\n"
                         "fa -1 -2 0\n"
                         "fm -3 1 0\n"
                         "fm 0 1\n");
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "a");
    assert_int_equal(m->num_vertices, 4);
    /* File order of the used vertices 0 2 3 4. */
    EXPECT3(m, OSSA_VERTEX_POSITION, 0, 0, 0, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, 1, 0, 1, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, 2, 1, 1, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, 3, 2, 2, 0);
    assert_int_equal(m->num_triangles, 2);
    static const uint32_t t[6] = {1, 2, 3, 3, 2, 0};
    for (int i = 0; i < 6; i++) assert_int_equal(m->triangles[i / 3].v[i % 3], t[i]);
    ossa_model_free(m);

    /* Polygons are fans; indices may point forward. */
    m = load("# Inter-Quake Export\nfa 0 1 2 3 4\n"
             "vp 0 0 0\nvp 1 0 0\nvp 2 1 0\nvp 1 2 0\nvp 0 1 0\n");
    assert_int_equal(m->num_triangles, 3);
    static const uint32_t fan[9] = {0, 1, 2, 0, 2, 3, 0, 3, 4};
    for (int i = 0; i < 9; i++) assert_int_equal(m->triangles[i / 3].v[i % 3], fan[i]);
    ossa_model_free(m);
}

static void test_soup(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n"
                         "mesh s\nmaterial m\n"
                         "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 2 0 0\nvp 3 0 0\nvp 2 1 0\nvp 9 9 9\n"
                         "mesh t\n"
                         "vp 0 0 1\nvp 1 0 1\nvp 0 1 1\n");
    assert_int_equal(m->num_meshes, 2);
    assert_string_equal(m->meshes[0].name, "s");
    assert_string_equal(m->meshes[0].material, "m");
    assert_int_equal(m->meshes[0].num_triangles, 2);
    assert_string_equal(m->meshes[1].name, "t");
    assert_string_equal(m->meshes[1].material, "m"); /* mesh does not reset it */
    assert_int_equal(m->meshes[1].num_triangles, 1);
    assert_int_equal(m->num_vertices, 9);
    assert_true(has_warning(m, "left over", 0));
    ossa_model_free(m);
}

static void test_mesh_merge(void **state)
{
    (void)state;
    /* Every (name, material) pair is one mesh wherever its faces are,
     * including after a mesh with no faces in between (docs/formats/iqm.md §14, bug 2). */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 1 1 0\n"
                         "mesh A\nmaterial m1\nfa 0 1 2\n"
                         "mesh B\nfa 1 3 2\n"
                         "mesh A\nfa 0 3 1\n"
                         "mesh C\nmesh A\nfa 0 2 3\n"
                         "material m2\nfa 2 1 0\n"
                         "mesh \"A\"\nmaterial \"m1\"\nfa 3 2 1\n");
    assert_int_equal(m->num_meshes, 3);
    assert_string_equal(m->meshes[0].name, "A");
    assert_string_equal(m->meshes[0].material, "m1");
    assert_int_equal(m->meshes[0].num_triangles, 4);
    assert_string_equal(m->meshes[1].name, "B");
    assert_string_equal(m->meshes[1].material, "m1");
    assert_int_equal(m->meshes[1].num_triangles, 1);
    assert_string_equal(m->meshes[2].name, "A");
    assert_string_equal(m->meshes[2].material, "m2");
    assert_int_equal(m->meshes[2].num_triangles, 1);
    /* Each mesh has its own vertices: 4 + 3 + 3. */
    assert_int_equal(m->num_vertices, 10);
    assert_int_equal(m->meshes[1].first_vertex, 4);
    assert_int_equal(m->meshes[2].first_vertex, 7);
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        const ossa_mesh *me = &m->meshes[i];
        for (uint32_t t = me->first_triangle; t < me->first_triangle + me->num_triangles; t++)
            for (int k = 0; k < 3; k++) {
                assert_true(m->triangles[t].v[k] >= me->first_vertex);
                assert_true(m->triangles[t].v[k] < me->first_vertex + me->num_vertices);
            }
    }
    /* Quoted names with spaces. */
    ossa_model_free(m);
    m = load("# Inter-Quake Export\nmesh \"left arm\"\n\tmaterial \"skin 2.png\"\n"
             "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n");
    assert_string_equal(m->meshes[0].name, "left arm");
    assert_string_equal(m->meshes[0].material, "skin 2.png");
    ossa_model_free(m);
}

/* No line length limit (the compiler splits lines at 511 bytes). */
static void test_long_lines(void **state)
{
    (void)state;
    size_t cap = 40000;
    char *t = malloc(cap);
    strcpy(t, "# Inter-Quake Export\nmesh \"");
    for (int i = 0; i < 3000; i++) strcat(t, "ab");
    strcat(t, "\"\nvp 1");
    for (int i = 0; i < 2000; i++) strcat(t, " \t");
    strcat(t, "2 3\nvp 4 5 6\nvp 7 8 9\nfa 0 1 2");
    for (int i = 0; i < 1500; i++) strcat(t, "     ");
    strcat(t, "\n");
    ossa_model *m = load(t);
    assert_int_equal(strlen(m->meshes[0].name), 6000);
    EXPECT3(m, OSSA_VERTEX_POSITION, 0, 1, 2, 3);
    assert_int_equal(m->num_triangles, 1);
    ossa_model_free(m);
    free(t);
}

static void test_dedup(void **state)
{
    (void)state;
    /* Vertices 0 and 3 are identical, 4 differs from 0 only by its
     * tangent, 5 from 0 only by W: 0/3 merge, 4 and 5 stay. */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vp 0 0 0\nvn 0 0 1\nvx 1 0 0 1\n"
                         "vp 1 0 0\nvn 0 0 1\nvx 1 0 0 1\n"
                         "vp 0 1 0\nvn 0 0 1\nvx 1 0 0 1\n"
                         "vp 0 0 0\nvn 0 0 1\nvx 1 0 0 1\n"
                         "vp 0 0 0\nvn 0 0 1\nvx 1 0 0 -1\n"
                         "vp 0 0 0 2\nvn 0 0 1\nvx 1 0 0 1\n"
                         "fa 0 1 2\nfa 3 1 2\nfa 4 1 2\nfa 5 1 2\n");
    assert_int_equal(m->num_vertices, 5);
    assert_int_equal(m->num_triangles, 4);
    assert_int_equal(m->triangles[1].v[0], m->triangles[0].v[0]);
    assert_true(m->triangles[2].v[0] != m->triangles[0].v[0]);
    assert_true(m->triangles[3].v[0] != m->triangles[0].v[0]);
    ossa_model_free(m);
}

/* The same faces as data, with their outward normals. */

static void test_poses(void **state)
{
    (void)state;
    const double h = sqrt(0.5);
    ossa_model *m = load("# Inter-Quake Export\n"
                         "joint a -1\npq 1 2 3 0.6 0 0\n"
                         "joint b 0\npq 0 0 0 0 0 0 2\n"
                         "joint c 0\npq 0 0 0 0 0 0 0\n"
                         "joint d 0\npq 0 0 0 0 0 0 -1 2 3 4\n"
                         "joint e 0\npq 0 0 0 0 0 0 -1 2\n"
                         "joint f 0\npm 0 0 0  0 -3 0  2 0 0  0 0 4\n"
                         "joint g 0\npm 0 0 0  0 -3 0  2 0 0  0 0 -4 2 2 2\n"
                         "joint h 0\npa 0 0 0 1.5707963267948966 0 1.5707963267948966\n"
                         "joint i 0\npq 0 0 0 0 0 0.6 0.80001\n"
                         "joint \"j k\" 0\n");
    assert_int_equal(m->num_joints, 10);
    const ossa_transform *t = &m->joints[0].bind;
    assert_true(t->translation[0] == 1 && t->translation[1] == 2 && t->translation[2] == 3);
    /* Missing Qw: -sqrt(1 - 0.36) = -0.8 */
    QUAT_NEAR(t->rotation, 0.6, 0, 0, -0.8);
    assert_true(t->rotation[3] < 0);
    assert_true(t->scale[0] == 1 && t->scale[1] == 1 && t->scale[2] == 1);
    QUAT_NEAR(m->joints[1].bind.rotation, 0, 0, 0, 1); /* normalized */
    QUAT_NEAR(m->joints[2].bind.rotation, 0, 0, 0, 1); /* zero length: identity */
    t = &m->joints[3].bind;
    assert_true(t->scale[0] == 2 && t->scale[1] == 3 && t->scale[2] == 4);
    t = &m->joints[4].bind;
    assert_true(t->scale[0] == 2 && t->scale[1] == 1 && t->scale[2] == 1);
    /* pm rows (0 -3 0) (2 0 0) (0 0 4) = R * diag(2 3 4), R = +90 deg about Z. */
    t = &m->joints[5].bind;
    QUAT_NEAR(t->rotation, 0, 0, h, h);
    NEAR(t->scale[0], 2, 1e-6), NEAR(t->scale[1], 3, 1e-6), NEAR(t->scale[2], 4, 1e-6);
    /* det < 0: all column lengths negated, R = -90 deg about Z, times S. */
    t = &m->joints[6].bind;
    QUAT_NEAR(t->rotation, 0, 0, -h, h);
    NEAR(t->scale[0], -4, 1e-6), NEAR(t->scale[1], -6, 1e-6), NEAR(t->scale[2], -8, 1e-6);
    /* pa: X by 90 deg, then Z by 90 deg (fixed axes): X -> Y, Y -> Z. */
    float mat[16];
    ossa_transform_to_matrix(&m->joints[7].bind, mat);
    NEAR(mat[0], 0, 1e-6), NEAR(mat[1], 1, 1e-6), NEAR(mat[2], 0, 1e-6);
    NEAR(mat[4], 0, 1e-6), NEAR(mat[5], 0, 1e-6), NEAR(mat[6], 1, 1e-6);
    /* Near-unit quaternions are kept as written. */
    t = &m->joints[8].bind;
    assert_true(t->rotation[2] == 0.6f && t->rotation[3] == 0.80001f);
    /* No base pose: identity with w = -1, and a warning. */
    assert_string_equal(m->joints[9].name, "j k");
    QUAT_NEAR(m->joints[9].bind.rotation, 0, 0, 0, -1);
    assert_true(m->joints[9].bind.rotation[3] == -1);
    assert_true(has_warning(m, "no base pose", 0));
    ossa_model_free(m);

    /* Extra base poses are ignored with a warning at the first one. */
    m = load("# Inter-Quake Export\njoint a -1\npq 1 0 0 0 0 0 -1\npq 2 0 0 0 0 0 -1\n");
    assert_true(m->joints[0].bind.translation[0] == 1);
    assert_true(has_warning(m, "extra", 4));
    ossa_model_free(m);
}

static void test_joint_order(void **state)
{
    (void)state;
    /* "child" names a later parent: the joints become root, child, leaf
     * and everything indexed by joint follows. Poses pair with joints in
     * file order. */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "joint child 1\njoint root -1\njoint leaf 0\n"
                         "pq 1 0 0 0 0 0 -1\npq 2 0 0 0 0 0 -1\npq 3 0 0 0 0 0 -1\n"
                         "vp 0 0 0\nvb 0 1\nvp 1 0 0\nvb 1 1\nvp 0 1 0\nvb 2 0.75 0 0.25\n"
                         "fa 0 1 2\n"
                         "animation a\n"
                         "pq 10 0 0 0 0 0 -1\npq 20 0 0 0 0 0 -1\npq 30 0 0 0 0 0 -1\n");
    assert_int_equal(m->num_joints, 3);
    assert_string_equal(m->joints[0].name, "root");
    assert_int_equal(m->joints[0].parent, -1);
    assert_string_equal(m->joints[1].name, "child");
    assert_int_equal(m->joints[1].parent, 0);
    assert_string_equal(m->joints[2].name, "leaf");
    assert_int_equal(m->joints[2].parent, 1);
    assert_true(m->joints[0].bind.translation[0] == 2);
    assert_true(m->joints[1].bind.translation[0] == 1);
    assert_true(m->joints[2].bind.translation[0] == 3);
    float f[4];
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, f);
    assert_true(f[0] == 1);
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 1, f);
    assert_true(f[0] == 0);
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 2, f);
    assert_true(f[0] == 2 && f[1] == 1);
    const ossa_transform *fr = m->animations[0].frames;
    assert_true(fr[0].translation[0] == 20 && fr[1].translation[0] == 10 &&
                fr[2].translation[0] == 30);
    assert_true(has_warning(m, "reordered", 0));
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    ossa_model_free(m);
}

static void test_animations(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n"
                         "loop\nframerate 5\nframe\n"
                         "joint r -1\npq 0 0 0 0 0 0 -1\n"
                         "joint c 0\npq 1 0 0 0 0 0 -1 2 2 2\n"
                         "animation \"walk fast\"\n"
                         "\tframerate 24\n\tloop\n"
                         "frame\nframe\n"
                         "pq 5 0 0 0 0 0 -1\npq 6 0 0 0 0 0 -1\n"
                         "frame\n"
                         "pq 7 0 0 0 0 0 -1\n"
                         "frame 2\n"
                         "pq 8 0 0 0 0 0 -1\npq 9 0 0 0 0 0 -1\npq 10 0 0 0 0 0 -1\n"
                         "animation\nframerate -5\n"
                         "pq 1 1 1 0 0 0 -1 3 3 3\npq 2 2 2 0 0 0 -1\n"
                         "animation empty\nframe\nframe\n");
    assert_int_equal(m->num_animations, 3);
    const ossa_animation *a = &m->animations[0];
    assert_string_equal(a->name, "walk fast");
    assert_int_equal(a->num_frames, 3);
    assert_true(a->framerate == 24);
    assert_int_equal(a->flags, OSSA_ANIMATION_LOOP);
    assert_true(a->frames[0].translation[0] == 5 && a->frames[1].translation[0] == 6);
    assert_true(a->frames[1].scale[0] == 1); /* a 7-number pq has scale 1 */
    /* frame 1: c padded with its base pose */
    assert_true(a->frames[2].translation[0] == 7 && a->frames[3].translation[0] == 1);
    assert_true(a->frames[3].scale[0] == 2);
    assert_true(a->frames[4].translation[0] == 8 && a->frames[5].translation[0] == 9);
    /* Frames are located by their first pose. */
    assert_true(has_warning(m, "fewer poses", 17));
    assert_true(has_warning(m, "more poses", 19));
    a = &m->animations[1];
    assert_string_equal(a->name, "");
    assert_true(a->framerate == 0);
    assert_int_equal(a->flags, 0);
    assert_int_equal(a->num_frames, 1);
    assert_true(a->frames[0].scale[1] == 3 && a->frames[1].translation[2] == 2);
    assert_int_equal(m->animations[2].num_frames, 0);
    ossa_model_free(m);
}

/* A few bytes per frame cannot stand for gigabytes of padded frames. */
static void test_decode_limit(void **state)
{
    (void)state;
    size_t cap = 600000, n = 0;
    char *t = malloc(cap);
    n += (size_t)sprintf(t + n, "# Inter-Quake Export\n");
    for (int j = 0; j < 20000; j++) n += (size_t)sprintf(t + n, "joint j -1\n");
    n += (size_t)sprintf(t + n, "animation a\n");
    while (n + 10 < cap) n += (size_t)sprintf(t + n, "frame\npq\n"); /* 20000 x 40 bytes each */
    ossa_error err;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQE;
    assert_null(ossa_load_memory(t, n, &o, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_int_equal(err.line, 20002);
    free(t);
}

static void test_comment(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\njoint a -1\ncomment\nHello\n world\nvp 1 2 3\n");
    assert_int_equal(m->num_vertices, 0);
    assert_int_equal(m->comment_size, strlen("Hello\n world\nvp 1 2 3\n"));
    assert_memory_equal(m->comment, "Hello\n world\nvp 1 2 3\n", m->comment_size);
    ossa_model_free(m);
}

/* -- Errors (file:line:column) -- */

static void test_errors(void **state)
{
    (void)state;
#define H "# Inter-Quake Export\n"
#define TRI "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\n"
    expect_error(H "vp 1 x 3\n", OSSA_ERROR_CORRUPT, 2, 6);
    expect_error(H TRI "fa 0 1 -9\n", OSSA_ERROR_CORRUPT, 5, 8);
    expect_error(H TRI "fa 0 1 7\nvp 1 1 1\n", OSSA_ERROR_CORRUPT, 5, 8);
    expect_error(H TRI "fm 0 1.5 2\n", OSSA_ERROR_CORRUPT, 5, 6);
    expect_error(H "joint a -1\n\tpq 0 0 0 0 0 0 1 abc\n", OSSA_ERROR_CORRUPT, 3, 19);
    expect_error(H "joint a -1\nvp 0 0 0\nvb 0 0.5 3 0.5\n", OSSA_ERROR_CORRUPT, 4, 10);
    expect_error(H "joint a -1\nvp 0 0 0\nvb 0 x\n", OSSA_ERROR_CORRUPT, 4, 6);
    expect_error(H "joint a 5\n", OSSA_ERROR_CORRUPT, 2, 9);
    expect_error(H "joint a 1\njoint b 7\n", OSSA_ERROR_CORRUPT, 3, 9); /* found via a */
    expect_error(H "joint a 1\njoint b 0\n", OSSA_ERROR_CORRUPT, 3, 9);
    expect_error(H "vp\nvn 0 0 1\nvp\nvp\nfa 0 1 2\n", OSSA_ERROR_CORRUPT, 3, 1);
    expect_error(H "vertexarray position float x\n", OSSA_ERROR_CORRUPT, 2, 28);
    expect_error(H "smoothgroup abc\n", OSSA_ERROR_CORRUPT, 2, 13);
    expect_error(H "animation a\nframerate fast\n", OSSA_ERROR_CORRUPT, 3, 11);
    expect_error(H "\n\n  vt 1 2e\n", OSSA_ERROR_CORRUPT, 4, 8);
    /* Tokens after the last possible argument are ignored. */
    ossa_model *m = load(H "vt 1 2 3e\nvp\nvp\nvp\nvt\nvt\nfa 0 1 2\n");
    ossa_model_free(m);
    /* The message names the command and the token; the file name is the
     * loader's. */
    ossa_error err;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = "guy.iqe";
    assert_null(load_opts(H "vp 1 x 3\n", &o, &err));
    char buf[600];
    ossa_error_format(&err, buf, sizeof buf);
    assert_non_null(strstr(buf, "guy.iqe:2:6: "));
    assert_non_null(strstr(buf, "'vp'"));
    assert_non_null(strstr(buf, "'x'"));
#undef H
#undef TRI
}

/* -- test_cube.iqe (love-und-panzer) -- */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_vertices),
        cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_blend),
        cmocka_unit_test(test_colors_custom),
        cmocka_unit_test(test_vertexarray_warnings),
        cmocka_unit_test(test_faces),
        cmocka_unit_test(test_soup),
        cmocka_unit_test(test_mesh_merge),
        cmocka_unit_test(test_dedup),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_poses),
        cmocka_unit_test(test_joint_order),
        cmocka_unit_test(test_animations),
        cmocka_unit_test(test_decode_limit),
        cmocka_unit_test(test_comment),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
