"""The picture of the README's Blender section: a model imported with the
add-on, posed at the middle of an action, drawn by Cycles (CPU) from the
front left.

usage: blender -b --factory-startup --python blender/screenshot.py --
       MODEL ACTION OUT.png   (with the add-on installed, or
       PYTHONPATH=blender:python OSSA_LIBRARY_PATH=build)"""
import sys

import bpy
import mathutils

model, action, out = sys.argv[sys.argv.index("--") + 1:]
try:
    import ossa_blender  # installed, or on PYTHONPATH
except ImportError:
    sys.exit("screenshot.py: the ossa_blender add-on is not installed or on PYTHONPATH")
if "ossa_blender" not in bpy.context.preferences.addons:
    ossa_blender.register()
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
bpy.ops.import_scene.ossa(filepath=model)
scene = bpy.context.scene
arm = [o for o in bpy.data.objects if o.type == "ARMATURE"][0]
act = bpy.data.actions.get(action) or arm.animation_data.action
arm.animation_data.action = act
scene.frame_set(int(sum(act.frame_range) / 2))
cam = bpy.data.objects.new("cam", bpy.data.cameras.new("cam"))
scene.collection.objects.link(cam); scene.camera = cam
sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
sun.data.energy = 3; sun.rotation_euler = (0.7, 0.2, 0.6); scene.collection.objects.link(sun)
dg = bpy.context.evaluated_depsgraph_get()
pts = [o.matrix_world @ v.co for o in bpy.data.objects if o.type == "MESH" for v in o.evaluated_get(dg).data.vertices]
lo = mathutils.Vector([min(p[i] for p in pts) for i in range(3)]); hi = mathutils.Vector([max(p[i] for p in pts) for i in range(3)])
c = (lo + hi) / 2; r = (hi - lo).length
cam.location = c + mathutils.Vector((0.9, -1.6, 0.5)).normalized() * r * 1.3
cam.rotation_euler = (c - cam.location).to_track_quat("-Z", "Y").to_euler()
world = bpy.data.worlds.new("w"); world.color = (0.8, 0.82, 0.85); scene.world = world
scene.render.engine = "CYCLES"; scene.cycles.samples = 24; scene.cycles.device = "CPU"; scene.cycles.use_denoising = False
scene.render.resolution_x, scene.render.resolution_y = 480, 480
scene.render.filepath = out
bpy.ops.render.render(write_still=True)
