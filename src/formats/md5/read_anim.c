/* md5anim reader (docs/formats/md5.md §6-§8, §12): one animation and the
 * skeleton it drives, as an animation-only model.
 *
 * Each frame is the baseframe with the components its joint's flags name
 * replaced by the frame's values (Tx Ty Tz Qx Qy Qz order), w rebuilt
 * negative (§3). The baseframe is not a pose (Bob.md5anim's holds inverse
 * rotations): the joints' stand-in bind pose is frame 0, as for IQM
 * animation-only files, and the model is marked
 * OSSA_MODEL_SKELETON_FROM_POSES. MD5 defines translation and rotation of
 * every joint in every frame (through the baseframe) and never a scale,
 * which the channel masks say. Bounds are kept as stored. */
#include "formats/md5/md5.h"

#include <math.h>
#include <stdio.h>

enum { MIN_HIERARCHY = 8, MIN_BOX = 12, MIN_FRAME = 8 };

typedef struct hier {
    uint32_t flags, first;
} hier;

typedef struct anim_reader {
    md5_lexer *L;
    ossa_model *m;
    ossa_error *error;
    uint32_t nf, nj, nac;
    hier *h;
    int32_t *parents;
    float *base;   /* 6 per joint: t xyz, q xyz */
    float *values; /* nac of the current frame */
    uint32_t long_quats, long_line;
} anim_reader;

static ossa_status nomem(anim_reader *r) { return ossa__fail_nomem(r->error); }

static ossa_status header_int(anim_reader *r, const char *keyword, int64_t min, int64_t max,
                              uint32_t *out)
{
    int64_t v;
    if (ossa__md5_keyword(r->L, keyword, "") || ossa__md5_int(r->L, &v, min, max, keyword))
        return OSSA_FAILED;
    *out = (uint32_t)v;
    return OSSA_OK;
}

/* frameRate is an integer to id, whose ParseInt truncates "24.5" to 24. */
static ossa_status frame_rate(anim_reader *r, const ossa_load_options *options, float *fps)
{
    md5_lexer *L = r->L;
    float f;
    if (ossa__md5_keyword(L, "frameRate", "") || ossa__md5_space(L) < 0) return OSSA_FAILED;
    const char *at = L->lx.p;
    if (ossa__md5_float(L, &f, "frameRate")) return OSSA_FAILED;
    if (f != truncf(f)) {
        ossa__md5_warn(L, OSSA_WARNING_NONSTANDARD, at,
                       "frameRate %g is not an integer: %g frames per second, as id reads it", f,
                       truncf(f));
        f = truncf(f);
    }
    if (f <= 0) {
        if (options->framerate > 0 && isfinite(options->framerate)) {
            ossa__md5_warn(L, OSSA_WARNING_REPAIRED, at,
                           "frameRate %g: the load options' %g frames per second are used", f,
                           options->framerate);
            f = options->framerate;
        } else {
            return ossa__md5_fail_at(L, at, "frameRate %g: expected at least 1 frame per second",
                                     f);
        }
    }
    *fps = f;
    return OSSA_OK;
}

