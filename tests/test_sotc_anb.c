/* SOTC .anb animations (docs/formats/sotc.md §3, §9): every rotation encoding
 * decoded from bit patterns computed here by hand from the layouts, the
 * encoder's output decoded again for every flag, the writer's choice of
 * flags and its reports, files loaded alone, and malformed files. The test
 * builds its own XFF containers (§2) so that the reader is checked against
 * this file's reading of docs/formats/sotc.md, not against the library's writer. */
#include "support.h"

#include "formats/sotc/sotc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* -- A minimal XFF (docs/formats/sotc.md §2): header, section table at 0x78, .rodata at
 *    0x100. -- */

static unsigned char *wrap_xff(const unsigned char *ro, size_t ro_size, uint32_t entry,
                               size_t *size)
{
    size_t total = 0x100 + ro_size;
    unsigned char *f = calloc(1, total);
    assert_non_null(f);
    memcpy(f, "xff\0", 4);
    ts_put32(f + 0x14, (uint32_t)total);
    ts_put32(f + 0x40, 2);
    ts_put32(f + 0x4C, entry);
    ts_put32(f + 0x5C, 0x78);
    ts_put32(f + 0x78 + 0x10, 8);          /* section 0: no bits */
    ts_put32(f + 0x98 + 0x08, (uint32_t)ro_size);
    ts_put32(f + 0x98 + 0x0C, 16);
    ts_put32(f + 0x98 + 0x10, 1);
    ts_put32(f + 0x98 + 0x1C, 0x100);
    memcpy(f + 0x100, ro, ro_size);
    *size = total;
    return f;
}

/* One bone for anb_file: its flag, descriptor bytes (size by flag, the
 * payload pointer filled in here) and payload. */
typedef struct test_bone {
    unsigned flag;
    unsigned char desc[36];
    const unsigned char *payload;
    size_t payload_size;
} test_bone;

static uint32_t desc_size(unsigned flag)
{
    return flag == 0 ? 16 : flag <= 6 ? 36 : flag == 12 ? 28 : flag == 13 ? 24 : 16;
}

/* .rodata: header (68 bytes) at 0, flags at 68, the descriptor table,
 * then each descriptor (16-aligned) and payload (4-aligned). */
static unsigned char *anb_file(const test_bone *bones, uint32_t n, uint32_t frames, size_t *size)
{
    size_t cap = 4096;
    for (uint32_t i = 0; i < n; i++) cap += 64 + bones[i].payload_size;
    unsigned char *ro = calloc(1, cap);
    assert_non_null(ro);
    ts_put32(ro, 12);
    ts_put32(ro + 4, frames);
    uint32_t flags = 68, descs = (68 + n + 3) & ~3u, at = descs + 4 * n;
    ts_put32(ro + 8, flags);
    ts_put32(ro + 0x10, descs);
    ts_put32(ro + 0x14, n);
    for (uint32_t i = 0; i < n; i++) {
        const test_bone *b = &bones[i];
        uint32_t ds = desc_size(b->flag);
        at = (at + 15) & ~15u;
        ro[flags + i] = (unsigned char)b->flag;
        ts_put32(ro + descs + 4 * i, at);
        memcpy(ro + at, b->desc, ds);
        uint32_t d = at;
        at += ds;
        if (b->payload_size) {
            at = (at + 3) & ~3u;
            ts_put32(ro + d + ds - 4, at);
            memcpy(ro + at, b->payload, b->payload_size);
            at += (uint32_t)b->payload_size;
        }
    }
    unsigned char *f = wrap_xff(ro, at, 0, size);
    free(ro);
    return f;
}

static ossa_model *load(const unsigned char *data, size_t size, const char *name, float fps)
{
    ossa_load_options o = {0};
    o.file_name = name;
    o.framerate = fps;
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_model *m = ossa_load_memory(data, size, &o, &err);
    if (!m) print_error("load failed: %s\n", err.message);
    assert_non_null(m);
    return m;
}

