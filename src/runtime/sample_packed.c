/* Sampling compressed clips (packed.h). A sample decodes the two key frames
 * around the time, a chunk of joints at a time, into SoA frames on the
 * stack (the bind pose, the constant records, then each animated track's
 * key), and runs the float sampler's kernels on them. Nothing depends on earlier
 * calls: the frame's segment, bit position and ranges are found from the
 * frame index alone, so a random seek costs what playing forward costs.
 * With a sampling cache (the job's), the decoded frames are whole and kept
 * in it: a sample decodes only the frames the cache lacks. */
#include "runtime/packed.h"
#include "runtime/simd.h"
#include "runtime/slerp.h"

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
    const unsigned char *info; /* of the next track */
    uint64_t pos;              /* of the next track's key */
} frame_at;

static void frame_locate(const ossa__packed *p, uint32_t f, frame_at *at)
{
    uint32_t s = ossa__packed_segment_of(f, p->h->num_segments);
    at->seg = p->data + p->segments[s];
    at->keys = at->seg + ossa__rd32(at->seg + 4);
    at->info = at->seg + OSSA_PACKED_SEGMENT_HEAD;
    at->pos = (uint64_t)(f - s * OSSA_PACKED_SEGMENT) * ossa__rd32(at->seg);
}

/* The next track of a chunk walk, and its record. */
typedef struct chunk_state {
    uint32_t track;
    const unsigned char *rec;
} chunk_state;

/* Writes a decoded key: 3 components, or a rotation's 4 (the dropped one
 * rebuilt), at stride 8 in the SoA frame. */
static inline void put(uint32_t kind, const float v[4], float *out)
{
    if (OSSA_TRACK_KIND(kind) == OSSA_TRACK_ROTATION) {
        float q[4];
        ossa__packed_rotation(v, OSSA_TRACK_DROPPED(kind), q);
        out[0] = q[0], out[OSSA_CLIP_LANES] = q[1];
        out[2 * OSSA_CLIP_LANES] = q[2], out[3 * OSSA_CLIP_LANES] = q[3];
    } else {
        out[0] = v[0], out[OSSA_CLIP_LANES] = v[1], out[2 * OSSA_CLIP_LANES] = v[2];
    }
}

/* Decodes tracks t.. below float index `hi` (relative to `lo`) of one
 * frame into `out`; both frames share the track walk when `fb` is set
 * (frames of the same segment). */
