/*
 * glTF reader fuzz target (.gltf JSON and .glb): load, validate, write back
 * as GLB, load the output again. Any input may be rejected, but whatever
 * the reader accepts and the writer encodes must load again: a failure
 * there is a bug and traps. Buffers that name other files cannot be found
 * (no file name is given), so only embedded data is exercised.
 */
#include <stddef.h>
#include <stdint.h>

#include "ossa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_load_options load = {0};
    load.format = size >= 4 && data[0] == 'g' && data[1] == 'l' && data[2] == 'T' && data[3] == 'F'
                      ? OSSA_FORMAT_GLB
                      : OSSA_FORMAT_GLTF;
    load.max_influences = 8;
    ossa_error error;
    ossa_model *model = ossa_load_memory(data, size, &load, &error);
    if (!model) return 0;
    ossa_validate(model, NULL, NULL);

    ossa_write_options write = {0};
    write.format = OSSA_FORMAT_GLB;
    void *out = NULL;
    size_t out_size = 0;
    if (ossa_write_memory(model, &write, &out, &out_size, &error) == OSSA_OK) {
        ossa_load_options again_opts = {0};
        again_opts.format = OSSA_FORMAT_GLB;
        again_opts.max_influences = 8;
        ossa_model *again = ossa_load_memory(out, out_size, &again_opts, &error);
        if (!again) __builtin_trap(); /* the writer produced a file we reject */
        ossa_validate(again, NULL, NULL);
        ossa_model_free(again);
        ossa_free_buffer(out, &write);
    }
    ossa_model_free(model);
    return 0;
}
