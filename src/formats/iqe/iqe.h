/* IQE (Inter-Quake Export, docs/formats/iqe.md): the interface between the
 * module's parts.
 *
 *   read.c   one pass over the text: commands -> raw lists (iqe_doc)
 *   doc.c    the raw lists' memory; pq / pm / pa arithmetic
 *   build.c  raw lists -> ossa_model (meshes, welded vertices, joints,
 *            frames), through the shared post-read steps: influences
 *            (core/influences.h), normals from the smoothing rules of §5
 *            (core/normals.h) and welding (core/weld.h)
 *   write.c  ossa_model -> canonical IQE text (§10)
 *
 * The raw lists keep what the file says, in file order, with the file's
 * joint numbering; everything that needs the whole file (forward
 * references, joint order, normals, mesh vertex ranges) happens in the
 * builder. */
#ifndef OSSA_IQE_H
#define OSSA_IQE_H

#include "core/influences.h"
#include "formats/format.h"
#include "text/text.h"

#define IQE_HEADER "# Inter-Quake Export"

/* -- Raw lists (read.c) ------------------------------------------------- */

/* A growable array of fixed-size elements (temporary memory of the load,
 * from the load options' allocator). */
typedef struct iqe_vec {
    unsigned char *data;
    size_t count, cap; /* in elements */
} iqe_vec;

#define IQE_AT(vec, type, i) (((type *)(vec).data)[i])

/* Vertex array slots: the IQM types 0..6, then custom0..custom9. */
enum { IQE_SLOT_CUSTOM0 = 7, IQE_NUM_SLOTS = 17, IQE_NUM_CUSTOM = 10 };

/* A `vertexarray` declaration (the first one of a type wins). Fields the
 * line gets wrong keep their defaults: has_format/has_size tell. */
typedef struct iqe_decl {
    bool declared, has_format, has_size;
    ossa_component format;
    uint32_t size;
    uint32_t name; /* string pool offset; custom slots only */
} iqe_decl;

/* Smoothing state in effect for a triangle (§5). */
typedef struct iqe_state {
    int64_t group; /* smoothgroup key */
    float angle;   /* smoothangle, degrees, clamped to 0..180 */
    bool uv;       /* smoothuv */
} iqe_state;

/* A triangle of file vertex indices (fa/fm resolved, negatives too), fan
 * triangles of a polygon in order. Triangles with a repeated index are
 * kept (the loader drops them with every other degenerate triangle), so
 * that a triangle's face and fan position can be counted from the face
 * list. */
typedef struct iqe_tri {
    uint32_t v[3];
} iqe_tri;

/* Mesh group and smoothing state of triangles [first, next run's first). */
typedef struct iqe_run {
    uint32_t first;
    uint32_t group; /* (name, material) pair */
    uint32_t state; /* smoothing state */
} iqe_run;

typedef struct iqe_group {
    uint32_t name, material; /* string pool offsets */
} iqe_group;

/* Triangle soup (no fa/fm in the file): every mesh or material command
 * starts a segment whose vertices are taken three at a time. */
typedef struct iqe_segment {
    uint32_t first_vertex;
    uint32_t name, material, state;
    uint32_t line;
} iqe_segment;

typedef struct iqe_fs {
    uint32_t first, count; /* into iqe_doc.fs_flags */
    uint32_t line;
} iqe_fs;

typedef struct iqe_joint {
    uint32_t name;
    int64_t parent;
    uint32_t line, column; /* of the parent number, for messages */
} iqe_joint;

typedef struct iqe_frame {
    uint64_t first; /* pose index in the pose chunks */
    uint32_t count;
    uint32_t line;
} iqe_frame;

typedef struct iqe_anim {
    uint32_t name;
    float framerate;
    bool loop;
    uint32_t first_frame, num_frames; /* into iqe_doc.frames */
    uint32_t line;
} iqe_anim;

/* An index that the file may legally resolve later (a face index past the
 * vertices read so far, a joint index past the joints read so far): checked
 * once the whole file is read. */
typedef struct iqe_ref {
    uint64_t value;
    uint32_t line, column;
} iqe_ref;

/* Animation poses can be most of a file. They are kept as a stream of
 * floats in chunks (7 per pose: translation, rotation; 3 more for a scale
 * other than 1, flagged in a bitmap), which the builder frees as it copies
 * them into the model: the peak holds them about once, and at 28 bytes a
 * pose in the common case. A pose never straddles two chunks. */
#define IQE_CHUNK_FLOATS (1u << 18)
typedef struct iqe_chunk {
    struct iqe_chunk *next;
    uint32_t count;
    float v[IQE_CHUNK_FLOATS];
} iqe_chunk;

