/* Influence limiting, the shared post-read step (src/core/influences.h):
 * given (joint, weight) pairs, which are kept, in what order, and the
 * renormalized weights. Every expected number below is worked out by hand
 * in the comments: sums of the kept weights, and each weight over its sum
 * computed here in double and rounded to float, independently of the
 * library's code. */
#include "support.h"

#include "core/influences.h"

#include <stdlib.h>
#include <string.h>

static const ossa__influence_rule iqm_sdk = {4, 0.001, false};

static void expect_pair(const ossa__influence *p, uint32_t joint, double weight)
{
    assert_int_equal(p->joint, joint);
    assert_true(p->weight == weight);
}

/* -0.1 moves nothing; joint 3 twice is 0.5 + 0.125 = 0.625 at the first
 * one's place (order 0); 0.0005 <= 0.001 goes; of 0.625 (j3), 0.25 (j1,
 * order 1), 0.25 (j5, order 5), 0.25 (j9, order 6) the largest 3 stay, ties
 * by order: j3, j1, j5. Their sum is 1.125: 0.625 / 1.125 = 5/9 and
 * 0.25 / 1.125 = 2/9. */
static void merge_drop_cut_renormalize(void **state)
{
    (void)state;
    ossa__influence p[] = {{3, 0, 0.5},   {1, 1, 0.25},  {3, 2, 0.125}, {7, 3, 0.0005},
                           {2, 4, -0.1},  {5, 5, 0.25},  {9, 6, 0.25}};
    ossa__influence_rule rule = {3, 0.001, false};
    ossa__influence_stats st;
    uint32_t kept = ossa__influences_limit(p, 7, &rule, &st);
    assert_int_equal(kept, 3);
    assert_int_equal(st.merged, 5); /* j3, j1, j7, j5, j9 */
    assert_int_equal(st.above, 4);
    assert_int_equal(st.kept, 3);
    assert_true(st.total == 1.375);
    assert_true(st.kept_weight == 1.125);
    expect_pair(&p[0], 3, 0.625);
    expect_pair(&p[1], 1, 0.25);
    expect_pair(&p[2], 5, 0.25);
    float w[3];
    ossa__influences_normalize(p, 3, 4, w);
    assert_true(w[0] == (float)(5.0 / 9.0));
    assert_true(w[1] == (float)(2.0 / 9.0));
    assert_true(w[2] == (float)(2.0 / 9.0));
}

/* Weights that sum to 1 up to float rounding stay bit for bit: as floats,
 * 0.71200234 + 0.2583141 + 0.029683521 is 1 - 1.3125 * 2^-25 in double,
 * within 4 * 2^-25. Divided by that sum, the last would become
 * 0.029683523. 0.33333334, 0.33333334 and 0.3333333 are 11184811,
 * 11184811 and 11184810 times 2^-25: exactly 1, kept. Three of 0.33333
 * sum to 0.99999, and are divided: 1/3 each. */
static void normalized_weights_kept(void **state)
{
    (void)state;
    ossa__influence p[] = {{0, 0, 0.71200234f}, {1, 1, 0.2583141f}, {2, 2, 0.029683521f}};
    float w[3];
    ossa__influences_normalize(p, 3, 4, w);
    assert_true(w[0] == 0.71200234f && w[1] == 0.2583141f && w[2] == 0.029683521f);
    double sum = (double)0.71200234f + (double)0.2583141f + (double)0.029683521f;
    assert_true(sum == 1 - 1.3125 * 0x1p-25);
    assert_true((float)(0.029683521f / sum) == 0.029683523f);

    ossa__influence third[] = {{0, 0, 0.33333334f}, {1, 1, 0.33333334f}, {2, 2, 0.3333333f}};
    ossa__influences_normalize(third, 3, 4, w);
    assert_true(w[0] == 0.33333334f && w[2] == 0.3333333f);

    ossa__influence rough[] = {{0, 0, 0.33333f}, {1, 1, 0.33333f}, {2, 2, 0.33333f}};
    ossa__influences_normalize(rough, 3, 4, w);
    for (int k = 0; k < 3; k++) assert_true(w[k] == (float)((double)0.33333f / (3 * (double)0.33333f)));
    assert_true(w[0] == 1.0f / 3.0f);
}

