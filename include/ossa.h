/*
 * ossa — skeletal animated models: read, write, convert, sample.
 *
 * One in-memory model (ossa_model) sits between every reader and every
 * writer. A model owns all of its memory; ossa_model_free() releases it in
 * one call. The library has no global state: distinct models may be used
 * from distinct threads freely, and a model that is not being modified may
 * be read from several threads at once.
 *
 * Conventions used throughout:
 *  - Quaternions are (x, y, z, w); rotations are unit quaternions.
 *  - A joint transform maps child space to parent space as M = T * R * S
 *    (column vectors). Matrices are 4x4, column-major (element [col*4+row]).
 *  - Every function that can fail returns ossa_status (or NULL) and fills
 *    the caller's ossa_error when one is given (the pointer may be NULL).
 *  - Strings in a model are NUL-terminated UTF-8 owned by the model.
 */
#ifndef OSSA_H
#define OSSA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_VERSION_MAJOR 0
#define OSSA_VERSION_MINOR 1
#define OSSA_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH" of the library actually linked. */
const char *ossa_version_string(void);

/* -- Errors ---------------------------------------------------------------- */

typedef enum ossa_status {
    OSSA_OK = 0,
    OSSA_FAILED = 1 /* details in the ossa_error */
} ossa_status;

/* Stable error kinds; tests and callers branch on these, not on messages. */
typedef enum ossa_error_kind {
    OSSA_ERROR_NONE = 0,
    OSSA_ERROR_IO,          /* open, read, map, write or rename failed */
    OSSA_ERROR_NOMEM,       /* an allocation failed */
    OSSA_ERROR_FORMAT,      /* not a file of the expected (or any known) format */
    OSSA_ERROR_TRUNCATED,   /* the data ends before a structure it declares */
    OSSA_ERROR_CORRUPT,     /* a count, offset, index or value is out of range */
    OSSA_ERROR_UNSUPPORTED, /* valid input that ossa cannot represent */
    OSSA_ERROR_ARGUMENT,    /* the caller passed an invalid argument */
    OSSA_ERROR_MISMATCH     /* inputs that cannot be combined (merging) */
} ossa_error_kind;

#define OSSA_NO_OFFSET UINT64_MAX

typedef struct ossa_error {
    ossa_error_kind kind;
    /* Where in the input: byte offset for binary formats (OSSA_NO_OFFSET when
     * unknown), 1-based line and column for text formats (0 when unknown). */
    uint64_t offset;
    uint32_t line, column;
    /* The file the error is about ("" for memory input without a name). */
    char file[256];
    /* What was expected and what was found, without the file name. */
    char message[256];
} ossa_error;

/* Writes "file:where: message" into buf (always NUL-terminated) and returns
 * buf. "where" is "line:column" for text, "byte N" for binary, or omitted. */
const char *ossa_error_format(const ossa_error *error, char *buf, size_t size);

/* Name of an error kind ("io", "nomem", "format", ...). */
const char *ossa_error_kind_name(ossa_error_kind kind);

/* -- Allocation ------------------------------------------------------------ */

