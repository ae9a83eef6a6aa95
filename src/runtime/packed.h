/* Compressed clips: the image layout shared by the compressor (compress.c),
 * the samplers (sample_packed.c), loading and saving (clip_file.c), and
 * the key decoder (packed.c). docs/formats/ossaclip.md describes the same
 * layout for readers of .ossaclip files: the file is the image.
 *
 * The image is little-endian and position independent (offsets from its
 * first byte). A clip built in memory and a clip loaded from a file hold
 * the same bytes, and sampling reads them in place. */
#ifndef OSSA_PACKED_H
#define OSSA_PACKED_H

#include "runtime/runtime.h"

#include <math.h>

#define OSSA_PACKED_MAGIC "OSSACLIP"
#define OSSA_PACKED_VERSION 1u
/* Frames per segment: every segment has its own bit rates and ranges. */
#define OSSA_PACKED_SEGMENT 16u
/* Bits per component a track may use in a segment: 0 (one value, the
 * start of its range), 3 to 19 (quantized in the segment's range or the
 * clip's), or 32 (the float's bits, no range). 3 x 19 bits plus 7 bits of
 * alignment fit one 64-bit read. */
#define OSSA_PACKED_MAX_BITS 19u
#define OSSA_PACKED_RAW_BITS 32u
/* Bytes after each segment's keys, so that 64-bit reads at the last key
 * stay inside the image. */
#define OSSA_PACKED_SLACK 8u

enum { OSSA_TRACK_ROTATION = 0, OSSA_TRACK_TRANSLATION = 1, OSSA_TRACK_SCALE = 2 };

/* The header (offset 0, 128 bytes). Every offset is a multiple of 16.
 * Tracks that are neither animated nor constant records keep the bind
 * pose's value. */
typedef struct ossa__packed_header {
    char magic[8];            /* "OSSACLIP" */
    uint32_t version;         /* OSSA_PACKED_VERSION */
    uint32_t image_size;      /* bytes of the whole image, header included */
    uint32_t num_joints;
    uint32_t num_frames;      /* >= 1 */
    float framerate;          /* > 0 */
    uint32_t anim_flags;      /* OSSA_ANIMATION_* */
    uint32_t root_joint;      /* < num_joints (0 without joints) */
    uint32_t up_axis;         /* ossa_axis */
    uint32_t segment_frames;  /* OSSA_PACKED_SEGMENT */
    uint32_t num_segments;    /* ossa__packed_num_segments(num_frames) */
    uint32_t num_tracks;      /* animated tracks */
    float max_error;          /* the bound it was compressed to, model units */
    float shell_distance;     /* d of the error metric, model units */
    float measured_error;     /* largest error measured when compressing */
    uint32_t name_length;     /* bytes, without the NUL that follows them */
    uint32_t off_name;
    uint32_t off_parents;     /* num_joints int32 */
    uint32_t off_order;       /* num_joints uint32 */
    uint32_t off_bind;        /* num_joints ossa_transform (10 floats) */
    uint32_t off_root_track;  /* root turns: two bitsets of (num_frames + 64) / 64
                                 uint64 words, the frames where the root's
                                 unwrapped yaw gains (+1) or loses (-1) a
                                 whole turn */
    uint32_t off_constants;   /* num_constants ossa__packed_constant */
    uint32_t off_tracks;      /* num_tracks track records (track_bytes) */
    uint32_t off_segments;    /* num_segments + 1 uint32, from off_data */
    uint32_t off_data;        /* segment data */
    uint32_t constant_tracks; /* tracks with no per-frame data (the bind
                                 pose's value or a constant record) */
    uint32_t num_constants;   /* constant records */
    uint32_t track_bytes;     /* bytes of the track records */
    uint32_t reserved[3];     /* zero */
} ossa__packed_header;

_Static_assert(sizeof(ossa__packed_header) == 128, "the header is 128 bytes");

/* A constant track whose value is not the bind pose's. Sorted by kind
 * (joint << 2 | track kind), no two alike. */
typedef struct ossa__packed_constant {
    uint32_t kind;    /* OSSA_TRACK_* in bits 0-1, the joint in bits 2-31 */
    float value[4];   /* x y z (w for rotations; 0 otherwise) */
} ossa__packed_constant;

