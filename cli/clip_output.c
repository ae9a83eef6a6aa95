/* ossa convert IN... -o OUT.ossaclip: one animation compressed and saved
 * as a clip (docs/formats/ossaclip.md). A clip is not a model, so it has no
 * place in the format table; convert hands such outputs here. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: ossa convert IN... -o OUT.ossaclip [--anim NAME|INDEX] [--error E]\n"
    "                    [--shell D]\n"
    "\n"
    "Compress one animation of the (merged) inputs and save it as a clip that\n"
    "ossa_clip_load_file() loads with one allocation.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT   the .ossaclip file to write\n"
    "  --anim NAME|INDEX  the animation (default: the first)\n"
    "  --error E          error bound in model units (default: 0.01% of the\n"
    "                     bind-pose size; see 'ossa clip-stats')\n"
    "  --shell D          virtual vertex distance (default: 1% of that size)\n"
    "  -h, --help         show this help\n"
    "\n" CLI_LOAD_OPTIONS_HELP;

static int is_clip_name(const char *s)
{
    size_t n = strlen(s), k = strlen(".ossaclip");
    return n > k && strcmp(s + n - k, ".ossaclip") == 0;
}

int clip_output_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) break;
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && i + 1 < argc)
            return is_clip_name(argv[i + 1]);
        if (strncmp(a, "--output=", 9) == 0) return is_clip_name(a + 9);
        if (strncmp(a, "-o", 2) == 0 && a[2]) return is_clip_name(a + 2);
    }
    return 0;
}

enum { OPT_OUTPUT, OPT_ANIM, OPT_ERROR, OPT_SHELL };

int clip_output_run(int argc, char **argv)
{
    static const cli_option options[] = {
        [OPT_OUTPUT] = {"--output", "-o", 1},
        [OPT_ANIM] = {"--anim", NULL, 1},
        [OPT_ERROR] = {"--error", NULL, 1},
        [OPT_SHELL] = {"--shell", NULL, 1},
        CLI_LOAD_OPTIONS,
        {NULL, NULL, 0},
    };
    cli_args args;
    ossa_load_options load;
    int rc = cli_parse_input_args("convert", usage, argc, argv, options, &args, &load);
    if (rc != CLI_GO_ON) return rc;
    ossa_clip_options copt;
    rc = cli_clip_options("convert", args.value[OPT_ERROR], args.value[OPT_SHELL], &copt);
    if (rc) {
        cli_args_free(&args);
        return rc;
    }
    const char *out = args.value[OPT_OUTPUT];
    ossa_model *model = cli_load_merged(args.files, args.num_files, &load);
    if (!model) {
        cli_args_free(&args);
        return CLI_EXIT_INPUT;
    }
    int anim = 0;
    if (args.value[OPT_ANIM]) {
        anim = cli_find_animation(model, args.value[OPT_ANIM]);
    } else if (model->num_animations == 0) {
        cli_error("%s: no animation to compress (the model has none)", args.files[0]);
        anim = -1;
    }
    if (anim < 0) rc = CLI_EXIT_INPUT;
    ossa_error error;
    memset(&error, 0, sizeof error);
    ossa_clip *clip = rc ? NULL : ossa_clip_create(model, (uint32_t)anim, &copt, &error);
    if (!rc && (!clip || ossa_clip_save(clip, out, &error) != OSSA_OK)) {
        if (!error.file[0]) snprintf(error.file, sizeof error.file, "%s", out);
        cli_report_error(&error);
        rc = CLI_EXIT_INPUT;
    }
    if (!rc && !args.value[OPT_ANIM] && model->num_animations > 1)
        fprintf(cli_err(), "ossa: %s: animation 0 of %u (--anim picks another)\n", out,
                model->num_animations);
    ossa_clip_free(clip);
    ossa_model_free(model);
    cli_args_free(&args);
    return rc;
}
