"""Writing from Python gives the bytes the tool writes: Model.save of every
shared file in every format ossa writes against `ossa convert FILE -o
out.EXT` (every file of several-file outputs, images beside included, and
the same warnings or the same error), and ossa.convert with the tool's
options (per-input options, merges, comma lists, edits, format options,
.ossaclip outputs, batches) against the same command line."""

import os
import shutil
import warnings

import pytest

from conftest import cli_error_line, cli_warning_lines, rel, run_cli, shared, shared_files
import ossa

WRITABLE = [f["name"] for f in ossa.formats() if f["write"]]
EXT = {f["name"]: f["extensions"][0] for f in ossa.formats()}
READABLE = [f for f in shared_files() if run_cli("info", f)[0] == 0]


def _files(d):
    out = {}
    for dirpath, _dirs, names in os.walk(d):
        for n in names:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, d)] = open(p, "rb").read()
    return out


def _both(tmp_path, monkeypatch, cli_args, py, notes=()):
    """Runs the tool in tmp/cli and ``py()`` in tmp/py (the same relative
    output names), then compares what each wrote and said (``notes``: what
    Python says as a note where the tool prints a plain line)."""
    a, b = tmp_path / "cli", tmp_path / "py"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    rc, _, err = run_cli(*cli_args, cwd=a)
    monkeypatch.chdir(b)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = py()
            error = None
        except ossa.Error as e:
            result, error = None, e
    said = [str(w.message) for w in caught if issubclass(w.category, ossa.OssaWarning)]
    if rc == 0:
        assert error is None, "the tool succeeded, Python failed: %s" % error
    else:
        assert error is not None, "the tool failed (%s), Python did not" % err.strip()
        assert str(error) == cli_error_line(err)
    assert _files(b) == _files(a)
    assert said == cli_warning_lines(err) + list(notes)
    for n in notes:
        assert "ossa: " + n in err
    return result


@pytest.mark.parametrize("fmt", WRITABLE)
def test_save_equals_convert(fmt, tmp_path, monkeypatch):
    if not READABLE:
        pytest.skip("../shared/data not found")
    for path in READABLE:
        d = tmp_path / rel(path).replace("/", "_")
        d.mkdir()
        out = "out" + EXT[fmt]

        def save(path=path, out=out):
            return ossa.load(path).save(out)
        written = _both(d, monkeypatch, ["convert", path, "-o", out], save)
        if written is not None:
            assert written and all(os.path.exists(p) for p in written)


def _convert_case(tmp_path, monkeypatch, cli_args, *args, notes=(), **kwargs):
    return _both(tmp_path, monkeypatch, ["convert"] + cli_args,
                 lambda: ossa.convert(*args, **kwargs), notes)


def test_merge_and_edits(tmp_path, monkeypatch):
    guy, anim = shared("iqm/guy.iqm"), shared("iqm/guyanim.iqm")
    _convert_case(tmp_path / "a", monkeypatch, [guy, anim, "-o", "merged.iqm"],
                  [guy, anim], "merged.iqm")
    _convert_case(tmp_path / "b", monkeypatch,
                  ["-s", "2", "-r", "0,0,90", "-t", "1,2,3", "--resample", "30", "--drop-anim",
                   "jump", "--rename-anim", "dance=idle", guy, "-o", "e.iqm"],
                  guy, "e.iqm", scale=2, rotate=(0, 0, 90), meshtrans=(1, 2, 3), resample=30,
                  drop_anim="jump", rename_anim={"dance": "idle"})
    _convert_case(tmp_path / "c", monkeypatch,
                  ["-s", "2", "-s", "0.5", "-r", "90,0,0", "-r", "0,0,45", "-t", "1", "-t",
                   "1,2", guy, "-o", "r.iqe"],
                  guy, "r.iqe", scale=[2, 0.5], rotate=[(90, 0, 0), (0, 0, 45)],
                  meshtrans=[1, (1, 2)])
    _convert_case(tmp_path / "d", monkeypatch, ["--forcejoints", anim, "-o", "fj.iqm"],
                  anim, "fj.iqm", forcejoints=True)
    _convert_case(tmp_path / "e", monkeypatch, [guy + "," + guy, "-o", "two.iqm"],
                  ossa.Input([guy, guy]), "two.iqm")
    _convert_case(tmp_path / "f", monkeypatch, [guy + "," + guy, "-o", "two.iqm"],
                  guy + "," + guy, "two.iqm")


