/* The software rasterizer: coverage, shading, depth, culling, clipping,
 * perspective-correct texturing, framing, determinism across runs and
 * thread counts, robustness on broken geometry, the label font, argument
 * checks and allocation failures. Expected values are computed here from
 * hand-built cameras and the documented formulas. */
#include "render_test.h"

static const uint8_t BG[4] = {10, 20, 30, 255};

static void base_options(ossa_render_options *o, const ossa_render_camera *cam)
{
    memset(o, 0, sizeof *o);
    o->camera = cam;
    memcpy(o->background, BG, 4);
}

static void front_ortho(ossa_render_camera *cam, double half, double aspect)
{
    const double eye[3] = {0, -5, 0}, target[3] = {0, 0, 0}, up[3] = {0, 0, 1};
    rtt_camera(cam, eye, target, up, 1, half, aspect, 1, 9);
}

/* -- The unit cube from the front -- */

static void test_cube_rectangle_and_shading(void **state)
{
    (void)state;
    ossa_model *m = rtt_cube();
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    rtt_set_color(s, 0, 0.8f, 0.6f, 0.4f);
    ossa_render_camera cam;
    front_ortho(&cam, 1, 1);
    ossa_render_options o;
    base_options(&o, &cam);
    o.flags = OSSA_RENDER_LIGHTING;
    o.light[0] = 0.3f, o.light[1] = 0.4f, o.light[2] = 0.8f;
    o.ambient = 0.2f, o.diffuse = 0.7f, o.rim = 0.5f, o.rim_power = 2;
    rtt_image im;
    rtt_image_init(&im, 64, 64);
    rtt_run(s, &o, &im);

    /* The face y = -0.5 faces the camera: its camera-space normal is
     * (0, 0, 1), so n.v = 1 (no rim) and n.l is the light's z. */
    double lz = 0.8 / sqrt(0.3 * 0.3 + 0.4 * 0.4 + 0.8 * 0.8);
    double k = 0.2 + 0.7 * lz;
    const double albedo[3] = {0.8 * 255, 0.6 * 255, 0.4 * 255};
    int minx = 64, maxx = -1, miny = 64, maxy = -1;
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) {
            const uint8_t *p = rtt_pixel(&im, x, y);
            if (memcmp(p, BG, 4) == 0) continue;
            minx = x < (uint32_t)minx ? (int)x : minx, maxx = (int)x > maxx ? (int)x : maxx;
            miny = y < (uint32_t)miny ? (int)y : miny, maxy = (int)y > maxy ? (int)y : maxy;
            for (int c = 0; c < 3; c++) assert_true(fabs(p[c] - floor(albedo[c] * k + 0.5)) <= 1);
            assert_int_equal(p[3], 255);
        }
    /* x in -0.5..0.5 of -1..1 across 64 pixels: columns 16..47. */
    assert_true(abs(minx - 16) <= 1 && abs(maxx - 47) <= 1);
    assert_true(abs(miny - 16) <= 1 && abs(maxy - 47) <= 1);
    /* Every pixel well inside is drawn (no holes along the diagonal). */
    for (uint32_t y = 17; y < 47; y++)
        for (uint32_t x = 17; x < 47; x++) assert_memory_not_equal(rtt_pixel(&im, x, y), BG, 4);
    /* Window depth of the face: 4.5 from the eye, near 1, far 9. */
    TS_ASSERT_NEAR(im.depth[32 * 64 + 32], (4.5 - 1) / (9 - 1), 1e-5);
    assert_true(im.depth[0] == 1.0f);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

