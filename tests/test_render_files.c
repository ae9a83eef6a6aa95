/* Pictures in files: every view and option gives a PNG that libpng reads
 * back to the same pixels and GIFs that giflib reads back (frames, delays,
 * loop, transparency, colours close to the rendered ones); materials come
 * from PNG and JPEG files beside a model and from glTF files. The files are read
 * back here with libpng and giflib directly, not through the library. */
#include "render_test.h"

#include <gif_lib.h>
#include <png.h>

/* -- Reading back, independently -- */

static uint8_t *png_read_back(const void *data, size_t size, uint32_t *w, uint32_t *h)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_memory(&pi, data, size));
    pi.format = PNG_FORMAT_RGBA;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(pi));
    assert_non_null(px);
    assert_true(png_image_finish_read(&pi, NULL, px, 0, NULL));
    *w = pi.width, *h = pi.height;
    return px;
}

typedef struct mem_reader {
    const uint8_t *data;
    size_t size, at;
} mem_reader;

static int gif_read(GifFileType *gif, GifByteType *out, int n)
{
    mem_reader *r = gif->UserData;
    size_t k = (size_t)n < r->size - r->at ? (size_t)n : r->size - r->at;
    memcpy(out, r->data + r->at, k);
    r->at += k;
    return (int)k;
}

static GifFileType *gif_read_back(const void *data, size_t size, mem_reader *r)
{
    *r = (mem_reader){data, size, 0};
    int err = 0;
    GifFileType *gif = DGifOpen(r, gif_read, &err);
    assert_non_null(gif);
    assert_int_equal(DGifSlurp(gif), GIF_OK);
    return gif;
}

/* -- A model to draw -- */

static ossa_model *cube_with_material(const char *material)
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
    assert_true(ossa_model_add_mesh(m, "cube", material, 0, nv, 0, nt, &e) >= 0);
    ossa_transform t = ossa_transform_identity();
    assert_int_equal(ossa_model_add_joint(m, "root", -1, &t, &e), 0);
    t.translation[2] = 0.5f;
    assert_int_equal(ossa_model_add_joint(m, "top", 0, &t, &e), 1);
    return m;
}

/* -- PNG -- */

