/* Allocation failure: a small build, write and load sequence run once per
 * allocation it makes, with that allocation failing (once, or from then on).
 * Each run must end in success or a clean OSSA_ERROR_NOMEM, free everything
 * it allocated through the allocator and, when it succeeds, write the same
 * bytes as a run without failures. */
#include "support.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static ossa_transform translated(float x, float y, float z)
{
    ossa_transform t = ossa_transform_identity();
    t.translation[0] = x;
    t.translation[1] = y;
    t.translation[2] = z;
    return t;
}

#define ALLOC_NV 1500 /* positions > 16 KiB: the array gets an arena chunk of its own */

/* Builds a model, writes it, loads the result and writes that again, all
 * through `alloc`. Returns OSSA_OK, or OSSA_FAILED with err->code set. */
static ossa_status build_write_load(const ossa_allocator *alloc, ossa_error *err, void **bytes,
                                    size_t *size)
{
    *bytes = NULL;
    ossa_model *m = ossa_model_create(alloc);
    if (!m) {
        err->code = OSSA_ERROR_NOMEM; /* documented: NULL on allocation failure */
        return OSSA_FAILED;
    }
    static float pos[ALLOC_NV * 3], idx[ALLOC_NV * 4], wgt[ALLOC_NV * 4];
    static ossa_triangle tris[ALLOC_NV / 3];
    for (uint32_t v = 0; v < ALLOC_NV; v++) {
        pos[v * 3] = (float)(v % 37);
        pos[v * 3 + 1] = (float)(v / 37);
        pos[v * 3 + 2] = (float)(v % 5) * 0.25f;
        idx[v * 4] = (float)(v % 3);
        wgt[v * 4] = 1;
    }
    for (uint32_t t = 0; t < ALLOC_NV / 3; t++)
        tris[t] = (ossa_triangle){{3 * t, 3 * t + 1, 3 * t + 2}};
    ossa_transform b = translated(0, 1, 0);
    ossa_status st = OSSA_FAILED;
    ossa_model *back = NULL;
    void *again = NULL;
    size_t again_size = 0;
    ossa_write_options wo = {
        .format = OSSA_FORMAT_IQM, .bounds = OSSA_BOUNDS_EXACT, .allocator = alloc};
    ossa_load_options lo = {.file_name = "alloc.iqm", .allocator = alloc};
    if (ossa_model_add_joint(m, "root", -1, NULL, err) < 0 ||
        ossa_model_add_joint(m, "a", 0, &b, err) < 0 ||
        ossa_model_add_joint(m, "b", 1, &b, err) < 0 ||
        ossa_model_set_num_vertices(m, ALLOC_NV, err) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos,
                                            err) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, idx,
                                            err) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL, wgt,
                                            err) ||
        !ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_CUSTOM, OSSA_HALF, 1, "heat", pos,
                                            err) ||
        ossa_model_set_triangles(m, ALLOC_NV / 3, tris, err) ||
        ossa_model_add_mesh(m, "body", "skin", 0, ALLOC_NV, 0, ALLOC_NV / 3, err) < 0 ||
        ossa_model_set_comment(m, "comment", 7, err) ||
        ossa_model_add_extra(m, "iqm.extension:x", "data", 4, err))
        goto done;
    for (int a = 0; a < 2; a++) {
        ossa_animation *an = ossa_model_add_animation(m, a ? "two" : "one", 4, 10, 0, err);
        if (!an) goto done;
        for (uint32_t i = 0; i < 4 * 3; i++) an->frames[i].translation[2] = (float)(i * (a + 1));
    }
    if (ossa_write_memory(m, &wo, bytes, size, err)) goto done;
    back = ossa_load_memory(*bytes, *size, &lo, err);
    if (!back) goto done;
    if (ossa_write_memory(back, &wo, &again, &again_size, err)) goto done;
    assert_true(again_size > 0);
    st = OSSA_OK;
done:
    ossa_free(again, wo.allocator);
    ossa_model_free(back);
    ossa_model_free(m);
    return st;
}

