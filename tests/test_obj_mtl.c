/* OBJ materials (docs/formats/obj.md §9): the mtllib files beside an OBJ
 * are read and each material a mesh uses becomes the description Blender
 * 3.4's OBJ importer gives it. The expected values are what Blender 3.4.1
 * set on the Principled BSDF when it imported these same statements (run
 * by hand: blender -b with bpy.ops.wm.obj_import, the node values read
 * back; tests/blender/check_obj_mtl.sh compares whole files the same way),
 * and where ossa differs on purpose (one-number Kd, Tr) the MTL
 * specification's meaning. Files: several names on one mtllib line, names
 * with blanks, the first definition of a name winning, folders, Windows
 * paths, confinement, read_file, damaged and missing files (warnings,
 * never failures), and the OBJ writer's MTL read back to the same
 * descriptions, with its images copied beside. */
#include "gltf_test.h"
#include "render_test.h"

#include "core/materials.h"

#include <png.h>

/* A file in the test's folder, whose folders are made. */
static char *in_dir(const char *dir, const char *name)
{
    char *d = ts_tmp_path(dir);
    char *p = ts_path_join(d, name);
    free(d);
    char *slash = strrchr(p, '/');
    *slash = 0;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
    assert_int_equal(system(cmd), 0);
    *slash = '/';
    return p;
}

static void put_text(const char *dir, const char *name, const char *text)
{
    char *path = in_dir(dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    free(path);
}

/* A 16x16 PNG (libpng) of four 8x8 quadrants, red, green, blue and a
 * grey of level `shade` (which makes files differ). */
static void put_png(const char *dir, const char *name, uint8_t shade)
{
    static const uint8_t colours[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {0, 0, 0}};
    uint8_t px[16 * 16 * 4];
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            int q = (y >= 8) * 2 + (x >= 8);
            uint8_t *p = px + (y * 16 + x) * 4;
            for (int c = 0; c < 3; c++) p[c] = q == 3 ? shade : colours[q][c];
            p[3] = 255;
        }
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = pi.height = 16;
    pi.format = PNG_FORMAT_RGBA;
    char *path = in_dir(dir, name);
    assert_true(png_image_write_to_file(&pi, path, 0, px, 0, NULL));
    free(path);
}

/* An OBJ of one triangle per material, with texture coordinates, naming
 * `mtllib` lines (each a whole line's text). */
static char *obj_text(const char *mtllib, const char *const *materials, int n)
{
    size_t cap = 4096 + strlen(mtllib);
    for (int i = 0; i < n; i++) cap += strlen(materials[i]) + 64;
    char *t = malloc(cap);
    int len = snprintf(t, cap, "%sv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n", mtllib);
    for (int i = 0; i < n; i++)
        len += snprintf(t + len, cap - (size_t)len, "usemtl %s\nf 1/1 2/2 3/3\n", materials[i]);
    return t;
}

static ossa_model *load_obj(const char *dir, const char *name, uint32_t flags)
{
    char *path = in_dir(dir, name);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.flags = flags;
    ossa_error e;
    ossa_model *m = ossa_load_file(path, &lo, &e);
    if (!m) fail_msg("%s: %s", path, e.message);
    free(path);
    return m;
}

static ossa_material desc_of(const ossa_model *m, const char *name)
{
    ossa_material d;
    char key[300];
    snprintf(key, sizeof key, "%s%s", OSSA_EXTRA_MATERIAL, name);
    bool found = false;
    for (uint32_t i = 0; i < m->num_extras; i++) found |= strcmp(m->extras[i].key, key) == 0;
    if (!found) fail_msg("no description of material '%s'", name);
    assert_true(ossa__material_of(m, name, &d));
    return d;
}

static bool has_warning(const ossa_model *m, const char *part)
{
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (strstr(m->warnings[i].message, part)) return true;
    return false;
}

static const ossa_extra *image_of(const ossa_model *m, const char *name)
{
    char key[300];
    snprintf(key, sizeof key, "%s%s", OSSA_EXTRA_IMAGE, name);
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, key) == 0) return &m->extras[i];
    return NULL;
}

#define NEAR(a, b) TS_ASSERT_NEAR(a, b, 1e-6)

/* -- Blender 3.4's mapping ---------------------------------------------------- */

typedef struct expected {
    const char *name, *statements;
    float base[4], metallic, roughness, emissive[3];
    int blend;
} expected;

/* Base Color, Alpha, Metallic, Roughness, Emission and the blend mode that
 * Blender 3.4.1 gave each (Kd 0.5, Tr and d -halo differ: see the
 * comments). */
