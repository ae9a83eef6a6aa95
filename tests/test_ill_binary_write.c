/* illEngine binary writing (docs/formats/ill.md §7, §11): the bytes of a
 * small model worked out here by hand; text and binary files of one model
 * (the demo character, every shared model, illEngine sets) reading back to
 * the same joints, bind poses, vertices, weights, frames and sampled
 * poses; the binary seeds of the reader written again; the limits of the
 * 16-bit counts; no file at all after a failed write; every allocation of
 * a binary write failing in turn. */
#include "demo_test.h"
#include "ill_test.h"

#include <sys/stat.h>
#include <unistd.h>

/* -- Writing and loading sets of files ----------------------------------------- */

typedef struct file_list {
    int count;
    char path[24][512];
} file_list;

static void note_file(void *user, const char *path)
{
    file_list *f = user;
    assert_true(f->count < 24);
    snprintf(f->path[f->count++], sizeof f->path[0], "%s", path);
}

static ossa_option encoding(bool binary)
{
    ossa_option o = {"ill.encoding", binary ? "binary" : "text"};
    return o;
}

/* Writes `m` to `path` (its extension picks the format), text or binary;
 * *out lists the files in the order written. */
static void write_set(const ossa_model *m, const char *path, bool binary, file_list *out)
{
    ossa_option opt = encoding(binary);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format_options = &opt;
    o.num_format_options = 1;
    o.wrote = note_file;
    o.user = out;
    out->count = 0;
    ossa_error err;
    memset(&err, 0, sizeof err);
    if (ossa_write_file(m, path, &o, &err) != OSSA_OK) {
        char buf[600];
        fail_msg("write of %s failed: %s", path, ossa_error_format(&err, buf, sizeof buf));
    }
}

/* The files merged in the order written: mesh, skeleton, animations, and
 * last the .illanset. */
static ossa_model *load_set(const file_list *f)
{
    ossa_model *m = NULL;
    for (int i = 0; i < f->count; i++) {
        ossa_load_options o;
        memset(&o, 0, sizeof o);
        ossa_error err;
        ossa_model *one = ossa_load_file(f->path[i], &o, &err);
        if (!one) {
            char buf[600];
            fail_msg("load of %s failed: %s", f->path[i], ossa_error_format(&err, buf, sizeof buf));
        }
        m = m ? it_merge(m, one) : one;
    }
    return m;
}

static void remove_set(const file_list *f)
{
    for (int i = 0; i < f->count; i++) unlink(f->path[i]);
}

static unsigned char *write_memory(const ossa_model *m, ossa_format format, bool binary,
                                   size_t *size)
{
    ossa_option opt = encoding(binary);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.format_options = &opt;
    o.num_format_options = 1;
    return ts_write(m, &o, size);
}

/* -- Comparing models -------------------------------------------------------------- */

/* Vertex v's weight per joint (slot order and unused slots aside). */
static void joint_weights(const ossa_model *m, uint32_t v, double w[256])
{
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    memset(w, 0, 256 * sizeof *w);
    float idx[OSSA_MAX_COMPONENTS], wt[OSSA_MAX_COMPONENTS];
    ossa_vertex_array_read(m, bi, v, 1, idx);
    ossa_vertex_array_read(m, bw, v, 1, wt);
    for (uint32_t k = 0; k < bi->size && k < bw->size; k++) w[(int)idx[k] & 255] += wt[k];
}

/* Every array of `a` in `b`, equal bit for bit; blend data equal as a
 * weight per joint when `by_joint` (a writer puts the slots in joint
 * order). */
static void same_vertices(const ossa_model *a, const ossa_model *b, const char *what, bool by_joint)
{
    assert_int_equal(a->num_vertices, b->num_vertices);
    assert_int_equal(a->num_vertex_arrays, b->num_vertex_arrays);
    for (uint32_t i = 0; i < a->num_vertex_arrays; i++) {
        const ossa_vertex_array *x = &a->vertex_arrays[i];
        const ossa_vertex_array *y = ossa_model_find_array(b, x->type, x->name);
        if (!y) fail_msg("%s: no %s array", what, ossa_vertex_type_name(x->type));
        assert_int_equal(x->format, y->format);
        assert_int_equal(x->size, y->size);
        assert_string_equal(x->name ? x->name : "", y->name ? y->name : "");
        if (by_joint && (x->type == OSSA_VERTEX_BLENDINDEXES || x->type == OSSA_VERTEX_BLENDWEIGHTS)) {
            for (uint32_t v = 0; v < a->num_vertices; v++) {
                double wa[256], wb[256];
                joint_weights(a, v, wa);
                joint_weights(b, v, wb);
                if (memcmp(wa, wb, sizeof wa) != 0) fail_msg("%s: vertex %u's weights differ", what, v);
            }
            continue;
        }
        for (uint32_t v = 0; v < a->num_vertices; v++) {
            float p[OSSA_MAX_COMPONENTS], q[OSSA_MAX_COMPONENTS];
            ossa_vertex_array_read(a, x, v, 1, p);
            ossa_vertex_array_read(b, y, v, 1, q);
            if (memcmp(p, q, x->size * sizeof *p) != 0)
                fail_msg("%s: %s vertex %u differs (%.9g vs %.9g ...)", what,
                         ossa_vertex_type_name(x->type), v, (double)p[0], (double)q[0]);
        }
    }
}

/* Model-space matrices of animation `anim` sampled at `time` seconds by
 * the runtime, for both models: equal bit for bit. */
