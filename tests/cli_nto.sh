#!/usr/bin/env bash
# SOTC .nto textures on the command line: ossa info shows the size, kind
# and levels (the fuzz seeds of fuzz/corpus/nto, a broken file); ossa
# convert x.nto -o x.png writes level 0 or --level N, whose texels (read
# back by a PNG reader written here on Python's zlib) are those that
# tests/gen_nto.py encoded, for every kind, swizzle and level; the demo
# character written as .skb and .nmo with a .nto beside renders in the
# texture's colours and converts to a .glb that embeds it.
# Run by ctest with OSSA_CLI (the ossa binary) and OSSA_TEST_TMP.
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"
seeds="$here/../fuzz/corpus/nto"
cd "$tmp"

# has FILE TEXT WHAT
has() {
    if grep -qF -- "$2" "$1"; then ok; else
        fail "$3: '$2' not in $1"
        sed 's/^/  /' "$1"
    fi
}
expect() { # CODE WHAT ARGS...
    local want=$1 what=$2
    shift 2
    run "$@"
    if [ "$rc" -eq "$want" ]; then ok; else
        fail "$what: exit $rc, expected $want"
        sed 's/^/  /' "$err"
    fi
}

expect 0 "info" info "$seeds/pal4.nto"
has "$out" "format: nto" "format"
has "$out" "width=4 height=4 kind=4bit-palette mips=2 swizzle=0x00" "size and kind"
has "$out" "level 0: 4x4 at 0x20, 8 bytes; level 1: 2x2 at 0x28, 2 bytes" "levels"
has "$out" "joints: 0" "no joints"
has "$out" "ossa.image:pal4.png" "the image"

# 4x16 with the width in the high nibble: the picture tells; the option
# (and its old alias) forces either order.
expect 0 "info, the order by the picture" info "$seeds/pal8_high.nto"
has "$out" "width=4 height=16 kind=8bit-palette" "the smoother order"
has "$out" "width from the high nibble of byte 0x1E (the smoother picture of level 0)" "why"
expect 0 "info, low forced" info --sotc-nto-width low "$seeds/pal8_high.nto"
has "$out" "width=16 height=4 kind=8bit-palette" "the order forced"
expect 0 "info, the old flag" info --nto-swap-size "$seeds/pal8_high.nto"
has "$out" "width=4 height=16" "--nto-swap-size is high"

expect 0 "info --json" info --json "$seeds/rgba32.nto"
has "$out" '"text": "width=2 height=2 kind=rgba32 mips=1' "json text"

# The palette pointer (.rodata 0x100 + header 0x18) moved past the end.
cp "$seeds/pal4.nto" bad.nto
printf '\xf0\xff\x00\x00' | dd of=bad.nto bs=1 seek=$((0x118)) conv=notrunc 2>/dev/null
expect 1 "a bad palette pointer" info bad.nto
has "$err" "bad.nto:byte 280: palette (16 entries)" "the error names the field"

# -- Pictures ------------------------------------------------------------------

if ! python3 -c pass 2>/dev/null; then
    skip_part "python3 not found (tests/gen_nto.py makes the textures)"
    summary
    exit
fi
python3 "$here/gen_nto.py" cases cases

# pngread.py: png_rgba(path) reads an 8-bit RGB or RGBA PNG (every filter);
# run with a list of pairs (a PNG, a picture of u32 w, u32 h, RGBA rows),
# it prints the pairs that differ.
cat >pngread.py <<'PY'
import struct, sys, zlib
def png_rgba(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert zlib.crc32(data[pos + 4:pos + 8 + n]) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (w * bpp + 1)], bytearray(raw[y * (w * bpp + 1) + 1:(y + 1) * (w * bpp + 1)])
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
            line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    px = b"".join(rows)
    if bpp == 3:
        px = b"".join(px[i:i + 3] + b"\xff" for i in range(0, len(px), 3))
    return w, h, px
# Each line of the list file: a PNG and the picture it must hold. Prints
# one line per pair that differs.
if __name__ == "__main__":
    for line in open(sys.argv[1]):
        png, rgba = line.split()
        w, h, px = png_rgba(png)
        want = open(rgba, "rb").read()
        ww, wh = struct.unpack("<II", want[:8])
        if (w, h) != (ww, wh) or px != want[8:]:
            print("%s: %dx%d, expected %dx%d%s" % (png, w, h, ww, wh,
                  ", other texels" if (w, h) == (ww, wh) else ""))
