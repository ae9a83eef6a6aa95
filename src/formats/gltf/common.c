/* glTF helpers shared by the reader and the writer: the axis conversion,
 * double-precision matrices, base64 and float formatting. */
#include "formats/gltf/gltf.h"
#include "text/text.h"

#include <math.h>

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
    /* The one shortest formatter of text/: snprintf would follow the C
     * locale, and a program that called setlocale() with a decimal comma
     * would get invalid JSON. */
    if (!isfinite(v)) {
        strcpy(buf, "0");
        return;
    }
    buf[ossa__text_format_float(buf, v)] = 0;
}
