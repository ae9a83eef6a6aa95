/* Helpers shared by the glTF tests (tests/test_gltf*.c): loading and
 * writing through a format, the Khronos validator when it is installed,
 * model comparisons (poses in model space, meshes, IQM's quantization), a
 * model with every kind of data and hand-made .gltf documents with one
 * base64 buffer. Header-only: each test is one executable. */
#ifndef OSSA_GLTF_TEST_H
#define OSSA_GLTF_TEST_H

#include "support.h"

#include "formats/gltf/gltf.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* -- Loading and writing -- */

static inline ossa_model *gt_load_mem(const void *data, size_t size, ossa_format format, const char *name,
                            ossa_error *err)
{
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.file_name = name;
    o.max_influences = 8; /* as many as the file has */
    memset(err, 0, sizeof *err);
    return ossa_load_memory(data, size, &o, err);
}

static inline ossa_model *gt_load_ok(const void *data, size_t size, ossa_format format)
{
    ossa_error err;
    ossa_model *m = gt_load_mem(data, size, format, NULL, &err);
    if (!m) print_error("load failed: %s: %s\n", ossa_code_name(err.code), err.message);
    assert_non_null(m);
    return m;
}

/* Written facing where the model faces: the glTF tests compare what each
 * format keeps (turning to a format's front: test_front.c). */
static inline unsigned char *gt_write_as(const ossa_model *m, ossa_format format, size_t *size)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.flags = OSSA_WRITE_KEEP_FRONT;
    return ts_write(m, &o, size);
}

/* Writes and reads back through `format`. */
static inline ossa_model *gt_through(const ossa_model *m, ossa_format format)
{
    size_t size;
    unsigned char *data = gt_write_as(m, format, &size);
    ossa_model *back = gt_load_ok(data, size, format);
    ossa_free(data, NULL);
    return back;
}

/* The JSON document of a .gltf or .glb file, parsed (cJSON_Delete it). */
static inline cJSON *gt_json_of(const unsigned char *data, size_t size)
{
    cJSON *root;
    if (size >= 20 && memcmp(data, "glTF", 4) == 0)
        root = cJSON_ParseWithLength((const char *)data + 20, ts_le32(data + 12));
    else
        root = cJSON_ParseWithLength((const char *)data, size);
    assert_non_null(root);
    return root;
}

/* root[key][index] (an object of a top-level array), or NULL. */
static inline cJSON *gt_json_item(const cJSON *root, const char *key, int index)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, key), index);
}

/* -- The Khronos validator, when installed (make deps-node) -- */

static inline bool gt_validator_available(void)
{
    const char *js = getenv("OSSA_GLTF_VALIDATE_JS"), *mods = getenv("OSSA_GLTF_VALIDATOR");
    if (!js || !mods) return false;
    char *pkg = ts_path_join(mods, "gltf-validator/package.json");
    struct stat st;
    bool ok = stat(pkg, &st) == 0 && system("command -v node >/dev/null 2>&1") == 0;
    free(pkg);
    return ok;
}

/* Runs the validator on `path`; fails the test on any error or warning. */
static inline void gt_validate_file(const char *path)
{
    static int announced;
    if (!gt_validator_available()) {
        if (!announced++) printf("SKIP: gltf-validator not installed; exports not validated\n");
        return;
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "node '%s' --validator '%s' '%s' | grep -v ': 0 errors, 0 warnings'",
             getenv("OSSA_GLTF_VALIDATE_JS"), getenv("OSSA_GLTF_VALIDATOR"), path);
    char check[4200];
    snprintf(check, sizeof check, "node '%s' --validator '%s' '%s' >/dev/null 2>&1",
             getenv("OSSA_GLTF_VALIDATE_JS"), getenv("OSSA_GLTF_VALIDATOR"), path);
    int rc = system(check);
    if (rc != 0) {
        if (system(cmd)) {
        }
        fail_msg("the glTF validator rejects %s", path);
    }
}

/* A 1x1 PNG, for a material named after its texture file. */
static const unsigned char gt_tiny_png[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};

/* Writes `m` as NAME.glb, NAME.gltf (+ .bin) and NAME_embedded.gltf in the
 * test directory, validates all three and checks they load back. The
 * texture the full model names (skin.png) is put beside them, as an
 * exporter's user would. */
