/* The writers of one file per animation (MD5, SMD, illEngine) name those
 * files by one rule (ossa__output_set_animation_part): every animation
 * gets a file of its own, even when a name repeats and an earlier
 * animation already took the numbered name ("a.3"), or when an unnamed
 * animation's index is an earlier one's name. The paths are collected
 * from the write's output callback, so nothing is written to disk. */
#include "support.h"

#include <string.h>

static ossa_status collect_paths(void *user, const ossa_output_file *files, size_t count,
                                 ossa_error *error)
{
    (void)error;
    char *list = user;
    for (size_t i = 0; i < count; i++) {
        strcat(list, files[i].path);
        strcat(list, "\n");
    }
    return OSSA_OK;
}

/* The paths of writing a one-joint model with animations `names` to
 * `path`, one per line, into list[1024]. */
static void paths_of(const char *path, const char *const *names, int count, char *list)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    ossa_model_add_joint(m, "root", -1, NULL, &err);
    for (int i = 0; i < count; i++)
        assert_non_null(ossa_model_add_animation(m, names[i], 2, 30, 0, &err));
    list[0] = 0;
    ossa_write_options o = {.output = collect_paths, .user = list};
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    ossa_model_free(m);
}

static void test_repeated_names(void **state)
{
    (void)state;
    static const char *const names[] = {"x", "a", "a.3", "a"};
    char list[1024];
    paths_of("out.illmesh", names, 4, list);
    assert_string_equal(list, "out.illmesh\nout.illskel\nout.illanim\nout.a.illanim\nout.a.3.illanim\nout.a.3.2.illanim\n");
    paths_of("out.smd", names, 4, list);
    assert_string_equal(list, "out.smd\nout.x.smd\nout.a.smd\nout.a.3.smd\nout.a.3.2.smd\n");
    paths_of("out.md5mesh", names, 4, list);
    assert_string_equal(list, "out.md5mesh\nout.x.md5anim\nout.a.md5anim\nout.a.3.md5anim\nout.a.3.2.md5anim\n");
}

static void test_unnamed(void **state)
{
    (void)state;
    /* Animation 1 has no name, so its index names it: ".1", which animation
     * 0 took; then ".anim.1". */
    static const char *const names[] = {"1", ""};
    char list[1024];
    paths_of("out.md5mesh", names, 2, list);
    assert_string_equal(list, "out.md5mesh\nout.1.md5anim\nout.anim.1.md5anim\n");
    paths_of("out.smd", names, 2, list);
    assert_string_equal(list, "out.smd\nout.1.smd\nout.anim.1.smd\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeated_names),
        cmocka_unit_test(test_unnamed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
