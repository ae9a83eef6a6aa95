/* FBX reader (formats/fbx.md): real files' counts (§14), hand-written
 * ASCII files checking the transform formula of §8 against an independent
 * quaternion computation, every layer element mapping and reference mode,
 * material splits, winding, axis and unit conversion, curve interpolation
 * and layer blending. The binary container has its own tests in
 * test_fbx_binary.c. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/materials.h"

#define KT 46186158000LL /* KTime ticks per second */
#define PI 3.14159265358979323846

static const char *header =
    "; FBX 7.4.0 project file\n"
    "FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n";

/* An ASCII FBX: header, GlobalSettings with `settings` P records, then
 * `body` (Objects, Connections, ...). malloc'd. */
static char *fbx_text(const char *settings, const char *body)
{
    size_t n = strlen(header) + strlen(settings) + strlen(body) + 128;
    char *s = malloc(n);
    snprintf(s, n, "%sGlobalSettings:  {\n\tProperties70:  {\n%s\t}\n}\n%s", header, settings, body);
    return s;
}

static ossa_model *load_text_flags(const char *text, const char *options, uint32_t flags,
                                   ossa_error *err)
{
    ossa_load_options o = {0};
    o.flags = flags;
    ts_options opts;
    ts_options_parse(&opts, options);
    o.format_options = opts.list;
    o.num_format_options = opts.count;
    return ossa_load_memory(text, strlen(text), &o, err);
}

static ossa_model *load_text(const char *text, const char *options, ossa_error *err)
{
    return load_text_flags(text, options, 0, err);
}

static ossa_model *must_load(const char *text, const char *options)
{
    ossa_error err;
    ossa_model *m = load_text(text, options, &err);
    if (!m) {
        char b[600];
        fail_msg("load failed: %s", ossa_error_format(&err, b, sizeof b));
    }
    return m;
}

#define RAW "fbx.keep_axes fbx.keep_units"

/* -- Independent quaternion arithmetic -- */

static void qmul(const double a[4], const double b[4], double o[4])
{
    double r[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                   a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    memcpy(o, r, sizeof r);
}

static void qaxis(int axis, double deg, double q[4])
{
    double h = deg * PI / 360;
    q[0] = q[1] = q[2] = 0;
    q[axis] = sin(h);
    q[3] = cos(h);
}

/* Euler order: letters in application order (first applied first). */
static void qeuler(const double deg[3], const int order[3], double q[4])
{
    double a[4], b[4], c[4], t[4];
    qaxis(order[0], deg[order[0]], a);
    qaxis(order[1], deg[order[1]], b);
    qaxis(order[2], deg[order[2]], c);
    qmul(c, b, t);
    qmul(t, a, q);
}

static void qrot(const double q[4], const double v[3], double o[3])
{
    double p[4] = {v[0], v[1], v[2], 0}, qc[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    qmul(q, p, t);
    qmul(t, qc, r);
    o[0] = r[0], o[1] = r[1], o[2] = r[2];
}

/* -- Transforms (§8.1) -- */

static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}};

