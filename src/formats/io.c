/* Loading from memory and files (mapped) and writing to memory and files
 * through the format table. */
#include "core/degenerate.h"
#include "core/image_files.h"
#include "core/rest_pose.h"
#include "formats/format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The caller's load options as this library's struct (its size set, so
 * that passing the copy on reads every field). */
static ossa_status load_options_copy(ossa_load_options *out, const ossa_load_options *in,
                                     ossa_error *error)
{
    if (ossa__copy_sized(out, sizeof *out, in, OSSA__LOAD_OPTIONS_0_2, "ossa_load_options", error))
        return OSSA_FAILED;
    out->struct_size = sizeof *out;
    return OSSA_OK;
}

/* The steps of the post-read pipeline that work on the finished model,
 * for every format: the format's policy flags (its table entry, by the
 * source format the reader settled on) and degenerate-triangle removal.
 * The steps that need what only a reader has (raw influences, corners
 * before welding, smoothing groups) are calls the readers make. */
static ossa_status after_read(ossa_model *model, const ossa_load_options *opts, ossa_error *error)
{
    const ossa_format_ops *source = ossa__format_ops(model->source_format);
    if (source) model->flags |= source->model_flags;
    if (opts->flags & OSSA_LOAD_KEEP_DEGENERATE) return OSSA_OK;
    return ossa__drop_degenerate(model, error);
}

ossa_model *ossa_load_memory(const void *data, size_t size, const ossa_load_options *options,
                             ossa_error *error)
{
    ossa__error_begin(error, NULL);
    ossa_load_options opts;
    if (load_options_copy(&opts, options, error)) return NULL;
    ossa__error_set_file(error, opts.file_name);
    if (!data && size) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no data");
        return NULL;
    }
    ossa_format fmt = opts.format;
    if (fmt == OSSA_FORMAT_AUTO) fmt = ossa_format_detect(data, size);
    if (fmt == OSSA_FORMAT_AUTO) fmt = ossa_format_from_name(opts.file_name);
    const ossa_format_ops *ops = ossa__format_ops(fmt);
    if (!ops || !ops->read) {
        ossa__fail(error, OSSA_ERROR_FORMAT, size ? 0 : OSSA_NO_OFFSET,
                   size ? "unknown file format (no known signature or extension)" : "empty file");
        return NULL;
    }
    if (ossa__options_check(ops, false, OSSA__OPTIONS(&opts), ossa__format_family_exists, error)) return NULL;
    ossa_model *model = ossa_model_create(opts.allocator);
    if (!model) {
        ossa__fail_nomem(error);
        return NULL;
    }
    model->source_format = fmt;
    if (ops->read(model, data, size, &opts, error) != OSSA_OK || after_read(model, &opts, error) ||
        (ops->images == OSSA__IMAGES_NAMED && ossa__images_load_beside(model, &opts, error))) {
        ossa_model_free(model);
        return NULL;
    }
    /* where its characters face: what the caller says, else the format's
     * convention (README "Where a model faces") */
    model->front = opts.front ? opts.front
                   : ops->front_of ? ops->front_of(OSSA__OPTIONS(&opts), false)
                                   : (ossa_front)ops->front;
    ossa__error_clear(error);
    return model;
}

ossa_model *ossa_load_file(const char *path, const ossa_load_options *options, ossa_error *error)
{
    ossa__error_begin(error, path);
    ossa_load_options opts;
    if (load_options_copy(&opts, options, error)) return NULL;
    if (!opts.file_name) opts.file_name = path;
    ossa__error_set_file(error, opts.file_name);

    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "not a regular file");
        close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > SIZE_MAX) {
        ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "file too large to map");
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    void *map = NULL;
    if (size) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot map: %s", strerror(errno));
            close(fd);
            return NULL;
        }
    }
    close(fd);
    static const unsigned char empty[1];
    ossa_model *model = ossa_load_memory(size ? map : empty, size, &opts, error);
    if (size) munmap(map, size);
    return model;
}

/* The caller's write options as this library's struct, checked for the
 * format they name. */
static ossa_status write_options_copy(ossa_write_options *out, const ossa_write_options *in,
                                      ossa_error *error)
{
    if (ossa__copy_sized(out, sizeof *out, in, OSSA__WRITE_OPTIONS_0_2, "ossa_write_options", error))
        return OSSA_FAILED;
    out->struct_size = sizeof *out;
    return OSSA_OK;
}

static ossa_status write_memory(const ossa_model *model, const ossa_format_ops *ops,
                                const ossa_write_options *options, void **out_data,
                                size_t *out_size, ossa_error *error);

