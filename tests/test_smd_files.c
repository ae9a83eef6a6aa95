/* SMD on real files and through the writer: the shared samples' counts,
 * the exact text the writer gives for a model built here, reference plus
 * sequence files merged, round trips smd -> model -> smd -> model and
 * guy.iqm -> smd -> iqm, and the files one write makes. */
#include "text_format_test.h"

#include <sys/stat.h>
#include <unistd.h>

#define SMD OSSA_FORMAT_SMD

/* -- Real files (docs/formats/smd.md §16) -- */

static void test_triangle_smd(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("smd/triangle.smd");
    assert_int_equal(m->source_format, OSSA_FORMAT_SMD);
    assert_int_equal(m->num_joints, 1);
    assert_string_equal(m->joints[0].name, "TriangleTest0");
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_vertices, 3);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "none");
    assert_string_equal(m->meshes[0].material, "none.quak");
    assert_int_equal(m->num_animations, 0);
    assert_int_equal(m->num_warnings, 0);
    /* 9-field lines: bone 0 with full weight; normals (1,1,1) normalized;
     * the file's (0,0,0) (1,0,0) (1,1,0) reversed */
    float p[8], n[8], w[8];
    tf_get(m, OSSA_VERTEX_POSITION, m->triangles[0].v[0], p);
    TF_NEAR(p[0], 1, 0);
    TF_NEAR(p[1], 1, 0);
    tf_get(m, OSSA_VERTEX_POSITION, m->triangles[0].v[2], p);
    TF_NEAR(p[0], 0, 0);
    tf_get(m, OSSA_VERTEX_NORMAL, 0, n);
    TF_NEAR(n[0], 1 / sqrt(3), 1e-7);
    tf_get(m, OSSA_VERTEX_BLENDWEIGHTS, 0, w);
    TF_NEAR(w[0], 1, 0);
    ossa_model_validate(m, NULL, NULL, NULL);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    ossa_model_free(m);
}

static void test_holy_grail(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("smd/holy_grailref.smd");
    assert_int_equal(m->num_joints, 1);
    assert_string_equal(m->joints[0].name, "Cylinder01");
    TF_NEAR(m->joints[0].bind.translation[2], 6.268408, 1e-6);
    assert_int_equal(m->num_triangles, 896);
    /* 511 distinct vertices, as the IQM SDK counts them */
    assert_int_equal(m->num_vertices, 511);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "holygrail");
    assert_string_equal(m->meshes[0].material, "holygrail.tga");
    /* 450 distinct positions; texture coordinates within 0..1 */
    float (*pos)[3] = malloc(m->num_vertices * sizeof *pos);
    assert_non_null(pos);
    uint32_t distinct = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[8], t[8];
        tf_get(m, OSSA_VERTEX_POSITION, v, p);
        tf_get(m, OSSA_VERTEX_TEXCOORD, v, t);
        assert_true(t[0] >= 0 && t[0] <= 1 && t[1] >= 0 && t[1] <= 1);
        bool seen = false;
        for (uint32_t i = 0; i < distinct && !seen; i++)
            seen = pos[i][0] == p[0] && pos[i][1] == p[1] && pos[i][2] == p[2];
        if (!seen) memcpy(pos[distinct++], p, sizeof pos[0]);
    }
    assert_int_equal(distinct, 450);
    free(pos);
    /* every normal agrees with its triangle's winding (front faces
     * clockwise in ossa): the reversal of §6 */
    uint32_t agree = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        float a[8], b[8], c[8], n[8];
        tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[0], a);
        tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[1], b);
        tf_get(m, OSSA_VERTEX_POSITION, m->triangles[t].v[2], c);
        tf_get(m, OSSA_VERTEX_NORMAL, m->triangles[t].v[0], n);
        double e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = c[k] - a[k];
            e2[k] = b[k] - a[k];
        }
        double f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        agree += f[0] * n[0] + f[1] * n[1] + f[2] * n[2] > 0;
    }
    assert_int_equal(agree, 896);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    ossa_model_free(m);
}

/* -- The writer's text, worked out by hand (§12) -- */

