/* Cameras: the named views, framing a box so that it fills the picture,
 * the ground under it, and the bounds of a whole animation to frame. */
#include "render/render.h"

#include <math.h>

#define DEG (3.14159265358979323846 / 180.0)

static const struct {
    float yaw, pitch;
} views[] = {
    [OSSA_RENDER_VIEW_DEFAULT] = {35, 20},
    [OSSA_RENDER_VIEW_FRONT] = {0, 0},
    [OSSA_RENDER_VIEW_SIDE] = {90, 0},
    [OSSA_RENDER_VIEW_BACK] = {180, 0},
    [OSSA_RENDER_VIEW_TOP] = {0, 90},
    [OSSA_RENDER_VIEW_THREE_QUARTER] = {35, 20},
};

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* v turned by `angle` radians about the unit axis u (Rodrigues). */
static void rotate_about(const double v[3], const double u[3], double angle, double out[3])
{
    double c = cos(angle), s = sin(angle), uxv[3];
    cross3(u, v, uxv);
    double d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    for (int i = 0; i < 3; i++) out[i] = v[i] * c + uxv[i] * s + u[i] * d * (1 - c);
}

/* The largest of 1, 2 or 5 times a power of ten that is at most x. */
static double nice_step(double x)
{
    double p = pow(10.0, floor(log10(x)));
    double m = x / p;
    return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * p;
}

static bool usable_bounds(const ossa_bounds *b)
{
    if (!b) return false;
    for (int i = 0; i < 3; i++)
        if (!isfinite(b->min[i]) || !isfinite(b->max[i]) || b->min[i] > b->max[i]) return false;
    return true;
}

