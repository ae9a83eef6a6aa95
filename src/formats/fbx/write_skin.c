/* FBX writer: the skeleton and skinning (fbx.md §7.3, §7.4, §10.1, §10.2,
 * §15). Every joint is a Model of subclass LimbNode with a NodeAttribute,
 * its bind pose as Lcl Translation / Rotation (Euler XYZ degrees) /
 * Scaling and InheritType 1 (the plain product of ossa's T·R·S chain).
 * Each skinned mesh has a Skin with one Cluster per joint that weighs on
 * it, and one BindPose lists every joint and skinned mesh.
 *
 * Matrices are computed in double from the model's floats. Mesh models sit
 * at the origin, so a cluster's TransformLink is its joint's bind world
 * matrix and Transform its inverse (TransformLink⁻¹ · mesh world): the
 * reader's TransformLink · Transform is the identity up to rounding, and
 * the vertices come back where they were. */
#include "formats/fbx/write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

ossa_status ossa__fbxw_plan_skin(fbxw *w)
{
    const ossa_model *m = w->m;
    uint32_t J = m->num_joints;
    if (!J) return OSSA_OK;
    for (uint32_t j = 0; j < J; j++)
        if (m->joints[j].parent < -1 || m->joints[j].parent >= (int32_t)j)
            return ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "joint %u: parent %d does not come before it", j,
                              (int)m->joints[j].parent);
    /* Readers invert every bind matrix (cluster Transform, bind poses):
     * one that is not finite or has no finite inverse cannot be written. */
    for (uint32_t j = 0; j < J; j++) {
        double world[16], inv[16];
        ossa__fbxw_joint_world(w, j, world);
        bool ok = ossa__mat4d_invert_affine(world, inv);
        for (int k = 0; k < 16 && ok; k++) ok = isfinite(world[k]) && isfinite(inv[k]);
        if (!ok)
            return ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "joint %u ('%.60s'): its bind pose in model space is not finite or "
                              "not invertible (a zero or overflowing scale); FBX stores it as a "
                              "matrix that readers invert",
                              j, m->joints[j].name);
    }
    w->joint_model = ossa__alloc(w->alloc, (size_t)J * 2 * sizeof *w->joint_model);
    if (!w->joint_model) return ossa__fail_nomem(w->error);
    w->joint_attr = w->joint_model + J;
    for (uint32_t j = 0; j < J; j++) {
        w->joint_attr[j] = ossa__fbxw_id(w);
        w->joint_model[j] = ossa__fbxw_id(w);
    }
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    if (!bi || !bw || !m->num_vertices) return OSSA_OK;
    uint32_t slots = bi->size < bw->size ? bi->size : bw->size;
    size_t n = (size_t)m->num_vertices * slots;
    w->bidx = ossa__alloc(w->alloc, n * sizeof *w->bidx);
    w->bwgt = ossa__alloc(w->alloc, n * sizeof *w->bwgt);
    float *tmp = ossa__alloc(w->alloc, (size_t)m->num_vertices * OSSA_MAX_COMPONENTS * sizeof *tmp);
    ossa_status st = OSSA_OK;
    if (!w->bidx || !w->bwgt || !tmp) st = ossa__fail_nomem(w->error);
    /* Both arrays down to their common number of slots. */
    for (int k = 0; k < 2 && !st; k++) {
        const ossa_vertex_array *a = k ? bw : bi;
        float *dst = k ? w->bwgt : w->bidx;
        if (ossa_vertex_array_read(m, a, 0, m->num_vertices, tmp)) {
            st = ossa__fail(w->error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                            "blend %s: unknown component format", k ? "weights" : "indexes");
            break;
        }
        for (uint32_t v = 0; v < m->num_vertices; v++)
            memcpy(dst + (size_t)v * slots, tmp + (size_t)v * a->size, slots * sizeof *dst);
    }
    ossa__free(w->alloc, tmp, 0);
    w->slots = slots;
    return st;
}

/* Joint j's influence in slot s of vertex v, or false when there is none
 * (no weight, or an index that names no joint). */
static bool influence(const fbxw *w, uint32_t v, uint32_t s, uint32_t *joint, float *weight)
{
    size_t k = (size_t)v * w->slots + s;
    float wt = w->bwgt[k], ix = w->bidx[k];
    if (!(wt > 0) || !isfinite(wt) || !(ix >= 0) || ix >= (float)w->m->num_joints) return false;
    *joint = (uint32_t)ix;
    *weight = wt;
    return true;
}