static ossa_model *small_model(void)
{
    ts_joint joints[2] = {{"root", -1, ossa_transform_identity(), true},
                          {"child \"x\"", 0, ossa_transform_identity(), true}};
    joints[1].pose.translation[0] = 1;
    joints[1].pose.rotation[2] = (float)sqrt(0.5); /* 90 degrees about Z */
    joints[1].pose.rotation[3] = (float)sqrt(0.5);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 2, 0.5f};
    static const float nrm[9] = {0, 0, -1, 0, 0, -1, 0, 0, -1};
    static const float uv[6] = {0, 0, 1, 0.25f, 0.5f, 1};
    static const float idx[12] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const float wgt[12] = {1, 0, 0, 0, 0.75f, 0.25f, 0, 0, 1, 0, 0, 0};
    static const ts_array arrays[5] = {{OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos},
                                       {OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm},
                                       {OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv},
                                       {OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, idx},
                                       {OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL, wgt}};
    static const ossa_triangle tri = {{0, 1, 2}};
    static const ts_mesh body = {"body", "my skin.tga", 0, 3, 0, 1};
    ts_model_spec spec = {.num_joints = 2, .joints = joints, .num_vertices = 3, .num_arrays = 5,
                          .arrays = arrays, .num_triangles = 1, .triangles = &tri,
                          .num_meshes = 1, .meshes = &body};
    return ts_model_build(&spec);
}

typedef struct seen {
    int count;
    ossa_code codes[16];
    char paths[8][512];
    int num_paths;
} seen;

static void on_diagnostic(void *user, const ossa_diagnostic *d)
{
    seen *s = user;
    if (s->count < 16) s->codes[s->count] = d->code;
    s->count++;
}

static void on_wrote(void *user, const char *path)
{
    seen *s = user;
    if (s->num_paths < 8) snprintf(s->paths[s->num_paths++], sizeof s->paths[0], "%s", path);
}

static bool saw(const seen *s, ossa_code code)
{
    for (int i = 0; i < s->count && i < 16; i++)
        if (s->codes[i] == code) return true;
    return false;
}

/* m written as SMD text, its diagnostics collected in *s. */
static char *write_seen(const ossa_model *m, seen *s)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = SMD;
    memset(s, 0, sizeof *s);
    o.diagnostic = on_diagnostic;
    o.user = s;
    size_t size;
    return tf_write(m, &o, &size);
}

static void test_writer_text(void **state)
{
    (void)state;
    ossa_model *m = small_model();
    seen s;
    char *text = write_seen(m, &s);
    /* Bones in joint order with '"' replaced; the bind pose with angles
     * (0, 0, pi/2); corners reversed (2, 1, 0), v flipped, the parent
     * column the strongest bone, links largest first; the material without
     * its blank. */
    static const char expected[] =
        "version 1\n"
        "nodes\n"
        "0 \"root\" -1\n"
        "1 \"child 'x'\" 0\n"
        "end\n"
        "skeleton\n"
        "time 0\n"
        "0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
        "1 1.000000 0.000000 0.000000 0.000000 0.000000 1.570796\n"
        "end\n"
        "triangles\n"
        "my_skin.tga\n"
        "1 0.000000 2.000000 0.500000 0.000000 0.000000 -1.000000 0.500000 0.000000 1 1 1.000000\n"
        "1 1.000000 0.000000 0.000000 0.000000 0.000000 -1.000000 1.000000 0.750000 2 1 0.750000 0 0.250000\n"
        "0 0.000000 0.000000 0.000000 0.000000 0.000000 -1.000000 0.000000 1.000000 1 0 1.000000\n"
        "end\n";
    if (strcmp(text, expected) != 0) print_error("%s", text);
    assert_string_equal(text, expected);
    assert_true(saw(&s, OSSA_WARNING_RENAMED)); /* the name, the material */
    free(text);

    /* and it reads back: the same joints, triangle, weights */
    ossa_model *again = tf_load_with(SMD, expected, NULL);
    assert_string_equal(again->joints[1].name, "child 'x'");
    TF_QUAT(again->joints[1].bind.rotation, 0, 0, sqrt(0.5), sqrt(0.5), 1e-6);
    float p[8], w[8], i[8];
    tf_get(again, OSSA_VERTEX_POSITION, again->triangles[0].v[1], p);
    TF_NEAR(p[0], 1, 0);
    tf_get(again, OSSA_VERTEX_BLENDWEIGHTS, again->triangles[0].v[1], w);
    tf_get(again, OSSA_VERTEX_BLENDINDEXES, again->triangles[0].v[1], i);
    TF_NEAR(i[0], 1, 0);
    TF_NEAR(w[0], 0.75, 1.0 / 255);
    ossa_model_free(again);
    ossa_model_free(m);

    /* a model without joints gets one bone "root" */
    m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, NULL), OSSA_OK);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, NULL));
    ossa_triangle tri = {{0, 1, 2}};
    assert_int_equal(ossa_model_set_triangles(m, 1, &tri, NULL), OSSA_OK);
    text = write_seen(m, &s);
    /* no mesh: the material is "no_material"; no normals: generated (the
     * clockwise triangle (0,0,0) (1,0,0) (0,1,0) faces -z) */
    assert_non_null(strstr(text, "nodes\n0 \"root\" -1\nend\n"));
    assert_non_null(strstr(text, "triangles\nno_material\n0 0.000000 1.000000 0.000000 "
                                 "0.000000 0.000000 -1.000000 0.000000 1.000000 1 0 1.000000\n"));
    free(text);
    ossa_model_free(m);
}

