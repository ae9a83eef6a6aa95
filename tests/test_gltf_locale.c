/* Text output does not depend on the C locale: a program that called
 * setlocale() with a decimal comma (de_DE.UTF-8) still gets valid glTF
 * JSON with '.' decimals that reads back to the same numbers, and IQE and
 * illEngine text with '.' decimals. The locale is generated for the test
 * (localedef into the test directory, found through LOCPATH) when the
 * system lacks it; without the Debian package `locales` (its locale
 * sources) the tests are skipped with a message. */
#include "gltf_test.h"

#include <locale.h>

/* -- The locale -- */

/* Switches to de_DE.UTF-8, generating it first when needed; skips the
 * test when it cannot be had. */
static void use_decimal_comma(void)
{
    if (!setlocale(LC_ALL, "de_DE.UTF-8")) {
        char *dir = ts_tmp_path("locale");
        char *made = ts_path_join(dir, "de_DE.UTF-8/LC_NUMERIC");
        struct stat st;
        if (stat(made, &st) != 0) {
            char cmd[2048];
            snprintf(cmd, sizeof cmd,
                     "mkdir -p '%s' && localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1",
                     dir, dir);
            if (system(cmd) != 0) {
            }
        }
        setenv("LOCPATH", dir, 1);
        free(made);
        free(dir);
    }
    if (!setlocale(LC_ALL, "de_DE.UTF-8") || strcmp(localeconv()->decimal_point, ",") != 0) {
        setlocale(LC_ALL, "C");
        printf("SKIP: the locale de_DE.UTF-8 cannot be made (install the Debian package "
               "locales)\n");
        fflush(stdout);
        skip();
    }
    /* the premise: printf now writes a comma */
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 0.5);
    assert_string_equal(probe, "0,5");
}

/* -- A strict JSON checker (RFC 8259), independent of cJSON -- */

typedef struct json_cursor {
    const char *p, *end;
} json_cursor;

static void json_space(json_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool json_value(json_cursor *c, int depth);

static bool json_digits(json_cursor *c)
{
    const char *s = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') c->p++;
    return c->p > s;
}

static bool json_number(json_cursor *c)
{
    if (c->p < c->end && *c->p == '-') c->p++;
    if (c->p < c->end && *c->p == '0') c->p++;
    else if (!json_digits(c)) return false;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!json_digits(c)) return false;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-')) c->p++;
        if (!json_digits(c)) return false;
    }
    return true;
}

static bool json_string(json_cursor *c)
{
    if (c->p >= c->end || *c->p != '"') return false;
    for (c->p++; c->p < c->end; c->p++) {
        if (*c->p == '"') {
            c->p++;
            return true;
        }
        if ((unsigned char)*c->p < 0x20) return false;
        if (*c->p == '\\') c->p++;
    }
    return false;
}

static bool json_value(json_cursor *c, int depth)
{
    json_space(c);
    if (c->p >= c->end || depth > 64) return false;
    char open = *c->p;
    if (open == '{' || open == '[') {
        char close = open == '{' ? '}' : ']';
        c->p++;
        json_space(c);
        if (c->p < c->end && *c->p == close) {
            c->p++;
            return true;
        }
        for (;;) {
            if (open == '{') {
                json_space(c);
                if (!json_string(c)) return false;
                json_space(c);
                if (c->p >= c->end || *c->p++ != ':') return false;
            }
            if (!json_value(c, depth + 1)) return false;
            json_space(c);
            if (c->p >= c->end) return false;
            if (*c->p == close) {
                c->p++;
                return true;
            }
            if (*c->p++ != ',') return false;
        }
    }
    if (open == '"') return json_string(c);
    static const char *const words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(words[k]);
        if ((size_t)(c->end - c->p) >= n && memcmp(c->p, words[k], n) == 0) {
            c->p += n;
            return true;
        }
    }
    return json_number(c);
}

static void assert_valid_json(const char *text, size_t size)
{
    json_cursor c = {text, text + size};
    bool ok = json_value(&c, 0);
    json_space(&c);
    if (!ok || c.p != c.end)
        fail_msg("invalid JSON at byte %zu: '%.20s'", (size_t)(c.p - text), c.p);
}

/* No decimal comma: a digit, a comma and a digit never follow each other
 * in text whose numbers are separated by blanks. */
static void assert_no_decimal_comma(const char *text, size_t size)
{
    for (size_t i = 1; i + 1 < size; i++)
        if (text[i] == ',' && text[i - 1] >= '0' && text[i - 1] <= '9' && text[i + 1] >= '0' &&
            text[i + 1] <= '9')
            fail_msg("a decimal comma at byte %zu: '%.30s'", i, text + (i > 10 ? i - 10 : 0));
}

