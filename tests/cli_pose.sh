#!/usr/bin/env bash
# `ossa pose`: exit codes, the JSON shape, and values checked in python3
# against an independent computation (interpolation between frames, model
# matrices composed from the locals, loop and clamp rules). Run by ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (guy.iqm in data/iqm/)
#   OSSA_TEST_TMP   a scratch directory
# The checks on guy.iqm are skipped when ../shared/data is missing.
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

# pose_json NAME ARGS...: runs `ossa pose --json ARGS`, keeps the output in
# $tmp/NAME.json and expects exit 0.
pose_json() {
    local name=$1
    shift
    expect_rc 0 "pose $*" pose --json "$@"
    cp "$out" "$tmp/$name.json"
}

# py SCRIPT: python3 with helpers; the script sets `ok`. JSON is parsed
# strictly: NaN and Infinity are errors.
py() {
    python3 - "$tmp" <<EOF
import json, math, sys
tmp = sys.argv[1]
def strict(x): raise ValueError("non-finite number " + x)
def load(name):
    with open(tmp + "/" + name + ".json", encoding="utf-8") as f:
        return json.load(f, parse_constant=strict)
def qmul(a, b):
    ax, ay, az, aw = a; bx, by, bz, bw = b
    return [aw*bx + ax*bw + ay*bz - az*by, aw*by - ax*bz + ay*bw + az*bx,
            aw*bz + ax*by - ay*bx + az*bw, aw*bw - ax*bx - ay*by - az*bz]
def trs(local):
    x, y, z, w = local["rotation"]; sx, sy, sz = local["scale"]; t = local["translation"]
    r = [[1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)],
         [2*(x*y+w*z), 1-2*(x*x+z*z), 2*(y*z-w*x)],
         [2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)]]
    s = [sx, sy, sz]
    m = [0.0]*16
    for c in range(3):
        for row in range(3): m[c*4+row] = r[row][c]*s[c]
    m[12], m[13], m[14], m[15] = t[0], t[1], t[2], 1.0
    return m
def mul(a, b):
    return [sum(a[k*4+row]*b[c*4+k] for k in range(4)) for c in range(4) for row in range(4)]
def slerp(a, b, t):
    d = sum(x*y for x, y in zip(a, b))
    if d < 0: b = [-x for x in b]; d = -d
    d = min(1.0, d); th = math.acos(d)
    if th < 1e-9: wa, wb = 1-t, t
    else: wa, wb = math.sin((1-t)*th)/math.sin(th), math.sin(t*th)/math.sin(th)
    q = [wa*x + wb*y for x, y in zip(a, b)]; n = math.sqrt(sum(x*x for x in q))
    return [x/n for x in q]
def qclose(a, b, tol):
    return min(max(abs(x-y) for x, y in zip(a, b)), max(abs(x+y) for x, y in zip(a, b))) <= tol
def close(a, b, tol):
    return all(abs(x-y) <= tol*(1+abs(y)) for x, y in zip(a, b))
def same_pose(p, q, tol):
    return all(close(a["local"]["translation"], b["local"]["translation"], tol) and
               qclose(a["local"]["rotation"], b["local"]["rotation"], tol) and
               close(a["local"]["scale"], b["local"]["scale"], tol) and
               close(a["model"], b["model"], tol) for a, b in zip(p["joints"], q["joints"]))
ok = False
$1
sys.exit(0 if ok else 1)
EOF
}

# -- Usage (needs no data) -----------------------------------------------------

expect_rc 0 "pose --help" pose --help
check "pose --help prints usage" grep -q "^Usage: ossa pose" "$out"
expect_rc 0 "ossa --help lists pose" --help
check "pose is listed" grep -q "^  pose " "$out"
expect_rc 2 "pose without a file" pose
expect_rc 2 "--frame and --time together" pose x.iqm --frame 1 --time 1
expect_rc 2 "--loop and --clamp together" pose x.iqm --frame 1 --loop --clamp
expect_rc 2 "--frame not a number" pose x.iqm --frame abc
expect_rc 2 "--time not finite" pose x.iqm --time inf
expect_rc 2 "--time without its value" pose x.iqm --time
expect_rc 1 "missing file" pose "$tmp/no-such.iqm" --frame 0

# The demo model: "idle" loops, 60 frames at 15 fps (4 s, a period that
# seconds give exactly).
expect_rc 0 "demo" demo -o "$tmp/demo"
demo=$tmp/demo/demo.iqm
pose_json demo_bind "$demo"
check "bind pose JSON shape" py '
d = load("demo_bind")
ok = d["animation"] is None and len(d["joints"]) == 21 and all(
    set(j) >= {"name", "parent", "local", "model"} and len(j["model"]) == 16 and
    len(j["local"]["translation"]) == 3 and len(j["local"]["rotation"]) == 4 and
    len(j["local"]["scale"]) == 3 for j in d["joints"])'
