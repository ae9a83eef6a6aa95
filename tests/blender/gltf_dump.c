/* Prints what tests/blender/check_gltf.py compares with Blender, as JSON:
 * the model-space position of each joint and of each vertex, skinned in
 * double precision from the model's data alone, at rest (the rest pose,
 * else the bind pose) and at each asked moment of an animation (sampled
 * by the runtime's reference path, as ossa pose samples).
 *
 * Usage: gltf_dump FILE [ANIMATION:SECONDS]... > out.json */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa.h"

static void mat_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++)
            r[c * 4 + k] = a[k] * b[c * 4] + a[4 + k] * b[c * 4 + 1] + a[8 + k] * b[c * 4 + 2] +
                           a[12 + k] * b[c * 4 + 3];
    memcpy(out, r, sizeof r);
}

static void trs(const ossa_transform *t, double m[16])
{
    double x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
                   2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
    memset(m, 0, 16 * sizeof *m);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) m[c * 4 + k] = r[c * 3 + k] * t->scale[c];
    for (int k = 0; k < 3; k++) m[12 + k] = t->translation[k];
    m[15] = 1;
}

/* The inverse of an affine matrix (the 3x3 part by cofactors). */
static void invert(const double m[16], double out[16])
{
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double inv[9] = {(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det,
                     (f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det,
                     (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det};
    memset(out, 0, 16 * sizeof *out);
    for (int r = 0; r < 3; r++)
        for (int col = 0; col < 3; col++) out[col * 4 + r] = inv[r * 3 + col];
    for (int r = 0; r < 3; r++)
        out[12 + r] = -(out[r] * m[12] + out[4 + r] * m[13] + out[8 + r] * m[14]);
    out[15] = 1;
}

static void world(const ossa_model *m, const ossa_transform *local, double (*out)[16])
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double l[16];
        trs(&local[j], l);
        if (m->joints[j].parent >= 0)
            mat_mul(out[m->joints[j].parent], l, out[j]);
        else
            memcpy(out[j], l, sizeof l);
    }
}

typedef struct mesh_data {
    float *pos, *idx, *wgt;
    uint32_t ni;
    double (*inv_bind)[16];
} mesh_data;

static void dump_pose(const ossa_model *m, const ossa_transform *local, const mesh_data *d)
{
    uint32_t J = m->num_joints;
    double (*w)[16] = calloc(J ? J : 1, sizeof *w), (*skin)[16] = calloc(J ? J : 1, sizeof *skin);
    world(m, local, w);
    for (uint32_t j = 0; j < J; j++) mat_mul(w[j], d->inv_bind[j], skin[j]);
    printf("{\"joints\": [");
    for (uint32_t j = 0; j < J; j++)
        printf("%s[%.9g, %.9g, %.9g]", j ? ", " : "", w[j][12], w[j][13], w[j][14]);
    printf("], \"vertices\": [");
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        double p[3] = {0, 0, 0}, total = 0;
        const float *x = d->pos + 3 * v;
        for (uint32_t k = 0; d->idx && k < d->ni; k++) {
            double wk = d->wgt[v * d->ni + k];
            if (!(wk > 0)) continue;
            const double *s = skin[(uint32_t)d->idx[v * d->ni + k]];
            for (int r = 0; r < 3; r++)
                p[r] += wk * (s[r] * x[0] + s[4 + r] * x[1] + s[8 + r] * x[2] + s[12 + r]);
            total += wk;
        }
        for (int r = 0; r < 3; r++) p[r] = total > 0 ? p[r] / total : x[r];
        printf("%s[%.9g, %.9g, %.9g]", v ? ", " : "", p[0], p[1], p[2]);
    }
    printf("]}");
    free(w);
    free(skin);
}

/* Animation `a` at `seconds`: parent-relative transforms into `local`. */
static int sample(const ossa_model *m, uint32_t a, double seconds, ossa_transform *local)
{
    ossa_error err;
    ossa_clip *clip = ossa_clip_create(m, a, NULL, &err);
    if (!clip) return 0;
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.time = seconds;
    job.wrap = OSSA_WRAP_CLAMP;
    job.simd = OSSA_SIMD_REFERENCE;
    job.local = local;
    job.num_outputs = m->num_joints;
    int ok = ossa_sample_run(&job, &err) == OSSA_OK;
    ossa_clip_free(clip);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gltf_dump FILE [ANIMATION:SECONDS]...\n");
        return 2;
    }
    ossa_error err;
    ossa_model *m = ossa_load_file(argv[1], NULL, &err);
    if (!m) {
        char msg[600];
        fprintf(stderr, "gltf_dump: %s\n", ossa_error_format(&err, msg, sizeof msg));
        return 1;
    }
    uint32_t J = m->num_joints, V = m->num_vertices;
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    mesh_data d = {calloc((size_t)V * 3 + 1, sizeof(float)), NULL, NULL, ia && wa ? ia->size : 0,
                   calloc(J ? J : 1, sizeof *d.inv_bind)};
    ossa_vertex_array_read_padded(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), 0, V, 3,
                                  d.pos);
    if (d.ni) {
        d.idx = calloc((size_t)V * d.ni, sizeof *d.idx);
        d.wgt = calloc((size_t)V * d.ni, sizeof *d.wgt);
        ossa_vertex_array_read(m, ia, 0, V, d.idx);
        ossa_vertex_array_read(m, wa, 0, V, d.wgt);
    }
    ossa_transform *local = calloc(J ? J : 1, sizeof *local);
    double (*bw)[16] = calloc(J ? J : 1, sizeof *bw);
    for (uint32_t j = 0; j < J; j++) local[j] = m->joints[j].bind;
    world(m, local, bw);
    for (uint32_t j = 0; j < J; j++) invert(bw[j], d.inv_bind[j]);
    printf("{\"names\": [");
    for (uint32_t j = 0; j < J; j++) printf("%s\"%s\"", j ? ", " : "", m->joints[j].name);
    printf("],\n\"animations\": [");
    for (uint32_t a = 0; a < m->num_animations; a++)
        printf("%s\"%s\"", a ? ", " : "", m->animations[a].name);
    printf("],\n\"rest\": ");
    for (uint32_t j = 0; j < J; j++) local[j] = m->rest_pose ? m->rest_pose[j] : m->joints[j].bind;
    dump_pose(m, local, &d);
    printf(",\n\"poses\": {");
    for (int i = 2; i < argc; i++) {
        char *colon = strrchr(argv[i], ':');
        long a = colon ? strtol(argv[i], NULL, 10) : -1;
        if (!colon || a < 0 || (uint32_t)a >= m->num_animations ||
            !sample(m, (uint32_t)a, strtod(colon + 1, NULL), local)) {
            fprintf(stderr, "gltf_dump: no pose for '%s'\n", argv[i]);
            return 1;
        }
        printf("%s\n\"%s\": ", i > 2 ? "," : "", argv[i]);
        dump_pose(m, local, &d);
    }
    printf("}}\n");
    free(d.pos), free(d.idx), free(d.wgt), free(d.inv_bind), free(local), free(bw);
    ossa_model_free(m);
    return 0;
}