ossa_status ossa_render_camera_frame(const ossa_render_camera_options *options,
                                     const ossa_bounds *bounds, ossa_axis up, uint32_t width,
                                     uint32_t height, ossa_render_camera *out, ossa_error *error)
{
    ossa_render_camera_options o;
    if (ossa__copy_sized(&o, sizeof o, options, RD_CAMERA_OPTIONS_0_2, "ossa_render_camera_options",
                         error))
        return OSSA_FAILED;
    if (!out || width == 0 || height == 0)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the picture needs a size of at least 1x1 and an output camera");
    if ((unsigned)o.view > OSSA_RENDER_VIEW_THREE_QUARTER || (unsigned)up > OSSA_AXIS_X ||
        (unsigned)o.front > OSSA_FRONT_NEG_X)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "unknown view, up axis or front");
    if (!isfinite(o.yaw) || !isfinite(o.pitch) || !isfinite(o.distance) || o.distance < 0 ||
        !(o.fov >= 0 && o.fov < 180) || !(o.margin >= 0 && o.margin <= 100))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "camera options out of range (yaw, pitch finite; distance >= 0; "
                          "0 <= fov < 180; 0 <= margin <= 100)");
    double yaw = (o.flags & OSSA_RENDER_CAMERA_YAW) ? o.yaw : views[o.view].yaw;
    /* A Z-up model facing +X, +Y or -X: the views turn with it (quarter
     * turns counter-clockwise from -Y, ossa_front's order). */
    if (up == OSSA_AXIS_Z && o.front != OSSA_FRONT_UNKNOWN)
        yaw += 90.0 * ((int)o.front - (int)OSSA_FRONT_NEG_Y);
    double pitch = (o.flags & OSSA_RENDER_CAMERA_PITCH) ? o.pitch : views[o.view].pitch;
    double fov = (o.fov > 0 ? o.fov : 30.0) * DEG;
    double margin = o.margin > 0 ? o.margin : 0.05;
    bool ortho = (o.flags & OSSA_RENDER_CAMERA_ORTHOGRAPHIC) != 0;

    ossa_bounds b;
    if (usable_bounds(bounds)) {
        b = *bounds;
    } else {
        memset(&b, 0, sizeof b);
        for (int i = 0; i < 3; i++) b.min[i] = -0.5f, b.max[i] = 0.5f;
    }
    double center[3], radius = 0;
    for (int i = 0; i < 3; i++) {
        center[i] = 0.5 * ((double)b.min[i] + b.max[i]);
        double h = 0.5 * ((double)b.max[i] - b.min[i]);
        radius += h * h;
    }
    radius = sqrt(radius);
    if (!(radius > 1e-12)) radius = 0.5;
    double R = radius * (1 + margin);

    /* Up, and where a yaw-0 camera sits: in front of a model facing -Y
     * (Z up) or +Z (Y up, glTF's convention; X up likewise). */
    int ax = up == OSSA_AXIS_Z ? 2 : up == OSSA_AXIS_Y ? 1 : 0;
    double u[3] = {0, 0, 0}, f0[3] = {0, 0, 0};
    u[ax] = 1;
    if (up == OSSA_AXIS_Z) f0[1] = -1;
    else f0[2] = 1;
    double h[3], e[3], fwd[3], right[3], cam_up[3], neg_f0[3] = {-f0[0], -f0[1], -f0[2]}, r0[3];
    cross3(neg_f0, u, r0);
    rotate_about(f0, u, yaw * DEG, h);
    rotate_about(r0, u, yaw * DEG, right);
    double cp = cos(pitch * DEG), sp = sin(pitch * DEG);
    for (int i = 0; i < 3; i++) e[i] = h[i] * cp + u[i] * sp, fwd[i] = -e[i];
    cross3(right, fwd, cam_up);

    double aspect = (double)width / height;
    double half_fovx = atan(tan(fov / 2) * aspect);
    double half = fmin(fov / 2, half_fovx);
    double fit = R / sin(half);
    double dist = o.distance > 0 ? o.distance : fit;
    double eye[3];
    /* An orthographic camera keeps its eye outside the model whatever the
     * zoom; the distance only scales what it sees. */
    double eye_dist = ortho ? fmax(fit, 2 * R) : dist;
    for (int i = 0; i < 3; i++) eye[i] = center[i] + e[i] * eye_dist;
    double near_plane = eye_dist - 1.5 * R, far_plane = eye_dist + 1.5 * R;
    if (near_plane < eye_dist * 0.01) near_plane = eye_dist * 0.01;

    memset(out, 0, sizeof *out);
    float *V = out->view;
    for (int i = 0; i < 3; i++) {
        V[i * 4 + 0] = (float)right[i];
        V[i * 4 + 1] = (float)cam_up[i];
        V[i * 4 + 2] = (float)e[i];
    }
    V[12] = (float)-(right[0] * eye[0] + right[1] * eye[1] + right[2] * eye[2]);
    V[13] = (float)-(cam_up[0] * eye[0] + cam_up[1] * eye[1] + cam_up[2] * eye[2]);
    V[14] = (float)-(e[0] * eye[0] + e[1] * eye[1] + e[2] * eye[2]);
    V[15] = 1;

    float *P = out->projection;
    double n = near_plane, f = far_plane;
    if (ortho) {
        double zoom = dist / fit;
        double hh = fmax(R, R / aspect) * zoom, hw = hh * aspect;
        P[0] = (float)(1 / hw);
        P[5] = (float)(1 / hh);
        P[10] = (float)(-2 / (f - n));
        P[14] = (float)(-(f + n) / (f - n));
        P[15] = 1;
    } else {
        double t = 1 / tan(fov / 2);
        P[0] = (float)(t / aspect);
        P[5] = (float)t;
        P[10] = (float)((f + n) / (n - f));
        P[11] = -1;
        P[14] = (float)(2 * f * n / (n - f));
    }
    out->orthographic = ortho;
    out->near_plane = (float)n;
    out->far_plane = (float)f;

    for (int i = 0; i < 3; i++) out->up[i] = (float)u[i];
    out->ground = b.min[ax];
    for (int i = 0; i < 3; i++) out->ground_center[i] = (float)center[i];
    out->ground_center[ax] = out->ground;
    out->grid_spacing = (float)nice_step(radius / 2);
    out->grid_extent = (float)(3 * radius);
    return OSSA_OK;
}

