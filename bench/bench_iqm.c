/*
 * bench_iqm — IQM read and write speed, and the memory a load needs.
 *
 * Input: a large model built here through the public builder API, always
 * the same (no files, no randomness from outside): 100 joints (root, spine,
 * six limb chains), one tube of 16 rings x 32 segments around every bone
 * (50,688 vertices, 95,040 triangles, 4 meshes) with float positions,
 * normals and texcoords and ubyte blend indexes/weights (up to 3
 * influences), and 5 animations totalling 5,000 frames. This is the shape
 * of ../shared/bench/gen_big_iqe.py's default model. ossa_write_memory turns
 * it into IQM bytes, which every read row below uses.
 *
 * Rows (each run several times, time-boxed; the median is printed):
 *   memcpy          copy of as many bytes as the IQM file into a buffer
 *                   that is already paged in (hot caches, like the loads
 *                   below): the speed of light for any loader on this
 *                   machine, measured in the same run
 *   write           ossa_write_memory: encoding, quantization, adjacency
 *                   and per-frame bounds (default: conservative)
 *   load            ossa_load_memory of the bytes (model freed untimed)
 *   load+validate   the same, then ossa_validate
 *   load file       ossa_load_file of the bytes written to a temporary
 *                   file (warm page cache: the file was just written)
 *
 * How to read it: "MB/s" is file bytes (10^6) per second of the median;
 * "x memcpy" is median time / memcpy median, i.e. how many memcpys of the
 * file one operation costs. A reader that decodes animations produces
 * more bytes than it reads, so a ratio well above 1 is expected.
 *
 * Memory: "heap peak" is the largest number of bytes the library held at
 * once through a counting ossa_allocator (exact, allocator overhead not
 * included); "rss peak" is the growth of the peak resident set (VmHWM;
 * ru_maxrss would keep the parent's peak across fork and exec) of a fresh
 * child process (this program run again with --child) around the load. It
 * includes allocator overhead and, for load file, the mapped file's pages;
 * for load memory the input buffer is resident before and not counted.
 * Both are also given relative to the file size.
 *
 * Every row is also printed as one machine-readable line:
 *   BENCH name=... bytes=... ms=... mbps=... ratio=... reps=...
 *   BENCH name=mem_... bytes=... peak_bytes=... ratio=...
 *
 * Environment: OSSA_BENCH_SECONDS (default 3) is the time budget per row;
 * every row runs at least 3 and at most 25 times.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "ossa.h"

#define MIN_REPS 3
#define MAX_REPS 25
#define PI 3.14159265358979323846

/* -- Timing -- */

static double now_ms(void) { return bench_ms(CLOCK_MONOTONIC); }

static double budget_ms = 3000;

static void die(const char *what, const ossa_error *error)
{
    char buf[600];
    fprintf(stderr, "bench_iqm: %s: %s\n", what,
            error ? ossa_error_format(error, buf, sizeof buf) : strerror(errno));
    exit(1);
}

/* -- A counting allocator: exact heap peak of one call. -- */

typedef struct counter {
    size_t current, peak;
} counter;

static void *count_alloc(void *user, size_t size)
{
    counter *c = user;
    size_t *p = malloc(size + 16);
    if (!p) return NULL;
    p[0] = size;
    c->current += size;
    if (c->current > c->peak) c->peak = c->current;
    return (unsigned char *)p + 16;
}

static void count_free(void *user, void *ptr)
{
    if (!ptr) return;
    counter *c = user;
    size_t *p = (size_t *)((unsigned char *)ptr - 16);
    c->current -= p[0];
    free(p);
}

/* -- The model (deterministic; mirrors gen_big_iqe.py's defaults) -- */

enum { NUM_JOINTS = 100, RINGS = 16, SEGMENTS = 32, NUM_FRAMES = 5000, NUM_ANIMS = 5, NUM_MESHES = 4 };

static uint64_t rng_state = 1234;
static double rnd(void) /* [0, 1) */
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

typedef struct { double x, y, z, w; } quat;

static quat qmul(quat a, quat b)
{
    quat r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
              a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
              a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}

