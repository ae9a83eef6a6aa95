/* Helpers shared by the subcommands: argument parsing, diagnostics,
 * loading and merging inputs, JSON and text output. */
#include "cli.h"

#include <errno.h>

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* -- Arguments -------------------------------------------------------------- */

/* The option that `arg` names, or -1. For "--name=value" only the part
 * before '=' is compared; for "-oVALUE" only the first two characters. */
static int find_option(const cli_option *options, const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    if (arg[1] == '-') {
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        for (int i = 0; options[i].name; i++)
            if (strlen(options[i].name) == len && memcmp(options[i].name, arg, len) == 0) {
                if (eq) *inline_value = eq + 1;
                return i;
            }
        return -1;
    }
    for (int i = 0; options[i].name; i++) {
        const char *s = options[i].short_name;
        if (!s || s[1] != arg[1]) continue;
        if (arg[2] == 0) return i;
        if (options[i].takes_value & CLI_VALUE) {
            *inline_value = arg + 2;
            return i;
        }
    }
    return -1;
}

int cli_parse_args(int argc, char **argv, const cli_option *options, cli_args *args)
{
    const char *command = argv[0];
    memset(args, 0, sizeof *args);
    /* At most argc - 1 file names. */
    args->files = malloc(sizeof *args->files * ((size_t)argc + 1));
    args->ordered = malloc(sizeof *args->ordered * ((size_t)argc + 1));
    if (!args->files || !args->ordered) {
        cli_args_free(args);
        cli_error("out of memory");
        return CLI_EXIT_INPUT;
    }
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        /* A lone "-" is a file name, as is everything after "--". */
        if (only_files || arg[0] != '-' || arg[1] == 0) {
            args->files[args->num_files++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_files = 1;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            args->help = 1;
            continue;
        }
        const char *value;
        int k = find_option(options, arg, &value);
        int used_next, rc = k < 0 ? cli_format_flag(args, command, arg, i + 1 < argc ? argv[i + 1] : NULL,
                                                    &used_next)
                                  : -1;
        if (rc == 0) {
            i += used_next;
            continue;
        }
        if (rc > 0) {
            cli_args_free(args);
            return rc;
        }
        if (k < 0) {
            /* Quote only the option itself, not a "=value" that follows. */
            int len = (int)strcspn(arg, "=");
            cli_args_free(args);
            return cli_usage_error(command, "unknown option '%.*s'", len, arg);
        }
        const cli_option *opt = &options[k];
        if (!(opt->takes_value & CLI_VALUE)) {
            if (value) {
                cli_args_free(args);
                return cli_usage_error(command, "option '%s' takes no argument", opt->name);
            }
            if (opt->takes_value & CLI_ORDERED)
                args->ordered[args->num_ordered++] = (cli_occurrence){k, "", args->num_files};
            else
                args->value[k] = "";
            continue;
        }
        if (!value) {
            if (i + 1 >= argc) {
                cli_args_free(args);
                return cli_usage_error(command, "option '%s' needs an argument", arg);
            }
            value = argv[++i];
        }
        if (opt->takes_value & CLI_ORDERED) {
            args->ordered[args->num_ordered++] = (cli_occurrence){k, value, args->num_files};
            continue;
        }
        /* Two different values would leave one silently ignored. */
        if (args->value[k] && strcmp(args->value[k], value) != 0) {
            cli_args_free(args);
            return cli_usage_error(command, "option '%s' given twice", opt->name);
        }
        args->value[k] = value;
    }
    return CLI_EXIT_OK;
}

void cli_args_free(cli_args *args)
{
    free((void *)args->files);
    free(args->ordered);
    args->files = NULL;
    args->ordered = NULL;
    args->num_files = 0;
    args->num_ordered = 0;
}

/* -- Diagnostics ------------------------------------------------------------ */

static _Thread_local FILE *thread_out, *thread_err;

FILE *cli_err(void) { return thread_err ? thread_err : stderr; }
FILE *cli_out(void) { return thread_out ? thread_out : stdout; }

void cli_set_streams(FILE *out, FILE *err)
{
    thread_out = out;
    thread_err = err;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ossa: ", cli_err());
    vfprintf(cli_err(), fmt, ap);
    fputc('\n', cli_err());
    va_end(ap);
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ossa: ", cli_err());
    vfprintf(cli_err(), fmt, ap);
    fputc('\n', cli_err());
    va_end(ap);
    if (command)
        fprintf(cli_err(), "Try 'ossa %s --help' for more information.\n", command);
    else
        fputs("Try 'ossa --help' for more information.\n", cli_err());
    return CLI_EXIT_USAGE;
}

