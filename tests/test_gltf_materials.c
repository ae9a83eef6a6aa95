/* Materials and images: glTF -> glTF keeps materials (factors, alpha
 * modes, two-sidedness), textures, samplers and images; IQM-style models
 * (a material named after its image file) take the image from beside the
 * input into glTF, and glTF images go beside IQM/IQE outputs under the
 * material's name. Nothing references an image that is not written. */
#include "gltf_test.h"

#include "core/materials.h"

#include <errno.h>

/* -- Helpers -- */

/* A valid PNG of w x h pixels of one colour, from the library's encoder
 * (libpng). free() it. */
static unsigned char *make_png(uint32_t w, uint32_t h, uint8_t shade, size_t *size)
{
    uint8_t *px = malloc((size_t)w * h * 4);
    for (size_t i = 0; i < (size_t)w * h * 4; i++) px[i] = i % 4 == 3 ? 255 : shade;
    ossa_render_image img = {w, h, px, 0, NULL};
    void *data;
    ossa_error err;
    assert_int_equal(ossa_render_png_encode(&img, NULL, &data, size, &err), OSSA_OK);
    unsigned char *copy = malloc(*size);
    memcpy(copy, data, *size);
    ossa_free(data, NULL);
    free(px);
    return copy;
}

static void put_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

static char *dir_in_tmp(const char *name)
{
    char *dir = ts_tmp_path(name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    return dir;
}

static const ossa_extra *extra(const ossa_model *m, const char *key)
{
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, key) == 0) return &m->extras[i];
    return NULL;
}

/* Diagnostics of a write, kept for the checks. */
typedef struct notes {
    int count;
    char text[8][300];
    ossa_code code[8];
} notes;

static void keep_note(void *user, const ossa_diagnostic *d)
{
    notes *n = user;
    if (n->count < 8) {
        snprintf(n->text[n->count], sizeof n->text[0], "%s", d->message);
        n->code[n->count] = d->code;
    }
    n->count++;
}

static bool noted(const notes *n, const char *part)
{
    for (int i = 0; i < n->count && i < 8; i++)
        if (strstr(n->text[i], part)) return true;
    return false;
}

static ossa_write_options options_for(ossa_format format, ossa_images images, notes *n)
{
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.images = images;
    o.diagnostic = keep_note;
    o.user = n;
    if (n) memset(n, 0, sizeof *n);
    return o;
}

/* A quad of two triangles with texcoords, one mesh of material `material`
 * (and no joints). */
static ossa_model *quad(const char *material, bool texcoords)
{
    ossa_error err;
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, 4, &err), OSSA_OK);
    float pos[12] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1}, uv[8] = {0, 1, 1, 1, 0, 0, 1, 0};
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, "", pos, &err));
    if (texcoords)
        assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, "", uv, &err));
    ossa_triangle t[2] = {{{0, 2, 1}}, {{1, 2, 3}}};
    assert_int_equal(ossa_model_set_triangles(m, 2, t, &err), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "quad", material, 0, 4, 0, 2, &err) >= 0);
    return m;
}

/* -- The material text -- */

static void material_text(void **state)
{
    (void)state;
    ossa_material d;
    ossa__material_defaults(&d);
    ossa_buf b;
    ossa__buf_init(&b, NULL);
    ossa__material_format(&d, &b);
    assert_int_equal(b.size, 0); /* glTF's defaults: nothing to say */
    ossa__buf_release(&b);
    d.base_color[0] = 0.5f, d.metallic = 0, d.roughness = 0.25f, d.emissive[2] = 1;
    d.alpha_mode = OSSA_ALPHA_MASK, d.alpha_cutoff = 0.3f, d.double_sided = true;
    strcpy(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "skin and bones.png");
    d.textures[OSSA_TEXTURE_BASE_COLOR].sampler[0] = 9729, d.textures[OSSA_TEXTURE_BASE_COLOR].sampler[3] = 33071;
    strcpy(d.textures[OSSA_TEXTURE_NORMAL].image, "n.png");
    d.textures[OSSA_TEXTURE_NORMAL].texcoord = 1;
    ossa__buf_init(&b, NULL);
    ossa__material_format(&d, &b);
    static const char want[] = "base_color 0.5 1 1 1\n"
                               "metallic 0\n"
                               "roughness 0.25\n"
                               "emissive 0 0 1\n"
                               "alpha_mode mask\n"
                               "alpha_cutoff 0.3\n"
                               "double_sided\n"
                               "base_color_sampler 9729 0 0 33071\n"
                               "base_color_texture skin and bones.png\n"
                               "normal_texcoord 1\n"
                               "normal_texture n.png\n";
    assert_int_equal(b.size, sizeof want - 1);
    assert_memory_equal(b.data, want, sizeof want - 1);
    ossa_material back;
    ossa__material_parse(b.data, b.size, &back);
    assert_memory_equal(&back, &d, sizeof d);
    ossa__buf_release(&b);
    /* unknown keys and bad values are skipped */
    static const char odd[] = "future_key 1 2\nmetallic x\nroughness 0.5\r\n  alpha_mode blend\n";
    ossa__material_parse(odd, sizeof odd - 1, &back);
    assert_true(back.metallic == 1 && back.roughness == 0.5f && back.alpha_mode == OSSA_ALPHA_BLEND);
}

