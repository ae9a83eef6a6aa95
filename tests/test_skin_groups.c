/* Skinning by influence groups: on random meshes (1 to 8 influences with
 * zero weights anywhere, vertices without influences, interleaved
 * strides) every SIMD level gives per vertex what the skinning job gives
 * at the same level, in the source order and in the prepared order;
 * preparing keeps the counts and order; bad jobs are refused. */
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ossa_simd levels[] = {OSSA_SIMD_REFERENCE, OSSA_SIMD_SCALAR, OSSA_SIMD_SSE2,
                                   OSSA_SIMD_AVX2};
#define NUM_LEVELS (sizeof levels / sizeof levels[0])

static uint64_t rng = 0xDEADBEEFCAFEF00Dull;
static double rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

enum { NJ = 37, NV = 1001 };

typedef struct mesh {
    uint32_t inf;
    uint16_t *idx;
    float *w;
    float *vtx; /* interleaved: position 3, normal 3, tangent 4 */
} mesh;

static mesh make_mesh(uint32_t inf)
{
    mesh m = {inf, calloc((size_t)NV * inf, 2), calloc((size_t)NV * inf, 4),
              calloc((size_t)NV * 10, 4)};
    for (uint32_t v = 0; v < NV; v++) {
        uint32_t used = (uint32_t)(rnd() * (inf + 1)); /* 0..inf non-zero weights */
        float sum = 0;
        for (uint32_t k = 0; k < inf; k++) {
            m.idx[v * inf + k] = (uint16_t)(rnd() * NJ);
            /* Zero weights anywhere, not only last. */
            float w = k < used ? (float)(0.1 + rnd()) : 0;
            m.w[v * inf + k] = w;
            sum += w;
        }
        for (uint32_t k = 0; k < inf && sum > 0; k++) m.w[v * inf + k] /= sum;
        if (used && rnd() < 0.5) /* shuffle a zero into the front */
            for (uint32_t k = inf - 1; k > 0; k--) {
                uint32_t j = (uint32_t)(rnd() * (k + 1));
                float tw = m.w[v * inf + k];
                m.w[v * inf + k] = m.w[v * inf + j], m.w[v * inf + j] = tw;
            }
        for (int c = 0; c < 10; c++) m.vtx[v * 10 + c] = (float)(rnd() * 4 - 2);
        m.vtx[v * 10 + 9] = rnd() < 0.5 ? -1.0f : 1.0f;
    }
    return m;
}

static void free_mesh(mesh *m) { free(m->idx), free(m->w), free(m->vtx); }

static ossa_skinning_job job_for(const mesh *m, float (*mats)[16])
{
    ossa_skinning_job j;
    memset(&j, 0, sizeof j);
    j.num_vertices = NV;
    j.influences = m->inf;
    j.matrices = (const float(*)[16])mats;
    j.num_matrices = NJ;
    j.indices = m->idx, j.indices_stride = 2 * m->inf;
    j.weights = m->w, j.weights_stride = 4 * m->inf;
    j.in_positions = m->vtx, j.in_positions_stride = 40;
    j.in_normals = m->vtx + 3, j.in_normals_stride = 40;
    j.in_tangents = m->vtx + 6, j.in_tangents_stride = 40;
    return j;
}

static void check_close(const float *a, const float *b, size_t n, double tol)
{
    for (size_t i = 0; i < n; i++)
        if (fabs((double)a[i] - b[i]) > tol * (1 + fabs(b[i])))
            fail_msg("element %zu: %.9g vs %.9g", i, a[i], b[i]);
}

