/* Compressed clips: checking an image from anywhere, attaching it to a
 * clip, and the plain key decoder that the compressor, the reference
 * sampler and root motion use (the fast samplers are in sample_packed.c).
 * Layout: packed.h and docs/formats/ossaclip.md. */
#include "runtime/packed.h"

#include <math.h>

const float ossa__packed_inv_steps[OSSA_PACKED_MAX_BITS + 1] = {
    0.0f,         1.0f / 1,      1.0f / 3,      1.0f / 7,      1.0f / 15,
    1.0f / 31,    1.0f / 63,     1.0f / 127,    1.0f / 255,    1.0f / 511,
    1.0f / 1023,  1.0f / 2047,   1.0f / 4095,   1.0f / 8191,   1.0f / 16383,
    1.0f / 32767, 1.0f / 65535,  1.0f / 131071, 1.0f / 262143, 1.0f / 524287};

/* -- Checking ----------------------------------------------------------------- */

#define FAIL(off, ...) return ossa__fail(error, OSSA_ERROR_CORRUPT, (uint64_t)(off), __VA_ARGS__)

/* [off, off + count * elem) inside the image and 16-byte aligned. */
static ossa_status check_section(size_t size, uint32_t off, uint64_t count, uint64_t elem,
                                 const char *what, size_t where, ossa_error *error)
{
    if (off % 16) FAIL(where, "%s: offset %u is not a multiple of 16", what, (unsigned)off);
    if (off < sizeof(ossa__packed_header) || off > size || count * elem > size - off)
        FAIL(where, "%s: %llu bytes at byte %u run past the end of the clip (%zu bytes)", what,
             (unsigned long long)(count * elem), (unsigned)off, size);
    return OSSA_OK;
}

#define HOFF(field) offsetof(ossa__packed_header, field)

/* The header's own fields: magic, version, sizes and counts. */
static ossa_status check_header(const ossa__packed_header *h, size_t size, ossa_error *error)
{
    if (memcmp(h->magic, OSSA_PACKED_MAGIC, 8) != 0)
        FAIL(0, "not a compressed clip (expected the magic \"OSSACLIP\")");
    if (h->version != OSSA_PACKED_VERSION)
        FAIL(HOFF(version), "compressed clip version %u (this library reads %u)",
             (unsigned)h->version, OSSA_PACKED_VERSION);
    if (h->image_size != size)
        FAIL(HOFF(image_size), "the header gives %u bytes, the data has %zu",
             (unsigned)h->image_size, size);
    if (h->num_frames == 0) FAIL(HOFF(num_frames), "a clip needs at least one frame");
    if (!(isfinite(h->framerate) && h->framerate > 0))
        FAIL(HOFF(framerate), "frame rate %g is not a positive number", (double)h->framerate);
    if (h->num_joints ? h->root_joint >= h->num_joints : h->root_joint != 0)
        FAIL(HOFF(root_joint), "root joint %u out of range", (unsigned)h->root_joint);
    if (h->up_axis > OSSA_AXIS_X) FAIL(HOFF(up_axis), "unknown up axis %u", (unsigned)h->up_axis);
    if (h->segment_frames != OSSA_PACKED_SEGMENT)
        FAIL(HOFF(segment_frames), "%u frames per segment (expected %u)",
             (unsigned)h->segment_frames, OSSA_PACKED_SEGMENT);
    uint64_t segs = ossa__packed_num_segments(h->num_frames);
    if (h->num_segments != segs)
        FAIL(HOFF(num_segments), "%u segments for %u frames (expected %llu)",
             (unsigned)h->num_segments, (unsigned)h->num_frames, (unsigned long long)segs);
    for (int i = 0; i < 3; i++)
        if (h->reserved[i]) FAIL(HOFF(reserved) + 4 * i, "reserved word %d is not zero", i);
    uint64_t n = h->num_joints;
    /* Sizes first, so that each product below stays far from overflow. */
    if (n > size || h->num_frames > size || h->num_tracks > size)
        FAIL(HOFF(num_joints), "counts larger than the clip itself");
    if (h->num_tracks > 3 * n)
        FAIL(HOFF(num_tracks), "%u tracks for %u joints", (unsigned)h->num_tracks, (unsigned)n);
    return OSSA_OK;
}

