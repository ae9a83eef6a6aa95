"""ossa for Blender: imports and exports skeletal models and animations in
every format the ossa library reads and writes, through the ossa Python
package (no file is parsed here). blender/README.md describes it."""

bl_info = {
    "name": "ossa: skeletal models (IQM, IQE, MD5, SMD, FBX, BVH, SOTC, illEngine, ...)",
    "author": "ossa",
    "version": (0, 2, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > ossa, File > Export > ... [ossa]",
    "description": "Import and export armatures, skinned meshes and actions with the ossa library",
    "category": "Import-Export",
}

if "bpy" in locals():
    import importlib
    for _m in ("import_op", "export_op"):
        if _m in locals():
            importlib.reload(locals()[_m])

import bpy  # noqa: E402

from . import export_op, import_op  # noqa: E402

_classes = (import_op.ImportOssa, export_op.ExportOssa)


def register():
    for c in _classes:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(import_op.menu)
    bpy.types.TOPBAR_MT_file_export.append(export_op.menu)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(export_op.menu)
    bpy.types.TOPBAR_MT_file_import.remove(import_op.menu)
    for c in reversed(_classes):
        bpy.utils.unregister_class(c)
