/*
 * Compressed clip (.ossaclip) fuzz target: load from memory (which checks
 * every count, offset and bit position), then sample at every SIMD level,
 * with and without root-motion removal, with a sampling cache against
 * without one (the same bytes), ask for root motion and check that the
 * clip's image is the input itself. Then the same bytes through the
 * format table: a model of the clip's joints and decoded keys, validated
 * and compressed again.
 */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_error error;
    ossa_clip *clip = ossa_clip_load_memory(data, size, NULL, &error);
    if (!clip) return 0;
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    size_t image_size;
    const void *image = ossa_clip_data(clip, &image_size);
    if (image_size != size || memcmp(image, data, size) != 0) __builtin_trap();
    uint32_t n = info.num_joints ? info.num_joints : 1;
    ossa_transform *local = calloc(n, sizeof *local);
    float(*model)[16] = calloc(n, sizeof *model);
    static const ossa_simd levels[] = {OSSA_SIMD_REFERENCE, OSSA_SIMD_SCALAR, OSSA_SIMD_SSE2,
                                       OSSA_SIMD_AVX2};
    static const double times[] = {0, 0.37, 1e3, -2.5};
    for (size_t l = 0; local && model && l < sizeof levels / sizeof levels[0]; l++) {
        if (!ossa_simd_supported(levels[l])) continue;
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
            ossa_sample_job job = {0};
            job.clip = clip;
            job.time = times[t];
            job.simd = levels[l];
            job.local = local;
            job.model = t % 2 ? model : NULL;
            job.num_outputs = n;
            job.flags = t == 2 ? OSSA_SAMPLE_REMOVE_ROOT_MOTION : 0;
            if (ossa_sample_run(&job, NULL) != OSSA_OK) __builtin_trap();
        }
    }
    /* With a sampling cache: playing forward across frames and segments,
     * then a seek, each sample the same bytes as without the cache. */
    ossa_sample_cache *cache = ossa_sample_cache_create(n, NULL, NULL);
    ossa_transform *again = calloc(n, sizeof *again);
    for (int i = 0; cache && again && local && i < 40; i++) {
        ossa_sample_job job = {0};
        job.clip = clip;
        job.time = i < 39 ? i * 0.45 / info.framerate : 0.5 * info.duration;
        job.local = local;
        job.num_outputs = n;
        if (ossa_sample_run(&job, NULL) != OSSA_OK) __builtin_trap();
        job.local = again;
        job.cache = cache;
        if (ossa_sample_run(&job, NULL) != OSSA_OK) __builtin_trap();
        if (memcmp(local, again, info.num_joints * sizeof *local) != 0) __builtin_trap();
    }
    free(again);
    ossa_sample_cache_free(cache);
    ossa_root_motion motion;
    ossa_clip_root_motion(clip, -1, 9.5, OSSA_WRAP_LOOP, &motion);
    ossa_clip_root_motion(clip, 0, 2, OSSA_WRAP_CLAMP, &motion);
    free(local);
    free(model);
    ossa_clip_free(clip);

    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_OSSACLIP;
    ossa_error load_error;
    ossa_model *m = ossa_load_memory(data, size, &load, &load_error);
    /* The clip loaded above: only the cap on decoded frames may refuse it. */
    if (!m && load_error.code != OSSA_ERROR_UNSUPPORTED) __builtin_trap();
    if (!m) return 0;
    ossa_model_validate(m, NULL, NULL, NULL);
    ossa_write_options write = {0};
    write.format = OSSA_FORMAT_OSSACLIP;
    void *out;
    size_t out_size;
    if (ossa_write_memory(m, &write, &out, &out_size, NULL) == OSSA_OK) ossa_free(out, NULL);
    ossa_model_free(m);
    return 0;
}
