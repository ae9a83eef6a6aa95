/* Turning a model to another front by quarter turns about +Z: a change of
 * axes that only moves floats and flips their signs, so that turning there
 * and back gives the model bit for bit, but for the sign of zeros
 * (front.h). */
#include "core/front.h"

uint32_t ossa__front_quarters(ossa_front from, ossa_front to)
{
    if (from == OSSA_FRONT_UNKNOWN || to == OSSA_FRONT_UNKNOWN) return 0;
    /* NEG_Y, POS_X, POS_Y, NEG_X follow each other counter-clockwise */
    return ((uint32_t)to - (uint32_t)from + 4) % 4;
}

/* (x, y) turned by q quarter turns: (-y, x) each; a zero stays +0 (no
 * "-0" in text files), the only bits a turn there and back can change. */
static void turn_xy(float *x, float *y, uint32_t q)
{
    for (uint32_t i = 0; i < q; i++) {
        float t = *x;
        *x = -*y + 0.0f;
        *y = t;
    }
}

/* A pose in the turned axes: R M R^-1 for the rotation R of the turn, so
 * translation R t, rotation axis R v with the same angle, and the scale's
 * x and y swapped for an odd number of quarter turns (R diag(s) R^-1). */
static void turn_transform(ossa_transform *t, uint32_t q)
{
    turn_xy(&t->translation[0], &t->translation[1], q);
    turn_xy(&t->rotation[0], &t->rotation[1], q);
    if (q & 1) {
        float s = t->scale[0];
        t->scale[0] = t->scale[1];
        t->scale[1] = s;
    }
}

/* The box of the turned points: the corners turn, min and max swap where
 * a sign flips. Radii do not change. */
static void turn_bounds(ossa_bounds *b, uint32_t q)
{
    for (uint32_t i = 0; i < q; i++) {
        float x0 = b->min[0], x1 = b->max[0];
        b->min[0] = -b->max[1];
        b->max[0] = -b->min[1];
        b->min[1] = x0;
        b->max[1] = x1;
    }
}

static bool turns(const ossa_vertex_array *a)
{
    return a->size >= 2 && (a->type == OSSA_VERTEX_POSITION || a->type == OSSA_VERTEX_NORMAL ||
                            a->type == OSSA_VERTEX_TANGENT ||
                            (a->type == OSSA_VERTEX_CUSTOM && strcmp(a->name, "bitangent") == 0));
}

/* The turned copy of array a (floats; doubles stay doubles). */
static void *turn_array(const ossa_model *m, const ossa_vertex_array *a, uint32_t q,
                        const ossa_allocator *alloc)
{
    size_t n = (size_t)m->num_vertices * a->size;
    if (a->format == OSSA_DOUBLE) {
        double *d = ossa__alloc(alloc, (n + 1) * sizeof *d);
        if (!d) return NULL;
        memcpy(d, a->data, n * sizeof *d);
        for (size_t v = 0; v < m->num_vertices; v++)
            for (uint32_t i = 0; i < q; i++) {
                double *p = d + v * a->size, x = p[0];
                p[0] = -p[1] + 0.0;
                p[1] = x;
            }
        return d;
    }
    float *f = ossa__alloc(alloc, (n + 1) * sizeof *f);
    if (!f) return NULL;
    ossa_vertex_array_read(m, a, 0, m->num_vertices, f);
    for (size_t v = 0; v < m->num_vertices; v++) turn_xy(&f[v * a->size], &f[v * a->size + 1], q);
    return f;
}

static ossa_status turn_arrays(ossa__front_turned *t, const ossa_model *m, uint32_t q,
                               ossa_error *error)
{
    uint32_t n = m->num_vertex_arrays;
    t->arrays = ossa__alloc(t->allocator, (n + 1) * sizeof *t->arrays);
    t->data = ossa__calloc(t->allocator, n + 1, sizeof *t->data);
    if (!t->arrays || !t->data) return ossa__fail_nomem(error);
    if (n) memcpy(t->arrays, m->vertex_arrays, n * sizeof *t->arrays);
    t->view.vertex_arrays = t->arrays;
    for (uint32_t i = 0; i < n; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        if (!turns(a) || !m->num_vertices) continue;
        t->data[i] = turn_array(m, a, q, t->allocator);
        if (!t->data[i]) return ossa__fail_nomem(error);
        t->arrays[i].data = t->data[i];
        if (a->format != OSSA_DOUBLE) t->arrays[i].format = OSSA_FLOAT;
    }
    return OSSA_OK;
}

