/* glTF 2.0 reader features on small hand-made files: strips and fans,
 * attribute sets, sparse accessors and normalized integers, STEP and
 * CUBICSPLINE, matrices, folded ancestors, rigid meshes, external buffers,
 * and the limits that keep decoded sizes in proportion to the file. */
#include "gltf_test.h"

/* Strip and fan: triangles and their (reversed) winding. */
static void strips_and_fans(void **state)
{
    (void)state;
    float pos[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
    char body[1024];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":60}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":5,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[2,1,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"mode\":5},"
             "{\"attributes\":{\"POSITION\":0},\"mode\":6},{\"attributes\":{\"POSITION\":0},\"mode\":1}]}],"
             "\"nodes\":[{\"mesh\":0}],\"scenes\":[{\"nodes\":[0]}]");
    char *json = gt_make_gltf(pos, sizeof pos, body);
    ossa_model *m = gt_load_json(json);
    /* strip of 5: 3 triangles; fan of 5: 3; lines skipped with a warning */
    assert_int_equal(m->num_meshes, 2);
    assert_int_equal(m->num_triangles, 6);
    assert_true(m->num_warnings >= 1);
    /* strip triangle 1 is (v2, v1, v3) in glTF order; reversed (v2, v3, v1) */
    assert_int_equal(m->triangles[1].v[0], 2);
    assert_int_equal(m->triangles[1].v[1], 3);
    assert_int_equal(m->triangles[1].v[2], 1);
    /* fan triangle 0 is (v1, v2, v0): reversed (v1, v0, v2); second
     * primitive's vertices start at 5 */
    assert_int_equal(m->triangles[3].v[0], 5 + 1);
    assert_int_equal(m->triangles[3].v[1], 5 + 0);
    assert_int_equal(m->triangles[3].v[2], 5 + 2);
    /* positions turned to Z up: glTF (0, 1, 0) is ossa (0, 0, 1) */
    const float *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)->data;
    assert_true(p[2 * 3 + 2] == 1 && p[2 * 3 + 1] == 0);
    ossa_model_free(m);
    free(json);
}

/* TEXCOORD_n and COLOR_n with n beyond the sets the reader keeps (0..7)
 * are skipped with a warning; they must not land in other sets. */
static void attribute_set_limit(void **state)
{
    (void)state;
    float pos[3 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    unsigned char bin[36 + 24];
    memcpy(bin, pos, 36);
    memset(bin + 36, 0, 24);
    for (int k = 0; k < 2; k++) {
        char body[1024];
        snprintf(body, sizeof body,
                 "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
                 "\"byteLength\":24}],"
                 "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
                 "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"}],"
                 "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"%s\":1}}]}],"
                 "\"nodes\":[{\"mesh\":0}]",
                 k ? "COLOR_9" : "TEXCOORD_9");
        char *json = gt_make_gltf(bin, sizeof bin, body);
        ossa_model *m = gt_load_json(json);
        assert_int_equal(m->num_vertex_arrays, 1); /* positions only */
        assert_true(m->num_warnings >= 1);
        ossa_model_free(m);
        free(json);
    }
}

/* Sparse accessors, normalized ubyte texcoords, short colours. */
static void accessor_kinds(void **state)
{
    (void)state;
    unsigned char bin[128];
    memset(bin, 0, sizeof bin);
    float *pos = (float *)(void *)bin; /* 3 vertices at 0..35 */
    pos[3] = 1, pos[7] = 1;
    /* sparse: indices (ubyte) at 36, values (vec3 float) at 40 */
    bin[36] = 2;
    float v[3] = {5, 6, 7};
    memcpy(bin + 40, v, 12);
    /* texcoords ubyte normalized at 52 (stride 4) */
    bin[52] = 255, bin[53] = 0, bin[56] = 128, bin[57] = 64, bin[60] = 0, bin[61] = 255;
    char body[2048];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
             "\"byteLength\":1},{\"buffer\":0,\"byteOffset\":40,\"byteLength\":12},"
             "{\"buffer\":0,\"byteOffset\":52,\"byteLength\":12,\"byteStride\":4}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":1,\"componentType\":5121},"
             "\"values\":{\"bufferView\":2}}},"
             "{\"bufferView\":3,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":\"VEC2\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1}}]}],"
             "\"nodes\":[{\"mesh\":0}]");
    char *json = gt_make_gltf(bin, sizeof bin, body);
    ossa_model *m = gt_load_json(json);
    const ossa_vertex_array *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const float *pf = p->data;
    /* vertex 2 replaced by (5, 6, 7), in ossa axes (5, -7, 6) */
    assert_true(pf[6] == 5 && pf[7] == -7 && pf[8] == 6);
    const ossa_vertex_array *uv = ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL);
    assert_int_equal(uv->format, OSSA_UBYTE);
    assert_int_equal(((const uint8_t *)uv->data)[2], 128);
    assert_int_equal(m->num_triangles, 1);
    ossa_model_free(m);
    free(json);
}

