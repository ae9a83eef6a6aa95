/* Textures beside models (docs/formats/tga.md §8): a material's image
 * named "X.tga", or named without an extension ("X", as IQM and MD5 files
 * often name them), is found beside the model as the name says, else as
 * X.tga, X.png, X.jpg; loading keeps it, the renderer draws with it, the
 * glTF writer embeds a TGA as a PNG of the same pixels (validated), and
 * IQM, IQE, MD5 and SMD outputs name it and copy it beside themselves.
 * The TGA files are tests/gen_tga.py's (written from the specification,
 * not by ossa); the PNG files are written here with libpng. */
#include "gltf_test.h"
#include "render_test.h"

#include "core/materials.h"

#include <png.h>

static char *gen_dir; /* gen_tga.py's output, made on first use */

/* Reads gen_tga.py's case `name`: the file (ext ".tga") or the pixels it
 * holds (".rgba"). */
static unsigned char *gen_file(const char *name, const char *ext, size_t *size)
{
    if (!gen_dir) gen_dir = ts_generate_tga("textures_gen");
    char file[128];
    snprintf(file, sizeof file, "%s%s", name, ext);
    char *path = ts_path_join(gen_dir, file);
    unsigned char *data = ts_read_file(path, size);
    assert_non_null(data);
    free(path);
    return data;
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static char *dir_path(const char *dir, const char *name)
{
    char *d = ts_tmp_path(dir);
    mkdir(d, 0777);
    char *p = ts_path_join(d, name);
    free(d);
    return p;
}

/* gen_tga.py's case `tga` copied to DIR/NAME. */
static void put_tga(const char *dir, const char *name, const char *tga)
{
    size_t size;
    unsigned char *data = gen_file(tga, ".tga", &size);
    char *path = dir_path(dir, name);
    write_bytes(path, data, size);
    free(path);
    free(data);
}

/* The pixels gen_tga.py says case `tga` holds, written by libpng as
 * DIR/NAME (a PNG). */
static void put_png_of(const char *dir, const char *name, const char *tga)
{
    size_t size;
    unsigned char *rgba = gen_file(tga, ".rgba", &size);
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = ts_le32(rgba);
    pi.height = ts_le32(rgba + 4);
    pi.format = PNG_FORMAT_RGBA;
    char *path = dir_path(dir, name);
    assert_true(png_image_write_to_file(&pi, path, 0, rgba + 8, 0, NULL));
    free(path);
    free(rgba);
}

/* A cube of 6 faces (4 vertices, 2 triangles each, texcoords 0..1), one
 * mesh per face with materials[face] ("" for the faces after the last). */
static ossa_model *cube(const char *const *materials, int count)
{
    float pos[24 * 3], nrm[24 * 3], uv[24 * 2];
    ossa_triangle tri[12];
    uint32_t nv = 0, nt = 0;
    const float c[3] = {0, 0, 0.5f};
    rtt_box(pos, nrm, uv, tri, &nv, &nt, c, 0.5f);
    ossa_error e;
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, nv, &e), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, &e));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm, &e));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv, &e));
    assert_int_equal(ossa_model_set_triangles(m, nt, tri, &e), OSSA_OK);
    if (count == 1) {
        assert_true(ossa_model_add_mesh(m, "cube", materials[0], 0, nv, 0, nt, &e) >= 0);
        return m;
    }
    for (int f = 0; f < 6; f++) {
        char name[16];
        snprintf(name, sizeof name, "face%d", f);
        assert_true(ossa_model_add_mesh(m, name, f < count ? materials[f] : "", (uint32_t)f * 4, 4,
                                        (uint32_t)f * 2, 2, &e) >= 0);
    }
    return m;
}

/* The model written as DIR/NAME (IQM or IQE by the name) and loaded back
 * with `flags`. */
static ossa_model *through_file(const ossa_model *m, const char *dir, const char *name, uint32_t flags,
                                char **path_out)
{
    char *path = dir_path(dir, name);
    ossa_error e;
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.images = OSSA_IMAGES_NONE; /* the files beside are the test's */
    assert_int_equal(ossa_write_file(m, path, &wo, &e), OSSA_OK);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.flags = flags;
    ossa_model *back = ossa_load_file(path, &lo, &e);
    if (!back) fail_msg("%s: %s", path, e.message);
    if (path_out)
        *path_out = path;
    else
        free(path);
    return back;
}

