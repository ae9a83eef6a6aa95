/* glTF 2.0 reader: the frames an animation is sampled on (docs/formats/
 * gltf.md §4). glTF keys curves at any times; the model holds frames at
 * one rate. Every animation keeps its duration exactly (its last frame
 * is its last key) and its rate is picked so that the frames follow the
 * source's curves:
 *
 *  - keys on a grid (every key time a whole number of frames of a rate up
 *    to 240 fps, within a thousandth of a frame): that rate, so that every
 *    key is a frame. ossa's own rate (extras) first, then the keys'
 *    spacing, then the lowest whole rate (Fox's "Run": keys at 24 fps,
 *    then 0.8 frame later: a 120 fps grid). LINEAR and STEP curves then
 *    come back exactly; CUBICSPLINE ones are checked as below, at
 *    multiples of the rate;
 *  - other keys (BrainStem's, 37.5 fps apart with up to 0.0014 frame of
 *    jitter): the lowest rate at which every joint, in model space, stays
 *    within 1e-4 of the model's size (the diagonal of its bind-pose box)
 *    of the source curves evaluated exactly, at every key time and halfway
 *    between frames (at a quarter, half and three quarters of each
 *    interval for CUBICSPLINE curves), with frames interpolated as the
 *    runtime does. Tried:
 *    the keys' mean rate and its multiples, and whole rates up to 240 fps
 *    by bisection; when none stays within the bound, the one that comes
 *    closest, and the note says by how much. The frame count is rounded
 *    and the rate set so that the last frame is the last key. A load rate
 *    (ossa_load_options.framerate, --fps) is taken instead of the search.
 *
 * STEP channels are left out of the measure: no frame rate holds a step
 * (the runtime ramps over the frame before each key). */
#include "formats/gltf/tracks.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#define GRID_MAX 240.0   /* the fastest grid taken as the keys' own */
#define SEARCH_MAX 240   /* the fastest rate the search goes to */
#define BOUND 1e-4       /* of the model's size */

/* -- Keys on a grid -- */

static bool fits(const gltf_track *tracks, uint32_t n, double f)
{
    if (!(f > 0) || !isfinite(f)) return false;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < tracks[i].keys; k++) {
            double v = tracks[i].times[k] * f;
            /* a thousandth of a frame, or what float key times can say */
            double tol = fmax(1e-3, 4 * v * FLT_EPSILON);
            if (fabs(v - floor(v + 0.5)) > tol) return false;
        }
    return true;
}

/* The rate of the grid the keys sit on (0: none up to GRID_MAX), tried in
 * this order: `own` (the file's extras), the keys' smallest spacing, then
 * whole rates upwards. *even tells that the spacing itself fits. */
static double grid_rate(const gltf_track *tracks, uint32_t n, double own, double tmax, bool *even)
{
    double dt = 0;
    *even = false;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 1; k < tracks[i].keys; k++) {
            double d = (double)tracks[i].times[k] - tracks[i].times[k - 1];
            if (dt == 0 || d < dt) dt = d;
        }
    if (own > 0 && own <= 1e6 && tmax * own <= 1e6 && fits(tracks, n, own)) return own;
    if (dt > 0) {
        double f = 1 / dt;
        if (fabs(f - floor(f + 0.5)) < 1e-3 * f) f = floor(f + 0.5);
        if (f <= GRID_MAX && fits(tracks, n, f)) {
            *even = true;
            return f;
        }
    }
    for (int f = 1; f <= GRID_MAX; f++)
        if (fits(tracks, n, f)) return f;
    return 0;
}

/* -- The error of a grid -- */

typedef struct measure {
    const gltf_scene *s;
    const gltf_track *tracks;
    uint32_t n;
    double *keys; /* every key time once, increasing */
    uint32_t nkeys;
    uint32_t *cursor; /* 3 per track: the two frames and the curve */
    uint8_t *constant; /* per track: every key holds one value */
    bool cubic;        /* a track is CUBICSPLINE */
    float (*at)[2][4]; /* per track: its values at frames `at_frame` and the next */
    double at_frame;   /* -1: none yet */
    ossa_transform *base; /* per joint: the rest, with the constant tracks */
    double rate;      /* frame f at f / rate */
    uint32_t frames;  /* >= 2 */
    ossa_transform *rec, *ref; /* per joint, glTF axes */
    double (*wrec)[16], (*wref)[16];
} measure;

static float *channel(ossa_transform *t, int path)
{
    return path == 0 ? t->translation : path == 1 ? t->rotation : t->scale;
}

