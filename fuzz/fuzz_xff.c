/*
 * XFF container fuzz target: the format is detected from the content (the
 * container's header and section table, then the first word at the entry
 * tells .skb, .anb and .nmo apart), so mutations of any SOTC file reach
 * every reader. What loads is validated and written back in its own format;
 * the output must be detected as that format and load again
 * (fuzz_common.h).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_format format = ossa_format_detect(data, size);
    if (format != OSSA_FORMAT_SOTC_SKB && format != OSSA_FORMAT_SOTC_ANB &&
        format != OSSA_FORMAT_SOTC_NMO)
        return 0;
    ossa_load_options load = {0};
    load.format = format;
    return fuzz_round_trip(data, size, &load, &load, &format, 1, FUZZ_DETECT_OUTPUT);
}