/* One joint under a non-joint "Z_UP"-style node, a node matrix, STEP and
 * CUBICSPLINE samplers and keys that are not evenly spaced. */
static void animation_sampling(void **state)
{
    (void)state;
    unsigned char bin[256];
    memset(bin, 0, sizeof bin);
    float *f = (float *)(void *)bin;
    /* inputs: [0, 0.5, 1] at 0; [0, 0.25, 0.913] at 12: on no grid (0.913 s
     * is 913 thousandths: no whole rate up to 240 fps reaches it) */
    f[0] = 0, f[1] = 0.5f, f[2] = 1;
    f[3] = 0, f[4] = 0.25f, f[5] = 0.913f;
    /* STEP translation outputs at 24: x = 1, 2, 3 */
    float step[9] = {1, 0, 0, 2, 0, 0, 3, 0, 0};
    memcpy(bin + 24, step, sizeof step);
    /* CUBICSPLINE scale outputs at 60: 3 keys x (in, value, out) x vec3, zero tangents */
    float cub[27] = {0};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++) cub[k * 9 + 3 + c] = 1.0f + (float)k;
    memcpy(bin + 60, cub, sizeof cub);
    char body[4096];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24},{\"buffer\":0,\"byteOffset\":24,"
             "\"byteLength\":36},{\"buffer\":0,\"byteOffset\":60,\"byteLength\":108}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
             "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":9,\"type\":\"VEC3\"}],"
             "\"nodes\":[{\"name\":\"Z_UP\",\"matrix\":[1,0,0,0, 0,0,-1,0, 0,1,0,0, 0,0,0,1],"
             "\"children\":[1]},{\"name\":\"bone\"}],"
             "\"skins\":[{\"joints\":[1]}],"
             "\"animations\":[{\"name\":\"a\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,"
             "\"path\":\"translation\"}},{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"scale\"}}],"
             "\"samplers\":[{\"input\":0,\"output\":2,\"interpolation\":\"STEP\"},"
             "{\"input\":1,\"output\":3,\"interpolation\":\"CUBICSPLINE\"}]}]");
    char *json = gt_make_gltf(bin, sizeof bin, body);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_GLTF;
    o.framerate = 8; /* uneven keys: resampled at 8 fps, 1 s: 9 frames */
    ossa_error err;
    ossa_model *m = ossa_load_memory(json, strlen(json), &o, &err);
    assert_non_null(m);
    assert_int_equal(m->num_joints, 1);
    assert_string_equal(m->joints[0].name, "bone");
    const ossa_animation *an = &m->animations[0];
    assert_true(an->framerate == 8);
    assert_int_equal(an->num_frames, 9);
    assert_non_null(strstr(an->sampling, "uneven keys: sampled at 8 fps (the load rate 8 fps"));
    /* Z_UP (glTF +Z -> +Y... a rotation of +90 about X) folds into the
     * joint; STEP at t = 0.375 holds key 0 (x = 1), at 0.5 key 1 */
    float mat[16];
    ossa_transform_to_matrix(&an->frames[3], mat);
    TS_ASSERT_NEAR(mat[12], 1, 1e-6);
    ossa_transform_to_matrix(&an->frames[4], mat);
    TS_ASSERT_NEAR(mat[12], 2, 1e-6);
    /* CUBICSPLINE with zero tangents between 1 (t=0) and 2 (t=0.25): at
     * t = 0.125 (frame 1) the Hermite midpoint 1.5 */
    TS_ASSERT_NEAR(an->frames[1].scale[0], 1.5, 1e-6);
    TS_ASSERT_NEAR(an->frames[2].scale[0], 2, 1e-6); /* exactly on key 1 */
    ossa_model_free(m);
    free(json);
}

/* -- Frames for keys (docs/formats/gltf.md §4) -- */

/* One node "bone" whose x translation is keyed at `times` (3 keys) with
 * `nv` VEC3 outputs, by `interp`. */