static void same_sampled(const ossa_model *a, const ossa_model *b, uint32_t anim, double time,
                         const char *what)
{
    ossa_error err;
    ossa_clip *ca = ossa_clip_create(a, anim, NULL, &err), *cb = ossa_clip_create(b, anim, NULL, &err);
    assert_non_null(ca);
    assert_non_null(cb);
    uint32_t n = a->num_joints;
    float(*ma)[16] = calloc((size_t)n + 1, sizeof *ma), (*mb)[16] = calloc((size_t)n + 1, sizeof *mb);
    assert_non_null(ma);
    assert_non_null(mb);
    ossa_sample_job ja;
    memset(&ja, 0, sizeof ja);
    ja.clip = ca;
    ja.time = time;
    ja.model = ma;
    ja.num_outputs = n;
    ossa_sample_job jb = ja;
    jb.clip = cb;
    jb.model = mb;
    assert_int_equal(ossa_sample_run(&ja, &err), OSSA_OK);
    assert_int_equal(ossa_sample_run(&jb, &err), OSSA_OK);
    if (memcmp(ma, mb, (size_t)n * sizeof *ma) != 0)
        fail_msg("%s: animation %u sampled at %g s differs", what, anim, time);
    free(ma);
    free(mb);
    ossa_clip_free(ca);
    ossa_clip_free(cb);
}

/* `channels`: compare them too (a binary file keys every channel of each
 * bone it animates, so one read from keys of some channels comes back
 * with all three). */
static void same_animations(const ossa_model *a, const ossa_model *b, const char *what,
                            bool channels)
{
    assert_int_equal(a->num_animations, b->num_animations);
    for (uint32_t i = 0; i < a->num_animations; i++) {
        const ossa_animation *x = &a->animations[i], *y = &b->animations[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->num_frames, y->num_frames);
        if (x->framerate != y->framerate)
            fail_msg("%s: animation %u at %.9g fps, %.9g fps", what, i, (double)x->framerate,
                     (double)y->framerate);
        assert_int_equal(x->flags, y->flags);
        size_t frames = (size_t)x->num_frames * a->num_joints;
        for (size_t k = 0; k < frames; k++)
            if (memcmp(&x->frames[k], &y->frames[k], sizeof x->frames[k]) != 0)
                fail_msg("%s: animation %u, frame %zu joint %zu differs", what, i,
                         k / a->num_joints, k % a->num_joints);
        /* no channels array: every joint moves in all three */
        for (uint32_t j = 0; j < a->num_joints && channels; j++)
            assert_int_equal(x->channels ? x->channels[j] : 7, y->channels ? y->channels[j] : 7);
        double d = x->num_frames / (double)x->framerate;
        static const double at[] = {0, 0.13, 0.5, 0.871, 0.999, 1.6};
        for (size_t t = 0; t < sizeof at / sizeof *at; t++) same_sampled(a, b, i, at[t] * d, what);
    }
}

/* Joints, bind poses, vertices, weights, triangles, meshes and animations
 * equal bit for bit (blend slots as same_vertices's by_joint). */
static void same_model(const ossa_model *a, const ossa_model *b, const char *what, bool by_joint)
{
    assert_int_equal(a->num_joints, b->num_joints);
    assert_int_equal(a->flags, b->flags);
    for (uint32_t j = 0; j < a->num_joints; j++) {
        assert_string_equal(a->joints[j].name, b->joints[j].name);
        assert_int_equal(a->joints[j].parent, b->joints[j].parent);
        if (memcmp(&a->joints[j].bind, &b->joints[j].bind, sizeof a->joints[j].bind) != 0)
            fail_msg("%s: joint %u's bind pose differs", what, j);
    }
    same_vertices(a, b, what, by_joint);
    assert_int_equal(a->num_triangles, b->num_triangles);
    if (a->num_triangles)
        assert_memory_equal(a->triangles, b->triangles, a->num_triangles * sizeof *a->triangles);
    assert_int_equal(a->num_meshes, b->num_meshes);
    for (uint32_t i = 0; i < a->num_meshes; i++) {
        assert_string_equal(a->meshes[i].name, b->meshes[i].name);
        assert_int_equal(a->meshes[i].num_vertices, b->meshes[i].num_vertices);
        assert_int_equal(a->meshes[i].num_triangles, b->meshes[i].num_triangles);
    }
    same_animations(a, b, what, true);
}

/* Writes `m` as text and as binary files of one stem (in two folders),
 * reads both sets back and compares them; returns how many files the
 * binary write made. */
static int text_equals_binary(const ossa_model *m, const char *name)
{
    char *dir = ts_tmp_path("ill_binary_write");
    mkdir(dir, 0777);
    char tdir[512], bdir[512], path[600];
    snprintf(tdir, sizeof tdir, "%s/text", dir);
    snprintf(bdir, sizeof bdir, "%s/binary", dir);
    mkdir(tdir, 0777);
    mkdir(bdir, 0777);
    file_list t, b;
    snprintf(path, sizeof path, "%s/m.illmesh", tdir);
    write_set(m, path, false, &t);
    snprintf(path, sizeof path, "%s/m.illmesh", bdir);
    write_set(m, path, true, &b);
    /* one .illanset more when there are joints to name */
    bool names = m->num_joints &&
                 (m->num_animations || !(m->flags & (OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_NAMES_ONLY)));
    assert_int_equal(b.count, t.count + (names ? 1 : 0));
    ossa_model *x = load_set(&t), *y = load_set(&b);
    same_model(x, y, name, false);
    assert_int_equal(ossa_model_validate(y, NULL, NULL, NULL), 0);
    ossa_model_free(x);
    ossa_model_free(y);
    remove_set(&t);
    remove_set(&b);
    rmdir(tdir);
    rmdir(bdir);
    rmdir(dir);
    free(dir);
    return b.count;
}

