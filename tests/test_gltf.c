/* glTF 2.0: round trips (IQM -> glTF -> IQM, glTF -> IQM -> glTF, a model
 * built here with every kind of data), the Khronos validator on what the
 * tests write, reader features on small hand-made files (sparse accessors,
 * normalized integers, strips and fans, STEP and CUBICSPLINE, matrices,
 * folded ancestors, rigid meshes, external buffers), malformed JSON and a
 * GLB cut at every byte. */
#include "support.h"

#include "formats/gltf/gltf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* -- Helpers -- */

static ossa_model *load_mem(const void *data, size_t size, ossa_format format, const char *name,
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

static ossa_model *load_ok(const void *data, size_t size, ossa_format format)
{
    ossa_error err;
    ossa_model *m = load_mem(data, size, format, NULL, &err);
    if (!m) print_error("load failed: %s: %s\n", ossa_code_name(err.code), err.message);
    assert_non_null(m);
    return m;
}

static unsigned char *write_as(const ossa_model *m, ossa_format format, size_t *size)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    return ts_write(m, &o, size);
}

/* Writes and reads back through `format`. */
static ossa_model *through(const ossa_model *m, ossa_format format)
{
    size_t size;
    unsigned char *data = write_as(m, format, &size);
    ossa_model *back = load_ok(data, size, format);
    ossa_free_buffer(data, NULL);
    return back;
}

/* -- The Khronos validator, when installed (make deps-node) -- */

static bool validator_available(void)
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
static void validate_file(const char *path)
{
    static int announced;
    if (!validator_available()) {
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
static const unsigned char tiny_png[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};

/* Writes `m` as NAME.glb, NAME.gltf (+ .bin) and NAME_embedded.gltf in the
 * test directory, validates all three and checks they load back. The
 * texture the full model names (skin.png) is put beside them, as an
 * exporter's user would. */
static void export_and_validate(const ossa_model *m, const char *name)
{
    static const struct {
        const char *suffix;
        ossa_format format;
        uint32_t flags;
    } kinds[] = {{".glb", OSSA_FORMAT_GLB, 0},
                 {".gltf", OSSA_FORMAT_GLTF, 0},
                 {"_embedded.gltf", OSSA_FORMAT_GLTF, OSSA_WRITE_GLTF_EMBED}};
    char *png = ts_tmp_path("skin.png");
    FILE *f = fopen(png, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(tiny_png, 1, sizeof tiny_png, f), sizeof tiny_png);
    fclose(f);
    free(png);
    for (size_t k = 0; k < 3; k++) {
        char file[256];
        snprintf(file, sizeof file, "gltf_%s%s", name, kinds[k].suffix);
        char *path = ts_tmp_path(file);
        ossa_write_options o;
        memset(&o, 0, sizeof o);
        o.format = kinds[k].format;
        o.flags = kinds[k].flags;
        ossa_error err;
        ossa_status st = ossa_write_file(m, path, &o, &err);
        if (st) print_error("%s: %s\n", path, err.message);
        assert_int_equal(st, OSSA_OK);
        ossa_model *back = ossa_load_file(path, NULL, &err);
        if (!back) print_error("%s: %s\n", path, err.message);
        assert_non_null(back);
        ossa_model_free(back);
        validate_file(path);
        free(path);
    }
}

/* -- Model comparison -- */

static void assert_matrices_near(const float *a, const float *b, double tol, const char *what,
                                 uint32_t frame, uint32_t joint)
{
    for (int k = 0; k < 16; k++) {
        double d = fabs((double)a[k] - b[k]), scale = fmax(1.0, fabs((double)a[k]));
        if (d > tol * scale)
            fail_msg("%s, frame %u, joint %u, element %d: %.9g vs %.9g (tolerance %g)", what, frame,
                     joint, k, (double)a[k], (double)b[k], tol);
    }
}

static void compare_poses(const ossa_model *a, const ossa_model *b, double tol)
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
    for (uint32_t j = 0; j < J; j++) assert_matrices_near(ma[j], mb[j], tol, "bind pose", 0, j);
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
            for (uint32_t j = 0; j < J; j++) assert_matrices_near(ma[j], mb[j], tol, x->name, f, j);
        }
    }
    free(ma);
    free(mb);
    free(ta);
    free(tb);
}

/* Channel k (IQM's numbering) with the quaternion turned to w <= 0, as the
 * IQM writer stores it. */
static double flipped_channel(const ossa_transform *t, int k)
{
    double v = ts_channel(t, k);
    return k >= 3 && k < 7 && t->rotation[3] > 0 ? -v : v;
}

/* Local poses of b within IQM's quantization of a: every animated channel
 * is stored in 16 bits of its range over all frames (iqm.md §8.1), so a
 * value may move by half a step of range / 65535. */
