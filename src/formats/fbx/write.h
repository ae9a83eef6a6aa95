/* The FBX writer (fbx.md §15, docs/formats/fbx.md "Writing"): binary FBX
 * 7.4 from a model. Its parts, each calling only those listed after it:
 *
 *   write.c        entry points, the document around the objects (header,
 *                  GlobalSettings, Documents, Definitions, Connections,
 *                  Takes) and the plan of object ids
 *   write_mesh.c   Geometry and mesh Models, Materials, Textures, Videos
 *   write_skin.c   LimbNode Models, NodeAttributes, Skins, Clusters, BindPose
 *   write_anim.c   AnimationStacks, Layers, CurveNodes, Curves; Euler angles
 *   write_node.c   the binary container (records, values, arrays, footer),
 *                  object ids and the connections to write
 *
 * The output depends only on the model: ids are handed out in order from
 * a fixed base, and no clock is read. Not installed. */
#ifndef OSSA_FBX_WRITE_H
#define OSSA_FBX_WRITE_H

#include "core/lists.h"
#include "core/materials.h"
#include "formats/fbx/fbx.h"

#include <zlib.h>

#define FBXW_VERSION 7400
/* Ids are handed out in order from here: the same model gives the same
 * ids. Any non-zero int64 is an id (§4); 0 is the scene root. */
#define FBXW_FIRST_ID 1000000000LL
/* Records nest at most this deep in what the writer makes (Objects /
 * Geometry / LayerElement / child is 4). */
#define FBXW_MAX_DEPTH 8

/* One record being written: where its header is and what it holds so far. */
typedef struct fbxw_open {
    size_t start;        /* offset of the 13-byte header */
    size_t values_start; /* offset of the first value */
    uint32_t num_values;
    bool values_closed; /* a child was begun: values are final */
    bool has_children;
} fbxw_open;

/* A connection, written in the Connections record at the end. `prop` is
 * NULL for OO, else a static string (OP). */
typedef struct fbxw_conn {
    int64_t child, parent;
    const char *prop;
} fbxw_conn;

/* Per mesh of the model: what is written for it. */
typedef struct fbxw_mesh {
    int64_t model, geometry, skin; /* ids; skin 0 = unskinned */
    int32_t material;              /* index into the writer's materials, -1 = none */
    uint32_t num_points;           /* control points: the vertices its triangles use */
} fbxw_mesh;

/* Per material name: the Material and, when it has a base colour texture,
 * the Texture and its Video. */
typedef struct fbxw_material {
    const char *name;
    int64_t id, texture, video; /* 0 = none */
    ossa_material desc;
    const ossa_extra *image; /* the image bytes to embed or put beside, or NULL */
    char file[OSSA_IMAGE_NAME_MAX]; /* the image's file name (beside: as written) */
} fbxw_material;

typedef struct fbxw {
    const ossa_model *m;
    const ossa_write_options *opt;
    const ossa_allocator *alloc;
    ossa_error *error;
    ossa_buf *out;
    bool nomem;  /* an allocation failed; the write fails with NOMEM */
    bool failed; /* a step failed with the error filled in */
    fbxw_open open[FBXW_MAX_DEPTH];
    int depth;
    /* Scratch for arrays: host values converted to little-endian bytes,
     * and values built by the callers (grown on demand). */
    unsigned char *le;
    size_t le_cap;
    void *tmp;
    size_t tmp_cap;
    z_stream z; /* one deflate stream for every array */
    bool z_ready;
    int64_t next_id;
    fbxw_conn *conns;
    size_t num_conns, cap_conns;
    /* The plan (write.c) */
    double fps;       /* the file's frame rate */
    int time_mode;    /* GlobalSettings TimeMode (14: CustomFrameRate) */
    int64_t *joint_model, *joint_attr; /* ids per joint */
    fbxw_mesh *meshes;
    fbxw_material *materials;
    uint32_t num_materials;
    uint32_t num_clusters;  /* over every mesh */
    uint32_t num_skinned;   /* meshes with a Skin */
    /* Per joint, the channels (OSSA_CHANNEL_*) that every animation keys. */
    uint8_t *keyed;
    uint32_t num_curve_nodes; /* per animation */
    /* Images */
    ossa_images images; /* EMBED, BESIDE or NONE: resolved */
    const char *path;   /* the output file for images beside it, or NULL */
    ossa_output_file *beside;
    size_t num_beside;
    ossa_intern beside_taken;
    ossa_extra_index index;
    /* Skinning: per vertex, the blend data decoded (J influences at most
     * OSSA_MAX_COMPONENTS each), and the remap of the mesh being written. */
    uint32_t slots;
    float *bidx, *bwgt;
    uint32_t *local_of; /* model vertex -> control point + 1 of the current mesh, 0 = unused */
    uint32_t *point_vertex; /* control point -> model vertex */
    struct geo *geo;        /* write_mesh.c's decoded vertex data */
} fbxw;

/* -- write_node.c: the container (fbx.md §2, §15) -- */

/* The 27-byte header of a 7.4 file. */
void ossa__fbxw_header(fbxw *w);
/* Opens a record named `name` (at most 255 bytes) inside the current one. */
void ossa__fbxw_begin(fbxw *w, const char *name);
/* Closes the current record: patches its end offset, value count and
 * value bytes, and writes the null record after its children (also after
 * a record with neither values nor children, and after AnimationStack and
 * AnimationLayer records without children, as real files have them). */
