/*
 * BVH reader fuzz target: load as BVH, validate, write BVH and IQM, load
 * both outputs again (fuzz_common.h). The BVH output must also be
 * detected as BVH.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_BVH, OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_BVH;
    load.file_name = "fuzz.bvh";
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, FUZZ_DETECT_OUTPUT);
}
