/*
 * IQE reading speed and memory on a large synthetic model.
 *
 * Input: big.iqe in the current directory (the build directory under
 * `make bench`). When it is missing it is generated: by
 * $OSSA_SHARED_DIR/bench/gen_big_iqe.py when python3 and the script are
 * there (34 MB: 100 joints, 50,688 vertices, 95,040 triangles, 5,000
 * frames), else by an equivalent generator written here in C.
 *
 * Steps, each the best of several runs:
 *   read bytes   map the file and sum its bytes (the floor for any reader)
 *   IQE parse    map + the text pass alone (commands -> raw lists)
 *   IQE -> model ossa_load_file: map, parse, build the model
 *   model -> IQM ossa_write_memory with the default (conservative) bounds
 *   convert      IQE file -> IQM bytes: the two above together
 *   the last three again with 2 threads (ossa_load_options.threads,
 *   ossa_write_options.threads)
 * Peak memory: a fresh process (this program re-executed) converts once;
 * its ru_maxrss is compared with the input size.
 *
 * usage: bench_iqe [FILE.iqe]      (default: big.iqe, generated if missing)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "formats/iqe/iqe.h"
#include "ossa.h"

#define RUNS 7

static double now_ms(void) { return bench_ms(CLOCK_MONOTONIC); }

/* -- The input -- */

/* The generator's number style: %.6f without trailing zeros. */
static void num(FILE *f, double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.6f", x);
    char *e = buf + strlen(buf);
    while (e > buf && e[-1] == '0') *--e = 0;
    if (e > buf && e[-1] == '.') *--e = 0;
    if (strcmp(buf, "-0") == 0 || !buf[0]) strcpy(buf, "0");
    fputs(buf, f);
}

