/* Numbers of every text format (src/text/number.c): the parser against
 * strtof on hand-picked and random tokens, token ends, the shortest
 * round-trip formatter against printf, and independence from the C
 * locale. */
#include "support.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/text.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return ts_rand(&rng_state); }

/* -- Numbers -- */

static float parse(const char *s)
{
    float f = -12345.0f;
    const char *end = ossa__text_parse_float(s, s + strlen(s), &f);
    if (!end) fail_msg("'%s' was not taken as a number", s);
    return f;
}

static void same_float(float a, float b, const char *text)
{
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    if (x != y && !(a != a && b != b))
        fail_msg("'%s': read %.9g (0x%08x), strtof gives %.9g (0x%08x)", text, a, x, b, y);
}

static void check_against_strtof(const char *s)
{
    same_float(parse(s), strtof(s, NULL), s);
}

static float random_float(void) { return ts_random_float(&rng_state); }

static void test_parse_float_strtof(void **state)
{
    (void)state;
    static const char *const fixed[] = {
        "0", "-0", "1", "-1", "0.5", ".5", "5.", "+2", "1e10", "1E-10", "3.4028235e38",
        "3.4028236e38", "3.40282357e38", "3.4028235677973366e38", "1e39", "1e-45", "1.4e-45",
        "7e-46", "7.1e-46", "7.006492321624085e-46", "7.006492321624086e-46", "1e-50",
        "1.17549435e-38", "1.1754942e-38", "0.00000000", "-0.00000000", "123456789012345678901234567890",
        "0.000000000000000000000000000000000000000000001401298464324817070923729583289916131280",
        "16777217", "16777219", "33554435", "0.1", "0.2", "0.3", "2.5e-8", "8388608.5",
        "8388609.5", "1.00000005960464477539062499", "1.000000059604644775390625",
        "1.00000005960464477539062501", "inf", "-Infinity", "1e99999", "1e-99999"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_against_strtof(fixed[i]);
    assert_true(isnan(parse("nan")));

    char buf[128];
    static const char *const formats[] = {"%.9g", "%.17g", "%g", "%.3e", "%.25g", "%.6f", "%.1g"};
    for (int i = 0; i < 200000; i++) {
        float f = random_float();
        snprintf(buf, sizeof buf, formats[i % 7], (double)f);
        check_against_strtof(buf);
        if (i % 7 == 0) same_float(parse(buf), f, buf); /* %.9g round-trips */
    }
    /* Random digit strings: 1-40 digits, a point anywhere, an exponent. */
    for (int i = 0; i < 100000; i++) {
        int n = 1 + (int)(rnd() % 40), point = (int)(rnd() % (uint64_t)(n + 1)), k = 0;
        if (rnd() & 1) buf[k++] = '-';
        for (int d = 0; d < n; d++) {
            if (d == point) buf[k++] = '.';
            buf[k++] = (char)('0' + rnd() % 10);
        }
        if (rnd() & 1) k += snprintf(buf + k, sizeof buf - (size_t)k, "e%d", (int)(rnd() % 100) - 60);
        buf[k] = 0;
        check_against_strtof(buf);
    }
    /* Tokens inside a line: digits are read up to eight at a time, so the
     * bytes after the token (a blank or newline, then more digits) must
     * neither be taken nor change the value. */
    for (int i = 0; i < 100000; i++) {
        int n = 1 + (int)(rnd() % 24), point = (int)(rnd() % (uint64_t)(n + 1)), k = 0;
        for (int d = 0; d < n; d++) {
            if (d == point) buf[k++] = '.';
            buf[k++] = (char)('0' + rnd() % 10);
        }
        int len = k;
        buf[k++] = " \n\t"[rnd() % 3];
        for (int extra = (int)(rnd() % 12); extra > 0; extra--) buf[k++] = (char)('0' + rnd() % 10);
        buf[k] = 0;
        float f = -1;
        const char *end = ossa__text_parse_float(buf, buf + k, &f);
        char token[64];
        memcpy(token, buf, (size_t)len);
        token[len] = 0;
        if (end != buf + len) fail_msg("'%s': the token should end after %d bytes", buf, len);
        same_float(f, strtof(token, NULL), token);
    }
    /* Exact midpoints between neighbouring floats, and next to them. */
    for (int i = 0; i < 20000; i++) {
        float f = fabsf(random_float());
        if (f == FLT_MAX) continue;
        double mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
        snprintf(buf, sizeof buf, "%.60g", mid);
        check_against_strtof(buf);
        snprintf(buf, sizeof buf, "%.17g", mid);
        check_against_strtof(buf);
        snprintf(buf, sizeof buf, "%.60g", nextafter(mid, 0));
        check_against_strtof(buf);
    }
}

static void test_parse_tokens(void **state)
{
    (void)state;
    float f;
    int64_t v;
    static const char *const bad[] = {"", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", "x", "1x",
                                      "0x10", "--1", "nanx", "1,5", "-.inf", ".nan", "1.5e", "+-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (ossa__text_parse_float(bad[i], bad[i] + strlen(bad[i]), &f))
            fail_msg("'%s' should not be a number", bad[i]);
    const char *s = "12.5\tnext";
    assert_ptr_equal(ossa__text_parse_float(s, s + strlen(s), &f), s + 4);
    assert_true(f == 12.5f);
    s = "-42 ";
    assert_ptr_equal(ossa__text_parse_int(s, s + strlen(s), &v), s + 3);
    assert_int_equal(v, -42);
    s = "4.0";
    assert_null(ossa__text_parse_int(s, s + 3, &v));
    s = "99999999999999999999";
    assert_null(ossa__text_parse_int(s, s + strlen(s), &v));
    /* The token may end at the end of the buffer (no NUL after it). */
    char digits[3] = {'1', '2', '5'};
    assert_ptr_equal(ossa__text_parse_float(digits, digits + 2, &f), digits + 2);
    assert_true(f == 12.0f);
}

/* The shortest of %.6g .. %.9g that reads back exactly. */
static size_t shortest_printf(float f, char *buf, size_t cap)
{
    for (int p = 6; p <= 9; p++) {
        snprintf(buf, cap, "%.*g", p, (double)f);
        if (strtof(buf, NULL) == f) return strlen(buf);
    }
    return strlen(buf);
}

static void test_format_float(void **state)
{
    (void)state;
    char out[OSSA_FLOAT_CHARS + 1], ref[64];
    static const struct {
        float f;
        const char *text;
    } cases[] = {{0.0f, "0"},          {-0.0f, "-0"},         {1.0f, "1"},
                 {0.1f, "0.1"},        {-2.5f, "-2.5"},       {1e-5f, "1e-05"},
                 {0.0001f, "0.0001"},  {123456792.0f, "123456790"}, {1e9f, "1e+09"},
                 {0.70710677f, "0.70710677"}, {3.4028235e38f, "3.4028235e+38"},
                 {1.4e-45f, "1e-45"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = ossa__text_format_float(out, cases[i].f);
        out[n] = 0;
        if (strcmp(out, cases[i].text) != 0)
            fail_msg("%.9g printed as '%s', expected '%s'", (double)cases[i].f, out, cases[i].text);
    }
    size_t n = ossa__text_format_float(out, INFINITY);
    out[n] = 0;
    assert_string_equal(out, "inf");
    for (int i = 0; i < 200000; i++) {
        float f = random_float();
        n = ossa__text_format_float(out, f);
        assert_true(n < sizeof out);
        out[n] = 0;
        same_float(strtof(out, NULL), f, out);
        same_float(parse(out), f, out);
        size_t r = shortest_printf(f, ref, sizeof ref);
        /* Never longer in significant digits than the printf search (the
         * exponent spelling may differ by a character or two). */
        if (n > r + 2) fail_msg("%s is longer than %s", out, ref);
    }
}

/* The parser does not depend on the C locale. */
static void test_locale(void **state)
{
    (void)state;
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "C.UTF-8"};
    const char *set = NULL;
    for (size_t i = 0; i < 4 && !set; i++) set = setlocale(LC_NUMERIC, names[i]);
    if (!set) printf("SKIP: no locale with a decimal comma installed; checked in C only\n");
    assert_true(parse("1.5") == 1.5f);
    assert_true(parse("-2.25") == -2.25f);
    assert_true(parse("3e-1") == 0.3f);
    char buf[OSSA_FLOAT_CHARS + 1];
    size_t n = ossa__text_format_float(buf, 1.5f);
    buf[n] = 0;
    assert_string_equal(buf, "1.5");
    setlocale(LC_NUMERIC, "C");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_float_strtof),
        cmocka_unit_test(test_parse_tokens),
        cmocka_unit_test(test_format_float),
        cmocka_unit_test(test_locale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