/* A format with one pose writes a model with a rest pose as it looks at
 * rest: the mesh skinned into the rest pose, which becomes the bind pose
 * (core/rest_pose.c). *use is the model to write. */
static ossa_status at_rest(const ossa_model *model, const ossa_format_ops *ops,
                           const ossa_write_options *options, ossa__rest_view *view,
                           const ossa_model **use, ossa_error *error)
{
    *use = model;
    memset(view, 0, sizeof *view);
    if (!model->rest_pose || !ops || !ops->write || ops->rest_pose) return OSSA_OK;
    if (ossa__rest_view_prepare(model, ops->name, options, false, view, error)) return OSSA_FAILED;
    *use = &view->view;
    return OSSA_OK;
}

/* The model as the format's writer gets it, prepared once, right before
 * the writer runs: turned to face the format's front (core/front.h) unless
 * OSSA_WRITE_KEEP_FRONT, then its joint scale baked by the format's rule
 * (core/scale.h; "FAMILY.keep_scale" keeps it where the format stores it). */
typedef struct prepared {
    ossa__front_turned turned;
    ossa__scale_baked baked;
} prepared;

static ossa_status prepare(const ossa_model *model, const ossa_format_ops *ops,
                           const ossa_write_options *o, prepared *p, ossa_error *error)
{
    ossa_front to = ops->front_of ? ops->front_of(OSSA__OPTIONS(o), true) : (ossa_front)ops->front;
    if (o->flags & OSSA_WRITE_KEEP_FRONT) to = OSSA_FRONT_UNKNOWN;
    ossa_status st = ossa__front_turn(model, to, o->allocator, &p->turned, error);
    ossa__scale_rule rule = (ossa__scale_rule)ops->scale;
    if (rule == OSSA__SCALE_IGNORED && ops->option_family) {
        char name[64];
        snprintf(name, sizeof name, "%s.keep_scale", ops->option_family);
        if (ossa__option_on(OSSA__OPTIONS(o), name)) rule = OSSA__SCALE_STORED;
    }
    if (st) ossa__scale_bake(model, OSSA__SCALE_STORED, ops->name, o, &p->baked, NULL);
    else st = ossa__scale_bake(&p->turned.view, rule, ops->name, o, &p->baked, error);
    return st;
}

static void release(prepared *p)
{
    ossa__scale_release(&p->baked);
    ossa__front_release(&p->turned);
}

static ossa_status write_files_prepared(const ossa_model *model, const char *path,
                                        const ossa_format_ops *ops, const ossa_write_options *o,
                                        ossa_error *error)
{
    prepared p;
    ossa_status st = prepare(model, ops, o, &p, error);
    if (!st) st = ops->write_files(&p.baked.view, path, o, error);
    release(&p);
    return st;
}

ossa_status ossa_write_memory(const ossa_model *model, const ossa_write_options *options,
                              void **out_data, size_t *out_size, ossa_error *error)
{
    *out_data = NULL;
    *out_size = 0;
    ossa__error_clear(error);
    ossa_write_options copy;
    if (write_options_copy(&copy, options, error)) return OSSA_FAILED;
    options = &copy;
    const ossa_format_ops *ops = ossa__format_ops(options->format);
    if (!ops || !ops->write)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "no writer for format '%s'", ossa_format_name(options->format));
    if (ossa__options_check(ops, true, OSSA__OPTIONS(options), ossa__format_family_exists, error)) return OSSA_FAILED;
    ossa__rest_view view;
    const ossa_model *use;
    if (at_rest(model, ops, options, &view, &use, error)) return OSSA_FAILED;
    ossa_status st = write_memory(use, ops, options, out_data, out_size, error);
    ossa__rest_view_release(&view);
    return st;
}

static ossa_status write_memory(const ossa_model *model, const ossa_format_ops *ops,
                                const ossa_write_options *options, void **out_data,
                                size_t *out_size, ossa_error *error)
{
    /* A format of several files gives its main one here: only
     * ossa_write_file knows what the whole set holds. */
    if (!ops->write_files) ossa__report_unheld(model, ops, options);
    ossa_buf buf;
    ossa__buf_init(&buf, options->allocator);
    prepared p;
    ossa_status st = prepare(model, ops, options, &p, error);
    if (!st) st = ops->write(&p.baked.view, options, &buf, error);
    release(&p);
    if (st != OSSA_OK) {
        ossa__buf_release(&buf);
        return OSSA_FAILED;
    }
    if (buf.failed) {
        ossa__buf_release(&buf);
        return ossa__fail_nomem(error);
    }
    if (!buf.data) ossa__buf_push(&buf, 0);
    /* The buffer may be larger than its contents; ossa_free only
     * needs the pointer, so shrinking is not worth a copy. */
    *out_data = buf.data;
    *out_size = buf.size;
    return OSSA_OK;
}

