/*
 * ossa/model.h — the model, and reading, writing and converting it.
 *
 * One in-memory model (ossa_model) sits between every reader and every
 * writer. A model owns all of its memory; ossa_model_free() releases it in
 * one call. Strings in a model are NUL-terminated UTF-8 owned by the model.
 * Link: pkg-config ossa (libossa; it needs libossa-runtime for
 * ossa_clip_create). Conventions: ossa/common.h.
 *
 * Quick start (error handling shortened):
 *
 *   ossa_error err;
 *   ossa_model *m = ossa_load_file("guy.iqm", NULL, &err);   // any format
 *   if (!m) { char b[600]; fprintf(stderr, "%s\n", ossa_error_format(&err, b, sizeof b)); }
 *   printf("%u joints, %u animations\n", m->num_joints, m->num_animations);
 *   ossa_write_file(m, "guy.glb", NULL, &err);               // format from the name
 *   ossa_model_free(m);
 */
#ifndef OSSA_MODEL_H
#define OSSA_MODEL_H

#include "ossa/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -- The model ------------------------------------------------------------- */

typedef struct ossa_joint {
    const char *name;    /* never NULL; "" when the source has no names */
    int32_t parent;      /* index of the parent joint (< own index), -1 = root */
    /* Parent-relative bind pose: where the joint was when the mesh was
     * bound to it (the mesh's vertices are in this pose). Where the
     * skeleton stands when nothing plays is ossa_model.rest_pose. */
    ossa_transform bind;
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
     * channels a source lacks hold the rest pose's value (the bind pose's
     * when the model has no rest_pose), and merging into another skeleton
     * takes those from the target's. */
    uint8_t *channels;
    /* How the reader put the source's keys on frames, for people (ossa
     * info): "keys at 24 fps", "uneven keys: sampled at 60 fps, within
     * 1e-4 of the model's size"; NULL when the source stores frames as
     * they are (every format but glTF) or after resampling. Owned by the
     * model. */
    const char *sampling;
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
 *   relative to the OBJ; the SOTC .nmo reader decodes level 0 of the
 *   texture NAME.nto beside the model for each material NAME, kept as the
 *   PNG image NAME.png, and a .nto load keeps its level as the PNG
 *   STEM.png (docs/formats/sotc.md §8.6).
 *   Writers put them in the file (glTF, which holds
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
 *   (docs/formats/obj.md §9); the SOTC .nmo reader those whose .nto
 *   texture it read (that image, metallic 0).
 *   Readers skip keys they do not know. A
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
    OSSA_FORMAT_FBX = 13,      /* Autodesk FBX 7: reads binary and ASCII, writes binary 7.4 */
    OSSA_FORMAT_SMD = 14,      /* Valve Studiomdl Data: a reference or an animation */
    OSSA_FORMAT_OBJ = 15,      /* Wavefront OBJ: static polygon meshes */
    OSSA_FORMAT_MD5MESH = 16,  /* id Tech 4 .md5mesh (version 10): skeleton and meshes */
    OSSA_FORMAT_MD5ANIM = 17,  /* id Tech 4 .md5anim (version 10): one animation */
    OSSA_FORMAT_OSSACLIP = 18, /* a compressed clip (.ossaclip): one animation of unnamed joints */
    OSSA_FORMAT_BVH = 19       /* Biovision Hierarchy: a skeleton and one motion */
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
/* The model's vertex colours are linear (glTF's COLOR_0). Without it they
 * are display values (sRGB), as IQM, IQE, OBJ, SMD and FBX files hold
 * them. The renderer converts linear ones before it draws; the values
 * themselves are kept as the file has them. */
enum { OSSA_MODEL_LINEAR_COLORS = 8 };
/* The model's animations pose its joints about a rest pose of their own
 * (a BVH's offsets with no rotation, usually a T-pose), not about a
 * character's bind pose. Merging it into a model with joints retargets
 * its motion onto that model's bind pose instead of copying the poses
 * (docs/formats/bvh.md §10): rotations are carried over as world-space
 * changes from the rest pose, each joint first turned so that its bone
 * points where the rest pose's does, and root positions are scaled by the
 * ratio of the two skeletons' heights. */
enum { OSSA_MODEL_REST_POSE_REFERENCE = 16 };
/* Merging the model into a skeleton fails (OSSA_ERROR_MISMATCH) when it
 * names a joint the skeleton lacks, instead of dropping that joint's
 * animation with a warning. Loading sets it on models of formats whose
 * engine refuses such files (an md5anim: id Tech 4 refuses an animation
 * whose joints are not the mesh's). */
enum { OSSA_MODEL_STRICT_JOINTS = 32 };

/* Where a character faces in model space (Z up, after the reader's axis
 * change): the convention of a format (ossa_format_front), and of the file
 * a model was read from (ossa_model.front). The front view of the
 * renderer looks at that side, and writing to a format of another
 * convention turns the model about +Z to face that format's front (unless
 * OSSA_WRITE_KEEP_FRONT), as its players show it. README "Where a model
 * faces" gives the evidence for each format. */
typedef enum ossa_front {
    OSSA_FRONT_UNKNOWN = 0, /* no convention: never turned; drawn as if it faced -Y */
    OSSA_FRONT_NEG_Y,       /* -Y: glTF (+Z, turned Z up), FBX (the file's front axis), SMD
                               (studiomdl turns it to +X), BVH (+Z, turned Z up), Blender's
                               front view */
    OSSA_FRONT_POS_X,       /* +X: IQM, IQE (the IQM SDK's demo), MD5, illEngine (id
                               Tech 4), OBJ (+Z, by the IQM SDK's axes) */
    OSSA_FRONT_POS_Y,       /* +Y */
    OSSA_FRONT_NEG_X        /* -X */
} ossa_front;

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

    /* Non-fatal problems met while loading (severity WARNING, file ""),
     * and information about the reading (severity NOTE: a BVH frame rate
     * rounded to a plausible one). */
    uint32_t num_warnings;
    ossa_diagnostic *warnings;

    uint32_t flags; /* OSSA_MODEL_* */
    ossa_format source_format;
    ossa_model_internal *internal;

    /* The rest pose: num_joints parent-relative transforms, where the
     * skeleton stands when no animation plays, or NULL when that is the
     * bind pose (joints[j].bind). glTF keeps both: its nodes rest in one
     * pose, its skin's inverse bind matrices were made in another
     * (CesiumMan's bind pose lies down, its nodes stand). A model with a
     * rest pose shows at rest as glTF viewers show it: the mesh skinned
     * by rest * inverse(bind) (ossa_render_*, ossa pose). Animation frames
     * hold full poses either way; channels an animation does not drive
     * hold the rest pose's value. Writers of formats with one pose get the
     * mesh skinned into the rest pose, which becomes their bind pose
     * (docs/formats/gltf.md §9). Owned by the model; change it with
     * ossa_model_set_rest_pose. */
    ossa_transform *rest_pose;

    /* Where its characters face: the reader's format's convention (or
     * ossa_load_options.front); OSSA_FRONT_UNKNOWN for a model built by
     * code until ossa_model_set_front. */
    ossa_front front;
} ossa_model;

