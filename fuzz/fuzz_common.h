/*
 * The body every fuzz target shares: load the input, validate it, write it
 * in each output format, load every output again. Any input may be
 * rejected, and a writer may refuse a model (that is reported, not a
 * crash), but whatever the reader accepts and a writer encodes must load
 * again: a failure there is a bug and traps.
 */
#ifndef OSSA_FUZZ_COMMON_H
#define OSSA_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "ossa.h"

/* fuzz_round_trip flags. */
enum {
    /* Each output must also be detected (ossa_format_detect) as the format
     * it was written in. */
    FUZZ_DETECT_OUTPUT = 1,
    /* Outputs in the input's own format (OSSA_FORMAT_AUTO in `outputs`)
     * read back with every joint: a writer of a format that holds a
     * skeleton must not lose one. */
    FUZZ_SAME_JOINTS = 2,
    /* No OBJ output from a model without triangles: an OBJ is its faces,
     * and the reader refuses a file without any (a model whose every
     * triangle repeated a vertex loads without triangles). */
    FUZZ_OBJ_FACES = 4
};

/* Loads data[0..size) with `load`, then writes the model in each of
 * outputs[0..num_outputs) that has a writer; OSSA_FORMAT_AUTO there stands
 * for the format the model was read from. Each output is loaded again with
 * `reload` (NULL: default options), its format set to the output's when it
 * is OSSA_FORMAT_AUTO, and validated. Returns 0, as LLVMFuzzerTestOneInput
 * does. */
static inline int fuzz_round_trip(const uint8_t *data, size_t size, const ossa_load_options *load,
                                  const ossa_load_options *reload, const ossa_format *outputs,
                                  size_t num_outputs, unsigned flags)
{
    ossa_error error;
    ossa_model *model = ossa_load_memory(data, size, load, &error);
    if (!model) return 0;
    ossa_model_validate(model, NULL, NULL, NULL);
    for (size_t i = 0; i < num_outputs; i++) {
        ossa_write_options write = {0};
        write.format = outputs[i] != OSSA_FORMAT_AUTO ? outputs[i] : model->source_format;
        void *out = NULL;
        size_t out_size = 0;
        if ((flags & FUZZ_OBJ_FACES) && write.format == OSSA_FORMAT_OBJ && !model->num_triangles)
            continue;
        if (!ossa_format_can_write(write.format) ||
            ossa_write_memory(model, &write, &out, &out_size, &error) != OSSA_OK)
            continue;
        if ((flags & FUZZ_DETECT_OUTPUT) && ossa_format_detect(out, out_size) != write.format)
            __builtin_trap();
        ossa_load_options again_options = {0};
        if (reload) again_options = *reload;
        if (again_options.format == OSSA_FORMAT_AUTO) again_options.format = write.format;
        ossa_model *again = ossa_load_memory(out, out_size, &again_options, &error);
        if (!again) __builtin_trap(); /* the writer produced a file we reject */
        if ((flags & FUZZ_SAME_JOINTS) && outputs[i] == OSSA_FORMAT_AUTO &&
            again->num_joints != model->num_joints)
            __builtin_trap();
        ossa_model_validate(again, NULL, NULL, NULL);
        ossa_model_free(again);
        ossa_free(out, write.allocator);
    }
    ossa_model_free(model);
    return 0;
}

#endif /* OSSA_FUZZ_COMMON_H */
