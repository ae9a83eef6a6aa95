/* Rendering speed: milliseconds per 512x512 frame (sampling, skinning and
 * drawing, from the pose to the finished RGBA image) for guy.iqm and for
 * the model ../shared/bench/gen_big_iqe.py writes (50,688 vertices, 95,040
 * triangles), plain (one sample per pixel, no ground) and with the look
 * `ossa render` uses by default (2x2 supersampling, grid, shadow), on 1
 * and 2 threads; a 60-frame GIF of guy.iqm (draw, quantize, encode) at
 * the CLI's default settings; and a whole `ossa render Fox.glb -o x.png`
 * process: wall time and peak resident memory.
 *
 * Frame times are the best of 15 runs of at least ~20 ms each (other
 * processes on a shared machine only ever add time; the median is printed
 * beside it): the process CPU time of one thread, which other processes
 * disturb least, and the wall time with one and with two threads.
 *
 * Usage: bench_render [--quick] [BIG.iqe]   (default: big.iqe, generated
 * here with python3 when missing) */
#include "bench_util.h"
#include "ossa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int REPEATS = 15;

static double now(void) { return bench_seconds(CLOCK_MONOTONIC); }

static void die(const char *what, const ossa_error *e)
{
    fprintf(stderr, "bench_render: %s: %s\n", what, e ? e->message : "failed");
    exit(1);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static const char *shared_dir(void)
{
    const char *s = getenv("OSSA_SHARED_DIR");
    return s && *s ? s : "../shared";
}

/* -- Frames -- */

typedef struct subject {
    const char *name;
    ossa_model *model;
    ossa_render_scene *scene;
    ossa_clip *clip;
    ossa_clip_info info;
    ossa_render_camera camera;
    float (*pose)[16];
    uint8_t *pixels;
} subject;

static void subject_init(subject *s, const char *name, ossa_model *m, uint32_t anim)
{
    ossa_error e;
    memset(s, 0, sizeof *s);
    s->name = name;
    s->model = m;
    s->scene = ossa_render_scene_create(m, NULL, &e);
    if (!s->scene) die("scene", &e);
    s->clip = ossa_clip_create(m, anim, NULL, &e);
    if (!s->clip) die("clip", &e);
    ossa_clip_get_info(s->clip, &s->info);
    ossa_bounds b;
    if (ossa_render_bounds(m, anim, &b, &e) ||
        ossa_render_camera_frame(NULL, &b, OSSA_AXIS_Z, 512, 512, &s->camera, &e))
        die("camera", &e);
    s->pose = malloc((m->num_joints ? m->num_joints : 1) * sizeof *s->pose);
    s->pixels = malloc(512 * 512 * 4);
    if (!s->pose || !s->pixels) die("out of memory", NULL);
}

static void subject_free(subject *s)
{
    ossa_render_scene_free(s->scene);
    ossa_clip_free(s->clip);
    free(s->pose);
    free(s->pixels);
}

/* One frame: sample the pose at `frame`, skin and draw. */
static void frame(subject *s, double f, uint32_t flags, uint32_t ss, uint32_t threads)
{
    ossa_error e;
    ossa_sample_job sj;
    memset(&sj, 0, sizeof sj);
    sj.clip = s->clip;
    sj.time = f;
    sj.flags = OSSA_SAMPLE_FRAMES;
    sj.model = s->pose;
    sj.num_outputs = s->info.num_joints;
    if (ossa_sample_run(&sj, &e)) die("sample", &e);
    ossa_render_options o;
    memset(&o, 0, sizeof o);
    o.camera = &s->camera;
    o.pose = (const float(*)[16])s->pose;
    o.num_pose = s->info.num_joints;
    o.flags = flags;
    o.supersample = ss;
    o.threads = threads;
    ossa_render_image im = {512, 512, s->pixels, 0, NULL};
    if (ossa_render_run(s->scene, &o, &im, &e)) die("render", &e);
}

/* Best and median ms per frame on `clock`, frames stepping through the
 * animation. */
static double time_frames(subject *s, uint32_t flags, uint32_t ss, uint32_t threads,
                          clockid_t clock, double *med)
{
    double times[64];
    double f = 0;
    frame(s, f, flags, ss, threads); /* warm: work buffers allocated */
    for (int r = 0; r < REPEATS; r++) {
        int n = 0;
        double t0 = bench_seconds(clock), t;
        do {
            frame(s, f, flags, ss, threads);
            f += 0.37;
            if (f >= s->info.num_frames) f -= s->info.num_frames;
            n++;
            t = bench_seconds(clock) - t0;
        } while (t < 0.02);
        times[r] = t / n * 1e3;
    }
    *med = bench_median(times, REPEATS);
    return times[0]; /* sorted by bench_median() */
}

static void report(subject *s)
{
    static const struct {
        const char *look;
        uint32_t flags, ss;
    } looks[] = {
        {"plain", 0, 1},
        {"default (2x2 AA, grid, shadow)", OSSA_RENDER_GRID | OSSA_RENDER_SHADOW, 2},
    };
    for (size_t l = 0; l < sizeof looks / sizeof looks[0]; l++) {
        double m0, m1, m2;
        uint32_t fl = looks[l].flags, ss = looks[l].ss;
        double t0 = time_frames(s, fl, ss, 1, CLOCK_PROCESS_CPUTIME_ID, &m0);
        double t1 = time_frames(s, fl, ss, 1, CLOCK_MONOTONIC, &m1);
        double t2 = time_frames(s, fl, ss, 2, CLOCK_MONOTONIC, &m2);
        printf("%-10s %-31s %7.2f (%6.2f) %7.2f (%6.2f) %7.2f (%6.2f)\n", s->name, looks[l].look,
               t0, m0, t1, m1, t2, m2);
        fflush(stdout);
    }
}

/* -- GIF -- */

static double time_gif(subject *s, size_t *bytes)
{
    double times[5];
    int reps = REPEATS < 5 ? REPEATS : 5;
    ossa_error e;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        ossa_render_gif_options go;
        memset(&go, 0, sizeof go);
        go.width = go.height = 512;
        go.fps = s->info.framerate;
        ossa_render_gif *gif = ossa_render_gif_create(&go, &e);
        if (!gif) die("gif", &e);
        ossa_render_image im = {512, 512, s->pixels, 0, NULL};
        for (int f = 0; f < 60; f++) {
            frame(s, f, OSSA_RENDER_GRID | OSSA_RENDER_SHADOW, 2, 2);
            if (ossa_render_gif_add_frame(gif, &im, &e)) die("gif frame", &e);
        }
        void *data;
        if (ossa_render_gif_finish(gif, &data, bytes, &e)) die("gif finish", &e);
        ossa_free(data, NULL);
        ossa_render_gif_free(gif);
        times[r] = (now() - t0) * 1e3;
    }
    bench_median(times, reps);
    return times[0];
}

