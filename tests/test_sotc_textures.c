/* SOTC models with their textures (docs/formats/sotc.md §8.6): a skinned cube written
 * by ossa's .skb and .nmo writers, its material "crate" made a texture
 * crate.nto beside it by tests/gen_nto.py (four coloured quadrants, of
 * every kind, swizzled). The .nmo gets the image crate.png and the material
 * crate; merged with its skeleton it renders with the texture's colours
 * where it rendered one palette colour; glTF output embeds a PNG of the
 * encoder's texels; IQM output names crate.png and writes it beside. The
 * TEX record's size settles the nibble order; missing, damaged and refused
 * textures are skipped (the last two with a warning); every allocation of
 * such a load fails cleanly. */
#include "nto_test.h"
#include "render_test.h"

#include <sys/stat.h>
#include <unistd.h>

/* The unit cube standing on z = 0, material `material`, skinned to two
 * joints (the lower half to the root, the upper to "top"). */
static ossa_model *crate_model(const char *material)
{
    float pos[24 * 3], nrm[24 * 3], uv[24 * 2], idx[24 * 4], wgt[24 * 4];
    ossa_triangle tri[12];
    uint32_t nv = 0, nt = 0;
    const float c[3] = {0, 0, 0.5f};
    rtt_box(pos, nrm, uv, tri, &nv, &nt, c, 0.5f);
    for (uint32_t v = 0; v < nv; v++) {
        idx[v * 4] = pos[v * 3 + 2] > 0.5f ? 1.0f : 0.0f;
        wgt[v * 4] = 1;
        for (int k = 1; k < 4; k++) idx[v * 4 + k] = wgt[v * 4 + k] = 0;
    }
    ossa_error e;
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    ossa_transform t = ossa_transform_identity();
    assert_int_equal(ossa_model_add_joint(m, "root", -1, &t, &e), 0);
    t.translation[2] = 0.5f;
    assert_int_equal(ossa_model_add_joint(m, "top", 0, &t, &e), 1);
    assert_int_equal(ossa_model_set_num_vertices(m, nv, &e), OSSA_OK);
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, &e));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm, &e));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv, &e));
    assert_non_null(
        ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, OSSA_FLOAT, 4, NULL, idx, &e));
    assert_non_null(
        ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL, wgt, &e));
    assert_int_equal(ossa_model_set_triangles(m, nt, tri, &e), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "box", material, 0, nv, 0, nt, &e) >= 0);
    return m;
}

/* DIR/crate.skb and DIR/crate.nmo of the crate, DIR made fresh; returns
 * DIR (malloc'd). */
static char *write_crate(const char *dir_name)
{
    char *dir = ts_tmp_path(dir_name);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    ossa_model *m = crate_model("crate");
    static const char *const files[] = {"crate.skb", "crate.nmo"};
    for (int i = 0; i < 2; i++) {
        char *path = ts_path_join(dir, files[i]);
        ossa_error e;
        if (ossa_write_file(m, path, NULL, &e)) fail_msg("%s: %s", path, e.message);
        free(path);
    }
    ossa_model_free(m);
    return dir;
}

/* gen_nto.py's quadrant texture DIR/NAME of `kind`, w x h, swizzle bits,
 * levels. */
static bool make_texture(const char *dir, const char *name, unsigned kind, unsigned w, unsigned h,
                         unsigned swizzle, unsigned levels)
{
    char args[4400];
    snprintf(args, sizeof args, "texture '%s/%s' 0x%02x %u %u 0x%02x %u", dir, name, kind, w, h,
             swizzle, levels);
    return nto_generate(args);
}

static ossa_model *load_in(const char *dir, const char *file, const ossa_load_options *options)
{
    char *path = ts_path_join(dir, file);
    ossa_error e;
    ossa_model *m = ossa_load_file(path, options, &e);
    if (!m) fail_msg("%s: %s", path, e.message);
    free(path);
    return m;
}

/* The crate .nmo and .skb merged, as `ossa render crate.skb crate.nmo`
 * loads them. */
static ossa_model *load_crate(const char *dir)
{
    ossa_model *m = load_in(dir, "crate.nmo", NULL);
    ossa_model *skb = load_in(dir, "crate.skb", NULL);
    ossa_error e;
    assert_int_equal(ossa_model_merge(m, skb, &e), OSSA_OK);
    ossa_model_free(skb);
    return m;
}

