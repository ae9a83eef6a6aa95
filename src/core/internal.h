/* Internal helpers shared by the library's modules: arena allocation,
 * error reporting, warnings, little-endian access. Not installed. */
#ifndef OSSA_INTERNAL_H
#define OSSA_INTERNAL_H

#include "ossa.h"
#include "math/math.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#if defined(__GNUC__)
#define OSSA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OSSA_PRINTF(f, a)
#endif

/* -- Arena: every allocation of a model lives in it; one free ends all. -- */

typedef struct ossa_arena_chunk ossa_arena_chunk;

typedef struct ossa_arena {
    ossa_allocator allocator;
    ossa_arena_chunk *chunks;
    unsigned char *cursor; /* free space in the newest chunk */
    size_t left;
} ossa_arena;

void *ossa__alloc(const ossa_allocator *a, size_t size);
void ossa__free(const ossa_allocator *a, void *ptr, size_t size);
/* Grows (or shrinks) a block from ossa__alloc to new_size bytes, keeping
 * its first min(old_size, new_size) bytes; NULL on failure, the block then
 * untouched. The default allocator uses realloc, which can extend a large
 * block in place (no second copy at the peak). */
void *ossa__realloc(const ossa_allocator *a, void *ptr, size_t old_size, size_t new_size);

/* Temporary memory of computations on a model (adjacency, bounds, merging,
 * validation), from the model's allocator: *_calloc zeroes and checks the
 * multiplication; free accepts NULL. */
void *ossa__temp_alloc(const ossa_model *model, size_t size);
void *ossa__temp_calloc(const ossa_model *model, size_t count, size_t elem);
void ossa__temp_free(const ossa_model *model, void *ptr);

/* Calls fn(ctx, i) for i in [0, count), on up to `count` threads (the
 * calling one included); returns when all calls have. If a thread cannot
 * be started its calls run on the calling thread. At most 64. */
void ossa__parallel(uint32_t count, void (*fn)(void *ctx, uint32_t index), void *ctx);
/* How many workers share `items` (0 threads = 1, at most 64), at least
 * `per_worker` items each. */
uint32_t ossa__workers(uint32_t threads, uint64_t items, uint64_t per_worker);
/* Worker `index`'s share [*first, *end) of `count` items split evenly among
 * `workers`. */
static inline void ossa__share(uint32_t count, uint32_t workers, uint32_t index, uint32_t *first,
                               uint32_t *end)
{
    *first = (uint32_t)((uint64_t)count * index / workers);
    *end = (uint32_t)((uint64_t)count * (index + 1) / workers);
}

void ossa__arena_init(ossa_arena *arena, const ossa_allocator *allocator);
void ossa__arena_release(ossa_arena *arena);
/* Zeroed, 16-byte aligned; NULL on failure or when size overflows. */
void *ossa__arena_alloc(ossa_arena *arena, size_t size);
void *ossa__arena_array(ossa_arena *arena, size_t count, size_t elem);
char *ossa__arena_strndup(ossa_arena *arena, const char *s, size_t len);
char *ossa__arena_strdup(ossa_arena *arena, const char *s);

/* Growth of arena-held arrays: returns the new storage (old contents
 * copied) or NULL. *capacity is updated. */
void *ossa__arena_grow(ossa_arena *arena, void *old, size_t count, size_t *capacity, size_t elem);

struct ossa_model_internal {
    ossa_arena arena;
    size_t cap_joints, cap_arrays, cap_meshes, cap_animations, cap_extras, cap_warnings;
};

static inline ossa_arena *ossa__model_arena(ossa_model *m) { return &m->internal->arena; }

/* Zeroed storage for an animation of the model (num_joints channel masks,
 * num_frames bounds), set on the animation and returned; NULL when memory
 * runs out. Readers fill them in place. */
