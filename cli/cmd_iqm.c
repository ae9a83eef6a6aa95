/* ossa iqm (and the ossa-iqm link): the IQM SDK's `iqm` command line, read
 * as the SDK reads it, done by `ossa convert`.
 *
 *   iqm [options] output.iqm mesh.iqe anim1.iqe ... animN.iqe
 *
 * The first argument that is not an option names the output, every later
 * one is an input; options may stand anywhere. Whole-model options: -s /
 * --scale N, -t / --meshtrans Z or X,Y,Z, -r / --rotate X,Y,Z (degrees),
 * -j / --forcejoints; per input (for the input that follows them): --name
 * A, --fps N, --loop, --start N, --end N; -h / --help. Long options are
 * matched without regard to case, a short option takes the next argument
 * as its value, as in the SDK. The output is an IQM whatever its name.
 * Exit status as the SDK's: 0 on success, 1 for anything else (usage
 * errors included); the usage text goes to standard output for --help and
 * to standard error, with status 1, when no argument is given.
 *
 * Where ossa is stricter than the SDK (a number that does not parse, a
 * scale that is not positive: the SDK reads 0 or clamps), the command
 * fails with a message instead of writing something else; options the SDK
 * does not know, and per-input options after the last input, are ignored
 * as the SDK ignores them, with a warning. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage[] =
    "Usage:\n"
    "\n"
    "ossa iqm [options] output.iqm mesh.iqe anim1.iqe ... animN.iqe\n"
    "ossa iqm [options] output.iqm mesh.md5mesh anim1.md5anim ... animN.md5anim\n"
    "ossa iqm [options] output.iqm mesh.smd anim1.smd ... animN.smd\n"
    "ossa iqm [options] output.iqm mesh.fbx anim1.fbx ... animN.fbx\n"
    "ossa iqm [options] output.iqm mesh.obj\n"
    "\n"
    "The IQM SDK's iqm converter's command line (also as ossa-iqm), done by\n"
    "'ossa convert': any input ossa reads (glTF, SOTC, illEngine, ... too),\n"
    "an IQM out. Several mesh files of one skeleton may be given as one\n"
    "comma-separated argument (mesh1.iqe,mesh2.iqe).\n"
    "\n"
    "Options:\n"
    "\n"
    "    -s N\n"
    "    --scale N\n"
    "      Sets the output scale to N (float).\n"
    "\n"
    "    -t Z\n"
    "    -t X,Y,Z\n"
    "    --meshtrans Z\n"
    "    --meshtrans X,Y,Z\n"
    "      Translates a mesh by X,Y,Z (floats). This does not affect the skeleton.\n"
    "\n"
    "    -r X,Y,Z\n"
    "    --rotate X,Y,Z\n"
    "      Rotate by Euler angles X,Y,Z in degrees (floats).\n"
    "\n"
    "    -j\n"
    "    --forcejoints\n"
    "      Forces the exporting of joint information in animation files without\n"
    "      meshes.\n"
    "\n"
    "Each animation file can be preceded by any combination of:\n"
    "\n"
    "    --name A      Sets the name of the animation to A.\n"
    "    --fps N       Sets the FPS of the animation to N (float).\n"
    "    --loop        Sets the loop flag for the animation.\n"
    "    --start N     Sets the first frame of the animation to N (integer).\n"
    "    --end N       Sets the last frame of the animation to N (integer).\n"
    "\n"
    "Exit status: 0 on success, 1 otherwise (as the SDK).\n";

/* The SDK's options: its long name, its short letter (0 = none), whether
 * it takes a value, whether it applies to the next input, and the `ossa
 * convert` option it becomes. */
static const struct {
    const char *name;
    char letter;
    int takes_value, per_input;
    const char *convert;
} sdk_options[] = {
    {"scale", 's', 1, 0, "--scale"},   {"meshtrans", 't', 1, 0, "--meshtrans"},
    {"rotate", 'r', 1, 0, "--rotate"}, {"forcejoints", 'j', 0, 0, "--forcejoints"},
    {"name", 0, 1, 1, "--name"},       {"fps", 0, 1, 1, "--fps"},
    {"loop", 0, 0, 1, "--loop"},       {"start", 0, 1, 1, "--start"},
    {"end", 0, 1, 1, "--end"},
};
#define NUM_SDK_OPTIONS (sizeof sdk_options / sizeof sdk_options[0])

/* The option `arg` names, -1 for none, -2 for help. */
static int find_sdk_option(const char *arg)
{
    if (arg[1] == '-') {
        if (strcasecmp(arg + 2, "help") == 0) return -2;
        for (size_t k = 0; k < NUM_SDK_OPTIONS; k++)
            if (strcasecmp(arg + 2, sdk_options[k].name) == 0) return (int)k;
        return -1;
    }
    if (arg[1] == 'h') return -2;
    for (size_t k = 0; k < NUM_SDK_OPTIONS; k++)
        if (sdk_options[k].letter && arg[1] == sdk_options[k].letter) return (int)k;
    return -1;
}

int cmd_iqm(int argc, char **argv)
{
    if (argc <= 1) {
        fputs(usage, stderr);
        return CLI_EXIT_INPUT;
    }
    /* The convert command line: per-input options, inputs, globals,
     * "-o OUT --format iqm --force". At most every argument plus 6. */
    const char **out = malloc(sizeof *out * ((size_t)argc + 8));
    const char **pending = malloc(sizeof *pending * ((size_t)argc + 1));
    if (!out || !pending) {
        free(out);
        free(pending);
        cli_error("out of memory");
        return CLI_EXIT_INPUT;
    }
    int n = 0, npending = 0, rc = 0, inputs = 0;
    const char *output = NULL;
    out[n++] = "convert";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == 0) {
            if (!output) {
                output = arg;
                continue;
            }
            /* The per-input options gathered so far go before this input. */
            for (int k = 0; k < npending; k++) out[n++] = pending[k];
            npending = 0;
            out[n++] = arg;
            inputs++;
            continue;
        }
        int k = find_sdk_option(arg);
        if (k == -2) {
            fputs(usage, stdout);
            free(out);
            free(pending);
            return CLI_EXIT_OK;
        }
        if (k < 0) {
            fprintf(stderr, "ossa iqm: warning: unknown option '%s' ignored (as the IQM SDK does)\n", arg);
            continue;
        }
        const char *value = NULL;
        if (sdk_options[k].takes_value) {
            if (i + 1 >= argc) continue; /* the SDK ignores an option without its value */
            value = argv[++i];
        }
        const char **to = sdk_options[k].per_input ? pending : out;
        int *count = sdk_options[k].per_input ? &npending : &n;
        to[(*count)++] = sdk_options[k].convert;
        if (value) to[(*count)++] = value;
    }
    if (npending)
        fprintf(stderr, "ossa iqm: warning: %s after the last input ignored (as the IQM SDK does)\n",
                pending[0]);
    if (!output) {
        cli_error("no output file specified");
        rc = CLI_EXIT_INPUT;
    } else if (inputs == 0) {
        cli_error("no input files specified");
        rc = CLI_EXIT_INPUT;
    }
    if (!rc) {
        out[n++] = "-o";
        out[n++] = output;
        out[n++] = "--format";
        out[n++] = "iqm";
        out[n++] = "--force"; /* the SDK replaces its output */
        out[n] = NULL;
        rc = cmd_convert(n, (char **)out);
        /* The SDK has one failure status. */
        if (rc == CLI_EXIT_USAGE) rc = CLI_EXIT_INPUT;
        if (!rc) printf("exported: %s\n", output);
    }
    free(out);
    free(pending);
    return rc;
}
