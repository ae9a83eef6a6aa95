/* Prints what tests/blender/check_fbx.py compares with Blender, as JSON:
 * for the bind pose and every frame of every animation, the model-space
 * position of each joint and of each skinned vertex (linear blend
 * skinning in double precision, written here from the model's data alone).
 *
 * Usage: fbx_dump FILE.fbx > out.json */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa.h"

static void mat_mul(const double a[16], const double b[16], double out[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
            out[c * 4 + r] = s;
        }
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

static void invert(const double m[16], double out[16])
{
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double inv[9] = {(e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det,
                     (f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det,
                     (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det};
    memset(out, 0, 16 * sizeof *out);
    /* inv is row-major */
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

static void dump_pose(const ossa_model *m, const ossa_transform *local, double (*inv_bind)[16],
                      const float *pos, const float *idx, const float *wgt, uint32_t ni)
{
    uint32_t J = m->num_joints;
    double (*w)[16] = calloc(J ? J : 1, sizeof *w), (*skin)[16] = calloc(J ? J : 1, sizeof *skin);
    world(m, local, w);
    for (uint32_t j = 0; j < J; j++) mat_mul(w[j], inv_bind[j], skin[j]);
    printf("{\"joints\": [");
    for (uint32_t j = 0; j < J; j++)
        printf("%s[%.9g, %.9g, %.9g]", j ? ", " : "", w[j][12], w[j][13], w[j][14]);
    printf("], \"vertices\": [");
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        double p[3] = {0, 0, 0};
        const float *x = pos + 3 * v;
        double total = 0;
        for (uint32_t k = 0; idx && k < ni; k++) {
            double wk = wgt[v * ni + k];
            if (wk <= 0) continue;
            const double *s = skin[(uint32_t)idx[v * ni + k]];
            for (int r = 0; r < 3; r++) p[r] += wk * (s[r] * x[0] + s[4 + r] * x[1] + s[8 + r] * x[2] + s[12 + r]);
            total += wk;
        }
        if (total == 0)
            for (int r = 0; r < 3; r++) p[r] = x[r];
        printf("%s[%.9g, %.9g, %.9g]", v ? ", " : "", p[0], p[1], p[2]);
    }
    printf("]}");
    free(w);
    free(skin);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fbx_dump FILE\n");
        return 2;
    }
    ossa_error err;
    ossa_model *m = ossa_load_file(argv[1], NULL, &err);
    if (!m) {
        char msg[600];
        fprintf(stderr, "fbx_dump: %s\n", ossa_error_format(&err, msg, sizeof msg));
        return 1;
    }
    uint32_t J = m->num_joints, V = m->num_vertices;
    const ossa_vertex_array *pa = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    float *pos = calloc((size_t)V * 3 + 1, sizeof *pos), *idx = NULL, *wgt = NULL;
    uint32_t ni = ia && wa ? ia->size : 0;
    if (pa) ossa_vertex_array_read(m, pa, 0, V, pos);
    if (ni) {
        idx = calloc((size_t)V * ni, sizeof *idx);
        wgt = calloc((size_t)V * ni, sizeof *wgt);
        ossa_vertex_array_read(m, ia, 0, V, idx);
        ossa_vertex_array_read(m, wa, 0, V, wgt);
    }
    ossa_transform *bind = calloc(J ? J : 1, sizeof *bind);
    for (uint32_t j = 0; j < J; j++) bind[j] = m->joints[j].bind;
    double (*bw)[16] = calloc(J ? J : 1, sizeof *bw), (*ib)[16] = calloc(J ? J : 1, sizeof *ib);
    world(m, bind, bw);
    for (uint32_t j = 0; j < J; j++) invert(bw[j], ib[j]);
    printf("{\"names\": [");
    for (uint32_t j = 0; j < J; j++) printf("%s\"%s\"", j ? ", " : "", m->joints[j].name);
    printf("],\n\"bind\": ");
    dump_pose(m, bind, ib, pos, idx, wgt, ni);
    printf(",\n\"animations\": [");
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        printf("%s{\"name\": \"%s\", \"fps\": %.9g, \"frames\": [", a ? ",\n" : "", an->name,
               (double)an->framerate);
        for (uint32_t f = 0; f < an->num_frames; f++) {
            printf("%s\n", f ? "," : "");
            dump_pose(m, an->frames + (size_t)f * J, ib, pos, idx, wgt, ni);
        }
        printf("]}");
    }
    /* Material descriptions, their text as it is (ossa.h, OSSA_EXTRA_MATERIAL). */
    printf("],\n\"materials\": {");
    int first = 1;
    size_t prefix = strlen(OSSA_EXTRA_MATERIAL);
    for (uint32_t e = 0; e < m->num_extras; e++) {
        const ossa_extra *x = &m->extras[e];
        if (strncmp(x->key, OSSA_EXTRA_MATERIAL, prefix) != 0) continue;
        printf("%s\"%s\": \"", first ? "" : ", ", x->key + prefix);
        first = 0;
        const unsigned char *t = x->data;
        for (size_t i = 0; i < x->size; i++) {
            if (t[i] == '\n') printf("\\n");
            else if (t[i] == '"' || t[i] == '\\') printf("\\%c", t[i]);
            else if (t[i] >= 0x20) putchar(t[i]);
        }
        printf("\"");
    }
    printf("}}\n");
    free(pos), free(idx), free(wgt), free(bind), free(bw), free(ib);
    ossa_model_free(m);
    return 0;
}
