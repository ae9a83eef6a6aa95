"""Installing: `make install` (cmake --install, here into a staging prefix)
puts the package where the prefix's Python finds it and records where the
libraries went; `pip install --no-build-isolation ./python` builds the
libraries into the package. Each installed copy imports with no
OSSA_LIBRARY_PATH, finds its own libraries and loads a model."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT, shared
from ossa import _lib


def _import_from(site, model):
    env = dict(os.environ, PYTHONPATH=site)
    env.pop("OSSA_LIBRARY_PATH", None)
    code = "import ossa; m = ossa.load(%r); print(ossa.LIBRARY); print(m.num_joints)" % model
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       cwd="/")
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_make_install(tmp_path):
    cache = open(os.path.join(BUILD, "CMakeCache.txt")).read()
    m = re.search(r"^OSSA_PYTHON_SITEDIR:PATH=(.*)$", cache, re.M)
    if not m or not m.group(1):
        pytest.skip("cmake found no Python to install the package for")
    stage = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(stage)], check=True,
                   capture_output=True)
    site = stage / m.group(1)
    assert (site / "ossa" / "__init__.py").exists() and (site / "ossa" / "py.typed").exists()
    assert not (site / "ossa" / "_libs").exists()
    lib = stage / "lib"
    assert "LIBDIR = '%s'" % lib in (site / "ossa" / "_libdir.py").read_text()
    where, joints = _import_from(str(site), shared("iqm/guy.iqm"))
    assert where == str(lib) and joints == "14"


def test_pip_install(tmp_path):
    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
    if pip.returncode != 0:
        pytest.skip("pip not found (Debian: python3-pip)")
    try:
        import setuptools  # noqa: F401
    except ImportError:
        pytest.skip("setuptools not found (Debian: python3-setuptools)")
    if not shutil.which("cmake"):
        pytest.skip("cmake not found")
    target = tmp_path / "site"
    # The cmake build is kept in the build directory, so that later runs
    # rebuild only what changed.
    env = dict(os.environ, OSSA_CMAKE_BUILD_DIR=os.path.join(BUILD, "python-pip-cmake"),
               JOBS=os.environ.get("JOBS", "2"))
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation",
                        "--no-deps", "--no-index", "--target", str(target),
                        os.path.join(ROOT, "python")], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    libs = target / "ossa" / "_libs"
    assert sorted(os.listdir(libs)) == sorted(
        _lib._soname(n) for n in ("ossa-runtime", "ossa", "ossa-render"))
    where, joints = _import_from(str(target), shared("iqm/guy.iqm"))
    assert where == str(libs) and joints == "14"
