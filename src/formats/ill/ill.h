/* illEngine formats (docs/formats/ill.md): the interface between the module's
 * parts.
 *
 *   text.c        ASCII ILLMESH0 (v0a, v0b), ILLSKEL0, ILLANIM0, ILLANIM1
 *   binary.c      binary ILLMESH0, ILLMESH1, ILLSKEL0, ILLANIM0, ILANSET0
 *   ill.c         the format table entries, detection of the magic and of
 *                 text or binary, the read entry point
 *   build.c       what both readers share: skeleton reordering and matrix
 *                 decomposition, keyed-channel resampling, the mesh arrays,
 *                 the Rx(-90) decision
 *   write.c       canonical ASCII ILLMESH0 (v0b), ILLSKEL0, ILLANIM0, the
 *                 choice of encoding and the three-file write
 *   write_binary.c   binary ILLMESH1, ILLSKEL0, ILLANIM0 and ILANSET0
 *   write_model.c    what both writers take from a model: joint names,
 *                    vertices in the v0b order, animation frames
 *
 * The readers turn a file into a few plain structures (bones, tracks,
 * vertex floats); the builders in build.c turn those into the model, so
 * that text and binary files of one kind give the same model. */
#ifndef OSSA_ILL_H
#define OSSA_ILL_H

#include "formats/format.h"
#include "text/text.h"

#define ILL_MAGIC_SIZE 8

/* The words of the options (ill.c's table); the first is the default. */
#define ILL_ENCODINGS "auto text binary"
#define ILL_MD5_FIX_CHOICES "auto on off"
#define ILL_VERTEX_ORDERS "auto blend-first texcoord-first"
/* ill.encoding when writing: the first is the default. */
#define ILL_WRITE_ENCODINGS "text binary"

typedef enum ill_kind { ILL_MESH, ILL_SKEL, ILL_ANIM, ILL_ANSET } ill_kind;

/* Where a value is: a byte offset (binary) or line and column (text). */
typedef struct ill_loc {
    uint64_t offset; /* OSSA_NO_OFFSET for text */
    uint32_t line, column;
} ill_loc;

ossa_status ossa__ill_fail(ossa_error *error, ossa_code kind, ill_loc at, const char *fmt,
                           ...) OSSA_PRINTF(4, 5);
void ossa__ill_warn(ossa_model *model, ossa_code code, ill_loc at, const char *fmt, ...)
    OSSA_PRINTF(4, 5);

/* The model name for an animation or mesh: the file name without
 * directory and extension, or `fallback`. */
void ossa__ill_stem(const ossa_load_options *options, const char *fallback, char *out, size_t cap);

/* Temporary memory of a load, from the load options' allocator. */
void *ossa__ill_talloc(const ossa_load_options *options, size_t count, size_t elem);
void ossa__ill_tfree(const ossa_load_options *options, void *ptr);

/* A set of names (open addressing), to find duplicates in linear time. */
typedef struct ill_name_set {
    const char **slot;
    uint32_t mask;
} ill_name_set;

bool ossa__ill_set_init(ill_name_set *s, uint32_t count, const ossa_allocator *allocator);
/* Adds `name` (kept by pointer); returns the equal name already there, or
 * NULL. Free the slots with ossa__free(allocator, (void *)s->slot, 0). */
const char *ossa__ill_set_add(ill_name_set *s, const char *name);

/* -- Meshes ------------------------------------------------------------------ */

/* Feature bits (the binary mask; the text's six flags in the same order). */
enum {
    ILL_HAS_POSITION = 1,
    ILL_HAS_NORMAL = 2,
    ILL_HAS_TANGENT = 4, /* tangent and bitangent */
    ILL_HAS_TEXCOORD = 8,
    ILL_HAS_BLEND = 16, /* 4 indices, 4 weights */
    ILL_HAS_COLOR = 32,
    ILL_ALL_FEATURES = 63
};

/* Floats per vertex for a feature mask (v0a and v0b alike). */
uint32_t ossa__ill_vertex_floats(unsigned mask);

/* A mesh as read: `vertices` holds num_vertices * vertex_floats floats in
 * the v0b order (position 3, normal 3, tangent 3, bitangent 3, blend
 * indices 4, blend weights 4, texcoord 2, colour 4; absent ones skipped).
 * Triangles keep the file's winding (counter-clockwise front faces). */
typedef struct ill_mesh {
    unsigned mask;
    uint32_t num_vertices;
    const float *vertices;
    uint32_t num_triangles;
    const uint32_t *triangles; /* 3 per triangle, each < num_vertices */
    /* Where vertex v's blend index k lies (for the error message when it
     * is not a whole number), or NULL. */
    void (*locate)(void *user, uint32_t vertex, uint32_t slot, ill_loc *out);
    void *locate_user;
} ill_mesh;

