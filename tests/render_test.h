/* Helpers for the renderer's tests (test_render*.c): models built here,
 * cameras built by hand (not by the library's framing), a render call.
 * Header-only, so each test stays one file. */
#ifndef OSSA_RENDER_TEST_H
#define OSSA_RENDER_TEST_H

#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

/* -- Models -- */

/* Adds the 6 faces of an axis-aligned box (centre c, half size h) to the
 * arrays: 4 vertices and 2 triangles per face, face normals, texcoords,
 * clockwise seen from outside (the model's front faces: the outward
 * normal is cross(p2 - p0, p1 - p0)). */
static inline void rtt_box(float *pos, float *nrm, float *uv, ossa_triangle *tri, uint32_t *nv,
                           uint32_t *nt, const float c[3], float h)
{
    for (int axis = 0; axis < 3; axis++)
        for (int sign = -1; sign <= 1; sign += 2) {
            float n[3] = {0, 0, 0}, u[3] = {0, 0, 0}, v[3] = {0, 0, 0};
            n[axis] = (float)sign;
            /* u x v = n, so the corners below run counter-clockwise around n. */
            u[(axis + 1) % 3] = 1;
            v[(axis + 2) % 3] = (float)sign;
            static const float cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
            uint32_t base = *nv;
            for (int k = 0; k < 4; k++) {
                for (int i = 0; i < 3; i++) {
                    pos[(base + k) * 3 + i] = c[i] + h * (n[i] + cu[k] * u[i] + cv[k] * v[i]);
                    nrm[(base + k) * 3 + i] = n[i];
                }
                if (uv) uv[(base + k) * 2] = (cu[k] + 1) / 2, uv[(base + k) * 2 + 1] = (cv[k] + 1) / 2;
            }
            tri[(*nt)++] = (ossa_triangle){{base, base + 2, base + 1}};
            tri[(*nt)++] = (ossa_triangle){{base, base + 3, base + 2}};
            *nv += 4;
        }
}

/* A model made of the given vertices and triangles, in one mesh per
 * `mesh_triangles` entry (NULL: one mesh). Normals and texcoords may be
 * NULL. */
static inline ossa_model *rtt_model(const float *pos, const float *nrm, const float *uv,
                                    uint32_t nv, const ossa_triangle *tri, uint32_t nt,
                                    const uint32_t *mesh_triangles, uint32_t nmeshes)
{
    ts_array arrays[3] = {{OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos}};
    uint32_t na = 1;
    if (nrm) arrays[na++] = (ts_array){OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm};
    if (uv) arrays[na++] = (ts_array){OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv};
    ts_mesh meshes[16];
    char names[16][16];
    if (!mesh_triangles) {
        meshes[0] = (ts_mesh){"all", "", 0, nv, 0, nt};
        nmeshes = 1;
    } else {
        assert_true(nmeshes <= 16);
        uint32_t first = 0;
        for (uint32_t i = 0; i < nmeshes; i++) {
            snprintf(names[i], sizeof names[i], "mesh%u", (unsigned)i);
            meshes[i] = (ts_mesh){names[i], "", 0, nv, first, mesh_triangles[i]};
            first += mesh_triangles[i];
        }
    }
    ts_model_spec spec = {.num_vertices = nv, .num_arrays = na, .arrays = arrays,
                          .num_triangles = nt, .triangles = tri, .num_meshes = nmeshes,
                          .meshes = meshes};
    return ts_model_build(&spec);
}

/* Two triangles side by side in y = 0, one mesh with `material`: the left
 * one faces the front camera (-Y; clockwise seen from there), the right
 * one faces away. An open mesh. */
static inline ossa_model *rtt_facing_pair(const char *material)
{
    static const float pos[] = {-0.9f, 0, -0.5f, -0.1f, 0, -0.5f, -0.5f, 0, 0.5f,
                                0.1f,  0, -0.5f, 0.9f,  0, -0.5f, 0.5f,  0, 0.5f};
    static const ossa_triangle tri[2] = {{{0, 2, 1}}, {{3, 4, 5}}};
    static const ts_array position = {OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos};
    const ts_mesh pair = {"pair", material, 0, 6, 0, 2};
    ts_model_spec spec = {.num_vertices = 6, .num_arrays = 1, .arrays = &position,
                          .num_triangles = 2, .triangles = tri, .num_meshes = 1, .meshes = &pair};
    return ts_model_build(&spec);
}

