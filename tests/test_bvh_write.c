/* BVH writer and merging (docs/formats/bvh.md §10, §11): written files read
 * back to the same joints and poses (the three shared BVH files in every
 * rotation order, IQM and glTF characters), one file per animation, what is
 * dropped, and the retargeting of a BVH onto a character whose bind pose
 * differs from the BVH's rest pose, against numbers worked out by hand. */
#include "text_format_test.h"

#include "formats/bvh/bvh.h"

#define BVH OSSA_FORMAT_BVH

/* Written with the options bvh.rotation_order and bvh.positions (NULL:
 * absent), read back. */
static ossa_model *reload(const ossa_model *m, const char *order, const char *positions,
                          uint32_t animation)
{
    ossa_option opts[2];
    uint32_t n = 0;
    if (order) opts[n++] = (ossa_option){"bvh.rotation_order", order};
    if (positions) opts[n++] = (ossa_option){"bvh.positions", positions};
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = BVH;
    o.format_options = opts;
    o.num_format_options = n;
    o.animation = animation;
    size_t size;
    char *text = tf_write(m, &o, &size);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = "back.bvh";
    ossa_model *back = tf_load_with(BVH, text, &lo);
    free(text);
    return back;
}

static int32_t find_joint(const ossa_model *m, const char *name)
{
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (strcmp(m->joints[j].name, name) == 0) return (int32_t)j;
    return -1;
}

/* Model-space matrices of a frame (a < 0: at rest, the rest pose where the
 * model has one, else the bind pose: writers of one pose get the model
 * re-posed to its rest pose, docs/formats/gltf.md §9). */
static float (*world(const ossa_model *m, int a, uint32_t f))[16]
{
    float(*mat)[16] = malloc((m->num_joints + 1) * sizeof *mat);
    assert_non_null(mat);
    ossa_transform *pose = malloc((m->num_joints + 1) * sizeof *pose);
    assert_non_null(pose);
    for (uint32_t j = 0; j < m->num_joints; j++)
        pose[j] = a >= 0         ? m->animations[a].frames[(size_t)f * m->num_joints + j]
                  : m->rest_pose ? m->rest_pose[j]
                                 : m->joints[j].bind;
    ossa_local_to_model(m, pose, mat);
    free(pose);
    return mat;
}

/* For every joint of `a` found by name in `b`: the same world position and
 * the same world rotation relative to the pose at rest (BVH folds rest
 * rotations into the motion), at frame f of animation ia / ib. */
static void assert_same_motion(const ossa_model *a, int ia, const ossa_model *b, int ib,
                               uint32_t f, double tol)
{
    float(*wa)[16] = world(a, ia, f), (*wb)[16] = world(b, ib, f);
    float(*ba)[16] = world(a, -1, 0), (*bb)[16] = world(b, -1, 0);
    uint32_t compared = 0;
    for (uint32_t j = 0; j < a->num_joints; j++) {
        int32_t k = find_joint(b, a->joints[j].name);
        if (k < 0) continue;
        compared++;
        for (int r = 0; r < 3; r++) TF_NEAR(wa[j][12 + r], wb[k][12 + r], tol);
        /* rotation part of W(f) * W(bind)^T, both sides */
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                double x = 0, y = 0;
                for (int i = 0; i < 3; i++) {
                    x += (double)wa[j][i * 4 + r] * ba[j][i * 4 + c];
                    y += (double)wb[k][i * 4 + r] * bb[k][i * 4 + c];
                }
                TF_NEAR(x, y, 1e-4);
            }
    }
    assert_true(compared > 0);
    free(wa);
    free(wb);
    free(ba);
    free(bb);
}

/* -- Round trips -- */

