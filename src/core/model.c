/* The model: creation, builders that keep it consistent, merging. */
#include "core/internal.h"

#include <math.h>

void *ossa__temp_alloc(const ossa_model *model, size_t size)
{
    return ossa__alloc(&model->internal->arena.allocator, size ? size : 1);
}

void *ossa__temp_calloc(const ossa_model *model, size_t count, size_t elem)
{
    return ossa__calloc(&model->internal->arena.allocator, count, elem);
}

void ossa__temp_free(const ossa_model *model, void *ptr)
{
    ossa__free(&model->internal->arena.allocator, ptr, 0);
}

ossa_model *ossa_model_create(const ossa_allocator *allocator)
{
    ossa_arena arena;
    ossa__arena_init(&arena, allocator);
    ossa_model *m = ossa__arena_alloc(&arena, sizeof *m);
    ossa_model_internal *in = ossa__arena_alloc(&arena, sizeof *in);
    if (!m || !in) {
        ossa__arena_release(&arena);
        return NULL;
    }
    in->arena = arena;
    m->internal = in;
    return m;
}

void ossa_model_free(ossa_model *model)
{
    if (!model) return;
    /* The model and its internals live in the arena they describe: copy
     * the arena out before releasing it. */
    ossa_arena arena = model->internal->arena;
    ossa__arena_release(&arena);
}

int32_t ossa_model_add_joint(ossa_model *model, const char *name, int32_t parent,
                             const ossa_transform *bind, ossa_error *error)
{
    ossa_model_internal *in = model->internal;
    if (model->num_animations) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "joints cannot be added to a model that has animations");
        return -1;
    }
    if (model->num_joints >= INT32_MAX) {
        ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET, "too many joints");
        return -1;
    }
    if (parent < -1 || (parent >= 0 && (uint32_t)parent >= model->num_joints)) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "joint %u: parent %d is not an earlier joint", model->num_joints, parent);
        return -1;
    }
    ossa_joint *j = ossa__arena_grow(&in->arena, model->joints, model->num_joints, &in->cap_joints,
                                     sizeof *j);
    char *n = ossa__arena_strdup(&in->arena, name);
    /* A rest pose grows with the joints: a new joint rests in its bind
     * pose. */
    ossa_transform *rest = !model->rest_pose ? NULL
                           : ossa__arena_grow(&in->arena, model->rest_pose, model->num_joints,
                                              &in->cap_rest, sizeof *rest);
    if (!j || !n || (model->rest_pose && !rest)) {
        ossa__fail_nomem(error);
        return -1;
    }
    model->joints = j;
    ossa_joint *nj = &j[model->num_joints];
    nj->name = n;
    nj->parent = parent;
    nj->bind = bind ? *bind : ossa_transform_identity();
    if (rest) {
        model->rest_pose = rest;
        rest[model->num_joints] = nj->bind;
    }
    return (int32_t)model->num_joints++;
}

ossa_status ossa_model_set_rest_pose(ossa_model *model, const ossa_transform *rest,
                                     ossa_error *error)
{
    ossa__error_clear(error);
    if (!rest || !model->num_joints) {
        model->rest_pose = NULL;
        return OSSA_OK;
    }
    for (uint32_t j = 0; j < model->num_joints; j++) {
        const ossa_transform *t = &rest[j];
        double q = 0;
        for (int c = 0; c < 4; c++) q += (double)t->rotation[c] * t->rotation[c];
        if (!ossa__finite3(t->translation) || !ossa__finite3(t->scale) || !isfinite(q) || !(q > 0))
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "joint %u '%s': the rest pose is not finite (or its rotation has "
                              "no length)",
                              j, model->joints[j].name);
    }
    ossa_model_internal *in = model->internal;
    ossa_transform *copy = ossa__arena_array(&in->arena, model->num_joints, sizeof *copy);
    if (!copy) return ossa__fail_nomem(error);
    memcpy(copy, rest, (size_t)model->num_joints * sizeof *copy);
    for (uint32_t j = 0; j < model->num_joints; j++) ossa__quat_tidy(copy[j].rotation);
    model->rest_pose = copy;
    in->cap_rest = model->num_joints;
    return OSSA_OK;
}

