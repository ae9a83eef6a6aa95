/* The FBX writer: the binary container checked byte for byte against
 * values worked out by hand from ../shared/formats/fbx.md §2 (header, a
 * record, an array record raw and zlib-compressed, the footer), the
 * document's settings, key times and Euler unrolling, and round trips
 * through ossa's reader of generated models and of every shared sample
 * with a skeleton or a mesh (joints, bind poses, triangle corners, weights
 * and every frame). */
#include "fbx_write_test.h"

#include <zlib.h>

/* The errors ossa_model_validate finds. */
static void count_error(void *user, const ossa_diagnostic *d)
{
    if (d->severity == OSSA_SEVERITY_ERROR) ++*(uint32_t *)user;
}

static uint32_t count_errors(const ossa_model *m)
{
    uint32_t n = 0;
    ossa_model_validate(m, count_error, &n, NULL);
    return n;
}

/* Written facing where the model faces: these tests compare what FBX
 * keeps (turning to a format's front: test_front.c). */
static unsigned char *write_fbx(const ossa_model *m, size_t *size)
{
    ossa_write_options o = {.format = OSSA_FORMAT_FBX, .flags = OSSA_WRITE_KEEP_FRONT};
    return ts_write(m, &o, size);
}

static ossa_model *read_fbx(const unsigned char *d, size_t size)
{
    ossa_load_options lo = {.format = OSSA_FORMAT_FBX};
    ossa_error err;
    ossa_model *m = ossa_load_memory(d, size, &lo, &err);
    if (!m) {
        char msg[600];
        print_error("%s\n", ossa_error_format(&err, msg, sizeof msg));
        fail();
    }
    return m;
}

static ossa_transform trs(float tx, float ty, float tz, float ax, float ay, float az, float angle,
                          float s)
{
    ossa_transform t = ossa_transform_identity();
    t.translation[0] = tx;
    t.translation[1] = ty;
    t.translation[2] = tz;
    double n = sqrt((double)ax * ax + (double)ay * ay + (double)az * az);
    if (n > 0) {
        t.rotation[0] = (float)(ax / n * sin(angle / 2));
        t.rotation[1] = (float)(ay / n * sin(angle / 2));
        t.rotation[2] = (float)(az / n * sin(angle / 2));
        t.rotation[3] = (float)cos(angle / 2);
    }
    t.scale[0] = t.scale[1] = t.scale[2] = s;
    return t;
}

/* Joints listed breadth first (not the reader's depth-first order), a
 * scaled joint, two meshes with materials (one textured, its image in the
 * model), normals, tangents, two texture coordinate sets, colours, float
 * weights on up to 3 joints; two animations at 24 fps, one spinning a
 * joint 40 degrees a frame about z (760 degrees in all). */
