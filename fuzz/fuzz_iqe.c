/*
 * IQE reader fuzz target: load as IQE, validate, write IQM and IQE, load
 * both outputs again (fuzz_common.h). A writer may refuse a model (a bind
 * pose that is not finite for IQM, say).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_IQM, OSSA_FORMAT_IQE};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_IQE;
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, 0);
}