static uint64_t rng = 1234;
static double frand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void qmul(const double a[4], const double b[4], double r[4])
{
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* The same model as gen_big_iqe.py with its defaults (its own random
 * numbers, so not the same bytes): a skeleton of a root, a spine and six
 * limb chains; a 16 x 32 tube along every bone with up to 3 influences;
 * 4 meshes; 5 animations of 1000 frames of pq poses. */
static int generate_c(const char *path)
{
    enum { NJ = 100, R = 16, S = 32, FRAMES = 5000, ANIMS = 5, MESHES = 4 };
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    static int parent[NJ];
    static double off[NJ][3], wp[NJ][3];
    int n = 0, spine = 9;
    parent[n] = -1, off[n][0] = 0, off[n][1] = 0, off[n][2] = 1, n++;
    for (int i = 0; i < spine; i++, n++) parent[n] = n - 1, off[n][0] = off[n][1] = 0, off[n][2] = 0.25;
    int attach[6] = {n - 1, n - 1, n - 3, n - 3, 0, 0};
    static const double dirs[6][3] = {{1, 0, 0.2}, {-1, 0, 0.2}, {0.7, 0.7, 0},
                                      {-0.7, 0.7, 0}, {0.3, 0, -1}, {-0.3, 0, -1}};
    int remaining = NJ - n;
    for (int l = 0; l < 6; l++) {
        int p = attach[l], per = remaining / 6 + (l < remaining % 6);
        double len = sqrt(dirs[l][0] * dirs[l][0] + dirs[l][1] * dirs[l][1] + dirs[l][2] * dirs[l][2]);
        for (int k = 0; k < per; k++, n++) {
            double ln = 0.12 + 0.02 * frand();
            parent[n] = p;
            for (int c = 0; c < 3; c++) off[n][c] = dirs[l][c] / len * ln;
            p = n;
        }
    }
    fprintf(f, "# Inter-Quake Export\n# synthetic benchmark model (C generator)\n");
    for (int j = 0; j < NJ; j++) {
        for (int c = 0; c < 3; c++) wp[j][c] = (parent[j] < 0 ? 0 : wp[parent[j]][c]) + off[j][c];
        fprintf(f, "joint \"j%d\" %d\n\tpq ", j, parent[j]);
        num(f, off[j][0]), fputc(' ', f), num(f, off[j][1]), fputc(' ', f), num(f, off[j][2]);
        fputs(" 0 0 0 -1\n", f);
    }
    int per_mesh = (NJ - 1 + MESHES - 1) / MESHES;
    for (int m = 0; m < MESHES; m++) {
        fprintf(f, "\nmesh \"part%d\"\n\tmaterial \"mat%d.png\"\n", m, m);
        int base = 0;
        for (int b = 1 + m * per_mesh; b < NJ && b < 1 + (m + 1) * per_mesh; b++) {
            int p = parent[b], gp = parent[p];
            double d[3], dn[3], u[3], v[3], len = 0;
            for (int c = 0; c < 3; c++) d[c] = wp[b][c] - wp[p][c], len += d[c] * d[c];
            len = sqrt(len);
            for (int c = 0; c < 3; c++) dn[c] = d[c] / len;
            double ref[3] = {0, 0, 1};
            if (fabs(dn[2]) >= 0.9) ref[0] = 1, ref[2] = 0;
            u[0] = dn[1] * ref[2] - dn[2] * ref[1];
            u[1] = dn[2] * ref[0] - dn[0] * ref[2];
            u[2] = dn[0] * ref[1] - dn[1] * ref[0];
            double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int c = 0; c < 3; c++) u[c] /= ul;
            v[0] = dn[1] * u[2] - dn[2] * u[1];
            v[1] = dn[2] * u[0] - dn[0] * u[2];
            v[2] = dn[0] * u[1] - dn[1] * u[0];
            double radius = 0.03 + 0.01 * ((b * 7) % 5);
            for (int r = 0; r < R; r++) {
                double t = (double)r / (R - 1);
                for (int s = 0; s < S; s++) {
                    double a = 2 * 3.14159265358979323846 * s / S, nrm[3];
                    for (int c = 0; c < 3; c++) nrm[c] = u[c] * cos(a) + v[c] * sin(a);
                    fputs("vp ", f);
                    for (int c = 0; c < 3; c++) {
                        if (c) fputc(' ', f);
                        num(f, wp[p][c] + d[c] * t + nrm[c] * radius);
                    }
                    fputs("\n\tvt ", f), num(f, (double)s / S), fputc(' ', f), num(f, t);
                    fputs("\n\tvn ", f);
                    for (int c = 0; c < 3; c++) {
                        if (c) fputc(' ', f);
                        num(f, nrm[c]);
                    }
                    double wb = 0.2 + 0.8 * t, wpar = 1 - wb;
                    fprintf(f, "\n\tvb %d ", b), num(f, wb);
                    if (gp >= 0 && t < 0.3) {
                        fprintf(f, " %d ", p), num(f, wpar * 0.8);
                        fprintf(f, " %d ", gp), num(f, wpar * 0.2);
                    } else {
                        fprintf(f, " %d ", p), num(f, wpar);
                    }
                    fputc('\n', f);
                }
            }
            for (int r = 0; r < R - 1; r++)
                for (int s = 0; s < S; s++) {
                    int i0 = base + r * S + s, i1 = base + r * S + (s + 1) % S;
                    fprintf(f, "fm %d %d %d\nfm %d %d %d\n", i0, i0 + S, i1, i1, i0 + S, i1 + S);
                }
            base += R * S;
        }
    }
    static double amp[NJ], freq[NJ], ph[NJ];
    static int ax1[NJ], ax2[NJ];
    for (int j = 0; j < NJ; j++) {
        ax1[j] = (int)(frand() * 3), ax2[j] = (int)(frand() * 3);
        amp[j] = 0.2 + 0.6 * frand(), freq[j] = 0.5 + 2 * frand(), ph[j] = frand() * 6.28;
    }
    for (int a = 0; a < ANIMS; a++) {
        int nf = FRAMES / ANIMS;
        fprintf(f, "\nanimation \"anim%d\"\n\tframerate %d\n%s", a, a % 2 ? 24 : 30,
                a % 2 ? "" : "\tloop\n");
        for (int fr = 0; fr < nf; fr++) {
            fprintf(f, "\nframe %d\n", fr);
            double tt = fr / 30.0;
            for (int j = 0; j < NJ; j++) {
                double q[4] = {0, 0, 0, -1}, o[3] = {off[j][0], off[j][1], off[j][2]};
                if (j % 11 != 5) {
                    double h1 = amp[j] * sin(freq[j] * tt + ph[j] + a) / 2;
                    double h2 = 0.5 * amp[j] * cos(0.7 * freq[j] * tt + ph[j]) / 2;
                    double q1[4] = {0, 0, 0, cos(h1)}, q2[4] = {0, 0, 0, cos(h2)};
                    q1[ax1[j]] = sin(h1), q2[ax2[j]] = sin(h2);
                    qmul(q1, q2, q);
                    if (q[3] > 0)
                        for (int c = 0; c < 4; c++) q[c] = -q[c];
                }
                if (parent[j] < 0) {
                    o[0] = 0.3 * sin(0.5 * tt + a);
                    o[1] = 0.2 * tt / (nf / 30.0);
                    o[2] = off[j][2] + 0.05 * sin(2 * tt);
                }
                fputs("pq", f);
                for (int c = 0; c < 3; c++) fputc(' ', f), num(f, o[c]);
                for (int c = 0; c < 4; c++) fputc(' ', f), num(f, q[c]);
                fputc('\n', f);
            }
        }
    }
    return fclose(f);
}

