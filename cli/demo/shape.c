/* A closed surface swept along a polyline (demo_shape in demo.h): the
 * primitive every part of the demo character is made of. The surface is
 * a grid of rings by sides, with a column repeated at the seam so that
 * the texture's u runs from 0 to 1 without wrapping, and a pole at each
 * end. */
#include "demo.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

/* All the rings of a shape, caps included: the ring table with the
 * rounding rings of each end. */
static int total_rings(const demo_shape *s)
{
    return s->num_rings + s->round_start + s->round_end;
}

uint32_t demo_shape_vertices(const demo_shape *s)
{
    return (uint32_t)(total_rings(s) * (s->sides + 1) + 2);
}

uint32_t demo_shape_triangles(const demo_shape *s)
{
    /* Two per quad between rings, one per side at each pole. */
    return (uint32_t)(2 * s->sides * (total_rings(s) - 1) + 2 * s->sides);
}

/* The point `along` metres along the path; before its start and past its
 * end the first and last segments are extended. */
static void path_point(const demo_shape *s, float along, float out[3])
{
    int last = s->num_path - 2;
    for (int i = 0; i <= last; i++) {
        float d[3];
        demo_v_sub(s->path[i + 1], s->path[i], d);
        float len = sqrtf(demo_v_dot(d, d));
        if (along <= len || i == last) {
            float t = len > 0 ? along / len : 0;
            for (int k = 0; k < 3; k++) out[k] = s->path[i][k] + d[k] * t;
            return;
        }
        along -= len;
    }
}

/* The ring's axes: T along the path (averaged over 2 cm, which rounds
 * the frame at a bend of the path), U and V across it. */
static void ring_axes(const demo_shape *s, float along, float u[3], float v[3], float t[3])
{
    float a[3], b[3];
    path_point(s, along - 0.02f, a);
    path_point(s, along + 0.02f, b);
    demo_v_sub(b, a, t);
    demo_v_normalize(t);
    float d = demo_v_dot(s->lateral, t);
    for (int k = 0; k < 3; k++) u[k] = s->lateral[k] - d * t[k];
    demo_v_normalize(u);
    demo_v_cross(t, u, v);
}

/* Ring r of the shape (caps included), as a ring record. */
static demo_ring ring_at(const demo_shape *s, int r)
{
    int n = s->num_rings, c = s->round_start;
    if (r >= c && r < c + n) return s->rings[r - c];
    /* Rounding ring k (1..rounds) away from the end ring: a quarter
     * ellipse. */
    int start = r < c;
    int k = start ? c - r : r - (c + n - 1);
    int rounds = start ? s->round_start : s->round_end;
    double phi = (PI / 2) * k / (rounds + 1);
    demo_ring e = start ? s->rings[0] : s->rings[n - 1];
    float length = start ? -s->cap_start : s->cap_end;
    e.along += length * (float)sin(phi);
    e.a *= (float)cos(phi);
    e.b *= (float)cos(phi);
    return e;
}

/* A superellipse's coordinate: sign(c) |c|^(2 / exponent). */
static float super(double c, float exponent)
{
    double m = pow(fabs(c), 2.0 / exponent);
    return (float)(c < 0 ? -m : m);
}

static void place_vertices(demo_mesh *m, const demo_shape *s, uint32_t base)
{
    int rings = total_rings(s), cols = s->sides + 1;
    for (int r = 0; r < rings; r++) {
        demo_ring ring = ring_at(s, r);
        float u[3], v[3], t[3], c[3];
        ring_axes(s, ring.along, u, v, t);
        path_point(s, ring.along, c);
        for (int k = 0; k < 3; k++) c[k] += ring.du * u[k] + ring.dv * v[k];
        for (int i = 0; i < cols; i++) {
            uint32_t vi = base + (uint32_t)(r * cols + i);
            float fu = (float)i / (float)s->sides;
            /* The seam's second column is the first one again, exactly. */
            double theta = s->front + PI + 2 * PI * (i % s->sides) / s->sides;
            float x = ring.a * super(cos(theta), s->exponent);
            float y = ring.b * super(sin(theta), s->exponent);
            for (int k = 0; k < 3; k++) m->position[vi * 3 + k] = c[k] + x * u[k] + y * v[k];
            demo_texture_coords(s->kind, fu, ring.along, &m->texcoord[vi * 2]);
        }
    }
    /* The poles, on the path at the ends of the caps (with the end
     * rings' offsets). */
    for (int end = 0; end < 2; end++) {
        demo_ring ring = end ? s->rings[s->num_rings - 1] : s->rings[0];
        float along = end ? ring.along + s->cap_end : ring.along - s->cap_start;
        float u[3], v[3], t[3], c[3];
        ring_axes(s, along, u, v, t);
        path_point(s, along, c);
        uint32_t vi = base + (uint32_t)(rings * cols + end);
        for (int k = 0; k < 3; k++) {
            m->position[vi * 3 + k] = c[k] + ring.du * u[k] + ring.dv * v[k];
            m->normal[vi * 3 + k] = end ? t[k] : -t[k];
        }
        demo_texture_coords(s->kind, 0.5f, along, &m->texcoord[vi * 2]);
    }
}