uint8_t *ossa__animation_channels(ossa_model *model, ossa_animation *animation);
ossa_bounds *ossa__animation_bounds(ossa_model *model, ossa_animation *animation);
/* Every vertex's first `want` components of `array` into out (num_vertices
 * * want floats), zero where the array has fewer; all zero for a NULL
 * array, and for an array of unknown format (then OSSA_FAILED). */
ossa_status ossa__vertex_array_read_padded(const ossa_model *model, const ossa_vertex_array *array,
                                           uint32_t want, float *out);
/* ossa_model_compute_bounds on up to `threads` threads (0 = 1). */
ossa_status ossa__compute_bounds(const ossa_model *model, uint32_t animation, ossa_bounds_mode mode,
                                 ossa_bounds *out, uint32_t threads, ossa_error *error);
/* The same in pieces, for callers that make poses as they go (the IQM
 * writer decodes its quantized frames): prepare once (EXACT, else
 * conservative), then the bounds of any number of poses, on any threads,
 * each with its own scratch of ossa__bounds_scratch_floats floats. */
typedef struct ossa__bounds_prep {
    const ossa_model *model;
    uint32_t nv, nj;
    bool exact;
    float *pos, *idx, *wgt; /* per vertex (EXACT only) */
    float *inv_bind;        /* 16 per joint */
    double *box; /* per joint and one more: joint-space centre, half-extent (conservative) */
} ossa__bounds_prep;
ossa_status ossa__bounds_prepare(const ossa_model *model, ossa_bounds_mode mode,
                                 ossa__bounds_prep *prep, ossa_error *error);
size_t ossa__bounds_scratch_floats(const ossa__bounds_prep *prep);
void ossa__bounds_of_pose(const ossa__bounds_prep *prep, const ossa_transform *local,
                          float *scratch, ossa_bounds *out);
void ossa__bounds_release(ossa__bounds_prep *prep);

/* -- Errors ----------------------------------------------------------------- */

/* Fills `error` (may be NULL) and returns OSSA_FAILED. */
ossa_status ossa__fail(ossa_error *error, ossa_code code, uint64_t offset, const char *fmt,
                       ...) OSSA_PRINTF(4, 5);
ossa_status ossa__fail_line(ossa_error *error, ossa_code code, uint32_t line,
                            uint32_t column, const char *fmt, ...) OSSA_PRINTF(5, 6);
ossa_status ossa__fail_nomem(ossa_error *error);
/* Both of the above with the caller's arguments, for readers' own
 * message functions: offset, or line and column (OSSA_NO_OFFSET, 0, 0 for
 * what is unknown). */
ossa_status ossa__failv(ossa_error *error, ossa_code code, uint64_t offset, uint32_t line,
                        uint32_t column, const char *fmt, va_list ap);
/* Names the file of the current call: a failure later in the same call
 * keeps it (a failure in another call starts from ""). Naming the file of
 * an error already filled only sets its file. */
void ossa__error_set_file(ossa_error *error, const char *file);
/* What a public call that reads or writes a file does first: every field
 * cleared (the caller's struct may hold anything), then the file named. */
void ossa__error_begin(ossa_error *error, const char *file);
/* Every field zero: the state a successful public call leaves. */
void ossa__error_clear(ossa_error *error);

/* Copies a caller's option struct, which starts with uint32_t struct_size
 * (ossa.h), into `dst` (this library's struct, dst_size bytes): a size of
 * 0 means `first_size` bytes (the layout of ossa 0.2), fields the caller's
 * struct lacks are zero, and a larger struct passes only when the bytes
 * beyond dst_size are zero. `src` NULL gives all zero. Fails with
 * OSSA_ERROR_ARGUMENT, naming `what`. */
ossa_status ossa__copy_sized(void *dst, size_t dst_size, const void *src, size_t first_size,
                             const char *what, ossa_error *error);
/* The sizes of the option structs of ossa 0.2, what struct_size 0 means:
 * when a field is added to a struct, this becomes the offset of the new
 * field (offsetof), never the new sizeof. */