pose_json demo_wrap "$demo" --anim idle --time 4.25
pose_json demo_quarter "$demo" --anim idle --time 0.25
check "looping animation wraps past its end" py '
ok = same_pose(load("demo_wrap"), load("demo_quarter"), 0)'
pose_json demo_clamp "$demo" --anim idle --time 4.25 --clamp
pose_json demo_last "$demo" --anim idle --frame 59
check "--clamp holds the last frame" py '
ok = same_pose(load("demo_clamp"), load("demo_last"), 0)'
check "the wrapped and the clamped pose differ" py '
ok = not same_pose(load("demo_wrap"), load("demo_clamp"), 1e-4)'
expect_rc 0 "human output" pose "$demo" --anim idle --frame 3.5
check "human output names the animation" grep -q '^animation: "idle" (1), frame 3.5' "$out"
check "human output has a row per joint" test "$(grep -c '^ *[0-9][0-9]*  ' "$out")" -eq 21

# -- guy.iqm ---------------------------------------------------------------------

if [ ! -d "$shared/data" ]; then
    skip_part "../shared/data not found"
else
    guy=$shared/data/iqm/guy.iqm

    expect_rc 1 "unknown animation" pose "$guy" --anim nosuch --frame 1
    check "unknown animation lists the names" grep -qF "unknown animation 'nosuch'; the animations are: jump (0), dance (1)" "$err"
    expect_rc 1 "animation index out of range" pose "$guy" --anim 2 --frame 1

    pose_json f10 "$guy" --frame 10
    pose_json f11 "$guy" --frame 11
    pose_json f1025 "$guy" --frame 10.25
    check "frame 10.25 interpolates frames 10 and 11" py '
a, b, c = load("f10"), load("f11"), load("f1025")
ok = c["animation"] == "jump" and c["animation_index"] == 0 and c["frame"] == 10.25
for ja, jb, jc in zip(a["joints"], b["joints"], c["joints"]):
    ta, tb = ja["local"]["translation"], jb["local"]["translation"]
    want_t = [x + 0.25 * (y - x) for x, y in zip(ta, tb)]
    want_q = slerp(ja["local"]["rotation"], jb["local"]["rotation"], 0.25)
    ok = ok and close(jc["local"]["translation"], want_t, 1e-6) and qclose(jc["local"]["rotation"], want_q, 1e-6)'
    check "model matrices compose the locals" py '
for name in ("f10", "f1025"):
    d = load(name); world = []
    ok = True
    for j in d["joints"]:
        m = trs(j["local"])
        if j["parent"] >= 0: m = mul(world[j["parent"]], m)
        world.append(m)
        ok = ok and close(j["model"], m, 2e-6)
    if not ok: break'
    check "rotations are unit" py '
ok = all(abs(math.sqrt(sum(x*x for x in j["local"]["rotation"])) - 1) < 1e-6 for j in load("f1025")["joints"])'

    # 24 fps: 0.5 s is frame 12; "dance" by name and by index agree.
    pose_json t05 "$guy" --time 0.5
    pose_json f12 "$guy" --frame 12
    check "--time 0.5 is frame 12 at 24 fps" py '
ok = same_pose(load("t05"), load("f12"), 1e-7) and load("t05")["time"] == 0.5'
    pose_json dance_name "$guy" --anim dance --frame 7.5
    pose_json dance_index "$guy" --anim 1 --frame 7.5
    check "--anim by name and by index" py '
ok = same_pose(load("dance_name"), load("dance_index"), 0) and load("dance_index")["animation"] == "dance"'

    # guy's animations do not loop: past the end clamps, --loop wraps
    # (61 frames at 24 fps last 2.541666 s).
    pose_json late "$guy" --time 10
    pose_json f60 "$guy" --frame 60
    check "non-looping animation clamps" py '
ok = same_pose(load("late"), load("f60"), 0) and load("late")["wrap"] == "clamp"'
    pose_json looped "$guy" --time 3.0416666666666665 --loop
    check "--loop wraps to 0.5 s" py '
ok = same_pose(load("looped"), load("t05"), 1e-6)'
    pose_json seam "$guy" --frame 60.5 --loop
    pose_json f0 "$guy" --frame 0
    check "between the last frame and frame 0 when looping" py '
a, b, c = load("f60"), load("f0"), load("seam")
ok = all(close(jc["local"]["translation"], [x + 0.5*(y - x) for x, y in zip(ja["local"]["translation"], jb["local"]["translation"])], 1e-6)
         for ja, jb, jc in zip(a["joints"], b["joints"], c["joints"]))'
    pose_json negative "$guy" --time -1 --clamp
    check "negative time clamps to frame 0" py 'ok = same_pose(load("negative"), load("f0"), 0)'

    # Bind pose: the joints of `ossa info`.
    pose_json bind "$guy"
    check "bind pose has 14 joints named as in the file" py '
d = load("bind")
ok = d["animation"] is None and [j["name"] for j in d["joints"]][:2] == ["root", "body"] and len(d["joints"]) == 14'
    expect_rc 0 "--anim alone gives the bind pose" pose --json "$guy" --anim dance
    cp "$out" "$tmp/bind2.json"
    check "--anim alone: same as no option" py 'ok = same_pose(load("bind"), load("bind2"), 0)'

    # Merged inputs: guy.iqm + guyanim.iqm has four animations.
    expect_rc 0 "merged inputs" pose --json "$guy" "$shared/data/iqm/guyanim.iqm" --anim 3 --frame 5
    check "merged inputs sample the fourth animation" py '
import json
d = json.load(open(tmp + "/stdout"))
ok = d["animation"] == "dance_2" and d["animation_index"] == 3'
fi

summary