static void compare_quantized(const ossa_model *a, const ossa_model *b)
{
    uint32_t J = a->num_joints;
    assert_int_equal(J, b->num_joints);
    assert_int_equal(a->num_animations, b->num_animations);
    for (uint32_t j = 0; j < J; j++)
        for (int k = 0; k < 10; k++) {
            double lo = INFINITY, hi = -INFINITY;
            for (uint32_t i = 0; i < a->num_animations; i++)
                for (uint32_t f = 0; f < a->animations[i].num_frames; f++) {
                    double v = flipped_channel(&a->animations[i].frames[(size_t)f * J + j], k);
                    lo = fmin(lo, v), hi = fmax(hi, v);
                }
            double tol = (hi - lo) / 65535 * 0.5 + 1e-6 * fmax(1, fmax(fabs(lo), fabs(hi)));
            for (uint32_t i = 0; i < a->num_animations; i++) {
                assert_int_equal(a->animations[i].num_frames, b->animations[i].num_frames);
                for (uint32_t f = 0; f < a->animations[i].num_frames; f++) {
                    double x = flipped_channel(&a->animations[i].frames[(size_t)f * J + j], k);
                    double y = flipped_channel(&b->animations[i].frames[(size_t)f * J + j], k);
                    if (fabs(x - y) > tol)
                        fail_msg("%s, frame %u, joint %u, channel %d: %.9g vs %.9g (step %g)",
                                 a->animations[i].name, f, j, k, x, y, (hi - lo) / 65535);
                }
            }
        }
}

/* Influences with weight > 0 of vertex v, sorted by joint. */
static uint32_t influences(const ossa_model *m, uint32_t v, float *joints, float *weights)
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
 * the influences that have weight (unused slots may change). */
static void compare_meshes(const ossa_model *a, const ossa_model *b, double weight_tol)
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
        assert_int_equal(x->format, y->format);
        assert_int_equal(x->size, y->size);
        assert_string_equal(x->name, y->name);
        if (x->type == OSSA_VERTEX_BLENDINDEXES || x->type == OSSA_VERTEX_BLENDWEIGHTS) continue;
        assert_memory_equal(x->data, y->data,
                            (size_t)a->num_vertices * x->size * ossa_component_size(x->format));
    }
    if (ossa_model_find_array(a, OSSA_VERTEX_BLENDINDEXES, NULL)) {
        for (uint32_t v = 0; v < a->num_vertices; v++) {
            float ja[8], wa[8], jb[8], wb[8];
            uint32_t na = influences(a, v, ja, wa), nb = influences(b, v, jb, wb);
            assert_int_equal(na, nb);
            for (uint32_t k = 0; k < na; k++) {
                assert_true(ja[k] == jb[k]);
                if (fabs(wa[k] - wb[k]) > weight_tol)
                fail_msg("vertex %u, influence %u: joint %g weight %.9g vs %.9g", v, k, (double)ja[k],
                         (double)wa[k], (double)wb[k]);
            }
        }
    }
}

/* -- Round trips of the shared files -- */

