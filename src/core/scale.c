/* Joint scale baked into translations and the mesh, for writers of formats
 * that store no scale (MD5, SMD) or whose players ignore it (IQM): the one
 * rule of scale.h. A joint scale of 100 (FBX centimetres on an armature:
 * huesitos.fbx, animation_with_skeleton.fbx) is the common case: uniform,
 * the same in the bind pose and every frame, so that it cancels out of
 * skinning and can move down to the leaves and vanish, exactly. */
#include "core/scale.h"
#include "core/world.h"

#include <math.h>

#define TOLERANCE 1e-5

static bool near(double a, double b)
{
    return fabs(a - b) <= TOLERANCE * fmax(fabs(a), fabs(b));
}

/* The one value of a uniform positive scale; false when it is not. */
static bool uniform(const float s[3], double *value)
{
    double v = ((double)s[0] + s[1] + s[2]) / 3;
    *value = v;
    return v > 0 && near(s[0], v) && near(s[1], v) && near(s[2], v);
}

static bool unit(const float s[3])
{
    for (int i = 0; i < 3; i++)
        if (!(fabs((double)s[i] - 1) <= TOLERANCE)) return false;
    return true;
}

static bool finite_transform(const ossa_transform *t)
{
    return ossa__finite3(t->translation) && ossa__finite3(t->scale) && isfinite(t->rotation[0]) &&
           isfinite(t->rotation[1]) && isfinite(t->rotation[2]) && isfinite(t->rotation[3]);
}

/* Runs `body` with `t` pointing at joint j's pose in the bind pose and in
 * every frame of the view `b`. */
#define EACH_POSE(m, j, t, body)                                                                   \
    do {                                                                                           \
        ossa_transform *t = &b->joints[j].bind;                                                    \
        body;                                                                                      \
        for (uint32_t a_ = 0; a_ < (m)->num_animations; a_++)                                      \
            for (uint32_t f_ = 0; f_ < b->animations[a_].num_frames; f_++) {                       \
                t = &b->animations[a_].frames[(size_t)f_ * (m)->num_joints + (j)];                 \
                body;                                                                              \
            }                                                                                      \
    } while (0)

/* What needs doing: 0 nothing (no scale, or a value not finite). */
static bool needs_baking(const ossa_model *m)
{
    bool scaled = false;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        if (!finite_transform(&m->joints[j].bind)) return false;
        scaled |= !unit(m->joints[j].bind.scale);
    }
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        for (size_t i = 0; i < (size_t)an->num_frames * m->num_joints; i++) {
            if (!finite_transform(&an->frames[i])) return false;
            scaled |= !unit(an->frames[i].scale);
        }
    }
    return scaled;
}

/* The view: its own joints, animations and frames. */
static ossa_status make_view(ossa__scale_baked *b, const ossa_model *m, ossa_error *error)
{
    size_t total = 0;
    for (uint32_t a = 0; a < m->num_animations; a++)
        total += (size_t)m->animations[a].num_frames * m->num_joints;
    b->joints = ossa__alloc(b->allocator, ((size_t)m->num_joints + 1) * sizeof *b->joints);
    b->animations = ossa__alloc(b->allocator, ((size_t)m->num_animations + 1) * sizeof *b->animations);
    b->frames = ossa__alloc(b->allocator, (total + 1) * sizeof *b->frames);
    if (!b->joints || !b->animations || !b->frames) return ossa__fail_nomem(error);
    if (m->num_joints) memcpy(b->joints, m->joints, m->num_joints * sizeof *b->joints);
    total = 0;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        size_t n = (size_t)an->num_frames * m->num_joints;
        b->animations[a] = *an;
        b->animations[a].frames = b->frames + total;
        b->animations[a].channels = NULL; /* what moves may change */
        if (n) memcpy(b->frames + total, an->frames, n * sizeof *b->frames);
        total += n;
    }
    b->view.joints = b->joints;
    b->view.animations = b->animations;
    return OSSA_OK;
}

/* -- 1. The roots' ratio between frames and bind pose: into the mesh -- */

/* The ratio c of every root's frame scale to its bind scale, when it is
 * one uniform value in every frame and the same for every root; 1 when
 * not, or when there are no frames. */
static double root_ratio(const ossa__scale_baked *b, const ossa_model *m)
{
    double c = 1;
    bool any = false;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        if (m->joints[j].parent >= 0) continue;
        double sb, sf, first = 0;
        bool framed = false;
        if (!uniform(b->joints[j].bind.scale, &sb)) return 1;
        for (uint32_t a = 0; a < m->num_animations; a++)
            for (uint32_t f = 0; f < m->animations[a].num_frames; f++) {
                if (!uniform(b->animations[a].frames[(size_t)f * m->num_joints + j].scale, &sf))
                    return 1;
                if (!framed) first = sf;
                framed = true;
                if (!near(sf, first)) return 1;
            }
        if (!framed) return 1;
        double r = first / sb;
        if (any && !near(r, c)) return 1;
        c = r;
        any = true;
    }
    return any && !near(c, 1) ? c : 1;
}

