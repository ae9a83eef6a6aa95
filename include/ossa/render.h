/*
 * ossa/render.h — a software renderer: pictures of a posed, skinned model
 * (PNG, GIF) with no GPU and no display. Link: pkg-config ossa-render
 * (libossa-render, with libpng, libjpeg and giflib). Conventions:
 * ossa/common.h.
 */
#ifndef OSSA_RENDER_H
#define OSSA_RENDER_H

#include "ossa/model.h"
#include "ossa/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -- Rendering -------------------------------------------------------------
 *
 * A software rasterizer: draws a posed, skinned model into a caller-owned
 * RGBA8 image, with no GPU, no display and no global state. A scene holds
 * what does not change from frame to frame (decoded vertices, normals,
 * materials, textures) plus the work buffers of one render; a camera says
 * where the model is seen from; ossa_render_run draws one frame. Output is
 * deterministic: the same scene, options and pose give the same bytes on
 * every run and with any number of threads.
 *
 * Shading, per vertex and interpolated perspective-correctly over each
 * triangle, with n the unit normal and l the unit light direction, both in
 * camera space, and v the unit vector from the surface to the eye:
 *   colour = albedo * (ambient + diffuse * max(0, n.l))
 *            + 255 * rim * (1 - max(0, n.v))^rim_power
 * per RGB channel (albedo in 0..255: the texel times the material colour),
 * rounded to the nearest integer and clamped to 0..255; alpha is 255.
 * Where a triangle is seen from the side its normals turn away from
 * (meshes drawn two-sided), it is lit with -n. */

typedef struct ossa_render_scene ossa_render_scene;

enum {
    /* Draw both sides of every triangle. Without it each mesh culls the
     * faces turned away (front faces are the model's, see ossa_triangle),
     * except that a mesh whose triangles mostly disagree with its normals
     * was wound the other way and culls the other side, and a mesh whose
     * winding is mixed (against its normals, or against itself when it
     * has none) is drawn two-sided. */
    OSSA_RENDER_SCENE_TWO_SIDED = 1
};

typedef struct ossa_render_scene_options {
    uint32_t struct_size;            /* 0, or sizeof(ossa_render_scene_options) */
    const ossa_allocator *allocator; /* NULL = malloc/free; every buffer of the scene */
    uint32_t flags;           /* OSSA_RENDER_SCENE_* */
} ossa_render_scene_options;

/* Decodes the model's positions, normals (generated from the triangles,
 * area-weighted, when the model has none), texture coordinates, vertex
 * colours (which multiply the albedo; linear ones, OSSA_MODEL_LINEAR_COLORS,
 * converted to sRGB) and blend data, and gives every mesh the colour of
 * the fixed palette at its index.
 * The scene copies what it needs: the model may be freed afterwards. A
 * model without vertices or triangles gives a scene that draws nothing.
 * `options` may be NULL. */
ossa_render_scene *ossa_render_scene_create(const ossa_model *model,
                                            const ossa_render_scene_options *options,
                                            ossa_error *error);
void ossa_render_scene_free(ossa_render_scene *scene); /* NULL is fine */

typedef struct ossa_render_scene_info {
    uint32_t num_vertices, num_triangles, num_meshes, num_joints;
    int generated_normals;     /* nonzero when the model had no normals */
    uint32_t two_sided_meshes; /* meshes drawn without culling */
    uint32_t textured_meshes;  /* meshes with a texture */
    ossa_bounds bind_bounds;   /* of the bind-pose vertices (zero when none) */
    size_t memory;             /* bytes held by the scene, work buffers included */
} ossa_render_scene_info;

void ossa_render_scene_get_info(const ossa_render_scene *scene, ossa_render_scene_info *info);

