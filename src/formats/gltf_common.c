/* glTF helpers shared by the reader and the writer: the axis conversion,
 * double-precision matrices, base64 and float formatting. */
#include "gltf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* -- Axis conversion -- */

void ossa__gltf_transform_to_gltf(const ossa_transform *in, ossa_transform *out)
{
    ossa_transform t = *in;
    gltf_vec_to_gltf(in->translation, t.translation);
    gltf_vec_to_gltf(in->rotation, t.rotation); /* vector part; w is kept */
    gltf_scale_swap(in->scale, t.scale);
    *out = t;
}

void ossa__gltf_transform_from_gltf(const ossa_transform *in, ossa_transform *out)
{
    ossa_transform t = *in;
    gltf_vec_from_gltf(in->translation, t.translation);
    gltf_vec_from_gltf(in->rotation, t.rotation);
    gltf_scale_swap(in->scale, t.scale);
    *out = t;
}

/* -- Matrices -- */

void ossa__gltf_mat_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++)
            r[c * 4 + row] = a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] +
                             a[8 + row] * b[c * 4 + 2] + a[12 + row] * b[c * 4 + 3];
    memcpy(out, r, sizeof r);
}

bool ossa__gltf_mat_invert(const double m[16], double out[16])
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

void ossa__gltf_mat_to_trs(const double m[16], ossa_transform *t)
{
    double s[3], c[3][3];
    for (int k = 0; k < 3; k++) {
        s[k] = sqrt(m[k * 4] * m[k * 4] + m[k * 4 + 1] * m[k * 4 + 1] + m[k * 4 + 2] * m[k * 4 + 2]);
        for (int row = 0; row < 3; row++) c[k][row] = s[k] > 0 ? m[k * 4 + row] / s[k] : 0;
        t->translation[k] = (float)m[12 + k];
    }
    double det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) -
                 c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    if (det < 0) {
        s[0] = -s[0];
        for (int row = 0; row < 3; row++) c[0][row] = -c[0][row];
    }
    /* Rotation matrix to quaternion (Shepperd's method); c[col][row]. */
    double r00 = c[0][0], r11 = c[1][1], r22 = c[2][2], q[4];
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
    for (int k = 0; k < 4; k++) t->rotation[k] = n > 0 && isfinite(n) ? (float)(q[k] / n) : k == 3;
    for (int k = 0; k < 3; k++) t->scale[k] = (float)s[k];
}

/* -- Base64 -- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t ossa__base64_encoded_size(size_t n) { return (n + 2) / 3 * 4; }

void ossa__base64_encode(const unsigned char *in, size_t n, char *out)
{
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *out++ = b64[v >> 18];
        *out++ = b64[(v >> 12) & 63];
        *out++ = b64[(v >> 6) & 63];
        *out++ = b64[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        *out++ = b64[v >> 18];
        *out++ = b64[(v >> 12) & 63];
        *out++ = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        *out++ = '=';
    }
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

bool ossa__base64_decode(const char *in, size_t len, unsigned char *out, size_t *out_size,
                         size_t *bad)
{
    size_t end = len;
    /* Up to two '=' of padding, only at the end. */
    for (int k = 0; k < 2 && end > 0 && in[end - 1] == '='; k++) end--;
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (size_t i = 0; i < end; i++) {
        int v = b64_value((unsigned char)in[i]);
        if (v < 0) {
            *bad = i;
            return false;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (end % 4 == 1) { /* six bits cannot make a byte */
        *bad = end - 1;
        return false;
    }
    *out_size = n;
    return true;
}

/* -- Numbers -- */

void ossa__gltf_float_text(float v, char buf[32])
{
    if (!isfinite(v)) {
        strcpy(buf, "0");
        return;
    }
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(buf, 32, "%.*g", prec, (double)v);
        if ((float)strtod(buf, NULL) == v) break;
    }
}
