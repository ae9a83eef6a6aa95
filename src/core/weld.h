/* Welding, a step of the post-read pipeline (weld.c): corners that are
 * bytewise the same vertex record become one vertex. Readers that build
 * vertices from corners (IQE, OBJ, SMD, FBX) put everything that makes a
 * vertex in a record (zeroing padding, turning -0 into 0 where they want
 * those equal) and number the records here; adjacency numbers edge ends
 * the same way. Temporary memory comes from the model's allocator. */
#ifndef OSSA_WELD_H
#define OSSA_WELD_H

#include "core/internal.h"

/* Records numbered one at a time, in order of first appearance. The
 * distinct records are kept, in that order: they are the vertices. */
typedef struct ossa__welder {
    const ossa_model *model; /* whose allocator */
    size_t size;             /* bytes per record */
    unsigned char *records;  /* distinct records, `count` of them */
    uint32_t count;
    size_t cap;               /* records that fit */
    uint32_t *slots;          /* hash table: record number + 1, 0 = empty */
    size_t num_slots;
    uint32_t group_first; /* the first record of the current group */
} ossa__welder;

/* An empty welder of records of `size` bytes (> 0). */
void ossa__welder_init(ossa__welder *w, const ossa_model *model, size_t size);
/* The number of the record bytewise equal to `record` in the current
 * group, adding it when there is none. Fails with OSSA_ERROR_NOMEM, or
 * OSSA_ERROR_UNSUPPORTED past 2^32 - 2 records. */
ossa_status ossa__weld_add(ossa__welder *w, const void *record, uint32_t *number, ossa_error *error);
/* Starts a group: records added from now on never match earlier ones
 * (a reader's next mesh). */
void ossa__weld_group(ossa__welder *w);
/* Record `number`. */
static inline const void *ossa__weld_record(const ossa__welder *w, uint32_t number)
{
    return w->records + (size_t)number * w->size;
}
void ossa__welder_free(ossa__welder *w);

/* All at once: remap[i] is the number, in order of first appearance, of
 * the first of `count` records of `size` bytes bytewise equal to record i.
 * Returns the number of distinct records, or SIZE_MAX when memory runs
 * out. Nothing is copied. */
size_t ossa__weld(const ossa_model *m, const void *records, size_t count, size_t size,
                  uint32_t *remap);

#endif
