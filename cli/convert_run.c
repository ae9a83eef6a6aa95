/* One conversion: load the inputs (joining comma-listed meshes), apply
 * each input's options, merge, apply the global edits, write. */
#include "convert.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "ossa: FILE: message" for a failed edit. */
static void edit_failed(const char *file, const ossa_error *error)
{
    cli_error("%s: %s", file, error->message);
}

/* -- Loading -- */

/* The files of one input, with its own frame rate. */
static ossa_model *load_input(const convert_plan *plan, const convert_input *in)
{
    ossa_load_options lo = plan->load;
    if (in->fps > 0) lo.framerate = in->fps;
    return cli_load_list(in->arg, &lo);
}

/* --name, --fps, --loop, --start, --end on the animations of one input. */
static int apply_input_options(ossa_model *m, const convert_input *in)
{
    int given = in->name || in->fps > 0 || in->loop || in->has_start || in->has_end;
    if (!given) return 0;
    if (m->num_animations == 0) {
        fprintf(cli_err(),
                "ossa: %s: warning: it has no animation: --name, --fps, --loop, --start and "
                "--end before it are ignored\n",
                in->arg);
        return 0;
    }
    if (in->name && m->num_animations > 1) {
        fprintf(cli_err(), "ossa: %s: --name names one animation, and it has %u:", in->arg,
                m->num_animations);
        for (uint32_t i = 0; i < m->num_animations; i++) {
            fputs(i ? ", " : " ", cli_err());
            cli_print_text(cli_err(), m->animations[i].name);
        }
        fputs(" (--rename-anim OLD=NEW renames one of them)\n", cli_err());
        return CLI_EXIT_INPUT;
    }
    ossa_error error;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        ossa_animation *an = &m->animations[a];
        if (in->has_start || in->has_end) {
            uint32_t first, count;
            if (ossa_animation_range(an->num_frames, in->has_start ? in->start : 0,
                                     in->has_end ? in->end : -1, &first, &count, &error) ||
                ossa_model_trim_animation(m, a, first, count, &error)) {
                fprintf(cli_err(), "ossa: %s: animation '", in->arg);
                cli_print_text(cli_err(), an->name);
                fprintf(cli_err(), "' (%u frames): --start/--end: %s\n", an->num_frames,
                        error.message);
                return CLI_EXIT_INPUT;
            }
        }
        float fps = in->fps > 0 ? in->fps : an->framerate;
        uint32_t flags = an->flags | (in->loop ? (uint32_t)OSSA_ANIMATION_LOOP : 0);
        if ((in->fps > 0 || in->loop) && ossa_model_set_animation_timing(m, a, fps, flags, &error)) {
            edit_failed(in->arg, &error);
            return CLI_EXIT_INPUT;
        }
    }
    if (in->name && ossa_model_rename_animation(m, 0, in->name, &error)) {
        edit_failed(in->arg, &error);
        return CLI_EXIT_INPUT;
    }
    return 0;
}

/* --drop-anim (all resolved first, so that indices mean the merged
 * model's), then --rename-anim, --resample, --scale, --rotate,
 * --meshtrans and --forcejoints. */
static int apply_global(const convert_plan *plan, ossa_model *m, const char *label)
{
    ossa_error error;
    if (plan->num_drops) {
        char *drop = calloc(m->num_animations + 1, 1);
        if (!drop) {
            cli_error("out of memory");
            return CLI_EXIT_INPUT;
        }
        for (int i = 0; i < plan->num_drops; i++) {
            int k = cli_find_animation(m, plan->drops[i]);
            if (k < 0) {
                free(drop);
                return CLI_EXIT_INPUT;
            }
            drop[k] = 1;
        }
        for (uint32_t a = m->num_animations; a-- > 0;)
            if (drop[a]) ossa_model_remove_animation(m, a, NULL);
        free(drop);
    }
    for (int i = 0; i < plan->num_renames; i++) {
        const char *spec = plan->renames[i], *eq = strchr(spec, '=');
        char *old = strndup(spec, (size_t)(eq - spec));
        int k = old ? cli_find_animation(m, old) : -1;
        free(old);
        if (k < 0) return CLI_EXIT_INPUT;
        if (ossa_model_rename_animation(m, (uint32_t)k, eq + 1, &error)) {
            cli_error("--rename-anim %s: %s", spec, error.message);
            return CLI_EXIT_INPUT;
        }
    }
    for (uint32_t a = 0; plan->resample > 0 && a < m->num_animations; a++)
        if (ossa_model_resample_animation(m, a, plan->resample, &error)) {
            edit_failed(label, &error);
            return CLI_EXIT_INPUT;
        }
    if ((plan->scale != 1 && ossa_model_scale(m, plan->scale, &error)) ||
        (plan->has_rotation && ossa_model_rotate(m, plan->rotation, &error)) ||
        (plan->has_meshtrans && ossa_model_translate_meshes(m, plan->meshtrans, &error))) {
        edit_failed(label, &error);
        return CLI_EXIT_INPUT;
    }
    if (plan->force_joints) ossa_model_force_joints(m);
    return 0;
}

