/* Compiled clips: an animation laid out for sampling (see ossa.h, Runtime),
 * the time-to-frame rules and root motion. */
#include "runtime/compress.h"
#include "runtime/packed.h"
#include "runtime/runtime.h"
#include "runtime/simd.h"

#include <math.h>

#define PI 3.14159265358979323846

/* -- SIMD levels -------------------------------------------------------------- */

ossa_simd ossa_simd_best(void)
{
#ifdef OSSA_HAVE_AVX2
    /* libgcc fills the CPU model in a constructor; these only read it. */
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return OSSA_SIMD_AVX2;
#endif
#ifdef OSSA_HAVE_SSE2
    return OSSA_SIMD_SSE2;
#else
    return OSSA_SIMD_SCALAR;
#endif
}

int ossa_simd_supported(ossa_simd level)
{
    switch (level) {
    case OSSA_SIMD_AUTO:
    case OSSA_SIMD_REFERENCE:
    case OSSA_SIMD_SCALAR:
        return 1;
    case OSSA_SIMD_SSE2:
#ifdef OSSA_HAVE_SSE2
        return 1;
#else
        return 0;
#endif
    case OSSA_SIMD_AVX2:
        return ossa_simd_best() == OSSA_SIMD_AVX2;
    }
    return 0;
}

const char *ossa_simd_name(ossa_simd level)
{
    switch (level) {
    case OSSA_SIMD_AUTO: return "auto";
    case OSSA_SIMD_REFERENCE: return "reference";
    case OSSA_SIMD_SCALAR: return "scalar";
    case OSSA_SIMD_SSE2: return "sse2";
    case OSSA_SIMD_AVX2: return "avx2";
    }
    return "unknown";
}

ossa_status ossa__simd_resolve(ossa_simd requested, ossa_simd automatic, ossa_simd *out,
                               ossa_error *error)
{
    ossa_simd level = requested == OSSA_SIMD_AUTO ? automatic : requested;
    if (level == OSSA_SIMD_AUTO) level = ossa_simd_best();
    if ((unsigned)level > OSSA_SIMD_AVX2)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "unknown SIMD level %d",
                          (int)level);
    if (!ossa_simd_supported(level))
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "this CPU cannot run the %s code", ossa_simd_name(level));
    *out = level;
    return OSSA_OK;
}

/* -- Quaternions ---------------------------------------------------------------- */

void ossa__quat_mul(const float a[4], const float b[4], float out[4])
{
    double ax = a[0], ay = a[1], az = a[2], aw = a[3];
    double bx = b[0], by = b[1], bz = b[2], bw = b[3];
    float r[4] = {(float)(aw * bx + ax * bw + ay * bz - az * by),
                  (float)(aw * by - ax * bz + ay * bw + az * bx),
                  (float)(aw * bz + ax * by - ay * bx + az * bw),
                  (float)(aw * bw - ax * bx - ay * by - az * bz)};
    memcpy(out, r, sizeof r);
}

double ossa__yaw_of(const float q[4], ossa_axis up)
{
    int a = up == OSSA_AXIS_X ? 0 : up == OSSA_AXIS_Y ? 1 : 2;
    if (q[a] == 0 && q[3] == 0) return 0;
    double y = 2 * atan2(q[a], q[3]);
    if (y > PI) y -= 2 * PI;
    if (y <= -PI) y += 2 * PI;
    return y;
}

void ossa__depth_order(uint32_t n, const int32_t *parents, uint32_t *order, uint32_t *scratch)
{
    /* Counting sort by depth: depth in scratch[0..n), then counts of each
     * depth (shifted by one) in scratch[n..2n+1). */
    uint32_t *depth = scratch, *start = scratch + n, max_depth = 0;
    memset(start, 0, ((size_t)n + 1) * sizeof *start);
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = parents[j];
        uint32_t d = (p >= 0 && (uint32_t)p < j) ? depth[p] + 1 : 0;
        depth[j] = d;
        start[d]++;
        max_depth = d > max_depth ? d : max_depth;
    }
    uint32_t sum = 0;
    for (uint32_t d = 0; d <= max_depth; d++) {
        uint32_t c = start[d];
        start[d] = sum;
        sum += c;
    }
    for (uint32_t j = 0; j < n; j++) order[start[depth[j]]++] = j;
}

