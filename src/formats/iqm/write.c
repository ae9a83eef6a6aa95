/* IQM v2 writer: the reference compiler's layout (docs/formats/iqm.md §5), its
 * float32 channel quantization (§8.1) and quaternion sign rule (§8.2),
 * correct adjacency (§10) and per-frame bounds (§9). The output depends only
 * on the model, so the same model always gives the same bytes. */
#include "formats/iqm/iqm.h"

#include <math.h>
#include <stdlib.h>

/* -- Text block: NUL-terminated strings, the first one empty, each string
 *    stored once. -- */

typedef struct strtab {
    ossa_buf text;
    uint32_t *slots; /* open addressing: offset + 1, 0 = empty */
    size_t cap, used;
    const ossa_allocator *allocator;
} strtab;

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static bool strtab_init(strtab *t, const ossa_allocator *a, size_t expected)
{
    memset(t, 0, sizeof *t);
    t->allocator = a;
    ossa__buf_init(&t->text, a);
    t->cap = 16;
    while (t->cap < expected * 2) t->cap *= 2;
    t->slots = ossa__alloc(a, t->cap * sizeof *t->slots);
    if (!t->slots) return false;
    memset(t->slots, 0, t->cap * sizeof *t->slots);
    ossa__buf_push(&t->text, 1);
    return !t->text.failed;
}

static void strtab_release(strtab *t)
{
    ossa__buf_release(&t->text);
    ossa__free(t->allocator, t->slots, t->cap * sizeof *t->slots);
}

/* Offset of `s` in the block, adding it if new. Capacity was sized for all
 * names up front, so the table never fills. */
static uint32_t strtab_add(strtab *t, const char *s)
{
    if (!s || !*s) return 0;
    size_t mask = t->cap - 1, i = hash_str(s) & mask;
    while (t->slots[i]) {
        uint32_t ofs = t->slots[i] - 1;
        if (strcmp((const char *)t->text.data + ofs, s) == 0) return ofs;
        i = (i + 1) & mask;
    }
    uint32_t ofs = (uint32_t)t->text.size;
    ossa__buf_append(&t->text, s, strlen(s) + 1);
    if (t->text.failed || t->text.size > UINT32_MAX) {
        t->text.failed = true;
        return 0;
    }
    t->slots[i] = ofs + 1;
    t->used++;
    return ofs;
}

/* -- Writer state -- */

typedef struct iqm_writer {
    const ossa_model *model;
    const ossa_write_options *options;
    ossa_buf *out;
    ossa_error *error;
    strtab names;
    bool write_joints, write_poses;
    uint32_t num_frames; /* global frame strip: all animations in order */
    uint32_t header[31];
    /* per joint and channel: quantization */
    uint32_t *masks;
    float (*offsets)[10], (*scales)[10];
} iqm_writer;

static void set_header(iqm_writer *w, int field, uint64_t value) { w->header[field / 4] = (uint32_t)value; }

static size_t here(const iqm_writer *w) { return w->out->size; }

/* Arrays go in type order (custom last, since its code is >= 0x10); the
 * sort is stable so that arrays of one type keep their order. */
static int array_rank(const ossa_vertex_array *a) { return (int)a->type; }

static uint32_t *sorted_arrays(const ossa_model *m, const ossa_allocator *alloc)
{
    uint32_t *order = ossa__alloc(alloc, (m->num_vertex_arrays + 1) * sizeof *order);
    if (!order) return NULL;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        uint32_t j = i;
        for (; j > 0 && array_rank(&m->vertex_arrays[order[j - 1]]) >
                            array_rank(&m->vertex_arrays[i]);
             j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    return order;
}

/* A channel value with the quaternion flipped to w <= 0 (§8.2). */
static float channel(const ossa_transform *t, int k)
{
    if (k < 3) return t->translation[k];
    if (k < 7) return t->rotation[3] > 0 ? -t->rotation[k - 3] : t->rotation[k - 3];
    return t->scale[k - 7];
}

/* All ten channel values of a pose, as channel() gives them. */
static void channel_row(const ossa_transform *t, float row[10])
{
    float flip = t->rotation[3] > 0 ? -1.0f : 1.0f; /* x * -1 and x * 1 are exact */
    memcpy(row, t->translation, 3 * sizeof(float));
    for (int k = 0; k < 4; k++) row[3 + k] = flip * t->rotation[k];
    memcpy(row + 7, t->scale, 3 * sizeof(float));
}

/* The frames of every animation in order (the file's frame strip), walked
 * forward from any frame. */
typedef struct strip_walk {
    const ossa_model *model;
    uint32_t animation, base; /* base: the strip index of the animation's first frame */
} strip_walk;

/* The poses of strip frame g; g must not decrease from one call to the next. */
static const ossa_transform *strip_frame(strip_walk *s, uint32_t g)
{
    const ossa_model *m = s->model;
    while (g - s->base >= m->animations[s->animation].num_frames)
        s->base += m->animations[s->animation++].num_frames;
    return m->animations[s->animation].frames + (size_t)(g - s->base) * m->num_joints;
}

static ossa_status check_bind_finite(iqm_writer *w)
{
    const ossa_model *m = w->model;
    for (uint32_t j = 0; j < m->num_joints; j++)
        for (int k = 0; k < 10; k++)
            if (!isfinite(channel(&m->joints[j].bind, k)))
                return ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                                  "joint %u '%s': the bind pose is not finite", j,
                                  m->joints[j].name);
    return OSSA_OK;
}