static inline void gt_export_and_validate(const ossa_model *m, const char *name)
{
    static const struct {
        const char *suffix;
        ossa_format format;
        uint32_t num_options;
    } kinds[] = {{".glb", OSSA_FORMAT_GLB, 0},
                 {".gltf", OSSA_FORMAT_GLTF, 0},
                 {"_embedded.gltf", OSSA_FORMAT_GLTF, 1}};
    static const ossa_option embed = {"gltf.embed", "on"};
    char *png = ts_tmp_path("skin.png");
    FILE *f = fopen(png, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(gt_tiny_png, 1, sizeof gt_tiny_png, f), sizeof gt_tiny_png);
    fclose(f);
    free(png);
    for (size_t k = 0; k < 3; k++) {
        char file[256];
        snprintf(file, sizeof file, "gltf_%s%s", name, kinds[k].suffix);
        char *path = ts_tmp_path(file);
        ossa_write_options o;
        memset(&o, 0, sizeof o);
        o.format = kinds[k].format;
        o.format_options = &embed;
        o.num_format_options = kinds[k].num_options;
        ossa_error err;
        ossa_status st = ossa_write_file(m, path, &o, &err);
        if (st) print_error("%s: %s\n", path, err.message);
        assert_int_equal(st, OSSA_OK);
        ossa_model *back = ossa_load_file(path, NULL, &err);
        if (!back) print_error("%s: %s\n", path, err.message);
        assert_non_null(back);
        ossa_model_free(back);
        gt_validate_file(path);
        free(path);
    }
}

/* -- Model comparison -- */

static inline void gt_assert_matrices_near(const float *a, const float *b, double tol, const char *what,
                                 uint32_t frame, uint32_t joint)
{
    for (int k = 0; k < 16; k++) {
        double d = fabs((double)a[k] - b[k]), scale = fmax(1.0, fabs((double)a[k]));
        if (d > tol * scale)
            fail_msg("%s, frame %u, joint %u, element %d: %.9g vs %.9g (tolerance %g)", what, frame,
                     joint, k, (double)a[k], (double)b[k], tol);
    }
}

static inline void gt_compare_poses(const ossa_model *a, const ossa_model *b, double tol)
{
    assert_int_equal(a->num_joints, b->num_joints);
    uint32_t J = a->num_joints;
    for (uint32_t j = 0; j < J; j++) {
        assert_string_equal(a->joints[j].name, b->joints[j].name);
        assert_int_equal(a->joints[j].parent, b->joints[j].parent);
    }
    float(*ma)[16] = calloc(J + 1, sizeof *ma), (*mb)[16] = calloc(J + 1, sizeof *mb);
    ossa_transform *ta = calloc(J + 1, sizeof *ta), *tb = calloc(J + 1, sizeof *tb);
    for (uint32_t j = 0; j < J; j++) ta[j] = a->joints[j].bind, tb[j] = b->joints[j].bind;
    ossa_local_to_model(a, ta, ma);
    ossa_local_to_model(b, tb, mb);
    for (uint32_t j = 0; j < J; j++) gt_assert_matrices_near(ma[j], mb[j], tol, "bind pose", 0, j);
    assert_int_equal(a->num_animations, b->num_animations);
    for (uint32_t i = 0; i < a->num_animations; i++) {
        const ossa_animation *x = &a->animations[i], *y = &b->animations[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->num_frames, y->num_frames);
        assert_true(x->framerate == y->framerate);
        assert_int_equal(x->flags, y->flags);
        for (uint32_t f = 0; f < x->num_frames; f++) {
            ossa_local_to_model(a, x->frames + (size_t)f * J, ma);
            ossa_local_to_model(b, y->frames + (size_t)f * J, mb);
            for (uint32_t j = 0; j < J; j++) gt_assert_matrices_near(ma[j], mb[j], tol, x->name, f, j);
        }
    }
    free(ma);
    free(mb);
    free(ta);
    free(tb);
}

/* Channel k (IQM's numbering) with the quaternion turned to w <= 0, as the
 * IQM writer stores it. */
