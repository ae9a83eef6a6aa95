/* glTF 2.0 writer: .gltf (JSON with a .bin beside it, or with the buffer
 * embedded as a data URI) and .glb. The output is meant to pass the Khronos
 * glTF validator with no errors and no warnings; the comments name the
 * validator's checks where they decide a detail.
 *
 * Layout of the document:
 *  - nodes 0..J-1 are the joints, in model order, so that a joint index is
 *    also its node index and its index in skins[0].joints, with the rest
 *    pose as their transforms (the skin's inverse bind matrices hold the
 *    bind pose); node J is the armature above the root joints;
 *  - one glTF mesh with one primitive per ossa mesh, each in a node of its
 *    own at the scene root without a transform (skinned meshes ignore node
 *    transforms: NODE_SKINNED_MESH_NON_ROOT, _LOCAL_TRANSFORMS);
 *  - one buffer; one bufferView per accessor, 4-byte aligned;
 *  - one animation per ossa animation, sampled at its own frame rate.
 * See docs/formats/gltf.md for the conventions. */
#include "formats/gltf/write.h"

#include <math.h>
#include <stdio.h>

/* -- Checks -- */

static bool finite_transform(const ossa_transform *t)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(t->translation[k]) || !isfinite(t->scale[k])) return false;
    for (int k = 0; k < 4; k++)
        if (!isfinite(t->rotation[k])) return false;
    return true;
}

static ossa_status check_model(gw *w)
{
    const ossa_model *m = w->m;
    for (uint32_t j = 0; j < m->num_joints; j++)
        if (!finite_transform(&m->joints[j].bind))
            return ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "joint %u '%s': the bind pose is not finite", j, m->joints[j].name);
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        for (size_t i = 0; i < (size_t)an->num_frames * m->num_joints; i++)
            if (!finite_transform(&an->frames[i]))
                return ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                                  "animation '%s', frame %zu, joint %zu: value not finite",
                                  an->name, i / m->num_joints, i % m->num_joints);
    }
    if (m->num_joints > 65536 && ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL))
        return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "%u joints: glTF joint indices are at most 16-bit", m->num_joints);
    return OSSA_OK;
}

/* A unit quaternion within the validator's tolerance: rotations that are
 * unit up to quantization are written as they are (for exact round trips),
 * others normalized. */
static void tidy_rotation(float q[4])
{
    double n = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
    if (fabs(n - 1) > 1e-4) ossa__quat_normalize(q);
}

/* -- Skeleton -- */

/* Where joint j rests (its node's transform): the model's rest pose, or
 * its bind pose when the model has none. */
static const ossa_transform *rest_of(const ossa_model *m, uint32_t j)
{
    return m->rest_pose ? &m->rest_pose[j] : &m->joints[j].bind;
}

static void joint_to_gltf(const ossa_transform *in, ossa_transform *out)
{
    ossa__gltf_transform_to_gltf(in, out);
    tidy_rotation(out->rotation);
}

static void put_trs(gw *w, cJSON *node, const ossa_transform *t)
{
    if (t->translation[0] != 0 || t->translation[1] != 0 || t->translation[2] != 0 ||
        signbit(t->translation[0]) || signbit(t->translation[1]) || signbit(t->translation[2]))
        put_floats(w, node, "translation", t->translation, 3);
    if (t->rotation[0] != 0 || t->rotation[1] != 0 || t->rotation[2] != 0 || t->rotation[3] != 1)
        put_floats(w, node, "rotation", t->rotation, 4);
    if (t->scale[0] != 1 || t->scale[1] != 1 || t->scale[2] != 1)
        put_floats(w, node, "scale", t->scale, 3);
}

static void write_joints(gw *w, cJSON *scene_nodes)
{
    const ossa_model *m = w->m;
    /* Each joint's node, and its children once every node exists (in
     * joint order, as a walk over the later joints would give them). */
    cJSON **nodes = ossa__alloc(w->alloc, (w->J ? w->J : 1) * 2 * sizeof *nodes);
    if (!nodes) {
        w->nomem = true;
        return;
    }
    cJSON **children = nodes + w->J;
    for (uint32_t j = 0; j < w->J; j++) {
        cJSON *node = nodes[j] = put(w, w->nodes, NULL, cJSON_CreateObject());
        children[j] = NULL;
        w->nnodes++;
        put_name(w, node, m->joints[j].name);
        ossa_transform t;
        joint_to_gltf(rest_of(m, j), &t);
        put_trs(w, node, &t);
    }
    for (uint32_t c = 0; c < w->J; c++) {
        int32_t p = m->joints[c].parent;
        if (p < 0 || (uint32_t)p >= c) continue;
        if (!children[p]) children[p] = put(w, nodes[p], "children", cJSON_CreateArray());
        put_int(w, children[p], NULL, c);
    }
    ossa__free(w->alloc, nodes, 0);
    /* The root joints hang from one armature node without a transform,
     * as Blender's exporter and the Khronos samples have them: loaders
     * rely on a joint's parent node (raylib 6.0's LoadModelAnimations reads
     * the first joint's parent without checking it), and the validator
     * wants one common root (SKIN_NO_COMMON_ROOT). The reader folds it
     * away (an identity). Named "Armature" whatever the file: the same
     * model gives the same bytes under any name. */
    w->skeleton_node = -1;
    if (!w->J) return;
    cJSON *node = put(w, w->nodes, NULL, cJSON_CreateObject());
    w->nnodes++;
    put_name(w, node, "Armature");
    cJSON *below = put(w, node, "children", cJSON_CreateArray());
    for (uint32_t j = 0; j < w->J; j++)
        if (m->joints[j].parent < 0 || (uint32_t)m->joints[j].parent >= j) put_int(w, below, NULL, j);
    w->skeleton_node = (int)w->J;
    put_int(w, scene_nodes, NULL, w->J);
}

/* World bind matrices in glTF axes, inverted: the skin's
 * inverseBindMatrices. The bottom row is exactly 0 0 0 1
 * (ACCESSOR_INVALID_IBM). */