/* The pose at `time` as the model's frames give it (two frames blended as
 * the runtime blends them) and as the curves give it. Times increase from
 * one call to the next (the cursors follow them). */
static void poses_at(measure *m, double time)
{
    const gltf_scene *s = m->s;
    double p = time * m->rate;
    double f0 = floor(p);
    if (f0 > m->frames - 2) f0 = m->frames - 2;
    if (f0 < 0) f0 = 0;
    double u = fmin(fmax(p - f0, 0), 1), snap = 1e-3 / m->rate;
    memcpy(m->rec, m->base, s->J * sizeof *m->rec);
    memcpy(m->ref, m->base, s->J * sizeof *m->ref);
    for (uint32_t i = 0; i < m->n; i++) {
        const gltf_track *t = &m->tracks[i];
        uint32_t *c = m->cursor + 3 * (size_t)i;
        if (m->constant[i]) continue;
        float *a = m->at[i][0], *b = m->at[i][1], *rec = channel(&m->rec[t->joint], t->path);
        if (f0 != m->at_frame) { /* tests between the same two frames share them */
            ossa__gltf_track_value(t, f0 / m->rate, snap, &c[0], a);
            ossa__gltf_track_value(t, (f0 + 1) / m->rate, snap, &c[1], b);
        }
        if (t->path == 1) ossa__quat_slerp(a, b, u, rec);
        else
            for (int k = 0; k < 3; k++) rec[k] = (float)(a[k] + (b[k] - (double)a[k]) * u);
        float *ref = channel(&m->ref[t->joint], t->path);
        if (t->interp == GLTF_STEP) memcpy(ref, rec, t->ncomp * sizeof *ref);
        else ossa__gltf_track_value(t, time, 0, &c[2], ref);
    }
    m->at_frame = f0;
}

static void world(const gltf_scene *s, const ossa_transform *local, double (*out)[16])
{
    for (uint32_t j = 0; j < s->J; j++) {
        double l[16];
        ossa__transform_to_mat4d(&local[j], l);
        if (s->has_fold[j]) ossa__mat4d_mul(s->fold[j], l, l);
        int32_t p = s->m->joints[j].parent;
        if (p >= 0) ossa__mat4d_mul(out[p], l, out[j]);
        else memcpy(out[j], l, sizeof l);
    }
}