static void iqm_gltf_iqm(void **state)
{
    (void)state;
    static const char *const files[] = {"iqm/guy.iqm", "iqm/guyanim.iqm", "iqe/test_cube.iqe"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        unsigned char *file;
        size_t size;
        ossa_model *a = ts_load_shared(files[i], &file, &size);
        for (int k = 0; k < 2; k++) {
            ossa_model *b = through(a, k ? OSSA_FORMAT_GLTF : OSSA_FORMAT_GLB);
            compare_poses(a, b, 1e-5);
            compare_meshes(a, b, 0);
            assert_int_equal(a->flags, b->flags);
            /* and on to IQM: the same as the source written to IQM */
            ossa_model *c = through(b, OSSA_FORMAT_IQM), *d = through(a, OSSA_FORMAT_IQM);
            compare_poses(d, c, 1e-5);
            compare_meshes(d, c, 0);
            ossa_model_free(c);
            ossa_model_free(d);
            ossa_model_free(b);
        }
        char name[64];
        snprintf(name, sizeof name, "%zu", i);
        export_and_validate(a, name);
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
        ossa_model *g = through(a, OSSA_FORMAT_GLB);
        compare_poses(a, g, 1e-5);
        compare_meshes(a, g, 0);
        ossa_model_free(g);
        /* via IQM */
        ossa_model *b = through(a, OSSA_FORMAT_IQM);
        compare_quantized(a, b);
        compare_meshes(a, b, 1e-7); /* the IQM writer renormalizes float weights */
        ossa_model *c = through(b, OSSA_FORMAT_GLB);
        compare_poses(b, c, 1e-5);
        compare_meshes(b, c, 0);
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
        assert_int_equal(ossa_model_validate(m, NULL, NULL), 0);
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

/* -- A model with every kind of data -- */

static ossa_model *build_full_model(void)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    ossa_transform t = ossa_transform_identity();
    t.translation[2] = 1;
    assert_int_equal(ossa_model_add_joint(m, "hips", -1, &t, &err), 0);
    t.translation[2] = 0.5f;
    t.rotation[0] = 0.38268343f, t.rotation[3] = 0.92387953f;
    assert_int_equal(ossa_model_add_joint(m, "spine", 0, &t, &err), 1);
    t = ossa_transform_identity();
    t.translation[1] = 2;
    t.scale[0] = 2, t.scale[1] = 1, t.scale[2] = 0.5f;
    assert_int_equal(ossa_model_add_joint(m, "", -1, &t, &err), 2); /* second root, no name */
    enum { NV = 8 };
    assert_int_equal(ossa_model_set_num_vertices(m, NV, &err), OSSA_OK);
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
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TEXCOORD, OSSA_USHORT, 2, "", uv, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, "", nrm, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TANGENT, OSSA_FLOAT, 4, "", tan, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 8, "", idx, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 8, "", wgt, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 3, "", col, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_CUSTOM, OSSA_SHORT, 2, "wind", custom, &err));
    /* weights already sum to 1 in float: they stay exactly as they are */
    ossa_triangle tris[4] = {{{0, 1, 2}}, {{1, 3, 2}}, {{4, 5, 6}}, {{5, 7, 6}}};
    assert_int_equal(ossa_model_set_triangles(m, 4, tris, &err), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "front", "skin.png", 0, 4, 0, 2, &err) >= 0);
    assert_true(ossa_model_add_mesh(m, "back", "metal", 4, 4, 2, 2, &err) >= 0);
    /* animation: the spine turns, the hips stay (dropped on writing), the
     * second root is constant but not at its bind pose (one STEP key) */
    ossa_animation *an = ossa_model_add_animation(m, "turn", 5, 0, OSSA_ANIMATION_LOOP, &err);
    assert_non_null(an);
    for (uint32_t f = 0; f < 5; f++) {
        ossa_transform *fr = an->frames + (size_t)f * 3;
        double ang = 0.3 * f;
        fr[1].rotation[0] = 0, fr[1].rotation[1] = (float)sin(ang / 2), fr[1].rotation[2] = 0;
        fr[1].rotation[3] = (float)cos(ang / 2);
        fr[2].translation[0] = 3;
    }
    assert_non_null(ossa_model_add_animation(m, "still", 0, 24, 0, &err));
    assert_int_equal(ossa_model_set_comment(m, "made by a test", 14, &err), OSSA_OK);
    assert_int_equal(ossa_model_add_extra(m, "iqm.extension:demo", "\x01\x02\x03", 3, &err), OSSA_OK);
    return m;
}

