#!/bin/bash
# The Blender add-on's import speed against Blender's glTF importer
# (blender_addon_import.py): the generated 34 MB IQE of
# ../shared/bench/gen_big_iqe.py, and the same model converted by ossa to
# .glb for the glTF importer, in one Blender process.
# Usage: blender_addon_import.sh BUILD_DIR [ROUNDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:-$root/build}
rounds=${2:-3}
gen=${OSSA_SHARED_DIR:-$root/../shared}/bench/gen_big_iqe.py
command -v blender >/dev/null 2>&1 || { echo "SKIP: blender is not installed"; exit 0; }
[ -f "$gen" ] || { echo "SKIP: $gen not found"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$gen" -o "$tmp/big.iqe"
"$build/ossa" convert "$tmp/big.iqe" -o "$tmp/big.glb" 2>/dev/null
ls -l "$tmp/big.iqe" "$tmp/big.glb" | awk '{print $5, $NF}'
python3 "$root/blender/make_zip.py" "$build" "$tmp/ossa_blender.zip" >/dev/null
BLENDER_USER_SCRIPTS=$tmp/scripts OSSA_LIBRARY_PATH= \
  blender -b --factory-startup --python "$here/blender_addon_import.py" -- \
  "$tmp/ossa_blender.zip" "$tmp/big.iqe" "$tmp/big.glb" "$rounds" 2>&1 | grep -E "^(round|median)"