static void run_failures(bool sticky)
{
    ts_alloc good;
    ts_alloc_init(&good, -1, false);
    ossa_error err;
    void *reference;
    size_t reference_size;
    assert_int_equal(build_write_load(&good.allocator, &err, &reference, &reference_size), OSSA_OK);
    long total = good.calls;
    assert_true(total > 10);
    printf("allocation-failure sweep over %ld allocations%s\n", total, sticky ? " (sticky)" : "");
    for (long n = 0; n < total; n++) {
        ts_alloc a;
        ts_alloc_init(&a, n, sticky);
        memset(&err, 0, sizeof err);
        void *bytes;
        size_t size;
        ossa_status st = build_write_load(&a.allocator, &err, &bytes, &size);
        if (st != OSSA_OK) {
            if (err.code != OSSA_ERROR_NOMEM)
                print_error("failing allocation %ld of %ld: error kind %s (%s)\n", n, total,
                            ossa_code_name(err.code), err.message);
            assert_int_equal(err.code, OSSA_ERROR_NOMEM);
            assert_int_equal(a.failures > 0, 1); /* failed only because of us */
        } else {
            /* An allocation failure that was recovered from: same output. */
            assert_int_equal(size, reference_size);
            assert_memory_equal(bytes, reference, size);
        }
        ossa_free(bytes, &a.allocator);
        if (a.live != 0) print_error("failing allocation %ld: %ld blocks leaked\n", n, a.live);
        assert_int_equal(a.live, 0);
        assert_int_equal(a.bad_frees, 0);
    }
    ossa_free(reference, &good.allocator);
    assert_int_equal(good.live, 0);
    assert_int_equal(good.bad_frees, 0);
}

/* -- Allocations that bypass the allocator ------------------------------------
 *
 * This test is linked with --wrap for malloc, calloc and realloc
 * (tests/CMakeLists.txt): every call to them from objects linked into it,
 * the static library's included, comes here. While `watching` (around
 * library calls given an allocator), each is a stray: memory the caller's
 * allocator never saw. cJSON lives in its shared library, out of reach of
 * --wrap: its allocations are not counted (see the README). */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *ptr, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *ptr, size_t size);

static bool watching;
static long stray;

void *__wrap_malloc(size_t size)
{
    stray += watching;
    return __real_malloc(size);
}

void *__wrap_calloc(size_t count, size_t size)
{
    stray += watching;
    return __real_calloc(count, size);
}

void *__wrap_realloc(void *ptr, size_t size)
{
    stray += watching;
    return __real_realloc(ptr, size);
}

/* The library gets this allocator, which forwards to a ts_alloc with
 * `watching` off: the counting allocator's own blocks are not strays. */
typedef struct unwatched {
    ossa_allocator allocator;
    ts_alloc *inner;
} unwatched;

static void *unwatched_alloc(void *user, size_t size)
{
    ts_alloc *a = ((unwatched *)user)->inner;
    bool was = watching;
    watching = false;
    void *p = a->allocator.alloc(a->allocator.user, size);
    watching = was;
    return p;
}

static void unwatched_free(void *user, void *ptr)
{
    ts_alloc *a = ((unwatched *)user)->inner;
    a->allocator.free(a->allocator.user, ptr);
}

static void unwatched_init(unwatched *u, ts_alloc *inner)
{
    u->inner = inner;
    u->allocator.alloc = unwatched_alloc;
    u->allocator.free = unwatched_free;
    u->allocator.user = u;
}

/* -- Every reader and every writer ------------------------------------------
 *
 * One generic sweep: a step run through a counting allocator, once without
 * failures (the reference), then once per allocation it made with that
 * allocation failing (once, and from then on). Each run ends in success
 * with the reference's bytes, or in OSSA_ERROR_NOMEM caused by a failure,
 * and leaves no block allocated. The bytes a step produces are its output
 * (a writer) or the loaded model written as IQM with the default
 * allocator (a reader): a reader that recovers from a failed allocation
 * by taking another path would show there. */

