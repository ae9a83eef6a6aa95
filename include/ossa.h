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
 *  - Option structs are zero-initialised; zero always means the default.
 *    Allocators are passed by pointer everywhere (NULL = malloc/free).
 *
 * Quick start (error handling shortened):
 *
 *   ossa_error err;
 *   ossa_model *m = ossa_load_file("guy.iqm", NULL, &err);   // any format
 *   if (!m) { char b[600]; fprintf(stderr, "%s\n", ossa_error_format(&err, b, sizeof b)); }
 *   printf("%u joints, %u animations\n", m->num_joints, m->num_animations);
 *
 *   ossa_write_file(m, "guy.glb", NULL, &err);               // format from the name
 *
 *   ossa_clip *clip = ossa_clip_create(m, 0, NULL, &err);    // animation 0
 *   ossa_transform *local = malloc(m->num_joints * sizeof *local);
 *   float (*model)[16] = malloc(m->num_joints * sizeof *model);
 *   ossa_sample_job job = {0};
 *   job.clip = clip;
 *   job.time = 0.5;                                          // seconds
 *   job.local = local;
 *   job.model = model;                                       // model-space matrices
 *   job.num_outputs = m->num_joints;
 *   ossa_sample_run(&job, &err);
 *
 *   ossa_clip_free(clip);
 *   ossa_model_free(m);
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

/* The one place the version is set: CMakeLists.txt reads these three
 * lines. "MAJOR.MINOR.PATCH" of the library actually linked: */
const char *ossa_version_string(void);

/* -- Diagnostics -----------------------------------------------------------
 *
 * Errors, warnings and validation findings are one type, each with a
 * stable numeric code: callers and tests branch on codes, never on
 * message text. Codes keep their values; new ones are added at the end of
 * their range. */

typedef enum ossa_status {
    OSSA_OK = 0,
    OSSA_FAILED = 1 /* details in the ossa_error */
} ossa_status;

typedef enum ossa_code {
    OSSA_CODE_NONE = 0,
    /* Errors (1..99): the call failed. */
    OSSA_ERROR_IO = 1,          /* open, read, map, write or rename failed */
    OSSA_ERROR_NOMEM = 2,       /* an allocation failed */
    OSSA_ERROR_FORMAT = 3,      /* not a file of the expected (or any known) format */
    OSSA_ERROR_TRUNCATED = 4,   /* the data ends before a structure it declares */
    OSSA_ERROR_CORRUPT = 5,     /* a count, offset, index or value is out of range */
    OSSA_ERROR_UNSUPPORTED = 6, /* valid input that ossa cannot represent */
    OSSA_ERROR_ARGUMENT = 7,    /* the caller passed an invalid argument */
    OSSA_ERROR_MISMATCH = 8,    /* inputs that cannot be combined (merging) */
    OSSA_ERROR_ACCESS = 9,      /* a file reference that the load options do not allow */
    OSSA_ERROR_EXISTS = 10,     /* an output file exists and may not be replaced
                                   (OSSA_WRITE_NO_REPLACE) */

    /* Warnings (100..199): the call succeeded; what the reader, writer or
     * merge did about something it met. */
    OSSA_WARNING_IGNORED = 100,      /* input not used: unknown commands, skipped records,
                                        trailing bytes, unsupported features */
    OSSA_WARNING_DROPPED = 101,      /* data lost: what the output (or a merge) cannot hold */
    OSSA_WARNING_REPAIRED = 102,     /* input fixed up: joints reordered, frames padded,
                                        defaults or rebuilt values used */
    OSSA_WARNING_INCONSISTENT = 103, /* the input disagrees with itself; one side was taken */
    OSSA_WARNING_NONSTANDARD = 104,  /* outside the format's rules, read anyway (byte order
                                        marks, reserved flags, unknown versions, misalignment) */
    OSSA_WARNING_TRUNCATED = 105,    /* the input ends inside a statement or an item */
    OSSA_WARNING_LIMITED = 106,      /* more than is kept: influences, sets, joints */
    OSSA_WARNING_RENAMED = 107,      /* names changed to be unique or writable */

    /* Validation findings (200..299), from ossa_model_validate. */
    OSSA_PROBLEM_PARENT_ORDER = 200,   /* a joint's parent does not come before it */
    OSSA_PROBLEM_BIND_NOT_FINITE = 201,
    OSSA_PROBLEM_ROTATION_NORM = 202,  /* a bind rotation is not unit */
    OSSA_PROBLEM_DUPLICATE_NAME = 203, /* two joints share a name */
    OSSA_PROBLEM_ARRAY_FORMAT = 204,   /* a vertex array's format or size is invalid */
    OSSA_PROBLEM_NOT_FINITE = 205,     /* a vertex value is NaN or infinite */
    OSSA_PROBLEM_BLEND_PAIR = 206,     /* blend indexes without weights or the reverse */
    OSSA_PROBLEM_BLEND_INDEX = 207,    /* a blend index names no joint */
    OSSA_PROBLEM_BLEND_NEGATIVE = 208, /* a negative blend weight */
    OSSA_PROBLEM_BLEND_SUM = 209,      /* blend weights do not sum to 1 */
    OSSA_PROBLEM_UBYTE_SUM = 210,      /* ubyte blend weights do not sum to 255 */
    OSSA_PROBLEM_NO_WEIGHT = 211,      /* a vertex without any blend weight */
    OSSA_PROBLEM_TRIANGLE_INDEX = 212, /* a triangle names a vertex out of range */
    OSSA_PROBLEM_DEGENERATE = 213,     /* a triangle repeats a vertex */
    OSSA_PROBLEM_MESH_RANGE = 214,     /* a mesh's ranges leave the model */
    OSSA_PROBLEM_MESH_VERTEX = 215,    /* a mesh's triangle uses a vertex outside the mesh */
    OSSA_PROBLEM_BOUNDS = 216,         /* stored bounds are invalid */
    OSSA_PROBLEM_BOUNDS_LOOSE = 217,   /* stored bounds do not contain the skinned mesh */
    OSSA_PROBLEM_FRAMERATE = 218,      /* an animation's frame rate is invalid */
    OSSA_PROBLEM_NO_FRAMES = 219,      /* an animation without frames */
    OSSA_PROBLEM_POSE_NOT_FINITE = 220,
    OSSA_PROBLEM_POSE_ROTATION = 221   /* a frame's rotation is not unit */
} ossa_code;

typedef enum ossa_severity {
    OSSA_SEVERITY_NOTE = 0, /* information (an encoder's statistics, say) */
    OSSA_SEVERITY_WARNING = 1,
    OSSA_SEVERITY_ERROR = 2
} ossa_severity;

#define OSSA_NO_OFFSET UINT64_MAX

typedef struct ossa_diagnostic {
    ossa_code code;
    ossa_severity severity;
    /* Where in the input: byte offset for binary formats (OSSA_NO_OFFSET when
     * unknown), 1-based line and column for text formats (0 when unknown). */
    uint64_t offset;
    uint32_t line, column;
    /* The file it is about ("" for memory input without a name, and for
     * warnings kept in a model: the model knows its file). */
    char file[256];
    /* What was expected and what was found, without the file name. */
    char message[256];
} ossa_diagnostic;

/* What a failing call fills in: every field, severity ERROR. The caller's
 * struct needs no initialisation and nothing of an earlier use remains. */
typedef ossa_diagnostic ossa_error;

/* Receives diagnostics during a call (validation, writing). The pointer
 * is valid only during the call. */
typedef void (*ossa_diagnostic_fn)(void *user, const ossa_diagnostic *diagnostic);

/* Writes "file:where: message" into buf (always NUL-terminated) and returns
 * buf. "where" is "line:column" for text, "byte N" for binary, or omitted. */
const char *ossa_error_format(const ossa_error *error, char *buf, size_t size);

/* Short name of a code ("io", "nomem", "format", "ignored", ...); "unknown"
 * for a value that is not a code. */
const char *ossa_code_name(ossa_code code);

/* -- Allocation ------------------------------------------------------------ */

