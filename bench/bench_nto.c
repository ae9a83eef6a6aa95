/* SOTC .nto textures: how long decoding a level takes for each kind
 * (RGBA32, 8-bit and 4-bit palettes, linear and swizzled), encoding it as
 * PNG with the library's encoder at both its settings (the one a texture
 * keeps is marked), and a whole load (ossa_load_memory: the order of the
 * size nibbles, the level, the PNG), against copying the level's RGBA
 * bytes (memcpy).
 * The textures are built here with the XFF writer: 512x512 (4-bit 512x256
 * too, where the size nibbles differ and the picture decides their order),
 * one level, texels of a smooth pattern.
 *
 * Thread CPU time, best and median of 25 runs.
 *
 * Usage: bench_nto */
#include "bench_util.h"
#include "formats/sotc/sotc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RUNS = 25 };

static double cpu_ms(void) { return bench_ms(CLOCK_THREAD_CPUTIME_ID); }

typedef struct texture {
    const char *name;
    unsigned kind, bpp, log_w, log_h, swizzle;
    ossa_buf file;
} texture;

/* The .nto: header, one level of texels (i * 7 + row, a smooth ramp),
 * the CLUT; docs/formats/sotc.md §8.1. */
static void build(texture *t)
{
    sotc_rodata r;
    ossa__ro_init(&r, NULL);
    uint32_t w = 1u << t->log_w, h = 1u << t->log_h;
    size_t bytes = (size_t)w * h * t->bpp / 8;
    unsigned entries = t->bpp == 8 ? 256 : t->bpp == 4 ? 16 : 0;
    uint32_t hdr = ossa__ro_alloc(&r, 0x20, 16), px = ossa__ro_alloc(&r, bytes, 16);
    uint32_t pal = entries ? ossa__ro_alloc(&r, entries * 4, 16) : 0;
    for (size_t i = 0; i < bytes; i++) ossa__ro_u8(&r, px + (uint32_t)i, (uint8_t)(i / 64 + i % 7));
    for (unsigned i = 0; i < entries * 4; i++) ossa__ro_u8(&r, pal + i, (uint8_t)(i * 3));
    static const char magic[4] = {'N', 'T', 'O', '2'};
    for (int i = 0; i < 4; i++) ossa__ro_u8(&r, hdr + (uint32_t)i, (uint8_t)magic[i]);
    ossa__ro_u32(&r, hdr + 0x04, 3);
    ossa__ro_ptr(&r, hdr + 0x14, px);
    ossa__ro_ptr(&r, hdr + 0x18, pal);
    ossa__ro_u8(&r, hdr + 0x1C, (uint8_t)t->kind);
    ossa__ro_u8(&r, hdr + 0x1D, 0x10);
    ossa__ro_u8(&r, hdr + 0x1E, (uint8_t)(t->log_h << 4 | t->log_w));
    ossa__ro_u8(&r, hdr + 0x1F, (uint8_t)t->swizzle);
    ossa__buf_init(&t->file, NULL);
    ossa_error err;
    if (ossa__xff_write(&r, hdr, 1, &t->file, &err)) {
        fprintf(stderr, "bench_nto: %s\n", err.message);
        exit(1);
    }
    ossa__ro_release(&r);
}

static void report(const char *what, double *ms, int n, double texels)
{
    double median = bench_median(ms, n);
    printf("  %-34s %8.3f ms best, %8.3f ms median, %6.2f ns/texel\n", what, ms[0], median,
           ms[0] * 1e6 / texels);
}

static void measure(texture *t)
{
    sotc_nto n;
    ossa_error err;
    if (ossa__nto_parse(&n, t->file.data, t->file.size, false, NULL, &err)) {
        fprintf(stderr, "bench_nto: %s\n", err.message);
        exit(1);
    }
    uint32_t w = n.levels[0].width, h = n.levels[0].height;
    double texels = (double)w * h, ms[RUNS];
    printf("%s (%ux%u, %zu bytes)\n", t->name, w, h, t->file.size);
    size_t rgba_size = (size_t)w * h * 4;
    uint8_t *copy = malloc(rgba_size), *from = malloc(rgba_size);
    if (!copy || !from) exit(1);
    memset(from, 1, rgba_size);
    for (int i = 0; i < RUNS; i++) {
        double t0 = cpu_ms();
        memcpy(copy, from, rgba_size);
        ms[i] = cpu_ms() - t0;
        if (copy[i % rgba_size] != 1) exit(1);
    }
    report("memcpy of the RGBA texels", ms, RUNS, texels);
    uint8_t *rgba = NULL;
    for (int i = 0; i < RUNS; i++) {
        free(rgba);
        double t0 = cpu_ms();
        if (ossa__nto_decode(&n, 0, 0, NULL, &rgba, &err)) exit(1);
        ms[i] = cpu_ms() - t0;
    }
    report("decode level 0", ms, RUNS, texels);
    /* The library's PNG encoder, both settings: the texture's (palette
     * kinds unfiltered at level 3, RGBA32 adaptive at level 6) and the other. */
    ossa_rgba_image im = {w, h, rgba, (size_t)w * 4};
    for (int fast = 0; fast < 2; fast++) {
        for (int i = 0; i < RUNS; i++) {
            void *png;
            size_t size;
            double t0 = cpu_ms();
            if (ossa__png_encode(&im, fast ? OSSA_PNG_FAST : 0, NULL, &png, &size, &err)) exit(1);
            ms[i] = cpu_ms() - t0;
            if (i == 0) printf("  PNG %s: %zu bytes%s\n", fast ? "fast" : "adaptive", size,
                               fast == (t->bpp != 32) ? " (kept)" : "");
            ossa__free(NULL, png, size);
        }
        report(fast ? "PNG, no filters, level 3" : "PNG, adaptive filters, level 6", ms, RUNS,
               texels);
    }
    for (int i = 0; i < RUNS; i++) {
        double t0 = cpu_ms();
        ossa_model *m = ossa_load_memory(t->file.data, t->file.size, NULL, &err);
        ms[i] = cpu_ms() - t0;
        if (!m) exit(1);
        ossa_model_free(m);
    }
    report("ossa_load_memory (order, PNG)", ms, RUNS, texels);
    free(rgba);
    free(copy);
    free(from);
}

int main(void)
{
    texture all[] = {
        {"RGBA32", 0x00, 32, 9, 9, 0x00, {0}},
        {"8-bit palette", 0x13, 8, 9, 9, 0x00, {0}},
        {"8-bit palette, swizzled", 0x13, 8, 9, 9, 0x01, {0}},
        {"4-bit palette, swizzled", 0x14, 4, 9, 9, 0x01, {0}},
        {"4-bit palette, swizzled, 2:1", 0x14, 4, 9, 8, 0x01, {0}},
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        build(&all[i]);
        measure(&all[i]);
        ossa__buf_release(&all[i].file);
    }
    return 0;
}
