"""Run inside Blender (blender -b --factory-startup --python
check_addon_import.py -- ADDON.zip CASES.json OUT.json): installs the
add-on zip, imports each case (addon_cases.py wrote them with the ossa
tool) with bpy.ops.import_scene.ossa and default options, and compares:

- every bone at the bind pose and at three frames of each action: its
  head with the joint's model-space position, and the matrix Blender skins
  with, pose_bone.matrix @ bone.matrix_local^-1, with ossa's
  M_joint @ B_joint^-1 (model matrix at that frame times the inverse bind
  matrix), both from `ossa pose --json`, in world space (ossa's axes are
  Blender's, Z up and front -Y: the import's default axis conversion is
  the identity);
- every evaluated (Armature-deformed) vertex with ossa's skinning of the
  same vertex at that frame (ossa.Model.skin of the pose's matrices);
- models without joints: the vertices with the file's positions (OBJ
  files read with obj_axes="blender", the add-on's default).

File frame F of an animation at R frames per second is scene frame
1 + F * scene_rate / R (the add-on's default start frame). Tolerances:
1e-5 of the model's size for positions (the larger of the skeleton's and
the mesh's box), 1e-5 for matrix elements of the rotation part."""
import json
import os
import sys

import bpy
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import addon_common as C  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
zip_path, cases_path, out_path = argv
addon = C.install(zip_path)
from ossa_blender._pkg import ossa  # noqa: E402


def check_case(case):
    r = {"name": case["name"], "ok": True, "failures": [], "worst_head": 0.0,
         "worst_matrix": 0.0, "worst_vertex": 0.0, "checks": 0}
    C.empty_scene()
    res = bpy.ops.import_scene.ossa(files=[{"name": os.path.basename(f)} for f in case["files"]],
                                    directory=os.path.dirname(case["files"][0]))
    if res != {"FINISHED"}:
        return dict(r, ok=False, failures=["import: %s" % res])
    # OBJ files as the add-on reads them by default: Blender's axes; a model
    # that rests otherwise than it is bound with its mesh in the rest pose
    # (whose matrices `ossa pose --json` gives without an animation).
    options = {"obj_axes": "blender"} if case["files"][0].lower().endswith(".obj") else {}
    options["apply_rest_pose"] = True
    model = ossa.load(case["files"] if len(case["files"]) > 1 else case["files"][0], **options)
    names, bind = C.pose(case["bind"])
    size = float(np.ptp(bind[:, :3, 3], axis=0).max()) if len(names) else 0.0
    if model.positions is not None and len(model.positions):
        size = max(size, float(np.ptp(np.asarray(model.positions)[:, :3], axis=0).max()))
    r["size"] = size
    tol_pos, tol_rot = 1e-5 * size, 1e-5
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    mesh_objs = C.in_creation_order(
        [o for o in bpy.data.objects if o.type == "MESH"],
        [m.name or bpy.path.display_name_from_filepath(case["files"][0]) for m in model.meshes])
    if mesh_objs is None:
        return dict(r, ok=False, failures=["the mesh objects are not the model's meshes"])

    def fail(what):
        r["ok"] = False
        if len(r["failures"]) < 12:
            r["failures"].append(what)

    def compare(label, m_joint):
        r["checks"] += 1
        if arms:
            arm = arms[0]
            bpy.context.view_layer.update()
            n = len(arm.pose.bones)
            # World space: the armature object's matrix is the import's
            # axis conversion, the identity by default (ossa is Z up, -Y
            # front, as Blender).
            world = np.array(arm.matrix_world, np.float64)
            pm = world @ C.matrices(arm.pose.bones, "matrix", n)
            rest = world @ C.matrices(arm.data.bones, "matrix_local", n)
            order = [arm.pose.bones.find(b) for b in bone_names]
            skin_b = pm[order] @ np.linalg.inv(rest[order])
            skin_o = m_joint @ np.linalg.inv(bind)
            dh = np.abs(pm[order][:, :3, 3] - m_joint[:, :3, 3]).max(initial=0)
            dm = np.abs(skin_b[:, :3, :3] - skin_o[:, :3, :3]).max(initial=0)
            dt = np.abs(skin_b[:, :3, 3] - skin_o[:, :3, 3]).max(initial=0)
            r["worst_head"] = max(r["worst_head"], dh, dt)
            r["worst_matrix"] = max(r["worst_matrix"], dm)
            if dh > tol_pos or dt > tol_pos or dm > tol_rot:
                fail("%s: bones differ: head %.3g, skinning matrix %.3g / translation %.3g"
                     % (label, dh, dm, dt))
        if model.positions is None or not len(model.meshes):
            return
        want = model.skin(m_joint.astype(np.float32), normals=False).positions \
            if model.num_joints and model.joint_indices is not None else model.positions
        for mesh, obj in zip(model.meshes, mesh_objs):
            w = np.array(obj.matrix_world, np.float64)
            got = C.vertices(obj, True) @ w[:3, :3].T + w[:3, 3]
            exp = np.asarray(want, np.float64)[mesh.first_vertex:mesh.first_vertex
                                                + mesh.num_vertices, :3]
            if got.shape != exp.shape:
                fail("%s: %s has %d vertices, ossa %d" % (label, obj.name, len(got), len(exp)))
                continue
            d = np.abs(got - exp).max(initial=0)
            r["worst_vertex"] = max(r["worst_vertex"], d)
            if d > tol_pos:
                k = int(np.abs(got - exp).max(axis=1).argmax())
                fail("%s: %s vertex %d at %s, ossa %s" % (label, obj.name, k, got[k].tolist(),
                                                          exp[k].tolist()))

    bone_names = []
    if arms:
        arm = arms[0]
        bone_names = [b.name for b in C.in_creation_order(arm.data.bones,
                                                          [n or "joint%d" % j
                                                           for j, n in enumerate(names)])]
        arm.animation_data_clear()
        for pb in arm.pose.bones:
            pb.matrix_basis.identity()
        compare("bind pose", bind)
        acts = C.in_creation_order(bpy.data.actions,
                                   [a["name"] or "animation" for a in case["animations"]])
        if acts is None and case["animations"]:
            return dict(r, ok=False, failures=["the actions are not the file's animations"])
        scene = bpy.context.scene
        rate = scene.render.fps / scene.render.fps_base
        arm.animation_data_create()
        for a, act in zip(case["animations"], acts or []):
            arm.animation_data.action = act
            for fr, path in sorted(a["poses"].items(), key=lambda x: int(x[0])):
                a_rate = a["framerate"] if a["framerate"] > 0 else 30.0
                x = 1 + int(fr) * rate / a_rate
                scene.frame_set(int(np.floor(x)), subframe=float(x - np.floor(x)))
                _, m = C.pose(path)
                compare("%s frame %s" % (a["name"] or a["index"], fr), m)
    else:
        compare("bind pose", np.zeros((0, 4, 4)))
    r["bones"] = len(bone_names)
    r["actions"] = len(case["animations"])
    return r


report = []
for case in json.load(open(cases_path)):
    if "error" in case:
        report.append({"name": case["name"], "ok": False, "failures": [case["error"]]})
        continue
    try:
        report.append(check_case(case))
    except Exception:  # reported, and the next case goes on
        import traceback
        report.append({"name": case["name"], "ok": False,
                       "failures": [traceback.format_exc().splitlines()[-1]]})
json.dump(report, open(out_path, "w"), indent=1)
