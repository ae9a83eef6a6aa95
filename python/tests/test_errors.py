"""Errors and warnings: damaged files raise the ossa.Error subclass of their
code with the tool's message and place (byte N, line:column); warnings go
through Python's warnings with the tool's text; keywords are checked
(format options by name, unknown ones named); errors survive pickling
(process pools); a package without its libraries says where it looked."""

import os
import pickle
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

from conftest import DATA, ROOT, cli_error_line, cli_warning_lines, run_cli, shared
import ossa


def _same_error_as_cli(path):
    rc, _, err = run_cli("info", path)
    assert rc == 1
    with pytest.raises(ossa.Error) as e:
        ossa.load(path)
    assert str(e.value) == cli_error_line(err)
    return e.value


def test_damaged_binary(tmp_path):
    data = open(shared("iqm/guy.iqm"), "rb").read()
    cut = tmp_path / "cut.iqm"
    cut.write_bytes(data[:300])
    e = _same_error_as_cli(str(cut))
    assert isinstance(e, ossa.Error) and e.file == str(cut)
    assert e.offset is not None and e.line is None
    assert type(e) is {3: ossa.FormatError, 4: ossa.TruncatedError, 5: ossa.CorruptError}[e.code]
    # a count patched past the end of the file
    patched = bytearray(data)
    patched[68:72] = (10 ** 6).to_bytes(4, "little")  # num_joints (header, iqm.md §2)
    bad = tmp_path / "bad.iqm"
    bad.write_bytes(bytes(patched))
    e = _same_error_as_cli(str(bad))
    assert "byte" in str(e)
    # the same bytes from memory: the same message without a file name
    with pytest.raises(ossa.Error) as m:
        ossa.load(bytes(patched))
    assert str(m.value).endswith(e.message) and m.value.file == ""
    with pytest.raises(ossa.Error) as m:
        ossa.load(memoryview(bytes(patched)), name="mem.iqm")
    assert str(m.value) == str(e).replace(str(bad), "mem.iqm")


def test_damaged_text(tmp_path):
    bad = tmp_path / "bad.iqe"
    bad.write_text("# Inter-Quake Export\njoint root -1\npq 0 0 zero\n")
    e = _same_error_as_cli(str(bad))
    assert e.line == 3 and e.column is not None and e.offset is None
    assert str(e).startswith("%s:3:" % bad)


