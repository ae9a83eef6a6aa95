/*
 * Shadow of the Colossus animations (.anb) fuzz target: load, validate, write back as
 * .anb and as IQM, load each output again (fuzz_common.h). A writer may
 * refuse a model (no joints for .skb, no triangles for .nmo).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_SOTC_ANB, OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_SOTC_ANB;
    load.file_name = "fuzz.anb";
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, 0);
}
