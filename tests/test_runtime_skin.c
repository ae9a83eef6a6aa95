/* The animation runtime: skinning (bind pose gives the mesh back, every
 * SIMD level against the reference on random meshes, job validation) and
 * blending (identities, masks, additive layers, cross-fades). */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ossa_simd levels[] = {OSSA_SIMD_REFERENCE, OSSA_SIMD_SCALAR, OSSA_SIMD_SSE2,
                                   OSSA_SIMD_AVX2};
#define NUM_LEVELS (sizeof levels / sizeof levels[0])

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}
static float rndf(float lo, float hi) { return lo + (float)rnd() * (hi - lo); }

static void random_quat(float q[4])
{
    double n, v[4];
    do {
        n = 0;
        for (int i = 0; i < 4; i++) v[i] = rnd() * 2 - 1, n += v[i] * v[i];
    } while (n < 0.01 || n > 1);
    for (int i = 0; i < 4; i++) q[i] = (float)(v[i] / sqrt(n));
}

static void random_transform(ossa_transform *t, float tscale, float smin, float smax)
{
    for (int c = 0; c < 3; c++) {
        t->translation[c] = rndf(-tscale, tscale);
        t->scale[c] = rndf(smin, smax);
    }
    random_quat(t->rotation);
}

static void unit3(float *v)
{
    double n = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    for (int c = 0; c < 3; c++) v[c] = (float)(v[c] / n);
}

/* -- Skinning --------------------------------------------------------------------- */

/* Interleaved vertices: position, normal, tangent, 8 indices, 8 weights. */
typedef struct vertex {
    float position[3];
    float normal[3];
    float tangent[4];
    uint16_t index[8];
    float weight[8];
} vertex;

typedef struct outputs {
    float position[3];
    float pad0;
    float normal[3];
    float tangent[4];
} outputs;

static void fill_job(ossa_skinning_job *job, const vertex *in, outputs *out, uint32_t count,
                     uint32_t inf, const float (*m)[16], uint32_t nm, int normals, int tangents)
{
    memset(job, 0, sizeof *job);
    job->num_vertices = count;
    job->influences = inf;
    job->matrices = m;
    job->num_matrices = nm;
    job->indices = in->index, job->indices_stride = sizeof *in;
    job->weights = in->weight, job->weights_stride = sizeof *in;
    job->in_positions = in->position, job->in_positions_stride = sizeof *in;
    job->out_positions = out->position, job->out_positions_stride = sizeof *out;
    if (normals) {
        job->in_normals = in->normal, job->in_normals_stride = sizeof *in;
        job->out_normals = out->normal, job->out_normals_stride = sizeof *out;
    }
    if (tangents) {
        job->in_tangents = in->tangent, job->in_tangents_stride = sizeof *in;
        job->out_tangents = out->tangent, job->out_tangents_stride = sizeof *out;
    }
}

static void random_mesh(vertex *v, uint32_t count, uint32_t joints, uint32_t inf)
{
    for (uint32_t i = 0; i < count; i++) {
        for (int c = 0; c < 3; c++) {
            v[i].position[c] = rndf(-1, 1);
            v[i].normal[c] = rndf(-1, 1);
            v[i].tangent[c] = rndf(-1, 1);
        }
        unit3(v[i].normal);
        unit3(v[i].tangent);
        v[i].tangent[3] = rnd() < 0.5 ? -1.0f : 1.0f;
        double sum = 0;
        for (uint32_t k = 0; k < 8; k++) {
            v[i].index[k] = (uint16_t)(rnd() * joints);
            /* Some zero weights, as meshes have. */
            v[i].weight[k] = k < inf && (k < 2 || rnd() < 0.6) ? rndf(0, 1) : 0;
            sum += v[i].weight[k];
        }
        for (uint32_t k = 0; k < 8; k++) v[i].weight[k] = (float)(v[i].weight[k] / sum);
    }
}

static ossa_model *load_guy(void)
{
    size_t size;
    unsigned char *data = ts_read_shared("iqm/guy.iqm", &size);
    ossa_error error;
    ossa_model *m = ossa_load_memory(data, size, NULL, &error);
    free(data);
    if (!m) fail_msg("guy.iqm: %s", error.message);
    return m;
}

