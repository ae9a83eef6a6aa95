#!/usr/bin/env bash
# Every model file in ../shared/data (IQM, IQE, glTF) and the demo model,
# converted to .glb, .gltf with a .bin and .gltf with an embedded buffer,
# must pass the Khronos glTF validator with no error and no warning; so
# must glTF files converted to IQM and back. Run by ctest with
#   OSSA_CLI              path to the ossa binary
#   OSSA_SHARED_DIR       path to ../shared (real model files in data/)
#   OSSA_TEST_TMP         a scratch directory
#   OSSA_GLTF_VALIDATOR   node_modules holding gltf-validator (make deps-node)
# Prints SKIP and passes when node or the validator is missing.
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"
modules=${OSSA_GLTF_VALIDATOR:-$here/../build-node/node_modules}

if ! command -v node >/dev/null 2>&1; then
    skip_part "node is not installed (make deps-node installs it)"
    summary
fi
if [ ! -f "$modules/gltf-validator/package.json" ]; then
    skip_part "gltf-validator is not installed in $modules (make deps-node installs it)"
    summary
fi

# convert IN OUT [OPTIONS]: one conversion that must succeed.
convert() {
    local in=$1 out=$2
    shift 2
    if "$OSSA_CLI" convert "$in" -o "$out" "$@" 2>"$tmp/stderr"; then
        ok
    else
        fail "convert $in -> $out $*"
        sed 's/^/  /' "$tmp/stderr"
    fi
}

inputs=()
if [ -d "$shared/data" ]; then
    for f in "$shared"/data/iqm/*.iqm "$shared"/data/iqe/*.iqe "$shared"/data/gltf/*.gltf \
        "$shared"/data/gltf/*.glb; do
        [ -f "$f" ] && inputs+=("$f")
    done
else
    skip_part "$shared/data not found: only the demo model is checked"
fi
"$OSSA_CLI" demo -o "$tmp/demo" >/dev/null
inputs+=("$tmp/demo/demo.iqm")

outputs=()
for f in "${inputs[@]}"; do
    name=$(basename "$f")
    stem=${name%.*}_${name##*.}
    convert "$f" "$tmp/$stem.glb"
    convert "$f" "$tmp/$stem.gltf"
    convert "$f" "$tmp/${stem}_embedded.gltf" --embed
    outputs+=("$tmp/$stem.glb" "$tmp/$stem.gltf" "$tmp/${stem}_embedded.gltf")
    case $name in
    *.gltf | *.glb)
        # and back through IQM
        convert "$f" "$tmp/$stem.iqm"
        convert "$tmp/$stem.iqm" "$tmp/${stem}_via_iqm.glb"
        outputs+=("$tmp/${stem}_via_iqm.glb")
        ;;
    esac
done
outputs+=("$tmp/demo/demo.glb")

present=()
for f in "${outputs[@]}"; do [ -f "$f" ] && present+=("$f"); done
if node "$here/gltf_validate.js" --validator "$modules" "${present[@]}" >"$tmp/report" 2>&1; then
    passed=$((passed + ${#present[@]}))
else
    fail "the glTF validator reports errors or warnings:"
    grep -v ': 0 errors, 0 warnings' "$tmp/report" | sed 's/^/  /'
fi
sed "s|$tmp/||" "$tmp/report"

summary
