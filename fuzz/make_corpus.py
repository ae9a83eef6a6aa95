#!/usr/bin/env python3
"""Writes the IQM seed corpus for fuzz_iqm into fuzz/corpus/iqm/.

Every seed is built here byte by byte (docs/formats/iqm.md), small and valid, so
that the fuzzer starts from inputs that reach every section of the reader:

  header_only.iqm        124-byte header, every count 0
  triangle_formats.iqm   1 triangle, 1 joint, arrays in all nine component
                         formats (half, double, custom arrays), adjacency
  skeleton_anim.iqm      2 joints, 1 mesh, a 3-frame looping animation with
                         per-frame bounds
  anim_only.iqm          0 joints, 2 poses, two animations sharing frames,
                         plus an empty animation
  constant_anim.iqm      animated skeleton whose channels are all constant
                         (num_framechannels = 0, ofs_frames = 0)
  v1.iqm                 version 1 (44-byte joints, 80-byte poses, 9 channels)
  comment_ext.iqm        a comment and two linked extensions

The other files in corpus/iqm (named by their SHA-1) were found by fuzz_iqm
itself: a libFuzzer -merge of its corpus, then a greedy pick of the inputs
that add the most covered lines and branches of src/formats/iqm/ per
byte. They are kept as they are; this script does not touch them.

usage: make_corpus.py [OUTDIR]   (default: corpus/iqm beside this script)
"""
import os
import struct
import sys

MAGIC = b"INTERQUAKEMODEL\0"
HEADER = 124

POSITION, TEXCOORD, NORMAL, TANGENT, BLENDINDEXES, BLENDWEIGHTS, COLOR, CUSTOM = 0, 1, 2, 3, 4, 5, 6, 0x10
BYTE, UBYTE, SHORT, USHORT, INT, UINT, HALF, FLOAT, DOUBLE = range(9)
FMT = {BYTE: "b", UBYTE: "B", SHORT: "h", USHORT: "H", INT: "i", UINT: "I", HALF: "e", FLOAT: "f",
       DOUBLE: "d"}


def pad(b, n=4):
    return b + b"\0" * (-len(b) % n)


class Text:
    """Text block: NUL-terminated strings, the first one empty."""

    def __init__(self):
        self.data = b"\0"
        self.index = {"": 0}

    def __call__(self, s):
        if s not in self.index:
            self.index[s] = len(self.data)
            self.data += s.encode() + b"\0"
        return self.index[s]


