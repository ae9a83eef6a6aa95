/* The demo character's texture: one atlas painted by code, each part
 * kind in its own rectangle (a column per step around the part, a row
 * per step along it), so that the colours are functions of where a texel
 * lies on the body: trousers below the belt, a striped shirt with short
 * sleeves, skin, shoes with soles and laces, and a face (eyes, brows,
 * mouth) in front of the head with hair over the top and back, so that
 * front and back differ. */
#include "demo.h"

#include <math.h>
#include <string.h>

#define PI_F 3.14159265f

/* Atlas rectangles in texels (x, y, width, height) and the stretch of the
 * part's path they cover (metres: first `along`, length); `up` parts
 * (torso, head) run up their path, so that the atlas shows them upright. */
static const struct {
    uint16_t x, y, w, h;
    float start, length;
    int up;
} regions[DEMO_NUM_PART_KINDS] = {
    [DEMO_PART_HEAD] = {0, 0, 256, 256, 0.0f, 0.27f, 1},
    [DEMO_PART_TORSO] = {256, 0, 256, 256, 0.0f, 0.80f, 1},
    [DEMO_PART_ARM] = {0, 256, 128, 128, -0.06f, 0.62f, 0},
    [DEMO_PART_LEG] = {128, 256, 128, 128, -0.08f, 0.92f, 0},
    [DEMO_PART_HAND] = {256, 256, 64, 64, -0.02f, 0.21f, 0},
    [DEMO_PART_SHOE] = {320, 256, 128, 64, 0.0f, 0.30f, 0},
    [DEMO_PART_NOSE] = {448, 256, 32, 32, -0.01f, 0.04f, 0},
};

/* A texel of margin around each rectangle repeats its edge, so that
 * bilinear filtering at u = 0 or 1 reads nothing of the next part. */
enum { MARGIN = 1 };

void demo_texture_coords(demo_part_kind kind, float u, float along, float out[2])
{
    float f = (along - regions[kind].start) / regions[kind].length;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    if (regions[kind].up) f = 1 - f;
    float x = regions[kind].x + MARGIN + u * (regions[kind].w - 2 * MARGIN);
    float y = regions[kind].y + MARGIN + f * (regions[kind].h - 2 * MARGIN);
    out[0] = x / DEMO_TEXTURE_WIDTH;
    out[1] = y / DEMO_TEXTURE_HEIGHT;
}

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static const rgb skin = {226, 176, 140}, hair = {74, 48, 32}, shirt = {222, 112, 52},
                 shirt_dark = {178, 82, 38}, stripe = {244, 226, 188}, trousers = {54, 72, 112},
                 belt = {44, 34, 28}, buckle = {206, 176, 96}, shoe = {64, 44, 34},
                 sole = {222, 216, 204}, lace = {232, 228, 220}, eye_white = {244, 244, 238},
                 iris = {58, 96, 150}, pupil = {18, 18, 22}, mouth = {172, 86, 74};

/* Inside the ellipse of half-axes (ra, rz) around (a0, z0). */
static int in_ellipse(float a, float z, float a0, float z0, float ra, float rz)
{
    float x = (a - a0) / ra, y = (z - z0) / rz;
    return x * x + y * y <= 1;
}

/* The face and hair at angle a around the head (radians from the front;
 * the face is symmetric, so the sign does not matter) and height z
 * (metres). The brows arch: lower at their ends. */
static rgb head_colour(float a, float z)
{
    float aa = fabsf(a);
    /* Hair: above a line that is high over the forehead and low at the
     * nape, with a small wave of a fringe in front. */
    float hairline = 1.695f - 0.13f * demo_smoothstep(0.9f, 2.4f, aa);
    if (aa < 0.9f) hairline -= 0.006f * cosf(a * 11);
    if (z > hairline) return hair;
    for (int side = -1; side <= 1; side += 2) {
        float a0 = 0.42f * side;
        if (in_ellipse(a, z, a0 + 0.02f * side, 1.674f - 0.004f * fabsf(a - a0) / 0.16f, 0.16f, 0.0045f))
            return hair; /* brows */
        if (in_ellipse(a, z, a0, 1.648f, 0.03f, 0.0065f)) return pupil;
        if (in_ellipse(a, z, a0, 1.648f, 0.065f, 0.0115f)) return iris;
        if (in_ellipse(a, z, a0, 1.648f, 0.13f, 0.012f)) return eye_white;
    }
    /* A smile: the mouth's line rises towards its corners. */
    if (aa < 0.17f && fabsf(z - (1.578f + 0.12f * a * a)) < 0.0042f) return mouth;
    return skin;
}

