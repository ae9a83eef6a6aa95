"""Run inside Blender (blender -b --factory-startup --python check_obj_mtl.py --
FILE.obj OSSA.gltf OUT.json): imports FILE with Blender 3.4's OBJ importer
(wm.obj_import, the C++ one) and compares every material it makes with the
material of the same name in ossa's glTF conversion of the same file
(`ossa convert FILE.obj -o OSSA.gltf`, images beside it):

- the base colour: when Blender links an image to Base Color, ossa's
  material must have a base colour texture whose image has the same pixels
  (both files loaded by Blender: ossa writes TGA textures as PNG) and a
  factor of 1; otherwise ossa's baseColorFactor is Blender's Base Color;
- alpha, metallic, roughness and emission as Blender's Principled BSDF
  has them, and the blend mode (Blender's BLEND is glTF's BLEND);
within 1e-5. Materials that no MTL file defines are listed, not compared
(Blender gives them its defaults, ossa keeps their names). Writes a JSON
report to OUT.json."""
import json
import os
import sys

import numpy
numpy.bool = bool  # Debian's numpy with Blender 3.4's add-ons
import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
path, gltf_path, out_json = argv
gltf = json.load(open(gltf_path))
gltf_dir = os.path.dirname(gltf_path)
TOL = 1e-5
report = {"file": path, "materials": [], "ok": True}

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.wm.obj_import(filepath=path)

ossa_materials = {m.get("name"): m for m in gltf.get("materials", [])}


def ossa_image_pixels(texture_info):
    tex = gltf["textures"][texture_info["index"]]
    img = gltf["images"][tex["source"]]
    image = bpy.data.images.load(os.path.join(gltf_dir, img["uri"]))
    return image


def pixels(image):
    return numpy.array(image.pixels[:], dtype=numpy.float32)


def near(a, b):
    return abs(a - b) <= TOL


for mat in bpy.data.materials:
    if not mat.use_nodes:
        continue
    bsdf = next((n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is None:
        continue
    entry = {"name": mat.name, "problems": []}
    om = ossa_materials.get(mat.name)
    if om is None:
        entry["problems"].append("no material of this name in ossa's glTF")
    pbr = (om or {}).get("pbrMetallicRoughness", {})
    factor = pbr.get("baseColorFactor", [1, 1, 1, 1])
    links = bsdf.inputs["Base Color"].links
    if links and links[0].from_node.type == "TEX_IMAGE":
        bl_image = links[0].from_node.image
        entry["blender_texture"] = os.path.basename(bl_image.filepath)
        info = pbr.get("baseColorTexture")
        if info is None:
            entry["problems"].append("Blender has a texture, ossa none")
        else:
            ours = ossa_image_pixels(info)
            entry["ossa_texture"] = os.path.basename(ours.filepath)
            if tuple(ours.size) != tuple(bl_image.size):
                entry["problems"].append("texture sizes %s and %s" % (tuple(ours.size), tuple(bl_image.size)))
            else:
                diff = float(numpy.abs(pixels(ours) - pixels(bl_image)).max())
                entry["texture_difference"] = diff
                if diff > 0:
                    entry["problems"].append("texture pixels differ by %g" % diff)
        if not all(near(factor[c], 1) for c in range(3)):
            entry["problems"].append("a texture with a base colour factor %s" % factor[:3])
    else:
        base = list(bsdf.inputs["Base Color"].default_value)[:3]
        entry["base_color"] = base
        if "baseColorTexture" in pbr:
            entry["problems"].append("ossa has a texture, Blender none")
        for c in range(3):
            if not near(factor[c], base[c]):
                entry["problems"].append("base colour %s, Blender %s" % (factor[:3], base))
                break
    checks = [("alpha", factor[3], bsdf.inputs["Alpha"].default_value),
              ("metallic", pbr.get("metallicFactor", 1), bsdf.inputs["Metallic"].default_value),
              ("roughness", pbr.get("roughnessFactor", 1), bsdf.inputs["Roughness"].default_value)]
    emission = list(bsdf.inputs["Emission"].default_value)[:3]
    if not bsdf.inputs["Emission"].links:
        ours = (om or {}).get("emissiveFactor", [0, 0, 0])
        checks += [("emission %d" % c, ours[c], emission[c]) for c in range(3)]
    for what, a, b in checks:
        entry[what] = [a, b]
        if not near(a, b):
            entry["problems"].append("%s %g, Blender %g" % (what, a, b))
    blend = (om or {}).get("alphaMode", "OPAQUE") == "BLEND"
    if blend != (mat.blend_method == "BLEND"):
        entry["problems"].append("alpha mode %s, Blender %s" % ((om or {}).get("alphaMode", "OPAQUE"),
                                                                mat.blend_method))
    # A material no MTL file defines: ossa keeps the name only (a glTF
    # material without factors), Blender its defaults.
    undefined = om is not None and set(om) <= {"name", "pbrMetallicRoughness", "doubleSided"} and \
        pbr == {"metallicFactor": 0}
    if undefined:
        entry = {"name": mat.name, "undefined": True, "problems": []}
    entry["ok"] = not entry["problems"]
    report["ok"] &= entry["ok"]
    report["materials"].append(entry)

json.dump(report, open(out_json, "w"), indent=1)