/* Names the first value of the frames that is not finite. */
static ossa_status check_frames_finite(iqm_writer *w)
{
    const ossa_model *m = w->model;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        for (size_t i = 0; i < (size_t)an->num_frames * m->num_joints; i++)
            for (int k = 0; k < 10; k++)
                if (!isfinite(channel(&an->frames[i], k)))
                    return ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                                      "animation '%s', frame %zu, joint %zu: value not finite",
                                      an->name, i / m->num_joints, i % m->num_joints);
    }
    return OSSA_OK;
}

/* The compiler's scale is range / 65535. Decoding the top sample gives
 * offset + 65535 * scale, which can differ from the original maximum by an
 * ulp, so encoding decoded data again would derive a slightly different
 * scale and change every byte of the channel. The scale is therefore moved
 * (by a few ulps at most, when at all) to a fixed point of
 * decode-then-derive, which makes write(read(write(x))) == write(x). The
 * samples stay those of the compiler: the top one is still 65535. */
static float stable_scale(float offset, float scale)
{
    for (int i = 0; i < 8; i++) {
        volatile float top = 65535.0f * scale;
        volatile float decoded = offset + top;
        volatile float range = decoded - offset;
        volatile float next = range / 65535.0f;
        if (next == scale || !(next > 0)) break;
        scale = next;
    }
    return scale;
}

/* Every channel's smallest and largest value over a share of the frames
 * (of every animation in order), and whether all are finite. */
typedef struct ranges_job {
    const ossa_model *model;
    uint32_t workers, total;
    float *lo, *hi;  /* per worker: 10 per joint */
    float *nonzero;  /* per worker: the sum of every value times 0, NaN when one is not finite */
} ranges_job;

static void ranges_worker(void *ctx, uint32_t index)
{
    const ranges_job *job = ctx;
    const ossa_model *m = job->model;
    uint32_t nj = m->num_joints;
    uint32_t first, end;
    ossa__share(job->total, job->workers, index, &first, &end);
    float *lo = job->lo + (size_t)index * 10 * nj, *hi = job->hi + (size_t)index * 10 * nj;
    float zero = 0;
    strip_walk walk = {m, 0, 0};
    for (uint32_t g = first; g < end; g++) {
        const ossa_transform *t = strip_frame(&walk, g);
        for (uint32_t j = 0; j < nj; j++) {
            float row[10];
            channel_row(&t[j], row);
            float *l = lo + 10 * (size_t)j, *h = hi + 10 * (size_t)j;
            for (int k = 0; k < 10; k++) {
                float v = row[k];
                zero += v * 0.0f;
                l[k] = g == first || v < l[k] ? v : l[k];
                h[k] = g == first || v > h[k] ? v : h[k];
            }
        }
    }
    job->nonzero[index] = zero;
}

/* §8.1, bit for bit: ranges over every frame of every animation, each step
 * rounded to float32. */
