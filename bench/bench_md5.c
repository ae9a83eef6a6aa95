/*
 * MD5 reading speed on a large synthetic model, against what reading the
 * same text with strtod per number (the IQM SDK's approach) costs.
 *
 * Input: big.md5mesh and big.anim0.md5anim .. big.anim4.md5anim in the
 * current directory (the build directory under `make bench`), made by
 * bench/gen_big_md5.py when missing (32 MB: 100 joints, 50,688 vertices,
 * 95,040 triangles, 117,000 weights; 5 animations of 640 frames, every
 * joint animated; numbers with 10 decimals as id's exporter writes them).
 *
 * Steps over all six files, each the best of several runs (thread CPU
 * time):
 *   read bytes      map each file and sum its bytes (the floor for any reader)
 *   strtod          map each file, find every number token and convert it
 *                   with strtod: the least the SDK's approach (sscanf per
 *                   line, strtod per number) can cost, with none of its
 *                   line handling or model building
 *   MD5 -> model    ossa_load_file of each file, the animations merged into
 *                   the mesh: everything up to a model ready to write
 *   model -> IQM    ossa_write_memory with the default (conservative) bounds
 *   convert         MD5 files -> IQM bytes: the two above together
 *
 * Then the same with two threads, in wall-clock time (best of several):
 *   MD5 -> model, 2 files at once   the six files loaded two at a time
 *                   (threads = 1 each), then merged in order: what
 *                   `ossa convert` does with two CPUs
 *   MD5 -> model, threads = 2       each file in turn with threads = 2
 *                   (the md5anim reader's frames in two shares)
 *   model -> IQM, threads = 2       ossa_write_memory with threads = 2
 *   convert, 2 threads              2 files at once, then the write
 *
 * usage: bench_md5 [STEM]     (default: big, generated if missing)
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "ossa.h"

#define RUNS 7
#define ANIMS 5

/* Thread CPU time (page faults of mapping and allocating included): these
 * machines are shared, and the ratios against the baseline are what
 * matter. */
static double now_ms(void) { return bench_ms(CLOCK_THREAD_CPUTIME_ID); }

static char paths[1 + ANIMS][512];

static int make_input(const char *stem)
{
    snprintf(paths[0], sizeof paths[0], "%s.md5mesh", stem);
    for (int a = 0; a < ANIMS; a++)
        snprintf(paths[1 + a], sizeof paths[0], "%s.anim%d.md5anim", stem, a);
    int missing = 0;
    for (int i = 0; i <= ANIMS; i++) missing |= !bench_file_ready(paths[i]);
    if (!missing) return 0;
    /* beside this source file; the build passes the directory */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "python3 '%s/gen_big_md5.py' -o '%s'", OSSA_BENCH_SOURCE_DIR, stem);
    printf("generating %s.* with %s/gen_big_md5.py\n", stem, OSSA_BENCH_SOURCE_DIR);
    fflush(stdout);
    if (system(cmd) != 0) return -1;
    for (int i = 0; i <= ANIMS; i++)
        if (!bench_file_ready(paths[i])) return -1;
    return 0;
}

static volatile double sink;

static void step_read(void)
{
    for (int i = 0; i <= ANIMS; i++) {
        bench_mapped m = bench_map_file(paths[i]);
        uint64_t sum = 0, w;
        size_t k = 0;
        for (; k + 8 <= m.size; k += 8) {
            memcpy(&w, m.data + k, 8);
            sum += w;
        }
        for (; k < m.size; k++) sum += m.data[k];
        sink = (double)sum;
        bench_unmap(m);
    }
}

/* Every token that starts like a number goes through strtod (quoted
 * strings skipped); the text is NUL-terminated in a copy so that strtod
 * stops at its end. */
static size_t step_strtod(char **copies, const size_t *sizes)
{
    size_t numbers = 0;
    double sum = 0;
    for (int i = 0; i <= ANIMS; i++) {
        char *p = copies[i], *end = p + sizes[i];
        while (p < end) {
            char c = *p;
            if ((c >= '0' && c <= '9') || c == '-' || c == '.') {
                char *e;
                sum += strtod(p, &e);
                numbers++;
                p = e > p ? e : p + 1;
            } else if (c == '"') {
                p++;
                while (p < end && *p != '"') p++;
                p++;
            } else {
                p++;
            }
        }
    }
    sink = sum;
    return numbers;
}

/* The IQM SDK's own reading loop (iqm.cpp loadmd5mesh, loadmd5anim): one
 * line at a time, sscanf patterns for joint, vert, tri and weight lines,
 * strtod per number inside frame blocks; nothing is built. */
