/* illEngine binary files (docs/formats/ill.md §1, §7): ILLMESH0, ILLMESH1 with
 * primitive groups, ILLSKEL0 (column-major, offset matrices, forward
 * references), ILLANIM0 (bones by index), ILANSET0 (big- and little-endian
 * name lengths), every one built byte by byte here; text/binary detection
 * and its overrides; merging a whole binary set. */
#include "ill_test.h"

static void magic(it_bytes *w, const char *m)
{
    w->n = 0;
    it_raw(w, m, 8);
}

/* -- ILLMESH0 ------------------------------------------------------------------ */

static void test_mesh0(void **state)
{
    (void)state;
    it_bytes w;
    magic(&w, "ILLMESH0");
    it_u8(&w, 0x1f); /* position, normal, tangent, texcoord, blend */
    it_u32(&w, 3);
    it_u16(&w, 3);
    for (int v = 0; v < 3; v++) {
        float p[3] = {(float)v, 0, 1}, n[3] = {0, 0, 1}, t[3] = {1, 0, 0};
        float b[3] = {0, v == 1 ? -1.0f : 1.0f, 0};
        float bi[4] = {(float)v, 300, 0, 0}, bw[4] = {0.75f, 0.25f, 0, 0}, uv[2] = {0.5f, (float)v};
        it_f32s(&w, p, 3);
        it_f32s(&w, n, 3);
        it_f32s(&w, t, 3);
        it_f32s(&w, b, 3);
        it_f32s(&w, bi, 4); /* blend data before the texcoord, as in v0b */
        it_f32s(&w, bw, 4);
        it_f32s(&w, uv, 2);
    }
    it_u16(&w, 0);
    it_u16(&w, 1);
    it_u16(&w, 2);
    ossa_model *m = it_load_bytes(w.b, w.n, 0, "b.illmesh");
    assert_int_equal(m->source_format, OSSA_FORMAT_ILLMESH);
    assert_int_equal(m->num_vertices, 3);
    float v[4];
    it_vertex(m, OSSA_VERTEX_POSITION, NULL, 2, v);
    assert_true(v[0] == 2 && v[2] == 1);
    it_vertex(m, OSSA_VERTEX_TEXCOORD, NULL, 2, v);
    assert_true(v[0] == 0.5f && v[1] == 2);
    it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 1, v);
    assert_true(v[0] == 1 && v[1] == 300); /* above 255: 16-bit indices */
    assert_int_equal(ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL)->format, OSSA_USHORT);
    it_vertex(m, OSSA_VERTEX_TANGENT, NULL, 1, v);
    assert_true(v[3] == -1);
    assert_true(m->triangles[0].v[1] == 2 && m->triangles[0].v[2] == 1);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);

    /* trailing bytes: a warning */
    it_u8(&w, 0);
    m = it_load_bytes(w.b, w.n, 0, "b.illmesh");
    assert_true(it_has_warning(m, "1 bytes after the end"));
    ossa_model_free(m);

    /* docs/formats/ill.md's example header: mask 0x1F, 260 vertices, 966 indices; the
     * vertices (22 floats each) are missing */
    static const unsigned char head[] = {'I', 'L', 'L', 'M', 'E', 'S', 'H', '0',
                                         0x1F, 0x04, 0x01, 0x00, 0x00, 0xC6, 0x03};
    IT_BYTES_ERROR(head, sizeof head, 0, OSSA_ERROR_TRUNCATED, 15, "22880 bytes");
    /* unknown feature bits */
    unsigned char bad[sizeof head];
    memcpy(bad, head, sizeof bad);
    bad[8] = 0x5f;
    IT_BYTES_ERROR(bad, sizeof bad, 0, OSSA_ERROR_UNSUPPORTED, 8, "0x5f");
    /* not whole triangles */
    bad[8] = 0x01;
    bad[13] = 4;
    bad[14] = 0;
    IT_BYTES_ERROR(bad, sizeof bad, 0, OSSA_ERROR_CORRUPT, 13, "multiple of 3");

    /* an index past the vertices, at its byte offset */
    magic(&w, "ILLMESH0");
    it_u8(&w, 1);
    it_u32(&w, 1);
    it_u16(&w, 3);
    it_f32(&w, 1);
    it_f32(&w, 2);
    it_f32(&w, 3);
    it_u16(&w, 0);
    it_u16(&w, 0);
    it_u16(&w, 1);
    IT_BYTES_ERROR(w.b, w.n, 0, OSSA_ERROR_CORRUPT, 31, "vertex 1");
    /* a NaN in the vertices */
    ts_putf32(w.b + 19, NAN);
    IT_BYTES_ERROR(w.b, w.n, 0, OSSA_ERROR_CORRUPT, 19, "not a finite");
}