static const ossa_extra *image_extra(const ossa_model *m, const char *name)
{
    char key[300];
    snprintf(key, sizeof key, "%s%s", OSSA_EXTRA_IMAGE, name);
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, key) == 0) return &m->extras[i];
    return NULL;
}

static uint32_t count_images(const ossa_model *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->num_extras; i++)
        n += strncmp(m->extras[i].key, OSSA_EXTRA_IMAGE, strlen(OSSA_EXTRA_IMAGE)) == 0;
    return n;
}

/* The image of `name` in the model has the bytes of gen_tga.py's `tga`. */
static void assert_image_is(const ossa_model *m, const char *name, const char *tga)
{
    const ossa_extra *e = image_extra(m, name);
    if (!e) fail_msg("the model has no image '%s'", name);
    size_t size;
    unsigned char *data = gen_file(tga, ".tga", &size);
    assert_int_equal(e->size, size);
    assert_memory_equal(e->data, data, size);
    free(data);
}

static void assert_texture(const ossa_model *m, const char *material, const char *image)
{
    ossa_material d;
    bool described = ossa__material_of(m, material, &d);
    if (!image) {
        assert_false(described);
        return;
    }
    assert_true(described);
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, image);
}

/* -- Loading ----------------------------------------------------------------- */

static void test_candidates(void **state)
{
    (void)state;
    static const char *const cases[][5] = {
        {"Body.tga", "Body.tga", "Body.png", "Body.jpg", NULL},
        {"Body", "Body.tga", "Body.png", "Body.jpg", NULL},
        {"skin.png", "skin.png", "skin.tga", "skin.jpg", NULL},
        {"a/b.JPG", "a/b.JPG", "a/b.tga", "a/b.png", NULL},
        {"Material.001", "Material.001.tga", "Material.001.png", "Material.001.jpg", NULL},
        {"x.dds", "x.dds", "x.tga", "x.png", "x.jpg"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[OSSA_IMAGE_NAME_MAX];
        unsigned k = 0;
        for (; k < 4 && cases[i][k + 1]; k++) {
            assert_true(ossa__image_candidate(cases[i][0], k, out));
            assert_string_equal(out, cases[i][k + 1]);
        }
        assert_false(ossa__image_candidate(cases[i][0], k, out));
    }
}

static void test_load_beside(void **state)
{
    (void)state;
    put_tga("beside", "a.tga", "true24_bottom_up");
    put_tga("beside", "b.tga", "mapped8_24");
    put_png_of("beside", "c.png", "grey8");
    put_tga("beside", "d.tga", "rle24");
    put_png_of("beside", "d.png", "rle24");
    static const char *const mats[6] = {"a.tga", "b", "c.tga", "d", "d.png", "e"};
    ossa_model *m = cube(mats, 6);
    ossa_model *back = through_file(m, "beside", "cube.iqm", 0, NULL);
    assert_image_is(back, "a.tga", "true24_bottom_up");
    assert_image_is(back, "b.tga", "mapped8_24");
    assert_image_is(back, "d.tga", "rle24");
    assert_non_null(image_extra(back, "c.png"));
    assert_non_null(image_extra(back, "d.png"));
    assert_int_equal(count_images(back), 5);
    /* Each material's texture: the name, then .tga, .png, .jpg. */
    assert_texture(back, "a.tga", "a.tga");
    assert_texture(back, "b", "b.tga");
    assert_texture(back, "c.tga", "c.png");
    assert_texture(back, "d", "d.tga");
    assert_texture(back, "d.png", "d.png");
    assert_texture(back, "e", NULL);
    assert_int_equal(back->num_warnings, 0);
    ossa_model_free(back);
    /* OSSA_LOAD_NO_IMAGES reads none. */
    back = through_file(m, "beside", "cube.iqe", OSSA_LOAD_NO_IMAGES, NULL);
    assert_int_equal(count_images(back), 0);
    ossa_model_free(back);
    ossa_model_free(m);
}

typedef struct reads {
    char asked[16][64];
    int n;
    bool refuse;
} reads;

static ossa_status read_cb(void *user, const char *path, void **data, size_t *size)
{
    reads *r = user;
    const char *slash = strrchr(path, '/');
    if (r->n < 16) snprintf(r->asked[r->n++], 64, "%s", slash ? slash + 1 : path);
    if (r->refuse) return OSSA_FAILED;
    *data = ts_read_file(path, size);
    return *data ? OSSA_OK : OSSA_FAILED;
}

static void release_cb(void *user, void *data, size_t size)
{
    (void)user, (void)size;
    free(data);
}

static void test_load_rules(void **state)
{
    (void)state;
    /* Through read_file: the candidates in order, until one is given. */
    put_tga("rules", "x.png", "true24_top_down"); /* TGA bytes under a .png name */
    static const char *const mats[1] = {"x"};
    ossa_model *m = cube(mats, 1);
    char *path = dir_path("rules", "cube.iqm");
    ossa_error e;
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    assert_int_equal(ossa_write_file(m, path, &wo, &e), OSSA_OK);
    size_t size;
    unsigned char *file = ts_read_file(path, &size);
    reads r;
    memset(&r, 0, sizeof r);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = path;
    lo.read_file = read_cb;
    lo.release_file = release_cb;
    lo.file_user = &r;
    ossa_model *back = ossa_load_memory(file, size, &lo, &e);
    assert_non_null(back);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.asked[0], "x.tga");
    assert_string_equal(r.asked[1], "x.png");
    assert_image_is(back, "x.png", "true24_top_down");
    ossa_model_free(back);
    /* Refused by the callback: no image, no failure. */
    memset(&r, 0, sizeof r);
    r.refuse = true;
    back = ossa_load_memory(file, size, &lo, &e);
    assert_non_null(back);
    assert_int_equal(r.n, 3);
    assert_int_equal(count_images(back), 0);
    ossa_model_free(back);
    free(file);
    free(path);
    ossa_model_free(m);

    /* Outside the model's folder: refused with one warning, unless allowed. */
    put_tga("rules", "up.tga", "grey8");
    static const char *const up[1] = {"../rules/up"};
    m = cube(up, 1);
    back = through_file(m, "rules", "up.iqm", 0, NULL);
    assert_int_equal(count_images(back), 0);
    assert_int_equal(back->num_warnings, 1);
    assert_non_null(strstr(back->warnings[0].message, "outside the model's folder"));
    ossa_model_free(back);
    back = through_file(m, "rules", "up.iqm", OSSA_LOAD_ALLOW_PARENT_PATHS, NULL);
    assert_image_is(back, "../rules/up.tga", "grey8");
    ossa_model_free(back);
    ossa_model_free(m);
}

