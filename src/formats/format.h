/* The format table: every reader and writer behind one interface. A format
 * module knows nothing of any other format. */
#ifndef OSSA_FORMAT_H
#define OSSA_FORMAT_H

#include "core/files.h"
#include "core/front.h"
#include "core/scale.h"
#include "formats/options.h"

struct ossa_format_ops {
    ossa_format id;
    const char *name;       /* "iqm" */
    const char *extensions; /* space-separated, with dots: ".iqm" */
    /* True when the buffer starts like this format. */
    bool (*sniff)(const unsigned char *data, size_t size);
    /* Fills an empty model. On failure the caller frees the model. */
    ossa_status (*read)(ossa_model *model, const unsigned char *data, size_t size,
                        const ossa_load_options *options, ossa_error *error);
    /* Encodes the model into the empty buffer `out` (offsets in it are file
     * offsets); NULL when the format is read-only. */
    ossa_status (*write)(const ossa_model *model, const ossa_write_options *options, ossa_buf *out,
                         ossa_error *error);
    /* Optional: writes `path` and any sibling files the format needs (an
     * external glTF buffer, the three illEngine files) with
     * ossa__write_files_atomic. When NULL, ossa_write_file writes the
     * output of `write` to `path`. */
    ossa_status (*write_files)(const ossa_model *model, const char *path,
                               const ossa_write_options *options, ossa_error *error);
    /* What ossa_write_file writes of a model (OSSA_HOLDS_*); 0 = not
     * declared, nothing is checked. What a model has beyond it is reported
     * as dropped (holds.c). */
    uint32_t holds;
    /* What the format does with the model's images (OSSA_EXTRA_IMAGE):
     * OSSA__IMAGES_NAMED: mesh materials name image files (IQM's
     * convention); loading reads them from beside the file, writing puts
     * them beside the output (core/image_files.h). OSSA__IMAGES_STORED:
     * the format stores images itself (glTF). 0: none; a write reports
     * the model's images as dropped. */
    uint8_t images;
    /* The files keep a rest pose beside the bind pose (glTF: the node
     * transforms beside the skin's inverse bind matrices). A model with a
     * rest pose is written to the other formats as it looks at rest: the
     * mesh skinned into the rest pose, which becomes the bind pose
     * (io.c, core/rest_pose.c). */
    bool rest_pose;
    /* What the format does with joint scale (ossa__scale_rule of
     * core/scale.h): 0 stored; OSSA__SCALE_NONE (the format has none) and
     * OSSA__SCALE_IGNORED (its players ignore it) bake it before the
     * writer sees the model, the latter unless the write option
     * "FAMILY.keep_scale" is on (io.c). */
    uint8_t scale;
    /* Where a character faces in the format's files, in model space after
     * the reader's axis change (ossa_front; 0 unknown): readers' models
     * get it, writers turn models to it (io.c, core/front.h). `front_of`,
     * when set, gives it for a load's or a write's format options instead
     * (OBJ's axes, SMD's turn, FBX's kept axes). */
    uint8_t front;
    ossa_front (*front_of)(const ossa_option *options, uint32_t count, bool writing);
    /* The family name of the format's options ("fbx" of "fbx.keep_units"),
     * shared by the formats of one family ("ill" for the four illEngine
     * files), and its options for reading and for writing (options.h).
     * NULL / 0 when it has none. */
    const char *option_family;
    const ossa_option_info *load_options;
    uint32_t num_load_options;
    const ossa_option_info *write_options;
    uint32_t num_write_options;
    /* Format policy that core reads from the model: OSSA_MODEL_* flags
     * the loader sets on every model read as this format (by the model's
     * source_format, which a reader serving two entries sets), e.g.
     * OSSA_MODEL_STRICT_JOINTS for merging. 0 = none. */
    uint32_t model_flags;
};

enum { OSSA__IMAGES_NAMED = 1, OSSA__IMAGES_STORED = 2 };

/* Reports to options->diagnostic what of `model` the format's files
 * cannot hold (one OSSA_WARNING_DROPPED line each). */
void ossa__report_unheld(const ossa_model *model, const ossa_format_ops *ops,
                         const ossa_write_options *options);

const ossa_format_ops *ossa__format_ops(ossa_format id);
/* Whether some format's options are called name[0..n) ("fbx"). */
bool ossa__format_family_exists(const char *name, size_t n);

extern const ossa_format_ops ossa__iqm_format;
extern const ossa_format_ops ossa__iqe_format;
extern const ossa_format_ops ossa__sotc_skb_format;
extern const ossa_format_ops ossa__sotc_anb_format;
extern const ossa_format_ops ossa__sotc_nmo_format;
extern const ossa_format_ops ossa__sotc_nto_format;
extern const ossa_format_ops ossa__gltf_format;
extern const ossa_format_ops ossa__glb_format;
extern const ossa_format_ops ossa__illmesh_format;
extern const ossa_format_ops ossa__illskel_format;
extern const ossa_format_ops ossa__illanim_format;
extern const ossa_format_ops ossa__illanset_format;
extern const ossa_format_ops ossa__fbx_format;
extern const ossa_format_ops ossa__smd_format;
extern const ossa_format_ops ossa__obj_format;
extern const ossa_format_ops ossa__md5mesh_format;
extern const ossa_format_ops ossa__md5anim_format;
extern const ossa_format_ops ossa__ossaclip_format;
extern const ossa_format_ops ossa__bvh_format;

#endif
