#!/usr/bin/env python3
"""Writes the illEngine seed corpora for fuzz_ill_text and fuzz_ill_binary
into fuzz/corpus/ill_text/ and fuzz/corpus/ill_binary/.

Every seed is small, valid and built here from docs/formats/ill.md:

  ill_text/mesh_v0b.illmesh      every attribute, v0b layout (blank lines)
  ill_text/mesh_v0a.illmesh      texcoord before blend data, no blank lines
  ill_text/mesh_crlf.illmesh     positions only, CRLF line ends
  ill_text/md5.illskel           Body before origin before <MD5_Root>
  ill_text/walk.illanim          ILLANIM0, 3 frames of 2 bones
  ill_text/walk_tagged.illanim   the same with ossa's name and loop line after the frames
  ill_text/keyed.illanim         ILLANIM1, channels with 0, 1 and 2 keys
  ill_binary/mesh0.illmesh       ILLMESH0, mask 0x3F
  ill_binary/groups.illmesh      ILLMESH1, strip, fan, list and points
  ill_binary/md5.illskel         Rx(-90) root, forward references, offsets
  ill_binary/run.illanim         ILLANIM0, 2 bones by index
  ill_binary/names.illanset      big-endian name lengths
  ill_binary/names_le.illanset   the little-endian variant

usage: make_ill_corpus.py [OUTDIR]   (default: corpus/ beside this script)
"""
import math
import os
import struct
import sys


def text_seeds():
    v0b = ("ILLMESH0\n1\n1\n1\n1\n1\n1\n3\n3\n"
           "0 0 0\n0 0 1\n1 0 0\n0 1 0\n2 0 0 0\n1 0 0 0\n0.25 0.75\n1 0 0 1\n\n"
           "1 0 0\n0 0 1\n1 0 0\n0 -1 0\n0 1 0 0\n0.5 0.5 0 0\n1 0\n0 1 0 1\n\n"
           "0 1 0\n0 0 1\n0 1 0\n-1 0 0\n1 0 0 0\n1 0 0 0\n0 1\n0 0 1 0.5\n\n"
           "0 1 2\n")
    v0a = ("ILLMESH0\n1\n1\n0\n1\n1\n0\n3\n3\n"
           "0 0 0\n0 0 1\n0.5 0.5\n0 1 0 0\n0.75 0.25 0 0\n"
           "1 0 0\n0 0 1\n1 0\n1 0 0 0\n1 0 0 0\n"
           "0 1 0\n0 0 1\n0 1\n2 0 0 0\n1 0 0 0\n"
           "0 1 2\n")
    crlf = "ILLMESH0\r\n1\r\n0\r\n0\r\n0\r\n0\r\n0\r\n3\r\n3\r\n0 0 0\r\n\r\n1 0 0\r\n\r\n0 1 0\r\n\r\n0 1 2\r\n"
    skel = ("ILLSKEL0\n3\n"
            "1 0 0 1\n0 1 0 2\n0 0 1 30\n0 0 0 1\n\n"
            "0.866025 -0.5 0 0\n0 0 1 0\n-0.5 -0.866025 0 0\n0 0 0 1\n\n"
            "1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n\n"
            "1\n2\n-1\nBody\norigin\n<MD5_Root>\n")
    walk = ("ILLANIM0\n24\n3\n2\n"
            "origin\n0 0 0 0 0 0 1 1 1 1\n1 0 0 0 0 0.258819 0.965926 1 1 1\n"
            "2 0 0 0 0 0.5 0.866025 1 1 1\n\n"
            "Body\n1 2 30 -0.5 -0.5 -0.5 -0.5 1 1 1\n1 2 30 0.5 0.5 0.5 0.5 1 1 1\n"
            "1 2 31 -0.5 -0.5 -0.5 -0.5 1 1 1\n\n")
    keyed = ("ILLANIM1\n0.875\n2\n"
             "origin\n2\n0 0 0 0\n0.5 4e-006 0 -1.15367e-007\n1\n0 0 0 0 1\n0\n"
             "Body\n0\n2\n0.0416667 0 0 0.7071068 0.7071068\n0.875 0 0 -0.7071068 0.7071068\n"
             "1\n0 1 1 1\n")
    return {"mesh_v0b.illmesh": v0b.encode(), "mesh_v0a.illmesh": v0a.encode(),
            "mesh_crlf.illmesh": crlf.encode(), "md5.illskel": skel.encode(),
            "walk.illanim": walk.encode(), "keyed.illanim": keyed.encode(),
            "walk_tagged.illanim": (walk + "ossa --loop --name Walk Left\n").encode()}


