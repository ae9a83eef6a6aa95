#!/usr/bin/env bash
# Compressed clips from the command line: `ossa clip-stats` (JSON shape, the
# errors within the bound, a bound given with --error), `ossa pose --error`
# (every joint of every frame within the bound of the float pose, checked
# here in python3 with the same metric), `ossa convert -o X.ossaclip` (the
# same bytes twice, the header's magic and size), and usage errors. Run by
# ctest with OSSA_CLI, OSSA_SHARED_DIR, OSSA_TEST_TMP; checks on guy.iqm are
# skipped when ../shared/data is missing.
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

"$OSSA_CLI" demo -o "$tmp/demo" >/dev/null 2>&1
demo=$tmp/demo/demo.iqm

expect_rc 0 "clip-stats --json" clip-stats --json "$demo"
cp "$out" "$tmp/stats.json"
check "clip-stats JSON keys and errors within the bound" json_check "$tmp/stats.json" \
    'len(d["animations"]) >= 1 and all(set(["name", "raw_bytes", "compressed_bytes", "max_error", "p99_error"]) <= set(a) and a["compressed_bytes"] < a["raw_bytes"] and 0 <= a["p99_error"] <= a["max_error"] <= a["bound"] * (1 + 1e-6) for a in d["animations"])'
expect_rc 0 "clip-stats --error 0.05" clip-stats --json --error 0.05 "$demo"
check "a looser bound: a smaller clip, the bound reported" json_check "$out" \
    'all(a["bound"] == 0.0500000007 or abs(a["bound"] - 0.05) < 1e-9 for a in d["animations"]) and d["animations"][0]["max_error"] <= 0.05'
python3 - "$tmp/stats.json" "$out" <<'PY' && ok || fail "a looser bound gives smaller clips"
import json, sys
a = json.load(open(sys.argv[1]))["animations"]; b = json.load(open(sys.argv[2]))["animations"]
sys.exit(0 if all(y["compressed_bytes"] <= x["compressed_bytes"] for x, y in zip(a, b)) else 1)
PY
expect_rc 0 "clip-stats text" clip-stats "$demo"
check "text names the bits per component" grep -q "bits per component" "$out"
expect_rc 2 "clip-stats --error 0" clip-stats --error 0 "$demo"
expect_rc 2 "clip-stats --error x" clip-stats --error x "$demo"
expect_rc 2 "clip-stats without a file" clip-stats
expect_rc 1 "clip-stats of a missing file" clip-stats "$tmp/missing.iqm"

# convert -o .ossaclip: same bytes twice; the header as documented.
expect_rc 0 "convert -o demo.ossaclip" convert "$demo" -o "$tmp/a.ossaclip" --anim 0
expect_rc 0 "convert again" convert "$demo" -o "$tmp/b.ossaclip" --anim 0
check "the same bytes twice" cmp -s "$tmp/a.ossaclip" "$tmp/b.ossaclip"
python3 - "$tmp/a.ossaclip" <<'PY' && ok || fail "magic, version and size in the header"
import struct, sys
b = open(sys.argv[1], "rb").read()
magic, version, size = b[:8], *struct.unpack_from("<II", b, 8)
sys.exit(0 if magic == b"OSSACLIP" and version == 1 and size == len(b) else 1)
PY
expect_rc 1 "convert -o with an unknown animation" convert "$demo" -o "$tmp/c.ossaclip" --anim nope
check "nothing written on failure" test ! -e "$tmp/c.ossaclip"
expect_rc 2 "convert -o .ossaclip with a bad --error" convert "$demo" -o "$tmp/c.ossaclip" --error -1

# pose --error: every joint within the bound of the float pose at a few
# moments, by the metric (virtual vertices at d along each joint's axes).
if [ -f "$shared/data/iqm/guy.iqm" ]; then
    guy=$shared/data/iqm/guy.iqm
    expect_rc 0 "clip-stats guy" clip-stats --json "$guy"
    cp "$out" "$tmp/guy.json"
    for f in 0 7 13.5 60; do
        expect_rc 0 "pose --frame $f" pose --json --anim jump --frame "$f" "$guy"
        cp "$out" "$tmp/float_$f.json"
        expect_rc 0 "pose --frame $f --error" pose --json --anim jump --frame "$f" --error 0.002 "$guy"
        cp "$out" "$tmp/packed_$f.json"
        python3 - "$tmp/float_$f.json" "$tmp/packed_$f.json" "$tmp/guy.json" <<'PY' && ok || fail "pose --error within the bound at frame $f"
