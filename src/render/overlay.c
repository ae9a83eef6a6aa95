/* What is drawn besides the model: the ground grid and the shadow blob
 * (under it, before it is drawn) and the skeleton (on top). Each is made
 * once per render into a list of flat-coloured screen triangles, which
 * every band then blends into its rows without depth. */
#include "render/render.h"

#include <math.h>

/* -- Blending -- */

static inline void blend(uint8_t *dst, const uint8_t rgb[3], float a)
{
    if (!(a > 0)) return;
    if (a > 1) a = 1;
    if (dst[3] == 255) { /* the common case, in 8.8 fixed point */
        uint32_t k = (uint32_t)(a * 256.0f + 0.5f), j = 256 - k;
        for (int c = 0; c < 3; c++) dst[c] = (uint8_t)((dst[c] * j + rgb[c] * k + 128) >> 8);
        return;
    }
    float da = dst[3] / 255.0f;
    float out_a = a + da * (1 - a);
    /* "Over" with straight alpha: over a transparent pixel the colour is
     * the source's, not a mix with whatever colour the pixel held. */
    for (int c = 0; c < 3; c++) {
        float v = (rgb[c] * a + dst[c] * da * (1 - a)) / out_a;
        dst[c] = (uint8_t)(v + 0.5f);
    }
    dst[3] = (uint8_t)(out_a * 255.0f + 0.5f);
}

void ossa__rd_blend_pixel(uint8_t *dst, const uint8_t rgb[3], float a)
{
    blend(dst, rgb, a);
}

static bool to_fixed(float v, int32_t *out)
{
    const float limit = (float)(RD_GUARD_PIXELS + RD_MAX_SIDE);
    if (!(v > -limit && v < limit)) return false;
    *out = (int32_t)floorf(v * (float)RD_ONE + 0.5f);
    return true;
}

/* The same edge functions and top-left rule as the model's triangles
 * (raster.c), with alpha interpolated linearly on the screen. */
static void blend_triangle(const rd_target *t, const rd_flat *f)
{
    int32_t X[3], Y[3];
    for (int i = 0; i < 3; i++)
        if (!to_fixed(f->p[i][0], &X[i]) || !to_fixed(f->p[i][1], &Y[i])) return;
    int64_t area = (int64_t)(X[1] - X[0]) * (Y[2] - Y[0]) - (int64_t)(Y[1] - Y[0]) * (X[2] - X[0]);
    if (area == 0) return;
    int o[3] = {0, 1, 2};
    if (area < 0) o[1] = 2, o[2] = 1, area = -area;
    int64_t xmin = X[0], xmax = X[0], ymin = Y[0], ymax = Y[0];
    for (int i = 1; i < 3; i++) {
        if (X[i] < xmin) xmin = X[i];
        if (X[i] > xmax) xmax = X[i];
        if (Y[i] < ymin) ymin = Y[i];
        if (Y[i] > ymax) ymax = Y[i];
    }
    int64_t px0 = -rd_floor_div(-(xmin - RD_ONE / 2), RD_ONE);
    int64_t px1 = rd_floor_div(xmax - RD_ONE / 2, RD_ONE);
    int64_t py0 = -rd_floor_div(-(ymin - RD_ONE / 2), RD_ONE);
    int64_t py1 = rd_floor_div(ymax - RD_ONE / 2, RD_ONE);
    if (px0 < 0) px0 = 0;
    if (py0 < (int64_t)t->row0) py0 = t->row0;
    if (px1 > (int64_t)t->width - 1) px1 = (int64_t)t->width - 1;
    if (py1 > (int64_t)t->row1 - 1) py1 = (int64_t)t->row1 - 1;
    int64_t dx[3], dy[3], bias[3], ox[3], oy[3];
    for (int i = 0; i < 3; i++) {
        int p0 = o[(i + 1) % 3], p1 = o[(i + 2) % 3];
        dx[i] = (int64_t)X[p1] - X[p0];
        dy[i] = (int64_t)Y[p1] - Y[p0];
        ox[i] = X[p0], oy[i] = Y[p0];
        bias[i] = (dy[i] < 0 || (dy[i] == 0 && dx[i] > 0)) ? 0 : 1;
    }
    const float inv = 1.0f / (float)area;
    const float a0 = f->alpha[o[0]], a1 = f->alpha[o[1]], a2 = f->alpha[o[2]];
    for (int64_t y = py0; y <= py1; y++) {
        int64_t sy = y * RD_ONE + RD_ONE / 2, sx = px0 * RD_ONE + RD_ONE / 2;
        int64_t e[3], step[3], xa, xb;
        for (int i = 0; i < 3; i++) {
            e[i] = dx[i] * (sy - oy[i]) - dy[i] * (sx - ox[i]) - bias[i];
            step[i] = -dy[i] * RD_ONE;
        }
        if (!rd_row_span(e, step, px0, px1, &xa, &xb)) continue;
        for (int i = 0; i < 3; i++) e[i] += (xa - px0) * step[i];
        uint8_t *row = t->color + (size_t)(y - t->row0) * t->stride;
        for (int64_t x = xa; x <= xb; x++) {
            float w0 = (float)(e[0] + bias[0]) * inv, w1 = (float)(e[1] + bias[1]) * inv;
            float a = a2 + (a0 - a2) * w0 + (a1 - a2) * w1;
            blend(row + x * 4, f->rgb, a);
            for (int i = 0; i < 3; i++) e[i] += step[i];
        }
    }
}