/* -- Rendering ---------------------------------------------------------------- */

/* The model's front face, drawn orthographically with flat light, and a
 * three-quarter view, into pictures of 48x48 each. */
static void draw(const ossa_model *m, const char *path, uint8_t *out, uint32_t *textured)
{
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_render_scene_load_materials(s, m, path, NULL, NULL);
    ossa_render_scene_info info;
    ossa_render_scene_get_info(s, &info);
    *textured = info.textured_meshes;
    for (int view = 0; view < 2; view++) {
        ossa_render_camera cam;
        if (view == 0) {
            rtt_frame_front(m, 48, 48, &cam);
        } else {
            ossa_bounds b;
            assert_int_equal(ossa_render_bounds(m, -1, &b, &e), OSSA_OK);
            assert_int_equal(ossa_render_camera_frame(NULL, &b, OSSA_AXIS_Z, 48, 48, &cam, &e), OSSA_OK);
        }
        ossa_render_options o;
        memset(&o, 0, sizeof o);
        o.camera = &cam;
        if (view == 0) rtt_flat_lighting(&o);
        ossa_render_image im = {48, 48, out + (size_t)view * 48 * 48 * 4, 0, NULL};
        assert_int_equal(ossa_render_run(s, &o, &im, &e), OSSA_OK);
    }
    ossa_render_scene_free(s);
}