static void check_transform(int order, bool active)
{
    const double t[3] = {1, 2, 3}, r[3] = {10, -20, 35}, s[3] = {2, 3, 0.5};
    const double roff[3] = {0.5, -1, 2}, rp[3] = {1, 1, -2}, soff[3] = {-0.25, 0.75, 1},
                 sp[3] = {3, -1, 0.5}, pre[3] = {30, 0, -45}, post[3] = {0, 60, 15};
    char settings[] = "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n";
    char body[4096];
    snprintf(body, sizeof body,
             "Objects:  {\n"
             "\tModel: 10, \"Model::J\", \"LimbNode\" {\n\t\tProperties70:  {\n"
             "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",1,2,3\n"
             "\t\t\tP: \"Lcl Rotation\", \"Lcl Rotation\", \"\", \"A\",10,-20,35\n"
             "\t\t\tP: \"Lcl Scaling\", \"Lcl Scaling\", \"\", \"A\",2,3,0.5\n"
             "\t\t\tP: \"RotationOffset\", \"Vector3D\", \"Vector\", \"\",0.5,-1,2\n"
             "\t\t\tP: \"RotationPivot\", \"Vector3D\", \"Vector\", \"\",1,1,-2\n"
             "\t\t\tP: \"ScalingOffset\", \"Vector3D\", \"Vector\", \"\",-0.25,0.75,1\n"
             "\t\t\tP: \"ScalingPivot\", \"Vector3D\", \"Vector\", \"\",3,-1,0.5\n"
             "\t\t\tP: \"PreRotation\", \"Vector3D\", \"Vector\", \"\",30,0,-45\n"
             "\t\t\tP: \"PostRotation\", \"Vector3D\", \"Vector\", \"\",0,60,15\n"
             "\t\t\tP: \"RotationOrder\", \"enum\", \"\", \"\",%d\n"
             "\t\t\tP: \"RotationActive\", \"bool\", \"\", \"\",%d\n"
             "\t\t}\n\t}\n}\nConnections:  {\n\tC: \"OO\",10,0\n}\n",
             order, active ? 1 : 0);
    char *text = fbx_text(settings, body);
    ossa_model *m = must_load(text, RAW);
    assert_int_equal(m->num_joints, 1);
    /* Q = Rpre · R · Rpost⁻¹; t' = t + Roff + Rp + Q·(Soff + Sp − S∘Sp − Rp) */
    double q[4], qpre[4], qpost[4], tmp[4];
    static const int xyz[3] = {0, 1, 2};
    qeuler(r, active ? orders[order] : xyz, q);
    if (active) {
        qeuler(pre, xyz, qpre);
        qeuler(post, xyz, qpost);
        qpost[0] = -qpost[0], qpost[1] = -qpost[1], qpost[2] = -qpost[2];
        qmul(qpre, q, tmp);
        qmul(tmp, qpost, q);
    }
    double v[3], rv[3];
    for (int k = 0; k < 3; k++) v[k] = soff[k] + sp[k] - s[k] * sp[k] - rp[k];
    qrot(q, v, rv);
    const ossa_transform *b = &m->joints[0].bind;
    for (int k = 0; k < 3; k++) {
        TS_ASSERT_NEAR(b->translation[k], t[k] + roff[k] + rp[k] + rv[k], 1e-5);
        /* A decomposition may move a sign between scale and rotation: the
         * absolute scales are what is unique. */
        TS_ASSERT_NEAR(fabs(b->scale[k]), s[k], 1e-5);
    }
    float qf[4] = {(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
    TS_ASSERT_QUAT_EQUIV(b->rotation, qf, 1e-6);
    ossa_model_free(m);
    free(text);
}

static void test_transform_orders(void **state)
{
    (void)state;
    for (int order = 0; order < 6; order++) check_transform(order, true);
    check_transform(3, false); /* RotationActive 0: XYZ, no pre/post */
}

/* Y-up, 100 cm per unit: (x, y, z) -> k·(x, -z, y) with k = 1 m. */
static void test_axes_and_units(void **state)
{
    (void)state;
    const char *settings = "\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n"
                           "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",2.54\n";
    const char *body = "Objects:  {\n\tModel: 7, \"Model::J\", \"LimbNode\" {\n\t\tProperties70:  {\n"
                       "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",100,200,300\n"
                       "\t\t\tP: \"Lcl Scaling\", \"Lcl Scaling\", \"\", \"A\",1,2,3\n"
                       "\t\t}\n\t}\n}\nConnections:  {\n\tC: \"OO\",7,0\n}\n";
    char *text = fbx_text(settings, body);
    ossa_model *m = must_load(text, 0);
    const ossa_transform *b = &m->joints[0].bind;
    TS_ASSERT_NEAR(b->translation[0], 2.54, 1e-5);
    TS_ASSERT_NEAR(b->translation[1], -3 * 2.54, 1e-5);
    TS_ASSERT_NEAR(b->translation[2], 2 * 2.54, 1e-5);
    TS_ASSERT_NEAR(fabs(b->scale[0]), 1, 1e-6);
    TS_ASSERT_NEAR(fabs(b->scale[1]), 3, 1e-6); /* axes permuted, scales follow */
    TS_ASSERT_NEAR(fabs(b->scale[2]), 2, 1e-6);
    ossa_model_free(m);
    m = must_load(text, "fbx.keep_axes");
    TS_ASSERT_NEAR(m->joints[0].bind.translation[1], 2 * 2.54, 1e-5);
    ossa_model_free(m);
    m = must_load(text, "fbx.keep_units");
    TS_ASSERT_NEAR(m->joints[0].bind.translation[1], -300, 1e-4);
    ossa_model_free(m);
    free(text);
}

/* -- Meshes: mappings, references, materials, winding -- */

static const char *mesh_body_fmt =
    "Objects:  {\n"
    "\tGeometry: 1, \"Geometry::\", \"Mesh\" {\n"
    "\t\tVertices: *15 {\n\t\t\ta: 0,0,0, 1,0,0, 1,1,0, 0,1,0, 2,0,0\n\t\t}\n"
    /* a quad 0 1 2 3 and a triangle 1 4 2 */
    "\t\tPolygonVertexIndex: *7 {\n\t\t\ta: 0,1,2,-4,1,4,-3\n\t\t}\n"
    "%s"
    "\t}\n"
    "\tModel: 2, \"Model::Thing\", \"Mesh\" {\n\t}\n"
    "\tMaterial: 3, \"Material::red\", \"\" {\n\t}\n"
    "\tMaterial: 4, \"Material::blue\", \"\" {\n\t}\n"
    "}\n"
    "Connections:  {\n\tC: \"OO\",2,0\n\tC: \"OO\",1,2\n\tC: \"OO\",3,2\n\tC: \"OO\",4,2\n}\n";

static ossa_model *mesh_model(const char *layers)
{
    char body[8192];
    snprintf(body, sizeof body, mesh_body_fmt, layers);
    char *text = fbx_text("", body);
    ossa_model *m = must_load(text, RAW);
    free(text);
    return m;
}

/* The float attribute `type` of every vertex whose position is p (there
 * may be several: corners split by other attributes). Returns how many
 * match `want` among those at p. */
static int count_at(const ossa_model *m, ossa_vertex_type type, const float p[3], const float *want,
                    uint32_t n)
{
    const ossa_vertex_array *pa = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *a = ossa_model_find_array(m, type, NULL);
    assert_non_null(a);
    int count = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        float pv[3], av[8];
        ossa_vertex_array_read(m, pa, v, 1, pv);
        ossa_vertex_array_read(m, a, v, 1, av);
        if (pv[0] != p[0] || pv[1] != p[1] || pv[2] != p[2]) continue;
        bool eq = true;
        for (uint32_t k = 0; k < n; k++) eq &= fabsf(av[k] - want[k]) < 1e-6f;
        count += eq;
    }
    return count;
}

static void test_mesh_by_polygon_vertex_direct(void **state)
{
    (void)state;
    /* Normals per corner, direct: the quad's corners +Z, the triangle's
     * corners (1,0,0),(0,1,0),(0,0,-1) after normalisation. */
    ossa_model *m = mesh_model("\t\tLayerElementNormal: 0 {\n"
                               "\t\t\tMappingInformationType: \"ByPolygonVertex\"\n"
                               "\t\t\tReferenceInformationType: \"Direct\"\n"
                               "\t\t\tNormals: *21 {\n\t\t\t\ta: 0,0,1,0,0,1,0,0,1,0,0,1,"
                               "2,0,0,0,3,0,0,0,-4\n\t\t\t}\n\t\t}\n");
    assert_int_equal(m->num_triangles, 3);
    assert_int_equal(m->num_meshes, 1);
    /* quad: 4 vertices; triangle: 3 more (its normals differ) */
    assert_int_equal(m->num_vertices, 7);
    const float p1[3] = {1, 0, 0}, n_up[3] = {0, 0, 1}, nx[3] = {1, 0, 0}, p4[3] = {2, 0, 0},
                ny[3] = {0, 1, 0};
    assert_int_equal(count_at(m, OSSA_VERTEX_NORMAL, p1, n_up, 3), 1);
    assert_int_equal(count_at(m, OSSA_VERTEX_NORMAL, p1, nx, 3), 1);
    assert_int_equal(count_at(m, OSSA_VERTEX_NORMAL, p4, ny, 3), 1);
    /* Winding: the quad's first triangle is (0, 1, 2) counter-clockwise
     * around +Z in the file; ossa stores it clockwise: (0, 2, 1). */
    const ossa_vertex_array *pa = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    float a[3], b[3], c[3];
    ossa_vertex_array_read(m, pa, m->triangles[0].v[0], 1, a);
    ossa_vertex_array_read(m, pa, m->triangles[0].v[1], 1, b);
    ossa_vertex_array_read(m, pa, m->triangles[0].v[2], 1, c);
    float cz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    assert_true(cz < 0); /* clockwise seen from +Z */
    ossa_model_free(m);
}

static void test_mesh_by_vertice_index_to_direct(void **state)
{
    (void)state;
    /* UVs per control point through an index: point k -> uv[4 - k]. */
    ossa_model *m = mesh_model("\t\tLayerElementUV: 0 {\n"
                               "\t\t\tName: \"main\"\n"
                               "\t\t\tMappingInformationType: \"ByVertice\"\n"
                               "\t\t\tReferenceInformationType: \"IndexToDirect\"\n"
                               "\t\t\tUV: *10 {\n\t\t\t\ta: 0,0.1, 1,0.2, 2,0.3, 3,0.4, 4,0.5\n\t\t\t}\n"
                               "\t\t\tUVIndex: *5 {\n\t\t\t\ta: 4,3,2,1,0\n\t\t\t}\n\t\t}\n");
    assert_int_equal(m->num_vertices, 5);
    const float p0[3] = {0, 0, 0}, p4[3] = {2, 0, 0};
    const float uv0[2] = {4, 1 - 0.5f}, uv4[2] = {0, 1 - 0.1f}; /* V flipped */
    assert_int_equal(count_at(m, OSSA_VERTEX_TEXCOORD, p0, uv0, 2), 1);
    assert_int_equal(count_at(m, OSSA_VERTEX_TEXCOORD, p4, uv4, 2), 1);
    ossa_model_free(m);
}

static void test_mesh_by_polygon_and_all_same(void **state)
{
    (void)state;
    /* Colours per polygon (index: polygon 0 -> colour 1); normals AllSame. */
    ossa_model *m = mesh_model("\t\tLayerElementColor: 0 {\n"
                               "\t\t\tMappingInformationType: \"ByPolygon\"\n"
                               "\t\t\tReferenceInformationType: \"IndexToDirect\"\n"
                               "\t\t\tColors: *8 {\n\t\t\t\ta: 1,0,0,1, 0,1,0,0.5\n\t\t\t}\n"
                               "\t\t\tColorIndex: *2 {\n\t\t\t\ta: 1,-1\n\t\t\t}\n\t\t}\n"
                               "\t\tLayerElementNormal: 0 {\n"
                               "\t\t\tMappingInformationType: \"AllSame\"\n"
                               "\t\t\tReferenceInformationType: \"Direct\"\n"
                               "\t\t\tNormals: *3 {\n\t\t\t\ta: 0,0,5\n\t\t\t}\n\t\t}\n");
    const float p1[3] = {1, 0, 0}, green[4] = {0, 1, 0, 0.5f}, none[4] = {0, 0, 0, 0},
                up[3] = {0, 0, 1};
    assert_int_equal(count_at(m, OSSA_VERTEX_COLOR, p1, green, 4), 1); /* the quad's corner */
    assert_int_equal(count_at(m, OSSA_VERTEX_COLOR, p1, none, 4), 1);  /* index -1: zero */
    assert_int_equal(count_at(m, OSSA_VERTEX_NORMAL, p1, up, 3), 2);
    ossa_model_free(m);
}

static void test_mesh_materials(void **state)
{
    (void)state;
    ossa_model *m = mesh_model("\t\tLayerElementMaterial: 0 {\n"
                               "\t\t\tMappingInformationType: \"ByPolygon\"\n"
                               "\t\t\tReferenceInformationType: \"IndexToDirect\"\n"
                               "\t\t\tMaterials: *2 {\n\t\t\t\ta: 1,0\n\t\t\t}\n\t\t}\n");
    assert_int_equal(m->num_meshes, 2);
    assert_string_equal(m->meshes[0].material, "red");
    assert_int_equal(m->meshes[0].num_triangles, 1); /* the triangle */
    assert_string_equal(m->meshes[1].material, "blue");
    assert_int_equal(m->meshes[1].num_triangles, 2); /* the quad */
    assert_string_equal(m->meshes[0].name, "Thing");
    ossa_model_free(m);
}

/* Materials as Blender's importer reads them: DiffuseColor as the base
 * colour, ReflectionFactor as metallic, 1 - sqrt(Shininess) / 10 as
 * roughness (default shininess 20); a Texture on DiffuseColor as the
 * base colour texture, named after its Video, whose Content (base64 of
 * PNG's 8-byte signature) becomes the image. */
static const char *material_body =
    "Objects:  {\n"
    "\tGeometry: 1, \"Geometry::\", \"Mesh\" {\n"
    "\t\tVertices: *9 {\n\t\t\ta: 0,0,0, 1,0,0, 1,1,0\n\t\t}\n"
    "\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n"
    "\t}\n"
    "\tModel: 2, \"Model::Thing\", \"Mesh\" {\n\t}\n"
    "\tMaterial: 3, \"Material::red\", \"\" {\n\t\tProperties70:  {\n"
    "\t\t\tP: \"DiffuseColor\", \"Color\", \"\", \"A\",1,0,0\n"
    "\t\t\tP: \"ReflectionFactor\", \"Number\", \"\", \"A\",0.25\n"
    "\t\t\tP: \"Shininess\", \"Number\", \"\", \"A\",36\n\t\t}\n\t}\n"
    "\tMaterial: 4, \"Material::skin\", \"\" {\n\t}\n"
    "\tTexture: 5, \"Texture::diffuse\", \"\" {\n"
    "\t\tRelativeFilename: \"C:\\\\art\\\\skin_source.png\"\n\t}\n"
    "\tVideo: 6, \"Video::clip\", \"Clip\" {\n"
    "\t\tFilename: \"D:/textures/skin.png\"\n"
    "\t\tContent: , \"iVBORw0KGgo=\"\n\t}\n"
    "}\n"
    "Connections:  {\n\tC: \"OO\",2,0\n\tC: \"OO\",1,2\n\tC: \"OO\",3,2\n\tC: \"OO\",4,2\n"
    "\tC: \"OP\",5,4, \"DiffuseColor\"\n\tC: \"OO\",6,5\n}\n";

/* Through the public call, which must find the model's own description. */
static void material_of(const ossa_model *m, const char *name, ossa_material *d)
{
    if (!ossa_model_get_material(m, name, d)) fail_msg("no material %s", name);
}

static void test_material_descriptions(void **state)
{
    (void)state;
    char *text = fbx_text("", material_body);
    for (int no_images = 0; no_images < 2; no_images++) {
        ossa_error err;
        ossa_model *m = load_text_flags(text, RAW, no_images ? OSSA_LOAD_NO_IMAGES : 0, &err);
        assert_non_null(m);
        ossa_material d;
        material_of(m, "red", &d);
        const float red[4] = {1, 0, 0, 1};
        assert_memory_equal(d.base_color, red, sizeof red);
        assert_true(d.metallic == 0.25f);
        assert_true(fabsf(d.roughness - 0.4f) < 1e-6f);
        assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "");
        assert_true(d.double_sided);
        material_of(m, "skin", &d);
        const float white[4] = {1, 1, 1, 1};
        assert_memory_equal(d.base_color, white, sizeof white);
        assert_true(d.metallic == 0);
        assert_true(fabs(d.roughness - (1 - sqrt(20.0) / 10)) < 1e-6);
        assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "skin.png");
        size_t img_size;
        const void *img = ossa_model_get_image(m, "skin.png", &img_size);
        if (no_images) {
            assert_null(img);
            assert_int_equal(img_size, 0);
        } else {
            assert_non_null(img);
            assert_int_equal(img_size, 8);
            assert_memory_equal(img, "\x89PNG\r\n\x1a\n", 8);
        }
        /* a material the model says nothing of: glTF's defaults */
        assert_int_equal(ossa_model_get_material(m, "nowhere", &d), 0);
        assert_true(d.base_color[0] == 1 && d.metallic == 1 && d.roughness == 1 && !d.double_sided);
        /* a material named like an image: that image, IQM's convention */
        assert_int_equal(ossa_model_get_material(m, "face.png", &d), 1);
        assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "face.png");
        ossa_model_free(m);
    }
    free(text);
}

