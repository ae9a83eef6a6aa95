/* Welding (weld.h): open addressing on a hash of the record's bytes, the
 * table at most half full. Which numbers the records get depends only on
 * their order and contents, never on the hash. */
#include "core/weld.h"

/* Records are mostly floats and indices: mixed a word at a time. */
static uint32_t hash_record(const unsigned char *p, size_t size)
{
    uint32_t h = 0x811C9DC5u;
    size_t i = 0;
    for (; i + 4 <= size; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        h = (h ^ w) * 0x9E3779B1u;
        h ^= h >> 15;
    }
    for (; i < size; i++) h = (h ^ p[i]) * 16777619u;
    return h ^ (h >> 13);
}

/* -- One at a time -- */

void ossa__welder_init(ossa__welder *w, const ossa_model *model, size_t size)
{
    memset(w, 0, sizeof *w);
    w->model = model;
    w->size = size;
}

void ossa__welder_free(ossa__welder *w)
{
    ossa__temp_free(w->model, w->records);
    ossa__temp_free(w->model, w->slots);
    w->records = NULL;
    w->slots = NULL;
    w->count = 0;
    w->cap = 0;
    w->num_slots = 0;
}

void ossa__weld_group(ossa__welder *w)
{
    /* A fresh small table: the next group may be much smaller than the
     * last, and clearing a large table per group would cost more. */
    ossa__temp_free(w->model, w->slots);
    w->slots = NULL;
    w->num_slots = 0;
    w->group_first = w->count;
}

/* A table of num_slots holding the current group's records. */
static bool rehash(ossa__welder *w, size_t num_slots)
{
    uint32_t *slots = ossa__temp_calloc(w->model, num_slots, sizeof *slots);
    if (!slots) return false;
    for (uint32_t r = w->group_first; r < w->count; r++) {
        size_t k = hash_record(w->records + (size_t)r * w->size, w->size) & (num_slots - 1);
        while (slots[k]) k = (k + 1) & (num_slots - 1);
        slots[k] = r + 1;
    }
    ossa__temp_free(w->model, w->slots);
    w->slots = slots;
    w->num_slots = num_slots;
    return true;
}

static bool append(ossa__welder *w, const void *record)
{
    if (w->count == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        if (cap > SIZE_MAX / w->size) return false;
        unsigned char *r = ossa__temp_alloc(w->model, cap * w->size);
        if (!r) return false;
        if (w->count) memcpy(r, w->records, (size_t)w->count * w->size);
        ossa__temp_free(w->model, w->records);
        w->records = r;
        w->cap = cap;
    }
    memcpy(w->records + (size_t)w->count * w->size, record, w->size);
    return true;
}

ossa_status ossa__weld_add(ossa__welder *w, const void *record, uint32_t *number, ossa_error *error)
{
    if (w->count >= UINT32_MAX - 1)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "more than 2^32 - 2 vertices");
    /* At most half full, counting the record that may come in. */
    size_t in_group = (size_t)(w->count - w->group_first) + 1;
    if (in_group * 2 > w->num_slots) {
        size_t n = w->num_slots ? w->num_slots * 2 : 64;
        while (n < in_group * 2) n *= 2;
        if (!rehash(w, n)) return ossa__fail_nomem(error);
    }
    size_t k = hash_record(record, w->size) & (w->num_slots - 1);
    for (;; k = (k + 1) & (w->num_slots - 1)) {
        uint32_t s = w->slots[k];
        if (!s) break;
        if (memcmp(w->records + (size_t)(s - 1) * w->size, record, w->size) == 0) {
            *number = s - 1;
            return OSSA_OK;
        }
    }
    if (!append(w, record)) return ossa__fail_nomem(error);
    w->slots[k] = w->count + 1;
    *number = w->count++;
    return OSSA_OK;
}

/* -- All at once -- */

size_t ossa__weld(const ossa_model *m, const void *records, size_t count, size_t size,
                  uint32_t *remap)
{
    if (count >= UINT32_MAX) return SIZE_MAX;
    size_t num_slots = 16;
    while (num_slots < count * 2) num_slots *= 2;
    uint32_t *slots = ossa__temp_calloc(m, num_slots, sizeof *slots);
    if (!slots) return SIZE_MAX;
    const unsigned char *r = records;
    size_t distinct = 0;
    for (size_t i = 0; i < count; i++) {
        const unsigned char *rec = r + i * size;
        size_t k = hash_record(rec, size) & (num_slots - 1);
        for (;; k = (k + 1) & (num_slots - 1)) {
            if (!slots[k]) {
                /* slots hold the index + 1 of a class's first record */
                slots[k] = (uint32_t)i + 1;
                remap[i] = (uint32_t)distinct++;
                break;
            }
            uint32_t j = slots[k] - 1;
            if (memcmp(r + (size_t)j * size, rec, size) == 0) {
                remap[i] = remap[j];
                break;
            }
        }
    }
    ossa__temp_free(m, slots);
    return distinct;
}
