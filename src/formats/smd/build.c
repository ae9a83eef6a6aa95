/* SMD model building (docs/formats/smd.md §5, §6, §9, §11): joints in parent
 * order, the bind pose (reference files) or one animation (files without
 * `triangles`), and one mesh per material with welded vertices. */
#include "formats/smd/smd.h"
#include "core/files.h"

#include "core/normals.h"
#include "core/weld.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void key_transform(const smd_key *k, ossa_transform *t)
{
    *t = ossa_transform_identity();
    memcpy(t->translation, k->v, sizeof t->translation);
    ossa__smd_euler_to_quat(k->v + 3, t->rotation);
}

static const char *bone_name(const smd_doc *d, uint32_t joint)
{
    return ossa__intern_str(&d->names, d->node_of[joint]);
}

/* -- Joints and poses -- */

static ossa_status add_joints(smd_doc *d)
{
    const smd_node *nodes = (const smd_node *)d->nodes.data;
    for (uint32_t j = 0; j < d->nodes.count; j++) {
        const smd_node *node = &nodes[d->node_of[j]];
        int32_t parent = node->parent_node < 0 ? -1 : (int32_t)d->joint_of[node->parent_node];
        if (ossa_model_add_joint(d->model, bone_name(d, j), parent, NULL, d->error) < 0)
            return OSSA_FAILED;
    }
    return OSSA_OK;
}

/* Reference files: the frame with the smallest time is the bind pose
 * (§5, "use the first and warn"); bones it omits keep the identity. */
static ossa_status bind_pose(smd_doc *d)
{
    ossa_model *m = d->model;
    const smd_time *times = (const smd_time *)d->times.data;
    const smd_key *keys = (const smd_key *)d->keys.data;
    if (!d->times.count) {
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "the 'skeleton' block has no frame: every bone gets the identity pose");
        return OSSA_OK;
    }
    int64_t first = times[0].time;
    for (size_t i = 1; i < d->times.count; i++)
        if (times[i].time < first) first = times[i].time;
    unsigned char *have = ossa__temp_calloc(m, (size_t)m->num_joints + 1, 1);
    if (!have) return ossa__fail_nomem(d->error);
    bool more = false;
    for (size_t i = 0; i < d->times.count; i++) {
        if (times[i].time != first) {
            more = true;
            continue;
        }
        for (uint32_t k = times[i].first_key; k < times[i].first_key + times[i].num_keys; k++) {
            uint32_t j = d->joint_of[keys[k].node];
            key_transform(&keys[k], &m->joints[j].bind);
            have[j] = 1;
        }
    }
    if (more)
        ossa__warn(m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "a reference SMD with several frames: the bind pose is frame %lld, the others "
                   "are ignored",
                   (long long)first);
    uint32_t missing = 0, example = 0;
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (!have[j] && !missing++) example = j;
    if (missing)
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "%u bones have no pose in the reference frame (first: '%s'): they get the "
                   "identity",
                   missing, bone_name(d, example));
    ossa__temp_free(m, have);
    return OSSA_OK;
}

static int cmp_time(const void *a, const void *b)
{
    const smd_time *x = *(const smd_time *const *)a, *y = *(const smd_time *const *)b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    return x->first_key < y->first_key ? -1 : x->first_key > y->first_key;
}

/* Gaps and bones missing from frames, filled as §5 says: a bone takes the
 * previous frame's pose; before its first pose, that first pose (an
 * animation file has no bind pose to fall back on); a bone with no pose
 * at all is marked as not animated, so that merging gives it the
 * reference's bind pose. */
