#!/bin/bash
# Writing FBX: `ossa convert X -o x.fbx` next to `assimp export X x.fbx`
# (Debian assimp-utils) on the same inputs, whole process, wall time, best
# of N runs (RUNS, default 9), with the output sizes.
# Usage: bench/fbx_write_vs_assimp.sh OSSA_BINARY [INPUT...]
# (default: guy.iqm, the glTF samples, an SMD and an MD5 of ../shared/data)
set -u
ossa=${1:?usage: fbx_write_vs_assimp.sh OSSA_BINARY [INPUT...]}; shift
data=$(dirname "$0")/../../shared/data
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$data"/iqm/guy.iqm "$data"/gltf/CesiumMan.glb "$data"/gltf/Fox.glb
  "$data"/gltf/RiggedFigure.glb "$data"/gltf/greenman.glb "$data"/gltf/robot.glb
  "$data"/smd/holy_grailref.smd "$data"/md5/SimpleCube.md5mesh)
runs=${RUNS:-9}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
command -v assimp >/dev/null 2>&1 || { echo "assimp is not installed (Debian assimp-utils)"; exit 1; }
best() { # best wall time in microseconds of "$@" over $runs runs
  local b=
  for _ in $(seq "$runs"); do
    local s e t
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "fail"; return; }; e=$(date +%s%N)
    t=$(( (e - s) / 1000 ))
    if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
  done
  echo "$b"
}
ms() { printf "%d.%02d" $(($1 / 1000)) $((($1 % 1000) / 10)); }
printf "| input | ossa -> FBX (ms) | bytes | assimp -> FBX (ms) | bytes | assimp / ossa |\n"
printf "| --- | ---: | ---: | ---: | ---: | ---: |\n"
to=0; ta=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  o=$(best "$ossa" convert "$f" -o "$tmp/o.fbx")
  a=$(best assimp export "$f" "$tmp/a.fbx")
  [ "$o" = fail ] || [ "$a" = fail ] && { printf "| %s | %s | | %s | | |\n" "$(basename "$f")" "$o" "$a"; continue; }
  to=$((to + o)); ta=$((ta + a))
  printf "| %s | %s | %d | %s | %d | %d.%dx |\n" "$(basename "$f")" "$(ms "$o")" "$(stat -c %s "$tmp/o.fbx")" \
    "$(ms "$a")" "$(stat -c %s "$tmp/a.fbx")" $((a / o)) $(((a * 10 / o) % 10))
done
printf "| all | %s | | %s | | %d.%dx |\n" "$(ms "$to")" "$(ms "$ta")" $((ta / to)) $(((ta * 10 / to) % 10))
