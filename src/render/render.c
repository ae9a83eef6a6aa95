/* ossa_render_run: one frame, pass by pass (clear, ground, vertices,
 * shadow, triangles, skeleton, resolve), the heavy passes spread over
 * threads. */
#include "render/render.h"

#include <math.h>

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

/* -- Passes -- */

static void clear(rd_target *t, const uint8_t bg[4])
{
    uint8_t *row0 = t->color;
    for (uint32_t x = 0; x < t->width; x++) memcpy(row0 + (size_t)x * 4, bg, 4);
    for (uint32_t y = 1; y < t->height; y++)
        memcpy(t->color + (size_t)y * t->stride, row0, (size_t)t->width * 4);
    size_t n = (size_t)t->width * t->height;
    for (size_t i = 0; i < n; i++) t->depth[i] = 1.0f;
}

static void vertex_call(void *ctx, uint32_t index)
{
    ossa__rd_vertex_stage(&((rd_vertex_job *)ctx)[index]);
}

static void raster_call(void *ctx, uint32_t index)
{
    ossa__rd_raster(&((rd_raster_job *)ctx)[index]);
}

typedef struct resolve_job {
    const rd_target *from;
    const ossa_render_image *to;
    uint32_t ss, first_row, rows;
} resolve_job;

/* Box filter of ss x ss samples per pixel; where some samples are
 * transparent, colours are weighed by their alpha, so that the background
 * colour under transparent samples does not bleed into edges. */
