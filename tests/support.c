#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* -- Files and paths -------------------------------------------------------- */

unsigned char *ts_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        unsigned char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) *size = n;
    return buf;
}

char *ts_path_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    assert_non_null(p);
    memcpy(p, a, la);
    p[la] = '/';
    memcpy(p + la + 1, b, lb + 1);
    return p;
}

static char *shared_data_dir(void)
{
    const char *shared = getenv("OSSA_SHARED_DIR");
    if (!shared || !*shared) return NULL;
    return ts_path_join(shared, "data");
}

bool ts_shared_data_available(void)
{
    char *dir = shared_data_dir();
    struct stat st;
    bool ok = dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    free(dir);
    return ok;
}

void ts_require_shared_data(void)
{
    if (ts_shared_data_available()) return;
    ts_skip("../shared/data not found");
}

/* -- Skips: counted for ctest (SKIP_RETURN_CODE) and for `make test` --
 *
 * The test executables are linked with --wrap for cmocka's _skip and
 * _cmocka_run_group_tests (tests/CMakeLists.txt), so that every skip is
 * seen, also the plain skip() of a test, without changing any main(). */

static int skipped_cases;
static char skip_reason[200];

void __real__skip(const char *const file, const int line);
void __wrap__skip(const char *const file, const int line);
int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown);

void __wrap__skip(const char *const file, const int line)
{
    skipped_cases++;
    __real__skip(file, line);
}

void ts_skip(const char *reason)
{
    if (!skip_reason[0]) snprintf(skip_reason, sizeof skip_reason, "%s", reason);
    printf("SKIP: %s\n", reason);
    fflush(stdout);
    skip();
}

/* $OSSA_TEST_TMP/skipped/<this program>: one line, the reason. */
static void record_skip(size_t num_tests)
{
    const char *tmp = getenv("OSSA_TEST_TMP");
    char exe[512] = "test", dir[1024], path[1600];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = 0;
    const char *name = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    const char *why = skip_reason[0] ? skip_reason : "the test printed why (ctest -V)";
    printf("SKIPPED: %d of %zu cases: %s\n", skipped_cases, num_tests, why);
    if (!tmp || !*tmp) return;
    snprintf(dir, sizeof dir, "%s/skipped", tmp);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "%s\n", why);
    fclose(f);
}

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *const tests,
                                   const size_t num_tests, CMFixtureFunction group_setup,
                                   CMFixtureFunction group_teardown)
{
    int failed = __real__cmocka_run_group_tests(group_name, tests, num_tests, group_setup,
                                                group_teardown);
    if (failed || !skipped_cases) return failed;
    record_skip(num_tests);
    return TS_SKIP_EXIT;
}

unsigned char *ts_read_shared(const char *rel, size_t *size)
{
    ts_require_shared_data();
    char *dir = shared_data_dir();
    char *path = ts_path_join(dir, rel);
    unsigned char *data = ts_read_file(path, size);
    if (!data) print_error("cannot read %s\n", path);
    free(dir);
    free(path);
    assert_non_null(data);
    return data;
}

char *ts_tmp_path(const char *name)
{
    const char *tmp = getenv("OSSA_TEST_TMP");
    return ts_path_join(tmp && *tmp ? tmp : "/tmp", name);
}

char *ts_generate_tga(const char *name)
{
    const char *src = getenv("OSSA_TEST_SOURCE");
    char *dir = ts_tmp_path(name);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "python3 '%s/gen_tga.py' '%s' >/dev/null 2>&1", src ? src : "tests", dir);
    if (!src || system(cmd) != 0) {
        free(dir);
        ts_skip("python3 tests/gen_tga.py could not be run");
        return NULL;
    }
    return dir;
}

/* -- Loading and writing ---------------------------------------------------- */

ossa_model *ts_load(const void *data, size_t size)
{
    ossa_error err;
    ossa_model *m = ossa_load_memory(data, size, NULL, &err);
    if (!m) print_error("load failed: %s: %s\n", ossa_code_name(err.code), err.message);
    assert_non_null(m);
    return m;
}

ossa_model *ts_load_shared(const char *rel, unsigned char **file, size_t *size)
{
    *file = ts_read_shared(rel, size);
    return ts_load(*file, *size);
}

ossa_clip *ts_compress(const ossa_model *m, uint32_t a, float bound)
{
    ossa_clip_options o = {0};
    o.compression = OSSA_CLIP_COMPRESSED;
    o.max_error = bound;
    ossa_error e;
    ossa_clip *c = ossa_clip_create(m, a, &o, &e);
    if (!c) fail_msg("compress: %s", e.message);
    return c;
}

unsigned char *ts_write(const ossa_model *m, const ossa_write_options *options, size_t *size)
{
    static const ossa_write_options iqm = {.format = OSSA_FORMAT_IQM};
    void *data;
    ossa_error err;
    ossa_status st = ossa_write_memory(m, options ? options : &iqm, &data, size, &err);
    if (st) print_error("write failed: %s: %s\n", ossa_code_name(err.code), err.message);
    assert_int_equal(st, OSSA_OK);
    return data;
}