static void test_round_trip_files(void **state)
{
    (void)state;
    static const char *const files[] = {"bvh/01_01.bvh", "bvh/01_03.bvh", "bvh/Boxing_Toes.bvh"};
    static const char *const orders[] = {NULL, "XYZ", "yxz", "ZXY"};
    for (size_t i = 0; i < 3; i++) {
        ossa_model *m = tf_load_shared(files[i]);
        for (size_t o = 0; o < (i == 0 ? 4u : 1u); o++) {
            bool all = o == 3;
            ossa_model *b = reload(m, orders[o], all ? "all" : NULL, 0);
            /* same joints, parents and offsets, exactly */
            assert_int_equal(b->num_joints, m->num_joints);
            for (uint32_t j = 0; j < m->num_joints; j++) {
                assert_string_equal(b->joints[j].name, m->joints[j].name);
                assert_int_equal(b->joints[j].parent, m->joints[j].parent);
                assert_memory_equal(&b->joints[j].bind, &m->joints[j].bind, sizeof(ossa_transform));
            }
            const ossa_animation *x = &m->animations[0], *y = &b->animations[0];
            assert_int_equal(y->num_frames, x->num_frames);
            TF_NEAR(y->framerate, x->framerate, 0);
            for (uint32_t f = 0; f < x->num_frames; f += 97)
                for (uint32_t j = 0; j < m->num_joints; j++) {
                    const ossa_transform *p = &x->frames[(size_t)f * m->num_joints + j];
                    const ossa_transform *q = &y->frames[(size_t)f * m->num_joints + j];
                    assert_true(ts_quat_distance(p->rotation, q->rotation) < 2e-6);
                    for (int k = 0; k < 3; k++) TF_NEAR(q->translation[k], p->translation[k], 0);
                }
            /* the channels written: positions on the root only unless asked */
            assert_int_equal(y->channels[1], all ? OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION
                                                 : OSSA_CHANNEL_ROTATION);
            ossa_model_free(b);
        }
        ossa_model_free(m);
    }
}

/* The layout of §11, checked on a two-joint model built here. */
static void test_layout(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    t.translation[2] = 1; /* ossa z up = BVH y */
    assert_int_equal(ossa_model_add_joint(m, "root bone", -1, &t, NULL), 0);
    t.translation[2] = 0;
    t.translation[1] = -2; /* ossa -y = BVH +z */
    assert_int_equal(ossa_model_add_joint(m, "tip", 0, &t, NULL), 1);
    ossa_animation *a = ossa_model_add_animation(m, "wave", 1, 120, 0, NULL);
    assert_non_null(a);
    /* frame 0: root turned +90 degrees about ossa z = BVH y */
    a->frames[0].rotation[2] = a->frames[0].rotation[3] = (float)sqrt(0.5);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = BVH;
    size_t size;
    char *text = tf_write(m, &o, &size);
    static const char expect[] =
        "HIERARCHY\n"
        "ROOT root_bone\n"
        "{\n"
        "\tOFFSET 0 1 0\n"
        "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
        "\tJOINT tip\n"
        "\t{\n"
        "\t\tOFFSET 0 0 2\n"
        "\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n"
        "\t\tEnd Site\n"
        "\t\t{\n"
        "\t\t\tOFFSET 0 0 1\n"
        "\t\t}\n"
        "\t}\n"
        "}\n"
        "MOTION\n"
        "Frames: 1\n"
        "Frame Time: 0.00833333333333\n"
        "0 1 0 0 90 0 0 0 0\n";
    assert_string_equal(text, expect);
    free(text);
    ossa_model_free(m);
}

static void on_warn(void *user, const ossa_diagnostic *d)
{
    char *log = user;
    size_t n = strlen(log);
    snprintf(log + n, 4096 - n, "%d:%s\n", (int)d->code, d->message);
}

/* An IQM character with a mesh and two animations: one file per
 * animation, the mesh reported as dropped; the poses read back. */