static ossa_model *generated(void)
{
    ts_joint joints[5] = {{"hips", -1, trs(0.5f, -1, 2, 1, 0, 0, 0.3f, 1), true},
                          {"spine", 0, trs(0, 0, 1, 0, 0, 1, -1.2f, 1), true},
                          {"thigh", 0, trs(0, 0.25f, 1, 0, 1, 1, 2.5f, 2), true},
                          {"neck", 1, trs(1, 0, 0, 1, 1, 1, 0.7f, 0.5f), true},
                          {"shin", 2, trs(0, 2, 0, 0, 0, 1, 3.0f, 1), true}};
    enum { NV = 12 };
    float pos[NV * 3], nrm[NV * 3], tan[NV * 4], uv[NV * 2], uv2[NV * 2], col[NV * 4], idx[NV * 4],
        wgt[NV * 4];
    uint64_t seed = 7;
    for (uint32_t v = 0; v < NV; v++) {
        for (int k = 0; k < 3; k++) pos[v * 3 + k] = (float)(ts_rand(&seed) % 2000) / 100 - 10;
        double a = v * 0.5, b = v * 0.3;
        nrm[v * 3] = (float)(cos(a) * cos(b));
        nrm[v * 3 + 1] = (float)(sin(a) * cos(b));
        nrm[v * 3 + 2] = (float)sin(b);
        tan[v * 4] = (float)-sin(a);
        tan[v * 4 + 1] = (float)cos(a);
        tan[v * 4 + 2] = 0;
        tan[v * 4 + 3] = v % 3 ? 1.0f : -1.0f;
        uv[v * 2] = (float)v / NV;
        uv[v * 2 + 1] = 1 - (float)v / 16;
        uv2[v * 2] = 0.25f * (float)(v % 4);
        uv2[v * 2 + 1] = 0.125f * (float)(v % 8);
        for (int k = 0; k < 4; k++) col[v * 4 + k] = (float)((v + k) % 5) / 4;
        float w3[3] = {0.5f, 0.3f, 0.2f};
        for (int k = 0; k < 4; k++) {
            idx[v * 4 + k] = k < 3 ? (float)((v + (uint32_t)k) % 5) : 0;
            wgt[v * 4 + k] = k < (int)(v % 3) + 1 ? w3[k] : 0;
        }
    }
    const ts_array arrays[8] = {{OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos},
                                {OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm},
                                {OSSA_VERTEX_TANGENT, OSSA_FLOAT, 4, NULL, tan},
                                {OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv},
                                {OSSA_VERTEX_CUSTOM, OSSA_FLOAT, 2, "lightmap", uv2},
                                {OSSA_VERTEX_COLOR, OSSA_FLOAT, 4, NULL, col},
                                {OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, idx},
                                {OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL, wgt}};
    static const ossa_triangle tris[6] = {{{0, 1, 2}}, {{2, 1, 3}}, {{4, 5, 6}},
                                          {{11, 10, 9}}, {{9, 8, 11}}, {{7, 8, 9}}};
    static const ts_mesh meshes[2] = {{"body", "skin", 0, 7, 0, 3}, {"coat", "cloth", 7, 5, 3, 3}};
    static const char skin[] = "base_color 0.5 0.25 1 1\nmetallic 0.25\nroughness 0.75\n"
                               "base_color_texture skin.png\n";
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 1, 2, 3};
    static const ts_extra extras[2] = {{OSSA_EXTRA_MATERIAL "skin", skin, sizeof skin - 1},
                                       {OSSA_EXTRA_IMAGE "skin.png", png, sizeof png}};
    static const ts_anim anims[2] = {{"spin", 20, 24, 0}, {"walk", 7, 24, 0}};
    ts_model_spec spec = {.num_joints = 5, .joints = joints, .num_vertices = NV, .num_arrays = 8,
                          .arrays = arrays, .num_triangles = 6, .triangles = tris, .num_meshes = 2,
                          .meshes = meshes, .num_extras = 2, .extras = extras,
                          .num_animations = 2, .animations = anims};
    ossa_model *m = ts_model_build(&spec);
    ossa_transform *spin = m->animations[0].frames, *walk = m->animations[1].frames;
    for (uint32_t f = 0; f < 20; f++)
        spin[f * 5 + 3] = trs(1, 0, 0, 0, 0, 1, (float)(f * 40 * 3.14159265358979323846 / 180), 0.5f);
    for (uint32_t f = 0; f < 7; f++) {
        walk[f * 5].translation[1] = 0.25f * (float)f;
        walk[f * 5 + 4] = trs(0, 2, 0, 1, 0, 0, 0.2f * (float)f, 1 + 0.1f * (float)f);
    }
    return m;
}

/* -- The container, byte for byte ------------------------------------------- */

static void test_header_and_first_record(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_add_joint(m, "root", -1, NULL, &err), 0);
    size_t size;
    unsigned char *d = write_fbx(m, &size);
    /* §2.1: 21 bytes of text and NUL, 0x1A 0x00, u32 version 7400. */
    static const unsigned char header[27] = {'K', 'a', 'y', 'd', 'a', 'r', 'a', ' ', 'F', 'B', 'X',
                                             ' ', 'B', 'i', 'n', 'a', 'r', 'y', ' ', ' ', 0,
                                             0x1a, 0,    0xe8, 0x1c, 0,   0};
    assert_memory_equal(d, header, 27);
    /* The first record, FBXHeaderExtension, has no values: 13-byte header,
     * name of 18 bytes; its first child starts at 27 + 13 + 18 = 58:
     * FBXHeaderVersion, one 'I' value 1003 = 0x3EB, so it ends at
     * 58 + 13 + 16 + 5 = 92 with 5 bytes of values. */
    assert_int_equal(ts_le32(d + 27 + 4), 0);
    assert_int_equal(ts_le32(d + 27 + 8), 0);
    assert_int_equal(d[27 + 12], 18);
    assert_memory_equal(d + 40, "FBXHeaderExtension", 18);
    static const unsigned char first[34] = {92, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 16,
                                            'F', 'B', 'X', 'H', 'e', 'a', 'd', 'e', 'r',
                                            'V', 'e', 'r', 's', 'i', 'o', 'n', 'I', 0xeb, 3, 0, 0};
    assert_memory_equal(d + 58, first, sizeof first);
    /* Then FBXVersion 7400: ends at 92 + 13 + 10 + 5 = 120. */
    assert_int_equal(ts_le32(d + 92), 120);
    assert_memory_equal(d + 92 + 13, "FBXVersionI", 11);
    assert_int_equal(ts_le32(d + 92 + 24), 7400);
    ossa_free(d, NULL);
    ossa_model_free(m);
}

