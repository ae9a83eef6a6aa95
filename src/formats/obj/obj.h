/* OBJ (Wavefront Object, docs/formats/obj.md): the interface between the
 * module's parts.
 *
 *   obj.c         the format table's entry, detection and the read entry
 *   read.c        text preparation (UTF-16, BOM, `\` continuations) and one
 *                 pass over the statements into raw lists (obj_doc)
 *   triangulate.c polygons -> triangles (fan when convex, else ear clipping)
 *   build.c       raw lists -> ossa_model (indices checked, meshes keyed by
 *                 (name, material), axes, normals, welded vertices)
 *   pose.c        skinned positions and normals at an animation time
 *   mtl.c         MTL text -> material records (newmtl and its statements)
 *   materials.c   the mtllib files read beside the model, their records
 *                 as ossa materials (Blender's mapping) and the images
 *   write.c       ossa_model -> OBJ text
 *   write_mtl.c   the MTL file and the images written beside the OBJ
 *
 * The raw lists keep what the file says in OBJ space; build.c maps axes,
 * winding and texture coordinates to ossa's. */
#ifndef OSSA_OBJ_H
#define OSSA_OBJ_H

#include "core/files.h"
#include "core/lists.h"
#include "formats/format.h"

/* The words of the option obj.axes; the first is the default. */
#define OBJ_AXES "sdk blender"
#include "text/text.h"

#define OBJ_NONE UINT32_MAX /* a corner without a texcoord or normal */
/* Faces before any `s`: flat when the file has `s` lines, else one
 * smoothing group (§6) */
#define OBJ_SMOOTH_UNSET INT64_MIN

/* Bytes [at, at + len) of the prepared text. */
typedef struct obj_span {
    uint64_t at, len;
} obj_span;

/* A `v` line: position, and colour when it has 6 or 7 numbers. */
typedef struct obj_vertex {
    float p[3];
    float c[4];
    bool has_color;
} obj_vertex;

/* A face corner: 0-based indices (negative ones resolved when read,
 * positive ones checked once the file is read) and where it was written. */
typedef struct obj_corner {
    uint32_t v, vt, vn;
    uint64_t at; /* byte offset of the corner in the text */
} obj_corner;

typedef struct obj_face {
    uint32_t first, count; /* into obj_doc.corners */
    uint32_t mesh;         /* (name, material) pair: id in obj_doc.meshes */
    int64_t smooth;        /* `s` group; 0 = flat; OBJ_SMOOTH_UNSET */
    uint64_t at;           /* byte offset of the `f` */
} obj_face;

typedef struct obj_doc {
    ossa_model *model; /* warnings, and the allocator of every list */
    const ossa_load_options *options;
    bool blender_axes; /* the option obj.axes is "blender" */
    ossa_error *error;
    ossa_lexer lx;
    const char *text; /* what the lexer reads (a prepared copy or the input) */
    size_t size;
    unsigned char *copy; /* owned copy of the text, or NULL */
    ossa_list joins;     /* uint64_t: offsets of newlines removed by `\` continuations */
    uint32_t warnings_before;

    ossa_list vertices; /* obj_vertex */
    ossa_list texcoords; /* float[2] as written */
    ossa_list normals;   /* float[3] as written */
    ossa_list corners;   /* obj_corner */
    ossa_list faces;     /* obj_face */
    ossa_intern meshes;  /* "name\nmaterial" */
    ossa_intern strings; /* mtllib names, warned keywords */
    ossa_list mtllib;    /* char: the `mtllib` file names, one per line */
    ossa_list mtllib_at; /* obj_span: each `mtllib` statement's arguments */

    /* The state statements change. */
    char *group;     /* `g` names joined with one space */
    char *object;    /* `o` name */
    char *material;  /* `usemtl` name */
    bool group_since_object;
    int64_t smooth;
    bool any_smooth; /* some `s` line: files without one smooth as one group */
    int64_t mesh;    /* id of the current (name, material), -1 = not made yet */

    uint64_t bad_numbers, short_faces, polygon_fans;
    uint64_t first_bad_number; /* byte offset */
    uint32_t warned; /* one-time warnings given (bits) */
    uint32_t keyword_warnings;
} obj_doc;

/* Parses the text (initialising `doc`; free it with ossa__obj_doc_free
 * also on failure). */
ossa_status ossa__obj_parse(obj_doc *doc, ossa_model *model, const unsigned char *data,
                            size_t size, const ossa_load_options *options, ossa_error *error);
