/* BVH MOTION section (docs/formats/bvh.md §6, §7, §8): `Frames:`,
 * `Frame Time:`, then one frame per line, one number per channel in the
 * order the hierarchy declared them. The numbers are read in one pass into
 * a float table (no allocation per token), then every joint of every frame
 * becomes a transform. */
#include "formats/bvh/bvh.h"

#include <math.h>
#include <stdio.h>

/* -- Frame rate (§6) -- */

double ossa__bvh_rate_from_time(double frame_time, uint32_t digits, bool *rounded)
{
    double rate = 1.0 / frame_time;
    *rounded = false;
    /* A time given to 9 digits or more is exact enough as it is (the
     * writer's are); rounding is for the short forms (".0083333"). */
    if (digits >= 9) return rate;
    /* Integers, and the NTSC rates N * 1000 / 1001 (23.976, 29.97, ...). */
    double candidates[2] = {floor(rate + 0.5), floor(rate * 1001.0 / 1000.0 + 0.5) * 1000.0 / 1001.0};
    for (int i = 0; i < 2; i++) {
        double c = candidates[i];
        if (c >= 1 && fabs(rate - c) <= 1e-4 * c) {
            *rounded = rate != c;
            return c;
        }
    }
    return rate;
}

/* -- The header lines -- */

/* Whether the token at the cursor starts with `word` (any case); moves
 * past that much of it. "Frames:" may be written "Frames :" or
 * "Frames:3069". */
static bool accept_prefix(bvh_lex *lx, const char *word)
{
    size_t n = strlen(word), len = ossa__bvh_token_len(lx);
    if (len < n || !ossa__bvh_word_is(lx->p, n, word)) return false;
    lx->p += n;
    return true;
}

/* A ':' after a keyword, glued to it or as a token of its own. */
static bool accept_colon(bvh_lex *lx)
{
    if (lx->p < lx->end && *lx->p == ':') {
        lx->p++;
        return true;
    }
    const char *save = lx->p;
    uint32_t line = lx->line;
    const char *start = lx->line_start;
    if (ossa__bvh_skip_blanks(lx) && *lx->p == ':') {
        lx->p++;
        return true;
    }
    lx->p = save;
    lx->line = line;
    lx->line_start = start;
    return false;
}

/* The frame count after "Frames:"; -1 (with a warning) when absent. */
static ossa_status read_frames_line(bvh_doc *d, int64_t *declared, uint32_t *line)
{
    bvh_lex *lx = &d->lx;
    *declared = -1;
    ossa__bvh_skip_space(lx);
    *line = lx->line;
    const char *at = lx->p;
    if (!accept_prefix(lx, "Frames") || !accept_colon(lx)) {
        lx->p = at;
        ossa__bvh_warn(d, OSSA_WARNING_NONSTANDARD, at,
                       "no 'Frames:' line after MOTION: the frames are counted");
        return OSSA_OK;
    }
    ossa__bvh_skip_blanks(lx);
    const char *num = lx->p;
    size_t len = ossa__bvh_token_len(lx);
    int64_t n;
    if (!len || ossa__text_parse_int(num, num + len, &n) != num + len || n < 0 ||
        n > UINT32_MAX)
        return ossa__bvh_fail(d, num, true, "expected the frame count (0 to %u) after 'Frames:'",
                              UINT32_MAX);
    lx->p += len;
    *declared = n;
    return OSSA_OK;
}

/* A number written with a decimal comma ("0,033333", §8): parsed as if it
 * were a point. */
static bool parse_comma_number(const char *p, size_t len, double *out)
{
    char buf[64];
    if (len >= sizeof buf) return false;
    memcpy(buf, p, len);
    char *comma = memchr(buf, ',', len);
    if (!comma || memchr(comma + 1, ',', len - (size_t)(comma + 1 - buf))) return false;
    *comma = '.';
    return ossa__text_parse_double(buf, buf + len, out) == buf + len;
}

/* The seconds per frame after "Frame Time:"; 0 (with a warning) when
 * absent or unusable. */
/* Significant digits of a number token: digits after leading zeros, up
 * to an exponent. */
static uint32_t significant_digits(const char *p, size_t len)
{
    uint32_t n = 0;
    bool leading = true;
    for (size_t i = 0; i < len && p[i] != 'e' && p[i] != 'E'; i++) {
        if (p[i] < '0' || p[i] > '9') continue;
        if (p[i] != '0') leading = false;
        n += !leading;
    }
    return n;
}