static void full_model_round_trip(void **state)
{
    (void)state;
    ossa_model *a = build_full_model();
    for (int k = 0; k < 2; k++) {
        ossa_model *b = through(a, k ? OSSA_FORMAT_GLTF : OSSA_FORMAT_GLB);
        compare_poses(a, b, 1e-6);
        compare_meshes(a, b, 0);
        assert_int_equal(b->comment_size, 14);
        assert_memory_equal(b->comment, "made by a test", 14);
        assert_int_equal(b->num_extras, 1);
        assert_string_equal(b->extras[0].key, "iqm.extension:demo");
        assert_int_equal(b->extras[0].size, 3);
        assert_memory_equal(b->extras[0].data, "\x01\x02\x03", 3);
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
    unsigned char *glb = write_as(a, OSSA_FORMAT_GLB, &size);
    ossa_error err;
    ossa_model *four = ossa_load_memory(glb, size, NULL, &err);
    assert_int_equal(ossa_model_find_array(four, OSSA_VERTEX_BLENDINDEXES, NULL)->size, 4);
    ossa_model_free(four);
    ossa_free_buffer(glb, NULL);
    export_and_validate(a, "full");
    ossa_model_free(a);
}

/* The axis conversion and the winding, checked on the file itself. */
static void axes_and_winding(void **state)
{
    (void)state;
    ossa_model *a = build_full_model();
    size_t size;
    unsigned char *glb = write_as(a, OSSA_FORMAT_GLB, &size);
    uint32_t jlen = ts_le32(glb + 12);
    char *json = malloc(jlen + 1);
    memcpy(json, glb + 20, jlen);
    json[jlen] = 0;
    /* joint 0 at ossa (0, 0, 1), Z up, is at glTF (0, 1, 0), Y up */
    assert_non_null(strstr(json, "\"translation\":[0,1,-0]")); /* z = -y keeps the sign of 0 */
    /* the second root's scale (2, 1, 0.5) swaps y and z */
    assert_non_null(strstr(json, "\"scale\":[2,0.5,1]"));
    /* triangle (0, 1, 2) is written (0, 2, 1): after the BIN chunk header,
     * the first index view follows the vertex data; find it through the
     * first triangle's positions instead: vertex 1 is ossa (1, 0, 0) */
    free(json);
    ossa_free_buffer(glb, NULL);
    ossa_model_free(a);
}

/* -- Hand-made files for the reader -- */

/* A .gltf with one base64 buffer holding `bin` and the JSON body `body`
 * (members after "asset" and "buffers"). */
static char *make_gltf(const void *bin, size_t bin_size, const char *body)
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

static ossa_model *load_json(const char *json)
{
    return load_ok(json, strlen(json), OSSA_FORMAT_GLTF);
}

static void expect_error(const char *json, ossa_code kind, const char *text)
{
    ossa_error err;
    ossa_model *m = load_mem(json, strlen(json), OSSA_FORMAT_GLTF, NULL, &err);
    if (m) {
        ossa_model_free(m);
        fail_msg("loaded, expected an error containing '%s'", text);
    }
    if (err.code != kind || !strstr(err.message, text))
        fail_msg("error %s '%s', expected %s containing '%s'", ossa_code_name(err.code),
                 err.message, ossa_code_name(kind), text);
}

/* Strip and fan: triangles and their (reversed) winding. */
static void strips_and_fans(void **state)
{
    (void)state;
    float pos[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
    char body[1024];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[2,1,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"mode\":5},"
             "{\"attributes\":{\"POSITION\":0},\"mode\":6},{\"attributes\":{\"POSITION\":0},\"mode\":1}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
    char *json = make_gltf(pos, sizeof pos, body);
    ossa_model *m = load_json(json);
    /* strip of 5: 3 triangles; fan of 5: 3; lines skipped with a warning */
    assert_int_equal(m->num_meshes, 2);
    assert_int_equal(m->num_triangles, 6);
    assert_true(m->num_warnings >= 1);
    /* strip triangle 1 is (v2, v1, v3) in glTF order; reversed (v2, v3, v1) */
    assert_int_equal(m->triangles[1].v[0], 2);
    assert_int_equal(m->triangles[1].v[1], 3);
    assert_int_equal(m->triangles[1].v[2], 1);
    /* fan triangle 0 is (v1, v2, v0): reversed (v1, v0, v2); second
     * primitive's vertices start at 5 */
    assert_int_equal(m->triangles[3].v[0], 5 + 1);
    assert_int_equal(m->triangles[3].v[1], 5 + 0);
    assert_int_equal(m->triangles[3].v[2], 5 + 2);
    /* positions turned to Z up: glTF (0, 1, 0) is ossa (0, 0, 1) */
    const float *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)->data;
    assert_true(p[2 * 3 + 2] == 1 && p[2 * 3 + 1] == 0);
    ossa_model_free(m);
    free(json);
}

/* TEXCOORD_n and COLOR_n with n beyond the sets the reader keeps (0..7)
 * are skipped with a warning; they must not land in other sets. */
static void attribute_set_limit(void **state)
{
    (void)state;
    float pos[3 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    unsigned char bin[36 + 24];
    memcpy(bin, pos, 36);
    memset(bin + 36, 0, 24);
    for (int k = 0; k < 2; k++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
                 "\"byteLength\":24}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
                 "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
                 "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"%s\":1}}]}],"
                 "\"nodes\":[{\"mesh\":0}]",
                 k ? "COLOR_9" : "TEXCOORD_9");
        char *json = make_gltf(bin, sizeof bin, body);
        ossa_model *m = load_json(json);
        assert_int_equal(m->num_vertex_arrays, 1); /* positions only */
        assert_true(m->num_warnings >= 1);
        ossa_model_free(m);
        free(json);
    }
}

/* Sparse accessors, normalized ubyte texcoords, short colours. */
static void accessor_kinds(void **state)
{
    (void)state;
    unsigned char bin[128];
    memset(bin, 0, sizeof bin);
    float *pos = (float *)(void *)bin; /* 3 vertices at 0..35 */
    pos[3] = 1, pos[7] = 1;
    /* sparse: indices (ubyte) at 36, values (vec3 float) at 40 */
    bin[36] = 2;
    float v[3] = {5, 6, 7};
    memcpy(bin + 40, v, 12);
    /* texcoords ubyte normalized at 52 (stride 4) */
    bin[52] = 255, bin[53] = 0, bin[56] = 128, bin[57] = 64, bin[60] = 0, bin[61] = 255;
    char body[2048];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
             "\"byteLength\":1},{\"buffer\":0,\"byteOffset\":40,\"byteLength\":12},"
             "{\"buffer\":0,\"byteOffset\":52,\"byteLength\":12,\"byteStride\":4}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"componentType\":5121},"
             "\"values\":{\"bufferView\":2}}},"
             "{\"bufferView\":3,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1}}]}],"
             "\"nodes\":[{\"mesh\":0}]");
    char *json = make_gltf(bin, sizeof bin, body);
    ossa_model *m = load_json(json);
    const ossa_vertex_array *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const float *pf = p->data;
    /* vertex 2 replaced by (5, 6, 7), in ossa axes (5, -7, 6) */
    assert_true(pf[6] == 5 && pf[7] == -7 && pf[8] == 6);
    const ossa_vertex_array *uv = ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL);
    assert_int_equal(uv->format, OSSA_UBYTE);
    assert_int_equal(((const uint8_t *)uv->data)[2], 128);
    assert_int_equal(m->num_triangles, 1);
    ossa_model_free(m);
    free(json);
}

