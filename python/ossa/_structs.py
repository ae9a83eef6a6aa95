"""ctypes mirrors of the C structs the package passes or reads, and numpy
dtypes for the arrays it views.

Field names are the C names, so that tests/test_layout.py can compile a C
program that prints ``sizeof`` and ``offsetof`` of every field listed in
``STRUCTS`` and compare them with ctypes: a header change that this file
misses fails that test. Option structs carry ``struct_size``; the package
fills it with ``ctypes.sizeof`` of its own mirror.
"""

import ctypes

import numpy as np

P = ctypes.POINTER
u8, u32, i32, u64 = ctypes.c_uint8, ctypes.c_uint32, ctypes.c_int32, ctypes.c_uint64
f32, f64, cint, sz = ctypes.c_float, ctypes.c_double, ctypes.c_int, ctypes.c_size_t
vp, cp = ctypes.c_void_p, ctypes.c_char_p
enum = ctypes.c_int  # C enums of these headers are int-sized


class Struct(ctypes.Structure):
    """A C struct; ``C_NAME`` is its name in the headers."""
    C_NAME = ""


def _struct(c_name, fields):
    return type(c_name, (Struct,), {"_fields_": fields, "C_NAME": c_name})


# -- common.h -----------------------------------------------------------------

Diagnostic = _struct("ossa_diagnostic", [
    ("code", enum), ("severity", enum), ("offset", u64), ("line", u32), ("column", u32),
    ("file", ctypes.c_char * 256), ("message", ctypes.c_char * 256)])
DIAGNOSTIC_FN = ctypes.CFUNCTYPE(None, vp, P(Diagnostic))

Transform = _struct("ossa_transform", [
    ("translation", f32 * 3), ("rotation", f32 * 4), ("scale", f32 * 3)])

OutputFile = _struct("ossa_output_file", [("path", cp), ("data", vp), ("size", sz)])

# -- model.h ------------------------------------------------------------------

Joint = _struct("ossa_joint", [("name", cp), ("parent", i32), ("bind", Transform)])
VertexArray = _struct("ossa_vertex_array", [
    ("type", enum), ("format", enum), ("size", u32), ("name", cp), ("data", vp)])
Mesh = _struct("ossa_mesh", [
    ("name", cp), ("material", cp), ("first_vertex", u32), ("num_vertices", u32),
    ("first_triangle", u32), ("num_triangles", u32)])
Triangle = _struct("ossa_triangle", [("v", u32 * 3)])
Bounds = _struct("ossa_bounds", [
    ("min", f32 * 3), ("max", f32 * 3), ("xy_radius", f32), ("radius", f32)])
Animation = _struct("ossa_animation", [
    ("name", cp), ("num_frames", u32), ("framerate", f32), ("flags", u32),
    ("frames", vp), ("bounds", vp), ("channels", vp), ("sampling", cp)])
Extra = _struct("ossa_extra", [("key", cp), ("data", vp), ("size", sz)])
Model = _struct("ossa_model", [
    ("num_joints", u32), ("joints", vp),
    ("num_vertices", u32), ("num_vertex_arrays", u32), ("vertex_arrays", vp),
    ("num_triangles", u32), ("triangles", vp), ("adjacency", vp),
    ("num_meshes", u32), ("meshes", vp),
    ("num_animations", u32), ("animations", vp),
    ("comment", vp), ("comment_size", sz),
    ("num_extras", u32), ("extras", vp),
    ("num_warnings", u32), ("warnings", vp),
    ("flags", u32), ("source_format", enum), ("internal", vp), ("rest_pose", vp),
    ("front", enum)])
Option = _struct("ossa_option", [("name", cp), ("value", cp)])
OptionInfo = _struct("ossa_option_info", [
    ("name", cp), ("type", enum), ("choices", cp), ("default_value", cp), ("description", cp)])