static ossa_status read_time_line(bvh_doc *d, double *frame_time, uint32_t *digits)
{
    bvh_lex *lx = &d->lx;
    *frame_time = 0;
    *digits = 0;
    ossa__bvh_skip_space(lx);
    const char *at = lx->p;
    bool ok = false;
    if (accept_prefix(lx, "FrameTime")) {
        ok = accept_colon(lx);
    } else if (accept_prefix(lx, "Frame")) {
        ok = ossa__bvh_skip_blanks(lx) && accept_prefix(lx, "Time") && accept_colon(lx);
    }
    if (!ok) {
        lx->p = at;
        ossa__bvh_warn(d, OSSA_WARNING_NONSTANDARD, at,
                       "no 'Frame Time:' line: the frame rate is the default");
        return OSSA_OK;
    }
    ossa__bvh_skip_blanks(lx);
    const char *num = lx->p;
    size_t len = ossa__bvh_token_len(lx);
    double t;
    if (len && ossa__text_parse_double(num, num + len, &t) == num + len) {
    } else if (len && parse_comma_number(num, len, &t)) {
        ossa__bvh_warn(d, OSSA_WARNING_NONSTANDARD, num,
                       "the frame time '%.*s' has a decimal comma: read as a point", (int)len,
                       num);
    } else {
        return ossa__bvh_fail(d, num, true, "expected the seconds per frame after 'Frame Time:'");
    }
    lx->p += len;
    *digits = significant_digits(num, len);
    if (!(t > 0) || !isfinite(t) || 1.0 / t > 1e6) {
        ossa__bvh_warn(d, OSSA_WARNING_REPAIRED, num,
                       "frame time %.*s is not a usable number of seconds: the frame rate is the "
                       "default",
                       (int)len, num);
        return OSSA_OK;
    }
    *frame_time = t;
    return OSSA_OK;
}

/* -- The frames -- */

/* Whether `c` can start a number token. */
static bool number_start(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
}

/* Names the channel `c` of a frame for a message: "Zrotation of 'Hips'". */
static void channel_name(const bvh_doc *d, uint32_t c, char *out, size_t cap)
{
    static const char *const kinds[6] = {"Xposition", "Yposition", "Zposition",
                                         "Xrotation", "Yrotation", "Zrotation"};
    const bvh_node *nodes = (const bvh_node *)d->nodes.data;
    for (size_t i = 0; i < d->nodes.count; i++)
        if (c >= nodes[i].first && c < nodes[i].first + nodes[i].count) {
            snprintf(out, cap, "%s of '%s'", kinds[nodes[i].kind[c - nodes[i].first]],
                     ossa__intern_str(&d->names, nodes[i].name));
            return;
        }
    snprintf(out, cap, "channel %u", c);
}

typedef struct frame_reader {
    ossa_animation *anim; /* frames written in place */
    float *row;           /* one frame's numbers */
    uint32_t frames, cap;
    uint32_t extra_lines; /* lines with more numbers than channels */
    uint32_t extra_line, extra_column;
} frame_reader;

/* Whether only blanks and line ends are left from the cursor. */
static bool only_space_left(const bvh_lex *lx)
{
    for (const char *p = lx->p; p < lx->end; p++)
        if (!ossa__text_blank(*p) && *p != '\n') return false;
    return true;
}

/* Reads one frame line into t->row; *stop (without failing) at trailing
 * text or a cut last line. */
static ossa_status read_frame(bvh_doc *d, frame_reader *t, bool *stop)
{
    bvh_lex *lx = &d->lx;
    const char *end = lx->end;
    float *row = t->row;
    uint32_t c = 0, nc = d->num_channels;
    for (; c < nc; c++) {
        if (c) {
            /* blanks between numbers (a CR before an LF is one; a lone CR
             * ends the line, as in ossa__bvh_skip_blanks) */
            const char *p = lx->p;
            while (p < end && (*p == ' ' || *p == '\t')) p++;
            lx->p = p;
            if (p == end || *p == '\n' || *p == '\r' || *p == '\v' || *p == '\f')
                if (!ossa__bvh_skip_blanks(lx)) break;
        }
        const char *at = lx->p;
        const char *q = ossa__text_parse_float(at, end, &row[c]);
        if (!q) {
            if (c == 0 && !number_start(*at)) {
                ossa__bvh_warn(d, OSSA_WARNING_IGNORED, at,
                               "text after the frames is ignored (%u frames read)", t->frames);
                *stop = true;
                return OSSA_OK;
            }
            char what[BVH_MAX_NAME + 32];
            channel_name(d, c, what, sizeof what);
            return ossa__bvh_fail(d, at, true, "expected a number for %s in frame %u", what,
                                  t->frames);
        }
        if (!isfinite(row[c])) {
            char what[BVH_MAX_NAME + 32];
            channel_name(d, c, what, sizeof what);
            return ossa__bvh_fail(d, at, false, "%s in frame %u is not a finite number", what,
                                  t->frames);
        }
        lx->p = q;
    }
    if (c < nc) {
        if (only_space_left(lx)) {
            ossa__bvh_warn(d, OSSA_WARNING_TRUNCATED, lx->p,
                           "the last frame ends after %u of its %u numbers: it is dropped", c,
                           nc);
            *stop = true;
            return OSSA_OK;
        }
        return ossa__bvh_fail(d, lx->p, true, "frame %u has %u numbers, the channels need %u",
                              t->frames, c, nc);
    }
    if (ossa__bvh_skip_blanks(lx)) {
        if (!t->extra_lines++) {
            t->extra_line = lx->line;
            t->extra_column = ossa__bvh_column(lx, lx->p);
        }
        while (lx->p < end && *lx->p != '\n' && *lx->p != '\r') lx->p++;
    }
    return OSSA_OK;
}