static ossa_status quantize_setup(iqm_writer *w)
{
    const ossa_model *m = w->model;
    const ossa_allocator *alloc = w->options->allocator;
    uint32_t nj = m->num_joints;
    ranges_job job = {m, ossa__workers(w->options->threads, w->num_frames, 64), w->num_frames,
                      NULL, NULL, NULL};
    w->masks = ossa__alloc(alloc, (nj + 1) * sizeof *w->masks);
    w->offsets = ossa__alloc(alloc, (nj + 1) * sizeof *w->offsets);
    w->scales = ossa__alloc(alloc, (nj + 1) * sizeof *w->scales);
    job.lo = ossa__alloc(alloc, ((size_t)job.workers * 20 * nj + job.workers) * sizeof(float));
    if (!w->masks || !w->offsets || !w->scales || !job.lo) {
        ossa__free(alloc, job.lo, 0);
        return ossa__fail_nomem(w->error);
    }
    job.hi = job.lo + (size_t)job.workers * 10 * nj;
    job.nonzero = job.hi + (size_t)job.workers * 10 * nj;
    bool first = w->num_frames == 0;
    if (!first) ossa__parallel(job.workers, ranges_worker, &job);
    for (uint32_t i = 0; !first && i < job.workers; i++)
        if (job.nonzero[i] != 0) {
            ossa__free(alloc, job.lo, 0);
            return check_frames_finite(w);
        }
    float(*hi)[10] = (float(*)[10])job.hi;
    memcpy(w->offsets, job.lo, (size_t)nj * sizeof *w->offsets);
    for (uint32_t i = 1; !first && i < job.workers; i++) {
        const float *l = job.lo + (size_t)i * 10 * nj, *h = job.hi + (size_t)i * 10 * nj;
        for (uint32_t j = 0; j < nj; j++)
            for (int k = 0; k < 10; k++) {
                float lv = l[10 * (size_t)j + (size_t)k], hv = h[10 * (size_t)j + (size_t)k];
                if (lv < w->offsets[j][k]) w->offsets[j][k] = lv;
                if (hv > hi[j][k]) hi[j][k] = hv;
            }
    }
    uint32_t channels = 0;
    for (uint32_t j = 0; j < nj; j++) {
        w->masks[j] = 0;
        for (int k = 0; k < 10; k++) {
            if (first) { /* animations without frames: the bind pose (§5 pads with zeros) */
                w->offsets[j][k] = 0;
                w->scales[j][k] = 0;
                continue;
            }
            volatile float range = hi[j][k] - w->offsets[j][k];
            if (range >= 1e-10f) {
                w->masks[j] |= 1u << k;
                w->scales[j][k] = stable_scale(w->offsets[j][k], range / 65535.0f);
                channels++;
            } else {
                w->scales[j][k] = 0;
            }
        }
    }
    ossa__free(alloc, job.lo, 0);
    set_header(w, IQM_H_NUM_FRAMECHANNELS, channels);
    return OSSA_OK;
}

/* The float arithmetic below is the compiler's and readers', step by step:
 * each step is its own statement, and C11 rounds every assignment to float
 * and fuses operations (FMA) only within one expression (6.5p8), so the
 * results are exact float32 steps without volatile stores. */

/* What a reader decodes from a sample: offset + sample * scale in float32. */
static float dequantize(uint32_t sample, float offset, float scale)
{
    float step = (float)sample * scale;
    float v = offset + step;
    return v;
}

/* The compiler's sample: r = 0.5 + (v - offset) / scale in float32 steps,
 * floored and clamped to [0, 65535]. r >= 0.5 for every v >= offset, so the
 * floor is a truncation; NaN (a channel range too wide for float: inf / inf)
 * is sample 0. Branch-free, so that loops over samples vectorize. */
static uint32_t compiler_sample(float v, float offset, float scale)
{
    float d = v - offset;
    float q = d / scale;
    float r = 0.5f + q;
    r = r >= 65535.0f ? 65535.0f : r;
    r = r > 0 ? r : 0;
    return (uint32_t)(int32_t)r;
}

/* The compiler's sample for v, unless v lies in a channel whose step is
 * finer than float resolution at its magnitude: there several samples
 * decode to the same float, and the compiler's sample for the decoded value
 * can differ from the one it chose for v. Taking the compiler's sample of
 * the decoded value instead (repeated until it settles, which takes one
 * step) decodes to the same float and makes decoding and encoding again
 * reproduce the file. Where each step is resolvable this is exactly the
 * compiler's sample, so ordinary channels match it bit for bit. */
static uint16_t quantize_settled(uint32_t s, float offset, float scale)
{
    for (int i = 0; i < 4; i++) {
        uint32_t again = compiler_sample(dequantize(s, offset, scale), offset, scale);
        if (again == s) break;
        s = again;
    }
    return (uint16_t)s;
}

/* One frame's samples: values[i] is the channel value of output slot i.
 * The common case (the sample decodes to a value whose sample is itself)
 * is checked for the whole frame in one vectorizable pass; the rest settle
 * one by one. */
static void quantize_frame(const float *values, const float *offsets, const float *scales,
                           uint32_t n, uint16_t *samples, unsigned char *out)
{
    uint32_t unsettled = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = compiler_sample(values[i], offsets[i], scales[i]);
        uint32_t again = compiler_sample(dequantize(s, offsets[i], scales[i]), offsets[i], scales[i]);
        unsettled |= s ^ again;
        samples[i] = (uint16_t)s;
    }
    if (unsettled)
        for (uint32_t i = 0; i < n; i++)
            samples[i] = quantize_settled(samples[i], offsets[i], scales[i]);
    for (uint32_t i = 0; i < n; i++) ossa__wr16(out + 2 * i, samples[i]);
}

static void put_floats(unsigned char *p, const float *v, int n)
{
    for (int i = 0; i < n; i++) ossa__wrf32(p + 4 * i, v[i]);
}

