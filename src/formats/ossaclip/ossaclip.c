/* .ossaclip (docs/formats/ossaclip.md) in the format table, so that every
 * command that reads a model's animation reads a clip: a clip loads as a
 * model of unnamed joints (its hierarchy and bind pose) with one animation
 * whose frames are the clip's decoded keys; merging it into the model it
 * was made from matches the joints by index, as for IQM animation files.
 * Writing compresses the one animation that ossa_write_options.animation
 * picks. The clip itself is the runtime's (libossa-runtime): this module
 * uses its public API only. */
#include "formats/format.h"
#include "ossa/runtime.h"

#include <math.h>

#define OSSACLIP_MAGIC "OSSACLIP"

static bool ossaclip_sniff(const unsigned char *data, size_t size)
{
    return size >= 8 && memcmp(data, OSSACLIP_MAGIC, 8) == 0;
}

/* The clip's key frames, decoded at their exact positions by the
 * reference sampler (a key comes out as stored, normalized). */
static ossa_status decode_frames(const ossa_clip *clip, const ossa_clip_info *info,
                                 ossa_animation *anim, ossa_error *error)
{
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.flags = OSSA_SAMPLE_FRAMES;
    job.wrap = OSSA_WRAP_CLAMP;
    job.simd = OSSA_SIMD_REFERENCE;
    job.num_outputs = info->num_joints;
    for (uint32_t f = 0; f < info->num_frames; f++) {
        job.time = f;
        job.local = anim->frames + (size_t)f * info->num_joints;
        if (ossa_sample_run(&job, error)) return OSSA_FAILED;
    }
    return OSSA_OK;
}

static ossa_status ossaclip_read(ossa_model *model, const unsigned char *data, size_t size,
                                 const ossa_load_options *options, ossa_error *error)
{
    ossa_clip *clip = ossa_clip_load_memory(data, size, options->allocator, error);
    if (!clip) return OSSA_FAILED;
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    ossa_status st = OSSA_OK;
    /* Decoded frames cost what any reader's do; a clip is small for what
     * it holds, so the same cap applies. */
    uint64_t bytes = (uint64_t)info.num_frames * info.num_joints * sizeof(ossa_transform);
    if (bytes > ossa__decode_limit(size))
        st = ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                        "%u frames of %u joints decode to %llu MiB, more than ossa reads from a "
                        "file of %zu bytes",
                        info.num_frames, info.num_joints, (unsigned long long)(bytes >> 20), size);
    for (uint32_t j = 0; !st && j < info.num_joints; j++)
        if (ossa_model_add_joint(model, "", info.parents[j], &info.bind_pose[j], error) < 0)
            st = OSSA_FAILED;
    ossa_animation *anim =
        st ? NULL
           : ossa_model_add_animation(model, info.name, info.num_frames, info.framerate,
                                      info.flags, error);
    if (!st && !anim) st = OSSA_FAILED;
    if (!st) st = decode_frames(clip, &info, anim, error);
    ossa_clip_free(clip);
    return st;
}

static ossa_status ossaclip_write(const ossa_model *model, const ossa_write_options *options,
                                  ossa_buf *out, ossa_error *error)
{
    if (!model->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "a clip holds one animation, and the model has none");
    if (options->animation >= model->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u does not exist (the model has %u)", options->animation,
                          model->num_animations);
    ossa_clip_options co;
    memset(&co, 0, sizeof co);
    co.allocator = options->allocator;
    co.compression = OSSA_CLIP_COMPRESSED;
    co.max_error = (float)ossa__option_number(OSSA__OPTIONS(options), "ossaclip.error", 0);
    co.shell_distance = (float)ossa__option_number(OSSA__OPTIONS(options), "ossaclip.shell", 0);
    if (!(co.max_error >= 0) || !(co.shell_distance >= 0) || !isfinite(co.max_error) ||
        !isfinite(co.shell_distance))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "ossaclip.error and ossaclip.shell are distances >= 0 (0 = default)");
    ossa_clip *clip = ossa_clip_create(model, options->animation, &co, error);
    if (!clip) return OSSA_FAILED;
    size_t size;
    const void *image = ossa_clip_data(clip, &size);
    ossa__buf_append(out, image, size);
    ossa_clip_free(clip);
    if (model->num_animations > 1)
        ossa__write_note(options, "animation %u of %u written (the write options pick another)",
                         options->animation, model->num_animations);
    return OSSA_OK;
}

/* docs/formats/ossaclip.md */
static const ossa_option_info ossaclip_write_options[] = {
    {"ossaclip.error", OSSA_OPTION_NUMBER, "", "0",
     "the error bound in model units; 0 = 0.01% of the model's bind-pose size"},
    {"ossaclip.shell", OSSA_OPTION_NUMBER, "", "0",
     "the distance of the error metric's virtual vertices from each joint; 0 = 1% of the size"},
};

const ossa_format_ops ossa__ossaclip_format = {
    .id = OSSA_FORMAT_OSSACLIP,
    .name = "ossaclip",
    .extensions = ".ossaclip",
    .sniff = ossaclip_sniff,
    .read = ossaclip_read,
    .write = ossaclip_write,
    .holds = OSSA_HOLDS_ONE_ANIMATION | OSSA_HOLDS_PICKS_ANIMATION,
    .option_family = "ossaclip",
    .write_options = ossaclip_write_options,
    .num_write_options = sizeof ossaclip_write_options / sizeof *ossaclip_write_options,
};
