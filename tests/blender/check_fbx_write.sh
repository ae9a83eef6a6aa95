#!/bin/bash
# Compares Blender 3.4's import of ossa's FBX output with ossa's own view of
# the model it wrote (tests/blender/check_fbx_write.py): characters from
# IQM, glTF, MD5, SMD and OBJ samples of ../shared/data and ossa's built-in
# demo model. Usage: check_fbx_write.sh BUILD_DIR. Skips, with a visible
# message, where Blender or the data is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
data=${OSSA_SHARED_DIR:-$root/../shared}/data
if ! command -v blender >/dev/null 2>&1; then
  echo "SKIP: blender is not installed (make check-blender installs it)"; exit 0
fi
lib=$build/libossa.a
[ -f "$lib" ] || { echo "check_fbx_write: $lib not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
libs=$(PKG_CONFIG_PATH=$build pkg-config --static --libs ossa | sed -e 's/-L[^ ]*//g' -e 's/-Wl,-rpath,[^ ]*//g' -e 's/-lossa-runtime/lossa_runtime_static/' -e 's/-lossa //' -e "s|lossa_runtime_static|$build/libossa-runtime.a|")
cc -std=c11 -O1 -I"$root/include" "$here/fbx_write_dump.c" "$lib" $libs -lm -o "$tmp/dump" || exit 1
"$build/ossa" demo -o "$tmp/demo" >/dev/null 2>&1 || { echo "check_fbx_write: ossa demo failed" >&2; exit 1; }
sources=("$tmp/demo/demo.iqm")
for f in iqm/guy.iqm gltf/Fox.glb gltf/CesiumMan.glb md5/SimpleCube.md5mesh smd/holy_grailref.smd \
    obj/cube_usemtl.obj; do
  if [ -f "$data/$f" ]; then sources+=("$data/$f"); else echo "SKIP: $data/$f not found"; fi
done
fail=0; pass=0
for f in "${sources[@]}"; do
  name=$(basename "$f")
  fbx=$tmp/${name%.*}.fbx
  "$tmp/dump" "$f" "$fbx" > "$tmp/ossa.json" 2>"$tmp/dump.log" || {
    echo "FAIL: $name: ossa could not write it"; cat "$tmp/dump.log"; fail=$((fail + 1)); continue; }
  rm -f "$tmp/report.json"
  blender -b --factory-startup --python "$here/check_fbx_write.py" -- "$fbx" "$tmp/ossa.json" "$tmp/report.json" \
    > "$tmp/blender.log" 2>&1
  if [ ! -f "$tmp/report.json" ]; then
    echo "FAIL: $name: Blender did not finish"; tail -5 "$tmp/blender.log"; fail=$((fail + 1)); continue
  fi
  if python3 - "$tmp/report.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); name = sys.argv[2]
bad = [c for c in r["checks"] if not c["ok"]]
worst = max([float(c["detail"].split()[2]) for c in r["checks"]
             if c["detail"].startswith("largest difference")] + [0.0])
print("%s: %s.fbx: %d checks (bones at the bind pose and 3 frames of each action, action ranges, "
      "vertex groups); bones within %.3g (1e-4 allowed, translations scaled by %.3g)" % (
      "PASS" if r["ok"] else "FAIL", name, len(r["checks"]), worst, r["tolerance"] / 1e-4))
for c in bad:
    print("   ", c["what"], c["detail"])
sys.exit(0 if r["ok"] else 1)
PY
  then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "check-blender (FBX written by ossa): $pass passed, $fail failed"
[ $fail -eq 0 ]
