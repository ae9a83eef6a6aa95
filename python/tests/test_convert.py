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


def _both(tmp_path, monkeypatch, cli_args, py):
    """Runs the tool in tmp/cli and ``py()`` in tmp/py (the same relative
    output names), then compares what each wrote and said."""
    a, b = tmp_path / "cli", tmp_path / "py"
    a.mkdir(parents=True, exist_ok=True)
    b.mkdir(parents=True, exist_ok=True)
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
    assert said == cli_warning_lines(err)
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


def _convert_case(tmp_path, monkeypatch, cli_args, *args, **kwargs):
    return _both(tmp_path, monkeypatch, ["convert"] + cli_args,
                 lambda: ossa.convert(*args, **kwargs))


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


def test_replace_and_no_clobber(tmp_path, monkeypatch):
    """Existing files are replaced (force says so and is taken); no_clobber
    replaces nothing and fails as the tool fails."""
    guy = shared("iqm/guy.iqm")
    monkeypatch.chdir(tmp_path)
    written = ossa.convert(guy, "g.md5mesh")
    assert written == ["g.md5mesh", "g.jump.md5anim", "g.dance.md5anim"]
    assert ossa.convert(guy, "g.md5mesh") == written
    assert ossa.convert(guy, "g.md5mesh", force=True) == written
    assert ossa.load(guy).save("g.md5mesh") == written
    with pytest.raises(ossa.ArgumentError, match="exclude each other"):
        ossa.convert(guy, "g.md5mesh", force=True, no_clobber=True)
    for kw in ({"no_clobber": True},):
        a, b = tmp_path / "cli", tmp_path / "py"
        for d in (a, b):
            d.mkdir()
            (d / "g.dance.md5anim").write_text("in the way\n")
        rc, _, err = run_cli("convert", guy, "-o", "g.md5mesh", "-n", cwd=a)
        assert rc == 1
        monkeypatch.chdir(b)
        with pytest.raises(ossa.ExistsError) as e:
            ossa.convert(guy, "g.md5mesh", **kw)
        assert str(e.value) in err
        with pytest.raises(ossa.ExistsError):
            ossa.load(guy).save("g.md5mesh", no_clobber=True)
        assert _files(a) == _files(b) == {"g.dance.md5anim": b"in the way\n"}


def test_clip_output(tmp_path, monkeypatch):
    guy = shared("iqm/guy.iqm")
    _convert_case(tmp_path / "a", monkeypatch,
                  [guy, "-o", "g.ossaclip", "--anim", "dance", "--error", "0.001"],
                  guy, "g.ossaclip", anim="dance", error=0.001)
    _convert_case(tmp_path / "b", monkeypatch, [guy, "-o", "g.ossaclip", "--shell", "0.5"],
                  guy, "g.ossaclip", shell=0.5)
    clip = ossa.load_clip(str(tmp_path / "a" / "py" / "g.ossaclip"))
    assert clip.compressed and clip.name == "dance" and clip.num_joints == 14
    back = ossa.load(str(tmp_path / "a" / "py" / "g.ossaclip"))  # a clip reads as a model
    assert back.num_joints == 14 and [a.name for a in back.animations] == ["dance"]
    with pytest.raises(ossa.ArgumentError, match="--error needs a positive number"):
        ossa.convert(guy, str(tmp_path / "x.ossaclip"), error=-1)


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


def test_each_clashes_and_kept_folders(tmp_path, monkeypatch):
    """Inputs of one name in two folders: both fail alone (the others are
    converted) with the tool's message, or --keep-dirs keeps them apart."""
    src = tmp_path / "src"
    for d in ("a", "b"):
        (src / d).mkdir(parents=True)
        shutil.copy(shared("iqm/guy.iqm"), src / d / "guy.iqm")
    shutil.copy(shared("obj/box.obj"), src / "box.obj")
    files = ["src/a/guy.iqm", "src/b/guy.iqm", "src/box.obj"]
    for keep in (False, True):
        a, b = tmp_path / ("cli%d" % keep), tmp_path / ("py%d" % keep)
        for d in (a, b):
            d.mkdir()
            os.symlink(src, d / "src")
        args = ["convert", "--each"] + files + ["--out-dir", "out", "--format", "iqe"]
        rc, _, err = run_cli(*(args + (["--keep-dirs"] if keep else [])), cwd=a)
        monkeypatch.chdir(b)
        results = ossa.convert(files, out_dir="out", format="iqe", each=True, keep_dirs=keep)
        assert _files(b / "out") == _files(a / "out")
        failed = [r for r in results if isinstance(r, ossa.Error)]
        assert rc == (1 if failed else 0)
        assert [str(e) in err for e in failed] == [True] * len(failed)
        if keep:
            assert results == [["out/src/a/guy.iqe"], ["out/src/b/guy.iqe"], ["out/src/box.iqe"]]
        else:
            assert len(failed) == 2 and "--keep-dirs keeps their folders apart" in str(failed[0])
            assert results[2] == ["out/box.iqe"]


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