/* The rim term: a face seen at a grazing angle gets it, per the formula. */
static void test_rim_formula(void **state)
{
    (void)state;
    ossa_model *m = rtt_cube();
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    rtt_set_color(s, 0, 0.5f, 0.5f, 0.5f);
    /* Seen from 60 degrees to the side of the front face's normal. */
    double a = 60 * 3.14159265358979323846 / 180;
    const double eye[3] = {5 * sin(a), -5 * cos(a), 0}, target[3] = {0, 0, 0}, up[3] = {0, 0, 1};
    ossa_render_camera cam;
    rtt_camera(&cam, eye, target, up, 1, 1, 1, 1, 9);
    ossa_render_options o;
    base_options(&o, &cam);
    o.flags = OSSA_RENDER_LIGHTING;
    o.light[2] = 1;
    o.ambient = 0.1f, o.diffuse = 0.5f, o.rim = 0.4f, o.rim_power = 2;
    rtt_image im;
    rtt_image_init(&im, 64, 64);
    rtt_run(s, &o, &im);
    /* The front face (normal -Y) at n.v = cos 60 = 0.5 and n.l = 0.5 (the
     * light comes from the eye); it covers columns 10..26, the face +X the
     * rest. */
    double ndv = cos(a);
    double expect = 127.5 * (0.1 + 0.5 * ndv) + 255 * 0.4 * (1 - ndv) * (1 - ndv);
    const uint8_t *p = rtt_pixel(&im, 18, 32);
    for (int c = 0; c < 3; c++) assert_true(fabs(p[c] - floor(expect + 0.5)) <= 1);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

/* -- Depth -- */

/* Two quads crossing along the Z axis: A (y = x / 2) is nearer the
 * camera on the left, B (y = -x / 2) on the right. */
static ossa_model *crossing_quads(int b_first)
{
    float pos[8 * 3];
    const float h = 0.8f;
    for (int q = 0; q < 2; q++) {
        float slope = (q == b_first) ? 0.5f : -0.5f; /* mesh 0 is drawn first */
        const float xs[4] = {-h, h, h, -h}, zs[4] = {-h, -h, h, h};
        for (int k = 0; k < 4; k++) {
            pos[(q * 4 + k) * 3] = xs[k];
            pos[(q * 4 + k) * 3 + 1] = slope * xs[k];
            pos[(q * 4 + k) * 3 + 2] = zs[k];
        }
    }
    ossa_triangle tri[4] = {{{0, 2, 1}}, {{0, 3, 2}}, {{4, 6, 5}}, {{4, 7, 6}}};
    const uint32_t per_mesh[2] = {2, 2};
    return rtt_model(pos, NULL, NULL, 8, tri, 4, per_mesh, 2);
}

static void render_crossing(int b_first, rtt_image *im)
{
    ossa_model *m = crossing_quads(b_first);
    ossa_render_scene_options so = {0, NULL, OSSA_RENDER_SCENE_TWO_SIDED};
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, &so, &e);
    assert_non_null(s);
    /* Mesh 0 holds A unless B comes first. */
    rtt_set_color(s, b_first ? 1 : 0, 1, 0, 0); /* A red */
    rtt_set_color(s, b_first ? 0 : 1, 0, 0, 1); /* B blue */
    ossa_render_camera cam;
    front_ortho(&cam, 1, 1);
    ossa_render_options o;
    base_options(&o, &cam);
    rtt_flat_lighting(&o);
    rtt_image_init(im, 64, 64);
    rtt_run(s, &o, im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

static void test_depth_order(void **state)
{
    (void)state;
    rtt_image a, b;
    render_crossing(0, &a);
    render_crossing(1, &b);
    for (uint32_t y = 8; y < 56; y++)
        for (uint32_t x = 8; x < 56; x++) {
            const uint8_t *p = rtt_pixel(&a, x, y);
            double cx = (x + 0.5) / 32 - 1;
            if (cx < -0.05) assert_true(p[0] == 255 && p[2] == 0);
            if (cx > 0.05) assert_true(p[0] == 0 && p[2] == 255);
        }
    /* The order in which the quads come makes no difference. */
    assert_memory_equal(a.pixels, b.pixels, 64 * 64 * 4);
    rtt_image_free(&a);
    rtt_image_free(&b);
}

/* -- Culling and winding -- */

static void test_culling(void **state)
{
    (void)state;
    ossa_render_camera cam;
    front_ortho(&cam, 1, 1);
    /* One triangle facing the camera, one facing away, side by side. */
    ossa_model *m = rtt_facing_pair("");
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    /* Two loose triangles are an open mesh: both sides show, as in
     * modelling tools. */
    ossa_render_scene_info info;
    ossa_render_scene_get_info(s, &info);
    assert_int_equal(info.two_sided_meshes, 1);
    ossa_render_options o;
    base_options(&o, &cam);
    rtt_image im;
    rtt_image_init(&im, 64, 64);
    rtt_run(s, &o, &im);
    assert_memory_not_equal(rtt_pixel(&im, 16, 32), BG, 4);
    assert_memory_not_equal(rtt_pixel(&im, 48, 32), BG, 4);
    ossa_render_scene_free(s);
    ossa_model_free(m);

    /* A box whose faces have vertices of their own (welded by position
     * here) is closed and culls its back faces; one face removed, it is
     * open and draws both sides. (Culling in pictures: test_render_files,
     * where a glTF material says single-sided.) */
    float bpos[24 * 3], bnrm[24 * 3];
    ossa_triangle btri[12];
    uint32_t nv = 0, nt = 0;
    const float c[3] = {0, 0, 0};
    rtt_box(bpos, bnrm, NULL, btri, &nv, &nt, c, 0.5f);
    for (int open = 0; open < 2; open++) {
        m = rtt_model(bpos, bnrm, NULL, nv, btri, open ? nt - 2 : nt, NULL, 0);
        s = ossa_render_scene_create(m, NULL, &e);
        assert_non_null(s);
        ossa_render_scene_get_info(s, &info);
        assert_int_equal(info.two_sided_meshes, (uint32_t)open);
        ossa_render_scene_free(s);
        ossa_model_free(m);
    }

    rtt_image_free(&im);
}

/* A cube whose every other triangle is wound the wrong way (its normals
 * say which side is out): drawn two-sided, so no face has holes. */
static void test_inconsistent_winding(void **state)
{
    (void)state;
    float pos[24 * 3], nrm[24 * 3];
    ossa_triangle tri[12];
    uint32_t nv = 0, nt = 0;
    const float c[3] = {0, 0, 0};
    rtt_box(pos, nrm, NULL, tri, &nv, &nt, c, 0.5f);
    for (uint32_t t = 0; t < nt; t += 2) {
        uint32_t k = tri[t].v[1];
        tri[t].v[1] = tri[t].v[2], tri[t].v[2] = k;
    }
    ossa_model *m = rtt_model(pos, nrm, NULL, nv, tri, nt, NULL, 0);
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_render_scene_info info;
    ossa_render_scene_get_info(s, &info);
    assert_int_equal(info.two_sided_meshes, 1);
    assert_int_equal(info.generated_normals, 0);
    ossa_render_camera cam;
    front_ortho(&cam, 1, 1);
    ossa_render_options o;
    base_options(&o, &cam);
    rtt_image im;
    rtt_image_init(&im, 64, 64);
    rtt_run(s, &o, &im);
    for (uint32_t y = 17; y < 47; y++)
        for (uint32_t x = 17; x < 47; x++) assert_memory_not_equal(rtt_pixel(&im, x, y), BG, 4);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);

    /* All reversed, without normals: the generated normals point in and
     * the enclosed volume is negative; the scene turns both around. */
    rtt_box(pos, nrm, NULL, tri, &(uint32_t){0}, &(uint32_t){0}, c, 0.5f);
    for (uint32_t t = 0; t < 12; t++) {
        uint32_t k = tri[t].v[1];
        tri[t].v[1] = tri[t].v[2], tri[t].v[2] = k;
    }
    m = rtt_model(pos, NULL, NULL, 24, tri, 12, NULL, 0);
    s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_render_scene_get_info(s, &info);
    assert_int_equal(info.generated_normals, 1);
    assert_int_equal(info.two_sided_meshes, 0);
    o.flags = OSSA_RENDER_LIGHTING;
    o.light[2] = 1, o.ambient = 0, o.diffuse = 1, o.rim = 0, o.rim_power = 1;
    rtt_image_init(&im, 64, 64);
    rtt_run(s, &o, &im);
    /* The outside of the front face is drawn, lit head on (n.l = 1). */
    const uint8_t *p = rtt_pixel(&im, 32, 32);
    assert_int_equal(p[0], 222); /* palette colour 0 at full light */
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

/* -- Coverage -- */

/* A disc made of 64 thin triangles around its centre: every pixel whose
 * centre is inside the polygon is drawn, none outside. */
static void test_no_cracks(void **state)
{
    (void)state;
    enum { N = 64 };
    float pos[(N + 1) * 3];
    ossa_triangle tri[N];
    pos[0] = 0.013f, pos[1] = 0, pos[2] = -0.021f;
    for (int i = 0; i < N; i++) {
        double a = 2 * 3.14159265358979323846 * i / N;
        pos[(i + 1) * 3] = (float)(0.83 * cos(a));
        pos[(i + 1) * 3 + 1] = 0;
        pos[(i + 1) * 3 + 2] = (float)(0.83 * sin(a));
    }
    for (uint32_t i = 0; i < N; i++) tri[i] = (ossa_triangle){{0, 1 + i, 1 + (i + 1) % N}};
    ossa_model *m = rtt_model(pos, NULL, NULL, N + 1, tri, N, NULL, 0);
    ossa_render_scene_options so = {0, NULL, OSSA_RENDER_SCENE_TWO_SIDED};
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, &so, &e);
    assert_non_null(s);
    ossa_render_camera cam;
    front_ortho(&cam, 1, 1);
    ossa_render_options o;
    base_options(&o, &cam);
    rtt_image im;
    rtt_image_init(&im, 97, 97);
    rtt_run(s, &o, &im);
    for (uint32_t y = 0; y < 97; y++)
        for (uint32_t x = 0; x < 97; x++) {
            /* Pixel centre in model x, z. */
            double px = (x + 0.5) / 97 * 2 - 1, pz = 1 - (y + 0.5) / 97 * 2;
            /* Distance from the polygon's boundary, signed (inside > 0). */
            double inside = 1e9;
            for (int i = 0; i < N; i++) {
                double ax = pos[(i + 1) * 3], az = pos[(i + 1) * 3 + 2];
                double bx = pos[((i + 1) % N + 1) * 3], bz = pos[((i + 1) % N + 1) * 3 + 2];
                double ex = bx - ax, ez = bz - az, len = sqrt(ex * ex + ez * ez);
                double d = (ex * (pz - az) - ez * (px - ax)) / len; /* left of a->b = inside */
                if (d < inside) inside = d;
            }
            double px_size = 2.0 / 97;
            bool drawn = memcmp(rtt_pixel(&im, x, y), BG, 4) != 0;
            if (inside > 0.01 * px_size) assert_true(drawn);
            if (inside < -0.01 * px_size) assert_false(drawn);
        }
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

/* -- Perspective -- */

/* A quad receding to the right, textured left half red, right half blue:
 * the colour boundary is where the 3D midline projects, not half way
 * between the projected edges (where affine interpolation puts it). */
static void test_perspective_texture(void **state)
{
    (void)state;
    const float pos[] = {-1, -1.5f, -1, 1, 1.5f, -1, 1, 1.5f, 1, -1, -1.5f, 1};
    const float uv[] = {0, 1, 1, 1, 1, 0, 0, 0};
    const ossa_triangle tri[2] = {{{0, 2, 1}}, {{0, 3, 2}}};
    ossa_model *m = rtt_model(pos, NULL, uv, 4, tri, 2, NULL, 0);
    ossa_render_scene_options so = {0, NULL, OSSA_RENDER_SCENE_TWO_SIDED};
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, &so, &e);
    assert_non_null(s);
    enum { TW = 64 };
    uint8_t tex[TW * 4];
    for (int i = 0; i < TW; i++) {
        uint8_t *t = tex + i * 4;
        t[0] = i < TW / 2 ? 255 : 0, t[1] = 0, t[2] = i < TW / 2 ? 0 : 255, t[3] = 255;
    }
    ossa_render_material mat;
    memset(&mat, 0, sizeof mat);
    mat.texture = tex, mat.texture_width = TW, mat.texture_height = 1;
    assert_int_equal(ossa_render_scene_set_material(s, 0, &mat, &e), OSSA_OK);
    const double eye[3] = {0, -4, 0}, target[3] = {0, 0, 0}, up[3] = {0, 0, 1};
    ossa_render_camera cam;
    rtt_camera(&cam, eye, target, up, 0, 60, 1, 0.5, 20);
    ossa_render_options o;
    base_options(&o, &cam);
    rtt_flat_lighting(&o);
    rtt_image im;
    rtt_image_init(&im, 200, 200);
    rtt_run(s, &o, &im);
    double left[2], right[2], mid[2];
    const double pl[3] = {-1, -1.5, 0}, pr[3] = {1, 1.5, 0}, pm[3] = {0, 0, 0};
    rtt_project(&cam, pl, 200, 200, left);
    rtt_project(&cam, pr, 200, 200, right);
    rtt_project(&cam, pm, 200, 200, mid);
    double affine = 0.5 * (left[0] + right[0]);
    assert_true(fabs(affine - mid[0]) > 8); /* the test can tell them apart */
    uint32_t row = 100;
    const uint8_t *a = rtt_pixel(&im, (uint32_t)(mid[0] - 3), row);
    const uint8_t *b = rtt_pixel(&im, (uint32_t)(mid[0] + 3), row);
    assert_true(a[0] > 200 && a[2] < 50);
    assert_true(b[0] < 50 && b[2] > 200);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

/* The camera inside the model: triangles crossing the near plane are
 * clipped, not dropped and not drawn inside out. */
static void test_near_clipping(void **state)
{
    (void)state;
    /* A floor under the eye, reaching behind it. */
    const float pos[] = {-10, -10, -1, 10, -10, -1, 10, 10, -1, -10, 10, -1};
    const ossa_triangle tri[2] = {{{0, 1, 2}}, {{0, 2, 3}}};
    ossa_model *m = rtt_model(pos, NULL, NULL, 4, tri, 2, NULL, 0);
    ossa_render_scene_options so = {0, NULL, OSSA_RENDER_SCENE_TWO_SIDED};
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, &so, &e);
    assert_non_null(s);
    const double eye[3] = {0, 0, 0}, target[3] = {0, 1, -0.3}, up[3] = {0, 0, 1};
    ossa_render_camera cam;
    rtt_camera(&cam, eye, target, up, 0, 90, 1, 0.1, 100);
    ossa_render_options o;
    base_options(&o, &cam);
    rtt_image im;
    rtt_image_init(&im, 64, 64);
    rtt_run(s, &o, &im);
    /* The lower rows see the floor, the top ones the sky above it. */
    assert_memory_not_equal(rtt_pixel(&im, 32, 63), BG, 4);
    assert_memory_not_equal(rtt_pixel(&im, 0, 63), BG, 4);
    assert_memory_equal(rtt_pixel(&im, 32, 0), BG, 4);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

/* -- Framing -- */

/* A model of joints alone (an animation or skeleton file) is bounded by
 * its joints: root at the origin, a child 2 up in the bind pose and 3
 * along x in the one frame of its animation. */
static void test_bounds_of_joints(void **state)
{
    (void)state;
    ossa_error e;
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    ossa_transform t = ossa_transform_identity();
    assert_int_equal(ossa_model_add_joint(m, "root", -1, &t, &e), 0);
    t.translation[2] = 2;
    assert_int_equal(ossa_model_add_joint(m, "tip", 0, &t, &e), 1);
    ossa_bounds b;
    assert_int_equal(ossa_render_bounds(m, OSSA_BIND_POSE, &b, &e), OSSA_OK);
    const float bind_min[3] = {0, 0, 0}, bind_max[3] = {0, 0, 2};
    assert_memory_equal(b.min, bind_min, sizeof bind_min);
    assert_memory_equal(b.max, bind_max, sizeof bind_max);
    assert_true(b.radius == 2);
    assert_non_null(ossa_model_add_animation(m, "swing", 1, 10, 0, &e));
    ossa_transform frame[2] = {ossa_transform_identity(), ossa_transform_identity()};
    frame[1].translation[0] = 3;
    assert_int_equal(ossa_model_set_animation_frames(m, 0, 0, 1, frame, &e), OSSA_OK);
    assert_int_equal(ossa_render_bounds(m, 0, &b, &e), OSSA_OK);
    const float anim_min[3] = {0, 0, 0}, anim_max[3] = {3, 0, 0};
    assert_memory_equal(b.min, anim_min, sizeof anim_min);
    assert_memory_equal(b.max, anim_max, sizeof anim_max);
    assert_true(b.radius == 3 && b.xy_radius == 3);
    /* Framed on those bounds, its bones are in the picture. */
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_render_camera_options co;
    memset(&co, 0, sizeof co);
    ossa_render_camera cam;
    assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, 48, 48, &cam, &e), OSSA_OK);
    ossa_render_options o;
    base_options(&o, &cam);
    o.flags = OSSA_RENDER_SKELETON;
    rtt_image im;
    rtt_image_init(&im, 48, 48);
    rtt_run(s, &o, &im);
    int drawn = 0;
    for (uint32_t i = 0; i < 48 * 48; i++) drawn += memcmp(im.pixels + 4 * i, BG, 4) != 0;
    assert_true(drawn > 30);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

static void test_camera_framing(void **state)
{
    (void)state;
    const ossa_bounds b = {{-0.4f, -0.2f, 0}, {0.6f, 0.3f, 1.8f}, 0, 0};
    const ossa_render_view views[] = {OSSA_RENDER_VIEW_FRONT, OSSA_RENDER_VIEW_SIDE,
                                      OSSA_RENDER_VIEW_BACK, OSSA_RENDER_VIEW_TOP,
                                      OSSA_RENDER_VIEW_THREE_QUARTER, OSSA_RENDER_VIEW_DEFAULT};
    const uint32_t sizes[3][2] = {{256, 256}, {400, 100}, {100, 300}};
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
        for (int ortho = 0; ortho < 2; ortho++)
            for (int sz = 0; sz < 3; sz++) {
                ossa_render_camera_options co;
                memset(&co, 0, sizeof co);
                co.view = views[v];
                co.flags = ortho ? OSSA_RENDER_CAMERA_ORTHOGRAPHIC : 0;
                ossa_render_camera cam;
                ossa_error e;
                assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, sizes[sz][0],
                                                          sizes[sz][1], &cam, &e),
                                 OSSA_OK);
                /* Every corner of the box lands inside the picture. */
                for (int k = 0; k < 8; k++) {
                    double p[3] = {k & 1 ? b.max[0] : b.min[0], k & 2 ? b.max[1] : b.min[1],
                                   k & 4 ? b.max[2] : b.min[2]};
                    double sp[2];
                    rtt_project(&cam, p, (int)sizes[sz][0], (int)sizes[sz][1], sp);
                    assert_true(sp[0] > 0 && sp[0] < sizes[sz][0]);
                    assert_true(sp[1] > 0 && sp[1] < sizes[sz][1]);
                }
                assert_true(cam.ground == 0.0f);
            }
    /* The front view looks along +Y (a Z-up model faces -Y): +Y goes away
     * from the eye, +X to the right, +Z up. */
    ossa_render_camera_options co;
    memset(&co, 0, sizeof co);
    co.view = OSSA_RENDER_VIEW_FRONT;
    ossa_render_camera cam;
    ossa_error e;
    assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, 64, 64, &cam, &e), OSSA_OK);
    TS_ASSERT_NEAR(cam.view[0], 1, 1e-6);  /* x -> camera x */
    TS_ASSERT_NEAR(cam.view[6], -1, 1e-6); /* y -> camera -z */
    TS_ASSERT_NEAR(cam.view[9], 1, 1e-6);  /* z -> camera y */
    /* The side view sees the model's left (+X) side: +X comes towards the eye. */
    co.view = OSSA_RENDER_VIEW_SIDE;
    assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, 64, 64, &cam, &e), OSSA_OK);
    TS_ASSERT_NEAR(cam.view[2], 1, 1e-6);
    /* Bad arguments. */
    co.fov = 200;
    assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, 64, 64, &cam, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    assert_int_equal(ossa_render_camera_frame(NULL, &b, OSSA_AXIS_Z, 0, 64, &cam, &e), OSSA_FAILED);
    /* Unusable bounds frame a unit box. */
    const ossa_bounds nan_bounds = {{NAN, 0, 0}, {1, 1, 1}, 0, 0};
    assert_int_equal(ossa_render_camera_frame(NULL, &nan_bounds, OSSA_AXIS_Z, 64, 64, &cam, &e),
                     OSSA_OK);
    for (int i = 0; i < 16; i++) assert_true(isfinite(cam.view[i]) && isfinite(cam.projection[i]));
}

