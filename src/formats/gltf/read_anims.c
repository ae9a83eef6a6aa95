/* glTF 2.0 reader: animations. Each sampler is read as a track
 * (tracks.h) and sampled on the frames read_rate.c picks. Frames are then
 * turned from glTF's axes to the model's (gltf.h). */
#include "formats/gltf/tracks.h"

#include <stdio.h>
#include <stdlib.h>

typedef gltf_track track;

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
        t->interp = !interp || strcmp(interp, "LINEAR") == 0 ? GLTF_LINEAR
                    : strcmp(interp, "STEP") == 0        ? GLTF_STEP
                    : strcmp(interp, "CUBICSPLINE") == 0 ? GLTF_CUBICSPLINE
                                                         : -1;
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
        uint32_t per = t->interp == GLTF_CUBICSPLINE ? 3 : 1;
        if (info.ncomp != t->ncomp)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: expected %s elements for %s", op,
                                   pk == 1 ? "VEC4" : "VEC3", tpath);
        if (info.count != (uint64_t)t->keys * per)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: %u elements for %u keys (expected %u)", op,
                                   info.count, t->keys, t->keys * per);
        if (t->interp == GLTF_CUBICSPLINE && t->keys < 2)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: CUBICSPLINE needs at least 2 keys", ip);
        if (pk != 1 && info.ctype != GLTF_FLOAT)
            return ossa__gltf_fail(r, OSSA_ERROR_CORRUPT, "%s: %s must be float", op, tpath);
    }
    return OSSA_OK;
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
    gltf_timing tm;
    const cJSON *an = r->animations.items[a];
    /* One budget for every animation of the file, its external buffers
     * counted as part of it. */
    uint64_t limit = ossa__decode_limit((uint64_t)r->file_size + r->external_bytes);
    uint64_t left = limit > r->pose_bytes ? limit - r->pose_bytes : 0;
    if (!st && J) st = ossa__gltf_timing(s, an, tracks, n, left / ((uint64_t)J * sizeof(ossa_transform)), &tm);
    if (!st && J) {
        uint32_t frames = tm.frames;
        double fps = tm.rate;
        uint64_t bytes = (uint64_t)frames * J * sizeof(ossa_transform);
        if (bytes > left) {
            st = ossa__gltf_fail(r, OSSA_ERROR_UNSUPPORTED,
                                 "animations[%u]: %u frames at %g fps would decode to %llu MiB, out of "
                                 "proportion to the file (%llu MiB left for its animations)",
                                 a, frames, fps, (unsigned long long)(bytes >> 20),
                                 (unsigned long long)(left >> 20));
        } else {
            r->pose_bytes += bytes;
            const char *name = ossa__gltf_string(an, "name");
            ossa_animation *anim = ossa_model_add_animation(s->m, name ? name : "", frames, tm.framerate,
                                                            tm.flags, r->error);
            uint8_t *mask = gltf_scratch(s, J, 1);
            if (!anim) st = OSSA_FAILED;
            else if (!mask || !(anim->sampling = ossa__arena_strdup(ossa__model_arena(s->m), tm.note)))
                st = ossa__fail_nomem(r->error);
            for (uint32_t f = 0; !st && f < frames; f++)
                for (uint32_t j = 0; j < J; j++) anim->frames[(size_t)f * J + j] = s->local[s->node_of[j]];
            for (uint32_t i = 0; !st && i < n; i++) {
                track *t = &tracks[i];
                uint32_t cursor = 0;
                if (!holds_rest(s, t)) mask[t->joint] |= (uint8_t)(1u << t->path);
                for (uint32_t f = 0; f < frames; f++) {
                    ossa_transform *o = &anim->frames[(size_t)f * J + t->joint];
                    float *dst = t->path == 0 ? o->translation : t->path == 1 ? o->rotation : o->scale;
                    ossa__gltf_track_value(t, f / fps, 1e-3 / fps, &cursor, dst);
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
