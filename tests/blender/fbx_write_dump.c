/* Writes a model as FBX with ossa and prints, as JSON, what
 * tests/blender/check_fbx_write.py compares with Blender's import of that
 * FBX, computed from the source model alone: each joint's model-space
 * matrix at the bind pose and at the first, middle and last frame of each
 * animation (double precision, written here from the model's TRS), each
 * animation's frame count and rate and the file's rate, and per mesh the
 * number of vertices its triangles use and each joint's sum of weights
 * over them (what Blender's vertex groups hold).
 *
 * Usage: fbx_write_dump SOURCE OUT.fbx > out.json */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa.h"

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

static void print_pose(const ossa_model *m, const ossa_transform *local)
{
    uint32_t J = m->num_joints;
    double (*w)[16] = calloc(J ? J : 1, sizeof *w);
    printf("[");
    for (uint32_t j = 0; j < J; j++) {
        double l[16];
        trs(&local[j], l);
        int32_t p = m->joints[j].parent;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                double s = 0;
                for (int k = 0; k < 4; k++) s += (p >= 0 ? w[p][k * 4 + r] : (double)(k == r)) * l[c * 4 + k];
                w[j][c * 4 + r] = s;
            }
        printf("%s[", j ? ", " : "");
        for (int k = 0; k < 16; k++) printf("%s%.9g", k ? ", " : "", w[j][k]);
        printf("]");
    }
    printf("]");
    free(w);
}

static void print_name(const char *s, const char *fallback, uint32_t i)
{
    if (!s || !s[0]) {
        printf("\"%s%u\"", fallback, i);
        return;
    }
    putchar('"');
    for (; *s; s++)
        if (*s == '"' || *s == '\\') printf("\\%c", *s);
        else if ((unsigned char)*s >= 0x20) putchar(*s);
    putchar('"');
}

static void print_meshes(const ossa_model *m)
{
    uint32_t J = m->num_joints, V = m->num_vertices;
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    uint32_t ni = ia && wa ? (ia->size < wa->size ? ia->size : wa->size) : 0;
    float *idx = calloc((size_t)V * 8 + 1, sizeof *idx), *wgt = calloc((size_t)V * 8 + 1, sizeof *wgt);
    if (ni) {
        float *t = calloc((size_t)V * 8 + 1, sizeof *t);
        ossa_vertex_array_read(m, ia, 0, V, t);
        for (uint32_t v = 0; v < V; v++) memcpy(idx + v * 8, t + v * ia->size, ni * sizeof *t);
        ossa_vertex_array_read(m, wa, 0, V, t);
        for (uint32_t v = 0; v < V; v++) memcpy(wgt + v * 8, t + v * wa->size, ni * sizeof *t);
        free(t);
    }
    unsigned char *used = calloc(V + 1, 1);
    double *sum = calloc(J + 1, sizeof *sum);
    printf("[");
    int first = 1;
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        const ossa_mesh *me = &m->meshes[i];
        if (!me->num_triangles) continue;
        memset(used, 0, V);
        memset(sum, 0, J * sizeof *sum);
        uint32_t count = 0;
        for (uint32_t t = me->first_triangle; t < me->first_triangle + me->num_triangles; t++)
            for (int k = 0; k < 3; k++) {
                uint32_t v = m->triangles[t].v[k];
                if (used[v]) continue;
                used[v] = 1;
                count++;
                for (uint32_t s = 0; s < ni; s++)
                    if (wgt[v * 8 + s] > 0 && idx[v * 8 + s] < (float)J) sum[(uint32_t)idx[v * 8 + s]] += wgt[v * 8 + s];
            }
        printf("%s{\"name\": ", first ? "" : ", ");
        first = 0;
        print_name(me->name, "mesh", i);
        printf(", \"vertices\": %u, \"groups\": {", count);
        int g = 0;
        for (uint32_t j = 0; j < J; j++) {
            if (sum[j] <= 0) continue;
            printf("%s", g++ ? ", " : "");
            print_name(m->joints[j].name, "joint", j);
            printf(": %.9g", sum[j]);
        }
        printf("}}");
    }
    printf("]");
    free(used), free(sum), free(idx), free(wgt);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fbx_write_dump SOURCE OUT.fbx\n");
        return 2;
    }
    ossa_error err;
    char msg[600];
    ossa_model *m = ossa_load_file(argv[1], NULL, &err);
    /* Written facing where the source faces (OSSA_WRITE_KEEP_FRONT): the
     * check compares the FBX with the source's own poses; the turn to
     * FBX's front is tested in cli_fbx_write.sh and test_front. */
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.flags = OSSA_WRITE_KEEP_FRONT;
    if (!m || ossa_write_file(m, argv[2], &wo, &err)) {
        fprintf(stderr, "fbx_write_dump: %s\n", ossa_error_format(&err, msg, sizeof msg));
        return 1;
    }
    uint32_t J = m->num_joints;
    double file_fps = 0;
    for (uint32_t a = 0; a < m->num_animations && file_fps <= 0; a++)
        if (m->animations[a].num_frames) file_fps = m->animations[a].framerate;
    printf("{\"fps\": %.9g, \"names\": [", file_fps > 0 ? file_fps : 30.0);
    for (uint32_t j = 0; j < J; j++) {
        printf("%s", j ? ", " : "");
        print_name(m->joints[j].name, "joint", j);
    }
    ossa_transform *bind = calloc(J ? J : 1, sizeof *bind);
    /* The writer skins a model that rests otherwise than it is bound
     * (glTF) into its rest pose, which the FBX binds. */
    for (uint32_t j = 0; j < J; j++) bind[j] = m->rest_pose ? m->rest_pose[j] : m->joints[j].bind;
    printf("],\n\"bind\": ");
    print_pose(m, bind);
    printf(",\n\"animations\": [");
    int first = 1;
    for (uint32_t a = 0; a < m->num_animations && J; a++) {
        const ossa_animation *an = &m->animations[a];
        if (!an->num_frames) continue;
        printf("%s{\"name\": ", first ? "" : ",\n");
        first = 0;
        print_name(an->name, "animation", a);
        printf(", \"fps\": %.9g, \"frames\": %u, \"samples\": [", an->framerate > 0 ? an->framerate : 30.0,
               an->num_frames);
        uint32_t pick[3] = {0, an->num_frames / 2, an->num_frames - 1};
        for (int k = 0; k < 3; k++) {
            printf("%s{\"frame\": %u, \"world\": ", k ? ", " : "", pick[k]);
            print_pose(m, an->frames + (size_t)pick[k] * J);
            printf("}");
        }
        printf("]}");
    }
    printf("],\n\"meshes\": ");
    print_meshes(m);
    printf("}\n");
    free(bind);
    ossa_model_free(m);
    return 0;
}
