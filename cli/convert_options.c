/* ossa convert's command line: the IQM SDK's options (per-input --name,
 * --fps, --loop, --start, --end; global --scale, --meshtrans, --rotate,
 * --forcejoints), animation edits, output and batch options. Everything is
 * checked here, before any file is read. */
#include "convert.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum {
    OPT_OUTPUT,
    OPT_FORMAT,
    OPT_BOUNDS,
    OPT_ANIM,
    OPT_EMBED,
    OPT_FORCE,
    OPT_OUT_DIR,
    OPT_EACH,
    OPT_JOBS,
    OPT_NAME,
    OPT_FPS,
    OPT_LOOP,
    OPT_START,
    OPT_END,
    OPT_SCALE,
    OPT_MESHTRANS,
    OPT_ROTATE,
    OPT_FORCEJOINTS,
    OPT_RENAME,
    OPT_DROP,
    OPT_RESAMPLE,
    OPT_IMAGES,
    OPT_SPARSE_CHANNELS,
    OPT_TIME,
    OPT_ERROR,
    OPT_SHELL,
    OPT_NO_CLOBBER,
    OPT_KEEP_DIRS,
    OPT_KEEP_FRONT,
    OPT_LEVEL
};

#define ORDERED_VALUE (CLI_VALUE | CLI_ORDERED)

/* The per-input options come before CLI_LOAD_OPTIONS so that convert's
 * --fps (the next input's frame rate, as in the IQM SDK) is found first. */
static const cli_option options[] = {
    [OPT_OUTPUT] = {"--output", "-o", CLI_VALUE},
    [OPT_FORMAT] = {"--format", NULL, CLI_VALUE},
    [OPT_BOUNDS] = {"--bounds", NULL, CLI_VALUE},
    [OPT_ANIM] = {"--anim", NULL, CLI_VALUE},
    [OPT_EMBED] = {"--embed", NULL, 0},
    [OPT_FORCE] = {"--force", NULL, 0},
    [OPT_OUT_DIR] = {"--out-dir", NULL, CLI_VALUE},
    [OPT_EACH] = {"--each", NULL, 0},
    [OPT_JOBS] = {"--jobs", "-j", CLI_VALUE},
    [OPT_NAME] = {"--name", NULL, ORDERED_VALUE},
    [OPT_FPS] = {"--fps", NULL, ORDERED_VALUE},
    [OPT_LOOP] = {"--loop", NULL, CLI_ORDERED},
    [OPT_START] = {"--start", NULL, ORDERED_VALUE},
    [OPT_END] = {"--end", NULL, ORDERED_VALUE},
    [OPT_SCALE] = {"--scale", "-s", ORDERED_VALUE},
    [OPT_MESHTRANS] = {"--meshtrans", "-t", ORDERED_VALUE},
    [OPT_ROTATE] = {"--rotate", "-r", ORDERED_VALUE},
    [OPT_FORCEJOINTS] = {"--forcejoints", NULL, 0},
    [OPT_RENAME] = {"--rename-anim", NULL, ORDERED_VALUE},
    [OPT_DROP] = {"--drop-anim", NULL, ORDERED_VALUE},
    [OPT_RESAMPLE] = {"--resample", NULL, CLI_VALUE},
    [OPT_IMAGES] = {"--images", NULL, CLI_VALUE},
    [OPT_SPARSE_CHANNELS] = {"--sparse-channels", NULL, 0},
    [OPT_TIME] = {"--time", NULL, CLI_VALUE},
    [OPT_ERROR] = {"--error", NULL, CLI_VALUE},
    [OPT_SHELL] = {"--shell", NULL, CLI_VALUE},
    [OPT_NO_CLOBBER] = {"--no-clobber", "-n", 0},
    [OPT_KEEP_DIRS] = {"--keep-dirs", NULL, 0},
    [OPT_KEEP_FRONT] = {"--keep-front", NULL, 0},
    [OPT_LEVEL] = {"--level", NULL, CLI_VALUE},
    CLI_LOAD_OPTIONS,
    {NULL, NULL, 0},
};

static const struct {
    const char *name;
    ossa_bounds_mode mode;
} bounds_modes[] = {
    {"conservative", OSSA_BOUNDS_CONSERVATIVE},
    {"exact", OSSA_BOUNDS_EXACT},
    {"stored", OSSA_BOUNDS_STORED},
    {"none", OSSA_BOUNDS_NONE},
};

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int usage_error(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cli_usage_error("convert", "%s", msg);
}