def test_standard_input(tmp_path):
    """An input "-" is standard input, as for the tool."""
    import subprocess
    import sys
    from conftest import CLI, ROOT
    guy = shared("iqm/guy.iqm")
    with open(guy, "rb") as f:
        subprocess.run([CLI, "convert", "-", "-o", str(tmp_path / "cli.iqe")], stdin=f, check=True)
    code = "import ossa, sys; ossa.convert('-', sys.argv[1])"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    with open(guy, "rb") as f:
        subprocess.run([sys.executable, "-c", code, str(tmp_path / "py.iqe")], stdin=f, env=env,
                       check=True)
    assert (tmp_path / "py.iqe").read_bytes() == (tmp_path / "cli.iqe").read_bytes()
    with open(os.devnull, "rb") as f:
        p = subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.iqe")], stdin=f,
                           env=env, capture_output=True, text=True)
    rc, _, err = run_cli("convert", "-", "-o", str(tmp_path / "y.iqe"))
    assert p.returncode == 1 and rc == 1
    assert p.stderr.strip().splitlines()[-1].split(": ", 1)[1] == cli_error_line(err)


def test_texture_picture(tmp_path, monkeypatch):
    """An output ending in .png takes the input's one image (a .nto
    texture's level, --level N), as `ossa convert IN -o OUT.png` writes it,
    and fails as the tool fails: no image, several, one that is not a PNG,
    a level the texture lacks, an existing file under no_clobber."""
    from conftest import ROOT
    seeds = os.path.join(ROOT, "fuzz", "corpus")
    mips = os.path.join(seeds, "nto", "rgba32_mips.nto")
    pal4 = os.path.join(seeds, "nto", "pal4.nto")
    _convert_case(tmp_path / "a", monkeypatch, [mips, "-o", "out.png"], mips, "out.png")
    _convert_case(tmp_path / "b", monkeypatch, [mips, "-o", "OUT.PNG", "--level", "1"],
                  mips, "OUT.PNG", level=1)
    _convert_case(tmp_path / "c", monkeypatch, [pal4, "-o", "x.png", "--level", "9"],
                  pal4, "x.png", level=9)
    assert (tmp_path / "a" / "py" / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "a" / "py" / "out.png").read_bytes() != \
        (tmp_path / "b" / "py" / "OUT.PNG").read_bytes()
    # Models: none, two (skin.png, face.png beside an IQE naming both), a JPEG.
    iqe = open(os.path.join(seeds, "iqe", "skinned.iqe")).read()
    body = iqe[iqe.index('mesh "body"'):iqe.index("fm 0 1 2\n") + 9]
    two = iqe.replace(body, body + body.replace("body", "head").replace("skin", "face"))
    png = (tmp_path / "a" / "py" / "out.png").read_bytes()
    jpeg = open(os.path.join(seeds, "jpeg", "baseline.jpg"), "rb").read()
    cases = {"none": ({"m.iqe": iqe}, "the input holds no image"),
             "two": ({"m.iqe": two, "skin.png": png, "face.png": png}, "holds 2 images"),
             "jpeg": ({"m.iqe": iqe, "skin.jpg": jpeg}, "is not a PNG")}
    for name, (files, said) in cases.items():
        d = tmp_path / name
        for side in ("cli", "py"):
            (d / side).mkdir(parents=True)
            for f, body in files.items():
                (d / side / f).write_bytes(body.encode() if isinstance(body, str) else body)
        rc, _, err = run_cli("convert", "m.iqe", "-o", "m.png", cwd=d / "cli")
        assert rc == 1 and said in err, err
        _convert_case(d, monkeypatch, ["m.iqe", "-o", "m.png"], "m.iqe", "m.png")
    # An existing output under no_clobber; level only with a .png output.
    d = tmp_path / "kept"
    for side in ("cli", "py"):
        (d / side).mkdir(parents=True)
        (d / side / "x.png").write_bytes(b"old")
    _convert_case(d, monkeypatch, [mips, "-o", "x.png", "-n"], mips, "x.png", no_clobber=True)
    for level, out in ((15, "x.png"), (1, "x.iqm")):
        rc, _, err = run_cli("convert", mips, "-o", str(tmp_path / out), "--level", str(level))
        assert rc == 2
        with pytest.raises(ossa.ArgumentError) as e:
            ossa.convert(mips, str(tmp_path / out), level=level)
        assert str(e.value) == cli_error_line(err)
