/* BVH reader (docs/formats/bvh.md): hand-made files for every rotation
 * order (expected quaternions from rotation matrices multiplied in Python,
 * turned into ossa's axes by C M C^T), channel orders, End Sites, line
 * ends, damaged files; and the three real files against an independent
 * forward-kinematics computation from their text (Python). */
#include "text_format_test.h"

#define BVH OSSA_FORMAT_BVH

static ossa_model *load(const char *text, const char *name)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.file_name = name;
    return tf_load_with(BVH, text, &o);
}

/* World position of joint j at frame f, from the model's own frames. */
static void world_position(const ossa_model *m, uint32_t a, uint32_t f, uint32_t j, float out[3])
{
    float(*mat)[16] = malloc(m->num_joints * sizeof *mat);
    assert_non_null(mat);
    ossa_local_to_model(m, &m->animations[a].frames[(size_t)f * m->num_joints], mat);
    out[0] = mat[j][12];
    out[1] = mat[j][13];
    out[2] = mat[j][14];
    free(mat);
}

/* -- Rotation orders -- */

/* Python (rotation matrices, angles 30 -45 60 in the listed order):
 * R = R_A(30) R_B(-45) R_C(60) in Y-up, then C R C^T with C: (x,y,z) ->
 * (x,-z,y), as a quaternion (x, y, z, w). */
static const struct {
    const char *order;
    double q[4];
} order_cases[] = {
    {"XYZ", {0.022260027, -0.360423406, -0.439679740, 0.822363172}},
    {"XZY", {0.391903837, 0.200562121, 0.531975695, 0.723317411}},
    {"YXZ", {-0.200562121, -0.531975695, 0.391903837, 0.723317411}},
    {"YZX", {0.360423406, 0.439679740, 0.022260027, 0.822363172}},
    {"ZXY", {-0.439679740, -0.022260027, 0.360423406, 0.822363172}},
    {"ZYX", {0.531975695, -0.391903837, -0.200562121, 0.723317411}},
};

static void test_rotation_orders(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof order_cases / sizeof order_cases[0]; i++) {
        const char *o = order_cases[i].order;
        char text[512];
        snprintf(text, sizeof text,
                 "HIERARCHY\nROOT r\n{\n\tOFFSET 1 2 3\n\tCHANNELS 3 %crotation %crotation "
                 "%crotation\n\tEnd Site\n\t{\n\t\tOFFSET 0 1 0\n\t}\n}\nMOTION\nFrames: 1\n"
                 "Frame Time: 0.04\n30 -45 60\n",
                 o[0], o[1], o[2]);
        ossa_model *m = load(text, "orders.bvh");
        assert_int_equal(m->num_animations, 1);
        const ossa_transform *t = &m->animations[0].frames[0];
        const double *q = order_cases[i].q;
        TF_QUAT(t->rotation, q[0], q[1], q[2], q[3], 1e-6);
        /* the offset stays: (1, 2, 3) -> (1, -3, 2) */
        TF_NEAR(t->translation[0], 1, 0);
        TF_NEAR(t->translation[1], -3, 0);
        TF_NEAR(t->translation[2], 2, 0);
        assert_int_equal(m->animations[0].channels[0], OSSA_CHANNEL_ROTATION);
        TF_NEAR(m->animations[0].framerate, 25, 0);
        ossa_model_free(m);
    }
}

/* Rotations listed before positions, a joint with two rotations and one
 * position channel (missing components are 0: the channels replace the
 * offset), and channel names in any case. */
