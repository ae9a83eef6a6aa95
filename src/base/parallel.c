/* Fork-join: a call per index, spread over POSIX threads started for the
 * occasion (starting a thread costs tens of microseconds, small next to a
 * frame drawn or a file read, and keeps the library free of pools and
 * global state). Used by rendering, reading and writing. */
#include "base/base.h"

#include <pthread.h>
#include <stdlib.h>

#define MAX_THREADS 64

typedef struct call {
    void (*fn)(void *ctx, uint32_t index);
    void *ctx;
    uint32_t index;
} call;

static void *run_call(void *arg)
{
    const call *c = arg;
    c->fn(c->ctx, c->index);
    return NULL;
}

void ossa__parallel(uint32_t count, void (*fn)(void *ctx, uint32_t index), void *ctx)
{
    if (count > MAX_THREADS) count = MAX_THREADS;
    call calls[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    bool started[MAX_THREADS];
    for (uint32_t i = 1; i < count; i++) {
        calls[i] = (call){fn, ctx, i};
        started[i] = pthread_create(&threads[i], NULL, run_call, &calls[i]) == 0;
    }
    fn(ctx, 0);
    for (uint32_t i = 1; i < count; i++) {
        if (started[i]) pthread_join(threads[i], NULL);
        else fn(ctx, i);
    }
}

uint32_t ossa__workers(uint32_t threads, uint64_t items, uint64_t per_worker)
{
    uint64_t n = threads ? threads : 1;
    if (n > 64) n = 64;
    if (n > items / per_worker) n = items / per_worker;
    return n ? (uint32_t)n : 1;
}
