/* ossa pose: the pose of a skeleton at one moment of an animation (or at
 * rest): every joint's parent-relative transform and model matrix. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: ossa pose FILE... [--anim NAME|INDEX] (--frame F | --time SECONDS)\n"
    "                 [--loop | --clamp] [--error E] [--json]\n"
    "\n"
    "Print every joint's local (parent-relative) transform and model-space\n"
    "matrix at one moment of an animation; with neither --frame nor --time,\n"
    "the pose at rest (the rest pose of a glTF file whose nodes rest in\n"
    "another pose than its skin was bound in, else the bind pose). Several\n"
    "inputs are merged first, as by 'ossa convert' (a mesh, then a\n"
    "skeleton, then animation files).\n"
    "\n"
    "Options:\n"
    "  --anim NAME|INDEX  the animation, by name or 0-based index (default:\n"
    "                     the first one)\n"
    "  --frame F          frame position within the animation, 0-based;\n"
    "                     fractions interpolate between frames\n"
    "  --time SECONDS     time from the animation's start\n"
    "  --loop, --clamp    past the last frame, wrap to frame 0 or stay on the\n"
    "                     last frame (default: the animation's loop flag);\n"
    "                     a frame rate of 0 counts as 30 frames per second\n"
    "  --error E          sample the animation compressed with error bound E\n"
    "                     (model units; see 'ossa clip-stats') instead of its\n"
    "                     float frames\n"
    "  --json             print JSON: {\"joints\": [{\"name\", \"parent\", \"local\":\n"
    "                     {\"translation\", \"rotation\", \"scale\"}, \"model\": 16\n"
    "                     numbers, column-major}, ...]}\n"
    "  -h, --help         show this help\n"
    "\n"
    "Rotations are unit quaternions x, y, z, w; matrices are T * R * S with\n"
    "column vectors. Sampling uses the exact (reference) slerp, so the output\n"
    "does not depend on the CPU.\n"
    "\n" CLI_LOAD_OPTIONS_HELP;

enum { OPT_ANIM, OPT_FRAME, OPT_TIME, OPT_LOOP, OPT_CLAMP, OPT_JSON, OPT_ERROR };

/* The frame position `p` wrapped (loop) or clamped as the runtime does. */
static double wrap_frame(double p, uint32_t frames, int loops)
{
    double n = frames;
    if (loops) {
        p = fmod(p, n);
        if (p < 0) p += n;
        return p >= n ? 0 : p;
    }
    return p < 0 ? 0 : p > n - 1 ? n - 1 : p;
}

static void json_numbers(FILE *out, const float *v, int n)
{
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        if (i) fputs(", ", out);
        cli_json_number(out, v[i]);
    }
    fputc(']', out);
}

typedef struct pose_info {
    const char *animation; /* NULL for the pose at rest */
    int index;
    double frame, time;
    const char *wrap;
} pose_info;

static void print_json(FILE *out, const ossa_model *model, const pose_info *info,
                       const ossa_transform *local, const float (*matrices)[16])
{
    fputs("{\n  \"animation\": ", out);
    if (info->animation) {
        cli_json_string(out, info->animation);
        fprintf(out, ",\n  \"animation_index\": %d,\n  \"frame\": ", info->index);
        cli_json_number(out, info->frame);
        fputs(",\n  \"time\": ", out);
        cli_json_number(out, info->time);
        fprintf(out, ",\n  \"wrap\": \"%s\"", info->wrap);
    } else {
        fprintf(out, "null,\n  \"pose\": \"%s\"", model->rest_pose ? "rest" : "bind");
    }
    fputs(",\n  \"joints\": [", out);
    for (uint32_t j = 0; j < model->num_joints; j++) {
        fprintf(out, "%s\n    {\"name\": ", j ? "," : "");
        cli_json_string(out, model->joints[j].name);
        fprintf(out, ", \"parent\": %" PRId32 ",\n     \"local\": {\"translation\": ",
                model->joints[j].parent);
        json_numbers(out, local[j].translation, 3);
        fputs(", \"rotation\": ", out);
        json_numbers(out, local[j].rotation, 4);
        fputs(", \"scale\": ", out);
        json_numbers(out, local[j].scale, 3);
        fputs("},\n     \"model\": ", out);
        json_numbers(out, matrices[j], 16);
        fputc('}', out);
    }
    fputs(model->num_joints ? "\n  ]\n}\n" : "]\n}\n", out);
}