static void test_channel_orders(void **state)
{
    (void)state;
    ossa_model *m = load("HIERARCHY\n"
                         "ROOT hips\n{\n OFFSET 5 5 5\n"
                         " CHANNELS 6 Yrotation Xposition zROTATION Yposition Zposition Xrotation\n"
                         " JOINT arm\n {\n  OFFSET 1 0 0\n  CHANNELS 3 Xrotation Yposition Zrotation\n"
                         "  End Site\n  {\n   OFFSET 0 1 0\n  }\n }\n}\n"
                         "MOTION\nFrames: 1\nFrame Time: 0.5\n"
                         "90 1 0 2 3 0   90 7 0\n",
                         "ch.bvh");
    assert_int_equal(m->num_joints, 3);
    const ossa_transform *f = m->animations[0].frames;
    /* hips: position (1, 2, 3) -> (1, -3, 2); R = Ry(90): about ossa's Z
     * (the Y-up Y axis is Z after the change): (0, 0, sin 45, cos 45) */
    TF_NEAR(f[0].translation[0], 1, 0);
    TF_NEAR(f[0].translation[1], -3, 0);
    TF_NEAR(f[0].translation[2], 2, 0);
    TF_QUAT(f[0].rotation, 0, 0, sqrt(0.5), sqrt(0.5), 1e-7);
    /* arm: Rx(90), position (0, 7, 0) -> (0, 0, 7) */
    TF_QUAT(f[1].rotation, sqrt(0.5), 0, 0, sqrt(0.5), 1e-7);
    TF_NEAR(f[1].translation[0], 0, 0);
    TF_NEAR(f[1].translation[1], 0, 0);
    TF_NEAR(f[1].translation[2], 7, 0);
    const uint8_t *ch = m->animations[0].channels;
    assert_int_equal(ch[0], OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION);
    assert_int_equal(ch[1], OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION);
    assert_int_equal(ch[2], 0);
    /* the bind pose is the offsets with no rotation */
    TF_NEAR(m->joints[1].bind.translation[0], 1, 0);
    TF_QUAT(m->joints[1].bind.rotation, 0, 0, 0, 1, 0);
    ossa_model_free(m);
}

/* End Sites are leaves named after their joint; names with blanks are
 * joined with '_' (as Blender joins them); repeated names get ".2". */
static void test_names(void **state)
{
    (void)state;
    ossa_model *m = load("HIERARCHY\nROOT Left Arm\n{\nOFFSET 0 0 0\nCHANNELS 0\n"
                         "JOINT b\n{\nOFFSET 0 1 0\nCHANNELS 1 Zrotation\nEnd Site tip\n{\n"
                         "OFFSET 0 2 0\n}\n}\nJOINT b\n{\nOFFSET 0 0 1\nCHANNELS 1 Xrotation\n"
                         "End Site\n{\nOFFSET 0 0 0\n}\n}\n}\nMOTION\nFrames: 0\n"
                         "Frame Time: 0.1\n",
                         "n.bvh");
    assert_int_equal(m->num_joints, 5);
    assert_string_equal(m->joints[0].name, "Left_Arm");
    assert_string_equal(m->joints[1].name, "b");
    assert_string_equal(m->joints[2].name, "b_end");
    assert_int_equal(m->joints[2].parent, 1);
    assert_string_equal(m->joints[3].name, "b.2");
    assert_string_equal(m->joints[4].name, "b.2_end");
    TF_NEAR(m->joints[2].bind.translation[2], 2, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_RENAMED, "'b.2'"));
    /* zero frames: the skeleton alone */
    assert_int_equal(m->num_animations, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_IGNORED, "no frames"));
    ossa_model_free(m);
}

/* CRLF, a lone CR, tabs, runs of blanks, a keyword-less brace layout, a
 * last line without a newline: all read alike. */
static void test_line_ends(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "HIERARCHY\r\nROOT a\r\n{\r\n\tOFFSET 0 0 0\r\n\tCHANNELS 3 Zrotation Yrotation "
        "Xrotation\r\n\tEnd Site\r\n\t{\r\n\t\tOFFSET 0 1 0\r\n\t}\r\n}\r\nMOTION\r\nFrames: "
        "2\r\nFrame Time: 0.0333333\r\n10 20 30\r\n40 50 60\r\n",
        "HIERARCHY\rROOT a\r{\rOFFSET 0 0 0\rCHANNELS 3 Zrotation Yrotation Xrotation\rEnd "
        "Site\r{\rOFFSET 0 1 0\r}\r}\rMOTION\rFrames: 2\rFrame Time: 0.0333333\r10 20 30\r40 50 "
        "60",
        "  hierarchy \t\n root a {\n offset  0\t0 0 channels 3 Zrotation   Yrotation\tXrotation\n"
        "end site { offset 0 1 0 } }\nmotion\nframes:\t2\nframe time:\t0.0333333\t\n 10\t20 30 "
        "\t\n\n40 50 60   ",
    };
    for (size_t i = 0; i < 3; i++) {
        ossa_model *m = load(texts[i], "le.bvh");
        assert_int_equal(m->num_joints, 2);
        assert_int_equal(m->num_animations, 1);
        assert_int_equal(m->animations[0].num_frames, 2);
        TF_NEAR(m->animations[0].framerate, 30, 0);
        ossa_model *ref = load(texts[0], "le.bvh");
        for (uint32_t k = 0; k < 2; k++)
            assert_memory_equal(&m->animations[0].frames[k * 2], &ref->animations[0].frames[k * 2],
                                sizeof(ossa_transform));
        ossa_model_free(ref);
        ossa_model_free(m);
    }
}

