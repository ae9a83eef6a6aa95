/* illEngine writing (docs/formats/ill.md §11): ill -> model -> ill -> model
 * round trips, the three files of a .illmesh write, names made
 * whitespace-free and unique with warnings, the Rx(-90) correction undone
 * on writing, and IQM (guy.iqm) -> ill -> IQM with equal poses at every
 * frame. */
#include "ill_test.h"

#include <unistd.h>

/* -- Helpers ------------------------------------------------------------------ */

typedef struct warnings {
    int count;
    char text[4096];
} warnings;

static void collect(void *user, const ossa_diagnostic *d)
{
    warnings *w = user;
    size_t n = strlen(w->text);
    snprintf(w->text + n, sizeof w->text - n, "%s\n", d->message);
    w->count++;
}

static void write_ok(const ossa_model *m, const char *path, warnings *w, uint32_t animation)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.diagnostic = collect;
    o.user = w;
    o.animation = animation;
    ossa_error err;
    memset(&err, 0, sizeof err);
    if (ossa_write_file(m, path, &o, &err) != OSSA_OK) {
        char buf[600];
        fail_msg("write failed: %s", ossa_error_format(&err, buf, sizeof buf));
    }
}

static ossa_model *load_file(const char *path, uint32_t flags)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.flags = flags;
    ossa_error err;
    ossa_model *m = ossa_load_file(path, &o, &err);
    if (!m) {
        char buf[600];
        fail_msg("load failed: %s", ossa_error_format(&err, buf, sizeof buf));
    }
    return m;
}

/* Loads "<dir>/<stem><suffix>" for each suffix and merges them in order. */
static ossa_model *load_set(const char *stem, const char *const *suffixes, int n)
{
    ossa_model *m = NULL;
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", stem, suffixes[i]);
        ossa_model *one = load_file(path, 0);
        m = m ? it_merge(m, one) : one;
    }
    return m;
}

static bool file_exists(const char *path) { return access(path, F_OK) == 0; }

static void remove_set(const char *stem)
{
    static const char *const ext[] = {".illmesh", ".illskel", ".illanim", ".b.illanim",
                                      ".second.illanim"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", stem, ext[i]);
        unlink(path);
    }
}

/* The same weight per joint at every vertex (slot order and unused slots
 * aside). */
static void same_blend(const ossa_model *a, const ossa_model *b, double tol)
{
    assert_int_equal(a->num_vertices, b->num_vertices);
    const ossa_model *m[2] = {a, b};
    for (uint32_t v = 0; v < a->num_vertices; v++) {
        double w[2][256];
        memset(w, 0, sizeof w);
        for (int s = 0; s < 2; s++) {
            const ossa_vertex_array *bi = ossa_model_find_array(m[s], OSSA_VERTEX_BLENDINDEXES, NULL);
            const ossa_vertex_array *bw = ossa_model_find_array(m[s], OSSA_VERTEX_BLENDWEIGHTS, NULL);
            assert_non_null(bi);
            assert_non_null(bw);
            float idx[8], wt[8];
            ossa_vertex_array_read(m[s], bi, v, 1, idx);
            ossa_vertex_array_read(m[s], bw, v, 1, wt);
            for (uint32_t k = 0; k < bi->size && k < bw->size; k++)
                if (wt[k] > 0) w[s][(int)idx[k] & 255] += wt[k];
        }
        for (int j = 0; j < 256; j++)
            if (!(fabs(w[0][j] - w[1][j]) <= tol))
                fail_msg("vertex %u joint %d: weight %.9g vs %.9g", v, j, w[0][j], w[1][j]);
    }
}

/* Every vertex array value equal as floats. */
static void same_vertices(const ossa_model *a, const ossa_model *b, ossa_vertex_type type,
                          const char *name, double tol)
{
    const ossa_vertex_array *x = ossa_model_find_array(a, type, name);
    const ossa_vertex_array *y = ossa_model_find_array(b, type, name);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(a->num_vertices, b->num_vertices);
    uint32_t n = x->size < y->size ? x->size : y->size;
    for (uint32_t v = 0; v < a->num_vertices; v++) {
        float p[8], q[8];
        ossa_vertex_array_read(a, x, v, 1, p);
        ossa_vertex_array_read(b, y, v, 1, q);
        for (uint32_t k = 0; k < n; k++)
            if (!(fabs(p[k] - q[k]) <= tol))
                fail_msg("%s vertex %u[%u]: %.9g vs %.9g", ossa_vertex_type_name(type), v, k,
                         (double)p[k], (double)q[k]);
    }
}

