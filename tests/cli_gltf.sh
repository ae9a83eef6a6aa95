#!/usr/bin/env bash
# The ossa tool on glTF: messages for files that are not what their name
# says, the skin warning, images (beside, inside, none; IQM-style materials),
# animation channels for players that switch actions, references outside
# the model's folder. Run by ctest with
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
