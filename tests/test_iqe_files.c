/* IQE files whole: the real test file, robustness under truncation and
 * byte patches, the writer's canonical text, and round trips (IQE -> IQM
 * -> IQE -> IQM byte identity, IQM -> IQE -> model). */
#include "iqe_test.h"

static void qmul(const double a[4], const double b[4], double r[4])
{
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* v rotated by the unit quaternion q: q * (v, 0) * conj(q). */
static void qrotate(const double q[4], const double v[3], double out[3])
{
    double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    qmul(q, p, t);
    qmul(t, c, r);
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

static void unit(const float *q, double out[4])
{
    double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                    (double)q[3] * q[3]);
    for (int k = 0; k < 4; k++) out[k] = q[k] / n;
}

/* The file stores poses in the bone's parent space; the bone's bind
 * rotation is +90 degrees about X, so each animation moves one channel of
 * the pose relative to the bind pose: translation in the bind frame
 * (R_bind^-1 (t - t_bind)), rotation conj(q_bind) * q, scale s / s_bind. */
static void bind_relative(const ossa_transform *bind, const ossa_transform *t, double dt[3],
                          double dq[4], double ds[3])
{
    double qb[4], q[4], cb[4];
    unit(bind->rotation, qb);
    unit(t->rotation, q);
    cb[0] = -qb[0], cb[1] = -qb[1], cb[2] = -qb[2], cb[3] = qb[3];
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = (double)t->translation[k] - bind->translation[k];
    qrotate(cb, d, dt);
    qmul(cb, q, dq);
    if (dq[3] < 0)
        for (int k = 0; k < 4; k++) dq[k] = -dq[k];
    for (int k = 0; k < 3; k++) ds[k] = (double)t->scale[k] / bind->scale[k];
}

static void test_cube_file(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = shared("iqe/test_cube.iqe", &size);
    if (!data) return;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = "test_cube.iqe";
    ossa_error err;
    ossa_model *m = ossa_load_memory(data, size, &o, &err); /* detected by content */
    assert_non_null(m);
    assert_int_equal(m->source_format, OSSA_FORMAT_IQE);
    assert_int_equal(m->num_warnings, 0);
    assert_int_equal(m->num_joints, 1);
    assert_string_equal(m->joints[0].name, "Bone");
    assert_int_equal(m->num_vertices, 24);
    assert_int_equal(m->num_triangles, 12);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "Cube");
    assert_string_equal(m->meshes[0].material, "Material");
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    static const char *const names[9] = {"tx", "rx", "sx", "ty", "ry", "sy", "tz", "rz", "sz"};
    assert_int_equal(m->num_animations, 9);
    for (int a = 0; a < 9; a++) {
        const ossa_animation *an = &m->animations[a];
        assert_string_equal(an->name, names[a]);
        assert_int_equal(an->num_frames, 60);
        assert_true(an->framerate == 30);
        assert_int_equal(an->flags, OSSA_ANIMATION_LOOP);
        char kind = names[a][0];
        int axis = names[a][1] - 'x';
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t f = 0; f < 60; f++) {
            double dt[3], dq[4], ds[3];
            bind_relative(&m->joints[0].bind, &an->frames[f], dt, dq, ds);
            double moving;
            for (int k = 0; k < 3; k++) {
                if (kind != 't' || k != axis) NEAR(dt[k], 0, 1e-5);
                if (kind != 'r' || k != axis) NEAR(dq[k], 0, 1e-5);
                if (kind != 's' || k != axis) NEAR(ds[k], 1, 1e-5);
            }
            moving = kind == 't' ? dt[axis] : kind == 'r' ? dq[axis] : ds[axis];
            if (moving < lo) lo = moving;
            if (moving > hi) hi = moving;
        }
        if (!(hi - lo > 0.1)) fail_msg("animation %s: channel %c%c does not move", names[a], kind, 'x' + axis);
    }
    ossa_model_free(m);
    free(data);
}

/* -- Robustness -- */