static int write_inverse_binds(gw *w)
{
    const ossa_model *m = w->m;
    size_t n = (size_t)w->J * 16;
    double *world = ossa__alloc(w->alloc, n * sizeof *world);
    float *ibm = ossa__alloc(w->alloc, n * sizeof *ibm);
    int acc = -1;
    if (world && ibm) {
        for (uint32_t j = 0; j < w->J; j++) {
            ossa_transform t;
            joint_to_gltf(&m->joints[j].bind, &t);
            double local[16], inv[16];
            ossa__transform_to_mat4d(&t, local);
            if (m->joints[j].parent >= 0)
                ossa__mat4d_mul(world + (size_t)m->joints[j].parent * 16, local, world + j * 16);
            else
                memcpy(world + j * 16, local, sizeof local);
            bool ok = ossa__mat4d_invert_affine(world + j * 16, inv);
            for (int k = 0; k < 16 && ok; k++) ok = isfinite((float)inv[k]);
            if (!ok) /* a zero scale, or beyond float range: identity */
                for (int k = 0; k < 16; k++) inv[k] = k % 5 == 0;
            for (int k = 0; k < 16; k++) ibm[j * 16 + k] = (float)inv[k];
            ibm[j * 16 + 3] = ibm[j * 16 + 7] = ibm[j * 16 + 11] = 0;
            ibm[j * 16 + 15] = 1;
        }
        int view = add_view(w, ibm, n * sizeof *ibm, 0, 0);
        acc = add_accessor(w, view, GLTF_FLOAT, w->J, "MAT4", false, NULL, NULL, 0);
    } else {
        w->nomem = true;
    }
    ossa__free(w->alloc, world, n * sizeof *world);
    ossa__free(w->alloc, ibm, n * sizeof *ibm);
    return acc;
}

/* -- Blend data -- */

/* Float weights whose float sum, added in slot order as the validator
 * does, is 1 within its tolerance (2e-7 per weight). Weights that already
 * sum to 1 that closely are kept as they are. */
static void float_weights(const float *wt, uint32_t n, float *out)
{
    float s32 = 0;
    for (uint32_t k = 0; k < n; k++) s32 += wt[k];
    if (fabsf(s32 - 1.0f) <= 1.5e-7f * (float)n) {
        memcpy(out, wt, n * sizeof *out);
        return;
    }
    double sum = 0;
    uint32_t big = 0;
    for (uint32_t k = 0; k < n; k++) {
        sum += wt[k];
        if (wt[k] > wt[big]) big = k;
    }
    for (uint32_t k = 0; k < n; k++) out[k] = (float)(wt[k] / sum);
    for (int pass = 0; pass < 4; pass++) {
        float s = 0;
        for (uint32_t k = 0; k < n; k++) s += out[k];
        if (s == 1.0f) break;
        out[big] += 1.0f - s;
    }
}

/* Reads every vertex's influences, drops weights <= 0 and indices outside
 * the skeleton, merges repeated joints (JOINTS_INDEX_DUPLICATE) and puts
 * index 0 in unused slots (ACCESSOR_JOINTS_USED_ZERO_WEIGHT). Ubyte weights
 * that still sum to 255 are kept as they are. */
static ossa_status prepare_blend(gw *w)
{
    const ossa_model *m = w->m;
    const ossa_vertex_array *ia = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *wa = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    if (!ia || !wa || !w->J || !m->num_vertices) return OSSA_OK;
    uint32_t n = ia->size < wa->size ? ia->size : wa->size;
    if (n > 8) n = 8;
    w->slots = n <= 4 ? 4 : 8;
    size_t nv = m->num_vertices, total = nv * w->slots;
    bool as_ubyte = wa->format == OSSA_UBYTE;
    w->joints = ossa__alloc(w->alloc, total * sizeof *w->joints);
    w->weighted = ossa__alloc(w->alloc, nv);
    if (as_ubyte)
        w->weights_u = ossa__alloc(w->alloc, total);
    else
        w->weights_f = ossa__alloc(w->alloc, total * sizeof(float));
    if (!w->joints || !w->weighted || (!w->weights_u && !w->weights_f)) return ossa__fail_nomem(w->error);
    memset(w->joints, 0, total * sizeof *w->joints);
    if (w->weights_u) memset(w->weights_u, 0, total);
    if (w->weights_f) memset(w->weights_f, 0, total * sizeof(float));
    for (uint32_t v = 0; v < nv; v++) {
        float idx[OSSA_MAX_COMPONENTS], wt[OSSA_MAX_COMPONENTS], kw[8];
        uint16_t kj[8];
        uint8_t raw[8];
        ossa_vertex_array_read(m, ia, v, 1, idx);
        ossa_vertex_array_read(m, wa, v, 1, wt);
        uint32_t kept = 0;
        bool merged = false;
        int raw_sum = 0;
        for (uint32_t k = 0; k < n; k++) {
            if (!(wt[k] > 0) || !(idx[k] >= 0) || idx[k] >= (float)w->J) continue;
            uint16_t jn = (uint16_t)idx[k];
            uint8_t r = as_ubyte ? ((const uint8_t *)wa->data)[(size_t)v * wa->size + k] : 0;
            uint32_t d = 0;
            while (d < kept && kj[d] != jn) d++;
            if (d < kept) {
                kw[d] += wt[k];
                merged = true;
            } else {
                kj[kept] = jn;
                kw[kept] = wt[k];
                raw[kept] = r;
                kept++;
            }
            raw_sum += r;
        }
        w->weighted[v] = kept > 0;
        if (!kept) { /* all of a skinned mesh must be weighted: joint 0 holds it */
            kj[0] = 0;
            kw[0] = 1;
            raw[0] = 255;
            raw_sum = 255;
            kept = 1;
        }
        uint16_t *oj = w->joints + (size_t)v * w->slots;
        memcpy(oj, kj, kept * sizeof *kj);
        if (as_ubyte) {
            uint8_t *ow = w->weights_u + (size_t)v * w->slots;
            if (!merged && raw_sum == 255)
                memcpy(ow, raw, kept);
            else
                ossa__ubyte_weights(kw, kept, ow);
            /* Rounding can leave a slot at 0: it must then name joint 0. */
            for (uint32_t k = 0; k < kept; k++)
                if (!ow[k]) oj[k] = 0;
        } else {
            float_weights(kw, kept, w->weights_f + (size_t)v * w->slots);
        }
    }
    return OSSA_OK;
}