/* Optional custom allocator; all members zero means malloc/free. `alloc`
 * returns NULL on failure (the library then fails with OSSA_ERROR_NOMEM);
 * `free` gets every pointer `alloc` returned, once, and never NULL. Every
 * allocation of a load, write or merge goes through it, except the JSON
 * tree of glTF files: cJSON (1.7.15) offers only process-wide hooks, which the library
 * leaves alone, so those nodes come from malloc. */
typedef struct ossa_allocator {
    void *(*alloc)(void *user, size_t size);
    void (*free)(void *user, void *ptr);
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
 * (docs/formats/iqm.md §4); use ossa_vertex_array_read() to get floats. */
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
    /* Per joint, which channels the source animates (OSSA_CHANNEL_*), or
     * NULL when every joint has all three. Frames always hold full TRS;
     * channels a source lacks hold the bind pose's value, and merging into
     * another skeleton takes those from the target's bind pose. */
    uint8_t *channels;
} ossa_animation;

enum { OSSA_CHANNEL_TRANSLATION = 1, OSSA_CHANNEL_ROTATION = 2, OSSA_CHANNEL_SCALE = 4 };

/* A named blob that a format keeps for round trips and that other formats
 * ignore (for example IQM extensions, key "iqm.extension:NAME"). */
typedef struct ossa_extra {
    const char *key;
    const void *data;
    size_t size;
} ossa_extra;

/* Extras that ossa_model_merge reads, for formats that keep a mesh and its
 * skeleton in separate files (illEngine):
 *
 * OSSA_EXTRA_JOINT_INDEX: num_joints uint32_t (host order), for each joint
 *   its index in the source file's own numbering, when the model's order
 *   differs (a reader moved parents before their children). Blend indexes
 *   of a mesh without joints and joints of an unnamed animation file use
 *   that numbering: merging either with this model maps them through it.
 *   Absent = the numbering is the model's joint order.
 * OSSA_EXTRA_MESH_TO_BIND: 16 floats (column-major 4x4, host order), the
 *   transform that takes the vertices of a mesh without joints into this
 *   skeleton's bind space. Merging such a mesh with this model transforms
 *   positions by it, and normals, tangents (xyz) and a custom array named
 *   "bitangent" by its 3x3 part (a rotation); the extra is then used up.
 *   illEngine MD5-derived skeletons carry Rx(-90) (docs/formats/ill.md §10). */
#define OSSA_EXTRA_JOINT_INDEX "ossa.joint_index"
#define OSSA_EXTRA_MESH_TO_BIND "ossa.mesh_to_bind"

/* Images and materials, kept in the model in a format-neutral way (keys
 * are these prefixes followed by a name; merging copies them along):
 *
 * OSSA_EXTRA_IMAGE + NAME: the bytes of the image file NAME, as stored
 *   (glTF holds PNG and JPEG; the formats that name image files copy any
 *   kind). The glTF reader keeps every image that a material of the file
 *   uses, under a plain file name; loading a format whose mesh materials
 *   name image files (IQM, IQE, MD5, SMD: "skin.png", or "Body" for
 *   Body.tga) reads, for each material, the first file beside the model
 *   of the names it may mean: the material's name when it ends in an
 *   image extension, then the name (without that extension) with .tga,
 *   .png and .jpg ("Body" finds Body.tga, Body.png, Body.jpg; "x.tga"
 *   finds x.tga, x.png, x.jpg), under the file's name; the OBJ reader
 *   keeps the images its MTL files' textures name, under their names
 *   relative to the OBJ. Writers put them in the file (glTF, which holds
 *   PNG and JPEG only: a TGA image becomes a PNG of the same pixels, named
 *   NAME.png) or beside it under their plain file name (the others, OBJ's
 *   MTL file naming them), as ossa_write_options.images says.
 *   OSSA_LOAD_NO_IMAGES reads none.
 * OSSA_EXTRA_MATERIAL + NAME: how the material NAME (an ossa_mesh's
 *   `material`) looks, glTF's metallic-roughness model, as UTF-8 lines
 *   "key value...", one per value that differs from glTF's default:
 *     base_color R G B A, metallic F, roughness F, emissive R G B,
 *     normal_scale F, occlusion_strength F, alpha_mode opaque|mask|blend,
 *     alpha_cutoff F, double_sided (no value), and for each texture SLOT
 *     (base_color, metallic_roughness, normal, occlusion, emissive):
 *     SLOT_texcoord N (the TEXCOORD set), SLOT_sampler MAG MIN WRAP_S
 *     WRAP_T (glTF's numbers, 0 = unspecified) and SLOT_texture IMAGE
 *     (last on its line, the rest of which is the image's NAME).
 *   The glTF and FBX readers describe their materials; the OBJ reader
 *   those its MTL files define, as Blender 3.4 maps them
 *   (docs/formats/obj.md §9). Readers skip keys they do not know. A
 *   material without this extra has as its base colour texture the first
 *   image of the model among the names it may mean (above: "Body" has
 *   Body.tga when the model has it), else, when it is named like an image
 *   file, that name. */
#define OSSA_EXTRA_IMAGE "ossa.image:"
#define OSSA_EXTRA_MATERIAL "ossa.material:"



typedef enum ossa_format {
    OSSA_FORMAT_AUTO = 0, /* detect from content, then from the file name */
    OSSA_FORMAT_IQM = 1,
    OSSA_FORMAT_IQE = 2,      /* Inter-Quake Export, text */
    OSSA_FORMAT_GLTF = 3,     /* glTF 2.0, JSON (.gltf) */
    OSSA_FORMAT_GLB = 4,      /* glTF 2.0, binary (.glb) */
    OSSA_FORMAT_SOTC_SKB = 5, /* Shadow of the Colossus skeleton (XFF .skb) */
    OSSA_FORMAT_SOTC_ANB = 6, /* Shadow of the Colossus animation (XFF .anb) */
    OSSA_FORMAT_SOTC_NMO = 7, /* Shadow of the Colossus mesh (XFF .nmo) */
    OSSA_FORMAT_ILLMESH = 8,  /* illEngine mesh, text or binary */
    OSSA_FORMAT_ILLSKEL = 9,  /* illEngine skeleton */
    OSSA_FORMAT_ILLANIM = 10, /* illEngine animation */
    OSSA_FORMAT_ILLANSET = 11, /* illEngine bone names of a model set (.illanset) */
    OSSA_FORMAT_SOTC_NTO = 12, /* Shadow of the Colossus texture (XFF .nto): header only */
    OSSA_FORMAT_FBX = 13,      /* Autodesk FBX 7, binary or ASCII: read only */
    OSSA_FORMAT_SMD = 14,      /* Valve Studiomdl Data: a reference or an animation */
    OSSA_FORMAT_OBJ = 15,      /* Wavefront OBJ: static polygon meshes */
    OSSA_FORMAT_MD5MESH = 16,  /* id Tech 4 .md5mesh (version 10): skeleton and meshes */
    OSSA_FORMAT_MD5ANIM = 17   /* id Tech 4 .md5anim (version 10): one animation */
} ossa_format;

/* The model's joints were made from an animation-only file's poses: they
 * have no real bind pose (frame 0 of the first animation stands in) and
 * usually no names. Writers that can keep a file animation-only do so. */
enum { OSSA_MODEL_SKELETON_FROM_POSES = 1 };
/* The model's joint parents are not known (SOTC .anb files drive bones by
 * index and store no hierarchy): every joint is a root. Merging such a
 * model into a skeleton matches joints by index without comparing parents;
 * merging a skeleton into it takes the skeleton's parents. */
enum { OSSA_MODEL_PARENTS_UNKNOWN = 2 };
/* The model's joints carry names only (an illEngine .illanset): every joint
 * is a root with the identity bind pose. Merging it into a model with
 * joints gives their names to the joints without one, by index (through
 * OSSA_EXTRA_JOINT_INDEX when present); merging a skeleton into it
 * replaces its joints by the skeleton's and keeps the names the same way. */