static const char sample[] =
    "# Inter-Quake Export\n"
    "vertexarray custom1 half 2 \"extra\"\n"
    "joint \"root\" -1\n\tpq 0 0 1 0 0 0 -1\n"
    "joint \"arm\" 0\n\tpq 1 0 0 0 0 0.3826834 -0.9238795 1 2 1\n"
    "mesh \"body\"\n\tmaterial \"skin\"\n"
    "smoothgroup 2\nsmoothangle 60\nsmoothuv\n"
    "vp 0 0 0\n\tvt 0 0\n\tvb 0 1\n\tvc 1 0 0\n\tv1 0.5 0.25\n\tvx 1 0 0 0 1 0\n"
    "vp 1 0 0\n\tvt 1 0\n\tvb 0 0.5 1 0.5\n\tvc 0 1 0\n\tv1 1 1\n\tvx 1 0 0 0 1 0\n"
    "vp 1 1 0 1\n\tvt 1 1\n\tvb 1 1\n\tvc 0 0 1 0.5\n\tv1 0 0\n\tvx 1 0 0 -1\n"
    "vp 0 1 0\n\tvt 0 1\n\tvb 1 0.9 0 0.1\n\tvc 1 1 1\n\tv1 -1 2\n\tvx 1 0 0\n"
    "fm 0 1 2 3\nfs 1 0 1 1\n"
    "mesh \"cap\"\nvp 0 0 1\nvt 0 0\nvb 0 1\nvc 1 1 1\nv1 0 0\nvx 0 1 0\n"
    "fa 0 2 -1\n"
    "animation \"wave\"\n\tframerate 12.5\n\tloop\n"
    "frame\npq 0 0 1 0 0 0 -1\npq 1 0 0 0 0 0.5 -0.8660254\n"
    "frame\npm 0 0 1 1 0 0 0 1 0 0 0 1\npa 1 0 0 0 0 0.5\n"
    "comment\nsample data\n";

/* Whatever loads must validate, write as IQM and IQE, and load again. */
static void survive(const unsigned char *data, size_t size)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQE;
    ossa_error err;
    ossa_model *m = ossa_load_memory(data, size, &o, &err);
    if (!m) {
        assert_true(err.code != OSSA_CODE_NONE);
        return;
    }
    ossa_model_validate(m, NULL, NULL, NULL);
    for (int f = 0; f < 2; f++) {
        ossa_write_options w;
        memset(&w, 0, sizeof w);
        w.format = f ? OSSA_FORMAT_IQE : OSSA_FORMAT_IQM;
        void *out;
        size_t out_size;
        if (ossa_write_memory(m, &w, &out, &out_size, &err) == OSSA_OK) {
            ossa_load_options lo;
            memset(&lo, 0, sizeof lo);
            lo.format = w.format;
            ossa_model *again = ossa_load_memory(out, out_size, &lo, &err);
            if (!again) {
                char buf[600];
                fail_msg("the %s output does not load: %s", f ? "IQE" : "IQM",
                         ossa_error_format(&err, buf, sizeof buf));
            }
            ossa_model_free(again);
            ossa_free(out, w.allocator);
        }
    }
    ossa_model_free(m);
}

static void sweep(const unsigned char *data, size_t size, size_t step, int patches)
{
    unsigned char *buf = malloc(size + 1);
    for (size_t n = 0; n <= size; n += step) {
        memcpy(buf, data, n); /* exactly n bytes: ASan sees overreads */
        unsigned char *exact = malloc(n ? n : 1);
        memcpy(exact, data, n);
        survive(exact, n);
        free(exact);
    }
    static const char alphabet[] = "0123456789-+.eE \t\n\r\"#xvpfmaq";
    for (int i = 0; i < patches; i++) {
        memcpy(buf, data, size);
        int count = 1 + (int)(rnd() % 6);
        for (int k = 0; k < count; k++) {
            size_t at = (size_t)(rnd() % size);
            buf[at] = (rnd() & 3) ? (unsigned char)alphabet[rnd() % (sizeof alphabet - 1)]
                                  : (unsigned char)rnd();
        }
        survive(buf, size);
    }
    free(buf);
}

static void test_robust_sample(void **state)
{
    (void)state;
    ossa_model *m = load(sample);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    assert_int_equal(m->num_meshes, 2);
    assert_int_equal(m->num_animations, 1);
    ossa_model_free(m);
    sweep((const unsigned char *)sample, sizeof sample - 1, 1, 3000);
}

static void test_robust_cube(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = shared("iqe/test_cube.iqe", &size);
    if (!data) return;
    sweep(data, size, 97, 300);
    free(data);
}

/* -- Writing and round trips -- */

