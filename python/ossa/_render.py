"""Pictures: ossa.render as ``ossa render`` draws them (cli/render_output.c),
PNG and GIF files (libossa-render)."""

import ctypes
import math
import os

import numpy as np

from . import _errors as E
from . import _lib
from . import _structs as S
from ._model import Model, _copy

GRID, SHADOW, SKELETON, HIDE_MODEL, TRANSPARENT, TWO_SIDED, NO_TEXTURES = (
    1, 2, 4, 8, 16, 32, 64)
CAMERA_ORTHOGRAPHIC, CAMERA_YAW, CAMERA_PITCH = 1, 2, 4
VIEWS = {"front": 1, "side": 2, "back": 3, "top": 4, "34": 5, "three-quarter": 5, None: 0}
BIND_POSE = 2 ** 32 - 1
DEFAULT_BACKGROUND = (48, 52, 60, 255)


def _color(background):
    """(RGBA, flags) from "RRGGBB", "RRGGBBAA" (a leading '#' allowed),
    "transparent" or a tuple of 3 or 4 numbers 0..255."""
    if background is None:
        return (0, 0, 0, 0), 0
    if isinstance(background, str):
        s = background
        if s == "transparent":
            return (0, 0, 0, 0), TRANSPARENT
        s = s[1:] if s.startswith("#") else s
        try:
            if len(s) not in (6, 8) or not all(c in "0123456789abcdefABCDEF" for c in s):
                raise ValueError
            rgba = tuple(int(s[i:i + 2], 16) for i in range(0, len(s), 2)) + ((255,) if len(s) == 6 else ())
        except ValueError:
            raise E.argument_error("--background needs RRGGBB, RRGGBBAA or 'transparent', not '%s'"
                                   % background) from None
    else:
        rgba = tuple(int(c) for c in background) + ((255,) if len(background) == 3 else ())
        if len(rgba) != 4 or not all(0 <= c <= 255 for c in rgba):
            raise E.argument_error("background needs 3 or 4 values 0..255, not %r" % (background,))
    # All zero would mean "the default" to the library.
    return rgba, TRANSPARENT if not any(rgba) else 0


def _image_struct(pixels, stride=0):
    h, w = pixels.shape[:2]
    img = S.RenderImage()
    img.width, img.height = w, h
    img.pixels = pixels.ctypes.data
    img.stride = stride
    return img


def _as_rgba(image):
    a = np.ascontiguousarray(image, np.uint8)
    if a.ndim != 3 or a.shape[2] != 4:
        raise ValueError("an image must be (height, width, 4) uint8, not %s" % (a.shape,))
    return a


def _cpus():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class _Stage:
    """The scene, camera and clip of one output (render_output.c's stage)."""

    def __init__(self, model, animation, width, height, camera, textures):
        self.model = model
        err = S.Diagnostic()
        self.scene = _lib.ossa_render_scene_create(model._owner.ptr, None, ctypes.byref(err))
        if not self.scene:
            E.raise_error(err, model.path)
        self.warnings = E.Collector(model.path or "model")
        # A model without a file (a builder's) may hold its images itself.
        if textures:
            _lib.ossa_render_scene_load_materials(
                self.scene, model._owner.ptr, E.c_string(model.path) if model.path else None,
                self.warnings.fn, None)
        bounds = S.Bounds()
        self.camera = S.RenderCamera()
        # the views look at the side the model faces (its format's front)
        camera.front = model._m.front
        if (_lib.ossa_render_bounds(model._owner.ptr, BIND_POSE if animation is None else animation,
                                    ctypes.byref(bounds), ctypes.byref(err)) != 0 or
                _lib.ossa_render_camera_frame(ctypes.byref(camera), ctypes.byref(bounds), 0,
                                              width, height, ctypes.byref(self.camera),
                                              ctypes.byref(err)) != 0):
            self.free()
            E.raise_error(err, model.path)
        self.clip = model.clip(animation) if animation is not None else None

    def draw(self, frame, pixels, stride, options):
        o = S.RenderOptions()
        ctypes.memmove(ctypes.byref(o), ctypes.byref(options), ctypes.sizeof(o))
        o.camera = ctypes.pointer(self.camera)
        pose = None
        if self.clip is not None:
            pose = self.clip.sample(frame, frames=True, local=False).model
            flat = np.ascontiguousarray(np.swapaxes(pose, -1, -2))
            o.pose = flat.ctypes.data
            o.num_pose = self.clip.num_joints
        img = _image_struct(pixels, stride)
        err = S.Diagnostic()
        st = _lib.ossa_render_run(self.scene, ctypes.byref(o), ctypes.byref(img), ctypes.byref(err))
        del pose
        if st != 0:
            E.raise_error(err, self.model.path)

    def free(self):
        if self.scene:
            _lib.ossa_render_scene_free(self.scene)
            self.scene = None

    def __del__(self):
        self.free()


