#!/usr/bin/env python3
"""An evaluation of glTF files written from the glTF 2.0 specification
alone, to check what ossa reads against numbers it did not make: node
transforms, skins and animation curves (LINEAR, STEP, CUBICSPLINE) in
double precision, without ossa's code.

Everything is printed in ossa's axes (glTF (x, y, z) is ossa (x, -z, y)).

    gltf_eval.py rest-stats FILE
        min, max and mean of every skinned vertex drawn at rest (node
        transforms times inverse bind matrices), per axis, as JSON
    gltf_eval.py size FILE
        the diagonal of the bind-pose box: the vertices as stored and the
        joints where the inverse bind matrices put them
    gltf_eval.py joints FILE ANIMATION TIME...
        model-space positions of every joint of the first skin at each time
        (seconds) of the named animation, the curves evaluated exactly:
        JSON {"TIME": {"NAME": [x, y, z], ...}, ...}
    gltf_eval.py duration FILE ANIMATION
        the last key time of the animation, and its key times
"""
import base64
import json
import math
import struct
import sys

COMPONENTS = {5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4),
              5126: ("f", 4)}
SIZES = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
NORMALIZED = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}


def load(path):
    data = open(path, "rb").read()
    if data[:4] == b"glTF":
        json_len = struct.unpack_from("<I", data, 12)[0]
        doc = json.loads(data[20:20 + json_len])
        at = 20 + json_len
        binary = data[at + 8:at + 8 + struct.unpack_from("<I", data, at)[0]] if at < len(data) else b""
        buffers = [binary]
    else:
        doc = json.loads(data)
        buffers = [base64.b64decode(b["uri"].split(",", 1)[1]) for b in doc.get("buffers", [])]
    return doc, buffers


_cache = {}


def accessor(doc, buffers, index):
    key = (id(doc), index)
    if key not in _cache:
        _cache[key] = read_accessor(doc, buffers, index)
    return _cache[key]


def read_accessor(doc, buffers, index):
    a = doc["accessors"][index]
    view = doc["bufferViews"][a["bufferView"]]
    fmt, size = COMPONENTS[a["componentType"]]
    n = SIZES[a["type"]]
    stride = view.get("byteStride", size * n)
    base = view.get("byteOffset", 0) + a.get("byteOffset", 0)
    raw = buffers[view["buffer"]]
    out = []
    for k in range(a["count"]):
        values = struct.unpack_from("<" + fmt * n, raw, base + k * stride)
        if a.get("normalized"):
            values = tuple(max(v / NORMALIZED[a["componentType"]], -1.0) for v in values)
        out.append(values)
    return out


# -- Matrices (row-major lists of rows) and quaternions (x, y, z, w) --

def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def apply(m, p):
    return [m[r][0] * p[0] + m[r][1] * p[1] + m[r][2] * p[2] + m[r][3] for r in range(3)]


def trs(t, q, s):
    x, y, z, w = q
    n = math.sqrt(x * x + y * y + z * z + w * w)
    x, y, z, w = x / n, y / n, z / n, w / n
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    m = [[r[i][k] * s[k] for k in range(3)] + [t[i]] for i in range(3)]
    return m + [[0.0, 0.0, 0.0, 1.0]]


def column_major(v):
    return [[v[c * 4 + r] for c in range(4)] for r in range(4)]


def slerp(a, b, u):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b, d = [-x for x in b], -d
    if d > 1 - 1e-12:
        out = [x + (y - x) * u for x, y in zip(a, b)]
    else:
        th = math.acos(d)
        wa, wb = math.sin((1 - u) * th) / math.sin(th), math.sin(u * th) / math.sin(th)
        out = [wa * x + wb * y for x, y in zip(a, b)]
    n = math.sqrt(sum(x * x for x in out))
    return [x / n for x in out]


def to_ossa(p):
    return [p[0], -p[2], p[1]]


# -- The scene --

def local_trs(node):
    if "matrix" in node:
        return None
    return [list(node.get("translation", [0, 0, 0])), list(node.get("rotation", [0, 0, 0, 1])),
            list(node.get("scale", [1, 1, 1]))]


def parents(doc):
    out = {}
    for i, n in enumerate(doc.get("nodes", [])):
        for c in n.get("children", []):
            out[c] = i
    return out


def worlds(doc, pose=None):
    """World matrix of every node; `pose` maps node -> [t, r, s] to use
    instead of the node's own."""
    nodes = doc.get("nodes", [])
    up = parents(doc)
    memo = {}

    def world(i):
        if i in memo:
            return memo[i]
        node = nodes[i]
        if pose and i in pose:
            m = trs(*pose[i])
        elif "matrix" in node:
            m = column_major(node["matrix"])
        else:
            m = trs(*local_trs(node))
        if i in up:
            m = mul(world(up[i]), m)
        memo[i] = m
        return m

    return [world(i) for i in range(len(nodes))]


