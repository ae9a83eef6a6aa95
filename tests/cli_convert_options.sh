#!/bin/bash
# ossa convert's IQM SDK options (per input: --name --fps --loop --start
# --end; whole model: --scale --meshtrans --rotate --forcejoints, comma
# lists) and its animation edits (--drop-anim --rename-anim --resample).
# Results are read back as IQE text and checked against values computed
# here from the unconverted model. Run by ctest.
. "$(dirname "$0")/cli_common.bash"

cd "$tmp" || exit 1
expect_rc 0 "demo" demo -o d
demo=d/demo.iqm
expect_rc 0 "the demo as IQE" convert "$demo" -o plain.iqe

# iqe FILE: vertices, normals, joints and animations as JSON for python.
iqe_json() {
    python3 - "$1" <<'EOF'
import json, sys
d = {"vp": [], "vn": [], "joints": [], "anims": []}
frame = None
for line in open(sys.argv[1]):
    w = line.split()
    if not w: continue
    if w[0] == "vp": d["vp"].append([float(x) for x in w[1:4]])
    elif w[0] == "vn": d["vn"].append([float(x) for x in w[1:4]])
    elif w[0] == "joint": d["joints"].append({"name": w[1].strip('"'), "pq": None})
    elif w[0] == "animation": d["anims"].append({"name": w[1].strip('"'), "frames": [], "fps": None, "loop": False})
    elif w[0] == "framerate": d["anims"][-1]["fps"] = float(w[1])
    elif w[0] == "loop": d["anims"][-1]["loop"] = True
    elif w[0] == "frame": d["anims"][-1]["frames"].append([])
    elif w[0] == "pq":
        pq = [float(x) for x in w[1:]]
        if d["anims"]: d["anims"][-1]["frames"][-1].append(pq)
        else: d["joints"][-1]["pq"] = pq
print(json.dumps(d))
EOF
}
iqe_json plain.iqe >plain.json

# py EXPRESSION-PROGRAM: python with `load(name)` (the JSON of name.iqe)
# and `close(a, b, tol)`, passing when it sets ok.
py() {
    python3 -c '
import json, math, sys
def load(n): return json.load(open(n + ".json"))
def close(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b)) and len(a) == len(b)
ok = False
exec(sys.argv[1])
sys.exit(0 if ok else 1)' "$1"
}

convert_iqe() { # NAME ARGS...: convert to NAME.iqe and NAME.json
    local name=$1
    shift
    expect_rc 0 "convert to $name" convert "$@" -o "$name.iqe"
    iqe_json "$name.iqe" >"$name.json"
}

# -- Per input --------------------------------------------------------------

# demo.iqm has "walk" (32 frames at 30 fps) and "idle" (60 at 15), both
# looping; once.iqe is its idle alone without the IQE "loop" line, so that
# it plays once.
expect_rc 0 "the idle alone" convert "$demo" --drop-anim walk -o idle.iqe
sed '/^\tloop$/d' idle.iqe >once.iqe
iqe_json once.iqe >once.json
check "once.iqe plays once" py 'ok = [(a["name"], a["loop"]) for a in load("once")["anims"]] == [("idle", False)]'

expect_rc 0 "--drop-anim by name" convert "$demo" --drop-anim idle -o one.iqm
convert_iqe one one.iqm
check "--drop-anim leaves walk alone" py 'ok = [a["name"] for a in load("one")["anims"]] == ["walk"]'

# --end -3 keeps frames up to 32 - 3 + 1 = 30 (iqm.md §15), so frames
# 2..30 of walk: 29 frames; they apply to one.iqm only.
convert_iqe per "$demo" --name stroll --fps 12 --start 2 --end -3 one.iqm
check "per-input options: the first input untouched, the second trimmed, renamed, retimed" py '
p, d, o = load("per"), load("plain"), load("one")
a = p["anims"]
ok = [x["name"] for x in a] == ["walk", "idle", "stroll"] and a[0]["frames"] == d["anims"][0]["frames"]
w = a[2]
ok = ok and len(w["frames"]) == 29 and w["fps"] == 12 and w["loop"]
ok = ok and w["frames"][0] == o["anims"][0]["frames"][2] and w["frames"][28] == o["anims"][0]["frames"][30]'