/* -- Frame time (§6) -- */

static void test_frame_rates(void **state)
{
    (void)state;
    static const struct {
        const char *time;
        double rate;
        bool note;
    } cases[] = {
        {".0083333", 120, true},       /* CMU: 120.0005 is 120 */
        {"0.033333", 30, true},
        /* 12 digits: kept exact; this is 1 / 23.976, not 1001 / 24000 */
        {"0.0417083750417", 1 / 0.0417083750417, false},
        {"0.041708", 24000.0 / 1001, true},
        {"0.01", 100, false},
        {"0.0123", 1 / 0.0123, false}, /* 81.3: no plausible rate near */
        {"0,033333", 30, true},        /* a decimal comma */
        {"0.00833333333333", 1 / 0.00833333333333, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\n"
                 "Frames: 1\nFrame Time: %s\n5\n",
                 cases[i].time);
        ossa_model *m = load(text, "r.bvh");
        TF_NEAR(m->animations[0].framerate, (float)cases[i].rate, 0);
        const ossa_diagnostic *d = tf_warning(m, OSSA_WARNING_REPAIRED, "is taken as");
        assert_true((d != NULL) == cases[i].note);
        if (d) {
            assert_int_equal(d->severity, OSSA_SEVERITY_NOTE);
            assert_int_equal(d->line, 9);
        }
        ossa_model_free(m);
    }
}

/* -- Damaged files (§8) -- */

#define ONE_JOINT "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 2 Xrotation Yrotation\n}\nMOTION\n"

static void test_damage_repaired(void **state)
{
    (void)state;
    /* More frames than declared: all are read (as Blender reads them). */
    ossa_model *m = load(ONE_JOINT "Frames: 1\nFrame Time: 0.1\n1 2\n3 4\n5 6\n", "d.bvh");
    assert_int_equal(m->animations[0].num_frames, 3);
    const ossa_diagnostic *d = tf_warning(m, OSSA_WARNING_INCONSISTENT, "declares 1");
    assert_non_null(d);
    assert_int_equal(d->line, 8);
    ossa_model_free(m);
    /* Fewer, and a cut last line: the complete frames. */
    m = load(ONE_JOINT "Frames: 9\nFrame Time: 0.1\n1 2\n3 4\n5", "d.bvh");
    assert_int_equal(m->animations[0].num_frames, 2);
    d = tf_warning(m, OSSA_WARNING_TRUNCATED, "after 1 of its 2");
    assert_non_null(d);
    assert_int_equal(d->line, 12);
    assert_non_null(tf_warning(m, OSSA_WARNING_INCONSISTENT, "declares 9"));
    ossa_model_free(m);
    /* Trailing garbage; extra numbers on a line. */
    m = load(ONE_JOINT "Frames: 2\nFrame Time: 0.1\n1 2 7\n3 4\n\nEOF garbage\n", "d.bvh");
    assert_int_equal(m->animations[0].num_frames, 2);
    d = tf_warning(m, OSSA_WARNING_IGNORED, "text after the frames");
    assert_non_null(d);
    assert_int_equal(d->line, 13);
    assert_int_equal(d->column, 1);
    d = tf_warning(m, OSSA_WARNING_IGNORED, "more numbers");
    assert_non_null(d);
    assert_int_equal(d->line, 10);
    assert_int_equal(d->column, 5);
    ossa_model_free(m);
    /* No Frames: or Frame Time: line: counted, default rate. */
    m = load(ONE_JOINT "1 2\n3 4\n", "d.bvh");
    assert_int_equal(m->animations[0].num_frames, 2);
    TF_NEAR(m->animations[0].framerate, OSSA_DEFAULT_FRAMERATE, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_NONSTANDARD, "'Frames:'"));
    assert_non_null(tf_warning(m, OSSA_WARNING_NONSTANDARD, "'Frame Time:'"));
    ossa_model_free(m);
    /* No MOTION at all. */
    m = load("HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\n", "d.bvh");
    assert_int_equal(m->num_joints, 1);
    assert_int_equal(m->num_animations, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_TRUNCATED, "no MOTION"));
    ossa_model_free(m);
}