/* -- ILLMESH1 ------------------------------------------------------------------ */

static void build_mesh1(it_bytes *w, const unsigned char (*groups)[5], int ng,
                        const uint16_t *idx, int ni)
{
    magic(w, "ILLMESH1");
    it_u8(w, 1);
    it_u8(w, (unsigned)ng);
    it_u32(w, 5);
    it_u16(w, (unsigned)ni);
    for (int g = 0; g < ng; g++) it_raw(w, groups[g], 5);
    for (int v = 0; v < 5; v++) {
        it_f32(w, (float)v);
        it_f32(w, (float)(v * v));
        it_f32(w, 0);
    }
    for (int i = 0; i < ni; i++) it_u16(w, idx[i]);
}

static void test_mesh1_groups(void **state)
{
    (void)state;
    /* strip 0 1 2 3 4, fan 0 1 2 3, list 4 3 2, points, a strip restart */
    static const uint16_t idx[] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 3, 2, 0, 1, 1, 2};
    static const unsigned char groups[5][5] = {
        {4, 0, 0, 5, 0}, {5, 5, 0, 4, 0}, {3, 9, 0, 3, 0}, {0, 0, 0, 2, 0}, {4, 12, 0, 4, 0}};
    it_bytes w;
    build_mesh1(&w, groups, 5, idx, 16);
    ossa_model *m = it_load_bytes(w.b, w.n, 0, "g.illmesh");
    /* OpenGL order: strip (0,1,2) (2,1,3) (2,3,4); fan (0,1,2) (0,2,3);
     * list (4,3,2); restart strip 0 1 1 2: (0,1,1) and (1,1,2) dropped.
     * ossa swaps the last two corners of each. */
    static const uint32_t want[6][3] = {{0, 1, 2}, {2, 1, 3}, {2, 3, 4},
                                        {0, 1, 2}, {0, 2, 3}, {4, 3, 2}};
    assert_int_equal(m->num_triangles, 6);
    for (int t = 0; t < 6; t++) {
        assert_int_equal(m->triangles[t].v[0], want[t][0]);
        assert_int_equal(m->triangles[t].v[1], want[t][2]);
        assert_int_equal(m->triangles[t].v[2], want[t][1]);
    }
    assert_true(it_has_warning(m, "points or lines"));
    ossa_model_free(m);

    /* a group past the indices; an unknown primitive type */
    static const unsigned char far[1][5] = {{3, 14, 0, 3, 0}};
    build_mesh1(&w, far, 1, idx, 16);
    IT_BYTES_ERROR(w.b, w.n, 0, OSSA_ERROR_CORRUPT, 17, "out of range");
    static const unsigned char odd[1][5] = {{9, 0, 0, 3, 0}};
    build_mesh1(&w, odd, 1, idx, 16);
    IT_BYTES_ERROR(w.b, w.n, 0, OSSA_ERROR_CORRUPT, 16, "type 9");
    /* groups may share indices: each gives its own triangles */
    static const unsigned char twice[3][5] = {{3, 0, 0, 3, 0}, {3, 0, 0, 3, 0}, {3, 0, 0, 3, 0}};
    build_mesh1(&w, twice, 3, idx, 3);
    m = it_load_bytes(w.b, w.n, 0, "g.illmesh");
    assert_int_equal(m->num_triangles, 3);
    ossa_model_free(m);
    /* ILLMESH1 exists in binary only */
    IT_BYTES_ERROR(w.b, w.n, "ill.encoding=text", OSSA_ERROR_UNSUPPORTED, 0, "binary only");
}