ossa_status ossa_model_set_num_vertices(ossa_model *model, uint32_t count, ossa_error *error)
{
    if (model->num_vertex_arrays && count != model->num_vertices)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the vertex count cannot change once vertex arrays exist");
    model->num_vertices = count;
    return OSSA_OK;
}

static ossa_vertex_array *new_array(ossa_model *model, ossa_vertex_type type, ossa_component format,
                                    uint32_t size, const char *name, ossa_error *error)
{
    ossa_model_internal *in = model->internal;
    size_t cs = ossa_component_size(format);
    if (!cs) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "unknown component format %d",
                   (int)format);
        return NULL;
    }
    if (size < 1 || size > OSSA_MAX_COMPONENTS) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "%s array: %u components per vertex (expected 1..%d)",
                   ossa_vertex_type_name(type), size, OSSA_MAX_COMPONENTS);
        return NULL;
    }
    if ((unsigned)type > OSSA_VERTEX_COLOR && type != OSSA_VERTEX_CUSTOM) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "unknown vertex array type %d",
                   (int)type);
        return NULL;
    }
    ossa_vertex_array *a = ossa__arena_grow(&in->arena, model->vertex_arrays,
                                            model->num_vertex_arrays, &in->cap_arrays, sizeof *a);
    void *data = ossa__arena_array(&in->arena, (size_t)model->num_vertices * size, cs);
    char *n = ossa__arena_strdup(&in->arena, type == OSSA_VERTEX_CUSTOM ? name : "");
    if (!a || !data || !n) {
        ossa__fail_nomem(error);
        return NULL;
    }
    model->vertex_arrays = a;
    ossa_vertex_array *na = &a[model->num_vertex_arrays++];
    na->type = type;
    na->format = format;
    na->size = size;
    na->name = n;
    na->data = data;
    return na;
}

ossa_vertex_array *ossa_model_add_vertex_array(ossa_model *model, ossa_vertex_type type,
                                               ossa_component format, uint32_t size,
                                               const char *name, const void *data, ossa_error *error)
{
    ossa_vertex_array *a = new_array(model, type, format, size, name, error);
    if (a && data)
        memcpy(a->data, data, (size_t)model->num_vertices * size * ossa_component_size(format));
    return a;
}

/* Largest-remainder rounding of one vertex's weights to ubytes summing to
 * 255 (docs/formats/iqm.md §8.3): floor each, then hand the missing units to the
 * largest fractional parts, ties to the lower slot. */
void ossa__ubyte_weights(const float *w, uint32_t n, uint8_t *out)
{
    double sum = 0, scaled[OSSA_MAX_COMPONENTS];
    /* an infinite or NaN weight counts as none: inf / inf would be NaN,
     * which no ubyte holds */
    for (uint32_t k = 0; k < n; k++) sum += w[k] > 0 && isfinite(w[k]) ? w[k] : 0;
    int total = 0;
    for (uint32_t k = 0; k < n; k++) {
        scaled[k] = sum > 0 && w[k] > 0 && isfinite(w[k]) ? w[k] / sum * 255.0 : 0;
        double f = floor(scaled[k]);
        out[k] = (uint8_t)f;
        scaled[k] -= f;
        total += out[k];
    }
    if (sum <= 0) return;
    while (total < 255) {
        uint32_t best = 0;
        for (uint32_t k = 1; k < n; k++)
            if (scaled[k] > scaled[best]) best = k;
        out[best]++;
        scaled[best] = -1;
        total++;
    }
}

ossa_vertex_array *ossa_model_add_vertex_array_floats(ossa_model *model, ossa_vertex_type type,
                                                      ossa_component format, uint32_t size,
                                                      const char *name, const float *values,
                                                      ossa_error *error)
{
    ossa_vertex_array *a = new_array(model, type, format, size, name, error);
    if (!a || !values) return a;
    size_t cs = ossa_component_size(format);
    unsigned char *out = a->data;
    if (type == OSSA_VERTEX_BLENDWEIGHTS && format == OSSA_UBYTE) {
        for (uint32_t v = 0; v < model->num_vertices; v++)
            ossa__ubyte_weights(values + (size_t)v * size, size, out + (size_t)v * size);
        return a;
    }
    bool raw = type == OSSA_VERTEX_BLENDINDEXES;
    size_t n = (size_t)model->num_vertices * size;
    for (size_t i = 0; i < n; i++) ossa__component_put(format, out + i * cs, values[i], raw);
    return a;
}