/* -- Meshes -- */

typedef struct vrange {
    uint32_t first, count;
} vrange;

/* Reads `count` vertices of an array as floats, `size` per vertex. */
static float *read_floats(gw *w, const ossa_vertex_array *a, vrange r)
{
    float *out = ossa__alloc(w->alloc, (size_t)r.count * a->size * sizeof *out);
    if (!out) {
        w->nomem = true;
        return NULL;
    }
    ossa_vertex_array_read(w->m, a, r.first, r.count, out);
    return out;
}

static ossa_status not_finite(gw *w, const ossa_vertex_array *a, uint32_t v)
{
    return ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                      "vertex %u: %s value is not finite", v, ossa_vertex_type_name(a->type));
}

/* POSITION, NORMAL or TANGENT: floats in glTF axes. Normals and tangents
 * are made unit length when they are off by more than the validator
 * allows (ACCESSOR_VECTOR3_NON_UNIT), and tangent w is exactly +-1
 * (ACCESSOR_INVALID_SIGN). */
static ossa_status add_vector_attribute(gw *w, cJSON *attrs, const char *semantic,
                                        const ossa_vertex_array *a, vrange r)
{
    uint32_t out_n = a->type == OSSA_VERTEX_TANGENT ? 4 : 3;
    float *in = read_floats(w, a, r);
    float *out = ossa__alloc(w->alloc, (size_t)r.count * out_n * sizeof *out);
    ossa_status st = OSSA_OK;
    if (!in || !out) {
        w->nomem = true;
        goto done;
    }
    float mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
    for (uint32_t v = 0; v < r.count; v++) {
        float p[4] = {0, 0, 0, 1};
        for (uint32_t k = 0; k < a->size && k < 4; k++) p[k] = in[(size_t)v * a->size + k];
        for (uint32_t k = 0; k < out_n; k++)
            if (!isfinite(p[k])) {
                st = not_finite(w, a, r.first + v);
                goto done;
            }
        float *o = out + (size_t)v * out_n;
        gltf_vec_to_gltf(p, o);
        if (a->type != OSSA_VERTEX_POSITION) {
            double len = sqrt((double)o[0] * o[0] + (double)o[1] * o[1] + (double)o[2] * o[2]);
            if (fabs(len - 1) > 5e-4) {
                if (len > 0) {
                    for (int k = 0; k < 3; k++) o[k] = (float)(o[k] / len);
                } else {
                    o[0] = a->type == OSSA_VERTEX_TANGENT ? 1.0f : 0.0f;
                    o[1] = a->type == OSSA_VERTEX_TANGENT ? 0.0f : 1.0f;
                    o[2] = 0;
                }
            }
        }
        if (out_n == 4) o[3] = p[3] < 0 ? -1.0f : 1.0f;
        for (int k = 0; k < 3; k++) {
            if (v == 0 || o[k] < mn[k]) mn[k] = o[k];
            if (v == 0 || o[k] > mx[k]) mx[k] = o[k];
        }
    }
    bool bounds = a->type == OSSA_VERTEX_POSITION; /* required there only */
    int acc = add_vertex_accessor(w, out, r.count, GLTF_FLOAT, out_n, false, bounds ? mn : NULL,
                                  bounds ? mx : NULL);
    put_int(w, attrs, semantic, acc);
done:
    ossa__free(w->alloc, in, 0);
    ossa__free(w->alloc, out, 0);
    return st;
}

/* TEXCOORD_n and COLOR_n: normalized ubyte/ushort data as it is, anything
 * else as floats (colours clamped to 0..1: ACCESSOR_NON_CLAMPED). */
static ossa_status add_plain_attribute(gw *w, cJSON *attrs, const char *semantic,
                                       const ossa_vertex_array *a, uint32_t ncomp, vrange r)
{
    if (a->format == OSSA_UBYTE || a->format == OSSA_USHORT) {
        size_t cs = ossa_component_size(a->format);
        const unsigned char *p = (const unsigned char *)a->data + (size_t)r.first * a->size * cs;
        int acc = add_vertex_accessor(w, p, r.count, a->format == OSSA_UBYTE ? GLTF_UNSIGNED_BYTE
                                                                             : GLTF_UNSIGNED_SHORT,
                                      ncomp, true, NULL, NULL);
        put_int(w, attrs, semantic, acc);
        return OSSA_OK;
    }
    float *in = read_floats(w, a, r);
    if (!in) return OSSA_OK;
    ossa_status st = OSSA_OK;
    for (size_t i = 0; i < (size_t)r.count * ncomp; i++) {
        if (!isfinite(in[i])) {
            st = not_finite(w, a, r.first + (uint32_t)(i / ncomp));
            break;
        }
        if (a->type == OSSA_VERTEX_COLOR) in[i] = in[i] < 0 ? 0 : in[i] > 1 ? 1 : in[i];
    }
    if (!st) put_int(w, attrs, semantic, add_vertex_accessor(w, in, r.count, GLTF_FLOAT, ncomp, false, NULL, NULL));
    ossa__free(w->alloc, in, 0);
    return st;
}

/* Custom arrays become application-specific attributes "_NAME" with their
 * components as stored (never UNSIGNED_INT, which attributes may not use:
 * int, uint, half and double arrays are written as floats). */
