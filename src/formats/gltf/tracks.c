/* glTF 2.0 reader: the value of an animation track at any time, as the
 * spec defines its samplers (LINEAR, STEP, CUBICSPLINE: spec section
 * "Animations" and Appendix C). */
#include "formats/gltf/tracks.h"

/* The key interval [k, k + 1] that holds `time`: the last key at or
 * before it (0 before the first key). */
static uint32_t interval(const gltf_track *t, double time, uint32_t *cursor)
{
    if (cursor) {
        if (*cursor >= t->keys || t->times[*cursor] > time) *cursor = 0;
        while (*cursor + 1 < t->keys && t->times[*cursor + 1] <= time) ++*cursor;
        return *cursor;
    }
    uint32_t lo = 0, hi = t->keys; /* times[lo] <= time < times[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->times[mid] <= time) lo = mid;
        else hi = mid;
    }
    return lo;
}

void ossa__gltf_track_value(const gltf_track *t, double time, double snap, uint32_t *cursor,
                            float *out)
{
    uint32_t nc = t->ncomp, per = t->interp == GLTF_CUBICSPLINE ? 3 : 1;
    uint32_t off = t->interp == GLTF_CUBICSPLINE ? nc : 0;
    uint32_t k = interval(t, time, cursor);
    uint32_t exact = UINT32_MAX;
    if (fabs(t->times[k] - time) <= snap) exact = k;
    else if (k + 1 < t->keys && fabs(t->times[k + 1] - time) <= snap) exact = k + 1;
    else if (time < t->times[0]) exact = 0;
    else if (k + 1 >= t->keys) exact = t->keys - 1;
    if (exact != UINT32_MAX || t->interp == GLTF_STEP) {
        if (exact == UINT32_MAX) exact = k;
        memcpy(out, t->values + (size_t)exact * nc * per + off, nc * sizeof *out);
        if (t->path == 1) ossa__quat_tidy(out);
        return;
    }
    double t0 = t->times[k], t1 = t->times[k + 1], dt = t1 - t0, u = (time - t0) / dt;
    const float *a = t->values + (size_t)k * nc * per + off;
    const float *b = t->values + (size_t)(k + 1) * nc * per + off;
    if (t->interp == GLTF_LINEAR) {
        if (t->path == 1) {
            ossa__quat_slerp(a, b, u, out);
        } else {
            for (uint32_t c = 0; c < nc; c++) out[c] = (float)(a[c] + (b[c] - (double)a[c]) * u);
        }
        return;
    }
    /* CUBICSPLINE: Hermite with the out-tangent of key k and the in-tangent
     * of key k + 1, scaled by the interval (spec, Appendix C). */
    const float *bk = a + nc, *ak1 = b - nc;
    double u2 = u * u, u3 = u2 * u;
    double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    for (uint32_t c = 0; c < nc; c++)
        out[c] = (float)(h00 * a[c] + h10 * dt * bk[c] + h01 * b[c] + h11 * dt * ak1[c]);
    if (t->path == 1) ossa__quat_normalize(out);
}