static void test_footer(void **state)
{
    (void)state;
    ossa_model *m = generated();
    size_t size;
    unsigned char *d = write_fbx(m, &size);
    /* §2.5 as Blender writes it: after the top-level null record, the
     * 16-byte block fa bc ab 09 ..., 4 zero bytes, zeros to the next
     * multiple of 16 (16 when there), u32 7400, 120 zeros, f8 5a 8c 6a ... */
    static const unsigned char id[16] = {0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66,
                                         0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e};
    static const unsigned char end[16] = {0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e,
                                          0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b};
    size_t at = 27;
    fw_rec r = {0};
    while (fw_read(d, size, at, &r) && r.end) at = r.end; /* the top-level records */
    static const unsigned char zero[120] = {0};
    assert_memory_equal(d + at, zero, 13); /* the null record */
    at += 13;
    assert_memory_equal(d + at, id, 16);
    assert_memory_equal(d + at + 16, zero, 4);
    size_t pad = 16 - (at + 20) % 16;
    assert_memory_equal(d + at + 20, zero, pad);
    at += 20 + pad;
    assert_int_equal(at % 16, 0);
    assert_int_equal(ts_le32(d + at), 7400);
    assert_memory_equal(d + at + 4, zero, 120);
    assert_memory_equal(d + at + 124, end, 16);
    assert_int_equal(size, at + 140);
    assert_int_equal(size % 16, 12);
    ossa_free(d, NULL);
    ossa_model_free(m);
}

static void test_arrays(void **state)
{
    (void)state;
    ossa_model *m = generated();
    size_t size;
    unsigned char *d = write_fbx(m, &size);
    fw_rec objects = {0}, pose = {0}, node = {0}, matrix = {0}, geom = {0}, verts = {0};
    assert_true(fw_child(d, size, NULL, "Objects", &objects));
    /* A raw array: the first PoseNode's Matrix, 16 doubles = 128 bytes,
     * not above 128: encoding 0. Header: 'd', count 16, encoding 0, 128
     * bytes; the record holds 1 value of 1 + 12 + 128 = 141 bytes. */
    assert_true(fw_child(d, size, &objects, "Pose", &pose));
    assert_true(fw_child(d, size, &pose, "PoseNode", &node));
    assert_true(fw_child(d, size, &node, "Matrix", &matrix));
    assert_int_equal(matrix.num_values, 1);
    assert_int_equal(matrix.values_len, 141);
    static const unsigned char head[13] = {'d', 16, 0, 0, 0, 0, 0, 0, 0, 128, 0, 0, 0};
    assert_memory_equal(d + matrix.values, head, 13);
    /* The joint "hips" at the root: its world matrix is its own T·R·S. */
    float mf[16];
    ossa_transform_to_matrix(&m->joints[0].bind, mf);
    for (int k = 0; k < 16; k++) TS_ASSERT_NEAR(fw_f64(d + matrix.values + 13 + 8 * k), mf[k], 1e-6);
    /* A zlib array: the first Geometry's Vertices, 3 doubles per control
     * point (7 of "body"'s: 168 bytes): encoding 1, a level-1 zlib stream
     * (0x78 0x01) that inflates to the positions in the order the
     * triangles (a, c, b) meet them: 0, 2, 1, 3, 4, 6, 5. */
    assert_true(fw_child(d, size, &objects, "Geometry", &geom));
    assert_true(fw_child(d, size, &geom, "Vertices", &verts));
    char type;
    size_t p = fw_value(d, &verts, 0, &type);
    assert_int_equal(type, 'd');
    assert_int_equal(ts_le32(d + p), 21);
    assert_int_equal(ts_le32(d + p + 4), 1);
    uint32_t n = ts_le32(d + p + 8);
    assert_int_equal(verts.values_len, 13 + n);
    assert_int_equal(d[p + 12], 0x78);
    assert_int_equal(d[p + 13], 0x01);
    unsigned char out[168];
    uLongf out_len = sizeof out;
    assert_int_equal(uncompress(out, &out_len, d + p + 12, n), Z_OK);
    assert_int_equal(out_len, 168);
    static const uint32_t order[7] = {0, 2, 1, 3, 4, 6, 5};
    const ossa_vertex_array *pa = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    for (int c = 0; c < 7; c++)
        for (int k = 0; k < 3; k++)
            assert_true(fw_f64(out + 8 * (3 * c + k)) == ((float *)pa->data)[order[c] * 3 + k]);
    /* PolygonVertexIndex: (0, 1, 2) -> 0, 2, ~1 = -2; (2, 1, 3) -> 2, 3, ~1.
     * 6 ints = 24 bytes: raw. */
    fw_rec pvi = {0};
    assert_true(fw_child(d, size, &geom, "PolygonVertexIndex", &pvi));
    p = fw_value(d, &pvi, 0, &type);
    assert_int_equal(type, 'i');
    assert_int_equal(ts_le32(d + p), 9);
    assert_int_equal(ts_le32(d + p + 4), 0);
    static const int32_t want[9] = {0, 1, -3, 1, 3, -3, 4, 5, -7};
    for (int k = 0; k < 9; k++) assert_int_equal((int32_t)ts_le32(d + p + 12 + 4 * k), want[k]);
    ossa_free(d, NULL);
    ossa_model_free(m);
}

