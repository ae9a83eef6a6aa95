#!/usr/bin/env bash
# The ossa tool on SMD and OBJ: a reference SMD merged with sequence SMDs
# (one animation per file, named after it), SMD written back as several
# files, OBJ in and out, the reading options, and located errors. Run by
# ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (guy.iqm in data/iqm)
#   OSSA_TEST_TMP   a scratch directory
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

cat >"$tmp/ref.smd" <<'SMD'
version 1
nodes
0 "root" -1
1 "child" 0
end
skeleton
time 0
0 0 0 0 0 0 0
1 0 0 1 0 0 0
end
triangles
skin.tga
0 0 0 0 0 0 1 0 0
1 1 0 1 0 0 1 1 0 2 0 0.5 1 0.5
1 0 1 1 0 0 1 0 1
end
SMD
# bones in the other id order: bound by name, not by index
cat >"$tmp/walk.smd" <<'SMD'
version 1
nodes
0 "child" 1
1 "root" -1
end
skeleton
time 0
1 0 0 0 0 0 0
0 0 0 1 0 0 0
time 1
0 0 0 2 0 0 0
end
SMD
sed 's/0 0 0 2 0 0 0/0 0 0 3 0 0 0/' "$tmp/walk.smd" >"$tmp/run.smd"

expect_rc 0 "reference + two sequences to IQM" convert "$tmp/ref.smd" "$tmp/walk.smd" "$tmp/run.smd" -o "$tmp/x.iqm"
expect_rc 0 "info --json of the merge" info --json "$tmp/x.iqm"
cp "$out" "$tmp/x.json"
check "one animation per sequence file, named after it" json_check "$tmp/x.json" \
    '[(a["name"], a["frames"], a["framerate"]) for a in d["animations"]] == [("walk", 2, 30), ("run", 2, 30)]'
check "the mesh of the reference" json_check "$tmp/x.json" \
    'd["triangles"] == 1 and d["meshes"][0]["name"] == "skin" and d["meshes"][0]["material"] == "skin.tga"'
expect_rc 0 "the child moves, bound by name" pose "$tmp/x.iqm" --anim run --frame 1 --json
check "child at z = 3 in run's frame 1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = {x["name"]: x for x in d["joints"]}
sys.exit(0 if abs(j["child"]["local"]["translation"][2] - 3) < 1e-6 and j["root"]["local"]["translation"][2] == 0 else 1)' "$out"

expect_rc 0 "IQM to SMD" convert "$tmp/x.iqm" -o "$tmp/back.smd"
for f in back.smd back.walk.smd back.run.smd; do
    check "writes $f" test -s "$tmp/$f"
    check "lists $f" grep -qF "wrote $tmp/$f" "$out"
done
check "%.6f numbers" grep -qF "1 0.000000 0.000000 1.000000 0.000000 0.000000 0.000000" "$tmp/back.smd"
# through IQM the frames are quantized (2 -> 2.000015)
check "every bone in every frame" python3 -c '
import sys
lines = open(sys.argv[1]).read().split("\n")
i = lines.index("time 1")
sys.exit(0 if lines[i + 1].startswith("0 ") and lines[i + 2].startswith("1 0.000000 0.000000 2.0000") and lines[i + 3] == "end" else 1)' "$tmp/back.walk.smd"
expect_rc 0 "SMD files back to IQM" convert "$tmp/back.smd" "$tmp/back.walk.smd" "$tmp/back.run.smd" -o "$tmp/again.iqm"
expect_rc 0 "info --json again" info --json "$tmp/again.iqm"
check "same animations after the round trip, by name" json_check "$out" \
    '[(a["name"], a["frames"], a["framerate"]) for a in d["animations"]] == [("walk", 2, 30), ("run", 2, 30)]'
check "the name in a comment studiomdl skips" grep -qx "// ossa --fps 30 --name walk" "$tmp/back.walk.smd"
expect_rc 0 "studiomdl's turn" info --smd-turn --json "$tmp/ref.smd"

# -- OBJ ------------------------------------------------------------------------

cat >"$tmp/quad.obj" <<'OBJ'
mtllib quad.mtl
o quad
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
usemtl paint
f 1 2 3 4
OBJ
expect_rc 0 "OBJ to IQM" convert "$tmp/quad.obj" -o "$tmp/quad.iqm"
expect_rc 0 "info of the OBJ" info --json "$tmp/quad.obj"
check "two triangles, mesh (quad, paint)" json_check "$out" \
    'd["triangles"] == 2 and d["meshes"][0]["name"] == "quad" and d["meshes"][0]["material"] == "paint"'
