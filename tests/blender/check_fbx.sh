#!/bin/bash
# Compares ossa's FBX import with Blender 3.4's (tests/blender/check_fbx.py)
# for every FBX file in ../shared/data/fbx. Usage: check_fbx.sh BUILD_DIR.
# Skips, with a visible message, where Blender or the data is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
data=${OSSA_SHARED_DIR:-$root/../shared}/data/fbx
if ! command -v blender >/dev/null 2>&1; then
  echo "SKIP: blender is not installed (make check-blender installs it)"; exit 0
fi
if [ ! -d "$data" ]; then echo "SKIP: $data not found"; exit 0; fi
lib=$build/libossa.a
[ -f "$lib" ] || { echo "check_fbx: $lib not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The library's private dependencies, from the ossa.pc the build wrote.
libs=$(PKG_CONFIG_PATH=$build pkg-config --static --libs ossa | sed -e 's/-L[^ ]*//g' -e 's/-Wl,-rpath,[^ ]*//g' -e 's/-lossa-runtime/lossa_runtime_static/' -e 's/-lossa //' -e "s|lossa_runtime_static|$build/libossa-runtime.a|")
cc -std=c11 -O1 -I"$root/include" "$here/fbx_dump.c" "$lib" $libs -o "$tmp/fbx_dump" || exit 1
fail=0; pass=0; skip=0
for f in "$data"/*.fbx "$data"/*.FBX; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  if ! head -c 18 "$f" | grep -q "Kaydara FBX Binary"; then
    echo "SKIP: $name: Blender imports binary FBX only"; skip=$((skip + 1)); continue
  fi
  "$tmp/fbx_dump" "$f" > "$tmp/ossa.json" || { echo "FAIL: $name: ossa could not load it"; fail=$((fail + 1)); continue; }
  blender -b --factory-startup --python "$here/check_fbx.py" -- "$f" "$tmp/ossa.json" "$tmp/report.json" \
    > "$tmp/blender.log" 2>&1
  if [ ! -f "$tmp/report.json" ]; then
    echo "FAIL: $name: Blender did not finish"; tail -5 "$tmp/blender.log"; fail=$((fail + 1)); continue
  fi
  if python3 - "$tmp/report.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); name = sys.argv[2]
worst_v = max(c["vertices"] for c in r["checks"]); worst_j = max(c["joints"] for c in r["checks"])
print("%s: %s: %d checks (bind pose + %d key frames), %d Blender / %d ossa vertices, %d bones; "
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
echo "check-blender: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
