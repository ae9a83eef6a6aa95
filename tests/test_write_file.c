/* ossa_write_file: atomic replacement (a temporary file beside the target,
 * then rename). Failures leave no file behind and an existing target
 * untouched. */
#include "support.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static ossa_model *small_model(float x)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_transform t = ossa_transform_identity();
    t.translation[0] = x;
    assert_int_equal(ossa_model_add_joint(m, "only", -1, &t, &err), 0);
    return m;
}

static void test_write_file(void **state)
{
    (void)state;
    char name[64], missing[160];
    snprintf(name, sizeof name, "write-%ld", (long)getpid());
    char *dir_path = ts_tmp_path(name);
    char *file_path = ts_path_join(dir_path, "over.iqm");
    mkdir(dir_path, 0777);
    ossa_model *m = small_model(1), *bad = small_model(NAN);
    ossa_error err;

    /* Into a directory that does not exist: IO, and nothing is created. */
    snprintf(missing, sizeof missing, "%s/no-such-dir/out.iqm", dir_path);
    assert_int_equal(ossa_write_file(m, missing, NULL, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_IO);
    assert_true(err.message[0] != 0);
    char *missing_dir = ts_path_join(dir_path, "no-such-dir");
    struct stat st;
    assert_int_equal(stat(missing_dir, &st), -1);
    free(missing_dir);

    /* Overwriting an existing file replaces it with exactly the encoding. */
    FILE *f = fopen(file_path, "wb");
    assert_non_null(f);
    fputs("old contents", f);
    fclose(f);
    assert_int_equal(ossa_write_file(m, file_path, NULL, &err), OSSA_OK);
    size_t size, expect_size;
    unsigned char *got = ts_read_file(file_path, &size);
    void *expect;
    ossa_write_options wo = {.format = OSSA_FORMAT_IQM};
    assert_int_equal(ossa_write_memory(m, &wo, &expect, &expect_size, &err), OSSA_OK);
    assert_non_null(got);
    assert_int_equal(size, expect_size);
    assert_memory_equal(got, expect, size);
    free(got);

    /* A failing write (a pose that is not finite) leaves the file alone. */
    assert_int_equal(ossa_write_file(bad, file_path, NULL, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    got = ts_read_file(file_path, &size);
    assert_int_equal(size, expect_size);
    assert_memory_equal(got, expect, size);
    free(got);

    /* The target is a directory: the rename fails, the temporary file goes
     * (checked with the directory listing below). */
    char *is_dir = ts_path_join(dir_path, "isdir.iqm");
    assert_int_equal(mkdir(is_dir, 0777), 0);
    assert_int_equal(ossa_write_file(m, is_dir, NULL, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_IO);

    /* No format from the name: an argument error, no file. */
    char *unknown = ts_path_join(dir_path, "model.unknown");
    assert_int_equal(ossa_write_file(m, unknown, NULL, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_int_equal(stat(unknown, &st), -1);

    /* Nothing but the file and the directory made here is left: no
     * temporary file from any of the failures. */
    DIR *d = opendir(dir_path);
    assert_non_null(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (strcmp(e->d_name, "over.iqm") != 0 && strcmp(e->d_name, "isdir.iqm") != 0)
            print_error("left behind: %s\n", e->d_name);
        entries++;
    }
    closedir(d);
    assert_int_equal(entries, 2);

    unlink(file_path);
    rmdir(is_dir);
    rmdir(dir_path);
    free(is_dir);
    free(unknown);
    ossa_free(expect, NULL);
    ossa_model_free(m);
    ossa_model_free(bad);
    free(file_path);
    free(dir_path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
