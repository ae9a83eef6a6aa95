/* Deep checks of a model. Repeated problems of one kind are reported once
 * with a count, so that a broken file gives a readable report. */
#include "core/degenerate.h"
#include "core/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct checker {
    ossa_diagnostic_fn fn;
    void *user;
    uint32_t errors;
    ossa_diagnostic first; /* the first error */
} checker;

static void report(checker *c, ossa_severity sev, ossa_code code, const char *fmt, ...)
    OSSA_PRINTF(4, 5);
static void report(checker *c, ossa_severity sev, ossa_code code, const char *fmt, ...)
{
    ossa_diagnostic p;
    memset(&p, 0, sizeof p);
    p.code = code;
    p.severity = sev;
    p.offset = OSSA_NO_OFFSET;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p.message, sizeof p.message, fmt, ap);
    va_end(ap);
    if (sev == OSSA_SEVERITY_ERROR && c->errors++ == 0) c->first = p;
    if (c->fn) c->fn(c->user, &p);
}

/* Counts occurrences of one problem and reports the first with the total. */
typedef struct tally {
    uint64_t count;
    char first[200];
} tally;

static void tally_add(tally *t, const char *fmt, ...) OSSA_PRINTF(2, 3);
static void tally_add(tally *t, const char *fmt, ...)
{
    if (t->count++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->first, sizeof t->first, fmt, ap);
        va_end(ap);
    }
}

static void tally_report(checker *c, ossa_severity sev, ossa_code code, const tally *t)
{
    if (!t->count) return;
    if (t->count == 1)
        report(c, sev, code, "%s", t->first);
    else
        report(c, sev, code, "%s (and %llu more like it)", t->first,
               (unsigned long long)t->count - 1);
}

static bool finite_transform(const ossa_transform *t)
{
    return ossa__finite3(t->translation) && ossa__finite3(t->scale) && isfinite(t->rotation[0]) &&
           isfinite(t->rotation[1]) && isfinite(t->rotation[2]) && isfinite(t->rotation[3]);
}

static double quat_norm(const float q[4])
{
    return sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                (double)q[3] * q[3]);
}

static void check_joints(checker *c, const ossa_model *m)
{
    tally dup = {0, ""};
    for (uint32_t j = 0; j < m->num_joints; j++) {
        const ossa_joint *jt = &m->joints[j];
        if (jt->parent < -1 || jt->parent >= (int32_t)j)
            report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_PARENT_ORDER,
                   "joint %u '%s': parent %d does not come before it", j,
                   jt->name, jt->parent);
        if (!finite_transform(&jt->bind))
            report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_BIND_NOT_FINITE,
                   "joint %u '%s': bind pose is not finite", j, jt->name);
        else if (fabs(quat_norm(jt->bind.rotation) - 1) > 1e-3)
            report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_ROTATION_NORM,
                   "joint %u '%s': rotation has norm %g (expected 1)",
                   j, jt->name, quat_norm(jt->bind.rotation));
        if (jt->name[0])
            for (uint32_t k = 0; k < j; k++)
                if (strcmp(m->joints[k].name, jt->name) == 0) {
                    tally_add(&dup, "joints %u and %u share the name '%s'", k, j, jt->name);
                    break;
                }
    }
    tally_report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_DUPLICATE_NAME, &dup);
}

static void check_arrays(checker *c, const ossa_model *m)
{
    float v[OSSA_MAX_COMPONENTS];
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        if (!ossa_component_size(a->format) || a->size < 1 || a->size > OSSA_MAX_COMPONENTS) {
            report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_ARRAY_FORMAT,
                   "vertex array %u: invalid format or size", i);
            continue;
        }
        tally bad = {0, ""};
        for (uint32_t vi = 0; vi < m->num_vertices; vi++) {
            ossa_vertex_array_read(m, a, vi, 1, v);
            for (uint32_t k = 0; k < a->size; k++)
                if (!isfinite(v[k])) {
                    tally_add(&bad, "%s array: vertex %u has a non-finite value",
                              ossa_vertex_type_name(a->type), vi);
                    break;
                }
        }
        tally_report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_NOT_FINITE, &bad);
    }
}