static inline double gt_flipped_channel(const ossa_transform *t, int k)
{
    double v = ts_channel(t, k);
    return k >= 3 && k < 7 && t->rotation[3] > 0 ? -v : v;
}

/* Local poses of b within IQM's quantization of a: every animated channel
 * is stored in 16 bits of its range over all frames (iqm.md §8.1), so a
 * value may move by half a step of range / 65535. */
static inline void gt_compare_quantized(const ossa_model *a, const ossa_model *b)
{
    uint32_t J = a->num_joints;
    assert_int_equal(J, b->num_joints);
    assert_int_equal(a->num_animations, b->num_animations);
    for (uint32_t j = 0; j < J; j++)
        for (int k = 0; k < 10; k++) {
            double lo = INFINITY, hi = -INFINITY;
            for (uint32_t i = 0; i < a->num_animations; i++)
                for (uint32_t f = 0; f < a->animations[i].num_frames; f++) {
                    double v = gt_flipped_channel(&a->animations[i].frames[(size_t)f * J + j], k);
                    lo = fmin(lo, v), hi = fmax(hi, v);
                }
            double tol = (hi - lo) / 65535 * 0.5 + 1e-6 * fmax(1, fmax(fabs(lo), fabs(hi)));
            for (uint32_t i = 0; i < a->num_animations; i++) {
                assert_int_equal(a->animations[i].num_frames, b->animations[i].num_frames);
                for (uint32_t f = 0; f < a->animations[i].num_frames; f++) {
                    double x = gt_flipped_channel(&a->animations[i].frames[(size_t)f * J + j], k);
                    double y = gt_flipped_channel(&b->animations[i].frames[(size_t)f * J + j], k);
                    if (fabs(x - y) > tol)
                        fail_msg("%s, frame %u, joint %u, channel %d: %.9g vs %.9g (step %g)",
                                 a->animations[i].name, f, j, k, x, y, (hi - lo) / 65535);
                }
            }
        }
}

/* The same rest pose, bit for bit (the nodes' transforms), or none on
 * both sides; the same bind pose within float rounding (the skin's
 * inverse bind matrices are inverted on reading: 3e-7 for CesiumMan). */
static inline void gt_compare_rest(const ossa_model *a, const ossa_model *b)
{
    assert_int_equal(a->num_joints, b->num_joints);
    assert_int_equal(a->rest_pose != NULL, b->rest_pose != NULL);
    if (a->rest_pose)
        assert_memory_equal(a->rest_pose, b->rest_pose, a->num_joints * sizeof *a->rest_pose);
    for (uint32_t j = 0; j < a->num_joints; j++) {
        float ma[16], mb[16];
        ossa_transform_to_matrix(&a->joints[j].bind, ma);
        ossa_transform_to_matrix(&b->joints[j].bind, mb);
        gt_assert_matrices_near(ma, mb, 1e-6, "bind pose", 0, j);
    }
}

/* Influences with weight > 0 of vertex v, sorted by joint. */
static inline uint32_t gt_influences(const ossa_model *m, uint32_t v, float *joints, float *weights)
{
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    float j[8], w[8];
    ossa_vertex_array_read(m, ia, v, 1, j);
    ossa_vertex_array_read(m, wa, v, 1, w);
    uint32_t n = 0;
    for (uint32_t k = 0; k < ia->size && k < wa->size; k++) {
        if (!(w[k] > 0)) continue;
        uint32_t at = n++;
        while (at > 0 && joints[at - 1] > j[k]) {
            joints[at] = joints[at - 1];
            weights[at] = weights[at - 1];
            at--;
        }
        joints[at] = j[k];
        weights[at] = w[k];
    }
    return n;
}

/* Meshes, triangles and vertex arrays identical; blend data compared as
 * the influences that have weight (unused slots may change), their
 * weights within weight_tol (> 0: the blend arrays' formats may differ,
 * as IQM's ubyte weights do from glTF's floats). */
