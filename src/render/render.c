/* ossa_render_run: one frame. The vertices are skinned and lit (spread
 * over threads by ranges) and the triangles sorted into bands of rows;
 * then each band is drawn from start to finish (clear, ground, model,
 * skeleton, resolve), bands spread over threads. */
#include "render/render.h"

#include <math.h>
#include <stdatomic.h>

#define MAX_THREADS 64

static const uint8_t default_background[4] = {48, 52, 60, 255};

/* -- Work memory -- */

static bool ensure(ossa_render_scene *s, void **buf, size_t *cap, size_t bytes)
{
    if (*cap >= bytes && *buf) return true;
    void *p = ossa__alloc(&s->allocator, bytes ? bytes : 1);
    if (!p) return false;
    ossa__free(&s->allocator, *buf, *cap);
    s->memory += bytes - *cap;
    *buf = p;
    *cap = bytes;
    return true;
}

/* The pose to skin by: the caller's, else the rest pose where it is not
 * the bind pose (NULL: the vertices as they are). */
static const float (*default_pose(const ossa_render_scene *s, const ossa_render_options *o))[16]
{
    if (o->pose) return o->pose;
    return s->rest_skins ? (const float(*)[16])s->rest_model : NULL;
}

static bool ensure_vertex_buffers(ossa_render_scene *s, bool skinned)
{
    size_t nv = s->num_vertices ? s->num_vertices : 1;
    if (!s->vertices) {
        s->vertices = ossa__alloc(&s->allocator, nv * sizeof *s->vertices);
        if (!s->vertices) return false;
        s->memory += nv * sizeof *s->vertices;
    }
    if (skinned && !s->skinned_positions) {
        s->skinned_positions = ossa__alloc(&s->allocator, nv * 3 * sizeof(float));
        s->skinned_normals = ossa__alloc(&s->allocator, nv * 3 * sizeof(float));
        if (!s->skinned_positions || !s->skinned_normals) {
            ossa__free(&s->allocator, s->skinned_positions, 0);
            ossa__free(&s->allocator, s->skinned_normals, 0);
            s->skinned_positions = s->skinned_normals = NULL;
            return false;
        }
        s->memory += nv * 6 * sizeof(float);
    }
    return true;
}

/* -- Options -- */

static ossa_status check(const ossa_render_scene *s, const ossa_render_options *o,
                         const ossa_render_image *im, ossa_error *error)
{
    if (!s || !o || !o->camera || !im || !im->pixels)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "a scene, options with a camera and an image with pixels are needed");
    if (im->width == 0 || im->height == 0 || im->width > RD_MAX_IMAGE_SIDE ||
        im->height > RD_MAX_IMAGE_SIDE)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "image size %ux%u out of range (1..%d on each side)",
                          (unsigned)im->width, (unsigned)im->height, RD_MAX_IMAGE_SIDE);
    if (im->stride && im->stride < (size_t)im->width * 4)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "image stride %zu is less than 4 * width", im->stride);
    if (o->supersample > 4)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "supersample %u out of range (0..4)", (unsigned)o->supersample);
    uint32_t ss = o->supersample ? o->supersample : 1;
    if ((uint64_t)im->width * ss > RD_MAX_SIDE || (uint64_t)im->height * ss > RD_MAX_SIDE)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the image times the supersampling exceeds %d pixels on a side",
                          RD_MAX_SIDE);
    if (o->pose && o->num_pose < s->num_joints)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the pose has %u matrices, the model %u joints", (unsigned)o->num_pose,
                          (unsigned)s->num_joints);
    if (o->flags & OSSA_RENDER_LIGHTING) {
        const float v[] = {o->light[0], o->light[1], o->light[2], o->ambient,
                           o->diffuse,  o->rim,      o->rim_power};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
            if (!isfinite(v[i]))
                return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                                  "lighting values must be finite");
        if (o->rim_power < 0)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "rim_power must not be negative");
    }
    return OSSA_OK;
}