static const expected mapping[] = {
    {"none", "", {0.8f, 0.8f, 0.8f, 1}, 0, 1, {0, 0, 0}, 0},
    {"kd", "Kd 0.2 0.4 0.6", {0.2f, 0.4f, 0.6f, 1}, 0, 1, {0, 0, 0}, 0},
    {"ns200", "Ns 200", {0.8f, 0.8f, 0.8f, 1}, 0, 0.5527864045f, {0, 0, 0}, 0},
    {"ns0", "Ns 0", {0.8f, 0.8f, 0.8f, 1}, 0, 1, {0, 0, 0}, 0},
    {"ns2000", "Ns 2000", {0.8f, 0.8f, 0.8f, 1}, 0, 0, {0, 0, 0}, 0},
    {"illum2", "illum 2", {0.8f, 0.8f, 0.8f, 1}, 0, 0, {0, 0, 0}, 0},
    {"illum2ns", "illum 2\nNs 100", {0.8f, 0.8f, 0.8f, 1}, 0, 0.6837722340f, {0, 0, 0}, 0},
    {"illum3", "illum 3", {0.8f, 0.8f, 0.8f, 1}, 1, 1, {0, 0, 0}, 0},
    {"illum3ka", "illum 3\nKa 0.3 0.6 0.9", {0.8f, 0.8f, 0.8f, 1}, 0.6f, 1, {0, 0, 0}, 0},
    {"ka_only", "Ka 0.3 0.6 0.9", {0.8f, 0.8f, 0.8f, 1}, 0, 1, {0, 0, 0}, 0},
    {"illum4", "illum 4", {0.8f, 0.8f, 0.8f, 1}, 1, 1, {0, 0, 0}, 1},
    {"illum9", "illum 9", {0.8f, 0.8f, 0.8f, 1}, 0, 1, {0, 0, 0}, 1},
    {"d05", "d 0.5", {0.8f, 0.8f, 0.8f, 0.5f}, 0, 1, {0, 0, 0}, 1},
    /* Blender 3.4 reads no alpha here (1); the format's factor is 0.25 */
    {"d_halo", "d -halo 0.25", {0.8f, 0.8f, 0.8f, 0.25f}, 0, 1, {0, 0, 0}, 1},
    /* Blender 3.4 ignores Tr (alpha 1); the format's Tr is 1 - d */
    {"tr03", "Tr 0.3", {0.8f, 0.8f, 0.8f, 0.7f}, 0, 1, {0, 0, 0}, 1},
    {"d_tr", "d 0.5\nTr 0.3", {0.8f, 0.8f, 0.8f, 0.5f}, 0, 1, {0, 0, 0}, 1},
    {"tr_d", "Tr 0.3\nd 0.5", {0.8f, 0.8f, 0.8f, 0.5f}, 0, 1, {0, 0, 0}, 1},
    {"pr", "Pr 0.25\nPm 0.75\nNs 10", {0.8f, 0.8f, 0.8f, 1}, 0.75f, 0.25f, {0, 0, 0}, 0},
    {"ke", "Ke 0.5 0.25 1", {0.8f, 0.8f, 0.8f, 1}, 0, 1, {0.5f, 0.25f, 1}, 0},
    /* Blender 3.4 reads (0.5, 0.8, 0.8); one number is a grey in the format */
    {"kd1", "Kd 0.5", {0.5f, 0.5f, 0.5f, 1}, 0, 1, {0, 0, 0}, 0},
    {"ks_ni", "Ks 0.1 0.2 0.6\nNi 1.3\nTf 1 1 1\nsharpness 60", {0.8f, 0.8f, 0.8f, 1}, 0, 1, {0, 0, 0}, 0},
};

static void test_blender_mapping(void **state)
{
    (void)state;
    size_t n = sizeof mapping / sizeof mapping[0];
    char mtl[8192] = "";
    const char *names[64];
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(mtl);
        snprintf(mtl + len, sizeof mtl - len, "newmtl %s\n%s\n\n", mapping[i].name, mapping[i].statements);
        names[i] = mapping[i].name;
    }
    put_text("mtl_map", "m.mtl", mtl);
    char *obj = obj_text("mtllib m.mtl\n", names, (int)n);
    put_text("mtl_map", "m.obj", obj);
    free(obj);
    ossa_model *m = load_obj("mtl_map", "m.obj", 0);
    assert_int_equal(m->num_warnings, 0);
    for (size_t i = 0; i < n; i++) {
        const expected *x = &mapping[i];
        ossa_material d = desc_of(m, x->name);
        for (int c = 0; c < 4; c++) NEAR(d.base_color[c], x->base[c]);
        NEAR(d.metallic, x->metallic);
        NEAR(d.roughness, x->roughness);
        for (int c = 0; c < 3; c++) NEAR(d.emissive[c], x->emissive[c]);
        assert_int_equal(d.alpha_mode, x->blend ? OSSA_ALPHA_BLEND : OSSA_ALPHA_OPAQUE);
        assert_true(d.double_sided);
        for (int s = 0; s < OSSA_TEXTURE_COUNT; s++) assert_string_equal(d.textures[s].image, "");
    }
    ossa_model_free(m);
}

