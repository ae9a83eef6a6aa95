#!/bin/bash
# The Blender add-on's import against the ossa tool (check_addon_import.py):
# make blender-addon's zip installed with Blender's add-on installer, every
# shared model imported, bones and skinned vertices compared with
# `ossa pose --json` at the bind pose and three frames of each animation.
# Usage: check_addon_import.sh BUILD_DIR. Skips, with a visible message,
# where Blender or the data is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
data=${OSSA_SHARED_DIR:-$root/../shared}/data
if ! command -v blender >/dev/null 2>&1; then
  echo "SKIP: blender is not installed (make check-blender installs it)"; exit 0
fi
if [ ! -d "$data" ]; then echo "SKIP: $data not found"; exit 0; fi
ossa=$build/ossa
[ -x "$ossa" ] || { echo "check_addon_import: $ossa not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$root/blender/make_zip.py" "$build" "$tmp/ossa_blender.zip" >/dev/null || exit 1
python3 "$here/addon_cases.py" "$ossa" "$data" "$tmp" || exit 1
# The add-on goes into a scripts folder of its own, not the user's; the
# package finds the libraries inside the zip, not the build's.
BLENDER_USER_SCRIPTS=$tmp/scripts OSSA_LIBRARY_PATH= \
  blender -b --factory-startup --python "$here/check_addon_import.py" -- \
  "$tmp/ossa_blender.zip" "$tmp/cases.json" "$tmp/report.json" > "$tmp/blender.log" 2>&1
if [ ! -f "$tmp/report.json" ]; then
  echo "FAIL: add-on import: Blender did not finish"; tail -15 "$tmp/blender.log"; exit 1
fi
python3 - "$tmp/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
bad = 0
for r in report:
    if "bones" in r:
        print("%s: add-on import %s: %d bones, %d actions, %d poses; largest difference: "
              "heads %.3g, vertices %.3g (tolerance %.3g = 1e-5 x size %.4g), skinning matrices %.3g "
              "(tolerance 1e-5)" % ("PASS" if r["ok"] else "FAIL", r["name"], r["bones"], r["actions"],
              r["checks"], r["worst_head"], r["worst_vertex"], 1e-5 * r["size"], r["size"],
              r["worst_matrix"]))
    else:
        print("FAIL: add-on import %s" % r["name"])
    for f in r["failures"]:
        print("   ", f)
    bad += not r["ok"]
print("check-blender (add-on import): %d passed, %d failed" % (len(report) - bad, bad))
sys.exit(1 if bad else 0)
PY
