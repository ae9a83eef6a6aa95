/* What writers report: every warning goes to ossa_write_options.diagnostic
 * with a warning code (100-199) and severity WARNING, notes with severity
 * NOTE, one line each; and a problem is reported once per write, even when
 * the write makes several files (illEngine's .illskel and each .illanim
 * name the joints: "2 joints have no name" was reported by each). */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEEN 64

typedef struct seen {
    uint32_t count;
    ossa_diagnostic d[MAX_SEEN];
} seen;

static void collect(void *user, const ossa_diagnostic *d)
{
    seen *s = user;
    if (s->count < MAX_SEEN) s->d[s->count] = *d;
    s->count++;
}

static uint32_t count_code(const seen *s, ossa_code code)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->count && i < MAX_SEEN; i++) n += s->d[i].code == code;
    return n;
}

/* Files handed to the output callback are counted, not written. */
static ossa_status count_files(void *user, const ossa_output_file *files, size_t count,
                               ossa_error *error)
{
    (void)files;
    (void)error;
    *(size_t *)user += count;
    return OSSA_OK;
}

/* Two unnamed joints, two animations without a frame rate, two meshes,
 * and nothing else a writer would need to change. */
static ossa_model *awkward_model(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    assert_int_equal(ossa_model_add_joint(m, "", -1, NULL, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "", 0, NULL, &err), 1);
    static const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0, 2, 1, 0};
    static const float idx[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                                1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const float wgt[] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
                                1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const ossa_triangle tris[] = {{{0, 1, 2}}, {{3, 4, 5}}};
    assert_int_equal(ossa_model_set_num_vertices(m, 6, &err), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3,
                                                       NULL, pos, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE,
                                                       4, NULL, idx, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE,
                                                       4, NULL, wgt, &err));
    assert_int_equal(ossa_model_set_triangles(m, 2, tris, &err), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "a", "", 0, 3, 0, 1, &err) >= 0);
    assert_true(ossa_model_add_mesh(m, "b", "", 3, 3, 1, 1, &err) >= 0);
    for (int i = 0; i < 2; i++) {
        ossa_animation *a = ossa_model_add_animation(m, i ? "two" : "one", 2, 0, 0, &err);
        assert_non_null(a);
        a->frames[3].translation[2] = 1.0f + (float)i;
    }
    return m;
}

static void ill_joint_names_reported_once(void **state)
{
    (void)state;
    ossa_model *m = awkward_model();
    seen s = {0};
    ossa_write_options o = {.diagnostic = collect, .user = &s};
    ossa_error err;
    char *path = ts_tmp_path("names_once.illmesh");
    /* Written to disk: the multi-file write is what repeated it. */
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    /* .illmesh, .illskel, .illanim, .two.illanim: the joints are named in
     * three of them, and reported once. */
    assert_int_equal(count_code(&s, OSSA_WARNING_RENAMED), 1);
    /* The other problems once each too: no frame rate (per animation), two
     * meshes written as one. */
    assert_int_equal(count_code(&s, OSSA_WARNING_REPAIRED), 2);
    assert_int_equal(count_code(&s, OSSA_WARNING_DROPPED), 1);
    char *stem = ts_tmp_path("names_once");
    static const char *const ext[] = {".illmesh", ".illskel", ".illanim", ".two.illanim"};
    for (int i = 0; i < 4; i++) {
        char name[600];
        snprintf(name, sizeof name, "%s%s", stem, ext[i]);
        size_t n;
        unsigned char *data = ts_read_file(name, &n);
        if (!data) print_error("%s was not written\n", name);
        assert_non_null(data);
        free(data);
        remove(name);
    }
    free(stem);
    free(path);

    /* One file alone reports the names too. */
    static const ossa_format single[] = {OSSA_FORMAT_ILLSKEL, OSSA_FORMAT_ILLANIM};
    for (int i = 0; i < 2; i++) {
        seen one = {0};
        ossa_write_options so = {.format = single[i], .diagnostic = collect, .user = &one};
        void *data;
        size_t size;
        assert_int_equal(ossa_write_memory(m, &so, &data, &size, &err), OSSA_OK);
        assert_int_equal(count_code(&one, OSSA_WARNING_RENAMED), 1);
        ossa_free(data, NULL);
    }
    ossa_model_free(m);
}

