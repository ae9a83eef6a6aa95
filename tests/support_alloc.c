/* The allocation-failure sweep every reader, writer and builder test runs:
 * the operation once without failures, then once per allocation it makes
 * with that allocation failing, each run checked the same way. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_alloc_pause(ts_alloc *a) { a->paused = true; }

void ts_alloc_resume(ts_alloc *a) { a->paused = false; }

void ts_result_copy(ts_result *result, const void *data, size_t size)
{
    result->data = malloc(size ? size : 1);
    assert_non_null(result->data);
    if (size) memcpy(result->data, data, size);
    result->size = size;
}

void ts_result_model(ts_result *result, ts_alloc *a, const ossa_model *m)
{
    bool was = a && a->paused;
    if (a) ts_alloc_pause(a);
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.format = OSSA_FORMAT_IQM;
    void *bytes = NULL;
    size_t size = 0;
    ossa_error err;
    ossa_status st = ossa_write_memory(m, &wo, &bytes, &size, &err);
    if (st) print_error("writing the result as IQM: %s: %s\n", ossa_code_name(err.code), err.message);
    assert_int_equal(st, OSSA_OK);
    ts_result_copy(result, bytes, size);
    ossa_free(bytes, NULL);
    if (a && !was) ts_alloc_resume(a);
}

static const char *mode_name(bool sticky) { return sticky ? " and every later one" : ""; }

/* One run with counted allocation n failing (n < 0: none); checks what
 * every run must leave and returns its status. */
static ossa_status run_one(const char *label, ts_alloc_op op, void *ctx, long n, bool sticky,
                           ts_alloc *a, ossa_error *err, ts_result *result)
{
    ts_alloc_init(a, n, sticky);
    memset(err, 0, sizeof *err);
    memset(result, 0, sizeof *result);
    ossa_status st = op(ctx, a, err, result);
    if (st != OSSA_OK) {
        free(result->data);
        memset(result, 0, sizeof *result);
    }
    if (a->live != 0 || a->bad_frees != 0)
        print_error("%s: allocation %ld failing%s: %ld blocks (%zu bytes) left live, %ld foreign "
                    "frees\n",
                    label, n, mode_name(sticky), a->live, a->live_bytes, a->bad_frees);
    assert_int_equal(a->live, 0);
    assert_int_equal(a->bad_frees, 0);
    return st;
}

static void check_failed_run(const char *label, long n, long total, bool sticky, const ts_alloc *a,
                             const ossa_error *err)
{
    if (err->code != OSSA_ERROR_NOMEM || a->failures == 0)
        print_error("%s: allocation %ld of %ld failing%s: %s (%s), %ld allocations refused\n", label,
                    n, total, mode_name(sticky), ossa_code_name(err->code), err->message,
                    a->failures);
    assert_int_equal(err->code, OSSA_ERROR_NOMEM);
    assert_true(a->failures > 0); /* it failed because of a refused allocation */
}

static void check_recovered_run(const char *label, const ts_sweep *how, long n, bool sticky,
                                const ts_result *got, const ts_result *reference)
{
    if (how->must_fail) print_error("%s: allocation %ld failing%s: success\n", label, n, mode_name(sticky));
    assert_false(how->must_fail);
    if (!reference->data) return;
    if (got->size != reference->size || memcmp(got->data, reference->data, got->size) != 0)
        print_error("%s: allocation %ld failing%s: success with another result (%zu bytes, %zu "
                    "without failures)\n",
                    label, n, mode_name(sticky), got->size, reference->size);
    assert_non_null(got->data);
    assert_int_equal(got->size, reference->size);
    assert_memory_equal(got->data, reference->data, got->size);
}

long ts_alloc_sweep_with(const char *label, ts_alloc_op op, void *ctx, const ts_sweep *how)
{
    int modes = how->modes ? how->modes : TS_SWEEP_BOTH;
    long min_calls = how->min_calls ? how->min_calls : how->allow_none ? 0 : 1;
    long max_calls = how->max_calls ? how->max_calls : TS_SWEEP_MAX_CALLS;
    ts_alloc a;
    ossa_error err;
    ts_result reference;
    ossa_status st = run_one(label, op, ctx, -1, false, &a, &err, &reference);
    if (st) print_error("%s without failures: %s: %s\n", label, ossa_code_name(err.code), err.message);
    assert_int_equal(st, OSSA_OK);
    long total = a.counted;
    if (total < min_calls || total > max_calls)
        print_error("%s: %ld allocations, expected %ld to %ld\n", label, total, min_calls, max_calls);
    assert_true(total >= min_calls && total <= max_calls);
    for (int sticky = 0; sticky < 2; sticky++) {
        if (!(modes & (sticky ? TS_SWEEP_STICKY : TS_SWEEP_ONCE))) continue;
        /* n == total with sticky failures: nothing is refused, and the
         * run must succeed as the unfailed one did. */
        for (long n = 0; n < total + sticky; n++) {
            ts_result got;
            st = run_one(label, op, ctx, n, sticky, &a, &err, &got);
            if (n == total) {
                if (st || a.failures)
                    print_error("%s: the run failing from allocation %ld on (after the last) "
                                "did not succeed untouched: %s\n",
                                label, n, st ? err.message : "an allocation was refused");
                assert_int_equal(st, OSSA_OK);
                assert_int_equal(a.failures, 0);
                check_recovered_run(label, &(ts_sweep){0}, n, sticky, &got, &reference);
            } else if (st) {
                check_failed_run(label, n, total, sticky, &a, &err);
            } else {
                check_recovered_run(label, how, n, sticky, &got, &reference);
            }
            free(got.data);
        }
    }
    printf("%s: %ld allocations, each failed in turn%s\n", label, total,
           modes == TS_SWEEP_BOTH ? " (once, and from then on)"
           : modes == TS_SWEEP_STICKY ? " (from then on)" : "");
    free(reference.data);
    return total;
}

long ts_alloc_sweep(const char *label, ts_alloc_op op, void *ctx)
{
    return ts_alloc_sweep_with(label, op, ctx, &(ts_sweep){0});
}

typedef struct load_job {
    const void *data;
    size_t size;
    const ossa_load_options *options;
} load_job;

static ossa_status load_op(void *ctx, ts_alloc *a, ossa_error *err, ts_result *result)
{
    const load_job *job = ctx;
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    if (job->options) o = *job->options;
    o.allocator = &a->allocator;
    ossa_model *m = ossa_load_memory(job->data, job->size, &o, err);
    if (!m) return OSSA_FAILED;
    ts_result_model(result, a, m);
    ossa_model_free(m);
    return OSSA_OK;
}

long ts_alloc_sweep_load(const char *label, const void *data, size_t size,
                         const ossa_load_options *options, const ts_sweep *how)
{
    load_job job = {data, size, options};
    return ts_alloc_sweep_with(label, load_op, &job, how ? how : &(ts_sweep){0});
}
