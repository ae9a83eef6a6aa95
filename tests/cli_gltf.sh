#!/usr/bin/env bash
# The ossa tool on glTF: messages for files that are not what their name
# says, the skin warning. Run by ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (glTF files in data/gltf)
#   OSSA_TEST_TMP   a scratch directory
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

# count PATTERN FILE: lines of FILE holding PATTERN (fixed string).
count() { grep -cF -- "$1" "$2" || true; }

# -- A .glb that is empty or holds text: no GLB magic, not a JSON error ----------

: >"$tmp/empty.glb"
expect_rc 1 "empty .glb" info "$tmp/empty.glb"
check "empty .glb: the missing magic is named" \
    grep -qF "empty.glb:byte 0: the file is empty: a .glb starts with the GLB magic \"glTF\"" "$err"
printf 'not a model\n' >"$tmp/text.glb"
expect_rc 1 "text .glb" convert "$tmp/text.glb" -o "$tmp/text.iqm"
check "text .glb: no GLB magic" grep -qF 'no GLB magic: a .glb starts with "glTF", this file holds text' "$err"
check "text .glb: no JSON message" test "$(count JSON "$err")" = 0
: >"$tmp/empty.gltf"
expect_rc 1 "empty .gltf" info "$tmp/empty.gltf"
check "empty .gltf: the JSON message stays" grep -qF "the JSON ends early" "$err"

# -- The skin's inverse bind matrices: one warning per file, naming joints ------

if [ -d "$shared/data/gltf" ]; then
    expect_rc 0 "CesiumMan to IQM" convert "$shared/data/gltf/CesiumMan.glb" -o "$tmp/cesium.iqm"
    check "one inverse bind warning" test "$(count "inverse bind" "$err")" = 1
    check "the joint is named" \
        grep -qF "at 1 joint ('Skeleton_torso_joint_1'): the bind pose follows the skin" "$err"
    # the file ossa writes agrees with itself: no warning when read again
    expect_rc 0 "CesiumMan to glb" convert "$shared/data/gltf/CesiumMan.glb" -o "$tmp/cesium.glb"
    expect_rc 0 "ossa's glb read back" convert "$tmp/cesium.glb" -o "$tmp/cesium2.iqm"
    check "no warning for ossa's own file" test "$(count "inverse bind" "$err")" = 0
else
    skip_part "$shared/data not found: the skin warning is not checked"
fi

summary
