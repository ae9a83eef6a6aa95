/* Shared by the .nto tests: running tests/gen_nto.py, the independent
 * encoder that makes the textures and the pictures they must decode to,
 * and reading its .rgba pictures. A missing python3 skips (visibly); a
 * generator that fails fails the test. */
#ifndef OSSA_NTO_TEST_H
#define OSSA_NTO_TEST_H

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tests/gen_nto.py beside this header (the build passes absolute source
 * paths to the compiler). */
static inline char *nto_script(void)
{
    const char *here = __FILE__, *slash = strrchr(here, '/');
    size_t n = slash ? (size_t)(slash - here) : 0;
    char *path = malloc(n + 16);
    assert_non_null(path);
    snprintf(path, n + 16, "%.*s%sgen_nto.py", (int)n, here, slash ? "/" : "");
    return path;
}

/* Runs `gen_nto.py ARGS`; false (the test skipped) without python3. */
static inline bool nto_generate(const char *args)
{
    if (system("python3 -c pass >/dev/null 2>&1") != 0) {
        ts_skip("python3 not found: tests/gen_nto.py makes the textures");
        return false;
    }
    char *script = nto_script();
    size_t n = strlen(script) + strlen(args) + 32;
    char *cmd = malloc(n);
    assert_non_null(cmd);
    snprintf(cmd, n, "python3 '%s' %s", script, args);
    int rc = system(cmd);
    if (rc != 0) fail_msg("%s failed (%d)", cmd, rc);
    free(cmd);
    free(script);
    return true;
}

/* A picture of gen_nto.py: u32 width, u32 height, RGBA8 rows. */
typedef struct nto_picture {
    uint32_t width, height;
    unsigned char *rgba; /* malloc'd; NULL when the file is missing */
} nto_picture;

static inline nto_picture nto_read_picture(const char *path)
{
    nto_picture p = {0, 0, NULL};
    size_t size;
    unsigned char *data = ts_read_file(path, &size);
    if (!data) return p;
    assert_true(size >= 8);
    p.width = ts_le32(data);
    p.height = ts_le32(data + 4);
    assert_int_equal(size, 8 + (size_t)p.width * p.height * 4);
    p.rgba = malloc(size - 8 + 1);
    assert_non_null(p.rgba);
    memcpy(p.rgba, data + 8, size - 8);
    free(data);
    return p;
}

/* The first texel where two pictures differ by more than `tolerance` in
 * alpha (and at all in colour), or -1. */
static inline long nto_first_difference(const unsigned char *a, const unsigned char *b,
                                        size_t texels, int tolerance)
{
    for (size_t i = 0; i < texels; i++) {
        int da = abs(a[4 * i + 3] - b[4 * i + 3]);
        if (memcmp(a + 4 * i, b + 4 * i, 3) != 0 || da > tolerance) return (long)i;
    }
    return -1;
}

#endif
