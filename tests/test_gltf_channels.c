/* glTF animations for players that switch or blend actions (Blender,
 * three.js mixers keep the last value of a channel an action does not
 * key): by default every animation keys every channel that any animation
 * of the file moves, one constant key where it does not move;
 * the option gltf.sparse_channels keeps only what each animation moves.
 * The frame rate is in each animation's extras and read back. */
#include "gltf_test.h"

/* -- The file's channels -- */

/* Bit (node * 3 + path) for each channel of animation `a` of the
 * document (nodes below 20). */
static uint64_t channel_set(const cJSON *root, int a)
{
    const cJSON *an = gt_json_item(root, "animations", a);
    assert_non_null(an);
    uint64_t set = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(an, "channels"))
    {
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(c, "target");
        int node = cJSON_GetObjectItemCaseSensitive(target, "node")->valueint;
        const char *path = cJSON_GetObjectItemCaseSensitive(target, "path")->valuestring;
        int p = strcmp(path, "translation") == 0 ? 0 : strcmp(path, "rotation") == 0 ? 1 : 2;
        assert_true(node < 20);
        set |= 1ull << (node * 3 + p);
    }
    return set;
}

/* Keys of the sampler of channel (node, path) of animation `a`, and its
 * interpolation ("LINEAR" when absent); 0 when the channel is absent. */
static int channel_keys(const cJSON *root, int a, int node, const char *path, const char **interp)
{
    const cJSON *an = gt_json_item(root, "animations", a);
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(an, "channels"))
    {
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(c, "target");
        if (cJSON_GetObjectItemCaseSensitive(target, "node")->valueint != node ||
            strcmp(cJSON_GetObjectItemCaseSensitive(target, "path")->valuestring, path) != 0)
            continue;
        int s = cJSON_GetObjectItemCaseSensitive(c, "sampler")->valueint;
        const cJSON *sampler = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(an, "samplers"), s);
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
        *interp = in ? in->valuestring : "LINEAR";
        int input = cJSON_GetObjectItemCaseSensitive(sampler, "input")->valueint;
        return cJSON_GetObjectItemCaseSensitive(gt_json_item(root, "accessors", input), "count")->valueint;
    }
    return 0;
}

/* Two joints, two animations: "tx" moves the root's translation, "rx"
 * turns the child; the child also has a bind rotation, so a constant key
 * of it is not the identity. */
static ossa_model *two_actions(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    assert_int_equal(ossa_model_add_joint(m, "root", -1, &t, &err), 0);
    t.translation[2] = 1;
    t.rotation[2] = 0.6f, t.rotation[3] = 0.8f;
    assert_int_equal(ossa_model_add_joint(m, "child", 0, &t, &err), 1);
    ossa_animation *tx = ossa_model_add_animation(m, "tx", 4, 24, 0, &err);
    for (uint32_t f = 0; f < 4; f++) tx->frames[f * 2].translation[0] = (float)f;
    uint8_t only_t[2] = {OSSA_CHANNEL_TRANSLATION, 0};
    assert_int_equal(ossa_model_set_animation_channels(m, 0, only_t, &err), OSSA_OK);
    ossa_animation *rx = ossa_model_add_animation(m, "rx", 3, 24, OSSA_ANIMATION_LOOP, &err);
    for (uint32_t f = 0; f < 3; f++) {
        double a = 0.4 * f;
        float *q = rx->frames[f * 2 + 1].rotation;
        q[0] = (float)sin(a / 2), q[1] = 0, q[2] = 0, q[3] = (float)cos(a / 2);
    }
    uint8_t only_r[2] = {0, OSSA_CHANNEL_ROTATION};
    assert_int_equal(ossa_model_set_animation_channels(m, 1, only_r, &err), OSSA_OK);
    return m;
}

static cJSON *written(const ossa_model *m, const char *options, unsigned char **data, size_t *size)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_GLB;
    o.flags = OSSA_WRITE_KEEP_FRONT; /* an IQM compared with its glTF as it is */
    ts_options opts;
    ts_options_parse(&opts, options);
    o.format_options = opts.list;
    o.num_format_options = opts.count;
    *data = ts_write(m, &o, size);
    return gt_json_of(*data, *size);
}

/* -- Tests -- */

