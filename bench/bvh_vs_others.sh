#!/bin/bash
# Reading BVH: ossa next to Blender 3.4's BVH importer and `assimp info`
# (Debian assimp-utils), in one run. Two comparisons:
#   in-process  the importer's own time inside one Blender process
#               (bpy.ops.import_anim.bvh, default options, the scene
#               emptied between runs) against ossa_load_memory's
#               (bench_bvh, thread CPU time); median of the runs
#   process     the whole command, start-up included (wall time, best of
#               RUNS): `assimp info FILE` against `ossa info FILE`
# Usage: bench/bvh_vs_others.sh BUILD_DIR [BVH...] (default: ../shared/data/bvh/*)
set -u
build=${1:?usage: bvh_vs_others.sh BUILD_DIR [BVH...]}; shift
here=$(cd "$(dirname "$0")" && pwd)
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$here"/../../shared/data/bvh/*.bvh)
runs=${RUNS:-9}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
best() { # best wall time in ms of "$@" over $runs runs
  local b=
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "fail"; return; }; e=$(date +%s%N)
    local t=$(( (e - s) / 1000 ))
    if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
  done
  printf "%d.%02d" $((b / 1000)) $(((b % 1000) / 10))
}
# Blender: every file $runs times in one process, median seconds per file.
if command -v blender >/dev/null 2>&1; then
  cat > "$tmp/blender_bvh.py" <<'PY'
import builtins, statistics, sys, time
import bpy
from io_anim_bvh import import_bvh
# Blender 3.4's add-on opens with mode 'rU', refused by Python 3.11.
import_bvh.open = lambda p, mode="r", *a, **k: builtins.open(p, mode.replace("U", ""), *a, **k)
argv = sys.argv[sys.argv.index("--") + 1:]
runs, files = int(argv[0]), argv[1:]
for f in files:
    times = []
    for _ in range(runs):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        t = time.perf_counter()
        bpy.ops.import_anim.bvh(filepath=f)
        times.append(time.perf_counter() - t)
    print("BLENDER %s %.3f" % (f, statistics.median(times) * 1e3))
PY
  blender -b --factory-startup --python "$tmp/blender_bvh.py" -- "${RUNS_BLENDER:-5}" "${files[@]}" \
    2>/dev/null | grep '^BLENDER ' > "$tmp/blender.txt"
fi
"$build/bench/bench_bvh" "${files[@]}" > "$tmp/ossa.txt"
printf "| file | bytes | ossa in-process (ms) | Blender in-process (ms) | ratio | ossa info (ms) | assimp info (ms) | ratio |\n"
printf "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  n=$(basename "$f")
  o=$(awk -v n="$n:" '$1 == n {on = 1} on && /BVH -> model/ {print $8; exit}' "$tmp/ossa.txt")
  b=$(awk -v f="$f" '$2 == f {print $3}' "$tmp/blender.txt" 2>/dev/null); b=${b:-n/a}
  oi=$(best "$build/ossa" info "$f")
  if command -v assimp >/dev/null 2>&1; then ai=$(best assimp info "$f"); else ai=n/a; fi
  r1=$(awk -v a="$b" -v b="$o" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.0fx", a / b; else print "n/a" }')
  r2=$(awk -v a="$ai" -v b="$oi" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else print "n/a" }')
  printf "| %s | %d | %s | %s | %s | %s | %s | %s |\n" "$n" "$(stat -c %s "$f")" "$o" "$b" "$r1" "$oi" "$ai" "$r2"
done
