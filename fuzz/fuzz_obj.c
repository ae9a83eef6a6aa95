/*
 * OBJ reader fuzz target: load as OBJ, validate, write OBJ and IQM, load
 * both outputs again (fuzz_common.h). The OBJ output must also be
 * detected as OBJ.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_OBJ, OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_OBJ;
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, FUZZ_DETECT_OUTPUT | FUZZ_OBJ_FACES);
}