/* -- Creation ------------------------------------------------------------------- */

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Joint j's transform at source frame f, rotation normalized. */
static ossa_transform source_frame(const ossa_clip_source *src, uint32_t f, uint32_t j)
{
    ossa_transform t =
        src->num_frames ? src->frames[(size_t)f * src->num_joints + j] : src->bind_pose[j];
    ossa__quat_normalize(t.rotation);
    return t;
}

void ossa__clip_key(const ossa_clip *clip, uint32_t f, uint32_t j, ossa_transform *t)
{
    if (clip->packed) {
        /* The image holds no copy of frame 0 at the end. */
        ossa__packed_joint(clip, f < clip->num_frames ? f : 0, j, t);
        return;
    }
    ossa__soa_get(clip->data + (size_t)f * clip->num_groups * OSSA_CLIP_GROUP, j, t);
}

static double wrap_angle(double a)
{
    while (a > PI) a -= 2 * PI;
    while (a <= -PI) a += 2 * PI;
    return a;
}

/* Compressed clips keep no float root track: entries are decoded from the
 * root's keys, and the image holds only the whole turns to add to each
 * frame's yaw, as two bitsets (one +1 and one -1 step per frame; the
 * yaw moves by less than pi from frame to frame). */
static uint64_t *turn_bits(const ossa_clip *clip, int minus)
{
    const ossa__packed_header *h = (const ossa__packed_header *)(const void *)clip->packed;
    size_t words = ((size_t)clip->num_frames + 64) / 64;
    return (uint64_t *)(void *)((unsigned char *)(uintptr_t)clip->packed + h->off_root_track +
                                (minus ? words * 8 : 0));
}

static int32_t turns_at(const ossa_clip *clip, uint32_t f)
{
    const uint64_t *plus = turn_bits(clip, 0), *minus = turn_bits(clip, 1);
    int32_t turns = 0;
    for (uint32_t w = 0; w <= f / 64; w++) {
        uint64_t mask = w < f / 64 ? ~0ull : (f % 64 == 63 ? ~0ull : (2ull << (f % 64)) - 1);
        turns += __builtin_popcountll(plus[w] & mask) - __builtin_popcountll(minus[w] & mask);
    }
    return turns;
}

/* Root track entry f (translation with the up component zeroed, unwrapped
 * yaw) of a compressed clip, f < num_frames. */
static void packed_root_entry(const ossa_clip *clip, uint32_t f, double out[4])
{
    ossa_transform t;
    ossa__clip_key(clip, f, clip->root, &t);
    int up = clip->up == OSSA_AXIS_X ? 0 : clip->up == OSSA_AXIS_Y ? 1 : 2;
    for (int c = 0; c < 3; c++) out[c] = c == up ? 0.0 : t.translation[c];
    out[3] = ossa__yaw_of(t.rotation, clip->up) + 2 * PI * turns_at(clip, f);
}

static void packed_turns(ossa_clip *clip)
{
    uint64_t *plus = turn_bits(clip, 0), *minus = turn_bits(clip, 1);
    double yaw = 0;
    for (uint32_t f = 0; f < clip->num_frames; f++) {
        ossa_transform t;
        ossa__clip_key(clip, f, clip->root, &t);
        double y = ossa__yaw_of(t.rotation, clip->up);
        yaw = f == 0 ? y : yaw + wrap_angle(y - wrap_angle(yaw));
        /* The turns that the unwrapped yaw adds to this frame's. */
        double k = f == 0 ? 0 : floor((yaw - y) / (2 * PI) + 0.5);
        int32_t have = f == 0 ? 0 : turns_at(clip, f - 1);
        if (k > have) plus[f / 64] |= 1ull << (f % 64);
        if (k < have) minus[f / 64] |= 1ull << (f % 64);
    }
}