/* -- glTF -> glTF -- */

/* Every material property and texture slot, three images (a file beside
 * the .gltf, a data URI, a bufferView), samplers, texCoord 1. */
static char *rich_gltf(const unsigned char *png, size_t png_size, const unsigned char *png2, size_t png2_size)
{
    /* buffer: positions (4 x vec3), texcoords 0 and 1 (4 x vec2 each),
     * indices (6 ushort), normals, tangents (a normal map needs them),
     * then png2 */
    size_t geo = 48 + 32 + 32 + 12 + 48 + 64, total = geo + png2_size;
    unsigned char *bin = calloc(1, total);
    float pos[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, uv[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, tan[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    uint16_t idx[6] = {0, 1, 2, 1, 3, 2};
    memcpy(bin, pos, 48);
    memcpy(bin + 48, uv, 32);
    memcpy(bin + 80, uv, 32);
    memcpy(bin + 112, idx, 12);
    memcpy(bin + 124, nrm, 48);
    memcpy(bin + 172, tan, 64);
    memcpy(bin + geo, png2, png2_size);
    size_t n64 = ossa__base64_encoded_size(png_size);
    char *png64 = malloc(n64 + 1);
    ossa__base64_encode(png, png_size, png64);
    png64[n64] = 0;
    size_t cap = 4096 + n64;
    char *body = malloc(cap);
    snprintf(body, cap,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,"
             "\"byteLength\":32},{\"buffer\":0,\"byteOffset\":80,\"byteLength\":32},{\"buffer\":0,"
             "\"byteOffset\":112,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu},"
             "{\"buffer\":0,\"byteOffset\":124,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":172,"
             "\"byteLength\":64}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":4,"
             "\"type\":\"VEC2\"},{\"bufferView\":2,\"componentType\":5126,\"count\":4,\"type\":\"VEC2\"},"
             "{\"bufferView\":3,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"},"
             "{\"bufferView\":5,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
             "{\"bufferView\":6,\"componentType\":5126,\"count\":4,\"type\":\"VEC4\"}],"
             "\"images\":[{\"uri\":\"tex%%20dir/albedo.png\"},{\"uri\":\"data:image/png;base64,%s\"},"
             "{\"bufferView\":4,\"mimeType\":\"image/png\",\"name\":\"packed\"}],"
             "\"samplers\":[{\"magFilter\":9728,\"minFilter\":9986,\"wrapS\":33648,\"wrapT\":33071}],"
             "\"textures\":[{\"source\":0,\"sampler\":0},{\"source\":1},{\"source\":2}],"
             "\"materials\":[{\"name\":\"hull\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.5,0.25,1,0.75],"
             "\"metallicFactor\":0.125,\"roughnessFactor\":0.625,\"baseColorTexture\":{\"index\":0},"
             "\"metallicRoughnessTexture\":{\"index\":2,\"texCoord\":1}},"
             "\"normalTexture\":{\"index\":1,\"scale\":0.5},\"occlusionTexture\":{\"index\":2,\"strength\":0.25},"
             "\"emissiveTexture\":{\"index\":1},\"emissiveFactor\":[1,0.5,0],"
             "\"alphaMode\":\"MASK\",\"alphaCutoff\":0.375,\"doubleSided\":true}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1,\"TEXCOORD_1\":2,"
             "\"NORMAL\":4,\"TANGENT\":5},"
             "\"indices\":3,\"material\":0}]}],\"nodes\":[{\"mesh\":0}]",
             geo, png2_size, png64);
    char *json = gt_make_gltf(bin, total, body);
    free(body);
    free(png64);
    free(bin);
    return json;
}

static void gltf_keeps_materials(void **state)
{
    (void)state;
    char *dir = dir_in_tmp("gltf_materials_rich");
    char *sub = ts_path_join(dir, "tex dir");
    assert_int_equal(mkdir(sub, 0777), 0);
    size_t s1, s2, s3;
    unsigned char *albedo = make_png(2, 2, 200, &s1), *normal = make_png(1, 1, 128, &s2),
                  *packed = make_png(4, 1, 30, &s3);
    char *albedo_path = ts_path_join(sub, "albedo.png");
    put_file(albedo_path, albedo, s1);
    char *json = rich_gltf(normal, s2, packed, s3);
    char *src = ts_path_join(dir, "rich.gltf");
    put_file(src, json, strlen(json));
    ossa_error err;
    ossa_model *m = ossa_load_file(src, NULL, &err);
    if (!m) fail_msg("%s", err.message);
    /* the model: the material's text and three images with their names */
    assert_string_equal(m->meshes[0].material, "hull");
    const ossa_extra *mat = extra(m, OSSA_EXTRA_MATERIAL "hull");
    assert_non_null(mat);
    static const char want[] = "base_color 0.5 0.25 1 0.75\n"
                               "metallic 0.125\n"
                               "roughness 0.625\n"
                               "normal_scale 0.5\n"
                               "occlusion_strength 0.25\n"
                               "emissive 1 0.5 0\n"
                               "alpha_mode mask\n"
                               "alpha_cutoff 0.375\n"
                               "double_sided\n"
                               "base_color_sampler 9728 9986 33648 33071\n"
                               "base_color_texture albedo.png\n"
                               "metallic_roughness_texcoord 1\n"
                               "metallic_roughness_texture packed.png\n"
                               "normal_texture hull_normal.png\n"
                               "occlusion_texture packed.png\n"
                               "emissive_texture hull_normal.png\n";
    if (mat->size != sizeof want - 1 || memcmp(mat->data, want, sizeof want - 1))
        fail_msg("material text:\n%.*s", (int)mat->size, (const char *)mat->data);
    const ossa_extra *e1 = extra(m, OSSA_EXTRA_IMAGE "albedo.png"),
                     *e2 = extra(m, OSSA_EXTRA_IMAGE "hull_normal.png"),
                     *e3 = extra(m, OSSA_EXTRA_IMAGE "packed.png");
    assert_non_null(e1);
    assert_non_null(e2);
    assert_non_null(e3);
    assert_true(e1->size == s1 && memcmp(e1->data, albedo, s1) == 0);
    assert_true(e2->size == s2 && memcmp(e2->data, normal, s2) == 0);
    assert_true(e3->size == s3 && memcmp(e3->data, packed, s3) == 0);
    /* glTF -> .glb (embedded) -> model: the same extras; as .gltf the
     * images go beside it and read back the same */
    for (int k = 0; k < 3; k++) {
        static const char *const names[3] = {"out.glb", "out.gltf", "out_embedded.gltf"};
        char *path = ts_path_join(dir, names[k]);
        notes n;
        ossa_write_options o = options_for(k ? OSSA_FORMAT_GLTF : OSSA_FORMAT_GLB, OSSA_IMAGES_DEFAULT, &n);
        static const ossa_option embed = {"gltf.embed", "on"};
        o.format_options = &embed;
        o.num_format_options = k == 2;
        assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
        assert_int_equal(n.count, 0);
        ossa_model *b = ossa_load_file(path, NULL, &err);
        if (!b) fail_msg("%s", err.message);
        for (uint32_t i = 0; i < m->num_extras; i++) {
            const ossa_extra *x = extra(b, m->extras[i].key);
            if (!x) fail_msg("%s: no extra %s", names[k], m->extras[i].key);
            assert_int_equal(x->size, m->extras[i].size);
            assert_memory_equal(x->data, m->extras[i].data, x->size);
        }
        assert_int_equal(b->num_extras, m->num_extras);
        ossa_model_free(b);
        gt_validate_file(path);
        free(path);
    }
    /* the .gltf's images are the files beside it, with their bytes */
    char *beside = ts_path_join(dir, "packed.png");
    size_t size;
    unsigned char *file = ts_read_file(beside, &size);
    assert_non_null(file);
    assert_true(size == s3 && memcmp(file, packed, s3) == 0);
    free(file);
    free(beside);
    ossa_model_free(m);
    free(src);
    free(json);
    free(albedo_path);
    free(albedo);
    free(normal);
    free(packed);
    free(sub);
    free(dir);
}

/* CesiumMan: 491 KB with its JPEG; through glTF the texture, the sampler
 * and the material's values stay (the file once lost them: 252 KB). */
static void cesium_man_keeps_its_texture(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("gltf/CesiumMan.glb", &file, &size);
    size_t out_size;
    unsigned char *glb = gt_write_as(m, OSSA_FORMAT_GLB, &out_size);
    assert_true(out_size > 450000);
    cJSON *a = gt_json_of(file, size), *b = gt_json_of(glb, out_size);
    const cJSON *ma = gt_json_item(a, "materials", 0), *mb = gt_json_item(b, "materials", 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(mb, "name")->valuestring, "Cesium_Man-effect");
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(ma, "pbrMetallicRoughness");
    const cJSON *pb = cJSON_GetObjectItemCaseSensitive(mb, "pbrMetallicRoughness");
    static const char *const keys[] = {"metallicFactor", "roughnessFactor"};
    for (int k = 0; k < 2; k++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(pa, keys[k]), *y = cJSON_GetObjectItemCaseSensitive(pb, keys[k]);
        double vy = y ? y->valuedouble : 1; /* absent = glTF's default 1 */
        assert_true(x->valuedouble == vy);
    }
    /* the texture's sampler and image bytes */
    int tex = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pb, "baseColorTexture"), "index")->valueint;
    const cJSON *t = gt_json_item(b, "textures", tex);
    const cJSON *s = gt_json_item(b, "samplers", cJSON_GetObjectItemCaseSensitive(t, "sampler")->valueint);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(s, "magFilter")->valueint, 9729);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(s, "minFilter")->valueint, 9986);
    const cJSON *img = gt_json_item(b, "images", cJSON_GetObjectItemCaseSensitive(t, "source")->valueint);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(img, "mimeType")->valuestring, "image/jpeg");
    const cJSON *view = gt_json_item(b, "bufferViews", cJSON_GetObjectItemCaseSensitive(img, "bufferView")->valueint);
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(view, "byteOffset");
    size_t at = 20 + ts_le32(glb + 12) + 8 + (off ? (size_t)off->valuedouble : 0);
    size_t len = (size_t)cJSON_GetObjectItemCaseSensitive(view, "byteLength")->valuedouble;
    /* the source's image: bufferView 8 of CesiumMan.glb, 209908 bytes */
    const cJSON *sv = gt_json_item(a, "bufferViews", 8);
    size_t sat = 20 + ts_le32(file + 12) + 8 + (size_t)cJSON_GetObjectItemCaseSensitive(sv, "byteOffset")->valuedouble;
    assert_int_equal(len, 209908);
    assert_memory_equal(glb + at, file + sat, len);
    cJSON_Delete(a);
    cJSON_Delete(b);
    char *path = ts_tmp_path("gltf_cesium_textured.glb");
    put_file(path, glb, out_size);
    gt_validate_file(path);
    free(path);
    ossa_free(glb, NULL);
    ossa_model_free(m);
    free(file);
}