static ossa_model *keyed_bone(const float times[3], const float *values, uint32_t nv,
                              const char *interp)
{
    float bin[3 + 27];
    memcpy(bin, times, 3 * sizeof *bin);
    memcpy(bin + 3, values, nv * 3 * sizeof *bin);
    char body[2048];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":12,"
             "\"byteLength\":%u}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"}],"
             "\"nodes\":[{\"name\":\"bone\"}],"
             "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
             "\"path\":\"translation\"}}],\"samplers\":[{\"input\":0,\"output\":1,"
             "\"interpolation\":\"%s\"}]}]",
             nv * 12, nv, interp);
    char *json = gt_make_gltf(bin, (3 + nv * 3) * sizeof(float), body);
    ossa_model *m = gt_load_json(json);
    free(json);
    return m;
}

/* The kink of the second case: x = 2t up to 0.5 s, then 1. */
static double kink(double t) { return t < 0.5 ? 2 * t : 1; }

/* The largest distance from kink() of frames n (over 0.913 s, sampled from
 * kink() itself) interpolated linearly, at every 1e-5 s and at the kink. */
static double kink_error(uint32_t n)
{
    double r = (n - 1) / 0.913, worst = 0;
    for (uint32_t i = 0; i <= 91301; i++) {
        double t = i < 91301 ? i * 1e-5 : 0.5, p = t * r;
        uint32_t f0 = (uint32_t)p < n - 2 ? (uint32_t)p : n - 2;
        double u = p - f0, a = kink(f0 / r), b = kink((f0 + 1) / r);
        worst = fmax(worst, fabs(kink(t) - (a + (b - a) * u)));
    }
    return worst;
}

/* Keys on no grid: the lowest rate whose frames stay within 1e-4 of the
 * model's size (1: one joint at the origin) of the curves, the last frame
 * on the last key; CUBICSPLINE keys on a grid: the lowest multiple of it
 * that does. */
static void sampling_rates(void **state)
{
    (void)state;
    /* keys on one line, at 0, 0.4137 and 0.913 s: any frames follow it,
     * so the fewest: 2, 0.913 s apart */
    const float uneven[3] = {0, 0.4137f, 0.913f};
    float line[9] = {0, 0, 0, 2 * 0.4137f, 0, 0, 2 * 0.913f, 0, 0};
    ossa_model *m = keyed_bone(uneven, line, 3, "LINEAR");
    const ossa_animation *a = &m->animations[0];
    assert_int_equal(a->num_frames, 2);
    TS_ASSERT_NEAR((a->num_frames - 1) / a->framerate, 0.913, 1e-7);
    assert_non_null(strstr(a->sampling, "uneven keys: sampled at "));
    assert_non_null(strstr(a->sampling, ", within 1e-4 of the model's size"));
    ossa_model_free(m);
    /* a kink at 0.5 s, the last key at 0.913 s: the frames must put one
     * within 5e-5 s of the kink; 43 frames (0.5 s is 21.0003 frames in)
     * are the fewest that do, and every count from 2 to 42 is off by more
     * than 1e-4 (worked out here from the curve alone) */
    const float kinked[3] = {0, 0.5f, 0.913f};
    float xs[9] = {0, 0, 0, 1, 0, 0, 1, 0, 0};
    m = keyed_bone(kinked, xs, 3, "LINEAR");
    a = &m->animations[0];
    assert_int_equal(a->num_frames, 43);
    TS_ASSERT_NEAR((a->num_frames - 1) / a->framerate, 0.913, 1e-7);
    assert_string_equal(a->sampling, "uneven keys: sampled at 46 fps, within 1e-4 of the model's size");
    assert_true(kink_error(43) <= 1e-4);
    for (uint32_t n = 2; n < 43; n++)
        if (kink_error(n) <= 1e-4) fail_msg("%u frames would do", n);
    /* the frames are the curve's */
    for (uint32_t f = 0; f < a->num_frames; f++)
        TS_ASSERT_NEAR(a->frames[f].translation[0], kink(f / (a->framerate + 0.0)), 1e-6);
    ossa_model_free(m);
    /* CUBICSPLINE bumps 0 -> 1 -> 0 keyed at 2 fps, flat tangents: the
     * chord misses the curve by 3 h^2 at most (x'' is 24 at the keys), so
     * h must be at most about 1 / 174 s: the lowest multiple of 2 fps
     * that meets 1e-4 is 174 fps (172 fps: 1.0023e-4) */
    const float grid[3] = {0, 0.5f, 1};
    float cubic[27] = {0};
    cubic[3 * 3 + 3] = 1; /* key 1's x: keys are (in-tangent, value, out-tangent) */
    m = keyed_bone(grid, cubic, 9, "CUBICSPLINE");
    a = &m->animations[0];
    assert_int_equal(a->num_frames, 175);
    assert_true(a->framerate == 174);
    assert_string_equal(a->sampling, "keys at 2 fps, sampled at 174 fps to follow the curves within "
                                     "1e-4 of the model's size");
    ossa_model_free(m);
}

