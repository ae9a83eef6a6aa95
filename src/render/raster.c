/* Triangles to pixels: clipping in homogeneous space, fixed-point edge
 * functions with the top-left rule (neighbours sharing an edge never
 * both draw a pixel, and no pixel between them is missed), a depth test,
 * perspective-correct attributes and the pixel shading. */
#include "render/render.h"

#include <math.h>

/* -- Pixels -- */

/* A bilinear texel of `m` at (u, v), repeating: 8 fraction bits of
 * position, weights and sums in integers. */
static void sample(const rd_material *m, float u, float v, float out[4])
{
    const uint32_t W = m->texture_width, H = m->texture_height;
    if (!isfinite(u)) u = 0;
    if (!isfinite(v)) v = 0;
    u -= floorf(u);
    v -= floorf(v);
    /* Texel centres sit at half positions; the offset of a whole texture
     * keeps the values positive before the wrap. */
    uint32_t fx = (uint32_t)(u * (float)(W * 256)) + W * 256 - 128;
    uint32_t fy = (uint32_t)(v * (float)(H * 256)) + H * 256 - 128;
    uint32_t x0 = (fx >> 8) % W, y0 = (fy >> 8) % H, tx = fx & 255, ty = fy & 255;
    uint32_t x1 = x0 + 1 == W ? 0 : x0 + 1, y1 = y0 + 1 == H ? 0 : y0 + 1;
    const uint8_t *t = m->texture;
    const uint8_t *p00 = t + ((size_t)y0 * W + x0) * 4, *p10 = t + ((size_t)y0 * W + x1) * 4;
    const uint8_t *p01 = t + ((size_t)y1 * W + x0) * 4, *p11 = t + ((size_t)y1 * W + x1) * 4;
    for (int c = 0; c < 4; c++) {
        uint32_t top = p00[c] * (256 - tx) + p10[c] * tx;
        uint32_t bottom = p01[c] * (256 - tx) + p11[c] * tx;
        out[c] = (float)(top * (256 - ty) + bottom * ty) * (1.0f / 65536.0f);
    }
}

static uint8_t to_byte(float v)
{
    v += 0.5f;
    if (!(v > 0)) return 0; /* NaN too */
    if (v >= 255) return 255;
    return (uint8_t)v;
}

/* -- One triangle -- */

typedef struct tri {
    const rd_vertex *v[3];
    const rd_material *material;
    int cull;
    bool facing; /* for RD_CULL_NONE: the normals face the eye */
} tri;

/* What every triangle of one call shares. */
typedef struct raster {
    const rd_target *target;
    bool two_sided, textures, colored;
} raster;

/* Rasterizes a triangle whose vertices have screen positions (outcode 0
 * or clipped). */
