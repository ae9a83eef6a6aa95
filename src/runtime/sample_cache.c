/* The sampling cache's memory (packed.h, struct ossa_sample_cache); the
 * compressed sampler (sample_packed.c) fills and reads it. */
#include "runtime/packed.h"

ossa_sample_cache *ossa_sample_cache_create(uint32_t num_joints, const ossa_allocator *allocator,
                                            ossa_error *error)
{
    uint32_t groups = num_joints / OSSA_CLIP_LANES + (num_joints % OSSA_CLIP_LANES != 0);
    uint64_t per_group =
        2 * OSSA_CLIP_GROUP * sizeof(float) + 3 * OSSA_CLIP_LANES * sizeof(ossa__cached_track);
    if ((uint64_t)groups * per_group > SIZE_MAX / 2) {
        ossa__fail_nomem(error);
        return NULL;
    }
    size_t frame = (size_t)groups * OSSA_CLIP_GROUP * sizeof(float);
    size_t head = (sizeof(ossa_sample_cache) + 63) & ~(size_t)63;
    size_t tracks = (size_t)groups * 3 * OSSA_CLIP_LANES * sizeof(ossa__cached_track);
    /* 63 spare bytes: the allocator promises no alignment, frames start on
     * 64-byte boundaries. */
    size_t size = head + 2 * frame + tracks + 63;
    ossa_allocator alloc = {0};
    if (allocator) alloc = *allocator;
    unsigned char *block = ossa__alloc(&alloc, size);
    if (!block) {
        ossa__fail_nomem(error);
        return NULL;
    }
    ossa_sample_cache *c = (ossa_sample_cache *)(void *)block;
    memset(c, 0, sizeof *c);
    c->allocator = alloc;
    c->size = size;
    c->groups = groups;
    uintptr_t at = ((uintptr_t)(block + head) + 63) & ~(uintptr_t)63;
    c->frames[0] = (float *)at;
    c->frames[1] = (float *)(at + frame);
    c->tracks = (ossa__cached_track *)(at + 2 * frame);
    ossa_sample_cache_reset(c);
    return c;
}

void ossa_sample_cache_reset(ossa_sample_cache *cache)
{
    if (!cache) return;
    cache->clip = NULL;
    memset(&cache->header, 0, sizeof cache->header);
    cache->frame[0] = cache->frame[1] = OSSA_CACHE_EMPTY;
    cache->segment = OSSA_CACHE_EMPTY;
}

void ossa_sample_cache_free(ossa_sample_cache *cache)
{
    if (cache) ossa__free(&cache->allocator, cache, cache->size);
}