/* More influences than studiomdl reads: the 4 largest, renormalized. */
static void test_writer_links(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    for (int j = 0; j < 6; j++) {
        char name[8];
        snprintf(name, sizeof name, "b%d", j);
        assert_int_equal(ossa_model_add_joint(m, name, j ? 0 : -1, &t, NULL), j);
    }
    assert_int_equal(ossa_model_set_num_vertices(m, 3, NULL), OSSA_OK);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const float idx[18] = {0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const float wgt[18] = {0.05f, 0.1f, 0.15f, 0.2f, 0.25f, 0.25f, 1, 0, 0, 0, 0, 0,
                                  1, 0, 0, 0, 0, 0};
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 6, NULL, idx, NULL));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 6, NULL, wgt, NULL));
    ossa_triangle tri = {{0, 1, 2}};
    assert_int_equal(ossa_model_set_triangles(m, 1, &tri, NULL), OSSA_OK);
    seen s;
    char *text = write_seen(m, &s);
    /* b4 .25, b5 .25, b3 .2, b2 .15 of 0.85; ties by bone; the parent
     * column is b4 */
    assert_non_null(strstr(text, " 4 4 0.294118 5 0.294118 3 0.235294 2 0.176471\n"));
    assert_non_null(strstr(text, "\n4 0.000000 0.000000 0.000000 "));
    assert_true(saw(&s, OSSA_WARNING_LIMITED));
    free(text);
    ossa_model_free(m);
}

/* SMD has no scale: a root scaled by 2 in the bind pose (the same in every
 * pose, as the model has no animation) is baked (core/scale.h): the root
 * is written unscaled and its child's translation (1, 0, 0) doubled, the
 * mesh where it was. A value that is not finite still fails the write. */
static void test_writer_bakes_scale(void **state)
{
    (void)state;
    ossa_model *m = small_model();
    for (int k = 0; k < 3; k++) m->joints[0].bind.scale[k] = 2; /* (tests may poke at a model they own) */
    seen s;
    char *text = write_seen(m, &s);
    assert_non_null(strstr(text, "time 0\n"
                                 "0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
                                 "1 2.000000 0.000000 0.000000 0.000000 0.000000 1.570796\n"));
    assert_non_null(strstr(text, "\n1 0.000000 2.000000 0.500000 "));
    assert_int_equal(s.count, 2); /* the renamed joint and material: nothing about scale */
    free(text);

    m->joints[1].bind.translation[1] = NAN;
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = SMD;
    void *data;
    size_t size;
    ossa_error err;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    ossa_model_free(m);
}

/* -- Reference and sequence files merged (§10) -- */

static const char ref_text[] = "version 1\nnodes\n0 \"root\" -1\n1 \"child\" 0\nend\nskeleton\ntime 0\n"
                               "0 0 0 0 0 0 0\n1 0 0 1 0 0 0\nend\ntriangles\nm\n"
                               "0 0 0 0 0 0 1 0 0\n1 1 0 0 0 0 1 0 0\n1 0 1 0 0 0 1 0 0\nend\n";