static void write_transform(unsigned char *p, const ossa_transform *t)
{
    float q[4];
    for (int k = 0; k < 4; k++) q[k] = channel(t, 3 + k);
    put_floats(p, t->translation, 3);
    put_floats(p + 12, q, 4);
    put_floats(p + 28, t->scale, 3);
}

static ossa_status write_vertex_data(iqm_writer *w, const uint32_t *order, uint32_t *array_offsets)
{
    const ossa_model *m = w->model;
    ossa__buf_pad(w->out, 8);
    size_t base = here(w);
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[order[i]];
        size_t cs = ossa_component_size(a->format);
        size_t align = cs > 4 ? cs : 4;
        size_t rel = here(w) - base;
        if (rel % align) ossa__buf_push(w->out, align - rel % align);
        array_offsets[i] = (uint32_t)here(w);
        size_t n = (size_t)m->num_vertices * a->size;
        unsigned char *p = ossa__buf_push(w->out, n * cs);
        if (p) ossa__copy_le(p, a->data, n, cs);
    }
    ossa__buf_pad(w->out, 4);
    return OSSA_OK;
}

/* adj: the adjacency of every triangle (3 per triangle), computed before. */
static ossa_status write_geometry(iqm_writer *w, const uint32_t *adj)
{
    const ossa_model *m = w->model;
    const ossa_allocator *alloc = w->options->allocator;
    if (m->num_meshes) {
        set_header(w, IQM_H_NUM_MESHES, m->num_meshes);
        set_header(w, IQM_H_OFS_MESHES, here(w));
        for (uint32_t i = 0; i < m->num_meshes; i++) {
            const ossa_mesh *me = &m->meshes[i];
            unsigned char *p = ossa__buf_push(w->out, IQM_MESH_SIZE);
            if (!p) break;
            ossa__wr32(p, strtab_add(&w->names, me->name));
            ossa__wr32(p + 4, strtab_add(&w->names, me->material));
            ossa__wr32(p + 8, me->first_vertex);
            ossa__wr32(p + 12, me->num_vertices);
            ossa__wr32(p + 16, me->first_triangle);
            ossa__wr32(p + 20, me->num_triangles);
        }
    }
    set_header(w, IQM_H_NUM_VERTEXES, m->num_vertices);
    if (m->num_vertex_arrays) {
        uint32_t *order = sorted_arrays(m, alloc);
        uint32_t *offsets = ossa__alloc(alloc, (m->num_vertex_arrays + 1) * sizeof *offsets);
        if (!order || !offsets) {
            ossa__free(alloc, order, 0);
            ossa__free(alloc, offsets, 0);
            return ossa__fail_nomem(w->error);
        }
        size_t records = here(w);
        set_header(w, IQM_H_NUM_VERTEXARRAYS, m->num_vertex_arrays);
        set_header(w, IQM_H_OFS_VERTEXARRAYS, records);
        ossa__buf_push(w->out, (size_t)m->num_vertex_arrays * IQM_VERTEXARRAY_SIZE);
        write_vertex_data(w, order, offsets);
        for (uint32_t i = 0; i < m->num_vertex_arrays && !w->out->failed; i++) {
            const ossa_vertex_array *a = &m->vertex_arrays[order[i]];
            unsigned char *p = w->out->data + records + (size_t)i * IQM_VERTEXARRAY_SIZE;
            uint32_t type = a->type == OSSA_VERTEX_CUSTOM
                                ? OSSA_VERTEX_CUSTOM + strtab_add(&w->names, a->name)
                                : (uint32_t)a->type;
            ossa__wr32(p, type);
            ossa__wr32(p + 8, (uint32_t)a->format);
            ossa__wr32(p + 12, a->size);
            ossa__wr32(p + 16, offsets[i]);
        }
        ossa__free(alloc, order, 0);
        ossa__free(alloc, offsets, 0);
    }
    if (m->num_triangles) {
        set_header(w, IQM_H_NUM_TRIANGLES, m->num_triangles);
        set_header(w, IQM_H_OFS_TRIANGLES, here(w));
        unsigned char *p = ossa__buf_push(w->out, (size_t)m->num_triangles * IQM_TRIANGLE_SIZE);
        for (uint32_t t = 0; p && t < m->num_triangles; t++)
            for (int k = 0; k < 3; k++) ossa__wr32(p + t * 12 + k * 4, m->triangles[t].v[k]);
        set_header(w, IQM_H_OFS_ADJACENCY, here(w));
        p = ossa__buf_push(w->out, (size_t)m->num_triangles * 12);
        for (size_t i = 0; p && i < (size_t)m->num_triangles * 3; i++) ossa__wr32(p + i * 4, adj[i]);
    }
    return OSSA_OK;
}

