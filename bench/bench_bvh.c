/*
 * BVH reading and writing speed on the shared motion-capture files
 * (../shared/data/bvh: CMU 01_01 and 01_03, Boxing_Toes), each step the
 * best and the median of RUNS runs in thread CPU time:
 *   read bytes      sum the file's bytes (the floor for any reader)
 *   BVH -> model    ossa_load_memory: hierarchy, every number, every pose
 *   model -> BVH    ossa_write_memory in the default layout (ZYX, root
 *                   positions)
 * Side-by-side figures against Blender and assimp come from
 * bench/bvh_vs_others.sh, which runs those programs.
 *
 * usage: bench_bvh [FILE.bvh...]   (default: the shared files)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "ossa.h"

#define RUNS 15

static double now_ms(void) { return bench_ms(CLOCK_THREAD_CPUTIME_ID); }

static void bench_file(const char *path)
{
    bench_mapped f = bench_map_file(path);
    double sum_t[RUNS], load_t[RUNS], write_t[RUNS];
    unsigned long long sum = 0;
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = path;
    ossa_model *m = NULL;
    size_t out_size = 0;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ms();
        for (size_t i = 0; i < f.size; i++) sum += f.data[i];
        double t1 = now_ms();
        ossa_error err;
        ossa_model *x = ossa_load_memory(f.data, f.size, &lo, &err);
        double t2 = now_ms();
        if (!x) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            exit(1);
        }
        ossa_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.format = OSSA_FORMAT_BVH;
        void *data;
        double t3 = now_ms();
        if (ossa_write_memory(x, &wo, &data, &out_size, &err) != OSSA_OK) {
            fprintf(stderr, "%s: write: %s\n", path, err.message);
            exit(1);
        }
        double t4 = now_ms();
        ossa_free(data, NULL);
        sum_t[r] = t1 - t0;
        load_t[r] = t2 - t1;
        write_t[r] = t4 - t3;
        if (m) ossa_model_free(m);
        m = x;
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    double ms = bench_median(sum_t, RUNS), ml = bench_median(load_t, RUNS),
           mw = bench_median(write_t, RUNS);
    printf("%s: %zu bytes, %u joints, %u frames (checksum %llu)\n", name, f.size, m->num_joints,
           m->num_animations ? m->animations[0].num_frames : 0, sum % 1000);
    printf("  read bytes      best %7.2f ms, median %7.2f ms\n", sum_t[0], ms);
    printf("  BVH -> model    best %7.2f ms, median %7.2f ms (%.0f MB/s)\n", load_t[0], ml,
           f.size / 1e3 / load_t[0]);
    printf("  model -> BVH    best %7.2f ms, median %7.2f ms (%zu bytes)\n", write_t[0], mw,
           out_size);
    ossa_model_free(m);
    bench_unmap(f);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (int i = 1; i < argc; i++) bench_file(argv[i]);
        return 0;
    }
    const char *shared = getenv("OSSA_SHARED_DIR");
    static const char *const names[] = {"01_01.bvh", "01_03.bvh", "Boxing_Toes.bvh"};
    int done = 0;
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/data/bvh/%s", shared ? shared : "../../shared", names[i]);
        if (!bench_file_ready(path)) continue;
        bench_file(path);
        done++;
    }
    if (!done) printf("bench_bvh: no BVH file found (OSSA_SHARED_DIR/data/bvh): nothing measured\n");
    return 0;
}
