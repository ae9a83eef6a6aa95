"""Actions: one per animation, keyed on every frame of the file.

A pose bone's matrix_basis is relative to its rest bone: Blender computes
the bone's armature-space matrix as

    pose_j = pose_parent @ rest_parent^-1 @ rest_j @ basis_j

and the bone should follow the joint: pose_j = M_j @ B_j^-1 @ rest_j, with
M_j the joint's model matrix at that frame and B_j its bind matrix (then
pose_j @ rest_j^-1, the matrix Blender skins with, is ossa's skinning
matrix M_j @ B_j^-1). With M_j = M_parent @ L_j (L_j the file's
parent-relative transform) that gives, per joint and frame,

    basis_j = rest_j^-1 @ B_parent @ L_j @ B_j^-1 @ rest_j

(B_parent the identity for a root), computed for every frame and joint at
once with numpy and split into location, rotation (quaternion, signs kept
continuous) and scale. Channels whose value never changes get one key.
"""

import bpy
import numpy as np

from . import mathutil as mu

LINEAR = 1    # bpy.types.Keyframe interpolation: CONSTANT 0, LINEAR 1, BEZIER 2


def basis_frames(model, animation, bind, rest):
    """(F, J, 4, 4) matrix_basis of every bone at every frame."""
    frames = animation.frames
    parents = np.asarray(model.parents)
    local = mu.trs_to_mat(frames["translation"], frames["rotation"], frames["scale"])
    bp = np.where((parents >= 0)[:, None, None], bind[np.maximum(parents, 0)], np.eye(4))
    left = mu.inverse(rest) @ bp                 # (J, 4, 4)
    right = mu.inverse(bind) @ rest
    return left[None] @ local @ right[None]


def _fcurve(action, path, index, group, frames, values, constant):
    fc = action.fcurves.new(path, index=index, action_group=group)
    if constant:
        frames, values = frames[:1], values[:1]
    kp = fc.keyframe_points
    kp.add(len(frames))
    co = np.empty((len(frames), 2), np.float32)
    co[:, 0], co[:, 1] = frames, values
    kp.foreach_set("co", co.ravel())
    kp.foreach_set("interpolation", np.full(len(frames), LINEAR, np.int8))
    # No fc.update(): the keys are in order already and linear keys use no
    # handles; it would only sort them and compute handles again.


def build(model, animation, bone_names, bind, rest, scene_fps, start):
    """An Action for ``animation``: key k at scene frame start + k * scene
    rate / the animation's rate (files without a rate play at 30)."""
    basis = basis_frames(model, animation, bind, rest)
    t, q, s = mu.mat_to_trs(basis)
    q = mu.continuous(q, axis=0)
    rate = animation.framerate if animation.framerate > 0 else 30.0
    frames = start + np.arange(animation.num_frames) * (scene_fps / rate)
    # Every channel of every bone as a contiguous row: (J, 10, F), the
    # quaternion in Blender's order w x y z.
    channels = np.concatenate([t, q[..., (3, 0, 1, 2)], s], axis=2).transpose(1, 2, 0).copy()
    constant = (channels.max(axis=2) == channels.min(axis=2)) if len(frames) else \
        np.ones(channels.shape[:2], bool)
    action = bpy.data.actions.new(animation.name or "animation")
    action.use_fake_user = True
    paths = ("location",) * 3 + ("rotation_quaternion",) * 4 + ("scale",) * 3
    indices = (0, 1, 2, 0, 1, 2, 3, 0, 1, 2)
    for j, name in enumerate(bone_names):
        base = 'pose.bones["%s"].' % bpy.utils.escape_identifier(name)
        for c in range(10):
            _fcurve(action, base + paths[c], indices[c], name, frames, channels[j, c],
                    constant[j, c])
    action.use_frame_range = True
    last = frames[-1] if len(frames) else start
    action.frame_start, action.frame_end = start, max(last, start)
    action.use_cyclic = bool(animation.loop)
    return action