PY

: >pairs
while read -r name kind width height levels swizzle nibbles; do
    for level in 0 $((levels - 1)); do
        if [ "$level" -eq 0 ]; then
            run convert "cases/$name.nto" -o "$name.$level.png"
        else
            run convert "cases/$name.nto" --level "$level" -o "$name.$level.png"
        fi
        if [ "$rc" -eq 0 ]; then ok; else fail "$name level $level: exit $rc"; sed 's/^/  /' "$err"; fi
        echo "$name.$level.png cases/$name.$level.rgba" >>pairs
    done
done <cases/cases.txt
python3 pngread.py pairs >differ
if [ ! -s differ ] && [ "$(wc -l <pairs)" -ge 30 ]; then ok; else
    fail "PNGs that are not the encoder's pictures:"; sed 's/^/  /' differ
fi

expect 1 "a level the texture lacks" convert cases/pal8_swz.nto --level 3 -o x.png
has "$err" "sotc.nto_level 3: the texture has 3 levels (0 to 2)" "the levels are named"
[ ! -e x.png ] && ok || fail "nothing is written after a failure"
expect 2 "--level with a model output" convert cases/pal8_swz.nto --level 1 -o x.iqm
expect 2 "--level out of range" convert cases/pal8_swz.nto --level 15 -o x.png
expect 0 "a .png exists" convert cases/pal4_linear.nto -o z.png
expect 1 "--no-clobber keeps it" convert cases/pal8_swz.nto -o z.png -n
cmp -s z.png pal4_linear.0.png && ok || fail "z.png was replaced"
expect 0 "demo" demo -o demo
# A model's one image is a .png output too (the demo's texture, beside it).
expect 0 "the image of a model" convert demo/demo.iqm -o y.png
cmp -s y.png demo/demo_texture.png && ok || fail "y.png is not the demo's texture"

# -- A textured character --------------------------------------------------------

# The demo's material is "demo_texture.png": its .nmo TEX record names
# the texture file demo_texture.png.nto beside it.
expect 0 "skeleton" convert demo/demo.iqm -o knight.skb
expect 0 "mesh" convert demo/demo.iqm -o knight.nmo
expect 1 "a model without an image" convert knight.skb -o y.png
has "$err" "y.png: the input holds no image to write as PNG" "the reason"
expect 0 "untextured" render knight.skb knight.nmo --size 128x128 -o plain.png
python3 "$here/gen_nto.py" texture demo_texture.png.nto 0x14 128 128 0x01 2
expect 0 "textured" render knight.skb knight.nmo --size 128x128 -o textured.png
# Pure red, green and blue texels show only with the texture (the
# untextured body is one palette colour); .nmo colours of 0x80 halve them.
cat >count.py <<'PY'
import sys
from pngread import png_rgba
w, h, px = png_rgba(sys.argv[1])
hues = set()
for i in range(0, len(px), 4):
    r, g, b = px[i], px[i + 1], px[i + 2]
    for k, (c, o1, o2) in enumerate(((r, g, b), (g, r, b), (b, r, g))):
        if c > 60 and o1 < c // 4 and o2 < c // 4:
            hues.add(k)
print(len(hues))
PY
[ "$(python3 count.py plain.png)" -lt 3 ] && ok || fail "the untextured body shows red, green and blue"
[ "$(python3 count.py textured.png)" -eq 3 ] && ok || fail "the textured body lacks red, green or blue"

expect 0 "to .glb" convert knight.skb knight.nmo -o knight.glb
python3 - <<'PY' && ok || fail "the .glb does not embed the texture"
import json, struct, sys
from pngread import png_rgba
data = open("knight.glb", "rb").read()
n = struct.unpack("<I", data[12:16])[0]
gltf = json.loads(data[20:20 + n])
binary = data[20 + n + 8:]
image = gltf["images"][0]
view = gltf["bufferViews"][image["bufferView"]]
open("embedded.png", "wb").write(binary[view.get("byteOffset", 0):view.get("byteOffset", 0) + view["byteLength"]])
assert image["mimeType"] == "image/png"
w, h, px = png_rgba("embedded.png")
want = open("demo_texture.png.nto.rgba", "rb").read()
sys.exit(0 if (w, h) == struct.unpack("<II", want[:8]) and px == want[8:] else 1)
PY

summary