enum { OSSA_MODEL_NAMES_ONLY = 4 };

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
     * wrong: see ossa_model_compute_adjacency), or NULL. */
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

    /* Non-fatal problems met while loading (severity WARNING, file ""). */
    uint32_t num_warnings;
    ossa_diagnostic *warnings;

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
ossa_status ossa_model_set_num_vertices(ossa_model *model, uint32_t count, ossa_error *error);

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

/* Copies `count` frames of num_joints transforms each (frame-major) into
 * frames [first, first + count) of animation `animation`. */
ossa_status ossa_model_set_animation_frames(ossa_model *model, uint32_t animation, uint32_t first,
                                            uint32_t count, const ossa_transform *frames,
                                            ossa_error *error);
/* Gives the animation stored per-frame bounds: num_frames records copied
 * (NULL removes them). */
ossa_status ossa_model_set_animation_bounds(ossa_model *model, uint32_t animation,
                                            const ossa_bounds *bounds, ossa_error *error);
/* Which channels the animation's source animates per joint (num_joints
 * OSSA_CHANNEL_* masks, copied; NULL = every channel of every joint). */
ossa_status ossa_model_set_animation_channels(ossa_model *model, uint32_t animation,
                                              const uint8_t *channels, ossa_error *error);

ossa_status ossa_model_set_comment(ossa_model *model, const void *text, size_t size,
                                   ossa_error *error);
ossa_status ossa_model_add_extra(ossa_model *model, const char *key, const void *data,
                                 size_t size, ossa_error *error);

/* Copies src's animations into dst, matching joints by name (by index when
 * either side has no names; then the parents must match unless a side has
 * OSSA_MODEL_PARENTS_UNKNOWN). Joints of dst that src's animations lack keep
 * their bind pose, and joints listed in another order are matched by name,
 * each with one warning in dst; src joints missing in dst are dropped with a
 * warning (an md5anim's fail the merge, as in id Tech 4). If dst
 * has no joints, it takes src's skeleton. A mesh in src is merged only when
 * dst has none. */
ossa_status ossa_model_merge(ossa_model *dst, const ossa_model *src, ossa_error *error);

/* -- Transforming a model ----------------------------------------------------
 *
 * What `ossa convert` can do between reading and writing (the IQM SDK's
 * options, and more). Each changes the model in place and keeps it
 * consistent; on a failed check nothing changes. Positions that move and
 * are stored as integers or half floats become floats first. */

/* Multiplies vertex positions, bind translations and every frame's
 * translations by `factor` (finite, > 0): the same model, `factor` times
 * larger (the IQM SDK's --scale). Stored bounds scale with it exactly. */
ossa_status ossa_model_scale(ossa_model *model, float factor, ossa_error *error);

/* Adds `offset` to every vertex position and nothing else: the meshes move
 * against their skeleton (the IQM SDK's --meshtrans). Stored bounds no
 * longer apply and are removed (writers compute new ones). */
ossa_status ossa_model_translate_meshes(ossa_model *model, const float offset[3],
                                        ossa_error *error);

/* Turns the whole model by a unit quaternion (x, y, z, w; normalized here):
 * positions, normals, tangents (xyz) and custom "bitangent" arrays, and the
 * bind pose and every frame of the root joints (the IQM SDK's --rotate).
 * Stored bounds are removed. */
ossa_status ossa_model_rotate(ossa_model *model, const float rotation[4], ossa_error *error);

/* Makes the joints of a skeleton built from an animation-only file's poses
 * (OSSA_MODEL_SKELETON_FROM_POSES) a real skeleton, which every writer
 * writes, even without a mesh (the IQM SDK's --forcejoints). */
void ossa_model_force_joints(ossa_model *model);

/* Appends src's vertices, triangles and meshes to dst's (the IQM SDK's
 * comma-joined mesh lists). Joints match by name (by index when either
 * skeleton is unnamed; the counts must then agree); a src joint missing
 * in dst fails with OSSA_ERROR_MISMATCH. Blend indexes are renumbered;
 * arrays only one side has are filled for the other side's vertices
 * (white colours, joint 0 with full weight, else zeros) with a warning in
 * dst; arrays whose formats differ become floats (blend indexes: the
 * narrowest integer format that holds every joint). A dst without joints
 * or vertices takes src's skeleton. Animations of src are not copied
 * (ossa_model_merge does that); dst's stored bounds are removed. */
ossa_status ossa_model_append_meshes(ossa_model *dst, const ossa_model *src, ossa_error *error);

/* The frames the IQM SDK's --start and --end keep of an animation of
 * `num_frames` frames (docs/formats/iqm.md §15): from `start` (>= 0) to the last kept
 * frame, inclusive, which is `end` counted from frame 0, or for a negative
 * `end` num_frames + end + 1 (so -1 and -2 keep every frame, -3 drops the
 * last one). An `end` past the last frame means the last frame. Fails
 * when no frame is left. */
ossa_status ossa_animation_range(uint32_t num_frames, int64_t start, int64_t end,
                                 uint32_t *first, uint32_t *count, ossa_error *error);

/* Keeps frames [first, first + count) of an animation (count >= 1), with
 * their stored bounds. */
ossa_status ossa_model_trim_animation(ossa_model *model, uint32_t animation, uint32_t first,
                                      uint32_t count, ossa_error *error);

/* Sets an animation's frame rate (>= 0; 0 = not specified) and flags
 * (OSSA_ANIMATION_LOOP; other bits are kept as given) without touching
 * its frames. */
ossa_status ossa_model_set_animation_timing(ossa_model *model, uint32_t animation,
                                            float framerate, uint32_t flags, ossa_error *error);

/* Renames an animation; fails when `name` is empty or another animation
 * has it. */
ossa_status ossa_model_rename_animation(ossa_model *model, uint32_t animation, const char *name,
                                        ossa_error *error);

/* Removes an animation; later ones move down by one. */
ossa_status ossa_model_remove_animation(ossa_model *model, uint32_t animation, ossa_error *error);

/* Resamples an animation at `framerate` (> 0) frames per second over the
 * same time: a looping one keeps its period (n frames at rate r become
 * round(n * framerate / r), sampled across the wrap back to frame 0), one
 * that plays once keeps its first and last frame (round((n - 1) *
 * framerate / r) + 1 frames, the last one clamped to the old last frame).
 * Between frames, translation and scale are interpolated linearly and
 * rotations by slerp along the shorter arc (double precision); a sample
 * that falls on a frame copies it exactly. Frame rate 0 counts as
 * OSSA_DEFAULT_FRAMERATE. Stored bounds are removed. */
ossa_status ossa_model_resample_animation(ossa_model *model, uint32_t animation, float framerate,
                                          ossa_error *error);

/* The first array of `type` (for custom arrays, the one named `name`), or NULL. */
const ossa_vertex_array *ossa_model_find_array(const ossa_model *model, ossa_vertex_type type,
                                               const char *name);

/* Decodes vertices [first, first+count) of an array to floats:
 * count * array->size values (normalized integers, blend indexes as
 * integers). Returns OSSA_FAILED if the range is out of bounds. */
ossa_status ossa_vertex_array_read(const ossa_model *model, const ossa_vertex_array *array,
                                   uint32_t first, uint32_t count, float *out);

/* Adjacency by the correct definition (docs/formats/iqm.md §10): 3 entries per
 * triangle, OSSA_NO_NEIGHBOR where an edge has no single neighbour.
 * `out` holds 3 * num_triangles entries. */
ossa_status ossa_model_compute_adjacency(const ossa_model *model, uint32_t *out, ossa_error *error);

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
ossa_status ossa_model_compute_bounds(const ossa_model *model, uint32_t animation,
                                ossa_bounds_mode mode, ossa_bounds *out, ossa_error *error);

/* -- Validation ------------------------------------------------------------ */

/* Deep checks: parents before children, indices in range, weight sums,
 * quaternion norms, NaN/Inf, bounds. Reports every finding (OSSA_PROBLEM_*
 * codes, severity WARNING or ERROR) to `fn` (may be NULL) and returns the
 * number of errors (warnings not counted). */
uint32_t ossa_model_validate(const ossa_model *model, ossa_diagnostic_fn fn, void *user);

/* -- Reading and writing --------------------------------------------------- */