static ossa_status add_custom_attribute(gw *w, cJSON *attrs, const ossa_vertex_array *a, uint32_t nth,
                                        vrange r)
{
    if (a->size > 4) return OSSA_OK;
    char name[256];
    int len = snprintf(name, sizeof name, "_%s", a->name[0] ? a->name : "CUSTOM");
    if (len < 0 || (size_t)len >= sizeof name - 16) return OSSA_OK; /* absurdly long: dropped */
    if (cJSON_GetObjectItemCaseSensitive(attrs, name))
        snprintf(name + len, sizeof name - (size_t)len, "_%u", nth);
    int ctype = 0;
    switch (a->format) {
    case OSSA_BYTE: ctype = GLTF_BYTE; break;
    case OSSA_UBYTE: ctype = GLTF_UNSIGNED_BYTE; break;
    case OSSA_SHORT: ctype = GLTF_SHORT; break;
    case OSSA_USHORT: ctype = GLTF_UNSIGNED_SHORT; break;
    default: break;
    }
    if (ctype) {
        size_t cs = ossa_component_size(a->format);
        const unsigned char *p = (const unsigned char *)a->data + (size_t)r.first * a->size * cs;
        put_int(w, attrs, name, add_vertex_accessor(w, p, r.count, ctype, a->size, false, NULL, NULL));
        return OSSA_OK;
    }
    float *in = read_floats(w, a, r);
    if (!in) return OSSA_OK;
    for (size_t i = 0; i < (size_t)r.count * a->size; i++)
        if (!isfinite(in[i])) in[i] = 0;
    put_int(w, attrs, name, add_vertex_accessor(w, in, r.count, GLTF_FLOAT, a->size, false, NULL, NULL));
    ossa__free(w->alloc, in, 0);
    return OSSA_OK;
}

static void add_blend_attributes(gw *w, cJSON *attrs, vrange r)
{
    bool small = w->J <= 256;
    size_t per = w->slots;
    for (uint32_t set = 0; set < w->slots / 4; set++) {
        size_t n = (size_t)r.count * 4;
        void *jd = ossa__alloc(w->alloc, n * 2);
        if (!jd) {
            w->nomem = true;
            return;
        }
        for (uint32_t v = 0; v < r.count; v++)
            for (uint32_t k = 0; k < 4; k++) {
                uint16_t j = w->joints[(size_t)(r.first + v) * per + set * 4 + k];
                if (small)
                    ((uint8_t *)jd)[v * 4 + k] = (uint8_t)j;
                else
                    ((uint16_t *)jd)[v * 4 + k] = j;
            }
        char key[32];
        snprintf(key, sizeof key, "JOINTS_%u", set);
        put_int(w, attrs, key, add_vertex_accessor(w, jd, r.count, small ? GLTF_UNSIGNED_BYTE : GLTF_UNSIGNED_SHORT, 4, false, NULL, NULL));
        snprintf(key, sizeof key, "WEIGHTS_%u", set);
        if (w->weights_u) {
            uint8_t *wd = jd;
            for (uint32_t v = 0; v < r.count; v++)
                memcpy(wd + v * 4, w->weights_u + (size_t)(r.first + v) * per + set * 4, 4);
            put_int(w, attrs, key, add_vertex_accessor(w, wd, r.count, GLTF_UNSIGNED_BYTE, 4, true, NULL, NULL));
        } else {
            float *wd = ossa__alloc(w->alloc, n * sizeof *wd);
            if (!wd) {
                w->nomem = true;
            } else {
                for (uint32_t v = 0; v < r.count; v++)
                    memcpy(wd + v * 4, w->weights_f + (size_t)(r.first + v) * per + set * 4, 16);
                put_int(w, attrs, key, add_vertex_accessor(w, wd, r.count, GLTF_FLOAT, 4, false, NULL, NULL));
                ossa__free(w->alloc, wd, 0);
            }
        }
        ossa__free(w->alloc, jd, 0);
    }
}

/* Indices relative to the primitive's first vertex, each triangle turned
 * from clockwise to counter-clockwise: (a, b, c) -> (a, c, b). */
static void add_indices(gw *w, cJSON *prim, const ossa_mesh *mesh, vrange r)
{
    size_t n = (size_t)mesh->num_triangles * 3;
    bool wide = r.count > 65535; /* 65535 is the restart value: never an index */
    void *idx = ossa__alloc(w->alloc, n * (wide ? 4 : 2));
    if (!idx) {
        w->nomem = true;
        return;
    }
    for (uint32_t t = 0; t < mesh->num_triangles; t++) {
        const ossa_triangle *tri = &w->m->triangles[mesh->first_triangle + t];
        uint32_t v[3] = {tri->v[0] - r.first, tri->v[2] - r.first, tri->v[1] - r.first};
        for (int k = 0; k < 3; k++) {
            if (wide)
                ((uint32_t *)idx)[t * 3 + k] = v[k];
            else
                ((uint16_t *)idx)[t * 3 + k] = (uint16_t)v[k];
        }
    }
    int view = add_view(w, idx, n * (wide ? 4 : 2), 0, GLTF_ELEMENT_ARRAY_BUFFER);
    put_int(w, prim, "indices",
            add_accessor(w, view, wide ? GLTF_UNSIGNED_INT : GLTF_UNSIGNED_SHORT, (uint32_t)n,
                         "SCALAR", false, NULL, NULL, 0));
    ossa__free(w->alloc, idx, 0);
}
static ossa_status write_mesh(gw *w, const ossa_mesh *mesh, cJSON *scene_nodes)
{
    const ossa_model *m = w->m;
    if (!mesh->num_triangles) return OSSA_OK; /* nothing to draw: no primitive */
    /* The vertices the primitive covers: the mesh's range, widened to any
     * vertex its triangles use outside it. */
    uint32_t lo = mesh->num_vertices ? mesh->first_vertex : UINT32_MAX, hi = mesh->first_vertex + mesh->num_vertices;
    for (uint32_t t = 0; t < mesh->num_triangles; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t v = m->triangles[mesh->first_triangle + t].v[k];
            if (v < lo) lo = v;
            if (v + 1 > hi) hi = v + 1;
        }
    vrange r = {lo, hi - lo};
    cJSON *gmesh = put(w, w->meshes, NULL, cJSON_CreateObject());
    int mesh_index = w->nmeshes++;
    put_name(w, gmesh, mesh->name);
    cJSON *prims = put(w, gmesh, "primitives", cJSON_CreateArray());
    cJSON *prim = put(w, prims, NULL, cJSON_CreateObject());
    cJSON *attrs = put(w, prim, "attributes", cJSON_CreateObject());

    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *nrm = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    const ossa_vertex_array *tan = ossa_model_find_array(m, OSSA_VERTEX_TANGENT, NULL);
    ossa_status st = add_vector_attribute(w, attrs, "POSITION", pos, r);
    if (!st && nrm && nrm->size >= 3) st = add_vector_attribute(w, attrs, "NORMAL", nrm, r);
    /* TANGENT without NORMAL draws a validator warning. */
    if (!st && tan && tan->size >= 3 && nrm && nrm->size >= 3)
        st = add_vector_attribute(w, attrs, "TANGENT", tan, r);
    uint32_t ntex = 0, ncol = 0, ncustom = 0;
    for (uint32_t i = 0; i < m->num_vertex_arrays && !st; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        char key[24];
        if (a->type == OSSA_VERTEX_TEXCOORD && a->size == 2) {
            snprintf(key, sizeof key, "TEXCOORD_%u", ntex++);
            st = add_plain_attribute(w, attrs, key, a, 2, r);
        } else if (a->type == OSSA_VERTEX_COLOR && (a->size == 3 || a->size == 4)) {
            snprintf(key, sizeof key, "COLOR_%u", ncol++);
            st = add_plain_attribute(w, attrs, key, a, a->size, r);
        } else if (a->type == OSSA_VERTEX_CUSTOM) {
            st = add_custom_attribute(w, attrs, a, ncustom++, r);
        }
    }
    bool skinned = false;
    for (uint32_t v = 0; w->weighted && v < r.count && !skinned; v++) skinned = w->weighted[r.first + v];
    if (skinned) add_blend_attributes(w, attrs, r);
    add_indices(w, prim, mesh, r);
    if (mesh->material && mesh->material[0]) put_int(w, prim, "material", ossa__gltfw_material(w, mesh->material));

    cJSON *node = put(w, w->nodes, NULL, cJSON_CreateObject());
    put_name(w, node, mesh->name);
    put_int(w, node, "mesh", mesh_index);
    if (skinned) put_int(w, node, "skin", 0);
    put_int(w, scene_nodes, NULL, w->nnodes++);
    return st;
}

