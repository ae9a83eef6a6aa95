"""Finding and loading the C libraries, and the prototypes of their calls.

The three shared libraries are looked for in this order, and the first
directory that holds all three wins:

1. the directories of the environment variable ``OSSA_LIBRARY_PATH``
   (separated by ``os.pathsep``);
2. next to the package: ``ossa/_libs/`` (what ``pip install ./python``
   builds), then the library directory ``make install`` recorded in
   ``ossa/_libdir.py``;
3. the system's dynamic loader, by soname (``ldconfig``'s cache,
   ``LD_LIBRARY_PATH``).

libossa-runtime is loaded first: libossa and libossa-render name it (and
libossa) by soname, and the dynamic loader takes an object already loaded
under that soname instead of searching again, so the three always come from
one place. Every call goes through ``ctypes.CDLL``, which releases the GIL
for the duration of each foreign call.
"""

import ctypes
import os

from . import _structs as S

# The library version this package is written for: the sonames carry
# MAJOR.MINOR before 1.0 (CMakeLists.txt), and the struct layouts of
# _structs.py are those of this version's headers.
VERSION = (0, 2)

_NAMES = ("ossa-runtime", "ossa", "ossa-render")


def _soname(name):
    major, minor = VERSION
    return "lib%s.so.%d.%d" % (name, major, minor) if major == 0 else "lib%s.so.%d" % (name, major)


def _candidates():
    """(description, directory or None) in the order they are tried."""
    out = []
    env = os.environ.get("OSSA_LIBRARY_PATH", "")
    for d in env.split(os.pathsep):
        if d:
            out.append(("OSSA_LIBRARY_PATH", d))
    here = os.path.dirname(os.path.abspath(__file__))
    out.append(("next to the package", os.path.join(here, "_libs")))
    try:
        from . import _libdir  # written by `make install`
        out.append(("the directory make install recorded", _libdir.LIBDIR))
    except ImportError:
        pass
    out.append(("the system's dynamic loader", None))
    return out


class LibraryNotFound(ImportError):
    """None of the places searched holds the three ossa libraries."""


def _open_from(directory):
    libs = {}
    mode = getattr(os, "RTLD_NOW", 2)
    for name in _NAMES:
        soname = _soname(name)
        if directory is None:
            libs[name] = ctypes.CDLL(soname, mode=mode)
            continue
        path = os.path.join(directory, soname)
        if not os.path.exists(path):
            raise OSError("%s is not there" % path)
        libs[name] = ctypes.CDLL(path, mode=mode)
    return libs


def _find():
    tried = []
    for what, directory in _candidates():
        try:
            libs = _open_from(directory)
        except OSError as e:
            tried.append("  %s (%s): %s" % (what, directory or "by soname", e))
            continue
        return libs, (directory or "the system's dynamic loader")
    raise LibraryNotFound(
        "ossa: cannot find the C libraries %s; looked in, in order:\n%s\n"
        "Build them (make build, then set OSSA_LIBRARY_PATH to the build directory), "
        "install them (make install), or install the package with pip, which builds them."
        % (", ".join(_soname(n) for n in _NAMES), "\n".join(tried)))


_libs, LOCATION = _find()
runtime = _libs["ossa-runtime"]
model = _libs["ossa"]
render = _libs["ossa-render"]

_version = runtime.ossa_version_string
_version.restype = ctypes.c_char_p
_version.argtypes = []
LIBRARY_VERSION = _version().decode()
if tuple(int(x) for x in LIBRARY_VERSION.split(".")[:2]) != VERSION:
    raise ImportError("ossa: the library in %s is version %s; this package needs %d.%d"
                      % (LOCATION, LIBRARY_VERSION, VERSION[0], VERSION[1]))

# -- Prototypes ---------------------------------------------------------------

P = ctypes.POINTER
vp = ctypes.c_void_p
cp = ctypes.c_char_p
u32 = ctypes.c_uint32
i32 = ctypes.c_int32
sz = ctypes.c_size_t
cint = ctypes.c_int
f32 = ctypes.c_float
f64 = ctypes.c_double
ERR = P(S.Diagnostic)