/* One joint under a non-joint "Z_UP"-style node, a node matrix, STEP and
 * CUBICSPLINE samplers and keys that are not evenly spaced. */
static void animation_sampling(void **state)
{
    (void)state;
    unsigned char bin[256];
    memset(bin, 0, sizeof bin);
    float *f = (float *)(void *)bin;
    /* inputs: [0, 0.5, 1] at 0; [0, 0.25, 0.9] at 12: no common spacing */
    f[0] = 0, f[1] = 0.5f, f[2] = 1;
    f[3] = 0, f[4] = 0.25f, f[5] = 0.9f;
    /* STEP translation outputs at 24: x = 1, 2, 3 */
    float step[9] = {1, 0, 0, 2, 0, 0, 3, 0, 0};
    memcpy(bin + 24, step, sizeof step);
    /* CUBICSPLINE scale outputs at 60: 3 keys x (in, value, out) x vec3, zero tangents */
    float cub[27] = {0};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++) cub[k * 9 + 3 + c] = 1.0f + (float)k;
    memcpy(bin + 60, cub, sizeof cub);
    char body[4096];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":24,"
             "\"byteLength\":36},{\"buffer\":0,\"byteOffset\":60,\"byteLength\":108}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
             "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":9,\"type\":\"VEC3\"}],"
             "\"nodes\":[{\"name\":\"Z_UP\",\"matrix\":[1,0,0,0, 0,0,-1,0, 0,1,0,0, 0,0,0,1],"
             "\"children\":[1]},{\"name\":\"bone\"}],"
             "\"skins\":[{\"joints\":[1]}],"
             "\"animations\":[{\"name\":\"a\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,"
             "\"path\":\"translation\"}},{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"scale\"}}],"
             "\"samplers\":[{\"input\":0,\"output\":2,\"interpolation\":\"STEP\"},"
             "{\"input\":1,\"output\":3,\"interpolation\":\"CUBICSPLINE\"}]}]");
    char *json = make_gltf(bin, sizeof bin, body);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_GLTF;
    o.framerate = 8; /* uneven keys: resampled at 8 fps */
    ossa_error err;
    ossa_model *m = ossa_load_memory(json, strlen(json), &o, &err);
    assert_non_null(m);
    assert_int_equal(m->num_joints, 1);
    assert_string_equal(m->joints[0].name, "bone");
    const ossa_animation *an = &m->animations[0];
    assert_true(an->framerate == 8);
    assert_int_equal(an->num_frames, 9);
    /* Z_UP (glTF +Z -> +Y... a rotation of +90 about X) folds into the
     * joint; STEP at t = 0.375 holds key 0 (x = 1), at 0.5 key 1 */
    float mat[16];
    ossa_transform_to_matrix(&an->frames[3], mat);
    TS_ASSERT_NEAR(mat[12], 1, 1e-6);
    ossa_transform_to_matrix(&an->frames[4], mat);
    TS_ASSERT_NEAR(mat[12], 2, 1e-6);
    /* CUBICSPLINE with zero tangents between 1 (t=0) and 2 (t=0.25): at
     * t = 0.125 (frame 1) the Hermite midpoint 1.5 */
    TS_ASSERT_NEAR(an->frames[1].scale[0], 1.5, 1e-6);
    TS_ASSERT_NEAR(an->frames[2].scale[0], 2, 1e-6); /* exactly on key 1 */
    ossa_model_free(m);
    free(json);
}

/* An unskinned mesh under a joint is bound to it rigidly, in world space. */
static void rigid_mesh(void **state)
{
    (void)state;
    float pos[11] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1}; /* 3 positions, 2 key times */
    char body[2048];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
             "\"byteLength\":8}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
             "{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
             "\"nodes\":[{\"name\":\"arm\",\"translation\":[0,0,5],\"children\":[1]},"
             "{\"name\":\"sword\",\"mesh\":0,\"translation\":[1,0,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}],"
             "\"samplers\":[{\"input\":1,\"output\":2}]}]");
    char *json = make_gltf(pos, sizeof pos, body);
    ossa_model *m = load_json(json);
    assert_int_equal(m->num_joints, 1); /* the animated node */
    const ossa_vertex_array *w = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    assert_non_null(w);
    float wt[4];
    ossa_vertex_array_read(m, w, 0, 1, wt);
    TS_ASSERT_NEAR(wt[0], 1, 0);
    /* vertex 1 at glTF (0+1+1, 0, 5) = (2, 0, 5) -> ossa (2, -5, 0) */
    const float *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)->data;
    assert_true(p[3] == 2 && p[4] == -5 && p[5] == 0);
    ossa_model_free(m);
    free(json);
}

