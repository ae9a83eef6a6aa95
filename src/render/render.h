/* Internals of the software renderer (src/render/): the scene, the
 * framebuffer, the vertex stage's output and the pieces that draw into a
 * framebuffer. Not installed. */
#ifndef OSSA_RENDER_INTERNAL_H
#define OSSA_RENDER_INTERNAL_H

#include "base/base.h"
#include "image/image.h"
#include "math/math.h"
#include "ossa/render.h"

/* The sizes of the option structs in ossa 0.2, what struct_size 0 means
 * (ossa__copy_sized): when a field is added, the offset of the new field. */
#define RD_SCENE_OPTIONS_0_2 sizeof(ossa_render_scene_options)
#define RD_CAMERA_OPTIONS_0_2 offsetof(ossa_render_camera_options, front)
#define RD_OPTIONS_0_2 sizeof(ossa_render_options)
#define RD_GIF_OPTIONS_0_2 sizeof(ossa_render_gif_options)

#include <stdbool.h>
#include <stdint.h>

/* Screen positions are fixed point with this many fraction bits. */
#define RD_SUBPIXEL_BITS 8
#define RD_ONE (1 << RD_SUBPIXEL_BITS)
/* Triangles are clipped to this many pixels around the framebuffer, so
 * that fixed-point coordinates stay below 2^23 and edge functions fit in
 * 64 bits. Framebuffers are at most RD_MAX_SIDE pixels on a side. */
#define RD_GUARD_PIXELS 16384
#define RD_MAX_SIDE 16384
#define RD_MAX_IMAGE_SIDE 8192
/* Pictures decoded for textures are capped so that a small hostile file
 * cannot ask for gigabytes: the limits of src/image's TGA decoder. */
#define RD_MAX_TEXTURE_SIDE OSSA_IMAGE_MAX_SIDE
#define RD_MAX_TEXTURE_PIXELS OSSA_IMAGE_MAX_PIXELS

/* Attributes carried from vertices to pixels. Lighting is computed for
 * both sides of a vertex so that a triangle seen from behind can be lit
 * with its normal turned over. */
enum {
    RD_LIGHT_FRONT, /* ambient + diffuse * max(0, n.l) */
    RD_LIGHT_BACK,  /* the same with -n */
    RD_RIM_FRONT,   /* rim * (1 - max(0, n.v))^power */
    RD_RIM_BACK,
    RD_U,
    RD_V,
    RD_R, /* the vertex colour (sRGB, 0..1), 1 without one */
    RD_G,
    RD_B,
    RD_ATTRS
};

/* Clip-space outcodes: which clipping planes a vertex is outside of. */
enum {
    RD_OUT_NEAR = 1,
    RD_OUT_FAR = 2,
    RD_OUT_LEFT = 4,
    RD_OUT_RIGHT = 8,
    RD_OUT_BOTTOM = 16,
    RD_OUT_TOP = 32,
    RD_OUT_INVALID = 64 /* not finite: its triangles are skipped */
};

typedef struct rd_vertex {
    float clip[4];
    float attr[RD_ATTRS];
    /* Valid when outcode is 0 (and filled again for clipped vertices). */
    int32_t x, y; /* screen position, RD_SUBPIXEL_BITS fraction bits, y down */
    float z;      /* window depth 0..1 */
    float inv_w;
    /* n.v: whether the normal faces the eye, which picks the lit side of
     * triangles in meshes whose winding cannot be trusted. */
    float facing;
    uint32_t outcode;
} rd_vertex;

enum { RD_CULL_BACK, RD_CULL_FRONT, RD_CULL_NONE };

typedef struct rd_material {
    float color[3];   /* multiplies the texture, 0..1 */
    float flat[3];    /* the colour without a texture, 0..255 */
    uint8_t *texture; /* owned; RGBA8 */
    uint32_t texture_width, texture_height;
    int cull;         /* RD_CULL_*: what is drawn */
    int cull_winding; /* RD_CULL_*: from the winding alone (single-sided) */
} rd_material;

/* A triangle in screen pixels (y down) of constant colour whose alpha is
 * interpolated from its corners (0..1), blended without depth: the grid,
 * the shadow and the skeleton are made of them. */
typedef struct rd_flat {
    float p[3][2];
    float alpha[3];
    float ymin, ymax; /* of the corners, to skip bands quickly */
    uint8_t rgb[3];
} rd_flat;

/* A list of them, built once per render and drawn band by band; the
 * storage is kept for the next render. */
typedef struct rd_flats {
    rd_flat *items;
    uint32_t count, capacity;
    bool failed; /* out of memory: the list is incomplete */
} rd_flats;

/* Memory of one render that the scene keeps for the next: per-thread
 * band buffers, triangle bins, overlay triangles. */
