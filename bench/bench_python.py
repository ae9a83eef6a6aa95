#!/usr/bin/env python3
"""The Python package against the C library on the same machine, in one run
(make bench runs it; every figure is a ratio of two measurements made side
by side, since these machines are shared and noisy; times are the thread's
CPU time, on both sides, except for the thread pool's wall time):

1. Loading each shared model: ossa.load from Python against a C loop of
   ossa_load_file over the same shared library (python_baseline.c, loaded
   with ctypes into this process), rounds interleaved; the least time of
   one load on each side. Target: at most 1.1x.
2. Sampling every frame of an animation into a (T, J, 4, 4) array: one
   Clip.sample call against a C loop of ossa_sample_run per frame on the
   same clip. BrainStem (Khronos glTF sample models) when OSSA_BRAINSTEM
   names it, else the shared glTF animation with the most frames x joints.
   Target: at most 1.2x.
3. Memory: the process's resident size over 10,000 loads and drops
   (with views taken and dropped too): flat means no leak in the binding.
4. pyassimp (Debian's python3-pyassimp): what it does with each shared
   file, and the time of assimp's own importer (the C call every
   pyassimp.load starts with) against ossa's load and sampling.
5. A thread pool converting the shared files (the GIL is released inside
   every call) against one thread.

Environment: OSSA_LIBRARY_PATH (the build), OSSA_BENCH_BASELINE (the
python_baseline module), OSSA_SHARED_DIR (../shared), OSSA_BRAINSTEM (a
BrainStem.glb, optional), OSSA_BENCH_QUICK=1 (fewer rounds).
"""

import ctypes
import gc
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("OSSA_LIBRARY_PATH", os.path.join(ROOT, "build"))

try:
    import numpy as np
except ImportError:
    print("bench_python: numpy not found (Debian: python3-numpy); skipped")
    sys.exit(0)

import ossa  # noqa: E402
import warnings  # noqa: E402

# Warnings are still made (and cost what they cost) but not printed.
warnings.simplefilter("ignore", ossa.OssaWarning)

QUICK = os.environ.get("OSSA_BENCH_QUICK") == "1"
SHARED = os.environ.get("OSSA_SHARED_DIR") or os.path.join(os.path.dirname(ROOT), "shared")
DATA = os.path.join(SHARED, "data")


def shared_models():
    out = []
    for dirpath, _dirs, files in os.walk(DATA):
        for f in files:
            p = os.path.join(dirpath, f)
            if f.endswith((".md", ".mtl", ".bin", ".png", ".jpg")):
                continue
            try:
                ossa.load(p, images=True)
            except ossa.Error:
                continue
            out.append(p)
    return sorted(out)


def baseline():
    path = os.environ.get("OSSA_BENCH_BASELINE") or os.path.join(ROOT, "build", "bench",
                                                                 "libpython_baseline.so")
    lib = ctypes.CDLL(path)
    lib.bench_load.restype = ctypes.c_double
    lib.bench_load.argtypes = [ctypes.c_char_p, ctypes.c_int]
    lib.bench_sample.restype = ctypes.c_double
    lib.bench_sample.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def rel(p):
    return os.path.relpath(p, DATA)


# -- 1. Loading ----------------------------------------------------------------------


def python_load(path, count):
    best = None
    load, clock = ossa.load, time.thread_time
    for _ in range(count):
        t0 = clock()
        m = load(path)
        t = clock() - t0
        del m
        if best is None or t < best:
            best = t
    return best


def bench_loading(lib, files):
    print("\n1. Loading each shared model: Python ossa.load against C ossa_load_file, same "
          "library and process\n   (the thread's CPU time of one load: the median over 21 "
          "rounds, C and Python in turn, of the least\n   of a round's loads)")
    print("   %-40s %10s %10s %6s" % ("file", "C", "Python", "ratio"))
    worst = 0
    ratios = []
    for path in files:
        c_one = lib.bench_load(path.encode(), 3)
        count = max(5, min(400, int(0.05 / max(c_one, 1e-6))))
        rounds = 5 if QUICK else 21
        cs, ps = [], []
        for _ in range(rounds):
            cs.append(lib.bench_load(path.encode(), count))
            ps.append(python_load(path, count))
        c_best, p_best = float(np.median(cs)), float(np.median(ps))
        ratio = p_best / c_best
        ratios.append(ratio)
        worst = max(worst, ratio)
        print("   %-40s %8.1f us %8.1f us %6.3f" % (rel(path), c_best * 1e6, p_best * 1e6, ratio))
    print("   worst %.3f, median %.3f (target: at most 1.1)" % (worst, float(np.median(ratios))))


