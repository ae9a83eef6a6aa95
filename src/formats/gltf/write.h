/* The glTF writer's shared state: write.c builds the document (skeleton,
 * meshes, skin, animations) from the building blocks of write_doc.c;
 * write_materials.c adds materials, textures, samplers and images. Not
 * installed. */
#ifndef OSSA_GLTF_WRITE_H
#define OSSA_GLTF_WRITE_H

#include "core/lists.h"
#include "core/materials.h"
#include "formats/gltf/gltf.h"

#include <cjson/cJSON.h>

typedef enum { MODE_EMBED, MODE_EXTERNAL, MODE_GLB } write_mode;

typedef struct gw {
    const ossa_model *m;
    const ossa_write_options *opt;
    const ossa_allocator *alloc;
    ossa_error *error;
    ossa_buf bin;
    cJSON *root, *accessors, *views, *nodes, *meshes, *materials, *images, *textures, *samplers;
    bool nomem;
    bool failed; /* a step failed with its error filled in */
    /* Entries of the top-level arrays so far (cJSON counts by walking) */
    int nviews, naccessors, nnodes, nmeshes, nimages;
    uint32_t J;
    int skeleton_node; /* node above every joint, or -1 */
    /* Blend data, model-wide: `slots` influences per vertex (4 or 8). */
    uint32_t slots;
    uint16_t *joints;
    float *weights_f;   /* float weights, or NULL */
    uint8_t *weights_u; /* normalized ubyte weights, or NULL */
    uint8_t *weighted;  /* per vertex: has at least one influence */
    /* Per joint, the channels (OSSA_CHANNEL_*) every animation keys: those
     * that some animation moves, unless gltf.sparse_channels. */
    uint8_t *keyed;
    /* Images (write_materials.c) */
    ossa_images images_mode; /* EMBED, BESIDE or NONE: resolved */
    const char *path;        /* the output file, for images beside it; NULL = none */
    uint32_t texcoords;      /* TEXCOORD_n sets written */
    int *image_of_extra;     /* per model extra: its glTF image, or -1 */
    ossa_output_file *beside; /* image files to write beside the output */
    char **beside_names;
    size_t nbeside;
    char dropped[4][200];    /* names for one warning per kind of loss */
    uint32_t ndropped[4];
    char unconverted[200];   /* why the first TGA image could not become PNG */
    /* TGA images turned into PNG (glTF holds PNG and JPEG only), per model
     * extra; data NULL = none. Kept until the files are written. */
    struct gw_png {
        void *data;
        size_t size;
    } *png_of_extra;
    ossa_extra_index index;  /* the model's images and materials */
    ossa_intern material_names; /* written materials, in glTF order */
    ossa_intern texture_keys;   /* "image sampler" of each written texture */
    ossa_intern sampler_keys;   /* "mag min wrapS wrapT" of each written sampler */
    ossa_intern beside_taken;   /* names of the image files beside the output */
} gw;

/* -- Building blocks (write_doc.c). A failed allocation in cJSON sets
 *    w->nomem once; the document is then dropped as a whole. -- */

/* Adds `item` to `parent` (under `key`, or appended to an array when key
 * is NULL) and returns it, or NULL (with nomem set) when either is NULL. */
cJSON *ossa__gltfw_put(gw *w, cJSON *parent, const char *key, cJSON *item);
/* A number as the shortest text that reads back as the same float. */
cJSON *ossa__gltfw_jfloat(float v);
void ossa__gltfw_put_int(gw *w, cJSON *obj, const char *key, double v);
void ossa__gltfw_put_floats(gw *w, cJSON *obj, const char *key, const float *v, int n);
/* A string made valid UTF-8 (bad bytes become U+FFFD). */
cJSON *ossa__gltfw_jstring(gw *w, const char *s);
void ossa__gltfw_put_name(gw *w, cJSON *obj, const char *name);
/* A URI reference for a file name (percent-encoded). */
cJSON *ossa__gltfw_juri(gw *w, const char *s);
/* Appends `size` bytes as a new bufferView (4-byte aligned); its index. */
int ossa__gltfw_add_view(gw *w, const void *data, size_t size, size_t stride, int target);
int ossa__gltfw_add_accessor(gw *w, int view, int ctype, uint32_t count, const char *type,
                             bool normalized, const float *min, const float *max, int ncomp);
const char *ossa__gltfw_type_name(uint32_t n);
size_t ossa__gltfw_ctype_size(int ctype);
int ossa__gltfw_add_vertex_accessor(gw *w, const void *data, uint32_t count, int ctype,
                                    uint32_t ncomp, bool normalized, const float *min,
                                    const float *max);

/* Short names for the writer's own files. */
static inline cJSON *put(gw *w, cJSON *parent, const char *key, cJSON *item)
{
    return ossa__gltfw_put(w, parent, key, item);
}
static inline cJSON *jfloat(float v) { return ossa__gltfw_jfloat(v); }
static inline void put_int(gw *w, cJSON *obj, const char *key, double v)
{
    ossa__gltfw_put_int(w, obj, key, v);
}
static inline void put_floats(gw *w, cJSON *obj, const char *key, const float *v, int n)
{
    ossa__gltfw_put_floats(w, obj, key, v, n);
}
static inline cJSON *jstring(gw *w, const char *s) { return ossa__gltfw_jstring(w, s); }
static inline void put_name(gw *w, cJSON *obj, const char *name) { ossa__gltfw_put_name(w, obj, name); }
static inline cJSON *juri(gw *w, const char *s) { return ossa__gltfw_juri(w, s); }
static inline int add_view(gw *w, const void *data, size_t size, size_t stride, int target)
{
    return ossa__gltfw_add_view(w, data, size, stride, target);
}
static inline int add_accessor(gw *w, int view, int ctype, uint32_t count, const char *type,
                               bool normalized, const float *min, const float *max, int ncomp)
{
    return ossa__gltfw_add_accessor(w, view, ctype, count, type, normalized, min, max, ncomp);
}
static inline const char *type_name(uint32_t n) { return ossa__gltfw_type_name(n); }
static inline int add_vertex_accessor(gw *w, const void *data, uint32_t count, int ctype,
                                      uint32_t ncomp, bool normalized, const float *min,
                                      const float *max)
{
    return ossa__gltfw_add_vertex_accessor(w, data, count, ctype, ncomp, normalized, min, max);
}

/* -- Materials and images (write_materials.c) -- */

/* Prepares the images of the write: where they go (`path`: the output
 * file when images may go beside it, else NULL) and what the document can
 * reference. */
ossa_status ossa__gltfw_images_begin(gw *w, write_mode mode, const char *path);
/* Index of the material named `name`, created on first use with its
 * description (OSSA_EXTRA_MATERIAL, or IQM's convention) and textures. */
int ossa__gltfw_material(gw *w, const char *name);
/* One warning per kind of image that could not be written. */
void ossa__gltfw_images_report(gw *w);
void ossa__gltfw_images_end(gw *w);

#endif