/* -- A small model by hand ----------------------------------------------------------- */

/* Two joints: "hips" at (1, 2, 3); "arm" under it at (0, 4, 0), turned
 * 180 degrees about z, scaled by 2. Three vertices with normals,
 * texcoords and blend data, one triangle, two frames at 10 fps. */
static ossa_model *hand_model(void)
{
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    ossa_error err;
    ossa_transform hips = ossa_transform_identity(), arm = ossa_transform_identity();
    hips.translation[0] = 1, hips.translation[1] = 2, hips.translation[2] = 3;
    arm.translation[1] = 4;
    arm.rotation[2] = 1, arm.rotation[3] = 0;
    arm.scale[0] = arm.scale[1] = arm.scale[2] = 2;
    assert_int_equal(ossa_model_add_joint(m, "hips", -1, &hips, &err), 0);
    assert_int_equal(ossa_model_add_joint(m, "arm", 0, &arm, &err), 1);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, &err), OSSA_OK);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const float uv[6] = {0, 0, 1, 0, 0.5f, 1};
    static const float idx[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    static const float wt[12] = {1, 0, 0, 0, 0.75f, 0.25f, 0, 0, 1, 0, 0, 0};
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv, &err));
    assert_non_null(ossa_model_add_vertex_array_floats(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4,
                                                       NULL, idx, &err));
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL, wt, &err));
    ossa_triangle tri = {{0, 1, 2}};
    assert_int_equal(ossa_model_set_triangles(m, 1, &tri, &err), OSSA_OK);
    assert_true(ossa_model_add_mesh(m, "m", "", 0, 3, 0, 1, &err) >= 0);
    /* named as reading m.illmesh and m.illanim names them */
    ossa_animation *a = ossa_model_add_animation(m, "m", 2, 10, OSSA_ANIMATION_LOOP, &err);
    assert_non_null(a);
    a->frames[2 + 0].translation[2] = 4; /* frame 1, hips: z 3 -> 4 */
    a->frames[2 + 1].translation[1] = 5; /* frame 1, arm: y 4 -> 5 */
    return m;
}

static void expect_bytes(const unsigned char *got, size_t n, const it_bytes *want, const char *what)
{
    if (n != want->n) fail_msg("%s: %zu bytes, expected %zu", what, n, want->n);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want->b[i])
            fail_msg("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i], want->b[i]);
}

/* The keys of one channel of the hand model's animation: frame k at k / 10
 * s (f32 of 0.1), values `v0` then `v1`. */
static void hand_channel(it_bytes *w, int width, const float *v0, const float *v1)
{
    it_u16(w, 2);
    it_f32(w, 0);
    it_f32s(w, v0, width);
    it_f32(w, 0.1f);
    it_f32s(w, v1, width);
}