/* Every section inside the image and aligned, the name NUL-terminated. */
static ossa_status check_sections(const unsigned char *image, size_t size,
                                  const ossa__packed_header *h, ossa_error *error)
{
    uint64_t n = h->num_joints;
    if (check_section(size, h->off_name, (uint64_t)h->name_length + 1, 1, "name", HOFF(off_name),
                      error) ||
        check_section(size, h->off_parents, n, 4, "parents", HOFF(off_parents), error) ||
        check_section(size, h->off_order, n, 4, "order", HOFF(off_order), error) ||
        check_section(size, h->off_bind, n, sizeof(ossa_transform), "bind pose", HOFF(off_bind),
                      error) ||
        check_section(size, h->off_root_track, ((uint64_t)h->num_frames + 64) / 64, 16,
                      "root turns", HOFF(off_root_track), error) ||
        check_section(size, h->off_constants, h->num_constants, sizeof(ossa__packed_constant),
                      "constants", HOFF(off_constants), error) ||
        check_section(size, h->off_segments, (uint64_t)h->num_segments + 1, 4, "segment table",
                      HOFF(off_segments), error) ||
        check_section(size, h->off_data, 0, 1, "segment data", HOFF(off_data), error))
        return OSSA_FAILED;
    if (image[h->off_name + h->name_length] != 0)
        FAIL(h->off_name + h->name_length, "the name is not followed by a NUL");
    return OSSA_OK;
}

/* Parents before children, the order a parents-first permutation (n bytes
 * of scratch), a finite bind pose, root turns one way at a time. */
static ossa_status check_joints(const unsigned char *image, const ossa__packed_header *h,
                                unsigned char *scratch, ossa_error *error)
{
    uint64_t n = h->num_joints;
    const int32_t *parents = (const int32_t *)(const void *)(image + h->off_parents);
    const uint32_t *order = (const uint32_t *)(const void *)(image + h->off_order);
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = parents[j];
        if (p < -1 || (p >= 0 && (uint32_t)p >= j))
            FAIL(h->off_parents + 4 * j, "joint %u: parent %d must be -1 or a smaller index",
                 (unsigned)j, (int)p);
    }
    if (n && parents[h->root_joint] != -1)
        FAIL(HOFF(root_joint), "root-motion joint %u is not a root", (unsigned)h->root_joint);
    /* The order must put parents first: every joint once, after its parent. */
    unsigned char *seen = scratch;
    memset(seen, 0, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = order[i];
        if (j >= n || seen[j] || (parents[j] >= 0 && !seen[parents[j]]))
            FAIL(h->off_order + 4 * i, "order entry %u (%u) is not a parents-first permutation",
                 (unsigned)i, (unsigned)j);
        seen[j] = 1;
    }
    const float *bind = (const float *)(const void *)(image + h->off_bind);
    for (uint64_t i = 0; i < n * 10; i++)
        if (!isfinite(bind[i])) FAIL(h->off_bind + 4 * i, "bind pose value is not finite");
    const uint64_t *turns = (const uint64_t *)(const void *)(image + h->off_root_track);
    uint64_t words = ((uint64_t)h->num_frames + 64) / 64;
    for (uint64_t i = 0; i < words; i++)
        if (turns[i] & turns[words + i])
            FAIL(h->off_root_track + 8 * i, "root turns: a frame turns both ways");
    return OSSA_OK;
}

/* Constant records: sorted by joint and kind, finite values. */
static ossa_status check_constants(const unsigned char *image, const ossa__packed_header *h,
                                   ossa_error *error)
{
    uint64_t n = h->num_joints;
    if (h->num_constants > 3 * n)
        FAIL(HOFF(num_constants), "%u constants for %u joints", (unsigned)h->num_constants,
             (unsigned)n);
    const ossa__packed_constant *consts =
        (const ossa__packed_constant *)(const void *)(image + h->off_constants);
    for (uint32_t i = 0; i < h->num_constants; i++) {
        size_t where = h->off_constants + (size_t)i * sizeof *consts;
        if ((consts[i].kind & 3) > OSSA_TRACK_SCALE || (consts[i].kind >> 2) >= n ||
            (i && consts[i].kind <= consts[i - 1].kind))
            FAIL(where, "constant %u: bad or unsorted joint and kind", (unsigned)i);
        for (int c = 0; c < 4; c++)
            if (!isfinite(consts[i].value[c]))
                FAIL(where + 4 + 4 * c, "constant %u: value is not finite", (unsigned)i);
    }
    return OSSA_OK;
}

/* Track records: inside their section, known kinds of existing joints, in
 * the samplers' order, finite ranges, and exactly track_bytes of them. */