_Static_assert(sizeof(ossa__packed_constant) == 20, "a constant record is 20 bytes");

/* An animated track: one joint's rotation (three components stored, the
 * fourth, which is >= 0 in every key, rebuilt: the one that stays
 * farthest from 0, so that rebuilding it is well conditioned),
 * translation or scale. */
#define OSSA_TRACK_KIND(k) ((k) & 3u)
#define OSSA_TRACK_DROPPED(k) (((k) >> 2) & 3u)
#define OSSA_TRACK_JOINT(k) ((k) >> 4)
typedef struct ossa__packed_track {
    uint32_t kind;    /* OSSA_TRACK_* in bits 0-1; for rotations, in bits
                         2-3 the component (x y z w) rebuilt from the other
                         three (0 otherwise); the joint in bits 4-31.
                         Tracks are sorted by ossa__packed_dest. */
    float min[3];     /* the clip's range per component */
    float extent[3];
} ossa__packed_track;

/* Track records in the image, one after the other: the kind word, then
 * for rotations (components in [-1, 1]) the range as 16-bit steps of
 * 2 / 65535, min[3] (from -1) and extent[3] (16 bytes in all); for
 * translations and scales min[3] and extent[3] as floats (28 bytes). */
#define OSSA_PACKED_ROT_STEP (2.0f / 65535.0f)
static inline size_t ossa__packed_record_size(uint32_t kind)
{
    return (kind & 3u) == OSSA_TRACK_ROTATION ? 16 : 28;
}
/* Reads the record at `rec` into `t`; returns its size. */
static inline size_t ossa__packed_record(const unsigned char *rec, ossa__packed_track *t)
{
    memcpy(&t->kind, rec, 4);
    if ((t->kind & 3u) != OSSA_TRACK_ROTATION) {
        memcpy(t->min, rec + 4, 12);
        memcpy(t->extent, rec + 16, 12);
        return 28;
    }
    uint16_t q[6];
    memcpy(q, rec + 4, 12);
    for (int c = 0; c < 3; c++) {
        t->min[c] = (float)q[c] * OSSA_PACKED_ROT_STEP - 1.0f;
        t->extent[c] = (float)q[3 + c] * OSSA_PACKED_ROT_STEP;
    }
    return 16;
}

/* The float index of a track's first component in a SoA frame: group *
 * OSSA_CLIP_GROUP + channel * 8 + lane. */
static inline uint32_t ossa__packed_dest(uint32_t kind)
{
    uint32_t j = kind >> 4, k = kind & 3;
    uint32_t ch = k == 0 ? OSSA_CH_QX : k == 1 ? OSSA_CH_TX : OSSA_CH_SX;
    return (j / OSSA_CLIP_LANES) * OSSA_CLIP_GROUP + ch * OSSA_CLIP_LANES + j % OSSA_CLIP_LANES;
}

/* Segments: S = max(1, floor(F / 16)); segment s holds frames [16 s,
 * 16 s + 16), the last one every frame from 16 (S - 1) on (16 to 31, or
 * all of them when F < 16): no short segment pays for its ranges alone. */
static inline uint32_t ossa__packed_num_segments(uint32_t frames)
{
    return frames / OSSA_PACKED_SEGMENT ? frames / OSSA_PACKED_SEGMENT : 1;
}
static inline uint32_t ossa__packed_segment_of(uint32_t f, uint32_t num_segments)
{
    uint32_t s = f / OSSA_PACKED_SEGMENT;
    return s < num_segments ? s : num_segments - 1;
}

/* A segment at data + segments[s]: little-endian u32 bits per frame, u32
 * offset of the keys from the segment's start, then per track its bits
 * per component (bits 0-5) with flag 0x80 when the segment's range
 * follows as 6 bytes (8-bit fractions of the clip's range: min x y z,
 * extent x y z; without it the clip's range is used whole), then the
 * keys: frame k of the segment starts at bit k * frame_bits, tracks in
 * order, components in order, each value's bits least significant first
 * (bit b of the stream is bit b % 8 of byte b / 8). */