void ossa__rd_draw_flats(const rd_target *t, const rd_flats *list)
{
    const float top = (float)t->row0 - 1, bottom = (float)t->row1 + 1;
    for (uint32_t i = 0; i < list->count; i++) {
        const rd_flat *f = &list->items[i];
        /* Most triangles of a list miss a given band. */
        if (f->ymax < top || f->ymin > bottom) continue;
        blend_triangle(t, f);
    }
}

/* -- Building the lists -- */

static void push(rd_flats *list, const ossa_allocator *a, const float p[3][2], const float alpha[3],
                 const uint8_t rgb[3])
{
    if (list->failed) return;
    if (list->count == list->capacity) {
        uint32_t cap = list->capacity ? list->capacity * 2 : 256;
        rd_flat *grown = ossa__alloc(a, (size_t)cap * sizeof *grown);
        if (!grown) {
            list->failed = true;
            return;
        }
        if (list->count) memcpy(grown, list->items, (size_t)list->count * sizeof *grown);
        ossa__free(a, list->items, 0);
        list->items = grown;
        list->capacity = cap;
    }
    rd_flat *f = &list->items[list->count++];
    memcpy(f->p, p, sizeof f->p);
    memcpy(f->alpha, alpha, sizeof f->alpha);
    memcpy(f->rgb, rgb, sizeof f->rgb);
    f->ymin = f->ymax = p[0][1];
    for (int i = 1; i < 3; i++) {
        if (p[i][1] < f->ymin) f->ymin = p[i][1];
        if (p[i][1] > f->ymax) f->ymax = p[i][1];
    }
    /* NaN corners: never drawn (blend_triangle refuses them too). */
    if (!(f->ymin <= f->ymax)) f->ymin = INFINITY, f->ymax = -INFINITY;
}

/* Two triangles: a, b, c, d in order around a quadrilateral. */
static void push_quad(rd_flats *list, const ossa_allocator *al, const float a[2], const float b[2],
                      const float c[2], const float d[2], const float alpha[4], const uint8_t rgb[3])
{
    const float t0[3][2] = {{a[0], a[1]}, {b[0], b[1]}, {c[0], c[1]}};
    const float t1[3][2] = {{a[0], a[1]}, {c[0], c[1]}, {d[0], d[1]}};
    const float a0[3] = {alpha[0], alpha[1], alpha[2]}, a1[3] = {alpha[0], alpha[2], alpha[3]};
    push(list, al, t0, a0, rgb);
    push(list, al, t1, a1, rgb);
}

typedef struct projector {
    float pv[16];
    uint32_t width, height;
} projector;

static void make_projector(projector *pr, const ossa_render_camera *cam, uint32_t width,
                           uint32_t height)
{
    const float *a = cam->projection, *b = cam->view;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            pr->pv[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] +
                                a[12 + r] * b[c * 4 + 3];
    pr->width = width;
    pr->height = height;
}

static void clip_to_screen(const projector *pr, const float c[4], float out[2])
{
    out[0] = (c[0] / c[3] * 0.5f + 0.5f) * (float)pr->width;
    out[1] = (0.5f - c[1] / c[3] * 0.5f) * (float)pr->height;
}

/* The screen position of p; false when it is behind the near plane. */
static bool project(const projector *pr, const float p[3], float out[2])
{
    float c[4];
    rd_mat4_apply(pr->pv, p, 1, c);
    if (!(c[2] >= -c[3] && c[3] > 0)) return false;
    clip_to_screen(pr, c, out);
    return true;
}

/* A segment from p to q (model space) `width` pixels wide, alpha going
 * from ap to aq; the part behind the near plane is cut off. */
