/* The demo character through every writer: each format ossa writes
 * (ossa_format_list, ossa_format_can_write) is written to files, read back
 * (the files of one write merged, as `ossa convert` merges its inputs) and
 * compared with the model in what the format holds (ossa_format_holds):
 * the skeleton's bind pose, every frame of the animations as model-space
 * joint positions, the mesh's vertices. Each format within its precision
 * (the table below). And `ossa demo`'s picture shows a standing figure. */
#include "demo_test.h"

#include <sys/stat.h>

/* How far a read-back position (metres) may be from the model's, per
 * format: what its numbers keep. */
static double tolerance(ossa_format f)
{
    switch (f) {
    /* 16-bit channels over each channel's range (docs/formats/iqm.md):
     * steps of about 3e-5 on a rotation, added up along a chain. */
    case OSSA_FORMAT_IQM: return 2e-4;
    /* Rotations quantized within a small angle (docs/formats/sotc.md),
     * no translations: compared as rotations (quaternion components). */
    case OSSA_FORMAT_SOTC_ANB: return 1e-4;
    /* Compressed within the default bound, 0.01% of the model's size (the
     * demo: 1.8e-4 m), measured at shells around the joints. */
    case OSSA_FORMAT_OSSACLIP: return 2e-4;
    /* Text with six or more decimals (SMD, OBJ), MD5's quaternions without
     * w, floats everywhere else. */
    default: return 2e-5;
    }
}

/* The files one write made, in order. */
typedef struct files {
    char *path[16];
    int count;
} files;

static void collect(void *user, const char *path)
{
    files *f = user;
    assert_true(f->count < 16);
    f->path[f->count] = strdup(path);
    assert_non_null(f->path[f->count]);
    f->count++;
}

static int is_model_file(const char *path)
{
    static const char *const others[] = {".png", ".bin", ".mtl"};
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (n > 4 && strcmp(path + n - 4, others[i]) == 0) return 0;
    return 1;
}

/* The joint of `back` that stands for joint j of `m`: the one of the same
 * name, or with the same index when `back` has no names. -1 if none. */
static int match_joint(const ossa_model *m, const ossa_model *back, uint32_t j)
{
    for (uint32_t k = 0; k < back->num_joints; k++)
        if (strcmp(back->joints[k].name, m->joints[j].name) == 0) return (int)k;
    if (back->num_joints == m->num_joints && !back->joints[j].name[0]) return (int)j;
    return -1;
}

static double distance(const double a[3], const double b[3])
{
    return sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
}

static double compare_skeleton(const ossa_model *m, const ossa_model *back)
{
    double *a = dmt_joint_positions(m, -1, 0), *b = dmt_joint_positions(back, -1, 0), worst = 0;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        int k = match_joint(m, back, j);
        if (k < 0) fail_msg("joint '%s' is missing", m->joints[j].name);
        worst = fmax(worst, distance(&a[j * 3], &b[k * 3]));
    }
    free(a), free(b);
    return worst;
}

/* Frame f of `back`'s animation `ab` against frame f of `m`'s `am`:
 * joint positions, or for formats that keep only rotations the local
 * rotations (component differences, q and -q alike). */
static double compare_frame(const ossa_model *m, int am, const ossa_model *back, int ab, uint32_t f,
                            uint32_t fb, int rotations_only)
{
    double worst = 0;
    if (rotations_only) {
        for (uint32_t j = 0; j < m->num_joints; j++) {
            int k = match_joint(m, back, j);
            assert_true(k >= 0);
            const ossa_transform *t = &m->animations[am].frames[(size_t)f * m->num_joints + j];
            const ossa_transform *u = &back->animations[ab].frames[(size_t)fb * back->num_joints + (uint32_t)k];
            worst = fmax(worst, ts_quat_distance(t->rotation, u->rotation));
        }
        return worst;
    }
    double *a = dmt_joint_positions(m, am, f), *b = dmt_joint_positions(back, ab, fb);
    for (uint32_t j = 0; j < m->num_joints; j++) {
        int k = match_joint(m, back, j);
        assert_true(k >= 0);
        worst = fmax(worst, distance(&a[j * 3], &b[k * 3]));
    }
    free(a), free(b);
    return worst;
}