/* Inverse bind matrices that disagree with the nodes: the bind pose
 * follows the skin, the rest pose the nodes, and the model keeps both
 * without a warning (nothing is lost). Joints whose matrices agree rest
 * in their bind pose. */
static void rest_and_bind_poses(void **state)
{
    (void)state;
    /* joint 0 bound 1 below its node (world (0, -1, 0): IBM translates by
     * +1 in y), joint 1 agrees with its node: at (1, 0, 0) below joint 0 */
    float ibm[2 * 16];
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 16; k++) ibm[j * 16 + k] = k % 5 == 0 ? 1.0f : 0.0f;
    ibm[13] = 1;
    ibm[16 + 12] = -1, ibm[16 + 13] = 1;
    char *json = gt_make_gltf(ibm, sizeof ibm,
                              "\"bufferViews\":[{\"buffer\":0,\"byteLength\":128}],"
                              "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,"
                              "\"type\":\"MAT4\"}],"
                              "\"nodes\":[{\"name\":\"hip\",\"children\":[1]},"
                              "{\"name\":\"knee\",\"translation\":[1,0,0]}],"
                              "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":0}]");
    ossa_model *m = gt_load_json(json);
    assert_int_equal(m->num_joints, 2);
    assert_int_equal(m->num_warnings, 0);
    assert_non_null(m->rest_pose);
    /* glTF (0, -1, 0) is ossa (0, 0, -1): the hip is bound there, rests at 0 */
    assert_true(m->joints[0].bind.translation[0] == 0 && m->joints[0].bind.translation[1] == 0 &&
                m->joints[0].bind.translation[2] == -1);
    for (int c = 0; c < 3; c++) assert_true(m->rest_pose[0].translation[c] == 0);
    /* the knee: (1, 0, 0) in both */
    assert_memory_equal(&m->rest_pose[1], &m->joints[1].bind, sizeof m->rest_pose[1]);
    assert_true(m->joints[1].bind.translation[0] == 1);
    /* at rest (ossa pose and the renderer's default): the nodes' pose */
    float (*rest)[16] = malloc(2 * sizeof *rest);
    ossa_local_to_model(m, m->rest_pose, rest);
    assert_true(rest[1][12] == 1 && rest[1][13] == 0 && rest[1][14] == 0);
    free(rest);
    ossa_model_free(m);
    free(json);
    /* a skin that agrees with its nodes: no rest pose */
    ibm[13] = 0, ibm[16 + 13] = 0;
    json = gt_make_gltf(ibm, sizeof ibm,
                        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":128}],"
                        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,"
                        "\"type\":\"MAT4\"}],\"nodes\":[{\"name\":\"a\",\"children\":[1]},"
                        "{\"name\":\"b\",\"translation\":[1,0,0]}],"
                        "\"skins\":[{\"joints\":[0,1],\"inverseBindMatrices\":0}]");
    m = gt_load_json(json);
    assert_null(m->rest_pose);
    ossa_model_free(m);
    free(json);
}

/* An unskinned mesh under a joint is bound to it rigidly, in world space. */
static void rigid_mesh(void **state)
{
    (void)state;
    float pos[11] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1}; /* 3 positions, 2 key times */
    char body[2048];
    snprintf(body, sizeof body,
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
             "\"byteLength\":8}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
             "{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
             "\"nodes\":[{\"name\":\"arm\",\"translation\":[0,0,5],\"children\":[1]},"
             "{\"name\":\"sword\",\"mesh\":0,\"translation\":[1,0,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
             "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}],"
             "\"samplers\":[{\"input\":1,\"output\":2}]}]");
    char *json = gt_make_gltf(pos, sizeof pos, body);
    ossa_model *m = gt_load_json(json);
    assert_int_equal(m->num_joints, 1); /* the animated node */
    const ossa_vertex_array *w = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    assert_non_null(w);
    float wt[4];
    ossa_vertex_array_read(m, w, 0, 1, wt);
    TS_ASSERT_NEAR(wt[0], 1, 0);
    /* vertex 1 at glTF (0+1+1, 0, 5) = (2, 0, 5) -> ossa (2, -5, 0) */
    const float *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)->data;
    assert_true(p[3] == 2 && p[4] == -5 && p[5] == 0);
    ossa_model_free(m);
    free(json);
}

