/* The IQE reader and writer (formats/iqe.md): the number parser against
 * strtof, every command on small hand-written files with hand-computed
 * expectations, smoothing, errors with line and column, the real test
 * file, robustness under truncation and byte patches, and round trips
 * (IQE -> IQM -> IQE -> IQM byte identity, IQM -> IQE -> model). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/iqe/iqe.h"
#include "ossa.h"

/* -- Helpers -- */

static ossa_model *load_opts(const char *text, const ossa_load_options *opts, ossa_error *err)
{
    ossa_load_options o;
    if (opts)
        o = *opts;
    else
        memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQE;
    return ossa_load_memory(text, strlen(text), &o, err);
}

static ossa_model *load_with(const char *text, const ossa_load_options *opts)
{
    ossa_error err;
    ossa_model *m = load_opts(text, opts, &err);
    if (!m) {
        char buf[600];
        print_error("load failed: %s\n", ossa_error_format(&err, buf, sizeof buf));
    }
    assert_non_null(m);
    return m;
}

static ossa_model *load(const char *text) { return load_with(text, NULL); }

/* Loading must fail with `kind` at line:column. */
static void expect_error(const char *text, ossa_code kind, uint32_t line, uint32_t column)
{
    ossa_error err;
    ossa_model *m = load_opts(text, NULL, &err);
    if (m) {
        ossa_model_free(m);
        fail_msg("loading should fail at %u:%u", line, column);
    }
    char buf[600];
    if (err.code != kind || err.line != line || err.column != column)
        print_error("got %s: %s\n", ossa_code_name(err.code),
                    ossa_error_format(&err, buf, sizeof buf));
    assert_int_equal(err.code, kind);
    assert_int_equal(err.line, line);
    assert_int_equal(err.column, column);
}

static bool has_warning(const ossa_model *m, const char *needle, uint32_t line)
{
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (strstr(m->warnings[i].message, needle) && (!line || m->warnings[i].line == line))
            return true;
    return false;
}

static void near(double a, double b, double tol, const char *what, int line)
{
    if (!(fabs(a - b) <= tol)) fail_msg("line %d: %s: %.9g, expected %.9g", line, what, a, b);
}
#define NEAR(a, b, tol) near((a), (b), (tol), #a, __LINE__)

/* Vertex v of an array as floats. */
static void get(const ossa_model *m, ossa_vertex_type type, const char *name, uint32_t v, float *out)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, name);
    assert_non_null(a);
    assert_int_equal(ossa_vertex_array_read(m, a, v, 1, out), OSSA_OK);
}

static void expect3(const ossa_model *m, ossa_vertex_type type, uint32_t v, double x, double y,
                    double z, int line)
{
    float f[8];
    get(m, type, NULL, v, f);
    near(f[0], x, 1e-6, "x", line);
    near(f[1], y, 1e-6, "y", line);
    near(f[2], z, 1e-6, "z", line);
}
#define EXPECT3(m, type, v, x, y, z) expect3((m), (type), (v), (x), (y), (z), __LINE__)

static const ossa_vertex_array *array(const ossa_model *m, ossa_vertex_type type)
{
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    assert_non_null(a);
    return a;
}

static unsigned char *write_fmt(const ossa_model *m, ossa_format f, size_t *size)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = f;
    void *data;
    ossa_error err;
    ossa_status st = ossa_write_memory(m, &o, &data, size, &err);
    if (st) print_error("write failed: %s\n", err.message);
    assert_int_equal(st, OSSA_OK);
    return data;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

/* $OSSA_SHARED_DIR/data/<rel>, or NULL with a visible SKIP. */
static unsigned char *shared(const char *rel, size_t *size)
{
    const char *dir = getenv("OSSA_SHARED_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/data/%s", dir ? dir : "../shared", rel);
    unsigned char *p = read_file(path, size);
    if (!p) printf("SKIP: %s not found (shared test data)\n", path);
    return p;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

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

static float random_float(void)
{
    for (;;) {
        uint32_t u = (uint32_t)rnd();
        float f;
        memcpy(&f, &u, 4);
        if (isfinite(f)) return f;
    }
}

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
    ossa_model *m = load("# Inter-Quake Export\nvp 1.5 -2.25 3e-1\nfa 0 0 0\n");
    float out[OSSA_FLOAT_CHARS];
    assert_true(parse("1.5") == 1.5f);
    char buf[OSSA_FLOAT_CHARS + 1];
    size_t n = ossa__text_format_float(buf, 1.5f);
    buf[n] = 0;
    assert_string_equal(buf, "1.5");
    (void)out;
    ossa_model_free(m);
    setlocale(LC_NUMERIC, "C");
}

/* -- Commands -- */

static void test_header(void **state)
{
    (void)state;
    expect_error("vp 1 2 3\n", OSSA_ERROR_FORMAT, 1, 1);
    expect_error("\n\n# Inter-Quake\n", OSSA_ERROR_FORMAT, 3, 1);
    ossa_model *m = load("\xEF\xBB\xBF\n  \n# Inter-Quake Export (exported by hand)\n");
    assert_int_equal(m->num_vertices, 0);
    ossa_model_free(m);
    /* Detection by content: BOM, blank lines, text before the '#'. */
    const char *t = "\xEF\xBB\xBF\r\nfile: # Inter-Quake Export\r\n";
    assert_int_equal(ossa_format_detect(t, strlen(t)), OSSA_FORMAT_IQE);
    assert_int_equal(ossa_format_detect("# Inter-Quake", 13), OSSA_FORMAT_AUTO);
    assert_int_equal(ossa_format_from_name("model.IQE"), OSSA_FORMAT_IQE);
    assert_string_equal(ossa_format_name(OSSA_FORMAT_IQE), "iqe");
}

static void test_vertices(void **state)
{
    (void)state;
    /* vp defaults 0 0 0 1 (W not stored by default), vt 0 0, vn 0 0 0;
     * CRLF, tabs, comments and blank lines. */
    ossa_model *m = load("# Inter-Quake Export\r\n"
                         "\r\n"
                         "# a comment\n"
                         "vp 1 2 3\n"
                         "\tvt 0.5 0.25\n"
                         "\tvn 0 0 1\n"
                         "vp 4 5 6 2\r\n"
                         "\tvt 1\n"
                         "\tvn 0 1\n"
                         "vp 7 8   # trailing comment\n"
                         "\tvt 0 1\n"
                         "\tvn 1 0 0 9 9 9\n"
                         "fa 0 1 2\n");
    assert_int_equal(m->num_vertices, 3);
    assert_int_equal(m->num_triangles, 1);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "");
    assert_string_equal(m->meshes[0].material, "");
    assert_int_equal(array(m, OSSA_VERTEX_POSITION)->size, 3);
    assert_int_equal(array(m, OSSA_VERTEX_POSITION)->format, OSSA_FLOAT);
    EXPECT3(m, OSSA_VERTEX_POSITION, 0, 1, 2, 3);
    EXPECT3(m, OSSA_VERTEX_POSITION, 1, 4, 5, 6);
    EXPECT3(m, OSSA_VERTEX_POSITION, 2, 7, 8, 0);
    float f[8];
    get(m, OSSA_VERTEX_TEXCOORD, NULL, 1, f);
    assert_true(f[0] == 1 && f[1] == 0);
    get(m, OSSA_VERTEX_TEXCOORD, NULL, 0, f);
    assert_true(f[0] == 0.5f && f[1] == 0.25f);
    EXPECT3(m, OSSA_VERTEX_NORMAL, 1, 0, 1, 0);
    EXPECT3(m, OSSA_VERTEX_NORMAL, 2, 1, 0, 0);
    assert_int_equal(m->triangles[0].v[0], 0);
    assert_int_equal(m->triangles[0].v[1], 1);
    assert_int_equal(m->triangles[0].v[2], 2);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);

    /* vertexarray position float 4 keeps W (default 1). */
    m = load("# Inter-Quake Export\nvertexarray position float 4\n"
             "vp 1 2 3\nvp 4 5 6 2\nvp 7 8 9\nfa 0 1 2\n");
    assert_int_equal(array(m, OSSA_VERTEX_POSITION)->size, 4);
    get(m, OSSA_VERTEX_POSITION, NULL, 0, f);
    assert_true(f[3] == 1);
    get(m, OSSA_VERTEX_POSITION, NULL, 1, f);
    assert_true(f[3] == 2);
    ossa_model_free(m);
}

static void test_tangents(void **state)
{
    (void)state;
    /* Normal +Z, tangent +X everywhere; cross(n, t) = +Y. The 6-number
     * form takes the sign of dot(+Y, bitangent). */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vp 0 0 0\nvn 0 0 1\nvx 1 0 0\n"
                         "vp 1 0 0\nvn 0 0 1\nvx 1 0 0 -0.5\n"
                         "vp 1 1 0\nvn 0 0 1\nvx 1 0 0 0 -1 0\n"
                         "vp 0 1 0\nvn 0 0 1\nvx 1 0 0 0 2 0.5\n"
                         "vp 2 2 0\nvn 0 0 1\nvx 1 0 0 0\n"
                         "fa 0 1 2 3\nfa 0 3 4\n");
    const ossa_vertex_array *t = array(m, OSSA_VERTEX_TANGENT);
    assert_int_equal(t->size, 4);
    assert_int_equal(t->format, OSSA_FLOAT);
    static const float w[5] = {1, -1, -1, 1, 1};
    for (uint32_t v = 0; v < 5; v++) {
        float f[4];
        get(m, OSSA_VERTEX_TANGENT, NULL, v, f);
        assert_true(f[0] == 1 && f[1] == 0 && f[2] == 0);
        if (f[3] != w[v]) fail_msg("vertex %u: w %g, expected %g", v, f[3], w[v]);
    }
    assert_int_equal(m->num_triangles, 3); /* fan (0,1,2) (0,2,3), then (0,3,4) */
    ossa_model_free(m);
}