static ossa_status bake_ratio(ossa__scale_baked *b, const ossa_model *m, ossa_error *error)
{
    double c = root_ratio(b, m);
    if (c == 1) return OSSA_OK;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        if (m->joints[j].parent >= 0) continue;
        for (int i = 0; i < 3; i++) {
            b->joints[j].bind.translation[i] = (float)(b->joints[j].bind.translation[i] * c);
            b->joints[j].bind.scale[i] = (float)(b->joints[j].bind.scale[i] * c);
        }
    }
    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    if (!pos || !m->num_vertices) return OSSA_OK;
    b->arrays = ossa__alloc(b->allocator, (m->num_vertex_arrays + 1) * sizeof *b->arrays);
    b->positions = ossa__alloc(b->allocator, ((size_t)m->num_vertices * pos->size + 1) * sizeof(float));
    if (!b->arrays || !b->positions) return ossa__fail_nomem(error);
    ossa_vertex_array_read(m, pos, 0, m->num_vertices, b->positions);
    for (size_t i = 0; i < (size_t)m->num_vertices * pos->size; i++)
        b->positions[i] = (float)(b->positions[i] * c);
    memcpy(b->arrays, m->vertex_arrays, m->num_vertex_arrays * sizeof *b->arrays);
    ossa_vertex_array *p = &b->arrays[pos - m->vertex_arrays];
    p->format = OSSA_FLOAT;
    p->data = b->positions;
    b->view.vertex_arrays = b->arrays;
    return OSSA_OK;
}

/* -- 2. Constant uniform scales moved down to the leaves, and gone -- */

static ossa_status push_down(ossa__scale_baked *b, const ossa_model *m, ossa_error *error)
{
    double *k = ossa__alloc(b->allocator, ((size_t)m->num_joints + 1) * sizeof *k);
    if (!k) return ossa__fail_nomem(error);
    for (uint32_t j = 0; j < m->num_joints; j++) {
        int32_t p = m->joints[j].parent;
        double kp = p >= 0 ? k[p] : 1, first = 0, v;
        bool constant = true, any = false;
        EACH_POSE(m, j, t, {
            for (int i = 0; i < 3; i++) {
                t->translation[i] = (float)(t->translation[i] * kp);
                t->scale[i] = (float)(t->scale[i] * kp);
            }
            if (!uniform(t->scale, &v) || (any && !near(v, first))) constant = false;
            if (!any) first = v;
            any = true;
        });
        k[j] = 1;
        if (!constant || fabs(first - 1) <= TOLERANCE) continue;
        k[j] = first;
        EACH_POSE(m, j, t, {
            for (int i = 0; i < 3; i++) t->scale[i] = 1;
        });
    }
    ossa__free(b->allocator, k, 0);
    return OSSA_OK;
}

/* -- 3. What is left, for formats without scale: through model space -- */

/* The rigid local poses of `world` into `out` (scale 1). */
static void rigid_pose(const ossa_model *m, const double *world, ossa_transform *out)
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        const double *W = world + (size_t)j * OSSA__WORLD;
        int32_t p = m->joints[j].parent;
        double t[3], q[4];
        if (p < 0) {
            memcpy(t, W + 12, sizeof t);
            memcpy(q, W + 16, sizeof q);
        } else {
            const double *P = world + (size_t)p * OSSA__WORLD;
            double inv[4] = {-P[16], -P[17], -P[18], P[19]}, d[3];
            for (int i = 0; i < 3; i++) d[i] = W[12 + i] - P[12 + i];
            ossa__quatd_rotate(inv, d, t);
            ossa__quatd_mul(inv, W + 16, q);
        }
        for (int i = 0; i < 3; i++) {
            out[j].translation[i] = (float)t[i];
            out[j].scale[i] = 1;
        }
        for (int i = 0; i < 4; i++) out[j].rotation[i] = (float)q[i];
    }
}

/* 3x3 rotation matrix (column-major) of a unit quaternion. */
static void rotation_matrix(const double q[4], double r[9])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0] = 1 - 2 * (y * y + z * z), r[1] = 2 * (x * y + w * z), r[2] = 2 * (x * z - w * y);
    r[3] = 2 * (x * y - w * z), r[4] = 1 - 2 * (x * x + z * z), r[5] = 2 * (y * z + w * x);
    r[6] = 2 * (x * z + w * y), r[7] = 2 * (y * z - w * x), r[8] = 1 - 2 * (x * x + y * y);
}

/* How far joint j's skinning matrix (frame against bind) is from the
 * rigid motion written instead: the largest 3x3 element difference. */
static double stretch(const double *W, const double *B, const double *inverse_bind)
{
    double skin[16], r[9], dq[4], inv[4] = {-B[16], -B[17], -B[18], B[19]}, worst = 0;
    ossa__mat4d_mul(W, inverse_bind, skin);
    ossa__quatd_mul(W + 16, inv, dq);
    rotation_matrix(dq, r);
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) worst = fmax(worst, fabs(skin[c * 4 + row] - r[c * 3 + row]));
    return worst;
}

