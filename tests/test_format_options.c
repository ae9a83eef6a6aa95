/* Format options ("fbx.keep_units") and option structs that carry their
 * size: what a load or write accepts, refuses and ignores, and how a
 * struct of another version's size is read. */
#include "support.h"

#include <string.h>

/* A one-triangle OBJ: every load below reads it. */
static const char obj_text[] = "v 1 2 3\nv 4 5 6\nv 7 8 9\nf 1 2 3\n";

static ossa_model *load_obj(const ossa_option *options, uint32_t count, ossa_error *err)
{
    ossa_load_options o = {0};
    o.format = OSSA_FORMAT_OBJ;
    o.format_options = options;
    o.num_format_options = count;
    return ossa_load_memory(obj_text, strlen(obj_text), &o, err);
}

static void first_position(const ossa_model *m, float out[3])
{
    const ossa_vertex_array *a = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    assert_non_null(a);
    float v[3];
    /* the reader reverses the corners: file vertex 1 is the last */
    assert_int_equal(ossa_vertex_array_read(m, a, m->triangles[0].v[2], 1, v), OSSA_OK);
    memcpy(out, v, sizeof v);
}

static void test_options_change_the_load(void **state)
{
    (void)state;
    ossa_error err;
    float p[3];
    /* default: the IQM SDK's (x, y, z) -> (z, x, y) */
    ossa_model *m = load_obj(NULL, 0, &err);
    assert_non_null(m);
    first_position(m, p);
    assert_true(p[0] == 3 && p[1] == 1 && p[2] == 2);
    ossa_model_free(m);
    /* Blender's (x, y, z) -> (x, -z, y); case does not matter */
    const ossa_option blender[] = {{"OBJ.Axes", "Blender"}};
    m = load_obj(blender, 1, &err);
    assert_non_null(m);
    first_position(m, p);
    assert_true(p[0] == 1 && p[1] == -3 && p[2] == 2);
    ossa_model_free(m);
    /* the last value given counts */
    const ossa_option twice[] = {{"obj.axes", "blender"}, {"obj.axes", "sdk"}};
    m = load_obj(twice, 2, &err);
    assert_non_null(m);
    first_position(m, p);
    assert_true(p[0] == 3);
    ossa_model_free(m);
    /* other formats' options pass unread */
    const ossa_option others[] = {{"fbx.keep_units", NULL}, {"gltf.embed", "on"}, {"ill.encoding", "x"}};
    m = load_obj(others, 3, &err);
    assert_non_null(m);
    ossa_model_free(m);
}

static void expect_refused(const ossa_option *options, uint32_t count, const char *needle)
{
    ossa_error err;
    ossa_model *m = load_obj(options, count, &err);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    if (!strstr(err.message, needle)) fail_msg("'%s' lacks '%s'", err.message, needle);
}

static void test_bad_options(void **state)
{
    (void)state;
    const ossa_option unknown[] = {{"obj.axis", "blender"}};
    expect_refused(unknown, 1, "option 'obj.axis': reading obj has no such option (it has obj.axes)");
    const ossa_option bad_word[] = {{"obj.axes", "yup"}};
    expect_refused(bad_word, 1, "option 'obj.axes' is one of sdk blender, not 'yup'");
    const ossa_option no_family[] = {{"collada.up", "y"}};
    expect_refused(no_family, 1, "no format is called 'collada'");
    const ossa_option no_dot[] = {{"axes", "blender"}};
    expect_refused(no_dot, 1, "does not name its format");
    /* a write option is no read option */
    const ossa_option write_only[] = {{"obj.pose_time", "1"}};
    expect_refused(write_only, 1, "reading obj has no such option");
    /* a count without a list */
    expect_refused(NULL, 1, "announced but none given");
}

static void test_write_options(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = load_obj(NULL, 0, &err);
    assert_non_null(m);
    ossa_write_options o = {0};
    o.format = OSSA_FORMAT_OBJ;
    void *data;
    size_t size;
    /* a switch takes only on/off words; a number only numbers */
    const ossa_option bad_switch[] = {{"gltf.embed", "maybe"}};
    o.format = OSSA_FORMAT_GLTF;
    o.format_options = bad_switch;
    o.num_format_options = 1;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_non_null(strstr(err.message, "'gltf.embed' is on or off, not 'maybe'"));
    const ossa_option bad_number[] = {{"obj.pose_time", "1.5s"}};
    o.format = OSSA_FORMAT_OBJ;
    o.format_options = bad_number;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_non_null(strstr(err.message, "'obj.pose_time' wants a number, not '1.5s'"));
    /* OBJ's write axes: the inverse of the read mapping gives the file's
     * numbers back */
    const ossa_option blender[] = {{"obj.axes", "blender"}};
    ossa_model_free(m);
    m = load_obj(blender, 1, &err);
    o.format_options = blender;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    /* (the reader reversed the corners, so the vertices come out last first) */
    assert_non_null(strstr((const char *)data, "\nv 7 8 9\nv 4 5 6\nv 1 2 3\n"));
    ossa_free(data, NULL);
    ossa_model_free(m);
}

