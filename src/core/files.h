/* Reading sibling files and writing outputs atomically (files.c). */
#ifndef OSSA_FILES_H
#define OSSA_FILES_H

#include "core/internal.h"

/* One output file of a multi-file write: ossa_output_file (ossa.h). */

/* Writes every file to a temporary beside it, then renames all into
 * place; on failure nothing is left behind. Devices and FIFOs are written
 * into, never replaced; a directory is refused. Then reports each path to
 * options->wrote (options may be NULL). With options->output set, hands
 * the files to it instead; with OSSA_WRITE_NO_REPLACE, several files
 * replace none that exists. */
ossa_status ossa__write_files_atomic(const ossa_output_file *files, size_t count,
                                     const ossa_write_options *options, ossa_error *error);

/* Reads a whole file (for formats that refer to sibling files, such as
 * external glTF buffers); the buffer has a NUL after its end. Free with
 * ossa__free(allocator, data, size + 1). */
ossa_status ossa__read_file(const char *path, const ossa_allocator *allocator, unsigned char **data,
                            size_t *size, ossa_error *error);

/* `name` relative to the directory of `base` (a file path); returns the
 * length snprintf would write. */
size_t ossa__sibling_path(const char *base, const char *name, char *out, size_t cap);

#endif
