/* Joint scale written by formats that store none (MD5, SMD) or whose
 * players ignore it (IQM): one rule (core/scale.h). Checked by reading the
 * files back and skinning both models with the matrices computed here, in
 * double precision, from the joints' TRS (independent of the library's
 * runtime): a scale that is uniform and the same in every pose (an FBX
 * armature's 100) and a bind pose whose root scale differs from the
 * frames' by a constant ratio bake exactly; a scale that changes is kept
 * by IQM and lost, with a warning, by MD5 and SMD. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* -- Skinning, independently ------------------------------------------------------ */

/* Column-major 4x4 of T * R * S. */
static void trs(const ossa_transform *t, double m[16])
{
    double x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z),     2 * (x * z - w * y),
                   2 * (x * y - w * z),     1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                   2 * (x * z + w * y),     2 * (y * z - w * x),     1 - 2 * (x * x + y * y)};
    memset(m, 0, 16 * sizeof *m);
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) m[c * 4 + row] = r[c * 3 + row] * t->scale[c];
    for (int i = 0; i < 3; i++) m[12 + i] = t->translation[i];
    m[15] = 1;
}

static void mul(const double a[16], const double b[16], double out[16])
{
    double o[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
            o[c * 4 + r] = s;
        }
    memcpy(out, o, sizeof o);
}

/* Inverse of an affine matrix (3x3 by cofactors). */
static void invert(const double m[16], double out[16])
{
    double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double r[9] = {(e * i - f * h) / det, -(d * i - f * g) / det, (d * h - e * g) / det,
                   -(b * i - c * h) / det, (a * i - c * g) / det,  -(a * h - b * g) / det,
                   (b * f - c * e) / det,  -(a * f - c * d) / det, (a * e - b * d) / det};
    memset(out, 0, 16 * sizeof *out);
    for (int col = 0; col < 3; col++)
        for (int row = 0; row < 3; row++) out[col * 4 + row] = r[row * 3 + col];
    for (int row = 0; row < 3; row++)
        out[12 + row] = -(out[row] * m[12] + out[4 + row] * m[13] + out[8 + row] * m[14]);
    out[15] = 1;
}

static void world(const ossa_model *m, const ossa_transform *local, double *out)
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double l[16];
        trs(&local[j], l);
        if (m->joints[j].parent < 0)
            memcpy(out + 16 * j, l, sizeof l);
        else
            mul(out + 16 * (size_t)m->joints[j].parent, l, out + 16 * j);
    }
}

/* Skinned positions (3 per vertex) of frame f of animation a; a =
 * UINT32_MAX: the bind pose. */
static double *skin(const ossa_model *m, uint32_t a, uint32_t f)
{
    uint32_t nj = m->num_joints, nv = m->num_vertices;
    ossa_transform *bind = calloc(nj + 1, sizeof *bind);
    double *wb = malloc((nj + 1) * 16 * sizeof *wb), *wf = malloc((nj + 1) * 16 * sizeof *wf);
    double *out = calloc((size_t)nv * 3 + 1, sizeof *out);
    for (uint32_t j = 0; j < nj; j++) bind[j] = m->joints[j].bind;
    world(m, bind, wb);
    world(m, a == UINT32_MAX ? bind : m->animations[a].frames + (size_t)f * nj, wf);
    for (uint32_t j = 0; j < nj; j++) {
        double inv[16];
        invert(wb + 16 * j, inv);
        mul(wf + 16 * j, inv, wf + 16 * j);
    }
    float p[8], idx[8], w[8];
    for (uint32_t v = 0; v < nv; v++) {
        ossa_vertex_array_read_padded(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), v, 1, 3, p);
        ossa_vertex_array_read_padded(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL), v, 1, 4, idx);
        ossa_vertex_array_read_padded(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL), v, 1, 4, w);
        double sum = 0;
        for (int k = 0; k < 4; k++) sum += w[k] > 0 ? w[k] : 0;
        for (int k = 0; k < 4; k++) {
            if (!(w[k] > 0)) continue;
            const double *M = wf + 16 * (uint32_t)idx[k];
            for (int i = 0; i < 3; i++)
                out[3 * v + i] += w[k] / sum * (M[i] * p[0] + M[4 + i] * p[1] + M[8 + i] * p[2] + M[12 + i]);
        }
    }
    free(bind);
    free(wb);
    free(wf);
    return out;
}

