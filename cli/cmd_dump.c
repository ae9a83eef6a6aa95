/* ossa dump: a canonical, stable text dump of a loaded model, for
 * reference tests (tests/ref/), diffs between formats and bug reports.
 *
 * Everything that a reader decides is in it, in the model's order: joints
 * with bind poses (and the rest pose when the model has one), each vertex
 * array summarised (per component minimum, maximum and mean, and a hash
 * of its bytes), triangles (count, hash, the first few), meshes,
 * animations (how they were sampled, when a reader says) with the poses
 * of their first, middle and last frames, extras and warnings with their
 * codes. Floats are
 * printed with 9 significant digits, enough to tell any two floats apart,
 * so a change of one bit shows. */
#include "cli.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: ossa dump FILE...\n"
    "\n"
    "Print a canonical text dump of each model: joints and bind poses (and\n"
    "the rest pose where a glTF file has one), vertex arrays (per-component\n"
    "range, mean and a hash of the data), triangles, meshes, the poses of\n"
    "the first, middle and last frame of every animation, extras and load\n"
    "warnings with their codes. Several files are merged as by convert. A\n"
    "file that does not load dumps as its error (exit status 1), so that\n"
    "failures are part of the record.\n"
    "\n"
    "Options:\n"
    "  -h, --help  show this help\n"
    "\n" CLI_LOAD_OPTIONS_HELP;

/* FNV-1a, 64 bits: a stable hash of bytes that needs no library. */
static uint64_t fnv1a(const void *data, size_t size, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
#define FNV_START 0xcbf29ce484222325ull

static void put_float(FILE *out, float v)
{
    /* -0 and 0 differ in the data; keep the sign visible. */
    if (v == 0) fputs(signbit(v) ? " -0" : " 0", out);
    else fprintf(out, " %.9g", v);
}

static void put_transform(FILE *out, const ossa_transform *t)
{
    fputs(" t", out);
    for (int k = 0; k < 3; k++) put_float(out, t->translation[k]);
    fputs(" r", out);
    for (int k = 0; k < 4; k++) put_float(out, t->rotation[k]);
    fputs(" s", out);
    for (int k = 0; k < 3; k++) put_float(out, t->scale[k]);
}

static void dump_joints(FILE *out, const ossa_model *m)
{
    fprintf(out, "joints %" PRIu32 "\n", m->num_joints);
    for (uint32_t j = 0; j < m->num_joints; j++) {
        fprintf(out, "  %" PRIu32 " ", j);
        cli_json_string(out, m->joints[j].name);
        fprintf(out, " parent %" PRId32, m->joints[j].parent);
        put_transform(out, &m->joints[j].bind);
        fputc('\n', out);
    }
    if (!m->rest_pose) return;
    fputs("rest pose\n", out);
    for (uint32_t j = 0; j < m->num_joints; j++) {
        fprintf(out, "  %" PRIu32, j);
        put_transform(out, &m->rest_pose[j]);
        fputc('\n', out);
    }
}

static int dump_arrays(FILE *out, const ossa_model *m)
{
    fprintf(out, "vertices %" PRIu32 " arrays %" PRIu32 "\n", m->num_vertices,
            m->num_vertex_arrays);
    enum { CHUNK = 256 };
    float *buf = malloc(sizeof(float) * CHUNK * OSSA_MAX_COMPONENTS);
    if (!buf) return -1;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        size_t bytes = (size_t)m->num_vertices * a->size * ossa_component_size(a->format);
        fprintf(out, "  %s", ossa_vertex_type_name(a->type));
        if (a->type == OSSA_VERTEX_CUSTOM) {
            fputc(' ', out);
            cli_json_string(out, a->name);
        }
        fprintf(out, " %s x%" PRIu32 " hash %016" PRIx64 "\n", ossa_component_name(a->format),
                a->size, fnv1a(a->data, bytes, FNV_START));
        double lo[OSSA_MAX_COMPONENTS], hi[OSSA_MAX_COMPONENTS], sum[OSSA_MAX_COMPONENTS];
        for (uint32_t k = 0; k < a->size; k++) {
            lo[k] = INFINITY;
            hi[k] = -INFINITY;
            sum[k] = 0;
        }
        for (uint32_t first = 0; first < m->num_vertices; first += CHUNK) {
            uint32_t n = m->num_vertices - first < CHUNK ? m->num_vertices - first : CHUNK;
            if (ossa_vertex_array_read(m, a, first, n, buf) != OSSA_OK) break;
            for (uint32_t v = 0; v < n; v++)
                for (uint32_t k = 0; k < a->size; k++) {
                    double x = buf[v * a->size + k];
                    if (x < lo[k]) lo[k] = x;
                    if (x > hi[k]) hi[k] = x;
                    sum[k] += x;
                }
        }
        if (!m->num_vertices) continue;
        const char *rows[3] = {"min", "max", "mean"};
        for (int r = 0; r < 3; r++) {
            fprintf(out, "    %-4s", rows[r]);
            for (uint32_t k = 0; k < a->size; k++)
                put_float(out, (float)(r == 0   ? lo[k]
                                       : r == 1 ? hi[k]
                                                : sum[k] / m->num_vertices));
            fputc('\n', out);
        }
    }
    free(buf);
    return 0;
}

