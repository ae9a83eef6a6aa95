/* Runtime speed: sampling + local-to-model per joint (forward playback and
 * random seeks), and CPU skinning per vertex, on two models built here
 * deterministically:
 *   - "humanoid67": a 67-joint humanoid (spine, neck, head, arms with five
 *     3-joint fingers, legs), 300 frames at 30 fps of procedural motion;
 *   - "big100": the skeleton, tube mesh, weights and animation of
 *     shared/bench/gen_big_iqe.py (100 joints, 16 rings x 32 segments per
 *     bone = 50,688 vertices, 5 animations x 1000 frames), built through
 *     the builder API with the same formulas and RNG-free choices replaced
 *     by a fixed LCG.
 * Every figure is the median of REPEATS runs; each run times a loop long
 * enough (>= ~20 ms) to make timer noise irrelevant. The memcpy of the
 * output bytes is timed in the same run as a yardstick for the machine.
 *
 * Times are the CPU time of the benchmark's thread (other processes on a
 * shared machine then do not count); --wall measures wall-clock time.
 *
 * Model files given as arguments (for example the IQE that
 * shared/bench/gen_big_iqe.py writes) are measured too, after the built-in
 * models: sampling of their first animation and, when they have positions,
 * normals and blend data, skinning.
 *
 * Usage: bench_runtime [--quick] [--wall] [FILE...] */
#include "bench_util.h"
#include "ossa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PI 3.14159265358979323846

static int REPEATS = 15;

/* CPU time of this thread: on a shared machine, time spent running other
 * processes does not count (wall-clock time is kept with --wall). */
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static double now(void) { return bench_seconds(bench_clock); }

static volatile float sink;

static void fail(const char *what, const ossa_error *e)
{
    fprintf(stderr, "bench_runtime: %s: %s\n", what, e ? e->message : "failed");
    exit(1);
}

/* -- Deterministic random numbers ------------------------------------------ */

static uint64_t lcg = 1234;
static double rnd(void)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

static void quat_axis(const double axis[3], double ang, float q[4])
{
    double s = sin(ang / 2);
    q[0] = (float)(axis[0] * s), q[1] = (float)(axis[1] * s), q[2] = (float)(axis[2] * s);
    q[3] = (float)cos(ang / 2);
}

