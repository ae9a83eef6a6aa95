/* Palettes for GIF frames: median cut over a histogram of 15-bit colour
 * cells. giflib's own GifQuantizeBuffer works the same way but averages
 * the 5-bit cell coordinates, which puts every palette colour up to 7
 * levels below the pixels it stands for; here each cell keeps the sums of
 * its pixels' full 8-bit values, so palette colours are true averages. The
 * order of every sort is total, so the palette does not depend on the C
 * library's qsort. */
#include "render/render.h"

#include <stdlib.h>

static int cell_of(const uint8_t *p)
{
    return (p[0] >> 3) << 10 | (p[1] >> 3) << 5 | (p[2] >> 3);
}

static int coord(int cell, int channel)
{
    return (cell >> (10 - 5 * channel)) & 31;
}

/* qsort has no context argument; the channel to sort by is encoded in
 * the keys instead: key = coordinate << 15 | cell, unique per cell. */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef struct box {
    uint32_t first, count; /* cells[first .. first + count) */
    uint64_t pixels;
    int lo[3], hi[3];
} box;

static void measure(const rd_quantizer *q, box *b)
{
    b->pixels = 0;
    for (int c = 0; c < 3; c++) b->lo[c] = 31, b->hi[c] = 0;
    for (uint32_t i = b->first; i < b->first + b->count; i++) {
        int cell = (int)(q->cells[i] & 0x7FFF);
        b->pixels += q->hist[cell].count;
        for (int c = 0; c < 3; c++) {
            int v = coord(cell, c);
            if (v < b->lo[c]) b->lo[c] = v;
            if (v > b->hi[c]) b->hi[c] = v;
        }
    }
}

/* Splits box b along its longest side at the pixel median; false when it
 * holds a single cell. */
static bool split(rd_quantizer *q, box *b, box *out)
{
    if (b->count < 2) return false;
    int axis = 0;
    for (int c = 1; c < 3; c++)
        if (b->hi[c] - b->lo[c] > b->hi[axis] - b->lo[axis]) axis = c;
    uint32_t *cells = q->cells + b->first;
    for (uint32_t i = 0; i < b->count; i++) {
        uint32_t cell = cells[i] & 0x7FFF;
        cells[i] = (uint32_t)coord((int)cell, axis) << 15 | cell;
    }
    qsort(cells, b->count, sizeof *cells, cmp_u32);
    uint64_t half = b->pixels / 2, seen = 0;
    uint32_t at = 0;
    while (at < b->count - 1) {
        seen += q->hist[cells[at] & 0x7FFF].count;
        at++;
        if (seen >= half) break;
    }
    out->first = b->first + at;
    out->count = b->count - at;
    b->count = at;
    measure(q, b);
    measure(q, out);
    return true;
}

uint32_t ossa__rd_quantize(rd_quantizer *q, const uint8_t *rgba, uint32_t width, uint32_t height,
                           size_t stride, uint32_t max_colors, uint8_t *index, uint8_t palette[][3])
{
    uint32_t n = 0; /* cells used, in the order first met */
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *p = rgba + (size_t)y * stride;
        for (uint32_t x = 0; x < width; x++, p += 4) {
            if (p[3] < 128) continue;
            int cell = cell_of(p);
            rd_cell *h = &q->hist[cell];
            if (h->count++ == 0) q->cells[n++] = (uint32_t)cell;
            h->sum[0] += p[0], h->sum[1] += p[1], h->sum[2] += p[2];
        }
    }
    uint32_t nbox = 0;
    box boxes[256];
    if (n) {
        boxes[0].first = 0, boxes[0].count = n;
        measure(q, &boxes[0]);
        nbox = 1;
    }
    /* Split the box with the most pixels among those that can be split. */
    while (nbox < max_colors) {
        int best = -1;
        for (uint32_t i = 0; i < nbox; i++)
            if (boxes[i].count > 1 && (best < 0 || boxes[i].pixels > boxes[best].pixels))
                best = (int)i;
        if (best < 0 || !split(q, &boxes[best], &boxes[nbox])) break;
        nbox++;
    }
    for (uint32_t i = 0; i < nbox; i++) {
        uint64_t sum[3] = {0, 0, 0}, count = 0;
        for (uint32_t k = boxes[i].first; k < boxes[i].first + boxes[i].count; k++) {
            const rd_cell *h = &q->hist[q->cells[k] & 0x7FFF];
            count += h->count;
            for (int c = 0; c < 3; c++) sum[c] += h->sum[c];
        }
        for (int c = 0; c < 3; c++) palette[i][c] = (uint8_t)((sum[c] + count / 2) / count);
    }
    /* Each cell takes the colour of its box. (Searching each cell's
     * nearest colour instead gave the same mean error on the test's
     * frames and took most of the frame's time.) */
    for (uint32_t i = 0; i < nbox; i++)
        for (uint32_t k = boxes[i].first; k < boxes[i].first + boxes[i].count; k++)
            q->map[q->cells[k] & 0x7FFF] = (uint8_t)i;
    /* Only the cells used are cleared for the next frame. */
    for (uint32_t k = 0; k < n; k++) memset(&q->hist[q->cells[k] & 0x7FFF], 0, sizeof(rd_cell));
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *p = rgba + (size_t)y * stride;
        uint8_t *o = index + (size_t)y * width;
        for (uint32_t x = 0; x < width; x++, p += 4) o[x] = q->map[cell_of(p)];
    }
    return nbox;
}
