/* The rest pose beside the bind pose (ossa_model.rest_pose): the builder,
 * what edits and merges do with it, the pose without animation (clips,
 * renderer bounds), ossa_model_apply_rest_pose and what writers of formats
 * with one pose get. Expected values are worked out by hand in the
 * comments. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A quarter turn about z: (x, y, z, w). */
static const float QZ[4] = {0, 0, 0.70710678f, 0.70710678f};

/* Two joints, "hip" at the origin and "arm" 1 along x, both bound
 * unturned; three vertices: (1, 0, 0) half on each, (2, 0, 0) on the arm,
 * (0, 0, 1) on the hip, with normals along x. `rest`: the hip turned a
 * quarter about z (so both joints move alike: K = Rz(90) for both), or the
 * arm alone turned about its own origin (1, 0, 0) (the joints move apart),
 * or none. A fourth vertex at (1.5, 0, 0), half on each, shows the
 * difference. */
enum { REST_NONE, REST_ALIKE, REST_APART };

static ossa_model *make(int rest)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    assert_int_equal(ossa_model_add_joint(m, "hip", -1, &t, &err), 0);
    t.translation[0] = 1;
    assert_int_equal(ossa_model_add_joint(m, "arm", 0, &t, &err), 1);
    const float pos[12] = {1, 0, 0, 2, 0, 0, 0, 0, 1, 1.5f, 0, 0};
    const float nrm[12] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
    const uint8_t idx[16] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    const float wgt[16] = {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0};
    assert_int_equal(ossa_model_set_num_vertices(m, 4, &err), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, "", nrm, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, "", wgt, &err));
    const ossa_triangle tri[2] = {{{0, 1, 2}}, {{0, 3, 2}}};
    assert_int_equal(ossa_model_set_triangles(m, 2, tri, &err), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "body", "", 0, 4, 0, 2, &err) == 0);
    if (rest == REST_NONE) return m;
    ossa_transform r[2] = {m->joints[0].bind, m->joints[1].bind};
    memcpy(r[rest == REST_ALIKE ? 0 : 1].rotation, QZ, sizeof QZ);
    assert_int_equal(ossa_model_set_rest_pose(m, r, &err), OSSA_OK);
    return m;
}

static void position(const ossa_model *m, uint32_t v, float out[3])
{
    ossa_vertex_array_read_padded(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), v, 1, 3, out);
}

#define NEAR3(p, x, y, z)                                                                          \
    do {                                                                                           \
        TS_ASSERT_NEAR((p)[0], x, 1e-6);                                                           \
        TS_ASSERT_NEAR((p)[1], y, 1e-6);                                                           \
        TS_ASSERT_NEAR((p)[2], z, 1e-6);                                                           \
    } while (0)

/* -- The builder ---------------------------------------------------------------------- */

static void builder(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = make(REST_ALIKE);
    assert_non_null(m->rest_pose);
    assert_memory_equal(m->rest_pose[0].rotation, QZ, sizeof QZ);
    assert_true(m->rest_pose[1].translation[0] == 1);
    /* a rotation that is not unit is normalized, a near-unit one kept */
    ossa_transform r[2] = {m->rest_pose[0], m->rest_pose[1]};
    r[1].rotation[3] = 2;
    assert_int_equal(ossa_model_set_rest_pose(m, r, &err), OSSA_OK);
    assert_true(m->rest_pose[1].rotation[3] == 1);
    assert_memory_equal(m->rest_pose[0].rotation, QZ, sizeof QZ);
    /* not finite, or no length: refused, nothing changes */
    r[1].translation[2] = NAN;
    assert_int_equal(ossa_model_set_rest_pose(m, r, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "joint 1 'arm'"));
    r[1].translation[2] = 0;
    memset(r[1].rotation, 0, sizeof r[1].rotation);
    assert_int_equal(ossa_model_set_rest_pose(m, r, &err), OSSA_FAILED);
    assert_true(m->rest_pose[1].rotation[3] == 1);
    /* a joint added later rests in its bind pose */
    ossa_transform t = ossa_transform_identity();
    t.translation[2] = 3;
    assert_int_equal(ossa_model_add_joint(m, "hand", 1, &t, &err), 2);
    assert_memory_equal(&m->rest_pose[2], &t, sizeof t);
    assert_memory_equal(m->rest_pose[0].rotation, QZ, sizeof QZ);
    /* animations start at rest */
    ossa_animation *a = ossa_model_add_animation(m, "idle", 2, 30, 0, &err);
    assert_non_null(a);
    for (uint32_t f = 0; f < 2; f++)
        assert_memory_equal(&a->frames[f * 3], m->rest_pose, 3 * sizeof *m->rest_pose);
    /* NULL: the bind pose is the rest pose again */
    assert_int_equal(ossa_model_set_rest_pose(m, NULL, &err), OSSA_OK);
    assert_null(m->rest_pose);
    ossa_model_free(m);
}