typedef struct step {
    const char *name;
    /* Runs once through `alloc`; on success *out (test-owned, malloc) holds
     * the bytes to compare. */
    ossa_status (*run)(struct step *s, ts_alloc *alloc, ossa_error *err, unsigned char **out,
                       size_t *out_size);
    ossa_format format;
    const char *file_name;
    const unsigned char *input; /* readers */
    size_t input_size;
    bool to_file;            /* writers: ossa_write_file with an output callback */
    long calls;              /* allocations of the load or write itself */
} step;

static unsigned char *copy_bytes(const void *data, size_t size)
{
    unsigned char *p = malloc(size ? size : 1);
    assert_non_null(p);
    if (size) memcpy(p, data, size);
    return p;
}

/* A loaded model as bytes: IQM holds what every reader produces (joints,
 * arrays as stored, meshes, frames, bounds, comment, extras); the counts
 * and flags that IQM would not show are prepended. */
static unsigned char *model_bytes(const ossa_model *m, size_t *size)
{
    ossa_write_options o = {.format = OSSA_FORMAT_IQM, .bounds = OSSA_BOUNDS_STORED};
    void *iqm;
    size_t n;
    ossa_error err;
    ossa_status st = ossa_write_memory(m, &o, &iqm, &n, &err);
    if (st) print_error("the loaded model cannot be written as IQM: %s\n", err.message);
    assert_int_equal(st, OSSA_OK);
    uint32_t head[8] = {m->num_joints,     m->num_vertices, m->num_triangles,
                        m->num_meshes,     m->num_animations, m->num_extras,
                        m->flags,          (uint32_t)m->source_format};
    unsigned char *out = malloc(sizeof head + n);
    assert_non_null(out);
    memcpy(out, head, sizeof head);
    memcpy(out + sizeof head, iqm, n);
    ossa_free(iqm, NULL);
    *size = sizeof head + n;
    return out;
}

static ossa_status run_load(step *s, ts_alloc *alloc, ossa_error *err, unsigned char **out,
                            size_t *out_size)
{
    unwatched u;
    unwatched_init(&u, alloc);
    ossa_load_options lo = {.format = s->format, .file_name = s->file_name, .allocator = &u.allocator};
    watching = true;
    ossa_model *m = ossa_load_memory(s->input, s->input_size, &lo, err);
    watching = false;
    if (!m) return OSSA_FAILED;
    /* Writing the model for the comparison uses its allocator too: only
     * the load's allocations are failed. */
    s->calls = alloc->calls;
    alloc->fail_at = -1;
    *out = model_bytes(m, out_size);
    ossa_model_free(m);
    return OSSA_OK;
}

typedef struct captured {
    unsigned char *data;
    size_t size;
} captured;

/* The files of a write, concatenated with their names. */
static ossa_status capture(void *user, const ossa_output_file *files, size_t count,
                           ossa_error *error)
{
    (void)error;
    captured *c = user;
    bool was = watching;
    watching = false; /* the test's own memory */
    for (size_t i = 0; i < count; i++) {
        size_t name = strlen(files[i].path) + 1;
        unsigned char *p = realloc(c->data, c->size + name + files[i].size);
        assert_non_null(p);
        memcpy(p + c->size, files[i].path, name);
        if (files[i].size) memcpy(p + c->size + name, files[i].data, files[i].size);
        c->data = p;
        c->size += name + files[i].size;
    }
    watching = was;
    return OSSA_OK;
}

static ossa_model *small_model(const ossa_allocator *alloc);

/* The model is built in the run, through the run's allocator with its
 * failures held back: writers may take temporaries from the model's
 * allocator as well as from the write options' one, and both are swept
 * (allocation n of the write fails, counted from the end of the build). */