static int make_input(const char *path)
{
    if (bench_file_ready(path)) return 0;
    const char *shared = getenv("OSSA_SHARED_DIR");
    char script[1024], cmd[2300];
    snprintf(script, sizeof script, "%s/bench/gen_big_iqe.py", shared ? shared : "../shared");
    if (bench_file_ready(script) && system("python3 -c pass >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd, "python3 '%s' -o '%s' >/dev/null", script, path);
        printf("generating %s with %s\n", path, script);
        fflush(stdout);
        if (system(cmd) == 0 && bench_file_ready(path)) return 0;
    }
    printf("generating %s with the built-in generator\n", path);
    fflush(stdout);
    return generate_c(path);
}

/* -- Steps -- */

static volatile uint64_t sink;

static void step_baseline(const char *path)
{
    bench_mapped m = bench_map_file(path);
    uint64_t sum = 0, w;
    size_t i = 0;
    for (; i + 8 <= m.size; i += 8) {
        memcpy(&w, m.data + i, 8);
        sum += w;
    }
    for (; i < m.size; i++) sum += m.data[i];
    sink = sum;
    bench_unmap(m);
}

static void step_parse(const char *path)
{
    bench_mapped m = bench_map_file(path);
    ossa_model *model = ossa_model_create(NULL);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    iqe_doc doc;
    ossa_error err;
    if (ossa__iqe_parse(&doc, model, m.data, m.size, &o, &err) != OSSA_OK) {
        fprintf(stderr, "parse failed: %s\n", err.message);
        exit(1);
    }
    sink = doc.num_poses;
    ossa__iqe_doc_free(&doc);
    ossa_model_free(model);
    bench_unmap(m);
}

typedef struct timing {
    double best, median;
} timing;

static timing finish(double *t)
{
    double median = bench_median(t, RUNS);
    timing r = {t[0], median};
    return r;
}

/* The child process of the memory measurement: one conversion, then its
 * own ru_maxrss (kB) on stdout. */
static int rss_child(const char *path)
{
    ossa_model *m = bench_load(path, 2);
    sink = bench_write_iqm(m, 2);
    ossa_model_free(m);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 1;
    printf("%ld\n", ru.ru_maxrss);
    return 0;
}

/* Runs this program again (a fresh process, so that nothing of this one
 * counts) and reads the child's peak. */
static long peak_rss_kb(const char *self, const char *path)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        execl(self, self, "--rss-child", path, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char buf[64] = {0};
    ssize_t n = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) || n <= 0)
        return -1;
    return strtol(buf, NULL, 10);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--rss-child") == 0) return rss_child(argv[2]);
    const char *path = argc > 1 ? argv[1] : "big.iqe";
    if (argc <= 1 && make_input(path) != 0) {
        fprintf(stderr, "bench_iqe: cannot create %s: %s\n", path, strerror(errno));
        return 1;
    }
    /* Warm the page cache and describe the input. */
    step_baseline(path);
    ossa_model *model = bench_load(path, 1);
    size_t bytes;
    {
        bench_mapped m = bench_map_file(path);
        bytes = m.size;
        bench_unmap(m);
    }
    uint64_t frames = 0;
    for (uint32_t a = 0; a < model->num_animations; a++) frames += model->animations[a].num_frames;
    printf("input: %s, %zu bytes: %u joints, %u vertices, %u triangles, %u meshes, %llu frames\n",
           path, bytes, model->num_joints, model->num_vertices, model->num_triangles,
           model->num_meshes, (unsigned long long)frames);
    size_t iqm_size = bench_write_iqm(model, 1);
    ossa_model_free(model);

    enum { STEPS = 8 };
    double t[STEPS][RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ms();
        step_baseline(path);
        double t1 = now_ms();
        step_parse(path);
        double t2 = now_ms();
        ossa_model *m = bench_load(path, 1);
        double t3 = now_ms();
        bench_write_iqm(m, 1);
        double t4 = now_ms();
        ossa_model_free(m);
        m = bench_load(path, 2);
        double t5 = now_ms();
        bench_write_iqm(m, 2);
        double t6 = now_ms();
        ossa_model_free(m);
        t[0][r] = t1 - t0;
        t[1][r] = t2 - t1;
        t[2][r] = t3 - t2;
        t[3][r] = t4 - t3;
        t[4][r] = t4 - t2;
        t[5][r] = t5 - t4;
        t[6][r] = t6 - t5;
        t[7][r] = t6 - t4;
    }
    static const char *const names[STEPS] = {
        "read bytes (baseline)", "IQE parse",          "IQE -> model",
        "model -> IQM (bounds)", "convert IQE -> IQM", "IQE -> model, 2 thr",
        "model -> IQM, 2 thr",   "convert, 2 threads"};
    timing s[STEPS];
    for (int i = 0; i < STEPS; i++) s[i] = finish(t[i]);
    printf("%-24s %9s %9s %9s %11s\n", "step", "best ms", "median", "MB/s", "x baseline");
    for (int i = 0; i < STEPS; i++)
        printf("%-24s %9.1f %9.1f %9.0f %11.1f\n", names[i], s[i].best, s[i].median,
               bytes / 1e3 / s[i].best, s[i].best / s[0].best);
    printf("IQM output: %zu bytes\n", iqm_size);
    /* The IQM SDK's converter takes 3.0 s on this file (measured once,
     * docs in README); 20x that is 150 ms. */
    printf("convert target (2 threads): < 150 ms -> %s (best %.1f ms)\n",
           s[7].best < 150 ? "met" : "NOT met", s[7].best);

    long kb = peak_rss_kb("/proc/self/exe", path);
    if (kb > 0) {
        double ratio = kb * 1024.0 / (double)bytes;
        printf("peak RSS of one conversion (fresh process): %.1f MB = %.2f x input "
               "(target < 2x) -> %s\n",
               kb / 1024.0, ratio, ratio < 2 ? "met" : "NOT met");
    } else {
        printf("peak RSS: could not measure\n");
    }
    return 0;
}