static void read_floats(const ossa_model *m, ossa_vertex_type type, uint32_t want, float *out)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    float tmp[OSSA_MAX_COMPONENTS];
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        for (uint32_t c = 0; c < want; c++) out[v * want + c] = 0;
        if (!a) continue;
        assert_int_equal(ossa_vertex_array_read(m, a, v, 1, tmp), OSSA_OK);
        for (uint32_t c = 0; c < want && c < a->size; c++) out[v * want + c] = tmp[c];
    }
}

/* The bind pose skins to the mesh itself on every level. guy.iqm has no
 * tangents: they are made up here (any vector works). */
static void test_skin_bind_pose(void **state)
{
    (void)state;
    ossa_model *m = load_guy();
    uint32_t n = m->num_joints, nv = m->num_vertices;
    float(*inv)[16] = calloc(n, sizeof *inv), (*model)[16] = calloc(n, sizeof *model);
    assert_int_equal(ossa_model_inverse_bind_matrices(m, inv), 0);
    ossa_transform *bind = calloc(n, sizeof *bind);
    int32_t *parents = calloc(n, sizeof *parents);
    for (uint32_t j = 0; j < n; j++) bind[j] = m->joints[j].bind, parents[j] = m->joints[j].parent;
    ossa_local_to_model_job l2m = {n, parents, bind, NULL, model, OSSA_SIMD_REFERENCE, NULL};
    assert_int_equal(ossa_local_to_model_run(&l2m, NULL), OSSA_OK);
    ossa_skinning_matrices(n, (const float(*)[16])model, (const float(*)[16])inv, model);
    for (uint32_t j = 0; j < n; j++)
        for (int i = 0; i < 16; i++) TS_ASSERT_NEAR(model[j][i], i % 5 == 0 ? 1 : 0, 1e-5);

    float *pos = malloc(nv * 12), *nrm = malloc(nv * 12), *tan = malloc(nv * 16);
    float *fidx = malloc(nv * 16), *wgt = malloc(nv * 16);
    uint16_t *idx = malloc(nv * 8);
    read_floats(m, OSSA_VERTEX_POSITION, 3, pos);
    read_floats(m, OSSA_VERTEX_NORMAL, 3, nrm);
    read_floats(m, OSSA_VERTEX_BLENDINDEXES, 4, fidx);
    read_floats(m, OSSA_VERTEX_BLENDWEIGHTS, 4, wgt);
    for (uint32_t i = 0; i < nv * 4; i++) idx[i] = (uint16_t)fidx[i];
    for (uint32_t v = 0; v < nv; v++) {
        float t[4] = {nrm[v * 3 + 1], -nrm[v * 3], 0.5f, v % 2 ? 1.0f : -1.0f};
        memcpy(&tan[v * 4], t, sizeof t);
    }
    float *op = malloc(nv * 12), *on = malloc(nv * 12), *ot = malloc(nv * 16);
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        ossa_skinning_job job;
        memset(&job, 0, sizeof job);
        job.num_vertices = nv;
        job.matrices = (const float(*)[16])model;
        job.num_matrices = n;
        job.indices = idx, job.indices_stride = 8;
        job.weights = wgt, job.weights_stride = 16;
        job.in_positions = pos, job.in_positions_stride = 12;
        job.out_positions = op, job.out_positions_stride = 12;
        job.in_normals = nrm, job.in_normals_stride = 12;
        job.out_normals = on, job.out_normals_stride = 12;
        job.in_tangents = tan, job.in_tangents_stride = 16;
        job.out_tangents = ot, job.out_tangents_stride = 16;
        job.simd = levels[l];
        ossa_error error;
        if (ossa_skinning_run(&job, &error) != OSSA_OK) fail_msg("skin: %s", error.message);
        for (uint32_t i = 0; i < nv * 3; i++) {
            TS_ASSERT_NEAR(op[i], pos[i], 1e-5 * (1 + fabs(pos[i])));
            TS_ASSERT_NEAR(on[i], nrm[i], 1e-5);
        }
        for (uint32_t i = 0; i < nv * 4; i++) TS_ASSERT_NEAR(ot[i], tan[i], 1e-5);
    }
    free(pos), free(nrm), free(tan), free(fidx), free(wgt), free(idx), free(op), free(on), free(ot);
    free(inv), free(model), free(bind), free(parents);
    ossa_model_free(m);
}

