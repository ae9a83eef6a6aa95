"""Run inside Blender (blender -b --factory-startup --python check_gltf.py --
FILE NOANIM GLTF_DUMP OUT.json): imports FILE with Blender's glTF add-on and
compares it with ossa (tests/blender/gltf_dump.c): every joint's position
and every vertex's, meshes hanging under joints among them, at rest and at
every key of every animation, within 1e-4 of the model's size. Writes a
JSON report to OUT.json.

At rest: Blender 3.4 shows a glTF file's node transforms only when the
file has no animation (with one it shows the first action's frame), so
NOANIM, the same file without its animations, is imported for that, and
its bones' pose is then given to FILE's armature before each frame (an
action leaves the channels it does not key as they were). Key times are
Blender frames at the scene's rate (frame = seconds x fps); ossa's pose is
sampled at those seconds. Both sides are Z-up (Blender's glTF import and
ossa map glTF's Y-up the same way). Vertices are matched at rest, each of
Blender's to ossa's at its position (the nearest of them in each pose)."""
import json
import subprocess
import sys

import numpy
numpy.bool = bool  # Debian's numpy with Blender 3.4's add-on
import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
path, noanim, dump, out_json = argv
report = {"file": path, "checks": [], "ok": True}


def load(p):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=p)
    scene = bpy.context.scene
    arm = next((o for o in scene.objects if o.type == "ARMATURE"), None)
    meshes = sorted((o for o in scene.objects if o.type == "MESH"), key=lambda o: o.name)
    return scene, arm, meshes


def vertices(meshes):
    dg = bpy.context.evaluated_depsgraph_get()
    out = []
    for o in meshes:
        ev = o.evaluated_get(dg)
        me = ev.to_mesh()
        out += [list(o.matrix_world @ v.co) for v in me.vertices]
        ev.to_mesh_clear()
    return numpy.array(out).reshape(-1, 3)


def joints(arm):
    return {pb.name: numpy.array(arm.matrix_world @ pb.head) for pb in arm.pose.bones} if arm else {}


def ossa(*poses):
    res = subprocess.run([dump, path] + list(poses), capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit("gltf_dump: " + res.stderr)
    return json.loads(res.stdout)


def compare(label, bl_verts, bl_joints, pose, names, match, tol):
    ov = numpy.array(pose["vertices"]).reshape(-1, 3)
    worst_v = 0.0
    for b, cands in zip(bl_verts, match):  # the nearest of the vertices at its rest position
        worst_v = max(worst_v, float(numpy.abs(ov[cands] - b).max(axis=1).min()))
    worst_j, worst_name = 0.0, ""
    for i, n in enumerate(names):
        if n in bl_joints:
            d = float(numpy.abs(bl_joints[n] - numpy.array(pose["joints"][i])).max())
            if d > worst_j:
                worst_j, worst_name = d, n
    ok = worst_v <= tol and worst_j <= tol
    report["checks"].append({"what": label, "vertices": worst_v, "joints": worst_j,
                             "worst_joint": worst_name, "ok": ok})
    report["ok"] &= ok


# -- At rest --
scene, arm, meshes = load(noanim)
rest_v, rest_j = vertices(meshes), joints(arm)
rest_basis = {pb.name: pb.matrix_basis.copy() for pb in arm.pose.bones} if arm else {}
o = ossa()
ov = numpy.array(o["rest"]["vertices"]).reshape(-1, 3)
size = float(numpy.linalg.norm(ov.max(0) - ov.min(0))) if len(ov) else 1.0
tol = 1e-4 * size
# Each Blender vertex -> ossa's vertices at its rest position (within 1e-6
# of the size; the nearest when none): vertices of different joints may
# meet at rest (robot's joints), and only posing tells them apart.
match = []
for p in rest_v:
    d = numpy.linalg.norm(ov - p, axis=1)
    near = numpy.nonzero(d <= 1e-6 * size)[0]
    match.append(near if len(near) else numpy.array([int(d.argmin())]))
report.update({"size": size, "tolerance": tol, "blender_vertices": len(rest_v),
               "ossa_vertices": len(ov), "blender_bones": len(rest_j)})
compare("rest", rest_v, rest_j, o["rest"], o["names"], match, tol)

# -- Every key of every animation --
scene, arm, meshes = load(path)
fps = scene.render.fps / scene.render.fps_base
keys = {}
if arm:
    for i, name in enumerate(o["animations"]):
        action = bpy.data.actions.get("%s_%s" % (name, arm.name))
        if action is None and len(o["animations"]) == 1 and len(bpy.data.actions) == 1:
            action = bpy.data.actions[0]
        if action is None:
            report["checks"].append({"what": "animation '%s': no action in Blender" % name,
                                     "vertices": 0, "joints": 0, "worst_joint": "", "ok": False})
            report["ok"] = False
            continue
        keys[i] = (action, sorted({k.co[0] for fc in action.fcurves for k in fc.keyframe_points}))
asks = ["%d:%.9g" % (i, f / fps) for i, (_, frames) in keys.items() for f in frames]
poses = ossa(*asks)["poses"] if asks else {}
frames_checked = 0
for i, (action, frames) in keys.items():
    arm.animation_data.action = action
    for f in frames:
        for pb in arm.pose.bones:
            pb.matrix_basis = rest_basis[pb.name]
        scene.frame_set(int(f // 1), subframe=float(f - f // 1))
        compare("%s frame %g" % (action.name, f), vertices(meshes), joints(arm),
                poses["%d:%.9g" % (i, f / fps)], o["names"], match, tol)
        frames_checked += 1
report["key_frames"] = frames_checked
json.dump(report, open(out_json, "w"), indent=1)
