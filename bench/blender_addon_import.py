"""Run inside Blender (see blender_addon_import.sh): the add-on's import of
a model against Blender's own glTF importer on the same model as .glb, in
one Blender process, rounds taken in turn. Each round starts from an empty
scene (objects, meshes, armatures, actions, materials and images removed)
and times one operator call (wall clock, time.perf_counter). Prints the
rounds and the medians.

usage: blender -b --factory-startup --python blender_addon_import.py --
       ADDON.zip MODEL GLB ROUNDS"""
import statistics
import sys
import time

import bpy
import numpy

argv = sys.argv[sys.argv.index("--") + 1:]
zip_path, model, glb, rounds = argv[0], argv[1], argv[2], int(argv[3])
# Debian's numpy 1.24 has no numpy.bool, which Blender 3.4's glTF add-on uses.
numpy.bool = bool
bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="ossa_blender")
bpy.ops.preferences.addon_enable(module="io_scene_gltf2")


def empty():
    for coll in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions,
                 bpy.data.materials, bpy.data.images):
        for x in list(coll):
            coll.remove(x)


def timed(call):
    empty()
    t = time.perf_counter()
    res = call()
    dt = time.perf_counter() - t
    assert res == {"FINISHED"}, res
    counts = (len(bpy.data.actions), sum(len(m.vertices) for m in bpy.data.meshes))
    return dt, counts


times = {"ossa": [], "gltf": []}
for k in range(rounds):
    for name, call in (("ossa", lambda: bpy.ops.import_scene.ossa(filepath=model)),
                       ("gltf", lambda: bpy.ops.import_scene.gltf(filepath=glb))):
        dt, counts = timed(call)
        times[name].append(dt)
        print("round %d: %s %.3f s (%d actions, %d vertices)" % (k + 1, name, dt, *counts))
for name, t in times.items():
    print("median %s: %.3f s over %d rounds (%s)" % (name, statistics.median(t), len(t),
                                                   ", ".join("%.2f" % x for x in t)))
