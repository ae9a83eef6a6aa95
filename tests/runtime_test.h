/* Helpers for the runtime tests (test_runtime*.c): the shared data
 * directory, float and quaternion comparisons, a counting allocator that
 * fails on request. Header-only, so each test stays one file. */
#ifndef OSSA_RUNTIME_TEST_H
#define OSSA_RUNTIME_TEST_H

/* cmocka needs these before its header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ossa.h"

/* $OSSA_SHARED_DIR/data/<rel> read whole into a malloc'd buffer. Skips
 * the test (visibly) when the data directory is missing; fails it when
 * the file is. */
static inline unsigned char *rt_read_shared(const char *rel, size_t *size)
{
    const char *dir = getenv("OSSA_SHARED_DIR");
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/data", dir ? dir : "../shared");
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("SKIP: %s not found (set OSSA_SHARED_DIR)\n", path);
        skip();
    }
    snprintf(path, sizeof path, "%s/data/%s", dir ? dir : "../shared", rel);
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) fail_msg("cannot read %s", path);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static inline void rt_assert_near(double a, double b, double tol, const char *ea, const char *eb,
                                  const char *file, int line)
{
    if (fabs(a - b) <= tol) return;
    fail_msg("%s:%d: %s = %.9g and %s = %.9g differ by %.3g (tolerance %.3g)", file, line, ea, a,
             eb, b, fabs(a - b), tol);
}
#define RT_NEAR(a, b, tol)                                                                      \
    rt_assert_near((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)

/* Largest component difference of the two quaternions normalized (in
 * double), taking q and -q as the same rotation unless `signed_`. */
static inline double rt_quat_distance2(const float a[4], const float b[4], int signed_)
{
    double na = 0, nb = 0;
    for (int i = 0; i < 4; i++) na += (double)a[i] * a[i], nb += (double)b[i] * b[i];
    na = sqrt(na), nb = sqrt(nb);
    double same = 0, opposite = 0;
    for (int i = 0; i < 4; i++) {
        same = fmax(same, fabs(a[i] / na - b[i] / nb));
        opposite = fmax(opposite, fabs(a[i] / na + b[i] / nb));
    }
    return signed_ ? same : fmin(same, opposite);
}
static inline double rt_quat_distance(const float a[4], const float b[4])
{
    return rt_quat_distance2(a, b, 0);
}
static inline void rt_assert_quat(const float a[4], const float b[4], double tol, int signed_,
                                  const char *file, int line)
{
    double d = rt_quat_distance2(a, b, signed_);
    if (d <= tol) return;
    fail_msg("%s:%d: quaternions (%.9g %.9g %.9g %.9g) and (%.9g %.9g %.9g %.9g) differ by %.3g "
             "(tolerance %.3g)",
             file, line, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], d, tol);
}
#define RT_QUAT(a, b, tol) rt_assert_quat((a), (b), (tol), 0, __FILE__, __LINE__)
#define RT_QUAT_SIGNED(a, b, tol) rt_assert_quat((a), (b), (tol), 1, __FILE__, __LINE__)

/* An allocator that counts live blocks and fails allocation number
 * `fail_at` (0-based; < 0 never) and, when `sticky`, every later one. */
typedef struct rt_alloc {
    ossa_allocator allocator;
    long fail_at, calls, live;
    int sticky;
} rt_alloc;

static inline void *rt_alloc_fn(void *user, size_t size)
{
    rt_alloc *a = user;
    long n = a->calls++;
    if (a->fail_at >= 0 && (n == a->fail_at || (a->sticky && n > a->fail_at))) return NULL;
    void *p = malloc(size ? size : 1);
    if (p) a->live++;
    return p;
}
static inline void rt_free_fn(void *user, void *ptr)
{
    rt_alloc *a = user;
    if (ptr) a->live--;
    free(ptr);
}
static inline void rt_alloc_init(rt_alloc *a, long fail_at, int sticky)
{
    memset(a, 0, sizeof *a);
    a->fail_at = fail_at;
    a->sticky = sticky;
    a->allocator.alloc = rt_alloc_fn;
    a->allocator.free = rt_free_fn;
    a->allocator.user = a;
}

#endif