/* -- Determinism -- */

/* A skinned tube on two joints, bent at the second, `sides` vertices
 * around and `rings` along. */
static ossa_model *tube(uint32_t sides, uint32_t rings)
{
    uint32_t nv = sides * rings, nt = 2 * sides * (rings - 1);
    float *pos = malloc((size_t)nv * 3 * sizeof *pos), *nrm = malloc((size_t)nv * 3 * sizeof *nrm);
    float *idx = malloc((size_t)nv * 4 * sizeof *idx), *wt = malloc((size_t)nv * 4 * sizeof *wt);
    ossa_triangle *tri = malloc((size_t)nt * sizeof *tri);
    assert_true(pos && nrm && idx && wt && tri);
    nt = 0;
    for (uint32_t r = 0; r < rings; r++)
        for (uint32_t k = 0; k < sides; k++) {
            uint32_t v = r * sides + k;
            double a = 2 * 3.14159265358979323846 * k / sides, z = 2.0 * r / (rings - 1);
            pos[v * 3] = (float)(0.3 * cos(a)), pos[v * 3 + 1] = (float)(0.3 * sin(a));
            pos[v * 3 + 2] = (float)z;
            nrm[v * 3] = (float)cos(a), nrm[v * 3 + 1] = (float)sin(a), nrm[v * 3 + 2] = 0;
            /* Joint 1 (at z = 1) takes over from joint 0 along the tube. */
            idx[v * 4] = 1, idx[v * 4 + 1] = 0, idx[v * 4 + 2] = idx[v * 4 + 3] = 0;
            wt[v * 4] = (float)(z / 2), wt[v * 4 + 1] = (float)(1 - z / 2);
            wt[v * 4 + 2] = wt[v * 4 + 3] = 0;
        }
    for (uint32_t r = 0; r + 1 < rings; r++)
        for (uint32_t k = 0; k < sides; k++) {
            uint32_t a = r * sides + k, b = r * sides + (k + 1) % sides, c = a + sides, d = b + sides;
            tri[nt++] = (ossa_triangle){{a, d, b}};
            tri[nt++] = (ossa_triangle){{a, c, d}};
        }
    ossa_model *m = rtt_model(pos, nrm, NULL, nv, tri, nt, NULL, 0);
    ossa_error e;
    ossa_transform t = ossa_transform_identity();
    assert_int_equal(ossa_model_add_joint(m, "root", -1, &t, &e), 0);
    t.translation[2] = 1;
    assert_int_equal(ossa_model_add_joint(m, "mid", 0, &t, &e), 1);
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4,
                                                       NULL, idx, &e));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4,
                                                       NULL, wt, &e));
    ossa_animation *an = ossa_model_add_animation(m, "bend", 4, 10, OSSA_ANIMATION_LOOP, &e);
    assert_non_null(an);
    ossa_transform frames[4 * 2];
    for (int f = 0; f < 4; f++) {
        frames[f * 2] = ossa_transform_identity();
        frames[f * 2 + 1] = ossa_transform_identity();
        frames[f * 2 + 1].translation[2] = 1;
        double ang = 0.4 * f;
        frames[f * 2 + 1].rotation[0] = (float)sin(ang / 2);
        frames[f * 2 + 1].rotation[3] = (float)cos(ang / 2);
    }
    assert_int_equal(ossa_model_set_animation_frames(m, 0, 0, 4, frames, &e), OSSA_OK);
    free(pos), free(nrm), free(idx), free(wt), free(tri);
    return m;
}

