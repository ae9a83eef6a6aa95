/* Running many conversions at once: a pool of threads takes jobs in
 * order; each job's messages are buffered and printed whole, in job order,
 * so that what a run prints (and writes) does not depend on the number of
 * threads. A progress line on stderr when it is a terminal. */
#include "convert.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct slot {
    char *out, *err; /* the job's stdout and stderr */
    size_t out_size, err_size;
    int rc;
    int done;
} slot;

typedef struct batch {
    pthread_mutex_t lock;
    pthread_cond_t finished_one;
    int (*job)(void *user, int index);
    int (*finish)(void *user, int index);
    void *user;
    slot *slots;
    int count, next, finished, failed, printed;
    int progress; /* stderr is a terminal */
    struct timespec start;
} batch;

static double elapsed(const batch *b)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - b->start.tv_sec) + (now.tv_nsec - b->start.tv_nsec) / 1e9;
}

static void run_one(batch *b, int i)
{
    slot *s = &b->slots[i];
    FILE *out = open_memstream(&s->out, &s->out_size);
    FILE *err = open_memstream(&s->err, &s->err_size);
    int rc;
    if (out && err) {
        cli_set_streams(out, err);
        rc = b->job(b->user, i);
        cli_set_streams(NULL, NULL);
    } else {
        rc = CLI_EXIT_INPUT;
    }
    if (out) fclose(out);
    if (err) fclose(err);
    if (!out || !err) {
        free(s->out), free(s->err);
        s->out = s->err = NULL;
        s->out_size = s->err_size = 0;
    }
    pthread_mutex_lock(&b->lock);
    s->rc = rc;
    s->done = 1;
    b->finished++;
    if (rc) b->failed++;
    pthread_cond_signal(&b->finished_one);
    pthread_mutex_unlock(&b->lock);
}

static void *worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        int i = b->next < b->count ? b->next++ : -1;
        pthread_mutex_unlock(&b->lock);
        if (i < 0) return NULL;
        run_one(b, i);
    }
}

static void clear_progress(const batch *b)
{
    if (b->progress) fputs("\r\033[K", stderr);
}

static void draw_progress(const batch *b, int finished, int failed)
{
    if (!b->progress) return;
    double t = elapsed(b);
    fprintf(stderr, "\r\033[Kossa: %d/%d done, %d failed, %.1f s, %.1f files/s", finished,
            b->count, failed, t, t > 0 ? finished / t : 0.0);
    fflush(stderr);
}

/* Prints the finished jobs that follow the ones already printed; the
 * lock is held on entry and released while printing. */
static void print_ready(batch *b)
{
    while (b->printed < b->count && b->slots[b->printed].done) {
        int index = b->printed++;
        slot *s = &b->slots[index];
        pthread_mutex_unlock(&b->lock);
        clear_progress(b);
        if (s->out_size) fwrite(s->out, 1, s->out_size, stdout);
        fflush(stdout);
        if (s->err_size) fwrite(s->err, 1, s->err_size, stderr);
        free(s->out);
        free(s->err);
        s->out = s->err = NULL;
        int rc = !s->rc && b->finish ? b->finish(b->user, index) : 0;
        fflush(stdout);
        pthread_mutex_lock(&b->lock);
        if (rc) {
            s->rc = rc;
            b->failed++;
        }
        int finished = b->finished, failed = b->failed;
        pthread_mutex_unlock(&b->lock);
        draw_progress(b, finished, failed);
        pthread_mutex_lock(&b->lock);
    }
}

int batch_run(int count, int threads, int (*job)(void *user, int index),
              int (*finish)(void *user, int index), void *user)
{
    batch b;
    memset(&b, 0, sizeof b);
    b.job = job;
    b.finish = finish;
    b.user = user;
    b.count = count;
    b.progress = isatty(STDERR_FILENO);
    clock_gettime(CLOCK_MONOTONIC, &b.start);
    b.slots = calloc((size_t)count + 1, sizeof *b.slots);
    if (!b.slots) {
        cli_error("out of memory");
        return count;
    }
    pthread_mutex_init(&b.lock, NULL);
    pthread_cond_init(&b.finished_one, NULL);
    if (threads > count) threads = count;
    pthread_t *pool = calloc((size_t)(threads > 0 ? threads : 1), sizeof *pool);
    int started = 0;
    for (int t = 0; pool && threads > 1 && t < threads; t++) {
        if (pthread_create(&pool[t], NULL, worker, &b) != 0) break;
        started++;
    }
    pthread_mutex_lock(&b.lock);
    draw_progress(&b, 0, 0);
    if (!started) {
        /* One at a time, in this thread (also when no thread could start). */
        while (b.next < b.count) {
            int i = b.next++;
            pthread_mutex_unlock(&b.lock);
            run_one(&b, i);
            pthread_mutex_lock(&b.lock);
            print_ready(&b);
        }
    } else {
        while (b.printed < b.count) {
            print_ready(&b);
            if (b.printed == b.count) break;
            /* Wake at least every 0.2 s to keep the elapsed time moving. */
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 200000000;
            if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
            pthread_cond_timedwait(&b.finished_one, &b.lock, &until);
            if (b.progress && !b.slots[b.printed].done) {
                int finished = b.finished, failed = b.failed;
                pthread_mutex_unlock(&b.lock);
                draw_progress(&b, finished, failed);
                pthread_mutex_lock(&b.lock);
            }
        }
    }
    pthread_mutex_unlock(&b.lock);
    for (int t = 0; t < started; t++) pthread_join(pool[t], NULL);
    clear_progress(&b);
    int failed = 0;
    for (int i = 0; i < count; i++)
        if (b.slots[i].rc) failed++;
    free(pool);
    free(b.slots);
    pthread_mutex_destroy(&b.lock);
    pthread_cond_destroy(&b.finished_one);
    return failed;
}
