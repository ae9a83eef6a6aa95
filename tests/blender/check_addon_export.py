"""Run inside Blender (blender -b --factory-startup --python
check_addon_export.py -- ADDON.zip DATA_DIR TMP_DIR OUT.json): installs the
add-on zip; for an armature made by bpy calls and a few shared models
(imported with the add-on), exports the armature in
every format with bpy.ops.export_scene.ossa and

1. reads the files written back with the ossa package: every bone is a
   joint of that name whose bind matrix is the bone's world rest matrix,
   every exported action an animation of as many frames, and at three of
   its frames the joints' model matrices are the pose bones' world
   matrices and ossa's skinned triangle corners are Blender's evaluated
   ones (formats that cannot hold a part are not compared on it: BVH has
   no mesh, OBJ no skeleton, MD5, SMD and BVH no scale);
2. imports the files written with the add-on into an empty scene: the
   bones' rest and posed world matrices and the evaluated corners are
   those of the first import.

Joints are compared by their positions and by the matrix they skin with
(model matrix times inverse bind matrix), and by their bind rotations
where the format keeps the joints' axes (BVH's joints have none). An
action that scales a bone is not compared on rotations or vertices in
formats without scale (MD5, SMD and BVH; SMD leaves it out). Tolerances:
1e-5 of the model's size for positions and 1e-5 for rotation elements
with glTF and FBX (floats); 1e-4 with the text formats (six or so
significant digits); 1e-3 with SMD, whose reader keeps weights as bytes
(docs/formats/smd.md), and IQM, whose writer stores them as bytes summing
to 255 as its players read them (and animation channels in 16 bits)."""
import glob
import json
import os
import re
import sys

import bpy
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import addon_common as C  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
zip_path, data, tmp, out_path = argv
C.install(zip_path)
from ossa_blender import importer  # noqa: E402
from ossa_blender._pkg import ossa  # noqa: E402

SOURCES = ["iqm/guy.iqm", "iqe/test_cube.iqe", "fbx/huesitos.fbx", "gltf/CesiumMan.glb",
           "md5/SimpleCube.md5mesh", "gltf/SimpleSkin.gltf"]
FORMATS = {"iqm": 1e-3, "glb": 1e-5, "fbx": 1e-5, "iqe": 1e-4, "md5mesh": 1e-4, "smd": 1e-3,
           "illmesh": 1e-4, "bvh": 1e-4, "obj": 1e-4}
NO_SCALE = {"md5mesh", "smd", "bvh"}
# BVH positions on every joint (the default keeps the roots' only): joints
# that move in the sources keep moving.
OPTIONS = {"bvh": "bvh_positions=all"}
NEW_ORIENTATION = {"bvh"}  # joints without axes of their own: rest rotations are the identity
NO_MESH = {"bvh"}
NO_SKELETON = {"obj"}
EXT = {"md5mesh": ".md5mesh", "illmesh": ".illmesh"}
SCRIPTED = "(armature made by a script)"


def scene_state(arm, frames_of):
    """What is compared: bone rest world matrices by name, and per (action,
    frame index): pose world matrices and evaluated corner positions."""
    bones = {b.name: np.array(arm.matrix_world @ b.matrix_local) for b in arm.data.bones}
    scene = bpy.context.scene
    arm.animation_data_create()
    posed = {}
    for act, ks in frames_of.items():
        arm.animation_data.action = bpy.data.actions[act]
        start = bpy.data.actions[act].frame_range[0]
        for k in ks:
            scene.frame_set(int(start) + k)
            bpy.context.view_layer.update()
            mats = {pb.name: np.array(arm.matrix_world @ pb.matrix) for pb in arm.pose.bones}
            posed[(act, k)] = (mats, corners(arm))
    arm.animation_data.action = None
    for pb in arm.pose.bones:
        pb.matrix_basis.identity()
    bpy.context.view_layer.update()
    return bones, posed, corners(arm)


