/* The files of a multi-file write (STEM.md5mesh + STEM.NAME.md5anim, the
 * three illEngine files, one SMD per animation): their names beside the
 * path given, their buffers, and one atomic write of them all. */
#include "core/files.h"

#include <stdio.h>

size_t ossa__path_stem(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? (size_t)(dot - path) : strlen(path);
}

void ossa__path_base_name(const char *path, const char *fallback, char *out, size_t cap)
{
    if (!path || !*path) {
        snprintf(out, cap, "%s", fallback);
        return;
    }
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t len = dot && dot != name ? (size_t)(dot - name) : strlen(name);
    snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), name);
}

void ossa__file_name_safe(const char *name, char *out, size_t cap)
{
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < cap; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
        out[k++] = ok ? c : '_';
    }
    out[k] = 0;
}

ossa_status ossa__output_set_init(ossa_output_set *set, const char *path, size_t cap,
                                  const ossa_allocator *allocator, ossa_error *error)
{
    memset(set, 0, sizeof *set);
    set->path = path;
    set->stem = ossa__path_stem(path);
    set->allocator = allocator;
    set->cap = cap;
    set->files = ossa__alloc(allocator, (cap + 1) * sizeof *set->files);
    set->bufs = ossa__alloc(allocator, (cap + 1) * sizeof *set->bufs);
    if (!set->files || !set->bufs) {
        ossa__free(allocator, set->files, 0);
        ossa__free(allocator, set->bufs, 0);
        set->files = NULL;
        set->bufs = NULL;
        set->cap = 0;
        return ossa__fail_nomem(error);
    }
    return OSSA_OK;
}

bool ossa__output_set_has(const ossa_output_set *set, const char *part, const char *ext)
{
    size_t pl = strlen(part);
    for (size_t i = 0; i < set->count; i++) {
        const char *file = set->files[i].path;
        if (!strncmp(file, set->path, set->stem) && !strncmp(file + set->stem, part, pl) &&
            !strcmp(file + set->stem + pl, ext))
            return true;
    }
    return false;
}

void ossa__output_set_animation_part(const ossa_output_set *set, const char *name,
                                     uint32_t index, const char *ext,
                                     char part[OSSA_OUTPUT_PART_SIZE])
{
    char safe[128];
    ossa__file_name_safe(name, safe, sizeof safe);
    if (safe[0])
        snprintf(part, OSSA_OUTPUT_PART_SIZE, ".%s", safe);
    else
        snprintf(part, OSSA_OUTPUT_PART_SIZE, ".%u", index);
    /* Taken (a repeated name, or an unnamed animation whose index is an
     * earlier one's name): the index added, to "anim" when unnamed. */
    const char *stem = safe[0] ? safe : "anim";
    if (ossa__output_set_has(set, part, ext))
        snprintf(part, OSSA_OUTPUT_PART_SIZE, ".%s.%u", stem, index);
    /* Taken as well (an earlier animation named "NAME.INDEX"): numbered on
     * until free, which the finite set guarantees. */
    for (uint32_t k = 2; ossa__output_set_has(set, part, ext); k++)
        snprintf(part, OSSA_OUTPUT_PART_SIZE, ".%s.%u.%u", stem, index, k);
}

ossa_buf *ossa__output_set_add(ossa_output_set *set, const char *part, const char *ext,
                               ossa_error *error)
{
    if (set->count >= set->cap) {
        ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "too many output files");
        return NULL;
    }
    size_t len = ext ? set->stem + strlen(part) + strlen(ext) : strlen(set->path);
    char *path = ossa__alloc(set->allocator, len + 1);
    if (!path) {
        ossa__fail_nomem(error);
        return NULL;
    }
    if (ext)
        snprintf(path, len + 1, "%.*s%s%s", (int)set->stem, set->path, part, ext);
    else
        memcpy(path, set->path, len + 1);
    ossa__error_set_file(error, path);
    ossa_buf *b = &set->bufs[set->count];
    ossa__buf_init(b, set->allocator);
    set->files[set->count].path = path;
    set->count++;
    return b;
}

ossa_status ossa__output_set_finish(ossa_output_set *set, ossa_status st,
                                    const ossa_write_options *options, ossa_error *error)
{
    for (size_t i = 0; i < set->count; i++) {
        set->files[i].data = set->bufs[i].data ? (const void *)set->bufs[i].data : "";
        set->files[i].size = set->bufs[i].size;
    }
    if (!st) st = ossa__write_files_atomic(set->files, set->count, options, error);
    for (size_t i = 0; i < set->count; i++) {
        ossa__buf_release(&set->bufs[i]);
        ossa__free(set->allocator, (void *)set->files[i].path, 0);
    }
    ossa__free(set->allocator, set->files, 0);
    ossa__free(set->allocator, set->bufs, 0);
    memset(set, 0, sizeof *set);
    return st;
}