static ossa_status fill_frames(smd_doc *d, ossa_animation *a, const unsigned char *have,
                               const unsigned char *frame_used)
{
    ossa_model *m = d->model;
    uint32_t n = m->num_joints;
    uint64_t repeated = 0, backfilled = 0;
    uint32_t unused_frames = 0, never = 0, never_example = 0;
    for (uint32_t f = 0; f < a->num_frames; f++) unused_frames += !frame_used[f];
    for (uint32_t j = 0; j < n; j++) {
        uint32_t first = 0;
        while (first < a->num_frames && !have[(size_t)first * n + j]) first++;
        if (first == a->num_frames) {
            if (!never++) never_example = j;
            continue;
        }
        const ossa_transform *t0 = &a->frames[(size_t)first * n + j];
        for (uint32_t f = 0; f < first; f++) a->frames[(size_t)f * n + j] = *t0;
        backfilled += first > 0;
        for (uint32_t f = first + 1; f < a->num_frames; f++)
            if (!have[(size_t)f * n + j]) {
                a->frames[(size_t)f * n + j] = a->frames[(size_t)(f - 1) * n + j];
                repeated += frame_used[f];
            }
    }
    if (unused_frames)
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "%u frame numbers have no 'time' line: each repeats the frame before it",
                   unused_frames);
    if (repeated)
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "%llu bone poses are missing from their frames: each takes the previous "
                   "frame's",
                   (unsigned long long)repeated);
    if (backfilled)
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "%llu bones are missing from the first frame: they take their first pose there",
                   (unsigned long long)backfilled);
    if (never) {
        uint8_t *channels = ossa__temp_alloc(m, (size_t)n + 1);
        if (!channels) return ossa__fail_nomem(d->error);
        for (uint32_t j = 0; j < n; j++) {
            bool any = false;
            for (uint32_t f = 0; f < a->num_frames && !any; f++) any = have[(size_t)f * n + j];
            channels[j] = any ? OSSA_CHANNEL_TRANSLATION | OSSA_CHANNEL_ROTATION | OSSA_CHANNEL_SCALE
                              : 0;
        }
        ossa_status st =
            ossa_model_set_animation_channels(m, m->num_animations - 1, channels, d->error);
        ossa__temp_free(m, channels);
        if (st) return st;
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "%u bones have no pose in any frame (first: '%s'): they keep the bind pose",
                   never, bone_name(d, never_example));
    }
    return OSSA_OK;
}

/* Files without `triangles`: every frame, the frames sorted by time and
 * numbered from the first (§5); frame 0 stands in for the bind pose. */
static ossa_status animation(smd_doc *d, size_t file_size)
{
    ossa_model *m = d->model;
    const smd_key *keys = (const smd_key *)d->keys.data;
    size_t nt = d->times.count;
    if (!nt || !d->keys.count) {
        ossa__warn(m, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "the 'skeleton' block has no bone lines: no animation, every bone gets the "
                   "identity pose");
        return OSSA_OK;
    }
    const smd_time **order = ossa__temp_alloc(m, nt * sizeof *order);
    if (!order) return ossa__fail_nomem(d->error);
    for (size_t i = 0; i < nt; i++) order[i] = &OSSA_LIST_AT(d->times, smd_time, i);
    /* Stable (by first_key): a later block for the same time overrides. */
    qsort(order, nt, sizeof *order, cmp_time);
    int64_t first = order[0]->time, last = order[nt - 1]->time;
    uint64_t frames = (uint64_t)(last - first) + 1;
    uint32_t n = m->num_joints;
    if (frames * n > ossa__decode_limit(file_size) / sizeof(ossa_transform)) {
        ossa_status st = ossa__fail_line(
            d->error, OSSA_ERROR_CORRUPT, order[nt - 1]->line, 1,
            "frames %lld to %lld of %u bones would take %llu MB, out of proportion to the file",
            (long long)first, (long long)last, n,
            (unsigned long long)(frames * n * sizeof(ossa_transform) >> 20));
        ossa__temp_free(m, order);
        return st;
    }
    /* The load options' rate, else the one ossa's comment keeps (read.c),
     * else 30. */
    float rate = d->options->framerate;
    if (!(rate > 0) || !isfinite(rate)) rate = d->tagged ? d->tag.fps : 0;
    if (!(rate > 0)) {
        rate = OSSA_DEFAULT_FRAMERATE;
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, d->skeleton_line, 1,
                   "SMD files store no frame rate: %g frames per second assumed", (double)rate);
    }
    char name[256];
    /* The name ossa's comment keeps, else the file name without
     * directories and extension ("walk" for "anims/walk.smd", §10). */
    if (d->tagged)
        memcpy(name, d->tag.name, sizeof name);
    else
        ossa__path_base_name(d->options->file_name, "animation", name, sizeof name);
    uint32_t flags = d->tagged && d->tag.loop ? OSSA_ANIMATION_LOOP : 0;
    ossa_animation *a = ossa_model_add_animation(m, name, (uint32_t)frames, rate, flags, d->error);
    unsigned char *have = a ? ossa__temp_calloc(m, (size_t)(frames * n) + 1, 1) : NULL;
    unsigned char *used = a ? ossa__temp_calloc(m, (size_t)frames + 1, 1) : NULL;
    ossa_status st = OSSA_OK;
    if (!a)
        st = OSSA_FAILED;
    else if (!have || !used)
        st = ossa__fail_nomem(d->error);
    for (size_t i = 0; !st && i < nt; i++) {
        size_t f = (size_t)(order[i]->time - first);
        used[f] = 1;
        for (uint32_t k = order[i]->first_key; k < order[i]->first_key + order[i]->num_keys; k++) {
            uint32_t j = d->joint_of[keys[k].node];
            key_transform(&keys[k], &a->frames[f * n + j]);
            have[f * n + j] = 1;
        }
    }
    if (!st) st = fill_frames(d, a, have, used);
    if (!st) {
        for (uint32_t j = 0; j < n; j++) m->joints[j].bind = a->frames[j];
        m->flags |= OSSA_MODEL_SKELETON_FROM_POSES;
    }
    ossa__temp_free(m, order);
    ossa__temp_free(m, have);
    ossa__temp_free(m, used);
    return st;
}