static void every_action_keys_every_moved_channel(void **state)
{
    (void)state;
    ossa_model *m = two_actions();
    unsigned char *glb;
    size_t size;
    cJSON *root = written(m, 0, &glb, &size);
    /* nodes 0 and 1 are the joints: root translation (bit 0) and child
     * rotation (bit 4) in both animations */
    uint64_t both = 1ull << 0 | 1ull << (1 * 3 + 1);
    assert_true(channel_set(root, 0) == both);
    assert_true(channel_set(root, 1) == both);
    const char *interp;
    assert_int_equal(channel_keys(root, 0, 0, "translation", &interp), 4);
    assert_string_equal(interp, "LINEAR");
    /* held: one key, LINEAR (raylib 6.0 applies a joint's last channel's
     * interpolation to all of its channels) */
    assert_int_equal(channel_keys(root, 0, 1, "rotation", &interp), 1);
    assert_string_equal(interp, "LINEAR");
    assert_int_equal(channel_keys(root, 1, 0, "translation", &interp), 1);
    assert_string_equal(interp, "LINEAR");
    assert_int_equal(channel_keys(root, 1, 1, "rotation", &interp), 3);
    /* read back: the same frames, and the held channels are not animated */
    ossa_model *b = gt_load_ok(glb, size, OSSA_FORMAT_GLB);
    gt_compare_poses(m, b, 1e-6);
    for (uint32_t a = 0; a < 2; a++) {
        assert_non_null(b->animations[a].channels);
        assert_memory_equal(b->animations[a].channels, m->animations[a].channels, 2);
        for (uint32_t i = 0; i < m->animations[a].num_frames * 2; i++)
            for (int k = 0; k < 10; k++) /* exact (0 and -0 alike) */
                assert_true(ts_channel(&b->animations[a].frames[i], k) ==
                            ts_channel(&m->animations[a].frames[i], k));
    }
    /* and written again: the same channels with the same keys */
    unsigned char *again;
    size_t again_size;
    cJSON *root2 = written(b, 0, &again, &again_size);
    for (int a = 0; a < 2; a++) {
        assert_true(channel_set(root2, a) == both);
        for (int node = 0; node < 2; node++)
            for (int p = 0; p < 2; p++) {
                const char *path = p ? "rotation" : "translation", *i1, *i2;
                assert_int_equal(channel_keys(root2, a, node, path, &i2),
                                 channel_keys(root, a, node, path, &i1));
            }
    }
    cJSON_Delete(root2);
    ossa_free(again, NULL);
    ossa_model_free(b);
    cJSON_Delete(root);
    ossa_free(glb, NULL);
    ossa_model_free(m);
}

/* The constant key holds the bind value of the channel in glTF axes: the
 * child's bind rotation (0, 0, 0.6, 0.8) has the vector part (x, z, -y) =
 * (0, 0.6, -0) there, and w 0.8. */
static void held_key_value(void **state)
{
    (void)state;
    ossa_model *m = two_actions();
    unsigned char *glb;
    size_t size;
    cJSON *root = written(m, 0, &glb, &size);
    const cJSON *an = gt_json_item(root, "animations", 0);
    const cJSON *c;
    bool seen = false;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(an, "channels"))
    {
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(c, "target");
        if (cJSON_GetObjectItemCaseSensitive(target, "node")->valueint != 1) continue;
        int s = cJSON_GetObjectItemCaseSensitive(c, "sampler")->valueint;
        const cJSON *sampler = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(an, "samplers"), s);
        int out = cJSON_GetObjectItemCaseSensitive(sampler, "output")->valueint;
        const cJSON *acc = gt_json_item(root, "accessors", out);
        const cJSON *view = gt_json_item(root, "bufferViews",
                                         cJSON_GetObjectItemCaseSensitive(acc, "bufferView")->valueint);
        const cJSON *off = cJSON_GetObjectItemCaseSensitive(view, "byteOffset");
        size_t at = 20 + ts_le32(glb + 12) + 8 + (off ? (size_t)off->valuedouble : 0);
        float q[4];
        for (int k = 0; k < 4; k++) q[k] = ts_lef32(glb + at + 4 * (size_t)k);
        assert_true(q[0] == 0 && q[1] == 0.6f && q[2] == 0 && q[3] == 0.8f);
        seen = true;
    }
    assert_true(seen);
    cJSON_Delete(root);
    ossa_free(glb, NULL);
    ossa_model_free(m);
}

