/* Vertex component encoding and decoding: the normalization rules of
 * docs/formats/iqm.md §4, IEEE half rounding, the ubyte blend weight rule of §8.3 and
 * ossa_vertex_array_read. Every expected value is worked out by hand from
 * the spec in the comments. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ossa_model *encode(ossa_vertex_type type, ossa_component format, uint32_t size,
                          const float *values, uint32_t n, const void **data)
{
    ossa_model *m = ossa_model_create(NULL);
    assert_non_null(m);
    ossa_error err;
    assert_int_equal(ossa_model_set_num_vertices(m, n / size, &err), OSSA_OK);
    const ossa_vertex_array *a =
        ossa_model_add_vertex_array_floats(m, type, format, size, NULL, values, &err);
    assert_non_null(a);
    *data = a->data;
    return m;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Unsigned n-bit (§4): c = floor(v * (2^n - 1) + 0.5), clamped, negative -> 0. */
static void test_encode_unsigned(void **state)
{
    (void)state;
    const void *d;
    /* 0.5*255+0.5 = 128; 0.25*255+0.5 = 64.25; 0.998*255+0.5 = 254.99. */
    const float ub_in[] = {0, 1, 0.5f, 1.0f / 255, -0.2f, 2, 0.25f, 0.998f};
    const uint8_t ub_out[] = {0, 255, 128, 1, 0, 255, 64, 254};
    ossa_model *m = encode(OSSA_VERTEX_COLOR, OSSA_UBYTE, 1, ub_in, COUNT(ub_in), &d);
    assert_memory_equal(d, ub_out, sizeof ub_out);
    ossa_model_free(m);

    /* 0.5*65535+0.5 = 32768; 0.25*65535+0.5 = 16384.25; 1e-5*65535+0.5 = 1.16. */
    const float us_in[] = {0.5f, 1, 0.25f, -1, 1e-5f, 0};
    const uint16_t us_out[] = {32768, 65535, 16384, 0, 1, 0};
    m = encode(OSSA_VERTEX_TEXCOORD, OSSA_USHORT, 2, us_in, COUNT(us_in), &d);
    assert_memory_equal(d, us_out, sizeof us_out);
    ossa_model_free(m);

    /* 0.5*(2^32-1)+0.5 = 2^31; 0.25*(2^32-1)+0.5 = 1073741824.25. */
    const float ui_in[] = {0.5f, 1, 0, 0.25f};
    const uint32_t ui_out[] = {2147483648u, 4294967295u, 0, 1073741824u};
    m = encode(OSSA_VERTEX_CUSTOM, OSSA_UINT, 1, ui_in, COUNT(ui_in), &d);
    assert_memory_equal(d, ui_out, sizeof ui_out);
    ossa_model_free(m);
}

/* Signed n-bit (§4): t = v * (2^n - 1) / 2, c = t < 0 ? ceil(t - 1) : floor(t),
 * clamped to -2^(n-1) .. 2^(n-1) - 1. */
static void test_encode_signed(void **state)
{
    (void)state;
    const void *d;
    /* byte: 1 -> t 127.5 -> 127; -1 -> ceil(-128.5) = -128; 0.5 -> 63.75 -> 63;
     * -0.5 -> ceil(-64.75) = -64; 0.25 -> 31.875 -> 31; -0.001 -> ceil(-1.1275)
     * = -1; 2 -> 255 -> clamp 127; -2 -> -256 -> clamp -128. */
    const float b_in[] = {1, -1, 0.5f, 0, -0.5f, 0.25f, -0.001f, 2, -2};
    const int8_t b_out[] = {127, -128, 63, 0, -64, 31, -1, 127, -128};
    ossa_model *m = encode(OSSA_VERTEX_NORMAL, OSSA_BYTE, 3, b_in, COUNT(b_in), &d);
    assert_memory_equal(d, b_out, sizeof b_out);
    ossa_model_free(m);

    /* short: t = v * 32767.5. */
    const float s_in[] = {1, -1, 0.5f, -0.5f};
    const int16_t s_out[] = {32767, -32768, 16383, -16384};
    m = encode(OSSA_VERTEX_TANGENT, OSSA_SHORT, 4, s_in, COUNT(s_in), &d);
    assert_memory_equal(d, s_out, sizeof s_out);
    ossa_model_free(m);

    /* int: t = v * 2147483647.5. */
    const float i_in[] = {1, -1, 0.5f, -0.5f};
    const int32_t i_out[] = {2147483647, INT32_MIN, 1073741823, -1073741824};
    m = encode(OSSA_VERTEX_CUSTOM, OSSA_INT, 2, i_in, COUNT(i_in), &d);
    assert_memory_equal(d, i_out, sizeof i_out);
    ossa_model_free(m);
}