static ossa_status turn_animations(ossa__front_turned *t, const ossa_model *m, uint32_t q,
                                   ossa_error *error)
{
    size_t frames = 0, bounds = 0;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        frames += (size_t)m->animations[a].num_frames * m->num_joints;
        if (m->animations[a].bounds) bounds += m->animations[a].num_frames;
    }
    t->animations = ossa__alloc(t->allocator, ((size_t)m->num_animations + 1) * sizeof *t->animations);
    t->frames = ossa__alloc(t->allocator, (frames + 1) * sizeof *t->frames);
    t->bounds = ossa__alloc(t->allocator, (bounds + 1) * sizeof *t->bounds);
    if (!t->animations || !t->frames || !t->bounds) return ossa__fail_nomem(error);
    t->view.animations = t->animations;
    frames = bounds = 0;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        ossa_animation *out = &t->animations[a];
        *out = *an;
        size_t n = (size_t)an->num_frames * m->num_joints;
        out->frames = t->frames + frames;
        if (n) memcpy(out->frames, an->frames, n * sizeof *out->frames);
        for (size_t i = 0; i < n; i++) turn_transform(&out->frames[i], q);
        frames += n;
        if (!an->bounds) continue;
        out->bounds = t->bounds + bounds;
        if (an->num_frames) memcpy(out->bounds, an->bounds, an->num_frames * sizeof *out->bounds);
        for (uint32_t f = 0; f < an->num_frames; f++) turn_bounds(&out->bounds[f], q);
        bounds += an->num_frames;
    }
    return OSSA_OK;
}

void ossa__front_release(ossa__front_turned *t)
{
    if (t->data)
        for (uint32_t i = 0; i < t->view.num_vertex_arrays; i++)
            ossa__free(t->allocator, t->data[i], 0);
    ossa__free(t->allocator, t->data, 0);
    ossa__free(t->allocator, t->arrays, 0);
    ossa__free(t->allocator, t->joints, 0);
    ossa__free(t->allocator, t->rest_pose, 0);
    ossa__free(t->allocator, t->animations, 0);
    ossa__free(t->allocator, t->frames, 0);
    ossa__free(t->allocator, t->bounds, 0);
    t->data = NULL;
    t->arrays = NULL;
    t->joints = NULL;
    t->rest_pose = NULL;
    t->animations = NULL;
    t->frames = NULL;
    t->bounds = NULL;
}

ossa_status ossa__front_turn(const ossa_model *model, ossa_front to, const ossa_allocator *allocator,
                             ossa__front_turned *out, ossa_error *error)
{
    memset(out, 0, sizeof *out);
    out->view = *model;
    out->allocator = allocator;
    uint32_t q = ossa__front_quarters(model->front, to);
    if (!q) return OSSA_OK;
    out->view.front = to;
    out->joints = ossa__alloc(allocator, ((size_t)model->num_joints + 1) * sizeof *out->joints);
    ossa_status st = out->joints ? OSSA_OK : ossa__fail_nomem(error);
    if (!st) {
        if (model->num_joints) /* memcpy takes no NULL, even for 0 bytes */
            memcpy(out->joints, model->joints, model->num_joints * sizeof *out->joints);
        for (uint32_t j = 0; j < model->num_joints; j++) turn_transform(&out->joints[j].bind, q);
        out->view.joints = out->joints;
        st = turn_arrays(out, model, q, error);
    }
    if (!st && model->rest_pose) {
        /* the rest pose turns as the bind pose does (glTF keeps both) */
        out->rest_pose = ossa__alloc(allocator, ((size_t)model->num_joints + 1) * sizeof *out->rest_pose);
        if (!out->rest_pose) st = ossa__fail_nomem(error);
        for (uint32_t j = 0; !st && j < model->num_joints; j++) {
            out->rest_pose[j] = model->rest_pose[j];
            turn_transform(&out->rest_pose[j], q);
        }
        if (!st) out->view.rest_pose = out->rest_pose;
    }
    if (!st) st = turn_animations(out, model, q, error);
    if (st) {
        ossa__front_release(out);
        out->view = *model;
    }
    return st;
}
