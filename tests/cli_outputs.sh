#!/bin/bash
# Where ossa convert writes and what it says: devices and FIFOs are written
# into, never replaced; -o - is standard output; missing directories and
# directory outputs are named; outputs of several files refuse to replace
# files without --force and list what they wrote; formats that cannot hold
# part of a model say so; --anim where it changes nothing is a warning.
# Also ossa pose's frame range. Run by ctest.
. "$(dirname "$0")/cli_common.bash"

cd "$tmp" || exit 1
expect_rc 0 "demo" demo -o d
demo=d/demo.iqm
has() { grep -qF -- "$2" "$1"; }

# -- Standard output -------------------------------------------------------------

expect_rc 0 "a file" convert "$demo" -o file.glb
run convert "$demo" -o - --format glb
check "-o - exits 0" test "$rc" -eq 0
check "-o - writes the same bytes to standard output" cmp -s "$out" file.glb
check "-o - creates no file named -" test ! -e ./-
run convert "$demo" -o - --format gltf
check "a .gltf on standard output embeds its buffer" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["buffers"][0]["uri"].startswith("data:") else 1)' "$out"
expect_rc 2 "-o - needs --format" convert "$demo" -o -
expect_rc 1 "-o - refuses a format of several files" convert "$demo" -o - --format illmesh
check "says why" has "$err" "standard output takes one"
check "and writes nothing" test ! -s "$out"

# -- Devices, FIFOs, directories --------------------------------------------------

mkfifo fifo
cat fifo >from_fifo &
reader=$!
expect_rc 0 "into a FIFO" convert "$demo" -o fifo --format glb
wait "$reader"
check "the FIFO received the file" cmp -s from_fifo file.glb
check "the FIFO is still a FIFO" test -p fifo

# A private /dev/full (making one needs root): ENOSPC, and the device stays.
if mknod full c 1 7 2>/dev/null; then
    expect_rc 1 "a full device" convert "$demo" -o full --format glb
    check "the error is the device's" has "$err" "No space left on device"
    check "the device is still a device" test -c full
    rm -f full
else
    echo "note: cannot make a device node here; /dev/full is not checked"
fi

expect_rc 1 "a missing directory" convert "$demo" -o nodir/out.glb
check "names the directory" has "$err" "the directory 'nodir' does not exist"
mkdir somedir
expect_rc 1 "a directory as the output" convert "$demo" -o somedir --format glb
check "says it is a directory" has "$err" "the output 'somedir' is a directory"
check "nothing left in it" test -z "$(ls -A somedir)"

# -- Outputs of several files ------------------------------------------------------

expect_rc 0 "illEngine: four files" convert "$demo" -o x.illmesh
check "one wrote line per file" test "$(grep -c '^wrote ' "$out")" -eq 4
check "the files listed" has "$out" "wrote x.idle.illanim"
# One rule for one file and several: existing files are replaced, unless
# --no-clobber, which refuses to replace any, writing nothing.
cp x.illskel x.illskel.before
printf 'old' >x.illskel
expect_rc 0 "again: the files are replaced" convert "$demo" -o x.illmesh
check "  x.illskel with them" cmp -s x.illskel x.illskel.before
printf 'old' >x.illskel
expect_rc 1 "--no-clobber refuses" convert "$demo" -o x.illmesh --no-clobber
check "names the existing files" has "$err" "x.illmesh, x.illskel, x.illanim and 1 more already exist"
check "says what would replace them" has "$err" "without --no-clobber they are replaced"
check "nothing replaced" test "$(cat x.illskel)" = old
expect_rc 0 "--force is still taken" convert "$demo" -o x.illmesh --force
expect_rc 2 "--force with --no-clobber" convert "$demo" -o x.illmesh --force --no-clobber
expect_rc 0 "one file" convert "$demo" -o file.glb
printf 'old' >file.glb
expect_rc 0 "one file is replaced" convert "$demo" -o file.glb
check "  the new bytes" test "$(head -c 4 file.glb)" = glTF
printf 'old' >file.glb
expect_rc 1 "one file with --no-clobber" convert "$demo" -o file.glb -n
check "  not replaced" test "$(cat file.glb)" = old

# -- What a format cannot hold ----------------------------------------------------

expect_rc 0 "the demo's counts" info "$demo"
vertices=$(sed -n 's/^vertices: \([0-9]*\).*/\1/p' "$out")
triangles=$(sed -n 's/^triangles: //p' "$out")
expect_rc 0 "model to .skb" convert "$demo" -o d.skb
check "the mesh stays behind" has "$err" "d.skb: warning: skb files hold no mesh: 1 mesh ($vertices vertices, $triangles triangles) not written"
check "so does the texture" has "$err" "d.skb: warning: skb files hold no image: 1 image not written"
check "the animations stay behind" has "$err" "d.skb: warning: skb files hold no animation: 2 animations not written"
expect_rc 0 "model to .nmo" convert "$demo" -o d.nmo
check "the skeleton stays behind" has "$err" "nmo files hold no skeleton: 21 joints not written"
if [ -f "$shared/data/gltf/Fox.glb" ]; then
    expect_rc 0 "Fox.glb to .skb" convert "$shared/data/gltf/Fox.glb" -o f.skb
    check "Fox: mesh and animations not written" has "$err" "skb files hold no animation: 3 animations not written"
else
    skip_part "$shared/data not found: Fox.glb is not checked"
fi

# --anim: a warning where the format holds every animation.
expect_rc 0 "--anim for .glb" convert "$demo" --anim idle -o a.glb
check "is ignored with a warning" has "$err" "warning: --anim is ignored: glb files hold every animation"
expect_rc 0 "an unknown --anim for .glb" convert "$demo" --anim nope -o a.glb
expect_rc 1 "an unknown --anim for .anb" convert "$demo" --anim nope -o a.anb
expect_rc 0 "--anim for .anb" convert "$demo" --anim idle -o a.anb

# -- pose: frames outside the animation ---------------------------------------------

# walk: 32 frames, looping; once.iqe: the idle's 60 frames without the
# IQE "loop" line, so that they play once.
expect_rc 0 "the idle alone" convert "$demo" --drop-anim walk -o idle.iqe
sed '/^\tloop$/d' idle.iqe >once.iqe
expect_rc 1 "a negative frame" pose "$demo" --frame -3
check "lists the range" has "$err" "frame -3 is outside animation 'walk' (32 frames: 0 to 31)"
expect_rc 0 "a negative frame with --loop" pose "$demo" --frame -3 --loop
expect_rc 0 "past the end of a looping animation wraps" pose "$demo" --frame 45
expect_rc 1 "past the end of one that plays once" pose once.iqe --frame 59.5
check "lists its range" has "$err" "outside animation 'idle' (60 frames: 0 to 59)"
expect_rc 0 "its last frame" pose once.iqe --frame 59
expect_rc 0 "past the end with --clamp" pose once.iqe --frame 65 --clamp

summary
