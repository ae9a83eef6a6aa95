/* ossa convert: read one or more inputs, merge them, edit, write one output;
 * or, with --each, convert every input on its own, several at once. */
#include "convert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char usage_output[] =
    "Usage: ossa convert [INPUT-OPTIONS] IN... -o OUT [OPTIONS]\n"
    "       ossa convert --each [INPUT-OPTIONS] IN... --out-dir DIR --format NAME [-j N]\n"
    "\n"
    "Read the inputs, merge each later one into the first (for example a\n"
    "mesh file, then files with more animations) and write OUT. Files are\n"
    "written to temporaries beside OUT and renamed into place, so an existing\n"
    "OUT is never left half written; an existing device or FIFO is written\n"
    "into, never replaced. IN may be a comma-separated list of mesh files\n"
    "that share a skeleton (body.iqe,head.iqe): their meshes are joined.\n"
    "\n"
    "Output:\n"
    "  -o, --output OUT   the file to write; '-' writes it to standard output\n"
    "                     (formats of one file; needs --format)\n"
    "  --format NAME      output format (default: from OUT's extension)\n"
    "  --bounds MODE      per-frame bounds to store (IQM): conservative\n"
    "                     (default), exact, stored (keep the input's) or none\n"
    "  --anim NAME|INDEX  the animation for formats that pick one (SOTC .anb,\n"
    "                     the first .illanim); a warning for formats that hold\n"
    "                     every animation or none\n"
    "  --time SECONDS     OBJ: the mesh posed at this moment of --anim (default:\n"
    "                     the bind pose)\n"
    "  --error E, --shell D\n"
    "                     .ossaclip: the clip's error bound and shell distance\n"
    "                     (model units; default 0.01% and 1% of the bind-pose\n"
    "                     size; see 'ossa clip-stats')\n"
    "  --embed            .gltf: the binary data inside the file as a data URI\n"
    "                     instead of OUT's .bin beside it\n"
    "  --images MODE      where the model's images go: beside (files beside OUT),\n"
    "                     embed (glTF, FBX: inside the file) or none; default:\n"
    "                     inside a .glb, an .fbx or an embedded .gltf, else\n"
    "                     beside. IQM, IQE, MD5 and SMD name the base colour\n"
    "                     image as the material\n"
    "  --sparse-channels  glTF: each animation keys only the channels it moves\n"
    "                     (default: every channel any animation moves, so that\n"
    "                     players switching actions keep no stale values)\n"
    "  -W, --write-option FORMAT.NAME=VALUE\n"
    "                     a format option for writing only: one that reading\n"
    "                     has too (given as --FORMAT-NAME or -O) applies to\n"
    "                     the inputs as well; -W ill.encoding=binary writes\n"
    "                     binary illEngine files from text ones\n"
    "  --keep-front       write the model facing where it faces (default: turned\n"
    "                     about Z to face the output format's front, as its\n"
    "                     players show it: README \"Where a model faces\")\n"
    "  --level N          OUT.png from a texture (.nto): its mip level N (default 0;\n"
    "                     an OUT ending in .png takes the one image the input holds)\n"
    "  -n, --no-clobber   replace no existing file: when any file of the output\n"
    "                     exists (OUT, or the files written beside it: .bin,\n"
    "                     one file per animation, ...), write nothing and fail.\n"
    "                     Without it existing files are replaced (--force, which\n"
    "                     says so, is taken too)\n"
    "\n";

static const char usage_edits[] =
    "Per input (the IQM SDK's options; each applies to the IN that follows it):\n"
    "  --name NAME        name of its animation (it must have exactly one)\n"
    "  --fps F            frame rate of its animations, and the rate at which it\n"
    "                     is read when it stores none or is resampled\n"
    "  --loop             its animations loop\n"
    "  --start N          first frame kept (0-based, default 0)\n"
    "  --end N            last frame kept, inclusive, counted from frame 0;\n"
    "                     -1 (default) is the last frame, and below that the\n"
    "                     last kept frame is count + N + 1 (-3 drops one frame)\n"
    "\n"
    "Whole model (after merging; each may be given several times and adds up):\n"
    "  -s, --scale S      multiply positions and joint translations by S (> 0)\n"
    "  -r, --rotate X,Y,Z turn the model by Euler angles in degrees\n"
    "                     (q = qz * qy * qx): vertices, the root joints and\n"
    "                     their animation\n"
    "  -t, --meshtrans X,Y,Z\n"
    "                     move the mesh (not the skeleton) by X,Y,Z; one number\n"
    "                     is Z, two are X,Y; applied after scale and rotation\n"
    "  --forcejoints      write the joints of an animation-only model (whose\n"
    "                     skeleton was made from its poses)\n"
    "  --drop-anim NAME|INDEX\n"
    "                     leave an animation out (repeatable; indices count\n"
    "                     before any is dropped)\n"
    "  --rename-anim OLD=NEW\n"
    "                     rename an animation (OLD: name or index; after drops)\n"
    "  --resample FPS     resample every animation at FPS frames per second\n"
    "\n";