static char *as_text(const unsigned char *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

static void count_warning(void *user, const ossa_diagnostic *d)
{
    assert_int_equal(d->severity, OSSA_SEVERITY_WARNING);
    ++*(int *)user;
}

/* The canonical layout of §10 on a model built here. */
static void test_write_text(void **state)
{
    (void)state;
    int warnings = 0;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform bind = {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}};
    assert_int_equal(ossa_model_add_joint(m, "root \"x\"", -1, &bind, NULL), 0);
    bind.scale[2] = 0.5f;
    bind.rotation[3] = -1;
    assert_int_equal(ossa_model_add_joint(m, "tip", 0, &bind, NULL), 1);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, NULL), OSSA_OK);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 0.1f, 0};
    static const float col[12] = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0.2f};
    static const float bi[12] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const float bw[12] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    static const float cu[3] = {7, 8, 9};
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", bi, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, "", bw, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 4, "", col, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_CUSTOM, OSSA_FLOAT, 1, "heat", cu, NULL));
    ossa_triangle tri = {{0, 2, 1}};
    assert_int_equal(ossa_model_set_triangles(m, 1, &tri, NULL), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "body", "skin.png", 0, 3, 0, 1, NULL) >= 0);
    ossa_animation *an = ossa_model_add_animation(m, "idle", 1, 0, OSSA_ANIMATION_LOOP, NULL);
    an->frames[0].translation[0] = 0.25f;
    an->frames[0].rotation[0] = 0.6f;
    an->frames[0].rotation[3] = 0.8f;
    assert_int_equal(ossa_model_set_comment(m, "made\nby hand", 12, NULL), OSSA_OK);
    size_t size;
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.format = OSSA_FORMAT_IQE;
    wo.diagnostic = count_warning;
    wo.user = &warnings;
    void *outv;
    assert_int_equal(ossa_write_memory(m, &wo, &outv, &size, NULL), OSSA_OK);
    unsigned char *out = outv;
    assert_int_equal(warnings, 1); /* the '"' in the joint name */
    char *text = as_text(out, size);
    /* Weights 128/255 and 127/255 for vertex 1 (largest remainder, ties
     * to the lower slot); colour 0.2 -> 51/255 = 0.2. */
    static const char expected[] =
        "# Inter-Quake Export\n"
        "\n"
        "vertexarray color ubyte 4\n"
        "vertexarray custom0 float 1 \"heat\"\n"
        "\n"
        "joint \"root 'x'\" -1\n"
        "\tpq 1 2 3 -0 -0 -0 -1\n"
        "joint \"tip\" 0\n"
        "\tpq 1 2 3 0 0 0 -1 1 1 0.5\n"
        "\n"
        "mesh \"body\"\n"
        "\tmaterial \"skin.png\"\n"
        "\n"
        "vp 0 0 0\n"
        "\tvb 0 1\n"
        "\tvc 1 0 0 1\n"
        "\tv0 7\n"
        "vp 1 0 0\n"
        "\tvb 1 0.5019608 0 0.49803922\n"
        "\tvc 0 1 0 1\n"
        "\tv0 8\n"
        "vp 0 0.1 0\n"
        "\tvb 1 1\n"
        "\tvc 0 0 1 0.2\n"
        "\tv0 9\n"
        "fm 0 2 1\n"
        "\n"
        "animation \"idle\"\n"
        "\tframerate 0\n"
        "\tloop\n"
        "\n"
        "frame\n"
        "pq 0.25 2 3 -0.6 -0 -0 -0.8\n"
        "pq 1 2 3 0 0 0 -1 1 1 0.5\n"
        "\n"
        "comment\n"
        "made\nby hand";
    if (strcmp(text, expected) != 0) fail_msg("wrote:\n%s\n-- expected:\n%s", text, expected);
    free(text);
    ossa_free(out, NULL);

    /* Read back: the same model. */
    ossa_model *back = ossa_load_memory(out = write_fmt(m, OSSA_FORMAT_IQE, &size), size, NULL, NULL);
    assert_non_null(back);
    assert_int_equal(back->num_joints, 2);
    assert_string_equal(back->joints[0].name, "root 'x'");
    assert_true(back->joints[1].bind.scale[2] == 0.5f);
    const ossa_vertex_array *c = ossa_model_find_array(back, OSSA_VERTEX_COLOR, NULL);
    assert_memory_equal(c->data, ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL)->data, 12);
    const ossa_vertex_array *w = ossa_model_find_array(back, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    assert_memory_equal(w->data, ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL)->data, 12);
    assert_int_equal(back->comment_size, 12);
    ossa_free(out, NULL);
    ossa_model_free(back);
    ossa_model_free(m);
}

