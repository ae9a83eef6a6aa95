/* IQE writer: canonical, readable text (formats/iqe.md §10).
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
 * Floats are the shortest decimals that read back as the same float
 * (ossa__iqe_format_float), so reading the output gives the model's values
 * bit for bit; quaternions are written with w <= 0 (§6). The output
 * depends only on the model. */
#include "iqe.h"

#include <math.h>

typedef struct writer {
    const ossa_model *m;
    ossa_buf *out;
    ossa_error *error;
    const ossa_allocator *alloc;
    char line[512]; /* the line being built; flushed when nearly full */
    size_t n;
    /* Arrays by IQE slot (NULL: absent). */
    const ossa_vertex_array *slot[IQE_NUM_SLOTS];
} writer;

static void flush(writer *w)
{
    ossa__buf_append(w->out, w->line, w->n);
    w->n = 0;
}

static void room(writer *w, size_t need)
{
    if (w->n + need > sizeof w->line) flush(w);
}

static void put(writer *w, const char *s)
{
    size_t len = strlen(s);
    if (len > sizeof w->line / 2) {
        flush(w);
        ossa__buf_append(w->out, s, len);
        return;
    }
    room(w, len);
    memcpy(w->line + w->n, s, len);
    w->n += len;
}

static void put_float(writer *w, float f)
{
    room(w, IQE_FLOAT_CHARS + 1);
    w->line[w->n++] = ' ';
    w->n += ossa__iqe_format_float(w->line + w->n, f);
}

static void put_uint(writer *w, uint64_t v)
{
    char tmp[24];
    size_t k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    room(w, k + 1);
    w->line[w->n++] = ' ';
    while (k) w->line[w->n++] = tmp[--k];
}

static void put_int(writer *w, int64_t v)
{
    if (v >= 0) {
        put_uint(w, (uint64_t)v);
        return;
    }
    char tmp[24];
    size_t k = 0;
    uint64_t u = (uint64_t)0 - (uint64_t)v;
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    room(w, k + 2);
    w->line[w->n++] = ' ';
    w->line[w->n++] = '-';
    while (k) w->line[w->n++] = tmp[--k];
}

/* " \"name\"": '"' cannot be written inside a name (replaced by '\''),
 * and line breaks would end the line (replaced by spaces). */
static void put_name(writer *w, const char *s)
{
    room(w, 2);
    w->line[w->n++] = ' ';
    w->line[w->n++] = '"';
    for (; *s; s++) {
        room(w, 2);
        char c = *s;
        if (c == '"') c = '\'';
        if (c == '\n' || c == '\r') c = ' ';
        w->line[w->n++] = c;
    }
    room(w, 1);
    w->line[w->n++] = '"';
}

static void newline(writer *w)
{
    room(w, 1);
    w->line[w->n++] = '\n';
}

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
        if (a->size <= 4) put_uint(w, a->size); /* larger blend arrays: vb holds them */
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

typedef struct span {
    uint32_t lo, hi; /* inclusive vertex range, unless empty */
    bool empty;
} span;

static void write_faces(writer *w, const ossa_triangle *t, uint32_t base)
{
    put(w, "fm");
    for (int k = 0; k < 3; k++) put_uint(w, t->v[k] - base);
    newline(w);
}

/* One mesh: its vertices (its declared range widened to every vertex its
 * triangles use, so any model writes correctly), then its faces. The
 * reader drops vertices no face uses. */
static void write_mesh(writer *w, const char *name, const char *material, const uint32_t *tris,
                       uint32_t count, span s)
{
    const ossa_model *m = w->m;
    for (uint32_t i = 0; i < count; i++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = m->triangles[tris[i]].v[k];
            if (s.empty || v < s.lo) s.lo = v;
            if (s.empty || v > s.hi) s.hi = v;
            s.empty = false;
        }
    put(w, "mesh");
    put_name(w, name);
    newline(w);
    put(w, "\tmaterial");
    put_name(w, material);
    newline(w);
    if (!count) {
        newline(w);
        return;
    }
    newline(w);
    for (uint32_t v = s.lo; v <= s.hi; v++) write_vertex(w, v);
    for (uint32_t i = 0; i < count; i++) write_faces(w, &m->triangles[tris[i]], s.lo);
    newline(w);
}

static ossa_status write_geometry(writer *w)
{
    const ossa_model *m = w->m;
    if (!m->num_triangles || !w->slot[OSSA_VERTEX_POSITION]) return OSSA_OK;
    uint32_t *list = ossa__alloc(w->alloc, ((size_t)m->num_triangles + 1) * sizeof *list);
    unsigned char *covered = ossa__alloc(w->alloc, (size_t)m->num_triangles + 1);
    if (!list || !covered) {
        ossa__free(w->alloc, list, 0);
        ossa__free(w->alloc, covered, 0);
        return ossa__fail_nomem(w->error);
    }
    memset(covered, 0, m->num_triangles);
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        const ossa_mesh *me = &m->meshes[i];
        uint32_t count = 0;
        for (uint32_t t = me->first_triangle;
             t < m->num_triangles && t - me->first_triangle < me->num_triangles; t++) {
            list[count++] = t;
            covered[t] = 1;
        }
        span s = {me->first_vertex, me->first_vertex + me->num_vertices - 1, me->num_vertices == 0};
        if (count) write_mesh(w, me->name, me->material, list, count, s);
    }
    /* Triangles outside every mesh: one more, unnamed mesh. */
    uint32_t count = 0;
    for (uint32_t t = 0; t < m->num_triangles; t++)
        if (!covered[t]) list[count++] = t;
    if (count) {
        span s = {0, 0, true};
        write_mesh(w, "", "", list, count, s);
    }
    ossa__free(w->alloc, list, 0);
    ossa__free(w->alloc, covered, 0);
    return OSSA_OK;
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
    w.out = out;
    w.error = error;
    w.alloc = &options->allocator;
    if (collect_arrays(&w)) return OSSA_FAILED;
    put(&w, IQE_HEADER "\n\n");
    write_declarations(&w);
    write_joints(&w);
    if (write_geometry(&w)) return OSSA_FAILED;
    write_animations(&w);
    flush(&w);
    if (model->comment_size) {
        ossa__buf_append(out, "comment\n", 8);
        ossa__buf_append(out, model->comment, model->comment_size);
    }
    if (out->failed) return ossa__fail_nomem(error);
    return OSSA_OK;
}
