/* ossa render: a posed, skinned model as a PNG, a contact sheet or a GIF,
 * drawn by the library's software rasterizer. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "Usage: ossa render FILE... [-o OUT] [--anim NAME|INDEX] [--time T | --frame F]\n"
    "                   [--size WxH] [--view V] [--yaw DEG] [--pitch DEG] [--distance D]\n"
    "                   [--ortho] [--skeleton] [--plain] [--sheet N] [--gif] [--fps F]\n"
    "                   [--background COLOR] [--aa N] [--threads N] [--no-textures]\n"
    "                   [--up y|z] [-r|--rotate X,Y,Z]\n"
    "\n"
    "Draw the model, posed and skinned, with a software rasterizer (no GPU or\n"
    "display needed): one picture as a PNG, a contact sheet of frames as a PNG,\n"
    "or the whole animation as a GIF. Several inputs are merged first, as by\n"
    "'ossa convert' (a mesh, then a skeleton, then animation files). The camera\n"
    "is framed on the bounds of the whole animation, so every frame of a sheet\n"
    "or GIF is seen from the same place. Textures: glTF and FBX images, OBJ .mtl\n"
    "textures, and PNG, JPEG or TGA files a material names beside the model (the\n"
    "name, then the name with .tga, .png or .jpg: material Body finds Body.tga).\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT   the file to write (default: the first input's name with\n"
    "                     .png, or .gif with --gif, in the current directory)\n"
    "  --anim NAME|INDEX  the animation, by name or 0-based index (default: the\n"
    "                     first); a still without --anim, --time or --frame shows\n"
    "                     the bind pose\n"
    "  --time SECONDS     the moment of a still, from the animation's start\n"
    "  --frame F          the moment of a still as a frame position (fractions\n"
    "                     interpolate)\n"
    "  --size WxH         pixels (default 512x512; for --sheet, each cell: 256x256)\n"
    "  --view V           front, side, back, top or 34 (three-quarter, the default)\n"
    "  --yaw DEG          turn the camera about the up axis, counter-clockwise seen\n"
    "                     from above, from the front (replaces the view's)\n"
    "  --pitch DEG        raise the camera above the horizon (replaces the view's)\n"
    "  --distance D       camera distance in model units (default: fit the model)\n"
    "  --ortho            orthographic projection (default: perspective)\n"
    "  --skeleton         draw the bones on top of the model (a file without\n"
    "                     triangles, such as an animation file, shows its bones\n"
    "                     without asking)\n"
    "  --plain            the model alone on a uniform background: no grid, shadow,\n"
    "                     labels or skeleton (for pictures that tools compare)\n"
    "  --sheet N          a contact sheet of N evenly spaced frames, each labelled\n"
    "                     with its frame and time\n"
    "  --gif              an animated GIF of the whole animation\n"
    "  --fps F            frame rate of the GIF (default: the animation's); also the\n"
    "                     rate of inputs that are resampled when read\n"
    "  --background COLOR RRGGBB or RRGGBBAA in hex, or 'transparent' (default\n"
    "                     30343c)\n"
    "  --aa N             anti-aliasing: N x N samples per pixel, 1 (off) to 4\n"
    "                     (default 2)\n"
    "  --threads N        drawing threads, 1..64 (default: the CPUs, at most 8); the\n"
    "                     pictures do not depend on it\n"
    "  --no-textures      flat palette colours instead of textures\n"
    "  --up y|z           the model's up axis: y turns a Y-up model (that lies on\n"
    "                     its back) upright; default z, what readers convert to\n"
    "  -r, --rotate X,Y,Z turn the model by Euler angles in degrees before drawing,\n"
    "                     as convert --rotate does (after --up)\n"
    "\n"
    "OUT ends in .png (a still or --sheet) or .gif (--gif): a name that says\n"
    "another kind is refused. FILE may be a comma-separated list of mesh files\n"
    "that share a skeleton, as for convert. On a terminal, sheets and GIFs that\n"
    "take more than a second show their progress.\n"
    "  -h, --help         show this help\n"
    "\n"
    "Exit status: 0 success, 1 bad input or a file that cannot be written, 2 bad\n"
    "usage.\n";

enum {
    OPT_OUTPUT,
    OPT_ANIM,
    OPT_TIME,
    OPT_FRAME,
    OPT_SIZE,
    OPT_VIEW,
    OPT_YAW,
    OPT_PITCH,
    OPT_DISTANCE,
    OPT_ORTHO,
    OPT_SKELETON,
    OPT_PLAIN,
    OPT_SHEET,
    OPT_GIF,
    OPT_BACKGROUND,
    OPT_AA,
    OPT_THREADS,
    OPT_NO_TEXTURES,
    OPT_UP,
    OPT_ROTATE
};

static const cli_option options[] = {
    [OPT_OUTPUT] = {"--output", "-o", 1},
    [OPT_ANIM] = {"--anim", NULL, 1},
    [OPT_TIME] = {"--time", NULL, 1},
    [OPT_FRAME] = {"--frame", NULL, 1},
    [OPT_SIZE] = {"--size", NULL, 1},
    [OPT_VIEW] = {"--view", NULL, 1},
    [OPT_YAW] = {"--yaw", NULL, 1},
    [OPT_PITCH] = {"--pitch", NULL, 1},
    [OPT_DISTANCE] = {"--distance", NULL, 1},
    [OPT_ORTHO] = {"--ortho", NULL, 0},
    [OPT_SKELETON] = {"--skeleton", NULL, 0},
    [OPT_PLAIN] = {"--plain", NULL, 0},
    [OPT_SHEET] = {"--sheet", NULL, 1},
    [OPT_GIF] = {"--gif", NULL, 0},
    [OPT_BACKGROUND] = {"--background", NULL, 1},
    [OPT_AA] = {"--aa", NULL, 1},
    [OPT_THREADS] = {"--threads", NULL, 1},
    [OPT_NO_TEXTURES] = {"--no-textures", NULL, 0},
    [OPT_UP] = {"--up", NULL, 1},
    [OPT_ROTATE] = {"--rotate", "-r", 1},
    CLI_LOAD_OPTIONS,
    {NULL, NULL, 0},
};

static const struct {
    const char *name;
    ossa_render_view view;
} views[] = {
    {"front", OSSA_RENDER_VIEW_FRONT},
    {"side", OSSA_RENDER_VIEW_SIDE},
    {"back", OSSA_RENDER_VIEW_BACK},
    {"top", OSSA_RENDER_VIEW_TOP},
    {"34", OSSA_RENDER_VIEW_THREE_QUARTER},
    {"three-quarter", OSSA_RENDER_VIEW_THREE_QUARTER},
};

static int parse_uint(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    errno = 0;
    if (!(s[0] >= '0' && s[0] <= '9')) return 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || errno == ERANGE || v < lo || v > hi) return 0;
    *out = (uint32_t)v;
    return 1;
}

static int parse_size(const char *s, uint32_t *w, uint32_t *h)
{
    const char *x = strchr(s, 'x');
    if (!x || x == s) return 0;
    char first[16];
    if ((size_t)(x - s) >= sizeof first) return 0;
    memcpy(first, s, (size_t)(x - s));
    first[x - s] = 0;
    return parse_uint(first, 1, 8192, w) && parse_uint(x + 1, 1, 8192, h);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* RRGGBB, RRGGBBAA (a leading '#' allowed) or "transparent". */
