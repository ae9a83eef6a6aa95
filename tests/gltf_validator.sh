#!/usr/bin/env bash
# Every model file in ../shared/data (IQM, IQE, glTF, OBJ with its
# materials, BVH) and the demo model, converted to .glb, .gltf with a .bin and
# .gltf with an embedded buffer, must pass the Khronos glTF validator with
# no error and no warning; so must glTF files converted to IQM and back,
# an IQE with TGA textures beside it (written as PNG) and a SOTC .nmo with
# its .nto texture. Run by ctest with
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
        "$shared"/data/gltf/*.glb "$shared"/data/obj/*.obj \
        "$shared"/data/bvh/*.bvh; do
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

# The benchmark model of ../shared/bench/gen_big_iqe.py (34 MB of IQE whose
# four materials are named mat0.png .. mat3.png): without its images, the
# glTF files must reference none; with them beside it, they go inside the
# .glb and beside the .gltf.
gen=$shared/bench/gen_big_iqe.py
if [ -f "$gen" ] && command -v python3 >/dev/null 2>&1; then
    mkdir -p "$tmp/big" "$tmp/big_images"
    python3 "$gen" -o "$tmp/big/big.iqe" >/dev/null
    python3 - "$tmp/big_images" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
for k in range(4):
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes([0, 60 * k, 255 - 60 * k, 0, 255]))) + chunk(b"IEND", b"")
    open("%s/mat%d.png" % (sys.argv[1], k), "wb").write(png)
PY
    ln -sf "$tmp/big/big.iqe" "$tmp/big_images/big.iqe"
    for d in big big_images; do
        convert "$tmp/$d/big.iqe" "$tmp/$d/out.glb"
        convert "$tmp/$d/big.iqe" "$tmp/$d/out.gltf"
        convert "$tmp/$d/big.iqe" "$tmp/$d/out_embedded.gltf" --embed
        outputs+=("$tmp/$d/out.glb" "$tmp/$d/out.gltf" "$tmp/$d/out_embedded.gltf")
    done
    if grep -q '"images"' "$tmp/big/out.gltf"; then fail "big.iqe without its images: the .gltf names images"; else ok; fi
    if [ -f "$tmp/big_images/mat3.png" ] && grep -q '"uri":.*"mat3.png"' "$tmp/big_images/out.gltf"; then
        ok
    else
        fail "big.iqe with its images: the .gltf does not name mat3.png"
    fi
else
    skip_part "$gen or python3 missing: the benchmark model is not checked"
fi

# TGA textures (tests/gen_tga.py's files) beside an IQE whose materials
# name them with and without the extension: glTF gets them as PNG.
if command -v python3 >/dev/null 2>&1 && python3 "$here/gen_tga.py" "$tmp/tga_gen" >/dev/null; then
    mkdir -p "$tmp/tga"
    cp "$tmp/tga_gen/rle_mapped8_32_cross_rows.tga" "$tmp/tga/skin.tga"
    cp "$tmp/tga_gen/true16_alpha_bit.tga" "$tmp/tga/face.tga"
    cat >"$tmp/tga/tga.iqe" <<'IQE'
# Inter-Quake Export
mesh body
material skin
vp 0 0 0
vt 0 0
vp 1 0 0
vt 1 0
vp 0 0 1
vt 0 1
fm 0 1 2
mesh face
material face.tga
vp 0 1 0
vt 0 0
vp 1 1 0
vt 1 0
vp 0 1 1
vt 0 1
fm 0 1 2
IQE
    convert "$tmp/tga/tga.iqe" "$tmp/tga/out.glb"
    convert "$tmp/tga/tga.iqe" "$tmp/tga/out.gltf"
    convert "$tmp/tga/tga.iqe" "$tmp/tga/out_embedded.gltf" --embed
    outputs+=("$tmp/tga/out.glb" "$tmp/tga/out.gltf" "$tmp/tga/out_embedded.gltf")
    if grep -q '"uri":.*"skin.png"' "$tmp/tga/out.gltf" && grep -q '"uri":.*"face.png"' "$tmp/tga/out.gltf" &&
        [ -f "$tmp/tga/skin.png" ] && [ -f "$tmp/tga/face.png" ]; then
        ok
    else
        fail "the TGA textures are not beside the .gltf as skin.png and face.png"
    fi
else
    skip_part "python3 tests/gen_tga.py could not run: TGA textures are not checked"
fi

# A SOTC mesh (the demo written as an .nmo) with the .nto texture its
# TEX record names beside it (tests/gen_nto.py): glTF gets it as PNG.
if command -v python3 >/dev/null 2>&1 &&
    python3 "$here/gen_nto.py" texture "$tmp/demo/demo_texture.png.nto" 0x13 64 32 0x01 1; then
    convert "$tmp/demo/demo.iqm" "$tmp/demo/knight.nmo"
    convert "$tmp/demo/knight.nmo" "$tmp/demo/knight.glb"
    convert "$tmp/demo/knight.nmo" "$tmp/demo/knight.gltf"
    if grep -q '"uri":.*"demo_texture.png.png"' "$tmp/demo/knight.gltf" &&
        [ -f "$tmp/demo/demo_texture.png.png" ]; then
        ok
    else
        fail "the .nto texture is not a PNG beside knight.gltf"
    fi
    outputs+=("$tmp/demo/knight.glb" "$tmp/demo/knight.gltf")
else
    skip_part "python3 tests/gen_nto.py could not run: SOTC textures are not checked"
fi

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