static void put_floats(unsigned char *p, const float *f, int n)
{
    for (int i = 0; i < n; i++) ts_putf32(p + 4 * i, f[i]);
}

/* The model holds (-x, -y, -z, w) of the stored quaternion (§5), normalized. */
static void expect_stored(const ossa_model *m, uint32_t frame, uint32_t bone, const double s[4],
                          double tol)
{
    double n = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3]);
    float want[4] = {(float)(-s[0] / n), (float)(-s[1] / n), (float)(-s[2] / n),
                     (float)(s[3] / n)};
    const float *got = m->animations[0].frames[(size_t)frame * m->num_joints + bone].rotation;
    if (ts_quat_distance_signed(got, want) > tol)
        print_error("bone %u frame %u: got %g %g %g %g, want %g %g %g %g\n", bone, frame, got[0],
                    got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
    TS_ASSERT_QUAT_SAME(got, want, tol);
}

/* -- Decoding, bit patterns computed by hand -- */

static void test_flag0_floats(void **state)
{
    (void)state;
    test_bone b = {0};
    float q[4] = {0.1f, -0.2f, 0.3f, 0.927361849f};
    put_floats(b.desc, q, 4);
    size_t size;
    unsigned char *f = anb_file(&b, 1, 3, &size);
    ossa_model *m = load(f, size, "pose.anb", 0);
    double s[4] = {0.1f, -0.2f, 0.3f, 0.927361849f};
    for (uint32_t fr = 0; fr < 3; fr++) expect_stored(m, fr, 0, s, 1e-7);
    ossa_model_free(m);
    free(f);
}

/* Flags 3-6 with pairs chosen so that bias and scale cannot be confused:
 * kept component n is f[2n] + (r / 256) * f[2n+1]. */
static void test_flags_3_to_6_patterns(void **state)
{
    (void)state;
    /* pair 0 = (0.25, 0.5): r = 128 gives 0.5, r = -128 gives 0
     * pair 1 = (-0.25, 0.5): r = -128 gives -0.5, r = 128 gives 0
     * pair 2 = (0, 1): r = 128 gives 0.5, r = -128 (0x180) gives -0.5 */
    const float pairs[8] = {0.25f, 0.5f, -0.25f, 0.5f, 0.0f, 1.0f, 0.0f, 0.0f};
    /* flag 3, x dropped: x 31-27 (5), y 26-18, z 17-9, w 8-0.
     * y: r = 128 -> 0.5; z: r = -128 -> -0.5; w: r = 128 -> 0.5;
     * x = -sqrt(1 - 0.75) = -0.5 (sign bit 31 set).
     * word = 0x10 << 27 | 128 << 18 | 0x180 << 9 | 128
     *      = 0x80000000 | 0x02000000 | 0x00030000 | 0x00000080 */
    /* flag 4, y dropped: x 31-23, y 22-18 (5), z 17-9, w 8-0.
     * x: r = 128 -> 0.5; z: r = -128 -> -0.5; w: r = -128 (0x180) -> -0.5;
     * y = +0.5 (field 0).
     * word = 128 << 23 | 0x180 << 9 | 0x180 = 0x40000000 | 0x00030000 | 0x180 */
    /* flag 5, z dropped: x 31-23, y 22-14, z 13-9 (5), w 8-0.
     * x: r = -128 -> 0.25 - 0.25 = 0; y: r = -128 -> -0.5; w: r = 128 -> 0.5;
     * z = -sqrt(1 - 0.5) (bit 13 set).
     * word = 0x180 << 23 | 0x180 << 14 | 0x10 << 9 | 128
     *      = 0xC0000000 | 0x00600000 | 0x00002000 | 0x80 */
    /* flag 6, w dropped: x 31-23, y 22-14, z 13-5, w 4-0 (5).
     * x: r = 128 -> 0.5; y: r = 128 -> 0; z: r = -128 -> -0.5;
     * w = -sqrt(0.5) (bit 4 set).
     * word = 128 << 23 | 128 << 14 | 0x180 << 5 | 0x10
     *      = 0x40000000 | 0x00200000 | 0x00003000 | 0x10 */
    const uint32_t words[4] = {0x82030080u, 0x40030180u, 0xC0602080u, 0x40203010u};
    const double r = sqrt(0.5);
    const double want[4][4] = {
        {-0.5, 0.5, -0.5, 0.5},
        {0.5, 0.5, -0.5, -0.5},
        {0.0, -0.5, -r, 0.5},
        {0.5, 0.0, -0.5, -r},
    };
    for (int k = 0; k < 4; k++) {
        test_bone b = {0};
        b.flag = 3 + (unsigned)k;
        put_floats(b.desc, pairs, 8);
        unsigned char payload[4];
        ts_put32(payload, words[k]);
        b.payload = payload;
        b.payload_size = 4;
        size_t size;
        unsigned char *f = anb_file(&b, 1, 1, &size);
        ossa_model *m = load(f, size, "p.anb", 0);
        expect_stored(m, 0, 0, want[k], 1e-6);
        ossa_model_free(m);
        free(f);
    }
}