/* Where vertex v of `m` is drawn in frame f of animation 0 (or at rest,
 * f < 0): skinned by its joints' pose * inverse(bind), as every player does. */
static void drawn_at(const ossa_model *m, int f, uint32_t v, float out[3])
{
    uint32_t J = m->num_joints;
    float (*pose)[16] = malloc(J * sizeof *pose), (*ibm)[16] = malloc(J * sizeof *ibm);
    float (*skin)[16] = malloc(J * sizeof *skin);
    ossa_local_to_model(m, f < 0 ? m->rest_pose : m->animations[0].frames + (size_t)f * J, pose);
    ossa_model_inverse_bind_matrices(m, ibm);
    ossa_skinning_matrices(J, (const float(*)[16])pose, (const float(*)[16])ibm, skin);
    float p[3], idx[4], w[4];
    ossa_vertex_array_read(m, ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL), v, 1, p);
    ossa_vertex_array_read_padded(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL), v, 1, 4, idx);
    ossa_vertex_array_read_padded(m, ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL), v, 1, 4, w);
    for (int r = 0; r < 3; r++) out[r] = 0;
    for (int k = 0; k < 4; k++) {
        if (!(w[k] > 0)) continue;
        const float *s = skin[(uint32_t)idx[k]];
        for (int r = 0; r < 3; r++)
            out[r] += w[k] * (s[r] * p[0] + s[4 + r] * p[1] + s[8 + r] * p[2] + s[12 + r]);
    }
    free(pose), free(ibm), free(skin);
}

/* An unskinned mesh under a joint whose skin was bound elsewhere than its
 * node rests (raylib's Wizard: the staff, the face): its vertices go into
 * the joint's bind space, so that at rest and in every frame the joint
 * carries them where the nodes put them. By hand: arm rests at glTF
 * (0, 0, 5), was bound at (0, 2, 5); the sword node sits at (1, 0, 0)
 * under it; the animation moves the arm to (0, 0, 7) at t = 1. */
static void rigid_mesh_bind_space(void **state)
{
    (void)state;
    float bin[9 + 2 + 6 + 16] = {0, 0, 0, 1, 0, 0, 0, 1, 0, /* positions */
                                 0, 1,                      /* key times */
                                 0, 0, 5, 0, 0, 7};         /* arm translation */
    float *ibm = bin + 17;
    for (int k = 0; k < 16; k++) ibm[k] = k % 5 == 0 ? 1.0f : 0.0f;
    ibm[13] = -2, ibm[14] = -5; /* the inverse of T(0, 2, 5) */
    char *json = gt_make_gltf(bin, sizeof bin,
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
        "\"byteLength\":8},{\"buffer\":0,\"byteOffset\":44,\"byteLength\":24},"
        "{\"buffer\":0,\"byteOffset\":68,\"byteLength\":64}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"},"
        "{\"bufferView\":3,\"componentType\":5126,\"count\":1,\"type\":\"MAT4\"}],"
        "\"nodes\":[{\"name\":\"arm\",\"translation\":[0,0,5],\"children\":[1]},"
        "{\"name\":\"sword\",\"mesh\":0,\"translation\":[1,0,0]}],"
        "\"skins\":[{\"joints\":[0],\"inverseBindMatrices\":3}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}],"
        "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,"
        "\"path\":\"translation\"}}],\"samplers\":[{\"input\":1,\"output\":2}]}]");
    ossa_model *m = gt_load_json(json);
    assert_int_equal(m->num_joints, 1);
    assert_non_null(m->rest_pose);
    /* stored in bind space: T(0,2,5) * T(0,0,-5) * (1, 0, 5) = glTF (1, 2, 5),
     * ossa (1, -5, 2) */
    const float *p = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL)->data;
    TS_ASSERT_NEAR(p[0], 1, 1e-6);
    TS_ASSERT_NEAR(p[1], -5, 1e-6);
    TS_ASSERT_NEAR(p[2], 2, 1e-6);
    /* drawn at rest where the nodes put it: glTF (1, 0, 5) = ossa (1, -5, 0);
     * at t = 1 (the last frame) glTF (1, 0, 7) = ossa (1, -7, 0); vertex 2,
     * glTF (1, 1, 7), is ossa (1, -7, 1) */
    float at[3];
    drawn_at(m, -1, 0, at);
    TS_ASSERT_NEAR(at[0], 1, 1e-5);
    TS_ASSERT_NEAR(at[1], -5, 1e-5);
    TS_ASSERT_NEAR(at[2], 0, 1e-5);
    uint32_t last = m->animations[0].num_frames - 1;
    drawn_at(m, (int)last, 0, at);
    TS_ASSERT_NEAR(at[0], 1, 1e-5);
    TS_ASSERT_NEAR(at[1], -7, 1e-5);
    TS_ASSERT_NEAR(at[2], 0, 1e-5);
    drawn_at(m, (int)last, 2, at);
    TS_ASSERT_NEAR(at[0], 1, 1e-5);
    TS_ASSERT_NEAR(at[1], -7, 1e-5);
    TS_ASSERT_NEAR(at[2], 1, 1e-5);
    ossa_model_free(m);
    free(json);
}