static void test_bytes_by_hand(void **state)
{
    (void)state;
    ossa_model *m = hand_model();
    size_t n;
    it_bytes w;

    /* ILLMESH1: mask position 1 | normal 2 | texcoord 8 | blend 16 = 0x1b;
     * one group; per vertex position, normal, blend indices, weights,
     * texcoord (v0b); the triangle's last two corners swapped. */
    w.n = 0;
    it_raw(&w, "ILLMESH1", 8);
    it_u8(&w, 0x1b);
    it_u8(&w, 1);
    it_u32(&w, 3);
    it_u16(&w, 3);
    it_u8(&w, 3);
    it_u16(&w, 0);
    it_u16(&w, 3);
    static const float v0[16] = {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    /* slots in ascending joint order: joint 0 weight 0.25, joint 1 0.75 */
    static const float v1[16] = {1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0.25f, 0.75f, 0, 0, 1, 0};
    static const float v2[16] = {0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0.5f, 1};
    it_f32s(&w, v0, 16);
    it_f32s(&w, v1, 16);
    it_f32s(&w, v2, 16);
    it_u16(&w, 0);
    it_u16(&w, 2);
    it_u16(&w, 1);
    unsigned char *out = write_memory(m, OSSA_FORMAT_ILLMESH, true, &n);
    expect_bytes(out, n, &w, "ILLMESH1");
    ossa_free(out, NULL);

    /* ILLSKEL0: hips = T(1, 2, 3), offset T(-1, -2, -3); arm = T(0, 4, 0)
     * with the diagonal -2 -2 2; its world matrix T(1, 6, 3) diag(-2, -2,
     * 2), whose inverse is diag(-0.5, -0.5, 0.5) with translation
     * -(-0.5 * 1, -0.5 * 6, 0.5 * 3) = (0.5, 3, -1.5). Column-major. */
    w.n = 0;
    it_raw(&w, "ILLSKEL0", 8);
    it_u16(&w, 2);
    static const float hips[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
    static const float hips_off[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -2, -3, 1};
    static const float arm[16] = {-2, 0, 0, 0, 0, -2, 0, 0, 0, 0, 2, 0, 0, 4, 0, 1};
    static const float arm_off[16] = {-0.5f, 0, 0, 0, 0, -0.5f, 0, 0, 0, 0, 0.5f, 0, 0.5f, 3, -1.5f, 1};
    it_f32s(&w, hips, 16);
    it_f32s(&w, hips_off, 16);
    it_f32s(&w, arm, 16);
    it_f32s(&w, arm_off, 16);
    it_u16(&w, 0); /* the root names itself */
    it_u16(&w, 0);
    out = write_memory(m, OSSA_FORMAT_ILLSKEL, true, &n);
    expect_bytes(out, n, &w, "ILLSKEL0");
    ossa_free(out, NULL);

    /* ILLANIM0: 2 frames at 10 fps last 0.2 s; both bones, each with
     * position, rotation and scale keys at 0 and 0.1 s. */
    w.n = 0;
    it_raw(&w, "ILLANIM0", 8);
    it_f32(&w, 0.2f);
    it_u16(&w, 2);
    static const float one[3] = {1, 1, 1}, two[3] = {2, 2, 2}, id[4] = {0, 0, 0, 1}, rz[4] = {0, 0, 1, 0};
    static const float hp0[3] = {1, 2, 3}, hp1[3] = {1, 2, 4}, ap0[3] = {0, 4, 0}, ap1[3] = {0, 5, 0};
    it_u16(&w, 0);
    hand_channel(&w, 3, hp0, hp1);
    hand_channel(&w, 4, id, id);
    hand_channel(&w, 3, one, one);
    it_u16(&w, 1);
    hand_channel(&w, 3, ap0, ap1);
    hand_channel(&w, 4, rz, rz);
    hand_channel(&w, 3, two, two);
    /* then the name and loop flag in the IQM SDK's words, which the engine
     * does not read (text files keep them after the last frame too) */
    it_raw(&w, "ossa --loop --name m\n", 21);
    out = write_memory(m, OSSA_FORMAT_ILLANIM, true, &n);
    expect_bytes(out, n, &w, "ILLANIM0");
    ossa_free(out, NULL);

    /* ILANSET0 beside them: big-endian name lengths */
    char *dir = ts_tmp_path("ill_hand");
    mkdir(dir, 0777);
    char path[512];
    snprintf(path, sizeof path, "%s/m.illmesh", dir);
    file_list f;
    write_set(m, path, true, &f);
    assert_int_equal(f.count, 4);
    assert_non_null(strstr(f.path[3], ".illanset"));
    w.n = 0;
    it_raw(&w, "ILANSET0", 8);
    it_u16(&w, 2);
    it_u16be(&w, 4);
    it_raw(&w, "hips", 4);
    it_u16be(&w, 3);
    it_raw(&w, "arm", 3);
    out = ts_read_file(f.path[3], &n);
    assert_non_null(out);
    expect_bytes(out, n, &w, "ILANSET0");
    free(out);
    /* and the whole set reads back as the model */
    ossa_model *b = load_set(&f);
    same_model(m, b, "hand model", true);
    ossa_model_free(b);
    remove_set(&f);
    rmdir(dir);
    free(dir);
    ossa_model_free(m);
}

/* -- Text and binary files of one model ---------------------------------------------- */

static void test_demo_text_equals_binary(void **state)
{
    (void)state;
    ossa_model *m = dmt_model();
    assert_true(text_equals_binary(m, "demo") >= 4);
    ossa_model_free(m);
}

static void test_shared_text_equals_binary(void **state)
{
    (void)state;
    static const char *const files[] = {
        "iqm/guy.iqm",         "iqm/guyanim.iqm",     "iqe/test_cube.iqe",
        "gltf/SimpleSkin.gltf", "gltf/RiggedSimple.glb", "gltf/RiggedFigure.glb",
        "gltf/CesiumMan.glb",   "gltf/Fox.glb",        "gltf/greenman.glb",
        "gltf/robot.glb",       "md5/SimpleCube.md5mesh", "smd/holy_grailref.smd",
        "smd/triangle.smd",     "fbx/huesitos.fbx",    "obj/cube_with_vertexcolors.obj",
        "obj/concave_polygon.obj",
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        unsigned char *data;
        size_t size;
        ossa_model *m = ts_load_shared(files[i], &data, &size);
        free(data);
        int count = text_equals_binary(m, files[i]);
        printf("%-32s %d binary files, read back as their text\n", files[i], count);
        ossa_model_free(m);
    }
}

/* Doom 3 style sets: text with <MD5_Root> (the Rx(-90) folded into
 * origin), and binary with Rx(-90) on the root itself (§7, §10). Both
 * turn their mesh on reading; both writers turn it back. */
static void test_md5_sets(void **state)
{
    (void)state;
    const char *skel = "ILLSKEL0 3\n"
                       "1 0 0 1\n0 1 0 2\n0 0 1 30\n0 0 0 1\n\n"
                       "1 0 0 0\n0 0 1 0\n0 -1 0 0\n0 0 0 1\n\n"
                       "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n\n"
                       "1 2 -1 Body origin <MD5_Root>\n";
    const char *mesh = "ILLMESH0 1 1 0 0 1 0 3 3\n"
                       "1 2 30 0 0 1 0 0 0 0 1 0 0 0\n\n"
                       "5 0 0 1 0 0 1 0 0 0 1 0 0 0\n\n"
                       "0 0 0 0 1 0 0 1 0 0 0.5 0.5 0 0\n\n"
                       "0 1 2\n";
    const char *anim = "ILLANIM0 24 2 2\n"
                       "origin 0 0 0 0 0 0 1 1 1 1 2 0 0 0 0 0 1 1 1 1\n"
                       "Body 1 2 30 0 0 0 1 1 1 1 1 2 31 0 0 0 1 1 1 1\n";
    ossa_model *m = it_load(mesh, 0, "hero.illmesh");
    m = it_merge(m, it_load(skel, 0, "hero.illskel"));
    m = it_merge(m, it_load(anim, 0, "walk.illanim"));
    text_equals_binary(m, "text Doom 3 set");

    /* The binary form: <MD5_Root> = Rx(-90), <MD5_Hierarchy> identity,
     * origin and Body as above but without the turn (§7). */
    it_bytes sk;
    sk.n = 0;
    it_raw(&sk, "ILLSKEL0", 8);
    it_u16(&sk, 4);
    double mats[4][16] = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 30, 1},
                          {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
                          {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
                          {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1}};
    /* world matrices and their inverses: Body = Rx * T(1, 2, 30) */
    static const unsigned parents[4] = {1, 2, 3, 3};
    double world[4][16];
    for (int b = 3; b >= 0; b--)
        if (parents[b] == (unsigned)b)
            memcpy(world[b], mats[b], sizeof world[b]);
        else
            it_mat_mul(world[parents[b]], mats[b], world[b]);
    for (int b = 0; b < 4; b++) {
        float f[16];
        for (int k = 0; k < 16; k++) f[k] = (float)mats[b][k];
        it_f32s(&sk, f, 16);
        /* inverse of a rotation and translation: R^T, -R^T t */
        double inv[16] = {0};
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) inv[c * 4 + r] = world[b][r * 4 + c];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) inv[12 + r] -= inv[c * 4 + r] * world[b][12 + c];
        inv[15] = 1;
        for (int k = 0; k < 16; k++) f[k] = (float)inv[k];
        it_f32s(&sk, f, 16);
    }
    for (int b = 0; b < 4; b++) it_u16(&sk, parents[b]);
    it_bytes names;
    names.n = 0;
    it_raw(&names, "ILANSET0", 8);
    static const char *const nm[4] = {"Body", "origin", "<MD5_Hierarchy>", "<MD5_Root>"};
    it_u16(&names, 4);
    for (int b = 0; b < 4; b++) {
        it_u16be(&names, (unsigned)strlen(nm[b]));
        it_raw(&names, nm[b], strlen(nm[b]));
    }
    ossa_model *d = it_load(mesh, 0, "hero.illmesh");
    d = it_merge(d, it_load_bytes(sk.b, sk.n, 0, "hero.illskel"));
    d = it_merge(d, it_load_bytes(names.b, names.n, 0, "hero.illanset"));
    assert_int_equal(d->num_warnings, 0);
    /* turned on reading: (1, 2, 30) -> (1, 30, -2) */
    float v[4];
    it_vertex(d, OSSA_VERTEX_POSITION, NULL, 0, v);
    assert_true(v[0] == 1 && v[1] == 30 && v[2] == -2);
    text_equals_binary(d, "binary Doom 3 set");
    /* the binary mesh holds the raw vertex again: (1, 2, 30) at byte 21 */
    size_t n;
    unsigned char *out = write_memory(d, OSSA_FORMAT_ILLMESH, true, &n);
    assert_true(ts_lef32(out + 21) == 1 && ts_lef32(out + 25) == 2 && ts_lef32(out + 29) == 30);
    ossa_free(out, NULL);
    ossa_model_free(d);
    ossa_model_free(m);
}

