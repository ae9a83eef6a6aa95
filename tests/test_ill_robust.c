/* illEngine readers under damage: every prefix of small text and binary
 * files, random byte patches, and every allocation failing in turn. The
 * readers may refuse an input but must never crash, leak or accept
 * something the writer then cannot write back in a form they read again. */
#include "ill_test.h"

typedef struct sample {
    const char *name; /* file name: its extension picks the format of short prefixes */
    unsigned char data[2048];
    size_t size;
    bool text;
} sample;

static void add_text(sample *s, const char *name, const char *text)
{
    s->name = name;
    s->size = strlen(text);
    assert_true(s->size <= sizeof s->data);
    memcpy(s->data, text, s->size);
    s->text = true;
}

static void add_bytes(sample *s, const char *name, const it_bytes *w)
{
    s->name = name;
    assert_true(w->n <= sizeof s->data);
    memcpy(s->data, w->b, w->n);
    s->size = w->n;
    s->text = false;
}

enum { NUM_SAMPLES = 10 };

static void build_samples(sample *s)
{
    add_text(&s[0], "a.illmesh",
             "ILLMESH0\n1\n1\n1\n1\n1\n1\n3\n3\n"
             "0 0 0\n0 0 1\n1 0 0\n0 1 0\n2 0 0 0\n1 0 0 0\n0.25 0.75\n1 0 0 1\n\n"
             "1 0 0\n0 0 1\n1 0 0\n0 -1 0\n0 1 0 0\n0.5 0.5 0 0\n1 0\n0 1 0 1\n\n"
             "0 1 0\n0 0 1\n0 1 0\n-1 0 0\n1 0 0 0\n1 0 0 0\n0 1\n0 0 1 0.5\n\n"
             "0 1 2\n");
    add_text(&s[1], "b.illmesh",
             "ILLMESH0 1 0 0 1 1 0 2 3\n1 2 3 0.5 1 1 0 0 0 1 0 0 0\n"
             "4 5 6 1 0 0 2 0 0 0.5 0.5 0 0\n0 1 1\n");
    add_text(&s[2], "c.illskel",
             "ILLSKEL0\n3\n"
             "0 -1 0 0.5\n1 0 0 2\n0 0 1 0\n0 0 0 1\n\n"
             "1 0 0 0\n0 1 0 0\n0 0 1 1\n0 0 0 1\n\n"
             "2 0 0 0\n0 0.866025 -0.5 3\n0 0.5 0.866025 0\n0 0 0 1\n\n"
             "1\n-1\n1\narm\n<MD5_Root>\nleg\n");
    add_text(&s[3], "d.illanim",
             "ILLANIM0\n24\n2\n2\nhips 0 0 1 0 0 0 1 1 1 1 0 0 1.5 0 0 0.1 0.99498744 1 1 1\n"
             "arm 0.5 2 0 0 0 0.70710678 0.70710678 1 1 1 0.5 2 0.25 0 0 -0.7 -0.7 1 2 1\n");
    add_text(&s[4], "e.illanim",
             "ILLANIM1\n0.5\n2\na\n2\n0 0 0 0\n0.25 1 0 0\n2\n0 0 0 0 1\n0.25 0 0 0.7 0.7\n0\n"
             "b\n1\n0.1 1 2 3\n0\n1\n0 2 2 2\n");

    it_bytes w;
    /* binary ILLMESH0: position and blend data, one triangle */
    w.n = 0;
    it_raw(&w, "ILLMESH0", 8);
    it_u8(&w, 0x11);
    it_u32(&w, 3);
    it_u16(&w, 3);
    for (int v = 0; v < 3; v++) {
        float p[3] = {(float)v, 1, 2}, bi[4] = {(float)v, 0, 0, 0}, bw[4] = {1, 0, 0, 0};
        it_f32s(&w, p, 3);
        it_f32s(&w, bi, 4);
        it_f32s(&w, bw, 4);
    }
    for (int i = 0; i < 3; i++) it_u16(&w, (unsigned)i);
    add_bytes(&s[5], "f.illmesh", &w);
    /* binary ILLMESH1: a strip and a fan */
    w.n = 0;
    it_raw(&w, "ILLMESH1", 8);
    it_u8(&w, 0x09);
    it_u8(&w, 2);
    it_u32(&w, 4);
    it_u16(&w, 8);
    static const unsigned char groups[10] = {4, 0, 0, 4, 0, 5, 4, 0, 4, 0};
    it_raw(&w, groups, sizeof groups);
    for (int v = 0; v < 4; v++) {
        float p[5] = {(float)v, (float)(v * v), 0, 0.5f, (float)v};
        it_f32s(&w, p, 5);
    }
    static const unsigned idx[8] = {0, 1, 2, 3, 3, 2, 1, 0};
    for (int i = 0; i < 8; i++) it_u16(&w, idx[i]);
    add_bytes(&s[6], "g.illmesh", &w);
    /* binary ILLSKEL0: three bones, the first after its parent */
    w.n = 0;
    it_raw(&w, "ILLSKEL0", 8);
    it_u16(&w, 3);
    for (int b = 0; b < 3; b++) {
        double m[16], t[3] = {0, (double)b, 1}, one[3] = {1, 1, 1};
        it_trs_axis(b % 3, 30.0 * b, t, one, m);
        for (int k = 0; k < 16; k++) it_f32(&w, (float)m[k]);
        for (int k = 0; k < 16; k++) it_f32(&w, k % 5 == 0);
    }
    it_u16(&w, 2);
    it_u16(&w, 1);
    it_u16(&w, 1);
    add_bytes(&s[7], "h.illskel", &w);
    /* binary ILLANIM0: two bones */
    w.n = 0;
    it_raw(&w, "ILLANIM0", 8);
    it_f32(&w, 0.25f);
    it_u16(&w, 2);
    it_u16(&w, 0);
    it_u16(&w, 2);
    float k1[4] = {0, 1, 2, 3}, k2[4] = {0.1f, 4, 5, 6};
    it_f32s(&w, k1, 4);
    it_f32s(&w, k2, 4);
    it_u16(&w, 1);
    float r[5] = {0, 0, 0, 0.6f, 0.8f};
    it_f32s(&w, r, 5);
    it_u16(&w, 0);
    it_u16(&w, 2);
    it_u16(&w, 0);
    it_u16(&w, 0);
    it_u16(&w, 1);
    float sc[4] = {0, 2, 2, 2};
    it_f32s(&w, sc, 4);
    add_bytes(&s[8], "i.illanim", &w);
    /* ILANSET0 */
    w.n = 0;
    it_raw(&w, "ILANSET0", 8);
    it_u16(&w, 3);
    static const char *const names[3] = {"hips", "arm", "<MD5_Root>"};
    for (int i = 0; i < 3; i++) {
        it_u16be(&w, (unsigned)strlen(names[i]));
        it_raw(&w, names[i], strlen(names[i]));
    }
    add_bytes(&s[9], "j.illanset", &w);
}