static void write_skeleton(iqm_writer *w)
{
    const ossa_model *m = w->model;
    if (w->write_joints) {
        set_header(w, IQM_H_NUM_JOINTS, m->num_joints);
        set_header(w, IQM_H_OFS_JOINTS, here(w));
        for (uint32_t j = 0; j < m->num_joints; j++) {
            unsigned char *p = ossa__buf_push(w->out, IQM_JOINT_SIZE);
            if (!p) return;
            ossa__wr32(p, strtab_add(&w->names, m->joints[j].name));
            ossa__wr32(p + 4, (uint32_t)m->joints[j].parent);
            write_transform(p + 8, &m->joints[j].bind);
        }
    }
    if (w->write_poses) {
        set_header(w, IQM_H_NUM_POSES, m->num_joints);
        set_header(w, IQM_H_OFS_POSES, here(w));
        for (uint32_t j = 0; j < m->num_joints; j++) {
            unsigned char *p = ossa__buf_push(w->out, IQM_POSE_SIZE);
            if (!p) return;
            ossa__wr32(p, (uint32_t)m->joints[j].parent);
            ossa__wr32(p + 4, w->masks[j]);
            put_floats(p + 8, w->offsets[j], 10);
            put_floats(p + 48, w->scales[j], 10);
        }
    }
}

/* The frame samples, a share of the frames (of every animation in order)
 * per worker. */
typedef struct quantize_job {
    const ossa_model *model;
    unsigned char *out; /* the first frame's samples */
    uint32_t nfc, workers, total; /* total: frames of every animation */
    uint32_t *source;        /* per slot: joint * 10 + channel */
    float *offsets, *scales; /* per slot */
    unsigned char *scratch;  /* per worker: nfc floats, 10 floats per joint, nfc u16 */
    size_t stride;           /* bytes of scratch per worker */
} quantize_job;

static void quantize_worker(void *ctx, uint32_t index)
{
    const quantize_job *job = ctx;
    const ossa_model *m = job->model;
    uint32_t nfc = job->nfc, first, end;
    ossa__share(job->total, job->workers, index, &first, &end);
    float *values = (float *)(job->scratch + (size_t)index * job->stride);
    float *channels = values + nfc; /* 10 per joint */
    uint16_t *samples = (uint16_t *)(channels + 10 * (size_t)m->num_joints);
    strip_walk walk = {m, 0, 0};
    for (uint32_t g = first; g < end; g++) {
        const ossa_transform *t = strip_frame(&walk, g);
        for (uint32_t j = 0; j < m->num_joints; j++) channel_row(&t[j], channels + 10 * (size_t)j);
        for (uint32_t i = 0; i < nfc; i++) values[i] = channels[job->source[i]];
        quantize_frame(values, job->offsets, job->scales, nfc, samples,
                       job->out + (size_t)g * nfc * 2);
    }
}

static void write_animations(iqm_writer *w)
{
    const ossa_model *m = w->model;
    if (!m->num_animations) return;
    set_header(w, IQM_H_NUM_ANIMS, m->num_animations);
    set_header(w, IQM_H_OFS_ANIMS, here(w));
    uint32_t first = 0;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        unsigned char *p = ossa__buf_push(w->out, IQM_ANIM_SIZE);
        if (!p) return;
        ossa__wr32(p, strtab_add(&w->names, an->name));
        ossa__wr32(p + 4, first);
        ossa__wr32(p + 8, an->num_frames);
        ossa__wrf32(p + 12, an->framerate);
        ossa__wr32(p + 16, an->flags);
        first += an->num_frames;
    }
    set_header(w, IQM_H_NUM_FRAMES, w->num_frames);
    uint32_t nfc = w->header[IQM_H_NUM_FRAMECHANNELS / 4];
    if (!w->write_poses || !nfc || !w->num_frames) return;
    set_header(w, IQM_H_OFS_FRAMES, here(w));
    unsigned char *p = ossa__buf_push(w->out, (size_t)w->num_frames * nfc * 2);
    if (!p) return;
    uint32_t workers = ossa__workers(w->options->threads, w->num_frames, 64);
    /* Per output slot: where its value comes from, its offset and scale;
     * then per worker, a frame's values and samples. */
    const ossa_allocator *alloc = w->options->allocator;
    size_t stride = ((size_t)nfc * (sizeof(float) + sizeof(uint16_t)) +
                     (size_t)m->num_joints * 10 * sizeof(float) + 15) & ~(size_t)15;
    quantize_job job = {m, p, nfc, workers, w->num_frames, NULL, NULL, NULL, NULL, stride};
    job.source = ossa__alloc(alloc, (size_t)nfc * sizeof *job.source);
    job.offsets = ossa__alloc(alloc, (size_t)nfc * 2 * sizeof *job.offsets);
    job.scratch = ossa__alloc(alloc, stride * workers);
    if (!job.source || !job.offsets || !job.scratch) {
        w->out->failed = true;
    } else {
        job.scales = job.offsets + nfc;
        uint32_t n = 0;
        for (uint32_t j = 0; j < m->num_joints; j++)
            for (int k = 0; k < 10; k++)
                if (w->masks[j] & (1u << k)) {
                    job.source[n] = j * 10 + (uint32_t)k;
                    job.offsets[n] = w->offsets[j][k];
                    job.scales[n] = w->scales[j][k];
                    n++;
                }
        ossa__parallel(workers, quantize_worker, &job);
    }
    ossa__free(alloc, job.source, 0);
    ossa__free(alloc, job.offsets, 0);
    ossa__free(alloc, job.scratch, 0);
    ossa__buf_pad(w->out, 4); /* the odd-count u16 of §5 */
}

