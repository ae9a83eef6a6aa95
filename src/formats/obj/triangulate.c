/* Polygon triangulation (docs/formats/obj.md §4).
 *
 * A convex polygon (every turn the same way in the plane of its Newell
 * normal) becomes the fan around its first point, the IQM SDK's
 * triangles. Others are ear-clipped in that plane: a corner whose turn
 * agrees with the polygon and whose triangle holds no other remaining
 * point (points at the triangle's own corners do not count, so repeated
 * points and the doubled bridge edges of polygons with holes work) is cut
 * off, until three corners remain. Corners that do not turn at all
 * (collinear or repeated points) are cut off as they come: their
 * triangles have no area. */
#include "formats/obj/obj.h"

#include <math.h>

static void fan(uint32_t n, uint32_t *out)
{
    for (uint32_t i = 1; i + 1 < n; i++) {
        out[(i - 1) * 3] = 0;
        out[(i - 1) * 3 + 1] = i;
        out[(i - 1) * 3 + 2] = i + 1;
    }
}

/* Twice the signed area of (a, b, c) in the plane. */
static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static bool same_point(const double *a, const double *b) { return a[0] == b[0] && a[1] == b[1]; }

/* p inside or on the triangle (a, b, c), which turns counter-clockwise. */
static bool in_triangle(const double *p, const double *a, const double *b, const double *c)
{
    return orient(a, b, p) >= 0 && orient(b, c, p) >= 0 && orient(c, a, p) >= 0;
}

bool ossa__obj_triangulate(const float *const *points, uint32_t n, uint32_t *out, void *work,
                           uint64_t *budget)
{
    if (n == 3) {
        fan(n, out);
        return true;
    }
    /* Newell's normal, in double */
    double nrm[3] = {0, 0, 0};
    for (uint32_t i = 0; i < n; i++) {
        const float *a = points[i], *b = points[(i + 1) % n];
        nrm[0] += ((double)a[1] - b[1]) * ((double)a[2] + b[2]);
        nrm[1] += ((double)a[2] - b[2]) * ((double)a[0] + b[0]);
        nrm[2] += ((double)a[0] - b[0]) * ((double)a[1] + b[1]);
    }
    int axis = fabs(nrm[0]) > fabs(nrm[1]) ? (fabs(nrm[0]) > fabs(nrm[2]) ? 0 : 2)
                                          : (fabs(nrm[1]) > fabs(nrm[2]) ? 1 : 2);
    if (!(fabs(nrm[axis]) > 0) || !isfinite(nrm[axis])) {
        fan(n, out); /* no plane: every triangle is flat anyway */
        return true;
    }
    /* The plane's coordinates, ordered so that the polygon turns
     * counter-clockwise in them: (y, z), (z, x) or (x, y) along +normal. */
    int u = (axis + 1) % 3, v = (axis + 2) % 3;
    if (nrm[axis] < 0) {
        int t = u;
        u = v;
        v = t;
    }
    uint32_t *next = work, *prev = next + n;
    double *xy = (double *)(void *)(prev + n); /* 8n bytes in: aligned */
    for (uint32_t i = 0; i < n; i++) {
        xy[i * 2] = points[i][u];
        xy[i * 2 + 1] = points[i][v];
    }
    bool convex = true;
    for (uint32_t i = 0; i < n && convex; i++)
        convex = orient(&xy[((i + n - 1) % n) * 2], &xy[i * 2], &xy[((i + 1) % n) * 2]) >= 0;
    if (convex) {
        fan(n, out);
        return true;
    }

    for (uint32_t i = 0; i < n; i++) {
        next[i] = (i + 1) % n;
        prev[i] = (i + n - 1) % n;
    }
    uint32_t left = n, i = 0, tris = 0, tries = 0;
    while (left > 3) {
        uint32_t a = prev[i], b = i, c = next[i];
        const double *pa = &xy[a * 2], *pb = &xy[b * 2], *pc = &xy[c * 2];
        if (!*budget) {
            fan(n, out);
            return false;
        }
        --*budget;
        double turn = orient(pa, pb, pc);
        bool ear = turn == 0;
        if (turn > 0) {
            ear = true;
            for (uint32_t k = next[c]; k != a && ear; k = next[k]) {
                const double *pk = &xy[k * 2];
                if (same_point(pk, pa) || same_point(pk, pb) || same_point(pk, pc)) continue;
                if (!*budget) {
                    fan(n, out);
                    return false;
                }
                --*budget;
                ear = !in_triangle(pk, pa, pb, pc);
            }
        }
        if (!ear) {
            /* a whole round without an ear: self-intersecting */
            if (++tries > left) {
                fan(n, out);
                return false;
            }
            i = c;
            continue;
        }
        out[tris * 3] = a;
        out[tris * 3 + 1] = b;
        out[tris * 3 + 2] = c;
        tris++;
        next[a] = c;
        prev[c] = a;
        left--;
        tries = 0;
        i = a;
    }
    out[tris * 3] = prev[i];
    out[tris * 3 + 1] = i;
    out[tris * 3 + 2] = next[i];
    /* A self-intersecting polygon can run out of corners with triangles
     * that face the other way (the last one is never tested): the areas
     * must add up without cancelling. */
    double sum = 0, sum_abs = 0;
    for (uint32_t t = 0; t < n - 2; t++) {
        double a = orient(&xy[out[t * 3] * 2], &xy[out[t * 3 + 1] * 2], &xy[out[t * 3 + 2] * 2]);
        sum += a;
        sum_abs += fabs(a);
    }
    if (sum_abs > sum * (1 + 1e-9)) {
        fan(n, out);
        return false;
    }
    return true;
}