/* One warning when the format keeps no image and the model has some. */
static void report_unheld_images(const ossa_model *m, const ossa_format_ops *ops,
                                 const ossa_write_options *o)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->num_extras; i++)
        n += strncmp(m->extras[i].key, OSSA_EXTRA_IMAGE, strlen(OSSA_EXTRA_IMAGE)) == 0;
    if (n && o->images != OSSA_IMAGES_NONE)
        ossa__report(o->diagnostic, o->user, OSSA_SEVERITY_WARNING, OSSA_WARNING_DROPPED,
                     "%s files hold no image: %u %s not written", ops->name, n, n == 1 ? "image" : "images");
}

/* Formats whose materials name image files: the model as they see it
 * (each material the image file of its base colour) and the images
 * beside the output, in the same atomic write when the format writes one
 * file, right after its files otherwise. */
static ossa_status write_with_images(const ossa_model *model, const char *path,
                                     const ossa_format_ops *ops, const ossa_write_options *opts,
                                     ossa_error *error)
{
    ossa_image_outputs img;
    ossa_status st = ossa__image_outputs_prepare(model, path, ops->name, opts, &img, error);
    if (!st && ops->write_files) {
        ossa__report_unheld(model, ops, opts);
        st = write_files_prepared(&img.view, path, ops, opts, error);
        if (!st && img.count_files) st = ossa__write_files_atomic(img.files, img.count_files, opts, error);
    } else if (!st) {
        void *data = NULL;
        size_t size = 0;
        st = ossa_write_memory(&img.view, opts, &data, &size, error);
        if (st) ossa__error_set_file(error, path);
        ossa_output_file *files = st ? NULL : ossa__alloc(opts->allocator, (img.count_files + 1) * sizeof *files);
        if (!st && !files) st = ossa__fail_nomem(error);
        if (!st) {
            files[0].path = path;
            files[0].data = data;
            files[0].size = size;
            if (img.count_files) memcpy(files + 1, img.files, img.count_files * sizeof *files);
            /* The images beside took free names: only the model file may
             * exist, which OSSA_WRITE_NO_REPLACE refuses. */
            st = ossa__write_files_atomic(files, img.count_files + 1, opts, error);
        }
        ossa__free(opts->allocator, files, 0);
        ossa_free(data, opts->allocator);
    }
    ossa__image_outputs_release(&img);
    return st;
}

static ossa_status write_file(const ossa_model *model, const char *path,
                              const ossa_format_ops *ops, const ossa_write_options *opts,
                              ossa_error *error);

ossa_status ossa_write_file(const ossa_model *model, const char *path,
                            const ossa_write_options *options, ossa_error *error)
{
    ossa__error_begin(error, path);
    ossa_write_options opts;
    if (write_options_copy(&opts, options, error)) return OSSA_FAILED;
    if (opts.format == OSSA_FORMAT_AUTO) opts.format = ossa_format_from_name(path);
    if (opts.format == OSSA_FORMAT_AUTO)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "cannot tell the output format from the file name");
    const ossa_format_ops *ops = ossa__format_ops(opts.format);
    if (ops && ops->write && ossa__options_check(ops, true, OSSA__OPTIONS(&opts), ossa__format_family_exists,
                                              error))
        return OSSA_FAILED;
    ossa__rest_view view;
    const ossa_model *use;
    if (at_rest(model, ops, &opts, &view, &use, error)) {
        ossa__error_set_file(error, path);
        return OSSA_FAILED;
    }
    ossa_status st = write_file(use, path, ops, &opts, error);
    ossa__rest_view_release(&view);
    return st;
}

static ossa_status write_file(const ossa_model *model, const char *path,
                              const ossa_format_ops *ops, const ossa_write_options *opts,
                              ossa_error *error)
{
    if (ops && ops->images == OSSA__IMAGES_NAMED) return write_with_images(model, path, ops, opts, error);
    if (ops && ops->write && !ops->images) report_unheld_images(model, ops, opts);
    if (ops && ops->write_files) {
        ossa__report_unheld(model, ops, opts);
        return write_files_prepared(model, path, ops, opts, error);
    }

    void *data;
    size_t size;
    if (ossa_write_memory(model, opts, &data, &size, error) != OSSA_OK) {
        ossa__error_set_file(error, path);
        return OSSA_FAILED;
    }
    ossa_output_file file = {path, data, size};
    ossa_status st = ossa__write_files_atomic(&file, 1, opts, error);
    ossa_free(data, opts->allocator);
    return st;
}
