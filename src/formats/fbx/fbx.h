/* FBX 7 (formats/fbx.md), the reader: the interface between the module's
 * parts. Each file has one job, and calls only the ones listed after it:
 *
 *   fbx.c     the format table's entry, detection, the read entry point
 *   binary.c  binary container -> node tree (§2)
 *   ascii.c   ASCII text -> the same node tree (§3)
 *   scene.c   objects, connections, joints, bind pose, model (§4, §6, §10)
 *   mesh.c    geometry -> vertices and triangles (§7.2, §10.3)
 *   skin.c    clusters -> per-control-point influences (§7.3)
 *   anim.c    stacks, layers, curves -> sampled channels (§7.6, §10.4)
 *   xform.c   node transforms from properties (§8) and axis/unit (§9)
 *   props.c   Properties70 lookup with template defaults (§5)
 *   tree.c    the node tree's accessors and the load's scratch memory
 *
 * The node tree keeps what the file says; binary and ASCII give the same
 * tree, so everything from scene.c on knows no encoding. Every node and
 * value remembers where it came from (byte offset, or line and column) for
 * error messages. */
#ifndef OSSA_FBX_H
#define OSSA_FBX_H

#include "core/internal.h"
#include "formats/format.h"

#define FBX_KTIME_PER_SECOND 46186158000LL
#define FBX_MAX_DEPTH 64

/* Value types: the binary type codes (§2.3). ASCII gives 'L' for integers,
 * 'D' for reals, 'S' for strings and bare words, and arrays 'l' (every
 * element an integer) or 'd'. */
typedef struct fbx_value {
    char type;
    uint32_t count; /* bytes of S/R; elements of arrays */
    union {
        int64_t i;        /* Y C I L */
        double d;         /* F D */
        const char *s;    /* S R: not NUL-terminated */
        const void *data; /* arrays: `count` little-endian elements of the type
                             (ASCII: host int64_t or double) */
    } v;
    uint64_t offset;       /* binary: byte of the type code */
    uint32_t line, column; /* ASCII */
} fbx_value;

typedef struct fbx_node fbx_node;
struct fbx_node {
    const char *name;
    uint32_t name_len;
    uint32_t num_values;
    fbx_value *values;
    fbx_node *first_child, *next;
    uint64_t offset;
    uint32_t line, column;
};

/* The load's state shared by every part. */
typedef struct fbx_doc {
    ossa_model *model;
    const ossa_load_options *options;
    ossa_error *error;
    ossa_arena scratch; /* everything of the load; released at its end */
    bool ascii;
    uint32_t version;
    fbx_node root; /* children: the top-level records */
    size_t file_size;
    uint64_t inflate_budget; /* bytes that zlib arrays may still inflate to */
    uint64_t pose_budget;    /* bytes that animation frames may still take */
} fbx_doc;

/* -- tree.c -- */

void ossa__fbx_doc_init(fbx_doc *doc, ossa_model *model, const ossa_load_options *options,
                        size_t size, ossa_error *error);
void ossa__fbx_doc_release(fbx_doc *doc);
void *ossa__fbx_alloc(fbx_doc *doc, size_t count, size_t elem); /* zeroed; NULL: error set */
/* Fails with a location: the node's (or the value's when given). */
ossa_status ossa__fbx_fail(fbx_doc *doc, const fbx_node *node, const fbx_value *value,
                           ossa_code kind, const char *fmt, ...) OSSA_PRINTF(5, 6);