/* The 9-bit fields at their extremes: 0x0FF = 255 and 0x100 = -256. */
static void test_flags_3_to_6_extremes(void **state)
{
    (void)state;
    const float pairs[8] = {0.0f, 0.5f, 0.0f, 0.5f, 0.0f, 0.5f, 0.0f, 0.0f};
    /* flag 6: x = 0x0FF (255/256 * 0.5), y = 0x100 (-0.5), z = 0, w field 0. */
    uint32_t word = 0x0FFu << 23 | 0x100u << 14;
    test_bone b = {0};
    b.flag = 6;
    put_floats(b.desc, pairs, 8);
    unsigned char payload[4];
    ts_put32(payload, word);
    b.payload = payload;
    b.payload_size = 4;
    size_t size;
    unsigned char *f = anb_file(&b, 1, 1, &size);
    ossa_model *m = load(f, size, "p.anb", 0);
    double x = 255.0 / 256.0 * 0.5, y = -0.5;
    double want[4] = {x, y, 0, sqrt(1 - x * x - y * y)};
    expect_stored(m, 0, 0, want, 1e-6);
    ossa_model_free(m);
    free(f);
}

/* The sqrt clamp: when the kept components leave m <= 1e-9 the dropped
 * one is 0 (then the result is renormalized). */
static void test_sqrt_clamp(void **state)
{
    (void)state;
    const float pairs[8] = {0.0f, 1.0f, 0.0f, 1.0f, 0.0f, 1.0f, 0.0f, 0.0f};
    /* flag 5 (z dropped, sign bit set): x = y = w = 255/256, squares sum
     * to 2.98 > 1, so z = -0 and the result is (1, 1, 0, 1)/sqrt(3). */
    uint32_t word = 0x0FFu << 23 | 0x0FFu << 14 | 0x10u << 9 | 0x0FFu;
    test_bone b = {0};
    b.flag = 5;
    put_floats(b.desc, pairs, 8);
    unsigned char payload[4];
    ts_put32(payload, word);
    b.payload = payload;
    b.payload_size = 4;
    size_t size;
    unsigned char *f = anb_file(&b, 1, 1, &size);
    ossa_model *m = load(f, size, "p.anb", 0);
    double want[4] = {1, 1, 0, 1};
    expect_stored(m, 0, 0, want, 1e-6);
    ossa_model_free(m);
    free(f);
}

/* Flag 12: x = f0 + I/32768 f1 (and J, K), w from the others, negative
 * when the raw I is odd, negative I included. */
