#!/usr/bin/env bash
# `ossa render` and the pictures of `ossa demo`: exit codes, the files
# written (PNG and GIF signatures and sizes read from their headers), every
# view and option, identical bytes whatever the number of threads, merged
# inputs. The pixels themselves are checked by tests/test_render*.c. Run by
# ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (guy.iqm, Fox.glb in data/)
#   OSSA_TEST_TMP   a scratch directory
# The checks on shared files are skipped when ../shared/data is missing.
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

# header_size FILE: "WIDTHxHEIGHT" from a PNG's IHDR or a GIF's logical
# screen descriptor, "?" for anything else.
header_size() {
    python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read(32)
if b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR":
    print("%dx%d" % struct.unpack(">II", b[16:24]))
elif b[:6] == b"GIF89a":
    print("%dx%d" % struct.unpack("<HH", b[6:10]))
else:
    print("?")
EOF
}

# gif_frames FILE: the number of image descriptors in a GIF (walks the
# blocks, so it is not fooled by 0x2C bytes inside image data).
gif_frames() {
    python3 - "$1" <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
at = 13
if b[10] & 0x80:
    at += 3 << ((b[10] & 7) + 1)
frames = 0
def skip_blocks(at):
    while b[at]:
        at += b[at] + 1
    return at + 1
while at < len(b) and b[at] != 0x3B:
    if b[at] == 0x21:
        at = skip_blocks(at + 2)
    elif b[at] == 0x2C:
        frames += 1
        flags = b[at + 9]
        at += 10
        if flags & 0x80:
            at += 3 << ((flags & 7) + 1)
        at = skip_blocks(at + 1)
    else:
        break
print(frames)
EOF
}

# expect_picture DESCRIPTION FILE SIZE: FILE exists with that header size.
expect_picture() {
    local got
    got=$(header_size "$2" 2>/dev/null || echo missing)
    if [ "$got" = "$3" ]; then ok; else fail "$1: $2 is '$got', expected $3"; fi
}

# -- Help and usage errors ----------------------------------------------------

expect_rc 0 "render --help" render --help
check "help names --sheet" grep -q -- "--sheet N" "$out"
check "ossa --help lists render" sh -c '"$OSSA_CLI" --help | grep -q "^  render "'

expect_rc 0 "demo" demo -o "$tmp/demo"
for f in demo.png demo_walk.png demo.gif; do
    check "demo prints $f" grep -q "$tmp/demo/$f" "$out"
done
expect_picture "demo still" "$tmp/demo/demo.png" 512x512
expect_picture "demo walk, 16 cells" "$tmp/demo/demo_walk.png" 768x768
expect_picture "demo loop" "$tmp/demo/demo.gif" 320x320
check "demo loop has the 32 frames of 'walk'" test "$(gif_frames "$tmp/demo/demo.gif")" = 32
model=$tmp/demo/demo.iqm

expect_rc 2 "no input" render
expect_rc 2 "--time with --frame" render "$model" --time 1 --frame 2
expect_rc 2 "--gif with --sheet" render "$model" --gif --sheet 4
expect_rc 2 "--gif with --frame" render "$model" --gif --frame 2
expect_rc 2 "unknown view" render "$model" --view diagonal
expect_rc 2 "bad size" render "$model" --size 0x5
expect_rc 2 "size too large" render "$model" --size 9000x10
expect_rc 2 "bad --aa" render "$model" --aa 5
expect_rc 2 "bad --sheet" render "$model" --sheet 0
expect_rc 2 "bad --pitch" render "$model" --pitch 100
expect_rc 2 "bad --distance" render "$model" --distance -1
expect_rc 2 "bad --background" render "$model" --background red
expect_rc 2 "bad --threads" render "$model" --threads 0
expect_rc 2 "--plain with --skeleton" render "$model" --plain --skeleton
expect_rc 2 "unknown option" render "$model" --colour
expect_rc 1 "missing input" render "$tmp/nope.iqm" -o "$tmp/x.png"
expect_rc 1 "unknown animation" render "$model" --anim nope -o "$tmp/x.png"
check "unknown animation lists them" grep -q "walk" "$err"
expect_rc 1 "unwritable output" render "$model" -o "$tmp/no/such/dir/x.png"
check "unwritable output names the file" grep -q "no/such/dir/x.png" "$err"