static int parse_color(const char *s, uint8_t out[4], uint32_t *flags)
{
    if (strcmp(s, "transparent") == 0) {
        *flags |= OSSA_RENDER_TRANSPARENT;
        return 1;
    }
    if (s[0] == '#') s++;
    size_t n = strlen(s);
    if (n != 6 && n != 8) return 0;
    out[3] = 255;
    for (size_t i = 0; i < n; i += 2) {
        int a = hex_digit(s[i]), b = hex_digit(s[i + 1]);
        if (a < 0 || b < 0) return 0;
        out[i / 2] = (uint8_t)(a * 16 + b);
    }
    /* All zero would mean "the default" to the library. */
    if (!out[0] && !out[1] && !out[2] && !out[3]) *flags |= OSSA_RENDER_TRANSPARENT;
    return 1;
}

/* The first input's base name with its extension replaced. */
static char *default_output(const char *input, const char *ext)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char *out = malloc(stem + strlen(ext) + 1);
    if (!out) return NULL;
    memcpy(out, base, stem);
    strcpy(out + stem, ext);
    return out;
}

static int has_extension(const char *path, const char *ext)
{
    size_t n = strlen(path), k = strlen(ext);
    if (n <= k) return 0;
    for (size_t i = 0; i < k; i++) {
        char c = path[n - k + i];
        if ((c >= 'A' && c <= 'Z' ? (char)(c + 32) : c) != ext[i]) return 0;
    }
    return 1;
}

/* Fills the job from the command line; returns 0 or CLI_EXIT_USAGE. Every
 * check happens before any input is read. */
