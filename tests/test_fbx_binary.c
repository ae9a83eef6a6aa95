/* The binary FBX container (formats/fbx.md §2) through a small writer
 * built here from the spec: both record header widths, every value type,
 * raw and zlib arrays; malformed containers with their byte offsets;
 * truncation, byte-patch and allocation-failure sweeps over binary and
 * ASCII files. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct bb {
    unsigned char *d;
    size_t n, cap;
    bool wide;
} bb;

static unsigned char *bb_push(bb *b, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->d = realloc(b->d, b->cap);
    }
    unsigned char *p = b->d + b->n;
    memset(p, 0, n);
    b->n += n;
    return p;
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static size_t hdr(const bb *b) { return b->wide ? 25 : 13; }

/* A record: header now, values next, then rec_end. Returns its offset. */
static size_t rec_begin(bb *b, const char *name, uint32_t num_values)
{
    size_t at = b->n;
    unsigned char *p = bb_push(b, hdr(b) + strlen(name));
    if (b->wide) {
        put64(p + 8, num_values);
        p[24] = (unsigned char)strlen(name);
    } else {
        ts_put32(p + 4, num_values);
        p[12] = (unsigned char)strlen(name);
    }
    memcpy(p + hdr(b), name, strlen(name));
    return at;
}

/* Call after the values: stores the value list's length. */
static void rec_values_done(bb *b, size_t at)
{
    size_t start = at + hdr(b) + b->d[at + hdr(b) - 1];
    if (b->wide)
        put64(b->d + at + 16, b->n - start);
    else
        ts_put32(b->d + at + 8, (uint32_t)(b->n - start));
}

static void rec_end(bb *b, size_t at, bool children)
{
    if (children) bb_push(b, hdr(b)); /* the null record closing them */
    if (b->wide)
        put64(b->d + at, b->n);
    else
        ts_put32(b->d + at, (uint32_t)b->n);
}

static void v_i32(bb *b, int32_t v)
{
    unsigned char *p = bb_push(b, 5);
    p[0] = 'I';
    ts_put32(p + 1, (uint32_t)v);
}
static void v_i64(bb *b, int64_t v)
{
    unsigned char *p = bb_push(b, 9);
    p[0] = 'L';
    put64(p + 1, (uint64_t)v);
}
static void v_f64(bb *b, double v)
{
    unsigned char *p = bb_push(b, 9);
    uint64_t u;
    memcpy(&u, &v, 8);
    p[0] = 'D';
    put64(p + 1, u);
}
static void v_str(bb *b, const char *s, size_t n)
{
    unsigned char *p = bb_push(b, 5 + n);
    p[0] = 'S';
    ts_put32(p + 1, (uint32_t)n);
    memcpy(p + 5, s, n);
}
#define V_STR(b, lit) v_str(b, lit, sizeof lit - 1)

/* An array value; zlib-compressed when `deflated`. Returns its offset. */
static size_t v_array(bb *b, char type, const void *elems, uint32_t count, size_t elem, bool deflated)
{
    size_t at = b->n;
    size_t raw = count * elem;
    uLongf zn = compressBound(raw);
    unsigned char *z = malloc(zn);
    if (deflated) compress(z, &zn, elems, raw);
    size_t n = deflated ? zn : raw;
    unsigned char *p = bb_push(b, 13 + n);
    p[0] = (unsigned char)type;
    ts_put32(p + 1, count);
    ts_put32(p + 5, deflated ? 1 : 0);
    ts_put32(p + 9, (uint32_t)n);
    memcpy(p + 13, deflated ? z : elems, n);
    free(z);
    return at;
}

/* Interesting offsets of the built file. */
typedef struct layout {
    size_t vertices_value, pvi_value, objects, model, null_top;
} layout;

static void p70_vec(bb *b, const char *name, double x, double y, double z)
{
    size_t p = rec_begin(b, "P", 7);
    v_str(b, name, strlen(name));
    v_str(b, name, strlen(name));
    V_STR(b, "");
    V_STR(b, "A");
    v_f64(b, x);
    v_f64(b, y);
    v_f64(b, z);
    rec_values_done(b, p);
    rec_end(b, p, false);
}