static void draw(const raster *job, const tri *t)
{
    const rd_vertex *a = t->v[0], *b = t->v[1], *c = t->v[2];
    int64_t area = (int64_t)(b->x - a->x) * (c->y - a->y) - (int64_t)(b->y - a->y) * (c->x - a->x);
    if (area == 0) return;
    /* area > 0: the model's front side faces the eye (clockwise in model
     * space with y up is counter-clockwise on a y-down screen). */
    bool front = area > 0;
    int side;
    if (t->cull == RD_CULL_NONE) {
        side = t->facing ? 0 : 1;
    } else {
        bool visible = (t->cull == RD_CULL_BACK) == front;
        if (!visible && !job->two_sided) return;
        side = visible ? 0 : 1;
    }
    if (!front) {
        const rd_vertex *tmp = b;
        b = c, c = tmp;
        area = -area;
    }
    const rd_target *tg = job->target;
    const int32_t W = (int32_t)tg->width;
    int32_t xmin = a->x < b->x ? (a->x < c->x ? a->x : c->x) : (b->x < c->x ? b->x : c->x);
    int32_t xmax = a->x > b->x ? (a->x > c->x ? a->x : c->x) : (b->x > c->x ? b->x : c->x);
    int32_t ymin = a->y < b->y ? (a->y < c->y ? a->y : c->y) : (b->y < c->y ? b->y : c->y);
    int32_t ymax = a->y > b->y ? (a->y > c->y ? a->y : c->y) : (b->y > c->y ? b->y : c->y);
    /* Pixels whose centres (x + 1/2, y + 1/2) lie in the box. */
    int64_t px0 = -rd_floor_div(-((int64_t)xmin - RD_ONE / 2), RD_ONE);
    int64_t px1 = rd_floor_div((int64_t)xmax - RD_ONE / 2, RD_ONE);
    int64_t py0 = -rd_floor_div(-((int64_t)ymin - RD_ONE / 2), RD_ONE);
    int64_t py1 = rd_floor_div((int64_t)ymax - RD_ONE / 2, RD_ONE);
    if (px0 < 0) px0 = 0;
    if (py0 < (int64_t)tg->row0) py0 = tg->row0;
    if (px1 > W - 1) px1 = W - 1;
    if (py1 > (int64_t)tg->row1 - 1) py1 = (int64_t)tg->row1 - 1;
    if (px0 > px1 || py0 > py1) return;

    /* Edge i runs between the two vertices other than i; E_i is twice the
     * area of the triangle it makes with the point, so E_i / area is the
     * barycentric weight of vertex i. */
    const rd_vertex *vv[3] = {a, b, c};
    int64_t dx[3], dy[3], bias[3];
    for (int i = 0; i < 3; i++) {
        const rd_vertex *p = vv[(i + 1) % 3], *q = vv[(i + 2) % 3];
        dx[i] = (int64_t)q->x - p->x;
        dy[i] = (int64_t)q->y - p->y;
        bool top_left = dy[i] < 0 || (dy[i] == 0 && dx[i] > 0);
        bias[i] = top_left ? 0 : 1;
    }
    const float inv_area = 1.0f / (float)area;
    const int light = side ? RD_LIGHT_BACK : RD_LIGHT_FRONT, rim = side ? RD_RIM_BACK : RD_RIM_FRONT;
    const int ids[7] = {light, rim, RD_U, RD_V, RD_R, RD_G, RD_B};
    const bool textured = job->textures && t->material->texture;
    /* Vertex colours multiply the albedo; without them the attributes
     * after the texture coordinates are not interpolated. */
    const bool colored = job->colored;
    /* Attributes over w, which are linear on the screen. */
    float A0[7], dA1[7], dA2[7];
    for (int k = 0; k < 7; k++) {
        if ((k == 2 || k == 3) ? !textured : k > 3 && !colored) {
            A0[k] = 1, dA1[k] = dA2[k] = 0; /* a constant 1 (a colour factor) */
            continue;
        }
        A0[k] = a->attr[ids[k]] * a->inv_w;
        dA1[k] = b->attr[ids[k]] * b->inv_w - A0[k];
        dA2[k] = c->attr[ids[k]] * c->inv_w - A0[k];
    }
    const float z0 = a->z, dz1 = b->z - a->z, dz2 = c->z - a->z;
    const float iw0 = a->inv_w, diw1 = b->inv_w - a->inv_w, diw2 = c->inv_w - a->inv_w;
    const rd_material *m = t->material;

    for (int64_t y = py0; y <= py1; y++) {
        int64_t sy = y * RD_ONE + RD_ONE / 2, sx = px0 * RD_ONE + RD_ONE / 2;
        int64_t e[3], step[3], xa, xb;
        for (int i = 0; i < 3; i++) {
            const rd_vertex *p = vv[(i + 1) % 3];
            e[i] = dx[i] * (sy - p->y) - dy[i] * (sx - p->x) - bias[i];
            step[i] = -dy[i] * RD_ONE;
        }
        if (!rd_row_span(e, step, px0, px1, &xa, &xb)) continue;
        for (int i = 0; i < 3; i++) e[i] += (xa - px0) * step[i];
        float *zrow = tg->depth + (size_t)(y - tg->row0) * (size_t)W;
        uint8_t *crow = tg->color + (size_t)(y - tg->row0) * tg->stride;
        for (int64_t x = xa; x <= xb; x++, e[0] += step[0], e[1] += step[1], e[2] += step[2]) {
            float b1 = (float)(e[1] + bias[1]) * inv_area, b2 = (float)(e[2] + bias[2]) * inv_area;
            float z = z0 + b1 * dz1 + b2 * dz2;
            if (!(z < zrow[x])) continue;
            float w = 1.0f / (iw0 + b1 * diw1 + b2 * diw2);
            float L = (A0[0] + b1 * dA1[0] + b2 * dA2[0]) * w;
            float R = (A0[1] + b1 * dA1[1] + b2 * dA2[1]) * w * 255.0f;
            uint8_t *px = crow + x * 4;
            float k[3] = {1, 1, 1};
            if (colored)
                for (int ch = 0; ch < 3; ch++) k[ch] = (A0[4 + ch] + b1 * dA1[4 + ch] + b2 * dA2[4 + ch]) * w;
            if (textured) {
                float u = (A0[2] + b1 * dA1[2] + b2 * dA2[2]) * w;
                float v = (A0[3] + b1 * dA1[3] + b2 * dA2[3]) * w;
                float texel[4];
                sample(m, u, v, texel);
                if (texel[3] < 127.5f) continue; /* cut-out */
                px[0] = to_byte(texel[0] * m->color[0] * k[0] * L + R);
                px[1] = to_byte(texel[1] * m->color[1] * k[1] * L + R);
                px[2] = to_byte(texel[2] * m->color[2] * k[2] * L + R);
            } else {
                px[0] = to_byte(m->flat[0] * k[0] * L + R);
                px[1] = to_byte(m->flat[1] * k[1] * L + R);
                px[2] = to_byte(m->flat[2] * k[2] * L + R);
            }
            px[3] = 255;
            zrow[x] = z;
        }
    }
}

