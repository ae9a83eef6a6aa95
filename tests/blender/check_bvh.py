"""Run inside Blender (blender -b --factory-startup --python check_bvh.py --
FILE.bvh OSSA_DIR OUT.json): imports FILE with Blender's BVH add-on
(default options) and compares every bone with ossa's joint of the same
name at three frames of the action, read from OSSA_DIR/FRAME.json (`ossa
pose FILE --frame FRAME --json`). Writes a JSON report to OUT.json.

Axes (docs/formats/bvh.md §3): Blender's default import turns the file's
Y-up data by axis_conversion(-Z, Y), (x, y, z) -> (x, -z, y), and applies
it to the armature; ossa maps every vector the same way and conjugates the
rotations, so a joint's rest rotation stays the identity. A Blender bone
has a rest orientation of its own (Y along the bone): the rotation
compared is pose_bone.matrix * bone.matrix_local^-1 (the world change from
rest), which is ossa's model-space rotation itself, and the position is
the bone's head, ossa's model-space translation. File frame F is Blender's
scene frame F + 1. Tolerance: 1e-5 relative (positions: of the skeleton's
size; rotation matrix elements: absolute)."""
import builtins
import json
import os
import sys

import bpy
from io_anim_bvh import import_bvh

argv = sys.argv[sys.argv.index("--") + 1:]
path, ossa_dir, out_json = argv

# Blender 3.4's add-on opens the file with mode 'rU', which Python 3.11
# refuses: the same call without the 'U'.
import_bvh.open = lambda p, mode="r", *a, **k: builtins.open(p, mode.replace("U", ""), *a, **k)

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_anim.bvh(filepath=path)
scene = bpy.context.scene
arm = next(o for o in scene.objects if o.type == "ARMATURE")

frames = sorted(int(f[:-5]) for f in os.listdir(ossa_dir) if f.endswith(".json"))
poses = {f: json.load(open(os.path.join(ossa_dir, "%d.json" % f))) for f in frames}
joints0 = {j["name"]: j for j in poses[frames[0]]["joints"]}
heads = [joints0[b.name]["model"][12:15] for b in arm.data.bones if b.name in joints0]
size = max(max(h[k] for h in heads) - min(h[k] for h in heads) for k in range(3))
tol_pos = 1e-5 * size
tol_rot = 1e-5

report = {"file": path, "ok": True, "bones": len(arm.data.bones), "frames": frames,
          "size": size, "tolerance": tol_pos, "worst_position": 0.0, "worst_rotation": 0.0,
          "missing": [], "failures": []}
for f in frames:
    scene.frame_set(f + 1)
    joints = {j["name"]: j for j in poses[f]["joints"]}
    for pb in arm.pose.bones:
        j = joints.get(pb.name)
        if j is None:
            report["missing"].append(pb.name)
            report["ok"] = False
            continue
        m = j["model"]  # column-major 4x4
        world = arm.matrix_world @ pb.matrix
        delta = (world @ pb.bone.matrix_local.inverted()).to_3x3()
        head = arm.matrix_world @ pb.head
        dp = max(abs(head[k] - m[12 + k]) for k in range(3))
        dr = max(abs(delta[r][c] - m[c * 4 + r]) for r in range(3) for c in range(3))
        report["worst_position"] = max(report["worst_position"], dp)
        report["worst_rotation"] = max(report["worst_rotation"], dr)
        if dp > tol_pos or dr > tol_rot:
            report["ok"] = False
            if len(report["failures"]) < 20:
                report["failures"].append({"frame": f, "bone": pb.name, "position": dp,
                                           "rotation": dr})
json.dump(report, open(out_json, "w"), indent=1)