/* the bones in the opposite id order: binding by index would move root */
static const char walk_text[] = "version 1\nnodes\n0 \"child\" 1\n1 \"root\" -1\nend\nskeleton\n"
                                "time 0\n1 0 0 0 0 0 0\n0 0 0 1 0 0 0\ntime 1\n0 0 0 2 0 0 0\n"
                                "end\n";

static void test_merge(void **state)
{
    (void)state;
    ossa_model *ref = tf_load_with(SMD, ref_text, NULL);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = "anims/walk.smd";
    ossa_model *walk = tf_load_with(SMD, walk_text, &o);
    ossa_error err;
    assert_int_equal(ossa_model_merge(ref, walk, &err), OSSA_OK);
    assert_int_equal(ref->num_animations, 1);
    const ossa_animation *a = &ref->animations[0];
    assert_string_equal(a->name, "walk");
    assert_int_equal(a->num_frames, 2);
    /* child (joint 1) moves to z = 1, 2; root stays */
    TF_NEAR(a->frames[0 * 2 + 1].translation[2], 1, 0);
    TF_NEAR(a->frames[1 * 2 + 1].translation[2], 2, 0);
    TF_NEAR(a->frames[1 * 2 + 0].translation[2], 0, 0);
    ossa_model_free(walk);
    ossa_model_free(ref);
}

/* -- Round trips -- */

static void compare_meshes(const ossa_model *a, const ossa_model *b, double tol)
{
    assert_int_equal(a->num_vertices, b->num_vertices);
    assert_int_equal(a->num_triangles, b->num_triangles);
    assert_int_equal(a->num_meshes, b->num_meshes);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        assert_string_equal(a->meshes[i].material, b->meshes[i].material);
        assert_int_equal(a->meshes[i].num_triangles, b->meshes[i].num_triangles);
    }
    for (uint32_t t = 0; t < a->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            float x[8], y[8];
            static const ossa_vertex_type types[] = {OSSA_VERTEX_POSITION, OSSA_VERTEX_NORMAL,
                                                     OSSA_VERTEX_TEXCOORD, OSSA_VERTEX_BLENDWEIGHTS};
            for (int ty = 0; ty < 4; ty++) {
                tf_get(a, types[ty], a->triangles[t].v[k], x);
                tf_get(b, types[ty], b->triangles[t].v[k], y);
                for (int c = 0; c < 3; c++) TF_NEAR(x[c], y[c], tol);
            }
        }
}

static void test_round_trip(void **state)
{
    (void)state;
    ossa_model *m1 = tf_load_shared("smd/holy_grailref.smd");
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = SMD;
    size_t size;
    char *t1 = tf_write(m1, &o, &size);
    ossa_model *m2 = tf_load_with(SMD, t1, NULL);
    /* %.6f: positions to 5e-7, normals renormalized */
    compare_meshes(m1, m2, 2e-6);
    TF_NEAR(m2->joints[0].bind.translation[2], 6.268408, 1e-6);
    char *t2 = tf_write(m2, &o, &size);
    ossa_model *m3 = tf_load_with(SMD, t2, NULL);
    compare_meshes(m2, m3, 2e-6);
    free(t1);
    free(t2);
    ossa_model_free(m1);
    ossa_model_free(m2);
    ossa_model_free(m3);

    /* an animation file: smd -> model -> smd -> model keeps the frames */
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = "walk.smd";
    m1 = tf_load_with(SMD, walk_text, &lo);
    t1 = tf_write(m1, &o, &size);
    /* every bone in every frame, from time 0 */
    assert_non_null(strstr(t1, "time 0\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
                               "1 0.000000 0.000000 1.000000"));
    assert_non_null(strstr(t1, "time 1\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
                               "1 0.000000 0.000000 2.000000"));
    m2 = tf_load_with(SMD, t1, &lo);
    assert_int_equal(m2->num_animations, 1);
    assert_int_equal(m2->animations[0].num_frames, 2);
    for (uint32_t f = 0; f < 2; f++)
        for (uint32_t j = 0; j < 2; j++) {
            const ossa_transform *x = &m1->animations[0].frames[f * 2 + j];
            const ossa_transform *y = &m2->animations[0].frames[f * 2 + j];
            for (int k = 0; k < 3; k++) TF_NEAR(x->translation[k], y->translation[k], 1e-6);
            TF_QUAT(y->rotation, x->rotation[0], x->rotation[1], x->rotation[2], x->rotation[3], 1e-6);
        }
    free(t1);
    ossa_model_free(m1);
    ossa_model_free(m2);
}