static void make_shading(const ossa_render_options *o, rd_shading *sh)
{
    float l[3] = {-0.4f, 0.5f, 0.77f};
    sh->ambient = 0.35f, sh->diffuse = 0.7f, sh->rim = 0.25f, sh->rim_power = 3;
    if (o->flags & OSSA_RENDER_LIGHTING) {
        memcpy(l, o->light, sizeof l);
        sh->ambient = o->ambient, sh->diffuse = o->diffuse;
        sh->rim = o->rim, sh->rim_power = o->rim_power;
    }
    float len = sqrtf(rd_dot3(l, l));
    if (len > 0 && isfinite(len)) {
        for (int i = 0; i < 3; i++) sh->light[i] = l[i] / len;
    } else {
        sh->light[0] = sh->light[1] = 0, sh->light[2] = 1;
    }
    float p = sh->rim_power;
    sh->rim_power_int = (p == floorf(p) && p <= 8) ? (int)p : -1;
}

/* -- Bands -- */

/* Output rows per band. A band of a 1024-pixel-wide 2x2 supersampled
 * picture takes 512 KiB of colour and depth, which stays in cache from
 * the clear to the resolve. */
#define BAND_ROWS 32

typedef struct frame {
    ossa_render_scene *scene;
    const ossa_render_options *options;
    ossa_render_image *image;
    uint32_t ss, width, height; /* the supersampled picture */
    uint8_t bg[4];
    size_t band_color_size, band_depth_size; /* bytes of one worker's band buffers */
    rd_bins bins;
    bool draw_model;
    atomic_uint next_band;
} frame;

/* The first row by hand, the others copied from it (memcpy is wide where
 * the compiler may not vectorize a fill loop). */
static void clear(const rd_target *t, const uint8_t bg[4])
{
    const uint32_t rows = t->row1 - t->row0;
    uint8_t *c0 = t->color;
    float *z0 = t->depth;
    for (uint32_t x = 0; x < t->width; x++) {
        memcpy(c0 + (size_t)x * 4, bg, 4);
        z0[x] = 1.0f;
    }
    for (uint32_t y = 1; y < rows; y++) {
        memcpy(t->color + (size_t)y * t->stride, c0, (size_t)t->width * 4);
        memcpy(t->depth + (size_t)y * t->width, z0, (size_t)t->width * sizeof *z0);
    }
}

/* The rounded average of four RGBA pixels, each byte on its own: two
 * bytes per 16-bit lane, so one addition serves two channels. */
static uint32_t average4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    const uint32_t m = 0x00FF00FFu;
    uint32_t lo = (a & m) + (b & m) + (c & m) + (d & m) + 0x00020002u;
    uint32_t hi = (a >> 8 & m) + (b >> 8 & m) + (c >> 8 & m) + (d >> 8 & m) + 0x00020002u;
    return (lo >> 2 & m) | (hi >> 2 & m) << 8;
}

/* Box filter of ss x ss samples per output pixel, for the output rows
 * [y0, y1). Where some samples are transparent, colours are weighed by
 * their alpha, so that the background colour under transparent samples
 * does not bleed into edges. */