def test_per_input_options(tmp_path, monkeypatch):
    man, guy = shared("gltf/CesiumMan.glb"), shared("iqm/guy.iqm")
    _convert_case(tmp_path / "a", monkeypatch,
                  ["--name", "walk", "--fps", "24", "--loop", "--start", "1", "--end", "-3", man,
                   "-o", "m.iqm"],
                  ossa.Input(man, name="walk", fps=24, loop=True, start=1, end=-3), "m.iqm")
    _convert_case(tmp_path / "b", monkeypatch,
                  ["--start", "5", "--end", "20", guy, "--fps", "10", guy, "-o", "g.iqm"],
                  [ossa.Input(guy, start=5, end=20), ossa.Input(guy, fps=10)], "g.iqm")
    # refused as the tool refuses it: --name on a file of two animations
    _convert_case(tmp_path / "c", monkeypatch, ["--name", "x", guy, "-o", "n.iqm"],
                  ossa.Input(guy, name="x"), "n.iqm")
    # a warning: per-input options before a file without animations
    box = shared("obj/box.obj")
    _convert_case(tmp_path / "d", monkeypatch, ["--loop", box, "-o", "b.iqm"],
                  ossa.Input(box, loop=True), "b.iqm")


def test_output_options(tmp_path, monkeypatch):
    guy, fox, box = shared("iqm/guy.iqm"), shared("gltf/Fox.glb"), shared("obj/box.obj")
    cases = [
        (["--obj-axes", "blender", box, "-o", "b.obj"], box, "b.obj", {"obj_axes": "blender"}),
        (["--embed", "--sparse-channels", fox, "-o", "f.gltf"], fox, "f.gltf",
         {"embed": True, "sparse_channels": True}),
        (["--images", "none", fox, "-o", "f.iqm"], fox, "f.iqm", {"images": "none"}),
        ([fox, "-o", "f.iqe"], fox, "f.iqe", {}),
        (["--bounds", "exact", guy, "-o", "x.iqm"], guy, "x.iqm", {"bounds": "exact"}),
        (["--anim", "dance", "--time", "0.5", guy, "-o", "p.obj"], guy, "p.obj",
         {"anim": "dance", "time": 0.5}),
        (["--anim", "dance", guy, "-o", "p.glb"], guy, "p.glb", {"anim": "dance"}),
        (["--anim", "1", guy, "-o", "d.anb"], guy, "d.anb", {"anim": 1}),
        (["--anim", "nope", guy, "-o", "n.anb"], guy, "n.anb", {"anim": "nope"}),
        ([guy, "-o", "g.md5mesh"], guy, "g.md5mesh", {}),
        (["--drop-anim", "walk", guy, "-o", "w.iqm"], guy, "w.iqm", {"drop_anim": ["walk"]}),
        ([guy, "-o", "g.unknown"], guy, "g.unknown", {}),
        ([guy, fox, "-o", "m.iqm"], [guy, fox], "m.iqm", {}),
    ]
    for i, (args, inputs, out, kw) in enumerate(cases):
        if out == "g.unknown":
            # refused before any file is read, by both: the message differs
            # only in the tool's hint
            with pytest.raises(ossa.ArgumentError, match="cannot tell the output format"):
                ossa.convert(inputs, out, **kw)
            continue
        _convert_case(tmp_path / str(i), monkeypatch, args, inputs, out, **kw)


def test_several_files_need_force(tmp_path, monkeypatch):
    guy = shared("iqm/guy.iqm")
    monkeypatch.chdir(tmp_path)
    written = ossa.convert(guy, "g.md5mesh")
    assert written == ["g.md5mesh", "g.jump.md5anim", "g.dance.md5anim"]
    with pytest.raises(ossa.ExistsError):
        ossa.convert(guy, "g.md5mesh")
    assert ossa.convert(guy, "g.md5mesh", force=True) == written