static quat qaxis(int axis, double angle)
{
    double s = sin(angle / 2);
    quat q = {axis == 0 ? s : 0, axis == 1 ? s : 0, axis == 2 ? s : 0, cos(angle / 2)};
    return q;
}

static void check(ossa_status st, const ossa_error *e, const char *what)
{
    if (st != OSSA_OK) die(what, e);
}

static ossa_model *build_model(void)
{
    ossa_error e;
    ossa_model *m = ossa_model_create(NULL);
    if (!m) die("ossa_model_create", NULL);

    /* Skeleton: root, a spine chain, six limb chains. */
    static int parent[NUM_JOINTS];
    static double offset[NUM_JOINTS][3], world[NUM_JOINTS][3];
    static char names[NUM_JOINTS][32];
    int n = 0;
    parent[n] = -1;
    offset[n][0] = offset[n][1] = 0, offset[n][2] = 1;
    snprintf(names[n++], sizeof names[0], "root");
    int spine = NUM_JOINTS / 10 < 9 ? NUM_JOINTS / 10 : 9;
    for (int i = 0; i < spine; i++, n++) {
        parent[n] = n - 1;
        offset[n][0] = offset[n][1] = 0, offset[n][2] = 0.25;
        snprintf(names[n], sizeof names[0], "spine%d", i);
    }
    static const double dirs[6][3] = {{1, 0, 0.2}, {-1, 0, 0.2}, {0.7, 0.7, 0},
                                      {-0.7, 0.7, 0}, {0.3, 0, -1}, {-0.3, 0, -1}};
    int attach[6] = {n - 1, n - 1, n - 3, n - 3, 0, 0};
    int remaining = NUM_JOINTS - n;
    for (int l = 0; l < 6; l++) {
        int count = remaining / 6 + (l < remaining % 6), p = attach[l];
        double len = sqrt(dirs[l][0] * dirs[l][0] + dirs[l][1] * dirs[l][1] + dirs[l][2] * dirs[l][2]);
        for (int k = 0; k < count; k++, n++) {
            double bone = 0.12 + 0.02 * rnd();
            for (int c = 0; c < 3; c++) offset[n][c] = dirs[l][c] / len * bone;
            parent[n] = p;
            snprintf(names[n], sizeof names[0], "limb%d_%d", l, k);
            p = n;
        }
    }
    for (int j = 0; j < NUM_JOINTS; j++) {
        ossa_transform t = ossa_transform_identity();
        for (int c = 0; c < 3; c++) {
            t.translation[c] = (float)offset[j][c];
            world[j][c] = offset[j][c] + (parent[j] >= 0 ? world[parent[j]][c] : 0);
        }
        t.rotation[3] = -1;
        if (ossa_model_add_joint(m, names[j], parent[j], &t, &e) != j) die("add joint", &e);
    }

    /* Geometry: a tube along every bone (parent -> joint). */
    const int bones = NUM_JOINTS - 1, per_bone = RINGS * SEGMENTS;
    const uint32_t nv = (uint32_t)(bones * per_bone);
    const uint32_t nt = (uint32_t)(bones * (RINGS - 1) * SEGMENTS * 2);
    float *pos = malloc(nv * 3 * sizeof *pos), *nrm = malloc(nv * 3 * sizeof *nrm);
    float *uv = malloc(nv * 2 * sizeof *uv), *bi = malloc(nv * 4 * sizeof *bi);
    float *bw = malloc(nv * 4 * sizeof *bw);
    ossa_triangle *tris = malloc(nt * sizeof *tris);
    if (!pos || !nrm || !uv || !bi || !bw || !tris) die("malloc", NULL);
    uint32_t v = 0, t = 0;
    for (int b = 1; b < NUM_JOINTS; b++) {
        int p = parent[b], gp = parent[p];
        double d[3], len = 0;
        for (int c = 0; c < 3; c++) d[c] = world[b][c] - world[p][c], len += d[c] * d[c];
        len = sqrt(len);
        double dn[3] = {d[0] / len, d[1] / len, d[2] / len};
        double ref[3] = {0, 0, 1};
        if (fabs(dn[2]) >= 0.9) ref[0] = 1, ref[2] = 0;
        double u[3] = {dn[1] * ref[2] - dn[2] * ref[1], dn[2] * ref[0] - dn[0] * ref[2],
                       dn[0] * ref[1] - dn[1] * ref[0]};
        double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int c = 0; c < 3; c++) u[c] /= ul;
        double w[3] = {dn[1] * u[2] - dn[2] * u[1], dn[2] * u[0] - dn[0] * u[2],
                       dn[0] * u[1] - dn[1] * u[0]};
        double radius = 0.03 + 0.01 * ((b * 7) % 5);
        uint32_t base = v;
        for (int r = 0; r < RINGS; r++) {
            double tt = (double)r / (RINGS - 1);
            for (int s = 0; s < SEGMENTS; s++, v++) {
                double ang = 2 * PI * s / SEGMENTS, ca = cos(ang), sa = sin(ang);
                for (int c = 0; c < 3; c++) {
                    double nc = u[c] * ca + w[c] * sa;
                    nrm[v * 3 + c] = (float)nc;
                    pos[v * 3 + c] = (float)(world[p][c] + d[c] * tt + nc * radius);
                }
                uv[v * 2] = (float)s / SEGMENTS;
                uv[v * 2 + 1] = (float)tt;
                double wb = 0.2 + 0.8 * tt, wpar = 1 - wb;
                float *ix = &bi[v * 4], *wt = &bw[v * 4];
                memset(ix, 0, 4 * sizeof *ix);
                memset(wt, 0, 4 * sizeof *wt);
                ix[0] = (float)b, wt[0] = (float)wb;
                if (gp >= 0 && tt < 0.3) {
                    ix[1] = (float)p, wt[1] = (float)(wpar * 0.8);
                    ix[2] = (float)gp, wt[2] = (float)(wpar * 0.2);
                } else {
                    ix[1] = (float)p, wt[1] = (float)wpar;
                }
            }
        }
        for (int r = 0; r + 1 < RINGS; r++)
            for (int s = 0; s < SEGMENTS; s++) {
                uint32_t i0 = base + (uint32_t)(r * SEGMENTS + s);
                uint32_t i1 = base + (uint32_t)(r * SEGMENTS + (s + 1) % SEGMENTS);
                uint32_t i2 = i0 + SEGMENTS, i3 = i1 + SEGMENTS;
                tris[t++] = (ossa_triangle){{i0, i2, i1}};
                tris[t++] = (ossa_triangle){{i1, i2, i3}};
            }
    }
    check(ossa_model_set_num_vertices(m, nv, &e), &e, "vertex count");
    if (!ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, &e) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv, &e) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm, &e) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, bi, &e) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL, bw, &e))
        die("vertex array", &e);
    check(ossa_model_set_triangles(m, nt, tris, &e), &e, "triangles");
    int per_mesh = (bones + NUM_MESHES - 1) / NUM_MESHES;
    for (int i = 0; i < NUM_MESHES; i++) {
        int first = i * per_mesh, count = bones - first < per_mesh ? bones - first : per_mesh;
        char name[32], material[32];
        snprintf(name, sizeof name, "part%d", i);
        snprintf(material, sizeof material, "mat%d.png", i);
        uint32_t tpb = (RINGS - 1) * SEGMENTS * 2;
        if (ossa_model_add_mesh(m, name, material, (uint32_t)(first * per_bone),
                                (uint32_t)(count * per_bone), (uint32_t)first * tpb,
                                (uint32_t)count * tpb, &e) < 0)
            die("mesh", &e);
    }
    free(pos), free(nrm), free(uv), free(bi), free(bw), free(tris);

    /* Animations: two rotations per joint, a moving root, some static joints. */
    struct { int fixed, ax1, ax2; double amp, freq, phase; } jp[NUM_JOINTS];
    for (int j = 0; j < NUM_JOINTS; j++) {
        jp[j].fixed = j % 11 == 5;
        jp[j].ax1 = (int)(rnd() * 3);
        jp[j].ax2 = (int)(rnd() * 3);
        jp[j].amp = 0.2 + 0.6 * rnd();
        jp[j].freq = 0.5 + 2.0 * rnd();
        jp[j].phase = rnd() * 6.28;
    }
    for (int a = 0; a < NUM_ANIMS; a++) {
        uint32_t nf = NUM_FRAMES / NUM_ANIMS + (a < NUM_FRAMES % NUM_ANIMS);
        char name[32];
        snprintf(name, sizeof name, "anim%d", a);
        ossa_animation *an = ossa_model_add_animation(m, name, nf, a % 2 ? 24.0f : 30.0f,
                                                      a % 2 ? 0 : OSSA_ANIMATION_LOOP, &e);
        if (!an) die("animation", &e);
        for (uint32_t f = 0; f < nf; f++) {
            double tt = f / 30.0;
            for (int j = 0; j < NUM_JOINTS; j++) {
                ossa_transform *x = &an->frames[(size_t)f * NUM_JOINTS + (size_t)j];
                quat q = {0, 0, 0, -1};
                if (!jp[j].fixed) {
                    q = qmul(qaxis(jp[j].ax1, jp[j].amp * sin(jp[j].freq * tt + jp[j].phase + a)),
                             qaxis(jp[j].ax2, 0.5 * jp[j].amp * cos(0.7 * jp[j].freq * tt + jp[j].phase)));
                    if (q.w > 0) q.x = -q.x, q.y = -q.y, q.z = -q.z, q.w = -q.w;
                }
                x->rotation[0] = (float)q.x, x->rotation[1] = (float)q.y;
                x->rotation[2] = (float)q.z, x->rotation[3] = (float)q.w;
                if (j == 0) {
                    x->translation[0] = (float)(0.3 * sin(0.5 * tt + a));
                    x->translation[1] = (float)(0.2 * tt / (nf / 30.0));
                    x->translation[2] = (float)(offset[0][2] + 0.05 * sin(2 * tt));
                }
            }
        }
    }
    return m;
}