static ossa_status write_meshes(gw *w, cJSON *scene_nodes)
{
    const ossa_model *m = w->m;
    const ossa_vertex_array *pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    if (!pos || !m->num_triangles) return OSSA_OK; /* glTF primitives need positions */
    if (prepare_blend(w)) return OSSA_FAILED;
    if (!m->num_meshes) { /* triangles without meshes: one mesh of all */
        ossa_mesh all = {"", "", 0, m->num_vertices, 0, m->num_triangles};
        return write_mesh(w, &all, scene_nodes);
    }
    for (uint32_t i = 0; i < m->num_meshes; i++)
        if (write_mesh(w, &m->meshes[i], scene_nodes)) return OSSA_FAILED;
    return OSSA_OK;
}

/* -- Animations -- */

static float effective_rate(const ossa_animation *an)
{
    return isfinite(an->framerate) && an->framerate > 0 ? an->framerate : OSSA_DEFAULT_FRAMERATE;
}

static void channel_value(const ossa_transform *t, int path, float out[4])
{
    ossa_transform g;
    joint_to_gltf(t, &g);
    if (path == 0) memcpy(out, g.translation, 12);
    if (path == 1) memcpy(out, g.rotation, 16);
    if (path == 2) memcpy(out, g.scale, 12);
}

static bool same_channel(const ossa_transform *a, const ossa_transform *b, int path)
{
    if (path == 0) return memcmp(a->translation, b->translation, 12) == 0;
    if (path == 1) return memcmp(a->rotation, b->rotation, 16) == 0;
    return memcmp(a->scale, b->scale, 12) == 0;
}

/* Adds a sampler (LINEAR, also for a track of one key: raylib 6.0 takes
 * one interpolation per joint, its last channel's, so a STEP key holding a
 * joint's scale made its turns jump from key to key) and the channel that
 * uses it; *count counts them. */
static void add_channel(gw *w, cJSON *channels, cJSON *samplers, int *count, uint32_t joint,
                        int path, int input, int output)
{
    static const char *const paths[] = {"translation", "rotation", "scale"};
    cJSON *s = put(w, samplers, NULL, cJSON_CreateObject());
    put_int(w, s, "input", input);
    put_int(w, s, "output", output);
    cJSON *c = put(w, channels, NULL, cJSON_CreateObject());
    put_int(w, c, "sampler", (*count)++);
    cJSON *target = put(w, c, "target", cJSON_CreateObject());
    put_int(w, target, "node", joint);
    put(w, target, "path", cJSON_CreateString(paths[path]));
}

/* Whether a channel of an animation needs a track of its own: the source
 * animates it and it moves, or it holds a value other than its node's (a
 * channel the source does not animate holds the rest value). */
static bool channel_moves(const gw *w, const ossa_animation *an, uint32_t j, int path, bool *constant)
{
    uint32_t J = w->J, nf = an->num_frames;
    uint8_t bit = (uint8_t)(1u << path); /* OSSA_CHANNEL_* in this order */
    *constant = true;
    if (!nf || (an->channels && !(an->channels[j] & bit))) return false;
    const ossa_transform *f0 = &an->frames[j];
    for (uint32_t f = 1; f < nf && *constant; f++)
        *constant = same_channel(&an->frames[(size_t)f * J + j], f0, path);
    return !*constant || !same_channel(f0, rest_of(w->m, j), path);
}

/* The channels every animation keys. Players that blend or switch
 * actions (Blender, three.js mixers) keep the last value of a channel an
 * action does not key, so a channel that one animation moves is keyed in
 * all of them, with one constant key where it does not move. */
