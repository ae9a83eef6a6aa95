/* IQE writer: canonical, readable text (docs/formats/iqe.md §10).
 *
 *   # Inter-Quake Export
 *   vertexarray ...            arrays that differ from the compiler's
 *                              defaults, every custom array, always colour
 *   joint "name" parent        parents first, each with its base pq
 *   mesh / material            per mesh: vp vt vn vx vb vc v0.. per vertex,
 *   fm a b c                   then its faces, mesh-relative
 *   animation / framerate / loop / frame / pq
 *   comment                    the comment text, verbatim, last
 *
 * Text goes through the shared line writer (text/text.h, ossa_text_out).
 * Floats are the shortest decimals that read back as the same float
 * (ossa__out_float), so reading the output gives the model's values bit
 * for bit; quaternions are written with w <= 0 (§6). The output depends
 * only on the model. */
#include "formats/iqe/iqe.h"

#include <stdlib.h>

typedef struct writer {
    const ossa_model *m;
    ossa_text_out out;
    ossa_error *error;
    const ossa_allocator *alloc;
    const ossa_write_options *options;
    uint32_t renamed; /* names with '"' or line breaks */
    /* Arrays by IQE slot (NULL: absent). */
    const ossa_vertex_array *slot[IQE_NUM_SLOTS];
} writer;

static void put(writer *w, const char *s) { ossa__out_str(&w->out, s); }

/* Numbers and names follow their command or the number before them after
 * one space. */
static void put_float(writer *w, float f)
{
    ossa__out_char(&w->out, ' ');
    ossa__out_float(&w->out, f);
}

static void put_int(writer *w, int64_t v)
{
    ossa__out_char(&w->out, ' ');
    ossa__out_int(&w->out, v);
}

/* " \"name\"": '"' cannot be written inside a name (replaced by '\''),
 * and line breaks would end the line (replaced by spaces). */
static void put_name(writer *w, const char *s)
{
    ossa__out_mem(&w->out, " \"", 2);
    bool changed = false;
    for (; *s; s++) {
        char c = *s;
        if (c == '"') c = '\'';
        if (c == '\n' || c == '\r') c = ' ';
        changed |= c != *s;
        ossa__out_char(&w->out, c);
    }
    w->renamed += changed;
    ossa__out_char(&w->out, '"');
}

static void newline(writer *w) { ossa__out_char(&w->out, '\n'); }

/* -- Checks -- */

static ossa_status collect_arrays(writer *w)
{
    const ossa_model *m = w->m;
    int custom = 0;
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        int s;
        if (a->type == OSSA_VERTEX_CUSTOM) {
            if (custom == IQE_NUM_CUSTOM)
                return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                                  "IQE holds %d custom vertex arrays; the model has more",
                                  IQE_NUM_CUSTOM);
            s = IQE_SLOT_CUSTOM0 + custom++;
        } else {
            s = (int)a->type;
            if (w->slot[s])
                return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                                  "IQE holds one %s array; the model has more",
                                  ossa_vertex_type_name(a->type));
        }
        bool blend = a->type == OSSA_VERTEX_BLENDINDEXES || a->type == OSSA_VERTEX_BLENDWEIGHTS;
        if (a->size > 4 && !blend)
            return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                              "the %s array has %u components; IQE holds at most 4",
                              ossa_vertex_type_name(a->type), a->size);
        w->slot[s] = a;
    }
    if (!w->slot[OSSA_VERTEX_BLENDINDEXES] != !w->slot[OSSA_VERTEX_BLENDWEIGHTS])
        w->slot[OSSA_VERTEX_BLENDINDEXES] = w->slot[OSSA_VERTEX_BLENDWEIGHTS] = NULL;
    return OSSA_OK;
}

/* -- Sections -- */

static void write_declarations(writer *w)
{
    static const char *const words[] = {"position", "texcoord", "normal", "tangent",
                                        "blendindexes", "blendweights", "color"};
    static const uint32_t default_size[] = {3, 2, 3, 4, 4, 4, 4};
    bool any = false;
    for (int s = 0; s < IQE_NUM_SLOTS; s++) {
        const ossa_vertex_array *a = w->slot[s];
        if (!a) continue;
        bool custom = s >= IQE_SLOT_CUSTOM0;
        ossa_component def = s == OSSA_VERTEX_BLENDINDEXES || s == OSSA_VERTEX_BLENDWEIGHTS ||
                                     s == OSSA_VERTEX_COLOR
                                 ? OSSA_UBYTE
                                 : OSSA_FLOAT;
        if (!custom && s != OSSA_VERTEX_COLOR && a->format == def && a->size == default_size[s])
            continue;
        put(w, "vertexarray ");
        if (custom) {
            char word[8] = "custom0";
            word[6] = (char)('0' + s - IQE_SLOT_CUSTOM0);
            put(w, word);
        } else {
            put(w, words[s]);
        }
        put(w, " ");
        put(w, ossa_component_name(a->format));
        if (a->size <= 4) put_int(w, a->size); /* larger blend arrays: vb holds them */
        if (custom) put_name(w, a->name);
        newline(w);
        any = true;
    }
    if (any) newline(w);
}