/* -- Tests -- */

/* .gltf (embedded), .glb and .gltf + .bin written under de_DE: valid
 * JSON, '.' decimals, and the same model read back in either locale. */
static void gltf_under_decimal_comma(void **state)
{
    (void)state;
    ossa_model *a = gt_build_full_model();
    use_decimal_comma();
    for (int k = 0; k < 2; k++) {
        size_t size;
        unsigned char *data = gt_write_as(a, k ? OSSA_FORMAT_GLB : OSSA_FORMAT_GLTF, &size);
        const char *json = (const char *)data;
        size_t n = size;
        if (k) { /* the JSON chunk of the GLB */
            json = (const char *)data + 20;
            n = ts_le32(data + 12);
            while (n && json[n - 1] == ' ') n--;
        }
        assert_valid_json(json, n);
        /* the spine's bind (0, 0, 0.5) in glTF axes, written compactly in
         * the GLB and with tabs and newlines in the .gltf */
        char *text = malloc(n + 1);
        memcpy(text, json, n);
        text[n] = 0;
        if (k) assert_non_null(strstr(text, "\"translation\":[0,0.5,-0]"));
        else assert_non_null(strstr(text, "0.5"));
        free(text);
        /* read back under the same locale (cJSON follows it), then under C */
        for (int c = 0; c < 2; c++) {
            if (c) setlocale(LC_ALL, "C");
            ossa_model *b = gt_load_ok(data, size, k ? OSSA_FORMAT_GLB : OSSA_FORMAT_GLTF);
            gt_compare_poses(a, b, 1e-6);
            gt_compare_meshes(a, b, 0);
            ossa_model_free(b);
        }
        setlocale(LC_ALL, "de_DE.UTF-8");
        ossa_free(data, NULL);
    }
    /* the file pair */
    char *path = ts_tmp_path("gltf locale.gltf");
    ossa_error err;
    assert_int_equal(ossa_write_file(a, path, NULL, &err), OSSA_OK);
    size_t size;
    unsigned char *text = ts_read_file(path, &size);
    assert_valid_json((const char *)text, size);
    setlocale(LC_ALL, "C");
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.max_influences = 8;
    ossa_model *b = ossa_load_file(path, &lo, &err);
    assert_non_null(b);
    gt_compare_poses(a, b, 1e-6);
    ossa_model_free(b);
    free(text);
    free(path);
    ossa_model_free(a);
}

/* IQE and illEngine text written under de_DE: '.' decimals, read back
 * (under C) to the same poses. */
static void text_formats_under_decimal_comma(void **state)
{
    (void)state;
    ossa_model *a = gt_build_full_model();
    use_decimal_comma();
    static const ossa_format formats[] = {OSSA_FORMAT_IQE, OSSA_FORMAT_ILLSKEL, OSSA_FORMAT_ILLANIM,
                                          OSSA_FORMAT_ILLMESH};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        setlocale(LC_ALL, "de_DE.UTF-8");
        size_t size;
        unsigned char *data = gt_write_as(a, formats[i], &size);
        assert_no_decimal_comma((const char *)data, size);
        assert_non_null(memchr(data, '.', size));
        if (formats[i] == OSSA_FORMAT_IQE) {
            assert_non_null(strstr((const char *)data, "0.5"));
            setlocale(LC_ALL, "C");
            ossa_model *b = gt_load_ok(data, size, OSSA_FORMAT_IQE);
            assert_int_equal(b->num_joints, a->num_joints);
            for (uint32_t j = 0; j < a->num_joints; j++) {
                for (int k = 0; k < 10; k++)
                    if (k < 3 || k >= 7)
                        TS_ASSERT_NEAR(ts_channel(&b->joints[j].bind, k),
                                       ts_channel(&a->joints[j].bind, k), 1e-7);
                TS_ASSERT_QUAT_EQUIV(b->joints[j].bind.rotation, a->joints[j].bind.rotation, 1e-7);
            }
            ossa_model_free(b);
        }
        ossa_free(data, NULL);
    }
    setlocale(LC_ALL, "C");
    ossa_model_free(a);
}

static int restore_locale(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(gltf_under_decimal_comma, restore_locale),
        cmocka_unit_test_teardown(text_formats_under_decimal_comma, restore_locale),
    };
    return cmocka_run_group_tests_name("gltf_locale", tests, NULL, NULL);
}