void ossa__fbx_warn(fbx_doc *doc, const fbx_node *node, const char *fmt, ...) OSSA_PRINTF(3, 4);
bool ossa__fbx_name_is(const fbx_node *node, const char *name);
const fbx_node *ossa__fbx_child(const fbx_node *node, const char *name);
const fbx_node *ossa__fbx_next_named(const fbx_node *node, const char *name);
bool ossa__fbx_is_int(const fbx_value *v);
bool ossa__fbx_is_number(const fbx_value *v);
double ossa__fbx_number(const fbx_value *v);
bool ossa__fbx_is_string(const fbx_value *v);
bool ossa__fbx_str_is(const fbx_value *v, const char *s);
bool ossa__fbx_is_array(const fbx_value *v);
/* Element i of an array value (any element type) as double / int64. */
double ossa__fbx_array_double(const fbx_value *v, uint32_t i);
int64_t ossa__fbx_array_int(const fbx_value *v, uint32_t i);
/* The array value of `node`'s child `name`, or NULL when absent; fails
 * (NULL and *failed) when the child holds something else. */
const fbx_value *ossa__fbx_child_array(fbx_doc *doc, const fbx_node *node, const char *name,
                                       bool *failed);
/* A child's first value as a string (NULL when absent or not a string). */
const fbx_value *ossa__fbx_child_string(const fbx_node *node, const char *name);
/* A NUL-terminated copy in the scratch memory. */
char *ossa__fbx_strdup(fbx_doc *doc, const char *s, size_t len);

/* -- binary.c, ascii.c: fill doc->root and doc->version -- */

bool ossa__fbx_sniff_binary(const unsigned char *data, size_t size);
bool ossa__fbx_sniff_ascii(const unsigned char *data, size_t size);
ossa_status ossa__fbx_parse_binary(fbx_doc *doc, const unsigned char *data, size_t size);
ossa_status ossa__fbx_parse_ascii(fbx_doc *doc, const unsigned char *data, size_t size);

/* -- props.c -- */

/* One object's properties: its own Properties70 and its type's template. */
typedef struct fbx_props {
    const fbx_node *own, *tmpl;
} fbx_props;

/* The P record named `name`, from the object first, then the template. */
const fbx_node *ossa__fbx_prop(const fbx_props *p, const char *name);
/* Numeric values of a property (after its four strings), or `def` when the
 * property is absent. n = 1 or 3. Returns true when the property was found. */
bool ossa__fbx_prop_numbers(const fbx_props *p, const char *name, double *out, int n,
                            const double *def);
double ossa__fbx_prop_double(const fbx_props *p, const char *name, double def);
int64_t ossa__fbx_prop_int(const fbx_props *p, const char *name, int64_t def);
/* The template's Properties70 for an object kind ("Model") in Definitions. */
const fbx_node *ossa__fbx_template(const fbx_doc *doc, const char *kind);

/* -- xform.c: node transforms (§8) -- */

/* The static part of a node's transform. */
typedef struct fbx_xform {
    double t[3], r[3], s[3];           /* Lcl: animated channels */
    double roff[3], rpiv[3], soff[3], spiv[3];
    double pre[3], post[3];
    int order;          /* 0..5 (XYZ..ZYX) */
    bool active;        /* RotationActive */
    int inherit;        /* InheritType */
    double g[16];       /* geometric transform */
} fbx_xform;

/* Reads every transform property of a model (warnings for unsupported
 * orders go to the model). */
void ossa__fbx_xform_read(fbx_doc *doc, const fbx_node *node, const fbx_props *p, fbx_xform *x);
/* The local matrix L of §8.1 with the given Lcl values (degrees). */
void ossa__fbx_local_matrix(const fbx_xform *x, const double t[3], const double r[3],
                            const double s[3], double out[16]);
/* The local matrix with the inherit type applied: InheritType 2 (Rrs)
 * with a uniform parent `Lcl Scaling` undoes that scale (§8.2); other cases
 * are the plain product. parent_scale may be NULL (a root). */
void ossa__fbx_node_local(const fbx_xform *x, const double t[3], const double r[3],
                          const double s[3], const double *parent_scale, double out[16]);