/* How a mesh looks. */
typedef struct ossa_render_material {
    /* Multiplies the texture, or is the colour without one; sRGB, 0..1
     * (alpha unused). All zero = white with a texture, the mesh's palette
     * colour without. */
    float color[4];
    /* RGBA8 texels, rows top first (texture coordinate v = 0 is the top
     * row, as in IQM and glTF), copied by the call; NULL = no texture.
     * Coordinates repeat outside 0..1; texels are filtered bilinearly, and
     * pixels whose texel alpha is below 128 are not drawn (cut-outs). */
    const uint8_t *texture;
    uint32_t texture_width, texture_height; /* 1..16384 each when texture is set */
} ossa_render_material;

/* Sets the look of mesh `mesh` (< the model's num_meshes). */
ossa_status ossa_render_scene_set_material(ossa_render_scene *scene, uint32_t mesh,
                                           const ossa_render_material *material,
                                           ossa_error *error);

/* Gives the meshes of `model` (the model the scene was made from) the
 * looks the model holds: each mesh material's base colour, base colour
 * texture and double-sidedness (OSSA_EXTRA_MATERIAL, or a material named
 * like an image file) with the image's bytes (OSSA_EXTRA_IMAGE), which
 * the readers keep (a glTF file's images; for IQM, IQE, MD5 and the like,
 * the files their materials name beside the model). With `path`, the
 * model file's path (may be NULL), what the model lacks is looked for
 * beside it (never outside its folder), by the names the image may have:
 * the name a material gives (its image, or for a material without a
 * description its own name) when it ends in an image extension, then that
 * name with .tga, .png and .jpg. PNG, JPEG and TGA images are decoded
 * (through libpng, libjpeg and ossa_render_tga_decode); other kinds,
 * missing files and undecodable images leave the mesh as it was and are
 * reported to `diagnostic` (may be NULL) as OSSA_WARNING_IGNORED, one per
 * material. Returns the number of meshes whose material was set. */
uint32_t ossa_render_scene_load_materials(ossa_render_scene *scene, const ossa_model *model,
                                          const char *path, ossa_diagnostic_fn diagnostic,
                                          void *user);

/* -- Camera -- */

typedef enum ossa_render_view {
    OSSA_RENDER_VIEW_DEFAULT = 0, /* = THREE_QUARTER */
    OSSA_RENDER_VIEW_FRONT,       /* yaw 0, pitch 0: facing the model's front (see `front`) */
    OSSA_RENDER_VIEW_SIDE,        /* yaw 90, pitch 0: the model's left side */
    OSSA_RENDER_VIEW_BACK,        /* yaw 180, pitch 0 */
    OSSA_RENDER_VIEW_TOP,         /* yaw 0, pitch 90: from above, front down */
    OSSA_RENDER_VIEW_THREE_QUARTER /* yaw 35, pitch 20 */
} ossa_render_view;

/* Camera flags. */
enum {
    OSSA_RENDER_CAMERA_ORTHOGRAPHIC = 1, /* parallel projection (default: perspective) */
    OSSA_RENDER_CAMERA_YAW = 2,          /* use `yaw` instead of the view's */
    OSSA_RENDER_CAMERA_PITCH = 4         /* use `pitch` instead of the view's */
};

typedef struct ossa_render_camera_options {
    uint32_t struct_size; /* 0, or sizeof(ossa_render_camera_options) */
    ossa_render_view view;
    uint32_t flags; /* OSSA_RENDER_CAMERA_* */
    /* Degrees. Yaw turns the camera about the up axis, counter-clockwise
     * seen from above, from the front (yaw 0: the camera on the side the
     * model faces, -Y for Z-up models, +Z for Y-up ones, as Blender's
     * front view and glTF's convention). Pitch raises it above the
     * horizon (90 = straight down). */
    float yaw, pitch;
    /* Distance from the eye to the centre of the bounds, model units;
     * 0 = the distance at which the bounds fill the picture. With an
     * orthographic camera it scales the visible area in the same way. */
    float distance;
    float fov;    /* vertical field of view in degrees (perspective); 0 = 30 */
    float margin; /* room kept around the bounds, a fraction of their size; 0 = 0.05 */
    /* Where the model faces (ossa_model.front, Z-up models only): the
     * views and the yaw are measured from that side, so that FRONT looks
     * at the face whatever the format's convention. UNKNOWN (0) = -Y.
     * Newer than ossa 0.2: read only when struct_size is
     * sizeof(ossa_render_camera_options). */
    ossa_front front;
} ossa_render_camera_options;