static void same_joints(const ossa_model *a, const ossa_model *b, double tol)
{
    assert_int_equal(a->num_joints, b->num_joints);
    for (uint32_t j = 0; j < a->num_joints; j++) {
        assert_string_equal(a->joints[j].name, b->joints[j].name);
        assert_int_equal(a->joints[j].parent, b->joints[j].parent);
        float ma[16], mb[16];
        ossa_transform_to_matrix(&a->joints[j].bind, ma);
        ossa_transform_to_matrix(&b->joints[j].bind, mb);
        for (int k = 0; k < 16; k++) IT_NEAR(ma[k], mb[k], tol);
    }
}

/* Model-space matrices of every frame equal within tol. */
static void same_poses(const ossa_model *a, uint32_t ia, const ossa_model *b, uint32_t ib,
                       double tol)
{
    const ossa_animation *x = &a->animations[ia], *y = &b->animations[ib];
    assert_int_equal(x->num_frames, y->num_frames);
    assert_int_equal(a->num_joints, b->num_joints);
    uint32_t n = a->num_joints;
    float(*ma)[16] = malloc(sizeof *ma * (n + 1));
    float(*mb)[16] = malloc(sizeof *mb * (n + 1));
    assert_non_null(ma);
    assert_non_null(mb);
    double worst = 0;
    for (uint32_t f = 0; f < x->num_frames; f++) {
        ossa_local_to_model(a, x->frames + (size_t)f * n, ma);
        ossa_local_to_model(b, y->frames + (size_t)f * n, mb);
        for (uint32_t j = 0; j < n; j++)
            for (int k = 0; k < 16; k++) {
                double e = fabs(ma[j][k] - mb[j][k]);
                if (e > worst) worst = e;
                if (!(e <= tol))
                    fail_msg("frame %u joint %u [%d]: %.9g vs %.9g", f, j, k, (double)ma[j][k],
                             (double)mb[j][k]);
            }
    }
    free(ma);
    free(mb);
}

/* -- A small model of ill files ------------------------------------------------ */

static const char mesh_text[] = "ILLMESH0\n1\n1\n1\n1\n1\n1\n3\n3\n"
                                "0 0 0\n0 0 1\n1 0 0\n0 1 0\n2 0 0 0\n1 0 0 0\n0.25 0.75\n1 0 0 1\n\n"
                                "1 0 0\n0 0 1\n1 0 0\n0 -1 0\n0 1 0 0\n0.5 0.5 0 0\n1 0\n0 1 0 1\n\n"
                                "0 1 0\n0 0 1\n0 1 0\n-1 0 0\n1 0 0 0\n1 0 0 0\n0 1\n0 0 1 0.5\n\n"
                                "0 1 2\n";

/* Three bones, the first listed before its parent. */
static const char skel_text[] = "ILLSKEL0\n3\n"
                                "0 -1 0 0.5\n1 0 0 2\n0 0 1 0\n0 0 0 1\n\n"
                                "1 0 0 0\n0 1 0 0\n0 0 1 1\n0 0 0 1\n\n"
                                "2 0 0 0\n0 0.866025 -0.5 3\n0 0.5 0.866025 0\n0 0 0 1\n\n"
                                "1\n-1\n1\n"
                                "arm\nhips\nleg\n";

static const char anim_text[] = "ILLANIM0\n12.5\n2\n2\n"
                                "hips 0 0 1 0 0 0 1 1 1 1 0 0 1.5 0 0 0.1 0.99498744 1 1 1\n"
                                "arm 0.5 2 0 0 0 0.70710678 0.70710678 1 1 1 "
                                "0.5 2 0.25 0 0 0.70710678 0.70710678 1 2 1\n";