static void test_blend(void **state)
{
    (void)state;
    const char *text = "# Inter-Quake Export\n"
                       "joint a -1\njoint b 0\njoint c 0\njoint d 0\njoint e 0\njoint f 0\n"
                       "vp 0 0 0\nvb 2 0.1 0 0.5 1 0.0005 3 0.2 4 0.3 5 0.4\n"
                       "vp 1 0 0\nvb 1 0.25 1 0.25 0 0.5\n"
                       "vp 0 1 0\nvb\n"
                       "vp 1 1 0\nvb 3\n"
                       "fa 0 1 2\nfa 1 3 2\n";
    ossa_model *m = load(text);
    const ossa_vertex_array *bi = array(m, OSSA_VERTEX_BLENDINDEXES);
    const ossa_vertex_array *bw = array(m, OSSA_VERTEX_BLENDWEIGHTS);
    assert_int_equal(bi->format, OSSA_UBYTE);
    assert_int_equal(bw->format, OSSA_UBYTE);
    assert_int_equal(bi->size, 4);
    const uint8_t *I = bi->data, *W = bw->data;
    /* Vertex 0: 0.0005 dropped; the 4 largest of .5 .4 .3 .2 (.1 goes),
     * over 1.4: 91.07 72.86 54.64 36.43 of 255 -> floors 91 72 54 36 (253),
     * the 2 missing units to the largest remainders (.86, .64). */
    static const uint8_t i0[4] = {0, 5, 4, 3}, w0[4] = {91, 73, 55, 36};
    assert_memory_equal(I, i0, 4);
    assert_memory_equal(W, w0, 4);
    /* Vertex 1: joint 1 repeated -> 0.5, tie with joint 0 keeps file order;
     * 127.5 + 127.5 -> 127 + 127, the missing unit to the lower slot. */
    static const uint8_t i1[4] = {1, 0, 0, 0}, w1[4] = {128, 127, 0, 0};
    assert_memory_equal(I + 4, i1, 4);
    assert_memory_equal(W + 4, w1, 4);
    /* Vertices 2 and 3: no influence (a missing weight is 0). */
    static const uint8_t zero[8] = {0};
    assert_memory_equal(I + 8, zero, 8);
    assert_memory_equal(W + 8, zero, 8);
    ossa_model_free(m);

    /* Two influences kept: .5/.9 and .4/.9 -> 141.67 113.33 -> 142 113. */
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.max_influences = 2;
    m = load_with(text, &o);
    bi = array(m, OSSA_VERTEX_BLENDINDEXES);
    bw = array(m, OSSA_VERTEX_BLENDWEIGHTS);
    assert_int_equal(bi->size, 2);
    I = bi->data;
    W = bw->data;
    assert_int_equal(I[0], 0);
    assert_int_equal(I[1], 5);
    assert_int_equal(W[0], 142);
    assert_int_equal(W[1], 113);
    ossa_model_free(m);

    /* Eight kept while reading, but the float declaration has 4 slots:
     * .5 .4 .3 .2 renormalized over 1.4. */
    o.max_influences = 8;
    char *t2 = malloc(strlen(text) + 64);
    strcpy(t2, "# Inter-Quake Export\nvertexarray blendweights float 4\n");
    strcat(t2, text + strlen("# Inter-Quake Export\n"));
    m = load_with(t2, &o);
    bw = array(m, OSSA_VERTEX_BLENDWEIGHTS);
    assert_int_equal(bw->format, OSSA_FLOAT);
    assert_int_equal(bw->size, 4); /* the declaration limits the slots */
    float f[4];
    get(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, 0, f);
    NEAR(f[0], 0.5 / 1.4, 1e-6);
    NEAR(f[1], 0.4 / 1.4, 1e-6);
    NEAR(f[2], 0.3 / 1.4, 1e-6);
    NEAR(f[3], 0.2 / 1.4, 1e-6);
    ossa_model_free(m);
    free(t2);

    /* A long line: 40 pairs (sorted, not quadratic), joint 5 repeated:
     * 0.02 * 37 others, 5 gets 0.3 + 0.3, 7 gets 0.5: 5 then 7 first. */
    char line[2048] = "# Inter-Quake Export\n";
    for (int j = 0; j < 40; j++) sprintf(line + strlen(line), "joint j%d -1\n", j);
    strcat(line, "vp 0 0 0\nvb 5 0.3");
    for (int j = 0; j < 40; j++)
        if (j != 5 && j != 7) sprintf(line + strlen(line), " %d 0.02", j);
    strcat(line, " 7 0.5 5 0.3\nvp 1 0 0\nvb 0 1\nvp 0 1 0\nvb 0 1\nfa 0 1 2\n");
    m = load(line);
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, f);
    assert_true(f[0] == 5 && f[1] == 7 && f[2] == 0 && f[3] == 1);
    get(m, OSSA_VERTEX_BLENDWEIGHTS, NULL, 0, f);
    /* 0.6 0.5 0.02 0.02 over 1.14 */
    NEAR(f[0], 0.6 / 1.14, 1.0 / 255), NEAR(f[1], 0.5 / 1.14, 1.0 / 255);
    ossa_model_free(m);

    /* A joint above 255 does not fit ubyte indexes; ushort is fine. */
    char big[8192] = "# Inter-Quake Export\n";
    for (int j = 0; j < 300; j++) sprintf(big + strlen(big), "joint j%d -1\n", j);
    strcat(big, "vp 0 0 0\nvb 299 1\nvp 1 0 0\nvb 0 1\nvp 0 1 0\nvb 0 1\nfa 0 1 2\n");
    ossa_error err;
    assert_null(load_opts(big, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    char big2[8300] = "# Inter-Quake Export\nvertexarray blendindexes ushort 4\n";
    strcat(big2, big + strlen("# Inter-Quake Export\n"));
    m = load(big2);
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, f);
    assert_true(f[0] == 299);
    ossa_model_free(m);
}

static void test_colors_custom(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vertexarray custom3 ubyte 2 \"my data\"\n"
                         "vertexarray color float 3\n"
                         "vp 0 0 0\nvc 1 0.5\nv0 1 2\nv3 0.2 1\n"
                         "vp 1 0 0\nvc 0 0 0 0\nv0\nv3\n"
                         "vp 0 1 0\nvc\nv0 -1 -2 -3 -4\nv3 1 1\n"
                         "fa 0 1 2\n");
    float f[4];
    const ossa_vertex_array *c = array(m, OSSA_VERTEX_COLOR);
    assert_int_equal(c->format, OSSA_FLOAT);
    assert_int_equal(c->size, 3);
    get(m, OSSA_VERTEX_COLOR, NULL, 0, f);
    assert_true(f[0] == 1 && f[1] == 0.5f && f[2] == 0);
    const ossa_vertex_array *c0 = ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "custom0");
    assert_non_null(c0);
    assert_int_equal(c0->format, OSSA_FLOAT);
    assert_int_equal(c0->size, 4);
    get(m, OSSA_VERTEX_CUSTOM, "custom0", 2, f);
    assert_true(f[0] == -1 && f[1] == -2 && f[2] == -3 && f[3] == -4);
    get(m, OSSA_VERTEX_CUSTOM, "custom0", 0, f);
    assert_true(f[0] == 1 && f[1] == 2 && f[2] == 0 && f[3] == 0);
    const ossa_vertex_array *c3 = ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "my data");
    assert_non_null(c3);
    assert_int_equal(c3->format, OSSA_UBYTE);
    assert_int_equal(c3->size, 2);
    const uint8_t *b = c3->data;
    /* floor(0.2 * 255 + 0.5) = 51 */
    assert_int_equal(b[0], 51);
    assert_int_equal(b[1], 255);
    assert_int_equal(b[2], 0);
    ossa_model_free(m);

    /* Colour defaults: ubyte x4, missing alpha 1. */
    m = load("# Inter-Quake Export\nvp 0 0 0\nvc 1 0.5\nvp 1 0 0\nvc\nvp 0 1 0\nvc 0 0 1 0.25\n"
             "fa 0 1 2\n");
    c = array(m, OSSA_VERTEX_COLOR);
    assert_int_equal(c->format, OSSA_UBYTE);
    assert_int_equal(c->size, 4);
    static const uint8_t expect[12] = {255, 128, 0, 255, 0, 0, 0, 255, 0, 0, 255, 64};
    assert_memory_equal(c->data, expect, 12);
    ossa_model_free(m);
}

static void test_vertexarray_warnings(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vertexarray bogus float 3\n"
                         "vertexarray texcoord quad 2\n"
                         "vertexarray normal float 7\n"
                         "vertexarray normal half 3\n"
                         "frobnicate 1 2 3\n"
                         "vp 0 0 0\nvt 1 1\nvn 0 0 1\nvp 1 0 0\nvt 1 1\nvn 0 0 1\nvp 0 1 0\nvt 1 1\nvn 0 0 1\n"
                         "fa 0 1 2\n");
    assert_true(has_warning(m, "bogus", 2));
    assert_true(has_warning(m, "quad", 3));
    assert_true(has_warning(m, "7", 4));
    assert_true(has_warning(m, "declared again", 5));
    assert_true(has_warning(m, "frobnicate", 6));
    assert_int_equal(array(m, OSSA_VERTEX_TEXCOORD)->format, OSSA_FLOAT);
    assert_int_equal(array(m, OSSA_VERTEX_NORMAL)->size, 3);
    assert_int_equal(array(m, OSSA_VERTEX_NORMAL)->format, OSSA_FLOAT);
    ossa_model_free(m);
}

static void test_faces(void **state)
{
    (void)state;
    /* fm counts from the mesh's first vertex; negative indices count back
     * from the last vertex read, in fa and fm alike; repeated indices drop
     * the triangle; unreferenced vertex 1 goes. */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vp 0 0 0\nvp 1 0 0\n"
                         "mesh a\n"
                         "vp 0 1 0\nvp 1 1 0\nvp 2 2 0\n"
                         "fm 0 1 2\n"
                         "fa -1 -2 0\n"
                         "fm -3 1 0\n"
                         "fm 0 1\n");
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "a");
    assert_int_equal(m->num_vertices, 4);
    /* File order of the used vertices 0 2 3 4. */
    EXPECT3(m, OSSA_VERTEX_POSITION, 0, 0, 0, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, 1, 0, 1, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, 2, 1, 1, 0);
    EXPECT3(m, OSSA_VERTEX_POSITION, 3, 2, 2, 0);
    assert_int_equal(m->num_triangles, 2);
    static const uint32_t t[6] = {1, 2, 3, 3, 2, 0};
    for (int i = 0; i < 6; i++) assert_int_equal(m->triangles[i / 3].v[i % 3], t[i]);
    ossa_model_free(m);

    /* Polygons are fans; indices may point forward. */
    m = load("# Inter-Quake Export\nfa 0 1 2 3 4\n"
             "vp 0 0 0\nvp 1 0 0\nvp 2 1 0\nvp 1 2 0\nvp 0 1 0\n");
    assert_int_equal(m->num_triangles, 3);
    static const uint32_t fan[9] = {0, 1, 2, 0, 2, 3, 0, 3, 4};
    for (int i = 0; i < 9; i++) assert_int_equal(m->triangles[i / 3].v[i % 3], fan[i]);
    ossa_model_free(m);
}

