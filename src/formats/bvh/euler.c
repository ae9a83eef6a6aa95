/* Euler angles of the six BVH rotation orders (docs/formats/bvh.md §4):
 * channels listed A B C mean R = R_A(a) * R_B(b) * R_C(c) for column
 * vectors, angles in degrees. Double precision throughout. */
#include "formats/bvh/bvh.h"

#include <math.h>

static const double DEG = 3.14159265358979323846 / 180.0;

bool ossa__bvh_order_parse(const char *name, size_t len, bvh_order *out)
{
    if (len != 3) return false;
    bool seen[3] = {false};
    for (int i = 0; i < 3; i++) {
        char c = name[i];
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if (c < 'X' || c > 'Z' || seen[c - 'X']) return false;
        seen[c - 'X'] = true;
        out->axis[i] = (uint8_t)(c - 'X');
    }
    return true;
}

void ossa__bvh_euler_to_quat(const bvh_order *order, const double deg[3], double q[4])
{
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    for (int i = 0; i < 3; i++) {
        double h = deg[i] * DEG * 0.5, r[4] = {0, 0, 0, cos(h)};
        r[order->axis[i]] = sin(h);
        ossa__quatd_mul(q, r, q);
    }
}

/* Row-major 3x3 matrix of a unit quaternion: m[r][c]. */
static void quat_to_matrix(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1 - 2 * (y * y + z * z);
    m[0][1] = 2 * (x * y - z * w);
    m[0][2] = 2 * (x * z + y * w);
    m[1][0] = 2 * (x * y + z * w);
    m[1][1] = 1 - 2 * (x * x + z * z);
    m[1][2] = 2 * (y * z - x * w);
    m[2][0] = 2 * (x * z - y * w);
    m[2][1] = 2 * (y * z + x * w);
    m[2][2] = 1 - 2 * (x * x + y * y);
}

/* The angle nearest `ref` among a + 360 k. */
static double near_turn(double a, double ref)
{
    return a + 360.0 * floor((ref - a) / 360.0 + 0.5);
}

void ossa__bvh_quat_to_euler(const bvh_order *order, const double q[4], const double *prev,
                             double deg[3])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double u[4] = {0, 0, 0, 1};
    if (n > 0 && isfinite(n))
        for (int k = 0; k < 4; k++) u[k] = q[k] / n;
    double m[3][3];
    quat_to_matrix(u, m);
    int i = order->axis[0], j = order->axis[1], k = order->axis[2];
    /* s = +1 for the cyclic orders XYZ, YZX, ZXY, -1 for the others. With
     * R = R_i(a) R_j(b) R_k(c): m[i][k] = s sin b, m[i][i] = cos b cos c,
     * m[i][j] = -s cos b sin c, m[k][k] = cos a cos b, m[j][k] = -s sin a cos b. */
    double s = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0;
    double cb = hypot(m[i][i], m[i][j]);
    double a, b, c;
    b = atan2(s * m[i][k], cb);
    if (cb > 1e-9) {
        a = atan2(-s * m[j][k], m[k][k]);
        c = atan2(-s * m[i][j], m[i][i]);
    } else {
        /* Gimbal lock: a and c turn about one axis; c keeps its previous
         * value and a takes the rest from R R_k(-c) = R_i(a) R_j(b), whose
         * column j is R_i(a) e_j: (m'[j][j], m'[k][j]) = (cos a, s sin a). */
        c = prev ? prev[2] * DEG : 0;
        double cc = cos(c), sc = sin(c);
        /* R_k(t) e_j = cos t e_j - s sin t e_i, so R_k(-c) e_j = cos c e_j
         * + s sin c e_i, and column j of R R_k(-c) combines R's columns
         * j and i so. */
        double mj[3];
        for (int r = 0; r < 3; r++) mj[r] = cc * m[r][j] + s * sc * m[r][i];
        a = atan2(s * mj[k], mj[j]);
    }
    double sol[2][3] = {{a / DEG, b / DEG, c / DEG},
                        {a / DEG + 180.0, 180.0 - b / DEG, c / DEG + 180.0}};
    int best = 0;
    double best_d = 0;
    for (int t = 0; t < 2; t++) {
        double d2 = 0;
        for (int x = 0; x < 3; x++) {
            double ref = prev ? prev[x] : 0;
            sol[t][x] = near_turn(sol[t][x], ref);
            d2 += (sol[t][x] - ref) * (sol[t][x] - ref);
        }
        if (t == 0 || d2 < best_d) {
            best = t;
            best_d = d2;
        }
    }
    memcpy(deg, sol[best], sizeof sol[best]);
}