/* -- The document ------------------------------------------------------------ */

/* The P record named `name` in a Properties70 record. */
static bool find_p(const unsigned char *d, size_t size, const fw_rec *props, const char *name,
                   fw_rec *out)
{
    fw_rec p = {0};
    if (!fw_child(d, size, props, "P", &p)) return false;
    do {
        char type;
        size_t at = fw_value(d, &p, 0, &type);
        if (ts_le32(d + at) == strlen(name) && memcmp(d + at + 4, name, strlen(name)) == 0) {
            *out = p;
            return true;
        }
    } while (fw_next(d, size, props, &p, &p));
    return false;
}

static void test_global_settings_and_key_times(void **state)
{
    (void)state;
    ossa_model *m = generated();
    size_t size;
    unsigned char *d = write_fbx(m, &size);
    fw_rec gs = {0}, props = {0}, p = {0};
    assert_true(fw_child(d, size, NULL, "GlobalSettings", &gs));
    assert_true(fw_child(d, size, &gs, "Properties70", &props));
    /* §9: Z up, front -Y, right +X; metres (100 cm per unit); 24 fps is
     * TimeMode 11. */
    static const struct {
        const char *name;
        int32_t value;
    } ints[] = {{"UpAxis", 2}, {"UpAxisSign", 1}, {"FrontAxis", 1}, {"FrontAxisSign", -1},
                {"CoordAxis", 0}, {"CoordAxisSign", 1}, {"TimeMode", 11}};
    char type;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        assert_true(find_p(d, size, &props, ints[i].name, &p));
        size_t at = fw_value(d, &p, 4, &type);
        assert_int_equal(type, 'I');
        assert_int_equal((int32_t)ts_le32(d + at), ints[i].value);
    }
    assert_true(find_p(d, size, &props, "UnitScaleFactor", &p));
    assert_true(fw_f64(d + fw_value(d, &p, 4, &type)) == 100);
    /* The longest animation, 20 frames: 19 / 24 s = 19 x 1924423250 ticks. */
    assert_true(find_p(d, size, &props, "TimeSpanStop", &p));
    assert_int_equal(fw_i64(d + fw_value(d, &p, 4, &type)), 19LL * 1924423250LL);
    /* The first curve with a key per frame: times f x 46186158000 / 24. */
    fw_rec objects = {0}, curve = {0}, kt = {0};
    assert_true(fw_child(d, size, NULL, "Objects", &objects));
    assert_true(fw_child(d, size, &objects, "AnimationCurve", &curve));
    bool found = false;
    do {
        assert_true(fw_child(d, size, &curve, "KeyTime", &kt));
        size_t at = fw_value(d, &kt, 0, &type);
        if (ts_le32(d + at) != 20) continue;
        found = true;
        assert_int_equal(type, 'l');
        unsigned char times[160];
        const unsigned char *t = d + at + 12;
        if (ts_le32(d + at + 4) == 1) {
            uLongf len = sizeof times;
            assert_int_equal(uncompress(times, &len, t, ts_le32(d + at + 8)), Z_OK);
            assert_int_equal(len, 160);
            t = times;
        }
        for (int f = 0; f < 20; f++) assert_int_equal(fw_i64(t + 8 * f), (int64_t)f * 1924423250LL);
    } while (!found && fw_next(d, size, &objects, &curve, &curve));
    assert_true(found);
    ossa_free(d, NULL);
    ossa_model_free(m);
}