/* -- Bounds of an animation -- */

static void grow(ossa_bounds *acc, const ossa_bounds *b, bool *any)
{
    if (!usable_bounds(b)) return;
    for (int i = 0; i < 3; i++) {
        if (!*any || b->min[i] < acc->min[i]) acc->min[i] = b->min[i];
        if (!*any || b->max[i] > acc->max[i]) acc->max[i] = b->max[i];
    }
    if (!*any || b->xy_radius > acc->xy_radius) acc->xy_radius = b->xy_radius;
    if (!*any || b->radius > acc->radius) acc->radius = b->radius;
    *any = true;
}

static void grow_point(ossa_bounds *acc, const float p[3], bool *any)
{
    ossa_bounds one;
    memset(&one, 0, sizeof one);
    for (int c = 0; c < 3; c++) one.min[c] = one.max[c] = p[c];
    one.xy_radius = sqrtf(p[0] * p[0] + p[1] * p[1]);
    one.radius = sqrtf(one.xy_radius * one.xy_radius + p[2] * p[2]);
    grow(acc, &one, any);
}

/* The skinning matrices of the rest pose (rest * inverse bind), or NULL
 * when the model has no rest pose (the vertices stand as they are). */
static float (*rest_skinning(const ossa_model *model, bool *nomem))[16]
{
    uint32_t nj = model->num_joints;
    *nomem = false;
    if (!model->rest_pose || !nj) return NULL;
    float(*k)[16] = ossa__calloc(NULL, (size_t)nj * 2, sizeof *k);
    if (!k) {
        *nomem = true;
        return NULL;
    }
    ossa_local_to_model(model, model->rest_pose, k);
    ossa_model_inverse_bind_matrices(model, k + nj);
    ossa_skinning_matrices(nj, (const float(*)[16])k, (const float(*)[16])(k + nj), k);
    return k;
}

/* Vertex v of a chunk moved by its influences' matrices (weights made to
 * sum to 1, as the scene does); unweighted vertices stay. */
