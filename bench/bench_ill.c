/*
 * illEngine text against binary files: writing and reading the set of
 * files of one large synthetic model, and their sizes.
 *
 * The model, built here (no input file): 100 joints, 60,000 vertices
 * (position, normal, tangent with its bitangent, texcoord, 4 blend
 * influences), 21,845 triangles (the most a binary mesh holds: 65,535
 * indices), 5 animations of 640 frames at 30 fps with every joint moving.
 *
 * Steps, each the median of RUNS runs (thread CPU time, the machine being
 * shared), for ill.encoding=text and =binary:
 *   model -> files  ossa_write_file of hero.illmesh, its files handed to an
 *                   output callback (in memory): mesh, skeleton, the
 *                   animations and, in binary, the .illanset
 *   files -> model  ossa_load_memory of each file, merged in order (the
 *                   binary animations resampled at their own keys, §8)
 *
 * usage: bench_ill
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "ossa.h"

#define RUNS 5
#define JOINTS 100
#define VERTICES 60000
#define TRIANGLES 21845
#define ANIMS 5
#define FRAMES 640

static double now_ms(void) { return bench_ms(CLOCK_THREAD_CPUTIME_ID); }

static uint64_t rng = 99;
static float frand(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((double)(rng >> 11) / 9007199254740992.0);
}

static void die(const char *what, const ossa_error *err)
{
    fprintf(stderr, "bench_ill: %s: %s\n", what, err->message);
    exit(1);
}

static void unit_quat(float q[4])
{
    double n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = frand() - 0.5f;
        n += (double)q[k] * q[k];
    }
    for (int k = 0; k < 4; k++) q[k] = (float)(q[k] / sqrt(n));
}

static ossa_model *build(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    if (!m) exit(1);
    for (int j = 0; j < JOINTS; j++) {
        ossa_transform t = ossa_transform_identity();
        for (int k = 0; k < 3; k++) t.translation[k] = frand() * 10 - 5;
        unit_quat(t.rotation);
        char name[32];
        snprintf(name, sizeof name, "bone%02d", j);
        if (ossa_model_add_joint(m, name, j ? (int32_t)(j - 1) / 2 : -1, &t, &err) < 0) die("joint", &err);
    }
    if (ossa_model_set_num_vertices(m, VERTICES, &err)) die("vertices", &err);
    float *f = malloc((size_t)VERTICES * 4 * sizeof *f);
    if (!f) exit(1);
    static const struct {
        ossa_vertex_type type;
        uint32_t size;
        const char *name;
    } arrays[] = {{OSSA_VERTEX_POSITION, 3, NULL}, {OSSA_VERTEX_NORMAL, 3, NULL},
                  {OSSA_VERTEX_TANGENT, 4, NULL},  {OSSA_VERTEX_TEXCOORD, 2, NULL},
                  {OSSA_VERTEX_CUSTOM, 3, "bitangent"}};
    for (size_t a = 0; a < sizeof arrays / sizeof *arrays; a++) {
        for (size_t i = 0; i < (size_t)VERTICES * arrays[a].size; i++) f[i] = frand() * 2 - 1;
        if (!ossa_model_add_vertex_array(m, arrays[a].type, OSSA_FLOAT, arrays[a].size, arrays[a].name,
                                         f, &err))
            die("array", &err);
    }
    /* four different joints per vertex */
    for (int v = 0; v < VERTICES; v++)
        for (int k = 0; k < 4; k++) f[v * 4 + k] = (float)((v / 7 + k * 13) % JOINTS);
    if (!ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, f, &err))
        die("blend indices", &err);
    for (int v = 0; v < VERTICES; v++) {
        float sum = 0;
        for (int k = 0; k < 4; k++) sum += f[v * 4 + k] = frand() + 0.01f;
        for (int k = 0; k < 4; k++) f[v * 4 + k] /= sum;
    }
    if (!ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL, f, &err))
        die("blend weights", &err);
    free(f);
    ossa_triangle *tris = malloc((size_t)TRIANGLES * sizeof *tris);
    if (!tris) exit(1);
    for (int t = 0; t < TRIANGLES; t++)
        for (int k = 0; k < 3; k++) tris[t].v[k] = (uint32_t)((t * 3 + k) * 7919u % VERTICES);
    if (ossa_model_set_triangles(m, TRIANGLES, tris, &err)) die("triangles", &err);
    free(tris);
    if (ossa_model_add_mesh(m, "hero", "", 0, VERTICES, 0, TRIANGLES, &err) < 0) die("mesh", &err);
    for (int a = 0; a < ANIMS; a++) {
        char name[16];
        snprintf(name, sizeof name, "anim%d", a);
        ossa_animation *an = ossa_model_add_animation(m, name, FRAMES, 30, OSSA_ANIMATION_LOOP, &err);
        if (!an) die("animation", &err);
        for (size_t i = 0; i < (size_t)FRAMES * JOINTS; i++) {
            ossa_transform *t = &an->frames[i];
            for (int k = 0; k < 3; k++) t->translation[k] += frand() * 0.1f;
            unit_quat(t->rotation);
        }
    }
    return m;
}