#define OSSA_PACKED_SEGMENT_HEAD 8u
#define OSSA_PACKED_RANGED 0x80u
#define OSSA_PACKED_BITS(b) ((uint32_t)(b) & 0x3Fu)
static inline size_t ossa__packed_info_size(unsigned char b)
{
    return (b & OSSA_PACKED_RANGED) ? 7 : 1;
}

static inline uint64_t ossa__load_le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* The n-bit value (n <= 57) at bit `pos` of `keys`. */
static inline uint32_t ossa__read_bits(const unsigned char *keys, uint64_t pos, uint32_t n)
{
    uint64_t w = ossa__load_le64(keys + (pos >> 3)) >> (pos & 7);
    return (uint32_t)(w & ((1ull << n) - 1));
}

/* 1 / (2^bits - 1) for bits 0 (0) to OSSA_PACKED_MAX_BITS, rounded once
 * (packed.c): decoders multiply instead of dividing and get the same
 * floats. */
extern const float ossa__packed_inv_steps[OSSA_PACKED_MAX_BITS + 1];

/* Scale and offset of a track's components in a segment: value = offset +
 * q * scale for the quantized q. Written once: the compressor measures
 * its error with the same arithmetic the samplers decode with. */
static inline void ossa__packed_dequant(const ossa__packed_track *t, const unsigned char *info,
                                        float offset[3], float scale[3])
{
    uint32_t bits = OSSA_PACKED_BITS(info[0]);
    int ranged = (info[0] & OSSA_PACKED_RANGED) != 0;
    float inv = bits <= OSSA_PACKED_MAX_BITS ? ossa__packed_inv_steps[bits] : 0.0f;
    for (int c = 0; c < 3; c++) {
        float lo8 = ranged ? (float)info[1 + c] : 0.0f, ext8 = ranged ? (float)info[4 + c] : 255.0f;
        float lo = t->extent[c] * (lo8 * (1.0f / 255.0f));
        float ext = t->extent[c] * (ext8 * (1.0f / 255.0f));
        offset[c] = t->min[c] + lo;
        scale[c] = ext * inv;
    }
}

/* A rotation from its three stored components v (in x y z w order with
 * `dropped` left out): the dropped one rebuilt as sqrt(1 - |v|^2), v
 * scaled back onto the unit sphere where quantization pushed it past. */
static inline void ossa__packed_rotation(const float v[3], uint32_t dropped, float q[4])
{
    float a = v[0], b = v[1], c = v[2];
    float n = a * a + b * b + c * c;
    if (n > 1) {
        float s = 1 / sqrtf(n);
        a *= s, b *= s, c *= s;
        n = 1;
    }
    float r = sqrtf(1 - n);
    switch (dropped) {
    case 0: q[0] = r, q[1] = a, q[2] = b, q[3] = c; break;
    case 1: q[0] = a, q[1] = r, q[2] = b, q[3] = c; break;
    case 2: q[0] = a, q[1] = b, q[2] = r, q[3] = c; break;
    default: q[0] = a, q[1] = b, q[2] = c, q[3] = r; break;
    }
}

/* A track's value from its quantized components q (the float's bits when
 * `bits` is 32): 3 components, or the whole quaternion for rotations. */
static inline void ossa__packed_value(const ossa__packed_track *t, const unsigned char *info,
                                      const uint32_t q[3], float out[4])
{
    uint32_t bits = OSSA_PACKED_BITS(info[0]);
    float v[3];
    if (bits == OSSA_PACKED_RAW_BITS) {
        memcpy(v, q, 12);
    } else {
        float off[3], scl[3];
        ossa__packed_dequant(t, info, off, scl);
        for (int c = 0; c < 3; c++) v[c] = off[c] + (float)q[c] * scl[c];
    }
    if (OSSA_TRACK_KIND(t->kind) == OSSA_TRACK_ROTATION) {
        ossa__packed_rotation(v, OSSA_TRACK_DROPPED(t->kind), out);
    } else {
        memcpy(out, v, sizeof v);
        out[3] = 0;
    }
}