static rgb torso_colour(float a, float z)
{
    float aa = fabsf(a);
    if (z < 1.0f) return trousers;
    if (z < 1.035f) {
        if (aa < 0.10f) return fabsf(z - 1.0175f) < 0.007f && aa < 0.06f ? belt : buckle;
        return belt;
    }
    /* A crew neck, a little lower in front, where the neck meets the
     * shoulders. */
    float neckline = 1.458f - 0.02f * demo_smoothstep(1.2f, 0.0f, aa);
    if (z > neckline) return skin;
    if (z > neckline - 0.008f) return shirt_dark;
    if (z > 1.25f && z < 1.295f) return stripe;
    if (z < 1.05f) return shirt_dark; /* the hem over the belt */
    return shirt;
}

static rgb arm_colour(float along)
{
    if (along < 0.115f) return shirt;
    if (along < 0.13f) return shirt_dark; /* the sleeve's hem */
    return skin;
}

static rgb shoe_colour(float a, float along)
{
    float aa = fabsf(a);
    if (aa > 2.45f) return sole;
    /* Laces across the top, 1.6 cm apart. */
    if (aa < 0.32f && along > 0.085f && along < 0.175f && fmodf(along - 0.085f, 0.016f) < 0.006f)
        return lace;
    return shoe;
}

static rgb leg_colour(float along)
{
    (void)along;
    return trousers;
}

static rgb part_colour(demo_part_kind kind, float a, float along)
{
    switch (kind) {
    case DEMO_PART_HEAD: return head_colour(a, 1.50f + along);
    case DEMO_PART_TORSO: return torso_colour(a, 0.80f + along);
    case DEMO_PART_ARM: return arm_colour(along);
    case DEMO_PART_LEG: return leg_colour(along);
    case DEMO_PART_SHOE: return shoe_colour(a, along);
    default: return skin;
    }
}

void demo_texture_paint(uint8_t *rgba)
{
    static const rgb unused = {128, 128, 128};
    for (size_t i = 0; i < (size_t)DEMO_TEXTURE_WIDTH * DEMO_TEXTURE_HEIGHT; i++) {
        rgba[i * 4] = unused.r, rgba[i * 4 + 1] = unused.g, rgba[i * 4 + 2] = unused.b;
        rgba[i * 4 + 3] = 255;
    }
    for (int k = 0; k < DEMO_NUM_PART_KINDS; k++) {
        int x0 = regions[k].x, y0 = regions[k].y, w = regions[k].w, h = regions[k].h;
        for (int y = y0; y < y0 + h; y++)
            for (int x = x0; x < x0 + w; x++) {
                /* The texel's centre as (u, f), clamped in the margins. */
                float u = (x + 0.5f - x0 - MARGIN) / (float)(w - 2 * MARGIN);
                float f = (y + 0.5f - y0 - MARGIN) / (float)(h - 2 * MARGIN);
                u = u < 0 ? 0 : u > 1 ? 1 : u;
                f = f < 0 ? 0 : f > 1 ? 1 : f;
                if (regions[k].up) f = 1 - f;
                float along = regions[k].start + f * regions[k].length;
                float a = (u - 0.5f) * 2 * PI_F;
                rgb c = part_colour((demo_part_kind)k, a, along);
                uint8_t *p = rgba + ((size_t)y * DEMO_TEXTURE_WIDTH + (size_t)x) * 4;
                p[0] = c.r, p[1] = c.g, p[2] = c.b;
            }
    }
}