/* Renders the front face (flat light) and returns which of red, green,
 * blue and white (bits 0-3) show. The .nmo's colours are 0x80, PS2's 1.0,
 * which the renderer takes as 128/255: the texture's colours at about
 * half their value. */
static int colours_seen(const ossa_model *m, uint32_t *textured)
{
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_render_scene_load_materials(s, m, NULL, NULL, NULL);
    ossa_render_scene_info info;
    ossa_render_scene_get_info(s, &info);
    *textured = info.textured_meshes;
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
        bool r = p[0] > 100, g = p[1] > 100, b = p[2] > 100, low = p[0] < 20 || p[1] < 20 || p[2] < 20;
        seen |= (r && p[1] < 20 && p[2] < 20) << 0;
        seen |= (g && p[0] < 20 && p[2] < 20) << 1;
        seen |= (b && p[0] < 20 && p[1] < 20) << 2;
        seen |= (r && g && b && !low) << 3;
    }
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    return seen;
}

/* The image of material "crate" in the model, decoded through libpng. */
static bool crate_texels(const ossa_model *m, ossa_render_image *im)
{
    ossa_material d;
    if (!ossa_model_get_material(m, "crate", &d)) return false;
    size_t size;
    const void *png = ossa_model_get_image(m, d.textures[OSSA_TEXTURE_BASE_COLOR].image, &size);
    if (!png) return false;
    ossa_error e;
    assert_int_equal(ossa_render_png_decode(png, size, NULL, im, &e), OSSA_OK);
    return true;
}

static void expect_texels(const ossa_model *m, const char *dir, const char *nto)
{
    ossa_render_image im;
    assert_true(crate_texels(m, &im));
    char file[64];
    snprintf(file, sizeof file, "%s.rgba", nto);
    char *path = ts_path_join(dir, file);
    nto_picture want = nto_read_picture(path);
    assert_non_null(want.rgba);
    assert_int_equal(im.width, want.width);
    assert_int_equal(im.height, want.height);
    assert_memory_equal(im.pixels, want.rgba, (size_t)want.width * want.height * 4);
    free(want.rgba);
    free(path);
    ossa_free(im.pixels, NULL);
}

/* Untextured, then textured by a crate.nto of each kind. */
static void test_renders_textured(void **state)
{
    (void)state;
    char *dir = write_crate("sotc_crate");
    ossa_model *m = load_crate(dir);
    uint32_t textured;
    assert_int_equal(colours_seen(m, &textured), 0);
    assert_int_equal(textured, 0);
    assert_int_equal(m->num_warnings, 0); /* a missing texture is no news */
    ossa_model_free(m);
    static const struct {
        unsigned kind, w, h, swizzle, levels;
    } kinds[] = {{0x13, 64, 32, 0x01, 2}, {0x14, 128, 64, 0x03, 3}, {0x00, 16, 16, 0x00, 1}};
    for (size_t k = 0; k < 3; k++) {
        if (!make_texture(dir, "crate.nto", kinds[k].kind, kinds[k].w, kinds[k].h, kinds[k].swizzle,
                          kinds[k].levels))
            break;
        m = load_crate(dir);
        assert_int_equal(m->num_warnings, 0);
        expect_texels(m, dir, "crate.nto");
        assert_int_equal(colours_seen(m, &textured), 15);
        assert_int_equal(textured, 1);
        ossa_model_free(m);
    }
    free(dir);
}

/* glTF output embeds the texture (a PNG of the encoder's texels, which
 * the glTF reader keeps); IQM output names crate.png and puts it beside. */
static void test_outputs_carry_the_texture(void **state)
{
    (void)state;
    char *dir = write_crate("sotc_crate_out");
    if (!make_texture(dir, "crate.nto", 0x13, 32, 64, 0x01, 1)) {
        free(dir);
        return;
    }
    ossa_model *m = load_crate(dir);
    static const char *const outputs[] = {"out.glb", "out.gltf", "out.iqm"};
    for (int i = 0; i < 3; i++) {
        char *path = ts_path_join(dir, outputs[i]);
        ossa_error e;
        if (ossa_write_file(m, path, NULL, &e)) fail_msg("%s: %s", path, e.message);
        ossa_model *back = load_in(dir, outputs[i], NULL);
        assert_int_equal(back->num_meshes, 1);
        if (i == 2) assert_string_equal(back->meshes[0].material, "crate.png");
        else assert_string_equal(back->meshes[0].material, "crate");
        ossa_render_image im;
        ossa_material d;
        assert_true(ossa_model_get_material(back, back->meshes[0].material, &d));
        size_t size;
        const void *png = ossa_model_get_image(back, d.textures[OSSA_TEXTURE_BASE_COLOR].image, &size);
        assert_non_null(png);
        assert_int_equal(ossa_render_png_decode(png, size, NULL, &im, &e), OSSA_OK);
        char *want_path = ts_path_join(dir, "crate.nto.rgba");
        nto_picture want = nto_read_picture(want_path);
        assert_int_equal(im.width, 32);
        assert_int_equal(im.height, 64);
        assert_memory_equal(im.pixels, want.rgba, (size_t)32 * 64 * 4);
        free(want.rgba);
        free(want_path);
        ossa_free(im.pixels, NULL);
        ossa_model_free(back);
        free(path);
    }
    char *beside = ts_path_join(dir, "crate.png");
    assert_int_equal(access(beside, R_OK), 0);
    free(beside);
    ossa_model_free(m);
    free(dir);
}

