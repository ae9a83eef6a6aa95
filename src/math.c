/* Quaternions and 4x4 matrices (column-major, element [col*4+row]). */
#include "internal.h"

#include <math.h>

ossa_transform ossa_transform_identity(void)
{
    ossa_transform t = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
    return t;
}

void ossa__quat_normalize(float q[4])
{
    double n = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    if (!(n > 0) || !isfinite(n)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    double inv = 1.0 / sqrt(n);
    for (int i = 0; i < 4; i++) q[i] = (float)(q[i] * inv);
}

void ossa__quat_tidy(float q[4])
{
    double n = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    if (n > 1 - OSSA_QUAT_TOLERANCE && n < 1 + OSSA_QUAT_TOLERANCE) return;
    ossa__quat_normalize(q);
}

void ossa_transform_to_matrix(const ossa_transform *t, float m[16])
{
    float x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
    float wx = w * x, wy = w * y, wz = w * z;
    float sx = t->scale[0], sy = t->scale[1], sz = t->scale[2];
    m[0] = (1 - 2 * (yy + zz)) * sx;
    m[1] = 2 * (xy + wz) * sx;
    m[2] = 2 * (xz - wy) * sx;
    m[3] = 0;
    m[4] = 2 * (xy - wz) * sy;
    m[5] = (1 - 2 * (xx + zz)) * sy;
    m[6] = 2 * (yz + wx) * sy;
    m[7] = 0;
    m[8] = 2 * (xz + wy) * sz;
    m[9] = 2 * (yz - wx) * sz;
    m[10] = (1 - 2 * (xx + yy)) * sz;
    m[11] = 0;
    m[12] = t->translation[0];
    m[13] = t->translation[1];
    m[14] = t->translation[2];
    m[15] = 1;
}

void ossa__transform_to_mat4d(const ossa_transform *t, double m[16])
{
    double x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    double n = x * x + y * y + z * z + w * w;
    if (n > 0 && isfinite(n)) {
        n = 1 / sqrt(n);
        x *= n, y *= n, z *= n, w *= n;
    } else {
        x = y = z = 0, w = 1;
    }
    double sx = t->scale[0], sy = t->scale[1], sz = t->scale[2];
    m[0] = (1 - 2 * (y * y + z * z)) * sx;
    m[1] = 2 * (x * y + w * z) * sx;
    m[2] = 2 * (x * z - w * y) * sx;
    m[3] = 0;
    m[4] = 2 * (x * y - w * z) * sy;
    m[5] = (1 - 2 * (x * x + z * z)) * sy;
    m[6] = 2 * (y * z + w * x) * sy;
    m[7] = 0;
    m[8] = 2 * (x * z + w * y) * sz;
    m[9] = 2 * (y * z - w * x) * sz;
    m[10] = (1 - 2 * (x * x + y * y)) * sz;
    m[11] = 0;
    m[12] = t->translation[0];
    m[13] = t->translation[1];
    m[14] = t->translation[2];
    m[15] = 1;
}

void ossa__mat4_mul(const float a[16], const float b[16], float out[16])
{
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            r[c * 4 + row] = a[0 * 4 + row] * b[c * 4 + 0] + a[1 * 4 + row] * b[c * 4 + 1] +
                             a[2 * 4 + row] * b[c * 4 + 2] + a[3 * 4 + row] * b[c * 4 + 3];
    memcpy(out, r, sizeof r);
}

bool ossa__mat4_invert_affine(const float m[16], float out[16])
{
    /* 3x3 inverse by cofactors (in double), then -inv * translation. */
    double a = m[0], b = m[4], c = m[8];
    double d = m[1], e = m[5], f = m[9];
    double g = m[2], h = m[6], i = m[10];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    if (det == 0 || !isfinite(det)) return false;
    double s = 1.0 / det;
    double r[9] = {A * s, -(b * i - c * h) * s, (b * f - c * e) * s,
                   B * s, (a * i - c * g) * s,  -(a * f - c * d) * s,
                   C * s, -(a * h - b * g) * s, (a * e - b * d) * s};
    /* r is row-major: r[row*3+col] */
    double tx = m[12], ty = m[13], tz = m[14];
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++) out[col * 4 + row] = (float)r[row * 3 + col];
    out[3] = out[7] = out[11] = 0;
    out[12] = (float)-(r[0] * tx + r[1] * ty + r[2] * tz);
    out[13] = (float)-(r[3] * tx + r[4] * ty + r[5] * tz);
    out[14] = (float)-(r[6] * tx + r[7] * ty + r[8] * tz);
    out[15] = 1;
    return true;
}

bool ossa__finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

void ossa_local_to_model(const ossa_model *model, const ossa_transform *local, float (*out)[16])
{
    for (uint32_t j = 0; j < model->num_joints; j++) {
        float m[16];
        ossa_transform_to_matrix(&local[j], m);
        int32_t p = model->joints[j].parent;
        if (p >= 0 && (uint32_t)p < j)
            ossa__mat4_mul(out[p], m, out[j]);
        else
            memcpy(out[j], m, sizeof m);
    }
}
