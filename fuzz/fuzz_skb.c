/*
 * Shadow of the Colossus skeletons (.skb) fuzz target: load, validate, write back as
 * .skb and as IQM, load each output again (fuzz_common.h). A writer may
 * refuse a model (no joints for .skb, no triangles for .nmo).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_SOTC_SKB, OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_SOTC_SKB;
    load.file_name = "fuzz.skb";
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, 0);
}
