/* The model that `ossa demo` writes: a skinned tube on a 4-joint chain
 * with two animations, built only through the public builder API so that
 * it doubles as an example of that API. */
#include "cli.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

enum {
    SIDES = 8,  /* around the tube */
    RINGS = 13, /* along +Z, 4 per joint segment */
    JOINTS = 4,
    /* The side repeats its first column so that u runs 0..1 without a seam
     * of shared vertices; each cap has a centre and its own rim (the rim
     * needs normals along the axis, not radial ones). */
    SIDE_VERTICES = (SIDES + 1) * RINGS,
    CAP_VERTICES = 1 + SIDES,
    NUM_VERTICES = SIDE_VERTICES + 2 * CAP_VERTICES,
    NUM_TRIANGLES = 2 * SIDES * (RINGS - 1) + 2 * SIDES,
    WAVE_FRAMES = 30,
    BEND_FRAMES = 20
};

static const float RADIUS = 0.25f;
static const float LENGTH = (float)(JOINTS - 1); /* joints are 1 unit apart */

typedef struct vertex_data {
    float position[NUM_VERTICES * 3];
    float normal[NUM_VERTICES * 3];
    float texcoord[NUM_VERTICES * 2];
    float blend_index[NUM_VERTICES * 4];
    float blend_weight[NUM_VERTICES * 4];
    ossa_triangle triangles[NUM_TRIANGLES];
} vertex_data;

/* Skins a vertex at height z to the two joints nearest to it, linearly:
 * joint j sits at z = j. The larger weight comes first and an unused slot
 * gets index 0, weight 0, as IQM files expect (docs/formats/iqm.md §8.3). */
static void set_blend(vertex_data *d, uint32_t v, float z)
{
    int lower = (int)floorf(z);
    if (lower > JOINTS - 2) lower = JOINTS - 2;
    if (lower < 0) lower = 0;
    float t = z - (float)lower;
    float w[2] = {1.0f - t, t};
    int j[2] = {lower, lower + 1};
    if (w[1] > w[0]) {
        float tw = w[0];
        w[0] = w[1], w[1] = tw;
        int tj = j[0];
        j[0] = j[1], j[1] = tj;
    }
    if (w[1] <= 0.001f) w[1] = 0, j[1] = 0;
    float *idx = &d->blend_index[v * 4], *wt = &d->blend_weight[v * 4];
    idx[0] = (float)j[0], wt[0] = w[0];
    idx[1] = (float)j[1], wt[1] = w[1];
    idx[2] = idx[3] = wt[2] = wt[3] = 0;
}

static void set_vertex(vertex_data *d, uint32_t v, const float p[3], const float n[3], float u,
                       float tv)
{
    memcpy(&d->position[v * 3], p, sizeof(float) * 3);
    memcpy(&d->normal[v * 3], n, sizeof(float) * 3);
    d->texcoord[v * 2] = u;
    d->texcoord[v * 2 + 1] = tv;
    set_blend(d, v, p[2]);
}

/* Triangles are clockwise seen from outside: IQM's front faces, whose
 * outward normal is cross(p2 - p0, p1 - p0) (docs/formats/iqm.md §11). */
static void build_geometry(vertex_data *d)
{
    uint32_t t = 0;
    for (uint32_t r = 0; r < RINGS; r++) {
        float z = LENGTH * (float)r / (float)(RINGS - 1);
        for (uint32_t s = 0; s <= SIDES; s++) {
            double a = 2.0 * PI * (double)s / SIDES;
            float c = (float)cos(a), sn = (float)sin(a);
            float p[3] = {RADIUS * c, RADIUS * sn, z}, n[3] = {c, sn, 0};
            /* V runs down the texture (top-left origin): the top is v = 0. */
            set_vertex(d, r * (SIDES + 1) + s, p, n, (float)s / SIDES, 1.0f - z / LENGTH);
        }
    }
    for (uint32_t r = 0; r + 1 < RINGS; r++)
        for (uint32_t s = 0; s < SIDES; s++) {
            /* a b: this ring, angle increasing; c d: the ring above. */
            uint32_t a = r * (SIDES + 1) + s, b = a + 1, c = a + SIDES + 1, e = c + 1;
            d->triangles[t++] = (ossa_triangle){{a, e, b}};
            d->triangles[t++] = (ossa_triangle){{a, c, e}};
        }

    for (int cap = 0; cap < 2; cap++) {
        uint32_t base = SIDE_VERTICES + (uint32_t)cap * CAP_VERTICES;
        float z = cap ? LENGTH : 0.0f;
        float n[3] = {0, 0, cap ? 1.0f : -1.0f};
        float centre[3] = {0, 0, z};
        set_vertex(d, base, centre, n, 0.5f, 0.5f);
        for (uint32_t s = 0; s < SIDES; s++) {
            double a = 2.0 * PI * (double)s / SIDES;
            float c = (float)cos(a), sn = (float)sin(a);
            float p[3] = {RADIUS * c, RADIUS * sn, z};
            set_vertex(d, base + 1 + s, p, n, 0.5f + 0.5f * c, 0.5f - 0.5f * sn);
        }
        for (uint32_t s = 0; s < SIDES; s++) {
            uint32_t r0 = base + 1 + s, r1 = base + 1 + (s + 1) % SIDES;
            /* Seen from below (bottom cap) the rim runs the other way. */
            d->triangles[t++] = cap ? (ossa_triangle){{base, r1, r0}}
                                    : (ossa_triangle){{base, r0, r1}};
        }
    }
}

