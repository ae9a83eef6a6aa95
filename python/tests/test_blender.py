"""The package inside Blender's Python (Debian's Blender 3.4 runs the system
Python 3.11 with its numpy): started headless, it imports ossa from the
source tree, loads a model and samples it to what `ossa info --json` and
the package outside Blender give. Skipped, visibly, where Blender is not
installed."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import ROOT, cli_json, shared
import ossa

SCRIPT = r'''
import json, sys
sys.path.insert(0, %(path)r)
import bpy, numpy as np, ossa
m = ossa.load(%(file)r)
clip = m.clip(0)
pose = clip.sample(np.arange(0, clip.duration, 1 / 60))
print("OSSA_RESULT " + json.dumps({
    "blender": bpy.app.version_string, "python": sys.version.split()[0],
    "library": ossa.LIBRARY, "info": m.info(),
    "heights": pose.model[:, 3, 2, 3].tolist()}))
'''


def test_import_in_blender():
    blender = shutil.which("blender")
    if not blender:
        pytest.skip("blender not installed (Debian: apt-get install blender)")
    fox = shared("gltf/Fox.glb")
    code = SCRIPT % {"path": os.path.join(ROOT, "python"), "file": fox}
    p = subprocess.run([blender, "-b", "--factory-startup", "--python-exit-code", "1",
                        "--python-expr", code], capture_output=True, text=True, timeout=300)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("OSSA_RESULT ")]
    assert p.returncode == 0 and lines, p.stdout[-2000:] + p.stderr[-2000:]
    got = json.loads(lines[0][len("OSSA_RESULT "):])
    assert got["blender"].startswith("3.")
    assert got["library"] == os.environ["OSSA_LIBRARY_PATH"]
    want = cli_json("info", "--json", fox)
    assert got["info"]["joints"] == want["joints"] == 24
    assert got["info"]["vertices"] == want["vertices"]
    assert [a["name"] for a in got["info"]["animations"]] == [a["name"] for a in want["animations"]]
    m = ossa.load(fox)
    clip = m.clip(0)
    here = clip.sample(np.arange(0, clip.duration, 1 / 60)).model[:, 3, 2, 3]
    np.testing.assert_array_equal(np.float32(got["heights"]), here)
