/* Sampling compressed clips (packed.h). A sample decodes the two key frames
 * around the time, a chunk of joints at a time, into SoA frames on the
 * stack (the template's constants, then each animated track's key), and
 * runs the float sampler's kernels on them. Nothing depends on earlier
 * calls: the frame's segment, bit position and ranges are found from the
 * frame index alone, so a random seek costs what playing forward costs. */
#include "runtime/packed.h"
#include "runtime/simd.h"
#include "runtime/slerp.h"

#include <math.h>

#if defined(__GNUC__) || defined(__clang__)
#define PK_UNUSED __attribute__((unused))
#else
#define PK_UNUSED
#endif

/* -- Kernel instantiations --------------------------------------------------------- */

#define VT ossa_f4
#define VW 4
#define V(op) ossa_f4_##op
#define K(name) ossa__pscalar_##name
#define KATTR PK_UNUSED
#include "runtime/sample_kernels.inc"
#include "runtime/sample_packed_kernels.inc"
#undef VT
#undef VW
#undef V
#undef K
#undef KATTR

#ifdef OSSA_HAVE_SSE2
#define VT ossa_m4
#define VW 4
#define V(op) ossa_m4_##op
#define K(name) ossa__psse2_##name
#define KATTR PK_UNUSED
#include "runtime/sample_kernels.inc"
#include "runtime/sample_packed_kernels.inc"
#undef VT
#undef VW
#undef V
#undef K
#undef KATTR
#endif

#ifdef OSSA_HAVE_AVX2
#define VT ossa_m8
#define VW 8
#define V(op) ossa_m8_##op
#define K(name) ossa__pavx2_##name
#define KATTR OSSA_AVX2 PK_UNUSED
#include "runtime/sample_kernels.inc"
#include "runtime/sample_packed_kernels.inc"
#undef VT
#undef VW
#undef V
#undef K
#undef KATTR
#endif

/* -- Decoding ---------------------------------------------------------------------- */

/* Groups of 8 joints decoded per chunk: two frames of 8 groups are 5 KB of
 * stack. */
#define CHUNK 8u

/* Where one key frame's bits are. */
typedef struct frame_at {
    const unsigned char *seg, *keys;
    uint64_t pos; /* of the next track */
} frame_at;

static void frame_locate(const ossa__packed *p, uint32_t f, frame_at *at)
{
    at->seg = p->data + p->segments[f / OSSA_PACKED_SEGMENT];
    at->keys = at->seg + ossa__packed_keys_offset(p->h->num_tracks);
    at->pos = (uint64_t)(f % OSSA_PACKED_SEGMENT) * ossa__rd32(at->seg);
}

/* The rotation lanes of each group whose w must be rebuilt. */
typedef struct chunk_state {
    uint32_t track; /* next track */
    uint8_t rot[CHUNK];
} chunk_state;

/* Decodes tracks t.. below float index `hi` (relative to `lo`) of one
 * frame into `out`; both frames share the track walk when `b` is set
 * (frames of the same segment). */