ossa_status ossa__ill_build_mesh(ossa_model *model, const ill_mesh *mesh,
                                 const ossa_load_options *options, ossa_error *error);

/* Blend data in float slots 0..3 (indices) and 4..7 (weights) of `blend`
 * is plausible: whole non-negative indices below 65536, non-negative
 * weights summing to 1 within 1e-3 (docs/formats/ill.md §3). */
bool ossa__ill_blend_plausible(const float *blend);

/* -- Skeletons --------------------------------------------------------------- */

typedef struct ill_bone {
    double matrix[16]; /* parent-relative bind, column-major */
    int64_t parent;    /* as stored: -1 or the own index = root */
    const char *name;  /* NUL-terminated, or NULL (binary files) */
    ill_loc at;        /* of the matrix */
    ill_loc parent_at; /* of the parent value */
    ill_loc name_at;
} ill_bone;

/* Checks parents (range, cycles), orders parents before children, splits
 * every matrix into translation, rotation and scale, adds the joints and
 * the extras (OSSA_EXTRA_JOINT_INDEX when the order changed,
 * OSSA_EXTRA_MESH_TO_BIND when the Rx(-90) correction applies). `text`
 * selects the detection rule of the correction: a bone named <MD5_Root>
 * (text) or a root whose matrix is Rx(-90) (binary, which has no names). */
ossa_status ossa__ill_build_skeleton(ossa_model *model, ill_bone *bones, uint32_t count,
                                     bool text, const ossa_load_options *options,
                                     ossa_error *error);

/* -- Animations -------------------------------------------------------------- */

/* One channel of keys: times (seconds, ascending) and count * width values
 * (3 for positions and scales, 4 for x y z w rotations). */
typedef struct ill_keys {
    uint32_t count;
    const float *times;
    const float *values;
} ill_keys;

typedef struct ill_track {
    const char *name; /* text files; NULL in binary ones */
    uint32_t index;   /* binary files: the bone's index in the skeleton */
    ill_loc at;       /* of the name or index */
    ill_keys pos, rot, scale;
} ill_track;

/* Keyed animation (ILLANIM1 text, binary ILLANIM0): resampled to
 * round(duration * fps) frames over one cycle (docs/formats/ill.md §8). */
ossa_status ossa__ill_build_keyed(ossa_model *model, double duration, ill_loc duration_at,
                                  const ill_track *tracks, uint32_t count, size_t file_size,
                                  const ossa_load_options *options, ossa_error *error);
/* The name and loop flag ossa's writer leaves after a binary ILLANIM0's
 * data, given to the animation just built. */
ossa_status ossa__ill_apply_tag(ossa_model *model, const ossa_anim_tag *tag, ossa_error *error);

/* Fixed-rate animation (ILLANIM0 text): per track num_frames * 10 floats
 * (px py pz qx qy qz qw sx sy sz). */
typedef struct ill_frames {
    const char *name;
    ill_loc at;
    const float *values;
} ill_frames;

/* `tag`: the name and loop flag ossa's writer leaves after the last frame
 * (text.h's animation tag), or NULL: the animation is named after the
 * file and loops, as the engine loops everything. */
ossa_status ossa__ill_build_fixed(ossa_model *model, float framerate, uint32_t num_frames,
                                  const ill_frames *tracks, uint32_t count,
                                  const ossa_anim_tag *tag, const ossa_load_options *options,
                                  ossa_error *error);

/* -- Readers ----------------------------------------------------------------- */

ossa_status ossa__ill_read_text(ossa_model *model, ill_kind kind, int version,
                                const unsigned char *data, size_t size,
                                const ossa_load_options *options, ossa_error *error);
ossa_status ossa__ill_read_binary(ossa_model *model, ill_kind kind, int version,
                                  const unsigned char *data, size_t size,
                                  const ossa_load_options *options, ossa_error *error);

/* -- Writers (write.c) --------------------------------------------------- */

/* The format table's writers: text or binary as the write option
 * ill.encoding says. write_files writes the set of files of a .illmesh
 * (and, in binary, the .illanset beside a .illskel or a .illanim). */
ossa_status ossa__ill_write_mesh(const ossa_model *model, const ossa_write_options *options,
                                 ossa_buf *out, ossa_error *error);
ossa_status ossa__ill_write_skel(const ossa_model *model, const ossa_write_options *options,
                                 ossa_buf *out, ossa_error *error);