/* -- Building and changing a model ----------------------------------------- */

/* An empty model. `allocator` may be NULL. Returns NULL on allocation failure. */
ossa_model *ossa_model_create(const ossa_allocator *allocator);
void ossa_model_free(ossa_model *model);

/* Appends a joint; returns its index, or -1 on error (parent must be -1 or
 * an existing joint; no joints may be added once animations exist). */
int32_t ossa_model_add_joint(ossa_model *model, const char *name, int32_t parent,
                             const ossa_transform *bind, ossa_error *error);

/* Sets the rest pose (ossa_model.rest_pose): num_joints parent-relative
 * transforms copied from `rest` (rotations further than 1e-4 from unit
 * length normalized, the others kept as given); NULL removes it
 * (the bind pose is then the rest pose). Fails, changing nothing, when a
 * value is not finite or a rotation has no length. Joints added later rest
 * in their bind pose. */
ossa_status ossa_model_set_rest_pose(ossa_model *model, const ossa_transform *rest,
                                     ossa_error *error);

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

/* Appends an animation whose frames are all set to the rest pose (the
 * joints' bind poses when the model has none);
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
 * warning (when src has OSSA_MODEL_STRICT_JOINTS, as an md5anim has, they
 * fail the merge, as in id Tech 4). If dst
 * has no joints, it takes src's skeleton. A mesh in src is merged only when
 * dst has none. */
