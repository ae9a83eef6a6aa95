/* ossa info: a summary of each input file, as text or JSON. */
#include "cli.h"

#include <float.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: ossa info [--json] FILE...\n"
    "\n"
    "Print a summary of each model: format, joints (and how many rest\n"
    "otherwise than the mesh is bound), vertices, triangles, meshes, vertex\n"
    "arrays, animations (with how a glTF file's keys were put on frames),\n"
    "bind-pose bounds and warnings.\n"
    "Each file is loaded on its own (no merging).\n"
    "\n"
    "Options:\n"
    "  --json      print one JSON object (an array of objects for several files)\n"
    "  -h, --help  show this help\n"
    "\n" CLI_LOAD_OPTIONS_HELP;

/* Box of the bind-pose positions. Returns 0 when the model has none. */
static int bind_bounds(const ossa_model *model, float min[3], float max[3])
{
    const ossa_vertex_array *pos = ossa_model_find_array(model, OSSA_VERTEX_POSITION, NULL);
    if (!pos || !model->num_vertices) return 0;
    for (int k = 0; k < 3; k++) {
        min[k] = FLT_MAX;
        max[k] = -FLT_MAX;
    }
    /* Decode in chunks so that a large model needs no allocation. */
    enum { CHUNK = 256 };
    float buf[CHUNK * OSSA_MAX_COMPONENTS];
    uint32_t comps = pos->size < 3 ? pos->size : 3;
    for (uint32_t first = 0; first < model->num_vertices; first += CHUNK) {
        uint32_t n = model->num_vertices - first < CHUNK ? model->num_vertices - first : CHUNK;
        if (ossa_vertex_array_read(model, pos, first, n, buf) != OSSA_OK) return 0;
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t k = 0; k < comps; k++) {
                float x = buf[v * pos->size + k];
                if (x < min[k]) min[k] = x;
                if (x > max[k]) max[k] = x;
            }
    }
    /* Missing components (2D positions) count as 0. */
    for (uint32_t k = comps; k < 3; k++) min[k] = max[k] = 0;
    return 1;
}

/* How many distinct positions the vertices have: what modelling tools
 * (Blender) count as vertices, where ossa counts every combination of
 * position, normal, texture coordinate... Sorted copies of the positions,
 * compared bit for bit (-0 and 0 apart); 0 without positions or memory. */
static int cmp_position(const void *a, const void *b)
{
    return memcmp(a, b, 3 * sizeof(float));
}

static uint32_t distinct_positions(const ossa_model *model)
{
    const ossa_vertex_array *pos = ossa_model_find_array(model, OSSA_VERTEX_POSITION, NULL);
    uint32_t n = model->num_vertices;
    if (!pos || !n) return 0;
    float *p = malloc((size_t)n * 3 * sizeof *p);
    if (!p || ossa_vertex_array_read_padded(model, pos, 0, n, 3, p) != OSSA_OK) {
        free(p);
        return 0;
    }
    qsort(p, n, 3 * sizeof *p, cmp_position);
    uint32_t distinct = 1;
    for (uint32_t v = 1; v < n; v++) distinct += memcmp(p + 3 * (v - 1), p + 3 * v, 3 * sizeof *p) != 0;
    free(p);
    return distinct;
}

/* Depth of joint j in the hierarchy; bounded in case parents loop. */
static unsigned joint_depth(const ossa_model *model, uint32_t j)
{
    unsigned depth = 0;
    int32_t p = model->joints[j].parent;
    while (p >= 0 && (uint32_t)p < model->num_joints && depth < model->num_joints) {
        depth++;
        p = model->joints[p].parent;
    }
    return depth;
}

/* Joints whose rest pose is not their bind pose (0 without a rest pose). */
static uint32_t rest_joints(const ossa_model *model)
{
    uint32_t n = 0;
    for (uint32_t j = 0; model->rest_pose && j < model->num_joints; j++)
        n += memcmp(&model->rest_pose[j], &model->joints[j].bind, sizeof model->rest_pose[j]) != 0;
    return n;
}

/* Extras whose key ends in ".texture" (SOTC .nto) and material
 * descriptions (OSSA_EXTRA_MATERIAL: base colour, texture, ...) are short
 * text worth showing; other extras are opaque blobs. */
static int extra_is_text(const ossa_extra *e)
{
    size_t n = strlen(e->key), suffix = sizeof ".texture" - 1;
    return (n >= suffix && strcmp(e->key + n - suffix, ".texture") == 0) ||
           strncmp(e->key, OSSA_EXTRA_MATERIAL, sizeof OSSA_EXTRA_MATERIAL - 1) == 0;
}