/* Every frame; a format without a loop flag (MD5) may add a copy of the
 * first frame at the end, which must match it. */
static double compare_animation(const ossa_model *m, int am, const ossa_model *back, int ab,
                                int rotations_only)
{
    uint32_t n = m->animations[am].num_frames, nb = back->animations[ab].num_frames;
    assert_true(nb == n || nb == n + 1);
    double worst = 0;
    for (uint32_t f = 0; f < nb; f++)
        worst = fmax(worst, compare_frame(m, am, back, ab, f % n, f, rotations_only));
    return worst;
}

/* Every vertex of one side lies within `tol` of a vertex of the other
 * (formats may reorder and split vertices); returns the largest gap. */
static double compare_vertices(const ossa_model *m, const ossa_model *back)
{
    float *a = dmt_array(m, OSSA_VERTEX_POSITION), *b = dmt_array(back, OSSA_VERTEX_POSITION);
    double worst = 0;
    for (int pass = 0; pass < 2; pass++) {
        const float *p = pass ? b : a, *q = pass ? a : b;
        uint32_t np = pass ? back->num_vertices : m->num_vertices, nq = pass ? m->num_vertices : back->num_vertices;
        for (uint32_t i = 0; i < np; i++) {
            double best = INFINITY;
            for (uint32_t k = 0; k < nq && best > 0; k++) {
                double d = pow(p[i * 3] - q[k * 3], 2) + pow(p[i * 3 + 1] - q[k * 3 + 1], 2) +
                           pow(p[i * 3 + 2] - q[k * 3 + 2], 2);
                best = fmin(best, d);
            }
            worst = fmax(worst, sqrt(best));
        }
    }
    free(a), free(b);
    return worst;
}

/* Writes `m` as `format` into its own folder and reads every model file
 * of the write back, merged. */
static ossa_model *write_and_read(const ossa_model *m, ossa_format format, const char *root)
{
    char dir[1024], path[1200], ext[32];
    snprintf(dir, sizeof dir, "%s/%s", root, ossa_format_name(format));
    mkdir(dir, 0777);
    snprintf(ext, sizeof ext, "%s", ossa_format_extensions(format));
    ext[strcspn(ext, " ")] = 0;
    snprintf(path, sizeof path, "%s/demo%s", dir, ext);
    files written = {{NULL}, 0};
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    /* what each format keeps, compared with the model as it is (turning
     * to a format's front: test_front.c) */
    o.flags = OSSA_WRITE_KEEP_FRONT;
    o.wrote = collect;
    o.user = &written;
    ossa_error err;
    if (ossa_write_file(m, path, &o, &err) != OSSA_OK) fail_msg("%s: %s", path, err.message);
    ossa_model *back = NULL;
    for (int i = 0; i < written.count; i++) {
        if (is_model_file(written.path[i])) {
            ossa_model *one = ossa_load_file(written.path[i], NULL, &err);
            if (!one) fail_msg("%s: %s", written.path[i], err.message);
            if (!back)
                back = one;
            else {
                if (ossa_model_merge(back, one, &err) != OSSA_OK) fail_msg("merging %s: %s", written.path[i], err.message);
                ossa_model_free(one);
            }
        }
        free(written.path[i]);
    }
    assert_non_null(back);
    return back;
}

/* A model with m's skeleton alone, for animation files that are read
 * with their skeleton because they lack names or parents (.anb with
 * .skb, .illanim with .illskel): `back` merged into it. */
static ossa_model *with_skeleton(const ossa_model *m, ossa_model *back)
{
    ossa_error err;
    ossa_model *s = ossa_model_create(NULL);
    assert_non_null(s);
    for (uint32_t j = 0; j < m->num_joints; j++)
        assert_true(ossa_model_add_joint(s, m->joints[j].name, m->joints[j].parent, &m->joints[j].bind, &err) >= 0);
    if (ossa_model_merge(s, back, &err) != OSSA_OK) fail_msg("merging into the skeleton: %s", err.message);
    ossa_model_free(back);
    return s;
}