/* Random skinning matrices of a random pose (a 2-level hierarchy keeps
 * the values near 1). */
static void random_matrices(float (*m)[16], uint32_t n, int nonuniform)
{
    for (uint32_t j = 0; j < n; j++) {
        ossa_transform t;
        random_transform(&t, 1, nonuniform ? 0.5f : 1, nonuniform ? 1.5f : 1);
        ossa_transform_to_matrix(&t, m[j]);
    }
}

static double max_diff(const outputs *a, const outputs *b, uint32_t count, int normals,
                       int tangents)
{
    double e = 0;
    for (uint32_t v = 0; v < count; v++)
        for (int c = 0; c < 4; c++) {
            if (c < 3) e = fmax(e, fabs(a[v].position[c] - b[v].position[c]));
            if (c < 3 && normals) e = fmax(e, fabs(a[v].normal[c] - b[v].normal[c]));
            if (tangents) e = fmax(e, fabs(a[v].tangent[c] - b[v].tangent[c]));
        }
    return e;
}

static void test_skin_simd_vs_reference(void **state)
{
    (void)state;
    enum { JOINTS = 40, COUNT = 777 };
    float(*m)[16] = calloc(JOINTS, sizeof *m), (*nm)[16] = calloc(JOINTS, sizeof *nm);
    vertex *in = calloc(COUNT, sizeof *in);
    outputs *ref = calloc(COUNT, sizeof *ref), *got = calloc(COUNT, sizeof *got);
    double worst = 0;
    for (uint32_t inf = 1; inf <= 8; inf++)
        for (int variant = 0; variant < 8; variant++) {
            int normals = variant & 1, tangents = (variant >> 1) & 1, separate = variant >> 2;
            random_matrices(m, JOINTS, separate);
            ossa_normal_matrices(JOINTS, (const float(*)[16])m, nm);
            random_mesh(in, COUNT, JOINTS, inf);
            ossa_skinning_job job;
            fill_job(&job, in, ref, COUNT, inf, (const float(*)[16])m, JOINTS, normals, tangents);
            if (separate) job.normal_matrices = (const float(*)[16])nm;
            job.simd = OSSA_SIMD_REFERENCE;
            assert_int_equal(ossa_skinning_run(&job, NULL), OSSA_OK);
            for (size_t l = 1; l < NUM_LEVELS; l++) {
                if (!ossa_simd_supported(levels[l])) continue;
                memset(got, 0, COUNT * sizeof *got);
                fill_job(&job, in, got, COUNT, inf, (const float(*)[16])m, JOINTS, normals,
                         tangents);
                if (separate) job.normal_matrices = (const float(*)[16])nm;
                job.simd = levels[l];
                assert_int_equal(ossa_skinning_run(&job, NULL), OSSA_OK);
                double e = max_diff(got, ref, COUNT, normals, tangents);
                if (e > 1e-6)
                    fail_msg("%s, %u influences, variant %d: off by %g", ossa_simd_name(levels[l]),
                             (unsigned)inf, variant, e);
                worst = fmax(worst, e);
            }
        }
    printf("skinning, fast levels vs reference: %.3g\n", worst);
    free(m), free(nm), free(in), free(ref), free(got);
}

/* Packed arrays (the layout with the fastest loops): every level against
 * the reference, and nothing written past the end of the outputs. */