/* Upper bound of the frames the rest of the text can hold: its lines (LF,
 * or a CR not before an LF), and for n channels one frame per 2n - 1 bytes
 * (n numbers and blanks). */
static uint32_t frame_capacity(const bvh_doc *d)
{
    const char *p = d->lx.p, *end = d->lx.end;
    uint64_t lines = 1;
    for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++) lines++;
    for (const char *q = p; (q = memchr(q, '\r', (size_t)(end - q))) != NULL; q++)
        lines += q + 1 == end || q[1] != '\n';
    uint64_t by_size = (uint64_t)(end - p) / (2 * (uint64_t)d->num_channels - 1) + 1;
    uint64_t cap = lines < by_size ? lines : by_size;
    return cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
}

/* -- Frames to poses -- */

/* Joint `n`'s transform from one frame's numbers (§4): rotations in the
 * order listed; position channels replace the offset, a missing component
 * being 0 (as Blender reads them). */
static void node_pose(const bvh_node *n, const float *row, ossa_transform *out)
{
    double q[4] = {0, 0, 0, 1};
    double pos[3] = {n->offset[0], n->offset[1], n->offset[2]};
    bool has_pos = false;
    for (uint32_t i = 0; i < n->count; i++) {
        uint8_t k = n->kind[i];
        double v = row[n->first + i];
        if (k < BVH_XROT) {
            if (!has_pos) pos[0] = pos[1] = pos[2] = 0;
            has_pos = true;
            pos[k] = v;
        } else {
            /* q = q * (sin(h) along axis a, cos(h)), h = half the angle;
             * with b, c the next axes in the cycle, the product is: */
            if (v == 0) continue; /* common in mocap (fingers, toes): no turn */
            /* Single precision sine and cosine, half the cost of double
             * ones, at the float nearest the half angle, then moved by
             * the rest of it (d, below 1e-7 of the angle) to first order:
             * within an ulp of float, the precision the pose is kept in. */
            double hd = v * (3.14159265358979323846 / 360.0);
            float h = (float)hd;
            double d = hd - h, sf = sinf(h), cf = cosf(h);
            double sn = sf + cf * d, cs = cf - sf * d;
            int a = k - BVH_XROT, b = (a + 1) % 3, c = (a + 2) % 3;
            double qa = q[a], qb = q[b], qc = q[c], qw = q[3];
            q[a] = qw * sn + qa * cs;
            q[b] = qb * cs + qc * sn;
            q[c] = qc * cs - qb * sn;
            q[3] = qw * cs - qa * sn;
        }
    }
    ossa__bvh_to_model(pos, out->translation);
    float v[3];
    ossa__bvh_to_model(q, v);
    out->rotation[0] = v[0];
    out->rotation[1] = v[1];
    out->rotation[2] = v[2];
    out->rotation[3] = (float)q[3];
    out->scale[0] = out->scale[1] = out->scale[2] = 1;
}

/* The model's animation of `frames` frames (every joint at rest), its
 * channel masks set; NULL (error filled) when the poses would pass the
 * decoded-size limit (checked before any memory is taken) or memory runs
 * out. */
static ossa_animation *new_animation(bvh_doc *d, uint32_t frames, float rate, uint32_t line)
{
    ossa_model *m = d->model;
    uint32_t nj = m->num_joints;
    if ((uint64_t)frames * nj > ossa__decode_limit(d->file_size) / sizeof(ossa_transform)) {
        ossa__fail_line(d->error, OSSA_ERROR_UNSUPPORTED, line, 1,
                        "%u frames of %u joints would take %llu MiB of poses, more than the "
                        "limit for a file of this size",
                        frames, nj,
                        (unsigned long long)((uint64_t)frames * nj * sizeof(ossa_transform) >> 20));
        return NULL;
    }
    char name[256];
    ossa__path_base_name(d->options->file_name, "animation", name, sizeof name);
    ossa_animation *a = ossa_model_add_animation(m, name, frames, rate, 0, d->error);
    if (!a) return NULL;
    uint8_t *channels = ossa__animation_channels(m, a);
    if (!channels) {
        ossa__fail_nomem(d->error);
        return NULL;
    }
    const bvh_node *nodes = (const bvh_node *)d->nodes.data;
    for (uint32_t j = 0; j < nj; j++)
        for (uint32_t i = 0; i < nodes[j].count; i++)
            channels[j] |= nodes[j].kind[i] < BVH_XROT ? OSSA_CHANNEL_TRANSLATION
                                                       : OSSA_CHANNEL_ROTATION;
    return a;
}