ossa_status ossa_model_merge(ossa_model *dst, const ossa_model *src, ossa_error *error);

/* -- Transforming a model ----------------------------------------------------
 *
 * What `ossa convert` can do between reading and writing (the IQM SDK's
 * options, and more). Each changes the model in place and keeps it
 * consistent; on a failed check nothing changes. Positions that move and
 * are stored as integers or half floats become floats first. */

/* Multiplies vertex positions, bind and rest translations and every
 * frame's translations by `factor` (finite, > 0): the same model, `factor` times
 * larger (the IQM SDK's --scale). Stored bounds scale with it exactly. */
ossa_status ossa_model_scale(ossa_model *model, float factor, ossa_error *error);

/* Adds `offset` to every vertex position and nothing else: the meshes move
 * against their skeleton (the IQM SDK's --meshtrans). Stored bounds no
 * longer apply and are removed (writers compute new ones). */
ossa_status ossa_model_translate_meshes(ossa_model *model, const float offset[3],
                                        ossa_error *error);

/* Turns the whole model by a unit quaternion (x, y, z, w; normalized here):
 * positions, normals, tangents (xyz) and custom "bitangent" arrays, and the
 * bind pose, rest pose and every frame of the root joints (the IQM SDK's
 * --rotate). Stored bounds are removed. */
ossa_status ossa_model_rotate(ossa_model *model, const float rotation[4], ossa_error *error);

/* Makes the rest pose (ossa_model.rest_pose) the bind pose, as writers of
 * formats with one pose see the model: every skinned vertex moved by its
 * influences' rest * inverse(bind) matrices (model space, weights made to
 * sum to 1; normals by their inverse transposes, then unit; tangents and
 * custom "bitangent" arrays by the matrices, then unit), every joint's
 * bind pose set to its rest pose, the rest pose removed. The model then
 * looks at rest as before; animations play as before where a vertex's
 * joints moved alike between the two poses (docs/formats/gltf.md §9).
 * Moved arrays become floats; stored bounds are removed. Nothing changes
 * without a rest pose, or on failure (memory). */
ossa_status ossa_model_apply_rest_pose(ossa_model *model, ossa_error *error);

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
 * OSSA_DEFAULT_FRAMERATE. Stored bounds and the reader's sampling note
 * (ossa_animation.sampling) are removed. */
ossa_status ossa_model_resample_animation(ossa_model *model, uint32_t animation, float framerate,
                                          ossa_error *error);

/* Says where the model's characters face (ossa_front); writers turn it
 * from there to their format's front. */
void ossa_model_set_front(ossa_model *model, ossa_front front);

/* The joint / animation called `name` (the first of that name), or -1. */
int32_t ossa_model_find_joint(const ossa_model *model, const char *name);
int32_t ossa_model_find_animation(const ossa_model *model, const char *name);

/* The first array of `type` (for custom arrays, the one named `name`), or NULL. */
const ossa_vertex_array *ossa_model_find_array(const ossa_model *model, ossa_vertex_type type,
                                               const char *name);

/* Decodes vertices [first, first+count) of an array to floats:
 * count * array->size values (normalized integers, blend indexes as
 * integers). Returns OSSA_FAILED if the range is out of bounds. */
ossa_status ossa_vertex_array_read(const ossa_model *model, const ossa_vertex_array *array,
                                   uint32_t first, uint32_t count, float *out);
/* The same with `components` floats per vertex whatever the array's size:
 * its first ones, then zeros (positions as xyz from any array, blend data
 * as 4). A NULL array gives zeros. Fails (and fills zeros) when the range
 * is out of bounds or the array's format is unknown. */
ossa_status ossa_vertex_array_read_padded(const ossa_model *model, const ossa_vertex_array *array,
                                         uint32_t first, uint32_t count, uint32_t components,
                                         float *out);

/* Adjacency by the correct definition (docs/formats/iqm.md §10): 3 entries per
 * triangle, OSSA_NO_NEIGHBOR where an edge has no single neighbour.
 * `out` holds 3 * num_triangles entries. */
ossa_status ossa_model_compute_adjacency(const ossa_model *model, uint32_t *out, ossa_error *error);

/* -- Poses ----------------------------------------------------------------- */

/* Model-space matrices from parent-relative transforms (num_joints each):
 * out[j] = out[parent] * matrix(local[j]). The one call for this outside
 * the runtime's jobs (ossa_local_to_model_job, ossa_sample_job.model),
 * which compute the same. */
