/* Shadow of the Colossus animations (.anb, docs/formats/sotc.md §3): one rotation track
 * per main bone in one of seven encodings. The reader decodes every frame;
 * the writer picks an encoding per bone and reports the error it costs. */
#include "formats/sotc/sotc.h"
#include "core/files.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ANB_HEADER_SIZE 68
#define ANB_MAGIC 12
#define ANB_MAX_FRAMES 65535 /* the frame count is a u16 */
#define ANB_PI 3.14159265358979323846

/* -- Decoding (docs/formats/sotc.md §3.2) -- */

uint32_t ossa__anb_descriptor_size(unsigned flag)
{
    switch (flag) {
    case 0: return 16;
    case 3: case 4: case 5: case 6: return 36;
    case 12: return 28;
    case 13: return 24;
    default: return 0;
    }
}

uint32_t ossa__anb_sample_size(unsigned flag)
{
    switch (flag) {
    case 3: case 4: case 5: case 6: return 4;
    case 12: return 6;
    case 13: return 2;
    default: return 0;
    }
}

/* The missing component of a unit quaternion from the sum of squares of
 * the other three, 0 when that leaves nothing (docs/formats/sotc.md §3.2: m > 1e-9). */
static double missing(double a, double b, double c)
{
    double m = 1.0 - (a * a + b * b + c * c);
    return m > 1e-9 ? sqrt(m) : 0.0;
}