/* -- IQM-style materials -- */

/* A material named like an image file: embedded when the model has the
 * image (as loading an IQM finds it beside the file), else no image at
 * all and the name in the material's extras, with one warning. */
static void image_named_materials(void **state)
{
    (void)state;
    char *dir = dir_in_tmp("gltf_materials_iqm");
    size_t png_size;
    unsigned char *png = make_png(2, 1, 90, &png_size);
    ossa_model *m = quad("skin.png", true);
    /* IQM with its texture beside it: loading keeps the image */
    char *iqm = ts_path_join(dir, "guy.iqm"), *tex = ts_path_join(dir, "skin.png");
    ossa_error err;
    assert_int_equal(ossa_write_file(m, iqm, NULL, &err), OSSA_OK);
    put_file(tex, png, png_size);
    ossa_model *a = ossa_load_file(iqm, NULL, &err);
    assert_non_null(a);
    const ossa_extra *e = extra(a, OSSA_EXTRA_IMAGE "skin.png");
    assert_non_null(e);
    assert_true(e->size == png_size && memcmp(e->data, png, png_size) == 0);
    /* ... unless asked not to */
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.flags = OSSA_LOAD_NO_IMAGES;
    ossa_model *none = ossa_load_file(iqm, &lo, &err);
    assert_null(extra(none, OSSA_EXTRA_IMAGE "skin.png"));
    ossa_model_free(none);
    /* to .glb: the image inside */
    notes n;
    ossa_write_options o = options_for(OSSA_FORMAT_GLB, OSSA_IMAGES_DEFAULT, &n);
    void *data;
    size_t size;
    assert_int_equal(ossa_write_memory(a, &o, &data, &size, &err), OSSA_OK);
    assert_int_equal(n.count, 0);
    cJSON *root = gt_json_of(data, size);
    const cJSON *img = gt_json_item(root, "images", 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(img, "mimeType")->valuestring, "image/png");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(img, "bufferView"));
    assert_null(cJSON_GetObjectItemCaseSensitive(img, "uri"));
    cJSON_Delete(root);
    char *glb = ts_path_join(dir, "with.glb");
    put_file(glb, data, size);
    gt_validate_file(glb);
    ossa_free(data, NULL);
    /* without the image: no image, no texture, the name in the extras */
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    assert_int_equal(n.count, 1);
    assert_int_equal(n.code[0], OSSA_WARNING_DROPPED);
    assert_true(noted(&n, "'skin.png'"));
    root = gt_json_of(data, size);
    assert_null(cJSON_GetObjectItemCaseSensitive(root, "images"));
    assert_null(cJSON_GetObjectItemCaseSensitive(root, "textures"));
    const cJSON *mat = gt_json_item(root, "materials", 0);
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(mat, "extras"), "ossa");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(names, "base_color_texture")->valuestring, "skin.png");
    cJSON_Delete(root);
    char *without = ts_path_join(dir, "without.glb");
    put_file(without, data, size);
    gt_validate_file(without); /* the old writer's uri = "skin.png": IO_ERROR */
    ossa_model *back = gt_load_ok(data, size, OSSA_FORMAT_GLB);
    assert_string_equal(back->meshes[0].material, "skin.png");
    ossa_model_free(back);
    ossa_free(data, NULL);
    /* --images none: no image even when the model has it */
    o = options_for(OSSA_FORMAT_GLB, OSSA_IMAGES_NONE, &n);
    assert_int_equal(ossa_write_memory(a, &o, &data, &size, &err), OSSA_OK);
    assert_int_equal(n.count, 0);
    root = gt_json_of(data, size);
    assert_null(cJSON_GetObjectItemCaseSensitive(root, "images"));
    cJSON_Delete(root);
    ossa_free(data, NULL);
    ossa_model_free(a);
    ossa_model_free(m);
    free(without);
    free(glb);
    free(tex);
    free(iqm);
    free(png);
    free(dir);
}

