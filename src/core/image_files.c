/* Image files beside model files: read for the materials that name them,
 * written beside outputs without ever replacing another image (a file of
 * the same name with other bytes makes the new one NAME_2.EXT). */
#include "core/image_files.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/* -- Loading ----------------------------------------------------------------- */

ossa_status ossa__images_load_beside(ossa_model *m, const ossa_load_options *options, ossa_error *error)
{
    if (!options->file_name || !options->file_name[0] || (options->flags & OSSA_LOAD_NO_IMAGES))
        return OSSA_OK;
    const ossa_allocator *alloc = &m->internal->arena.allocator;
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        const char *name = m->meshes[i].material;
        if (!name || !ossa__is_image_name(name) || ossa__model_image(m, name)) continue;
        bool tried = false; /* an earlier mesh of the same material found nothing */
        for (uint32_t k = 0; k < i && !tried; k++) tried = strcmp(m->meshes[k].material, name) == 0;
        if (tried) continue;
        char what[300];
        snprintf(what, sizeof what, "material '%.200s'", name);
        ossa_sibling file;
        ossa_error sub;
        memset(&sub, 0, sizeof sub);
        ossa_status st = ossa__open_sibling(options, options->file_name, name, what, alloc, &file, &sub);
        if (st) {
            if (sub.code == OSSA_ERROR_NOMEM) return ossa__fail_nomem(error);
            if (sub.code == OSSA_ERROR_ACCESS)
                ossa__warn(m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s", sub.message);
            continue; /* missing: the writers say what they lack */
        }
        size_t klen = strlen(OSSA_EXTRA_IMAGE) + strlen(name) + 1;
        char *key = ossa__alloc(alloc, klen);
        if (!key) st = ossa__fail_nomem(error);
        else {
            snprintf(key, klen, "%s%s", OSSA_EXTRA_IMAGE, name);
            st = ossa_model_add_extra(m, key, file.data, file.size, error);
            ossa__free(alloc, key, klen);
        }
        ossa__close_sibling(&file);
        if (st) return st;
    }
    return OSSA_OK;
}

/* -- Names beside an output --------------------------------------------------- */

static bool listed(const char *const *names, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) return true;
    return false;
}

/* 0: no file there; 1: a regular file with these bytes; 2: something else. */
static int beside_state(const char *path, const void *data, size_t size, const ossa_allocator *alloc,
                        ossa_error *error, ossa_status *st)
{
    struct stat sb;
    *st = OSSA_OK;
    if (stat(path, &sb) != 0) return errno == ENOENT ? 0 : 2;
    if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_size != (uint64_t)size) return 2;
    unsigned char *have = NULL;
    size_t n = 0;
    ossa_error sub;
    memset(&sub, 0, sizeof sub);
    if (ossa__read_file(path, alloc, &have, &n, &sub)) {
        if (sub.code == OSSA_ERROR_NOMEM) *st = ossa__fail_nomem(error);
        return 2;
    }
    bool same = n == size && memcmp(have, data, size) == 0;
    ossa__free(alloc, have, n + 1);
    return same ? 1 : 2;
}

ossa_status ossa__image_beside_name(const char *path, const char *name, const void *data, size_t size,
                                    const ossa_write_options *options, const char *const *taken,
                                    size_t count, char out[OSSA_IMAGE_NAME_MAX], bool *present,
                                    ossa_error *error)
{
    *present = false;
    char base[OSSA_IMAGE_NAME_MAX];
    ossa__image_file_name(name, base);
    if (!base[0]) snprintf(base, sizeof base, "image%s", ossa__image_mime(data, size) &&
                                                         strcmp(ossa__image_mime(data, size), "image/jpeg") == 0
                                                     ? ".jpg" : ".png");
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (stem > 200) stem = 200;
    for (uint32_t k = 1; k < 10000; k++) {
        if (k == 1) snprintf(out, OSSA_IMAGE_NAME_MAX, "%s", base);
        else snprintf(out, OSSA_IMAGE_NAME_MAX, "%.*s_%u%.16s", (int)stem, base, k, base + stem);
        if (listed(taken, count, out)) continue;
        if (options->output) return OSSA_OK; /* no file system to look at */
        size_t cap = ossa__sibling_path(path, out, NULL, 0) + 1;
        char *full = ossa__alloc(options->allocator, cap);
        if (!full) return ossa__fail_nomem(error);
        ossa__sibling_path(path, out, full, cap);
        ossa_status st;
        int state = beside_state(full, data, size, options->allocator, error, &st);
        ossa__free(options->allocator, full, cap);
        if (st) return st;
        if (state == 2) continue;
        *present = state == 1;
        return OSSA_OK;
    }
    return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "no free file name for the image '%.200s'",
                      name);
}

/* -- Outputs of formats that name an image per material ---------------------- */

/* Appends "'name'" to a list kept for one warning. */
static void note(char *list, size_t cap, const char *name, uint32_t *count)
{
    if (++*count > 3) return;
    size_t n = strlen(list);
    snprintf(list + n, cap - n, "%s'%.60s'", n ? ", " : "", name);
}

static void more(char *list, size_t cap, uint32_t count)
{
    size_t n = strlen(list);
    if (count > 3) snprintf(list + n, cap - n, " and %u more", count - 3);
}

