/* The one slerp every reader, the resampler and the runtime's reference
 * sampler use (ossa__quat_slerp): values worked out from the half-angle
 * formulas, the shorter arc, keys that are not unit, degenerate keys, and
 * nearly equal keys. */
#include "support.h"

#include <math.h>

#include "math/math.h"

static void assert_quat(const float got[4], double x, double y, double z, double w, double tol)
{
    const double want[4] = {x, y, z, w};
    for (int c = 0; c < 4; c++)
        if (fabs(got[c] - want[c]) > tol)
            fail_msg("component %d: %.9g, expected %.9g", c, (double)got[c], want[c]);
}

static void test_quarter_turns(void **state)
{
    (void)state;
    const double pi = 3.14159265358979323846;
    /* Identity to 90 degrees about z: at t the rotation is 90 t degrees,
     * (0, 0, sin(45 t deg), cos(45 t deg)). */
    const float a[4] = {0, 0, 0, 1};
    const float b[4] = {0, 0, (float)sin(pi / 4), (float)cos(pi / 4)};
    const double ts[] = {0, 0.25, 0.5, 0.75, 1};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        float q[4];
        ossa__quat_slerp(a, b, ts[i], q);
        assert_quat(q, 0, 0, sin(pi / 4 * ts[i]), cos(pi / 4 * ts[i]), 1e-7);
    }
    /* 120 degrees about x to 120 degrees about y: the midpoint is the
     * normalized sum (exact for any arc), (s, s, 0, 2c) / |...| with s =
     * sin 60, c = cos 60. */
    const float c[4] = {(float)sin(pi / 3), 0, 0, (float)cos(pi / 3)};
    const float d[4] = {0, (float)sin(pi / 3), 0, (float)cos(pi / 3)};
    double s = sin(pi / 3), h = cos(pi / 3), n = sqrt(2 * s * s + 4 * h * h);
    float q[4];
    ossa__quat_slerp(c, d, 0.5, q);
    assert_quat(q, s / n, s / n, 0, 2 * h / n, 1e-7);
}

static void test_shorter_arc_and_scale(void **state)
{
    (void)state;
    /* -b is the same rotation as b: the result goes the short way, as for
     * b; keys scaled by 3 and 0.5 give what the unit keys give. */
    const float a[4] = {0.1f, 0.2f, 0.3f, 0.9273618f};
    const float b[4] = {-0.5f, 0.1f, 0.2f, 0.83666f};
    float nb[4], a3[4], bh[4], want[4], got[4];
    for (int k = 0; k < 4; k++) nb[k] = -b[k], a3[k] = 3 * a[k], bh[k] = 0.5f * b[k];
    ossa__quat_slerp(a, b, 0.3, want);
    ossa__quat_slerp(a, nb, 0.3, got);
    assert_quat(got, want[0], want[1], want[2], want[3], 1e-7);
    ossa__quat_slerp(a3, bh, 0.3, got);
    assert_quat(got, want[0], want[1], want[2], want[3], 1e-7);
    double len = 0;
    for (int k = 0; k < 4; k++) len += (double)want[k] * want[k];
    assert_true(fabs(len - 1) < 1e-6);
}

static void test_degenerate_and_near_keys(void **state)
{
    (void)state;
    const float unit[4] = {0, 0.6f, 0, 0.8f}, zero[4] = {0, 0, 0, 0};
    const float inf[4] = {INFINITY, 0, 0, 1};
    float q[4];
    /* No rotation to take from a key of length 0 or infinite: identity. */
    ossa__quat_slerp(zero, unit, 0.5, q);
    assert_quat(q, 0, 0, 0, 1, 0);
    ossa__quat_slerp(unit, inf, 0.5, q);
    assert_quat(q, 0, 0, 0, 1, 0);
    /* Keys one float step apart: a linear blend, still unit. */
    const float near[4] = {0, nextafterf(0.6f, 1), 0, 0.8f};
    ossa__quat_slerp(unit, near, 0.5, q);
    assert_quat(q, 0, 0.6, 0, 0.8, 1e-7);
    assert_true(isfinite(q[1]) && isfinite(q[3]));
    /* Equal keys: the key itself at every t. */
    ossa__quat_slerp(unit, unit, 0.7, q);
    assert_quat(q, 0, 0.6, 0, 0.8, 1e-7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quarter_turns),
        cmocka_unit_test(test_shorter_arc_and_scale),
        cmocka_unit_test(test_degenerate_and_near_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