static void quat_mul(const float a[4], const float b[4], float o[4])
{
    float r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

/* -- humanoid67 ------------------------------------------------------------ */

static int32_t add_joint(ossa_model *m, const char *name, int32_t parent, float x, float y, float z)
{
    ossa_transform t = ossa_transform_identity();
    t.translation[0] = x, t.translation[1] = y, t.translation[2] = z;
    ossa_error e;
    int32_t j = ossa_model_add_joint(m, name, parent, &t, &e);
    if (j < 0) fail("add joint", &e);
    return j;
}

static ossa_model *build_humanoid(void)
{
    ossa_model *m = ossa_model_create(NULL);
    char name[64];
    int32_t hips = add_joint(m, "hips", -1, 0, 0, 1);
    int32_t p = hips;
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "spine%d", i);
        p = add_joint(m, name, p, 0, 0, 0.12f);
    }
    int32_t chest = p;
    int32_t neck = add_joint(m, "neck", chest, 0, 0, 0.1f);
    add_joint(m, "head", neck, 0, 0, 0.12f);
    for (int side = 0; side < 2; side++) {
        float s = side ? -1.0f : 1.0f;
        const char *sn = side ? "r" : "l";
        snprintf(name, sizeof name, "%s_clavicle", sn);
        int32_t c = add_joint(m, name, chest, s * 0.05f, 0, 0.05f);
        snprintf(name, sizeof name, "%s_upperarm", sn);
        int32_t u = add_joint(m, name, c, s * 0.15f, 0, 0);
        snprintf(name, sizeof name, "%s_forearm", sn);
        int32_t f = add_joint(m, name, u, s * 0.28f, 0, 0);
        snprintf(name, sizeof name, "%s_hand", sn);
        int32_t h = add_joint(m, name, f, s * 0.25f, 0, 0);
        for (int finger = 0; finger < 5; finger++) {
            int32_t q = h;
            for (int k = 0; k < 3; k++) {
                snprintf(name, sizeof name, "%s_finger%d_%d", sn, finger, k);
                q = add_joint(m, name, q, s * (k ? 0.025f : 0.08f), 0.02f * (float)(finger - 2), 0);
            }
        }
        snprintf(name, sizeof name, "%s_thigh", sn);
        int32_t t = add_joint(m, name, hips, s * 0.1f, 0, -0.05f);
        snprintf(name, sizeof name, "%s_calf", sn);
        int32_t k = add_joint(m, name, t, 0, 0, -0.45f);
        snprintf(name, sizeof name, "%s_foot", sn);
        int32_t ft = add_joint(m, name, k, 0, 0, -0.42f);
        snprintf(name, sizeof name, "%s_toe", sn);
        add_joint(m, name, ft, 0, 0.12f, -0.05f);
    }
    /* 1 + 4 + 2 + 2 * (4 + 15 + 4) = 53; a tail and props bring it to 67. */
    p = hips;
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "tail%d", i);
        p = add_joint(m, name, p, 0, -0.08f, 0);
    }
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "prop%d", i);
        add_joint(m, name, chest, 0.05f * (float)i, 0.1f, 0);
    }
    uint32_t n = m->num_joints, frames = 300;
    ossa_error e;
    ossa_animation *a = ossa_model_add_animation(m, "move", frames, 30, OSSA_ANIMATION_LOOP, &e);
    if (!a) fail("add animation", &e);
    for (uint32_t j = 0; j < n; j++) {
        double ax1[3] = {rnd() - 0.5, rnd() - 0.5, rnd() - 0.5}, l = 0;
        for (int c = 0; c < 3; c++) l += ax1[c] * ax1[c];
        for (int c = 0; c < 3; c++) ax1[c] /= sqrt(l);
        double amp = 0.2 + 0.6 * rnd(), freq = 0.5 + 2 * rnd(), ph = 6.28 * rnd();
        for (uint32_t f = 0; f < frames; f++) {
            ossa_transform *t = &a->frames[f * n + j];
            quat_axis(ax1, amp * sin(freq * f / 30.0 + ph), t->rotation);
            if (j == 0) {
                t->translation[0] = (float)(0.01 * f);
                t->translation[2] = (float)(1 + 0.05 * sin(f / 5.0));
            }
        }
    }
    return m;
}

/* -- big100 (gen_big_iqe.py) ------------------------------------------------- */