static void check_weights(checker *c, const ossa_model *m)
{
    const ossa_vertex_array *bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    const ossa_vertex_array *bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    if (!bi && !bw) return;
    if (!bi || !bw) {
        report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_BLEND_PAIR,
               "blend %s without blend %s", bi ? "indexes" : "weights",
               bi ? "weights" : "indexes");
        return;
    }
    tally range = {0, ""}, sum = {0, ""}, none = {0, ""}, neg = {0, ""}, ubyte = {0, ""};
    float idx[OSSA_MAX_COMPONENTS], w[OSSA_MAX_COMPONENTS];
    uint32_t n = bi->size < bw->size ? bi->size : bw->size;
    for (uint32_t v = 0; v < m->num_vertices; v++) {
        ossa_vertex_array_read(m, bi, v, 1, idx);
        ossa_vertex_array_read(m, bw, v, 1, w);
        double total = 0;
        for (uint32_t k = 0; k < n; k++) {
            if (w[k] < 0) tally_add(&neg, "vertex %u: negative blend weight %g", v, w[k]);
            /* Without joints the indexes name another file's skeleton
             * (SOTC .nmo meshes): reported once below. */
            if (w[k] > 0 && m->num_joints && (idx[k] < 0 || idx[k] >= (float)m->num_joints))
                tally_add(&range, "vertex %u: blend index %g is not a joint (%u joints)", v,
                          idx[k], m->num_joints);
            total += w[k];
        }
        if (total == 0)
            tally_add(&none, "vertex %u has no blend weight", v);
        else if (fabs(total - 1) > 2e-3)
            tally_add(&sum, "vertex %u: blend weights sum to %g (expected 1)", v, total);
        if (bw->format == OSSA_UBYTE && total != 0) {
            unsigned s = 0;
            for (uint32_t k = 0; k < bw->size; k++) s += ((const uint8_t *)bw->data)[(size_t)v * bw->size + k];
            if (s != 255) tally_add(&ubyte, "vertex %u: ubyte blend weights sum to %u, not 255", v, s);
        }
    }
    tally_report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_BLEND_INDEX, &range);
    if (!m->num_joints)
        report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_BLEND_INDEX,
               "blend indexes without joints: the skeleton must come from another file");
    tally_report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_BLEND_NEGATIVE, &neg);
    tally_report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_BLEND_SUM, &sum);
    tally_report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_UBYTE_SUM, &ubyte);
    tally_report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_NO_WEIGHT, &none);
}

static void check_geometry(checker *c, const ossa_model *m)
{
    tally range = {0, ""}, outside = {0, ""}, degenerate = {0, ""};
    for (uint32_t t = 0; t < m->num_triangles; t++) {
        const uint32_t *v = m->triangles[t].v;
        for (int k = 0; k < 3; k++)
            if (v[k] >= m->num_vertices)
                tally_add(&range, "triangle %u: vertex %u is out of range (%u vertices)", t, v[k],
                          m->num_vertices);
        if (ossa__triangle_repeats_vertex(m, t))
            tally_add(&degenerate, "triangle %u repeats a vertex", t);
    }
    for (uint32_t i = 0; i < m->num_meshes; i++) {
        const ossa_mesh *me = &m->meshes[i];
        if ((uint64_t)me->first_vertex + me->num_vertices > m->num_vertices ||
            (uint64_t)me->first_triangle + me->num_triangles > m->num_triangles) {
            report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_MESH_RANGE,
                   "mesh %u '%s': range outside the model", i, me->name);
            continue;
        }
        for (uint32_t t = me->first_triangle; t < me->first_triangle + me->num_triangles; t++)
            for (int k = 0; k < 3; k++) {
                uint32_t v = m->triangles[t].v[k];
                if (v < me->first_vertex || v >= me->first_vertex + me->num_vertices)
                    tally_add(&outside, "mesh %u '%s': triangle %u uses vertex %u outside the mesh",
                              i, me->name, t, v);
            }
    }
    tally_report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_TRIANGLE_INDEX, &range);
    tally_report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_MESH_VERTEX, &outside);
    tally_report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_DEGENERATE, &degenerate);
}

/* Stored bounds must contain the skinned mesh; checked exactly when the
 * work is modest. */