static ossa_model *small_model(void)
{
    ossa_model *m = it_load(mesh_text, 0, "hero.illmesh");
    m = it_merge(m, it_load(skel_text, 0, "hero.illskel"));
    return it_merge(m, it_load(anim_text, 0, "walk.illanim"));
}

static void test_ill_round_trip(void **state)
{
    (void)state;
    ossa_model *a = small_model();
    char *stem = ts_tmp_path("ill_rt");
    char path[512];
    snprintf(path, sizeof path, "%s.illmesh", stem);
    remove_set(stem);
    warnings w = {0, ""};
    write_ok(a, path, &w, 0);
    assert_int_equal(w.count, 0);
    static const char *const set[] = {".illmesh", ".illskel", ".illanim"};
    ossa_model *b = load_set(stem, set, 3);
    same_joints(a, b, 1e-6);
    static const ossa_vertex_type types[] = {OSSA_VERTEX_POSITION, OSSA_VERTEX_NORMAL,
                                             OSSA_VERTEX_TANGENT, OSSA_VERTEX_TEXCOORD,
                                             OSSA_VERTEX_COLOR};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        same_vertices(a, b, types[i], NULL, 0);
    /* influences are written in joint order */
    same_blend(a, b, 0);
    same_vertices(a, b, OSSA_VERTEX_CUSTOM, "bitangent", 0);
    assert_int_equal(b->num_triangles, 1);
    assert_memory_equal(a->triangles, b->triangles, sizeof *a->triangles);
    assert_int_equal(b->num_animations, 1);
    assert_true(b->animations[0].framerate == 12.5f);
    /* frames are written as they are: equal bit for bit */
    assert_memory_equal(a->animations[0].frames, b->animations[0].frames,
                        sizeof(ossa_transform) * 2 * 3);
    same_poses(a, 0, b, 0, 0);
    assert_int_equal(ossa_model_validate(b, NULL, NULL, NULL), 0);

    /* writing the reloaded model gives the same mesh and animation files */
    char stem2[480], path2[512];
    snprintf(stem2, sizeof stem2, "%s2", stem);
    snprintf(path2, sizeof path2, "%s.illmesh", stem2);
    remove_set(stem2);
    write_ok(b, path2, &w, 0);
    for (int i = 0; i < 3; i += 2) {
        char p1[512], p2[512];
        snprintf(p1, sizeof p1, "%s%s", stem, set[i]);
        snprintf(p2, sizeof p2, "%s%s", stem2, set[i]);
        size_t n1, n2;
        unsigned char *f1 = ts_read_file(p1, &n1), *f2 = ts_read_file(p2, &n2);
        assert_non_null(f1);
        assert_non_null(f2);
        assert_int_equal(n1, n2);
        assert_memory_equal(f1, f2, n1);
        free(f1);
        free(f2);
    }
    remove_set(stem);
    remove_set(stem2);
    free(stem);
    ossa_model_free(a);
    ossa_model_free(b);
}

/* The canonical text, checked token by token for the mesh's first vertex
 * and the layout rules: v0b order, a blank line after each vertex. */
static void test_canonical_text(void **state)
{
    (void)state;
    ossa_model *a = small_model();
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_ILLMESH;
    size_t n;
    unsigned char *out = ts_write(a, &o, &n);
    const char *want = "ILLMESH0\n1\n1\n1\n1\n1\n1\n3\n3\n"
                       "0 0 0\n0 0 1\n1 0 0\n0 1 0\n2 0 0 0\n1 0 0 0\n0.25 0.75\n1 0 0 1\n\n";
    /* blend index 2 was file bone 2 (leg), which is joint 2 after the
     * reordering (hips, arm, leg), so it is written as 2 again */
    assert_true(n > strlen(want));
    assert_memory_equal(out, want, strlen(want));
    assert_non_null(strstr((const char *)out, "\n\n0 1 2\n"));
    ossa_free(out, NULL);

    o.format = OSSA_FORMAT_ILLSKEL;
    out = ts_write(a, &o, &n);
    const char *skel = "ILLSKEL0\n3\n1 0 0 0\n0 1 0 0\n0 0 1 1\n0 0 0 1\n\n";
    assert_memory_equal(out, skel, strlen(skel));
    assert_non_null(strstr((const char *)out, "\n-1\n0\n0\nhips\narm\nleg\n"));
    ossa_free(out, NULL);

    o.format = OSSA_FORMAT_ILLANIM;
    out = ts_write(a, &o, &n);
    const char *anim = "ILLANIM0\n12.5\n2\n2\nhips\n0 0 1 0 0 0 1 1 1 1\n0 0 1.5 0 0 0.1 0.9949874 "
                       "1 1 1\n\narm\n0.5 2 0 0 0 0.70710677 0.70710677 1 1 1\n";
    assert_memory_equal(out, anim, strlen(anim));
    ossa_free(out, NULL);
    ossa_model_free(a);
}

