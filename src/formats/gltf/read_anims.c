/* glTF 2.0 reader: animations. Each sampler is read as a track and
 * sampled on a frame grid: the keys' own rate when they are evenly
 * spaced, else the load options' rate (30 fps by default). Frames are then
 * turned from glTF's axes to the model's (gltf.h). */
#include "formats/gltf/scene.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct track {
    uint32_t joint;
    int path; /* 0 translation, 1 rotation, 2 scale */
    int interp; /* 0 LINEAR, 1 STEP, 2 CUBICSPLINE */
    const float *times;
    uint32_t keys;
    float *values; /* keys * ncomp, or keys * 3 * ncomp for CUBICSPLINE */
    uint32_t ncomp;
} track;

/* Decoded sampler inputs, shared between samplers that use one accessor. */
typedef struct input_cache {
    int64_t accessor;
    float *times;
    uint32_t count;
} input_cache;

static ossa_status read_input(gltf_scene *s, const char *path, int64_t acc, input_cache *cache, uint32_t *ncache,
                              const float **times, uint32_t *count)
{
    for (uint32_t i = 0; i < *ncache; i++)
        if (cache[i].accessor == acc) {
            *times = cache[i].times;
            *count = cache[i].count;
            return OSSA_OK;
        }
    gltf_accessor info;
    float *t;
    if (ossa__gltf_accessor_floats(s->r, acc, path, &info, &t)) return OSSA_FAILED;
    input_cache *c = &cache[(*ncache)++];
    c->accessor = acc;
    c->times = t;
    c->count = info.count;
    if (info.ncomp != 1 || info.ctype != GLTF_FLOAT)
        return ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT, "%s: expected a SCALAR float accessor", path);
    for (uint32_t k = 0; k < info.count; k++) {
        if (t[k] < 0)
            return ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT, "%s: key %u has the negative time %g", path,
                                   k, (double)t[k]);
        if (k && !(t[k] > t[k - 1]))
            return ossa__gltf_fail(s->r, OSSA_ERROR_CORRUPT,
                                   "%s: key times must increase (key %u: %g after %g)", path, k,
                                   (double)t[k], (double)t[k - 1]);
    }
    *times = t;
    *count = info.count;
    return OSSA_OK;
}

