/*
 * illEngine binary reader fuzz target (ILLMESH0, ILLMESH1, ILLSKEL0,
 * ILLANIM0, ILANSET0): load with the binary reader forced, validate, write
 * the kind of file it was (ossa writes the ASCII forms; .illanset files have
 * no writer), load the output again as text (fuzz_common.h).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_AUTO}; /* the kind read */
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_ILLMESH; /* any illEngine id: the magic picks the kind */
    static const ossa_option binary = {"ill.encoding", "binary"}, as_text = {"ill.encoding", "text"};
    load.format_options = &binary;
    load.num_format_options = 1;
    ossa_load_options text = load;
    text.format_options = &as_text;
    return fuzz_round_trip(data, size, &load, &text, outputs, 1, 0);
}
