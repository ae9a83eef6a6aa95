"""Model.info(): the summary ``ossa info --json`` prints, as a dict."""

import numpy as np

from ._model import EXTRA_MATERIAL, MODEL_SKELETON_FROM_POSES


def _extra_is_text(key):
    """SOTC .nto headers and material descriptions are short text."""
    return key.endswith(".texture") or key.startswith(EXTRA_MATERIAL)


def _f(x):
    """A float32 as the float the tool's "%.9g" reads back to (None for
    NaN and infinities, which JSON has no word for)."""
    x = float(x)
    return x if np.isfinite(x) else None


def distinct_positions(model):
    """How many distinct positions the vertices have (compared bit for bit,
    missing components 0), as ``ossa info`` counts them; 0 without any."""
    a = model.vertex_array("position")
    if a is None or model.num_vertices == 0:
        return 0
    p = np.zeros((model.num_vertices, 3), np.float32)
    values = a.decoded()
    k = min(3, values.shape[1])
    p[:, :k] = values[:, :k]
    return int(len(np.unique(p.view(np.uint32), axis=0)))


def info(model):
    d = {}
    if model.path is not None:
        d["file"] = model.path
    d["format"] = model.format
    d["front"] = model.front
    d["joints"] = model.num_joints
    d["vertices"] = model.num_vertices
    d["positions"] = distinct_positions(model)
    d["triangles"] = model.num_triangles
    d["meshes"] = [{"name": m.name, "material": m.material, "first_vertex": m.first_vertex,
                    "vertices": m.num_vertices, "first_triangle": m.first_triangle,
                    "triangles": m.num_triangles} for m in model.meshes]
    d["vertex_arrays"] = [{"type": a.type, "format": a.format, "size": a.size, "name": a.name}
                          for a in model.vertex_arrays]
    d["animations"] = [{"name": a.name, "frames": a.num_frames, "framerate": _f(a.framerate),
                        "loop": a.loop, "stored_bounds": a.bounds is not None,
                        "sampling": a.sampling}
                       for a in model.animations]
    d["skeleton"] = [{"name": n, "parent": int(p)}
                     for n, p in zip(model.joint_names, model.parents)]
    d["skeleton_from_poses"] = bool(model._m.flags & MODEL_SKELETON_FROM_POSES)
    # joints that rest otherwise than they are bound (glTF), as ossa info counts them
    d["rest_pose_joints"] = 0
    if model._m.rest_pose and model.num_joints:
        rest, bind = (np.ascontiguousarray(a).view(np.uint8).reshape(model.num_joints, -1)
                      for a in (model.rest_pose, model.bind_pose))
        d["rest_pose_joints"] = int((rest != bind).any(axis=1).sum())
    b = model.bounds()
    d["bounds"] = None if b is None else {"min": [_f(x) for x in b[0]],
                                          "max": [_f(x) for x in b[1]]}
    d["comment_size"] = len(model.comment) if model.comment is not None else 0
    extras = []
    for key, data in model.extras.items():
        e = {"key": key, "size": int(data.size)}
        if _extra_is_text(key):
            e["text"] = bytes(data).decode("utf-8", "replace")
        extras.append(e)
    d["extras"] = extras
    warnings = []
    for w in model.warnings:
        e = {"message": w.message}
        if w.line:
            e["line"], e["column"] = w.line, w.column
        elif w.offset is not None:
            e["offset"] = w.offset
        warnings.append(e)
    d["warnings"] = warnings
    return d