static ossa_status read_tracks(gltf_scene *s, uint32_t a, track **out, uint32_t *ntracks, input_cache *cache,
                               uint32_t *ncache)
{
    gltf_reader *r = s->r;
    const cJSON *an = r->animations.items[a];
    const cJSON *channels = cJSON_GetObjectItemCaseSensitive(an, "channels");
    const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(an, "samplers");
    if (!cJSON_IsArray(channels) || !cJSON_IsArray(samplers))
        return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "animations[%u]: channels and samplers must be arrays", a);
    uint32_t nsamp = (uint32_t)cJSON_GetArraySize(samplers), nch = (uint32_t)cJSON_GetArraySize(channels);
    const cJSON **samp = gltf_scratch(s, nsamp, sizeof *samp);
    track *tracks = gltf_scratch(s, nch, sizeof *tracks);
    uint8_t *used = gltf_scratch(s, (size_t)s->J * 3, 1);
    if (!samp || !tracks || !used) return ossa__fail_nomem(r->error);
    uint32_t k = 0;
    for (const cJSON *e = samplers->child; e; e = e->next) samp[k++] = e;
    *out = tracks; /* the caller frees the values of *ntracks tracks, also on failure */
    *ntracks = 0;
    uint32_t n = 0, ci = 0;
    bool warned = false;
    for (const cJSON *c = channels->child; c; c = c->next, ci++) {
        char path[64];
        snprintf(path, sizeof path, "animations[%u].channels[%u]", a, ci);
        int64_t si = -1, node = -1;
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(c, "target");
        if (!cJSON_IsObject(c) || !cJSON_IsObject(target))
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected an object with a target", path);
        char tp[80];
        snprintf(tp, sizeof tp, "%s.target", path);
        if (ossa__gltf_index(r, c, "sampler", path, nsamp, "sampler", &si) ||
            ossa__gltf_index(r, target, "node", tp, s->N, "node", &node))
            return OSSA_FAILED;
        if (si < 0) return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s.sampler: missing", path);
        const char *tpath = ossa__gltf_string(target, "path");
        int pk = !tpath ? -1 : strcmp(tpath, "translation") == 0 ? 0 : strcmp(tpath, "rotation") == 0 ? 1
                             : strcmp(tpath, "scale") == 0 ? 2 : -1;
        if (pk < 0 || node < 0) {
            if (!warned)
                ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s: target path '%s' is not supported (ignored)",
                           path, tpath ? tpath : "(none)");
            warned = true;
            continue;
        }
        track *t = &tracks[n];
        t->joint = (uint32_t)s->joint_of[node];
        t->path = pk;
        if (used[t->joint * 3 + (uint32_t)pk])
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: node %lld's %s is animated twice", path,
                                   (long long)node, tpath);
        used[t->joint * 3 + (uint32_t)pk] = 1;
        const cJSON *so = samp[si];
        char sp[64];
        snprintf(sp, sizeof sp, "animations[%u].samplers[%lld]", a, (long long)si);
        const char *interp = ossa__gltf_string(so, "interpolation");
        t->interp = !interp || strcmp(interp, "LINEAR") == 0 ? 0 : strcmp(interp, "STEP") == 0 ? 1
                    : strcmp(interp, "CUBICSPLINE") == 0 ? 2 : -1;
        if (t->interp < 0)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT,
                                   "%s.interpolation: expected LINEAR, STEP or CUBICSPLINE", sp);
        int64_t in = -1, outp = -1;
        char ip[80], op[80];
        snprintf(ip, sizeof ip, "%s.input", sp);
        snprintf(op, sizeof op, "%s.output", sp);
        if (ossa__gltf_index(r, so, "input", sp, r->accessors.count, "accessor", &in) ||
            ossa__gltf_index(r, so, "output", sp, r->accessors.count, "accessor", &outp))
            return OSSA_FAILED;
        if (in < 0 || outp < 0)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: input and output are required", sp);
        if (read_input(s, ip, in, cache, ncache, &t->times, &t->keys)) return OSSA_FAILED;
        gltf_accessor info;
        if (ossa__gltf_accessor_floats(r, outp, op, &info, &t->values)) return OSSA_FAILED;
        *ntracks = ++n; /* owned from here: freed by the caller */
        t->ncomp = pk == 1 ? 4 : 3;
        uint32_t per = t->interp == 2 ? 3 : 1;
        if (info.ncomp != t->ncomp)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected %s elements for %s", op,
                                   pk == 1 ? "VEC4" : "VEC3", tpath);
        if (info.count != (uint64_t)t->keys * per)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: %u elements for %u keys (expected %u)", op,
                                   info.count, t->keys, t->keys * per);
        if (t->interp == 2 && t->keys < 2)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: CUBICSPLINE needs at least 2 keys", ip);
        if (pk != 1 && info.ctype != GLTF_FLOAT)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: %s must be float", op, tpath);
    }
    return OSSA_OK;
}

/* The track's value at time t. `cursor` keeps the key interval between
 * calls at increasing times. Times within 1/1000 of a frame of a key give
 * that key exactly. */
static void sample_track(const track *t, double time, double frame_time, uint32_t *cursor, float *out)
{
    uint32_t nc = t->ncomp, per = t->interp == 2 ? 3 : 1, off = t->interp == 2 ? nc : 0;
    while (*cursor + 1 < t->keys && t->times[*cursor + 1] <= time) ++*cursor;
    uint32_t k = *cursor;
    double eps = frame_time * 1e-3;
    uint32_t exact = UINT32_MAX;
    if (fabs(t->times[k] - time) <= eps) exact = k;
    else if (k + 1 < t->keys && fabs(t->times[k + 1] - time) <= eps) exact = k + 1;
    else if (time < t->times[0]) exact = 0;
    else if (k + 1 >= t->keys) exact = t->keys - 1;
    if (exact != UINT32_MAX || t->interp == 1) {
        if (exact == UINT32_MAX) exact = k;
        memcpy(out, t->values + (size_t)exact * nc * per + off, nc * sizeof *out);
        if (t->path == 1) ossa__quat_tidy(out);
        return;
    }
    double t0 = t->times[k], t1 = t->times[k + 1], dt = t1 - t0, u = (time - t0) / dt;
    const float *a = t->values + (size_t)k * nc * per + off, *b = t->values + (size_t)(k + 1) * nc * per + off;
    if (t->interp == 0) {
        if (t->path == 1) {
            ossa__quat_slerp(a, b, u, out);
        } else {
            for (uint32_t c = 0; c < nc; c++) out[c] = (float)(a[c] + (b[c] - (double)a[c]) * u);
        }
        return;
    }
    /* CUBICSPLINE: Hermite with the out-tangent of key k and the in-tangent
     * of key k + 1, scaled by the interval (spec, Appendix C). */
    const float *bk = a + nc, *ak1 = b - nc;
    double u2 = u * u, u3 = u2 * u;
    double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    for (uint32_t c = 0; c < nc; c++)
        out[c] = (float)(h00 * a[c] + h10 * dt * bk[c] + h01 * b[c] + h11 * dt * ak1[c]);
    if (t->path == 1) ossa__quat_normalize(out);
}