/* -- Clipping -- */

#define MAX_POLY 12 /* 3 corners + one per plane */

static float plane_distance(const rd_vertex *v, uint32_t plane, float gx, float gy)
{
    const float *c = v->clip;
    switch (plane) {
    case RD_OUT_NEAR: return c[2] + c[3];
    case RD_OUT_FAR: return c[3] - c[2];
    case RD_OUT_LEFT: return c[0] + gx * c[3];
    case RD_OUT_RIGHT: return gx * c[3] - c[0];
    case RD_OUT_BOTTOM: return c[1] + gy * c[3];
    default: return gy * c[3] - c[1];
    }
}

static void lerp_vertex(const rd_vertex *p, const rd_vertex *q, float t, rd_vertex *out)
{
    for (int i = 0; i < 4; i++) out->clip[i] = p->clip[i] + (q->clip[i] - p->clip[i]) * t;
    for (int i = 0; i < RD_ATTRS; i++) out->attr[i] = p->attr[i] + (q->attr[i] - p->attr[i]) * t;
    out->facing = p->facing;
    out->outcode = 0;
}

/* Sutherland-Hodgman against every plane some corner is outside of;
 * attributes are linear in clip space, so interpolating them there keeps
 * them perspective-correct. */
static void clip_and_draw(const raster *job, const tri *t, uint32_t planes)
{
    rd_vertex buf[2][MAX_POLY];
    int n = 3, cur = 0;
    for (int i = 0; i < 3; i++) buf[0][i] = *t->v[i];
    const rd_target *tg = job->target;
    rd_screen screen;
    ossa__rd_screen(&screen, tg->width, tg->height);
    const float gx = screen.gx, gy = screen.gy;
    for (uint32_t plane = 1; plane < RD_OUT_INVALID; plane <<= 1) {
        if (!(planes & plane)) continue;
        const rd_vertex *in = buf[cur];
        rd_vertex *out = buf[cur ^ 1];
        int m = 0;
        for (int i = 0; i < n; i++) {
            const rd_vertex *p = &in[i], *q = &in[(i + 1) % n];
            float dp = plane_distance(p, plane, gx, gy), dq = plane_distance(q, plane, gx, gy);
            if (dp >= 0) out[m++] = *p;
            if ((dp >= 0) != (dq >= 0) && m < MAX_POLY) lerp_vertex(p, q, dp / (dp - dq), &out[m++]);
        }
        n = m;
        cur ^= 1;
        if (n < 3) return;
    }
    rd_vertex *poly = buf[cur];
    for (int i = 0; i < n; i++) {
        if (!(poly[i].clip[3] > 0) || !isfinite(poly[i].clip[3])) return;
        ossa__rd_project(&poly[i], &screen);
    }
    tri sub = *t;
    for (int i = 1; i + 1 < n; i++) {
        sub.v[0] = &poly[0], sub.v[1] = &poly[i], sub.v[2] = &poly[i + 1];
        draw(job, &sub);
    }
}