static void test_textures(void **state)
{
    (void)state;
    put_png("mtl_tex", "a.png", 1);
    put_png("mtl_tex", "b c.png", 2);
    put_png("mtl_tex", "e.png", 3);
    put_png("mtl_tex", "n.png", 4);
    put_png("mtl_tex", "second.png", 5);
    put_text("mtl_tex", "m.mtl",
             "newmtl kdtex\nKd 0.25 0.5 0.75\nmap_Kd a.png\n"
             "newmtl spaces\nmap_Kd -o 1 2 3 -s 4 b c.png\n"
             "newmtl quoted\nmap_Kd \"b c.png\"\n"
             "newmtl twice\nmap_Kd a.png\nmap_Kd second.png\n"
             "newmtl options\nmap_Kd -clamp on -blendu off -mm 0 1 -t 0 0 0 -texres 512 -imfchan r "
             "-cc on -boost 2 -s 1 1 a.png # a comment\n"
             "newmtl ke\nKe 1 0 0\nmap_Ke e.png\n"
             "newmtl bump\nmap_Bump -bm 0.5 n.png\n"
             "newmtl bump2\nbump n.png\n"
             "newmtl missing\nd 0.5\nmap_Kd gone.png\n");
    static const char *const names[] = {"kdtex", "spaces", "quoted", "twice", "options", "ke", "bump", "bump2", "missing"};
    char *obj = obj_text("mtllib m.mtl\n", names, 9);
    put_text("mtl_tex", "m.obj", obj);
    free(obj);
    ossa_model *m = load_obj("mtl_tex", "m.obj", 0);
    ossa_material d = desc_of(m, "kdtex");
    /* a texture replaces Kd, as in Blender (its glTF export writes 1) */
    for (int c = 0; c < 4; c++) NEAR(d.base_color[c], 1);
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "a.png");
    d = desc_of(m, "spaces");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "b c.png");
    d = desc_of(m, "quoted");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "b c.png");
    d = desc_of(m, "twice");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "second.png");
    d = desc_of(m, "options");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "a.png");
    d = desc_of(m, "ke");
    assert_string_equal(d.textures[OSSA_TEXTURE_EMISSIVE].image, "e.png");
    for (int c = 0; c < 3; c++) NEAR(d.emissive[c], 1);
    d = desc_of(m, "bump");
    assert_string_equal(d.textures[OSSA_TEXTURE_NORMAL].image, "n.png");
    NEAR(d.normal_scale, 0.5f);
    d = desc_of(m, "bump2");
    assert_string_equal(d.textures[OSSA_TEXTURE_NORMAL].image, "n.png");
    NEAR(d.normal_scale, 1);
    /* a missing image: a warning at its statement, the name kept */
    d = desc_of(m, "missing");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "gone.png");
    NEAR(d.base_color[3], 0.5f);
    assert_true(has_warning(m, "m.mtl:22:1: map_Kd: 'gone.png': cannot open"));
    /* -o 1 2 3 -s 4: said once; -s 1 1 and -t 0 0 0 place nothing */
    assert_true(has_warning(m, "m.mtl:5:1: map_Kd: the texture's placement (-o, -s, -t) is not kept"));
    assert_int_equal(m->num_warnings, 2);
    /* each image once, with its bytes */
    static const char *const files[] = {"a.png", "b c.png", "second.png", "e.png", "n.png"};
    for (int i = 0; i < 5; i++) {
        const ossa_extra *x = image_of(m, files[i]);
        assert_non_null(x);
        char *p = in_dir("mtl_tex", files[i]);
        size_t n;
        unsigned char *f = ts_read_file(p, &n);
        assert_int_equal(x->size, n);
        assert_memory_equal(x->data, f, n);
        free(f);
        free(p);
    }
    ossa_model_free(m);
    /* OSSA_LOAD_NO_IMAGES: the textures named, no image read */
    m = load_obj("mtl_tex", "m.obj", OSSA_LOAD_NO_IMAGES);
    d = desc_of(m, "kdtex");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "a.png");
    assert_null(image_of(m, "a.png"));
    ossa_model_free(m);
}

/* -- Files ------------------------------------------------------------------ */