/* External .bin beside a .gltf: found through the file name; a memory
 * load without one is a clear error. */
static void external_buffer(void **state)
{
    (void)state;
    ossa_model *a = build_full_model();
    char *path = ts_tmp_path("gltf external.gltf");
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    ossa_error err;
    assert_int_equal(ossa_write_file(a, path, &o, &err), OSSA_OK);
    char *bin = ts_tmp_path("gltf external.bin");
    struct stat st;
    assert_int_equal(stat(bin, &st), 0);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.max_influences = 8;
    ossa_model *b = ossa_load_file(path, &lo, &err);
    assert_non_null(b);
    compare_meshes(a, b, 0);
    ossa_model_free(b);
    size_t size;
    unsigned char *text = ts_read_file(path, &size);
    assert_non_null(strstr((char *)text, "\"gltf%20external.bin\""));
    ossa_model *c = load_mem(text, size, OSSA_FORMAT_AUTO, NULL, &err);
    assert_null(c);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "buffers[0].uri"));
    c = load_mem(text, size, OSSA_FORMAT_AUTO, "/nonexistent/dir/x.gltf", &err);
    assert_null(c);
    assert_int_equal(err.code, OSSA_ERROR_IO);
    free(text);
    free(bin);
    free(path);
    ossa_model_free(a);
}

static void *capped_alloc(void *user, size_t size)
{
    (void)user;
    return size > ((size_t)80 << 20) ? NULL : malloc(size);
}

static void capped_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

/* Many primitives sharing one large index accessor: the triangles they
 * decode to are refused when out of proportion to the file, as vertices
 * and frames are, before anything that size is allocated. */
static void triangle_count_limit(void **state)
{
    (void)state;
    char body[8192];
    size_t at = (size_t)snprintf(body, sizeof body,
                                 "\"accessors\":[{\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"},"
                                 "{\"componentType\":5121,\"count\":3000000,\"type\":\"SCALAR\"}],"
                                 "\"meshes\":[{\"primitives\":[");
    for (int k = 0; k < 30; k++)
        at += (size_t)snprintf(body + at, sizeof body - at, "%s{\"attributes\":{\"POSITION\":0},\"indices\":1}",
                               k ? "," : "");
    snprintf(body + at, sizeof body - at, "]}],\"nodes\":[{\"mesh\":0}]");
    char json[8400];
    snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},%s}", body);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_GLTF;
    const ossa_allocator capped = {capped_alloc, capped_free, NULL};
    o.allocator = &capped;
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_model *m = ossa_load_memory(json, strlen(json), &o, &err);
    if (m) ossa_model_free(m);
    assert_null(m);
    if (err.code != OSSA_ERROR_UNSUPPORTED || !strstr(err.message, "triangles"))
        fail_msg("error %s '%s'", ossa_code_name(err.code), err.message);
}

/* A skin of 200000 root joints, a chain of 100000 joints 100000 deep and
 * a chain of 50000 nodes without joints that each show a mesh load with the
 * right structure. (They once took seconds each, when every joint searched
 * the skins or every joint and mesh walked up to the root; speed belongs
 * in the benchmarks, so nothing here is timed.) */