static int job_from_args(const cli_args *args, cli_render_job *job)
{
    const char *const *v = args->value;
    cli_render_job_defaults(job);
    if (v[OPT_TIME] && v[OPT_FRAME])
        return cli_usage_error("render", "--time and --frame exclude each other");
    if (v[OPT_GIF] && v[OPT_SHEET])
        return cli_usage_error("render", "--gif and --sheet exclude each other");
    if ((v[OPT_GIF] || v[OPT_SHEET]) && (v[OPT_TIME] || v[OPT_FRAME]))
        return cli_usage_error("render", "--%s shows the whole animation: --time and --frame "
                               "are for a still picture",
                               v[OPT_GIF] ? "gif" : "sheet");
    if (v[OPT_TIME] && !cli_parse_number(v[OPT_TIME], &job->time))
        return cli_usage_error("render", "--time needs a finite number of seconds, not '%s'",
                               v[OPT_TIME]);
    if (v[OPT_FRAME] && !cli_parse_number(v[OPT_FRAME], &job->frame))
        return cli_usage_error("render", "--frame needs a finite number, not '%s'", v[OPT_FRAME]);
    job->use_frame = v[OPT_FRAME] != NULL;
    if (v[OPT_SHEET] && !parse_uint(v[OPT_SHEET], 1, 1024, &job->sheet))
        return cli_usage_error("render", "--sheet needs a number of frames 1..1024, not '%s'",
                               v[OPT_SHEET]);
    if (job->sheet) job->width = job->height = 256;
    if (v[OPT_SIZE] && !parse_size(v[OPT_SIZE], &job->width, &job->height))
        return cli_usage_error("render", "--size needs WIDTHxHEIGHT, each 1..8192, not '%s'",
                               v[OPT_SIZE]);
    if (v[OPT_VIEW]) {
        size_t i, n = sizeof views / sizeof views[0];
        for (i = 0; i < n && strcmp(views[i].name, v[OPT_VIEW]) != 0; i++) continue;
        if (i == n)
            return cli_usage_error("render", "unknown view '%s' (front, side, back, top, 34)",
                                   v[OPT_VIEW]);
        job->camera.view = views[i].view;
    }
    double d;
    if (v[OPT_YAW]) {
        if (!cli_parse_number(v[OPT_YAW], &d))
            return cli_usage_error("render", "--yaw needs degrees, not '%s'", v[OPT_YAW]);
        job->camera.yaw = (float)d;
        job->camera.flags |= OSSA_RENDER_CAMERA_YAW;
    }
    if (v[OPT_PITCH]) {
        if (!cli_parse_number(v[OPT_PITCH], &d) || d < -90 || d > 90)
            return cli_usage_error("render", "--pitch needs degrees from -90 to 90, not '%s'",
                                   v[OPT_PITCH]);
        job->camera.pitch = (float)d;
        job->camera.flags |= OSSA_RENDER_CAMERA_PITCH;
    }
    if (v[OPT_DISTANCE]) {
        if (!cli_parse_number(v[OPT_DISTANCE], &d) || !(d > 0) || d > 1e30)
            return cli_usage_error("render", "--distance needs a positive number, not '%s'",
                                   v[OPT_DISTANCE]);
        job->camera.distance = (float)d;
    }
    if (v[OPT_ORTHO]) job->camera.flags |= OSSA_RENDER_CAMERA_ORTHOGRAPHIC;
    if (v[OPT_PLAIN]) {
        job->flags = 0;
        job->labels = 0;
        if (v[OPT_SKELETON])
            return cli_usage_error("render", "--plain draws the model alone: no --skeleton");
    }
    if (v[OPT_SKELETON]) job->flags |= OSSA_RENDER_SKELETON;
    if (v[OPT_NO_TEXTURES]) job->flags |= OSSA_RENDER_NO_TEXTURES;
    if (v[OPT_UP] && strcmp(v[OPT_UP], "y") != 0 && strcmp(v[OPT_UP], "z") != 0)
        return cli_usage_error("render", "--up is y or z, not '%s'", v[OPT_UP]);
    double q[4];
    if (v[OPT_ROTATE] && !cli_parse_rotation(v[OPT_ROTATE], q))
        return cli_usage_error("render", "--rotate wants X,Y,Z in degrees, not '%s'", v[OPT_ROTATE]);
    if (v[OPT_BACKGROUND] && !parse_color(v[OPT_BACKGROUND], job->background, &job->flags))
        return cli_usage_error("render",
                               "--background needs RRGGBB, RRGGBBAA or 'transparent', not '%s'",
                               v[OPT_BACKGROUND]);
    if (v[OPT_AA] && !parse_uint(v[OPT_AA], 1, 4, &job->supersample))
        return cli_usage_error("render", "--aa needs 1, 2, 3 or 4, not '%s'", v[OPT_AA]);
    if ((uint64_t)job->width * job->supersample > 16384 ||
        (uint64_t)job->height * job->supersample > 16384)
        return cli_usage_error("render", "--size times --aa exceeds 16384 pixels on a side");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    job->threads = cpus < 1 ? 1 : cpus > 8 ? 8 : (uint32_t)cpus;
    if (v[OPT_THREADS] && !parse_uint(v[OPT_THREADS], 1, 64, &job->threads))
        return cli_usage_error("render", "--threads needs 1..64, not '%s'", v[OPT_THREADS]);
    job->gif = v[OPT_GIF] != NULL;
    if (v[OPT_OUTPUT] && !v[OPT_OUTPUT][0])
        return cli_usage_error("render", "empty output file name");
    /* The file written is what its name says, or nothing. */
    const char *want = job->gif ? ".gif" : ".png";
    if (v[OPT_OUTPUT] && !has_extension(v[OPT_OUTPUT], want))
        return cli_usage_error("render", "'%s' does not end in %s, and %s is what %s writes",
                               v[OPT_OUTPUT], want, want + 1,
                               job->gif ? "--gif" : job->sheet ? "--sheet" : "a still");
    return 0;
}