static inline void decode_tracks(const ossa__packed *p, frame_at *fa, frame_at *fb,
                                 uint32_t lo, uint32_t hi, chunk_state *st, float *out_a,
                                 float *out_b)
{
    uint32_t nt = p->h->num_tracks, t = st->track;
    const unsigned char *info = fa->info, *rec = st->rec;
    uint64_t pa = fa->pos, pb = fb ? fb->pos : 0;
    for (; t < nt; t++, info += ossa__packed_info_size(info[0])) {
        uint32_t kind;
        memcpy(&kind, rec, 4);
        uint32_t dest = ossa__packed_dest(kind);
        if (dest >= hi) break;
        dest -= lo;
        const unsigned char *r = rec;
        rec += ossa__packed_record_size(kind);
        uint32_t bits = OSSA_PACKED_BITS(info[0]);
        float va[4], vb[4];
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
            uint64_t mask = (1ull << bits) - 1;
            uint64_t wa = ossa__load_le64(fa->keys + (pa >> 3)) >> (pa & 7);
            uint64_t wb = fb ? ossa__load_le64(fb->keys + (pb >> 3)) >> (pb & 7) : 0;
#ifdef OSSA_HAVE_SSE2
            /* ossa__packed_dequant's arithmetic on 3 lanes at once (same
             * operations in the same order, so the same floats). The
             * record's 6 floats are min xyz, extent xyz: the loads read
             * one word past each (lane 3, unused; the image or the clip
             * block's spare bytes go on). */
            __m128 vmin, vext;
            if ((kind & 3u) == OSSA_TRACK_ROTATION) {
                /* ossa__packed_record's 16-bit ranges. */
                __m128i q = _mm_loadu_si128((const __m128i *)(const void *)(r + 4));
                __m128i z16 = _mm_setzero_si128();
                __m128 step = _mm_set1_ps(OSSA_PACKED_ROT_STEP);
                vmin = _mm_sub_ps(_mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(q, z16)), step),
                                  _mm_set1_ps(1.0f));
                __m128i e = _mm_srli_si128(q, 6);
                vext = _mm_mul_ps(_mm_cvtepi32_ps(_mm_unpacklo_epi16(e, z16)), step);
            } else {
                /* Lane 3 of the extents is the next record's first word, a
                 * denormal as a float, which costs a microcode assist in
                 * each multiply: cleared. */
                const __m128 xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
                vmin = _mm_loadu_ps((const float *)(const void *)(r + 4));
                vext = _mm_and_ps(_mm_loadu_ps((const float *)(const void *)(r + 16)), xyz);
            }
            /* Without a segment range: fractions 0 and 255 of the clip's. */
            uint32_t lo3 = 0, ex3 = 0xFFFFFF00u;
            if (info[0] & OSSA_PACKED_RANGED) {
                memcpy(&lo3, info, 4);
                memcpy(&ex3, info + 3, 4);
            }
            __m128i z = _mm_setzero_si128();
            __m128i ilo = _mm_unpacklo_epi16(
                _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)(lo3 >> 8)), z), z);
            __m128i iex = _mm_unpacklo_epi16(
                _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)(ex3 >> 8)), z), z);
            __m128 k255 = _mm_set1_ps(1.0f / 255.0f);
            __m128 off =
                _mm_add_ps(vmin, _mm_mul_ps(vext, _mm_mul_ps(_mm_cvtepi32_ps(ilo), k255)));
            __m128 scl = _mm_mul_ps(_mm_mul_ps(vext, _mm_mul_ps(_mm_cvtepi32_ps(iex), k255)),
                                    _mm_set1_ps(ossa__packed_inv_steps[bits]));
            __m128i qa = _mm_set_epi32(0, (int)((wa >> (2 * bits)) & mask),
                                       (int)((wa >> bits) & mask), (int)(wa & mask));
            _mm_storeu_ps(va, _mm_add_ps(off, _mm_mul_ps(_mm_cvtepi32_ps(qa), scl)));
            if (fb) {
                __m128i qb = _mm_set_epi32(0, (int)((wb >> (2 * bits)) & mask),
                                           (int)((wb >> bits) & mask), (int)(wb & mask));
                _mm_storeu_ps(vb, _mm_add_ps(off, _mm_mul_ps(_mm_cvtepi32_ps(qb), scl)));
            }
#else
            ossa__packed_track tr;
            ossa__packed_record(r, &tr);
            float off[3], scl[3];
            ossa__packed_dequant(&tr, info, off, scl);
            for (uint32_t c = 0; c < 3; c++) {
                va[c] = off[c] + (float)(uint32_t)((wa >> (bits * c)) & mask) * scl[c];
                if (fb) vb[c] = off[c] + (float)(uint32_t)((wb >> (bits * c)) & mask) * scl[c];
            }
#endif
        }
        put(kind, va, out_a + dest);
        if (fb) put(kind, vb, out_b + dest);
        pa += 3 * bits, pb += 3 * bits;
    }
    st->track = t, st->rec = rec;
    fa->info = info, fa->pos = pa;
    if (fb) fb->info = info, fb->pos = pb;
}

/* Key frames fa and (when fb is set) fb of groups [g0, g1) into a and b. */
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
    if (fb) memcpy(b, a, floats * sizeof(float));
    if (fb && same_segment) {
        decode_tracks(p, fa, fb, lo, hi, st_a, a, b);
        *st_b = *st_a;
    } else {
        decode_tracks(p, fa, NULL, lo, hi, st_a, a, NULL);
        if (fb) decode_tracks(p, fb, NULL, lo, hi, st_b, b, NULL);
    }
}

/* -- Sampling ------------------------------------------------------------------------ */

/* Joint j0 + rel of the decoded frames a and b (b unused when alpha is 0)
 * by the reference arithmetic. */
static void reference_joint(const float *a, const float *b, float alpha, uint32_t rel,
                            ossa_transform *out)
{
    ossa_transform x, y;
    ossa__soa_get(a, rel, &x);
    if (alpha == 0) {
        *out = x;
        return;
    }
    ossa__soa_get(b, rel, &y);
    ossa__interpolate_reference(&x, &y, alpha, out);
}

