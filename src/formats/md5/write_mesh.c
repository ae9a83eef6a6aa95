/* md5mesh writer (docs/formats/md5.md §11): the joints in model space, one
 * block per mesh that has triangles, and each vertex's influences as a run
 * of weights placing the vertex in its joints' bind spaces:
 * offset = R(conj(q_j)) (p - t_j), bias = the normalized blend weight.
 * Reading the block back gives p again (every weight's point is p).
 *
 *   MD5Version 10                      mesh {
 *   commandline ""                     	// meshes: NAME
 *                                      	shader "MATERIAL"
 *   numJoints N                        	numverts V
 *   numMeshes M                        	vert 0 ( u v ) firstWeight count
 *                                      	numtris T
 *   joints {                           	tri 0 a b c
 *   	"name"	parent ( t ) ( q )	// p 	numweights W
 *   }                                  	weight 0 joint bias ( offset )
 *                                      }
 */
#include "formats/md5/md5.h"

#include <math.h>
#include <stdio.h>

typedef struct weight_rec {
    uint32_t joint;
    float bias, offset[3];
} weight_rec;

typedef struct mesh_writer {
    const md5_skeleton *s;
    const ossa_model *m;
    ossa_text_out o;
    ossa_error *error;
    float *pos, *uv, *idx, *wgt, *nrm; /* decoded arrays (all but pos may be NULL) */
    uint32_t K;
    uint32_t *local; /* model vertex -> block vertex, UINT32_MAX when not in the block */
    uint32_t *verts; /* block vertex -> model vertex */
    weight_rec *weights;
    /* the normals a reader makes from a block, to compare with the model's */
    float *block_pos, *block_nrm;
    uint32_t *block_tris;
    bool normals_differ;
    uint32_t bad_influences;
} mesh_writer;

static void *talloc(const mesh_writer *w, size_t count, size_t elem)
{
    return ossa__temp_calloc(w->m, count ? count : 1, elem);
}

/* Every value of an array as floats (NULL when absent). */
static ossa_status decode(mesh_writer *w, ossa_vertex_type type, uint32_t size, float **out)
{
    const ossa_vertex_array *a = ossa_model_find_array(w->m, type, NULL);
    *out = NULL;
    if (!a) return OSSA_OK;
    float *v = talloc(w, (size_t)w->m->num_vertices * a->size, sizeof *v);
    float *r = talloc(w, (size_t)w->m->num_vertices * size, sizeof *r);
    if (!v || !r) {
        ossa__temp_free(w->m, v);
        ossa__temp_free(w->m, r);
        return ossa__fail_nomem(w->error);
    }
    ossa_vertex_array_read(w->m, a, 0, w->m->num_vertices, v);
    for (size_t i = 0; i < w->m->num_vertices; i++)
        for (uint32_t k = 0; k < size; k++) r[i * size + k] = k < a->size ? v[i * a->size + k] : 0;
    ossa__temp_free(w->m, v);
    *out = r;
    return OSSA_OK;
}

static void warn_dropped(const mesh_writer *w)
{
    static const struct {
        ossa_vertex_type type;
        const char *name;
    } lost[] = {{OSSA_VERTEX_NORMAL, "normals (readers make other ones)"},
                {OSSA_VERTEX_TANGENT, "tangents"},
                {OSSA_VERTEX_COLOR, "colours"},
                {OSSA_VERTEX_CUSTOM, "custom arrays"}};
    char list[200] = "";
    for (size_t i = 0; i < sizeof lost / sizeof lost[0]; i++) {
        bool has = false;
        for (uint32_t a = 0; a < w->m->num_vertex_arrays; a++)
            has |= w->m->vertex_arrays[a].type == lost[i].type;
        /* normals that readers make again as they are lose nothing */
        if (!has || (lost[i].type == OSSA_VERTEX_NORMAL && !w->normals_differ)) continue;
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", lost[i].name);
    }
    if (list[0])
        ossa__write_warn(w->s->options, OSSA_WARNING_DROPPED,
                             "MD5 stores positions, texture coordinates and weights only: %s "
                             "dropped",
                             list);
}

static void put_vec(ossa_text_out *o, const float *v, int n)
{
    ossa__out_str(o, "( ");
    for (int i = 0; i < n; i++) {
        ossa__md5_out_float(o, v[i]);
        ossa__out_char(o, ' ');
    }
    ossa__out_char(o, ')');
}

