/* The bottom layer, on libc alone: allocation through the caller's
 * allocator, the arena and growable buffers, errors, threads, files
 * written atomically, little-endian access. Every folder of src/ may
 * include it; it includes nothing of the library but ossa/common.h. Not
 * installed. */
#ifndef OSSA_BASE_H
#define OSSA_BASE_H

#include "ossa/common.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#if defined(__GNUC__)
#define OSSA_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OSSA_PRINTF(f, a)
#endif

/* -- Memory (memory.c) -------------------------------------------------------- */

void *ossa__alloc(const ossa_allocator *a, size_t size);
/* Zeroed; NULL when count * elem overflows or memory runs out. */
void *ossa__calloc(const ossa_allocator *a, size_t count, size_t elem);
void ossa__free(const ossa_allocator *a, void *ptr, size_t size);
/* Grows (or shrinks) a block from ossa__alloc to new_size bytes, keeping
 * its first min(old_size, new_size) bytes; NULL on failure, the block then
 * untouched. The default allocator uses realloc, which can extend a large
 * block in place (no second copy at the peak). */
void *ossa__realloc(const ossa_allocator *a, void *ptr, size_t old_size, size_t new_size);

/* An arena: many allocations, one release. */
typedef struct ossa_arena_chunk ossa_arena_chunk;

typedef struct ossa_arena {
    ossa_allocator allocator;
    ossa_arena_chunk *chunks;
    unsigned char *cursor; /* free space in the newest chunk */
    size_t left;
} ossa_arena;

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

/* Growable byte buffer (writers). */
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

/* -- Errors (error.c) ----------------------------------------------------------- */

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

/* Sends one diagnostic (offset unknown, no file) to `fn` when it is set:
 * the writers' and validation's way to report. */
void ossa__report(ossa_diagnostic_fn fn, void *user, ossa_severity severity, ossa_code code,
                  const char *fmt, ...) OSSA_PRINTF(5, 6);
void ossa__reportv(ossa_diagnostic_fn fn, void *user, ossa_severity severity, ossa_code code,
                   const char *fmt, va_list ap);

/* -- Option structs that carry their size (sized.c) ------------------------------ */

/* Copies a caller's option struct, which starts with uint32_t struct_size
 * (ossa/common.h's conventions), into `dst` (this library's struct,
 * dst_size bytes): a size of 0 means `first_size` bytes (the layout of
 * ossa 0.2), fields the caller's struct lacks are zero, and a larger
 * struct passes only when the bytes beyond dst_size are zero. `src` NULL
 * gives all zero. Fails with OSSA_ERROR_ARGUMENT, naming `what`. */
ossa_status ossa__copy_sized(void *dst, size_t dst_size, const void *src, size_t first_size,
                             const char *what, ossa_error *error);

/* -- Threads (parallel.c) ----------------------------------------------------- */

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

/* -- Files (files.c) -------------------------------------------------------------- */

/* How ossa__write_files writes. */
typedef struct ossa_file_writing {
    const ossa_allocator *allocator; /* NULL = malloc */
    /* Replace no file that exists: fail with OSSA_ERROR_EXISTS, writing
     * nothing, when any does. */
    bool no_replace;
    /* Called with each path once all are in place, or NULL. */
    void (*wrote)(void *user, const char *path);
    void *user;
} ossa_file_writing;

/* Writes every file to a temporary beside it, then renames all into
 * place; on failure nothing is left behind. Devices and FIFOs are written
 * into, never replaced; a directory is refused. `how` may be NULL. */
ossa_status ossa__write_files(const ossa_output_file *files, size_t count,
                              const ossa_file_writing *how, ossa_error *error);

/* Reads a whole file; the buffer has a NUL after its end. Free with
 * ossa__free(allocator, data, size + 1). */
ossa_status ossa__read_file(const char *path, const ossa_allocator *allocator, unsigned char **data,
                            size_t *size, ossa_error *error);

/* `name` relative to the directory of `base` (a file path); returns the
 * length snprintf would write. */
size_t ossa__sibling_path(const char *base, const char *name, char *out, size_t cap);

/* Whether `name` stays inside the directory it is relative to: not
 * absolute (a leading slash or backslash, or a drive letter) and no ".."
 * component that climbs above the start (slashes and backslashes both
 * separate components, as files made on Windows use either). */
bool ossa__reference_is_inside(const char *name);

/* "image/png" or "image/jpeg" from the first bytes of an image file, else
 * NULL. */
const char *ossa__image_mime(const void *data, size_t size);

/* -- Little-endian access --------------------------------------------------------- */

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

#endif