/* Where the model is seen from, and the ground the grid and the shadow
 * lie on. Matrices are column-major like the rest of the API; camera
 * space has the eye at the origin looking down -Z with +Y up, and the
 * projection maps it to OpenGL clip space (x, y, z in -w..w). */
typedef struct ossa_render_camera {
    float view[16];       /* model space -> camera space (a rigid motion) */
    float projection[16]; /* camera space -> clip space */
    int orthographic;     /* nonzero when `projection` is parallel */
    float near_plane, far_plane; /* distances along -Z that `projection` maps to z = -w, w */
    /* The ground: the plane dot(up, p) = ground in model space, with the
     * grid's lines `grid_spacing` apart within `grid_extent` of
     * `ground_center` (a point on the plane). */
    float up[3];
    float ground;
    float ground_center[3];
    float grid_spacing, grid_extent;
} ossa_render_camera;

/* Frames `bounds` (see ossa_render_bounds) for a width x height picture,
 * `up` being the model's up axis (Z for models: readers convert to it):
 * the sphere around the box fits the picture whatever the view, so every
 * frame of an animation framed by its whole bounds stays inside. The
 * ground is the bottom of the box along `up`. Bounds that are empty or not
 * finite give a unit box at the origin. Fails on a zero size or an
 * out-of-range field. `options` may be NULL. */
ossa_status ossa_render_camera_frame(const ossa_render_camera_options *options,
                                     const ossa_bounds *bounds, ossa_axis up, uint32_t width,
                                     uint32_t height, ossa_render_camera *out, ossa_error *error);

/* Bounds of the skinned model over every frame of animation `animation`
 * (exact when the model's vertices times the frames are at most 2^23,
 * else from per-joint boxes, which contain them), or at rest when
 * `animation` is OSSA_BIND_POSE (the rest pose, ossa_model.rest_pose,
 * when the model has one, else the vertices as they are). Fails when the
 * index is out of range. A model without positions (a skeleton or an
 * animation file) is bounded by its joints' positions over the
 * animation's frames (or at rest). */
ossa_status ossa_render_bounds(const ossa_model *model, uint32_t animation, ossa_bounds *out,
                               ossa_error *error);

/* -- Drawing -- */

/* A caller-owned picture. */
typedef struct ossa_render_image {
    uint32_t width, height; /* pixels, 1..8192 each */
    /* RGBA8, not premultiplied, rows top first; row y starts at
     * pixels + y * stride. stride 0 = width * 4 (so a sub-rectangle of a
     * larger picture can be drawn into). */
    uint8_t *pixels;
    size_t stride;
    /* Optional: width * height floats (rows of `width`), the window depth
     * of each pixel, 0 at the near plane to 1 at the far plane (OpenGL's
     * z/w * 0.5 + 0.5), 1 where the model is not drawn; with
     * supersampling, the nearest of the pixel's samples. NULL = not wanted. */
    float *depth;
} ossa_render_image;

/* Render flags. */
enum {
    OSSA_RENDER_GRID = 1u << 0,        /* a grid on the ground, under the model */
    OSSA_RENDER_SHADOW = 1u << 1,      /* a soft blob shadow on the ground */
    OSSA_RENDER_SKELETON = 1u << 2,    /* bones drawn on top of everything */
    OSSA_RENDER_HIDE_MODEL = 1u << 3,  /* leave the meshes (and their shadow) out */
    OSSA_RENDER_TRANSPARENT = 1u << 4, /* background alpha 0 instead of `background` */
    OSSA_RENDER_TWO_SIDED = 1u << 5,   /* no culling in this render */
    OSSA_RENDER_NO_TEXTURES = 1u << 6, /* material colours only */
    OSSA_RENDER_LIGHTING = 1u << 7     /* use the lighting fields below as given */
};