expect_rc 0 "Blender's axes" info --obj-blender-axes "$tmp/quad.obj"
expect_rc 0 "IQM to OBJ" convert "$tmp/quad.iqm" -o "$tmp/out.obj"
check "writes the OBJ and its MTL" test -s "$tmp/out.mtl"
check "the OBJ names its MTL" grep -qx "mtllib out.mtl" "$tmp/out.obj"
check "the MTL names the material" grep -qx "newmtl paint" "$tmp/out.mtl"

printf 'v 0 0 0\nv 1 0 0\nf 1 2 7\n' >"$tmp/bad.obj"
expect_rc 1 "an index out of range" info "$tmp/bad.obj"
check "error with line and column" grep -qF "ossa: $tmp/bad.obj:3:7: position index 7 is out of range" "$err"
printf 'version 1\nnodes\n0 "a" -1\nend\nskeleton\ntime 0\n0 0 0\n' >"$tmp/bad.smd"
expect_rc 1 "a short bone line" info "$tmp/bad.smd"
check "SMD error with line and column" grep -qF "ossa: $tmp/bad.smd:7:6: expected the position z" "$err"

# Degenerate triangles: every command drops them with one warning that
# counts them; validate keeps them and reports them as the file has them.
# The second face repeats OBJ vertex 1; the third has three `v` lines at
# one point with the same texture coordinate and normal (one vertex three
# times, as in spider.obj's teeth).
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 1 1 0\nvt 0 0\nvn 0 0 1\n%s\n' \
    'f 1/1/1 2/1/1 3/1/1' 'f 1/1/1 1/1/1 2/1/1' 'f 4/1/1 5/1/1 4/1/1' >"$tmp/degenerate.obj"
expect_rc 0 "info of an OBJ with degenerate faces" info --json "$tmp/degenerate.obj"
check "info: one triangle left" json_check "$out" 'd["triangles"] == 1'
check "info: the warning counts the dropped" \
    grep -qF "ossa: $tmp/degenerate.obj: warning: 2 degenerate triangles (a vertex repeated) dropped (the first: triangle 1 of mesh '')" "$err"
expect_rc 0 "validate of an OBJ with degenerate faces" validate "$tmp/degenerate.obj"
check "validate: the triangles as in the file" \
    grep -qF "ossa: $tmp/degenerate.obj: warning: triangle 1 repeats a vertex (and 1 more like it)" "$err"
check "validate: no drop on its load" bash -c '! grep -q "dropped" "$1"' _ "$err"
check "validate: summary" grep -qF "$tmp/degenerate.obj: 0 errors, 1 warning" "$out"
expect_rc 0 "convert it to IQM" convert "$tmp/degenerate.obj" -o "$tmp/degenerate.iqm"
expect_rc 0 "validate the IQM" validate "$tmp/degenerate.iqm"
check "the IQM holds none" grep -qF "$tmp/degenerate.iqm: 0 errors, 0 warnings" "$out"

if [ -f "$shared/data/iqm/guy.iqm" ]; then
    expect_rc 0 "guy.iqm to SMD" convert "$shared/data/iqm/guy.iqm" -o "$tmp/guy.smd"
    check "the scaled animation's loss is said" grep -qF "animation 'dance': smd files store no scale" "$err"
    check "the jump is written" test -s "$tmp/guy.jump.smd"
    check "the dance is written" test -s "$tmp/guy.dance.smd"
    expect_rc 0 "guy.iqm to OBJ" convert "$shared/data/iqm/guy.iqm" -o "$tmp/guy.obj"
else
    echo "SKIP: ../shared/data not found"
fi

# convert --time poses the OBJ at a moment of --anim: the vertices move
# (guy's dance at 0.5 s), the faces stay; a bad time is a usage error.
if [ -f "$shared/data/iqm/guy.iqm" ]; then
    expect_rc 0 "bind-pose OBJ" convert "$shared/data/iqm/guy.iqm" -o "$tmp/bind.obj"
    expect_rc 0 "posed OBJ" convert "$shared/data/iqm/guy.iqm" --anim dance --time 0.5 \
        -o "$tmp/posed.obj"
    check "--time moves the vertices" \
        bash -c '! cmp -s <(grep "^v " "$1") <(grep "^v " "$2")' _ "$tmp/bind.obj" "$tmp/posed.obj"
    check "--time keeps the faces" \
        cmp -s <(grep "^f " "$tmp/bind.obj") <(grep "^f " "$tmp/posed.obj")
    expect_rc 2 "--time needs a number" convert "$shared/data/iqm/guy.iqm" --time soon \
        -o "$tmp/x.obj"
else
    skip_part "guy.iqm not found: convert --time not checked"
fi

summary
