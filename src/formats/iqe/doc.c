/* IQE raw lists: their memory, and the pose commands' arithmetic
 * (docs/formats/iqe.md §6). */
#include "formats/iqe/iqe.h"

#include <math.h>

/* -- Growable lists -- */

bool ossa__iqe_vec_reserve(const ossa_allocator *a, iqe_vec *v, size_t count, size_t elem)
{
    if (count <= v->cap) return true;
    size_t cap = v->cap ? v->cap : 16;
    while (cap < count) {
        if (cap > SIZE_MAX / 2 / elem) return false;
        cap *= 2;
    }
    void *p = ossa__realloc(a, v->data, v->count * elem, cap * elem);
    if (!p) return false;
    v->data = p;
    v->cap = cap;
    return true;
}

/* Temporary blocks: an overflow-checked count * elem allocation. */
void *ossa__iqe_talloc(const ossa_allocator *a, size_t count, size_t elem)
{
    if (elem && count > SIZE_MAX / elem) return NULL;
    size_t size = count * elem;
    return ossa__alloc(a, size ? size : 1);
}

void ossa__iqe_tfree(const ossa_allocator *a, void *ptr) { ossa__free(a, ptr, 0); }

void ossa__iqe_vec_free(const ossa_allocator *a, iqe_vec *v)
{
    ossa__free(a, v->data, v->cap);
    memset(v, 0, sizeof *v);
}

void ossa__iqe_doc_free(iqe_doc *d)
{
    const ossa_allocator *a = d->allocator;
    ossa__iqe_vec_free(a, &d->pos);
    ossa__iqe_vec_free(a, &d->tc);
    ossa__iqe_vec_free(a, &d->nrm);
    ossa__iqe_vec_free(a, &d->tan);
    ossa__iqe_vec_free(a, &d->blend);
    ossa__iqe_vec_free(a, &d->color);
    for (int i = 0; i < IQE_NUM_CUSTOM; i++) ossa__iqe_vec_free(a, &d->custom[i]);
    ossa__iqe_vec_free(a, &d->vs);
    ossa__iqe_vec_free(a, &d->tris);
    ossa__iqe_vec_free(a, &d->runs);
    ossa__iqe_vec_free(a, &d->scaled);
    ossa__iqe_vec_free(a, &d->face_n);
    ossa__iqe_vec_free(a, &d->fs);
    ossa__iqe_vec_free(a, &d->fs_flags);
    ossa__iqe_vec_free(a, &d->states);
    ossa__iqe_vec_free(a, &d->groups);
    ossa__iqe_vec_free(a, &d->segments);
    ossa__iqe_vec_free(a, &d->joints);
    ossa__iqe_vec_free(a, &d->base_poses);
    ossa__iqe_vec_free(a, &d->base_lines);
    ossa__iqe_vec_free(a, &d->frames);
    ossa__iqe_vec_free(a, &d->anims);
    ossa__iqe_vec_free(a, &d->vertex_refs);
    ossa__iqe_vec_free(a, &d->joint_refs);
    ossa__iqe_vec_free(a, &d->pool);
    while (d->chunks) {
        iqe_chunk *next = d->chunks->next;
        ossa__free(a, d->chunks, sizeof *d->chunks);
        d->chunks = next;
    }
    d->last_chunk = NULL;
}

/* -- Poses (§6) -- */

/* Quaternion of a rotation matrix r[row][col] (column vectors). */
static void quat_from_matrix(double r[3][3], float q[4])
{
    double c[3][3], d[4];
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++) c[col][row] = r[row][col];
    ossa__quat_from_rotation((const double(*)[3])c, d);
    for (int k = 0; k < 4; k++) q[k] = (float)d[k];
}

void ossa__iqe_pose_pq(const float *v, int n, ossa_transform *t)
{
    for (int k = 0; k < 3; k++) t->translation[k] = k < n ? v[k] : 0;
    for (int k = 0; k < 3; k++) t->rotation[k] = 3 + k < n ? v[3 + k] : 0;
    if (n >= 7) {
        t->rotation[3] = v[6];
    } else { /* the missing w is rebuilt negative */
        double s = 1 - (double)t->rotation[0] * t->rotation[0] -
                   (double)t->rotation[1] * t->rotation[1] - (double)t->rotation[2] * t->rotation[2];
        t->rotation[3] = (float)-sqrt(s > 0 ? s : 0);
    }
    /* Near-unit quaternions stay as written (see ossa__quat_tidy). */
    ossa__quat_tidy(t->rotation);
    for (int k = 0; k < 3; k++) t->scale[k] = 7 + k < n ? v[7 + k] : 1.0f;
}

/* Rows A B C act on column vectors; column lengths are the scale (all
 * negated when the determinant is negative), the rest is the rotation. */
void ossa__iqe_pose_pm(const float *v, int n, ossa_transform *t)
{
    static const float def[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    float f[15];
    for (int k = 0; k < 15; k++) f[k] = k < n ? v[k] : def[k];
    memcpy(t->translation, f, 3 * sizeof(float));
    double m[3][3], s[3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) m[r][c] = f[3 + 3 * r + c];
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                 m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    for (int c = 0; c < 3; c++) {
        s[c] = sqrt(m[0][c] * m[0][c] + m[1][c] * m[1][c] + m[2][c] * m[2][c]);
        if (det < 0) s[c] = -s[c];
        for (int r = 0; r < 3; r++) m[r][c] = s[c] != 0 ? m[r][c] / s[c] : (r == c);
    }
    quat_from_matrix(m, t->rotation);
    for (int k = 0; k < 3; k++) t->scale[k] = (float)(f[12 + k] * s[k]);
}

/* Euler angles in radians: q = qz * qy * qx. */
void ossa__iqe_pose_pa(const float *v, int n, ossa_transform *t)
{
    static const float def[9] = {0, 0, 0, 0, 0, 0, 1, 1, 1};
    float f[9];
    for (int k = 0; k < 9; k++) f[k] = k < n ? v[k] : def[k];
    memcpy(t->translation, f, 3 * sizeof(float));
    double q[4] = {0, 0, 0, 1};
    for (int axis = 0; axis < 3; axis++) {
        double h = f[3 + axis] * 0.5, a[4] = {0, 0, 0, cos(h)};
        a[axis] = sin(h);
        ossa__quatd_mul(a, q, q);
    }
    for (int k = 0; k < 4; k++) t->rotation[k] = (float)q[k];
    ossa__quat_tidy(t->rotation);
    memcpy(t->scale, f + 6, 3 * sizeof(float));
}