static uint32_t distinct_colours(const uint8_t *px, size_t n)
{
    static uint8_t seen[1 << 15];
    memset(seen, 0, sizeof seen);
    uint32_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = px + i * 4;
        unsigned key = (unsigned)(p[0] >> 3) << 10 | (unsigned)(p[1] >> 3) << 5 | (unsigned)(p[2] >> 3);
        count += !seen[key];
        seen[key] = 1;
    }
    return count;
}

static void test_render_tga(void **state)
{
    (void)state;
    static const char *const kinds[] = {"true24_bottom_up", "true24_top_down_right_to_left", "rle24",
                                        "rle_mapped8_32_cross_rows", "true16_alpha_bit", "grey16_alpha"};
    enum { SIZE = 2 * 48 * 48 * 4 };
    static uint8_t tga_pic[SIZE], png_pic[SIZE], plain_pic[SIZE];
    static const char *const none[1] = {""};
    ossa_model *plain = cube(none, 1);
    uint32_t textured;
    draw(plain, NULL, plain_pic, &textured);
    assert_int_equal(textured, 0);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        /* The same pixels as a TGA (named without its extension) and as a
         * PNG: the same pictures, byte for byte. */
        put_tga("render", "tex.tga", kinds[k]);
        put_png_of("render", "ref.png", kinds[k]);
        static const char *const tex[1] = {"tex"}, *const ref[1] = {"ref.png"};
        ossa_model *a = cube(tex, 1), *b = cube(ref, 1);
        char *path;
        ossa_model *la = through_file(a, "render", "tex.iqm", 0, &path);
        draw(la, path, tga_pic, &textured);
        assert_int_equal(textured, 1);
        ossa_model *lb = through_file(b, "render", "ref.iqm", 0, NULL);
        draw(lb, NULL, png_pic, &textured);
        assert_int_equal(textured, 1);
        if (memcmp(tga_pic, png_pic, SIZE) != 0) fail_msg("%s: the TGA draws unlike the PNG", kinds[k]);
        assert_true(memcmp(tga_pic, plain_pic, SIZE) != 0);
        /* The colours come from the texture: many, not a flat one (grey
         * levels are fewer: 24 in 5-bit steps). */
        assert_true(distinct_colours(tga_pic, 48 * 48) > (strncmp(kinds[k], "grey", 4) ? 200u : 20u));
        /* Without the image in the model the renderer finds it beside. */
        ossa_model_free(la);
        la = through_file(a, "render", "tex.iqm", OSSA_LOAD_NO_IMAGES, NULL);
        draw(la, path, tga_pic, &textured);
        assert_int_equal(textured, 1);
        assert_memory_equal(tga_pic, png_pic, SIZE);
        ossa_model_free(la);
        ossa_model_free(lb);
        ossa_model_free(a);
        ossa_model_free(b);
        free(path);
    }
    ossa_model_free(plain);
}

/* -- glTF ---------------------------------------------------------------------- */

typedef struct warnings {
    char text[4][256];
    int n;
} warnings;

static void on_warning(void *user, const ossa_diagnostic *d)
{
    warnings *w = user;
    if (w->n < 4) snprintf(w->text[w->n++], 256, "%s", d->message);
}

/* The pixels of PNG bytes equal gen_tga.py's expected pixels of `tga`. */
static void assert_png_pixels(const void *png, size_t size, const char *tga)
{
    assert_true(size > 8 && memcmp(png, "\x89PNG", 4) == 0);
    ossa_render_image im;
    ossa_error e;
    assert_int_equal(ossa_render_png_decode(png, size, NULL, &im, &e), OSSA_OK);
    size_t n;
    unsigned char *rgba = gen_file(tga, ".rgba", &n);
    assert_int_equal(im.width, ts_le32(rgba));
    assert_int_equal(im.height, ts_le32(rgba + 4));
    assert_memory_equal(im.pixels, rgba + 8, n - 8);
    free(rgba);
    ossa_free(im.pixels, NULL);
}

