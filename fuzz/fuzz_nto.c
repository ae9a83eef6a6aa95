/*
 * Shadow of the Colossus textures (.nto) fuzz target: load with the
 * options that change how texels are read (size-nibble order, level, alpha,
 * CLUT order, no images), validate the (empty) model and check its extras
 * and image; then decode every level directly. Any input may be rejected;
 * a crash or sanitizer report is a bug.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/sotc/sotc.h"
#include "ossa.h"

static const ossa_option variants[4][3] = {
    {{"sotc.nto_width", "auto"}, {"sotc.nto_level", "0"}, {"sotc.nto_alpha", "ps2"}},
    {{"sotc.nto_width", "high"}, {"sotc.nto_alpha", "raw"}, {"sotc.nto_clut", "linear"}},
    {{"sotc.nto_width", "low"}, {"sotc.nto_level", "1"}, {"sotc.nto_clut", "csm1"}},
    {{"sotc.nto_width", "auto"}, {"sotc.nto_level", "2"}, {"sotc.nto_alpha", "ps2"}},
};

static void check_model(const ossa_model *model)
{
    /* A texture carries no geometry. */
    if (model->num_joints || model->num_vertices) __builtin_trap();
    /* The texture text, the 32 header bytes, at most one image: a PNG. */
    if (model->num_extras < 2 || model->num_extras > 3 || model->extras[1].size != 32 ||
        !memchr(model->extras[0].data, '=', model->extras[0].size))
        __builtin_trap();
    if (model->num_extras == 3 &&
        (model->extras[2].size < 8 || memcmp(model->extras[2].data, "\x89PNG\r\n\x1a\n", 8) != 0))
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int v = 0; v < 5; v++) {
        ossa_load_options load;
        memset(&load, 0, sizeof load);
        load.format = OSSA_FORMAT_SOTC_NTO;
        load.file_name = "fuzz.nto";
        load.format_options = variants[v % 4];
        load.num_format_options = 3;
        if (v == 4) load.flags = OSSA_LOAD_NO_IMAGES;
        ossa_error error;
        ossa_model *model = ossa_load_memory(data, size, &load, &error);
        if (!model) continue;
        check_model(model);
        if (v == 4 && model->num_extras != 2) __builtin_trap();
        ossa_model_validate(model, NULL, NULL, NULL);
        ossa_model_free(model);
    }
    /* Every level, both nibble orders. */
    for (int high = 0; high < 2; high++) {
        sotc_nto t;
        ossa_error error;
        if (ossa__nto_parse(&t, data, size, high, NULL, &error) != OSSA_OK) continue;
        for (unsigned level = 0; level < t.num_levels; level++) {
            uint8_t *rgba;
            if (ossa__nto_decode(&t, level, high ? NTO_RAW_ALPHA : 0, NULL, &rgba, &error) != OSSA_OK)
                continue;
            ossa__nto_roughness(rgba, t.levels[level].width, t.levels[level].height);
            free(rgba);
        }
    }
    ossa_format_detect(data, size);
    return 0;
}
