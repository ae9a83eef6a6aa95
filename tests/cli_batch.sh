#!/bin/bash
# ossa convert --each: 200 inputs (copies of the shared samples, models
# generated here, damaged files) converted with -j 1 and with -j 4 give the
# same files byte for byte, the same messages and the same failures; a
# failure does not stop the others and makes the exit status 1. Run by
# ctest.
. "$(dirname "$0")/cli_common.bash"

cd "$tmp" || exit 1
mkdir in
expect_rc 0 "demo" demo -o d
n=0
add() { # FILE NAME: copies FILE to in/NNN_NAME
    cp "$1" "in/$(printf %03d $n)_$2"
    n=$((n + 1))
}

# Shared samples, as they are (the formats' readers decide what fails).
if [ -d "$shared/data" ]; then
    for f in "$shared"/data/{iqm,iqe,gltf,fbx,smd,obj,md5}/*.*; do
        case $f in *.mtl) cp "$f" in/ ;; *) add "$f" "$(basename "$f")" ;; esac
    done
else
    skip_part "$shared/data not found: only generated and damaged inputs"
fi

# The demo in every format ossa reads back as one file.
for f in d/demo.iqm d/demo.iqe d/demo.glb; do add "$f" "$(basename "$f")"; done

# Generated IQE text: chains of 1..8 joints, a quad on the last, one
# animation of 1..6 frames turning each joint; all valid.
python3 - "$n" <<'EOF'
import math, sys
n = int(sys.argv[1])
for k in range(100):
    joints, frames = 1 + k % 8, 1 + k % 6
    lines = ["# Inter-Quake Export", ""]
    for j in range(joints):
        lines.append('joint "j%d" %d' % (j, j - 1))
        lines.append("\tpq 0 0 %g 0 0 0 1" % (0 if j == 0 else 0.5 + 0.01 * k))
    lines += ["", 'mesh "m%d"' % k, '\tmaterial "mat%d"' % (k % 3)]
    for x, y in ((0, 0), (1, 0), (1, 1), (0, 1)):
        lines.append("vp %g %g %g" % (x, y, 0.1 * k))
        lines.append("\tvb %d 1" % (joints - 1))
    lines += ["fm 0 1 2", "fm 0 2 3", "", 'animation "a%d"' % k, "\tframerate %d" % (10 + k)]
    for f in range(frames):
        lines.append("frame")
        a = 0.1 * f * (1 + k % 5)
        for j in range(joints):
            lines.append("\tpq 0 0 %g 0 0 %.6f %.6f" % (0 if j == 0 else 0.5 + 0.01 * k,
                                                        math.sin(a / 2), math.cos(a / 2)))
    open("in/%03d_gen%d.iqe" % (n + k, k), "w").write("\n".join(lines) + "\n")
EOF
n=$((n + 100))

# Damaged: truncated IQM files, random bytes, empty files, IQE with bad
# numbers, and a glTF header over nonsense.
size=$(stat -c %s d/demo.iqm)
for k in $(seq 1 30); do
    head -c $((k * size / 31)) d/demo.iqm >"in/$(printf %03d $n)_cut$k.iqm"
    n=$((n + 1))
done
python3 - "$n" <<'EOF'
import random, sys
n = int(sys.argv[1])
r = random.Random(14)
for k in range(20):
    open("in/%03d_noise%d.iqm" % (n + k, k), "wb").write(bytes(r.randrange(256) for _ in range(64 + 97 * k)))
for k in range(5):
    open("in/%03d_empty%d.iqe" % (n + 20 + k, k), "wb").close()
for k in range(10):
    open("in/%03d_badnum%d.iqe" % (n + 25 + k, k), "w").write(
        '# Inter-Quake Export\njoint "a" -1\n\tpq 0 0 x%d 0 0 0 1\n' % k)
for k in range(5):
    open("in/%03d_glb%d.glb" % (n + 35 + k, k), "wb").write(b"glTF\x02\x00\x00\x00" + bytes([k] * 40))
EOF
n=$((n + 40))

# Top up to exactly 200 with more generated demos (other scales), without
# the demo's texture: outputs that write the same image beside themselves
# into one folder would refuse each other (see below).
while [ "$n" -lt 200 ]; do
    expect_rc 0 "scaled demo $n" convert d/demo.iqm --scale "1.$n" --images none -o "in/$(printf %03d $n)_scaled.iqm"
    n=$((n + 1))
done
inputs=$(find in -maxdepth 1 -type f ! -name '*.mtl' | sort)
check "200 inputs" test "$(echo "$inputs" | wc -l)" -eq 200

# Both runs write to out/ (the wrote lines name it), kept as out1 and out4.
# shellcheck disable=SC2086
run convert --each $inputs --out-dir out --format iqm -j 1
rc1=$rc
mv out out1
cp "$out" out1.stdout
cp "$err" out1.stderr
# shellcheck disable=SC2086
run convert --each $inputs --out-dir out --format iqm -j 4
rc4=$rc
mv out out4
cp "$out" out4.stdout
cp "$err" out4.stderr

check "some inputs fail: exit 1 with -j 1" test "$rc1" -eq 1
check "and with -j 4" test "$rc4" -eq 1
check "the same files, byte for byte" diff -r out1 out4
check "the same wrote lines, in input order" cmp -s out1.stdout out4.stdout
check "the same messages apart from the summary's time" \
    cmp -s <(sed '$d' out1.stderr) <(sed '$d' out4.stderr)
nfailed=$(tail -n 1 out1.stderr | sed -n 's/.*converted, \([0-9]*\) failed.*/\1/p')
converted=$(tail -n 1 out1.stderr | sed -n 's/.*inputs: \([0-9]*\) converted.*/\1/p')
check "the summary counts 200" test "$((nfailed + converted))" -eq 200
check "every damaged input failed, the generated ones did not" python3 - out1 <<'EOF'
import os, sys
made = set(os.listdir(sys.argv[1]))
ok = True
for name in sorted(os.listdir("in")):
    if name.endswith(".mtl"): continue
    stem = name.rsplit(".", 1)[0]
    written = stem + ".iqm" in made
    damaged = any(t in name for t in ("_cut", "_noise", "_empty", "_badnum", "_glb"))
    generated = any(t in name for t in ("_gen", "_scaled", "_demo"))
    if (damaged and written) or (generated and not written):
        print("  unexpected:", name, "written" if written else "not written")
        ok = False