static void resolve_rows(const resolve_job *j)
{
    const rd_target *f = j->from;
    const ossa_render_image *im = j->to;
    const uint32_t ss = j->ss, n = ss * ss;
    const size_t stride = im->stride ? im->stride : (size_t)im->width * 4;
    for (uint32_t y = j->first_row; y < j->first_row + j->rows; y++) {
        uint8_t *out = im->pixels + (size_t)y * stride;
        const uint8_t *rows = f->color + (size_t)y * ss * f->stride;
        uint32_t x;
        for (x = 0; x < im->width; x++) {
            if (ss == 2) {
                /* The default: 2x2 samples, most of them opaque. */
                const uint8_t *a = rows + (size_t)x * 8, *b = a + f->stride;
                if ((a[3] & a[7] & b[3] & b[7]) == 255) {
                    uint8_t *o = out + (size_t)x * 4;
                    for (int c = 0; c < 3; c++)
                        o[c] = (uint8_t)((a[c] + a[4 + c] + b[c] + b[4 + c] + 2) >> 2);
                    o[3] = 255;
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
                const float *z = f->depth + (size_t)(y * ss + sy) * f->width + (size_t)x * ss;
                for (uint32_t sx = 0; sx < ss; sx++)
                    if (z[sx] < zmin) zmin = z[sx];
            }
            im->depth[(size_t)y * im->width + x] = zmin;
        }
    }
}

static void resolve_call(void *ctx, uint32_t index)
{
    resolve_rows(&((resolve_job *)ctx)[index]);
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

/* -- The frame -- */

ossa_status ossa_render_run(ossa_render_scene *scene, const ossa_render_options *options,
                            ossa_render_image *image, ossa_error *error)
{
    if (check(scene, options, image, error)) return OSSA_FAILED;
    ossa_render_scene *s = scene;
    const ossa_render_options *o = options;
    const ossa_render_camera *cam = o->camera;
    uint32_t ss = o->supersample ? o->supersample : 1;
    uint32_t threads = o->threads ? o->threads : 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    rd_shading sh;
    make_shading(o, &sh);
    uint8_t bg[4];
    bool default_bg = !o->background[0] && !o->background[1] && !o->background[2] &&
                      !o->background[3];
    memcpy(bg, default_bg ? default_background : o->background, 4);
    if (o->flags & OSSA_RENDER_TRANSPARENT) bg[3] = 0;

    rd_target t;
    memset(&t, 0, sizeof t);
    t.width = image->width * ss;
    t.height = image->height * ss;
    t.transparent = (o->flags & OSSA_RENDER_TRANSPARENT) != 0;
    size_t pixels = (size_t)t.width * t.height;
    if (ss == 1) {
        t.color = image->pixels;
        t.stride = image->stride ? image->stride : (size_t)image->width * 4;
    } else {
        if (!ensure(s, (void **)&s->work_color, &s->work_color_size, pixels * 4))
            return ossa__fail_nomem(error);
        t.color = s->work_color;
        t.stride = (size_t)t.width * 4;
    }
    if (ss == 1 && image->depth) {
        t.depth = image->depth;
    } else {
        if (!ensure(s, (void **)&s->work_depth, &s->work_depth_size, pixels * sizeof(float)))
            return ossa__fail_nomem(error);
        t.depth = s->work_depth;
    }
    bool draw_model = !(o->flags & OSSA_RENDER_HIDE_MODEL) && s->num_triangles > 0;
    bool skinned = o->pose && s->blend_indices;
    if (draw_model && !ensure_vertex_buffers(s, skinned)) return ossa__fail_nomem(error);

    clear(&t, bg);
    if (o->flags & OSSA_RENDER_GRID) ossa__rd_draw_grid(&t, cam, ss);

    if (draw_model) {
        if (skinned) {
            ossa_skinning_matrices(s->num_joints, o->pose, (const float(*)[16])s->inverse_bind,
                                   s->skin);
            float *id = s->skin[s->num_joints];
            memset(id, 0, 16 * sizeof *id);
            id[0] = id[5] = id[10] = id[15] = 1;
        }
        rd_vertex_job vjobs[MAX_THREADS];
        /* Small models are not worth a thread per part. */
        uint32_t vparts = (s->num_vertices + 4095) / 4096;
        if (vparts > threads) vparts = threads;
        if (vparts == 0) vparts = 1;
        for (uint32_t i = 0; i < vparts; i++) {
            rd_vertex_job *j = &vjobs[i];
            memset(j, 0, sizeof *j);
            j->scene = s, j->camera = cam, j->shading = &sh;
            j->width = t.width, j->height = t.height;
            j->skinned = skinned, j->simd = o->simd;
            j->first = (uint32_t)((uint64_t)s->num_vertices * i / vparts);
            j->count = (uint32_t)((uint64_t)s->num_vertices * (i + 1) / vparts) - j->first;
        }
        ossa__rd_parallel(vparts, vertex_call, vjobs);
        for (uint32_t i = 0; i < vparts; i++)
            if (vjobs[i].status != OSSA_OK) {
                if (error) *error = vjobs[i].error;
                return OSSA_FAILED;
            }
        if (o->flags & OSSA_RENDER_SHADOW) {
            rd_shadow shadow;
            make_shadow(cam, vjobs, vparts, &shadow);
            ossa__rd_draw_shadow(&t, cam, &shadow);
        }
        rd_raster_job rjobs[MAX_THREADS];
        for (uint32_t i = 0; i < threads; i++) {
            rd_raster_job *j = &rjobs[i];
            j->scene = s, j->vertices = s->vertices, j->target = &t;
            j->two_sided = (o->flags & OSSA_RENDER_TWO_SIDED) != 0;
            j->textures = !(o->flags & OSSA_RENDER_NO_TEXTURES);
            j->part = i, j->parts = threads;
        }
        ossa__rd_parallel(threads, raster_call, rjobs);
    }
    if ((o->flags & OSSA_RENDER_SKELETON) && s->num_joints) {
        const float(*pose)[16] = o->pose ? o->pose : (const float(*)[16])s->bind_model;
        ossa__rd_draw_skeleton(&t, cam, s, pose, ss);
    }

    if (ss > 1) {
        resolve_job jobs[MAX_THREADS];
        uint32_t parts = threads < image->height ? threads : image->height;
        for (uint32_t i = 0; i < parts; i++) {
            uint32_t a = (uint32_t)((uint64_t)image->height * i / parts);
            uint32_t b = (uint32_t)((uint64_t)image->height * (i + 1) / parts);
            jobs[i] = (resolve_job){&t, image, ss, a, b - a};
        }
        ossa__rd_parallel(parts, resolve_call, jobs);
    }
    return OSSA_OK;
}