/* -- Names, files, warnings ------------------------------------------------------ */

static ossa_model *api_model(void)
{
    ts_joint joints[4] = {{"left arm", -1, ossa_transform_identity(), true},
                          {"", 0, ossa_transform_identity(), true},
                          {"left_arm", 0, ossa_transform_identity(), true},
                          {"tab\there", 2, ossa_transform_identity(), true}};
    for (int j = 1; j < 4; j++) joints[j].pose.translation[0] = 1;
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    /* five influences on vertex 0 */
    static const float idx[15] = {0, 1, 2, 3, 0, 3, 0, 0, 0, 0, 2, 0, 0, 0, 0};
    static const float wt[15] = {0.1f, 0.3f, 0.2f, 0.25f, 0.15f, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    static const float extra[3] = {1, 2, 3};
    static const ts_array arrays[4] = {{OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos},
                                       {OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 5, NULL, idx},
                                       {OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 5, NULL, wt},
                                       {OSSA_VERTEX_CUSTOM, OSSA_FLOAT, 1, "heat", extra}};
    static const ossa_triangle tri = {{0, 1, 2}};
    static const ts_mesh mesh = {"a", "", 0, 3, 0, 1};
    static const ts_anim anims[2] = {{"first", 2, 0, 0}, {"second", 3, 24, 0}};
    ts_model_spec spec = {.num_joints = 4, .joints = joints, .num_vertices = 3, .num_arrays = 4,
                          .arrays = arrays, .num_triangles = 1, .triangles = &tri, .num_meshes = 1,
                          .meshes = &mesh, .num_animations = 2, .animations = anims};
    ossa_model *m = ts_model_build(&spec);
    m->animations[0].frames[4 + 3].translation[2] = 9;
    m->animations[1].frames[2 * 4 + 1].rotation[2] = 1;
    m->animations[1].frames[2 * 4 + 1].rotation[3] = 0;
    return m;
}

static void test_names_and_files(void **state)
{
    (void)state;
    ossa_model *m = api_model();
    char *stem = ts_tmp_path("ill_names");
    char path[512];
    snprintf(path, sizeof path, "%s.illmesh", stem);
    remove_set(stem);
    warnings w = {0, ""};
    write_ok(m, path, &w, 0);
    /* whitespace, an empty name, a repeat, a custom array, five
     * influences, a missing frame rate */
    assert_non_null(strstr(w.text, "'left arm'"));
    assert_non_null(strstr(w.text, "no name"));
    assert_non_null(strstr(w.text, "taken by an earlier joint"));
    assert_non_null(strstr(w.text, "'heat'"));
    assert_non_null(strstr(w.text, "more than 4 blend influences"));
    assert_non_null(strstr(w.text, "no frame rate"));
    char p[512];
    snprintf(p, sizeof p, "%s.illskel", stem);
    assert_true(file_exists(p));
    snprintf(p, sizeof p, "%s.illanim", stem);
    assert_true(file_exists(p));
    snprintf(p, sizeof p, "%s.second.illanim", stem);
    assert_true(file_exists(p));

    static const char *const set[] = {".illmesh", ".illskel", ".illanim", ".second.illanim"};
    ossa_model *b = load_set(stem, set, 4);
    assert_string_equal(b->joints[0].name, "left_arm");
    assert_string_equal(b->joints[1].name, "bone1");
    assert_string_equal(b->joints[2].name, "left_arm_2");
    assert_string_equal(b->joints[3].name, "tab_here");
    /* the four largest influences of vertex 0, by joint, renormalized */
    float v[4];
    it_vertex(b, OSSA_VERTEX_BLENDINDEXES, NULL, 0, v);
    assert_true(v[0] == 0 && v[1] == 1 && v[2] == 2 && v[3] == 3);
    it_vertex(b, OSSA_VERTEX_BLENDWEIGHTS, NULL, 0, v);
    IT_NEAR(v[0], 0.15 / 0.9, 1e-6);
    IT_NEAR(v[1], 0.3 / 0.9, 1e-6);
    IT_NEAR(v[3], 0.25 / 0.9, 1e-6);
    /* animations: matched by the written names */
    assert_int_equal(b->num_animations, 2);
    assert_true(b->animations[0].framerate == OSSA_DEFAULT_FRAMERATE);
    same_poses(m, 0, b, 0, 1e-6);
    same_poses(m, 1, b, 1, 1e-6);
    ossa_model_free(b);

    /* .illanim alone: one file, the chosen animation, a note about the rest */
    char one[512];
    snprintf(one, sizeof one, "%s_only.illanim", stem);
    w.count = 0;
    w.text[0] = 0;
    write_ok(m, one, &w, 1);
    assert_non_null(strstr(w.text, "'second' is written, 1 others are not"));
    b = load_file(one, 0);
    assert_int_equal(b->animations[0].num_frames, 3);
    assert_true(b->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    ossa_model_free(b);
    unlink(one);
    /* .illskel alone */
    snprintf(one, sizeof one, "%s_only.illskel", stem);
    write_ok(m, one, &w, 0);
    b = load_file(one, 0);
    assert_int_equal(b->num_joints, 4);
    assert_int_equal(b->joints[3].parent, 2);
    ossa_model_free(b);
    unlink(one);
    remove_set(stem);

    /* no joints: no skeleton to write; a non-finite value: refused */
    ossa_model *e = ossa_model_create(NULL);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_ILLSKEL;
    void *data;
    size_t size;
    ossa_error err;
    assert_int_equal(ossa_write_memory(e, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    o.format = OSSA_FORMAT_ILLANIM;
    assert_int_equal(ossa_write_memory(e, &o, &data, &size, &err), OSSA_FAILED);
    ossa_model_free(e);
    m->joints[1].bind.translation[1] = INFINITY;
    o.format = OSSA_FORMAT_ILLSKEL;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "joint 1"));
    ossa_model_free(m);
    free(stem);
}

/* An animation-only model keeps being one: no skeleton file. */
static void test_animation_only(void **state)
{
    (void)state;
    ossa_model *m = it_load("ILLANIM0 10 2 1 hips 0 0 0 0 0 0 1 1 1 1 1 0 0 0 0 0 1 1 1 1\n", 0,
                            "w.illanim");
    char *stem = ts_tmp_path("ill_animonly");
    char path[512], p[512];
    snprintf(path, sizeof path, "%s.illmesh", stem);
    remove_set(stem);
    warnings w = {0, ""};
    write_ok(m, path, &w, 0);
    snprintf(p, sizeof p, "%s.illskel", stem);
    assert_false(file_exists(p));
    snprintf(p, sizeof p, "%s.illanim", stem);
    ossa_model *b = load_file(p, 0);
    same_poses(m, 0, b, 0, 0);
    ossa_model_free(b);
    b = load_file(path, 0);
    assert_int_equal(b->num_vertices, 0);
    ossa_model_free(b);
    remove_set(stem);
    free(stem);
    ossa_model_free(m);
}

/* A model corrected by Rx(-90) (its skeleton has <MD5_Root>) is written
 * turned back, so that reading the files again gives the same vertices. */
static void test_md5_round_trip(void **state)
{
    (void)state;
    const char *skel = "ILLSKEL0 2\n"
                       "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n\n"
                       "1 0 0 0\n0 0 1 0\n0 -1 0 5\n0 0 0 1\n\n"
                       "-1 0 <MD5_Root> origin\n";
    const char *mesh = "ILLMESH0 1 1 1 0 1 0 3 3\n"
                       "1 2 3 0 0 1 1 0 0 0 1 0 1 0 0 0 1 0 0 0\n\n"
                       "4 5 6 0 1 0 0 0 1 1 0 0 1 0 0 0 1 0 0 0\n\n"
                       "-7 8 -9 1 0 0 0 1 0 0 0 1 0 0 0 0 1 0 0 0\n\n"
                       "0 1 2\n";
    ossa_model *m = it_load(mesh, 0, "m.illmesh");
    m = it_merge(m, it_load(skel, 0, "m.illskel"));
    float v[4];
    it_vertex(m, OSSA_VERTEX_POSITION, NULL, 0, v);
    assert_true(v[0] == 1 && v[1] == 3 && v[2] == -2);
    char *stem = ts_tmp_path("ill_md5");
    char path[512];
    snprintf(path, sizeof path, "%s.illmesh", stem);
    remove_set(stem);
    warnings w = {0, ""};
    write_ok(m, path, &w, 0);
    /* the file holds the raw MD5 vertex again */
    size_t n;
    unsigned char *f = ts_read_file(path, &n);
    assert_non_null(f);
    assert_non_null(strstr((const char *)f, "\n1 2 3\n"));
    free(f);
    static const char *const set[] = {".illmesh", ".illskel"};
    ossa_model *b = load_set(stem, set, 2);
    same_vertices(m, b, OSSA_VERTEX_POSITION, NULL, 0);
    same_vertices(m, b, OSSA_VERTEX_NORMAL, NULL, 0);
    same_vertices(m, b, OSSA_VERTEX_TANGENT, NULL, 0);
    same_vertices(m, b, OSSA_VERTEX_CUSTOM, "bitangent", 0);
    same_joints(m, b, 1e-6);
    ossa_model_free(b);
    remove_set(stem);
    free(stem);
    ossa_model_free(m);
}

/* -- IQM -> ill -> IQM ------------------------------------------------------------ */

static void test_iqm_round_trip(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *guy = ts_load_shared("iqm/guy.iqm", &file, &size);
    free(file);
    char *stem = ts_tmp_path("ill_guy");
    char path[512];
    snprintf(path, sizeof path, "%s.illmesh", stem);
    remove_set(stem);
    char extra[512];
    snprintf(extra, sizeof extra, "%s.%s.illanim", stem, guy->animations[1].name);
    unlink(extra);
    warnings w = {0, ""};
    write_ok(guy, path, &w, 0);
    /* guy's second animation goes to STEM.NAME.illanim */
    char suffix[64];
    snprintf(suffix, sizeof suffix, ".%s.illanim", guy->animations[1].name);
    const char *set[] = {".illmesh", ".illskel", ".illanim", suffix};
    ossa_model *ill = load_set(stem, set, 4);
    assert_int_equal(ill->num_animations, 2);
    assert_int_equal(ossa_model_validate(ill, NULL, NULL, NULL), 0);

    /* and on to IQM */
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQM;
    size_t n;
    unsigned char *iqm = ts_write(ill, &o, &n);
    ossa_model *back = ts_load(iqm, n);
    ossa_free(iqm, NULL);

    same_joints(guy, back, 1e-5);
    for (uint32_t a = 0; a < 2; a++) same_poses(guy, a, back, a, 1e-5);
    same_vertices(guy, back, OSSA_VERTEX_POSITION, NULL, 0);
    same_vertices(guy, back, OSSA_VERTEX_NORMAL, NULL, 0);
    same_vertices(guy, back, OSSA_VERTEX_TEXCOORD, NULL, 0);
    same_vertices(guy, back, OSSA_VERTEX_TANGENT, NULL, 1e-7);
    same_blend(guy, back, 1e-6);
    assert_int_equal(guy->num_triangles, back->num_triangles);
    assert_memory_equal(guy->triangles, back->triangles, guy->num_triangles * sizeof *guy->triangles);
    ossa_model_free(back);
    ossa_model_free(ill);
    ossa_model_free(guy);
    remove_set(stem);
    unlink(extra);
    free(stem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ill_round_trip),  cmocka_unit_test(test_canonical_text),
        cmocka_unit_test(test_names_and_files), cmocka_unit_test(test_animation_only),
        cmocka_unit_test(test_md5_round_trip),  cmocka_unit_test(test_iqm_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