/* The kernels over joints [j0, j1) of decoded frames a and b. */
static void sample_chunk(const ossa_sample_job *job, ossa_simd level, const ossa__slerp_consts *sc,
                         const float *a, const float *b, uint32_t j0, uint32_t j1)
{
    ossa_transform *local = job->local;
    float(*model)[16] = job->model;
    switch (level) {
#ifdef OSSA_HAVE_AVX2
    case OSSA_SIMD_AVX2: ossa__pavx2_packed_chunk(sc, a, b, j0, j1, local, model); break;
#endif
#ifdef OSSA_HAVE_SSE2
    case OSSA_SIMD_SSE2: ossa__psse2_packed_chunk(sc, a, b, j0, j1, local, model); break;
#endif
    case OSSA_SIMD_SCALAR: ossa__pscalar_packed_chunk(sc, a, b, j0, j1, local, model); break;
    default:
        for (uint32_t j = j0; j < j1; j++) {
            ossa_transform t;
            reference_joint(a, b, sc->alpha, j - j0, &t);
            ossa__sample_put_reference(job, j, t);
        }
        break;
    }
}

/* Fills the cache's track table with segment s's bits and ranges. */
static void cache_segment(const ossa__packed *p, ossa_sample_cache *cache, uint32_t s)
{
    const unsigned char *seg = p->data + p->segments[s];
    const unsigned char *info = seg + OSSA_PACKED_SEGMENT_HEAD, *rec = p->records;
    for (uint32_t t = 0; t < p->h->num_tracks; t++, info += ossa__packed_info_size(info[0])) {
        ossa__packed_track tr;
        rec += ossa__packed_record(rec, &tr);
        ossa__cached_track *c = &cache->tracks[t];
        c->dest = ossa__packed_dest(tr.kind);
        c->kind = tr.kind;
        c->bits = OSSA_PACKED_BITS(info[0]);
        ossa__packed_dequant(&tr, info, c->offset, c->scale);
    }
    cache->segment = s;
}

/* The tracks of the key frame at `at` into `out`, a frame that holds the
 * template, with the cache's table of that frame's segment. */
static void cache_tracks(const ossa__packed *p, const ossa_sample_cache *cache,
                         const frame_at *at, float *out)
{
    const unsigned char *keys = at->keys;
    uint64_t pos = at->pos;
    for (uint32_t t = 0; t < p->h->num_tracks; t++) {
        const ossa__cached_track *c = &cache->tracks[t];
        uint32_t bits = c->bits;
        float v[4];
        if (bits == OSSA_PACKED_RAW_BITS) {
            for (uint32_t k = 0; k < 3; k++) {
                uint32_t u = ossa__read_bits(keys, pos + 32 * k, 32);
                memcpy(&v[k], &u, 4);
            }
        } else {
            uint64_t mask = (1ull << bits) - 1;
            uint64_t w = ossa__load_le64(keys + (pos >> 3)) >> (pos & 7);
            v[0] = c->offset[0] + (float)(uint32_t)(w & mask) * c->scale[0];
            v[1] = c->offset[1] + (float)(uint32_t)((w >> bits) & mask) * c->scale[1];
            v[2] = c->offset[2] + (float)(uint32_t)((w >> (2 * bits)) & mask) * c->scale[2];
        }
        put(c->kind, v, out + c->dest);
        pos += 3 * bits;
    }
}

/* Decodes key frame fa into cache slot 0 and, when fb is set, fb into slot
 * 1. A slot that holds a frame already holds the clip's template (the bind
 * pose and the constant records) wherever no track writes: only the
 * tracks are decoded into it. */