/* Rotation by `angle` radians about X. */
static void rotate_x(ossa_transform *t, double angle)
{
    t->rotation[0] = (float)sin(angle / 2);
    t->rotation[1] = t->rotation[2] = 0;
    t->rotation[3] = (float)cos(angle / 2);
}

static ossa_status add_animations(ossa_model *model, ossa_error *error)
{
    /* "wave": every joint but the root swings about X, each a little later
     * than its parent, and frame 30 would equal frame 0: a seamless loop. */
    ossa_animation *wave = ossa_model_add_animation(model, "wave", WAVE_FRAMES, 30.0f,
                                                    OSSA_ANIMATION_LOOP, error);
    if (!wave) return OSSA_FAILED;
    for (uint32_t f = 0; f < WAVE_FRAMES; f++)
        for (uint32_t j = 1; j < JOINTS; j++) {
            double phase = (double)j * PI / 4;
            double angle = 0.5 * sin(2.0 * PI * (double)f / WAVE_FRAMES + phase);
            rotate_x(&wave->frames[f * JOINTS + j], angle);
        }

    /* "bend": plays once, curling the chain from straight to a quarter
     * turn; every joint takes an equal share of the bend. */
    ossa_animation *bend = ossa_model_add_animation(model, "bend", BEND_FRAMES, 20.0f, 0, error);
    if (!bend) return OSSA_FAILED;
    for (uint32_t f = 0; f < BEND_FRAMES; f++) {
        double t = (double)f / (BEND_FRAMES - 1);
        for (uint32_t j = 0; j < JOINTS; j++)
            rotate_x(&bend->frames[f * JOINTS + j], t * (PI / 2) / JOINTS);
    }
    return OSSA_OK;
}

static ossa_status build(ossa_model *model, const vertex_data *d, ossa_error *error)
{
    static const char *const names[JOINTS] = {"root", "lower", "upper", "tip"};
    for (int32_t j = 0; j < JOINTS; j++) {
        ossa_transform bind = ossa_transform_identity();
        if (j > 0) bind.translation[2] = 1.0f;
        if (ossa_model_add_joint(model, names[j], j - 1, &bind, error) < 0) return OSSA_FAILED;
    }

    static const struct {
        ossa_vertex_type type;
        ossa_component format;
        uint32_t size;
        size_t offset;
    } arrays[] = {
        {OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, offsetof(vertex_data, position)},
        {OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, offsetof(vertex_data, texcoord)},
        {OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, offsetof(vertex_data, normal)},
        {OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, offsetof(vertex_data, blend_index)},
        {OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, offsetof(vertex_data, blend_weight)},
    };
    if (ossa_model_set_num_vertices(model, NUM_VERTICES, error) != OSSA_OK) return OSSA_FAILED;
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        const float *values = (const float *)((const char *)d + arrays[i].offset);
        if (!ossa_model_add_vertex_array_floats(model, arrays[i].type, arrays[i].format,
                                                arrays[i].size, NULL, values, error))
            return OSSA_FAILED;
    }
    if (ossa_model_set_triangles(model, NUM_TRIANGLES, d->triangles, error) != OSSA_OK)
        return OSSA_FAILED;
    if (ossa_model_add_mesh(model, "tube", "tube", 0, NUM_VERTICES, 0, NUM_TRIANGLES, error) < 0)
        return OSSA_FAILED;

    static const char comment[] = "ossa demo: a skinned tube on a 4-joint chain";
    if (ossa_model_set_comment(model, comment, sizeof comment - 1, error) != OSSA_OK)
        return OSSA_FAILED;
    return add_animations(model, error);
}

ossa_model *demo_build_model(ossa_error *error)
{
    /* About 12 KiB of vertex data: on the heap rather than the stack. */
    vertex_data *d = calloc(1, sizeof *d);
    ossa_model *model = d ? ossa_model_create(NULL) : NULL;
    if (!model) {
        free(d);
        if (error) {
            memset(error, 0, sizeof *error);
            error->code = OSSA_ERROR_NOMEM;
            error->offset = OSSA_NO_OFFSET;
            snprintf(error->message, sizeof error->message, "out of memory");
        }
        return NULL;
    }
    build_geometry(d);
    ossa_status status = build(model, d, error);
    free(d);
    if (status != OSSA_OK) {
        ossa_model_free(model);
        return NULL;
    }
    return model;
}