static void step_sdk(char **copies, const size_t *sizes)
{
    double sum = 0;
    for (int i = 0; i <= ANIMS; i++) {
        char *p = copies[i], *end = p + sizes[i], line[512];
        bool in_frame = false;
        while (p < end) {
            char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((nl ? nl : end) - p);
            if (n >= sizeof line) n = sizeof line - 1;
            memcpy(line, p, n); /* the SDK reads lines into a 512-byte buffer */
            line[n] = 0;
            p = nl ? nl + 1 : end;
            char *s = line;
            while (*s == ' ' || *s == '\t') s++;
            int a, b, c, d;
            float f[6];
            if (in_frame) {
                if (*s == '}') {
                    in_frame = false;
                    continue;
                }
                for (char *src = s, *next;; src = next) {
                    double v = strtod(src, &next);
                    if (next <= src) break;
                    sum += v;
                }
            } else if (!strncmp(s, "vert", 4)) {
                if (sscanf(s, " vert %d ( %f %f ) %d %d", &a, &f[0], &f[1], &b, &c) == 5)
                    sum += f[0];
            } else if (!strncmp(s, "tri", 3)) {
                if (sscanf(s, " tri %d %d %d %d", &a, &b, &c, &d) == 4) sum += b;
            } else if (!strncmp(s, "weight", 6)) {
                if (sscanf(s, " weight %d %d %f ( %f %f %f )", &a, &b, &f[0], &f[1], &f[2],
                           &f[3]) == 6)
                    sum += f[1];
            } else if (*s == '"') {
                char name[100];
                if (sscanf(s, " %99s %d ( %f %f %f ) ( %f %f %f )", name, &a, &f[0], &f[1], &f[2],
                           &f[3], &f[4], &f[5]) >= 2)
                    sum += a;
            } else if (*s == '(') {
                if (sscanf(s, " ( %f %f %f ) ( %f %f %f )", &f[0], &f[1], &f[2], &f[3], &f[4],
                           &f[5]) == 6)
                    sum += f[0];
            } else if (!strncmp(s, "frame ", 6)) {
                in_frame = true;
            }
        }
    }
    sink = sum;
}

static ossa_model *load_one(int i, uint32_t threads) { return bench_load(paths[i], threads); }

static void merge(ossa_model *m, ossa_model *an)
{
    ossa_error err;
    char buf[600];
    if (ossa_model_merge(m, an, &err) != OSSA_OK) {
        fprintf(stderr, "%s\n", ossa_error_format(&err, buf, sizeof buf));
        exit(1);
    }
    ossa_model_free(an);
}

/* Every file with `threads` load threads, one after the other. */
static ossa_model *load_all_threads(uint32_t threads)
{
    ossa_model *m = load_one(0, threads);
    for (int a = 1; a <= ANIMS; a++) merge(m, load_one(a, threads));
    return m;
}

static ossa_model *load_all(void) { return load_all_threads(1); }

/* Two files at a time, as `ossa convert` loads its inputs: two threads
 * take the next file in order, then the models are merged in order. */
typedef struct two_at_once {
    ossa_model *models[1 + ANIMS];
    pthread_mutex_t lock;
    int next;
} two_at_once;

static void *load_some(void *arg)
{
    two_at_once *t = arg;
    for (;;) {
        pthread_mutex_lock(&t->lock);
        int i = t->next++;
        pthread_mutex_unlock(&t->lock);
        if (i > ANIMS) return NULL;
        t->models[i] = load_one(i, 1);
    }
}

static ossa_model *load_two_at_once(void)
{
    two_at_once t;
    memset(&t, 0, sizeof t);
    pthread_mutex_init(&t.lock, NULL);
    pthread_t other;
    if (pthread_create(&other, NULL, load_some, &t) != 0) exit(1);
    load_some(&t);
    pthread_join(other, NULL);
    pthread_mutex_destroy(&t.lock);
    for (int a = 1; a <= ANIMS; a++) merge(t.models[0], t.models[a]);
    return t.models[0];
}

static double wall_ms(void) { return bench_ms(CLOCK_MONOTONIC); }

