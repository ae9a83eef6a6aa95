/* Quaternions and 4x4 matrices (column-major, element [col*4+row]). */
#include "math/math.h"

#include <string.h>

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

/* -- Double precision -- */

void ossa__mat4d_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            r[c * 4 + row] = a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] +
                             a[8 + row] * b[c * 4 + 2] + a[12 + row] * b[c * 4 + 3];
    memcpy(out, r, sizeof r);
}

bool ossa__mat4d_invert_affine(const double m[16], double out[16])
{
    /* 3x3 part by cofactors, then the translation. */
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6],
           i = m[10];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    if (det == 0 || !isfinite(det)) return false;
    double inv = 1 / det, r[16];
    r[0] = A * inv;
    r[1] = B * inv;
    r[2] = C * inv;
    r[4] = -(b * i - c * h) * inv;
    r[5] = (a * i - c * g) * inv;
    r[6] = -(a * h - b * g) * inv;
    r[8] = (b * f - c * e) * inv;
    r[9] = -(a * f - c * d) * inv;
    r[10] = (a * e - b * d) * inv;
    r[3] = r[7] = r[11] = 0;
    for (int row = 0; row < 3; row++)
        r[12 + row] = -(r[row] * m[12] + r[4 + row] * m[13] + r[8 + row] * m[14]);
    r[15] = 1;
    memcpy(out, r, sizeof r);
    return true;
}

void ossa__quat_from_rotation(const double c[3][3], double q[4])
{
    double r00 = c[0][0], r11 = c[1][1], r22 = c[2][2];
    double tr = r00 + r11 + r22;
    if (tr > 0) {
        double k = sqrt(tr + 1) * 2;
        q[3] = k / 4;
        q[0] = (c[1][2] - c[2][1]) / k;
        q[1] = (c[2][0] - c[0][2]) / k;
        q[2] = (c[0][1] - c[1][0]) / k;
    } else if (r00 > r11 && r00 > r22) {
        double k = sqrt(1 + r00 - r11 - r22) * 2;
        q[3] = (c[1][2] - c[2][1]) / k;
        q[0] = k / 4;
        q[1] = (c[1][0] + c[0][1]) / k;
        q[2] = (c[2][0] + c[0][2]) / k;
    } else if (r11 > r22) {
        double k = sqrt(1 + r11 - r00 - r22) * 2;
        q[3] = (c[2][0] - c[0][2]) / k;
        q[0] = (c[1][0] + c[0][1]) / k;
        q[1] = k / 4;
        q[2] = (c[2][1] + c[1][2]) / k;
    } else {
        double k = sqrt(1 + r22 - r00 - r11) * 2;
        q[3] = (c[0][1] - c[1][0]) / k;
        q[0] = (c[2][0] + c[0][2]) / k;
        q[1] = (c[2][1] + c[1][2]) / k;
        q[2] = k / 4;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0) || !isfinite(n)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    for (int k = 0; k < 4; k++) q[k] /= n;
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

void ossa__mat4d_to_transform(const double m[16], ossa_transform *t)
{
    double c[3][3], s[3];
    for (int k = 0; k < 3; k++) {
        for (int r = 0; r < 3; r++) c[k][r] = m[k * 4 + r];
        s[k] = sqrt(c[k][0] * c[k][0] + c[k][1] * c[k][1] + c[k][2] * c[k][2]);
    }
    double x12[3];
    cross3(c[1], c[2], x12);
    if (c[0][0] * x12[0] + c[0][1] * x12[1] + c[0][2] * x12[2] < 0) s[0] = -s[0];
    double r[3][3];
    int zero = 0;
    for (int k = 0; k < 3; k++) {
        if (s[k] != 0)
            for (int i = 0; i < 3; i++) r[k][i] = c[k][i] / s[k];
        else {
            zero++;
            for (int i = 0; i < 3; i++) r[k][i] = i == k;
        }
    }
    if (zero == 1) {
        for (int k = 0; k < 3; k++)
            if (s[k] == 0) {
                cross3(r[(k + 1) % 3], r[(k + 2) % 3], r[k]);
                double n = sqrt(r[k][0] * r[k][0] + r[k][1] * r[k][1] + r[k][2] * r[k][2]);
                for (int i = 0; i < 3; i++) r[k][i] = n > 0 ? r[k][i] / n : i == k;
            }
    } else if (zero > 1) {
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 3; i++) r[k][i] = i == k;
    }
    double q[4];
    ossa__quat_from_rotation((const double(*)[3])r, q);
    for (int i = 0; i < 4; i++) t->rotation[i] = (float)q[i];
    for (int i = 0; i < 3; i++) {
        t->translation[i] = (float)m[12 + i];
        t->scale[i] = (float)s[i];
    }
}

