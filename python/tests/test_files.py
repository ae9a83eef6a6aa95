"""Every file of ../shared/data (and whatever else is put there) loads from
Python to what the command-line tool reports: `ossa info --json` (joints,
vertices, meshes, arrays, animations, skeleton, bounds, extras, warnings),
`ossa pose --json` of the bind pose and of frames of every animation
(local transforms and model matrices, the same floats), the same warning
lines through Python's warnings, and for a file the tool refuses, the same
error message through ossa.Error."""

import warnings

import numpy as np
import pytest

from conftest import cli_error_line, cli_json, cli_warning_lines, rel, run_cli, shared_files
import ossa

FILES = shared_files()
# The files the tool reads, for the tests of what a loaded model holds (the
# others are the error test's).
READABLE = [f for f in FILES if run_cli("info", f)[0] == 0]


def _floats32(x):
    """JSON values with every number as the float32 it stands for (the tool
    prints float32 values with 9 digits, which read back to the same one)."""
    if isinstance(x, dict):
        return {k: _floats32(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_floats32(v) for v in x]
    if isinstance(x, float):
        return float(np.float32(x))
    return x


def _load(path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ossa.load(path)
    return model, [str(w.message) for w in caught if issubclass(w.category, ossa.OssaWarning)]


@pytest.fixture(params=FILES or [None], ids=[rel(f) for f in FILES] or ["no-data"])
def path(request):
    if request.param is None:
        pytest.skip("../shared/data not found")
    return request.param


@pytest.fixture(params=READABLE or [None], ids=[rel(f) for f in READABLE] or ["no-data"])
def readable(request):
    if request.param is None:
        pytest.skip("../shared/data not found")
    return request.param


def test_info_matches_the_tool(path):
    rc, out, err = run_cli("info", "--json", path)
    if rc != 0:
        with pytest.raises(ossa.Error) as e:
            ossa.load(path)
        assert str(e.value) == cli_error_line(err)
        assert e.value.file == path
        return
    import json
    want = json.loads(out)
    model, caught = _load(path)
    assert _floats32(model.info()) == _floats32(want)
    assert caught == cli_warning_lines(err)
    # the counts users look at first, spelled out
    assert model.num_joints == want["joints"] == len(model.joint_names)
    assert model.num_vertices == want["vertices"]
    assert [a.name for a in model.animations] == [a["name"] for a in want["animations"]]


def _pose_equal(py, want, model):
    joints = want["joints"]
    assert len(joints) == model.num_joints
    for j, w in enumerate(joints):
        assert w["name"] == model.joint_names[j]
        assert w["parent"] == model.parents[j]
        for key in ("translation", "rotation", "scale"):
            np.testing.assert_array_equal(py.local[j][key], np.float32(w["local"][key]),
                                          err_msg="joint %d %s" % (j, key))
        # the tool prints column-major; Sample.model is [row, column]
        np.testing.assert_array_equal(py.model[j].T.reshape(16), np.float32(w["model"]),
                                      err_msg="joint %d model" % j)


def test_poses_match_the_tool(readable):
    path = readable
    model, _ = _load(path)
    _pose_equal(model.pose(), cli_json("pose", "--json", path), model)
    for a in model.animations:
        n = max(a.num_frames, 1)  # an animation without frames samples its bind pose
        for frame in sorted({0, n // 2, n - 1, 1.5 if n > 2 else 0}):
            want = cli_json("pose", "--json", "--anim", str(a.index), "--frame", str(frame), path)
            _pose_equal(model.pose(a.index, frame=frame), want, model)


def test_views_hold_the_file_data(readable):
    """Arrays are views of the model's memory, read-only, in the shapes the
    counts give; float arrays are views, and decode as the library does."""
    model, _ = _load(readable)
    assert model.triangles.shape == (model.num_triangles, 3)
    assert not model.triangles.flags.writeable
    if model.num_triangles:
        assert model.triangles.max() < model.num_vertices
    for a in model.vertex_arrays:
        assert a.data.shape == (model.num_vertices, a.size)
        assert not a.data.flags.writeable
        if a.format == "float":
            assert a.floats() is a.data
        np.testing.assert_array_equal(a.decoded()[np.isfinite(a.decoded())],
                                      np.asarray(a.floats(), np.float32)[np.isfinite(a.decoded())])
    for anim in model.animations:
        assert anim.frames.shape == (anim.num_frames, model.num_joints)
