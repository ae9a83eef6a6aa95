/* Clip compression with a guaranteed error (see ossa.h, ossa_clip_options,
 * and packed.h for the layout).
 *
 * The error metric is ACL's: virtual vertices at +-d along each joint's
 * axes, moved by the joint's model-space transform from the source frames
 * and from the decoded keys; the error is the largest distance between the
 * two over every joint and frame, so errors that add up down the
 * hierarchy count.
 *
 * 1. Tracks (a joint's rotation, translation or scale) that a constant
 *    keeps within a quarter of the bound are constant: the clip's template
 *    frame holds them and the keys hold nothing.
 * 2. Each other track gets its range over the clip (min, extent per
 *    component). Per segment of 16 frames, the fewest bits per component
 *    (0, 3-19, or raw floats) that keep the track's own error, measured
 *    on a shell that reaches its descendants, within 3/4 of the bound,
 *    with the clip's range or with the segment's own (6 more bytes, as
 *    8-bit fractions of the clip's), whichever costs fewer bits.
 * 3. Then every frame of the segment is decoded and measured in model
 *    space; while a joint exceeds the bound, the track on its chain to the
 *    root with the largest own error takes the next bit rate. If only a
 *    constant track can be blamed, it becomes animated and compression
 *    starts over. Last, the tracks with the most bits give one back
 *    while every frame stays within the bound.
 * Rotations keep three components; the fourth, the one that stays
 * farthest from 0 over the clip, made >= 0 in every key, is rebuilt. */
#include "runtime/compress.h"
#include "runtime/quantize.h"

#include <math.h>

#define CONSTANT_SHARE 0.25
#define TRACK_SHARE 0.75

static const uint8_t RATES[] = {0,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                12, 13, 14, 15, 16, 17, 18, 19, 32};
#define NUM_RATES (sizeof RATES / sizeof RATES[0])

/* -- Bind size -------------------------------------------------------------------- */

double ossa__source_size(const ossa_clip_source *src, const ossa_allocator *alloc)
{
    if (src->size > 0 && isfinite(src->size)) return src->size;
    double box[6] = {0};
    int any = 0;
    if (src->num_joints) {
        double(*world)[12] = ossa__calloc(alloc, src->num_joints, sizeof *world);
        if (!world) return -1;
        ossa__box_grow_joints(box, &any, src->num_joints, src->parents, src->bind_pose, world);
        ossa__free(alloc, world, 0);
    }
    return ossa__box_size(box);
}

/* -- State -------------------------------------------------------------------------- */

typedef struct track {
    uint32_t joint, kind;
    uint32_t dropped; /* rotations: the component rebuilt from the others */
    uint16_t q16[6];  /* rotations: the range as stored (min, extent) */
    ossa__packed_track rec;
    /* Per segment: bits and range bytes (7), the track's own error. */
    unsigned char info[7];
    uint32_t rate; /* index into RATES */
    int ranged;    /* this segment has its own range (7 bytes, not 1) */
    double own_error;
} track;

typedef struct ctx {
    const ossa_clip_source *src;
    const ossa_allocator *alloc; /* temporaries */
    uint32_t n, nf;
    double bound, shell;
    ossa_transform *raw;   /* nf x n: rotations normalized, w >= 0 */
    double (*rawm)[12];    /* the current segment's model matrices (frame - f0) x n,
                              from the source frames */
    double *radius;        /* per joint: the shell that reaches its descendants */
    double *pscale;        /* per joint: the parent's largest model-space scale */
    uint8_t *constant;     /* n x 3: kind k of joint j is constant (1) or
                              animated (0; 2 after a promotion) */
    uint8_t *is_bind;      /* n x 3: the constant is the bind pose's */
    float (*cval)[4];      /* n x 3 constant values */
    track *tracks;
    uint32_t num_tracks;
    /* One segment's frames */
    ossa_transform *lossy; /* S x n */
    double (*lossym)[12];  /* S x n */
    double *joint_error;   /* n */
    double measured;
} ctx;

static void get_kind(const ossa_transform *t, uint32_t kind, float v[4])
{
    const float *src = kind == OSSA_TRACK_ROTATION      ? t->rotation
                       : kind == OSSA_TRACK_TRANSLATION ? t->translation
                                                        : t->scale;
    v[3] = 0;
    memcpy(v, src, (kind == OSSA_TRACK_ROTATION ? 4 : 3) * sizeof(float));
}

static void set_kind(ossa_transform *t, uint32_t kind, const float v[4])
{
    float *dst = kind == OSSA_TRACK_ROTATION      ? t->rotation
                 : kind == OSSA_TRACK_TRANSLATION ? t->translation
                                                  : t->scale;
    memcpy(dst, v, (kind == OSSA_TRACK_ROTATION ? 4 : 3) * sizeof(float));
}

static void local_matrix(const ossa_transform *t, double m[12])
{
    ossa__affine_from_trs(t->translation, t->rotation, t->scale, m);
}