static void test_soup(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n"
                         "mesh s\nmaterial m\n"
                         "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 2 0 0\nvp 3 0 0\nvp 2 1 0\nvp 9 9 9\n"
                         "mesh t\n"
                         "vp 0 0 1\nvp 1 0 1\nvp 0 1 1\n");
    assert_int_equal(m->num_meshes, 2);
    assert_string_equal(m->meshes[0].name, "s");
    assert_string_equal(m->meshes[0].material, "m");
    assert_int_equal(m->meshes[0].num_triangles, 2);
    assert_string_equal(m->meshes[1].name, "t");
    assert_string_equal(m->meshes[1].material, "m"); /* mesh does not reset it */
    assert_int_equal(m->meshes[1].num_triangles, 1);
    assert_int_equal(m->num_vertices, 9);
    assert_true(has_warning(m, "left over", 0));
    ossa_model_free(m);
}

static void test_mesh_merge(void **state)
{
    (void)state;
    /* Every (name, material) pair is one mesh wherever its faces are,
     * including after a mesh with no faces in between (iqm.md bug 2). */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 1 1 0\n"
                         "mesh A\nmaterial m1\nfa 0 1 2\n"
                         "mesh B\nfa 1 3 2\n"
                         "mesh A\nfa 0 3 1\n"
                         "mesh C\nmesh A\nfa 0 2 3\n"
                         "material m2\nfa 2 1 0\n"
                         "mesh \"A\"\nmaterial \"m1\"\nfa 3 2 1\n");
    assert_int_equal(m->num_meshes, 3);
    assert_string_equal(m->meshes[0].name, "A");
    assert_string_equal(m->meshes[0].material, "m1");
    assert_int_equal(m->meshes[0].num_triangles, 4);
    assert_string_equal(m->meshes[1].name, "B");
    assert_string_equal(m->meshes[1].material, "m1");
    assert_int_equal(m->meshes[1].num_triangles, 1);
    assert_string_equal(m->meshes[2].name, "A");
    assert_string_equal(m->meshes[2].material, "m2");
    assert_int_equal(m->meshes[2].num_triangles, 1);
    /* Each mesh has its own vertices: 4 + 3 + 3. */
    assert_int_equal(m->num_vertices, 10);
    assert_int_equal(m->meshes[1].first_vertex, 4);
    assert_int_equal(m->meshes[2].first_vertex, 7);
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        const ossa_mesh *me = &m->meshes[i];
        for (uint32_t t = me->first_triangle; t < me->first_triangle + me->num_triangles; t++)
            for (int k = 0; k < 3; k++) {
                assert_true(m->triangles[t].v[k] >= me->first_vertex);
                assert_true(m->triangles[t].v[k] < me->first_vertex + me->num_vertices);
            }
    }
    /* Quoted names with spaces. */
    ossa_model_free(m);
    m = load("# Inter-Quake Export\nmesh \"left arm\"\n\tmaterial \"skin 2.png\"\n"
             "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n");
    assert_string_equal(m->meshes[0].name, "left arm");
    assert_string_equal(m->meshes[0].material, "skin 2.png");
    ossa_model_free(m);
}

/* No line length limit (the compiler splits lines at 511 bytes). */
static void test_long_lines(void **state)
{
    (void)state;
    size_t cap = 40000;
    char *t = malloc(cap);
    strcpy(t, "# Inter-Quake Export\nmesh \"");
    for (int i = 0; i < 3000; i++) strcat(t, "ab");
    strcat(t, "\"\nvp 1");
    for (int i = 0; i < 2000; i++) strcat(t, " \t");
    strcat(t, "2 3\nvp 4 5 6\nvp 7 8 9\nfa 0 1 2");
    for (int i = 0; i < 1500; i++) strcat(t, "     ");
    strcat(t, "\n");
    ossa_model *m = load(t);
    assert_int_equal(strlen(m->meshes[0].name), 6000);
    EXPECT3(m, OSSA_VERTEX_POSITION, 0, 1, 2, 3);
    assert_int_equal(m->num_triangles, 1);
    ossa_model_free(m);
    free(t);
}

static void test_dedup(void **state)
{
    (void)state;
    /* Vertices 0 and 3 are identical, 4 differs from 0 only by its
     * tangent, 5 from 0 only by W: 0/3 merge, 4 and 5 stay. */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "vp 0 0 0\nvn 0 0 1\nvx 1 0 0 1\n"
                         "vp 1 0 0\nvn 0 0 1\nvx 1 0 0 1\n"
                         "vp 0 1 0\nvn 0 0 1\nvx 1 0 0 1\n"
                         "vp 0 0 0\nvn 0 0 1\nvx 1 0 0 1\n"
                         "vp 0 0 0\nvn 0 0 1\nvx 1 0 0 -1\n"
                         "vp 0 0 0 2\nvn 0 0 1\nvx 1 0 0 1\n"
                         "fa 0 1 2\nfa 3 1 2\nfa 4 1 2\nfa 5 1 2\n");
    assert_int_equal(m->num_vertices, 5);
    assert_int_equal(m->num_triangles, 4);
    assert_int_equal(m->triangles[1].v[0], m->triangles[0].v[0]);
    assert_true(m->triangles[2].v[0] != m->triangles[0].v[0]);
    assert_true(m->triangles[3].v[0] != m->triangles[0].v[0]);
    ossa_model_free(m);
}

/* -- Smoothing (§5) -- */

/* A unit cube on 8 shared corners, vertex index = x | y<<1 | z<<2, faces
 * wound so that cross(p2 - p0, p1 - p0) points outwards (worked out by
 * hand for each face: top [4 6 7 5] gives (0,0,1), and so on). */
#define CUBE_VERTICES                                                                          \
    "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 1 1 0\nvp 0 0 1\nvp 1 0 1\nvp 0 1 1\nvp 1 1 1\n"
#define FACE_TOP "fa 4 6 7 5\n"
#define FACE_BOTTOM "fa 0 1 3 2\n"
#define FACE_X0 "fa 0 2 6 4\n"
#define FACE_X1 "fa 1 5 7 3\n"
#define FACE_Y0 "fa 0 4 5 1\n"
#define FACE_Y1 "fa 2 3 7 6\n"
#define CUBE_FACES FACE_TOP FACE_BOTTOM FACE_X0 FACE_X1 FACE_Y0 FACE_Y1

/* The same faces as data, with their outward normals. */
static const int cube_faces[6][4] = {{4, 6, 7, 5}, {0, 1, 3, 2}, {0, 2, 6, 4},
                                     {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}};
static const int cube_normals[6][3] = {{0, 0, 1}, {0, 0, -1}, {-1, 0, 0},
                                       {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
enum { TOP = 1, BOTTOM = 2, SIDES = 0x3c, ALL = 0x3f };

/* §5 by hand: a smoothed normal is the normalized sum of the unnormalized
 * normals of the triangles whose corners join. Each quad splits into
 * (P0 P1 P2) and (P0 P2 P3), each of area 1/2 (|cross| = 1), so a face
 * adds its unit normal once per fan triangle touching the corner: P0 and
 * P2 twice, P1 and P3 once. `faces` is a bit mask of the faces that join. */
static void expected_normal(const float p[3], unsigned faces, double n[3])
{
    static const int fan[2][3] = {{0, 1, 2}, {0, 2, 3}};
    int c = (p[0] != 0) | (p[1] != 0) << 1 | (p[2] != 0) << 2;
    n[0] = n[1] = n[2] = 0;
    for (int f = 0; f < 6; f++) {
        if (!(faces & (1u << f))) continue;
        for (int t = 0; t < 2; t++)
            for (int k = 0; k < 3; k++)
                if (cube_faces[f][fan[t][k]] == c)
                    for (int a = 0; a < 3; a++) n[a] += cube_normals[f][a];
    }
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int a = 0; a < 3; a++) n[a] /= len;
}

static void check_normal(const float p[3], const float n[3], unsigned faces, int line)
{
    double e[3];
    expected_normal(p, faces, e);
    for (int k = 0; k < 3; k++)
        if (fabs(n[k] - e[k]) > 1e-6)
            fail_msg("line %d: at (%g %g %g): normal (%g %g %g), expected (%g %g %g)", line, p[0],
                     p[1], p[2], n[0], n[1], n[2], e[0], e[1], e[2]);
}

/* Every vertex smooth over all faces. */
static void check_smooth(const ossa_model *m, uint32_t expected_vertices, int line)
{
    assert_int_equal(m->num_vertices, expected_vertices);
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[4], n[4];
        get(m, OSSA_VERTEX_POSITION, NULL, v, p);
        get(m, OSSA_VERTEX_NORMAL, NULL, v, n);
        check_normal(p, n, ALL, line);
    }
}
#define CHECK_SMOOTH(m, count) check_smooth((m), (count), __LINE__)

/* Flat: each vertex normal is axis-aligned and the vertex lies on that
 * face; the check is by triangle below. */
static void check_flat(const ossa_model *m)
{
    assert_int_equal(m->num_vertices, 24);
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        float n0[4], p[3][4];
        get(m, OSSA_VERTEX_NORMAL, NULL, m->triangles[t].v[0], n0);
        for (int k = 0; k < 3; k++) {
            float n[4];
            get(m, OSSA_VERTEX_NORMAL, NULL, m->triangles[t].v[k], n);
            get(m, OSSA_VERTEX_POSITION, NULL, m->triangles[t].v[k], p[k]);
            assert_memory_equal(n, n0, 3 * sizeof(float));
        }
        /* axis = the coordinate shared by the three corners */
        int axis = -1;
        for (int c = 0; c < 3; c++)
            if (p[0][c] == p[1][c] && p[1][c] == p[2][c]) axis = c;
        assert_true(axis >= 0);
        for (int c = 0; c < 3; c++) {
            double e = c == axis ? (p[0][c] == 1 ? 1 : -1) : 0;
            NEAR(n0[c], e, 1e-6);
        }
    }
}

