"""The model: loading, the arrays that view it, writing it."""

import ctypes
import os
from functools import cached_property

import numpy as np

from . import _errors as E
from . import _lib
from . import _memory as M
from . import _options as O
from . import _structs as S

# OSSA_MODEL_* flags (model.h)
MODEL_SKELETON_FROM_POSES = 1
MODEL_LINEAR_COLORS = 8
ANIMATION_LOOP = 1
EXTRA_IMAGE = "ossa.image:"
EXTRA_MATERIAL = "ossa.material:"
TEXTURE_SLOTS = ("base_color", "metallic_roughness", "normal", "occlusion", "emissive")
ALPHA_MODES = ("opaque", "mask", "blend")
_NUM_WARNINGS = S.Model.num_warnings.offset
_c_uint32 = ctypes.c_uint32
_new, _Owner, _free = object.__new__, M.Owner, _lib.ossa_model_free


def _string(address):
    return ctypes.string_at(address).decode("utf-8", "surrogateescape") if address else ""


def _name_of(c):
    return (c or b"").decode("utf-8", "surrogateescape")


# -- Parts of a model -------------------------------------------------------------


class VertexArray:
    """One per-vertex attribute as stored: ``type`` ("position", "normal",
    "blendindexes", ..., "custom"), ``format`` ("float", "ubyte", ...),
    ``size`` (components per vertex), ``name`` (custom arrays) and
    ``data``, a read-only (num_vertices, size) view of the stored values
    in their own type. ``decoded()`` gives float32 values by IQM's rules
    (normalized integers to 0..1 or -1..1, blend indexes as integers)."""

    def __init__(self, model, index, c):
        self._model = model
        self.index = index
        self._c = c
        self.type = _lib.ossa_vertex_type_name(c.type).decode()
        self.format = _lib.ossa_component_name(c.format).decode()
        self.size = int(c.size)
        self.name = _name_of(c.name)

    @cached_property
    def data(self):
        dtype = S.COMPONENT_DTYPES.get(self._c.format)
        if dtype is None:
            raise E.argument_error("vertex array %d has an unknown format %d"
                                   % (self.index, self._c.format))
        return M.view(self._model._owner, self._c.data, dtype,
                      (self._model.num_vertices, self.size))

    def decoded(self):
        """A new float32 (num_vertices, size) array of the values."""
        m = self._model
        out = np.empty((m.num_vertices, self.size), np.float32)
        if m.num_vertices:
            address = m._m.vertex_arrays + self.index * ctypes.sizeof(S.VertexArray)
            if _lib.ossa_vertex_array_read(m._owner.ptr, address, 0, m.num_vertices,
                                           out.ctypes.data) != 0:
                raise E.argument_error("vertex array %d cannot be decoded" % self.index)
        return M.readonly(out)

    def floats(self):
        """The values as float32: a view when they are stored as floats,
        else ``decoded()``."""
        return self.data if self.format == "float" else self.decoded()

    def __repr__(self):
        return "VertexArray(%s %s x%d%s)" % (self.type, self.format, self.size,
                                             " %r" % self.name if self.name else "")


class Mesh:
    """A range of the model's vertices and triangles with a name and a
    material. Triangles hold model-global vertex indices (front faces
    clockwise); the attribute properties are views of the mesh's rows of
    the model's arrays."""

    def __init__(self, model, index, c):
        self._model = model
        self.index = index
        self.name = _name_of(c.name)
        self.material = _name_of(c.material)
        self.first_vertex = int(c.first_vertex)
        self.num_vertices = int(c.num_vertices)
        self.first_triangle = int(c.first_triangle)
        self.num_triangles = int(c.num_triangles)

    def _rows(self, a):
        return None if a is None else a[self.first_vertex:self.first_vertex + self.num_vertices]

    @property
    def triangles(self):
        """(num_triangles, 3) uint32: model-global vertex indices."""
        t = self._model.triangles
        return t[self.first_triangle:self.first_triangle + self.num_triangles]

    positions = property(lambda self: self._rows(self._model.positions),
                         doc="The mesh's rows of Model.positions.")
    normals = property(lambda self: self._rows(self._model.normals),
                       doc="The mesh's rows of Model.normals.")
    texcoords = property(lambda self: self._rows(self._model.texcoords),
                         doc="The mesh's rows of Model.texcoords.")
    colors = property(lambda self: self._rows(self._model.colors),
                      doc="The mesh's rows of Model.colors.")
    joint_indices = property(lambda self: self._rows(self._model.joint_indices),
                             doc="The mesh's rows of Model.joint_indices.")
    joint_weights = property(lambda self: self._rows(self._model.joint_weights),
                             doc="The mesh's rows of Model.joint_weights.")

    def __repr__(self):
        return "Mesh(%r, material %r, %d vertices, %d triangles)" % (
            self.name, self.material, self.num_vertices, self.num_triangles)


