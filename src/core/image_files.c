/* Image files beside model files: read for the materials that name them,
 * written beside outputs without ever replacing another image (a file of
 * the same name with other bytes makes the new one NAME_2.EXT). */
#include "core/image_files.h"
#include "core/lists.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

/* -- Loading ----------------------------------------------------------------- */

/* Reads the first image candidate of material `name` that is beside the
 * model (ossa__image_candidate: the name, then .tga, .png, .jpg) into an
 * OSSA_EXTRA_IMAGE extra under the candidate's name. Missing files are
 * passed over silently (writers and the renderer say what they lack); a
 * name outside the model's folder is not read, with a warning. */
static ossa_status load_material_image(ossa_model *m, const ossa_load_options *options,
                                       const ossa_extra_index *have, ossa_intern *loaded,
                                       const char *name, ossa_error *error)
{
    const ossa_allocator *alloc = &m->internal->arena.allocator;
    char candidate[OSSA_IMAGE_NAME_MAX];
    for (unsigned k = 0; ossa__image_candidate(name, k, candidate); k++) {
        if (ossa__extra_lookup(have, OSSA_EXTRA_IMAGE, candidate) ||
            ossa__intern_find(loaded, candidate, strlen(candidate)) >= 0)
            return OSSA_OK;
        char what[300];
        snprintf(what, sizeof what, "material '%.200s'", name);
        ossa_sibling file;
        ossa_error sub;
        memset(&sub, 0, sizeof sub);
        if (ossa__open_sibling(options, options->file_name, candidate, what, alloc, &file, &sub)) {
            if (sub.code == OSSA_ERROR_NOMEM) return ossa__fail_nomem(error);
            if (sub.code == OSSA_ERROR_ACCESS) {
                /* every candidate lies in the same folder */
                ossa__warn(m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, 0, 0, "%s", sub.message);
                return OSSA_OK;
            }
            continue;
        }
        size_t klen = strlen(OSSA_EXTRA_IMAGE) + strlen(candidate) + 1;
        char *key = ossa__alloc(alloc, klen);
        ossa_status st;
        if (!key) {
            st = ossa__fail_nomem(error);
        } else {
            snprintf(key, klen, "%s%s", OSSA_EXTRA_IMAGE, candidate);
            st = ossa_model_add_extra(m, key, file.data, file.size, error);
            ossa__free(alloc, key, klen);
            if (!st && ossa__intern(m, loaded, candidate, strlen(candidate)) < 0)
                st = ossa__fail_nomem(error);
        }
        ossa__close_sibling(&file);
        return st;
    }
    return OSSA_OK;
}

ossa_status ossa__images_load_beside(ossa_model *m, const ossa_load_options *options, ossa_error *error)
{
    if (!options->file_name || !options->file_name[0] || (options->flags & OSSA_LOAD_NO_IMAGES))
        return OSSA_OK;
    /* Each material name once (a file of many meshes names few images);
     * the index holds the extras of the file, `loaded` the images added. */
    ossa_intern seen, loaded;
    memset(&seen, 0, sizeof seen);
    memset(&loaded, 0, sizeof loaded);
    ossa_extra_index have;
    ossa__extra_index_build(m, &have);
    ossa_status st = OSSA_OK;
    for (uint32_t i = 0; i < m->num_meshes && !st; i++) {
        const char *name = m->meshes[i].material;
        if (!name || !name[0]) continue;
        size_t before = ossa__intern_count(&seen);
        if (ossa__intern(m, &seen, name, strlen(name)) < 0) {
            st = ossa__fail_nomem(error);
            break;
        }
        /* A material the file describes brings its own images. */
        if (ossa__intern_count(&seen) == before || ossa__extra_lookup(&have, OSSA_EXTRA_MATERIAL, name))
            continue;
        st = load_material_image(m, options, &have, &loaded, name, error);
    }
    ossa__extra_index_free(&have);
    ossa__intern_free(m, &seen);
    ossa__intern_free(m, &loaded);
    return st;
}

/* -- Names beside an output --------------------------------------------------- */

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
                                    const ossa_write_options *options, const ossa_intern *taken,
                                    char out[OSSA_IMAGE_NAME_MAX], bool *present, ossa_error *error)
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
        if (ossa__intern_find(taken, out, strlen(out)) >= 0) continue;
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
    /* Each material is looked at once (interned names), each image named
     * once (per extra): models may have as many as meshes. */
    ossa_intern seen, given; /* material names looked at, image names given */
    memset(&seen, 0, sizeof seen);
    memset(&given, 0, sizeof given);
    ossa_extra_index index;
    ossa__extra_index_build(m, &index);
    const char **of_material = ossa__alloc(a, (size_t)m->num_meshes * sizeof *of_material);
    const char **of_extra = ossa__alloc(a, ((size_t)m->num_extras + 1) * sizeof *of_extra);
    ossa_status st = OSSA_OK;
    if (!of_material || !of_extra) st = ossa__fail_nomem(error);
    else memset(of_extra, 0, ((size_t)m->num_extras + 1) * sizeof *of_extra);
    char dropped[256] = "", missing[256] = "", renamed[256] = "";
    uint32_t ndropped = 0, nmissing = 0, nrenamed = 0, lost = 0;
    for (uint32_t i = 0; i < m->num_meshes && !st; i++) {
        const char *material = m->meshes[i].material;
        size_t before = ossa__intern_count(&seen);
        int64_t id = ossa__intern(m, &seen, material, strlen(material));
        if (id < 0) {
            st = ossa__fail_nomem(error);
            break;
        }
        if (ossa__intern_count(&seen) == before) { /* as the mesh before of this material */
            if (of_material[id]) out->meshes[i].material = of_material[id];
            continue;
        }
        of_material[id] = NULL;
        ossa_material d;
        if (!ossa__material_in(&index, material, &d)) continue;
        uint32_t beyond = ossa__extra_lookup(&index, OSSA_EXTRA_MATERIAL, material)
                              ? ossa__material_beyond_base_image(&d) : 0;
        if (beyond) {
            note(dropped, sizeof dropped, material, &ndropped);
            lost |= beyond;
        }
        const char *image = d.textures[OSSA_TEXTURE_BASE_COLOR].image;
        if (!image[0]) continue;
        const ossa_extra *bytes = ossa__extra_lookup(&index, OSSA_EXTRA_IMAGE, image);
        if (!bytes) {
            if (strcmp(image, material) != 0) note(missing, sizeof missing, image, &nmissing);
            continue;
        }
        if (!write) continue;
        const char *name = of_extra[bytes - m->extras];
        if (!name) {
            char chosen[OSSA_IMAGE_NAME_MAX];
            bool present;
            st = ossa__image_beside_name(path, image, bytes->data, bytes->size, options, &given,
                                         chosen, &present, error);
            if (!st && ossa__intern(m, &given, chosen, strlen(chosen)) < 0) st = ossa__fail_nomem(error);
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
            of_extra[bytes - m->extras] = copy;
            name = copy;
        }
        out->meshes[i].material = of_material[id] = name;
    }
    ossa__free(a, of_material, 0);
    ossa__free(a, of_extra, 0);
    ossa__extra_index_free(&index);
    ossa__intern_free(m, &seen);
    ossa__intern_free(m, &given);
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