convert_iqe loop --loop --start 5 --end 9 --fps 7.5 "$demo" once.iqe
check "--loop --start 5 --end 9 apply to every animation of the input" py '
p, d = load("loop"), load("plain")
ok = [a["name"] for a in p["anims"]] == ["walk", "idle", "idle_2"]
ok = ok and all(len(a["frames"]) == 5 and a["loop"] and a["fps"] == 7.5 for a in p["anims"][:2])
ok = ok and p["anims"][1]["frames"][0] == d["anims"][1]["frames"][5]
ok = ok and len(p["anims"][2]["frames"]) == 60 and not p["anims"][2]["loop"]'
convert_iqe looped --loop once.iqe
check "--loop makes an animation that played once loop" py '
ok = [(a["name"], a["loop"]) for a in load("looped")["anims"]] == [("idle", True)]'

expect_rc 1 "--name on an input with two animations" convert --name x "$demo" -o bad.iqm
check "--name lists the animations" grep -q "it has 2: walk, idle" "$err"
expect_rc 2 "--name after the last input" convert "$demo" -o bad.iqm --name x
check "says it applies to the next input" grep -q "applies to the input file that follows it" "$err"
expect_rc 2 "--start negative" convert --start -1 "$demo" -o bad.iqm
expect_rc 2 "--end not a number" convert --end x "$demo" -o bad.iqm
expect_rc 1 "--start past the end" convert --start 70 "$demo" -o bad.iqm
check "--start past the end names the range" grep -q "no frame of 0 to 31" "$err"
expect_rc 2 "--fps 0" convert --fps 0 "$demo" -o bad.iqm
expect_rc 0 "a model without animations" convert "$demo" --drop-anim 0 --drop-anim 1 -o static.iqe
expect_rc 0 "per-input options on a file without animations warn" convert --name x static.iqe -o w.iqm
check "the warning" grep -q "static.iqe: warning: it has no animation" "$err"

# -- Whole model ---------------------------------------------------------------

# Scale 2 then 1.5 (cumulative: 3), turn 90 degrees about Z ((x, y, z) ->
# (-y, x, z)), then move the mesh only by (1, 2, 3).
convert_iqe moved "$demo" -s 2 --scale 1.5 --rotate 0,0,90 -t 1,2,3
check "scale, rotate, then translate the mesh" py '
p, d = load("moved"), load("plain")
ok = len(p["vp"]) == len(d["vp"])
for a, b in zip(d["vp"], p["vp"]):
    want = [-3 * a[1] + 1, 3 * a[0] + 2, 3 * a[2] + 3]
    ok = ok and close(b, want, 1e-5)
for a, b in zip(d["vn"], p["vn"]):
    ok = ok and close(b, [-a[1], a[0], a[2]], 1e-6)'
