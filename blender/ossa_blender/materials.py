"""Materials: a Principled BSDF per ossa material, from the library's
metallic-roughness description (ossa.Material), with the images the model
holds (or names beside its file) as image textures."""

import os
import tempfile

import bpy


def _image(model, name, cache):
    """A bpy image for the image ``name``: the model's own bytes, packed
    into the .blend, else a file of that name beside the model; None when
    neither exists."""
    if name in cache:
        return cache[name]
    img = None
    data = model.images.get(name)
    if data is not None:
        # Blender loads images from files only: the bytes go through a
        # temporary file, then are packed so the file can go.
        suffix = os.path.splitext(name)[1] or ".png"
        fd, tmp = tempfile.mkstemp(suffix=suffix)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(bytes(data))
            img = bpy.data.images.load(tmp)
            img.pack()
            img.filepath_raw = "//" + os.path.basename(name)
            img.name = os.path.basename(name)
        finally:
            os.unlink(tmp)
    elif model.path:
        path = os.path.join(os.path.dirname(os.path.abspath(model.path)), name)
        if os.path.isfile(path):
            img = bpy.data.images.load(path, check_existing=True)
    cache[name] = img
    return img


def _texture(tree, bsdf, socket, img, non_color, location):
    node = tree.nodes.new("ShaderNodeTexImage")
    node.image = img
    node.location = location
    if non_color:
        img.colorspace_settings.name = "Non-Color"
    if socket:
        tree.links.new(node.outputs["Color"], bsdf.inputs[socket])
    return node


def build(model, images=True):
    """{material name: bpy material} for the materials the meshes use."""
    out, cache = {}, {}
    for name, m in model.materials.items():
        mat = bpy.data.materials.new(name or "material")
        mat.use_nodes = True
        tree = mat.node_tree
        bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
        bsdf.inputs["Base Color"].default_value = m.base_color
        bsdf.inputs["Metallic"].default_value = m.metallic
        bsdf.inputs["Roughness"].default_value = m.roughness
        emit = bsdf.inputs.get("Emission") or bsdf.inputs.get("Emission Color")
        if emit is not None and any(m.emissive):
            emit.default_value = tuple(m.emissive) + (1.0,)
        mat.diffuse_color = m.base_color
        if m.alpha_mode != "opaque":
            bsdf.inputs["Alpha"].default_value = m.base_color[3]
            mat.blend_method = "CLIP" if m.alpha_mode == "mask" else "BLEND"
            if m.alpha_mode == "mask":
                mat.alpha_threshold = m.alpha_cutoff
        mat.use_backface_culling = not m.double_sided
        if images:
            base = m.textures.get("base_color")
            img = base and _image(model, base["image"], cache)
            if img is not None:
                node = _texture(tree, bsdf, "Base Color", img, False, (-400, 300))
                if m.alpha_mode != "opaque":
                    tree.links.new(node.outputs["Alpha"], bsdf.inputs["Alpha"])
            normal = m.textures.get("normal")
            img = normal and _image(model, normal["image"], cache)
            if img is not None:
                node = _texture(tree, bsdf, None, img, True, (-400, -200))
                nmap = tree.nodes.new("ShaderNodeNormalMap")
                nmap.location = (-200, -200)
                tree.links.new(node.outputs["Color"], nmap.inputs["Color"])
                tree.links.new(nmap.outputs["Normal"], bsdf.inputs["Normal"])
        out[name] = mat
    return out
