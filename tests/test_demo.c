/* The demo character of `ossa demo` (cli/demo/), as it is built: its
 * skeleton and standing bind pose, a closed mesh wound as ossa wants,
 * skinning weights that sum to one and change smoothly across joints,
 * animations whose loops close, a walk whose feet stay on the floor, an
 * idle whose feet stay put, and the size of its IQM file. The expected
 * skeleton is written out here; poses and skinning are computed by
 * demo_test.h in double precision. */
#include "demo_test.h"

/* -- Skeleton -- */

static const struct {
    const char *name, *parent;
} expected_joints[] = {
    {"pelvis", NULL},           {"spine_01", "pelvis"},       {"spine_02", "spine_01"},
    {"neck", "spine_02"},       {"head", "neck"},             {"clavicle_l", "spine_02"},
    {"upper_arm_l", "clavicle_l"}, {"lower_arm_l", "upper_arm_l"}, {"hand_l", "lower_arm_l"},
    {"clavicle_r", "spine_02"}, {"upper_arm_r", "clavicle_r"}, {"lower_arm_r", "upper_arm_r"},
    {"hand_r", "lower_arm_r"},  {"thigh_l", "pelvis"},        {"calf_l", "thigh_l"},
    {"foot_l", "calf_l"},       {"toe_l", "foot_l"},          {"thigh_r", "pelvis"},
    {"calf_r", "thigh_r"},      {"foot_r", "calf_r"},         {"toe_r", "foot_r"},
};
#define NUM_EXPECTED (sizeof expected_joints / sizeof expected_joints[0])

static void test_skeleton(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    assert_int_equal(m->num_joints, NUM_EXPECTED);
    for (size_t i = 0; i < NUM_EXPECTED; i++) {
        int j = dmt_joint(m, expected_joints[i].name);
        int p = m->joints[j].parent;
        if (!expected_joints[i].parent) {
            assert_int_equal(p, -1);
            continue;
        }
        assert_true(p >= 0 && p < j); /* parents come first */
        assert_string_equal(m->joints[p].name, expected_joints[i].parent);
    }
    /* Facing -Y with the left side at +X, Z up: the left hand at +X, the
     * head above the pelvis above the feet, the toes in front (-Y) of the
     * ankles. */
    double *jp = dmt_joint_positions(m, -1, 0);
    const double *hand_l = &jp[dmt_joint(m, "hand_l") * 3], *hand_r = &jp[dmt_joint(m, "hand_r") * 3];
    const double *head = &jp[dmt_joint(m, "head") * 3], *pelvis = &jp[dmt_joint(m, "pelvis") * 3];
    const double *foot = &jp[dmt_joint(m, "foot_l") * 3], *toe = &jp[dmt_joint(m, "toe_l") * 3];
    assert_true(hand_l[0] > 0.1 && hand_r[0] < -0.1);
    assert_true(head[2] > 1.4 && head[2] < 1.7 && pelvis[2] > 0.8 && pelvis[2] < 1.1);
    assert_true(foot[2] < 0.15 && toe[1] < foot[1] - 0.05);
    free(jp);
    ossa_model_free(m);
}

static void test_bind_pose_stands(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    double *p = dmt_skin(m, -1, 0);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < m->num_vertices; v++)
        for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], p[v * 3 + k]), hi[k] = fmax(hi[k], p[v * 3 + k]);
    /* About 1.75 m tall, standing on z = 0, narrower than tall. */
    TS_ASSERT_NEAR(lo[2], 0, 1e-6);
    assert_true(hi[2] > 1.70 && hi[2] < 1.80);
    assert_true(hi[0] - lo[0] < 0.4 * hi[2]);
    /* What touches the floor are the shoes: every vertex within 5 mm of
     * it is bound mostly to a foot or a toe. */
    float *idx = dmt_array(m, OSSA_VERTEX_BLENDINDEXES);
    int foot_l = dmt_joint(m, "foot_l"), toe_l = dmt_joint(m, "toe_l");
    int foot_r = dmt_joint(m, "foot_r"), toe_r = dmt_joint(m, "toe_r");
    uint32_t on_floor = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        if (p[v * 3 + 2] > 0.005) continue;
        int j = (int)idx[v * 4];
        assert_true(j == foot_l || j == toe_l || j == foot_r || j == toe_r);
        on_floor++;
    }
    assert_true(on_floor >= 8);
    /* The face looks to -Y: the frontmost point of the head (the nose) is
     * further from the neck's line than the back of the head. */
    double front = 0, back = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++)
        if (p[v * 3 + 2] > 1.55) front = fmin(front, p[v * 3 + 1]), back = fmax(back, p[v * 3 + 1]);
    assert_true(front < -0.1 && back < 0.1 && -front > back);
    free(idx);
    free(p);
    ossa_model_free(m);
}

/* -- Mesh -- */