/* -- Comparisons ------------------------------------------------------------ */

double ts_ulp(double x)
{
    float f = fabsf((float)x);
    return (double)nextafterf(f, INFINITY) - f;
}

float ts_channel(const ossa_transform *t, int k)
{
    if (k < 3) return t->translation[k];
    if (k < 7) return t->rotation[k - 3];
    return t->scale[k - 7];
}

void ts_assert_near(double a, double b, double tol, const char *ea, const char *eb,
                    const char *file, int line)
{
    if (fabs(a - b) <= tol) return;
    print_error("%s:%d: %s = %.9g and %s = %.9g differ by %.3g (tolerance %.3g)\n", file, line, ea,
                a, eb, b, fabs(a - b), tol);
    fail();
}

static void normalize(const float q[4], double out[4])
{
    double n =
        sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    for (int k = 0; k < 4; k++) out[k] = n > 0 ? q[k] / n : 0;
}

static double quat_distance(const float a[4], const float b[4], bool either_sign)
{
    double x[4], y[4], same = 0, opposite = 0;
    normalize(a, x);
    normalize(b, y);
    for (int k = 0; k < 4; k++) {
        same = fmax(same, fabs(x[k] - y[k]));
        opposite = fmax(opposite, fabs(x[k] + y[k]));
    }
    return either_sign ? fmin(same, opposite) : same;
}

double ts_quat_distance(const float a[4], const float b[4]) { return quat_distance(a, b, true); }

double ts_quat_distance_signed(const float a[4], const float b[4])
{
    return quat_distance(a, b, false);
}

void ts_assert_quat(const float a[4], const float b[4], double tol, bool same_sign,
                    const char *file, int line)
{
    double d = quat_distance(a, b, !same_sign);
    if (d <= tol) return;
    print_error("%s:%d: quaternions (%.9g %.9g %.9g %.9g) and (%.9g %.9g %.9g %.9g) differ by "
                "%.3g (tolerance %.3g%s)\n",
                file, line, a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3], d, tol,
                same_sign ? ", same sign required" : "");
    fail();
}

/* -- Allocator -------------------------------------------------------------- */

/* Each block starts with this header; the magic catches foreign pointers. */
typedef struct block_header {
    uint64_t magic;
    size_t size;
    max_align_t align;
} block_header;

#define TS_BLOCK_MAGIC 0x7E57A110C8ull

static void *ts_alloc_fn(void *user, size_t size)
{
    ts_alloc *a = user;
    long n = a->calls++;
    if (size > a->max_request) a->max_request = size;
    bool fail_now = a->fail_at >= 0 && (n == a->fail_at || (a->sticky && n > a->fail_at));
    if (fail_now || (a->refuse_above && size > a->refuse_above) ||
        size > SIZE_MAX - sizeof(block_header)) {
        a->failures++;
        return NULL;
    }
    block_header *h = malloc(sizeof *h + size);
    if (!h) {
        a->failures++;
        return NULL;
    }
    h->magic = TS_BLOCK_MAGIC;
    h->size = size;
    a->live++;
    a->live_bytes += size;
    return h + 1;
}

static void ts_free_fn(void *user, void *ptr)
{
    ts_alloc *a = user;
    if (!ptr) return;
    block_header *h = (block_header *)ptr - 1;
    if (h->magic != TS_BLOCK_MAGIC) {
        a->bad_frees++;
        return;
    }
    h->magic = 0;
    a->live--;
    a->live_bytes -= h->size;
    free(h);
}

void ts_alloc_init(ts_alloc *a, long fail_at, bool sticky)
{
    memset(a, 0, sizeof *a);
    a->fail_at = fail_at;
    a->sticky = sticky;
    a->allocator.alloc = ts_alloc_fn;
    a->allocator.free = ts_free_fn;
    a->allocator.user = a;
}

/* -- Little-endian access --------------------------------------------------- */

uint16_t ts_le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

uint32_t ts_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