static void test_mtllib_files(void **state)
{
    (void)state;
    /* several names on a line, a name with a blank, the first definition
     * winning across files and within one, a folder */
    put_text("mtl_files", "a.mtl", "newmtl red\nKd 1 0 0\nnewmtl red\nKd 0 1 0\n");
    put_text("mtl_files", "b.mtl", "newmtl red\nKd 0 0 1\nnewmtl green\nKd 0 1 0\n");
    put_text("mtl_files", "one two.mtl", "newmtl spaced\nKd 0.1 0.2 0.3\n");
    put_text("mtl_files", "sub/c.mtl", "newmtl sub\nmap_Kd t.png\nnewmtl win\nmap_Kd C:\\Users\\me\\t.png\n"
                                       "newmtl rel\nmap_Kd tex\\u.png\n");
    put_png("mtl_files", "sub/t.png", 9);
    put_png("mtl_files", "sub/tex/u.png", 10);
    static const char *const names[] = {"red", "green", "spaced", "sub", "win", "rel", "nowhere"};
    char *obj = obj_text("mtllib a.mtl b.mtl\nmtllib one two.mtl\nmtllib \"sub/c.mtl\" gone.mtl\n", names, 7);
    put_text("mtl_files", "m.obj", obj);
    free(obj);
    ossa_model *m = load_obj("mtl_files", "m.obj", 0);
    ossa_material d = desc_of(m, "red");
    NEAR(d.base_color[0], 1);
    NEAR(d.base_color[1], 0);
    d = desc_of(m, "green");
    NEAR(d.base_color[1], 1);
    d = desc_of(m, "spaced");
    NEAR(d.base_color[2], 0.3f);
    d = desc_of(m, "sub");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "sub/t.png");
    assert_non_null(image_of(m, "sub/t.png"));
    /* an absolute Windows path: the file of that name in the MTL's folder */
    d = desc_of(m, "win");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "sub/t.png");
    /* backslashes inside: folder separators */
    d = desc_of(m, "rel");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "sub/tex/u.png");
    assert_non_null(image_of(m, "sub/tex/u.png"));
    /* the missing file, at its name on its mtllib line; the repeated
     * definition; the undefined material */
    assert_true(has_warning(m, "mtllib 'gone.mtl'"));
    bool located = false;
    for (uint32_t i = 0; i < m->num_warnings; i++)
        located |= strstr(m->warnings[i].message, "gone.mtl") && m->warnings[i].line == 3 &&
                   m->warnings[i].column == 20;
    assert_true(located);
    assert_true(has_warning(m, "a.mtl:3:8: material 'red' is defined again: the first definition is used"));
    assert_true(has_warning(m, "1 material that no mtllib file defines ('nowhere')"));
    assert_int_equal(m->num_warnings, 3);
    ossa_model_free(m);
}

typedef struct served {
    char asked[16][128];
    int n;
} served;

static ossa_status serve(void *user, const char *path, void **data, size_t *size)
{
    served *s = user;
    if (s->n < 16) snprintf(s->asked[s->n++], 128, "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    *data = ts_read_file(path, size);
    return *data ? OSSA_OK : OSSA_FAILED;
}

static void release(void *user, void *data, size_t size)
{
    (void)user, (void)size;
    free(data);
}

static void test_confinement(void **state)
{
    (void)state;
    put_text("mtl_up", "up.mtl", "newmtl up\nKd 0 0 1\nmap_Kd ../mtl_up/t.png\n");
    put_png("mtl_up", "t.png", 7);
    static const char *const names[] = {"up"};
    char *obj = obj_text("mtllib ../mtl_up/up.mtl\n", names, 1);
    put_text("mtl_up", "m.obj", obj);
    free(obj);
    /* refused, with a warning at the statement; allowed with the flag */
    ossa_model *m = load_obj("mtl_up", "m.obj", 0);
    assert_true(has_warning(m, "is outside the model's folder"));
    assert_false(ossa__material_of(m, "up", &(ossa_material){0}));
    ossa_model_free(m);
    m = load_obj("mtl_up", "m.obj", OSSA_LOAD_ALLOW_PARENT_PATHS);
    ossa_material d = desc_of(m, "up");
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "../mtl_up/../mtl_up/t.png");
    assert_non_null(image_of(m, "../mtl_up/../mtl_up/t.png"));
    ossa_model_free(m);
    /* through read_file: the MTL and then the image */
    put_text("mtl_up", "in.mtl", "newmtl up\nmap_Kd t.png\n");
    obj = obj_text("mtllib in.mtl\n", names, 1);
    char *path = in_dir("mtl_up", "in.obj");
    served s;
    memset(&s, 0, sizeof s);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = path;
    lo.read_file = serve;
    lo.release_file = release;
    lo.file_user = &s;
    ossa_error e;
    m = ossa_load_memory(obj, strlen(obj), &lo, &e);
    assert_non_null(m);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.asked[0], "in.mtl");
    assert_string_equal(s.asked[1], "t.png");
    assert_non_null(image_of(m, "t.png"));
    ossa_model_free(m);
    free(path);
    free(obj);
}

/* -- Damaged MTL files: warnings, never failures ------------------------------- */