/* A joint at (1, 2, 3) with a triangle below it, rigidly bound. */
static unsigned char *build(uint32_t version, size_t *size, layout *L)
{
    bb b = {0};
    b.wide = version >= 7500;
    unsigned char *h = bb_push(&b, 27);
    memcpy(h, "Kaydara FBX Binary  \0\x1a\0", 23);
    ts_put32(h + 23, version);
    size_t r = rec_begin(&b, "FBXHeaderExtension", 0);
    rec_values_done(&b, r);
    size_t v = rec_begin(&b, "FBXVersion", 1);
    v_i32(&b, (int32_t)version);
    rec_values_done(&b, v);
    rec_end(&b, v, false);
    rec_end(&b, r, true);
    L->objects = r = rec_begin(&b, "Objects", 0);
    rec_values_done(&b, r);
    L->model = v = rec_begin(&b, "Model", 3);
    v_i64(&b, 1);
    V_STR(&b, "J\0\1Model");
    V_STR(&b, "LimbNode");
    rec_values_done(&b, v);
    size_t p70 = rec_begin(&b, "Properties70", 0);
    rec_values_done(&b, p70);
    p70_vec(&b, "Lcl Translation", 1, 2, 3);
    rec_end(&b, p70, true);
    rec_end(&b, v, true);
    size_t g = rec_begin(&b, "Geometry", 3);
    v_i64(&b, 2);
    V_STR(&b, "\0\1Geometry");
    V_STR(&b, "Mesh");
    rec_values_done(&b, g);
    const double verts[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const int32_t pvi[3] = {0, 1, ~2};
    v = rec_begin(&b, "Vertices", 1);
    L->vertices_value = v_array(&b, 'd', verts, 9, 8, true);
    rec_values_done(&b, v);
    rec_end(&b, v, false);
    v = rec_begin(&b, "PolygonVertexIndex", 1);
    L->pvi_value = v_array(&b, 'i', pvi, 3, 4, false);
    rec_values_done(&b, v);
    rec_end(&b, v, false);
    rec_end(&b, g, true);
    v = rec_begin(&b, "Model", 3);
    v_i64(&b, 3);
    V_STR(&b, "M\0\1Model");
    V_STR(&b, "Mesh");
    rec_values_done(&b, v);
    rec_end(&b, v, false);
    rec_end(&b, r, true);
    r = rec_begin(&b, "Connections", 0);
    rec_values_done(&b, r);
    const int64_t conns[3][2] = {{1, 0}, {3, 1}, {2, 3}};
    for (int k = 0; k < 3; k++) {
        v = rec_begin(&b, "C", 3);
        V_STR(&b, "OO");
        v_i64(&b, conns[k][0]);
        v_i64(&b, conns[k][1]);
        rec_values_done(&b, v);
        rec_end(&b, v, false);
    }
    rec_end(&b, r, true);
    L->null_top = b.n;
    bb_push(&b, hdr(&b));
    bb_push(&b, 16 + 4 + 120 + 16); /* a footer of the usual size, ignored */
    *size = b.n;
    return b.d;
}

static ossa_model *load(const unsigned char *d, size_t n, const ossa_allocator *a, ossa_error *err)
{
    ossa_load_options o = {0};
    static const ossa_option raw[] = {{"fbx.keep_axes", "on"}, {"fbx.keep_units", "on"}};
    o.format_options = raw;
    o.num_format_options = 2;
    o.allocator = a;
    return ossa_load_memory(d, n, &o, err);
}

static void test_build_and_read(void **state)
{
    (void)state;
    const uint32_t versions[] = {7300, 7400, 7500, 7700};
    for (int k = 0; k < 4; k++) {
        size_t n;
        layout L;
        unsigned char *d = build(versions[k], &n, &L);
        assert_int_equal(ossa_format_detect(d, n), OSSA_FORMAT_FBX);
        ossa_error err;
        ossa_model *m = load(d, n, NULL, &err);
        if (!m) {
            char msg[600];
            fail_msg("%u: %s", versions[k], ossa_error_format(&err, msg, sizeof msg));
        }
        assert_int_equal(m->num_joints, 1);
        assert_string_equal(m->joints[0].name, "J");
        TS_ASSERT_NEAR(m->joints[0].bind.translation[0], 1, 0);
        TS_ASSERT_NEAR(m->joints[0].bind.translation[2], 3, 0);
        assert_int_equal(m->num_vertices, 3);
        assert_int_equal(m->num_triangles, 1);
        assert_string_equal(m->meshes[0].name, "M");
        /* positions moved by the joint's rest transform (the mesh model
         * adds nothing); bound to the joint with weight 1 */
        float p[9], w[4], j[4];
        ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), 0, 3, p);
        ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL), 0, 1, w);
        ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL), 0, 1, j);
        const float want[3][3] = {{1, 2, 3}, {2, 2, 3}, {1, 3, 3}};
        /* ossa winding (a, c, b): corners 0, 2, 1 */
        const int corner[3] = {0, 2, 1};
        for (int t = 0; t < 3; t++)
            for (int c = 0; c < 3; c++)
                TS_ASSERT_NEAR(p[3 * m->triangles[0].v[t] + c], want[corner[t]][c], 0);
        TS_ASSERT_NEAR(w[0], 1, 0);
        TS_ASSERT_NEAR(j[0], 0, 0);
        ossa_model_free(m);
        free(d);
    }
}