static void plan_channels(gw *w)
{
    const ossa_model *m = w->m;
    w->keyed = ossa__alloc(w->alloc, w->J ? w->J : 1);
    if (!w->keyed) {
        w->nomem = true;
        return;
    }
    memset(w->keyed, 0, w->J ? w->J : 1);
    for (uint32_t a = 0; a < m->num_animations; a++)
        for (uint32_t j = 0; j < w->J; j++)
            for (int path = 0; path < 3; path++) {
                bool constant;
                if (channel_moves(w, &m->animations[a], j, path, &constant))
                    w->keyed[j] |= (uint8_t)(1u << path);
            }
}

/* One glTF animation. Every track is written at the animation's frames
 * (LINEAR); a track that never changes is one key. By default every
 * channel of plan_channels is keyed; with the option gltf.sparse_channels
 * only the channels this animation moves (channel_moves). glTF has no
 * empty animation: one with no track left keeps one key of joint 0's
 * rotation. */
static void write_animation(gw *w, cJSON *animations, const ossa_animation *an)
{
    const ossa_model *m = w->m;
    uint32_t J = w->J, nf = an->num_frames;
    cJSON *ga = put(w, animations, NULL, cJSON_CreateObject());
    put_name(w, ga, an->name);
    cJSON *channels = put(w, ga, "channels", cJSON_CreateArray());
    cJSON *samplers = put(w, ga, "samplers", cJSON_CreateArray());
    float rate = effective_rate(an);
    int full_input = -1, one_input = -1, tracks = 0;
    float *values = ossa__alloc(w->alloc, (size_t)(nf ? nf : 1) * 4 * sizeof *values);
    if (!values) {
        w->nomem = true;
        return;
    }
    bool sparse = ossa__option_on(OSSA__OPTIONS(w->opt), "gltf.sparse_channels");
    for (uint32_t j = 0; j < J; j++) {
        for (int path = 0; path < 3; path++) {
            bool constant, moves = channel_moves(w, an, j, path, &constant);
            if (sparse ? !moves : !(w->keyed[j] & (1u << path))) continue;
            uint32_t keys = constant ? 1 : nf, ncomp = path == 1 ? 4 : 3;
            /* a channel this animation does not animate holds the rest
             * value in its frames; an animation without frames keys it */
            for (uint32_t f = 0; f < keys; f++)
                channel_value(nf ? &an->frames[(size_t)f * J + j] : rest_of(m, j), path,
                              values + (size_t)f * ncomp);
            int input;
            if (constant) {
                if (one_input < 0) {
                    float zero = 0;
                    int view = add_view(w, &zero, 4, 0, 0);
                    one_input = add_accessor(w, view, GLTF_FLOAT, 1, "SCALAR", false, &zero, &zero, 1);
                }
                input = one_input;
            } else {
                if (full_input < 0) {
                    float *times = ossa__alloc(w->alloc, (size_t)nf * sizeof *times);
                    if (!times) {
                        w->nomem = true;
                        ossa__free(w->alloc, values, 0);
                        return;
                    }
                    for (uint32_t f = 0; f < nf; f++) times[f] = (float)((double)f / rate);
                    int view = add_view(w, times, (size_t)nf * 4, 0, 0);
                    full_input = add_accessor(w, view, GLTF_FLOAT, nf, "SCALAR", false, &times[0],
                                              &times[nf - 1], 1);
                    ossa__free(w->alloc, times, 0);
                }
                input = full_input;
            }
            int view = add_view(w, values, (size_t)keys * ncomp * 4, 0, 0);
            int output = add_accessor(w, view, GLTF_FLOAT, keys, type_name(ncomp), false, NULL, NULL, 0);
            add_channel(w, channels, samplers, &tracks, j, path, input, output);
        }
    }
    if (tracks == 0 && !w->nomem) {
        float zero = 0;
        int view = add_view(w, &zero, 4, 0, 0);
        int input = add_accessor(w, view, GLTF_FLOAT, 1, "SCALAR", false, &zero, &zero, 1);
        channel_value(nf ? &an->frames[0] : rest_of(m, 0), 1, values);
        view = add_view(w, values, 16, 0, 0);
        add_channel(w, channels, samplers, &tracks, 0, 1, input,
                    add_accessor(w, view, GLTF_FLOAT, 1, "VEC4", false, NULL, NULL, 0));
    }
    ossa__free(w->alloc, values, 0);
    /* What glTF cannot say: the frame rate the key times were made at,
     * under a plain key where any consumer can find it, and in ossa's own
     * object the frame count (a glTF animation ends at its last key), the
     * rate as the source gave it (0 = not specified) and the loop flag. */
    cJSON *extras = put(w, ga, "extras", cJSON_CreateObject());
    put(w, extras, "framerate", jfloat(rate));
    cJSON *ours = put(w, extras, GLTF_EXTRAS_KEY, cJSON_CreateObject());
    put_int(w, ours, "frames", nf);
    put(w, ours, "framerate", jfloat(isfinite(an->framerate) ? an->framerate : 0));
    put(w, ours, "loop", cJSON_CreateBool((an->flags & OSSA_ANIMATION_LOOP) != 0));
}

/* -- Document -- */

/* Images and materials are written as glTF's own (write_materials.c),
 * not as blobs. */
static bool blob_extra(const ossa_extra *e)
{
    return strncmp(e->key, OSSA_EXTRA_IMAGE, strlen(OSSA_EXTRA_IMAGE)) != 0 &&
           strncmp(e->key, OSSA_EXTRA_MATERIAL, strlen(OSSA_EXTRA_MATERIAL)) != 0;
}

