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
    /* 8 influences: read back as 4 unless asked for more */
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

/* Element `i` of accessor `acc` of a .glb: where it starts in the BIN
 * chunk (bufferView and accessor offsets, the view's stride or `size`). */
static const unsigned char *glb_element(const cJSON *root, const unsigned char *bin, int acc,
                                        uint32_t i, size_t size)
{
    const cJSON *a = gt_json_item(root, "accessors", acc);
    assert_non_null(a);
    const cJSON *view = gt_json_item(
        root, "bufferViews", cJSON_GetObjectItemCaseSensitive(a, "bufferView")->valueint);
    assert_non_null(view);
    const cJSON *vo = cJSON_GetObjectItemCaseSensitive(view, "byteOffset");
    const cJSON *ao = cJSON_GetObjectItemCaseSensitive(a, "byteOffset");
    const cJSON *stride = cJSON_GetObjectItemCaseSensitive(view, "byteStride");
    size_t at = (size_t)(vo ? vo->valueint : 0) + (size_t)(ao ? ao->valueint : 0);
    return bin + at + (size_t)i * (stride ? (size_t)stride->valueint : size);
}

/* Index i of an index accessor (componentType 5121, 5123 or 5125). */
static uint32_t glb_index(const cJSON *root, const unsigned char *bin, int acc, uint32_t i)
{
    int type = cJSON_GetObjectItemCaseSensitive(gt_json_item(root, "accessors", acc),
                                                "componentType")->valueint;
    size_t size = type == 5121 ? 1 : type == 5123 ? 2 : 4;
    const unsigned char *p = glb_element(root, bin, acc, i, size);
    return size == 1 ? p[0] : size == 2 ? ts_le16(p) : ts_le32(p);
}

/* Element i of a float VEC3 accessor. */
static void glb_vec3(const cJSON *root, const unsigned char *bin, int acc, uint32_t i, float out[3])
{
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(gt_json_item(root, "accessors", acc),
                                                      "componentType")->valueint,
                     5126);
    const unsigned char *p = glb_element(root, bin, acc, i, 12);
    for (int k = 0; k < 3; k++) out[k] = ts_lef32(p + 4 * k);
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
    free(json);
    /* triangle (0, 1, 2) is written (0, 2, 1), found through the accessors
     * of the first primitive (mesh "front", vertices 0-3). */
    cJSON *root = gt_json_of(glb, size);
    const unsigned char *bin = glb + 20 + jlen + 8; /* the BIN chunk's data */
    const cJSON *prim = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(gt_json_item(root, "meshes", 0), "primitives"), 0);
    const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
    uint32_t tri[3];
    for (uint32_t k = 0; k < 3; k++)
        tri[k] = glb_index(root, bin, cJSON_GetObjectItemCaseSensitive(prim, "indices")->valueint, k);
    assert_int_equal(tri[0], 0);
    assert_int_equal(tri[1], 2);
    assert_int_equal(tri[2], 1);
    /* Its corners, by hand: ossa (0, 0, 0), (1, 0, 0), (0, 1, 0), normal
     * (0, 0, 1) each; in glTF, (x, z, -y): (0, 0, -0), (1, 0, 0),
     * (0, 0, -1), normal (0, 1, 0). */
    float p[3][3], n[3];
    for (int k = 0; k < 3; k++)
        glb_vec3(root, bin, cJSON_GetObjectItemCaseSensitive(attrs, "POSITION")->valueint, tri[k], p[k]);
    glb_vec3(root, bin, cJSON_GetObjectItemCaseSensitive(attrs, "NORMAL")->valueint, tri[0], n);
    static const float want_p[3][3] = {{0, 0, 0}, {0, 0, -1}, {1, 0, 0}}; /* in file order */
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++) assert_true(p[k][c] == want_p[k][c]);
    assert_true(n[0] == 0 && n[1] == 1 && n[2] == 0);
    /* The front face in ossa (clockwise, docs/formats/gltf.md §1) is
     * -(v1 - v0) x (v2 - v0) = -(1,0,0) x (0,1,0) = (0, 0, -1): the side
     * opposite its normal; in glTF (0, -1, 0). glTF's front face
     * (counter-clockwise) of the corners in file order,
     * (p1 - p0) x (p2 - p0) = (0,0,-1) x (1,0,0) = (0, -1, 0): the same
     * side, still opposite the written normal. */
    double e1[3], e2[3], front[3];
    for (int c = 0; c < 3; c++) e1[c] = p[1][c] - p[0][c], e2[c] = p[2][c] - p[0][c];
    front[0] = e1[1] * e2[2] - e1[2] * e2[1];
    front[1] = e1[2] * e2[0] - e1[0] * e2[2];
    front[2] = e1[0] * e2[1] - e1[1] * e2[0];
    assert_true(front[0] == 0 && front[1] == -1 && front[2] == 0);
    assert_true(front[0] * n[0] + front[1] * n[1] + front[2] * n[2] == -1);
    cJSON_Delete(root);
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
 * through IQM); the glTF written from the IQM model then loads exactly as
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
        gt_compare_rest(a, g);
        ossa_model_free(g);
        /* via IQM, which holds one pose: the model as it rests (the same
         * model without a rest pose) */
        assert_int_equal(ossa_model_apply_rest_pose(a, NULL), OSSA_OK);
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
    /* Fox's animations: 24 fps keys (Survey, Walk); Run's keys are at 24
     * fps up to its 17th, then 0.8 frame later: a 120 fps grid, on which
     * it keeps every key and its 1.1583 s (139 / 120; the last key is
     * 27.8 / 24 s). */
    unsigned char *file;
    size_t size;
    ossa_model *fox = ts_load_shared("gltf/Fox.glb", &file, &size);
    assert_string_equal(fox->animations[0].name, "Survey");
    assert_true(fox->animations[0].framerate == 24);
    assert_int_equal(fox->animations[0].num_frames, 83);
    assert_string_equal(fox->animations[0].sampling, "keys at 24 fps");
    assert_string_equal(fox->animations[2].name, "Run");
    assert_true(fox->animations[2].framerate == 120);
    assert_int_equal(fox->animations[2].num_frames, 140);
    assert_string_equal(fox->animations[2].sampling, "keys on a 120 fps grid");
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