/* A rate outside §9's table: TimeMode 14 with CustomFrameRate, keys at
 * f x 46186158000 / 12.5 = f x 3694892640 ticks. */
static void test_custom_rate(void **state)
{
    (void)state;
    ossa_model *m = generated();
    ossa_error err;
    for (uint32_t a = 0; a < 2; a++)
        assert_int_equal(ossa_model_set_animation_timing(m, a, 12.5f, 0, &err), OSSA_OK);
    size_t size;
    unsigned char *d = write_fbx(m, &size);
    fw_rec gs = {0}, props = {0}, p = {0};
    char type;
    assert_true(fw_child(d, size, NULL, "GlobalSettings", &gs));
    assert_true(fw_child(d, size, &gs, "Properties70", &props));
    assert_true(find_p(d, size, &props, "TimeMode", &p));
    assert_int_equal(ts_le32(d + fw_value(d, &p, 4, &type)), 14);
    assert_true(find_p(d, size, &props, "CustomFrameRate", &p));
    assert_true(fw_f64(d + fw_value(d, &p, 4, &type)) == 12.5);
    assert_true(find_p(d, size, &props, "TimeSpanStop", &p));
    assert_int_equal(fw_i64(d + fw_value(d, &p, 4, &type)), 19LL * 3694892640LL);
    ossa_model *b = read_fbx(d, size);
    fw_compare(m, b, 1e-6);
    ossa_model_free(b);
    ossa_free(d, NULL);
    ossa_model_free(m);
}

/* The spinning joint's z curve: 40 degrees a frame all the way (760 in
 * all), never back by 360. The first R curve node is "neck"'s (the only
 * joint whose rotation moves): its curves are x, y, z in order. */
static void test_euler_unrolled(void **state)
{
    (void)state;
    ossa_model *m = generated();
    size_t size;
    unsigned char *d = write_fbx(m, &size);
    fw_rec objects = {0}, curve = {0}, kv = {0};
    char type;
    assert_true(fw_child(d, size, NULL, "Objects", &objects));
    assert_true(fw_child(d, size, &objects, "AnimationCurve", &curve));
    int seen = 0;
    bool found = false;
    do {
        assert_true(fw_child(d, size, &curve, "KeyValueFloat", &kv));
        size_t at = fw_value(d, &kv, 0, &type);
        if (ts_le32(d + at) != 20) continue;
        assert_int_equal(type, 'f');
        float v[20];
        unsigned char raw[80];
        const unsigned char *src = d + at + 12;
        if (ts_le32(d + at + 4) == 1) {
            uLongf len = sizeof raw;
            assert_int_equal(uncompress(raw, &len, src, ts_le32(d + at + 8)), Z_OK);
            src = raw;
        }
        for (int f = 0; f < 20; f++) v[f] = ts_lef32(src + 4 * f);
        double spread = fabs((double)v[19] - v[0]);
        if (spread < 1) { /* x or y: constant */
            seen++;
            continue;
        }
        found = true;
        for (int f = 1; f < 20; f++) TS_ASSERT_NEAR(v[f] - v[f - 1], 40, 1e-3);
    } while (!found && fw_next(d, size, &objects, &curve, &curve));
    assert_true(found);
    ossa_free(d, NULL);
    ossa_model_free(m);
}