static bool can_compute_bounds(const ossa_model *m)
{
    return m->num_joints && ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL) &&
           ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL) &&
           ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
}

static bool has_stored_bounds(const ossa_model *m)
{
    for (uint32_t a = 0; a < m->num_animations; a++)
        if (m->animations[a].num_frames && !m->animations[a].bounds) return false;
    return true;
}

static void put_bounds(unsigned char *p, const ossa_bounds *b)
{
    put_floats(p, b->min, 3);
    put_floats(p + 12, b->max, 3);
    ossa__wrf32(p + 24, b->xy_radius);
    ossa__wrf32(p + 28, b->radius);
}

/* Bounds computed from the poses a reader of this file will decode, not
 * from the unquantized model, so that they describe the file (and reading
 * and writing it again changes nothing). Each worker decodes its share of
 * the frames (of every animation in order) one at a time. */
typedef struct bounds_job {
    const iqm_writer *w;
    const ossa__bounds_prep *prep;
    unsigned char *out; /* the first frame's bounds */
    uint32_t workers;
    ossa_transform *poses; /* per worker: a frame */
    float *scratch;        /* per worker */
} bounds_job;

static void decode_frame(const iqm_writer *w, const unsigned char *p, ossa_transform *out)
{
    for (uint32_t j = 0; j < w->model->num_joints; j++) {
        float v[10];
        for (int k = 0; k < 10; k++) {
            v[k] = w->offsets[j][k];
            if (w->masks[j] & (1u << k)) {
                v[k] = dequantize(ossa__rd16(p), w->offsets[j][k], w->scales[j][k]);
                p += 2;
            }
        }
        memcpy(out[j].translation, v, sizeof out[j].translation);
        memcpy(out[j].rotation, v + 3, sizeof out[j].rotation);
        memcpy(out[j].scale, v + 7, sizeof out[j].scale);
        ossa__quat_tidy(out[j].rotation);
    }
}

static void bounds_worker(void *ctx, uint32_t index)
{
    const bounds_job *job = ctx;
    const iqm_writer *w = job->w;
    uint32_t nj = w->model->num_joints, nfc = w->header[IQM_H_NUM_FRAMECHANNELS / 4];
    uint32_t first, end;
    ossa__share(w->num_frames, job->workers, index, &first, &end);
    ossa_transform *pose = job->poses + (size_t)index * nj;
    float *scratch = job->scratch + (size_t)index * ossa__bounds_scratch_floats(job->prep);
    /* The samples are already in the output (frames precede bounds):
     * decode them rather than quantize every value a second time. */
    const unsigned char *samples = w->out->data + w->header[IQM_H_OFS_FRAMES / 4];
    for (uint32_t f = first; f < end; f++) {
        decode_frame(w, samples + (size_t)f * nfc * 2, pose);
        ossa_bounds b;
        ossa__bounds_of_pose(job->prep, pose, scratch, &b);
        put_bounds(job->out + (size_t)f * IQM_BOUNDS_SIZE, &b);
    }
}

static ossa_status computed_bounds(iqm_writer *w, ossa_bounds_mode mode, unsigned char *out)
{
    const ossa_model *m = w->model;
    const ossa_allocator *alloc = w->options->allocator;
    ossa__bounds_prep prep;
    if (ossa__bounds_prepare(m, mode, &prep, w->error) != OSSA_OK) return OSSA_FAILED;
    bounds_job job = {w, &prep, out, ossa__workers(w->options->threads, w->num_frames, 64),
                      NULL, NULL};
    size_t scratch = ossa__bounds_scratch_floats(&prep);
    job.poses = ossa__alloc(alloc, (size_t)job.workers * ((size_t)m->num_joints + 1) * sizeof *job.poses);
    job.scratch = ossa__alloc(alloc, (size_t)job.workers * scratch * sizeof *job.scratch);
    ossa_status st = OSSA_OK;
    if (!job.poses || !job.scratch)
        st = ossa__fail_nomem(w->error);
    else
        ossa__parallel(job.workers, bounds_worker, &job);
    ossa__free(alloc, job.poses, 0);
    ossa__free(alloc, job.scratch, 0);
    ossa__bounds_release(&prep);
    return st;
}

