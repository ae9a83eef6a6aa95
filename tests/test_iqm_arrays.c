/* The vertex arrays the IQM writer writes (docs/formats/iqm.md §4, §8.3):
 * by default the pairs the IQM SDK's demo, raylib and Sauerbraten read
 * (float position, normal, tangent, texcoord; ubyte x 4 blend indexes,
 * blend weights summing to 255 and colours), checked in the file's bytes
 * with the test decoder of support.h; an IQM's own ubyte weights kept
 * byte for byte; "iqm.keep_formats" keeps the model's formats; indexes
 * above 255 stay wider, with a warning. Expected bytes are worked out by
 * hand in the comments. */
#include "support.h"

#include <stdio.h>
#include <string.h>

typedef struct collected {
    int warnings, notes;
    char last[512];
} collected;

static void collect(void *user, const ossa_diagnostic *d)
{
    collected *c = user;
    if (d->severity == OSSA_SEVERITY_NOTE)
        c->notes++;
    else
        c->warnings++;
    snprintf(c->last, sizeof c->last, "%s", d->message);
}

/* Three vertices whose arrays are all in formats the demo refuses. */
static ossa_model *odd_arrays_model(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_add_joint(m, "a", -1, NULL, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "b", 0, NULL, &err), 1);
    assert_int_equal(ossa_model_add_joint(m, "c", 0, NULL, &err), 2);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, &err), OSSA_OK);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const float uv[6] = {0, 0, 1, 0, 0.5f, 1};
    static const float nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, -1};
    /* float indexes and weights as glTF, MD5 and FBX readers keep them */
    static const float idx[12] = {0, 1, 2, 0, 1, 0, 0, 0, 2, 1, 0, 0};
    static const float wgt[12] = {1.0f / 3, 1.0f / 3, 1.0f / 3, 0, 0.5f, 0.25f, 0.25f, 0,
                                  0.25f, 0.75f, 0, 0};
    /* RGB without alpha */
    static const float rgb[9] = {1, 0.5f, 0, 0, 0, 0, 0.2f, 0.4f, 0.6f};
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_HALF, 3, "",
                                                       pos, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TEXCOORD, OSSA_USHORT, 2,
                                                       "", uv, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, "",
                                                       nrm, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, OSSA_FLOAT, 4, "",
                                                idx, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, "",
                                                wgt, &err));
    assert_non_null(
        ossa_model_add_vertex_array(m, OSSA_VERTEX_COLOR, OSSA_FLOAT, 3, "", rgb, &err));
    ossa_triangle t = {{0, 1, 2}};
    assert_int_equal(ossa_model_set_triangles(m, 1, &t, &err), OSSA_OK);
    assert_int_equal(ossa_model_add_mesh(m, "m", "", 0, 3, 0, 1, &err), 0);
    return m;
}

/* The record of the array of `type` in an IQM file: format, size, data. */
static const unsigned char *array_of(const unsigned char *f, uint32_t type, uint32_t *format,
                                     uint32_t *size)
{
    uint32_t n = ts_iqm_header(f, TS_IQM_NUM_VERTEXARRAYS);
    uint32_t ofs = ts_iqm_header(f, TS_IQM_OFS_VERTEXARRAYS);
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *r = f + ofs + 20 * i;
        if (ts_le32(r) != type) continue;
        *format = ts_le32(r + 8);
        *size = ts_le32(r + 12);
        return f + ts_le32(r + 16);
    }
    fail_msg("no array of type %u", type);
    return NULL;
}

static unsigned char *write_iqm(const ossa_model *m, const char *options, collected *c,
                                size_t *size)
{
    ts_options o;
    ts_options_parse(&o, options);
    ossa_write_options w;
    memset(&w, 0, sizeof w);
    w.format = OSSA_FORMAT_IQM;
    w.format_options = o.list;
    w.num_format_options = o.count;
    w.diagnostic = collect;
    w.user = c;
    return ts_write(m, &w, size);
}