def f32(*v):
    return struct.pack("<%df" % len(v), *v)


def mat_mul(a, b):
    return [sum(a[k * 4 + r] * b[c * 4 + k] for k in range(4)) for c in range(4) for r in range(4)]


def rigid_inverse(m):
    inv = [0.0] * 16
    for r in range(3):
        for c in range(3):
            inv[c * 4 + r] = m[r * 4 + c]
    for r in range(3):
        inv[12 + r] = -(inv[r] * m[12] + inv[4 + r] * m[13] + inv[8 + r] * m[14])
    inv[15] = 1.0
    return inv


def rot_z(deg, t=(0, 0, 0)):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return [c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, t[0], t[1], t[2], 1]


def binary_seeds():
    out = {}
    # ILLMESH0, every feature: v0b order, u16 indices
    b = b"ILLMESH0" + struct.pack("<BIH", 0x3F, 3, 3)
    for v in range(3):
        b += f32(v, 0, 1) + f32(0, 0, 1) + f32(1, 0, 0) + f32(0, 1, 0)
        b += f32(v, 0, 0, 0) + f32(1, 0, 0, 0) + f32(0.5, v) + f32(1, 1, 1, 1)
    b += struct.pack("<3H", 0, 1, 2)
    out["mesh0.illmesh"] = b
    # ILLMESH1: strip, fan, list, points
    groups = [(4, 0, 5), (5, 5, 4), (3, 9, 3), (0, 12, 2)]
    idx = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 3, 2, 0, 1]
    b = b"ILLMESH1" + struct.pack("<BBIH", 0x09, len(groups), 5, len(idx))
    for g in groups:
        b += struct.pack("<BHH", *g)
    for v in range(5):
        b += f32(v, v * v, 0, 0.5, v)
    b += struct.pack("<%dH" % len(idx), *idx)
    out["groups.illmesh"] = b
    # ILLSKEL0: Body, origin, <MD5_Hierarchy>, <MD5_Root> (Rx(-90))
    rx = [1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1]
    bones = [(rot_z(10, (1, 2, 30)), 1), (rot_z(30, (0, 0, 3)), 2), (rot_z(0), 3), (rx, -1)]
    b = b"ILLSKEL0" + struct.pack("<H", len(bones))
    for i, (m, p) in enumerate(bones):
        world = m
        while p >= 0:
            world = mat_mul(bones[p][0], world)
            p = bones[p][1]
        b += f32(*m) + f32(*rigid_inverse(world))
    b += struct.pack("<4H", 1, 2, 3, 3)
    out["md5.illskel"] = b
    # ILLANIM0: bone 3 positions, bone 1 rotations
    b = b"ILLANIM0" + f32(1.0) + struct.pack("<H", 2)
    b += struct.pack("<HH", 3, 2) + f32(0, 0, 0, 0) + f32(0.5, 4, 0, 0)
    b += struct.pack("<H", 1) + f32(0, 0, 0, 0, 1) + struct.pack("<H", 0)
    b += struct.pack("<HH", 1, 0) + struct.pack("<H", 2)
    b += f32(0, 0, 0, 0, 1) + f32(0.5, 0, 0, 0.7071068, 0.7071068) + struct.pack("<H", 0)
    out["run.illanim"] = b
    names = [b"Body", b"origin", b"<MD5_Hierarchy>", b"<MD5_Root>"]
    out["names.illanset"] = b"ILANSET0" + struct.pack("<H", 4) + b"".join(
        struct.pack(">H", len(n)) + n for n in names)
    out["names_le.illanset"] = b"ILANSET0" + struct.pack("<H", 4) + b"".join(
        struct.pack("<H", len(n)) + n for n in names)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    for sub, seeds in (("ill_text", text_seeds()), ("ill_binary", binary_seeds())):
        d = os.path.join(root, sub)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
