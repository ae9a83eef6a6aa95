/*
 * Shadow of the Colossus texture headers (.nto) fuzz target: load with both
 * size-nibble orders, validate the (empty) model and check its extras. Any
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
        static const ossa_option high = {"sotc.nto_width", "high"};
        load.format_options = &high;
        load.num_format_options = (uint32_t)swap;
        ossa_error error;
        ossa_model *model = ossa_load_memory(data, size, &load, &error);
        if (!model) continue;
        /* A texture carries no geometry. */
        if (model->num_joints || model->num_vertices) __builtin_trap();
        ossa_model_validate(model, NULL, NULL, NULL);
        /* The texture text and the 32 header bytes. */
        if (model->num_extras != 2 || model->extras[1].size != 32 ||
            !memchr(model->extras[0].data, '=', model->extras[0].size))
            __builtin_trap();
        ossa_model_free(model);
    }
    ossa_format_detect(data, size);
    return 0;
}