/* glTF -> IQM and IQE: the material becomes the name of its base colour
 * image, written beside the output; what IQM cannot say is one warning;
 * an image file of that name with other bytes is left alone. */
static void images_beside_iqm(void **state)
{
    (void)state;
    char *dir = dir_in_tmp("gltf_materials_beside");
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("gltf/Fox.glb", &file, &size);
    const ossa_extra *png = extra(m, OSSA_EXTRA_IMAGE "fox_material.png");
    assert_non_null(png);
    ossa_error err;
    static const struct {
        const char *out;
        ossa_format format;
    } outs[] = {{"fox.iqm", OSSA_FORMAT_IQM}, {"fox.iqe", OSSA_FORMAT_IQE}};
    for (size_t k = 0; k < 2; k++) {
        char *path = ts_path_join(dir, outs[k].out);
        notes n;
        ossa_write_options o = options_for(outs[k].format, OSSA_IMAGES_DEFAULT, &n);
        assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
        /* fox_material: roughness 0.58, metallic 0 */
        assert_int_equal(n.count, 1);
        assert_true(noted(&n, "the metallic and roughness factors of material 'fox_material' not written"));
        ossa_model *b = ossa_load_file(path, NULL, &err);
        assert_non_null(b);
        assert_string_equal(b->meshes[0].material, "fox_material.png");
        const ossa_extra *e = extra(b, OSSA_EXTRA_IMAGE "fox_material.png");
        assert_non_null(e);
        assert_true(e->size == png->size && memcmp(e->data, png->data, e->size) == 0);
        ossa_model_free(b);
        free(path);
    }
    /* another fox_material.png is there: the image goes to fox_material_2.png */
    char *taken = ts_path_join(dir, "fox_material.png");
    put_file(taken, "not this", 8);
    char *path = ts_path_join(dir, "again.iqm");
    notes n;
    ossa_write_options o = options_for(OSSA_FORMAT_IQM, OSSA_IMAGES_DEFAULT, &n);
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    assert_true(noted(&n, "'fox_material_2.png'"));
    size_t kept_size;
    unsigned char *kept = ts_read_file(taken, &kept_size);
    assert_true(kept_size == 8 && memcmp(kept, "not this", 8) == 0);
    free(kept);
    ossa_model *b = ossa_load_file(path, NULL, &err);
    assert_string_equal(b->meshes[0].material, "fox_material_2.png");
    assert_non_null(extra(b, OSSA_EXTRA_IMAGE "fox_material_2.png"));
    ossa_model_free(b);
    free(path);
    /* --images none: the material keeps its name, no file */
    path = ts_path_join(dir, "plain.iqm");
    o = options_for(OSSA_FORMAT_IQM, OSSA_IMAGES_NONE, &n);
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    b = ossa_load_file(path, NULL, &err);
    assert_string_equal(b->meshes[0].material, "fox_material");
    ossa_model_free(b);
    free(path);
    free(taken);
    ossa_model_free(m);
    free(file);
    free(dir);
}

