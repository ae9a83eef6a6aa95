#!/usr/bin/env bash
# ossa on FBX files: the reading options that keep the file's axes and
# units, checked against the default conversion of the same file.
. "$(dirname "$0")/cli_common.bash"

fbx=$shared/data/fbx/huesitos.fbx
if [ ! -f "$fbx" ]; then
    skip_part "$fbx not found"
    summary
    exit
fi

# The root joint's bind translation, as `ossa pose --json` prints it.
root_t() {
    "$OSSA_CLI" pose "$@" --json "$fbx" >"$tmp/pose.json" &&
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%.6g" % v for v in d["joints"][0]["local"]["translation"]))' "$tmp/pose.json"
}

default=$(root_t)
units=$(root_t --fbx-keep-units)
axes=$(root_t --fbx-keep-axes)
check "the pose of the default conversion is read" [ -n "$default" ]

# huesitos.fbx is in centimetres (UnitScaleFactor 1): keeping its units
# multiplies every translation by 100.
check "--fbx-keep-units: translations 100x the default's ($units vs $default)" python3 -c '
import sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
sys.exit(0 if all(abs(x - 100 * y) <= 1e-4 * max(1, abs(x)) for x, y in zip(b, a)) else 1)' \
    "$default" "$units"

# Keeping the file's axes gives the same point in other coordinates: the
# same length (the unit conversion still applies), other components.
check "--fbx-keep-axes: the root moves off Z up ($axes vs $default)" python3 -c '
import math, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
same_length = abs(math.hypot(*a) - math.hypot(*b)) <= 1e-5 * max(1, math.hypot(*a))
sys.exit(0 if same_length and a != b else 1)' "$default" "$axes"

expect_rc 0 "info takes the FBX reading options" info --fbx-keep-axes --fbx-keep-units "$fbx"

# The embedded texture of box_ascii.fbx: kept as an image, named by the
# material's description (which `info` shows), written beside an IQM.
boxa=$shared/data/fbx/box_ascii.fbx
expect_rc 0 "info box_ascii.fbx" info "$boxa"
check "info shows the material's texture" grep -q "ossa.material:03 - Default: .*base_color_texture uv_test.png" "$out"
expect_rc 0 "info --json box_ascii.fbx" info --json "$boxa"
check "info --json gives the description's text" grep -q '"text": ".*base_color_texture uv_test.png' "$out"
expect_rc 0 "box_ascii.fbx to IQM" convert "$boxa" -o "$tmp/boxa.iqm"
check "the texture is written beside the IQM" cmp -s <(head -c 8 "$tmp/uv_test.png") <(printf '\x89PNG\r\n\x1a\n')

summary
