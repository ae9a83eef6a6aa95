/* MD5 under damage: every prefix of small md5mesh and md5anim files,
 * random byte patches, and every allocation failing in turn, reading and
 * writing. The reader may refuse an input, with a located error, but must
 * never crash or leak, and what it accepts the writer must write in a form
 * it reads again. */
#include "md5_test.h"

#include <sys/stat.h>
#include <unistd.h>

static const char *const samples[] = {
    /* a mesh with comments of both kinds, two blocks, several weights */
    "MD5Version 10\ncommandline \"c\"\n\nnumJoints 2\nnumMeshes 2\n\njoints {\n"
    "\t\"root\"\t-1 ( 1 2 3 ) ( 0 0 0.6 )\t\t// \n\t\"arm\"\t0 ( 3 2 3 ) ( 0 0 0 )\t\t// "
    "root\n}\n\n"
    "mesh {\n\t// meshes: body\n\tshader \"models/body\"\n\n\tnumverts 3\n\tvert 0 ( 0.25 0.5 ) 0 "
    "1\n"
    "\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 2\n\n\tnumtris 1\n\ttri 0 0 1 2\n\n\tnumweights 4\n"
    "\tweight 0 0 1 ( 1 0 0 )\n\tweight 1 1 1 ( 0 1 0 )\n\tweight 2 0 0.25 ( 0 1 0 )\n"
    "\tweight 3 1 0.75 ( -1.04 0.28 0 )\n}\n"
    "/* second */ mesh { name \"b\" shader s numverts 3 vert 0 (0 0) 0 1 vert 1 (1 0) 0 1 "
    "vert 2 (0 1) 1 1 numtris 1 tri 0 0 1 2 numweights 2 weight 0 1 1 (1 1 1) "
    "weight 1 0 1 (0 0 -1) }\n",
    /* an animation */
    "MD5Version 10\ncommandline \"ossa --name walk\"\n\nnumFrames 3\nnumJoints 3\nframeRate 24\n"
    "numAnimatedComponents 4\n\nhierarchy {\n\t\"root\"\t-1 1 0\n\t\"a\"\t0 0 0\n\t\"b\"\t1 56 "
    "1\n}\n\n"
    "bounds {\n\t( -1 -2 -3 ) ( 1 2 3 )\n\t( -1 -2 -3 ) ( 1 2 4 )\n\t( 0 0 0 ) ( 3 4 0 )\n}\n\n"
    "baseframe {\n\t( 5 6 7 ) ( 0 0 0 )\n\t( 0 0 1 ) ( 0.6 0 0 )\n\t( 1 0 0 ) ( 0.1 0.2 0.3 "
    ")\n}\n\n"
    "frame 0 {\n\t10 0 0 0\n}\n\nframe 1 {\n\t11 0 0.6 0\n}\n\nframe 2 {\n\t12 0 0 0.8\n}\n",
    /* one line, CRLF, a BOM, '+' and 'E' */
    "\xEF\xBB\xBFMD5Version 10\r\ncommandline \"\"\r\nnumJoints 1 numMeshes 1 joints { j -1 (0 0 "
    "0) "
    "(0 0 0) } mesh { shader \"\" numverts 3 vert 0 (0 0) 0 1 vert 1 (0 0) 1 1 vert 2 (0 0) 2 1 "
    "numtris 1 tri 0 0 1 2 numweights 3 weight 0 0 1 (1E0 0 0) weight 1 0 +1 (0 1 0) "
    "weight 2 0 1 (0 0 1.5e-1) }\r\n",
};
#define NUM_SAMPLES (sizeof samples / sizeof samples[0])

static const char *sample_name(size_t i) { return i == 1 ? "s.md5anim" : "s.md5mesh"; }