/* The largest distance between the two models' skinned triangle corners
 * at frame f of their animation 0 (the bind pose for UINT32_MAX), each
 * corner of a's triangle t against the nearest corner of b's (SMD
 * reverses corners and renumbers vertices; triangles keep their order). */
static double skin_distance(const ossa_model *a, const ossa_model *b, uint32_t frame)
{
    assert_int_equal(a->num_triangles, b->num_triangles);
    uint32_t anim = frame == UINT32_MAX ? UINT32_MAX : 0;
    double *x = skin(a, anim, frame), *y = skin(b, anim, frame), worst = 0;
    for (uint32_t t = 0; t < a->num_triangles; t++)
        for (int c = 0; c < 3; c++) {
            const double *p = x + 3 * (size_t)a->triangles[t].v[c];
            double best = 1e300;
            for (int k = 0; k < 3; k++) {
                const double *q = y + 3 * (size_t)b->triangles[t].v[k];
                double d = 0;
                for (int i = 0; i < 3; i++) d += (p[i] - q[i]) * (p[i] - q[i]);
                best = fmin(best, sqrt(d));
            }
            worst = fmax(worst, best);
        }
    free(x);
    free(y);
    return worst;
}

static bool unit_scales(const ossa_model *m)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        for (int k = 0; k < 3; k++)
            if (m->joints[j].bind.scale[k] != 1) return false;
    for (uint32_t a = 0; a < m->num_animations; a++)
        for (size_t i = 0; i < (size_t)m->animations[a].num_frames * m->num_joints; i++)
            for (int k = 0; k < 3; k++)
                if (fabsf(m->animations[a].frames[i].scale[k] - 1) > 1e-6f) return false;
    return true;
}

/* -- Writing and reading back ------------------------------------------------------ */

typedef struct written {
    int count, warnings, notes;
    char paths[8][512];
    char message[8][512];
} written;

static void on_wrote(void *user, const char *path)
{
    written *w = user;
    if (w->count < 8) snprintf(w->paths[w->count++], sizeof w->paths[0], "%s", path);
}

static void on_diagnostic(void *user, const ossa_diagnostic *d)
{
    written *w = user;
    int n = w->warnings + w->notes;
    if (n < 8) snprintf(w->message[n], sizeof w->message[0], "%s", d->message);
    if (d->severity == OSSA_SEVERITY_NOTE)
        w->notes++;
    else
        w->warnings++;
}

static bool said(const written *w, const char *needle)
{
    for (int i = 0; i < w->warnings + w->notes && i < 8; i++)
        if (strstr(w->message[i], needle)) return true;
    return false;
}

/* Writes `m` as tmp/NAME (every file of the format) and loads them all
 * back, merged. */
static ossa_model *through(const ossa_model *m, const char *name, const char *options, written *w)
{
    char *path = ts_tmp_path(name);
    ts_options o;
    ts_options_parse(&o, options);
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.flags = OSSA_WRITE_KEEP_FRONT; /* compared with the model as it is */
    wo.format_options = o.list;
    wo.num_format_options = o.count;
    wo.wrote = on_wrote;
    wo.diagnostic = on_diagnostic;
    wo.user = w;
    memset(w, 0, sizeof *w);
    ossa_error err;
    if (ossa_write_file(m, path, &wo, &err) != OSSA_OK) fail_msg("write %s: %s", name, err.message);
    ossa_model *back = ossa_load_file(w->paths[0], NULL, &err);
    assert_non_null(back);
    for (int i = 1; i < w->count; i++) {
        if (strstr(w->paths[i], ".png")) continue;
        ossa_model *a = ossa_load_file(w->paths[i], NULL, &err);
        assert_non_null(a);
        assert_int_equal(ossa_model_merge(back, a, &err), OSSA_OK);
        ossa_model_free(a);
    }
    for (int i = 0; i < w->count; i++) unlink(w->paths[i]);
    free(path);
    return back;
}