/* A Video's Content in an ASCII file is base64 (docs/formats/fbx.md,
 * embedded textures): spaces, line breaks and '=' anywhere are skipped and
 * bits short of a byte at the end are dropped; any other character fails
 * at the string, naming its index. Expected bytes from Python's
 * base64.b64decode of the same characters, padded. */
static void test_video_content_base64(void **state)
{
    (void)state;
    static const struct {
        const char *content;
        size_t size;
        const char *bytes;
    } good[] = {
        {"iVBORw0KGgo=", 8, "\x89PNG\r\n\x1a\n"},
        {"iVBO Rw0K Ggo", 8, "\x89PNG\r\n\x1a\n"},
        {"iVBORw==0KGgo", 8, "\x89PNG\r\n\x1a\n"},
        {"iVBORw0KGgoA", 9, "\x89PNG\r\n\x1a\n\x00"},   /* b64decode("iVBORw0KGgoA") */
        {"iVBORw0KGgoAAAB", 11, "\x89PNG\r\n\x1a\n\x00\x00\x00"}, /* 90 bits: the last 2 dropped */
    };
    char body[512];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(body, sizeof body,
                 "Objects:  {\n\tVideo: 6, \"Video::clip\", \"Clip\" {\n"
                 "\t\tFilename: \"D:/textures/skin.png\"\n\t\tContent: , \"%s\"\n\t}\n}\n",
                 good[i].content);
        char *text = fbx_text("", body);
        ossa_model *m = must_load(text, RAW);
        size_t size;
        const void *img = ossa_model_get_image(m, "skin.png", &size);
        assert_non_null(img);
        assert_int_equal(size, good[i].size);
        assert_memory_equal(img, good[i].bytes, good[i].size);
        ossa_model_free(m);
        free(text);
    }
    /* Content is line 13: header 5 lines, GlobalSettings 4, Objects,
     * Video, Filename; the string starts at column 14. */
    snprintf(body, sizeof body,
             "Objects:  {\n\tVideo: 6, \"Video::clip\", \"Clip\" {\n"
             "\t\tFilename: \"D:/textures/skin.png\"\n\t\tContent: , \"iVBO#Rw0K\"\n\t}\n}\n");
    char *text = fbx_text("", body);
    ossa_error err;
    assert_null(load_text(text, RAW, &err));
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_string_equal(err.message, "Video 'clip': Content is not base64 (byte 4)");
    assert_int_equal(err.line, 13);
    assert_int_equal(err.column, 14);
    free(text);
}