/* What the fuzz targets check: whatever loads validates, writes (in its
 * own format) and loads again. */
static void invariant(const ossa_model *m)
{
    ossa_model_validate(m, NULL, NULL, NULL);
    if (m->source_format == OSSA_FORMAT_ILLANSET) return;
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = m->source_format;
    void *out;
    size_t size;
    ossa_error err;
    if (ossa_write_memory(m, &o, &out, &size, &err) != OSSA_OK) return;
    ossa_model *again = it_try(out, size, "ill.encoding=text", 0, "again", &err);
    if (!again) {
        char buf[600];
        print_error("%.*s\n", (int)(size < 2000 ? size : 2000), (const char *)out);
        fail_msg("the written file does not load: %s", ossa_error_format(&err, buf, sizeof buf));
    }
    ossa_model_validate(again, NULL, NULL, NULL);
    ossa_model_free(again);
    ossa_free(out, o.allocator);
}

static void test_samples_load(void **state)
{
    (void)state;
    sample s[NUM_SAMPLES];
    build_samples(s);
    for (int i = 0; i < NUM_SAMPLES; i++) {
        ossa_model *m = it_load_bytes(s[i].data, s[i].size, 0, s[i].name);
        invariant(m);
        ossa_model_free(m);
    }
}

/* Every prefix: text files fail with TRUNCATED (or load when only
 * whitespace or ignored data is cut); no crash, no leak. */