typedef struct iqe_doc {
    const ossa_allocator *allocator;
    size_t size; /* of the text */
    ossa_model *model; /* for warnings */
    uint32_t influences; /* blend pairs kept per vertex while parsing */

    /* Per-vertex attributes, element i belongs to vertex i. */
    iqe_vec pos;    /* float[4]: x y z w */
    iqe_vec tc;     /* float[2] */
    iqe_vec nrm;    /* float[3] */
    iqe_vec tan;    /* float[8]: x y z w, bitangent x y z, form (1 = bitangent given) */
    iqe_vec blend;  /* influences x (uint32 joint, float weight), largest first */
    iqe_vec color;  /* float[4] */
    iqe_vec custom[IQE_NUM_CUSTOM]; /* float[4] */
    iqe_vec vs;     /* int64 */
    uint32_t last_line[IQE_NUM_SLOTS + 1]; /* last line of each attribute command (slot, vs) */
    uint32_t last_command_line;            /* the line of the last command read */

    iqe_decl decl[IQE_NUM_SLOTS];

    iqe_vec tris;     /* iqe_tri */
    iqe_vec runs;     /* iqe_run */
    iqe_vec face_n;   /* uint32: indices of each face command */
    iqe_vec fs;       /* iqe_fs */
    iqe_vec fs_flags; /* uint8 */
    iqe_vec states;   /* iqe_state */
    iqe_vec groups;   /* iqe_group */
    iqe_vec segments; /* iqe_segment */
    bool any_faces;   /* some fa/fm line: no triangle soup */

    iqe_vec joints;     /* iqe_joint */
    iqe_vec base_poses; /* ossa_transform, before the first animation */
    iqe_vec base_lines; /* uint32: line of each base pose */
    iqe_vec frames;     /* iqe_frame */
    iqe_vec anims;      /* iqe_anim */
    iqe_chunk *chunks, *last_chunk;
    iqe_vec scaled; /* uint8 bitmap: pose i has a scale (10 floats) */
    uint64_t num_poses;

    iqe_vec vertex_refs; /* iqe_ref: face indices >= vertices read so far */
    iqe_vec joint_refs;  /* iqe_ref: vb joints >= joints read so far */

    iqe_vec pool; /* char: NUL-terminated names; offset 0 is "" */

    const char *comment;
    size_t comment_size;
    bool has_comment;
} iqe_doc;

static inline const char *ossa__iqe_str(const iqe_doc *d, uint32_t ofs)
{
    return (const char *)d->pool.data + ofs;
}

/* Reads the text into `doc` (initialised here). On failure `doc` still
 * needs ossa__iqe_doc_free (doc.c). Warnings go to model. */
ossa_status ossa__iqe_parse(iqe_doc *doc, ossa_model *model, const unsigned char *data,
                            size_t size, const ossa_load_options *options, ossa_error *error);
void ossa__iqe_doc_free(iqe_doc *doc);

/* Allocation helpers for the raw lists (false when memory runs out). */
bool ossa__iqe_vec_reserve(const ossa_allocator *a, iqe_vec *v, size_t count, size_t elem);
void ossa__iqe_vec_free(const ossa_allocator *a, iqe_vec *v);
/* Temporary blocks of count * elem bytes (NULL on overflow or failure). */
void *ossa__iqe_talloc(const ossa_allocator *a, size_t count, size_t elem);
void ossa__iqe_tfree(const ossa_allocator *a, void *ptr);

/* Pose commands (§6) as transforms; v holds the line's n numbers, missing
 * ones take their defaults (doc.c). */
void ossa__iqe_pose_pq(const float *v, int n, ossa_transform *t);
void ossa__iqe_pose_pm(const float *v, int n, ossa_transform *t);
void ossa__iqe_pose_pa(const float *v, int n, ossa_transform *t);

/* -- Model building (build.c) ----------------------------------------- */

/* Turns the raw lists into the model; frees the pose chunks as it goes. */
ossa_status ossa__iqe_build(ossa_model *model, iqe_doc *doc, const ossa_load_options *options,
                            ossa_error *error);

static inline bool ossa__iqe_degenerate(const iqe_tri *t)
{
    return t->v[0] == t->v[1] || t->v[1] == t->v[2] || t->v[0] == t->v[2];
}

/* -- Format entry points ----------------------------------------------------- */

ossa_status ossa__iqe_read(ossa_model *model, const unsigned char *data, size_t size,
                           const ossa_load_options *options, ossa_error *error);
ossa_status ossa__iqe_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error);
bool ossa__iqe_sniff(const unsigned char *data, size_t size);

#endif
