/*
 * Shadow of the Colossus meshes (.nmo) fuzz target: load, validate, write back as
 * .nmo and as IQM, load each output again (fuzz_common.h). A writer may
 * refuse a model (no joints for .skb, no triangles for .nmo). Every texture
 * the TEX records name is served by read_file: a swizzled 4-bit seed of
 * fuzz_nto, so that the textures of meshes (decoding, PNG, materials) are
 * fuzzed with the meshes.
 */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* fuzz/corpus/nto/pal4_swz.nto, read once (beside this source file). */
static ossa_status serve_texture(void *user, const char *path, void **data, size_t *size)
{
    (void)user;
    (void)path;
    static unsigned char texture[4096];
    static size_t texture_size;
    if (!texture_size) {
        const char *here = __FILE__, *slash = strrchr(here, '/');
        char name[4096];
        snprintf(name, sizeof name, "%.*s/corpus/nto/pal4_swz.nto",
                 slash ? (int)(slash - here) : 1, slash ? here : ".");
        FILE *f = fopen(name, "rb");
        if (!f) return OSSA_FAILED;
        texture_size = fread(texture, 1, sizeof texture, f);
        fclose(f);
    }
    *data = texture;
    *size = texture_size;
    return texture_size ? OSSA_OK : OSSA_FAILED;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ossa_format outputs[] = {OSSA_FORMAT_SOTC_NMO, OSSA_FORMAT_IQM};
    ossa_load_options load = {0};
    load.format = OSSA_FORMAT_SOTC_NMO;
    load.file_name = "fuzz.nmo";
    load.read_file = serve_texture;
    return fuzz_round_trip(data, size, &load, NULL, outputs, 2, 0);
}