/* -- Models -------------------------------------------------------------------------- */

/* An armature scaled by `scale` (FBX centimetres: 100) holding a leg of
 * 0.01: the leg's joint one unit above the root in model space, bending
 * 90 degrees about X in frame 1. Three vertices: on the root, on the leg,
 * shared. `frame_scale`: the root's scale in the frames. */
static ossa_model *armature(float scale, float frame_scale)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform root = ossa_transform_identity(), leg = ossa_transform_identity();
    for (int k = 0; k < 3; k++) root.scale[k] = scale;
    root.translation[0] = 0.5f;
    leg.translation[2] = 1 / scale;
    assert_int_equal(ossa_model_add_joint(m, "root", -1, &root, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "leg", 0, &leg, &err), 1);
    assert_int_equal(ossa_model_add_joint(m, "foot", 1, &leg, &err), 2);
    static const float pos[9] = {0.5f, 0, 0, 0.5f, 0, 1, 0.5f, 0.5f, 1.5f};
    static const float idx[12] = {0, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0};
    static const float wgt[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    ossa_model_set_num_vertices(m, 3, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, "", wgt, &err);
    ossa_triangle t = {{0, 1, 2}};
    ossa_model_set_triangles(m, 1, &t, &err);
    ossa_model_add_mesh(m, "m", "", 0, 3, 0, 1, &err);
    ossa_animation *a = ossa_model_add_animation(m, "bend", 2, 30, 0, &err);
    for (uint32_t f = 0; f < 2; f++)
        for (int k = 0; k < 3; k++) a->frames[3 * f].scale[k] = frame_scale;
    a->frames[4].rotation[0] = (float)sqrt(0.5); /* the leg, frame 1 */
    a->frames[4].rotation[3] = (float)sqrt(0.5);
    return m;
}

/* -- Tests --------------------------------------------------------------------------- */

/* A scale of 100 in every pose: gone from IQM, MD5 and SMD, the leg's
 * translation 0.01 * 100 = 1, the mesh and its skinning unchanged. */
static void test_constant_scale(void **state)
{
    (void)state;
    ossa_model *m = armature(100, 100);
    static const char *const names[] = {"arm.iqm", "arm.md5mesh", "arm.smd"};
    for (int i = 0; i < 3; i++) {
        written w;
        ossa_model *b = through(m, names[i], NULL, &w);
        assert_int_equal(w.warnings, 0);
        assert_true(unit_scales(b));
        assert_true(b->joints[1].bind.translation[2] == (float)(0.01f * 100.0));
        for (uint32_t f = 0; f < 2; f++) {
            double d = skin_distance(m, b, f);
            /* IQM: 16-bit frames; MD5: exact decimals; SMD: %.6f */
            if (d > (i == 0 ? 1e-4 : 2e-6)) fail_msg("%s frame %u: %g", names[i], f, d);
        }
        ossa_model_free(b);
    }
    /* kept where asked */
    written w;
    ossa_model *b = through(m, "arm.iqm", "iqm.keep_scale", &w);
    assert_true(b->joints[0].bind.scale[0] == 100);
    assert_true(b->joints[1].bind.translation[2] == 0.01f);
    ossa_model_free(b);
    ossa_model_free(m);
}

/* The root at scale 1 in the bind pose, 2 in every frame: baked into the
 * mesh and the bind pose, which double (exactly: a power of two), so that
 * the skinned model does not change. */