/* Every writer of the table, to memory and through ossa_write_file's
 * output callback: each diagnostic is well formed and none is repeated. */
static void check_diagnostics(const seen *s, const char *format, const char *how)
{
    assert_true(s->count <= MAX_SEEN);
    for (uint32_t i = 0; i < s->count; i++) {
        const ossa_diagnostic *d = &s->d[i];
        bool warning_code = d->code >= 100 && d->code <= 199;
        if (d->severity == OSSA_SEVERITY_WARNING && !warning_code)
            print_error("%s (%s): warning with code %d: %s\n", format, how, d->code, d->message);
        if (d->severity == OSSA_SEVERITY_WARNING) assert_true(warning_code);
        else assert_int_equal(d->severity, OSSA_SEVERITY_NOTE);
        assert_true(d->message[0] != 0);
        assert_null(strchr(d->message, '\n'));
        for (uint32_t k = 0; k < i; k++)
            if (s->d[k].code == d->code && strcmp(s->d[k].message, d->message) == 0) {
                print_error("%s (%s): reported twice: %s\n", format, how, d->message);
                fail();
            }
    }
}

typedef struct capture {
    seen s;
    size_t files;
} capture;

static void collect_capture(void *user, const ossa_diagnostic *d)
{
    collect(&((capture *)user)->s, d);
}

static ossa_status capture_files(void *user, const ossa_output_file *files, size_t count,
                                 ossa_error *error)
{
    return count_files(&((capture *)user)->files, files, count, error);
}

static void every_writer(void **state)
{
    (void)state;
    ossa_model *m = awkward_model();
    ossa_format formats[64];
    uint32_t n = ossa_format_list(formats, 64);
    uint32_t writers = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!ossa_format_can_write(formats[i])) continue;
        const char *name = ossa_format_name(formats[i]);
        writers++;
        seen s = {0};
        ossa_write_options o = {.format = formats[i], .diagnostic = collect, .user = &s};
        void *data;
        size_t size;
        ossa_error err;
        if (ossa_write_memory(m, &o, &data, &size, &err) == OSSA_OK) ossa_free(data, NULL);
        check_diagnostics(&s, name, "memory");

        capture c;
        memset(&c, 0, sizeof c);
        ossa_write_options fo = {.format = formats[i],
                                 .diagnostic = collect_capture,
                                 .output = capture_files,
                                 .user = &c};
        char path[64];
        snprintf(path, sizeof path, "out%s", ossa_format_extensions(formats[i]));
        char *space = strchr(path, ' ');
        if (space) *space = 0;
        (void)ossa_write_file(m, path, &fo, &err);
        check_diagnostics(&c.s, name, "file");
    }
    assert_true(writers >= 5);
    ossa_model_free(m);
}

/* Formats of one animation write the one picked: the others are lost
 * data, a warning (dropped), whichever format it is. */
static void one_animation_formats_warn(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_add_joint(m, "root", -1, NULL, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "arm", 0, NULL, &err), 1);
    for (int i = 0; i < 3; i++) {
        ossa_animation *a = ossa_model_add_animation(m, i ? "b" : "a", 2, 30, 0, &err);
        assert_non_null(a);
        a->frames[3].rotation[0] = 0.6f; /* frame 1, joint 1: a rotation only */
        a->frames[3].rotation[3] = 0.8f;
    }
    static const ossa_format formats[] = {OSSA_FORMAT_SOTC_ANB, OSSA_FORMAT_ILLANIM};
    for (int i = 0; i < 2; i++) {
        seen s = {0};
        ossa_write_options o = {
            .format = formats[i], .animation = 1, .diagnostic = collect, .user = &s};
        void *data;
        size_t size;
        assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
        ossa_free(data, NULL);
        if (count_code(&s, OSSA_WARNING_DROPPED) != 1)
            print_error("%s: %u dropped warnings\n", ossa_format_name(formats[i]),
                        count_code(&s, OSSA_WARNING_DROPPED));
        assert_int_equal(count_code(&s, OSSA_WARNING_DROPPED), 1);
        for (uint32_t k = 0; k < s.count; k++)
            if (s.d[k].code == OSSA_WARNING_DROPPED)
                assert_int_equal(s.d[k].severity, OSSA_SEVERITY_WARNING);
    }
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ill_joint_names_reported_once),
        cmocka_unit_test(every_writer),
        cmocka_unit_test(one_animation_formats_warn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