ossa_status ossa_model_set_triangles(ossa_model *model, uint32_t count, const ossa_triangle *tris,
                                     ossa_error *error)
{
    for (uint32_t t = 0; t < count; t++)
        for (int k = 0; k < 3; k++)
            if (tris[t].v[k] >= model->num_vertices)
                return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                                  "triangle %u: vertex %u is out of range (%u vertices)", t,
                                  tris[t].v[k], model->num_vertices);
    ossa_triangle *copy = ossa__arena_array(ossa__model_arena(model), count, sizeof *copy);
    if (!copy && count) return ossa__fail_nomem(error);
    if (count) memcpy(copy, tris, (size_t)count * sizeof *copy);
    model->triangles = copy;
    model->num_triangles = count;
    model->adjacency = NULL;
    return OSSA_OK;
}

int32_t ossa_model_add_mesh(ossa_model *model, const char *name, const char *material,
                            uint32_t first_vertex, uint32_t num_vertices, uint32_t first_triangle,
                            uint32_t num_triangles, ossa_error *error)
{
    ossa_model_internal *in = model->internal;
    if ((uint64_t)first_vertex + num_vertices > model->num_vertices ||
        (uint64_t)first_triangle + num_triangles > model->num_triangles) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                   "mesh '%s': range outside the model's %u vertices and %u triangles",
                   name ? name : "", model->num_vertices, model->num_triangles);
        return -1;
    }
    ossa_mesh *m = ossa__arena_grow(&in->arena, model->meshes, model->num_meshes, &in->cap_meshes,
                                    sizeof *m);
    char *n = ossa__arena_strdup(&in->arena, name);
    char *mat = ossa__arena_strdup(&in->arena, material);
    if (!m || !n || !mat) {
        ossa__fail_nomem(error);
        return -1;
    }
    model->meshes = m;
    ossa_mesh *nm = &m[model->num_meshes];
    nm->name = n;
    nm->material = mat;
    nm->first_vertex = first_vertex;
    nm->num_vertices = num_vertices;
    nm->first_triangle = first_triangle;
    nm->num_triangles = num_triangles;
    return (int32_t)model->num_meshes++;
}

ossa_animation *ossa_model_add_animation(ossa_model *model, const char *name, uint32_t num_frames,
                                         float framerate, uint32_t flags, ossa_error *error)
{
    ossa_model_internal *in = model->internal;
    ossa_animation *a = ossa__arena_grow(&in->arena, model->animations, model->num_animations,
                                         &in->cap_animations, sizeof *a);
    char *n = ossa__arena_strdup(&in->arena, name);
    ossa_transform *frames = ossa__arena_array(&in->arena, (size_t)num_frames * model->num_joints,
                                               sizeof *frames);
    if (!a || !n || (!frames && num_frames && model->num_joints)) {
        ossa__fail_nomem(error);
        return NULL;
    }
    for (uint32_t f = 0; f < num_frames; f++)
        for (uint32_t j = 0; j < model->num_joints; j++)
            frames[(size_t)f * model->num_joints + j] = *ossa__rest(model, j);
    model->animations = a;
    ossa_animation *na = &a[model->num_animations++];
    memset(na, 0, sizeof *na);
    na->name = n;
    na->num_frames = num_frames;
    na->framerate = framerate;
    na->flags = flags;
    na->frames = frames;
    return na;
}

static ossa_animation *animation_at(ossa_model *model, uint32_t animation, ossa_error *error)
{
    if (animation < model->num_animations) return &model->animations[animation];
    ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "animation %u does not exist (%u)",
               animation, model->num_animations);
    return NULL;
}

ossa_status ossa_model_set_animation_frames(ossa_model *model, uint32_t animation, uint32_t first,
                                            uint32_t count, const ossa_transform *frames,
                                            ossa_error *error)
{
    ossa_animation *a = animation_at(model, animation, error);
    if (!a) return OSSA_FAILED;
    if (first > a->num_frames || count > a->num_frames - first)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "frames %u..%u are outside animation '%s' (%u frames)", first,
                          first + count, a->name, a->num_frames);
    if (count && model->num_joints)
        memcpy(a->frames + (size_t)first * model->num_joints, frames,
               (size_t)count * model->num_joints * sizeof *frames);
    return OSSA_OK;
}

