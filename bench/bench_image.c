/* Images (src/image/): TGA decoding and the library's PNG encoder, with
 * libpng's encoder (which the renderer used before, through its
 * simplified API) on the same pictures as the yardstick.
 *
 * Pictures: Fox.glb's 1024x1024 texture (a real texture, decoded with
 * libpng), written here as a 24-bit TGA, uncompressed and run-length
 * encoded (the kinds of the IQM SDK's mrfixit textures and of most game
 * content); and a 512x512 picture of Fox.glb drawn with `ossa render`'s
 * look (2x2 samples, grid, shadow). Times are thread CPU time, best of 9
 * (median beside it), each run at least ~20 ms of repeats.
 *
 * Usage: bench_image (needs ../shared/data/gltf/Fox.glb) */
#include "bench_util.h"
#include "image/image.h"
#include "ossa.h"

#include <png.h>

static const int REPEATS = 9;

static void die(const char *what, const ossa_error *e)
{
    fprintf(stderr, "bench_image: %s: %s\n", what, e ? e->message : "failed");
    exit(1);
}

/* A 24-bit TGA of the picture, bottom-up, written from the TGA 2.0
 * specification (uncompressed, or run-length packets within rows). */
static unsigned char *tga24(const ossa_render_image *im, int rle, size_t *size)
{
    size_t w = im->width, h = im->height;
    unsigned char *out = malloc(18 + w * h * 4 + h * w / 128 + h + 64), *p = out;
    memset(p, 0, 18);
    p[2] = rle ? 10 : 2;
    p[12] = (unsigned char)w, p[13] = (unsigned char)(w >> 8);
    p[14] = (unsigned char)h, p[15] = (unsigned char)(h >> 8);
    p[16] = 24;
    p += 18;
    for (size_t y = h; y-- > 0;) {
        const uint8_t *row = im->pixels + y * im->stride;
        for (size_t x = 0; x < w;) {
            size_t n = 1;
            if (rle) {
                while (x + n < w && n < 128 && !memcmp(row + (x + n) * 4, row + x * 4, 3)) n++;
                if (n > 1) {
                    *p++ = (unsigned char)(0x80 | (n - 1));
                    *p++ = row[x * 4 + 2], *p++ = row[x * 4 + 1], *p++ = row[x * 4];
                    x += n;
                    continue;
                }
                while (x + n < w && n < 128 && memcmp(row + (x + n) * 4, row + (x + n - 1) * 4, 3)) n++;
                *p++ = (unsigned char)(n - 1);
            } else {
                n = w;
            }
            for (size_t k = 0; k < n; k++, x++)
                *p++ = row[x * 4 + 2], *p++ = row[x * 4 + 1], *p++ = row[x * 4];
        }
    }
    *size = (size_t)(p - out);
    return out;
}

typedef void (*job_fn)(void *ctx);

/* Best and median ms of `fn` over REPEATS runs of enough repeats. */
static double measure(job_fn fn, void *ctx, double *median)
{
    double t[16];
    fn(ctx);
    for (int r = 0; r < REPEATS; r++) {
        int n = 0;
        double t0 = bench_ms(CLOCK_THREAD_CPUTIME_ID), t1;
        do {
            fn(ctx);
            n++;
            t1 = bench_ms(CLOCK_THREAD_CPUTIME_ID);
        } while (t1 - t0 < 20);
        t[r] = (t1 - t0) / n;
    }
    *median = bench_median(t, REPEATS);
    return t[0];
}

typedef struct job {
    const ossa_render_image *im;
    const unsigned char *file;
    size_t size, out_size;
    int fast;
} job;

static void copy_job(void *ctx)
{
    job *j = ctx;
    unsigned char *dst = malloc(j->size);
    memcpy(dst, j->file, j->size);
    j->out_size = dst[j->size / 2];
    free(dst);
}

static void tga_job(void *ctx)
{
    job *j = ctx;
    ossa_render_image out;
    ossa_error e;
    if (ossa_render_tga_decode(j->file, j->size, NULL, &out, &e)) die("TGA", &e);
    ossa_free(out.pixels, NULL);
}

static void ossa_png_job(void *ctx)
{
    job *j = ctx;
    ossa_rgba_image in = {j->im->width, j->im->height, j->im->pixels, j->im->stride};
    void *png;
    ossa_error e;
    if (ossa__png_encode(&in, j->fast ? OSSA_PNG_FAST : 0, NULL, &png, &j->out_size, &e)) die("PNG", &e);
    free(png);
}