/* Reads the frames into a new animation, each frame's numbers turned into
 * poses as soon as they are read. The animation is made for as many
 * frames as the text has lines (an upper bound) and keeps those read. */
static ossa_status read_frames(bvh_doc *d, float rate, uint32_t line, uint32_t *count)
{
    bvh_lex *lx = &d->lx;
    frame_reader t = {0};
    t.cap = frame_capacity(d);
    t.anim = new_animation(d, t.cap, rate, line);
    if (!t.anim) return OSSA_FAILED;
    t.row = ossa__temp_alloc(d->model, ((size_t)d->num_channels + 1) * sizeof(float));
    if (!t.row) return ossa__fail_nomem(d->error);
    ossa_model *m = d->model;
    uint32_t nj = m->num_joints;
    const bvh_node *nodes = (const bvh_node *)d->nodes.data;
    bool stop = false;
    ossa_status st = OSSA_OK;
    while (!st && !stop && ossa__bvh_skip_space(lx)) {
        if (t.frames == t.cap) {
            st = ossa__bvh_fail(d, lx->p, true, "expected the end of the frames");
            break;
        }
        st = read_frame(d, &t, &stop);
        if (st || stop) break;
        ossa_transform *pose = &t.anim->frames[(size_t)t.frames * nj];
        for (uint32_t j = 0; j < nj; j++)
            if (nodes[j].count) node_pose(&nodes[j], t.row, &pose[j]);
        t.frames++;
    }
    ossa__temp_free(m, t.row);
    if (st) return st;
    if (t.extra_lines)
        ossa__warn(m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, t.extra_line, t.extra_column,
                   "%u frame lines hold more numbers than the %u channels: the extra ones are "
                   "ignored",
                   t.extra_lines, d->num_channels);
    /* The frames read (the storage for the rest of the bound stays unused
     * in the model's arena). */
    t.anim->num_frames = t.frames;
    *count = t.frames;
    return OSSA_OK;
}

ossa_status ossa__bvh_read_motion(bvh_doc *d)
{
    int64_t declared;
    double frame_time;
    uint32_t frames_line, digits;
    if (read_frames_line(d, &declared, &frames_line) || read_time_line(d, &frame_time, &digits))
        return OSSA_FAILED;
    float rate = d->options->framerate > 0 ? d->options->framerate : OSSA_DEFAULT_FRAMERATE;
    if (frame_time > 0) {
        bool rounded;
        double r = ossa__bvh_rate_from_time(frame_time, digits, &rounded);
        rate = (float)r;
        if (rounded) {
            uint32_t before = d->model->num_warnings;
            ossa__warn(d->model, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->lx.line, 1,
                       "frame time %.9g s is taken as %.9g fps (1 / %.9g = %.9g, within 1e-4)",
                       frame_time, r, frame_time, 1.0 / frame_time);
            /* Information, not a problem: a note (§6). */
            if (d->model->num_warnings > before)
                d->model->warnings[before].severity = OSSA_SEVERITY_NOTE;
        }
    }
    uint32_t frames = 0;
    ossa_status st = OSSA_OK;
    if (d->num_channels) {
        st = read_frames(d, rate, frames_line, &frames);
        if (!st && declared >= 0 && declared != frames)
            ossa__warn(d->model, OSSA_WARNING_INCONSISTENT, OSSA_NO_OFFSET, frames_line, 1,
                       "'Frames:' declares %lld frames, the data holds %u: all %u are read",
                       (long long)declared, frames, frames);
        if (!st && frames == 0)
            st = ossa_model_remove_animation(d->model, d->model->num_animations - 1, d->error);
    } else {
        /* No channel: frames are empty lines; only the count says how
         * many, and every one is the rest pose. */
        frames = declared > 0 ? (uint32_t)declared : 0;
        if (ossa__bvh_skip_space(&d->lx))
            ossa__bvh_warn(d, OSSA_WARNING_IGNORED, d->lx.p,
                           "no joint has channels: the text after 'Frame Time:' is ignored");
        if (frames && !new_animation(d, frames, rate, frames_line)) st = OSSA_FAILED;
    }
    if (!st && frames == 0)
        ossa__warn(d->model, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, d->lx.line, 1,
                   "the file has no frames: the skeleton only");
    return st;
}