void ossa__anb_decode(unsigned flag, const unsigned char *desc, const unsigned char *sample,
                      float q[4])
{
    float f[8];
    for (int k = 0; k < 8; k++) f[k] = 0;
    switch (flag) {
    case 0:
        for (int k = 0; k < 4; k++) q[k] = ossa__rdf32(desc + 4 * k);
        return;
    case 3: case 4: case 5: case 6: {
        /* One u32 per frame, fields from the top bit down in x, y, z, w
         * order: 5 bits for the dropped component (its sign in the field's
         * top bit), 9-bit two's complement for the others, which use the
         * bias/scale pairs 0, 1, 2 in that order. */
        for (int k = 0; k < 8; k++) f[k] = ossa__rdf32(desc + 4 * k);
        uint32_t word = ossa__rd32(sample);
        unsigned dropped = flag - 3;
        int shift = 32, pair = 0, negative = 0;
        double v[4] = {0, 0, 0, 0}, kept[3];
        for (unsigned c = 0; c < 4; c++) {
            if (c == dropped) {
                shift -= 5;
                negative = (word >> (shift + 4)) & 1;
                continue;
            }
            shift -= 9;
            int r = (int)((word >> shift) & 0x1FF);
            if (r & 0x100) r -= 512;
            v[c] = (double)f[2 * pair] + ((double)r / 256.0) * (double)f[2 * pair + 1];
            kept[pair++] = v[c];
        }
        double d = missing(kept[0], kept[1], kept[2]);
        v[dropped] = negative ? -d : d;
        for (int k = 0; k < 4; k++) q[k] = (float)v[k];
        return;
    }
    case 12: {
        for (int k = 0; k < 6; k++) f[k] = ossa__rdf32(desc + 4 * k);
        int16_t raw[3];
        for (int k = 0; k < 3; k++) raw[k] = (int16_t)ossa__rd16(sample + 2 * k);
        double v[3];
        for (int k = 0; k < 3; k++)
            v[k] = (double)f[2 * k] + ((double)raw[k] / 32768.0) * (double)f[2 * k + 1];
        double w = missing(v[0], v[1], v[2]);
        /* The raw I's lowest bit is w's sign (two's complement, so this
         * holds for negative I too). */
        if ((uint16_t)raw[0] & 1) w = -w;
        for (int k = 0; k < 3; k++) q[k] = (float)v[k];
        q[3] = (float)w;
        return;
    }
    case 13: {
        /* A fixed (not necessarily unit) axis and an angle in radians. */
        double bias = ossa__rdf32(desc), scale = ossa__rdf32(desc + 4);
        double ax = ossa__rdf32(desc + 8), ay = ossa__rdf32(desc + 12), az = ossa__rdf32(desc + 16);
        double len = sqrt(ax * ax + ay * ay + az * az);
        double phi = bias + ((double)(int16_t)ossa__rd16(sample) / 32768.0) * scale;
        if (!(len > 0) || !isfinite(len)) {
            q[0] = q[1] = q[2] = 0;
            q[3] = 1;
            return;
        }
        double s = sin(phi / 2) / len;
        q[0] = (float)(ax * s);
        q[1] = (float)(ay * s);
        q[2] = (float)(az * s);
        q[3] = (float)cos(phi / 2);
        return;
    }
    default:
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
}

/* -- Reading -- */

ossa_status ossa__anb_read(ossa_model *m, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    sotc_xff x;
    if (ossa__xff_open(&x, data, size, error)) return OSSA_FAILED;
    uint32_t e = x.entry;
    if (ossa__xff_need(&x, e, 1, ANB_HEADER_SIZE, e, "animation header", error))
        return OSSA_FAILED;
    const unsigned char *h = xff_at(&x, e);
    if (ossa__rd32(h) != ANB_MAGIC)
        return ossa__fail(error, OSSA_ERROR_FORMAT, xff_file(&x, e),
                          "expected an animation (first word 12), found %u", ossa__rd32(h));
    /* dormin keeps the low 16 bits of the word at +4; the upper half is
     * unknown. */
    uint32_t frames = ossa__rd16(h + 4);
    uint32_t flags_at = ossa__rd32(h + 8), descs_at = ossa__rd32(h + 0x10);
    uint32_t n = ossa__rd32(h + 0x14);
    if (ossa__xff_need(&x, flags_at, n, 1, e + 8, "bone flags", error) ||
        ossa__xff_need(&x, descs_at, n, 4, e + 0x10, "bone descriptors", error))
        return OSSA_FAILED;
    uint64_t decoded = (uint64_t)frames * n * sizeof(ossa_transform);
    if (decoded > ossa__decode_limit(size))
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, xff_file(&x, e + 4),
                          "%u frames of %u bones would decode to %llu MiB, out of proportion to a "
                          "%zu-byte file",
                          frames, n, (unsigned long long)(decoded >> 20), size);

    /* Every bone's encoding, descriptor and payload first. */
    for (uint32_t i = 0; i < n; i++) {
        unsigned flag = *xff_at(&x, (uint64_t)flags_at + i);
        uint32_t dsize = ossa__anb_descriptor_size(flag);
        if (!dsize)
            return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, xff_file(&x, (uint64_t)flags_at + i),
                              "bone %u: unknown rotation encoding (flag %u; known flags are 0, "
                              "3, 4, 5, 6, 12 and 13)",
                              i, flag);
        uint64_t field = (uint64_t)descs_at + 4 * (uint64_t)i;
        uint32_t desc = ossa__rd32(xff_at(&x, field));
        char what[64];
        snprintf(what, sizeof what, "bone %u descriptor (flag %u)", i, flag);
        if (ossa__xff_need(&x, desc, 1, dsize, field, what, error)) return OSSA_FAILED;
        uint32_t ssize = ossa__anb_sample_size(flag);
        if (!ssize) continue;
        uint32_t payload = ossa__rd32(xff_at(&x, (uint64_t)desc + dsize - 4));
        snprintf(what, sizeof what, "bone %u samples (flag %u)", i, flag);
        if (ossa__xff_need(&x, payload, frames, ssize, (uint64_t)desc + dsize - 4, what, error))
            return OSSA_FAILED;
        if (flag == 13) {
            const unsigned char *d = xff_at(&x, desc);
            float ax = ossa__rdf32(d + 8), ay = ossa__rdf32(d + 12), az = ossa__rdf32(d + 16);
            if (!(ax * ax + ay * ay + az * az > 0))
                ossa__warn(m, OSSA_WARNING_REPAIRED, xff_file(&x, (uint64_t)desc + 8), 0, 0,
                           "bone %u: the rotation axis is zero: taken as no rotation", i);
        }
    }

    /* The file has no hierarchy and no bind pose: one unnamed root per
     * bone, frame 0 standing in for the bind pose. Merging into the .skb
     * model takes its names, parents and translations. */
    float q[4];
    for (uint32_t i = 0; i < n; i++) {
        ossa_transform t = ossa_transform_identity();
        if (frames) {
            unsigned flag = *xff_at(&x, (uint64_t)flags_at + i);
            uint32_t desc = ossa__rd32(xff_at(&x, (uint64_t)descs_at + 4 * (uint64_t)i));
            uint32_t dsize = ossa__anb_descriptor_size(flag);
            const unsigned char *sample =
                ossa__anb_sample_size(flag)
                    ? xff_at(&x, ossa__rd32(xff_at(&x, (uint64_t)desc + dsize - 4)))
                    : NULL;
            ossa__anb_decode(flag, xff_at(&x, desc), sample, q);
            sotc_quat_to_model(q, t.rotation);
            ossa__quat_normalize(t.rotation);
        }
        if (ossa_model_add_joint(m, "", -1, &t, error) < 0) return OSSA_FAILED;
    }
    m->flags |= OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_PARENTS_UNKNOWN;

    char name[128];
    /* "walk" for "dir/walk.anb" */
    ossa__path_base_name(options->file_name, "anb", name, sizeof name);
    float rate = options->framerate > 0 && isfinite(options->framerate) ? options->framerate
                                                                         : OSSA_DEFAULT_FRAMERATE;
    /* dormin plays animations in a loop. */
    ossa_animation *anim = ossa_model_add_animation(m, name, frames, rate, OSSA_ANIMATION_LOOP,
                                                    error);
    if (!anim) return OSSA_FAILED;
    if (!ossa__animation_channels(m, anim)) return ossa__fail_nomem(error);
    for (uint32_t i = 0; i < n; i++) {
        anim->channels[i] = OSSA_CHANNEL_ROTATION;
        unsigned flag = *xff_at(&x, (uint64_t)flags_at + i);
        uint32_t desc = ossa__rd32(xff_at(&x, (uint64_t)descs_at + 4 * (uint64_t)i));
        uint32_t dsize = ossa__anb_descriptor_size(flag), ssize = ossa__anb_sample_size(flag);
        uint32_t payload = ssize ? ossa__rd32(xff_at(&x, (uint64_t)desc + dsize - 4)) : 0;
        for (uint32_t f = 0; f < frames; f++) {
            const unsigned char *sample =
                ssize ? xff_at(&x, (uint64_t)payload + (uint64_t)f * ssize) : NULL;
            ossa__anb_decode(flag, xff_at(&x, desc), sample, q);
            float *r = anim->frames[(size_t)f * n + i].rotation;
            sotc_quat_to_model(q, r);
            /* dormin does not renormalize; the 1e-9 clamp and the
             * quantization leave slightly non-unit results. */
            ossa__quat_normalize(r);
        }
    }
    return OSSA_OK;
}