/* Meshes whose ranges overlap and a triangle outside every mesh: each
 * triangle is written once, with the first mesh that holds it. */
static void test_write_general(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, 5, NULL), OSSA_OK);
    static const float pos[15] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 2, 2};
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, NULL));
    ossa_triangle tris[4] = {{{0, 1, 2}}, {{1, 2, 3}}, {{2, 3, 4}}, {{0, 2, 4}}};
    assert_int_equal(ossa_model_set_triangles(m, 4, tris, NULL), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "A", "", 0, 4, 0, 2, NULL) >= 0);
    assert_true(ossa_model_add_mesh(m, "B", "", 1, 4, 1, 2, NULL) >= 0);
    size_t n;
    unsigned char *out = write_fmt(m, OSSA_FORMAT_IQE, &n);
    ossa_model *b = ossa_load_memory(out, n, NULL, NULL);
    assert_non_null(b);
    assert_int_equal(b->num_meshes, 3);
    /* A vertex no triangle uses is not written, with a warning. */
    {
        ossa_model *u = ossa_model_create(NULL);
        assert_int_equal(ossa_model_set_num_vertices(u, 4, NULL), OSSA_OK);
        static const float p4[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5};
        assert_non_null(ossa_model_add_vertex_array_floats(u, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", p4, NULL));
        ossa_triangle one = {{0, 1, 2}};
        assert_int_equal(ossa_model_set_triangles(u, 1, &one, NULL), OSSA_OK);
        int warnings = 0;
        ossa_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.format = OSSA_FORMAT_IQE;
        wo.diagnostic = count_warning;
        wo.user = &warnings;
        void *o2;
        size_t n2;
        assert_int_equal(ossa_write_memory(u, &wo, &o2, &n2, NULL), OSSA_OK);
        assert_int_equal(warnings, 1);
        ossa_free(o2, NULL);
        ossa_model_free(u);
    }
    assert_string_equal(b->meshes[0].name, "A");
    assert_int_equal(b->meshes[0].num_triangles, 2);
    assert_string_equal(b->meshes[1].name, "B");
    assert_int_equal(b->meshes[1].num_triangles, 1);
    assert_string_equal(b->meshes[2].name, "");
    assert_int_equal(b->meshes[2].num_triangles, 1);
    assert_int_equal(b->num_triangles, 4);
    for (uint32_t t = 0; t < 4; t++)
        for (int k = 0; k < 3; k++) {
            float p[4];
            get(b, OSSA_VERTEX_POSITION, NULL, b->triangles[t].v[k], p);
            const float *e = pos + 3 * tris[t].v[k];
            assert_true(p[0] == e[0] && p[1] == e[1] && p[2] == e[2]);
        }
    assert_int_equal(b->num_vertices, 4 + 3 + 3);
    ossa_free(out, NULL);
    ossa_model_free(b);
    ossa_model_free(m);
}

/* IQE -> IQM -> IQE -> IQM: the second IQM is byte for byte the first. */
static void check_iqm_identity(const unsigned char *iqe, size_t size)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQE;
    ossa_error err;
    ossa_model *m0 = ossa_load_memory(iqe, size, &o, &err);
    assert_non_null(m0);
    size_t n1, n2, n3;
    unsigned char *iqm1 = write_fmt(m0, OSSA_FORMAT_IQM, &n1);
    ossa_model *m1 = ossa_load_memory(iqm1, n1, NULL, &err);
    assert_non_null(m1);
    unsigned char *iqe2 = write_fmt(m1, OSSA_FORMAT_IQE, &n2);
    ossa_model *m2 = ossa_load_memory(iqe2, n2, NULL, &err);
    assert_non_null(m2);
    unsigned char *iqm3 = write_fmt(m2, OSSA_FORMAT_IQM, &n3);
    assert_int_equal(n1, n3);
    for (size_t i = 0; i < n1; i++)
        if (iqm1[i] != iqm3[i]) fail_msg("the IQM files differ at byte %zu of %zu", i, n1);
    /* And IQE -> model -> IQE is a fixed point after one trip. */
    size_t n4;
    unsigned char *iqe4 = write_fmt(m2, OSSA_FORMAT_IQE, &n4);
    assert_int_equal(n2, n4);
    assert_memory_equal(iqe2, iqe4, n2);
    ossa_free(iqm1, NULL);
    ossa_free(iqe2, NULL);
    ossa_free(iqm3, NULL);
    ossa_free(iqe4, NULL);
    ossa_model_free(m0);
    ossa_model_free(m1);
    ossa_model_free(m2);
}

