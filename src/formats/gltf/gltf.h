/* glTF 2.0 (.gltf JSON and .glb binary): what the reader and the writer
 * share. The JSON goes through libcjson; docs/formats/gltf.md describes
 * the mapping between glTF and the model.
 *
 * Axes. The model keeps ossa's own convention (IQM's: Z up, right-handed,
 * front faces clockwise, texcoord origin top-left); glTF is Y up,
 * right-handed, front faces counter-clockwise, texcoord origin top-left.
 * Both files are right-handed, so one proper rotation maps the spaces:
 * -90 degrees about X, ossa (x, y, z) -> glTF (x, z, -y), the rotation
 * Blender's glTF exporter applies to its Z-up scenes. Applied to a joint
 * transform by conjugation it keeps T * R * S form: translations move like
 * points, quaternion vector parts like vectors (w is kept) and scales swap
 * their y and z. Every step only moves and negates floats, so a conversion
 * and its inverse give back the same bits. Winding is the one thing the
 * rotation does not fix: triangles are written (a, c, b) and read back the
 * same way. Texcoords need nothing. */
#ifndef OSSA_GLTF_H
#define OSSA_GLTF_H

#include "formats/format.h"
#include "text/text.h"

/* GLB container (glTF 2.0 spec, section "Binary glTF Layout"). */
#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_VERSION 2u
#define GLB_HEADER_SIZE 12
#define GLB_CHUNK_HEADER_SIZE 8
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

/* Accessor component types. */
enum {
    GLTF_BYTE = 5120,
    GLTF_UNSIGNED_BYTE = 5121,
    GLTF_SHORT = 5122,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_FLOAT = 5126
};

/* bufferView targets. */
enum { GLTF_ARRAY_BUFFER = 34962, GLTF_ELEMENT_ARRAY_BUFFER = 34963 };

/* Primitive modes. */
enum {
    GLTF_POINTS = 0,
    GLTF_LINES = 1,
    GLTF_LINE_LOOP = 2,
    GLTF_LINE_STRIP = 3,
    GLTF_TRIANGLES = 4,
    GLTF_TRIANGLE_STRIP = 5,
    GLTF_TRIANGLE_FAN = 6
};

/* The property under which ossa keeps what glTF has no place for, in the
 * "extras" of the root object and of each animation. */
#define GLTF_EXTRAS_KEY "ossa"

/* -- Axis conversion (see the top of this file) -- */

static inline void gltf_vec_to_gltf(const float in[3], float out[3])
{
    float x = in[0], y = in[1], z = in[2];
    out[0] = x;
    out[1] = z;
    out[2] = -y;
}

static inline void gltf_vec_from_gltf(const float in[3], float out[3])
{
    float x = in[0], y = in[1], z = in[2];
    out[0] = x;
    out[1] = -z;
    out[2] = y;
}

static inline void gltf_scale_swap(const float in[3], float out[3])
{
    float x = in[0], y = in[1], z = in[2];
    out[0] = x;
    out[1] = z;
    out[2] = y;
}

void ossa__gltf_transform_to_gltf(const ossa_transform *in, ossa_transform *out);
void ossa__gltf_transform_from_gltf(const ossa_transform *in, ossa_transform *out);

/* The shortest decimal text that reads back as the same float, whatever
 * the C locale (ossa__text_format_float: "%.9g" style at most, "-0" kept);
 * "0" for non-finite values, which JSON cannot hold. */
void ossa__gltf_float_text(float v, char buf[32]);

ossa_status ossa__gltf_read(ossa_model *model, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error);
ossa_status ossa__gltf_write(const ossa_model *model, const ossa_write_options *options,
                             ossa_buf *out, ossa_error *error);
ossa_status ossa__glb_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error);
ossa_status ossa__gltf_write_files(const ossa_model *model, const char *path,
                                   const ossa_write_options *options, ossa_error *error);
ossa_status ossa__glb_write_files(const ossa_model *model, const char *path,
                                  const ossa_write_options *options, ossa_error *error);

#endif
