/* IQM v1/v2 binary layout (docs/formats/iqm.md §2-§4, §13). */
#ifndef OSSA_IQM_H
#define OSSA_IQM_H

#include "formats/format.h"

#define IQM_MAGIC "INTERQUAKEMODEL"  /* 16 bytes with the NUL */
#define IQM_HEADER_SIZE 124
#define IQM_MESH_SIZE 24
#define IQM_VERTEXARRAY_SIZE 20
#define IQM_TRIANGLE_SIZE 12
#define IQM_JOINT_SIZE 48
#define IQM_JOINT_V1_SIZE 44
#define IQM_POSE_SIZE 88
#define IQM_POSE_V1_SIZE 80
#define IQM_ANIM_SIZE 20
#define IQM_BOUNDS_SIZE 32
#define IQM_EXTENSION_SIZE 16

/* Byte offsets of the header fields (all u32). */
enum {
    IQM_H_VERSION = 16,
    IQM_H_FILESIZE = 20,
    IQM_H_FLAGS = 24,
    IQM_H_NUM_TEXT = 28,
    IQM_H_OFS_TEXT = 32,
    IQM_H_NUM_MESHES = 36,
    IQM_H_OFS_MESHES = 40,
    IQM_H_NUM_VERTEXARRAYS = 44,
    IQM_H_NUM_VERTEXES = 48,
    IQM_H_OFS_VERTEXARRAYS = 52,
    IQM_H_NUM_TRIANGLES = 56,
    IQM_H_OFS_TRIANGLES = 60,
    IQM_H_OFS_ADJACENCY = 64,
    IQM_H_NUM_JOINTS = 68,
    IQM_H_OFS_JOINTS = 72,
    IQM_H_NUM_POSES = 76,
    IQM_H_OFS_POSES = 80,
    IQM_H_NUM_ANIMS = 84,
    IQM_H_OFS_ANIMS = 88,
    IQM_H_NUM_FRAMES = 92,
    IQM_H_NUM_FRAMECHANNELS = 96,
    IQM_H_OFS_FRAMES = 100,
    IQM_H_OFS_BOUNDS = 104,
    IQM_H_NUM_COMMENT = 108,
    IQM_H_OFS_COMMENT = 112,
    IQM_H_NUM_EXTENSIONS = 116,
    IQM_H_OFS_EXTENSIONS = 120
};

#define IQM_EXTENSION_KEY "iqm.extension:"

ossa_status ossa__iqm_read(ossa_model *model, const unsigned char *data, size_t size,
                           const ossa_load_options *options, ossa_error *error);
ossa_status ossa__iqm_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error);

/* The model as the writer writes it (arrays.c): `view` is a shallow copy
 * of `model` whose vertex arrays are in the pairs IQM's loaders read
 * (float position, normal, tangent and texcoord, ubyte x 4 blend data and
 * colour), converted where needed, unless "iqm.keep_formats" is on.
 * Release with ossa__iqm_arrays_release, even after a failed write. */
ossa_status ossa__iqm_arrays(const ossa_model *model, const ossa_write_options *options,
                             ossa_model *view, ossa_error *error);
void ossa__iqm_arrays_release(const ossa_model *view, const ossa_model *model,
                              const ossa_write_options *options);

#endif