static void test_gltf_embeds_png(void **state)
{
    (void)state;
    put_tga("gltf", "Body.tga", "true24_bottom_up");
    put_tga("gltf", "Head.tga", "rle_mapped8_32_cross_rows");
    /* the first bytes of a TGA whose colour map runs past its end */
    size_t size;
    unsigned char *bad = gen_file("mapped8_24", ".tga", &size);
    char *bad_path = dir_path("gltf", "bad.tga");
    write_bytes(bad_path, bad, 100);
    free(bad_path);
    free(bad);
    static const char *const mats[3] = {"Body.tga", "Head", "bad.tga"};
    ossa_model *m = cube(mats, 3);
    ossa_model *back = through_file(m, "gltf", "mrfixit.iqm", 0, NULL);
    assert_int_equal(count_images(back), 3);
    static const char *const outputs[3] = {"out.glb", "out.gltf", "out_embedded.gltf"};
    static const char *const want[2][2] = {{"Body.png", "true24_bottom_up"},
                                           {"Head.png", "rle_mapped8_32_cross_rows"}};
    for (int k = 0; k < 3; k++) {
        char *path = dir_path("gltf", outputs[k]);
        warnings w;
        memset(&w, 0, sizeof w);
        ossa_write_options wo;
        memset(&wo, 0, sizeof wo);
        static const ossa_option embed = {"gltf.embed", "on"};
        wo.format_options = &embed;
        wo.num_format_options = k == 2;
        wo.diagnostic = on_warning;
        wo.user = &w;
        ossa_error e;
        assert_int_equal(ossa_write_file(back, path, &wo, &e), OSSA_OK);
        /* The TGA that does not decode is left out, said once, with why. */
        assert_int_equal(w.n, 1);
        assert_non_null(strstr(w.text[0], "TGA images that do not decode"));
        assert_non_null(strstr(w.text[0], "'bad.tga'"));
        assert_non_null(strstr(w.text[0], "byte 100"));
        unsigned char *file = ts_read_file(path, &size);
        cJSON *root = gt_json_of(file, size);
        cJSON *images = cJSON_GetObjectItemCaseSensitive(root, "images");
        assert_int_equal(cJSON_GetArraySize(images), 2);
        for (int i = 0; i < 2; i++) {
            cJSON *img = cJSON_GetArrayItem(images, i);
            cJSON *uri = cJSON_GetObjectItemCaseSensitive(img, "uri");
            if (k == 1) {
                /* beside the .gltf, under the PNG name */
                assert_string_equal(uri->valuestring, want[i][0]);
                char *png_path = dir_path("gltf", want[i][0]);
                size_t n;
                unsigned char *png = ts_read_file(png_path, &n);
                assert_non_null(png);
                assert_png_pixels(png, n, want[i][1]);
                free(png);
                free(png_path);
                continue;
            }
            assert_null(uri);
            assert_string_equal(cJSON_GetObjectItemCaseSensitive(img, "name")->valuestring, want[i][0]);
            assert_string_equal(cJSON_GetObjectItemCaseSensitive(img, "mimeType")->valuestring,
                                "image/png");
            /* The embedded bytes, through a load of the file: the model's
             * image of that name. */
        }
        cJSON_Delete(root);
        free(file);
        ossa_model *again = ossa_load_file(path, NULL, &e);
        assert_non_null(again);
        for (int i = 0; i < 2; i++) {
            const ossa_extra *x = image_extra(again, want[i][0]);
            assert_non_null(x);
            assert_png_pixels(x->data, x->size, want[i][1]);
        }
        assert_texture(again, "Body.tga", "Body.png");
        assert_texture(again, "Head", "Head.png");
        ossa_model_free(again);
        gt_validate_file(path);
        free(path);
    }
    ossa_model_free(back);
    ossa_model_free(m);
}

/* -- Formats that name their images ------------------------------------------- */