typedef struct ossa_load_options {
    ossa_format format;        /* OSSA_FORMAT_AUTO (0) = detect */
    /* For messages and detection by extension, and the base of the sibling
     * files some formats name (see ossa_load_memory). */
    const char *file_name;
    const ossa_allocator *allocator; /* NULL = malloc/free; every allocation of the load */
    /* Blend influences kept per vertex by formats that allow more (the
     * largest, renormalized): 0 = 4, at most OSSA_MAX_COMPONENTS. */
    uint32_t max_influences;
    /* Frame rate for formats that store none or that are resampled to a
     * frame grid: 0 = the format's default (30). */
    float framerate;
    uint32_t flags; /* OSSA_LOAD_* */
    /* Optional: reads the files that the loaded file names (see
     * ossa_load_memory), instead of the file system. `path` is the name
     * the file gives, resolved against the directory of file_name, after
     * the check of OSSA_LOAD_ALLOW_PARENT_PATHS. Return OSSA_OK with the
     * whole file in *data and *size (not modified by the library), or
     * OSSA_FAILED to refuse it or report it missing; the load then fails
     * with OSSA_ERROR_IO naming the reference. A server confines reads
     * here (symbolic links, an archive, a whitelist). */
    ossa_status (*read_file)(void *user, const char *path, void **data, size_t *size);
    /* Optional: called once with every buffer read_file gave, when the
     * load no longer needs it (before the load call returns). */
    void (*release_file)(void *user, void *data, size_t size);
    void *file_user; /* passed to read_file and release_file */
    /* Threads that read (the calling one among them; started for the call
     * and joined before it returns): 0 = 1, at most 64. Large text files
     * (IQE animations, md5anim frames) are parsed in parallel shares. The
     * model, warnings and errors do not depend on it. With more than one,
     * the allocator may be called from several threads at once: it must be
     * thread-safe. */
    uint32_t threads;
} ossa_load_options;

/* Load flags; each names the format it applies to, others ignore it. */
enum {
    OSSA_LOAD_ILL_TEXT = 1u << 0,     /* illEngine: force the ASCII reader */
    OSSA_LOAD_ILL_BINARY = 1u << 1,   /* illEngine: force the binary reader */
    OSSA_LOAD_ILL_MD5_FIX = 1u << 2,  /* illEngine: force the Rx(-90) correction */
    OSSA_LOAD_ILL_NO_MD5_FIX = 1u << 3, /* illEngine: never apply it */
    /* illEngine text meshes: force the attribute order of December 2-3,
     * 2012 (v0a: texcoord before blend data) or the later one (v0b);
     * default: detect (docs/formats/ill.md §3) */
    OSSA_LOAD_ILL_MESH_V0A = 1u << 4,
    OSSA_LOAD_ILL_MESH_V0B = 1u << 5,
    /* SOTC .nto: take the high size nibble (byte 0x1E) as log2 width and
     * the low one as log2 height; default: low = width (docs/formats/sotc.md §8) */
    OSSA_LOAD_NTO_SWAP_SIZE = 1u << 6,
    /* FBX: keep the file's axes (default: converted to ossa's Z-up, front
     * -Y, from GlobalSettings; docs/formats/fbx.md) */
    OSSA_LOAD_FBX_KEEP_AXES = 1u << 7,
    /* FBX: keep the file's units (default: metres, UnitScaleFactor / 100) */
    OSSA_LOAD_FBX_KEEP_UNITS = 1u << 8,
    /* SMD: turn the model +90 degrees about Z, as studiomdl does when it
     * compiles (front -Y becomes +X); default: coordinates as written */
    OSSA_LOAD_SMD_TURN = 1u << 9,
    /* OBJ: Blender's axis mapping, (x, y, z) -> (x, -z, y) (Y up to Z up
     * only); default: the IQM SDK's (x, y, z) -> (z, x, y), which also
     * turns the front (+Z) to +X (docs/formats/obj.md) */
    OSSA_LOAD_OBJ_BLENDER_AXES = 1u << 10,
    /* Every format: read files that the loaded file names outside its own
     * folder (a ".." that climbs above it, or an absolute path); by
     * default they are refused with OSSA_ERROR_ACCESS (see
     * ossa_load_memory). */
    OSSA_LOAD_ALLOW_PARENT_PATHS = 1u << 11,
    /* Every format: keep no image bytes (OSSA_EXTRA_IMAGE): neither the
     * images a glTF file holds or names nor those that IQM-style materials
     * or OBJ's MTL files name beside the file are read. Materials are
     * kept. */
    OSSA_LOAD_NO_IMAGES = 1u << 12
};

/* `options` may be NULL. Returns NULL and fills `error` on failure. The
 * buffer is not kept after the call.
 *
 * Files that name other files are read with them: external glTF buffers
 * (.bin) and images named by uri, OBJ's mtllib files and the images they
 * name, the images IQM, IQE, MD5 and SMD materials name (see
 * OSSA_EXTRA_IMAGE) are read from the directory of
 * options->file_name (the current directory when it has none), through
 * options->read_file when it is set. A name that leaves that directory
 * (absolute, or a ".." that climbs above it: "../secret.bin") is refused
 * with OSSA_ERROR_ACCESS naming it, unless OSSA_LOAD_ALLOW_PARENT_PATHS is
 * set. Symbolic links inside the directory are followed: to confine reads
 * further, pass read_file. */
ossa_model *ossa_load_memory(const void *data, size_t size, const ossa_load_options *options,
                             ossa_error *error);
/* Maps the file and loads it. */
ossa_model *ossa_load_file(const char *path, const ossa_load_options *options, ossa_error *error);

/* One file of a write: its path and contents (see ossa_write_options.output). */
typedef struct ossa_output_file {
    const char *path;
    const void *data;
    size_t size;
} ossa_output_file;

/* Where a write puts the model's images (OSSA_EXTRA_IMAGE). */
typedef enum ossa_images {
    /* glTF: EMBED for .glb and for .gltf written to memory or with
     * OSSA_WRITE_GLTF_EMBED, else BESIDE; other formats: BESIDE. */
    OSSA_IMAGES_DEFAULT = 0,
    /* Image files beside the output, named by the glTF uri, by OBJ's MTL
     * file, or by the mesh's material in formats whose material names an
     * image file (IQM, IQE, MD5, SMD), which then name the image of the
     * material's base colour. An existing file of that name with other
     * bytes is left alone: the image gets a free name (NAME_2.png) instead.
     * Only ossa_write_file writes files beside: from ossa_write_memory glTF
     * keeps its images inside, the other formats their material names. */
    OSSA_IMAGES_BESIDE,
    /* glTF: inside the file (in the binary buffer); other formats: BESIDE. */
    OSSA_IMAGES_EMBED,
    /* No image written. glTF keeps a texture's image name in the
     * material's extras; other formats keep the material names as they
     * are. */
    OSSA_IMAGES_NONE
} ossa_images;

typedef struct ossa_write_options {
    ossa_format format;      /* AUTO = from the file name (ossa_write_file) */
    /* Per-frame bounds to store: IQM and MD5 files (the formats that hold
     * them; MD5 needs bounds, so NONE and a missing STORED give
     * conservative ones); other writers ignore it. DEFAULT = conservative. */
    ossa_bounds_mode bounds;
    const ossa_allocator *allocator; /* NULL = malloc/free; buffers and temporaries */
    /* For formats that hold one animation (SOTC .anb): its index. */
    uint32_t animation;
    ossa_images images; /* where the model's images go */
    /* With OSSA_WRITE_POSED: the time, in seconds, of animation `animation`
     * at which a format that holds one static mesh (OBJ) is posed; looped
     * or clamped as the animation's OSSA_ANIMATION_LOOP says, frame rate 0
     * taken as OSSA_DEFAULT_FRAMERATE. */
    double time;
    uint32_t flags; /* OSSA_WRITE_* */
    /* Optional: receives (with `user`) every warning of the write, once per
     * problem that does not stop it but loses data (OSSA_WARNING_DROPPED:
     * channels a format cannot hold, rotations quantized beyond a small
     * error...), and notes about the encoding (severity NOTE: SOTC .anb's
     * summary of the encodings chosen). One line, no newline, file "". */
    ossa_diagnostic_fn diagnostic;
    /* Optional: called with the path of every file ossa_write_file wrote
     * (formats that write several files: glTF's .bin, illEngine, MD5,
     * SMD), after all of them are in place. */
    void (*wrote)(void *user, const char *path);
    /* Optional: ossa_write_file hands every file it would write (paths as
     * it would create them, contents valid during the call) to this
     * function, all at once, instead of writing them; `wrote` is then not
     * called. Returning OSSA_FAILED (with `error` filled) fails the write.
     * For streams and archives: a caller that wants one file can refuse
     * count > 1. */
    ossa_status (*output)(void *user, const ossa_output_file *files, size_t count,
                          ossa_error *error);
    void *user;
    /* Threads that write (as ossa_load_options.threads): IQM quantizes
     * poses, computes bounds and adjacency in parallel; md5anim computes
     * bounds in parallel. The bytes do not
     * depend on it. With more than one, the allocator may be called from
     * several threads at once: it must be thread-safe. */
    uint32_t threads;
} ossa_write_options;

