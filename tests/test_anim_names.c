/* Animation names, frame rates and loop flags read back from what every
 * writer of several animations wrote (IQM, IQE, glTF, FBX, MD5, SMD,
 * illEngine): SMD, MD5 and ILLANIM0 have no field for some of them and
 * keep them in a line of text ossa's readers recognise (text.h's animation
 * tag: an SMD comment, the MD5 command line, text after the last ILLANIM0
 * frame). Files from elsewhere, without that line, keep being named after
 * the file. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct written {
    int count;
    char paths[12][512];
} written;

static void on_wrote(void *user, const char *path)
{
    written *w = user;
    if (w->count < 12) snprintf(w->paths[w->count++], sizeof w->paths[0], "%s", path);
}

/* Writes tmp/NAME and loads every file written, merged in order. */
static ossa_model *through(const ossa_model *m, const char *name)
{
    char *path = ts_tmp_path(name);
    written w = {0};
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.wrote = on_wrote;
    wo.user = &w;
    ossa_error err;
    if (ossa_write_file(m, path, &wo, &err) != OSSA_OK) fail_msg("%s: %s", name, err.message);
    ossa_model *back = ossa_load_file(w.paths[0], NULL, &err);
    if (!back) fail_msg("%s: %s", w.paths[0], err.message);
    for (int i = 1; i < w.count; i++) {
        /* a glTF buffer, the images written beside (Fox's texture) */
        if (strstr(w.paths[i], ".bin") || strstr(w.paths[i], ".png")) continue;
        ossa_model *a = ossa_load_file(w.paths[i], NULL, &err);
        if (!a) fail_msg("%s: %s", w.paths[i], err.message);
        assert_int_equal(ossa_model_merge(back, a, &err), OSSA_OK);
        ossa_model_free(a);
    }
    for (int i = 0; i < w.count; i++) unlink(w.paths[i]);
    free(path);
    return back;
}

static const struct {
    const char *name;
    float fps;
    uint32_t flags, frames;
} anims[] = {
    {"Walk", 24, OSSA_ANIMATION_LOOP, 3},
    {"Survey", 30, 0, 2},
    {"run fast", 12.5f, OSSA_ANIMATION_LOOP, 4},
};

/* A joint that turns, on a triangle, and the three animations above. */
static ossa_model *model(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform up = ossa_transform_identity();
    up.translation[2] = 1;
    ossa_model_add_joint(m, "root", -1, NULL, &err);
    ossa_model_add_joint(m, "arm", 0, &up, &err);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 0, 1};
    static const float idx[12] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
    static const float wgt[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    ossa_model_set_num_vertices(m, 3, &err);
    ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, "", idx, &err);
    ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, "", wgt, &err);
    ossa_triangle t = {{0, 1, 2}};
    ossa_model_set_triangles(m, 1, &t, &err);
    ossa_model_add_mesh(m, "body", "", 0, 3, 0, 1, &err);
    for (size_t i = 0; i < sizeof anims / sizeof anims[0]; i++) {
        ossa_animation *a =
            ossa_model_add_animation(m, anims[i].name, anims[i].frames, anims[i].fps, anims[i].flags, &err);
        assert_non_null(a);
        for (uint32_t f = 0; f < anims[i].frames; f++) {
            float angle = 0.25f * (float)(f + i);
            a->frames[2 * f + 1].rotation[0] = sinf(angle / 2);
            a->frames[2 * f + 1].rotation[3] = cosf(angle / 2);
        }
    }
    return m;
}

static void check(const ossa_model *b, const char *format)
{
    if (b->num_animations != 3) fail_msg("%s: %u animations", format, b->num_animations);
    for (uint32_t i = 0; i < 3; i++) {
        int32_t k = ossa_model_find_animation(b, anims[i].name);
        if (k < 0) fail_msg("%s: no animation '%s' (the first is '%s')", format, anims[i].name,
                            b->animations[0].name);
        const ossa_animation *a = &b->animations[k];
        if ((a->flags & OSSA_ANIMATION_LOOP) != anims[i].flags)
            fail_msg("%s: '%s' loop flag %u", format, anims[i].name, a->flags);
        if (a->framerate != anims[i].fps)
            fail_msg("%s: '%s' at %g fps", format, anims[i].name, (double)a->framerate);
        if (a->num_frames != anims[i].frames)
            fail_msg("%s: '%s' has %u frames", format, anims[i].name, a->num_frames);
    }
}

static void test_every_writer(void **state)
{
    (void)state;
    ossa_model *m = model();
    static const char *const files[] = {"names.iqm", "names.iqe",     "names.glb",
                                        "names.gltf", "names.fbx",    "names.md5mesh",
                                        "names.smd",  "names.illmesh"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        ossa_model *b = through(m, files[i]);
        check(b, files[i]);
        ossa_model_free(b);
    }
    ossa_model_free(m);
}