# -- 2. Sampling ------------------------------------------------------------------------


def pick_animation(files):
    brainstem = os.environ.get("OSSA_BRAINSTEM")
    if brainstem and os.path.exists(brainstem):
        m = ossa.load(brainstem)
        return brainstem, m, max(range(len(m.animations)), key=lambda a: m.animations[a].num_frames)
    best = None
    for path in files:
        if not path.endswith((".glb", ".gltf")):
            continue
        m = ossa.load(path)
        for a in m.animations:
            size = a.num_frames * m.num_joints
            if best is None or size > best[0]:
                best = (size, path, a.index)
    if best is None:
        return None
    return best[1], ossa.load(best[1]), best[2]


def bench_sampling(lib, files):
    picked = pick_animation(files)
    if picked is None:
        print("\n2. Sampling: no glTF animation to sample")
        return
    path, model, index = picked
    clip = model.clip(index)
    frames = np.arange(clip.num_frames, dtype=np.float64)
    print("\n2. Sampling every frame into (T, J, 4, 4): Clip.sample against a C loop of "
          "ossa_sample_run\n   %s, animation %r: %d frames x %d joints (local poses and "
          "model matrices)%s" % (
              rel(path) if path.startswith(DATA) else path, clip.name, clip.num_frames,
              clip.num_joints, "" if "BrainStem" in path else
              "\n   (BrainStem is not in ../shared/data: OSSA_BRAINSTEM=PATH measures it; "
              "this is the shared glTF animation with the most frames x joints)"))
    count = 50 if QUICK else 200
    cs, ps, qs = [], [], []
    sample = clip.sample
    for _ in range(10 if QUICK else 30):
        cs.append(lib.bench_sample(clip._owner.ptr, count))
        best = reuse = None
        for _ in range(count):
            t0 = time.thread_time()
            s = sample(frames, frames=True)
            t = time.thread_time() - t0
            best = t if best is None else min(best, t)
        for _ in range(count):
            t0 = time.thread_time()
            sample(frames, frames=True, out=s)
            t = time.thread_time() - t0
            reuse = t if reuse is None else min(reuse, t)
        del s
        ps.append(best)
        qs.append(reuse)
    c_best, p_best, q_best = (float(np.median(x)) for x in (cs, ps, qs))
    ns = 1e9 / (clip.num_frames * clip.num_joints)
    print("   C loop %.1f us (%.2f ns/joint), Python %.1f us (%.2f ns/joint): ratio %.3f "
          "(target: at most 1.2)\n   Python filling the arrays of the previous call again "
          "(out=): %.1f us, ratio %.3f" % (
              c_best * 1e6, c_best * ns, p_best * 1e6, p_best * ns, p_best / c_best,
              q_best * 1e6, q_best / c_best))


# -- 3. Memory -------------------------------------------------------------------------------


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def bench_memory(files):
    guy = [f for f in files if f.endswith("guy.iqm")]
    fox = [f for f in files if f.endswith("Fox.glb")]
    if not guy or not fox:
        print("\n3. Memory: guy.iqm or Fox.glb not found")
        return
    print("\n3. Memory: resident size over 10,000 loads and drops (views taken and dropped)")
    for path in (guy[0], fox[0]):
        marks = {}
        for i in range(1, 10001):
            m = ossa.load(path)
            views = (m.positions, m.triangles, m.animations[0].frames, m.joint_names,
                     m.clip(0).sample([0.0, 0.1]).model)
            del m, views
            if i in (1000, 2000, 5000, 10000):
                gc.collect()
                marks[i] = rss_kib()
        print("   %-16s RSS after 1,000: %d KiB, 2,000: %d KiB, 5,000: %d KiB, 10,000: %d KiB "
              "(growth from 1,000 to 10,000: %+d KiB)" % (
                  os.path.basename(path), marks[1000], marks[2000], marks[5000], marks[10000],
                  marks[10000] - marks[1000]))


# -- 4. pyassimp ---------------------------------------------------------------------------

STOCK = r'''
import sys, pyassimp
with pyassimp.load(sys.argv[1]) as s:
    print("loaded: %d meshes, %d vertices, %d bones, %d animations" % (
        len(s.meshes), sum(len(m.vertices) for m in s.meshes),
        sum(len(m.bones) for m in s.meshes), len(s.animations)))
'''


def pyassimp_outcome(path):
    p = subprocess.run([sys.executable, "-c", STOCK, path], capture_output=True, text=True,
                       timeout=120)
    if p.returncode < 0:
        return "crashes (signal %d)" % -p.returncode
    if p.returncode:
        return p.stderr.strip().splitlines()[-1][:70] if p.stderr.strip() else "fails"
    return p.stdout.strip()


