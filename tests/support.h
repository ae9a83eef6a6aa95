/* Helpers shared by the C tests: files and paths, skipping when the shared
 * data is missing, float and quaternion comparisons, a counting allocator
 * that can fail on purpose, little-endian access and a minimal IQM decoder
 * written from docs/formats/iqm.md alone (it uses nothing from the library, so
 * the tests can check the library against it). */
#ifndef OSSA_TEST_SUPPORT_H
#define OSSA_TEST_SUPPORT_H

/* cmocka needs these before its header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>

#include "ossa.h"

/* -- Files and paths -------------------------------------------------------- */

/* The whole file in a malloc'd buffer (never NULL for an empty file), or
 * NULL when it cannot be read. */
unsigned char *ts_read_file(const char *path, size_t *size);
/* "a/b" in a malloc'd string. */
char *ts_path_join(const char *a, const char *b);
/* $OSSA_SHARED_DIR/data exists and is a directory. */
bool ts_shared_data_available(void);
/* Skips the current test (printing "SKIP: ../shared/data not found") when
 * the shared data is missing. */
void ts_require_shared_data(void);
/* Skips the current test, printing "SKIP: <reason>". Every skip (this one
 * or cmocka's skip()) is counted: a run with skips and no failure exits
 * with TS_SKIP_EXIT (ctest's SKIP_RETURN_CODE) and records the reasons
 * in $OSSA_TEST_TMP/skipped/<test> for the summary of `make test`. */
void ts_skip(const char *reason);
#define TS_SKIP_EXIT 77
/* Reads $OSSA_SHARED_DIR/data/<rel>: skips the test when the data directory
 * is missing, fails it when the file is missing. free() the result. */
unsigned char *ts_read_shared(const char *rel, size_t *size);
/* $OSSA_TEST_TMP/<name> (or /tmp/<name>), malloc'd. */
char *ts_tmp_path(const char *name);
/* Runs tests/gen_tga.py (TGA files of every kind with known pixels, made
 * by Python from the specification alone) into $OSSA_TEST_TMP/<name>/ and
 * returns that directory (malloc'd); skips the test when python3 or the
 * script cannot be run. */
char *ts_generate_tga(const char *name);

/* -- Loading and writing ---------------------------------------------------- */

/* Loads from memory (format detected) and fails the test on error. */
ossa_model *ts_load(const void *data, size_t size);
/* Reads $OSSA_SHARED_DIR/data/<rel> into *file (see ts_read_shared) and
 * loads it. free() *file. */
ossa_model *ts_load_shared(const char *rel, unsigned char **file, size_t *size);
/* Animation `a` of `m` as a compressed clip within `bound` (0: the default
 * bound); fails the test on error. */
ossa_clip *ts_compress(const ossa_model *m, uint32_t a, float bound);
/* Writes with `options` (NULL: IQM, default bounds) and fails the test on
 * error. Free with ossa_free(result, NULL). */
unsigned char *ts_write(const ossa_model *m, const ossa_write_options *options, size_t *size);

/* -- Comparisons ------------------------------------------------------------ */

/* One unit in the last place of float at the magnitude of x. */
double ts_ulp(double x);
/* Channel k of a transform in IQM's numbering (§7): 0-2 translate,
 * 3-6 rotate x y z w, 7-9 scale. */
float ts_channel(const ossa_transform *t, int k);

void ts_assert_near(double a, double b, double tol, const char *ea, const char *eb,
                    const char *file, int line);
