/* Clips from a model's animations: the runtime's source (ossa_clip_source)
 * filled from the model, then ossa_clip_build and ossa_clip_measure_source
 * of libossa-runtime. */
#include "core/internal.h"
#include "ossa/runtime.h"

#include <math.h>

/* The diagonal of the box around the model's bind pose: the source's
 * joint origins and the bind-pose vertex positions (model space); 1 for a
 * model with neither, or where they all coincide; -1 when memory runs out. */
static double bind_size(const ossa_model *model, const ossa_clip_source *src)
{
    double box[6] = {0};
    int any = 0;
    if (src->num_joints) {
        double(*world)[12] = ossa__temp_calloc(model, src->num_joints, sizeof *world);
        if (!world) return -1;
        ossa__box_grow_joints(box, &any, src->num_joints, src->parents, src->bind_pose, world);
        ossa__temp_free(model, world);
    }
    const ossa_vertex_array *pos = ossa_model_find_array(model, OSSA_VERTEX_POSITION, NULL);
    if (pos && pos->size >= 3) {
        float chunk[3 * 256];
        for (uint32_t v = 0; v < model->num_vertices; v += 256) {
            uint32_t count = model->num_vertices - v < 256 ? model->num_vertices - v : 256;
            if (pos->size != 3 || ossa_vertex_array_read(model, pos, v, count, chunk) != OSSA_OK)
                break;
            for (uint32_t i = 0; i < count; i++) {
                double p[3] = {chunk[3 * i], chunk[3 * i + 1], chunk[3 * i + 2]};
                if (isfinite(p[0] + p[1] + p[2])) ossa__box_grow(box, p, &any);
            }
        }
    }
    return ossa__box_size(box);
}

/* The source of animation `animation`; the parents and bind pose are
 * copied out of the joints into temporaries freed by source_release. */
static ossa_status source_of(const ossa_model *model, uint32_t animation, ossa_clip_source *src,
                             ossa_error *error)
{
    memset(src, 0, sizeof *src);
    if (!model)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no model");
    if (animation >= model->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u out of range (the model has %u)", (unsigned)animation,
                          (unsigned)model->num_animations);
    uint32_t n = model->num_joints;
    int32_t *parents = ossa__temp_calloc(model, (size_t)n + 1, sizeof *parents);
    ossa_transform *bind = ossa__temp_calloc(model, (size_t)n + 1, sizeof *bind);
    if (!parents || !bind) {
        ossa__temp_free(model, parents);
        ossa__temp_free(model, bind);
        return ossa__fail_nomem(error);
    }
    for (uint32_t j = 0; j < n; j++) {
        int32_t p = model->joints[j].parent;
        parents[j] = p >= 0 && (uint32_t)p < j ? p : -1;
        /* The pose without animation: where the skeleton rests. */
        bind[j] = *ossa__rest(model, j);
    }
    src->num_joints = n;
    src->parents = parents;
    src->bind_pose = bind;
    double size = bind_size(model, src);
    if (size < 0) {
        ossa__temp_free(model, parents);
        ossa__temp_free(model, bind);
        return ossa__fail_nomem(error);
    }
    const ossa_animation *a = &model->animations[animation];
    src->name = a->name;
    src->num_frames = a->num_frames;
    src->frames = a->frames;
    src->framerate = a->framerate;
    src->flags = a->flags;
    src->size = size;
    return OSSA_OK;
}

static void source_release(const ossa_model *model, ossa_clip_source *src)
{
    ossa__temp_free(model, (void *)src->parents);
    ossa__temp_free(model, (void *)src->bind_pose);
}

ossa_clip *ossa_clip_create(const ossa_model *model, uint32_t animation,
                            const ossa_clip_options *options, ossa_error *error)
{
    ossa_clip_source src;
    if (source_of(model, animation, &src, error)) return NULL;
    ossa_clip *clip = ossa_clip_build(&src, options, error);
    source_release(model, &src);
    return clip;
}

ossa_status ossa_clip_measure(const ossa_model *model, uint32_t animation, const ossa_clip *clip,
                              ossa_clip_stats *stats, ossa_error *error)
{
    ossa_clip_source src;
    if (source_of(model, animation, &src, error)) {
        memset(stats, 0, sizeof *stats);
        return OSSA_FAILED;
    }
    ossa_status st = ossa_clip_measure_source(&src, clip, stats, error);
    source_release(model, &src);
    return st;
}