check "joints: translations times 3, the root turned" py '
p, d = load("moved"), load("plain")
s = math.sqrt(0.5)
r, t = p["joints"][0]["pq"], d["joints"][0]["pq"]
ok = close(r[:3], [-3 * t[1], 3 * t[0], 3 * t[2]], 1e-5) and (close(r[3:7], [0, 0, s, s], 1e-6) or close(r[3:7], [0, 0, -s, -s], 1e-6))
ok = ok and close(p["joints"][1]["pq"][:3], [3 * x for x in d["joints"][1]["pq"][:3]], 1e-6)
ok = ok and close(p["joints"][1]["pq"][3:7], d["joints"][1]["pq"][3:7], 1e-6)
f = p["anims"][0]["frames"][3][1]
g = d["anims"][0]["frames"][3][1]
ok = ok and close(f[:3], [3 * x for x in g[:3]], 1e-5)'
convert_iqe z "$demo" --meshtrans 5
check "--meshtrans with one number moves along Z" py '
ok = all(close(b, [a[0], a[1], a[2] + 5], 1e-6) for a, b in zip(load("plain")["vp"], load("z")["vp"]))'
convert_iqe xy "$demo" --meshtrans 1,-2
check "--meshtrans with two numbers is X,Y" py '
ok = all(close(b, [a[0] + 1, a[1] - 2, a[2]], 1e-6) for a, b in zip(load("plain")["vp"], load("xy")["vp"]))'
expect_rc 2 "--scale 0" convert "$demo" --scale 0 -o bad.iqm
expect_rc 2 "--meshtrans with four numbers" convert "$demo" -t 1,2,3,4 -o bad.iqm
expect_rc 2 "--rotate with two numbers" convert "$demo" -r 1,2 -o bad.iqm

# Comma lists join meshes sharing a skeleton.
convert_iqe twice "$demo,plain.iqe"
check "a comma list joins the meshes" py '
p, d = load("twice"), load("plain")
ok = p["vp"] == d["vp"] + d["vp"] and len(p["joints"]) == 21'
expect_rc 1 "a comma list with a missing file" convert "$demo,nosuch.iqe" -o bad.iqm
check "names the missing file" grep -q "nosuch.iqe" "$err"
expect_rc 1 "an empty name in a comma list" convert "$demo,,plain.iqe" -o bad.iqm
cp "$demo" "a,b.iqm"
expect_rc 0 "a file whose name has a comma" convert "a,b.iqm" -o comma.iqm

# -- Animation edits -------------------------------------------------------------

convert_iqe edits "$demo" --drop-anim 0 --rename-anim idle=rest
check "--drop-anim by index, then --rename-anim" py '
ok = [a["name"] for a in load("edits")["anims"]] == ["rest"]'
expect_rc 1 "--drop-anim of an unknown animation" convert "$demo" --drop-anim nope -o bad.iqm
check "lists the animations" grep -q "the animations are: walk (0), idle (1)" "$err"
expect_rc 1 "--rename-anim to a name in use" convert "$demo" --rename-anim walk=idle -o bad.iqm
expect_rc 2 "--rename-anim without =" convert "$demo" --rename-anim walk -o bad.iqm

# Resampling: walk loops (32 frames at 30 fps -> 64 at 60), the idle of
# once.iqe plays once (60 at 15 fps: 59 steps -> 236 steps, 237 frames).
# Every second frame of the new walk is an old frame, exactly, and the
# one-shot idle keeps its last frame.
convert_iqe resampled "$demo" --drop-anim idle once.iqe --resample 60
check "--resample keeps the duration" py '
p, d, o = load("resampled"), load("plain"), load("once")
w, b = p["anims"]
ok = len(w["frames"]) == 64 and w["fps"] == 60 and len(b["frames"]) == 237
ok = ok and all(w["frames"][2 * k] == d["anims"][0]["frames"][k] for k in range(32))
ok = ok and b["frames"][236] == o["anims"][0]["frames"][59] and b["frames"][4] == o["anims"][0]["frames"][1]'

# -- Animation-only inputs: --forcejoints ----------------------------------------

if [ -d "$shared/data/iqm" ]; then
    anim=$shared/data/iqm/guyanim.iqm
    num_joints() { python3 -c 'import struct, sys; print(struct.unpack_from("<I", open(sys.argv[1], "rb").read(), 68)[0])' "$1"; }
    expect_rc 0 "animation-only" convert "$anim" -o ga.iqm
    check "no joints written" test "$(num_joints ga.iqm)" -eq 0
    expect_rc 0 "--forcejoints" convert "$anim" --forcejoints -o gaj.iqm
    check "--forcejoints writes the 14 joints" test "$(num_joints gaj.iqm)" -eq 14
else
    skip_part "$shared/data not found: --forcejoints is not checked"
fi

summary
