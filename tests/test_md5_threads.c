/* MD5 read with threads (ossa_load_options.threads): large md5anim and
 * md5mesh text generated here, read with 1, 2, 3 and 8 threads, must give
 * the same model (joints, vertices, frames, bounds) and the same warnings,
 * and damaged text the same error at the same line:column. The files are
 * large enough that the readers cut them into shares, and hold what makes
 * a share give up (comments that hide "frame" lines, '+' numbers, errors
 * in the second half). */
#include "md5_test.h"

#include <stdarg.h>

static const uint32_t thread_counts[] = {1, 2, 3, 8};
#define NUM_COUNTS (sizeof thread_counts / sizeof thread_counts[0])

/* -- Text ----------------------------------------------------------------- */

typedef struct text {
    char *data;
    size_t size, cap;
} text;

#if defined(__GNUC__)
static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
static void put(text *t, const char *fmt, ...)
{
    if (!t->data) {
        t->cap = 1 << 16;
        t->data = malloc(t->cap);
        assert_non_null(t->data);
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->data + t->size, t->cap - t->size, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < t->cap - t->size) {
            t->size += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)n + 4096;
        t->data = realloc(t->data, t->cap);
        assert_non_null(t->data);
    }
}

/* Uniform in [0, 1). */
static double uniform(uint64_t *seed) { return (double)(ts_rand(seed) >> 11) / 9007199254740992.0; }

/* What an animation's text holds besides its frames. */
enum {
    ANIM_PLAIN = 0,
    ANIM_CRLF = 1,      /* "\r\n" line ends */
    ANIM_DECOYS = 2,    /* block comments holding "frame N {" lines */
    ANIM_PLUS = 4,      /* a '+' number in the second half (a warning) */
    ANIM_LONG = 8,      /* over-long rotations in both halves (a warning) */
    ANIM_TRAILING = 16, /* text after the last frame (a warning) */
};

#define NUM_JOINTS 20
#define NUM_FRAMES 480

/* An md5anim of NUM_FRAMES frames, every joint animated (about 900 KB).
 * `bad_frame` >= 0 gets `bad` in place of its 7th value. */
static char *make_anim(unsigned flags, int bad_frame, const char *bad, size_t *size)
{
    text t = {NULL, 0, 0};
    const char *nl = flags & ANIM_CRLF ? "\r\n" : "\n";
    put(&t, "MD5Version 10%scommandline \"gen\"%s%snumFrames %d%snumJoints %d%sframeRate 24%s", nl,
        nl, nl, NUM_FRAMES, nl, NUM_JOINTS, nl, nl);
    put(&t, "numAnimatedComponents %d%s%shierarchy {%s", NUM_JOINTS * 6, nl, nl, nl);
    for (int j = 0; j < NUM_JOINTS; j++)
        put(&t, "\t\"j%d\"\t%d 63 %d\t// parent%s", j, j - 1, j * 6, nl);
    put(&t, "}%s%sbounds {%s", nl, nl, nl);
    for (int f = 0; f < NUM_FRAMES; f++)
        put(&t, "\t( %d -1.25 -3 ) ( 1.5 %d.125 4 )%s", -f, f, nl);
    put(&t, "}%s%sbaseframe {%s", nl, nl, nl);
    for (int j = 0; j < NUM_JOINTS; j++) put(&t, "\t( 0 0 %d ) ( 0 0 0 )%s", j, nl);
    put(&t, "}%s", nl);
    uint64_t seed = 12345;
    for (int f = 0; f < NUM_FRAMES; f++) {
        if ((flags & ANIM_DECOYS) && f % 37 == 5)
            put(&t, "/* frames, as they were:%sframe %d {%s*/%s", nl, f + 3, nl, nl);
        if (f % 50 == 7) put(&t, "// frame %d%s", f, nl);
        put(&t, "%sframe %d {%s", nl, f, nl);
        for (int j = 0; j < NUM_JOINTS; j++) {
            put(&t, "\t");
            for (int c = 0; c < 6; c++) {
                int k = j * 6 + c;
                if (f == bad_frame && k == 6) {
                    put(&t, "%s ", bad);
                    continue;
                }
                if ((flags & ANIM_PLUS) && f == NUM_FRAMES * 3 / 4 && k == 9) {
                    put(&t, "+0.5 ");
                    continue;
                }
                if ((flags & ANIM_LONG) && (f == 100 || f == 400) && j == 3 && c >= 3) {
                    put(&t, "0.75 ");
                    continue;
                }
                double v = (uniform(&seed) * 2 - 1) * (c < 3 ? 4 : 0.5);
                put(&t, "%.10g ", v);
            }
            put(&t, "%s", nl);
        }
        put(&t, "}%s", nl);
    }
    if (flags & ANIM_TRAILING) put(&t, "%s  extra words%s", nl, nl);
    *size = t.size;
    return t.data;
}

