#!/usr/bin/env python3
"""Writes the FBX seed corpus for fuzz_fbx into fuzz/corpus/fbx/.

Every seed is built here from formats/fbx.md, small and valid, so that the
fuzzer starts from inputs that reach every part of the reader:

  skinned_7400_bin  binary, 13-byte record headers: two joints (one with
                    pivots, pre/post rotation, order ZXY), a skinned quad
                    with normals, UVs through an index and two materials,
                    a bind pose, one stack with linear and cubic curves
  skinned_7500_bin  the same with 25-byte headers and zlib arrays
  rigid_ascii       ASCII: an animated null with a mesh below it (rigid),
                    two layers (additive), constant keys, an embedded
                    base64 image, Z-up axes and inch units

usage: make_fbx_corpus.py [OUTDIR]   (default: corpus/fbx beside this script)
"""
import os
import struct
import sys
import zlib

KT = 46186158000


class Writer:
    def __init__(self, version, deflate):
        self.version, self.deflate = version, deflate
        self.wide = version >= 7500
        self.out = bytearray(b"Kaydara FBX Binary  \0\x1a\0" + struct.pack("<I", version))

    def hdr(self):
        return 25 if self.wide else 13

    def record(self, name, values=(), children=None):
        at = len(self.out)
        self.out += bytes(self.hdr()) + name.encode()
        start = len(self.out)
        for v in values:
            self.value(v)
        plen = len(self.out) - start
        if children is not None:
            for c in children:
                self.record(*c)
            self.out += bytes(self.hdr())
        end = len(self.out)
        if self.wide:
            struct.pack_into("<QQQB", self.out, at, end, len(values), plen, len(name))
        else:
            struct.pack_into("<IIIB", self.out, at, end, len(values), plen, len(name))

    def value(self, v):
        kind, x = v
        if kind in "ILD":
            self.out += kind.encode() + struct.pack({"I": "<i", "L": "<q", "D": "<d"}[kind], x)
        elif kind == "S":
            b = x if isinstance(x, bytes) else x.encode()
            self.out += b"S" + struct.pack("<I", len(b)) + b
        elif kind == "R":
            self.out += b"R" + struct.pack("<I", len(x)) + x
        else:  # arrays d i l f
            raw = struct.pack("<%d%s" % (len(x), {"d": "d", "i": "i", "l": "q", "f": "f"}[kind]), *x)
            if self.deflate and len(x) > 2:
                z = zlib.compress(raw)
                self.out += kind.encode() + struct.pack("<III", len(x), 1, len(z)) + z
            else:
                self.out += kind.encode() + struct.pack("<III", len(x), 0, len(raw)) + raw

    def finish(self):
        self.out += bytes(self.hdr()) + bytes(16) + struct.pack("<I", self.version) + bytes(136)
        return bytes(self.out)


def S(s): return ("S", s)
def L(i): return ("L", i)
def D(d): return ("D", d)
def I(i): return ("I", i)


def P(name, typ, *vals):
    return ("P", [S(name), S(typ), S(""), S("A")] + [v if isinstance(v, tuple) else D(v) for v in vals])


IDENT = [1.0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]


