/*
 * MD5 reader fuzz target (docs/formats/md5.md): load an md5mesh or
 * md5anim (told apart by content), validate, write md5mesh, md5anim and
 * IQM, load each output again (fuzz_common.h). A writer may refuse a model
 * (an md5anim of a model without animation, say).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_MD5MESH, OSSA_FORMAT_MD5ANIM,
                                          OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_MD5MESH;
    return fuzz_round_trip(data, size, &load, NULL, outputs, 3, 0);
}