static void write_joints(mesh_writer *w)
{
    const md5_skeleton *s = w->s;
    ossa_text_out *o = &w->o;
    ossa__out_str(o, "joints {\n");
    for (uint32_t j = 0; j < s->num_joints; j++) {
        const double *B = s->bind + (size_t)j * 7;
        float t[3] = {(float)B[0], (float)B[1], (float)B[2]}, q[3];
        double n = sqrt(B[3] * B[3] + B[4] * B[4] + B[5] * B[5] + B[6] * B[6]);
        double k = (B[6] > 0 ? -1 : 1) / n;
        for (int i = 0; i < 3; i++) q[i] = (float)(B[3 + i] * k) + 0.0f;
        ossa__out_char(o, '\t');
        ossa__md5_out_name(o, s->names[j]);
        ossa__out_char(o, '\t');
        ossa__out_int(o, s->parents[j]);
        ossa__out_char(o, ' ');
        put_vec(o, t, 3);
        ossa__out_char(o, ' ');
        put_vec(o, q, 3);
        if (s->parents[j] >= 0) {
            ossa__out_str(o, "\t\t// ");
            ossa__out_str(o, s->names[s->parents[j]]);
        }
        ossa__out_char(o, '\n');
    }
    ossa__out_str(o, "}\n");
}

/* The influences of model vertex v as weight records; returns how many. */
static uint32_t influences(mesh_writer *w, uint32_t v, weight_rec *out)
{
    const md5_skeleton *s = w->s;
    uint32_t n = 0;
    double sum = 0;
    for (uint32_t k = 0; w->idx && k < w->K; k++) {
        float x = w->idx[(size_t)v * w->K + k], wt = w->wgt[(size_t)v * w->K + k];
        if (!(wt > 0)) continue;
        if (!(x >= 0 && x < (float)w->m->num_joints)) {
            w->bad_influences++;
            continue;
        }
        out[n].joint = (uint32_t)x + s->shift;
        out[n].bias = wt;
        sum += wt;
        n++;
    }
    if (!n) { /* nothing moves it: joint 0, the inserted "origin" or a root that never moves */
        out[0].joint = 0;
        out[0].bias = 1;
        sum = 1;
        n = 1;
    }
    const float *p = w->pos + (size_t)v * 3;
    for (uint32_t i = 0; i < n; i++) {
        const double *B = s->bind + (size_t)out[i].joint * 7;
        double inv[4] = {-B[3], -B[4], -B[5], B[6]}, d[3];
        for (int c = 0; c < 3; c++) d[c] = (double)p[c] - B[c];
        /* R(conj(q)) d = d + 2w(u x d) + 2u x (u x d), u = -q.xyz */
        double c1[3] = {inv[1] * d[2] - inv[2] * d[1], inv[2] * d[0] - inv[0] * d[2],
                        inv[0] * d[1] - inv[1] * d[0]};
        double c2[3] = {inv[1] * c1[2] - inv[2] * c1[1], inv[2] * c1[0] - inv[0] * c1[2],
                        inv[0] * c1[1] - inv[1] * c1[0]};
        for (int c = 0; c < 3; c++) out[i].offset[c] = (float)(d[c] + 2 * (inv[3] * c1[c] + c2[c]));
        out[i].bias = (float)(out[i].bias / sum);
    }
    return n;
}

/* Whether the model's normals of the block are the ones a reader makes
 * from it (docs/formats/md5.md §5): then writing loses nothing. */
static ossa_status compare_normals(mesh_writer *w, const ossa_mesh *mesh, uint32_t nv)
{
    const ossa_triangle *tris = w->m->triangles + mesh->first_triangle;
    for (uint32_t i = 0; i < nv; i++)
        memcpy(w->block_pos + (size_t)i * 3, w->pos + (size_t)w->verts[i] * 3, 3 * sizeof(float));
    for (uint32_t t = 0; t < mesh->num_triangles; t++)
        for (int k = 0; k < 3; k++) w->block_tris[(size_t)t * 3 + k] = w->local[tris[t].v[k]];
    if (ossa__md5_normals(w->m, w->block_pos, nv, w->block_tris, mesh->num_triangles, w->block_nrm,
                          w->error))
        return OSSA_FAILED;
    for (uint32_t i = 0; i < nv && !w->normals_differ; i++) {
        const float *a = w->block_nrm + (size_t)i * 3, *b = w->nrm + (size_t)w->verts[i] * 3;
        for (int k = 0; k < 3; k++) w->normals_differ |= !(fabsf(a[k] - b[k]) <= 1e-4f);
    }
    return OSSA_OK;
}