/* The same from a model built with the API: IQM -> IQE -> IQM. */
static void check_model_identity(const ossa_model *m)
{
    ossa_error err;
    size_t n1, n2, n3;
    unsigned char *iqm1 = write_fmt(m, OSSA_FORMAT_IQM, &n1);
    ossa_model *m1 = ossa_load_memory(iqm1, n1, NULL, &err);
    assert_non_null(m1);
    unsigned char *iqe2 = write_fmt(m1, OSSA_FORMAT_IQE, &n2);
    ossa_model *m2 = ossa_load_memory(iqe2, n2, NULL, &err);
    assert_non_null(m2);
    unsigned char *iqm3 = write_fmt(m2, OSSA_FORMAT_IQM, &n3);
    assert_int_equal(n1, n3);
    assert_memory_equal(iqm1, iqm3, n1);
    ossa_free(iqm1, NULL);
    ossa_free(iqe2, NULL);
    ossa_free(iqm3, NULL);
    ossa_model_free(m1);
    ossa_model_free(m2);
}

static void test_identity_api_model(void **state)
{
    (void)state;
    /* Two meshes, every array type (tangents, colours, a ushort custom
     * array), two animations with a scaled joint, and a comment. */
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform bind = {{0, 0, 1}, {0, 0, 0, -1}, {1, 1, 1}};
    assert_int_equal(ossa_model_add_joint(m, "hip", -1, &bind, NULL), 0);
    bind.translation[2] = 0.5f;
    assert_int_equal(ossa_model_add_joint(m, "knee", 0, &bind, NULL), 1);
    enum { NV = 8 };
    assert_int_equal(ossa_model_set_num_vertices(m, NV, NULL), OSSA_OK);
    float pos[NV * 3], uv[NV * 2], nrm[NV * 3], tan[NV * 4], bi[NV * 4], bw[NV * 4], col[NV * 4],
        cu[NV * 2];
    for (int v = 0; v < NV; v++) {
        float a = (float)v * 0.785398f;
        pos[v * 3] = cosf(a), pos[v * 3 + 1] = sinf(a), pos[v * 3 + 2] = (float)(v / 4);
        uv[v * 2] = (float)v / NV, uv[v * 2 + 1] = 1.0f - (float)v / NV;
        nrm[v * 3] = cosf(a), nrm[v * 3 + 1] = sinf(a), nrm[v * 3 + 2] = 0;
        tan[v * 4] = -sinf(a), tan[v * 4 + 1] = cosf(a), tan[v * 4 + 2] = 0, tan[v * 4 + 3] = v & 1 ? 1.0f : -1.0f;
        bi[v * 4] = (float)(v & 1), bi[v * 4 + 1] = (float)!(v & 1), bi[v * 4 + 2] = bi[v * 4 + 3] = 0;
        bw[v * 4] = 0.7f, bw[v * 4 + 1] = 0.3f, bw[v * 4 + 2] = bw[v * 4 + 3] = 0;
        col[v * 4] = 1, col[v * 4 + 1] = (float)v / 7, col[v * 4 + 2] = 0.5f, col[v * 4 + 3] = 1;
        cu[v * 2] = (float)v / 9, cu[v * 2 + 1] = 0.25f;
    }
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, "", uv, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, "", nrm, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TANGENT, OSSA_FLOAT, 4, "", tan, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", bi, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, "", bw, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 4, "", col, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_CUSTOM, OSSA_USHORT, 2, "wear", cu, NULL));
    ossa_triangle tris[4] = {{{0, 1, 2}}, {{0, 2, 3}}, {{4, 5, 6}}, {{4, 6, 7}}};
    assert_int_equal(ossa_model_set_triangles(m, 4, tris, NULL), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "upper", "cloth", 0, 4, 0, 2, NULL) >= 0);
    assert_true(ossa_model_add_mesh(m, "lower", "cloth", 4, 4, 2, 2, NULL) >= 0);
    for (int a = 0; a < 2; a++) {
        ossa_animation *an = ossa_model_add_animation(m, a ? "kick" : "walk", 12, 30, a ? 0 : OSSA_ANIMATION_LOOP, NULL);
        assert_non_null(an);
        for (int f = 0; f < 12; f++) {
            ossa_transform *t = &an->frames[f * 2];
            float h = 0.1f * (float)f * (a + 1);
            t[0].translation[0] = 0.01f * (float)f;
            t[1].rotation[0] = sinf(h), t[1].rotation[3] = -cosf(h);
            if (a) t[1].scale[1] = 1 + 0.05f * (float)f;
        }
    }
    assert_int_equal(ossa_model_set_comment(m, "two meshes", 10, NULL), OSSA_OK);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    check_model_identity(m);
    ossa_model_free(m);
}

