#!/usr/bin/env bash
# The ossa tool on MD5 files: a mesh and two animations merged into an IQM
# and written back as MD5 (every file listed), one animation alone, the
# same poses after the round trip, and located errors for the invalid
# shared files. Run by ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (md5/ in data/)
#   OSSA_TEST_TMP   a scratch directory
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

# -- A mesh of two joints and two animations of it ----------------------------

cat >"$tmp/hero.md5mesh" <<'EOF'
MD5Version 10
commandline ""

numJoints 2
numMeshes 1

joints {
	"origin"	-1 ( 0 0 0 ) ( 0 0 0 )
	"arm"	0 ( 0 0 2 ) ( 0 0 0 )		// origin
}

mesh {
	// meshes: body
	shader "models/hero/body"

	numverts 3
	vert 0 ( 0 0 ) 0 1
	vert 1 ( 1 0 ) 1 1
	vert 2 ( 0 1 ) 2 2

	numtris 1
	tri 0 0 2 1

	numweights 4
	weight 0 0 1 ( 1 0 0 )
	weight 1 1 1 ( 0 1 0 )
	weight 2 0 0.5 ( 1 1 2 )
	weight 3 1 0.5 ( 1 1 0 )
}
EOF
for name in walk run; do
    step=1
    [ "$name" = run ] && step=2
    cat >"$tmp/$name.md5anim" <<EOF
MD5Version 10
commandline ""

numFrames 3
numJoints 2
frameRate 24
numAnimatedComponents 2

hierarchy {
	"origin"	-1 0 0
	"arm"	0 5 0	// origin
}

bounds {
	( 0 0 0 ) ( 1 1 2 )
	( 0 0 0 ) ( 1 1 3 )
	( 0 0 0 ) ( 1 1 4 )
}

baseframe {
	( 0 0 0 ) ( 0 0 0 )
	( 0 0 2 ) ( 0 0 0 )
}

frame 0 {
	0 2
}

frame 1 {
	$step 3
}

frame 2 {
	$((2 * step)) 4
}
EOF
done

expect_rc 0 "info of the md5mesh" info --json "$tmp/hero.md5mesh"
check "md5mesh: 2 joints, 3 vertices, 1 triangle, mesh and shader" json_check "$out" \
    'd["format"] == "md5mesh" and d["joints"] == 2 and d["vertices"] == 3 and d["triangles"] == 1 and d["meshes"][0]["name"] == "body" and d["meshes"][0]["material"] == "models/hero/body"'
expect_rc 0 "info of an md5anim alone" info "$tmp/walk.md5anim"
check "md5anim alone: an animation-only model" grep -q '^joints: 2 (from animation poses)' "$out"
check "md5anim alone: named after its file" grep -q '"walk": 3 frames at 24 fps' "$out"

# -- Mesh + animations -> IQM -> MD5 -------------------------------------------

expect_rc 0 "md5mesh + 2 md5anim -> IQM" convert "$tmp/hero.md5mesh" "$tmp/walk.md5anim" \
    "$tmp/run.md5anim" -o "$tmp/hero.iqm"
expect_rc 0 "info of the IQM" info --json "$tmp/hero.iqm"
check "IQM: both animations, by name" json_check "$out" \
    'd["joints"] == 2 and [a["name"] for a in d["animations"]] == ["walk", "run"]'

mkdir -p "$tmp/out"
expect_rc 0 "IQM -> MD5" convert "$tmp/hero.iqm" -o "$tmp/out/hero.md5mesh"
check "every written file listed" diff <(printf 'wrote %s\n' "$tmp/out/hero.md5mesh" \
    "$tmp/out/hero.walk.md5anim" "$tmp/out/hero.run.md5anim") "$out"
for f in hero.md5mesh hero.walk.md5anim hero.run.md5anim; do
    check "$f exists" test -s "$tmp/out/$f"
done
check "no warning: nothing lost (the normals are the ones readers make)" test ! -s "$err"

# the same poses in model space after the round trip
expect_rc 0 "pose of the original" pose --json --anim run --frame 2 "$tmp/hero.md5mesh" \
    "$tmp/walk.md5anim" "$tmp/run.md5anim"
cp "$out" "$tmp/a.json"
expect_rc 0 "pose of the round trip" pose --json --anim run --frame 2 "$tmp/out/hero.md5mesh" \
    "$tmp/out/hero.walk.md5anim" "$tmp/out/hero.run.md5anim"
check "same model-space poses after IQM and MD5" python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["joints"]
b = json.load(open(sys.argv[2]))["joints"]
sys.exit(0 if len(a) == len(b) and all(abs(x - y) < 1e-5 for ja, jb in zip(a, b)
                                       for x, y in zip(ja["model"], jb["model"])) else 1)' \
    "$tmp/a.json" "$out"
check "arm at x 4, z 4 in run's frame 2" json_check "$out" \
    'abs(d["joints"][1]["model"][12] - 4) < 1e-6 and abs(d["joints"][1]["model"][14] - 4) < 1e-6'

# one animation as an md5anim
expect_rc 0 "one animation" convert "$tmp/hero.iqm" --anim run -o "$tmp/out/only.md5anim"
check "only.md5anim written" test -s "$tmp/out/only.md5anim"
expect_rc 0 "info of it" info "$tmp/out/only.md5anim"
check "it is run" grep -q '"run": 3 frames' "$out"

