/*
 * glTF reader fuzz target (.gltf JSON and .glb): load, validate, write back
 * as GLB, load the output again (fuzz_common.h). Buffers that name other
 * files cannot be found (no file name is given), so only embedded data is
 * exercised.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_GLB};
    ossa_load_options load = {0};
    load.format = size >= 4 && data[0] == 'g' && data[1] == 'l' && data[2] == 'T' && data[3] == 'F'
                      ? OSSA_FORMAT_GLB
                      : OSSA_FORMAT_GLTF;
    load.max_influences = 8;
    ossa_load_options reload = {0};
    reload.max_influences = 8;
    return fuzz_round_trip(data, size, &load, &reload, outputs, 1, 0);
}
