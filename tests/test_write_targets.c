/* Where ossa_write_file writes: FIFOs and devices are written into, never
 * replaced; directories are refused and missing ones named; with
 * OSSA_WRITE_NO_REPLACE a write of several files replaces none; with an
 * output callback nothing touches the disk. */
/* mknod */
#define _XOPEN_SOURCE 700

#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A small model with a mesh, a skeleton and one animation. */
static ossa_model *model(void)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_model_add_joint(m, "root", -1, NULL, &err);
    ossa_model_set_num_vertices(m, 3, &err);
    const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, p, &err);
    const ossa_triangle t = {{0, 1, 2}};
    ossa_model_set_triangles(m, 1, &t, &err);
    ossa_model_add_mesh(m, "m", "mat", 0, 3, 0, 1, &err);
    ossa_model_add_animation(m, "a", 2, 30, 0, &err);
    return m;
}

/* A fresh directory under the test scratch space. */
static char *scratch(const char *name)
{
    char *dir = ts_tmp_path(name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(mkdir(dir, 0777), 0);
    return dir;
}

static void test_fifo_written_into(void **state)
{
    (void)state;
    char *dir = scratch("write_targets_fifo");
    char *fifo = ts_path_join(dir, "out.iqm");
    assert_int_equal(mkfifo(fifo, 0666), 0);
    /* A reader first, so that the writer's open does not wait. */
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    ossa_model *m = model();
    ossa_write_options wo = {0};
    wo.format = OSSA_FORMAT_IQM;
    void *want;
    size_t want_size;
    ossa_error err;
    assert_int_equal(ossa_write_memory(m, &wo, &want, &want_size, &err), OSSA_OK);
    assert_true(want_size < 4096); /* fits the pipe: the write cannot block */
    assert_int_equal(ossa_write_file(m, fifo, &wo, &err), OSSA_OK);
    unsigned char got[8192];
    ssize_t n = read(rd, got, sizeof got);
    close(rd);
    assert_int_equal((size_t)n, want_size);
    assert_memory_equal(got, want, want_size);
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    /* Nothing else appeared beside it (no temporary left). */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s' | wc -l)\" -eq 1", dir);
    assert_int_equal(system(cmd), 0);
    ossa_free(want, NULL);
    ossa_model_free(m);
    free(fifo);
    free(dir);
}

/* A private copy of /dev/full (as root): writing fails with ENOSPC and the
 * node stays a device. Skipped where device nodes cannot be made. */
static void test_full_device(void **state)
{
    (void)state;
    char *dir = scratch("write_targets_dev");
    char *dev = ts_path_join(dir, "full");
    if (mknod(dev, S_IFCHR | 0666, makedev(1, 7)) != 0) {
        printf("SKIP: cannot make a device node here (%s)\n", strerror(errno));
        free(dev);
        free(dir);
        skip();
    }
    ossa_model *m = model();
    ossa_write_options wo = {0};
    wo.format = OSSA_FORMAT_GLB;
    ossa_error err;
    assert_int_equal(ossa_write_file(m, dev, &wo, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_IO);
    assert_non_null(strstr(err.message, strerror(ENOSPC)));
    struct stat st;
    assert_int_equal(lstat(dev, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    ossa_model_free(m);
    unlink(dev);
    free(dev);
    free(dir);
}

static void test_directories(void **state)
{
    (void)state;
    char *dir = scratch("write_targets_dir");
    ossa_model *m = model();
    ossa_write_options wo = {0};
    wo.format = OSSA_FORMAT_GLB;
    ossa_error err;
    /* The output is a directory. */
    assert_int_equal(ossa_write_file(m, dir, &wo, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_IO);
    assert_non_null(strstr(err.message, "is a directory"));
    /* The directory of the output does not exist: it is named. */
    char *missing = ts_path_join(dir, "nodir/out.glb");
    assert_int_equal(ossa_write_file(m, missing, &wo, &err), OSSA_FAILED);
    char *nodir = ts_path_join(dir, "nodir");
    char want[1200];
    snprintf(want, sizeof want, "the directory '%s' does not exist", nodir);
    assert_string_equal(err.message, want);
    assert_string_equal(err.file, missing);
    /* A file where a directory should be. */
    char *file = ts_path_join(dir, "plain");
    FILE *f = fopen(file, "w");
    fclose(f);
    char *under = ts_path_join(dir, "plain/out.glb");
    assert_int_equal(ossa_write_file(m, under, &wo, &err), OSSA_FAILED);
    assert_non_null(strstr(err.message, "is not a directory"));
    ossa_model_free(m);
    free(under);
    free(file);
    free(nodir);
    free(missing);
    free(dir);
}

static void test_no_replace(void **state)
{
    (void)state;
    char *dir = scratch("write_targets_noreplace");
    char *gltf = ts_path_join(dir, "x.gltf"), *bin = ts_path_join(dir, "x.bin");
    ossa_model *m = model();
    ossa_write_options wo = {0};
    wo.flags = OSSA_WRITE_NO_REPLACE;
    ossa_error err;
    /* Nothing there yet: both files are written. */
    assert_int_equal(ossa_write_file(m, gltf, &wo, &err), OSSA_OK);
    struct stat st;
    assert_int_equal(stat(bin, &st), 0);
    /* The .bin exists now, with other contents: nothing is replaced. */
    FILE *f = fopen(bin, "w");
    fputs("keep", f);
    fclose(f);
    unlink(gltf);
    assert_int_equal(ossa_write_file(m, gltf, &wo, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_EXISTS);
    assert_non_null(strstr(err.message, bin));
    assert_int_equal(stat(gltf, &st), -1);
    size_t size;
    unsigned char *kept = ts_read_file(bin, &size);
    assert_int_equal(size, 4);
    assert_memory_equal(kept, "keep", 4);
    free(kept);
    /* Without the flag, as before: replaced. */
    wo.flags = 0;
    assert_int_equal(ossa_write_file(m, gltf, &wo, &err), OSSA_OK);
    assert_int_equal(stat(bin, &st), 0);
    assert_true(st.st_size > 4);
    /* One file (.glb) is no exception: refused with the flag, replaced
     * without it. */
    char *glb = ts_path_join(dir, "x.glb");
    f = fopen(glb, "w");
    fclose(f);
    wo.flags = OSSA_WRITE_NO_REPLACE;
    assert_int_equal(ossa_write_file(m, glb, &wo, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_EXISTS);
    assert_int_equal(stat(glb, &st), 0);
    assert_int_equal(st.st_size, 0);
    wo.flags = 0;
    assert_int_equal(ossa_write_file(m, glb, &wo, &err), OSSA_OK);
    assert_int_equal(stat(glb, &st), 0);
    assert_true(st.st_size > 0);
    ossa_model_free(m);
    free(glb);
    free(gltf);
    free(bin);
    free(dir);
}

typedef struct captured {
    size_t count;
    char paths[4][256];
    size_t sizes[4];
    void *data[4];
} captured;

static ossa_status capture(void *user, const ossa_output_file *files, size_t count,
                           ossa_error *error)
{
    (void)error;
    captured *c = user;
    c->count = count;
    for (size_t i = 0; i < count && i < 4; i++) {
        snprintf(c->paths[i], sizeof c->paths[i], "%s", files[i].path);
        c->sizes[i] = files[i].size;
        c->data[i] = malloc(files[i].size);
        memcpy(c->data[i], files[i].data, files[i].size);
    }
    return OSSA_OK;
}

static void test_output_callback(void **state)
{
    (void)state;
    char *dir = scratch("write_targets_output");
    char *gltf = ts_path_join(dir, "y.gltf"), *bin = ts_path_join(dir, "y.bin");
    ossa_model *m = model();
    captured c;
    memset(&c, 0, sizeof c);
    ossa_write_options wo = {0};
    wo.output = capture;
    wo.user = &c;
    ossa_error err;
    assert_int_equal(ossa_write_file(m, gltf, &wo, &err), OSSA_OK);
    assert_int_equal(c.count, 2);
    assert_string_equal(c.paths[0], gltf);
    assert_string_equal(c.paths[1], bin);
    assert_true(c.sizes[0] > 0 && c.sizes[1] > 0);
    struct stat st;
    assert_int_equal(stat(gltf, &st), -1);
    assert_int_equal(stat(bin, &st), -1);

    /* Written later, as they would have been. */
    ossa_output_file files[2];
    for (int i = 0; i < 2; i++) files[i] = (ossa_output_file){c.paths[i], c.data[i], c.sizes[i]};
    ossa_write_options later = {0};
    later.flags = OSSA_WRITE_NO_REPLACE;
    assert_int_equal(ossa_write_output_files(files, 2, &later, &err), OSSA_OK);
    for (int i = 0; i < 2; i++) {
        size_t size;
        unsigned char *got = ts_read_file(c.paths[i], &size);
        assert_non_null(got);
        assert_int_equal(size, c.sizes[i]);
        assert_memory_equal(got, c.data[i], size);
        free(got);
    }
    /* Again: they exist now, and the flag refuses both. */
    assert_int_equal(ossa_write_output_files(files, 2, &later, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_EXISTS);
    assert_string_equal(err.file, gltf);
    for (int i = 0; i < 2; i++) free(c.data[i]);
    ossa_model_free(m);
    free(gltf);
    free(bin);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_written_into),
        cmocka_unit_test(test_full_device),
        cmocka_unit_test(test_directories),
        cmocka_unit_test(test_no_replace),
        cmocka_unit_test(test_output_callback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