static void segment(rd_flats *list, const ossa_allocator *al, const projector *pr, const float p[3],
                    const float q[3], float ap, float aq, float width, const uint8_t rgb[3])
{
    float cp[4], cq[4];
    rd_mat4_apply(pr->pv, p, 1, cp);
    rd_mat4_apply(pr->pv, q, 1, cq);
    float dp = cp[2] + cp[3], dq = cq[2] + cq[3];
    if (!(dp >= 0) && !(dq >= 0)) return;
    if (!(dp >= 0) || !(dq >= 0)) {
        float s = dp / (dp - dq); /* where the segment meets the plane */
        if (!isfinite(s)) return;
        float *cut = dp < 0 ? cp : cq;
        const float *keep = dp < 0 ? cq : cp;
        for (int i = 0; i < 4; i++) cut[i] = keep[i] + (cut[i] - keep[i]) * (dp < 0 ? 1 - s : s);
        if (dp < 0) ap = aq + (ap - aq) * (1 - s);
        else aq = ap + (aq - ap) * s;
    }
    if (!(cp[3] > 0) || !(cq[3] > 0)) return;
    float a[2], b[2];
    clip_to_screen(pr, cp, a);
    clip_to_screen(pr, cq, b);
    float dx = b[0] - a[0], dy = b[1] - a[1], len = sqrtf(dx * dx + dy * dy);
    if (!(len > 1e-3f) || !isfinite(len)) return;
    float nx = -dy / len * width * 0.5f, ny = dx / len * width * 0.5f;
    const float c0[2] = {a[0] + nx, a[1] + ny}, c1[2] = {b[0] + nx, b[1] + ny};
    const float c2[2] = {b[0] - nx, b[1] - ny}, c3[2] = {a[0] - nx, a[1] - ny};
    const float alpha[4] = {ap, aq, aq, ap};
    push_quad(list, al, c0, c1, c2, c3, alpha, rgb);
}

/* -- Ground grid -- */

void ossa__rd_grid(rd_flats *list, const ossa_allocator *al, const ossa_render_camera *cam,
                   uint32_t width, uint32_t height, uint32_t supersample)
{
    static const uint8_t line_rgb[3] = {120, 128, 142};
    double s = cam->grid_spacing, r = cam->grid_extent;
    if (!(s > 0) || !(r > 0) || !isfinite(s) || !isfinite(r) || r / s > 200) return;
    projector pr;
    make_projector(&pr, cam, width, height);
    float e[2][3];
    ossa__rd_ground_axes(cam->up, e[0], e[1]);
    const float *c = cam->ground_center;
    double cc[2] = {rd_dot3(c, e[0]), rd_dot3(c, e[1])};
    /* Line numbers must fit a long (and floats step by more than the
     * spacing that far out anyway). */
    if (!(fabs(cc[0]) / s < 1e9 && fabs(cc[1]) / s < 1e9)) return;
    /* The plane's point nearest the origin: lines sit at whole multiples
     * of the spacing, so they stay put when the model moves. */
    float base[3];
    for (int i = 0; i < 3; i++) base[i] = cam->up[i] * cam->ground;
    enum { PIECES = 16 }; /* per line, so that it can fade out */
    const float line_width = (float)supersample;
    for (int dir = 0; dir < 2; dir++) {
        const float *across = e[dir], *along = e[1 - dir];
        long k0 = (long)ceil((cc[dir] - r) / s), k1 = (long)floor((cc[dir] + r) / s);
        for (long k = k0; k <= k1; k++) {
            double off = k * s - cc[dir];
            double half = sqrt(fmax(r * r - off * off, 0));
            if (half <= 0) continue;
            float pts[PIECES + 1][3], alpha[PIECES + 1];
            for (int i = 0; i <= PIECES; i++) {
                double v = cc[1 - dir] - half + 2 * half * i / PIECES;
                double d2 = (off * off + (v - cc[1 - dir]) * (v - cc[1 - dir])) / (r * r);
                alpha[i] = (float)(0.6 * fmax(1 - d2, 0));
                for (int j = 0; j < 3; j++)
                    pts[i][j] = (float)(base[j] + across[j] * (k * s) + along[j] * v);
            }
            for (int i = 0; i < PIECES; i++)
                segment(list, al, &pr, pts[i], pts[i + 1], alpha[i], alpha[i + 1], line_width,
                        line_rgb);
        }
    }
}

/* -- Shadow -- */