static void test_skin_packed(void **state)
{
    (void)state;
    enum { JOINTS = 17, COUNT = 1001 };
    float(*m)[16] = calloc(JOINTS, sizeof *m);
    random_matrices(m, JOINTS, 0);
    vertex *v = calloc(COUNT, sizeof *v);
    random_mesh(v, COUNT, JOINTS, 4);
    float *pos = malloc(COUNT * 12), *nrm = malloc(COUNT * 12), *w = malloc(COUNT * 16);
    uint16_t *idx = malloc(COUNT * 8);
    for (int i = 0; i < COUNT; i++) {
        memcpy(&pos[i * 3], v[i].position, 12);
        memcpy(&nrm[i * 3], v[i].normal, 12);
        memcpy(&w[i * 4], v[i].weight, 16);
        memcpy(&idx[i * 4], v[i].index, 8);
    }
    /* One guard float after each output. */
    float *ref_p = malloc(COUNT * 12 + 4), *ref_n = malloc(COUNT * 12 + 4);
    float *got_p = malloc(COUNT * 12 + 4), *got_n = malloc(COUNT * 12 + 4);
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        for (int with_normals = 0; with_normals < 2; with_normals++) {
            float *op = l ? got_p : ref_p, *on = l ? got_n : ref_n;
            op[COUNT * 3] = on[COUNT * 3] = 12345.0f;
            ossa_skinning_job job;
            memset(&job, 0, sizeof job);
            job.num_vertices = COUNT;
            job.matrices = (const float(*)[16])m;
            job.num_matrices = JOINTS;
            job.indices = idx, job.indices_stride = 8;
            job.weights = w, job.weights_stride = 16;
            job.in_positions = pos, job.in_positions_stride = 12;
            job.out_positions = op, job.out_positions_stride = 12;
            if (with_normals) {
                job.in_normals = nrm, job.in_normals_stride = 12;
                job.out_normals = on, job.out_normals_stride = 12;
            }
            job.simd = levels[l];
            assert_int_equal(ossa_skinning_run(&job, NULL), OSSA_OK);
            assert_true(op[COUNT * 3] == 12345.0f);
            assert_true(on[COUNT * 3] == 12345.0f);
            if (!l) continue;
            for (int i = 0; i < COUNT * 3; i++) {
                TS_ASSERT_NEAR(got_p[i], ref_p[i], 1e-6);
                if (with_normals) TS_ASSERT_NEAR(got_n[i], ref_n[i], 1e-6);
            }
        }
    }
    free(m), free(v), free(pos), free(nrm), free(w), free(idx);
    free(ref_p), free(ref_n), free(got_p), free(got_n);
}

/* Out-of-range indices contribute nothing; in place equals out of place. */
static void test_skin_edges(void **state)
{
    (void)state;
    enum { JOINTS = 5, COUNT = 33 };
    float m[JOINTS][16];
    random_matrices(m, JOINTS, 0);
    vertex in[COUNT], copy[COUNT];
    random_mesh(in, COUNT, JOINTS, 4);
    outputs want[COUNT], got[COUNT];
    /* Vertex i: index 1 replaced by an out-of-range one with its weight;
     * the expected result is the reference with that weight zeroed. */
    memcpy(copy, in, sizeof in);
    for (int i = 0; i < COUNT; i++) copy[i].weight[1] = 0;
    for (int i = 0; i < COUNT; i++) in[i].index[1] = (uint16_t)(JOINTS + i);
    ossa_skinning_job job;
    fill_job(&job, copy, want, COUNT, 4, (const float(*)[16])m, JOINTS, 1, 1);
    job.simd = OSSA_SIMD_REFERENCE;
    assert_int_equal(ossa_skinning_run(&job, NULL), OSSA_OK);
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        fill_job(&job, in, got, COUNT, 4, (const float(*)[16])m, JOINTS, 1, 1);
        job.simd = levels[l];
        assert_int_equal(ossa_skinning_run(&job, NULL), OSSA_OK);
        assert_true(max_diff(got, want, COUNT, 1, 1) < 1e-6);
    }
    /* In place: outputs written over the inputs (same pointers, strides). */
    memcpy(in, copy, sizeof in);
    for (size_t l = 0; l < NUM_LEVELS; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        vertex work[COUNT];
        memcpy(work, copy, sizeof work);
        memset(&job, 0, sizeof job);
        job.num_vertices = COUNT;
        job.matrices = (const float(*)[16])m;
        job.num_matrices = JOINTS;
        job.indices = work->index, job.indices_stride = sizeof *work;
        job.weights = work->weight, job.weights_stride = sizeof *work;
        job.in_positions = work->position, job.in_positions_stride = sizeof *work;
        job.out_positions = work->position, job.out_positions_stride = sizeof *work;
        job.in_normals = work->normal, job.in_normals_stride = sizeof *work;
        job.out_normals = work->normal, job.out_normals_stride = sizeof *work;
        job.in_tangents = work->tangent, job.in_tangents_stride = sizeof *work;
        job.out_tangents = work->tangent, job.out_tangents_stride = sizeof *work;
        job.simd = levels[l];
        assert_int_equal(ossa_skinning_run(&job, NULL), OSSA_OK);
        for (int v = 0; v < COUNT; v++)
            for (int c = 0; c < 3; c++) {
                TS_ASSERT_NEAR(work[v].position[c], want[v].position[c], 1e-6);
                TS_ASSERT_NEAR(work[v].normal[c], want[v].normal[c], 1e-6);
                TS_ASSERT_NEAR(work[v].tangent[c], want[v].tangent[c], 1e-6);
            }
    }
}