/* An animation-only model (an .illanim read alone) stays one: no
 * skeleton, the animation and the names. */
static void test_animation_only(void **state)
{
    (void)state;
    ossa_model *m = it_load("ILLANIM0 10 3 2 hips 0 0 0 0 0 0 1 1 1 1 1 0 0 0 0 0 1 1 1 1 "
                            "2 0 0 0 0 0 1 1 1 1 tail 0 1 0 0 0 0 1 1 1 1 0 1 0 0 0 0 1 1 2 1 "
                            "0 1 0 0 0 0 1 1 3 1\n",
                            0, "w.illanim");
    assert_int_equal(text_equals_binary(m, "animation only"), 3); /* mesh, anim, names */
    ossa_model_free(m);
    /* one frame at 10 fps: resampled at 30 fps, 0.1 s would be 3 frames;
     * the second key at the duration keeps it one */
    m = it_load("ILLANIM0 10 1 1 hips 1 2 3 0 0 0 1 1 1 1\n", 0, "w.illanim");
    text_equals_binary(m, "one frame");
    size_t n;
    unsigned char *out = write_memory(m, OSSA_FORMAT_ILLANIM, true, &n);
    assert_true(ts_lef32(out + 8) == 0.1f);  /* duration */
    assert_int_equal(ts_le16(out + 16), 2); /* position keys */
    assert_true(ts_lef32(out + 18) == 0 && ts_lef32(out + 34) == 0.1f);
    assert_true(ts_lef32(out + 38) == 1 && ts_lef32(out + 46) == 3);
    ossa_free(out, NULL);
    ossa_model_free(m);
}

typedef struct notes {
    int count;
    char text[1024];
} notes;

static void note(void *user, const ossa_diagnostic *d)
{
    notes *w = user;
    size_t n = strlen(w->text);
    snprintf(w->text + n, sizeof w->text - n, "%s\n", d->message);
    w->count++;
}

/* A binary skeleton or animation written to memory is one file: its
 * names, which go to the .illanset beside it, are left out, and said so. */