/* Model-space joint matrices of frame f of animation a. */
static void model_pose(const ossa_model *m, uint32_t a, uint32_t f, float (*out)[16])
{
    ossa_local_to_model(m, &m->animations[a].frames[(size_t)f * m->num_joints], out);
}

static void test_iqm_smd_iqm(void **state)
{
    (void)state;
    ossa_model *guy = tf_load_shared("iqm/guy.iqm");
    char *path = ts_tmp_path("smd_guy.smd");
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    seen s;
    memset(&s, 0, sizeof s);
    o.diagnostic = on_diagnostic;
    o.wrote = on_wrote;
    o.user = &s;
    ossa_error err;
    assert_int_equal(ossa_write_file(guy, path, &o, &err), OSSA_OK);
    /* "dance" scales the body: written with its joints where they are and
     * a warning that the skinned mesh loses the scaling (core/scale.h);
     * "jump" written as it is */
    assert_true(saw(&s, OSSA_WARNING_DROPPED));
    assert_int_equal(s.num_paths, 3);
    assert_string_equal(s.paths[0], path);
    char *jump = ts_tmp_path("smd_guy.jump.smd");
    assert_string_equal(s.paths[1], jump);

    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.framerate = 24;
    ossa_model *ref = ossa_load_file(path, &lo, &err);
    ossa_model *anim = ossa_load_file(jump, &lo, &err);
    assert_non_null(ref);
    assert_non_null(anim);
    assert_int_equal(ossa_model_merge(ref, anim, &err), OSSA_OK);
    /* through IQM */
    o.format = OSSA_FORMAT_IQM;
    o.diagnostic = NULL;
    void *iqm;
    size_t size;
    assert_int_equal(ossa_write_memory(ref, &o, &iqm, &size, &err), OSSA_OK);
    ossa_model *back = ossa_load_memory(iqm, size, NULL, &err);
    assert_non_null(back);
    ossa_free(iqm, NULL);

    assert_int_equal(back->num_joints, guy->num_joints);
    assert_int_equal(back->num_triangles, guy->num_triangles);
    assert_int_equal(back->num_animations, 1);
    assert_string_equal(back->animations[0].name, "jump"); /* the file's comment */
    uint32_t ga = 0; /* guy's "jump" */
    while (strcmp(guy->animations[ga].name, "jump") != 0) ga++;
    assert_int_equal(back->animations[0].num_frames, guy->animations[ga].num_frames);
    TF_NEAR(back->animations[0].framerate, 24, 0);

    /* the model's size: the diagonal of its bind-pose box */
    float lo3[3] = {1e30f, 1e30f, 1e30f}, hi3[3] = {-1e30f, -1e30f, -1e30f};
    for (uint32_t v = 0; v < guy->num_vertices; v++) {
        float p[8];
        tf_get(guy, OSSA_VERTEX_POSITION, v, p);
        for (int k = 0; k < 3; k++) {
            if (p[k] < lo3[k]) lo3[k] = p[k];
            if (p[k] > hi3[k]) hi3[k] = p[k];
        }
    }
    double diag = sqrt((hi3[0] - lo3[0]) * (hi3[0] - lo3[0]) + (hi3[1] - lo3[1]) * (hi3[1] - lo3[1]) +
                       (hi3[2] - lo3[2]) * (hi3[2] - lo3[2]));
    uint32_t nj = guy->num_joints;
    float (*a)[16] = malloc(nj * sizeof *a), (*b)[16] = malloc(nj * sizeof *b);
    double worst = 0;
    for (uint32_t f = 0; f < guy->animations[ga].num_frames; f++) {
        model_pose(guy, ga, f, a);
        model_pose(back, 0, f, b);
        for (uint32_t j = 0; j < nj; j++)
            for (int e = 0; e < 16; e++) {
                /* translations against the model's size, rotations as they are */
                double scale = e >= 12 ? diag : 1;
                double d = fabs(a[j][e] - b[j][e]) / scale;
                if (d > worst) worst = d;
            }
    }
    print_message("iqm -> smd -> iqm: largest model-space difference %.3g of the model's size\n",
                  worst);
    assert_true(worst < 1e-4);
    free(a);
    free(b);
    /* the mesh: positions within %.6f */
    for (uint32_t t = 0; t < guy->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            float x[8], y[8];
            tf_get(guy, OSSA_VERTEX_POSITION, guy->triangles[t].v[k], x);
            tf_get(back, OSSA_VERTEX_POSITION, back->triangles[t].v[k], y);
            for (int c = 0; c < 3; c++) TF_NEAR(x[c], y[c], 1e-6);
        }
    ossa_model_free(back);
    ossa_model_free(ref);
    ossa_model_free(anim);
    ossa_model_free(guy);
    unlink(path);
    unlink(jump);
    free(path);
    free(jump);
}