static ossa_status run_write(step *s, ts_alloc *talloc, ossa_error *err, unsigned char **out,
                             size_t *out_size)
{
    unwatched u;
    unwatched_init(&u, talloc);
    long fail_at = talloc->fail_at;
    talloc->fail_at = -1;
    ossa_model *m = small_model(&u.allocator);
    long base = talloc->calls;
    if (fail_at >= 0) talloc->fail_at = base + fail_at;
    ossa_write_options wo = {.format = s->format, .allocator = &u.allocator};
    ossa_status st;
    if (s->to_file) {
        captured c = {NULL, 0};
        wo.output = capture;
        wo.user = &c;
        watching = true;
        st = ossa_write_file(m, s->file_name, &wo, err);
        watching = false;
        if (!st) {
            *out = c.data ? c.data : copy_bytes("", 0);
            *out_size = c.size;
        } else {
            free(c.data);
        }
    } else {
        void *data;
        size_t size;
        watching = true;
        st = ossa_write_memory(m, &wo, &data, &size, err);
        watching = false;
        if (!st) {
            *out = copy_bytes(data, size);
            *out_size = size;
            ossa_free(data, &u.allocator);
        }
    }
    s->calls = talloc->calls - base;
    talloc->fail_at = -1;
    ossa_model_free(m);
    return st;
}

/* Returns the number of allocations of the step. */
static long sweep(step *s)
{
    ts_alloc good;
    ts_alloc_init(&good, -1, false);
    ossa_error err;
    unsigned char *reference;
    size_t reference_size;
    stray = 0;
    ossa_status st = s->run(s, &good, &err, &reference, &reference_size);
    if (st) print_error("%s: %s: %s\n", s->name, ossa_code_name(err.code), err.message);
    assert_int_equal(st, OSSA_OK);
    if (stray) print_error("%s: %ld allocations bypassed the allocator\n", s->name, stray);
    assert_int_equal(stray, 0);
    assert_int_equal(good.live, 0);
    assert_int_equal(good.bad_frees, 0);
    long total = s->calls ? s->calls : good.calls;
    if (total == 0) print_error("%s: no allocation went through the allocator\n", s->name);
    assert_true(total > 0);
    for (int sticky = 0; sticky < 2; sticky++)
        for (long n = 0; n < total; n++) {
            ts_alloc a;
            ts_alloc_init(&a, n, sticky);
            memset(&err, 0, sizeof err);
            unsigned char *bytes = NULL;
            size_t size = 0;
            st = s->run(s, &a, &err, &bytes, &size);
            if (st) {
                if (err.code != OSSA_ERROR_NOMEM || !a.failures)
                    print_error("%s: failing allocation %ld of %ld%s: %s (%s)\n", s->name, n, total,
                                sticky ? " and on" : "", ossa_code_name(err.code), err.message);
                assert_int_equal(err.code, OSSA_ERROR_NOMEM);
                assert_true(a.failures > 0);
            } else {
                if (size != reference_size || memcmp(bytes, reference, size) != 0)
                    print_error("%s: failing allocation %ld%s: success with other bytes\n",
                                s->name, n, sticky ? " and on" : "");
                assert_int_equal(size, reference_size);
                assert_memory_equal(bytes, reference, size);
                free(bytes);
            }
            if (a.live != 0)
                print_error("%s: failing allocation %ld: %ld blocks leaked\n", s->name, n, a.live);
            assert_int_equal(a.live, 0);
            assert_int_equal(a.bad_frees, 0);
        }
    free(reference);
    return total;
}

/* A small model every writer can write, facing -Y (so that writers of
 * formats facing +X turn it: core/front.c): three joints in a chain (the
 * root scaled by 2 in every pose, the head by 1.5 in one frame, so that
 * writers without scale bake it: core/scale.c), two quads (positions,
 * normals, texcoords, ubyte blend indexes, float blend weights, which
 * IQM converts), two meshes, two animations, a comment. */
