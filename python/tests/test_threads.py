"""Threads: loads, writes, conversions and sampling run without the GIL
(ctypes releases it around every call), so a thread pool works on many
files at once; what the threads produce is what one thread produces."""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from conftest import run_cli, shared_files
import ossa

pytestmark = pytest.mark.filterwarnings("ignore::ossa.OssaWarning")
READABLE = [f for f in shared_files() if run_cli("info", f)[0] == 0]


def _convert(args):
    src, out = args
    return ossa.convert(src, out, force=True, threads=1)


def test_pool_converts_like_one_thread(tmp_path):
    if not READABLE:
        pytest.skip("../shared/data not found")
    # each conversion in a folder of its own: images written beside an
    # output would otherwise be shared between them
    jobs = []
    for fmt in ("glb", "iqm", "iqe", "smd"):
        for f in READABLE:
            jobs.append((f, "%d/%s.%s" % (len(jobs), os.path.basename(f), fmt)))
    serial, pooled = tmp_path / "serial", tmp_path / "pooled"
    for base in (serial, pooled):
        for j in jobs:
            (base / os.path.dirname(j[1])).mkdir(parents=True)

    def outcome(base, job):
        try:
            paths = _convert((job[0], str(base / job[1])))
            return sorted(os.path.relpath(p, base) for p in paths)
        except ossa.Error as e:
            return str(e).replace(str(base), "")

    one = [outcome(serial, j) for j in jobs]
    with ThreadPoolExecutor(max_workers=8) as pool:
        many = list(pool.map(lambda j: outcome(pooled, j), jobs))
    assert many == one
    for j, paths in zip(jobs, one):
        if isinstance(paths, list):
            for p in paths:
                assert (serial / p).read_bytes() == (pooled / p).read_bytes(), p
    assert sum(isinstance(p, list) for p in one) > len(jobs) // 2


def test_pool_loads_and_samples():
    if not READABLE:
        pytest.skip("../shared/data not found")

    def work(path):
        m = ossa.load(path)
        out = [m.num_joints, m.num_vertices, m.positions.sum() if m.positions is not None else 0]
        for a in m.animations:
            clip = m.clip(a.index)
            out.append(clip.sample(np.arange(0, clip.duration, 1 / 30)).model.tobytes())
        return out

    one = [work(f) for f in READABLE]
    with ThreadPoolExecutor(max_workers=4) as pool:
        many = list(pool.map(work, READABLE * 2))
    assert many == one + one


def test_one_clip_many_threads():
    path = [f for f in READABLE if f.endswith("Fox.glb")]
    if not path:
        pytest.skip("../shared/data not found")
    m = ossa.load(path[0])
    clip = m.clip(2, error=0.01)  # compressed: each call has its own cache
    times = np.linspace(0, clip.duration, 500)
    want = clip.sample(times).model
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: clip.sample(times).model, range(24)))
    for r in results:
        np.testing.assert_array_equal(r, want)


CHILD = r'''
import os, sys, threading
import ossa
fifo, model = sys.argv[1], ossa.load(sys.argv[2])
done = {}
writer = threading.Thread(target=lambda: done.update(paths=model.save(fifo, format="iqm")))
writer.start()
# The writer blocks in the library until this thread opens the FIFO: with
# the GIL held during the call, this line would never run.
data = open(fifo, "rb").read()
writer.join()
print(len(data), done["paths"] == [fifo])
'''


def test_the_gil_is_released(tmp_path):
    """A write into a FIFO blocks until a reader opens it: a write on a
    thread, read by the main thread, finishes only when the write runs
    without the GIL (in a child process, which a hang would time out)."""
    import subprocess
    import sys
    from conftest import ROOT, shared
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    guy = shared("iqm/guy.iqm")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", CHILD, str(fifo), guy], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    size, same = p.stdout.split()
    assert same == "True" and int(size) == len(ossa.load(guy).to_bytes("iqm"))
