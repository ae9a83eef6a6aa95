/* Temporary collections for readers (lists.h). */
#include "core/lists.h"

/* -- Growable arrays -- */

bool ossa__list_reserve(const ossa_model *m, ossa_list *l, size_t count, size_t elem)
{
    if (count <= l->cap) return true;
    size_t cap = l->cap ? l->cap : 16;
    while (cap < count) {
        if (cap > SIZE_MAX / 2) return false;
        cap *= 2;
    }
    if (elem && cap > SIZE_MAX / elem) return false;
    unsigned char *data = ossa__temp_alloc(m, cap * elem);
    if (!data) return false;
    if (l->count) memcpy(data, l->data, l->count * elem);
    ossa__temp_free(m, l->data);
    l->data = data;
    l->cap = cap;
    return true;
}

void *ossa__list_push(const ossa_model *m, ossa_list *l, size_t elem)
{
    if (l->count == SIZE_MAX || !ossa__list_reserve(m, l, l->count + 1, elem)) return NULL;
    unsigned char *p = l->data + l->count++ * elem;
    memset(p, 0, elem);
    return p;
}

void ossa__list_free(const ossa_model *m, ossa_list *l)
{
    ossa__temp_free(m, l->data);
    memset(l, 0, sizeof *l);
}

/* -- Interned strings -- */

static uint32_t hash_bytes(const unsigned char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= s[i];
        h *= 16777619u;
    }
    return h;
}

static bool rehash(const ossa_model *m, ossa_intern *t, size_t num_slots)
{
    uint32_t *slots = ossa__temp_calloc(m, num_slots, sizeof *slots);
    if (!slots) return false;
    for (uint32_t id = 0; id < ossa__intern_count(t); id++) {
        const char *s = ossa__intern_str(t, id);
        size_t i = hash_bytes((const unsigned char *)s, strlen(s)) & (num_slots - 1);
        while (slots[i]) i = (i + 1) & (num_slots - 1);
        slots[i] = id + 1;
    }
    ossa__temp_free(m, t->slots);
    t->slots = slots;
    t->num_slots = num_slots;
    return true;
}

int64_t ossa__intern(const ossa_model *m, ossa_intern *t, const char *s, size_t len)
{
    size_t count = ossa__intern_count(t);
    /* At most half full: probes stay short. */
    if ((count + 1) * 2 > t->num_slots) {
        if (count >= (size_t)INT32_MAX || !rehash(m, t, t->num_slots ? t->num_slots * 2 : 64))
            return -1;
    }
    uint32_t h = hash_bytes((const unsigned char *)s, len);
    size_t i = h & (t->num_slots - 1);
    for (; t->slots[i]; i = (i + 1) & (t->num_slots - 1)) {
        const char *other = ossa__intern_str(t, t->slots[i] - 1);
        if (strncmp(other, s, len) == 0 && other[len] == 0) return t->slots[i] - 1;
    }
    if (t->pool.count > UINT32_MAX - len - 1 ||
        !ossa__list_reserve(m, &t->pool, t->pool.count + len + 1, 1))
        return -1;
    uint32_t *ofs = ossa__list_push(m, &t->offsets, sizeof *ofs);
    if (!ofs) return -1;
    *ofs = (uint32_t)t->pool.count;
    memcpy(t->pool.data + t->pool.count, s, len);
    t->pool.data[t->pool.count + len] = 0;
    t->pool.count += len + 1;
    t->slots[i] = (uint32_t)count + 1;
    return (int64_t)count;
}

int64_t ossa__intern_find(const ossa_intern *t, const char *s, size_t len)
{
    if (!t->num_slots) return -1;
    uint32_t h = hash_bytes((const unsigned char *)s, len);
    for (size_t i = h & (t->num_slots - 1); t->slots[i]; i = (i + 1) & (t->num_slots - 1)) {
        const char *other = ossa__intern_str(t, t->slots[i] - 1);
        if (strncmp(other, s, len) == 0 && other[len] == 0) return t->slots[i] - 1;
    }
    return -1;
}

void ossa__intern_free(const ossa_model *m, ossa_intern *t)
{
    ossa__list_free(m, &t->pool);
    ossa__list_free(m, &t->offsets);
    ossa__temp_free(m, t->slots);
    memset(t, 0, sizeof *t);
}
