/*
 * Shadow of the Colossus meshes (.nmo) fuzz target: load, validate, write back as
 * .nmo and as IQM, load each output again (fuzz_common.h). A writer may
 * refuse a model (no joints for .skb, no triangles for .nmo).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_SOTC_NMO, OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_SOTC_NMO;
    load.file_name = "fuzz.nmo";
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, 0);
}