static ossa_status write_bounds(iqm_writer *w)
{
    const ossa_model *m = w->model;
    ossa_bounds_mode mode = w->options->bounds;
    if (!w->num_frames || mode == OSSA_BOUNDS_NONE) return OSSA_OK;
    bool compute = mode != OSSA_BOUNDS_STORED && w->write_poses && can_compute_bounds(m);
    if (!compute && !has_stored_bounds(m)) return OSSA_OK;
    if (mode == OSSA_BOUNDS_DEFAULT) mode = OSSA_BOUNDS_CONSERVATIVE;
    size_t at = here(w);
    if (!ossa__buf_push(w->out, (size_t)w->num_frames * IQM_BOUNDS_SIZE)) return OSSA_OK;
    set_header(w, IQM_H_OFS_BOUNDS, at);
    if (compute) return computed_bounds(w, mode, w->out->data + at);
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        for (uint32_t f = 0; f < an->num_frames; f++, at += IQM_BOUNDS_SIZE)
            put_bounds(w->out->data + at, &an->bounds[f]);
    }
    return OSSA_OK;
}

static void write_comment(iqm_writer *w)
{
    const ossa_model *m = w->model;
    if (!m->comment_size) return;
    set_header(w, IQM_H_OFS_COMMENT, here(w));
    ossa__buf_append(w->out, m->comment, m->comment_size);
    ossa__buf_push(w->out, 1);
    ossa__buf_pad(w->out, 4);
    set_header(w, IQM_H_NUM_COMMENT, here(w) - w->header[IQM_H_OFS_COMMENT / 4]);
}

static bool is_extension(const ossa_extra *e)
{
    return strncmp(e->key, IQM_EXTENSION_KEY, strlen(IQM_EXTENSION_KEY)) == 0;
}

/* Extensions: each record is followed by its data; the list links them in
 * model order. */
static void write_extensions(iqm_writer *w)
{
    const ossa_model *m = w->model;
    size_t prev_next = 0;
    uint32_t count = 0;
    for (uint32_t i = 0; i < m->num_extras; i++) {
        const ossa_extra *e = &m->extras[i];
        if (!is_extension(e)) continue;
        size_t at = here(w);
        unsigned char *p = ossa__buf_push(w->out, IQM_EXTENSION_SIZE);
        if (!p) return;
        ossa__wr32(p, strtab_add(&w->names, e->key + strlen(IQM_EXTENSION_KEY)));
        ossa__wr32(p + 4, (uint32_t)e->size);
        ossa__wr32(p + 8, e->size ? (uint32_t)(at + IQM_EXTENSION_SIZE) : 0);
        ossa__buf_append(w->out, e->data, e->size);
        ossa__buf_pad(w->out, 4);
        if (w->out->failed) return;
        if (count == 0)
            set_header(w, IQM_H_OFS_EXTENSIONS, at);
        else
            ossa__wr32(w->out->data + prev_next, (uint32_t)at);
        prev_next = at + 12;
        count++;
    }
    set_header(w, IQM_H_NUM_EXTENSIONS, count);
}

static ossa_status check_model(iqm_writer *w)
{
    const ossa_model *m = w->model;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++)
        if (m->vertex_arrays[i].size > 4)
            return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                              "the %s array has %u components per vertex; IQM holds at most 4",
                              ossa_vertex_type_name(m->vertex_arrays[i].type),
                              m->vertex_arrays[i].size);
    uint64_t frames = 0;
    for (uint32_t a = 0; a < m->num_animations; a++) frames += m->animations[a].num_frames;
    if (frames > UINT32_MAX)
        return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET, "too many frames");
    w->num_frames = (uint32_t)frames;
    return check_bind_finite(w);
}

/* Every name goes into the text block before any section is written, so
 * that the block can sit right after the header (§5) and every offset is
 * final when written. */
static void collect_names(iqm_writer *w)
{
    const ossa_model *m = w->model;
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        strtab_add(&w->names, m->meshes[i].name);
        strtab_add(&w->names, m->meshes[i].material);
    }
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++)
        if (m->vertex_arrays[i].type == OSSA_VERTEX_CUSTOM)
            strtab_add(&w->names, m->vertex_arrays[i].name);
    if (w->write_joints)
        for (uint32_t j = 0; j < m->num_joints; j++) strtab_add(&w->names, m->joints[j].name);
    for (uint32_t a = 0; a < m->num_animations; a++) strtab_add(&w->names, m->animations[a].name);
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (is_extension(&m->extras[i]))
            strtab_add(&w->names, m->extras[i].key + strlen(IQM_EXTENSION_KEY));
}

