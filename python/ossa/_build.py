"""ModelBuilder: a model made from numpy arrays through the library's
builders (ossa_model_add_joint, ossa_model_add_vertex_array, ...), to be
written in any format."""

import ctypes

import numpy as np

from . import _errors as E
from . import _lib
from . import _structs as S
from ._model import Model

_COMPONENTS = {np.dtype(t): c for c, t in S.COMPONENT_DTYPES.items()}
_ATTRIBUTES = (  # keyword, ossa_vertex_type, components allowed
    ("positions", 0, (3,)), ("texcoords", 1, (2,)), ("normals", 2, (3,)),
    ("tangents", 3, (4,)), ("joint_indices", 4, range(1, 9)),
    ("joint_weights", 5, range(1, 9)), ("colors", 6, (3, 4)))


def _transform(translation=(0, 0, 0), rotation=(0, 0, 0, 1), scale=(1, 1, 1)):
    t = np.zeros((), S.TRANSFORM)
    t["translation"], t["rotation"], t["scale"] = translation, rotation, scale
    return t


def _attribute_array(keyword, values, sizes):
    a = np.asarray(values)
    if a.ndim == 1 and 1 in sizes:
        a = a[:, None]
    if a.ndim != 2 or a.shape[1] not in sizes:
        raise ValueError("%s must be (vertices, %s), not %s" % (
            keyword, " or ".join(map(str, sizes)) if len(sizes) < 4 else "1..8", a.shape))
    if keyword == "joint_indices":
        if a.dtype.kind == "f" or (a.size and a.min() < 0):
            raise ValueError("joint_indices must be non-negative integers")
        big = int(a.max()) if a.size else 0
        a = a.astype(np.uint8 if big < 256 else np.uint16 if big < 65536 else np.uint32)
    elif a.dtype == np.float64 or a.dtype.kind not in "fiu":
        a = a.astype(np.float32)
    elif a.dtype.kind in "iu" and a.dtype.itemsize == 8:
        raise ValueError("%s: 64-bit integers have no vertex format" % keyword)
    return np.ascontiguousarray(a)


