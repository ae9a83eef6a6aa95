/* The few vector and quaternion operations the demo character needs to
 * shape its body and pose its joints. Quaternions are (x, y, z, w), as
 * in ossa.h; rotations act on column vectors. */
#include "demo.h"

#include <math.h>

void demo_v_sub(const float a[3], const float b[3], float out[3])
{
    for (int k = 0; k < 3; k++) out[k] = a[k] - b[k];
}

float demo_v_dot(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void demo_v_cross(const float a[3], const float b[3], float out[3])
{
    float c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    for (int k = 0; k < 3; k++) out[k] = c[k];
}

float demo_v_normalize(float v[3])
{
    float len = sqrtf(demo_v_dot(v, v));
    if (len > 0)
        for (int k = 0; k < 3; k++) v[k] /= len;
    return len;
}

void demo_q_mul(const float q[4], const float r[4], float out[4])
{
    float x = q[3] * r[0] + q[0] * r[3] + q[1] * r[2] - q[2] * r[1];
    float y = q[3] * r[1] - q[0] * r[2] + q[1] * r[3] + q[2] * r[0];
    float z = q[3] * r[2] + q[0] * r[1] - q[1] * r[0] + q[2] * r[3];
    float w = q[3] * r[3] - q[0] * r[0] - q[1] * r[1] - q[2] * r[2];
    out[0] = x, out[1] = y, out[2] = z, out[3] = w;
}

void demo_q_conj(const float q[4], float out[4])
{
    out[0] = -q[0], out[1] = -q[1], out[2] = -q[2], out[3] = q[3];
}

void demo_q_axis_angle(const float axis[3], double angle, float out[4])
{
    float s = (float)sin(angle / 2);
    for (int k = 0; k < 3; k++) out[k] = axis[k] * s;
    out[3] = (float)cos(angle / 2);
}

void demo_q_euler(double x, double y, double z, float out[4])
{
    static const float ax[3] = {1, 0, 0}, ay[3] = {0, 1, 0}, az[3] = {0, 0, 1};
    float qx[4], qy[4], qz[4], t[4];
    demo_q_axis_angle(ax, x, qx);
    demo_q_axis_angle(ay, y, qy);
    demo_q_axis_angle(az, z, qz);
    demo_q_mul(qy, qx, t);
    demo_q_mul(qz, t, out);
}

void demo_q_rotate(const float q[4], const float v[3], float out[3])
{
    /* v + 2 w (u x v) + 2 u x (u x v), u the vector part. */
    float t[3], u[3] = {q[0], q[1], q[2]}, c[3];
    demo_v_cross(u, v, t);
    for (int k = 0; k < 3; k++) t[k] *= 2;
    demo_v_cross(u, t, c);
    for (int k = 0; k < 3; k++) out[k] = v[k] + q[3] * t[k] + c[k];
}

void demo_q_from_basis(const float x[3], const float y[3], const float z[3], float out[4])
{
    /* The matrix [x y z] (columns); Shepperd's method: start from the
     * largest of w, x, y, z so that the square root is well away from 0. */
    double m00 = x[0], m11 = y[1], m22 = z[2];
    double trace = m00 + m11 + m22;
    double q[4];
    if (trace > 0) {
        double s = sqrt(trace + 1.0) * 2;
        q[3] = s / 4;
        q[0] = (y[2] - z[1]) / s;
        q[1] = (z[0] - x[2]) / s;
        q[2] = (x[1] - y[0]) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = sqrt(1.0 + m00 - m11 - m22) * 2;
        q[3] = (y[2] - z[1]) / s;
        q[0] = s / 4;
        q[1] = (y[0] + x[1]) / s;
        q[2] = (z[0] + x[2]) / s;
    } else if (m11 > m22) {
        double s = sqrt(1.0 + m11 - m00 - m22) * 2;
        q[3] = (z[0] - x[2]) / s;
        q[0] = (y[0] + x[1]) / s;
        q[1] = s / 4;
        q[2] = (z[1] + y[2]) / s;
    } else {
        double s = sqrt(1.0 + m22 - m00 - m11) * 2;
        q[3] = (x[1] - y[0]) / s;
        q[0] = (z[0] + x[2]) / s;
        q[1] = (z[1] + y[2]) / s;
        q[2] = s / 4;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) out[k] = (float)(q[k] / n);
}

float demo_smoothstep(float e0, float e1, float x)
{
    float t = (x - e0) / (e1 - e0);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3 - 2 * t);
}