def iqm(version=2, text=None, meshes=(), arrays=(), num_vertexes=0, triangles=(), adjacency=None,
        joints=(), poses=(), anims=(), num_frames=0, frames=(), bounds=None, comment=None,
        extensions=()):
    """Lays out a file in the compiler's section order (docs/formats/iqm.md §5).

    meshes:     (name_ofs, material_ofs, first_vertex, num_vertexes, first_tri, num_tris)
    arrays:     (type, format, size, values)   values: num_vertexes*size numbers
    joints:     (name_ofs, parent, translate[3], rotate[4 or 3 for v1], scale[3])
    poses:      (parent, mask, offsets[10 or 9], scales[10 or 9])
    anims:      (name_ofs, first_frame, num_frames, framerate, flags)
    frames:     u16 samples, num_frames * num_framechannels of them
    bounds:     per global frame: (min[3], max[3], xyradius, radius)
    extensions: (name_ofs, data bytes)
    """
    h = {}
    body = bytearray()

    def at():
        return HEADER + len(body)

    def put(field, count, blob):
        nonlocal body
        if count:
            h["num_" + field] = count
            h["ofs_" + field] = at()
            body += pad(blob)

    text_blob = text.data if text else b""
    if text_blob:
        h["num_text"] = len(pad(text_blob))
        h["ofs_text"] = at()
        body += pad(text_blob)
    put("meshes", len(meshes), b"".join(struct.pack("<6I", *m) for m in meshes))
    h["num_vertexes"] = num_vertexes
    if arrays:
        h["num_vertexarrays"] = len(arrays)
        h["ofs_vertexarrays"] = at()
        records = at()
        body += b"\0" * (20 * len(arrays))
        body += b"\0" * (-at() % 8)
        base = at()
        for i, (typ, fmt, size, values) in enumerate(arrays):
            assert len(values) == num_vertexes * size
            cs = struct.calcsize("<" + FMT[fmt])
            body += b"\0" * (-(at() - base) % max(cs, 4))
            ofs = at()
            body += struct.pack("<%d%s" % (len(values), FMT[fmt]), *values)
            struct.pack_into("<5I", body, records - HEADER + 20 * i, typ, 0, fmt, size, ofs)
        body += b"\0" * (-at() % 4)
    if triangles:
        h["num_triangles"] = len(triangles)
        h["ofs_triangles"] = at()
        body += b"".join(struct.pack("<3I", *t) for t in triangles)
        if adjacency:
            h["ofs_adjacency"] = at()
            body += b"".join(struct.pack("<3I", *a) for a in adjacency)
    nq = 4 if version == 2 else 3
    put("joints", len(joints),
        b"".join(struct.pack("<Ii3f%df3f" % nq, n, p, *t, *r, *s) for n, p, t, r, s in joints))
    nc = 10 if version == 2 else 9
    put("poses", len(poses),
        b"".join(struct.pack("<iI%df%df" % (nc, nc), p, m, *o, *s) for p, m, o, s in poses))
    put("anims", len(anims), b"".join(struct.pack("<3IfI", *a) for a in anims))
    h["num_frames"] = num_frames
    h["num_framechannels"] = sum(bin(p[1]).count("1") for p in poses)
    if frames:
        assert len(frames) == num_frames * h["num_framechannels"]
        h["ofs_frames"] = at()
        body += pad(struct.pack("<%dH" % len(frames), *frames))
    if bounds:
        h["ofs_bounds"] = at()
        body += b"".join(struct.pack("<8f", *mn, *mx, xy, r) for mn, mx, xy, r in bounds)
    if comment is not None:
        h["num_comment"] = len(pad(comment + b"\0"))
        h["ofs_comment"] = at()
        body += pad(comment + b"\0")
    if extensions:
        h["num_extensions"] = len(extensions)
        h["ofs_extensions"] = at()
        for i, (name, data) in enumerate(extensions):
            rec = at()
            nxt = rec + 16 + len(pad(data)) if i + 1 < len(extensions) else 0
            body += struct.pack("<4I", name, len(data), rec + 16 if data else 0, nxt)
            body += pad(data)

    fields = ["flags", "num_text", "ofs_text", "num_meshes", "ofs_meshes", "num_vertexarrays",
              "num_vertexes", "ofs_vertexarrays", "num_triangles", "ofs_triangles",
              "ofs_adjacency", "num_joints", "ofs_joints", "num_poses", "ofs_poses", "num_anims",
              "ofs_anims", "num_frames", "num_framechannels", "ofs_frames", "ofs_bounds",
              "num_comment", "ofs_comment", "num_extensions", "ofs_extensions"]
    head = MAGIC + struct.pack("<II", version, HEADER + len(body))
    head += struct.pack("<25I", *(h.get(f, 0) for f in fields))
    assert len(head) == HEADER
    return head + bytes(body)


IDENT_T, IDENT_R, IDENT_S = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, -1.0), (1.0, 1.0, 1.0)


def header_only():
    return iqm()


def triangle_formats():
    t = Text()
    mesh = (t("tri"), t("stone"), 0, 3, 0, 1)
    custom = [(CUSTOM + t("ints"), INT, 1, [-2000000000, 0, 2000000000]),
              (CUSTOM + t("uints"), UINT, 2, [0, 1, 4000000000, 7, 8, 9]),
              (CUSTOM + t("doubles"), DOUBLE, 3, [0.5, -1.25, 1e30, 0, 0, 0, 3, 2, 1])]
    arrays = [
        (POSITION, FLOAT, 3, [0, 0, 0, 1, 0, 0, 0, 1, 0]),
        (TEXCOORD, HALF, 2, [0, 0, 1, 0, 0, 1]),
        (NORMAL, BYTE, 3, [0, 0, 127] * 3),
        (TANGENT, SHORT, 4, [32767, 0, 0, 32767] * 3),
        (BLENDINDEXES, UBYTE, 4, [0, 0, 0, 0] * 3),
        (BLENDWEIGHTS, UBYTE, 4, [255, 0, 0, 0] * 3),
        (COLOR, USHORT, 4, [65535, 32768, 0, 65535] * 3),
    ] + custom
    return iqm(text=t, meshes=[mesh], arrays=arrays, num_vertexes=3, triangles=[(0, 1, 2)],
               adjacency=[(0xFFFFFFFF,) * 3], joints=[(t("root"), -1, IDENT_T, IDENT_R, IDENT_S)])