def skinned_rest(doc, buffers):
    """Every vertex of every skinned primitive drawn at rest."""
    w = worlds(doc)
    out = []
    for node in doc.get("nodes", []):
        if "mesh" not in node or "skin" not in node:
            continue
        skin = doc["skins"][node["skin"]]
        ibm = accessor(doc, buffers, skin["inverseBindMatrices"])
        joint_m = [mul(w[j], column_major(ibm[k])) for k, j in enumerate(skin["joints"])]
        for prim in doc["meshes"][node["mesh"]]["primitives"]:
            at = prim["attributes"]
            pos = accessor(doc, buffers, at["POSITION"])
            jo = accessor(doc, buffers, at["JOINTS_0"])
            we = accessor(doc, buffers, at["WEIGHTS_0"])
            for p, js, ws in zip(pos, jo, we):
                total = sum(ws)
                acc = [0.0, 0.0, 0.0]
                for j, wt in zip(js, ws):
                    if wt > 0:
                        q = apply(joint_m[int(j)], p)
                        acc = [a + wt / total * b for a, b in zip(acc, q)]
                out.append(to_ossa(acc))
    return out


def bind_size(doc, buffers):
    lo, hi = [math.inf] * 3, [-math.inf] * 3

    def grow(p):
        for c in range(3):
            lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])

    for node in doc.get("nodes", []):
        if "mesh" in node and "skin" in node:
            for prim in doc["meshes"][node["mesh"]]["primitives"]:
                for p in accessor(doc, buffers, prim["attributes"]["POSITION"]):
                    grow(to_ossa(p))
    for skin in doc.get("skins", []):
        for m in accessor(doc, buffers, skin["inverseBindMatrices"]):
            inv = invert(column_major(m))
            grow(to_ossa([inv[0][3], inv[1][3], inv[2][3]]))
    return math.sqrt(sum((h - l) ** 2 for l, h in zip(lo, hi)))


def invert(m):
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(4)] for i, row in enumerate(m)]
    for c in range(4):
        p = max(range(c, 4), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        pivot = a[c][c]
        a[c] = [x / pivot for x in a[c]]
        for r in range(4):
            if r != c:
                f = a[r][c]
                a[r] = [x - f * y for x, y in zip(a[r], a[c])]
    return [row[4:] for row in a]


# -- Animations: the spec's samplers --

def find_animation(doc, name):
    for a in doc.get("animations", []):
        if a.get("name", "") == name:
            return a
    raise SystemExit("no animation named %r" % name)


def curve(doc, buffers, sampler, time):
    times = [t[0] for t in accessor(doc, buffers, sampler["input"])]
    values = accessor(doc, buffers, sampler["output"])
    kind = sampler.get("interpolation", "LINEAR")
    cubic = kind == "CUBICSPLINE"
    value = (lambda k: values[3 * k + 1]) if cubic else (lambda k: values[k])
    if time <= times[0]:
        return list(value(0))
    if time >= times[-1]:
        return list(value(len(times) - 1))
    k = max(i for i in range(len(times)) if times[i] <= time)
    t0, t1 = times[k], times[k + 1]
    u = (time - t0) / (t1 - t0)
    if kind == "STEP":
        return list(value(k))
    if cubic:
        dt = t1 - t0
        a, b = values[3 * k + 1], values[3 * (k + 1) + 1]
        out_t, in_t = values[3 * k + 2], values[3 * (k + 1)]
        h = [2 * u ** 3 - 3 * u ** 2 + 1, u ** 3 - 2 * u ** 2 + u, -2 * u ** 3 + 3 * u ** 2, u ** 3 - u ** 2]
        r = [h[0] * a[c] + h[1] * dt * out_t[c] + h[2] * b[c] + h[3] * dt * in_t[c] for c in range(len(a))]
        if len(r) == 4:
            n = math.sqrt(sum(x * x for x in r))
            r = [x / n for x in r]
        return r
    a, b = value(k), value(k + 1)
    if len(a) == 4:
        return slerp(a, b, u)
    return [x + (y - x) * u for x, y in zip(a, b)]


def pose_at(doc, buffers, anim, time):
    nodes = doc["nodes"]
    pose = {}
    for ch in anim["channels"]:
        i, path = ch["target"]["node"], ch["target"]["path"]
        if path not in ("translation", "rotation", "scale"):
            continue
        if i not in pose:
            pose[i] = local_trs(nodes[i])
        pose[i][("translation", "rotation", "scale").index(path)] = curve(
            doc, buffers, anim["samplers"][ch["sampler"]], time)
    return pose


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    doc, buffers = load(path)
    if cmd == "rest-stats":
        pts = skinned_rest(doc, buffers)
        print(json.dumps({"count": len(pts),
                          "min": [min(p[c] for p in pts) for c in range(3)],
                          "max": [max(p[c] for p in pts) for c in range(3)],
                          "mean": [sum(p[c] for p in pts) / len(pts) for c in range(3)]}))
    elif cmd == "size":
        print(repr(bind_size(doc, buffers)))
    elif cmd == "joints":
        anim = find_animation(doc, sys.argv[3])
        joints = doc["skins"][0]["joints"]
        result = {}
        for t in sys.argv[4:]:
            w = worlds(doc, pose_at(doc, buffers, anim, float(t)))
            result[t] = {doc["nodes"][j].get("name", str(j)): to_ossa([w[j][0][3], w[j][1][3], w[j][2][3]])
                         for j in joints}
        print(json.dumps(result))
    elif cmd == "duration":
        anim = find_animation(doc, sys.argv[3])
        times = sorted({t[0] for s in anim["samplers"] for t in accessor(doc, buffers, s["input"])})
        print(json.dumps({"duration": times[-1], "keys": times}))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