static void test_identity_cube(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = shared("iqe/test_cube.iqe", &size);
    if (!data) return;
    check_iqm_identity(data, size);
    free(data);
}

static void test_identity_sample(void **state)
{
    (void)state;
    check_iqm_identity((const unsigned char *)sample, sizeof sample - 1);
    /* A generated model: random poses and attributes. */
    size_t cap = 1 << 20, n = 0;
    char *t = malloc(cap);
    n += (size_t)sprintf(t + n, "# Inter-Quake Export\nvertexarray tangent float 4\n");
    for (int j = 0; j < 6; j++)
        n += (size_t)sprintf(t + n, "joint j%d %d\npq %.9g %.9g %.9g 0 0 0 -1\n", j, j - 1,
                             (double)random_float() * 0, 1.0, j * 0.5);
    for (int v = 0; v < 60; v++) {
        double a = v * 0.7, r = 1 + (double)(rnd() % 1000) / 997;
        n += (size_t)sprintf(t + n, "vp %.9g %.9g %.9g\nvt %.9g %.9g\nvn %.9g %.9g 0\n"
                                    "vx 0 0 1 %d\nvb %d %.6g %d %.6g %d 0.1\nvc %.4g 0.5 0.25\n",
                             r * cos(a), r * sin(a), v * 0.05, v / 60.0, 1 - v / 60.0, cos(a),
                             sin(a), (v & 1) ? 1 : -1, v % 6, 0.2 + (double)(rnd() % 100) / 100,
                             (v + 1) % 6, 0.3, (v + 2) % 6, (double)(rnd() % 100) / 99);
    }
    for (int f = 0; f + 2 < 60; f += 2) n += (size_t)sprintf(t + n, "fa %d %d %d\n", f, f + 1, f + 2);
    for (int a = 0; a < 3; a++) {
        n += (size_t)sprintf(t + n, "animation a%d\nframerate %d\n", a, 10 + a);
        for (int f = 0; f < 20; f++) {
            n += (size_t)sprintf(t + n, "frame\n");
            for (int j = 0; j < 6; j++) {
                double ang = 0.1 * f * (j + 1) + a, s = sin(ang / 2), c = cos(ang / 2);
                n += (size_t)sprintf(t + n, "pq %.9g %.9g %.9g %.9g %.9g %.9g %.9g%s\n",
                                     0.01 * f, 1.0, j * 0.5, s * 0.6, s * 0.8, 0.0, c,
                                     a == 2 ? " 1 1.5 1" : "");
            }
        }
    }
    assert_true(n < cap);
    check_iqm_identity((const unsigned char *)t, n);
    free(t);
}

/* guy.iqm (raylib, CC0) -> IQE -> model: the same skeleton, poses and
 * vertex data (per triangle corner, so vertex order may change). */
