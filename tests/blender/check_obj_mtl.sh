#!/bin/bash
# Compares ossa's OBJ materials with Blender 3.4's OBJ import
# (tests/blender/check_obj_mtl.py): the OBJ files of ../shared/data/obj
# that have .mtl files, and one made here with every statement ossa maps
# (colours, Ns, illum, Ka, d, Pr, Pm, Ke) and textures (a TGA from
# tests/gen_tga.py, a PNG under texture options). Each is converted with
# `ossa convert X.obj -o X.gltf` and imported by Blender; base colours,
# textures (pixels), alpha, metallic, roughness, emission and blend modes
# must agree. Usage: check_obj_mtl.sh BUILD_DIR. Skips, with a visible
# message, where Blender, python3 or the data is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
data=${OSSA_SHARED_DIR:-$root/../shared}/data/obj
if ! command -v blender >/dev/null 2>&1; then
  echo "SKIP: blender is not installed (make check-blender installs it)"; exit 0
fi
ossa=$build/ossa
[ -x "$ossa" ] || { echo "check_obj_mtl: $ossa not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The file made here: one triangle per material.
made=$tmp/made
mkdir -p "$made"
if python3 "$root/tests/gen_tga.py" "$tmp/tga" >/dev/null 2>&1; then
  cp "$tmp/tga/rle24.tga" "$made/skin.tga"
  python3 - "$made" <<'PY'
import struct, sys, zlib
out = sys.argv[1]
w, h = 8, 4
raw = b"".join(b"\0" + bytes(v for x in range(w) for v in (x * 30, y * 60, 200 - x * 20)) for y in range(h))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
       chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open(out + "/pic.png", "wb").write(png)
mats = {
    "tga": "map_Kd skin.tga",
    "png_options": "Kd 0.5 0.5 0.5\nmap_Kd -s 1 1 1 -clamp on -bm 1 pic.png",
    "colour": "Kd 0.2 0.4 0.6\nNs 300\nillum 2",
    "metal": "illum 3\nKa 0.5 0.25 0.75\nKd 0.9 0.1 0.1",
    "pbr": "Kd 0.1 0.9 0.3\nPr 0.3\nPm 0.9\nNs 50",
    "glow": "Kd 0 0 0\nKe 1 0.5 0",
    "glass": "illum 4\nd 0.4\nKd 0.8 0.9 1",
    "plain": "",
}
open(out + "/made.mtl", "w").write("".join("newmtl %s\n%s\n\n" % kv for kv in mats.items()))
with open(out + "/made.obj", "w") as f:
    f.write("mtllib made.mtl\nvt 0 0\nvt 1 0\nvt 0 1\n")
    for i, name in enumerate(mats):
        f.write("v %d 0 0\nv %d 1 0\nv %d 0 1\nusemtl %s\nf %d/1 %d/2 %d/3\n" % (i, i, i, name, 3 * i + 1, 3 * i + 2, 3 * i + 3))
PY
else
  echo "SKIP: python3 could not make the textured OBJ"
fi

inputs=()
if [ -d "$data" ]; then
  for f in "$data"/*.obj; do [ -f "${f%.obj}.mtl" ] && inputs+=("$f"); done
else
  echo "SKIP: $data not found: only the file made here is checked"
fi
[ -f "$made/made.obj" ] && inputs+=("$made/made.obj")

fail=0; pass=0
for f in "${inputs[@]}"; do
  name=$(basename "$f")
  out=$tmp/out_${name%.obj}
  mkdir -p "$out"
  if ! "$ossa" convert "$f" -o "$out/ossa.gltf" >"$tmp/convert.log" 2>&1; then
    echo "FAIL: $name: ossa could not convert it"; sed 's/^/  /' "$tmp/convert.log"; fail=$((fail + 1)); continue
  fi
  rm -f "$tmp/report.json"
  blender -b --factory-startup --python "$here/check_obj_mtl.py" -- "$f" "$out/ossa.gltf" "$tmp/report.json" \
    >"$tmp/blender.log" 2>&1
  if [ ! -f "$tmp/report.json" ]; then
    echo "FAIL: $name: Blender did not finish"; tail -5 "$tmp/blender.log"; fail=$((fail + 1)); continue
  fi
  if python3 - "$tmp/report.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); name = sys.argv[2]
compared = [m for m in r["materials"] if not m.get("undefined")]
undefined = [m["name"] for m in r["materials"] if m.get("undefined")]
textures = [m for m in compared if "blender_texture" in m]
print("%s: %s: %d materials agree%s%s" % (
    "PASS" if r["ok"] else "FAIL", name, sum(m["ok"] for m in compared),
    ", %d textured with the same pixels (%s)" % (len(textures), ", ".join(
        "%s -> %s" % (m["blender_texture"], m.get("ossa_texture", "?")) for m in textures)) if textures else "",
    "; not in any MTL (not compared): %s" % ", ".join(undefined) if undefined else ""))
for m in r["materials"]:
    for p in m["problems"]:
        print("    %s: %s" % (m["name"], p))
sys.exit(0 if r["ok"] else 1)
PY
  then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "check-blender (OBJ materials): $pass passed, $fail failed"
[ $fail -eq 0 ]
