/* Materials and images in the model (materials.c): the text of the
 * OSSA_EXTRA_MATERIAL extras, the OSSA_EXTRA_IMAGE extras, image kinds and
 * file names. Formats that store materials (glTF) fill and read these;
 * io.c moves the images of formats that name an image file as a mesh's
 * material (IQM's convention) between the model and the files beside it.
 * Not installed. */
#ifndef OSSA_MATERIALS_H
#define OSSA_MATERIALS_H

#include "core/internal.h"

/* Texture slots, in the order of the text keys. */
typedef enum ossa_tex_slot {
    OSSA_TEX_BASE_COLOR,
    OSSA_TEX_METALLIC_ROUGHNESS,
    OSSA_TEX_NORMAL,
    OSSA_TEX_OCCLUSION,
    OSSA_TEX_EMISSIVE,
    OSSA_TEX_COUNT
} ossa_tex_slot;

/* "base_color", "metallic_roughness", ... */
extern const char *const ossa__tex_slot_names[OSSA_TEX_COUNT];

#define OSSA_IMAGE_NAME_MAX 256

typedef struct ossa_texture_ref {
    char image[OSSA_IMAGE_NAME_MAX]; /* "" = no texture in this slot */
    uint32_t texcoord;               /* TEXCOORD set */
    /* magFilter, minFilter, wrapS, wrapT as glTF (OpenGL) numbers; 0 =
     * unspecified */
    uint32_t sampler[4];
} ossa_texture_ref;

enum { OSSA_ALPHA_OPAQUE, OSSA_ALPHA_MASK, OSSA_ALPHA_BLEND };

/* A material, glTF's metallic-roughness model; defaults are glTF's. */
typedef struct ossa_material_desc {
    float base_color[4];
    float metallic, roughness;
    float normal_scale, occlusion_strength;
    float emissive[3];
    int alpha_mode; /* OSSA_ALPHA_* */
    float alpha_cutoff;
    bool double_sided;
    ossa_texture_ref tex[OSSA_TEX_COUNT];
} ossa_material_desc;

void ossa__material_defaults(ossa_material_desc *d);
/* Reads the text of an OSSA_EXTRA_MATERIAL extra into *d (defaults
 * first). Unknown keys and malformed values are skipped: the text is made
 * by ossa, and later versions may add keys. */
void ossa__material_parse(const void *text, size_t size, ossa_material_desc *d);
/* The text of *d: one line per value that differs from the default. */
void ossa__material_format(const ossa_material_desc *d, ossa_buf *out);
/* What *d says beyond its base colour texture (what a format that names
 * one image per material drops), as bits for ossa__material_lost_text. */
uint32_t ossa__material_beyond_base_image(const ossa_material_desc *d);
/* Those bits as words: "colour factors, normal maps". */
void ossa__material_lost_text(uint32_t lost, char *out, size_t cap);

/* An index of the model's OSSA_EXTRA_IMAGE and OSSA_EXTRA_MATERIAL
 * extras, for callers that look up many (a walk per lookup would cost the
 * square of their number). Building cannot fail: without memory, lookups
 * walk the extras. Valid while the model's extras do not change. */
typedef struct ossa_extra_index {
    const ossa_model *model;
    uint32_t *slots; /* extra index + 1, 0 = empty; NULL = walk */
    size_t mask;
} ossa_extra_index;

void ossa__extra_index_build(const ossa_model *model, ossa_extra_index *index);
void ossa__extra_index_free(ossa_extra_index *index);
/* The first extra whose key is prefix + name, or NULL. */
const ossa_extra *ossa__extra_lookup(const ossa_extra_index *index, const char *prefix,
                                     const char *name);
/* ossa__material_of through an index. */
bool ossa__material_in(const ossa_extra_index *index, const char *name, ossa_material_desc *d);

/* The k-th name (k = 0, 1, ...) under which the image that `name` means
 * (a material or texture name, as IQM, MD5 and SMD files give them) is
 * looked for: `name` itself when it ends in an image extension, then its
 * stem (`name` without that extension, else the whole name) with ".tga",
 * ".png" and ".jpg", skipping the one already tried: "Body.tga" gives
 * Body.tga, Body.png, Body.jpg; "skin.png" gives skin.png, skin.tga,
 * skin.jpg; "Body" and "Body.001" give Body.tga, Body.png, Body.jpg and
 * Body.001.tga, ... False when there are no more (names too long for
 * OSSA_IMAGE_NAME_MAX are skipped). */
bool ossa__image_candidate(const char *name, unsigned k, char out[OSSA_IMAGE_NAME_MAX]);

/* The model's extra OSSA_EXTRA_MATERIAL + name / OSSA_EXTRA_IMAGE + name
 * (the first one), or NULL: a walk over the extras. */
const ossa_extra *ossa__model_material(const ossa_model *model, const char *name);
const ossa_extra *ossa__model_image(const ossa_model *model, const char *name);
/* The description of material `name`: its extra when there is one, else
 * the IQM convention: the first of the material's image candidates
 * (ossa__image_candidate) that the model has an image of is its base
 * colour texture ("Body" with an image "Body.tga"), or, when it has none,
 * a material named like an image file has that name. False when neither
 * says anything. */
bool ossa__material_of(const ossa_model *model, const char *name, ossa_material_desc *d);

/* "image/png" or "image/jpeg" from the first bytes, else NULL. */
const char *ossa__image_mime(const void *data, size_t size);
/* A name that ends in an image file extension (.png .jpg .jpeg .tga .bmp
 * .dds .gif .webp .ktx .ktx2, any case). */
bool ossa__is_image_name(const char *name);
/* A plain file name made from `name` (which may hold directories or
 * anything): the part after the last slash or backslash, control
 * characters, ':' and the like replaced by '_', "" when nothing is left
 * (or it is "." or ".."). `out` holds OSSA_IMAGE_NAME_MAX bytes. */
void ossa__image_file_name(const char *name, char *out);

#endif