static void resolve(const rd_target *f, const ossa_render_image *im, uint32_t ss, uint32_t y0,
                    uint32_t y1)
{
    const uint32_t n = ss * ss;
    const size_t stride = im->stride ? im->stride : (size_t)im->width * 4;
    for (uint32_t y = y0; y < y1; y++) {
        uint8_t *out = im->pixels + (size_t)y * stride;
        const uint8_t *rows = f->color + (size_t)(y * ss - f->row0) * f->stride;
        uint32_t x;
        for (x = 0; x < im->width; x++) {
            if (ss == 2) {
                /* The default: 2x2 samples, most of them opaque. */
                const uint8_t *a = rows + (size_t)x * 8, *b = a + f->stride;
                if ((a[3] & a[7] & b[3] & b[7]) == 255) {
                    uint32_t p[4];
                    memcpy(&p[0], a, 8);
                    memcpy(&p[2], b, 8);
                    uint32_t avg = average4(p[0], p[1], p[2], p[3]);
                    memcpy(out + (size_t)x * 4, &avg, 4);
                    continue;
                }
            }
            uint32_t plain[3] = {0, 0, 0}, asum = 0;
            for (uint32_t sy = 0; sy < ss; sy++) {
                const uint8_t *in = rows + sy * f->stride + (size_t)x * ss * 4;
                for (uint32_t sx = 0; sx < ss; sx++, in += 4) {
                    plain[0] += in[0], plain[1] += in[1], plain[2] += in[2];
                    asum += in[3];
                }
            }
            uint8_t *o = out + (size_t)x * 4;
            if (asum == 255 * n || asum == 0) {
                /* Opaque, or all transparent (the background colour kept). */
                for (int c = 0; c < 3; c++) o[c] = (uint8_t)((plain[c] + n / 2) / n);
            } else {
                uint32_t sum[3] = {0, 0, 0};
                for (uint32_t sy = 0; sy < ss; sy++) {
                    const uint8_t *in = rows + sy * f->stride + (size_t)x * ss * 4;
                    for (uint32_t sx = 0; sx < ss; sx++, in += 4)
                        for (int c = 0; c < 3; c++) sum[c] += (uint32_t)in[c] * in[3];
                }
                for (int c = 0; c < 3; c++) o[c] = (uint8_t)((sum[c] + asum / 2) / asum);
            }
            o[3] = (uint8_t)((asum + n / 2) / n);
        }
        if (!im->depth) continue;
        for (x = 0; x < im->width; x++) {
            float zmin = 1.0f;
            for (uint32_t sy = 0; sy < ss; sy++) {
                const float *z = f->depth + (size_t)(y * ss + sy - f->row0) * f->width +
                                 (size_t)x * ss;
                for (uint32_t sx = 0; sx < ss; sx++)
                    if (z[sx] < zmin) zmin = z[sx];
            }
            im->depth[(size_t)y * im->width + x] = zmin;
        }
    }
}

/* One band from start to finish: clear, ground, model, skeleton, and the
 * average down to the output when supersampling. */
static void draw_band(frame *fr, uint32_t band, uint32_t worker)
{
    ossa_render_scene *s = fr->scene;
    const ossa_render_options *o = fr->options;
    ossa_render_image *im = fr->image;
    const uint32_t ss = fr->ss;
    const uint32_t out0 = band * BAND_ROWS;
    const uint32_t out1 = out0 + BAND_ROWS < im->height ? out0 + BAND_ROWS : im->height;
    rd_target t;
    t.width = fr->width, t.height = fr->height;
    t.row0 = out0 * ss, t.row1 = out1 * ss;
    if (ss == 1) {
        t.stride = im->stride ? im->stride : (size_t)im->width * 4;
        t.color = im->pixels + (size_t)t.row0 * t.stride;
    } else {
        t.stride = (size_t)t.width * 4;
        t.color = s->work.band_color + (size_t)worker * fr->band_color_size;
    }
    if (ss == 1 && im->depth)
        t.depth = im->depth + (size_t)t.row0 * t.width;
    else
        t.depth = s->work.band_depth + (size_t)worker * (fr->band_depth_size / sizeof(float));

    clear(&t, fr->bg);
    ossa__rd_draw_flats(&t, &s->work.under);
    if (fr->draw_model) {
        uint32_t first = fr->bins.start[band], end = fr->bins.start[band + 1];
        ossa__rd_raster(s, s->vertices, &t, fr->bins.items + first, end - first,
                        (o->flags & OSSA_RENDER_TWO_SIDED) != 0,
                        !(o->flags & OSSA_RENDER_NO_TEXTURES));
    }
    ossa__rd_draw_flats(&t, &s->work.over);
    if (ss > 1) resolve(&t, im, ss, out0, out1);
}

/* Each worker takes the next band until none is left: bands differ in
 * cost (the model fills some, others are empty), so they are handed out
 * as workers free up. Which worker draws a band does not change it. */
static void band_worker(void *ctx, uint32_t worker)
{
    frame *fr = ctx;
    uint32_t bands = (fr->image->height + BAND_ROWS - 1) / BAND_ROWS;
    for (;;) {
        uint32_t band = atomic_fetch_add(&fr->next_band, 1);
        if (band >= bands) break;
        draw_band(fr, band, worker);
    }
}

/* The blob under the model: centred under this frame's vertices, as wide
 * as they spread, fainter as the lowest of them rises off the ground. */