/* -- The files of one write, kept in memory ---------------------------------- */

typedef struct files {
    size_t count, bytes;
    char *path[16];
    unsigned char *data[16];
    size_t size[16];
} files;

static void files_clear(files *f)
{
    for (size_t i = 0; i < f->count; i++) {
        free(f->path[i]);
        free(f->data[i]);
    }
    memset(f, 0, sizeof *f);
}

static ossa_status keep(void *user, const ossa_output_file *out, size_t count, ossa_error *error)
{
    (void)error;
    files *f = user;
    files_clear(f);
    for (size_t i = 0; i < count && i < 16; i++) {
        f->path[i] = strdup(out[i].path);
        f->data[i] = malloc(out[i].size ? out[i].size : 1);
        if (!f->path[i] || !f->data[i]) exit(1);
        memcpy(f->data[i], out[i].data, out[i].size);
        f->size[i] = out[i].size;
        f->bytes += out[i].size;
        f->count++;
    }
    return OSSA_OK;
}

static void write_set(const ossa_model *m, const char *encoding, files *out)
{
    ossa_option opt = {"ill.encoding", encoding};
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format_options = &opt;
    o.num_format_options = 1;
    o.output = keep;
    o.user = out;
    ossa_error err;
    if (ossa_write_file(m, "hero.illmesh", &o, &err)) die("write", &err);
}

static ossa_model *read_set(const files *f)
{
    ossa_model *m = NULL;
    for (size_t i = 0; i < f->count; i++) {
        ossa_load_options o;
        memset(&o, 0, sizeof o);
        o.file_name = f->path[i];
        ossa_error err;
        ossa_model *one = ossa_load_memory(f->data[i], f->size[i], &o, &err);
        if (!one) die(f->path[i], &err);
        if (m && ossa_model_merge(m, one, &err)) die("merge", &err);
        if (m)
            ossa_model_free(one);
        else
            m = one;
    }
    return m;
}

int main(void)
{
    ossa_model *model = build();
    printf("model: %d joints, %d vertices, %d triangles, %d animations of %d frames\n", JOINTS,
           VERTICES, TRIANGLES, ANIMS, FRAMES);
    static const char *const encodings[2] = {"text", "binary"};
    for (int e = 0; e < 2; e++) {
        files f;
        memset(&f, 0, sizeof f);
        double wt[RUNS], rt[RUNS];
        uint32_t frames = 0;
        for (int r = 0; r < RUNS; r++) {
            double t0 = now_ms();
            write_set(model, encodings[e], &f);
            double t1 = now_ms();
            ossa_model *back = read_set(&f);
            double t2 = now_ms();
            wt[r] = t1 - t0;
            rt[r] = t2 - t1;
            frames = back->num_animations ? back->animations[0].num_frames : 0;
            ossa_model_free(back);
        }
        printf("%-6s  %zu files, %7.2f MB   model -> files %8.1f ms   files -> model %8.1f ms"
               "   (%u frames read back)\n",
               encodings[e], f.count, (double)f.bytes / 1e6, bench_median(wt, RUNS),
               bench_median(rt, RUNS), frames);
        files_clear(&f);
    }
    ossa_model_free(model);
    return 0;
}