int main(int argc, char **argv)
{
    const char *stem = argc > 1 ? argv[1] : "big";
    if (make_input(stem) != 0) {
        fprintf(stderr, "bench_md5: cannot create %s.* (needs python3): %s\n", stem,
                strerror(errno));
        return 1;
    }
    size_t bytes = 0, sizes[1 + ANIMS];
    char *copies[1 + ANIMS];
    for (int i = 0; i <= ANIMS; i++) {
        bench_mapped m = bench_map_file(paths[i]);
        sizes[i] = m.size;
        bytes += m.size;
        copies[i] = malloc(m.size + 1);
        if (!copies[i]) return 1;
        memcpy(copies[i], m.data, m.size);
        copies[i][m.size] = 0;
        bench_unmap(m);
    }
    ossa_model *model = load_all();
    uint64_t frames = 0;
    for (uint32_t a = 0; a < model->num_animations; a++) frames += model->animations[a].num_frames;
    size_t numbers = step_strtod(copies, sizes);
    printf("input: %s.md5mesh + %d md5anim, %zu bytes, %zu numbers: %u joints, %u vertices, "
           "%u triangles, %u meshes, %llu frames\n",
           stem, ANIMS, bytes, numbers, model->num_joints, model->num_vertices,
           model->num_triangles, model->num_meshes, (unsigned long long)frames);
    size_t iqm_size = bench_write_iqm(model, 1);
    ossa_model_free(model);

    enum { STEPS = 6 };
    double t[STEPS][RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ms();
        step_read();
        double t1 = now_ms();
        step_strtod(copies, sizes);
        double t2 = now_ms();
        step_sdk(copies, sizes);
        double t3 = now_ms();
        ossa_model *m = load_all();
        double t4 = now_ms();
        bench_write_iqm(m, 1);
        double t5 = now_ms();
        ossa_model_free(m);
        t[0][r] = t1 - t0;
        t[1][r] = t2 - t1;
        t[2][r] = t3 - t2;
        t[3][r] = t4 - t3;
        t[4][r] = t5 - t4;
        t[5][r] = t5 - t3;
    }
    static const char *const names[STEPS] = {
        "read bytes",   "strtod per number (SDK floor)", "SDK's loop (sscanf/strtod)",
        "MD5 -> model", "model -> IQM (bounds)",         "convert MD5 -> IQM"};
    double best[STEPS], median[STEPS];
    for (int i = 0; i < STEPS; i++) {
        median[i] = bench_median(t[i], RUNS);
        best[i] = t[i][0];
    }
    printf("%-31s %9s %9s %9s %12s %12s\n", "step", "best ms", "median", "MB/s", "x read bytes",
           "strtod / it");
    for (int i = 0; i < STEPS; i++)
        printf("%-31s %9.1f %9.1f %9.0f %12.1f %12.2f\n", names[i], best[i], median[i],
               bytes / 1e3 / best[i], best[i] / best[0], best[1] / best[i]);
    printf("IQM output: %zu bytes\n", iqm_size);
    printf("MD5 -> model: %.1fx faster than strtod per number allows (target >= 10x: %s), "
           "%.1fx faster than the SDK's reading loop\n",
           best[1] / best[3], best[1] / best[3] >= 10 ? "met" : "not met", best[2] / best[3]);
    printf("MD5 -> IQM: %.2fx the time of strtod per number alone\n", best[5] / best[1]);

    /* Two threads, wall clock: the runs interleaved as above. */
    enum { WALL = 4 };
    double w[WALL][RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = wall_ms();
        ossa_model *m = load_all_threads(2);
        double t1 = wall_ms();
        ossa_model_free(m);
        double t2 = wall_ms();
        m = load_two_at_once();
        double t3 = wall_ms();
        bench_write_iqm(m, 2);
        double t4 = wall_ms();
        ossa_model_free(m);
        w[0][r] = t3 - t2;
        w[1][r] = t1 - t0;
        w[2][r] = t4 - t3;
        w[3][r] = t4 - t2;
    }
    static const char *const wall_names[WALL] = {
        "MD5 -> model, 2 files at once", "MD5 -> model, threads = 2", "model -> IQM, threads = 2",
        "convert MD5 -> IQM, 2 threads"};
    double wbest[WALL];
    printf("\n%-31s %9s %9s %9s %12s %12s\n", "2 threads (wall clock)", "best ms", "median",
           "MB/s", "x 1 thread", "strtod / it");
    static const int single[WALL] = {3, 3, 4, 5}; /* the single-thread row of each */
    for (int i = 0; i < WALL; i++) {
        double wmedian = bench_median(w[i], RUNS);
        wbest[i] = w[i][0];
        printf("%-31s %9.1f %9.1f %9.0f %12.2f %12.2f\n", wall_names[i], w[i][0], wmedian,
               bytes / 1e3 / w[i][0], w[i][0] / best[single[i]], best[1] / w[i][0]);
    }
    printf("MD5 -> IQM with 2 threads: %.1fx faster than strtod per number alone (target 10x: "
           "%s)\n",
           best[1] / wbest[3], best[1] / wbest[3] >= 10 ? "met" : "not met");
    for (int i = 0; i <= ANIMS; i++) free(copies[i]);
    return 0;
}