static void print_text(FILE *out, const ossa_model *model, const pose_info *info,
                       const ossa_transform *local, const float (*matrices)[16])
{
    if (info->animation) {
        fputs("animation: \"", out);
        cli_print_text(out, info->animation);
        fprintf(out, "\" (%d), frame %.9g, time %.9g s, %s\n", info->index, info->frame,
                info->time, info->wrap);
    } else {
        fputs(model->rest_pose ? "rest pose\n" : "bind pose\n", out);
    }
    fprintf(out, "joints: %" PRIu32 "\n", model->num_joints);
    if (!model->num_joints) return;
    fprintf(out, "%5s  %-16s %6s  %-44s %-58s %-44s %s\n", "joint", "name", "parent",
            "translation", "rotation (x y z w)", "scale", "model-space position");
    for (uint32_t j = 0; j < model->num_joints; j++) {
        const ossa_transform *t = &local[j];
        char name[64];
        snprintf(name, sizeof name, "%s", model->joints[j].name[0] ? model->joints[j].name : "-");
        for (char *c = name; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7F) *c = '?';
        char tr[64], ro[80], sc[64], mp[64];
        snprintf(tr, sizeof tr, "%.9g %.9g %.9g", t->translation[0], t->translation[1],
                 t->translation[2]);
        snprintf(ro, sizeof ro, "%.9g %.9g %.9g %.9g", t->rotation[0], t->rotation[1],
                 t->rotation[2], t->rotation[3]);
        snprintf(sc, sizeof sc, "%.9g %.9g %.9g", t->scale[0], t->scale[1], t->scale[2]);
        snprintf(mp, sizeof mp, "%.9g %.9g %.9g", matrices[j][12], matrices[j][13],
                 matrices[j][14]);
        fprintf(out, "%5" PRIu32 "  %-16s %6" PRId32 "  %-44s %-58s %-44s %s\n", j, name,
                model->joints[j].parent, tr, ro, sc, mp);
    }
}