static void dump_geometry(FILE *out, const ossa_model *m)
{
    fprintf(out, "triangles %" PRIu32 " hash %016" PRIx64 "\n", m->num_triangles,
            fnv1a(m->triangles, (size_t)m->num_triangles * sizeof *m->triangles, FNV_START));
    for (uint32_t t = 0; t < m->num_triangles && t < 4; t++)
        fprintf(out, "  %" PRIu32 " %" PRIu32 " %" PRIu32 "\n", m->triangles[t].v[0],
                m->triangles[t].v[1], m->triangles[t].v[2]);
    fprintf(out, "meshes %" PRIu32 "\n", m->num_meshes);
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        const ossa_mesh *me = &m->meshes[i];
        fputs("  ", out);
        cli_json_string(out, me->name);
        fputs(" material ", out);
        cli_json_string(out, me->material);
        fprintf(out,
                " vertices %" PRIu32 "+%" PRIu32 " triangles %" PRIu32 "+%" PRIu32 "\n",
                me->first_vertex, me->num_vertices, me->first_triangle, me->num_triangles);
    }
}

static void dump_frame(FILE *out, const ossa_model *m, const ossa_animation *a, uint32_t f)
{
    fprintf(out, "    frame %" PRIu32 "\n", f);
    for (uint32_t j = 0; j < m->num_joints; j++) {
        fprintf(out, "      %" PRIu32, j);
        put_transform(out, &a->frames[(size_t)f * m->num_joints + j]);
        fputc('\n', out);
    }
}

static void dump_animations(FILE *out, const ossa_model *m)
{
    fprintf(out, "animations %" PRIu32 "\n", m->num_animations);
    for (uint32_t i = 0; i < m->num_animations; i++) {
        const ossa_animation *a = &m->animations[i];
        fputs("  ", out);
        cli_json_string(out, a->name);
        fprintf(out, " frames %" PRIu32 " fps", a->num_frames);
        put_float(out, a->framerate);
        fprintf(out, " flags %" PRIu32 " bounds %s hash %016" PRIx64 "\n", a->flags,
                a->bounds ? "stored" : "none",
                fnv1a(a->frames, (size_t)a->num_frames * m->num_joints * sizeof *a->frames,
                      FNV_START));
        if (a->sampling) {
            fputs("    sampling ", out);
            cli_json_string(out, a->sampling);
            fputc('\n', out);
        }
        if (a->channels) {
            fputs("    channels", out);
            for (uint32_t j = 0; j < m->num_joints; j++) fprintf(out, " %u", a->channels[j]);
            fputc('\n', out);
        }
        if (!a->num_frames || !m->num_joints) continue;
        uint32_t picks[3] = {0, a->num_frames / 2, a->num_frames - 1};
        for (int k = 0; k < 3; k++)
            if (k == 0 || picks[k] != picks[k - 1]) dump_frame(out, m, a, picks[k]);
    }
}

static void dump_rest(FILE *out, const ossa_model *m)
{
    fprintf(out, "extras %" PRIu32 "\n", m->num_extras);
    for (uint32_t i = 0; i < m->num_extras; i++) {
        fputs("  ", out);
        cli_json_string(out, m->extras[i].key);
        fprintf(out, " %zu bytes hash %016" PRIx64 "\n", m->extras[i].size,
                fnv1a(m->extras[i].data, m->extras[i].size, FNV_START));
    }
    fprintf(out, "comment %zu bytes\n", m->comment ? m->comment_size : (size_t)0);
    fprintf(out, "flags %" PRIu32 "\n", m->flags);
    fprintf(out, "warnings %" PRIu32 "\n", m->num_warnings);
    for (uint32_t i = 0; i < m->num_warnings; i++) {
        const ossa_diagnostic *w = &m->warnings[i];
        char where[64];
        cli_where(where, sizeof where, w->offset, w->line, w->column);
        fprintf(out, "  %s%s%s: %s\n", ossa_code_name(w->code), where[0] ? " " : "", where,
                w->message);
    }
}

/* The name of a file without its directories: dumps of the same file read
 * from different places compare equal. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int cmd_dump(int argc, char **argv)
{
    static const cli_option options[] = {CLI_LOAD_OPTIONS, {NULL, NULL, 0}};
    cli_args args;
    ossa_load_options load;
    int rc = cli_parse_input_args("dump", usage, argc, argv, options, &args, &load);
    if (rc != CLI_GO_ON) return rc;
    puts("ossa dump");
    for (int i = 0; i < args.num_files; i++) printf("file %s\n", base_name(args.files[i]));
    ossa_model *m = NULL;
    ossa_error error;
    memset(&error, 0, sizeof error);
    if (args.num_files == 1) {
        m = cli_load_path(args.files[0], &load, &error);
        if (!m) {
            char where[64];
            cli_where(where, sizeof where, error.offset, error.line, error.column);
            printf("error %s%s%s: %s\n", ossa_code_name(error.code), where[0] ? " " : "", where,
                   error.message);
            cli_args_free(&args);
            return CLI_EXIT_INPUT;
        }
    } else {
        m = cli_load_merged((const char *const *)args.files, args.num_files, &load);
        if (!m) {
            puts("error: the files do not load or merge (see stderr)");
            cli_args_free(&args);
            return CLI_EXIT_INPUT;
        }
    }
    printf("format %s\n", ossa_format_name(m->source_format));
    dump_joints(stdout, m);
    rc = dump_arrays(stdout, m) ? CLI_EXIT_INPUT : CLI_EXIT_OK;
    dump_geometry(stdout, m);
    dump_animations(stdout, m);
    dump_rest(stdout, m);
    ossa_model_free(m);
    cli_args_free(&args);
    return rc;
}