static ossa_model *small_model(const ossa_allocator *alloc)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(alloc);
    assert_non_null(m);
    ossa_model_set_front(m, OSSA_FRONT_NEG_Y);
    ossa_transform up = translated(0, 0, 1), root = ossa_transform_identity();
    for (int k = 0; k < 3; k++) root.scale[k] = 2;
    assert_int_equal(ossa_model_add_joint(m, "root", -1, &root, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "spine", 0, &up, &err), 1);
    assert_int_equal(ossa_model_add_joint(m, "head", 1, &up, &err), 2);
    enum { NV = 8 };
    float pos[NV * 3], nrm[NV * 3], uv[NV * 2], idx[NV * 4], wgt[NV * 4];
    for (uint32_t v = 0; v < NV; v++) {
        pos[v * 3] = (float)(v & 1);
        pos[v * 3 + 1] = (float)((v >> 1) & 1);
        pos[v * 3 + 2] = (float)(v >> 2) * 1.5f;
        nrm[v * 3] = 0;
        nrm[v * 3 + 1] = 0;
        nrm[v * 3 + 2] = 1;
        uv[v * 2] = pos[v * 3];
        uv[v * 2 + 1] = pos[v * 3 + 1];
        for (int k = 0; k < 4; k++) idx[v * 4 + k] = wgt[v * 4 + k] = 0;
        idx[v * 4] = (float)(v >> 2);
        idx[v * 4 + 1] = (float)((v >> 2) + 1);
        wgt[v * 4] = 0.75f;
        wgt[v * 4 + 1] = 0.25f;
    }
    static const ossa_triangle tris[] = {{{0, 2, 1}}, {{1, 2, 3}}, {{4, 6, 5}}, {{5, 6, 7}}};
    assert_int_equal(ossa_model_set_num_vertices(m, NV, &err), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3,
                                                       NULL, pos, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2,
                                                       NULL, uv, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3,
                                                       NULL, nrm, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE,
                                                       4, NULL, idx, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT,
                                                       4, NULL, wgt, &err));
    assert_int_equal(ossa_model_set_triangles(m, 4, tris, &err), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "lower", "skin", 0, 4, 0, 2, &err) >= 0);
    assert_true(ossa_model_add_mesh(m, "upper", "cloth", 4, 4, 2, 2, &err) >= 0);
    assert_int_equal(ossa_model_set_comment(m, "small", 5, &err), OSSA_OK);
    for (int a = 0; a < 2; a++) {
        ossa_animation *an = ossa_model_add_animation(m, a ? "nod" : "bend", 3, 24, 0, &err);
        assert_non_null(an);
        for (uint32_t f = 0; f < 3; f++) {
            float angle = 0.3f * (float)f * (a ? -1.0f : 1.0f);
            ossa_transform *t = &an->frames[f * 3 + 1 + (uint32_t)a];
            t->rotation[0] = sinf(angle / 2);
            t->rotation[3] = cosf(angle / 2);
            if (a && f == 2)
                for (int k = 0; k < 3; k++) t->scale[k] = 1.5f;
        }
    }
    return m;
}

/* What each writer gets (the format's first extension names the file). */
static const char *file_name_for(ossa_format f, char *buf, size_t cap)
{
    const char *ext = ossa_format_extensions(f);
    size_t n = strcspn(ext, " ");
    snprintf(buf, cap, "sweep%.*s", (int)n, ext);
    return buf;
}

static void test_every_writer(void **state)
{
    (void)state;
    ossa_format formats[64];
    uint32_t n = ossa_format_list(formats, 64), writers = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!ossa_format_can_write(formats[i])) continue;
        char file[64], name[96];
        for (int to_file = 0; to_file < 2; to_file++) {
            snprintf(name, sizeof name, "%s writer%s", ossa_format_name(formats[i]),
                     to_file ? " (all files)" : "");
            step s = {.name = name,
                      .run = run_write,
                      .format = formats[i],
                      .file_name = file_name_for(formats[i], file, sizeof file),
                      .to_file = to_file};
            long total = sweep(&s);
            printf("%-28s %5ld allocations\n", name, total);
        }
        writers++;
    }
    assert_true(writers >= 10);
}

/* Every format that can be both written and read is read back from the
 * writer's output (each file of a multi-file write is its own input);
 * FBX is read from the shared samples too (ASCII, and files of other
 * writers). */