/* Every edge, with vertices taken by position (the texture's seams repeat
 * positions), has exactly one twin running the other way: the surface is
 * closed and consistently wound. And each triangle, taken clockwise as
 * ossa's front faces are, faces the way its vertex normals point. */
static void test_mesh_closed_and_outward(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    uint32_t nv = m->num_vertices, nt = m->num_triangles;
    float *pos = dmt_array(m, OSSA_VERTEX_POSITION), *nrm = dmt_array(m, OSSA_VERTEX_NORMAL);
    /* Weld: the first vertex with the same position. */
    uint32_t *weld = malloc(nv * sizeof *weld);
    assert_non_null(weld);
    for (uint32_t v = 0; v < nv; v++) {
        weld[v] = v;
        for (uint32_t u = 0; u < v; u++)
            if (memcmp(&pos[u * 3], &pos[v * 3], 3 * sizeof(float)) == 0) {
                weld[v] = u;
                break;
            }
    }
    uint64_t *edges = malloc(3 * (size_t)nt * sizeof *edges);
    assert_non_null(edges);
    for (uint32_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            uint64_t a = weld[m->triangles[t].v[k]], b = weld[m->triangles[t].v[(k + 1) % 3]];
            assert_true(a != b);
            edges[t * 3 + k] = a << 32 | b;
        }
    for (size_t e = 0; e < 3 * (size_t)nt; e++) {
        uint64_t twin = edges[e] >> 32 | edges[e] << 32;
        int same = 0, opposite = 0;
        for (size_t f = 0; f < 3 * (size_t)nt; f++) same += edges[f] == edges[e], opposite += edges[f] == twin;
        assert_int_equal(same, 1);
        assert_int_equal(opposite, 1);
    }
    for (uint32_t t = 0; t < nt; t++) {
        const float *p0 = &pos[m->triangles[t].v[0] * 3], *p1 = &pos[m->triangles[t].v[1] * 3],
                    *p2 = &pos[m->triangles[t].v[2] * 3];
        double a[3], b[3], n[3], sum[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) a[k] = p2[k] - p0[k], b[k] = p1[k] - p0[k];
        n[0] = a[1] * b[2] - a[2] * b[1], n[1] = a[2] * b[0] - a[0] * b[2], n[2] = a[0] * b[1] - a[1] * b[0];
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 3; k++) sum[k] += nrm[m->triangles[t].v[c] * 3 + k];
        assert_true(n[0] * sum[0] + n[1] * sum[1] + n[2] * sum[2] > 0);
    }
    for (uint32_t v = 0; v < nv; v++) {
        const float *n = &nrm[v * 3];
        TS_ASSERT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1, 1e-5);
    }
    free(edges), free(weld), free(pos), free(nrm);
    ossa_model_free(m);
}

/* -- Weights -- */

static void test_weights_sum_to_one(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    const ossa_vertex_array *ai = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *aw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    /* Bytes, as IQM files keep them: 255 is a weight of 1. */
    assert_int_equal(aw->format, OSSA_UBYTE);
    assert_int_equal(aw->size, 4);
    assert_int_equal(ai->size, 4);
    const uint8_t *w = aw->data;
    float *idx = dmt_array(m, OSSA_VERTEX_BLENDINDEXES), *wf = dmt_array(m, OSSA_VERTEX_BLENDWEIGHTS);
    uint32_t *used = calloc(m->num_joints, sizeof *used);
    assert_non_null(used);
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        int sum = 0;
        double fsum = 0;
        for (int k = 0; k < 4; k++) {
            sum += w[v * 4 + k];
            fsum += wf[v * 4 + k];
            if (k > 0) assert_true(w[v * 4 + k] <= w[v * 4 + k - 1]); /* largest first */
            if (w[v * 4 + k]) {
                assert_true(idx[v * 4 + k] < m->num_joints);
                used[(uint32_t)idx[v * 4 + k]]++;
            }
        }
        assert_int_equal(sum, 255);
        TS_ASSERT_NEAR(fsum, 1, 1e-6);
    }
    /* Every joint moves some of the skin. */
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (!used[j]) fail_msg("joint '%s' influences no vertex", m->joints[j].name);
    free(used), free(idx), free(wf);
    ossa_model_free(m);
}

/* Weight of joint j on vertex v (decoded arrays). */
static double weight_of(const float *idx, const float *wt, uint32_t v, int j)
{
    double w = 0;
    for (int k = 0; k < 4; k++)
        if ((int)idx[v * 4 + k] == j) w += wt[v * 4 + k];
    return w;
}

/* No vertex bound wholly to a joint lies near one bound wholly to its
 * parent: the skin bends over a zone around each joint (8 cm or more at
 * elbows and knees, where the bend is largest), and along every edge of
 * the mesh the weights change by at most 1.2 in sum (a full switch from
 * one joint to another is 2). */