static ossa_status check_tracks(const unsigned char *image, size_t size,
                                const ossa__packed_header *h, ossa_error *error)
{
    if (check_section(size, h->off_tracks, h->track_bytes, 1, "tracks", HOFF(off_tracks), error))
        return OSSA_FAILED;
    uint32_t prev_dest = 0;
    size_t rec = 0;
    for (uint32_t t = 0; t < h->num_tracks; t++) {
        size_t where = h->off_tracks + rec;
        if (rec + 4 > h->track_bytes) FAIL(where, "track %u: past the track records", t);
        ossa__packed_track tr;
        uint32_t word;
        memcpy(&word, image + where, 4);
        if (rec + ossa__packed_record_size(word) > h->track_bytes)
            FAIL(where, "track %u: past the track records", t);
        rec += ossa__packed_record(image + where, &tr);
        uint32_t kind = OSSA_TRACK_KIND(tr.kind), joint = OSSA_TRACK_JOINT(tr.kind);
        if (kind > OSSA_TRACK_SCALE || joint >= h->num_joints ||
            (kind != OSSA_TRACK_ROTATION && OSSA_TRACK_DROPPED(tr.kind)))
            FAIL(where, "track %u: bad kind or joint", t);
        uint32_t dest = ossa__packed_dest(tr.kind);
        /* Sorted: the samplers walk tracks and SoA groups together. */
        if (t && dest <= prev_dest) FAIL(where, "track %u: tracks out of order", t);
        prev_dest = dest;
        for (int c = 0; c < 3; c++)
            if (!isfinite(tr.min[c]) || !isfinite(tr.extent[c]) || tr.extent[c] < 0 ||
                !isfinite(tr.min[c] + tr.extent[c]))
                FAIL(where + 4, "track %u: range is not finite", t);
    }
    if (rec != h->track_bytes)
        FAIL(HOFF(track_bytes), "%u bytes of track records, the tracks take %zu",
             (unsigned)h->track_bytes, rec);
    return OSSA_OK;
}

/* Segment s, whose table entries are [start, end) of the data: its track
 * table walked as the samplers walk it, its size from its bit rates, and
 * raw keys finite (samplers use them as they are). */
static ossa_status check_segment(const unsigned char *image, const ossa__packed_header *h,
                                 uint32_t s, uint32_t start, uint32_t end, ossa_error *error)
{
    size_t where = h->off_segments + 4 * (size_t)s;
    size_t at = h->off_data + (size_t)start;
    if (end < start || end - start < OSSA_PACKED_SEGMENT_HEAD)
        FAIL(where, "segment %u: %u bytes, too short for its header", s, (unsigned)(end - start));
    const unsigned char *seg = image + at;
    uint32_t frame_bits = ossa__rd32(seg), head = ossa__rd32(seg + 4);
    uint64_t sum = 0, info = OSSA_PACKED_SEGMENT_HEAD;
    for (uint32_t t = 0; t < h->num_tracks; t++) {
        if (info >= (uint64_t)(end - start))
            FAIL(at + info, "segment %u: the track table runs past the segment", s);
        unsigned char byte = seg[info];
        uint32_t b = OSSA_PACKED_BITS(byte);
        if (!(b == 0 || (b >= 3 && b <= OSSA_PACKED_MAX_BITS) || b == OSSA_PACKED_RAW_BITS) ||
            (byte & 0x40) || (b == OSSA_PACKED_RAW_BITS && (byte & OSSA_PACKED_RANGED)))
            FAIL(at + info, "segment %u, track %u: %u bits per component (byte 0x%02x)", s, t, b,
                 byte);
        sum += 3 * b;
        info += ossa__packed_info_size(byte);
    }
    if (head != info)
        FAIL(at + 4, "segment %u: keys at byte %u, the track table ends at %llu", s,
             (unsigned)head, (unsigned long long)info);
    if (sum != frame_bits)
        FAIL(at, "segment %u: %u bits per frame, the tracks add up to %llu", s,
             (unsigned)frame_bits, (unsigned long long)sum);
    uint32_t frames = s + 1 < h->num_segments ? OSSA_PACKED_SEGMENT
                                              : h->num_frames - s * OSSA_PACKED_SEGMENT;
    uint64_t key_bytes = ((uint64_t)frame_bits * frames + 7) / 8;
    if (head + key_bytes + OSSA_PACKED_SLACK != (uint64_t)(end - start))
        FAIL(where, "segment %u: %u bytes, its keys need %llu", s, (unsigned)(end - start),
             (unsigned long long)(head + key_bytes + OSSA_PACKED_SLACK));
    info = OSSA_PACKED_SEGMENT_HEAD;
    for (uint32_t t = 0, pos = 0; t < h->num_tracks; t++) {
        unsigned char byte = seg[info];
        uint32_t b = OSSA_PACKED_BITS(byte);
        if (b == OSSA_PACKED_RAW_BITS)
            for (uint32_t k = 0; k < frames; k++)
                for (uint32_t c = 0; c < 3; c++) {
                    uint32_t u =
                        ossa__read_bits(seg + head, (uint64_t)k * frame_bits + pos + 32 * c, 32);
                    float f;
                    memcpy(&f, &u, 4);
                    if (!isfinite(f))
                        FAIL(at + head, "segment %u, track %u: raw key is not finite", s, t);
                }
        pos += 3 * b;
        info += ossa__packed_info_size(byte);
    }
    return OSSA_OK;
}