def _turn(up, rotate):
    """The rotation of ``up`` and ``rotate`` (x, y, z, w), or None."""
    from ._convert import _euler_quat, _quat_mul, _number
    q = [0.0, 0.0, 0.0, 1.0]
    if up == "y":  # +90 degrees about X: Y up becomes Z up
        q = [math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)]
    if rotate is not None:
        if len(rotate) != 3 or not all(_number(x) for x in rotate):
            raise E.argument_error("--rotate wants X,Y,Z in degrees, not '%s'" % (rotate,))
        q = _quat_mul(_euler_quat([float(x) for x in rotate]), q)
    elif up is None:
        return None
    return q


def _turned(model, q):
    """A copy of the model turned by the quaternion q (ossa_model_rotate)."""
    ptr = _copy(model)
    err = S.Diagnostic()
    if _lib.ossa_model_rotate(ptr, (ctypes.c_float * 4)(*q), ctypes.byref(err)) != 0:
        _lib.ossa_model_free(ptr)
        E.raise_error(err, model.path)
    return Model._wrap(ptr, model.path)


def _label(frame, framerate):
    def num(v, decimals):
        s = "%.*f" % (decimals, v)
        return s.rstrip("0").rstrip(".") if "." in s else s
    return "FRAME %s  %sS" % (num(frame, 2), num(frame / framerate if framerate else 0, 3))


def render(model, animation=None, *, time=None, frame=None, size=(512, 512), view=None,
           yaw=None, pitch=None, distance=None, ortho=False, skeleton=False, plain=False,
           background=None, aa=2, threads=None, textures=True, up=None, rotate=None, sheet=None,
           gif=False, fps=None, output=None):
    """Draws the model, posed and skinned, with the library's software
    rasterizer, as ``ossa render`` does (same options, same pixels).

    A still by default: the bind pose, or animation ``animation`` (index or
    name; default the first) at ``time`` seconds or frame position
    ``frame``; returns an (height, width, 4) uint8 RGBA array. ``sheet=N``
    gives a contact sheet of N evenly spaced frames, labelled (each cell
    ``size``); ``gif=True`` every frame of the animation at ``fps`` (default
    the animation's), returned as (frames, height, width, 4). ``output``
    writes the picture as a PNG (or the GIF) too.

    ``size`` is (width, height); ``view`` "front", "side", "back", "top" or
    "34" (three-quarter, the default); ``yaw``/``pitch`` in degrees replace
    the view's; ``distance`` in model units; ``ortho`` a parallel
    projection; ``skeleton`` draws the bones; ``plain`` the model alone (no
    grid, shadow or labels); ``background`` "RRGGBB", "RRGGBBAA",
    "transparent" or an (r, g, b[, a]) tuple; ``aa`` N x N samples per
    pixel (1-4); ``threads`` (default: the CPUs, at most 8; the pixels do
    not depend on it); ``textures=False`` draws flat colours; ``up="y"``
    stands a Y-up model upright ("z", what readers give, is the default) and ``rotate`` ((x, y, z) Euler degrees, q =
    qz * qy * qx, after ``up``) turns the model before drawing, as convert's
    ``rotate`` does (on a copy: the Model does not change)."""
    if not isinstance(model, Model):
        raise TypeError("render() takes an ossa.Model")
    if time is not None and frame is not None:
        raise E.argument_error("--time and --frame exclude each other")
    if gif and sheet:
        raise E.argument_error("--gif and --sheet exclude each other")
    if (gif or sheet) and (time is not None or frame is not None):
        raise E.argument_error("--%s shows the whole animation: --time and --frame are for a "
                               "still picture" % ("gif" if gif else "sheet"))
    if output is not None:
        want = ".gif" if gif else ".png"
        if not os.fspath(output).lower().endswith(want) or len(os.fspath(output)) <= len(want):
            raise E.argument_error("'%s' does not end in %s, and %s is what %s writes" % (
                os.fspath(output), want, want[1:], "--gif" if gif else "--sheet" if sheet
                else "a still"))
    if up not in (None, "y", "z"):
        raise E.argument_error("--up is y or z, not '%s'" % (up,))
    turn = _turn(up, rotate)
    if sheet is not None and not (isinstance(sheet, int) and 1 <= sheet <= 1024):
        raise E.argument_error("--sheet needs a number of frames 1..1024, not '%s'" % (sheet,))
    width, height = (256, 256) if sheet and size == (512, 512) else size
    if not (1 <= width <= 8192 and 1 <= height <= 8192):
        raise E.argument_error("--size needs WIDTHxHEIGHT, each 1..8192, not '%dx%d'"
                               % (width, height))
    camera = S.RenderCameraOptions()
    camera.struct_size = ctypes.sizeof(camera)
    if view not in VIEWS:
        raise E.argument_error("unknown view '%s' (front, side, back, top, 34)" % (view,))
    camera.view = VIEWS[view]
    if yaw is not None:
        camera.yaw, camera.flags = yaw, camera.flags | CAMERA_YAW
    if pitch is not None:
        if not -90 <= pitch <= 90:
            raise E.argument_error("--pitch needs degrees from -90 to 90, not '%s'" % (pitch,))
        camera.pitch, camera.flags = pitch, camera.flags | CAMERA_PITCH
    if distance is not None:
        if not (0 < distance <= 1e30):
            raise E.argument_error("--distance needs a positive number, not '%s'" % (distance,))
        camera.distance = distance
    if ortho:
        camera.flags |= CAMERA_ORTHOGRAPHIC
    flags, labels = GRID | SHADOW, True
    if plain:
        if skeleton:
            raise E.argument_error("--plain draws the model alone: no --skeleton")
        flags, labels = 0, False
    if skeleton:
        flags |= SKELETON
    if not textures:
        flags |= NO_TEXTURES
    rgba, extra = _color(background)
    flags |= extra
    if aa not in (1, 2, 3, 4):
        raise E.argument_error("--aa needs 1, 2, 3 or 4, not '%s'" % (aa,))
    if width * aa > 16384 or height * aa > 16384:
        raise E.argument_error("--size times --aa exceeds 16384 pixels on a side")
    if threads is None:
        threads = max(1, min(8, _cpus()))
    if not (isinstance(threads, int) and 1 <= threads <= 64):
        raise E.argument_error("--threads needs 1..64, not '%s'" % (threads,))
    if animation is not None:
        animation = model.animation_index(animation)
    elif time is not None or frame is not None or sheet or gif:
        if not model.animations:
            raise E.argument_error("%s: no animation to %s (the model has none)" % (
                model.path or "model", "animate" if gif else "lay out" if sheet else "sample"))
        animation = 0
    if model.num_triangles == 0 and model.num_joints and not plain:
        flags |= SKELETON
    if turn is not None:
        model = _turned(model, turn)
    options = S.RenderOptions()
    options.struct_size = ctypes.sizeof(options)
    options.flags = flags
    options.supersample = aa
    options.threads = threads
    options.background[:] = rgba
    if gif:
        return _gif(model, animation, width, height, camera, options, textures, fps, output)
    if sheet:
        return _sheet(model, animation, width, height, camera, options, textures, sheet, labels,
                      output)
    # An animation given without a moment shows its frame 0, framed on the
    # whole animation, as the tool draws it.
    stage = _Stage(model, animation, width, height, camera, textures)
    try:
        pixels = np.empty((height, width, 4), np.uint8)
        f = 0.0
        if stage.clip is not None:
            f = frame if frame is not None else (time or 0.0) * stage.clip.framerate
        stage.draw(f, pixels, 0, options)
    finally:
        stage.free()
        stage.warnings.emit(4)
    if output is not None:
        write_png(pixels, output)
    return pixels


