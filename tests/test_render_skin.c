/* Silhouettes of skinned models against a prediction made here: the test
 * skins the vertices itself in double precision (from the model's joints,
 * frames and blend data), projects them with a camera built by hand and
 * decides which pixel centres the triangles cover with its own
 * point-in-triangle test. The rasterizer must agree on every pixel except
 * those whose centre lies within a hundredth of a pixel of an edge, where
 * rounding may go either way. */
#include "render_test.h"

#include <sys/stat.h>

/* -- Skinning, independently -- */

/* Column-major T * R * S of a transform, the rotation normalized. */
static void trs(const ossa_transform *t, double m[16])
{
    double x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n, y /= n, z /= n, w /= n;
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),
                         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
    memset(m, 0, 16 * sizeof *m);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) m[c * 4 + k] = r[c * 3 + k] * t->scale[c];
    for (int k = 0; k < 3; k++) m[12 + k] = t->translation[k];
    m[15] = 1;
}

static void mul(const double a[16], const double b[16], double out[16])
{
    double o[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
            o[c * 4 + r] = s;
        }
    memcpy(out, o, sizeof o);
}

static void invert_affine(const double m[16], double out[16])
{
    const double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6],
                 i = m[10];
    double det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
    double inv[9] = {(e * i - f * h) / det, -(d * i - f * g) / det, (d * h - e * g) / det,
                     -(b * i - c * h) / det, (a * i - c * g) / det, -(a * h - b * g) / det,
                     (b * f - c * e) / det, -(a * f - c * d) / det, (a * e - b * d) / det};
    /* inv holds the inverse column by column (element [col * 3 + row]). */
    memset(out, 0, 16 * sizeof *out);
    for (int col = 0; col < 3; col++)
        for (int row = 0; row < 3; row++) out[col * 4 + row] = inv[col * 3 + row];
    for (int row = 0; row < 3; row++)
        out[12 + row] = -(out[row] * m[12] + out[4 + row] * m[13] + out[8 + row] * m[14]);
    out[15] = 1;
}

/* World matrices of the joints for per-joint local transforms. */
static void world(const ossa_model *m, const ossa_transform *local, size_t stride, double (*out)[16])
{
    for (uint32_t j = 0; j < m->num_joints; j++) {
        double l[16];
        trs((const ossa_transform *)((const char *)local + j * stride), l);
        int32_t p = m->joints[j].parent;
        if (p >= 0) mul(out[p], l, out[j]);
        else memcpy(out[j], l, sizeof l);
    }
}

/* Skinned positions (3 doubles per vertex) at a frame of an animation,
 * or of the bind pose for anim < 0. */
static double *skin(const ossa_model *m, int anim, uint32_t frame)
{
    uint32_t nv = m->num_vertices, nj = m->num_joints;
    const ossa_vertex_array *pa = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    assert_non_null(pa);
    assert_non_null(ia);
    assert_non_null(wa);
    float *pos = malloc((size_t)nv * pa->size * sizeof *pos);
    float *idx = malloc((size_t)nv * ia->size * sizeof *idx);
    float *wt = malloc((size_t)nv * wa->size * sizeof *wt);
    assert_int_equal(ossa_vertex_array_read(m, pa, 0, nv, pos), OSSA_OK);
    assert_int_equal(ossa_vertex_array_read(m, ia, 0, nv, idx), OSSA_OK);
    assert_int_equal(ossa_vertex_array_read(m, wa, 0, nv, wt), OSSA_OK);
    double(*bind)[16] = malloc(nj * sizeof *bind), (*posed)[16] = malloc(nj * sizeof *posed);
    ossa_transform *bind_local = calloc(nj ? nj : 1, sizeof *bind_local);
    for (uint32_t j = 0; j < nj; j++) bind_local[j] = m->joints[j].bind;
    world(m, bind_local, sizeof *bind_local, bind);
    world(m, anim >= 0 ? m->animations[anim].frames + (size_t)frame * nj : bind_local,
          sizeof(ossa_transform), posed);
    for (uint32_t j = 0; j < nj; j++) {
        double inv[16];
        invert_affine(bind[j], inv);
        mul(posed[j], inv, posed[j]);
    }
    double *out = calloc((size_t)nv * 3, sizeof *out);
    uint32_t k = ia->size < wa->size ? ia->size : wa->size;
    for (uint32_t v = 0; v < nv; v++) {
        const float *p = pos + (size_t)v * pa->size;
        double sum = 0;
        for (uint32_t c = 0; c < k; c++) sum += wt[(size_t)v * wa->size + c];
        for (uint32_t c = 0; c < k; c++) {
            double w = wt[(size_t)v * wa->size + c] / sum;
            uint32_t j = (uint32_t)idx[(size_t)v * ia->size + c];
            if (w == 0) continue;
            assert_true(j < nj);
            for (int r = 0; r < 3; r++)
                out[v * 3 + r] += w * (posed[j][r] * p[0] + posed[j][4 + r] * p[1] +
                                       posed[j][8 + r] * p[2] + posed[j][12 + r]);
        }
    }
    free(pos), free(idx), free(wt), free(bind), free(posed), free(bind_local);
    return out;
}

