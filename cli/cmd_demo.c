/* ossa demo: build the demo character (cli/demo/), write it in every
 * format ossa writes, read each file back, summarise it and draw it. */
#include "cli.h"
#include "demo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "Usage: ossa demo [-o DIR]\n"
    "\n"
    "Build the model that ships inside ossa, a small humanoid made by code\n"
    "(21 joints, a skinned and textured mesh, a looping 'walk' and 'idle'),\n"
    "write it into DIR (default 'demo', created if missing) in every format\n"
    "ossa writes, read each file back and print the summary of demo.iqm;\n"
    "then draw it: demo.png (standing), demo_walk.png (a contact sheet of\n"
    "the walk, from the side) and demo.gif (the walk). Prints the path of\n"
    "every file written. A quick check that an installation works.\n"
    "\n"
    "Options:\n"
    "  -o, --output DIR  output directory (default: demo)\n"
    "  -h, --help        show this help\n";

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

/* The paths written so far, in order. */
typedef struct written {
    char **paths;
    size_t count;
    int failed; /* out of memory while keeping a path */
} written;

static void note_written(void *user, const char *path)
{
    written *w = user;
    char **grown = realloc(w->paths, (w->count + 1) * sizeof *grown);
    char *copy = malloc(strlen(path) + 1);
    if (grown) w->paths = grown;
    if (!grown || !copy) {
        free(copy);
        w->failed = 1;
        return;
    }
    strcpy(copy, path);
    w->paths[w->count++] = copy;
}

static void written_free(written *w)
{
    for (size_t i = 0; i < w->count; i++) free(w->paths[i]);
    free(w->paths);
}

/* Whether a file ending in `ext` was written already. */
static int has_extension(const written *w, const char *ext)
{
    size_t n = strlen(ext);
    for (size_t i = 0; i < w->count; i++) {
        size_t len = strlen(w->paths[i]);
        if (len >= n && strcmp(w->paths[i] + len - n, ext) == 0) return 1;
    }
    return 0;
}

/* "dir/name", without doubling a '/' that ends `dir`. */
static void join_path(char *path, size_t size, const char *dir, const char *name)
{
    size_t len = strlen(dir);
    snprintf(path, size, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", name);
}

/* Writes the model as dir/demo.EXT in `format` (EXT its first extension)
 * and reads that file back; the summary of the IQM file is printed.
 * Formats whose files an earlier format's write already made (the
 * illEngine skeleton and animations, md5anim) are left out. Returns 0 or
 * CLI_EXIT_INPUT. */
static int write_format(const ossa_model *model, ossa_format format, const char *dir, written *w)
{
    char ext[32];
    snprintf(ext, sizeof ext, "%s", ossa_format_extensions(format));
    ext[strcspn(ext, " ")] = 0;
    if (!ext[0] || has_extension(w, ext)) return 0;
    char name[64], path[4096];
    snprintf(name, sizeof name, "demo%s", ext);
    join_path(path, sizeof path, dir, name);

    ossa_write_options options;
    memset(&options, 0, sizeof options);
    options.format = format;
    options.wrote = note_written;
    options.user = w;
    ossa_error error;
    if (ossa_write_file(model, path, &options, &error) != OSSA_OK) {
        if (!error.file[0]) snprintf(error.file, sizeof error.file, "%.255s", path);
        cli_report_error(&error);
        return CLI_EXIT_INPUT;
    }
    if (w->failed) {
        cli_error("out of memory");
        return CLI_EXIT_INPUT;
    }
    ossa_model *back = cli_load(path, NULL, NULL);
    if (!back) return CLI_EXIT_INPUT;
    if (format == OSSA_FORMAT_IQM) cli_info_print_text(stdout, path, back);
    ossa_model_free(back);
    return 0;
}

/* The pictures: the character standing (the first frame of "idle"), a
 * contact sheet of the walk seen from the side and the walk as a GIF. */
static int render_pictures(const ossa_model *model, const char *dir, written *w)
{
    char path[4096];
    cli_render_job job;
    cli_render_job_defaults(&job);
    job.model = model;
    job.output = path;
    job.use_frame = 1;
    job.animation = cli_find_animation(model, "idle");
    join_path(path, sizeof path, dir, "demo.png");
    int rc = job.animation < 0 ? CLI_EXIT_INPUT : cli_render(&job);
    if (!rc) note_written(w, path);

    job.animation = cli_find_animation(model, "walk");
    if (job.animation < 0) return CLI_EXIT_INPUT;
    job.width = job.height = 192;
    job.sheet = 16;
    job.camera.view = OSSA_RENDER_VIEW_SIDE;
    join_path(path, sizeof path, dir, "demo_walk.png");
    if (!rc) rc = cli_render(&job);
    if (!rc) note_written(w, path);

    job.sheet = 0;
    job.camera.view = OSSA_RENDER_VIEW_DEFAULT;
    job.width = job.height = 320;
    job.gif = 1;
    join_path(path, sizeof path, dir, "demo.gif");
    if (!rc) rc = cli_render(&job);
    if (!rc) note_written(w, path);
    return rc;
}

/* Every format, the pictures, then the list of files. */
static int run(const ossa_model *model, const char *dir)
{
    ossa_format formats[64];
    uint32_t n = ossa_format_list(formats, 64);
    written w = {NULL, 0, 0};
    int rc = 0;
    for (uint32_t i = 0; i < n && i < 64 && !rc; i++)
        if (ossa_format_can_write(formats[i])) rc = write_format(model, formats[i], dir, &w);
    if (!rc) rc = render_pictures(model, dir, &w);
    if (!rc && w.failed) cli_error("out of memory"), rc = CLI_EXIT_INPUT;
    for (size_t i = 0; i < w.count && !rc; i++) {
        fputs("wrote ", stdout);
        cli_print_text(stdout, w.paths[i]);
        fputc('\n', stdout);
    }
    written_free(&w);
    return rc;
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
    if (strlen(dir) > 3000) return cli_usage_error("demo", "the directory name is too long");

    if (make_dirs(dir) != 0) {
        cli_error("%s: cannot create the directory: %s", dir, strerror(errno));
        return CLI_EXIT_INPUT;
    }
    ossa_error error;
    ossa_model *model = demo_build_model(&error);
    if (!model) {
        /* Out of memory, or a bug in cli/demo/ or the builders. */
        snprintf(error.file, sizeof error.file, "demo model");
        cli_report_error(&error);
        return CLI_EXIT_INPUT;
    }
    rc = run(model, dir);
    ossa_model_free(model);
    if (fflush(stdout) != 0) {
        cli_error("cannot write the output");
        rc = CLI_EXIT_INPUT;
    }
    return rc;
}
