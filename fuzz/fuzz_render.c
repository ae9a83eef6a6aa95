/*
 * Renderer fuzz target: the input describes a model, a pose, a camera and
 * render options byte by byte, so that every float bit pattern (NaN,
 * infinities, huge and denormal values) reaches the rasterizer, the
 * clipper, the skinning and the overlays. Nothing may crash, and a render
 * that is asked for within the documented limits must succeed. Bytes past
 * the end of the input read as zero.
 *
 * Layout (fuzz/make_render_corpus.py writes seeds in it):
 *   0      flags: bit 0 grid, 1 shadow, 2 skeleton, 3 transparent,
 *          4 two-sided, 5 orthographic, 6 camera from the input instead of
 *          framing, 7 texture
 *   1      view (mod 6)      2  supersample (mod 5)   3  threads (mod 4, + 1)
 *   4      width - 1 (mod 64)  5  height - 1 (mod 64)
 *   6..7   vertices (mod 257)   8..9  triangles (mod 513)   10  joints (mod 9)
 *   then   3 floats per vertex (positions), 2 per vertex (texcoords),
 *          3 indices (u16, mod vertices) per triangle, one parent byte
 *          (mod joint index + 1, minus 1) and 16 floats (pose) per joint,
 *          one joint byte per vertex (its single influence), 32 floats of
 *          camera (view, projection) with bit 6, 16 RGBA texels with bit 7.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ossa.h"

typedef struct input {
    const uint8_t *data;
    size_t size, at;
} input;

static uint8_t byte(input *in)
{
    return in->at < in->size ? in->data[in->at++] : (in->at++, 0);
}

static uint16_t u16(input *in)
{
    uint16_t lo = byte(in);
    return (uint16_t)(lo | byte(in) << 8);
}

static float f32(input *in)
{
    uint32_t u = 0;
    for (int i = 0; i < 4; i++) u |= (uint32_t)byte(in) << (8 * i);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static ossa_model *build(input *in, uint32_t nv, uint32_t nt, uint32_t nj, float (*pose)[16])
{
    ossa_model *m = ossa_model_create(NULL);
    if (!m) return NULL;
    float *pos = malloc((size_t)(nv ? nv : 1) * 3 * sizeof *pos);
    float *uv = malloc((size_t)(nv ? nv : 1) * 2 * sizeof *uv);
    float *joint = malloc((size_t)(nv ? nv : 1) * 4 * sizeof *joint);
    float *weight = malloc((size_t)(nv ? nv : 1) * 4 * sizeof *weight);
    ossa_triangle *tri = malloc((size_t)(nt ? nt : 1) * sizeof *tri);
    ossa_error e;
    bool ok = pos && uv && joint && weight && tri;
    for (uint32_t i = 0; ok && i < nv * 3; i++) pos[i] = f32(in);
    for (uint32_t i = 0; ok && i < nv * 2; i++) uv[i] = f32(in);
    for (uint32_t t = 0; ok && t < nt; t++)
        for (int k = 0; k < 3; k++) tri[t].v[k] = nv ? u16(in) % nv : 0;
    for (uint32_t j = 0; ok && j < nj; j++) {
        int32_t parent = (int32_t)(byte(in) % (j + 1)) - 1;
        ossa_transform bind = ossa_transform_identity();
        bind.translation[2] = (float)j;
        ok = ossa_model_add_joint(m, "", parent, &bind, &e) >= 0;
        for (int k = 0; k < 16; k++) pose[j][k] = f32(in);
    }
    for (uint32_t v = 0; ok && v < nv; v++) {
        memset(&joint[v * 4], 0, 4 * sizeof *joint);
        memset(&weight[v * 4], 0, 4 * sizeof *weight);
        joint[v * 4] = nj ? (float)(byte(in) % nj) : 0;
        weight[v * 4] = 1;
    }
    ok = ok && ossa_model_set_num_vertices(m, nv, &e) == OSSA_OK &&
         (nv == 0 ||
          (ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, &e) &&
           ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv, &e))) &&
         (nv == 0 || nj == 0 ||
          (ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL,
                                              joint, &e) &&
           ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, NULL,
                                              weight, &e))) &&
         ossa_model_set_triangles(m, nt, tri, &e) == OSSA_OK &&
         ossa_model_add_mesh(m, "m", "", 0, nv, 0, nt, &e) >= 0;
    free(pos), free(uv), free(joint), free(weight), free(tri);
    if (!ok) {
        ossa_model_free(m);
        return NULL;
    }
    return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size, 0};
    uint8_t flags = byte(&in), view = byte(&in) % 6, ss = byte(&in) % 5;
    uint32_t threads = byte(&in) % 4 + 1;
    uint32_t w = byte(&in) % 64 + 1, h = byte(&in) % 64 + 1;
    uint32_t nv = u16(&in) % 257, nt = u16(&in) % 513, nj = byte(&in) % 9;
    float pose[8][16];
    ossa_model *m = build(&in, nv, nt, nj, pose);
    if (!m) return 0;
    ossa_error e;
    ossa_render_scene_options so = {0, NULL, (flags & 16) ? OSSA_RENDER_SCENE_TWO_SIDED : 0};
    ossa_render_scene *scene = ossa_render_scene_create(m, &so, &e);
    if (!scene) __builtin_trap(); /* a valid model always makes a scene */

    ossa_render_camera cam;
    if (flags & 64) {
        memset(&cam, 0, sizeof cam);
        for (int k = 0; k < 16; k++) cam.view[k] = f32(&in);
        for (int k = 0; k < 16; k++) cam.projection[k] = f32(&in);
        cam.up[2] = 1;
        cam.grid_spacing = f32(&in);
        cam.grid_extent = f32(&in);
    } else {
        ossa_bounds b;
        if (ossa_render_bounds(m, OSSA_BIND_POSE, &b, &e) != OSSA_OK) __builtin_trap();
        ossa_render_camera_options co = {0};
        co.view = (ossa_render_view)view;
        co.flags = (flags & 32) ? OSSA_RENDER_CAMERA_ORTHOGRAPHIC : 0;
        if (ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, w, h, &cam, &e) != OSSA_OK)
            __builtin_trap();
    }
    if (flags & 128) {
        uint8_t texels[16 * 4];
        for (size_t i = 0; i < sizeof texels; i++) texels[i] = byte(&in);
        ossa_render_material mat = {{0}, texels, 4, 4};
        if (ossa_render_scene_set_material(scene, 0, &mat, &e) != OSSA_OK) __builtin_trap();
    }
    uint8_t *pixels = malloc((size_t)w * h * 4);
    float *depth = malloc((size_t)w * h * sizeof *depth);
    if (pixels && depth) {
        ossa_render_image image = {w, h, pixels, 0, depth};
        ossa_render_options o = {0};
        o.camera = &cam;
        o.flags = (flags & 1 ? OSSA_RENDER_GRID : 0) | (flags & 2 ? OSSA_RENDER_SHADOW : 0) |
                  (flags & 4 ? OSSA_RENDER_SKELETON : 0) |
                  (flags & 8 ? OSSA_RENDER_TRANSPARENT : 0);
        o.supersample = ss;
        o.threads = threads;
        if (nj) {
            o.pose = (const float(*)[16])pose;
            o.num_pose = nj;
        }
        if (ossa_render_run(scene, &o, &image, &e) != OSSA_OK) __builtin_trap();
        /* Every depth is a window depth. */
        for (size_t i = 0; i < (size_t)w * h; i++)
            if (!(depth[i] >= 0 && depth[i] <= 1)) __builtin_trap();
    }
    free(pixels);
    free(depth);
    ossa_render_scene_free(scene);
    ossa_model_free(m);
    return 0;
}
