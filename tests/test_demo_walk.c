/* The demo character's animations against the floor (cli/demo/walk.c,
 * idle.c): the walk is in place, its feet never go more than a little
 * through the floor, a foot on the ground moves back at one steady speed
 * (the walking speed: with that speed added as root motion it stands
 * still), the feet take turns in the air; in the idle the feet stay put
 * while the body moves. And the IQM file stays under 100 KB. Vertices are
 * skinned by demo_test.h, in double precision. */
#include "demo_test.h"

/* Whether vertex v is part of a shoe of `side` ("_l" or "_r"): its largest
 * influence is that side's foot or toe. */
static int on_foot(const ossa_model *m, const float *idx, uint32_t v, const char *side)
{
    const char *name = m->joints[(uint32_t)idx[v * 4]].name;
    size_t n = strlen(name);
    return n > 2 && strcmp(name + n - 2, side) == 0 &&
           (strncmp(name, "foot", 4) == 0 || strncmp(name, "toe", 3) == 0);
}

static void test_walk_feet_on_the_floor(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    int a = dmt_animation(m, "walk");
    uint32_t frames = m->animations[a].num_frames, nv = m->num_vertices;
    double fps = m->animations[a].framerate;
    float *idx = dmt_array(m, OSSA_VERTEX_BLENDINDEXES);
    static const char *const sides[2] = {"_l", "_r"};
    double *pose = NULL, *next = dmt_skin(m, a, 0);
    int down[2][64] = {{0}};
    double deepest = INFINITY;
    /* Moves of sole vertices that touch the floor at two frames in a row. */
    double (*moves)[3] = malloc(2 * 64 * 64 * sizeof *moves);
    size_t num_moves = 0;
    assert_true(frames <= 64 && moves);
    for (uint32_t f = 0; f < frames; f++) {
        free(pose);
        pose = next;
        next = dmt_skin(m, a, (f + 1) % frames);
        for (int s = 0; s < 2; s++) {
            double lowest = INFINITY;
            for (uint32_t v = 0; v < nv; v++) {
                if (!on_foot(m, idx, v, sides[s])) continue;
                lowest = fmin(lowest, pose[v * 3 + 2]);
                if (pose[v * 3 + 2] < 0.001 && next[v * 3 + 2] < 0.001 && num_moves < 2 * 64 * 64) {
                    for (int k = 0; k < 3; k++) moves[num_moves][k] = next[v * 3 + k] - pose[v * 3 + k];
                    num_moves++;
                }
            }
            /* Never more than 1 cm through the floor. */
            if (lowest < -0.01) fail_msg("frame %u: the %s foot is %.4f m under the floor", f, sides[s], -lowest);
            down[s][f] = lowest < 0.005;
            deepest = fmin(deepest, lowest);
        }
    }
    /* The feet take turns: each is down for about 60% of the cycle and in
     * the air for the rest, the left down at frame 0 (its heel strikes),
     * the right half a cycle later; both down at some moments, never both
     * up. */
    int both = 0;
    for (int s = 0; s < 2; s++) {
        int n = 0;
        for (uint32_t f = 0; f < frames; f++) n += down[s][f];
        assert_true(n >= frames * 0.5 && n <= frames * 0.75);
    }
    for (uint32_t f = 0; f < frames; f++) {
        assert_true(down[0][f] || down[1][f]);
        both += down[0][f] && down[1][f];
    }
    assert_true(both >= 2);
    assert_true(down[0][0] && down[1][frames / 2]);
    /* What touches the floor moves back (+Y, the character faces -Y) at
     * one speed, a walking speed, and neither sideways nor up or down:
     * the median move, and every move within 3 mm of it. */
    assert_true(num_moves > 100);
    double median[3];
    for (int k = 0; k < 3; k++) {
        double *c = malloc(num_moves * sizeof *c);
        assert_non_null(c);
        for (size_t i = 0; i < num_moves; i++) c[i] = moves[i][k];
        for (size_t i = 1; i < num_moves; i++)
            for (size_t j = i; j > 0 && c[j] < c[j - 1]; j--) {
                double t = c[j];
                c[j] = c[j - 1], c[j - 1] = t;
            }
        median[k] = c[num_moves / 2];
        free(c);
    }
    double speed = median[1] * fps;
    printf("walk: lowest point %.4f m; %zu moves of sole vertices on the floor, median %.5f %.5f "
           "%.5f m (%.3f m/s)\n",
           deepest, num_moves, median[0], median[1], median[2], speed);
    assert_true(speed > 0.7 && speed < 1.8);
    assert_true(fabs(median[0]) < 0.001 && fabs(median[2]) < 0.001);
    for (size_t i = 0; i < num_moves; i++) {
        double d = 0;
        for (int k = 0; k < 3; k++) d += pow(moves[i][k] - median[k], 2);
        if (sqrt(d) > 0.003) fail_msg("a sole vertex on the floor slides %.4f m off the belt's move", sqrt(d));
    }
    /* In place: the pelvis stays over the origin. */
    int pelvis = dmt_joint(m, "pelvis");
    for (uint32_t f = 0; f < frames; f++) {
        const float *t = m->animations[a].frames[(size_t)f * m->num_joints + (uint32_t)pelvis].translation;
        assert_true(fabs(t[0]) < 0.05 && fabs(t[1]) < 0.02);
    }
    free(pose), free(next), free(idx), free(moves);
    ossa_model_free(m);
}