static ossa_status write_block(mesh_writer *w, const ossa_mesh *mesh)
{
    const ossa_model *m = w->m;
    ossa_text_out *o = &w->o;
    /* The block's vertices: the mesh's range, then any vertex outside it
     * that its triangles use. */
    uint32_t nv = 0;
    for (uint32_t v = mesh->first_vertex; v < mesh->first_vertex + mesh->num_vertices; v++) {
        w->local[v] = nv;
        w->verts[nv++] = v;
    }
    const ossa_triangle *tris = m->triangles + mesh->first_triangle;
    for (uint32_t t = 0; t < mesh->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = tris[t].v[k];
            if (w->local[v] == UINT32_MAX) {
                w->local[v] = nv;
                w->verts[nv++] = v;
            }
        }

    ossa__out_str(o, "\nmesh {\n");
    if (mesh->name[0]) {
        ossa__out_str(o, "\t// meshes: ");
        for (const char *p = mesh->name; *p; p++)
            ossa__out_char(o, (unsigned char)*p < 0x20 ? ' ' : *p);
        ossa__out_char(o, '\n');
    }
    ossa__out_str(o, "\tshader ");
    ossa__md5_out_name(o, mesh->material);
    ossa__out_format(o, "\n\n\tnumverts %u\n", nv);
    uint32_t nw = 0;
    for (uint32_t i = 0; i < nv; i++) {
        uint32_t v = w->verts[i];
        uint32_t n = influences(w, v, w->weights + nw);
        for (uint32_t k = 0; k < n; k++)
            if (!ossa__finite3(w->weights[nw + k].offset))
                return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                                  "vertex %u is too far from joint %u for a float offset", v,
                                  w->weights[nw + k].joint);
        float uv[2] = {0, 0};
        if (w->uv) uv[0] = w->uv[(size_t)v * 2], uv[1] = w->uv[(size_t)v * 2 + 1];
        ossa__out_format(o, "\tvert %u ", i);
        put_vec(o, uv, 2);
        ossa__out_format(o, " %u %u\n", nw, n);
        nw += n;
    }
    ossa__out_format(o, "\n\tnumtris %u\n", mesh->num_triangles);
    for (uint32_t t = 0; t < mesh->num_triangles; t++)
        ossa__out_format(o, "\ttri %u %u %u %u\n", t, w->local[tris[t].v[0]],
                         w->local[tris[t].v[1]], w->local[tris[t].v[2]]);
    ossa__out_format(o, "\n\tnumweights %u\n", nw);
    for (uint32_t i = 0; i < nw; i++) {
        ossa__out_format(o, "\tweight %u %u ", i, w->weights[i].joint);
        ossa__md5_out_float(o, w->weights[i].bias);
        ossa__out_char(o, ' ');
        put_vec(o, w->weights[i].offset, 3);
        ossa__out_char(o, '\n');
    }
    ossa__out_str(o, "}\n");
    ossa_status st = w->nrm && !w->normals_differ ? compare_normals(w, mesh, nv) : OSSA_OK;
    for (uint32_t i = 0; i < nv; i++) w->local[w->verts[i]] = UINT32_MAX;
    return st;
}

static ossa_status check_finite(mesh_writer *w)
{
    const ossa_model *m = w->m;
    for (size_t i = 0; i < (size_t)m->num_vertices * 3; i++)
        if (!isfinite(w->pos[i]))
            return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                              "vertex %zu has a position that is not a finite number; MD5 holds "
                              "finite numbers only",
                              i / 3);
    for (size_t i = 0; w->uv && i < (size_t)m->num_vertices * 2; i++)
        if (!isfinite(w->uv[i]))
            return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                              "vertex %zu has a texture coordinate that is not a finite number; "
                              "MD5 holds finite numbers only",
                              i / 2);
    return OSSA_OK;
}