typedef struct ossa_render_options {
    uint32_t struct_size;             /* 0, or sizeof(ossa_render_options) */
    const ossa_render_camera *camera; /* required */
    /* Model-space joint matrices of the pose (ossa_sample_job.model or
     * ossa_local_to_model), at least num_joints of them; NULL = the model
     * at rest: its rest pose (ossa_model.rest_pose), or the vertices as
     * they are when it has none. Vertices without blend data stay where
     * they are. */
    const float (*pose)[16];
    uint32_t num_pose; /* entries in `pose` */
    uint32_t flags;    /* OSSA_RENDER_* */
    /* Anti-aliasing: samples per pixel along each axis, 0 or 1 = none, 2
     * (4 samples, a 2x2 box), 3 or 4; the image's sides times it must stay
     * within 16384. Costs about its square in time and work memory. */
    uint32_t supersample;
    /* Threads that draw (the calling one among them); 0 = 1, at most 64
     * are used. The output does not depend on it. */
    uint32_t threads;
    /* Background colour; all zero = 48 52 60 255 (a dark slate). */
    uint8_t background[4];
    /* With OSSA_RENDER_LIGHTING, the shading terms (see the formula
     * above) as given; otherwise light (-0.4, 0.5, 0.77) normalized,
     * ambient 0.35, diffuse 0.7, rim 0.25, rim_power 3. `light` points
     * from the surface to the light, in camera space (x right, y up, z
     * towards the viewer); it is normalized, zero length gives (0, 0, 1). */
    float light[3];
    float ambient, diffuse, rim, rim_power;
    ossa_simd simd; /* skinning code level; AUTO = the fastest */
} ossa_render_options;

/* Draws one frame: clears the image (and depth) to the background, draws
 * the ground, the model and the overlays. The scene's work buffers are
 * reused, so a scene draws one image at a time (use one scene per thread
 * to draw in parallel). Fails when an option is out of range or the work
 * memory cannot be had; the image is then left in an unspecified state.
 * Vertices that are not finite, or whose triangles are degenerate, are
 * skipped; triangles crossing the near plane are clipped. */
ossa_status ossa_render_run(ossa_render_scene *scene, const ossa_render_options *options,
                            ossa_render_image *image, ossa_error *error);

/* Writes ASCII text with the built-in 3x5 pixel font (digits, letters
 * shown as capitals, and . , : ; - + / = ( ) % _ ' # ! ?; anything else as
 * a blank), each font pixel a `scale` x `scale` square (0 = 1) of colour
 * `rgba` blended by its alpha, top-left corner at (x, y); characters step
 * 4 * scale pixels, '\n' starts a new line 6 * scale lower. Clipped to the
 * image. Returns the width of the longest line in pixels. */
uint32_t ossa_render_text(ossa_render_image *image, int32_t x, int32_t y, uint32_t scale,
                          const uint8_t rgba[4], const char *text);

/* -- Image files -- */

/* PNG. encode (the library's own encoder on zlib): a new buffer (from
 * `allocator`, may be NULL = malloc) holding the image as an 8-bit PNG,
 * RGB when every alpha is 255, else RGBA, unfiltered, zlib level 3; it
 * decodes to the image's pixels exactly. decode (libpng): any PNG
 * that libpng reads, converted to RGBA8, into out->pixels (a new buffer
 * from `allocator`, stride width * 4; out->depth NULL); images over 16384
 * pixels on a side or 2^26 pixels in all are refused. Free the buffers
 * with ossa_free. write: atomically, like ossa_write_file. */
ossa_status ossa_render_png_encode(const ossa_render_image *image, const ossa_allocator *allocator,
                                   void **out_data, size_t *out_size, ossa_error *error);
ossa_status ossa_render_png_decode(const void *data, size_t size, const ossa_allocator *allocator,
                                   ossa_render_image *out, ossa_error *error);