static void large_skeletons(void **state)
{
    (void)state;
    for (int deep = 0; deep < 3; deep++) {
        uint32_t n = deep == 2 ? 50000 : deep ? 100000 : 200000;
        size_t cap = (size_t)n * 40 + 512, at = 0;
        char *json = malloc(cap);
        at += (size_t)snprintf(json + at, cap - at, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
        for (uint32_t i = 0; i < n; i++) {
            const char *mesh = deep == 2 ? "\"mesh\":0" : "";
            if (deep && i + 1 < n)
                at += (size_t)snprintf(json + at, cap - at, "%s{%s%s\"children\":[%u]}", i ? "," : "", mesh,
                                       mesh[0] ? "," : "", i + 1);
            else
                at += (size_t)snprintf(json + at, cap - at, "%s{%s}", i ? "," : "", mesh);
        }
        if (deep == 2) {
            snprintf(json + at, cap - at,
                     "],\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}");
        } else {
            at += (size_t)snprintf(json + at, cap - at, "],\"skins\":[{\"joints\":[");
            for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(json + at, cap - at, "%s%u", i ? "," : "", i);
            snprintf(json + at, cap - at, "]}]}");
        }
        ossa_model *m = load_json(json);
        if (deep == 2) {
            assert_int_equal(m->num_joints, 0);
            assert_int_equal(m->num_triangles, n);
        } else {
            assert_int_equal(m->num_joints, n);
            assert_int_equal(m->joints[n - 1].parent, deep ? (int32_t)n - 2 : -1);
        }
        ossa_model_free(m);
        free(json);
    }
    /* 30000 joints below a chain of 30000 moved nodes that are not joints
     * (folded into each joint) */
    uint32_t n = 30000;
    size_t cap = (size_t)n * 80 + 256, at = 0;
    char *json = malloc(cap);
    at += (size_t)snprintf(json + at, cap - at, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (uint32_t i = 0; i + 1 < n; i++)
        at += (size_t)snprintf(json + at, cap - at, "{\"translation\":[0,1,0],\"children\":[%u]},", i + 1);
    at += (size_t)snprintf(json + at, cap - at, "{\"translation\":[0,1,0],\"children\":[");
    for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(json + at, cap - at, "%s%u", i ? "," : "", n + i);
    at += (size_t)snprintf(json + at, cap - at, "]}");
    for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(json + at, cap - at, ",{}");
    at += (size_t)snprintf(json + at, cap - at, "],\"skins\":[{\"joints\":[");
    for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(json + at, cap - at, "%s%u", i ? "," : "", n + i);
    snprintf(json + at, cap - at, "]}]}");
    ossa_model *m = load_json(json);
    assert_int_equal(m->num_joints, n);
    /* glTF +Y is ossa +Z: each joint sits 30000 units up */
    assert_true(fabs(m->joints[n - 1].bind.translation[2] - (double)n) < 1e-3);
    ossa_model_free(m);
    free(json);
}

/* More than 65536 joints: blend indexes above 65535 keep their value. */
static void many_joints_blend_indexes(void **state)
{
    (void)state;
    uint32_t n = 65537; /* skin 0: nodes 0..65536; skin 1: node 65537 */
    float w[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    size_t cap = (size_t)n * 12 + 2048, at = 0;
    char *body = malloc(cap);
    at += (size_t)snprintf(body + at, cap - at,
                           "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48}],"
                           "\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
                           "{\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
                           "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
                           "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,"
                           "\"WEIGHTS_0\":2}}]}],\"nodes\":[");
    for (uint32_t i = 0; i <= n; i++) at += (size_t)snprintf(body + at, cap - at, "{},");
    at += (size_t)snprintf(body + at, cap - at, "{\"mesh\":0,\"skin\":1}],\"skins\":[{\"joints\":[");
    for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(body + at, cap - at, "%s%u", i ? "," : "", i);
    snprintf(body + at, cap - at, "]},{\"joints\":[%u]}]", n);
    char *json = make_gltf(w, sizeof w, body);
    ossa_model *m = load_json(json);
    assert_int_equal(m->num_joints, n + 1);
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    assert_non_null(bi);
    float idx[OSSA_MAX_COMPONENTS];
    ossa_vertex_array_read(m, bi, 2, 1, idx);
    assert_true(idx[0] == (float)n);
    ossa_model_free(m);
    free(json);
    free(body);
}

/* -- Malformed input -- */

static void malformed_json(void **state)
{
    (void)state;
    expect_error("", OSSA_ERROR_FORMAT, "JSON");
    expect_error("{\"asset\":", OSSA_ERROR_FORMAT, "ends early");
    expect_error("[1,2]", OSSA_ERROR_FORMAT, "not an object");
    expect_error("{\"asset\":{}} x", OSSA_ERROR_FORMAT, "after the end");
    expect_error("{\"x\":1}", OSSA_ERROR_FORMAT, "asset");
    expect_error("{\"asset\":{}}", OSSA_ERROR_FORMAT, "asset.version");
    expect_error("{\"asset\":{\"version\":\"1.0\"}}", OSSA_ERROR_UNSUPPORTED, "asset.version");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"KHR_draco_mesh_compression\"]}",
                 OSSA_ERROR_UNSUPPORTED, "KHR_draco_mesh_compression");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":{}}", OSSA_ERROR_CORRUPT, "nodes: expected an array");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{\"children\":[0]}]}",
                 OSSA_ERROR_CORRUPT, "loop");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[2]},{\"children\":[2]},{}]}",
                 OSSA_ERROR_CORRUPT, "nodes[1].children[0]: node 2 already has the parent 0");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":3}]}", OSSA_ERROR_CORRUPT,
                 "nodes[0].mesh: mesh 3 does not exist");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"rotation\":[0,0,1]}]}",
                 OSSA_ERROR_CORRUPT, "nodes[0].rotation");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"skins\":[{\"joints\":[4]}]}",
                 OSSA_ERROR_CORRUPT, "skins[0].joints[0]");
    expect_error("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":"
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
        char *json = make_gltf(pos, sizeof pos, body);
        expect_error(json, OSSA_ERROR_CORRUPT, acc[i].message);
        free(json);
    }
    /* a view past its buffer; keys that go backwards */
    {
        float pos[3] = {0, 0, 0};
        char *json = make_gltf(pos, sizeof pos,
                               "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":4,\"byteLength\":12}],"
                               "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":1,"
                               "\"type\":\"VEC3\"}],\"meshes\":[{\"primitives\":[{\"attributes\":"
                               "{\"POSITION\":0}}]}],\"nodes\":[{\"mesh\":0}]");
        expect_error(json, OSSA_ERROR_CORRUPT, "bufferViews[0]: bytes 4..16 are outside buffer 0");
        free(json);
        float keys[3] = {0, 1, 0.5f};
        json = make_gltf(keys, sizeof keys,
                         "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12}],"
                         "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
                         "\"type\":\"SCALAR\"},{\"bufferView\":0,\"componentType\":5126,\"count\":1,"
                         "\"type\":\"VEC3\"}],\"nodes\":[{}],\"animations\":[{\"channels\":[{\"sampler\":0,"
                         "\"target\":{\"node\":0,\"path\":\"translation\"}}],\"samplers\":[{\"input\":0,"
                         "\"output\":1}]}]");
        expect_error(json, OSSA_ERROR_CORRUPT, "animations[0].samplers[0].input: key times must increase");
        free(json);
    }
    /* text formats report line and column */
    ossa_error err;
    assert_null(load_mem("{\n  \"asset\": {,}\n}", 18, OSSA_FORMAT_GLTF, "x.gltf", &err));
    assert_int_equal(err.line, 2);
}

