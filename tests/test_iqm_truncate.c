/* Robustness of the IQM reader on damaged copies of guy.iqm: truncated at
 * every byte offset, and 2000 random patches of 1-4 bytes (fixed seed). A
 * load must either fail with a kind and a message, or give a model that
 * ossa_validate can walk and the writer can write (or refuse with a kind
 * and a message); what the writer writes must load again. Every input sits in a buffer of exactly
 * its size, so a sanitizer build sees any read past its end. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct outcome {
    uint32_t loaded, failed[OSSA_ERROR_MISMATCH + 1];
} outcome;

/* Loads `size` bytes copied into a buffer of exactly that size; checks what
 * happens next, writing the model back unless `bounds` is NULL. Returns
 * whether the load succeeded. */
static bool exercise(const unsigned char *src, size_t size, ossa_format format,
                     const ossa_bounds_mode *bounds, outcome *out, const char *what, size_t which)
{
    unsigned char *data = malloc(size ? size : 1);
    assert_non_null(data);
    if (size) memcpy(data, src, size);
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_load_options opts = {.format = format};
    ossa_model *m = ossa_load_memory(data, size, &opts, &err);
    free(data);
    if (!m) {
        if (err.code == OSSA_CODE_NONE || !err.message[0])
            print_error("%s %zu: failed without a kind or message\n", what, which);
        assert_true(err.code != OSSA_CODE_NONE && err.code <= OSSA_ERROR_MISMATCH);
        assert_true(err.message[0] != 0);
        out->failed[err.code]++;
        return false;
    }
    out->loaded++;
    ossa_model_validate(m, NULL, NULL, NULL);
    if (!bounds) {
        ossa_model_free(m);
        return true;
    }
    ossa_write_options wo = {.format = OSSA_FORMAT_IQM, .bounds = *bounds};
    void *bytes;
    size_t n;
    memset(&err, 0, sizeof err);
    if (ossa_write_memory(m, &wo, &bytes, &n, &err) == OSSA_OK) {
        /* What the writer produces, the reader takes. */
        ossa_model *again = ossa_load_memory(bytes, n, NULL, &err);
        if (!again)
            print_error("%s %zu: the written file does not load: %s\n", what, which, err.message);
        assert_non_null(again);
        ossa_model_free(again);
        ossa_free(bytes, wo.allocator);
    } else {
        assert_true(err.code != OSSA_CODE_NONE);
        assert_true(err.message[0] != 0);
    }
    ossa_model_free(m);
    return true;
}

static void report(const char *what, const outcome *o)
{
    printf("%s: %u loaded", what, o->loaded);
    for (int k = 1; k <= OSSA_ERROR_MISMATCH; k++)
        if (o->failed[k]) printf(", %u %s", o->failed[k], ossa_code_name((ossa_code)k));
    printf("\n");
}

/* Cut at every length: the header's filesize then exceeds the data, so every
 * prefix is refused as truncated (§12: filesize must not exceed the buffer). */
static void test_truncate_every_offset(void **state)
{
    (void)state;
    size_t size;
    unsigned char *file = ts_read_shared("iqm/guy.iqm", &size);
    outcome o = {0};
    for (size_t n = 0; n < size; n++) {
        assert_false(exercise(file, n, OSSA_FORMAT_IQM, NULL, &o, "length", n));
    }
    assert_int_equal(o.failed[OSSA_ERROR_TRUNCATED], size);
    report("truncated", &o);
    free(file);
}

/* The same cuts with filesize rewritten to the cut length, so the reader
 * gets past the header and every section check is reached. guy.iqm ends
 * with its bounds, so every cut loses part of a section: all must fail. */
