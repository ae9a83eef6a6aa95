/* Files that a .gltf names: a reference that leaves the model's folder
 * ("../secret.bin", an absolute path, the same percent-encoded or with
 * backslashes) is refused with OSSA_ERROR_ACCESS naming it, unless
 * OSSA_LOAD_ALLOW_PARENT_PATHS; a caller's read_file callback serves every
 * file instead of the file system, and gets each buffer back once. */
#include "gltf_test.h"

#include "core/files.h"

#include <errno.h>

/* -- Files on disk -- */

static void put_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) fail_msg("mkdir %s", path);
}

/* A .gltf of one triangle whose positions are the file `uri` (36 bytes). */
static char *triangle_gltf(const char *uri)
{
    static const char fmt[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"%s\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}";
    size_t cap = sizeof fmt + strlen(uri);
    char *json = malloc(cap);
    snprintf(json, cap, fmt, uri);
    return json;
}

static const float triangle[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};

/* Loads JSON text as the file dir/model.gltf (by name, from memory). */
static ossa_model *load_as(const char *json, const char *dir, uint32_t flags, ossa_error *err)
{
    char *name = ts_path_join(dir, "model.gltf");
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = name;
    o.flags = flags;
    memset(err, 0, sizeof *err);
    ossa_model *m = ossa_load_memory(json, strlen(json), &o, err);
    free(name);
    return m;
}

/* -- Tests -- */

static void references_inside_or_not(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        bool inside;
    } cases[] = {
        {"a.bin", true},           {"sub/a.bin", true},         {"./a.bin", true},
        {"sub/../a.bin", true},    {"a/b/../../c.bin", true},   {"..a.bin", true},
        {"a..bin", true},          {"sub/..x/a.bin", true},     {"../a.bin", false},
        {"..", false},             {"sub/../../a.bin", false},  {"./../a.bin", false},
        {"/etc/passwd", false},    {"..\\a.bin", false},        {"sub\\..\\..\\a.bin", false},
        {"\\\\server\\x", false},  {"C:/a.bin", false},         {"c:a.bin", false},
        {"", false},               {"a/./../../b", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (ossa__reference_is_inside(cases[i].name) != cases[i].inside)
            fail_msg("'%s': expected %s", cases[i].name, cases[i].inside ? "inside" : "outside");
}

/* model/ holds the .gltf; its parent holds secret.bin (the triangle). */
static void parent_buffer_refused(void **state)
{
    (void)state;
    char *root = ts_tmp_path("gltf_access");
    char *dir = ts_path_join(root, "model");
    char *secret = ts_path_join(root, "secret.bin");
    char *inside = ts_path_join(dir, "inside.bin");
    make_dir(root);
    make_dir(dir);
    put_file(secret, triangle, sizeof triangle);
    put_file(inside, triangle, sizeof triangle);
    static const struct {
        const char *uri, *named;
    } refused[] = {
        {"../secret.bin", "'../secret.bin'"},
        {"%2E%2E/secret.bin", "'../secret.bin'"}, /* decoded before the check */
        {"sub/../../secret.bin", "'sub/../../secret.bin'"},
        {"..%5Csecret.bin", "'..\\secret.bin'"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *json = triangle_gltf(refused[i].uri);
        ossa_error err;
        ossa_model *m = load_as(json, dir, 0, &err);
        if (m) fail_msg("'%s' was read", refused[i].uri);
        if (err.code != OSSA_ERROR_ACCESS || !strstr(err.message, "buffers[0].uri") ||
            !strstr(err.message, refused[i].named) || !strstr(err.message, "outside the model's folder"))
            fail_msg("'%s': %s '%s'", refused[i].uri, ossa_code_name(err.code), err.message);
        free(json);
    }
    /* allowed by the flag: "../secret.bin" is read */
    char *json = triangle_gltf("../secret.bin");
    ossa_error err;
    ossa_model *m = load_as(json, dir, OSSA_LOAD_ALLOW_PARENT_PATHS, &err);
    if (!m) fail_msg("%s", err.message);
    assert_int_equal(m->num_vertices, 3);
    ossa_model_free(m);
    free(json);
    /* an absolute path: refused, then read with the flag */
    json = triangle_gltf(secret);
    assert_null(load_as(json, dir, 0, &err));
    assert_int_equal(err.code, OSSA_ERROR_ACCESS);
    m = load_as(json, dir, OSSA_LOAD_ALLOW_PARENT_PATHS, &err);
    assert_non_null(m);
    ossa_model_free(m);
    free(json);
    /* inside the folder, by a detour: read */
    char *sub = ts_path_join(dir, "sub");
    make_dir(sub);
    free(sub);
    json = triangle_gltf("sub/../inside.bin");
    m = load_as(json, dir, 0, &err);
    if (!m) fail_msg("%s", err.message);
    ossa_model_free(m);
    free(json);
    /* by ossa_load_file: the same rule */
    char *path = ts_path_join(dir, "model.gltf");
    json = triangle_gltf("../secret.bin");
    put_file(path, json, strlen(json));
    assert_null(ossa_load_file(path, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_ACCESS);
    assert_string_equal(err.file, path);
    free(json);
    free(path);
    free(inside);
    free(secret);
    free(dir);
    free(root);
}

/* -- A caller's file reader -- */

typedef struct vfs {
    const char *path; /* the one file it serves */
    const void *data;
    size_t size;
    int reads, releases, refused;
    char asked[256];
    void *given;
} vfs;

static ossa_status vfs_read(void *user, const char *path, void **data, size_t *size)
{
    vfs *v = user;
    snprintf(v->asked, sizeof v->asked, "%s", path);
    if (strcmp(path, v->path) != 0) {
        v->refused++;
        return OSSA_FAILED;
    }
    v->reads++;
    v->given = malloc(v->size);
    memcpy(v->given, v->data, v->size);
    *data = v->given;
    *size = v->size;
    return OSSA_OK;
}

static void vfs_release(void *user, void *data, size_t size)
{
    vfs *v = user;
    assert_ptr_equal(data, v->given);
    assert_int_equal(size, v->size);
    v->releases++;
    free(data);
}

static void read_file_callback(void **state)
{
    (void)state;
    /* nothing of this exists on disk */
    vfs v = {"/virtual/assets/tri.bin", triangle, sizeof triangle, 0, 0, 0, "", NULL};
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = "/virtual/assets/model.gltf";
    o.read_file = vfs_read;
    o.release_file = vfs_release;
    o.file_user = &v;
    char *json = triangle_gltf("tri.bin");
    ossa_error err;
    ossa_model *m = ossa_load_memory(json, strlen(json), &o, &err);
    if (!m) fail_msg("%s", err.message);
    assert_int_equal(m->num_vertices, 3);
    const float *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)->data;
    assert_true(p[3] == 1); /* vertex 1 is (1, 0, 0) in both axes */
    assert_int_equal(v.reads, 1);
    assert_int_equal(v.releases, 1);
    assert_string_equal(v.asked, "/virtual/assets/tri.bin");
    ossa_model_free(m);
    free(json);
    /* a file it does not serve: an I/O error naming the reference */
    json = triangle_gltf("other.bin");
    assert_null(ossa_load_memory(json, strlen(json), &o, &err));
    assert_int_equal(err.code, OSSA_ERROR_IO);
    assert_non_null(strstr(err.message, "buffers[0].uri: 'other.bin'"));
    assert_int_equal(v.refused, 1);
    free(json);
    /* the parent rule comes first: the callback never sees "../" */
    json = triangle_gltf("../tri.bin");
    v.asked[0] = 0;
    assert_null(ossa_load_memory(json, strlen(json), &o, &err));
    assert_int_equal(err.code, OSSA_ERROR_ACCESS);
    assert_string_equal(v.asked, "");
    /* a failure after the read still gives the buffer back */
    free(json);
    json = triangle_gltf("tri.bin");
    char *broken = malloc(strlen(json) + 64);
    strcpy(broken, json);
    char *count = strstr(broken, "\"count\":3");
    memcpy(count, "\"count\":4", 9); /* 48 bytes from a 36-byte view */
    int reads = v.reads;
    assert_null(ossa_load_memory(broken, strlen(broken), &o, &err));
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_int_equal(v.reads, reads + 1);
    assert_int_equal(v.releases, v.reads);
    free(broken);
    free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(references_inside_or_not),
        cmocka_unit_test(parent_buffer_refused),
        cmocka_unit_test(read_file_callback),
    };
    return cmocka_run_group_tests_name("gltf_access", tests, NULL, NULL);
}