LoadOptions = _struct("ossa_load_options", [
    ("struct_size", u32), ("format", enum), ("file_name", cp), ("allocator", vp),
    ("max_influences", u32), ("framerate", f32), ("flags", u32),
    ("format_options", P(Option)), ("num_format_options", u32),
    ("read_file", vp), ("release_file", vp), ("file_user", vp), ("threads", u32),
    ("front", enum)])
WRITE_OUTPUT_FN = ctypes.CFUNCTYPE(cint, vp, P(OutputFile), sz, P(Diagnostic))
WROTE_FN = ctypes.CFUNCTYPE(None, vp, cp)
WriteOptions = _struct("ossa_write_options", [
    ("struct_size", u32), ("format", enum), ("bounds", enum), ("allocator", vp),
    ("animation", u32), ("images", enum), ("flags", u32),
    ("format_options", P(Option)), ("num_format_options", u32),
    ("diagnostic", DIAGNOSTIC_FN), ("wrote", WROTE_FN), ("output", WRITE_OUTPUT_FN),
    ("user", vp), ("threads", u32)])
MaterialTexture = _struct("ossa_material_texture", [
    ("image", ctypes.c_char * 256), ("texcoord", u32), ("sampler", u32 * 4)])
Material = _struct("ossa_material", [
    ("base_color", f32 * 4), ("metallic", f32), ("roughness", f32),
    ("normal_scale", f32), ("occlusion_strength", f32), ("emissive", f32 * 3),
    ("alpha_mode", enum), ("alpha_cutoff", f32), ("double_sided", cint),
    ("textures", MaterialTexture * 5)])

# -- runtime.h ----------------------------------------------------------------

ClipOptions = _struct("ossa_clip_options", [
    ("struct_size", u32), ("allocator", vp), ("root_joint", u32), ("up_axis", enum),
    ("compression", enum), ("max_error", f32), ("shell_distance", f32)])
ClipSource = _struct("ossa_clip_source", [
    ("name", cp), ("num_joints", u32), ("parents", vp), ("bind_pose", vp),
    ("num_frames", u32), ("frames", vp), ("framerate", f32), ("flags", u32), ("size", f64)])
ClipInfo = _struct("ossa_clip_info", [
    ("name", cp), ("num_joints", u32), ("num_frames", u32), ("framerate", f32),
    ("duration", f64), ("flags", u32), ("parents", vp), ("bind_pose", vp), ("order", vp),
    ("simd", enum), ("memory", sz), ("compression", enum),
    ("max_error", f32), ("shell_distance", f32), ("measured_error", f32)])
ClipStats = _struct("ossa_clip_stats", [
    ("raw_bytes", sz), ("compressed_bytes", sz), ("max_error", f64), ("p99_error", f64),
    ("constant_tracks", u32), ("animated_tracks", u32), ("bits_histogram", u32 * 33)])
SampleJob = _struct("ossa_sample_job", [
    ("clip", vp), ("time", f64), ("wrap", enum), ("flags", u32), ("simd", enum),
    ("local", vp), ("model", vp), ("num_outputs", u32), ("cache", vp)])
LocalToModelJob = _struct("ossa_local_to_model_job", [
    ("num_joints", u32), ("parents", vp), ("local", vp), ("root", vp), ("model", vp),
    ("simd", enum), ("order", vp)])
SkinningJob = _struct("ossa_skinning_job", [
    ("num_vertices", u32), ("influences", u32), ("matrices", vp), ("normal_matrices", vp),
    ("num_matrices", u32),
    ("indices", vp), ("indices_stride", sz), ("weights", vp), ("weights_stride", sz),
    ("in_positions", vp), ("in_positions_stride", sz),
    ("out_positions", vp), ("out_positions_stride", sz),
    ("in_normals", vp), ("in_normals_stride", sz),
    ("out_normals", vp), ("out_normals_stride", sz),
    ("in_tangents", vp), ("in_tangents_stride", sz),
    ("out_tangents", vp), ("out_tangents_stride", sz),
    ("simd", enum)])
