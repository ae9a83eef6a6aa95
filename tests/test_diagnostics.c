/* Diagnostics: every failing call fills every field of the caller's error
 * (nothing of an earlier use survives), warnings and findings carry stable
 * codes, code names are unique; and the animation builders. */
#include "support.h"

#include <stdio.h>
#include <string.h>

#define H "# Inter-Quake Export\n"

static void test_error_fields_are_all_set(void **state)
{
    (void)state;
    ossa_error err;
    memset(&err, 0x5A, sizeof err); /* an uninitialised struct */
    ossa_load_options o = {0};
    o.file_name = "first.iqe";
    o.format = OSSA_FORMAT_IQE;
    const char bad[] = H "vp 1 x 3\n";
    assert_null(ossa_load_memory(bad, sizeof bad - 1, &o, &err));
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_int_equal(err.severity, OSSA_SEVERITY_ERROR);
    assert_string_equal(err.file, "first.iqe");
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 6);
    assert_int_equal(err.offset, OSSA_NO_OFFSET);

    /* A later failure of a call that names no file must not report the
     * earlier call's file, line or column. */
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_add_joint(m, "a", 5, NULL, &err), -1);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_string_equal(err.file, "");
    assert_int_equal(err.line, 0);
    assert_int_equal(err.column, 0);
    ossa_model_free(m);

    /* A successful load leaves the struct cleared. */
    memset(&err, 0x5A, sizeof err);
    const char good[] = H "vp 0 0 0\n";
    m = ossa_load_memory(good, sizeof good - 1, &o, &err);
    assert_non_null(m);
    assert_int_equal(err.code, OSSA_CODE_NONE);
    assert_string_equal(err.message, "");
    ossa_model_free(m);
}

static void test_warning_codes(void **state)
{
    (void)state;
    /* An unknown command is ignored with a located warning. */
    const char text[] = H "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfa 0 1 2\nbogus 1 2\n";
    ossa_model *m = ts_load(text, sizeof text - 1);
    assert_int_equal(m->num_warnings, 1);
    assert_int_equal(m->warnings[0].code, OSSA_WARNING_IGNORED);
    assert_int_equal(m->warnings[0].severity, OSSA_SEVERITY_WARNING);
    assert_int_equal(m->warnings[0].line, 6);
    ossa_model_free(m);

    /* Joints listed before their parents are reordered, and joints without
     * a base pose get the identity: both repairs. */
    const char fwd[] = H "joint a 1\njoint b -1\n";
    m = ts_load(fwd, sizeof fwd - 1);
    assert_int_equal(m->num_warnings, 2);
    assert_int_equal(m->warnings[0].code, OSSA_WARNING_REPAIRED);
    assert_int_equal(m->warnings[1].code, OSSA_WARNING_REPAIRED);
    assert_string_equal(m->joints[0].name, "b");
    ossa_model_free(m);
}

typedef struct found {
    uint32_t count;
    ossa_code codes[16];
} found;

static void collect(void *user, const ossa_diagnostic *d)
{
    found *f = user;
    if (f->count < 16) f->codes[f->count] = d->code;
    f->count++;
    assert_true(d->severity == OSSA_SEVERITY_WARNING || d->severity == OSSA_SEVERITY_ERROR);
}

static void test_validation_codes(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    t.rotation[3] = 2; /* norm 2 */
    assert_int_equal(ossa_model_add_joint(m, "a", -1, &t, NULL), 0);
    assert_int_equal(ossa_model_add_joint(m, "a", 0, NULL, NULL), 1);
    found f = {0, {0}};
    assert_int_equal(ossa_model_validate(m, collect, &f, NULL), 0);
    assert_int_equal(f.count, 2);
    assert_int_equal(f.codes[0], OSSA_PROBLEM_ROTATION_NORM);
    assert_int_equal(f.codes[1], OSSA_PROBLEM_DUPLICATE_NAME);
    ossa_model_free(m);
}

static void test_code_names_unique(void **state)
{
    (void)state;
    const char *names[300] = {0};
    int known = 0;
    for (int c = 0; c < 300; c++) {
        names[c] = ossa_code_name((ossa_code)c);
        if (strcmp(names[c], "unknown") == 0) continue;
        known++;
        for (int d = 0; d < c; d++) assert_string_not_equal(names[c], names[d]);
    }
    /* none, 10 errors, 8 warnings, 22 findings: a code added to ossa.h
     * without a name in ossa_code_name fails here. */
    assert_int_equal(known, 41);
    assert_string_equal(ossa_code_name(OSSA_ERROR_TRUNCATED), "truncated");
    assert_string_equal(ossa_code_name(OSSA_WARNING_DROPPED), "dropped");
}

static void test_animation_builders(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    assert_int_equal(ossa_model_add_joint(m, "root", -1, NULL, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "tip", 0, NULL, &err), 1);
    assert_non_null(ossa_model_add_animation(m, "walk", 3, 24, 0, &err));
    ossa_transform fr[4];
    for (int i = 0; i < 4; i++) {
        fr[i] = ossa_transform_identity();
        fr[i].translation[0] = (float)(i + 1);
    }
    /* Frames 1 and 2 (two frames of two joints); frame 0 keeps the bind pose. */
    assert_int_equal(ossa_model_set_animation_frames(m, 0, 1, 2, fr, &err), OSSA_OK);
    const ossa_animation *a = &m->animations[0];
    assert_true(a->frames[0].translation[0] == 0.0f);
    assert_true(a->frames[2].translation[0] == 1.0f);
    assert_true(a->frames[5].translation[0] == 4.0f);
    assert_int_equal(ossa_model_set_animation_frames(m, 0, 2, 2, fr, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_int_equal(ossa_model_set_animation_frames(m, 1, 0, 1, fr, &err), OSSA_FAILED);

    ossa_bounds b[3];
    memset(b, 0, sizeof b);
    b[2].radius = 7;
    assert_int_equal(ossa_model_set_animation_bounds(m, 0, b, &err), OSSA_OK);
    assert_non_null(a->bounds);
    assert_true(a->bounds[2].radius == 7.0f);
    assert_int_equal(ossa_model_set_animation_bounds(m, 0, NULL, &err), OSSA_OK);
    assert_null(a->bounds);

    const uint8_t ch[2] = {OSSA_CHANNEL_ROTATION, OSSA_CHANNEL_TRANSLATION};
    assert_int_equal(ossa_model_set_animation_channels(m, 0, ch, &err), OSSA_OK);
    assert_int_equal(a->channels[1], OSSA_CHANNEL_TRANSLATION);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_fields_are_all_set),
        cmocka_unit_test(test_warning_codes),
        cmocka_unit_test(test_validation_codes),
        cmocka_unit_test(test_code_names_unique),
        cmocka_unit_test(test_animation_builders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