/* -- Rows -- */

typedef struct row {
    const char *name, *label;
    size_t bytes;
    double ms;
    int reps;
} row;

enum { OP_MEMCPY, OP_WRITE, OP_LOAD, OP_LOAD_VALIDATE, OP_LOAD_FILE, NUM_OPS };

typedef struct ctx {
    const ossa_model *model;
    const void *bytes;
    size_t size;
    unsigned char *copy;
    const char *path;
} ctx;

static double run_once(const ctx *c, int op)
{
    ossa_error e;
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.format = OSSA_FORMAT_IQM;
    ossa_model *m = NULL;
    double t0 = now_ms(), t1;
    switch (op) {
    case OP_MEMCPY:
        memcpy(c->copy, c->bytes, c->size);
        t1 = now_ms();
        if (memcmp(c->copy + c->size / 2, (const unsigned char *)c->bytes + c->size / 2, 1))
            die("memcpy", NULL); /* keeps the copy observable */
        return t1 - t0;
    case OP_WRITE: {
        ossa_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.format = OSSA_FORMAT_IQM;
        void *out;
        size_t n;
        check(ossa_write_memory(c->model, &wo, &out, &n, &e), &e, "write");
        t1 = now_ms();
        ossa_free(out, wo.allocator);
        return t1 - t0;
    }
    case OP_LOAD:
    case OP_LOAD_VALIDATE:
        m = ossa_load_memory(c->bytes, c->size, &lo, &e);
        if (!m) die("load", &e);
        if (op == OP_LOAD_VALIDATE && ossa_model_validate(m, NULL, NULL, NULL) != 0)
            die("the benchmark model does not validate", NULL);
        break;
    case OP_LOAD_FILE:
        m = ossa_load_file(c->path, &lo, &e);
        if (!m) die("load file", &e);
        break;
    }
    t1 = now_ms();
    ossa_model_free(m);
    return t1 - t0;
}