/* Euler angles (degrees) in `order` as a rotation matrix. */
void ossa__fbx_euler_matrix(const double deg[3], int order, double out[16]);
/* Column-major 4x4 from 16 doubles of an array value. */
void ossa__fbx_matrix_from_array(const fbx_value *v, double out[16]);
void ossa__fbx_identity(double m[16]);

/* Axis and unit conversion (§9): K = k·C and its inverse. */
typedef struct fbx_axes {
    double k[16], kinv[16];
    double c[9]; /* C alone, row-major: directions */
    bool mirror; /* det C < 0: winding reverses once more */
} fbx_axes;

/* -- skin.c -- */

typedef struct fbx_influence {
    uint32_t joint;
    float weight;
} fbx_influence;

/* Influences of each control point of one geometry: first[cp] .. first[cp+1]. */
typedef struct fbx_skin_data {
    uint32_t *first; /* num_points + 1 */
    fbx_influence *list;
    bool skinned;
    double mesh_bind[16]; /* TransformLink · Transform of its first cluster */
    int32_t first_joint;
} fbx_skin_data;

/* -- scene.c's object table, read by mesh.c, skin.c and anim.c -- */

typedef enum fbx_kind {
    FBX_OTHER = 0,
    FBX_MODEL,
    FBX_GEOMETRY,
    FBX_SKIN,
    FBX_CLUSTER,
    FBX_BLENDSHAPE,
    FBX_POSE,
    FBX_MATERIAL,
    FBX_STACK,
    FBX_LAYER,
    FBX_CURVE_NODE,
    FBX_CURVE,
    FBX_VIDEO,
    FBX_TEXTURE,
    FBX_ATTRIBUTE
} fbx_kind;

typedef struct fbx_conn {
    uint32_t child, parent; /* object indices; UINT32_MAX = the scene root */
    const fbx_value *prop;  /* OP: the property name; NULL for OO */
} fbx_conn;

typedef struct fbx_object {
    int64_t id;
    fbx_kind kind;
    const fbx_node *node;
    const char *name; /* NUL-terminated, class stripped */
    const fbx_value *subclass;
    fbx_props props;
    /* connections where this object is the parent / the child, in file
     * order (indices into fbx_scene.conns) */
    uint32_t *in, *out;
    uint32_t num_in, num_out;
    /* models */
    int32_t parent;  /* parent model, -1 = root */
    int32_t joint;   /* ossa joint index, -1 */
    bool is_limb;
    fbx_xform xf;
    double rest_local[16], rest_world[16];
} fbx_object;

typedef struct fbx_scene {
    fbx_doc *doc;
    fbx_object *objs;
    uint32_t num_objs;
    fbx_conn *conns;
    uint32_t num_conns;
    fbx_axes axes;
    double fps;
    uint32_t num_joints;
    uint32_t *joint_obj;      /* joint -> object */
    double (*bind_world)[16]; /* per joint, in file space */
    bool has_joints;
} fbx_scene;

/* -- mesh.c -- */

/* Builds every mesh of the scene into the model (vertex arrays, triangles,
 * meshes). */
ossa_status ossa__fbx_build_meshes(fbx_scene *sc);
/* -- skin.c -- */

/* Fills `out` for one geometry object drawn by model object `mesh_model`. */
ossa_status ossa__fbx_skin_read(fbx_scene *sc, uint32_t geometry, uint32_t mesh_model,
                                uint32_t num_points, fbx_skin_data *out);

/* -- anim.c -- */

/* True when any stack animates Lcl properties of model object `obj`. */
bool ossa__fbx_model_animated(const fbx_scene *sc, uint32_t obj);
/* One ossa animation per AnimationStack. */
ossa_status ossa__fbx_build_animations(fbx_scene *sc);

/* -- scene.c -- */

ossa_status ossa__fbx_build(fbx_doc *doc);

/* Shared small helpers of the scene parts (xform.c). */
void ossa__fbx_store_transform(const fbx_scene *sc, const double local[16], ossa_transform *out);

#endif
