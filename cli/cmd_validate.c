/* ossa validate: deep checks of each input file (ossa_validate). */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

static const char usage[] =
    "Usage: ossa validate [--json] FILE...\n"
    "\n"
    "Load each model and check it for problems a loader accepts but a renderer\n"
    "would not (parents after children, indices out of range, weight sums,\n"
    "non-unit quaternions, NaN or infinite values, bounds). Each problem goes\n"
    "to stderr; a line 'FILE: N errors, M warnings' per file to stdout.\n"
    "Load warnings count as warnings (load notes do not). Exit status 1 when a\n"
    "file cannot be loaded or has errors.\n"
    "\n"
    "Options:\n"
    "  --json      print one JSON object per file (an array for several files)\n"
    "              instead of the text lines\n"
    "  -h, --help  show this help\n"
    "\n" CLI_LOAD_OPTIONS_HELP;

/* What the problem callback needs; counts are the file's totals. */
typedef struct report {
    const char *file;
    int json;
    const char *ind; /* JSON: indentation of the object being printed */
    uint32_t errors, warnings;
} report;

/* One entry of the JSON "problems" list. */
static void json_problem(const report *r, const char *severity, const char *message)
{
    fprintf(stdout, "%s\n%s    {\"severity\": \"%s\", \"message\": ",
            r->errors + r->warnings ? "," : "", r->ind, severity);
    cli_json_string(stdout, message);
    fputc('}', stdout);
}

static void on_problem(void *user, const ossa_diagnostic *problem)
{
    report *r = user;
    int error = problem->severity == OSSA_SEVERITY_ERROR;
    if (r->json)
        json_problem(r, error ? "error" : "warning", problem->message);
    else
        fprintf(stderr, "ossa: %s: %s: %s\n", r->file, error ? "error" : "warning",
                problem->message);
    if (error)
        r->errors++;
    else
        r->warnings++;
}

static void plural(FILE *out, uint32_t n, const char *word)
{
    fprintf(out, "%" PRIu32 " %s%s", n, word, n == 1 ? "" : "s");
}

/* Validates one file; returns 1 when it is bad (load failure or errors). */
static int validate_file(const char *file, int json, const char *ind,
                         const ossa_load_options *load_options)
{
    report r = {file, json, ind, 0, 0};
    ossa_error error;
    ossa_model *model;
    if (json) {
        /* In JSON form the load warnings belong in the object, not on
         * stderr, so load without cli_load's printing. */
        memset(&error, 0, sizeof error);
        model = cli_load_path(file, load_options, &error);
        if (!model) {
            if (!error.file[0]) snprintf(error.file, sizeof error.file, "%s", file);
            cli_report_error(&error);
        }
    } else {
        model = cli_load(file, load_options, &error);
    }

    if (json) {
        fprintf(stdout, "{\n%s  \"file\": ", ind);
        cli_json_string(stdout, file);
        fprintf(stdout, ",\n%s  \"loaded\": %s", ind, model ? "true" : "false");
        if (!model) {
            char buf[1024];
            fprintf(stdout, ",\n%s  \"error\": ", ind);
            cli_json_string(stdout, ossa_error_format(&error, buf, sizeof buf));
        }
        fprintf(stdout, ",\n%s  \"problems\": [", ind);
    }
    int loaded = model != NULL;
    if (model) {
        /* Load warnings first: they are about the bytes, the checks below
         * about the model built from them. */
        for (uint32_t i = 0; i < model->num_warnings; i++) {
            /* notes (a frame rate rounded) are information, not problems */
            if (model->warnings[i].severity == OSSA_SEVERITY_NOTE) continue;
            if (json) json_problem(&r, "warning", model->warnings[i].message);
            r.warnings++;
        }
        /* The callback sees every finding, errors counted there. */
        ossa_model_validate(model, on_problem, &r, NULL);
        ossa_model_free(model);
    } else {
        r.errors = 1; /* the load failure itself */
    }

    if (json) {
        /* A failed load has no problem entries: the error says it all. */
        if (loaded && r.errors + r.warnings)
            fprintf(stdout, "\n%s  ]", ind);
        else
            fputc(']', stdout);
        fprintf(stdout, ",\n%s  \"errors\": %" PRIu32 ",\n%s  \"warnings\": %" PRIu32, ind,
                r.errors, ind, r.warnings);
        fprintf(stdout, ",\n%s  \"valid\": %s\n%s}", ind, r.errors ? "false" : "true", ind);
    } else {
        cli_print_text(stdout, file);
        fputs(": ", stdout);
        plural(stdout, r.errors, "error");
        fputs(", ", stdout);
        plural(stdout, r.warnings, "warning");
        fputc('\n', stdout);
    }
    return r.errors != 0;
}

int cmd_validate(int argc, char **argv)
{
    static const cli_option options[] = {{"--json", NULL, 0}, CLI_LOAD_OPTIONS, {NULL, NULL, 0}};
    cli_args args;
    ossa_load_options load_options;
    int rc = cli_parse_input_args("validate", usage, argc, argv, options, &args, &load_options);
    if (rc != CLI_GO_ON) return rc;
    rc = CLI_EXIT_OK;
    int json = args.value[0] != NULL;
    int array = json && args.num_files > 1;
    if (array) fputs("[\n  ", stdout);
    for (int i = 0; i < args.num_files; i++) {
        if (array && i) fputs(",\n  ", stdout);
        if (validate_file(args.files[i], json, array ? "  " : "", &load_options)) rc = CLI_EXIT_INPUT;
    }
    if (array)
        fputs("\n]\n", stdout);
    else if (json)
        fputc('\n', stdout);
    cli_args_free(&args);
    if (fflush(stdout) != 0) {
        cli_error("cannot write the output");
        rc = CLI_EXIT_INPUT;
    }
    return rc;
}
