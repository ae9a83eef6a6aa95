#!/usr/bin/env bash
# The ossa tool on illEngine files: each file alone (info, validate, pose),
# the three files merged into an IQM and back, the .illanset names, the
# reading options and the writer's warnings. Run by ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (guy.iqm in data/iqm)
#   OSSA_TEST_TMP   a scratch directory
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

# -- A small set of ASCII files: Doom 3 style, bones before their parents ------

cat >"$tmp/hero.illmesh" <<'EOF'
ILLMESH0
1
1
0
1
1
0
3
3
1 2 30
0 0 1
0 0
0 1 0 0
1 0 0 0

5 0 0
1 0 0
1 0
1 0 0 0
1 0 0 0

0 0 0
0 1 0
0 1
1 0 0 0
0.5 0.5 0 0

0 1 2
EOF
cat >"$tmp/hero.illskel" <<'EOF'
ILLSKEL0
3
1 0 0 1
0 1 0 2
0 0 1 30
0 0 0 1

1 0 0 0
0 0 1 0
0 -1 0 0
0 0 0 1

1 0 0 0
0 1 0 0
0 0 1 0
0 0 0 1

1
2
-1
Body
origin
<MD5_Root>
EOF
cat >"$tmp/walk.illanim" <<'EOF'
ILLANIM0
24
2
3
origin
0 0 0 0 0 0 1 1 1 1
2 0 0 0 0 0 1 1 1 1
Body
1 2 30 0 0 0 1 1 1 1
1 2 31 0 0 0 1 1 1 1
Tail
0 0 0 0 0 0 1 1 1 1
0 0 0 0 0 0 1 1 1 1
EOF

# -- Each file alone ----------------------------------------------------------

expect_rc 0 "info of a mesh alone" info --json "$tmp/hero.illmesh"
check "mesh alone: no skeleton" json_check "$out" \
    'd["format"] == "illmesh" and d["joints"] == 0 and d["vertices"] == 3 and d["triangles"] == 1'
expect_rc 0 "info of a skeleton alone" info "$tmp/hero.illskel"
check "skeleton: parents first" grep -q '^     0  <MD5_Root>' "$out"
check "skeleton: Body is a grandchild" grep -q '^     2      Body' "$out"
expect_rc 0 "info of an animation alone" info "$tmp/walk.illanim"
check "animation-only model" grep -q '^joints: 3 (from animation poses)' "$out"
check "animation named after the file" grep -q '"walk": 2 frames at 24 fps, looping' "$out"
expect_rc 0 "validate of the skeleton" validate "$tmp/hero.illskel"

# -- The three files merged ---------------------------------------------------

expect_rc 0 "convert three files to IQM" convert "$tmp/hero.illmesh" "$tmp/hero.illskel" \
    "$tmp/walk.illanim" -o "$tmp/hero.iqm"
check "a bone missing from the skeleton is reported" \
    grep -qF "ossa: $tmp/walk.illanim: warning: joint 'Tail' is not in the skeleton" "$err"
expect_rc 0 "validate the IQM" validate "$tmp/hero.iqm"
expect_rc 0 "info of the IQM" info --json "$tmp/hero.iqm"
check "IQM: 3 joints, 3 vertices, 1 animation" json_check "$out" \
    'd["joints"] == 3 and d["vertices"] == 3 and len(d["animations"]) == 1'
# <MD5_Root>: the mesh turns by Rx(-90), (x, y, z) -> (x, z, -y): vertex 0
# (1, 2, 30) lands on Body's bind position (1, 30, -2)
expect_rc 0 "pose of the bind pose" pose --json "$tmp/hero.iqm"
check "Body's bind position" json_check "$out" \
    'all(abs(a - b) < 1e-4 for a, b in zip(d["joints"][2]["model"][12:15], [1, 30, -2]))'
expect_rc 0 "pose at frame 1" pose --json --frame 1 "$tmp/hero.illmesh" "$tmp/hero.illskel" \
    "$tmp/walk.illanim"
check "origin's key at frame 1" json_check "$out" \
    'abs(d["joints"][1]["local"]["translation"][0] - 2) < 1e-6'

