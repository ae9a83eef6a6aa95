"""The runtime from Python, checked against numpy written here from the
definitions (quaternion to matrix, parent chains, lerp and slerp in double
precision, linear blend skinning): sampling at exact frames and between
them, many times at once equal to one at a time, shapes, wraps, compressed
clips within their bound, .ossaclip files, blending, additive poses,
local-to-model and skinning."""

import numpy as np
import pytest

from conftest import shared
import ossa


# -- numpy references ----------------------------------------------------------------


def quat_matrix(q):
    x, y, z, w = (np.asarray(q, np.float64)[..., i] for i in range(4))
    r = np.empty(np.shape(x) + (3, 3))
    r[..., 0, 0] = 1 - 2 * (y * y + z * z)
    r[..., 0, 1] = 2 * (x * y - z * w)
    r[..., 0, 2] = 2 * (x * z + y * w)
    r[..., 1, 0] = 2 * (x * y + z * w)
    r[..., 1, 1] = 1 - 2 * (x * x + z * z)
    r[..., 1, 2] = 2 * (y * z - x * w)
    r[..., 2, 0] = 2 * (x * z - y * w)
    r[..., 2, 1] = 2 * (y * z + x * w)
    r[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return r


def trs_matrix(t, q, s):
    m = np.zeros(np.shape(t)[:-1] + (4, 4))
    m[..., :3, :3] = quat_matrix(q) * np.asarray(s, np.float64)[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1
    return m


def chain(parents, local):
    """Model matrices of (J,) local TRS: each joint's parent's times its own."""
    q = np.asarray(local["rotation"], np.float64)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    loc = trs_matrix(local["translation"], q, local["scale"])
    out = np.empty_like(loc)
    for j, p in enumerate(parents):
        out[j] = loc[j] if p < 0 else out[p] @ loc[j]
    return out


def slerp(a, b, t):
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    d = (a * b).sum(-1, keepdims=True)
    b = np.where(d < 0, -b, b)
    d = np.abs(d)
    theta = np.arccos(np.clip(d, -1, 1))
    s = np.sin(theta)
    small = s < 1e-9
    wa = np.where(small, 1 - t, np.sin((1 - t) * theta) / np.where(small, 1, s))
    wb = np.where(small, t, np.sin(t * theta) / np.where(small, 1, s))
    return wa * a + wb * b


def same_rotation(a, b, tol):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    sign = np.sign((a * b).sum(-1, keepdims=True))
    assert np.abs(a - sign * b).max() < tol


# -- Sampling -------------------------------------------------------------------------


@pytest.fixture
def guy():
    return ossa.load(shared("iqm/guy.iqm"))


def test_exact_frames(guy):
    anim = guy.animations[1]
    clip = guy.clip(anim.index)
    frames = np.arange(anim.num_frames)
    s = clip.sample(frames, frames=True, simd="reference")
    np.testing.assert_array_equal(s.local["translation"], anim.translations)
    np.testing.assert_array_equal(s.local["scale"], anim.scales)
    same_rotation(s.local["rotation"], anim.rotations, 2e-7)
    for f in (0, 17, 60):
        np.testing.assert_allclose(s.model[f], chain(guy.parents, anim.frames[f]), atol=2e-5)
    # the default (SIMD) path agrees within the documented tolerance
    fast = clip.sample(frames, frames=True)
    np.testing.assert_allclose(fast.model, s.model, atol=1e-4)


def test_between_frames(guy):
    anim = guy.animations[0]
    clip = guy.clip(0)
    assert clip.framerate == 24 and clip.num_frames == 61 and not clip.loop
    t = 10.3 / 24  # frame 10.3
    s = clip.sample(t, simd="reference")
    a, b = anim.frames[10], anim.frames[11]
    np.testing.assert_allclose(s.local["translation"],
                               0.7 * a["translation"].astype(np.float64) + 0.3 * b["translation"],
                               atol=1e-6)
    same_rotation(s.local["rotation"],
                  slerp(a["rotation"].astype(np.float64), b["rotation"].astype(np.float64), 0.3),
                  1e-6)
    np.testing.assert_allclose(s.model, chain(guy.parents, s.local), atol=2e-5)


def test_many_equal_one_by_one(guy):
    clip = guy.clip("dance")
    times = np.arange(0, clip.duration + 0.5, 1 / 60)
    many = clip.sample(times)
    assert many.local.shape == (len(times), 14) and many.model.shape == (len(times), 14, 4, 4)
    for i in (0, 1, 77, len(times) - 1):
        one = clip.sample(times[i])
        assert one.local.shape == (14,) and one.model.shape == (14, 4, 4)
        assert one.local.tobytes() == many.local[i].tobytes()
        np.testing.assert_array_equal(one.model, many.model[i])
    grid = clip.sample(times[:12].reshape(3, 4))
    assert grid.model.shape == (3, 4, 14, 4, 4)
    np.testing.assert_array_equal(grid.model[1, 2], many.model[6])
    only = clip.sample(times, local=False)
    assert only.local is None
    np.testing.assert_array_equal(only.model, many.model)
    assert many.model[..., :3, 3].shape == (len(times), 14, 3)  # translations, [row, column]
    np.testing.assert_array_equal(many.model[..., 3, :], np.broadcast_to([0, 0, 0, 1], (len(times), 14, 4)))
    with pytest.raises(ossa.ArgumentError, match="not finite"):
        clip.sample([0.1, np.nan])
    # filled again in place: the same arrays, the same values
    again = clip.sample(times[::-1])
    kept = (again.local, again.model)
    filled = clip.sample(times, out=again)
    assert filled.local is kept[0] and filled.model is kept[1]
    np.testing.assert_array_equal(filled.model, many.model)
    assert filled.local.tobytes() == many.local.tobytes()
    with pytest.raises(ValueError, match="out.local must be"):
        clip.sample(times[:5], out=again)
    with pytest.raises(ValueError, match="other outputs"):
        clip.sample(times, local=False, out=again)


def test_wraps(guy):
    clip = guy.clip(0)
    n = clip.num_frames
    clamp = clip.sample([-1.0, n + 5.0], frames=True, wrap="clamp", simd="reference")
    first_last = clip.sample([0.0, n - 1.0], frames=True, simd="reference")
    assert clamp.local.tobytes() == first_last.local.tobytes()
    loop = clip.sample([n + 2.0, -n + 2.0], frames=True, wrap="loop", simd="reference")
    two = clip.sample(2.0, frames=True, simd="reference")
    for k in range(2):
        np.testing.assert_allclose(loop.model[k], two.model, atol=1e-6)
    assert clip.frame_at(2.5 / 24) == pytest.approx(2.5)
    with pytest.raises(ossa.ArgumentError, match="wrap"):
        clip.sample(0, wrap="bounce")


def test_compressed_within_bound(guy, tmp_path):
    exact = guy.clip("dance")
    packed = guy.clip("dance", error=1e-3)
    assert packed.compressed and packed.memory < exact.memory
    assert 0 < packed.measured_error <= packed.max_error == pytest.approx(1e-3)
    times = np.arange(0, exact.duration, 1 / 60)
    a = exact.sample(times, simd="reference").model[..., :3, 3]
    b = packed.sample(times, simd="reference").model[..., :3, 3]
    # joint positions move by at most the bound (the metric's virtual
    # vertices sit around each joint, so its own place is within it too)
    assert np.abs(a - b).max() <= 1e-3
    path = tmp_path / "dance.ossaclip"
    packed.save(path)
    again = ossa.load_clip(str(path))
    assert open(path, "rb").read() == packed.data == again.data
    np.testing.assert_array_equal(again.sample(times).model, packed.sample(times).model)
    assert exact.data is None
    with pytest.raises(ossa.Error):
        exact.save(tmp_path / "float.ossaclip")
    damaged = bytearray(packed.data)
    damaged[8:12] = b"\xff\xff\xff\x7f"
    with pytest.raises(ossa.Error, match="byte"):
        ossa.load_clip(bytes(damaged))
    with pytest.raises(ossa.Error):
        ossa.load_clip(packed.data[:40])


def test_clip_from_arrays(guy):
    anim = guy.animations[0]
    built = ossa.build_clip(guy.parents, guy.bind_pose, anim.frames, framerate=24, name="jump")
    clip = guy.clip(0)
    times = np.linspace(0, 2.5, 40)
    np.testing.assert_array_equal(built.sample(times).model, clip.sample(times).model)
    assert built.name == "jump" and built.num_frames == 61


def test_local_to_model(guy):
    s = guy.clip(1).sample([0.1, 0.9], simd="reference")
    m = ossa.local_to_model(guy.parents, s.local)
    np.testing.assert_allclose(m, s.model, atol=1e-5)
    np.testing.assert_allclose(m[0], chain(guy.parents, s.local[0]), atol=2e-5)
    bind = guy.pose()
    np.testing.assert_allclose(bind.model, chain(guy.parents, guy.bind_pose), atol=2e-5)
    np.testing.assert_allclose(guy.bind_matrices @ guy.inverse_bind_matrices,
                               np.broadcast_to(np.eye(4), (14, 4, 4)), atol=1e-5)


def test_rest_pose_beside_bind_pose():
    """CesiumMan's skin was bound lying down, its nodes stand: the rest pose
    is the nodes', pose() shows it, the bind matrices stay the skin's."""
    m = ossa.load(shared("gltf/CesiumMan.glb"))
    assert m.info()["rest_pose_joints"] > 0
    assert (np.asarray(m.rest_pose["rotation"]) != np.asarray(m.bind_pose["rotation"])).any()
    np.testing.assert_allclose(m.pose().model, chain(m.parents, m.rest_pose), atol=2e-5)
    np.testing.assert_allclose(m.bind_matrices, chain(m.parents, m.bind_pose), atol=2e-5)
    np.testing.assert_allclose(m.bind_matrices @ m.inverse_bind_matrices,
                               np.broadcast_to(np.eye(4), (m.num_joints, 4, 4)), atol=1e-4)
    # apply_rest_pose: the mesh skinned into the rest pose, which becomes the
    # bind pose; the character stands where it stood
    a = ossa.load(shared("gltf/CesiumMan.glb"), apply_rest_pose=True)
    assert a.info()["rest_pose_joints"] == 0
    np.testing.assert_allclose(a.bind_matrices, chain(m.parents, m.rest_pose), atol=2e-5)
    np.testing.assert_allclose(a.skin(a.pose().model).positions, m.skin(m.pose().model).positions,
                               atol=1e-4)
    np.testing.assert_allclose(a.positions[:, :3], m.skin(m.pose().model).positions, atol=1e-4)
    # a model that rests in its bind pose: the same array
    guy = ossa.load(shared("iqm/guy.iqm"))
    assert guy.info()["rest_pose_joints"] == 0
    np.testing.assert_array_equal(np.asarray(guy.rest_pose), np.asarray(guy.bind_pose))


def test_root_motion():
    """A root sliding 1 unit per frame along x at 10 fps, turning 0.1 rad per frame."""
    n = 11
    frames = np.zeros((n, 1), ossa.TRANSFORM)
    frames["translation"][:, 0, 0] = np.arange(n)
    frames["rotation"][:, 0, 2] = np.sin(0.05 * np.arange(n))
    frames["rotation"][:, 0, 3] = np.cos(0.05 * np.arange(n))
    frames["scale"] = 1
    bind = frames[0].copy()
    clip = ossa.build_clip([-1], bind, frames, framerate=10)
    move, yaw = clip.root_motion(0.0, 0.5)
    np.testing.assert_allclose(move, [5, 0, 0], atol=1e-5)
    assert yaw == pytest.approx(0.5, abs=1e-5)
    pinned = clip.sample(0.5, remove_root_motion=True, simd="reference")
    np.testing.assert_allclose(pinned.model[0, :3, 3], [0, 0, 0], atol=1e-6)


# -- Blending --------------------------------------------------------------------------


def test_blend(guy):
    clip = guy.clip(1)
    a, b = clip.sample([0.2, 1.1], simd="reference").local
    np.testing.assert_array_equal(ossa.blend([a, b], [1, 0]).view(np.uint8), a.view(np.uint8))
    half = ossa.blend([a, b], [0.5, 0.5])
    np.testing.assert_allclose(half["translation"],
                               (a["translation"].astype(np.float64) + b["translation"]) / 2,
                               atol=1e-6)
    qa, qb = a["rotation"].astype(np.float64), b["rotation"].astype(np.float64)
    qb = np.where((qa * qb).sum(-1, keepdims=True) < 0, -qb, qb)
    nlerp = (qa + qb) / np.linalg.norm(qa + qb, axis=-1, keepdims=True)
    same_rotation(half["rotation"], nlerp, 1e-6)
    # masks: joint 4 takes b alone, the others a
    mask = np.zeros(14, np.float32)
    mask[4] = 1
    masked = ossa.blend([a, b], [1, 1], joint_weights=[1 - mask, mask])
    np.testing.assert_array_equal(masked[4]["translation"], b[4]["translation"])
    np.testing.assert_array_equal(masked[3]["translation"], a[3]["translation"])
    # an additive delta applied to its reference gives the pose back
    delta = ossa.make_additive(a, b)
    back = ossa.blend([a], [1], additive=[delta], additive_weights=[1])
    np.testing.assert_allclose(back["translation"], b["translation"], atol=1e-5)
    same_rotation(back["rotation"], b["rotation"], 1e-5)


# -- Skinning --------------------------------------------------------------------------


def test_skin(guy):
    bind = guy.skin(guy.pose().model)
    np.testing.assert_allclose(bind.positions, guy.positions, atol=1e-5)
    np.testing.assert_allclose(bind.normals, guy.normals, atol=1e-5)
    pose = guy.clip("dance").sample(0.7).model
    got = guy.skin(pose)
    # numpy: sum_k w_k * (pose_k @ inverse_bind_k) @ p
    mats = pose.astype(np.float64) @ guy.inverse_bind_matrices.astype(np.float64)
    w = guy.joint_weights.astype(np.float64)
    idx = guy.joint_indices.astype(int)
    p = np.concatenate([guy.positions, np.ones((guy.num_vertices, 1))], axis=1)
    want = np.einsum("vk,vkij,vj->vi", w, mats[idx], p)[:, :3]
    np.testing.assert_allclose(got.positions, want, atol=1e-4)
    # the general call, with strided inputs (positions are a column slice)
    wide = np.concatenate([guy.positions, np.zeros((guy.num_vertices, 2), np.float32)], axis=1)
    again = ossa.skin(wide[:, :3], idx, guy.joint_weights,
                      ossa.skinning_matrices(pose, guy.inverse_bind_matrices))
    np.testing.assert_allclose(again.positions, got.positions, atol=1e-6)
    with pytest.raises(ValueError):
        ossa.skin(guy.positions, idx[:5], guy.joint_weights, mats)