float ts_lef32(const unsigned char *p)
{
    uint32_t u = ts_le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void ts_put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

void ts_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

void ts_putf32(unsigned char *p, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    ts_put32(p, u);
}

/* -- Minimal IQM v2 decoder ------------------------------------------------- */

int ts_popcount(uint32_t v)
{
    int n = 0;
    for (; v; v >>= 1) n += (int)(v & 1);
    return n;
}

uint32_t ts_iqm_header(const unsigned char *file, int field) { return ts_le32(file + field); }

const char *ts_iqm_text(const unsigned char *file, uint32_t ofs)
{
    return (const char *)file + ts_iqm_header(file, TS_IQM_OFS_TEXT) + ofs;
}

/* joint: 0 name, 4 parent, 8 translate[3], 20 rotate[4], 36 scale[3] (48 bytes) */
void ts_iqm_joint_at(const unsigned char *file, uint32_t j, ts_iqm_joint *out)
{
    const unsigned char *p = file + ts_iqm_header(file, TS_IQM_OFS_JOINTS) + (size_t)j * 48;
    out->name = ts_iqm_text(file, ts_le32(p));
    out->parent = (int32_t)ts_le32(p + 4);
    for (int k = 0; k < 3; k++) out->t[k] = ts_lef32(p + 8 + 4 * k);
    for (int k = 0; k < 4; k++) out->q[k] = ts_lef32(p + 20 + 4 * k);
    for (int k = 0; k < 3; k++) out->s[k] = ts_lef32(p + 36 + 4 * k);
}

/* pose: 0 parent, 4 mask, 8 offset[10], 48 scale[10] (88 bytes) */
void ts_iqm_pose_at(const unsigned char *file, uint32_t j, ts_iqm_pose *out)
{
    const unsigned char *p = file + ts_iqm_header(file, TS_IQM_OFS_POSES) + (size_t)j * 88;
    out->parent = (int32_t)ts_le32(p);
    out->mask = ts_le32(p + 4);
    for (int k = 0; k < 10; k++) {
        out->offset[k] = ts_lef32(p + 8 + 4 * k);
        out->scale[k] = ts_lef32(p + 48 + 4 * k);
    }
}

/* anim: 0 name, 4 first_frame, 8 num_frames, 12 framerate, 16 flags (20 bytes) */
void ts_iqm_anim_at(const unsigned char *file, uint32_t a, ts_iqm_anim *out)
{
    const unsigned char *p = file + ts_iqm_header(file, TS_IQM_OFS_ANIMS) + (size_t)a * 20;
    out->name = ts_iqm_text(file, ts_le32(p));
    out->first_frame = ts_le32(p + 4);
    out->num_frames = ts_le32(p + 8);
    out->framerate = ts_lef32(p + 12);
    out->flags = ts_le32(p + 16);
}

/* Index of the sample of (pose j, channel k) inside one frame: the animated
 * channels of all earlier poses, then those of pose j below k. */
static uint32_t sample_index(const unsigned char *file, uint32_t j, int k)
{
    uint32_t index = 0;
    ts_iqm_pose pose;
    for (uint32_t i = 0; i < j; i++) {
        ts_iqm_pose_at(file, i, &pose);
        index += (uint32_t)ts_popcount(pose.mask);
    }
    ts_iqm_pose_at(file, j, &pose);
    return index + (uint32_t)ts_popcount(pose.mask & ((1u << k) - 1));
}

uint16_t ts_iqm_sample(const unsigned char *file, uint32_t g, uint32_t j, int k)
{
    uint32_t nfc = ts_iqm_header(file, TS_IQM_NUM_FRAMECHANNELS);
    const unsigned char *frames = file + ts_iqm_header(file, TS_IQM_OFS_FRAMES);
    return ts_le16(frames + ((size_t)g * nfc + sample_index(file, j, k)) * 2);
}

void ts_iqm_channels(const unsigned char *file, uint32_t g, uint32_t j, float v[10])
{
    ts_iqm_pose pose;
    ts_iqm_pose_at(file, j, &pose);
    for (int k = 0; k < 10; k++) {
        v[k] = pose.offset[k];
        if (pose.mask & (1u << k)) {
            float step = (float)ts_iqm_sample(file, g, j, k) * pose.scale[k];
            v[k] = v[k] + step;
        }
    }
}

/* -- Random numbers -- */

uint64_t ts_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

float ts_random_float(uint64_t *state)
{
    for (;;) {
        uint32_t u = (uint32_t)ts_rand(state);
        float f;
        memcpy(&f, &u, 4);
        if (isfinite(f)) return f;
    }
}

void ts_assert_same_diagnostic(const ossa_diagnostic *a, const ossa_diagnostic *b)
{
    assert_int_equal(a->code, b->code);
    assert_int_equal(a->severity, b->severity);
    assert_int_equal(a->line, b->line);
    assert_int_equal(a->column, b->column);
    assert_true(a->offset == b->offset);
    assert_string_equal(a->message, b->message);
}

void ts_options_parse(ts_options *o, const char *spec)
{
    memset(o, 0, sizeof *o);
    if (!spec) return;
    assert_true(strlen(spec) < sizeof o->text);
    strcpy(o->text, spec);
    for (char *p = o->text; *p;) {
        while (*p == ' ') *p++ = 0;
        if (!*p) break;
        assert_true(o->count < sizeof o->list / sizeof *o->list);
        ossa_option *opt = &o->list[o->count++];
        opt->name = p;
        while (*p && *p != ' ' && *p != '=') p++;
        if (*p == '=') {
            *p++ = 0;
            opt->value = p;
            while (*p && *p != ' ') p++;
        }
    }
}