bool ossa__anb_sniff(const unsigned char *data, size_t size)
{
    uint32_t first;
    return ossa__xff_sniff(data, size, &first) && first == ANB_MAGIC;
}

/* -- Encoding (docs/formats/sotc.md §9.1) -- */

/* Rotations whose error stays below this many radians are not reported
 * one by one (0.5 degrees). */
#define ANB_REPORT_ERROR 0.0087266462599716478
/* A bone whose frames all lie within this angle of frame 0 is constant. */
#define ANB_CONSTANT_ERROR 1e-6
/* Largest distance of a vector part from the common axis for flag 13. */
#define ANB_AXIS_TOLERANCE 1e-6

/* Angle in radians between the rotations of two quaternions (either sign). */
static double quat_angle(const double a[4], const double b[4])
{
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double s = dot < 0 ? -1 : 1, dm = 0, dp = 0;
    for (int k = 0; k < 4; k++) {
        dm += (a[k] - s * b[k]) * (a[k] - s * b[k]);
        dp += (a[k] + s * b[k]) * (a[k] + s * b[k]);
    }
    return 2 * atan2(sqrt(dm), sqrt(dp));
}

/* Bias and scale for a signed field with D = 2^(N-1): decoding gives
 * exactly lo at raw -D and hi at raw D - 1. */
static void quant_range(double lo, double hi, double d, float *bias, float *scale)
{
    if (!(hi > lo)) {
        *bias = (float)lo;
        *scale = 0;
        return;
    }
    double step = (hi - lo) / (2 * d - 1);
    *scale = (float)(d * step);
    *bias = (float)(lo + d * step);
}

/* raw = clamp(round((v - bias) / step), -D, D - 1), with the float bias and
 * scale as stored. `exact` gets the unrounded position. */
static int quant(double v, float bias, float scale, double d, double *exact)
{
    double step = (double)scale / d;
    double e = step != 0 ? (v - (double)bias) / step : 0;
    if (!isfinite(e)) e = 0;
    if (exact) *exact = e;
    double r = floor(e + 0.5);
    if (r < -d) r = -d;
    if (r > d - 1) r = d - 1;
    return (int)r;
}