/* -- Animation: interpolation and layers (§7.6, §10.4) -- */

static char *anim_text(const char *extra_objects, const char *extra_conns)
{
    char body[16384];
    /* 5 frames at 4 fps over 0..1 s. d|X linear 0 -> 10; d|Y constant
     * 1 then 5; d|Z cubic 0 -> 1 with flat slopes (smoothstep). */
    snprintf(body, sizeof body,
             "Objects:  {\n"
             "\tModel: 1, \"Model::J\", \"LimbNode\" {\n\t}\n"
             "\tAnimationStack: 2, \"AnimStack::run\", \"\" {\n\t\tProperties70:  {\n"
             "\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n"
             "\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",%lld\n\t\t}\n\t}\n"
             "\tAnimationLayer: 3, \"AnimLayer::base\", \"\" {\n\t}\n"
             "\tAnimationCurveNode: 4, \"AnimCurveNode::T\", \"\" {\n\t}\n"
             "\tAnimationCurve: 5, \"AnimCurve::\", \"\" {\n"
             "\t\tKeyTime: *2 {\n\t\t\ta: 0,%lld\n\t\t}\n"
             "\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,10\n\t\t}\n"
             "\t\tKeyAttrFlags: *1 {\n\t\t\ta: 4\n\t\t}\n"
             "\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,0,0\n\t\t}\n"
             "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 2\n\t\t}\n\t}\n"
             "\tAnimationCurve: 6, \"AnimCurve::\", \"\" {\n"
             "\t\tKeyTime: *2 {\n\t\t\ta: 0,%lld\n\t\t}\n"
             "\t\tKeyValueFloat: *2 {\n\t\t\ta: 1,5\n\t\t}\n"
             "\t\tKeyAttrFlags: *1 {\n\t\t\ta: 2\n\t\t}\n"
             "\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,0,0\n\t\t}\n"
             "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 2\n\t\t}\n\t}\n"
             "\tAnimationCurve: 7, \"AnimCurve::\", \"\" {\n"
             "\t\tKeyTime: *2 {\n\t\t\ta: 0,%lld\n\t\t}\n"
             "\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,1\n\t\t}\n"
             "\t\tKeyAttrFlags: *1 {\n\t\t\ta: 1032\n\t\t}\n"
             "\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,0,0\n\t\t}\n"
             "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 2\n\t\t}\n\t}\n"
             "%s}\n"
             "Connections:  {\n\tC: \"OO\",1,0\n\tC: \"OO\",3,2\n\tC: \"OO\",4,3\n"
             "\tC: \"OP\",4,1, \"Lcl Translation\"\n"
             "\tC: \"OP\",5,4, \"d|X\"\n\tC: \"OP\",6,4, \"d|Y\"\n\tC: \"OP\",7,4, \"d|Z\"\n"
             "%s}\n",
             KT, KT, KT, KT, extra_objects, extra_conns);
    const char *settings = "\t\tP: \"TimeMode\", \"enum\", \"\", \"\",14\n"
                           "\t\tP: \"CustomFrameRate\", \"double\", \"Number\", \"\",4\n";
    return fbx_text(settings, body);
}