static void test_png_every_view_and_option(void **state)
{
    (void)state;
    ossa_model *m = cube_with_material("");
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_bounds b;
    assert_int_equal(ossa_render_bounds(m, OSSA_BIND_POSE, &b, &e), OSSA_OK);
    const uint32_t option_sets[] = {
        0,
        OSSA_RENDER_GRID | OSSA_RENDER_SHADOW,
        OSSA_RENDER_GRID | OSSA_RENDER_SHADOW | OSSA_RENDER_SKELETON,
        OSSA_RENDER_TRANSPARENT | OSSA_RENDER_SHADOW,
        OSSA_RENDER_SKELETON | OSSA_RENDER_HIDE_MODEL,
        OSSA_RENDER_TWO_SIDED | OSSA_RENDER_NO_TEXTURES,
    };
    rtt_image im;
    rtt_image_init(&im, 96, 64);
    for (int view = OSSA_RENDER_VIEW_DEFAULT; view <= OSSA_RENDER_VIEW_THREE_QUARTER; view++)
        for (int ortho = 0; ortho < 2; ortho++)
            for (size_t k = 0; k < sizeof option_sets / sizeof option_sets[0]; k++) {
                ossa_render_camera_options co;
                memset(&co, 0, sizeof co);
                co.view = (ossa_render_view)view;
                co.flags = ortho ? OSSA_RENDER_CAMERA_ORTHOGRAPHIC : 0;
                ossa_render_camera cam;
                assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, 96, 64, &cam, &e),
                                 OSSA_OK);
                ossa_render_options o;
                memset(&o, 0, sizeof o);
                o.camera = &cam;
                o.flags = option_sets[k];
                o.supersample = (uint32_t)(k % 4) + 1;
                rtt_run(s, &o, &im);
                if (!(o.flags & OSSA_RENDER_HIDE_MODEL)) {
                    /* The model is in the picture and clear of its edges. */
                    size_t drawn = 0;
                    for (uint32_t y = 0; y < 64; y++)
                        for (uint32_t x = 0; x < 96; x++) {
                            bool on = im.depth[y * 96 + x] < 1;
                            drawn += on;
                            if (x == 0 || y == 0 || x == 95 || y == 63) assert_false(on);
                        }
                    assert_true(drawn > 200);
                }
                void *png;
                size_t size;
                assert_int_equal(ossa_render_png_encode(&im.image, NULL, &png, &size, &e), OSSA_OK);
                uint32_t w, h;
                uint8_t *back = png_read_back(png, size, &w, &h);
                assert_int_equal(w, 96);
                assert_int_equal(h, 64);
                assert_memory_equal(back, im.pixels, 96 * 64 * 4);
                free(back);
                /* And through the library's own decoder. */
                ossa_render_image dec;
                assert_int_equal(ossa_render_png_decode(png, size, NULL, &dec, &e), OSSA_OK);
                assert_memory_equal(dec.pixels, im.pixels, 96 * 64 * 4);
                ossa_free(dec.pixels, NULL);
                ossa_free(png, NULL);
            }
    /* A file, written atomically. */
    char *path = ts_tmp_path("render_cube.png");
    assert_int_equal(ossa_render_png_write(&im.image, path, &e), OSSA_OK);
    size_t size;
    unsigned char *file = ts_read_file(path, &size);
    assert_non_null(file);
    uint32_t w, h;
    free(png_read_back(file, size, &w, &h));
    free(file);
    /* A directory that does not exist: an IO error naming the file. */
    assert_int_equal(ossa_render_png_write(&im.image, "/nonexistent-dir/x.png", &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_IO);
    free(path);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

static void test_png_decode_rejects(void **state)
{
    (void)state;
    ossa_render_image out;
    ossa_error e;
    const unsigned char junk[] = "\x89PNG\r\n\x1a\n but not really";
    assert_int_equal(ossa_render_png_decode(junk, sizeof junk, NULL, &out, &e), OSSA_FAILED);
    assert_int_equal(ossa_render_png_decode("GIF89a", 6, NULL, &out, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_FORMAT);
    /* Every truncation of a real PNG fails cleanly. */
    uint8_t px[8 * 8 * 4];
    for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i * 7);
    ossa_render_image im = {8, 8, px, 0, NULL};
    void *png;
    size_t size;
    assert_int_equal(ossa_render_png_encode(&im, NULL, &png, &size, &e), OSSA_OK);
    for (size_t n = 0; n < size; n++) {
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, png, n);
        if (ossa_render_png_decode(cut, n, NULL, &out, &e) == OSSA_OK) ossa_free(out.pixels, NULL);
        free(cut);
    }
    ossa_free(png, NULL);
}

/* -- GIF -- */

