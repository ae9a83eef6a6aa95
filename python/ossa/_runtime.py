"""Playing animations back: clips, sampling many times in one call,
blending, local-to-model matrices and skinning (libossa-runtime)."""

import ctypes
import os

import numpy as np

from . import _errors as E
from . import _lib
from . import _memory as M
from . import _structs as S
from ._model import Sample

_addr = M.address

SIMD_LEVELS = {None: 0, "auto": 0, "reference": 1, "scalar": 2, "sse2": 3, "avx2": 4}
WRAPS = {None: 0, "loop": 1, "clamp": 2}
AXES = {"z": 0, "y": 1, "x": 2}
SAMPLE_FRAMES = 1
SAMPLE_REMOVE_ROOT_MOTION = 2
CLIP_COMPRESSED = 1


def _choice(table, value, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise E.argument_error("unknown %s %r (%s)" % (
            what, value, ", ".join(k for k in table if k is not None))) from None


def simd_level(simd):
    level = _choice(SIMD_LEVELS, simd, "SIMD level")
    if not _lib.ossa_simd_supported(level):
        raise E.argument_error("SIMD level %r does not run on this CPU" % simd)
    return level


def _matrices_in(m, count=None, what="matrices"):
    """(n, 4, 4) matrices indexed [row, column] as the C layout (n, 16)
    column-major, float32, contiguous: no copy for the arrays this package
    returns (their last two axes are a transposed view of that layout)."""
    m = np.asarray(m, np.float32)
    if m.ndim < 2 or m.shape[-2:] != (4, 4):
        raise ValueError("%s must be (..., 4, 4), not %s" % (what, m.shape))
    c = np.ascontiguousarray(np.swapaxes(m, -1, -2)).reshape(-1, 16)
    if count is not None and len(c) < count:
        raise ValueError("%s: %d given, %d needed" % (what, len(c), count))
    return c


def _matrices_out(flat, shape):
    """A (..., 16) column-major array as (..., 4, 4) indexed [row, column]."""
    return flat.reshape(tuple(shape) + (4, 4)).swapaxes(-1, -2)


def _transforms_in(pose, count=None, what="pose"):
    """A transform array (``ossa.TRANSFORM``) as a contiguous array of it."""
    a = np.asarray(pose)
    if a.dtype != S.TRANSFORM:
        if a.dtype.names and set(a.dtype.names) >= {"translation", "rotation", "scale"}:
            b = np.empty(a.shape, S.TRANSFORM)
            for f in ("translation", "rotation", "scale"):
                b[f] = a[f]
            a = b
        else:
            raise TypeError("%s must be an array of ossa.TRANSFORM" % what)
    a = np.ascontiguousarray(a)
    if count is not None and a.shape[-1:] != (count,):
        raise ValueError("%s has %s transforms, %d needed" % (what, a.shape, count))
    return a


# -- Clips ----------------------------------------------------------------------------


class Clip:
    """An animation compiled for sampling (``ossa_clip``): immutable, shared
    freely between threads. Make one with ``Model.clip`` or
    ``ossa.load_clip``; sample it with ``sample``.

    Attributes: ``name``, ``num_joints``, ``num_frames``, ``framerate``
    (> 0), ``duration`` (num_frames / framerate: the looping length),
    ``loop``, ``compressed``, ``memory`` (bytes held), ``max_error``,
    ``shell_distance`` and ``measured_error`` (compressed clips), and the
    views ``parents`` and ``bind_pose`` (owned by the clip)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("make a Clip with Model.clip() or ossa.load_clip()")

    @classmethod
    def _wrap(cls, ptr):
        self = object.__new__(cls)
        self._owner = M.Owner(ptr, _lib.ossa_clip_free)
        info = S.ClipInfo()
        _lib.ossa_clip_get_info(ptr, ctypes.byref(info))
        self._info = info
        self.name = (info.name or b"").decode("utf-8", "surrogateescape")
        self.num_joints = int(info.num_joints)
        self.num_frames = int(info.num_frames)
        self.framerate = float(info.framerate)
        self.duration = float(info.duration)
        self.flags = int(info.flags)
        self.loop = bool(self.flags & 1)
        self.compressed = info.compression == CLIP_COMPRESSED
        self.memory = int(info.memory)
        self.max_error = float(info.max_error)
        self.shell_distance = float(info.shell_distance)
        self.measured_error = float(info.measured_error)
        return self

    @classmethod
    def _create(cls, model, index, error, shell, compressed, root_joint, up_axis):
        o = S.ClipOptions()
        o.struct_size = ctypes.sizeof(o)
        o.root_joint = root_joint
        o.up_axis = _choice(AXES, up_axis, "up axis")
        if error is not None or shell is not None or compressed:
            o.compression = CLIP_COMPRESSED
            for v, name in ((error, "--error"), (shell, "--shell")):
                if v is not None and not (isinstance(v, (int, float)) and 0 < v <= 3e38):
                    raise E.argument_error("%s needs a positive number, not '%s'" % (name, v))
            o.max_error = error or 0
            o.shell_distance = shell or 0
        err = E.error_buffer()
        ptr = _lib.ossa_clip_create(model._owner.ptr, index, ctypes.byref(o), err)
        if not ptr:
            E.raise_error(err, model.path)
        return cls._wrap(ptr)

    @property
    def parents(self):
        """(num_joints,) int32 parent indices (-1 = root). A view."""
        return M.view(self._owner, self._info.parents, np.int32, (self.num_joints,))

    @property
    def bind_pose(self):
        """(num_joints,) ``ossa.TRANSFORM`` bind pose, rotations normalized. A view."""
        return M.view(self._owner, self._info.bind_pose, S.TRANSFORM, (self.num_joints,))

    def sample(self, times, *, frames=False, wrap=None, remove_root_motion=False, simd=None,
               local=True, model=True, out=None):
        """Samples the clip at every time of ``times`` in one call (the loop
        runs in C, without the GIL).

        ``times`` is a number or an array of seconds (frame positions with
        ``frames=True``), any finite values: ``wrap`` ("loop" or "clamp";
        default: the animation's loop flag) maps them into the animation.
        Returns a ``Sample``: ``local``, an array of ``ossa.TRANSFORM`` of
        shape ``times.shape + (num_joints,)``, and ``model``, float32 model
        matrices of shape ``times.shape + (num_joints, 4, 4)`` indexed [row,
        column]; ``local=False`` or ``model=False`` leaves one out (None).
        ``remove_root_motion`` pins the root's horizontal motion and yaw to
        frame 0's; ``simd`` picks the code ("reference", "scalar", "sse2",
        "avx2"; default the fastest). ``out``, a ``Sample`` an earlier call
        returned for times of the same shape, is filled again instead of
        new arrays (for loops that sample every tick)."""
        # Kept lean: sampling from Python should cost what the C loop costs
        # (bench/bench_python.py measures it).
        t = np.asarray(times, np.float64)
        shape = t.shape
        if t.ndim != 1 or not t.flags.c_contiguous:
            t = np.ascontiguousarray(t.reshape(-1))
        count, n = t.shape[0], self.num_joints
        job = S.SampleJob()
        job.clip = self._owner.ptr
        if wrap is not None:
            job.wrap = _choice(WRAPS, wrap, "wrap mode")
        if frames or remove_root_motion:
            job.flags = (SAMPLE_FRAMES if frames else 0) | (
                SAMPLE_REMOVE_ROOT_MOTION if remove_root_motion else 0)
        if simd is not None:
            job.simd = simd_level(simd)
        job.num_outputs = n
        if out is not None:
            out_local, out_model = self._outputs(out, shape + (n,), local, model)
            if out_local is not None:
                job.local = _addr(out_local)
            if out_model is not None:
                job.model = _addr(out_model.swapaxes(-1, -2))
        else:
            out_local = out_model = None
            if local:
                # Allocated as floats, whose address is cheaper to take than
                # a structured array's, and seen as transforms (10 floats).
                raw = np.empty(shape + (n, 10), np.float32)
                job.local = _addr(raw)
                out_local = np.ndarray(shape + (n,), S.TRANSFORM, raw)
            if model:
                # [row, column] over the column-major matrices the C call
                # writes: a transposed view of a C-contiguous block, no copy
                block = np.empty(shape + (n, 4, 4), np.float32)
                job.model = _addr(block)
                out_model = block.swapaxes(-1, -2)
            elif not local:
                raise ValueError("sample: local=False and model=False leave nothing to compute")
        err = E.error_buffer()
        if self.compressed and count > 1:
            cache = _lib.ossa_sample_cache_create(max(1, n), None, err)
            if not cache:
                E.raise_error(err)
            job.cache = cache
            try:
                status = _lib.ossa_sample_run_many(ctypes.byref(job), _addr(t), count, err)
            finally:
                _lib.ossa_sample_cache_free(cache)
        else:
            status = _lib.ossa_sample_run_many(ctypes.byref(job), _addr(t), count, err)
        if status:
            E.raise_error(err)
        return Sample(out_local, out_model)

    @staticmethod
    def _outputs(out, lead, local, model):
        """The arrays of an earlier Sample, checked to take this call's."""
        out_local, out_model = out
        if (out_local is None) == bool(local) or (out_model is None) == bool(model):
            raise ValueError("sample: out holds other outputs than local=%s, model=%s"
                             % (bool(local), bool(model)))
        if out_local is not None and (out_local.dtype != S.TRANSFORM or out_local.shape != lead
                                      or not out_local.flags.c_contiguous
                                      or not out_local.flags.writeable):
            raise ValueError("sample: out.local must be a writable %s array of ossa.TRANSFORM"
                             % (lead,))
        if out_model is not None:
            block = out_model.swapaxes(-1, -2)
            if (out_model.dtype != np.float32 or out_model.shape != lead + (4, 4)
                    or not block.flags.c_contiguous or not block.flags.writeable):
                raise ValueError("sample: out.model must be a writable %s float32 array "
                                 "returned by sample" % (lead + (4, 4),))
        if not local and not model:
            raise ValueError("sample: local=False and model=False leave nothing to compute")
        return out_local, out_model

    def frame_at(self, seconds, wrap=None):
        """The frame position of a time, wrapped or clamped as sampling does."""
        return _lib.ossa_clip_frame_at(self._owner.ptr, float(seconds),
                                       _choice(WRAPS, wrap, "wrap mode"))

    def root_motion(self, t0, t1, wrap=None):
        """The root joint's horizontal motion and yaw from time ``t0`` to
        ``t1`` (seconds): (translation (3,), yaw in radians)."""
        r = S.RootMotion()
        _lib.ossa_clip_root_motion(self._owner.ptr, float(t0), float(t1),
                                   _choice(WRAPS, wrap, "wrap mode"), ctypes.byref(r))
        return np.array(r.translation, np.float32), float(r.yaw)

    @property
    def data(self):
        """A compressed clip's bytes as a .ossaclip file holds them (None for
        float clips, which cannot be saved)."""
        size = ctypes.c_size_t()
        ptr = _lib.ossa_clip_data(self._owner.ptr, ctypes.byref(size))
        return ctypes.string_at(ptr, size.value) if ptr else None

    def save(self, path):
        """Writes a compressed clip as a .ossaclip file (atomically)."""
        err = E.error_buffer()
        path = os.fspath(path)
        E.check(_lib.ossa_clip_save(self._owner.ptr, E.c_string(path), err), err, path)

    def __repr__(self):
        return "<ossa.Clip %r: %d joints, %d frames at %g fps%s%s>" % (
            self.name, self.num_joints, self.num_frames, self.framerate,
            ", looping" if self.loop else "", ", compressed" if self.compressed else "")


def load_clip(source):
    """A compressed clip from a .ossaclip file (path) or its bytes; bad data
    raises ``ossa.Error`` with the byte offset of the problem."""
    err = E.error_buffer()
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        ptr = _lib.ossa_clip_load_file(E.c_string(path), None, err)
        if not ptr:
            E.raise_error(err, path)
        return Clip._wrap(ptr)
    data = bytes(source)
    ptr = _lib.ossa_clip_load_memory(data, len(data), None, err)
    if not ptr:
        E.raise_error(err, "")
    return Clip._wrap(ptr)


def build_clip(parents, bind_pose, frames, *, framerate=30.0, loop=False, name="",
               error=None, shell=None, compressed=None, size=0.0):
    """A clip from arrays alone (no model): ``parents`` (num_joints,),
    ``bind_pose`` (num_joints,) and ``frames`` (num_frames, num_joints) of
    ``ossa.TRANSFORM``; compressed as ``Model.clip`` says."""
    parents = np.ascontiguousarray(parents, np.int32)
    n = len(parents)
    bind = _transforms_in(bind_pose, n, "bind_pose")
    fr = _transforms_in(frames, n, "frames")
    if fr.ndim != 2:
        raise ValueError("frames must be (num_frames, num_joints)")
    src = S.ClipSource()
    src.name = E.c_string(name)
    src.num_joints = n
    src.parents = _addr(parents)
    src.bind_pose = _addr(bind)
    src.num_frames = fr.shape[0]
    src.frames = _addr(fr) if fr.size else None
    src.framerate = framerate
    src.flags = 1 if loop else 0
    src.size = size
    o = S.ClipOptions()
    o.struct_size = ctypes.sizeof(o)
    if error is not None or shell is not None or compressed:
        o.compression = CLIP_COMPRESSED
        o.max_error = error or 0
        o.shell_distance = shell or 0
    err = E.error_buffer()
    ptr = _lib.ossa_clip_build(ctypes.byref(src), ctypes.byref(o), err)
    if not ptr:
        E.raise_error(err)
    return Clip._wrap(ptr)


# -- Poses --------------------------------------------------------------------------


def local_to_model(parents, local, *, root=None, simd=None):
    """Model-space matrices of parent-relative poses: ``local`` (...,
    num_joints) of ``ossa.TRANSFORM`` (rotations unit) with ``parents``
    (num_joints,). Returns float32 (..., num_joints, 4, 4) [row, column]."""
    parents = np.ascontiguousarray(parents, np.int32)
    n = len(parents)
    loc = _transforms_in(local, n, "local")
    lead = loc.shape[:-1]
    flat = loc.reshape(-1, n)
    out = np.empty((len(flat), n, 16), np.float32)
    job = S.LocalToModelJob()
    job.num_joints = n
    job.parents = _addr(parents)
    job.simd = simd_level(simd) if simd is not None else 0
    root_c = _matrices_in(root, 1, "root") if root is not None else None
    if root_c is not None:
        job.root = _addr(root_c)
    err = E.error_buffer()
    for i in range(len(flat)):
        job.local = _addr(flat[i])
        job.model = _addr(out[i])
        E.check(_lib.ossa_local_to_model_run(ctypes.byref(job), err), err)
    return _matrices_out(out, lead + (n,))


def rest_pose_sample(model, local=None):
    """The pose without an animation as ``ossa pose`` gives it (the rest
    pose, which is the bind pose but where a glTF rests otherwise), or the
    joints' pose ``local``: rotations normalized in double precision, model
    matrices by the reference path."""
    n = model.num_joints
    local = np.array(model.rest_pose if local is None else local, S.TRANSFORM)
    q = local["rotation"].astype(np.float64)
    norm2 = (q * q).sum(axis=-1)
    ok = (norm2 > 0) & np.isfinite(norm2)
    local["rotation"][ok] = (q[ok] / np.sqrt(norm2[ok])[:, None]).astype(np.float32)
    out = np.zeros((max(n, 1), 16), np.float32)
    job = S.LocalToModelJob()
    job.num_joints = n
    parents = np.ascontiguousarray(model.parents, np.int32)
    job.parents = _addr(parents)
    job.local = _addr(local)
    job.model = _addr(out)
    job.simd = 1  # reference
    err = E.error_buffer()
    E.check(_lib.ossa_local_to_model_run(ctypes.byref(job), err), err)
    return Sample(local, _matrices_out(out[:n], (n,)))


def make_additive(reference, pose):
    """The additive delta that turns ``reference`` into ``pose`` (both
    (num_joints,) of ``ossa.TRANSFORM``), for ``blend``'s ``additive``."""
    ref = _transforms_in(reference, None, "reference")
    p = _transforms_in(pose, ref.shape[-1], "pose")
    if ref.ndim != 1 or p.ndim != 1:
        raise ValueError("make_additive takes one pose of each")
    out = np.empty_like(p)
    _lib.ossa_pose_make_additive(len(p), _addr(ref), _addr(p), _addr(out))
    return out


def blend(poses, weights, *, joint_weights=None, additive=(), additive_weights=(),
          additive_joint_weights=None, rest_pose=None, threshold=0.0):
    """The normalized weighted blend of ``poses`` (each (num_joints,) of
    ``ossa.TRANSFORM``) by ``weights`` (>= 0), per joint, optionally masked
    per joint by ``joint_weights`` (one (num_joints,) array or None per
    pose); then each ``additive`` delta (``make_additive``) applied with its
    weight. Where the weights of a joint sum below ``threshold`` (0 means
    0.1) the ``rest_pose`` (default: identity) is blended in. See
    ossa_blend_job in ossa/runtime.h."""
    poses = [_transforms_in(p, None, "pose") for p in poses]
    if not poses and not additive:
        raise ValueError("blend needs at least one pose")
    n = (poses[0] if poses else _transforms_in(additive[0])).shape[-1]
    keep = []

    def layers(arrays, ws, masks, what):
        if len(ws) != len(arrays):
            raise ValueError("%s: %d poses and %d weights" % (what, len(arrays), len(ws)))
        out = (S.BlendLayer * max(1, len(arrays)))()
        for i, (p, w) in enumerate(zip(arrays, ws)):
            p = _transforms_in(p, n, what)
            keep.append(p)
            out[i].pose = _addr(p)
            out[i].weight = float(w)
            mask = masks[i] if masks is not None else None
            if mask is not None:
                mask = np.ascontiguousarray(mask, np.float32)
                if mask.shape != (n,):
                    raise ValueError("%s: joint weights must be (%d,)" % (what, n))
                keep.append(mask)
                out[i].joint_weights = _addr(mask)
        return out

    job = S.BlendJob()
    job.num_joints = n
    lay = layers(poses, list(weights), joint_weights, "poses")
    job.layers = ctypes.addressof(lay)
    job.num_layers = len(poses)
    add = layers(list(additive), list(additive_weights), additive_joint_weights, "additive")
    if additive:
        job.additive = ctypes.addressof(add)
        job.num_additive = len(additive)
    if rest_pose is not None:
        rest = _transforms_in(rest_pose, n, "rest_pose")
        keep.append(rest)
        job.rest_pose = _addr(rest)
    job.threshold = threshold
    out = np.empty(n, S.TRANSFORM)
    job.output = _addr(out)
    err = E.error_buffer()
    E.check(_lib.ossa_blend_run(ctypes.byref(job), err), err)
    return out


# -- Skinning -------------------------------------------------------------------------


class Skinned(tuple):
    """Skinned vertices: ``positions`` (n, 3), ``normals`` and
    ``tangents`` (or None), float32."""

    __slots__ = ()

    def __new__(cls, positions, normals, tangents):
        return tuple.__new__(cls, (positions, normals, tangents))

    positions = property(lambda self: self[0], doc="(n, 3) float32 skinned positions.")
    normals = property(lambda self: self[1], doc="(n, 3) float32 skinned normals, or None.")
    tangents = property(lambda self: self[2], doc="(n, 4) float32 skinned tangents, or None.")


def _rows(a, width, what, count):
    """A float32 (count, >= width) array whose rows are addressed by a byte
    stride (the skinning job's own convention): views without a copy
    when the last axis is contiguous."""
    a = np.asarray(a)
    if a.dtype != np.float32 or a.ndim != 2 or a.strides[1] != 4 or a.strides[0] % 4:
        a = np.ascontiguousarray(a, np.float32)
    if a.ndim != 2 or a.shape[1] < width or a.shape[0] != count:
        raise ValueError("%s must be (%d, %d), not %s" % (what, count, width, a.shape))
    return a


def skin(positions, joint_indices, joint_weights, matrices, *, normals=None, tangents=None,
         normal_matrices=None, simd=None):
    """CPU linear blend skinning (ossa_skinning_job): each vertex is the
    weighted sum of its joints' ``matrices`` (skinning matrices, (J, 4, 4)
    [row, column]: the model-space pose times the inverse bind matrix)
    applied to it. ``positions`` (V, 3), ``joint_indices`` (V, k) integers
    below 65536, ``joint_weights`` (V, k) (used as given: they should sum
    to 1), optional ``normals`` (V, 3) and ``tangents`` (V, 4) (skinned
    with ``normal_matrices``, default ``matrices``; not renormalized).
    An index >= J contributes nothing. Returns ``Skinned``."""
    pos = np.asarray(positions)
    v = pos.shape[0] if pos.ndim == 2 else -1
    pos = _rows(pos, 3, "positions", v)
    idx = np.asarray(joint_indices)
    if idx.ndim != 2 or idx.shape[0] != v or not 1 <= idx.shape[1] <= 8:
        raise ValueError("joint_indices must be (%d, 1..8), not %s" % (v, idx.shape))
    k = idx.shape[1]
    if idx.dtype != np.uint16:
        if idx.size and (idx.min() < 0 or idx.max() > 65535):
            raise ValueError("joint indices must lie in 0..65535")
        idx = idx.astype(np.uint16)
    idx = np.ascontiguousarray(idx)
    w = _rows(joint_weights, k, "joint_weights", v)
    mats = _matrices_in(matrices)
    job = S.SkinningJob()
    job.num_vertices = v
    job.influences = k
    job.matrices = _addr(mats)
    job.num_matrices = len(mats)
    nmats = None
    if normal_matrices is not None:
        nmats = _matrices_in(normal_matrices, len(mats), "normal_matrices")
        job.normal_matrices = _addr(nmats)
    job.indices, job.indices_stride = _addr(idx), idx.strides[0]
    job.weights, job.weights_stride = _addr(w), w.strides[0]
    out_pos = np.empty((v, 3), np.float32)
    job.in_positions, job.in_positions_stride = _addr(pos), pos.strides[0]
    job.out_positions, job.out_positions_stride = _addr(out_pos), 12
    out_n = out_t = None
    if normals is not None:
        nrm = _rows(normals, 3, "normals", v)
        out_n = np.empty((v, 3), np.float32)
        job.in_normals, job.in_normals_stride = _addr(nrm), nrm.strides[0]
        job.out_normals, job.out_normals_stride = _addr(out_n), 12
    if tangents is not None:
        tan = _rows(tangents, 4, "tangents", v)
        out_t = np.empty((v, 4), np.float32)
        job.in_tangents, job.in_tangents_stride = _addr(tan), tan.strides[0]
        job.out_tangents, job.out_tangents_stride = _addr(out_t), 16
    job.simd = simd_level(simd) if simd is not None else 0
    if v == 0:
        return Skinned(out_pos, out_n, out_t)
    err = E.error_buffer()
    E.check(_lib.ossa_skinning_run(ctypes.byref(job), err), err)
    del pos, idx, w, mats, nmats
    return Skinned(out_pos, out_n, out_t)


def skinning_matrices(pose, inverse_bind):
    """Model-space pose matrices times inverse bind matrices, per joint:
    what moves a bind-pose vertex to its posed place."""
    return np.matmul(np.asarray(pose, np.float32), np.asarray(inverse_bind, np.float32))


def skin_model(model, pose, normals, simd):
    """Model.skin: the model's own vertices skinned by model-space ``pose``."""
    n = model.num_joints
    pose = np.asarray(pose, np.float32)
    if pose.shape != (n, 4, 4):
        raise ValueError("pose must be (%d, 4, 4) model matrices, not %s" % (n, pose.shape))
    pos = model.positions
    if pos is None:
        raise E.argument_error("the model has no positions to skin")
    pos = pos[:, :3]
    nrm = model.normals if normals else None
    idx, wts = model.joint_indices, model.joint_weights
    if idx is None or wts is None or n == 0:
        return Skinned(np.array(pos, np.float32), None if nrm is None else np.array(nrm, np.float32),
                       None)
    k = min(idx.shape[1], wts.shape[1])
    mats = skinning_matrices(pose, model.inverse_bind_matrices)
    # Vertices without any weight stay where they are: an identity matrix
    # after the joints' takes them (index n), with weight 1.
    idx = np.array(idx[:, :k], np.uint16)
    w = np.array(wts[:, :k], np.float32)
    still = w.sum(axis=1) <= 0
    if still.any():
        mats = np.concatenate([mats, np.eye(4, dtype=np.float32)[None]])
        idx[still, 0] = n
        w[still, 0] = 1
    return skin(pos, idx, w, mats, normals=nrm, simd=simd)