static void test_default_pairs(void **state)
{
    (void)state;
    ossa_model *m = odd_arrays_model();
    collected c = {0};
    size_t size;
    unsigned char *f = write_iqm(m, NULL, &c, &size);
    assert_int_equal(c.warnings, 0);
    uint32_t format, n;
    /* the codes of §4: position 0, texcoord 1, normal 2, blendindexes 4,
     * blendweights 5, colour 6; formats ubyte 1, float 7 */
    const unsigned char *p = array_of(f, 0, &format, &n);
    assert_int_equal(format, 7);
    assert_int_equal(n, 3);
    assert_true(ts_lef32(p + 12) == 1 && ts_lef32(p + 28) == 1); /* halves decoded exactly */
    p = array_of(f, 1, &format, &n);
    assert_int_equal(format, 7);
    assert_int_equal(n, 2);
    assert_true(ts_lef32(p + 16) == 32768.0f / 65535.0f); /* 0.5 as ushort: 32768 */
    assert_true(ts_lef32(p + 20) == 1);
    p = array_of(f, 4, &format, &n);
    assert_int_equal(format, 1);
    assert_int_equal(n, 4);
    static const unsigned char idx[12] = {0, 1, 2, 0, 1, 0, 0, 0, 2, 1, 0, 0};
    assert_memory_equal(p, idx, 12);
    /* largest remainder (§8.3): 1/3 each: 85 85 85; 0.5 0.25 0.25: 127.5
     * 63.75 63.75 -> 127 63 63 (253), the two units to the .75 remainders:
     * 127 64 64; 0.25 0.75: 63.75 191.25 -> 63 191 (254), the unit to
     * .75: 64 191 */
    p = array_of(f, 5, &format, &n);
    assert_int_equal(format, 1);
    assert_int_equal(n, 4);
    static const unsigned char wgt[12] = {85, 85, 85, 0, 127, 64, 64, 0, 64, 191, 0, 0};
    assert_memory_equal(p, wgt, 12);
    for (int v = 0; v < 3; v++) assert_int_equal(p[4 * v] + p[4 * v + 1] + p[4 * v + 2] + p[4 * v + 3], 255);
    /* colours: floor(c * 255 + 0.5), alpha 255 added: 0.5 -> 128, 0.2 ->
     * 51, 0.4 -> 102, 0.6 -> 153 */
    p = array_of(f, 6, &format, &n);
    assert_int_equal(format, 1);
    assert_int_equal(n, 4);
    static const unsigned char rgba[12] = {255, 128, 0, 255, 0, 0, 0, 255, 51, 102, 153, 255};
    assert_memory_equal(p, rgba, 12);

    /* read back: what was written is what the model now holds */
    ossa_model *back = ts_load(f, size);
    const ossa_vertex_array *bw = ossa_model_find_array(back, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    assert_int_equal(bw->format, OSSA_UBYTE);
    /* and written again, the same bytes */
    size_t size2;
    collected c2 = {0};
    unsigned char *f2 = write_iqm(back, NULL, &c2, &size2);
    assert_int_equal(size2, size);
    assert_memory_equal(f2, f, size);
    ossa_free(f2, NULL);
    ossa_model_free(back);
    ossa_free(f, NULL);
    ossa_model_free(m);
}

static void test_keep_formats(void **state)
{
    (void)state;
    ossa_model *m = odd_arrays_model();
    collected c = {0};
    size_t size;
    unsigned char *f = write_iqm(m, "iqm.keep_formats", &c, &size);
    uint32_t format, n;
    const unsigned char *p = array_of(f, 5, &format, &n);
    assert_int_equal(format, 7);
    assert_int_equal(n, 4);
    assert_true(ts_lef32(p + 16) == 0.5f);
    array_of(f, 0, &format, &n);
    assert_int_equal(format, 6); /* half */
    array_of(f, 6, &format, &n);
    assert_int_equal(n, 3);
    ossa_free(f, NULL);
    ossa_model_free(m);
}

/* Ubyte weights already in the model are written unchanged: a (127, 128)
 * pair, which quantizing the decoded floats again would also give, and a
 * (200, 55, 0, 0) whose sum is kept as stored. */
static void test_ubyte_kept(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_model_add_joint(m, "a", -1, NULL, &err);
    ossa_model_add_joint(m, "b", 0, NULL, &err);
    ossa_model_set_num_vertices(m, 2, &err);
    static const float pos[6] = {0, 0, 0, 1, 0, 0};
    static const uint8_t idx[8] = {0, 1, 0, 0, 1, 0, 0, 0};
    static const uint8_t wgt[8] = {127, 128, 0, 0, 200, 55, 0, 0};
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, "", wgt, &err);
    collected c = {0};
    size_t size;
    unsigned char *f = write_iqm(m, NULL, &c, &size);
    uint32_t format, n;
    assert_memory_equal(array_of(f, 5, &format, &n), wgt, 8);
    assert_memory_equal(array_of(f, 4, &format, &n), idx, 8);
    ossa_free(f, NULL);
    ossa_model_free(m);
}

/* 300 joints: indexes above 255 cannot be ubytes; they become ushort x 4
 * (one warning); the weights still become ubytes. */
static void test_wide_indexes(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    for (int j = 0; j < 300; j++) {
        char name[16];
        snprintf(name, sizeof name, "j%d", j);
        assert_int_equal(ossa_model_add_joint(m, name, j ? 0 : -1, NULL, &err), j);
    }
    ossa_model_set_num_vertices(m, 1, &err);
    static const float pos[3] = {0, 0, 0}, idx[2] = {299, 3}, wgt[2] = {0.5f, 0.5f};
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, OSSA_FLOAT, 2, "", idx, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 2, "", wgt, &err);
    collected c = {0};
    size_t size;
    unsigned char *f = write_iqm(m, NULL, &c, &size);
    assert_int_equal(c.warnings, 1);
    assert_non_null(strstr(c.last, "blend indexes above 255"));
    uint32_t format, n;
    const unsigned char *p = array_of(f, 4, &format, &n);
    assert_int_equal(format, 3); /* ushort */
    assert_int_equal(n, 4);
    assert_int_equal(ts_le16(p), 299);
    assert_int_equal(ts_le16(p + 2), 3);
    assert_int_equal(ts_le16(p + 4), 0);
    p = array_of(f, 5, &format, &n);
    assert_int_equal(format, 1);
    static const unsigned char w[4] = {128, 127, 0, 0}; /* 127.5 each: the unit to the first */
    assert_memory_equal(p, w, 4);
    ossa_free(f, NULL);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_pairs),
        cmocka_unit_test(test_keep_formats),
        cmocka_unit_test(test_ubyte_kept),
        cmocka_unit_test(test_wide_indexes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