void ossa_local_to_model(const ossa_model *model, const ossa_transform *local, float (*out)[16]);

/* Inverse of every joint's model-space bind matrix (num_joints matrices),
 * for ossa_skinning_matrices. A joint whose bind matrix is singular (a zero
 * scale) gets the identity; returns the number of such joints. */
uint32_t ossa_model_inverse_bind_matrices(const ossa_model *model, float (*out)[16]);

/* The animation argument that means "no animation: the model at rest"
 * where a call takes one (ossa_render_bounds): its rest pose when it has
 * one (ossa_model.rest_pose), else its bind pose. */
#define OSSA_BIND_POSE UINT32_MAX

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
 * codes, severity WARNING or ERROR) to `fn` (may be NULL). Returns OSSA_OK
 * when there is no error (warnings may have been reported), else
 * OSSA_FAILED with `error` holding the first error found, its message
 * ending with how many more there are. */
ossa_status ossa_model_validate(const ossa_model *model, ossa_diagnostic_fn fn, void *user,
                                ossa_error *error);

/* -- Materials and images ----------------------------------------------------
 *
 * How a mesh's material looks, glTF's metallic-roughness model, as the
 * model holds it (the OSSA_EXTRA_MATERIAL and OSSA_EXTRA_IMAGE extras). */

typedef enum ossa_texture_slot {
    OSSA_TEXTURE_BASE_COLOR = 0,
    OSSA_TEXTURE_METALLIC_ROUGHNESS,
    OSSA_TEXTURE_NORMAL,
    OSSA_TEXTURE_OCCLUSION,
    OSSA_TEXTURE_EMISSIVE,
    OSSA_TEXTURE_COUNT
} ossa_texture_slot;

#define OSSA_IMAGE_NAME_MAX 256

typedef struct ossa_material_texture {
    char image[OSSA_IMAGE_NAME_MAX]; /* the image's name; "" = no texture in this slot */
    uint32_t texcoord;               /* which texture coordinate set */
    /* magFilter, minFilter, wrapS, wrapT as glTF's (OpenGL's) numbers;
     * 0 = unspecified */
    uint32_t sampler[4];
} ossa_material_texture;

typedef enum ossa_alpha_mode { OSSA_ALPHA_OPAQUE = 0, OSSA_ALPHA_MASK, OSSA_ALPHA_BLEND } ossa_alpha_mode;

/* Defaults are glTF's: base colour 1 1 1 1, metallic 1, roughness 1,
 * normal scale 1, occlusion strength 1, emissive 0, opaque, cutoff 0.5,
 * one-sided. */
typedef struct ossa_material {
    float base_color[4]; /* linear, times the base colour texture */
    float metallic, roughness;
    float normal_scale, occlusion_strength;
    float emissive[3];
    ossa_alpha_mode alpha_mode;
    float alpha_cutoff;
    int double_sided;
    ossa_material_texture textures[OSSA_TEXTURE_COUNT];
} ossa_material;

/* The look of material `name` (an ossa_mesh's `material`): its
 * description when the model holds one, else IQM's convention (a material
 * named like an image file has that image as its base colour texture).
 * Returns 1 when the model says something about it, 0 (and glTF's
 * defaults in *out) when not. */
int ossa_model_get_material(const ossa_model *model, const char *name, ossa_material *out);

/* The bytes of image `name` (a texture's image) that the model holds, and
 * their size; NULL when it holds none of that name. Owned by the model. */
const void *ossa_model_get_image(const ossa_model *model, const char *name, size_t *size);

/* -- Reading and writing --------------------------------------------------- */

/* -- Format options ----------------------------------------------------------
 *
 * What only one format understands is not a field or flag of the shared
 * options but a named option, "FORMAT.NAME" (the format family's name:
 * "fbx", "gltf", "ill", "sotc", "obj", ...), with its value as text:
 *
 *   ossa_option opts[] = {{"fbx.keep_units", "on"}, {"obj.axes", "blender"}};
 *   load.format_options = opts;
 *   load.num_format_options = 2;
 *
 * A load or write checks the options of the format it reads or writes: a
 * name that format does not have, or a value of the wrong kind, fails with
 * OSSA_ERROR_ARGUMENT naming it. Options of other formats are ignored (one
 * list can serve a batch of mixed files); a name whose family is no format
 * fails. When a name is given twice, the last value counts.
 * ossa_format_options lists every format's options with their
 * documentation (docs/formats/FORMAT.md has more). */