static void test_character(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("iqm/guy.iqm");
    assert_true(m->num_animations >= 2);
    char *path = ts_tmp_path("bvh_guy.bvh");
    char *second = malloc(strlen(path) + 64);
    assert_non_null(second);
    snprintf(second, strlen(path) + 64, "%.*s.%s.bvh", (int)(strlen(path) - 4), path,
             m->animations[1].name);
    remove(path);
    remove(second);
    char log[4096] = "";
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.diagnostic = on_warn;
    o.user = log;
    o.flags = OSSA_WRITE_KEEP_FRONT; /* as guy.iqm faces, to compare */
    ossa_error err;
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    assert_non_null(strstr(log, "bvh files hold no mesh"));
    /* guy's second animation scales a joint: said (the scale rule,
     * core/scale.h), and not compared */
    assert_non_null(strstr(log, "bvh files store no scale; joint 1 'body' is scaled"));
    for (uint32_t a = 0; a < 2; a++) {
        ossa_error e2;
        ossa_model *b = ossa_load_file(a ? second : path, NULL, &e2);
        assert_non_null(b);
        char name[256];
        snprintf(name, sizeof name, "bvh_guy.%s", m->animations[1].name);
        assert_string_equal(b->animations[0].name, a ? name : "bvh_guy");
        assert_int_equal(b->animations[0].num_frames, m->animations[a].num_frames);
        for (uint32_t f = 0; a == 0 && f < m->animations[a].num_frames; f += 7)
            assert_same_motion(m, (int)a, b, 0, f, 1e-4);
        ossa_model_free(b);
    }
    remove(path);
    remove(second);
    free(path);
    free(second);
    ossa_model_free(m);
}

/* glTF characters (bind rotations on every joint, several roots in Fox)
 * read back with the same world motion. */
static void test_gltf_characters(void **state)
{
    (void)state;
    static const char *const files[] = {"gltf/CesiumMan.glb", "gltf/Fox.glb",
                                        "gltf/RiggedFigure.glb"};
    for (size_t i = 0; i < 3; i++) {
        ossa_model *m = tf_load_shared(files[i]);
        for (uint32_t a = 0; a < m->num_animations; a++) {
            /* glTF animations move every joint: positions on every one */
            ossa_model *b = reload(m, NULL, "all", a);
            /* glTF units are metres: 1e-4 m */
            for (uint32_t f = 0; f < m->animations[a].num_frames; f += 5)
                assert_same_motion(m, (int)a, b, 0, f, 1e-4);
            ossa_model_free(b);
        }
        ossa_model_free(m);
    }
}