static int parse_integer(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!s[0] || *end || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

/* 1..max comma-separated finite numbers; returns how many, 0 on error. */
static int parse_list(const char *s, double *out, int max)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        if (n == max) return 0;
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char part[64];
        if (len == 0 || len >= sizeof part) return 0;
        memcpy(part, p, len);
        part[len] = 0;
        if (!cli_parse_number(part, &out[n++])) return 0;
        if (!comma) return n;
        p = comma + 1;
    }
}

/* One per-input option for the input it precedes. */
static int set_input_option(convert_input *in, int opt, const char *value)
{
    const char *name = options[opt].name;
    double d;
    long long n;
    switch (opt) {
    case OPT_NAME:
        if (!value[0]) return usage_error("--name needs a non-empty name");
        if (in->name && strcmp(in->name, value) != 0)
            return usage_error("--name given twice for '%s'", in->arg);
        in->name = value;
        return 0;
    case OPT_FPS:
        if (!cli_parse_number(value, &d) || !(d > 0) || d > 1e6)
            return usage_error("--fps wants a positive number, not '%s'", value);
        if (in->fps != 0 && in->fps != (float)d)
            return usage_error("--fps given twice for '%s'", in->arg);
        in->fps = (float)d;
        return 0;
    case OPT_LOOP:
        in->loop = 1;
        return 0;
    case OPT_START:
    case OPT_END:
        if (!parse_integer(value, &n) || (opt == OPT_START && n < 0))
            return opt == OPT_START
                       ? usage_error("--start wants a frame number 0 or more, not '%s'", value)
                       : usage_error("--end wants a frame number, not '%s'", value);
        if (opt == OPT_START) {
            if (in->has_start && in->start != n) return usage_error("%s given twice for '%s'", name, in->arg);
            in->has_start = 1;
            in->start = n;
        } else {
            if (in->has_end && in->end != n) return usage_error("%s given twice for '%s'", name, in->arg);
            in->has_end = 1;
            in->end = n;
        }
        return 0;
    }
    return 0;
}

/* A global option given (possibly several times: cumulative). */
static int set_global_option(convert_plan *plan, int opt, const char *value, double rot[4])
{
    double v[3];
    int n;
    switch (opt) {
    case OPT_SCALE:
        if (!cli_parse_number(value, v) || !(v[0] > 0))
            return usage_error("--scale wants a positive number, not '%s'", value);
        plan->scale = (float)(plan->scale * v[0]);
        return 0;
    case OPT_MESHTRANS:
        /* One value is Z, two are X and Y (iqm.md §15). */
        n = parse_list(value, v, 3);
        if (!n)
            return usage_error("--meshtrans wants Z, X,Y or X,Y,Z, not '%s'", value);
        if (n == 1) v[2] = v[0], v[0] = v[1] = 0;
        if (n == 2) v[2] = 0;
        for (int c = 0; c < 3; c++) plan->meshtrans[c] = (float)(plan->meshtrans[c] + v[c]);
        plan->has_meshtrans = 1;
        return 0;
    case OPT_ROTATE: {
        double q[4];
        if (!cli_parse_rotation(value, q))
            return usage_error("--rotate wants X,Y,Z in degrees, not '%s'", value);
        cli_quat_mul(q, rot, rot); /* later rotations apply after earlier ones */
        plan->has_rotation = 1;
        return 0;
    }
    case OPT_RENAME: {
        const char *eq = strchr(value, '=');
        if (!eq || eq == value || !eq[1])
            return usage_error("--rename-anim wants OLD=NEW, not '%s'", value);
        plan->renames[plan->num_renames++] = value;
        return 0;
    }
    case OPT_DROP:
        if (!value[0]) return usage_error("--drop-anim needs a name or index");
        plan->drops[plan->num_drops++] = value;
        return 0;
    }
    return 0;
}

static int is_per_input(int opt)
{
    return opt == OPT_NAME || opt == OPT_FPS || opt == OPT_LOOP || opt == OPT_START || opt == OPT_END;
}