class ModelBuilder:
    """Makes a model from arrays: joints, meshes and animations, then
    ``build()``. Every mesh gives the same attributes (the model has one
    vertex count shared by all of its arrays). Types are kept where ossa
    has them (float32, float16, ubyte colours and weights, ...): float64
    becomes float32, joint indices the narrowest unsigned type that holds
    them. The library checks what it is given (parents before children,
    indices in range) and refuses the rest with ``ossa.Error``."""

    def __init__(self):
        self._joints = []
        self._meshes = []
        self._animations = []
        self._comment = None
        self._extras = []

    @property
    def num_joints(self):
        """Joints added so far."""
        return len(self._joints)

    def add_joint(self, name, parent=-1, translation=(0, 0, 0), rotation=(0, 0, 0, 1),
                  scale=(1, 1, 1)):
        """Adds a joint with its parent-relative bind pose (rotation: a unit
        quaternion x, y, z, w); the parent must come before it. Returns its
        index."""
        self._joints.append((name, int(parent), _transform(translation, rotation, scale)))
        return len(self._joints) - 1

    def add_joints(self, names, parents, bind_pose=None):
        """Adds joints from arrays: names, (n,) parents and an optional (n,)
        ``ossa.TRANSFORM`` bind pose (default identity). Returns their indices."""
        parents = np.asarray(parents)
        if len(names) != len(parents):
            raise ValueError("%d names and %d parents" % (len(names), len(parents)))
        first = len(self._joints)
        for i, (n, p) in enumerate(zip(names, parents)):
            t = _transform() if bind_pose is None else np.asarray(bind_pose[i], S.TRANSFORM)
            self._joints.append((n, int(p), t))
        return range(first, len(self._joints))

    def add_mesh(self, positions, triangles, *, name="", material="", normals=None,
                 texcoords=None, tangents=None, colors=None, joint_indices=None,
                 joint_weights=None, custom=None):
        """Adds a mesh: its vertices' ``positions`` (n, 3), ``triangles``
        (m, 3) indexing its own vertices (0..n-1; front faces clockwise,
        ossa's convention), and optional ``normals`` (n, 3), ``texcoords``
        (n, 2), ``tangents`` (n, 4), ``colors`` (n, 3 or 4; float or ubyte),
        ``joint_indices`` and ``joint_weights`` (n, k; k up to 8) and
        ``custom`` arrays ({name: (n, k)}). Returns its index."""
        given = {"positions": positions, "normals": normals, "texcoords": texcoords,
                 "tangents": tangents, "colors": colors, "joint_indices": joint_indices,
                 "joint_weights": joint_weights}
        arrays = {}
        for keyword, _type, sizes in _ATTRIBUTES:
            if given[keyword] is not None:
                arrays[keyword] = _attribute_array(keyword, given[keyword], sizes)
        for cname, values in (custom or {}).items():
            arrays["custom:" + cname] = _attribute_array(cname, values, range(1, 9))
        n = len(arrays["positions"])
        for k, a in arrays.items():
            if len(a) != n:
                raise ValueError("%s has %d vertices, positions %d" % (k, len(a), n))
        tri = np.asarray(triangles)
        if tri.ndim != 2 or tri.shape[1] != 3:
            raise ValueError("triangles must be (m, 3), not %s" % (tri.shape,))
        if tri.size and (tri.min() < 0 or tri.max() >= n):
            raise ValueError("a triangle uses vertex %d of a mesh of %d vertices"
                             % (tri.max() if tri.max() >= n else tri.min(), n))
        if self._meshes:
            have, want = set(arrays), set(self._meshes[0][2])
            if have != want:
                raise ValueError("every mesh needs the same attributes: this one %s %s" % (
                    "lacks" if want - have else "adds", ", ".join(sorted((want - have) or (have - want)))))
        self._meshes.append((name, material, arrays, tri.astype(np.uint32)))
        return len(self._meshes) - 1

    def add_animation(self, name, frames=None, *, translations=None, rotations=None,
                      scales=None, framerate=30.0, loop=False):
        """Adds an animation: ``frames`` (num_frames, num_joints) of
        ``ossa.TRANSFORM``, or any of ``translations`` (f, j, 3),
        ``rotations`` (f, j, 4, x y z w) and ``scales`` (f, j, 3), the rest
        taken from the bind pose. Joints must all be added first. Returns its
        index."""
        n = len(self._joints)
        if frames is not None:
            fr = np.array(frames, S.TRANSFORM)
        else:
            parts = [p for p in (translations, rotations, scales) if p is not None]
            if not parts:
                raise ValueError("add_animation needs frames, translations, rotations or scales")
            count = len(parts[0])
            bind = np.array([t for _, _, t in self._joints], S.TRANSFORM)
            fr = np.broadcast_to(bind, (count, n)).copy()
            for key, values in (("translation", translations), ("rotation", rotations),
                                ("scale", scales)):
                if values is not None:
                    fr[key] = values
        if fr.ndim != 2 or fr.shape[1] != n:
            raise ValueError("frames must be (num_frames, %d joints), not %s" % (n, fr.shape))
        self._animations.append((name, fr, float(framerate), 1 if loop else 0))
        return len(self._animations) - 1

    def set_comment(self, text):
        """The model's free text (IQM's comment block)."""
        self._comment = text.encode() if isinstance(text, str) else bytes(text)

    def add_extra(self, key, data):
        """A named blob that formats keep for round trips."""
        self._extras.append((key, bytes(data)))

    def build(self):
        """The model (``ossa.Model``). The builder can go on and build more."""
        err = S.Diagnostic()
        ptr = _lib.ossa_model_create(None)
        if not ptr:
            raise MemoryError("ossa: out of memory")
        try:
            self._fill(ptr, err)
        except BaseException:
            _lib.ossa_model_free(ptr)
            raise
        return Model._wrap(ptr)

    def _fill(self, ptr, err):
        e = ctypes.byref(err)
        for name, parent, t in self._joints:
            tr = S.Transform.from_buffer_copy(t.tobytes())
            if _lib.ossa_model_add_joint(ptr, E.c_string(name), parent, ctypes.byref(tr), e) < 0:
                E.raise_error(err)
        if self._meshes:
            total = sum(len(m[2]["positions"]) for m in self._meshes)
            E.check(_lib.ossa_model_set_num_vertices(ptr, total, e), err)
            for key in self._meshes[0][2]:
                data = np.ascontiguousarray(np.concatenate([m[2][key] for m in self._meshes]))
                if data.dtype not in _COMPONENTS:
                    data = data.astype(np.float32)
                vtype = 0x10 if key.startswith("custom:") else dict(
                    (k, t) for k, t, _ in _ATTRIBUTES)[key]
                cname = key[len("custom:"):] if vtype == 0x10 else ""
                if not _lib.ossa_model_add_vertex_array(
                        ptr, vtype, _COMPONENTS[data.dtype], data.shape[1], E.c_string(cname),
                        data.ctypes.data, e):
                    E.raise_error(err)
            tris, first = [], 0
            for m in self._meshes:
                tris.append(m[3] + first)
                first += len(m[2]["positions"])
            tri = np.ascontiguousarray(np.concatenate(tris), np.uint32)
            E.check(_lib.ossa_model_set_triangles(ptr, len(tri), tri.ctypes.data, e), err)
            fv = ft = 0
            for name, material, arrays, t in self._meshes:
                nv = len(arrays["positions"])
                if _lib.ossa_model_add_mesh(ptr, E.c_string(name), E.c_string(material), fv, nv,
                                            ft, len(t), e) < 0:
                    E.raise_error(err)
                fv += nv
                ft += len(t)
        for i, (name, fr, rate, flags) in enumerate(self._animations):
            if not _lib.ossa_model_add_animation(ptr, E.c_string(name), len(fr), rate, flags, e):
                E.raise_error(err)
            fr = np.ascontiguousarray(fr)
            if len(fr):
                E.check(_lib.ossa_model_set_animation_frames(ptr, i, 0, len(fr), fr.ctypes.data,
                                                             e), err)
        if self._comment is not None:
            E.check(_lib.ossa_model_set_comment(ptr, self._comment, len(self._comment), e), err)
        for key, data in self._extras:
            E.check(_lib.ossa_model_add_extra(ptr, E.c_string(key), data, len(data), e), err)