class Animation:
    """One animation: ``name``, ``num_frames``, ``framerate`` (frames per
    second; 0 = not specified, played at 30), ``loop``, and its decoded
    frames as views: ``frames`` (num_frames, num_joints) of
    ``ossa.TRANSFORM`` (parent-relative; rotations unit up to the
    source's quantization), ``bounds`` (num_frames of ``ossa.BOUNDS``, or
    None when the file stores none) and ``channels`` (per joint, which of
    translation 1, rotation 2, scale 4 the source animates; None = all)."""

    def __init__(self, model, index, c):
        self._model = model
        self.index = index
        self._c = c
        self.name = _name_of(c.name)
        self.num_frames = int(c.num_frames)
        self.framerate = float(c.framerate)
        self.flags = int(c.flags)
        self.loop = bool(self.flags & ANIMATION_LOOP)
        #: How the frames were made from the file's keys when the reader
        #: resampled them (glTF: "keys at 24 fps", "uneven keys: sampled at
        #: 60 fps, within 1e-4"), else None.
        self.sampling = c.sampling.decode("utf-8", "replace") if c.sampling else None

    @property
    def duration(self):
        """Seconds from the first frame to the time it starts again:
        num_frames / framerate (30 when the rate is not specified)."""
        rate = self.framerate if self.framerate > 0 else 30.0
        return self.num_frames / rate

    @cached_property
    def frames(self):
        m = self._model
        return M.view(m._owner, self._c.frames, S.TRANSFORM, (self.num_frames, m.num_joints))

    @property
    def translations(self):
        """(num_frames, num_joints, 3) float32 view."""
        return self.frames["translation"]

    @property
    def rotations(self):
        """(num_frames, num_joints, 4) float32 view, quaternions x y z w."""
        return self.frames["rotation"]

    @property
    def scales(self):
        """(num_frames, num_joints, 3) float32 view."""
        return self.frames["scale"]

    @cached_property
    def bounds(self):
        if not self._c.bounds:
            return None
        return M.view(self._model._owner, self._c.bounds, S.BOUNDS, (self.num_frames,))

    @cached_property
    def channels(self):
        if not self._c.channels:
            return None
        return M.view(self._model._owner, self._c.channels, np.uint8, (self._model.num_joints,))

    def clip(self, error=None, **options):
        """``Model.clip`` of this animation."""
        return self._model.clip(self.index, error=error, **options)

    def __repr__(self):
        return "Animation(%r, %d frames at %g fps%s)" % (
            self.name, self.num_frames, self.framerate, ", looping" if self.loop else "")