static void test_euler_exact(void **state)
{
    (void)state;
    /* Rotations that the quaternion -> Euler -> quaternion path must give
     * back within the float rounding of the key values: half turns about
     * each axis, gimbal lock (y = +-90 degrees) and random ones. */
    uint64_t seed = 99;
    for (int i = 0; i < 200; i++) {
        float q[4];
        if (i < 8) {
            static const float fixed[8][4] = {{0, 0, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0},
                                              {0, 0.70710678f, 0, 0.70710678f},
                                              {0, -0.70710678f, 0, 0.70710678f},
                                              {0.5f, 0.5f, 0.5f, 0.5f}, {0.5f, -0.5f, 0.5f, 0.5f}};
            memcpy(q, fixed[i], sizeof q);
        } else {
            double s = 0;
            for (int k = 0; k < 4; k++) {
                q[k] = (float)((double)(ts_rand(&seed) % 20001) / 10000 - 1);
                s += (double)q[k] * q[k];
            }
            for (int k = 0; k < 4; k++) q[k] = (float)(q[k] / sqrt(s));
        }
        /* A frame of an animation: keyed as Euler degrees in floats. */
        ossa_error err;
        ossa_model *m = ossa_model_create(NULL);
        assert_int_equal(ossa_model_add_joint(m, "j", -1, NULL, &err), 0);
        ossa_animation *an = ossa_model_add_animation(m, "a", 1, 30, 0, &err);
        memcpy(an->frames[0].rotation, q, sizeof q);
        size_t size;
        unsigned char *d = write_fbx(m, &size);
        ossa_model *b = read_fbx(d, size);
        TS_ASSERT_QUAT_EQUIV(b->animations[0].frames[0].rotation, q, 5e-7);
        ossa_model_free(b);
        ossa_free(d, NULL);
        ossa_model_free(m);
    }
}

/* -- Round trips ------------------------------------------------------------- */

static void test_round_trip_generated(void **state)
{
    (void)state;
    ossa_model *m = generated();
    size_t size, size2;
    unsigned char *d = write_fbx(m, &size);
    unsigned char *d2 = write_fbx(m, &size2);
    /* The output depends on the model alone. */
    assert_int_equal(size, size2);
    assert_memory_equal(d, d2, size);
    ossa_model *b = read_fbx(d, size);
    fw_compare(m, b, 1e-6);
    assert_int_equal(ossa_model_validate(b, NULL, NULL, NULL), OSSA_OK);
    assert_int_equal(b->num_warnings, 0);
    /* The material and its embedded image come back. */
    const ossa_extra *img = NULL, *mat = NULL;
    for (uint32_t i = 0; i < b->num_extras; i++) {
        if (strcmp(b->extras[i].key, OSSA_EXTRA_IMAGE "skin.png") == 0) img = &b->extras[i];
        if (strcmp(b->extras[i].key, OSSA_EXTRA_MATERIAL "skin") == 0) mat = &b->extras[i];
    }
    assert_non_null(img);
    assert_int_equal(img->size, 11);
    assert_memory_equal(img->data, m->extras[1].data, 11);
    assert_non_null(mat);
    char text[256];
    snprintf(text, sizeof text, "%.*s", (int)mat->size, (const char *)mat->data);
    assert_non_null(strstr(text, "base_color_texture skin.png"));
    assert_non_null(strstr(text, "metallic 0.25"));
    assert_non_null(strstr(text, "roughness 0.75"));
    ossa_model_free(b);
    ossa_free(d, NULL);
    ossa_free(d2, NULL);
    ossa_model_free(m);
}

/* Without embedding (images NONE), the texture names the image and the
 * file holds no Content. */
static void test_images_none(void **state)
{
    (void)state;
    ossa_model *m = generated();
    ossa_write_options o = {.format = OSSA_FORMAT_FBX, .images = OSSA_IMAGES_NONE};
    size_t size;
    unsigned char *d = ts_write(m, &o, &size);
    fw_rec objects = {0}, video = {0}, content = {0};
    assert_true(fw_child(d, size, NULL, "Objects", &objects));
    assert_true(fw_child(d, size, &objects, "Video", &video));
    assert_false(fw_child(d, size, &video, "Content", &content));
    ossa_model *b = read_fbx(d, size);
    for (uint32_t i = 0; i < b->num_extras; i++)
        assert_null(strstr(b->extras[i].key, OSSA_EXTRA_IMAGE));
    ossa_model_free(b);
    ossa_free(d, NULL);
    ossa_model_free(m);
}