static inline void decode_tracks(const ossa__packed *p, frame_at *fa, frame_at *fb,
                                 uint32_t lo, uint32_t hi, uint32_t *track, uint8_t *rot,
                                 float *out_a, float *out_b)
{
    const ossa__packed_track *tracks = p->tracks;
    uint32_t nt = p->h->num_tracks, t = *track;
    const unsigned char *info = fa->seg + 4 + (size_t)t * OSSA_PACKED_TRACK_BYTES;
    uint64_t pa = fa->pos, pb = fb ? fb->pos : 0;
    for (; t < nt && tracks[t].dest < hi; t++, info += OSSA_PACKED_TRACK_BYTES) {
        const ossa__packed_track *tr = &tracks[t];
        uint32_t dest = tr->dest - lo, bits = info[0];
        float *oa = out_a + dest, *ob = fb ? out_b + dest : NULL;
        float va[3], vb[3];
        if (bits == OSSA_PACKED_RAW_BITS) {
            for (uint32_t c = 0; c < 3; c++) {
                uint32_t u = ossa__read_bits(fa->keys, pa + 32 * c, 32);
                memcpy(&va[c], &u, 4);
                if (fb) {
                    u = ossa__read_bits(fb->keys, pb + 32 * c, 32);
                    memcpy(&vb[c], &u, 4);
                }
            }
        } else {
#ifdef OSSA_HAVE_SSE2
            /* ossa__packed_dequant's arithmetic on 3 lanes at once (same
             * operations in the same order, so the same floats). The
             * record's last 6 floats are min xyz, extent xyz: the loads
             * read one word past each (lane 3, unused; the image or the
             * clip block's spare bytes go on). */
            static const float inv_steps[OSSA_PACKED_MAX_BITS + 1] = {
                0.0f,         1.0f / 1,      1.0f / 3,      1.0f / 7,      1.0f / 15,
                1.0f / 31,    1.0f / 63,     1.0f / 127,    1.0f / 255,    1.0f / 511,
                1.0f / 1023,  1.0f / 2047,   1.0f / 4095,   1.0f / 8191,   1.0f / 16383,
                1.0f / 32767, 1.0f / 65535,  1.0f / 131071, 1.0f / 262143, 1.0f / 524287};
            /* Lane 3 of the extents is the next record's first word, a
             * denormal as a float, which costs a microcode assist in each
             * multiply: cleared. */
            const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
            __m128 vmin = _mm_loadu_ps(tr->min);
            __m128 vext = _mm_and_ps(_mm_loadu_ps(tr->extent), xyz);
            uint32_t lo3, ex3;
            memcpy(&lo3, info, 4);
            memcpy(&ex3, info + 3, 4);
            __m128i z = _mm_setzero_si128();
            __m128i ilo = _mm_unpacklo_epi16(
                _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)(lo3 >> 8)), z), z);
            __m128i iex = _mm_unpacklo_epi16(
                _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)(ex3 >> 8)), z), z);
            __m128 k255 = _mm_set1_ps(1.0f / 255.0f);
            __m128 off = _mm_add_ps(vmin, _mm_mul_ps(vext, _mm_mul_ps(_mm_cvtepi32_ps(ilo), k255)));
            __m128 scl = _mm_mul_ps(_mm_mul_ps(vext, _mm_mul_ps(_mm_cvtepi32_ps(iex), k255)),
                                    _mm_set1_ps(inv_steps[bits]));
            uint64_t mask = (1ull << bits) - 1;
            uint64_t wa = ossa__load_le64(fa->keys + (pa >> 3)) >> (pa & 7);
            __m128i qa = _mm_set_epi32(0, (int)((wa >> (2 * bits)) & mask),
                                       (int)((wa >> bits) & mask), (int)(wa & mask));
            __m128 ra = _mm_add_ps(off, _mm_mul_ps(_mm_cvtepi32_ps(qa), scl));
            _mm_store_ss(oa, ra);
            _mm_store_ss(oa + OSSA_CLIP_LANES, _mm_shuffle_ps(ra, ra, 1));
            _mm_store_ss(oa + 2 * OSSA_CLIP_LANES, _mm_shuffle_ps(ra, ra, 2));
            if (fb) {
                uint64_t wb = ossa__load_le64(fb->keys + (pb >> 3)) >> (pb & 7);
                __m128i qb = _mm_set_epi32(0, (int)((wb >> (2 * bits)) & mask),
                                           (int)((wb >> bits) & mask), (int)(wb & mask));
                __m128 rb = _mm_add_ps(off, _mm_mul_ps(_mm_cvtepi32_ps(qb), scl));
                _mm_store_ss(ob, rb);
                _mm_store_ss(ob + OSSA_CLIP_LANES, _mm_shuffle_ps(rb, rb, 1));
                _mm_store_ss(ob + 2 * OSSA_CLIP_LANES, _mm_shuffle_ps(rb, rb, 2));
            }
            if ((tr->kind & 3) == OSSA_TRACK_ROTATION)
                rot[dest / OSSA_CLIP_GROUP] |= (uint8_t)(1u << (dest % OSSA_CLIP_LANES));
            pa += 3 * bits, pb += 3 * bits;
            continue;
#else
            float off[3], scl[3];
            ossa__packed_dequant(tr, info, off, scl);
            uint64_t mask = (1ull << bits) - 1;
            uint64_t wa = ossa__load_le64(fa->keys + (pa >> 3)) >> (pa & 7);
            va[0] = off[0] + (float)(uint32_t)(wa & mask) * scl[0];
            va[1] = off[1] + (float)(uint32_t)((wa >> bits) & mask) * scl[1];
            va[2] = off[2] + (float)(uint32_t)((wa >> (2 * bits)) & mask) * scl[2];
            if (fb) {
                uint64_t wb = ossa__load_le64(fb->keys + (pb >> 3)) >> (pb & 7);
                vb[0] = off[0] + (float)(uint32_t)(wb & mask) * scl[0];
                vb[1] = off[1] + (float)(uint32_t)((wb >> bits) & mask) * scl[1];
                vb[2] = off[2] + (float)(uint32_t)((wb >> (2 * bits)) & mask) * scl[2];
            }