/* Write flags; each names the format it applies to, others ignore it. */
enum {
    OSSA_WRITE_GLTF_EMBED = 1u << 0, /* .gltf: buffers as data URIs, no .bin */
    /* OBJ: the mesh skinned at `animation`, `time` instead of the bind pose */
    OSSA_WRITE_POSED = 1u << 1,
    /* OBJ: the inverse of OSSA_LOAD_OBJ_BLENDER_AXES, (x, y, z) -> (x, z, -y) */
    OSSA_WRITE_OBJ_BLENDER_AXES = 1u << 2,
    /* glTF: each animation keys only the channels it moves (or holds away
     * from the bind pose). Default: every animation keys every channel
     * that any animation of the file moves, with one constant key where it
     * does not move, because players that switch or blend actions (Blender,
     * three.js) keep the last value of a channel an action leaves unkeyed. */
    OSSA_WRITE_GLTF_SPARSE_CHANNELS = 1u << 3,
    /* Flags of every format start at bit 16. */
    /* ossa_write_file of a format that writes several files (illEngine,
     * MD5, SMD, .gltf with its .bin): fail with OSSA_ERROR_EXISTS, writing
     * nothing, when any of them exists. Writes of one file replace it as
     * usual. (Checked before writing: another process may still create a
     * file in between.) */
    OSSA_WRITE_NO_REPLACE = 1u << 16
};

/* Encodes into a new buffer; free it with ossa_free_buffer. */
ossa_status ossa_write_memory(const ossa_model *model, const ossa_write_options *options,
                              void **out_data, size_t *out_size, ossa_error *error);
/* Frees a buffer that ossa_write_memory (or another ossa_* call that says
 * so) returned; `allocator` is the one it was made with (NULL = malloc). */
void ossa_free_buffer(void *data, const ossa_allocator *allocator);

/* Writes atomically: a temporary file beside `path`, then rename. On
 * failure no file is left behind and an existing `path` is untouched.
 * An existing device or FIFO at `path` is written into (it cannot be
 * replaced atomically, and must not be replaced at all); a directory is
 * refused; a missing directory is named in the error. */
ossa_status ossa_write_file(const ossa_model *model, const char *path,
                            const ossa_write_options *options, ossa_error *error);

/* Writes files the way ossa_write_file does (temporaries renamed into
 * place together, devices and FIFOs written into, OSSA_WRITE_NO_REPLACE
 * and `wrote` honoured; `output` ignored): for the files an `output`
 * callback received, written later or elsewhere (ossa convert -j writes
 * the files of parallel conversions in input order with it). */