#define MESH_BLOCKS 6
#define BLOCK_SIDE 40 /* a grid of side x side vertices per block */

/* An md5mesh of MESH_BLOCKS blocks (about 900 KB); `bad_block` >= 0 gets
 * `bad` as the joint of one of its last weights. */
static char *make_mesh(int bad_block, const char *bad, size_t *size)
{
    text t = {NULL, 0, 0};
    put(&t, "MD5Version 10\ncommandline \"gen\"\n\nnumJoints %d\nnumMeshes %d\n\njoints {\n",
        NUM_JOINTS, MESH_BLOCKS);
    for (int j = 0; j < NUM_JOINTS; j++)
        put(&t, "\t\"j%d\"\t%d ( 0 0 %d ) ( 0 0 %s )\n", j, j - 1, j, j % 3 ? "0" : "0.25");
    put(&t, "}\n");
    uint64_t seed = 777;
    int side = BLOCK_SIDE, nv = side * side, nt = (side - 1) * (side - 1) * 2;
    for (int b = 0; b < MESH_BLOCKS; b++) {
        put(&t, "\nmesh {\n\t// meshes: part%d\n\tshader \"s%d\"\n\n\tnumverts %d\n", b, b, nv);
        for (int v = 0; v < nv; v++)
            put(&t, "\tvert %d ( %.6g %.6g ) %d %d\n", v, (v % side) / (double)side,
                (v / side) / (double)side, v * 2, 2);
        put(&t, "\n\tnumtris %d\n", nt);
        int k = 0;
        for (int y = 0; y + 1 < side; y++)
            for (int x = 0; x + 1 < side; x++) {
                int a = y * side + x;
                put(&t, "\ttri %d %d %d %d\n", k, a, a + side, a + 1);
                k++;
                put(&t, "\ttri %d %d %d %d\n", k, a + 1, a + side, a + side + 1);
                k++;
            }
        put(&t, "\n\tnumweights %d\n", nv * 2);
        for (int v = 0; v < nv; v++) {
            int j = (v + b) % NUM_JOINTS;
            double bias = 0.25 + uniform(&seed) * 0.25;
            double x = (v % side) * 0.1, y = (v / side) * 0.1;
            if (b == bad_block && v == nv - 3)
                put(&t, "\tweight %d %s %.10g ( %.10g %.10g %.10g )\n", v * 2, bad, bias, x, y,
                    -1.0 * j);
            else
                put(&t, "\tweight %d %d %.10g ( %.10g %.10g %.10g )\n", v * 2, j, bias, x, y,
                    -1.0 * j);
            put(&t, "\tweight %d %d %.10g ( %.10g %.10g %.10g )\n", v * 2 + 1,
                (j + 1) % NUM_JOINTS, 1 - bias, x, y, -1.0 * ((j + 1) % NUM_JOINTS));
        }
        put(&t, "}\n");
    }
    *size = t.size;
    return t.data;
}

/* -- Comparison ----------------------------------------------------------- */

static ossa_model *load(const char *data, size_t size, const char *name, uint32_t threads,
                        ossa_error *err)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = name;
    o.threads = threads;
    return ossa_load_memory(data, size, &o, err);
}

static void same_model(const ossa_model *a, const ossa_model *b)
{
    assert_int_equal(a->num_joints, b->num_joints);
    for (uint32_t j = 0; j < a->num_joints; j++) {
        assert_string_equal(a->joints[j].name, b->joints[j].name);
        assert_int_equal(a->joints[j].parent, b->joints[j].parent);
        assert_memory_equal(&a->joints[j].bind, &b->joints[j].bind, sizeof a->joints[j].bind);
    }
    assert_int_equal(a->num_vertices, b->num_vertices);
    assert_int_equal(a->num_vertex_arrays, b->num_vertex_arrays);
    for (uint32_t i = 0; i < a->num_vertex_arrays; i++) {
        const ossa_vertex_array *x = &a->vertex_arrays[i], *y = &b->vertex_arrays[i];
        assert_int_equal(x->type, y->type);
        assert_int_equal(x->format, y->format);
        assert_int_equal(x->size, y->size);
        assert_memory_equal(x->data, y->data,
                            ossa_component_size(x->format) * x->size * a->num_vertices);
    }
    assert_int_equal(a->num_triangles, b->num_triangles);
    if (a->num_triangles)
        assert_memory_equal(a->triangles, b->triangles, a->num_triangles * sizeof *a->triangles);
    assert_int_equal(a->num_meshes, b->num_meshes);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        assert_string_equal(a->meshes[i].name, b->meshes[i].name);
        assert_string_equal(a->meshes[i].material, b->meshes[i].material);
        assert_int_equal(a->meshes[i].first_vertex, b->meshes[i].first_vertex);
        assert_int_equal(a->meshes[i].num_triangles, b->meshes[i].num_triangles);
    }
    assert_int_equal(a->num_animations, b->num_animations);
    for (uint32_t i = 0; i < a->num_animations; i++) {
        const ossa_animation *x = &a->animations[i], *y = &b->animations[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->num_frames, y->num_frames);
        assert_true(x->framerate == y->framerate);
        assert_memory_equal(x->frames, y->frames,
                            (size_t)x->num_frames * a->num_joints * sizeof *x->frames);
        assert_true(!x->bounds == !y->bounds);
        if (x->bounds)
            assert_memory_equal(x->bounds, y->bounds, x->num_frames * sizeof *x->bounds);
        assert_true(!x->channels == !y->channels);
        if (x->channels) assert_memory_equal(x->channels, y->channels, a->num_joints);
    }
    assert_int_equal(a->num_warnings, b->num_warnings);
    for (uint32_t i = 0; i < a->num_warnings; i++)
        ts_assert_same_diagnostic(&a->warnings[i], &b->warnings[i]);
}