#endif
        }
        oa[0] = va[0], oa[OSSA_CLIP_LANES] = va[1], oa[2 * OSSA_CLIP_LANES] = va[2];
        if (fb) ob[0] = vb[0], ob[OSSA_CLIP_LANES] = vb[1], ob[2 * OSSA_CLIP_LANES] = vb[2];
        if ((tr->kind & 3) == OSSA_TRACK_ROTATION)
            rot[dest / OSSA_CLIP_GROUP] |= (uint8_t)(1u << (dest % OSSA_CLIP_LANES));
        pa += 3 * bits, pb += 3 * bits;
    }
    *track = t;
    fa->pos = pa;
    if (fb) fb->pos = pb;
}

/* w = sqrt(1 - x^2 - y^2 - z^2) in the marked lanes, xyz scaled back onto
 * the unit sphere where they left it: the arithmetic of
 * ossa__packed_value, 4 lanes at a time. */
static void rebuild_w(float *frame, const uint8_t *rot, uint32_t groups)
{
    for (uint32_t g = 0; g < groups; g++) {
        if (!rot[g]) continue;
        float *q = frame + (size_t)g * OSSA_CLIP_GROUP + OSSA_CH_QX * OSSA_CLIP_LANES;
#ifdef OSSA_HAVE_SSE2
        for (uint32_t h = 0; h < 2; h++) {
            uint32_t m = (rot[g] >> (4 * h)) & 15;
            if (!m) continue;
            float *x = q + 4 * h;
            __m128 vx = _mm_load_ps(x), vy = _mm_load_ps(x + 8), vz = _mm_load_ps(x + 16);
            __m128 n = _mm_add_ps(_mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vy, vy)),
                                  _mm_mul_ps(vz, vz));
            __m128 one = _mm_set1_ps(1.0f);
            __m128 inv = _mm_div_ps(one, _mm_sqrt_ps(_mm_max_ps(n, one)));
            __m128 w = _mm_sqrt_ps(_mm_max_ps(_mm_sub_ps(one, n), _mm_setzero_ps()));
            static const int32_t lanes[16][4] = {
                {0, 0, 0, 0},   {-1, 0, 0, 0},   {0, -1, 0, 0},   {-1, -1, 0, 0},
                {0, 0, -1, 0},  {-1, 0, -1, 0},  {0, -1, -1, 0},  {-1, -1, -1, 0},
                {0, 0, 0, -1},  {-1, 0, 0, -1},  {0, -1, 0, -1},  {-1, -1, 0, -1},
                {0, 0, -1, -1}, {-1, 0, -1, -1}, {0, -1, -1, -1}, {-1, -1, -1, -1}};
            __m128 sel = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(const void *)lanes[m]));
#define PK_BLEND(a, b) _mm_or_ps(_mm_and_ps(sel, a), _mm_andnot_ps(sel, b))
            _mm_store_ps(x, PK_BLEND(_mm_mul_ps(vx, inv), vx));
            _mm_store_ps(x + 8, PK_BLEND(_mm_mul_ps(vy, inv), vy));
            _mm_store_ps(x + 16, PK_BLEND(_mm_mul_ps(vz, inv), vz));
            _mm_store_ps(x + 24, PK_BLEND(w, _mm_load_ps(x + 24)));
#undef PK_BLEND
        }
#else
        for (uint32_t lane = 0; lane < OSSA_CLIP_LANES; lane++) {
            if (!(rot[g] >> lane & 1)) continue;
            float x = q[lane], y = q[lane + 8], z = q[lane + 16];
            float n = x * x + y * y + z * z;
            if (n > 1) {
                float s = 1 / sqrtf(n);
                q[lane] = x * s, q[lane + 8] = y * s, q[lane + 16] = z * s;
                n = 1;
            }
            q[lane + 24] = sqrtf(1 - n);
        }
#endif
    }
}

/* Key frames fa and (when fb != UINT32_MAX) fb of groups [g0, g1) into a
 * and b. */
