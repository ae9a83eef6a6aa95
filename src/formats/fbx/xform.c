/* Node transforms (fbx.md §8): the properties of a Model, the local matrix
 * with offsets, pivots and pre/post rotation, Euler orders, the geometric
 * transform; and the last step of every joint transform, conjugation by
 * the axis/unit matrix K (§9) and decomposition into ossa's T·R·S. All in
 * double precision, column-major, column vectors. */
#include "formats/fbx/fbx.h"

#include <math.h>

void ossa__fbx_identity(double m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1;
}

static void translation(const double t[3], double m[16])
{
    ossa__fbx_identity(m);
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
}

static void scaling(const double s[3], double m[16])
{
    ossa__fbx_identity(m);
    m[0] = s[0];
    m[5] = s[1];
    m[10] = s[2];
}

static void axis_rotation(int axis, double deg, double m[16])
{
    double a = deg * (3.14159265358979323846 / 180.0);
    double c = cos(a), s = sin(a);
    /* Exact quarter turns keep exact zeros (axis conversions, -90° pre-rotations). */
    double q = deg / 90.0;
    if (q == floor(q) && fabs(q) < 1e9) {
        long k = (long)fmod(q, 4.0);
        if (k < 0) k += 4;
        static const double cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        c = cs[k][0];
        s = cs[k][1];
    }
    ossa__fbx_identity(m);
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    m[i * 4 + i] = c;
    m[j * 4 + j] = c;
    m[i * 4 + j] = s;
    m[j * 4 + i] = -s;
}

void ossa__fbx_euler_matrix(const double deg[3], int order, double out[16])
{
    /* The axis applied first comes last in the product (§8.1's table). */
    static const int seq[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}};
    if (order < 0 || order > 5) order = 0;
    double a[16], b[16], tmp[16];
    axis_rotation(seq[order][0], deg[seq[order][0]], a);
    axis_rotation(seq[order][1], deg[seq[order][1]], b);
    ossa__mat4d_mul(b, a, tmp);
    axis_rotation(seq[order][2], deg[seq[order][2]], a);
    ossa__mat4d_mul(a, tmp, out);
}

static void mul_into(double acc[16], const double m[16])
{
    double t[16];
    ossa__mat4d_mul(acc, m, t);
    memcpy(acc, t, sizeof t);
}

static void neg3(const double v[3], double out[3])
{
    out[0] = -v[0];
    out[1] = -v[1];
    out[2] = -v[2];
}

void ossa__fbx_local_matrix(const fbx_xform *x, const double t[3], const double r[3],
                            const double s[3], double out[16])
{
    double m[16], n[3];
    translation(t, out);
    translation(x->roff, m);
    mul_into(out, m);
    translation(x->rpiv, m);
    mul_into(out, m);
    if (x->active) {
        ossa__fbx_euler_matrix(x->pre, 0, m);
        mul_into(out, m);
    }
    ossa__fbx_euler_matrix(r, x->active ? x->order : 0, m);
    mul_into(out, m);
    if (x->active) {
        /* Rpost⁻¹: the transpose of a rotation. */
        double p[16], pt[16];
        ossa__fbx_euler_matrix(x->post, 0, p);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) pt[i * 4 + j] = p[j * 4 + i];
        mul_into(out, pt);
    }
    neg3(x->rpiv, n);
    translation(n, m);
    mul_into(out, m);
    translation(x->soff, m);
    mul_into(out, m);
    translation(x->spiv, m);
    mul_into(out, m);
    scaling(s, m);
    mul_into(out, m);
    neg3(x->spiv, n);
    translation(n, m);
    mul_into(out, m);
}

void ossa__fbx_xform_read(fbx_doc *doc, const fbx_node *node, const fbx_props *p, fbx_xform *x)
{
    static const double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    ossa__fbx_prop_numbers(p, "Lcl Translation", x->t, 3, zero);
    ossa__fbx_prop_numbers(p, "Lcl Rotation", x->r, 3, zero);
    ossa__fbx_prop_numbers(p, "Lcl Scaling", x->s, 3, one);
    ossa__fbx_prop_numbers(p, "RotationOffset", x->roff, 3, zero);
    ossa__fbx_prop_numbers(p, "RotationPivot", x->rpiv, 3, zero);
    ossa__fbx_prop_numbers(p, "ScalingOffset", x->soff, 3, zero);
    ossa__fbx_prop_numbers(p, "ScalingPivot", x->spiv, 3, zero);
    ossa__fbx_prop_numbers(p, "PreRotation", x->pre, 3, zero);
    ossa__fbx_prop_numbers(p, "PostRotation", x->post, 3, zero);
    int64_t order = ossa__fbx_prop_int(p, "RotationOrder", 0);
    /* Without a template or a value, ufbx's reading: active (§5). */
    x->active = ossa__fbx_prop_int(p, "RotationActive", 1) != 0;
    x->inherit = (int)ossa__fbx_prop_int(p, "InheritType", 0);
    if (order < 0 || order > 5) {
        if (x->active)
            ossa__fbx_warn(doc, node, "RotationOrder %lld is not supported: XYZ is used",
                           (long long)order);
        order = 0;
    }
    x->order = (int)order;
    double gt[3], gr[3], gs[3], m[16];
    ossa__fbx_prop_numbers(p, "GeometricTranslation", gt, 3, zero);
    ossa__fbx_prop_numbers(p, "GeometricRotation", gr, 3, zero);
    ossa__fbx_prop_numbers(p, "GeometricScaling", gs, 3, one);
    translation(gt, x->g);
    ossa__fbx_euler_matrix(gr, 0, m);
    mul_into(x->g, m);
    scaling(gs, m);
    mul_into(x->g, m);
}

void ossa__fbx_matrix_from_array(const fbx_value *v, double out[16])
{
    for (uint32_t i = 0; i < 16; i++) out[i] = ossa__fbx_array_double(v, i);
}

void ossa__fbx_store_transform(const fbx_scene *sc, const double local[16], ossa_transform *out)
{
    double a[16], b[16];
    ossa__mat4d_mul(sc->axes.k, local, a);
    ossa__mat4d_mul(a, sc->axes.kinv, b);
    ossa__mat4d_to_transform(b, out);
}

void ossa__fbx_node_local(const fbx_xform *x, const double t[3], const double r[3],
                          const double s[3], const double *parent_scale, double out[16])
{
    ossa__fbx_local_matrix(x, t, r, s, out);
    if (x->inherit != 2 || !parent_scale) return;
    double ps = parent_scale[0];
    if (ps == 0 || parent_scale[1] != ps || parent_scale[2] != ps) return;
    /* Rrs: the parent's (uniform) scale is undone below the translation:
     * T · S⁻¹parent · (T⁻¹ · L). */
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 3; row++) {
            double v = out[c * 4 + row];
            if (c == 3) v -= t[row];
            v /= ps;
            if (c == 3) v += t[row];
            out[c * 4 + row] = v;
        }
}