/* Float and double keep the value; blend indexes are raw integers. */
static void test_encode_raw_formats(void **state)
{
    (void)state;
    const void *d;
    const float f_in[] = {1.5f, -0.0f, 3.25e-30f, 123456.789f};
    ossa_model *m = encode(OSSA_VERTEX_POSITION, OSSA_FLOAT, 2, f_in, COUNT(f_in), &d);
    assert_memory_equal(d, f_in, sizeof f_in);
    ossa_model_free(m);

    const double d_out[] = {1.5, -0.0, (double)3.25e-30f, (double)123456.789f};
    m = encode(OSSA_VERTEX_POSITION, OSSA_DOUBLE, 2, f_in, COUNT(f_in), &d);
    assert_memory_equal(d, d_out, sizeof d_out);
    ossa_model_free(m);

    const float bi_in[] = {0, 3, 255, 13};
    const uint8_t bi_out[] = {0, 3, 255, 13};
    m = encode(OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 4, bi_in, COUNT(bi_in), &d);
    assert_memory_equal(d, bi_out, sizeof bi_out);
    ossa_model_free(m);

    const float bs_in[] = {300, 0, 65535, 7};
    const uint16_t bs_out[] = {300, 0, 65535, 7};
    m = encode(OSSA_VERTEX_BLENDINDEXES, OSSA_USHORT, 4, bs_in, COUNT(bs_in), &d);
    assert_memory_equal(d, bs_out, sizeof bs_out);
    ossa_model_free(m);
}

/* IEEE binary16, round to nearest even (§4), worked out bit by bit:
 * 1 = 0x3C00; 1/3 = 1.0101010101|01..b * 2^-2 -> 0x3555 (rounds down);
 * 65504 = max finite 0x7BFF; 65520 is halfway to 65536 and 0x7BFF is odd ->
 * rounds up to infinity; 1 + 2^-11 is halfway between 0x3C00 (even) and
 * 0x3C01 -> 0x3C00; 1 + 3*2^-11 is halfway between 0x3C01 and 0x3C02 (even);
 * subnormals are multiples of 2^-24: 2^-25 is halfway between 0 and 1 ->
 * 0; 3*2^-25 = 1.5 units -> 2; 5*2^-25 = 2.5 -> 2; 7*2^-25 = 3.5 -> 4;
 * 2^-14 - 2^-25 is halfway between 0x3FF and 0x400 -> 0x400 (min normal). */
