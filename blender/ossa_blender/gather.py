"""Export gathering: the selected armature, its meshes and chosen actions
read from Blender into arrays for the ossa package's ModelBuilder.

Joints are the armature's bones, parents first; each joint's model-space
bind matrix is the bone's rest matrix moved by the armature object's world
matrix and the export's axis conversion (so a joint's Y axis runs along its
bone, as in the IQM SDK's exporter), and its pose at a frame the pose
bone's matrix moved the same way. The export's scale multiplies
translations only, so joints keep unit scale and skinning stays the same up
to that scale. Meshes are taken in world space through the same
conversion, triangulated (Blender's loop triangles), split into ossa
vertices where a corner's normal, UV or colour differs, one ossa mesh per
object and material, with up to four vertex-group weights per vertex
(groups named after bones, largest first, normalized to a sum of 1).
"""

import numpy as np

from . import mathutil as mu


def _matrices(collection, prop, n):
    flat = np.empty(n * 16, np.float32)
    collection.foreach_get(prop, flat)
    return flat.reshape(n, 4, 4).transpose(0, 2, 1).astype(np.float64)


def _scaled(m, scale):
    m = np.array(m, np.float64)
    m[..., :3, 3] *= scale
    return m


def bone_order(arm):
    """Bone indices (into arm.data.bones), parents before children, in
    the armature's order otherwise (depth first from the roots)."""
    bones = arm.data.bones
    index = {b.name: k for k, b in enumerate(bones)}
    out = []

    def visit(b):
        out.append(index[b.name])
        for c in b.children:
            visit(c)
    for b in bones:
        if b.parent is None:
            visit(b)
    return out


def skeleton(arm, conv, scale):
    """(names, parents, bind model matrices (J, 4, 4)) of the armature."""
    bones = arm.data.bones
    order = bone_order(arm)
    pos = {k: i for i, k in enumerate(order)}
    names = [bones[k].name for k in order]
    parents = np.array([pos[bones.find(bones[k].parent.name)] if bones[k].parent else -1
                        for k in order], np.int32)
    world = conv @ np.array(arm.matrix_world, np.float64)
    rest = _matrices(bones, "matrix_local", len(bones))[order]
    return names, parents, _scaled(world @ rest, scale)


def local_transforms(model_m, parents):
    """(..., J) parent-relative (t, q, s) of model matrices (..., J, 4, 4)."""
    par = np.where((parents >= 0)[:, None, None],
                   model_m[..., np.maximum(parents, 0), :, :], np.eye(4))
    return mu.mat_to_trs(mu.inverse(par) @ model_m)


def action_frames(scene, action, fps):
    """Scene frames at which an action is sampled: its frame range, at
    ``fps`` frames per second (the scene's rate when 0)."""
    rate = scene.render.fps / scene.render.fps_base
    start, end = action.frame_range
    step = rate / fps if fps > 0 else 1.0
    count = int(np.floor((end - start) / step + 1e-6)) + 1
    return start + np.arange(count) * step, (fps if fps > 0 else rate)


def poses(context, arm, action, frames, conv, scale):
    """(F, J, 4, 4) model matrices of the joints at each scene frame, the
    armature playing ``action`` (what was playing is put back after)."""
    scene = context.scene
    order = bone_order(arm)
    world = conv @ np.array(arm.matrix_world, np.float64)
    if arm.animation_data is None:
        arm.animation_data_create()
    before, frame0 = arm.animation_data.action, (scene.frame_current, scene.frame_subframe)
    out = np.empty((len(frames), len(order), 4, 4))
    try:
        arm.animation_data.action = action
        for i, f in enumerate(frames):
            whole = int(np.floor(f))
            scene.frame_set(whole, subframe=float(f - whole))
            out[i] = _scaled(world @ _matrices(arm.pose.bones, "matrix", len(order))[order],
                             scale)
    finally:
        arm.animation_data.action = before
        scene.frame_set(frame0[0], subframe=frame0[1])
    return out


def _vertex_weights(me, group_joint, nv):
    """(nv, 4) joint indices and weights from the vertex groups that name
    bones. Blender has no bulk access to a vertex's groups: one pass over
    the vertices collects (group, weight) pairs, the rest is numpy."""
    counts = np.fromiter((len(v.groups) for v in me.vertices), np.int64, nv)
    pairs = np.array([(g.group, g.weight) for v in me.vertices for g in v.groups],
                     np.float64).reshape(-1, 2)
    vert = np.repeat(np.arange(nv), counts)
    joint = group_joint[pairs[:, 0].astype(np.int64)] if len(pairs) else np.zeros(0, np.int64)
    w = pairs[:, 1] if len(pairs) else np.zeros(0)
    use = (joint >= 0) & (w > 0)
    vert, joint, w = vert[use], joint[use], w[use]
    order = np.lexsort((-w, vert))          # per vertex, heaviest first
    vert, joint, w = vert[order], joint[order], w[order]
    first = np.searchsorted(vert, vert)     # index of each vertex's first pair
    rank = np.arange(len(vert)) - first
    keep = rank < 4
    idx = np.zeros((nv, 4), np.int64)
    wts = np.zeros((nv, 4))
    idx[vert[keep], rank[keep]] = joint[keep]
    wts[vert[keep], rank[keep]] = w[keep]
    total = wts.sum(1, keepdims=True)
    return idx, np.where(total > 0, wts / np.where(total > 0, total, 1), 0)


