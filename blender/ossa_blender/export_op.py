"""File > Export > ossa: one operator (bpy.ops.export_scene.ossa) with the
format as an option, a menu entry per format."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, axis_conversion, orientation_helper

from .exporter import FORMATS


def _parse_options(text):
    """Format options "name=value, ..." (ossa.format_options() names, as
    keywords: bvh_rotation_order=ZXY) as a dict; a bare name is a switch."""
    out = {}
    for item in (x.strip() for x in text.split(",") if x.strip()):
        key, eq, value = item.partition("=")
        key = key.strip().replace(".", "_")
        if not eq:
            out[key] = True
            continue
        value = value.strip()
        try:
            out[key] = float(value) if any(c in value for c in ".e") else int(value)
        except ValueError:
            out[key] = value
    return out


@orientation_helper(axis_forward="Y", axis_up="Z")
class ExportOssa(bpy.types.Operator, ExportHelper):
    """Export the selected armature, its meshes and actions with ossa"""
    bl_idname = "export_scene.ossa"
    bl_label = "Export with ossa"
    bl_options = {"PRESET"}

    filename_ext = ".iqm"
    filter_glob: StringProperty(default="*.iqm;*.iqe;*.md5mesh;*.smd;*.illmesh;*.glb;*.gltf;"
                                        "*.bvh;*.fbx;*.obj", options={"HIDDEN"})
    format: EnumProperty(name="Format", default="iqm",
                         items=[(k, v[0], "%s (%s)" % (v[0], v[1])) for k, v in FORMATS.items()])
    actions: StringProperty(name="Actions", default="",
                            description="Actions to export, by name, separated by commas "
                                        "(empty: every action that animates the armature's bones)")
    animations: BoolProperty(name="Animations", default=True, description="Export actions")
    fps: FloatProperty(name="Frame Rate", default=0.0, min=0.0, max=1000.0,
                       description="Frames per second sampled from each action (0: the scene's)")
    bounds: EnumProperty(name="Bounds", default="conservative",
                         items=[("conservative", "Conservative", "Per-frame boxes from the joints"),
                                ("exact", "Exact", "Per-frame boxes of every skinned vertex"),
                                ("none", "None", "No bounds")])
    global_scale: FloatProperty(name="Scale", default=1.0, min=1e-6, max=1e6,
                                description="Scale of the exported model (translations)")
    apply_modifiers: BoolProperty(name="Modifiers", default=True,
                                  description="Apply the meshes' modifiers (not the Armature)")
    colors: BoolProperty(name="Vertex Colors", default=False,
                         description="Export the active colour attribute")
    format_options: StringProperty(
        name="Format Options", default="",
        description="The format's writing options, name=value separated by commas "
                    "(bvh_rotation_order=ZXY, gltf_embed, obj_axes=blender; ossa formats lists them)")

    def check(self, context):
        ext = FORMATS[self.format][1]
        if self.filename_ext != ext:
            self.filename_ext = ext
        return super().check(context)

    def invoke(self, context, event):
        self.filename_ext = FORMATS[self.format][1]
        return super().invoke(context, event)

    def execute(self, context):
        from . import exporter
        from ._pkg import ossa
        conv = axis_conversion(to_forward=self.axis_forward, to_up=self.axis_up).to_4x4()
        if context.mode != "OBJECT" and context.view_layer.objects.active is not None:
            bpy.ops.object.mode_set(mode="OBJECT")
        try:
            written = exporter.export(
                context, self.filepath, self.format, self.report, bounds=self.bounds,
                options=_parse_options(self.format_options), conv=conv, scale=self.global_scale,
                actions=self.actions, fps=self.fps, animations=self.animations,
                apply_modifiers=self.apply_modifiers, colors=self.colors)
        except (ossa.Error, ValueError, TypeError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.report({"INFO"}, "wrote " + ", ".join(written))
        return {"FINISHED"}


def menu(self, context):
    for key, (label, ext) in FORMATS.items():
        op = self.layout.operator(ExportOssa.bl_idname, text="%s (%s) [ossa]" % (label, ext))
        op.format = key
