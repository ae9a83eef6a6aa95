/*
 * illEngine binary reader fuzz target (ILLMESH0, ILLMESH1, ILLSKEL0,
 * ILLANIM0, ILANSET0): load with the binary reader forced, validate, write
 * the kind of file it was (ossa writes the ASCII forms), load the output
 * again as text. Any input may be rejected, but what the reader accepts and
 * the writer encodes must load again: a failure there is a bug and traps.
 */
#include <stddef.h>
#include <stdint.h>

#include "ossa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_ILLMESH; /* any illEngine id: the magic picks the kind */
    load.flags = OSSA_LOAD_ILL_BINARY;
    ossa_error error;
    ossa_model *model = ossa_load_memory(data, size, &load, &error);
    if (!model) return 0;
    ossa_validate(model, NULL, NULL);

    /* .illanset files have no writer. */
    ossa_write_options write = {0};
    write.format = model->source_format;
    void *out = NULL;
    size_t out_size = 0;
    if (ossa_format_can_write(write.format) &&
        ossa_write_memory(model, &write, &out, &out_size, &error) == OSSA_OK) {
        ossa_load_options text = load;
        text.flags = OSSA_LOAD_ILL_TEXT;
        ossa_model *again = ossa_load_memory(out, out_size, &text, &error);
        if (!again) __builtin_trap(); /* the writer produced a file we reject */
        ossa_validate(again, NULL, NULL);
        ossa_model_free(again);
        ossa_free_buffer(out, &write);
    }
    ossa_model_free(model);
    return 0;
}
