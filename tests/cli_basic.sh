#!/usr/bin/env bash
# Basic checks of the ossa command-line tool: exit codes, messages, JSON
# output, conversion, merging and the demo. Run by ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (real model files in data/)
#   OSSA_TEST_TMP   a scratch directory
# The checks on real files are skipped when ../shared/data is missing.
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

# json_valid FILE: python3 -m json.tool accepts it.
json_valid() { python3 -m json.tool "$1" >/dev/null 2>&1; }

no_temp_files() { [ -z "$(find "$tmp" -name '*.tmp.*' -print)" ]; }

# -- Usage ---------------------------------------------------------------------

expect_rc 0 "--version" --version
check "--version prints the version" grep -Eq '^ossa [0-9]+\.[0-9]+\.[0-9]+$' "$out"
expect_rc 0 "--help" --help
check "--help prints usage on stdout" grep -q '^Usage: ossa' "$out"
for cmd in info validate convert demo; do
    expect_rc 0 "$cmd --help" "$cmd" --help
    check "$cmd --help prints usage" grep -q "^Usage: ossa $cmd" "$out"
done
expect_rc 2 "no command"
expect_rc 2 "unknown command" frobnicate
expect_rc 2 "unknown option" info --x some.iqm
check "unknown option message" grep -qF "ossa: unknown option '--x'" "$err"
check "unknown option hint" grep -q -- "--help" "$err"
expect_rc 2 "-o without its argument" convert some.iqm -o
expect_rc 2 "convert without -o" convert some.iqm
expect_rc 2 "info without a file" info

expect_rc 1 "missing file" info "$tmp/no-such-file.iqm"
check "missing file error names it" grep -qF "ossa: $tmp/no-such-file.iqm: " "$err"

# -- Demo (needs no data) ------------------------------------------------------

