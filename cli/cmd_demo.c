/* ossa demo: build the built-in model, write it, read it back, summarise. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "Usage: ossa demo [-o DIR]\n"
    "\n"
    "Build the model that ships inside ossa (a skinned tube on a 4-joint\n"
    "chain with a looping 'wave' and a one-shot 'bend' animation), write it\n"
    "into DIR (default 'demo', created if missing), read it back and print\n"
    "its summary; then draw it (demo.png: a frame of 'wave' with the\n"
    "skeleton; demo.gif: the whole loop). A quick check that an installation\n"
    "works.\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR  output directory (default: demo)\n"
    "  -h, --help        show this help\n";

/* The files the demo writes; a new writable format is one more line. */
static const struct {
    const char *file_name;
    ossa_format format;
} outputs[] = {
    {"demo.iqm", OSSA_FORMAT_IQM},
    {"demo.iqe", OSSA_FORMAT_IQE},
    {"demo.glb", OSSA_FORMAT_GLB},
};

/* mkdir -p: creates `dir` and any missing parents. Returns 0 or -1 with
 * errno set. */
static int make_dirs(const char *dir)
{
    char *path = malloc(strlen(dir) + 1);
    if (!path) return -1;
    strcpy(path, dir);
    int rc = 0;
    /* Create each prefix ending before a '/', then the whole path. */
    for (char *p = path + 1; rc == 0; p++) {
        if (*p != '/' && *p != 0) continue;
        char saved = *p;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) rc = -1;
        *p = saved;
        if (!saved) break;
    }
    if (rc == 0) {
        struct stat st;
        if (stat(dir, &st) != 0)
            rc = -1;
        else if (!S_ISDIR(st.st_mode))
            rc = -1, errno = ENOTDIR;
    }
    free(path);
    return rc;
}

/* "dir/name", without doubling a '/' that ends `dir`. */
static void join_path(char *path, size_t size, const char *dir, const char *name)
{
    size_t len = strlen(dir);
    snprintf(path, size, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", name);
}

/* Writes the model as `dir/name`, reads it back and prints its summary.
 * Returns 0 or CLI_EXIT_INPUT. */
static int write_and_check(const ossa_model *model, const char *dir, const char *name,
                           ossa_format format, char *path, size_t path_size)
{
    join_path(path, path_size, dir, name);
    ossa_write_options options;
    memset(&options, 0, sizeof options);
    options.format = format;
    ossa_error error;
    memset(&error, 0, sizeof error);
    if (ossa_write_file(model, path, &options, &error) != OSSA_OK) {
        if (!error.file[0]) snprintf(error.file, sizeof error.file, "%s", path);
        cli_report_error(&error);
        return CLI_EXIT_INPUT;
    }
    ossa_model *reloaded = cli_load(path, NULL, NULL);
    if (!reloaded) return CLI_EXIT_INPUT;
    cli_info_print_text(stdout, path, reloaded);
    ossa_model_free(reloaded);
    return 0;
}

/* Pictures of the demo model's looping animation: a still with its
 * skeleton and the whole loop as a GIF. */
static const char *const pictures[] = {"demo.png", "demo.gif"};

static int render_pictures(const ossa_model *model, const char *dir, char *path, size_t path_size)
{
    cli_render_job job;
    cli_render_job_defaults(&job);
    job.model = model;
    job.animation = cli_find_animation(model, "wave");
    if (job.animation < 0) return CLI_EXIT_INPUT;
    job.use_frame = 1;
    job.frame = 7; /* a quarter of the way through: the chain well curled */
    job.flags |= OSSA_RENDER_SKELETON;
    job.output = path;
    join_path(path, path_size, dir, pictures[0]);
    int rc = cli_render(&job);
    if (rc) return rc;
    job.flags &= ~(uint32_t)OSSA_RENDER_SKELETON;
    job.width = job.height = 320;
    job.gif = 1;
    join_path(path, path_size, dir, pictures[1]);
    return cli_render(&job);
}

int cmd_demo(int argc, char **argv)
{
    static const cli_option options[] = {{"--output", "-o", 1}, {NULL, NULL, 0}};
    cli_args args;
    int rc = cli_parse_args(argc, argv, options, &args);
    if (rc) return rc;
    if (args.help) {
        fputs(usage, stdout);
        cli_args_free(&args);
        return CLI_EXIT_OK;
    }
    int num_files = args.num_files;
    const char *dir = args.value[0] ? args.value[0] : "demo";
    cli_args_free(&args);
    if (num_files) return cli_usage_error("demo", "no input files are taken (use -o DIR)");
    if (!dir[0]) return cli_usage_error("demo", "empty output directory name");

    if (make_dirs(dir) != 0) {
        cli_error("%s: cannot create the directory: %s", dir, strerror(errno));
        return CLI_EXIT_INPUT;
    }
    ossa_error error;
    memset(&error, 0, sizeof error);
    ossa_model *model = demo_build_model(&error);
    if (!model) {
        /* A failure here is a bug in demo_model.c or the builders. */
        snprintf(error.file, sizeof error.file, "demo model");
        cli_report_error(&error);
        return CLI_EXIT_INPUT;
    }

    size_t path_size = strlen(dir) + 64;
    char *path = malloc(path_size);
    if (!path) {
        ossa_model_free(model);
        cli_error("out of memory");
        return CLI_EXIT_INPUT;
    }
    size_t n = sizeof outputs / sizeof outputs[0];
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = write_and_check(model, dir, outputs[i].file_name, outputs[i].format, path, path_size);
    if (rc == 0) rc = render_pictures(model, dir, path, path_size);
    if (rc == 0) {
        /* Name what was written last, after the summaries. */
        fputs("wrote", stdout);
        for (size_t i = 0; i < n; i++) {
            join_path(path, path_size, dir, outputs[i].file_name);
            fputc(' ', stdout);
            cli_print_text(stdout, path);
        }
        for (size_t i = 0; i < sizeof pictures / sizeof pictures[0]; i++) {
            join_path(path, path_size, dir, pictures[i]);
            fputc(' ', stdout);
            cli_print_text(stdout, path);
        }
        fputc('\n', stdout);
    }
    free(path);
    ossa_model_free(model);
    if (fflush(stdout) != 0) {
        cli_error("cannot write the output");
        rc = CLI_EXIT_INPUT;
    }
    return rc;
}
