/* Base64 of every format (src/text/base64.c): the test vectors of RFC 4648
 * §10 both ways, every byte value encoded and every character decoded,
 * both decoding modes on malformed text (the index of the first bad
 * character), and decoding into a buffer of exactly
 * ossa__base64_decoded_max bytes (ASan checks the writes). Expected texts
 * and bytes are Python's base64.b64encode and b64decode. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/text.h"

/* Decodes `text` into a buffer of exactly the advertised size plus a guard
 * byte that must survive. Returns whether it decoded; *out (malloc'd) and
 * *size, or *bad. */
static bool decode(const char *text, ossa_base64_mode mode, unsigned char **out, size_t *size,
                   size_t *bad)
{
    size_t len = strlen(text), cap = ossa__base64_decoded_max(len);
    unsigned char *buf = malloc(cap + 1);
    assert_non_null(buf);
    buf[cap] = 0xA5;
    *size = (size_t)-1;
    *bad = (size_t)-1;
    bool ok = ossa__base64_decode(text, len, mode, buf, size, bad);
    assert_int_equal(buf[cap], 0xA5);
    if (ok) assert_true(*size <= cap);
    *out = buf;
    return ok;
}

static void expect_bytes(const char *text, ossa_base64_mode mode, const void *bytes, size_t n)
{
    unsigned char *out;
    size_t size, bad;
    if (!decode(text, mode, &out, &size, &bad))
        fail_msg("'%s' did not decode (bad character %zu)", text, bad);
    assert_int_equal(size, n);
    if (n) assert_memory_equal(out, bytes, n);
    free(out);
}

static void expect_bad(const char *text, ossa_base64_mode mode, size_t at)
{
    unsigned char *out;
    size_t size, bad;
    if (decode(text, mode, &out, &size, &bad)) fail_msg("'%s' decoded (%zu bytes)", text, size);
    assert_int_equal(bad, at);
    free(out);
}

/* RFC 4648 §10. */
static const struct {
    const char *bytes, *text, *unpadded;
} rfc[] = {
    {"", "", ""},
    {"f", "Zg==", "Zg"},
    {"fo", "Zm8=", "Zm8"},
    {"foo", "Zm9v", "Zm9v"},
    {"foob", "Zm9vYg==", "Zm9vYg"},
    {"fooba", "Zm9vYmE=", "Zm9vYmE"},
    {"foobar", "Zm9vYmFy", "Zm9vYmFy"},
};

static void rfc_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rfc / sizeof rfc[0]; i++) {
        size_t n = strlen(rfc[i].bytes);
        char text[16];
        assert_int_equal(ossa__base64_encoded_size(n), strlen(rfc[i].text));
        memset(text, '#', sizeof text);
        ossa__base64_encode((const unsigned char *)rfc[i].bytes, n, text);
        assert_memory_equal(text, rfc[i].text, strlen(rfc[i].text));
        assert_int_equal(text[strlen(rfc[i].text)], '#'); /* no NUL, nothing more */
        for (int mode = OSSA_BASE64_STRICT; mode <= OSSA_BASE64_LENIENT; mode++) {
            expect_bytes(rfc[i].text, (ossa_base64_mode)mode, rfc[i].bytes, n);
            expect_bytes(rfc[i].unpadded, (ossa_base64_mode)mode, rfc[i].bytes, n);
        }
    }
    assert_int_equal(ossa__base64_encoded_size(0), 0);
    assert_int_equal(ossa__base64_encoded_size(1), 4);
    assert_int_equal(ossa__base64_encoded_size(3), 4);
    assert_int_equal(ossa__base64_encoded_size(4), 8);
    assert_int_equal(ossa__base64_decoded_max(0), 3);
    assert_int_equal(ossa__base64_decoded_max(8), 9);
}

/* Every byte value: 0..255 encoded is Python's
 * base64.b64encode(bytes(range(256))), whose first and last groups are
 * checked here, and decodes back in both modes; "+/" are 62 and 63. */
static void every_byte(void **state)
{
    (void)state;
    unsigned char bytes[256];
    for (int i = 0; i < 256; i++) bytes[i] = (unsigned char)i;
    size_t n = ossa__base64_encoded_size(sizeof bytes);
    assert_int_equal(n, 344);
    char *text = malloc(n + 1);
    ossa__base64_encode(bytes, sizeof bytes, text);
    text[n] = 0;
    assert_memory_equal(text, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g", 44);
    assert_string_equal(text + n - 12, "+fr7/P3+/w==");
    for (int mode = OSSA_BASE64_STRICT; mode <= OSSA_BASE64_LENIENT; mode++)
        expect_bytes(text, (ossa_base64_mode)mode, bytes, sizeof bytes);
    free(text);
    expect_bytes("+/+/", OSSA_BASE64_STRICT, "\xfb\xff\xbf", 3);
}

/* Each of the 256 byte values as the third of four characters: strict
 * decoding takes exactly the 64 of the alphabet (with its value), lenient
 * decoding those and space, CR, LF and '=' (skipped). */
static void every_character(void **state)
{
    (void)state;
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int c = 0; c < 256; c++) {
        const char *in = c ? memchr(alphabet, c, 64) : NULL;
        char text[4] = {'A', 'A', (char)c, 'A'};
        unsigned char out[8];
        for (int mode = OSSA_BASE64_STRICT; mode <= OSSA_BASE64_LENIENT; mode++) {
            size_t size = 0, bad = 0;
            bool ok = ossa__base64_decode(text, 4, (ossa_base64_mode)mode, out, &size, &bad);
            bool skipped = mode == OSSA_BASE64_LENIENT && (c == ' ' || c == '\r' || c == '\n' ||
                                                          c == '=');
            if (in) {
                /* "AA" then value v then 0: bytes 0, v >> 2, (v & 3) << 6 */
                unsigned v = (unsigned)(in - alphabet);
                assert_true(ok);
                assert_int_equal(size, 3);
                assert_int_equal(out[0], 0);
                assert_int_equal(out[1], v >> 2);
                assert_int_equal(out[2], (v & 3) << 6);
            } else if (skipped) {
                assert_true(ok);
                assert_int_equal(size, 2); /* "AAA": 18 bits, two bytes */
            } else {
                if (ok) fail_msg("character %d accepted in mode %d", c, mode);
                assert_int_equal(bad, 2);
            }
        }
    }
}