static void test_interpolation(void **state)
{
    (void)state;
    char *text = anim_text("", "");
    ossa_model *m = must_load(text, RAW);
    assert_int_equal(m->num_animations, 1);
    const ossa_animation *a = &m->animations[0];
    assert_string_equal(a->name, "run");
    assert_int_equal(a->num_frames, 5);
    TS_ASSERT_NEAR(a->framerate, 4, 0);
    for (uint32_t f = 0; f < 5; f++) {
        double t = f / 4.0;
        const float *tr = a->frames[f].translation;
        TS_ASSERT_NEAR(tr[0], 10 * t, 1e-5);
        TS_ASSERT_NEAR(tr[1], f < 4 ? 1 : 5, 0);
        TS_ASSERT_NEAR(tr[2], 3 * t * t - 2 * t * t * t, 1e-5);
    }
    ossa_model_free(m);
    free(text);
    /* --fps overrides the file's rate: 9 frames at 8 fps */
    text = anim_text("", "");
    ossa_load_options o = {0};
    ts_options raw;
    ts_options_parse(&raw, RAW);
    o.format_options = raw.list;
    o.num_format_options = raw.count;
    o.framerate = 8;
    ossa_error err;
    m = ossa_load_memory(text, strlen(text), &o, &err);
    assert_non_null(m);
    assert_int_equal(m->animations[0].num_frames, 9);
    ossa_model_free(m);
    free(text);
}