ossa_status ossa__packed_check(const unsigned char *image, size_t size, unsigned char *scratch,
                               ossa_error *error)
{
    if (size < sizeof(ossa__packed_header))
        FAIL(size, "a compressed clip needs a 128-byte header, the data has %zu bytes", size);
    ossa__packed_header h;
    memcpy(&h, image, sizeof h);
    if (check_header(&h, size, error) || check_sections(image, size, &h, error) ||
        check_joints(image, &h, scratch, error) || check_constants(image, &h, error) ||
        check_tracks(image, size, &h, error))
        return OSSA_FAILED;
    /* The segment table: from 0 to the end of the data, each segment whole. */
    const uint32_t *segments = (const uint32_t *)(const void *)(image + h.off_segments);
    size_t data_size = size - h.off_data;
    if (segments[0] != 0) FAIL(h.off_segments, "the first segment must start at offset 0");
    if (segments[h.num_segments] != data_size)
        FAIL(h.off_segments + 4 * (size_t)h.num_segments,
             "segments end at %u, the data has %zu bytes", (unsigned)segments[h.num_segments],
             data_size);
    for (uint32_t s = 0; s < h.num_segments; s++)
        if (check_segment(image, &h, s, segments[s], segments[s + 1], error)) return OSSA_FAILED;
    return OSSA_OK;
}

/* -- Attaching ------------------------------------------------------------------ */

ossa_clip *ossa__packed_new(const ossa_allocator *alloc, size_t image_size, size_t extra,
                            unsigned char **image)
{
    size_t head = (sizeof(ossa_clip) + 15) & ~(size_t)15;
    if (image_size > SIZE_MAX / 2 || extra > SIZE_MAX / 4) return NULL;
    /* The allocator promises no alignment: 16 spare bytes let the image
     * start on a 16-byte boundary (its sections are 16-byte aligned). 16
     * more after it: the samplers' vector loads of a track record's last
     * floats reach a word past it. */
    size_t size = head + 16 + image_size + 16 + extra;
    unsigned char *block = ossa__alloc(alloc, size);
    if (!block) return NULL;
    ossa_clip *clip = (ossa_clip *)(void *)block;
    memset(clip, 0, sizeof *clip);
    clip->allocator = *alloc;
    clip->size = size;
    uintptr_t at = ((uintptr_t)(block + head) + 15) & ~(uintptr_t)15;
    *image = (unsigned char *)at;
    return clip;
}

void ossa__packed_attach(ossa_clip *clip, const unsigned char *image)
{
    const ossa__packed_header *h = (const ossa__packed_header *)(const void *)image;
    unsigned char *w = (unsigned char *)(uintptr_t)image;
    clip->num_joints = h->num_joints;
    clip->num_groups = (h->num_joints + OSSA_CLIP_LANES - 1) / OSSA_CLIP_LANES;
    clip->num_frames = h->num_frames;
    clip->framerate = h->framerate;
    clip->flags = h->anim_flags;
    clip->root = h->root_joint;
    clip->up = (ossa_axis)h->up_axis;
    clip->name = (const char *)(image + h->off_name);
    clip->parents = (int32_t *)(void *)(w + h->off_parents);
    clip->order = (uint32_t *)(void *)(w + h->off_order);
    clip->bind = (ossa_transform *)(void *)(w + h->off_bind);
    clip->root_track = NULL; /* turns at off_root_track instead (clip.c) */
    clip->data = NULL;
    clip->packed = image;
}

void ossa__packed_view(const ossa_clip *clip, ossa__packed *out)
{
    const unsigned char *image = clip->packed;
    const ossa__packed_header *h = (const ossa__packed_header *)(const void *)image;
    out->h = h;
    out->records = image + h->off_tracks;
    out->segments = (const uint32_t *)(const void *)(image + h->off_segments);
    out->data = image + h->off_data;
    out->constants = (const ossa__packed_constant *)(const void *)(image + h->off_constants);
    out->bind = (const ossa_transform *)(const void *)(image + h->off_bind);
}