/* Scale and non-root motion cannot be held: each is reported. */
static void test_dropped(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    ossa_model_add_joint(m, "a", -1, &t, NULL);
    t.translation[0] = 1;
    ossa_model_add_joint(m, "b", 0, &t, NULL);
    ossa_animation *an = ossa_model_add_animation(m, "s", 2, 30, 0, NULL);
    an->frames[3].scale[1] = 2;
    an->frames[3].translation[0] = 3;
    char log[4096] = "";
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = BVH;
    o.diagnostic = on_warn;
    o.user = log;
    size_t size;
    free(tf_write(m, &o, &size));
    assert_non_null(strstr(log, "101:animation 's': bvh files store no scale; joint 1 'b'"));
    assert_non_null(strstr(log, "101:animation 's' moves joint 'b' away from its offset (frame 1)"));
    /* with positions on every joint, the motion is kept */
    log[0] = 0;
    ossa_option all = {"bvh.positions", "all"};
    o.format_options = &all;
    o.num_format_options = 1;
    free(tf_write(m, &o, &size));
    assert_null(strstr(log, "moves joint"));
    /* a value the option does not have is refused, naming it */
    ossa_option bad = {"bvh.rotation_order", "XXY"};
    o.format_options = &bad;
    void *out;
    ossa_error e;
    assert_int_equal(ossa_write_memory(m, &o, &out, &size, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(e.message, "bvh.rotation_order"));
    o.format_options = NULL;
    o.num_format_options = 0;
    ossa_model_free(m);
    /* a model without joints cannot be a BVH */
    m = ossa_model_create(NULL);
    void *data;
    ossa_error err;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    ossa_model_free(m);
}

/* -- Euler angles (§4, §11) -- */

static double quat_gap(const double a[4], const double b[4])
{
    double d = 0;
    for (int k = 0; k < 4; k++) d += a[k] * b[k];
    return 1 - fabs(d);
}

/* Every order: angles -> quaternion -> angles -> quaternion gives the same
 * rotation; the angles nearest the previous frame's are chosen (a turn of
 * 360 degrees or the other solution is not taken when nearer); in gimbal
 * lock (middle angle +-90) the last angle keeps its previous value. */
static void test_euler(void **state)
{
    (void)state;
    static const char *const names[6] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
    uint64_t rng = 0x1234567u;
    for (int o = 0; o < 6; o++) {
        bvh_order order;
        assert_true(ossa__bvh_order_parse(names[o], 3, &order));
        for (int i = 0; i < 2000; i++) {
            double in[3], q[4], out[3], back[4];
            for (int k = 0; k < 3; k++) in[k] = (double)(ts_rand(&rng) % 720000) / 1000 - 360;
            ossa__bvh_euler_to_quat(&order, in, q);
            ossa__bvh_quat_to_euler(&order, q, NULL, out);
            ossa__bvh_euler_to_quat(&order, out, back);
            assert_true(quat_gap(q, back) < 1e-12);
            /* with the input as the previous frame, the input comes back */
            ossa__bvh_quat_to_euler(&order, q, in, out);
            for (int k = 0; k < 3; k++) TF_NEAR(out[k], in[k], 1e-6);
        }
        /* gimbal lock: b = 90; c kept at its previous 30, a takes the rest */
        double in[3] = {10, 90, 40}, prev[3] = {0, 80, 30}, q[4], out[3], back[4];
        ossa__bvh_euler_to_quat(&order, in, q);
        ossa__bvh_quat_to_euler(&order, q, prev, out);
        TF_NEAR(out[2], 30, 1e-6);
        TF_NEAR(out[1], 90, 1e-6);
        ossa__bvh_euler_to_quat(&order, out, back);
        assert_true(quat_gap(q, back) < 1e-12);
    }
    assert_false(ossa__bvh_order_parse("XXY", 3, &(bvh_order){{0, 0, 0}}));
    assert_false(ossa__bvh_order_parse("XY", 2, &(bvh_order){{0, 0, 0}}));
}

/* -- Retargeting (§10) -- */

/* A T-pose BVH: hips (positions), arm along +x with an End Site, leg down
 * 2 with an End Site 1 below, and a joint the character lacks. */
static const char tpose[] = "HIERARCHY\n"
                            "ROOT hips\n{\n OFFSET 0 0 0\n"
                            " CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
                            " JOINT arm\n {\n  OFFSET 1 0 0\n  CHANNELS 3 Zrotation Yrotation Xrotation\n"
                            "  End Site\n  {\n   OFFSET 1 0 0\n  }\n }\n"
                            " JOINT leg\n {\n  OFFSET 0 -2 0\n  CHANNELS 3 Zrotation Yrotation Xrotation\n"
                            "  End Site\n  {\n   OFFSET 0 -1 0\n  }\n }\n"
                            " JOINT tail\n {\n  OFFSET 0 0 -1\n  CHANNELS 0\n }\n"
                            "}\nMOTION\nFrames: 2\nFrame Time: 0.5\n"
                            "0 3 0 0 0 0 0 0 0 0 0 0\n"
                            "0 3 0 0 0 0 90 0 0 0 0 0\n";

/* The character (ossa axes, z up): hips at height 2, the arm bent 45
 * degrees down (an A-pose: bind rotation Ry(45) takes +x to (c, 0, -c)),
 * leg 1 and leg_end 0.5 below, and a prop the BVH does not have. */
static ossa_model *apose_character(void)
{
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    t.translation[2] = 2;
    assert_int_equal(ossa_model_add_joint(m, "hips", -1, &t, NULL), 0);
    t = ossa_transform_identity();
    t.translation[0] = 1;
    t.rotation[1] = (float)sin(3.14159265358979323846 / 8);
    t.rotation[3] = (float)cos(3.14159265358979323846 / 8);
    assert_int_equal(ossa_model_add_joint(m, "arm", 0, &t, NULL), 1);
    t = ossa_transform_identity();
    t.translation[0] = 1;
    assert_int_equal(ossa_model_add_joint(m, "arm_end", 1, &t, NULL), 2);
    t = ossa_transform_identity();
    t.translation[2] = -1;
    assert_int_equal(ossa_model_add_joint(m, "leg", 0, &t, NULL), 3);
    t.translation[2] = -0.5f;
    assert_int_equal(ossa_model_add_joint(m, "leg_end", 3, &t, NULL), 4);
    t = ossa_transform_identity();
    t.translation[1] = 1;
    assert_int_equal(ossa_model_add_joint(m, "prop", 0, &t, NULL), 5);
    return m;
}

/* By hand: A_arm takes the character's arm direction (c, 0, -c) onto the
 * BVH's (1, 0, 0): Ry(-45). Frame 0 (BVH at rest): arm world = Ry(-45)
 * Ry(45) = identity, the arm lifted to the T-pose. Frame 1: BVH Zrotation
 * 90 is a turn of 90 degrees about ossa's -y, Ry(-90); arm world =
 * Ry(-90) Ry(-45) Ry(45) = Ry(-90): local (0, -sin 45, 0, cos 45), the bone
 * pointing up. Hips height: character 2 - 0.5 (leg_end) = 1.5 above its
 * lowest joint, BVH 0 - (-3) = 3: k = 0.5, so the BVH root at (0, 0, 3)
 * puts the hips at (0, 0, 1.5). */
static void test_retarget(void **state)
{
    (void)state;
    ossa_model *ch = apose_character();
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = "wave.bvh";
    ossa_model *bvh = tf_load_with(BVH, tpose, &lo);
    ossa_error err;
    assert_int_equal(ossa_model_merge(ch, bvh, &err), OSSA_OK);
    assert_int_equal(ch->num_animations, 1);
    const ossa_animation *a = &ch->animations[0];
    const ossa_transform *f0 = a->frames, *f1 = a->frames + 6;
    TF_QUAT(f0[1].rotation, 0, 0, 0, 1, 1e-6);
    TF_QUAT(f1[1].rotation, 0, -sqrt(0.5), 0, sqrt(0.5), 1e-6);
    for (int k = 0; k < 3; k++) {
        TF_NEAR(f0[0].translation[k], k == 2 ? 1.5 : 0, 1e-6);
        TF_NEAR(f1[1].translation[k], k == 0 ? 1 : 0, 1e-6); /* bind translation kept */
    }
    TF_QUAT(f1[0].rotation, 0, 0, 0, 1, 1e-6);
    TF_QUAT(f1[3].rotation, 0, 0, 0, 1, 1e-6); /* the leg agrees with the BVH already */
    /* the arm's end at frame 1: hips (0,0,1.5) + (1,0,0) + up 1 */
    float(*w)[16] = world(ch, 0, 1);
    TF_NEAR(w[2][12], 1, 1e-6);
    TF_NEAR(w[2][13], 0, 1e-6);
    TF_NEAR(w[2][14], 2.5, 1e-6);
    free(w);
    /* channels: driven joints only */
    assert_int_equal(a->channels[0], OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION);
    assert_int_equal(a->channels[1], OSSA_CHANNEL_ROTATION);
    assert_int_equal(a->channels[5], 0);
    /* what did not match is reported */
    assert_non_null(tf_warning(ch, OSSA_WARNING_DROPPED, "'tail' is not in the skeleton"));
    assert_non_null(tf_warning(ch, OSSA_WARNING_INCONSISTENT, "(the first: 'prop')"));
    const ossa_diagnostic *note = tf_warning(ch, OSSA_WARNING_REPAIRED, "retargeted");
    assert_non_null(note);
    assert_non_null(strstr(note->message, "scaled by 0.5"));
    ossa_model_free(ch);
    ossa_model_free(bvh);
}

/* A character with a rest pose beside its bind pose (a glTF whose skin was
 * bound in a T-pose, resting in the A-pose of apose_character) is
 * retargeted onto its rest pose: the same frames as test_retarget. */
static void test_retarget_rest_pose(void **state)
{
    (void)state;
    ossa_model *a = apose_character(), *ch = ossa_model_create(NULL);
    ossa_transform rest[6];
    for (uint32_t j = 0; j < 6; j++) {
        rest[j] = a->joints[j].bind;
        ossa_transform bind = rest[j];
        /* bound with the arm level, the leg longer (hips 2 above the lowest
         * joint: k would be 2/3) and the prop turned */
        if (j == 1) bind.rotation[1] = 0, bind.rotation[3] = 1;
        if (j == 3) bind.translation[2] = -1.5f;
        if (j == 5) bind.rotation[2] = bind.rotation[3] = (float)sqrt(0.5);
        assert_int_equal(ossa_model_add_joint(ch, a->joints[j].name, a->joints[j].parent, &bind, NULL),
                         (int)j);
    }
    assert_int_equal(ossa_model_set_rest_pose(ch, rest, NULL), OSSA_OK);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = "wave.bvh";
    ossa_model *bvh = tf_load_with(BVH, tpose, &lo);
    ossa_error err;
    assert_int_equal(ossa_model_merge(ch, bvh, &err), OSSA_OK);
    const ossa_transform *f0 = ch->animations[0].frames, *f1 = f0 + 6;
    TF_QUAT(f0[1].rotation, 0, 0, 0, 1, 1e-6);
    TF_QUAT(f1[1].rotation, 0, -sqrt(0.5), 0, sqrt(0.5), 1e-6);
    TF_NEAR(f0[0].translation[2], 1.5, 1e-6); /* k = 0.5, from the rest pose */
    TF_NEAR(f1[3].translation[2], -1, 1e-6);
    TF_QUAT(f1[5].rotation, 0, 0, 0, 1, 1e-6); /* undriven: its rest */
    const ossa_diagnostic *note = tf_warning(ch, OSSA_WARNING_REPAIRED, "retargeted");
    assert_non_null(note);
    assert_non_null(strstr(note->message, "onto the skeleton's rest pose"));
    ossa_model_free(a);
    ossa_model_free(ch);
    ossa_model_free(bvh);
}

/* huesitos.fbx's armature scale (100 on the root, in the bind pose and
 * every frame) is baked into the translations below it, as for MD5 and
 * SMD: every joint stands where the FBX puts it (it was dropped, leaving
 * the bones at 1/100 of their places), and nothing is reported lost. */
static void test_scale_baked(void **state)
{
    (void)state;
    ossa_model *fbx = tf_load_shared("fbx/huesitos.fbx");
    char log[4096] = "";
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = BVH;
    o.diagnostic = on_warn;
    o.user = log;
    size_t size;
    char *text = tf_write(fbx, &o, &size);
    assert_null(strstr(log, "scale"));
    ossa_error err;
    ossa_model *bvh = ossa_load_memory(text, size, NULL, &err);
    assert_non_null(bvh);
    free(text);
    const ossa_animation *a = &fbx->animations[0];
    assert_int_equal(bvh->animations[0].num_frames, a->num_frames);
    for (uint32_t f = 0; f < a->num_frames; f += 5) {
        float(*wa)[16] = world(fbx, 0, f), (*wb)[16] = world(bvh, 0, f);
        for (uint32_t j = 0; j < fbx->num_joints; j++) {
            int32_t k = find_joint(bvh, fbx->joints[j].name);
            assert_true(k >= 0);
            for (int r = 0; r < 3; r++) TF_NEAR(wb[k][12 + r], wa[j][12 + r], 1e-4);
        }
        free(wa);
        free(wb);
    }
    ossa_model_free(bvh);
    ossa_model_free(fbx);
}

/* A skeleton whose bind pose is the BVH's rest pose (the BVH written as
 * IQM and read back) takes the BVH's motion unchanged. The IQM is turned
 * to face IQM's front (+X, from the BVH's -Y), and so is the motion
 * merged onto it: the merge poses it as the BVH's own IQM does. Said to
 * face -Y as the BVH does, nothing is turned. */
static void test_retarget_same_rest(void **state)
{
    (void)state;
    ossa_model *bvh = tf_load_shared("bvh/01_01.bvh");
    assert_int_equal(bvh->front, OSSA_FRONT_NEG_Y);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_IQM;
    size_t size;
    void *data;
    ossa_error err;
    assert_int_equal(ossa_write_memory(bvh, &o, &data, &size, &err), OSSA_OK);
    ossa_model *iqm = ossa_load_memory(data, size, NULL, &err);
    assert_non_null(iqm);
    ossa_free(data, NULL);
    /* the BVH turned alike, its frames exact (IQM's are quantized) */
    o.format = OSSA_FORMAT_IQE;
    assert_int_equal(ossa_write_memory(bvh, &o, &data, &size, &err), OSSA_OK);
    ossa_model *turned = ossa_load_memory(data, size, NULL, &err);
    assert_non_null(turned);
    ossa_free(data, NULL);
    o.format = OSSA_FORMAT_IQM;
    assert_int_equal(iqm->front, OSSA_FRONT_POS_X);
    ossa_model_remove_animation(iqm, 0, &err);
    assert_int_equal(ossa_model_merge(iqm, bvh, &err), OSSA_OK);
    for (uint32_t f = 0; f < 2752; f += 250) assert_same_motion(turned, 0, iqm, 0, f, 1e-4);
    /* the root walks on IQM's +X where the BVH walks on -Y */
    float(*wb)[16] = world(bvh, 0, 2000), (*wi)[16] = world(iqm, 0, 2000);
    TF_NEAR(wi[0][12], -wb[0][13], 1e-4);
    TF_NEAR(wi[0][13], wb[0][12], 1e-4);
    free(wb);
    free(wi);
    ossa_model_free(iqm);
    ossa_model_free(turned);

    o.flags = OSSA_WRITE_KEEP_FRONT;
    assert_int_equal(ossa_write_memory(bvh, &o, &data, &size, &err), OSSA_OK);
    iqm = ossa_load_memory(data, size, NULL, &err);
    assert_non_null(iqm);
    ossa_free(data, NULL);
    ossa_model_set_front(iqm, OSSA_FRONT_NEG_Y);
    ossa_model_remove_animation(iqm, 0, &err);
    assert_int_equal(ossa_model_merge(iqm, bvh, &err), OSSA_OK);
    for (uint32_t f = 0; f < 2752; f += 250) assert_same_motion(bvh, 0, iqm, 0, f, 1e-4);
    ossa_model_free(iqm);
    ossa_model_free(bvh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_files), cmocka_unit_test(test_layout),
        cmocka_unit_test(test_character),        cmocka_unit_test(test_gltf_characters),
        cmocka_unit_test(test_dropped),          cmocka_unit_test(test_retarget),
        cmocka_unit_test(test_retarget_same_rest), cmocka_unit_test(test_euler),
        cmocka_unit_test(test_retarget_rest_pose),
        cmocka_unit_test(test_scale_baked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