/* -- One write, several files -- */

static void test_write_files(void **state)
{
    (void)state;
    ossa_model *m = small_model();
    static const char *const names[] = {"walk", "run/fast", "walk"};
    for (int i = 0; i < 3; i++) {
        ossa_animation *a = ossa_model_add_animation(m, names[i], 2, 30, 0, NULL);
        assert_non_null(a);
        a->frames[2 + 1].translation[1] = (float)(i + 1); /* frame 1, child */
    }
    char *path = ts_tmp_path("smd_multi.smd");
    char *expect[4] = {ts_tmp_path("smd_multi.smd"), ts_tmp_path("smd_multi.walk.smd"),
                       ts_tmp_path("smd_multi.run_fast.smd"), ts_tmp_path("smd_multi.walk.2.smd")};
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    seen s;
    memset(&s, 0, sizeof s);
    o.wrote = on_wrote;
    o.user = &s;
    ossa_error err;
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    assert_int_equal(s.num_paths, 4);
    for (int i = 0; i < 4; i++) assert_string_equal(s.paths[i], expect[i]);
    /* each animation file holds its own frames */
    for (int i = 1; i < 4; i++) {
        ossa_model *a = ossa_load_file(expect[i], NULL, &err);
        assert_non_null(a);
        assert_int_equal(a->num_animations, 1);
        TF_NEAR(a->animations[0].frames[2 + 1].translation[1], i, 1e-6);
        ossa_model_free(a);
    }
    for (int i = 0; i < 4; i++) {
        unlink(expect[i]);
        free(expect[i]);
    }

    /* all or nothing: a directory in the way of one file fails the write
     * and leaves no file */
    char *blocker = ts_tmp_path("smd_multi.run_fast.smd");
    assert_int_equal(mkdir(blocker, 0700), 0);
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_FAILED);
    assert_int_equal(access(path, F_OK), -1);
    char *walk = ts_tmp_path("smd_multi.walk.smd");
    assert_int_equal(access(walk, F_OK), -1);
    rmdir(blocker);
    free(blocker);
    free(walk);
    free(path);
    ossa_model_free(m);

    /* an animation-only model writes its animations alone, the chosen one
     * to the file named */
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = "walk.smd";
    m = tf_load_with(SMD, walk_text, &lo);
    path = ts_tmp_path("smd_anim_only.smd");
    memset(&s, 0, sizeof s);
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    assert_int_equal(s.num_paths, 1);
    ossa_model *back = ossa_load_file(path, NULL, &err);
    assert_non_null(back);
    assert_int_equal(back->num_triangles, 0);
    assert_int_equal(back->num_animations, 1);
    assert_int_equal(back->animations[0].num_frames, 2);
    ossa_model_free(back);
    unlink(path);
    free(path);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_triangle_smd), cmocka_unit_test(test_holy_grail),
        cmocka_unit_test(test_writer_text),  cmocka_unit_test(test_writer_links),
        cmocka_unit_test(test_writer_bakes_scale),
        cmocka_unit_test(test_merge),        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_iqm_smd_iqm),  cmocka_unit_test(test_write_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