/* -- Text ------------------------------------------------------------------- */

/* Where the model faces (README "Where a model faces"). */
static const char *front_name(ossa_front front)
{
    static const char *const names[] = {"unknown", "-y", "+x", "+y", "-x"};
    return (unsigned)front <= OSSA_FRONT_NEG_X ? names[front] : "unknown";
}

void cli_info_print_text(FILE *out, const char *file, const ossa_model *model)
{
    fputs("file: ", out);
    cli_print_text(out, file);
    fprintf(out, "\nformat: %s\n", ossa_format_name(model->source_format));
    fprintf(out, "front: %s\n", front_name(model->front));

    int named = model->num_joints && model->joints[0].name[0];
    fprintf(out, "joints: %" PRIu32 "%s\n", model->num_joints,
            (model->flags & OSSA_MODEL_SKELETON_FROM_POSES)
                ? (named ? " (from animation poses)" : " (from animation poses, unnamed)")
            : (model->flags & OSSA_MODEL_NAMES_ONLY) ? " (names only)"
                                                      : "");
    for (uint32_t j = 0; j < model->num_joints; j++) {
        fprintf(out, "  %4" PRIu32 "  %*s", j, (int)(2 * joint_depth(model, j)), "");
        cli_print_text(out, model->joints[j].name[0] ? model->joints[j].name : "(unnamed)");
        fputc('\n', out);
    }
    if (model->rest_pose)
        fprintf(out, "rest pose: differs from the bind pose at %" PRIu32 " of %" PRIu32
                     " joints (shown at rest, as glTF viewers show it)\n",
                rest_joints(model), model->num_joints);

    uint32_t positions = distinct_positions(model);
    fprintf(out, "vertices: %" PRIu32, model->num_vertices);
    if (positions && positions != model->num_vertices)
        fprintf(out, " (%" PRIu32 " distinct positions: a vertex is a position with its normal, "
                     "texture coordinates, ...)",
                positions);
    fputc('\n', out);
    fprintf(out, "triangles: %" PRIu32 "\n", model->num_triangles);

    fprintf(out, "meshes: %" PRIu32 "\n", model->num_meshes);
    for (uint32_t i = 0; i < model->num_meshes; i++) {
        const ossa_mesh *m = &model->meshes[i];
        fputs("  \"", out);
        cli_print_text(out, m->name);
        fputs("\" material \"", out);
        cli_print_text(out, m->material);
        fprintf(out, "\": %" PRIu32 " vertices, %" PRIu32 " triangles\n", m->num_vertices,
                m->num_triangles);
    }

    fprintf(out, "vertex arrays: %" PRIu32 "\n", model->num_vertex_arrays);
    for (uint32_t i = 0; i < model->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &model->vertex_arrays[i];
        fprintf(out, "  %s %s x%" PRIu32, ossa_vertex_type_name(a->type),
                ossa_component_name(a->format), a->size);
        if (a->type == OSSA_VERTEX_CUSTOM) {
            fputs(" \"", out);
            cli_print_text(out, a->name);
            fputc('"', out);
        }
        fputc('\n', out);
    }

    fprintf(out, "animations: %" PRIu32 "\n", model->num_animations);
    for (uint32_t i = 0; i < model->num_animations; i++) {
        const ossa_animation *a = &model->animations[i];
        fputs("  \"", out);
        cli_print_text(out, a->name);
        fprintf(out, "\": %" PRIu32 " frames at %.9g fps, %s%s", a->num_frames,
                (double)a->framerate, (a->flags & OSSA_ANIMATION_LOOP) ? "looping" : "once",
                a->bounds ? ", bounds stored" : "");
        if (a->sampling) {
            fputs(" (", out);
            cli_print_text(out, a->sampling);
            fputc(')', out);
        }
        fputc('\n', out);
    }

    float min[3], max[3];
    if (bind_bounds(model, min, max))
        fprintf(out, "bounds (bind pose): min %.9g %.9g %.9g, max %.9g %.9g %.9g\n", (double)min[0],
                (double)min[1], (double)min[2], (double)max[0], (double)max[1], (double)max[2]);
    fprintf(out, "comment: %zu bytes\n", model->comment ? model->comment_size : (size_t)0);
    if (model->num_extras) {
        fprintf(out, "extras: %" PRIu32 "\n", model->num_extras);
        for (uint32_t i = 0; i < model->num_extras; i++) {
            const ossa_extra *e = &model->extras[i];
            fputs("  ", out);
            cli_print_text(out, e->key);
            fprintf(out, ": %zu bytes", e->size);
            if (extra_is_text(e) && e->size) {
                /* On one line: a description's lines joined by "; ". */
                char text[512];
                size_t n = 0;
                for (size_t k = 0; k < e->size && n + 3 < sizeof text; k++) {
                    char c = ((const char *)e->data)[k];
                    if (c != '\n') text[n++] = c;
                    else if (k + 1 < e->size) text[n++] = ';', text[n++] = ' ';
                }
                text[n] = 0;
                fputs(": ", out);
                cli_print_text(out, text);
            }
            fputc('\n', out);
        }
    }
    fprintf(out, "warnings: %" PRIu32 "\n", model->num_warnings);
}

