/* Triangle adjacency by the correct definition (docs/formats/iqm.md §10): edges
 * are keyed by the positions of their end vertices (plus blend data when
 * present), not by vertex index, so seams split by UVs or normals still
 * connect. An edge shared by exactly two triangles links them. */
#include "core/internal.h"
#include "core/weld.h"

#include <string.h>

typedef struct edge {
    uint64_t key;  /* lo << 32 | hi: the vertex classes of its ends, lo <= hi */
    uint32_t slot; /* triangle * 3 + k */
} edge;

/* Sorts edges by key, keeping slot order among equal keys (a stable LSD
 * radix sort over the key's significant bits, 11 at a time): edges arrive
 * in slot order, so the result is that of sorting by (key, slot). */
static edge *sort_edges(edge *e, edge *tmp, size_t n, uint32_t max_class)
{
    unsigned bits = 0;
    while (bits < 32 && (max_class >> bits)) bits++;
    unsigned key_bits = 32 + bits; /* hi occupies the low 32 bits */
    uint32_t count[1u << 11];
    for (unsigned shift = 0; shift < key_bits; shift += 11) {
        if (shift >= bits && shift < 32) shift = 32; /* hi's unused high bits */
        if (shift >= key_bits) break;
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++) count[(e[i].key >> shift) & 2047]++;
        uint32_t sum = 0;
        for (size_t d = 0; d < 2048; d++) {
            uint32_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) tmp[count[(e[i].key >> shift) & 2047]++] = e[i];
        edge *swap = e;
        e = tmp;
        tmp = swap;
    }
    return e;
}

#define KEY_FLOATS 11 /* position 3, blend indexes 4, blend weights 4 */

/* Numbers every vertex by its key (position and blend data, -0 = +0):
 * vertices at one place with the same weights get one class (ossa__weld). */
static ossa_status vertex_classes(const ossa_model *m, uint32_t *cls, ossa_error *error)
{
    uint32_t nv = m->num_vertices;
    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    float *keys = ossa__temp_calloc(m, (size_t)nv + 1, KEY_FLOATS * sizeof(float));
    if (!keys) return ossa__fail(error, OSSA_ERROR_NOMEM, OSSA_NO_OFFSET, "out of memory");
    float tmp[OSSA_MAX_COMPONENTS];
    for (uint32_t v = 0; v < nv; v++) {
        float *k = keys + (size_t)v * KEY_FLOATS;
        ossa_vertex_array_read(m, pos, v, 1, tmp);
        for (uint32_t c = 0; c < 3 && c < pos->size; c++) k[c] = tmp[c];
        if (bi && bw) {
            ossa_vertex_array_read(m, bi, v, 1, tmp);
            for (uint32_t c = 0; c < 4 && c < bi->size; c++) k[3 + c] = tmp[c];
            ossa_vertex_array_read(m, bw, v, 1, tmp);
            for (uint32_t c = 0; c < 4 && c < bw->size; c++) k[7 + c] = tmp[c];
        }
        for (int c = 0; c < KEY_FLOATS; c++)
            if (k[c] == 0) k[c] = 0; /* -0 and +0 are the same place */
    }
    size_t classes = ossa__weld(m, keys, nv, KEY_FLOATS * sizeof(float), cls);
    ossa__temp_free(m, keys);
    if (classes == SIZE_MAX)
        return ossa__fail(error, OSSA_ERROR_NOMEM, OSSA_NO_OFFSET, "out of memory");
    return OSSA_OK;
}

ossa_status ossa_model_compute_adjacency(const ossa_model *m, uint32_t *out, ossa_error *error)
{
    size_t n = (size_t)m->num_triangles * 3;
    for (size_t i = 0; i < n; i++) out[i] = OSSA_NO_NEIGHBOR;
    if (!n) return OSSA_OK;
    /* Without positions, vertices are their own class: no per-vertex table
     * (whose size a file could choose freely) is needed. With positions,
     * the vertex count is backed by real data. */
    bool by_position = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL) != NULL;
    uint32_t *cls = by_position ? ossa__temp_alloc(m, ((size_t)m->num_vertices + 1) * sizeof *cls) : NULL;
    edge *edges = ossa__temp_alloc(m, 2 * n * sizeof *edges);
    if ((by_position && !cls) || !edges) {
        ossa__temp_free(m, cls);
        ossa__temp_free(m, edges);
        return ossa__fail(error, OSSA_ERROR_NOMEM, OSSA_NO_OFFSET, "out of memory");
    }
    if (by_position && vertex_classes(m, cls, error) != OSSA_OK) {
        ossa__temp_free(m, cls);
        ossa__temp_free(m, edges);
        return OSSA_FAILED;
    }
    uint32_t max_class = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = m->triangles[t].v[k], b = m->triangles[t].v[(k + 1) % 3];
            if (by_position) {
                a = cls[a];
                b = cls[b];
            }
            uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
            if (hi > max_class) max_class = hi;
            edges[(size_t)t * 3 + k] = (edge){(uint64_t)lo << 32 | hi, t * 3 + (uint32_t)k};
        }
    const edge *sorted = sort_edges(edges, edges + n, n, max_class);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && sorted[j].key == sorted[i].key) j++;
        if (j - i == 2) {
            out[sorted[i].slot] = sorted[i + 1].slot / 3;
            out[sorted[i + 1].slot] = sorted[i].slot / 3;
        }
        i = j;
    }
    ossa__temp_free(m, cls);
    ossa__temp_free(m, edges);
    return OSSA_OK;
}