/* The tolerance is the rounding of the vertex's slots: a lone weight of
 * 1 - 2^-24 (one ulp below 1) is 2^-24 = 2 * 2^-25 away, kept with 4
 * slots, divided (to 1) with 1. */
static void tolerance_counts_slots(void **state)
{
    (void)state;
    ossa__influence p[] = {{0, 0, 1.0 - 0x1p-24}};
    float w;
    ossa__influences_normalize(p, 1, 4, &w);
    assert_true(w == (float)(1.0 - 0x1p-24));
    ossa__influences_normalize(p, 1, 1, &w);
    assert_true(w == 1.0f);
    /* nothing positive: zeros */
    ossa__influence none[] = {{0, 0, 0}, {1, 1, 0}};
    float z[2] = {5, 5};
    ossa__influences_normalize(none, 2, 4, z);
    assert_true(z[0] == 0 && z[1] == 0);
}

/* glTF keeps its slots' order: of 0.1 (slot 0), 0.4, 0.2, 0.3 and a 0 in
 * slot 4, the 3 largest are 0.4, 0.3, 0.2, which go back to slot order:
 * j2 (slot 1), j9 (slot 2), j1 (slot 3); over their sum 0.9. Every positive
 * weight counts: 0.0005 stays with a threshold of 0. */
static void in_order_keeps_slots(void **state)
{
    (void)state;
    ossa__influence p[] = {{4, 0, 0.1}, {2, 1, 0.4}, {9, 2, 0.2}, {1, 3, 0.3}, {6, 4, 0}};
    ossa__influence_rule rule = {3, 0, true};
    uint32_t kept = ossa__influences_limit(p, 5, &rule, NULL);
    assert_int_equal(kept, 3);
    expect_pair(&p[0], 2, 0.4);
    expect_pair(&p[1], 9, 0.2);
    expect_pair(&p[2], 1, 0.3);
    float w[3];
    ossa__influences_normalize(p, 3, 4, w);
    assert_true(w[0] == (float)(0.4 / (0.4 + 0.2 + 0.3)));
    assert_true(w[1] == (float)(0.2 / (0.4 + 0.2 + 0.3)));
    assert_true(w[2] == (float)(0.3 / (0.4 + 0.2 + 0.3)));

    ossa__influence tiny[] = {{0, 0, 0.9995}, {1, 1, 0.0005}};
    assert_int_equal(ossa__influences_limit(tiny, 2, &rule, NULL), 2);
}

/* SMD and FBX order ties by bone number: 0.5 on bone 5 and 0.5 on bone 2
 * give bone 2 first whatever the file order. */
static void ties_by_order_key(void **state)
{
    (void)state;
    ossa__influence p[] = {{5, 5, 0.5}, {2, 2, 0.5}};
    assert_int_equal(ossa__influences_limit(p, 2, &iqm_sdk, NULL), 2);
    expect_pair(&p[0], 2, 0.5);
    expect_pair(&p[1], 5, 0.5);
}

/* Nothing above 0.001: none kept, but the merged pairs are left largest
 * first for the reader's fallback (MD5: the largest bias alone). Two
 * 0.0006 of joint 4 sum to 0.0012 and count. */
static void fallback_and_merge_before_threshold(void **state)
{
    (void)state;
    ossa__influence p[] = {{1, 0, 0.0002}, {3, 1, 0.0009}, {2, 2, 0}};
    ossa__influence_stats st;
    assert_int_equal(ossa__influences_limit(p, 3, &iqm_sdk, &st), 0);
    assert_int_equal(st.merged, 2);
    expect_pair(&p[0], 3, 0.0009);
    expect_pair(&p[1], 1, 0.0002);

    ossa__influence q[] = {{4, 0, 0.0006}, {8, 1, 0.001}, {4, 2, 0.0006}};
    assert_int_equal(ossa__influences_limit(q, 3, &iqm_sdk, NULL), 1);
    assert_int_equal(q[0].joint, 4);
    assert_true(q[0].weight == 0.0006 + 0.0006);
}