static void test_damage_refused(void **state)
{
    (void)state;
    tf_expect_error(BVH, ONE_JOINT "Frames: 3\nFrame Time: 0.1\n1 2\n3\n5 6\n",
                    OSSA_ERROR_CORRUPT, 11, 2, "frame 1 has 1 numbers, the channels need 2",
                    __LINE__);
    tf_expect_error(BVH, ONE_JOINT "Frames: 2\nFrame Time: 0.1\n1 2\n3 x\n", OSSA_ERROR_CORRUPT,
                    11, 3, "expected a number for Yrotation of 'a' in frame 1, found 'x'",
                    __LINE__);
    tf_expect_error(BVH, ONE_JOINT "Frames: 1\nFrame Time: 0.1\n1 nan\n", OSSA_ERROR_CORRUPT, 10,
                    3, "not a finite number", __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nROOT a\n{\nOFFSET 0 0\nCHANNELS 0\n}\n", OSSA_ERROR_CORRUPT,
                    5, 1, "expected 3 numbers after OFFSET, found 'CHANNELS'", __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 7\n", OSSA_ERROR_CORRUPT, 5,
                    10, "at most 6", __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 2 Xrotation Xrotation\n",
                    OSSA_ERROR_CORRUPT, 5, 22, "listed twice", __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 1 Wrotation\n",
                    OSSA_ERROR_CORRUPT, 5, 12, "expected a channel name", __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\nMOTION\n",
                    OSSA_ERROR_CORRUPT, 6, 1, "expected OFFSET, CHANNELS, JOINT, End Site or '}'",
                    __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nROOT a\n{\nCHANNELS 0\n}\n", OSSA_ERROR_CORRUPT, 5, 1,
                    "has no OFFSET", __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\n", OSSA_ERROR_TRUNCATED, 5, 1,
                    "expected '}' closing 'a' (line 2)", __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nJOINT a\n", OSSA_ERROR_CORRUPT, 2, 1, "expected ROOT",
                    __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nROOT\n{\n", OSSA_ERROR_CORRUPT, 2, 5,
                    "expected a joint name after ROOT", __LINE__);
    tf_expect_error(BVH, "HIERARCHY\nMOTION\n", OSSA_ERROR_CORRUPT, 2, 1, "expected ROOT",
                    __LINE__);
    tf_expect_error(BVH, ONE_JOINT "Frames: -1\n", OSSA_ERROR_CORRUPT, 8, 9,
                    "expected the frame count", __LINE__);
    tf_expect_error(BVH, "HIERARCHX\n", OSSA_ERROR_CORRUPT, 1, 1, "expected 'HIERARCHY'",
                    __LINE__);
    /* a NUL byte in a name (tf_expect_error stops at the first NUL: by hand) */
    static const char nul[] = "HIERARCHY\nROOT a\0b\n{\n";
    ossa_error err;
    ossa_model *m = tf_try(BVH, nul, sizeof nul - 1, NULL, &err);
    assert_null(m);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 7);
    assert_non_null(strstr(err.message, "NUL byte"));
}

/* Frames are refused before memory is taken for them when the poses would
 * pass the decoded-size limit (ossa__decode_limit): no channels, a
 * declared count of 4 billion. */
static void test_limits(void **state)
{
    (void)state;
    tf_expect_error(BVH,
                    "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\n"
                    "Frames: 4000000000\nFrame Time: 0.1\n",
                    OSSA_ERROR_UNSUPPORTED, 8, 1, "more than the limit", __LINE__);
}

/* -- The real files -- */

/* World positions (ossa axes) from tools outside the library: a Python
 * forward kinematics of the file's text (matrices in double). */