# A model without animations: a still works, a GIF does not.
printf '# Inter-Quake Export\nmesh tri\nvp 0 0 0\nvp 1 0 0\nvp 0 0 1\nfm 0 2 1\n' >"$tmp/tri.iqe"
expect_rc 0 "still of a static model" render "$tmp/tri.iqe" -o "$tmp/tri.png" --size 40x30
expect_picture "static still" "$tmp/tri.png" 40x30
expect_rc 1 "GIF of a static model" render "$tmp/tri.iqe" --gif -o "$tmp/tri.gif"
check "says there is no animation" grep -q "no animation" "$err"

# -- Outputs ------------------------------------------------------------------

# The default name: the input's, in the current directory.
(cd "$tmp" && "$OSSA_CLI" render "$model" --size 32x32 >/dev/null 2>&1)
expect_picture "default output name" "$tmp/demo.png" 32x32
(cd "$tmp" && "$OSSA_CLI" render "$model" --gif --size 24x24 >/dev/null 2>&1)
expect_picture "default GIF name" "$tmp/demo.gif" 24x24

for view in front side back top 34 three-quarter; do
    for proj in "" --ortho; do
        expect_rc 0 "view $view $proj" render "$model" --view "$view" $proj --size 64x48 \
            -o "$tmp/view-$view$proj.png"
        expect_picture "view $view $proj" "$tmp/view-$view$proj.png" 64x48
    done
done
check "views differ" sh -c "! cmp -s '$tmp/view-front.png' '$tmp/view-side.png'"

i=0
for opts in "--skeleton" "--plain" "--background transparent" "--background 203040" \
    "--background ff00ff80" "--aa 1" "--aa 3" "--aa 4" "--yaw 10 --pitch -20" \
    "--distance 3" "--no-textures" "--anim idle --time 0.5" "--frame 12.5" "--anim 1"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    expect_rc 0 "option $opts" render "$model" $opts --size 48x48 -o "$tmp/opt$i.png"
    expect_picture "option $opts" "$tmp/opt$i.png" 48x48
done
check "a pose differs from the bind pose" sh -c "! cmp -s '$tmp/opt1.png' '$tmp/opt13.png' "

# The same bytes whatever the number of threads.
for n in 1 2 3 8; do
    expect_rc 0 "threads $n" render "$model" --anim walk --frame 9 --skeleton --size 96x80 \
        --threads "$n" -o "$tmp/threads$n.png"
done
for n in 2 3 8; do
    check "threads $n gives the bytes of 1" cmp -s "$tmp/threads1.png" "$tmp/threads$n.png"
done

expect_rc 0 "sheet" render "$model" --anim walk --sheet 6 --size 40x30 -o "$tmp/sheet.png"
expect_picture "sheet of 6 cells, 3 x 2" "$tmp/sheet.png" 120x60
expect_rc 0 "sheet of one" render "$model" --sheet 1 --size 40x30 -o "$tmp/sheet1.png"
expect_picture "sheet of one cell" "$tmp/sheet1.png" 40x30

# An animation that plays once: the demo's idle (60 frames at 15 fps)
# without its IQE "loop" line.
expect_rc 0 "the idle alone" convert "$model" --drop-anim walk -o "$tmp/idle.iqe"
sed '/^\tloop$/d' "$tmp/idle.iqe" >"$tmp/once.iqe"
expect_rc 0 "info of the one-shot idle" info "$tmp/once.iqe"
check "it plays once" grep -q '"idle": 60 frames at 15 fps, once' "$out"
expect_rc 0 "gif" render "$tmp/once.iqe" --gif --size 40x40 -o "$tmp/once.gif"
expect_picture "gif" "$tmp/once.gif" 40x40
check "a one-shot animation gives its 60 frames" test "$(gif_frames "$tmp/once.gif")" = 60
expect_rc 0 "gif at 7.5 fps" render "$tmp/once.iqe" --gif --fps 7.5 --size 40x40 \
    -o "$tmp/once7.gif"
check "frames 0 to 59 at 15 fps are 30 at 7.5 fps" test "$(gif_frames "$tmp/once7.gif")" = 30
expect_rc 0 "transparent gif" render "$model" --gif --background transparent --size 32x32 \
    -o "$tmp/clear.gif"

# -- Real files -----------------------------------------------------------------