/* Frame rate and count of an animation: the rate of the file's own extras
 * (ossa's object; else a plain "framerate" in the animation's extras, as
 * ossa writes for other consumers) when the keys fit it, else the keys'
 * own spacing when they are evenly spaced, else the load options' rate. */
static void frame_grid(gltf_scene *s, const cJSON *an, const track *tracks, uint32_t n, float *rate,
                       double *grid, uint32_t *frames, uint32_t *flags)
{
    double tmax = 0, dt = 0;
    for (uint32_t i = 0; i < n; i++) {
        const track *t = &tracks[i];
        if (t->times[t->keys - 1] > tmax) tmax = t->times[t->keys - 1];
        for (uint32_t k = 1; k < t->keys; k++) {
            double d = (double)t->times[k] - t->times[k - 1];
            if (dt == 0 || d < dt) dt = d;
        }
    }
    const cJSON *x = gltf_ours(an);
    const cJSON *xr = cJSON_GetObjectItemCaseSensitive(x, "framerate");
    const cJSON *xf = cJSON_GetObjectItemCaseSensitive(x, "frames");
    *flags = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "loop")) ? OSSA_ANIMATION_LOOP : 0;
    double fallback = s->r->options->framerate > 0 && isfinite(s->r->options->framerate)
                          ? s->r->options->framerate : OSSA_DEFAULT_FRAMERATE;
    double candidates[2];
    int nc = 0;
    bool from_extras = cJSON_IsNumber(xr) && isfinite(xr->valuedouble) && xr->valuedouble >= 0 &&
                       xr->valuedouble < 1e6;
    if (!from_extras) {
        xr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(an, "extras"), "framerate");
        from_extras = cJSON_IsNumber(xr) && isfinite(xr->valuedouble) && xr->valuedouble > 0 &&
                      xr->valuedouble < 1e6;
        xf = NULL; /* the frame count is ossa's alone */
    }
    if (from_extras) candidates[nc++] = xr->valuedouble > 0 ? xr->valuedouble : OSSA_DEFAULT_FRAMERATE;
    if (dt > 0) {
        double f = 1 / dt;
        if (fabs(f - floor(f + 0.5)) < 1e-3 * f) f = floor(f + 0.5);
        candidates[nc++] = f;
    }
    double fps = 0;
    for (int c = 0; c < nc && fps == 0; c++) {
        double f = candidates[c];
        if (!(f > 0) || f > 1000 || tmax * f > 1e6) continue;
        bool fit = true;
        for (uint32_t i = 0; i < n && fit; i++)
            for (uint32_t k = 0; k < tracks[i].keys && fit; k++) {
                double v = tracks[i].times[k] * f;
                fit = fabs(v - floor(v + 0.5)) < 1e-3;
            }
        if (fit) fps = f;
    }
    if (fps == 0) fps = fallback;
    *grid = fps;
    *rate = (float)fps;
    if (from_extras && candidates[0] == fps) *rate = (float)xr->valuedouble;
    double count = floor(tmax * fps + 0.5) + 1;
    if (from_extras && cJSON_IsNumber(xf) && xf->valuedouble >= 0 && xf->valuedouble <= 1e9 &&
        (xf->valuedouble >= count || xf->valuedouble == 0 || n == 0))
        count = floor(xf->valuedouble);
    *frames = count > 4e9 ? UINT32_MAX : (uint32_t)count;
}

/* A track of one key that holds its node's rest value: what ossa writes
 * for a channel that another animation moves and this one does not (and
 * what other exporters write for channels they key everywhere). The
 * channel then counts as not animated, as in the source. */
static bool holds_rest(const gltf_scene *s, const track *t)
{
    if (t->keys != 1) return false;
    const ossa_transform *rest = &s->local[s->node_of[t->joint]];
    float v[4];
    memcpy(v, t->values, t->ncomp * sizeof *v);
    if (t->path == 1) {
        ossa__quat_tidy(v);
        return memcmp(v, rest->rotation, sizeof rest->rotation) == 0;
    }
    return memcmp(v, t->path == 0 ? rest->translation : rest->scale, 3 * sizeof *v) == 0;
}

