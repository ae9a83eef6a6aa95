"""The README's Python example runs as written (in a folder holding
Fox.glb) and draws the head's height over the walk to head.png; it is the
same in README.md and python/README.md, and about ten lines long."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, shared
import ossa


def _example(path):
    text = open(path, encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    found = [b for b in blocks if 'ossa.load("Fox.glb")' in b]
    assert found, path
    return found[0]


def test_readme_example(tmp_path):
    code = _example(os.path.join(ROOT, "README.md"))
    assert code == _example(os.path.join(ROOT, "python", "README.md"))
    assert len(code.strip().splitlines()) <= 11
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.skip("matplotlib not found (Debian: python3-matplotlib)")
    os.symlink(shared("gltf/Fox.glb"), tmp_path / "Fox.glb")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), MPLCONFIGDIR=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    png = ossa.read_png(str(tmp_path / "head.png"))
    assert png.shape[0] > 100 and png.shape[1] > 100