/* Stacks of one joint, `count` of them, each `seconds` long at 1000 fps. */
static char *long_stacks(int count, long long seconds)
{
    char body[8192], *at = body;
    at += sprintf(at, "Objects:  {\n\tModel: 1, \"Model::J\", \"LimbNode\" {\n\t}\n");
    for (int i = 0; i < count; i++)
        at += sprintf(at,
                      "\tAnimationStack: %d, \"AnimStack::%c\", \"\" {\n\t\tProperties70:  {\n"
                      "\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n"
                      "\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",%lld\n\t\t}\n\t}\n",
                      10 + i, 'a' + i, seconds * KT);
    sprintf(at, "}\nConnections:  {\n\tC: \"OO\",1,0\n}\n");
    const char *settings = "\t\tP: \"TimeMode\", \"enum\", \"\", \"\",14\n"
                           "\t\tP: \"CustomFrameRate\", \"double\", \"Number\", \"\",1000\n";
    return fbx_text(settings, body);
}

/* A few bytes of text can ask for long animations: each stack has at most
 * 10^6 frames, and all stacks together at most 64 MiB of poses plus 64
 * bytes per byte of the file. */
static void test_pose_budget(void **state)
{
    (void)state;
    /* Two stacks of 500,001 frames of 40 bytes: 38 MiB, within the budget. */
    char *text = long_stacks(2, 500);
    ossa_model *m = must_load(text, RAW);
    assert_int_equal(m->num_animations, 2);
    assert_int_equal(m->animations[1].num_frames, 500001);
    ossa_model_free(m);
    free(text);
    /* The fourth such stack passes 64 MiB. */
    text = long_stacks(4, 500);
    ossa_error err;
    assert_null(load_text(text, RAW, &err));
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "AnimationStack 'd': 500001 frames"));
    assert_non_null(strstr(err.message, "out of proportion to the file"));
    free(text);
    /* One stack past 10^6 frames. */
    text = long_stacks(1, 1001);
    assert_null(load_text(text, RAW, &err));
    assert_non_null(strstr(err.message, "1001001 frames at 1000 fps"));
    assert_non_null(strstr(err.message, "beyond the limit of 1000000"));
    free(text);
}

static void test_layers_blend(void **state)
{
    (void)state;
    /* A second, additive layer at 50% adding a constant 4 to X (a curve
     * node value without curves), and a third, override layer at 25%
     * pulling rotation Z to 40 degrees. */
    char *text = anim_text(
        "\tAnimationLayer: 8, \"AnimLayer::add\", \"\" {\n\t\tProperties70:  {\n"
        "\t\t\tP: \"Weight\", \"Number\", \"\", \"A\",50\n"
        "\t\t\tP: \"BlendMode\", \"enum\", \"\", \"\",0\n\t\t}\n\t}\n"
        "\tAnimationCurveNode: 9, \"AnimCurveNode::T\", \"\" {\n\t\tProperties70:  {\n"
        "\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",4\n"
        "\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",0\n"
        "\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",0\n\t\t}\n\t}\n"
        "\tAnimationLayer: 10, \"AnimLayer::over\", \"\" {\n\t\tProperties70:  {\n"
        "\t\t\tP: \"Weight\", \"Number\", \"\", \"A\",25\n"
        "\t\t\tP: \"BlendMode\", \"enum\", \"\", \"\",1\n\t\t}\n\t}\n"
        "\tAnimationCurveNode: 11, \"AnimCurveNode::R\", \"\" {\n\t\tProperties70:  {\n"
        "\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",0\n"
        "\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",0\n"
        "\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",40\n\t\t}\n\t}\n",
        "\tC: \"OO\",8,2\n\tC: \"OO\",9,8\n\tC: \"OP\",9,1, \"Lcl Translation\"\n"
        "\tC: \"OO\",10,2\n\tC: \"OO\",11,10\n\tC: \"OP\",11,1, \"Lcl Rotation\"\n");
    ossa_model *m = must_load(text, RAW);
    const ossa_animation *a = &m->animations[0];
    for (uint32_t f = 0; f < 5; f++) {
        double t = f / 4.0;
        TS_ASSERT_NEAR(a->frames[f].translation[0], 10 * t + 2, 1e-5);
        TS_ASSERT_NEAR(a->frames[f].translation[2], 3 * t * t - 2 * t * t * t, 1e-5);
        /* rest rotation 0 blended 25% towards 40 degrees about Z: 10 degrees */
        double qz[4];
        qaxis(2, 10, qz);
        float qf[4] = {0, 0, (float)qz[2], (float)qz[3]};
        TS_ASSERT_QUAT_EQUIV(a->frames[f].rotation, qf, 1e-6);
    }
    ossa_model_free(m);
    free(text);
}