static const char usage_batch[] =
    "Batch:\n"
    "  --each             convert every IN on its own (per-input options still\n"
    "                     apply to the IN that follows them) into --out-dir\n"
    "  --out-dir DIR      write DIR/NAME.EXT, NAME being the (first) input's\n"
    "                     file name without its extension, EXT the format's\n"
    "  --keep-dirs        write DIR/PATH/NAME.EXT instead, PATH the input's\n"
    "                     folder as given (for inputs of one name in several\n"
    "                     folders)\n"
    "  -j, --jobs N       conversions at once (default 1; 0 = one per CPU);\n"
    "                     outputs and messages do not depend on N\n"
    "\n"
    "With --each, a failed input does not stop the others; a summary line\n"
    "follows, and the exit status is 1 if any input failed.\n"
    "\n"
    "  -h, --help         show this help\n"
    "\n" CLI_LOAD_OPTIONS_HELP;

static void print_usage(void)
{
    fputs(usage_output, stdout);
    fputs(usage_edits, stdout);
    fputs(usage_batch, stdout);
}

/* The folder part of arg[0..len) kept under --out-dir: "" without
 * --keep-dirs; else the folders as given, without a leading "/" or "./",
 * each ".." as "up" (the output stays under --out-dir). Written to `out`
 * (which has room for 2 * len + 1), returns its length. */
static size_t kept_dirs(const convert_plan *plan, const char *arg, size_t len, char *out)
{
    size_t n = 0, base = 0;
    out[0] = 0;
    for (size_t i = 0; i < len; i++)
        if (arg[i] == '/') base = i + 1;
    if (!plan->keep_dirs) return 0;
    for (size_t i = 0; i < base;) {
        size_t e = i;
        while (e < base && arg[e] != '/') e++;
        size_t part = e - i;
        if (part == 2 && memcmp(arg + i, "..", 2) == 0) {
            memcpy(out + n, "up/", 3);
            n += 3;
        } else if (part && !(part == 1 && arg[i] == '.')) {
            memcpy(out + n, arg + i, part);
            n += part;
            out[n++] = '/';
        }
        i = e + 1;
    }
    out[n] = 0;
    return n;
}

/* DIR/[PATH/]NAME.EXT for an input (the first file of a comma list). */
static char *output_name(const convert_plan *plan, const char *arg)
{
    struct stat st;
    size_t len = strlen(arg);
    if (strchr(arg, ',') && stat(arg, &st) != 0) len = (size_t)(strchr(arg, ',') - arg);
    const char *base = arg;
    for (size_t i = 0; i < len; i++)
        if (arg[i] == '/') base = arg + i + 1;
    size_t stem = len - (size_t)(base - arg);
    for (size_t i = stem; i-- > 1;)
        if (base[i] == '.') {
            stem = i;
            break;
        }
    const char *exts = ossa_format_extensions(plan->write.format);
    size_t ext = strcspn(exts, " ");
    size_t dir = strlen(plan->out_dir);
    int slash = dir && plan->out_dir[dir - 1] != '/';
    char *path = malloc(2 * len + 2);
    char *out = path ? malloc(dir + (size_t)slash + 2 * len + 2 + stem + ext + 1) : NULL;
    if (!out) {
        free(path);
        return NULL;
    }
    kept_dirs(plan, arg, len, path);
    sprintf(out, "%s%s%s%.*s%.*s", plan->out_dir, slash ? "/" : "", path, (int)stem, base, (int)ext,
            exts);
    free(path);
    return out;
}

/* Creates the folders of `path` below `top` that --keep-dirs adds. */
static int make_parents(const char *top, const char *path)
{
    char *copy = strdup(path);
    if (!copy) return CLI_EXIT_INPUT;
    for (char *p = copy + strlen(top) + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            cli_error("%s: cannot create the folder: %s", copy, strerror(errno));
            free(copy);
            return CLI_EXIT_INPUT;
        }
        *p = '/';
    }
    free(copy);
    return 0;
}

/* --out-dir is created when missing (not its parents: a typo in them
 * should not spread directories around). */
