/* The mesh at one moment of an animation, for writers of static formats:
 * the animation sampled like the runtime samples it (the two frames
 * around the time, translation and scale linear, rotation by slerp along
 * the shorter arc; looped or clamped by the animation's flag), joint
 * matrices composed and vertices skinned in double precision. */
#include "formats/obj/obj.h"

#include <math.h>

/* The parent-relative pose of every joint at `time`. */
static void sample(const ossa_model *m, const ossa_animation *a, double time, ossa_transform *out)
{
    uint32_t n = m->num_joints, nf = a->num_frames;
    if (!nf) {
        for (uint32_t j = 0; j < n; j++) out[j] = m->joints[j].bind;
        return;
    }
    double rate = a->framerate > 0 && isfinite(a->framerate) ? a->framerate : OSSA_DEFAULT_FRAMERATE;
    double p = time * rate;
    uint32_t f0, f1;
    double t;
    if (a->flags & OSSA_ANIMATION_LOOP) {
        p = fmod(p, (double)nf);
        if (p < 0) p += nf;
        if (!(p < nf)) p = 0; /* fmod's rounding at the very end */
        f0 = (uint32_t)floor(p);
        f1 = f0 + 1 < nf ? f0 + 1 : 0;
    } else {
        p = p < 0 ? 0 : p > nf - 1 ? nf - 1 : p;
        f0 = (uint32_t)floor(p);
        f1 = f0 + 1 < nf ? f0 + 1 : f0;
    }
    t = p - f0;
    for (uint32_t j = 0; j < n; j++) {
        const ossa_transform *x = &a->frames[(size_t)f0 * n + j], *y = &a->frames[(size_t)f1 * n + j];
        for (int k = 0; k < 3; k++) {
            out[j].translation[k] = (float)(x->translation[k] + (y->translation[k] - (double)x->translation[k]) * t);
            out[j].scale[k] = (float)(x->scale[k] + (y->scale[k] - (double)x->scale[k]) * t);
        }
        ossa__quat_slerp(x->rotation, y->rotation, t, out[j].rotation);
    }
}

/* Model-space matrices of a parent-relative pose (parents come first). */
static void to_model(const ossa_model *m, const ossa_transform *local, double *out)
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double l[16];
        ossa__transform_to_mat4d(&local[j], l);
        int32_t p = m->joints[j].parent;
        if (p >= 0 && (uint32_t)p < j)
            ossa__mat4d_mul(out + (size_t)p * 16, l, out + (size_t)j * 16);
        else
            memcpy(out + (size_t)j * 16, l, sizeof l);
    }
}

/* Inverse transpose of the upper 3x3 (normals under non-uniform scale). */
static void normal_matrix(const double *a, double n[9])
{
    double c[9] = {a[5] * a[10] - a[6] * a[9],  a[6] * a[8] - a[4] * a[10], a[4] * a[9] - a[5] * a[8],
                   a[9] * a[2] - a[10] * a[1],  a[10] * a[0] - a[8] * a[2], a[8] * a[1] - a[9] * a[0],
                   a[1] * a[6] - a[2] * a[5],   a[2] * a[4] - a[0] * a[6],  a[0] * a[5] - a[1] * a[4]};
    /* the cofactor matrix is det * inverse transpose; the normal is
     * renormalized, so the determinant's size does not matter, only its
     * sign */
    double det = a[0] * c[0] + a[4] * c[3] + a[8] * c[6];
    double s = det < 0 ? -1 : 1;
    for (int k = 0; k < 9; k++) n[k] = c[k] * s;
}

ossa_status ossa__obj_pose(const ossa_model *m, uint32_t animation, double time, float *positions,
                           float *normals, ossa_error *error)
{
    uint32_t nj = m->num_joints, nv = m->num_vertices;
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    uint32_t k = ia && wa ? (ia->size < wa->size ? ia->size : wa->size) : 0;
    ossa_transform *local = ossa__temp_alloc(m, ((size_t)nj + 1) * sizeof *local);
    double *pose = ossa__temp_alloc(m, ((size_t)nj + 1) * 16 * sizeof *pose);
    double *bind = ossa__temp_alloc(m, ((size_t)nj + 1) * 16 * sizeof *bind);
    float *tmp = ossa__temp_alloc(m, (OSSA_MAX_COMPONENTS * 2 + 8) * sizeof *tmp);
    if (!local || !pose || !bind || !tmp) {
        ossa__temp_free(m, local);
        ossa__temp_free(m, pose);
        ossa__temp_free(m, bind);
        ossa__temp_free(m, tmp);
        return ossa__fail_nomem(error);
    }
    sample(m, &m->animations[animation], time, local);
    to_model(m, local, pose);
    for (uint32_t j = 0; j < nj; j++) local[j] = m->joints[j].bind;
    to_model(m, local, bind);
    /* skinning matrices: pose * inverse(bind), in place in `pose` */
    for (uint32_t j = 0; j < nj; j++) {
        double inv[16], s[16];
        if (!ossa__mat4d_invert_affine(bind + (size_t)j * 16, inv)) {
            memset(inv, 0, sizeof inv);
            inv[0] = inv[5] = inv[10] = inv[15] = 1;
        }
        ossa__mat4d_mul(pose + (size_t)j * 16, inv, s);
        memcpy(pose + (size_t)j * 16, s, sizeof s);
    }
    float *idx = tmp, *wgt = tmp + OSSA_MAX_COMPONENTS, *p = tmp + 2 * OSSA_MAX_COMPONENTS,
          *nr = p + 4;
    for (uint32_t v = 0; v < nv; v++) {
        memcpy(p, positions + (size_t)v * 3, 3 * sizeof *p);
        if (normals) memcpy(nr, normals + (size_t)v * 3, 3 * sizeof *nr);
        double sk[16] = {0}, wsum = 0;
        if (k) {
            ossa_vertex_array_read(m, ia, v, 1, idx);
            ossa_vertex_array_read(m, wa, v, 1, wgt);
        }
        for (uint32_t i = 0; i < k; i++) {
            if (!(wgt[i] > 0) || !(idx[i] >= 0 && idx[i] < (float)nj)) continue;
            const double *s = pose + (size_t)idx[i] * 16;
            for (int e = 0; e < 16; e++) sk[e] += wgt[i] * s[e];
            wsum += wgt[i];
        }
        if (!(wsum > 0)) {
            /* no blend data: the vertex stays */
            memset(sk, 0, sizeof sk);
            sk[0] = sk[5] = sk[10] = sk[15] = 1;
        }
        for (int r = 0; r < 3; r++)
            positions[(size_t)v * 3 + (size_t)r] =
                (float)(sk[r] * p[0] + sk[4 + r] * p[1] + sk[8 + r] * p[2] + sk[12 + r]);
        if (normals) {
            double nm[9], o[3], len = 0;
            normal_matrix(sk, nm);
            for (int r = 0; r < 3; r++) {
                o[r] = nm[r] * nr[0] + nm[3 + r] * nr[1] + nm[6 + r] * nr[2];
                len += o[r] * o[r];
            }
            len = len > 0 && isfinite(len) ? 1 / sqrt(len) : 0;
            for (int r = 0; r < 3; r++) normals[(size_t)v * 3 + (size_t)r] = (float)(o[r] * len);
        }
    }
    ossa__temp_free(m, local);
    ossa__temp_free(m, pose);
    ossa__temp_free(m, bind);
    ossa__temp_free(m, tmp);
    return OSSA_OK;
}