/* Euler channels are evaluated before conversion: a full turn between two
 * keys is kept (§10.4). 0 -> 360 degrees about Z over 1 s at 4 fps. */
static void test_full_turn_between_keys(void **state)
{
    (void)state;
    char *text = anim_text("\tAnimationCurveNode: 12, \"AnimCurveNode::R\", \"\" {\n\t}\n"
                           "\tAnimationCurve: 13, \"AnimCurve::\", \"\" {\n"
                           "\t\tKeyTime: *2 {\n\t\t\ta: 0,46186158000\n\t\t}\n"
                           "\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,360\n\t\t}\n\t}\n",
                           "\tC: \"OO\",12,3\n\tC: \"OP\",12,1, \"Lcl Rotation\"\n"
                           "\tC: \"OP\",13,12, \"d|Z\"\n");
    ossa_model *m = must_load(text, RAW);
    const ossa_animation *a = &m->animations[0];
    for (uint32_t f = 0; f < 5; f++) {
        double q[4];
        qaxis(2, 90.0 * f, q);
        float qf[4] = {0, 0, (float)q[2], (float)q[3]};
        TS_ASSERT_QUAT_EQUIV(a->frames[f].rotation, qf, 1e-6);
    }
    ossa_model_free(m);
    free(text);
}

/* -- Real files (fbx.md §14 and shared/data/MANIFEST.md) -- */

static void test_real_huesitos(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("fbx/huesitos.fbx", &file, &size);
    assert_int_equal(m->source_format, OSSA_FORMAT_FBX);
    assert_int_equal(m->num_joints, 11); /* 11 LimbNodes, the two _end leaves included */
    assert_int_equal(m->num_triangles, 16 + 52 * 2);
    assert_int_equal(m->num_meshes, 1);
    assert_int_equal(m->num_animations, 1);
    assert_string_equal(m->animations[0].name, "Armature|Action");
    assert_int_equal(m->animations[0].num_frames, 40); /* 1.56 s at 25 fps */
    TS_ASSERT_NEAR(m->animations[0].framerate, 25, 0);
    assert_non_null(ossa_model_find_array(m, OSSA_VERTEX_TANGENT, NULL));
    assert_non_null(ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL));
    assert_int_equal(ossa_model_validate(m, NULL, NULL, NULL), 0);
    ossa_model_free(m);
    free(file);
}

static void test_real_boxes(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("fbx/box.fbx", &file, &size);
    assert_int_equal(m->num_joints, 0);
    assert_int_equal(m->num_meshes, 1);
    assert_int_equal(m->num_triangles, 12);
    /* an empty UV layer is skipped; colours without their index are direct */
    assert_null(ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL));
    assert_non_null(ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL));
    ossa_model_free(m);
    free(file);
    m = ts_load_shared("fbx/boxWithCompressedCTypeArray.FBX", &file, &size);
    assert_int_equal(m->num_triangles, 12);
    assert_int_equal(m->num_vertices, 8);
    ossa_model_free(m);
    free(file);
    m = ts_load_shared("fbx/box_ascii.fbx", &file, &size);
    assert_int_equal(m->num_triangles, 12);
    assert_string_equal(m->meshes[0].material, "03 - Default");
    /* the embedded texture, decoded from base64: a PNG, the material's
     * base colour texture */
    assert_int_equal(m->num_extras, 2);
    const ossa_extra *img = ossa__model_image(m, "uv_test.png");
    assert_non_null(img);
    assert_memory_equal(img->data, "\x89PNG\r\n\x1a\n", 8);
    ossa_material d;
    material_of(m, "03 - Default", &d);
    assert_string_equal(d.textures[OSSA_TEXTURE_BASE_COLOR].image, "uv_test.png");
    ossa_model_free(m);
    free(file);
}

/* -- Malformed ASCII: each error located at line:column (§11) -- */

static void expect_error(const char *text, uint32_t line, uint32_t column, const char *what)
{
    ossa_error err;
    ossa_model *m = load_text(text, 0, &err);
    if (m) fail_msg("loaded, expected an error about %s", what);
    if (getenv("FBX_TEST_DEBUG")) printf("%u:%u %s\n", err.line, err.column, err.message);
    if (!strstr(err.message, what)) fail_msg("message '%s' lacks '%s'", err.message, what);
    if (getenv("FBX_TEST_DEBUG")) return;
    assert_int_equal(err.line, line);
    if (column) assert_int_equal(err.column, column);
}