static void write_root_extras(gw *w)
{
    const ossa_model *m = w->m;
    uint32_t blobs = 0;
    for (uint32_t i = 0; i < m->num_extras; i++) blobs += blob_extra(&m->extras[i]);
    if (!m->comment && !blobs && !(m->flags & OSSA_MODEL_SKELETON_FROM_POSES)) return;
    cJSON *extras = put(w, w->root, "extras", cJSON_CreateObject());
    cJSON *ours = put(w, extras, GLTF_EXTRAS_KEY, cJSON_CreateObject());
    if (m->comment) put(w, ours, "comment", jstring(w, m->comment));
    if (m->flags & OSSA_MODEL_SKELETON_FROM_POSES)
        put(w, ours, "skeleton_from_poses", cJSON_CreateTrue());
    if (blobs) {
        /* Blobs of other formats (IQM extensions), base64, in order. */
        cJSON *list = put(w, ours, "extras", cJSON_CreateArray());
        for (uint32_t i = 0; i < m->num_extras; i++) {
            if (!blob_extra(&m->extras[i])) continue;
            cJSON *e = put(w, list, NULL, cJSON_CreateObject());
            put(w, e, "key", jstring(w, m->extras[i].key));
            char *text = ossa__alloc(w->alloc, ossa__base64_encoded_size(m->extras[i].size) + 1);
            if (!text) {
                w->nomem = true;
                continue;
            }
            ossa__base64_encode(m->extras[i].data, m->extras[i].size, text);
            text[ossa__base64_encoded_size(m->extras[i].size)] = 0;
            put(w, e, "data", cJSON_CreateString(text));
            ossa__free(w->alloc, text, 0);
        }
    }
}

/* Builds the document. `bin_uri` names the external buffer (MODE_EXTERNAL);
 * `path` is the file being written, for images beside it (NULL when
 * writing to memory). */
static ossa_status build(gw *w, write_mode mode, const char *bin_uri, const char *path)
{
    const ossa_model *m = w->m;
    w->J = m->num_joints;
    if (check_model(w)) return OSSA_FAILED;
    w->root = cJSON_CreateObject();
    if (!w->root) return ossa__fail_nomem(w->error);
    cJSON *asset = put(w, w->root, "asset", cJSON_CreateObject());
    put(w, asset, "generator", cJSON_CreateString("ossa " "0.1.0"));
    put(w, asset, "version", cJSON_CreateString("2.0"));
    write_root_extras(w);
    /* Arrays are created up front and dropped at the end when empty (the
     * schema wants at least one entry in each). */
    cJSON *scenes = put(w, w->root, "scenes", cJSON_CreateArray());
    cJSON *scene = put(w, scenes, NULL, cJSON_CreateObject());
    cJSON *scene_nodes = put(w, scene, "nodes", cJSON_CreateArray());
    put_int(w, w->root, "scene", 0);
    w->nodes = put(w, w->root, "nodes", cJSON_CreateArray());
    w->meshes = put(w, w->root, "meshes", cJSON_CreateArray());
    w->materials = put(w, w->root, "materials", cJSON_CreateArray());
    w->textures = put(w, w->root, "textures", cJSON_CreateArray());
    w->images = put(w, w->root, "images", cJSON_CreateArray());
    w->samplers = put(w, w->root, "samplers", cJSON_CreateArray());
    cJSON *skins = put(w, w->root, "skins", cJSON_CreateArray());
    cJSON *animations = put(w, w->root, "animations", cJSON_CreateArray());
    w->accessors = put(w, w->root, "accessors", cJSON_CreateArray());
    w->views = put(w, w->root, "bufferViews", cJSON_CreateArray());
    cJSON *buffers = put(w, w->root, "buffers", cJSON_CreateArray());
    if (w->nomem) return ossa__fail_nomem(w->error);

    write_joints(w, scene_nodes);
    if (ossa__gltfw_images_begin(w, mode, path) || write_meshes(w, scene_nodes)) return OSSA_FAILED;
    if (w->J) {
        cJSON *skin = put(w, skins, NULL, cJSON_CreateObject());
        put_int(w, skin, "inverseBindMatrices", write_inverse_binds(w));
        put_int(w, skin, "skeleton", w->skeleton_node);
        cJSON *joints = put(w, skin, "joints", cJSON_CreateArray());
        for (uint32_t j = 0; j < w->J; j++) put_int(w, joints, NULL, j);
        plan_channels(w);
        for (uint32_t a = 0; a < m->num_animations && !w->nomem; a++)
            write_animation(w, animations, &m->animations[a]);
    }
    if (w->failed) return OSSA_FAILED;
    if (w->bin.failed || w->nomem) return ossa__fail_nomem(w->error);
    if (w->bin.size > UINT32_MAX - 64)
        return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "the binary data would be larger than 4 GiB");
    if (w->bin.size) {
        cJSON *buf = put(w, buffers, NULL, cJSON_CreateObject());
        put_int(w, buf, "byteLength", (double)w->bin.size);
        if (mode == MODE_EXTERNAL) {
            put(w, buf, "uri", juri(w, bin_uri));
        } else if (mode == MODE_EMBED) {
            static const char prefix[] = "data:application/octet-stream;base64,";
            size_t n = ossa__base64_encoded_size(w->bin.size);
            char *uri = ossa__alloc(w->alloc, sizeof prefix + n);
            if (!uri) return ossa__fail_nomem(w->error);
            memcpy(uri, prefix, sizeof prefix - 1);
            ossa__base64_encode(w->bin.data, w->bin.size, uri + sizeof prefix - 1);
            uri[sizeof prefix - 1 + n] = 0;
            put(w, buf, "uri", cJSON_CreateString(uri));
            ossa__free(w->alloc, uri, sizeof prefix + n);
        }
    }
    static const char *const arrays[] = {"nodes",  "meshes", "materials", "textures", "images",
                                         "samplers", "skins",  "animations", "accessors",
                                         "bufferViews", "buffers"};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(w->root, arrays[i])) == 0)
            cJSON_DeleteItemFromObjectCaseSensitive(w->root, arrays[i]);
    if (cJSON_GetArraySize(scene_nodes) == 0) cJSON_DeleteItemFromObjectCaseSensitive(scene, "nodes");
    if (w->nomem) return ossa__fail_nomem(w->error);
    ossa__gltfw_images_report(w);
    return OSSA_OK;
}

static void release(gw *w)
{
    cJSON_Delete(w->root);
    ossa__buf_release(&w->bin);
    ossa__free(w->alloc, w->joints, 0);
    ossa__free(w->alloc, w->weights_f, 0);
    ossa__free(w->alloc, w->weights_u, 0);
    ossa__free(w->alloc, w->weighted, 0);
    ossa__free(w->alloc, w->keyed, 0);
    ossa__gltfw_images_end(w);
}