static void expect_invalid(const ossa_skinning_job *job, const char *what)
{
    ossa_error error;
    memset(&error, 0, sizeof error);
    if (ossa_skinning_validate(job, &error) != OSSA_FAILED) fail_msg("accepted: %s", what);
    assert_int_equal(error.code, OSSA_ERROR_ARGUMENT);
    assert_true(error.message[0] != 0);
    if (ossa_skinning_run(job, NULL) != OSSA_FAILED) fail_msg("ran: %s", what);
}

static void test_skin_validation(void **state)
{
    (void)state;
    float m[2][16];
    random_matrices(m, 2, 0);
    vertex in[4];
    random_mesh(in, 4, 2, 4);
    outputs out[4];
    ossa_skinning_job good, job;
    fill_job(&good, in, out, 4, 4, (const float(*)[16])m, 2, 1, 1);
    assert_int_equal(ossa_skinning_validate(&good, NULL), OSSA_OK);
    assert_int_equal(ossa_skinning_validate(NULL, NULL), OSSA_FAILED);

    job = good, job.influences = 9;
    expect_invalid(&job, "9 influences");
    job = good, job.in_positions_stride = 8;
    expect_invalid(&job, "position stride 8");
    job = good, job.out_positions_stride = 14;
    expect_invalid(&job, "position stride 14");
    job = good, job.in_tangents_stride = 12;
    expect_invalid(&job, "tangent stride 12");
    job = good, job.indices_stride = 6;
    expect_invalid(&job, "index stride 6 for 4 influences");
    job = good, job.indices_stride = 49;
    expect_invalid(&job, "odd index stride");
    job = good, job.weights_stride = 12;
    expect_invalid(&job, "weight stride 12 for 4 influences");
    job = good, job.out_normals = NULL;
    expect_invalid(&job, "normals in without out");
    job = good, job.in_tangents = NULL;
    expect_invalid(&job, "tangents out without in");
    job = good, job.matrices = NULL;
    expect_invalid(&job, "no matrices");
    job = good, job.num_matrices = 0;
    expect_invalid(&job, "zero matrices");
    job = good, job.in_positions = NULL;
    expect_invalid(&job, "no positions");
    job = good, job.weights = NULL;
    expect_invalid(&job, "no weights");
    job = good, job.in_positions = (const float *)(const void *)((const char *)in->position + 2);
    expect_invalid(&job, "misaligned positions");
    job = good, job.out_positions = (float *)(void *)in->position;
    job.out_positions_stride = good.in_positions_stride + 4;
    expect_invalid(&job, "in place with another stride");
    job = good, job.simd = (ossa_simd)99;
    assert_int_equal(ossa_skinning_validate(&job, NULL), OSSA_FAILED);
    /* Nothing to do is fine, whatever the pointers. */
    memset(&job, 0, sizeof job);
    assert_int_equal(ossa_skinning_validate(&job, NULL), OSSA_OK);
    assert_int_equal(ossa_skinning_run(&job, NULL), OSSA_OK);
}

static void test_normal_matrices(void **state)
{
    (void)state;
    float m[3][16], n[3][16];
    random_matrices(m, 3, 1);
    ossa_normal_matrices(3, (const float(*)[16])m, n);
    for (int j = 0; j < 3; j++) {
        /* transpose(n) * m = identity on the 3x3 part. */
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                double s = 0;
                for (int k = 0; k < 3; k++) s += (double)n[j][r * 4 + k] * m[j][c * 4 + k];
                TS_ASSERT_NEAR(s, r == c, 1e-5);
            }
        TS_ASSERT_NEAR(n[j][12], 0, 0);
        TS_ASSERT_NEAR(n[j][15], 1, 0);
    }
}

