"""Every input the fuzzers know (fuzz/corpus/*/, the seeds and the inputs
that once broke a reader) through the Python package, in a child process
per corpus that must end normally: loaded as detected and as its corpus's
format, every array touched, validated, sampled, skinned, written in every
format and drawn small. Bad input may raise ossa.Error; nothing may crash
the interpreter (a crash ends the child with a signal)."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

CORPUS = os.path.join(ROOT, "fuzz", "corpus")
DIRS = sorted(d for d in os.listdir(CORPUS) if os.path.isdir(os.path.join(CORPUS, d))) \
    if os.path.isdir(CORPUS) else []
FORMAT = {"anb": "anb", "fbx": "fbx", "gltf": "gltf", "iqe": "iqe", "iqm": "iqm",
          "md5": "md5mesh", "nmo": "nmo", "nto": "nto", "obj": "obj", "skb": "skb",
          "smd": "smd", "ill_text": "illmesh", "ill_binary": "illmesh"}

CHILD = r'''
import os, sys, warnings
import numpy as np
import ossa
warnings.simplefilter("ignore")
directory, fmt = sys.argv[1], sys.argv[2] or None
writable = [f["name"] for f in ossa.formats() if f["write"]]

def attempt(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except (ossa.Error, ValueError):
        return None

def exercise(m):
    m.info(); m.validate(); m.joint_names; m.flags; m.warnings; m.extras; m.materials
    m.parents.sum(); m.bind_pose.tobytes(); m.triangles.sum(); m.images
    for a in m.vertex_arrays:
        attempt(lambda: a.data.sum()); attempt(a.decoded)
    for name in ("positions", "normals", "tangents", "texcoords", "colors",
                 "joint_indices", "joint_weights"):
        attempt(getattr, m, name)
    for mesh in m.meshes:
        mesh.triangles.sum(); attempt(lambda: mesh.positions)
    bind = attempt(m.pose)
    attempt(lambda: m.inverse_bind_matrices.sum())
    if bind is not None and m.num_joints and m.num_vertices:
        attempt(m.skin, bind.model)
    for an in m.animations:
        an.frames.tobytes(); an.bounds; an.channels
        clip = attempt(m.clip, an.index)
        if clip is not None:
            attempt(clip.sample, np.linspace(-1, clip.duration + 1, 7))
            attempt(clip.sample, [0.5], frames=True, wrap="clamp", simd="reference")
        packed = attempt(m.clip, an.index, compressed=True)
        if packed is not None:
            attempt(ossa.load_clip, packed.data)
        attempt(m.bounds, an.index)
    for f in writable:
        attempt(m.to_bytes, f)
    attempt(ossa.render, m, size=(24, 16), aa=1, threads=1)

count = 0
for name in sorted(os.listdir(directory)):
    data = open(os.path.join(directory, name), "rb").read()
    for f in (None, fmt):
        m = attempt(ossa.load, data, name=name, format=f)
        if m is not None:
            exercise(m)
    clip = attempt(ossa.load_clip, data)
    if clip is not None:
        attempt(clip.sample, np.linspace(0, clip.duration, 9))
    count += 1
print(count)
'''


@pytest.mark.parametrize("corpus", DIRS or [None])
def test_corpus_through_python(corpus):
    if corpus is None:
        pytest.skip("fuzz/corpus not found")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", CHILD, os.path.join(CORPUS, corpus),
                        FORMAT.get(corpus, "")], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, "%s: exit %d\n%s" % (corpus, p.returncode, p.stderr[-3000:])
    assert int(p.stdout.split()[-1]) == len(os.listdir(os.path.join(CORPUS, corpus)))
