/*
 * SMD reader fuzz target: load as SMD, validate, write SMD (a reference, or
 * the animation of an animation file) and IQM, load both outputs again
 * (fuzz_common.h). The SMD output must also be detected as SMD.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_SMD, OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_SMD;
    load.file_name = "fuzz.smd";
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, FUZZ_DETECT_OUTPUT);
}
