/*
 * ossa/common.h — what every part of ossa shares: the version, status
 * codes and diagnostics, allocators, transforms, and the one function that
 * frees what a call handed over.
 *
 * Conventions used throughout ossa:
 *  - Quaternions are (x, y, z, w); rotations are unit quaternions.
 *  - A joint transform maps child space to parent space as M = T * R * S
 *    (column vectors). Matrices are 4x4, column-major (element [col*4+row]).
 *  - Every function that can fail returns ossa_status (or NULL) and fills
 *    the caller's ossa_error when one is given (the pointer may be NULL).
 *  - Option structs are zero-initialised; zero always means the default.
 *    Allocators are passed by pointer everywhere (NULL = malloc/free).
 *  - No global state: distinct objects may be used from distinct threads
 *    freely, and an object that is not being changed may be read from
 *    several threads at once.
 */
#ifndef OSSA_COMMON_H
#define OSSA_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_VERSION_MAJOR 0
#define OSSA_VERSION_MINOR 2
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

/* Frees a buffer that an ossa_* call handed over (ossa_write_memory,
 * ossa_render_png_encode, ...); `allocator` is the one it was made with
 * (NULL = malloc). NULL is fine. */
void ossa_free(void *data, const ossa_allocator *allocator);

/* -- Transforms -------------------------------------------------------------- */

typedef struct ossa_transform {
    float translation[3];
    float rotation[4]; /* unit quaternion x, y, z, w */
    float scale[3];
} ossa_transform;

/* Identity: translation 0, rotation (0,0,0,1), scale 1. */
ossa_transform ossa_transform_identity(void);

/* Column-major 4x4 matrix of T * R * S. */
void ossa_transform_to_matrix(const ossa_transform *transform, float out[16]);

/* -- Animation facts the model and the runtime share -------------------------- */

/* ossa_animation.flags and ossa_clip_source.flags: the animation loops
 * (after the last frame comes the first). */
enum { OSSA_ANIMATION_LOOP = 1 };

/* Frame rate used for animations whose framerate is 0 ("not specified") or
 * not a finite positive number; the loaders' default too. */
#define OSSA_DEFAULT_FRAMERATE 30.0f

/* One file: its path and its bytes (a write of several files hands them
 * over as an array of these). */
typedef struct ossa_output_file {
    const char *path;
    const void *data;
    size_t size;
} ossa_output_file;

#ifdef __cplusplus
}
#endif

#endif /* OSSA_COMMON_H */
