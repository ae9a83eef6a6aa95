#!/usr/bin/env bash
# The ossa tool on glTF: messages for files that are not what their name
# says, rest poses, the armature node, animation sampling, images (beside,
# inside, none; IQM-style materials), animation channels for players that
# switch actions, references outside the model's folder. Run by ctest with
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

# -- Rest pose, armature and sampling (docs/formats/gltf.md §4, §9) --------------
#
# Numbers to compare with come from tests/tools/gltf_eval.py, which evaluates
# the files from the glTF specification alone (nodes, skins, curves).

evaluate() { python3 "$here/tools/gltf_eval.py" "$@"; }

# the position rows (min, max, mean) of a dump against gltf_eval's rest-stats,
# within `tol` of the model's size
dump_matches() { # DUMP STATS TOL
    python3 - "$1" "$2" "$3" <<'PY'
import json, math, sys
rows, pos = {}, False
for line in open(sys.argv[1]):
    if line.startswith("  position "):
        pos = True
    elif pos and line.startswith("    "):
        name, *vals = line.split()
        rows[name] = [float(v) for v in vals]
    elif pos:
        break
want = json.load(open(sys.argv[2]))
size = math.dist(want["min"], want["max"])
worst = max(abs(a - b) for k in ("min", "max", "mean") for a, b in zip(rows[k], want[k]))
print("  rest positions: %.3g of the size off at worst" % (worst / size))
sys.exit(0 if worst <= float(sys.argv[3]) * size else 1)
PY
}

if [ -d "$shared/data/gltf" ]; then
    cesium=$shared/data/gltf/CesiumMan.glb
    # CesiumMan's skin was bound lying down, its nodes stand: both are kept,
    # and nothing is wrong with that (no warning)
    expect_rc 0 "CesiumMan info" info "$cesium"
    check "no warning" test ! -s "$err"
    check "info: the rest pose" grep -qF "rest pose: differs from the bind pose at 1 of 19 joints" "$out"
    # at rest it stands (z is up): its joints span more height than depth
    expect_rc 0 "CesiumMan pose at rest" pose --json "$cesium"
    json_check "$out" 'd["pose"] == "rest" and (lambda z, y: max(z) - min(z) > 2 * (max(y) - min(y)))([j["model"][14] for j in d["joints"]], [j["model"][13] for j in d["joints"]])'
    # a format with one pose: the mesh skinned into the rest pose, where an
    # independent evaluation of the file draws it (facing as in the glTF:
    # IQM's front would turn it a quarter turn)
    expect_rc 0 "CesiumMan to IQM" convert "$cesium" --keep-front -o "$tmp/cesium.iqm"
    check "a note says so" grep -qF "iqm holds one pose: the mesh is skinned into the rest pose, which becomes the bind pose" "$err"
    evaluate rest-stats "$cesium" >"$tmp/cesium_rest.json"
    expect_rc 0 "dump of the IQM" dump "$tmp/cesium.iqm"
    check "IQM vertices where the file draws them at rest" dump_matches "$out" "$tmp/cesium_rest.json" 1e-6
    check "the IQM has no rest pose" test "$(count "rest pose" "$out")" = 0
    # glTF -> glTF keeps both poses; the skeleton hangs from one armature node
    expect_rc 0 "CesiumMan to glb" convert "$cesium" -o "$tmp/cesium.glb"
    check "no note for glTF" test "$(count "one pose" "$err")" = 0
    run dump "$cesium"
    sed -n '/^rest pose/,/^vertices/p' "$out" >"$tmp/rest_a"
    run dump "$tmp/cesium.glb"
    sed -n '/^rest pose/,/^vertices/p' "$out" >"$tmp/rest_b"
    check "the rest pose read back bit for bit" cmp -s "$tmp/rest_a" "$tmp/rest_b"
    check "a rest pose there" test -s "$tmp/rest_a"
    check "an armature node above the root joints" python3 - "$tmp/cesium.glb" <<'PY'
import json, struct, sys
d = open(sys.argv[1], "rb").read()
j = json.loads(d[20:20 + struct.unpack("<I", d[12:16])[0]])
skin = j["skins"][0]
arm = j["nodes"][skin["skeleton"]]
roots = [i for i in skin["joints"] if not any(i in n.get("children", []) for n in j["nodes"])]
sys.exit(0 if arm["name"] == "Armature" and "mesh" not in arm and not roots
          and skin["skeleton"] not in skin["joints"] and skin["skeleton"] in j["scenes"][0]["nodes"]
          and all(k not in arm for k in ("translation", "rotation", "scale", "matrix")) else 1)
PY
    expect_rc 0 "the armature is no joint when read back" info --json "$tmp/cesium.glb"
    json_check "$out" 'd["joints"] == 19 and d["rest_pose_joints"] == 1'

    # Fox's "Run": keys at 24 fps, then 0.8 frame later (a 120 fps grid): its
    # duration is its last key, and between frames every joint stays within
    # 1e-4 of the model's size of the curves
    fox=$shared/data/gltf/Fox.glb
    evaluate duration "$fox" Run >"$tmp/run.json"
    expect_rc 0 "Fox info" info --json "$fox"
    check "Run lasts to its last key" python3 - "$out" "$tmp/run.json" <<'PY'