def _sheet(model, animation, cw, ch, camera, options, textures, n, labels, output):
    cols = 1
    while cols * cols < n:
        cols += 1
    rows = (n + cols - 1) // cols
    if cw * cols > 8192 or ch * rows > 8192:
        raise E.argument_error("a sheet of %dx%d cells of %dx%d pixels exceeds 8192 pixels on a "
                               "side; use a smaller size" % (cols, rows, cw, ch))
    stage = _Stage(model, animation, cw, ch, camera, textures)
    try:
        W, H = cw * cols, ch * rows
        sheet = np.zeros((H, W, 4), np.uint8)
        # Cells without a frame (5 frames in a 3x2 grid) show the background,
        # as the drawn cells' own background does.
        if not options.flags & TRANSPARENT:
            sheet[...] = tuple(options.background) if any(options.background) else DEFAULT_BACKGROUND
        clip = stage.clip
        loops = clip.loop
        span = (clip.num_frames if loops else clip.num_frames - 1.0)
        for i in range(n):
            f = span * i / n if loops or n == 1 else span * i / (n - 1)
            y, x = (i // cols) * ch, (i % cols) * cw
            cell = sheet[y:y + ch, x:x + cw]
            stage.draw(f, cell, W * 4, options)
            if not labels:
                continue
            scale = 2 if cw >= 192 else 1
            band = cell[:min(7 * scale, ch), :, :3]
            band[...] = (band.astype(np.uint32) * (255 - 150) // 255).astype(np.uint8)
            img = _image_struct(cell, W * 4)
            ink = (ctypes.c_uint8 * 4)(235, 235, 235, 255)
            _lib.ossa_render_text(ctypes.byref(img), scale, scale, scale, ink,
                                  _label(f, clip.framerate).encode())
    finally:
        stage.free()
        stage.warnings.emit(5)
    if output is not None:
        write_png(sheet, output)
    return sheet


def _gif(model, animation, width, height, camera, options, textures, fps, output):
    stage = _Stage(model, animation, width, height, camera, textures)
    try:
        clip = stage.clip
        rate = clip.framerate if clip else 30.0
        fps = fps if fps and fps > 0 else rate
        count = 1
        if clip:
            frames = (clip.num_frames * fps / rate if clip.loop
                      else (clip.num_frames - 1) * fps / rate + 1)
            count = 1 if frames < 1 else 100000 if frames > 100000 else int(math.floor(frames + 1e-6))
        out = np.empty((count, height, width, 4), np.uint8)
        for i in range(count):
            stage.draw(i * rate / fps, out[i], 0, options)
    finally:
        stage.free()
        stage.warnings.emit(5)
    if output is not None:
        write_gif(out, output, fps=fps)
    return out


# -- Files ------------------------------------------------------------------------------


def encode_png(image):
    """An (height, width, 4) uint8 RGBA image as the bytes of a PNG file."""
    a = _as_rgba(image)
    img = _image_struct(a)
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    err = S.Diagnostic()
    E.check(_lib.ossa_render_png_encode(ctypes.byref(img), None, ctypes.byref(data),
                                        ctypes.byref(size), ctypes.byref(err)), err)
    try:
        return ctypes.string_at(data, size.value)
    finally:
        _lib.ossa_free(data, None)


def write_png(image, path):
    """Writes an (height, width, 4) uint8 RGBA image as a PNG file (atomically)."""
    a = _as_rgba(image)
    img = _image_struct(a)
    path = os.fspath(path)
    err = S.Diagnostic()
    E.check(_lib.ossa_render_png_write(ctypes.byref(img), E.c_string(path), ctypes.byref(err)),
            err, path)


def read_png(source):
    """A PNG file (path or bytes) as an (height, width, 4) uint8 RGBA array."""
    data = open(source, "rb").read() if isinstance(source, (str, os.PathLike)) else bytes(source)
    img = S.RenderImage()
    err = S.Diagnostic()
    E.check(_lib.ossa_render_png_decode(data, len(data), None, ctypes.byref(img),
                                        ctypes.byref(err)), err,
            os.fspath(source) if isinstance(source, (str, os.PathLike)) else None)
    try:
        return np.ctypeslib.as_array((ctypes.c_uint8 * (img.width * img.height * 4))
                                     .from_address(img.pixels)).reshape(img.height, img.width, 4).copy()
    finally:
        _lib.ossa_free(img.pixels, None)


def encode_gif(frames, fps=30.0, loop=True):
    """(n, height, width, 4) uint8 RGBA frames as the bytes of an animated
    GIF (a palette per frame; alpha below 128 transparent)."""
    return _gif_file(frames, fps, loop, None)


def write_gif(frames, path, fps=30.0, loop=True):
    """Writes (n, height, width, 4) uint8 RGBA frames as an animated GIF
    file (atomically)."""
    _gif_file(frames, fps, loop, os.fspath(path))


def _gif_file(frames, fps, loop, path):
    f = np.asarray(frames, np.uint8)
    if f.ndim == 3:
        f = f[None]
    if f.ndim != 4 or f.shape[3] != 4:
        raise ValueError("GIF frames must be (n, height, width, 4) uint8, not %s" % (f.shape,))
    o = S.RenderGifOptions()
    o.struct_size = ctypes.sizeof(o)
    o.height, o.width = f.shape[1:3]
    o.fps = fps
    o.flags = 0 if loop else 1
    err = S.Diagnostic()
    gif = _lib.ossa_render_gif_create(ctypes.byref(o), ctypes.byref(err))
    if not gif:
        E.raise_error(err, path)
    try:
        for frame in f:
            frame = np.ascontiguousarray(frame)
            img = _image_struct(frame)
            E.check(_lib.ossa_render_gif_add_frame(gif, ctypes.byref(img), ctypes.byref(err)),
                    err, path)
        if path is not None:
            E.check(_lib.ossa_render_gif_write(gif, E.c_string(path), ctypes.byref(err)), err, path)
            return None
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        E.check(_lib.ossa_render_gif_finish(gif, ctypes.byref(data), ctypes.byref(size),
                                            ctypes.byref(err)), err)
        try:
            return ctypes.string_at(data, size.value)
        finally:
            _lib.ossa_free(data, None)
    finally:
        _lib.ossa_render_gif_free(gif)