static const char damaged[] =
    "Kd 1 0 0\n"                 /* before any newmtl */
    "newmtl a\n"
    "Kd 1 x 0\n"                 /* not a number */
    "Kd 0.5 0.5\n"               /* two numbers */
    "Kd spectral file.rfl 1\n"
    "Ns\n"
    "illum 2.5\n"
    "d 1 2\n"                    /* more than it takes */
    "frobnicate 3\n"             /* unknown, twice: said once */
    "frobnicate 4\n"
    "map_Kd -s 1 x\n"            /* -s then a name: x */
    "map_Ke\n"
    "newmtl\n"
    "Kd 0 1 0\n"
    "newmtl b\n"
    "Kd nan 1 1\n"
    "Kd 0.25 0.5 0.75\n";

static void test_damaged(void **state)
{
    (void)state;
    put_text("mtl_bad", "m.mtl", damaged);
    static const char *const names[] = {"a", "b"};
    char *obj = obj_text("mtllib m.mtl\n", names, 2);
    put_text("mtl_bad", "m.obj", obj);
    free(obj);
    ossa_model *m = load_obj("mtl_bad", "m.obj", 0);
    static const char *const said[] = {
        "m.mtl:1:1: 'Kd' before any 'newmtl': ignored",
        "m.mtl:3:6: Kd: expected a number, found 'x'",
        "m.mtl:4:4: Kd: expected 1 or 3 numbers, found 2",
        "m.mtl:5:4: Kd: spectral and CIE XYZ colours are not read",
        "m.mtl:6:3: Ns: expected a number, found the end of the line",
        "m.mtl:7:7: illum: expected an illumination model 0 to 10",
        "m.mtl:8:5: d: more than it takes, '2', ignored",
        "m.mtl:9:1: unknown statement 'frobnicate': ignored",
        "m.mtl:12:7: map_Ke: expected a file name, found the end of the line",
        "m.mtl:13:7: newmtl: expected a material name, found the end of the line",
        "m.mtl:16:4: Kd: expected a number, found 'nan'",
    };
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
        if (!has_warning(m, said[i])) fail_msg("no warning '%s'", said[i]);
    ossa_material d = desc_of(m, "a");
    NEAR(d.base_color[0], 1); /* no Kd could be read; a texture */
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "x");
    NEAR(d.roughness, 1); /* neither Ns nor illum 2 read */
    NEAR(d.base_color[3], 1);
    d = desc_of(m, "b");
    NEAR(d.base_color[2], 0.75f);
    ossa_model_free(m);

    /* Not text at all: one warning, no material */
    put_text("mtl_bad", "bin.mtl", "newmtl a\nKd 1 0 0\n");
    char *p = in_dir("mtl_bad", "bin.mtl");
    FILE *f = fopen(p, "ab");
    fputc(0, f);
    fclose(f);
    free(p);
    obj = obj_text("mtllib bin.mtl\n", names, 2);
    put_text("mtl_bad", "bin.obj", obj);
    free(obj);
    m = load_obj("mtl_bad", "bin.obj", 0);
    assert_true(has_warning(m, "bin.mtl: a NUL byte at byte 18: not a text MTL file"));
    assert_false(ossa__material_of(m, "a", &d));
    ossa_model_free(m);
}

/* -- Robustness: every cut, every byte patched, every allocation failed --------- */

/* An OBJ whose mtllib is served from memory by read_file (and every image
 * as the same small PNG). */
typedef struct memfs {
    const unsigned char *mtl;
    size_t mtl_size;
    unsigned char *png;
    size_t png_size;
    int reads;
} memfs;

static ossa_status memfs_read(void *user, const char *path, void **data, size_t *size)
{
    memfs *fs = user;
    fs->reads++;
    size_t n = strlen(path);
    bool mtl = n > 4 && !strcmp(path + n - 4, ".mtl");
    const unsigned char *src = mtl ? fs->mtl : fs->png;
    size_t len = mtl ? fs->mtl_size : fs->png_size;
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, src, len);
    *data = copy;
    *size = len;
    return OSSA_OK;
}

static const char full_mtl[] =
    "# every statement the reader takes\n"
    "newmtl a\nKd 0.2 0.4 0.6\nKa 0.3 0.6 0.9\nKe 0.5 0.25 1\nNs 200\nillum 3\nd 0.5\nTr 0.2\n"
    "Pr 0.25\nPm 0.75\nmap_Kd -o 1 2 -s 3 -bm 2 -clamp on tex one.png\n"
    "newmtl b\nmap_Ke \"e.png\"\nmap_Bump -bm 0.5 n.png\nbump n2.png\nKd 1\n"
    "newmtl a\nKd 0 0 0\nnewmtl c d\nKs 1 1 1\nNi 1.5\nd -halo 0.3\n";