/* Whatever loads validates, writes as MD5 and loads again. */
static void invariant(const ossa_model *m)
{
    ossa_model_validate(m, NULL, NULL, NULL);
    static const ossa_format formats[2] = {OSSA_FORMAT_MD5MESH, OSSA_FORMAT_MD5ANIM};
    for (int i = 0; i < 2; i++) {
        ossa_write_options o;
        memset(&o, 0, sizeof o);
        o.format = formats[i];
        void *out;
        size_t size;
        ossa_error err;
        if (ossa_write_memory(m, &o, &out, &size, &err) != OSSA_OK) {
            /* only an animation-less model may be refused as an md5anim */
            if (i == 0 || m->num_animations) {
                char buf[600];
                fail_msg("the model does not write: %s", ossa_error_format(&err, buf, sizeof buf));
            }
            continue;
        }
        ossa_model *again = mt_try(out, size, "again", 0, &err);
        if (!again) {
            char buf[600];
            print_error("%.*s\n", (int)(size < 3000 ? size : 3000), (const char *)out);
            fail_msg("the written file does not load: %s",
                     ossa_error_format(&err, buf, sizeof buf));
        }
        ossa_model_validate(again, NULL, NULL, NULL);
        ossa_model_free(again);
        ossa_free(out, NULL);
    }
}

static void test_samples(void **state)
{
    (void)state;
    for (size_t i = 0; i < NUM_SAMPLES; i++) {
        ossa_model *m = mt_load(samples[i], sample_name(i));
        invariant(m);
        ossa_model_free(m);
    }
}

static bool located(const ossa_error *err)
{
    return err->line > 0 && err->column > 0 &&
           (err->code == OSSA_ERROR_TRUNCATED || err->code == OSSA_ERROR_CORRUPT ||
            err->code == OSSA_ERROR_FORMAT || err->code == OSSA_ERROR_UNSUPPORTED);
}

/* Every prefix loads (when what is cut is blanks or ignored text) or
 * fails with a located error; where the cut ends a statement early, the
 * error is TRUNCATED at the end of the data. */