/* -- Decoding ------------------------------------------------------------------- */

/* Writes track t's key (3 components, plus w for rotations) at `pos` into
 * the SoA frame `out` at its destination. */
static void put_key(const ossa__packed_track *t, const unsigned char *info,
                    const unsigned char *keys, uint64_t pos, float *out)
{
    uint32_t bits = OSSA_PACKED_BITS(info[0]), q[3] = {0, 0, 0};
    for (uint32_t c = 0; c < 3 && bits; c++) q[c] = ossa__read_bits(keys, pos + bits * c, bits);
    float v[4];
    ossa__packed_value(t, info, q, v);
    int comps = OSSA_TRACK_KIND(t->kind) == OSSA_TRACK_ROTATION ? 4 : 3;
    for (int c = 0; c < comps; c++) out[c * OSSA_CLIP_LANES] = v[c];
}

void ossa__packed_template(const ossa__packed *p, uint32_t group0, uint32_t group1, float *out)
{
    uint32_t n = p->h->num_joints, j0 = group0 * OSSA_CLIP_LANES;
    ossa_transform identity = ossa_transform_identity();
    for (uint32_t j = j0; j < group1 * OSSA_CLIP_LANES; j++)
        ossa__soa_put(out, j - j0, j < n ? &p->bind[j] : &identity);
    ossa__packed_constants(p, group0, group1, out);
}

void ossa__packed_constants(const ossa__packed *p, uint32_t group0, uint32_t group1, float *out)
{
    uint32_t j0 = group0 * OSSA_CLIP_LANES;
    for (uint32_t i = 0; i < p->h->num_constants; i++) {
        const ossa__packed_constant *k = &p->constants[i];
        uint32_t j = k->kind >> 2, kind = k->kind & 3;
        if (j < j0) continue;
        if (j >= group1 * OSSA_CLIP_LANES) break;
        uint32_t ch = kind == OSSA_TRACK_ROTATION      ? OSSA_CH_QX
                      : kind == OSSA_TRACK_TRANSLATION ? OSSA_CH_TX
                                                       : OSSA_CH_SX;
        float *g = out + (size_t)((j - j0) / OSSA_CLIP_LANES) * OSSA_CLIP_GROUP +
                   ch * OSSA_CLIP_LANES + j % OSSA_CLIP_LANES;
        for (int c = 0; c < (kind == OSSA_TRACK_ROTATION ? 4 : 3); c++)
            g[c * OSSA_CLIP_LANES] = k->value[c];
    }
}

void ossa__packed_frame(const ossa__packed *p, uint32_t f, uint32_t group0, uint32_t group1,
                        float *out)
{
    const ossa__packed_header *h = p->h;
    ossa__packed_template(p, group0, group1, out);
    uint32_t s = ossa__packed_segment_of(f, h->num_segments), k = f - s * OSSA_PACKED_SEGMENT;
    const unsigned char *seg = p->data + p->segments[s];
    const unsigned char *keys = seg + ossa__rd32(seg + 4);
    const unsigned char *info = seg + OSSA_PACKED_SEGMENT_HEAD;
    uint64_t pos = (uint64_t)k * ossa__rd32(seg);
    uint32_t lo = group0 * OSSA_CLIP_GROUP, hi = group1 * OSSA_CLIP_GROUP;
    const unsigned char *rec = p->records;
    for (uint32_t t = 0; t < h->num_tracks; t++) {
        ossa__packed_track tr;
        rec += ossa__packed_record(rec, &tr);
        uint32_t dest = ossa__packed_dest(tr.kind);
        if (dest >= hi) break;
        if (dest >= lo) put_key(&tr, info, keys, pos, out + (dest - lo));
        pos += 3u * OSSA_PACKED_BITS(info[0]);
        info += ossa__packed_info_size(info[0]);
    }
}

void ossa__packed_joint(const ossa_clip *clip, uint32_t f, uint32_t j, ossa_transform *out)
{
    ossa__packed p;
    ossa__packed_view(clip, &p);
    float frame[OSSA_CLIP_GROUP];
    uint32_t g = j / OSSA_CLIP_LANES;
    ossa__packed_frame(&p, f, g, g + 1, frame);
    ossa__soa_get(frame, j % OSSA_CLIP_LANES, out);
}
