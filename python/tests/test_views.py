"""Arrays are views of the C model's memory: no copy (their addresses are the
model's own pointers), read-only, and kept alive by the arrays themselves:
a view outlives the Model object, and the C model is freed when the last
view and the Model are gone (not before, not never)."""

import ctypes
import gc
import weakref

import numpy as np
import pytest

from conftest import shared
import ossa
from ossa import _structs as S


def _address(a):
    return a.__array_interface__["data"][0]


def test_views_are_the_models_memory():
    m = ossa.load(shared("iqm/guy.iqm"))
    c = m._m
    arrays = (S.VertexArray * c.num_vertex_arrays).from_address(c.vertex_arrays)
    assert _address(m.positions) == arrays[0].data  # position float x3, stored first
    assert m.vertex_arrays[0].type == "position"
    assert _address(m.triangles) == c.triangles
    assert _address(m.joint_indices) == arrays[4].data
    assert _address(m.parents) == c.joints + S.Joint.parent.offset
    assert m.parents.strides == (ctypes.sizeof(S.Joint),)
    anims = (S.Animation * c.num_animations).from_address(c.animations)
    assert _address(m.animations[1].frames) == anims[1].frames
    assert _address(m.animations[1].rotations) == anims[1].frames + S.Transform.rotation.offset
    assert _address(m.animations[0].bounds) == anims[0].bounds
    # the same memory every time, never a copy
    assert np.shares_memory(m.positions, m.meshes[0].positions)
    for a in (m.positions, m.triangles, m.parents, m.bind_pose, m.animations[0].frames,
              m.joint_indices, m.animations[0].bounds):
        assert not a.flags.writeable
        with pytest.raises(ValueError):
            a[0] = a[1]


def test_decoded_arrays_are_copies():
    """guy.iqm keeps blend weights as ubyte: joint_weights decodes them
    (w / 255) into a new array; the stored bytes stay a view."""
    m = ossa.load(shared("iqm/guy.iqm"))
    raw = m.vertex_array("blendweights").data
    assert raw.dtype == np.uint8
    np.testing.assert_allclose(m.joint_weights, raw / 255.0, rtol=0, atol=1e-7)
    assert not np.shares_memory(m.joint_weights, raw)


def test_views_outlive_the_model():
    m = ossa.load(shared("gltf/Fox.glb"))
    owner = weakref.ref(m._owner)
    pos, frames, image = m.positions, m.animations[2].frames, m.images[next(iter(m.images))]
    names = m.joint_names
    want = (pos.copy(), frames.copy(), bytes(image))
    del m
    gc.collect()
    assert owner() is not None  # kept by the views
    np.testing.assert_array_equal(pos, want[0])
    np.testing.assert_array_equal(frames, want[1])
    assert bytes(image) == want[2] and image[:4].tobytes() == b"\x89PNG"
    del pos, frames
    gc.collect()
    assert owner() is not None  # the image still holds it
    del image
    gc.collect()
    assert owner() is None  # freed with the last view
    assert names[0]  # plain Python strings need nothing


def test_model_freed_without_views():
    m = ossa.load(shared("iqm/guy.iqm"))
    owner = weakref.ref(m._owner)
    m.joint_names, m.meshes, m.animations  # objects that refer to the model only
    del m
    gc.collect()
    assert owner() is None


def test_clip_views_keep_the_clip():
    m = ossa.load(shared("iqm/guy.iqm"))
    clip = m.clip("dance")
    owner = weakref.ref(clip._owner)
    parents, bind = clip.parents, clip.bind_pose
    del clip, m
    gc.collect()
    assert owner() is not None
    np.testing.assert_array_equal(parents[:4], [-1, 0, 0, 0])
    assert abs(np.linalg.norm(bind["rotation"], axis=1) - 1).max() < 1e-6
    del parents, bind
    gc.collect()
    assert owner() is None


def test_empty_and_missing():
    b = ossa.ModelBuilder()
    b.add_joint("root")
    m = b.build()
    assert m.positions is None and m.normals is None and m.joint_indices is None
    assert m.triangles.shape == (0, 3) and not m.triangles.flags.writeable
    assert m.meshes == () and m.animations == () and m.images == {}
    assert m.comment is None and m.format == "auto"
