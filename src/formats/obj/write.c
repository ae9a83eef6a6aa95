/* OBJ writer (docs/formats/obj.md §10): the mesh in the bind pose, or skinned
 * at one time of an animation (the option obj.pose_time), for tools that take
 * only OBJ.
 *
 *   # ossa VERSION
 *   mtllib x.mtl           files only, when a mesh has a material (write_mtl.c)
 *   v x y z [r g b]        per model vertex, axes mapped back (§7)
 *   vt u v                 V flipped back to bottom-left
 *   vn x y z               always (generated when the model has none)
 *   o name / usemtl mat    where the mesh's differ from the one before
 *                          (from "", which needs no line)
 *   f a/a/a c/c/c b/b/b    1-based, reversed to counter-clockwise
 *
 * Numbers are the shortest decimals that read back as the same float.
 * Joints, blend data and animations cannot be written (warned once). */
#include "formats/obj/obj.h"

#include "core/normals.h"

#include <math.h>
#include <stdio.h>

/* OBJ coordinates of an ossa vector: the inverse of the reader's map. */
static void unmap_axes(bool blender_axes, const float *in, float *out)
{
    if (blender_axes) {
        out[0] = in[0];
        out[1] = in[2];
        out[2] = -in[1];
    } else {
        out[0] = in[1];
        out[1] = in[2];
        out[2] = in[0];
    }
}

bool ossa__obj_put_name(ossa_text_out *t, const char *s)
{
    bool changed = false;
    for (; *s; s++) {
        char c = *s;
        if (c == '\n' || c == '\r') c = ' ';
        if (c == '#' || (c == '\\' && !s[1])) c = '_';
        changed |= c != *s;
        ossa__out_char(t, c);
    }
    return changed;
}

static void put_vector(ossa_text_out *t, const char *kw, const float *v, int n)
{
    ossa__out_str(t, kw);
    for (int k = 0; k < n; k++) {
        ossa__out_char(t, ' ');
        ossa__out_float(t, v[k] == 0 ? 0.0f : v[k]);
    }
}

/* Positions and normals (3 floats per vertex) to write: posed, or the
 * model's; normals generated from the faces when the model has none. */
static ossa_status geometry(const ossa_model *m, const ossa_write_options *o, float *pos,
                            float *nrm, ossa_error *error)
{
    const ossa_vertex_array *pa = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    const ossa_vertex_array *na = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    uint32_t nv = m->num_vertices;
    float tmp[OSSA_MAX_COMPONENTS];
    const char *pose_time = ossa__option_value(OSSA__OPTIONS(o), "obj.pose_time");
    if (pose_time) {
        if (!m->num_animations)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "the model has no animation to pose the mesh with");
        if (o->animation >= m->num_animations)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "animation %u does not exist (the model has %u)", o->animation,
                              m->num_animations);
    }
    for (uint32_t v = 0; v < nv; v++) {
        memset(tmp, 0, sizeof tmp);
        if (pa) ossa_vertex_array_read(m, pa, v, 1, tmp);
        memcpy(pos + (size_t)v * 3, tmp, 3 * sizeof *pos);
        memset(tmp, 0, sizeof tmp);
        if (na) ossa_vertex_array_read(m, na, v, 1, tmp);
        memcpy(nrm + (size_t)v * 3, tmp, 3 * sizeof *nrm);
    }
    if (!na && m->num_triangles) {
        /* Smooth normals of the bind pose; one class per position, so
         * every corner of a vertex has the same. */
        float *corner = ossa__temp_alloc(m, ((size_t)m->num_triangles * 3 + 1) * 3 * sizeof *corner);
        if (!corner) return ossa__fail_nomem(error);
        ossa_status st = ossa__smooth_normals(m, pos, 3, &m->triangles[0].v[0], NULL,
                                              m->num_triangles, corner, error);
        for (size_t c = 0; !st && c < (size_t)m->num_triangles * 3; c++)
            memcpy(nrm + (size_t)m->triangles[c / 3].v[c % 3] * 3, corner + c * 3,
                   3 * sizeof *nrm);
        ossa__temp_free(m, corner);
        if (st) return st;
    }
    if (pose_time)
        return ossa__obj_pose(m, o->animation, ossa__option_number(OSSA__OPTIONS(o), "obj.pose_time", 0),
                              pos, nrm, error);
    return OSSA_OK;
}

bool ossa__obj_any_material(const ossa_model *m)
{
    for (uint32_t i = 0; i < m->num_meshes; i++)
        if (m->meshes[i].material[0]) return true;
    return false;
}

/* `mtllib`: the MTL file written beside (files only, write_mtl.c).
 * Memory writes report what OBJ cannot hold themselves; ossa_write_file
 * does it for files (the format's `holds`). */