static inline void gt_compare_meshes(const ossa_model *a, const ossa_model *b, double weight_tol)
{
    assert_int_equal(a->num_vertices, b->num_vertices);
    assert_int_equal(a->num_triangles, b->num_triangles);
    assert_memory_equal(a->triangles, b->triangles, (size_t)a->num_triangles * sizeof *a->triangles);
    assert_int_equal(a->num_meshes, b->num_meshes);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        assert_string_equal(a->meshes[i].name, b->meshes[i].name);
        assert_string_equal(a->meshes[i].material, b->meshes[i].material);
        assert_int_equal(a->meshes[i].first_vertex, b->meshes[i].first_vertex);
        assert_int_equal(a->meshes[i].num_vertices, b->meshes[i].num_vertices);
        assert_int_equal(a->meshes[i].first_triangle, b->meshes[i].first_triangle);
        assert_int_equal(a->meshes[i].num_triangles, b->meshes[i].num_triangles);
    }
    assert_int_equal(a->num_vertex_arrays, b->num_vertex_arrays);
    for (uint32_t i = 0; i < a->num_vertex_arrays; i++) {
        const ossa_vertex_array *x = &a->vertex_arrays[i], *y = &b->vertex_arrays[i];
        assert_int_equal(x->type, y->type);
        assert_string_equal(x->name, y->name);
        bool blend = x->type == OSSA_VERTEX_BLENDINDEXES || x->type == OSSA_VERTEX_BLENDWEIGHTS;
        if (blend && weight_tol > 0) continue;
        assert_int_equal(x->format, y->format);
        assert_int_equal(x->size, y->size);
        if (blend) continue;
        assert_memory_equal(x->data, y->data,
                            (size_t)a->num_vertices * x->size * ossa_component_size(x->format));
    }
    if (ossa_model_find_array(a, OSSA_VERTEX_BLENDINDEXES, NULL)) {
        for (uint32_t v = 0; v < a->num_vertices; v++) {
            float ja[8], wa[8], jb[8], wb[8];
            uint32_t na = gt_influences(a, v, ja, wa), nb = gt_influences(b, v, jb, wb);
            if (weight_tol == 0) assert_int_equal(na, nb);
            /* every joint of either side, its weight 0 where absent (a weight
             * within the tolerance of 0 may be gone) */
            for (uint32_t side = 0; side < 2; side++)
                for (uint32_t k = 0; k < (side ? nb : na); k++) {
                    float j = side ? jb[k] : ja[k], x = 0, y = 0;
                    for (uint32_t i = 0; i < na; i++) x += ja[i] == j ? wa[i] : 0;
                    for (uint32_t i = 0; i < nb; i++) y += jb[i] == j ? wb[i] : 0;
                    if (fabs(x - y) > weight_tol)
                        fail_msg("vertex %u: joint %g weight %.9g vs %.9g", v, (double)j,
                                 (double)x, (double)y);
                }
        }
    }
}

/* -- A model with every kind of data -- */