static void libpng_job(void *ctx)
{
    job *j = ctx;
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = j->im->width;
    pi.height = j->im->height;
    pi.format = PNG_FORMAT_RGBA;
    pi.flags = j->fast ? PNG_IMAGE_FLAG_FAST : 0;
    size_t cap = PNG_IMAGE_PNG_SIZE_MAX(pi);
    void *buf = malloc(cap);
    png_alloc_size_t size = cap;
    if (!png_image_write_to_memory(&pi, buf, &size, 0, j->im->pixels, (png_int_32)j->im->stride, NULL))
        die("libpng", NULL);
    j->out_size = size;
    free(buf);
}

/* One row: `fn` measured (or, for a yardstick, the measurement given in
 * *base), and its ratio to the yardstick. */
static void row(const char *what, job_fn fn, job *j, double *base, double base_median)
{
    double med = base_median, best = *base;
    if (base_median < 0) best = measure(fn, j, &med);
    else fn(j); /* the output size */
    printf("| %s | %.2f ms (median %.2f) | %.1fx |", what, best, med, best / *base);
    if (fn == ossa_png_job || fn == libpng_job) printf(" %zu bytes |", j->out_size);
    printf("\n");
}

int main(void)
{
    const char *shared = getenv("OSSA_SHARED_DIR");
    char fox[4096];
    snprintf(fox, sizeof fox, "%s/data/gltf/Fox.glb", shared && *shared ? shared : "../shared");
    if (!bench_file_ready(fox)) {
        printf("bench_image: %s not found: skipped\n", fox);
        return 0;
    }
    ossa_model *m = bench_load(fox, 1);
    const ossa_extra *tex = NULL;
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (!strncmp(m->extras[i].key, OSSA_EXTRA_IMAGE, strlen(OSSA_EXTRA_IMAGE))) tex = &m->extras[i];
    if (!tex) die("Fox.glb has no image", NULL);
    ossa_render_image texture;
    ossa_error e;
    if (ossa_render_png_decode(tex->data, tex->size, NULL, &texture, &e)) die("texture", &e);

    /* The rendered picture, as `ossa render` draws it. */
    ossa_render_scene *scene = ossa_render_scene_create(m, NULL, &e);
    ossa_bounds b;
    ossa_render_camera cam;
    if (!scene || ossa_render_bounds(m, -1, &b, &e) ||
        ossa_render_camera_frame(NULL, &b, OSSA_AXIS_Z, 512, 512, &cam, &e))
        die("scene", &e);
    ossa_render_scene_load_materials(scene, m, fox, NULL, NULL);
    ossa_render_options o;
    memset(&o, 0, sizeof o);
    o.camera = &cam;
    o.flags = OSSA_RENDER_GRID | OSSA_RENDER_SHADOW;
    o.supersample = 2;
    ossa_render_image picture = {512, 512, malloc(512 * 512 * 4), 0, NULL};
    if (ossa_render_run(scene, &o, &picture, &e)) die("render", &e);
    picture.stride = 512 * 4;

    size_t plain_size, rle_size;
    unsigned char *plain = tga24(&texture, 0, &plain_size), *rle = tga24(&texture, 1, &rle_size);
    printf("Fox.glb's texture %ux%u as a 24-bit TGA: %zu bytes, run-length encoded %zu bytes\n\n",
           texture.width, texture.height, plain_size, rle_size);
    printf("| step | best | x the yardstick | output |\n| --- | --- | --- | --- |\n");
    job j = {&texture, plain, plain_size, 0, 0};
    double med, base = measure(copy_job, &j, &med);
    row("yardstick: malloc + memcpy of the uncompressed TGA", copy_job, &j, &base, med);
    row("TGA decode, uncompressed", tga_job, &j, &base, -1);
    j.file = rle, j.size = rle_size;
    row("TGA decode, run-length encoded", tga_job, &j, &base, -1);

    j.im = &texture;
    j.fast = 0;
    double lib = measure(libpng_job, &j, &med);
    row("texture: libpng, default settings (yardstick)", libpng_job, &j, &lib, med);
    row("texture: ossa__png_encode, adaptive filters, level 6", ossa_png_job, &j, &lib, -1);
    j.im = &picture;
    j.fast = 1;
    lib = measure(libpng_job, &j, &med);
    row("picture: libpng, PNG_IMAGE_FLAG_FAST (yardstick)", libpng_job, &j, &lib, med);
    row("picture: ossa_render_png_encode (OSSA_PNG_FAST)", ossa_png_job, &j, &lib, -1);

    free(plain);
    free(rle);
    free(picture.pixels);
    ossa_free(texture.pixels, NULL);
    ossa_render_scene_free(scene);
    ossa_model_free(m);
    return 0;
}
