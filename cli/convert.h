/* ossa convert, in three parts: the command line (convert_options.c), one
 * conversion from inputs to a written output (convert_run.c), and running
 * many of them in parallel (batch.c). */
#ifndef OSSA_CLI_CONVERT_H
#define OSSA_CLI_CONVERT_H

#include "cli.h"

/* One input as given: a file, or a comma-joined list of mesh files whose
 * meshes are joined ("body.iqe,head.iqe"), with the per-input options
 * written before it. */
typedef struct convert_input {
    const char *arg;   /* as on the command line */
    const char *name;  /* --name: the name of its animation, or NULL */
    float fps;         /* --fps: frame rate of its animations (and for
                          loading); 0 = not given */
    int loop;          /* --loop */
    int has_start, has_end;
    long long start, end; /* --start, --end (the IQM SDK's rules) */
} convert_input;

typedef struct convert_plan {
    convert_input *inputs;
    int num_inputs;

    /* Global transforms, in the IQM SDK's order: scale, rotate, then
     * translate the meshes; each option is cumulative, as there. */
    float scale;        /* 1 = none */
    float rotation[4];  /* unit quaternion (identity = none) */
    float meshtrans[3];
    int has_rotation, has_meshtrans;
    int force_joints;
    /* Animation edits after merging: drops, then renames, then resampling. */
    const char **drops; /* --drop-anim NAME|INDEX */
    int num_drops;
    const char **renames; /* --rename-anim OLD=NEW */
    int num_renames;
    float resample; /* --resample FPS; 0 = none */

    ossa_load_options load;   /* shared reading options (framerate per input) */
    ossa_write_options write; /* format, bounds, flags; callbacks set per run */
    /* The format options `load` and `write` point to; room for the ones
     * convert's own flags add (--embed, --sparse-channels, --time) and one
     * more a run may add (gltf.embed for standard output). */
    ossa_option load_options[CLI_MAX_FORMAT_OPTIONS];
    ossa_option write_options[CLI_MAX_FORMAT_OPTIONS + 4];
    const char *anim;         /* --anim, or NULL */
    const char *output;       /* -o; "-" = stdout */
    const char *out_dir;      /* --out-dir */
    int keep_dirs;            /* --keep-dirs: inputs' folders kept under --out-dir */
    int each;                 /* --each: every input converted on its own */
    int jobs;                 /* -j: conversions at once (--each) */
    int image_output;         /* -o OUT.png: the model's one image (convert_image.c) */
} convert_plan;

/* Parses convert's command line into `plan`. Prints usage errors (and the
 * help, for --help, with print_usage). Returns CLI_GO_ON, or the exit code
 * with nothing left to free. */
int convert_plan_parse(int argc, char **argv, void (*print_usage)(void), convert_plan *plan);
void convert_plan_free(convert_plan *plan);

/* Loads inputs[0..n) (comma lists joined; on up to plan->load.threads
 * threads at once), applies each one's options, merges them into the
 * first, then applies the global edits. Prints warnings and errors to
 * cli_err(), in input order whatever the threads; NULL on failure. */
ossa_model *convert_load(const convert_plan *plan, const convert_input *inputs, int n);

/* Copies of the files of one write, kept to be written later. */
typedef struct convert_output {
    ossa_output_file *files;
    size_t count;
} convert_output;
void convert_output_free(convert_output *kept);

/* Loads, edits and writes one output ("-" = stdout). Messages go to
 * cli_err(), "wrote" lines to cli_out(). Returns an exit code. `list_all`
 * prints a "wrote" line for every file (else only when several are). With
 * `kept`, the files are not written but kept there for convert_commit. */
int convert_run(const convert_plan *plan, const convert_input *inputs, int n, const char *out,
                int list_all, convert_output *kept);
/* -o OUT.png: loads the inputs as convert_run does and writes the one
 * image the model holds (a .nto texture's level), which must be a PNG.
 * Returns an exit code. */
int convert_image(const convert_plan *plan, const convert_input *inputs, int n, const char *out);
/* Writes kept files (as ossa_write_file would have), prints a "wrote"
 * line per file and errors, frees them. Returns an exit code. */
int convert_commit(const convert_plan *plan, const char *out, convert_output *kept);

/* Runs job(user, i) for i in [0, count) on `threads` threads, then, in
 * this thread and in job order, finish(user, i) (may be NULL) for each job
 * that returned 0. Each job's cli_out() and cli_err() are buffered and
 * printed whole, in job order, before its finish, so that what is printed
 * and written does not depend on `threads`. On a terminal, stderr shows a
 * progress line (done, failed, elapsed, rate). Returns the number of jobs
 * whose job or finish returned nonzero. */
int batch_run(int count, int threads, int (*job)(void *user, int index),
              int (*finish)(void *user, int index), void *user);

#endif