void ossa__fbxw_end(fbxw *w);
/* Values of the current record. */
void ossa__fbxw_bool(fbxw *w, bool v); /* 'C' */
void ossa__fbxw_i32(fbxw *w, int32_t v);
void ossa__fbxw_i64(fbxw *w, int64_t v);
void ossa__fbxw_f32(fbxw *w, float v);
void ossa__fbxw_f64(fbxw *w, double v);
void ossa__fbxw_str(fbxw *w, const char *s, size_t len); /* 'S' */
void ossa__fbxw_cstr(fbxw *w, const char *s);
void ossa__fbxw_raw(fbxw *w, const void *data, size_t len); /* 'R' */
/* "Name\0\1Class" (§4): an object's name value. */
void ossa__fbxw_object_name(fbxw *w, const char *name, const char *cls);
/* Arrays of host values: 'd' f64, 'f' f32, 'i' i32, 'l' i64. Stored with
 * zlib (encoding 1, level 1, as real files) when the raw bytes are more
 * than 128 and the stream is smaller; raw (encoding 0) otherwise. */
void ossa__fbxw_array_f64(fbxw *w, const double *v, size_t count);
void ossa__fbxw_array_f32(fbxw *w, const float *v, size_t count);
void ossa__fbxw_array_i32(fbxw *w, const int32_t *v, size_t count);
void ossa__fbxw_array_i64(fbxw *w, const int64_t *v, size_t count);
/* Appends a value whose bytes (type code first) are the output's
 * [at, at + len): an array written before, written again (key times). */
void ossa__fbxw_value_copy(fbxw *w, size_t at, size_t len);
/* Releases the deflate stream. */
void ossa__fbxw_zlib_end(fbxw *w);
/* The top level's null record and the footer (§2.5). */
void ossa__fbxw_footer(fbxw *w);
/* Scratch of at least `bytes` (w->tmp), NULL (nomem set) on failure. */
void *ossa__fbxw_scratch(fbxw *w, size_t bytes);

/* Shorthands: a child record holding one value. */
void ossa__fbxw_child_i32(fbxw *w, const char *name, int32_t v);
void ossa__fbxw_child_i64(fbxw *w, const char *name, int64_t v);
void ossa__fbxw_child_f64(fbxw *w, const char *name, double v);
void ossa__fbxw_child_str(fbxw *w, const char *name, const char *s);

/* Properties70 records (§5): P: name, type, subtype, flags, values. */
void ossa__fbxw_p_int(fbxw *w, const char *name, const char *type, int32_t v);
void ossa__fbxw_p_double(fbxw *w, const char *name, const char *type, const char *flags,
                         double v);
void ossa__fbxw_p_vec3(fbxw *w, const char *name, const char *type, const char *sub,
                       const char *flags, const double v[3]);
void ossa__fbxw_p_time(fbxw *w, const char *name, int64_t v);
void ossa__fbxw_p_string(fbxw *w, const char *name, const char *type, const char *sub,
                         const char *v);

/* A new object id, and a connection to write (write_node.c). */
int64_t ossa__fbxw_id(fbxw *w);
void ossa__fbxw_connect(fbxw *w, int64_t child, int64_t parent, const char *prop);

/* -- write_anim.c -- */

/* KTime of frame f at `fps`: round(f · ticks / fps), the reader's own
 * formula (anim.c), so that frames land on keys. */
int64_t ossa__fbxw_frame_time(double fps, uint32_t frame);

/* -- write_skin.c -- */

/* Ids, channel plan and cluster counts (before Definitions). */
ossa_status ossa__fbxw_plan_skin(fbxw *w);
/* A LimbNode Model and NodeAttribute per joint, parents connected. */
void ossa__fbxw_joints(fbxw *w);
/* Mesh `mi`'s Skin and Clusters, for its control points. */
void ossa__fbxw_skin(fbxw *w, uint32_t mi);
/* The joints that weigh on mesh mi's control points, counted with
 * `stamp` (num_joints entries, zero or holding other meshes' numbers). */
uint32_t ossa__fbxw_count_clusters(fbxw *w, uint32_t mi, uint32_t *stamp);
/* The BindPose: every joint and every skinned mesh. */
void ossa__fbxw_bind_pose(fbxw *w);
/* Joint j's bind pose in model space, in double. */
void ossa__fbxw_joint_world(const fbxw *w, uint32_t j, double out[16]);

/* -- write_mesh.c -- */

ossa_status ossa__fbxw_plan_meshes(fbxw *w);
/* Geometry, Model per mesh (with its skin), then materials. */
void ossa__fbxw_meshes(fbxw *w);
void ossa__fbxw_materials(fbxw *w);
void ossa__fbxw_release_meshes(fbxw *w);

/* The quaternion (x, y, z, w) as Euler XYZ degrees (R = Rz·Ry·Rx, fbx.md
 * §8.1), the solution nearest to `near` (any number of turns away) when
 * near is given. */
void ossa__fbxw_euler(const float q[4], const double *near, double out[3]);
ossa_status ossa__fbxw_plan_anims(fbxw *w);
void ossa__fbxw_anims(fbxw *w);
/* The name animation a is written under: its own, or "animationA". */
const char *ossa__fbxw_anim_name(const fbxw *w, uint32_t a, char buf[32]);
/* The frame rate animation a is written at: the file's when it has that
 * rate (or none), else its own. */
double ossa__fbxw_anim_fps(const fbxw *w, uint32_t a);
/* GlobalSettings' time span: to the end of the longest animation. */
int64_t ossa__fbxw_time_stop(const fbxw *w);

/* -- fbx.c's write entries -- */

ossa_status ossa__fbx_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error);
ossa_status ossa__fbx_write_files(const ossa_model *model, const char *path,
                                  const ossa_write_options *options, ossa_error *error);

#endif
