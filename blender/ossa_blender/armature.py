"""The armature: one bone per joint, its rest matrix made from the joint's
bind matrix.

A Blender bone points along its own Y axis, from head to tail, and its rest
matrix holds no scale. The bone of joint j gets the head at the joint's
bind position and the orientation of the joint's bind rotation (scale and
shear removed), turned by the least rotation that brings its Y axis onto
the bone's direction:

- toward the joint's only child, when it has exactly one child away from
  its head;
- else (leaves, joints with several children or one at the same place)
  along the joint's own Y axis.

So a joint whose Y axis already points at its child keeps its
orientation, and every other bone keeps the joint's: import then export
gives back the same joints (export writes bones as joints), and a root that
a format adds above the skeleton (MD5's origin) changes no bone. A leaf of
a rig whose bones run along X (Maya's habit) points sideways: the price of
that.

Tails of bones with a child are at the child's head;
other bones are a twentieth of the skeleton's size long (the largest side
of the box round the bind heads), half their parent's length when that is
shorter.
"""

import bpy
import numpy as np
from mathutils import Matrix

from . import mathutil as mu


def bone_directions(bind, parents):
    """(J, 3) unit directions and (J,) lengths of the bones (None where the
    rule is an axis and the length is to be chosen)."""
    n = len(parents)
    heads = bind[:, :3, 3]
    axes = mu.orthonormal(bind[:, :3, :3]) if n else np.zeros((0, 3, 3))
    children = [[] for _ in range(n)]
    for j, p in enumerate(parents):
        if p >= 0:
            children[p].append(j)
    size = float(np.ptp(heads, axis=0).max()) if n else 0.0
    eps = max(size, 1e-6) * 1e-5
    dirs = np.zeros((n, 3))
    lengths = np.zeros(n)
    for j in range(n):
        kids = children[j]
        if len(kids) == 1:
            d = heads[kids[0]] - heads[j]
            length = float(np.linalg.norm(d))
            if length > eps:
                dirs[j] = d / length
                lengths[j] = length
                continue
        dirs[j] = axes[j][:, 1]
        lengths[j] = -1  # chosen below, from the parent's length
    default = max(size, 1e-3) / 20
    for j in range(n):
        if lengths[j] < 0:
            p = parents[j]
            half = lengths[p] / 2 if p >= 0 and lengths[p] > 0 else default
            lengths[j] = min(default, half) if half > 0 else default
    return dirs, lengths


def rest_matrices(bind, parents):
    """(J, 4, 4) rest matrices of the bones (armature space) and (J,)
    lengths for the joints' bind matrices ``bind`` (J, 4, 4)."""
    n = len(parents)
    if n == 0:
        return np.zeros((0, 4, 4)), np.zeros(0)
    dirs, lengths = bone_directions(bind, parents)
    rot = mu.orthonormal(bind[:, :3, :3])
    turn = mu.rotation_between(rot[:, :, 1], dirs)
    rest = np.zeros((n, 4, 4))
    rest[:, :3, :3] = turn @ rot
    rest[:, :3, 3] = bind[:, :3, 3]
    rest[:, 3, 3] = 1
    return rest, lengths


def bone_names(model):
    """Bone names: the joint's, or joint<index> where it has none (Blender
    needs one); Blender itself makes clashing names unique."""
    return [n if n else "joint%d" % j for j, n in enumerate(model.joint_names)]


def build(context, model, name, matrix_world):
    """Makes the armature object of ``model`` in the active collection.
    Returns (object, bone names in joint order, rest matrices as Blender
    stored them (J, 4, 4))."""
    bind = np.asarray(model.bind_matrices, np.float64)
    parents = np.asarray(model.parents)
    rest, lengths = rest_matrices(bind, parents)
    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    context.collection.objects.link(obj)
    obj.matrix_world = matrix_world
    data.display_type = "STICK"
    view_layer = context.view_layer
    previous = view_layer.objects.active
    view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    names = []
    try:
        edit = data.edit_bones
        for j, wanted in enumerate(bone_names(model)):
            eb = edit.new(wanted)
            eb.head = (0.0, 0.0, 0.0)
            eb.tail = (0.0, float(lengths[j]), 0.0)
            eb.matrix = Matrix(rest[j].tolist())  # rows
            if parents[j] >= 0:
                eb.parent = edit[names[parents[j]]]
            names.append(eb.name)
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
        view_layer.objects.active = previous if previous is not None else obj
    return obj, names, stored_rest(obj, names)


def stored_rest(obj, names):
    """The bones' rest matrices (armature space) as Blender keeps them, in
    the order of ``names``: what posing is relative to."""
    bones = obj.data.bones
    n = len(bones)
    flat = np.empty(n * 16, np.float32)
    bones.foreach_get("matrix_local", flat)
    # foreach_get gives each matrix column by column.
    by_name = {b.name: k for k, b in enumerate(bones)}
    m = flat.reshape(n, 4, 4).transpose(0, 2, 1).astype(np.float64)
    return m[[by_name[nm] for nm in names]] if n else m