/* The error that replacing kind `kind` of joint j's frame f by v causes on
 * the joint's shell, scaled to model units. */
static double own_error(const ctx *c, uint32_t f, uint32_t j, uint32_t kind, const float v[4])
{
    const ossa_transform *r = &c->raw[(size_t)f * c->n + j];
    ossa_transform t = *r;
    set_kind(&t, kind, v);
    double a[12], b[12];
    local_matrix(r, a);
    local_matrix(&t, b);
    return ossa__shell_error(a, b, c->radius[j]) * c->pscale[j];
}

/* Model matrices of source frame f (as the model holds it:
 * ossa__affine_from_trs normalizes in double, as ossa_clip_measure does, so
 * that both compute the same doubles) into out[0..n). */
static void raw_model(const ctx *c, uint32_t f, double (*out)[12])
{
    uint32_t n = c->n;
    for (uint32_t j = 0; j < n; j++) {
        const ossa_transform *src = c->src->num_frames ? &c->src->frames[(size_t)f * n + j]
                                                       : &c->src->bind_pose[j];
        double local[12];
        local_matrix(src, local);
        int32_t p = c->src->parents[j];
        if (p >= 0 && (uint32_t)p < j)
            ossa__affine_mul(out[p], local, out[j]);
        else
            memcpy(out[j], local, sizeof local);
    }
}

static ossa_status prepare(ctx *c, ossa_error *error)
{
    const ossa_clip_source *src = c->src;
    const ossa_allocator *m = c->alloc;
    uint32_t n = c->n, nf = c->nf;
    size_t cells = (size_t)nf * n;
    c->raw = ossa__calloc(m, cells ? cells : 1, sizeof *c->raw);
    c->rawm = ossa__calloc(m, (size_t)2 * OSSA_PACKED_SEGMENT * n + 1, sizeof *c->rawm);
    c->radius = ossa__calloc(m, n + 1, sizeof *c->radius);
    c->pscale = ossa__calloc(m, n + 1, sizeof *c->pscale);
    c->constant = ossa__calloc(m, (size_t)n * 3 + 1, 1);
    c->is_bind = ossa__calloc(m, (size_t)n * 3 + 1, 1);
    c->cval = ossa__calloc(m, (size_t)n * 3 + 1, sizeof *c->cval);
    c->tracks = ossa__calloc(m, (size_t)n * 3 + 1, sizeof *c->tracks);
    /* The last segment may hold up to 2 * 16 - 1 frames. */
    c->lossy = ossa__calloc(m, (size_t)2 * OSSA_PACKED_SEGMENT * n + 1, sizeof *c->lossy);
    c->lossym = ossa__calloc(m, (size_t)2 * OSSA_PACKED_SEGMENT * n + 1, sizeof *c->lossym);
    c->joint_error = ossa__calloc(m, n + 1, sizeof *c->joint_error);
    if (!c->raw || !c->rawm || !c->radius || !c->pscale || !c->constant || !c->is_bind || !c->cval ||
        !c->tracks || !c->lossy || !c->lossym || !c->joint_error)
        return ossa__fail_nomem(error);
    double *tlen = c->joint_error, *smax = c->radius; /* scratch until the radii */
    for (uint32_t j = 0; j < n; j++) tlen[j] = 0, smax[j] = 0, c->pscale[j] = 1;
    for (uint32_t f = 0; f < nf; f++) {
        for (uint32_t j = 0; j < n; j++) {
            ossa_transform t =
                src->num_frames ? src->frames[(size_t)f * n + j] : src->bind_pose[j];
            ossa__quat_normalize(t.rotation);
            if (t.rotation[3] < 0)
                for (int k = 0; k < 4; k++) t.rotation[k] = -t.rotation[k];
            for (int k = 0; k < 3; k++)
                if (!isfinite(t.translation[k]) || !isfinite(t.scale[k]))
                    return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                                      "animation frame %u, joint %u: not a finite transform",
                                      (unsigned)f, (unsigned)j);
            c->raw[(size_t)f * n + j] = t;
            double len = sqrt((double)t.translation[0] * t.translation[0] +
                              (double)t.translation[1] * t.translation[1] +
                              (double)t.translation[2] * t.translation[2]);
            tlen[j] = len > tlen[j] ? len : tlen[j];
            for (int k = 0; k < 3; k++) {
                double s = fabs(t.scale[k]);
                smax[j] = s > smax[j] ? s : smax[j];
            }
        }
        raw_model(c, f, c->rawm); /* this frame's, for the parents' scales */
        for (uint32_t j = 0; j < n; j++) {
            int32_t p = src->parents[j];
            if (p >= 0 && (uint32_t)p < j) {
                const double *pm = c->rawm[p];
                for (int col = 0; col < 3; col++) {
                    double s = sqrt(pm[col * 3] * pm[col * 3] + pm[col * 3 + 1] * pm[col * 3 + 1] +
                                    pm[col * 3 + 2] * pm[col * 3 + 2]);
                    c->pscale[j] = s > c->pscale[j] ? s : c->pscale[j];
                }
            }
        }
    }
    /* Radii from the leaves up: a joint's shell reaches the shells of its
     * children (children come after parents). */
    double *radius = ossa__calloc(m, n + 1, sizeof *radius);
    if (!radius) return ossa__fail_nomem(error);
    for (uint32_t j = 0; j < n; j++) radius[j] = c->shell;
    for (uint32_t j = n; j-- > 0;) {
        int32_t p = src->parents[j];
        if (p >= 0 && (uint32_t)p < j) {
            double reach = tlen[j] + (smax[j] > 1 ? smax[j] : 1) * radius[j];
            radius[p] = reach > radius[p] ? reach : radius[p];
        }
    }
    memcpy(c->radius, radius, n * sizeof *radius);
    ossa__free(m, radius, 0);
    return OSSA_OK;
}