/* The TEX record's width and height (+0x1C, +0x1E) decide the nibble
 * order over the picture; the option sotc.nto_width over both. */
static void test_tex_record_size(void **state)
{
    (void)state;
    char *dir = write_crate("sotc_crate_tex");
    if (!make_texture(dir, "crate.nto", 0x13, 64, 32, 0x00, 1)) {
        free(dir);
        return;
    }
    char *path = ts_path_join(dir, "crate.nmo");
    size_t size;
    unsigned char *nmo = ts_read_file(path, &size);
    assert_non_null(nmo);
    /* The one TEX record: .rodata offset at header +0x40. */
    uint32_t ro = ts_le32(nmo + ts_le32(nmo + 0x5C) + 0x20 + 0x1C);
    uint32_t entry = ts_le32(nmo + 0x4C);
    unsigned char *tex = nmo + ro + ts_le32(nmo + ro + entry + 0x40);
    assert_memory_equal(tex, "TEX", 4);
    static const struct {
        uint16_t w, h;
        const char *option;
        uint32_t want_w;
    } rows[] = {{0, 0, NULL, 64},     {64, 32, NULL, 64},          {32, 64, NULL, 32},
                {32, 64, "low", 64}, {64, 32, "high", 32}, {100, 7, NULL, 64}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ts_put16(tex + 0x1C, rows[i].w);
        ts_put16(tex + 0x1E, rows[i].h);
        ossa_option opt = {"sotc.nto_width", rows[i].option};
        ossa_load_options lo = {.file_name = path, .format_options = &opt,
                                .num_format_options = rows[i].option != NULL};
        ossa_error e;
        ossa_model *m = ossa_load_memory(nmo, size, &lo, &e);
        assert_non_null(m);
        ossa_render_image im;
        assert_true(crate_texels(m, &im));
        if (im.width != rows[i].want_w)
            fail_msg("TEX %ux%u, option %s: width %u, expected %u", rows[i].w, rows[i].h,
                     rows[i].option ? rows[i].option : "none", im.width, rows[i].want_w);
        ossa_free(im.pixels, NULL);
        ossa_model_free(m);
    }
    free(nmo);
    free(path);
    free(dir);
}

/* A damaged texture is a warning naming it; so are one outside the model's
 * folder and a name too long for an image; OSSA_LOAD_NO_IMAGES and a load
 * without a file name read none. */