static void test_option_tables(void **state)
{
    (void)state;
    const ossa_option_info *t;
    uint32_t n = ossa_format_options(OSSA_FORMAT_FBX, 0, &t);
    assert_int_equal(n, 2);
    assert_string_equal(t[0].name, "fbx.keep_axes");
    assert_int_equal(t[0].type, OSSA_OPTION_SWITCH);
    assert_string_equal(t[1].name, "fbx.keep_units");
    assert_int_equal(ossa_format_options(OSSA_FORMAT_FBX, 1, &t), 0);
    assert_null(t);
    assert_int_equal(ossa_format_options(OSSA_FORMAT_AUTO, 0, &t), 0);
    /* the four illEngine files share one table */
    const ossa_option_info *mesh, *skel;
    assert_int_equal(ossa_format_options(OSSA_FORMAT_ILLMESH, 0, &mesh), 3);
    assert_int_equal(ossa_format_options(OSSA_FORMAT_ILLSKEL, 0, &skel), 3);
    assert_ptr_equal(mesh, skel);
    /* every table: names FAMILY.NAME, choices with their default first,
     * descriptions */
    ossa_format ids[64];
    uint32_t count = ossa_format_list(ids, 64);
    for (uint32_t i = 0; i < count; i++)
        for (int w = 0; w < 2; w++) {
            uint32_t k = ossa_format_options(ids[i], w, &t);
            for (uint32_t j = 0; j < k; j++) {
                assert_non_null(strchr(t[j].name, '.'));
                assert_true(strlen(t[j].description) > 10);
                if (t[j].type == OSSA_OPTION_CHOICE)
                    assert_int_equal(strncmp(t[j].choices, t[j].default_value, strlen(t[j].default_value)), 0);
                if (t[j].type == OSSA_OPTION_SWITCH) assert_string_equal(t[j].default_value, "off");
            }
        }
}

/* A struct as a program of another version would pass it: `size` bytes,
 * the first being this version's struct. */
static void test_struct_size(void **state)
{
    (void)state;
    ossa_error err;
    unsigned char big[sizeof(ossa_load_options) + 16];
    memset(big, 0, sizeof big);
    ossa_load_options *o = (ossa_load_options *)big;
    o->format = OSSA_FORMAT_OBJ;
    /* 0, the exact size, and a larger struct with zeros beyond are read */
    uint32_t sizes[] = {0, sizeof(ossa_load_options), sizeof big};
    for (int i = 0; i < 3; i++) {
        o->struct_size = sizes[i];
        ossa_model *m = ossa_load_memory(obj_text, strlen(obj_text), o, &err);
        assert_non_null(m);
        ossa_model_free(m);
    }
    /* a field this version does not know, set: refused, not ignored */
    big[sizeof(ossa_load_options) + 3] = 1;
    ossa_model *m = ossa_load_memory(obj_text, strlen(obj_text), o, &err);
    assert_null(m);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "fields this version of ossa does not know"));
    /* a size no version had */
    o->struct_size = 2;
    assert_null(ossa_load_memory(obj_text, strlen(obj_text), o, &err));
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    /* the shorter struct of an older program: what it lacks is zero (the
     * format, which lies beyond its end, is detected) */
    big[sizeof(ossa_load_options) + 3] = 0;
    o->struct_size = 4;
    o->format = OSSA_FORMAT_IQM; /* beyond 4 bytes: not read */
    m = ossa_load_memory(obj_text, strlen(obj_text), o, &err);
    assert_non_null(m);
    assert_int_equal(m->source_format, OSSA_FORMAT_OBJ);
    ossa_model_free(m);
    /* the write options likewise */
    m = load_obj(NULL, 0, &err);
    ossa_write_options w[2];
    memset(w, 0, sizeof w);
    w[0].struct_size = sizeof w;
    w[0].format = OSSA_FORMAT_OBJ;
    void *data;
    size_t size;
    assert_int_equal(ossa_write_memory(m, w, &data, &size, &err), OSSA_OK);
    ossa_free(data, NULL);
    w[1].threads = 3;
    assert_int_equal(ossa_write_memory(m, w, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_change_the_load),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_write_options),
        cmocka_unit_test(test_option_tables),
        cmocka_unit_test(test_struct_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