void ossa__rd_shadow(rd_flats *list, const ossa_allocator *al, const ossa_render_camera *cam,
                     uint32_t width, uint32_t height, const rd_shadow *sh)
{
    static const uint8_t black[3] = {0, 0, 0};
    if (!(sh->strength > 0) || !(sh->radius[0] > 0) || !(sh->radius[1] > 0)) return;
    projector pr;
    make_projector(&pr, cam, width, height);
    float e[2][3];
    ossa__rd_ground_axes(cam->up, e[0], e[1]);
    enum { SIDES = 32 };
    /* Three rings: the centre, half way (most of the darkness) and the
     * rim (none), so the blob fades out softly. */
    static const float ring_radius[3] = {0, 0.55f, 1}, ring_alpha[3] = {1, 0.75f, 0};
    float pts[3][SIDES][2];
    bool ok[3][SIDES];
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < SIDES; i++) {
            double a = 2 * 3.14159265358979323846 * i / SIDES;
            float p[3];
            for (int j = 0; j < 3; j++)
                p[j] = sh->center[j] + ring_radius[r] * (float)(sh->radius[0] * cos(a) * e[0][j] +
                                                                 sh->radius[1] * sin(a) * e[1][j]);
            ok[r][i] = project(&pr, p, pts[r][i]);
        }
    const float inner = sh->strength * ring_alpha[1];
    for (int i = 0; i < SIDES; i++) {
        int n = (i + 1) % SIDES;
        if (ok[0][0] && ok[1][i] && ok[1][n]) {
            const float t[3][2] = {{pts[0][0][0], pts[0][0][1]},
                                   {pts[1][i][0], pts[1][i][1]},
                                   {pts[1][n][0], pts[1][n][1]}};
            const float al3[3] = {sh->strength * ring_alpha[0], inner, inner};
            push(list, al, t, al3, black);
        }
        if (ok[1][i] && ok[1][n] && ok[2][i] && ok[2][n]) {
            const float alpha[4] = {inner, 0, 0, inner};
            push_quad(list, al, pts[1][i], pts[2][i], pts[2][n], pts[1][n], alpha, black);
        }
    }
}

/* -- Skeleton -- */

void ossa__rd_skeleton(rd_flats *list, const ossa_allocator *al, const ossa_render_camera *cam,
                       uint32_t width, uint32_t height, const ossa_render_scene *scene,
                       const float (*pose)[16], uint32_t supersample)
{
    static const uint8_t fill[3] = {255, 196, 64}, edge[3] = {24, 24, 28}, dot[3] = {250, 250, 250};
    static const float opaque[4] = {1, 1, 1, 1}, solid[4] = {0.9f, 0.9f, 0.9f, 0.9f};
    uint32_t nj = scene->num_joints;
    projector pr;
    make_projector(&pr, cam, width, height);
    const float ss = (float)supersample;
    /* Bones first, then every joint's dot over them. */
    for (uint32_t j = 0; j < nj; j++) {
        int32_t parent = scene->parents[j];
        if (parent < 0 || (uint32_t)parent >= j) continue;
        float a[2], b[2];
        if (!project(&pr, &pose[parent][12], a) || !project(&pr, &pose[j][12], b)) continue;
        float dx = b[0] - a[0], dy = b[1] - a[1], len = sqrtf(dx * dx + dy * dy);
        if (!(len > 0.5f * ss) || !isfinite(len)) continue;
        /* An octahedral bone seen from the side: a kite, widest a fifth of
         * the way from the parent, outlined. */
        float w = fminf(fmaxf(0.1f * len, 1.5f * ss), 7 * ss);
        float nx = -dy / len * w, ny = dx / len * w;
        float m[2] = {a[0] + 0.2f * dx, a[1] + 0.2f * dy};
        const float k[4][2] = {{a[0], a[1]}, {m[0] + nx, m[1] + ny}, {b[0], b[1]}, {m[0] - nx, m[1] - ny}};
        push_quad(list, al, k[0], k[1], k[2], k[3], solid, fill);
        for (int i = 0; i < 4; i++) {
            const float *p = k[i], *q = k[(i + 1) % 4];
            float ex = q[0] - p[0], ey = q[1] - p[1], el = sqrtf(ex * ex + ey * ey);
            if (!(el > 1e-3f)) continue;
            float hx = -ey / el * 0.5f * ss, hy = ex / el * 0.5f * ss;
            const float c0[2] = {p[0] + hx, p[1] + hy}, c1[2] = {q[0] + hx, q[1] + hy};
            const float c2[2] = {q[0] - hx, q[1] - hy}, c3[2] = {p[0] - hx, p[1] - hy};
            push_quad(list, al, c0, c1, c2, c3, opaque, edge);
        }
    }
    for (uint32_t j = 0; j < nj; j++) {
        float c[2];
        if (!project(&pr, &pose[j][12], c)) continue;
        for (int pass = 0; pass < 2; pass++) {
            float r = (pass ? 2.0f : 3.2f) * ss;
            const float d0[2] = {c[0], c[1] - r}, d1[2] = {c[0] + r, c[1]};
            const float d2[2] = {c[0], c[1] + r}, d3[2] = {c[0] - r, c[1]};
            push_quad(list, al, d0, d1, d2, d3, opaque, pass ? dot : edge);
        }
    }
}
