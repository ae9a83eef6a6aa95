"""ModelBuilder: a model made from numpy arrays holds exactly those arrays,
writes in every format ossa writes, and reads back to them (the tool's
`ossa info --json` of the written file agrees); what the library refuses
raises ossa.Error, what cannot be a model raises ValueError."""

import json

import numpy as np
import pytest

from conftest import run_cli
import ossa

# Formats that cannot hold everything say so: expected here.
pytestmark = pytest.mark.filterwarnings("ignore::ossa.OssaWarning")

# A bent bar: two joints, 8 vertices around each, rotating about X.
RING = np.array([[np.cos(a), np.sin(a)] for a in np.arange(4) * np.pi / 2], np.float64)


def _bar():
    b = ossa.ModelBuilder()
    b.add_joint("root", -1, translation=(0, 0, 0))
    b.add_joint("tip", 0, translation=(0, 0, 2), rotation=(0, 0, 0, 1))
    pos = np.concatenate([np.c_[RING * 0.5, np.full(4, z)] for z in (0.0, 1.0, 2.0, 3.0)])
    n = len(pos)
    tris = []
    for ring in range(3):
        for k in range(4):
            a, b2 = ring * 4 + k, ring * 4 + (k + 1) % 4
            tris += [(a, a + 4, b2), (b2, a + 4, b2 + 4)]
    idx = np.zeros((n, 4), np.int64)
    idx[:, 0] = (pos[:, 2] >= 2).astype(int)
    w = np.zeros((n, 4))
    w[:, 0] = 1
    normals = np.c_[RING.repeat(1, 0).tolist() * 4, np.zeros(n)]
    b.add_mesh(pos, np.array(tris), name="bar", material="metal", normals=normals,
               texcoords=np.c_[np.zeros(n), pos[:, 2] / 3], joint_indices=idx, joint_weights=w)
    f = 5
    angles = np.linspace(0, np.pi / 2, f)
    rot = np.zeros((f, 2, 4))
    rot[:, :, 3] = 1
    rot[:, 1, 0] = np.sin(angles / 2)
    rot[:, 1, 3] = np.cos(angles / 2)
    b.add_animation("bend", rotations=rot, framerate=10, loop=True)
    return b, pos, np.array(tris), rot


def test_build_holds_the_arrays():
    b, pos, tris, rot = _bar()
    m = b.build()
    assert m.num_joints == 2 and m.joint_names == ("root", "tip")
    np.testing.assert_array_equal(m.parents, [-1, 0])
    np.testing.assert_array_equal(m.bind_pose["translation"][1], [0, 0, 2])
    np.testing.assert_array_equal(m.positions, pos.astype(np.float32))
    np.testing.assert_array_equal(m.triangles, tris)
    assert m.vertex_array("blendindexes").format == "ubyte"  # the narrowest that holds them
    assert m.vertex_array("position").format == "float"  # float64 given
    anim = m.animations[0]
    assert (anim.name, anim.num_frames, anim.framerate, anim.loop) == ("bend", 5, 10, True)
    np.testing.assert_array_equal(anim.rotations, rot.astype(np.float32))
    np.testing.assert_array_equal(anim.translations[:, 1], np.tile([0, 0, 2], (5, 1)))
    assert m.meshes[0].material == "metal" and m.meshes[0].num_triangles == 24
    assert m.validate() == []
    # the tip at the last frame: turned 90 degrees about X around (0, 0, 2)
    pose = m.clip(0).sample(4, frames=True, simd="reference")
    np.testing.assert_allclose(pose.model[1, :3, 3], [0, 0, 2], atol=1e-6)
    # skinned by hand: a vertex of the tip (z >= 2) turns by +90 degrees
    # about X around (0, 0, 2): (x, y, z) -> (x, -(z - 2), 2 + y)
    skinned = m.skin(pose.model).positions
    tip = pos[:, 2] >= 2
    want = pos.copy()
    want[tip] = np.c_[pos[tip, 0], -(pos[tip, 2] - 2), 2 + pos[tip, 1]]
    np.testing.assert_allclose(skinned, want, atol=1e-5)


@pytest.mark.parametrize("fmt", [f["name"] for f in ossa.formats() if f["write"]])
def test_written_in_every_format(fmt, tmp_path):
    b, pos, tris, rot = _bar()
    m = b.build()
    ext = [f for f in ossa.formats() if f["name"] == fmt][0]["extensions"][0]
    out = tmp_path / ("bar" + ext)
    written = m.save(str(out), anim=0)
    assert str(out) in written
    rc, info, err = run_cli("info", "--json", str(out))
    assert rc == 0, err
    info = json.loads(info)
    back = ossa.load(str(out))
    assert back.info() == info
    holds_mesh = info["vertices"] > 0
    if holds_mesh:
        # the coordinates survive up to each format's axes, precision and
        # vertex layout (strips repeat vertices)
        got = np.unique(np.round(np.abs(back.positions), 4))
        np.testing.assert_allclose(got, np.unique(np.round(np.abs(pos), 4)), atol=1e-3)
    if info["animations"] and info["joints"] == 2:
        a = back.animations[0]
        s = back.clip(0).sample(np.arange(a.num_frames), frames=True, simd="reference").model
        tip = s[:, 1, :3, :3]
        # the tip's turn about X, whatever the axes of the format
        angle = np.degrees(np.arccos(np.clip((np.trace(tip, axis1=1, axis2=2) - 1) / 2, -1, 1)))
        # (MD5 closes a loop with a copy of frame 0)
        np.testing.assert_allclose([angle[0], angle.max()], [0, 90], atol=0.05)


def test_refused():
    b = ossa.ModelBuilder()
    b.add_joint("a", 1)  # a parent after its child
    with pytest.raises(ossa.ArgumentError, match="parent"):
        b.build()
    b = ossa.ModelBuilder()
    b.add_mesh(np.zeros((3, 3)), [[0, 1, 2]])
    with pytest.raises(ValueError, match="same attributes"):
        b.add_mesh(np.zeros((3, 3)), [[0, 1, 2]], normals=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="vertex 3"):
        b.add_mesh(np.zeros((3, 3)), [[0, 1, 3]])
    with pytest.raises(ValueError, match="positions"):
        b.add_mesh(np.zeros((3, 2)), [[0, 1, 2]])
    b = ossa.ModelBuilder()
    b.add_joint("a\0b")
    with pytest.raises(ValueError, match="NUL"):
        b.build()
