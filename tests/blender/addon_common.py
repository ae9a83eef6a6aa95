"""Shared by the add-on checks that run inside Blender: installing the
add-on zip, emptying the scene, finding what an import made, and reading
`ossa pose --json`."""

import json
import re

import bpy
import numpy as np


def install(zip_path):
    """Installs and enables the zip as a user would (Blender's add-on
    installer, into BLENDER_USER_SCRIPTS), and returns the add-on module."""
    bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
    bpy.ops.preferences.addon_enable(module="ossa_blender")
    import ossa_blender
    return ossa_blender


def empty_scene():
    for coll in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions,
                 bpy.data.materials, bpy.data.images):
        for x in list(coll):
            coll.remove(x)
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0


def base_name(name):
    return re.sub(r"\.\d{3}$", "", name)


def in_creation_order(items, names):
    """The items (named bpy data) for wanted ``names`` in order: Blender
    numbers clashing names .001, .002 in the order they were made."""
    pool = sorted(items, key=lambda x: x.name)
    out = []
    for n in names:
        n = n[:63]
        x = next((x for x in pool if x.name == n), None) or \
            next((x for x in pool if base_name(x.name) == n), None)
        if x is None:
            return None
        pool.remove(x)
        out.append(x)
    return out


def pose(path):
    """Joint names, model matrices (J, 4, 4) [row, column] of a pose JSON."""
    p = json.load(open(path))
    names = [j["name"] for j in p["joints"]]
    m = np.array([j["model"] for j in p["joints"]], np.float64).reshape(-1, 4, 4)
    return names, m.transpose(0, 2, 1)


def matrices(collection, prop, n):
    """(n, 4, 4) [row, column] of a matrix property of every item."""
    flat = np.empty(n * 16, np.float32)
    collection.foreach_get(prop, flat)
    return flat.reshape(n, 4, 4).transpose(0, 2, 1).astype(np.float64)


def vertices(obj, evaluated):
    """(n, 3) object-space vertex positions, deformed when ``evaluated``."""
    if evaluated:
        obj = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    me = obj.data
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    return co.reshape(-1, 3).astype(np.float64)
