/*
 * illEngine ASCII reader fuzz target (ILLMESH0 v0a/v0b, ILLSKEL0, ILLANIM0,
 * ILLANIM1): load with the text reader forced, validate, write the kind of
 * file it was, load the output again (fuzz_common.h).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_AUTO}; /* the kind read */
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_ILLMESH; /* any illEngine id: the magic picks the kind */
    static const ossa_option text = {"ill.encoding", "text"};
    load.format_options = &text;
    load.num_format_options = 1;
    return fuzz_round_trip(data, size, &load, &load, outputs, 1, 0);
}