/* -- Blending --------------------------------------------------------------------- */

enum { BJ = 13 };

static void random_pose(ossa_transform *p)
{
    for (int j = 0; j < BJ; j++) random_transform(&p[j], 2, 0.5f, 1.5f);
}

static void blend2(const ossa_transform *a, float wa, const ossa_transform *b, float wb,
                   const float *mask_b, ossa_transform *out)
{
    ossa_blend_layer layers[2] = {{a, wa, NULL}, {b, wb, mask_b}};
    ossa_blend_job job;
    memset(&job, 0, sizeof job);
    job.num_joints = BJ;
    job.layers = layers;
    job.num_layers = 2;
    job.output = out;
    ossa_error error;
    if (ossa_blend_run(&job, &error) != OSSA_OK) fail_msg("blend: %s", error.message);
}

static void assert_pose_near(const ossa_transform *a, const ossa_transform *b, double tol)
{
    for (int j = 0; j < BJ; j++) {
        for (int c = 0; c < 3; c++) {
            TS_ASSERT_NEAR(a[j].translation[c], b[j].translation[c], tol);
            TS_ASSERT_NEAR(a[j].scale[c], b[j].scale[c], tol);
        }
        TS_ASSERT_QUAT_EQUIV(a[j].rotation, b[j].rotation, tol);
    }
}

static void test_blend_identities(void **state)
{
    (void)state;
    ossa_transform a[BJ], b[BJ], out[BJ], out2[BJ];
    random_pose(a);
    random_pose(b);
    /* Weights 1 and 0: exactly the inputs. */
    blend2(a, 1, b, 0, NULL, out);
    assert_memory_equal(out, a, sizeof a);
    blend2(a, 0, b, 1, NULL, out);
    assert_memory_equal(out, b, sizeof b);
    blend2(a, 0, b, 0.7f, NULL, out); /* one contributor, any weight above the threshold */
    assert_memory_equal(out, b, sizeof b);
    /* Two identical poses: the same pose. */
    blend2(a, 0.3f, a, 0.7f, NULL, out);
    assert_pose_near(out, a, 1e-6);
    /* Weights are normalized: (2, 2) is (0.5, 0.5). */
    blend2(a, 2, b, 2, NULL, out);
    blend2(a, 0.5f, b, 0.5f, NULL, out2);
    assert_pose_near(out, out2, 1e-6);
    /* Sign alignment: -q is the same rotation. */
    ossa_transform nb[BJ];
    memcpy(nb, b, sizeof b);
    for (int j = 0; j < BJ; j++)
        for (int c = 0; c < 4; c++) nb[j].rotation[c] = -nb[j].rotation[c];
    blend2(a, 0.4f, nb, 0.6f, NULL, out2);
    blend2(a, 0.4f, b, 0.6f, NULL, out);
    assert_pose_near(out, out2, 1e-6);
    /* Half and half of two rotations: the slerp midpoint (nlerp at 0.5 is
     * exact), and translations average. */
    blend2(a, 0.5f, b, 0.5f, NULL, out);
    for (int j = 0; j < BJ; j++) {
        for (int c = 0; c < 3; c++)
            TS_ASSERT_NEAR(out[j].translation[c],
                    0.5 * ((double)a[j].translation[c] + b[j].translation[c]), 1e-6);
        double d = 0, q[4], n = 0;
        for (int c = 0; c < 4; c++) d += (double)a[j].rotation[c] * b[j].rotation[c];
        for (int c = 0; c < 4; c++)
            q[c] = a[j].rotation[c] + (d < 0 ? -1 : 1) * (double)b[j].rotation[c], n += q[c] * q[c];
        float want[4];
        for (int c = 0; c < 4; c++) want[c] = (float)(q[c] / sqrt(n));
        TS_ASSERT_QUAT_EQUIV(out[j].rotation, want, 1e-6);
    }
    /* A mask: b only on odd joints (weight 1 there), a elsewhere. */
    float mask[BJ];
    for (int j = 0; j < BJ; j++) mask[j] = j % 2 ? 1.0f : 0.0f;
    blend2(a, 0, b, 1, mask, out); /* even joints: nobody -> rest (identity) */
    ossa_transform id = ossa_transform_identity();
    for (int j = 0; j < BJ; j++) {
        if (j % 2) assert_memory_equal(&out[j], &b[j], sizeof b[j]);
        else {
            for (int c = 0; c < 3; c++) TS_ASSERT_NEAR(out[j].translation[c], 0, 1e-7);
            TS_ASSERT_QUAT_EQUIV(out[j].rotation, id.rotation, 1e-7);
        }
    }
    ossa_blend_layer layers[2] = {{a, 1, NULL}, {b, 1, mask}};
    ossa_blend_job job;
    memset(&job, 0, sizeof job);
    job.num_joints = BJ, job.layers = layers, job.num_layers = 2, job.output = out;
    assert_int_equal(ossa_blend_run(&job, NULL), OSSA_OK);
    blend2(a, 0.5f, b, 0.5f, NULL, out2);
    for (int j = 0; j < BJ; j++) {
        if (j % 2)
            assert_memory_equal(&out[j], &out2[j], sizeof out[j]);
        else
            assert_memory_equal(&out[j], &a[j], sizeof a[j]);
    }
    /* All weights zero: the rest pose. */
    job.rest_pose = b;
    layers[0].weight = 0, layers[1].weight = 0;
    assert_int_equal(ossa_blend_run(&job, NULL), OSSA_OK);
    assert_pose_near(out, b, 1e-6);
}

