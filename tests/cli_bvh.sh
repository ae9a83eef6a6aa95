#!/usr/bin/env bash
# The ossa tool on BVH: info and pose of the shared CMU file, located
# errors and warnings, writing (one .bvh per animation, the rotation order
# and position options), a BVH merged onto a character, and conversion to
# glTF. Run by ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (BVH files in data/bvh)
#   OSSA_TEST_TMP   a scratch directory
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

# A two-joint T-pose: an arm along +x that frame 1 lifts by 90 degrees.
cat >"$tmp/wave.bvh" <<'BVH'
HIERARCHY
ROOT hips
{
	OFFSET 0 0 0
	CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
	JOINT arm
	{
		OFFSET 1 0 0
		CHANNELS 3 Zrotation Yrotation Xrotation
		End Site
		{
			OFFSET 1 0 0
		}
	}
}
MOTION
Frames: 2
Frame Time: 0.0333333
0 3 0 0 0 0 0 0 0
0 3 0 0 0 0 90 0 0
BVH

expect_rc 0 "info --json of a BVH" info --json "$tmp/wave.bvh"
json_check "$out" 'd["format"] == "bvh" and d["joints"] == 3 and d["animations"][0]["frames"] == 2 and d["animations"][0]["framerate"] == 30'
check "the frame rate rounding is a note" grep -q "note: frame time 0.0333333 s is taken as 30 fps" "$err"

# Frame 1: the arm's end at (1, 0, 3) + up 1 (ossa axes: BVH y is z).
expect_rc 0 "pose --json at frame 1" pose "$tmp/wave.bvh" --frame 1 --json
json_check "$out" 'all(abs(a - b) < 1e-5 for a, b in zip(d["joints"][2]["model"][12:15], [1, 0, 4]))'

# Damage is located.
sed 's/^0 3 0 0 0 0 90 0 0$/0 3 0 0 0 x 90 0 0/' "$tmp/wave.bvh" >"$tmp/bad.bvh"
expect_rc 1 "a word among the numbers is an error" info "$tmp/bad.bvh"
check "the error says where and what" grep -q "bad.bvh:20:11: expected a number for Xrotation of 'hips' in frame 1, found 'x'" "$err"
printf 'trailing words\n' | cat "$tmp/wave.bvh" - >"$tmp/tail.bvh"
expect_rc 0 "trailing text is a warning" info "$tmp/tail.bvh"
check "the warning says where" grep -q "tail.bvh:21:1: warning: text after the frames is ignored" "$err"

# Writing: the order and position options, and the layout.
expect_rc 0 "BVH to BVH in XYZ order with positions everywhere" convert "$tmp/wave.bvh" -o "$tmp/xyz.bvh" --bvh-rotation-order xyz --bvh-positions all
check "the XYZ channels" grep -q "CHANNELS 6 Xposition Yposition Zposition Xrotation Yrotation Zrotation" "$tmp/xyz.bvh"
check "the frame time" grep -q "^Frame Time: 0.0333333333333$" "$tmp/xyz.bvh"
check "frame 1 in XYZ: the arm at its offset, the same turn about z" grep -q "^0 3 0 0 0 0 1 0 0 0 0 90$" "$tmp/xyz.bvh"
expect_rc 2 "an unknown order is a usage error" convert "$tmp/wave.bvh" -o "$tmp/q.bvh" --bvh-rotation-order XXY
expect_rc 2 "an unknown positions choice is a usage error" convert "$tmp/wave.bvh" -o "$tmp/q.bvh" --bvh-positions some

if [ -f "$shared/data/bvh/01_01.bvh" ] && [ -f "$shared/data/iqm/guy.iqm" ]; then
    cmu=$shared/data/bvh/01_01.bvh
    expect_rc 0 "info of the CMU file" info --json "$cmu"
    json_check "$out" 'd["joints"] == 38 and d["animations"][0]["frames"] == 2752 and d["animations"][0]["framerate"] == 120'
    # Every animation to its own file: guy.bvh, then guy.NAME.bvh.
    expect_rc 0 "an IQM character to BVH" convert "$shared/data/iqm/guy.iqm" -o "$tmp/guy.bvh"
    check "the mesh is reported as dropped" grep -q "bvh files hold no mesh" "$err"
    n=$(grep -c '^wrote ' "$out")
    check "one file per animation ($n)" test "$n" -eq 2
    check "the second file is guy.NAME.bvh" test -f "$tmp/guy.dance.bvh"
    expect_rc 1 "with --no-clobber nothing is replaced" convert "$shared/data/iqm/guy.iqm" -o "$tmp/guy.bvh" --no-clobber
    check "and says so" grep -q "already exist; of the 2 files of this output, none is replaced" "$err"
    expect_rc 0 "the CMU file to glTF" convert "$cmu" -o "$tmp/cmu.glb"
    # A character that has the BVH's joints: the BVH's skeleton as IQM,
    # its hips raised, merged with the BVH again: retargeted, reported.
    expect_rc 0 "the CMU skeleton as IQM" convert "$cmu" -o "$tmp/skel.iqm" --drop-anim 0
    expect_rc 0 "the BVH merged onto it" convert "$tmp/skel.iqm" "$cmu" -o "$tmp/merged.iqm"
    check "the retargeting is said" grep -q "note: animation '01_01' is retargeted" "$err"
    expect_rc 0 "pose of the merge" pose "$tmp/merged.iqm" --frame 500 --json
    cp "$out" "$tmp/merged.json"
    # Both turned from the BVH's front (-Y) to IQM's (+X): the motion
    # merged onto the IQM skeleton is turned with it.
    expect_rc 0 "the CMU file as IQM" convert "$cmu" -o "$tmp/cmu.iqm"
    expect_rc 0 "pose of the BVH's IQM" pose "$tmp/cmu.iqm" --frame 500 --json
    python3 - "$tmp/merged.json" "$out" <<'PY' && ok || fail "the merge poses the skeleton as the BVH's IQM does"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for x, y in zip(a["joints"], b["joints"]):
    assert x["name"] == y["name"]
    assert all(abs(u - v) < 1e-3 for u, v in zip(x["model"], y["model"])), x["name"]
PY
else
    skip_part "$shared/data/bvh or iqm/guy.iqm not found"
fi

summary