static void test_names_left_out(void **state)
{
    (void)state;
    ossa_model *m = hand_model();
    static const ossa_format formats[] = {OSSA_FORMAT_ILLSKEL, OSSA_FORMAT_ILLANIM, OSSA_FORMAT_ILLMESH};
    for (int i = 0; i < 3; i++) {
        notes w = {0, ""};
        ossa_option opt = encoding(true);
        ossa_write_options o;
        memset(&o, 0, sizeof o);
        o.format = formats[i];
        o.format_options = &opt;
        o.num_format_options = 1;
        o.diagnostic = note;
        o.user = &w;
        size_t n;
        unsigned char *out = ts_write(m, &o, &n);
        ossa_free(out, NULL);
        if (i < 2)
            assert_non_null(strstr(w.text, "hold no joint names"));
        else
            assert_null(strstr(w.text, "joint names")); /* a mesh has none to lose */
    }
    ossa_model_free(m);
}

/* -- The reader's binary seeds written again ------------------------------------------ */

static unsigned char *seed(const char *name, size_t *size)
{
    const char *src = getenv("OSSA_TEST_SOURCE");
    char path[1024];
    snprintf(path, sizeof path, "%s/../fuzz/corpus/ill_binary/%s", src ? src : "tests", name);
    unsigned char *data = ts_read_file(path, size);
    if (!data) fail_msg("cannot read %s", path);
    return data;
}

static ossa_model *load_named(const void *data, size_t size, const char *name)
{
    ossa_error err;
    ossa_model *m = it_try(data, size, NULL, 0, name, &err);
    if (!m) fail_msg("%s: %s", name, err.message);
    return m;
}

static void test_seeds_written_again(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        ossa_format format;
    } seeds[] = {{"mesh0.illmesh", OSSA_FORMAT_ILLMESH},
                 {"groups.illmesh", OSSA_FORMAT_ILLMESH},
                 {"md5.illskel", OSSA_FORMAT_ILLSKEL},
                 {"run.illanim", OSSA_FORMAT_ILLANIM}};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        size_t size, n;
        unsigned char *data = seed(seeds[i].name, &size);
        ossa_model *a = load_named(data, size, seeds[i].name);
        unsigned char *out = write_memory(a, seeds[i].format, true, &n);
        ossa_model *b = load_named(out, n, seeds[i].name);
        assert_int_equal(b->num_joints, a->num_joints);
        for (uint32_t j = 0; j < a->num_joints; j++) {
            assert_int_equal(a->joints[j].parent, b->joints[j].parent);
            float ma[16], mb[16];
            ossa_transform_to_matrix(&a->joints[j].bind, ma);
            ossa_transform_to_matrix(&b->joints[j].bind, mb);
            for (int k = 0; k < 16; k++) IT_NEAR(ma[k], mb[k], 1e-6);
        }
        if (seeds[i].format == OSSA_FORMAT_ILLMESH) {
            same_vertices(a, b, seeds[i].name, false);
            assert_int_equal(a->num_triangles, b->num_triangles);
            assert_memory_equal(a->triangles, b->triangles, a->num_triangles * sizeof *a->triangles);
        }
        if (seeds[i].format == OSSA_FORMAT_ILLANIM) {
            same_animations(a, b, seeds[i].name, false);
            for (uint32_t j = 0; j < b->num_joints; j++) assert_int_equal(b->animations[0].channels[j], 7);
            /* bones 3 and 1 of the file keep their numbers */
            static const uint32_t bones[2] = {3, 1};
            bool numbered = false;
            for (uint32_t k = 0; k < b->num_extras; k++)
                if (strcmp(b->extras[k].key, OSSA_EXTRA_JOINT_INDEX) == 0) {
                    assert_int_equal(b->extras[k].size, sizeof bones);
                    assert_memory_equal(b->extras[k].data, bones, sizeof bones);
                    numbered = true;
                }
            assert_true(numbered);
            assert_true(ts_le16(out + 14) == 3); /* the first track's bone */
        }
        if (strcmp(seeds[i].name, "mesh0.illmesh") == 0) {
            /* the same vertex and index bytes: 15 bytes of ILLMESH0 header,
             * 21 of ILLMESH1 (mask, groups, counts, one group) */
            assert_int_equal(n - 21, size - 15);
            assert_memory_equal(out + 21, data + 15, size - 15);
        }
        if (strcmp(seeds[i].name, "md5.illskel") == 0) {
            /* the Rx(-90) root is written as read: the correction is kept */
            bool fix = false;
            for (uint32_t k = 0; k < b->num_extras; k++)
                fix |= strcmp(b->extras[k].key, OSSA_EXTRA_MESH_TO_BIND) == 0;
            assert_true(fix);
        }
        ossa_model_free(a);
        ossa_model_free(b);
        ossa_free(out, NULL);
        free(data);
    }
}

/* -- Keys on a frame grid --------------------------------------------------------------- */

/* Keyed files read without a rate asked for: keys that lie on one frame
 * grid give those frames (docs/formats/ill.md §8), as the engine's MD5
 * conversions (keys at k / 24 s, duration (N - 1) / 24) and ossa's
 * binary files have them; other keys are resampled at 30 fps. */