class Material:
    """How a material looks, glTF's metallic-roughness model (glTF's
    defaults where the model says nothing): ``base_color`` (linear RGBA),
    ``metallic``, ``roughness``, ``normal_scale``, ``occlusion_strength``,
    ``emissive`` (RGB), ``alpha_mode`` ("opaque", "mask", "blend"),
    ``alpha_cutoff``, ``double_sided`` and ``textures``, a dict from slot
    ("base_color", "metallic_roughness", "normal", "occlusion", "emissive")
    to a dict of ``image`` (name), ``texcoord`` and ``sampler`` (glTF's
    magFilter, minFilter, wrapS, wrapT; 0 = unspecified) for the slots that
    have one. ``described`` says whether the model holds anything about it."""

    def __init__(self, name, c, described):
        self.name = name
        self.described = described
        self.base_color = tuple(c.base_color)
        self.metallic = c.metallic
        self.roughness = c.roughness
        self.normal_scale = c.normal_scale
        self.occlusion_strength = c.occlusion_strength
        self.emissive = tuple(c.emissive)
        self.alpha_mode = ALPHA_MODES[c.alpha_mode] if 0 <= c.alpha_mode < 3 else "opaque"
        self.alpha_cutoff = c.alpha_cutoff
        self.double_sided = bool(c.double_sided)
        self.textures = {}
        for slot, t in zip(TEXTURE_SLOTS, c.textures):
            if t.image:
                self.textures[slot] = {"image": _name_of(t.image), "texcoord": int(t.texcoord),
                                       "sampler": tuple(t.sampler)}

    def __repr__(self):
        return "Material(%r, base_color %s%s)" % (
            self.name, self.base_color,
            ", texture %r" % self.textures["base_color"]["image"]
            if "base_color" in self.textures else "")


class Sample(tuple):
    """What sampling gives: ``local`` (parent-relative transforms,
    ``ossa.TRANSFORM``) and ``model`` (model-space 4x4 matrices, indexed
    [row, column]: the translation is ``model[..., :3, 3]``); either may be
    None when it was not asked for."""

    __slots__ = ()

    def __new__(cls, local, model):
        return tuple.__new__(cls, (local, model))

    local = property(lambda self: self[0], doc="Parent-relative transforms (ossa.TRANSFORM), or None.")
    model = property(lambda self: self[1],
                     doc="Model-space 4x4 matrices, float32, [row, column], or None.")


# -- The model --------------------------------------------------------------------


