/* Temporary collections for readers that gather a file before building
 * the model (lists.c): growable arrays and string interning (welding of
 * equal records is core/weld.h). All memory comes from the model's allocator and is
 * released with the *_free calls; a failed allocation leaves a collection
 * as it was, so freeing it is always safe. */
#ifndef OSSA_LISTS_H
#define OSSA_LISTS_H

#include "core/internal.h"

/* -- Growable arrays -- */

typedef struct ossa_list {
    unsigned char *data;
    size_t count, cap; /* in elements */
} ossa_list;

#define OSSA_LIST_AT(list, type, i) (((type *)(list).data)[i])

/* Appends one zeroed element of `elem` bytes; NULL when memory runs out or
 * the size overflows. The pointer is valid until the next push. */
void *ossa__list_push(const ossa_model *m, ossa_list *l, size_t elem);
/* Makes room for `count` elements in all (the count is not changed). */
bool ossa__list_reserve(const ossa_model *m, ossa_list *l, size_t count, size_t elem);
void ossa__list_free(const ossa_model *m, ossa_list *l);

/* -- Interned strings: equal byte strings get one dense id -- */

typedef struct ossa_intern {
    ossa_list pool;    /* char: NUL-terminated strings */
    ossa_list offsets; /* uint32_t: start of string id in the pool */
    uint32_t *slots;   /* hash table of id + 1 (0 = empty) */
    size_t num_slots;
} ossa_intern;

/* The id of s[0..len) (a new one, in order of first appearance, when the
 * string is new); -1 when memory runs out or the table is full (2^31
 * strings). The string must not contain NUL bytes. */
int64_t ossa__intern(const ossa_model *m, ossa_intern *t, const char *s, size_t len);
static inline const char *ossa__intern_str(const ossa_intern *t, uint32_t id)
{
    return (const char *)t->pool.data + OSSA_LIST_AT(t->offsets, uint32_t, id);
}
static inline uint32_t ossa__intern_count(const ossa_intern *t)
{
    return (uint32_t)t->offsets.count;
}
/* The id of s[0..len) when it was interned, else -1 (nothing is added). */
int64_t ossa__intern_find(const ossa_intern *t, const char *s, size_t len);
void ossa__intern_free(const ossa_model *m, ossa_intern *t);

#endif