/* Strict (glTF): nothing but the alphabet and two '=' at the end. */
static void strict_malformed(void **state)
{
    (void)state;
    const ossa_base64_mode s = OSSA_BASE64_STRICT;
    expect_bad("Zm9v!", s, 4);
    expect_bad("Zm 9v", s, 2);
    expect_bad(" Zg==", s, 0);
    expect_bad("Zm9v\n", s, 4);
    expect_bad("Zm9v\r\nYmFy", s, 4);
    expect_bad("Zm9v\tYg", s, 4);
    expect_bad("Zg=A", s, 2);         /* '=' inside */
    expect_bad("Zg==Zg==", s, 2);     /* padding in the middle */
    expect_bad("Zg===", s, 2);        /* a third '=' */
    expect_bad("Z", s, 0);            /* six bits make no byte */
    expect_bad("Z=", s, 0);
    expect_bad("Zm9vY", s, 4);
    expect_bad("Zm9vY==", s, 4);
    expect_bad("Zm9v-_", s, 4);       /* the URL-safe alphabet (§5) is another one */
    expect_bad("Zm\xc3\xa9v", s, 2);  /* bytes above 127 */
    /* a NUL inside the given length is a character like any other */
    unsigned char out[8];
    size_t size = 0, bad = 0;
    assert_false(ossa__base64_decode("Zg\0=", 4, s, out, &size, &bad));
    assert_int_equal(bad, 2);
    /* "Zg=" is accepted: the padding is optional, one '=' as well as two;
     * padding alone is no data */
    expect_bytes("Zg=", s, "f", 1);
    expect_bytes("==", s, "", 0);
}

/* Lenient (FBX): space, CR, LF and '=' skipped anywhere; trailing bits
 * short of a byte dropped; anything else fails where it is. */
static void lenient(void **state)
{
    (void)state;
    const ossa_base64_mode l = OSSA_BASE64_LENIENT;
    expect_bytes("Zm9v\r\nYmFy", l, "foobar", 6);
    expect_bytes(" Zm 9v Ym Fy ", l, "foobar", 6);
    expect_bytes("Zg==Zg==", l, "f\x06\x60", 3);   /* b64decode("ZgZg") */
    expect_bytes("Z", l, "", 0);
    expect_bytes("Zm9vY", l, "foo", 3);            /* the Y's six bits dropped */
    expect_bytes("====", l, "", 0);
    expect_bytes("\n", l, "", 0);
    expect_bad("Zm9v\tYg", l, 4);                  /* tabs are not skipped */
    expect_bad("Zm9v!", l, 4);
    expect_bad("Zm9v-_", l, 4);
    expect_bad("Zm\xc3\xa9v", l, 2);
    unsigned char out[8];
    size_t size = 0, bad = 0;
    assert_false(ossa__base64_decode("Zg\0=", 4, l, out, &size, &bad));
    assert_int_equal(bad, 2);
}

/* Random bytes of every length up to 200: encode, decode in both modes,
 * same bytes; the encoded text with line breaks every 76 characters (MIME,
 * RFC 2045) still decodes leniently. */
static void round_trips(void **state)
{
    (void)state;
    uint64_t seed = 0x243F6A8885A308D3ull;
    unsigned char bytes[200];
    char text[300], wrapped[320];
    for (size_t n = 0; n <= sizeof bytes; n++) {
        for (size_t i = 0; i < n; i++) bytes[i] = (unsigned char)ts_rand(&seed);
        size_t len = ossa__base64_encoded_size(n);
        ossa__base64_encode(bytes, n, text);
        text[len] = 0;
        for (int mode = OSSA_BASE64_STRICT; mode <= OSSA_BASE64_LENIENT; mode++)
            expect_bytes(text, (ossa_base64_mode)mode, bytes, n);
        size_t w = 0;
        for (size_t i = 0; i < len; i++) {
            if (i && i % 76 == 0) wrapped[w++] = '\n';
            wrapped[w++] = text[i];
        }
        wrapped[w] = 0;
        expect_bytes(wrapped, OSSA_BASE64_LENIENT, bytes, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc_vectors), cmocka_unit_test(every_byte),
        cmocka_unit_test(every_character),
        cmocka_unit_test(strict_malformed), cmocka_unit_test(lenient),
        cmocka_unit_test(round_trips),
    };
    return cmocka_run_group_tests_name("text_base64", tests, NULL, NULL);
}
