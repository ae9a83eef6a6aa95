#!/bin/bash
# Compares ossa's BVH import with Blender 3.4's (tests/blender/check_bvh.py)
# for every BVH file in ../shared/data/bvh: every bone's world rotation and
# head at the first, middle and last frame, from `ossa pose --json`.
# Usage: check_bvh.sh BUILD_DIR. Skips, with a visible message, where
# Blender or the data is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
data=${OSSA_SHARED_DIR:-$root/../shared}/data/bvh
if ! command -v blender >/dev/null 2>&1; then
  echo "SKIP: blender is not installed (make check-blender installs it)"; exit 0
fi
if [ ! -d "$data" ]; then echo "SKIP: $data not found"; exit 0; fi
ossa=$build/ossa
[ -x "$ossa" ] || { echo "check_bvh: $ossa not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0; pass=0
for f in "$data"/*.bvh; do
  [ -f "$f" ] || continue
  name=$(basename "$f")
  rm -rf "$tmp/poses"; mkdir -p "$tmp/poses"
  frames=$("$ossa" info --json "$f" 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["animations"][0]["frames"])') ||
    { echo "FAIL: $name: ossa could not load it"; fail=$((fail + 1)); continue; }
  for fr in 0 $((frames / 2)) $((frames - 1)); do
    "$ossa" pose "$f" --frame "$fr" --json > "$tmp/poses/$fr.json" 2>/dev/null ||
      { echo "FAIL: $name: ossa pose --frame $fr"; fail=$((fail + 1)); continue 2; }
  done
  blender -b --factory-startup --python "$here/check_bvh.py" -- "$f" "$tmp/poses" "$tmp/report.json" \
    > "$tmp/blender.log" 2>&1
  if [ ! -f "$tmp/report.json" ]; then
    echo "FAIL: $name: Blender did not finish"; tail -5 "$tmp/blender.log"; fail=$((fail + 1)); continue
  fi
  if python3 - "$tmp/report.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); name = sys.argv[2]
print("%s: %s: %d bones at frames %s; largest difference: head %.3g (tolerance %.3g = 1e-5 x "
      "size %.4g), rotation %.3g (tolerance 1e-5)" % (
      "PASS" if r["ok"] else "FAIL", name, r["bones"], r["frames"], r["worst_position"],
      r["tolerance"], r["size"], r["worst_rotation"]))
for m in r["missing"][:5]:
    print("    ossa has no joint", m)
for x in r["failures"]:
    print("   ", x)
sys.exit(0 if r["ok"] else 1)
PY
  then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  rm -f "$tmp/report.json"
done
echo "check-blender (BVH): $pass passed, $fail failed"
[ $fail -eq 0 ]
