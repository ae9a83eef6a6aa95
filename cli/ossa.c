/* ossa: the command-line tool. main() only picks the subcommand; each one
 * lives in its own cmd_*.c and parses its own options. */
#include "cli.h"

#include <string.h>

static const struct {
    const char *name;
    cli_command_fn run;
    const char *summary;
} commands[] = {
    {"info", cmd_info, "print a summary of each model (--json for JSON)"},
    {"validate", cmd_validate, "check models for problems"},
    {"convert", cmd_convert, "merge inputs and write them in another file or format"},
    {"pose", cmd_pose, "print the skeleton's pose at a frame or time (--json for JSON)"},
    {"clip-stats", cmd_clip_stats, "size and error of each animation as a compressed clip"},
    {"render", cmd_render, "draw the posed model into a PNG, a contact sheet or a GIF"},
    {"dump", cmd_dump, "print a canonical text dump of a model (for diffs and bug reports)"},
    {"formats", cmd_formats, "list the formats and each format's options (--json for JSON)"},
    {"iqm", cmd_iqm, "the IQM SDK's command line: iqm OUT.iqm IN... (also as ossa-iqm)"},
    {"demo", cmd_demo, "write the demo character in every format and draw it"},
};
#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

static void print_usage(FILE *out)
{
    fputs("Usage: ossa COMMAND [OPTIONS] FILE...\n"
          "       ossa COMMAND --help\n"
          "       ossa --help | --version\n"
          "\n"
          "Inspect, check and convert skeletal animated models.\n"
          "\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);

    fputs("\nFormats (r = read, w = write):\n", out);
    ossa_format formats[64];
    uint32_t n = ossa_format_list(formats, 64);
    for (uint32_t i = 0; i < n && i < 64; i++)
        fprintf(out, "  %-10s %s%s  %s\n", ossa_format_name(formats[i]),
                ossa_format_can_read(formats[i]) ? "r" : "-",
                ossa_format_can_write(formats[i]) ? "w" : "-", ossa_format_extensions(formats[i]));
    fputs("\n"
          "Options may come before or after file names; '--' ends the options.\n"
          "Exit status: 0 success, 1 bad input, 2 bad usage.\n",
          out);
}

static int find_command(const char *name)
{
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return (int)i;
    return -1;
}

int main(int argc, char **argv)
{
    /* Called as ossa-iqm (a link installed beside ossa): the IQM SDK's
     * command line, so that scripts switch by changing one word. */
    const char *self = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
    self = self ? self + 1 : argc > 0 && argv[0] ? argv[0] : "";
    if (strcmp(self, "ossa-iqm") == 0) return cmd_iqm(argc, argv);
    if (argc < 2) {
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0) {
        printf("ossa %s\n", ossa_version_string());
        return CLI_EXIT_OK;
    }
    /* "ossa help CMD" is "ossa CMD --help". */
    if (strcmp(first, "help") == 0) {
        if (argc < 3) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        }
        int k = find_command(argv[2]);
        if (k < 0) return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
        static char help[] = "--help";
        char *help_argv[] = {argv[2], help, NULL};
        return commands[k].run(2, help_argv);
    }
    if (first[0] == '-') return cli_usage_error(NULL, "unknown option '%s'", first);
    int k = find_command(first);
    if (k < 0) return cli_usage_error(NULL, "unknown command '%s'", first);
    return commands[k].run(argc - 1, argv + 1);
}