/* -- Triangles into bands -- */

/* Whether triangle i is certainly not drawn, and else the rows its fast
 * path covers (*lo > *hi for one that needs clipping: it may cover any). */
static bool skip_triangle(const ossa_render_scene *s, const rd_vertex *vs, uint32_t i,
                          bool two_sided, int64_t *lo, int64_t *hi)
{
    const uint32_t *idx = s->triangles + (size_t)i * 3;
    const rd_vertex *a = &vs[idx[0]], *b = &vs[idx[1]], *c = &vs[idx[2]];
    uint32_t o0 = a->outcode, o1 = b->outcode, o2 = c->outcode;
    if (((o0 | o1 | o2) & RD_OUT_INVALID) || (o0 & o1 & o2)) return true;
    *lo = 1, *hi = 0;
    if (o0 | o1 | o2) return false;
    int64_t area = (int64_t)(b->x - a->x) * (c->y - a->y) - (int64_t)(b->y - a->y) * (c->x - a->x);
    if (area == 0) return true;
    int cull = s->materials[s->triangle_mesh[i]].cull;
    if (!two_sided && cull != RD_CULL_NONE && (cull == RD_CULL_BACK) != (area > 0)) return true;
    int32_t ymin = a->y < b->y ? (a->y < c->y ? a->y : c->y) : (b->y < c->y ? b->y : c->y);
    int32_t ymax = a->y > b->y ? (a->y > c->y ? a->y : c->y) : (b->y > c->y ? b->y : c->y);
    /* Rows whose centres lie in [ymin, ymax], as in draw(). */
    *lo = -rd_floor_div(-((int64_t)ymin - RD_ONE / 2), RD_ONE);
    *hi = rd_floor_div((int64_t)ymax - RD_ONE / 2, RD_ONE);
    return *lo > *hi; /* between two rows of pixel centres */
}

/* The bands rows lo..hi touch, packed as first | last << 16 (bands are
 * fewer than 2^16), or NO_BANDS. */
#define NO_BANDS UINT32_MAX

static uint32_t band_range(const rd_bins *bins, int64_t lo, int64_t hi)
{
    int64_t last = (int64_t)bins->bands - 1;
    if (lo > hi) return (uint32_t)last << 16; /* clipped: any band */
    if (hi < 0 || lo / bins->band_rows > last) return NO_BANDS;
    int64_t a = lo < 0 ? 0 : lo / bins->band_rows, b = hi / bins->band_rows;
    return (uint32_t)a | (uint32_t)(b > last ? last : b) << 16;
}

/* Binning in parts of the triangle list, each counted and then placed by
 * its own thread. Within a band the parts' triangles follow each other in
 * part order, so every band lists its triangles in triangle order however
 * many parts there are. */
typedef struct bin_job {
    const ossa_render_scene *scene;
    const rd_vertex *vertices;
    const rd_bins *bins;
    bool two_sided;
    uint32_t parts;
    uint32_t *ranges; /* per triangle: band_range() */
    uint32_t *slots;  /* parts x bands: counts, then where each part writes */
    uint32_t *items;
} bin_job;

static void part_bounds(const bin_job *j, uint32_t part, uint32_t *t0, uint32_t *t1)
{
    uint64_t n = j->scene->num_triangles;
    *t0 = (uint32_t)(n * part / j->parts);
    *t1 = (uint32_t)(n * (part + 1) / j->parts);
}

static void bin_count(void *ctx, uint32_t part)
{
    bin_job *j = ctx;
    uint32_t t0, t1, *count = j->slots + (size_t)part * j->bins->bands;
    part_bounds(j, part, &t0, &t1);
    for (uint32_t i = t0; i < t1; i++) {
        int64_t lo, hi;
        uint32_t r = skip_triangle(j->scene, j->vertices, i, j->two_sided, &lo, &hi)
                         ? NO_BANDS
                         : band_range(j->bins, lo, hi);
        j->ranges[i] = r;
        if (r == NO_BANDS) continue;
        for (uint32_t b = r & 0xFFFF; b <= r >> 16; b++) count[b]++;
    }
}