static ossa_model *build_big(uint32_t njoints, int rings, int segments, uint32_t total_frames,
                             uint32_t anims)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_error e;
    float (*off)[3] = calloc(njoints, sizeof *off), (*wp)[3] = calloc(njoints, sizeof *wp);
    int32_t *parent = calloc(njoints, sizeof *parent);
    char name[64];
    uint32_t n = 0;
    parent[n] = -1, off[n][0] = 0, off[n][1] = 0, off[n][2] = 1, n++;
    uint32_t spine = njoints / 10;
    if (spine < 1) spine = 1;
    if (spine > 9) spine = 9;
    for (uint32_t i = 0; i < spine; i++) {
        parent[n] = (int32_t)n - 1, off[n][0] = 0, off[n][1] = 0, off[n][2] = 0.25f;
        n++;
    }
    uint32_t remaining = njoints - n;
    int32_t attach[6] = {(int32_t)n - 1, (int32_t)n - 1, n >= 4 ? (int32_t)n - 3 : 1,
                         n >= 4 ? (int32_t)n - 3 : 1, 0, 0};
    const double dirs[6][3] = {{1, 0, 0.2}, {-1, 0, 0.2}, {0.7, 0.7, 0}, {-0.7, 0.7, 0},
                               {0.3, 0, -1}, {-0.3, 0, -1}};
    for (int li = 0; li < 6; li++) {
        uint32_t per = remaining / 6 + ((uint32_t)li < remaining % 6 ? 1 : 0);
        int32_t p = attach[li];
        double d =
            sqrt(dirs[li][0] * dirs[li][0] + dirs[li][1] * dirs[li][1] + dirs[li][2] * dirs[li][2]);
        for (uint32_t k = 0; k < per; k++) {
            double ln = 0.12 + 0.02 * rnd();
            parent[n] = p;
            for (int c = 0; c < 3; c++) off[n][c] = (float)(dirs[li][c] / d * ln);
            p = (int32_t)n++;
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        for (int c = 0; c < 3; c++) wp[j][c] = (parent[j] < 0 ? 0 : wp[parent[j]][c]) + off[j][c];
        snprintf(name, sizeof name, "j%u", (unsigned)j);
        ossa_transform t = ossa_transform_identity();
        memcpy(t.translation, off[j], sizeof off[j]);
        if (ossa_model_add_joint(m, name, parent[j], &t, &e) < 0) fail("add joint", &e);
    }

    /* A tube per bone (parent -> joint), weights to the bone, its parent
     * and grandparent as in the script. */
    uint32_t nb = n - 1, per_bone = (uint32_t)(rings * segments), nv = nb * per_bone;
    float *pos = malloc(sizeof(float) * 3 * nv), *nrm = malloc(sizeof(float) * 3 * nv);
    float *idx = calloc((size_t)nv * 4, sizeof(float)),
          *wgt = calloc((size_t)nv * 4, sizeof(float));
    ossa_triangle *tris = malloc(sizeof *tris * nb * (size_t)(rings - 1) * segments * 2);
    uint32_t v = 0, nt = 0;
    for (uint32_t b = 1; b < n; b++) {
        int32_t p = parent[b], gp = parent[p];
        double d[3], ln = 0, dn[3], u[3], w[3];
        for (int c = 0; c < 3; c++) d[c] = wp[b][c] - wp[p][c], ln += d[c] * d[c];
        ln = sqrt(ln);
        for (int c = 0; c < 3; c++) dn[c] = d[c] / ln;
        double ref[3] = {0, 0, 1};
        if (fabs(dn[2]) >= 0.9) ref[0] = 1, ref[2] = 0;
        u[0] = dn[1] * ref[2] - dn[2] * ref[1];
        u[1] = dn[2] * ref[0] - dn[0] * ref[2];
        u[2] = dn[0] * ref[1] - dn[1] * ref[0];
        double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int c = 0; c < 3; c++) u[c] /= ul;
        w[0] = dn[1] * u[2] - dn[2] * u[1];
        w[1] = dn[2] * u[0] - dn[0] * u[2];
        w[2] = dn[0] * u[1] - dn[1] * u[0];
        double radius = 0.03 + 0.01 * ((b * 7) % 5);
        uint32_t base = v;
        for (int r = 0; r < rings; r++) {
            double t = (double)r / (rings - 1);
            for (int s = 0; s < segments; s++, v++) {
                double ang = 2 * PI * s / segments, ca = cos(ang), sa = sin(ang);
                for (int c = 0; c < 3; c++) {
                    double nc = u[c] * ca + w[c] * sa;
                    nrm[v * 3 + c] = (float)nc;
                    pos[v * 3 + c] = (float)(wp[p][c] + d[c] * t + nc * radius);
                }
                double wb = 0.2 + 0.8 * t, wpar = 1 - wb;
                idx[v * 4] = (float)b, wgt[v * 4] = (float)wb;
                if (gp >= 0 && t < 0.3) {
                    idx[v * 4 + 1] = (float)p, wgt[v * 4 + 1] = (float)(wpar * 0.8);
                    idx[v * 4 + 2] = (float)gp, wgt[v * 4 + 2] = (float)(wpar * 0.2);
                } else {
                    idx[v * 4 + 1] = (float)p, wgt[v * 4 + 1] = (float)wpar;
                }
            }
        }
        for (int r = 0; r < rings - 1; r++)
            for (int s = 0; s < segments; s++) {
                uint32_t i0 = base + (uint32_t)(r * segments + s);
                uint32_t i1 = base + (uint32_t)(r * segments + (s + 1) % segments);
                tris[nt++] = (ossa_triangle){{i0, i0 + (uint32_t)segments, i1}};
                tris[nt++] =
                    (ossa_triangle){{i1, i0 + (uint32_t)segments, i1 + (uint32_t)segments}};
            }
    }
    if (ossa_model_set_num_vertices(m, nv, &e) != OSSA_OK ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos,
                                            &e) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm, &e) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, idx,
                                            &e) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL, wgt,
                                            &e) ||
        ossa_model_set_triangles(m, nt, tris, &e) != OSSA_OK)
        fail("mesh", &e);

    /* Animations: the script's formulas. */
    const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    typedef struct {
        int is_static, ax1, ax2;
        double amp, freq, ph;
    } jparam;
    jparam *jp = calloc(n, sizeof *jp);
    for (uint32_t j = 0; j < n; j++) {
        jp[j].is_static = j % 11 == 5;
        jp[j].ax1 = (int)(rnd() * 3), jp[j].ax2 = (int)(rnd() * 3);
        jp[j].amp = 0.2 + 0.6 * rnd(), jp[j].freq = 0.5 + 2.0 * rnd(), jp[j].ph = rnd() * 6.28;
    }
    for (uint32_t ai = 0; ai < anims; ai++) {
        uint32_t nf = total_frames / anims + (ai < total_frames % anims ? 1 : 0);
        snprintf(name, sizeof name, "anim%u", (unsigned)ai);
        ossa_animation *a = ossa_model_add_animation(m, name, nf, ai % 2 ? 24.0f : 30.0f,
                                                     ai % 2 ? 0 : OSSA_ANIMATION_LOOP, &e);
        if (!a) fail("add animation", &e);
        for (uint32_t f = 0; f < nf; f++) {
            double tt = f / 30.0;
            for (uint32_t j = 0; j < n; j++) {
                ossa_transform *t = &a->frames[f * n + j];
                float q[4] = {0, 0, 0, -1};
                if (!jp[j].is_static) {
                    float q1[4], q2[4];
                    quat_axis(axes[jp[j].ax1], jp[j].amp * sin(jp[j].freq * tt + jp[j].ph + ai),
                              q1);
                    quat_axis(axes[jp[j].ax2],
                              0.5 * jp[j].amp * cos(0.7 * jp[j].freq * tt + jp[j].ph), q2);
                    quat_mul(q1, q2, q);
                    if (q[3] > 0)
                        for (int c = 0; c < 4; c++) q[c] = -q[c];
                }
                memcpy(t->rotation, q, sizeof q);
                if (parent[j] < 0) {
                    t->translation[0] = (float)(0.3 * sin(0.5 * tt + ai));
                    t->translation[1] = (float)(0.2 * tt / (nf / 30.0));
                    t->translation[2] = (float)(off[j][2] + 0.05 * sin(2 * tt));
                } else {
                    memcpy(t->translation, off[j], sizeof off[j]);
                }
            }
        }
    }
    free(jp);
    free(off);
    free(wp);
    free(parent);
    free(pos);
    free(nrm);
    free(idx);
    free(wgt);
    free(tris);
    return m;
}