static void measure(const ctx *c, int op, row *r)
{
    double times[MAX_REPS], spent = 0;
    int n = 0;
    run_once(c, op); /* warm-up: page cache, allocator, CPU caches */
    while (n < MAX_REPS && (n < MIN_REPS || spent < budget_ms)) {
        times[n] = run_once(c, op);
        spent += times[n++];
    }
    r->ms = bench_median(times, n);
    r->reps = n;
}

/* -- Memory -- */

/* Peak resident set of this process so far (VmHWM, bytes), or -1. Unlike
 * ru_maxrss it belongs to the current address space, so it does not carry
 * the parent's peak across fork and exec. */
static long long vm_hwm(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lld kB", &kib) == 1) break;
    fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

/* Child mode: argv = prog --child memory|file PATH. Prints the peak RSS
 * (bytes) before and after the load; for "memory" the file is read into a
 * buffer first, so the input itself is not counted. */
static int child_main(const char *mode, const char *path)
{
    ossa_error e;
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.format = OSSA_FORMAT_IQM;
    void *data = NULL;
    size_t size = 0;
    if (strcmp(mode, "memory") == 0) {
        FILE *f = fopen(path, "rb");
        struct stat st;
        if (!f || fstat(fileno(f), &st) != 0) die(path, NULL);
        size = (size_t)st.st_size;
        data = malloc(size);
        if (!data || fread(data, 1, size, f) != size) die(path, NULL);
        fclose(f);
    }
    long long before = vm_hwm();
    ossa_model *m = data ? ossa_load_memory(data, size, &lo, &e) : ossa_load_file(path, &lo, &e);
    if (!m) die("child load", &e);
    long long after = vm_hwm();
    printf("%lld %lld\n", before, after);
    ossa_model_free(m);
    free(data);
    return 0;
}

/* Peak RSS growth (bytes) of a fresh process loading `path`, or -1. */
static long long child_peak(const char *mode, const char *path)
{
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        char *args[] = {"bench_iqm", "--child", (char *)mode, (char *)path, NULL};
        execv("/proc/self/exe", args);
        _exit(127);
    }
    close(fds[1]);
    char buf[128] = {0};
    size_t got = 0;
    ssize_t k;
    while (got < sizeof buf - 1 && (k = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)k;
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    long long before, after;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        sscanf(buf, "%lld %lld", &before, &after) != 2 || before < 0 || after < before)
        return -1;
    return after - before;
}

