"""What the package's tests share: where the build, the command-line tool
and ../shared/data are, running the tool, and skips reported the way the
C tests report them.

ctest (tests/tools/run_pytest.sh) sets OSSA_CLI, OSSA_SHARED_DIR,
OSSA_TEST_TMP, OSSA_LIBRARY_PATH and OSSA_BUILD_DIR; run by hand from the
repository, the defaults are build/ and ../shared. A run that skipped a
test and failed none exits with 77 (ctest's "skipped") and writes the
reasons to $OSSA_TEST_TMP/skipped/<test>, for the summary of `make test`.
"""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.environ.get("OSSA_BUILD_DIR") or os.path.join(ROOT, "build")
CLI = os.environ.get("OSSA_CLI") or os.path.join(BUILD, "ossa")
SHARED = os.environ.get("OSSA_SHARED_DIR") or os.path.join(os.path.dirname(ROOT), "shared")
DATA = os.path.join(SHARED, "data")
os.environ.setdefault("OSSA_LIBRARY_PATH", BUILD)
sys.path.insert(0, os.path.join(ROOT, "python"))

import ossa  # noqa: E402  (after the path is set)

SKIP_EXIT = 77
_skips = []


def run_cli(*args, cwd=None):
    """(exit code, stdout bytes, stderr text) of the ossa tool."""
    p = subprocess.run([CLI] + [os.fspath(a) for a in args], capture_output=True, cwd=cwd,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def cli_json(*args):
    rc, out, err = run_cli(*args)
    assert rc == 0, err
    return json.loads(out)


def cli_error_line(stderr):
    """The message of the tool's error line, without "ossa: "."""
    lines = [ln for ln in stderr.splitlines()
             if ln.startswith("ossa: ") and "warning: " not in ln and "note: " not in ln]
    assert lines, stderr
    return lines[-1][len("ossa: "):]


def cli_warning_lines(stderr):
    """The tool's warning and note lines as ossa.OssaWarning and
    ossa.OssaNote print them: without "ossa: " and "warning: " or "note: "."""
    out = []
    for ln in stderr.splitlines():
        if not ln.startswith("ossa: "):
            continue
        for word in ("warning: ", "note: "):
            if word in ln:
                head, msg = ln[len("ossa: "):].split(word, 1)
                out.append(head + msg if head.endswith(": ") else head.rstrip() + ": " + msg)
                break
    return out


def shared_files():
    """Every file under ../shared/data (recursively) but the manifest and
    the files other files name (.mtl, .bin): what a user would open."""
    if not os.path.isdir(DATA):
        return []
    out = []
    for dirpath, _dirs, files in os.walk(DATA):
        for f in files:
            if f.endswith((".md", ".mtl", ".bin", ".png", ".jpg")):
                continue
            out.append(os.path.join(dirpath, f))
    return sorted(out)


def rel(path):
    return os.path.relpath(path, DATA)


@pytest.fixture
def data():
    """../shared/data, or a visible skip."""
    if not os.path.isdir(DATA):
        pytest.skip("%s not found" % DATA)
    return DATA


def shared(name):
    path = os.path.join(DATA, name)
    if not os.path.isdir(DATA):
        pytest.skip("%s not found" % DATA)
    assert os.path.exists(path), path
    return path


def pytest_runtest_logreport(report):
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _skips.append(reason.replace("Skipped: ", ""))


def pytest_sessionfinish(session, exitstatus):
    if exitstatus == 0 and _skips:
        name = os.environ.get("OSSA_PYTEST_NAME")
        tmp = os.environ.get("OSSA_TEST_TMP")
        if name and tmp:
            os.makedirs(os.path.join(tmp, "skipped"), exist_ok=True)
            with open(os.path.join(tmp, "skipped", name), "w") as f:
                f.write(_skips[0] + "\n")
        print("\nskipped: " + "; ".join(sorted(set(_skips))))
        session.exitstatus = SKIP_EXIT
