"""File > Import > ossa: the operator (bpy.ops.import_scene.ossa), callable
from scripts with filepath= or directory= and files=."""

import os

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty, IntProperty,
                       StringProperty)
from bpy_extras.io_utils import ImportHelper, axis_conversion, orientation_helper
from mathutils import Matrix

EXTENSIONS = (".iqm", ".iqe", ".md5mesh", ".md5anim", ".smd", ".obj", ".skb", ".anb", ".nmo",
              ".illmesh", ".illskel", ".illanim", ".illanset", ".fbx", ".bvh", ".gltf", ".glb",
              ".ossaclip")


@orientation_helper(axis_forward="Y", axis_up="Z")
class ImportOssa(bpy.types.Operator, ImportHelper):
    """Import skeletal models and animations with ossa: IQM, IQE, MD5, SMD, OBJ, SOTC, illEngine, FBX (binary and ASCII), BVH, glTF"""
    bl_idname = "import_scene.ossa"
    bl_label = "Import with ossa"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filter_glob: StringProperty(default=";".join("*" + e for e in EXTENSIONS), options={"HIDDEN"})
    files: CollectionProperty(type=bpy.types.OperatorFileListElement,
                              options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})
    animations: StringProperty(
        name="Animations", default="",
        description="Animations to import, by name or index, separated by commas (empty: all)")
    global_scale: FloatProperty(name="Scale", default=1.0, min=1e-6, max=1e6, soft_min=0.001,
                                soft_max=1000.0, description="Scale applied to the armature")
    merge_vertices: BoolProperty(
        name="Merge Vertices", default=False,
        description="Join vertices split only by normals, UVs or colours (same position and "
                    "weights), so the mesh is connected where the file splits it")
    import_materials: BoolProperty(name="Images", default=True,
                                   description="Load the images the materials name")
    set_frame_rate: BoolProperty(name="Set Frame Rate", default=True,
                                 description="Set the scene's frame rate from the file's")
    start_frame: IntProperty(name="Start Frame", default=1,
                             description="Scene frame of each animation's first frame")
    obj_axes: EnumProperty(
        name="OBJ Axes", default="blender",
        items=[("blender", "Blender", "(x, y, z) -> (x, -z, y), as Blender's OBJ importer"),
               ("sdk", "IQM SDK", "(x, y, z) -> (z, x, y), as the IQM SDK and ossa's default")],
        description="How an OBJ file's Y-up axes become Z up")
    fps: FloatProperty(name="Frame Rate", default=0.0, min=0.0, max=1000.0,
                       description="Frame rate for files that store none (0: the format's "
                                   "default)")

    def paths(self):
        if self.files and self.directory:
            return [os.path.join(self.directory, f.name) for f in self.files if f.name]
        return [self.filepath]

    def execute(self, context):
        from . import importer
        from ._pkg import ossa
        global_matrix = (axis_conversion(from_forward=self.axis_forward, from_up=self.axis_up)
                         .to_4x4() @ Matrix.Scale(self.global_scale, 4))
        if context.mode != "OBJECT" and context.view_layer.objects.active is not None:
            bpy.ops.object.mode_set(mode="OBJECT")
        try:
            importer.import_files(
                context, self.paths(), self.report, global_matrix=global_matrix,
                animations=self.animations, merge_vertices=self.merge_vertices,
                import_materials=self.import_materials, set_frame_rate=self.set_frame_rate,
                start_frame=self.start_frame, fps=self.fps, obj_axes=self.obj_axes)
        except ossa.Error as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        return {"FINISHED"}


def menu(self, context):
    self.layout.operator(ImportOssa.bl_idname,
                         text="ossa (.iqm .iqe .md5 .smd .fbx .bvh .skb ...)")