static void test_damaged_and_refused(void **state)
{
    (void)state;
    char *dir = write_crate("sotc_crate_bad");
    if (!make_texture(dir, "crate.nto", 0x14, 64, 64, 0x01, 1)) {
        free(dir);
        return;
    }
    char *nto = ts_path_join(dir, "crate.nto");
    size_t size;
    unsigned char *good = ts_read_file(nto, &size);
    assert_non_null(good);
    /* The palette pointer (.rodata 0x100 + header 0x18) past the end. */
    unsigned char *bad = malloc(size);
    assert_non_null(bad);
    memcpy(bad, good, size);
    ts_put32(bad + 0x118, 0x7FFFFFF0u);
    FILE *f = fopen(nto, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bad, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    ossa_model *m = load_in(dir, "crate.nmo", NULL);
    assert_int_equal(m->num_warnings, 1);
    assert_int_equal(m->warnings[0].code, OSSA_WARNING_IGNORED);
    assert_non_null(strstr(m->warnings[0].message, "texture 'crate.nto': byte 280: palette"));
    assert_non_null(strstr(m->warnings[0].message, "material 'crate' has no image"));
    ossa_material d;
    assert_false(ossa_model_get_material(m, "crate", &d));
    ossa_model_free(m);

    f = fopen(nto, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(good, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    ossa_load_options none = {.flags = OSSA_LOAD_NO_IMAGES};
    m = load_in(dir, "crate.nmo", &none);
    assert_null(ossa_model_get_image(m, "crate.png", NULL));
    ossa_model_free(m);
    char *path = ts_path_join(dir, "crate.nmo");
    size_t nmo_size;
    unsigned char *nmo = ts_read_file(path, &nmo_size);
    assert_non_null(nmo);
    ossa_error e;
    m = ossa_load_memory(nmo, nmo_size, NULL, &e);
    assert_non_null(m);
    assert_null(ossa_model_get_image(m, "crate.png", NULL));
    ossa_model_free(m);

    /* A TEX name that climbs out of the folder: refused with a warning. */
    ossa_model *src = crate_model("../crate");
    char *sub = ts_path_join(dir, "sub");
    assert_int_equal(mkdir(sub, 0777), 0);
    char *out = ts_path_join(sub, "up.nmo");
    assert_int_equal(ossa_write_file(src, out, NULL, &e), OSSA_OK);
    m = ossa_load_file(out, NULL, &e);
    assert_non_null(m);
    assert_int_equal(m->num_warnings, 1);
    assert_non_null(strstr(m->warnings[0].message, "outside the model's folder"));
    ossa_model_free(m);
    ossa_load_options allow = {.flags = OSSA_LOAD_ALLOW_PARENT_PATHS};
    m = ossa_load_file(out, &allow, &e);
    assert_non_null(m);
    assert_int_equal(m->num_warnings, 0);
    assert_non_null(ossa_model_get_image(m, "../crate.png", NULL));
    ossa_model_free(m);
    ossa_model_free(src);
    /* A TEX name too long for an image name (256 bytes with ".png"). */
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    src = crate_model(longname);
    assert_int_equal(ossa_write_file(src, out, NULL, &e), OSSA_OK);
    m = ossa_load_file(out, NULL, &e);
    assert_non_null(m);
    assert_int_equal(m->num_warnings, 1);
    assert_non_null(strstr(m->warnings[0].message, "a name of 299 bytes is too long"));
    ossa_model_free(m);
    ossa_model_free(src);
    free(out);
    free(sub);
    free(nmo);
    free(path);
    free(bad);
    free(good);
    free(nto);
    free(dir);
}

/* Every allocation of the .nmo load with its texture (the file read, the
 * decoding twice for the order, the PNG, the extras) failing in turn. */
static void test_allocation_failures(void **state)
{
    (void)state;
    char *dir = write_crate("sotc_crate_alloc");
    if (!make_texture(dir, "crate.nto", 0x13, 32, 16, 0x01, 1)) {
        free(dir);
        return;
    }
    char *path = ts_path_join(dir, "crate.nmo");
    ts_alloc good;
    ts_alloc_init(&good, -1, false);
    ossa_load_options lo = {.allocator = &good.allocator};
    ossa_error e;
    ossa_model *ref = ossa_load_file(path, &lo, &e);
    assert_non_null(ref);
    size_t ref_size;
    const void *ref_png = ossa_model_get_image(ref, "crate.png", &ref_size);
    assert_non_null(ref_png);
    long total = good.calls;
    for (int sticky = 0; sticky < 2; sticky++)
        for (long n = 0; n < total; n++) {
            ts_alloc a;
            ts_alloc_init(&a, n, sticky);
            lo.allocator = &a.allocator;
            ossa_model *m = ossa_load_file(path, &lo, &e);
            if (!m) {
                if (e.code != OSSA_ERROR_NOMEM)
                    fail_msg("allocation %ld: %s", n, e.message);
            } else {
                size_t size;
                const void *png = ossa_model_get_image(m, "crate.png", &size);
                if (!png) fail_msg("allocation %ld failed: a model without its texture", n);
                assert_int_equal(size, ref_size);
                assert_memory_equal(png, ref_png, size);
                ossa_model_free(m);
            }
            assert_int_equal(a.live, 0);
            assert_int_equal(a.bad_frees, 0);
        }
    ossa_model_free(ref);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_renders_textured),
        cmocka_unit_test(test_outputs_carry_the_texture),
        cmocka_unit_test(test_tex_record_size),
        cmocka_unit_test(test_damaged_and_refused),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
