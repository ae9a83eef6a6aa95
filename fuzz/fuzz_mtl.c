/*
 * MTL fuzz target: the input is the `mtllib` file of a fixed OBJ (served
 * by a read_file callback, with a small PNG for every image it names).
 * Whatever the bytes, the OBJ must load (a damaged MTL file is a warning,
 * never a failure). The model is then written as OBJ (through an output
 * callback: the OBJ, its MTL and the images), and the OBJ read back with
 * that MTL must load and give every material the description it had:
 * what the writer writes, the reader reads the same (a trap otherwise).
 * Seeds: fuzz/corpus/mtl (every statement, options, damaged files).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "core/materials.h"

static const char obj[] = "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\n"
                          "usemtl a\nf 1/1 2/2 3/3\nusemtl b\nf 1/1 3/3 2/2\n"
                          "usemtl c d\nf 3/3 2/2 1/1\nusemtl x.png\nf 2/2 1/1 3/3\n";

/* A 1x1 PNG. */
static const unsigned char png[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};

typedef struct served {
    const void *mtl;
    size_t mtl_size;
    /* the files of a write: the OBJ first, then the MTL, then images */
    ossa_output_file files[64];
    size_t count;
} served;

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcmp(s + n - t, tail);
}

static ossa_status serve(void *user, const char *path, void **data, size_t *size)
{
    served *s = user;
    if (ends_with(path, ".mtl")) {
        *data = (void *)s->mtl;
        *size = s->mtl_size;
        return OSSA_OK;
    }
    for (size_t i = 2; i < s->count; i++) /* an image the write put beside */
        if (ends_with(path, s->files[i].path)) {
            *data = (void *)s->files[i].data;
            *size = s->files[i].size;
            return OSSA_OK;
        }
    *data = (void *)png;
    *size = sizeof png;
    return OSSA_OK;
}

static ossa_status capture(void *user, const ossa_output_file *files, size_t count, ossa_error *error)
{
    (void)error;
    served *s = user;
    if (count > 64) __builtin_trap();
    for (size_t i = 0; i < count; i++) {
        s->files[i].path = strdup(files[i].path);
        void *copy = malloc(files[i].size ? files[i].size : 1);
        memcpy(copy, files[i].data, files[i].size);
        s->files[i].data = copy;
        s->files[i].size = files[i].size;
    }
    s->count = count;
    return OSSA_OK;
}

static ossa_model *load(const void *text, size_t size, served *s)
{
    ossa_load_options lo = {0};
    lo.file_name = "/fuzz/m.obj";
    lo.read_file = serve;
    lo.file_user = s;
    ossa_error error;
    ossa_model *m = ossa_load_memory(text, size, &lo, &error);
    if (!m) __builtin_trap(); /* an MTL file never fails a load */
    return m;
}

/* The description a material of the first load has, which the second
 * must give back: what MTL holds (docs/formats/obj.md §10). */
static void compare(const ossa_model *a, const ossa_model *b, const char *name)
{
    char key[64] = OSSA_EXTRA_MATERIAL;
    strcat(key, name);
    const ossa_extra *ea = NULL, *eb = NULL;
    for (uint32_t i = 0; i < a->num_extras; i++)
        if (!strcmp(a->extras[i].key, key)) ea = &a->extras[i];
    for (uint32_t i = 0; i < b->num_extras; i++)
        if (!strcmp(b->extras[i].key, key)) eb = &b->extras[i];
    if (!ea) return;
    if (!eb) __builtin_trap();
    ossa_material x, y;
    ossa__material_parse(ea->data, ea->size, &x);
    ossa__material_parse(eb->data, eb->size, &y);
    for (int s = 0; s < OSSA_TEXTURE_COUNT; s++)
        if ((s == OSSA_TEXTURE_BASE_COLOR || s == OSSA_TEXTURE_EMISSIVE || s == OSSA_TEXTURE_NORMAL) &&
            !x.textures[s].image[0] != !y.textures[s].image[0])
            __builtin_trap();
    for (int c = 0; c < 4; c++)
        if (x.base_color[c] != y.base_color[c] || (c < 3 && x.emissive[c] != y.emissive[c]))
            __builtin_trap();
    if (x.metallic != y.metallic || x.roughness != y.roughness ||
        (x.textures[OSSA_TEXTURE_NORMAL].image[0] && x.normal_scale != y.normal_scale) ||
        (x.base_color[3] < 1 && x.alpha_mode != y.alpha_mode) || x.double_sided != y.double_sided)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    served first = {data, size, {{0}}, 0};
    ossa_model *m = load(obj, sizeof obj - 1, &first);
    ossa_model_validate(m, NULL, NULL, NULL);
    ossa_write_options wo = {0};
    wo.output = capture;
    wo.user = &first;
    ossa_error error;
    if (ossa_write_file(m, "/fuzz/out.obj", &wo, &error) != OSSA_OK) __builtin_trap();
    if (first.count < 2) __builtin_trap(); /* the meshes have materials: an MTL */
    served again = {first.files[1].data, first.files[1].size, {{0}}, 0};
    memcpy(again.files, first.files, sizeof first.files);
    again.count = first.count;
    ossa_model *back = load(first.files[0].data, first.files[0].size, &again);
    static const char *const names[] = {"a", "b", "c d"};
    for (int i = 0; i < 3; i++) compare(m, back, names[i]);
    ossa_model_free(back);
    ossa_model_free(m);
    for (size_t i = 0; i < first.count; i++) {
        free((void *)first.files[i].path);
        free((void *)first.files[i].data);
    }
    return 0;
}