static void test_smooth_angles(void **state)
{
    (void)state;
    /* Default angle 180: every corner smooths: one vertex per corner. */
    ossa_model *m = load("# Inter-Quake Export\n" CUBE_VERTICES CUBE_FACES);
    CHECK_SMOOTH(m, 8);
    ossa_model_free(m);
    m = load("# Inter-Quake Export\nsmoothangle 135\n" CUBE_VERTICES CUBE_FACES);
    CHECK_SMOOTH(m, 8);
    ossa_model_free(m);
    /* 0 and 45: faces meet at 90 degrees: flat, 4 vertices per face. */
    m = load("# Inter-Quake Export\nsmoothangle 0\n" CUBE_VERTICES CUBE_FACES);
    check_flat(m);
    ossa_model_free(m);
    m = load("# Inter-Quake Export\nsmoothangle 45\n" CUBE_VERTICES CUBE_FACES);
    check_flat(m);
    ossa_model_free(m);
    /* No A reads 0. */
    m = load("# Inter-Quake Export\nsmoothangle\n" CUBE_VERTICES CUBE_FACES);
    check_flat(m);
    ossa_model_free(m);
    /* The stricter angle of the two triangles counts: the top is flat
     * against its neighbours, which still smooth among themselves. */
    m = load("# Inter-Quake Export\n" CUBE_VERTICES FACE_BOTTOM FACE_X0 FACE_X1 FACE_Y0 FACE_Y1
             "smoothangle 10\n" FACE_TOP);
    assert_int_equal(m->num_vertices, 12);
    ossa_model_free(m);
}

/* Top face in its own smoothing group: flat (0 0 1) on top; the sides and
 * bottom smooth together: at a top corner the two side normals sum to
 * (2x-1, 2y-1, 0)/sqrt2, at a bottom corner all three to the diagonal. */
static void test_smooth_groups(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n" CUBE_VERTICES "smoothgroup 0\n" FACE_BOTTOM
                         FACE_X0 FACE_X1 FACE_Y0 FACE_Y1 "smoothgroup 1\n" FACE_TOP
                         "smoothgroup\n" /* no N: unchanged */);
    assert_int_equal(m->num_vertices, 12);
    uint32_t top = 0, side = 0, bottom = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[4], n[4];
        get(m, OSSA_VERTEX_POSITION, NULL, v, p);
        get(m, OSSA_VERTEX_NORMAL, NULL, v, n);
        if (p[2] == 0) {
            bottom++;
            check_normal(p, n, ALL & ~TOP, __LINE__);
        } else if (n[2] > 0.5f) {
            top++;
            check_normal(p, n, TOP, __LINE__);
        } else {
            side++;
            check_normal(p, n, SIDES, __LINE__);
        }
    }
    assert_int_equal(top, 4);
    assert_int_equal(side, 4);
    assert_int_equal(bottom, 4);
    ossa_model_free(m);

    /* Smoothing crosses mesh boundaries: the top in another mesh still
     * smooths with the sides. */
    m = load("# Inter-Quake Export\n" CUBE_VERTICES "mesh a\n" FACE_BOTTOM FACE_X0 FACE_X1 FACE_Y0
             FACE_Y1 "mesh b\n" FACE_TOP);
    assert_int_equal(m->num_meshes, 2);
    assert_int_equal(m->num_vertices, 12); /* 8 + the 4 top corners again */
    CHECK_SMOOTH(m, 12);
    ossa_model_free(m);
}

/* fs: edges between sides smooth (1), edges to the top and bottom do not
 * (0 on both faces). Flags follow each face's vertex order: flag i is the
 * edge from vertex i to vertex i+1. */
static void test_smooth_edges(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n" CUBE_VERTICES
                         FACE_TOP "fs 0 0 0 0\n"
                         FACE_BOTTOM "fs 0 0 0 0\n"
                         FACE_X0 "fs 0 1 0 1\n"
                         FACE_X1 "fs 1 0 1 0\n"
                         FACE_Y0 "fs 1 0 1 0\n"
                         FACE_Y1 "fs 0 1 0 1\n");
    assert_int_equal(m->num_vertices, 16);
    uint32_t caps = 0, sides = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float p[4], n[4];
        get(m, OSSA_VERTEX_POSITION, NULL, v, p);
        get(m, OSSA_VERTEX_NORMAL, NULL, v, n);
        if (fabsf(n[2]) > 0.5f) {
            caps++;
            check_normal(p, n, p[2] == 1 ? TOP : BOTTOM, __LINE__);
        } else {
            sides++;
            check_normal(p, n, SIDES, __LINE__);
        }
    }
    assert_int_equal(caps, 8);
    assert_int_equal(sides, 8);
    assert_int_equal(m->num_warnings, 0);
    ossa_model_free(m);

    /* All flags 1: smooth as without fs. A face without fs after the last
     * one smooths on every edge; count mismatches warn. */
    m = load("# Inter-Quake Export\n" CUBE_VERTICES FACE_TOP "fs 1 1 1 1\n" FACE_BOTTOM
             "fs 1 1 1\n" FACE_X0 FACE_X1 FACE_Y0 FACE_Y1 "fs 1 1\n");
    CHECK_SMOOTH(m, 8);
    assert_true(has_warning(m, "fewer than 3 flags", 0));
    assert_true(has_warning(m, "different number of flags", 0));
    assert_true(has_warning(m, "'fs' lines for", 0));
    ossa_model_free(m);
}

/* A cube with 4 vertices of its own per face (24 vertices). */
static char *cube24(const char *before, const char *per_vertex_fmt)
{
    static const int faces[6][4] = {{4, 6, 7, 5}, {0, 1, 3, 2}, {0, 2, 6, 4},
                                    {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}};
    char *s = malloc(8192);
    strcpy(s, "# Inter-Quake Export\n");
    strcat(s, before);
    for (int f = 0; f < 6; f++)
        for (int k = 0; k < 4; k++) {
            int c = faces[f][k];
            sprintf(s + strlen(s), "vp %d %d %d\n", c & 1, (c >> 1) & 1, (c >> 2) & 1);
            if (per_vertex_fmt) sprintf(s + strlen(s), per_vertex_fmt, f, f);
        }
    for (int f = 0; f < 6; f++)
        sprintf(s + strlen(s), "fa %d %d %d %d\n", 4 * f, 4 * f + 1, 4 * f + 2, 4 * f + 3);
    return s;
}

static void test_smooth_vs_uv(void **state)
{
    (void)state;
    /* Corners at one position smooth across separate vertices, and
     * identical results merge again: 8 vertices. */
    char *t = cube24("", NULL);
    ossa_model *m = load(t);
    CHECK_SMOOTH(m, 8);
    ossa_model_free(m);
    free(t);
    /* Equal vs everywhere: no change. One vs per face: flat. */
    t = cube24("", "vs 7\n");
    m = load(t);
    CHECK_SMOOTH(m, 8);
    ossa_model_free(m);
    free(t);
    t = cube24("", "vs %d\n");
    m = load(t);
    check_flat(m);
    ossa_model_free(m);
    free(t);
    /* One texcoord per face: smooth normals (24 vertices: the texcoords
     * differ), flat with smoothuv. */
    t = cube24("", "vt %d %d\n");
    m = load(t);
    assert_int_equal(m->num_vertices, 24);
    for (uint32_t v = 0; v < 24; v++) {
        float p[4], n[4];
        get(m, OSSA_VERTEX_POSITION, NULL, v, p);
        get(m, OSSA_VERTEX_NORMAL, NULL, v, n);
        check_normal(p, n, ALL, __LINE__);
    }
    ossa_model_free(m);
    free(t);
    t = cube24("smoothuv 1\n", "vt %d %d\n");
    m = load(t);
    check_flat(m);
    ossa_model_free(m);
    free(t);
    t = cube24("smoothuv 0\n", "vt %d %d\n");
    m = load(t);
    assert_int_equal(m->num_vertices, 24);
    float n[4], p[4];
    get(m, OSSA_VERTEX_POSITION, NULL, 0, p);
    get(m, OSSA_VERTEX_NORMAL, NULL, 0, n);
    check_normal(p, n, ALL, __LINE__);
    ossa_model_free(m);
    free(t);
}

/* -- Skeleton and animations (§6-§9) -- */

static void quat_near(const float q[4], double x, double y, double z, double w, double tol, int line)
{
    /* q and -q are the same rotation */
    double s = (q[0] * x + q[1] * y + q[2] * z + q[3] * w) < 0 ? -1 : 1;
    near(q[0], s * x, tol, "qx", line);
    near(q[1], s * y, tol, "qy", line);
    near(q[2], s * z, tol, "qz", line);
    near(q[3], s * w, tol, "qw", line);
}
#define QUAT_NEAR(q, x, y, z, w) quat_near((q), (x), (y), (z), (w), 1e-6, __LINE__)