static size_t heap_peak(const ctx *c, int op)
{
    counter cnt = {0, 0};
    ossa_allocator a = {count_alloc, count_free, &cnt};
    ossa_error e;
    if (op == OP_WRITE) {
        ossa_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.format = OSSA_FORMAT_IQM;
        wo.allocator = &a;
        void *out;
        size_t n;
        check(ossa_write_memory(c->model, &wo, &out, &n, &e), &e, "write");
        ossa_free(out, wo.allocator);
    } else {
        ossa_load_options lo;
        memset(&lo, 0, sizeof lo);
        lo.format = OSSA_FORMAT_IQM;
        lo.allocator = &a;
        ossa_model *m = ossa_load_memory(c->bytes, c->size, &lo, &e);
        if (!m) die("load", &e);
        ossa_model_free(m);
    }
    if (cnt.current != 0) fprintf(stderr, "bench_iqm: %zu bytes not freed\n", cnt.current);
    return cnt.peak;
}

static int program_on_path(const char *name)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char full[4096];
        if (len && len + strlen(name) + 2 < sizeof full) {
            snprintf(full, sizeof full, "%.*s/%s", (int)len, path, name);
            if (access(full, X_OK) == 0) return 1;
        }
        path = end ? end + 1 : NULL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0) return child_main(argv[2], argv[3]);
    const char *env = getenv("OSSA_BENCH_SECONDS");
    if (env && atof(env) > 0) budget_ms = atof(env) * 1e3;

    const char *shared = getenv("OSSA_SHARED_DIR");
    if (shared) {
        char gen[4096];
        snprintf(gen, sizeof gen, "%s/bench/gen_big_iqe.py", shared);
        if (access(gen, R_OK) == 0 && program_on_path("python3"))
            printf("note: %s is available, but the model below is built in-process through the\n"
                   "      API (same shape, no IQE reader needed), so the numbers do not depend on it\n",
                   gen);
    }

    double t0 = now_ms();
    ossa_model *model = build_model();
    double build_ms = now_ms() - t0;
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.format = OSSA_FORMAT_IQM;
    ossa_error e;
    void *bytes;
    size_t size;
    check(ossa_write_memory(model, &wo, &bytes, &size, &e), &e, "write");
    printf("model: %u joints, %u vertices, %u triangles, %u meshes, %u animations, %u frames "
           "(built in %.0f ms)\n",
           model->num_joints, model->num_vertices, model->num_triangles, model->num_meshes,
           model->num_animations, (unsigned)NUM_FRAMES, build_ms);
    printf("IQM file: %zu bytes (%.2f MB); decoded animation: %.2f MB\n", size, size / 1e6,
           (double)NUM_FRAMES * NUM_JOINTS * sizeof(ossa_transform) / 1e6);

    char path[] = "/tmp/ossa_bench_iqm_XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char pathbuf[4096];
    if (tmpdir && *tmpdir)
        snprintf(pathbuf, sizeof pathbuf, "%s/ossa_bench_iqm_XXXXXX", tmpdir);
    else
        snprintf(pathbuf, sizeof pathbuf, "%s", path);
    int fd = mkstemp(pathbuf);
    if (fd < 0) die("mkstemp", NULL);
    FILE *f = fdopen(fd, "wb");
    if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0) die(pathbuf, NULL);

    ctx c = {model, bytes, size, malloc(size), pathbuf};
    if (!c.copy) die("malloc", NULL);
    memset(c.copy, 1, size); /* fault the pages in: memcpy is measured alone */

    row rows[NUM_OPS] = {
        {"memcpy", "memcpy (baseline)", size, 0, 0},
        {"iqm_write", "write (ossa_write_memory)", size, 0, 0},
        {"iqm_load", "load (ossa_load_memory)", size, 0, 0},
        {"iqm_load_validate", "load + ossa_validate", size, 0, 0},
        {"iqm_load_file", "load file (ossa_load_file)", size, 0, 0},
    };
    for (int op = 0; op < NUM_OPS; op++) measure(&c, op, &rows[op]);

    double base = rows[OP_MEMCPY].ms;
    printf("\n%-28s %12s %10s %10s %9s %5s\n", "operation", "bytes", "median ms", "MB/s",
           "x memcpy", "reps");
    for (int op = 0; op < NUM_OPS; op++) {
        const row *r = &rows[op];
        printf("%-28s %12zu %10.3f %10.1f %9.1f %5d\n", r->label, r->bytes, r->ms,
               r->bytes / 1e6 / (r->ms / 1e3), r->ms / base, r->reps);
    }
    for (int op = 0; op < NUM_OPS; op++) {
        const row *r = &rows[op];
        printf("BENCH name=%s bytes=%zu ms=%.3f mbps=%.1f ratio=%.2f reps=%d\n", r->name, r->bytes,
               r->ms, r->bytes / 1e6 / (r->ms / 1e3), r->ms / base, r->reps);
    }

    size_t heap_load = heap_peak(&c, OP_LOAD), heap_write = heap_peak(&c, OP_WRITE);
    long long rss_load = child_peak("memory", pathbuf), rss_file = child_peak("file", pathbuf);
    printf("\n%-36s %12s %8s\n", "memory", "peak bytes", "x file");
    struct { const char *label, *name; long long bytes; } mem[] = {
        {"heap peak, load (allocator)", "mem_heap_load", (long long)heap_load},
        {"heap peak, write (allocator)", "mem_heap_write", (long long)heap_write},
        {"rss peak, load memory (child)", "mem_rss_load", rss_load},
        {"rss peak, load file (child)", "mem_rss_load_file", rss_file},
    };
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++) {
        if (mem[i].bytes < 0) {
            printf("%-36s %12s %8s\n", mem[i].label, "n/a", "");
            continue;
        }
        printf("%-36s %12lld %8.2f\n", mem[i].label, mem[i].bytes, (double)mem[i].bytes / size);
    }
    for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++)
        if (mem[i].bytes >= 0)
            printf("BENCH name=%s bytes=%zu peak_bytes=%lld ratio=%.2f\n", mem[i].name, size,
                   mem[i].bytes, (double)mem[i].bytes / size);

    remove(pathbuf);
    free(c.copy);
    ossa_free(bytes, wo.allocator);
    ossa_model_free(model);
    return 0;
}