/* -- Constant tracks --------------------------------------------------------------- */

/* Midrange of kind `kind` of joint j over the clip; extent in *spread. */
static void midrange(const ctx *c, uint32_t j, uint32_t kind, float v[4], float *spread)
{
    float lo[3], hi[3], x[4];
    get_kind(&c->raw[j], kind, x);
    for (int k = 0; k < 3; k++) lo[k] = hi[k] = x[k];
    for (uint32_t f = 1; f < c->nf; f++) {
        get_kind(&c->raw[(size_t)f * c->n + j], kind, x);
        for (int k = 0; k < 3; k++) {
            lo[k] = x[k] < lo[k] ? x[k] : lo[k];
            hi[k] = x[k] > hi[k] ? x[k] : hi[k];
        }
    }
    *spread = 0;
    for (int k = 0; k < 3; k++) {
        v[k] = lo[k] == hi[k] ? lo[k] : (float)(0.5 * ((double)lo[k] + hi[k]));
        *spread = hi[k] - lo[k] > *spread ? hi[k] - lo[k] : *spread;
    }
    v[3] = 0;
    if (kind == OSSA_TRACK_ROTATION) {
        if (*spread == 0) {
            get_kind(&c->raw[j], kind, v); /* exact, w included */
        } else {
            double s = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2];
            if (s > 1)
                for (int k = 0; k < 3; k++) v[k] = (float)(v[k] / sqrt(s)), s = 1;
            v[3] = (float)sqrt(1 - s);
        }
    }
}

static int fits_constant(const ctx *c, uint32_t j, uint32_t kind, const float v[4])
{
    for (uint32_t f = 0; f < c->nf; f++)
        if (own_error(c, f, j, kind, v) > CONSTANT_SHARE * c->bound) return 0;
    return 1;
}

/* Constant tracks take the bind pose's value when it is good enough (it
 * costs nothing: the sampler starts every frame from the bind pose), else
 * their midrange (a constant record). */
static void choose_constants(ctx *c)
{
    for (uint32_t j = 0; j < c->n; j++)
        for (uint32_t kind = 0; kind < 3; kind++) {
            uint32_t i = j * 3 + kind;
            float v[4], spread;
            if (c->constant[i] == 2) continue; /* promoted: animated */
            ossa_transform b = c->src->bind_pose[j];
            ossa__quat_normalize(b.rotation);
            get_kind(&b, kind, v);
            c->is_bind[i] = 1;
            memcpy(c->cval[i], v, sizeof v);
            if (fits_constant(c, j, kind, v)) {
                c->constant[i] = 1;
                continue;
            }
            c->is_bind[i] = 0;
            midrange(c, j, kind, v, &spread);
            memcpy(c->cval[i], v, sizeof v);
            c->constant[i] = (uint8_t)(spread == 0 || fits_constant(c, j, kind, v));
        }
}

/* -- Segments ---------------------------------------------------------------------- */

/* Track t's three stored components at frame f: for rotations, the
 * quaternion with its dropped component made >= 0, that one left out. */
static void track_values(const ctx *c, const track *t, uint32_t f, float x[3])
{
    const ossa_transform *r = &c->raw[(size_t)f * c->n + t->joint];
    if (t->kind != OSSA_TRACK_ROTATION) {
        float v[4];
        get_kind(r, t->kind, v);
        memcpy(x, v, 12);
        return;
    }
    float sign = r->rotation[t->dropped] < 0 ? -1.0f : 1.0f;
    for (uint32_t k = 0, o = 0; k < 4; k++)
        if (k != t->dropped) x[o++] = sign * r->rotation[k];
}