static void test_gif(void **state)
{
    (void)state;
    ossa_model *m = cube_with_material("");
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_bounds b;
    assert_int_equal(ossa_render_bounds(m, OSSA_BIND_POSE, &b, &e), OSSA_OK);
    for (int transparent = 0; transparent < 2; transparent++) {
        enum { W = 80, H = 60, FRAMES = 5 };
        ossa_render_gif_options go;
        memset(&go, 0, sizeof go);
        go.width = W, go.height = H, go.fps = 24;
        ossa_render_gif *gif = ossa_render_gif_create(&go, &e);
        assert_non_null(gif);
        rtt_image frames[FRAMES];
        for (int f = 0; f < FRAMES; f++) {
            ossa_render_camera_options co;
            memset(&co, 0, sizeof co);
            co.flags = OSSA_RENDER_CAMERA_YAW;
            co.yaw = 20.0f * f;
            ossa_render_camera cam;
            assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, W, H, &cam, &e), OSSA_OK);
            ossa_render_options o;
            memset(&o, 0, sizeof o);
            o.camera = &cam;
            o.flags = OSSA_RENDER_GRID | OSSA_RENDER_SHADOW | (transparent ? OSSA_RENDER_TRANSPARENT : 0);
            o.supersample = 2;
            rtt_image_init(&frames[f], W, H);
            rtt_run(s, &o, &frames[f]);
            assert_int_equal(ossa_render_gif_add_frame(gif, &frames[f].image, &e), OSSA_OK);
        }
        /* A frame of the wrong size is refused. */
        ossa_render_image small = {W - 1, H, frames[0].pixels, 0, NULL};
        assert_int_equal(ossa_render_gif_add_frame(gif, &small, &e), OSSA_FAILED);
        void *data;
        size_t size;
        assert_int_equal(ossa_render_gif_finish(gif, &data, &size, &e), OSSA_OK);
        assert_int_equal(ossa_render_gif_add_frame(gif, &frames[0].image, &e), OSSA_FAILED);
        ossa_render_gif_free(gif);

        mem_reader r;
        GifFileType *g = gif_read_back(data, size, &r);
        assert_int_equal(g->SWidth, W);
        assert_int_equal(g->SHeight, H);
        assert_int_equal(g->ImageCount, FRAMES);
        /* Looping forever: Netscape's extension before the first frame. */
        bool loops = false;
        const SavedImage *first = &g->SavedImages[0];
        for (int k = 0; k + 1 < first->ExtensionBlockCount; k++)
            if (first->ExtensionBlocks[k].Function == APPLICATION_EXT_FUNC_CODE &&
                first->ExtensionBlocks[k].ByteCount == 11 &&
                memcmp(first->ExtensionBlocks[k].Bytes, "NETSCAPE2.0", 11) == 0)
                loops = first->ExtensionBlocks[k + 1].Bytes[0] == 1 &&
                        first->ExtensionBlocks[k + 1].Bytes[1] == 0 &&
                        first->ExtensionBlocks[k + 1].Bytes[2] == 0;
        assert_true(loops);
        /* Frames after the first may cover only what changed: they are
         * drawn over the picture so far, as a viewer does. */
        uint8_t *canvas = calloc((size_t)W * H, 3);
        int total_delay = 0;
        for (int f = 0; f < FRAMES; f++) {
            GraphicsControlBlock gcb;
            assert_int_equal(DGifSavedExtensionToGCB(g, f, &gcb), GIF_OK);
            /* 24 fps: frames start at round(100 f / 24) hundredths. */
            total_delay += gcb.DelayTime;
            assert_int_equal(total_delay, (int)floor(100.0 * (f + 1) / 24 + 0.5));
            const SavedImage *si = &g->SavedImages[f];
            const GifImageDesc *d = &si->ImageDesc;
            const ColorMapObject *map = d->ColorMap ? d->ColorMap : g->SColorMap;
            assert_non_null(map);
            assert_true(d->Left >= 0 && d->Top >= 0 && d->Left + d->Width <= W &&
                        d->Top + d->Height <= H);
            if (transparent || f == 0) {
                /* Whole frames (transparency clears each before the next). */
                assert_int_equal(d->Width, W);
                assert_int_equal(d->Height, H);
                if (transparent) assert_int_equal(gcb.DisposalMode, DISPOSE_BACKGROUND);
            }
            for (int y = 0; y < d->Height; y++)
                for (int x = 0; x < d->Width; x++) {
                    int idx = si->RasterBits[y * d->Width + x];
                    size_t i = (size_t)(d->Top + y) * W + (size_t)(d->Left + x);
                    const uint8_t *p = frames[f].pixels + i * 4;
                    if (p[3] < 128) {
                        assert_int_equal(idx, gcb.TransparentColor);
                        continue;
                    }
                    assert_true(idx != gcb.TransparentColor && idx < map->ColorCount);
                    canvas[i * 3] = map->Colors[idx].Red;
                    canvas[i * 3 + 1] = map->Colors[idx].Green;
                    canvas[i * 3 + 2] = map->Colors[idx].Blue;
                }
            double err = 0;
            size_t opaque = 0;
            for (size_t i = 0; i < (size_t)W * H; i++) {
                const uint8_t *p = frames[f].pixels + i * 4;
                if (p[3] < 128) continue;
                for (int c = 0; c < 3; c++) err += abs(canvas[i * 3 + c] - p[c]);
                opaque++;
            }
            if (!transparent) assert_int_equal(gcb.TransparentColor, NO_TRANSPARENT_COLOR);
            /* 256 colours of a median cut over small pictures: under a
             * level and a half per channel on average. */
            assert_true(err / (3.0 * (double)opaque) < 1.5);
            rtt_image_free(&frames[f]);
        }
        free(canvas);
        DGifCloseFile(g, NULL);
        ossa_free(data, NULL);
    }
    /* Without frames there is nothing to finish. */
    ossa_render_gif_options go;
    memset(&go, 0, sizeof go);
    go.width = go.height = 4;
    ossa_render_gif *gif = ossa_render_gif_create(&go, &e);
    void *data;
    size_t size;
    assert_int_equal(ossa_render_gif_finish(gif, &data, &size, &e), OSSA_FAILED);
    ossa_render_gif_free(gif);
    go.width = 0;
    assert_null(ossa_render_gif_create(&go, &e));
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