static void test_poses(void **state)
{
    (void)state;
    const double h = sqrt(0.5);
    ossa_model *m = load("# Inter-Quake Export\n"
                         "joint a -1\npq 1 2 3 0.6 0 0\n"
                         "joint b 0\npq 0 0 0 0 0 0 2\n"
                         "joint c 0\npq 0 0 0 0 0 0 0\n"
                         "joint d 0\npq 0 0 0 0 0 0 -1 2 3 4\n"
                         "joint e 0\npq 0 0 0 0 0 0 -1 2\n"
                         "joint f 0\npm 0 0 0  0 -3 0  2 0 0  0 0 4\n"
                         "joint g 0\npm 0 0 0  0 -3 0  2 0 0  0 0 -4 2 2 2\n"
                         "joint h 0\npa 0 0 0 1.5707963267948966 0 1.5707963267948966\n"
                         "joint i 0\npq 0 0 0 0 0 0.6 0.80001\n"
                         "joint \"j k\" 0\n");
    assert_int_equal(m->num_joints, 10);
    const ossa_transform *t = &m->joints[0].bind;
    assert_true(t->translation[0] == 1 && t->translation[1] == 2 && t->translation[2] == 3);
    /* Missing Qw: -sqrt(1 - 0.36) = -0.8 */
    QUAT_NEAR(t->rotation, 0.6, 0, 0, -0.8);
    assert_true(t->rotation[3] < 0);
    assert_true(t->scale[0] == 1 && t->scale[1] == 1 && t->scale[2] == 1);
    QUAT_NEAR(m->joints[1].bind.rotation, 0, 0, 0, 1); /* normalized */
    QUAT_NEAR(m->joints[2].bind.rotation, 0, 0, 0, 1); /* zero length: identity */
    t = &m->joints[3].bind;
    assert_true(t->scale[0] == 2 && t->scale[1] == 3 && t->scale[2] == 4);
    t = &m->joints[4].bind;
    assert_true(t->scale[0] == 2 && t->scale[1] == 1 && t->scale[2] == 1);
    /* pm rows (0 -3 0) (2 0 0) (0 0 4) = R * diag(2 3 4), R = +90 deg about Z. */
    t = &m->joints[5].bind;
    QUAT_NEAR(t->rotation, 0, 0, h, h);
    NEAR(t->scale[0], 2, 1e-6), NEAR(t->scale[1], 3, 1e-6), NEAR(t->scale[2], 4, 1e-6);
    /* det < 0: all column lengths negated, R = -90 deg about Z, times S. */
    t = &m->joints[6].bind;
    QUAT_NEAR(t->rotation, 0, 0, -h, h);
    NEAR(t->scale[0], -4, 1e-6), NEAR(t->scale[1], -6, 1e-6), NEAR(t->scale[2], -8, 1e-6);
    /* pa: X by 90 deg, then Z by 90 deg (fixed axes): X -> Y, Y -> Z. */
    float mat[16];
    ossa_transform_to_matrix(&m->joints[7].bind, mat);
    NEAR(mat[0], 0, 1e-6), NEAR(mat[1], 1, 1e-6), NEAR(mat[2], 0, 1e-6);
    NEAR(mat[4], 0, 1e-6), NEAR(mat[5], 0, 1e-6), NEAR(mat[6], 1, 1e-6);
    /* Near-unit quaternions are kept as written. */
    t = &m->joints[8].bind;
    assert_true(t->rotation[2] == 0.6f && t->rotation[3] == 0.80001f);
    /* No base pose: identity with w = -1, and a warning. */
    assert_string_equal(m->joints[9].name, "j k");
    QUAT_NEAR(m->joints[9].bind.rotation, 0, 0, 0, -1);
    assert_true(m->joints[9].bind.rotation[3] == -1);
    assert_true(has_warning(m, "no base pose", 0));
    ossa_model_free(m);

    /* Extra base poses are ignored with a warning at the first one. */
    m = load("# Inter-Quake Export\njoint a -1\npq 1 0 0 0 0 0 -1\npq 2 0 0 0 0 0 -1\n");
    assert_true(m->joints[0].bind.translation[0] == 1);
    assert_true(has_warning(m, "extra", 4));
    ossa_model_free(m);
}

static void test_joint_order(void **state)
{
    (void)state;
    /* "child" names a later parent: the joints become root, child, leaf
     * and everything indexed by joint follows. Poses pair with joints in
     * file order. */
    ossa_model *m = load("# Inter-Quake Export\n"
                         "joint child 1\njoint root -1\njoint leaf 0\n"
                         "pq 1 0 0 0 0 0 -1\npq 2 0 0 0 0 0 -1\npq 3 0 0 0 0 0 -1\n"
                         "vp 0 0 0\nvb 0 1\nvp 1 0 0\nvb 1 1\nvp 0 1 0\nvb 2 0.75 0 0.25\n"
                         "fa 0 1 2\n"
                         "animation a\n"
                         "pq 10 0 0 0 0 0 -1\npq 20 0 0 0 0 0 -1\npq 30 0 0 0 0 0 -1\n");
    assert_int_equal(m->num_joints, 3);
    assert_string_equal(m->joints[0].name, "root");
    assert_int_equal(m->joints[0].parent, -1);
    assert_string_equal(m->joints[1].name, "child");
    assert_int_equal(m->joints[1].parent, 0);
    assert_string_equal(m->joints[2].name, "leaf");
    assert_int_equal(m->joints[2].parent, 1);
    assert_true(m->joints[0].bind.translation[0] == 2);
    assert_true(m->joints[1].bind.translation[0] == 1);
    assert_true(m->joints[2].bind.translation[0] == 3);
    float f[4];
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 0, f);
    assert_true(f[0] == 1);
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 1, f);
    assert_true(f[0] == 0);
    get(m, OSSA_VERTEX_BLENDINDEXES, NULL, 2, f);
    assert_true(f[0] == 2 && f[1] == 1);
    const ossa_transform *fr = m->animations[0].frames;
    assert_true(fr[0].translation[0] == 20 && fr[1].translation[0] == 10 &&
                fr[2].translation[0] == 30);
    assert_true(has_warning(m, "reordered", 0));
    assert_int_equal(ossa_model_validate(m, NULL, NULL), 0);
    ossa_model_free(m);
}

static void test_animations(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\n"
                         "loop\nframerate 5\nframe\n"
                         "joint r -1\npq 0 0 0 0 0 0 -1\n"
                         "joint c 0\npq 1 0 0 0 0 0 -1 2 2 2\n"
                         "animation \"walk fast\"\n"
                         "\tframerate 24\n\tloop\n"
                         "frame\nframe\n"
                         "pq 5 0 0 0 0 0 -1\npq 6 0 0 0 0 0 -1\n"
                         "frame\n"
                         "pq 7 0 0 0 0 0 -1\n"
                         "frame 2\n"
                         "pq 8 0 0 0 0 0 -1\npq 9 0 0 0 0 0 -1\npq 10 0 0 0 0 0 -1\n"
                         "animation\nframerate -5\n"
                         "pq 1 1 1 0 0 0 -1 3 3 3\npq 2 2 2 0 0 0 -1\n"
                         "animation empty\nframe\nframe\n");
    assert_int_equal(m->num_animations, 3);
    const ossa_animation *a = &m->animations[0];
    assert_string_equal(a->name, "walk fast");
    assert_int_equal(a->num_frames, 3);
    assert_true(a->framerate == 24);
    assert_int_equal(a->flags, OSSA_ANIMATION_LOOP);
    assert_true(a->frames[0].translation[0] == 5 && a->frames[1].translation[0] == 6);
    assert_true(a->frames[1].scale[0] == 1); /* a 7-number pq has scale 1 */
    /* frame 1: c padded with its base pose */
    assert_true(a->frames[2].translation[0] == 7 && a->frames[3].translation[0] == 1);
    assert_true(a->frames[3].scale[0] == 2);
    assert_true(a->frames[4].translation[0] == 8 && a->frames[5].translation[0] == 9);
    /* Frames are located by their first pose. */
    assert_true(has_warning(m, "fewer poses", 17));
    assert_true(has_warning(m, "more poses", 19));
    a = &m->animations[1];
    assert_string_equal(a->name, "");
    assert_true(a->framerate == 0);
    assert_int_equal(a->flags, 0);
    assert_int_equal(a->num_frames, 1);
    assert_true(a->frames[0].scale[1] == 3 && a->frames[1].translation[2] == 2);
    assert_int_equal(m->animations[2].num_frames, 0);
    ossa_model_free(m);
}

