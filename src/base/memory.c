/* Memory: the caller's allocator (or malloc), the model arena, and the
 * growable byte buffer that writers fill. */
#include "base/base.h"

#include <stdlib.h>

struct ossa_arena_chunk {
    ossa_arena_chunk *next;
    size_t size; /* whole allocation, header included */
};

#define OSSA_CHUNK_HEADER ((sizeof(ossa_arena_chunk) + 15) & ~(size_t)15)
#define OSSA_CHUNK_MIN (64 * 1024)

void *ossa__alloc(const ossa_allocator *a, size_t size)
{
    if (a && a->alloc) return a->alloc(a->user, size);
    return malloc(size);
}

void ossa__free(const ossa_allocator *a, void *ptr, size_t size)
{
    if (!ptr) return;
    if (a && a->alloc) {
        (void)size; /* a hint for debugging; the callback does not take it */
        if (a->free) a->free(a->user, ptr);
        return;
    }
    free(ptr);
}

void *ossa__realloc(const ossa_allocator *a, void *ptr, size_t old_size, size_t new_size)
{
    if (!(a && a->alloc)) return realloc(ptr, new_size ? new_size : 1);
    void *p = a->alloc(a->user, new_size ? new_size : 1);
    if (!p) return NULL;
    if (ptr) {
        memcpy(p, ptr, old_size < new_size ? old_size : new_size);
        if (a->free) a->free(a->user, ptr);
    }
    return p;
}

void *ossa__calloc(const ossa_allocator *a, size_t count, size_t elem)
{
    if (elem && count > SIZE_MAX / elem) return NULL;
    size_t n = count * elem;
    void *p = ossa__alloc(a, n ? n : 1);
    if (p) memset(p, 0, n);
    return p;
}

void ossa__arena_init(ossa_arena *arena, const ossa_allocator *allocator)
{
    memset(arena, 0, sizeof *arena);
    if (allocator) arena->allocator = *allocator;
}

void ossa__arena_release(ossa_arena *arena)
{
    ossa_arena_chunk *c = arena->chunks;
    while (c) {
        ossa_arena_chunk *next = c->next;
        ossa__free(&arena->allocator, c, c->size);
        c = next;
    }
    arena->chunks = NULL;
    arena->cursor = NULL;
    arena->left = 0;
}

void *ossa__arena_alloc(ossa_arena *arena, size_t size)
{
    size_t need = (size + 15) & ~(size_t)15;
    if (need < size) return NULL;
    if (need == 0) need = 16;
    if (need > arena->left) {
        /* Large requests get a chunk of their own so the current chunk's
         * free space is not thrown away. */
        size_t body = need > OSSA_CHUNK_MIN / 4 ? need : OSSA_CHUNK_MIN;
        if (body > SIZE_MAX - OSSA_CHUNK_HEADER) return NULL;
        ossa_arena_chunk *c = ossa__alloc(&arena->allocator, OSSA_CHUNK_HEADER + body);
        if (!c) return NULL;
        c->size = OSSA_CHUNK_HEADER + body;
        c->next = arena->chunks;
        arena->chunks = c;
        unsigned char *mem = (unsigned char *)c + OSSA_CHUNK_HEADER;
        if (body != OSSA_CHUNK_MIN) {
            memset(mem, 0, need);
            return mem;
        }
        arena->cursor = mem;
        arena->left = body;
    }
    void *p = arena->cursor;
    arena->cursor += need;
    arena->left -= need;
    memset(p, 0, need);
    return p;
}

void *ossa__arena_array(ossa_arena *arena, size_t count, size_t elem)
{
    if (elem && count > SIZE_MAX / elem) return NULL;
    return ossa__arena_alloc(arena, count * elem);
}

char *ossa__arena_strndup(ossa_arena *arena, const char *s, size_t len)
{
    if (len == SIZE_MAX) return NULL;
    char *p = ossa__arena_alloc(arena, len + 1);
    if (p && len) memcpy(p, s, len);
    return p;
}

char *ossa__arena_strdup(ossa_arena *arena, const char *s)
{
    if (!s) s = "";
    return ossa__arena_strndup(arena, s, strlen(s));
}

void *ossa__arena_grow(ossa_arena *arena, void *old, size_t count, size_t *capacity, size_t elem)
{
    if (count < *capacity) return old;
    size_t cap = *capacity ? *capacity * 2 : 8;
    if (cap <= count) cap = count + 1;
    void *p = ossa__arena_array(arena, cap, elem);
    if (!p) return NULL;
    if (old && count) memcpy(p, old, count * elem);
    *capacity = cap;
    return p;
}

/* -- Byte buffer -- */

void ossa__buf_init(ossa_buf *b, const ossa_allocator *allocator)
{
    memset(b, 0, sizeof *b);
    b->allocator = allocator;
}

unsigned char *ossa__buf_push(ossa_buf *b, size_t n)
{
    if (b->failed) return NULL;
    if (n > SIZE_MAX - b->size) {
        b->failed = true;
        return NULL;
    }
    if (b->size + n > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 4096;
        while (cap < b->size + n) {
            if (cap > SIZE_MAX / 2) {
                cap = b->size + n;
                break;
            }
            cap *= 2;
        }
        unsigned char *p = ossa__alloc(b->allocator, cap);
        if (!p) {
            b->failed = true;
            return NULL;
        }
        if (b->size) memcpy(p, b->data, b->size);
        ossa__free(b->allocator, b->data, b->capacity);
        b->data = p;
        b->capacity = cap;
    }
    unsigned char *at = b->data + b->size;
    memset(at, 0, n);
    b->size += n;
    return at;
}

void ossa__buf_append(ossa_buf *b, const void *data, size_t n)
{
    unsigned char *p = ossa__buf_push(b, n);
    if (p && n) memcpy(p, data, n);
}

void ossa__buf_pad(ossa_buf *b, size_t alignment)
{
    size_t rem = b->size % alignment;
    if (rem) ossa__buf_push(b, alignment - rem);
}

void ossa__buf_release(ossa_buf *b)
{
    ossa__free(b->allocator, b->data, b->capacity);
    b->data = NULL;
    b->size = b->capacity = 0;
}

void ossa__copy_le(void *dst, const void *src, size_t count, size_t component_size)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const unsigned char *s = src;
    unsigned char *d = dst;
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < component_size; k++)
            d[i * component_size + k] = s[i * component_size + component_size - 1 - k];
#else
    if (count) memcpy(dst, src, count * component_size);
#endif
}