static void sparse_channels_flag(void **state)
{
    (void)state;
    ossa_model *m = two_actions();
    unsigned char *glb;
    size_t size;
    cJSON *root = written(m, "gltf.sparse_channels", &glb, &size);
    assert_true(channel_set(root, 0) == 1ull << 0);
    assert_true(channel_set(root, 1) == 1ull << (1 * 3 + 1));
    ossa_model *b = gt_load_ok(glb, size, OSSA_FORMAT_GLB);
    gt_compare_poses(m, b, 1e-6);
    ossa_model_free(b);
    cJSON_Delete(root);
    ossa_free(glb, NULL);
    ossa_model_free(m);
}

/* The shared files: every animation of a written file keys one set of
 * channels (test_cube: tx rx sx ... each move one axis of one channel;
 * guy: jump and dance). */
static void shared_files_key_one_set(void **state)
{
    (void)state;
    static const char *const files[] = {"iqe/test_cube.iqe", "iqm/guy.iqm", "gltf/Fox.glb",
                                        "gltf/robot.glb"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        unsigned char *file;
        size_t fsize;
        ossa_model *m = ts_load_shared(files[i], &file, &fsize);
        unsigned char *glb;
        size_t size;
        cJSON *root = written(m, 0, &glb, &size);
        int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "animations"));
        assert_int_equal(n, (int)m->num_animations);
        if (m->num_joints <= 20) { /* the bit set holds 20 nodes */
            uint64_t first = channel_set(root, 0);
            for (int a = 1; a < n; a++)
                if (channel_set(root, a) != first)
                    fail_msg("%s: animation %d keys other channels than animation 0", files[i], a);
        } else {
            int channels0 = cJSON_GetArraySize(
                cJSON_GetObjectItemCaseSensitive(gt_json_item(root, "animations", 0), "channels"));
            for (int a = 1; a < n; a++)
                assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
                                     gt_json_item(root, "animations", a), "channels")),
                                 channels0);
        }
        ossa_model *b = gt_load_ok(glb, size, OSSA_FORMAT_GLB);
        gt_compare_poses(m, b, 1e-5);
        ossa_model_free(b);
        cJSON_Delete(root);
        ossa_free(glb, NULL);
        ossa_model_free(m);
        free(file);
    }
}

/* Each animation's extras hold the frame rate under a plain key. */
static void framerate_in_extras(void **state)
{
    (void)state;
    ossa_model *m = two_actions();
    m->animations[1].framerate = 0; /* unspecified: the 30 the key times use */
    unsigned char *glb;
    size_t size;
    cJSON *root = written(m, 0, &glb, &size);
    for (int a = 0; a < 2; a++) {
        const cJSON *extras = cJSON_GetObjectItemCaseSensitive(gt_json_item(root, "animations", a), "extras");
        const cJSON *rate = cJSON_GetObjectItemCaseSensitive(extras, "framerate");
        assert_true(cJSON_IsNumber(rate));
        assert_true(rate->valuedouble == (a ? 30 : 24));
    }
    cJSON_Delete(root);
    ossa_free(glb, NULL);
    ossa_model_free(m);
}

/* Another tool's file with only the plain key: keys at 0, 0.5 and 1 s fit
 * 2 fps (their own spacing) and 12 fps (the extras): the extras win. */
static void framerate_read_back(void **state)
{
    (void)state;
    float bin[3 + 9] = {0, 0.5f, 1, 0, 0, 0, 1, 0, 0, 2, 0, 0};
    for (int k = 0; k < 2; k++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,"
                 "\"byteLength\":36}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
                 "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
                 "\"nodes\":[{\"name\":\"a\"}],"
                 "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
                 "\"path\":\"translation\"}}],\"samplers\":[{\"input\":0,\"output\":1}]%s}]",
                 k ? ",\"extras\":{\"framerate\":12}" : "");
        char *json = gt_make_gltf(bin, sizeof bin, body);
        ossa_model *m = gt_load_json(json);
        assert_true(m->animations[0].framerate == (k ? 12 : 2));
        assert_int_equal(m->animations[0].num_frames, k ? 13 : 3);
        /* at 12 fps, frame 3 is t = 0.25: halfway from x = 0 to 1 */
        if (k) TS_ASSERT_NEAR(m->animations[0].frames[3].translation[0], 0.5, 1e-6);
        ossa_model_free(m);
        free(json);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_action_keys_every_moved_channel),
        cmocka_unit_test(held_key_value),
        cmocka_unit_test(sparse_channels_flag),
        cmocka_unit_test(shared_files_key_one_set),
        cmocka_unit_test(framerate_in_extras),
        cmocka_unit_test(framerate_read_back),
    };
    return cmocka_run_group_tests_name("gltf_channels", tests, NULL, NULL);
}