/* -- Sampling ------------------------------------------------------------------- */

enum { NUM_TIMES = 4096 };

/* ns per joint of one sample job repeated over `times`. */
static double time_sampling(ossa_sample_job *job, const double *times, uint32_t joints,
                            int iterations)
{
    double best[64];
    int reps = REPEATS < 64 ? REPEATS : 64;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int it = 0; it < iterations; it++) {
            job->time = times[it % NUM_TIMES];
            if (ossa_sample_run(job, NULL) != OSSA_OK) fail("sample", NULL);
        }
        best[r] = (now() - t0) / iterations / joints * 1e9;
    }
    return bench_median(best, reps);
}

static double time_sampling_l2m(ossa_sample_job *job, ossa_local_to_model_job *l2m,
                                const double *times, uint32_t joints, int iterations)
{
    double best[64];
    int reps = REPEATS < 64 ? REPEATS : 64;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int it = 0; it < iterations; it++) {
            job->time = times[it % NUM_TIMES];
            if (ossa_sample_run(job, NULL) != OSSA_OK) fail("sample", NULL);
            if (ossa_local_to_model_run(l2m, NULL) != OSSA_OK) fail("local to model", NULL);
        }
        best[r] = (now() - t0) / iterations / joints * 1e9;
    }
    return bench_median(best, reps);
}

static double time_memcpy(void *dst, const void *src, size_t bytes, int iterations, double per)
{
    double best[64];
    int reps = REPEATS < 64 ? REPEATS : 64;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int it = 0; it < iterations; it++) {
            memcpy(dst, src, bytes);
            __asm__ __volatile__("" ::"r"(dst) : "memory");
        }
        best[r] = (now() - t0) / iterations / per * 1e9;
    }
    return bench_median(best, reps);
}

/* compressed: sample a clip made with OSSA_CLIP_COMPRESSED at the default
 * error bound instead of the float clip. */