class Model:
    """A skeletal model as the library holds it: joints, vertex arrays,
    triangles, meshes, animations, materials and images.

    Arrays are read-only numpy views of the model's own memory where the
    stored layout allows (float vertex arrays, triangles, joints, frames,
    bounds, images): no copy is made, and a view keeps the memory alive
    after the Model object is gone. Other layouts (normalized integers,
    half floats) are decoded into new float32 arrays. A Model does not
    change; ``ossa.convert`` and ``ModelBuilder`` make new ones.

    Make one with ``ossa.load`` or ``ModelBuilder.build``."""

    def __init__(self, *args, **kwargs):
        raise TypeError("make a Model with ossa.load() or ossa.ModelBuilder().build()")

    @classmethod
    def _wrap(cls, ptr, path=None, warn_level=None, label=None):
        # Kept to the least work: a load from Python should cost what the
        # library's load costs (bench/bench_python.py measures it).
        self = _new(cls)
        self._owner = _Owner(ptr, _free)
        self.path = path
        self._label = path if label is None else label
        if warn_level is not None and _c_uint32.from_address(ptr + _NUM_WARNINGS).value:
            for w in self.warnings:
                E.warn(w, warn_level + 2)
        return self

    @cached_property
    def _m(self):
        """The C struct, read in place."""
        return S.Model.from_address(self._owner.ptr)

    # -- Counts and names --

    @property
    def format(self):
        """The format the model was read from ("iqm", "glb", ...), "auto"
        for a model made by a builder."""
        return O.FORMAT_NAMES.get(self._m.source_format, "auto")

    num_joints = property(lambda self: int(self._m.num_joints), doc="Number of joints.")
    num_vertices = property(lambda self: int(self._m.num_vertices),
                            doc="Number of vertices (shared by every vertex array).")
    num_triangles = property(lambda self: int(self._m.num_triangles), doc="Number of triangles.")

    @property
    def front(self):
        """Where the model's characters face in its model space (Z up): "-y",
        "+x", "+y", "-x" (the reader's format's convention: glTF, FBX, SMD
        and BVH face -Y; IQM, IQE, MD5, illEngine and OBJ +X), or "unknown"
        (a built model; SOTC). Writers turn a model to their format's front
        (``keep_front=True`` keeps it)."""
        f = int(self._m.front)
        return ("unknown", "-y", "+x", "+y", "-x")[f] if 0 <= f <= 4 else "unknown"

    @property
    def flags(self):
        """A set of "skeleton_from_poses" (the joints were made from an
        animation file's poses), "parents_unknown", "names_only",
        "linear_colors" (vertex colours are linear, as glTF's are, not sRGB),
        "rest_pose_reference" (animations pose the joints about a rest pose of
        their own, as BVH's: merged into a character they are retargeted) and
        "strict_joints" (merging refuses a joint the skeleton lacks, as an
        md5anim's)."""
        f = self._m.flags
        return {n for bit, n in ((1, "skeleton_from_poses"), (2, "parents_unknown"),
                                 (4, "names_only"), (MODEL_LINEAR_COLORS, "linear_colors"),
                                 (16, "rest_pose_reference"), (32, "strict_joints"))
                if f & bit}

    # -- Joints --

    @cached_property
    def _joints(self):
        return M.view(self._owner, self._m.joints, S.JOINT, (self.num_joints,))

    @cached_property
    def joint_names(self):
        """Joint names in joint order ("" where the file has none)."""
        return tuple(_string(int(a)) for a in self._joints["name"])

    @property
    def parents(self):
        """(num_joints,) int32: each joint's parent index (smaller than its
        own), -1 for roots. A view."""
        return self._joints["parent"]

    @property
    def bind_pose(self):
        """(num_joints,) ``ossa.TRANSFORM``: each joint's parent-relative
        bind pose. A view."""
        return self._joints["bind"]

    @cached_property
    def rest_pose(self):
        """(num_joints,) ``ossa.TRANSFORM``: each joint's parent-relative
        rest pose, where the joints stand without an animation as viewers
        show them. A glTF whose skin was bound elsewhere than its nodes rest
        keeps both (the nodes here, the inverse bind matrices in
        ``bind_pose``); every other model rests in its bind pose, and this
        is ``bind_pose``. A view."""
        m = self._m
        if not m.rest_pose:
            return self.bind_pose
        return M.view(self._owner, m.rest_pose, S.TRANSFORM, (self.num_joints,))

    @cached_property
    def bind_matrices(self):
        """(num_joints, 4, 4) float32: model-space bind matrices (the bind
        pose composed down the hierarchy; ``model.pose().model`` where the
        model rests in its bind pose)."""
        from . import _runtime
        return M.readonly(_runtime.rest_pose_sample(self, self.bind_pose).model)

    @cached_property
    def inverse_bind_matrices(self):
        """(num_joints, 4, 4) float32: their inverses, for skinning (a joint
        whose bind matrix is singular gets the identity)."""
        out = np.empty((self.num_joints, 16), np.float32)
        _lib.ossa_model_inverse_bind_matrices(self._owner.ptr, out.ctypes.data)
        return M.readonly(out.reshape(-1, 4, 4).swapaxes(1, 2))

    def find_joint(self, name):
        """The index of the first joint called ``name``, or -1."""
        return int(_lib.ossa_model_find_joint(self._owner.ptr, E.c_string(name)))

    # -- Geometry --

    @cached_property
    def vertex_arrays(self):
        """Every vertex array as stored (``VertexArray``), in the model's order."""
        base = self._m.vertex_arrays
        n = self._m.num_vertex_arrays
        cs = (S.VertexArray * n).from_address(base) if n else []
        return tuple(VertexArray(self, i, cs[i]) for i in range(n))

    def vertex_array(self, type, name=None):
        """The first array of ``type`` ("position", ..., or "custom" with its
        ``name``), or None."""
        for a in self.vertex_arrays:
            if a.type == type and (type != "custom" or name is None or a.name == name):
                return a
        return None

    def _floats(self, type):
        a = self.vertex_array(type)
        return None if a is None else a.floats()

    @cached_property
    def positions(self):
        """(num_vertices, 3) float32 bind-pose positions (a view when stored
        as floats), or None."""
        return self._floats("position")

    @cached_property
    def normals(self):
        """(num_vertices, 3) float32 normals, or None."""
        return self._floats("normal")

    @cached_property
    def tangents(self):
        """(num_vertices, 4) float32 tangents (xyz, bitangent sign), or None."""
        return self._floats("tangent")

    @cached_property
    def texcoords(self):
        """(num_vertices, 2) float32 texture coordinates, or None."""
        return self._floats("texcoord")

    @cached_property
    def colors(self):
        """(num_vertices, n) float32 colours in 0..1 (a view when stored as
        floats; ubyte colours are decoded), or None."""
        return self._floats("color")

    @cached_property
    def joint_indices(self):
        """(num_vertices, k) joint indices per vertex as stored (a view of
        ubyte, ushort, ... values), or None."""
        a = self.vertex_array("blendindexes")
        if a is None:
            return None
        if a.format in ("float", "half", "double"):
            return M.readonly(a.decoded().astype(np.uint32))
        return a.data

    @cached_property
    def joint_weights(self):
        """(num_vertices, k) float32 joint weights (a view when stored as
        floats; ubyte weights are decoded to w / 255), or None."""
        return self._floats("blendweights")

    @cached_property
    def triangles(self):
        """(num_triangles, 3) uint32 vertex indices (front faces clockwise). A view."""
        return M.view(self._owner, self._m.triangles, np.uint32, (self.num_triangles, 3))

    @cached_property
    def meshes(self):
        """The meshes (``Mesh``), in the model's order."""
        n = self._m.num_meshes
        cs = (S.Mesh * n).from_address(self._m.meshes) if n else []
        return tuple(Mesh(self, i, cs[i]) for i in range(n))

    # -- Animations --

    @cached_property
    def animations(self):
        """The animations (``Animation``), in the model's order."""
        n = self._m.num_animations
        cs = (S.Animation * n).from_address(self._m.animations) if n else []
        return tuple(Animation(self, i, cs[i]) for i in range(n))

    def find_animation(self, name):
        """The index of the first animation called ``name``, or -1."""
        return int(_lib.ossa_model_find_animation(self._owner.ptr, E.c_string(name)))

    def animation_index(self, animation):
        """An animation given by index or name, as an index; the tool's
        rule: a name first, then a number spelled as text. ArgumentError
        (listing the animations) when there is none."""
        n = self._m.num_animations
        if isinstance(animation, Animation):
            animation = animation.index
        if isinstance(animation, (int, np.integer)) and not isinstance(animation, bool):
            if 0 <= animation < n:
                return int(animation)
        else:
            text = str(animation)
            k = self.find_animation(text)
            if k >= 0:
                return k
            if text.isdigit() and len(text) < 10 and int(text) < n:
                return int(text)
        if n == 0:
            raise E.argument_error("unknown animation '%s': the model has no animations" % (animation,))
        raise E.argument_error("unknown animation '%s'; the animations are: %s" % (
            animation, ", ".join("%s (%d)" % (a.name, a.index) for a in self.animations)))

    # -- Other data --

    @cached_property
    def comment(self):
        """The file's free text (IQM's comment block) as bytes, or None."""
        if not self._m.comment:
            return None
        return ctypes.string_at(self._m.comment, self._m.comment_size)

    @cached_property
    def extras(self):
        """What formats keep for round trips, by key: read-only uint8 views."""
        n = self._m.num_extras
        cs = (S.Extra * n).from_address(self._m.extras) if n else []
        return {_name_of(c.key): M.view(self._owner, c.data, np.uint8, (c.size,)) for c in cs}

    @cached_property
    def images(self):
        """The image files the model holds (a glTF file's textures, images
        found beside an IQM), by name: read-only uint8 views of their
        bytes (PNG, JPEG, ...)."""
        return {k[len(EXTRA_IMAGE):]: v for k, v in self.extras.items()
                if k.startswith(EXTRA_IMAGE)}

    def material(self, name):
        """How the material ``name`` looks (``Material``)."""
        c = S.Material()
        described = _lib.ossa_model_get_material(self._owner.ptr, E.c_string(name),
                                                  ctypes.byref(c))
        return Material(name, c, bool(described))

    @cached_property
    def materials(self):
        """The materials of the meshes, by name (``Material``)."""
        return {m.material: self.material(m.material) for m in self.meshes}

    @cached_property
    def warnings(self):
        """What the load reported without failing (``Diagnostic``s; ``file``
        is the model's path, or its ``name``, or "" for data from memory)."""
        n = self._m.num_warnings
        cs = (S.Diagnostic * n).from_address(self._m.warnings) if n else []
        return tuple(E.Diagnostic.from_c(c, self._label) for c in cs)

    # -- Poses and clips --

    def clip(self, animation=0, *, error=None, shell=None, compressed=None, root_joint=0,
             up_axis="z"):
        """The animation compiled for sampling (``ossa.Clip``).

        ``animation`` is an index or a name. Float clips keep every frame;
        ``error`` (model units) makes a compressed clip within that bound
        (``compressed=True`` alone uses the default bound, 0.01% of the
        model's size), ``shell`` is the distance of the error's virtual
        vertices (default 1% of the size). ``root_joint`` and ``up_axis``
        ("z", "y" or "x") are for root motion."""
        from . import _runtime
        index = self.animation_index(animation)
        return _runtime.Clip._create(self, index, error, shell, compressed, root_joint, up_axis)

    def pose(self, animation=None, *, time=None, frame=None, wrap=None, error=None):
        """One pose as ``ossa pose`` computes it (the double-precision
        reference path, so the numbers do not depend on the CPU): the rest
        pose (``rest_pose``: the bind pose, but where a glTF's nodes rest
        otherwise) without ``time`` or ``frame``, else animation ``animation``
        (default the first) at ``time`` seconds or frame position ``frame``,
        looped or clamped by ``wrap`` ("loop", "clamp"; default: the
        animation's loop flag). ``error`` samples the animation compressed
        within that bound. Returns a ``Sample`` of (num_joints,) local
        transforms and (num_joints, 4, 4) model matrices."""
        from . import _runtime
        if time is not None and frame is not None:
            raise E.argument_error("--frame and --time exclude each other")
        if time is None and frame is None:
            return _runtime.rest_pose_sample(self)
        if animation is None:
            if not self.animations:
                raise E.argument_error("%s: no animation to sample (the model has none)"
                                       % (self.path or "model"))
            animation = 0
        clip = self.clip(animation, error=error)
        return clip.sample(frame if time is None else time, frames=time is None, wrap=wrap,
                           simd="reference")

    def skin(self, pose, *, normals=True, simd=None):
        """The model's vertices skinned by ``pose``: model-space joint
        matrices, (num_joints, 4, 4) (``Sample.model`` of a clip or of
        ``pose()``). Returns ``ossa.Skinned`` (positions, normals or None).
        Vertices without blend data keep their bind-pose place."""
        from . import _runtime
        return _runtime.skin_model(self, pose, normals, simd)

    # -- Checks --

    def validate(self):
        """Deep checks (``ossa validate``): a list of every finding
        (``Diagnostic``, severity "warning" or "error", codes 200-299). An
        empty list means nothing was found."""
        c = E.Collector(self.path or "")
        err = S.Diagnostic()
        _lib.ossa_model_validate(self._owner.ptr, c.fn, None, ctypes.byref(err))
        return list(c.items)

    def bounds(self, animation=None, mode="conservative"):
        """Per-frame bounds of the skinned mesh (num_frames of
        ``ossa.BOUNDS``) as the writers compute them: "conservative" (joint
        boxes) or "exact" (every vertex skinned). Without an animation, the
        box of the bind-pose positions (``ossa info``'s), or None."""
        if animation is None:
            return _bind_bounds(self)
        index = self.animation_index(animation)
        modes = {"conservative": 1, "exact": 2}
        if mode not in modes:
            raise E.argument_error("unknown bounds mode '%s' (conservative, exact)" % mode)
        out = np.zeros(max(1, self.animations[index].num_frames), S.BOUNDS)
        err = E.error_buffer()
        E.check(_lib.ossa_model_compute_bounds(self._owner.ptr, index, modes[mode],
                                               out.ctypes.data, err), err, self.path)
        return M.readonly(out[:self.animations[index].num_frames])

    def info(self):
        """The summary ``ossa info --json`` prints, as a dict (without its
        "file" entry when the model has no path)."""
        from . import _info
        return _info.info(self)

    # -- Writing --

    def save(self, path, format=None, **options):
        """Writes the model (atomically: a failed write leaves no file and
        an existing one untouched) and returns the paths written (formats of
        several files write them all). ``format`` defaults to ``path``'s
        extension. Options, as ``ossa convert`` names them: ``bounds``
        ("conservative", "exact", "stored", "none"), ``anim`` (the animation
        of formats that take one), ``time`` (OBJ: the mesh posed at this
        time), ``embed`` (.gltf with its buffer inside), ``images``
        ("beside", "embed", "none"), ``sparse_channels`` (glTF), ``error``
        and ``shell`` (.ossaclip: the clip's bound and shell distance),
        ``no_clobber`` (replace no existing file: fail and write nothing;
        by default files are replaced; ``force`` says so), ``threads``, and
        each format's writing options (``obj_axes="blender"``; see
        ``ossa.format_options()``). Warnings of the write go through
        ``warnings``."""
        from . import _write
        return _write.save(self, path, format, options)

    def to_bytes(self, format, **options):
        """The model encoded in ``format`` ("iqm", "glb", ...) as bytes, with
        the options of ``save`` (formats that write several files cannot
        be encoded to one buffer; glTF keeps its images inside)."""
        from . import _write
        return _write.to_bytes(self, format, options)

    def __repr__(self):
        return "<ossa.Model %s%s: %d joints, %d vertices, %d triangles, %d meshes, %d animations>" % (
            self.format, " %r" % self.path if self.path else "", self.num_joints,
            self.num_vertices, self.num_triangles, len(self.meshes), len(self.animations))


