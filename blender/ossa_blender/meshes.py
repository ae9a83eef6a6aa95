"""Mesh objects from the model's meshes: positions, triangles, UVs, custom
normals, colours and vertex groups, set in bulk (foreach_set on numpy
arrays), never vertex by vertex.

Each ossa mesh becomes one Blender mesh with one Blender vertex per ossa
vertex, in the same order (ossa vertices are already split where normals or
UVs differ; ``merge`` joins those with the same position and skin, as the
glTF importer's Merge Vertices option does). Triangles are reversed from
ossa's clockwise front faces to Blender's counter-clockwise ones. UVs are
flipped from ossa's top-left origin to Blender's bottom-left (v' = 1 - v).
"""

import bpy
import numpy as np


def _merge_map(pos, idx, wts):
    """For each vertex the first vertex with the same position and skin, as
    (unique index per vertex, index of the kept vertices)."""
    parts = [np.ascontiguousarray(pos, np.float32).view(np.uint8).reshape(len(pos), -1)]
    if idx is not None:
        parts.append(np.ascontiguousarray(idx, np.uint32).view(np.uint8).reshape(len(pos), -1))
        parts.append(np.ascontiguousarray(wts, np.float32).view(np.uint8).reshape(len(pos), -1))
    key = np.ascontiguousarray(np.concatenate(parts, 1))
    rows = key.view(np.dtype((np.void, key.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.argsort(first)        # kept vertices in their first appearance order
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[inverse], first[order]


def _set_geometry(me, pos, tri):
    me.vertices.add(len(pos))
    me.vertices.foreach_set("co", np.ascontiguousarray(pos, np.float32).ravel())
    n = len(tri)
    me.loops.add(3 * n)
    me.loops.foreach_set("vertex_index", np.ascontiguousarray(tri[:, (0, 2, 1)], np.int32).ravel())
    me.polygons.add(n)
    me.polygons.foreach_set("loop_start", np.arange(0, 3 * n, 3, dtype=np.int32))
    try:
        me.polygons.foreach_set("loop_total", np.full(n, 3, np.int32))
    except (AttributeError, TypeError):
        pass  # Blender 4: sizes follow from loop_start
    me.polygons.foreach_set("use_smooth", np.ones(n, bool))


def _corners(tri, values):
    """Per-loop values (loops in Blender's order) from per-vertex ones."""
    return values[tri[:, (0, 2, 1)].ravel()]


def build_mesh(model, mesh, name, merge):
    """A bpy mesh of one ossa mesh. Returns (mesh data, vertex map: the
    Blender vertex of each of the mesh's ossa vertices)."""
    first, count = mesh.first_vertex, mesh.num_vertices
    rows = slice(first, first + count)
    tri = np.asarray(mesh.triangles, np.int64) - first
    if len(tri) and (tri.min() < 0 or tri.max() >= count):
        # A triangle reaching into another mesh's vertices: keep it with
        # its own copy of the whole range (rare; the library allows it).
        rows, first, count = slice(0, model.num_vertices), 0, model.num_vertices
        tri = np.asarray(mesh.triangles, np.int64)
    pos = np.asarray(model.positions[rows, :3], np.float32)
    idx = model.joint_indices
    wts = model.joint_weights
    skin = (idx[rows], wts[rows]) if idx is not None and wts is not None else (None, None)
    vmap = np.arange(count)
    keep = vmap
    if merge and count:
        vmap, keep = _merge_map(pos, *skin)
    if merge and len(tri):
        # Triangles that merging made degenerate are dropped here, so that
        # Blender's loops stay the triangles' corners in order.
        t = vmap[tri]
        tri = tri[(t[:, 0] != t[:, 1]) & (t[:, 1] != t[:, 2]) & (t[:, 0] != t[:, 2])]
    me = bpy.data.meshes.new(name)
    _set_geometry(me, pos[keep], vmap[tri])
    uv = model.texcoords
    if uv is not None:
        layer = me.uv_layers.new(name="UVMap")
        c = np.array(_corners(tri, np.asarray(uv[rows], np.float32)[:, :2]))
        c[:, 1] = 1 - c[:, 1]
        layer.data.foreach_set("uv", c.ravel())
    colors = model.colors
    if colors is not None:
        c = np.ones((len(keep), 4), np.float32)
        col = np.asarray(colors[rows], np.float32)[keep]
        c[:, :col.shape[1]] = col[:, :4]
        if "linear_colors" not in model.flags:
            # Blender's float colours are linear; ossa's are sRGB unless
            # the model says otherwise (glTF's are linear).
            c[:, :3] = np.where(c[:, :3] <= 0.04045, c[:, :3] / 12.92,
                                ((c[:, :3] + 0.055) / 1.055) ** 2.4)
        attr = me.color_attributes.new("Color", "FLOAT_COLOR", "POINT")
        attr.data.foreach_set("color", c.ravel())
    me.update(calc_edges=True)
    me.validate(clean_customdata=False)
    normals = model.normals
    if normals is not None and len(me.loops):
        if hasattr(me, "use_auto_smooth"):
            me.use_auto_smooth = True  # Blender < 4.1 keeps custom normals only so
        n = np.asarray(normals[rows], np.float32)[:, :3]
        lv = np.empty(len(me.loops), np.int32)
        me.loops.foreach_get("vertex_index", lv)
        # Per loop (a merged vertex keeps the normal of each corner).
        if merge:
            ln = _corners(tri, n)
            ln = ln[:len(lv)] if len(ln) == len(lv) else n[keep][lv]
        else:
            ln = n[lv]
        me.normals_split_custom_set(np.ascontiguousarray(ln, np.float32))
    return me, vmap, keep, skin


def add_vertex_groups(obj, bone_names, skin, keep):
    """Vertex groups named after the bones, with each vertex's weights.
    Blender has no bulk call for vertex groups: weights are added with
    one call per distinct (joint, weight), grouping the vertices."""
    idx, wts = skin
    if idx is None:
        return
    idx = np.asarray(idx)[keep].astype(np.int64)
    wts = np.asarray(wts, np.float32)[keep]
    vert = np.repeat(np.arange(len(keep)), idx.shape[1])
    j, w = idx.ravel(), wts.ravel()
    use = (w > 0) & (j < len(bone_names))
    vert, j, w = vert[use], j[use], w[use]
    groups = {}
    order = np.lexsort((w, j))
    vert, j, w = vert[order], j[order], w[order]
    cut = np.flatnonzero((np.diff(j) != 0) | (np.diff(w) != 0)) + 1
    starts = np.concatenate([[0], cut]) if len(j) else np.zeros(0, np.int64)
    ends = np.concatenate([cut, [len(j)]]) if len(j) else np.zeros(0, np.int64)
    for s, e in zip(starts.tolist(), ends.tolist()):
        joint = int(j[s])
        g = groups.get(joint)
        if g is None:
            g = groups[joint] = obj.vertex_groups.new(name=bone_names[joint])
        g.add(vert[s:e].tolist(), float(w[s]), "REPLACE")


def build_objects(context, model, bone_names, armature, materials, merge, progress=None):
    """One object per ossa mesh, parented to ``armature`` (or placed at the
    origin without one) with an Armature modifier. Returns the objects."""
    objs = []
    for k, mesh in enumerate(model.meshes):
        name = mesh.name or (model.path and bpy.path.display_name_from_filepath(model.path)) or "mesh"
        me, vmap, keep, skin = build_mesh(model, mesh, name, merge)
        mat = materials.get(mesh.material)
        if mat is not None:
            me.materials.append(mat)
        obj = bpy.data.objects.new(name, me)
        context.collection.objects.link(obj)
        if armature is not None:
            obj.parent = armature
            add_vertex_groups(obj, bone_names, skin, keep)
            mod = obj.modifiers.new("Armature", "ARMATURE")
            mod.object = armature
        objs.append(obj)
        if progress:
            progress(k + 1, len(model.meshes))
    return objs