static void test_flag12_patterns(void **state)
{
    (void)state;
    const float pairs[6] = {0.0f, 1.0f, 0.0f, 1.0f, 0.1f, 0.5f};
    /* frame 0: I = 16385 (0x4001, odd: w < 0), J = -16384 (0xC000),
     * K = 16384 (0x4000): x = 0.500030517578125, y = -0.5,
     * z = 0.1 + 0.25 = 0.35.
     * frame 1: I = -16383 (0xC001, odd), J = 0, K = -32768 (0x8000):
     * x = -0.499969482421875, y = 0, z = 0.1 - 0.5 = -0.4.
     * frame 2: I = -16384 (0xC000, even: w > 0), J = 8192, K = 0. */
    const unsigned char payload[18] = {0x01, 0x40, 0x00, 0xC0, 0x00, 0x40,
                                       0x01, 0xC0, 0x00, 0x00, 0x00, 0x80,
                                       0x00, 0xC0, 0x00, 0x20, 0x00, 0x00};
    test_bone b = {0};
    b.flag = 12;
    put_floats(b.desc, pairs, 6);
    b.payload = payload;
    b.payload_size = sizeof payload;
    size_t size;
    unsigned char *f = anb_file(&b, 1, 3, &size);
    ossa_model *m = load(f, size, "p.anb", 0);
    const double z0 = (double)0.1f + 0.5 * 0.5, z1 = (double)0.1f - 0.5;
    double v[3][3] = {{16385.0 / 32768, -0.5, z0},
                      {-16383.0 / 32768, 0, z1},
                      {-0.5, 0.25, (double)0.1f}};
    int negative[3] = {1, 1, 0};
    for (int fr = 0; fr < 3; fr++) {
        double w = sqrt(1 - (v[fr][0] * v[fr][0] + v[fr][1] * v[fr][1] + v[fr][2] * v[fr][2]));
        double want[4] = {v[fr][0], v[fr][1], v[fr][2], negative[fr] ? -w : w};
        expect_stored(m, (uint32_t)fr, 0, want, 1e-6);
    }
    ossa_model_free(m);
    free(f);
}

/* Flag 13: phi = bias + s/32768 scale about the normalized axis. */
static void test_flag13_pattern(void **state)
{
    (void)state;
    /* bias 0.5, scale 1, axis (0, 0, 2): s = 16384 (0x4000) gives phi = 1
     * rad, s = -32768 (0x8000) gives -0.5 rad. */
    const float d[5] = {0.5f, 1.0f, 0.0f, 0.0f, 2.0f};
    const unsigned char payload[4] = {0x00, 0x40, 0x00, 0x80};
    test_bone b = {0};
    b.flag = 13;
    put_floats(b.desc, d, 5);
    b.payload = payload;
    b.payload_size = 4;
    size_t size;
    unsigned char *f = anb_file(&b, 1, 2, &size);
    ossa_model *m = load(f, size, "p.anb", 0);
    double w0[4] = {0, 0, sin(0.5), cos(0.5)}, w1[4] = {0, 0, sin(-0.25), cos(-0.25)};
    expect_stored(m, 0, 0, w0, 1e-6);
    expect_stored(m, 1, 0, w1, 1e-6);
    ossa_model_free(m);
    free(f);
}

static void test_unknown_flag(void **state)
{
    (void)state;
    test_bone b[2];
    memset(b, 0, sizeof b);
    float id[4] = {0, 0, 0, 1};
    put_floats(b[0].desc, id, 4);
    b[1].flag = 7;
    size_t size;
    unsigned char *f = anb_file(b, 2, 1, &size);
    ossa_error err;
    memset(&err, 0, sizeof err);
    assert_null(ossa_load_memory(f, size, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "bone 1"));
    assert_non_null(strstr(err.message, "flag 7"));
    /* The offset is the flag's byte: .rodata at 0x100, flags at 68. */
    assert_int_equal(err.offset, 0x100 + 68 + 1);
    free(f);
}

/* -- Encoder round trips, one per flag -- */

