/*
 * FBX reader fuzz target (binary and ASCII, detected by content): load,
 * validate, write IQM and glTF, load both outputs again (fuzz_common.h).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_IQM, OSSA_FORMAT_GLB};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_FBX;
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, 0);
}