static void test_every_writer_reads_back(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    char *root = ts_tmp_path("demo_outputs");
    mkdir(root, 0777);
    ossa_format formats[64];
    uint32_t n = ossa_format_list(formats, 64), tested = 0;
    for (uint32_t i = 0; i < n; i++) {
        ossa_format f = formats[i];
        if (!ossa_format_can_write(f)) continue;
        uint32_t holds = ossa_format_holds(f);
        /* The md5anim entry of the format table does not say what it holds:
         * one animation (docs/formats/md5.md). */
        if (!holds && f == OSSA_FORMAT_MD5ANIM) holds = OSSA_HOLDS_ONE_ANIMATION;
        ossa_model *back = write_and_read(m, f, root);
        int unnamed = back->num_joints && !back->joints[0].name[0];
        if (!(holds & OSSA_HOLDS_SKELETON) && (unnamed || (back->flags & OSSA_MODEL_PARENTS_UNKNOWN)))
            back = with_skeleton(m, back);
        double tol = tolerance(f), skeleton = 0, animation = 0, mesh = 0;
        if (holds & OSSA_HOLDS_SKELETON) skeleton = compare_skeleton(m, back);
        if (holds & (OSSA_HOLDS_ANIMATIONS | OSSA_HOLDS_ONE_ANIMATION)) {
            /* All the animations in order, or the one asked for (0). */
            uint32_t want = holds & OSSA_HOLDS_ANIMATIONS ? m->num_animations : 1;
            assert_int_equal(back->num_animations, want);
            for (uint32_t a = 0; a < want; a++)
                animation = fmax(animation, compare_animation(m, (int)a, back, (int)a, f == OSSA_FORMAT_SOTC_ANB));
        }
        if (holds & OSSA_HOLDS_MESHES) {
            assert_int_equal(back->num_triangles, m->num_triangles);
            mesh = compare_vertices(m, back);
        }
        printf("%-8s holds %2u: skeleton %.2g, animations %.2g, vertices %.2g (within %.1g)\n",
               ossa_format_name(f), holds, skeleton, animation, mesh, tol);
        assert_true(skeleton <= tol && animation <= tol && mesh <= tol);
        ossa_model_free(back);
        tested++;
    }
    assert_true(tested >= 10);
    free(root);
    ossa_model_free(m);
}

/* -- The picture -- */

/* `ossa demo`'s demo.png shows a standing figure: the box around the
 * coloured pixels (skin, shirt, trousers; the background, the grid and
 * the shadow are grey) is more than twice as tall as it is wide and spans
 * half the picture's height. */
static void test_demo_png_stands(void **state)
{
    (void)state;
    const char *cli = getenv("OSSA_CLI");
    if (!cli || !*cli) ts_skip("OSSA_CLI not set (the picture comes from 'ossa demo')");
    char *dir = ts_tmp_path("demo_png");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' demo -o '%s' >/dev/null", cli, dir);
    assert_int_equal(system(cmd), 0);
    char *path = ts_path_join(dir, "demo.png");
    size_t size;
    unsigned char *png = ts_read_file(path, &size);
    assert_non_null(png);
    ossa_render_image im;
    ossa_error err;
    assert_int_equal(ossa_render_png_decode(png, size, NULL, &im, &err), OSSA_OK);
    uint32_t x0 = im.width, x1 = 0, y0 = im.height, y1 = 0, count = 0;
    for (uint32_t y = 0; y < im.height; y++)
        for (uint32_t x = 0; x < im.width; x++) {
            const uint8_t *p = im.pixels + (size_t)y * im.stride + (size_t)x * 4;
            int hi = p[0] > p[1] ? (p[0] > p[2] ? p[0] : p[2]) : (p[1] > p[2] ? p[1] : p[2]);
            int lo = p[0] < p[1] ? (p[0] < p[2] ? p[0] : p[2]) : (p[1] < p[2] ? p[1] : p[2]);
            if (hi - lo < 40) continue;
            count++;
            x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
            y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
        }
    printf("demo.png: %u coloured pixels in x %u..%u, y %u..%u\n", count, x0, x1, y0, y1);
    assert_true(count > im.width * im.height / 50);
    assert_true(y1 - y0 > 2 * (x1 - x0));
    assert_true(y1 - y0 > im.height / 2);
    ossa_free(im.pixels, NULL);
    free(png), free(path), free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_writer_reads_back),
        cmocka_unit_test(test_demo_png_stands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