if [ -d "$shared/data" ]; then
    guy=$shared/data/iqm/guy.iqm
    expect_rc 0 "guy.iqm dance" render "$guy" --anim dance --frame 30 -o "$tmp/guy.png"
    expect_picture "guy.iqm" "$tmp/guy.png" 512x512
    check "a material without an image is reported" grep -q "Materialcube" "$err"
    expect_rc 0 "guyanim.iqm alone" render "$shared/data/iqm/guyanim.iqm" --time 0.5 --size 64x64 \
        -o "$tmp/guyanim.png"
    expect_rc 0 "guyanim.iqm alone, --skeleton" render "$shared/data/iqm/guyanim.iqm" --time 0.5 \
        --size 64x64 --skeleton -o "$tmp/guyanim-skeleton.png"
    check "a file without triangles shows its bones unasked" cmp -s "$tmp/guyanim.png" \
        "$tmp/guyanim-skeleton.png"
    expect_rc 0 "guy.iqm mesh + guyanim.iqm animations" \
        render "$guy" "$shared/data/iqm/guyanim.iqm" --anim 2 --sheet 4 -o "$tmp/guy-sheet.png"
    expect_picture "merged sheet" "$tmp/guy-sheet.png" 512x512
    expect_rc 0 "Fox.glb" render "$shared/data/gltf/Fox.glb" -o "$tmp/fox.png"
    check "Fox.glb's texture loads quietly" test ! -s "$err"
    expect_rc 0 "CesiumMan.glb (a JPEG texture)" render "$shared/data/gltf/CesiumMan.glb" \
        --size 64x64 -o "$tmp/cesium.png"
    check "the JPEG texture loads (nothing said of the material)" sh -c "! grep -q material '$err'"
else
    skip_part "../shared/data not found"
fi

# png_box FILE BG: "W H" of the box around the pixels that are not the
# background colour BG (RRGGBB), "0 0" for none; png_cell_is FILE X Y W H
# RRGGBBAA: whether that rectangle is all one colour. Both decode the 8-bit
# RGBA PNGs ossa writes (zlib and the five PNG filters).
png_rows() {
    cat <<'EOF'
import struct, sys, zlib
def rows_of(path):
    """Width, height and rows of RGBA bytes of an 8-bit RGB or RGBA PNG."""
    b = open(path, "rb").read()
    w, h, depth, ctype = struct.unpack(">IIBB", b[16:26])
    assert depth == 8 and ctype in (2, 6)
    bpp = 4 if ctype == 6 else 3
    at, idat = 8, b""
    while at < len(b):
        n, kind = struct.unpack(">I4s", b[at:at + 8])
        if kind == b"IDAT":
            idat += b[at + 8:at + 8 + n]
        at += 12 + n
    raw, rows, prev, at = zlib.decompress(idat), [], bytearray(w * bpp), 0
    for y in range(h):
        f, line = raw[at], bytearray(raw[at + 1:at + 1 + w * bpp])
        at += 1 + w * bpp
        for x in range(w * bpp):
            a = line[x - bpp] if x >= bpp else 0
            c = prev[x - bpp] if x >= bpp else 0
            up = prev[x]
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + up) & 255
            elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c
                pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        prev = line
        if bpp == 3:
            line = bytearray(b"".join(bytes(line[3 * i:3 * i + 3]) + b"\xff" for i in range(w)))
        rows.append(line)
    return w, h, rows
EOF
}
png_box() {
    python3 -c "$(png_rows)
w, h, rows = rows_of(sys.argv[1])
bg = bytes.fromhex(sys.argv[2])
pts = [(x, y) for y in range(h) for x in range(w) if bytes(rows[y][4 * x:4 * x + 3]) != bg]
print('%d %d' % ((max(p[0] for p in pts) - min(p[0] for p in pts) + 1,
                  max(p[1] for p in pts) - min(p[1] for p in pts) + 1) if pts else (0, 0)))" "$1" "$2"
}
png_cell_is() {
    python3 -c "$(png_rows)
w, h, rows = rows_of(sys.argv[1])
x0, y0, cw, ch = map(int, sys.argv[2:6])
want = bytes.fromhex(sys.argv[6])
sys.exit(0 if all(bytes(rows[y][4 * x:4 * x + 4]) == want for y in range(y0, y0 + ch)
                  for x in range(x0, x0 + cw)) else 1)" "$@"
}

