/*
 * FBX reader and writer fuzz target (binary and ASCII, detected by
 * content): load, validate, write IQM, glTF and FBX, load every output
 * again (fuzz_common.h); the FBX output must be detected as FBX and keep
 * every joint.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_IQM, OSSA_FORMAT_GLB, OSSA_FORMAT_AUTO};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_FBX;
    return fuzz_round_trip(data, size, &load, NULL, outputs, 3,
                           FUZZ_DETECT_OUTPUT | FUZZ_SAME_JOINTS);
}