void ossa__fbxw_joint_world(const fbxw *w, uint32_t j, double out[16])
{
    const ossa_model *m = w->m;
    double local[16], acc[16], tmp[16];
    ossa__transform_to_mat4d(&m->joints[j].bind, acc);
    /* Up the chain: parents come before children (checked on entry). */
    for (int32_t p = m->joints[j].parent; p >= 0; p = m->joints[p].parent) {
        ossa__transform_to_mat4d(&m->joints[p].bind, local);
        ossa__mat4d_mul(local, acc, tmp);
        memcpy(acc, tmp, sizeof acc);
    }
    memcpy(out, acc, sizeof acc);
}

static void joint_name(const fbxw *w, uint32_t j, char *out, size_t cap)
{
    /* Unnamed joints (animation-only sources) get a name: importers make
     * bones of them and need one. */
    const char *n = w->m->joints[j].name;
    if (n && n[0])
        snprintf(out, cap, "%s", n);
    else
        snprintf(out, cap, "joint%u", j);
}

void ossa__fbxw_joints(fbxw *w)
{
    const ossa_model *m = w->m;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        char name[512];
        joint_name(w, j, name, sizeof name);
        const ossa_transform *b = &m->joints[j].bind;
        ossa__fbxw_begin(w, "NodeAttribute");
        ossa__fbxw_i64(w, w->joint_attr[j]);
        ossa__fbxw_object_name(w, name, "NodeAttribute");
        ossa__fbxw_cstr(w, "LimbNode");
        ossa__fbxw_child_str(w, "TypeFlags", "Skeleton");
        ossa__fbxw_end(w);

        double t[3], r[3], s[3];
        for (int i = 0; i < 3; i++) {
            t[i] = b->translation[i];
            s[i] = b->scale[i];
        }
        ossa__fbxw_euler(b->rotation, NULL, r);
        ossa__fbxw_begin(w, "Model");
        ossa__fbxw_i64(w, w->joint_model[j]);
        ossa__fbxw_object_name(w, name, "Model");
        ossa__fbxw_cstr(w, "LimbNode");
        ossa__fbxw_child_i32(w, "Version", 232);
        ossa__fbxw_begin(w, "Properties70");
        ossa__fbxw_p_int(w, "InheritType", "enum", 1);
        ossa__fbxw_p_int(w, "DefaultAttributeIndex", "int", 0);
        ossa__fbxw_p_vec3(w, "Lcl Translation", "Lcl Translation", "", "A", t);
        ossa__fbxw_p_vec3(w, "Lcl Rotation", "Lcl Rotation", "", "A", r);
        ossa__fbxw_p_vec3(w, "Lcl Scaling", "Lcl Scaling", "", "A", s);
        ossa__fbxw_end(w);
        ossa__fbxw_begin(w, "Shading");
        ossa__fbxw_bool(w, true);
        ossa__fbxw_end(w);
        ossa__fbxw_child_str(w, "Culling", "CullingOff");
        ossa__fbxw_end(w);

        ossa__fbxw_connect(w, w->joint_attr[j], w->joint_model[j], NULL);
        int32_t p = m->joints[j].parent;
        ossa__fbxw_connect(w, w->joint_model[j], p >= 0 ? w->joint_model[p] : 0, NULL);
    }
}

/* -- Skins -- */

uint32_t ossa__fbxw_count_clusters(fbxw *w, uint32_t mi, uint32_t *stamp)
{
    if (!w->slots) return 0;
    const fbxw_mesh *fm = &w->meshes[mi];
    uint32_t count = 0;
    for (uint32_t p = 0; p < fm->num_points; p++) {
        uint32_t v = w->point_vertex[p];
        for (uint32_t s = 0; s < w->slots; s++) {
            uint32_t j;
            float wt;
            if (!influence(w, v, s, &j, &wt) || stamp[j] == mi + 1) continue;
            stamp[j] = mi + 1;
            count++;
        }
    }
    return count;
}

typedef struct entry {
    uint32_t joint, point;
    double weight;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->joint != y->joint) return x->joint < y->joint ? -1 : 1;
    return x->point < y->point ? -1 : x->point > y->point;
}

static void matrix(fbxw *w, const char *name, const double m[16])
{
    ossa__fbxw_begin(w, name);
    ossa__fbxw_array_f64(w, m, 16);
    ossa__fbxw_end(w);
}