static void make_shadow(const ossa_render_camera *cam, const rd_vertex_job *jobs, uint32_t n,
                        rd_shadow *sh)
{
    memset(sh, 0, sizeof *sh);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            if (jobs[i].min[k] < lo[k]) lo[k] = jobs[i].min[k];
            if (jobs[i].max[k] > hi[k]) hi[k] = jobs[i].max[k];
        }
    if (!(lo[0] <= hi[0])) return;
    float e[2][3];
    ossa__rd_ground_axes(cam->up, e[0], e[1]);
    float c1 = 0.5f * (lo[0] + hi[0]), c2 = 0.5f * (lo[1] + hi[1]);
    float r1 = 0.6f * (hi[0] - lo[0]), r2 = 0.6f * (hi[1] - lo[1]);
    float rmax = fmaxf(r1, r2);
    if (!(rmax > 0) || !isfinite(rmax)) return;
    sh->radius[0] = fmaxf(r1, 0.4f * rmax);
    sh->radius[1] = fmaxf(r2, 0.4f * rmax);
    for (int j = 0; j < 3; j++)
        sh->center[j] = e[0][j] * c1 + e[1][j] * c2 + cam->up[j] * cam->ground;
    float lift = (lo[2] - cam->ground) / (2 * rmax);
    float k = 1 - (lift > 0 ? lift : 0);
    sh->strength = 0.45f * (k < 0.3f ? 0.3f : k);
}

/* Vertices go through the vertex stage in chunks whose bounds do not
 * depend on the number of threads: skinning kernels work on groups of
 * vertices, and a vertex must land in the same group (so get the same
 * rounding) however the work is split. */
#define VERTEX_CHUNK 4096

typedef struct vertex_work {
    rd_vertex_job jobs[MAX_THREADS]; /* one per worker, accumulating */
    uint32_t chunks, num_vertices;
    atomic_uint next_chunk;
} vertex_work;

static void vertex_worker(void *ctx, uint32_t worker)
{
    vertex_work *vw = ctx;
    rd_vertex_job *job = &vw->jobs[worker];
    for (;;) {
        uint32_t c = atomic_fetch_add(&vw->next_chunk, 1);
        if (c >= vw->chunks || job->status != OSSA_OK) break;
        job->first = c * VERTEX_CHUNK;
        job->count = vw->num_vertices - job->first < VERTEX_CHUNK ? vw->num_vertices - job->first
                                                                  : VERTEX_CHUNK;
        ossa__rd_vertex_stage(job);
    }
}

/* Skins and lights the vertices, spread over threads by chunks. */
static ossa_status vertex_stage(frame *fr, const rd_shading *sh, uint32_t threads,
                                rd_shadow *shadow, ossa_error *error)
{
    ossa_render_scene *s = fr->scene;
    const ossa_render_options *o = fr->options;
    const float(*pose)[16] = default_pose(s, o);
    bool skinned = pose && s->blend_indices;
    if (skinned) {
        ossa_skinning_matrices(s->num_joints, pose, (const float(*)[16])s->inverse_bind, s->skin);
        float *id = s->skin[s->num_joints];
        memset(id, 0, 16 * sizeof *id);
        id[0] = id[5] = id[10] = id[15] = 1;
    }
    vertex_work *vw = ossa__alloc(&s->allocator, sizeof *vw);
    if (!vw) return ossa__fail_nomem(error);
    vw->num_vertices = s->num_vertices;
    vw->chunks = (s->num_vertices + VERTEX_CHUNK - 1) / VERTEX_CHUNK;
    atomic_init(&vw->next_chunk, 0);
    uint32_t workers = threads < vw->chunks ? threads : vw->chunks;
    if (workers == 0) workers = 1;
    for (uint32_t i = 0; i < workers; i++) {
        rd_vertex_job *j = &vw->jobs[i];
        memset(j, 0, sizeof *j);
        j->scene = s, j->camera = o->camera, j->shading = sh;
        j->width = fr->width, j->height = fr->height;
        j->skinned = skinned, j->simd = o->simd;
        j->status = OSSA_OK;
        for (int k = 0; k < 3; k++) j->min[k] = INFINITY, j->max[k] = -INFINITY;
    }
    ossa__parallel(workers, vertex_worker, vw);
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < workers && !st; i++)
        if (vw->jobs[i].status != OSSA_OK) {
            if (error) *error = vw->jobs[i].error;
            st = OSSA_FAILED;
        }
    if (!st) make_shadow(o->camera, vw->jobs, workers, shadow);
    ossa__free(&s->allocator, vw, sizeof *vw);
    return st;
}