static ossa_model *skinned_tube(void)
{
    return tube(12, 9);
}

static void render_frame(ossa_render_scene *s, const ossa_model *m, uint32_t threads, double frame,
                         uint32_t flags, uint32_t ss, rtt_image *im)
{
    ossa_error e;
    ossa_bounds b;
    assert_int_equal(ossa_render_bounds(m, 0, &b, &e), OSSA_OK);
    ossa_render_camera cam;
    assert_int_equal(ossa_render_camera_frame(NULL, &b, OSSA_AXIS_Z, im->image.width,
                                              im->image.height, &cam, &e),
                     OSSA_OK);
    ossa_clip *clip = ossa_clip_create(m, 0, NULL, &e);
    assert_non_null(clip);
    float(*pose)[16] = calloc(m->num_joints, sizeof *pose);
    ossa_sample_job sj;
    memset(&sj, 0, sizeof sj);
    sj.clip = clip, sj.time = frame, sj.flags = OSSA_SAMPLE_FRAMES;
    sj.model = pose, sj.num_outputs = m->num_joints;
    assert_int_equal(ossa_sample_run(&sj, &e), OSSA_OK);
    ossa_render_options o;
    memset(&o, 0, sizeof o);
    o.camera = &cam, o.pose = (const float(*)[16])pose, o.num_pose = m->num_joints;
    o.flags = flags, o.supersample = ss, o.threads = threads;
    rtt_run(s, &o, im);
    free(pose);
    ossa_clip_free(clip);
}