static void same_error(const ossa_error *a, const ossa_error *b)
{
    assert_int_equal(a->code, b->code);
    assert_int_equal(a->line, b->line);
    assert_int_equal(a->column, b->column);
    assert_true(a->offset == b->offset);
    assert_string_equal(a->message, b->message);
}

/* Every thread count reads `data` as one thread does; returns the number
 * of warnings (or -1 for an error, which is then the same too). */
static int same_for_all_threads(const char *data, size_t size, const char *name)
{
    ossa_error e1;
    ossa_model *one = load(data, size, name, 1, &e1);
    for (size_t i = 1; i < NUM_COUNTS; i++) {
        ossa_error e;
        ossa_model *m = load(data, size, name, thread_counts[i], &e);
        assert_true(!one == !m);
        if (one)
            same_model(one, m);
        else
            same_error(&e1, &e);
        ossa_model_free(m);
    }
    int warnings = one ? (int)one->num_warnings : -1;
    ossa_model_free(one);
    return warnings;
}

/* -- Tests ---------------------------------------------------------------- */

static void test_anim_variants(void **state)
{
    (void)state;
    static const unsigned variants[] = {
        ANIM_PLAIN,  ANIM_CRLF,     ANIM_DECOYS, ANIM_PLUS, ANIM_LONG, ANIM_TRAILING,
        ANIM_CRLF | ANIM_DECOYS | ANIM_LONG | ANIM_TRAILING,
        ANIM_DECOYS | ANIM_PLUS | ANIM_LONG,
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        size_t size;
        char *data = make_anim(variants[i], -1, NULL, &size);
        assert_true(size > 512 * 1024);
        int warnings = same_for_all_threads(data, size, "gen.md5anim");
        int expected = !!(variants[i] & ANIM_PLUS) + !!(variants[i] & ANIM_LONG) +
                       !!(variants[i] & ANIM_TRAILING);
        assert_int_equal(warnings, expected);
        free(data);
    }
}

/* The warnings of the parallel parse say where, as the serial one does. */
static void test_anim_warning_lines(void **state)
{
    (void)state;
    size_t size;
    char *data = make_anim(ANIM_LONG | ANIM_TRAILING, -1, NULL, &size);
    ossa_error err;
    ossa_model *m = load(data, size, "gen.md5anim", 2, &err);
    assert_non_null(m);
    assert_int_equal(m->num_warnings, 2);
    /* "extra words" starts the line after the blank one that ends the text */
    uint32_t lines = 1;
    for (size_t k = 0; k < size; k++) lines += data[k] == '\n';
    assert_int_equal(m->warnings[0].line, lines - 1);
    assert_int_equal(m->warnings[0].column, 3);
    assert_true(strstr(m->warnings[0].message, "ignored") != NULL);
    assert_true(strstr(m->warnings[1].message, "2 rotations") != NULL);
    const char *f100 = strstr(data, "\nframe 100 {");
    assert_non_null(f100);
    uint32_t line = 1;
    for (const char *p = data; p <= f100; p++) line += *p == '\n';
    assert_int_equal(m->warnings[1].line, line + NUM_JOINTS + 1); /* at its '}' */
    ossa_model_free(m);
    free(data);
}

/* A damaged frame in the second half: the same error with every thread
 * count. */