void cli_report_error(const ossa_error *error)
{
    char buf[1024];
    fprintf(cli_err(), "ossa: %s\n", ossa_error_format(error, buf, sizeof buf));
}

const char *cli_where(char *buf, size_t size, uint64_t offset, uint32_t line, uint32_t column)
{
    if (line)
        snprintf(buf, size, "%u:%u", (unsigned)line, (unsigned)column);
    else if (offset != OSSA_NO_OFFSET)
        snprintf(buf, size, "byte %llu", (unsigned long long)offset);
    else if (size)
        buf[0] = 0;
    return buf;
}

void cli_print_warnings(const char *file, const ossa_model *model, uint32_t first)
{
    for (uint32_t i = first; i < model->num_warnings; i++) {
        const ossa_diagnostic *w = &model->warnings[i];
        char where[48];
        cli_where(where, sizeof where, w->offset, w->line, w->column);
        fprintf(cli_err(), "ossa: %s:%s%s%s: %s\n", file, where, where[0] ? ": " : " ",
                w->severity == OSSA_SEVERITY_NOTE ? "note" : "warning", w->message);
    }
}

/* -- Loading ---------------------------------------------------------------- */

/* The value of the option called `name` in `options`, or NULL. */
static const char *option_value(const cli_option *options, const cli_args *args, const char *name)
{
    for (int i = 0; options[i].name && i < CLI_MAX_OPTIONS; i++)
        if (strcmp(options[i].name, name) == 0) return args->value[i];
    return NULL;
}

int cli_load_options_from_args(const char *command, const cli_option *options,
                               const cli_args *args, ossa_load_options *out)
{
    memset(out, 0, sizeof *out);
    const char *fps = option_value(options, args, "--fps");
    if (fps) {
        char *end;
        double v = strtod(fps, &end);
        if (end == fps || *end || !(v > 0) || v > 1e6)
            return cli_usage_error(command, "--fps wants a positive number, not '%s'", fps);
        out->framerate = (float)v;
    }
    const char *influences = option_value(options, args, "--influences");
    if (influences) {
        char *end;
        long v = strtol(influences, &end, 10);
        if (end == influences || *end || v < 1 || v > OSSA_MAX_COMPONENTS)
            return cli_usage_error(command, "--influences wants 1..%d, not '%s'",
                                   OSSA_MAX_COMPONENTS, influences);
        out->max_influences = (uint32_t)v;
    }
    out->format_options = args->load_options;
    out->num_format_options = args->num_load_options;
    if (option_value(options, args, "--allow-parent-paths")) out->flags |= OSSA_LOAD_ALLOW_PARENT_PATHS;
    const char *front = option_value(options, args, "--front");
    if (front) {
        static const struct {
            const char *word;
            ossa_front front;
        } fronts[] = {{"x", OSSA_FRONT_POS_X}, {"+x", OSSA_FRONT_POS_X}, {"-x", OSSA_FRONT_NEG_X},
                      {"y", OSSA_FRONT_POS_Y}, {"+y", OSSA_FRONT_POS_Y}, {"-y", OSSA_FRONT_NEG_Y}};
        for (size_t i = 0; i < sizeof fronts / sizeof fronts[0] && !out->front; i++)
            if (strcmp(front, fronts[i].word) == 0) out->front = fronts[i].front;
        if (!out->front)
            return cli_usage_error(command, "--front is x, -x, y or -y, not '%s'", front);
        out->struct_size = sizeof *out; /* front is newer than ossa 0.2 */
    }
    return 0;
}

int cli_parse_input_args(const char *command, const char *usage, int argc, char **argv,
                         const cli_option *options, cli_args *args, ossa_load_options *load)
{
    int rc = cli_parse_args(argc, argv, options, args);
    if (rc) return rc;
    rc = cli_load_options_from_args(command, options, args, load);
    if (rc) {
        cli_args_free(args);
        return rc;
    }
    for (uint32_t i = 0; !rc && i < args->num_write_options; i++) {
        const ossa_option *o = &args->write_options[i];
        int also_read = 0;
        for (uint32_t k = 0; k < args->num_load_options; k++) also_read |= args->load_options[k].name == o->name;
        if (!also_read) rc = cli_usage_error(command, "option '%s' applies to writing (convert)", o->name);
    }
    if (rc) {
        cli_args_free(args);
        return rc;
    }
    if (args->help) {
        fputs(usage, stdout);
        /* A usage too long for one string literal leaves these out. */
        if (!strstr(usage, "Reading options:")) fputs("\n" CLI_LOAD_OPTIONS_HELP, stdout);
        cli_args_free(args);
        return CLI_EXIT_OK;
    }
    if (args->num_files == 0) {
        cli_args_free(args);
        return cli_usage_error(command, "no input file");
    }
    return CLI_GO_ON;
}