static void check_deterministic(const ossa_model *m, uint32_t w, uint32_t h, double frame)
{
    const uint32_t flags = OSSA_RENDER_GRID | OSSA_RENDER_SHADOW | OSSA_RENDER_SKELETON;
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    rtt_image ref, im;
    rtt_image_init(&ref, w, h);
    rtt_image_init(&im, w, h);
    render_frame(s, m, 1, frame, flags, 2, &ref);
    const uint32_t threads[] = {1, 2, 3, 4, 7, 16};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        memset(im.pixels, 0, (size_t)w * h * 4);
        render_frame(s, m, threads[i], frame, flags, 2, &im);
        assert_memory_equal(ref.pixels, im.pixels, (size_t)w * h * 4);
        assert_memory_equal(ref.depth, im.depth, (size_t)w * h * sizeof(float));
    }
    /* A new scene: the same bytes again. */
    ossa_render_scene *s2 = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s2);
    render_frame(s2, m, 2, frame, flags, 2, &im);
    assert_memory_equal(ref.pixels, im.pixels, (size_t)w * h * 4);
    /* Something was drawn besides the background and the ground. */
    size_t lit = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) lit += ref.depth[i] < 1;
    assert_true(lit > (size_t)w * h / 50);
    ossa_render_scene_free(s2);
    ossa_render_scene_free(s);
    rtt_image_free(&ref);
    rtt_image_free(&im);
}