static void skin_point(const float (*k)[16], uint32_t nj, const float *idx, const float *wgt,
                       float p[3])
{
    float sum = 0, out[3] = {0, 0, 0};
    for (int i = 0; i < 4; i++) {
        if (!(wgt[i] > 0) || !(idx[i] >= 0) || idx[i] >= (float)nj) continue;
        const float *m = k[(uint32_t)idx[i]];
        for (int r = 0; r < 3; r++)
            out[r] += wgt[i] * (m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
        sum += wgt[i];
    }
    if (sum > 0)
        for (int r = 0; r < 3; r++) p[r] = out[r] / sum;
}

/* Bounds of the model without animation: its vertices as they are, or
 * skinned into the rest pose when it has one. */
static ossa_status bind_bounds(const ossa_model *model, ossa_bounds *out, ossa_error *error)
{
    const ossa_vertex_array *a = ossa_model_find_array(model, OSSA_VERTEX_POSITION, NULL);
    if (!a || a->size == 0 || a->size > OSSA_MAX_COMPONENTS) return OSSA_OK;
    const ossa_vertex_array *ia = ossa_model_find_array(model, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(model, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    bool nomem;
    float(*k)[16] = ia && wa ? rest_skinning(model, &nomem) : NULL;
    if (ia && wa && !k && nomem) return ossa__fail_nomem(error);
    enum { CHUNK = 256 };
    float buf[CHUNK * 3], idx[CHUNK * 4], wgt[CHUNK * 4];
    bool any = false;
    ossa_status st = OSSA_OK;
    for (uint32_t first = 0; first < model->num_vertices && !st; first += CHUNK) {
        uint32_t n = model->num_vertices - first < CHUNK ? model->num_vertices - first : CHUNK;
        if (ossa_vertex_array_read_padded(model, a, first, n, 3, buf) != OSSA_OK ||
            (k && (ossa_vertex_array_read_padded(model, ia, first, n, 4, idx) != OSSA_OK ||
                   ossa_vertex_array_read_padded(model, wa, first, n, 4, wgt) != OSSA_OK))) {
            st = ossa__fail(error, OSSA_ERROR_CORRUPT, OSSA_NO_OFFSET, "positions cannot be read");
            break;
        }
        for (uint32_t v = 0; v < n; v++) {
            float *p = buf + (size_t)v * 3;
            if (k) skin_point((const float(*)[16])k, model->num_joints, idx + 4 * v, wgt + 4 * v, p);
            grow_point(out, p, &any);
        }
    }
    ossa__free(NULL, k, 0);
    return st;
}

/* A model without positions (a skeleton or an animation file) is framed on
 * its joints: every frame of the animation, or the pose at rest. */
static ossa_status joint_bounds(const ossa_model *model, uint32_t animation, ossa_bounds *out,
                                ossa_error *error)
{
    uint32_t nj = model->num_joints;
    if (nj == 0) return OSSA_OK;
    float(*mats)[16] = ossa__calloc(NULL, nj, sizeof *mats);
    ossa_transform *bind = ossa__calloc(NULL, nj, sizeof *bind);
    if (!mats || !bind) {
        ossa__free(NULL, mats, 0);
        ossa__free(NULL, bind, 0);
        return ossa__fail_nomem(error);
    }
    for (uint32_t j = 0; j < nj; j++)
        bind[j] = model->rest_pose ? model->rest_pose[j] : model->joints[j].bind;
    const ossa_animation *a = animation != OSSA_BIND_POSE ? &model->animations[animation] : NULL;
    uint32_t frames = a && a->frames ? a->num_frames : 0;
    bool any = false;
    for (uint32_t f = 0; f < (frames ? frames : 1); f++) {
        ossa_local_to_model(model, frames ? a->frames + (size_t)f * nj : bind, mats);
        for (uint32_t j = 0; j < nj; j++) grow_point(out, mats[j] + 12, &any);
    }
    ossa__free(NULL, mats, 0);
    ossa__free(NULL, bind, 0);
    return OSSA_OK;
}

ossa_status ossa_render_bounds(const ossa_model *model, uint32_t animation, ossa_bounds *out,
                               ossa_error *error)
{
    if (!model || !out)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no model or output");
    memset(out, 0, sizeof *out);
    if (animation != OSSA_BIND_POSE && animation >= model->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "animation %u out of range (the model has %u)", (unsigned)animation,
                          (unsigned)model->num_animations);
    if (!ossa_model_find_array(model, OSSA_VERTEX_POSITION, NULL) || model->num_vertices == 0)
        return joint_bounds(model, animation, out, error);
    uint32_t frames = animation != OSSA_BIND_POSE ? model->animations[animation].num_frames : 0;
    if (frames == 0) return bind_bounds(model, out, error);

    ossa_bounds *all = ossa__calloc(NULL, frames, sizeof *all);
    if (!all) return ossa__fail_nomem(error);
    ossa_bounds_mode mode = (uint64_t)model->num_vertices * frames <= (1u << 23)
                                ? OSSA_BOUNDS_EXACT
                                : OSSA_BOUNDS_CONSERVATIVE;
    ossa_status st = ossa_model_compute_bounds(model, animation, mode, all, error);
    bool any = false;
    if (st == OSSA_OK)
        for (uint32_t f = 0; f < frames; f++) grow(out, &all[f], &any);
    ossa__free(NULL, all, 0);
    if (st == OSSA_OK && !any) return bind_bounds(model, out, error);
    return st;
}