/* A few bytes per frame cannot stand for gigabytes of padded frames. */
static void test_decode_limit(void **state)
{
    (void)state;
    size_t cap = 600000, n = 0;
    char *t = malloc(cap);
    n += (size_t)sprintf(t + n, "# Inter-Quake Export\n");
    for (int j = 0; j < 20000; j++) n += (size_t)sprintf(t + n, "joint j -1\n");
    n += (size_t)sprintf(t + n, "animation a\n");
    while (n + 10 < cap) n += (size_t)sprintf(t + n, "frame\npq\n"); /* 20000 x 40 bytes each */
    ossa_error err;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQE;
    assert_null(ossa_load_memory(t, n, &o, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_int_equal(err.line, 20002);
    free(t);
}

static void test_comment(void **state)
{
    (void)state;
    ossa_model *m = load("# Inter-Quake Export\njoint a -1\ncomment\nHello\n world\nvp 1 2 3\n");
    assert_int_equal(m->num_vertices, 0);
    assert_int_equal(m->comment_size, strlen("Hello\n world\nvp 1 2 3\n"));
    assert_memory_equal(m->comment, "Hello\n world\nvp 1 2 3\n", m->comment_size);
    ossa_model_free(m);
}

/* -- Errors (file:line:column) -- */

static void test_errors(void **state)
{
    (void)state;
#define H "# Inter-Quake Export\n"
#define TRI "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\n"
    expect_error(H "vp 1 x 3\n", OSSA_ERROR_CORRUPT, 2, 6);
    expect_error(H TRI "fa 0 1 -9\n", OSSA_ERROR_CORRUPT, 5, 8);
    expect_error(H TRI "fa 0 1 7\nvp 1 1 1\n", OSSA_ERROR_CORRUPT, 5, 8);
    expect_error(H TRI "fm 0 1.5 2\n", OSSA_ERROR_CORRUPT, 5, 6);
    expect_error(H "joint a -1\n\tpq 0 0 0 0 0 0 1 abc\n", OSSA_ERROR_CORRUPT, 3, 19);
    expect_error(H "joint a -1\nvp 0 0 0\nvb 0 0.5 3 0.5\n", OSSA_ERROR_CORRUPT, 4, 10);
    expect_error(H "joint a -1\nvp 0 0 0\nvb 0 x\n", OSSA_ERROR_CORRUPT, 4, 6);
    expect_error(H "joint a 5\n", OSSA_ERROR_CORRUPT, 2, 9);
    expect_error(H "joint a 1\njoint b 7\n", OSSA_ERROR_CORRUPT, 3, 9); /* found via a */
    expect_error(H "joint a 1\njoint b 0\n", OSSA_ERROR_CORRUPT, 3, 9);
    expect_error(H "vp\nvn 0 0 1\nvp\nvp\nfa 0 1 2\n", OSSA_ERROR_CORRUPT, 3, 1);
    expect_error(H "vertexarray position float x\n", OSSA_ERROR_CORRUPT, 2, 28);
    expect_error(H "smoothgroup abc\n", OSSA_ERROR_CORRUPT, 2, 13);
    expect_error(H "animation a\nframerate fast\n", OSSA_ERROR_CORRUPT, 3, 11);
    expect_error(H "\n\n  vt 1 2e\n", OSSA_ERROR_CORRUPT, 4, 8);
    /* Tokens after the last possible argument are ignored. */
    ossa_model *m = load(H "vt 1 2 3e\nvp\nvp\nvp\nvt\nvt\nfa 0 1 2\n");
    ossa_model_free(m);
    /* The message names the command and the token; the file name is the
     * loader's. */
    ossa_error err;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = "guy.iqe";
    assert_null(load_opts(H "vp 1 x 3\n", &o, &err));
    char buf[600];
    ossa_error_format(&err, buf, sizeof buf);
    assert_non_null(strstr(buf, "guy.iqe:2:6: "));
    assert_non_null(strstr(buf, "'vp'"));
    assert_non_null(strstr(buf, "'x'"));
#undef H
#undef TRI
}

/* -- test_cube.iqe (love-und-panzer) -- */

static void qmul(const double a[4], const double b[4], double r[4])
{
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* v rotated by the unit quaternion q: q * (v, 0) * conj(q). */
static void qrotate(const double q[4], const double v[3], double out[3])
{
    double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    qmul(q, p, t);
    qmul(t, c, r);
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

static void unit(const float *q, double out[4])
{
    double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                    (double)q[3] * q[3]);
    for (int k = 0; k < 4; k++) out[k] = q[k] / n;
}

/* The file stores poses in the bone's parent space; the bone's bind
 * rotation is +90 degrees about X, so each animation moves one channel of
 * the pose relative to the bind pose: translation in the bind frame
 * (R_bind^-1 (t - t_bind)), rotation conj(q_bind) * q, scale s / s_bind. */
static void bind_relative(const ossa_transform *bind, const ossa_transform *t, double dt[3],
                          double dq[4], double ds[3])
{
    double qb[4], q[4], cb[4];
    unit(bind->rotation, qb);
    unit(t->rotation, q);
    cb[0] = -qb[0], cb[1] = -qb[1], cb[2] = -qb[2], cb[3] = qb[3];
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = (double)t->translation[k] - bind->translation[k];
    qrotate(cb, d, dt);
    qmul(cb, q, dq);
    if (dq[3] < 0)
        for (int k = 0; k < 4; k++) dq[k] = -dq[k];
    for (int k = 0; k < 3; k++) ds[k] = (double)t->scale[k] / bind->scale[k];
}

static void test_cube_file(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = shared("iqe/test_cube.iqe", &size);
    if (!data) return;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = "test_cube.iqe";
    ossa_error err;
    ossa_model *m = ossa_load_memory(data, size, &o, &err); /* detected by content */
    assert_non_null(m);
    assert_int_equal(m->source_format, OSSA_FORMAT_IQE);
    assert_int_equal(m->num_warnings, 0);
    assert_int_equal(m->num_joints, 1);
    assert_string_equal(m->joints[0].name, "Bone");
    assert_int_equal(m->num_vertices, 24);
    assert_int_equal(m->num_triangles, 12);
    assert_int_equal(m->num_meshes, 1);
    assert_string_equal(m->meshes[0].name, "Cube");
    assert_string_equal(m->meshes[0].material, "Material");
    assert_int_equal(ossa_model_validate(m, NULL, NULL), 0);
    static const char *const names[9] = {"tx", "rx", "sx", "ty", "ry", "sy", "tz", "rz", "sz"};
    assert_int_equal(m->num_animations, 9);
    for (int a = 0; a < 9; a++) {
        const ossa_animation *an = &m->animations[a];
        assert_string_equal(an->name, names[a]);
        assert_int_equal(an->num_frames, 60);
        assert_true(an->framerate == 30);
        assert_int_equal(an->flags, OSSA_ANIMATION_LOOP);
        char kind = names[a][0];
        int axis = names[a][1] - 'x';
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t f = 0; f < 60; f++) {
            double dt[3], dq[4], ds[3];
            bind_relative(&m->joints[0].bind, &an->frames[f], dt, dq, ds);
            double moving;
            for (int k = 0; k < 3; k++) {
                if (kind != 't' || k != axis) NEAR(dt[k], 0, 1e-5);
                if (kind != 'r' || k != axis) NEAR(dq[k], 0, 1e-5);
                if (kind != 's' || k != axis) NEAR(ds[k], 1, 1e-5);
            }
            moving = kind == 't' ? dt[axis] : kind == 'r' ? dq[axis] : ds[axis];
            if (moving < lo) lo = moving;
            if (moving > hi) hi = moving;
        }
        if (!(hi - lo > 0.1)) fail_msg("animation %s: channel %c%c does not move", names[a], kind, 'x' + axis);
    }
    ossa_model_free(m);
    free(data);
}

/* -- Robustness -- */

static const char sample[] =
    "# Inter-Quake Export\n"
    "vertexarray custom1 half 2 \"extra\"\n"
    "joint \"root\" -1\n\tpq 0 0 1 0 0 0 -1\n"
    "joint \"arm\" 0\n\tpq 1 0 0 0 0 0.3826834 -0.9238795 1 2 1\n"
    "mesh \"body\"\n\tmaterial \"skin\"\n"
    "smoothgroup 2\nsmoothangle 60\nsmoothuv\n"
    "vp 0 0 0\n\tvt 0 0\n\tvb 0 1\n\tvc 1 0 0\n\tv1 0.5 0.25\n\tvx 1 0 0 0 1 0\n"
    "vp 1 0 0\n\tvt 1 0\n\tvb 0 0.5 1 0.5\n\tvc 0 1 0\n\tv1 1 1\n\tvx 1 0 0 0 1 0\n"
    "vp 1 1 0 1\n\tvt 1 1\n\tvb 1 1\n\tvc 0 0 1 0.5\n\tv1 0 0\n\tvx 1 0 0 -1\n"
    "vp 0 1 0\n\tvt 0 1\n\tvb 1 0.9 0 0.1\n\tvc 1 1 1\n\tv1 -1 2\n\tvx 1 0 0\n"
    "fm 0 1 2 3\nfs 1 0 1 1\n"
    "mesh \"cap\"\nvp 0 0 1\nvt 0 0\nvb 0 1\nvc 1 1 1\nv1 0 0\nvx 0 1 0\n"
    "fa 0 2 -1\n"
    "animation \"wave\"\n\tframerate 12.5\n\tloop\n"
    "frame\npq 0 0 1 0 0 0 -1\npq 1 0 0 0 0 0.5 -0.8660254\n"
    "frame\npm 0 0 1 1 0 0 0 1 0 0 0 1\npa 1 0 0 0 0 0.5\n"
    "comment\nsample data\n";

/* Whatever loads must validate, write as IQM and IQE, and load again. */
static void survive(const unsigned char *data, size_t size)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQE;
    ossa_error err;
    ossa_model *m = ossa_load_memory(data, size, &o, &err);
    if (!m) {
        assert_true(err.code != OSSA_CODE_NONE);
        return;
    }
    ossa_model_validate(m, NULL, NULL);
    for (int f = 0; f < 2; f++) {
        ossa_write_options w;
        memset(&w, 0, sizeof w);
        w.format = f ? OSSA_FORMAT_IQE : OSSA_FORMAT_IQM;
        void *out;
        size_t out_size;
        if (ossa_write_memory(m, &w, &out, &out_size, &err) == OSSA_OK) {
            ossa_load_options lo;
            memset(&lo, 0, sizeof lo);
            lo.format = w.format;
            ossa_model *again = ossa_load_memory(out, out_size, &lo, &err);
            if (!again) {
                char buf[600];
                fail_msg("the %s output does not load: %s", f ? "IQE" : "IQM",
                         ossa_error_format(&err, buf, sizeof buf));
            }
            ossa_model_free(again);
            ossa_free_buffer(out, w.allocator);
        }
    }
    ossa_model_free(m);
}

static void sweep(const unsigned char *data, size_t size, size_t step, int patches)
{
    unsigned char *buf = malloc(size + 1);
    for (size_t n = 0; n <= size; n += step) {
        memcpy(buf, data, n); /* exactly n bytes: ASan sees overreads */
        unsigned char *exact = malloc(n ? n : 1);
        memcpy(exact, data, n);
        survive(exact, n);
        free(exact);
    }
    static const char alphabet[] = "0123456789-+.eE \t\n\r\"#xvpfmaq";
    for (int i = 0; i < patches; i++) {
        memcpy(buf, data, size);
        int count = 1 + (int)(rnd() % 6);
        for (int k = 0; k < count; k++) {
            size_t at = (size_t)(rnd() % size);
            buf[at] = (rnd() & 3) ? (unsigned char)alphabet[rnd() % (sizeof alphabet - 1)]
                                  : (unsigned char)rnd();
        }
        survive(buf, size);
    }
    free(buf);
}

static void test_robust_sample(void **state)
{
    (void)state;
    ossa_model *m = load(sample);
    assert_int_equal(ossa_model_validate(m, NULL, NULL), 0);
    assert_int_equal(m->num_meshes, 2);
    assert_int_equal(m->num_animations, 1);
    ossa_model_free(m);
    sweep((const unsigned char *)sample, sizeof sample - 1, 1, 3000);
}

static void test_robust_cube(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = shared("iqe/test_cube.iqe", &size);
    if (!data) return;
    sweep(data, size, 97, 300);
    free(data);
}

/* -- Writing and round trips -- */

static char *as_text(const unsigned char *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

static void count_warning(void *user, const ossa_diagnostic *d)
{
    assert_int_equal(d->severity, OSSA_SEVERITY_WARNING);
    ++*(int *)user;
}

/* The canonical layout of §10 on a model built here. */
static void test_write_text(void **state)
{
    (void)state;
    int warnings = 0;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform bind = {{1, 2, 3}, {0, 0, 0, 1}, {1, 1, 1}};
    assert_int_equal(ossa_model_add_joint(m, "root \"x\"", -1, &bind, NULL), 0);
    bind.scale[2] = 0.5f;
    bind.rotation[3] = -1;
    assert_int_equal(ossa_model_add_joint(m, "tip", 0, &bind, NULL), 1);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, NULL), OSSA_OK);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 0.1f, 0};
    static const float col[12] = {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0.2f};
    static const float bi[12] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    static const float bw[12] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    static const float cu[3] = {7, 8, 9};
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", bi, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, "", bw, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 4, "", col, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_CUSTOM, OSSA_FLOAT, 1, "heat", cu, NULL));
    ossa_triangle tri = {{0, 2, 1}};
    assert_int_equal(ossa_model_set_triangles(m, 1, &tri, NULL), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "body", "skin.png", 0, 3, 0, 1, NULL) >= 0);
    ossa_animation *an = ossa_model_add_animation(m, "idle", 1, 0, OSSA_ANIMATION_LOOP, NULL);
    an->frames[0].translation[0] = 0.25f;
    an->frames[0].rotation[0] = 0.6f;
    an->frames[0].rotation[3] = 0.8f;
    assert_int_equal(ossa_model_set_comment(m, "made\nby hand", 12, NULL), OSSA_OK);
    size_t size;
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.format = OSSA_FORMAT_IQE;
    wo.diagnostic = count_warning;
    wo.user = &warnings;
    void *outv;
    assert_int_equal(ossa_write_memory(m, &wo, &outv, &size, NULL), OSSA_OK);
    unsigned char *out = outv;
    assert_int_equal(warnings, 1); /* the '"' in the joint name */
    char *text = as_text(out, size);
    /* Weights 128/255 and 127/255 for vertex 1 (largest remainder, ties
     * to the lower slot); colour 0.2 -> 51/255 = 0.2. */
    static const char expected[] =
        "# Inter-Quake Export\n"
        "\n"
        "vertexarray color ubyte 4\n"
        "vertexarray custom0 float 1 \"heat\"\n"
        "\n"
        "joint \"root 'x'\" -1\n"
        "\tpq 1 2 3 -0 -0 -0 -1\n"
        "joint \"tip\" 0\n"
        "\tpq 1 2 3 0 0 0 -1 1 1 0.5\n"
        "\n"
        "mesh \"body\"\n"
        "\tmaterial \"skin.png\"\n"
        "\n"
        "vp 0 0 0\n"
        "\tvb 0 1\n"
        "\tvc 1 0 0 1\n"
        "\tv0 7\n"
        "vp 1 0 0\n"
        "\tvb 1 0.5019608 0 0.49803922\n"
        "\tvc 0 1 0 1\n"
        "\tv0 8\n"
        "vp 0 0.1 0\n"
        "\tvb 1 1\n"
        "\tvc 0 0 1 0.2\n"
        "\tv0 9\n"
        "fm 0 2 1\n"
        "\n"
        "animation \"idle\"\n"
        "\tframerate 0\n"
        "\tloop\n"
        "\n"
        "frame\n"
        "pq 0.25 2 3 -0.6 -0 -0 -0.8\n"
        "pq 1 2 3 0 0 0 -1 1 1 0.5\n"
        "\n"
        "comment\n"
        "made\nby hand";
    if (strcmp(text, expected) != 0) fail_msg("wrote:\n%s\n-- expected:\n%s", text, expected);
    free(text);
    ossa_free_buffer(out, NULL);

    /* Read back: the same model. */
    ossa_model *back = ossa_load_memory(out = write_fmt(m, OSSA_FORMAT_IQE, &size), size, NULL, NULL);
    assert_non_null(back);
    assert_int_equal(back->num_joints, 2);
    assert_string_equal(back->joints[0].name, "root 'x'");
    assert_true(back->joints[1].bind.scale[2] == 0.5f);
    const ossa_vertex_array *c = ossa_model_find_array(back, OSSA_VERTEX_COLOR, NULL);
    assert_memory_equal(c->data, ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL)->data, 12);
    const ossa_vertex_array *w = ossa_model_find_array(back, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    assert_memory_equal(w->data, ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL)->data, 12);
    assert_int_equal(back->comment_size, 12);
    ossa_free_buffer(out, NULL);
    ossa_model_free(back);
    ossa_model_free(m);
}