ossa_status ossa__md5_write_mesh_text(const md5_skeleton *s, ossa_buf *out, ossa_error *error)
{
    const ossa_model *m = s->model;
    mesh_writer w;
    memset(&w, 0, sizeof w);
    w.s = s;
    w.m = m;
    w.error = error;
    ossa__out_init(&w.o, out);

    /* The blocks: every mesh with triangles (a model without meshes is one). */
    ossa_mesh whole = {"", "", 0, m->num_vertices, 0, m->num_triangles};
    const ossa_mesh *meshes = m->num_meshes ? m->meshes : &whole;
    uint32_t count = m->num_meshes      ? m->num_meshes
                     : m->num_triangles ? 1
                                        : 0,
             blocks = 0, empty = 0;
    for (uint32_t i = 0; i < count; i++) {
        blocks += meshes[i].num_triangles > 0;
        empty += meshes[i].num_triangles == 0 && meshes[i].num_vertices > 0;
    }
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    w.K = bi && bw ? (bi->size < bw->size ? bi->size : bw->size) : 0;
    ossa_status st = OSSA_OK;
    if (blocks) {
        if (!ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL))
            st = ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                            "the model has triangles but no positions");
        if (!st) st = decode(&w, OSSA_VERTEX_POSITION, 3, &w.pos);
        if (!st) st = decode(&w, OSSA_VERTEX_TEXCOORD, 2, &w.uv);
        if (!st && w.K) st = decode(&w, OSSA_VERTEX_BLENDINDEXES, w.K, &w.idx);
        if (!st && w.K) st = decode(&w, OSSA_VERTEX_BLENDWEIGHTS, w.K, &w.wgt);
        if (!st) st = decode(&w, OSSA_VERTEX_NORMAL, 3, &w.nrm);
        if (!st) st = check_finite(&w);
        if (!st) {
            size_t most = 0;
            for (uint32_t i = 0; i < count; i++) {
                size_t n = (size_t)meshes[i].num_vertices + (size_t)meshes[i].num_triangles * 3;
                if (n > most) most = n;
            }
            w.local = talloc(&w, m->num_vertices, sizeof *w.local);
            w.verts = talloc(&w, most, sizeof *w.verts);
            w.weights = talloc(&w, most * (w.K ? w.K : 1), sizeof *w.weights);
            if (w.nrm) {
                w.block_pos = talloc(&w, most, 3 * sizeof *w.block_pos);
                w.block_nrm = talloc(&w, most, 3 * sizeof *w.block_nrm);
                w.block_tris = talloc(&w, most, sizeof *w.block_tris);
            }
            if (!w.local || !w.verts || !w.weights ||
                (w.nrm && (!w.block_pos || !w.block_nrm || !w.block_tris)))
                st = ossa__fail_nomem(error);
            else
                memset(w.local, 0xff, (size_t)m->num_vertices * sizeof *w.local);
        }
    }
    if (!st) {
        ossa__out_format(&w.o, "MD5Version 10\ncommandline \"\"\n\nnumJoints %u\nnumMeshes %u\n\n",
                         s->num_joints, blocks);
        write_joints(&w);
        for (uint32_t i = 0; i < count && !st; i++)
            if (meshes[i].num_triangles) st = write_block(&w, &meshes[i]);
        ossa__out_flush(&w.o);
    }
    if (!st) {
        warn_dropped(&w);
        if (empty)
            ossa__write_warn(s->options, OSSA_WARNING_DROPPED,
                                 "%u meshes without triangles are not written (MD5 mesh blocks "
                                 "need triangles)",
                                 empty);
        if (w.bad_influences)
            ossa__write_warn(s->options, OSSA_WARNING_DROPPED,
                                 "%u blend influences name no joint and are dropped",
                                 w.bad_influences);
    }
    ossa__temp_free(m, w.pos);
    ossa__temp_free(m, w.uv);
    ossa__temp_free(m, w.idx);
    ossa__temp_free(m, w.wgt);
    ossa__temp_free(m, w.nrm);
    ossa__temp_free(m, w.block_pos);
    ossa__temp_free(m, w.block_nrm);
    ossa__temp_free(m, w.block_tris);
    ossa__temp_free(m, w.local);
    ossa__temp_free(m, w.verts);
    ossa__temp_free(m, w.weights);
    return st;
}