static void test_deterministic(void **state)
{
    (void)state;
    ossa_model *m = skinned_tube();
    check_deterministic(m, 160, 120, 2.5);
    ossa_model_free(m);
}

/* More vertices than one chunk of the vertex stage: the chunks, not the
 * threads, decide which vertices are skinned together. */
static void test_deterministic_many_vertices(void **state)
{
    (void)state;
    ossa_model *m = tube(64, 200);
    check_deterministic(m, 200, 150, 1.7);
    ossa_model_free(m);
}

static void test_deterministic_guy(void **state)
{
    (void)state;
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &size);
    check_deterministic(m, 256, 256, 30);
    ossa_model_free(m);
    free(file);
}

/* -- Robustness -- */

static void render_all_ways(const ossa_model *m)
{
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_bounds b;
    assert_int_equal(ossa_render_bounds(m, OSSA_BIND_POSE, &b, &e), OSSA_OK);
    rtt_image im;
    rtt_image_init(&im, 48, 40);
    for (int k = 0; k < 4; k++) {
        ossa_render_camera_options co;
        memset(&co, 0, sizeof co);
        co.view = (ossa_render_view)(k + 1);
        co.flags = k & 1 ? OSSA_RENDER_CAMERA_ORTHOGRAPHIC : 0;
        co.distance = k == 2 ? 0.01f : 0;
        ossa_render_camera cam;
        assert_int_equal(ossa_render_camera_frame(&co, &b, OSSA_AXIS_Z, 48, 40, &cam, &e), OSSA_OK);
        ossa_render_options o;
        memset(&o, 0, sizeof o);
        o.camera = &cam;
        o.flags = OSSA_RENDER_GRID | OSSA_RENDER_SHADOW | OSSA_RENDER_SKELETON;
        o.supersample = (uint32_t)k;
        o.threads = 3;
        rtt_run(s, &o, &im);
        o.flags |= OSSA_RENDER_TWO_SIDED;
        rtt_run(s, &o, &im);
    }
    rtt_image_free(&im);
    ossa_render_scene_free(s);
}