static inline ossa_model *gt_build_full_model(void)
{
    ts_joint joints[3] = {{"hips", -1, ossa_transform_identity(), true},
                          {"spine", 0, ossa_transform_identity(), true},
                          {"", -1, ossa_transform_identity(), true}}; /* second root, no name */
    joints[0].pose.translation[2] = 1;
    joints[1].pose.translation[2] = 0.5f;
    joints[1].pose.rotation[0] = 0.38268343f, joints[1].pose.rotation[3] = 0.92387953f;
    joints[2].pose.translation[1] = 2;
    joints[2].pose.scale[0] = 2, joints[2].pose.scale[1] = 1, joints[2].pose.scale[2] = 0.5f;
    enum { NV = 8 };
    float pos[NV * 3], uv[NV * 2], nrm[NV * 3], tan[NV * 4], idx[NV * 8], wgt[NV * 8], col[NV * 3],
        custom[NV * 2];
    for (int v = 0; v < NV; v++) {
        pos[v * 3] = (float)(v % 2), pos[v * 3 + 1] = (float)(v / 2 % 2), pos[v * 3 + 2] = (float)(v / 4);
        uv[v * 2] = v / 8.0f, uv[v * 2 + 1] = 1 - v / 8.0f;
        nrm[v * 3] = 0, nrm[v * 3 + 1] = 0, nrm[v * 3 + 2] = 1;
        tan[v * 4] = 1, tan[v * 4 + 1] = 0, tan[v * 4 + 2] = 0, tan[v * 4 + 3] = v % 2 ? -1.0f : 1.0f;
        for (int k = 0; k < 8; k++) {
            idx[v * 8 + k] = (float)((v + k) % 3);
            wgt[v * 8 + k] = k == 5 ? 0.5f : k == 6 || k == 1 ? 0.25f : 0; /* sum 1, into set 1 */
        }
        col[v * 3] = 1, col[v * 3 + 1] = 0.5f, col[v * 3 + 2] = 0;
        custom[v * 2] = (float)v, custom[v * 2 + 1] = -(float)v;
    }
    /* weights already sum to 1 in float: they stay exactly as they are */
    const ts_array arrays[8] = {{OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos},
                                {OSSA_VERTEX_TEXCOORD, OSSA_USHORT, 2, "", uv},
                                {OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, "", nrm},
                                {OSSA_VERTEX_TANGENT, OSSA_FLOAT, 4, "", tan},
                                {OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 8, "", idx},
                                {OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 8, "", wgt},
                                {OSSA_VERTEX_COLOR, OSSA_UBYTE, 3, "", col},
                                {OSSA_VERTEX_CUSTOM, OSSA_SHORT, 2, "wind", custom}};
    static const ossa_triangle tris[4] = {{{0, 1, 2}}, {{1, 3, 2}}, {{4, 5, 6}}, {{5, 7, 6}}};
    static const ts_mesh meshes[2] = {{"front", "skin.png", 0, 4, 0, 2}, {"back", "metal", 4, 4, 2, 2}};
    static const ts_extra extras[1] = {{"iqm.extension:demo", "\x01\x02\x03", 3}};
    static const ts_anim anims[2] = {{"turn", 5, 0, OSSA_ANIMATION_LOOP}, {"still", 0, 24, 0}};
    ts_model_spec spec = {.num_joints = 3, .joints = joints, .num_vertices = NV, .num_arrays = 8,
                          .arrays = arrays, .num_triangles = 4, .triangles = tris, .num_meshes = 2,
                          .meshes = meshes, .num_extras = 1, .extras = extras,
                          .comment = "made by a test", .num_animations = 2, .animations = anims};
    ossa_model *m = ts_model_build(&spec);
    /* animation: the spine turns, the hips stay (dropped on writing), the
     * second root is constant but not at its bind pose (one STEP key) */
    for (uint32_t f = 0; f < 5; f++) {
        ossa_transform *fr = m->animations[0].frames + (size_t)f * 3;
        double ang = 0.3 * f;
        fr[1].rotation[0] = 0, fr[1].rotation[1] = (float)sin(ang / 2), fr[1].rotation[2] = 0;
        fr[1].rotation[3] = (float)cos(ang / 2);
        fr[2].translation[0] = 3;
    }
    return m;
}

/* -- Hand-made files for the reader -- */

/* A .gltf with one base64 buffer holding `bin` and the JSON body `body`
 * (members after "asset" and "buffers"). */
static inline char *gt_make_gltf(const void *bin, size_t bin_size, const char *body)
{
    size_t n = ossa__base64_encoded_size(bin_size);
    char *b64 = malloc(n + 1);
    ossa__base64_encode(bin, bin_size, b64);
    b64[n] = 0;
    size_t cap = n + strlen(body) + 256;
    char *out = malloc(cap);
    snprintf(out, cap,
             "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":%zu,"
             "\"uri\":\"data:application/octet-stream;base64,%s\"}]%s%s}",
             bin_size, b64, body[0] ? "," : "", body);
    free(b64);
    return out;
}

static inline ossa_model *gt_load_json(const char *json)
{
    return gt_load_ok(json, strlen(json), OSSA_FORMAT_GLTF);
}

static inline void gt_expect_error(const char *json, ossa_code kind, const char *text)
{
    ossa_error err;
    ossa_model *m = gt_load_mem(json, strlen(json), OSSA_FORMAT_GLTF, NULL, &err);
    if (m) {
        ossa_model_free(m);
        fail_msg("loaded, expected an error containing '%s'", text);
    }
    if (err.code != kind || !strstr(err.message, text))
        fail_msg("error %s '%s', expected %s containing '%s'", ossa_code_name(err.code),
                 err.message, ossa_code_name(kind), text);
}

#endif