def test_not_a_model(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00\x01not a model at all")
    e = _same_error_as_cli(str(junk))
    assert isinstance(e, ossa.FormatError) and e.code_name == "format"
    missing = tmp_path / "missing.iqm"
    e = _same_error_as_cli(str(missing))
    assert isinstance(e, ossa.ReadWriteError)


def test_errors_pickle():
    with pytest.raises(ossa.Error) as e:
        ossa.load(b"\x00garbage", name="x.iqm")
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is type(e.value) and str(again) == str(e.value)
    assert again.code == e.value.code


def test_warnings_are_the_tools(tmp_path):
    path = shared("obj/number_formats.obj")
    rc, _, err = run_cli("info", path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = ossa.load(path)
    lines = [str(w.message) for w in caught]
    assert lines == cli_warning_lines(err) and lines
    assert all(w.category is ossa.OssaWarning for w in caught)
    assert caught[0].filename == __file__  # points at the caller
    d = caught[0].message.diagnostic
    assert d.line == 11 and d.column == 14 and d.code_name == "repaired" and d.code == 102
    assert [str(w) for w in model.warnings] == lines
    # every kind of warning points at the caller's line
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ossa.load(shared("fbx/huesitos.fbx")).save(str(tmp_path / "h.anb"))   # a note
        ossa.convert(path, str(tmp_path / "n.iqm"))                          # load warnings
        model.to_bytes("glb", anim=0)                                      # --anim ignored
        ossa.convert([path], out_dir=str(tmp_path / "d"), format="iqe", each=True)
    kinds = {w.category for w in caught}
    assert kinds == {ossa.OssaWarning, ossa.OssaNote}
    assert [w.filename for w in caught] == [__file__] * len(caught)
    # warnings as errors, the usual way
    with warnings.catch_warnings():
        warnings.simplefilter("error", ossa.OssaWarning)
        with pytest.raises(ossa.OssaWarning):
            ossa.load(path)


def test_keywords(tmp_path):
    box = shared("obj/box.obj")
    with pytest.raises(TypeError, match="'obj_axis'.*obj_axes"):
        ossa.load(box, obj_axis="blender")
    with pytest.raises(TypeError, match="gltf_embed is an option for writing"):
        ossa.load(box, gltf_embed=True)
    with pytest.raises(ossa.ArgumentError, match="obj.axes"):
        ossa.load(box, obj_axes="sideways")
    a = ossa.load(box, obj_axes="blender")
    b = ossa.load(box, obj_axes="sdk")
    assert (a.positions != b.positions).any()
    opts = ossa.format_options()
    assert opts["fbx_keep_units"].name == "fbx.keep_units" and opts["fbx_keep_units"].type == "switch"
    assert "pose_time" in ossa.format_options(writing=True)["obj_pose_time"].name
    with pytest.raises(TypeError, match="'sheet'"):
        ossa.load(box).save(str(tmp_path / "x.iqm"), sheet=3)


def test_library_not_found(tmp_path):
    """A copy of the package without libraries, OSSA_LIBRARY_PATH naming a
    directory without them: the import fails naming every place tried, or
    (where the libraries are installed system-wide) finds them there."""
    shutil.copytree(os.path.join(ROOT, "python", "ossa"), tmp_path / "ossa",
                    ignore=shutil.ignore_patterns("_libs", "_libdir.py", "__pycache__"))
    env = dict(os.environ, OSSA_LIBRARY_PATH=str(tmp_path / "nowhere"), PYTHONPATH=str(tmp_path))
    env.pop("LD_LIBRARY_PATH", None)
    p = subprocess.run([sys.executable, "-c", "import ossa; print(ossa.LIBRARY)"], env=env,
                       capture_output=True, text=True, cwd=str(tmp_path))
    if p.returncode == 0:
        assert p.stdout.strip() == "the system's dynamic loader"
        return
    assert "LibraryNotFound" in p.stderr
    assert "OSSA_LIBRARY_PATH (%s)" % (tmp_path / "nowhere") in p.stderr
    assert "next to the package" in p.stderr and "the system's dynamic loader" in p.stderr


def test_keep_degenerate():
    # three `v` lines at one point with one texture coordinate: the triangle's
    # corners are one vertex; a load drops it with a warning that counts it,
    # keep_degenerate keeps it as the file has it (as `ossa validate` reads)
    text = (b"v 0 0 0\nv 0 0 0\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\n"
            b"f 1/1 2/1 3/1\nf 1/1 4/1 5/1\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dropped = ossa.load(text, format="obj")
    assert dropped.num_triangles == 1
    assert any("1 degenerate triangle (a vertex repeated) dropped" in str(w.message) for w in caught)
    kept = ossa.load(text, format="obj", keep_degenerate=True)
    assert kept.num_triangles == 2
    assert not any("degenerate" in str(w) for w in kept.warnings)


def test_model_flags():
    bvh = os.path.join(DATA, "bvh")
    files = sorted(os.listdir(bvh)) if os.path.isdir(bvh) else []
    if not files:
        pytest.skip("no BVH files in %s" % bvh)
    # a BVH's motion is about its own rest pose; an md5anim merges strictly
    assert "rest_pose_reference" in ossa.load(os.path.join(bvh, files[0])).flags
    md5 = os.path.join(DATA, "md5")
    anims = sorted(f for f in os.listdir(md5) if f.endswith(".md5anim")) if os.path.isdir(md5) else []
    if anims:
        assert "strict_joints" in ossa.load(os.path.join(md5, anims[0])).flags


def test_front(tmp_path):
    # each format's convention, as ossa info says; --front overrides it; a
    # writer turns the model to its format's front unless keep_front
    box = shared("iqm/guy.iqm")
    m = ossa.load(box)
    assert m.front == "+x" == m.info()["front"]
    assert ossa.load(box, front="-y").front == "-y"
    with pytest.raises(ossa.ArgumentError, match="--front is x, -x, y or -y"):
        ossa.load(box, front="up")
    turned = ossa.load(m.to_bytes("glb"), format="glb")
    kept = ossa.load(m.to_bytes("glb", keep_front=True), format="glb")
    assert turned.front == kept.front == "-y"
    # +X to -Y is a quarter turn about Z: x' = y, y' = -x
    p, q = np.asarray(kept.positions)[:, :3], np.asarray(turned.positions)[:, :3]
    np.testing.assert_allclose(q[:, 0], p[:, 1], atol=1e-5)
    np.testing.assert_allclose(q[:, 1], -p[:, 0], atol=1e-5)