static void bin_place(void *ctx, uint32_t part)
{
    bin_job *j = ctx;
    uint32_t t0, t1, *at = j->slots + (size_t)part * j->bins->bands;
    part_bounds(j, part, &t0, &t1);
    for (uint32_t i = t0; i < t1; i++) {
        uint32_t r = j->ranges[i];
        if (r == NO_BANDS) continue;
        for (uint32_t b = r & 0xFFFF; b <= r >> 16; b++) j->items[at[b]++] = i;
    }
}

static bool grow(ossa_render_scene *s, uint32_t **buf, size_t *cap, size_t need)
{
    if (*cap >= need && *buf) return true;
    need = need ? need : 1;
    uint32_t *p = ossa__alloc(&s->allocator, need * sizeof *p);
    if (!p) return false;
    ossa__free(&s->allocator, *buf, 0);
    s->memory += (need - *cap) * sizeof *p;
    *buf = p, *cap = need;
    return true;
}

bool ossa__rd_bin(ossa_render_scene *s, const rd_vertex *vs, uint32_t height, bool two_sided,
                  uint32_t threads, rd_bins *bins)
{
    rd_work *w = &s->work;
    bins->band_rows = bins->band_rows ? bins->band_rows : 32;
    bins->bands = (height + bins->band_rows - 1) / bins->band_rows;
    uint32_t nt = s->num_triangles;
    /* Parts of at least 4096 triangles: fewer are not worth a thread. */
    uint32_t parts = (nt + 4095) / 4096;
    if (parts > threads) parts = threads;
    if (parts == 0) parts = 1;
    size_t slots = (size_t)parts * bins->bands;
    if (!grow(s, &w->bin_start, &w->bin_start_cap, (size_t)bins->bands + 1) ||
        !grow(s, &w->bin_ranges, &w->bin_ranges_cap, nt) ||
        !grow(s, &w->bin_slots, &w->bin_slots_cap, slots))
        return false;
    memset(w->bin_slots, 0, slots * sizeof *w->bin_slots);
    bin_job j = {s, vs, bins, two_sided, parts, w->bin_ranges, w->bin_slots, NULL};
    ossa__parallel(parts, bin_count, &j);
    /* Counts to offsets: band by band, part by part within a band. */
    uint64_t total = 0;
    for (uint32_t b = 0; b < bins->bands; b++) {
        w->bin_start[b] = (uint32_t)total;
        for (uint32_t p = 0; p < parts; p++) {
            uint32_t *slot = &w->bin_slots[(size_t)p * bins->bands + b];
            uint32_t n = *slot;
            *slot = (uint32_t)total;
            total += n;
        }
        if (total > UINT32_MAX) return false;
    }
    w->bin_start[bins->bands] = (uint32_t)total;
    if (!grow(s, &w->bin_items, &w->bin_items_cap, total)) return false;
    j.items = w->bin_items;
    ossa__parallel(parts, bin_place, &j);
    bins->start = w->bin_start;
    bins->items = w->bin_items;
    return true;
}

void ossa__rd_raster(const ossa_render_scene *s, const rd_vertex *vs, const rd_target *target,
                     const uint32_t *triangles, uint32_t count, bool two_sided, bool textures)
{
    raster job = {target, two_sided, textures, s->colors != NULL};
    for (uint32_t k = 0; k < count; k++) {
        uint32_t i = triangles[k];
        const uint32_t *idx = s->triangles + (size_t)i * 3;
        tri t;
        t.v[0] = &vs[idx[0]], t.v[1] = &vs[idx[1]], t.v[2] = &vs[idx[2]];
        uint32_t o = t.v[0]->outcode | t.v[1]->outcode | t.v[2]->outcode;
        t.material = &s->materials[s->triangle_mesh[i]];
        t.cull = t.material->cull;
        t.facing = t.v[0]->facing + t.v[1]->facing + t.v[2]->facing >= 0;
        if (o == 0) draw(&job, &t);
        else clip_and_draw(&job, &t, o);
    }
}
