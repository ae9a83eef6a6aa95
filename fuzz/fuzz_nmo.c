/*
 * Shadow of the Colossus meshes (.nmo) fuzz target: load, validate, write back as
 * .nmo and as IQM, load each output again. Any input may be rejected, but
 * whatever the reader accepts and a writer encodes must load again: a
 * failure there is a bug and traps.
 */
#include <stddef.h>
#include <stdint.h>

#include "ossa.h"

static void round_trip(const ossa_model *model, ossa_format format)
{
    ossa_write_options write = {0};
    write.format = format;
    void *out = NULL;
    size_t out_size = 0;
    ossa_error error;
    /* A writer may refuse a model (no joints for .skb, no triangles for
     * .nmo); that is reported, not a crash. */
    if (ossa_write_memory(model, &write, &out, &out_size, &error) != OSSA_OK) return;
    ossa_load_options load = {0};
    load.format = format;
    ossa_model *again = ossa_load_memory(out, out_size, &load, &error);
    if (!again) __builtin_trap(); /* the writer produced a file we reject */
    ossa_validate(again, NULL, NULL);
    ossa_model_free(again);
    ossa_free_buffer(out, &write);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_SOTC_NMO;
    load.file_name = "fuzz.nmo";
    ossa_error error;
    ossa_model *model = ossa_load_memory(data, size, &load, &error);
    if (!model) return 0;
    ossa_validate(model, NULL, NULL);
    round_trip(model, OSSA_FORMAT_SOTC_NMO);
    round_trip(model, OSSA_FORMAT_IQM);
    ossa_model_free(model);
    return 0;
}