#define BOUNDS_CHECK_LIMIT 20000000u

static void check_bounds(checker *c, const ossa_model *m, uint32_t a)
{
    const ossa_animation *an = &m->animations[a];
    tally bad = {0, ""}, loose = {0, ""};
    for (uint32_t f = 0; f < an->num_frames; f++) {
        const ossa_bounds *b = &an->bounds[f];
        bool ok = ossa__finite3(b->min) && ossa__finite3(b->max) && isfinite(b->radius) &&
                  isfinite(b->xy_radius);
        for (int k = 0; k < 3; k++) ok = ok && b->min[k] <= b->max[k];
        if (!ok) tally_add(&bad, "animation '%s' frame %u: invalid bounds", an->name, f);
    }
    tally_report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_BOUNDS, &bad);
    if (bad.count || !m->num_joints || !ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL) ||
        !ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL) ||
        (uint64_t)m->num_vertices * an->num_frames > BOUNDS_CHECK_LIMIT)
        return;
    ossa_bounds *exact = ossa__temp_alloc(m, ((size_t)an->num_frames + 1) * sizeof *exact);
    if (!exact) return;
    if (ossa_model_compute_bounds(m, a, OSSA_BOUNDS_EXACT, exact, NULL) == OSSA_OK) {
        for (uint32_t f = 0; f < an->num_frames; f++) {
            const ossa_bounds *b = &an->bounds[f], *e = &exact[f];
            double tol = 1e-3 * (1 + e->radius);
            for (int k = 0; k < 3; k++)
                if (e->min[k] < b->min[k] - tol || e->max[k] > b->max[k] + tol) {
                    tally_add(&loose, "animation '%s' frame %u: the stored bounds do not contain "
                                      "the skinned mesh",
                              an->name, f);
                    break;
                }
        }
    }
    ossa__temp_free(m, exact);
    tally_report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_BOUNDS_LOOSE, &loose);
}

static void check_animations(checker *c, const ossa_model *m)
{
    for (uint32_t a = 0; a < m->num_animations; a++) {
        const ossa_animation *an = &m->animations[a];
        if (!isfinite(an->framerate) || an->framerate < 0)
            report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_FRAMERATE,
                   "animation '%s': invalid frame rate %g", an->name,
                   an->framerate);
        if (!an->num_frames)
            report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_NO_FRAMES,
                   "animation '%s' has no frames", an->name);
        tally bad = {0, ""}, norm = {0, ""};
        for (uint32_t f = 0; f < an->num_frames; f++)
            for (uint32_t j = 0; j < m->num_joints; j++) {
                const ossa_transform *t = &an->frames[(size_t)f * m->num_joints + j];
                if (!finite_transform(t))
                    tally_add(&bad, "animation '%s' frame %u joint %u: pose is not finite",
                              an->name, f, j);
                else if (fabs(quat_norm(t->rotation) - 1) > 1e-3)
                    tally_add(&norm, "animation '%s' frame %u joint %u: rotation norm %g",
                              an->name, f, j, quat_norm(t->rotation));
            }
        tally_report(c, OSSA_SEVERITY_ERROR, OSSA_PROBLEM_POSE_NOT_FINITE, &bad);
        tally_report(c, OSSA_SEVERITY_WARNING, OSSA_PROBLEM_POSE_ROTATION, &norm);
        if (an->bounds) check_bounds(c, m, a);
    }
}

ossa_status ossa_model_validate(const ossa_model *model, ossa_diagnostic_fn fn, void *user,
                                ossa_error *error)
{
    ossa__error_clear(error);
    if (!model) return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "no model");
    checker c;
    memset(&c, 0, sizeof c);
    c.fn = fn;
    c.user = user;
    check_joints(&c, model);
    check_arrays(&c, model);
    check_weights(&c, model);
    check_geometry(&c, model);
    check_animations(&c, model);
    if (!c.errors) return OSSA_OK;
    if (c.errors > 1)
        return ossa__fail(error, c.first.code, OSSA_NO_OFFSET, "%.200s (and %u more errors)",
                          c.first.message, c.errors - 1);
    return ossa__fail(error, c.first.code, OSSA_NO_OFFSET, "%s", c.first.message);
}