typedef struct ossa_option {
    const char *name;  /* "fbx.keep_units" */
    const char *value; /* "on"; NULL = "on" (for switches) */
} ossa_option;

typedef enum ossa_option_type {
    /* on/off: "on", "off", "1", "0", "true", "false", "yes", "no" */
    OSSA_OPTION_SWITCH = 0,
    OSSA_OPTION_CHOICE, /* one of the words of ossa_option_info.choices */
    OSSA_OPTION_NUMBER  /* a finite number (C syntax, any locale) */
} ossa_option_type;

typedef struct ossa_option_info {
    const char *name;          /* "fbx.keep_units" */
    ossa_option_type type;
    const char *choices;       /* CHOICE: the words, space-separated; else "" */
    const char *default_value; /* the value that applies when the option is absent */
    const char *description;   /* one line */
} ossa_option_info;

/* The options of `format` for reading (writing = 0) or writing (nonzero):
 * sets *out to a static table (valid for the life of the program) and
 * returns its length; 0 (and *out NULL) when it has none. */
uint32_t ossa_format_options(ossa_format format, int writing, const ossa_option_info **out);

/* -- Option structs ------------------------------------------------------------
 *
 * Every option struct starts with `struct_size`: 0 means the layout of
 * ossa 0.2 (every field of this header), otherwise sizeof the struct as
 * the program was compiled. Fields added in later versions are read only
 * when struct_size covers them; a struct larger than the library knows is
 * accepted when the bytes it does not know are zero. */

typedef struct ossa_load_options {
    uint32_t struct_size;      /* 0, or sizeof(ossa_load_options) */
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
    /* Options of one format ("fbx.keep_units"): see ossa_option. */
    const ossa_option *format_options;
    uint32_t num_format_options;
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
    /* Where the file's characters face, when they break their format's
     * convention (a Blender export to MD5 faces -Y: OSSA_FRONT_NEG_Y);
     * UNKNOWN (0) = the format's convention (ossa_format_front). Sets
     * ossa_model.front. Newer than ossa 0.2: read only when struct_size
     * is sizeof(ossa_load_options). */
    ossa_front front;
} ossa_load_options;