/* Standard input, read whole: "-" as a file name. */
#define CLI_STDIN_NAME "(standard input)"

static ossa_model *load_stdin(const ossa_load_options *options, ossa_error *error)
{
    size_t size = 0, cap = 1 << 16;
    unsigned char *data = malloc(cap);
    for (size_t got; data && (got = fread(data + size, 1, cap - size, stdin)) > 0;) {
        size += got;
        if (size == cap) {
            unsigned char *bigger = cap <= SIZE_MAX / 2 ? realloc(data, cap * 2) : NULL;
            if (!bigger) {
                free(data);
                data = NULL;
            }
            data = bigger;
            cap *= 2;
        }
    }
    memset(error, 0, sizeof *error);
    snprintf(error->file, sizeof error->file, "%s", CLI_STDIN_NAME);
    if (!data || ferror(stdin)) {
        error->code = data ? OSSA_ERROR_IO : OSSA_ERROR_NOMEM;
        error->severity = OSSA_SEVERITY_ERROR;
        error->offset = OSSA_NO_OFFSET;
        snprintf(error->message, sizeof error->message, "%s",
                 data ? "cannot read standard input" : "out of memory");
        free(data);
        return NULL;
    }
    /* The content says the format; files it names are looked for in the
     * current directory. */
    ossa_load_options o = options ? *options : (ossa_load_options){0};
    o.file_name = CLI_STDIN_NAME;
    ossa_model *model = ossa_load_memory(data, size, &o, error);
    free(data);
    return model;
}

ossa_model *cli_load_path(const char *file, const ossa_load_options *options, ossa_error *error)
{
    if (strcmp(file, "-") == 0) return load_stdin(options, error);
    return ossa_load_file(file, options, error);
}

ossa_model *cli_load(const char *file, const ossa_load_options *options, ossa_error *error_out)
{
    ossa_error error;
    memset(&error, 0, sizeof error);
    ossa_model *model = cli_load_path(file, options, &error);
    if (!model) {
        /* The library names the file; make sure of it for the message. */
        if (!error.file[0]) snprintf(error.file, sizeof error.file, "%s", file);
        cli_report_error(&error);
        if (error_out) *error_out = error;
        return NULL;
    }
    cli_print_warnings(file, model, 0);
    return model;
}

ossa_model *cli_load_list(const char *arg, const ossa_load_options *lo)
{
    struct stat st;
    if (!strchr(arg, ',') || stat(arg, &st) == 0) return cli_load(arg, lo, NULL);

    char *list = strdup(arg);
    if (!list) {
        cli_error("out of memory");
        return NULL;
    }
    ossa_model *model = NULL;
    int parts = 0;
    for (char *p = list, *end; p; p = end ? end + 1 : NULL) {
        end = strchr(p, ',');
        if (end) *end = 0;
        if (!*p) {
            cli_error("%s: an empty file name in the comma-separated list", arg);
            ossa_model_free(model);
            model = NULL;
            break;
        }
        ossa_model *part = cli_load(p, lo, NULL);
        if (!part) {
            ossa_model_free(model);
            model = NULL;
            break;
        }
        if (parts++ == 0) {
            model = part;
            continue;
        }
        uint32_t before = model->num_warnings;
        ossa_error error;
        if (ossa_model_append_meshes(model, part, &error) != OSSA_OK) {
            cli_error("%s: %s", p, error.message);
            ossa_model_free(part);
            ossa_model_free(model);
            model = NULL;
            break;
        }
        cli_print_warnings(p, model, before);
        if (part->num_animations)
            fprintf(cli_err(),
                    "ossa: %s: warning: its %u animations are not used: a comma-separated list "
                    "joins meshes (name the file on its own for its animations)\n",
                    p, part->num_animations);
        ossa_model_free(part);
    }
    free(list);
    return model;
}

ossa_model *cli_load_merged(const char *const *files, int n, const ossa_load_options *options)
{
    if (n <= 0) return NULL;
    ossa_model *dst = cli_load_list(files[0], options);
    if (!dst) return NULL;
    for (int i = 1; i < n; i++) {
        ossa_model *src = cli_load_list(files[i], options);
        if (!src) {
            ossa_model_free(dst);
            return NULL;
        }
        uint32_t warnings_before = dst->num_warnings;
        ossa_error error;
        memset(&error, 0, sizeof error);
        /* A merge failure is about the file being merged in. */
        snprintf(error.file, sizeof error.file, "%s", files[i]);
        ossa_status status = ossa_model_merge(dst, src, &error);
        ossa_model_free(src);
        if (status != OSSA_OK) {
            if (!error.file[0]) snprintf(error.file, sizeof error.file, "%s", files[i]);
            cli_report_error(&error);
            ossa_model_free(dst);
            return NULL;
        }
        /* Merge warnings (dropped joints, ...) land in dst but concern src. */
        cli_print_warnings(files[i], dst, warnings_before);
    }
    return dst;
}