def corners(arm):
    """World positions of the evaluated meshes' triangle corners, the
    meshes by name, the corners in loop-triangle order."""
    out = []
    for o in sorted((o for o in bpy.data.objects if o.type == "MESH" and o.parent == arm),
                    key=lambda o: o.name):
        # The export's triangles are those of the undeformed mesh: a
        # deformed quad may be split along its other diagonal.
        me = o.data
        me.calc_loop_triangles()
        loops = np.empty(len(me.loop_triangles) * 3, np.int32)
        me.loop_triangles.foreach_get("loops", loops)
        lv = np.empty(len(me.loops), np.int32)
        me.loops.foreach_get("vertex_index", lv)
        co = C.vertices(o, True)
        w = np.array(o.matrix_world)
        out.append(co[lv[loops]] @ w[:3, :3].T + w[:3, 3])
    return np.concatenate(out) if out else np.zeros((0, 3))


def exported_files(folder):
    return sorted(p for p in glob.glob(os.path.join(folder, "*"))
                  if not p.endswith((".mtl", ".bin", ".png", ".jpg", ".tga")))


def worst(r, key, value):
    r[key] = max(r.get(key, 0.0), float(value))


def find_animation(anims, act, first):
    """The animation an action became: same name, or the file's name for
    formats of one file per animation (out.NAME, NAME with characters the
    format refuses as _; the first one takes the file's own name)."""
    if act in anims:
        return anims[act]
    clean = re.sub(r"[^A-Za-z0-9_.-]", "_", act)
    for n, a in anims.items():
        if n in ("out." + act, "out." + clean):
            return a
    return anims.get("out") if act == first else None


def scaled(posed, act):
    """Whether the action scales a bone at a sampled frame."""
    return any(np.abs(np.linalg.norm(m[:3, :3], axis=0) - 1).max() > 1e-4
               for (a, k), (mats, _) in posed.items() if a == act for m in mats.values())


def compare_ossa(fmt, files, truth, frames_of, size, r):
    bones, posed, _ = truth
    options = {"obj_axes": "blender"} if fmt == "obj" else {}  # as the add-on writes them
    model = ossa.load(importer.input_order(files) if len(files) > 1 else files[0], **options)
    if fmt in NO_SKELETON:
        c = np.asarray(model.positions, np.float64)[np.asarray(model.triangles)[:, (0, 2, 1)]]
        worst(r, "vertices", np.abs(c.reshape(-1, 3) - truth[2]).max() / size)
        return
    bind = np.asarray(model.bind_matrices, np.float64)
    joint = {name: model.find_joint(name) for name in bones}
    for name, m in bones.items():
        j = joint[name]
        if j < 0:
            r["failures"].append("%s: no joint %s" % (fmt, name))
            continue
        worst(r, "bind", np.abs(bind[j][:3, 3] - m[:3, 3]).max() / size)
        if fmt not in NEW_ORIENTATION:
            worst(r, "bind", np.abs(bind[j][:3, :3] - m[:3, :3]).max())
    anims = {a.name: a for a in model.animations}
    for act, ks in frames_of.items():
        a = find_animation(anims, act, min(frames_of))
        lossy = fmt in NO_SCALE and scaled(posed, act)
        if a is None:
            if lossy:
                r.setdefault("dropped", []).append(act)
            else:
                r["failures"].append("%s: no animation %s (%s)" % (fmt, act, list(anims)))
            continue
        # (MD5 writes a looping animation with a copy of frame 0 at the end,
        # which its reader drops again.)
        if a.num_frames != max(ks) + 1:
            r["failures"].append("%s: %s has %d frames, not %d" % (fmt, act, a.num_frames,
                                                                 max(ks) + 1))
        for k in ks:
            p = model.pose(a.index, frame=k).model.astype(np.float64)
            mats, want = posed[(act, k)]
            for name, m in mats.items():
                j = joint.get(name, -1)
                if j < 0:
                    continue
                if not lossy:  # without its scale a parent moves its children
                    worst(r, "pose_position", np.abs(p[j][:3, 3] - m[:3, 3]).max() / size)
                    # The skinning matrix: the same whatever the joint's axes.
                    skin_o = p[j] @ np.linalg.inv(bind[j])
                    skin_b = m @ np.linalg.inv(bones[name])
                    worst(r, "pose_rotation", np.abs(skin_o[:3, :3] - skin_b[:3, :3]).max())
            if fmt in NO_MESH or lossy or not model.num_triangles:
                continue
            got = model.skin(p.astype(np.float32), normals=False).positions
            c = np.asarray(got, np.float64)[np.asarray(model.triangles)[:, (0, 2, 1)]]
            c = c.reshape(-1, 3)
            if c.shape != want.shape:
                r["failures"].append("%s: %d corners, Blender %d" % (fmt, len(c), len(want)))
            else:
                worst(r, "vertices", np.abs(c - want).max() / size)


