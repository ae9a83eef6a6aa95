/* SMD (Valve Studiomdl Data, docs/formats/smd.md): the interface between the
 * module's parts.
 *
 *   smd.c    the format table's entry, detection and the read entry point
 *   read.c   one pass over the text: blocks -> raw lists (smd_doc)
 *   build.c  raw lists -> ossa_model (joints in parent order, bind pose or
 *            frames, meshes per material, welded vertices)
 *   angles.c Euler angles <-> quaternions (§5)
 *   write.c  ossa_model -> a reference SMD and one SMD per animation (§12)
 *
 * The raw lists keep the file's bone numbering (node = index in the order
 * of the `nodes` block); build.c maps nodes to joints. */
#ifndef OSSA_SMD_H
#define OSSA_SMD_H

#include "core/files.h"
#include "core/influences.h"
#include "core/lists.h"
#include "formats/format.h"
#include "text/text.h"

/* Influences gathered per vertex line; the load keeps at most
 * max_influences (0 = 4) of them. */
#define SMD_MAX_INFLUENCES OSSA_MAX_COMPONENTS

/* A `nodes` line. The name is interned in smd_doc.names with id = node
 * index (names are unique). */
typedef struct smd_node {
    int64_t id, parent;
    int32_t parent_node; /* index of the parent's node, -1 for a root */
    uint32_t line, parent_column;
} smd_node;

/* A `time N` line of the `skeleton` block and the bone lines after it. */
typedef struct smd_time {
    int64_t time;
    uint32_t first_key, num_keys; /* into smd_doc.keys */
    uint32_t line;
} smd_time;

/* A bone line: position and Euler angles (radians), as written. */
typedef struct smd_key {
    uint32_t node;
    float v[6];
} smd_key;

/* One triangle corner as the file states it (model space, bind pose),
 * with its influences resolved by the weight rule of §6: node numbers,
 * largest weight first, normalized; unused slots have weight 0. */
typedef struct smd_corner {
    float p[3], n[3], uv[2];
    uint32_t node[SMD_MAX_INFLUENCES];
    float w[SMD_MAX_INFLUENCES];
    uint32_t material; /* id in smd_doc.materials */
    uint32_t line;
} smd_corner;

typedef struct smd_doc {
    ossa_model *model; /* warnings, and the allocator of every list */
    const ossa_load_options *options;
    ossa_error *error;
    ossa_lexer lx;
    uint32_t influences; /* kept per vertex: 1..SMD_MAX_INFLUENCES */

    uint32_t version_line, nodes_line, skeleton_line, triangles_line;
    ossa_list nodes;    /* smd_node, in file order */
    ossa_intern names;  /* bone names; id = node */
    ossa_list by_id;    /* smd_id_entry, sorted by id, for lookups */
    uint32_t *joint_of; /* node -> joint (parents first) */
    uint32_t *node_of;  /* joint -> node */

    ossa_list times;   /* smd_time, in file order */
    ossa_list keys;    /* smd_key */
    ossa_list corners; /* smd_corner, three per triangle in file order */
    ossa_intern materials;
    ossa_list links; /* ossa__influence (joint = node): scratch for one vertex line */
    ossa_intern unknown; /* unknown statements warned about */

    uint64_t over_limit; /* vertices that had more influences than kept */
    uint32_t over_limit_line;
    /* The comment ossa's writer puts after `version`: the animation's name,
     * frame rate and loop flag (text.h's animation tag). */
    bool tagged;
    ossa_anim_tag tag;
} smd_doc;

typedef struct smd_id_entry {
    int64_t id;
    uint32_t node;
} smd_id_entry;

/* Reads the text into `doc` (initialised here; free it with
 * ossa__smd_doc_free also on failure). */
ossa_status ossa__smd_parse(smd_doc *doc, ossa_model *model, const unsigned char *data,
                            size_t size, const ossa_load_options *options, ossa_error *error);
void ossa__smd_doc_free(smd_doc *doc);

/* Builds the model from a parsed document of a file of `file_size` bytes. */
ossa_status ossa__smd_build(smd_doc *doc, size_t file_size);

/* -- Angles (angles.c) -- */

/* q = qz(rz) * qy(ry) * qx(rx) (§5), normalized, with w <= 0. */
void ossa__smd_euler_to_quat(const float angles[3], float q[4]);
/* The angles of a rotation (§5's matrix formula, gimbal lock included);
 * the quaternion need not be unit. */
void ossa__smd_quat_to_euler(const float q[4], double angles[3]);

/* -- Writing (write.c) -- */

ossa_status ossa__smd_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error);
ossa_status ossa__smd_write_files(const ossa_model *model, const char *path,
                                  const ossa_write_options *options, ossa_error *error);

#endif