/* GLB structure errors carry byte offsets. */
static void malformed_glb(void **state)
{
    (void)state;
    ossa_model *a = build_full_model();
    size_t size;
    unsigned char *glb = write_as(a, OSSA_FORMAT_GLB, &size);
    unsigned char *bad = malloc(size);
    ossa_error err;
    memcpy(bad, glb, size);
    ts_put32(bad + 4, 1);
    assert_null(load_mem(bad, size, OSSA_FORMAT_GLB, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_int_equal(err.offset, 4);
    memcpy(bad, glb, size);
    ts_put32(bad + 16, 0x12345678); /* first chunk not JSON */
    assert_null(load_mem(bad, size, OSSA_FORMAT_GLB, NULL, &err));
    assert_int_equal(err.offset, 16);
    memcpy(bad, glb, size);
    ts_put32(bad + 12, (uint32_t)size); /* JSON chunk longer than the file */
    assert_null(load_mem(bad, size, OSSA_FORMAT_GLB, NULL, &err));
    assert_int_equal(err.code, OSSA_ERROR_TRUNCATED);
    assert_int_equal(err.offset, 12);
    free(bad);
    ossa_free_buffer(glb, NULL);
    ossa_model_free(a);
}

/* Every shorter prefix of a GLB fails cleanly (no crash under ASan, an
 * error of a structural kind). */
static void glb_truncation(void **state)
{
    (void)state;
    ossa_model *a = build_full_model();
    size_t size;
    unsigned char *glb = write_as(a, OSSA_FORMAT_GLB, &size);
    for (size_t n = 0; n < size; n++) {
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, glb, n);
        ossa_error err;
        ossa_model *m = load_mem(cut, n, OSSA_FORMAT_GLB, NULL, &err);
        if (m) fail_msg("a GLB cut to %zu of %zu bytes loaded", n, size);
        assert_true(err.code == OSSA_ERROR_TRUNCATED || err.code == OSSA_ERROR_CORRUPT ||
                    err.code == OSSA_ERROR_FORMAT);
        free(cut);
    }
    ossa_model *whole = load_ok(glb, size, OSSA_FORMAT_AUTO);
    assert_int_equal(whole->source_format, OSSA_FORMAT_GLB);
    ossa_model_free(whole);
    ossa_free_buffer(glb, NULL);
    ossa_model_free(a);
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
    ossa_model *m = load_ok(json, strlen(json), OSSA_FORMAT_AUTO);
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
        cmocka_unit_test(strips_and_fans),
        cmocka_unit_test(accessor_kinds),
        cmocka_unit_test(attribute_set_limit),
        cmocka_unit_test(animation_sampling),
        cmocka_unit_test(rigid_mesh),
        cmocka_unit_test(external_buffer),
        cmocka_unit_test(malformed_json),
        cmocka_unit_test(triangle_count_limit),
        cmocka_unit_test(large_skeletons),
        cmocka_unit_test(many_joints_blend_indexes),
        cmocka_unit_test(malformed_glb),
        cmocka_unit_test(glb_truncation),
    };
    return cmocka_run_group_tests_name("gltf", tests, NULL, NULL);
}
