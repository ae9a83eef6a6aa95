#!/bin/bash
# The Blender add-on's export (check_addon_export.py): a few shared models
# imported, exported in every format the add-on writes, read back with
# ossa and imported again, compared with the scene they came from.
# Usage: check_addon_export.sh BUILD_DIR. Skips, with a visible message,
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
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$root/blender/make_zip.py" "$build" "$tmp/ossa_blender.zip" >/dev/null || exit 1
BLENDER_USER_SCRIPTS=$tmp/scripts OSSA_LIBRARY_PATH= \
  blender -b --factory-startup --python "$here/check_addon_export.py" -- \
  "$tmp/ossa_blender.zip" "$data" "$tmp" "$tmp/report.json" > "$tmp/blender.log" 2>&1
if [ ! -f "$tmp/report.json" ]; then
  echo "FAIL: add-on export: Blender did not finish"; tail -15 "$tmp/blender.log"; exit 1
fi
python3 - "$tmp/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
bad = 0
for r in report:
    figures = ", ".join("%s %.2g" % (k, r[k]) for k in (
        "bind", "pose_position", "pose_rotation", "vertices", "reimport_bones", "reimport_pose",
        "reimport_vertices") if k in r)
    dropped = " (not written: %s)" % ", ".join(r["dropped"]) if r.get("dropped") else ""
    print("%s: add-on export %s -> %s: largest relative differences %s (tolerance %g)%s" % (
        "FAIL" if r["failures"] else "PASS", r["source"], r["format"], figures or "-",
        r.get("tolerance", 0), dropped))
    for f in r["failures"]:
        print("   ", f)
    bad += bool(r["failures"])
print("check-blender (add-on export): %d passed, %d failed" % (len(report) - bad, bad))
sys.exit(1 if bad else 0)
PY
