/* Normals of an md5mesh block (docs/formats/md5.md §5). MD5 stores none; id
 * derives them per mesh block, adding up the faces around every vertex
 * that shares a position, so that texture seams stay smooth. The same
 * rule here: each vertex gets the normalized sum of the area-weighted face
 * normals at every triangle corner placed exactly where it is (iqe.md §5
 * with one smoothing group, no angle limit and no UV condition). */
#include "formats/md5/md5.h"

#include <math.h>

static uint32_t hash_position(const float *p)
{
    uint32_t u[3];
    for (int i = 0; i < 3; i++) {
        float f = p[i] + 0.0f; /* -0 and 0 are one position */
        memcpy(&u[i], &f, 4);
    }
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 3; i++) {
        h ^= u[i];
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    return (uint32_t)h;
}

static bool same_position(const float *a, const float *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

ossa_status ossa__md5_normals(const ossa_model *model, const float *pos, uint32_t nv,
                              const uint32_t *tris, uint32_t nt, float *out, ossa_error *error)
{
    if (!nv) return OSSA_OK;
    size_t cap = 16;
    while (cap < (size_t)nv * 2) cap *= 2;
    uint32_t *slot = ossa__temp_calloc(model, cap, sizeof *slot);
    uint32_t *cls = ossa__temp_calloc(model, nv, sizeof *cls);           /* vertex -> class */
    double *sum = ossa__temp_calloc(model, (size_t)nv * 3, sizeof *sum); /* per class */
    if (!slot || !cls || !sum) {
        ossa__temp_free(model, slot);
        ossa__temp_free(model, cls);
        ossa__temp_free(model, sum);
        return ossa__fail_nomem(error);
    }
    /* a class is the first vertex at a position */
    for (uint32_t v = 0; v < nv; v++) {
        const float *p = pos + (size_t)v * 3;
        for (size_t s = hash_position(p) & (cap - 1);; s = (s + 1) & (cap - 1)) {
            if (!slot[s]) {
                slot[s] = v + 1;
                cls[v] = v;
                break;
            }
            if (same_position(pos + (size_t)(slot[s] - 1) * 3, p)) {
                cls[v] = slot[s] - 1;
                break;
            }
        }
    }
    for (uint32_t t = 0; t < nt; t++) {
        const uint32_t *c = tris + (size_t)t * 3;
        const float *p0 = pos + (size_t)c[0] * 3, *p1 = pos + (size_t)c[1] * 3,
                    *p2 = pos + (size_t)c[2] * 3;
        /* front faces are clockwise: n = (p2 - p0) x (p1 - p0) */
        double a[3], b[3];
        for (int i = 0; i < 3; i++) {
            a[i] = (double)p2[i] - p0[i];
            b[i] = (double)p1[i] - p0[i];
        }
        double n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                       a[0] * b[1] - a[1] * b[0]};
        for (int k = 0; k < 3; k++) {
            double *s = sum + (size_t)cls[c[k]] * 3;
            s[0] += n[0];
            s[1] += n[1];
            s[2] += n[2];
        }
    }
    for (uint32_t v = 0; v < nv; v++) {
        const double *s = sum + (size_t)cls[v] * 3;
        double len = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        for (int i = 0; i < 3; i++)
            out[(size_t)v * 3 + i] = len > 0 && isfinite(len) ? (float)(s[i] / len) : 0.0f;
    }
    ossa__temp_free(model, slot);
    ossa__temp_free(model, cls);
    ossa__temp_free(model, sum);
    return OSSA_OK;
}