static void test_iqm_to_iqe(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = shared("iqm/guy.iqm", &size);
    if (!data) return;
    ossa_error err;
    ossa_model *a = ossa_load_memory(data, size, NULL, &err);
    assert_non_null(a);
    size_t n;
    unsigned char *iqe = write_fmt(a, OSSA_FORMAT_IQE, &n);
    ossa_model *b = ossa_load_memory(iqe, n, NULL, &err);
    assert_non_null(b);
    assert_int_equal(b->source_format, OSSA_FORMAT_IQE);
    assert_int_equal(a->num_joints, b->num_joints);
    for (uint32_t j = 0; j < a->num_joints; j++) {
        assert_string_equal(a->joints[j].name, b->joints[j].name);
        assert_int_equal(a->joints[j].parent, b->joints[j].parent);
        const ossa_transform *x = &a->joints[j].bind, *y = &b->joints[j].bind;
        for (int k = 0; k < 3; k++) NEAR(x->translation[k], y->translation[k], 1e-6);
        QUAT_NEAR(y->rotation, x->rotation[0], x->rotation[1], x->rotation[2], x->rotation[3]);
        for (int k = 0; k < 3; k++) NEAR(x->scale[k], y->scale[k], 1e-6);
    }
    assert_int_equal(a->num_animations, b->num_animations);
    for (uint32_t i = 0; i < a->num_animations; i++) {
        const ossa_animation *p = &a->animations[i], *q = &b->animations[i];
        assert_string_equal(p->name, q->name);
        assert_int_equal(p->num_frames, q->num_frames);
        assert_true(p->framerate == q->framerate);
        assert_int_equal(p->flags, q->flags);
        for (size_t f = 0; f < (size_t)p->num_frames * a->num_joints; f++) {
            const ossa_transform *x = &p->frames[f], *y = &q->frames[f];
            for (int k = 0; k < 3; k++) NEAR(x->translation[k], y->translation[k], 1e-6);
            QUAT_NEAR(y->rotation, x->rotation[0], x->rotation[1], x->rotation[2], x->rotation[3]);
            for (int k = 0; k < 3; k++) NEAR(x->scale[k], y->scale[k], 1e-6);
        }
    }
    assert_int_equal(a->num_meshes, b->num_meshes);
    assert_int_equal(a->num_triangles, b->num_triangles);
    assert_int_equal(a->num_vertex_arrays, b->num_vertex_arrays);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        assert_string_equal(a->meshes[i].name, b->meshes[i].name);
        assert_string_equal(a->meshes[i].material, b->meshes[i].material);
        assert_int_equal(a->meshes[i].num_triangles, b->meshes[i].num_triangles);
    }
    for (uint32_t i = 0; i < a->num_vertex_arrays; i++) {
        const ossa_vertex_array *x = &a->vertex_arrays[i];
        const ossa_vertex_array *y = ossa_model_find_array(b, x->type, x->name);
        assert_non_null(y);
        assert_int_equal(x->format, y->format);
        assert_int_equal(x->size, y->size);
        for (uint32_t t = 0; t < a->num_triangles; t++)
            for (int k = 0; k < 3; k++) {
                float fx[8], fy[8];
                ossa_vertex_array_read(a, x, a->triangles[t].v[k], 1, fx);
                ossa_vertex_array_read(b, y, b->triangles[t].v[k], 1, fy);
                for (uint32_t c = 0; c < x->size; c++)
                    if (x->type == OSSA_VERTEX_BLENDWEIGHTS || x->type == OSSA_VERTEX_BLENDINDEXES)
                        ; /* compared as pairs below */
                    else
                        NEAR(fx[c], fy[c], 1e-6);
            }
    }
    /* Blend data as (joint, weight) sets: the reader sorts by weight. */
    const ossa_vertex_array *ai = ossa_model_find_array(a, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *aw = ossa_model_find_array(a, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    const ossa_vertex_array *bi = ossa_model_find_array(b, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(b, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    for (uint32_t t = 0; t < a->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            float ia[4], wa[4], ib[4], wb[4];
            ossa_vertex_array_read(a, ai, a->triangles[t].v[k], 1, ia);
            ossa_vertex_array_read(a, aw, a->triangles[t].v[k], 1, wa);
            ossa_vertex_array_read(b, bi, b->triangles[t].v[k], 1, ib);
            ossa_vertex_array_read(b, bw, b->triangles[t].v[k], 1, wb);
            for (int s = 0; s < 4; s++) {
                if (wa[s] == 0) continue;
                double found = 0;
                for (int u = 0; u < 4; u++)
                    if (ib[u] == ia[s] && wb[u] > 0) found += wb[u];
                NEAR(found, wa[s], 1e-6);
            }
        }
    ossa_free(iqe, NULL);
    ossa_model_free(a);
    ossa_model_free(b);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube_file),
        cmocka_unit_test(test_robust_sample),
        cmocka_unit_test(test_robust_cube),
        cmocka_unit_test(test_write_text),
        cmocka_unit_test(test_write_general),
        cmocka_unit_test(test_identity_cube),
        cmocka_unit_test(test_identity_sample),
        cmocka_unit_test(test_identity_api_model),
        cmocka_unit_test(test_iqm_to_iqe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