/* Sets t's range bytes for frames [f0, f1) at rate index r. */
static void track_range(const ctx *c, track *t, uint32_t f0, uint32_t f1, uint32_t r)
{
    float lo[3], hi[3], x[3];
    track_values(c, t, f0, x);
    for (int k = 0; k < 3; k++) lo[k] = hi[k] = x[k];
    for (uint32_t f = f0 + 1; f < f1; f++) {
        track_values(c, t, f, x);
        for (int k = 0; k < 3; k++) {
            lo[k] = x[k] < lo[k] ? x[k] : lo[k];
            hi[k] = x[k] > hi[k] ? x[k] : hi[k];
        }
    }
    t->rate = r;
    t->info[0] = RATES[r];
    if (!t->ranged || RATES[r] == OSSA_PACKED_RAW_BITS) {
        memset(t->info + 1, 0, 6); /* the clip's range */
    } else if (RATES[r] == 0) {
        /* One value for the segment: the 8-bit fraction nearest its middle. */
        for (int k = 0; k < 3; k++) {
            float e = t->rec.extent[k];
            double mid = 0.5 * ((double)lo[k] + hi[k]);
            long a = e > 0 ? lround((mid - t->rec.min[k]) / e * 255) : 0;
            t->info[1 + k] = (unsigned char)(a < 0 ? 0 : a > 255 ? 255 : a);
            t->info[4 + k] = 0;
        }
    } else {
        ossa__segment_range(lo, hi, t->rec.min, t->rec.extent, t->info);
    }
    if (t->ranged && RATES[r] != OSSA_PACKED_RAW_BITS) t->info[0] |= OSSA_PACKED_RANGED;
}

/* Track t's key at frame f as the sampler will decode it. */
static void decode(const ctx *c, const track *t, uint32_t f, float v[4], uint32_t q[3])
{
    float x[3];
    track_values(c, t, f, x);
    uint32_t bits = OSSA_PACKED_BITS(t->info[0]);
    if (bits == OSSA_PACKED_RAW_BITS) {
        memcpy(q, x, 12);
    } else {
        float off[3], scl[3];
        ossa__packed_dequant(&t->rec, t->info, off, scl);
        for (int k = 0; k < 3; k++) q[k] = ossa__quantize(x[k], off[k], scl[k], bits);
    }
    ossa__packed_value(&t->rec, t->info, q, v);
}

static double track_error(const ctx *c, const track *t, uint32_t f0, uint32_t f1)
{
    double worst = 0;
    for (uint32_t f = f0; f < f1; f++) {
        float v[4];
        uint32_t q[3];
        decode(c, t, f, v, q);
        double e = own_error(c, f, t->joint, t->kind, v);
        worst = e > worst ? e : worst;
    }
    return worst;
}

/* Decodes frames [f0, f1) of every joint and measures them: fills
 * joint_error with each joint's worst error. Returns the worst. */
static double measure(ctx *c, uint32_t f0, uint32_t f1)
{
    uint32_t n = c->n;
    double worst = 0;
    for (uint32_t j = 0; j < n; j++) c->joint_error[j] = 0;
    for (uint32_t f = f0; f < f1; f++) {
        ossa_transform *lossy = c->lossy + (size_t)(f - f0) * n;
        for (uint32_t j = 0; j < n; j++) {
            lossy[j] = c->raw[(size_t)f * n + j];
            for (uint32_t kind = 0; kind < 3; kind++)
                if (c->constant[j * 3 + kind] == 1) set_kind(&lossy[j], kind, c->cval[j * 3 + kind]);
        }
        for (uint32_t t = 0; t < c->num_tracks; t++) {
            float v[4];
            uint32_t q[3];
            decode(c, &c->tracks[t], f, v, q);
            set_kind(&lossy[c->tracks[t].joint], c->tracks[t].kind, v);
        }
        double(*lm)[12] = c->lossym + (size_t)(f - f0) * n;
        for (uint32_t j = 0; j < n; j++) {
            double local[12];
            local_matrix(&lossy[j], local);
            int32_t p = c->src->parents[j];
            if (p >= 0 && (uint32_t)p < j)
                ossa__affine_mul(lm[p], local, lm[j]);
            else
                memcpy(lm[j], local, sizeof local);
            double e = ossa__shell_error(c->rawm[(size_t)(f - f0) * n + j], lm[j], c->shell);
            c->joint_error[j] = e > c->joint_error[j] ? e : c->joint_error[j];
            worst = e > worst ? e : worst;
        }
    }
    return worst;
}

/* Per joint and kind: its track index, or -1. */
static int32_t find_track(const ctx *c, const int32_t *index, uint32_t j, uint32_t kind)
{
    (void)c;
    return index[j * 3 + kind];
}

/* Chooses the rates of segment [f0, f1). Returns 0 when done, or 1 after
 * promoting a constant track (compression must start over). */