static void expect_at(const unsigned char *d, size_t n, uint64_t offset, const char *what)
{
    ossa_error err;
    ossa_model *m = load(d, n, NULL, &err);
    if (m) fail_msg("loaded; expected '%s' at byte %llu", what, (unsigned long long)offset);
    if (!strstr(err.message, what)) fail_msg("'%s' lacks '%s'", err.message, what);
    assert_int_equal(err.offset, offset);
}

static void test_malformed(void **state)
{
    (void)state;
    size_t n;
    layout L;
    unsigned char *d = build(7400, &n, &L);
    unsigned char *c = malloc(n);
    /* unknown value type */
    memcpy(c, d, n);
    c[L.pvi_value] = 'x';
    expect_at(c, n, L.pvi_value, "unknown value type 0x78");
    /* array encoding 2 */
    memcpy(c, d, n);
    ts_put32(c + L.pvi_value + 5, 2);
    expect_at(c, n, L.pvi_value + 5, "array encoding 2");
    /* raw array whose byte count disagrees with its element count */
    memcpy(c, d, n);
    ts_put32(c + L.pvi_value + 1, 4);
    expect_at(c, n, L.pvi_value, "raw array of 4 elements holds 12 bytes");
    /* a zlib array that inflates to more than its count */
    memcpy(c, d, n);
    ts_put32(c + L.vertices_value + 1, 8);
    expect_at(c, n, L.vertices_value, "inflates to more bytes");
    /* a corrupt zlib stream */
    memcpy(c, d, n);
    c[L.vertices_value + 13] ^= 0xff;
    expect_at(c, n, L.vertices_value, "zlib array");
    /* a record claiming to end past its parent */
    memcpy(c, d, n);
    ts_put32(c + L.model, (uint32_t)n + 100);
    expect_at(c, n, L.model, "outside");
    /* a non-zero byte in the top-level null record */
    memcpy(c, d, n);
    c[L.null_top + 5] = 1;
    expect_at(c, n, L.null_top, "null record");
    /* a polygon index outside the control points: the array's offset */
    memcpy(c, d, n);
    ts_put32(c + L.pvi_value + 13 + 4, 7);
    expect_at(c, n, L.pvi_value, "control point 7 of 3");
    /* FBX 6 */
    memcpy(c, d, n);
    ts_put32(c + 23, 6100);
    ossa_error err;
    assert_null(load(c, n, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    /* bad magic */
    memcpy(c, d, n);
    c[20] = 'x';
    expect_at(c, n, 0, "magic");
    /* no closing null record: accepted with a warning */
    ossa_model *m = load(d, L.null_top, NULL, &err);
    assert_non_null(m);
    assert_true(m->num_warnings >= 1);
    ossa_model_free(m);
    free(c);
    free(d);
}

static const char *ascii_file =
    "; FBX 7.4.0 project file\n"
    "FBXHeaderExtension:  {\n\tFBXVersion: 7400\n}\n"
    "Objects:  {\n"
    "\tModel: 1, \"Model::J\", \"LimbNode\" {\n\t\tProperties70:  {\n"
    "\t\t\tP: \"Lcl Rotation\", \"Lcl Rotation\", \"\", \"A\",0,0,45\n\t\t}\n\t}\n"
    "\tGeometry: 2, \"Geometry::\", \"Mesh\" {\n"
    "\t\tVertices: *12 {\n\t\t\ta: 0,0,0,1,0,0,1,1,0,0,1,0\n\t\t}\n"
    "\t\tPolygonVertexIndex: *4 {\n\t\t\ta: 0,1,2,-4\n\t\t}\n"
    "\t\tLayerElementUV: 0 {\n\t\t\tMappingInformationType: \"ByPolygonVertex\"\n"
    "\t\t\tReferenceInformationType: \"IndexToDirect\"\n"
    "\t\t\tUV: *4 {\n\t\t\t\ta: 0,0,1,1\n\t\t\t}\n\t\t\tUVIndex: *4 {\n\t\t\t\ta: 0,1,1,0\n\t\t\t}\n\t\t}\n"
    "\t}\n"
    "\tModel: 3, \"Model::M\", \"Mesh\" {\n\t}\n"
    "\tDeformer: 4, \"Deformer::\", \"Skin\" {\n\t}\n"
    "\tDeformer: 5, \"SubDeformer::\", \"Cluster\" {\n"
    "\t\tIndexes: *2 {\n\t\t\ta: 0,1\n\t\t}\n\t\tWeights: *2 {\n\t\t\ta: 1,0.5\n\t\t}\n"
    "\t\tTransform: *16 {\n\t\t\ta: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1\n\t\t}\n"
    "\t\tTransformLink: *16 {\n\t\t\ta: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1\n\t\t}\n\t}\n"
    "}\n"
    "Connections:  {\n\tC: \"OO\",1,0\n\tC: \"OO\",3,0\n\tC: \"OO\",2,3\n"
    "\tC: \"OO\",4,2\n\tC: \"OO\",5,4\n\tC: \"OO\",1,5\n}\n";

/* Every prefix: no crash; a failure names where (byte or line). */
static void sweep_truncate(const unsigned char *d, size_t n, bool text)
{
    unsigned failures = 0;
    for (size_t len = 0; len < n; len++) {
        unsigned char *c = malloc(len ? len : 1);
        memcpy(c, d, len);
        ossa_error err;
        ossa_model *m = load(c, len, NULL, &err);
        if (m) {
            ossa_model_validate(m, NULL, NULL, NULL);
            ossa_model_free(m);
        } else {
            failures++;
            if (len >= 27 && !text) assert_true(err.offset <= len);
        }
        free(c);
    }
    assert_true(failures > 0);
}

static void sweep_patch(const unsigned char *d, size_t n)
{
    unsigned char *c = malloc(n);
    static const unsigned char values[] = {0x00, 0xff, 0x7f, 0x01};
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sizeof values; k++) {
            memcpy(c, d, n);
            c[i] = values[k];
            ossa_error err;
            ossa_model *m = load(c, n, NULL, &err);
            if (m) {
                ossa_model_validate(m, NULL, NULL, NULL);
                ossa_model_free(m);
            }
        }
    free(c);
}

/* Fail allocation k for every k: each failure is NOMEM, nothing leaks,
 * and the load eventually succeeds, with the model of the unfailed load. */
static void sweep_alloc(const unsigned char *d, size_t n)
{
    ossa_load_options o = {0};
    static const ossa_option raw[] = {{"fbx.keep_axes", "on"}, {"fbx.keep_units", "on"}};
    o.format_options = raw;
    o.num_format_options = 2;
    ts_alloc_sweep_load("binary FBX load", d, n, &o, &(ts_sweep){.modes = TS_SWEEP_ONCE});
}

static void test_sweeps_binary(void **state)
{
    (void)state;
    size_t n;
    layout L;
    unsigned char *d = build(7500, &n, &L);
    sweep_truncate(d, L.null_top + 25, false);
    sweep_patch(d, n);
    sweep_alloc(d, n);
    free(d);
}

static void test_sweeps_ascii(void **state)
{
    (void)state;
    const unsigned char *d = (const unsigned char *)ascii_file;
    size_t n = strlen(ascii_file);
    ossa_error err;
    ossa_model *m = load(d, n, NULL, &err);
    assert_non_null(m);
    assert_int_equal(m->num_joints, 1);
    assert_int_equal(m->num_triangles, 2);
    /* control point 1's weight 0.5 renormalized to 1; points 2 and 3 have
     * none: bound to the skin's first joint, with a warning */
    assert_true(m->num_warnings >= 1);
    ossa_model_free(m);
    sweep_truncate(d, n, true);
    sweep_patch(d, n);
    sweep_alloc(d, n);
}

static void test_real_file_sweeps(void **state)
{
    (void)state;
    size_t n;
    unsigned char *d = ts_read_shared("fbx/boxWithCompressedCTypeArray.FBX", &n);
    /* truncation at every 7th byte keeps the test short; the file holds a
     * 12 kB zlib thumbnail, cut in many places */
    for (size_t len = 0; len < n; len += 7) {
        ossa_error err;
        ossa_model *m = load(d, len, NULL, &err);
        if (m) ossa_model_free(m);
    }
    sweep_alloc(d, n);
    free(d);
}

/* A binary file cut short says so: where it ends and how long the record
 * it ends in wants it to be. */
static void test_cut_says_ends_early(void **state)
{
    (void)state;
    size_t n;
    unsigned char *d = ts_read_shared("fbx/huesitos.fbx", &n);
    ossa_error err;
    ossa_model *m = load(d, 50000, NULL, &err);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_TRUNCATED);
    char want[160];
    snprintf(want, sizeof want, "the file ends early: it has 50000 bytes, and the record at byte %llu runs to byte ",
             (unsigned long long)err.offset);
    if (!strstr(err.message, want)) fail_msg("%s", err.message);
    /* the record's end, as its header says (u32 at its offset, FBX 7.4) */
    char end[48];
    snprintf(end, sizeof end, "runs to byte %u ", ts_le32(d + err.offset));
    assert_non_null(strstr(err.message, end));
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_read),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_sweeps_binary),
        cmocka_unit_test(test_sweeps_ascii),
        cmocka_unit_test(test_real_file_sweeps),
        cmocka_unit_test(test_cut_says_ends_early),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