/* -- Meshes -- */

/* One welded vertex: everything that makes two corners the same vertex. */
typedef struct vertex_record {
    uint32_t mesh;
    float p[3], n[3], uv[2];
    uint32_t index[SMD_MAX_INFLUENCES];
    uint8_t weight[SMD_MAX_INFLUENCES];
} vertex_record;

static float canonical(float f) { return f == 0 ? 0.0f : f; }

static void make_record(const smd_doc *d, const smd_corner *c, vertex_record *r)
{
    memset(r, 0, sizeof *r);
    r->mesh = c->material;
    for (int k = 0; k < 3; k++) {
        r->p[k] = canonical(c->p[k]);
        r->n[k] = canonical(c->n[k]);
    }
    /* SMD's texture origin is bottom-left, ossa's top-left (§6). */
    r->uv[0] = canonical(c->uv[0]);
    r->uv[1] = canonical(1.0f - c->uv[1]);
    ossa__ubyte_weights(c->w, d->influences, r->weight);
    for (uint32_t k = 0; k < d->influences; k++)
        r->index[k] = r->weight[k] ? d->joint_of[c->node[k]] : 0;
}

/* Unit normals; zero ones regenerated from the faces (§6). */
static ossa_status normals(smd_doc *d)
{
    smd_corner *c = (smd_corner *)d->corners.data;
    size_t nc = d->corners.count, zero = 0, first = 0;
    for (size_t i = 0; i < nc; i++) {
        double x = c[i].n[0], y = c[i].n[1], z = c[i].n[2];
        double len = sqrt(x * x + y * y + z * z);
        if (len > 0 && isfinite(len)) {
            for (int k = 0; k < 3; k++) c[i].n[k] = (float)(c[i].n[k] / len);
        } else if (!zero++) {
            first = i;
        }
    }
    if (!zero) return OSSA_OK;
    size_t nt = nc / 3;
    uint32_t *idx = ossa__temp_alloc(d->model, (nc + 1) * sizeof *idx);
    float *out = ossa__temp_alloc(d->model, (nc + 1) * 3 * sizeof *out);
    ossa_status st = OSSA_OK;
    if (!idx || !out) st = ossa__fail_nomem(d->error);
    for (size_t t = 0; !st && t < nt; t++)
        for (int k = 0; k < 3; k++) idx[t * 3 + (size_t)k] = (uint32_t)(t * 3 + 2 - (size_t)k);
    if (!st)
        st = ossa__smooth_normals(d->model, c[0].p, sizeof *c / sizeof(float), idx, NULL, nt, out,
                                  d->error);
    for (size_t t = 0; !st && t < nt; t++)
        for (int k = 0; k < 3; k++) {
            smd_corner *corner = &c[idx[t * 3 + (size_t)k]];
            if (corner->n[0] == 0 && corner->n[1] == 0 && corner->n[2] == 0)
                memcpy(corner->n, out + (t * 3 + (size_t)k) * 3, sizeof corner->n);
        }
    if (!st)
        ossa__warn(d->model, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, c[first].line, 1,
                   "%zu vertex lines have a zero normal: normals generated from the faces", zero);
    ossa__temp_free(d->model, idx);
    ossa__temp_free(d->model, out);
    return st;
}

/* Mesh name: the material without its last extension ("holygrail.tga" ->
 * "holygrail"), as studiomdl names its textures (§6). */
static size_t stem_length(const char *s)
{
    size_t len = strlen(s);
    for (size_t i = len; i-- > 0;) {
        if (s[i] == '/' || s[i] == '\\') break;
        if (s[i] == '.') return i ? i : len;
    }
    return len;
}