/* External .bin beside a .gltf: found through the file name; a memory
 * load without one is a clear error. */
static void external_buffer(void **state)
{
    (void)state;
    ossa_model *a = gt_build_full_model();
    char *path = ts_tmp_path("gltf external.gltf");
    ossa_write_options o;
    memset(&o, 0, sizeof o);
    ossa_error err;
    assert_int_equal(ossa_write_file(a, path, &o, &err), OSSA_OK);
    char *bin = ts_tmp_path("gltf external.bin");
    struct stat st;
    assert_int_equal(stat(bin, &st), 0);
    ossa_load_options lo;
    memset(&lo, 0, sizeof lo);
    lo.max_influences = 8;
    ossa_model *b = ossa_load_file(path, &lo, &err);
    assert_non_null(b);
    gt_compare_meshes(a, b, 0);
    ossa_model_free(b);
    size_t size;
    unsigned char *text = ts_read_file(path, &size);
    assert_non_null(strstr((char *)text, "\"gltf%20external.bin\""));
    ossa_model *c = gt_load_mem(text, size, OSSA_FORMAT_AUTO, NULL, &err);
    assert_null(c);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    assert_non_null(strstr(err.message, "buffers[0].uri"));
    c = gt_load_mem(text, size, OSSA_FORMAT_AUTO, "/nonexistent/dir/x.gltf", &err);
    assert_null(c);
    assert_int_equal(err.code, OSSA_ERROR_IO);
    free(text);
    free(bin);
    free(path);
    ossa_model_free(a);
}

static void *capped_alloc(void *user, size_t size)
{
    (void)user;
    return size > ((size_t)80 << 20) ? NULL : malloc(size);
}

static void capped_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

/* Many primitives sharing one large index accessor: the triangles they
 * decode to are refused when out of proportion to the file, as vertices
 * and frames are, before anything that size is allocated. */
static void triangle_count_limit(void **state)
{
    (void)state;
    char body[8192];
    size_t at = (size_t)snprintf(body, sizeof body,
                                 "\"accessors\":[{\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"},"
                                 "{\"componentType\":5121,\"count\":3000000,\"type\":\"SCALAR\"}],"
                                 "\"meshes\":[{\"primitives\":[");
    for (int k = 0; k < 30; k++)
        at += (size_t)snprintf(body + at, sizeof body - at, "%s{\"attributes\":{\"POSITION\":0},\"indices\":1}",
                               k ? "," : "");
    snprintf(body + at, sizeof body - at, "]}],\"nodes\":[{\"mesh\":0}]");
    char json[8400];
    snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},%s}", body);
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_GLTF;
    const ossa_allocator capped = {capped_alloc, capped_free, NULL};
    o.allocator = &capped;
    ossa_error err;
    memset(&err, 0, sizeof err);
    ossa_model *m = ossa_load_memory(json, strlen(json), &o, &err);
    if (m) ossa_model_free(m);
    assert_null(m);
    if (err.code != OSSA_ERROR_UNSUPPORTED || !strstr(err.message, "triangles"))
        fail_msg("error %s '%s'", ossa_code_name(err.code), err.message);
}

/* `count` animations of one joint sharing one sampler: keys at 0 and 500 s,
 * 1000 frames per second (500,001 frames, 20 MB each). */