sys.exit(0 if ok else 1)
EOF
check "one wrote line per converted input's model" \
    test "$(grep -c '^wrote out/.*\.iqm$' out1.stdout)" -eq "$converted"
check "no progress line when stderr is not a terminal" test "$(grep -c $'\r' out1.stderr)" -eq 0
check "the last line is the summary" grep -q '^ossa: 200 inputs: [0-9]* converted, [0-9]* failed ([0-9.]* s)$' <(tail -n 1 out1.stderr)

# Two inputs whose outputs share a file (the texture written beside each
# model): the files are written in input order, so with --no-clobber the
# second fails whatever -j is; without it both are written.
if [ -f "$shared/data/gltf/Fox.glb" ]; then
    cp "$shared/data/gltf/Fox.glb" fox1.glb
    cp "$shared/data/gltf/Fox.glb" fox2.glb
    for j in 1 2 4; do
        rm -rf shared_out
        expect_rc 1 "two models, one texture, --no-clobber, -j $j" convert --each fox1.glb fox2.glb --out-dir shared_out --format iqm -j "$j" --no-clobber
        check "-j $j: the first is written" test -f shared_out/fox1.iqm
        check "-j $j: the second is refused" test ! -f shared_out/fox2.iqm
        check "-j $j: it names the file" grep -q "fox_material.png already exist" "$err"
    done
    expect_rc 0 "without --no-clobber both are written" convert --each fox1.glb fox2.glb --out-dir shared_out --format iqm -j 2
    check "the second too" test -f shared_out/fox2.iqm
else
    skip_part "$shared/data not found: the shared-texture batch is not run"
fi

# Inputs that would write one output fail, and only they: the others are
# converted; the message says which option keeps their folders apart.
cp d/demo.iqm again.iqm
mkdir other
cp d/demo.iqm other/again.iqm
cp d/demo.iqe again.iqe
expect_rc 1 "two inputs, one output name, and a third" convert --each again.iqm other/again.iqm d/demo.glb --out-dir out2 --format iqm
check "names both and the way out" grep -qF "other/again.iqm: it and 'again.iqm' would both write 'out2/again.iqm', so neither is converted (--keep-dirs keeps their folders apart under --out-dir)" "$err"
check "neither is written" test ! -e out2/again.iqm
check "the third is" test -f out2/demo.iqm
check "the summary counts them" grep -q "3 inputs: 1 converted, 2 failed" "$err"
expect_rc 0 "--keep-dirs" convert --each --keep-dirs again.iqm other/again.iqm ../cli_batch/d/demo.glb --out-dir out5 --format iqm
check "  the first where it was" test -f out5/again.iqm
check "  the second in its folder" test -f out5/other/again.iqm
check "  .. becomes up/, under --out-dir" test -f out5/up/cli_batch/d/demo.iqm
expect_rc 1 "names that differ only in the extension" convert --each --keep-dirs again.iqm again.iqe --out-dir out6 --format glb
check "  say so" grep -qF "their names differ only in the extension" "$err"
expect_rc 2 "--keep-dirs without --each" convert again.iqm --keep-dirs -o x.glb
expect_rc 2 "--each without --out-dir" convert --each again.iqm -o x.iqm
expect_rc 2 "--out-dir without --format" convert --each again.iqm --out-dir out2

# Per-input options apply to the input that follows them, with --each too.
expect_rc 0 "--each with per-input options" convert --each --fps 5 again.iqm d/demo.glb --out-dir out3 --format iqe
check "the first input's frame rate" grep -q "framerate 5" out3/again.iqe
check "the second keeps its own" test "$(grep -c 'framerate 5$' out3/demo.iqe)" -eq 0

summary