/* Optional custom allocator; all members zero means malloc/free. */
typedef struct ossa_allocator {
    void *(*alloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} ossa_allocator;

/* -- The model ------------------------------------------------------------- */

typedef struct ossa_transform {
    float translation[3];
    float rotation[4]; /* unit quaternion x, y, z, w */
    float scale[3];
} ossa_transform;

/* Identity: translation 0, rotation (0,0,0,1), scale 1. */
ossa_transform ossa_transform_identity(void);

typedef struct ossa_joint {
    const char *name;    /* never NULL; "" when the source has no names */
    int32_t parent;      /* index of the parent joint (< own index), -1 = root */
    ossa_transform bind; /* parent-relative bind pose */
} ossa_joint;

/* Vertex array types; the values are IQM's. */
typedef enum ossa_vertex_type {
    OSSA_VERTEX_POSITION = 0,
    OSSA_VERTEX_TEXCOORD = 1,
    OSSA_VERTEX_NORMAL = 2,
    OSSA_VERTEX_TANGENT = 3,      /* xyz + w = bitangent sign */
    OSSA_VERTEX_BLENDINDEXES = 4, /* joint indices, raw integers */
    OSSA_VERTEX_BLENDWEIGHTS = 5, /* weights; ubyte arrays sum to 255 */
    OSSA_VERTEX_COLOR = 6,
    OSSA_VERTEX_CUSTOM = 0x10 /* named by ossa_vertex_array.name */
} ossa_vertex_type;

/* Component formats; the values are IQM's. */
typedef enum ossa_component {
    OSSA_BYTE = 0,
    OSSA_UBYTE = 1,
    OSSA_SHORT = 2,
    OSSA_USHORT = 3,
    OSSA_INT = 4,
    OSSA_UINT = 5,
    OSSA_HALF = 6,
    OSSA_FLOAT = 7,
    OSSA_DOUBLE = 8
} ossa_component;

#define OSSA_MAX_COMPONENTS 8 /* per vertex in one array (4 in IQM files) */

/* Bytes per component, 0 for an unknown format. */
size_t ossa_component_size(ossa_component format);
const char *ossa_component_name(ossa_component format);
const char *ossa_vertex_type_name(ossa_vertex_type type);

/* One per-vertex attribute, stored as in the source so that round trips are
 * exact: num_vertices * size components of `format`, tightly packed, in
 * host byte order. Integer arrays other than blend indexes are normalized
 * (iqm.md §4); use ossa_vertex_array_read() to get floats. */
typedef struct ossa_vertex_array {
    ossa_vertex_type type;
    ossa_component format;
    uint32_t size;    /* components per vertex, 1..OSSA_MAX_COMPONENTS */
    const char *name; /* custom arrays: their name; other types: "" */
    void *data;
} ossa_vertex_array;

typedef struct ossa_mesh {
    const char *name;
    const char *material;
    uint32_t first_vertex, num_vertices;
    uint32_t first_triangle, num_triangles;
} ossa_mesh;

typedef struct ossa_triangle {
    uint32_t v[3]; /* model-global vertex indices; front faces clockwise */
} ossa_triangle;

#define OSSA_NO_NEIGHBOR UINT32_MAX

typedef struct ossa_bounds {
    float min[3], max[3];
    float xy_radius; /* max sqrt(x^2+y^2) from the model origin */
    float radius;    /* max sqrt(x^2+y^2+z^2) from the model origin */
} ossa_bounds;

enum { OSSA_ANIMATION_LOOP = 1 };

typedef struct ossa_animation {
    const char *name;
    uint32_t num_frames;
    float framerate; /* frames per second; 0 = not specified */
    uint32_t flags;  /* OSSA_ANIMATION_LOOP */
    /* Decoded parent-relative poses, frame-major. Rotations are unit up to
     * the source's quantization (readers keep near-unit quaternions as
     * decoded so that re-encoding reproduces the same bytes); normalize
     * before use, as the runtime does.
     * frames[f * model->num_joints + j] is joint j at frame f. */
    ossa_transform *frames;
    /* Per-frame bounds as stored in the source, or NULL. */
    ossa_bounds *bounds;
} ossa_animation;

/* A named blob that a format keeps for round trips and that other formats
 * ignore (for example IQM extensions, key "iqm.extension:NAME"). */
typedef struct ossa_extra {
    const char *key;
    const void *data;
    size_t size;
} ossa_extra;

typedef struct ossa_warning {
    char message[256];
    uint64_t offset;       /* OSSA_NO_OFFSET when unknown */
    uint32_t line, column; /* 0 when unknown */
} ossa_warning;

typedef enum ossa_format {
    OSSA_FORMAT_AUTO = 0, /* detect from content, then from the file name */
    OSSA_FORMAT_IQM = 1
} ossa_format;

/* The model's joints were made from an animation-only file's poses: they
 * have no names and no real bind pose (frame 0 of the first animation
 * stands in). Writers that can keep a file animation-only do so. */
enum { OSSA_MODEL_SKELETON_FROM_POSES = 1 };

typedef struct ossa_model_internal ossa_model_internal;

/* All fields are read-only for callers; change a model with the
 * ossa_model_* functions below, which keep it consistent. */
typedef struct ossa_model {
    uint32_t num_joints;
    ossa_joint *joints;

    uint32_t num_vertices; /* shared by every vertex array */
    uint32_t num_vertex_arrays;
    ossa_vertex_array *vertex_arrays;

    uint32_t num_triangles;
    ossa_triangle *triangles;
    /* 3 entries per triangle as stored in the source (a hint, possibly
     * wrong: see ossa_compute_adjacency), or NULL. */
    uint32_t *adjacency;

    uint32_t num_meshes;
    ossa_mesh *meshes;

    uint32_t num_animations;
    ossa_animation *animations;

    /* Free text from the source (IQM comment block), not necessarily
     * NUL-free; comment[comment_size] is always 0. NULL when absent. */
    const char *comment;
    size_t comment_size;

    uint32_t num_extras;
    ossa_extra *extras;

    /* Non-fatal problems met while loading. */
    uint32_t num_warnings;
    ossa_warning *warnings;

    uint32_t flags; /* OSSA_MODEL_* */
    ossa_format source_format;

    ossa_model_internal *internal;
} ossa_model;

/* -- Building and changing a model ----------------------------------------- */

/* An empty model. `allocator` may be NULL. Returns NULL on allocation failure. */
ossa_model *ossa_model_create(const ossa_allocator *allocator);
void ossa_model_free(ossa_model *model);

/* Appends a joint; returns its index, or -1 on error (parent must be -1 or
 * an existing joint; no joints may be added once animations exist). */
int32_t ossa_model_add_joint(ossa_model *model, const char *name, int32_t parent,
                             const ossa_transform *bind, ossa_error *error);

/* Sets the vertex count; only while the model has no vertex arrays. */
ossa_status ossa_model_set_vertex_count(ossa_model *model, uint32_t count, ossa_error *error);

/* Adds an array and copies num_vertices * size components of `format` from
 * `data` (host byte order). `name` is used for custom arrays only. Returns
 * the new array, or NULL. */
ossa_vertex_array *ossa_model_add_vertex_array(ossa_model *model, ossa_vertex_type type,
                                               ossa_component format, uint32_t size,
                                               const char *name, const void *data,
                                               ossa_error *error);

/* Like ossa_model_add_vertex_array, but encodes num_vertices * size floats
 * into `format` with the IQM conversion rules (normalized integers, blend
 * indexes as integers, ubyte blend weights made to sum to exactly 255). */
ossa_vertex_array *ossa_model_add_vertex_array_floats(ossa_model *model, ossa_vertex_type type,
                                                      ossa_component format, uint32_t size,
                                                      const char *name, const float *values,
                                                      ossa_error *error);

/* Replaces the triangle list (copied). Indices must be < num_vertices. */
ossa_status ossa_model_set_triangles(ossa_model *model, uint32_t count,
                                     const ossa_triangle *triangles, ossa_error *error);

/* Appends a mesh; its ranges must lie inside the model's vertices and
 * triangles. Returns its index or -1. */
int32_t ossa_model_add_mesh(ossa_model *model, const char *name, const char *material,
                            uint32_t first_vertex, uint32_t num_vertices,
                            uint32_t first_triangle, uint32_t num_triangles, ossa_error *error);

/* Appends an animation whose frames are all set to the joints' bind poses;
 * the caller fills animation->frames. Returns it, or NULL. The pointer stays
 * valid until the next ossa_model_add_animation or ossa_model_free. */
ossa_animation *ossa_model_add_animation(ossa_model *model, const char *name,
                                         uint32_t num_frames, float framerate, uint32_t flags,
                                         ossa_error *error);

ossa_status ossa_model_set_comment(ossa_model *model, const void *text, size_t size,
                                   ossa_error *error);
ossa_status ossa_model_add_extra(ossa_model *model, const char *key, const void *data,
                                 size_t size, ossa_error *error);

/* Copies src's animations into dst, matching joints by name (by index when
 * either side has no names; then the parents must match). Joints of dst that
 * src lacks keep their bind pose; src joints missing in dst are dropped with
 * a warning in dst. If dst has no joints, it takes src's skeleton. A mesh in
 * src is merged only when dst has none. */
ossa_status ossa_model_merge(ossa_model *dst, const ossa_model *src, ossa_error *error);

/* The first array of `type` (for custom arrays, the one named `name`), or NULL. */
const ossa_vertex_array *ossa_model_find_array(const ossa_model *model, ossa_vertex_type type,
                                               const char *name);

/* Decodes vertices [first, first+count) of an array to floats:
 * count * array->size values (normalized integers, blend indexes as
 * integers). Returns OSSA_FAILED if the range is out of bounds. */
ossa_status ossa_vertex_array_read(const ossa_model *model, const ossa_vertex_array *array,
                                   uint32_t first, uint32_t count, float *out);

/* Adjacency by the correct definition (iqm.md §10): 3 entries per
 * triangle, OSSA_NO_NEIGHBOR where an edge has no single neighbour.
 * `out` holds 3 * num_triangles entries. */
ossa_status ossa_compute_adjacency(const ossa_model *model, uint32_t *out, ossa_error *error);

/* -- Poses ----------------------------------------------------------------- */

/* Column-major 4x4 matrix of T * R * S. */
void ossa_transform_to_matrix(const ossa_transform *transform, float out[16]);

/* Model-space matrices from parent-relative transforms (num_joints each). */
void ossa_local_to_model(const ossa_model *model, const ossa_transform *local, float (*out)[16]);

/* Per-frame bounds of the skinned mesh. */
typedef enum ossa_bounds_mode {
    OSSA_BOUNDS_DEFAULT = 0,  /* = OSSA_BOUNDS_CONSERVATIVE */
    OSSA_BOUNDS_CONSERVATIVE, /* per-joint boxes moved by the skinning
                                 matrices: contains the exact box, costs
                                 O(joints) per frame */
    OSSA_BOUNDS_EXACT,        /* skin every vertex: O(vertices) per frame */
    OSSA_BOUNDS_STORED,       /* keep the bounds the model holds */
    OSSA_BOUNDS_NONE
} ossa_bounds_mode;

/* Bounds of every frame of one animation (num_frames records). Fails when
 * the model has no positions. Vertices without blend data are taken as
 * static. */
ossa_status ossa_compute_bounds(const ossa_model *model, uint32_t animation,
                                ossa_bounds_mode mode, ossa_bounds *out, ossa_error *error);

/* -- Validation ------------------------------------------------------------ */

typedef enum ossa_severity { OSSA_SEVERITY_WARNING = 1, OSSA_SEVERITY_ERROR = 2 } ossa_severity;

typedef struct ossa_problem {
    ossa_severity severity;
    char message[256];
} ossa_problem;

typedef void (*ossa_problem_fn)(void *user, const ossa_problem *problem);

/* Deep checks: parents before children, indices in range, weight sums,
 * quaternion norms, NaN/Inf, bounds. Reports every problem to `fn` (may be
 * NULL) and returns the number of errors (warnings not counted). */
uint32_t ossa_validate(const ossa_model *model, ossa_problem_fn fn, void *user);

/* -- Reading and writing --------------------------------------------------- */

typedef struct ossa_load_options {
    ossa_format format;        /* OSSA_FORMAT_AUTO (0) = detect */
    const char *file_name;     /* for messages and detection by extension */
    ossa_allocator allocator;  /* zero = malloc/free */
    /* Blend influences kept per vertex by formats that allow more (the
     * largest, renormalized): 0 = 4, at most OSSA_MAX_COMPONENTS. */
    uint32_t max_influences;
    /* Frame rate for formats that store none or that are resampled to a
     * frame grid: 0 = the format's default (30). */
    float framerate;
} ossa_load_options;

/* `options` may be NULL. Returns NULL and fills `error` on failure. The
 * buffer is not kept after the call. */
ossa_model *ossa_load_memory(const void *data, size_t size, const ossa_load_options *options,
                             ossa_error *error);
/* Maps the file and loads it. */
ossa_model *ossa_load_file(const char *path, const ossa_load_options *options, ossa_error *error);

typedef struct ossa_write_options {
    ossa_format format;      /* AUTO = from the file name (ossa_write_file) */
    ossa_bounds_mode bounds; /* DEFAULT = conservative */
    ossa_allocator allocator;
} ossa_write_options;

/* Encodes into a new buffer; free it with ossa_free_buffer. */
ossa_status ossa_write_memory(const ossa_model *model, const ossa_write_options *options,
                              void **out_data, size_t *out_size, ossa_error *error);
void ossa_free_buffer(void *data, const ossa_write_options *options);

/* Writes atomically: a temporary file beside `path`, then rename. On
 * failure no file is left behind and an existing `path` is untouched. */
ossa_status ossa_write_file(const ossa_model *model, const char *path,
                            const ossa_write_options *options, ossa_error *error);

/* Formats by name ("iqm") or file extension (".iqm", "guy.iqm");
 * OSSA_FORMAT_AUTO when unknown. */
ossa_format ossa_format_from_name(const char *name_or_path);
const char *ossa_format_name(ossa_format format);
/* The formats this library knows, in table order: writes up to `capacity`
 * of them to `out` (may be NULL) and returns how many there are. */
uint32_t ossa_format_list(ossa_format *out, uint32_t capacity);
/* Whether the library can read / write the format. */
int ossa_format_can_read(ossa_format format);
int ossa_format_can_write(ossa_format format);
/* Space-separated file extensions of the format (".iqm"), "" if unknown. */
const char *ossa_format_extensions(ossa_format format);
/* Guesses the format of a buffer from its content; AUTO when unknown. */
ossa_format ossa_format_detect(const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_H */