void ossa__obj_doc_free(obj_doc *doc);
/* Line and column in the original text of byte `at` of the prepared text. */
void ossa__obj_locate(const obj_doc *doc, uint64_t at, uint32_t *line, uint32_t *column);
/* Errors and warnings located at a byte of the prepared text. */
ossa_status ossa__obj_fail_at(const obj_doc *doc, ossa_code code, uint64_t at, const char *fmt, ...)
    OSSA_PRINTF(4, 5);
void ossa__obj_warn_at(const obj_doc *doc, ossa_code code, uint64_t at, const char *fmt, ...)
    OSSA_PRINTF(4, 5);

/* Builds the model from a parsed document. */
ossa_status ossa__obj_build(obj_doc *doc);

/* -- Triangulation (triangulate.c) -- */

/* Triangles of a planar polygon of n >= 3 points (xyz each), as triples of
 * indices 0..n-1 wound like the polygon: the fan around point 0 when the
 * polygon is convex in the plane of its Newell normal (or has no normal),
 * else ear clipping, which allows repeated points. Writes n - 2 triangles
 * to `out` and returns true; returns false (and writes the fan) when
 * clipping fails or `*budget` (steps of the clipping) runs out. `work`
 * holds 24 * n bytes, 8-byte aligned. */
bool ossa__obj_triangulate(const float *const *points, uint32_t n, uint32_t *out, void *work,
                           uint64_t *budget);

/* -- Materials (mtl.c, materials.c) -- */

/* A texture statement of an MTL file (map_Kd and the like): the file name
 * as written (options skipped, quotes removed), the -bm value (1 when
 * absent), whether -o, -s or -t asked for a placement ossa cannot keep,
 * and where the statement is, for messages. */
typedef struct mtl_texture {
    char *file; /* NULL = none */
    float bump_scale;
    bool placed;
    uint32_t line, column;
} mtl_texture;

enum { MTL_MAP_KD, MTL_MAP_KE, MTL_MAP_BUMP, MTL_MAPS };

/* One `newmtl` and what its statements set (has_*: given, and valid). */
typedef struct mtl_material {
    char *name;
    float kd[3], ka[3], ke[3], ns, d, tr, pr, pm;
    int illum;
    bool has_kd, has_ka, has_ke, has_ns, has_d, has_tr, has_pr, has_pm, has_illum;
    mtl_texture map[MTL_MAPS];
} mtl_material;

/* The materials of one MTL file. Names and file names are NUL-terminated
 * copies in the model's temporary memory; free with ossa__mtl_free. */
typedef struct mtl_file {
    ossa_list materials; /* mtl_material */
} mtl_file;

/* Parses MTL text (file `name`, for messages). Never fails on the text:
 * what cannot be read is skipped with a warning in the model ("x.mtl:3:7:
 * ..."); only running out of memory fails. */
ossa_status ossa__mtl_parse(ossa_model *model, const char *name, const unsigned char *data, size_t size,
                            mtl_file *out, ossa_error *error);
void ossa__mtl_free(ossa_model *model, mtl_file *file);

/* After the model is built: reads the `mtllib` files beside the model
 * (the rules of ossa__open_sibling), and gives every material a mesh uses
 * and a file defines an OSSA_EXTRA_MATERIAL description (Blender 3.4's
 * mapping, docs/formats/obj.md §9), with the images its textures name as
 * OSSA_EXTRA_IMAGE. Missing and damaged files are warnings. */
ossa_status ossa__obj_materials(obj_doc *doc);

/* -- Posing (pose.c) -- */

/* Skins bind-pose positions and normals (3 floats per vertex each, in
 * place; normals may be NULL) by the model's blend data at `time` seconds
 * of animation `animation` (< num_animations), in double precision;
 * normals come out unit. Vertices without blend data stay where they
 * are. */
ossa_status ossa__obj_pose(const ossa_model *model, uint32_t animation, double time,
                           float *positions, float *normals, ossa_error *error);

/* -- Writing (write.c) -- */

ossa_status ossa__obj_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error);
ossa_status ossa__obj_write_files(const ossa_model *model, const char *path,
                                  const ossa_write_options *options, ossa_error *error);
/* The OBJ text; `mtllib` names the MTL file written beside (NULL: none);
 * report_unheld: warn about what OBJ cannot hold (memory writes). */
ossa_status ossa__obj_write_text(const ossa_model *model, const ossa_write_options *options,
                                 const char *mtllib, bool report_unheld, ossa_buf *out,
                                 ossa_error *error);
/* Whether a mesh of the model has a material (then an MTL is written). */
bool ossa__obj_any_material(const ossa_model *model);
/* Names go to the end of a line: line breaks would end it, a '#' would
 * start a comment, and a '\' at the end would join the next line to it;
 * they become ' ' and '_'. Returns whether the name changed. */
bool ossa__obj_put_name(ossa_text_out *t, const char *s);

#endif