void ossa__fbxw_skin(fbxw *w, uint32_t mi)
{
    const fbxw_mesh *fm = &w->meshes[mi];
    if (!fm->skin) return;
    /* (joint, point, weight) of every influence, by joint then point; a
     * joint named twice by one vertex gets the sum. */
    size_t cap = (size_t)fm->num_points * w->slots, n = 0;
    entry *list = ossa__alloc(w->alloc, (cap ? cap : 1) * sizeof *list);
    if (!list) {
        w->nomem = true;
        return;
    }
    for (uint32_t p = 0; p < fm->num_points; p++)
        for (uint32_t s = 0; s < w->slots; s++) {
            uint32_t j;
            float wt;
            if (!influence(w, w->point_vertex[p], s, &j, &wt)) continue;
            list[n].joint = j;
            list[n].point = p;
            list[n++].weight = wt;
        }
    qsort(list, n, sizeof *list, cmp_entry);
    size_t merged = 0;
    for (size_t i = 0; i < n; i++) {
        if (merged && list[merged - 1].joint == list[i].joint && list[merged - 1].point == list[i].point)
            list[merged - 1].weight += list[i].weight;
        else
            list[merged++] = list[i];
    }
    ossa__fbxw_begin(w, "Deformer");
    ossa__fbxw_i64(w, fm->skin);
    ossa__fbxw_object_name(w, w->m->meshes[mi].name, "Deformer");
    ossa__fbxw_cstr(w, "Skin");
    ossa__fbxw_child_i32(w, "Version", 101);
    ossa__fbxw_child_f64(w, "Link_DeformAcuracy", 50);
    ossa__fbxw_child_str(w, "SkinningType", "Linear");
    ossa__fbxw_end(w);
    ossa__fbxw_connect(w, fm->skin, fm->geometry, NULL);
    /* Indexes, then (8-aligned) weights, in one scratch block. */
    size_t half = (merged + 1) & ~(size_t)1;
    int32_t *idx = ossa__fbxw_scratch(w, (half + 1) * (sizeof(int32_t) + sizeof(double)));
    for (size_t i = 0; i < merged && idx;) {
        size_t e = i;
        while (e < merged && list[e].joint == list[i].joint) e++;
        uint32_t j = list[i].joint;
        double *wts = (double *)(void *)(idx + half);
        for (size_t k = i; k < e; k++) {
            idx[k - i] = (int32_t)list[k].point;
            wts[k - i] = list[k].weight;
        }
        char name[512];
        joint_name(w, j, name, sizeof name);
        double link[16], inv[16];
        ossa__fbxw_joint_world(w, j, link);
        if (!ossa__mat4d_invert_affine(link, inv)) ossa__fbx_identity(inv);
        int64_t id = ossa__fbxw_id(w);
        ossa__fbxw_begin(w, "Deformer");
        ossa__fbxw_i64(w, id);
        ossa__fbxw_object_name(w, name, "SubDeformer");
        ossa__fbxw_cstr(w, "Cluster");
        ossa__fbxw_child_i32(w, "Version", 100);
        ossa__fbxw_begin(w, "UserData");
        ossa__fbxw_cstr(w, "");
        ossa__fbxw_cstr(w, "");
        ossa__fbxw_end(w);
        ossa__fbxw_begin(w, "Indexes");
        ossa__fbxw_array_i32(w, idx, e - i);
        ossa__fbxw_end(w);
        ossa__fbxw_begin(w, "Weights");
        ossa__fbxw_array_f64(w, wts, e - i);
        ossa__fbxw_end(w);
        matrix(w, "Transform", inv);
        matrix(w, "TransformLink", link);
        ossa__fbxw_end(w);
        ossa__fbxw_connect(w, id, fm->skin, NULL);
        ossa__fbxw_connect(w, w->joint_model[j], id, NULL);
        i = e;
    }
    ossa__free(w->alloc, list, 0);
}

void ossa__fbxw_bind_pose(fbxw *w)
{
    const ossa_model *m = w->m;
    if (!m->num_joints) return;
    uint32_t nodes = m->num_joints;
    for (uint32_t i = 0; i < m->num_meshes; i++) nodes += w->meshes[i].skin != 0;
    ossa__fbxw_begin(w, "Pose");
    ossa__fbxw_i64(w, ossa__fbxw_id(w));
    ossa__fbxw_object_name(w, "BindPose", "Pose");
    ossa__fbxw_cstr(w, "BindPose");
    ossa__fbxw_child_str(w, "Type", "BindPose");
    ossa__fbxw_child_i32(w, "Version", 100);
    ossa__fbxw_child_i32(w, "NbPoseNodes", (int32_t)nodes);
    double world[16];
    for (uint32_t j = 0; j < m->num_joints; j++) {
        ossa__fbxw_joint_world(w, j, world);
        ossa__fbxw_begin(w, "PoseNode");
        ossa__fbxw_child_i64(w, "Node", w->joint_model[j]);
        matrix(w, "Matrix", world);
        ossa__fbxw_end(w);
    }
    ossa__fbx_identity(world);
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        if (!w->meshes[i].skin) continue;
        ossa__fbxw_begin(w, "PoseNode");
        ossa__fbxw_child_i64(w, "Node", w->meshes[i].model);
        matrix(w, "Matrix", world);
        ossa__fbxw_end(w);
    }
    ossa__fbxw_end(w);
}