/* -- Image references -- */

/* An image uri that leaves the model's folder fails the load, as a buffer
 * does; a missing image file is a warning and keeps its name. */
static void image_references(void **state)
{
    (void)state;
    static const char fmt[] =
        "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":36,\"uri\":\"data:application/"
        "octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
        "\"images\":[{\"uri\":\"%s\"}],\"textures\":[{\"source\":0}],"
        "\"materials\":[{\"name\":\"m\",\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"material\":0}]}],"
        "\"nodes\":[{\"mesh\":0}]}";
    char json[2048];
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = "/nonexistent/model/m.gltf";
    ossa_error err;
    snprintf(json, sizeof json, fmt, "../secret.png");
    assert_null(ossa_load_memory(json, strlen(json), &lo, &err));
    assert_int_equal(err.code, OSSA_ERROR_ACCESS);
    assert_non_null(strstr(err.message, "images[0].uri: '../secret.png' is outside the model's folder"));
    snprintf(json, sizeof json, fmt, "gone.png");
    ossa_model *m = ossa_load_memory(json, strlen(json), &lo, &err);
    assert_non_null(m);
    bool warned = false;
    for (uint32_t i = 0; i < m->num_warnings; i++)
        warned |= strstr(m->warnings[i].message, "images[0].uri") && strstr(m->warnings[i].message, "gone.png");
    assert_true(warned);
    const ossa_extra *mat = extra(m, OSSA_EXTRA_MATERIAL "m");
    assert_non_null(mat);
    assert_true(mat->size == 28 && memcmp(mat->data, "base_color_texture gone.png\n", 28) == 0);
    assert_null(extra(m, OSSA_EXTRA_IMAGE "gone.png"));
    ossa_model_free(m);
}

