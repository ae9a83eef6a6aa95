/* Compressed clips and grouped skinning on real models; every figure is
 * measured in this run (comparisons with other libraries, measured by
 * running them, are in the README with their conditions):
 *   - per model: float and compressed bytes of every animation, the
 *     largest error measured against the bound (ossa_clip_measure);
 *   - sampling + local-to-model of the first animation, float and
 *     compressed (without and with a sampling cache), forward (60 Hz) and
 *     at random times, ns per joint;
 *   - skinning positions + normals, the skinning job and the grouped job
 *     (source order and prepared order), SSE2 and AVX2, ns per vertex.
 * Models: Fox, robot, CesiumMan (glTF) and guy (IQM) from
 * $OSSA_SHARED_DIR/data, big.iqe in the current directory when there (the
 * benchmark model of gen_big_iqe.py, which bench_iqe writes), and every
 * file given as an argument or in $OSSA_BENCH_FILES (space-separated).
 * Times are thread CPU time, the median of 7 runs of >= ~10 ms (sampling:
 * interleaved rounds of the float and compressed clips, forward and random).
 *
 * usage: bench_clip [--quick] [--sampling] [FILE...] */
#include "bench_util.h"
#include "ossa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int RUNS = 7;
static int SKIP_SKINNING = 0; /* --sampling: sizes, errors and sampling only */

static double now(void) { return bench_seconds(CLOCK_THREAD_CPUTIME_ID); }