static void test_copied_beside_outputs(void **state)
{
    (void)state;
    put_tga("named", "Body.tga", "true24_bottom_up");
    put_tga("named", "Head.tga", "rle32_alpha");
    static const char *const mats[2] = {"Body.tga", "Head"};
    ossa_model *m = cube(mats, 2);
    ossa_model *back = through_file(m, "named", "in.iqm", 0, NULL);
    static const char *const outputs[4] = {"iqm/x.iqm", "iqe/x.iqe", "md5/x.md5mesh", "smd/x.smd"};
    for (int k = 0; k < 4; k++) {
        char dir[32];
        snprintf(dir, sizeof dir, "named_%.*s", (int)(strchr(outputs[k], '/') - outputs[k]), outputs[k]);
        char *path = dir_path(dir, strchr(outputs[k], '/') + 1);
        ossa_error e;
        assert_int_equal(ossa_write_file(back, path, NULL, &e), OSSA_OK);
        /* The TGA files beside, as they were; the materials name them. */
        for (int i = 0; i < 2; i++) {
            char *copy = dir_path(dir, i ? "Head.tga" : "Body.tga");
            size_t n, want_n;
            unsigned char *got = ts_read_file(copy, &n);
            unsigned char *want = gen_file(i ? "rle32_alpha" : "true24_bottom_up", ".tga", &want_n);
            if (!got) fail_msg("%s: no %s beside it", outputs[k], copy);
            assert_int_equal(n, want_n);
            assert_memory_equal(got, want, n);
            free(got);
            free(want);
            free(copy);
        }
        ossa_model *again = ossa_load_file(path, NULL, &e);
        if (!again) fail_msg("%s: %s", path, e.message);
        bool body = false, head = false;
        for (uint32_t i = 0; i < again->num_meshes; i++) {
            body |= strcmp(again->meshes[i].material, "Body.tga") == 0;
            head |= strcmp(again->meshes[i].material, "Head.tga") == 0;
        }
        assert_true(body && head);
        assert_image_is(again, "Body.tga", "true24_bottom_up");
        assert_image_is(again, "Head.tga", "rle32_alpha");
        ossa_model_free(again);
        free(path);
    }
    ossa_model_free(back);
    ossa_model_free(m);
}

/* Every allocation of loading a model with TGA files beside it, and of
 * writing it as .glb (the TGA decoded, the PNG encoded), failed in turn:
 * out of memory, nothing held, no file left. */
static void test_allocation_failures(void **state)
{
    (void)state;
    put_tga("alloc", "Body.tga", "rle24");
    put_tga("alloc", "Head.tga", "mapped8_32_alpha");
    static const char *const mats[2] = {"Body.tga", "Head"};
    ossa_model *m = cube(mats, 2);
    char *in;
    ossa_model *ref = through_file(m, "alloc", "in.iqm", 0, &in);
    ossa_model_free(m);
    assert_int_equal(count_images(ref), 2);
    char *out = dir_path("alloc", "out.glb");
    for (int step = 0; step < 2; step++) {
        long total = -1;
        for (long n = 0; n <= total || total < 0; n++) {
            ts_alloc a;
            ts_alloc_init(&a, total < 0 ? -1 : n, false);
            ossa_error e;
            ossa_status st;
            if (step == 0) {
                ossa_load_options lo;
                memset(&lo, 0, sizeof lo);
                lo.allocator = &a.allocator;
                ossa_model *x = ossa_load_file(in, &lo, &e);
                st = x ? OSSA_OK : OSSA_FAILED;
                if (x) assert_int_equal(count_images(x), 2);
                ossa_model_free(x);
            } else {
                remove(out);
                ossa_write_options wo;
                memset(&wo, 0, sizeof wo);
                wo.allocator = &a.allocator;
                st = ossa_write_file(ref, out, &wo, &e);
                struct stat sb;
                assert_int_equal(stat(out, &sb) == 0, st == OSSA_OK);
            }
            assert_int_equal(a.live, 0);
            if (total < 0) {
                assert_int_equal(st, OSSA_OK);
                total = a.calls;
                printf("%s: %ld allocations, each failed in turn\n", step ? "write .glb" : "load .iqm",
                       total);
                continue;
            }
            if (st) assert_int_equal(e.code, OSSA_ERROR_NOMEM);
        }
    }
    free(out);
    free(in);
    ossa_model_free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_candidates),
        cmocka_unit_test(test_load_beside),
        cmocka_unit_test(test_load_rules),
        cmocka_unit_test(test_render_tga),
        cmocka_unit_test(test_gltf_embeds_png),
        cmocka_unit_test(test_copied_beside_outputs),
        cmocka_unit_test(test_allocation_failures),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(gen_dir);
    return rc;
}
