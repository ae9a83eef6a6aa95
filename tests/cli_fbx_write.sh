#!/usr/bin/env bash
# ossa writing FBX: convert to .fbx from several formats, `validate` silent
# on the output, the same joints, meshes and animations in `info --json`,
# the same pose at a frame of an animation (`pose --json`), -o - and
# --images; and assimp (Debian assimp-utils) reads the output to the same
# joint and mesh counts, where it is installed.
. "$(dirname "$0")/cli_common.bash"

"$OSSA_CLI" demo -o "$tmp/demo" >/dev/null 2>&1 || fail "ossa demo"
inputs=("$tmp/demo/demo.iqm")
for f in iqm/guy.iqm gltf/CesiumMan.glb gltf/Fox.glb md5/SimpleCube.md5mesh smd/holy_grailref.smd \
    obj/cube_usemtl.obj; do
    if [ -f "$shared/data/$f" ]; then inputs+=("$shared/data/$f"); else skip_part "$shared/data/$f not found"; fi
done

# counts FILE: "joints meshes animations triangles" from info --json.
counts() {
    "$OSSA_CLI" info --json "$1" | python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["joints"], len(d["meshes"]), len(d["animations"]), d["triangles"])'
}

for f in "${inputs[@]}"; do
    name=$(basename "$f")
    fbx=$tmp/${name%.*}.fbx
    expect_rc 0 "convert $name to FBX" convert "$f" -o "$fbx"
    check "$name: the output is binary FBX 7.4" python3 -c '
import sys
d = open(sys.argv[1], "rb").read(27)
sys.exit(0 if d[:23] == b"Kaydara FBX Binary  \0\x1a\0" and d[23:] == (7400).to_bytes(4, "little") else 1)' "$fbx"
    run validate "$fbx"
    check "$name: validate has nothing to say about the FBX ($(cat "$out"))" \
        grep -qx "$fbx: 0 errors, 0 warnings" "$out"
    a=$(counts "$f")
    b=$(counts "$fbx")
    check "$name: same joints, meshes, animations, triangles ($a vs $b)" [ "$a" = "$b" ]
done

# The pose of guy.iqm's "dance" at frame 30 (joint model matrices by
# name), read from the IQM and from its FBX, which faces FBX's front (-Y)
# where the IQM faces IQM's (+X): a quarter turn clockwise about Z,
# R = (x, y, z) -> (y, -x, z), so that every FBX matrix is R M R^-1.
if [ -f "$shared/data/iqm/guy.iqm" ]; then
    "$OSSA_CLI" pose --json --anim dance --frame 30 "$shared/data/iqm/guy.iqm" >"$tmp/a.json"
    "$OSSA_CLI" pose --json --anim dance --frame 30 "$tmp/guy.fbx" >"$tmp/b.json"
    check "guy.iqm: the same pose at dance frame 30 from IQM and FBX, turned" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
R = [[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
def turned(m):
    A = [[m[c * 4 + r] for c in range(4)] for r in range(4)]
    RA = [[sum(R[i][k] * A[k][j] for k in range(4)) for j in range(4)] for i in range(4)]
    B = [[sum(RA[i][k] * R[j][k] for k in range(4)) for j in range(4)] for i in range(4)]
    return [B[r][c] for c in range(4) for r in range(4)]
ma = {j["name"]: turned(j["model"]) for j in a["joints"]}
mb = {j["name"]: j["model"] for j in b["joints"]}
worst = max(abs(x - y) for n in ma for x, y in zip(ma[n], mb[n]))
print("largest difference", worst)
sys.exit(0 if set(ma) == set(mb) and worst < 1e-4 else 1)' "$tmp/a.json" "$tmp/b.json"
    expect_rc 0 "-o - writes FBX to standard output" convert "$shared/data/iqm/guy.iqm" --format fbx -o -
    check "the standard output is the same file" cmp -s "$out" "$tmp/guy.fbx"
fi

# Images: embedded by default, beside with --images beside.
cesium=$shared/data/gltf/CesiumMan.glb
if [ -f "$cesium" ]; then
    mkdir -p "$tmp/beside"
    expect_rc 0 "CesiumMan to FBX, images beside" convert "$cesium" -o "$tmp/beside/c.fbx" --images beside
    images=$(find "$tmp/beside" -name '*.jp*g' -o -name '*.png' | wc -l)
    check "the texture is written beside the FBX ($images files)" [ "$images" -eq 1 ]
    check "the embedded FBX is larger by the image" python3 -c '
import os, sys
sys.exit(0 if os.path.getsize(sys.argv[1]) > os.path.getsize(sys.argv[2]) + 100000 else 1)' \
        "$tmp/CesiumMan.fbx" "$tmp/beside/c.fbx"
    run info "$tmp/CesiumMan.fbx"
    check "the embedded image is read back" grep -q "ossa.image:" "$out"
fi

# assimp reads what ossa writes: its node tree holds every joint (nodes
# that are not meshes, below RootNode), and as many meshes.
if command -v assimp >/dev/null 2>&1; then
    for f in "${inputs[@]}"; do
        name=$(basename "$f")
        fbx=$tmp/${name%.*}.fbx
        want=$("$OSSA_CLI" info --json "$fbx" | python3 -c 'import json, sys
d = json.load(sys.stdin); print(d["joints"], len(d["meshes"]))')
        got=$(timeout 120 assimp info "$fbx" 2>/dev/null | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
meshes = next(int(l.split()[1]) for l in lines if l.startswith("Meshes:") and l.split()[1].isdigit())
tree = lines[lines.index("Node hierarchy:") + 2:]
nodes = [l for l in tree if "\u2574" in l]
joints = sum(1 for l in nodes if "(mesh" not in l)
print(joints, meshes)')
        check "assimp reads $name's FBX to the same joints and meshes ($want vs $got)" [ "$want" = "$got" ]
    done
else
    skip_part "assimp is not installed (Debian assimp-utils)"
fi

summary