static ossa_status add_arrays(smd_doc *d, const vertex_record *rec, const uint32_t *remap,
                              size_t count, uint32_t nv)
{
    ossa_model *m = d->model;
    uint32_t k = d->influences;
    ossa_component ifmt = m->num_joints <= 256 ? OSSA_UBYTE
                          : m->num_joints <= 65536 ? OSSA_USHORT
                                                   : OSSA_UINT;
    size_t isize = ossa_component_size(ifmt);
    float *pos = ossa__temp_alloc(m, ((size_t)nv + 1) * 3 * sizeof *pos);
    float *nrm = ossa__temp_alloc(m, ((size_t)nv + 1) * 3 * sizeof *nrm);
    float *uv = ossa__temp_alloc(m, ((size_t)nv + 1) * 2 * sizeof *uv);
    unsigned char *idx = ossa__temp_alloc(m, ((size_t)nv + 1) * k * isize);
    uint8_t *wgt = ossa__temp_alloc(m, ((size_t)nv + 1) * k);
    ossa_status st = OSSA_OK;
    if (!pos || !nrm || !uv || !idx || !wgt) st = ossa__fail_nomem(d->error);
    uint32_t next = 0;
    for (size_t i = 0; !st && i < count; i++) {
        if (remap[i] != next) continue;
        const vertex_record *r = &rec[i];
        memcpy(pos + (size_t)next * 3, r->p, sizeof r->p);
        memcpy(nrm + (size_t)next * 3, r->n, sizeof r->n);
        memcpy(uv + (size_t)next * 2, r->uv, sizeof r->uv);
        for (uint32_t s = 0; s < k; s++) {
            unsigned char *p = idx + ((size_t)next * k + s) * isize;
            if (ifmt == OSSA_UBYTE)
                *p = (uint8_t)r->index[s];
            else if (ifmt == OSSA_USHORT)
                memcpy(p, &(uint16_t){(uint16_t)r->index[s]}, 2);
            else
                memcpy(p, &r->index[s], 4);
            wgt[(size_t)next * k + s] = r->weight[s];
        }
        next++;
    }
    if (!st && (ossa_model_set_num_vertices(m, nv, d->error) ||
                !ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, pos,
                                             d->error) ||
                !ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, uv,
                                             d->error) ||
                !ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, nrm,
                                             d->error) ||
                !ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, ifmt, k, NULL, idx,
                                             d->error) ||
                !ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_UBYTE, k, NULL, wgt,
                                             d->error)))
        st = OSSA_FAILED;
    ossa__temp_free(m, pos);
    ossa__temp_free(m, nrm);
    ossa__temp_free(m, uv);
    ossa__temp_free(m, idx);
    ossa__temp_free(m, wgt);
    return st;
}

