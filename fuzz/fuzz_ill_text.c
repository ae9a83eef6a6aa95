/*
 * illEngine ASCII reader fuzz target (ILLMESH0 v0a/v0b, ILLSKEL0, ILLANIM0,
 * ILLANIM1): load with the text reader forced, validate, write the kind of
 * file it was, load the output again. Any input may be rejected, but what
 * the reader accepts and the writer encodes must load again: a failure
 * there is a bug and traps.
 */
#include <stddef.h>
#include <stdint.h>

#include "ossa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_ILLMESH; /* any illEngine id: the magic picks the kind */
    load.flags = OSSA_LOAD_ILL_TEXT;
    ossa_error error;
    ossa_model *model = ossa_load_memory(data, size, &load, &error);
    if (!model) return 0;
    ossa_validate(model, NULL, NULL);

    ossa_write_options write = {0};
    write.format = model->source_format;
    void *out = NULL;
    size_t out_size = 0;
    /* Writing may refuse a loaded model; that is reported, not a crash. */
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