/* One bone's frames, in the stored convention, sign-continuous. */
typedef struct anb_bone {
    uint32_t frames;
    const double (*q)[4];
} anb_bone;

/* An encoded track: descriptor bytes (the payload pointer left 0) and
 * payload bytes. */
typedef struct anb_track {
    unsigned flag;
    unsigned char desc[36];
    unsigned char *payload; /* frames * sample size bytes */
    double error;           /* largest angle to the source, radians */
} anb_track;

static double track_error(const anb_bone *b, anb_track *t)
{
    uint32_t ssize = ossa__anb_sample_size(t->flag);
    double worst = 0;
    for (uint32_t f = 0; f < b->frames; f++) {
        float q[4];
        ossa__anb_decode(t->flag, t->desc, ssize ? t->payload + (size_t)f * ssize : NULL, q);
        double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                        (double)q[3] * q[3]);
        double d[4] = {0, 0, 0, 1};
        if (n > 0 && isfinite(n))
            for (int k = 0; k < 4; k++) d[k] = q[k] / n;
        double a = quat_angle(b->q[f], d);
        if (!(a <= worst)) worst = a;
    }
    return t->error = worst;
}

static void encode_constant(const anb_bone *b, const double q0[4], anb_track *t)
{
    t->flag = 0;
    memset(t->desc, 0, sizeof t->desc);
    for (int k = 0; k < 4; k++) ossa__wrf32(t->desc + 4 * k, (float)q0[k]);
    track_error(b, t);
}

/* Flags 3-6: drop component `dropped` (0 = x .. 3 = w). */
static void encode_packed(const anb_bone *b, unsigned dropped, anb_track *t)
{
    t->flag = 3 + dropped;
    memset(t->desc, 0, sizeof t->desc);
    float bias[3], scale[3];
    unsigned kept[3], n = 0;
    for (unsigned c = 0; c < 4; c++)
        if (c != dropped) kept[n++] = c;
    for (unsigned p = 0; p < 3; p++) {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t f = 0; f < b->frames; f++) {
            double v = b->q[f][kept[p]];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        quant_range(lo, hi, 256, &bias[p], &scale[p]);
        ossa__wrf32(t->desc + 8 * p, bias[p]);
        ossa__wrf32(t->desc + 8 * p + 4, scale[p]);
    }
    /* The fourth pair is unused: (0, 0). */
    for (uint32_t f = 0; f < b->frames; f++) {
        uint32_t word = 0;
        int shift = 32;
        unsigned p = 0;
        for (unsigned c = 0; c < 4; c++) {
            if (c == dropped) {
                shift -= 5;
                if (b->q[f][c] < 0) word |= 0x10u << shift;
                continue;
            }
            shift -= 9;
            int r = quant(b->q[f][c], bias[p], scale[p], 256, NULL);
            word |= ((uint32_t)r & 0x1FFu) << shift;
            p++;
        }
        ossa__wr32(t->payload + (size_t)f * 4, word);
    }
    track_error(b, t);
}

/* Flag 12: x, y, z in 16 bits each; w's sign is the parity of raw I. */
static void encode_short(const anb_bone *b, anb_track *t)
{
    t->flag = 12;
    memset(t->desc, 0, sizeof t->desc);
    float bias[3], scale[3];
    for (int k = 0; k < 3; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t f = 0; f < b->frames; f++) {
            if (b->q[f][k] < lo) lo = b->q[f][k];
            if (b->q[f][k] > hi) hi = b->q[f][k];
        }
        quant_range(lo, hi, 32768, &bias[k], &scale[k]);
        ossa__wrf32(t->desc + 8 * k, bias[k]);
        ossa__wrf32(t->desc + 8 * k + 4, scale[k]);
    }
    for (uint32_t f = 0; f < b->frames; f++) {
        for (int k = 0; k < 3; k++) {
            double exact;
            int r = quant(b->q[f][k], bias[k], scale[k], 32768, &exact);
            if (k == 0) {
                /* Odd I means negative w: move one step toward the exact
                 * value when the parity is wrong, the other way at the end
                 * of the range. */
                int want = b->q[f][3] < 0;
                if ((r & 1) != want) {
                    int step = exact > r ? 1 : -1;
                    if (r + step > 32767 || r + step < -32768) step = -step;
                    r += step;
                }
            }
            ossa__wr16(t->payload + (size_t)f * 6 + 2 * (size_t)k, (uint16_t)(int16_t)r);
        }
    }
    track_error(b, t);
}

