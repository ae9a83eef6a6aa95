/* Whole-model transforms of the IQM SDK's command line: scale, mesh
 * translation, rotation, and keeping the joints of animation-only models. */
#include "core/internal.h"

#include <math.h>

/* Positions that move leave the range a normalized integer format can
 * hold, and half floats lose precision on every step: such arrays become
 * floats (a lossless change of encoding) before they are changed. */
static ossa_status positions_as_float(ossa_model *m, ossa_vertex_array **out, ossa_error *error)
{
    *out = NULL;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        ossa_vertex_array *a = &m->vertex_arrays[i];
        if (a->type != OSSA_VERTEX_POSITION) continue;
        *out = a;
        if (a->format == OSSA_FLOAT || a->format == OSSA_DOUBLE) return OSSA_OK;
        float *data = ossa__arena_array(ossa__model_arena(m), (size_t)m->num_vertices * a->size + 1,
                                        sizeof *data);
        if (!data) return ossa__fail_nomem(error);
        ossa_vertex_array_read(m, a, 0, m->num_vertices, data);
        a->data = data;
        a->format = OSSA_FLOAT;
        return OSSA_OK;
    }
    return OSSA_OK;
}

/* Component c of vertex v of a float or double array. */
static double get(const ossa_vertex_array *a, uint32_t v, uint32_t c)
{
    size_t i = (size_t)v * a->size + c;
    return a->format == OSSA_DOUBLE ? ((const double *)a->data)[i] : ((const float *)a->data)[i];
}

static void put(ossa_vertex_array *a, uint32_t v, uint32_t c, double x)
{
    size_t i = (size_t)v * a->size + c;
    if (a->format == OSSA_DOUBLE)
        ((double *)a->data)[i] = x;
    else
        ((float *)a->data)[i] = (float)x;
}

ossa_status ossa_model_scale(ossa_model *model, float factor, ossa_error *error)
{
    ossa__error_clear(error);
    if (!(factor > 0) || !isfinite(factor))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "scale %g: expected a finite number above 0", (double)factor);
    ossa_vertex_array *pos;
    if (positions_as_float(model, &pos, error)) return OSSA_FAILED;
    for (uint32_t v = 0; pos && v < model->num_vertices; v++)
        for (uint32_t c = 0; c < pos->size && c < 3; c++) put(pos, v, c, get(pos, v, c) * factor);
    for (uint32_t j = 0; j < model->num_joints; j++)
        for (int c = 0; c < 3; c++) {
            model->joints[j].bind.translation[c] *= factor;
            if (model->rest_pose) model->rest_pose[j].translation[c] *= factor;
        }
    for (uint32_t a = 0; a < model->num_animations; a++) {
        ossa_animation *an = &model->animations[a];
        size_t n = (size_t)an->num_frames * model->num_joints;
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 3; c++) an->frames[i].translation[c] *= factor;
        /* Skinning is linear in positions and translations together, so
         * every skinned vertex, and with it every box, scales exactly. */
        for (uint32_t f = 0; an->bounds && f < an->num_frames; f++) {
            ossa_bounds *b = &an->bounds[f];
            for (int c = 0; c < 3; c++) {
                b->min[c] *= factor;
                b->max[c] *= factor;
            }
            b->xy_radius *= factor;
            b->radius *= factor;
        }
    }
    return OSSA_OK;
}

ossa_status ossa_model_translate_meshes(ossa_model *model, const float offset[3],
                                        ossa_error *error)
{
    ossa__error_clear(error);
    if (!ossa__finite3(offset))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "mesh translation: expected 3 finite numbers");
    ossa_vertex_array *pos;
    if (positions_as_float(model, &pos, error)) return OSSA_FAILED;
    for (uint32_t v = 0; pos && v < model->num_vertices; v++)
        for (uint32_t c = 0; c < pos->size && c < 3; c++)
            put(pos, v, c, get(pos, v, c) + (double)offset[c]);
    /* A skinned vertex moves by its joints' rotations of the offset, not by
     * the offset: stored boxes would be wrong, writers compute new ones. */
    if (pos)
        for (uint32_t a = 0; a < model->num_animations; a++) model->animations[a].bounds = NULL;
    return OSSA_OK;
}