static int popcount6(uint32_t v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

static ossa_status read_hierarchy(anim_reader *r, char **names)
{
    md5_lexer *L = r->L;
    if (ossa__md5_keyword(L, "hierarchy", "") || ossa__md5_punct(L, '{', "the hierarchy block"))
        return OSSA_FAILED;
    for (uint32_t j = 0; j < r->nj; j++) {
        const char *s, *at;
        size_t len;
        int64_t parent, flags, first;
        if (ossa__md5_string(L, &s, &len, "a joint name") || ossa__md5_space(L) < 0)
            return OSSA_FAILED;
        at = L->lx.p;
        if (ossa__md5_int(L, &parent, INT32_MIN, INT32_MAX, "the joint's parent"))
            return OSSA_FAILED;
        /* id: a parent comes first, and only joint 0 is a root */
        if (j == 0 && parent != -1)
            return ossa__md5_fail_at(L, at,
                                     "joint 0: parent %lld, expected -1 (the first joint is the "
                                     "one root)",
                                     (long long)parent);
        if (j > 0 && (parent < 0 || parent >= (int64_t)j))
            return ossa__md5_fail_at(L, at,
                                     "joint %u: parent %lld is not an earlier joint (0 to %u; only "
                                     "joint 0 is a root)",
                                     j, (long long)parent, j - 1);
        if (ossa__md5_space(L) < 0) return OSSA_FAILED;
        at = L->lx.p;
        if (ossa__md5_int(L, &flags, INT32_MIN, INT32_MAX, "the joint's flags")) return OSSA_FAILED;
        if (flags < 0 || flags > 63)
            return ossa__md5_fail_at(
                L, at, "joint %u: flags %lld, expected 0 to 63 (bits Tx Ty Tz Qx Qy Qz)", j,
                (long long)flags);
        if (ossa__md5_space(L) < 0) return OSSA_FAILED;
        at = L->lx.p;
        if (ossa__md5_int(L, &first, INT32_MIN, INT32_MAX, "the joint's first component"))
            return OSSA_FAILED;
        int n = popcount6((uint32_t)flags);
        /* id checks every joint's start against a non-empty frame; a run
         * past the end would read the next frame's values */
        if ((r->nac && (first < 0 || first >= r->nac)) || (n && (first < 0 || first + n > r->nac)))
            return ossa__md5_fail_at(L, at,
                                     "joint %u: components %lld to %lld are outside the %u of a "
                                     "frame (numAnimatedComponents)",
                                     j, (long long)first, (long long)first + (n ? n : 1) - 1,
                                     r->nac);
        r->h[j].flags = (uint32_t)flags;
        r->h[j].first = n ? (uint32_t)first : 0;
        r->parents[j] = (int32_t)parent;
        names[j] = ossa__temp_alloc(r->m, len + 1);
        if (!names[j]) return nomem(r);
        memcpy(names[j], s, len);
        names[j][len] = 0;
    }
    return ossa__md5_punct(L, '}', "the hierarchy block (after numJoints entries)");
}

static void radii(ossa_bounds *b)
{
    double xy = 0, all = 0;
    for (int c = 0; c < 8; c++) {
        double x = c & 1 ? b->max[0] : b->min[0], y = c & 2 ? b->max[1] : b->min[1],
               z = c & 4 ? b->max[2] : b->min[2];
        if (x * x + y * y > xy) xy = x * x + y * y;
        if (x * x + y * y + z * z > all) all = x * x + y * y + z * z;
    }
    b->xy_radius = (float)sqrt(xy);
    b->radius = (float)sqrt(all);
}

static ossa_status read_bounds(anim_reader *r, ossa_bounds *out)
{
    md5_lexer *L = r->L;
    if (ossa__md5_keyword(L, "bounds", "") || ossa__md5_punct(L, '{', "the bounds block"))
        return OSSA_FAILED;
    for (uint32_t f = 0; f < r->nf; f++) {
        ossa_bounds *b = &out[f];
        if (ossa__md5_vector(L, b->min, 3, "a frame's bounds (minimum)") ||
            ossa__md5_vector(L, b->max, 3, "a frame's bounds (maximum)"))
            return OSSA_FAILED;
        radii(b);
    }
    return ossa__md5_punct(L, '}', "the bounds block (after numFrames boxes)");
}

static ossa_status read_baseframe(anim_reader *r)
{
    md5_lexer *L = r->L;
    if (ossa__md5_keyword(L, "baseframe", "") || ossa__md5_punct(L, '{', "the baseframe block"))
        return OSSA_FAILED;
    for (uint32_t j = 0; j < r->nj; j++)
        if (ossa__md5_vector(L, r->base + (size_t)j * 6, 3, "a baseframe position") ||
            ossa__md5_vector(L, r->base + (size_t)j * 6 + 3, 3, "a baseframe rotation"))
            return OSSA_FAILED;
    return ossa__md5_punct(L, '}', "the baseframe block (after numJoints entries)");
}

/* One frame block's values into r->values. */
static ossa_status read_frame(anim_reader *r, uint32_t f)
{
    md5_lexer *L = r->L;
    int64_t index;
    char context[64];
    snprintf(context, sizeof context, "for frame %u (numFrames is %u)", f, r->nf);
    if (ossa__md5_keyword(L, "frame", context) || ossa__md5_space(L) < 0) return OSSA_FAILED;
    const char *at = L->lx.p;
    if (ossa__md5_int(L, &index, INT64_MIN + 1, INT64_MAX, "the frame number")) return OSSA_FAILED;
    if (index != (int64_t)f)
        return ossa__md5_fail_at(L, at,
                                 "frame number %lld: expected %u (frames come in order from 0)",
                                 (long long)index, f);
    if (ossa__md5_punct(L, '{', "the frame block")) return OSSA_FAILED;
    float *v = r->values;
    for (uint32_t k = 0; k < r->nac; k++)
        if (ossa__md5_float(L, &v[k], "a frame value (numAnimatedComponents per frame)"))
            return OSSA_FAILED;
    return ossa__md5_punct(L, '}', "the frame block (after numAnimatedComponents values)");
}

/* The pose of every joint in the frame whose values are r->values. */
static void decode(anim_reader *r, ossa_transform *out)
{
    for (uint32_t j = 0; j < r->nj; j++) {
        float c[6];
        memcpy(c, r->base + (size_t)j * 6, sizeof c);
        uint32_t k = r->h[j].first, flags = r->h[j].flags;
        for (int bit = 0; bit < 6; bit++)
            if (flags & (1u << bit)) c[bit] = r->values[k++];
        ossa_transform *t = &out[j];
        memcpy(t->translation, c, 3 * sizeof(float));
        double s = (double)c[3] * c[3] + (double)c[4] * c[4] + (double)c[5] * c[5];
        if (s <= 1 + OSSA_QUAT_TOLERANCE) {
            memcpy(t->rotation, c + 3, 3 * sizeof(float));
            t->rotation[3] = (float)-sqrt(s < 1 ? 1 - s : 0);
        } else {
            double k2 = 1 / sqrt(s);
            for (int i = 0; i < 3; i++) t->rotation[i] = (float)(c[3 + i] * k2);
            t->rotation[3] = 0;
            if (s > 1.001 && !r->long_quats++) r->long_line = r->L->lx.line;
        }
        t->scale[0] = t->scale[1] = t->scale[2] = 1;
    }
}

/* -- Frames in parallel shares --
 *
 * Frames are nearly all of a large file, and a frame needs nothing from
 * the text before it but the header's counts, the hierarchy and the
 * baseframe. With threads, the text after frame 0 is cut at lines that
 * start with "frame N" (N in order) into shares, each parsed on its own
 * thread with a copy of the lexer into its frames of the animation. A
 * share is taken only when it parsed its frames without any error or
 * warning and ended exactly where the next share starts: by induction from
 * the first share, which starts where the serial parse stands, every share
 * then read the very tokens the serial parse would have (a cut inside a
 * comment, a missing frame or a stray token shows as a share that does
 * not end at the next cut). Otherwise the calling thread reads every frame
 * again itself, so that errors and warnings are the serial parse's. All
 * memory is allocated on the calling thread. */

enum { SHARE_MIN_BYTES = 64 << 10 }; /* text per share at least */

typedef struct frame_share {
    anim_reader r;            /* a copy, with its own lexer and values */
    md5_lexer L;              /* lines counted from 0 at `start` (share 0: absolute) */
    ossa_error error;         /* a share's error is never reported */
    const char *stop;         /* where the next share starts (NULL: the last) */
    uint32_t first, end;      /* frames [first, end) */
    ossa_transform *frames;   /* the animation's */
    bool ok;
} frame_share;

static void share_worker(void *ctx, uint32_t index)
{
    frame_share *s = (frame_share *)ctx + index;
    for (uint32_t f = s->first; f < s->end; f++) {
        if (read_frame(&s->r, f) || s->L.unusual) return;
        decode(&s->r, s->frames + (size_t)f * s->r.nj);
    }
    if (s->stop && (ossa__md5_space(&s->L) <= 0 || s->L.lx.p != s->stop)) return;
    s->ok = !s->L.unusual;
}

/* The first line at or after `from` that starts (after blanks) with
 * "frame N" and N in (after, nf): its 'f', with *index = N; or NULL. */
static const char *frame_line(const char *from, const char *end, uint32_t after, uint32_t nf,
                              uint32_t *index)
{
    for (const char *p = from; (p = memchr(p, '\n', (size_t)(end - p))) != NULL;) {
        const char *q = ++p;
        while (q < end && (*q == ' ' || *q == '\t')) q++;
        if (end - q < 8 || memcmp(q, "frame", 5) != 0 || (q[5] != ' ' && q[5] != '\t'))
            continue;
        const char *d = q + 5;
        while (d < end && (*d == ' ' || *d == '\t')) d++;
        uint64_t n = 0;
        const char *digits = d;
        while (d < end && *d >= '0' && *d <= '9' && d - digits < 10)
            n = n * 10 + (uint64_t)(*d++ - '0');
        if (d > digits && n > after && n < nf) {
            *index = (uint32_t)n;
            return q;
        }
    }
    return NULL;
}

/* Frames 1 to nf - 1 in shares on up to `threads` threads: true when
 * they are all read (the lexer then stands after the last, as after a
 * serial parse), false when the caller is to read them serially. */
static bool read_shares(anim_reader *r, ossa_transform *frames, uint32_t threads)
{
    md5_lexer *L = r->L;
    const char *start = L->lx.p, *end = L->lx.end;
    uint64_t text = (uint64_t)(end - start);
    uint32_t workers = ossa__workers(threads, text, SHARE_MIN_BYTES);
    if (workers > (r->nf - 1) / 2) workers = (r->nf - 1) / 2;
    if (workers < 2) return false;
    const char *cut[64];
    uint32_t first[64], n = 1;
    cut[0] = start;
    first[0] = 1;
    for (uint32_t k = 1; k < workers; k++) {
        const char *from = start + text * k / workers;
        if (from <= cut[n - 1]) from = cut[n - 1] + 1;
        uint32_t index;
        const char *c = frame_line(from, end, first[n - 1], r->nf, &index);
        if (!c) break;
        cut[n] = c;
        first[n++] = index;
    }
    if (n < 2) return false;
    ossa_model *m = r->m;
    frame_share *shares = ossa__temp_calloc(m, n, sizeof *shares);
    float *values = ossa__temp_calloc(m, (size_t)n * (r->nac + 1), sizeof *values);
    bool ok = shares && values;
    for (uint32_t k = 0; ok && k < n; k++) {
        frame_share *s = &shares[k];
        s->L = *L;
        s->L.speculative = true;
        s->L.lx.error = &s->error;
        s->L.lx.p = cut[k];
        if (k) { /* lines from 0; the line starts right after a '\n' */
            s->L.lx.line = 0;
            s->L.lx.line_start = cut[k];
            while (s->L.lx.line_start[-1] != '\n') s->L.lx.line_start--;
        }
        s->r = *r;
        s->r.L = &s->L;
        s->r.error = &s->error;
        s->r.values = values + (size_t)k * (r->nac + 1);
        s->r.long_quats = 0;
        s->stop = k + 1 < n ? cut[k + 1] : NULL;
        s->first = first[k];
        s->end = k + 1 < n ? first[k + 1] : r->nf;
        s->frames = frames;
    }
    if (ok) ossa__parallel(n, share_worker, shares);
    for (uint32_t k = 0; ok && k < n; k++) ok = shares[k].ok;
    if (ok) {
        uint32_t line = 0; /* the absolute line where share k starts, minus its own count */
        for (uint32_t k = 0; k < n; k++) {
            const frame_share *s = &shares[k];
            if (s->r.long_quats && !r->long_quats) r->long_line = line + s->r.long_line;
            r->long_quats += s->r.long_quats;
            line += s->L.lx.line;
        }
        const frame_share *last = &shares[n - 1];
        L->lx.p = last->L.lx.p;
        L->lx.line = line;
        L->lx.line_start = last->L.lx.line_start;
    }
    ossa__temp_free(m, shares);
    ossa__temp_free(m, values);
    return ok;
}

/* The animation's name: the one ossa's writer keeps in the command line
 * (an animation tag, text.h: "ossa --loop --name NAME"; id and the IQM SDK
 * ignore that string), else the file's base name without directory or
 * extension (the IQM SDK keeps the directory, docs/formats/md5.md §13
 * bug 8). */
static void anim_name(const char *file, const ossa_anim_tag *tag, char *out, size_t cap)
{
    if (tag) {
        size_t n = strlen(tag->name);
        if (n >= cap) n = cap - 1;
        memcpy(out, tag->name, n);
        out[n] = 0;
        return;
    }
    const char *base = file ? file : "";
    for (const char *p = base; *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (n >= cap) n = cap - 1;
    memcpy(out, base, n);
    out[n] = 0;
}

/* A looping animation written by ossa ends with a copy of frame 0 (id
 * plays the last frame as the next cycle's first, §7): without it, the
 * frames are the ones written. Returns the frames to keep. */
static uint32_t loop_frames(const anim_reader *r, const ossa_transform *frames)
{
    if (r->nf < 2) return r->nf;
    const ossa_transform *last = frames + (size_t)(r->nf - 1) * r->nj;
    return memcmp(last, frames, (size_t)r->nj * sizeof *frames) == 0 ? r->nf - 1 : r->nf;
}

static ossa_status read_all(anim_reader *r, const ossa_load_options *options, char **names,
                            ossa_bounds *bounds, ossa_transform *pose, float fps, const char *cmd,
                            size_t cmd_len)
{
    md5_lexer *L = r->L;
    ossa_model *m = r->m;
    ossa_status st = read_hierarchy(r, names);
    if (!st) st = read_bounds(r, bounds);
    if (!st) st = read_baseframe(r);
    if (!st) st = read_frame(r, 0);
    if (st) return st;
    decode(r, pose);
    for (uint32_t j = 0; j < r->nj; j++)
        if (ossa_model_add_joint(m, names[j], r->parents[j], &pose[j], r->error) < 0)
            return OSSA_FAILED;
    m->flags |= OSSA_MODEL_SKELETON_FROM_POSES;
    ossa_anim_tag tag;
    bool tagged = ossa__anim_tag_parse(cmd, cmd_len, &tag);
    /* a rate frameRate could not hold, when it is the one written */
    if (tagged && tag.fps > 0 && fabsf(roundf(tag.fps) - fps) <= 0.5f) fps = tag.fps;
    char name[256];
    anim_name(options->file_name, tagged ? &tag : NULL, name, sizeof name);
    ossa_animation *a = ossa_model_add_animation(m, name, r->nf, fps, 0, r->error);
    if (!a) return OSSA_FAILED;
    uint8_t *channels = ossa__animation_channels(m, a);
    ossa_bounds *b = ossa__animation_bounds(m, a);
    if (!channels || !b) return nomem(r);
    memset(channels, OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION, r->nj);
    memcpy(b, bounds, (size_t)r->nf * sizeof *b);
    memcpy(a->frames, pose, (size_t)r->nj * sizeof *pose);
    if (!read_shares(r, a->frames, options->threads))
        for (uint32_t f = 1; f < r->nf; f++) {
            if (read_frame(r, f)) return OSSA_FAILED;
            decode(r, a->frames + (size_t)f * r->nj);
        }
    int more = ossa__md5_space(L);
    if (more < 0) return OSSA_FAILED;
    if (more)
        ossa__md5_warn(L, OSSA_WARNING_IGNORED, NULL,
                       "text after the %u frames that numFrames announced is ignored", r->nf);
    if (tagged && tag.loop) {
        uint32_t keep = loop_frames(r, a->frames);
        if (keep < r->nf && ossa_model_trim_animation(m, m->num_animations - 1, 0, keep, r->error))
            return OSSA_FAILED;
        a = &m->animations[m->num_animations - 1];
        a->flags |= OSSA_ANIMATION_LOOP;
    }
    if (r->long_quats)
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, r->long_line, 0,
                   "%u rotations are longer than a unit quaternion allows (x²+y²+z² > 1.001): "
                   "normalized with w = 0",
                   r->long_quats);
    return OSSA_OK;
}

ossa_status ossa__md5_read_anim(md5_lexer *L, ossa_model *m, const ossa_load_options *options,
                                const char *cmd, size_t cmd_len)
{
    anim_reader r;
    memset(&r, 0, sizeof r);
    r.L = L;
    r.m = m;
    r.error = L->lx.error;
    m->source_format = OSSA_FORMAT_MD5ANIM;
    float fps = 0;
    if (header_int(&r, "numFrames", 1, INT32_MAX, &r.nf)) return OSSA_FAILED;
    if (ossa__md5_space(L) < 0) return OSSA_FAILED;
    if (ossa__md5_accept(L, "frameRate") || ossa__md5_accept(L, "numCuts"))
        return ossa__fail_line(r.error, OSSA_ERROR_UNSUPPORTED, L->lx.line, 1,
                               "MD5 camera files are not supported (an md5camera: numFrames, "
                               "then frameRate and numCuts)");
    if (header_int(&r, "numJoints", 1, INT32_MAX, &r.nj) || frame_rate(&r, options, &fps) ||
        ossa__md5_keyword(L, "numAnimatedComponents", "") || ossa__md5_space(L) < 0)
        return OSSA_FAILED;
    const char *at = L->lx.p;
    int64_t nac;
    if (ossa__md5_int(L, &nac, 0, (int64_t)r.nj * 6, "numAnimatedComponents")) return OSSA_FAILED;
    r.nac = (uint32_t)nac;
    /* Every count against the bytes left, before allocating for it. */
    size_t left = (size_t)(L->lx.end - L->lx.p);
    uint64_t per_frame = MIN_BOX + MIN_FRAME + (r.nac ? 2 * (uint64_t)r.nac - 1 : 0);
    if (r.nj > left / (MIN_HIERARCHY + MIN_BOX) || r.nf > left / per_frame)
        return ossa__md5_fail_at(L, at,
                                 "numFrames %u and numJoints %u with %u animated components cannot "
                                 "fit in the %zu bytes left",
                                 r.nf, r.nj, r.nac, left);
    uint64_t decoded = (uint64_t)r.nf * r.nj * sizeof(ossa_transform);
    size_t size = (size_t)(L->lx.end - L->lx.data);
    if (decoded > ossa__decode_limit(size))
        return ossa__md5_fail_at(L, at,
                                 "numFrames %u x numJoints %u would decode to %llu MiB, out of "
                                 "proportion to a %zu-byte file (limit %llu MiB)",
                                 r.nf, r.nj, (unsigned long long)(decoded >> 20), size,
                                 (unsigned long long)(ossa__decode_limit(size) >> 20));

    r.h = ossa__temp_calloc(m, r.nj, sizeof *r.h);
    r.parents = ossa__temp_calloc(m, r.nj, sizeof *r.parents);
    r.base = ossa__temp_calloc(m, (size_t)r.nj * 6, sizeof *r.base);
    r.values = ossa__temp_calloc(m, (size_t)r.nac + 1, sizeof *r.values);
    char **names = ossa__temp_calloc(m, r.nj, sizeof *names);
    ossa_bounds *bounds = ossa__temp_calloc(m, r.nf, sizeof *bounds);
    ossa_transform *pose = ossa__temp_calloc(m, r.nj, sizeof *pose);
    ossa_status st = OSSA_OK;
    if (!r.h || !r.parents || !r.base || !r.values || !names || !bounds || !pose)
        st = nomem(&r);
    else
        st = read_all(&r, options, names, bounds, pose, fps, cmd, cmd_len);
    for (uint32_t j = 0; names && j < r.nj; j++) ossa__temp_free(m, names[j]);
    ossa__temp_free(m, names);
    ossa__temp_free(m, r.h);
    ossa__temp_free(m, r.parents);
    ossa__temp_free(m, r.base);
    ossa__temp_free(m, r.values);
    ossa__temp_free(m, bounds);
    ossa__temp_free(m, pose);
    return st;
}
