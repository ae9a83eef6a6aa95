/* Smooth normals from positions and smoothing keys (normals.h).
 *
 * Without an angle limit, "joins" is an equivalence: two corners join
 * exactly when their keys and positions are equal. Sorting the corners by
 * (key, position) therefore lines every class up as one run, and no
 * union-find is needed. */
#include "core/normals.h"

#include <math.h>
#include <stdlib.h>

typedef struct corner_key {
    int64_t key;
    uint32_t pos[3]; /* float bits, -0 turned into 0 */
    uint32_t corner;
} corner_key;

static int cmp_corner(const void *a, const void *b)
{
    const corner_key *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    for (int k = 0; k < 3; k++)
        if (x->pos[k] != y->pos[k]) return x->pos[k] < y->pos[k] ? -1 : 1;
    return x->corner < y->corner ? -1 : x->corner > y->corner;
}

void ossa__face_normal(const float *positions, size_t stride, const uint32_t c[3], double n[3])
{
    const float *p0 = positions + (size_t)c[0] * stride;
    const float *p1 = positions + (size_t)c[1] * stride;
    const float *p2 = positions + (size_t)c[2] * stride;
    double a[3], b[3];
    for (int k = 0; k < 3; k++) {
        a[k] = (double)p2[k] - p0[k];
        b[k] = (double)p1[k] - p0[k];
    }
    /* Front faces clockwise: the outward normal is (p2 - p0) x (p1 - p0). */
    n[0] = a[1] * b[2] - a[2] * b[1];
    n[1] = a[2] * b[0] - a[0] * b[2];
    n[2] = a[0] * b[1] - a[1] * b[0];
}

/* The face normal, all zero when a component is not finite. */
static void face_normal(const float *positions, size_t stride, const uint32_t *c, double n[3])
{
    ossa__face_normal(positions, stride, c, n);
    for (int k = 0; k < 3; k++)
        if (!isfinite(n[k])) n[0] = n[1] = n[2] = 0;
}

static void put_unit(const double n[3], float *out)
{
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) out[k] = len > 0 && isfinite(len) ? (float)(n[k] / len) : 0.0f;
}

ossa_status ossa__smooth_normals(const ossa_model *model, const float *positions, size_t stride,
                                 const uint32_t *corners, const int64_t *keys,
                                 size_t num_triangles, float *out, ossa_error *error)
{
    size_t nc = num_triangles * 3;
    if (num_triangles > SIZE_MAX / 3 / sizeof(corner_key)) return ossa__fail_nomem(error);
    corner_key *ck = ossa__temp_alloc(model, (nc + 1) * sizeof *ck);
    if (!ck) return ossa__fail_nomem(error);
    size_t n = 0;
    for (size_t t = 0; t < num_triangles; t++) {
        int64_t key = keys ? keys[t] : 1;
        if (key == 0) {
            double f[3];
            face_normal(positions, stride, corners + t * 3, f);
            for (int k = 0; k < 3; k++) put_unit(f, out + (t * 3 + (size_t)k) * 3);
            continue;
        }
        for (int k = 0; k < 3; k++) {
            corner_key *e = &ck[n++];
            const float *p = positions + (size_t)corners[t * 3 + (size_t)k] * stride;
            e->key = key;
            for (int i = 0; i < 3; i++) {
                float v = p[i] == 0 ? 0.0f : p[i];
                memcpy(&e->pos[i], &v, 4);
            }
            e->corner = (uint32_t)(t * 3 + (size_t)k);
        }
    }
    qsort(ck, n, sizeof *ck, cmp_corner);
    for (size_t b = 0; b < n;) {
        size_t e = b + 1;
        while (e < n && ck[e].key == ck[b].key && memcmp(ck[e].pos, ck[b].pos, 12) == 0) e++;
        double sum[3] = {0, 0, 0};
        for (size_t i = b; i < e; i++) {
            double f[3];
            face_normal(positions, stride, corners + (ck[i].corner / 3) * 3, f);
            for (int k = 0; k < 3; k++) sum[k] += f[k];
        }
        float unit[3];
        put_unit(sum, unit);
        for (size_t i = b; i < e; i++) memcpy(out + (size_t)ck[i].corner * 3, unit, sizeof unit);
        b = e;
    }
    ossa__temp_free(model, ck);
    return OSSA_OK;
}
