/* The vertex stage: skin a range of vertices, move them to clip space,
 * light them (both sides) and place them on the screen. */
#include "render/render.h"

#include <math.h>

void ossa__rd_screen(rd_screen *s, uint32_t width, uint32_t height)
{
    s->width = (float)width;
    s->height = (float)height;
    s->gx = 1.0f + 2.0f * RD_GUARD_PIXELS / (float)width;
    s->gy = 1.0f + 2.0f * RD_GUARD_PIXELS / (float)height;
}

uint32_t ossa__rd_outcode(const float c[4], const rd_screen *s)
{
    float x = c[0], y = c[1], z = c[2], w = c[3];
    if (!isfinite(x) || !isfinite(y) || !isfinite(z) || !isfinite(w)) return RD_OUT_INVALID;
    uint32_t code = 0;
    /* w <= 0 is behind the eye; with a projection from camera.c that is
     * also outside the near plane, but a hand-made one may differ. */
    if (z < -w || !(w > 0)) code |= RD_OUT_NEAR;
    if (z > w) code |= RD_OUT_FAR;
    if (x < -s->gx * w) code |= RD_OUT_LEFT;
    if (x > s->gx * w) code |= RD_OUT_RIGHT;
    if (y < -s->gy * w) code |= RD_OUT_BOTTOM;
    if (y > s->gy * w) code |= RD_OUT_TOP;
    return code;
}

static int32_t to_fixed(float v, float limit)
{
    /* Clipped vertices may overshoot the guard band by rounding. */
    if (!(v > -limit)) v = -limit;
    if (!(v < limit)) v = limit;
    return (int32_t)floorf(v * (float)RD_ONE + 0.5f);
}

void ossa__rd_project(rd_vertex *v, const rd_screen *s)
{
    float iw = 1.0f / v->clip[3];
    float sx = (v->clip[0] * iw * 0.5f + 0.5f) * s->width;
    float sy = (0.5f - v->clip[1] * iw * 0.5f) * s->height;
    const float limit = (float)(RD_GUARD_PIXELS + RD_MAX_SIDE);
    v->x = to_fixed(sx, limit);
    v->y = to_fixed(sy, limit);
    float z = v->clip[2] * iw * 0.5f + 0.5f;
    v->z = z < 0 ? 0 : z > 1 ? 1 : z;
    v->inv_w = iw;
}

void ossa__rd_ground_axes(const float up[3], float e1[3], float e2[3])
{
    /* Any unit vector not along `up`, made perpendicular to it. */
    float a[3] = {1, 0, 0};
    if (fabsf(up[0]) > 0.9f) a[0] = 0, a[1] = 1;
    float d = rd_dot3(a, up);
    for (int i = 0; i < 3; i++) e1[i] = a[i] - d * up[i];
    float len = sqrtf(rd_dot3(e1, e1));
    for (int i = 0; i < 3; i++) e1[i] /= len;
    e2[0] = up[1] * e1[2] - up[2] * e1[1];
    e2[1] = up[2] * e1[0] - up[0] * e1[2];
    e2[2] = up[0] * e1[1] - up[1] * e1[0];
}

/* rim * (1 - max(0, n.v))^power for n.v and for -n.v: one of the two
 * bases is 1, so one power is enough. */
static void rim_terms(const rd_shading *sh, float ndv, float *front, float *back)
{
    float x = 1.0f - fabsf(ndv), r;
    if (!(x >= 0)) x = 0; /* |n.v| > 1 by rounding, or NaN */
    if (sh->rim_power_int >= 0) {
        r = 1;
        for (int i = 0; i < sh->rim_power_int; i++) r *= x;
    } else {
        r = powf(x, sh->rim_power);
    }
    *front = sh->rim * (ndv > 0 ? r : 1);
    *back = sh->rim * (ndv < 0 ? r : 1);
}

