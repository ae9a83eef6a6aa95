/* ossa_clip_measure_source: a clip's size and error against its source, from
 * the outside (sampling through the public job), for `ossa clip-stats`
 * and the tests. */
#include "runtime/compress.h"
#include "runtime/packed.h"
#include "runtime/quantize.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

ossa_status ossa_clip_measure_source(const ossa_clip_source *src, const ossa_clip *clip,
                                     ossa_clip_stats *stats, ossa_error *error)
{
    memset(stats, 0, sizeof *stats);
    if (!src || !clip)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "clip measure: no source or no clip");
    uint32_t n = src->num_joints, nf = src->num_frames ? src->num_frames : 1;
    const ossa_allocator *alloc = &clip->allocator;
    if (clip->num_joints != n || clip->num_frames != nf)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "clip measure: the clip has %u joints and %u frames, the animation "
                          "%u and %u",
                          (unsigned)clip->num_joints, (unsigned)clip->num_frames, (unsigned)n,
                          (unsigned)nf);
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    stats->compressed_bytes = info.memory;
    ossa_clip_options fo;
    memset(&fo, 0, sizeof fo);
    fo.root_joint = clip->root;
    fo.up_axis = clip->up;
    fo.allocator = alloc;
    ossa_clip *floats = ossa_clip_build(src, &fo, error);
    if (!floats) return OSSA_FAILED;
    ossa_clip_get_info(floats, &info);
    stats->raw_bytes = info.memory;
    ossa_clip_free(floats);
    ossa_clip_get_info(clip, &info);
    double shell = info.compression ? info.shell_distance : ossa__source_size(src, alloc) * 1e-2;
    if (shell < 0) return ossa__fail_nomem(error);

    if (clip->packed) {
        ossa__packed p;
        ossa__packed_view(clip, &p);
        stats->constant_tracks = p.h->constant_tracks;
        stats->animated_tracks = p.h->num_tracks;
        for (uint32_t s = 0; s < p.h->num_segments; s++) {
            const unsigned char *at = p.data + p.segments[s] + OSSA_PACKED_SEGMENT_HEAD;
            for (uint32_t t = 0; t < p.h->num_tracks; t++) {
                uint32_t b = OSSA_PACKED_BITS(at[0]);
                stats->bits_histogram[b <= 32 ? b : 32]++;
                at += ossa__packed_info_size(at[0]);
            }
        }
    } else {
        stats->animated_tracks = 3 * n;
        stats->bits_histogram[32] = 3 * n * ossa__packed_num_segments(nf);
    }
    if (n == 0) return OSSA_OK;

    double *errors = ossa__calloc(alloc, (size_t)nf * n, sizeof *errors);
    double(*raw)[12] = ossa__calloc(alloc, n, sizeof *raw);
    double(*got)[12] = ossa__calloc(alloc, n, sizeof *got);
    ossa_transform *sampled = ossa__calloc(alloc, n, sizeof *sampled);
    if (!errors || !raw || !got || !sampled) {
        ossa__free(alloc, errors, 0);
        ossa__free(alloc, got, 0);
        ossa__free(alloc, raw, 0);
        ossa__free(alloc, sampled, 0);
        return ossa__fail_nomem(error);
    }
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.flags = OSSA_SAMPLE_FRAMES;
    job.wrap = OSSA_WRAP_CLAMP;
    job.simd = OSSA_SIMD_REFERENCE;
    /* Local poses, composed here in double: the clip's error, not the
     * rounding of float model matrices far from the origin. */
    job.local = sampled;
    job.num_outputs = n;
    for (uint32_t f = 0; f < nf; f++) {
        job.time = f;
        ossa_sample_run(&job, NULL);
        for (uint32_t j = 0; j < n; j++) {
            ossa_transform t = src->num_frames ? src->frames[(size_t)f * n + j] : src->bind_pose[j];
            double local[12], mine[12];
            ossa__affine_from_trs(t.translation, t.rotation, t.scale, local);
            const ossa_transform *s = &sampled[j];
            ossa__affine_from_trs(s->translation, s->rotation, s->scale, mine);
            int32_t par = src->parents[j];
            if (par >= 0 && (uint32_t)par < j) {
                ossa__affine_mul(raw[par], local, raw[j]);
                ossa__affine_mul(got[par], mine, got[j]);
            } else {
                memcpy(raw[j], local, sizeof local);
                memcpy(got[j], mine, sizeof mine);
            }
            errors[(size_t)f * n + j] = ossa__shell_error(raw[j], got[j], shell);
        }
    }
    size_t count = (size_t)nf * n;
    qsort(errors, count, sizeof *errors, cmp_double);
    stats->max_error = errors[count - 1];
    /* Nearest rank: the smallest error that at least 99% do not exceed. */
    size_t rank = (size_t)ceil(0.99 * (double)count);
    stats->p99_error = errors[rank ? rank - 1 : 0];
    ossa__free(alloc, errors, 0);
    ossa__free(alloc, raw, 0);
    ossa__free(alloc, got, 0);
    ossa__free(alloc, sampled, 0);
    return OSSA_OK;
}
