/* The image files beside a model file (image_files.c): read on loading
 * for formats whose mesh materials name image files (IQM's convention:
 * material "skin.png"), written beside outputs, with names that never
 * replace another image. Not installed. */
#ifndef OSSA_IMAGE_FILES_H
#define OSSA_IMAGE_FILES_H

#include "core/files.h"
#include "core/lists.h"
#include "core/materials.h"

/* After a load: reads the image file that each mesh material means from
 * beside options->file_name, through ossa__open_sibling, into an
 * OSSA_EXTRA_IMAGE extra under the file's name: the first of the
 * material's candidates (ossa__image_candidate: "Body.tga", else
 * "Body.png", "Body.jpg"; "Body" gives "Body.tga", ...) that is there.
 * Missing files are skipped silently (writers say what they lack); a name
 * outside the model's folder is skipped with a warning. Nothing is read
 * without a file name or with OSSA_LOAD_NO_IMAGES. */
ossa_status ossa__images_load_beside(ossa_model *model, const ossa_load_options *options,
                                     ossa_error *error);

/* The name under which image `name` (bytes `data`) goes beside the
 * output `path`: `name` made a plain file name, and, when a file of that
 * name exists there with other bytes, NAME_2.EXT, NAME_3.EXT... (the first
 * that is free or holds the same bytes). *present tells that the file is
 * there already with these bytes (nothing to write). Without a file system
 * to look at (options->output set), `name` as it is. `taken` holds the
 * names already given in this write, which are not reused. */
ossa_status ossa__image_beside_name(const char *path, const char *name, const void *data, size_t size,
                                    const ossa_write_options *options, const ossa_intern *taken,
                                    char out[OSSA_IMAGE_NAME_MAX], bool *present, ossa_error *error);

/* What a format whose materials name image files writes: `view` is the
 * model with each mesh's material replaced by the image file of its base
 * colour (when the model has that image and images are written), `files`
 * the images to put beside `path`. Everything else a material says is
 * reported as dropped (one warning), as are images that cannot be named. */
typedef struct ossa_image_outputs {
    ossa_model view;
    ossa_mesh *meshes;
    ossa_output_file *files; /* count_files images to write */
    size_t count_files;
    char **names; /* count names given to images (written or already there) */
    size_t count;
    const ossa_allocator *allocator;
} ossa_image_outputs;

ossa_status ossa__image_outputs_prepare(const ossa_model *model, const char *path,
                                        const char *format_name, const ossa_write_options *options,
                                        ossa_image_outputs *out, ossa_error *error);
void ossa__image_outputs_release(ossa_image_outputs *out);

#endif
