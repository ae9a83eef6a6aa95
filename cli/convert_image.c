/* ossa convert IN -o OUT.png: the image a texture file holds (a .nto
 * loads as a model with no geometry and its level as a PNG image), written
 * as it is. A model with no image, or with several, says so. */
#include "convert.h"

#include <stdlib.h>
#include <string.h>

int convert_image(const convert_plan *plan, const convert_input *inputs, int n, const char *out)
{
    ossa_model *model = convert_load(plan, inputs, n);
    if (!model) return CLI_EXIT_INPUT;
    const ossa_extra *image = NULL;
    size_t prefix = strlen(OSSA_EXTRA_IMAGE);
    uint32_t count = 0;
    for (uint32_t i = 0; i < model->num_extras; i++)
        if (strncmp(model->extras[i].key, OSSA_EXTRA_IMAGE, prefix) == 0 && count++ == 0)
            image = &model->extras[i];
    int rc = CLI_EXIT_INPUT;
    if (!image) {
        cli_error("%s: the input holds no image to write as PNG (a .png output takes the picture "
                  "of a texture file, such as a .nto)",
                  out);
    } else if (count > 1) {
        char names[400] = "";
        for (uint32_t i = 0, k = 0; i < model->num_extras && k < 3; i++)
            if (strncmp(model->extras[i].key, OSSA_EXTRA_IMAGE, prefix) == 0) {
                size_t len = strlen(names);
                snprintf(names + len, sizeof names - len, "%s'%.100s'", k++ ? ", " : "",
                         model->extras[i].key + prefix);
            }
        cli_error("%s: the input holds %u images (%s%s): a .png output takes one", out, count,
                  names, count > 3 ? ", ..." : "");
    } else if (image->size < 8 || memcmp(image->data, "\x89PNG\r\n\x1a\n", 8) != 0) {
        cli_error("%s: the image '%s' is not a PNG", out, image->key + prefix);
    } else {
        ossa_output_file file = {out, image->data, image->size};
        ossa_write_options w = plan->write;
        w.wrote = NULL; /* one file: no "wrote" line, as for other outputs */
        ossa_error error;
        memset(&error, 0, sizeof error);
        rc = CLI_EXIT_OK;
        if (ossa_write_output_files(&file, 1, &w, &error) != OSSA_OK) {
            if (!error.file[0]) snprintf(error.file, sizeof error.file, "%s", out);
            cli_report_error(&error);
            rc = CLI_EXIT_INPUT;
        }
    }
    ossa_model_free(model);
    return rc;
}
