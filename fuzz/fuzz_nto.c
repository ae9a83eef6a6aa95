/*
 * Shadow of the Colossus texture headers (.nto) fuzz target: load with both
 * size-nibble orders, validate the (empty) model and read its extras. Any
 * input may be rejected; a crash or sanitizer report is a bug.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ossa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int swap = 0; swap < 2; swap++) {
        ossa_load_options load;
        memset(&load, 0, sizeof load);
        load.format = OSSA_FORMAT_SOTC_NTO;
        load.file_name = "fuzz.nto";
        load.flags = swap ? OSSA_LOAD_NTO_SWAP_SIZE : 0;
        ossa_error error;
        ossa_model *model = ossa_load_memory(data, size, &load, &error);
        if (!model) continue;
        /* A texture carries no geometry. */
        if (model->num_joints || model->num_vertices) __builtin_trap();
        ossa_validate(model, NULL, NULL);
        volatile unsigned sum = 0;
        for (uint32_t i = 0; i < model->num_extras; i++)
            for (size_t k = 0; k < model->extras[i].size; k++)
                sum += ((const unsigned char *)model->extras[i].data)[k];
        ossa_model_free(model);
    }
    ossa_format_detect(data, size);
    return 0;
}