static void test_broken_geometry(void **state)
{
    (void)state;
    const float big = 1e30f, inf = INFINITY;
    const float pos[] = {NAN, 0,   0,    1,    0,   0,   0,    0,   1,    /* NaN corner */
                         0,   0,   0,    0,    0,   0,   1,    0,   0,    /* zero area */
                         -big, 0,  -1,   big,  0,   -1,  0,    0,   big,  /* huge */
                         inf, 0,   0,    0,    inf, 0,   0,    0,   -inf, /* infinite */
                         -1,  0,   0,    1,    0,   0,   0,    0,   1,    /* fine */
                         3e9f, -1e9f, 0, -1e9f, 2e9f, 1, 0,    0,   0};  /* far away */
    ossa_triangle tri[6];
    for (uint32_t t = 0; t < 6; t++) tri[t] = (ossa_triangle){{3 * t, 3 * t + 2, 3 * t + 1}};
    ossa_model *m = rtt_model(pos, NULL, NULL, 18, tri, 6, NULL, 0);
    render_all_ways(m);
    ossa_model_free(m);

    /* A camera that is itself not finite. */
    m = rtt_cube();
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    ossa_render_camera cam;
    front_ortho(&cam, 1, 1);
    cam.view[5] = NAN;
    cam.projection[0] = INFINITY;
    ossa_render_options o;
    base_options(&o, &cam);
    o.flags = OSSA_RENDER_GRID | OSSA_RENDER_SHADOW;
    rtt_image im;
    rtt_image_init(&im, 32, 32);
    rtt_run(s, &o, &im);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

static void test_empty_models(void **state)
{
    (void)state;
    ossa_error e;
    /* No vertices at all. */
    ossa_model *m = ossa_model_create(NULL);
    render_all_ways(m);
    ossa_model_free(m);
    /* Vertices, no triangles, an empty mesh. */
    const float pos[] = {0, 0, 0, 1, 1, 1};
    m = rtt_model(pos, NULL, NULL, 2, NULL, 0, NULL, 0);
    render_all_ways(m);
    ossa_model_free(m);
    /* Joints and a NaN pose. */
    m = skinned_tube();
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    float pose[2][16];
    for (int i = 0; i < 32; i++) pose[i / 16][i % 16] = NAN;
    ossa_render_camera cam;
    front_ortho(&cam, 2, 1);
    ossa_render_options o;
    base_options(&o, &cam);
    o.pose = (const float(*)[16])pose, o.num_pose = 2;
    o.flags = OSSA_RENDER_SKELETON | OSSA_RENDER_SHADOW;
    rtt_image im;
    rtt_image_init(&im, 32, 32);
    rtt_run(s, &o, &im);
    for (int i = 0; i < 32 * 32; i++) assert_true(im.depth[i] == 1.0f);
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

/* -- Arguments -- */

static void test_arguments(void **state)
{
    (void)state;
    ossa_model *m = skinned_tube();
    ossa_error e;
    ossa_render_scene *s = ossa_render_scene_create(m, NULL, &e);
    assert_non_null(s);
    ossa_render_camera cam;
    front_ortho(&cam, 1, 1);
    ossa_render_options o;
    base_options(&o, &cam);
    rtt_image im;
    rtt_image_init(&im, 16, 16);
    o.supersample = 5;
    assert_int_equal(ossa_render_run(s, &o, &im.image, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    o.supersample = 0;
    float pose[1][16] = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    o.pose = (const float(*)[16])pose, o.num_pose = 1; /* the model has 2 joints */
    assert_int_equal(ossa_render_run(s, &o, &im.image, &e), OSSA_FAILED);
    assert_int_equal(e.code, OSSA_ERROR_ARGUMENT);
    o.pose = NULL;
    im.image.width = 0;
    assert_int_equal(ossa_render_run(s, &o, &im.image, &e), OSSA_FAILED);
    im.image.width = 16;
    im.image.stride = 8;
    assert_int_equal(ossa_render_run(s, &o, &im.image, &e), OSSA_FAILED);
    im.image.stride = 0;
    o.camera = NULL;
    assert_int_equal(ossa_render_run(s, &o, &im.image, &e), OSSA_FAILED);
    o.camera = &cam;
    o.flags = OSSA_RENDER_LIGHTING;
    o.ambient = NAN;
    assert_int_equal(ossa_render_run(s, &o, &im.image, &e), OSSA_FAILED);
    ossa_render_material mat;
    memset(&mat, 0, sizeof mat);
    assert_int_equal(ossa_render_scene_set_material(s, 1, &mat, &e), OSSA_FAILED);
    mat.texture = im.pixels; /* without a size */
    assert_int_equal(ossa_render_scene_set_material(s, 0, &mat, &e), OSSA_FAILED);
    assert_int_equal(ossa_render_bounds(m, 1, &(ossa_bounds){{0}, {0}, 0, 0}, &e), OSSA_FAILED);
    assert_null(ossa_render_scene_create(NULL, NULL, &e));
    rtt_image_free(&im);
    ossa_render_scene_free(s);
    ossa_model_free(m);
}

typedef struct render_job {
    const ossa_model *m;
    const ossa_render_camera *cam;
    rtt_image *im;
} render_job;

/* A scene of the model and its render; the result is the picture. */
static ossa_status render_op(void *ctx, ts_alloc *a, ossa_error *e, ts_result *result)
{
    const render_job *job = ctx;
    rtt_image *im = job->im;
    size_t pixels = (size_t)im->image.width * im->image.height;
    memset(im->pixels, 0, pixels * 4);
    memset(im->depth, 0, pixels * sizeof(float));
    ossa_render_scene_options so = {0, &a->allocator, 0};
    ossa_render_scene *s = ossa_render_scene_create(job->m, &so, e);
    if (!s) return OSSA_FAILED;
    ossa_render_options o;
    base_options(&o, job->cam);
    o.supersample = 2;
    ossa_status st = ossa_render_run(s, &o, &im->image, e);
    ossa_render_scene_free(s);
    if (!st) ts_result_copy(result, im->pixels, pixels * 4);
    return st;
}

/* Every allocation of a scene and its first render fails in turn: each
 * failure is reported as NOMEM and leaks nothing. */
static void test_allocation_failures(void **state)
{
    (void)state;
    ossa_model *m = skinned_tube();
    ossa_render_camera cam;
    front_ortho(&cam, 2, 1);
    rtt_image im;
    rtt_image_init(&im, 24, 24);
    render_job job = {m, &cam, &im};
    ts_alloc_sweep_with("scene and render", render_op, &job,
                        &(ts_sweep){.modes = TS_SWEEP_ONCE, .max_calls = 1000});
    rtt_image_free(&im);
    ossa_model_free(m);
}

/* -- The label font -- */

static void test_text(void **state)
{
    (void)state;
    uint8_t px[12 * 7 * 4];
    memset(px, 0, sizeof px);
    ossa_render_image im = {12, 7, px, 0, NULL};
    const uint8_t white[4] = {255, 255, 255, 255};
    assert_int_equal(ossa_render_text(&im, 1, 1, 1, white, "1a"), 7);
    /* '1': .#. / ##. / .#. / .#. / ### at (1, 1). */
    static const char *const one[5] = {".#.", "##.", ".#.", ".#.", "###"};
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 3; c++) {
            const uint8_t *p = px + ((size_t)(1 + r) * 12 + (size_t)(1 + c)) * 4;
            assert_int_equal(p[0], one[r][c] == '#' ? 255 : 0);
            assert_int_equal(p[3], one[r][c] == '#' ? 255 : 0);
        }
    /* Clipped at the edges, scaled, nothing outside the image touched. */
    assert_true(ossa_render_text(&im, -5, -3, 3, white, "88\n88") > 0);
    assert_int_equal(ossa_render_text(&im, 0, 0, 1, white, ""), 0);
}

/* Vertex colours multiply the albedo: a square facing the front camera,
 * flat lit and white, with one colour per vertex. The middle of each
 * quarter near a corner takes that corner's colour; display colours (IQM,
 * OBJ, ...) are drawn as they are, linear ones (glTF's) through the sRGB
 * curve (0.5 -> 188). */
static void test_vertex_colors(void **state)
{
    (void)state;
    static const float pos[] = {-1, 0, -1, 1, 0, -1, 1, 0, 1, -1, 0, 1};
    static const ossa_triangle tri[2] = {{{0, 2, 1}}, {{0, 3, 2}}};
    /* red bottom left, green bottom right, blue top right, grey (0.5) top left */
    static const float rgb[] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5f, 0.5f, 0.5f};
    for (int linear = 0; linear < 2; linear++) {
        ossa_model *m = rtt_model(pos, NULL, NULL, 4, tri, 2, NULL, 1);
        ossa_error e;
        assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_COLOR, OSSA_FLOAT, 3, NULL, rgb, &e));
        if (linear) m->flags |= OSSA_MODEL_LINEAR_COLORS;
        ossa_render_scene *scene = ossa_render_scene_create(m, NULL, &e);
        assert_non_null(scene);
        rtt_set_color(scene, 0, 1, 1, 1);
        ossa_render_camera cam;
        rtt_frame_front(m, 64, 64, &cam);
        ossa_render_options o;
        memset(&o, 0, sizeof o);
        o.camera = &cam;
        o.flags = OSSA_RENDER_TWO_SIDED;
        rtt_flat_lighting(&o);
        rtt_image im;
        rtt_image_init(&im, 64, 64);
        rtt_run(scene, &o, &im);
        /* project the vertices: each corner's pixel, a step inside (where the
         * neighbouring corners weigh about 3%, hence the tolerances) */
        double corners[4][3] = {{-0.97, 0, -0.97}, {0.97, 0, -0.97}, {0.97, 0, 0.97}, {-0.97, 0, 0.97}};
        for (int k = 0; k < 3; k++) {
            double px[2];
            rtt_project(&cam, corners[k], 64, 64, px);
            const uint8_t *p = rtt_pixel(&im, (uint32_t)px[0], (uint32_t)px[1]);
            /* near a pure corner: that channel high, the others low */
            for (int c = 0; c < 3; c++)
                if (c == k) assert_true(p[c] > 230);
                else assert_true(p[c] < 25);
        }
        double px[2];
        rtt_project(&cam, corners[3], 64, 64, px);
        const uint8_t *grey = rtt_pixel(&im, (uint32_t)px[0], (uint32_t)px[1]);
        int want = linear ? 188 : 128;
        for (int c = 0; c < 3; c++)
            if (abs(grey[c] - want) > 10) fail_msg("channel %d: %d, want %d", c, grey[c], want);
        rtt_image_free(&im);
        ossa_render_scene_free(scene);
        ossa_model_free(m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vertex_colors),
        cmocka_unit_test(test_cube_rectangle_and_shading),
        cmocka_unit_test(test_rim_formula),
        cmocka_unit_test(test_depth_order),
        cmocka_unit_test(test_culling),
        cmocka_unit_test(test_inconsistent_winding),
        cmocka_unit_test(test_no_cracks),
        cmocka_unit_test(test_perspective_texture),
        cmocka_unit_test(test_near_clipping),
        cmocka_unit_test(test_bounds_of_joints),
        cmocka_unit_test(test_camera_framing),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_deterministic_many_vertices),
        cmocka_unit_test(test_deterministic_guy),
        cmocka_unit_test(test_broken_geometry),
        cmocka_unit_test(test_empty_models),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