static void test_malformed_ascii(void **state)
{
    (void)state;
    char buf[4096];
    /* H is 4 lines: Objects is line 5 */
#define H "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXVersion: 7400\n}\n"
    expect_error(H "Objects:  {\n\tModel: 1, \"Model::A\n", 6, 12, "unterminated string");
    expect_error(H "Objects:  {\n\tModel: 1, \"Model::A\", \"Null\" {\n", 6, 2, "never closed");
    expect_error(H "Objects:  {\n}\n}\n", 7, 1, "without a matching");
    expect_error(H "Objects:  {\n\tGeometry: 1, \"\", \"Mesh\" {\n\t\tVertices: *4 {\n\t\t\ta: 1,2,3\n"
                   "\t\t}\n\t}\n}\n",
                 7, 13, "*4 elements but holds 3");
    expect_error(H "Objects:  {\n\tModel: 1, 2 3\n}\n", 6, 14, "expected ','");
    expect_error(H "Objects:  {\n\tModel: 1e999\n}\n", 6, 9, "not finite");
    expect_error(H "Objects:  {\n\tModel: \"x\", \"Model::A\", \"Null\" {\n\t}\n}\n", 6, 2,
                 "not an integer id");
    expect_error(H "Objects:  {\n\tModel: 1, \"Model::A\", \"Null\" {\n\t}\n"
                   "\tModel: 1, \"Model::B\", \"Null\" {\n\t}\n}\n",
                 8, 2, "used twice");
    expect_error(H "Objects:  {\n\tModel: 1, \"Model::A\", \"Null\" {\n\t}\n"
                   "\tModel: 2, \"Model::B\", \"Null\" {\n\t}\n}\n"
                   "Connections:  {\n\tC: \"OO\",1,2\n\tC: \"OO\",2,1\n}\n",
                 6, 2, "cycle");
    snprintf(buf, sizeof buf,
             H "Objects:  {\n\tGeometry: 1, \"\", \"Mesh\" {\n"
               "\t\tVertices: *6 {\n\t\t\ta: 0,0,0,1,0,0\n\t\t}\n"
               "\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-6\n\t\t}\n\t}\n"
               "\tModel: 2, \"Model::M\", \"Mesh\" {\n\t}\n}\n"
               "Connections:  {\n\tC: \"OO\",2,0\n\tC: \"OO\",1,2\n}\n");
    expect_error(buf, 10, 23, "control point 5 of 2");
    snprintf(buf, sizeof buf,
             H "Objects:  {\n\tGeometry: 1, \"\", \"Mesh\" {\n"
               "\t\tVertices: *9 {\n\t\t\ta: 0,0,0,1,0,0,0,1,0\n\t\t}\n"
               "\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n"
               "\t\tLayerElementUV: 0 {\n\t\t\tMappingInformationType: \"ByPolygonVertex\"\n"
               "\t\t\tUV: *2 {\n\t\t\t\ta: 0,0\n\t\t\t}\n\t\t\tUVIndex: *3 {\n\t\t\t\ta: 0,0,7\n"
               "\t\t\t}\n\t\t}\n\t}\n"
               "\tModel: 2, \"Model::M\", \"Mesh\" {\n\t}\n}\n"
               "Connections:  {\n\tC: \"OO\",2,0\n\tC: \"OO\",1,2\n}\n");
    expect_error(buf, 18, 13, "entry 2 is 7");
    expect_error("; FBX 6.1.0 project file\nFBXHeaderExtension:  {\n\tFBXVersion: 6100\n}\n"
                 "Objects:  {\n}\n",
                 2, 1, "only FBX 7");
#undef H
}

/* What FBX holds and ossa does not is counted in one warning, in words
 * that agree with the count. */
static void test_ignored_objects_counted(void **state)
{
    (void)state;
    static const char *const bodies[2] = {
        "Objects:  {\n\tModel: 1, \"Model::Cam\", \"Camera\" {\n\t}\n"
        "\tModel: 2, \"Model::Lamp\", \"Light\" {\n\t}\n}\n"
        "Connections:  {\n\tC: \"OO\",1,0\n\tC: \"OO\",2,0\n}\n",
        "Objects:  {\n\tModel: 1, \"Model::Cam\", \"Camera\" {\n\t}\n"
        "\tModel: 3, \"Model::Cam2\", \"Camera\" {\n\t}\n}\n"
        "Connections:  {\n\tC: \"OO\",1,0\n\tC: \"OO\",3,0\n}\n"};
    static const char *const want[2] = {"1 camera and 1 light ignored", "2 cameras and 0 lights ignored"};
    for (int k = 0; k < 2; k++) {
        char *text = fbx_text("", bodies[k]);
        ossa_model *m = must_load(text, RAW);
        int found = 0;
        for (uint32_t i = 0; i < m->num_warnings; i++) found += strstr(m->warnings[i].message, want[k]) != NULL;
        if (found != 1) fail_msg("no warning '%s'", want[k]);
        ossa_model_free(m);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transform_orders),
        cmocka_unit_test(test_axes_and_units),
        cmocka_unit_test(test_mesh_by_polygon_vertex_direct),
        cmocka_unit_test(test_mesh_by_vertice_index_to_direct),
        cmocka_unit_test(test_mesh_by_polygon_and_all_same),
        cmocka_unit_test(test_mesh_materials),
        cmocka_unit_test(test_material_descriptions),
        cmocka_unit_test(test_video_content_base64),
        cmocka_unit_test(test_interpolation),
        cmocka_unit_test(test_pose_budget),
        cmocka_unit_test(test_layers_blend),
        cmocka_unit_test(test_full_turn_between_keys),
        cmocka_unit_test(test_real_huesitos),
        cmocka_unit_test(test_real_boxes),
        cmocka_unit_test(test_malformed_ascii),
        cmocka_unit_test(test_ignored_objects_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
