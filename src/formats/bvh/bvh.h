/* BVH (Biovision Hierarchy, docs/formats/bvh.md): the interface between the
 * module's parts.
 *
 *   bvh.c     the format table's entry, detection and the read entry point
 *   lex.c     tokens of a free-form text, with line:column
 *   read.c    HIERARCHY: joints, offsets, channels, End Sites (bvh_doc)
 *   motion.c  MOTION: frame count, frame time, the frames -> the model
 *   euler.c   Euler angles of any order <-> quaternions, the axis change
 *   write.c   ossa_model -> one .bvh per animation
 *
 * Axes (§3): BVH is Y-up, ossa Z-up; every vector read is mapped
 * (x, y, z) -> (x, -z, y), which is a turn of +90 degrees about X, and every
 * rotation is conjugated by it, so that the rest pose keeps identity
 * rotations. The writer maps back. */
#ifndef OSSA_BVH_H
#define OSSA_BVH_H

#include "core/files.h"
#include "core/lists.h"
#include "formats/format.h"
#include "text/text.h"

/* Limits (§9). Channels are at most 6 per joint (one of each kind);
 * joints, counting End Sites, at most BVH_MAX_NODES. */
#define BVH_MAX_NODES 65536u
#define BVH_MAX_NAME 1024u

/* Channel kinds, the order of the letters in "XYZ": position 0-2,
 * rotation 3-5. */
enum { BVH_XPOS, BVH_YPOS, BVH_ZPOS, BVH_XROT, BVH_YROT, BVH_ZROT };

/* A rotation order: the axes (0 = X, 1 = Y, 2 = Z) in the order the
 * channels list them; R = R_axis[0] * R_axis[1] * R_axis[2] (§4). */
typedef struct bvh_order {
    uint8_t axis[3];
} bvh_order;

/* The words of the option bvh.rotation_order, the default first. */
#define BVH_ORDERS "ZYX XYZ XZY YXZ YZX ZXY"

/* The six orders by name ("ZYX", any case); false for anything else. */
bool ossa__bvh_order_parse(const char *name, size_t len, bvh_order *out);

/* A ROOT, JOINT or End Site, in file order (which is parent first). */
typedef struct bvh_node {
    int32_t parent;     /* node index, -1 for a ROOT */
    float offset[3];    /* as in the file (Y up) */
    uint32_t first;     /* index of its first channel in a frame */
    uint8_t count;      /* channels: 0..6 */
    uint8_t kind[6];    /* BVH_XPOS..BVH_ZROT, in the order listed */
    uint8_t num_rot;    /* rotation channels */
    bool end_site;      /* an End Site: a leaf with an offset only */
    bool has_children;
    uint32_t name;      /* id in bvh_doc.names */
    uint32_t line;      /* where it starts */
} bvh_node;

typedef struct bvh_lex {
    const char *data, *p, *end;
    const char *line_start;
    uint32_t line;
} bvh_lex;

typedef struct bvh_doc {
    ossa_model *model; /* warnings, and the allocator of every list */
    const ossa_load_options *options;
    ossa_error *error;
    bvh_lex lx;
    size_t file_size;
    ossa_list nodes;   /* bvh_node */
    ossa_intern names; /* joint names as the model gets them (unique) */
    uint32_t num_channels;
    bool motion; /* the MOTION keyword was read */
} bvh_doc;

/* -- Tokens (lex.c) -- */

void ossa__bvh_lex_init(bvh_lex *lx, const unsigned char *data, size_t size);
/* Moves past blanks and line ends (LF, CRLF or a lone CR, each one line);
 * true when a token follows. */
bool ossa__bvh_skip_space(bvh_lex *lx);
/* Moves past blanks of the current line only; true when a token follows
 * on it. */
bool ossa__bvh_skip_blanks(bvh_lex *lx);
/* The token at the cursor (blanks and line ends end it; '{' and '}' are
 * tokens of their own); 0 at the end of the data. */
size_t ossa__bvh_token_len(const bvh_lex *lx);
uint32_t ossa__bvh_column(const bvh_lex *lx, const char *at);
/* Whether the token is `word`, without regard to case. */
bool ossa__bvh_word_is(const char *p, size_t n, const char *word);
/* Fails at `at`: CORRUPT, or TRUNCATED when `at` is the end of the data.
 * With `found`, ", found 'TOKEN'" (or "the end of the file") follows. */
ossa_status ossa__bvh_fail(bvh_doc *d, const char *at, bool found, const char *fmt, ...)
    OSSA_PRINTF(4, 5);
/* A warning located at `at`. */
void ossa__bvh_warn(bvh_doc *d, ossa_code code, const char *at, const char *fmt, ...)
    OSSA_PRINTF(4, 5);

/* -- The hierarchy (read.c) -- */

/* Reads from HIERARCHY up to and including the MOTION keyword (the cursor
 * after it). */
ossa_status ossa__bvh_read_hierarchy(bvh_doc *d);
/* Adds the joints to the model: every node, End Sites named after their
 * parent (§5), bind pose = offsets with identity rotation (axes changed). */
ossa_status ossa__bvh_add_joints(bvh_doc *d);

/* -- The motion (motion.c) -- */

/* From after MOTION to the end: the frame count, the frame time and the
 * frames, as one animation of the model. */
ossa_status ossa__bvh_read_motion(bvh_doc *d);

/* The plausible rate near 1 / frame_time (an integer, or N * 1000 / 1001),
 * when within 1e-4 of it relatively and the time was written with fewer
 * than 9 significant `digits`; otherwise 1 / frame_time. *rounded tells
 * whether the rate differs from 1 / frame_time (§6). frame_time > 0. */
double ossa__bvh_rate_from_time(double frame_time, uint32_t digits, bool *rounded);

/* -- Angles and axes (euler.c) -- */

/* q = q_axis0(a0) * q_axis1(a1) * q_axis2(a2), angles in degrees; the
 * result is in BVH axes (no axis change), unit, in double precision. */
void ossa__bvh_euler_to_quat(const bvh_order *order, const double deg[3], double q[4]);
/* The angles (degrees) of the unit rotation `q` in `order`, of the two
 * solutions (and their turns by 360 degrees) the one nearest `prev`
 * (degrees, NULL: none), so that angles stay continuous from frame to
 * frame. In gimbal lock the last angle keeps prev's (or 0). */
void ossa__bvh_quat_to_euler(const bvh_order *order, const double q[4], const double *prev,
                             double deg[3]);
/* BVH (Y up) -> ossa (Z up): (x, y, z) -> (x, -z, y); quaternions by
 * their vector part, which is the conjugation by that turn. */
static inline void ossa__bvh_to_model(const double in[3], float out[3])
{
    /* 0.0 - z, not -z: a zero stays +0, so that offsets written as "0"
     * and read back are the same bytes */
    out[0] = (float)in[0];
    out[1] = (float)(0.0 - in[2]);
    out[2] = (float)in[1];
}
/* ossa (Z up) -> BVH (Y up): (x, y, z) -> (x, z, -y). */
static inline void ossa__bvh_from_model(const double in[3], double out[3])
{
    double x = in[0], y = in[1], z = in[2];
    out[0] = x;
    out[1] = z;
    out[2] = 0.0 - y;
}

/* -- Writing (write.c) -- */

ossa_status ossa__bvh_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error);
ossa_status ossa__bvh_write_files(const ossa_model *model, const char *path,
                                  const ossa_write_options *options, ossa_error *error);

#endif