static int output_options(const cli_args *args, convert_plan *plan)
{
    ossa_write_options *w = &plan->write;
    const char *out = args->value[OPT_OUTPUT], *format = args->value[OPT_FORMAT];
    const char *bounds = args->value[OPT_BOUNDS], *jobs = args->value[OPT_JOBS];
    plan->output = out;
    plan->out_dir = args->value[OPT_OUT_DIR];
    plan->each = args->value[OPT_EACH] != NULL;
    plan->anim = args->value[OPT_ANIM];
    plan->jobs = 1;
    if (jobs) {
        long long n;
        if (!parse_integer(jobs, &n) || n < 0 || n > 1024)
            return usage_error("-j wants 0 (one per CPU) to 1024 conversions at once, not '%s'", jobs);
        if (n == 0) {
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            n = cpus > 0 ? cpus : 1;
        }
        plan->jobs = (int)n;
    }
    if (out && plan->out_dir) return usage_error("-o and --out-dir exclude each other");
    if (plan->each && !plan->out_dir)
        return usage_error("--each writes one output per input: it needs --out-dir DIR");
    if (!out && !plan->out_dir)
        return usage_error("no output file (use -o OUT, or --out-dir DIR)");
    if (out && !out[0]) return usage_error("empty output file name");
    if (plan->out_dir && !plan->out_dir[0]) return usage_error("empty --out-dir");

    if (format) {
        w->format = ossa_format_from_name(format);
        if (w->format == OSSA_FORMAT_AUTO) return usage_error("unknown format '%s'", format);
    } else if (plan->out_dir) {
        return usage_error("--out-dir needs --format NAME (the outputs are named after the inputs)");
    } else if (strcmp(out, "-") == 0) {
        return usage_error("-o - (standard output) needs --format NAME");
    } else {
        w->format = ossa_format_from_name(out);
        /* OUT.png: the image of a texture (.nto), not a model format. */
        size_t n = strlen(out);
        plan->image_output =
            w->format == OSSA_FORMAT_AUTO && n > 4 && strcasecmp(out + n - 4, ".png") == 0;
        if (w->format == OSSA_FORMAT_AUTO && !plan->image_output)
            return usage_error("cannot tell the output format from '%s'; use --format", out);
    }

    w->bounds = OSSA_BOUNDS_DEFAULT;
    if (bounds) {
        size_t i, n = sizeof bounds_modes / sizeof bounds_modes[0];
        for (i = 0; i < n && strcmp(bounds, bounds_modes[i].name) != 0; i++) {
        }
        if (i == n)
            return usage_error("unknown bounds mode '%s' (conservative, exact, stored, none)",
                               bounds);
        w->bounds = bounds_modes[i].mode;
    }
    memcpy(plan->write_options, args->write_options, args->num_write_options * sizeof *args->write_options);
    w->format_options = plan->write_options;
    w->num_format_options = args->num_write_options;
    if (args->value[OPT_EMBED]) plan->write_options[w->num_format_options++] = (ossa_option){"gltf.embed", "on"};
    if (args->value[OPT_SPARSE_CHANNELS])
        plan->write_options[w->num_format_options++] = (ossa_option){"gltf.sparse_channels", "on"};
    const char *images = args->value[OPT_IMAGES];
    if (images) {
        if (strcmp(images, "beside") == 0) w->images = OSSA_IMAGES_BESIDE;
        else if (strcmp(images, "embed") == 0) w->images = OSSA_IMAGES_EMBED;
        else if (strcmp(images, "none") == 0) w->images = OSSA_IMAGES_NONE;
        else return usage_error("unknown --images mode '%s' (beside, embed, none)", images);
    }
    /* The mesh posed at a moment of --anim, for formats that take a pose
     * (OBJ): the writer skins it; the others ignore the option. */
    const char *time = args->value[OPT_TIME];
    if (time) {
        double t;
        if (!cli_parse_number(time, &t))
            return usage_error("--time needs a finite number of seconds, not '%s'", time);
        plan->write_options[w->num_format_options++] = (ossa_option){"obj.pose_time", time};
    }
    /* A compressed clip's bound and shell distance (the .ossaclip writer's
     * options), checked here as clip-stats checks them. */
    ossa_clip_options clip;
    if (cli_clip_options("convert", args->value[OPT_ERROR], args->value[OPT_SHELL], &clip))
        return CLI_EXIT_USAGE;
    if (args->value[OPT_ERROR])
        plan->write_options[w->num_format_options++] = (ossa_option){"ossaclip.error", args->value[OPT_ERROR]};
    if (args->value[OPT_SHELL])
        plan->write_options[w->num_format_options++] = (ossa_option){"ossaclip.shell", args->value[OPT_SHELL]};
    /* One rule for every output, one file or several: existing files are
     * replaced, as cp and other converters replace them (--force, which
     * once asked for it with several files, is still taken); with
     * --no-clobber nothing that exists is replaced. */
    if (args->value[OPT_NO_CLOBBER]) {
        if (args->value[OPT_FORCE]) return usage_error("--force and --no-clobber exclude each other");
        w->flags |= OSSA_WRITE_NO_REPLACE;
    }
    if (args->value[OPT_KEEP_FRONT]) w->flags |= OSSA_WRITE_KEEP_FRONT;
    plan->keep_dirs = args->value[OPT_KEEP_DIRS] != NULL;
    if (plan->keep_dirs && !plan->each) return usage_error("--keep-dirs goes with --each");
    return 0;
}