import json, sys
info, keys = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
run = [a for a in info["animations"] if a["name"] == "Run"][0]
length = (run["frames"] - 1) / run["framerate"]
print("  Run: %d frames at %g fps, %.6f s; last key %.6f s" % (run["frames"], run["framerate"], length, keys["duration"]))
sys.exit(0 if abs(length - keys["duration"]) < 1e-6 and abs(length - 1.1583333) < 1e-6
          and run["sampling"] == "keys on a 120 fps grid" else 1)
PY
    # at every key and halfway between every other pair of frames
    times=$(python3 -c 'import json, sys
k = json.load(open(sys.argv[1]))["keys"]
print(" ".join(["%.9g" % t for t in k] + ["%.9g" % ((f + 0.5) / 120) for f in range(0, 139, 2)]))' "$tmp/run.json")
    evaluate joints "$fox" Run $times >"$tmp/run_joints.json"
    size=$(evaluate size "$fox")
    : >"$tmp/run_poses"
    for t in $times; do
        run pose "$fox" --anim Run --time "$t" --json
        printf '%s ' "$t" >>"$tmp/run_poses"
        python3 -c 'import json, sys; print(json.dumps({j["name"]: j["model"][12:15] for j in json.load(open(sys.argv[1]))["joints"]}))' "$out" >>"$tmp/run_poses"
    done
    check "Run's joints within 1e-4 of the size of the curves" python3 - "$tmp/run_joints.json" "$tmp/run_poses" "$size" <<'PY'
import json, math, sys
want = json.load(open(sys.argv[1]))
worst = 0
for line in open(sys.argv[2]):
    t, got = line.split(" ", 1)
    got = json.loads(got)
    for name, p in want[t].items():
        worst = max(worst, math.dist(p, got[name]))
size = float(sys.argv[3])
print("  Run: %.3g of the model's size (%.2f) off at worst" % (worst / size, size))
sys.exit(0 if worst <= 1e-4 * size else 1)
PY
else
    skip_part "$shared/data not found: rest poses and sampling are not checked"
fi

# -- Images ---------------------------------------------------------------------

# an IQE whose material names an image: embedded in the .glb when the image
# is beside the file, else not referenced at all (one warning)
mkdir -p "$tmp/iqm"
cat >"$tmp/iqm/quad.iqe" <<'EOF'
# Inter-Quake Export
mesh quad
material skin.png
vp 0 0 0
vt 0 1
vp 1 0 0
vt 1 1
vp 0 0 1
vt 0 0
fm 0 1 2
EOF
expect_rc 0 "IQE without its image to glb" convert "$tmp/iqm/quad.iqe" -o "$tmp/iqm/no_image.glb"
check "one warning names the image" test "$(count "'skin.png'" "$err")" = 1
check "no image in the glb" python3 - "$tmp/iqm/no_image.glb" <<'PY'
import json, struct, sys
d = open(sys.argv[1], "rb").read()
j = json.loads(d[20:20 + struct.unpack("<I", d[12:16])[0]])
sys.exit(0 if "images" not in j and j["materials"][0]["extras"]["ossa"]["base_color_texture"] == "skin.png" else 1)
PY
# a real PNG beside it (1x1, made here)
python3 - "$tmp/iqm/skin.png" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00\xff")) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
expect_rc 0 "IQE with its image to glb" convert "$tmp/iqm/quad.iqe" -o "$tmp/iqm/image.glb"
check "no warning" test ! -s "$err"
check "the PNG is inside" python3 - "$tmp/iqm/image.glb" "$tmp/iqm/skin.png" <<'PY'
import json, struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", d[12:16])[0]
j = json.loads(d[20:20 + n])
img = j["images"][0]
v = j["bufferViews"][img["bufferView"]]
at = 20 + n + 8 + v.get("byteOffset", 0)
sys.exit(0 if img["mimeType"] == "image/png" and d[at:at + v["byteLength"]] == open(sys.argv[2], "rb").read() else 1)
PY
expect_rc 0 "--images none" convert "$tmp/iqm/quad.iqe" -o "$tmp/iqm/none.glb" --images none
check "--images none: no image" python3 -c 'import sys; sys.exit(b"image/png" in open(sys.argv[1], "rb").read())' "$tmp/iqm/none.glb"
expect_rc 2 "an unknown --images mode" convert "$tmp/iqm/quad.iqe" -o "$tmp/iqm/x.glb" --images inside
check "the modes are listed" grep -qF "(beside, embed, none)" "$err"
# standard output takes one file: an IQM to it writes no image beside
expect_rc 0 "IQM to standard output" convert "$tmp/iqm/quad.iqe" -o - --format iqm

if [ -d "$shared/data/gltf" ]; then
    # CesiumMan as .gltf: its JPEG beside it, named by uri and listed
    mkdir -p "$tmp/cesium"
    expect_rc 0 "CesiumMan to .gltf" convert "$shared/data/gltf/CesiumMan.glb" -o "$tmp/cesium/cm.gltf"
    check "the image is listed" grep -qF "wrote $tmp/cesium/Cesium_Man-effect.jpg" "$out"
    check "the .gltf names it" json_check "$tmp/cesium/cm.gltf" \
        'd["images"][0]["uri"] == "Cesium_Man-effect.jpg" and d["samplers"][0]["minFilter"] == 9986'
    check "the same bytes as the GLB's image" python3 - "$shared/data/gltf/CesiumMan.glb" \
        "$tmp/cesium/Cesium_Man-effect.jpg" <<'PY'
import json, struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", d[12:16])[0]
j = json.loads(d[20:20 + n])
v = j["bufferViews"][j["images"][0]["bufferView"]]
at = 20 + n + 8 + v.get("byteOffset", 0)
sys.exit(0 if d[at:at + v["byteLength"]] == open(sys.argv[2], "rb").read() else 1)
PY
    # to IQM: the material is the image's name, the image beside
    expect_rc 0 "CesiumMan to IQM" convert "$shared/data/gltf/CesiumMan.glb" -o "$tmp/cesium/cm.iqm"
    check "metallic 0 is said to be lost" \
        grep -qF "metallic and roughness factors of material 'Cesium_Man-effect' not written" "$err"
    expect_rc 0 "info of the IQM" info "$tmp/cesium/cm.iqm"
    check "material named after the image" grep -qF 'material "Cesium_Man-effect.jpg"' "$out"
    # and back to a .glb: the image inside again
    expect_rc 0 "IQM back to glb" convert "$tmp/cesium/cm.iqm" -o "$tmp/cesium/back.glb"
    check "textured again" grep -qF "image/jpeg" "$tmp/cesium/back.glb"
    # --images embed on a .gltf: inside its .bin, no file beside
    mkdir -p "$tmp/embed"
    expect_rc 0 "--images embed" convert "$shared/data/gltf/CesiumMan.glb" -o "$tmp/embed/cm.gltf" \
        --images embed
    check "no image file" test ! -e "$tmp/embed/Cesium_Man-effect.jpg"
    check "a bufferView image" json_check "$tmp/embed/cm.gltf" '"bufferView" in d["images"][0]'
else
    skip_part "$shared/data not found: glTF images are not checked"
fi

# -- Animations for players that switch actions ---------------------------------

if [ -f "$shared/data/iqe/test_cube.iqe" ]; then
    expect_rc 0 "test_cube to glb" convert "$shared/data/iqe/test_cube.iqe" -o "$tmp/cube.glb"
    expect_rc 0 "test_cube to glb, sparse" convert "$shared/data/iqe/test_cube.iqe" \
        -o "$tmp/cube_sparse.glb" --sparse-channels
    check "every action keys translation, rotation and scale" python3 - "$tmp/cube.glb" <<'PY'
import json, struct, sys
d = open(sys.argv[1], "rb").read()
j = json.loads(d[20:20 + struct.unpack("<I", d[12:16])[0]])
sets = [sorted((c["target"]["node"], c["target"]["path"]) for c in a["channels"]) for a in j["animations"]]
ok = all(s == sets[0] for s in sets) and len(sets[0]) == 3
ok = ok and all(a["extras"]["framerate"] == 30 for a in j["animations"])
sys.exit(0 if ok else 1)
PY
    check "sparse: tx keys its translation only" python3 - "$tmp/cube_sparse.glb" <<'PY'
import json, struct, sys
d = open(sys.argv[1], "rb").read()
j = json.loads(d[20:20 + struct.unpack("<I", d[12:16])[0]])
tx = [a for a in j["animations"] if a["name"] == "tx"][0]
sys.exit(0 if [c["target"]["path"] for c in tx["channels"]] == ["translation"] else 1)
PY
else
    skip_part "$shared/data not found: the animation channels are not checked"
fi

# -- References outside the model's folder ----------------------------------------

mkdir -p "$tmp/refs/model"
python3 - "$tmp/refs" <<'PY'
import json, struct, sys
root = sys.argv[1]
open(root + "/secret.bin", "wb").write(struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0))
doc = {"asset": {"version": "2.0"}, "buffers": [{"byteLength": 36, "uri": "../secret.bin"}],
       "bufferViews": [{"buffer": 0, "byteLength": 36}],
       "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
       "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}], "nodes": [{"mesh": 0}]}
json.dump(doc, open(root + "/model/m.gltf", "w"))
PY
expect_rc 1 "a buffer outside the folder" info "$tmp/refs/model/m.gltf"
check "refused, naming the uri" grep -qF "buffers[0].uri: '../secret.bin' is outside the model's folder" "$err"
expect_rc 0 "--allow-parent-paths" info "$tmp/refs/model/m.gltf" --allow-parent-paths
check "read with the option" grep -qF "vertices: 3" "$out"

summary