def _proto(lib, name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    globals()[name] = f


# common.h (libossa-runtime)
_proto(runtime, "ossa_error_format", cp, ERR, cp, sz)
_proto(runtime, "ossa_code_name", cp, cint)
_proto(runtime, "ossa_free", None, vp, vp)

# model.h (libossa)
_proto(model, "ossa_model_create", vp, vp)
_proto(model, "ossa_model_free", None, vp)
_proto(model, "ossa_model_add_joint", i32, vp, cp, i32, P(S.Transform), ERR)
_proto(model, "ossa_model_set_num_vertices", cint, vp, u32, ERR)
_proto(model, "ossa_model_add_vertex_array", vp, vp, cint, cint, u32, cp, vp, ERR)
_proto(model, "ossa_model_set_triangles", cint, vp, u32, vp, ERR)
_proto(model, "ossa_model_add_mesh", i32, vp, cp, cp, u32, u32, u32, u32, ERR)
_proto(model, "ossa_model_add_animation", vp, vp, cp, u32, f32, u32, ERR)
_proto(model, "ossa_model_set_animation_frames", cint, vp, u32, u32, u32, vp, ERR)
_proto(model, "ossa_model_set_animation_bounds", cint, vp, u32, vp, ERR)
_proto(model, "ossa_model_set_comment", cint, vp, vp, sz, ERR)
_proto(model, "ossa_model_add_extra", cint, vp, cp, vp, sz, ERR)
_proto(model, "ossa_model_merge", cint, vp, vp, ERR)
_proto(model, "ossa_model_scale", cint, vp, f32, ERR)
_proto(model, "ossa_model_translate_meshes", cint, vp, P(f32), ERR)
_proto(model, "ossa_model_rotate", cint, vp, P(f32), ERR)
_proto(model, "ossa_model_apply_rest_pose", cint, vp, ERR)
_proto(model, "ossa_model_force_joints", None, vp)
_proto(model, "ossa_model_append_meshes", cint, vp, vp, ERR)
_proto(model, "ossa_animation_range", cint, u32, ctypes.c_int64, ctypes.c_int64, P(u32), P(u32), ERR)
_proto(model, "ossa_model_trim_animation", cint, vp, u32, u32, u32, ERR)
_proto(model, "ossa_model_set_animation_timing", cint, vp, u32, f32, u32, ERR)
_proto(model, "ossa_model_rename_animation", cint, vp, u32, cp, ERR)
_proto(model, "ossa_model_remove_animation", cint, vp, u32, ERR)
_proto(model, "ossa_model_resample_animation", cint, vp, u32, f32, ERR)
_proto(model, "ossa_model_find_joint", i32, vp, cp)
_proto(model, "ossa_model_find_animation", i32, vp, cp)
_proto(model, "ossa_vertex_array_read", cint, vp, vp, u32, u32, vp)
_proto(model, "ossa_local_to_model", None, vp, vp, vp)
_proto(model, "ossa_model_inverse_bind_matrices", u32, vp, vp)
_proto(model, "ossa_model_compute_bounds", cint, vp, u32, cint, vp, ERR)
_proto(model, "ossa_model_validate", cint, vp, S.DIAGNOSTIC_FN, vp, ERR)
_proto(model, "ossa_model_get_material", cint, vp, cp, P(S.Material))
_proto(model, "ossa_model_get_image", vp, vp, cp, P(sz))
_proto(model, "ossa_format_options", u32, cint, cint, P(P(S.OptionInfo)))
_proto(model, "ossa_load_memory", vp, vp, sz, P(S.LoadOptions), ERR)
_proto(model, "ossa_load_file", vp, cp, P(S.LoadOptions), ERR)
_proto(model, "ossa_write_memory", cint, vp, P(S.WriteOptions), P(vp), P(sz), ERR)
_proto(model, "ossa_write_file", cint, vp, cp, P(S.WriteOptions), ERR)
_proto(model, "ossa_write_output_files", cint, P(S.OutputFile), sz, P(S.WriteOptions), ERR)
_proto(model, "ossa_clip_create", vp, vp, u32, P(S.ClipOptions), ERR)
_proto(model, "ossa_clip_measure", cint, vp, u32, vp, P(S.ClipStats), ERR)
_proto(model, "ossa_format_from_name", cint, cp)
_proto(model, "ossa_format_name", cp, cint)
_proto(model, "ossa_format_list", u32, P(cint), u32)
_proto(model, "ossa_format_can_read", cint, cint)
_proto(model, "ossa_format_can_write", cint, cint)
_proto(model, "ossa_format_holds", u32, cint)
_proto(model, "ossa_format_extensions", cp, cint)
_proto(model, "ossa_format_detect", cint, vp, sz)
_proto(model, "ossa_component_name", cp, cint)
_proto(model, "ossa_vertex_type_name", cp, cint)

# runtime.h (libossa-runtime)
_proto(runtime, "ossa_simd_best", cint)
_proto(runtime, "ossa_simd_supported", cint, cint)
_proto(runtime, "ossa_clip_build", vp, P(S.ClipSource), P(S.ClipOptions), ERR)
_proto(runtime, "ossa_clip_free", None, vp)
_proto(runtime, "ossa_clip_get_info", None, vp, P(S.ClipInfo))
_proto(runtime, "ossa_clip_data", vp, vp, P(sz))
_proto(runtime, "ossa_clip_save", cint, vp, cp, ERR)
_proto(runtime, "ossa_clip_load_memory", vp, vp, sz, vp, ERR)
_proto(runtime, "ossa_clip_load_file", vp, cp, vp, ERR)
_proto(runtime, "ossa_clip_frame_at", f64, vp, f64, cint)
_proto(runtime, "ossa_sample_cache_create", vp, u32, vp, ERR)
_proto(runtime, "ossa_sample_cache_free", None, vp)
_proto(runtime, "ossa_sample_run", cint, P(S.SampleJob), ERR)
_proto(runtime, "ossa_sample_run_many", cint, P(S.SampleJob), vp, sz, ERR)
_proto(runtime, "ossa_local_to_model_run", cint, P(S.LocalToModelJob), ERR)
_proto(runtime, "ossa_skinning_matrices", None, u32, vp, vp, vp)
_proto(runtime, "ossa_normal_matrices", None, u32, vp, vp)
_proto(runtime, "ossa_skinning_run", cint, P(S.SkinningJob), ERR)
_proto(runtime, "ossa_blend_run", cint, P(S.BlendJob), ERR)
_proto(runtime, "ossa_pose_make_additive", None, u32, vp, vp, vp)
_proto(runtime, "ossa_clip_root_motion", None, vp, f64, f64, cint, P(S.RootMotion))

# render.h (libossa-render)
_proto(render, "ossa_render_scene_create", vp, vp, P(S.RenderSceneOptions), ERR)
_proto(render, "ossa_render_scene_free", None, vp)
_proto(render, "ossa_render_scene_get_info", None, vp, P(S.RenderSceneInfo))
_proto(render, "ossa_render_scene_load_materials", u32, vp, vp, cp, S.DIAGNOSTIC_FN, vp)
_proto(render, "ossa_render_camera_frame", cint, P(S.RenderCameraOptions), P(S.Bounds), cint,
       u32, u32, P(S.RenderCamera), ERR)
_proto(render, "ossa_render_bounds", cint, vp, u32, P(S.Bounds), ERR)
_proto(render, "ossa_render_run", cint, vp, P(S.RenderOptions), P(S.RenderImage), ERR)
_proto(render, "ossa_render_text", u32, P(S.RenderImage), i32, i32, u32, P(ctypes.c_uint8), cp)
_proto(render, "ossa_render_png_encode", cint, P(S.RenderImage), vp, P(vp), P(sz), ERR)
_proto(render, "ossa_render_png_decode", cint, vp, sz, vp, P(S.RenderImage), ERR)
_proto(render, "ossa_render_png_write", cint, P(S.RenderImage), cp, ERR)
_proto(render, "ossa_render_gif_create", vp, P(S.RenderGifOptions), ERR)
_proto(render, "ossa_render_gif_add_frame", cint, vp, P(S.RenderImage), ERR)
_proto(render, "ossa_render_gif_finish", cint, vp, P(vp), P(sz), ERR)
_proto(render, "ossa_render_gif_write", cint, vp, cp, ERR)
_proto(render, "ossa_render_gif_free", None, vp)