ossa_status ossa_write_output_files(const ossa_output_file *files, size_t count,
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

/* What the files that ossa_write_file writes in a format hold. */
enum {
    OSSA_HOLDS_MESHES = 1,
    OSSA_HOLDS_SKELETON = 2,
    OSSA_HOLDS_ANIMATIONS = 4,    /* every animation */
    OSSA_HOLDS_ONE_ANIMATION = 8, /* one: ossa_write_options.animation */
    /* ossa_write_options.animation matters: it picks the one animation, the
     * one written first, or the pose */
    OSSA_HOLDS_PICKS_ANIMATION = 16
};
/* OSSA_HOLDS_* of a format that can be written; 0 when it does not say
 * (or cannot be written). Writing a model with more than its format holds
 * reports each part left out (OSSA_WARNING_DROPPED) to
 * ossa_write_options.diagnostic. */
uint32_t ossa_format_holds(ossa_format format);
/* Space-separated file extensions of the format (".iqm"), "" if unknown. */
const char *ossa_format_extensions(ossa_format format);
/* Guesses the format of a buffer from its content; AUTO when unknown. */
ossa_format ossa_format_detect(const void *data, size_t size);

/* -- Runtime ---------------------------------------------------------------
 *
 * Playing animations back: compile an animation into a clip, sample it at
 * any time, blend poses, turn local poses into model-space and skinning
 * matrices and skin vertices on the CPU. Every step is a plain function or
 * a small "job" struct (zero-initialise it, fill the fields, call
 * ossa_*_validate if you want the checks alone, then ossa_*_run, which
 * validates too). Jobs read and write caller-owned buffers and never
 * allocate, lock or touch global state: any number of threads may run jobs
 * on the same clip at once.
 *
 * A "pose" is an array of num_joints ossa_transform, parent-relative, in
 * joint order. Times are in seconds unless a field says frames. */

/* Which code a job runs. Every level computes the same function and the
 * fast ones are tested against OSSA_SIMD_REFERENCE: sampled local
 * transforms and skinned vertices agree within 1e-6 per component for
 * unit-scale data (measured: 1.2e-7 and 2.4e-7); model matrices, which
 * add up rounding along the hierarchy, within 1e-5 relative (measured
 * 1.4e-6). The results of one level are the same on every CPU that runs
 * it; AVX2 differs from SSE2 in the last bits (it fuses multiply-adds). */
typedef enum ossa_simd {
    OSSA_SIMD_AUTO = 0,  /* the fastest level this CPU supports */
    OSSA_SIMD_REFERENCE, /* plain C, double precision where it matters, exact
                            slerp: the path the fast ones are tested against */
    OSSA_SIMD_SCALAR,    /* the fast algorithm in portable C, 4 lanes: what
                            CPUs other than x86-64 get (and x86-64 builds
                            made with -DOSSA_NO_SIMD) */
    OSSA_SIMD_SSE2,      /* x86-64 only: 4 lanes of SSE2 */
    OSSA_SIMD_AVX2       /* x86-64 with AVX2 and FMA: 8 lanes */
} ossa_simd;

/* The level AUTO resolves to on this CPU (AVX2 when the CPU has AVX2 and
 * FMA, else SSE2 on x86-64, else SCALAR). */
ossa_simd ossa_simd_best(void);
/* Whether `level` can run here (AUTO, REFERENCE and SCALAR always can). */
int ossa_simd_supported(ossa_simd level);
const char *ossa_simd_name(ossa_simd level); /* "auto", "reference", ... */

/* How time maps to frames. */
typedef enum ossa_wrap {
    OSSA_WRAP_DEFAULT = 0, /* LOOP if the animation has OSSA_ANIMATION_LOOP, else CLAMP */
    OSSA_WRAP_LOOP,        /* after the last frame comes frame 0 again: frame
                              position p is taken modulo num_frames, and between
                              the last frame and p = num_frames the pose moves
                              from the last frame back to frame 0. Negative times
                              wrap too. */
    OSSA_WRAP_CLAMP        /* p is clamped to [0, num_frames - 1]: before the
                              start, frame 0; at and after the last frame, the
                              last frame */
} ossa_wrap;

/* Frame rate used for animations whose framerate is 0 ("not specified") or
 * not a finite positive number; the loaders' default too. */
#define OSSA_DEFAULT_FRAMERATE 30.0f

/* Up axis for root motion. */
typedef enum ossa_axis { OSSA_AXIS_Z = 0, OSSA_AXIS_Y = 1, OSSA_AXIS_X = 2 } ossa_axis;

/* An animation compiled for sampling: every frame normalized and laid out
 * as structure-of-arrays (joints padded to a multiple of 8, each channel of
 * 8 joints contiguous), rotations flipped so that consecutive frames are on
 * the same hemisphere, one extra frame after the last that repeats frame 0
 * for looping. One allocation. Immutable once created, so it may be shared
 * between threads. It copies what it needs: the model may be freed. */
typedef struct ossa_clip ossa_clip;

/* How a clip stores its frames. */
typedef enum ossa_clip_compression {
    OSSA_CLIP_FLOATS = 0,  /* every frame as floats: the layout above */
    /* Compressed, within ossa_clip_options.max_error: tracks (a joint's
     * rotation, translation or scale) that a constant keeps within the
     * bound cost nothing per frame; the others are cut into segments of 16
     * frames, range-reduced per clip (and per segment where that saves
     * bits) and quantized with the fewest bits per component (0, 3-19, or
     * raw floats) that keep every frame within the bound (measured at
     * every frame; ossa_clip_info.measured_error). Sampling costs more per
     * joint than a float clip (the keys are decoded; README, bench_clip).
     * A sample still reads two key frames, found from the time alone (no
     * cursor): random seeks cost what forward playback costs. Sampling
     * between frames interpolates the decoded keys as for float clips.
     * Little-endian hosts only (OSSA_ERROR_UNSUPPORTED elsewhere). */
    OSSA_CLIP_COMPRESSED
} ossa_clip_compression;

typedef struct ossa_clip_options {
    const ossa_allocator *allocator; /* NULL = malloc/free */
    /* Root motion (see ossa_root_motion): the joint whose horizontal
     * motion and yaw are tracked (zero = joint 0; must be a root, i.e.
     * parent -1) and the up axis (zero = Z, the IQM convention). */
    uint32_t root_joint;
    ossa_axis up_axis;
    /* OSSA_CLIP_COMPRESSED stores the keys quantized (see below); zero
     * keeps every frame as floats. */
    ossa_clip_compression compression;
    /* Compressed clips: the error bound, in model units. The error is
     * ACL's: the largest distance, over every frame and joint, between a
     * virtual vertex at `shell_distance` from the joint (+-d along each of
     * its axes, moved by the joint's model-space transform: errors that
     * add up down the hierarchy count) from the source frames and from the
     * compressed ones. 0 = 0.01% of the model's bind-pose size (the
     * diagonal of the box around its bind-pose vertices and joints), and
     * for shell_distance 0 = 1% of it. */
    float max_error;
    float shell_distance;
} ossa_clip_options;

/* Compiles model->animations[animation]. An animation with no frames
 * gives a one-frame clip holding the bind pose. Fails (NULL, error filled)
 * when the index is out of range, root_joint is not a root or memory runs
 * out. `options` may be NULL. */
ossa_clip *ossa_clip_create(const ossa_model *model, uint32_t animation,
                            const ossa_clip_options *options, ossa_error *error);
void ossa_clip_free(ossa_clip *clip); /* NULL is fine */

typedef struct ossa_clip_info {
    const char *name;        /* the animation's name (owned by the clip) */
    uint32_t num_joints;     /* poses sampled from the clip have this many */
    uint32_t num_frames;     /* >= 1 */
    float framerate;         /* effective frames per second (> 0; see
                                OSSA_DEFAULT_FRAMERATE) */
    double duration;         /* looping length in seconds: num_frames / framerate;
                                a clamped clip reaches its last frame at
                                (num_frames - 1) / framerate */
    uint32_t flags;          /* the animation's flags (OSSA_ANIMATION_LOOP) */
    const int32_t *parents;  /* num_joints parent indices (owned by the clip),
                                ready for ossa_local_to_model_job */
    const ossa_transform *bind_pose; /* num_joints bind transforms, normalized */
    const uint32_t *order;   /* num_joints joint indices sorted by depth in the
                                hierarchy, for ossa_local_to_model_job.order */
    ossa_simd simd;          /* the level AUTO means for jobs on this clip */
    size_t memory;           /* bytes held by the clip */
    ossa_clip_compression compression;
    /* Compressed clips: the bound and shell distance the clip was made
     * with, and the largest error measured then over every frame (model
     * units); 0 for float clips. */
    float max_error, shell_distance, measured_error;
} ossa_clip_info;

void ossa_clip_get_info(const ossa_clip *clip, ossa_clip_info *info);

/* Compressed clips saved and loaded (.ossaclip, docs/formats/ossaclip.md):
 * the file holds exactly the clip's memory image, little-endian, so a
 * load is one allocation, a read and a check of every count and offset
 * (nothing is decoded), and saving the same clip gives the same bytes.
 * ossa_clip_data gives the image (owned by the clip; NULL with *size 0 for
 * float clips, which cannot be saved). Files are written atomically. */
const void *ossa_clip_data(const ossa_clip *clip, size_t *size);
ossa_status ossa_clip_save(const ossa_clip *clip, const char *path, ossa_error *error);
/* `allocator` NULL = malloc/free. Bad data fails with the byte offset of
 * the problem. */
ossa_clip *ossa_clip_load_memory(const void *data, size_t size, const ossa_allocator *allocator,
                                 ossa_error *error);
ossa_clip *ossa_clip_load_file(const char *path, const ossa_allocator *allocator,
                               ossa_error *error);

/* What compression did to one animation (see ossa_clip_measure). */
typedef struct ossa_clip_stats {
    size_t raw_bytes;        /* memory of the float clip of the same animation */
    size_t compressed_bytes; /* memory of the clip measured */
    /* The error metric of ossa_clip_options (the clip's shell distance; 1%
     * of the bind-pose size for float clips) between the model's frames
     * and the clip sampled at every frame by OSSA_SIMD_REFERENCE, over
     * every joint and frame: the largest and the 99th percentile of the
     * per-joint, per-frame errors. Model units. */
    double max_error, p99_error;
    uint32_t constant_tracks; /* tracks with no per-frame data */
    uint32_t animated_tracks;
    /* Animated tracks per segment by bits per component: [b] counts the
     * (track, segment) pairs stored with b bits (32 = raw floats). */
    uint32_t bits_histogram[33];
} ossa_clip_stats;

/* Measures `clip`, made from model->animations[animation] (a compressed
 * or a float clip), against that animation. Allocates temporaries from the
 * model's allocator. */
ossa_status ossa_clip_measure(const ossa_model *model, uint32_t animation, const ossa_clip *clip,
                              ossa_clip_stats *stats, ossa_error *error);

/* Frame position for a time: `seconds * framerate` wrapped or clamped by
 * `wrap`; in [0, num_frames) when looping, [0, num_frames - 1] otherwise.
 * NaN gives 0. */
double ossa_clip_frame_at(const ossa_clip *clip, double seconds, ossa_wrap wrap);

/* Sampling flags. */
enum {
    /* `time` is a (fractional) frame position, not seconds. */
    OSSA_SAMPLE_FRAMES = 1,
    /* Pin the root joint's horizontal translation and its yaw (about the
     * clip's up axis) to their values at frame 0, removing the motion that
     * ossa_clip_root_motion reports. */
    OSSA_SAMPLE_REMOVE_ROOT_MOTION = 2
};

/* Key frames of a compressed clip decoded by earlier samples, for the
 * samples that follow (ozz-animation's sampling context). Without one, a
 * sample of a compressed clip decodes its two key frames every time; with
 * one, playing forward decodes each key frame once: samples between the
 * same two frames decode nothing, the next pair decodes one frame, with
 * the ranges of its segment (16 frames) worked out once. A random seek
 * decodes what it would without a cache. Samples give the same bytes with
 * or without it. Float clips ignore it.
 *
 * A cache belongs to one playing animation: jobs that run at the same time
 * need their own. It remembers the clip by its address and header; after
 * freeing a clip, call ossa_sample_cache_reset before sampling a clip that
 * may have taken its place. It takes 188 bytes per joint, rounded up to 8
 * joints, and about 320 more (two frames and a segment's ranges; Fox's 24
 * joints: 4.8 KB). */
typedef struct ossa_sample_cache ossa_sample_cache;
/* For clips of at most num_joints joints; allocator NULL = malloc. */
ossa_sample_cache *ossa_sample_cache_create(uint32_t num_joints, const ossa_allocator *allocator,
                                            ossa_error *error);
void ossa_sample_cache_reset(ossa_sample_cache *cache);
void ossa_sample_cache_free(ossa_sample_cache *cache); /* NULL is fine */

/* Samples a clip at one time: for every joint, translation and scale are
 * interpolated linearly between the two frames around the time and the
 * rotation by slerp along the shorter arc. Random access costs the same as
 * playing forward: there is no cursor, a sample reads exactly two frames
 * (of a compressed clip, it decodes them, unless `cache` holds them).
 *
 * At an exact frame position the frame's (normalized) values come out
 * unchanged. The fast levels compute slerp without trigonometry: the arc is
 * halved first (the normalized sum of the two keys is the exact
 * midpoint), then Eberly's polynomial ("A Fast and Accurate Algorithm for
 * Computing SLERP", 2011; 6 terms, within 2.2e-9 of slerp on half-arcs up
 * to 90 degrees of rotation) weighs the keys of the half that holds the
 * time, and the result is renormalized. Against the exact slerp in double
 * precision the largest error measured over rotations 0 to 360 degrees
 * apart is 1.2e-7 per quaternion component, the size of float rounding
 * (tests/test_runtime.c). Keys exactly 180 degrees apart have two
 * shortest arcs; which one is taken is unspecified. */
typedef struct ossa_sample_job {
    const ossa_clip *clip;
    double time;       /* seconds, or frames with OSSA_SAMPLE_FRAMES; any
                          finite value (wrapped or clamped by `wrap`) */
    ossa_wrap wrap;
    uint32_t flags;    /* OSSA_SAMPLE_* */
    ossa_simd simd;    /* AUTO = the clip's level */
    /* Outputs; at least one must be set. Each has room for num_joints
     * entries (the clip's). */
    ossa_transform *local;  /* the parent-relative pose, or NULL */
    /* Model-space matrices of the sampled pose (like ossa_local_to_model),
     * computed in the same pass (faster than sampling into `local` and then
     * running ossa_local_to_model_job), or NULL. */
    float (*model)[16];
    uint32_t num_outputs; /* entries in each output: >= num_joints */
    /* Decoded key frames kept for the next sample of a compressed clip, or
     * NULL (see ossa_sample_cache). */
    ossa_sample_cache *cache;
} ossa_sample_job;

ossa_status ossa_sample_validate(const ossa_sample_job *job, ossa_error *error);
ossa_status ossa_sample_run(const ossa_sample_job *job, ossa_error *error);

/* Model-space matrices from a local pose: model[j] = model[parent[j]] *
 * matrix(local[j]), roots get root * matrix(local[j]). A parent index that
 * is not smaller than its joint's (which a valid model never has) makes
 * the joint a root. */
typedef struct ossa_local_to_model_job {
    uint32_t num_joints;
    const int32_t *parents;      /* num_joints entries (-1 = root) */
    const ossa_transform *local; /* num_joints entries; rotations unit */
    const float *root;           /* 16 floats applied to roots, or NULL = identity */
    float (*model)[16];          /* num_joints matrices out */
    ossa_simd simd;
    /* Optional order in which to compose the matrices: a permutation of
     * the joints with every parent before its children, such as
     * ossa_clip_info.order (sorted by depth, which lets the products of a
     * skeleton's independent chains overlap: faster for long chains).
     * NULL = joint order. */
    const uint32_t *order;
} ossa_local_to_model_job;

ossa_status ossa_local_to_model_validate(const ossa_local_to_model_job *job, ossa_error *error);
ossa_status ossa_local_to_model_run(const ossa_local_to_model_job *job, ossa_error *error);

/* Inverse of every joint's model-space bind matrix (num_joints matrices).
 * A joint whose bind matrix is singular (a zero scale) gets the identity;
 * returns the number of such joints. */
uint32_t ossa_model_inverse_bind_matrices(const ossa_model *model, float (*out)[16]);

/* out[j] = model[j] * inverse_bind[j] for j < count: the matrices that
 * move a bind-pose vertex to the posed one. `out` may alias `model`. Both
 * inputs must be affine (last row 0 0 0 1). */
void ossa_skinning_matrices(uint32_t count, const float (*model)[16],
                            const float (*inverse_bind)[16], float (*out)[16]);

/* Inverse-transpose of the upper 3x3 of each matrix (translation 0), for
 * skinning normals and tangents when scales are not uniform. A singular
 * matrix gives its own 3x3. `out` may alias `matrices`. */
void ossa_normal_matrices(uint32_t count, const float (*matrices)[16], float (*out)[16]);

/* CPU linear blend skinning:
 *   out = sum_k weight[k] * M[index[k]] * (position, 1)
 *   out_normal = sum_k weight[k] * N[index[k]] * (normal, 0)   (tangent xyz alike)
 * with M = matrices and N = normal_matrices (or M when NULL: exact for
 * rotations and uniform scales). Weights are used as given (they should sum
 * to 1); normals and tangents are not renormalized; tangent w (the
 * bitangent sign) is copied. An influence whose index is >= num_matrices
 * contributes nothing. Every array is addressed as base + i * stride (bytes):
 * strides are multiples of 4 and at least the element size; a stride may
 * be larger (interleaved vertices). An output may be its own input (same
 * pointer and stride): every input of a vertex is read before any of its
 * outputs is written, so in-place skinning of interleaved buffers works.
 * Outputs must not otherwise overlap the inputs of later vertices. The
 * run checks every index once up front (one pass over the indices) so
 * that the loops need no per-influence check when all are in range. */
#define OSSA_MAX_INFLUENCES 8
typedef struct ossa_skinning_job {
    uint32_t num_vertices;
    uint32_t influences;          /* per vertex, 1..OSSA_MAX_INFLUENCES; 0 = 4 */
    const float (*matrices)[16];  /* skinning matrices (affine) */
    const float (*normal_matrices)[16]; /* NULL = use `matrices` */
    uint32_t num_matrices;

    const uint16_t *indices;      /* `influences` joint indices per vertex */
    size_t indices_stride;        /* >= 2 * influences; multiple of 2 */
    const float *weights;         /* `influences` weights per vertex */
    size_t weights_stride;        /* >= 4 * influences */

    const float *in_positions;    /* xyz; required */
    size_t in_positions_stride;   /* >= 12 */
    float *out_positions;         /* required */
    size_t out_positions_stride;

    const float *in_normals;      /* xyz, or NULL with out_normals NULL */
    size_t in_normals_stride;
    float *out_normals;
    size_t out_normals_stride;

    const float *in_tangents;     /* xyzw, or NULL with out_tangents NULL */
    size_t in_tangents_stride;    /* >= 16 */
    float *out_tangents;
    size_t out_tangents_stride;

    ossa_simd simd;
} ossa_skinning_job;

ossa_status ossa_skinning_validate(const ossa_skinning_job *job, ossa_error *error);
ossa_status ossa_skinning_run(const ossa_skinning_job *job, ossa_error *error);

/* Skinning by influence groups: prepare a mesh once, then skin it with
 * loops specialised for 1, 2, 3 and 4 influences (faster than the
 * skinning job, which tests weights per vertex). Preparing buckets the
 * vertices by their number of non-zero weights (influences of weight 0
 * are dropped, the others keep their order) and copies indices, weights,
 * positions, normals and tangents into packed arrays per bucket. The
 * result per vertex is the skinning job's with the same matrices: same
 * blending order and arithmetic at every SIMD level (equal floats, up to
 * the sign of zeros; tests/test_skin_groups.c). */
typedef struct ossa_skin_groups ossa_skin_groups;

/* `mesh` describes the mesh as a skinning job does (num_vertices,
 * influences, indices, weights, in_positions, in_normals, in_tangents
 * and their strides; the matrices and outputs are ignored) and is checked
 * like one. The groups copy what they need. */
ossa_skin_groups *ossa_skin_groups_create(const ossa_skinning_job *mesh,
                                          const ossa_allocator *allocator, ossa_error *error);
void ossa_skin_groups_free(ossa_skin_groups *groups); /* NULL is fine */

typedef struct ossa_skin_groups_info {
    uint32_t num_vertices;
    uint32_t counts[OSSA_MAX_INFLUENCES + 1]; /* vertices by non-zero influences */
    /* Vertex i of the prepared order is source vertex order[i] (groups by
     * influence count, 0 first, source order within a group). */
    const uint32_t *order;
    uint32_t max_index;  /* largest matrix index used (0 when none) */
    size_t memory;       /* bytes held */
} ossa_skin_groups_info;

void ossa_skin_groups_get_info(const ossa_skin_groups *groups, ossa_skin_groups_info *info);

enum {
    /* Write vertex i of the prepared order (ossa_skin_groups_info.order) at
     * index i of the outputs, instead of at its source index: sequential
     * stores, for renderers that draw from a reordered vertex buffer. */
    OSSA_SKIN_PREPARED_ORDER = 1
};

typedef struct ossa_grouped_skinning_job {
    const ossa_skin_groups *groups;
    const float (*matrices)[16];        /* skinning matrices (affine) */
    const float (*normal_matrices)[16]; /* NULL = use `matrices` */
    uint32_t num_matrices;              /* > every index the mesh uses */
    float *out_positions;               /* required; num_vertices entries */
    size_t out_positions_stride;        /* bytes, >= 12, a multiple of 4 */
    float *out_normals;                 /* or NULL; needs normals in the mesh */
    size_t out_normals_stride;
    float *out_tangents;                /* or NULL; needs tangents in the mesh */
    size_t out_tangents_stride;         /* >= 16 */
    uint32_t flags;                     /* OSSA_SKIN_* */
    ossa_simd simd;
} ossa_grouped_skinning_job;

ossa_status ossa_grouped_skinning_validate(const ossa_grouped_skinning_job *job,
                                           ossa_error *error);
ossa_status ossa_grouped_skinning_run(const ossa_grouped_skinning_job *job, ossa_error *error);

/* -- Blending -- */

/* One weighted input of a blend. */
typedef struct ossa_blend_layer {
    const ossa_transform *pose; /* num_joints transforms */
    float weight;               /* >= 0; 0 = ignored */
    /* Optional per-joint mask (num_joints values >= 0) multiplied with
     * `weight`, e.g. 1 for the upper body and 0 elsewhere; NULL = all 1. */
    const float *joint_weights;
} ossa_blend_layer;

/* out = the normalized weighted blend of `layers`, per joint: with
 * w_i = weight_i * joint_weights_i[j] and W = sum w_i,
 *   translation = sum w_i t_i / W, scale = sum w_i s_i / W,
 *   rotation = normalize(sum w_i q_i) with each q_i first negated if it is
 *   on the other hemisphere from the first contributing layer's rotation.
 * A joint where only one layer has a non-zero weight gets that layer's
 * transform exactly. Where W < threshold, the rest pose is blended in with
 * weight threshold - W (so all-zero weights give the rest pose).
 * Then each additive layer (a delta from ossa_pose_make_additive) is
 * applied, in order, with its weight w (masked as above), not normalized:
 *   t += w * dt,  q = q * slerp(identity, dq, w),  s *= lerp(1, ds, w).
 * `output` must not alias any input pose. */
typedef struct ossa_blend_job {
    uint32_t num_joints;
    const ossa_blend_layer *layers;
    uint32_t num_layers;
    const ossa_blend_layer *additive; /* delta poses, or NULL */
    uint32_t num_additive;
    const ossa_transform *rest_pose;  /* NULL = identity transforms */
    float threshold;                  /* 0 = 0.1 */
    ossa_transform *output;
} ossa_blend_job;

ossa_status ossa_blend_validate(const ossa_blend_job *job, ossa_error *error);
ossa_status ossa_blend_run(const ossa_blend_job *job, ossa_error *error);

/* The additive delta that turns `reference` into `pose`, joint by joint:
 * dt = t - t_ref, dq = conjugate(q_ref) * q, ds = s / s_ref (1 where
 * s_ref is 0). Applying it with weight 1 to `reference` gives `pose` back;
 * the delta of the reference itself is the identity. `delta` may alias
 * `pose`. */
void ossa_pose_make_additive(uint32_t num_joints, const ossa_transform *reference,
                             const ossa_transform *pose, ossa_transform *delta);

/* Cross-fade from one clip to another: both are sampled at their own
 * times and blended with weight w = clamp(elapsed / duration, 0, 1) for
 * `to` and 1 - w for `from` (duration <= 0 means w = 1). The clips must
 * have the same number of joints. */
typedef struct ossa_crossfade_job {
    const ossa_clip *from;
    double from_time;       /* seconds */
    const ossa_clip *to;
    double to_time;         /* seconds */
    double elapsed;         /* seconds since the fade began */
    double duration;        /* length of the fade in seconds */
    ossa_wrap wrap;         /* for both clips */
    ossa_transform *scratch; /* num_joints transforms of work space */
    ossa_transform *output;  /* num_joints transforms */
} ossa_crossfade_job;

ossa_status ossa_crossfade_run(const ossa_crossfade_job *job, ossa_error *error);

/* -- Root motion -- */

typedef struct ossa_root_motion {
    float translation[3]; /* displacement of the root joint with the up
                             component zeroed, in the root's parent (model)
                             space */
    float yaw;            /* rotation about the up axis in radians,
                             counter-clockwise seen from above */
} ossa_root_motion;

/* The root joint's horizontal motion and yaw from time t0 to time t1
 * (seconds; t1 < t0 gives the motion backwards). Looping clips accumulate
 * whole cycles: one cycle moves by the motion from frame 0 to the last
 * frame plus one more step like the last one (the step back to frame 0 is
 * not a motion). Clamped clips stop at their ends. Yaw is unwrapped frame
 * to frame, so turns of more than pi accumulate. Fills zeros for a clip
 * without joints. */
void ossa_clip_root_motion(const ossa_clip *clip, double t0, double t1, ossa_wrap wrap,
                           ossa_root_motion *out);

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
    const ossa_allocator *allocator; /* NULL = malloc/free; every buffer of the scene */
    uint32_t flags;           /* OSSA_RENDER_SCENE_* */
} ossa_render_scene_options;