/* -- Loading inputs at once --
 *
 * The inputs are independent until they are merged: with load threads,
 * they are read on up to that many threads at once (each load gets its
 * share of the threads), each input's messages kept in its own buffers.
 * The calling thread then goes through the inputs in order as a serial
 * run does: it prints what the input's load printed, applies its options
 * and merges it, and stops at the first that fails, so that what is
 * printed does not depend on the number of threads. Once an input fails,
 * inputs after it are not started. */

typedef struct loaded {
    ossa_model *model;
    char *out, *err; /* what loading it printed */
    size_t out_size, err_size;
    int captured; /* loaded here, its messages in out and err */
} loaded;

typedef struct load_pool {
    convert_plan each; /* the plan, with each load's share of the threads */
    const convert_input *inputs;
    loaded *results;
    pthread_mutex_t lock;
    int n, next, failed; /* failed: the first input that failed (n: none) */
} load_pool;

static void *load_worker(void *arg)
{
    load_pool *p = arg;
    FILE *prev_out = cli_out(), *prev_err = cli_err();
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int i = p->next < p->failed ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n) break;
        loaded *r = &p->results[i];
        FILE *out = open_memstream(&r->out, &r->out_size);
        FILE *err = open_memstream(&r->err, &r->err_size);
        if (out && err) {
            cli_set_streams(out, err);
            r->model = load_input(&p->each, &p->inputs[i]);
            cli_set_streams(prev_out, prev_err);
        }
        if (out) fclose(out);
        if (err) fclose(err);
        if (!out || !err) { /* the calling thread loads it again */
            ossa_model_free(r->model);
            free(r->out), free(r->err);
            memset(r, 0, sizeof *r);
            continue;
        }
        r->captured = 1;
        if (!r->model) {
            pthread_mutex_lock(&p->lock);
            if (i < p->failed) p->failed = i;
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

/* Loads every input on up to plan->load.threads threads; NULL when that
 * is not worth it (one input, one thread) or memory runs short, and the
 * inputs are then loaded one by one. */
static loaded *load_at_once(const convert_plan *plan, const convert_input *inputs, int n)
{
    uint32_t threads = plan->load.threads;
    if (n < 2 || threads < 2) return NULL;
    int workers = threads < (uint32_t)n ? (int)threads : n;
    load_pool p;
    memset(&p, 0, sizeof p);
    p.each = *plan;
    p.each.load.threads = threads / (uint32_t)workers;
    p.inputs = inputs;
    p.n = p.failed = n;
    p.results = calloc((size_t)n, sizeof *p.results);
    pthread_t *pool = calloc((size_t)workers, sizeof *pool);
    if (!p.results || !pool || pthread_mutex_init(&p.lock, NULL) != 0) {
        free(p.results);
        free(pool);
        return NULL;
    }
    int started = 0;
    while (started + 1 < workers && pthread_create(&pool[started], NULL, load_worker, &p) == 0)
        started++;
    load_worker(&p);
    for (int t = 0; t < started; t++) pthread_join(pool[t], NULL);
    pthread_mutex_destroy(&p.lock);
    free(pool);
    return p.results;
}

/* The model of input i: loaded at once (its messages printed now) or
 * here. */
static ossa_model *take_input(const convert_plan *plan, const convert_input *inputs,
                              loaded *results, int i)
{
    if (!results || !results[i].captured) return load_input(plan, &inputs[i]);
    loaded *r = &results[i];
    if (r->out_size) fwrite(r->out, 1, r->out_size, cli_out());
    if (r->err_size) fwrite(r->err, 1, r->err_size, cli_err());
    ossa_model *m = r->model;
    r->model = NULL;
    return m;
}

static void free_loaded(loaded *results, int n)
{
    for (int i = 0; results && i < n; i++) {
        ossa_model_free(results[i].model);
        free(results[i].out);
        free(results[i].err);
    }
    free(results);
}

/* The inputs merged in order, as loaded by load_at_once (or one by one
 * when `results` is NULL). */
static ossa_model *convert_merge(const convert_plan *plan, const convert_input *inputs, int n,
                                 loaded *results)
{
    ossa_model *dst = NULL;
    for (int i = 0; i < n; i++) {
        ossa_model *m = take_input(plan, inputs, results, i);
        if (!m || apply_input_options(m, &inputs[i])) {
            ossa_model_free(m);
            ossa_model_free(dst);
            return NULL;
        }
        if (!dst) {
            dst = m;
            continue;
        }
        uint32_t before = dst->num_warnings;
        ossa_error error;
        memset(&error, 0, sizeof error);
        ossa_status st = ossa_model_merge(dst, m, &error);
        ossa_model_free(m);
        if (st != OSSA_OK) {
            /* A merge failure is about the file being merged in. */
            snprintf(error.file, sizeof error.file, "%s", inputs[i].arg);
            cli_report_error(&error);
            ossa_model_free(dst);
            return NULL;
        }
        cli_print_warnings(inputs[i].arg, dst, before);
    }
    if (dst && apply_global(plan, dst, inputs[0].arg)) {
        ossa_model_free(dst);
        return NULL;
    }
    return dst;
}

ossa_model *convert_load(const convert_plan *plan, const convert_input *inputs, int n)
{
    loaded *results = load_at_once(plan, inputs, n);
    ossa_model *dst = convert_merge(plan, inputs, n, results);
    free_loaded(results, n);
    return dst;
}

/* -- Writing -- */

/* What a write reports to: its messages' file name, the files written,
 * and (batch jobs) where the files are kept instead. */
typedef struct write_report {
    const char *out;
    char **paths;
    size_t count;
    convert_output *kept;
} write_report;

static void print_diagnostic(void *user, const ossa_diagnostic *d)
{
    const write_report *r = user;
    fprintf(cli_err(), "ossa: %s: %s: %s\n", r->out,
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
        return; /* the file is written; only its line is lost */
    }
    r->paths = grown;
    r->paths[r->count++] = copy;
}

/* -o -: the one file goes to standard output; a format that needs more
 * files cannot. */
static ossa_status to_stdout(void *user, const ossa_output_file *files, size_t count,
                             ossa_error *error)
{
    (void)user;
    if (count != 1) {
        snprintf(error->message, sizeof error->message,
                 "this output is %zu files (%s, ...): standard output takes one; name a file "
                 "with -o",
                 count, count > 1 ? files[1].path : "none");
        error->code = OSSA_ERROR_ARGUMENT;
        error->severity = OSSA_SEVERITY_ERROR;
        error->offset = OSSA_NO_OFFSET;
        snprintf(error->file, sizeof error->file, "-");
        return OSSA_FAILED;
    }
    if (fwrite(files[0].data, 1, files[0].size, stdout) != files[0].size || fflush(stdout) != 0) {
        snprintf(error->message, sizeof error->message, "cannot write to standard output");
        error->code = OSSA_ERROR_IO;
        error->severity = OSSA_SEVERITY_ERROR;
        error->offset = OSSA_NO_OFFSET;
        snprintf(error->file, sizeof error->file, "-");
        return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* Keeps copies of the files a write would make (batch jobs: written in
 * input order afterwards by convert_commit). */
static ossa_status keep_files(void *user, const ossa_output_file *files, size_t count,
                              ossa_error *error)
{
    convert_output *kept = ((write_report *)user)->kept;
    kept->files = calloc(count + 1, sizeof *kept->files);
    for (size_t i = 0; kept->files && i < count; i++) {
        char *path = strdup(files[i].path);
        void *data = malloc(files[i].size + 1);
        kept->files[kept->count++] = (ossa_output_file){path, data, files[i].size};
        if (!path || !data) break;
        memcpy(data, files[i].data, files[i].size);
    }
    if (!kept->files || kept->count < count || !kept->files[count - 1].path ||
        !kept->files[count - 1].data) {
        snprintf(error->message, sizeof error->message, "out of memory");
        error->code = OSSA_ERROR_NOMEM;
        error->severity = OSSA_SEVERITY_ERROR;
        error->offset = OSSA_NO_OFFSET;
        return OSSA_FAILED;
    }
    return OSSA_OK;
}

void convert_output_free(convert_output *kept)
{
    for (size_t i = 0; i < kept->count; i++) {
        free((void *)kept->files[i].path);
        free((void *)kept->files[i].data);
    }
    free(kept->files);
    kept->files = NULL;
    kept->count = 0;
}

/* Prints a failed write, with the way out when files exist. */
static void write_failed(ossa_error *error, const char *out)
{
    if (!error->file[0]) snprintf(error->file, sizeof error->file, "%s", out);
    cli_report_error(error);
    if (error->code == OSSA_ERROR_EXISTS) cli_error("%s: without --no-clobber they are replaced", out);
}

/* A format that wrote several files lists them all, so that nothing
 * appears beside OUT unannounced. */
static void print_written(write_report *report, int list_all)
{
    for (size_t i = 0; i < report->count; i++) {
        if (list_all || report->count > 1) fprintf(cli_out(), "wrote %s\n", report->paths[i]);
        free(report->paths[i]);
    }
    free(report->paths);
    report->paths = NULL;
    report->count = 0;
}

int convert_commit(const convert_plan *plan, const char *out, convert_output *kept)
{
    ossa_write_options w = plan->write;
    write_report report = {out, NULL, 0, kept};
    w.diagnostic = print_diagnostic;
    w.wrote = note_written;
    w.user = &report;
    ossa_error error;
    int rc = CLI_EXIT_OK;
    if (ossa_write_output_files(kept->files, kept->count, &w, &error) != OSSA_OK) {
        write_failed(&error, out);
        rc = CLI_EXIT_INPUT;
    }
    print_written(&report, 1);
    convert_output_free(kept);
    return rc;
}

int convert_run(const convert_plan *plan, const convert_input *inputs, int n, const char *out,
                int list_all, convert_output *kept)
{
    if (plan->image_output) return convert_image(plan, inputs, n, out);
    ossa_model *model = convert_load(plan, inputs, n);
    if (!model) return CLI_EXIT_INPUT;
    ossa_write_options w = plan->write;
    ossa_option format_options[CLI_MAX_FORMAT_OPTIONS + 4];
    write_report report = {out, NULL, 0, kept};
    w.diagnostic = print_diagnostic;
    w.wrote = note_written;
    w.user = &report;
    int to_terminal = strcmp(out, "-") == 0;
    if (to_terminal) {
        w.output = to_stdout;
        /* one .gltf file, its buffer inside */
        memcpy(format_options, w.format_options, w.num_format_options * sizeof *format_options);
        format_options[w.num_format_options++] = (ossa_option){"gltf.embed", "on"};
        w.format_options = format_options;
        /* nothing can go beside standard output: glTF keeps its images
         * inside, other formats write none */
        if (w.images == OSSA_IMAGES_DEFAULT)
            w.images = w.format == OSSA_FORMAT_GLTF || w.format == OSSA_FORMAT_GLB ? OSSA_IMAGES_EMBED
                                                                                 : OSSA_IMAGES_NONE;
        report.out = "-";
    } else if (kept) {
        w.output = keep_files;
    }
    int rc = CLI_EXIT_OK;
    /* --anim where the format writes every animation (or none) changes
     * nothing: say so rather than fail on a name it never uses. */
    uint32_t holds = ossa_format_holds(w.format);
    if (plan->anim && holds && !(holds & OSSA_HOLDS_PICKS_ANIMATION)) {
        fprintf(cli_err(), "ossa: %s: warning: --anim is ignored: %s files hold %s\n", report.out,
                ossa_format_name(w.format),
                holds & OSSA_HOLDS_ANIMATIONS ? "every animation" : "no animation");
    } else if (plan->anim) {
        int index = cli_find_animation(model, plan->anim);
        if (index < 0) rc = CLI_EXIT_INPUT;
        w.animation = index < 0 ? 0 : (uint32_t)index;
    }
    ossa_error error;
    memset(&error, 0, sizeof error);
    if (!rc && ossa_write_file(model, out, &w, &error) != OSSA_OK) {
        write_failed(&error, out);
        rc = CLI_EXIT_INPUT;
    }
    print_written(&report, list_all);
    ossa_model_free(model);
    return rc;
}