/* -- Materials from files -- */

typedef struct notes {
    int count;
    char last[256];
} notes;

static void on_diagnostic(void *user, const ossa_diagnostic *d)
{
    notes *n = user;
    n->count++;
    snprintf(n->last, sizeof n->last, "%s", d->message);
}

/* A 2x2 texture: red, green / blue, white. */
static void write_texture(const char *name)
{
    uint8_t px[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    ossa_render_image im = {2, 2, px, 0, NULL};
    char *path = ts_tmp_path(name);
    ossa_error e;
    assert_int_equal(ossa_render_png_write(&im, path, &e), OSSA_OK);
    free(path);
}

/* The same four colours as a 16x16 JPEG (8x8 flat blocks). */
static void write_jpeg_texture(const char *name)
{
    uint8_t px[16 * 16 * 3];
    rtt_quadrants(px);
    size_t size;
    unsigned char *jpg = rtt_jpeg_encode(px, 16, 16, 3, 100, false, &size);
    char *path = ts_tmp_path(name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(jpg, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    free(path);
    free(jpg);
}

static uint32_t load_materials(const char *file, const char *material, notes *n,
                               ossa_render_scene_info *info)
{
    ossa_model *m = cube_with_material(material);
    char *path = ts_tmp_path(file);
    ossa_error e;
    assert_int_equal(ossa_write_file(m, path, NULL, &e), OSSA_OK);
    ossa_model_free(m);
    m = ossa_load_file(path, NULL, &e);
    assert_non_null(m);
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    memset(n, 0, sizeof *n);
    uint32_t set = ossa_render_scene_load_materials(s, m, path, on_diagnostic, n);
    ossa_render_scene_get_info(s, info);
    if (info->textured_meshes) {
        /* The front face shows all four texels. */
        ossa_render_camera cam;
        rtt_frame_front(m, 64, 64, &cam);
        ossa_render_options o;
        memset(&o, 0, sizeof o);
        o.camera = &cam;
        rtt_flat_lighting(&o);
        rtt_image im;
        rtt_image_init(&im, 64, 64);
        rtt_run(s, &o, &im);
        int seen = 0;
        for (uint32_t i = 0; i < 64 * 64; i++) {
            const uint8_t *p = im.pixels + i * 4;
            seen |= (p[0] > 240 && p[1] < 15 && p[2] < 15) << 0;
            seen |= (p[0] < 15 && p[1] > 240 && p[2] < 15) << 1;
            seen |= (p[0] < 15 && p[1] < 15 && p[2] > 240) << 2;
            seen |= (p[0] > 240 && p[1] > 240 && p[2] > 240) << 3;
        }
        assert_int_equal(seen, 15);
        rtt_image_free(&im);
    }
    ossa_render_scene_free(s);
    ossa_model_free(m);
    free(path);
    return set;
}

static void test_materials_beside(void **state)
{
    (void)state;
    write_texture("render_checker.png");
    notes n;
    ossa_render_scene_info info;
    assert_int_equal(load_materials("render_tex.iqm", "render_checker.png", &n, &info), 1);
    assert_int_equal(info.textured_meshes, 1);
    assert_int_equal(n.count, 0);
    /* No extension: ".png" is tried. */
    assert_int_equal(load_materials("render_tex2.iqe", "render_checker", &n, &info), 1);
    assert_int_equal(info.textured_meshes, 1);
    /* Another extension: the same name with ".png". */
    assert_int_equal(load_materials("render_tex3.iqm", "render_checker.tga", &n, &info), 1);
    /* Missing: reported, the mesh keeps its colour. */
    assert_int_equal(load_materials("render_tex4.iqm", "render_missing.tga", &n, &info), 0);
    assert_int_equal(info.textured_meshes, 0);
    assert_int_equal(n.count, 1);
    assert_non_null(strstr(n.last, "render_missing.tga"));
    /* A JPEG, named, or found after ".png" by its ".jpg" name. */
    write_jpeg_texture("render_checker_j.jpg");
    assert_int_equal(load_materials("render_tex5.iqm", "render_checker_j.jpg", &n, &info), 1);
    assert_int_equal(info.textured_meshes, 1);
    assert_int_equal(n.count, 0);
    assert_int_equal(load_materials("render_tex6.iqe", "render_checker_j", &n, &info), 1);
    assert_int_equal(info.textured_meshes, 1);
    /* Neither: both names are said. */
    assert_int_equal(load_materials("render_tex7.iqe", "render_nothing", &n, &info), 0);
    assert_int_equal(n.count, 1);
    assert_non_null(strstr(n.last, "no image 'render_nothing.tga', '.png' or '.jpg' beside"));
}

static void test_materials_gltf(void **state)
{
    (void)state;
    write_texture("render_checker.png");
    notes n;
    ossa_render_scene_info info;
    /* The glTF writer turns an image-named material into a base colour
     * texture with that URI. */
    assert_int_equal(load_materials("render_tex.glb", "render_checker.png", &n, &info), 1);
    assert_int_equal(info.textured_meshes, 1);
    assert_int_equal(load_materials("render_tex.gltf", "render_checker.png", &n, &info), 1);
    assert_int_equal(info.textured_meshes, 1);
}

/* Pixels drawn in the left and right halves of a picture. */
static void halves(const rtt_image *im, uint32_t w, uint32_t h, size_t drawn[2])
{
    drawn[0] = drawn[1] = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) drawn[x >= w / 2] += im->depth[y * w + x] < 1;
}

/* An open mesh draws both sides, unless a glTF material says it has one
 * (glTF's default, which viewers cull): then a triangle facing away from
 * the camera is not drawn, except in a render made two-sided. */
static void test_materials_single_sided(void **state)
{
    (void)state;
    ossa_error e;
    ossa_model *m = rtt_facing_pair("plain");
    char *path = ts_tmp_path("render_single_sided.glb");
    assert_int_equal(ossa_write_file(m, path, NULL, &e), OSSA_OK);
    ossa_model_free(m);
    m = ossa_load_file(path, NULL, &e);
    assert_non_null(m);
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_render_scene_info info;
    ossa_render_scene_get_info(s, &info);
    assert_int_equal(info.two_sided_meshes, 1);
    notes n;
    memset(&n, 0, sizeof n);
    ossa_render_scene_load_materials(s, m, path, on_diagnostic, &n);
    ossa_render_scene_get_info(s, &info);
    assert_int_equal(info.two_sided_meshes, 0);

    ossa_render_camera cam;
    rtt_frame_front(m, 64, 64, &cam);
    ossa_render_options o;
    memset(&o, 0, sizeof o);
    o.camera = &cam;
    rtt_image im;
    rtt_image_init(&im, 64, 64);
    size_t drawn[2];
    rtt_run(s, &o, &im);
    halves(&im, 64, 64, drawn);
    assert_true(drawn[0] > 100);
    assert_int_equal(drawn[1], 0);
    o.flags = OSSA_RENDER_TWO_SIDED;
    rtt_run(s, &o, &im);
    halves(&im, 64, 64, drawn);
    assert_true(drawn[0] > 100 && drawn[1] > 100);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
    free(path);
}

static void shared_gltf(const char *rel, uint32_t textured)
{
    ts_require_shared_data();
    char *dir = ts_path_join(getenv("OSSA_SHARED_DIR"), "data");
    char *path = ts_path_join(dir, rel);
    ossa_error e;
    ossa_model *m = ossa_load_file(path, NULL, &e);
    assert_non_null(m);
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    notes n;
    memset(&n, 0, sizeof n);
    ossa_render_scene_load_materials(s, m, path, on_diagnostic, &n);
    ossa_render_scene_info info;
    ossa_render_scene_get_info(s, &info);
    assert_int_equal(info.textured_meshes, textured);
    if (n.count) fail_msg("%s: %s", rel, n.last);
    ossa_render_scene_free(s);
    ossa_model_free(m);
    free(path);
    free(dir);
}

static void test_materials_fox(void **state)
{
    (void)state;
    shared_gltf("gltf/Fox.glb", 1); /* an embedded PNG */
}

static void test_materials_cesium_man(void **state)
{
    (void)state;
    shared_gltf("gltf/CesiumMan.glb", 1); /* an embedded JPEG */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_every_view_and_option),
        cmocka_unit_test(test_png_decode_rejects),
        cmocka_unit_test(test_gif),
        cmocka_unit_test(test_materials_beside),
        cmocka_unit_test(test_materials_gltf),
        cmocka_unit_test(test_materials_single_sided),
        cmocka_unit_test(test_materials_fox),
        cmocka_unit_test(test_materials_cesium_man),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
