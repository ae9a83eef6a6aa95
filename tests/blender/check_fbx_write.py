"""Run inside Blender (blender -b --factory-startup --python check_fbx_write.py --
FILE.fbx OSSA.json OUT.json): imports an FBX file that ossa wrote with
Blender's FBX add-on and compares it with what ossa says of the model it
came from (tests/blender/fbx_write_dump.c):

- bones: every joint is a bone of that name, and its model-space matrix
  (armature world times the bone's matrix) equals ossa's at the bind pose
  (Blender's rest position) and at the first, middle and last frame of
  every animation, within 1e-4 of the model's size (translations) and 1e-4
  (the rotation and scale part);
- actions: one per animation, named "ARMATURE|NAME", over frames 1 to
  1 + (n - 1) x scene rate / animation rate, the scene rate being the
  file's;
- vertex groups: each mesh has as many vertices as ossa's mesh uses and a
  group per joint that weighs on it, holding the same sum of weights.

Writes a JSON report to OUT.json."""
import json
import sys

import numpy
numpy.bool = bool  # Debian's numpy with Blender 3.4's add-on
import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
path, ossa_json, out_json = argv
ossa = json.load(open(ossa_json))
report = {"file": path, "checks": [], "ok": True}


def check(what, ok, detail=""):
    report["checks"].append({"what": what, "ok": bool(ok), "detail": detail})
    if not ok:
        report["ok"] = False


bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=path)
scene = bpy.context.scene
arm = next((o for o in scene.objects if o.type == "ARMATURE"), None)
names = ossa["names"]
bind = [numpy.array(m).reshape(4, 4).T for m in ossa["bind"]]  # column-major -> rows
pts = numpy.array([m[:3, 3] for m in bind]) if bind else numpy.zeros((1, 3))
size = max(float(numpy.linalg.norm(pts.max(0) - pts.min(0))), 1.0)
tol = 1e-4 * size
report["tolerance"] = tol


def compare_bones(label, want, rest):
    if not names:
        return
    if not arm:
        check(label, False, "no armature in Blender's import")
        return
    worst, worst_name = 0.0, ""
    for i, n in enumerate(names):
        if rest:
            b = arm.data.bones.get(n)
            m = arm.matrix_world @ b.matrix_local if b else None
        else:
            pb = arm.pose.bones.get(n)
            m = arm.matrix_world @ pb.matrix if pb else None
        if m is None:
            check(label, False, "no bone '%s'" % n)
            return
        got = numpy.array(m)
        d = max(float(numpy.abs(got[:3, 3] - want[i][:3, 3]).max()) / tol * 1e-4,
                float(numpy.abs(got[:3, :3] - want[i][:3, :3]).max()))
        if d > worst:
            worst, worst_name = d, n
    check(label, worst <= 1e-4, "largest difference %.3g at '%s'" % (worst, worst_name))


if arm:
    arm.data.pose_position = "REST"
compare_bones("bind pose", bind, True)
check("bones: %d in Blender, %d joints" % (len(arm.data.bones) if arm else 0, len(names)),
      (len(arm.data.bones) if arm else 0) == len(names))

scene_fps = scene.render.fps / scene.render.fps_base
check("scene rate %.6g, the file's %.6g" % (scene_fps, ossa["fps"]), abs(scene_fps - ossa["fps"]) < 1e-3)
actions = {a.name.split("|", 1)[-1]: a for a in bpy.data.actions}
if arm:
    arm.data.pose_position = "POSE"
for anim in ossa["animations"]:
    action = actions.get(anim["name"])
    if not action or not arm:
        check("action %s" % anim["name"], False, "not imported")
        continue
    step = scene_fps / anim["fps"]
    last = 1 + (anim["frames"] - 1) * step
    lo, hi = action.frame_range
    check("action %s: frames %g to %g, expected 1 to %g" % (anim["name"], lo, hi, last),
          abs(lo - 1) < 1e-3 and abs(hi - last) < 1e-3)
    if arm.animation_data is None:
        arm.animation_data_create()
    arm.animation_data.action = action
    for s in anim["samples"]:
        f = 1 + s["frame"] * step
        scene.frame_set(int(f), subframe=f - int(f))
        want = [numpy.array(m).reshape(4, 4).T for m in s["world"]]
        compare_bones("action %s frame %g (ossa frame %d)" % (anim["name"], f, s["frame"]), want, False)

# Meshes by name; Blender numbers repeated names (cube, cube.001, ...) in
# the order it makes them, so meshes of one name compare as sorted lists.
def named(o, name):
    head, dot, tail = o.name.rpartition(".")
    return o.name == name or (head == name and tail.isdigit() and len(tail) == 3)


def groups_of(o):
    sums = {}
    for v in o.data.vertices:
        for g in v.groups:
            name = o.vertex_groups[g.group].name
            sums[name] = sums.get(name, 0.0) + g.weight
    return {k: v for k, v in sums.items() if v > 0}


blender_meshes = [o for o in scene.objects if o.type == "MESH"]
ossa_meshes = {}
for mesh in ossa["meshes"]:
    ossa_meshes.setdefault(mesh["name"], []).append(mesh)
for name, want in ossa_meshes.items():
    got = [o for o in blender_meshes if named(o, name)]
    wv = sorted(m["vertices"] for m in want)
    gv = sorted(len(o.data.vertices) for o in got)
    check("meshes '%s': vertices %s in Blender, %s in ossa" % (name, gv, wv), wv == gv)
    for m in want:
        o = next((o for o in got if len(o.data.vertices) == m["vertices"]), None)
        if not o:
            continue
        sums, wg = groups_of(o), m["groups"]
        worst = max([abs(sums.get(k, 0.0) - wg.get(k, 0.0)) / max(1.0, wg.get(k, 0.0))
                     for k in set(sums) | set(wg)] + [0.0])
        check("mesh %s: vertex groups %d in Blender, %d in ossa" % (o.name, len(sums), len(wg)),
              set(sums) == set(wg) and worst < 1e-4, "largest weight-sum difference %.3g" % worst)

json.dump(report, open(out_json, "w"), indent=1)
