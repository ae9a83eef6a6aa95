/* Writes the seed corpus of fuzz_jpeg into the directory given (normally
 * fuzz/corpus/jpeg/): small pictures made here, one per way JPEG codes
 * them (baseline, progressive, grey, restart markers, optimised and
 * arithmetic coding, chroma subsampling), so that the fuzzer starts from
 * every decoder path.
 *
 * usage: cc fuzz/make_jpeg_corpus.c -ljpeg -o /tmp/make_jpeg_corpus &&
 *        /tmp/make_jpeg_corpus fuzz/corpus/jpeg */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

typedef struct seed {
    const char *name;
    int w, h, grey, progressive, restart, optimize, arith, subsample, quality;
} seed;

static void write_seed(const char *dir, const seed *s)
{
    int ch = s->grey ? 1 : 3;
    unsigned char *px = malloc((size_t)s->w * s->h * ch);
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++)
            for (int c = 0; c < ch; c++)
                px[((size_t)y * s->w + x) * ch + c] = (unsigned char)((x * 37 + y * 11 + c * 80) ^ (x * y));
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    cinfo.err = jpeg_std_error(&err);
    jpeg_create_compress(&cinfo);
    unsigned char *buf = NULL;
    unsigned long len = 0;
    jpeg_mem_dest(&cinfo, &buf, &len);
    cinfo.image_width = (JDIMENSION)s->w, cinfo.image_height = (JDIMENSION)s->h;
    cinfo.input_components = ch;
    cinfo.in_color_space = s->grey ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, s->quality, TRUE);
    if (!s->subsample)
        for (int i = 0; i < cinfo.num_components; i++)
            cinfo.comp_info[i].h_samp_factor = cinfo.comp_info[i].v_samp_factor = 1;
    if (s->progressive) jpeg_simple_progression(&cinfo);
    cinfo.restart_interval = (unsigned)s->restart;
    cinfo.optimize_coding = s->optimize ? TRUE : FALSE;
    cinfo.arith_code = s->arith ? TRUE : FALSE;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = px + (size_t)cinfo.next_scanline * s->w * ch;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.jpg", dir, s->name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    free(buf);
    free(px);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    static const seed seeds[] = {
        {"baseline", 16, 16, 0, 0, 0, 0, 0, 0, 90},
        {"subsampled", 24, 20, 0, 0, 0, 0, 0, 1, 75},
        {"progressive", 24, 20, 0, 1, 0, 0, 0, 1, 75},
        {"grey", 9, 7, 1, 0, 0, 0, 0, 0, 85},
        {"restarts", 32, 16, 0, 0, 1, 0, 0, 1, 80},
        {"optimized", 16, 16, 0, 0, 0, 1, 0, 0, 60},
        {"arithmetic", 16, 8, 0, 0, 0, 0, 1, 1, 70},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) write_seed(argv[1], &seeds[i]);
    return 0;
}