/* -- Edits and merges keep it ----------------------------------------------------------- */

static void edits(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = make(REST_APART);
    /* --scale 2: rest translations double with the bind's */
    assert_int_equal(ossa_model_scale(m, 2, &err), OSSA_OK);
    assert_true(m->rest_pose[1].translation[0] == 2 && m->joints[1].bind.translation[0] == 2);
    /* --rotate: the root's rest turns as its bind does (a quarter about z
     * applied to the identity gives the quarter), the child's stays */
    assert_int_equal(ossa_model_rotate(m, QZ, &err), OSSA_OK);
    TS_ASSERT_QUAT_EQUIV(m->rest_pose[0].rotation, QZ, 1e-6);
    TS_ASSERT_QUAT_EQUIV(m->joints[0].bind.rotation, QZ, 1e-6);
    assert_memory_equal(m->rest_pose[1].rotation, QZ, sizeof QZ);
    /* merged into an empty model, and appended to one: the rest comes along */
    ossa_model *d = ossa_model_create(NULL);
    assert_int_equal(ossa_model_merge(d, m, &err), OSSA_OK);
    assert_non_null(d->rest_pose);
    assert_memory_equal(d->rest_pose, m->rest_pose, 2 * sizeof *m->rest_pose);
    ossa_model_free(d);
    d = ossa_model_create(NULL);
    assert_int_equal(ossa_model_append_meshes(d, m, &err), OSSA_OK);
    assert_non_null(d->rest_pose);
    assert_memory_equal(d->rest_pose, m->rest_pose, 2 * sizeof *m->rest_pose);
    ossa_model_free(d);
    /* a skeleton made from an animation's poses learns names, bind and
     * rest from the real one */
    d = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    assert_int_equal(ossa_model_add_joint(d, "", -1, &t, &err), 0);
    assert_int_equal(ossa_model_add_joint(d, "", 0, &t, &err), 1);
    d->flags |= OSSA_MODEL_SKELETON_FROM_POSES;
    assert_non_null(ossa_model_add_animation(d, "wave", 1, 30, 0, &err));
    assert_int_equal(ossa_model_merge(d, m, &err), OSSA_OK);
    assert_string_equal(d->joints[1].name, "arm");
    assert_non_null(d->rest_pose);
    assert_memory_equal(d->rest_pose, m->rest_pose, 2 * sizeof *m->rest_pose);
    ossa_model_free(d);
    ossa_model_free(m);
}

/* -- The pose without animation --------------------------------------------------------- */

static void at_rest(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = make(REST_ALIKE);
    /* an animation without frames plays the rest pose */
    ossa_animation *a = ossa_model_add_animation(m, "empty", 0, 30, 0, &err);
    assert_non_null(a);
    ossa_clip *clip = ossa_clip_create(m, 0, NULL, &err);
    assert_non_null(clip);
    ossa_transform local[2];
    ossa_sample_job job;
    memset(&job, 0, sizeof job);
    job.clip = clip;
    job.local = local;
    job.num_outputs = 2;
    job.simd = OSSA_SIMD_REFERENCE;
    assert_int_equal(ossa_sample_run(&job, &err), OSSA_OK);
    TS_ASSERT_QUAT_EQUIV(local[0].rotation, QZ, 1e-6);
    ossa_clip_free(clip);
    /* the renderer frames the model at rest: the vertices turned a quarter
     * about z, (1,0,0) (2,0,0) (0,0,1) (1.5,0,0) -> (0,1,0) (0,2,0) (0,0,1)
     * (0,1.5,0) */
    ossa_bounds b;
    assert_int_equal(ossa_render_bounds(m, OSSA_BIND_POSE, &b, &err), OSSA_OK);
    NEAR3(b.min, 0, 0, 0);
    NEAR3(b.max, 0, 2, 1);
    ossa_model_free(m);
}

/* -- ossa_model_apply_rest_pose ------------------------------------------------------- */