static void test_keyed_grid(void **state)
{
    (void)state;
    const char *md5 = "ILLANIM1 0.125 1 a\n"
                      "4 0 0 0 0 0.0416667 1 0 0 0.0833333 3 0 0 0.125 0 0 0\n"
                      "1 0 0 0 0 1\n1 0 1 1 1\n";
    ossa_model *m = it_load(md5, 0, "k.illanim");
    const ossa_animation *a = &m->animations[0];
    assert_int_equal(a->num_frames, 3);
    assert_true(a->framerate == 24); /* 3 / 0.125 */
    static const double x[3] = {0, 1, 3};
    for (int f = 0; f < 3; f++) IT_NEAR(a->frames[f].translation[0], x[f], 1e-5);
    ossa_model_free(m);
    /* a rate asked for wins: 0.125 s at 48 fps */
    ossa_error err;
    m = it_try(md5, strlen(md5), NULL, 48, "k.illanim", &err);
    assert_non_null(m);
    assert_int_equal(m->animations[0].num_frames, 6);
    IT_NEAR(m->animations[0].frames[1].translation[0], 0.5, 1e-5);
    ossa_model_free(m);
    /* 0.1 s is no whole number of the 0.125 s steps of 0, 0.125, 0.25 */
    m = it_load("ILLANIM1 1 1 a 3 0 0 0 0 0.1 1 0 0 0.25 2 0 0 0 0\n", 0, "k.illanim");
    assert_int_equal(m->animations[0].num_frames, 30);
    assert_true(m->animations[0].framerate == 30);
    ossa_model_free(m);
    /* 0, 0.125, 0.25 on their own: 8 frames of 0.125 s, 0.375 s to 1 s
     * running from the last key back to the first */
    m = it_load("ILLANIM1 1 1 a 3 0 0 0 0 0.125 1 0 0 0.25 2 0 0 0 0\n", 0, "k.illanim");
    a = &m->animations[0];
    assert_int_equal(a->num_frames, 8);
    assert_true(a->framerate == 8);
    for (int f = 0; f < 3; f++) assert_true(a->frames[f].translation[0] == f);
    for (int f = 3; f < 8; f++) IT_NEAR(a->frames[f].translation[0], 2 - 2 * (f * 0.125 - 0.25) / 0.75, 1e-6);
    ossa_model_free(m);
}

/* -- Limits and errors -------------------------------------------------------------------- */

static void expect_refused(const ossa_model *m, ossa_format format, const char *needle)
{
    ossa_option opt = encoding(true);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.format_options = &opt;
    o.num_format_options = 1;
    void *data = NULL;
    size_t size;
    ossa_error err;
    memset(&err, 0, sizeof err);
    if (ossa_write_memory(m, &o, &data, &size, &err) == OSSA_OK) {
        ossa_free(data, NULL);
        fail_msg("the write should fail with '%s'", needle);
    }
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    if (!strstr(err.message, needle)) fail_msg("'%s' does not say '%s'", err.message, needle);
}

static void test_limits(void **state)
{
    (void)state;
    ossa_error err;
    /* 21845 triangles are 65535 indices: written; one more is refused */
    ossa_model *m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, 3, &err), OSSA_OK);
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    assert_non_null(ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos, &err));
    ossa_triangle *tris = calloc(21846, sizeof *tris);
    assert_non_null(tris);
    for (int t = 0; t < 21846; t++) tris[t].v[1] = 1, tris[t].v[2] = 2;
    assert_int_equal(ossa_model_set_triangles(m, 21845, tris, &err), OSSA_OK);
    size_t n;
    unsigned char *out = write_memory(m, OSSA_FORMAT_ILLMESH, true, &n);
    assert_int_equal(ts_le16(out + 14), 65535);
    assert_int_equal(n, 21 + 3 * 12 + 65535 * 2);
    ossa_free(out, NULL);
    assert_int_equal(ossa_model_set_triangles(m, 21846, tris, &err), OSSA_OK);
    expect_refused(m, OSSA_FORMAT_ILLMESH, "21846 triangles need 65538 indices");
    free(tris);
    ossa_model_free(m);

    /* vertex 65535 is the last a 16-bit index reaches */
    m = ossa_model_create(NULL);
    assert_int_equal(ossa_model_set_num_vertices(m, 65537, &err), OSSA_OK);
    ossa_triangle t = {{0, 65535, 1}};
    assert_int_equal(ossa_model_set_triangles(m, 1, &t, &err), OSSA_OK);
    out = write_memory(m, OSSA_FORMAT_ILLMESH, true, &n);
    assert_int_equal(ts_le32(out + 10), 65537);
    ossa_free(out, NULL);
    t.v[2] = 65536;
    assert_int_equal(ossa_model_set_triangles(m, 1, &t, &err), OSSA_OK);
    expect_refused(m, OSSA_FORMAT_ILLMESH, "uses vertex 65536");
    ossa_model_free(m);

    /* 65535 joints at most */
    m = ossa_model_create(NULL);
    for (uint32_t j = 0; j < 65536; j++) assert_true(ossa_model_add_joint(m, "", -1, NULL, &err) >= 0);
    expect_refused(m, OSSA_FORMAT_ILLSKEL, "65536 joints");
    ossa_model_free(m);

    /* 65535 keys per channel at most; a name of 65536 bytes is refused */
    m = ossa_model_create(NULL);
    char *name = malloc(65537);
    assert_non_null(name);
    memset(name, 'a', 65536);
    name[65536] = 0;
    assert_int_equal(ossa_model_add_joint(m, name, -1, NULL, &err), 0);
    free(name);
    assert_non_null(ossa_model_add_animation(m, "long", 65536, 30, 0, &err));
    expect_refused(m, OSSA_FORMAT_ILLANIM, "65536 frames");
    ossa_option opt = encoding(true);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format_options = &opt;
    o.num_format_options = 1;
    char *path = ts_tmp_path("ill_long_name.illskel");
    unlink(path);
    assert_int_equal(ossa_write_file(m, path, &o, &err), OSSA_FAILED);
    assert_non_null(strstr(err.message, "65536 bytes"));
    assert_int_equal(access(path, F_OK), -1);
    free(path);
    ossa_model_free(m);

    /* values that are not finite, named by where they are */
    m = hand_model();
    m->joints[1].bind.translation[0] = NAN;
    expect_refused(m, OSSA_FORMAT_ILLSKEL, "joint 1");
    ossa_model_free(m);
    m = hand_model();
    m->animations[0].frames[3].rotation[0] = INFINITY;
    expect_refused(m, OSSA_FORMAT_ILLANIM, "joint 1");
    ossa_model_free(m);
}