static void bench_sampling(const char *label, const ossa_model *m, uint32_t anim, ossa_simd level,
                           int show_memcpy, int compressed)
{
    ossa_error e;
    ossa_clip_options co;
    memset(&co, 0, sizeof co);
    co.compression = compressed ? OSSA_CLIP_COMPRESSED : OSSA_CLIP_FLOATS;
    ossa_clip *clip = ossa_clip_create(m, anim, &co, &e);
    if (!clip) fail("clip", &e);
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    uint32_t n = info.num_joints;
    ossa_transform *local = calloc(n, sizeof *local);
    float(*model)[16] = calloc(n, sizeof *model), (*copy)[16] = calloc(n, sizeof *copy);
    double forward[NUM_TIMES], random_t[NUM_TIMES];
    /* Forward: 60 Hz playback, started off the frame grid so that no
     * sample lands exactly on a frame (those take a cheaper path);
     * random: anywhere in the clip. */
    for (int i = 0; i < NUM_TIMES; i++) {
        forward[i] = (i + 0.37) / 60.0;
        random_t[i] = rnd() * info.duration;
    }
    int iterations = (int)(2e7 / (n * 8.0)) + 1; /* ~20 ms at 8 ns/joint */
    if (level == OSSA_SIMD_REFERENCE) iterations /= 8;
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.simd = level;
    job.model = model;
    job.num_outputs = n;
    double fwd = time_sampling(&job, forward, n, iterations);
    double rnd_ = time_sampling(&job, random_t, n, iterations);
    /* Sampling to locals, then the local-to-model job (the path a blend
     * takes). */
    ossa_sample_job job2 = job;
    job2.model = NULL;
    job2.local = local;
    ossa_local_to_model_job l2m = {n, info.parents, local, NULL, model, level, info.order};
    double fwd2 = time_sampling_l2m(&job2, &l2m, forward, n, iterations);
    double rnd2 = time_sampling_l2m(&job2, &l2m, random_t, n, iterations);
    double mc = time_memcpy(copy, model, n * sizeof *model, iterations * 4, n);
    printf(
        "  %-10s %-9s%s fused: forward %6.2f ns/joint, random %6.2f ns/joint, random/forward %.2f, "
        "%.1fx memcpy | sample+job: forward %6.2f, random %6.2f, ratio %.2f\n",
        label, ossa_simd_name(level), compressed ? " packed" : "", fwd, rnd_, rnd_ / fwd, fwd / mc,
        fwd2, rnd2, rnd2 / fwd2);
    if (compressed)
        printf("  %-10s clip memory: %zu bytes compressed (max error %.3g, bound %.3g)\n", label,
               info.memory, (double)info.measured_error, (double)info.max_error);
    if (show_memcpy)
        printf("  %-10s memcpy of the output (%u matrices, %zu bytes): %.3f ns/joint\n", label,
               (unsigned)n, n * sizeof *model, mc);
    sink = model[n - 1][12];
    free(local);
    free(model);
    free(copy);
    ossa_clip_free(clip);
}

/* -- Skinning --------------------------------------------------------------------- */

typedef struct mesh_data {
    uint32_t nv;
    float *pos, *nrm, *wgt, *out_pos, *out_nrm;
    uint16_t *idx;
} mesh_data;

static void mesh_from_model(const ossa_model *m, mesh_data *d)
{
    d->nv = m->num_vertices;
    size_t nv = d->nv;
    d->pos = malloc(nv * 12), d->nrm = malloc(nv * 12);
    d->out_pos = malloc(nv * 12), d->out_nrm = malloc(nv * 12);
    d->wgt = malloc(nv * 16);
    d->idx = malloc(nv * 8);
    float *fi = malloc(nv * 16);
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), 0, d->nv,
                           d->pos);
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL), 0, d->nv, d->nrm);
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL), 0, d->nv,
                           d->wgt);
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL), 0, d->nv,
                           fi);
    for (size_t i = 0; i < nv * 4; i++) d->idx[i] = (uint16_t)fi[i];
    free(fi);
}

static void mesh_free(mesh_data *d)
{
    free(d->pos), free(d->nrm), free(d->out_pos), free(d->out_nrm), free(d->wgt), free(d->idx);
}

/* dense: every vertex gets 4 non-zero weights (the mesh's own, with a
 * share moved to two more joints), the worst case for loops that skip
 * zero weights. */