/* Meshes whose ranges overlap and a triangle outside every mesh: each
 * triangle is written once, with the first mesh that holds it. */
static void test_write_general(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, 5, NULL), OSSA_OK);
    static const float pos[15] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 2, 2};
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, NULL));
    ossa_triangle tris[4] = {{{0, 1, 2}}, {{1, 2, 3}}, {{2, 3, 4}}, {{0, 2, 4}}};
    assert_int_equal(ossa_model_set_triangles(m, 4, tris, NULL), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "A", "", 0, 4, 0, 2, NULL) >= 0);
    assert_true(ossa_model_add_mesh(m, "B", "", 1, 4, 1, 2, NULL) >= 0);
    size_t n;
    unsigned char *out = write_fmt(m, OSSA_FORMAT_IQE, &n);
    ossa_model *b = ossa_load_memory(out, n, NULL, NULL);
    assert_non_null(b);
    assert_int_equal(b->num_meshes, 3);
    /* A vertex no triangle uses is not written, with a warning. */
    {
        ossa_model *u = ossa_model_create(NULL);
        assert_int_equal(ossa_model_set_num_vertices(u, 4, NULL), OSSA_OK);
        static const float p4[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5};
        assert_non_null(ossa_model_add_vertex_array_floats(u, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", p4, NULL));
        ossa_triangle one = {{0, 1, 2}};
        assert_int_equal(ossa_model_set_triangles(u, 1, &one, NULL), OSSA_OK);
        int warnings = 0;
        ossa_write_options wo;
        memset(&wo, 0, sizeof wo);
        wo.format = OSSA_FORMAT_IQE;
        wo.diagnostic = count_warning;
        wo.user = &warnings;
        void *o2;
        size_t n2;
        assert_int_equal(ossa_write_memory(u, &wo, &o2, &n2, NULL), OSSA_OK);
        assert_int_equal(warnings, 1);
        ossa_free_buffer(o2, NULL);
        ossa_model_free(u);
    }
    assert_string_equal(b->meshes[0].name, "A");
    assert_int_equal(b->meshes[0].num_triangles, 2);
    assert_string_equal(b->meshes[1].name, "B");
    assert_int_equal(b->meshes[1].num_triangles, 1);
    assert_string_equal(b->meshes[2].name, "");
    assert_int_equal(b->meshes[2].num_triangles, 1);
    assert_int_equal(b->num_triangles, 4);
    for (uint32_t t = 0; t < 4; t++)
        for (int k = 0; k < 3; k++) {
            float p[4];
            get(b, OSSA_VERTEX_POSITION, NULL, b->triangles[t].v[k], p);
            const float *e = pos + 3 * tris[t].v[k];
            assert_true(p[0] == e[0] && p[1] == e[1] && p[2] == e[2]);
        }
    assert_int_equal(b->num_vertices, 4 + 3 + 3);
    ossa_free_buffer(out, NULL);
    ossa_model_free(b);
    ossa_model_free(m);
}

/* IQE -> IQM -> IQE -> IQM: the second IQM is byte for byte the first. */
static void check_iqm_identity(const unsigned char *iqe, size_t size)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQE;
    ossa_error err;
    ossa_model *m0 = ossa_load_memory(iqe, size, &o, &err);
    assert_non_null(m0);
    size_t n1, n2, n3;
    unsigned char *iqm1 = write_fmt(m0, OSSA_FORMAT_IQM, &n1);
    ossa_model *m1 = ossa_load_memory(iqm1, n1, NULL, &err);
    assert_non_null(m1);
    unsigned char *iqe2 = write_fmt(m1, OSSA_FORMAT_IQE, &n2);
    ossa_model *m2 = ossa_load_memory(iqe2, n2, NULL, &err);
    assert_non_null(m2);
    unsigned char *iqm3 = write_fmt(m2, OSSA_FORMAT_IQM, &n3);
    assert_int_equal(n1, n3);
    for (size_t i = 0; i < n1; i++)
        if (iqm1[i] != iqm3[i]) fail_msg("the IQM files differ at byte %zu of %zu", i, n1);
    /* And IQE -> model -> IQE is a fixed point after one trip. */
    size_t n4;
    unsigned char *iqe4 = write_fmt(m2, OSSA_FORMAT_IQE, &n4);
    assert_int_equal(n2, n4);
    assert_memory_equal(iqe2, iqe4, n2);
    ossa_free_buffer(iqm1, NULL);
    ossa_free_buffer(iqe2, NULL);
    ossa_free_buffer(iqm3, NULL);
    ossa_free_buffer(iqe4, NULL);
    ossa_model_free(m0);
    ossa_model_free(m1);
    ossa_model_free(m2);
}

/* The same from a model built with the API: IQM -> IQE -> IQM. */
static void check_model_identity(const ossa_model *m)
{
    ossa_error err;
    size_t n1, n2, n3;
    unsigned char *iqm1 = write_fmt(m, OSSA_FORMAT_IQM, &n1);
    ossa_model *m1 = ossa_load_memory(iqm1, n1, NULL, &err);
    assert_non_null(m1);
    unsigned char *iqe2 = write_fmt(m1, OSSA_FORMAT_IQE, &n2);
    ossa_model *m2 = ossa_load_memory(iqe2, n2, NULL, &err);
    assert_non_null(m2);
    unsigned char *iqm3 = write_fmt(m2, OSSA_FORMAT_IQM, &n3);
    assert_int_equal(n1, n3);
    assert_memory_equal(iqm1, iqm3, n1);
    ossa_free_buffer(iqm1, NULL);
    ossa_free_buffer(iqe2, NULL);
    ossa_free_buffer(iqm3, NULL);
    ossa_model_free(m1);
    ossa_model_free(m2);
}

static void test_identity_api_model(void **state)
{
    (void)state;
    /* Two meshes, every array type (tangents, colours, a ushort custom
     * array), two animations with a scaled joint, and a comment. */
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform bind = {{0, 0, 1}, {0, 0, 0, -1}, {1, 1, 1}};
    assert_int_equal(ossa_model_add_joint(m, "hip", -1, &bind, NULL), 0);
    bind.translation[2] = 0.5f;
    assert_int_equal(ossa_model_add_joint(m, "knee", 0, &bind, NULL), 1);
    enum { NV = 8 };
    assert_int_equal(ossa_model_set_num_vertices(m, NV, NULL), OSSA_OK);
    float pos[NV * 3], uv[NV * 2], nrm[NV * 3], tan[NV * 4], bi[NV * 4], bw[NV * 4], col[NV * 4],
        cu[NV * 2];
    for (int v = 0; v < NV; v++) {
        float a = (float)v * 0.785398f;
        pos[v * 3] = cosf(a), pos[v * 3 + 1] = sinf(a), pos[v * 3 + 2] = (float)(v / 4);
        uv[v * 2] = (float)v / NV, uv[v * 2 + 1] = 1.0f - (float)v / NV;
        nrm[v * 3] = cosf(a), nrm[v * 3 + 1] = sinf(a), nrm[v * 3 + 2] = 0;
        tan[v * 4] = -sinf(a), tan[v * 4 + 1] = cosf(a), tan[v * 4 + 2] = 0, tan[v * 4 + 3] = v & 1 ? 1.0f : -1.0f;
        bi[v * 4] = (float)(v & 1), bi[v * 4 + 1] = (float)!(v & 1), bi[v * 4 + 2] = bi[v * 4 + 3] = 0;
        bw[v * 4] = 0.7f, bw[v * 4 + 1] = 0.3f, bw[v * 4 + 2] = bw[v * 4 + 3] = 0;
        col[v * 4] = 1, col[v * 4 + 1] = (float)v / 7, col[v * 4 + 2] = 0.5f, col[v * 4 + 3] = 1;
        cu[v * 2] = (float)v / 9, cu[v * 2 + 1] = 0.25f;
    }
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, "", uv, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, "", nrm, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TANGENT, OSSA_FLOAT, 4, "", tan, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", bi, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, "", bw, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 4, "", col, NULL));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_CUSTOM, OSSA_USHORT, 2, "wear", cu, NULL));
    ossa_triangle tris[4] = {{{0, 1, 2}}, {{0, 2, 3}}, {{4, 5, 6}}, {{4, 6, 7}}};
    assert_int_equal(ossa_model_set_triangles(m, 4, tris, NULL), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "upper", "cloth", 0, 4, 0, 2, NULL) >= 0);
    assert_true(ossa_model_add_mesh(m, "lower", "cloth", 4, 4, 2, 2, NULL) >= 0);
    for (int a = 0; a < 2; a++) {
        ossa_animation *an = ossa_model_add_animation(m, a ? "kick" : "walk", 12, 30, a ? 0 : OSSA_ANIMATION_LOOP, NULL);
        assert_non_null(an);
        for (int f = 0; f < 12; f++) {
            ossa_transform *t = &an->frames[f * 2];
            float h = 0.1f * (float)f * (a + 1);
            t[0].translation[0] = 0.01f * (float)f;
            t[1].rotation[0] = sinf(h), t[1].rotation[3] = -cosf(h);
            if (a) t[1].scale[1] = 1 + 0.05f * (float)f;
        }
    }
    assert_int_equal(ossa_model_set_comment(m, "two meshes", 10, NULL), OSSA_OK);
    assert_int_equal(ossa_model_validate(m, NULL, NULL), 0);
    check_model_identity(m);
    ossa_model_free(m);
}

