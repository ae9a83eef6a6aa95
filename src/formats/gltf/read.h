/* The glTF reader's shared state: read.c parses the container, the
 * JSON, buffers and accessors; read_nodes.c, read_meshes.c and
 * read_anims.c (scene.h) turn nodes, skins, meshes and animations into
 * the model. Not installed. */
#ifndef OSSA_GLTF_READ_H
#define OSSA_GLTF_READ_H

#include "formats/gltf/gltf.h"

#include <cjson/cJSON.h>

/* A top-level JSON array as a table (cJSON's arrays are linked lists). */
typedef struct gltf_table {
    cJSON **items;
    uint32_t count;
} gltf_table;

typedef struct gltf_buffer {
    const unsigned char *data;
    size_t size; /* bytes available (>= byteLength once loaded) */
    bool loaded;
    unsigned char *owned; /* decoded data URI */
    size_t owned_size;    /* allocation size, for the free */
    ossa_sibling file;    /* external file */
} gltf_buffer;

typedef struct gltf_reader {
    ossa_model *model;
    const ossa_load_options *options;
    ossa_error *error;
    const ossa_allocator *alloc;
    const unsigned char *file;
    size_t file_size;
    uint64_t external_bytes; /* of the external buffers loaded so far */
    uint64_t pose_bytes;     /* of the animations decoded so far */
    bool glb;
    const unsigned char *bin; /* GLB BIN chunk, or NULL */
    size_t bin_size;
    cJSON *root;
    gltf_table buffers, views, accessors, nodes, meshes, skins, animations, materials, images,
        textures, scenes, samplers;
    gltf_buffer *buffer_data;
} gltf_reader;

/* What an accessor holds, checked against its buffer view and buffer. */
typedef struct gltf_accessor {
    int ctype;      /* GLTF_BYTE .. GLTF_FLOAT */
    uint32_t ncomp; /* components per element (1..4, 16 for MAT4) */
    uint32_t count;
    bool normalized;
    size_t csize; /* bytes per component */
} gltf_accessor;

/* Fills `error` with "PATH: message" (kind CORRUPT unless given) and
 * returns OSSA_FAILED. */
ossa_status ossa__gltf_fail(gltf_reader *r, ossa_code kind, const char *fmt, ...)
    OSSA_PRINTF(3, 4);

/* Property access with checks; `path` names the object for messages
 * ("nodes[3]"). Optional properties leave *out at the default given. */
ossa_status ossa__gltf_index(gltf_reader *r, const cJSON *obj, const char *key, const char *path,
                             uint32_t limit, const char *what, int64_t *out);
ossa_status ossa__gltf_number(gltf_reader *r, const cJSON *obj, const char *key, const char *path,
                              double *out);
ossa_status ossa__gltf_floats(gltf_reader *r, const cJSON *obj, const char *key, const char *path,
                              float *out, int n);
const char *ossa__gltf_string(const cJSON *obj, const char *key);

/* Checks accessor `index` (`path` names the property that refers to it)
 * and describes it. */
ossa_status ossa__gltf_accessor(gltf_reader *r, int64_t index, const char *path, gltf_accessor *out);
/* count * ncomp components, packed, host order, with byteStride and
 * sparse substitution applied. Free with ossa__free(r->alloc, p, 0). */
ossa_status ossa__gltf_accessor_raw(gltf_reader *r, int64_t index, const char *path,
                                    gltf_accessor *info, unsigned char **out);
/* The same as floats: normalized integers per the glTF rules, other
 * integers as their values. */
ossa_status ossa__gltf_accessor_floats(gltf_reader *r, int64_t index, const char *path,
                                       gltf_accessor *info, float **out);

/* Buffer view `i` (checked against its buffer): its bytes and stride (0 =
 * none). */
ossa_status ossa__gltf_view(gltf_reader *r, int64_t i, const unsigned char **data, size_t *size,
                            size_t *stride);
/* The bytes of a base64 data URI, from r->alloc (free *cap bytes). */
ossa_status ossa__gltf_data_uri(gltf_reader *r, const char *uri, const char *what,
                               unsigned char **out, size_t *size, size_t *cap);
/* A relative URI reference as a file name (percent-decoded), from
 * r->alloc (free strlen(uri) + 1 bytes), or NULL when memory runs out. */
char *ossa__gltf_uri_to_name(gltf_reader *r, const char *uri);
/* Reads the file a relative URI names (`what`: "images[2].uri"), beside
 * the .gltf file, by the load options' rules (ossa__open_sibling). */
ossa_status ossa__gltf_open_uri(gltf_reader *r, const char *uri, const char *what, ossa_sibling *out);

/* Parses the JSON (and the GLB container) and loads the buffers into *r;
 * whatever happens, release *r with ossa__gltf_reader_free. */
ossa_status ossa__gltf_parse(gltf_reader *r, ossa_model *model, const unsigned char *data,
                             size_t size, const ossa_load_options *options, ossa_error *error);
void ossa__gltf_reader_free(gltf_reader *r);

#endif