static void bench_skinning(const ossa_model *m, ossa_simd level, int show_memcpy, int dense)
{
    mesh_data d;
    mesh_from_model(m, &d);
    if (dense)
        for (uint32_t v = 0; v < d.nv; v++) {
            float *w = &d.wgt[v * 4];
            uint16_t *i = &d.idx[v * 4];
            float s = w[0] + w[1] + w[2] + w[3];
            w[0] = 0.5f * s, w[1] = 0.3f * s, w[2] = 0.15f * s, w[3] = 0.05f * s;
            i[2] = (uint16_t)((i[0] + 1) % m->num_joints),
            i[3] = (uint16_t)((i[0] + 2) % m->num_joints);
        }
    uint32_t n = m->num_joints;
    float(*inv)[16] = calloc(n, sizeof *inv), (*mm)[16] = calloc(n, sizeof *mm);
    ossa_model_inverse_bind_matrices(m, inv);
    ossa_clip *clip = ossa_clip_create(m, 0, NULL, NULL);
    ossa_sample_job sj;
    memset(&sj, 0, sizeof sj);
    sj.clip = clip, sj.time = 1.234, sj.model = mm, sj.num_outputs = n;
    ossa_sample_run(&sj, NULL);
    ossa_skinning_matrices(n, (const float(*)[16])mm, (const float(*)[16])inv, mm);

    ossa_skinning_job job;
    memset(&job, 0, sizeof job);
    job.num_vertices = d.nv;
    job.influences = 4;
    job.matrices = (const float(*)[16])mm;
    job.num_matrices = n;
    job.indices = d.idx, job.indices_stride = 8;
    job.weights = d.wgt, job.weights_stride = 16;
    job.in_positions = d.pos, job.in_positions_stride = 12;
    job.out_positions = d.out_pos, job.out_positions_stride = 12;
    job.in_normals = d.nrm, job.in_normals_stride = 12;
    job.out_normals = d.out_nrm, job.out_normals_stride = 12;
    job.simd = level;
    ossa_error e;
    if (ossa_skinning_validate(&job, &e) != OSSA_OK) fail("skinning", &e);
    int iterations = level == OSSA_SIMD_REFERENCE ? 3 : 10;
    double t[64];
    int reps = REPEATS < 64 ? REPEATS : 64;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int it = 0; it < iterations; it++) ossa_skinning_run(&job, NULL);
        t[r] = (now() - t0) / iterations / d.nv * 1e9;
    }
    double ns = bench_median(t, reps);
    /* The same mesh prepared once into influence groups (not timed), then
     * skinned into the source order and into the prepared order. */
    ossa_skin_groups *groups = ossa_skin_groups_create(&job, NULL, &e);
    if (!groups) fail("skin groups", &e);
    ossa_grouped_skinning_job gj;
    memset(&gj, 0, sizeof gj);
    gj.groups = groups;
    gj.matrices = job.matrices, gj.num_matrices = n;
    gj.out_positions = d.out_pos, gj.out_positions_stride = 12;
    gj.out_normals = d.out_nrm, gj.out_normals_stride = 12;
    gj.simd = level;
    double gns[2];
    for (int prepared = 0; prepared < 2; prepared++) {
        gj.flags = prepared ? OSSA_SKIN_PREPARED_ORDER : 0;
        for (int r = 0; r < reps; r++) {
            double t0 = now();
            for (int it = 0; it < iterations; it++) ossa_grouped_skinning_run(&gj, NULL);
            t[r] = (now() - t0) / iterations / d.nv * 1e9;
        }
        gns[prepared] = bench_median(t, reps);
    }
    ossa_skin_groups_info ginfo;
    ossa_skin_groups_get_info(groups, &ginfo);
    ossa_skin_groups_free(groups);
    /* The output bytes (positions and normals) copied once. */
    size_t bytes = (size_t)d.nv * 24;
    char *src = malloc(bytes), *dst = malloc(bytes);
    memset(src, 1, bytes);
    double mc = time_memcpy(dst, src, bytes, iterations, d.nv);
    printf("  skinning   %-9s positions+normals, 4 influences%s: %.3f ns/vertex, %.1fx memcpy\n",
           ossa_simd_name(level), dense ? " all non-zero" : " (the mesh's)", ns, ns / mc);
    printf("  skinning   %-9s grouped (1/2/3/4+ influences: %u/%u/%u/%u vertices): %.3f "
           "ns/vertex, prepared order %.3f ns/vertex\n",
           ossa_simd_name(level), ginfo.counts[1], ginfo.counts[2], ginfo.counts[3],
           d.nv - ginfo.counts[0] - ginfo.counts[1] - ginfo.counts[2] - ginfo.counts[3],
           gns[0], gns[1]);
    if (show_memcpy)
        printf("  skinning   memcpy of the output (%u vertices, %zu bytes): %.3f ns/vertex\n",
               (unsigned)d.nv, bytes, mc);
    sink = d.out_pos[0] + dst[bytes - 1];
    free(src);
    free(dst);
    free(inv);
    free(mm);
    ossa_clip_free(clip);
    mesh_free(&d);
}