def compare_reimport(fmt, files, truth, frames_of, size, r):
    C.empty_scene()
    res = bpy.ops.import_scene.ossa(files=[{"name": os.path.basename(f)} for f in files],
                                    directory=os.path.dirname(files[0]))
    if res != {"FINISHED"}:
        r["failures"].append("%s: re-import %s" % (fmt, res))
        return
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    acts = {a.name for a in bpy.data.actions}
    fo = {}
    anims = {n: n for n in acts}
    names = {}
    for act, ks in frames_of.items():
        name = find_animation(anims, act, min(frames_of))
        if name:
            fo[name], names[act] = ks, name
    bones, posed, rest_corners = scene_state(arm, fo)
    for name, m in truth[0].items():
        if name in bones:
            worst(r, "reimport_bones", np.abs(bones[name][:3, 3] - m[:3, 3]).max() / size)
            if fmt not in NEW_ORIENTATION:
                # Blender makes a bone again from head, tail and roll in
                # single precision: rotations within 1e-4 / 10 of tolerance.
                worst(r, "reimport_bones",
                      np.abs(bones[name][:3, :3] - m[:3, :3]).max() / 10)
    for act, ks in frames_of.items():
        name = names.get(act)
        for k in ks if name else []:
            mats, c = posed[(name, k)]
            mats0, c0 = truth[1][(act, k)]
            if fmt in NO_SCALE and scaled(truth[1], act):
                continue
            for b, m in mats0.items():
                if b in mats:
                    worst(r, "reimport_pose", np.abs(mats[b][:3, 3] - m[:3, 3]).max() / size)
            if fmt not in NO_MESH and c.shape == c0.shape:
                worst(r, "reimport_vertices", np.abs(c - c0).max() / size)
            elif fmt not in NO_MESH:
                r["failures"].append("%s: re-import has %d corners, not %d" % (fmt, len(c), len(c0)))