/* A glTF image of a kind glTF cannot hold, or a TGA that does not decode
 * (one that does becomes a PNG: test_textures_beside), stays out of the
 * output (the validator would reject it); a name with a directory is
 * written beside the output as a plain file name. */
static void odd_images(void **state)
{
    (void)state;
    ossa_model *m = quad("tga", true);
    ossa_error err;
    assert_int_equal(ossa_model_add_extra(m, OSSA_EXTRA_MATERIAL "tga", "base_color_texture skin.bmp\n", 28, &err),
                     OSSA_OK);
    assert_int_equal(ossa_model_add_extra(m, OSSA_EXTRA_IMAGE "skin.bmp", "BM\0\0\0\0\0\0", 8, &err), OSSA_OK);
    notes n;
    ossa_write_options o = options_for(OSSA_FORMAT_GLB, OSSA_IMAGES_DEFAULT, &n);
    void *data;
    size_t size;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    assert_int_equal(n.count, 1);
    assert_true(noted(&n, "PNG and JPEG only): 'skin.bmp'"));
    cJSON *root = gt_json_of(data, size);
    assert_null(cJSON_GetObjectItemCaseSensitive(root, "images"));
    cJSON_Delete(root);
    ossa_free(data, NULL);
    ossa_model_free(m);
    /* 8 bytes of a TGA header: cut, so not converted; the byte is said */
    m = quad("tga", true);
    assert_int_equal(ossa_model_add_extra(m, OSSA_EXTRA_MATERIAL "tga", "base_color_texture skin.tga\n", 28, &err),
                     OSSA_OK);
    assert_int_equal(ossa_model_add_extra(m, OSSA_EXTRA_IMAGE "skin.tga", "\0\0\2\0\0\0\0\0", 8, &err), OSSA_OK);
    o = options_for(OSSA_FORMAT_GLB, OSSA_IMAGES_DEFAULT, &n);
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    assert_int_equal(n.count, 1);
    assert_true(noted(&n, "cannot become PNG: 'skin.tga' (byte 8: TGA: the file has 8 bytes"));
    root = gt_json_of(data, size);
    assert_null(cJSON_GetObjectItemCaseSensitive(root, "images"));
    cJSON_Delete(root);
    ossa_free(data, NULL);
    ossa_model_free(m);
    /* a texture name with directories, from a material's description */
    char *dir = dir_in_tmp("gltf_materials_odd");
    size_t png_size;
    unsigned char *png = make_png(1, 1, 7, &png_size);
    m = quad("mat", true);
    assert_int_equal(ossa_model_add_extra(m, OSSA_EXTRA_MATERIAL "mat", "base_color_texture ../../up.png\n", 32, &err),
                     OSSA_OK);
    assert_int_equal(ossa_model_add_extra(m, OSSA_EXTRA_IMAGE "../../up.png", png, png_size, &err), OSSA_OK);
    char *path = ts_path_join(dir, "odd.gltf");
    o = options_for(OSSA_FORMAT_GLTF, OSSA_IMAGES_DEFAULT, &n);
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
    char *up = ts_path_join(dir, "up.png");
    size_t got;
    unsigned char *f = ts_read_file(up, &got);
    assert_non_null(f);
    assert_true(got == png_size);
    free(f);
    gt_validate_file(path);
    free(up);
    free(path);
    free(png);
    free(dir);
    ossa_model_free(m);
}