uint8_t *ossa__animation_channels(ossa_model *model, ossa_animation *a)
{
    a->channels = ossa__arena_alloc(ossa__model_arena(model), (size_t)model->num_joints + 1);
    return a->channels;
}

ossa_bounds *ossa__animation_bounds(ossa_model *model, ossa_animation *a)
{
    a->bounds = a->num_frames ? ossa__arena_array(ossa__model_arena(model), a->num_frames,
                                                  sizeof *a->bounds)
                              : NULL;
    return a->bounds;
}

ossa_status ossa_model_set_animation_bounds(ossa_model *model, uint32_t animation,
                                            const ossa_bounds *bounds, ossa_error *error)
{
    ossa_animation *a = animation_at(model, animation, error);
    if (!a) return OSSA_FAILED;
    if (!bounds || !a->num_frames) {
        a->bounds = NULL;
        return OSSA_OK;
    }
    ossa_bounds *copy = ossa__animation_bounds(model, a);
    if (!copy) return ossa__fail_nomem(error);
    memcpy(copy, bounds, (size_t)a->num_frames * sizeof *copy);
    return OSSA_OK;
}

ossa_status ossa_model_set_animation_channels(ossa_model *model, uint32_t animation,
                                              const uint8_t *channels, ossa_error *error)
{
    ossa_animation *a = animation_at(model, animation, error);
    if (!a) return OSSA_FAILED;
    if (!channels || !model->num_joints) {
        a->channels = NULL;
        return OSSA_OK;
    }
    uint8_t *copy = ossa__animation_channels(model, a);
    if (!copy) return ossa__fail_nomem(error);
    memcpy(copy, channels, model->num_joints);
    return OSSA_OK;
}

ossa_status ossa_model_set_comment(ossa_model *model, const void *text, size_t size, ossa_error *error)
{
    if (!text || !size) {
        model->comment = NULL;
        model->comment_size = 0;
        return OSSA_OK;
    }
    char *c = ossa__arena_strndup(ossa__model_arena(model), text, size);
    if (!c) return ossa__fail_nomem(error);
    model->comment = c;
    model->comment_size = size;
    return OSSA_OK;
}

ossa_status ossa_model_add_extra(ossa_model *model, const char *key, const void *data, size_t size,
                                 ossa_error *error)
{
    ossa_model_internal *in = model->internal;
    ossa_extra *e = ossa__arena_grow(&in->arena, model->extras, model->num_extras, &in->cap_extras,
                                     sizeof *e);
    char *k = ossa__arena_strdup(&in->arena, key);
    void *d = ossa__arena_alloc(&in->arena, size);
    if (!e || !k || !d) return ossa__fail_nomem(error);
    if (size) memcpy(d, data, size);
    model->extras = e;
    e[model->num_extras].key = k;
    e[model->num_extras].data = d;
    e[model->num_extras].size = size;
    model->num_extras++;
    return OSSA_OK;
}

const ossa_vertex_array *ossa_model_find_array(const ossa_model *model, ossa_vertex_type type,
                                               const char *name)
{
    for (uint32_t i = 0; i < model->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &model->vertex_arrays[i];
        if (a->type != type) continue;
        if (type == OSSA_VERTEX_CUSTOM && name && strcmp(a->name, name) != 0) continue;
        return a;
    }
    return NULL;
}

void ossa_model_set_front(ossa_model *model, ossa_front front)
{
    if (model && (unsigned)front <= OSSA_FRONT_NEG_X) model->front = front;
}

int32_t ossa_model_find_joint(const ossa_model *model, const char *name)
{
    for (uint32_t j = 0; model && name && j < model->num_joints && j < INT32_MAX; j++)
        if (strcmp(model->joints[j].name, name) == 0) return (int32_t)j;
    return -1;
}

int32_t ossa_model_find_animation(const ossa_model *model, const char *name)
{
    for (uint32_t a = 0; model && name && a < model->num_animations && a < INT32_MAX; a++)
        if (strcmp(model->animations[a].name, name) == 0) return (int32_t)a;
    return -1;
}