static int fit_segment(ctx *c, const int32_t *index, uint8_t *bumped, uint32_t f0, uint32_t f1)
{
    for (uint32_t f = f0; f < f1; f++) raw_model(c, f, c->rawm + (size_t)(f - f0) * c->n);
    /* Each track's own fewest bits, with and without a range of the
     * segment's own (6 bytes): whichever costs fewer bits. */
    for (uint32_t t = 0; t < c->num_tracks; t++) {
        track *tr = &c->tracks[t];
        uint32_t best[2];
        for (int ranged = 0; ranged < 2; ranged++) {
            tr->ranged = ranged;
            best[ranged] = NUM_RATES - 1;
            for (uint32_t r = 0; r < NUM_RATES; r++) {
                track_range(c, tr, f0, f1, r);
                if (track_error(c, tr, f0, f1) <= TRACK_SHARE * c->bound) {
                    best[ranged] = r;
                    break;
                }
            }
        }
        uint64_t cost0 = 3ull * RATES[best[0]] * (f1 - f0);
        uint64_t cost1 = 48 + 3ull * RATES[best[1]] * (f1 - f0);
        tr->ranged = cost1 < cost0;
        track_range(c, tr, f0, f1, best[tr->ranged]);
        tr->own_error = track_error(c, tr, f0, f1);
    }
    for (;;) {
        double worst = measure(c, f0, f1);
        if (worst <= c->bound) break;
        memset(bumped, 0, c->num_tracks + 1);
        int progress = 0;
        for (uint32_t j = 0; j < c->n; j++) {
            if (c->joint_error[j] <= c->bound) continue;
            /* The track on the chain with the largest own error. */
            int32_t best = -1, cbest = -1;
            double be = -1, ce = -1;
            for (int32_t a = (int32_t)j; a >= 0; a = c->src->parents[a]) {
                for (uint32_t kind = 0; kind < 3; kind++) {
                    int32_t t = find_track(c, index, (uint32_t)a, kind);
                    if (t >= 0) {
                        track *tr = &c->tracks[t];
                        if (tr->rate + 1 < NUM_RATES && !bumped[t] && tr->own_error > be)
                            be = tr->own_error, best = t;
                    } else if (c->constant[a * 3 + kind] == 1) {
                        double e = 0;
                        for (uint32_t f = f0; f < f1; f++) {
                            double x = own_error(c, f, (uint32_t)a, kind, c->cval[a * 3 + kind]);
                            e = x > e ? x : e;
                        }
                        if (e > ce) ce = e, cbest = a * 3 + (int32_t)kind;
                    }
                }
                if (c->src->parents[a] >= a) break;
            }
            if (best >= 0) {
                track *tr = &c->tracks[best];
                track_range(c, tr, f0, f1, tr->rate + 1);
                tr->own_error = track_error(c, tr, f0, f1);
                bumped[best] = 1;
                progress = 1;
            } else if (cbest >= 0 && ce > 0) {
                c->constant[cbest] = 2;
                return 1;
            }
        }
        if (!progress) break; /* the bound is below float precision: keep the best */
    }
    /* The bumps above may have overshot, and the shares are guesses: the
     * track with the most bits takes one rate less where every frame
     * stays within the bound, again and again. */
    /* Sweeps repeat while one lowers something; a track that cannot go
     * lower is not tried again. */
    memset(bumped, 0, c->num_tracks + 1);
    if (measure(c, f0, f1) <= c->bound)
        for (uint32_t round = 0; round < c->num_tracks * (uint32_t)NUM_RATES; round++) {
            int32_t pick = -1;
            for (uint32_t t = 0; t < c->num_tracks; t++)
                if (!bumped[t] && c->tracks[t].rate > 0 &&
                    (pick < 0 || c->tracks[t].rate > c->tracks[pick].rate))
                    pick = (int32_t)t;
            if (pick < 0) break;
            track *tr = &c->tracks[pick];
            uint32_t rate = tr->rate;
            double own = tr->own_error;
            track_range(c, tr, f0, f1, rate - 1);
            tr->own_error = track_error(c, tr, f0, f1);
            if (measure(c, f0, f1) > c->bound) {
                track_range(c, tr, f0, f1, rate);
                tr->own_error = own;
                bumped[pick] = 1;
            }
        }
    return 0;
}

/* -- Tracks ------------------------------------------------------------------------ */

/* Rotations: the component rebuilt from the other three is the one that
 * stays farthest from 0 (sqrt(1 - |v|^2) is steep near 0). */
static uint32_t dropped_component(const ctx *c, uint32_t j)
{
    float least[4] = {1, 1, 1, 1};
    for (uint32_t f = 0; f < c->nf; f++)
        for (int q = 0; q < 4; q++) {
            float a = fabsf(c->raw[(size_t)f * c->n + j].rotation[q]);
            least[q] = a < least[q] ? a : least[q];
        }
    uint32_t dropped = 3;
    for (uint32_t q = 0; q < 3; q++)
        if (least[q] > least[dropped]) dropped = q;
    return dropped;
}

