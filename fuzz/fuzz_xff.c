/*
 * XFF container fuzz target: the format is detected from the content (the
 * container's header and section table, then the first word at the entry
 * tells .skb, .anb and .nmo apart), so mutations of any SOTC file reach
 * every reader. What loads is validated and written back in its own format;
 * the output must load again (a failure traps).
 */
#include <stddef.h>
#include <stdint.h>

#include "ossa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_format format = ossa_format_detect(data, size);
    if (format != OSSA_FORMAT_SOTC_SKB && format != OSSA_FORMAT_SOTC_ANB &&
        format != OSSA_FORMAT_SOTC_NMO)
        return 0;
    ossa_load_options load = {0};
    load.format = format;
    ossa_error error;
    ossa_model *model = ossa_load_memory(data, size, &load, &error);
    if (!model) return 0;
    ossa_validate(model, NULL, NULL);
    ossa_write_options write = {0};
    write.format = format;
    void *out = NULL;
    size_t out_size = 0;
    if (ossa_write_memory(model, &write, &out, &out_size, &error) == OSSA_OK) {
        if (ossa_format_detect(out, out_size) != format) __builtin_trap();
        ossa_model *again = ossa_load_memory(out, out_size, &load, &error);
        if (!again) __builtin_trap();
        ossa_model_free(again);
        ossa_free_buffer(out, &write);
    }
    ossa_model_free(model);
    return 0;
}