static void init(gw *w, const ossa_model *model, const ossa_write_options *options, ossa_error *error)
{
    memset(w, 0, sizeof *w);
    w->m = model;
    w->opt = options;
    w->alloc = options->allocator;
    w->error = error;
    ossa__buf_init(&w->bin, w->alloc);
}

/* The JSON text of the document (cJSON's allocation), or NULL. */
static char *print(gw *w, bool pretty)
{
    char *json = pretty ? cJSON_Print(w->root) : cJSON_PrintUnformatted(w->root);
    if (!json) ossa__fail_nomem(w->error);
    return json;
}

ossa_status ossa__gltf_write(const ossa_model *model, const ossa_write_options *options,
                             ossa_buf *out, ossa_error *error)
{
    gw w;
    init(&w, model, options, error);
    ossa_status st = build(&w, MODE_EMBED, NULL, NULL);
    if (!st) {
        char *json = print(&w, true);
        if (!json) {
            st = OSSA_FAILED;
        } else {
            ossa__buf_append(out, json, strlen(json));
            ossa__buf_append(out, "\n", 1);
            cJSON_free(json);
        }
    }
    release(&w);
    return st;
}

/* GLB: 12-byte header, the JSON chunk padded with spaces and the BIN chunk
 * padded with zeros, each to 4 bytes. */
static ossa_status glb_bytes(gw *w, const char *json, ossa_buf *out)
{
    size_t jn = strlen(json), jpad = (jn + 3) & ~(size_t)3;
    size_t bpad = (w->bin.size + 3) & ~(size_t)3;
    size_t total = GLB_HEADER_SIZE + GLB_CHUNK_HEADER_SIZE + jpad + (bpad ? GLB_CHUNK_HEADER_SIZE + bpad : 0);
    if (total > UINT32_MAX)
        return ossa__fail(w->error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "the file would be larger than 4 GiB");
    unsigned char *p = ossa__buf_push(out, total);
    if (!p) return ossa__fail_nomem(w->error);
    ossa__wr32(p, GLB_MAGIC);
    ossa__wr32(p + 4, GLB_VERSION);
    ossa__wr32(p + 8, (uint32_t)total);
    ossa__wr32(p + 12, (uint32_t)jpad);
    ossa__wr32(p + 16, GLB_CHUNK_JSON);
    memcpy(p + 20, json, jn);
    memset(p + 20 + jn, ' ', jpad - jn);
    if (bpad) {
        unsigned char *b = p + 20 + jpad;
        ossa__wr32(b, (uint32_t)bpad);
        ossa__wr32(b + 4, GLB_CHUNK_BIN);
        memcpy(b + 8, w->bin.data, w->bin.size); /* the rest is zeroed */
    }
    return OSSA_OK;
}

ossa_status ossa__glb_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error)
{
    gw w;
    init(&w, model, options, error);
    ossa_status st = build(&w, MODE_GLB, NULL, NULL);
    char *json = st ? NULL : print(&w, false);
    if (!st && !json) st = OSSA_FAILED;
    if (!st) st = glb_bytes(&w, json, out);
    cJSON_free(json);
    release(&w);
    return st;
}

/* Writes `main` (and the .bin when given) with the image files that go
 * beside them, all or nothing. */
static ossa_status write_all(gw *w, const ossa_output_file *main, size_t n)
{
    ossa_output_file *files = ossa__alloc(w->alloc, (n + w->nbeside) * sizeof *files);
    if (!files) return ossa__fail_nomem(w->error);
    memcpy(files, main, n * sizeof *files);
    /* The images beside took free names: only the model's files may exist,
     * which OSSA_WRITE_NO_REPLACE refuses. */
    ossa_write_options o = *w->opt;
    for (size_t i = 0; i < w->nbeside; i++)
        if (w->beside[i].data) files[n++] = w->beside[i]; /* the others are there already */
    ossa_status st = ossa__write_files_atomic(files, n, &o, w->error);
    ossa__free(w->alloc, files, 0);
    return st;
}

ossa_status ossa__glb_write_files(const ossa_model *model, const char *path,
                                  const ossa_write_options *options, ossa_error *error)
{
    gw w;
    init(&w, model, options, error);
    ossa_buf out;
    ossa__buf_init(&out, w.alloc);
    ossa_status st = build(&w, MODE_GLB, NULL, path);
    char *json = st ? NULL : print(&w, false);
    if (!st && !json) st = OSSA_FAILED;
    if (!st) st = glb_bytes(&w, json, &out);
    if (!st) {
        ossa_output_file file = {path, out.data, out.size};
        st = write_all(&w, &file, 1);
    }
    cJSON_free(json);
    ossa__buf_release(&out);
    release(&w);
    return st;
}

ossa_status ossa__gltf_write_files(const ossa_model *model, const char *path,
                                   const ossa_write_options *options, ossa_error *error)
{
    gw w;
    init(&w, model, options, error);
    bool embed = ossa__option_on(OSSA__OPTIONS(options), "gltf.embed");
    /* The buffer goes beside the .gltf under the same base name. */
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    size_t dir = (size_t)(base - path);
    char *bin_path = ossa__alloc(w.alloc, dir + stem + 5);
    if (!bin_path) {
        release(&w);
        return ossa__fail_nomem(error);
    }
    memcpy(bin_path, path, dir + stem);
    memcpy(bin_path + dir + stem, ".bin", 5);
    ossa_status st = build(&w, embed ? MODE_EMBED : MODE_EXTERNAL, bin_path + dir, path);
    char *json = st ? NULL : print(&w, true);
    if (!st && !json) st = OSSA_FAILED;
    if (!st) {
        ossa_output_file files[2] = {{path, json, strlen(json)}, {bin_path, w.bin.data, w.bin.size}};
        st = write_all(&w, files, !embed && w.bin.size ? 2 : 1);
    }
    cJSON_free(json);
    ossa__free(w.alloc, bin_path, dir + stem + 5);
    release(&w);
    return st;
}