demo=$tmp/demo
expect_rc 0 "demo -o DIR" demo -o "$demo"
check "demo writes DIR/demo.iqm" test -s "$demo/demo.iqm"
check "demo names the written file" grep -qF "wrote $demo/demo.iqm" "$out"
check "demo prints a summary" grep -q '^joints: 21' "$out"
# The same model in every format ossa writes (ossa --help lists them):
# a file of each one's extension, named on a "wrote" line.
for ext in $("$OSSA_CLI" --help | awk '/^Formats/ {on=1; next} on && NF==0 {exit} on && $2 ~ /w/ {print $3}'); do
    f=$(ls "$demo"/*"$ext" 2>/dev/null | head -1)
    check "demo writes a $ext file" test -s "$f"
    check "demo names its $ext file" grep -qF "wrote $f" "$out"
done
check "demo writes its texture" test -s "$demo/demo_texture.png"
mkdir -p "$tmp/blocked/demo.iqm"
expect_rc 1 "demo where demo.iqm is a directory" demo -o "$tmp/blocked"
check "the error names it" grep -qF "ossa: $tmp/blocked/demo.iqm: " "$err"
expect_rc 0 "validate of the demo" validate "$demo/demo.iqm"
check "validate summary line" grep -qF "$demo/demo.iqm: 0 errors, 0 warnings" "$out"
expect_rc 0 "info --json of the demo" info --json "$demo/demo.iqm"
cp "$out" "$tmp/demo.json"
check "demo JSON parses" json_valid "$tmp/demo.json"
check "demo JSON counts" json_check "$tmp/demo.json" \
    'd["joints"] == 21 and d["meshes"][0]["name"] == "body" and d["meshes"][0]["material"] == "demo_texture.png"'
check "demo JSON animations" json_check "$tmp/demo.json" \
    '[(a["name"], a["frames"], a["framerate"], a["loop"]) for a in d["animations"]] == [("walk", 32, 30, True), ("idle", 60, 15, True)]'

# File names reach the JSON "file" field: quotes, backslashes, control
# characters and invalid UTF-8 must come out as valid JSON.
odd=$tmp/$'we"ird\\na\tme\x01\xff.iqm'
cp "$demo/demo.iqm" "$odd" 2>/dev/null || true
expect_rc 0 "info --json of an oddly named file" info --json "$odd"
check "odd file name is escaped" json_check "$out" \
    'd["file"].endswith("we\"ird\\na\tme\x01\ufffd.iqm")'

# Failed writes: exit 1, no temporary file left, nothing half written.
expect_rc 1 "convert into a missing directory" convert "$demo/demo.iqm" -o "$tmp/missing/out.iqm"
check "missing directory is not created" test ! -e "$tmp/missing"
mkdir -p "$tmp/isdir.iqm"
expect_rc 1 "convert onto a directory" convert "$demo/demo.iqm" -o "$tmp/isdir.iqm"
check "error names the output" grep -qF "ossa: $tmp/isdir.iqm" "$err"
check "no temporary files left" no_temp_files
expect_rc 2 "unknown output extension" convert "$demo/demo.iqm" -o "$tmp/out.unknownext"
check "nothing written for a usage error" test ! -e "$tmp/out.unknownext"
expect_rc 2 "unknown --format" convert "$demo/demo.iqm" -o "$tmp/out.iqm" --format nosuch
expect_rc 2 "unknown --bounds" convert "$demo/demo.iqm" -o "$tmp/out.iqm" --bounds nosuch
expect_rc 0 "--format overrides the extension" convert --format iqm "$demo/demo.iqm" -o "$tmp/demo.bin"
expect_rc 0 "the result reads back" info "$tmp/demo.bin"
check "converted demo keeps its joints" grep -q '^joints: 21' "$out"

# -- Real files ----------------------------------------------------------------

if [ ! -d "$shared/data" ]; then
    skip_part "../shared not found"
else
    guy=$shared/data/iqm/guy.iqm
    guyanim=$shared/data/iqm/guyanim.iqm
    invalid=$shared/data/iqm/invalid/InvalidMeshOffset.iqm
    guy_counts='d["joints"] == 14 and d["vertices"] == 240 and d["triangles"] == 120'
    guy_anims='[(a["name"], a["frames"], a["framerate"]) for a in d["animations"]] == [("jump", 61, 24), ("dance", 61, 24)]'

    expect_rc 0 "info --json guy.iqm" info --json "$guy"
    cp "$out" "$tmp/guy-before.json"
    check "guy.iqm JSON parses" json_valid "$tmp/guy-before.json"
    check "guy.iqm counts" json_check "$tmp/guy-before.json" "$guy_counts"
    check "guy.iqm animations" json_check "$tmp/guy-before.json" "$guy_anims"
    check "loop is a boolean" json_check "$tmp/guy-before.json" \
        'all(a["loop"] is False for a in d["animations"])'
    expect_rc 0 "info FILE --json" info "$guy" --json
    check "option order does not matter" cmp -s "$tmp/guy-before.json" "$out"
    expect_rc 0 "info (text)" info "$guy"
    check "text summary" grep -q '^vertices: 240' "$out"

    expect_rc 0 "info --json of two files" info --json "$guy" "$guyanim"
    check "two files give a JSON array" json_check "$out" \
        'isinstance(d, list) and len(d) == 2 and d[1]["joints"] == 14'

    expect_rc 1 "info of InvalidMeshOffset.iqm" info "$invalid"
    check "error names the file and a byte offset" \
        grep -Eq "^ossa: .*InvalidMeshOffset\.iqm:byte [0-9]+: " "$err"
    check "no output for a failed load" test ! -s "$out"
    expect_rc 1 "validate of InvalidMeshOffset.iqm" validate "$invalid"
    expect_rc 0 "validate guy.iqm" validate "$guy"

    expect_rc 0 "convert guy.iqm" convert "$guy" -o "$tmp/out.iqm"
    expect_rc 0 "info of the converted file" info --json "$tmp/out.iqm"
    check "converted counts match" json_check "$out" "$guy_counts"
    check "converted animations match" json_check "$out" "$guy_anims"
    expect_rc 0 "validate of the converted file" validate "$tmp/out.iqm"

    expect_rc 0 "convert with merging" convert "$guy" "$guyanim" -o "$tmp/merged.iqm"
    expect_rc 0 "info of the merged file" info --json "$tmp/merged.iqm"
    check "merged file has 4 animations" json_check "$out" \
        '[a["name"] for a in d["animations"]] == ["jump", "dance", "jump_2", "dance_2"]'
    check "merged file keeps the mesh" json_check "$out" "$guy_counts"

    expect_rc 1 "convert of a bad input" convert "$invalid" -o "$tmp/bad.iqm"
    check "no output for a bad input" test ! -e "$tmp/bad.iqm"
    check "still no temporary files" no_temp_files
fi

# "-" reads standard input, the format from the content.
"$OSSA_CLI" demo -o "$tmp/stdin-demo" >/dev/null
rc=0; "$OSSA_CLI" info --json - <"$tmp/stdin-demo/demo.iqm" >"$out" 2>"$err" || rc=$?
check "info - reads standard input" test "$rc" = 0
json_check "$out" 'd["format"] == "iqm" and d["joints"] > 0'
# (in a folder of its own, so that neither finds the texture beside it:
# files a model names are looked for beside the file, or for standard
# input in the current folder)
mkdir -p "$tmp/lonely"
cp "$tmp/stdin-demo/demo.iqe" "$tmp/lonely/"
(cd "$tmp/lonely" && "$OSSA_CLI" convert - -o "$tmp/from-stdin.glb" <demo.iqe >/dev/null 2>&1 &&
    "$OSSA_CLI" convert demo.iqe -o "$tmp/from-file.glb" >/dev/null 2>&1)
check "convert - gives the bytes convert FILE gives" cmp -s "$tmp/from-stdin.glb" "$tmp/from-file.glb"
rc=0; printf 'not a model' | "$OSSA_CLI" info - >"$out" 2>"$err" || rc=$?
check "garbage on standard input: exit 1" test "$rc" = 1
check "  the message names standard input" grep -q "^ossa: (standard input):byte 0: unknown file format" "$err"

# info counts distinct positions beside vertices: a cube with a normal per
# face has 24 vertices (corners with their normals) at 8 positions.
python3 - "$tmp/cube.obj" <<'PY'
import itertools, sys
with open(sys.argv[1], "w") as f:
    for x, y, z in itertools.product((0, 1), repeat=3):
        f.write(f"v {x} {y} {z}\n")
    for n in ("1 0 0", "-1 0 0", "0 1 0", "0 -1 0", "0 0 1", "0 0 -1"):
        f.write(f"vn {n}\n")
    # faces of the unit cube by vertex index (x*4 + y*2 + z + 1) and normal
    faces = [((5, 6, 8, 7), 1), ((1, 3, 4, 2), 2), ((3, 7, 8, 4), 3), ((1, 2, 6, 5), 4),
             ((2, 4, 8, 6), 5), ((1, 5, 7, 3), 6)]
    for quad, n in faces:
        f.write("f " + " ".join(f"{v}//{n}" for v in quad) + "\n")
PY
expect_rc 0 "info --json of a cube with face normals" info --json "$tmp/cube.obj"
json_check "$out" 'd["vertices"] == 24 and d["positions"] == 8'
expect_rc 0 "info of the cube" info "$tmp/cube.obj"
check "  says 24 vertices at 8 distinct positions" grep -q "^vertices: 24 (8 distinct positions" "$out"

summary
