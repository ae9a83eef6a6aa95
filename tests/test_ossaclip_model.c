/* .ossaclip in the format table: a clip loads as a model (unnamed joints,
 * the clip's parents and bind pose, one animation of its decoded keys),
 * writing compresses one animation to the bytes ossa_clip_save writes; a
 * cut, patched or allocation-starved file fails cleanly. The clip is made
 * from the small IQM of support_mini.c. */
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ossa_model *mini_model(void)
{
    ts_mini mini;
    ts_mini_build(&mini, 2);
    ossa_model *m = ts_load(mini.b, mini.size);
    assert_non_null(m);
    return m;
}

/* The .ossaclip bytes of animation 0, through ossa_clip_create. */
static unsigned char *clip_bytes(const ossa_model *m, size_t *size)
{
    ossa_clip_options o = {0};
    o.compression = OSSA_CLIP_COMPRESSED;
    ossa_error err;
    ossa_clip *clip = ossa_clip_create(m, 0, &o, &err);
    assert_non_null(clip);
    const void *data = ossa_clip_data(clip, size);
    unsigned char *copy = malloc(*size);
    memcpy(copy, data, *size);
    ossa_clip_free(clip);
    return copy;
}

static ossa_model *load_clip(const void *data, size_t size, const ossa_allocator *a, ossa_error *err)
{
    ossa_load_options o = {0};
    o.file_name = "x.ossaclip";
    o.allocator = a;
    return ossa_load_memory(data, size, &o, err);
}

/* The clip in `ctx` (a ts_result) loaded as a model. */
static ossa_status clip_load_op(void *ctx, ts_alloc *a, ossa_error *err, ts_result *result)
{
    const ts_result *clip = ctx;
    ossa_model *t = load_clip(clip->data, clip->size, &a->allocator, err);
    if (!t) return OSSA_FAILED;
    ts_result_model(result, a, t);
    ossa_model_free(t);
    return OSSA_OK;
}

static void test_clip_as_model(void **state)
{
    (void)state;
    ossa_model *m = mini_model();
    size_t size;
    unsigned char *bytes = clip_bytes(m, &size);
    ossa_error err;
    ossa_model *c = load_clip(bytes, size, NULL, &err);
    if (!c) fail_msg("%s", err.message);
    assert_int_equal(c->source_format, OSSA_FORMAT_OSSACLIP);
    assert_int_equal(c->num_joints, m->num_joints);
    assert_int_equal(c->num_vertices, 0);
    assert_int_equal(c->num_animations, 1);
    const ossa_animation *a = &c->animations[0], *b = &m->animations[0];
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->num_frames, b->num_frames);
    assert_true(a->framerate == b->framerate);
    assert_int_equal(a->flags, b->flags);
    for (uint32_t j = 0; j < c->num_joints; j++) {
        assert_string_equal(c->joints[j].name, "");
        assert_int_equal(c->joints[j].parent, m->joints[j].parent);
        for (int k = 0; k < 3; k++)
            TS_ASSERT_NEAR(c->joints[j].bind.translation[k], m->joints[j].bind.translation[k], 1e-6);
    }
    /* the keys: within the clip's error of the source frames (the mini
     * model's joints are about a unit apart; the default bound is 0.01%
     * of its size) */
    for (uint32_t f = 0; f < a->num_frames; f++)
        for (uint32_t j = 0; j < c->num_joints; j++) {
            const ossa_transform *x = &a->frames[f * c->num_joints + j];
            const ossa_transform *y = &b->frames[f * m->num_joints + j];
            for (int k = 0; k < 3; k++) TS_ASSERT_NEAR(x->translation[k], y->translation[k], 1e-3);
            TS_ASSERT_QUAT_EQUIV(x->rotation, y->rotation, 1e-3);
        }
    assert_int_equal(ossa_model_validate(c, NULL, NULL, NULL), OSSA_OK);

    /* writing the same animation gives ossa_clip_save's bytes */
    ossa_write_options w = {0};
    w.format = OSSA_FORMAT_OSSACLIP;
    void *out;
    size_t out_size;
    assert_int_equal(ossa_write_memory(m, &w, &out, &out_size, &err), OSSA_OK);
    assert_int_equal(out_size, size);
    assert_memory_equal(out, bytes, size);
    ossa_free(out, NULL);
    /* options: a bound that is no number, an animation that is not there */
    const ossa_option bad = {"ossaclip.error", "-1"};
    w.format_options = &bad;
    w.num_format_options = 1;
    assert_int_equal(ossa_write_memory(m, &w, &out, &out_size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);
    w.num_format_options = 0;
    w.animation = 5;
    assert_int_equal(ossa_write_memory(m, &w, &out, &out_size, &err), OSSA_FAILED);
    assert_int_equal(err.code, OSSA_ERROR_ARGUMENT);

    /* merged into the model it was made from: matched by index */
    assert_int_equal(ossa_model_merge(m, c, &err), OSSA_OK);
    assert_int_equal(m->num_animations, 2);
    ossa_model_free(c);
    ossa_model_free(m);
    free(bytes);
}

static void test_damaged_clips(void **state)
{
    (void)state;
    ossa_model *m = mini_model();
    size_t size;
    unsigned char *bytes = clip_bytes(m, &size);
    ossa_model_free(m);
    ossa_error err;
    /* every cut fails, naming where */
    for (size_t n = 8; n < size; n++) {
        ossa_model *t = load_clip(bytes, n, NULL, &err);
        if (t) fail_msg("loaded %zu of %zu bytes", n, size);
        assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
        assert_true(err.offset != OSSA_NO_OFFSET);
    }
    /* byte patches: refused, or a model that validates without a crash */
    unsigned char *copy = malloc(size);
    for (size_t i = 8; i < size; i++)
        for (int k = 0; k < 3; k++) {
            memcpy(copy, bytes, size);
            copy[i] ^= (unsigned char)(k == 0 ? 0xFF : k == 1 ? 0x80 : 0x01);
            ossa_model *t = load_clip(copy, size, NULL, NULL);
            if (t) ossa_model_validate(t, NULL, NULL, NULL);
            ossa_model_free(t);
        }
    free(copy);
    /* every allocation failing in turn: a clean failure, nothing left */
    ts_result clip = {bytes, size};
    ts_alloc_sweep_with("clip as model", clip_load_op, &clip,
                        &(ts_sweep){.modes = TS_SWEEP_ONCE, .must_fail = true});
    free(bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clip_as_model),
        cmocka_unit_test(test_damaged_clips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
