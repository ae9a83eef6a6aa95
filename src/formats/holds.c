/* What a format's files can hold, and the warnings for what a model has
 * beyond that: converting a glTF character to a .skb must say that the
 * mesh and the animations stay behind. */
#include "formats/format.h"

uint32_t ossa_format_holds(ossa_format format)
{
    const ossa_format_ops *ops = ossa__format_ops(format);
    return ops && ops->write ? ops->holds : 0;
}

static const char *plural(uint32_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

void ossa__report_unheld(const ossa_model *m, const ossa_format_ops *ops,
                         const ossa_write_options *options)
{
    uint32_t h = ops->holds;
    ossa_diagnostic_fn fn = options->diagnostic;
    void *user = options->user;
    if (!h || !fn) return;
    const char *f = ops->name;
    if (!(h & OSSA_HOLDS_MESHES) && (m->num_vertices || m->num_triangles)) {
        uint32_t meshes = m->num_meshes ? m->num_meshes : 1;
        ossa__report(fn, user, OSSA_SEVERITY_WARNING, OSSA_WARNING_DROPPED,
                     "%s files hold no mesh: %u %s (%u vertices, %u triangles) not written", f,
                     meshes, plural(meshes, "mesh", "meshes"), m->num_vertices, m->num_triangles);
    }
    /* Formats of one animation store per-joint data of it; only formats
     * without animations drop the joints' hierarchy altogether. */
    bool real_skeleton = m->num_joints &&
                         !(m->flags & (OSSA_MODEL_SKELETON_FROM_POSES | OSSA_MODEL_NAMES_ONLY));
    if (!(h & (OSSA_HOLDS_SKELETON | OSSA_HOLDS_ONE_ANIMATION)) && real_skeleton)
        ossa__report(fn, user, OSSA_SEVERITY_WARNING, OSSA_WARNING_DROPPED,
                     "%s files hold no skeleton: %u %s not written", f, m->num_joints,
                     plural(m->num_joints, "joint", "joints"));
    if (!(h & (OSSA_HOLDS_ANIMATIONS | OSSA_HOLDS_ONE_ANIMATION)) && m->num_animations)
        ossa__report(fn, user, OSSA_SEVERITY_WARNING, OSSA_WARNING_DROPPED,
                     "%s files hold no animation: %u %s not written", f, m->num_animations,
                     plural(m->num_animations, "animation", "animations"));
    /* Formats of one animation say themselves which one they wrote. */
}