#define TS_ASSERT_NEAR(a, b, tol)                                                                  \
    ts_assert_near((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)

/* Both quaternions normalized (in double), then the largest component
 * difference, taking q and -q as the same rotation. */
double ts_quat_distance(const float a[4], const float b[4]);
/* Same, but without identifying q and -q (for checks that the sign is kept). */
double ts_quat_distance_signed(const float a[4], const float b[4]);
void ts_assert_quat(const float a[4], const float b[4], double tol, bool same_sign,
                    const char *file, int line);
#define TS_ASSERT_QUAT_EQUIV(a, b, tol) ts_assert_quat((a), (b), (tol), false, __FILE__, __LINE__)
#define TS_ASSERT_QUAT_SAME(a, b, tol) ts_assert_quat((a), (b), (tol), true, __FILE__, __LINE__)

/* -- Random numbers ---------------------------------------------------------- */

/* xorshift64: a repeatable sequence for a given (nonzero) state. */
/* Two diagnostics alike in every field (code, severity, place, message). */
void ts_assert_same_diagnostic(const ossa_diagnostic *a, const ossa_diagnostic *b);

/* Format options from a spec such as "fbx.keep_axes obj.axes=blender"
 * (space-separated NAME or NAME=VALUE; a bare NAME is a switch turned
 * on): the strings live in the struct. NULL or "" gives none. */
typedef struct ts_options {
    char text[256];
    ossa_option list[8];
    uint32_t count;
} ts_options;
void ts_options_parse(ts_options *o, const char *spec);

uint64_t ts_rand(uint64_t *state);
/* A finite float with random bits (any exponent, sign and mantissa). */
float ts_random_float(uint64_t *state);

/* -- Allocator -------------------------------------------------------------- */

/* An ossa_allocator that counts calls and live blocks and fails on request:
 * allocation number `fail_at` (0-based) returns NULL, and with `sticky`
 * every later one too. fail_at < 0 never fails. Blocks carry a header so
 * that frees of unknown pointers are caught. */
typedef struct ts_alloc {
    ossa_allocator allocator; /* pass this to the library */
    long fail_at;
    bool sticky;
    long calls;    /* allocation attempts so far */
    long failures; /* NULLs returned */
    long live;     /* blocks allocated and not yet freed */
    size_t live_bytes;
    long bad_frees;      /* frees of pointers this allocator did not hand out */
    size_t max_request;  /* largest size asked for */
    size_t refuse_above; /* 0 = no limit; larger requests get NULL */
    /* Allocations made while paused (ts_alloc_pause) never fail and are
     * not counted in `counted`; `fail_at` numbers the counted ones. */
    bool paused;
    long counted; /* allocation attempts while not paused */
} ts_alloc;

void ts_alloc_init(ts_alloc *a, long fail_at, bool sticky);
/* Holds failures back (set-up or comparison work around the operation
 * swept) and resumes them: a sweep fails only the counted allocations. */
void ts_alloc_pause(ts_alloc *a);
void ts_alloc_resume(ts_alloc *a);

/* -- Allocation-failure sweep (support_alloc.c) ------------------------------ */

/* What a successful run hands back to be compared with the run without
 * failures: bytes standing for its result (malloc'd; the sweep frees
 * them). Left NULL, there is nothing to compare. */
typedef struct ts_result {
    unsigned char *data;
    size_t size;
} ts_result;

/* Runs the operation once through `a` (a->allocator for the library).
 * Returns OSSA_OK, or OSSA_FAILED with *err filled. It frees everything
 * it took from `a` before returning; it may assert what a failure must
 * leave (no file written, ...). */
typedef ossa_status (*ts_alloc_op)(void *ctx, ts_alloc *a, ossa_error *err, ts_result *result);

enum {
    TS_SWEEP_ONCE = 1,   /* allocation n fails, the later ones succeed */
    TS_SWEEP_STICKY = 2, /* allocation n and every later one fail */
    TS_SWEEP_BOTH = 3
};

typedef struct ts_sweep {
    int modes;          /* TS_SWEEP_*; 0 means TS_SWEEP_BOTH */
    bool must_fail;     /* no run with a failed allocation may succeed */
    long min_calls;     /* the unfailed run makes at least this many (0: 1) */
    bool allow_none;    /* it may make none (an edit the arena has room for) */
    long max_calls;     /* and at most this many (0: TS_SWEEP_MAX_CALLS) */
} ts_sweep;
#define TS_SWEEP_MAX_CALLS 100000L

/* The run without failures first (it must succeed, within the bounds of
 * calls, and gives the reference result), then one run per counted
 * allocation n and mode, with n failing. Each failed run returns
 * OSSA_ERROR_NOMEM because of a failure it was dealt; each
 * successful one gives the reference result; none leaves a block live
 * or frees a foreign pointer. In sticky mode, failing from call `total`
 * on must succeed (the operation's calls do not vary). Failures name
 * `label`, the call and the mode. Returns the number of counted calls. */
long ts_alloc_sweep_with(const char *label, ts_alloc_op op, void *ctx, const ts_sweep *how);
/* Both modes, the default bounds. */
long ts_alloc_sweep(const char *label, ts_alloc_op op, void *ctx);

/* ossa_load_memory(data, size) with `options` (NULL: none; their
 * allocator is replaced by the sweep's), swept as `how` says (NULL: the
 * defaults); a success's result is the model written as IQM. */
long ts_alloc_sweep_load(const char *label, const void *data, size_t size,
                         const ossa_load_options *options, const ts_sweep *how);

/* result := a copy of size bytes at data. */
void ts_result_copy(ts_result *result, const void *data, size_t size);
/* result := the model written as IQM (allocations through the default
 * allocator, `a` paused meanwhile when given: a writer may take work
 * space from the model's allocator). */
void ts_result_model(ts_result *result, ts_alloc *a, const ossa_model *m);

/* -- A model built from tables (support_model.c) ----------------------------- */

/* A model described by tables and made through the public ossa_model_*
 * calls, in the order a reader would make them: joints, vertex count,
 * vertex arrays, triangles, meshes, extras, comment, animations. Each
 * call must succeed (the test fails otherwise). Animation frames start at
 * the bind pose: fill model->animations[i].frames afterwards. */
typedef struct ts_joint {
    const char *name;
    int32_t parent;        /* -1 for a root */
    ossa_transform pose;   /* the bind pose, used when `posed` */
    bool posed;            /* false: the identity */
} ts_joint;

typedef struct ts_array {
    ossa_vertex_type type;
    ossa_component format; /* stored as; the data are floats (IQM conversion rules) */
    uint32_t size;         /* components per vertex */
    const char *name;      /* custom arrays */
    const float *data;     /* num_vertices * size floats */
} ts_array;

typedef struct ts_mesh {
    const char *name, *material;
    uint32_t first_vertex, num_vertices, first_triangle, num_triangles;
} ts_mesh;

typedef struct ts_extra {
    const char *name;
    const void *data;
    size_t size;
} ts_extra;

typedef struct ts_anim {
    const char *name;
    uint32_t num_frames;
    float framerate;
    uint32_t flags; /* OSSA_ANIMATION_* */
} ts_anim;

typedef struct ts_model_spec {
    const ossa_allocator *allocator; /* NULL: the default */
    uint32_t num_joints;
    const ts_joint *joints;
    uint32_t num_vertices; /* 0: no vertex count is set (and no arrays given) */
    uint32_t num_arrays;
    const ts_array *arrays;
    uint32_t num_triangles;
    const ossa_triangle *triangles;
    uint32_t num_meshes;
    const ts_mesh *meshes;
    uint32_t num_extras;
    const ts_extra *extras;
    const char *comment; /* NULL: none */
    uint32_t num_animations;
    const ts_anim *animations;
} ts_model_spec;

ossa_model *ts_model_build(const ts_model_spec *spec);

/* A small model every writer can write, facing -Y (so that writers of
 * formats facing +X turn it: core/front.c): joints root (at the origin,
 * scaled by 2 in every pose, so that writers without scale bake it:
 * core/scale.c), spine and head in a chain (each 1 above its parent on
 * z), two quads of 4 vertices at z 0 and 1.5 (positions, texcoords,
 * normals, ubyte blend indexes and float weights, which IQM converts: the
 * lower quad on joints 0 and 1, the upper on 1 and 2, weights 0.75 and
 * 0.25), meshes "lower" (skin) and "upper" (cloth), the comment "small",
 * a rest pose turned from the bind pose at the root (glTF keeps both, the
 * other writers skin the mesh into it), and animations "bend" and "nod" of
 * 3 frames at 24 fps: bend turns the spine about x by 0.3 * frame radians,
 * nod the head by -0.3 * frame and scales it by 1.5 in frame 2 (everything
 * else at the bind pose). */
ossa_model *ts_small_model(const ossa_allocator *allocator);

/* -- Little-endian access --------------------------------------------------- */

uint16_t ts_le16(const unsigned char *p);
uint32_t ts_le32(const unsigned char *p);
float ts_lef32(const unsigned char *p);
void ts_put16(unsigned char *p, uint16_t v);
void ts_put32(unsigned char *p, uint32_t v);
void ts_putf32(unsigned char *p, float v);

/* -- Minimal IQM v2 decoder (docs/formats/iqm.md §2, §3, §7) --------------------- */

/* Header field offsets, from the table of §2. */
enum {
    TS_IQM_VERSION = 16,
    TS_IQM_FILESIZE = 20,
    TS_IQM_FLAGS = 24,
    TS_IQM_NUM_TEXT = 28,
    TS_IQM_OFS_TEXT = 32,
    TS_IQM_NUM_MESHES = 36,
    TS_IQM_OFS_MESHES = 40,
    TS_IQM_NUM_VERTEXARRAYS = 44,
    TS_IQM_NUM_VERTEXES = 48,
    TS_IQM_OFS_VERTEXARRAYS = 52,
    TS_IQM_NUM_TRIANGLES = 56,
    TS_IQM_OFS_TRIANGLES = 60,
    TS_IQM_OFS_ADJACENCY = 64,
    TS_IQM_NUM_JOINTS = 68,
    TS_IQM_OFS_JOINTS = 72,
    TS_IQM_NUM_POSES = 76,
    TS_IQM_OFS_POSES = 80,
    TS_IQM_NUM_ANIMS = 84,
    TS_IQM_OFS_ANIMS = 88,
    TS_IQM_NUM_FRAMES = 92,
    TS_IQM_NUM_FRAMECHANNELS = 96,
    TS_IQM_OFS_FRAMES = 100,
    TS_IQM_OFS_BOUNDS = 104,
    TS_IQM_NUM_COMMENT = 108,
    TS_IQM_OFS_COMMENT = 112,
    TS_IQM_NUM_EXTENSIONS = 116,
    TS_IQM_OFS_EXTENSIONS = 120,
    TS_IQM_HEADER_SIZE = 124
};

typedef struct ts_iqm_pose {
    int32_t parent;
    uint32_t mask;
    float offset[10], scale[10];
} ts_iqm_pose;

typedef struct ts_iqm_joint {
    const char *name;
    int32_t parent;
    float t[3], q[4], s[3];
} ts_iqm_joint;

typedef struct ts_iqm_anim {
    const char *name;
    uint32_t first_frame, num_frames, flags;
    float framerate;
} ts_iqm_anim;

uint32_t ts_iqm_header(const unsigned char *file, int field);
/* Text-block string at `ofs` (no checks: for well-formed files). */
const char *ts_iqm_text(const unsigned char *file, uint32_t ofs);
void ts_iqm_joint_at(const unsigned char *file, uint32_t j, ts_iqm_joint *out);
void ts_iqm_pose_at(const unsigned char *file, uint32_t j, ts_iqm_pose *out);
void ts_iqm_anim_at(const unsigned char *file, uint32_t a, ts_iqm_anim *out);
/* The raw u16 sample of pose j, channel k at global frame g (the channel
 * must be animated). */
uint16_t ts_iqm_sample(const unsigned char *file, uint32_t g, uint32_t j, int k);
/* Channel values of pose j at global frame g, §7: offset + sample * scale
 * for animated channels, offset for constant ones; each step in float. */
void ts_iqm_channels(const unsigned char *file, uint32_t g, uint32_t j, float v[10]);

int ts_popcount(uint32_t v);

/* -- A small IQM file built here (support_mini.c) --------------------------- */

/* A small complete IQM file (v2, or v1 with 44-byte joints, 80-byte poses
 * and 9 channels, §13): 4 vertices, 2 triangles, joints root and child, one
 * looping 3-frame animation "wave", bounds, a comment and one extension.
 * The offsets of every part are kept so that tests can break one field. */
typedef struct ts_mini {
    unsigned char b[1024];
    size_t size;
    uint32_t text, num_text, meshes, arrays, triangles, joints, poses, anims, frames, ext;
} ts_mini;

/* Text offsets of its names. */
enum {
    TS_MINI_MESH = 1,
    TS_MINI_MAT = 6,
    TS_MINI_ROOT = 10,
    TS_MINI_CHILD = 15,
    TS_MINI_WAVE = 21,
    TS_MINI_EXT = 26
};

/* version 2, or 1 for the v1 layout (§13). */
void ts_mini_build(ts_mini *m, int version);

#endif