static void test_truncation(void **state)
{
    (void)state;
    int truncated = 0;
    for (size_t i = 0; i < NUM_SAMPLES; i++) {
        size_t size = strlen(samples[i]);
        for (size_t n = 0; n < size; n++) {
            char *copy = malloc(n + 1);
            assert_non_null(copy);
            memcpy(copy, samples[i], n);
            ossa_error err;
            ossa_model *m = mt_try(copy, n, sample_name(i), 0, &err);
            if (m) {
                invariant(m);
                ossa_model_free(m);
            } else {
                if (!located(&err))
                    fail_msg("sample %zu cut to %zu bytes: %s (%s)", i, n, err.message,
                             ossa_code_name(err.code));
                truncated += err.code == OSSA_ERROR_TRUNCATED;
            }
            free(copy);
        }
    }
    assert_true(truncated > 100);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng(void) { return (uint32_t)(ts_rand(&rng_state) >> 16); }

static void test_patches(void **state)
{
    (void)state;
    static const char text_bytes[] = "0123456789-. \n\t\re+(){}\"/*";
    int loaded = 0, runs = 0;
    for (size_t i = 0; i < NUM_SAMPLES; i++) {
        size_t size = strlen(samples[i]);
        for (int trial = 0; trial < 3000; trial++) {
            char copy[2048];
            memcpy(copy, samples[i], size);
            int patches = 1 + (int)(rng() % 3);
            for (int p = 0; p < patches; p++) {
                size_t at = rng() % size;
                uint32_t r = rng();
                copy[at] = r % 4 ? text_bytes[r / 4 % (sizeof text_bytes - 1)] : (char)(r >> 8);
            }
            ossa_error err;
            ossa_model *m = mt_try(copy, size, sample_name(i), 0, &err);
            runs++;
            if (m) {
                loaded++;
                invariant(m);
                ossa_model_free(m);
            } else if (!located(&err)) {
                fail_msg("sample %zu patched: %s (%s)", i, err.message, ossa_code_name(err.code));
            }
        }
    }
    print_message("%d of %d patched files loaded\n", loaded, runs);
    assert_true(loaded > 0);
}

/* Allocation number k fails, for every k: NOMEM, and nothing leaks. */
static void test_allocation_failures_read(void **state)
{
    (void)state;
    for (size_t i = 0; i < NUM_SAMPLES; i++) {
        for (long k = 0;; k++) {
            ts_alloc a;
            ts_alloc_init(&a, k, true);
            ossa_load_options o;
            memset(&o, 0, sizeof o);
            o.allocator = &a.allocator;
            o.file_name = sample_name(i);
            ossa_error err;
            ossa_model *m = ossa_load_memory(samples[i], strlen(samples[i]), &o, &err);
            if (m) {
                ossa_model_free(m);
                assert_int_equal(a.live, 0);
                assert_int_equal(a.bad_frees, 0);
                assert_true(k > 0);
                break;
            }
            assert_int_equal(err.code, OSSA_ERROR_NOMEM);
            assert_int_equal(a.live, 0);
            assert_int_equal(a.bad_frees, 0);
            assert_true(k < 2000);
        }
    }
}

/* Writing with allocation k failing: the write fails with NOMEM or
 * succeeds, and no file and no memory is left behind. The mesh sample
 * merged with the animation gives the writers everything to do. */
static void test_allocation_failures_write(void **state)
{
    /* An animation of the first sample's two joints (an md5anim must name
     * only the mesh's joints to be merged). */
    static const char mesh_anim[] =
        "MD5Version 10\ncommandline \"ossa --name walk\"\n\nnumFrames 3\nnumJoints 2\n"
        "frameRate 24\nnumAnimatedComponents 4\n\nhierarchy {\n\t\"root\"\t-1 1 0\n"
        "\t\"arm\"\t0 56 1\n}\n\nbounds {\n\t( -1 -2 -3 ) ( 1 2 3 )\n\t( -1 -2 -3 ) ( 1 2 4 )\n"
        "\t( 0 0 0 ) ( 3 4 0 )\n}\n\nbaseframe {\n\t( 5 6 7 ) ( 0 0 0 )\n"
        "\t( 1 0 0 ) ( 0.1 0.2 0.3 )\n}\n\n"
        "frame 0 {\n\t10 0 0 0\n}\n\nframe 1 {\n\t11 0 0.6 0\n}\n\nframe 2 {\n\t12 0 0 0.8\n}\n";
    (void)state;
    char *dir = ts_tmp_path("md5_alloc");
    mkdir(dir, 0777);
    char *path = ts_path_join(dir, "x.md5mesh"), *anim = ts_path_join(dir, "x.walk.md5anim");
    for (long k = 0;; k++) {
        ts_alloc a;
        ts_alloc_init(&a, -1, true);
        ossa_load_options lo;
        memset(&lo, 0, sizeof lo);
        lo.allocator = &a.allocator;
        lo.file_name = "x.md5mesh";
        ossa_error err;
        ossa_model *m = ossa_load_memory(samples[0], strlen(samples[0]), &lo, &err);
        lo.file_name = "x.md5anim";
        ossa_model *an = ossa_load_memory(mesh_anim, strlen(mesh_anim), &lo, &err);
        assert_true(m && an);
        assert_int_equal(ossa_model_merge(m, an, &err), OSSA_OK);
        ossa_model_free(an);
        a.fail_at = a.calls + k;
        ossa_write_options o;
        memset(&o, 0, sizeof o);
        o.allocator = &a.allocator;
        ossa_status st = ossa_write_file(m, path, &o, &err);
        a.fail_at = -1;
        struct stat sb;
        if (st == OSSA_OK) {
            assert_int_equal(stat(path, &sb), 0);
            assert_int_equal(stat(anim, &sb), 0);
            unlink(path);
            unlink(anim);
        } else {
            assert_int_equal(err.code, OSSA_ERROR_NOMEM);
            assert_int_not_equal(stat(path, &sb), 0);
            assert_int_not_equal(stat(anim, &sb), 0);
        }
        /* the memory writers too */
        a.fail_at = a.calls + k;
        void *out;
        size_t size;
        o.format = OSSA_FORMAT_MD5ANIM;
        ossa_status st2 = ossa_write_memory(m, &o, &out, &size, &err);
        a.fail_at = -1;
        if (st2 == OSSA_OK)
            ossa_free(out, &a.allocator);
        else
            assert_int_equal(err.code, OSSA_ERROR_NOMEM);
        ossa_model_free(m);
        assert_int_equal(a.live, 0);
        assert_int_equal(a.bad_frees, 0);
        if (st == OSSA_OK && st2 == OSSA_OK) break;
        assert_true(k < 2000);
    }
    free(path);
    free(anim);
    free(dir);
}

/* Counts the file cannot hold are refused before anything is allocated
 * for them, and decoded animations stay in proportion to the file. */
static void test_limits(void **state)
{
    (void)state;
    ts_alloc a;
    ts_alloc_init(&a, -1, false);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.allocator = &a.allocator;
    o.file_name = "big.md5anim";
    ossa_error err;
    /* 100000 joints x 100000 frames of nothing would be 400 GB decoded */
    char text[4096];
    int n = snprintf(text, sizeof text,
                     "MD5Version 10\ncommandline \"\"\nnumFrames 100000\nnumJoints 100000\n"
                     "frameRate 24\nnumAnimatedComponents 0\n");
    assert_null(ossa_load_memory(text, (size_t)n, &o, &err));
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "cannot fit"));
    assert_true(a.max_request < (1u << 20));
    /* a file big enough for the counts, but whose frames would decode
     * to far more than it holds */
    size_t size = 2u << 20;
    char *big = malloc(size);
    assert_non_null(big);
    n = snprintf(big, size,
                 "MD5Version 10\ncommandline \"\"\nnumFrames 20000\nnumJoints 20000\n"
                 "frameRate 24\nnumAnimatedComponents 0\n");
    memset(big + n, ' ', size - (size_t)n);
    assert_null(ossa_load_memory(big, size, &o, &err));
    assert_non_null(strstr(err.message, "out of proportion"));
    assert_true(a.max_request < (1u << 20));
    free(big);
    /* 2000 vertices sharing one run of 2000 weights: 4 million weights
     * to place from a 60 kB file */
    size = 1u << 20;
    big = malloc(size);
    assert_non_null(big);
    char *p = big;
    p += sprintf(p, "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\njoints {\n"
                    "j -1 (0 0 0) (0 0 0)\n}\nmesh {\nshader s\nnumverts 2000\n");
    for (int v = 0; v < 2000; v++) p += sprintf(p, "vert %d (0 0) 0 2000\n", v);
    p += sprintf(p, "numtris 1\ntri 0 0 1 2\nnumweights 2000\n");
    for (int w = 0; w < 2000; w++) p += sprintf(p, "weight %d 0 0.0005 (0 0 0)\n", w);
    p += sprintf(p, "}\n");
    o.file_name = "shared.md5mesh";
    assert_null(ossa_load_memory(big, (size_t)(p - big), &o, &err));
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "out of proportion"));
    free(big);
    assert_int_equal(a.live, 0);
}

/* id Tech 4 refuses an md5anim whose joints are not the mesh's: merging
 * one names the first joint the mesh lacks (docs/formats/md5.md §6). */
static void test_merge_foreign_joints(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *mesh = ossa_load_memory(samples[0], strlen(samples[0]), NULL, &err);
    ossa_load_options lo = {.file_name = "s.md5anim"};
    ossa_model *anim = ossa_load_memory(samples[1], strlen(samples[1]), &lo, &err);
    assert_true(mesh && anim);
    assert_int_equal(ossa_model_merge(mesh, anim, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_MISMATCH);
    assert_string_equal(err.message, "joint 'a' of the animation is not in the skeleton (its "
                                     "format refuses animations of joints the mesh lacks)");
    ossa_model_free(mesh);
    ossa_model_free(anim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_patches),
        cmocka_unit_test(test_allocation_failures_read),
        cmocka_unit_test(test_allocation_failures_write),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_merge_foreign_joints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
