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
/* Bits per component a track may use in a segment: 0 (the segment's
 * minimum), 3 to 19 (quantized in the segment's range), or 32 (the float's
 * bits, no range). 3 x 19 bits plus 7 bits of alignment fit one 64-bit
 * read. */
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
    uint32_t num_segments;    /* ceil(num_frames / segment_frames) */
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
    uint32_t off_tracks;      /* num_tracks ossa__packed_track */
    uint32_t off_segments;    /* num_segments + 1 uint32, from off_data */
    uint32_t off_data;        /* segment data */
    uint32_t constant_tracks; /* tracks with no per-frame data (the bind
                                 pose's value or a constant record) */
    uint32_t num_constants;   /* constant records */
    uint32_t reserved[4];     /* zero */
} ossa__packed_header;

_Static_assert(sizeof(ossa__packed_header) == 128, "the header is 128 bytes");

/* A constant track whose value is not the bind pose's. Sorted by kind
 * (joint << 2 | track kind), no two alike. */
typedef struct ossa__packed_constant {
    uint32_t kind;    /* OSSA_TRACK_* in bits 0-1, the joint in bits 2-31 */
    float value[4];   /* x y z (w for rotations; 0 otherwise) */
} ossa__packed_constant;

_Static_assert(sizeof(ossa__packed_constant) == 20, "a constant record is 20 bytes");

/* An animated track: one joint's rotation (x, y, z; w >= 0 rebuilt),
 * translation or scale. */
typedef struct ossa__packed_track {
    uint32_t dest;    /* float index of component 0 in a SoA frame:
                         group * OSSA_CLIP_GROUP + channel * 8 + lane */
    uint32_t kind;    /* OSSA_TRACK_* in bits 0-1, the joint in bits 2-31 */
    float min[3];     /* the clip's range per component */
    float extent[3];
} ossa__packed_track;

_Static_assert(sizeof(ossa__packed_track) == 32, "a track record is 32 bytes");

/* A segment at data + segments[s]: a 4-byte little-endian count of bits
 * per frame, then per track 7 bytes (bits per component; the segment's
 * range as 8-bit fractions of the clip's: min x y z, extent x y z), then
 * the keys: frame k of the segment starts at bit k * frame_bits, tracks
 * in order, components x y z, each value's bits least significant first
 * (bit b of the stream is bit b % 8 of byte b / 8). */
#define OSSA_PACKED_TRACK_BYTES 7u
static inline size_t ossa__packed_keys_offset(uint32_t num_tracks)
{
    return 4 + (size_t)num_tracks * OSSA_PACKED_TRACK_BYTES;
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

/* Scale and offset of a track's components in a segment: value = offset +
 * q * scale for the quantized q. Written once: the compressor measures
 * its error with the same arithmetic the samplers decode with. */
static inline void ossa__packed_dequant(const ossa__packed_track *t, const unsigned char *info,
                                        float offset[3], float scale[3])
{
    /* 1 / (2^bits - 1), rounded once (a table: the samplers avoid the
     * division and get the same floats). */
    static const float inv_steps[OSSA_PACKED_MAX_BITS + 1] = {
        0.0f,         1.0f / 1,      1.0f / 3,      1.0f / 7,      1.0f / 15,
        1.0f / 31,    1.0f / 63,     1.0f / 127,    1.0f / 255,    1.0f / 511,
        1.0f / 1023,  1.0f / 2047,   1.0f / 4095,   1.0f / 8191,   1.0f / 16383,
        1.0f / 32767, 1.0f / 65535,  1.0f / 131071, 1.0f / 262143, 1.0f / 524287};
    uint32_t bits = info[0];
    float inv = bits <= OSSA_PACKED_MAX_BITS ? inv_steps[bits] : 0.0f;
    for (int c = 0; c < 3; c++) {
        float lo = t->extent[c] * ((float)info[1 + c] * (1.0f / 255.0f));
        float ext = t->extent[c] * ((float)info[4 + c] * (1.0f / 255.0f));
        offset[c] = t->min[c] + lo;
        scale[c] = ext * inv;
    }
}

/* A track's value from its quantized components q (the float's bits when
 * `bits` is 32), w rebuilt for rotations (out[3]; xyz scaled back onto the
 * unit sphere where quantization pushed them past it). */
static inline void ossa__packed_value(const ossa__packed_track *t, const unsigned char *info,
                                      const uint32_t q[3], float out[4])
{
    uint32_t bits = info[0];
    if (bits == OSSA_PACKED_RAW_BITS) {
        memcpy(out, q, 12);
    } else {
        float off[3], scl[3];
        ossa__packed_dequant(t, info, off, scl);
        for (int c = 0; c < 3; c++) out[c] = off[c] + (float)q[c] * scl[c];
    }
    out[3] = 0;
    if ((t->kind & 3) == OSSA_TRACK_ROTATION) {
        float n = out[0] * out[0] + out[1] * out[1] + out[2] * out[2];
        if (n > 1) {
            float s = 1 / sqrtf(n);
            for (int c = 0; c < 3; c++) out[c] *= s;
            n = 1;
        }
        out[3] = sqrtf(1 - n);
    }
}

/* A parsed, checked image: pointers into it. */
typedef struct ossa__packed {
    const ossa__packed_header *h;
    const ossa__packed_track *tracks;
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

/* A clip block with room for an image of `image_size` bytes at a 64-byte
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

/* ossa_sample_run for a compressed clip (sample_packed.c): `job` checked,
 * `level` resolved. */
void ossa__packed_sample(const ossa_sample_job *job, ossa_simd level);

#endif