static ossa_status read_animation(gltf_scene *s, uint32_t a, input_cache *cache)
{
    gltf_reader *r = s->r;
    uint32_t ncache = 0, n = 0;
    track *tracks = NULL;
    ossa_status st = read_tracks(s, a, &tracks, &n, cache, &ncache);
    uint32_t J = s->J;
    if (!st && J) {
        float rate;
        double fps;
        uint32_t frames, flags;
        const cJSON *an = r->animations.items[a];
        frame_grid(s, an, tracks, n, &rate, &fps, &frames, &flags);
        /* One budget for every animation of the file, its external buffers
         * counted as part of it. */
        uint64_t bytes = (uint64_t)frames * J * sizeof(ossa_transform);
        uint64_t limit = ossa__decode_limit((uint64_t)r->file_size + r->external_bytes);
        uint64_t left = limit > r->pose_bytes ? limit - r->pose_bytes : 0;
        if (bytes > left) {
            st = ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED,
                                 "animations[%u]: %u frames at %g fps would decode to %llu MiB, out of "
                                 "proportion to the file (%llu MiB left for its animations)",
                                 a, frames, fps, (unsigned long long)(bytes >> 20),
                                 (unsigned long long)(left >> 20));
        } else {
            r->pose_bytes += bytes;
            const char *name = ossa__gltf_string(an, "name");
            ossa_animation *anim = ossa_model_add_animation(s->m, name ? name : "", frames, rate, flags, r->error);
            uint8_t *mask = gltf_scratch(s, J, 1);
            if (!anim) st = OSSA_FAILED;
            else if (!mask) st = ossa__fail_nomem(r->error);
            for (uint32_t f = 0; !st && f < frames; f++)
                for (uint32_t j = 0; j < J; j++) anim->frames[(size_t)f * J + j] = s->local[s->node_of[j]];
            for (uint32_t i = 0; !st && i < n; i++) {
                track *t = &tracks[i];
                uint32_t cursor = 0;
                if (!holds_rest(s, t)) mask[t->joint] |= (uint8_t)(1u << t->path);
                for (uint32_t f = 0; f < frames; f++) {
                    ossa_transform *o = &anim->frames[(size_t)f * J + t->joint];
                    float *dst = t->path == 0 ? o->translation : t->path == 1 ? o->rotation : o->scale;
                    sample_track(t, f / fps, 1 / fps, &cursor, dst);
                }
            }
            for (uint32_t j = 0; !st && j < J; j++) {
                ossa_transform rest;
                ossa__gltf_transform_from_gltf(&s->rest[j], &rest);
                for (uint32_t f = 0; f < frames; f++) {
                    ossa_transform *o = &anim->frames[(size_t)f * J + j];
                    ossa__gltf_apply_fold(s, j, o);
                    ossa__gltf_transform_from_gltf(o, o);
                    /* Channels not animated hold the rest transform (the
                     * model's rest pose, or its bind pose when they agree);
                     * where a fold mixes channels, what moves counts. */
                    if (memcmp(o->translation, rest.translation, 12)) mask[j] |= OSSA_CHANNEL_TRANSLATION;
                    if (memcmp(o->rotation, rest.rotation, 16)) mask[j] |= OSSA_CHANNEL_ROTATION;
                    if (memcmp(o->scale, rest.scale, 12)) mask[j] |= OSSA_CHANNEL_SCALE;
                }
            }
            bool all = true;
            for (uint32_t j = 0; !st && j < J; j++) all &= mask[j] == 7;
            if (!st && !all) anim->channels = mask;
        }
    }
    for (uint32_t i = 0; i < n; i++) ossa__free(r->alloc, tracks[i].values, 0);
    for (uint32_t i = 0; i < ncache; i++) ossa__free(r->alloc, cache[i].times, 0);
    return st;
}

ossa_status ossa__gltf_read_animations(gltf_scene *s)
{
    gltf_reader *r = s->r;
    if (!r->animations.count) return OSSA_OK;
    if (!s->J) {
        ossa__warn(s->m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "the animations move no node: ignored");
        return OSSA_OK;
    }
    /* At most one cached input per channel. */
    uint32_t most = 0;
    for (uint32_t a = 0; a < r->animations.count; a++) {
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r->animations.items[a], "channels"));
        if ((uint32_t)n > most) most = (uint32_t)n;
    }
    input_cache *cache = ossa__alloc(r->alloc, (most + 1) * sizeof *cache);
    if (!cache) return ossa__fail_nomem(r->error);
    ossa_status st = OSSA_OK;
    for (uint32_t a = 0; a < r->animations.count && !st; a++) st = read_animation(s, a, cache);
    ossa__free(r->alloc, cache, 0);
    return st;
}