def skeleton_anim():
    t = Text()
    joints = [(t("hip"), -1, (0, 0, 1), IDENT_R, IDENT_S),
              (t("knee"), 0, (0, 0, -0.5), (0, 0, 0.38268343, -0.92387953), IDENT_S)]
    # Pose 0 moves along z (channel 2), pose 1 turns about z (channels 5, 6).
    poses = [(-1, 1 << 2, [0, 0, 1, 0, 0, 0, -1, 1, 1, 1], [0, 0, 0.5 / 65535] + [0] * 7),
             (0, (1 << 5) | (1 << 6), [0, 0, -0.5, 0, 0, 0, -1, 1, 1, 1],
              [0] * 5 + [0.38268343 / 65535, 0.07612047 / 65535, 0, 0, 0])]
    frames = [0, 0, 65535,   32768, 32768, 32768,   65535, 65535, 0]
    bounds = [((-1, -1, 0), (1, 1, 1.0 + 0.25 * f), 1.4142135, 1.7320508) for f in range(3)]
    arrays = [(POSITION, FLOAT, 3, [0, 0, 1, 0, 0, 0.5, 0.1, 0, 0.5]),
              (BLENDINDEXES, UBYTE, 4, [0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]),
              (BLENDWEIGHTS, UBYTE, 4, [255, 0, 0, 0, 128, 127, 0, 0, 255, 0, 0, 0])]
    return iqm(text=t, meshes=[(t("leg"), t("skin"), 0, 3, 0, 1)], arrays=arrays, num_vertexes=3,
               triangles=[(0, 1, 2)], joints=joints, poses=poses,
               anims=[(t("walk"), 0, 3, 24.0, 1)], num_frames=3, frames=frames, bounds=bounds)


def anim_only():
    t = Text()
    poses = [(-1, 0b111, [0, 0, 0, 0, 0, 0, -1, 1, 1, 1], [1e-4, 1e-4, 1e-4] + [0] * 7),
             (0, 1 << 9, [0, 0, 1, 0, 0, 0, -1, 1, 1, 1], [0] * 9 + [2.0 / 65535])]
    frames = [0, 0, 0, 0,  100, 200, 300, 65535,  7, 7, 7, 32768]
    anims = [(t("a"), 0, 3, 30.0, 0), (t("b"), 1, 2, 0.0, 1), (t("empty"), 0, 0, 10.0, 0)]
    return iqm(text=t, poses=poses, anims=anims, num_frames=3, frames=frames)


def constant_anim():
    t = Text()
    joints = [(t("a"), -1, IDENT_T, IDENT_R, IDENT_S), (t("b"), 0, (1, 0, 0), IDENT_R, IDENT_S)]
    poses = [(-1, 0, [0, 0, 0, 0, 0, 0, -1, 1, 1, 1], [0] * 10),
             (0, 0, [1, 0, 0, 0, 0, 0, -1, 1, 1, 1], [0] * 10)]
    return iqm(text=t, joints=joints, poses=poses, anims=[(t("idle"), 0, 4, 15.0, 1)],
               num_frames=4)


def v1():
    t = Text()
    joints = [(t("root"), -1, (0, 0, 0), (0, 0, 0), IDENT_S),
              (t("tip"), 0, (0, 1, 0), (0.5, 0, 0), IDENT_S)]
    # v1 channels: Tx Ty Tz Qx Qy Qz Sx Sy Sz.
    poses = [(-1, 1 << 1, [0, 0, 0, 0, 0, 0, 1, 1, 1], [0, 1.0 / 65535] + [0] * 7),
             (0, (1 << 3) | (1 << 8), [0, 1, 0, 0, 0, 0, 1, 1, 1],
              [0, 0, 0, 0.5 / 65535, 0, 0, 0, 0, 1.0 / 65535])]
    frames = [0, 0, 0,  65535, 65535, 65535]
    arrays = [(POSITION, FLOAT, 3, [0, 0, 0, 1, 0, 0, 0, 1, 0]),
              (BLENDINDEXES, UBYTE, 4, [0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]),
              (BLENDWEIGHTS, UBYTE, 4, [255, 0, 0, 0] * 3)]
    return iqm(version=1, text=t, meshes=[(t("m"), 0, 0, 3, 0, 1)], arrays=arrays,
               num_vertexes=3, triangles=[(0, 1, 2)], joints=joints, poses=poses,
               anims=[(t("wave"), 0, 2, 10.0, 0)], num_frames=2, frames=frames)


def comment_ext():
    t = Text()
    exts = [(t("ossa.note"), b"hello"), (t("empty"), b""), (t("blob"), bytes(range(13)))]
    return iqm(text=t, joints=[(t("only"), -1, IDENT_T, IDENT_R, IDENT_S)],
               comment=b"made by make_corpus.py\nline two", extensions=exts)


SEEDS = {
    "header_only_iqm": header_only,
    "triangle_formats_iqm": triangle_formats,
    "skeleton_anim_iqm": skeleton_anim,
    "anim_only_iqm": anim_only,
    "constant_anim_iqm": constant_anim,
    "v1_iqm": v1,
    "comment_ext_iqm": comment_ext,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus", "iqm")
    os.makedirs(out, exist_ok=True)
    for name, make in SEEDS.items():
        data = make()
        assert len(data) < 4096, name
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print("%-22s %5d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