# The output's name must say what is written.
expect_rc 2 "a still to .jpg" render "$model" -o "$tmp/x.jpg"
check "  says .png is what a still writes" grep -q "does not end in .png" "$err"
expect_rc 2 "a GIF to .png" render "$model" --gif -o "$tmp/x.png"
expect_rc 0 "a GIF to .GIF (any case)" render "$model" --gif --size 16x16 -o "$tmp/x.GIF"

# Empty cells of a sheet take the background: 5 cells in a 3x2 grid.
expect_rc 0 "a sheet with an empty cell" render "$model" --anim 0 --sheet 5 --size 20x20 --plain --background ff0000 -o "$tmp/sheet5.png"
check "  60x40" test "$(header_size "$tmp/sheet5.png")" = 60x40
check "  the empty cell is the background colour" png_cell_is "$tmp/sheet5.png" 40 20 20 20 ff0000ff

# --up y turns a model made Y-up upright: a post 2 long along Y, 0.2 thick.
printf '# Inter-Quake Export\nmesh post\n' >"$tmp/post.iqe"
for p in "-0.1 0 -0.1" "0.1 0 -0.1" "0.1 2 -0.1" "-0.1 2 -0.1" "-0.1 0 0.1" "0.1 0 0.1" "0.1 2 0.1" "-0.1 2 0.1"; do
    printf 'vp %s\n' "$p" >>"$tmp/post.iqe"
done
for f in "0 1 2" "0 2 3" "4 6 5" "4 7 6" "0 4 5" "0 5 1" "3 2 6" "3 6 7" "0 3 7" "0 7 4" "1 5 6" "1 6 2"; do
    printf 'fm %s\n' "$f" >>"$tmp/post.iqe"
done
# (--front -y: the camera of the front view stays at -Y, where the
# sizes below are measured, though IQE's front is +X)
render_box() {
    "$OSSA_CLI" render "$tmp/post.iqe" --front -y --plain --ortho --view front --size 64x64 --background 000000 \
        "$@" -o "$tmp/post.png" >/dev/null 2>&1 && png_box "$tmp/post.png" 000000
}
read -r w0 h0 <<<"$(render_box)"
read -r w1 h1 <<<"$(render_box --up y)"
check "as read, the post lies along the view: seen end-on ($w0 x $h0)" test "$h0" -lt 20
check "--up y stands it up: taller than wide ($w1 x $h1)" test "$h1" -gt $((3 * w1))
read -r w2 h2 <<<"$(render_box --rotate 90,0,0)"
check "--rotate 90,0,0 does what --up y does ($w2 x $h2)" test "$w2 $h2" = "$w1 $h1"
read -r w3 h3 <<<"$(render_box --up y --rotate 0,90,0)"
check "--rotate after --up: about Y it lies across ($w3 x $h3)" test "$w3" -gt $((3 * h3))
expect_rc 2 "--up x is no choice" render "$tmp/post.iqe" --up x -o "$tmp/x.png"

# A glTF character whose skin was bound lying down and whose nodes stand
# (CesiumMan) is drawn standing, at rest, as glTF viewers draw it: from the
# side it is taller than deep (in its bind pose: 48 deep, 36 tall).
if [ -d "$shared/data/gltf" ]; then
    read -r w4 h4 <<<"$("$OSSA_CLI" render "$shared/data/gltf/CesiumMan.glb" --plain --ortho --view side \
        --size 64x64 --background 000000 -o "$tmp/cesium.png" >/dev/null 2>&1 &&
        png_box "$tmp/cesium.png" 000000)"
    check "CesiumMan stands at rest ($w4 x $h4)" test "$h4" -gt $((3 * w4))
fi

# A comma-separated list of meshes, as convert takes it.
cp "$tmp/post.iqe" "$tmp/post2.iqe"
expect_rc 0 "render a comma list" render "$tmp/post.iqe,$tmp/post2.iqe" --size 32x32 -o "$tmp/list.png"
"$OSSA_CLI" convert "$tmp/post.iqe,$tmp/post2.iqe" -o "$tmp/joined.iqe" >/dev/null 2>&1
expect_rc 0 "render the joined file" render "$tmp/joined.iqe" --size 32x32 -o "$tmp/joined.png"
check "  the same picture" cmp -s "$tmp/list.png" "$tmp/joined.png"

summary