/* The angle of rotation q about `axis`, unwrapped: within pi of the
 * previous frame's (adding 2 pi turns q into -q, the same rotation). */
static double axis_angle(const double *q, const double axis[3], uint32_t f, double prev)
{
    double along = q[0] * axis[0] + q[1] * axis[1] + q[2] * axis[2];
    double phi = 2 * atan2(along, q[3]);
    if (f) phi += 2 * ANB_PI * floor((prev - phi) / (2 * ANB_PI) + 0.5);
    return phi;
}

/* Flag 13 when every frame rotates about one axis: false otherwise. */
static bool encode_axis(const anb_bone *b, anb_track *t)
{
    double axis[3] = {0, 0, 0}, best = 0;
    for (uint32_t f = 0; f < b->frames; f++) {
        const double *q = b->q[f];
        double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (len > best) {
            best = len;
            for (int k = 0; k < 3; k++) axis[k] = q[k] / len;
        }
    }
    if (!(best > 1e-6)) return false;
    double lo = INFINITY, hi = -INFINITY, prev = 0;
    for (uint32_t f = 0; f < b->frames; f++) {
        const double *q = b->q[f];
        double along = q[0] * axis[0] + q[1] * axis[1] + q[2] * axis[2], off = 0;
        for (int k = 0; k < 3; k++) off += (q[k] - along * axis[k]) * (q[k] - along * axis[k]);
        if (sqrt(off) > ANB_AXIS_TOLERANCE) return false;
        double phi = prev = axis_angle(q, axis, f, prev);
        if (phi < lo) lo = phi;
        if (phi > hi) hi = phi;
    }
    t->flag = 13;
    memset(t->desc, 0, sizeof t->desc);
    float bias, scale;
    quant_range(lo, hi, 32768, &bias, &scale);
    ossa__wrf32(t->desc, bias);
    ossa__wrf32(t->desc + 4, scale);
    for (int k = 0; k < 3; k++) ossa__wrf32(t->desc + 8 + 4 * k, (float)axis[k]);
    /* The angles again, bit for bit as above: recomputing them costs less
     * than a buffer of their own. */
    prev = 0;
    for (uint32_t f = 0; f < b->frames; f++) {
        prev = axis_angle(b->q[f], axis, f, prev);
        ossa__wr16(t->payload + (size_t)f * 2,
                   (uint16_t)(int16_t)quant(prev, bias, scale, 32768, NULL));
    }
    track_error(b, t);
    return true;
}

double ossa__anb_encode(unsigned flag, const double (*q)[4], uint32_t frames,
                        unsigned char desc[36], unsigned char *payload)
{
    anb_bone b = {frames, q};
    anb_track t;
    memset(&t, 0, sizeof t);
    t.payload = payload;
    switch (flag) {
    case 0:
        if (!frames) return -1;
        encode_constant(&b, q[0], &t);
        break;
    case 3: case 4: case 5: case 6: encode_packed(&b, flag - 3, &t); break;
    case 12: encode_short(&b, &t); break;
    case 13:
        if (!encode_axis(&b, &t)) return -1;
        break;
    default: return -1;
    }
    memcpy(desc, t.desc, sizeof t.desc);
    return t.error;
}

/* Picks the encoding of one bone into `best` (with `scratch` as work
 * space; both have payload room for 6 bytes per frame). */
static void encode_bone(const anb_bone *b, const double bind[4], anb_track *best,
                        anb_track *scratch)
{
    if (b->frames == 0) {
        encode_constant(b, bind, best);
        return;
    }
    bool constant = true;
    for (uint32_t f = 1; f < b->frames && constant; f++)
        constant = quat_angle(b->q[0], b->q[f]) <= ANB_CONSTANT_ERROR;
    if (constant) {
        encode_constant(b, b->q[0], best);
        return;
    }
    if (encode_axis(b, best) && best->error <= ANB_REPORT_ERROR) return;
    bool have = best->flag == 13;
    /* Flags 3-6 (each dropped component) and 12: the lowest error wins,
     * the smaller payload on a tie (3-6 come first). */
    for (unsigned c = 0; c < 5; c++) {
        if (c < 4)
            encode_packed(b, c, scratch);
        else
            encode_short(b, scratch);
        if (!have || scratch->error < best->error) {
            anb_track tmp = *best;
            *best = *scratch;
            *scratch = tmp;
            have = true;
        }
    }
}

