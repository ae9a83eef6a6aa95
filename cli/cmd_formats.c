/* ossa formats: the formats this build reads and writes, and each
 * format's options (the flags --FORMAT-OPTION and -O FORMAT.OPTION=VALUE of
 * every command), as text or JSON. */
#include "cli.h"

#include <string.h>

static const char usage[] =
    "Usage: ossa formats [--json]\n"
    "\n"
    "Lists the formats (name, extensions, read/write) and the options of each,\n"
    "for reading and for writing. An option FORMAT.NAME is given to any command\n"
    "as --FORMAT-NAME [VALUE] ('-' for '.' and '_') or -O FORMAT.NAME=VALUE.\n";

static const char *type_name(ossa_option_type type)
{
    return type == OSSA_OPTION_SWITCH ? "switch" : type == OSSA_OPTION_CHOICE ? "choice" : "number";
}

/* The options of a table shared by a family appear once, under the first
 * format that has them. */
static int seen_before(const ossa_format *formats, uint32_t i, int writing)
{
    const ossa_option_info *mine, *other;
    if (!ossa_format_options(formats[i], writing, &mine)) return 0;
    for (uint32_t k = 0; k < i; k++)
        if (ossa_format_options(formats[k], writing, &other) && other == mine) return 1;
    return 0;
}

static void print_text(const ossa_format *formats, uint32_t n)
{
    FILE *out = cli_out();
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, "%-10s %s%s  %s\n", ossa_format_name(formats[i]),
                ossa_format_can_read(formats[i]) ? "r" : "-",
                ossa_format_can_write(formats[i]) ? "w" : "-", ossa_format_extensions(formats[i]));
    for (int writing = 0; writing < 2; writing++) {
        fprintf(out, "\nOptions for %s:\n", writing ? "writing" : "reading");
        for (uint32_t i = 0; i < n; i++) {
            const ossa_option_info *t;
            uint32_t count = ossa_format_options(formats[i], writing, &t);
            if (seen_before(formats, i, writing)) continue;
            for (uint32_t k = 0; k < count; k++) {
                fprintf(out, "  %s (%s", t[k].name, type_name(t[k].type));
                if (t[k].type == OSSA_OPTION_CHOICE) fprintf(out, ": %s", t[k].choices);
                if (t[k].default_value[0]) fprintf(out, "; default %s", t[k].default_value);
                fprintf(out, ")\n      %s\n", t[k].description);
            }
        }
    }
}

static void print_options_json(FILE *out, ossa_format format, int writing)
{
    const ossa_option_info *t;
    uint32_t count = ossa_format_options(format, writing, &t);
    fputc('[', out);
    for (uint32_t k = 0; k < count; k++) {
        fputs(k ? ", {\"name\": " : "{\"name\": ", out);
        cli_json_string(out, t[k].name);
        fputs(", \"type\": ", out);
        cli_json_string(out, type_name(t[k].type));
        fputs(", \"choices\": [", out);
        const char *p = t[k].choices;
        for (int first = 1; *p;) {
            while (*p == ' ') p++;
            size_t len = strcspn(p, " ");
            if (!len) break;
            fputs(first ? "" : ", ", out);
            cli_json_string_n(out, p, len);
            first = 0;
            p += len;
        }
        fputs("], \"default\": ", out);
        cli_json_string(out, t[k].default_value);
        fputs(", \"description\": ", out);
        cli_json_string(out, t[k].description);
        fputc('}', out);
    }
    fputc(']', out);
}

static void print_json(const ossa_format *formats, uint32_t n)
{
    FILE *out = cli_out();
    fputs("[\n", out);
    for (uint32_t i = 0; i < n; i++) {
        fputs("  {\"name\": ", out);
        cli_json_string(out, ossa_format_name(formats[i]));
        fputs(", \"extensions\": ", out);
        cli_json_string(out, ossa_format_extensions(formats[i]));
        fprintf(out, ", \"read\": %s, \"write\": %s, \"read_options\": ",
                ossa_format_can_read(formats[i]) ? "true" : "false",
                ossa_format_can_write(formats[i]) ? "true" : "false");
        print_options_json(out, formats[i], 0);
        fputs(", \"write_options\": ", out);
        print_options_json(out, formats[i], 1);
        fputs(i + 1 < n ? "},\n" : "}\n", out);
    }
    fputs("]\n", out);
}

int cmd_formats(int argc, char **argv)
{
    static const cli_option options[] = {{"--json", NULL, 0}, {NULL, NULL, 0}};
    cli_args args;
    int rc = cli_parse_args(argc, argv, options, &args);
    if (rc) return rc;
    int json = args.value[0] != NULL;
    int help = args.help, files = args.num_files;
    cli_args_free(&args);
    if (help) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    if (files) return cli_usage_error("formats", "takes no file");
    ossa_format formats[64];
    uint32_t n = ossa_format_list(formats, 64);
    if (n > 64) n = 64;
    if (json)
        print_json(formats, n);
    else
        print_text(formats, n);
    return CLI_EXIT_OK;
}