/* Load flags, for every format. */
enum {
    /* Read files that the loaded file names outside its own folder (a
     * ".." that climbs above it, or an absolute path); by default they are
     * refused with OSSA_ERROR_ACCESS (see ossa_load_memory). */
    OSSA_LOAD_ALLOW_PARENT_PATHS = 1u << 0,
    /* Keep no image bytes (OSSA_EXTRA_IMAGE): neither the images a glTF
     * file holds or names nor those that IQM-style materials or OBJ's MTL
     * files name beside the file are read. Materials are kept. */
    OSSA_LOAD_NO_IMAGES = 1u << 1,
    /* Keep the triangles that repeat a vertex (two corners with one index,
     * or two vertices equal in every vertex array). By default every load
     * drops them, with the vertices only they used and the meshes they
     * leave empty, and says how many in one OSSA_WARNING_IGNORED warning;
     * `ossa validate` keeps them to report them (OSSA_PROBLEM_DEGENERATE)
     * as the file has them. */
    OSSA_LOAD_KEEP_DEGENERATE = 1u << 2
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

/* Where a write puts the model's images (OSSA_EXTRA_IMAGE). */
typedef enum ossa_images {
    /* glTF: EMBED for .glb and for .gltf written to memory or with
     * the option "gltf.embed", else BESIDE; FBX: EMBED; other formats:
     * BESIDE. */
    OSSA_IMAGES_DEFAULT = 0,
    /* Image files beside the output, named by the glTF uri, by OBJ's MTL
     * file, or by the mesh's material in formats whose material names an
     * image file (IQM, IQE, MD5, SMD), which then name the image of the
     * material's base colour. An existing file of that name with other bytes is left
     * alone: the image gets a free name (NAME_2.png) instead. Only
     * ossa_write_file writes files beside: from ossa_write_memory glTF
     * keeps its images inside, the other formats their material names
     * (FBX: the texture's file name). */
    OSSA_IMAGES_BESIDE,
    /* glTF: inside the file (in the binary buffer); FBX: inside the file
     * (the base colour texture's Video Content); other formats: BESIDE. */
    OSSA_IMAGES_EMBED,
    /* No image written. glTF keeps a texture's image name in the
     * material's extras, FBX in the texture; other formats keep the
     * material names as they are. */
    OSSA_IMAGES_NONE
} ossa_images;

typedef struct ossa_write_options {
    uint32_t struct_size;    /* 0, or sizeof(ossa_write_options) */
    ossa_format format;      /* AUTO = from the file name (ossa_write_file) */
    /* Per-frame bounds to store: IQM and MD5 files (the formats that hold
     * them; MD5 needs bounds, so NONE and a missing STORED give
     * conservative ones); other writers ignore it. DEFAULT = conservative. */
    ossa_bounds_mode bounds;
    const ossa_allocator *allocator; /* NULL = malloc/free; buffers and temporaries */
    /* The animation that formats which take one (OSSA_HOLDS_PICKS_ANIMATION)
     * take: the one a SOTC .anb holds, the one an animation-only MD5 or SMD
     * file gets first, the one OBJ is posed in ("obj.pose_time"). */
    uint32_t animation;
    ossa_images images; /* where the model's images go */
    uint32_t flags; /* OSSA_WRITE_* */
    /* Options of one format ("gltf.embed"): see ossa_option. */
    const ossa_option *format_options;
    uint32_t num_format_options;
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

/* Write flags, for every format. */
enum {
    /* ossa_write_file replaces no file: fail with OSSA_ERROR_EXISTS,
     * writing nothing, when the output or any file written with it (a
     * .gltf's .bin, the files of illEngine, MD5 and SMD) exists. Without
     * it existing files are replaced. (Checked before writing: another
     * process may still create a file in between.) */
    OSSA_WRITE_NO_REPLACE = 1u << 0,
    /* Write the model facing where it faces: without it, a model whose
     * front (ossa_model.front) is known and differs from the format's
     * (ossa_format_front) is turned about +Z to face the format's front,
     * exactly (the change of axes is a permutation: positions, normals,
     * tangents, every joint's pose and stored bounds move with it). */
    OSSA_WRITE_KEEP_FRONT = 1u << 1
};

/* Encodes into a new buffer; free it with ossa_free (and the allocator). */
ossa_status ossa_write_memory(const ossa_model *model, const ossa_write_options *options,
                              void **out_data, size_t *out_size, ossa_error *error);
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

/* -- Animations compiled for the runtime ---------------------------------------
 *
 * The runtime (ossa/runtime.h, libossa-runtime) plays clips; these make a
 * clip from a model's animation and measure it against the animation. */

typedef struct ossa_clip ossa_clip;
typedef struct ossa_clip_options ossa_clip_options;
typedef struct ossa_clip_stats ossa_clip_stats;

/* Compiles model->animations[animation] (ossa_clip_build with the
 * animation's frames, the skeleton, its rest pose as the clip's bind_pose
 * (the pose without animation: the joints' bind poses when the model has
 * no rest_pose) and the model's size). An animation with no frames gives
 * a one-frame clip holding that pose.
 * Fails (NULL, error filled) when the index is out of range, root_joint
 * is not a root or memory runs out. `options` may be NULL. */
ossa_clip *ossa_clip_create(const ossa_model *model, uint32_t animation,
                            const ossa_clip_options *options, ossa_error *error);

/* Measures `clip`, made from model->animations[animation] (a compressed
 * or a float clip), against that animation (ossa_clip_measure_source). */
ossa_status ossa_clip_measure(const ossa_model *model, uint32_t animation, const ossa_clip *clip,
                              ossa_clip_stats *stats, ossa_error *error);

/* -- Formats -------------------------------------------------------------------- */

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
/* Where a character faces in the format's files, in model space after the
 * reader's axis change (with the format's default options);
 * OSSA_FRONT_UNKNOWN when the format has no convention. */
ossa_front ossa_format_front(ossa_format format);
/* Space-separated file extensions of the format (".iqm"), "" if unknown. */
const char *ossa_format_extensions(ossa_format format);
/* Guesses the format of a buffer from its content; AUTO when unknown. */
ossa_format ossa_format_detect(const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_MODEL_H */