static ossa_model *load_served(memfs *fs, const ossa_allocator *a, ossa_error *e)
{
    static const char obj[] = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n"
                              "usemtl a\nf 1/1 2/2 3/3\nusemtl b\nf 1/1 3/3 2/2\nusemtl c d\nf 3 2 1\n";
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.file_name = "/served/m.obj";
    lo.read_file = memfs_read;
    lo.release_file = release;
    lo.file_user = fs;
    lo.allocator = a;
    return ossa_load_memory(obj, sizeof obj - 1, &lo, e);
}

static unsigned char *tiny_png(size_t *size)
{
    uint8_t px[4] = {10, 20, 30, 255};
    ossa_render_image im = {1, 1, px, 0, NULL};
    void *png;
    ossa_error e;
    assert_int_equal(ossa_render_png_encode(&im, NULL, &png, size, &e), OSSA_OK);
    return png;
}

static void test_robust(void **state)
{
    (void)state;
    memfs fs = {(const unsigned char *)full_mtl, sizeof full_mtl - 1, NULL, 0, 0};
    fs.png = tiny_png(&fs.png_size);
    ossa_error e;
    ossa_model *m = load_served(&fs, NULL, &e);
    assert_non_null(m);
    ossa_material d = desc_of(m, "a");
    NEAR(d.base_color[3], 0.5f);
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "tex one.png");
    d = desc_of(m, "c d");
    NEAR(d.base_color[3], 0.3f);
    d = desc_of(m, "b");
    assert_string_equal(d.textures[OSSA_TEXTURE_NORMAL].image, "n2.png"); /* the last of its kind */
    ossa_model_free(m);
    /* Every cut of the MTL: a model, never a failure. */
    for (size_t n = 0; n <= fs.mtl_size; n++) {
        memfs cut = fs;
        cut.mtl_size = n;
        m = load_served(&cut, NULL, &e);
        if (!m) fail_msg("the MTL cut to %zu bytes fails the load: %s", n, e.message);
        assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
        ossa_model_free(m);
    }
    /* Every byte changed three ways: the same. */
    unsigned char *patched = malloc(fs.mtl_size);
    static const int patches[3] = {0x00, '\n', -1};
    for (size_t i = 0; i < fs.mtl_size; i++)
        for (int k = 0; k < 3; k++) {
            memcpy(patched, fs.mtl, fs.mtl_size);
            patched[i] = (unsigned char)(patches[k] < 0 ? fs.mtl[i] ^ 0x55 : patches[k]);
            memfs p = fs;
            p.mtl = patched;
            m = load_served(&p, NULL, &e);
            if (!m) fail_msg("byte %zu patched fails the load: %s", i, e.message);
            ossa_model_free(m);
        }
    free(patched);
    /* Every allocation failed in turn: out of memory, nothing held. */
    ts_alloc good;
    ts_alloc_init(&good, -1, false);
    m = load_served(&fs, &good.allocator, &e);
    assert_non_null(m);
    ossa_model_free(m);
    assert_int_equal(good.live, 0);
    printf("MTL load: %ld allocations, each failed in turn\n", good.calls);
    for (long n = 0; n < good.calls; n++) {
        ts_alloc a;
        ts_alloc_init(&a, n, false);
        m = load_served(&fs, &a.allocator, &e);
        if (m)
            ossa_model_free(m);
        else
            assert_int_equal(e.code, OSSA_ERROR_NOMEM);
        assert_int_equal(a.live, 0);
    }
    ossa_free(fs.png, NULL);
}

/* -- Writing ------------------------------------------------------------------ */

static void assert_same_desc(const ossa_material *a, const ossa_material *b)
{
    for (int c = 0; c < 4; c++) assert_true(a->base_color[c] == b->base_color[c]);
    for (int c = 0; c < 3; c++) assert_true(a->emissive[c] == b->emissive[c]);
    assert_true(a->metallic == b->metallic);
    assert_true(a->roughness == b->roughness);
    assert_true(a->normal_scale == b->normal_scale);
    assert_int_equal(a->alpha_mode, b->alpha_mode);
    assert_int_equal(a->double_sided, b->double_sided);
    for (int s = 0; s < OSSA_TEXTURE_COUNT; s++) assert_string_equal(a->textures[s].image, b->textures[s].image);
}

