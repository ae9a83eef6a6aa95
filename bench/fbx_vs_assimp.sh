#!/bin/bash
# FBX -> IQM and FBX -> glTF with ossa next to `assimp export` of the same
# file (Debian assimp-utils), in one run. Wall time, best of N runs.
# Usage: bench/fbx_vs_assimp.sh OSSA_BINARY [FBX...] (default: ../shared/data/fbx/*)
set -u
ossa=${1:?usage: fbx_vs_assimp.sh OSSA_BINARY [FBX...]}; shift
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$(dirname "$0")"/../../shared/data/fbx/*)
runs=${RUNS:-9}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
have_assimp=1; command -v assimp >/dev/null 2>&1 || have_assimp=0
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
printf "| file | bytes | ossa -> IQM (ms) | ossa -> glTF (ms) | assimp -> glTF2 (ms) | assimp -> OBJ (ms) |\n"
printf "| --- | ---: | ---: | ---: | ---: | ---: |\n"
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  n=$(basename "$f")
  a=$(best "$ossa" convert "$f" -o "$tmp/o.iqm")
  g=$(best "$ossa" convert "$f" -o "$tmp/o.glb")
  if [ $have_assimp = 1 ]; then
    ag=$(best assimp export "$f" "$tmp/a.glb" -fglb2)
    ao=$(best assimp export "$f" "$tmp/a.obj")
  else ag="n/a"; ao="n/a"; fi
  printf "| %s | %d | %s | %s | %s | %s |\n" "$n" "$(stat -c %s "$f")" "$a" "$g" "$ag" "$ao"
done