static void build_root_track(ossa_clip *clip)
{
    if (clip->packed) {
        packed_turns(clip);
        return;
    }
    uint32_t nf = clip->num_frames;
    float *tr = clip->root_track;
    int up = clip->up == OSSA_AXIS_X ? 0 : clip->up == OSSA_AXIS_Y ? 1 : 2;
    double yaw = 0;
    for (uint32_t f = 0; f < nf; f++) {
        ossa_transform t;
        ossa__clip_key(clip, f, clip->root, &t);
        for (int c = 0; c < 3; c++) tr[f * 4 + c] = c == up ? 0.0f : t.translation[c];
        double y = ossa__yaw_of(t.rotation, clip->up);
        yaw = f == 0 ? y : yaw + wrap_angle(y - wrap_angle(yaw));
        tr[f * 4 + 3] = (float)yaw;
    }
    for (int c = 0; c < 4; c++)
        tr[nf * 4 + c] = nf >= 2 ? 2 * tr[(nf - 1) * 4 + c] - tr[(nf - 2) * 4 + c] : tr[c];
}

/* A compressed clip: the compressor's image in one block after the clip
 * header (packed.h). */
static ossa_clip *create_packed(const ossa_clip_source *src, const ossa_clip_options *opt,
                                ossa_error *error)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    (void)src, (void)opt;
    ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
               "compressed clips need a little-endian CPU");
    return NULL;
#else
    if (!(opt->max_error >= 0) || !(opt->shell_distance >= 0)) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "compression needs a positive error bound and shell distance (0 = default)");
        return NULL;
    }
    const ossa_allocator *alloc = opt->allocator;
    double size = ossa__source_size(src, alloc);
    if (size < 0) {
        ossa__fail_nomem(error);
        return NULL;
    }
    float max_error = opt->max_error > 0 ? opt->max_error : (float)(size * 1e-4);
    float shell = opt->shell_distance > 0 ? opt->shell_distance : (float)(size * 1e-2);
    if (!(isfinite(max_error) && max_error > 0 && isfinite(shell) && shell > 0)) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "compression needs a finite positive error bound and shell distance");
        return NULL;
    }
    unsigned char *image;
    size_t image_size;
    if (ossa__compress(src, alloc, max_error, shell, opt->root_joint, opt->up_axis, &image,
                       &image_size, error) != OSSA_OK)
        return NULL;
    uint32_t n = src->num_joints;
    uint32_t *scratch = ossa__calloc(alloc, 2 * (size_t)n + 1, sizeof *scratch);
    ossa_allocator kept = {0};
    if (alloc) kept = *alloc;
    unsigned char *dest = NULL;
    ossa_clip *clip = scratch ? ossa__packed_new(&kept, image_size, 0, &dest) : NULL;
    if (!clip) {
        ossa__free(alloc, scratch, 0);
        ossa__free(alloc, image, 0);
        ossa__fail_nomem(error);
        return NULL;
    }
    memcpy(dest, image, image_size);
    ossa__free(alloc, image, 0);
    ossa__packed_attach(clip, dest);
    clip->simd = ossa_simd_best();
    ossa__depth_order(n, clip->parents, clip->order, scratch);
    ossa__free(alloc, scratch, 0);
    if (n) build_root_track(clip);
    return clip;
#endif
}

/* What a source must hold before anything reads it. */
static ossa_status check_source(const ossa_clip_source *src, ossa_error *error)
{
    if (!src) return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no clip source");
    uint32_t n = src->num_joints;
    if (n && (!src->parents || !src->bind_pose))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "a clip source of %u joints needs their parents and bind pose", n);
    if (src->num_frames && !src->frames)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "a clip source of %u frames needs them", src->num_frames);
    for (uint32_t j = 0; j < n; j++)
        if (src->parents[j] < -1 || src->parents[j] >= (int32_t)j)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "joint %u: parent %d does not come before it", j, (int)src->parents[j]);
    return OSSA_OK;
}