/* Decodes the model's positions, normals (generated from the triangles,
 * area-weighted, when the model has none), texture coordinates and blend
 * data, and gives every mesh the colour of the fixed palette at its index.
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
    OSSA_RENDER_VIEW_FRONT,       /* yaw 0, pitch 0: facing the model's front */
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
 * else from per-joint boxes, which contain them), or of the bind pose
 * when `animation` is -1. Fails when the index is out of range. A model
 * without positions (a skeleton or an animation file) is bounded by its
 * joints' positions over the animation's frames (or in the bind pose). */
ossa_status ossa_render_bounds(const ossa_model *model, int32_t animation, ossa_bounds *out,
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
    const ossa_render_camera *camera; /* required */
    /* Model-space joint matrices of the pose (ossa_sample_job.model or
     * ossa_local_to_model), at least num_joints of them; NULL = the bind
     * pose. Vertices without blend data stay where they are. */
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
 * with ossa_render_free. write: atomically, like ossa_write_file. */
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
void ossa_render_free(void *data, const ossa_allocator *allocator); /* NULL is fine */

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
 * ossa_render_free and the gif's allocator); the gif takes no more
 * frames but must still be freed. A GIF without frames is refused. */
ossa_status ossa_render_gif_finish(ossa_render_gif *gif, void **out_data, size_t *out_size,
                                   ossa_error *error);
/* Finishes and writes the file atomically. */
ossa_status ossa_render_gif_write(ossa_render_gif *gif, const char *path, ossa_error *error);
void ossa_render_gif_free(ossa_render_gif *gif); /* NULL is fine */

#ifdef __cplusplus
}
#endif

#endif /* OSSA_H */