/* -- ILLSKEL0 ------------------------------------------------------------------ */

typedef struct bin_bone {
    double m[16];
    int parent; /* file index; -1 = root (written as the own index) */
} bin_bone;

/* Column-major matrices, each followed by the inverse of its accumulated
 * bind (computed here by inverting the rigid transform). */
static void build_skeleton(it_bytes *w, const bin_bone *b, int n, bool own_index_roots)
{
    magic(w, "ILLSKEL0");
    it_u16(w, (unsigned)n);
    for (int i = 0; i < n; i++) {
        double world[16];
        memcpy(world, b[i].m, sizeof world);
        for (int p = b[i].parent; p >= 0; p = b[p].parent) it_mat_mul(b[p].m, world, world);
        /* inverse of a rotation-translation: R^T, -R^T t */
        double inv[16] = {0};
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) inv[c * 4 + r] = world[r * 4 + c];
        for (int r = 0; r < 3; r++)
            inv[12 + r] = -(inv[r] * world[12] + inv[4 + r] * world[13] + inv[8 + r] * world[14]);
        inv[15] = 1;
        for (int k = 0; k < 16; k++) it_f32(w, (float)b[i].m[k]);
        for (int k = 0; k < 16; k++) it_f32(w, (float)inv[k]);
    }
    for (int i = 0; i < n; i++)
        it_u16(w, b[i].parent < 0 ? (own_index_roots ? (unsigned)i : 0xffffu) : (unsigned)b[i].parent);
}

/* Doom 3 binary layout (docs/formats/ill.md §7): Rx(-90) on <MD5_Root> (the root), an
 * identity <MD5_Hierarchy>, origin, then Body; listed Body first. */
static int md5_bones(bin_bone *b, bool rx_root)
{
    double z[3] = {0, 0, 0}, one[3] = {1, 1, 1}, to[3] = {0, 0, 3}, tb[3] = {1, 2, 30};
    it_trs_axis(1, 15, tb, one, b[0].m); /* Body */
    b[0].parent = 1;
    it_trs_axis(2, 30, to, one, b[1].m); /* origin */
    b[1].parent = 2;
    it_trs_axis(0, 0, z, one, b[2].m); /* <MD5_Hierarchy> */
    b[2].parent = 3;
    it_trs_axis(0, rx_root ? -90 : 0, z, one, b[3].m); /* <MD5_Root> */
    b[3].parent = -1;
    return 4;
}

static bool has_extra(const ossa_model *m, const char *key)
{
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (!strcmp(m->extras[i].key, key)) return true;
    return false;
}

static void test_skeleton(void **state)
{
    (void)state;
    bin_bone b[4];
    int n = md5_bones(b, true);
    it_bytes w;
    build_skeleton(&w, b, n, true);
    ossa_model *m = it_load_bytes(w.b, w.n, 0, "s.illskel");
    assert_int_equal(m->source_format, OSSA_FORMAT_ILLSKEL);
    assert_int_equal(m->num_joints, 4);
    /* no names; parents first: file bones 3, 2, 1, 0 */
    assert_string_equal(m->joints[0].name, "");
    for (int j = 0; j < 4; j++) assert_int_equal(m->joints[j].parent, j - 1);
    float q[4];
    it_quat_axis(0, -90, q);
    TS_ASSERT_QUAT_EQUIV(m->joints[0].bind.rotation, q, 1e-6);
    it_quat_axis(1, 15, q);
    TS_ASSERT_QUAT_EQUIV(m->joints[3].bind.rotation, q, 1e-6);
    IT_NEAR(m->joints[3].bind.translation[2], 30, 1e-6);
    assert_true(has_extra(m, OSSA_EXTRA_JOINT_INDEX));
    /* the root's Rx(-90): the correction applies */
    assert_true(has_extra(m, OSSA_EXTRA_MESH_TO_BIND));
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);

    m = it_load_bytes(w.b, w.n, "ill.md5_fix=off", "s.illskel");
    assert_false(has_extra(m, OSSA_EXTRA_MESH_TO_BIND));
    ossa_model_free(m);
    md5_bones(b, false);
    build_skeleton(&w, b, n, false); /* roots as 0xFFFF */
    m = it_load_bytes(w.b, w.n, 0, "s.illskel");
    assert_false(has_extra(m, OSSA_EXTRA_MESH_TO_BIND));
    assert_int_equal(m->joints[0].parent, -1);
    ossa_model_free(m);
    m = it_load_bytes(w.b, w.n, "ill.md5_fix=on", "s.illskel");
    assert_true(has_extra(m, OSSA_EXTRA_MESH_TO_BIND));
    ossa_model_free(m);

    /* an offset matrix that is not the inverse: a warning at its offset */
    ts_putf32(w.b + 10 + 64 + 12 * 4, 99);
    m = it_load_bytes(w.b, w.n, 0, "s.illskel");
    assert_true(it_has_warning(m, "offset matrices"));
    assert_int_equal(m->warnings[0].offset, 10 + 64);
    ossa_model_free(m);

    /* a parent past the bones; a cycle */
    size_t parents = 10 + 4 * 128;
    ts_put16(w.b + parents + 2, 7);
    IT_BYTES_ERROR(w.b, w.n, 0, OSSA_ERROR_CORRUPT, parents + 2, "parent 7");
    ts_put16(w.b + parents + 2, 0);
    IT_BYTES_ERROR(w.b, w.n, 0, OSSA_ERROR_CORRUPT, parents, "cycle");
    /* truncated inside the parents */
    IT_BYTES_ERROR(w.b, parents + 3, 0, OSSA_ERROR_TRUNCATED, 10, "the bones");
}