static void test_weights_smooth(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    uint32_t nv = m->num_vertices, nj = m->num_joints;
    float *pos = dmt_array(m, OSSA_VERTEX_POSITION), *idx = dmt_array(m, OSSA_VERTEX_BLENDINDEXES),
          *wt = dmt_array(m, OSSA_VERTEX_BLENDWEIGHTS);
    for (uint32_t j = 0; j < nj; j++) {
        int p = m->joints[j].parent;
        if (p < 0) continue;
        const char *name = m->joints[j].name;
        double need = strncmp(name, "lower_arm", 9) == 0 || strncmp(name, "calf", 4) == 0 ? 0.06 : 0.03;
        double nearest = INFINITY;
        for (uint32_t a = 0; a < nv; a++) {
            if (weight_of(idx, wt, a, (int)j) < 0.999) continue;
            for (uint32_t b = 0; b < nv; b++) {
                if (weight_of(idx, wt, b, p) < 0.999) continue;
                double d2 = 0;
                for (int k = 0; k < 3; k++) d2 += pow(pos[a * 3 + k] - pos[b * 3 + k], 2);
                nearest = fmin(nearest, sqrt(d2));
            }
        }
        if (nearest < need)
            fail_msg("'%s' and its parent '%s' hold vertices %.3f m apart wholly (want %.2f)", name,
                     m->joints[p].name, nearest, need);
    }
    for (uint32_t t = 0; t < m->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = m->triangles[t].v[k], b = m->triangles[t].v[(k + 1) % 3];
            double change = 0;
            for (uint32_t j = 0; j < nj; j++)
                change += fabs(weight_of(idx, wt, a, (int)j) - weight_of(idx, wt, b, (int)j));
            if (change > 1.2) fail_msg("edge %u-%u changes the weights by %.3f", a, b, change);
        }
    free(pos), free(idx), free(wt);
    ossa_model_free(m);
}

/* -- Animations -- */

/* Points that move with each joint: the joint and points 10 cm along its
 * three axes (ACL's virtual vertices: they show turns as well as moves).
 * 4 per joint, model space, at frame f. */
static double *moving_points(const ossa_model *m, int a, uint32_t f)
{
    dmt_xf *w = malloc(m->num_joints * sizeof *w);
    double *out = malloc(m->num_joints * 12 * sizeof *out);
    assert_true(w && out);
    dmt_world(m, &m->animations[a].frames[(size_t)f * m->num_joints], w);
    for (uint32_t j = 0; j < m->num_joints; j++)
        for (int k = 0; k < 4; k++) {
            double p[3] = {0, 0, 0};
            if (k) p[k - 1] = 0.1;
            dmt_apply(&w[j], p, &out[(j * 4 + (uint32_t)k) * 3]);
        }
    free(w);
    return out;
}

static double largest_move(const ossa_model *m, const double *a, const double *b)
{
    double d = 0;
    for (uint32_t i = 0; i < m->num_joints * 4; i++) {
        double s = 0;
        for (int k = 0; k < 3; k++) s += pow(a[i * 3 + k] - b[i * 3 + k], 2);
        d = fmax(d, sqrt(s));
    }
    return d;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* From the last frame to the first, the body moves as much as from one
 * frame to the next: at most 1.5 times the largest step between
 * consecutive frames (no jump), at least a third of the median step (the
 * last frame is not the first again, which would stall the loop). */
static void check_loop(const ossa_model *m, const char *name, uint32_t frames, float fps)
{
    int a = dmt_animation(m, name);
    const ossa_animation *an = &m->animations[a];
    assert_int_equal(an->num_frames, frames);
    TS_ASSERT_NEAR(an->framerate, fps, 0);
    assert_true(an->flags & OSSA_ANIMATION_LOOP);
    double *steps = malloc(frames * sizeof *steps);
    assert_non_null(steps);
    double *prev = moving_points(m, a, 0), *first = prev;
    for (uint32_t f = 1; f < frames; f++) {
        double *cur = moving_points(m, a, f);
        steps[f - 1] = largest_move(m, prev, cur);
        if (prev != first) free(prev);
        prev = cur;
    }
    double wrap = largest_move(m, prev, first), largest = 0;
    for (uint32_t f = 0; f + 1 < frames; f++) largest = fmax(largest, steps[f]);
    qsort(steps, frames - 1, sizeof *steps, compare_doubles);
    double median = steps[(frames - 1) / 2];
    printf("%s: last to first %.4f m, steps %.4f (median) to %.4f m\n", name, wrap, median, largest);
    assert_true(wrap <= 1.5 * largest);
    assert_true(wrap >= median / 3);
    assert_true(median > 0.001); /* it moves */
    free(prev), free(first), free(steps);
}

static void test_loops_close(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    assert_int_equal(m->num_animations, 2);
    check_loop(m, "walk", 32, 30);
    check_loop(m, "idle", 60, 15);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skeleton),
        cmocka_unit_test(test_bind_pose_stands),
        cmocka_unit_test(test_mesh_closed_and_outward),
        cmocka_unit_test(test_weights_sum_to_one),
        cmocka_unit_test(test_weights_smooth),
        cmocka_unit_test(test_loops_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
