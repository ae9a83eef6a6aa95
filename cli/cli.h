/* Shared pieces of the ossa command-line tool: exit codes, argument
 * parsing, diagnostics, loading (and merging) inputs, JSON output.
 * The CLI uses only the public API in ossa.h. */
#ifndef OSSA_CLI_H
#define OSSA_CLI_H

#include <ossa.h>

#include <stdio.h>

/* Exit codes shared by every subcommand (see docs/ossa.1). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_INPUT = 1, /* a file could not be read, validated or written */
    CLI_EXIT_USAGE = 2  /* unknown command or option, missing argument */
};

/* Every subcommand: argv[0] is the command name, the rest its arguments. */
typedef int (*cli_command_fn)(int argc, char **argv);

int cmd_info(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_pose(int argc, char **argv);
int cmd_clip_stats(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_iqm(int argc, char **argv);
int cmd_render(int argc, char **argv);

/* -- Arguments -------------------------------------------------------------- */

/* One option a command accepts. Long options may also be written
 * "--name=value"; short ones "-oVALUE". --help / -h is always accepted. */
typedef struct cli_option {
    const char *name;       /* "--format" */
    const char *short_name; /* "-o", or NULL */
    int takes_value;        /* 0, 1 (= CLI_VALUE), or CLI_VALUE | CLI_ORDERED */
} cli_option;

/* takes_value bits. A CLI_ORDERED option may be given any number of
 * times: each occurrence is kept in cli_args.ordered, in command-line
 * order, with the number of file names before it (per-input options such
 * as convert's --name apply to the file that follows), and value[] stays
 * NULL for it. */
#define CLI_VALUE 1
#define CLI_ORDERED 2

typedef struct cli_occurrence {
    int option;        /* index in the option table */
    const char *value; /* "" for a flag */
    int files_before;  /* file names on the command line before it */
} cli_occurrence;

#define CLI_MAX_OPTIONS 40
#define CLI_MAX_FORMAT_OPTIONS 32

typedef struct cli_args {
    /* value[i] belongs to options[i]: NULL when absent, "" for a flag that
     * was given, else the option's argument. */
    const char *value[CLI_MAX_OPTIONS];
    const char **files; /* the non-option arguments, in order */
    int num_files;
    cli_occurrence *ordered; /* CLI_ORDERED options, in order */
    int num_ordered;
    int help; /* --help or -h was given */
    /* Format options given as flags (format_flags.c), by where they
     * apply: an option that formats have for reading and for writing
     * ("obj.axes") goes to both. */
    ossa_option load_options[CLI_MAX_FORMAT_OPTIONS];
    uint32_t num_load_options;
    ossa_option write_options[CLI_MAX_FORMAT_OPTIONS];
    uint32_t num_write_options;
} cli_args;

/* When `arg` is a format option's flag (--fbx-keep-units, --obj-axes X,
 * -O NAME=VALUE, or an older alias such as --ill-text), adds it to `args`
 * and returns 0, setting *used_next when it took `next` (may be NULL) as
 * its value; -1 when it is no such flag; else a usage error's exit code. */
int cli_format_flag(cli_args *args, const char *command, const char *arg, const char *next,
                    int *used_next);

/* Parses argv[1..argc) against `options` (terminated by a NULL name).
 * Options and file names may be mixed in any order; "--" ends options.
 * On a usage error prints the message and a hint to stderr and returns
 * CLI_EXIT_USAGE; returns CLI_EXIT_INPUT if memory runs out; else 0.
 * Free with cli_args_free. */
int cli_parse_args(int argc, char **argv, const cli_option *options, cli_args *args);
void cli_args_free(cli_args *args);

/* -- Diagnostics ------------------------------------------------------------ */

/* Where this thread's messages (stderr) and results (stdout) go: the
 * standard streams unless a batch job (batch.c) has set its own buffers,
 * so that the messages of parallel jobs come out whole and in order.
 * Every helper below writes to these. */
FILE *cli_err(void);
FILE *cli_out(void);
void cli_set_streams(FILE *out, FILE *err); /* NULL = the standard one */

/* "ossa: <message>" on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A usage error for `command`: the message, then a hint to its --help.
 * Returns CLI_EXIT_USAGE so callers can `return cli_usage_error(...)`. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* "ossa: FILE:WHERE: message" for a failed library call. */
void cli_report_error(const ossa_error *error);

/* Writes "byte N" or "LINE:COL" into buf, or "" when the position is
 * unknown. Returns buf. */
const char *cli_where(char *buf, size_t size, uint64_t offset, uint32_t line, uint32_t column);

/* Prints warnings[first..] of `model` as "ossa: FILE:WHERE: warning: msg". */
void cli_print_warnings(const char *file, const ossa_model *model, uint32_t first);

/* -- Loading ---------------------------------------------------------------- */

/* Options every command that reads models accepts; put this at the end of
 * a command's option table (before the NULL entry) and read them back with
 * cli_load_options_from_args. */
#define CLI_LOAD_OPTIONS                                                                   \
    {"--fps", NULL, 1}, {"--influences", NULL, 1}, {"--allow-parent-paths", NULL, 0},     \
        {"--front", NULL, 1}
#define CLI_LOAD_OPTIONS_HELP                                                              \
    "Reading options:\n"                                                                   \
    "  --fps N            frame rate for files that store none (SOTC .anb) or that\n"     \
    "                     are resampled (illEngine ILLANIM1, glTF); default 30\n"          \
    "  --influences N     blend influences kept per vertex, 1..8 (default 4)\n"            \
    "  --allow-parent-paths  read files a model names outside its folder (../x.bin)\n"    \
    "  --front x|-x|y|-y  where the files' characters face, when they break their\n"    \
    "                     format's convention (a Blender export to MD5: -y)\n"           \
    "  --FORMAT-NAME [VALUE], -O FORMAT.NAME=VALUE\n"                                      \
    "                     an option of one format (`ossa formats` lists them all),\n"     \
    "                     e.g. --fbx-keep-units, --smd-turn, --obj-axes blender\n"

/* Fills `out` from the CLI_LOAD_OPTIONS in `args` (a zeroed struct when
 * none is given). On a bad value prints a usage error for `command` and
 * returns CLI_EXIT_USAGE; else 0. */
int cli_load_options_from_args(const char *command, const cli_option *options,
                               const cli_args *args, ossa_load_options *out);

/* The start of a command that reads the files it is given: parses argv
 * against `options` (which include CLI_LOAD_OPTIONS), fills `load` from
 * them, prints `usage` on stdout for --help and refuses an empty list of
 * files. Returns CLI_GO_ON when the command goes on with `args` (freed by
 * the caller with cli_args_free); else the exit code, `args` already freed. */
#define CLI_GO_ON (-1)
int cli_parse_input_args(const char *command, const char *usage, int argc, char **argv,
                         const cli_option *options, cli_args *args, ossa_load_options *load);

/* ossa_load_file, or for "-" standard input read whole (the format from
 * the content; messages name "(standard input)"). */
ossa_model *cli_load_path(const char *file, const ossa_load_options *options, ossa_error *error);

/* Loads one file with `options` (may be NULL) and prints its load warnings.
 * On failure prints the error, copies it to `error` (may be NULL) and
 * returns NULL. */
ossa_model *cli_load(const char *file, const ossa_load_options *options, ossa_error *error);

/* Loads one input: the file `arg` names, or when no file has that name and
 * it holds commas, each file of the comma-separated list, their meshes
 * joined (ossa_model_append_meshes; the IQM SDK's mesh lists). Prints what
 * cli_load prints; NULL on failure. */
ossa_model *cli_load_list(const char *arg, const ossa_load_options *options);

/* Loads files[0..n) (each as cli_load_list) and merges each later one into the first, in order
 * (a mesh, then a skeleton, then more animations). Prints warnings and
 * errors; returns NULL on any failure. */
ossa_model *cli_load_merged(const char *const *files, int n, const ossa_load_options *options);

/* The animation named `arg`, else the one whose 0-based index `arg`
 * spells; -1 after an error message listing the animations when there is
 * none. */
int cli_find_animation(const ossa_model *model, const char *arg);

/* The IQM SDK's -r X,Y,Z (Euler degrees, q = qz * qy * qx) as a unit
 * quaternion (x, y, z, w); 0 unless `value` is three numbers. */
int cli_parse_rotation(const char *value, double q[4]);
/* out = a * b (quaternions x, y, z, w); out may alias either. */
void cli_quat_mul(const double a[4], const double b[4], double out[4]);

/* Whether all of `s` spells one finite number (strtod's syntax), stored
 * in *out. */
int cli_parse_number(const char *s, double *out);

/* Compressed-clip options from --error and --shell (either may be NULL):
 * each a positive number of model units. On a bad value prints a usage
 * error for `command` and returns CLI_EXIT_USAGE; else 0. */
int cli_clip_options(const char *command, const char *error, const char *shell,
                     ossa_clip_options *out);

/* -- Output ----------------------------------------------------------------- */

/* A JSON string literal (with quotes) for the `size` bytes at `s`: quotes,
 * backslashes and control characters escaped, invalid UTF-8 replaced by
 * U+FFFD so that the output is always valid JSON. */
void cli_json_string_n(FILE *out, const char *s, size_t size);
void cli_json_string(FILE *out, const char *s);

/* A number that reads back to the same float ("%.9g"); null for NaN and
 * infinities, which JSON cannot represent. */
void cli_json_number(FILE *out, double value);

/* `s` for human output, with control characters shown as \xNN so that a
 * name read from a file cannot drive the terminal. */
void cli_print_text(FILE *out, const char *s);

/* The summaries that `ossa info` prints, shared with `ossa demo`. */
void cli_info_print_text(FILE *out, const char *file, const ossa_model *model);
void cli_info_print_json(FILE *out, const char *file, const ossa_model *model);

/* -- Rendering (render_output.c) --------------------------------------------- */

/* One picture, contact sheet or GIF of a model. */
typedef struct cli_render_job {
    const ossa_model *model;
    const char *model_path; /* textures are looked up beside it; NULL = the model's own */
    uint32_t width, height; /* the picture, or each cell of a sheet */
    ossa_render_camera_options camera;
    uint32_t flags; /* OSSA_RENDER_* */
    uint32_t supersample, threads;
    uint8_t background[4];
    int animation;     /* -1 = the bind pose */
    int use_frame;     /* a still: `frame` rather than `time` */
    double frame, time;
    uint32_t sheet;    /* cells of a contact sheet; 0 = not a sheet */
    int labels;        /* sheets: frame and time over each cell */
    int gif;           /* the whole animation as a GIF */
    double fps;        /* GIF frame rate; 0 = the animation's */
    const char *output;
} cli_render_job;

/* 512x512, grid and shadow, 2x2 supersampling, one thread, bind pose,
 * labels on. */
void cli_render_job_defaults(cli_render_job *job);
/* Renders and writes job->output; prints errors. Returns an exit code. */
int cli_render(const cli_render_job *job);

#endif /* OSSA_CLI_H */