/* The rotation of --up and --rotate, applied to the loaded model; 0 or an
 * exit code. */
static int turn_model(const cli_args *args, ossa_model *model)
{
    const char *up = args->value[OPT_UP], *rotate = args->value[OPT_ROTATE];
    double q[4] = {0, 0, 0, 1};
    if (up && strcmp(up, "y") == 0) {
        /* +90 degrees about X: Y up becomes Z up */
        q[0] = sin(3.14159265358979323846 / 4);
        q[3] = cos(3.14159265358979323846 / 4);
    }
    double r[4];
    if (rotate) {
        cli_parse_rotation(rotate, r);
        cli_quat_mul(r, q, q);
    }
    if (!up && !rotate) return 0;
    float f[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    ossa_error error;
    if (ossa_model_rotate(model, f, &error) != OSSA_OK) {
        cli_report_error(&error);
        return CLI_EXIT_INPUT;
    }
    return 0;
}

int cmd_render(int argc, char **argv)
{
    cli_args args;
    ossa_load_options load;
    int rc = cli_parse_input_args("render", usage, argc, argv, options, &args, &load);
    if (rc != CLI_GO_ON) return rc;
    cli_render_job job;
    rc = job_from_args(&args, &job);
    if (load.framerate > 0) job.fps = load.framerate;
    char *output = NULL;
    if (!rc) {
        output = args.value[OPT_OUTPUT] ? strdup(args.value[OPT_OUTPUT])
                                        : default_output(args.files[0], job.gif ? ".gif" : ".png");
        if (!output) cli_error("out of memory"), rc = CLI_EXIT_INPUT;
    }
    ossa_model *model = NULL;
    if (!rc) {
        model = cli_load_merged(args.files, args.num_files, &load);
        if (!model) rc = CLI_EXIT_INPUT;
    }
    if (!rc) rc = turn_model(&args, model);
    if (!rc) {
        const char *anim = args.value[OPT_ANIM];
        bool moment = args.value[OPT_TIME] || args.value[OPT_FRAME];
        if (anim) {
            job.animation = cli_find_animation(model, anim);
            if (job.animation < 0) rc = CLI_EXIT_INPUT;
        } else if (moment || job.sheet || job.gif) {
            if (model->num_animations == 0) {
                cli_error("%s: no animation to %s (the model has none)", args.files[0],
                          job.gif ? "animate" : job.sheet ? "lay out" : "sample");
                rc = CLI_EXIT_INPUT;
            }
            job.animation = 0;
        }
    }
    /* Nothing to draw but bones (an animation or skeleton file): the
     * bones, rather than an empty floor. */
    if (!rc && model->num_triangles == 0 && model->num_joints && !args.value[OPT_PLAIN])
        job.flags |= OSSA_RENDER_SKELETON;
    if (!rc) {
        job.model = model;
        job.model_path = args.files[0];
        job.output = output;
        rc = cli_render(&job);
    }
    ossa_model_free(model);
    free(output);
    cli_args_free(&args);
    return rc;
}