static void sweep_reader(ossa_format format, const char *file_name, const unsigned char *data,
                         size_t size)
{
    char name[96];
    snprintf(name, sizeof name, "%s reader (%s)", ossa_format_name(format), file_name);
    step s = {.name = name,
              .run = run_load,
              .format = format,
              .file_name = file_name,
              .input = data,
              .input_size = size};
    long total = sweep(&s);
    printf("%-40s %5ld allocations\n", name, total);
}

typedef struct written {
    size_t count;
    char *paths[16];
} written;

static void note_written(void *user, const char *path)
{
    written *w = user;
    if (w->count < 16) w->paths[w->count++] = strdup(path);
}

static void test_every_reader(void **state)
{
    (void)state;
    ossa_model *m = small_model(NULL);
    ossa_format formats[64];
    uint32_t n = ossa_format_list(formats, 64), readers = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!ossa_format_can_write(formats[i]) || !ossa_format_can_read(formats[i])) continue;
        /* Written to disk, so that files naming others (.gltf and its
         * .bin) are read as they would be. */
        char file[64];
        char *path = ts_tmp_path(file_name_for(formats[i], file, sizeof file));
        written w = {0};
        ossa_write_options wo = {.format = formats[i], .wrote = note_written, .user = &w};
        ossa_error err;
        assert_int_equal(ossa_write_file(m, path, &wo, &err), OSSA_OK);
        for (size_t k = 0; k < w.count; k++) {
            ossa_format f = ossa_format_from_name(w.paths[k]);
            if (ossa_format_can_read(f)) {
                size_t size;
                unsigned char *data = ts_read_file(w.paths[k], &size);
                assert_non_null(data);
                sweep_reader(f, w.paths[k], data, size);
                free(data);
                readers++;
            }
        }
        for (size_t k = 0; k < w.count; k++) {
            remove(w.paths[k]);
            free(w.paths[k]);
        }
        free(path);
    }
    /* The embedded form of .gltf too. */
    void *data;
    size_t size;
    static const ossa_option embed_option = {"gltf.embed", "on"};
    ossa_write_options embed = {.format = OSSA_FORMAT_GLTF, .format_options = &embed_option,
                                .num_format_options = 1};
    ossa_error err;
    assert_int_equal(ossa_write_memory(m, &embed, &data, &size, &err), OSSA_OK);
    sweep_reader(OSSA_FORMAT_GLTF, "embedded.gltf", data, size);
    ossa_free(data, NULL);
    assert_true(readers >= 10);
    ossa_model_free(m);
    /* .nto has no writer: seeds of fuzz_nto (beside this file's folder),
     * read with their image decoded and encoded as PNG (zlib's memory too). */
    static const char *const textures[] = {"pal8_swz.nto", "pal4_swz.nto", "rgba32_mips.nto"};
    const char *here = __FILE__, *slash = strrchr(here, '/');
    for (size_t i = 0; i < sizeof textures / sizeof textures[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%.*s/../fuzz/corpus/nto/%s", slash ? (int)(slash - here) : 1,
                 slash ? here : ".", textures[i]);
        unsigned char *bytes = ts_read_file(path, &size);
        assert_non_null(bytes);
        sweep_reader(OSSA_FORMAT_SOTC_NTO, textures[i], bytes, size);
        free(bytes);
    }
    if (!ts_shared_data_available()) return;
    static const char *const shared[] = {"fbx/box.fbx", "fbx/box_ascii.fbx",
                                         "gltf/SimpleSkin.gltf", "iqm/guyanim.iqm"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        unsigned char *bytes = ts_read_shared(shared[i], &size);
        sweep_reader(ossa_format_from_name(shared[i]), strrchr(shared[i], '/') + 1, bytes, size);
        free(bytes);
    }
}

/* The files of a directory, sorted, as "name\0contents" concatenated; the
 * files are removed. */