def ossa_load_and_sample(path):
    m = ossa.load(path)
    for a in m.animations:
        clip = m.clip(a.index)
        clip.sample(np.arange(clip.num_frames, dtype=np.float64), frames=True)
    return m


def best_of(fn, count):
    best = None
    for _ in range(count):
        t0 = time.thread_time()
        r = fn()
        t = time.thread_time() - t0
        del r
        best = t if best is None else min(best, t)
    return best


def bench_pyassimp(files):
    try:
        import pyassimp
        import pyassimp.core
        from pyassimp.postprocess import aiProcess_Triangulate
    except ImportError:
        print("\n4. pyassimp: not installed (Debian: python3-pyassimp); skipped")
        return
    print("\n4. pyassimp (Debian python3-pyassimp, libassimp5 %s)" % (
        subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libassimp5"],
                       capture_output=True, text=True).stdout or "?"))
    print("   What pyassimp.load does with each shared file, and what ossa reads from it:")
    importer = pyassimp.core._assimp_lib
    rows = []
    for path in files:
        m = ossa.load(path)
        ours = "%d joints, %d vertices, %d animations" % (m.num_joints, m.num_vertices,
                                                         len(m.animations))
        print("   %-36s pyassimp: %-44s ossa: %s" % (rel(path), pyassimp_outcome(path), ours))
        if importer.load(path.encode(), aiProcess_Triangulate):
            rows.append(path)
    print("   Time (thread CPU time, least of 9): assimp's importer alone (aiImportFile through pyassimp's own ctypes handle,"
          " with pyassimp's\n   default aiProcess_Triangulate; every pyassimp.load starts with"
          " it, then turns the scene into\n   Python objects) against ossa.load, and against "
          "ossa.load plus sampling every frame of every animation:")
    print("   %-36s %12s %12s %7s %14s %7s" % ("file", "assimp C", "ossa.load", "ratio",
                                              "ossa + sample", "ratio"))
    count = 3 if QUICK else 9
    for path in rows:
        def assimp():
            scene = importer.load(path.encode(), aiProcess_Triangulate)
            importer.release(scene)
        a = best_of(assimp, count)
        o = best_of(lambda: ossa.load(path), count)
        s = best_of(lambda: ossa_load_and_sample(path), count)
        print("   %-36s %9.2f ms %9.2f ms %6.2fx %11.2f ms %6.2fx" % (
            rel(path), a * 1e3, o * 1e3, a / o, s * 1e3, a / s))


# -- 5. Threads ---------------------------------------------------------------------------------


def bench_threads(files):
    from concurrent.futures import ThreadPoolExecutor
    # The files whose conversion is mostly C: the four slowest to load.
    big = sorted(files, key=lambda f: -os.path.getsize(f))[:4]
    jobs = [(f, fmt) for fmt in ("glb", "iqm") for f in big] * 4
    cpus = len(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory() as tmp:
        def work(args):
            i, (src, fmt) = args
            d = os.path.join(tmp, str(i))
            os.makedirs(d, exist_ok=True)
            try:
                ossa.convert(src, os.path.join(d, "out." + fmt), force=True, threads=1)
            except ossa.Error:
                pass
        best_one = best_many = None
        for _ in range(3):
            t0 = time.perf_counter()
            for j in enumerate(jobs):
                work(j)
            one = time.perf_counter() - t0
            t0 = time.perf_counter()
            with ThreadPoolExecutor(max_workers=cpus) as pool:
                list(pool.map(work, enumerate(jobs)))
            many = time.perf_counter() - t0
            best_one = one if best_one is None else min(best_one, one)
            best_many = many if best_many is None else min(best_many, many)
    print("\n5. Threads: %d conversions of %s to glb and iqm: one thread %.2f s, a pool of %d "
          "threads %.2f s\n   (%.2fx; %d CPUs, load average %.1f while it ran: other work "
          "shares them)" % (
              len(jobs), ", ".join(os.path.basename(f) for f in big), best_one, cpus,
              best_many, best_one / best_many, cpus, os.getloadavg()[0]))


def main():
    if not os.path.isdir(DATA):
        print("bench_python: %s not found; skipped" % DATA)
        return
    lib = baseline()
    files = shared_models()
    print("bench_python: %s, Python %s, numpy %s, ossa %s from %s" % (
        time.strftime("%Y-%m-%d"), sys.version.split()[0], np.__version__, ossa.LIBRARY_VERSION,
        ossa.LIBRARY))
    bench_loading(lib, files)
    bench_sampling(lib, files)
    bench_memory(files)
    bench_pyassimp(files)
    bench_threads(files)


if __name__ == "__main__":
    main()
