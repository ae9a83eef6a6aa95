#!/bin/bash
# Compares ossa's glTF import with Blender 3.4's (tests/blender/check_gltf.py):
# every glTF file in ../shared/data/gltf, a file made here (a skin bound in
# another pose than its nodes rest, with a mesh hanging under a joint), and
# the files named in $OSSA_BLENDER_GLTF (space-separated; for files that
# cannot be shipped, such as raylib's Wizard.glb). Usage: check_gltf.sh
# BUILD_DIR. Skips, with a visible message, where Blender or the data is
# missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
data=${OSSA_SHARED_DIR:-$root/../shared}/data/gltf
if ! command -v blender >/dev/null 2>&1; then
  echo "SKIP: blender is not installed (make check-blender installs it)"; exit 0
fi
lib=$build/libossa.a
[ -f "$lib" ] || { echo "check_gltf: $lib not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The library's private dependencies, from the ossa.pc the build wrote; the
# runtime (clips, sampling) from the build too.
libs=$(PKG_CONFIG_PATH=$build pkg-config --static --libs ossa |
  sed -e 's/-L[^ ]*//g' -e 's/-Wl,-rpath,[^ ]*//g' -e 's/-lossa-runtime//' -e 's/-lossa//')
cc -std=c11 -O1 -I"$root/include" "$here/gltf_dump.c" "$lib" "$build/libossa-runtime.a" $libs \
  -o "$tmp/gltf_dump" || exit 1

# A skin bound with its arm straight out, its nodes resting with the arm
# turned up 45 degrees and bent; a strip skinned to both joints, a triangle
# "hat" hanging under the lower joint (not skinned); keys turning both.
python3 - "$tmp/hanging.gltf" <<'PY'
import base64, json, math, struct, sys
def quat_z(deg):
    a = math.radians(deg) / 2
    return [0.0, 0.0, math.sin(a), math.cos(a)]
pos = [(x, y, 0.0) for y in (1.0, 1.2) for x in (0.0, 0.5, 1.0, 1.5)]
joints = [(0, 0, 0, 0), (0, 1, 0, 0), (1, 0, 0, 0), (1, 0, 0, 0)] * 2
weights = [(1, 0, 0, 0), (0.5, 0.5, 0, 0), (1, 0, 0, 0), (1, 0, 0, 0)] * 2
tris = [0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6]
hat = [(0.0, 0.0, 0.0), (0.2, 0.0, 0.0), (0.1, 0.2, 0.05)]
ibm = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -1, 0, 1]
times, upper, lower = [0.0, 0.5, 1.0], [quat_z(45), quat_z(75), quat_z(105)], [quat_z(-30), quat_z(-30), quat_z(10)]
blob = b"".join([struct.pack("<3f", *p) for p in pos] + [struct.pack("<4B", *j) for j in joints]
                + [struct.pack("<4f", *w) for w in weights] + [struct.pack("<18H", *tris)]
                + [struct.pack("<3f", *p) for p in hat] + [struct.pack("<32f", *ibm)]
                + [struct.pack("<3f", *times)] + [struct.pack("<4f", *q) for q in upper + lower])
views, at = [], 0
for n in (96, 32, 128, 36, 36, 128, 12, 48, 48):
    views.append({"buffer": 0, "byteOffset": at, "byteLength": n})
    at += n
acc = lambda v, ct, count, t: {"bufferView": v, "componentType": ct, "count": count, "type": t}
accessors = [dict(acc(0, 5126, 8, "VEC3"), min=[0, 1, 0], max=[1.5, 1.2, 0]), acc(1, 5121, 8, "VEC4"),
             acc(2, 5126, 8, "VEC4"), acc(3, 5123, 18, "SCALAR"),
             dict(acc(4, 5126, 3, "VEC3"), min=[0, 0, 0], max=[0.2, 0.2, 0.05]), acc(5, 5126, 2, "MAT4"),
             dict(acc(6, 5126, 3, "SCALAR"), min=[0], max=[1]), acc(7, 5126, 3, "VEC4"), acc(8, 5126, 3, "VEC4")]
doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [2, 3]}],
       "nodes": [{"name": "upper", "translation": [0, 1, 0], "rotation": upper[0], "children": [1]},
                 {"name": "lower", "translation": [1, 0, 0], "rotation": lower[0], "children": [4]},
                 {"name": "Armature", "children": [0]},
                 {"name": "strip", "mesh": 0, "skin": 0},
                 {"name": "hat", "mesh": 1, "translation": [0.5, 0.2, 0]}],
       "meshes": [{"name": "strip", "primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
                                                     "indices": 3}]},
                  {"name": "hat", "primitives": [{"attributes": {"POSITION": 4}}]}],
       "skins": [{"joints": [0, 1], "inverseBindMatrices": 5, "skeleton": 2}],
       "animations": [{"name": "wave", "samplers": [{"input": 6, "output": 7}, {"input": 6, "output": 8}],
                       "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}},
                                    {"sampler": 1, "target": {"node": 1, "path": "rotation"}}]}],
       "accessors": accessors, "bufferViews": views,
       "buffers": [{"byteLength": len(blob),
                    "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}]}
json.dump(doc, open(sys.argv[1], "w"))
PY

# The same file without its animations: NOANIM of check_gltf.py.
without_animations() { # IN OUT
  python3 - "$1" "$2" <<'PY'
import json, os, shutil, struct, sys
src, dst = sys.argv[1:]
data = open(src, "rb").read()
if data[:4] == b"glTF":
    n = struct.unpack_from("<I", data, 12)[0]
    doc, rest = json.loads(data[20:20 + n]), data[20 + n:]
    doc.pop("animations", None)
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    head = struct.pack("<III", 0x46546C67, 2, 20 + len(js) + len(rest)) + struct.pack("<II", len(js), 0x4E4F534A)
    open(dst, "wb").write(head + js + rest)
else:
    doc = json.loads(data)
    doc.pop("animations", None)
    for b in doc.get("buffers", []) + doc.get("images", []):  # files the .gltf names go along
        uri = b.get("uri", "")
        if uri and not uri.startswith("data:"):
            shutil.copy(os.path.join(os.path.dirname(src), uri), os.path.join(os.path.dirname(dst), uri))
    json.dump(doc, open(dst, "w"))
PY
}

files=("$tmp/hanging.gltf")
if [ -d "$data" ]; then
  for f in "$data"/*.glb "$data"/*.gltf; do [ -f "$f" ] && files+=("$f"); done
else
  echo "SKIP: $data not found: only the file made here is compared"
fi
for f in ${OSSA_BLENDER_GLTF:-}; do files+=("$f"); done
fail=0; pass=0
for f in "${files[@]}"; do
  name=$(basename "$f")
  mkdir -p "$tmp/noanim"
  without_animations "$f" "$tmp/noanim/$name"
  blender -b --factory-startup --python "$here/check_gltf.py" -- "$f" "$tmp/noanim/$name" "$tmp/gltf_dump" \
    "$tmp/report.json" > "$tmp/blender.log" 2>&1
  if [ ! -f "$tmp/report.json" ]; then
    echo "FAIL: $name: Blender did not finish"; tail -5 "$tmp/blender.log"; fail=$((fail + 1)); continue
  fi
  if python3 - "$tmp/report.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); name = sys.argv[2]
worst_v = max(c["vertices"] for c in r["checks"]); worst_j = max(c["joints"] for c in r["checks"])
print("%s: %s: %d checks (rest + %d key frames), %d Blender / %d ossa vertices, %d bones; "
      "largest difference: vertices %.3g, joints %.3g (tolerance %.3g = 1e-4 x size %.4g)" % (
      "PASS" if r["ok"] else "FAIL", name, len(r["checks"]), r.get("key_frames", 0),
      r["blender_vertices"], r["ossa_vertices"], r["blender_bones"], worst_v, worst_j,
      r["tolerance"], r["size"]))
for c in r["checks"]:
    if not c["ok"]:
        print("   ", c)
sys.exit(0 if r["ok"] else 1)
PY
  then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  rm -f "$tmp/report.json"
done
echo "check-blender (glTF): $pass passed, $fail failed"
[ $fail -eq 0 ]