ossa_status ossa__image_outputs_prepare(const ossa_model *m, const char *path, const char *format_name,
                                        const ossa_write_options *options, ossa_image_outputs *out,
                                        ossa_error *error)
{
    memset(out, 0, sizeof *out);
    out->view = *m;
    out->allocator = options->allocator;
    if (!m->num_meshes) return OSSA_OK;
    const ossa_allocator *a = options->allocator;
    out->meshes = ossa__alloc(a, (size_t)m->num_meshes * sizeof *out->meshes);
    out->files = ossa__alloc(a, (size_t)m->num_meshes * sizeof *out->files);
    out->names = ossa__alloc(a, (size_t)m->num_meshes * sizeof *out->names);
    if (!out->meshes || !out->files || !out->names) return ossa__fail_nomem(error);
    memcpy(out->meshes, m->meshes, (size_t)m->num_meshes * sizeof *out->meshes);
    out->view.meshes = out->meshes;
    bool write = options->images != OSSA_IMAGES_NONE && path;
    /* The image (in the model) and its name beside the output, per mesh. */
    const char **given = ossa__alloc(a, (size_t)m->num_meshes * 2 * sizeof *given);
    size_t ngiven = 0;
    if (!given) return ossa__fail_nomem(error);
    char dropped[256] = "", missing[256] = "", renamed[256] = "";
    uint32_t ndropped = 0, nmissing = 0, nrenamed = 0, lost = 0;
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < m->num_meshes && !st; i++) {
        const char *material = m->meshes[i].material;
        ossa_material_desc d;
        if (!ossa__material_of(m, material, &d)) continue;
        bool seen = false;
        for (uint32_t k = 0; k < i && !seen; k++) seen = strcmp(m->meshes[k].material, material) == 0;
        uint32_t beyond = ossa__model_material(m, material) ? ossa__material_beyond_base_image(&d) : 0;
        if (!seen && beyond) {
            note(dropped, sizeof dropped, material, &ndropped);
            lost |= beyond;
        }
        const char *image = d.tex[OSSA_TEX_BASE_COLOR].image;
        if (!image[0]) continue;
        const ossa_extra *bytes = ossa__model_image(m, image);
        if (!bytes) {
            if (!seen && strcmp(image, material) != 0) note(missing, sizeof missing, image, &nmissing);
            continue;
        }
        if (!write) continue;
        const char *name = NULL;
        for (size_t k = 0; k < ngiven && !name; k++)
            if (given[2 * k] == bytes->key) name = given[2 * k + 1];
        if (!name) {
            char chosen[OSSA_IMAGE_NAME_MAX];
            bool present;
            st = ossa__image_beside_name(path, image, bytes->data, bytes->size, options,
                                         (const char *const *)out->names, out->count, chosen, &present,
                                         error);
            if (st) break;
            char plain[OSSA_IMAGE_NAME_MAX];
            ossa__image_file_name(image, plain);
            if (strcmp(plain, chosen) != 0 && plain[0])
                note(renamed, sizeof renamed, chosen, &nrenamed);
            size_t len = strlen(chosen) + 1, cap = ossa__sibling_path(path, chosen, NULL, 0) + 1;
            char *copy = ossa__alloc(a, len), *full = ossa__alloc(a, cap);
            if (!copy || !full) {
                ossa__free(a, copy, len);
                ossa__free(a, full, cap);
                st = ossa__fail_nomem(error);
                break;
            }
            memcpy(copy, chosen, len);
            ossa__sibling_path(path, chosen, full, cap);
            /* names of files already there count as given too */
            out->names[out->count] = copy;
            out->files[out->count].path = present ? NULL : full;
            out->files[out->count].data = bytes->data;
            out->files[out->count].size = bytes->size;
            if (present) ossa__free(a, full, cap);
            out->count++;
            given[2 * ngiven] = bytes->key;
            given[2 * ngiven + 1] = copy;
            ngiven++;
            name = copy;
        }
        out->meshes[i].material = name;
    }
    ossa__free(a, given, 0);
    if (st) return st;
    /* Entries for files already in place carry no path: drop them. */
    size_t n = 0;
    for (size_t i = 0; i < out->count; i++)
        if (out->files[i].path) out->files[n++] = out->files[i];
    out->count_files = n;
    ossa_diagnostic_fn fn = options->diagnostic;
    void *user = options->user;
    more(dropped, sizeof dropped, ndropped);
    more(missing, sizeof missing, nmissing);
    more(renamed, sizeof renamed, nrenamed);
    if (ndropped) {
        char words[160];
        ossa__material_lost_text(lost, words, sizeof words);
        ossa__report(fn, user, OSSA_SEVERITY_WARNING, OSSA_WARNING_DROPPED,
                     "%s files name one image per material: the %s of %s %s not written",
                     format_name, words, ndropped == 1 ? "material" : "materials", dropped);
    }
    if (nmissing)
        ossa__report(fn, user, OSSA_SEVERITY_WARNING, OSSA_WARNING_DROPPED,
                     "base colour images not in the model (%s): the materials keep their names", missing);
    if (nrenamed)
        ossa__report(fn, user, OSSA_SEVERITY_WARNING, OSSA_WARNING_RENAMED,
                     "images written under other names (%s): files of their names with other bytes "
                     "are beside the output",
                     renamed);
    return OSSA_OK;
}

void ossa__image_outputs_release(ossa_image_outputs *out)
{
    const ossa_allocator *a = out->allocator;
    for (size_t i = 0; i < out->count_files; i++) ossa__free(a, (void *)out->files[i].path, 0);
    for (size_t i = 0; i < out->count; i++) ossa__free(a, out->names[i], 0);
    ossa__free(a, out->meshes, 0);
    ossa__free(a, out->files, 0);
    ossa__free(a, out->names, 0);
    memset(out, 0, sizeof *out);
}