/* -- Many materials -- */

/* 20,000 primitives, each with a material of its own whose texture is an
 * image of its own (one shared bufferView), and an IQE of 50,000 meshes
 * all naming one missing image: lookups by name and by value are indexed
 * (walks would cost the square of the count, or its cube through cJSON's
 * arrays). Nothing here is timed; the structure is checked. */
static void many_materials(void **state)
{
    (void)state;
    enum { N = 20000 };
    size_t png_size;
    unsigned char *png = make_png(1, 1, 50, &png_size);
    size_t geo = 36, total = geo + png_size;
    unsigned char *bin = calloc(1, total);
    float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(bin, pos, 36);
    memcpy(bin + geo, png, png_size);
    size_t cap = (size_t)N * 260 + 4096, at = 0;
    char *body = malloc(cap);
    at += (size_t)snprintf(body + at, cap - at,
                           "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":%zu,"
                           "\"byteLength\":%zu}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,"
                           "\"count\":3,\"type\":\"VEC3\"},{\"bufferView\":0,\"componentType\":5126,\"count\":3,"
                           "\"type\":\"VEC2\"}],\"images\":[",
                           geo, png_size);
    for (int i = 0; i < N; i++)
        at += (size_t)snprintf(body + at, cap - at, "%s{\"bufferView\":1,\"mimeType\":\"image/png\"}", i ? "," : "");
    at += (size_t)snprintf(body + at, cap - at, "],\"samplers\":[{\"magFilter\":9728}],\"textures\":[");
    for (int i = 0; i < N; i++)
        at += (size_t)snprintf(body + at, cap - at, "%s{\"source\":%d,\"sampler\":0}", i ? "," : "", i);
    at += (size_t)snprintf(body + at, cap - at, "],\"materials\":[");
    for (int i = 0; i < N; i++)
        at += (size_t)snprintf(body + at, cap - at,
                               "%s{\"name\":\"m%d\",\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":%d}}}",
                               i ? "," : "", i, i);
    at += (size_t)snprintf(body + at, cap - at, "],\"meshes\":[{\"primitives\":[");
    for (int i = 0; i < N; i++)
        at += (size_t)snprintf(body + at, cap - at,
                               "%s{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1},\"material\":%d}", i ? "," : "", i);
    snprintf(body + at, cap - at, "]}],\"nodes\":[{\"mesh\":0}]");
    char *json = gt_make_gltf(bin, total, body);
    ossa_model *m = gt_load_json(json);
    assert_int_equal(m->num_meshes, N);
    assert_string_equal(m->meshes[N - 1].material, "m19999");
    assert_non_null(extra(m, OSSA_EXTRA_IMAGE "m19999.png"));
    notes n;
    ossa_write_options o = options_for(OSSA_FORMAT_GLB, OSSA_IMAGES_DEFAULT, &n);
    void *data;
    size_t size;
    ossa_error err;
    assert_int_equal(ossa_write_memory(m, &o, &data, &size, &err), OSSA_OK);
    assert_int_equal(n.count, 0);
    cJSON *root = gt_json_of(data, size);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "materials")), N);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "textures")), N);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "images")), N);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "samplers")), 1);
    cJSON_Delete(root);
    ossa_free(data, NULL);
    ossa_model_free(m);
    free(json);
    free(body);
    free(bin);
    free(png);
    /* an IQE of many meshes naming one image that is not there */
    char *dir = dir_in_tmp("gltf_materials_many");
    char *iqe = ts_path_join(dir, "many.iqe");
    FILE *f = fopen(iqe, "w");
    assert_non_null(f);
    fprintf(f, "# Inter-Quake Export\n");
    for (int i = 0; i < 50000; i++)
        fprintf(f, "mesh m%d\nmaterial gone.png\nvp 0 0 0\nvp 1 0 0\nvp 0 0 1\nfm 0 1 2\n", i);
    fclose(f);
    m = ossa_load_file(iqe, NULL, &err);
    if (!m) fail_msg("%s", err.message);
    assert_int_equal(m->num_meshes, 50000);
    assert_null(extra(m, OSSA_EXTRA_IMAGE "gone.png"));
    char *out = ts_path_join(dir, "many.iqm");
    o = options_for(OSSA_FORMAT_IQM, OSSA_IMAGES_DEFAULT, &n);
    assert_int_equal(ossa_write_file(m, out, &o, &err), OSSA_OK);
    ossa_model_free(m);
    free(out);
    free(iqe);
    free(dir);
}