def test_clip_output(tmp_path, monkeypatch):
    guy = shared("iqm/guy.iqm")
    _convert_case(tmp_path / "a", monkeypatch,
                  [guy, "-o", "g.ossaclip", "--anim", "dance", "--error", "0.001"],
                  guy, "g.ossaclip", anim="dance", error=0.001)
    _convert_case(tmp_path / "b", monkeypatch, [guy, "-o", "g.ossaclip"], guy, "g.ossaclip",
                  notes=["g.ossaclip: animation 0 of 2 (--anim picks another)"])
    clip = ossa.load_clip(str(tmp_path / "a" / "py" / "g.ossaclip"))
    assert clip.compressed and clip.name == "dance" and clip.num_joints == 14


def test_each(tmp_path, monkeypatch):
    files = [shared("iqm/guy.iqm"), shared("gltf/Fox.glb"), shared("iqm/invalid/InvalidMeshOffset.iqm"),
             shared("obj/box.obj")]
    a, b = tmp_path / "cli", tmp_path / "py"
    a.mkdir()
    b.mkdir()
    rc, _, err = run_cli("convert", "--each", *files, "--out-dir", "out", "--format", "glb",
                         "-j", "2", cwd=a)
    assert rc == 1
    monkeypatch.chdir(b)
    results = ossa.convert(files, out_dir="out", format="glb", each=True, jobs=2)
    assert _files(b) == _files(a)
    assert [isinstance(r, ossa.Error) for r in results] == [False, False, True, False]
    assert str(results[2]) in err
    assert results[0] == ["out/guy.glb"]
    # the same bytes with one job at a time
    shutil.rmtree(b / "out")
    ossa.convert(files, out_dir="out", format="glb", each=True, jobs=1)
    assert _files(b) == _files(a)


def test_options_checked_first(tmp_path):
    guy = shared("iqm/guy.iqm")
    out = str(tmp_path / "x.iqm")
    with pytest.raises(ossa.ArgumentError, match="--scale wants a positive number"):
        ossa.convert(guy, out, scale=-1)
    with pytest.raises(ossa.ArgumentError, match="--rotate wants X,Y,Z"):
        ossa.convert(guy, out, rotate=(1, 2))
    with pytest.raises(ossa.ArgumentError, match="unknown bounds mode 'tight'"):
        ossa.convert(guy, out, bounds="tight")
    with pytest.raises(TypeError, match="fbx_keep_unit"):
        ossa.convert(guy, out, fbx_keep_unit=True)
    with pytest.raises(ossa.ArgumentError, match="needs --format"):
        ossa.convert(guy, out_dir=str(tmp_path / "d"))
    with pytest.raises(ossa.ArgumentError, match="--start wants"):
        ossa.Input(guy, start=-1)
    assert not os.path.exists(out)


def test_to_bytes_is_standard_output():
    """No output file: the bytes `ossa convert ... -o - --format F` prints."""
    guy, fox = shared("iqm/guy.iqm"), shared("gltf/Fox.glb")
    for src, fmt, kw in ((guy, "glb", {}), (fox, "gltf", {}), (fox, "iqe", {}),
                         (guy, "iqm", {"scale": 2}), (fox, "anb", {"anim": "Run"})):
        args = ["convert", src, "-o", "-", "--format", fmt]
        if kw.get("scale"):
            args += ["-s", "2"]
        if kw.get("anim"):
            args += ["--anim", "Run"]
        rc, out, err = run_cli(*args)
        assert rc == 0, err
        assert ossa.convert(src, format=fmt, **kw) == out
    rc, _, _ = run_cli("convert", guy, "-o", "-", "--format", "md5mesh")
    assert rc == 1
    with pytest.raises(ossa.ArgumentError, match="this output is 3 files"):
        ossa.convert(guy, format="md5mesh")
    with pytest.raises(ossa.ArgumentError, match="no output file"):
        ossa.convert(guy)