static void axis_angle(double x, double y, double z, double angle, double q[4])
{
    double n = sqrt(x * x + y * y + z * z), s = sin(angle / 2) / n;
    q[0] = x * s;
    q[1] = y * s;
    q[2] = z * s;
    q[3] = cos(angle / 2);
}

static void quat_mul(const double a[4], const double b[4], double out[4])
{
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(out, r, sizeof r);
}

/* Angle between two rotations (either sign), both normalized first:
 * 2 atan2(|a - b|, |a + b|) with b on a's side (acos of the dot product
 * loses half the digits near 0). */
static double angle_between(const double a_in[4], const double b_in[4])
{
    double a[4], b[4], na = 0, nb = 0;
    for (int k = 0; k < 4; k++) {
        na += a_in[k] * a_in[k];
        nb += b_in[k] * b_in[k];
    }
    for (int k = 0; k < 4; k++) {
        a[k] = a_in[k] / sqrt(na);
        b[k] = b_in[k] / sqrt(nb);
    }
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], dm = 0, dp = 0;
    for (int k = 0; k < 4; k++) {
        double bk = dot < 0 ? -b[k] : b[k];
        dm += (a[k] - bk) * (a[k] - bk);
        dp += (a[k] + bk) * (a[k] + bk);
    }
    return 2 * atan2(sqrt(dm), sqrt(dp));
}

#define FRAMES 24

/* A track in the stored convention for `flag`: the component the flag
 * drops is the largest one (as the writer arranges), 13 turns about one
 * axis, 0 stays still. Sign-continuous. */
static void make_track(unsigned flag, double q[FRAMES][4])
{
    for (int f = 0; f < FRAMES; f++) {
        double t = f / (double)FRAMES, a[4], b[4];
        switch (flag) {
        case 0: axis_angle(1, 2, 3, 0.7, q[f]); break;
        case 13: axis_angle(0.3, -0.8, 0.5, -1.0 + 4.5 * t, q[f]); break;
        case 3: case 4: case 5: /* about x, y or z by ~ 180 degrees, wobbling */
            axis_angle(flag == 3, flag == 4, flag == 5, PI - 0.6 + 0.5 * sin(6 * t), a);
            axis_angle(0.2, 0.5, -0.3, 0.4 * cos(5 * t), b);
            quat_mul(a, b, q[f]);
            break;
        default: /* 6 and 12: moderate rotations about a moving axis */
            axis_angle(sin(3 * t), cos(2 * t), 0.5, 1.2 * sin(4 * t) + 0.3, q[f]);
            break;
        }
        if (f && q[f][0] * q[f - 1][0] + q[f][1] * q[f - 1][1] + q[f][2] * q[f - 1][2] +
                         q[f][3] * q[f - 1][3] <
                     0)
            for (int k = 0; k < 4; k++) q[f][k] = -q[f][k];
    }
}