static void test_identity_cube(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = shared("iqe/test_cube.iqe", &size);
    if (!data) return;
    check_iqm_identity(data, size);
    free(data);
}

static void test_identity_sample(void **state)
{
    (void)state;
    check_iqm_identity((const unsigned char *)sample, sizeof sample - 1);
    /* A generated model: random poses and attributes. */
    size_t cap = 1 << 20, n = 0;
    char *t = malloc(cap);
    n += (size_t)sprintf(t + n, "# Inter-Quake Export\nvertexarray tangent float 4\n");
    for (int j = 0; j < 6; j++)
        n += (size_t)sprintf(t + n, "joint j%d %d\npq %.9g %.9g %.9g 0 0 0 -1\n", j, j - 1,
                             (double)random_float() * 0, 1.0, j * 0.5);
    for (int v = 0; v < 60; v++) {
        double a = v * 0.7, r = 1 + (double)(rnd() % 1000) / 997;
        n += (size_t)sprintf(t + n, "vp %.9g %.9g %.9g\nvt %.9g %.9g\nvn %.9g %.9g 0\n"
                                    "vx 0 0 1 %d\nvb %d %.6g %d %.6g %d 0.1\nvc %.4g 0.5 0.25\n",
                             r * cos(a), r * sin(a), v * 0.05, v / 60.0, 1 - v / 60.0, cos(a),
                             sin(a), (v & 1) ? 1 : -1, v % 6, 0.2 + (double)(rnd() % 100) / 100,
                             (v + 1) % 6, 0.3, (v + 2) % 6, (double)(rnd() % 100) / 99);
    }
    for (int f = 0; f + 2 < 60; f += 2) n += (size_t)sprintf(t + n, "fa %d %d %d\n", f, f + 1, f + 2);
    for (int a = 0; a < 3; a++) {
        n += (size_t)sprintf(t + n, "animation a%d\nframerate %d\n", a, 10 + a);
        for (int f = 0; f < 20; f++) {
            n += (size_t)sprintf(t + n, "frame\n");
            for (int j = 0; j < 6; j++) {
                double ang = 0.1 * f * (j + 1) + a, s = sin(ang / 2), c = cos(ang / 2);
                n += (size_t)sprintf(t + n, "pq %.9g %.9g %.9g %.9g %.9g %.9g %.9g%s\n",
                                     0.01 * f, 1.0, j * 0.5, s * 0.6, s * 0.8, 0.0, c,
                                     a == 2 ? " 1 1.5 1" : "");
            }
        }
    }
    assert_true(n < cap);
    check_iqm_identity((const unsigned char *)t, n);
    free(t);
}

/* guy.iqm (raylib, CC0) -> IQE -> model: the same skeleton, poses and
 * vertex data (per triangle corner, so vertex order may change). */
static void test_iqm_to_iqe(void **state)
{
    (void)state;
    size_t size;
    unsigned char *data = shared("iqm/guy.iqm", &size);
    if (!data) return;
    ossa_error err;
    ossa_model *a = ossa_load_memory(data, size, NULL, &err);
    assert_non_null(a);
    size_t n;
    unsigned char *iqe = write_fmt(a, OSSA_FORMAT_IQE, &n);
    ossa_model *b = ossa_load_memory(iqe, n, NULL, &err);
    assert_non_null(b);
    assert_int_equal(b->source_format, OSSA_FORMAT_IQE);
    assert_int_equal(a->num_joints, b->num_joints);
    for (uint32_t j = 0; j < a->num_joints; j++) {
        assert_string_equal(a->joints[j].name, b->joints[j].name);
        assert_int_equal(a->joints[j].parent, b->joints[j].parent);
        const ossa_transform *x = &a->joints[j].bind, *y = &b->joints[j].bind;
        for (int k = 0; k < 3; k++) NEAR(x->translation[k], y->translation[k], 1e-6);
        QUAT_NEAR(y->rotation, x->rotation[0], x->rotation[1], x->rotation[2], x->rotation[3]);
        for (int k = 0; k < 3; k++) NEAR(x->scale[k], y->scale[k], 1e-6);
    }
    assert_int_equal(a->num_animations, b->num_animations);
    for (uint32_t i = 0; i < a->num_animations; i++) {
        const ossa_animation *p = &a->animations[i], *q = &b->animations[i];
        assert_string_equal(p->name, q->name);
        assert_int_equal(p->num_frames, q->num_frames);
        assert_true(p->framerate == q->framerate);
        assert_int_equal(p->flags, q->flags);
        for (size_t f = 0; f < (size_t)p->num_frames * a->num_joints; f++) {
            const ossa_transform *x = &p->frames[f], *y = &q->frames[f];
            for (int k = 0; k < 3; k++) NEAR(x->translation[k], y->translation[k], 1e-6);
            QUAT_NEAR(y->rotation, x->rotation[0], x->rotation[1], x->rotation[2], x->rotation[3]);
            for (int k = 0; k < 3; k++) NEAR(x->scale[k], y->scale[k], 1e-6);
        }
    }
    assert_int_equal(a->num_meshes, b->num_meshes);
    assert_int_equal(a->num_triangles, b->num_triangles);
    assert_int_equal(a->num_vertex_arrays, b->num_vertex_arrays);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        assert_string_equal(a->meshes[i].name, b->meshes[i].name);
        assert_string_equal(a->meshes[i].material, b->meshes[i].material);
        assert_int_equal(a->meshes[i].num_triangles, b->meshes[i].num_triangles);
    }
    for (uint32_t i = 0; i < a->num_vertex_arrays; i++) {
        const ossa_vertex_array *x = &a->vertex_arrays[i];
        const ossa_vertex_array *y = ossa_model_find_array(b, x->type, x->name);
        assert_non_null(y);
        assert_int_equal(x->format, y->format);
        assert_int_equal(x->size, y->size);
        for (uint32_t t = 0; t < a->num_triangles; t++)
            for (int k = 0; k < 3; k++) {
                float fx[8], fy[8];
                ossa_vertex_array_read(a, x, a->triangles[t].v[k], 1, fx);
                ossa_vertex_array_read(b, y, b->triangles[t].v[k], 1, fy);
                for (uint32_t c = 0; c < x->size; c++)
                    if (x->type == OSSA_VERTEX_BLENDWEIGHTS || x->type == OSSA_VERTEX_BLENDINDEXES)
                        ; /* compared as pairs below */
                    else
                        NEAR(fx[c], fy[c], 1e-6);
            }
    }
    /* Blend data as (joint, weight) sets: the reader sorts by weight. */
    const ossa_vertex_array *ai = ossa_model_find_array(a, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *aw = ossa_model_find_array(a, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    const ossa_vertex_array *bi = ossa_model_find_array(b, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(b, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    for (uint32_t t = 0; t < a->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            float ia[4], wa[4], ib[4], wb[4];
            ossa_vertex_array_read(a, ai, a->triangles[t].v[k], 1, ia);
            ossa_vertex_array_read(a, aw, a->triangles[t].v[k], 1, wa);
            ossa_vertex_array_read(b, bi, b->triangles[t].v[k], 1, ib);
            ossa_vertex_array_read(b, bw, b->triangles[t].v[k], 1, wb);
            for (int s = 0; s < 4; s++) {
                if (wa[s] == 0) continue;
                double found = 0;
                for (int u = 0; u < 4; u++)
                    if (ib[u] == ia[s] && wb[u] > 0) found += wb[u];
                NEAR(found, wa[s], 1e-6);
            }
        }
    ossa_free_buffer(iqe, NULL);
    ossa_model_free(a);
    ossa_model_free(b);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_float_strtof),
        cmocka_unit_test(test_parse_tokens),
        cmocka_unit_test(test_format_float),
        cmocka_unit_test(test_locale),
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_vertices),
        cmocka_unit_test(test_tangents),
        cmocka_unit_test(test_blend),
        cmocka_unit_test(test_colors_custom),
        cmocka_unit_test(test_vertexarray_warnings),
        cmocka_unit_test(test_faces),
        cmocka_unit_test(test_soup),
        cmocka_unit_test(test_mesh_merge),
        cmocka_unit_test(test_dedup),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_smooth_angles),
        cmocka_unit_test(test_smooth_groups),
        cmocka_unit_test(test_smooth_edges),
        cmocka_unit_test(test_smooth_vs_uv),
        cmocka_unit_test(test_poses),
        cmocka_unit_test(test_joint_order),
        cmocka_unit_test(test_animations),
        cmocka_unit_test(test_decode_limit),
        cmocka_unit_test(test_comment),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_cube_file),
        cmocka_unit_test(test_robust_sample),
        cmocka_unit_test(test_robust_cube),
        cmocka_unit_test(test_write_text),
        cmocka_unit_test(test_write_general),
        cmocka_unit_test(test_identity_cube),
        cmocka_unit_test(test_identity_sample),
        cmocka_unit_test(test_identity_api_model),
        cmocka_unit_test(test_iqm_to_iqe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