int cli_find_animation(const ossa_model *model, const char *arg)
{
    for (uint32_t i = 0; i < model->num_animations; i++)
        if (strcmp(model->animations[i].name, arg) == 0) return (int)i;
    const char *p = arg;
    while (*p >= '0' && *p <= '9') p++;
    if (p != arg && !*p && p - arg < 10) {
        unsigned long k = strtoul(arg, NULL, 10);
        if (k < model->num_animations) return (int)k;
    }
    if (model->num_animations == 0) {
        cli_error("unknown animation '%s': the model has no animations", arg);
        return -1;
    }
    fprintf(cli_err(), "ossa: unknown animation '%s'; the animations are:", arg);
    for (uint32_t i = 0; i < model->num_animations; i++) {
        fputs(i ? ", " : " ", cli_err());
        cli_print_text(cli_err(), model->animations[i].name);
        fprintf(cli_err(), " (%u)", (unsigned)i);
    }
    fputc('\n', cli_err());
    return -1;
}

/* -- Output ----------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (n bytes available), or 0.
 * Overlong forms, surrogates and code points above U+10FFFF are invalid. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
    else return 0;
    if (n < len) return 0;
    unsigned cp = c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

void cli_json_string_n(FILE *out, const char *s, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    for (size_t i = 0; i < size;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
        } else if (c == '\n') {
            fputs("\\n", out);
        } else if (c == '\t') {
            fputs("\\t", out);
        } else if (c == '\r') {
            fputs("\\r", out);
        } else if (c < 0x20 || c == 0x7F) {
            fprintf(out, "\\u%04x", c);
        } else {
            size_t len = utf8_sequence(p + i, size - i);
            if (len == 0) {
                fputs("\\ufffd", out);
                len = 1;
            } else {
                fwrite(p + i, 1, len, out);
            }
            i += len;
            continue;
        }
        i++;
    }
    fputc('"', out);
}

void cli_json_string(FILE *out, const char *s)
{
    if (!s) s = "";
    cli_json_string_n(out, s, strlen(s));
}

void cli_json_number(FILE *out, double value)
{
    if (isfinite(value))
        fprintf(out, "%.9g", value);
    else
        fputs("null", out);
}

void cli_print_text(FILE *out, const char *s)
{
    if (!s) return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7F)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
}

int cli_parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!s[0] || *end || errno == ERANGE || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

static int positive_float(const char *s, float *out)
{
    double v;
    if (!cli_parse_number(s, &v) || v <= 0 || v > 3e38) return 0;
    *out = (float)v;
    return 1;
}

int cli_clip_options(const char *command, const char *error, const char *shell,
                     ossa_clip_options *out)
{
    memset(out, 0, sizeof *out);
    out->compression = OSSA_CLIP_COMPRESSED;
    if (error && !positive_float(error, &out->max_error))
        return cli_usage_error(command, "--error needs a positive number, not '%s'", error);
    if (shell && !positive_float(shell, &out->shell_distance))
        return cli_usage_error(command, "--shell needs a positive number, not '%s'", shell);
    return 0;
}

/* -- Rotations -------------------------------------------------------------- */

void cli_quat_mul(const double a[4], const double b[4], double out[4])
{
    double r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    };
    memcpy(out, r, sizeof r);
}

/* The IQM SDK's -r X,Y,Z: Euler degrees, q = qz * qy * qx. */
static void euler_quat(const double deg[3], double q[4])
{
    double axes[3][4];
    for (int i = 0; i < 3; i++) {
        double half = deg[i] * 3.14159265358979323846 / 360;
        memset(axes[i], 0, sizeof axes[i]);
        axes[i][i] = sin(half);
        axes[i][3] = cos(half);
    }
    double zy[4];
    cli_quat_mul(axes[2], axes[1], zy);
    cli_quat_mul(zy, axes[0], q);
}

int cli_parse_rotation(const char *value, double q[4])
{
    double v[3];
    const char *p = value;
    for (int n = 0; n < 3; n++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char part[64];
        if (len == 0 || len >= sizeof part || (n < 2 && !comma) || (n == 2 && comma)) return 0;
        memcpy(part, p, len);
        part[len] = 0;
        if (!cli_parse_number(part, &v[n])) return 0;
        p = comma ? comma + 1 : p + len;
    }
    euler_quat(v, q);
    return 1;
}