void ossa__quat_slerp(const float a[4], const float b[4], double t, float out[4])
{
    double qa[4], qb[4], la = 0, lb = 0, dot = 0;
    for (int k = 0; k < 4; k++) {
        qa[k] = a[k], qb[k] = b[k];
        la += qa[k] * qa[k];
        lb += qb[k] * qb[k];
    }
    if (!(la > 0 && isfinite(la) && lb > 0 && isfinite(lb))) {
        out[0] = out[1] = out[2] = 0, out[3] = 1;
        return;
    }
    la = 1 / sqrt(la), lb = 1 / sqrt(lb);
    for (int k = 0; k < 4; k++) {
        qa[k] *= la, qb[k] *= lb;
        dot += qa[k] * qb[k];
    }
    double sign = dot < 0 ? -1 : 1;
    dot = fabs(dot);
    double wa = 1 - t, wb = t;
    if (dot < 1 - 1e-12) {
        double angle = acos(dot), s = sin(angle);
        wa = sin((1 - t) * angle) / s;
        wb = sin(t * angle) / s;
    }
    wb *= sign;
    double r[4], len = 0;
    for (int k = 0; k < 4; k++) {
        r[k] = wa * qa[k] + wb * qb[k];
        len += r[k] * r[k];
    }
    if (!(len > 0 && isfinite(len))) {
        out[0] = out[1] = out[2] = 0, out[3] = 1;
        return;
    }
    len = 1 / sqrt(len);
    for (int k = 0; k < 4; k++) out[k] = (float)(r[k] * len);
}

void ossa__quatd_mul(const double a[4], const double b[4], double out[4])
{
    double r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    };
    for (int i = 0; i < 4; i++) out[i] = r[i];
}

void ossa__quatd_rotate(const double q[4], const double v[3], double out[3])
{
    double c[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2], q[0] * v[1] - q[1] * v[0]};
    double cc[3] = {q[1] * c[2] - q[2] * c[1], q[2] * c[0] - q[0] * c[2],
                    q[0] * c[1] - q[1] * c[0]};
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = v[i] + 2 * (q[3] * c[i] + cc[i]);
    for (int i = 0; i < 3; i++) out[i] = r[i];
}

/* -- Affine 3x4 in double -- */

void ossa__affine_from_trs(const float t[3], const float q[4], const float s[3], double m[12])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double n = x * x + y * y + z * z + w * w;
    /* 2 / |q|^2 keeps the matrix a rotation for quaternions a little off
     * unit length, as normalizing first would. */
    double k = n > 0 ? 2 / n : 0;
    double r[9] = {1 - k * (y * y + z * z), k * (x * y + w * z),     k * (x * z - w * y),
                   k * (x * y - w * z),     1 - k * (x * x + z * z), k * (y * z + w * x),
                   k * (x * z + w * y),     k * (y * z - w * x),     1 - k * (x * x + y * y)};
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) m[c * 3 + row] = r[c * 3 + row] * s[c];
    for (int row = 0; row < 3; row++) m[9 + row] = t[row];
}

void ossa__affine_mul(const double a[12], const double b[12], double out[12])
{
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 3; row++)
            out[c * 3 + row] = a[row] * b[c * 3] + a[3 + row] * b[c * 3 + 1] +
                               a[6 + row] * b[c * 3 + 2] + (c == 3 ? a[9 + row] : 0);
}

/* -- Boxes -- */

void ossa__box_grow(double box[6], const double p[3], int *any)
{
    for (int c = 0; c < 3; c++) {
        if (!*any || p[c] < box[c]) box[c] = p[c];
        if (!*any || p[c] > box[3 + c]) box[3 + c] = p[c];
    }
    *any = 1;
}

void ossa__box_grow_joints(double box[6], int *any, uint32_t n, const int32_t *parents,
                           const ossa_transform *bind, double (*world)[12])
{
    for (uint32_t j = 0; j < n; j++) {
        const ossa_transform *b = &bind[j];
        double local[12];
        ossa__affine_from_trs(b->translation, b->rotation, b->scale, local);
        int32_t p = parents[j];
        if (p >= 0 && (uint32_t)p < j)
            ossa__affine_mul(world[p], local, world[j]);
        else
            memcpy(world[j], local, sizeof local);
        if (isfinite(world[j][9] + world[j][10] + world[j][11])) ossa__box_grow(box, world[j] + 9, any);
    }
}

double ossa__box_size(const double box[6])
{
    double dx = box[3] - box[0], dy = box[4] - box[1], dz = box[5] - box[2];
    double size = sqrt(dx * dx + dy * dy + dz * dz);
    return size > 0 && isfinite(size) ? size : 1;
}