static void cache_decode(const ossa__packed *p, ossa_simd level, ossa_sample_cache *cache,
                         uint32_t slot_a, uint32_t fa, uint32_t fb)
{
    uint32_t groups = (p->h->num_joints + OSSA_CLIP_LANES - 1) / OSSA_CLIP_LANES;
    int two = fb != OSSA_CACHE_EMPTY;
    float *a = cache->frames[slot_a], *b = cache->frames[!slot_a];
    frame_at at_a, at_b;
    frame_locate(p, fa, &at_a);
    if (two) frame_locate(p, fb, &at_b);
    int same = two && at_a.seg == at_b.seg;
    chunk_state sa = {0, p->records}, sb = {0, p->records};
    if (cache->frame[slot_a] == OSSA_CACHE_EMPTY ||
        (two && cache->frame[!slot_a] == OSSA_CACHE_EMPTY)) {
        decode_chunk(p, level, 0, groups, &at_a, two ? &at_b : NULL, same, &sa, &sb, a, b);
    } else if (!two) {
        /* Playing forward: one frame at a time, the segment's ranges
         * worked out once for its 16 frames. */
        uint32_t s = ossa__packed_segment_of(fa, p->h->num_segments);
        if (cache->segment != s) cache_segment(p, cache, s);
        cache_tracks(p, cache, &at_a, a);
    } else if (same) {
        decode_tracks(p, &at_a, &at_b, 0, groups * OSSA_CLIP_GROUP, &sa, a, b);
    } else {
        decode_tracks(p, &at_a, NULL, 0, groups * OSSA_CLIP_GROUP, &sa, a, NULL);
        decode_tracks(p, &at_b, NULL, 0, groups * OSSA_CLIP_GROUP, &sb, b, NULL);
    }
    cache->frame[slot_a] = fa;
    if (two) cache->frame[!slot_a] = fb;
}

/* ossa__packed_sample with a cache (checked to hold the clip's groups):
 * the frames it lacks are decoded, both in one walk after a seek. */
static void sample_cached(const ossa_sample_job *job, ossa_simd level, const ossa__packed *p,
                          uint32_t f0, uint32_t f1, const ossa__slerp_consts *sc)
{
    const ossa_clip *clip = job->clip;
    ossa_sample_cache *cache = job->cache;
    if (cache->clip != clip || memcmp(&cache->header, p->h, sizeof cache->header) != 0) {
        cache->clip = clip;
        memcpy(&cache->header, p->h, sizeof cache->header);
        cache->frame[0] = cache->frame[1] = OSSA_CACHE_EMPTY;
        cache->segment = OSSA_CACHE_EMPTY;
    }
    int two = sc->alpha != 0;
    int has0 = cache->frame[0] == f0 ? 0 : cache->frame[1] == f0 ? 1 : -1;
    int has1 = !two ? 0 : cache->frame[0] == f1 ? 0 : cache->frame[1] == f1 ? 1 : -1;
    if (has0 < 0 && two && has1 < 0) {
        cache_decode(p, level, cache, 0, f0, f1);
        has0 = 0, has1 = 1;
    } else if (has0 < 0) {
        has0 = two ? !has1 : 0;
        cache_decode(p, level, cache, (uint32_t)has0, f0, OSSA_CACHE_EMPTY);
    } else if (has1 < 0) {
        has1 = !has0;
        cache_decode(p, level, cache, (uint32_t)has1, f1, OSSA_CACHE_EMPTY);
    }
    const float *a = cache->frames[has0], *b = cache->frames[two ? has1 : has0];
    sample_chunk(job, level, sc, a, b, 0, clip->num_joints);
}

void ossa__packed_sample(const ossa_sample_job *job, ossa_simd level, uint32_t f0, float alpha)
{
    const ossa_clip *clip = job->clip;
    uint32_t n = clip->num_joints;
    ossa__packed p;
    ossa__packed_view(clip, &p);
    uint32_t f1 = f0 + 1 < clip->num_frames ? f0 + 1 : 0;
    ossa__slerp_consts sc;
    ossa__slerp_consts_init(&sc, alpha);
    if (job->cache) {
        sample_cached(job, level, &p, f0, f1, &sc);
        return;
    }
    int two = alpha != 0;
    frame_at fa, fb;
    frame_at *pb = two ? &fb : NULL;
    frame_locate(&p, f0, &fa);
    if (two) frame_locate(&p, f1, &fb);
    int same = two && fa.seg == fb.seg;
    chunk_state sa = {0, p.records}, sb = {0, p.records};
    _Alignas(64) float a[CHUNK * OSSA_CLIP_GROUP], b[CHUNK * OSSA_CLIP_GROUP];

    for (uint32_t g0 = 0; g0 < clip->num_groups; g0 += CHUNK) {
        uint32_t g1 = g0 + CHUNK < clip->num_groups ? g0 + CHUNK : clip->num_groups;
        uint32_t j0 = g0 * OSSA_CLIP_LANES, j1 = g1 * OSSA_CLIP_LANES < n ? g1 * OSSA_CLIP_LANES : n;
        decode_chunk(&p, level, g0, g1, &fa, pb, same, &sa, &sb, a, b);
        sample_chunk(job, level, &sc, a, b, j0, j1);
    }
}
