/* Models for the tests built from tables through the public builder
 * calls, so that every test states only the data that matter to it. */
#include "support.h"

#include <math.h>
#include <string.h>

static void must(bool ok, const char *what, const char *name, const ossa_error *err)
{
    if (!ok) print_error("building %s %s: %s\n", what, name ? name : "", err->message);
    assert_true(ok);
}

static void add_joints(ossa_model *m, const ts_model_spec *spec, ossa_error *err)
{
    for (uint32_t j = 0; j < spec->num_joints; j++) {
        const ts_joint *jt = &spec->joints[j];
        int32_t got = ossa_model_add_joint(m, jt->name, jt->parent, jt->posed ? &jt->pose : NULL, err);
        must(got == (int32_t)j, "joint", jt->name, err);
    }
}

static void add_vertices(ossa_model *m, const ts_model_spec *spec, ossa_error *err)
{
    if (!spec->num_vertices) return;
    must(ossa_model_set_num_vertices(m, spec->num_vertices, err) == OSSA_OK, "vertices", NULL, err);
    for (uint32_t i = 0; i < spec->num_arrays; i++) {
        const ts_array *a = &spec->arrays[i];
        must(ossa_model_add_vertex_array_floats(m, a->type, a->format, a->size, a->name, a->data,
                                                err) != NULL,
             "vertex array", ossa_vertex_type_name(a->type), err);
    }
}

static void add_meshes(ossa_model *m, const ts_model_spec *spec, ossa_error *err)
{
    if (spec->num_triangles)
        must(ossa_model_set_triangles(m, spec->num_triangles, spec->triangles, err) == OSSA_OK,
             "triangles", NULL, err);
    for (uint32_t i = 0; i < spec->num_meshes; i++) {
        const ts_mesh *me = &spec->meshes[i];
        int32_t got = ossa_model_add_mesh(m, me->name, me->material, me->first_vertex,
                                          me->num_vertices, me->first_triangle, me->num_triangles,
                                          err);
        must(got == (int32_t)i, "mesh", me->name, err);
    }
}

ossa_model *ts_model_build(const ts_model_spec *spec)
{
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_model *m = ossa_model_create(spec->allocator);
    assert_non_null(m);
    add_joints(m, spec, &err);
    add_vertices(m, spec, &err);
    add_meshes(m, spec, &err);
    for (uint32_t i = 0; i < spec->num_extras; i++) {
        const ts_extra *x = &spec->extras[i];
        must(ossa_model_add_extra(m, x->name, x->data, x->size, &err) == OSSA_OK, "extra", x->name,
             &err);
    }
    if (spec->comment)
        must(ossa_model_set_comment(m, spec->comment, strlen(spec->comment), &err) == OSSA_OK,
             "comment", NULL, &err);
    for (uint32_t i = 0; i < spec->num_animations; i++) {
        const ts_anim *an = &spec->animations[i];
        must(ossa_model_add_animation(m, an->name, an->num_frames, an->framerate, an->flags, &err) !=
                 NULL,
             "animation", an->name, &err);
    }
    return m;
}

ossa_model *ts_small_model(const ossa_allocator *allocator)
{
    ossa_transform up = ossa_transform_identity(), root = ossa_transform_identity();
    up.translation[2] = 1;
    for (int k = 0; k < 3; k++) root.scale[k] = 2;
    const ts_joint joints[3] = {
        {"root", -1, root, true}, {"spine", 0, up, true}, {"head", 1, up, true}};
    enum { NV = 8 };
    float pos[NV * 3], nrm[NV * 3], uv[NV * 2], idx[NV * 4], wgt[NV * 4];
    for (uint32_t v = 0; v < NV; v++) {
        pos[v * 3] = (float)(v & 1);
        pos[v * 3 + 1] = (float)((v >> 1) & 1);
        pos[v * 3 + 2] = (float)(v >> 2) * 1.5f;
        nrm[v * 3] = 0;
        nrm[v * 3 + 1] = 0;
        nrm[v * 3 + 2] = 1;
        uv[v * 2] = pos[v * 3];
        uv[v * 2 + 1] = pos[v * 3 + 1];
        for (int k = 0; k < 4; k++) idx[v * 4 + k] = wgt[v * 4 + k] = 0;
        idx[v * 4] = (float)(v >> 2);
        idx[v * 4 + 1] = (float)((v >> 2) + 1);
        wgt[v * 4] = 0.75f;
        wgt[v * 4 + 1] = 0.25f;
    }
    const ts_array arrays[5] = {{OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos},
                                {OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv},
                                {OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm},
                                {OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, NULL, idx},
                                {OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL, wgt}};
    static const ossa_triangle tris[] = {{{0, 2, 1}}, {{1, 2, 3}}, {{4, 6, 5}}, {{5, 6, 7}}};
    static const ts_mesh meshes[2] = {{"lower", "skin", 0, 4, 0, 2}, {"upper", "cloth", 4, 4, 2, 2}};
    static const ts_anim anims[2] = {{"bend", 3, 24, 0}, {"nod", 3, 24, 0}};
    ts_model_spec spec = {.allocator = allocator,
                          .num_joints = 3,
                          .joints = joints,
                          .num_vertices = NV,
                          .num_arrays = 5,
                          .arrays = arrays,
                          .num_triangles = 4,
                          .triangles = tris,
                          .num_meshes = 2,
                          .meshes = meshes,
                          .comment = "small",
                          .num_animations = 2,
                          .animations = anims};
    ossa_model *m = ts_model_build(&spec);
    ossa_model_set_front(m, OSSA_FRONT_NEG_Y);
    /* A rest pose turned from the bind pose at the root (glTF keeps both,
     * the other writers skin the mesh into it) */
    ossa_transform rest[3] = {m->joints[0].bind, m->joints[1].bind, m->joints[2].bind};
    rest[0].rotation[2] = 0.6f, rest[0].rotation[3] = 0.8f;
    assert_int_equal(ossa_model_set_rest_pose(m, rest, NULL), OSSA_OK);
    for (int a = 0; a < 2; a++)
        for (uint32_t f = 0; f < 3; f++) {
            float angle = 0.3f * (float)f * (a ? -1.0f : 1.0f);
            ossa_transform *t = &m->animations[a].frames[f * 3 + 1 + (uint32_t)a];
            t->rotation[0] = sinf(angle / 2);
            t->rotation[3] = cosf(angle / 2);
            if (a && f == 2)
                for (int k = 0; k < 3; k++) t->scale[k] = 1.5f;
        }
    return m;
}
