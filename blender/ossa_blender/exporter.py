"""Export: what gather.py reads from Blender, given to the ossa package's
ModelBuilder, then written with Model.save in the chosen format."""

import warnings

import bpy
import numpy as np

from . import gather
from . import mathutil as mu
from ._pkg import ossa

# Format name (ossa's) -> (label, extension).
FORMATS = {
    "iqm": ("IQM", ".iqm"), "iqe": ("IQE", ".iqe"), "md5mesh": ("MD5", ".md5mesh"),
    "smd": ("SMD", ".smd"), "illmesh": ("illEngine ASCII", ".illmesh"), "glb": ("glTF binary", ".glb"),
    "gltf": ("glTF", ".gltf"), "bvh": ("BVH", ".bvh"), "fbx": ("FBX", ".fbx"), "obj": ("OBJ", ".obj"),
}


def targets(context):
    """The armature and mesh objects to export: the selected armature (or
    the one the selected meshes are deformed by or parented to) and the
    meshes it deforms; without an armature, the selected meshes."""
    sel = context.selected_objects or ([context.active_object] if context.active_object else [])
    arm = next((o for o in sel if o.type == "ARMATURE"), None)
    if arm is None:
        for o in sel:
            if o.type == "MESH":
                arm = next((m.object for m in o.modifiers if m.type == "ARMATURE" and m.object),
                           o.parent if o.parent and o.parent.type == "ARMATURE" else None)
                if arm is not None:
                    break
    if arm is None:
        return None, [o for o in sel if o.type == "MESH"]
    objs = [o for o in context.scene.objects if o.type == "MESH" and (
        o.parent == arm or any(m.type == "ARMATURE" and m.object == arm for m in o.modifiers))]
    return arm, sorted(objs, key=lambda o: o.name)


def chosen_actions(arm, names):
    """Actions to export: those named (comma-separated), else the
    armature's action, else every action whose channels name its bones."""
    if names.strip():
        out = []
        for n in (x.strip() for x in names.split(",") if x.strip()):
            a = bpy.data.actions.get(n)
            if a is None:
                raise ValueError("no action named '%s'" % n)
            out.append(a)
        return out
    bones = {b.name for b in arm.data.bones}
    acts = [a for a in bpy.data.actions
            if any(fc.data_path.startswith('pose.bones["') and
                   fc.data_path.split('"')[1] in bones for fc in a.fcurves)]
    return acts


def _transforms(t, q, s):
    out = np.zeros(t.shape[:-1], ossa.TRANSFORM)
    out["translation"], out["rotation"], out["scale"] = t, q, s
    return out


# What a mesh without an attribute others have gets (the model has one set
# of vertex arrays for all its meshes).
_FILL = {"texcoords": (2, np.float32, 0), "colors": (4, np.uint8, 255),
         "joint_indices": (4, np.int64, 0), "joint_weights": (4, np.float32, 0)}


def same_attributes(meshes):
    keys = set().union(*(m.keys() for m in meshes)) if meshes else set()
    for m in meshes:
        for k in keys - set(m):
            size, dtype, value = _FILL[k]
            m[k] = np.full((len(m["positions"]), size), value, dtype)
    return meshes


def build(context, *, conv, scale=1.0, actions="", fps=0.0, animations=True,
          apply_modifiers=True, colors=False):
    """The ossa.Model of what would be exported."""
    arm, objs = targets(context)
    if arm is None and not objs:
        raise ValueError("select an armature or meshes to export")
    conv = np.array(conv, np.float64)
    builder = ossa.ModelBuilder()
    names = []
    if arm is not None:
        names, parents, bind = gather.skeleton(arm, conv, scale)
        t, q, s = gather.local_transforms(bind, parents)
        builder.add_joints(names, parents, _transforms(t, q, s))
        if animations:
            for act in chosen_actions(arm, actions):
                frames, rate = gather.action_frames(context.scene, act, fps)
                m = gather.poses(context, arm, act, frames, conv, scale)
                t, q, s = gather.local_transforms(m, parents)
                builder.add_animation(act.name, _transforms(t, mu.continuous(q, 0), s),
                                      framerate=rate, loop=bool(getattr(act, "use_cyclic", False)))
    for arrays in same_attributes(gather.meshes(context, arm, objs, conv, scale, names, colors,
                                                apply_modifiers)):
        name, material = arrays.pop("name"), arrays.pop("material")
        pos, tri = arrays.pop("positions"), arrays.pop("triangles")
        builder.add_mesh(pos, tri, name=name, material=material, **arrays)
    return builder.build()


def export(context, path, fmt, report, *, bounds="conservative", options=None, **gathering):
    """Writes the file(s); warnings of the build and write go to ``report``.
    Returns the paths written."""
    options = dict(options or {})
    if fmt == "obj":
        # Blender's OBJ axes, as the import reads OBJ by default.
        options.setdefault("obj_axes", "blender")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = build(context, **gathering)
        written = model.save(path, format=fmt, bounds=bounds, **options)
    for w in caught:
        report({"WARNING"}, str(w.message))
    return written