/* -- JSON ------------------------------------------------------------------- */

static void json_vec3(FILE *out, const float v[3])
{
    fputc('[', out);
    for (int k = 0; k < 3; k++) {
        if (k) fputs(", ", out);
        cli_json_number(out, v[k]);
    }
    fputc(']', out);
}

/* Ends a list whose items each started on a line of their own. */
static void close_list(FILE *out, uint32_t count, const char *ind)
{
    if (count)
        fprintf(out, "\n%s  ]", ind);
    else
        fputc(']', out);
}

/* One object; `ind` prefixes every line after the first so that objects
 * nest inside an array. */
static void print_json(FILE *out, const char *file, const ossa_model *model, const char *ind)
{
    fprintf(out, "{\n%s  \"file\": ", ind);
    cli_json_string(out, file);
    fprintf(out, ",\n%s  \"format\": ", ind);
    cli_json_string(out, ossa_format_name(model->source_format));
    fprintf(out, ",\n%s  \"front\": ", ind);
    cli_json_string(out, front_name(model->front));
    fprintf(out, ",\n%s  \"joints\": %" PRIu32, ind, model->num_joints);
    fprintf(out, ",\n%s  \"vertices\": %" PRIu32, ind, model->num_vertices);
    fprintf(out, ",\n%s  \"positions\": %" PRIu32, ind, distinct_positions(model));
    fprintf(out, ",\n%s  \"triangles\": %" PRIu32, ind, model->num_triangles);

    fprintf(out, ",\n%s  \"meshes\": [", ind);
    for (uint32_t i = 0; i < model->num_meshes; i++) {
        const ossa_mesh *m = &model->meshes[i];
        fprintf(out, "%s\n%s    {\"name\": ", i ? "," : "", ind);
        cli_json_string(out, m->name);
        fputs(", \"material\": ", out);
        cli_json_string(out, m->material);
        fprintf(out,
                ", \"first_vertex\": %" PRIu32 ", \"vertices\": %" PRIu32
                ", \"first_triangle\": %" PRIu32 ", \"triangles\": %" PRIu32 "}",
                m->first_vertex, m->num_vertices, m->first_triangle, m->num_triangles);
    }
    close_list(out, model->num_meshes, ind);

    fprintf(out, ",\n%s  \"vertex_arrays\": [", ind);
    for (uint32_t i = 0; i < model->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &model->vertex_arrays[i];
        fprintf(out, "%s\n%s    {\"type\": ", i ? "," : "", ind);
        cli_json_string(out, ossa_vertex_type_name(a->type));
        fputs(", \"format\": ", out);
        cli_json_string(out, ossa_component_name(a->format));
        fprintf(out, ", \"size\": %" PRIu32 ", \"name\": ", a->size);
        cli_json_string(out, a->name);
        fputc('}', out);
    }
    close_list(out, model->num_vertex_arrays, ind);

    fprintf(out, ",\n%s  \"animations\": [", ind);
    for (uint32_t i = 0; i < model->num_animations; i++) {
        const ossa_animation *a = &model->animations[i];
        fprintf(out, "%s\n%s    {\"name\": ", i ? "," : "", ind);
        cli_json_string(out, a->name);
        fprintf(out, ", \"frames\": %" PRIu32 ", \"framerate\": ", a->num_frames);
        cli_json_number(out, a->framerate);
        fprintf(out, ", \"loop\": %s, \"stored_bounds\": %s, \"sampling\": ",
                (a->flags & OSSA_ANIMATION_LOOP) ? "true" : "false", a->bounds ? "true" : "false");
        if (a->sampling) cli_json_string(out, a->sampling);
        else fputs("null", out);
        fputc('}', out);
    }
    close_list(out, model->num_animations, ind);

    /* The hierarchy on one line per joint: names and parents are what
     * scripts ask for most (e.g. to match skeletons before merging). */
    fprintf(out, ",\n%s  \"skeleton\": [", ind);
    for (uint32_t j = 0; j < model->num_joints; j++) {
        fprintf(out, "%s\n%s    {\"name\": ", j ? "," : "", ind);
        cli_json_string(out, model->joints[j].name);
        fprintf(out, ", \"parent\": %" PRId32 "}", model->joints[j].parent);
    }
    close_list(out, model->num_joints, ind);
    fprintf(out, ",\n%s  \"skeleton_from_poses\": %s", ind,
            (model->flags & OSSA_MODEL_SKELETON_FROM_POSES) ? "true" : "false");
    /* How many joints rest otherwise than they are bound (glTF): 0 when
     * the model's rest pose is its bind pose. */
    fprintf(out, ",\n%s  \"rest_pose_joints\": %" PRIu32, ind, rest_joints(model));

    float min[3], max[3];
    fprintf(out, ",\n%s  \"bounds\": ", ind);
    if (bind_bounds(model, min, max)) {
        fputs("{\"min\": ", out);
        json_vec3(out, min);
        fputs(", \"max\": ", out);
        json_vec3(out, max);
        fputc('}', out);
    } else {
        fputs("null", out);
    }

    fprintf(out, ",\n%s  \"comment_size\": %zu", ind,
            model->comment ? model->comment_size : (size_t)0);
    fprintf(out, ",\n%s  \"extras\": [", ind);
    for (uint32_t i = 0; i < model->num_extras; i++) {
        fprintf(out, "%s{\"key\": ", i ? ", " : "");
        cli_json_string(out, model->extras[i].key);
        fprintf(out, ", \"size\": %zu", model->extras[i].size);
        if (extra_is_text(&model->extras[i])) {
            fputs(", \"text\": ", out);
            cli_json_string_n(out, model->extras[i].data, model->extras[i].size);
        }
        fputc('}', out);
    }
    fputc(']', out);

    fprintf(out, ",\n%s  \"warnings\": [", ind);
    for (uint32_t i = 0; i < model->num_warnings; i++) {
        const ossa_diagnostic *w = &model->warnings[i];
        fprintf(out, "%s\n%s    {\"message\": ", i ? "," : "", ind);
        cli_json_string(out, w->message);
        if (w->line)
            fprintf(out, ", \"line\": %" PRIu32 ", \"column\": %" PRIu32, w->line, w->column);
        else if (w->offset != OSSA_NO_OFFSET)
            fprintf(out, ", \"offset\": %" PRIu64, w->offset);
        fputc('}', out);
    }
    close_list(out, model->num_warnings, ind);
    fprintf(out, "\n%s}", ind);
}