ossa_clip *ossa_clip_build(const ossa_clip_source *src, const ossa_clip_options *options,
                           ossa_error *error)
{
    ossa_clip_options opt;
    if (ossa__copy_sized(&opt, sizeof opt, options, OSSA__CLIP_OPTIONS_0_2, "ossa_clip_options", error) ||
        check_source(src, error))
        return NULL;
    uint32_t n = src->num_joints;
    if (n && (opt.root_joint >= n || src->parents[opt.root_joint] >= 0)) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "root-motion joint %u is not a root joint", (unsigned)opt.root_joint);
        return NULL;
    }
    if ((unsigned)opt.up_axis > OSSA_AXIS_X) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "unknown up axis %d",
                   (int)opt.up_axis);
        return NULL;
    }
    if ((unsigned)opt.compression > OSSA_CLIP_COMPRESSED) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "unknown clip compression %d",
                   (int)opt.compression);
        return NULL;
    }
    if (opt.compression == OSSA_CLIP_COMPRESSED) return create_packed(src, &opt, error);
    uint32_t nf = src->num_frames ? src->num_frames : 1;
    uint32_t groups = (n + OSSA_CLIP_LANES - 1) / OSSA_CLIP_LANES;
    const char *name = src->name ? src->name : "";
    size_t name_len = strlen(name);

    /* One block: header, parents, bind pose, name, (aligned) frames, root
     * track. Frame data is sized in size_t with overflow checks: counts
     * come from files. */
    size_t frame_floats = (size_t)groups * OSSA_CLIP_GROUP;
    if ((size_t)nf + 1 > SIZE_MAX / 4 / (frame_floats ? frame_floats : 1) / 2) {
        ossa__fail(error, OSSA_ERROR_NOMEM, OSSA_NO_OFFSET, "animation too large to compile");
        return NULL;
    }
    size_t off_parents = align_up(sizeof(ossa_clip), 16);
    size_t off_order = align_up(off_parents + (size_t)n * sizeof(int32_t), 16);
    size_t off_bind = align_up(off_order + (size_t)n * sizeof(uint32_t), 16);
    size_t off_name = off_bind + (size_t)n * sizeof(ossa_transform);
    size_t off_track = align_up(off_name + name_len + 1, 16);
    size_t off_data = align_up(off_track + ((size_t)nf + 1) * 4 * sizeof(float), 64);
    size_t size = off_data + ((size_t)nf + 1) * frame_floats * sizeof(float) + 64;

    /* The clip keeps a copy: the caller's allocator struct need not outlive it. */
    ossa_allocator alloc = {0};
    if (opt.allocator) alloc = *opt.allocator;
    unsigned char *block = ossa__alloc(&alloc, size);
    if (!block) {
        ossa__fail_nomem(error);
        return NULL;
    }
    /* The allocator promises no particular alignment; the frames need 32
     * bytes (aligned vector loads), so they start at the next 64-byte
     * boundary inside the 64 spare bytes. */
    ossa_clip *clip = (ossa_clip *)(void *)block;
    memset(clip, 0, sizeof *clip);
    clip->allocator = alloc;
    clip->size = size;
    clip->num_joints = n;
    clip->num_groups = groups;
    clip->num_frames = nf;
    clip->framerate = (isfinite(src->framerate) && src->framerate > 0) ? src->framerate
                                                                       : OSSA_DEFAULT_FRAMERATE;
    clip->flags = src->flags;
    clip->simd = ossa_simd_best();
    clip->root = n ? opt.root_joint : 0;
    clip->up = opt.up_axis;
    clip->parents = (int32_t *)(void *)(block + off_parents);
    clip->order = (uint32_t *)(void *)(block + off_order);
    clip->bind = (ossa_transform *)(void *)(block + off_bind);
    char *name_copy = (char *)(block + off_name);
    memcpy(name_copy, name, name_len + 1);
    clip->name = name_copy;
    clip->root_track = (float *)(void *)(block + off_track);
    uintptr_t data_addr = (uintptr_t)(block + off_data);
    data_addr = (data_addr + 63) & ~(uintptr_t)63;
    clip->data = (float *)(void *)data_addr;

    for (uint32_t j = 0; j < n; j++) {
        int32_t p = src->parents[j];
        clip->parents[j] = (p >= 0 && (uint32_t)p < j) ? p : -1;
    }

    /* The bind pose's storage (10 words per joint) is free until the next
     * loop: scratch for the sort. */
    ossa__depth_order(n, clip->parents, clip->order, (uint32_t *)(void *)clip->bind);
    for (uint32_t j = 0; j < n; j++) {
        clip->bind[j] = src->bind_pose[j];
        ossa__quat_normalize(clip->bind[j].rotation);
    }

    /* Padding lanes hold identity transforms so that they stay finite. */
    ossa_transform identity = ossa_transform_identity();
    for (uint32_t f = 0; f <= nf; f++) {
        float *frame = clip->data + (size_t)f * frame_floats;
        for (uint32_t j = n; j < groups * OSSA_CLIP_LANES; j++) ossa__soa_put(frame, j, &identity);
        for (uint32_t j = 0; j < n; j++) {
            ossa_transform t = source_frame(src, f == nf ? 0 : f, j);
            if (f > 0) {
                /* Same hemisphere as the previous frame: the pair then
                 * interpolates along the shorter arc without a sign test
                 * (the sampler still tests, for safety). */
                ossa_transform prev;
                ossa__soa_get(frame - frame_floats, j, &prev);
                const float *q = prev.rotation;
                float d = q[0] * t.rotation[0] + q[1] * t.rotation[1] + q[2] * t.rotation[2] +
                          q[3] * t.rotation[3];
                if (d < 0)
                    for (int c = 0; c < 4; c++) t.rotation[c] = -t.rotation[c];
            }
            ossa__soa_put(frame, j, &t);
        }
    }
    if (n) build_root_track(clip);
    else memset(clip->root_track, 0, ((size_t)nf + 1) * 4 * sizeof(float));
    return clip;
}