static uint64_t lcg = 42;
static double rnd(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ns per joint of sampling (model matrices): `count` configurations (clip,
 * SIMD level, times), timed in interleaved rounds so that a change in the
 * machine's load hits them all alike; the median round of each. */
typedef struct sampling {
    const ossa_clip *clip;
    ossa_simd level;
    const double *times;
    ossa_sample_cache *cache; /* or NULL */
    double ns;
} sampling;

static void time_sampling(sampling *s, int count, uint32_t n, float (*out)[16])
{
    int iters = (int)(1e6 / n) + 1;
    double t[8][32];
    for (int r = 0; r < RUNS; r++)
        for (int c = 0; c < count; c++) {
            ossa_sample_job job;
            memset(&job, 0, sizeof job);
            job.clip = s[c].clip, job.simd = s[c].level, job.model = out, job.num_outputs = n;
            job.cache = s[c].cache;
            double t0 = now();
            for (int i = 0; i < iters; i++) {
                job.time = s[c].times[i & 1023];
                ossa_sample_run(&job, NULL);
            }
            t[c][r] = (now() - t0) / iters / n * 1e9;
        }
    for (int c = 0; c < count; c++) s[c].ns = bench_median(t[c], RUNS);
}

static void bench_model(const char *path)
{
    ossa_error e;
    ossa_model *m = ossa_load_file(path, NULL, &e);
    if (!m) {
        printf("%s: %s\n", path, e.message);
        return;
    }
    const char *name = base_name(path);
    printf("%s: %u joints, %u vertices, %u animations\n", name, (unsigned)m->num_joints,
           (unsigned)m->num_vertices, (unsigned)m->num_animations);
    if (!m->num_animations || !m->num_joints) {
        ossa_model_free(m);
        return;
    }

    /* Sizes and errors. */
    size_t raw = 0, packed = 0;
    double worst_ratio = 0, bound = 0, t_compress = 0;
    ossa_clip_options co;
    memset(&co, 0, sizeof co);
    co.compression = OSSA_CLIP_COMPRESSED;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        double t0 = now();
        ossa_clip *c = ossa_clip_create(m, a, &co, &e);
        t_compress += now() - t0;
        if (!c) {
            printf("  compress: %s\n", e.message);
            ossa_model_free(m);
            return;
        }
        ossa_clip_stats st;
        ossa_clip_info info;
        ossa_clip_get_info(c, &info);
        if (ossa_clip_measure(m, a, c, &st, &e) == OSSA_OK) {
            raw += st.raw_bytes, packed += st.compressed_bytes;
            double r = st.max_error / info.max_error;
            worst_ratio = r > worst_ratio ? r : worst_ratio;
            bound = info.max_error;
        }
        ossa_clip_free(c);
    }
    printf("  clips: %zu -> %zu bytes (%.1fx) in %.0f ms; largest error %.3g of the bound "
           "%.3g (%s)",
           raw, packed, (double)raw / (double)packed, t_compress * 1e3, worst_ratio * bound,
           bound, worst_ratio <= 1 ? "within" : "ABOVE");
    printf("\n");

    /* Sampling: float and compressed, forward and random. */
    ossa_clip *cf = ossa_clip_create(m, 0, NULL, &e), *cp = ossa_clip_create(m, 0, &co, &e);
    ossa_clip_info info;
    ossa_clip_get_info(cf, &info);
    uint32_t n = info.num_joints;
    float(*out)[16] = calloc(n, sizeof *out);
    double fwd[1024], ran[1024];
    /* Forward playback at 60 Hz stays inside the clip (looping), as random
     * times do: past the end of a clip that does not loop, every sample
     * would be the last frame's keys, with nothing to interpolate. */
    for (int i = 0; i < 1024; i++) {
        fwd[i] = fmod((i + 0.37) / 60.0, info.duration);
        ran[i] = rnd() * info.duration;
    }
    /* With a sampling cache, playing forward decodes each key frame once. */
    ossa_sample_cache *cache = ossa_sample_cache_create(n, NULL, &e);
    static const ossa_simd levels[] = {OSSA_SIMD_SSE2, OSSA_SIMD_AVX2};
    for (int l = 0; l < 2 && cache; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        sampling sm[6] = {{cf, levels[l], fwd, NULL, 0},  {cf, levels[l], ran, NULL, 0},
                          {cp, levels[l], fwd, NULL, 0},  {cp, levels[l], ran, NULL, 0},
                          {cp, levels[l], fwd, cache, 0}, {cp, levels[l], ran, cache, 0}};
        time_sampling(sm, 6, n, out);
        double ff = sm[0].ns, fr = sm[1].ns, pf = sm[2].ns, pr = sm[3].ns;
        double cf_ = sm[4].ns, cr = sm[5].ns;
        printf("  sample+local-to-model %-4s: float %.2f (random %.2f), compressed %.2f (random "
               "%.2f) ns/joint: compressed/float %.2f (random %.2f), random/forward float %.2f, "
               "compressed %.2f\n",
               ossa_simd_name(levels[l]), ff, fr, pf, pr, pf / ff, pr / fr, fr / ff, pr / pf);
        printf("    with a sampling cache: compressed %.2f (random %.2f) ns/joint: compressed/float "
               "%.2f (random %.2f), random/forward %.2f\n",
               cf_, cr, cf_ / ff, cr / fr, cr / cf_);
    }
    ossa_sample_cache_free(cache);
    free(out);
    ossa_clip_free(cp);

    /* Skinning. */
    const ossa_vertex_array *pa = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *na = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    if (pa && ia && wa && m->num_vertices && !SKIP_SKINNING) {
        uint32_t nv = m->num_vertices;
        float *pos = malloc((size_t)nv * 12), *nrm = malloc((size_t)nv * 12);
        float *w = malloc((size_t)nv * 16), *fi = malloc((size_t)nv * 16);
        float *op = malloc((size_t)nv * 16), *on = malloc((size_t)nv * 16);
        uint16_t *idx = malloc((size_t)nv * 8);
        ossa_vertex_array_read(m, pa, 0, nv, pos);
        if (na)
            ossa_vertex_array_read(m, na, 0, nv, nrm);
        else /* no normals in the file: unit vectors of the same cost */
            for (uint32_t i = 0; i < nv * 3; i++) nrm[i] = i % 3 == 2 ? 1.0f : 0.0f;
        ossa_vertex_array_read(m, wa, 0, nv, w);
        ossa_vertex_array_read(m, ia, 0, nv, fi);
        for (size_t i = 0; i < (size_t)nv * 4; i++) idx[i] = (uint16_t)fi[i];
        float(*mats)[16] = calloc(m->num_joints, sizeof *mats);
        float(*inv)[16] = calloc(m->num_joints, sizeof *inv);
        ossa_model_inverse_bind_matrices(m, inv);
        ossa_sample_job sj;
        memset(&sj, 0, sizeof sj);
        sj.clip = cf, sj.time = 0.4, sj.model = mats, sj.num_outputs = m->num_joints;
        ossa_sample_run(&sj, NULL);
        ossa_skinning_matrices(m->num_joints, (const float(*)[16])mats, (const float(*)[16])inv,
                               mats);
        ossa_skinning_job job;
        memset(&job, 0, sizeof job);
        job.num_vertices = nv, job.influences = 4;
        job.matrices = (const float(*)[16])mats, job.num_matrices = m->num_joints;
        job.indices = idx, job.indices_stride = 8, job.weights = w, job.weights_stride = 16;
        job.in_positions = pos, job.in_positions_stride = 12;
        job.out_positions = op, job.out_positions_stride = 12;
        job.in_normals = nrm, job.in_normals_stride = 12;
        job.out_normals = on, job.out_normals_stride = 12;
        ossa_skin_groups *g = ossa_skin_groups_create(&job, NULL, &e);
        ossa_skin_groups_info gi;
        ossa_skin_groups_get_info(g, &gi);
        ossa_grouped_skinning_job gj;
        memset(&gj, 0, sizeof gj);
        gj.groups = g, gj.matrices = job.matrices, gj.num_matrices = job.num_matrices;
        gj.out_positions = op, gj.out_positions_stride = 12;
        gj.out_normals = on, gj.out_normals_stride = 12;
        int iters = (int)(2e6 / nv) + 1;
        printf("  skinning (%s, 1/2/3/4 influences: %u/%u/%u/%u vertices):\n",
               na ? "positions + normals" : "positions + stand-in normals",
               gi.counts[1], gi.counts[2], gi.counts[3], gi.counts[4]);
        for (int l = 0; l < 2; l++) {
            if (!ossa_simd_supported(levels[l])) continue;
            double res[3], t[32];
            for (int mode = 0; mode < 3; mode++) {
                job.simd = gj.simd = levels[l];
                gj.flags = mode == 2 ? OSSA_SKIN_PREPARED_ORDER : 0;
                for (int r = 0; r < RUNS; r++) {
                    double t0 = now();
                    for (int i = 0; i < iters; i++) {
                        if (mode == 0)
                            ossa_skinning_run(&job, NULL);
                        else
                            ossa_grouped_skinning_run(&gj, NULL);
                    }
                    t[r] = (now() - t0) / iters / nv * 1e9;
                }
                res[mode] = bench_median(t, RUNS);
            }
            printf("    %-4s job %.2f, grouped %.2f (%.2fx the job), prepared order %.2f ns/vertex",
                   ossa_simd_name(levels[l]), res[0], res[1], res[1] / res[0], res[2]);
            printf("\n");
        }
        ossa_skin_groups_free(g);
        free(pos), free(nrm), free(w), free(fi), free(op), free(on), free(idx), free(mats),
            free(inv);
    }
    ossa_clip_free(cf);
    ossa_model_free(m);
}