/* ossa_write_file with images beside: skin.png next to the .fbx. */
static void test_images_beside(void **state)
{
    (void)state;
    ossa_model *m = generated();
    char *path = ts_tmp_path("fbxw_beside.fbx"), *png = ts_tmp_path("skin.png");
    remove(png);
    ossa_write_options o = {.images = OSSA_IMAGES_BESIDE};
    ossa_error err;
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    size_t n;
    unsigned char *bytes = ts_read_file(png, &n);
    assert_non_null(bytes);
    assert_int_equal(n, 11);
    assert_memory_equal(bytes, m->extras[1].data, 11);
    free(bytes);
    size_t size;
    unsigned char *d = ts_read_file(path, &size);
    fw_rec objects = {0}, video = {0}, content = {0}, rel = {0};
    assert_true(fw_child(d, size, NULL, "Objects", &objects));
    assert_true(fw_child(d, size, &objects, "Video", &video));
    assert_false(fw_child(d, size, &video, "Content", &content));
    assert_true(fw_child(d, size, &video, "RelativeFilename", &rel));
    char type;
    size_t at = fw_value(d, &rel, 0, &type);
    assert_int_equal(ts_le32(d + at), 8);
    assert_memory_equal(d + at + 4, "skin.png", 8);
    free(d);
    remove(path);
    remove(png);
    free(path);
    free(png);
    ossa_model_free(m);
}

/* What readers would refuse is not written: a bind pose that cannot be
 * inverted (a zero scale), a frame that is not finite. */
static void test_refuses_what_readers_refuse(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform flat = trs(0, 0, 1, 0, 0, 1, 0, 1);
    flat.scale[2] = 0;
    assert_int_equal(ossa_model_add_joint(m, "root", -1, NULL, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "flat", 0, &flat, &err), 1);
    ossa_write_options o = {.format = OSSA_FORMAT_FBX};
    void *data = (void *)1;
    size_t size = 1;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "joint 1 ('flat')"));
    assert_null(data);
    ossa_model_free(m);
    m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_add_joint(m, "root", -1, NULL, &err), 0);
    ossa_animation *an = ossa_model_add_animation(m, "a", 2, 30, 0, &err);
    an->frames[1].translation[0] = INFINITY;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "frame 1 joint 0"));
    ossa_model_free(m);
}

static void round_trip_shared(const char *rel)
{
    unsigned char *file;
    size_t fsize;
    ossa_model *a = ts_load_shared(rel, &file, &fsize);
    size_t size;
    unsigned char *d = write_fbx(a, &size);
    ossa_model *b = read_fbx(d, size);
    printf("%-28s %3u joints %5u triangles %2u animations -> %zu bytes\n", rel, a->num_joints,
           a->num_triangles, a->num_animations, size);
    /* FBX gets one pose: a glTF model with a rest pose as it rests. */
    assert_int_equal(ossa_model_apply_rest_pose(a, NULL), OSSA_OK);
    fw_compare(a, b, 1e-5);
    /* `validate` finds nothing in the output that it did not find in the
     * input. */
    assert_true(count_errors(b) <= count_errors(a));
    ossa_model_free(b);
    ossa_free(d, NULL);
    ossa_model_free(a);
    free(file);
}

static void test_round_trip_shared(void **state)
{
    (void)state;
    ts_require_shared_data();
    static const char *const files[] = {
        "iqm/guy.iqm",          "iqm/guyanim.iqm",        "iqe/test_cube.iqe",
        "gltf/CesiumMan.glb",   "gltf/Fox.glb",           "gltf/RiggedFigure.glb",
        "gltf/RiggedSimple.glb", "gltf/SimpleSkin.gltf",  "gltf/greenman.glb",
        "gltf/robot.glb",       "md5/SimpleCube.md5mesh", "smd/holy_grailref.smd",
        "smd/triangle.smd",     "obj/box.obj",            "obj/cube_usemtl.obj",
        "obj/cube_with_vertexcolors.obj", "obj/concave_polygon.obj", "obj/number_formats.obj",
        "fbx/huesitos.fbx",     "fbx/box.fbx",            "fbx/box_ascii.fbx",
        "fbx/boxWithCompressedCTypeArray.FBX"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) round_trip_shared(files[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_and_first_record),
        cmocka_unit_test(test_footer),
        cmocka_unit_test(test_arrays),
        cmocka_unit_test(test_global_settings_and_key_times),
        cmocka_unit_test(test_custom_rate),
        cmocka_unit_test(test_euler_unrolled),
        cmocka_unit_test(test_euler_exact),
        cmocka_unit_test(test_round_trip_generated),
        cmocka_unit_test(test_images_none),
        cmocka_unit_test(test_images_beside),
        cmocka_unit_test(test_refuses_what_readers_refuse),
        cmocka_unit_test(test_round_trip_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