/* -- Coverage, independently -- */

#define EDGE_TOLERANCE 0.01 /* pixels */

/* covered[i]: some triangle (either side) holds pixel i's centre;
 * unsure[i]: a centre within EDGE_TOLERANCE of an edge of a triangle
 * it may be in. */
static void predict(const ossa_model *m, const double *pos, const ossa_render_camera *cam, int w,
                    int h, uint8_t *covered, uint8_t *unsure)
{
    memset(covered, 0, (size_t)w * h);
    memset(unsure, 0, (size_t)w * h);
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        double s[3][2];
        for (int k = 0; k < 3; k++) rtt_project(cam, pos + (size_t)m->triangles[t].v[k] * 3, w, h, s[k]);
        double area = (s[1][0] - s[0][0]) * (s[2][1] - s[0][1]) - (s[1][1] - s[0][1]) * (s[2][0] - s[0][0]);
        if (fabs(area) < 1e-12) continue;
        double sign = area > 0 ? 1 : -1;
        double x0 = fmin(s[0][0], fmin(s[1][0], s[2][0])), x1 = fmax(s[0][0], fmax(s[1][0], s[2][0]));
        double y0 = fmin(s[0][1], fmin(s[1][1], s[2][1])), y1 = fmax(s[0][1], fmax(s[1][1], s[2][1]));
        for (int y = (int)fmax(0, floor(y0 - 1)); y <= (int)fmin(h - 1, ceil(y1 + 1)); y++)
            for (int x = (int)fmax(0, floor(x0 - 1)); x <= (int)fmin(w - 1, ceil(x1 + 1)); x++) {
                double px = x + 0.5, py = y + 0.5, dmin = 1e9;
                for (int e = 0; e < 3; e++) {
                    const double *a = s[(e + 1) % 3], *b = s[(e + 2) % 3];
                    double ex = b[0] - a[0], ey = b[1] - a[1];
                    double d = sign * (ex * (py - a[1]) - ey * (px - a[0])) / sqrt(ex * ex + ey * ey);
                    if (d < dmin) dmin = d;
                }
                if (dmin > EDGE_TOLERANCE) covered[y * w + x] = 1;
                else if (dmin >= -EDGE_TOLERANCE) unsure[y * w + x] = 1;
            }
    }
}

/* -- Rendering with the library -- */

static void render_pose(const ossa_model *m, int anim, double frame, const ossa_render_camera *cam,
                        rtt_image *im)
{
    ossa_error e;
    ossa_render_scene_options so = {0, NULL, OSSA_RENDER_SCENE_TWO_SIDED};
    ossa_render_scene *s = ossa_render_scene_create(m, &so, &e);
    assert_non_null(s);
    float(*pose)[16] = calloc(m->num_joints, sizeof *pose);
    ossa_render_options o;
    memset(&o, 0, sizeof o);
    o.camera = cam;
    o.flags = OSSA_RENDER_TRANSPARENT;
    o.threads = 2;
    if (anim >= 0) {
        ossa_clip *clip = ossa_clip_create(m, (uint32_t)anim, NULL, &e);
        assert_non_null(clip);
        ossa_sample_job sj;
        memset(&sj, 0, sizeof sj);
        sj.clip = clip, sj.time = frame, sj.flags = OSSA_SAMPLE_FRAMES;
        sj.model = pose, sj.num_outputs = m->num_joints;
        assert_int_equal(ossa_sample_run(&sj, &e), OSSA_OK);
        ossa_clip_free(clip);
        o.pose = (const float(*)[16])pose, o.num_pose = m->num_joints;
    }
    rtt_run(s, &o, im);
    free(pose);
    ossa_render_scene_free(s);
}

/* Compares the drawn pixels (alpha 255 on a transparent background) with
 * the prediction; returns the drawn mask (malloc'd). */
static uint8_t *compare(const ossa_model *m, const double *pos, const ossa_render_camera *cam,
                        const rtt_image *im, size_t min_covered)
{
    int w = (int)im->image.width, h = (int)im->image.height;
    uint8_t *covered = malloc((size_t)w * h), *unsure = malloc((size_t)w * h);
    uint8_t *drawn = malloc((size_t)w * h);
    predict(m, pos, cam, w, h, covered, unsure);
    size_t wrong = 0, count = 0;
    for (int i = 0; i < w * h; i++) {
        uint8_t a = im->pixels[(size_t)i * 4 + 3];
        assert_true(a == 0 || a == 255);
        drawn[i] = a == 255;
        count += covered[i];
        if (drawn[i] != covered[i] && !unsure[i]) {
            if (wrong < 5) print_message("pixel %d,%d: drawn %d, predicted %d\n", i % w, i / w, drawn[i], covered[i]);
            wrong++;
        }
    }
    assert_int_equal(wrong, 0);
    assert_true(count >= min_covered);
    free(covered);
    free(unsure);
    return drawn;
}