static const struct {
    uint32_t frame, joint;
    double x, y, z;
} cmu_points[] = {
    {0, 11, 7.259419, 14.117360, 0.671222},      /* RightToeBase */
    {0, 19, 9.544290, 17.570290, 27.231780},     /* Head_end */
    {0, 23, 21.253942, 17.867140, 22.416721},    /* LeftHand */
    {1000, 11, 6.447339, -45.434784, 1.226148},  /* RightToeBase */
    {1000, 19, 9.148108, -45.770408, 27.316869}, /* Head_end */
    {1000, 23, 13.534383, -45.684960, 15.829681},
    {2751, 11, 7.751689, -39.931548, 1.032291},
    {2751, 19, 8.631326, -38.875759, 27.136541},
    {2751, 23, 12.341979, -43.374072, 16.686661},
}, boxing_points[] = {
    {0, 4, -7.537288, -50.420875, 154.439865},  /* Head */
    {0, 10, -25.033773, -37.677021, 80.481453}, /* LeftWrist_end */
    {0, 24, 19.946193, -46.623883, 1.287897},   /* RightToes */
    {1500, 4, 19.001828, -56.110671, 147.316440},
    {1500, 10, 29.775854, -46.882793, 138.950342},
    {1500, 24, 54.336188, -15.602986, 1.704241},
    {3069, 4, 36.092076, 14.646880, 152.700558},
    {3069, 10, 5.585043, 25.730407, 92.159234},
    {3069, 24, 45.854855, 5.925510, 1.389524},
};

static void test_cmu(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("bvh/01_01.bvh");
    assert_int_equal(m->source_format, OSSA_FORMAT_BVH);
    /* 31 ROOT/JOINT + 7 End Sites (MANIFEST.md) */
    assert_int_equal(m->num_joints, 38);
    assert_int_equal(m->num_animations, 1);
    assert_string_equal(m->animations[0].name, "01_01");
    assert_int_equal(m->animations[0].num_frames, 2752);
    TF_NEAR(m->animations[0].framerate, 120, 0);
    assert_string_equal(m->joints[19].name, "Head_end");
    assert_true(m->flags & OSSA_MODEL_REST_POSE_REFERENCE);
    for (size_t i = 0; i < sizeof cmu_points / sizeof cmu_points[0]; i++) {
        float p[3];
        world_position(m, 0, cmu_points[i].frame, cmu_points[i].joint, p);
        TF_NEAR(p[0], cmu_points[i].x, 2e-5);
        TF_NEAR(p[1], cmu_points[i].y, 2e-5);
        TF_NEAR(p[2], cmu_points[i].z, 2e-5);
    }
    ossa_model_free(m);
    m = tf_load_shared("bvh/01_03.bvh");
    assert_int_equal(m->num_joints, 38);
    assert_int_equal(m->animations[0].num_frames, 4511);
    ossa_model_free(m);
}

static void test_boxing(void **state)
{
    (void)state;
    ossa_model *m = tf_load_shared("bvh/Boxing_Toes.bvh");
    assert_int_equal(m->num_joints, 26); /* 21 joints, 5 End Sites */
    /* declares 3069 frames, holds 3070 lines: every line is read */
    assert_int_equal(m->animations[0].num_frames, 3070);
    TF_NEAR(m->animations[0].framerate, 100, 0);
    assert_non_null(tf_warning(m, OSSA_WARNING_INCONSISTENT, "declares 3069"));
    for (size_t i = 0; i < sizeof boxing_points / sizeof boxing_points[0]; i++) {
        float p[3];
        world_position(m, 0, boxing_points[i].frame, boxing_points[i].joint, p);
        TF_NEAR(p[0], boxing_points[i].x, 1e-4);
        TF_NEAR(p[1], boxing_points[i].y, 1e-4);
        TF_NEAR(p[2], boxing_points[i].z, 1e-4);
    }
    ossa_model_free(m);
}

/* Detection by content and by name. */
static void test_detect(void **state)
{
    (void)state;
    const char text[] = "\xEF\xBB\xBF  hierarchy\r\nROOT a";
    assert_int_equal(ossa_format_detect(text, sizeof text - 1), BVH);
    assert_int_equal(ossa_format_detect("HIERARCHYX", 10), OSSA_FORMAT_AUTO);
    assert_int_equal(ossa_format_from_name("walk.BVH"), BVH);
    assert_string_equal(ossa_format_name(BVH), "bvh");
    assert_true(ossa_format_can_read(BVH) && ossa_format_can_write(BVH));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rotation_orders), cmocka_unit_test(test_channel_orders),
        cmocka_unit_test(test_names),           cmocka_unit_test(test_line_ends),
        cmocka_unit_test(test_frame_rates),     cmocka_unit_test(test_damage_repaired),
        cmocka_unit_test(test_damage_refused),  cmocka_unit_test(test_limits),
        cmocka_unit_test(test_cmu),             cmocka_unit_test(test_boxing),
        cmocka_unit_test(test_detect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
