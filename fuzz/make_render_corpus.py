#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_render into fuzz/corpus/render/: models,
poses and cameras in the byte layout that fuzz/fuzz_render.c describes,
each aimed at one way geometry goes wrong (NaN and infinite positions,
zero-area and huge triangles, empty models, NaN poses and cameras, the
eye inside the model).

usage: fuzz/make_render_corpus.py
"""
import math
import os
import struct

NAN = float("nan")
INF = float("inf")


def seed(flags, view, ss, threads, w, h, verts, tris, joints=(), uv=None, bones=None,
         camera=None, texture=None):
    out = bytearray(struct.pack("<6BHHB", flags, view, ss, threads, w - 1, h - 1,
                                len(verts), len(tris), len(joints)))
    for v in verts:
        out += struct.pack("<3f", *v)
    for i in range(len(verts)):
        out += struct.pack("<2f", *(uv[i] if uv else (0.0, 0.0)))
    for t in tris:
        out += struct.pack("<3H", *t)
    for parent, pose in joints:
        out += struct.pack("<B", parent)
        out += struct.pack("<16f", *pose)
    for i in range(len(verts)):
        out += struct.pack("<B", bones[i] if bones else 0)
    if camera is not None:
        out += struct.pack("<34f", *camera)
    if texture is not None:
        out += bytes(texture)
    return bytes(out)


def cube():
    verts, tris = [], []
    for axis in range(3):
        for sign in (-1, 1):
            n = [0.0] * 3
            n[axis] = sign
            u = [0.0] * 3
            u[(axis + 1) % 3] = 1
            v = [0.0] * 3
            v[(axis + 2) % 3] = sign
            base = len(verts)
            for cu, cv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                verts.append(tuple(0.5 * (n[i] + cu * u[i] + cv * v[i]) for i in range(3)))
            tris += [(base, base + 2, base + 1), (base, base + 3, base + 2)]
    return verts, tris


IDENTITY = (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)
ALL = 1 | 2 | 4


def seeds():
    verts, tris = cube()
    uv = [((i % 4) / 3.0, (i % 3) / 2.0) for i in range(len(verts))]
    yield "cube", seed(ALL, 5, 2, 2, 48, 40, verts, tris, uv=uv)
    yield "cube_textured_ortho", seed(ALL | 32 | 128, 1, 1, 1, 32, 32, verts, tris, uv=uv,
                                      texture=range(64))
    nan_verts = [(NAN, y, z) if i % 5 == 0 else (x, y, z) for i, (x, y, z) in enumerate(verts)]
    yield "nan_positions", seed(ALL, 0, 2, 3, 40, 40, nan_verts, tris)
    inf_verts = [(INF if i % 3 == 0 else x, -INF if i % 7 == 0 else y, z)
                 for i, (x, y, z) in enumerate(verts)]
    yield "infinite_positions", seed(ALL | 16, 4, 3, 2, 33, 17, inf_verts, tris)
    flat = [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (2.0, 0.0, 0.0), (0.0, 0.0, 0.0)]
    yield "zero_area", seed(ALL | 16, 1, 1, 1, 16, 16, flat, [(0, 1, 2), (0, 3, 0), (1, 1, 1)])
    huge = [(-3e38, 0.0, -1.0), (3e38, 0.0, -1.0), (0.0, 1e-38, 3e38), (1e20, -1e20, 5.0)]
    yield "huge_coordinates", seed(ALL | 16, 5, 4, 4, 64, 64, huge, [(0, 2, 1), (0, 3, 2), (1, 2, 3)])
    yield "empty", seed(ALL, 2, 0, 1, 8, 8, [], [])
    yield "vertices_no_triangles", seed(ALL, 3, 1, 1, 8, 8, verts[:5], [])
    nan_pose = tuple(NAN if i % 4 == 0 else IDENTITY[i] for i in range(16))
    yield "nan_pose", seed(ALL, 5, 2, 2, 40, 40, verts, tris,
                           joints=[(0, IDENTITY), (0, nan_pose)],
                           bones=[i % 2 for i in range(len(verts))])
    bent = (1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0.5, 0.5, 1)
    yield "skinned_bend", seed(ALL | 32, 2, 2, 2, 40, 30, verts, tris,
                               joints=[(0, IDENTITY), (1, bent), (1, IDENTITY)],
                               bones=[i % 3 for i in range(len(verts))])
    # The eye at the origin inside the cube: every face crosses the near plane.
    t = 1 / math.tan(math.radians(45))
    n, f = 0.01, 100.0
    proj = (t, 0, 0, 0, 0, t, 0, 0, 0, 0, (f + n) / (n - f), -1, 0, 0, 2 * f * n / (n - f), 0)
    yield "eye_inside", seed(ALL | 16 | 64, 0, 1, 2, 32, 32, verts, tris,
                             camera=IDENTITY + proj + (0.25, 2.0))
    yield "nan_camera", seed(ALL | 64, 0, 2, 1, 24, 24, verts, tris,
                             camera=(NAN,) * 16 + proj + (NAN, INF))


here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus", "render")
os.makedirs(out, exist_ok=True)
for name, data in seeds():
    with open(os.path.join(out, name), "wb") as fh:
        fh.write(data)