/* The track's range over the whole clip, as its record stores it. */
static void clip_range(const ctx *c, track *t)
{
    float lo[3], hi[3], x[3];
    track_values(c, t, 0, x);
    for (int q = 0; q < 3; q++) lo[q] = hi[q] = x[q];
    for (uint32_t f = 1; f < c->nf; f++) {
        track_values(c, t, f, x);
        for (int q = 0; q < 3; q++) {
            lo[q] = x[q] < lo[q] ? x[q] : lo[q];
            hi[q] = x[q] > hi[q] ? x[q] : hi[q];
        }
    }
    for (int q = 0; q < 3; q++) {
        if (t->kind == OSSA_TRACK_ROTATION) {
            /* 16-bit steps (ossa__packed_record): the start rounded down,
             * the extent up, checked in the decoder's float arithmetic. */
            long m = (long)floor(((double)lo[q] + 1) / OSSA_PACKED_ROT_STEP);
            m = m < 0 ? 0 : m > 65535 ? 65535 : m;
            while (m > 0 && (float)m * OSSA_PACKED_ROT_STEP - 1.0f > lo[q]) m--;
            float mn = (float)m * OSSA_PACKED_ROT_STEP - 1.0f;
            long e = (long)ceil(((double)hi[q] - mn) / OSSA_PACKED_ROT_STEP);
            e = e < 0 ? 0 : e > 65535 ? 65535 : e;
            while (e < 65535 && mn + (float)e * OSSA_PACKED_ROT_STEP < hi[q]) e++;
            t->q16[q] = (uint16_t)m, t->q16[3 + q] = (uint16_t)e;
            t->rec.min[q] = mn;
            t->rec.extent[q] = (float)e * OSSA_PACKED_ROT_STEP;
            continue;
        }
        float e = hi[q] - lo[q];
        /* min + extent must reach hi in float. */
        while (lo[q] + e < hi[q]) e = nextafterf(e, INFINITY);
        t->rec.min[q] = lo[q], t->rec.extent[q] = e;
    }
}

/* Chooses the constants, then makes a track of every kind of every joint
 * that is not constant; index[j * 3 + kind] is its number, or -1. */
static void make_tracks(ctx *c, int32_t *index)
{
    uint32_t n = c->n, groups = (n + OSSA_CLIP_LANES - 1) / OSSA_CLIP_LANES;
    choose_constants(c);
    c->num_tracks = 0;
    for (uint32_t i = 0; i < n * 3; i++) index[i] = -1;
    /* Tracks in SoA order within each group: translation, rotation, scale
     * channels come at increasing float indices. */
    static const uint32_t order[3] = {OSSA_TRACK_TRANSLATION, OSSA_TRACK_ROTATION,
                                      OSSA_TRACK_SCALE};
    for (uint32_t g = 0; g < groups; g++)
        for (int k = 0; k < 3; k++)
            for (uint32_t lane = 0; lane < OSSA_CLIP_LANES; lane++) {
                uint32_t j = g * OSSA_CLIP_LANES + lane, kind = order[k];
                if (j >= n || c->constant[j * 3 + kind] == 1) continue;
                track *t = &c->tracks[c->num_tracks];
                memset(t, 0, sizeof *t);
                t->joint = j, t->kind = kind;
                if (kind == OSSA_TRACK_ROTATION) t->dropped = dropped_component(c, j);
                t->rec.kind = kind | t->dropped << 2 | j << 4;
                clip_range(c, t);
                index[j * 3 + kind] = (int32_t)c->num_tracks++;
            }
}

/* Segment [f0, f1) with its rates chosen: head, each track's info bytes,
 * then the keys frame by frame, bit-packed. NULL when memory runs out. */
static unsigned char *pack_segment(const ctx *c, uint32_t f0, uint32_t f1, size_t *size)
{
    uint64_t frame_bits = 0;
    size_t head = OSSA_PACKED_SEGMENT_HEAD;
    for (uint32_t t = 0; t < c->num_tracks; t++) {
        frame_bits += 3u * OSSA_PACKED_BITS(c->tracks[t].info[0]);
        head += ossa__packed_info_size(c->tracks[t].info[0]);
    }
    size_t bytes = head + (size_t)((frame_bits * (f1 - f0) + 7) / 8) + OSSA_PACKED_SLACK;
    unsigned char *seg = ossa__calloc(c->alloc, bytes, 1);
    if (!seg) return NULL;
    *size = bytes;
    ossa__wr32(seg, (uint32_t)frame_bits);
    ossa__wr32(seg + 4, (uint32_t)head);
    size_t at = OSSA_PACKED_SEGMENT_HEAD;
    for (uint32_t t = 0; t < c->num_tracks; t++) {
        size_t k = ossa__packed_info_size(c->tracks[t].info[0]);
        memcpy(seg + at, c->tracks[t].info, k);
        at += k;
    }
    uint64_t pos = 0;
    for (uint32_t f = f0; f < f1; f++)
        for (uint32_t t = 0; t < c->num_tracks; t++) {
            float v[4];
            uint32_t q[3], bits = OSSA_PACKED_BITS(c->tracks[t].info[0]);
            decode(c, &c->tracks[t], f, v, q);
            for (int k = 0; k < 3; k++, pos += bits)
                if (bits) ossa__put_bits(seg + head, pos, q[k], bits);
        }
    return seg;
}