/* A camera looking at the box around the vertices from direction `dir`. */
static void frame_vertices(const double *pos, uint32_t nv, const double dir[3], int ortho,
                           ossa_render_camera *cam)
{
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (uint32_t v = 0; v < nv; v++)
        for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], pos[v * 3 + k]), hi[k] = fmax(hi[k], pos[v * 3 + k]);
    double c[3], r = 0;
    for (int k = 0; k < 3; k++) c[k] = (lo[k] + hi[k]) / 2, r += (hi[k] - lo[k]) * (hi[k] - lo[k]) / 4;
    r = sqrt(r);
    double eye[3];
    for (int k = 0; k < 3; k++) eye[k] = c[k] + dir[k] * 3 * r;
    const double up[3] = {0, 0, 1};
    rtt_camera(cam, eye, c, up, ortho, ortho ? 1.05 * r : 45, 1, r, 5 * r);
}

/* -- The demo character walking -- */

static ossa_model *load_demo(void)
{
    const char *cli = getenv("OSSA_CLI");
    if (!cli || !*cli) {
        printf("SKIP: OSSA_CLI not set (the demo model comes from 'ossa demo')\n");
        skip();
    }
    char *dir = ts_tmp_path("render_demo");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' demo -o '%s' >/dev/null", cli, dir);
    assert_int_equal(system(cmd), 0);
    char *path = ts_path_join(dir, "demo.iqm");
    size_t size;
    unsigned char *file = ts_read_file(path, &size);
    assert_non_null(file);
    ossa_model *m = ts_load(file, size);
    free(file);
    free(path);
    free(dir);
    return m;
}

static void test_demo_walk(void **state)
{
    (void)state;
    ossa_model *m = load_demo();
    int walk = -1;
    for (uint32_t a = 0; a < m->num_animations; a++)
        if (strcmp(m->animations[a].name, "walk") == 0) walk = (int)a;
    assert_true(walk >= 0);
    /* Frame 0: the left heel strikes, the legs apart; frame 8: the right
     * leg swings past the left. */
    uint32_t last = 8;
    double *straight = skin(m, walk, 0), *bent = skin(m, walk, last);
    /* From the side (+X): the legs and arms swing in the picture's plane. */
    double both[2 * 1024 * 3];
    assert_true(m->num_vertices <= 1024);
    memcpy(both, straight, (size_t)m->num_vertices * 3 * sizeof(double));
    memcpy(both + (size_t)m->num_vertices * 3, bent, (size_t)m->num_vertices * 3 * sizeof(double));
    const double side[3] = {1, 0, 0};
    ossa_render_camera cam;
    frame_vertices(both, 2 * m->num_vertices, side, 1, &cam);
    rtt_image a, b;
    rtt_image_init(&a, 200, 200);
    rtt_image_init(&b, 200, 200);
    render_pose(m, walk, 0, &cam, &a);
    render_pose(m, walk, last, &cam, &b);
    uint8_t *da = compare(m, straight, &cam, &a, 1500), *db = compare(m, bent, &cam, &b, 1500);
    /* The step moved a good part of the silhouette. */
    size_t moved = 0;
    for (int i = 0; i < 200 * 200; i++) moved += da[i] != db[i];
    printf("walk: %zu pixels change between frames 0 and 8\n", moved);
    assert_true(moved > 1000);
    free(da), free(db), free(straight), free(bent);
    rtt_image_free(&a);
    rtt_image_free(&b);
    ossa_model_free(m);
}

/* -- guy.iqm dancing -- */

static void check_guy(const double dir[3], int ortho)
{
    unsigned char *file;
    size_t size;
    ossa_model *m = ts_load_shared("iqm/guy.iqm", &file, &size);
    int dance = -1;
    for (uint32_t a = 0; a < m->num_animations; a++)
        if (strcmp(m->animations[a].name, "dance") == 0) dance = (int)a;
    assert_true(dance >= 0);
    double *pos = skin(m, dance, 30);
    ossa_render_camera cam;
    frame_vertices(pos, m->num_vertices, dir, ortho, &cam);
    rtt_image im;
    rtt_image_init(&im, 256, 256);
    render_pose(m, dance, 30, &cam, &im);
    free(compare(m, pos, &cam, &im, 3000));
    rtt_image_free(&im);
    free(pos);
    ossa_model_free(m);
    free(file);
}

static void test_guy_dance_front_ortho(void **state)
{
    (void)state;
    const double front[3] = {0, -1, 0};
    check_guy(front, 1);
}

static void test_guy_dance_perspective(void **state)
{
    (void)state;
    const double three_quarter[3] = {0.5, -0.75, 0.43};
    check_guy(three_quarter, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demo_walk),
        cmocka_unit_test(test_guy_dance_front_ortho),
        cmocka_unit_test(test_guy_dance_perspective),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