static void apply(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = make(REST_ALIKE);
    float p[3];
    assert_int_equal(ossa_model_apply_rest_pose(m, &err), OSSA_OK);
    assert_null(m->rest_pose);
    assert_memory_equal(m->joints[0].bind.rotation, QZ, sizeof QZ);
    position(m, 0, p);
    NEAR3(p, 0, 1, 0);
    position(m, 1, p);
    NEAR3(p, 0, 2, 0);
    position(m, 2, p);
    NEAR3(p, 0, 0, 1);
    position(m, 3, p);
    NEAR3(p, 0, 1.5, 0);
    float n[3];
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL), 1, 1, n);
    NEAR3(n, 0, 1, 0);
    ossa_model_free(m);
    /* joints apart: the arm turns about (1, 0, 0): (2,0,0) -> (1,1,0); the
     * shared (1.5,0,0) -> half of (1.5,0,0) and half of (1,0.5,0) */
    m = make(REST_APART);
    assert_int_equal(ossa_model_apply_rest_pose(m, &err), OSSA_OK);
    position(m, 1, p);
    NEAR3(p, 1, 1, 0);
    position(m, 3, p);
    NEAR3(p, 1.25, 0.25, 0);
    ossa_model_free(m);
    /* without a rest pose nothing happens */
    m = make(REST_NONE);
    const void *data = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)->data;
    assert_int_equal(ossa_model_apply_rest_pose(m, &err), OSSA_OK);
    assert_ptr_equal(ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)->data, data);
    ossa_model_free(m);
}

/* -- What writers get ------------------------------------------------------------------- */

typedef struct heard {
    uint32_t notes, dropped;
    char last[256];
} heard;

static void listen(void *user, const ossa_diagnostic *d)
{
    heard *h = user;
    if (d->severity == OSSA_SEVERITY_NOTE) h->notes++;
    if (d->code == OSSA_WARNING_DROPPED) h->dropped++;
    snprintf(h->last, sizeof h->last, "%s", d->message);
}

static ossa_model *through(const ossa_model *m, ossa_format format, heard *h)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.diagnostic = listen;
    o.user = h;
    memset(h, 0, sizeof *h);
    void *data;
    size_t size;
    ossa_error err;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    ossa_model *back = ts_load(data, size);
    ossa_free(data, NULL);
    return back;
}

static void writers(void **state)
{
    (void)state;
    heard h;
    float p[3];
    /* IQM, one pose: joints alike, the mesh skinned into the rest pose */
    ossa_model *m = make(REST_ALIKE);
    ossa_model *b = through(m, OSSA_FORMAT_IQM, &h);
    assert_int_equal(h.notes, 1);
    assert_non_null(strstr(h.last, "iqm holds one pose: the mesh is skinned into the rest pose"));
    assert_null(b->rest_pose);
    TS_ASSERT_QUAT_EQUIV(b->joints[0].bind.rotation, QZ, 1e-6);
    position(b, 1, p);
    NEAR3(p, 0, 2, 0);
    ossa_model_free(b);
    /* glTF keeps both: the nodes rest, the skin holds the bind pose */
    b = through(m, OSSA_FORMAT_GLB, &h);
    assert_int_equal(h.notes + h.dropped, 0);
    assert_non_null(b->rest_pose);
    for (int j = 0; j < 2; j++) { /* equal, up to the sign of zeros (glTF's axes) */
        NEAR3(b->rest_pose[j].translation, m->rest_pose[j].translation[0],
              m->rest_pose[j].translation[1], m->rest_pose[j].translation[2]);
        TS_ASSERT_QUAT_EQUIV(b->rest_pose[j].rotation, m->rest_pose[j].rotation, 0);
    }
    TS_ASSERT_QUAT_EQUIV(b->joints[0].bind.rotation, m->joints[0].bind.rotation, 1e-6);
    position(b, 1, p);
    NEAR3(p, 2, 0, 0);
    ossa_model_free(b);
    ossa_model_free(m);
    /* joints apart: re-posed, (1.5, 0, 0) would bend otherwise in
     * animations; the mesh stays bound as it was, the rest pose is left
     * out with a warning */
    m = make(REST_APART);
    b = through(m, OSSA_FORMAT_IQM, &h);
    assert_int_equal(h.dropped, 1);
    assert_non_null(strstr(h.last, "the rest pose is left out"));
    assert_null(b->rest_pose);
    const float unturned[4] = {0, 0, 0, 1};
    TS_ASSERT_QUAT_EQUIV(b->joints[1].bind.rotation, unturned, 1e-6);
    position(b, 3, p);
    NEAR3(p, 1.5, 0, 0);
    ossa_model_free(b);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builder), cmocka_unit_test(edits),   cmocka_unit_test(at_rest),
        cmocka_unit_test(apply),   cmocka_unit_test(writers),
    };
    return cmocka_run_group_tests_name("rest_pose", tests, NULL, NULL);
}