BlendLayer = _struct("ossa_blend_layer", [("pose", vp), ("weight", f32), ("joint_weights", vp)])
BlendJob = _struct("ossa_blend_job", [
    ("num_joints", u32), ("layers", vp), ("num_layers", u32), ("additive", vp),
    ("num_additive", u32), ("rest_pose", vp), ("threshold", f32), ("output", vp)])
RootMotion = _struct("ossa_root_motion", [("translation", f32 * 3), ("yaw", f32)])

# -- render.h -----------------------------------------------------------------

RenderSceneOptions = _struct("ossa_render_scene_options", [
    ("struct_size", u32), ("allocator", vp), ("flags", u32)])
RenderSceneInfo = _struct("ossa_render_scene_info", [
    ("num_vertices", u32), ("num_triangles", u32), ("num_meshes", u32), ("num_joints", u32),
    ("generated_normals", cint), ("two_sided_meshes", u32), ("textured_meshes", u32),
    ("bind_bounds", Bounds), ("memory", sz)])
RenderCameraOptions = _struct("ossa_render_camera_options", [
    ("struct_size", u32), ("view", enum), ("flags", u32), ("yaw", f32), ("pitch", f32),
    ("distance", f32), ("fov", f32), ("margin", f32), ("front", enum)])
RenderCamera = _struct("ossa_render_camera", [
    ("view", f32 * 16), ("projection", f32 * 16), ("orthographic", cint),
    ("near_plane", f32), ("far_plane", f32), ("up", f32 * 3), ("ground", f32),
    ("ground_center", f32 * 3), ("grid_spacing", f32), ("grid_extent", f32)])
RenderImage = _struct("ossa_render_image", [
    ("width", u32), ("height", u32), ("pixels", vp), ("stride", sz), ("depth", vp)])
RenderOptions = _struct("ossa_render_options", [
    ("struct_size", u32), ("camera", P(RenderCamera)), ("pose", vp), ("num_pose", u32),
    ("flags", u32), ("supersample", u32), ("threads", u32), ("background", u8 * 4),
    ("light", f32 * 3), ("ambient", f32), ("diffuse", f32), ("rim", f32), ("rim_power", f32),
    ("simd", enum)])
RenderGifOptions = _struct("ossa_render_gif_options", [
    ("struct_size", u32), ("allocator", vp), ("width", u32), ("height", u32), ("fps", f32),
    ("flags", u32)])

# Every struct above, for the layout test.
STRUCTS = [v for v in list(globals().values())
           if isinstance(v, type) and issubclass(v, Struct) and v is not Struct]

# -- numpy dtypes ----------------------------------------------------------------

_T = Transform
TRANSFORM = np.dtype({
    "names": ["translation", "rotation", "scale"],
    "formats": [("<f4", (3,)), ("<f4", (4,)), ("<f4", (3,))],
    "offsets": [_T.translation.offset, _T.rotation.offset, _T.scale.offset],
    "itemsize": ctypes.sizeof(_T)})
"""One joint transform: translation (3), rotation (quaternion x y z w), scale (3)."""

JOINT = np.dtype({
    "names": ["name", "parent", "bind"],
    "formats": [np.uintp, "<i4", TRANSFORM],
    "offsets": [Joint.name.offset, Joint.parent.offset, Joint.bind.offset],
    "itemsize": ctypes.sizeof(Joint)})

BOUNDS = np.dtype({
    "names": ["min", "max", "xy_radius", "radius"],
    "formats": [("<f4", (3,)), ("<f4", (3,)), "<f4", "<f4"],
    "offsets": [Bounds.min.offset, Bounds.max.offset, Bounds.xy_radius.offset,
                Bounds.radius.offset],
    "itemsize": ctypes.sizeof(Bounds)})
"""Per-frame bounds: box min and max, and the radii from the origin."""

# Component formats (ossa_component) as numpy types.
COMPONENT_DTYPES = {0: np.int8, 1: np.uint8, 2: np.int16, 3: np.uint16, 4: np.int32,
                    5: np.uint32, 6: np.float16, 7: np.float32, 8: np.float64}