static void test_encode_half(void **state)
{
    (void)state;
    struct {
        float in;
        uint16_t out;
    } cases[] = {
        {1.0f, 0x3C00},
        {-2.0f, 0xC000},
        {1.0f / 3, 0x3555},
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {65504.0f, 0x7BFF},
        {65519.0f, 0x7BFF},
        {65520.0f, 0x7C00},
        {1e6f, 0x7C00},
        {-1e6f, 0xFC00},
        {INFINITY, 0x7C00},
        {-INFINITY, 0xFC00},
        {1.0f + 0x1p-11f, 0x3C00},
        {1.0f + 0x3p-11f, 0x3C02},
        {1.0f + 0x1p-11f + 0x1p-20f, 0x3C01},
        {0x1p-24f, 0x0001},
        {0x1p-25f, 0x0000},
        {0x1.002p-25f, 0x0001},
        {0x3p-25f, 0x0002},
        {0x5p-25f, 0x0002},
        {0x7p-25f, 0x0004},
        {-0x3p-25f, 0x8002},
        {0x3FFp-24f, 0x03FF},
        {0x7FFp-25f, 0x0400},
        {0x1p-14f, 0x0400},
        {0x1p-26f, 0x0000},
        {-0x1p-26f, 0x8000},
    };
    float in[COUNT(cases)];
    for (size_t i = 0; i < COUNT(cases); i++) in[i] = cases[i].in;
    const void *d;
    ossa_model *m = encode(OSSA_VERTEX_CUSTOM, OSSA_HALF, 1, in, COUNT(cases), &d);
    const uint16_t *h = d;
    for (size_t i = 0; i < COUNT(cases); i++) {
        if (h[i] != cases[i].out)
            print_error("half(%a): got 0x%04X, expected 0x%04X\n", (double)cases[i].in, h[i],
                        cases[i].out);
        assert_int_equal(h[i], cases[i].out);
    }
    ossa_model_free(m);

    /* NaN stays NaN: exponent all ones, mantissa not zero. */
    const float nan_in[] = {NAN};
    m = encode(OSSA_VERTEX_CUSTOM, OSSA_HALF, 1, nan_in, 1, &d);
    uint16_t nan_bits = *(const uint16_t *)d;
    assert_int_equal(nan_bits & 0x7C00, 0x7C00);
    assert_true((nan_bits & 0x03FF) != 0);
    ossa_model_free(m);
}

/* §8.3 largest remainder: floor(w*255) each, then the missing units one by
 * one to the largest fractional parts, ties to the lower slot. Weights are
 * first scaled to sum 1. Inputs are exact binary fractions where the
 * fractional parts matter, so float rounding cannot decide the result. */
static void test_encode_ubyte_weights(void **state)
{
    (void)state;
    const float third = 1.0f / 3;
    const float in[][4] = {
        {third, third, third, 0},         /* 84.99.. or 85.00.. each -> 85 85 85 */
        {0.5f, 0.25f, 0.25f, 0},          /* 127.5 63.75 63.75: floors 253, +1 to slots 1, 2 */
        {0.25f, 0.25f, 0.25f, 0.25f},     /* 63.75 x4: floors 252, +1 to slots 0..2 */
        {0.625f, 0.125f, 0.125f, 0.125f}, /* 159.375 31.875 x3: +1 to slots 1..3 */
        {0.375f, 0.375f, 0.25f, 0},       /* 95.625 95.625 63.75: +1 to slot 2, then slot 0 */
        {2, 1, 1, 0},                     /* scaled to 0.5 0.25 0.25 */
        {1, 0, 0, 0},
        {0, 0, 0, 0}, /* no weight at all stays zero */
    };
    const uint8_t out[][4] = {
        {85, 85, 85, 0}, {127, 64, 64, 0}, {64, 64, 64, 63}, {159, 32, 32, 32},
        {96, 95, 64, 0}, {127, 64, 64, 0}, {255, 0, 0, 0},   {0, 0, 0, 0},
    };
    const void *d;
    ossa_model *m = encode(OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, 4, &in[0][0], 4 * COUNT(in), &d);
    const uint8_t *w = d;
    for (size_t v = 0; v < COUNT(in); v++) {
        if (memcmp(w + 4 * v, out[v], 4) != 0)
            print_error("weights %zu: got %u %u %u %u, expected %u %u %u %u\n", v, w[4 * v],
                        w[4 * v + 1], w[4 * v + 2], w[4 * v + 3], out[v][0], out[v][1], out[v][2],
                        out[v][3]);
        assert_memory_equal(w + 4 * v, out[v], 4);
    }
    ossa_model_free(m);

    /* Other integer formats: converted one by one, no sum fix-up (§4):
     * 0.5 -> 32768 and 0.25 -> floor(16383.75 + 0.5) = 16384: sum 65536. */
    const float us_in[] = {0.5f, 0.25f, 0.25f, 0};
    const uint16_t us_out[] = {32768, 16384, 16384, 0};
    m = encode(OSSA_VERTEX_BLENDWEIGHTS, OSSA_USHORT, 4, us_in, 4, &d);
    assert_memory_equal(d, us_out, sizeof us_out);
    ossa_model_free(m);
}