import json, math, sys
a = json.load(open(sys.argv[1]))["joints"]; b = json.load(open(sys.argv[2]))["joints"]
d = json.load(open(sys.argv[3]))["animations"][0]["shell_distance"]
worst = 0
for ja, jb in zip(a, b):
    ma, mb = ja["model"], jb["model"]
    for axis in range(3):
        for s in (-1, 1):
            e = math.sqrt(sum(((ma[12 + r] - mb[12 + r]) + s * d * (ma[axis * 4 + r] - mb[axis * 4 + r])) ** 2 for r in range(3)))
            worst = max(worst, e)
# float model matrices: rounding of about 1e-6 on top of the bound
sys.exit(0 if 0 < worst <= 0.002 * 1.01 + 1e-5 else 1)
PY
    done
    expect_rc 2 "pose --error 0" pose --anim jump --frame 1 --error 0 "$guy"
else
    skip_part "../shared/data not found"
fi

# A clip read back as a model: every command that reads an animation reads
# it (info, pose, render with the model it was made from, convert).
"$OSSA_CLI" demo -o "$tmp/dm" >/dev/null
expect_rc 0 "a clip of the demo's first animation" convert "$tmp/dm/demo.iqm" --anim 0 --error 1e-4 -o "$tmp/dm.ossaclip"
expect_rc 0 "info reads the clip" info --json "$tmp/dm.ossaclip"
cp "$out" "$tmp/clipinfo.json"
"$OSSA_CLI" info --json "$tmp/dm/demo.iqm" >"$tmp/modelinfo.json"
json_check "$tmp/clipinfo.json" 'd["format"] == "ossaclip" and len(d["animations"]) == 1'
check "  its joints, frames and rate are the animation's" python3 - "$tmp/clipinfo.json" "$tmp/modelinfo.json" <<'PY'
import json, sys
c, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a, b = c["animations"][0], m["animations"][0]
sys.exit(0 if c["joints"] == m["joints"] and a["name"] == b["name"] and a["frames"] == b["frames"]
         and a["framerate"] == b["framerate"] else 1)
PY
for t in 0 0.37 1.1; do
    expect_rc 0 "pose of the clip at $t s" pose --json --time "$t" "$tmp/dm.ossaclip"
    cp "$out" "$tmp/cp.json"
    expect_rc 0 "pose of the model at $t s" pose --json --anim 0 --time "$t" "$tmp/dm/demo.iqm"
    cp "$out" "$tmp/mp.json"
    check "  the clip's pose is the model's within the bound (1e-4, and float rounding)" python3 - "$tmp/cp.json" "$tmp/mp.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["joints"]; b = json.load(open(sys.argv[2]))["joints"]
worst = max(abs(x - y) for ja, jb in zip(a, b) for x, y in zip(ja["model"][12:15], jb["model"][12:15]))
sys.exit(0 if len(a) == len(b) and worst <= 1.1e-4 else 1)
PY
done
expect_rc 0 "render the model with the clip" render "$tmp/dm/demo.iqm" "$tmp/dm.ossaclip" --anim 1 --size 64x64 -o "$tmp/withclip.png"
check "  a picture" test -s "$tmp/withclip.png"
expect_rc 0 "convert the model and the clip to glTF" convert "$tmp/dm/demo.iqm" "$tmp/dm.ossaclip" -o "$tmp/withclip.glb"
"$OSSA_CLI" info --json "$tmp/withclip.glb" >"$tmp/withclip.json"
json_check "$tmp/withclip.json" 'len(d["animations"]) == len(json.load(open("'"$tmp/modelinfo.json"'"))["animations"]) + 1'
expect_rc 0 "a clip of a clip" convert "$tmp/dm.ossaclip" -o "$tmp/again.ossaclip"
expect_rc 1 "a clip of a model without animations" convert "$tmp/dm.ossaclip" --drop-anim 0 -o "$tmp/none.ossaclip"
check "  says so" grep -q "the model has none" "$err"

# An unnamed animation is named by its index (as --anim takes it).
printf '# Inter-Quake Export\njoint root -1\npq 0 0 0\nanimation\nframe\npq 0 0 0\nframe\npq 1 0 0\n' >"$tmp/unnamed.iqe"
expect_rc 0 "clip-stats of an unnamed animation" clip-stats "$tmp/unnamed.iqe"
check "  names it by its index" grep -q "^animation 0: 2 frames" "$out"

summary
