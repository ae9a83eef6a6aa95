/* Matrices of a model's poses: model space from parent-relative
 * transforms, and the inverse bind matrices that skinning needs. */
#include "core/internal.h"

void ossa_local_to_model(const ossa_model *model, const ossa_transform *local, float (*out)[16])
{
    for (uint32_t j = 0; j < model->num_joints; j++) {
        float m[16];
        ossa_transform_to_matrix(&local[j], m);
        int32_t p = model->joints[j].parent;
        if (p >= 0 && (uint32_t)p < j)
            ossa__mat4_mul(out[p], m, out[j]);
        else
            memcpy(out[j], m, sizeof m);
    }
}

uint32_t ossa_model_inverse_bind_matrices(const ossa_model *model, float (*out)[16])
{
    uint32_t n = model->num_joints, singular = 0;
    /* Model-space bind matrices first (parents come before children), then
     * each is inverted in place. */
    for (uint32_t j = 0; j < n; j++) {
        ossa_transform t = model->joints[j].bind;
        ossa__quat_normalize(t.rotation);
        float m[16];
        ossa_transform_to_matrix(&t, m);
        int32_t p = model->joints[j].parent;
        if (p >= 0 && (uint32_t)p < j)
            ossa__mat4_mul(out[p], m, out[j]);
        else
            memcpy(out[j], m, sizeof m);
    }
    for (uint32_t j = 0; j < n; j++) {
        float inv[16];
        if (ossa__mat4_invert_affine(out[j], inv)) {
            memcpy(out[j], inv, sizeof inv);
        } else {
            static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
            memcpy(out[j], identity, sizeof identity);
            singular++;
        }
    }
    return singular;
}