static const char *joint_label(const ossa_model *m, uint32_t j, char *buf, size_t cap)
{
    if (m->joints[j].name[0])
        snprintf(buf, cap, "joint %u '%s'", j, m->joints[j].name);
    else
        snprintf(buf, cap, "joint %u", j);
    return buf;
}

/* Warns about what .anb cannot hold: translation and scale animation. */
static void check_dropped(const ossa_model *m, const ossa_animation *a,
                          const ossa_write_options *options)
{
    uint32_t n = m->num_joints, moved = 0, scaled = 0, first_moved = 0, first_scaled = 0;
    for (uint32_t j = 0; j < n; j++) {
        unsigned ch = a->channels ? a->channels[j] : 7u;
        const ossa_transform *bind = &m->joints[j].bind;
        bool tm = false, sm = false;
        for (uint32_t f = 0; f < a->num_frames; f++) {
            const ossa_transform *t = &a->frames[(size_t)f * n + j];
            for (int k = 0; k < 3; k++) {
                double tol = 1e-5 * (1 + fabs((double)bind->translation[k]));
                if ((ch & OSSA_CHANNEL_TRANSLATION) &&
                    !(fabs((double)t->translation[k] - bind->translation[k]) <= tol))
                    tm = true;
                if ((ch & OSSA_CHANNEL_SCALE) && !(fabs((double)t->scale[k] - 1) <= 1e-5))
                    sm = true;
            }
        }
        if (tm && !moved++) first_moved = j;
        if (sm && !scaled++) first_scaled = j;
    }
    char label[300];
    if (moved)
        ossa__write_warn(options, OSSA_WARNING_DROPPED,
                        "translation animation of %u joint%s dropped (first: %s): .anb holds "
                        "rotations only, translations come from the skeleton",
                        moved, moved == 1 ? "" : "s",
                        joint_label(m, first_moved, label, sizeof label));
    if (scaled)
        ossa__write_warn(options, OSSA_WARNING_DROPPED,
                        "scale animation of %u joint%s dropped (first: %s): .anb holds rotations "
                        "only",
                        scaled, scaled == 1 ? "" : "s",
                        joint_label(m, first_scaled, label, sizeof label));
}

static void stored_rotation(const float r[4], double out[4])
{
    float q[4], s[4];
    memcpy(q, r, sizeof q);
    ossa__quat_normalize(q);
    sotc_quat_to_model(q, s); /* its own inverse */
    for (int k = 0; k < 4; k++) out[k] = s[k];
}