/* Ten bones: byte 8 is 0x0A, a newline, yet the file is binary (docs/formats/ill.md §1). */
static void test_detection(void **state)
{
    (void)state;
    bin_bone b[10];
    double z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    for (int i = 0; i < 10; i++) {
        double t[3] = {0, 0, (double)i};
        it_trs_axis(2, 10.0 * i, i ? t : z, one, b[i].m);
        b[i].parent = i - 1;
    }
    it_bytes w;
    build_skeleton(&w, b, 10, true);
    assert_int_equal(w.b[8], '\n');
    ossa_model *m = it_load_bytes(w.b, w.n, 0, "ten.illskel");
    assert_int_equal(m->num_joints, 10);
    ossa_model_free(m);
    /* forced text: the second token is not a count */
    ossa_error err;
    m = it_try(w.b, w.n, "ill.encoding=text", 0, "ten.illskel", &err);
    assert_null(m);
    assert_int_equal(err.line, 2);
    /* and an ASCII file forced binary fails cleanly */
    const char *text = "ILLSKEL0\n1\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n\n-1\nroot\n";
    m = it_try(text, strlen(text), "ill.encoding=binary", 0, "t.illskel", &err);
    if (m) ossa_model_free(m);
    /* text detection: "ILLSKEL0\n1..." */
    m = it_load(text, 0, "t.illskel");
    assert_string_equal(m->joints[0].name, "root");
    ossa_model_free(m);
    /* an encoding that is none, and an option illEngine does not have */
    m = it_try(text, strlen(text), "ill.encoding=binary ill.encoding=bogus", 0, "t", &err);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "'ill.encoding' is one of auto text binary, not 'bogus'"));
    m = it_try(text, strlen(text), "ill.encodings=text", 0, "t", &err);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "reading illskel has no such option"));
    /* a magic alone, or cut short */
    m = it_try("ILLSK", 5, 0, 0, "x.illskel", &err);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_TRUNCATED);
    assert_int_equal(err.offset, 5);
    m = it_try("ILLSKEL9 1", 10, 0, 0, "x.illskel", &err);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_FORMAT);
}

/* -- ILLANIM0 and ILANSET0 ------------------------------------------------------- */

static void channel(it_bytes *w, int width, int n, const float *times, const float *values)
{
    it_u16(w, (unsigned)n);
    for (int i = 0; i < n; i++) {
        it_f32(w, times[i]);
        it_f32s(w, values + i * width, width);
    }
}

/* Duration 1 s; bone 3: positions (0,0,0) at 0 and (4,0,0) at 0.5, one
 * rotation; bone 1: a rotation from identity to Rz(90) at 0.5. */
