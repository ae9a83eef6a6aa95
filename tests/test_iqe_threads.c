/* The IQE reader with threads: the text is cut into shares at `frame`
 * lines and parsed in parallel. Whatever the text, the result must be the
 * serial parse's: the same model (compared through the IQE and IQM writers'
 * bytes), the same warnings, or the same error at the same line and column.
 * The texts are generated here, a few MiB each (shares start at 1 MiB), with
 * one odd line placed at a chosen fraction of the file. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
    char *data;
    size_t size, cap;
} text;

static void put(text *t, const char *s)
{
    size_t n = strlen(s);
    if (t->size + n + 1 > t->cap) {
        t->cap = (t->size + n + 1) * 2;
        t->data = realloc(t->data, t->cap);
        assert_non_null(t->data);
    }
    memcpy(t->data + t->size, s, n + 1);
    t->size += n;
}

#define JOINTS 3
#define FRAMES 12000 /* per animation: about 1.2 MiB each */

/* A 3-joint model with a quad, then `anims` animations (or, with anims 0,
 * frames of poses outside any animation). `odd` goes in before the frame
 * line nearest `where` (a fraction of all frames); some poses are scaled,
 * so that shares start at pose counts that are not multiples of 8. */
static text make(int anims, const char *odd, double where, bool last_newline)
{
    text t = {0};
    put(&t, "# Inter-Quake Export\n");
    for (int j = 0; j < JOINTS; j++) {
        char line[64];
        snprintf(line, sizeof line, "joint \"j%d\" %d\npq 0 0 1 0 0 0 1\n", j, j - 1);
        put(&t, line);
    }
    put(&t, "mesh \"m\"\nmaterial \"skin\"\n");
    for (int v = 0; v < 4; v++) {
        char line[96];
        snprintf(line, sizeof line, "vp %d %d 0\nvn 0 0 1\nvb %d 1\n", v & 1, v >> 1, v % JOINTS);
        put(&t, line);
    }
    put(&t, "fm 0 1 2\nfm 2 1 3\n");
    int total = (anims ? anims : 1) * FRAMES, at = (int)(where * total);
    int frame = 0;
    for (int a = 0; a < (anims ? anims : 1); a++) {
        if (anims) {
            char line[64];
            snprintf(line, sizeof line, "animation \"a%d\"\nframerate %d\n%s", a, 20 + a,
                     a == 1 ? "loop\n" : "");
            put(&t, line);
        }
        for (int f = 0; f < FRAMES; f++, frame++) {
            if (frame == at && odd) put(&t, odd);
            char line[200];
            snprintf(line, sizeof line, "frame %d\n", f);
            put(&t, line);
            /* A frame with a missing pose now and then (a short frame). */
            int poses = f % 997 == 5 ? JOINTS - 1 : JOINTS;
            for (int j = 0; j < poses; j++) {
                double x = (f % 101) * 0.01 + j;
                if ((f + j) % 13 == 0)
                    snprintf(line, sizeof line, "pq %.3f 0 1 0 0 0.6 0.8 1 %.2f 1\n", x,
                             1 + (f % 7) * 0.1);
                else
                    snprintf(line, sizeof line, "pq %.3f 0.5 1 0 0 0.6 0.8\n", x);
                put(&t, line);
            }
        }
    }
    if (!last_newline && t.size && t.data[t.size - 1] == '\n') t.data[--t.size] = 0;
    return t;
}

typedef struct outcome {
    ossa_status status;
    ossa_error error;
    uint32_t num_warnings;
    ossa_diagnostic *warnings;
    unsigned char *iqe, *iqm;
    size_t iqe_size, iqm_size;
} outcome;

static outcome load(const text *t, uint32_t threads)
{
    outcome o;
    memset(&o, 0, sizeof o);
    ossa_load_options lo = {.format = OSSA_FORMAT_IQE, .threads = threads};
    ossa_model *m = ossa_load_memory(t->data, t->size, &lo, &o.error);
    if (!m) {
        o.status = OSSA_FAILED;
        return o;
    }
    o.num_warnings = m->num_warnings;
    o.warnings = calloc(m->num_warnings + 1, sizeof *o.warnings);
    assert_non_null(o.warnings);
    memcpy(o.warnings, m->warnings, m->num_warnings * sizeof *o.warnings);
    ossa_write_options wo = {.format = OSSA_FORMAT_IQE};
    o.iqe = ts_write(m, &wo, &o.iqe_size);
    wo.format = OSSA_FORMAT_IQM;
    o.iqm = ts_write(m, &wo, &o.iqm_size);
    ossa_model_free(m);
    return o;
}