static void test_additive(void **state)
{
    (void)state;
    ossa_transform ref[BJ], pose[BJ], delta[BJ], base[BJ], out[BJ];
    random_pose(ref);
    random_pose(pose);
    random_pose(base);
    /* The delta of the reference itself is the identity, exactly. */
    ossa_pose_make_additive(BJ, ref, ref, delta);
    ossa_transform id = ossa_transform_identity();
    for (int j = 0; j < BJ; j++) {
        assert_memory_equal(delta[j].translation, id.translation, 12);
        assert_memory_equal(delta[j].scale, id.scale, 12);
        TS_ASSERT_QUAT_SAME(delta[j].rotation, id.rotation, 1e-7);
    }
    /* Applying it (any weight) leaves a pose as it was. */
    ossa_blend_layer layer = {base, 1, NULL}, add = {delta, 0.8f, NULL};
    ossa_blend_job job;
    memset(&job, 0, sizeof job);
    job.num_joints = BJ, job.layers = &layer, job.num_layers = 1;
    job.additive = &add, job.num_additive = 1, job.output = out;
    assert_int_equal(ossa_blend_run(&job, NULL), OSSA_OK);
    assert_pose_near(out, base, 1e-6);
    /* The delta from ref to pose, applied to ref with weight 1, is pose. */
    ossa_pose_make_additive(BJ, ref, pose, delta);
    layer.pose = ref, add.weight = 1;
    assert_int_equal(ossa_blend_run(&job, NULL), OSSA_OK);
    assert_pose_near(out, pose, 1e-5);
    /* Weight 0.5: half the translation, half the rotation angle. */
    add.weight = 0.5f;
    assert_int_equal(ossa_blend_run(&job, NULL), OSSA_OK);
    for (int j = 0; j < BJ; j++) {
        for (int c = 0; c < 3; c++)
            TS_ASSERT_NEAR(out[j].translation[c], ref[j].translation[c] + 0.5 * delta[j].translation[c],
                    1e-5);
        /* rotation angle between ref and out is half of ref -> pose. */
        double d1 = 0, d2 = 0;
        for (int c = 0; c < 4; c++) {
            d1 += (double)ref[j].rotation[c] * pose[j].rotation[c];
            d2 += (double)ref[j].rotation[c] * out[j].rotation[c];
        }
        TS_ASSERT_NEAR(acos(fmin(1, fabs(d2))), 0.5 * acos(fmin(1, fabs(d1))), 1e-5);
    }
    /* Validation. */
    add.weight = -1;
    assert_int_equal(ossa_blend_validate(&job, NULL), OSSA_FAILED);
    add.weight = NAN;
    assert_int_equal(ossa_blend_validate(&job, NULL), OSSA_FAILED);
    add.weight = 1;
    add.pose = NULL;
    assert_int_equal(ossa_blend_validate(&job, NULL), OSSA_FAILED);
    add.pose = delta;
    job.output = delta; /* an input */
    assert_int_equal(ossa_blend_validate(&job, NULL), OSSA_FAILED);
    job.output = out;
    job.threshold = -1;
    assert_int_equal(ossa_blend_validate(&job, NULL), OSSA_FAILED);
}