static void test_write_round_trip(void **state)
{
    (void)state;
    put_png("mtl_write", "a.png", 11);
    put_png("mtl_write", "n.png", 12);
    put_png("mtl_write", "-x.png", 13);
    put_text("mtl_write", "m.mtl",
             "newmtl tex\nmap_Kd a.png\nd 0.5\n"
             "newmtl col\nKd 0.2 0.4 0.6\nNs 200\nillum 3\nKa 0.3 0.6 0.9\n"
             "newmtl emit\nKe 0.5 0.25 1\nmap_Bump -bm 0.5 n.png\n"
             "newmtl pbr\nPr 0.25\nPm 0.75\n"
             "newmtl -dash\nmap_Kd -x.png\n");
    static const char *const names[] = {"tex", "col", "emit", "pbr", "-dash"};
    char *obj = obj_text("mtllib m.mtl\n", names, 5);
    put_text("mtl_write", "m.obj", obj);
    free(obj);
    ossa_model *m = load_obj("mtl_write", "m.obj", 0);
    /* an image of that name already there with other bytes: a.png goes
     * beside as a_2.png */
    char *old = ts_tmp_path("mtl_write_out"), cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", old);
    assert_int_equal(system(cmd), 0);
    free(old);
    put_png("mtl_write_out", "a.png", 99);
    char *out = in_dir("mtl_write_out", "x.obj");
    ossa_error e;
    assert_int_equal(ossa_write_file(m, out, NULL, &e), OSSA_OK);
    char *mtl_path = in_dir("mtl_write_out", "x.mtl");
    size_t size;
    char *text = (char *)ts_read_file(mtl_path, &size);
    assert_non_null(text);
    text = realloc(text, size + 1);
    text[size] = 0;
    assert_non_null(strstr(text, "newmtl tex\nKd 1 1 1\nd 0.5\nmap_Kd a_2.png\n"));
    assert_non_null(strstr(text, "newmtl col\nKd 0.2 0.4 0.6\nNs 200\nPr 0.5527864\nPm 0.59999996\n"));
    assert_non_null(strstr(text, "newmtl emit\nKd 0.8 0.8 0.8\nKe 0.5 0.25 1\nmap_Bump -bm 0.5 n.png\n"));
    /* a file name that would read as an option goes through "./" */
    assert_non_null(strstr(text, "newmtl -dash\nKd 1 1 1\nmap_Kd ./-x.png\n"));
    free(text);
    free(mtl_path);
    /* the images beside, as they were */
    static const char *const copies[3][2] = {{"a_2.png", "a.png"}, {"n.png", "n.png"}, {"-x.png", "-x.png"}};
    for (int i = 0; i < 3; i++) {
        char *p = in_dir("mtl_write_out", copies[i][0]), *q = in_dir("mtl_write", copies[i][1]);
        size_t n1, n2;
        unsigned char *f1 = ts_read_file(p, &n1), *f2 = ts_read_file(q, &n2);
        assert_non_null(f1);
        assert_int_equal(n1, n2);
        assert_memory_equal(f1, f2, n1);
        free(f1), free(f2), free(p), free(q);
    }
    /* read back: the same descriptions, the images under their new names */
    ossa_model *back = ossa_load_file(out, NULL, &e);
    assert_non_null(back);
    for (int i = 0; i < 5; i++) {
        ossa_material a = desc_of(m, names[i]), b = desc_of(back, names[i]);
        if (!strcmp(a.textures[OSSA_TEXTURE_BASE_COLOR].image, "a.png"))
            strcpy(a.textures[OSSA_TEXTURE_BASE_COLOR].image, "a_2.png");
        assert_same_desc(&a, &b);
    }
    assert_int_equal(back->num_warnings, 0);
    ossa_model_free(back);
    free(out);
    ossa_model_free(m);
}

typedef struct said {
    char text[4][256];
    int n;
} said;

static void on_said(void *user, const ossa_diagnostic *d)
{
    said *s = user;
    if (s->n < 4) snprintf(s->text[s->n++], 256, "%s", d->message);
}

/* What MTL cannot hold is said; images the model lacks keep their names. */
static void test_write_losses(void **state)
{
    (void)state;
    ossa_model *m = rtt_facing_pair("glossy");
    ossa_error e;
    static const char desc[] = "base_color 0.5 0.5 0.5 1\nalpha_mode mask\nbase_color_texture nothere.png\n"
                               "occlusion_texture ao.png\n";
    assert_int_equal(ossa_model_add_extra(m, OSSA_EXTRA_MATERIAL "glossy", desc, sizeof desc - 1, &e), OSSA_OK);
    said s;
    memset(&s, 0, sizeof s);
    ossa_write_options wo;
    memset(&wo, 0, sizeof wo);
    wo.diagnostic = on_said;
    wo.user = &s;
    char *out = in_dir("mtl_losses", "x.obj");
    assert_int_equal(ossa_write_file(m, out, &wo, &e), OSSA_OK);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.text[0], "MTL files cannot hold the colour factors, occlusion maps, alpha modes "
                                   "of material 'glossy': not written");
    assert_string_equal(s.text[1], "images not in the model ('nothere.png'): the MTL file names them");
    char *mtl_path = in_dir("mtl_losses", "x.mtl");
    size_t size;
    char *text = (char *)ts_read_file(mtl_path, &size);
    assert_non_null(text);
    text = realloc(text, size + 1);
    text[size] = 0;
    assert_non_null(strstr(text, "newmtl glossy\nKd 1 1 1\nPm 1\nmap_Kd nothere.png\n"));
    free(text);
    free(mtl_path);
    free(out);
    ossa_model_free(m);
}