ossa_status ossa__anb_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out,
                             ossa_error *error)
{
    if (!m->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the model has no animation: a .anb holds one");
    if (options->animation >= m->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u does not exist (the model has %u)", options->animation,
                          m->num_animations);
    const ossa_animation *a = &m->animations[options->animation];
    uint32_t n = m->num_joints, frames = a->num_frames;
    if (frames > ANB_MAX_FRAMES)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "animation '%s' has %u frames; a .anb holds at most %u", a->name, frames,
                          ANB_MAX_FRAMES);
    check_dropped(m, a, options);

    const ossa_allocator *alloc = options->allocator;
    size_t nq = (size_t)frames + 1;
    double(*q)[4] = ossa__alloc(alloc, nq * sizeof *q);
    unsigned char *pay1 = ossa__alloc(alloc, nq * 6), *pay2 = ossa__alloc(alloc, nq * 6);
    sotc_rodata r;
    ossa__ro_init(&r, alloc);
    ossa_status st = OSSA_OK;
    if (!q || !pay1 || !pay2) st = ossa__fail_nomem(error);

    uint32_t *descs = st ? NULL : ossa__alloc(alloc, ((size_t)n + 1) * sizeof *descs);
    unsigned char *flags = st ? NULL : ossa__alloc(alloc, (size_t)n + 1);
    if (!st && (!descs || !flags)) st = ossa__fail_nomem(error);

    uint32_t count[14] = {0}, worst_joint = 0;
    double worst = 0;
    char label[300];
    for (uint32_t j = 0; j < n && !st; j++) {
        for (uint32_t f = 0; f < frames; f++) {
            stored_rotation(a->frames[(size_t)f * n + j].rotation, q[f]);
            /* Sign-continuous: each frame on the previous one's side. */
            if (f && q[f][0] * q[f - 1][0] + q[f][1] * q[f - 1][1] + q[f][2] * q[f - 1][2] +
                             q[f][3] * q[f - 1][3] <
                         0)
                for (int k = 0; k < 4; k++) q[f][k] = -q[f][k];
        }
        double bind[4];
        stored_rotation(m->joints[j].bind.rotation, bind);
        anb_bone bone = {frames, (const double(*)[4])q};
        anb_track best = {0}, scratch = {0};
        best.payload = pay1;
        scratch.payload = pay2;
        encode_bone(&bone, bind, &best, &scratch);
        flags[j] = (unsigned char)best.flag;
        count[best.flag]++;
        if (best.error > worst || j == 0) {
            worst = best.error;
            worst_joint = j;
        }
        if (best.error > ANB_REPORT_ERROR)
            ossa__write_warn(options, OSSA_WARNING_DROPPED,
                            "%s: rotation error up to %.3f degrees after quantization (flag %u)",
                            joint_label(m, j, label, sizeof label), best.error * 180 / ANB_PI,
                            best.flag);
        uint32_t dsize = ossa__anb_descriptor_size(best.flag);
        uint32_t ssize = ossa__anb_sample_size(best.flag);
        uint32_t desc = ossa__ro_alloc(&r, dsize, 16);
        if (!ossa__ro_failed(&r)) memcpy(r.data.data + desc, best.desc, dsize);
        if (ssize) {
            uint32_t payload = ossa__ro_alloc(&r, (size_t)frames * ssize, 4);
            if (!ossa__ro_failed(&r) && frames)
                memcpy(r.data.data + payload, best.payload, (size_t)frames * ssize);
            ossa__ro_ptr(&r, desc + dsize - 4, payload);
        }
        descs[j] = desc;
        /* The buffers may have been swapped: keep both for the next bone. */
        pay1 = best.payload;
        pay2 = scratch.payload;
    }
    if (!st) {
        uint32_t flags_at = ossa__ro_alloc(&r, n, 4);
        if (!ossa__ro_failed(&r) && n) memcpy(r.data.data + flags_at, flags, n);
        uint32_t descs_at = ossa__ro_alloc(&r, (size_t)n * 4, 4);
        for (uint32_t j = 0; j < n; j++) ossa__ro_ptr(&r, descs_at + 4 * j, descs[j]);
        uint32_t h = ossa__ro_alloc(&r, ANB_HEADER_SIZE, 4);
        ossa__ro_u32(&r, h, ANB_MAGIC);
        ossa__ro_u32(&r, h + 4, frames);
        ossa__ro_ptr(&r, h + 8, flags_at);
        ossa__ro_ptr(&r, h + 0x10, descs_at);
        ossa__ro_u32(&r, h + 0x14, n);
        ossa__ro_ptr(&r, h + 0x28, h); /* D10: normally equals the entry */
        st = ossa__xff_write(&r, h, 0, out, error);
    }
    if (!st) {
        if (m->num_animations > 1)
            ossa__write_warn(options, OSSA_WARNING_DROPPED,
                            "the file holds one animation: '%s' (%u of %u) is written, %u "
                            "other%s not",
                            a->name, options->animation, m->num_animations,
                            m->num_animations - 1, m->num_animations == 2 ? " is" : "s are");
        ossa__write_note(options,
                        "%u frames, %u bones: flag 0 x%u, flags 3-6 x%u, flag 12 x%u, flag 13 "
                        "x%u; largest rotation error %.4f degrees (%s)",
                        frames, n, count[0], count[3] + count[4] + count[5] + count[6], count[12],
                        count[13], worst * 180 / ANB_PI,
                        n ? joint_label(m, worst_joint, label, sizeof label) : "no bones");
    }
    ossa__free(alloc, q, nq * sizeof *q);
    ossa__free(alloc, pay1, nq * 6);
    ossa__free(alloc, pay2, nq * 6);
    ossa__free(alloc, descs, ((size_t)n + 1) * sizeof *descs);
    ossa__free(alloc, flags, (size_t)n + 1);
    ossa__ro_release(&r);
    return st;
}
