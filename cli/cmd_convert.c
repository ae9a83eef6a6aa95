/* ossa convert: read one or more inputs, merge them, write one output. */
#include "cli.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: ossa convert IN... -o OUT [--format NAME] [--bounds MODE] [--anim NAME|INDEX]\n"
    "                    [--embed]\n"
    "\n"
    "Read the inputs, merge each later one into the first (for example a\n"
    "mesh file, then files with more animations) and write OUT. The file is\n"
    "written to a temporary file beside OUT and renamed into place, so an\n"
    "existing OUT is never left half written.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT  the file to write (required)\n"
    "  --format NAME     output format (default: from OUT's extension)\n"
    "  --bounds MODE     per-frame bounds to store: conservative (default),\n"
    "                    exact, stored (keep the input's) or none\n"
    "  --anim NAME|INDEX the animation to write to formats that hold one\n"
    "                    (SOTC .anb), by name or 0-based index (default: 0)\n"
    "  --embed           .gltf: put the binary data inside the file as a data\n"
    "                    URI instead of writing OUT's .bin beside it\n"
    "  -h, --help        show this help\n"
    "\n" CLI_LOAD_OPTIONS_HELP;

enum { OPT_OUTPUT, OPT_FORMAT, OPT_BOUNDS, OPT_ANIM, OPT_EMBED };

static const struct {
    const char *name;
    ossa_bounds_mode mode;
} bounds_modes[] = {
    {"conservative", OSSA_BOUNDS_CONSERVATIVE},
    {"exact", OSSA_BOUNDS_EXACT},
    {"stored", OSSA_BOUNDS_STORED},
    {"none", OSSA_BOUNDS_NONE},
};

/* Fills `options` from the command line; returns 0 or CLI_EXIT_USAGE. All
 * of this is checked before any input is read, so that a typo costs
 * nothing and cannot be mistaken for bad input. */
static int output_options(const cli_args *args, ossa_write_options *options)
{
    memset(options, 0, sizeof *options);
    const char *out = args->value[OPT_OUTPUT];
    const char *format = args->value[OPT_FORMAT];
    const char *bounds = args->value[OPT_BOUNDS];
    if (!out) return cli_usage_error("convert", "no output file (use -o OUT)");
    if (!out[0]) return cli_usage_error("convert", "empty output file name");

    if (format) {
        options->format = ossa_format_from_name(format);
        if (options->format == OSSA_FORMAT_AUTO)
            return cli_usage_error("convert", "unknown format '%s'", format);
    } else {
        options->format = ossa_format_from_name(out);
        if (options->format == OSSA_FORMAT_AUTO)
            return cli_usage_error("convert",
                                   "cannot tell the output format from '%s'; use --format", out);
    }

    options->bounds = OSSA_BOUNDS_DEFAULT;
    if (bounds) {
        size_t i, n = sizeof bounds_modes / sizeof bounds_modes[0];
        for (i = 0; i < n && strcmp(bounds, bounds_modes[i].name) != 0; i++) {
        }
        if (i == n)
            return cli_usage_error("convert",
                                   "unknown bounds mode '%s' (conservative, exact, stored, none)",
                                   bounds);
        options->bounds = bounds_modes[i].mode;
    }
    if (args->value[OPT_EMBED]) options->flags |= OSSA_WRITE_GLTF_EMBED;
    return 0;
}

/* Messages of writers that drop data: "ossa: OUT: warning: ...". */
/* What the writer reports, and the files it wrote. */
typedef struct write_report {
    const char *out;
    char **paths;
    size_t count;
    bool failed; /* out of memory while listing the paths */
} write_report;

static void print_diagnostic(void *user, const ossa_diagnostic *d)
{
    const write_report *r = user;
    fprintf(stderr, "ossa: %s: %s: %s\n", r->out,
            d->severity == OSSA_SEVERITY_NOTE ? "note" : "warning", d->message);
}

static void note_written(void *user, const char *path)
{
    write_report *r = user;
    char **grown = realloc(r->paths, (r->count + 1) * sizeof *grown);
    char *copy = strdup(path);
    if (!grown || !copy) {
        free(copy);
        if (grown) r->paths = grown;
        r->failed = true;
        return;
    }
    r->paths = grown;
    r->paths[r->count++] = copy;
}

/* A format that wrote several files lists them all, so that nothing
 * appears beside OUT unannounced; a single file is OUT itself. */
static void print_written(write_report *r)
{
    for (size_t i = 0; i < r->count; i++) {
        if (r->count > 1) printf("wrote %s\n", r->paths[i]);
        free(r->paths[i]);
    }
    free(r->paths);
}

int cmd_convert(int argc, char **argv)
{
    if (clip_output_wanted(argc, argv)) return clip_output_run(argc, argv);
    static const cli_option options[] = {
        [OPT_OUTPUT] = {"--output", "-o", 1},
        [OPT_FORMAT] = {"--format", NULL, 1},
        [OPT_BOUNDS] = {"--bounds", NULL, 1},
        [OPT_ANIM] = {"--anim", NULL, 1},
        [OPT_EMBED] = {"--embed", NULL, 0},
        CLI_LOAD_OPTIONS,
        {NULL, NULL, 0},
    };
    cli_args args;
    int rc = cli_parse_args(argc, argv, options, &args);
    if (rc) return rc;
    if (args.help) {
        fputs(usage, stdout);
        cli_args_free(&args);
        return CLI_EXIT_OK;
    }
    ossa_write_options write_options;
    ossa_load_options load_options;
    if (args.num_files == 0)
        rc = cli_usage_error("convert", "no input file");
    else
        rc = output_options(&args, &write_options);
    if (!rc) rc = cli_load_options_from_args("convert", options, &args, &load_options);
    if (rc) {
        cli_args_free(&args);
        return rc;
    }

    const char *out = args.value[OPT_OUTPUT];
    ossa_model *model = cli_load_merged(args.files, args.num_files, &load_options);
    const char *anim = args.value[OPT_ANIM];
    int index = model && anim ? cli_find_animation(model, anim) : 0;
    write_report report = {out, NULL, 0, false};
    write_options.diagnostic = print_diagnostic;
    write_options.wrote = note_written;
    write_options.user = &report;
    if (!model || index < 0) {
        rc = CLI_EXIT_INPUT;
        ossa_model_free(model);
    } else {
        write_options.animation = (uint32_t)index;
        ossa_error error;
        memset(&error, 0, sizeof error);
        if (ossa_write_file(model, out, &write_options, &error) != OSSA_OK) {
            if (!error.file[0]) snprintf(error.file, sizeof error.file, "%s", out);
            cli_report_error(&error);
            rc = CLI_EXIT_INPUT;
        }
        print_written(&report);
        ossa_model_free(model);
    }
    cli_args_free(&args);
    return rc;
}
