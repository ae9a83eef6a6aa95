/* A 3x5 pixel font for labels (contact sheets): digits, capitals and the
 * punctuation that frame numbers, times and names need. Drawn here, not
 * taken from anywhere. */
#include "render/render.h"

/* Five rows of three bits per glyph, top row first, bit 2 (value 4) the
 * left column: 7 is a full row, 5 the two outer pixels, 2 the middle. */
typedef struct glyph {
    char c;
    uint8_t rows[5];
} glyph;

static const glyph font[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}},
    {'3', {7, 1, 7, 1, 7}}, {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}},
    {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 2, 2}}, {'8', {7, 5, 7, 5, 7}},
    {'9', {7, 5, 7, 1, 7}}, {'A', {2, 5, 7, 5, 5}}, {'B', {6, 5, 6, 5, 6}},
    {'C', {3, 4, 4, 4, 3}}, {'D', {6, 5, 5, 5, 6}}, {'E', {7, 4, 6, 4, 7}},
    {'F', {7, 4, 6, 4, 4}}, {'G', {3, 4, 5, 5, 3}}, {'H', {5, 5, 7, 5, 5}},
    {'I', {7, 2, 2, 2, 7}}, {'J', {1, 1, 1, 5, 2}}, {'K', {5, 5, 6, 5, 5}},
    {'L', {4, 4, 4, 4, 7}}, {'M', {5, 7, 7, 5, 5}}, {'N', {6, 5, 5, 5, 5}},
    {'O', {2, 5, 5, 5, 2}}, {'P', {6, 5, 6, 4, 4}}, {'Q', {2, 5, 5, 6, 3}},
    {'R', {6, 5, 6, 5, 5}}, {'S', {3, 4, 2, 1, 6}}, {'T', {7, 2, 2, 2, 2}},
    {'U', {5, 5, 5, 5, 7}}, {'V', {5, 5, 5, 5, 2}}, {'W', {5, 5, 7, 7, 5}},
    {'X', {5, 5, 2, 5, 5}}, {'Y', {5, 5, 2, 2, 2}}, {'Z', {7, 1, 2, 4, 7}},
    {'.', {0, 0, 0, 0, 2}}, {',', {0, 0, 0, 2, 4}}, {':', {0, 2, 0, 2, 0}},
    {';', {0, 2, 0, 2, 4}}, {'-', {0, 0, 7, 0, 0}}, {'+', {0, 2, 7, 2, 0}},
    {'/', {1, 1, 2, 4, 4}}, {'=', {0, 7, 0, 7, 0}}, {'(', {2, 4, 4, 4, 2}},
    {')', {2, 1, 1, 1, 2}}, {'%', {5, 1, 2, 4, 5}}, {'_', {0, 0, 0, 0, 7}},
    {'\'', {2, 2, 0, 0, 0}}, {'#', {5, 7, 5, 7, 5}}, {'!', {2, 2, 2, 0, 2}},
    {'?', {6, 1, 2, 0, 2}},
};

static const uint8_t *glyph_rows(char c)
{
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].c == c) return font[i].rows;
    return NULL;
}

uint32_t ossa_render_text(ossa_render_image *image, int32_t x, int32_t y, uint32_t scale,
                          const uint8_t rgba[4], const char *text)
{
    if (!image || !image->pixels || !rgba || !text) return 0;
    if (scale == 0) scale = 1;
    if (scale > 256) scale = 256;
    rd_target t;
    memset(&t, 0, sizeof t);
    t.width = image->width, t.height = image->height;
    t.color = image->pixels;
    t.stride = image->stride ? image->stride : (size_t)image->width * 4;
    const float alpha = rgba[3] / 255.0f;
    const int64_t step = 4 * (int64_t)scale;
    int64_t cx = x, cy = y, widest = 0, line = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            cy += 6 * (int64_t)scale;
            cx = x;
            line = 0;
            continue;
        }
        const uint8_t *rows = glyph_rows(*p);
        for (int r = 0; rows && r < 5; r++)
            for (int c = 0; c < 3; c++) {
                if (!(rows[r] & (4 >> c))) continue;
                for (int64_t py = cy + r * (int64_t)scale; py < cy + (r + 1) * (int64_t)scale; py++) {
                    if (py < 0 || py >= (int64_t)t.height) continue;
                    for (int64_t px = cx + c * (int64_t)scale; px < cx + (c + 1) * (int64_t)scale;
                         px++) {
                        if (px < 0 || px >= (int64_t)t.width) continue;
                        ossa__rd_blend_pixel(t.color + (size_t)py * t.stride + (size_t)px * 4, rgba,
                                             alpha);
                    }
                }
            }
        cx += step;
        line += step;
        /* The last column of gaps is not part of the width. */
        if (line - (int64_t)scale > widest) widest = line - (int64_t)scale;
    }
    return widest > UINT32_MAX ? UINT32_MAX : (uint32_t)widest;
}