/* -- Allocation failures -- */

/* Files in `dir` (not counting "." and ".."). */
static int count_files(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    int n = -1;
    if (fscanf(p, "%d", &n) != 1) n = -1;
    pclose(p);
    return n;
}

/* Every allocation of loading a glTF with materials and images (a file
 * beside it), of writing them into a .glb and beside a .gltf or an IQM,
 * and of loading an IQM that finds its image, fails in turn: the call
 * fails with OSSA_ERROR_NOMEM, leaks nothing and leaves no file. */
static void allocation_failures(void **state)
{
    (void)state;
    char *dir = dir_in_tmp("gltf_materials_alloc");
    char *sub = ts_path_join(dir, "tex dir"), *out = ts_path_join(dir, "out");
    assert_int_equal(mkdir(sub, 0777), 0);
    assert_int_equal(mkdir(out, 0777), 0);
    size_t s1, s2, s3;
    unsigned char *albedo = make_png(2, 2, 200, &s1), *normal = make_png(1, 1, 128, &s2),
                  *packed = make_png(4, 1, 30, &s3);
    char *albedo_path = ts_path_join(sub, "albedo.png"), *src = ts_path_join(dir, "rich.gltf");
    put_file(albedo_path, albedo, s1);
    char *json = rich_gltf(normal, s2, packed, s3);
    put_file(src, json, strlen(json));
    ossa_error err;
    ossa_model *m = ossa_load_file(src, NULL, &err);
    assert_non_null(m);
    static const struct {
        const char *file;
        ossa_format format;
    } writes[] = {{"a.glb", OSSA_FORMAT_GLB}, {"a.gltf", OSSA_FORMAT_GLTF}, {"a.iqm", OSSA_FORMAT_IQM}};
    char clear[1200];
    snprintf(clear, sizeof clear, "rm -f '%s'/*", out);
    for (int step = 0; step < 5; step++) {
        if (step == 4) { /* the IQM and its image, for the last load */
            ossa_write_options o = options_for(OSSA_FORMAT_IQM, OSSA_IMAGES_DEFAULT, NULL);
            o.diagnostic = NULL;
            char *path = ts_path_join(out, "a.iqm");
            assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_OK);
            assert_int_equal(count_files(out), 2);
            free(path);
        }
        long total = -1;
        for (long n = 0; n <= total || total < 0; n++) {
            ts_alloc a;
            ts_alloc_init(&a, total < 0 ? -1 : n, false);
            ossa_status st;
            if (step == 0 || step == 4) { /* loads */
                ossa_load_options lo;
                memset(&lo, 0, sizeof lo);
                lo.allocator = &a.allocator;
                char *in = step ? ts_path_join(out, "a.iqm") : ts_path_join(dir, "rich.gltf");
                ossa_model *x = ossa_load_file(in, &lo, &err);
                st = x ? OSSA_OK : OSSA_FAILED;
                if (x && step == 4) assert_non_null(extra(x, OSSA_EXTRA_IMAGE "albedo.png"));
                ossa_model_free(x);
                free(in);
            } else {
                assert_int_equal(system(clear), 0);
                ossa_write_options o = options_for(writes[step - 1].format, OSSA_IMAGES_DEFAULT, NULL);
                o.diagnostic = NULL;
                o.allocator = &a.allocator;
                char *path = ts_path_join(out, writes[step - 1].file);
                st = ossa_write_file(m, path, &o, &err);
                if (st) assert_int_equal(count_files(out), 0); /* nothing half written */
                free(path);
            }
            assert_int_equal(a.live, 0);
            if (total < 0) { /* the run without failures counts the allocations */
                assert_int_equal(st, OSSA_OK);
                total = a.calls;
                static const char *const what[5] = {"load rich.gltf", "write .glb", "write .gltf",
                                                    "write .iqm", "load .iqm"};
                printf("%-16s %5ld allocations, each failed in turn\n", what[step], total);
                n = -1;
                continue;
            }
            if (st) assert_int_equal(err.code, OSSA_ERROR_NOMEM);
        }
    }
    ossa_model_free(m);
    free(json);
    free(src);
    free(albedo_path);
    free(albedo);
    free(normal);
    free(packed);
    free(out);
    free(sub);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(material_text),
        cmocka_unit_test(gltf_keeps_materials),
        cmocka_unit_test(cesium_man_keeps_its_texture),
        cmocka_unit_test(image_named_materials),
        cmocka_unit_test(images_beside_iqm),
        cmocka_unit_test(image_references),
        cmocka_unit_test(odd_images),
        cmocka_unit_test(many_materials),
        cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests_name("gltf_materials", tests, NULL, NULL);
}