/* The lines themselves, and files from elsewhere. */
static void test_tag_lines(void **state)
{
    (void)state;
    ossa_model *m = model();
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.animation = 2;
    void *data;
    size_t size;
    ossa_error err;
    o.format = OSSA_FORMAT_MD5ANIM;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    assert_non_null(strstr((const char *)data, "commandline \"ossa --fps 12.5 --loop --name run fast\"\n"));
    ossa_free(data, NULL);
    o.format = OSSA_FORMAT_ILLANIM;
    o.animation = 1;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    assert_true(size > 20 && memcmp((const char *)data + size - 20, "\nossa --name Survey\n", 20) == 0);
    ossa_free(data, NULL);

    /* an SMD sequence file from elsewhere: named after the file, 30 fps,
     * once; with ossa's comment: as the comment says */
    static const char plain[] = "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n"
                                "0 0 0 0 0 0 0\ntime 1\n0 1 0 0 0 0 0\nend\n";
    static const char tagged[] = "version 1\n// ossa --fps 24 --loop --name Walk Left\nnodes\n"
                                 "0 \"root\" -1\nend\nskeleton\ntime 0\n0 0 0 0 0 0 0\ntime 1\n"
                                 "0 1 0 0 0 0 0\nend\n";
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = "anims/x.Walk.smd";
    ossa_model *a = ossa_load_memory(plain, sizeof plain - 1, &lo, &err);
    assert_non_null(a);
    assert_string_equal(a->animations[0].name, "x.Walk");
    assert_true(a->animations[0].framerate == 30 && a->animations[0].flags == 0);
    ossa_model_free(a);
    a = ossa_load_memory(tagged, sizeof tagged - 1, &lo, &err);
    assert_non_null(a);
    assert_string_equal(a->animations[0].name, "Walk Left");
    assert_true(a->animations[0].framerate == 24 && a->animations[0].flags == OSSA_ANIMATION_LOOP);
    ossa_model_free(a);
    /* the load options' rate wins over the comment's */
    lo.framerate = 10;
    a = ossa_load_memory(tagged, sizeof tagged - 1, &lo, &err);
    assert_true(a->animations[0].framerate == 10);
    ossa_model_free(a);

    /* an md5anim that says --loop but does not end with frame 0 (edited
     * by hand): looping, every frame kept */
    static const char md5[] =
        "MD5Version 10\ncommandline \"ossa --loop --name idle\"\n\nnumFrames 2\nnumJoints 1\n"
        "frameRate 24\nnumAnimatedComponents 1\n\nhierarchy {\n\t\"root\"\t-1 1 0\n}\n\n"
        "bounds {\n\t( 0 0 0 ) ( 1 1 1 )\n\t( 0 0 0 ) ( 1 1 1 )\n}\n\nbaseframe {\n"
        "\t( 0 0 0 ) ( 0 0 0 )\n}\n\nframe 0 {\n\t0\n}\n\nframe 1 {\n\t1\n}\n";
    lo.framerate = 0;
    lo.file_name = "a.md5anim";
    a = ossa_load_memory(md5, sizeof md5 - 1, &lo, &err);
    assert_non_null(a);
    assert_string_equal(a->animations[0].name, "idle");
    assert_int_equal(a->animations[0].num_frames, 2);
    assert_int_equal(a->animations[0].flags, OSSA_ANIMATION_LOOP);
    ossa_model_free(a);
    ossa_model_free(m);
}

/* Fox.glb's "Survey" through illEngine and SMD files: the name, 24 fps and
 * the loop flag (off) come back, as they did not ("fox", looping). */
static void test_fox(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("gltf/Fox.glb", &file, &size);
    static const char *const files[] = {"fox.illmesh", "fox.smd", "fox.md5mesh"};
    for (int i = 0; i < 3; i++) {
        ossa_model *b = through(m, files[i]);
        assert_int_equal(b->num_animations, m->num_animations);
        for (uint32_t a = 0; a < m->num_animations; a++) {
            int32_t k = ossa_model_find_animation(b, m->animations[a].name);
            if (k < 0) fail_msg("%s: '%s' is missing", files[i], m->animations[a].name);
            assert_int_equal(b->animations[k].flags, m->animations[a].flags);
            assert_true(b->animations[k].framerate == m->animations[a].framerate);
            assert_int_equal(b->animations[k].num_frames, m->animations[a].num_frames);
        }
        ossa_model_free(b);
    }
    ossa_model_free(m);
    free(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_writer),
        cmocka_unit_test(test_tag_lines),
        cmocka_unit_test(test_fox),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