void ossa_clip_free(ossa_clip *clip)
{
    if (!clip) return;
    ossa_allocator alloc = clip->allocator;
    ossa__free(&alloc, clip, clip->size);
}

void ossa_clip_get_info(const ossa_clip *clip, ossa_clip_info *info)
{
    memset(info, 0, sizeof *info);
    info->name = clip->name;
    info->num_joints = clip->num_joints;
    info->num_frames = clip->num_frames;
    info->framerate = clip->framerate;
    info->duration = clip->num_frames / (double)clip->framerate;
    info->flags = clip->flags;
    info->parents = clip->parents;
    info->bind_pose = clip->bind;
    info->order = clip->order;
    info->simd = clip->simd;
    info->memory = clip->size;
    if (clip->packed) {
        const ossa__packed_header *h = (const ossa__packed_header *)(const void *)clip->packed;
        info->compression = OSSA_CLIP_COMPRESSED;
        info->max_error = h->max_error;
        info->shell_distance = h->shell_distance;
        info->measured_error = h->measured_error;
    }
}

/* -- Time ------------------------------------------------------------------------ */

static ossa_wrap resolve_wrap(const ossa_clip *clip, ossa_wrap wrap)
{
    if (wrap == OSSA_WRAP_LOOP || wrap == OSSA_WRAP_CLAMP) return wrap;
    return (clip->flags & OSSA_ANIMATION_LOOP) ? OSSA_WRAP_LOOP : OSSA_WRAP_CLAMP;
}

