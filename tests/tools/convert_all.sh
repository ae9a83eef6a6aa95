#!/usr/bin/env bash
# Converts every sample model (../shared/data, the demo model) to every
# writable format into OUTDIR, with a log of each command's exit status and
# stderr. Run it with two builds and `diff -r` the folders to show that a
# change leaves every output byte-identical.
#
#   tests/tools/convert_all.sh OSSA_BINARY OUTDIR [DATA_DIR]
set -u
ossa=$(realpath "$1")
out=$2
data=$(realpath "${3:-$(dirname "$0")/../../../shared/data}")
mkdir -p "$out"
out=$(realpath "$out")
log=$out/log.txt
: > "$log"

inputs=()
while IFS= read -r f; do inputs+=("$f"); done < <(
  find "$data" -type f \( -name '*.iqm' -o -name '*.iqe' -o -name '*.glb' -o -name '*.gltf' \
       -o -name '*.md5mesh' -o -name '*.md5anim' -o -name '*.smd' -o -name '*.obj' \
       -o -name '*.fbx' -o -name '*.FBX' -o -name '*.bvh' \) | LC_ALL=C sort)

"$ossa" demo -o "$out/demo-src" > /dev/null 2>&1
# The demo's model files (not its pictures, texture, glTF buffer or OBJ
# materials).
for f in "$out"/demo-src/*; do
  case $f in *.png|*.gif|*.bin|*.mtl) ;; *) inputs+=("$f") ;; esac
done

formats=$("$ossa" --help | awk '/^Formats/ {on=1; next} on && NF==0 {exit} on && $2 ~ /w/ {print $1}')

# Relative output paths, so that messages naming them compare equal.
cd "$out"
for f in "${inputs[@]}"; do
  base=$(basename "$f"); base=${base%.*}_${base##*.}
  for fmt in $formats; do
    dir=$base; mkdir -p "$dir"
    "$ossa" convert "$f" -o "$dir/out.$fmt" --format "$fmt" > "$dir/$fmt.stdout" 2> "$dir/$fmt.stderr"
    echo "$base $fmt exit=$?" >> "$log"
  done
done
echo "converted ${#inputs[@]} inputs to: $formats"