void cli_info_print_json(FILE *out, const char *file, const ossa_model *model)
{
    print_json(out, file, model, "");
    fputc('\n', out);
}

/* -- Command ---------------------------------------------------------------- */

int cmd_info(int argc, char **argv)
{
    static const cli_option options[] = {{"--json", NULL, 0}, CLI_LOAD_OPTIONS, {NULL, NULL, 0}};
    cli_args args;
    ossa_load_options load_options;
    int rc = cli_parse_input_args("info", usage, argc, argv, options, &args, &load_options);
    if (rc != CLI_GO_ON) return rc;
    int json = args.value[0] != NULL;
    /* Several files in JSON form make one array, with an "error" entry for
     * each file that failed so that positions still match the arguments. */
    int array = json && args.num_files > 1;
    rc = CLI_EXIT_OK;
    if (array) fputs("[\n  ", stdout);
    for (int i = 0; i < args.num_files; i++) {
        const char *file = args.files[i];
        if (array && i) fputs(",\n  ", stdout);
        if (!json && i) fputc('\n', stdout);
        ossa_error error;
        ossa_model *model = cli_load(file, &load_options, &error);
        if (!model) {
            rc = CLI_EXIT_INPUT;
            if (array) {
                char buf[1024];
                fputs("{\"file\": ", stdout);
                cli_json_string(stdout, file);
                fputs(", \"error\": ", stdout);
                cli_json_string(stdout, ossa_error_format(&error, buf, sizeof buf));
                fputc('}', stdout);
            }
            continue;
        }
        if (array)
            print_json(stdout, file, model, "  ");
        else if (json)
            cli_info_print_json(stdout, file, model);
        else
            cli_info_print_text(stdout, file, model);
        ossa_model_free(model);
    }
    if (array) fputs("\n]\n", stdout);
    cli_args_free(&args);
    if (fflush(stdout) != 0) {
        cli_error("cannot write the output");
        rc = CLI_EXIT_INPUT;
    }
    return rc;
}