# -- Inputs loaded at once -----------------------------------------------------
# convert loads its inputs on every CPU (-j N, a batch's conversions at once,
# keeps each conversion to one thread: the serial reference here). Messages
# come in input order, the same either way: the warnings of the inputs
# before the one that fails, then its error, and nothing of the inputs after.

sed 's/^\t1 3$/\t+1 3/' "$tmp/walk.md5anim" >"$tmp/plus.md5anim"  # a warning
sed 's/^\t2 3$/\t2 x/' "$tmp/run.md5anim" >"$tmp/bad.md5anim"     # an error
sed 's/^\t2 3$/\t+2 3/' "$tmp/run.md5anim" >"$tmp/late.md5anim"   # a warning not reached
check "the edits took" grep -q '^	2 x$' "$tmp/bad.md5anim"
expect_rc 1 "an error in the 3rd of 4 inputs" convert "$tmp/hero.md5mesh" "$tmp/plus.md5anim" \
    "$tmp/bad.md5anim" "$tmp/late.md5anim" -o "$tmp/at_once.iqm"
cp "$err" "$tmp/at_once.err"
check "the 2nd's warning, the 3rd's error, nothing of the 4th" diff - "$tmp/at_once.err" <<EOF
ossa: $tmp/plus.md5anim:30:2: warning: a number with a '+' sign (id's tokenizer reads none; further ones are not reported)
ossa: $tmp/bad.md5anim:30:4: expected a frame value (numAnimatedComponents per frame) (a number), found 'x'
EOF
expect_rc 1 "the same, one input at a time" convert -j 2 "$tmp/hero.md5mesh" \
    "$tmp/plus.md5anim" "$tmp/bad.md5anim" "$tmp/late.md5anim" -o "$tmp/at_once.iqm"
check "the same messages one input at a time" diff "$tmp/at_once.err" "$err"
check "nothing written" test ! -e "$tmp/at_once.iqm"
expect_rc 0 "4 inputs with warnings" convert "$tmp/hero.md5mesh" "$tmp/plus.md5anim" \
    "$tmp/late.md5anim" "$tmp/walk.md5anim" -o "$tmp/at_once.iqm"
cp "$err" "$tmp/at_once.err"
mv "$tmp/at_once.iqm" "$tmp/at_once_1.iqm"
check "both warnings, in input order" diff <(grep -o '[a-z]*\.md5anim:[0-9:]*: warning' \
    "$tmp/at_once.err") - <<EOF
plus.md5anim:30:2: warning
late.md5anim:30:2: warning
EOF
expect_rc 0 "4 inputs, one at a time" convert -j 2 "$tmp/hero.md5mesh" "$tmp/plus.md5anim" \
    "$tmp/late.md5anim" "$tmp/walk.md5anim" -o "$tmp/at_once.iqm"
check "the same messages" diff "$tmp/at_once.err" "$err"
check "the same file" cmp "$tmp/at_once.iqm" "$tmp/at_once_1.iqm"

# -- Real files ------------------------------------------------------------------

cube=$shared/data/md5/SimpleCube.md5mesh
if [ -f "$cube" ]; then
    expect_rc 0 "SimpleCube -> IQM" convert "$cube" -o "$tmp/cube.iqm"
    expect_rc 0 "validate the IQM" validate "$tmp/cube.iqm"
    check "no errors" grep -q ': 0 errors' "$out"
    expect_rc 0 "SimpleCube -> MD5" convert "$cube" -o "$tmp/cube.md5mesh"
    check "its normals are the ones readers make: nothing said" test ! -s "$err"
    guy=$shared/data/iqm/guy.iqm
    expect_rc 0 "guy.iqm -> MD5" convert "$guy" -o "$tmp/guy.md5mesh"
    check "guy's own normals and tangents are lost: said" \
        grep -q 'warning: MD5 stores positions, texture coordinates and weights only: normals (readers make other ones), tangents dropped' "$err"
    check "guy's dance scales its body: said" grep -q "animation 'dance': md5mesh files store no scale" "$err"
    check "mesh and both animations listed" test "$(grep -c '^wrote ' "$out")" -eq 3

    bad=$shared/data/md5/invalid
    expect_rc 1 "InvalidBoneIndex" info "$bad/InvalidBoneIndex.md5mesh"
    check "located: joint 999" grep -q "InvalidBoneIndex.md5mesh:23:10: weight 0: joint 999 does not exist" "$err"
    expect_rc 1 "OverflowingVertexIndex" info "$bad/OverflowingVertexIndex.md5mesh"
    check "located: vert 4294967295" grep -q "OverflowingVertexIndex.md5mesh:15:6: vert number 4294967295: expected 0" "$err"
    expect_rc 1 "OverflowingTriangleIndex" convert "$bad/OverflowingTriangleIndex.md5mesh" -o "$tmp/x.iqm"
    check "located: tri 4294967295" grep -q "OverflowingTriangleIndex.md5mesh:18:5: tri number 4294967295" "$err"
    check "nothing written" test ! -e "$tmp/x.iqm"
    expect_rc 1 "OverflowingWeightIndex" validate "$bad/OverflowingWeightIndex.md5mesh"
    check "located: weight 4294967295" grep -q "OverflowingWeightIndex.md5mesh:21:8: weight number 4294967295" "$err"
else
    skip_part "../shared/data/md5 not found"
fi

summary