static void test_ratio_into_mesh(void **state)
{
    (void)state;
    ossa_model *m = armature(1, 2);
    written w;
    ossa_model *b = through(m, "ratio.md5mesh", NULL, &w);
    assert_int_equal(w.warnings, 0);
    assert_true(unit_scales(b));
    float p[4];
    ossa_vertex_array_read(b, ossa_model_find_array(b, OSSA_VERTEX_POSITION, NULL), 2, 1, p);
    assert_true(p[0] == 1 && p[1] == 1 && p[2] == 3);
    assert_true(b->joints[0].bind.translation[0] == 1);
    for (uint32_t f = 0; f < 2; f++) assert_true(skin_distance(m, b, f) < 1e-5);
    ossa_model_free(b);
    ossa_model_free(m);
}

/* A scale that changes (the leg grows to 3 in frame 1): MD5 and SMD say
 * what they lose, joints keep their places; IQM keeps it, with a note. */
static void test_changing_scale(void **state)
{
    (void)state;
    ossa_model *m = armature(1, 1);
    for (int k = 0; k < 3; k++) m->animations[0].frames[4].scale[k] = 3;
    written w;
    ossa_model *b = through(m, "grow.md5mesh", NULL, &w);
    assert_true(said(&w, "animation 'bend': md5mesh files store no scale; joint 1 'leg' is scaled"));
    assert_true(unit_scales(b));
    /* the foot where the grown leg puts it: 1 + 3 * 1 above the root */
    double x[48], y[48];
    world(m, m->animations[0].frames + 3, x);
    world(b, b->animations[0].frames + 3, y);
    for (int i = 0; i < 3; i++) TS_ASSERT_NEAR(x[32 + 12 + i], y[32 + 12 + i], 1e-6);
    ossa_model_free(b);

    b = through(m, "grow.smd", NULL, &w);
    assert_true(said(&w, "smd files store no scale"));
    ossa_model_free(b);

    b = through(m, "grow.iqm", NULL, &w);
    assert_int_equal(w.warnings, 0);
    assert_true(said(&w, "joint 1 'leg' keeps a scale that changes over time"));
    TS_ASSERT_NEAR(b->animations[0].frames[4].scale[0], 3, 1e-4);
    assert_true(skin_distance(m, b, 1) < 1e-4);
    ossa_model_free(b);
    ossa_model_free(m);
}

/* huesitos.fbx: an armature scaled by 100 (Blender's FBX centimetres).
 * SMD refused it ("SMD stores no scale") while MD5 baked it; now both,
 * and IQM, bake it and skin it as the FBX does. */
static void test_huesitos(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("fbx/huesitos.fbx", &file, &size);
    assert_true(m->joints[0].bind.scale[0] == 100);
    static const char *const names[] = {"hue.iqm", "hue.md5mesh", "hue.smd"};
    for (int i = 0; i < 3; i++) {
        written w;
        /* float weights, so that only scale is compared */
        ossa_model *b = through(m, names[i], "iqm.keep_formats", &w);
        assert_true(unit_scales(b));
        double bind[3] = {1e30, -1e30, 0};
        double *p = skin(m, UINT32_MAX, 0);
        for (uint32_t v = 0; v < m->num_vertices; v++) {
            bind[0] = fmin(bind[0], p[3 * v + 2]);
            bind[1] = fmax(bind[1], p[3 * v + 2]);
        }
        free(p);
        double height = bind[1] - bind[0];
        uint32_t n = m->animations[0].num_frames;
        for (uint32_t f = 0; f < n; f += n / 4) {
            double d = skin_distance(m, b, f);
            /* IQM: 16-bit frames; SMD: %.6f, read back into ubyte weights
             * (0.16% of the height by themselves); a scale of 100 left in
             * or lost would be the whole height */
            double tol = (i == 2 ? 3e-3 : 1e-3) * height;
            if (d > tol) fail_msg("%s frame %u: %g of %g", names[i], f, d, height);
        }
        ossa_model_free(b);
    }
    ossa_model_free(m);
    free(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constant_scale),
        cmocka_unit_test(test_ratio_into_mesh),
        cmocka_unit_test(test_changing_scale),
        cmocka_unit_test(test_huesitos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
