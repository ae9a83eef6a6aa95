"""Run inside Blender (blender -b --factory-startup --python check_fbx.py --
FILE.fbx OSSA.json OUT.json): imports FILE with Blender's FBX add-on and
compares it with ossa's dump (tests/blender/fbx_dump.c): joint world
positions and deformed vertex positions at the bind pose (Blender's rest
position) and at every key frame of the imported action, within 1e-4 of
the model's size; and each material's base colour (when no texture is
linked), metallic, roughness and base colour image, within 1e-4. Writes a
JSON report to OUT.json.

Both sides convert to Z-up, front -Y, metres (fbx.md §9): Blender by its
default import options (axis from GlobalSettings, apply unit scale), ossa
by default. Vertices are matched by their bind-pose positions."""
import json
import sys

import numpy
numpy.bool = bool  # Debian's numpy with Blender 3.4's add-on
import bpy
from mathutils import Vector

argv = sys.argv[sys.argv.index("--") + 1:]
path, ossa_json, out_json = argv
ossa = json.load(open(ossa_json))
report = {"file": path, "checks": [], "ok": True}

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=path)
scene = bpy.context.scene
arm = next((o for o in scene.objects if o.type == "ARMATURE"), None)
meshes = [o for o in scene.objects if o.type == "MESH"]


def mesh_vertices():
    dg = bpy.context.evaluated_depsgraph_get()
    out = []
    for o in meshes:
        ev = o.evaluated_get(dg)
        me = ev.to_mesh()
        mw = o.matrix_world
        out += [list(mw @ v.co) for v in me.vertices]
        ev.to_mesh_clear()
    return numpy.array(out).reshape(-1, 3)


def joint_positions(names):
    res = {}
    if arm:
        for pb in arm.pose.bones:
            res[pb.name] = list(arm.matrix_world @ pb.head)
    return res


ob = numpy.array(ossa["bind"]["vertices"]).reshape(-1, 3)
if arm:
    arm.data.pose_position = "REST"
bv = mesh_vertices()
size = float(numpy.linalg.norm(ob.max(0) - ob.min(0))) if len(ob) else 1.0
tol = 1e-4 * size
report["size"] = size
report["tolerance"] = tol
# Each Blender vertex -> the nearest ossa vertex at the bind pose.
match = []
for p in bv:
    d = numpy.linalg.norm(ob - p, axis=1)
    match.append(int(d.argmin()))
match = numpy.array(match, dtype=int)


def compare(label, bl_verts, ossa_pose, names):
    worst_v = float(numpy.abs(bl_verts - numpy.array(ossa_pose["vertices"]).reshape(-1, 3)[match]).max()) if len(bl_verts) else 0.0
    worst_j = 0.0
    worst_name = ""
    bj = joint_positions(names)
    for i, n in enumerate(names):
        if n not in bj:
            continue
        d = float(numpy.abs(numpy.array(bj[n]) - numpy.array(ossa_pose["joints"][i])).max())
        if d > worst_j:
            worst_j, worst_name = d, n
    ok = worst_v <= tol and worst_j <= tol
    report["checks"].append({"what": label, "vertices": worst_v, "joints": worst_j,
                             "worst_joint": worst_name, "ok": ok})
    if not ok:
        report["ok"] = False


names = ossa["names"]
compare("bind pose", bv, ossa["bind"], names)
report["blender_vertices"] = len(bv)
report["ossa_vertices"] = len(ob)
report["blender_bones"] = len(arm.pose.bones) if arm else 0

if arm and arm.animation_data and arm.animation_data.action and ossa["animations"]:
    arm.data.pose_position = "POSE"
    action = arm.animation_data.action
    first = action.frame_range[0]
    keys = sorted({int(round(k.co[0])) for fc in action.fcurves for k in fc.keyframe_points})
    anim = ossa["animations"][0]
    for f in keys:
        i = int(round(f - first))
        if i < 0 or i >= len(anim["frames"]):
            continue
        scene.frame_set(f)
        compare("%s frame %d (ossa frame %d)" % (action.name, f, i), mesh_vertices(), anim["frames"][i], names)
    report["key_frames"] = len(keys)


def ossa_material(text):
    """The fields of an OSSA_EXTRA_MATERIAL text (ossa.h), glTF defaults first."""
    d = {"base_color": [1.0, 1.0, 1.0], "metallic": 1.0, "roughness": 1.0, "image": ""}
    for line in text.split("\n"):
        key, _, rest = line.partition(" ")
        if key == "base_color":
            d["base_color"] = [float(x) for x in rest.split()[:3]]
        elif key in ("metallic", "roughness"):
            d[key] = float(rest)
        elif key == "base_color_texture":
            d["image"] = rest
    return d


for name, text in ossa.get("materials", {}).items():
    mat = bpy.data.materials.get(name)
    if not mat or not mat.use_nodes:
        report["checks"].append({"what": "material %s" % name, "vertices": 0, "joints": 0,
                                 "worst_joint": "not in Blender's import", "ok": False})
        report["ok"] = False
        continue
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    o = ossa_material(text)
    base = bsdf.inputs["Base Color"]
    image = ""
    if base.is_linked and base.links[0].from_node.type == "TEX_IMAGE" and base.links[0].from_node.image:
        image = base.links[0].from_node.image.name
    diff = max(abs(bsdf.inputs["Metallic"].default_value - o["metallic"]),
               abs(bsdf.inputs["Roughness"].default_value - o["roughness"]))
    if not base.is_linked:
        diff = max([diff] + [abs(base.default_value[c] - o["base_color"][c]) for c in range(3)])
    ok = diff <= 1e-4 and image == o["image"]
    report["checks"].append({"what": "material %s (image '%s' / '%s')" % (name, image, o["image"]),
                             "vertices": diff, "joints": 0, "worst_joint": "", "ok": ok})
    if not ok:
        report["ok"] = False

json.dump(report, open(out_json, "w"), indent=1)