static void decode_chunk(const ossa__packed *p, ossa_simd level, uint32_t g0, uint32_t g1,
                         frame_at *fa, frame_at *fb, int same_segment, chunk_state *st_a,
                         chunk_state *st_b, float *a, float *b)
{
    size_t floats = (size_t)(g1 - g0) * OSSA_CLIP_GROUP;
    uint32_t lo = g0 * OSSA_CLIP_GROUP, hi = g1 * OSSA_CLIP_GROUP;
    uint32_t n = p->h->num_joints, j0 = g0 * OSSA_CLIP_LANES;
    switch (level) {
#ifdef OSSA_HAVE_AVX2
    case OSSA_SIMD_AVX2: ossa__pavx2_bind_frame(p->bind, n, j0, g1 - g0, a); break;
#endif
#ifdef OSSA_HAVE_SSE2
    case OSSA_SIMD_SSE2: ossa__psse2_bind_frame(p->bind, n, j0, g1 - g0, a); break;
#endif
    default: ossa__pscalar_bind_frame(p->bind, n, j0, g1 - g0, a); break;
    }
    ossa__packed_constants(p, g0, g1, a);
    memset(st_a->rot, 0, sizeof st_a->rot);
    if (fb) {
        memcpy(b, a, floats * sizeof(float));
        memset(st_b->rot, 0, sizeof st_b->rot);
    }
    if (fb && same_segment) {
        decode_tracks(p, fa, fb, lo, hi, &st_a->track, st_a->rot, a, b);
        memcpy(st_b->rot, st_a->rot, sizeof st_a->rot);
    } else {
        decode_tracks(p, fa, NULL, lo, hi, &st_a->track, st_a->rot, a, NULL);
        if (fb) decode_tracks(p, fb, NULL, lo, hi, &st_b->track, st_b->rot, b, NULL);
    }
    rebuild_w(a, st_a->rot, g1 - g0);
    if (fb) rebuild_w(b, st_b->rot, g1 - g0);
}

/* -- Sampling ------------------------------------------------------------------------ */

/* The root pinned to frame 0's horizontal position and yaw (as sample.c). */
static void remove_root_motion(const ossa_clip *clip, ossa_transform *t)
{
    ossa_transform first;
    ossa__packed_joint(clip, 0, clip->root, &first);
    int up = clip->up == OSSA_AXIS_X ? 0 : clip->up == OSSA_AXIS_Y ? 1 : 2;
    for (int c = 0; c < 3; c++)
        if (c != up) t->translation[c] = first.translation[c];
    double d = ossa__yaw_of(first.rotation, clip->up) - ossa__yaw_of(t->rotation, clip->up);
    float turn[4] = {0, 0, 0, (float)cos(d / 2)};
    turn[up] = (float)sin(d / 2);
    ossa__quat_mul(turn, t->rotation, t->rotation);
    ossa__quat_normalize(t->rotation);
}

/* Joint j of the decoded frames a, b (SoA, groups from j0 / 8 on) by the
 * reference arithmetic: lerp in double and the exact slerp. */
static void reference_joint(const float *a, const float *b, float alpha, uint32_t rel,
                            ossa_transform *out)
{
    const float *ga = a + (size_t)(rel / OSSA_CLIP_LANES) * OSSA_CLIP_GROUP + rel % OSSA_CLIP_LANES;
    const float *gb = b + (ga - a);
    ossa_transform x, y;
    for (int c = 0; c < 3; c++) x.translation[c] = ga[(OSSA_CH_TX + c) * OSSA_CLIP_LANES];
    for (int c = 0; c < 4; c++) x.rotation[c] = ga[(OSSA_CH_QX + c) * OSSA_CLIP_LANES];
    for (int c = 0; c < 3; c++) x.scale[c] = ga[(OSSA_CH_SX + c) * OSSA_CLIP_LANES];
    if (alpha == 0) {
        *out = x;
        return;
    }
    for (int c = 0; c < 3; c++) y.translation[c] = gb[(OSSA_CH_TX + c) * OSSA_CLIP_LANES];
    for (int c = 0; c < 4; c++) y.rotation[c] = gb[(OSSA_CH_QX + c) * OSSA_CLIP_LANES];
    for (int c = 0; c < 3; c++) y.scale[c] = gb[(OSSA_CH_SX + c) * OSSA_CLIP_LANES];
    double t = alpha;
    for (int c = 0; c < 3; c++) {
        out->translation[c] =
            (float)(x.translation[c] + t * ((double)y.translation[c] - x.translation[c]));
        out->scale[c] = (float)(x.scale[c] + t * ((double)y.scale[c] - x.scale[c]));
    }
    ossa__slerp_reference(x.rotation, y.rotation, t, out->rotation);
}

