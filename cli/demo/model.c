/* The demo character as an ossa_model: the skeleton, one skinned mesh
 * whose material is the painted texture (kept in the model as a PNG
 * image, so that writers put it beside or inside their files), and the
 * two looping animations. */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ossa_status out_of_memory(ossa_error *error)
{
    if (error) {
        memset(error, 0, sizeof *error);
        error->code = OSSA_ERROR_NOMEM;
        error->severity = OSSA_SEVERITY_ERROR;
        error->offset = OSSA_NO_OFFSET;
        snprintf(error->message, sizeof error->message, "out of memory");
    }
    return OSSA_FAILED;
}

/* Vertex arrays as IQM files usually hold them: floats, and blend data
 * as bytes (weights summing to exactly 255, which is 1). */
static ossa_status add_mesh(ossa_model *model, const demo_mesh *mesh, ossa_error *error)
{
    uint32_t n = mesh->num_vertices;
    float *index = malloc(sizeof(float) * 4 * n), *weight = malloc(sizeof(float) * 4 * n);
    ossa_status st = index && weight ? OSSA_OK : out_of_memory(error);
    for (uint32_t v = 0; v < n && !st; v++) demo_vertex_weights(mesh, v, &index[v * 4], &weight[v * 4]);
    const struct {
        ossa_vertex_type type;
        ossa_component format;
        uint32_t size;
        const float *values;
    } arrays[] = {
        {OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, mesh->position},
        {OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, mesh->texcoord},
        {OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, mesh->normal},
        {OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, index},
        {OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, weight},
    };
    if (!st) st = ossa_model_set_num_vertices(model, n, error);
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0] && !st; i++)
        if (!ossa_model_add_vertex_array_floats(model, arrays[i].type, arrays[i].format,
                                                arrays[i].size, NULL, arrays[i].values, error))
            st = OSSA_FAILED;
    if (!st) st = ossa_model_set_triangles(model, mesh->num_triangles, mesh->triangles, error);
    if (!st && ossa_model_add_mesh(model, "body", DEMO_TEXTURE_NAME, 0, n, 0, mesh->num_triangles,
                                   error) < 0)
        st = OSSA_FAILED;
    free(index);
    free(weight);
    return st;
}

/* The texture as a PNG file's bytes, under the material's name. */
static ossa_status add_texture(ossa_model *model, ossa_error *error)
{
    size_t size = (size_t)DEMO_TEXTURE_WIDTH * DEMO_TEXTURE_HEIGHT * 4;
    ossa_render_image image = {DEMO_TEXTURE_WIDTH, DEMO_TEXTURE_HEIGHT, malloc(size), 0, NULL};
    if (!image.pixels) return out_of_memory(error);
    demo_texture_paint(image.pixels);
    void *png = NULL;
    size_t png_size = 0;
    ossa_status st = ossa_render_png_encode(&image, NULL, &png, &png_size, error);
    free(image.pixels);
    if (!st) st = ossa_model_add_extra(model, OSSA_EXTRA_IMAGE DEMO_TEXTURE_NAME, png, png_size, error);
    ossa_free(png, NULL);
    return st;
}

static ossa_status add_animation(ossa_model *model, const char *name, uint32_t frames, float fps,
                                 void (*pose_at)(uint32_t, demo_pose *), ossa_error *error)
{
    ossa_animation *anim = ossa_model_add_animation(model, name, frames, fps, OSSA_ANIMATION_LOOP, error);
    if (!anim) return OSSA_FAILED;
    demo_pose pose;
    for (uint32_t f = 0; f < frames; f++) {
        pose_at(f, &pose);
        memcpy(&anim->frames[(size_t)f * DEMO_NUM_JOINTS], pose.local, sizeof pose.local);
    }
    return OSSA_OK;
}

ossa_model *demo_build_model(ossa_error *error)
{
    ossa_model *model = ossa_model_create(NULL);
    if (!model) {
        out_of_memory(error);
        return NULL;
    }
    /* it faces -Y (docs/demo.md): writers turn it to their format's front */
    ossa_model_set_front(model, OSSA_FRONT_NEG_Y);
    demo_mesh mesh;
    ossa_status st = demo_mesh_build(&mesh) == 0 ? OSSA_OK : out_of_memory(error);
    static const char comment[] = "ossa demo: a humanoid made by code (cli/demo/)";
    if (!st) st = demo_add_skeleton(model, error);
    if (!st) st = add_mesh(model, &mesh, error);
    if (!st) st = add_texture(model, error);
    if (!st) st = ossa_model_set_comment(model, comment, sizeof comment - 1, error);
    if (!st) st = add_animation(model, "walk", DEMO_WALK_FRAMES, DEMO_WALK_FPS, demo_walk_pose, error);
    if (!st) st = add_animation(model, "idle", DEMO_IDLE_FRAMES, DEMO_IDLE_FPS, demo_idle_pose, error);
    demo_mesh_free(&mesh);
    if (st) {
        ossa_model_free(model);
        return NULL;
    }
    return model;
}