static void test_anim_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {"abc", "1e99", "(", "frame", "-", "1.5.5", "/*"};
    static const int frames[] = {NUM_FRAMES * 2 / 3, NUM_FRAMES - 1, NUM_FRAMES / 2 + 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (size_t k = 0; k < sizeof frames / sizeof frames[0]; k++) {
            size_t size;
            char *data = make_anim(ANIM_DECOYS, frames[k], bad[i], &size);
            assert_int_equal(same_for_all_threads(data, size, "gen.md5anim"), -1);
            free(data);
        }
    /* and the error is where the value is */
    size_t size;
    char *data = make_anim(ANIM_PLAIN, NUM_FRAMES * 2 / 3, "abc", &size);
    ossa_error err;
    ossa_model *m = load(data, size, "gen.md5anim", 2, &err);
    assert_null(m);
    const char *at = strstr(data, "\tabc ") + 1;
    uint32_t line = 1;
    const char *start = data;
    for (const char *p = data; p < at; p++)
        if (*p == '\n') line++, start = p + 1;
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_int_equal(err.line, line);
    assert_int_equal(err.column, (uint32_t)(at - start) + 1);
    free(data);
}

/* A missing frame, frames out of order, a frame too many or too few. */
static void test_anim_frame_structure(void **state)
{
    (void)state;
    size_t size;
    char *data = make_anim(ANIM_PLAIN, -1, NULL, &size);
    static const char *const edits[][2] = {
        {"\nframe 300 {", "\nframe 301 {"},
        {"\nframe 250 {", "\nframe 2500 {"},
        {"\nframe 400 {", "\nfrime 400 {"},
        {"\nframe 200 {", "\n}frame 200 {"},
        {"\nframe 350 {", "\nframe 350 {}"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        const char *at = strstr(data, edits[i][0]);
        assert_non_null(at);
        size_t n = strlen(edits[i][0]), r = strlen(edits[i][1]);
        char *copy = malloc(size + r + 1);
        assert_non_null(copy);
        size_t head = (size_t)(at - data);
        memcpy(copy, data, head);
        memcpy(copy + head, edits[i][1], r);
        memcpy(copy + head + r, at + n, size - head - n);
        assert_int_equal(same_for_all_threads(copy, size - n + r, "gen.md5anim"), -1);
        free(copy);
    }
    free(data);
}

/* Every prefix at a spread of lengths: the same result. */
static void test_anim_truncated(void **state)
{
    (void)state;
    size_t size;
    char *data = make_anim(ANIM_DECOYS | ANIM_LONG, -1, NULL, &size);
    for (size_t cut = size / 3; cut < size; cut += size / 97 + 13)
        same_for_all_threads(data, cut, "gen.md5anim");
    free(data);
}

typedef struct anim_job {
    const char *data;
    size_t size;
    const ossa_model *ref;
} anim_job;

/* The animation loaded with two threads: the reference model. */
static ossa_status anim_load_op(void *ctx, ts_alloc *a, ossa_error *err, ts_result *result)
{
    const anim_job *job = ctx;
    (void)result;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = "gen.md5anim";
    o.threads = 2;
    o.allocator = &a->allocator;
    ossa_model *m = ossa_load_memory(job->data, job->size, &o, err);
    if (!m) return OSSA_FAILED;
    same_model(job->ref, m);
    ossa_model_free(m);
    return OSSA_OK;
}

/* Allocations failing in turn with threads: a clean failure or the same
 * model. */
static void test_anim_allocation_failures(void **state)
{
    (void)state;
    size_t size;
    char *data = make_anim(ANIM_LONG, -1, NULL, &size);
    ossa_error err;
    ossa_model *ref = load(data, size, "gen.md5anim", 1, &err);
    assert_non_null(ref);
    anim_job job = {data, size, ref};
    ts_alloc_sweep_with("md5anim with 2 threads", anim_load_op, &job,
                        &(ts_sweep){.modes = TS_SWEEP_ONCE});
    ossa_model_free(ref);
    free(data);
}

static void test_mesh(void **state)
{
    (void)state;
    size_t size;
    char *data = make_mesh(-1, NULL, &size);
    assert_true(size > 512 * 1024);
    same_for_all_threads(data, size, "gen.md5mesh");
    free(data);
    static const char *const bad[] = {"99", "x", "-1", "}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int b = MESH_BLOCKS / 2; b < MESH_BLOCKS; b += 2) {
            data = make_mesh(b, bad[i], &size);
            assert_int_equal(same_for_all_threads(data, size, "gen.md5mesh"), -1);
            free(data);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anim_variants),
        cmocka_unit_test(test_anim_warning_lines),
        cmocka_unit_test(test_anim_errors),
        cmocka_unit_test(test_anim_frame_structure),
        cmocka_unit_test(test_anim_truncated),
        cmocka_unit_test(test_anim_allocation_failures),
        cmocka_unit_test(test_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