/* -- Rendering and glTF ------------------------------------------------------------ */

static void test_render_and_gltf(void **state)
{
    (void)state;
    put_png("mtl_look", "a.png", 255);
    put_text("mtl_look", "m.mtl", "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\nnewmtl tex\nmap_Kd a.png\n");
    /* a quad facing ossa's front (OBJ's x = 0 plane), red and blue halves,
     * and a textured one beside */
    put_text("mtl_look", "m.obj",
             "mtllib m.mtl\nv 0 0 0\nv 0 0 1\nv 0 1 1\nv 0 1 0\nv 0 0 2\nv 0 1 2\nv 0 0 3\nv 0 1 3\n"
             "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
             "usemtl red\nf 1/1 2/2 3/3\nusemtl blue\nf 1/1 3/3 4/4\n"
             "usemtl tex\nf 5/1 7/2 8/3\nf 5/1 8/3 6/4\n");
    ossa_model *m = load_obj("mtl_look", "m.obj", 0);
    char *path = in_dir("mtl_look", "m.obj");
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    assert_int_equal(ossa_render_scene_load_materials(s, m, path, NULL, NULL), 3);
    ossa_render_camera cam;
    rtt_frame_front(m, 96, 64, &cam);
    ossa_render_options o;
    memset(&o, 0, sizeof o);
    o.camera = &cam;
    rtt_flat_lighting(&o);
    rtt_image im;
    rtt_image_init(&im, 96, 64);
    rtt_run(s, &o, &im);
    /* Kd is linear, as Blender takes it: pure colours stay pure in sRGB */
    int red = 0, blue = 0, green = 0, white = 0;
    for (uint32_t i = 0; i < 96 * 64; i++) {
        const uint8_t *p = im.pixels + i * 4;
        red += p[0] == 255 && p[1] == 0 && p[2] == 0;
        blue += p[0] == 0 && p[1] == 0 && p[2] == 255;
        /* the 2x2 texture, filtered: near its texels */
        green += p[0] < 15 && p[1] > 240 && p[2] < 15;
        white += p[0] > 240 && p[1] > 240 && p[2] > 240;
    }
    assert_true(red > 100 && blue > 100 && green > 0 && white > 0);
    rtt_image_free(&im);
    ossa_render_scene_free(s);

    /* glTF: the base colours and the texture, validated */
    char *glb = in_dir("mtl_look", "m.glb");
    assert_int_equal(ossa_write_file(m, glb, NULL, &e), OSSA_OK);
    size_t size;
    unsigned char *file = ts_read_file(glb, &size);
    cJSON *root = cJSON_ParseWithLength((const char *)file + 20, ts_le32(file + 12));
    assert_non_null(root);
    cJSON *mats = cJSON_GetObjectItemCaseSensitive(root, "materials");
    int found = 0;
    for (int i = 0; i < cJSON_GetArraySize(mats); i++) {
        cJSON *mat = cJSON_GetArrayItem(mats, i);
        const char *name = cJSON_GetObjectItemCaseSensitive(mat, "name")->valuestring;
        cJSON *pbr = cJSON_GetObjectItemCaseSensitive(mat, "pbrMetallicRoughness");
        cJSON *factor = cJSON_GetObjectItemCaseSensitive(pbr, "baseColorFactor");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mat, "doubleSided")));
        if (!strcmp(name, "red") || !strcmp(name, "blue")) {
            bool r = !strcmp(name, "red");
            NEAR(cJSON_GetArrayItem(factor, 0)->valuedouble, r ? 1 : 0);
            NEAR(cJSON_GetArrayItem(factor, 2)->valuedouble, r ? 0 : 1);
            found++;
        } else {
            assert_null(factor);
            assert_non_null(cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"));
            found++;
        }
    }
    assert_int_equal(found, 3);
    cJSON_Delete(root);
    free(file);
    ossa_model *back = ossa_load_file(glb, NULL, &e);
    assert_non_null(back);
    const ossa_extra *img = image_of(back, "a.png");
    assert_non_null(img);
    char *src = in_dir("mtl_look", "a.png");
    unsigned char *png = ts_read_file(src, &size);
    assert_int_equal(img->size, size);
    assert_memory_equal(img->data, png, size);
    free(png);
    free(src);
    ossa_model_free(back);
    free(glb);
    free(path);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blender_mapping),
        cmocka_unit_test(test_textures),
        cmocka_unit_test(test_mtllib_files),
        cmocka_unit_test(test_confinement),
        cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_robust),
        cmocka_unit_test(test_write_round_trip),
        cmocka_unit_test(test_write_losses),
        cmocka_unit_test(test_render_and_gltf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