typedef struct rd_work {
    uint8_t *band_color; /* one band buffer per thread, back to back */
    float *band_depth;
    size_t band_color_cap, band_depth_cap; /* bytes */
    uint32_t *bin_start, *bin_items, *bin_ranges, *bin_slots;
    size_t bin_start_cap, bin_items_cap, bin_ranges_cap, bin_slots_cap; /* entries */
    rd_flats under; /* grid and shadow, drawn before the model */
    rd_flats over;  /* the skeleton, drawn after it */
} rd_work;

struct ossa_render_scene {
    ossa_allocator allocator;
    uint32_t flags;
    uint32_t num_vertices, num_triangles, num_meshes, num_joints;
    int generated_normals;
    ossa_bounds bind_bounds;

    float *positions; /* 3 per vertex, bind pose */
    float *normals;   /* 3 per vertex, unit */
    float *texcoords; /* 2 per vertex, or NULL */
    float *colors;    /* 3 per vertex (sRGB, 0..1, multiplying the albedo), or NULL */
    /* `influences` per vertex, or NULL for a model without blend data.
     * Weights sum to 1; vertices without usable weights point at the
     * identity matrix kept after the joints' (index num_joints). */
    uint16_t *blend_indices;
    float *blend_weights;
    uint32_t influences;

    uint32_t *triangles;        /* 3 per triangle */
    uint32_t *triangle_mesh;    /* material index per triangle */
    rd_material *materials;     /* num_meshes + 1: the last for triangles outside meshes */

    int32_t *parents;
    float (*inverse_bind)[16];  /* num_joints */
    /* num_joints model-space matrices of the pose without animation: the
     * rest pose (ossa_model.rest_pose), else the bind pose */
    float (*rest_model)[16];
    bool rest_skins; /* the rest pose is not the bind pose: skin at rest too */

    /* Work buffers of one render, grown on demand. */
    float (*skin)[16];          /* num_joints + 1 */
    float *skinned_positions, *skinned_normals;
    rd_vertex *vertices;
    rd_work work;
    size_t memory;
};

/* Rows of one band of the picture, and where they are drawn: straight
 * into the caller's image, or into a thread's band buffer that is then
 * averaged down when supersampling. */
typedef struct rd_target {
    uint32_t width, height; /* of the whole picture (supersampled) */
    uint32_t row0, row1;    /* the rows of this band: [row0, row1) */
    uint8_t *color;         /* row row0 */
    size_t stride;          /* bytes from one row of color to the next */
    float *depth;           /* row row0; `width` floats per row */
} rd_target;

/* Shading settings of one render. */
typedef struct rd_shading {
    float light[3]; /* unit, camera space */
    float ambient, diffuse, rim, rim_power;
    int rim_power_int; /* rim_power when it is a small whole number, else -1 */
} rd_shading;

/* -- scene.c -- */

/* ossa_render_scene_set_material; with `take`, material->texture was
 * allocated from the scene's allocator and the scene keeps it (freeing it
 * when replaced or with the scene) instead of copying it; on failure the
 * caller still owns it. */
ossa_status ossa__rd_set_material(ossa_render_scene *scene, uint32_t mesh,
                                  const ossa_render_material *material, bool take,
                                  ossa_error *error);

/* -- raster.c -- */

/* Triangle indices per band: items[start[b] .. start[b + 1]). A triangle
 * goes to every band its screen rows touch, in triangle order,
 * unless it is certainly not drawn (not finite, outside one clipping
 * plane, culled, no area). */
typedef struct rd_bins {
    uint32_t bands, band_rows; /* band b holds rows [b * band_rows, ...) */
    uint32_t *start;           /* bands + 1 */
    uint32_t *items;
} rd_bins;

/* Fills `bins` (arrays from the scene's work memory) on up to `threads`
 * threads; false when that memory cannot be had. */
bool ossa__rd_bin(ossa_render_scene *scene, const rd_vertex *vertices, uint32_t height,
                  bool two_sided, uint32_t threads, rd_bins *bins);

/* Draws the given triangles (scene indices) into the rows of the target. */
void ossa__rd_raster(const ossa_render_scene *scene, const rd_vertex *vertices,
                     const rd_target *target, const uint32_t *triangles, uint32_t count,
                     bool two_sided, bool textures);

/* A linear colour component (0..1) as sRGB, which the renderer works in. */
float ossa__rd_srgb_from_linear(float c);

/* -- shade.c: skinning and the vertex stage -- */

/* The size of the target and the guard band's extent in clip space. */
typedef struct rd_screen {
    float width, height;
    float gx, gy; /* |x| <= gx * w, |y| <= gy * w inside the guard band */
} rd_screen;

void ossa__rd_screen(rd_screen *s, uint32_t width, uint32_t height);
/* Screen position and depth of a clip-space vertex (outcode 0 or clipped
 * into the guard band). */
