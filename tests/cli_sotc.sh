#!/usr/bin/env bash
# The command line on Shadow of the Colossus files: the demo model written
# as .skb, .nmo and one .anb per animation, then read back together (in
# several orders), converted to IQM, posed and written again. Run by ctest
# with OSSA_CLI (the ossa binary) and OSSA_TEST_TMP (a scratch directory).
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"
cd "$tmp"
# ossa's output goes to ./out and ./err (the checks below name them so).
out=out
err=err

# expect CODE WHAT ARGS...
expect() {
    local want=$1 what=$2
    shift 2
    run "$@"
    if [ "$rc" -eq "$want" ]; then ok; else
        fail "$what: exit $rc, expected $want"
        sed 's/^/  /' err
    fi
}
# has FILE TEXT WHAT
has() {
    if grep -qF -- "$2" "$1"; then ok; else
        fail "$3: '$2' not in $1"
        sed 's/^/  /' "$1"
    fi
}

expect 0 "demo" demo -o .
expect 0 "skeleton" convert demo.iqm -o knight.skb
expect 0 "mesh" convert demo.iqm -o knight.nmo
expect 0 "first animation" convert demo.iqm -o walk.anb
has err "ossa: walk.anb: " "the .anb writer's summary"
has err "largest rotation error" "the .anb writer's summary"
expect 0 "second animation by name" convert demo.iqm --anim idle -o run.anb
expect 1 "unknown animation" convert demo.iqm --anim nope -o x.anb
has err "unknown animation 'nope'" "--anim names the choices"

expect 0 "merge" convert knight.skb knight.nmo walk.anb run.anb -o knight.iqm
expect 0 "info" info --json knight.iqm
has out '"joints": 21' "merged joints"
has out '"walk"' "animation named after walk.anb"
has out '"run"' "animation named after run.anb"
expect 0 "validate" validate knight.skb knight.nmo walk.anb run.anb
expect 0 "pose the merged files" pose knight.skb knight.nmo walk.anb run.anb --anim run --frame 2
has out "run" "posed animation"
expect 0 "mesh first" convert knight.nmo knight.skb walk.anb -o k2.iqm
expect 0 "animations first" convert walk.anb knight.skb knight.nmo -o k3.iqm
expect 0 "bind pose of the skeleton alone" pose knight.skb
has out "bind pose" "pose knight.skb"
has out "pelvis" "joint names in the bind pose"
expect 0 ".anb alone at 24 fps" info walk.anb --fps 24
has out "24 fps" "--fps for .anb"

# The pose of the merged SOTC files matches the original's at one frame
# (rotations within the 9-bit quantization): compare model positions
# relative to the root, whose translation .anb files do not hold (the
# demo's pelvis bobs and sways; the skeleton's bind translation stands in).
expect 0 "original pose" pose demo.iqm --anim 0 --frame 5 --json
cp out a.json
expect 0 "sotc pose" pose knight.iqm --anim 0 --frame 5 --json
cp out b.json
if python3 - a.json b.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def positions(d):
    root = d["joints"][0]["model"][12:15]
    return [[x - r for x, r in zip(j["model"][12:15], root)] for j in d["joints"]]
worst = max(abs(x - y) for pa, pb in zip(positions(a), positions(b)) for x, y in zip(pa, pb))
sys.exit(0 if worst < 0.02 else 1)
PY
then ok; else fail "the posed SOTC files differ from the original"; fi

# Writing back: a skeleton and an animation from the converted file.
expect 0 "iqm to skb" convert knight.iqm -o again.skb
expect 0 "iqm to anb by index" convert knight.iqm --anim 1 -o again.anb
expect 2 "no such format" convert knight.iqm -o x.tex
expect 1 ".nto is read-only" convert knight.iqm -o x.nto
has err "no writer for format 'nto'" "the read-only format is named"

summary
