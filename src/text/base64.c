/* Base64 of text/text.h (RFC 4648 §4: the alphabet A-Z a-z 0-9 + /, '='
 * padding), one codec for every format that embeds bytes in text: glTF's
 * data URIs and stored extras, FBX's ASCII Video Content.
 *
 * Decoding is a table lookup per character into a 6-bit accumulator; a byte
 * is out whenever 8 bits are in. Strict and lenient decoding differ only
 * in which characters they skip and in what they make of a last character
 * that holds less than a byte (see ossa_base64_mode). */
#include "text/text.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The 6-bit value of each character; SKIP for what lenient decoding steps
 * over (space, CR, LF, '='), BAD for everything else outside the
 * alphabet. */
enum { BAD = 64, SKIP = 65 };
#define BAD16 BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD
static const unsigned char value[256] = {
    /* 0x00 */ BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, SKIP, BAD, BAD, SKIP, BAD, BAD,
    /* 0x10 */ BAD16,
    /* 0x20 ' ' .. '/' */ SKIP, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, BAD, 62, BAD, BAD, BAD, 63,
    /* 0x30 '0' .. '?' */ 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, BAD, BAD, BAD, SKIP, BAD, BAD,
    /* 0x40 '@' 'A' .. 'O' */ BAD, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    /* 0x50 'P' .. 'Z' */ 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, BAD, BAD, BAD, BAD, BAD,
    /* 0x60 '`' 'a' .. 'o' */ BAD, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
    /* 0x70 'p' .. 'z' */ 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, BAD, BAD, BAD, BAD, BAD,
    BAD16, BAD16, BAD16, BAD16, BAD16, BAD16, BAD16, BAD16};
#undef BAD16

size_t ossa__base64_encoded_size(size_t n) { return (n + 2) / 3 * 4; }

size_t ossa__base64_decoded_max(size_t len) { return len / 4 * 3 + 3; }

void ossa__base64_encode(const unsigned char *in, size_t n, char *out)
{
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = alphabet[(v >> 6) & 63];
        *out++ = alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        *out++ = '=';
    }
}

bool ossa__base64_decode(const char *in, size_t len, ossa_base64_mode mode, unsigned char *out,
                         size_t *out_size, size_t *bad)
{
    bool lenient = mode == OSSA_BASE64_LENIENT;
    size_t end = len;
    /* Strict: up to two '=' of padding, only at the end. */
    if (!lenient)
        for (int k = 0; k < 2 && end > 0 && in[end - 1] == '='; k++) end--;
    uint32_t acc = 0;
    unsigned bits = 0;
    size_t n = 0;
    for (size_t i = 0; i < end; i++) {
        unsigned v = value[(unsigned char)in[i]];
        if (v >= BAD) {
            if (v == SKIP && lenient) continue;
            *bad = i;
            return false;
        }
        acc = (acc << 6) | v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    /* Strict: a last group of one character holds six bits, which make no
     * byte; padding cannot stand for the two missing bits. */
    if (!lenient && end % 4 == 1) {
        *bad = end - 1;
        return false;
    }
    *out_size = n;
    return true;
}
