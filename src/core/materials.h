/* Materials and images in the model (materials.c): the text of the
 * OSSA_EXTRA_MATERIAL extras, the OSSA_EXTRA_IMAGE extras, image kinds and
 * file names. Formats that store materials (glTF) fill and read these;
 * io.c moves the images of formats that name an image file as a mesh's
 * material (IQM's convention) between the model and the files beside it.
 * Not installed. */
#ifndef OSSA_MATERIALS_H
#define OSSA_MATERIALS_H

#include "core/internal.h"
#include "image/image.h"

/* The text keys of the texture slots (ossa_texture_slot order):
 * "base_color", "metallic_roughness", ... */
extern const char *const ossa__tex_slot_names[OSSA_TEXTURE_COUNT];

/* (The material description itself is public: ossa_material, in
 * ossa/model.h.) */

void ossa__material_defaults(ossa_material *d);
/* Reads the text of an OSSA_EXTRA_MATERIAL extra into *d (defaults
 * first). Unknown keys and malformed values are skipped: the text is made
 * by ossa, and later versions may add keys. */
void ossa__material_parse(const void *text, size_t size, ossa_material *d);
/* The text of *d: one line per value that differs from the default. */
void ossa__material_format(const ossa_material *d, ossa_buf *out);
/* What *d says beyond its base colour texture (what a format that names
 * one image per material drops), as bits for ossa__material_lost_text. */
uint32_t ossa__material_beyond_base_image(const ossa_material *d);
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
bool ossa__material_in(const ossa_extra_index *index, const char *name, ossa_material *d);


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
bool ossa__material_of(const ossa_model *model, const char *name, ossa_material *d);


#endif