/* The SIMD levels measured, best first. OSSA_BENCH_ONLY=avx2 (or sse2,
 * ...) limits the run to one level, for profiling. */
static const ossa_simd levels[] = {OSSA_SIMD_AVX2, OSSA_SIMD_SSE2, OSSA_SIMD_SCALAR,
                                   OSSA_SIMD_REFERENCE};
static const char *only;

static int level_wanted(size_t l)
{
    return ossa_simd_supported(levels[l]) && (!only || !strcmp(only, ossa_simd_name(levels[l])));
}

/* Animation 0 sampled at every wanted level: the float clip (the memcpy
 * yardstick printed after the reference level) and, but at the reference
 * level, the compressed clip. */
static void bench_sampling_levels(const char *label, const ossa_model *m)
{
    for (size_t l = 0; l < 4; l++)
        if (level_wanted(l)) {
            bench_sampling(label, m, 0, levels[l], l == 3, 0);
            if (l < 3) bench_sampling(label, m, 0, levels[l], 0, 1);
        }
}

int main(int argc, char **argv)
{
    int quick = 0, nfiles = 0;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--wall") == 0) bench_clock = CLOCK_MONOTONIC;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench_runtime [--quick] [--wall] [FILE...]\n");
            return 2;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (quick) REPEATS = 3;
    only = getenv("OSSA_BENCH_ONLY");
    printf("bench_runtime: median of %d runs, %s time; best SIMD level here: %s\n", REPEATS,
           bench_clock == CLOCK_MONOTONIC ? "wall-clock" : "thread CPU",
           ossa_simd_name(ossa_simd_best()));

    ossa_model *h = build_humanoid();
    printf("humanoid67: %u joints, %u frames at 30 fps\n", (unsigned)h->num_joints,
           (unsigned)h->animations[0].num_frames);
    bench_sampling_levels("humanoid67", h);
    ossa_model_free(h);

    ossa_model *b = build_big(100, 16, 32, quick ? 500 : 5000, 5);
    printf("big100: %u joints, %u vertices, %u triangles, %u animations x %u frames\n",
           (unsigned)b->num_joints, (unsigned)b->num_vertices, (unsigned)b->num_triangles,
           (unsigned)b->num_animations, (unsigned)b->animations[0].num_frames);
    bench_sampling_levels("big100", b);
    for (int dense = 0; dense < 2; dense++)
        for (size_t l = 0; l < 4; l++)
            if (level_wanted(l)) bench_skinning(b, levels[l], l == 3 && !dense, dense);
    ossa_model_free(b);

    for (int f = 0; f < nfiles; f++) {
        ossa_error e;
        ossa_model *m = ossa_load_file(files[f], NULL, &e);
        if (!m) fail(files[f], &e);
        printf("%s: %u joints, %u vertices, %u animations\n", files[f], (unsigned)m->num_joints,
               (unsigned)m->num_vertices, (unsigned)m->num_animations);
        const char *label = strrchr(files[f], '/') ? strrchr(files[f], '/') + 1 : files[f];
        if (m->num_animations && m->num_joints) bench_sampling_levels(label, m);
        int skinnable = m->num_animations && m->num_vertices &&
                        ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL) &&
                        ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL) &&
                        ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL) &&
                        ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
        if (skinnable)
            for (size_t l = 0; l < 4; l++)
                if (level_wanted(l)) bench_skinning(m, levels[l], l == 3, 0);
        ossa_model_free(m);
    }
    free(files);
    return 0;
}