/* The unit cube (-0.5..0.5 on each axis). */
static inline ossa_model *rtt_cube(void)
{
    float pos[24 * 3], nrm[24 * 3], uv[24 * 2];
    ossa_triangle tri[12];
    uint32_t nv = 0, nt = 0;
    const float c[3] = {0, 0, 0};
    rtt_box(pos, nrm, uv, tri, &nv, &nt, c, 0.5f);
    return rtt_model(pos, nrm, uv, nv, tri, nt, NULL, 0);
}

/* -- Cameras built by hand -- */

/* Looks from `eye` at `target` with `up` roughly up; orthographic with
 * half height `size`, or perspective with vertical field of view `size`
 * (degrees). */
static inline void rtt_camera(ossa_render_camera *c, const double eye[3], const double target[3],
                              const double up[3], int ortho, double size, double aspect,
                              double near_plane, double far_plane)
{
    double f[3], r[3], u[3], len;
    for (int i = 0; i < 3; i++) f[i] = target[i] - eye[i];
    len = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int i = 0; i < 3; i++) f[i] /= len;
    r[0] = f[1] * up[2] - f[2] * up[1];
    r[1] = f[2] * up[0] - f[0] * up[2];
    r[2] = f[0] * up[1] - f[1] * up[0];
    len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (int i = 0; i < 3; i++) r[i] /= len;
    u[0] = r[1] * f[2] - r[2] * f[1];
    u[1] = r[2] * f[0] - r[0] * f[2];
    u[2] = r[0] * f[1] - r[1] * f[0];
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 3; i++) {
        c->view[i * 4 + 0] = (float)r[i];
        c->view[i * 4 + 1] = (float)u[i];
        c->view[i * 4 + 2] = (float)-f[i];
    }
    c->view[12] = (float)-(r[0] * eye[0] + r[1] * eye[1] + r[2] * eye[2]);
    c->view[13] = (float)-(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    c->view[14] = (float)(f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2]);
    c->view[15] = 1;
    double n = near_plane, fa = far_plane;
    if (ortho) {
        c->projection[0] = (float)(1 / (size * aspect));
        c->projection[5] = (float)(1 / size);
        c->projection[10] = (float)(-2 / (fa - n));
        c->projection[14] = (float)(-(fa + n) / (fa - n));
        c->projection[15] = 1;
    } else {
        double t = 1 / tan(size * 3.14159265358979323846 / 360);
        c->projection[0] = (float)(t / aspect);
        c->projection[5] = (float)t;
        c->projection[10] = (float)((fa + n) / (n - fa));
        c->projection[11] = -1;
        c->projection[14] = (float)(2 * fa * n / (n - fa));
    }
    c->orthographic = ortho;
    c->near_plane = (float)n;
    c->far_plane = (float)fa;
    c->up[2] = 1;
}

/* Where a model-space point lands on a width x height picture (pixels, y
 * down), computed in double from the camera's matrices. */
static inline void rtt_project(const ossa_render_camera *c, const double p[3], int width,
                               int height, double out[2])
{
    double v[4], clip[4];
    for (int r = 0; r < 4; r++)
        v[r] = c->view[r] * p[0] + c->view[4 + r] * p[1] + c->view[8 + r] * p[2] + c->view[12 + r];
    for (int r = 0; r < 4; r++)
        clip[r] = c->projection[r] * v[0] + c->projection[4 + r] * v[1] +
                  c->projection[8 + r] * v[2] + c->projection[12 + r] * v[3];
    out[0] = (clip[0] / clip[3] * 0.5 + 0.5) * width;
    out[1] = (0.5 - clip[1] / clip[3] * 0.5) * height;
}

