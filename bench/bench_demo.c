/* The demo character (cli/demo/): how long building it takes, whole and
 * by part (the body's mesh, its weights, painting the texture and encoding
 * it as PNG, the two animations), the size of its IQM file, and the whole
 * `ossa demo` command (writing every format, reading each back, drawing
 * the still, the contact sheet and the GIF).
 *
 * Build times are the thread CPU time, best and median of 25 runs; the
 * command's wall time is the best and median of 5 runs, with $OSSA_CLI as
 * the ossa binary (skipped when it is not set).
 *
 * Usage: bench_demo */
#include "bench_util.h"
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RUNS = 25, COMMAND_RUNS = 5 };

static double cpu_ms(void) { return bench_ms(CLOCK_THREAD_CPUTIME_ID); }

static void report(const char *what, double *ms, int n)
{
    double median = bench_median(ms, n);
    printf("  %-44s %8.3f ms best, %8.3f ms median\n", what, ms[0], median);
}

static void build_model(void)
{
    ossa_error err;
    ossa_model *m = demo_build_model(&err);
    if (!m) {
        fprintf(stderr, "bench_demo: %s\n", err.message);
        exit(1);
    }
    ossa_model_free(m);
}

static void build_mesh(void)
{
    demo_mesh mesh;
    if (demo_mesh_build(&mesh) != 0) exit(1);
    demo_mesh_free(&mesh);
}

static void build_weights(void)
{
    demo_mesh mesh;
    if (demo_mesh_build(&mesh) != 0) exit(1);
    float j[4], w[4], sum = 0;
    for (uint32_t v = 0; v < mesh.num_vertices; v++) {
        demo_vertex_weights(&mesh, v, j, w);
        sum += w[0];
    }
    if (sum <= 0) exit(1);
    demo_mesh_free(&mesh);
}

static void paint_texture(void)
{
    static uint8_t texels[DEMO_TEXTURE_WIDTH * DEMO_TEXTURE_HEIGHT * 4];
    demo_texture_paint(texels);
    ossa_render_image image = {DEMO_TEXTURE_WIDTH, DEMO_TEXTURE_HEIGHT, texels, 0, NULL};
    void *png;
    size_t size;
    ossa_error err;
    if (ossa_render_png_encode(&image, NULL, &png, &size, &err) != OSSA_OK) exit(1);
    ossa_free(png, NULL);
}

static void pose_walk(void)
{
    demo_pose pose;
    for (uint32_t f = 0; f < DEMO_WALK_FRAMES; f++) demo_walk_pose(f, &pose);
}

static void pose_idle(void)
{
    demo_pose pose;
    for (uint32_t f = 0; f < DEMO_IDLE_FRAMES; f++) demo_idle_pose(f, &pose);
}

static void time_it(const char *what, void (*fn)(void))
{
    double ms[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = cpu_ms();
        fn();
        ms[r] = cpu_ms() - t0;
    }
    report(what, ms, RUNS);
}

static void time_command(void)
{
    const char *cli = getenv("OSSA_CLI");
    if (!cli || !*cli) {
        printf("  ossa demo: OSSA_CLI not set, not measured\n");
        return;
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' demo -o bench-demo >/dev/null", cli);
    double ms[COMMAND_RUNS];
    for (int r = 0; r < COMMAND_RUNS; r++) {
        double t0 = bench_ms(CLOCK_MONOTONIC);
        if (system(cmd) != 0) {
            fprintf(stderr, "bench_demo: %s failed\n", cmd);
            exit(1);
        }
        ms[r] = bench_ms(CLOCK_MONOTONIC) - t0;
    }
    report("ossa demo -o bench-demo (wall, whole process)", ms, COMMAND_RUNS);
}

int main(void)
{
    ossa_error err;
    ossa_model *m = demo_build_model(&err);
    if (!m) {
        fprintf(stderr, "bench_demo: %s\n", err.message);
        return 1;
    }
    printf("demo character: %u joints, %u vertices, %u triangles, IQM %zu bytes\n", m->num_joints,
           m->num_vertices, m->num_triangles, bench_write_iqm(m, 1));
    ossa_model_free(m);
    time_it("demo_build_model (everything below)", build_model);
    time_it("body mesh (positions, normals, texcoords)", build_mesh);
    time_it("body mesh and its weights", build_weights);
    time_it("texture painted and encoded as PNG", paint_texture);
    time_it("walk: 32 poses (IK legs)", pose_walk);
    time_it("idle: 60 poses (IK legs)", pose_idle);
    time_command();
    return 0;
}