def _bind_bounds(model):
    """The box of the bind-pose positions as ``ossa info`` computes it (NaN
    ignored; missing components 0), or None without positions."""
    p = model.positions
    if p is None or len(p) == 0:
        return None
    p = np.asarray(p[:, :3], np.float32)
    big = np.finfo(np.float32).max
    lo = np.fmin.reduce(p, axis=0, initial=big)
    hi = np.fmax.reduce(p, axis=0, initial=-big)
    pad = np.zeros(3 - p.shape[1], np.float32)
    return np.concatenate([lo, pad]), np.concatenate([hi, pad])


# -- Loading ------------------------------------------------------------------------


def _memory_pointer(data):
    """(pointer, size, keep-alive) for a bytes-like object, without a copy."""
    if isinstance(data, bytes):
        return data, len(data), None
    mv = memoryview(data)
    if not mv.c_contiguous:
        raise TypeError("ossa.load: the data must be contiguous bytes")
    a = np.frombuffer(mv.cast("B") if mv.format != "B" else mv, np.uint8)
    return (a.ctypes.data if a.size else None), a.size, a


def _load_one(source, settings):
    err = E.error_buffer()
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        bpath = E.c_string(path)
        ptr = _lib.ossa_load_file(bpath, settings.pointer(), err)
        if not ptr:
            E.raise_error(err, path)
        return ptr, path, path
    data, size, keep = _memory_pointer(source)
    ptr = _lib.ossa_load_memory(data, size, settings.pointer(), err)
    del keep
    label = settings.name or ""  # "" is data from memory: <memory> in messages
    if not ptr:
        E.raise_error(err, label)
    return ptr, None, label