def scripted_scene():
    """An armature made by bpy calls, not read from a file: a chain of
    three bones with rolls and a branch, four sheets of 4 x 8 vertices in
    quads, weighted to the two nearest bones, and an action of 11 frames turning
    and moving them (Euler keys on one bone, quaternions on the others)."""
    arm = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
    bpy.context.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    spec = [("hips", None, (0, 0, 0), (0, 0, 1), 0.3), ("spine", "hips", (0, 0, 1), (0, 0.2, 2), -0.5),
            ("head", "spine", (0, 0.2, 2), (0, 0.2, 2.6), 1.1), ("arm", "spine", (0, 0.1, 1.8),
                                                                   (0.9, 0.1, 1.7), 0.2)]
    for name, parent, head, tail, roll in spec:
        eb = arm.data.edit_bones.new(name)
        eb.head, eb.tail, eb.roll = head, tail, roll
        if parent:
            eb.parent = arm.data.edit_bones[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    g = np.stack(np.meshgrid(np.linspace(-0.3, 0.3, 4), np.linspace(-0.3, 0.3, 4),
                             np.linspace(0, 2.6, 8), indexing="ij"), -1).reshape(-1, 3)
    # Vertex (i, j, k) is i * 32 + j * 8 + k: one sheet of quads per i.
    faces = [(i * 32 + j * 8 + k, i * 32 + j * 8 + k + 1, i * 32 + (j + 1) * 8 + k + 1,
              i * 32 + (j + 1) * 8 + k) for i in range(4) for j in range(3) for k in range(7)]
    me = bpy.data.meshes.new("Body")
    me.from_pydata(g.tolist(), [], faces)
    obj = bpy.data.objects.new("Body", me)
    bpy.context.collection.objects.link(obj)
    obj.parent = arm
    obj.modifiers.new("Armature", "ARMATURE").object = arm
    heads = np.array([h for _, _, h, _, _ in spec], float)
    for name, *_ in spec:
        obj.vertex_groups.new(name=name)
    for i, p in enumerate(g):
        d = np.linalg.norm(heads - p, axis=1)
        a, b = np.argsort(d)[:2]
        wa = d[b] / (d[a] + d[b])
        obj.vertex_groups[int(a)].add([i], float(wa), "REPLACE")
        obj.vertex_groups[int(b)].add([i], float(1 - wa), "REPLACE")
    arm.animation_data_create()
    act = bpy.data.actions.new("Wave")
    arm.animation_data.action = act
    pb = arm.pose.bones
    pb["arm"].rotation_mode = "XYZ"
    for f in range(1, 12):
        t = (f - 1) / 10
        pb["hips"].location = (0.2 * t, 0, 0.1 * np.sin(6 * t))
        pb["spine"].rotation_quaternion = (np.cos(0.3 * t), np.sin(0.3 * t), 0, 0)
        pb["head"].rotation_quaternion = (np.cos(0.5 * t), 0, 0, np.sin(0.5 * t))
        pb["arm"].rotation_euler = (0.4 * t, -0.8 * t, 1.2 * t)
        for b in pb:
            for path in ("location", "rotation_quaternion", "rotation_euler"):
                b.keyframe_insert(path, frame=f)
    return arm


def check_source(rel):
    out = []
    for fmt, tol in FORMATS.items():
        C.empty_scene()
        if rel == SCRIPTED:
            scripted_scene()
        else:
            bpy.ops.import_scene.ossa(filepath=os.path.join(data, rel))
        arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
        for o in bpy.data.objects:
            o.select_set(o == arm)
        bpy.context.view_layer.objects.active = arm
        frames_of = {}
        for act in bpy.data.actions:
            n = int(round(act.frame_range[1] - act.frame_range[0])) + 1
            frames_of[act.name] = sorted({0, n // 2, n - 1})
        truth = scene_state(arm, frames_of)
        heads = np.array([m[:3, 3] for m in truth[0].values()])
        size = max(float(np.ptp(heads, axis=0).max()) if len(heads) else 0,
                   float(np.ptp(truth[2], axis=0).max()) if len(truth[2]) else 0, 1e-6)
        folder = os.path.join(tmp, re.sub(r"[^A-Za-z0-9.]", "_", rel), fmt)
        os.makedirs(folder, exist_ok=True)
        r = {"source": rel, "format": fmt, "tolerance": tol, "failures": []}
        res = bpy.ops.export_scene.ossa(filepath=os.path.join(folder, "out" + EXT.get(fmt, "." + fmt)),
                                        format=fmt, format_options=OPTIONS.get(fmt, ""))
        if res != {"FINISHED"}:
            r["failures"].append("export: %s" % res)
            out.append(r)
            continue
        files = exported_files(folder)
        compare_ossa(fmt, files, truth, frames_of, size, r)
        if fmt not in NO_SKELETON:
            compare_reimport(fmt, files, truth, frames_of, size, r)
        for key in ("bind", "pose_position", "vertices", "reimport_bones", "reimport_pose",
                    "reimport_vertices"):
            if r.get(key, 0) > tol:
                r["failures"].append("%s %.3g over %.3g" % (key, r[key], tol))
        if r.get("pose_rotation", 0) > tol:
            r["failures"].append("pose_rotation %.3g over %.3g" % (r["pose_rotation"], tol))
        out.append(r)
    return out


report = []
for rel in [SCRIPTED] + SOURCES:
    if rel != SCRIPTED and not os.path.exists(os.path.join(data, rel)):
        continue
    try:
        report += check_source(rel)
    except Exception:
        import traceback
        report.append({"source": rel, "format": "?", "failures": [traceback.format_exc()]})
json.dump(report, open(out_path, "w"), indent=1)