ossa_status ossa_render_png_write(const ossa_render_image *image, const char *path,
                                  ossa_error *error);
/* A JPEG (baseline or progressive, grey or colour; CMYK is refused) read
 * through libjpeg into out->pixels as RGBA8 (alpha 255), as png_decode
 * does, with the same size limits. Damaged data fails, at the byte the
 * decoder reached, instead of being filled in. */
ossa_status ossa_render_jpeg_decode(const void *data, size_t size, const ossa_allocator *allocator,
                                    ossa_render_image *out, ossa_error *error);
/* A Truevision TGA file (types 1, 2, 3 and their run-length encoded 9,
 * 10, 11: colour-mapped with 8- or 16-bit indices into 15-, 16-, 24- or
 * 32-bit entries, true-colour of 15, 16, 24 or 32 bits, greyscale of 8
 * bits or 8 + 8 alpha; any origin) decoded by the library itself into
 * out->pixels as RGBA8, as png_decode does, with the same size limits
 * (refused before any pixel memory is taken). 5-bit channels become the
 * nearest 8-bit level (v * 255 / 31, rounded). Alpha comes from the pixel
 * (or the colour map entry) only when the header's descriptor gives alpha
 * bits, else it is 255; a picture whose alpha would be 0 everywhere is
 * read as opaque. The TGA 2.0 extension area and footer are ignored.
 * Failures give the byte offset in error->offset: FORMAT or CORRUPT for a
 * bad header or damaged data (a colour index outside the map, a packet
 * past the last pixel), TRUNCATED, UNSUPPORTED (types 0, 32, 33,
 * interleaved rows, too large), NOMEM. docs/formats/tga.md has the
 * details. */
ossa_status ossa_render_tga_decode(const void *data, size_t size, const ossa_allocator *allocator,
                                   ossa_render_image *out, ossa_error *error);

/* Animated GIF through libgif: add frames one by one, then finish (to a
 * buffer) or write (to a file, atomically). Each frame gets its own
 * 256-colour palette (a median cut over the frame); pixels with alpha
 * below 128 become transparent. An opaque frame that follows an opaque
 * one stores only the rectangle that changed. The encoded file is kept in
 * memory until finished; the gif keeps a copy of the last frame. */
typedef struct ossa_render_gif ossa_render_gif;

enum {
    OSSA_RENDER_GIF_ONCE = 1 /* play once (default: loop forever) */
};

typedef struct ossa_render_gif_options {
    uint32_t struct_size;            /* 0, or sizeof(ossa_render_gif_options) */
    const ossa_allocator *allocator; /* NULL = malloc/free; libgif itself uses malloc */
    uint32_t width, height;   /* every frame's size, 1..8192 (required) */
    /* Frames per second; 0 = 30. GIF delays are whole hundredths of a
     * second: each frame gets the delay that keeps its start time within
     * half a hundredth of frame / fps. */
    float fps;
    uint32_t flags; /* OSSA_RENDER_GIF_* */
} ossa_render_gif_options;

ossa_render_gif *ossa_render_gif_create(const ossa_render_gif_options *options, ossa_error *error);
/* The frame must have the size given at creation. */
ossa_status ossa_render_gif_add_frame(ossa_render_gif *gif, const ossa_render_image *frame,
                                      ossa_error *error);
/* Ends the file and hands its bytes to the caller (free them with
 * ossa_free and the gif's allocator); the gif takes no more
 * frames but must still be freed. A GIF without frames is refused. */
ossa_status ossa_render_gif_finish(ossa_render_gif *gif, void **out_data, size_t *out_size,
                                   ossa_error *error);
/* Finishes and writes the file atomically. */
ossa_status ossa_render_gif_write(ossa_render_gif *gif, const char *path, ossa_error *error);
void ossa_render_gif_free(ossa_render_gif *gif); /* NULL is fine */

#ifdef __cplusplus
}
#endif

#endif /* OSSA_RENDER_H */