def load(source, **options):
    """Loads a model from a file path or from bytes (any bytes-like object).

    The format is detected from the content, then from the name; every
    format ossa reads works. A list of sources is loaded and merged into the
    first, as ``ossa pose`` and ``ossa render`` merge their inputs (a mesh,
    then a skeleton, then animation files).

    Options: ``format`` ("iqm", ...: no detection), ``name`` (the file name
    of bytes, for messages, detection and the files a model names),
    ``fps`` (frame rate for files that store none or are resampled),
    ``influences`` (blend influences kept, 1-8), ``allow_parent_paths``,
    ``images=False`` (read no image files), ``threads`` (threads that read
    large text files), and each format's reading options by keyword:
    ``fbx_keep_units=True``, ``obj_axes="blender"`` (the option
    "FAMILY.NAME" is the keyword FAMILY_NAME; ``ossa.format_options()``
    lists them). Unknown keywords raise TypeError. ``apply_rest_pose=True``
    makes a model that rests otherwise than it is bound (a glTF whose skin
    was bound lying down) rest in its bind pose: the mesh skinned into the
    rest pose, which becomes the bind pose, as the writers of formats with
    one pose see it (for programs with one pose per joint, as Blender's
    armatures).

    Bad input raises an ``ossa.Error`` subclass whose text is the tool's
    message; warnings go through ``warnings`` (``ossa.OssaWarning``)."""
    apply_rest = bool(options.pop("apply_rest_pose", False))
    if not options and isinstance(source, str):
        # The common call, on the shortest path.
        err = E.error_buffer()
        ptr = _lib.ossa_load_file(E.c_string(source), None, err)
        if not ptr:
            E.raise_error(err, source)
        if apply_rest:
            _apply_rest_pose(ptr, source)
        return Model._wrap(ptr, source, warn_level=2)
    settings = O.LoadSettings(options)
    if settings.extra:
        settings.refuse_rest()
    if isinstance(source, (list, tuple)):
        return _load_merged(list(source), settings, apply_rest)
    ptr, path, label = _load_one(source, settings)
    if apply_rest:
        _apply_rest_pose(ptr, label)
    return Model._wrap(ptr, path, warn_level=2, label=label)


