"""ossa.render draws what `ossa render` draws: the same PNG bytes for a
still (bind pose, a moment of an animation, textures, views, plain and
transparent), a contact sheet and a GIF; the array returned holds the
pixels of the file; PNG and GIF files read back."""

import numpy as np
import pytest

from conftest import run_cli, shared
import ossa

CASES = [
    ("iqm/guy.iqm", [], {}),
    ("iqm/guy.iqm", ["--anim", "dance", "--time", "0.5", "--skeleton"],
     {"animation": "dance", "time": 0.5, "skeleton": True}),
    ("gltf/Fox.glb", ["--anim", "1", "--frame", "3.5", "--view", "side", "--size", "160x120"],
     {"animation": 1, "frame": 3.5, "view": "side", "size": (160, 120)}),
    ("gltf/CesiumMan.glb", ["--plain", "--ortho", "--background", "transparent", "--aa", "1"],
     {"plain": True, "ortho": True, "background": "transparent", "aa": 1}),
    ("gltf/CesiumMan.glb", ["--no-textures", "--yaw", "120", "--pitch", "-10", "--background",
                            "102030", "--distance", "4"],
     {"textures": False, "yaw": 120, "pitch": -10, "background": "102030", "distance": 4}),
    ("iqm/guyanim.iqm", ["--anim", "0"], {"animation": 0}),
    ("obj/cube_usemtl.obj", ["--up", "y", "-r", "0,30,15"], {"up": "y", "rotate": (0, 30, 15)}),
    ("iqm/guy.iqm", ["--up", "z", "--frame", "12"], {"up": "z", "frame": 12}),
    ("obj/cube_with_vertexcolors.obj", [], {}),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_still_equals_the_tool(case, tmp_path):
    path, args, kw = CASES[case]
    path = shared(path)
    rc, _, err = run_cli("render", path, "-o", tmp_path / "cli.png", "--threads", "2", *args)
    assert rc == 0, err
    image = ossa.render(ossa.load(path), output=str(tmp_path / "py.png"), **kw)
    assert (tmp_path / "py.png").read_bytes() == (tmp_path / "cli.png").read_bytes()
    w, h = kw.get("size", (512, 512))
    assert image.shape == (h, w, 4) and image.dtype == np.uint8
    np.testing.assert_array_equal(image, ossa.read_png(str(tmp_path / "cli.png")))
    assert ossa.encode_png(image) == (tmp_path / "cli.png").read_bytes()


def test_sheet_and_gif_equal_the_tool(tmp_path):
    guy = shared("iqm/guy.iqm")
    model = ossa.load(guy)
    rc, _, err = run_cli("render", guy, "--sheet", "5", "-o", tmp_path / "cli.png")
    assert rc == 0, err
    sheet = ossa.render(model, sheet=5, output=str(tmp_path / "py.png"))
    assert (tmp_path / "py.png").read_bytes() == (tmp_path / "cli.png").read_bytes()
    assert sheet.shape == (512, 768, 4)  # 3 x 2 cells of 256
    rc, _, err = run_cli("render", guy, "--gif", "--anim", "dance", "--size", "96x96",
                         "--fps", "12", "-o", tmp_path / "cli.gif")
    assert rc == 0, err
    frames = ossa.render(model, "dance", gif=True, size=(96, 96), fps=12,
                         output=str(tmp_path / "py.gif"))
    assert (tmp_path / "py.gif").read_bytes() == (tmp_path / "cli.gif").read_bytes()
    assert frames.shape == (31, 96, 96, 4)  # 61 frames at 24 fps, once: 60 / 2 + 1
    assert ossa.encode_gif(frames, fps=12) == (tmp_path / "py.gif").read_bytes()


def test_refused():
    model = ossa.load(shared("iqm/guy.iqm"))
    with pytest.raises(ossa.ArgumentError, match="exclude each other"):
        ossa.render(model, time=1, frame=2)
    with pytest.raises(ossa.ArgumentError, match="unknown view"):
        ossa.render(model, view="under")
    with pytest.raises(ossa.ArgumentError, match="--aa"):
        ossa.render(model, aa=5)
    with pytest.raises(ossa.ArgumentError, match="unknown animation"):
        ossa.render(model, "nope")
    with pytest.raises(ossa.Error):
        ossa.read_png(b"\x89PNG not really")
    with pytest.raises(ossa.ArgumentError, match="does not end in .png"):
        ossa.render(model, output="x.gif")
    with pytest.raises(ossa.ArgumentError, match="--up is y or z"):
        ossa.render(model, up="x")