static void test_encode_each_flag(void **state)
{
    (void)state;
    const unsigned flags[7] = {0, 3, 4, 5, 6, 12, 13};
    /* 9-bit fields: about range/511/2 per component; 16-bit ones 128 times
     * finer. */
    const double limit[7] = {1e-6, 0.01, 0.01, 0.01, 0.01, 1e-4, 1e-4};
    for (int i = 0; i < 7; i++) {
        double q[FRAMES][4];
        make_track(flags[i], q);
        test_bone b = {0};
        b.flag = flags[i];
        unsigned char payload[FRAMES * 6];
        double err = ossa__anb_encode(flags[i], (const double(*)[4])q, FRAMES, b.desc, payload);
        if (!(err >= 0 && err <= limit[i]))
            print_error("flag %u: encoder error %g (limit %g)\n", flags[i], err, limit[i]);
        assert_true(err >= 0 && err <= limit[i]);
        b.payload = payload;
        b.payload_size = (size_t)FRAMES * ossa__anb_sample_size(flags[i]);
        size_t size;
        unsigned char *f = anb_file(&b, 1, FRAMES, &size);
        ossa_model *m = load(f, size, "t.anb", 0);
        double worst = 0;
        for (int fr = 0; fr < FRAMES; fr++) {
            const float *r = m->animations[0].frames[fr].rotation;
            double got[4] = {-r[0], -r[1], -r[2], r[3]}; /* back to stored */
            double a = angle_between(got, q[fr]);
            if (a > worst) worst = a;
        }
        /* The reader (float output) agrees with the encoder's own measure. */
        if (!(worst <= limit[i] && fabs(worst - err) < 1e-5))
            print_error("flag %u: decoded error %g, encoder said %g\n", flags[i], worst, err);
        assert_true(worst <= limit[i]);
        assert_true(fabs(worst - err) < 1e-5);
        ossa_model_free(m);
        free(f);
    }
    /* 13 refuses rotations about more than one axis. */
    double q[FRAMES][4];
    make_track(6, q);
    unsigned char desc[36], payload[FRAMES * 6];
    assert_true(ossa__anb_encode(13, (const double(*)[4])q, FRAMES, desc, payload) < 0);
}

/* Flag 12's sign trick: w < 0 on every other frame; the parity of raw I
 * carries it. */
static void test_encode_flag12_parity(void **state)
{
    (void)state;
    double q[FRAMES][4];
    for (int f = 0; f < FRAMES; f++) {
        /* A rotation through 180 degrees: w changes sign mid-track. */
        axis_angle(0.6, 0.0, 0.8, 2.0 + 2.3 * f / (double)FRAMES, q[f]);
    }
    unsigned char desc[36], payload[FRAMES * 6];
    double err = ossa__anb_encode(12, (const double(*)[4])q, FRAMES, desc, payload);
    assert_true(err >= 0 && err < 1e-4);
    for (int f = 0; f < FRAMES; f++) {
        int16_t i = (int16_t)ts_le16(payload + 6 * f);
        assert_int_equal((uint16_t)i & 1, q[f][3] < 0);
    }
}

/* -- The writer: choice of flags, reports, one animation of several -- */

typedef struct messages {
    int warnings, infos;
    char last_warning[256], last_info[256];
    bool dropped_translation;
} messages;

static void on_diagnostic(void *user, const ossa_diagnostic *d)
{
    messages *m = user;
    if (d->severity == OSSA_SEVERITY_NOTE) {
        m->infos++;
        snprintf(m->last_info, sizeof m->last_info, "%s", d->message);
        return;
    }
    m->warnings++;
    snprintf(m->last_warning, sizeof m->last_warning, "%s", d->message);
    if (d->code == OSSA_WARNING_DROPPED && strstr(d->message, "translation animation"))
        m->dropped_translation = true;
}