/* Chooses the rates of every segment and packs it into segs[s]
 * (seg_size[s] bytes); the worst error goes to c->measured. Returns 0 when
 * done, 1 when a constant track was promoted (the segments packed so far
 * are freed: compression starts over), -1 when memory runs out. */
static int encode_segments(ctx *c, const int32_t *index, uint8_t *bumped, unsigned char **segs,
                           size_t *seg_size, ossa_error *error)
{
    uint32_t nseg = ossa__packed_num_segments(c->nf);
    c->measured = 0;
    for (uint32_t s = 0; s < nseg; s++) {
        uint32_t f0 = s * OSSA_PACKED_SEGMENT;
        uint32_t f1 = s + 1 < nseg ? f0 + OSSA_PACKED_SEGMENT : c->nf;
        if (fit_segment(c, index, bumped, f0, f1)) {
            for (uint32_t k = 0; k < s; k++) ossa__free(c->alloc, segs[k], 0), segs[k] = NULL;
            return 1;
        }
        double worst = measure(c, f0, f1);
        c->measured = worst > c->measured ? worst : c->measured;
        segs[s] = pack_segment(c, f0, f1, &seg_size[s]);
        if (!segs[s]) {
            ossa__fail_nomem(error);
            return -1;
        }
    }
    return 0;
}

/* -- The image ----------------------------------------------------------------------- */

static size_t align16(size_t x) { return (x + 15) & ~(size_t)15; }

/* The header (packed.h): counts, then the offset of every part. Fails when
 * the image would pass 4 GiB. */
static ossa_status lay_out(const ctx *c, float max_error, float shell, uint32_t root_joint,
                           ossa_axis up, const size_t *seg_size, ossa__packed_header *h,
                           ossa_error *error)
{
    const ossa_clip_source *src = c->src;
    uint32_t n = c->n, nf = c->nf, nseg = ossa__packed_num_segments(nf);
    size_t name_len = strlen(src->name ? src->name : "");
    memset(h, 0, sizeof *h);
    memcpy(h->magic, OSSA_PACKED_MAGIC, 8);
    h->version = OSSA_PACKED_VERSION;
    h->num_joints = n;
    h->num_frames = nf;
    h->framerate = (isfinite(src->framerate) && src->framerate > 0) ? src->framerate
                                                                      : OSSA_DEFAULT_FRAMERATE;
    h->anim_flags = src->flags;
    h->root_joint = n ? root_joint : 0;
    h->up_axis = (uint32_t)up;
    h->segment_frames = OSSA_PACKED_SEGMENT;
    h->num_segments = nseg;
    h->num_tracks = c->num_tracks;
    h->max_error = max_error;
    h->shell_distance = shell;
    h->measured_error = (float)c->measured;
    h->name_length = (uint32_t)name_len;
    for (uint32_t i = 0; i < 3 * n; i++) {
        h->constant_tracks += c->constant[i] == 1;
        h->num_constants += c->constant[i] == 1 && !c->is_bind[i];
    }
    size_t off = sizeof *h;
    h->off_name = (uint32_t)off, off = align16(off + name_len + 1);
    h->off_parents = (uint32_t)off, off = align16(off + (size_t)n * 4);
    h->off_order = (uint32_t)off, off = align16(off + (size_t)n * 4);
    h->off_bind = (uint32_t)off, off = align16(off + (size_t)n * sizeof(ossa_transform));
    h->off_root_track = (uint32_t)off, off = align16(off + ((size_t)nf + 64) / 64 * 16);
    h->off_constants = (uint32_t)off,
    off = align16(off + (size_t)h->num_constants * sizeof(ossa__packed_constant));
    for (uint32_t t = 0; t < c->num_tracks; t++)
        h->track_bytes += (uint32_t)ossa__packed_record_size(c->tracks[t].rec.kind);
    h->off_tracks = (uint32_t)off, off = align16(off + h->track_bytes);
    h->off_segments = (uint32_t)off, off = align16(off + ((size_t)nseg + 1) * 4);
    h->off_data = (uint32_t)off;
    for (uint32_t s = 0; s < nseg; s++) off += seg_size[s];
    if (off > UINT32_MAX)
        return ossa__fail(error, OSSA_ERROR_NOMEM, OSSA_NO_OFFSET,
                          "compressed clip larger than 4 GiB");
    h->image_size = (uint32_t)off;
    return OSSA_OK;
}

/* Fills the zeroed image at the header's offsets: name, parents, bind
 * pose, constants, track records, the segment table and the segments. */
