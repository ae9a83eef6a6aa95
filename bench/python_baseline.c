/*
 * The C side of bench/bench_python.py: loops over the same shared libraries
 * that the Python package calls, timed in C, so that the benchmark can
 * state what the package costs on top of the library (a module that
 * bench_python.py loads with ctypes; not part of any library).
 *
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), as the Python
 * side measures with time.thread_time: time the thread spends waiting for a
 * CPU that other work holds does not count.
 *
 *   bench_load      ossa_load_file of one file, `count` times: the least
 *                   time of one load (the model is freed outside the timing)
 *   bench_sample    one ossa_sample_run per frame of a clip (frame positions
 *                   0..frames-1, model matrices and local poses) into one
 *                   (frames, joints) array, `count` times: the least time
 *                   of the whole loop
 */
#include <ossa/model.h>
#include <ossa/runtime.h>

#include <stdlib.h>
#include <time.h>

double bench_load(const char *path, int count);
double bench_sample(const ossa_clip *clip, int count);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double bench_load(const char *path, int count)
{
    double best = -1;
    for (int i = 0; i < count; i++) {
        ossa_error error;
        double t0 = now();
        ossa_model *m = ossa_load_file(path, NULL, &error);
        double t = now() - t0;
        if (!m) return -1;
        ossa_model_free(m);
        if (best < 0 || t < best) best = t;
    }
    return best;
}

double bench_sample(const ossa_clip *clip, int count)
{
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    size_t n = (size_t)info.num_frames * info.num_joints;
    float(*model)[16] = malloc((n ? n : 1) * sizeof *model);
    ossa_transform *local = malloc((n ? n : 1) * sizeof *local);
    double best = -1;
    for (int i = 0; model && local && i < count; i++) {
        double t0 = now();
        ossa_sample_job job = {0};
        job.clip = clip;
        job.flags = OSSA_SAMPLE_FRAMES;
        job.num_outputs = info.num_joints;
        for (uint32_t f = 0; f < info.num_frames; f++) {
            job.time = f;
            job.model = model + (size_t)f * info.num_joints;
            job.local = local + (size_t)f * info.num_joints;
            if (ossa_sample_run(&job, NULL) != OSSA_OK) {
                best = -1;
                goto done;
            }
        }
        double t = now() - t0;
        if (best < 0 || t < best) best = t;
    }
done:
    free(model);
    free(local);
    return best;
}