/* Smooth normals from the grid: the cross product of the differences
 * between each vertex's neighbours around and along (the poles beyond the
 * end rings), which is outward for (U, V, T) right-handed. The seam's two
 * columns take the same neighbours and get the same normal. */
static void grid_normals(demo_mesh *m, const demo_shape *s, uint32_t base)
{
    int rings = total_rings(s), cols = s->sides + 1;
    const float *p = m->position;
    for (int r = 0; r < rings; r++)
        for (int i = 0; i < cols; i++) {
            int prev = (i + s->sides - 1) % s->sides, next = (i + 1) % s->sides;
            uint32_t a0 = base + (uint32_t)(r * cols + prev), a1 = base + (uint32_t)(r * cols + next);
            int col = i % s->sides;
            uint32_t b0 = r > 0 ? base + (uint32_t)((r - 1) * cols + col) : base + (uint32_t)(rings * cols);
            uint32_t b1 = r + 1 < rings ? base + (uint32_t)((r + 1) * cols + col)
                                        : base + (uint32_t)(rings * cols + 1);
            float around[3], along[3], n[3];
            demo_v_sub(&p[a1 * 3], &p[a0 * 3], around);
            demo_v_sub(&p[b1 * 3], &p[b0 * 3], along);
            demo_v_cross(around, along, n);
            demo_v_normalize(n);
            memcpy(&m->normal[(base + (uint32_t)(r * cols + i)) * 3], n, sizeof n);
        }
}

/* Clockwise seen from outside: for a quad a b (this ring, angle growing)
 * and c e (the next ring), the outward normal of (a, e, b) is
 * cross(b - a, e - a), along U at angle 0. */
static void add_triangles(demo_mesh *m, const demo_shape *s, uint32_t base)
{
    int rings = total_rings(s), cols = s->sides + 1;
    ossa_triangle *t = m->triangles + m->num_triangles;
    for (int r = 0; r + 1 < rings; r++)
        for (int i = 0; i < s->sides; i++) {
            uint32_t a = base + (uint32_t)(r * cols + i), b = a + 1, c = a + (uint32_t)cols, e = c + 1;
            *t++ = (ossa_triangle){{a, e, b}};
            *t++ = (ossa_triangle){{a, c, e}};
        }
    uint32_t p0 = base + (uint32_t)(rings * cols), p1 = p0 + 1;
    uint32_t last = base + (uint32_t)((rings - 1) * cols);
    for (int i = 0; i < s->sides; i++) {
        uint32_t a = base + (uint32_t)i, b = last + (uint32_t)i;
        *t++ = (ossa_triangle){{p0, a, a + 1}};
        *t++ = (ossa_triangle){{p1, b + 1, b}};
    }
    m->num_triangles = (uint32_t)(t - m->triangles);
}

void demo_shape_add(demo_mesh *m, const demo_shape *s)
{
    uint32_t base = m->num_vertices, n = demo_shape_vertices(s);
    place_vertices(m, s, base);
    grid_normals(m, s, base);
    for (uint32_t i = base; i < base + n; i++) {
        m->kind[i] = (uint8_t)s->kind;
        m->side[i] = (int8_t)s->side;
    }
    add_triangles(m, s, base);
    m->num_vertices = base + n;
}
