/*
 * IQM reader fuzz target: load, validate, write back, load the output again
 * (fuzz_common.h). The writer may refuse a loaded model (a bind pose that
 * is not finite, say).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_IQM;
    return fuzz_round_trip(data, size, &load, NULL, outputs, 1, 0);
}
