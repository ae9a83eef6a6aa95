/* The files of a load and of a write, under the load and write options'
 * rules: sibling files a loaded file names (confined to its folder unless
 * allowed, or read through the caller's callback), and outputs handed to
 * the caller's callback or written atomically. */
#include "core/files.h"

#include <stdio.h>

ossa_status ossa__write_files_atomic(const ossa_output_file *files, size_t count,
                                     const ossa_write_options *options, ossa_error *error)
{
    if (options && options->output) return options->output(options->user, files, count, error);
    ossa_file_writing how = {0};
    if (options) {
        how.allocator = options->allocator;
        how.no_replace = (options->flags & OSSA_WRITE_NO_REPLACE) != 0;
        how.wrote = options->wrote;
        how.user = options->user;
    }
    return ossa__write_files(files, count, &how, error);
}

ossa_status ossa__open_sibling(const ossa_load_options *options, const char *base, const char *name,
                               const char *what, const ossa_allocator *allocator, ossa_sibling *out,
                               ossa_error *error)
{
    memset(out, 0, sizeof *out);
    out->options = options;
    out->allocator = allocator;
    if (!name[0])
        return ossa__fail(error, OSSA_ERROR_CORRUPT, OSSA_NO_OFFSET, "%s: an empty file name", what);
    if (!(options->flags & OSSA_LOAD_ALLOW_PARENT_PATHS) && !ossa__reference_is_inside(name))
        return ossa__fail(error, OSSA_ERROR_ACCESS, OSSA_NO_OFFSET,
                          "%s: '%.120s' is outside the model's folder: not read (allowed by "
                          "OSSA_LOAD_ALLOW_PARENT_PATHS)",
                          what, name);
    size_t cap = ossa__sibling_path(base, name, NULL, 0) + 1;
    char *path = ossa__alloc(allocator, cap);
    if (!path) return ossa__fail_nomem(error);
    ossa__sibling_path(base, name, path, cap);
    ossa_status st;
    if (options->read_file) {
        void *data = NULL;
        size_t size = 0;
        st = options->read_file(options->file_user, path, &data, &size);
        if (st == OSSA_OK && !data && size) st = OSSA_FAILED;
        if (st == OSSA_OK) {
            out->data = data;
            out->size = size;
            out->from_callback = true;
        } else {
            st = ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET,
                            "%s: '%.120s' cannot be read (the read_file callback refused it)", what,
                            name);
        }
    } else {
        ossa_error sub;
        memset(&sub, 0, sizeof sub);
        st = ossa__read_file(path, allocator, &out->data, &out->size, &sub);
        if (st && sub.code == OSSA_ERROR_NOMEM) st = ossa__fail_nomem(error);
        else if (st) st = ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "%s: %s", what, sub.message);
    }
    ossa__free(allocator, path, cap);
    return st;
}

void ossa__close_sibling(ossa_sibling *file)
{
    if (!file->data) return;
    if (!file->from_callback)
        ossa__free(file->allocator, file->data, file->size + 1);
    else if (file->options->release_file)
        file->options->release_file(file->options->file_user, file->data, file->size);
    file->data = NULL;
    file->size = 0;
}

ossa_status ossa_write_output_files(const ossa_output_file *files, size_t count,
                                    const ossa_write_options *options, ossa_error *error)
{
    ossa__error_begin(error, count ? files[0].path : "");
    ossa_write_options opts;
    if (ossa__copy_sized(&opts, sizeof opts, options, OSSA__WRITE_OPTIONS_0_2, "ossa_write_options",
                         error))
        return OSSA_FAILED;
    opts.struct_size = sizeof opts;
    opts.output = NULL; /* these are the files an output callback received */
    return ossa__write_files_atomic(files, count, &opts, error);
}
