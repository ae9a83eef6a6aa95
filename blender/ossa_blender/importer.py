"""Import: the files loaded and merged by the ossa package, then the
armature, materials, meshes and actions built from the model."""

import os
import warnings

import bpy
import numpy as np

from . import actions, armature, materials, meshes
from ._pkg import ossa

# Files that only add to a model loaded before them (merged last), and
# skeletons that meshes are merged into (loaded first): the order ossa
# convert and ossa pose take their inputs in.
ANIMATION_ONLY = (".md5anim", ".anb", ".illanim", ".illanset", ".bvh", ".ossaclip")
SKELETONS = (".skb", ".illskel")


def input_order(paths):
    """Skeletons first, then models, then animation files; otherwise the
    order given. SMD sequences and animation-only IQM files are models to
    ossa (merged after the first), so a file with triangles goes first."""
    def rank(p):
        ext = os.path.splitext(p)[1].lower()
        return 0 if ext in SKELETONS else 2 if ext in ANIMATION_ONLY else 1
    ranked = sorted(paths, key=rank)
    models = [p for p in ranked if rank(p) == 1]
    if len(models) > 1:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with_mesh = [p for p in models if ossa.load(p).num_triangles > 0]
        first = with_mesh[0] if with_mesh else models[0]
        ranked.remove(first)
        at = sum(1 for p in ranked if rank(p) == 0)
        ranked.insert(at, first)
    return ranked


def load_options(paths, fps=0, obj_axes="blender"):
    """ossa.load's options for these files. A model that rests otherwise
    than it is bound (a glTF skin bound lying down) has its mesh skinned into
    the rest pose, which an armature's rest then holds: the character stands
    as ossa and other viewers show it."""
    options = {"fps": fps} if fps else {}
    options["apply_rest_pose"] = True
    if any(p.lower().endswith(".obj") for p in paths):
        options["obj_axes"] = obj_axes
    return options


def load(paths, report, fps=0, obj_axes="blender"):
    """The merged model; warnings go to ``report`` ({'WARNING'}, text)."""
    options = load_options(paths, fps, obj_axes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ossa.load(input_order(paths) if len(paths) > 1 else paths[0], **options)
    for w in caught:
        report({"WARNING"}, str(w.message))
    return model


def chosen_animations(model, names):
    """The animations to import: all, or those named (comma-separated
    names or indices) in ``names``."""
    if not names.strip():
        return list(model.animations)
    out = []
    for n in (x.strip() for x in names.split(",")):
        if n:
            out.append(model.animations[model.animation_index(n)])
    return out


def set_scene_rate(scene, rate):
    fps = max(1, int(round(rate)))
    scene.render.fps = fps
    scene.render.fps_base = fps / rate


def import_files(context, paths, report, *, global_matrix, animations="", merge_vertices=False,
                 import_materials=True, set_frame_rate=True, start_frame=1, fps=0,
                 obj_axes="blender"):
    """Builds the scene objects of ``paths`` (merged into one model).
    Returns the objects made."""
    wm = context.window_manager
    model = load(paths, report, fps, obj_axes)
    name = bpy.path.display_name_from_filepath(paths[0]) or "ossa"
    anims = chosen_animations(model, animations) if model.num_joints else []
    steps = 3 + len(model.meshes) + len(anims)
    wm.progress_begin(0, steps)
    try:
        arm, bone_names, rest = None, [], None
        if model.num_joints:
            arm, bone_names, rest = armature.build(context, model, name, global_matrix)
        wm.progress_update(1)
        mats = materials.build(model, import_materials)
        wm.progress_update(2)
        objs = meshes.build_objects(context, model, bone_names, arm, mats, merge_vertices,
                                    lambda k, n: wm.progress_update(2 + k))
        if arm is None:
            for o in objs:
                o.matrix_world = global_matrix
        scene = context.scene
        if anims:
            rates = [a.framerate for a in anims if a.framerate > 0]
            rate = rates[0] if rates else 30.0
            if set_frame_rate:
                set_scene_rate(scene, rate)
            scene_fps = scene.render.fps / scene.render.fps_base
            bind = np.asarray(model.bind_matrices, np.float64)
            made = []
            for k, a in enumerate(anims):
                made.append(actions.build(model, a, bone_names, bind, rest, scene_fps, start_frame))
                wm.progress_update(3 + len(model.meshes) + k)
            arm.animation_data_create()
            arm.animation_data.action = made[0]
            scene.frame_start = int(made[0].frame_range[0])
            scene.frame_end = int(np.ceil(made[0].frame_range[1]))
        for o in context.view_layer.objects:
            o.select_set(False)
        new = ([arm] if arm else []) + objs
        for o in new:
            o.select_set(True)
        if new:
            context.view_layer.objects.active = new[0]
        return new
    finally:
        wm.progress_end()
