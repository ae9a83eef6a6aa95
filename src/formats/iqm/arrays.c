/* The vertex arrays an IQM is written with (docs/formats/iqm.md §4): the
 * pairs the format recommends and its loaders read, unless the write
 * option "iqm.keep_formats" keeps the model's own.
 *
 * The IQM SDK's demo (demo/demo.cpp, loadiqmmeshes) refuses a file whose
 * position is not float x 3, normal float x 3, tangent float x 4,
 * texcoord float x 2, or whose blend indexes, blend weights and colour
 * are not ubyte x 4; raylib (rmodels.c, LoadIQM) and Sauerbraten copy
 * those bytes without looking at the format, so float weights from glTF,
 * MD5 or FBX became weights of up to 255 per byte and the mesh flew
 * apart. So every array of those types is written in that pair: floats
 * decoded (normalized integers and halves exactly), ubyte colours by the
 * IQM rule, ubyte weights summing to 255 exactly (ossa__ubyte_weights,
 * §8.3), missing components padded (z, v and blend slots 0, tangent w 1,
 * colour alpha 1). Arrays already in that pair are written as they are,
 * so an IQM's own bytes (its (127, 128) weight pairs) survive. What is not
 * converted: an array with more components than the pair (nothing is cut
 * off; a note says so), and blend indexes above 255, which go to ushort
 * (warned: those loaders cannot read them). */
#include "formats/iqm/iqm.h"

#include <math.h>

/* The recommended pair of a type (§4); size 0 for custom arrays. */
static void recommended(ossa_vertex_type type, ossa_component *format, uint32_t *size)
{
    *format = OSSA_FLOAT;
    *size = 0;
    switch (type) {
    case OSSA_VERTEX_POSITION:
    case OSSA_VERTEX_NORMAL: *size = 3; break;
    case OSSA_VERTEX_TEXCOORD: *size = 2; break;
    case OSSA_VERTEX_TANGENT: *size = 4; break;
    case OSSA_VERTEX_BLENDINDEXES:
    case OSSA_VERTEX_BLENDWEIGHTS:
    case OSSA_VERTEX_COLOR:
        *format = OSSA_UBYTE;
        *size = 4;
        break;
    default: break;
    }
}

/* The value a missing component k of `type` takes. */
static float padding(ossa_vertex_type type, uint32_t k)
{
    if (type == OSSA_VERTEX_TANGENT && k == 3) return 1; /* bitangent sign + */
    if (type == OSSA_VERTEX_COLOR && k == 3) return 1;   /* opaque */
    return 0;
}

/* The largest blend index of the array (raw integers). */
static float largest_index(const ossa_model *m, const ossa_vertex_array *a, float *tmp)
{
    float top = 0;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        ossa_vertex_array_read(m, a, v, 1, tmp);
        for (uint32_t k = 0; k < a->size; k++)
            if (tmp[k] > top) top = tmp[k];
    }
    return top;
}

/* Fills `out` (num_vertices x size of `format`) from array `a`. */
static void convert(const ossa_model *m, const ossa_vertex_array *a, ossa_component format,
                    uint32_t size, unsigned char *out)
{
    float in[OSSA_MAX_COMPONENTS], v4[OSSA_MAX_COMPONENTS];
    size_t cs = ossa_component_size(format);
    bool raw = a->type == OSSA_VERTEX_BLENDINDEXES;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        ossa_vertex_array_read(m, a, v, 1, in);
        for (uint32_t k = 0; k < size; k++) v4[k] = k < a->size ? in[k] : padding(a->type, k);
        unsigned char *p = out + (size_t)v * size * cs;
        if (a->type == OSSA_VERTEX_BLENDWEIGHTS && format == OSSA_UBYTE) {
            uint8_t w[OSSA_MAX_COMPONENTS];
            ossa__ubyte_weights(v4, size, w);
            memcpy(p, w, size);
            continue;
        }
        for (uint32_t k = 0; k < size; k++) ossa__component_put(format, p + k * cs, v4[k], raw);
    }
}

void ossa__iqm_arrays_release(const ossa_model *view, const ossa_model *model,
                              const ossa_write_options *options)
{
    if (view->vertex_arrays == model->vertex_arrays) return;
    for (uint32_t i = 0; i < view->num_vertex_arrays; i++)
        if (view->vertex_arrays[i].data != model->vertex_arrays[i].data)
            ossa__free(options->allocator, view->vertex_arrays[i].data, 0);
    ossa__free(options->allocator, view->vertex_arrays, 0);
}

ossa_status ossa__iqm_arrays(const ossa_model *model, const ossa_write_options *options,
                             ossa_model *view, ossa_error *error)
{
    *view = *model;
    if (ossa__option_on(OSSA__OPTIONS(options), "iqm.keep_formats") || !model->num_vertices)
        return OSSA_OK;
    const ossa_allocator *alloc = options->allocator;
    uint32_t n = model->num_vertex_arrays, converted = 0;
    ossa_vertex_array *arrays = ossa__alloc(alloc, (n + 1) * sizeof *arrays);
    if (!arrays) return ossa__fail_nomem(error);
    if (n) memcpy(arrays, model->vertex_arrays, n * sizeof *arrays);
    view->vertex_arrays = arrays;
    float tmp[OSSA_MAX_COMPONENTS];
    for (uint32_t i = 0; i < n; i++) {
        const ossa_vertex_array *a = &model->vertex_arrays[i];
        ossa_component format;
        uint32_t size;
        recommended(a->type, &format, &size);
        if (!size || (a->format == format && a->size == size)) continue;
        if (a->size > size) {
            ossa__write_note(options,
                             "the %s array has %u components: written as it is (the IQM SDK's demo "
                             "and raylib read %u)",
                             ossa_vertex_type_name(a->type), a->size, size);
            continue;
        }
        if (a->type == OSSA_VERTEX_BLENDINDEXES && largest_index(model, a, tmp) > 255) {
            format = OSSA_USHORT;
            ossa__write_warn(options, OSSA_WARNING_LIMITED,
                             "blend indexes above 255 are written as ushort: the IQM SDK's demo, "
                             "raylib and Sauerbraten read ubyte indexes only");
            if (a->format == format && a->size == size) continue;
        }
        size_t bytes = (size_t)model->num_vertices * size * ossa_component_size(format);
        unsigned char *data = ossa__alloc(alloc, bytes);
        if (!data) {
            ossa__iqm_arrays_release(view, model, options);
            *view = *model;
            return ossa__fail_nomem(error);
        }
        convert(model, a, format, size, data);
        arrays[i].format = format;
        arrays[i].size = size;
        arrays[i].data = data;
        converted++;
    }
    if (!converted) {
        ossa__free(alloc, arrays, 0);
        view->vertex_arrays = model->vertex_arrays;
    }
    return OSSA_OK;
}