/* -- The frame -- */

ossa_status ossa_render_run(ossa_render_scene *scene, const ossa_render_options *given,
                            ossa_render_image *image, ossa_error *error)
{
    ossa_render_options copy;
    if (given && ossa__copy_sized(&copy, sizeof copy, given, RD_OPTIONS_0_2, "ossa_render_options", error))
        return OSSA_FAILED;
    const ossa_render_options *options = given ? &copy : NULL;
    if (check(scene, options, image, error)) return OSSA_FAILED;
    ossa_render_scene *s = scene;
    const ossa_render_options *o = options;
    const ossa_render_camera *cam = o->camera;
    uint32_t threads = o->threads ? o->threads : 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    frame fr;
    memset(&fr, 0, sizeof fr);
    fr.scene = s, fr.options = o, fr.image = image;
    fr.ss = o->supersample ? o->supersample : 1;
    fr.width = image->width * fr.ss, fr.height = image->height * fr.ss;
    bool default_bg = !o->background[0] && !o->background[1] && !o->background[2] &&
                      !o->background[3];
    memcpy(fr.bg, default_bg ? default_background : o->background, 4);
    if (o->flags & OSSA_RENDER_TRANSPARENT) fr.bg[3] = 0;
    rd_shading sh;
    make_shading(o, &sh);
    uint32_t bands = (image->height + BAND_ROWS - 1) / BAND_ROWS;
    uint32_t workers = threads < bands ? threads : bands;

    /* Work memory: band buffers for each worker that needs them. */
    rd_work *w = &s->work;
    size_t band_pixels = (size_t)fr.width * BAND_ROWS * fr.ss;
    fr.band_color_size = band_pixels * 4;
    fr.band_depth_size = band_pixels * sizeof(float);
    bool own_depth = fr.ss > 1 || !image->depth, own_color = fr.ss > 1;
    if ((own_color && !ensure(s, (void **)&w->band_color, &w->band_color_cap,
                              fr.band_color_size * workers)) ||
        (own_depth && !ensure(s, (void **)&w->band_depth, &w->band_depth_cap,
                              fr.band_depth_size * workers)))
        return ossa__fail_nomem(error);

    fr.draw_model = !(o->flags & OSSA_RENDER_HIDE_MODEL) && s->num_triangles > 0;
    ossa_status st = OSSA_OK;
    rd_shadow shadow;
    memset(&shadow, 0, sizeof shadow);
    if (fr.draw_model) {
        if (!ensure_vertex_buffers(s, default_pose(s, o) && s->blend_indices)) st = ossa__fail_nomem(error);
        if (!st) st = vertex_stage(&fr, &sh, threads, &shadow, error);
        fr.bins.band_rows = BAND_ROWS * fr.ss;
        if (!st && !ossa__rd_bin(s, s->vertices, fr.height, (o->flags & OSSA_RENDER_TWO_SIDED) != 0,
                                 threads, &fr.bins))
            st = ossa__fail_nomem(error);
    }
    w->under.count = w->over.count = 0;
    w->under.failed = w->over.failed = false;
    uint32_t caps = w->under.capacity + w->over.capacity;
    if (!st && (o->flags & OSSA_RENDER_GRID))
        ossa__rd_grid(&w->under, &s->allocator, cam, fr.width, fr.height, fr.ss);
    if (!st && fr.draw_model && (o->flags & OSSA_RENDER_SHADOW))
        ossa__rd_shadow(&w->under, &s->allocator, cam, fr.width, fr.height, &shadow);
    if (!st && (o->flags & OSSA_RENDER_SKELETON) && s->num_joints) {
        const float(*pose)[16] = o->pose ? o->pose : (const float(*)[16])s->rest_model;
        ossa__rd_skeleton(&w->over, &s->allocator, cam, fr.width, fr.height, s, pose, fr.ss);
    }
    s->memory += (size_t)(w->under.capacity + w->over.capacity - caps) * sizeof(rd_flat);
    if (!st && (w->under.failed || w->over.failed)) st = ossa__fail_nomem(error);
    if (!st) {
        atomic_init(&fr.next_band, 0);
        ossa__parallel(workers, band_worker, &fr);
    }
    return st;
}