/* Past 16 pairs the lists are sorted rather than searched: 20 pairs of
 * weight 1 on joints i % 5 merge into 5 joints of 4 each; ties by first
 * place keep joints 0 to 3, a quarter each. Not-a-number and infinite
 * weights move nothing. */
static void long_lists(void **state)
{
    (void)state;
    ossa__influence p[22];
    for (uint32_t i = 0; i < 20; i++) p[i] = (ossa__influence){i % 5, i, 1.0};
    p[20] = (ossa__influence){7, 20, strtod("nan", NULL)};
    p[21] = (ossa__influence){8, 21, strtod("inf", NULL)};
    ossa__influence_stats st;
    assert_int_equal(ossa__influences_limit(p, 22, &iqm_sdk, &st), 4);
    assert_int_equal(st.merged, 5);
    for (uint32_t k = 0; k < 4; k++) expect_pair(&p[k], k, 4.0);
    float w[4];
    ossa__influences_normalize(p, 4, 4, w);
    for (int k = 0; k < 4; k++) assert_true(w[k] == 0.25f);
}

static void influence_max(void **state)
{
    (void)state;
    assert_int_equal(ossa__influence_max(0), 4);
    assert_int_equal(ossa__influence_max(3), 3);
    assert_int_equal(ossa__influence_max(OSSA_MAX_COMPONENTS), OSSA_MAX_COMPONENTS);
    assert_int_equal(ossa__influence_max(100), OSSA_MAX_COMPONENTS);
}

/* Through a reader: an IQE `vb` line with joint 1 twice (0.25 + 0.25), a
 * weight of 0.001 on joint 5 (dropped: not above 0.001 as a float) and 5
 * influences for 4 slots: 0.5 (j1), 0.2 (j0), 0.15 (j2), 0.1 (j3) stay,
 * 0.05 (j4) goes; their sum 0.95. */
static void through_iqe(void **state)
{
    (void)state;
    static const char text[] = "# Inter-Quake Export\n"
                               "joint a -1\npq 0 0 0 0 0 0 1\njoint b 0\npq 0 0 0 0 0 0 1\n"
                               "joint c 0\npq 0 0 0 0 0 0 1\njoint d 0\npq 0 0 0 0 0 0 1\n"
                               "joint e 0\npq 0 0 0 0 0 0 1\njoint f 0\npq 0 0 0 0 0 0 1\n"
                               "vertexarray blendweights float 4\n"
                               "vp 0 0 0\nvb 1 0.25 0 0.2 4 0.05 2 0.15 1 0.25 3 0.1 5 0.001\n"
                               "vp 1 0 0\nvb 0 1\nvp 0 1 0\nvb 0 1\nfm 0 1 2\n";
    ossa_model *m = ts_load(text, sizeof text - 1);
    float idx[4], w[4];
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL), 0, 1, idx);
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL), 0, 1, w);
    const float ej[4] = {1, 0, 2, 3};
    const double ew[4] = {0.5, 0.2, 0.15, 0.1};
    double sum = (double)0.5f + (double)0.2f + (double)0.15f + (double)0.1f;
    for (int k = 0; k < 4; k++) {
        assert_true(idx[k] == ej[k]);
        assert_true(w[k] == (float)((double)(float)ew[k] / sum));
    }
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_drop_cut_renormalize),
        cmocka_unit_test(normalized_weights_kept),
        cmocka_unit_test(tolerance_counts_slots),
        cmocka_unit_test(in_order_keeps_slots),
        cmocka_unit_test(ties_by_order_key),
        cmocka_unit_test(fallback_and_merge_before_threshold),
        cmocka_unit_test(long_lists),
        cmocka_unit_test(influence_max),
        cmocka_unit_test(through_iqe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