/* -- A whole process -- */

/* Runs argv to completion; wall ms and the child's peak RSS (KiB). A
 * forked child's peak starts at this process's size at the fork, so this
 * runs first, while the benchmark is a few MiB. */
static int run_process(char *const argv[], double *ms, long *rss_kib)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid) return -1;
    *ms = (now() - t0) * 1e3;
    /* The largest peak of the children waited for so far: they all run
     * the same command. */
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0) return -1;
    *rss_kib = ru.ru_maxrss;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void report_process(void)
{
    const char *cli = getenv("OSSA_CLI");
    char fox[4096];
    snprintf(fox, sizeof fox, "%s/data/gltf/Fox.glb", shared_dir());
    if (!cli || !file_exists(cli) || !file_exists(fox)) {
        printf("whole process: skipped (needs OSSA_CLI and %s)\n", fox);
        return;
    }
    char *argv[] = {(char *)cli, "render", fox, "-o", "bench_fox.png", NULL};
    double times[9];
    long rss[9];
    int n = REPEATS < 9 ? REPEATS : 9;
    for (int i = 0; i < n; i++)
        if (run_process(argv, &times[i], &rss[i]) != 0) {
            printf("whole process: 'ossa render Fox.glb' failed\n");
            return;
        }
    long peak = 0;
    for (int i = 0; i < n; i++) peak = rss[i] > peak ? rss[i] : peak;
    double med = bench_median(times, n);
    printf("ossa render Fox.glb -o x.png (512x512, defaults): %.1f ms wall, best of %d "
           "(median %.1f), peak RSS %.1f MiB\n",
           times[0], n, med, peak / 1024.0);
    remove("bench_fox.png");
}

/* -- Inputs -- */

static ossa_model *load(const char *path)
{
    ossa_error e;
    ossa_model *m = ossa_load_file(path, NULL, &e);
    if (!m) die(path, &e);
    return m;
}

static int make_big(const char *path)
{
    if (file_exists(path)) return 0;
    char script[4096], cmd[9000];
    snprintf(script, sizeof script, "%s/bench/gen_big_iqe.py", shared_dir());
    if (!file_exists(script) || system("python3 -c pass >/dev/null 2>&1") != 0) return -1;
    printf("generating %s with %s\n", path, script);
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "python3 '%s' -o '%s' >/dev/null", script, path);
    return system(cmd) == 0 && file_exists(path) ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *big = "big.iqe";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) REPEATS = 3;
        else big = argv[i];
    }
    report_process();

    printf("\nms per 512x512 frame, best (median) of %d: CPU time of one thread, wall time of one "
           "and of two\n",
           REPEATS);
    printf("%-10s %-31s %16s %16s %16s\n", "model", "look", "CPU, 1 thread", "wall, 1 thread",
           "wall, 2 threads");
    char guy_path[4096];
    snprintf(guy_path, sizeof guy_path, "%s/data/iqm/guy.iqm", shared_dir());
    subject guy;
    int have_guy = file_exists(guy_path);
    if (have_guy) {
        ossa_model *m = load(guy_path);
        uint32_t dance = 0;
        for (uint32_t a = 0; a < m->num_animations; a++)
            if (strcmp(m->animations[a].name, "dance") == 0) dance = a;
        subject_init(&guy, "guy.iqm", m, dance);
        report(&guy);
    } else {
        printf("guy.iqm: skipped (%s not found)\n", guy_path);
    }
    if (make_big(big) == 0) {
        subject s;
        subject_init(&s, "big.iqe", load(big), 0);
        report(&s);
        ossa_render_scene_info info;
        ossa_render_scene_get_info(s.scene, &info);
        printf("%-10s %u vertices, %u triangles\n", "", (unsigned)info.num_vertices,
               (unsigned)info.num_triangles);
        ossa_model_free(s.model);
        subject_free(&s);
    } else {
        printf("big.iqe: skipped (needs python3 and shared/bench/gen_big_iqe.py)\n");
    }
    if (have_guy) {
        size_t bytes = 0;
        double ms = time_gif(&guy, &bytes);
        printf("\n60-frame GIF of guy.iqm dance, 512x512, 2x2 AA, grid, shadow, 2 threads: "
               "%.0f ms, best of 5 (%.1f ms per frame), %zu KiB\n",
               ms, ms / 60, bytes / 1024);
        ossa_model_free(guy.model);
        subject_free(&guy);
    }
    return 0;
}