/* A write that fails leaves no file: not the mesh, not the skeleton, not
 * the names, and an older file of that name is untouched. */
static void test_no_partial_files(void **state)
{
    (void)state;
    ossa_model *m = hand_model();
    m->animations[0].frames[2].scale[1] = NAN; /* the animation, written after mesh and skeleton */
    char *stem = ts_tmp_path("ill_partial");
    static const char *const ext[] = {".illmesh", ".illskel", ".illanim", ".illanset"};
    char path[4][512];
    for (int i = 0; i < 4; i++) {
        snprintf(path[i], sizeof path[i], "%s%s", stem, ext[i]);
        unlink(path[i]);
    }
    FILE *f = fopen(path[1], "wb");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    ossa_option opt = encoding(true);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format_options = &opt;
    o.num_format_options = 1;
    ossa_error err;
    assert_int_equal(ossa_write_file(m, path[0], &o, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_UNSUPPORTED);
    assert_int_equal(access(path[0], F_OK), -1);
    assert_int_equal(access(path[2], F_OK), -1);
    assert_int_equal(access(path[3], F_OK), -1);
    size_t n;
    unsigned char *old = ts_read_file(path[1], &n);
    assert_non_null(old);
    assert_int_equal(n, 3);
    assert_memory_equal(old, "old", 3);
    free(old);
    unlink(path[1]);
    free(stem);
    ossa_model_free(m);
}

/* -- Every allocation failing ---------------------------------------------------------- */

typedef struct captured {
    unsigned char *data;
    size_t size;
} captured;

static ossa_status capture(void *user, const ossa_output_file *files, size_t count, ossa_error *error)
{
    (void)error;
    captured *c = user;
    for (size_t i = 0; i < count; i++) {
        size_t name = strlen(files[i].path) + 1;
        unsigned char *p = realloc(c->data, c->size + name + files[i].size);
        assert_non_null(p);
        memcpy(p + c->size, files[i].path, name);
        if (files[i].size) memcpy(p + c->size + name, files[i].data, files[i].size);
        c->data = p;
        c->size += name + files[i].size;
    }
    return OSSA_OK;
}

/* One binary write of the hand model (memory for one format, else every
 * file of a .illmesh through an output callback) through `a`. */
static ossa_status sweep_write(ts_alloc *a, ossa_format format, captured *c, ossa_error *err)
{
    ossa_option opt = encoding(true);
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    o.format = format;
    o.format_options = &opt;
    o.num_format_options = 1;
    o.allocator = &a->allocator;
    ossa_model *m = hand_model();
    ossa_status st;
    if (format == OSSA_FORMAT_AUTO) {
        o.output = capture;
        o.user = c;
        st = ossa_write_file(m, "sweep.illmesh", &o, err);
    } else {
        void *data;
        size_t size;
        st = ossa_write_memory(m, &o, &data, &size, err);
        if (!st) {
            captured one = {NULL, 0};
            ossa_output_file file = {"", data, size};
            capture(&one, &file, 1, err);
            *c = one;
            ossa_free(data, &a->allocator);
        }
    }
    ossa_model_free(m);
    return st;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    static const ossa_format formats[] = {OSSA_FORMAT_ILLMESH, OSSA_FORMAT_ILLSKEL,
                                          OSSA_FORMAT_ILLANIM, OSSA_FORMAT_AUTO};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        ts_alloc good;
        ts_alloc_init(&good, -1, false);
        captured ref = {NULL, 0};
        ossa_error err;
        assert_int_equal(sweep_write(&good, formats[i], &ref, &err), OSSA_OK);
        assert_int_equal(good.live, 0);
        assert_true(good.calls > 0);
        for (int sticky = 0; sticky < 2; sticky++)
            for (long k = 0; k < good.calls; k++) {
                ts_alloc a;
                ts_alloc_init(&a, k, sticky);
                captured got = {NULL, 0};
                memset(&err, 0, sizeof err);
                if (sweep_write(&a, formats[i], &got, &err)) {
                    assert_int_equal(err.code, OSSA_ERROR_NOMEM);
                    assert_true(a.failures > 0);
                    assert_null(got.data);
                } else {
                    assert_int_equal(got.size, ref.size);
                    assert_memory_equal(got.data, ref.data, ref.size);
                }
                free(got.data);
                assert_int_equal(a.live, 0);
                assert_int_equal(a.bad_frees, 0);
            }
        free(ref.data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_by_hand),
        cmocka_unit_test(test_demo_text_equals_binary),
        cmocka_unit_test(test_shared_text_equals_binary),
        cmocka_unit_test(test_md5_sets),
        cmocka_unit_test(test_animation_only),
        cmocka_unit_test(test_names_left_out),
        cmocka_unit_test(test_seeds_written_again),
        cmocka_unit_test(test_keyed_grid),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_no_partial_files),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