static void test_truncation(void **state)
{
    (void)state;
    sample s[NUM_SAMPLES];
    build_samples(s);
    for (int i = 0; i < NUM_SAMPLES; i++) {
        /* the first token that the shortened files lack is where it fails */
        for (size_t n = 0; n < s[i].size; n++) {
            unsigned char *copy = malloc(n + 1);
            assert_non_null(copy);
            memcpy(copy, s[i].data, n);
            ossa_error err;
            ossa_model *m = it_try(copy, n, 0, 0, s[i].name, &err);
            if (m) {
                invariant(m);
                ossa_model_free(m);
            } else if (n >= 8) {
                if (err.code != OSSA_ERROR_TRUNCATED && err.code != OSSA_ERROR_CORRUPT &&
                    err.code != OSSA_ERROR_FORMAT)
                    fail_msg("%s cut to %zu bytes: %s", s[i].name, n, err.message);
                if (s[i].text && err.code == OSSA_ERROR_TRUNCATED) assert_true(err.line > 0);
                if (!err.line && err.code == OSSA_ERROR_TRUNCATED) assert_true(err.offset <= n);
            }
            free(copy);
        }
    }
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng(void) { return (uint32_t)(ts_rand(&rng_state) >> 16); }

static void test_patches(void **state)
{
    (void)state;
    static const char text_bytes[] = "0123456789-. \n\t\re+x";
    sample s[NUM_SAMPLES];
    build_samples(s);
    int loaded = 0, runs = 0;
    for (int i = 0; i < NUM_SAMPLES; i++) {
        for (int trial = 0; trial < 1500; trial++) {
            unsigned char copy[2048];
            memcpy(copy, s[i].data, s[i].size);
            int patches = 1 + (int)(rng() % 3);
            for (int p = 0; p < patches; p++) {
                size_t at = rng() % s[i].size;
                uint32_t r = rng();
                if (s[i].text && r % 4)
                    copy[at] = (unsigned char)text_bytes[r / 4 % (sizeof text_bytes - 1)];
                else if (!s[i].text && r % 4 == 0)
                    copy[at] = (unsigned char)(r % 2 ? 0xff : 0x00);
                else
                    copy[at] = (unsigned char)(r >> 8);
            }
            /* forcing the reader too, as the fuzz targets do */
            const char *encoding = trial % 3 == 1   ? "ill.encoding=text"
                                   : trial % 3 == 2 ? "ill.encoding=binary"
                                                    : NULL;
            ossa_error err;
            ossa_model *m = it_try(copy, s[i].size, encoding, 0, s[i].name, &err);
            runs++;
            if (m) {
                loaded++;
                invariant(m);
                ossa_model_free(m);
            }
        }
    }
    print_message("%d of %d patched files loaded\n", loaded, runs);
    assert_true(loaded > 0);
}

/* Allocation number k fails, for every k: NOMEM, and nothing leaks. */
static void test_allocation_failures(void **state)
{
    (void)state;
    sample s[NUM_SAMPLES];
    build_samples(s);
    for (int i = 0; i < NUM_SAMPLES; i++) {
        ossa_load_options o;
        memset(&o, 0, sizeof o);
        o.file_name = s[i].name;
        ts_alloc_sweep_load(s[i].name, s[i].data, s[i].size, &o,
                            &(ts_sweep){.modes = TS_SWEEP_STICKY, .max_calls = 1000});
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_load),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_patches),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