static void test_writer_flags_and_reports(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    const char *names[4] = {"still", "hinge", "ball", "slide"};
    for (int j = 0; j < 4; j++) {
        ossa_transform t = ossa_transform_identity();
        t.translation[2] = (float)j;
        assert_int_equal(ossa_model_add_joint(m, names[j], j - 1, &t, NULL), j);
    }
    assert_non_null(ossa_model_add_animation(m, "other", 2, 30, 0, NULL));
    ossa_animation *a = ossa_model_add_animation(m, "walk", FRAMES, 30, 0, NULL);
    assert_non_null(a);
    double tracks[4][FRAMES][4];
    make_track(0, tracks[0]);
    make_track(13, tracks[1]);
    make_track(6, tracks[2]);
    make_track(6, tracks[3]);
    for (int f = 0; f < FRAMES; f++)
        for (int j = 0; j < 4; j++) {
            ossa_transform *t = &a->frames[f * 4 + j];
            /* The model holds the usual rotation: (-x, -y, -z, w). */
            t->rotation[0] = (float)-tracks[j][f][0];
            t->rotation[1] = (float)-tracks[j][f][1];
            t->rotation[2] = (float)-tracks[j][f][2];
            t->rotation[3] = (float)tracks[j][f][3];
            if (j == 3) t->translation[0] = 0.1f * (float)f; /* cannot be kept */
        }
    messages msg;
    memset(&msg, 0, sizeof msg);
    ossa_write_options wo = {0};
    wo.format = OSSA_FORMAT_SOTC_ANB;
    wo.animation = 1;
    wo.diagnostic = on_diagnostic;
    wo.user = &msg;
    void *out;
    size_t size;
    ossa_error err;
    assert_int_equal(ossa_write_memory(m, &wo, &out, &size, &err), OSSA_OK);
    assert_true(msg.dropped_translation);
    assert_true(msg.infos >= 1);
    assert_non_null(strstr(msg.last_info, "largest rotation error"));

    /* The flags, read by hand: .rodata offset at section 1 (+0x1C), the
     * header at entry, its flags pointer at +8. */
    const unsigned char *f = out;
    uint32_t ro = ts_le32(f + ts_le32(f + 0x5C) + 0x20 + 0x1C);
    const unsigned char *h = f + ro + ts_le32(f + 0x4C);
    assert_int_equal(ts_le32(h), 12);
    assert_int_equal(ts_le16(h + 4), FRAMES);
    assert_int_equal(ts_le32(h + 0x14), 4);
    const unsigned char *flags = f + ro + ts_le32(h + 8);
    assert_int_equal(flags[0], 0);
    assert_int_equal(flags[1], 13);
    assert_true((flags[2] >= 3 && flags[2] <= 6) || flags[2] == 12);

    ossa_model *back = load(out, size, "dir/walk.anb", 0);
    assert_string_equal(back->animations[0].name, "walk");
    for (int fr = 0; fr < FRAMES; fr++)
        for (uint32_t j = 0; j < 3; j++) expect_stored(back, (uint32_t)fr, j, tracks[j][fr], 0.006);
    ossa_model_free(back);
    ossa_free(out, wo.allocator);

    /* An index past the animations is refused. */
    wo.animation = 2;
    assert_int_equal(ossa_write_memory(m, &wo, &out, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    ossa_model_free(m);
}

/* A file loaded alone: unnamed roots, rotation-only channels, frame rate
 * from the options or 30, named after the file. */
static void test_loaded_alone(void **state)
{
    (void)state;
    test_bone b[3];
    memset(b, 0, sizeof b);
    const float id[4] = {0, 0, 0, 1}, turned[4] = {0, 0, 0.6f, 0.8f};
    put_floats(b[0].desc, id, 4);
    put_floats(b[1].desc, turned, 4);
    put_floats(b[2].desc, id, 4);
    size_t size;
    unsigned char *f = anb_file(b, 3, 5, &size);
    ossa_model *m = load(f, size, "/some/dir/run.fast.anb", 0);
    assert_int_equal(m->source_format, OSSA_FORMAT_SOTC_ANB);
    assert_int_equal(m->num_joints, 3);
    assert_true(m->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    assert_true(m->flags & OSSA_MODEL_PARENTS_UNKNOWN);
    for (uint32_t j = 0; j < 3; j++) {
        assert_string_equal(m->joints[j].name, "");
        assert_int_equal(m->joints[j].parent, -1);
        assert_non_null(m->animations[0].channels);
        assert_int_equal(m->animations[0].channels[j], OSSA_CHANNEL_ROTATION);
    }
    assert_string_equal(m->animations[0].name, "run.fast");
    assert_int_equal(m->animations[0].num_frames, 5);
    assert_true(m->animations[0].framerate == 30.0f);
    assert_true(m->animations[0].flags & OSSA_ANIMATION_LOOP);
    /* Bind stand-in: frame 0; the model rotation is (0, 0, -0.6, 0.8). */
    TS_ASSERT_NEAR(m->joints[1].bind.rotation[2], -0.6, 1e-6);
    ossa_model_free(m);
    m = load(f, size, "run.anb", 24);
    assert_true(m->animations[0].framerate == 24.0f);
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    ossa_model_free(m);
    free(f);
}

/* -- Malformed files -- */

static void expect_failure(const unsigned char *f, size_t size, ossa_code kind,
                           const char *needle)
{
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_load_options o = {.format = OSSA_FORMAT_SOTC_ANB};
    ossa_model *m = ossa_load_memory(f, size, &o, &err);
    if (m || err.code != kind || (needle && !strstr(err.message, needle)))
        print_error("expected kind %d with '%s', got kind %d: %s\n", (int)kind,
                    needle ? needle : "", (int)err.code, err.message);
    assert_null(m);
    assert_int_equal(err.code, kind);
    if (needle) assert_non_null(strstr(err.message, needle));
}

static void test_malformed(void **state)
{
    (void)state;
    test_bone b = {0};
    b.flag = 13;
    const float d[5] = {0, 1, 1, 0, 0};
    put_floats(b.desc, d, 5);
    unsigned char payload[8] = {0};
    b.payload = payload;
    b.payload_size = 8;
    size_t size;
    unsigned char *f = anb_file(&b, 1, 4, &size);
    unsigned char *g = malloc(size);
    assert_non_null(g);
    const uint32_t ro = 0x100;

    /* The frame count grows past the payload. */
    memcpy(g, f, size);
    ts_put32(g + ro + 4, 5);
    expect_failure(g, size, OSSA_ERROR_CORRUPT, "bone 0 samples");
    /* Descriptor table out of .rodata. */
    memcpy(g, f, size);
    ts_put32(g + ro + 0x10, 0xFFFFFFF0u);
    expect_failure(g, size, OSSA_ERROR_CORRUPT, "bone descriptors");
    /* A descriptor pointer out of .rodata. */
    memcpy(g, f, size);
    ts_put32(g + ro + ts_le32(g + ro + 0x10), (uint32_t)(size - ro) - 8);
    expect_failure(g, size, OSSA_ERROR_CORRUPT, "descriptor");
    /* Not an animation: the first word. */
    memcpy(g, f, size);
    ts_put32(g + ro, 1);
    expect_failure(g, size, OSSA_ERROR_FORMAT, "first word 12");
    /* Bone count far past the data. */
    memcpy(g, f, size);
    ts_put32(g + ro + 0x14, 0x40000000u);
    expect_failure(g, size, OSSA_ERROR_CORRUPT, NULL);
    /* Entry outside .rodata. */
    memcpy(g, f, size);
    ts_put32(g + 0x4C, (uint32_t)(size - ro));
    expect_failure(g, size, OSSA_ERROR_CORRUPT, "entry");
    /* A zero axis for flag 13 loads, with a warning, as no rotation. */
    memcpy(g, f, size);
    uint32_t desc = ts_le32(g + ro + ts_le32(g + ro + 0x10));
    ts_putf32(g + ro + desc + 8, 0);
    ossa_model *m = ossa_load_memory(g, size, NULL, NULL);
    assert_non_null(m);
    assert_true(m->num_warnings >= 1);
    assert_true(m->animations[0].frames[0].rotation[3] == 1.0f);
    ossa_model_free(m);
    free(g);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag0_floats),
        cmocka_unit_test(test_flags_3_to_6_patterns),
        cmocka_unit_test(test_flags_3_to_6_extremes),
        cmocka_unit_test(test_sqrt_clamp),
        cmocka_unit_test(test_flag12_patterns),
        cmocka_unit_test(test_flag13_pattern),
        cmocka_unit_test(test_unknown_flag),
        cmocka_unit_test(test_encode_each_flag),
        cmocka_unit_test(test_encode_flag12_parity),
        cmocka_unit_test(test_writer_flags_and_reports),
        cmocka_unit_test(test_loaded_alone),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