/* -- Rotation -- */

/* v' = q v q* for a unit q, as a matrix product (rows of the rotation). */
static void rotation_matrix(const double q[4], double r[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
}

static void rotate3(double r[3][3], const double in[3], double out[3])
{
    for (int i = 0; i < 3; i++) out[i] = r[i][0] * in[0] + r[i][1] * in[1] + r[i][2] * in[2];
}

/* Root joints hang from the model origin: turning their transform turns
 * everything below them. */
static void rotate_transform(const double q[4], double r[3][3], ossa_transform *t)
{
    double in[3] = {t->translation[0], t->translation[1], t->translation[2]}, out[3];
    rotate3(r, in, out);
    double tq[4] = {t->rotation[0], t->rotation[1], t->rotation[2], t->rotation[3]}, oq[4];
    ossa__quatd_mul(q, tq, oq);
    for (int c = 0; c < 3; c++) t->translation[c] = (float)out[c];
    for (int c = 0; c < 4; c++) t->rotation[c] = (float)oq[c];
}

static bool is_direction(const ossa_vertex_array *a)
{
    return a->type == OSSA_VERTEX_NORMAL || a->type == OSSA_VERTEX_TANGENT ||
           (a->type == OSSA_VERTEX_CUSTOM && strcmp(a->name, "bitangent") == 0);
}

ossa_status ossa_model_rotate(ossa_model *model, const float rotation[4], ossa_error *error)
{
    ossa__error_clear(error);
    double q[4], len = 0;
    for (int c = 0; c < 4; c++) {
        q[c] = rotation[c];
        len += q[c] * q[c];
    }
    len = sqrt(len);
    if (!(len > 0.5 && len < 2) || !isfinite(len))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "rotation: expected a unit quaternion (length %g)", len);
    for (int c = 0; c < 4; c++) q[c] /= len;
    double r[3][3];
    rotation_matrix(q, r);
    ossa_vertex_array *pos;
    if (positions_as_float(model, &pos, error)) return OSSA_FAILED;
    float buf[OSSA_MAX_COMPONENTS];
    for (uint32_t i = 0; i < model->num_vertex_arrays; i++) {
        ossa_vertex_array *a = &model->vertex_arrays[i];
        if (a->size < 3 || (a != pos && !is_direction(a))) continue;
        size_t cs = ossa_component_size(a->format);
        for (uint32_t v = 0; v < model->num_vertices; v++) {
            double in[3], out[3];
            if (a == pos) {
                for (int c = 0; c < 3; c++) in[c] = get(a, v, (uint32_t)c);
            } else {
                ossa_vertex_array_read(model, a, v, 1, buf);
                for (int c = 0; c < 3; c++) in[c] = buf[c];
            }
            rotate3(r, in, out);
            for (int c = 0; c < 3; c++) {
                if (a == pos)
                    put(a, v, (uint32_t)c, out[c]);
                else
                    ossa__component_put(a->format,
                                        (unsigned char *)a->data + ((size_t)v * a->size + (size_t)c) * cs,
                                        (float)out[c], false);
            }
        }
    }
    for (uint32_t j = 0; j < model->num_joints; j++)
        if (model->joints[j].parent < 0) {
            rotate_transform(q, r, &model->joints[j].bind);
            if (model->rest_pose) rotate_transform(q, r, &model->rest_pose[j]);
        }
    for (uint32_t a = 0; a < model->num_animations; a++) {
        ossa_animation *an = &model->animations[a];
        for (uint32_t f = 0; f < an->num_frames; f++)
            for (uint32_t j = 0; j < model->num_joints; j++)
                if (model->joints[j].parent < 0)
                    rotate_transform(q, r, &an->frames[(size_t)f * model->num_joints + j]);
        /* A turned box is no box: writers compute new ones. */
        an->bounds = NULL;
    }
    return OSSA_OK;
}

void ossa_model_force_joints(ossa_model *model)
{
    model->flags &= ~(uint32_t)OSSA_MODEL_SKELETON_FROM_POSES;
}
