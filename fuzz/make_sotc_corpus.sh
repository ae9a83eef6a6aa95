#!/bin/sh
# Writes the seed corpora of fuzz_xff, fuzz_skb, fuzz_anb and fuzz_nmo into
# fuzz/corpus/{xff,skb,anb,nmo}/ with ossa's own SOTC writers (no game data
# is public, and none is used): the built-in demo model and the small IQE
# seeds of fuzz/corpus/iqe, converted to .skb, .anb (each animation) and
# .nmo. fuzz_xff gets one of each.
#
# usage: fuzz/make_sotc_corpus.sh OSSA   (the ossa binary of a build)
set -eu
ossa=${1:?usage: make_sotc_corpus.sh path/to/ossa}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ossa" demo -o "$tmp" >/dev/null
for t in skb anb nmo xff; do mkdir -p "$here/corpus/$t"; done
convert() { "$ossa" convert "$@" 2>/dev/null || true; }
for src in "$tmp/demo.iqm" "$here/corpus/iqe/skinned.iqe" "$here/corpus/iqe/poses.iqe" \
           "$here/corpus/iqe/triangle.iqe" "$here/corpus/iqe/smooth.iqe"; do
    name=$(basename "${src%.*}")
    convert "$src" -o "$here/corpus/skb/$name.skb"
    convert "$src" -o "$here/corpus/nmo/$name.nmo"
    for a in 0 1; do convert "$src" --anim $a -o "$here/corpus/anb/$name-$a.anb"; done
done
cp "$here/corpus/skb/demo.skb" "$here/corpus/anb/demo-0.anb" "$here/corpus/nmo/demo.nmo" \
   "$here/corpus/xff/"