# and back: three files with the same stem
mkdir -p "$tmp/back"
expect_rc 0 "convert the IQM to illEngine" convert "$tmp/hero.iqm" -o "$tmp/back/hero.illmesh"
check "writes .illmesh" test -s "$tmp/back/hero.illmesh"
check "writes .illskel" test -s "$tmp/back/hero.illskel"
check "writes .illanim" test -s "$tmp/back/hero.illanim"
check "the mesh is written turned back (raw MD5 space)" grep -qx '1 2 30' "$tmp/back/hero.illmesh"
check "no temporary files" test -z "$(find "$tmp/back" -name '*.tmp.*' -print)"
expect_rc 0 "convert back to IQM" convert "$tmp/back/hero.illmesh" "$tmp/back/hero.illskel" \
    "$tmp/back/hero.illanim" -o "$tmp/again.iqm"
expect_rc 0 "pose of the round trip" pose --json --frame 1 "$tmp/again.iqm"
cp "$out" "$tmp/again.json"
expect_rc 0 "pose of the first IQM" pose --json --frame 1 "$tmp/hero.iqm"
check "same poses after the round trip" python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["joints"]
b = json.load(open(sys.argv[2]))["joints"]
sys.exit(0 if all(abs(x - y) < 1e-5 for p, q in zip(a, b) for x, y in zip(p["model"], q["model"])) else 1)' \
    "$tmp/again.json" "$out"

# -- Reading options ----------------------------------------------------------

expect_rc 0 "--no-md5-fix" pose --json "$tmp/hero.illmesh" "$tmp/hero.illskel" --no-md5-fix
expect_rc 0 "convert with --no-md5-fix" convert --no-md5-fix "$tmp/hero.illmesh" \
    "$tmp/hero.illskel" -o "$tmp/raw.iqm"
expect_rc 0 "info of the uncorrected model" info --json "$tmp/raw.iqm"
check "bounds keep the raw Z-up vertex" json_check "$out" \
    'abs(d["bounds"]["max"][2] - 30) < 1e-4'
expect_rc 2 "--md5-fix with --no-md5-fix" info --md5-fix --no-md5-fix "$tmp/hero.illskel"
expect_rc 2 "two vertex orders" info --ill-vertex-order texcoord-first --ill-vertex-order blend-first "$tmp/hero.illmesh"
expect_rc 2 "an order that is none" info --ill-vertex-order v0a "$tmp/hero.illmesh"
expect_rc 0 "-O with an order" info -O ill.vertex_order=blend-first "$tmp/hero.illmesh"
expect_rc 1 "--ill-binary on a text file" info --ill-binary "$tmp/hero.illskel"
expect_rc 0 "--ill-text on a text file" info --ill-text "$tmp/hero.illskel"

# -- .illanset: the bone names of a binary set ---------------------------------

printf 'ILANSET0\x03\x00\x00\x04Body\x00\x06origin\x00\x0a<MD5_Root>' >"$tmp/hero.illanset"
expect_rc 0 "info of an .illanset" info "$tmp/hero.illanset"
check ".illanset: names only" grep -q '^joints: 3 (names only)' "$out"
check ".illanset: the names" grep -q '^     2  <MD5_Root>' "$out"

# -- Errors and warnings ------------------------------------------------------

printf 'ILLSKEL0\n1\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0 0 0 1\n\nroot\nname\n' >"$tmp/bad.illskel"
expect_rc 1 "a bad parent" info "$tmp/bad.illskel"
check "error with line and column" \
    grep -qF "ossa: $tmp/bad.illskel:8:1: expected a parent index" "$err"

if [ -f "$shared/data/iqm/guy.iqm" ]; then
    expect_rc 0 "guy.iqm to illEngine" convert "$shared/data/iqm/guy.iqm" -o "$tmp/guy.illmesh"
    check "the second animation gets its own file" test -s "$tmp/guy.dance.illanim"
    expect_rc 0 "a single animation file" convert "$shared/data/iqm/guy.iqm" --anim 1 \
        -o "$tmp/dance.illanim"
    check "the writer notes what it leaves out" \
        grep -qF "ossa: $tmp/dance.illanim: warning: the file holds one animation" "$err"
    expect_rc 0 "guy back from illEngine" convert "$tmp/guy.illmesh" "$tmp/guy.illskel" \
        "$tmp/guy.illanim" "$tmp/dance.illanim" -o "$tmp/guy.iqm"
    expect_rc 0 "validate guy" validate "$tmp/guy.iqm"
else
    skip_part "$shared/data not found"
fi

summary