static bool scale_left(const ossa__scale_baked *b, const ossa_model *m, uint32_t *joint)
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        bool left = false;
        EACH_POSE(m, j, t, { left |= !unit(t->scale); });
        if (left) {
            *joint = j;
            return true;
        }
    }
    return false;
}

static ossa_status rigid(ossa__scale_baked *b, const ossa_model *m, const char *format_name,
                         const ossa_write_options *options, ossa_error *error)
{
    uint32_t nj = m->num_joints;
    double *bind = ossa__alloc(b->allocator, ((size_t)nj * 3 + 1) * OSSA__WORLD * sizeof *bind);
    ossa_transform *local = ossa__alloc(b->allocator, ((size_t)nj + 1) * sizeof *local);
    if (!bind || !local) {
        ossa__free(b->allocator, bind, 0);
        ossa__free(b->allocator, local, 0);
        return ossa__fail_nomem(error);
    }
    double *world = bind + (size_t)nj * OSSA__WORLD, *inverse = world + (size_t)nj * OSSA__WORLD;
    for (uint32_t j = 0; j < nj; j++) local[j] = b->joints[j].bind;
    ossa__world_poses(m, local, bind);
    for (uint32_t j = 0; j < nj; j++) /* a singular bind (zero scale) moves nothing rigidly */
        if (!ossa__mat4d_invert_affine(bind + (size_t)j * OSSA__WORLD, inverse + (size_t)j * OSSA__WORLD))
            memset(inverse + (size_t)j * OSSA__WORLD, 0, 16 * sizeof(double));
    /* Poses without scale, under a bind pose without scale, are already
     * what model space would give back: left untouched. */
    bool bind_scaled = false;
    for (uint32_t j = 0; j < nj; j++) bind_scaled |= !unit(local[j].scale);
    for (uint32_t a = 0; a < m->num_animations; a++) {
        ossa_animation *an = &b->animations[a];
        double worst = 0;
        uint32_t wj = 0, wf = 0;
        for (uint32_t f = 0; f < an->num_frames; f++) {
            ossa_transform *fr = an->frames + (size_t)f * nj;
            bool scaled = bind_scaled;
            for (uint32_t j = 0; j < nj && !scaled; j++) scaled = !unit(fr[j].scale);
            if (!scaled) continue;
            ossa__world_poses(m, fr, world);
            for (uint32_t j = 0; j < nj; j++) {
                double s = stretch(world + (size_t)j * OSSA__WORLD, bind + (size_t)j * OSSA__WORLD,
                                   inverse + (size_t)j * OSSA__WORLD);
                if (s > worst) worst = s, wj = j, wf = f;
            }
            rigid_pose(m, world, fr);
        }
        if (worst > TOLERANCE)
            ossa__write_warn(options, OSSA_WARNING_DROPPED,
                             "animation '%s': %s files store no scale; joint %u '%s' is scaled against "
                             "its bind pose (by up to %.3g%%, frame %u): joints keep their places "
                             "and rotations, skinned vertices lose the scaling",
                             an->name, format_name, wj, m->joints[wj].name, worst * 100, wf);
    }
    if (bind_scaled) {
        rigid_pose(m, bind, local);
        for (uint32_t j = 0; j < nj; j++) b->joints[j].bind = local[j];
    }
    ossa__free(b->allocator, bind, 0);
    ossa__free(b->allocator, local, 0);
    return OSSA_OK;
}

/* -- The rule -- */

void ossa__scale_release(ossa__scale_baked *b)
{
    ossa__free(b->allocator, b->joints, 0);
    ossa__free(b->allocator, b->animations, 0);
    ossa__free(b->allocator, b->frames, 0);
    ossa__free(b->allocator, b->arrays, 0);
    ossa__free(b->allocator, b->positions, 0);
    b->joints = NULL;
    b->animations = NULL;
    b->frames = NULL;
    b->arrays = NULL;
    b->positions = NULL;
}

ossa_status ossa__scale_bake(const ossa_model *model, ossa__scale_rule rule, const char *format_name,
                             const ossa_write_options *options, ossa__scale_baked *out,
                             ossa_error *error)
{
    memset(out, 0, sizeof *out);
    out->view = *model;
    out->allocator = options->allocator;
    if (rule == OSSA__SCALE_STORED || !needs_baking(model)) return OSSA_OK;
    ossa_status st = make_view(out, model, error);
    if (!st) st = bake_ratio(out, model, error);
    if (!st) st = push_down(out, model, error);
    uint32_t joint;
    if (!st && scale_left(out, model, &joint)) {
        if (rule == OSSA__SCALE_NONE)
            st = rigid(out, model, format_name, options, error);
        else
            ossa__write_note(options,
                             "joint %u '%s' keeps a scale that changes over time or is not "
                             "uniform: %s files store it, players that ignore scale (raylib) place "
                             "what hangs from it wrong",
                             joint, model->joints[joint].name, format_name);
    }
    if (st) {
        ossa__scale_release(out);
        out->view = *model;
    }
    return st;
}