static void test_vertex_array_read(void **state)
{
    (void)state;
    ossa_model *m = ossa_model_create(NULL);
    ossa_error err;
    ossa_model_set_num_vertices(m, 3, &err);
    const uint8_t ub[] = {0, 128, 255};
    const int8_t sb[] = {-128, -1, 127};
    const int16_t ss[] = {-32768, 0, 32767};
    const uint16_t us[] = {0, 1, 65535};
    const uint16_t hf[] = {0x0001, 0x03FF, 0xC000};
    const uint8_t bi[] = {7, 200, 0};
    const int32_t si[] = {INT32_MIN, 0, INT32_MAX};
    const ossa_vertex_array *a_ub =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 1, NULL, ub, &err);
    const ossa_vertex_array *a_sb =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_BYTE, 1, NULL, sb, &err);
    const ossa_vertex_array *a_ss =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_TANGENT, OSSA_SHORT, 1, NULL, ss, &err);
    const ossa_vertex_array *a_us =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_USHORT, 1, NULL, us, &err);
    const ossa_vertex_array *a_hf =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_CUSTOM, OSSA_HALF, 1, "h", hf, &err);
    const ossa_vertex_array *a_bi =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, OSSA_UBYTE, 1, NULL, bi, &err);
    const ossa_vertex_array *a_si =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_CUSTOM, OSSA_INT, 1, "i", si, &err);
    assert_true(a_ub && a_sb && a_ss && a_us && a_hf && a_bi && a_si);
    /* The decoding rules of §4: unsigned c / (2^n - 1), signed (2c + 1) / (2^n - 1). */
    const struct {
        const ossa_vertex_array *a;
        double expect[3];
    } cases[] = {
        {a_ub, {0, 128.0 / 255, 1}},
        {a_sb, {-1, -1.0 / 255, 1}},
        {a_ss, {-1, 1.0 / 65535, 1}},
        {a_us, {0, 1.0 / 65535, 1}},
        {a_hf, {ldexp(1, -24), 1023 * ldexp(1, -24), -2}},
        {a_bi, {7, 200, 0}}, /* raw */
        {a_si, {-1, 1.0 / 4294967295.0, 1}},
    };
    for (size_t i = 0; i < COUNT(cases); i++) {
        float out[3] = {-9, -9, -9};
        assert_int_equal(ossa_vertex_array_read(m, cases[i].a, 0, 3, out), OSSA_OK);
        for (int v = 0; v < 3; v++)
            TS_ASSERT_NEAR(out[v], cases[i].expect[v], 1e-7 * fabs(cases[i].expect[v]) + 1e-12);
        /* A sub-range starts at the right vertex. */
        float one = -9;
        assert_int_equal(ossa_vertex_array_read(m, cases[i].a, 2, 1, &one), OSSA_OK);
        TS_ASSERT_NEAR(one, cases[i].expect[2], 1e-7);
    }
    float out[4];
    assert_int_equal(ossa_vertex_array_read(m, a_ub, 3, 0, out), OSSA_OK); /* empty, at the end */
    assert_int_equal(ossa_vertex_array_read(m, a_ub, 1, 3, out), OSSA_FAILED);
    assert_int_equal(ossa_vertex_array_read(m, a_ub, 4, 0, out), OSSA_FAILED);
    assert_int_equal(ossa_vertex_array_read(m, a_ub, UINT32_MAX, 2, out), OSSA_FAILED);
    ossa_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_unsigned),
        cmocka_unit_test(test_encode_signed),
        cmocka_unit_test(test_encode_raw_formats),
        cmocka_unit_test(test_encode_half),
        cmocka_unit_test(test_encode_ubyte_weights),
        cmocka_unit_test(test_vertex_array_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
