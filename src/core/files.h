/* The files of loads and writes under the options' rules (siblings.c), and
 * the files of multi-file writes (output_files.c). */
#ifndef OSSA_FILES_H
#define OSSA_FILES_H

#include "core/internal.h"

/* One output file of a multi-file write: ossa_output_file (ossa.h). */

/* ossa__write_files (base/base.h) with the write options' settings
 * (options may be NULL): their allocator, OSSA_WRITE_NO_REPLACE and
 * `wrote`; with options->output set, hands the files to it instead. */
ossa_status ossa__write_files_atomic(const ossa_output_file *files, size_t count,
                                     const ossa_write_options *options, ossa_error *error);

/* -- The files of a multi-file write (output_files.c) -------------------------
 *
 * Writers of several files (STEM.md5mesh and STEM.NAME.md5anim, ...) name
 * them beside the path they are given, fill a buffer for each, then write
 * them all at once. */

/* The file name of path without its directory and its last extension
 * ("a/b.c.d" -> "b.c"), cut to cap - 1 bytes; `fallback` when path is
 * NULL or empty. Readers name a file's single animation after it. */
void ossa__path_base_name(const char *path, const char *fallback, char *out, size_t cap);
/* `path` without its extension (the part after the last '.' of the last
 * path component), as a length. */
size_t ossa__path_stem(const char *path);

/* `name` as a piece of a file name (cut to cap - 1 bytes): letters,
 * digits, '_', '-' and '.' stay, anything else becomes '_'. */
void ossa__file_name_safe(const char *name, char *out, size_t cap);

typedef struct ossa_output_set {
    const char *path; /* the path the write was given */
    size_t stem;      /* its ossa__path_stem */
    const ossa_allocator *allocator;
    ossa_output_file *files; /* the paths belong to the set */
    ossa_buf *bufs;          /* the contents, one per file */
    size_t count, cap;
} ossa_output_set;

/* An empty set with room for `cap` files beside `path`. */
ossa_status ossa__output_set_init(ossa_output_set *set, const char *path, size_t cap,
                                  const ossa_allocator *allocator, ossa_error *error);
/* Whether STEM`part``ext` is a file of the set already. */
bool ossa__output_set_has(const ossa_output_set *set, const char *part, const char *ext);
/* The `part` of the file of animation `index` named `name`: ".NAME"
 * (ossa__file_name_safe, cut to 127 bytes), ".INDEX" when nothing is left
 * of the name, ".NAME.INDEX" (".anim.INDEX" unnamed) when that is a file
 * of the set already (two animations with one file name), and
 * ".NAME.INDEX.K" (K = 2, 3, ...) while that is taken too. Every writer of
 * one file per animation (MD5, SMD, illEngine) names them so. */
#define OSSA_OUTPUT_PART_SIZE 160
void ossa__output_set_animation_part(const ossa_output_set *set, const char *name,
                                     uint32_t index, const char *ext,
                                     char part[OSSA_OUTPUT_PART_SIZE]);
/* Adds the file STEM`part``ext` (the path given when ext is NULL), names
 * it in `error` for the failures that follow, and returns the buffer to
 * write it into; NULL (error filled) when out of memory. */
ossa_buf *ossa__output_set_add(ossa_output_set *set, const char *part, const char *ext,
                               ossa_error *error);
/* Writes every file with ossa__write_files_atomic when st is OSSA_OK,
 * then frees the set (also after a failure); returns the outcome. */
ossa_status ossa__output_set_finish(ossa_output_set *set, ossa_status st,
                                    const ossa_write_options *options, ossa_error *error);

/* -- Files that a loaded file names ------------------------------------------
 *
 * glTF buffers and images, the images that materials name: every reader
 * reads them through ossa__open_sibling, which applies the load options'
 * rules in one place. */

/* A file read for a load; give it back with ossa__close_sibling. */
typedef struct ossa_sibling {
    unsigned char *data; /* the whole file; NULL when nothing was read */
    size_t size;
    const ossa_load_options *options;
    const ossa_allocator *allocator;
    bool from_callback; /* read by options->read_file: released through it */
} ossa_sibling;

/* Reads the file that `name` (a file reference as the loaded file gives
 * it, already percent-decoded) means: relative to the directory of `base`
 * (normally options->file_name; NULL or "" = the current directory),
 * through options->read_file when set, else from the file system with
 * `allocator`. References outside that directory (absolute, or climbing
 * with "..") fail with OSSA_ERROR_ACCESS unless OSSA_LOAD_ALLOW_PARENT_PATHS
 * is set; a missing or unreadable file fails with OSSA_ERROR_IO. `what`
 * names the reference for messages ("buffers[0].uri"); the message names
 * the file as given. *out is valid (and to be closed) only on success. */
ossa_status ossa__open_sibling(const ossa_load_options *options, const char *base, const char *name,
                               const char *what, const ossa_allocator *allocator, ossa_sibling *out,
                               ossa_error *error);
/* Releases what ossa__open_sibling read (a zeroed struct is fine). */
void ossa__close_sibling(ossa_sibling *file);

#endif