static ossa_status meshes(smd_doc *d)
{
    ossa_model *m = d->model;
    const smd_corner *c = (const smd_corner *)d->corners.data;
    size_t nt = d->corners.count / 3;
    uint32_t nmat = ossa__intern_count(&d->materials);
    if (!nt) return OSSA_OK;
    if (normals(d)) return OSSA_FAILED;

    /* Triangles grouped by material in order of first appearance, file
     * order inside each (a counting sort). */
    uint32_t *start = ossa__temp_calloc(m, (size_t)nmat + 1, sizeof *start);
    uint32_t *order = ossa__temp_alloc(m, (nt + 1) * sizeof *order);
    vertex_record *rec = ossa__temp_alloc(m, (nt * 3 + 1) * sizeof *rec);
    uint32_t *remap = ossa__temp_alloc(m, (nt * 3 + 1) * sizeof *remap);
    ossa_triangle *tris = ossa__temp_alloc(m, (nt + 1) * sizeof *tris);
    uint32_t *mesh_tris = ossa__temp_calloc(m, (size_t)nmat + 1, sizeof *mesh_tris);
    ossa_status st = OSSA_OK;
    if (!start || !order || !rec || !remap || !tris || !mesh_tris) {
        st = ossa__fail_nomem(d->error);
        goto done;
    }
    for (size_t t = 0; t < nt; t++) start[c[t * 3].material + 1]++;
    for (uint32_t i = 0; i < nmat; i++) start[i + 1] += start[i];
    for (size_t t = 0; t < nt; t++) order[start[c[t * 3].material]++] = (uint32_t)t;

    /* SMD corners are counter-clockwise: ossa's triangle is (c2, c1, c0),
     * as the IQM SDK stores them (§6). A triangle whose corners weld into
     * one vertex goes with every reader's degenerate triangles, after the
     * read. */
    for (size_t i = 0; i < nt; i++) {
        size_t t = order[i];
        vertex_record *r = rec + i * 3;
        for (int k = 0; k < 3; k++) make_record(d, &c[t * 3 + 2 - (size_t)k], &r[k]);
        mesh_tris[r[0].mesh]++;
    }
    size_t nv = ossa__weld(m, rec, nt * 3, sizeof *rec, remap);
    if (nv == SIZE_MAX) {
        st = ossa__fail_nomem(d->error);
        goto done;
    }
    if (add_arrays(d, rec, remap, nt * 3, (uint32_t)nv)) {
        st = OSSA_FAILED;
        goto done;
    }
    for (size_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) tris[t].v[k] = remap[t * 3 + (size_t)k];
    if (ossa_model_set_triangles(m, (uint32_t)nt, tris, d->error)) {
        st = OSSA_FAILED;
        goto done;
    }
    /* Records carry the mesh: the vertices of one mesh never weld with
     * another's, and first appearances come mesh by mesh. */
    uint32_t first_tri = 0;
    for (uint32_t mat = 0; mat < nmat && !st; mat++) {
        if (!mesh_tris[mat]) continue;
        uint32_t first_vertex = remap[(size_t)first_tri * 3];
        uint32_t end_tri = first_tri + mesh_tris[mat];
        uint32_t end_vertex = end_tri < nt ? remap[(size_t)end_tri * 3] : (uint32_t)nv;
        const char *material = ossa__intern_str(&d->materials, mat);
        char *name = ossa__arena_strndup(ossa__model_arena(m), material, stem_length(material));
        if (!name)
            st = ossa__fail_nomem(d->error);
        else if (ossa_model_add_mesh(m, name, material, first_vertex, end_vertex - first_vertex,
                                     first_tri, mesh_tris[mat], d->error) < 0)
            st = OSSA_FAILED;
        first_tri = end_tri;
    }

done:
    ossa__temp_free(m, start);
    ossa__temp_free(m, order);
    ossa__temp_free(m, rec);
    ossa__temp_free(m, remap);
    ossa__temp_free(m, tris);
    ossa__temp_free(m, mesh_tris);
    return st;
}

/* -- studiomdl's turn (§8) -- */

/* +90 degrees about Z, (x, y, z) -> (-y, x, z): applied to the roots of
 * the skeleton and every frame, and to the mesh (which is in model space). */
static void turn(smd_doc *d)
{
    ossa_model *m = d->model;
    static const float qz[4] = {0, 0, 0.70710678118654752f, 0.70710678118654752f};
    for (uint32_t a = 0; a <= m->num_animations; a++) {
        uint32_t frames = a < m->num_animations ? m->animations[a].num_frames : 1;
        for (uint32_t f = 0; f < frames; f++)
            for (uint32_t j = 0; j < m->num_joints; j++) {
                if (m->joints[j].parent >= 0) continue;
                ossa_transform *t = a < m->num_animations
                                        ? &m->animations[a].frames[(size_t)f * m->num_joints + j]
                                        : &m->joints[j].bind;
                float x = t->translation[0];
                t->translation[0] = -t->translation[1];
                t->translation[1] = x;
                const float *q = t->rotation;
                float r[4] = {qz[3] * q[0] - qz[2] * q[1], qz[3] * q[1] + qz[2] * q[0],
                              qz[3] * q[2] + qz[2] * q[3], qz[3] * q[3] - qz[2] * q[2]};
                float s = r[3] > 0 ? -1.0f : 1.0f;
                for (int k = 0; k < 4; k++) t->rotation[k] = r[k] * s;
            }
    }
    smd_corner *c = (smd_corner *)d->corners.data;
    for (size_t i = 0; i < d->corners.count; i++) {
        float x = c[i].p[0], nx = c[i].n[0];
        c[i].p[0] = -c[i].p[1];
        c[i].p[1] = x;
        c[i].n[0] = -c[i].n[1];
        c[i].n[1] = nx;
    }
}

ossa_status ossa__smd_build(smd_doc *d, size_t file_size)
{
    if (add_joints(d)) return OSSA_FAILED;
    ossa_status st = d->triangles_line ? bind_pose(d) : animation(d, file_size);
    if (!st && ossa__option_on(OSSA__OPTIONS(d->options), "smd.turn")) turn(d);
    if (!st && d->triangles_line) st = meshes(d);
    return st;
}