ossa_status ossa__ill_write_anim(const ossa_model *model, const ossa_write_options *options,
                                 ossa_buf *out, ossa_error *error);
ossa_status ossa__ill_write_files(const ossa_model *model, const char *path,
                                  const ossa_write_options *options, ossa_error *error);
ossa_status ossa__ill_write_skel_files(const ossa_model *model, const char *path,
                                       const ossa_write_options *options, ossa_error *error);
ossa_status ossa__ill_write_anim_files(const ossa_model *model, const char *path,
                                       const ossa_write_options *options, ossa_error *error);

/* -- What both writers take from a model (write_model.c) ------------------ */

/* Names the files can hold, one per joint (docs/formats/ill.md §11):
 * whitespace and control bytes become '_', empty names "bone<index>",
 * repeated ones get "_<index>". One block to free with ossa__free; NULL
 * (error filled) when memory runs out. The changes are reported when
 * `report` is set. */
char **ossa__ill_joint_names(const ossa_model *model, const ossa_write_options *options,
                             bool report, ossa_error *error);

/* The vertex arrays a mesh file is written from. */
typedef struct ill_vertex_source {
    const ossa_vertex_array *pos, *nrm, *tan, *bit, *tc, *bi, *bw, *col;
    unsigned mask;  /* ILL_HAS_* of the arrays present */
    bool undo_rx;   /* turn by Rx(+90) (the reader will turn it back, §10) */
} ill_vertex_source;

/* Finds the arrays and reports what the file cannot hold (custom arrays
 * other than `bitangent`, several meshes). */
void ossa__ill_vertex_source(const ossa_model *model, const ossa_write_options *options,
                             bool undo_rx, ill_vertex_source *source);
/* Vertex v in the v0b order: ossa__ill_vertex_floats(source->mask) floats.
 * Returns true when it had more than 4 influences (the largest 4 kept). */
bool ossa__ill_vertex(const ossa_model *model, const ill_vertex_source *source, uint32_t v,
                      float *out);

/* An animation as the writers write it: a frame rate and at least one
 * frame (the bind pose when it has none), each repair reported. */
typedef struct ill_anim_plan {
    const ossa_animation *anim;
    float rate;      /* > 0 */
    uint32_t frames; /* >= 1 */
    uint32_t bones;  /* joints it drives, written in joint order */
} ill_anim_plan;

ossa_status ossa__ill_anim_plan(const ossa_model *model, const ossa_write_options *options,
                                uint32_t index, ill_anim_plan *plan, ossa_error *error);
/* Whether the animation drives joint j (it has a track in the file). */
bool ossa__ill_anim_drives(const ill_anim_plan *plan, uint32_t j);
/* Joint j's local pose at frame f of the plan. */
const ossa_transform *ossa__ill_anim_pose(const ossa_model *model, const ill_anim_plan *plan,
                                          uint32_t f, uint32_t j);

/* The number of each joint in binary files (number[j], num_joints
 * entries): its index, except in an animation-only model read from a
 * binary .illanim, whose joints keep the bone numbers of the file
 * (OSSA_EXTRA_JOINT_INDEX, when they fit 16 bits and none repeats), so
 * that written again it drives the same bones of its skeleton. Returns
 * the count of numbers (the largest + 1). */
uint32_t ossa__ill_bone_numbers(const ossa_model *model, uint32_t *number);

/* -- Binary writers (write_binary.c) -------------------------------------- */

ossa_status ossa__ill_write_mesh_binary(const ossa_model *model, const ossa_write_options *options,
                                        ossa_buf *out, ossa_error *error);
ossa_status ossa__ill_write_skel_binary(const ossa_model *model, const ossa_write_options *options,
                                        ossa_buf *out, ossa_error *error);
ossa_status ossa__ill_write_anim_binary(const ossa_model *model, const ossa_write_options *options,
                                        uint32_t animation, ossa_buf *out, ossa_error *error);
/* The joint names (ossa__ill_joint_names), reported when `report` is set. */
ossa_status ossa__ill_write_anset(const ossa_model *model, const ossa_write_options *options,
                                  bool report, ossa_buf *out, ossa_error *error);

/* Rx(-90): (x, y, z) -> (x, z, -y), column-major. */
extern const float ossa__ill_rx_minus_90[16];
#define ILL_MD5_ROOT "<MD5_Root>"
/* Whether a column-major matrix is Rx(-90) within 1e-5 per element: the
 * binary skeleton's sign of the correction (§7, §10). */
bool ossa__ill_is_rx_minus_90(const double m[16]);

#endif