/* pq with w <= 0; 7 numbers when the scale is exactly 1. */
static void write_pose(writer *w, const char *indent, const ossa_transform *t)
{
    put(w, indent);
    put(w, "pq");
    for (int k = 0; k < 3; k++) put_float(w, t->translation[k]);
    bool flip = t->rotation[3] > 0;
    for (int k = 0; k < 4; k++) put_float(w, flip ? -t->rotation[k] : t->rotation[k]);
    if (t->scale[0] != 1 || t->scale[1] != 1 || t->scale[2] != 1)
        for (int k = 0; k < 3; k++) put_float(w, t->scale[k]);
    newline(w);
}

static void write_joints(writer *w)
{
    const ossa_model *m = w->m;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        put(w, "joint");
        put_name(w, m->joints[j].name);
        put_int(w, m->joints[j].parent);
        newline(w);
        write_pose(w, "\t", &m->joints[j].bind);
    }
    if (m->num_joints) newline(w);
}

/* vp, then tab-indented vt vn vx vb vc v0..v9 (§10). */
static void write_vertex(writer *w, uint32_t v)
{
    static const char *const cmds[IQE_NUM_SLOTS] = {"vp", "\tvt", "\tvn", "\tvx", "\tvb", "", "\tvc",
                                                    "\tv0", "\tv1", "\tv2", "\tv3", "\tv4",
                                                    "\tv5", "\tv6", "\tv7", "\tv8", "\tv9"};
    float f[OSSA_MAX_COMPONENTS];
    for (int s = 0; s < IQE_NUM_SLOTS; s++) {
        const ossa_vertex_array *a = w->slot[s];
        if (!a || s == OSSA_VERTEX_BLENDWEIGHTS) continue;
        put(w, cmds[s]);
        ossa_vertex_array_read(w->m, a, v, 1, f);
        if (s == OSSA_VERTEX_BLENDINDEXES) { /* used slots only: (joint, weight) */
            const ossa_vertex_array *bw = w->slot[OSSA_VERTEX_BLENDWEIGHTS];
            float wt[OSSA_MAX_COMPONENTS];
            ossa_vertex_array_read(w->m, bw, v, 1, wt);
            uint32_t n = a->size < bw->size ? a->size : bw->size;
            for (uint32_t k = 0; k < n; k++) {
                if (!(wt[k] > 0)) continue;
                put_int(w, f[k] >= 0 && f[k] < 2147483648.0f ? (int64_t)f[k] : 0);
                put_float(w, wt[k]);
            }
        } else {
            for (uint32_t k = 0; k < a->size; k++) put_float(w, f[k]);
        }
        newline(w);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct geometry {
    uint32_t *tris;   /* this mesh's triangles */
    uint32_t *verts;  /* the vertices they use, in model order */
    uint32_t *stamp;  /* per model vertex: the last mesh that used it */
    uint32_t *local;  /* per model vertex: its number in that mesh */
    unsigned char *claimed; /* per triangle: written already */
} geometry;

/* One mesh: the vertices its triangles use, in model order, then its
 * faces (mesh-relative). For a model read from IQE or IQM that is exactly
 * the mesh's vertex range. */
static void write_mesh(writer *w, geometry *g, uint32_t id, const char *name, const char *material,
                       uint32_t count)
{
    const ossa_model *m = w->m;
    uint32_t nv = 0;
    for (uint32_t i = 0; i < count; i++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = m->triangles[g->tris[i]].v[k];
            if (g->stamp[v] != id) {
                g->stamp[v] = id;
                g->verts[nv++] = v;
            }
        }
    qsort(g->verts, nv, sizeof *g->verts, cmp_u32);
    for (uint32_t i = 0; i < nv; i++) g->local[g->verts[i]] = i;
    put(w, "mesh");
    put_name(w, name);
    newline(w);
    put(w, "\tmaterial");
    put_name(w, material);
    newline(w);
    newline(w);
    for (uint32_t i = 0; i < nv; i++) write_vertex(w, g->verts[i]);
    for (uint32_t i = 0; i < count; i++) {
        const ossa_triangle *t = &m->triangles[g->tris[i]];
        put(w, "fm");
        for (int k = 0; k < 3; k++) put_int(w, g->local[t->v[k]]);
        newline(w);
    }
    newline(w);
}

/* Each triangle is written once, with the first mesh whose range holds
 * it; triangles outside every mesh form one more, unnamed mesh. Meshes
 * without triangles are left out (IQE has no empty meshes). The output is
 * linear in the triangles even for meshes with overlapping ranges. */
static ossa_status write_geometry(writer *w)
{
    const ossa_model *m = w->m;
    if (!w->slot[OSSA_VERTEX_POSITION]) {
        if (m->num_triangles)
            ossa__write_warn(w->options, OSSA_WARNING_DROPPED, "the model has %u triangles but no positions: IQE cannot hold them",
                 m->num_triangles);
        return OSSA_OK;
    }
    if (!m->num_triangles) {
        if (m->num_vertices)
            ossa__write_warn(w->options, OSSA_WARNING_DROPPED, "%u vertices without triangles are not written (IQE keeps only vertices "
                    "that faces use)",
                 m->num_vertices);
        return OSSA_OK;
    }
    size_t nt = m->num_triangles, nv = m->num_vertices;
    geometry g;
    g.tris = ossa__iqe_talloc(w->alloc, nt + 1, sizeof *g.tris);
    g.verts = ossa__iqe_talloc(w->alloc, nt * 3 + 1, sizeof *g.verts);
    g.stamp = ossa__iqe_talloc(w->alloc, nv + 1, sizeof *g.stamp);
    g.local = ossa__iqe_talloc(w->alloc, nv + 1, sizeof *g.local);
    g.claimed = ossa__iqe_talloc(w->alloc, nt + 1, 1);
    ossa_status st = OSSA_OK;
    if (!g.tris || !g.verts || !g.stamp || !g.local || !g.claimed) {
        st = ossa__fail_nomem(w->error);
    } else {
        memset(g.claimed, 0, nt);
        memset(g.stamp, 0xff, (nv + 1) * sizeof *g.stamp);
        for (uint32_t i = 0; i <= m->num_meshes; i++) {
            bool rest = i == m->num_meshes;
            const ossa_mesh *me = rest ? NULL : &m->meshes[i];
            uint32_t first = rest ? 0 : me->first_triangle;
            uint64_t last = rest ? nt : (uint64_t)first + me->num_triangles;
            uint32_t count = 0;
            for (uint64_t t = first; t < last && t < nt; t++)
                if (!g.claimed[t]) {
                    g.claimed[t] = 1;
                    g.tris[count++] = (uint32_t)t;
                }
            if (count) write_mesh(w, &g, i, rest ? "" : me->name, rest ? "" : me->material, count);
        }
        uint32_t unused = 0;
        for (size_t v = 0; v < nv; v++) unused += g.stamp[v] == UINT32_MAX;
        if (unused)
            ossa__write_warn(w->options, OSSA_WARNING_DROPPED, "%u vertices that no triangle uses are not written (IQE keeps only vertices "
                    "that faces use)",
                 unused);
    }
    ossa__iqe_tfree(w->alloc, g.tris);
    ossa__iqe_tfree(w->alloc, g.verts);
    ossa__iqe_tfree(w->alloc, g.stamp);
    ossa__iqe_tfree(w->alloc, g.local);
    ossa__iqe_tfree(w->alloc, g.claimed);
    return st;
}

static void write_animations(writer *w)
{
    const ossa_model *m = w->m;
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        put(w, "animation");
        put_name(w, an->name);
        newline(w);
        put(w, "\tframerate");
        put_float(w, an->framerate);
        newline(w);
        if (an->flags & OSSA_ANIMATION_LOOP) put(w, "\tloop\n");
        for (uint32_t f = 0; f < an->num_frames; f++) {
            put(w, "\nframe\n");
            for (uint32_t j = 0; j < m->num_joints; j++)
                write_pose(w, "", &an->frames[(size_t)f * m->num_joints + j]);
        }
        newline(w);
    }
}

ossa_status ossa__iqe_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error)
{
    writer w;
    memset(&w, 0, sizeof w);
    w.m = model;
    ossa__out_init(&w.out, out);
    w.error = error;
    w.alloc = options->allocator;
    w.options = options;
    if (collect_arrays(&w)) return OSSA_FAILED;
    put(&w, IQE_HEADER "\n\n");
    write_declarations(&w);
    write_joints(&w);
    if (write_geometry(&w)) return OSSA_FAILED;
    write_animations(&w);
    if (w.renamed)
        ossa__write_warn(w.options, OSSA_WARNING_RENAMED, "%u names held '\"' or line breaks, which IQE names cannot: written as ' and spaces",
             w.renamed);
    if (model->comment_size) {
        put(&w, "comment\n");
        ossa__out_mem(&w.out, model->comment, model->comment_size);
    }
    ossa__out_flush(&w.out);
    if (out->failed) return ossa__fail_nomem(error);
    return OSSA_OK;
}