static void build_anim(it_bytes *w, unsigned second_index)
{
    static const float t2[2] = {0, 0.5f}, t1[1] = {0};
    static const float pos[6] = {0, 0, 0, 4, 0, 0}, rot1[4] = {0, 0, 0, 1};
    float rz[4];
    it_quat_axis(2, 90, rz);
    float rot2[8] = {0, 0, 0, 1, rz[0], rz[1], rz[2], rz[3]};
    magic(w, "ILLANIM0");
    it_f32(w, 1);
    it_u16(w, 2);
    it_u16(w, 3);
    channel(w, 3, 2, t2, pos);
    channel(w, 4, 1, t1, rot1);
    channel(w, 3, 0, NULL, NULL);
    it_u16(w, second_index);
    channel(w, 3, 0, NULL, NULL);
    channel(w, 4, 2, t2, rot2);
    channel(w, 3, 0, NULL, NULL);
}

static void test_anim(void **state)
{
    (void)state;
    it_bytes w;
    build_anim(&w, 1);
    ossa_error err;
    ossa_model *m = it_try(w.b, w.n, 0, 4, "run.illanim", &err);
    assert_non_null(m);
    assert_int_equal(m->source_format, OSSA_FORMAT_ILLANIM);
    assert_int_equal(m->num_joints, 2);
    assert_string_equal(m->joints[0].name, "");
    assert_true(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    const ossa_animation *a = &m->animations[0];
    assert_string_equal(a->name, "run");
    assert_int_equal(a->num_frames, 4);
    assert_int_equal(a->channels[0], OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION);
    assert_int_equal(a->channels[1], OSSA_CHANNEL_ROTATION);
    static const double x[4] = {0, 2, 4, 2};
    for (int f = 0; f < 4; f++) IT_NEAR(a->frames[f * 2].translation[0], x[f], 1e-6);
    float rz45[4];
    it_quat_axis(2, 45, rz45);
    TS_ASSERT_QUAT_EQUIV(a->frames[1 * 2 + 1].rotation, rz45, 1e-6);
    ossa_model_free(m);

    /* a bone with two tracks */
    build_anim(&w, 3);
    IT_BYTES_ERROR(w.b, w.n, 0, OSSA_ERROR_CORRUPT, 74, "bone 3");
    /* times out of order */
    build_anim(&w, 1);
    ts_putf32(w.b + 34, -1); /* the second position key's time */
    IT_BYTES_ERROR(w.b, w.n, 0, OSSA_ERROR_CORRUPT, 34, "comes before");
    /* a key count past the end */
    build_anim(&w, 1);
    IT_BYTES_ERROR(w.b, 60, 0, OSSA_ERROR_TRUNCATED, 52, "rotation keys");
}

static void build_anset(it_bytes *w, const char *const *names, int n, bool big_endian)
{
    magic(w, "ILANSET0");
    it_u16(w, (unsigned)n);
    for (int i = 0; i < n; i++) {
        unsigned len = (unsigned)strlen(names[i]);
        if (big_endian)
            it_u16be(w, len);
        else
            it_u16(w, len);
        it_raw(w, names[i], len);
    }
}

static void test_anset(void **state)
{
    (void)state;
    static const char *const names[4] = {"Body", "origin", "<MD5_Hierarchy>", "<MD5_Root>"};
    it_bytes w;
    build_anset(&w, names, 4, true);
    ossa_model *m = it_load_bytes(w.b, w.n, 0, "hero.illanset");
    assert_int_equal(m->source_format, OSSA_FORMAT_ILLANSET);
    assert_true(m->flags & OSSA_MODEL_NAMES_ONLY);
    assert_int_equal(m->num_joints, 4);
    assert_string_equal(m->joints[3].name, "<MD5_Root>");
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);
    /* the transient little-endian variant */
    build_anset(&w, names, 4, false);
    m = it_load_bytes(w.b, w.n, 0, "hero.illanset");
    assert_string_equal(m->joints[2].name, "<MD5_Hierarchy>");
    assert_true(it_has_warning(m, "little-endian"));
    ossa_model_free(m);
    /* cut inside a name */
    build_anset(&w, names, 4, true);
    IT_BYTES_ERROR(w.b, w.n - 3, 0, OSSA_ERROR_TRUNCATED, 41, "bone name");
}