static ossa_model *long_animations(int count, ossa_error *err)
{
    char json[8192];
    size_t at = (size_t)snprintf(
        json, sizeof json,
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{}],\"skins\":[{\"joints\":[0]}],"
        /* times 0, 500; translations (0,0,0), (1,2,3) */
        "\"buffers\":[{\"byteLength\":32,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAA+kMAAAAAAAAAAAAAAAAAAIA/AAAAQAAAQEA=\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":8,\"byteLength\":24}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
        "\"min\":[0],\"max\":[500]},"
        "{\"bufferView\":1,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}],"
        "\"animations\":[");
    for (int i = 0; i < count; i++)
        at += (size_t)snprintf(json + at, sizeof json - at,
                               "%s{\"extras\":{\"framerate\":1000},\"samplers\":[{\"input\":0,"
                               "\"output\":1}],\"channels\":[{\"sampler\":0,\"target\":{"
                               "\"node\":0,\"path\":\"translation\"}}]}",
                               i ? "," : "");
    snprintf(json + at, sizeof json - at, "]}");
    ossa_load_options o;
    memset(&o, 0, sizeof o);
    o.format = OSSA_FORMAT_GLTF;
    memset(err, 0, sizeof *err);
    return ossa_load_memory(json, strlen(json), &o, err);
}

/* Animations sharing one sampler cost a few bytes of JSON each: all of
 * them together may decode to 64 MiB plus 64 bytes per byte of the file. */
static void animation_budget(void **state)
{
    (void)state;
    ossa_error err;
    ossa_model *m = long_animations(3, &err);
    if (!m) fail_msg("%s", err.message);
    assert_int_equal(m->num_animations, 3);
    assert_int_equal(m->animations[2].num_frames, 500001);
    const float *t = m->animations[2].frames[250000].translation;
    /* Halfway from (0,0,0) to (1,2,3), whatever the axes become. */
    TS_ASSERT_NEAR(t[0], 0.5, 1e-6);
    TS_ASSERT_NEAR(t[0] * t[0] + t[1] * t[1] + t[2] * t[2], 0.25 + 1 + 2.25, 1e-5);
    ossa_model_free(m);
    m = long_animations(4, &err);
    if (m) ossa_model_free(m);
    assert_null(m);
    if (err.code != OSSA_ERROR_UNSUPPORTED || !strstr(err.message, "animations[3]: 500001 frames") ||
        !strstr(err.message, "out of proportion to the file"))
        fail_msg("error %s '%s'", ossa_code_name(err.code), err.message);
}

/* A glTF document loaded with its degenerate triangles (the tests below
 * give every vertex position (0, 0, 0): their triangles repeat a vertex,
 * which a default load drops). */
static ossa_model *load_keeping_degenerate(const char *json)
{
    ossa_load_options o = {.format = OSSA_FORMAT_GLTF, .max_influences = 8,
                           .flags = OSSA_LOAD_KEEP_DEGENERATE};
    ossa_error err;
    ossa_model *m = ossa_load_memory(json, strlen(json), &o, &err);
    if (!m) fail_msg("%s", err.message);
    return m;
}

/* A skin of 200000 root joints, a chain of 100000 joints 100000 deep and
 * a chain of 50000 nodes without joints that each show a mesh load with the
 * right structure. (They once took seconds each, when every joint searched
 * the skins or every joint and mesh walked up to the root; speed belongs
 * in the benchmarks, so nothing here is timed.) */