def _loop_normals(me):
    n = np.empty(len(me.loops) * 3, np.float32)
    if hasattr(me, "corner_normals"):      # Blender 4.1
        me.corner_normals.foreach_get("vector", n)
    else:
        me.calc_normals_split()
        me.loops.foreach_get("normal", n)
    return n.reshape(-1, 3)


def _srgb(c):
    c = np.clip(c, 0, 1)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def mesh_arrays(obj, me, conv, scale, joints, colors):
    """The ossa meshes of one Blender mesh: a list of dicts of numpy arrays
    (positions, triangles, normals, texcoords, colors, joint_indices,
    joint_weights) and name and material, one per material used."""
    me.calc_loop_triangles()
    nt, nv = len(me.loop_triangles), len(me.vertices)
    if nt == 0:
        return []
    tri_loops = np.empty(nt * 3, np.int32)
    me.loop_triangles.foreach_get("loops", tri_loops)
    mat_index = np.empty(nt, np.int32)
    me.loop_triangles.foreach_get("material_index", mat_index)
    loop_vert = np.empty(len(me.loops), np.int32)
    me.loops.foreach_get("vertex_index", loop_vert)
    co = np.empty(nv * 3, np.float32)
    me.vertices.foreach_get("co", co)
    world = conv @ np.array(obj.matrix_world, np.float64)
    pos = (co.reshape(-1, 3).astype(np.float64) @ world[:3, :3].T + world[:3, 3]) * scale
    nrm_m = np.linalg.inv(world[:3, :3]).T
    normals = _loop_normals(me).astype(np.float64) @ nrm_m.T
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-30)
    attrs = {"normals": normals.astype(np.float32)}
    uv_layer = me.uv_layers.active
    if uv_layer is not None:
        uv = np.empty(len(me.loops) * 2, np.float32)
        uv_layer.data.foreach_get("uv", uv)
        uv = uv.reshape(-1, 2)
        uv[:, 1] = 1 - uv[:, 1]
        attrs["texcoords"] = uv
    col_attr = me.color_attributes.active_color if colors else None
    if col_attr is not None:
        c = np.empty(len(col_attr.data) * 4, np.float32)
        col_attr.data.foreach_get("color", c)
        c = c.reshape(-1, 4)
        if col_attr.domain == "POINT":
            c = c[loop_vert]
        c[:, :3] = _srgb(c[:, :3])
        attrs["colors"] = np.round(c * 255).astype(np.uint8)
    skin = None
    if joints is not None:
        group_joint = np.array([joints.get(g.name, -1) for g in obj.vertex_groups] + [-1],
                               np.int64)
        skin = _vertex_weights(me, group_joint, nv)
    # One ossa vertex per distinct (vertex, normal, uv, colour) corner.
    corner = tri_loops
    keys = [loop_vert[corner][:, None].astype(np.int32).view(np.uint8)]
    for a in attrs.values():
        keys.append(np.ascontiguousarray(a[corner]).view(np.uint8).reshape(len(corner), -1))
    key = np.ascontiguousarray(np.concatenate(keys, 1))
    _, first, inverse = np.unique(key.view(np.dtype((np.void, key.shape[1]))).ravel(),
                                  return_index=True, return_inverse=True)
    # Vertices numbered in the order the triangles first use them.
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first, tris = first[order], rank[inverse].reshape(-1, 3)
    out = []
    for m in np.unique(mat_index):
        sel = mat_index == m
        used, local = np.unique(tris[sel], return_inverse=True)  # increasing: first use
        src = corner[first[used]]
        verts = loop_vert[src]
        arrays = {"positions": pos[verts].astype(np.float32),
                  "triangles": local.reshape(-1, 3)[:, (0, 2, 1)]}
        for k, a in attrs.items():
            arrays[k] = a[src]
        if skin is not None:
            arrays["joint_indices"] = skin[0][verts]
            arrays["joint_weights"] = skin[1][verts].astype(np.float32)
        slot = obj.material_slots[m].material if m < len(obj.material_slots) else None
        arrays["name"] = obj.name if len(np.unique(mat_index)) == 1 else "%s_%s" % (
            obj.name, slot.name if slot else m)
        arrays["material"] = slot.name if slot else ""
        out.append(arrays)
    return out


def meshes(context, arm, objs, conv, scale, joint_names, colors, apply_modifiers):
    """The ossa meshes of ``objs`` (evaluated with their modifiers but the
    Armature ones, when ``apply_modifiers``)."""
    joints = {n: k for k, n in enumerate(joint_names)} if joint_names else None
    out = []
    for obj in objs:
        disabled = []
        if apply_modifiers:
            for mod in obj.modifiers:
                if mod.type == "ARMATURE" and mod.show_viewport:
                    mod.show_viewport = False
                    disabled.append(mod)
        try:
            if apply_modifiers:
                ev = obj.evaluated_get(context.evaluated_depsgraph_get())
                me = ev.to_mesh()
            else:
                ev, me = None, obj.data
            try:
                out += mesh_arrays(obj, me, conv, scale, joints, colors)
            finally:
                if ev is not None:
                    ev.to_mesh_clear()
        finally:
            for mod in disabled:
                mod.show_viewport = True
    return out