/* -- Rendering -- */

typedef struct rtt_image {
    ossa_render_image image;
    uint8_t *pixels;
    float *depth;
} rtt_image;

static inline void rtt_image_init(rtt_image *im, uint32_t w, uint32_t h)
{
    im->pixels = calloc((size_t)w * h, 4);
    im->depth = calloc((size_t)w * h, sizeof(float));
    assert_non_null(im->pixels);
    assert_non_null(im->depth);
    im->image = (ossa_render_image){w, h, im->pixels, 0, im->depth};
}

static inline void rtt_image_free(rtt_image *im)
{
    free(im->pixels);
    free(im->depth);
}

static inline const uint8_t *rtt_pixel(const rtt_image *im, uint32_t x, uint32_t y)
{
    return im->pixels + ((size_t)y * im->image.width + x) * 4;
}

/* Lighting that leaves the albedo as it is: ambient 1, nothing else. */
static inline void rtt_flat_lighting(ossa_render_options *o)
{
    o->flags |= OSSA_RENDER_LIGHTING;
    o->light[2] = 1;
    o->ambient = 1;
    o->diffuse = 0;
    o->rim = 0;
    o->rim_power = 1;
}

/* A camera framed by the library on the model's bind-pose bounds, from the
 * front, orthographic, for a w x h picture. */
static inline void rtt_frame_front(const ossa_model *m, uint32_t w, uint32_t h,
                                   ossa_render_camera *cam)
{
    ossa_error e;
    ossa_bounds b;
    assert_int_equal(ossa_render_bounds(m, OSSA_BIND_POSE, &b, &e), OSSA_OK);
    ossa_render_camera_options co;
    memset(&co, 0, sizeof co);
    co.view = OSSA_RENDER_VIEW_FRONT;
    co.flags = OSSA_RENDER_CAMERA_ORTHOGRAPHIC;
    assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, w, h, cam, &e), OSSA_OK);
}

static inline void rtt_run(ossa_render_scene *scene, const ossa_render_options *o, rtt_image *im)
{
    ossa_error e;
    ossa_status st = ossa_render_run(scene, o, &im->image, &e);
    if (st != OSSA_OK) fail_msg("render failed: %s", e.message);
}

static inline void rtt_set_color(ossa_render_scene *scene, uint32_t mesh, float r, float g, float b)
{
    ossa_render_material m;
    memset(&m, 0, sizeof m);
    m.color[0] = r, m.color[1] = g, m.color[2] = b, m.color[3] = 1;
    ossa_error e;
    assert_int_equal(ossa_render_scene_set_material(scene, mesh, &m, &e), OSSA_OK);
}

/* -- JPEG files, written with libjpeg itself -- */

/* A JPEG of w x h pixels of `channels` (1: grey, 3: RGB) bytes each, at
 * `quality`, without chroma subsampling, baseline or progressive; a
 * malloc'd buffer of *size bytes. */
static inline unsigned char *rtt_jpeg_encode(const uint8_t *px, uint32_t w, uint32_t h,
                                             int channels, int quality, bool progressive,
                                             size_t *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    unsigned char *buf = NULL;
    unsigned long len = 0;
    jpeg_mem_dest(&c, &buf, &len);
    c.image_width = w, c.image_height = h;
    c.input_components = channels;
    c.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, quality, TRUE);
    for (int i = 0; i < c.num_components; i++)
        c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
    if (progressive) jpeg_simple_progression(&c);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < h) {
        JSAMPROW row = (JSAMPROW)(px + (size_t)c.next_scanline * w * (size_t)channels);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    /* libjpeg's buffer comes from malloc. */
    *size = len;
    return buf;
}

/* 16 x 16 RGB: 8 x 8 blocks of red, green / blue, white (JPEG's own block
 * size, so that every block is one flat colour). */
static inline void rtt_quadrants(uint8_t px[16 * 16 * 3])
{
    static const uint8_t colours[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++)
            memcpy(px + (y * 16 + x) * 3, colours[(y / 8) * 2 + x / 8], 3);
}

#endif