static ossa_model *two_clip_model(void)
{
    ossa_model *m = ossa_model_create(NULL);
    for (int j = 0; j < BJ; j++) {
        ossa_transform t;
        random_transform(&t, 1, 1, 1);
        ossa_model_add_joint(m, "", j ? (int32_t)(rnd() * j) : -1, &t, NULL);
    }
    for (int a = 0; a < 2; a++) {
        ossa_animation *anim =
            ossa_model_add_animation(m, a ? "b" : "a", 9, 10, OSSA_ANIMATION_LOOP, NULL);
        for (int i = 0; i < 9 * BJ; i++) random_transform(&anim->frames[i], 1, 0.8f, 1.2f);
    }
    return m;
}

static void sample_local(const ossa_clip *clip, double t, ossa_transform *out)
{
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip, job.time = t, job.local = out, job.num_outputs = BJ;
    assert_int_equal(ossa_sample_run(&job, NULL), OSSA_OK);
}

static void test_crossfade(void **state)
{
    (void)state;
    ossa_model *m = two_clip_model();
    ossa_clip *a = ossa_clip_create(m, 0, NULL, NULL), *b = ossa_clip_create(m, 1, NULL, NULL);
    ossa_transform pa[BJ], pb[BJ], scratch[BJ], out[BJ], want[BJ];
    sample_local(a, 0.33, pa);
    sample_local(b, 0.71, pb);
    ossa_crossfade_job job = {a, 0.33, b, 0.71, 0, 0.5, OSSA_WRAP_DEFAULT, scratch, out};
    assert_int_equal(ossa_crossfade_run(&job, NULL), OSSA_OK);
    assert_memory_equal(out, pa, sizeof pa);
    job.elapsed = 0.5;
    assert_int_equal(ossa_crossfade_run(&job, NULL), OSSA_OK);
    assert_memory_equal(out, pb, sizeof pb);
    job.elapsed = 7;
    assert_int_equal(ossa_crossfade_run(&job, NULL), OSSA_OK);
    assert_memory_equal(out, pb, sizeof pb);
    job.elapsed = 0.125; /* weight 0.25 for b */
    assert_int_equal(ossa_crossfade_run(&job, NULL), OSSA_OK);
    blend2(pa, 0.75f, pb, 0.25f, NULL, want);
    assert_pose_near(out, want, 1e-6);
    job.duration = 0; /* an instant switch */
    assert_int_equal(ossa_crossfade_run(&job, NULL), OSSA_OK);
    assert_memory_equal(out, pb, sizeof pb);
    job.scratch = out;
    assert_int_equal(ossa_crossfade_run(&job, NULL), OSSA_FAILED);
    /* validate says what run refuses, and changes nothing */
    ossa_error err;
    memset(out, 0x5a, sizeof out);
    assert_int_equal(ossa_crossfade_validate(&job, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_int_equal(((unsigned char *)out)[0], 0x5a);
    job.scratch = scratch;
    assert_int_equal(ossa_crossfade_validate(&job, &err), OSSA_OK);
    job.to_time = INFINITY;
    assert_int_equal(ossa_crossfade_validate(&job, &err), OSSA_FAILED);
    assert_int_equal(ossa_crossfade_run(&job, &err), OSSA_FAILED);
    job.to_time = 0.71;
    job.wrap = (ossa_wrap)7;
    assert_int_equal(ossa_crossfade_validate(&job, &err), OSSA_FAILED);
    job.wrap = OSSA_WRAP_DEFAULT;
    ossa_clip_free(a);
    ossa_clip_free(b);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skin_bind_pose),
        cmocka_unit_test(test_skin_simd_vs_reference),
        cmocka_unit_test(test_skin_packed),
        cmocka_unit_test(test_skin_edges),
        cmocka_unit_test(test_skin_validation),
        cmocka_unit_test(test_normal_matrices),
        cmocka_unit_test(test_blend_identities),
        cmocka_unit_test(test_additive),
        cmocka_unit_test(test_crossfade),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