static void fill_image(const ctx *c, const ossa__packed_header *h, unsigned char *const *segs,
                       const size_t *seg_size, unsigned char *img)
{
    const ossa_clip_source *src = c->src;
    uint32_t n = c->n;
    memcpy(img, h, sizeof *h);
    memcpy(img + h->off_name, src->name ? src->name : "", h->name_length);
    int32_t *parents = (int32_t *)(void *)(img + h->off_parents);
    ossa_transform *bind = (ossa_transform *)(void *)(img + h->off_bind);
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = src->parents[j];
        parents[j] = (p >= 0 && (uint32_t)p < j) ? p : -1;
        bind[j] = src->bind_pose[j];
        ossa__quat_normalize(bind[j].rotation);
    }
    ossa__packed_constant *consts = (ossa__packed_constant *)(void *)(img + h->off_constants);
    for (uint32_t i = 0, k = 0; i < 3 * n; i++)
        if (c->constant[i] == 1 && !c->is_bind[i]) {
            /* Records sort by joint << 2 | kind; i is joint * 3 + kind. */
            consts[k].kind = (i / 3) << 2 | (i % 3);
            memcpy(consts[k].value, c->cval[i], sizeof consts[k].value);
            k++;
        }
    unsigned char *rec = img + h->off_tracks;
    for (uint32_t t = 0; t < c->num_tracks; t++) {
        const track *tr = &c->tracks[t];
        memcpy(rec, &tr->rec.kind, 4);
        if (tr->kind == OSSA_TRACK_ROTATION) {
            memcpy(rec + 4, tr->q16, 12);
        } else {
            memcpy(rec + 4, tr->rec.min, 12);
            memcpy(rec + 16, tr->rec.extent, 12);
        }
        rec += ossa__packed_record_size(tr->rec.kind);
    }
    uint32_t *table = (uint32_t *)(void *)(img + h->off_segments);
    size_t at = 0;
    for (uint32_t s = 0; s < h->num_segments; s++) {
        table[s] = (uint32_t)at;
        memcpy(img + h->off_data + at, segs[s], seg_size[s]);
        at += seg_size[s];
    }
    table[h->num_segments] = (uint32_t)at;
}

static void free_ctx(ctx *c)
{
    const ossa_allocator *a = c->alloc;
    ossa__free(a, c->raw, 0);
    ossa__free(a, c->rawm, 0);
    ossa__free(a, c->radius, 0);
    ossa__free(a, c->pscale, 0);
    ossa__free(a, c->constant, 0);
    ossa__free(a, c->is_bind, 0);
    ossa__free(a, c->cval, 0);
    ossa__free(a, c->tracks, 0);
    ossa__free(a, c->lossy, 0);
    ossa__free(a, c->lossym, 0);
    ossa__free(a, c->joint_error, 0);
}

ossa_status ossa__compress(const ossa_clip_source *src, const ossa_allocator *alloc, float max_error,
                           float shell, uint32_t root_joint, ossa_axis up, unsigned char **image,
                           size_t *size, ossa_error *error)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.src = src;
    c.alloc = alloc;
    c.n = src->num_joints;
    c.nf = src->num_frames ? src->num_frames : 1;
    c.bound = max_error;
    c.shell = shell;
    uint32_t n = c.n, nseg = ossa__packed_num_segments(c.nf);
    unsigned char **segs = NULL;
    size_t *seg_size = NULL;
    int32_t *index = NULL;
    uint8_t *bumped = NULL;
    ossa_status status = OSSA_FAILED;
    *image = NULL;
    if ((uint64_t)c.nf * n * 200 > ((uint64_t)1 << 40)) {
        ossa__fail(error, OSSA_ERROR_NOMEM, OSSA_NO_OFFSET, "animation too large to compress");
        return OSSA_FAILED;
    }
    if (prepare(&c, error) != OSSA_OK) goto done;
    segs = ossa__calloc(alloc, nseg, sizeof *segs);
    seg_size = ossa__calloc(alloc, nseg, sizeof *seg_size);
    index = ossa__calloc(alloc, (size_t)n * 3 + 1, sizeof *index);
    bumped = ossa__calloc(alloc, (size_t)n * 3 + 1, 1);
    if (!segs || !seg_size || !index || !bumped) {
        ossa__fail_nomem(error);
        goto done;
    }
    /* A promoted constant track changes the tracks: start over. */
    int step;
    do {
        make_tracks(&c, index);
        step = encode_segments(&c, index, bumped, segs, seg_size, error);
    } while (step > 0);
    if (step < 0) goto done;
    ossa__packed_header h;
    if (lay_out(&c, max_error, shell, root_joint, up, seg_size, &h, error) != OSSA_OK) goto done;
    unsigned char *img = ossa__calloc(alloc, h.image_size, 1);
    if (!img) {
        ossa__fail_nomem(error);
        goto done;
    }
    fill_image(&c, &h, segs, seg_size, img);
    *image = img;
    *size = h.image_size;
    status = OSSA_OK;

done:
    if (segs)
        for (uint32_t s = 0; s < nseg; s++) ossa__free(alloc, segs[s], 0);
    ossa__free(alloc, segs, 0);
    ossa__free(alloc, seg_size, 0);
    ossa__free(alloc, index, 0);
    ossa__free(alloc, bumped, 0);
    free_ctx(&c);
    return status;
}
