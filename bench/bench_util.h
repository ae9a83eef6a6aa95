/* What every benchmark needs around the code it measures: clocks, the
 * median of a set of run times, an input file mapped into memory, and the
 * library's load and IQM write failing loudly. A header of static inline
 * functions because bench/CMakeLists.txt makes every bench_*.c a program
 * of its own. */
#ifndef OSSA_BENCH_UTIL_H
#define OSSA_BENCH_UTIL_H

#include "ossa.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The time on `id` (CLOCK_THREAD_CPUTIME_ID on a shared machine, where
 * other processes then do not count; CLOCK_MONOTONIC for wall time). */
static inline double bench_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline double bench_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v[0..n) (so v[0] is then the best run) and returns its median. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A whole file mapped read-only; exits when it cannot be. */
typedef struct bench_mapped {
    const unsigned char *data;
    size_t size;
} bench_mapped;

static inline bench_mapped bench_map_file(const char *path)
{
    bench_mapped m = {NULL, 0};
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) exit(1);
    m.size = (size_t)st.st_size;
    m.data = mmap(NULL, m.size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m.data == MAP_FAILED) exit(1);
    return m;
}

static inline void bench_unmap(bench_mapped m) { munmap((void *)m.data, m.size); }

/* A regular, non-empty file (an input a generator has finished). */
static inline int bench_file_ready(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* ossa_load_file with `threads` load threads; prints the error and exits
 * on failure. */
static inline ossa_model *bench_load(const char *path, uint32_t threads)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    ossa_error err;
    ossa_model *m = ossa_load_file(path, &o, &err);
    if (!m) {
        char buf[600];
        fprintf(stderr, "%s\n", ossa_error_format(&err, buf, sizeof buf));
        exit(1);
    }
    return m;
}

/* The IQM bytes of `m` (default options but `threads`), thrown away; their
 * size. Exits on failure. */
static inline size_t bench_write_iqm(const ossa_model *m, uint32_t threads)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQM;
    o.threads = threads;
    void *data;
    size_t size;
    ossa_error err;
    if (ossa_write_memory(m, &o, &data, &size, &err) != OSSA_OK) {
        fprintf(stderr, "write failed: %s\n", err.message);
        exit(1);
    }
    ossa_free(data, o.allocator);
    return size;
}

#endif
