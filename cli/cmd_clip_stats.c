/* ossa clip-stats: what compression does to each animation: sizes, ratio,
 * error (largest and 99th percentile, model units) and the bits per track. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: ossa clip-stats FILE... [--error E] [--shell D] [--json]\n"
    "\n"
    "Compress every animation of the model (several inputs are merged first,\n"
    "as by 'ossa convert') and print, per animation, the float clip's size,\n"
    "the compressed clip's size and their ratio, the error measured against\n"
    "the model's frames (largest and 99th percentile over every joint and\n"
    "frame) and how many (track, segment) pairs use each number of bits per\n"
    "component (constant tracks use none).\n"
    "\n"
    "The error is the distance between virtual vertices at D from each joint\n"
    "(along its axes) moved by the joint's model-space transform from the\n"
    "source frames and from the compressed clip (ACL's metric).\n"
    "\n"
    "Options:\n"
    "  --error E   the error bound in model units (default: 0.01% of the\n"
    "              bind-pose size, the diagonal of the box around the bind\n"
    "              pose's vertices and joints)\n"
    "  --shell D   the virtual vertex distance D in model units (default: 1%\n"
    "              of the bind-pose size)\n"
    "  --json      print {\"animations\": [{\"name\", \"raw_bytes\",\n"
    "              \"compressed_bytes\", \"ratio\", \"max_error\", \"p99_error\",\n"
    "              \"bound\", \"shell_distance\", \"constant_tracks\",\n"
    "              \"animated_tracks\", \"bits\": {\"BITS\": COUNT, ...}}, ...]}\n"
    "  -h, --help  show this help\n"
    "\n" CLI_LOAD_OPTIONS_HELP;

enum { OPT_ERROR, OPT_SHELL, OPT_JSON };

/* A finite positive number, or 0. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

int cmd_clip_stats(int argc, char **argv)
{
    static const cli_option options[] = {
        [OPT_ERROR] = {"--error", NULL, 1},
        [OPT_SHELL] = {"--shell", NULL, 1},
        [OPT_JSON] = {"--json", NULL, 0},
        CLI_LOAD_OPTIONS,
        {NULL, NULL, 0},
    };
    cli_args args;
    ossa_load_options load;
    int rc = cli_parse_input_args("clip-stats", usage, argc, argv, options, &args, &load);
    if (rc != CLI_GO_ON) return rc;
    ossa_clip_options copt;
    rc = cli_clip_options("clip-stats", args.value[OPT_ERROR], args.value[OPT_SHELL], &copt);
    if (rc) {
        cli_args_free(&args);
        return rc;
    }
    int json = args.value[OPT_JSON] != NULL;
    ossa_model *model = cli_load_merged(args.files, args.num_files, &load);
    if (!model) {
        cli_args_free(&args);
        return CLI_EXIT_INPUT;
    }
    FILE *out = cli_out();
    if (json) fputs("{\"animations\": [", out);
    size_t total_raw = 0, total_packed = 0;
    for (uint32_t a = 0; a < model->num_animations && !rc; a++) {
        ossa_error error;
        memset(&error, 0, sizeof error);
        ossa_clip_stats st;
        ossa_clip_info info;
        ossa_clip *clip = ossa_clip_create(model, a, &copt, &error);
        if (!clip || ossa_clip_measure(model, a, clip, &st, &error) != OSSA_OK) {
            if (!error.file[0]) snprintf(error.file, sizeof error.file, "%s", args.files[0]);
            cli_report_error(&error);
            ossa_clip_free(clip);
            rc = CLI_EXIT_INPUT;
            break;
        }
        ossa_clip_get_info(clip, &info);
        ossa_clip_free(clip);
        total_raw += st.raw_bytes, total_packed += st.compressed_bytes;
        const char *name = model->animations[a].name ? model->animations[a].name : "";
        double ratio = (double)st.raw_bytes / (double)st.compressed_bytes;
        if (json) {
            fprintf(out, "%s\n  {\"name\": ", a ? "," : "");
            json_string(out, name);
            fprintf(out,
                    ", \"raw_bytes\": %zu, \"compressed_bytes\": %zu, \"ratio\": %.4g, "
                    "\"max_error\": %.9g, \"p99_error\": %.9g, \"bound\": %.9g, "
                    "\"shell_distance\": %.9g, \"frames\": %u, \"constant_tracks\": %u, "
                    "\"animated_tracks\": %u, \"bits\": {",
                    st.raw_bytes, st.compressed_bytes, ratio, st.max_error, st.p99_error,
                    (double)info.max_error, (double)info.shell_distance, info.num_frames,
                    st.constant_tracks, st.animated_tracks);
            int first = 1;
            for (int b = 0; b <= 32; b++)
                if (st.bits_histogram[b]) {
                    fprintf(out, "%s\"%d\": %u", first ? "" : ", ", b, st.bits_histogram[b]);
                    first = 0;
                }
            fputs("}}", out);
        } else {
            /* An unnamed animation by its index, as --anim takes it. */
            if (name[0])
                fprintf(out, "\"%s\"", name);
            else
                fprintf(out, "animation %u", a);
            fprintf(out, ": %u frames, %zu -> %zu bytes (%.1fx), error max %.3g p99 %.3g "
                         "(bound %.3g, shell %.3g)\n",
                    info.num_frames, st.raw_bytes, st.compressed_bytes, ratio,
                    st.max_error, st.p99_error, (double)info.max_error,
                    (double)info.shell_distance);
            fprintf(out, "  tracks: %u constant, %u animated; bits per component:",
                    st.constant_tracks, st.animated_tracks);
            for (int b = 0; b <= 32; b++)
                if (st.bits_histogram[b]) fprintf(out, " %d:%u", b, st.bits_histogram[b]);
            fputc('\n', out);
        }
    }
    if (json && !rc) fputs("\n]}\n", out);
    if (!json && !rc && model->num_animations > 1)
        fprintf(out, "total: %zu -> %zu bytes (%.1fx)\n", total_raw, total_packed,
                (double)total_raw / (double)total_packed);
    if (!rc && model->num_animations == 0 && !json)
        fprintf(out, "%s: no animations\n", args.files[0]);
    ossa_model_free(model);
    cli_args_free(&args);
    if (!rc && fflush(out) != 0) {
        cli_error("cannot write the output");
        rc = CLI_EXIT_INPUT;
    }
    return rc;
}
