/* glTF 2.0: malformed JSON and GLB (errors with JSON paths, line and
 * column, byte offsets) and a GLB cut at every byte. */
#include "gltf_test.h"

static void malformed_json(void **state)
{
    (void)state;
    gt_expect_error("", OSSA_ERROR_FORMAT, "JSON");
    gt_expect_error("{\"asset\":", OSSA_ERROR_FORMAT, "ends early");
    gt_expect_error("[1,2]", OSSA_ERROR_FORMAT, "not an object");
    gt_expect_error("{\"asset\":{}} x", OSSA_ERROR_FORMAT, "after the end");
    gt_expect_error("{\"x\":1}", OSSA_ERROR_FORMAT, "asset");
    gt_expect_error("{\"asset\":{}}", OSSA_ERROR_FORMAT, "asset.version");
    gt_expect_error("{\"asset\":{\"version\":\"1.0\"}}", OSSA_ERROR_UNSUPPORTED, "asset.version");
    gt_expect_error("{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"KHR_draco_mesh_compression\"]}",
                 OSSA_ERROR_UNSUPPORTED, "KHR_draco_mesh_compression");
    gt_expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":{}}", OSSA_ERROR_CORRUPT, "nodes: expected an array");
    gt_expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{\"children\":[0]}]}",
                 OSSA_ERROR_CORRUPT, "loop");
    gt_expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[2]},{\"children\":[2]},{}]}",
                 OSSA_ERROR_CORRUPT, "nodes[1].children[0]: node 2 already has the parent 0");
    gt_expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":3}]}", OSSA_ERROR_CORRUPT,
                 "nodes[0].mesh: mesh 3 does not exist");
    gt_expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"rotation\":[0,0,1]}]}",
                 OSSA_ERROR_CORRUPT, "nodes[0].rotation");
    gt_expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"skins\":[{\"joints\":[4]}]}",
                 OSSA_ERROR_CORRUPT, "skins[0].joints[0]");
    gt_expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
                 "\"data:application/octet-stream;base64,AA!A\"}],\"bufferViews\":[{\"buffer\":0,"
                 "\"byteLength\":4}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
                 "\"count\":1,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                 "{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}",
                 OSSA_ERROR_CORRUPT, "buffers[0].uri: invalid base64");
    /* accessors: a table of broken ones on a valid 12-byte buffer */
    static const struct {
        const char *accessor, *message;
    } acc[] = {
        {"{\"bufferView\":0,\"componentType\":5127,\"count\":1,\"type\":\"VEC3\"}", "accessors[0].componentType"},
        {"{\"bufferView\":0,\"componentType\":5126,\"count\":0,\"type\":\"VEC3\"}", "accessors[0].count"},
        {"{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC5\"}", "accessors[0].type"},
        {"{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}", "accessors[0]: 2 elements"},
        {"{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}", "accessors[0].bufferView"},
        {"{\"bufferView\":0,\"componentType\":5126,\"normalized\":true,\"count\":1,\"type\":\"VEC3\"}",
         "accessors[0].normalized"},
        {"{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC2\"}", "expected a VEC3"},
    };
    for (size_t i = 0; i < sizeof acc / sizeof acc[0]; i++) {
        float pos[3] = {0, 0, 0};
        char body[1024];
        snprintf(body, sizeof body,
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],\"accessors\":[%s],"
                 "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]",
                 acc[i].accessor);
        char *json = gt_make_gltf(pos, sizeof pos, body);
        gt_expect_error(json, OSSA_ERROR_CORRUPT, acc[i].message);
        free(json);
    }
    /* a view past its buffer; keys that go backwards */
    {
        float pos[3] = {0, 0, 0};
        char *json = gt_make_gltf(pos, sizeof pos,
                               "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":4,\"byteLength\":12}],"
                               "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,"
                               "\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                               "{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]");
        gt_expect_error(json, OSSA_ERROR_CORRUPT, "bufferViews[0]: bytes 4..16 are outside buffer 0");
        free(json);
        float keys[3] = {0, 1, 0.5f};
        json = gt_make_gltf(keys, sizeof keys,
                         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
                         "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
                         "\"type\":\"SCALAR\"},{\"bufferView\":0,\"componentType\":5126,\"count\":1,"
                         "\"type\":\"VEC3\"}],\"nodes\":[{}],\"animations\":[{\"channels\":[{\"sampler\":0,"
                         "\"target\":{\"node\":0,\"path\":\"translation\"}}],\"samplers\":[{\"input\":0,"
                         "\"output\":1}]}]");
        gt_expect_error(json, OSSA_ERROR_CORRUPT, "animations[0].samplers[0].input: key times must increase");
        free(json);
    }
    /* text formats report line and column */
    ossa_error err;
    assert_null(gt_load_mem("{\n  \"asset\": {,}\n}", 18, OSSA_FORMAT_GLTF, "x.gltf", &err));
    assert_int_equal(err.line, 2);
}

