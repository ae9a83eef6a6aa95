/* Model-space poses in double precision (world.h). */
#include "core/world.h"

#include "math/math.h"

#include <math.h>
#include <string.h>

void ossa__unit_quatd(const float r[4], double q[4])
{
    double n = 0;
    for (int i = 0; i < 4; i++) n += (double)r[i] * r[i];
    n = sqrt(n);
    if (!(n > 0) || !isfinite(n)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    for (int i = 0; i < 4; i++) q[i] = r[i] / n;
}

void ossa__world_poses(const ossa_model *m, const ossa_transform *local, double *world)
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double *W = world + (size_t)j * OSSA__WORLD, L[16], q[4];
        ossa__transform_to_mat4d(&local[j], L);
        ossa__unit_quatd(local[j].rotation, q);
        int32_t p = m->joints[j].parent;
        if (p < 0) {
            memcpy(W, L, sizeof L);
            memcpy(W + 16, q, sizeof q);
            continue;
        }
        const double *P = world + (size_t)p * OSSA__WORLD;
        ossa__mat4d_mul(P, L, W);
        ossa__quatd_mul(P + 16, q, W + 16);
        double n = sqrt(W[16] * W[16] + W[17] * W[17] + W[18] * W[18] + W[19] * W[19]);
        for (int i = 16; i < 20; i++) W[i] /= n;
    }
}