/* In the walk the swinging foot passes the other one: each ankle reaches
 * at least 20 cm before and behind the hips. */
static void test_walk_strides(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    int a = dmt_animation(m, "walk");
    int foot[2] = {dmt_joint(m, "foot_l"), dmt_joint(m, "foot_r")};
    for (int s = 0; s < 2; s++) {
        double front = 0, back = 0;
        for (uint32_t f = 0; f < m->animations[a].num_frames; f++) {
            double *jp = dmt_joint_positions(m, a, f);
            front = fmin(front, jp[foot[s] * 3 + 1]);
            back = fmax(back, jp[foot[s] * 3 + 1]);
            free(jp);
        }
        assert_true(front < -0.2 && back > 0.2);
    }
    ossa_model_free(m);
}

/* Standing: the feet do not move, while the pelvis shifts the weight from
 * one to the other (at least 3 cm across) and the chest breathes. */
static void test_idle_feet_stay(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    int a = dmt_animation(m, "idle");
    int feet[4] = {dmt_joint(m, "foot_l"), dmt_joint(m, "foot_r"), dmt_joint(m, "toe_l"), dmt_joint(m, "toe_r")};
    int pelvis = dmt_joint(m, "pelvis"), chest = dmt_joint(m, "spine_02");
    double *first = dmt_joint_positions(m, a, 0);
    double left = INFINITY, right = -INFINITY, chest_moves = 0;
    for (uint32_t f = 0; f < m->animations[a].num_frames; f++) {
        double *jp = dmt_joint_positions(m, a, f);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++) TS_ASSERT_NEAR(jp[feet[i] * 3 + k], first[feet[i] * 3 + k], 0.001);
        left = fmin(left, jp[pelvis * 3]), right = fmax(right, jp[pelvis * 3]);
        double d = 0;
        for (int k = 0; k < 3; k++) d += pow(jp[chest * 3 + k] - first[chest * 3 + k], 2);
        chest_moves = fmax(chest_moves, sqrt(d));
        free(jp);
    }
    assert_true(right - left > 0.03);
    assert_true(chest_moves > 0.005);
    free(first);
    ossa_model_free(m);
}

/* Small: the IQM file of the whole character, texture aside (it goes
 * beside the file), is under 100 KB. */
static void test_iqm_size(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    size_t size;
    unsigned char *iqm = ts_write(m, NULL, &size);
    printf("demo.iqm: %zu bytes\n", size);
    assert_true(size < 100000);
    ossa_free(iqm, NULL);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk_feet_on_the_floor),
        cmocka_unit_test(test_walk_strides),
        cmocka_unit_test(test_idle_feet_stay),
        cmocka_unit_test(test_iqm_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
