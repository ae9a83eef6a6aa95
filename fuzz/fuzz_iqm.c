/*
 * IQM reader fuzz target: load, validate, write back, load the output again.
 * Any input may be rejected, but whatever the reader accepts and the writer
 * encodes must load again: a failure there is a bug and traps.
 */
#include <stddef.h>
#include <stdint.h>

#include "ossa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_IQM;
    ossa_error error;
    ossa_model *model = ossa_load_memory(data, size, &load, &error);
    if (!model) return 0;
    ossa_validate(model, NULL, NULL);

    ossa_write_options write = {0};
    write.format = OSSA_FORMAT_IQM;
    void *out = NULL;
    size_t out_size = 0;
    /* Writing may refuse a loaded model (a bind pose that is not finite,
     * say); that is reported, not a crash. */
    if (ossa_write_memory(model, &write, &out, &out_size, &error) == OSSA_OK) {
        ossa_model *again = ossa_load_memory(out, out_size, &load, &error);
        if (!again) __builtin_trap(); /* the writer produced a file we reject */
        ossa_validate(again, NULL, NULL);
        ossa_model_free(again);
        ossa_free_buffer(out, &write);
    }
    ossa_model_free(model);
    return 0;
}