/* What precedes the output: the quantization ranges and the adjacency,
 * which need nothing of each other; with threads, side by side. */
typedef struct prepare_job {
    iqm_writer *w;
    uint32_t *adj;
    ossa_status setup, adjacency;
    ossa_error adjacency_error;
} prepare_job;

static void prepare_worker(void *ctx, uint32_t index)
{
    prepare_job *job = ctx;
    if (index == 0)
        job->setup = job->w->write_poses ? quantize_setup(job->w) : OSSA_OK;
    else if (job->adj)
        job->adjacency = ossa_model_compute_adjacency(job->w->model, job->adj, &job->adjacency_error);
}

static ossa_status prepare(iqm_writer *w, uint32_t *adj)
{
    prepare_job job = {w, adj, OSSA_OK, OSSA_OK, {0}};
    if (w->options->threads > 1 && w->write_poses && adj) {
        ossa__parallel(2, prepare_worker, &job);
    } else {
        prepare_worker(&job, 0);
        prepare_worker(&job, 1);
    }
    if (job.setup) return OSSA_FAILED;
    if (job.adjacency) {
        if (w->error) *w->error = job.adjacency_error;
        return OSSA_FAILED;
    }
    return OSSA_OK;
}

static ossa_status write_model(const ossa_model *model, const ossa_write_options *options,
                               ossa_buf *out, ossa_error *error)
{
    iqm_writer w;
    memset(&w, 0, sizeof w);
    w.model = model;
    w.options = options;
    w.error = error;
    w.out = out;
    w.write_joints = model->num_joints && !(model->flags & OSSA_MODEL_SKELETON_FROM_POSES);
    w.write_poses = model->num_animations && model->num_joints;
    if (check_model(&w)) return OSSA_FAILED;

    size_t expected = 2 * (size_t)model->num_meshes + model->num_joints + model->num_animations +
                      model->num_vertex_arrays + model->num_extras + 1;
    ossa_status st = OSSA_OK;
    if (!strtab_init(&w.names, options->allocator, expected)) st = ossa__fail_nomem(error);
    if (!st) collect_names(&w);
    uint32_t *adj = NULL;
    if (!st && model->num_triangles &&
        !(adj = ossa__alloc(options->allocator, (size_t)model->num_triangles * 3 * sizeof *adj)))
        st = ossa__fail_nomem(error);
    if (!st) st = prepare(&w, adj);
    if (!st) {
        size_t start = out->size;
        ossa__buf_push(out, IQM_HEADER_SIZE);
        if (w.names.text.size > 1) {
            set_header(&w, IQM_H_OFS_TEXT, here(&w));
            ossa__buf_append(out, w.names.text.data, w.names.text.size);
            ossa__buf_pad(out, 4);
            set_header(&w, IQM_H_NUM_TEXT, here(&w) - w.header[IQM_H_OFS_TEXT / 4]);
        }
        st = write_geometry(&w, adj);
        if (!st) {
            write_skeleton(&w);
            write_animations(&w);
            st = write_bounds(&w);
        }
        if (!st) {
            write_comment(&w);
            write_extensions(&w);
        }
        if (!st && (out->failed || w.names.text.failed)) st = ossa__fail_nomem(error);
        if (!st && out->size - start > UINT32_MAX)
            st = ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                            "the file would be larger than 4 GiB");
        if (!st) {
            set_header(&w, IQM_H_VERSION, 2);
            set_header(&w, IQM_H_FILESIZE, out->size - start);
            unsigned char *p = out->data + start;
            memcpy(p, IQM_MAGIC, 16);
            for (int f = IQM_H_VERSION; f < IQM_HEADER_SIZE; f += 4) ossa__wr32(p + f, w.header[f / 4]);
        }
    }
    ossa__free(options->allocator, adj, 0);
    strtab_release(&w.names);
    ossa__free(options->allocator, w.masks, 0);
    ossa__free(options->allocator, w.offsets, 0);
    ossa__free(options->allocator, w.scales, 0);
    return st;
}

ossa_status ossa__iqm_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error)
{
    /* Arrays of more than 4 components fail before any is converted. */
    iqm_writer w;
    memset(&w, 0, sizeof w);
    w.model = model;
    w.error = error;
    if (check_model(&w)) return OSSA_FAILED;
    /* The arrays in the pairs loaders read (arrays.c); bounds and adjacency
     * are computed from them, as a reader of the file sees them. */
    ossa_model view;
    if (ossa__iqm_arrays(model, options, &view, error)) return OSSA_FAILED;
    ossa_status st = write_model(&view, options, out, error);
    ossa__iqm_arrays_release(&view, model, options);
    return st;
}