static void large_skeletons(void **state)
{
    (void)state;
    for (int deep = 0; deep < 3; deep++) {
        uint32_t n = deep == 2 ? 50000 : deep ? 100000 : 200000;
        size_t cap = (size_t)n * 40 + 512, at = 0;
        char *json = malloc(cap);
        at += (size_t)snprintf(json + at, cap - at, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
        for (uint32_t i = 0; i < n; i++) {
            const char *mesh = deep == 2 ? "\"mesh\":0" : "";
            if (deep && i + 1 < n)
                at += (size_t)snprintf(json + at, cap - at, "%s{%s%s\"children\":[%u]}", i ? "," : "", mesh,
                                       mesh[0] ? "," : "", i + 1);
            else
                at += (size_t)snprintf(json + at, cap - at, "%s{%s}", i ? "," : "", mesh);
        }
        if (deep == 2) {
            snprintf(json + at, cap - at,
                     "],\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
                     "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]}");
        } else {
            at += (size_t)snprintf(json + at, cap - at, "],\"skins\":[{\"joints\":[");
            for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(json + at, cap - at, "%s%u", i ? "," : "", i);
            snprintf(json + at, cap - at, "]}]}");
        }
        ossa_model *m = deep == 2 ? load_keeping_degenerate(json) : gt_load_json(json);
        if (deep == 2) {
            assert_int_equal(m->num_joints, 0);
            assert_int_equal(m->num_triangles, n);
            ossa_model_free(m);
            /* By default all of them go, with the vertices and meshes. */
            m = gt_load_json(json);
            assert_int_equal(m->num_triangles, 0);
            assert_int_equal(m->num_vertices, 0);
            assert_int_equal(m->num_meshes, 0);
            char expected[96];
            snprintf(expected, sizeof expected, "%u degenerate triangles (a vertex repeated) dropped", n);
            assert_int_equal(m->num_warnings, 1);
            assert_non_null(strstr(m->warnings[0].message, expected));
        } else {
            assert_int_equal(m->num_joints, n);
            assert_int_equal(m->joints[n - 1].parent, deep ? (int32_t)n - 2 : -1);
        }
        ossa_model_free(m);
        free(json);
    }
    /* 30000 joints below a chain of 30000 moved nodes that are not joints
     * (folded into each joint) */
    uint32_t n = 30000;
    size_t cap = (size_t)n * 80 + 256, at = 0;
    char *json = malloc(cap);
    at += (size_t)snprintf(json + at, cap - at, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (uint32_t i = 0; i + 1 < n; i++)
        at += (size_t)snprintf(json + at, cap - at, "{\"translation\":[0,1,0],\"children\":[%u]},", i + 1);
    at += (size_t)snprintf(json + at, cap - at, "{\"translation\":[0,1,0],\"children\":[");
    for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(json + at, cap - at, "%s%u", i ? "," : "", n + i);
    at += (size_t)snprintf(json + at, cap - at, "]}");
    for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(json + at, cap - at, ",{}");
    at += (size_t)snprintf(json + at, cap - at, "],\"skins\":[{\"joints\":[");
    for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(json + at, cap - at, "%s%u", i ? "," : "", n + i);
    snprintf(json + at, cap - at, "]}]}");
    ossa_model *m = gt_load_json(json);
    assert_int_equal(m->num_joints, n);
    /* glTF +Y is ossa +Z: each joint sits 30000 units up */
    assert_true(fabs(m->joints[n - 1].bind.translation[2] - (double)n) < 1e-3);
    ossa_model_free(m);
    free(json);
}

/* More than 65536 joints: blend indexes above 65535 keep their value. */
static void many_joints_blend_indexes(void **state)
{
    (void)state;
    uint32_t n = 65537; /* skin 0: nodes 0..65536; skin 1: node 65537 */
    float w[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    size_t cap = (size_t)n * 12 + 2048, at = 0;
    char *body = malloc(cap);
    at += (size_t)snprintf(body + at, cap - at,
                           "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48}],"
                           "\"accessors\":[{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
                           "{\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
                           "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
                           "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,"
                           "\"WEIGHTS_0\":2}}]}],\"nodes\":[");
    for (uint32_t i = 0; i <= n; i++) at += (size_t)snprintf(body + at, cap - at, "{},");
    at += (size_t)snprintf(body + at, cap - at, "{\"mesh\":0,\"skin\":1}],\"skins\":[{\"joints\":[");
    for (uint32_t i = 0; i < n; i++) at += (size_t)snprintf(body + at, cap - at, "%s%u", i ? "," : "", i);
    snprintf(body + at, cap - at, "]},{\"joints\":[%u]}]", n);
    char *json = gt_make_gltf(w, sizeof w, body);
    ossa_model *m = load_keeping_degenerate(json);
    assert_int_equal(m->num_joints, n + 1);
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    assert_non_null(bi);
    float idx[OSSA_MAX_COMPONENTS];
    ossa_vertex_array_read(m, bi, 2, 1, idx);
    assert_true(idx[0] == (float)n);
    ossa_model_free(m);
    free(json);
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strips_and_fans),
        cmocka_unit_test(accessor_kinds),
        cmocka_unit_test(attribute_set_limit),
        cmocka_unit_test(animation_sampling),
        cmocka_unit_test(rigid_mesh),
        cmocka_unit_test(sampling_rates),
        cmocka_unit_test(rest_and_bind_poses),
        cmocka_unit_test(rigid_mesh_bind_space),
        cmocka_unit_test(external_buffer),
        cmocka_unit_test(triangle_count_limit),
        cmocka_unit_test(animation_budget),
        cmocka_unit_test(large_skeletons),
        cmocka_unit_test(many_joints_blend_indexes),
    };
    return cmocka_run_group_tests_name("gltf_read", tests, NULL, NULL);
}