ossa_status ossa__obj_write_text(const ossa_model *m, const ossa_write_options *o, const char *mtllib,
                                 bool report_unheld, ossa_buf *out, ossa_error *error)
{
    uint32_t nv = m->num_vertices;
    const ossa_vertex_array *ta = ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL);
    const ossa_vertex_array *ca = ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL);
    if (m->num_triangles && !ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL))
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "the model has triangles but no positions");
    float *pos = ossa__temp_alloc(m, ((size_t)nv + 1) * 3 * sizeof *pos);
    float *nrm = ossa__temp_alloc(m, ((size_t)nv + 1) * 3 * sizeof *nrm);
    if (!pos || !nrm) {
        ossa__temp_free(m, pos);
        ossa__temp_free(m, nrm);
        return ossa__fail_nomem(error);
    }
    ossa_status st = geometry(m, o, pos, nrm, error);
    for (uint32_t v = 0; !st && v < nv; v++)
        if (!ossa__finite3(pos + (size_t)v * 3) || !ossa__finite3(nrm + (size_t)v * 3))
            st = ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                            "vertex %u has a value that is not finite", v);
    ossa_text_out t;
    ossa__out_init(&t, out);
    ossa__out_str(&t, "# ossa ");
    ossa__out_str(&t, ossa_version_string());
    ossa__out_char(&t, '\n');
    if (mtllib) {
        ossa__out_str(&t, "mtllib ");
        ossa__obj_put_name(&t, mtllib);
        ossa__out_char(&t, '\n');
    }
    float tmp[OSSA_MAX_COMPONENTS], v3[3];
    uint64_t alpha = 0, bad_uv = 0;
    bool blender_axes = ossa__option_choice(OSSA__OPTIONS(o), "obj.axes", OBJ_AXES) == 1;
    for (uint32_t v = 0; !st && v < nv; v++) {
        unmap_axes(blender_axes, pos + (size_t)v * 3, v3);
        put_vector(&t, "v", v3, 3);
        if (ca) {
            memset(tmp, 0, sizeof tmp);
            tmp[3] = 1;
            ossa_vertex_array_read(m, ca, v, 1, tmp);
            for (int k = 0; k < 3; k++) {
                ossa__out_char(&t, ' ');
                ossa__out_float(&t, isfinite(tmp[k]) ? tmp[k] : 0.0f);
            }
            alpha += ca->size > 3 && tmp[3] != 1;
        }
        ossa__out_char(&t, '\n');
    }
    for (uint32_t v = 0; !st && ta && v < nv; v++) {
        memset(tmp, 0, sizeof tmp);
        ossa_vertex_array_read(m, ta, v, 1, tmp);
        float uv[2] = {tmp[0], 1.0f - tmp[1]};
        if (!isfinite(uv[0]) || !isfinite(uv[1])) {
            bad_uv++;
            uv[0] = uv[1] = 0;
        }
        put_vector(&t, "vt", uv, 2);
        ossa__out_char(&t, '\n');
    }
    for (uint32_t v = 0; !st && v < nv; v++) {
        unmap_axes(blender_axes, nrm + (size_t)v * 3, v3);
        put_vector(&t, "vn", v3, 3);
        ossa__out_char(&t, '\n');
    }
    /* triangles outside every mesh (a model built without meshes) too */
    ossa_mesh all = {"", "", 0, nv, 0, m->num_triangles};
    uint32_t num_meshes = m->num_meshes ? m->num_meshes : 1;
    const char *name = "", *material = "";
    uint32_t renamed = 0;
    for (uint32_t i = 0; !st && i < num_meshes; i++) {
        const ossa_mesh *mesh = m->num_meshes ? &m->meshes[i] : &all;
        /* a reader's state starts as ("", ""): only changes are written */
        if (strcmp(mesh->name, name) != 0) {
            ossa__out_str(&t, mesh->name[0] ? "o " : "o");
            renamed += ossa__obj_put_name(&t, mesh->name);
            ossa__out_char(&t, '\n');
            name = mesh->name;
        }
        if (strcmp(mesh->material, material) != 0) {
            ossa__out_str(&t, mesh->material[0] ? "usemtl " : "usemtl");
            renamed += ossa__obj_put_name(&t, mesh->material);
            ossa__out_char(&t, '\n');
            material = mesh->material;
        }
        for (uint32_t tri = mesh->first_triangle;
             tri < mesh->first_triangle + mesh->num_triangles && tri < m->num_triangles; tri++) {
            ossa__out_char(&t, 'f');
            for (int k = 2; k >= 0; k--) {
                uint64_t index = (uint64_t)m->triangles[tri].v[k] + 1;
                ossa__out_char(&t, ' ');
                ossa__out_int(&t, (int64_t)index);
                ossa__out_str(&t, ta ? "/" : "//");
                if (ta) {
                    ossa__out_int(&t, (int64_t)index);
                    ossa__out_char(&t, '/');
                }
                ossa__out_int(&t, (int64_t)index);
            }
            ossa__out_char(&t, '\n');
        }
    }
    ossa__out_flush(&t);
    ossa__temp_free(m, pos);
    ossa__temp_free(m, nrm);
    if (st) return st;
    if (report_unheld && (m->num_joints || m->num_animations))
        ossa__write_warn(o, OSSA_WARNING_DROPPED,
             "OBJ holds static meshes: %u joints, the blend data and %u animations are not written%s",
             m->num_joints, m->num_animations,
             ossa__option_value(OSSA__OPTIONS(o), "obj.pose_time") ? " (the mesh is posed)" : "");
    if (alpha) ossa__write_warn(o, OSSA_WARNING_DROPPED, "%llu vertex colours lose their alpha", (unsigned long long)alpha);
    if (bad_uv)
        ossa__write_warn(o, OSSA_WARNING_REPAIRED, "%llu texture coordinates are not finite: written as 0",
             (unsigned long long)bad_uv);
    if (renamed)
        ossa__write_warn(o, OSSA_WARNING_RENAMED,
             "%u mesh or material names hold line breaks, '#' or a final '\\': written with ' ' "
             "and '_'",
             renamed);
    return OSSA_OK;
}

ossa_status ossa__obj_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out,
                            ossa_error *error)
{
    return ossa__obj_write_text(m, options, NULL, true, out, error);
}