#define OSSA__LOAD_OPTIONS_0_2 sizeof(ossa_load_options)
#define OSSA__WRITE_OPTIONS_0_2 sizeof(ossa_write_options)

/* Records a non-fatal problem in the model; silently drops it when memory
 * runs out (a warning must never turn a good load into a failure). */
void ossa__warn(ossa_model *model, ossa_code code, uint64_t offset, uint32_t line,
                uint32_t column, const char *fmt, ...) OSSA_PRINTF(6, 7);
void ossa__warnv(ossa_model *model, ossa_code code, uint64_t offset, uint32_t line,
                 uint32_t column, const char *fmt, va_list ap);
/* Sends one diagnostic (offset unknown, no file) to `fn` when it is set:
 * the writers' and validation's way to report. */
void ossa__report(ossa_diagnostic_fn fn, void *user, ossa_severity severity, ossa_code code,
                  const char *fmt, ...) OSSA_PRINTF(5, 6);
/* A writer's warning (data it loses) or note, to the write options'
 * diagnostic callback when one is set (options may be NULL). */
void ossa__write_warn(const ossa_write_options *options, ossa_code code, const char *fmt, ...)
    OSSA_PRINTF(3, 4);
void ossa__write_note(const ossa_write_options *options, const char *fmt, ...) OSSA_PRINTF(2, 3);

/* -- Little-endian access --------------------------------------------------- */

/* The most that decoded poses may take for a file of `source_bytes`:
 * frames cost 40 bytes per joint however few bytes the file spends on them
 * (a constant track, a jump in time, a sampler shared by many animations),
 * so readers refuse more than 64 MiB plus 64 bytes per byte of the file,
 * and more than 1 GiB in any case. Real files decode to a few times their
 * size; the fixed allowance covers long static animations in small files. */
static inline uint64_t ossa__decode_limit(uint64_t source_bytes)
{
    uint64_t limit = ((uint64_t)64 << 20) + source_bytes * 64;
    return limit < ((uint64_t)1 << 30) ? limit : (uint64_t)1 << 30;
}

static inline uint16_t ossa__rd16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t ossa__rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline float ossa__rdf32(const unsigned char *p)
{
    uint32_t u = ossa__rd32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline void ossa__wr16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}
static inline void ossa__wr32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}
static inline void ossa__wrf32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    ossa__wr32(p, u);
}

/* Converts `count` components between little-endian file order and host
 * order (a copy on little-endian hosts). */
void ossa__copy_le(void *dst, const void *src, size_t count, size_t component_size);

/* -- Vertex component conversion (vertex.c) -------------------------------- */

float ossa__half_to_float(uint16_t h);
uint16_t ossa__float_to_half(float f);
/* Decodes one component; normalized unless `raw` (blend indexes). */
float ossa__component_get(ossa_component format, const void *p, bool raw);
void ossa__component_put(ossa_component format, void *p, float v, bool raw);

/* One vertex's n (<= OSSA_MAX_COMPONENTS) weights as ubytes summing to
 * exactly 255 (docs/formats/iqm.md §8.3): normalized, floored, then the missing units
 * go to the largest remainders, ties to the lower slot. Weights <= 0 get
 * 0; all zero gives all 0. */
void ossa__ubyte_weights(const float *w, uint32_t n, uint8_t *out);

/* -- Growable byte buffer for writers --------------------------------------- */

typedef struct ossa_buf {
    const ossa_allocator *allocator;
    unsigned char *data;
    size_t size, capacity;
    bool failed; /* an allocation failed: every later call is a no-op */
} ossa_buf;

void ossa__buf_init(ossa_buf *b, const ossa_allocator *allocator);
/* Reserves n zeroed bytes at the end; NULL after an allocation failure. */
unsigned char *ossa__buf_push(ossa_buf *b, size_t n);
void ossa__buf_append(ossa_buf *b, const void *data, size_t n);
void ossa__buf_pad(ossa_buf *b, size_t alignment);
void ossa__buf_release(ossa_buf *b);

#endif