void ossa__rd_project(rd_vertex *v, const rd_screen *s);
/* The outcode of a clip-space position. */
uint32_t ossa__rd_outcode(const float clip[4], const rd_screen *s);

typedef struct rd_vertex_job {
    ossa_render_scene *scene;
    const ossa_render_camera *camera;
    const rd_shading *shading;
    uint32_t width, height; /* of the target */
    bool skinned;
    ossa_simd simd;
    uint32_t first, count; /* vertices */
    /* Out, accumulated over calls (the caller starts min at +inf and max
     * at -inf): extents of the skinned vertices along the ground's axes
     * (e1, e2, up) for the shadow. */
    float min[3], max[3];
    ossa_status status; /* set to OSSA_FAILED, with `error`, on failure */
    ossa_error error;
} rd_vertex_job;

void ossa__rd_vertex_stage(rd_vertex_job *job);

/* Two unit vectors spanning the ground plane of `up`. */
void ossa__rd_ground_axes(const float up[3], float e1[3], float e2[3]);

/* -- overlay.c: what is drawn besides the model -- */

/* Draws the triangles of the list that reach the target's rows. Closed on
 * the top-left like the model's, so neighbours sharing an edge blend once. */
void ossa__rd_draw_flats(const rd_target *t, const rd_flats *list);
/* Blends `rgb` with alpha a (0..1) over the pixel ("over", straight alpha). */
void ossa__rd_blend_pixel(uint8_t *dst, const uint8_t rgb[3], float a);

typedef struct rd_shadow {
    float center[3]; /* on the ground, model space */
    float radius[2]; /* along the ground axes e1, e2 */
    float strength;  /* peak alpha */
} rd_shadow;

/* Append the grid, the shadow blob and the skeleton's bones, for a
 * picture of width x height pixels (supersampled: `supersample` pixels
 * per output pixel, which sets line widths). */
void ossa__rd_grid(rd_flats *list, const ossa_allocator *a, const ossa_render_camera *camera,
                   uint32_t width, uint32_t height, uint32_t supersample);
void ossa__rd_shadow(rd_flats *list, const ossa_allocator *a, const ossa_render_camera *camera,
                     uint32_t width, uint32_t height, const rd_shadow *shadow);
void ossa__rd_skeleton(rd_flats *list, const ossa_allocator *a, const ossa_render_camera *camera,
                       uint32_t width, uint32_t height, const ossa_render_scene *scene,
                       const float (*pose)[16], uint32_t supersample);

/* -- quantize.c: GIF palettes -- */

typedef struct rd_cell {
    uint32_t count;
    uint64_t sum[3];
} rd_cell;

/* Work memory of the quantizer (about 1 MiB), kept between frames. */
typedef struct rd_quantizer {
    rd_cell hist[32768]; /* per 15-bit colour cell */
    uint32_t cells[32768];
    uint8_t map[32768]; /* cell -> palette index */
} rd_quantizer;

/* Picks at most max_colors (<= 256) colours for the pixels with alpha >=
 * 128 and writes each pixel's palette index (width per row) to `index`;
 * returns the number of colours. Indices of transparent pixels are
 * meaningless. */
uint32_t ossa__rd_quantize(rd_quantizer *q, const uint8_t *rgba, uint32_t width, uint32_t height,
                           size_t stride, uint32_t max_colors, uint8_t *index, uint8_t palette[][3]);

/* -- threads.c -- */

/* -- Fixed-point helpers shared by the rasterizers -- */

static inline int64_t rd_floor_div(int64_t a, int64_t b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The columns x0..x1 of a row where all three edge values are >= 0, the
 * values being e at column `first` and changing by step per column;
 * clamped to first..last. False when there are none. Exact: a span costs
 * three divisions instead of a test per pixel of the bounding box, which
 * matters for long thin triangles. */
static inline bool rd_row_span(const int64_t e[3], const int64_t step[3], int64_t first,
                               int64_t last, int64_t *x0, int64_t *x1)
{
    int64_t lo = first, hi = last;
    for (int i = 0; i < 3; i++) {
        if (step[i] > 0) {
            if (e[i] < 0) {
                int64_t k = (-e[i] + step[i] - 1) / step[i];
                if (first + k > lo) lo = first + k;
            }
        } else if (step[i] < 0) {
            if (e[i] < 0) return false;
            int64_t k = e[i] / -step[i];
            if (first + k < hi) hi = first + k;
        } else if (e[i] < 0) {
            return false;
        }
    }
    *x0 = lo;
    *x1 = hi;
    return lo <= hi;
}

/* -- Math helpers shared by the files here -- */

/* out = m * (v, w), m column-major. */
static inline void rd_mat4_apply(const float m[16], const float v[3], float w, float out[4])
{
    for (int r = 0; r < 4; r++)
        out[r] = m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * w;
}

static inline float rd_dot3(const float a[3], const float b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

#endif