static void test_groups_match_job(void **state)
{
    (void)state;
    float(*mats)[16] = calloc(NJ, sizeof *mats);
    for (int j = 0; j < NJ; j++) {
        for (int c = 0; c < 12; c++) mats[j][c] = (float)(rnd() * 2 - 1);
        mats[j][3] = mats[j][7] = mats[j][11] = 0;
        for (int c = 12; c < 15; c++) mats[j][c] = (float)(rnd() * 10 - 5);
        mats[j][15] = 1;
    }
    static const uint32_t infs[] = {1, 2, 3, 4, 6, 8};
    for (size_t t = 0; t < sizeof infs / sizeof infs[0]; t++) {
        mesh m = make_mesh(infs[t]);
        ossa_skinning_job base = job_for(&m, mats);
        ossa_error e;
        ossa_skin_groups *g = ossa_skin_groups_create(&base, NULL, &e);
        if (!g) fail_msg("create: %s", e.message);
        ossa_skin_groups_info info;
        ossa_skin_groups_get_info(g, &info);
        assert_int_equal(info.num_vertices, NV);
        /* Counts and order, computed here. */
        uint32_t counts[OSSA_MAX_INFLUENCES + 1] = {0};
        for (uint32_t v = 0; v < NV; v++) {
            uint32_t k = 0;
            for (uint32_t i = 0; i < m.inf; i++) k += m.w[v * m.inf + i] != 0;
            counts[k]++;
        }
        assert_memory_equal(counts, info.counts, sizeof counts);
        for (uint32_t i = 1; i < NV; i++) {
            uint32_t a = info.order[i - 1], b = info.order[i];
            uint32_t ka = 0, kb = 0;
            for (uint32_t q = 0; q < m.inf; q++) ka += m.w[a * m.inf + q] != 0, kb += m.w[b * m.inf + q] != 0;
            assert_true(ka < kb || (ka == kb && a < b));
        }
        for (size_t l = 0; l < NUM_LEVELS; l++) {
            if (!ossa_simd_supported(levels[l])) continue;
            for (int with_tangents = 0; with_tangents < 2; with_tangents++) {
                float *want = calloc((size_t)NV * 10, 4), *got = calloc((size_t)NV * 10, 4);
                float *packed = calloc((size_t)NV * 10, 4);
                ossa_skinning_job j = base;
                j.simd = levels[l];
                j.out_positions = want, j.out_positions_stride = 40;
                j.out_normals = want + 3, j.out_normals_stride = 40;
                if (with_tangents)
                    j.out_tangents = want + 6, j.out_tangents_stride = 40;
                else
                    j.in_tangents = NULL;
                assert_int_equal(ossa_skinning_run(&j, &e), OSSA_OK);
                ossa_grouped_skinning_job gj;
                memset(&gj, 0, sizeof gj);
                gj.groups = g;
                gj.matrices = (const float(*)[16])mats;
                gj.num_matrices = NJ;
                gj.out_positions = got, gj.out_positions_stride = 40;
                gj.out_normals = got + 3, gj.out_normals_stride = 40;
                if (with_tangents) gj.out_tangents = got + 6, gj.out_tangents_stride = 40;
                gj.simd = levels[l];
                assert_int_equal(ossa_grouped_skinning_run(&gj, &e), OSSA_OK);
                /* Same arithmetic: equal up to the rounding of influences
                 * the job adds as zeros (AVX2 fuses them differently for
                 * more than 4 influences). */
                for (uint32_t v = 0; v < NV; v++)
                    check_close(got + v * 10, want + v * 10, with_tangents ? 10 : 6,
                                m.inf > 4 ? 1e-5 : 1e-6);
                gj.flags = OSSA_SKIN_PREPARED_ORDER;
                gj.out_positions = packed, gj.out_normals = packed + 3;
                if (with_tangents) gj.out_tangents = packed + 6;
                assert_int_equal(ossa_grouped_skinning_run(&gj, &e), OSSA_OK);
                for (uint32_t i = 0; i < NV; i++)
                    assert_memory_equal(packed + i * 10, got + info.order[i] * 10,
                                        (with_tangents ? 10 : 6) * sizeof(float));
                /* Outputs packed at stride 12, where the fast kernels store
                 * 16 bytes and let the next vertex overwrite the fourth
                 * float: the same values, nothing written past the end. */
                float *pos12 = malloc(((size_t)NV * 3 + 4) * 4), *nrm12 = malloc(((size_t)NV * 3 + 4) * 4);
                for (size_t i = 0; i < (size_t)NV * 3 + 4; i++) pos12[i] = nrm12[i] = 1234.5f;
                gj.out_positions = pos12, gj.out_positions_stride = 12;
                gj.out_normals = nrm12, gj.out_normals_stride = 12;
                assert_int_equal(ossa_grouped_skinning_run(&gj, &e), OSSA_OK);
                for (uint32_t i = 0; i < NV; i++) {
                    assert_memory_equal(pos12 + i * 3, packed + i * 10, 12);
                    assert_memory_equal(nrm12 + i * 3, packed + i * 10 + 3, 12);
                }
                for (int c = 0; c < 4; c++) {
                    assert_true(pos12[NV * 3 + c] == 1234.5f);
                    assert_true(nrm12[NV * 3 + c] == 1234.5f);
                }
                free(pos12), free(nrm12);
                free(want), free(got), free(packed);
            }
        }
        ossa_skin_groups_free(g);
        free_mesh(&m);
    }
    free(mats);
}

static void test_groups_errors(void **state)
{
    (void)state;
    float(*mats)[16] = calloc(NJ, sizeof *mats);
    mesh m = make_mesh(4);
    ossa_skinning_job base = job_for(&m, mats);
    ossa_error e;
    ossa_skin_groups *g = ossa_skin_groups_create(&base, NULL, &e);
    assert_non_null(g);
    float out[NV * 3];
    ossa_grouped_skinning_job gj;
    memset(&gj, 0, sizeof gj);
    gj.groups = g;
    gj.matrices = (const float(*)[16])mats;
    gj.num_matrices = 3; /* the mesh uses up to NJ - 1 */
    gj.out_positions = out, gj.out_positions_stride = 12;
    assert_int_equal(ossa_grouped_skinning_run(&gj, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    gj.num_matrices = NJ;
    gj.out_positions_stride = 8;
    assert_int_equal(ossa_grouped_skinning_run(&gj, &e), OSSA_FAILED);
    gj.out_positions_stride = 12;
    gj.flags = 0x80;
    assert_int_equal(ossa_grouped_skinning_run(&gj, &e), OSSA_FAILED);
    gj.flags = 0;
    assert_int_equal(ossa_grouped_skinning_run(&gj, &e), OSSA_OK);
    ossa_skin_groups_free(g);
    base.weights_stride = 3; /* not a multiple of 4 */
    assert_null(ossa_skin_groups_create(&base, NULL, &e));
    /* Allocation failure: one block. */
    base.weights_stride = 16;
    ts_alloc fa;
    ts_alloc_init(&fa, 0, false);
    assert_null(ossa_skin_groups_create(&base, &fa.allocator, &e));
    assert_int_equal(e.code, OSSA_ERROR_NOMEM);
    assert_int_equal(fa.live, 0);
    free_mesh(&m);
    free(mats);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_match_job),
        cmocka_unit_test(test_groups_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