def skinned(w):
    name = lambda n, c: ("%s\0\1%s" % (n, c)).encode()
    objects = [
        ("Model", [L(10), S(name("Root", "Model")), S("LimbNode")], [
            ("Properties70", [], [P("Lcl Translation", "Lcl Translation", 0, 1, 0),
                                  P("RotationPivot", "Vector3D", 0.5, 0, 0),
                                  P("PreRotation", "Vector3D", -90, 0, 0),
                                  P("PostRotation", "Vector3D", 0, 0, 10),
                                  P("RotationOrder", "enum", I(4)),
                                  P("RotationActive", "bool", I(1))])]),
        ("Model", [L(11), S(name("Tip", "Model")), S("LimbNode")], [
            ("Properties70", [], [P("Lcl Translation", "Lcl Translation", 0, 2, 0),
                                  P("InheritType", "enum", I(2))])]),
        ("Model", [L(12), S(name("Quad", "Model")), S("Mesh")], [
            ("Properties70", [], [P("GeometricScaling", "Vector3D", 2, 2, 2)])]),
        ("Geometry", [L(20), S(name("", "Geometry")), S("Mesh")], [
            ("Vertices", [("d", [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0])]),
            ("PolygonVertexIndex", [("i", [0, 1, 2, -4, 1, 4, -3])]),
            ("LayerElementNormal", [I(0)], [
                ("MappingInformationType", [S("ByPolygonVertex")]),
                ("ReferenceInformationType", [S("Direct")]),
                ("Normals", [("d", [0, 0, 1] * 7)])]),
            ("LayerElementUV", [I(0)], [
                ("Name", [S("map")]),
                ("MappingInformationType", [S("ByPolygonVertex")]),
                ("ReferenceInformationType", [S("IndexToDirect")]),
                ("UV", [("d", [0, 0, 1, 0, 1, 1, 0, 1])]),
                ("UVIndex", [("i", [0, 1, 2, 3, 1, 0, 2])])]),
            ("LayerElementMaterial", [I(0)], [
                ("MappingInformationType", [S("ByPolygon")]),
                ("ReferenceInformationType", [S("IndexToDirect")]),
                ("Materials", [("i", [0, 1])])])]),
        ("Material", [L(30), S(name("a", "Material")), S("")], []),
        ("Material", [L(31), S(name("b", "Material")), S("")], []),
        ("Deformer", [L(40), S(name("", "Deformer")), S("Skin")], []),
        ("Deformer", [L(41), S(name("", "SubDeformer")), S("Cluster")], [
            ("Indexes", [("i", [0, 1, 2, 3])]), ("Weights", [("d", [1, 0.5, 0.25, 1])]),
            ("Transform", [("d", IDENT)]), ("TransformLink", [("d", IDENT)])]),
        ("Deformer", [L(42), S(name("", "SubDeformer")), S("Cluster")], [
            ("Indexes", [("i", [1, 2, 4])]), ("Weights", [("d", [0.5, 0.75, 1])]),
            ("Transform", [("d", IDENT)]), ("TransformLink", [("d", IDENT[:12] + [0, 3, 0, 1])])]),
        ("Pose", [L(50), S(name("", "Pose")), S("BindPose")], [
            ("Type", [S("BindPose")]),
            ("PoseNode", [], [("Node", [L(10)]), ("Matrix", [("d", IDENT)])])]),
        ("AnimationStack", [L(60), S(name("walk", "AnimStack")), S("")], [
            ("Properties70", [], [P("LocalStart", "KTime", L(0)), P("LocalStop", "KTime", L(KT // 2))])]),
        ("AnimationLayer", [L(61), S(name("", "AnimLayer")), S("")], []),
        ("AnimationCurveNode", [L(62), S(name("R", "AnimCurveNode")), S("")], [
            ("Properties70", [], [P("d|X", "Number", 0), P("d|Y", "Number", 0), P("d|Z", "Number", 0)])]),
        ("AnimationCurve", [L(63), S(name("", "AnimCurve")), S("")], [
            ("Default", [D(0)]), ("KeyVer", [I(4008)]),
            ("KeyTime", [("l", [0, KT // 4, KT // 2])]),
            ("KeyValueFloat", [("f", [0, 45, 90])]),
            ("KeyAttrFlags", [("i", [0x01006108, 4])]),
            ("KeyAttrDataFloat", [("f", [10, -5, 0, 0, 0, 0, 0, 0])]),
            ("KeyAttrRefCount", [("i", [2, 1])])]),
    ]
    conns = [("OO", 10, 0), ("OO", 11, 10), ("OO", 12, 0), ("OO", 20, 12), ("OO", 30, 12),
             ("OO", 31, 12), ("OO", 40, 20), ("OO", 41, 40), ("OO", 42, 40), ("OO", 10, 41),
             ("OO", 11, 42), ("OO", 61, 60), ("OO", 62, 61)]
    records = [
        ("FBXHeaderExtension", [], [("FBXVersion", [I(w.version)]), ("EncryptionType", [I(0)])]),
        ("GlobalSettings", [], [("Properties70", [], [P("UpAxis", "int", I(1)),
                                                      P("UnitScaleFactor", "double", 100.0),
                                                      P("TimeMode", "enum", I(11))])]),
        ("Definitions", [], [("ObjectType", [S("Model")], [
            ("PropertyTemplate", [S("FbxNode")], [
                ("Properties70", [], [P("Lcl Scaling", "Lcl Scaling", 1, 1, 1),
                                      P("InheritType", "enum", I(1))])])])]),
        ("Objects", [], objects),
        ("Connections", [], [("C", [S(k), L(a), L(b)]) for k, a, b in conns] +
         [("C", [S("OP"), L(62), L(10), S("Lcl Rotation")]), ("C", [S("OP"), L(63), L(62), S("d|Z")])]),
    ]
    for r in records:
        w.record(*r)
    return w.finish()


ASCII = """; FBX 7.4.0 project file
FBXHeaderExtension:  {
\tFBXVersion: 7400
}
GlobalSettings:  {
\tProperties70:  {
\t\tP: "UpAxis", "int", "Integer", "",2
\t\tP: "FrontAxis", "int", "Integer", "",1
\t\tP: "FrontAxisSign", "int", "Integer", "",-1
\t\tP: "UnitScaleFactor", "double", "Number", "",2.54
\t}
}
Objects:  {
\tModel: 1, "Model::Spinner", "Null" {
\t\tProperties70:  {
\t\t\tP: "Lcl Rotation", "Lcl Rotation", "", "A",0,0,15
\t\t}
\t}
\tModel: 2, "Model::Box", "Mesh" {
\t}
\tGeometry: 3, "Geometry::", "Mesh" {
\t\tVertices: *9 {
\t\t\ta: 0,0,0,1,0,0,0,1,0
\t\t}
\t\tPolygonVertexIndex: *3 {
\t\t\ta: 0,1,-3
\t\t}
\t\tLayerElementColor: 0 {
\t\t\tMappingInformationType: "ByVertice"
\t\t\tReferenceInformationType: "Direct"
\t\t\tColors: *12 {
\t\t\t\ta: 1,0,0,1,0,1,0,1,0,0,1,1
\t\t\t}
\t\t}
\t}
\tVideo: 4, "Video::tex", "Clip" {
\t\tRelativeFilename: "tex.png"
\t\tContent: ,
"iVBORw0KGgo="
\t}
\tAnimationStack: 5, "AnimStack::spin", "" {
\t}
\tAnimationLayer: 6, "AnimLayer::a", "" {
\t}
\tAnimationLayer: 7, "AnimLayer::b", "" {
\t\tProperties70:  {
\t\t\tP: "Weight", "Number", "", "A",50
\t\t}
\t}
\tAnimationCurveNode: 8, "AnimCurveNode::R", "" {
\t}
\tAnimationCurveNode: 9, "AnimCurveNode::T", "" {
\t\tProperties70:  {
\t\t\tP: "d|X", "Number", "", "A",1
\t\t}
\t}
\tAnimationCurve: 10, "AnimCurve::", "" {
\t\tKeyTime: *3 {
\t\t\ta: 0,23093079000,46186158000
\t\t}
\t\tKeyValueFloat: *3 {
\t\t\ta: 0,180,360
\t\t}
\t\tKeyAttrFlags: *1 {
\t\t\ta: 2
\t\t}
\t\tKeyAttrDataFloat: *4 {
\t\t\ta: 0,0,0,0
\t\t}
\t\tKeyAttrRefCount: *1 {
\t\t\ta: 3
\t\t}
\t}
}
Connections:  {
\tC: "OO",1,0
\tC: "OO",2,1
\tC: "OO",3,2
\tC: "OO",6,5
\tC: "OO",7,5
\tC: "OO",8,6
\tC: "OO",9,7
\tC: "OP",8,1, "Lcl Rotation"
\tC: "OP",9,1, "Lcl Translation"
\tC: "OP",10,8, "d|Z"
}
"""


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "fbx")
    os.makedirs(out, exist_ok=True)
    seeds = {"skinned_7400_bin": skinned(Writer(7400, False)),
             "skinned_7500_bin": skinned(Writer(7500, True)),
             "rigid_ascii": ASCII.encode()}
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