void ossa__packed_sample(const ossa_sample_job *job, ossa_simd level)
{
    const ossa_clip *clip = job->clip;
    uint32_t n = clip->num_joints;
    if (n == 0) return;
    ossa__packed p;
    ossa__packed_view(clip, &p);
    double position = (job->flags & OSSA_SAMPLE_FRAMES) ? job->time : job->time * clip->framerate;
    uint32_t f0;
    float alpha;
    ossa__clip_locate(clip, position, job->wrap, &f0, &alpha);
    uint32_t f1 = f0 + 1 < clip->num_frames ? f0 + 1 : 0;
    int two = alpha != 0;
    frame_at fa, fb;
    frame_at *pb = two ? &fb : NULL;
    frame_locate(&p, f0, &fa);
    if (two) frame_locate(&p, f1, &fb);
    int same = two && fa.seg == fb.seg;
    chunk_state sa = {0, {0}}, sb = {0, {0}};
    ossa__slerp_consts sc;
    ossa__slerp_consts_init(&sc, alpha);
    ossa_transform *local = job->local;
    float(*model)[16] = job->model;
    _Alignas(64) float a[CHUNK * OSSA_CLIP_GROUP], b[CHUNK * OSSA_CLIP_GROUP];

    for (uint32_t g0 = 0; g0 < clip->num_groups; g0 += CHUNK) {
        uint32_t g1 = g0 + CHUNK < clip->num_groups ? g0 + CHUNK : clip->num_groups;
        uint32_t j0 = g0 * OSSA_CLIP_LANES, j1 = g1 * OSSA_CLIP_LANES < n ? g1 * OSSA_CLIP_LANES : n;
        decode_chunk(&p, level, g0, g1, &fa, pb, same, &sa, &sb, a, b);
        switch (level) {
#ifdef OSSA_HAVE_AVX2
        case OSSA_SIMD_AVX2: ossa__pavx2_packed_chunk(&sc, a, b, j0, j1, local, model); break;
#endif
#ifdef OSSA_HAVE_SSE2
        case OSSA_SIMD_SSE2: ossa__psse2_packed_chunk(&sc, a, b, j0, j1, local, model); break;
#endif
        case OSSA_SIMD_SCALAR: ossa__pscalar_packed_chunk(&sc, a, b, j0, j1, local, model); break;
        default:
            for (uint32_t j = j0; j < j1; j++) {
                ossa_transform t;
                reference_joint(a, b, alpha, j - j0, &t);
                if ((job->flags & OSSA_SAMPLE_REMOVE_ROOT_MOTION) && j == clip->root)
                    remove_root_motion(clip, &t);
                if (local) local[j] = t;
                if (model) {
                    float m[16];
                    ossa_transform_to_matrix(&t, m);
                    int32_t par = clip->parents[j];
                    if (par >= 0)
                        ossa__mat4_mul(model[par], m, model[j]);
                    else
                        memcpy(model[j], m, sizeof m);
                }
            }
            break;
        }
    }
    if (level == OSSA_SIMD_REFERENCE) return;
    if (job->flags & OSSA_SAMPLE_REMOVE_ROOT_MOTION) {
        ossa_transform t;
        if (local) {
            t = local[clip->root];
        } else {
            /* The root's keys again, through the reference arithmetic. */
            uint32_t g = clip->root / OSSA_CLIP_LANES;
            frame_at ra, rb;
            chunk_state ta = {0, {0}}, tb = {0, {0}};
            frame_locate(&p, f0, &ra);
            if (two) frame_locate(&p, f1, &rb);
            /* Skip to the root's group: decode from group 0 is simplest
             * and exact; this path runs once per sample. */
            for (uint32_t g0 = 0; g0 <= g; g0 += CHUNK) {
                uint32_t g1 = g0 + CHUNK < clip->num_groups ? g0 + CHUNK : clip->num_groups;
                decode_chunk(&p, level, g0, g1, &ra, two ? &rb : NULL, same, &ta, &tb, a, b);
                if (g < g1) reference_joint(a, b, alpha, clip->root - g0 * OSSA_CLIP_LANES, &t);
            }
        }
        remove_root_motion(clip, &t);
        if (local) local[clip->root] = t;
        if (model) ossa_transform_to_matrix(&t, model[clip->root]);
    }
    if (model) {
        switch (level) {
#ifdef OSSA_HAVE_AVX2
        case OSSA_SIMD_AVX2: ossa__pavx2_parents(n, clip->parents, clip->order, NULL, model); break;
#endif
#ifdef OSSA_HAVE_SSE2
        case OSSA_SIMD_SSE2: ossa__psse2_parents(n, clip->parents, clip->order, NULL, model); break;
#endif
        default: ossa__pscalar_parents(n, clip->parents, clip->order, NULL, model); break;
        }
    }
}