static double error_at(measure *m, double time)
{
    poses_at(m, time);
    world(m->s, m->rec, m->wrec);
    world(m->s, m->ref, m->wref);
    double e = 0;
    for (uint32_t j = 0; j < m->s->J; j++) {
        double d[3];
        for (int c = 0; c < 3; c++) d[c] = m->wrec[j][12 + c] - m->wref[j][12 + c];
        e = fmax(e, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    return e;
}

/* The largest distance of a joint from the curves with `frames` frames
 * over `tmax` seconds, at every key and between frames (halfway, or for
 * CUBICSPLINE curves at a quarter, half and three quarters of each
 * interval: a symmetric Hermite segment meets its chord halfway), in
 * increasing time; stops early once above `stop`. */
static double grid_error(measure *m, uint32_t frames, double tmax, double stop)
{
    m->frames = frames;
    m->rate = (frames - 1) / tmax;
    m->at_frame = -1;
    memset(m->cursor, 0, (size_t)m->n * 3 * sizeof *m->cursor);
    uint32_t per = m->cubic ? 3 : 1; /* tests per frame interval */
    double e = 0;
    uint64_t k = 0, i = 0, between = (uint64_t)(frames - 1) * per;
    while ((k < m->nkeys || i < between) && e <= stop) {
        double at = (i / per + (i % per + 1.0) / (per + 1)) / m->rate;
        if (i < between && (k >= m->nkeys || at < m->keys[k])) {
            e = fmax(e, error_at(m, at));
            i++;
        } else {
            e = fmax(e, error_at(m, m->keys[k++]));
        }
    }
    return e;
}

/* -- Choosing -- */

/* The diagonal of the model's bind-pose box: its vertices and joints. */
static double model_size(const gltf_scene *s)
{
    const ossa_model *m = s->m;
    double box[6] = {0};
    int any = 0;
    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    for (uint32_t v = 0; pos && pos->format == OSSA_FLOAT && v < m->num_vertices; v++) {
        const float *p = (const float *)pos->data + (size_t)v * pos->size;
        double q[3] = {p[0], p[1], p[2]};
        if (isfinite(q[0] + q[1] + q[2])) ossa__box_grow(box, q, &any);
    }
    for (uint32_t j = 0; j < s->J; j++) { /* glTF axes to the model's */
        const double *w = s->bind_world[j];
        double q[3] = {w[12], -w[14], w[13]};
        if (isfinite(q[0] + q[1] + q[2])) ossa__box_grow(box, q, &any);
    }
    return ossa__box_size(box);
}

static uint32_t frames_at(double rate, double tmax)
{
    double n = floor(tmax * rate + 0.5) + 1;
    return n < 2 ? 2 : n > 4e9 ? UINT32_MAX : (uint32_t)n;
}

/* Whole rates and multiples of the keys' mean rate tried before the
 * bisection; errors within this factor of the least count as equal. */
#define MULTIPLES 32
#define CLOSE 1.05

/* The frames of the lowest rate whose frames stay within `bound` (*err
 * their error); when none does, of the lowest rate within CLOSE of the
 * least error. Tried: the keys' mean rate and its multiples (keys that
 * are a grid but for a jitter come closest there), then whole rates up to
 * `most`, the lowest that meets the bound found by bisection. */
static uint32_t search(measure *m, double tmax, double bound, double most, double *err)
{
    struct {
        double rate, err;
    } tried[MULTIPLES + 1];
    uint32_t count = 0;
    double least = INFINITY;
    double mean = m->nkeys > 1 ? (m->nkeys - 1) / tmax : 0;
    for (uint32_t k = 1; k <= MULTIPLES && mean > 0 && mean * k <= most; k++) {
        double r = mean * k, e = grid_error(m, frames_at(r, tmax), tmax, fmax(bound, CLOSE * least));
        tried[count].rate = r, tried[count++].err = e;
        least = fmin(least, e);
        if (e <= bound) break;
    }
    uint32_t top = most < 1 ? 1 : (uint32_t)most;
    double e = grid_error(m, frames_at(top, tmax), tmax, fmax(bound, CLOSE * least));
    tried[count].rate = top, tried[count++].err = e;
    least = fmin(least, e);
    if (e <= bound) { /* the lowest whole rate that meets it */
        uint32_t lo = 0, hi = top; /* hi meets the bound; lo does not (or is 0) */
        double hi_err = e;
        while (hi - lo > 1) {
            uint32_t mid = lo + (hi - lo) / 2;
            double me = grid_error(m, frames_at(mid, tmax), tmax, bound);
            if (me <= bound) hi = mid, hi_err = me;
            else lo = mid;
        }
        tried[count - 1].rate = hi, tried[count - 1].err = hi_err;
    }
    double pick = INFINITY;
    *err = INFINITY;
    for (uint32_t i = 0; i < count; i++) {
        bool good = least <= bound ? tried[i].err <= bound : tried[i].err <= CLOSE * least;
        if (good && tried[i].rate < pick) pick = tried[i].rate, *err = tried[i].err;
    }
    return frames_at(pick, tmax);
}

static int compare_times(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static ossa_status measure_init(measure *m, gltf_scene *s, const gltf_track *tracks, uint32_t n)
{
    memset(m, 0, sizeof *m);
    m->s = s;
    m->tracks = tracks;
    m->n = n;
    const ossa_allocator *a = s->r->alloc;
    m->rec = ossa__alloc(a, ((size_t)s->J + 1) * sizeof *m->rec);
    m->ref = ossa__alloc(a, ((size_t)s->J + 1) * sizeof *m->ref);
    m->wrec = ossa__alloc(a, ((size_t)s->J + 1) * sizeof *m->wrec);
    m->wref = ossa__alloc(a, ((size_t)s->J + 1) * sizeof *m->wref);
    m->cursor = ossa__alloc(a, ((size_t)n * 3 + 1) * sizeof *m->cursor);
    m->constant = ossa__alloc(a, (size_t)n + 1);
    m->at = ossa__alloc(a, ((size_t)n + 1) * sizeof *m->at);
    m->base = ossa__alloc(a, ((size_t)s->J + 1) * sizeof *m->base);
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += tracks[i].keys;
    m->keys = ossa__alloc(a, (total + 1) * sizeof *m->keys);
    if (!m->rec || !m->ref || !m->wrec || !m->wref || !m->cursor || !m->keys || !m->constant ||
        !m->base || !m->at)
        return ossa__fail_nomem(s->r->error);
    /* Tracks that hold one value cost nothing per test: they go into the
     * pose every test starts from. */
    for (uint32_t j = 0; j < s->J; j++) m->base[j] = s->local[s->node_of[j]];
    for (uint32_t i = 0; i < n; i++) {
        const gltf_track *t = &tracks[i];
        size_t per = (size_t)t->ncomp * (t->interp == GLTF_CUBICSPLINE ? 3 : 1);
        bool same = true;
        for (uint32_t k = 1; k < t->keys && same; k++)
            same = !memcmp(t->values, t->values + k * per, per * sizeof *t->values);
        for (size_t c = 0; t->interp == GLTF_CUBICSPLINE && c < t->ncomp && same; c++)
            same = t->values[c] == 0 && t->values[2 * t->ncomp + c] == 0; /* flat tangents */
        m->constant[i] = same;
        m->cubic |= !same && t->interp == GLTF_CUBICSPLINE;
        if (same) ossa__gltf_track_value(t, t->times[0], 0, NULL, channel(&m->base[t->joint], t->path));
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < tracks[i].keys; k++) m->keys[m->nkeys++] = tracks[i].times[k];
    qsort(m->keys, m->nkeys, sizeof *m->keys, compare_times);
    uint32_t kept = 0;
    for (uint32_t k = 0; k < m->nkeys; k++)
        if (!kept || m->keys[k] != m->keys[kept - 1]) m->keys[kept++] = m->keys[k];
    m->nkeys = kept;
    return OSSA_OK;
}

static void measure_free(measure *m)
{
    const ossa_allocator *a = m->s->r->alloc;
    ossa__free(a, m->rec, 0);
    ossa__free(a, m->ref, 0);
    ossa__free(a, m->wrec, 0);
    ossa__free(a, m->wref, 0);
    ossa__free(a, m->cursor, 0);
    ossa__free(a, m->keys, 0);
    ossa__free(a, m->constant, 0);
    ossa__free(a, m->at, 0);
    ossa__free(a, m->base, 0);
}

static void rate_text(char *out, size_t size, double rate)
{
    snprintf(out, size, rate == floor(rate) ? "%.0f" : "%.4g", rate);
}

/* Keys on a grid of `grid` fps: the grid, or for CUBICSPLINE curves the
 * lowest multiple (up to GRID_MAX, and no more than `most_frames` frames)
 * that follows them within the bound. */
static ossa_status on_grid(gltf_scene *s, const gltf_track *tracks, uint32_t n, double tmax,
                           double grid, bool even, uint64_t most_frames, gltf_timing *out)
{
    char r[32];
    rate_text(r, sizeof r, grid);
    snprintf(out->note, sizeof out->note, even ? "keys at %s fps" : "keys on a %s fps grid", r);
    out->rate = grid;
    bool cubic = false;
    for (uint32_t i = 0; i < n; i++) cubic |= tracks[i].interp == GLTF_CUBICSPLINE;
    /* Frame intervals of the grid; more frames than the file's budget are
     * refused by the caller, unmeasured. */
    double steps = floor(tmax * grid + 0.5);
    if (!cubic || tmax <= 0 || steps + 1 > (double)most_frames) return OSSA_OK;
    measure m;
    if (measure_init(&m, s, tracks, n)) {
        measure_free(&m);
        return OSSA_FAILED;
    }
    if (!m.cubic) { /* lines and steps between keys on frames come back exactly */
        measure_free(&m);
        return OSSA_OK;
    }
    double bound = BOUND * model_size(s), e = 0;
    uint32_t k = 1;
    for (; grid * k <= fmax(GRID_MAX, grid) && steps * k + 1 <= (double)most_frames; k++)
        if ((e = grid_error(&m, (uint32_t)(steps * k) + 1, tmax, bound)) <= bound) break;
    if (grid * k > fmax(GRID_MAX, grid) || steps * k + 1 > (double)most_frames) k--;
    measure_free(&m);
    if (k > 1) {
        out->rate = grid * k;
        char by[32];
        rate_text(by, sizeof by, out->rate);
        size_t len = strlen(out->note);
        snprintf(out->note + len, sizeof out->note - len,
                 e <= bound ? ", sampled at %s fps to follow the curves within 1e-4 of the "
                              "model's size"
                            : ", sampled at %s fps (the curves are not followed within 1e-4 of "
                              "the model's size)",
                 by);
    }
    return OSSA_OK;
}

/* Keys on no grid: the load options' rate when given, else the search. */
static ossa_status uneven(gltf_scene *s, const gltf_track *tracks, uint32_t n, double tmax,
                          double asked, uint64_t most_frames, gltf_timing *out)
{
    measure m;
    if (measure_init(&m, s, tracks, n)) {
        measure_free(&m);
        return OSSA_FAILED;
    }
    double size = model_size(s), bound = BOUND * size, err;
    uint32_t frames;
    char r[32], a[32];
    /* No more frames than the file's budget for its animations: beyond it
     * the caller refuses the animation, and nothing is measured. */
    double most = fmin(SEARCH_MAX, (double)most_frames / fmax(tmax, 1e-9));
    if (asked > 0) {
        frames = frames_at(asked, tmax);
        err = frames <= most_frames ? grid_error(&m, frames, tmax, INFINITY) : INFINITY;
    } else if (most < 1) {
        frames = frames_at(1, tmax), err = INFINITY;
    } else {
        frames = search(&m, tmax, bound, most, &err);
    }
    measure_free(&m);
    out->rate = (frames - 1) / tmax;
    rate_text(r, sizeof r, out->rate);
    rate_text(a, sizeof a, asked);
    if (asked > 0)
        snprintf(out->note, sizeof out->note,
                 "uneven keys: sampled at %s fps (the load rate %s fps, fitted to the last key), "
                 "within %.2g of the model's size",
                 r, a, err / size);
    else if (err <= bound)
        snprintf(out->note, sizeof out->note,
                 "uneven keys: sampled at %s fps, within 1e-4 of the model's size", r);
    else
        snprintf(out->note, sizeof out->note,
                 "uneven keys: sampled at %s fps, %.2g of the model's size off at worst (no rate "
                 "up to %d fps stays within 1e-4)",
                 r, err / size, SEARCH_MAX);
    return OSSA_OK;
}

ossa_status ossa__gltf_timing(gltf_scene *s, const cJSON *an, const gltf_track *tracks, uint32_t n,
                              uint64_t most_frames, gltf_timing *out)
{
    memset(out, 0, sizeof *out);
    double tmax = 0;
    for (uint32_t i = 0; i < n; i++)
        tmax = fmax(tmax, tracks[i].times[tracks[i].keys - 1]);
    const cJSON *x = gltf_ours(an);
    const cJSON *xr = cJSON_GetObjectItemCaseSensitive(x, "framerate");
    const cJSON *xf = cJSON_GetObjectItemCaseSensitive(x, "frames");
    out->flags = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "loop")) ? OSSA_ANIMATION_LOOP : 0;
    /* The rate ossa wrote (0 = unspecified: 30), else a plain "framerate"
     * in the animation's extras, as ossa writes it for other consumers. */
    bool ours = cJSON_IsNumber(xr) && isfinite(xr->valuedouble) && xr->valuedouble >= 0 &&
                xr->valuedouble < 1e6;
    if (!ours) {
        xr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(an, "extras"), "framerate");
        xf = NULL; /* the frame count is ossa's alone */
    }
    bool given = ours || (cJSON_IsNumber(xr) && isfinite(xr->valuedouble) && xr->valuedouble > 0 &&
                          xr->valuedouble < 1e6);
    double own = given ? (xr->valuedouble > 0 ? xr->valuedouble : OSSA_DEFAULT_FRAMERATE) : 0;
    double asked = s->r->options->framerate > 0 && isfinite(s->r->options->framerate)
                       ? s->r->options->framerate : 0;
    bool even;
    double grid = grid_rate(tracks, n, own, tmax, &even);
    ossa_status st = OSSA_OK;
    if (tmax <= 0) {
        out->rate = own ? own : asked ? asked : OSSA_DEFAULT_FRAMERATE;
        snprintf(out->note, sizeof out->note, n ? "keys at 0 s only: one frame" : "no keys: one frame");
    } else if (grid > 0) {
        st = on_grid(s, tracks, n, tmax, grid, even || grid == own, most_frames, out);
    } else {
        st = uneven(s, tracks, n, tmax, asked, most_frames, out);
    }
    out->framerate = (float)out->rate;
    if (given && own == out->rate) out->framerate = (float)xr->valuedouble;
    double count = floor(tmax * out->rate + 0.5) + 1;
    if (ours && cJSON_IsNumber(xf) && xf->valuedouble >= 0 && xf->valuedouble <= 1e9 &&
        (xf->valuedouble >= count || xf->valuedouble == 0 || n == 0))
        count = floor(xf->valuedouble);
    out->frames = count > 4e9 ? UINT32_MAX : (uint32_t)count;
    return st;
}