/* A parsed, checked image: pointers into it. */
typedef struct ossa__packed {
    const ossa__packed_header *h;
    const unsigned char *records; /* the track records */
    const uint32_t *segments;
    const unsigned char *data;
    const ossa__packed_constant *constants;
    const ossa_transform *bind;
} ossa__packed;

/* Checks an image of `size` bytes (at a 16-byte aligned address) that
 * comes from anywhere: every count, offset and bit position a sampler
 * will use stays inside it. Fails with the byte offset of the problem.
 * `scratch` has room for num_joints bytes (at most `size`). */
ossa_status ossa__packed_check(const unsigned char *image, size_t size, unsigned char *scratch,
                               ossa_error *error);

/* A clip block with room for an image of `image_size` bytes at a 16-byte
 * aligned address (*image), then 16 spare bytes and `extra` bytes at
 * *image + image_size + 16; allocator, size and the rest zero. NULL when
 * memory runs out. */
ossa_clip *ossa__packed_new(const ossa_allocator *alloc, size_t image_size, size_t extra,
                            unsigned char **image);

/* Points `clip` (whose memory follows it in the same block) at a checked
 * image: header fields, parents, order, bind pose, name, root track. The
 * caller sets allocator, size and simd. */
void ossa__packed_attach(ossa_clip *clip, const unsigned char *image);

/* The parsed view of a compressed clip's image. */
void ossa__packed_view(const ossa_clip *clip, ossa__packed *out);

/* Joint j's transform at key frame f (< num_frames), as every sampler
 * decodes it. */
void ossa__packed_joint(const ossa_clip *clip, uint32_t f, uint32_t j, ossa_transform *out);

/* The frame every key frame starts from: the bind pose of joints
 * [group0 * 8, group1 * 8) as SoA groups, the constant records applied,
 * identity transforms in the padding lanes. */
void ossa__packed_template(const ossa__packed *p, uint32_t group0, uint32_t group1, float *out);
/* The constant records alone, over a bind-pose frame of those groups. */
void ossa__packed_constants(const ossa__packed *p, uint32_t group0, uint32_t group1, float *out);

/* Decodes key frame f of joints [group0 * 8, group1 * 8) into `out`
 * (group1 - group0 SoA groups, 32-byte aligned). */
void ossa__packed_frame(const ossa__packed *p, uint32_t f, uint32_t group0, uint32_t group1,
                        float *out);

/* ossa_sample_run's kernels for a compressed clip (sample_packed.c): every
 * joint of the job's outputs from the keys at f0 and f0 + 1 (frame 0 after
 * the last), interpolated by alpha. `job` checked, `level` resolved, the
 * clip has joints; ossa_sample_run then removes root motion and composes
 * the model matrices (at the reference level, the joints are finished). */
void ossa__packed_sample(const ossa_sample_job *job, ossa_simd level, uint32_t f0, float alpha);

/* A track's keys in one segment, ready to decode: value = offset + q *
 * scale (ossa__packed_dequant's floats). */
typedef struct ossa__cached_track {
    uint32_t dest;  /* ossa__packed_dest */
    uint32_t kind;  /* the record's kind word */
    uint32_t bits;  /* per component: 0, 3-19 or OSSA_PACKED_RAW_BITS */
    float offset[3], scale[3];
} ossa__cached_track;

/* Two decoded key frames (ossa.h, ossa_sample_cache) and the ranges of
 * one segment's tracks, in the block after this header. */
#define OSSA_CACHE_EMPTY UINT32_MAX
struct ossa_sample_cache {
    ossa_allocator allocator;
    size_t size;               /* bytes of the single allocation */
    uint32_t groups;           /* SoA groups each frame holds */
    const ossa_clip *clip;     /* whose frames these are, or NULL */
    ossa__packed_header header; /* and that clip's header, to tell a new
                                   clip at the same address */
    uint32_t frame[2];         /* key frame index, or OSSA_CACHE_EMPTY */
    float *frames[2];          /* groups * OSSA_CLIP_GROUP floats, 64-byte aligned */
    uint32_t segment;          /* whose tracks `tracks` holds, or OSSA_CACHE_EMPTY */
    ossa__cached_track *tracks; /* room for 3 * 8 * groups */
};

#endif