/* mesh, skeleton, names and animation of one binary set, merged in the
 * CLI's order: blend indices follow the skeleton's reordering, the mesh
 * turns by Rx(-90), the names attach by index and the animation drives
 * bones by index. */
static void test_binary_set(void **state)
{
    (void)state;
    bin_bone b[4];
    md5_bones(b, true);
    it_bytes sk, mesh, names, anim;
    build_skeleton(&sk, b, 4, true);
    static const char *const nm[4] = {"Body", "origin", "<MD5_Hierarchy>", "<MD5_Root>"};
    build_anset(&names, nm, 4, true);
    /* one triangle: vertex 0 on Body (file bone 0), vertex 1 on origin (1) */
    magic(&mesh, "ILLMESH0");
    it_u8(&mesh, 0x11);
    it_u32(&mesh, 3);
    it_u16(&mesh, 3);
    for (int v = 0; v < 3; v++) {
        float p[3] = {1, 2, (float)(3 + v)}, bi[4] = {(float)(v == 1), 0, 0, 0}, bw[4] = {1, 0, 0, 0};
        it_f32s(&mesh, p, 3);
        it_f32s(&mesh, bi, 4);
        it_f32s(&mesh, bw, 4);
    }
    for (int i = 0; i < 3; i++) it_u16(&mesh, (unsigned)i);
    build_anim(&anim, 1);

    for (int order = 0; order < 2; order++) {
        ossa_model *m = it_load_bytes(mesh.b, mesh.n, 0, "hero.illmesh");
        if (order == 0) {
            m = it_merge(m, it_load_bytes(sk.b, sk.n, 0, "hero.illskel"));
            m = it_merge(m, it_load_bytes(names.b, names.n, 0, "hero.illanset"));
        } else {
            ossa_model *n = it_load_bytes(names.b, names.n, 0, "hero.illanset");
            n = it_merge(n, it_load_bytes(sk.b, sk.n, 0, "hero.illskel"));
            ossa_model *t = m;
            m = n;
            m = it_merge(m, t);
        }
        ossa_error err;
        ossa_model *an = it_try(anim.b, anim.n, 0, 4, "run.illanim", &err);
        assert_non_null(an);
        m = it_merge(m, an);
        assert_int_equal(m->num_joints, 4);
        assert_false(m->flags & OSSA_MODEL_NAMES_ONLY);
        /* model order: <MD5_Root>, <MD5_Hierarchy>, origin, Body */
        assert_string_equal(m->joints[0].name, "<MD5_Root>");
        assert_string_equal(m->joints[2].name, "origin");
        assert_string_equal(m->joints[3].name, "Body");
        float v[4];
        it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, v);
        assert_true(v[0] == 3);
        it_vertex(m, OSSA_VERTEX_BLENDINDEXES, NULL, 1, v);
        assert_true(v[0] == 2);
        /* Rx(-90): (x, y, z) -> (x, z, -y) */
        it_vertex(m, OSSA_VERTEX_POSITION, NULL, 0, v);
        assert_true(v[0] == 1 && v[1] == 3 && v[2] == -2);
        /* file bone 3 (<MD5_Root>) has positions, file bone 1 (origin) a
         * rotation; the others keep their bind pose */
        assert_int_equal(m->num_animations, 1);
        const ossa_animation *a = &m->animations[0];
        assert_int_equal(a->channels[0], OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION);
        assert_int_equal(a->channels[2], OSSA_CHANNEL_ROTATION);
        assert_int_equal(a->channels[3], 0);
        IT_NEAR(a->frames[2 * 4 + 0].translation[0], 4, 1e-6);
        IT_NEAR(a->frames[2 * 4 + 3].translation[2], 30, 1e-6);
        assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
        ossa_model_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mesh0),     cmocka_unit_test(test_mesh1_groups),
        cmocka_unit_test(test_skeleton),  cmocka_unit_test(test_detection),
        cmocka_unit_test(test_anim),      cmocka_unit_test(test_anset),
        cmocka_unit_test(test_binary_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