static void mat4_mul(const float a[16], const float b[16], float out[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            out[c * 4 + r] = a[r] * b[c * 4] + a[4 + r] * b[c * 4 + 1] + a[8 + r] * b[c * 4 + 2] +
                             a[12 + r] * b[c * 4 + 3];
}

void ossa__rd_vertex_stage(rd_vertex_job *job)
{
    ossa_render_scene *s = job->scene;
    const ossa_render_camera *cam = job->camera;
    const rd_shading *sh = job->shading;
    uint32_t first = job->first, count = job->count;
    if (count == 0) return;

    const float *pos = s->positions + (size_t)first * 3;
    const float *nrm = s->normals + (size_t)first * 3;
    if (job->skinned) {
        uint32_t k = s->influences;
        ossa_skinning_job sk;
        memset(&sk, 0, sizeof sk);
        sk.num_vertices = count;
        sk.influences = k;
        sk.matrices = (const float(*)[16])s->skin;
        sk.num_matrices = s->num_joints + 1;
        sk.indices = s->blend_indices + (size_t)first * k;
        sk.indices_stride = 2 * (size_t)k;
        sk.weights = s->blend_weights + (size_t)first * k;
        sk.weights_stride = 4 * (size_t)k;
        sk.in_positions = pos;
        sk.in_positions_stride = 12;
        sk.out_positions = s->skinned_positions + (size_t)first * 3;
        sk.out_positions_stride = 12;
        sk.in_normals = nrm;
        sk.in_normals_stride = 12;
        sk.out_normals = s->skinned_normals + (size_t)first * 3;
        sk.out_normals_stride = 12;
        sk.simd = job->simd;
        if (ossa_skinning_run(&sk, &job->error) != OSSA_OK) {
            job->status = OSSA_FAILED;
            return;
        }
        pos = sk.out_positions;
        nrm = sk.out_normals;
    }

    float pv[16];
    mat4_mul(cam->projection, cam->view, pv);
    const float *V = cam->view;
    float e1[3], e2[3];
    ossa__rd_ground_axes(cam->up, e1, e2);
    const float *uv = s->texcoords ? s->texcoords + (size_t)first * 2 : NULL;
    const float *rgb = s->colors ? s->colors + (size_t)first * 3 : NULL;
    rd_vertex *out = s->vertices + first;
    rd_screen screen;
    ossa__rd_screen(&screen, job->width, job->height);

    for (uint32_t i = 0; i < count; i++) {
        const float *p = pos + (size_t)i * 3, *n = nrm + (size_t)i * 3;
        rd_vertex *v = &out[i];
        rd_mat4_apply(pv, p, 1, v->clip);
        v->outcode = ossa__rd_outcode(v->clip, &screen);
        if (v->outcode == 0) ossa__rd_project(v, &screen);

        /* Normals and the direction to the eye in camera space. */
        float nv[3] = {V[0] * n[0] + V[4] * n[1] + V[8] * n[2],
                       V[1] * n[0] + V[5] * n[1] + V[9] * n[2],
                       V[2] * n[0] + V[6] * n[1] + V[10] * n[2]};
        float len2 = rd_dot3(nv, nv);
        if (len2 > 0 && isfinite(len2)) {
            float inv = 1.0f / sqrtf(len2);
            nv[0] *= inv, nv[1] *= inv, nv[2] *= inv;
        } else {
            nv[0] = nv[1] = nv[2] = 0;
        }
        float eye[3] = {0, 0, 1};
        if (!cam->orthographic) {
            float pc[4];
            rd_mat4_apply(V, p, 1, pc);
            float l2 = pc[0] * pc[0] + pc[1] * pc[1] + pc[2] * pc[2];
            if (l2 > 0 && isfinite(l2)) {
                float inv = -1.0f / sqrtf(l2);
                eye[0] = pc[0] * inv, eye[1] = pc[1] * inv, eye[2] = pc[2] * inv;
            }
        }
        float ndl = rd_dot3(nv, sh->light), ndv = rd_dot3(nv, eye);
        v->attr[RD_LIGHT_FRONT] = sh->ambient + sh->diffuse * (ndl > 0 ? ndl : 0);
        v->attr[RD_LIGHT_BACK] = sh->ambient + sh->diffuse * (ndl < 0 ? -ndl : 0);
        rim_terms(sh, ndv, &v->attr[RD_RIM_FRONT], &v->attr[RD_RIM_BACK]);
        v->facing = ndv;
        v->attr[RD_U] = uv ? uv[(size_t)i * 2] : 0;
        v->attr[RD_V] = uv ? uv[(size_t)i * 2 + 1] : 0;
        for (int c = 0; c < 3; c++) v->attr[RD_R + c] = rgb ? rgb[(size_t)i * 3 + c] : 1;

        if (v->outcode & RD_OUT_INVALID) continue;
        float g[3] = {rd_dot3(p, e1), rd_dot3(p, e2), rd_dot3(p, cam->up)};
        for (int k = 0; k < 3; k++) {
            if (g[k] < job->min[k]) job->min[k] = g[k];
            if (g[k] > job->max[k]) job->max[k] = g[k];
        }
    }
}