static void test_truncate_with_filesize(void **state)
{
    (void)state;
    size_t size;
    unsigned char *file = ts_read_shared("iqm/guy.iqm", &size);
    unsigned char *copy = malloc(size);
    assert_non_null(copy);
    memcpy(copy, file, size);
    assert_int_equal(
        ts_iqm_header(file, TS_IQM_OFS_BOUNDS) + 32 * ts_iqm_header(file, TS_IQM_NUM_FRAMES), size);
    outcome o = {0};
    for (size_t n = 0; n < size; n++) {
        ts_put32(copy + TS_IQM_FILESIZE, (uint32_t)n);
        ossa_error err;
        unsigned char *exact = malloc(n ? n : 1);
        memcpy(exact, copy, n);
        ossa_load_options opts = {.format = OSSA_FORMAT_IQM};
        ossa_model *m = ossa_load_memory(exact, n, &opts, &err);
        free(exact);
        if (m || !err.message[0] || err.offset == OSSA_NO_OFFSET ||
            (err.code != OSSA_ERROR_TRUNCATED && err.code != OSSA_ERROR_CORRUPT))
            print_error("length %zu: %s (%s at %llu: %s)\n", n, m ? "loaded" : "error",
                        ossa_code_name(err.code), (unsigned long long)err.offset,
                        err.message);
        ossa_model_free(m);
        assert_null(m);
        assert_true(err.code == OSSA_ERROR_TRUNCATED || err.code == OSSA_ERROR_CORRUPT);
        assert_true(err.message[0] != 0);
        /* Where: a byte offset (a section's declared start may lie past the cut). */
        assert_true(err.offset != OSSA_NO_OFFSET && err.offset < size);
        o.failed[err.code]++;
    }
    report("truncated, filesize adjusted", &o);
    /* The whole file with filesize intact still loads (nothing else changed). */
    ts_put32(copy + TS_IQM_FILESIZE, (uint32_t)size);
    const ossa_bounds_mode conservative = OSSA_BOUNDS_CONSERVATIVE;
    assert_true(exercise(copy, size, OSSA_FORMAT_IQM, &conservative, &o, "whole", size));
    free(copy);
    free(file);
}

/* xorshift64*: a fixed, portable sequence. */
static uint32_t rng(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 0x2545F4914F6CDD1Dull) >> 32);
}

/* 2000 patches of 1-4 bytes, the same ones on every run. */
static void run_patches(bool write_back)
{
    size_t size;
    unsigned char *file = ts_read_shared("iqm/guy.iqm", &size);
    unsigned char *copy = malloc(size), *unbounded = malloc(size);
    assert_true(copy && unbounded);
    /* Skinning every frame for the stored-bounds check of ossa_validate and
     * for the writer's bounds is most of the cost (slow under sanitizers):
     * three patches in four start from the file without its bounds (valid,
     * §9) and the writer's bounds mode varies. */
    memcpy(unbounded, file, size);
    ts_put32(unbounded + TS_IQM_OFS_BOUNDS, 0);
    const ossa_bounds_mode modes[4] = {OSSA_BOUNDS_DEFAULT, OSSA_BOUNDS_EXACT, OSSA_BOUNDS_NONE,
                                       OSSA_BOUNDS_STORED};
    /* Where the structure is: the header, text, mesh and vertex array
     * records, and the joints-poses-anims run (guy.iqm's layout). Most
     * patches go there; vertex data and samples rarely break anything. */
    const uint32_t joints = ts_iqm_header(file, TS_IQM_OFS_JOINTS);
    const uint32_t frames = ts_iqm_header(file, TS_IQM_OFS_FRAMES);
    const uint32_t records_end = ts_iqm_header(file, TS_IQM_OFS_VERTEXARRAYS) + 6 * 20;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    outcome o = {0};
    for (size_t i = 0; i < 2000; i++) {
        memcpy(copy, i % 4 ? unbounded : file, size);
        uint32_t len = 1 + rng(&seed) % 4, at;
        switch (rng(&seed) % 4) {
        case 0: at = rng(&seed) % TS_IQM_HEADER_SIZE; break;
        case 1: at = rng(&seed) % records_end; break;
        case 2: at = joints + rng(&seed) % (frames - joints); break;
        default: at = rng(&seed) % (uint32_t)size; break;
        }
        uint32_t style = rng(&seed) % 4;
        for (uint32_t k = 0; k < len && at + k < size; k++)
            copy[at + k] = style == 0 ? 0 : style == 1 ? 0xFF : (unsigned char)rng(&seed);
        exercise(copy, size, i % 2 ? OSSA_FORMAT_AUTO : OSSA_FORMAT_IQM,
                 write_back ? &modes[i / 4 % 4] : NULL, &o, "patch", i);
    }
    report(write_back ? "patched, written back" : "patched", &o);
    /* Both outcomes happen: otherwise the patches test nothing. */
    assert_true(o.loaded > 100);
    assert_true(o.loaded < 2000);
    free(unbounded);
    free(copy);
    free(file);
}

/* Load and validate every patched file. */
static void test_random_patches(void **state)
{
    (void)state;
    run_patches(false);
}

/* The same patches, each model that loads written back and loaded again. */
static void test_random_patches_written_back(void **state)
{
    (void)state;
    ts_require_shared_data();
    run_patches(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncate_every_offset),
        cmocka_unit_test(test_truncate_with_filesize),
        cmocka_unit_test(test_random_patches),
        cmocka_unit_test(test_random_patches_written_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