static void outcome_free(outcome *o)
{
    free(o->warnings);
    ossa_free(o->iqe, NULL);
    ossa_free(o->iqm, NULL);
}

/* Loads with 1 thread and with several; everything must match. The serial
 * load must end with `want`, and its error or first warning must say
 * `expect_in_message` (when given). */
static void check(const text *t, ossa_status want, const char *expect_in_message)
{
    outcome one = load(t, 1);
    if (one.status != want) print_error("serially: %s\n", one.status ? one.error.message : "loaded");
    assert_int_equal(one.status, want);
    if (expect_in_message) {
        const char *msg = one.status ? one.error.message
                                     : one.num_warnings ? one.warnings[0].message : "";
        if (!strstr(msg, expect_in_message)) print_error("message: %s\n", msg);
        assert_non_null(strstr(msg, expect_in_message));
    }
    static const uint32_t counts[] = {2, 3, 5, 64};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        outcome n = load(t, counts[c]);
        if (n.status != one.status)
            print_error("%u threads: %s\n", counts[c], n.status ? n.error.message : "loaded");
        assert_int_equal(n.status, one.status);
        if (one.status) {
            ts_assert_same_diagnostic(&n.error, &one.error);
        } else {
            assert_int_equal(n.num_warnings, one.num_warnings);
            for (uint32_t i = 0; i < one.num_warnings; i++)
                ts_assert_same_diagnostic(&n.warnings[i], &one.warnings[i]);
            assert_int_equal(n.iqe_size, one.iqe_size);
            assert_memory_equal(n.iqe, one.iqe, one.iqe_size);
            assert_int_equal(n.iqm_size, one.iqm_size);
            assert_memory_equal(n.iqm, one.iqm, one.iqm_size);
        }
        outcome_free(&n);
    }
    outcome_free(&one);
}

static void test_animations(void **state)
{
    (void)state;
    text t = make(3, NULL, 0, true);
    assert_true(t.size > 3u << 20);
    outcome one = load(&t, 1);
    assert_int_equal(one.status, OSSA_OK);
    outcome_free(&one);
    /* The short frames warn (a warning of the builder, after the parse). */
    check(&t, OSSA_OK, "fewer poses");
    free(t.data);
}

/* Lines a share does not take: it is parsed again serially from there. */
static void test_odd_lines(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        double where;
        ossa_status status;
        const char *message;
    } cases[] = {
        {"bogus 1 2\n", 0.7, OSSA_OK, "unknown command"},
        {"bogus 1 2\n", 0.2, OSSA_OK, "unknown command"},
        {"pq 1 2 x\n", 0.8, OSSA_FAILED, "expected a number"},
        {"pq 1 2 x\n", 0.1, OSSA_FAILED, "expected a number"},
        {"framerate 12\n", 0.6, OSSA_OK, NULL},
        {"loop\n", 0.9, OSSA_OK, NULL},
        {"animation \"late\"\n", 0.75, OSSA_OK, NULL},
        {"comment\n", 0.3, OSSA_OK, NULL},
        {"comment\n", 0.8, OSSA_OK, NULL},
        {"vp 1 2 3\n", 0.7, OSSA_FAILED, "every vertex needs one"},
        {"joint \"late\" 0\n", 0.6, OSSA_OK, NULL},
        {"# a comment line\n\n   \n", 0.55, OSSA_OK, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        text t = make(3, cases[i].line, cases[i].where, true);
        check(&t, cases[i].status, cases[i].message);
        free(t.data);
    }
}

/* Poses outside any animation are the joints' base poses: a share cannot
 * know, so the serial parse takes over. */
static void test_poses_without_animation(void **state)
{
    (void)state;
    text t = make(0, NULL, 0, true);
    check(&t, OSSA_OK, NULL);
    free(t.data);
}

static void test_no_final_newline(void **state)
{
    (void)state;
    text t = make(3, NULL, 0, false);
    check(&t, OSSA_OK, NULL);
    free(t.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_animations),
        cmocka_unit_test(test_odd_lines),
        cmocka_unit_test(test_poses_without_animation),
        cmocka_unit_test(test_no_final_newline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