static int make_out_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return 0;
    cli_error("%s: cannot create the output directory: %s", dir, strerror(errno));
    return CLI_EXIT_INPUT;
}

typedef struct each_run {
    const convert_plan *plan;
    char **outputs;
    int *clash;           /* per input: the first other input of its output, or -1 */
    convert_output *kept; /* per input: its files, until written in order */
} each_run;

/* Jobs convert in parallel; their files are written in input order by
 * each_finish, so that which of two inputs writing one file (images
 * beside the outputs, say) wins, or fails with --no-clobber, does not
 * depend on -j. Inputs whose outputs would clash fail alone: which one won
 * would be arbitrary, and the others need not pay for them. */
static int each_job(void *user, int index)
{
    const each_run *r = user;
    int other = r->clash[index];
    if (other >= 0) {
        const char *a = r->plan->inputs[index].arg, *b = r->plan->inputs[other].arg;
        const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
        size_t da = sa ? (size_t)(sa - a) : 0, db = sb ? (size_t)(sb - b) : 0;
        int other_folder = da != db || strncmp(a, b, da) != 0;
        cli_error("%s: it and '%s' would both write '%s', so neither is converted (%s)", a, b,
                  r->outputs[index],
                  other_folder && !r->plan->keep_dirs
                      ? "--keep-dirs keeps their folders apart under --out-dir"
                      : "their names differ only in the extension: convert one in another run");
        return CLI_EXIT_INPUT;
    }
    if (r->plan->keep_dirs && make_parents(r->plan->out_dir, r->outputs[index]))
        return CLI_EXIT_INPUT;
    return convert_run(r->plan, &r->plan->inputs[index], 1, r->outputs[index], 1,
                       &r->kept[index]);
}

static int each_finish(void *user, int index)
{
    const each_run *r = user;
    if (r->clash[index] >= 0) return CLI_EXIT_INPUT;
    return convert_commit(r->plan, r->outputs[index], &r->kept[index]);
}

static int run_each(const convert_plan *plan)
{
    int n = plan->num_inputs;
    char **outputs = calloc((size_t)n + 1, sizeof *outputs);
    int *clash = calloc((size_t)n + 1, sizeof *clash);
    int rc = outputs && clash ? 0 : CLI_EXIT_INPUT;
    for (int i = 0; !rc && i < n; i++) {
        outputs[i] = output_name(plan, plan->inputs[i].arg);
        if (!outputs[i]) rc = CLI_EXIT_INPUT;
    }
    if (rc) cli_error("out of memory");
    /* Inputs that would write one output: known before any work. */
    for (int i = 0; !rc && i < n; i++) {
        clash[i] = -1;
        for (int j = 0; j < n && clash[i] < 0; j++)
            if (j != i && strcmp(outputs[i], outputs[j]) == 0) clash[i] = j;
    }
    if (!rc) rc = make_out_dir(plan->out_dir);
    if (!rc) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        each_run r = {plan, outputs, clash, calloc((size_t)n + 1, sizeof *r.kept)};
        int failed = r.kept ? batch_run(n, plan->jobs, each_job, each_finish, &r) : n;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        fprintf(stderr, "ossa: %d input%s: %d converted, %d failed (%.1f s)\n", n,
                n == 1 ? "" : "s", n - failed, failed, s);
        rc = failed ? CLI_EXIT_INPUT : CLI_EXIT_OK;
        /* Jobs that failed before their files were written keep nothing,
         * but a failed finish may leave its copies. */
        for (int i = 0; r.kept && i < n; i++) convert_output_free(&r.kept[i]);
        free(r.kept);
    }
    for (int i = 0; outputs && i < n; i++) free(outputs[i]);
    free(outputs);
    free(clash);
    return rc;
}

int cmd_convert(int argc, char **argv)
{
    convert_plan plan;
    int rc = convert_plan_parse(argc, argv, print_usage, &plan);
    if (rc != CLI_GO_ON) return rc;
    if (plan.each) {
        rc = run_each(&plan);
    } else if (plan.out_dir) {
        char *out = output_name(&plan, plan.inputs[0].arg);
        rc = out ? make_out_dir(plan.out_dir) : CLI_EXIT_INPUT;
        if (!rc) rc = convert_run(&plan, plan.inputs, plan.num_inputs, out, 0, NULL);
        free(out);
    } else {
        rc = convert_run(&plan, plan.inputs, plan.num_inputs, plan.output, 0, NULL);
    }
    convert_plan_free(&plan);
    return rc;
}