int main(int argc, char **argv)
{
    const char *shared = getenv("OSSA_SHARED_DIR");
    char path[4096];
    int first = 1;
    for (; first < argc && argv[first][0] == '-' && argv[first][1] == '-'; first++) {
        if (strcmp(argv[first], "--quick") == 0)
            RUNS = 3;
        else if (strcmp(argv[first], "--sampling") == 0)
            SKIP_SKINNING = 1;
        else
            break;
    }
    printf("bench_clip: thread CPU time, median of %d runs; best SIMD level: %s\n", RUNS,
           ossa_simd_name(ossa_simd_best()));
    static const char *models[] = {"gltf/Fox.glb", "gltf/robot.glb", "gltf/CesiumMan.glb",
                                   "iqm/guy.iqm"};
    if (shared)
        for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
            snprintf(path, sizeof path, "%s/data/%s", shared, models[i]);
            bench_model(path);
        }
    else
        printf("OSSA_SHARED_DIR is not set: no shared models\n");
    FILE *f = fopen("big.iqe", "rb");
    if (f) {
        fclose(f);
        bench_model("big.iqe");
    } else {
        printf("big.iqe: not here (bench_iqe writes it; run make bench twice)\n");
    }
    for (int i = first; i < argc; i++) bench_model(argv[i]);
    const char *more = getenv("OSSA_BENCH_FILES");
    if (more) {
        char *copy = strdup(more);
        for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) bench_model(tok);
        free(copy);
    }
    return 0;
}