static unsigned char *take_directory(const char *dir, size_t *size, int *count)
{
    char *names[32];
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            assert_true(n < 32);
            names[n++] = strdup(e->d_name);
        }
    closedir(d);
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && strcmp(names[k - 1], names[k]) > 0; k--) {
            char *t = names[k];
            names[k] = names[k - 1];
            names[k - 1] = t;
        }
    captured all = {NULL, 0};
    for (int i = 0; i < n; i++) {
        char *path = ts_path_join(dir, names[i]);
        size_t fs;
        unsigned char *data = ts_read_file(path, &fs);
        assert_non_null(data);
        ossa_output_file f = {names[i], data, fs};
        capture(&all, &f, 1, NULL);
        remove(path);
        free(data);
        free(path);
        free(names[i]);
    }
    *size = all.size;
    *count = n;
    return all.data;
}

/* ossa_write_file for real (temporaries, renames) with each allocation
 * failing: a failed write leaves nothing in the directory (no target, no
 * temporary), a successful one the reference's files. */
static void test_atomic_write_files(void **state)
{
    (void)state;
    ts_alloc model_alloc;
    ts_alloc_init(&model_alloc, -1, false);
    unwatched mu;
    unwatched_init(&mu, &model_alloc);
    ossa_model *m = small_model(&mu.allocator);
    char *dir = ts_tmp_path("alloc_write");
    mkdir(dir, 0777);
    size_t junk_size;
    int junk;
    free(take_directory(dir, &junk_size, &junk));
    static const struct {
        ossa_format format;
        const char *name;
        int files;
    } outputs[] = {{OSSA_FORMAT_ILLMESH, "out.illmesh", 4}, /* mesh, skeleton, 2 animations */
                   {OSSA_FORMAT_GLTF, "out.gltf", 2},       /* and out.bin */
                   {OSSA_FORMAT_IQM, "out.iqm", 1}};
    for (size_t o = 0; o < sizeof outputs / sizeof outputs[0]; o++) {
        char *path = ts_path_join(dir, outputs[o].name);
        ts_alloc good;
        ts_alloc_init(&good, -1, false);
        unwatched u;
        unwatched_init(&u, &good);
        ossa_write_options wo = {.format = outputs[o].format, .allocator = &u.allocator};
        ossa_error err;
        stray = 0;
        watching = true;
        assert_int_equal(ossa_write_file(m, path, &wo, &err), OSSA_OK);
        watching = false;
        assert_int_equal(good.live, 0);
        if (stray) print_error("%s: %ld allocations bypassed the allocator\n", outputs[o].name, stray);
        assert_int_equal(stray, 0);
        size_t ref_size;
        int ref_count;
        unsigned char *ref = take_directory(dir, &ref_size, &ref_count);
        assert_int_equal(ref_count, outputs[o].files);
        long total = good.calls;
        for (int sticky = 0; sticky < 2; sticky++)
            for (long n = 0; n < total; n++) {
                ts_alloc a;
                ts_alloc_init(&a, n, sticky);
                unwatched_init(&u, &a);
                ossa_status st = ossa_write_file(m, path, &wo, &err);
                size_t size;
                int count;
                unsigned char *got = take_directory(dir, &size, &count);
                if (st) {
                    assert_int_equal(err.code, OSSA_ERROR_NOMEM);
                    if (count) print_error("%s: failing allocation %ld left %d files\n",
                                           outputs[o].name, n, count);
                    assert_int_equal(count, 0);
                } else {
                    assert_int_equal(size, ref_size);
                    assert_memory_equal(got, ref, size);
                }
                free(got);
                assert_int_equal(a.live, 0);
                assert_int_equal(a.bad_frees, 0);
            }
        printf("%-12s written for real: %ld allocations\n", outputs[o].name, total);
        free(ref);
        free(path);
    }
    rmdir(dir);
    free(dir);
    ossa_model_free(m);
    assert_int_equal(model_alloc.live, 0);
}

static void test_allocation_failure_once(void **state)
{
    (void)state;
    run_failures(false);
}

static void test_allocation_failure_sticky(void **state)
{
    (void)state;
    run_failures(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocation_failure_once),
        cmocka_unit_test(test_allocation_failure_sticky),
        cmocka_unit_test(test_every_writer),
        cmocka_unit_test(test_every_reader),
        cmocka_unit_test(test_atomic_write_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