int convert_plan_parse(int argc, char **argv, void (*print_usage)(void), convert_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->scale = 1;
    cli_args args;
    int rc = cli_parse_args(argc, argv, options, &args);
    if (rc) return rc;
    if (args.help) {
        print_usage();
        cli_args_free(&args);
        return CLI_EXIT_OK;
    }
    if (args.num_files == 0) rc = cli_usage_error("convert", "no input file");
    if (!rc) rc = output_options(&args, plan);
    if (!rc) rc = cli_load_options_from_args("convert", options, &args, &plan->load);
    if (!rc) {
        /* The options outlive the arguments in the plan. */
        memcpy(plan->load_options, args.load_options, args.num_load_options * sizeof *args.load_options);
        plan->load.format_options = plan->load_options;
    }
    /* --level N: the mip level of a .nto texture that an OUT.png takes. */
    const char *level = args.value[OPT_LEVEL];
    long long lv;
    if (!rc && level && (!parse_integer(level, &lv) || lv < 0 || lv > 14))
        rc = usage_error("--level wants a mip level, 0 to 14, not '%s'", level);
    else if (!rc && level && !plan->image_output)
        rc = usage_error("--level picks the mip level of a texture written as OUT.png");
    else if (!rc && level && plan->load.num_format_options >= CLI_MAX_FORMAT_OPTIONS)
        rc = usage_error("too many format options");
    else if (!rc && level)
        plan->load_options[plan->load.num_format_options++] = (ossa_option){"sotc.nto_level", level};
    if (!rc) {
        /* One conversion reads and writes on every CPU; a batch runs one
         * conversion per thread instead. */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        uint32_t threads = plan->jobs > 1 || cpus < 1 ? 1 : cpus > 64 ? 64 : (uint32_t)cpus;
        plan->load.threads = plan->write.threads = threads;
    }
    const char *resample = args.value[OPT_RESAMPLE];
    double r;
    if (!rc && resample) {
        if (!cli_parse_number(resample, &r) || !(r > 0) || r > 1e6)
            rc = usage_error("--resample wants a positive frame rate, not '%s'", resample);
        else
            plan->resample = (float)r;
    }
    plan->force_joints = args.value[OPT_FORCEJOINTS] != NULL;
    plan->inputs = calloc((size_t)args.num_files + 1, sizeof *plan->inputs);
    plan->drops = calloc((size_t)args.num_ordered + 1, sizeof *plan->drops);
    plan->renames = calloc((size_t)args.num_ordered + 1, sizeof *plan->renames);
    if (!rc && (!plan->inputs || !plan->drops || !plan->renames)) {
        cli_error("out of memory");
        rc = CLI_EXIT_INPUT;
    }
    if (!rc) {
        plan->num_inputs = args.num_files;
        for (int i = 0; i < args.num_files; i++) plan->inputs[i].arg = args.files[i];
    }
    double rot[4] = {0, 0, 0, 1};
    for (int i = 0; !rc && i < args.num_ordered; i++) {
        const cli_occurrence *o = &args.ordered[i];
        if (!is_per_input(o->option)) {
            rc = set_global_option(plan, o->option, o->value, rot);
        } else if (o->files_before >= args.num_files) {
            rc = usage_error("%s applies to the input file that follows it, and none does",
                             options[o->option].name);
        } else {
            rc = set_input_option(&plan->inputs[o->files_before], o->option, o->value);
        }
    }
    for (int c = 0; c < 4; c++) plan->rotation[c] = (float)rot[c];
    if (!rc && plan->output && strcmp(plan->output, "-") == 0 && plan->each)
        rc = usage_error("-o - writes one output: it cannot go with --each");
    cli_args_free(&args);
    if (rc) {
        convert_plan_free(plan);
        return rc;
    }
    return CLI_GO_ON;
}

void convert_plan_free(convert_plan *plan)
{
    free(plan->inputs);
    free((void *)plan->drops);
    free((void *)plan->renames);
    memset(plan, 0, sizeof *plan);
}