/* GLB structure errors carry byte offsets. */
static void malformed_glb(void **state)
{
    (void)state;
    ossa_model *a = gt_build_full_model();
    size_t size;
    unsigned char *glb = gt_write_as(a, OSSA_FORMAT_GLB, &size);
    unsigned char *bad = malloc(size);
    ossa_error err;
    memcpy(bad, glb, size);
    ts_put32(bad + 4, 1);
    assert_null(gt_load_mem(bad, size, OSSA_FORMAT_GLB, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_int_equal(err.offset, 4);
    memcpy(bad, glb, size);
    ts_put32(bad + 16, 0x12345678); /* first chunk not JSON */
    assert_null(gt_load_mem(bad, size, OSSA_FORMAT_GLB, NULL, &err));
    assert_int_equal(err.offset, 16);
    memcpy(bad, glb, size);
    ts_put32(bad + 12, (uint32_t)size); /* JSON chunk longer than the file */
    assert_null(gt_load_mem(bad, size, OSSA_FORMAT_GLB, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_TRUNCATED);
    assert_int_equal(err.offset, 12);
    free(bad);
    ossa_free(glb, NULL);
    ossa_model_free(a);
}

/* Every shorter prefix of a GLB fails cleanly (no crash under ASan, an
 * error of a structural kind). */
/* A .glb without the magic is not parsed as JSON: empty, text, JSON and
 * other bytes each get a message about the missing magic at byte 0 (a
 * .gltf keeps its JSON messages). */
static void glb_without_magic(void **state)
{
    (void)state;
    static const struct {
        const char *data;
        size_t size;
        const char *message;
    } cases[] = {
        {"", 0, "the file is empty: a .glb starts with the GLB magic \"glTF\""},
        {"hello, world\n", 13, "no GLB magic: a .glb starts with \"glTF\", this file holds text"},
        {"  {\"nodes\": []}", 15, "holds text (JSON: a .gltf file?)"},
        {"\x00\x01\x02\x03\x04", 5, "expected \"glTF\" (67 6C 54 46) at byte 0, found 00 01 02 03"},
        {"\xff\xfe", 2, "found FF FE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ossa_error err;
        /* by extension, as the CLI loads a file, and forced */
        for (int forced = 0; forced < 2; forced++) {
            ossa_model *m = gt_load_mem(cases[i].data, cases[i].size,
                                        forced ? OSSA_FORMAT_GLB : OSSA_FORMAT_AUTO, "x.glb", &err);
            if (m) fail_msg("case %zu loaded", i);
            if (err.code != OSSA_ERROR_FORMAT || !strstr(err.message, cases[i].message))
                fail_msg("case %zu: %s '%s'", i, ossa_code_name(err.code), err.message);
            assert_int_equal(err.offset, 0);
            assert_string_equal(err.file, "x.glb");
        }
    }
    /* a glTF document saved as .glb is found by its content */
    ossa_error err;
    const char *json = "{\"asset\":{\"version\":\"2.0\"}}";
    ossa_model *m = gt_load_mem(json, strlen(json), OSSA_FORMAT_AUTO, "x.glb", &err);
    assert_non_null(m);
    assert_int_equal(m->source_format, OSSA_FORMAT_GLTF);
    ossa_model_free(m);
    /* the same empty file as .gltf: the JSON message */
    assert_null(gt_load_mem("", 0, OSSA_FORMAT_AUTO, "x.gltf", &err));
    assert_non_null(strstr(err.message, "JSON"));
}

static void glb_truncation(void **state)
{
    (void)state;
    ossa_model *a = gt_build_full_model();
    size_t size;
    unsigned char *glb = gt_write_as(a, OSSA_FORMAT_GLB, &size);
    for (size_t n = 0; n < size; n++) {
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, glb, n);
        ossa_error err;
        ossa_model *m = gt_load_mem(cut, n, OSSA_FORMAT_GLB, NULL, &err);
        if (m) fail_msg("a GLB cut to %zu of %zu bytes loaded", n, size);
        assert_true(err.code == OSSA_ERROR_TRUNCATED || err.code == OSSA_ERROR_CORRUPT ||
                    err.code == OSSA_ERROR_FORMAT);
        free(cut);
    }
    ossa_model *whole = gt_load_ok(glb, size, OSSA_FORMAT_AUTO);
    assert_int_equal(whole->source_format, OSSA_FORMAT_GLB);
    ossa_model_free(whole);
    ossa_free(glb, NULL);
    ossa_model_free(a);
}

/* Base64 in a data URI (RFC 4648, padding optional, nothing else allowed):
 * the error names the character of the URI where the data stops being
 * base64; the prefix "data:application/octet-stream;base64," is 37
 * characters. Base64 that does not decode in the root extras drops that
 * extra with a warning. */
static void base64_in_json(void **state)
{
    (void)state;
    static const struct {
        const char *data, *message;
    } bad[] = {
        {"AA!A", "buffers[0].uri: invalid base64 at character 39 of the data"},
        {"AA=A", "buffers[0].uri: invalid base64 at character 39 of the data"},
        {"AA AAAAAAAAAAAAAA", "buffers[0].uri: invalid base64 at character 39 of the data"},
        {"AAAAAAAAAAAAAAAA\n", "buffers[0].uri: invalid base64 at character 53 of the data"},
        /* 17 characters: the last one holds 6 bits, which make no byte */
        {"AAAAAAAAAAAAAAAAA", "buffers[0].uri: invalid base64 at character 53 of the data"},
        /* two '=' are padding, a third is not */
        {"AAAAAAAAAAAAAAAA===", "buffers[0].uri: invalid base64 at character 53 of the data"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":12,\"uri\":"
                 "\"data:application/octet-stream;base64,%s\"}],\"bufferViews\":[{\"buffer\":0,"
                 "\"byteLength\":12}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
                 "\"count\":1,\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                 "{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}",
                 bad[i].data);
        gt_expect_error(json, OSSA_ERROR_CORRUPT, bad[i].message);
    }
    /* Unpadded: 18 characters are 13 bytes (108 bits), here the floats
     * 1, 2, 3 and a zero byte (Python: base64.b64encode(struct.pack(
     * "<3fx", 1, 2, 3)) is "AACAPwAAAEAAAEBAAA==") */
    const char *ok = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":13,\"uri\":"
                     "\"data:application/octet-stream;base64,AACAPwAAAEAAAEBAAA\"}],\"bufferViews\":"
                     "[{\"buffer\":0,\"byteLength\":12}],\"accessors\":[{\"bufferView\":0,"
                     "\"componentType\":5126,\"count\":1,\"type\":\"VEC3\",\"min\":[1,2,3],"
                     "\"max\":[1,2,3]}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                     "{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]}";
    ossa_model *m = gt_load_json(ok);
    assert_int_equal(m->num_vertices, 1);
    float p[3];
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), 0, 1, p);
    /* glTF's +Y up is the model's +Z: (x, y, z) -> (x, -z, y) */
    assert_true(p[0] == 1 && p[1] == -3 && p[2] == 2);
    ossa_model_free(m);
    /* root extras: "AQID" is 01 02 03; "AQ!D" is dropped with a warning */
    m = gt_load_json("{\"asset\":{\"version\":\"2.0\"},\"extras\":{\"ossa\":{\"extras\":["
                     "{\"key\":\"iqm.extension:a\",\"data\":\"AQID\"},"
                     "{\"key\":\"iqm.extension:b\",\"data\":\"AQ!D\"}]}}}");
    assert_int_equal(m->num_extras, 1);
    assert_string_equal(m->extras[0].key, "iqm.extension:a");
    assert_int_equal(m->extras[0].size, 3);
    assert_memory_equal(m->extras[0].data, "\x01\x02\x03", 3);
    bool warned = false;
    for (uint32_t i = 0; i < m->num_warnings; i++)
        warned |= m->warnings[i].code == OSSA_WARNING_DROPPED &&
                  strstr(m->warnings[i].message,
                         "extras.ossa.extras: 'iqm.extension:b' is not base64: dropped") != NULL;
    assert_true(warned);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(malformed_json),
        cmocka_unit_test(malformed_glb),
        cmocka_unit_test(glb_truncation),
        cmocka_unit_test(glb_without_magic),
        cmocka_unit_test(base64_in_json),
    };
    return cmocka_run_group_tests_name("gltf_malformed", tests, NULL, NULL);
}