/* Samples (or takes the pose at rest) and prints. Returns an exit code. */
static int pose_model(const ossa_model *model, const cli_args *args, int anim, double frame,
                      double time, int use_frame, ossa_wrap wrap)
{
    uint32_t n = model->num_joints;
    ossa_transform *local = calloc(n ? n : 1, sizeof *local);
    float(*matrices)[16] = calloc(n ? n : 1, sizeof *matrices);
    int32_t *parents = calloc(n ? n : 1, sizeof *parents);
    if (!local || !matrices || !parents) {
        free(local), free(matrices), free(parents);
        cli_error("out of memory");
        return CLI_EXIT_INPUT;
    }
    pose_info info = {NULL, anim, 0, 0, ""};
    ossa_error error;
    memset(&error, 0, sizeof error);
    int rc = CLI_EXIT_OK;
    if (anim >= 0) {
        ossa_clip_options copt;
        memset(&copt, 0, sizeof copt);
        if (args->value[OPT_ERROR]) { /* checked by cmd_pose */
            copt.compression = OSSA_CLIP_COMPRESSED;
            copt.max_error = (float)strtod(args->value[OPT_ERROR], NULL);
        }
        ossa_clip *clip = ossa_clip_create(model, (uint32_t)anim, &copt, &error);
        if (!clip) {
            cli_report_error(&error);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
        ossa_clip_info ci;
        ossa_clip_get_info(clip, &ci);
        /* A frame outside the animation is a mistake unless the wrap was
         * asked for: before frame 0 only --loop reaches, past the last
         * frame the animation's looping or --clamp. */
        int loops_here = wrap == OSSA_WRAP_LOOP ||
                         (wrap == OSSA_WRAP_DEFAULT && (ci.flags & OSSA_ANIMATION_LOOP));
        if (use_frame && ((frame < 0 && wrap != OSSA_WRAP_LOOP) ||
                          (frame > ci.num_frames - 1.0 && !loops_here && wrap != OSSA_WRAP_CLAMP))) {
            fprintf(cli_err(), "ossa: frame %.9g is outside animation '", frame);
            cli_print_text(cli_err(), model->animations[anim].name);
            fprintf(cli_err(), "' (%u frame%s: 0 to %u); --loop wraps, --clamp holds the ends\n",
                    ci.num_frames, ci.num_frames == 1 ? "" : "s", ci.num_frames - 1);
            ossa_clip_free(clip);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
        ossa_sample_job job;
        memset(&job, 0, sizeof job);
        job.clip = clip;
        job.time = use_frame ? frame : time;
        job.flags = use_frame ? OSSA_SAMPLE_FRAMES : 0;
        job.wrap = wrap;
        job.simd = OSSA_SIMD_REFERENCE;
        job.local = local;
        job.model = matrices;
        job.num_outputs = n;
        if (ossa_sample_run(&job, &error) != OSSA_OK) {
            cli_report_error(&error);
            ossa_clip_free(clip);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
        int loops = wrap == OSSA_WRAP_LOOP ||
                    (wrap == OSSA_WRAP_DEFAULT && (ci.flags & OSSA_ANIMATION_LOOP));
        info.animation = model->animations[anim].name;
        info.wrap = loops ? "loop" : "clamp";
        /* Report where the sample was taken: the wrapped or clamped frame
         * position and the time of that position. */
        info.frame = use_frame ? wrap_frame(frame, ci.num_frames, loops)
                               : ossa_clip_frame_at(clip, time, wrap);
        info.time = info.frame / ci.framerate;
        ossa_clip_free(clip);
    } else {
        for (uint32_t j = 0; j < n; j++) {
            local[j] = model->rest_pose ? model->rest_pose[j] : model->joints[j].bind;
            /* Unit rotations, as everywhere in the runtime. */
            double q = 0;
            for (int c = 0; c < 4; c++) q += (double)local[j].rotation[c] * local[j].rotation[c];
            if (q > 0 && isfinite(q))
                for (int c = 0; c < 4; c++)
                    local[j].rotation[c] = (float)(local[j].rotation[c] / sqrt(q));
            parents[j] = model->joints[j].parent;
        }
        ossa_local_to_model_job job = {n,   parents, local, NULL, matrices, OSSA_SIMD_REFERENCE,
                                       NULL};
        if (ossa_local_to_model_run(&job, &error) != OSSA_OK) {
            cli_report_error(&error);
            rc = CLI_EXIT_INPUT;
            goto done;
        }
    }
    if (args->value[OPT_JSON])
        print_json(stdout, model, &info, local, (const float(*)[16])matrices);
    else
        print_text(stdout, model, &info, local, (const float(*)[16])matrices);
done:
    free(local);
    free(matrices);
    free(parents);
    return rc;
}

int cmd_pose(int argc, char **argv)
{
    static const cli_option options[] = {
        [OPT_ANIM] = {"--anim", NULL, 1},   [OPT_FRAME] = {"--frame", NULL, 1},
        [OPT_TIME] = {"--time", NULL, 1},   [OPT_LOOP] = {"--loop", NULL, 0},
        [OPT_CLAMP] = {"--clamp", NULL, 0}, [OPT_JSON] = {"--json", NULL, 0},
        [OPT_ERROR] = {"--error", NULL, 1},
        CLI_LOAD_OPTIONS,
        {NULL, NULL, 0},
    };
    cli_args args;
    int rc = cli_parse_args(argc, argv, options, &args);
    if (rc) return rc;
    if (args.help) {
        fputs(usage, stdout);
        cli_args_free(&args);
        return CLI_EXIT_OK;
    }
    /* Everything about the command line is checked before any file is
     * read. */
    double frame = 0, time = 0, bound = 0;
    const char *fs = args.value[OPT_FRAME], *ts = args.value[OPT_TIME];
    if (args.num_files == 0)
        rc = cli_usage_error("pose", "no input file");
    else if (fs && ts)
        rc = cli_usage_error("pose", "--frame and --time exclude each other");
    else if (args.value[OPT_LOOP] && args.value[OPT_CLAMP])
        rc = cli_usage_error("pose", "--loop and --clamp exclude each other");
    else if (fs && !cli_parse_number(fs, &frame))
        rc = cli_usage_error("pose", "--frame needs a finite number, not '%s'", fs);
    else if (ts && !cli_parse_number(ts, &time))
        rc = cli_usage_error("pose", "--time needs a finite number of seconds, not '%s'", ts);
    else if (args.value[OPT_ERROR] &&
             (!cli_parse_number(args.value[OPT_ERROR], &bound) || !(bound > 0 && bound < 3e38)))
        rc = cli_usage_error("pose", "--error needs a positive number, not '%s'",
                             args.value[OPT_ERROR]);
    if (rc) {
        cli_args_free(&args);
        return rc;
    }
    ossa_wrap wrap = args.value[OPT_LOOP]    ? OSSA_WRAP_LOOP
                     : args.value[OPT_CLAMP] ? OSSA_WRAP_CLAMP
                                             : OSSA_WRAP_DEFAULT;

    ossa_load_options load_options;
    rc = cli_load_options_from_args("pose", options, &args, &load_options);
    if (rc) {
        cli_args_free(&args);
        return rc;
    }
    ossa_model *model = cli_load_merged(args.files, args.num_files, &load_options);
    if (!model) {
        cli_args_free(&args);
        return CLI_EXIT_INPUT;
    }
    int anim = -1;
    const char *name = args.value[OPT_ANIM];
    if (name) {
        anim = cli_find_animation(model, name);
        if (anim < 0) rc = CLI_EXIT_INPUT;
    } else if (fs || ts) {
        if (model->num_animations == 0) {
            cli_error("%s: no animation to sample (the model has none)", args.files[0]);
            rc = CLI_EXIT_INPUT;
        }
        anim = 0;
    }
    /* --anim alone names the animation but asks for no moment: the pose
     * at rest, as with no option. */
    if (!rc) rc = pose_model(model, &args, (fs || ts) ? anim : -1, frame, time, fs != NULL, wrap);
    ossa_model_free(model);
    cli_args_free(&args);
    if (!rc && fflush(stdout) != 0) {
        cli_error("cannot write the output");
        rc = CLI_EXIT_INPUT;
    }
    return rc;
}