def _apply_rest_pose(ptr, label):
    """ossa_model_apply_rest_pose on a model no Model wraps yet (freed on
    failure)."""
    err = S.Diagnostic()
    if _lib.ossa_model_apply_rest_pose(ptr, ctypes.byref(err)) != 0:
        _lib.ossa_model_free(ptr)
        E.raise_error(err, label or "")


def _copy(model):
    """A new C model with the content of `model`, for calls that change a
    model (a Model does not change): merged into an empty model, which takes
    its skeleton, meshes, animations and extras. Merging leaves the model
    flags that are not about the skeleton; the colour space is one the
    renderer reads, so it is carried over by hand. The caller frees it."""
    ptr = _lib.ossa_model_create(None)
    if not ptr:
        raise MemoryError("ossa: out of memory")
    err = S.Diagnostic()
    if _lib.ossa_model_merge(ptr, model._owner.ptr, ctypes.byref(err)) != 0:
        _lib.ossa_model_free(ptr)
        E.raise_error(err, model.path)
    S.Model.from_address(ptr).flags |= model._m.flags & MODEL_LINEAR_COLORS
    return ptr


def _warnings_of(ptr, first, file):
    m = S.Model.from_address(ptr)
    size = ctypes.sizeof(S.Diagnostic)
    return [E.Diagnostic.from_c(S.Diagnostic.from_address(m.warnings + k * size), file)
            for k in range(first, m.num_warnings)]


def _load_merged(sources, settings, apply_rest=False):
    """Each source loaded (its warnings given), then merged into the first
    (the merge's warnings given with the name of the source merged in)."""
    if not sources:
        raise E.argument_error("no input file")
    dst = None
    try:
        for s in sources:
            ptr, path, label = _load_one(s, settings)
            for w in _warnings_of(ptr, 0, label):
                E.warn(w, 4)
            if dst is None:
                dst, dst_path = ptr, path
                continue
            try:
                before = S.Model.from_address(dst).num_warnings
                err = S.Diagnostic()
                if _lib.ossa_model_merge(dst, ptr, ctypes.byref(err)) != 0:
                    E.raise_error(err, path or "")
            finally:
                _lib.ossa_model_free(ptr)
            for w in _warnings_of(dst, before, label):
                E.warn(w, 4)
        if apply_rest:
            err = S.Diagnostic()
            if _lib.ossa_model_apply_rest_pose(dst, ctypes.byref(err)) != 0:
                E.raise_error(err, dst_path or "")
        model, dst = Model._wrap(dst, dst_path), None
        return model
    finally:
        if dst is not None:
            _lib.ossa_model_free(dst)