static double wrap_position(const ossa_clip *clip, double p, ossa_wrap wrap)
{
    double n = clip->num_frames;
    if (!(p == p)) return 0; /* NaN */
    if (resolve_wrap(clip, wrap) == OSSA_WRAP_LOOP) {
        if (p >= 0 && p < n) return p;
        if (!isfinite(p)) return 0;
        p = fmod(p, n);
        if (p < 0) p += n;
        if (p >= n) p = 0; /* -tiny + n rounds to n */
        return p;
    }
    if (p <= 0) return 0;
    if (p >= n - 1) return n - 1;
    return p;
}

double ossa_clip_frame_at(const ossa_clip *clip, double seconds, ossa_wrap wrap)
{
    return wrap_position(clip, seconds * clip->framerate, wrap);
}

void ossa__clip_locate(const ossa_clip *clip, double position, ossa_wrap wrap, uint32_t *f0,
                       float *alpha)
{
    double p = wrap_position(clip, position, wrap);
    double fl = floor(p);
    uint32_t f = (uint32_t)fl;
    float a = (float)(p - fl);
    if (f >= clip->num_frames) f = clip->num_frames - 1, a = 0;
    /* Clamped at the last frame: its successor (frame 0 again) must not
     * contribute. */
    if (resolve_wrap(clip, wrap) == OSSA_WRAP_CLAMP && f == clip->num_frames - 1) a = 0;
    if (a >= 1) a = 0, f = f + 1 < clip->num_frames ? f + 1 : 0;
    *f0 = f;
    *alpha = a;
}

/* -- Root motion -------------------------------------------------------------------- */

/* Root track entry f <= num_frames. */
static void root_entry(const ossa_clip *clip, uint32_t f, double out[4])
{
    uint32_t nf = clip->num_frames;
    if (!clip->packed) {
        for (int c = 0; c < 4; c++) out[c] = clip->root_track[f * 4 + c];
        return;
    }
    if (f < nf) {
        packed_root_entry(clip, f, out);
        return;
    }
    /* One step past the last frame, like the float track. */
    double a[4], b[4];
    packed_root_entry(clip, nf - 1, a);
    if (nf < 2) {
        packed_root_entry(clip, 0, out);
        return;
    }
    packed_root_entry(clip, nf - 2, b);
    for (int c = 0; c < 4; c++) out[c] = (double)(float)(2 * a[c] - b[c]);
}

/* The unwrapped root track at time t (seconds), 4 values. */
static void track_at(const ossa_clip *clip, double t, ossa_wrap wrap, double out[4])
{
    uint32_t nf = clip->num_frames;
    double p = t * clip->framerate;
    double cycles = 0;
    if (!isfinite(p)) p = 0;
    if (resolve_wrap(clip, wrap) == OSSA_WRAP_LOOP) {
        cycles = floor(p / nf);
        p -= cycles * nf;
        if (p < 0) p = 0;
        if (p >= nf) p = 0, cycles += 1;
    } else {
        if (p < 0) p = 0;
        if (p > nf - 1) p = nf - 1;
    }
    uint32_t f = (uint32_t)floor(p);
    if (f >= nf) f = nf - 1;
    double a = p - f;
    double e0[4], e1[4], first[4], last[4];
    root_entry(clip, f, e0);
    root_entry(clip, f + 1, e1);
    root_entry(clip, 0, first);
    root_entry(clip, nf, last);
    for (int c = 0; c < 4; c++) {
        double cycle = last[c] - first[c];
        out[c] = cycles * cycle + e0[c] + a * (e1[c] - e0[c]);
    }
}

void ossa_clip_root_motion(const ossa_clip *clip, double t0, double t1, ossa_wrap wrap,
                           ossa_root_motion *out)
{
    memset(out, 0, sizeof *out);
    if (!clip->num_joints) return;
    double a[4], b[4];
    track_at(clip, t0, wrap, a);
    track_at(clip, t1, wrap, b);
    for (int c = 0; c < 3; c++) out->translation[c] = (float)(b[c] - a[c]);
    out->yaw = (float)(b[3] - a[3]);
}
