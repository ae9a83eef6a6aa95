#!/usr/bin/env bash
# The ossa tool writing binary illEngine files: the option (--ill-encoding,
# -O ill.encoding=, and -W for writing only), the files of a set and their
# magics, text and binary sets of one model dumping alike (the demo model,
# guy.iqm), a text set converted to binary, single files with their
# .illanset, standard output. Run by ctest with
#   OSSA_CLI        path to the ossa binary
#   OSSA_SHARED_DIR path to ../shared (guy.iqm in data/iqm)
#   OSSA_TEST_TMP   a scratch directory
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"

magic() { head -c 8 "$1"; }

# dump_same TEXT-FILES... -- BINARY-FILES...: `ossa dump` of both sets equal
# but for the list of files read.
dump_same() {
    local t=() b=() side=t
    for f in "$@"; do
        if [ "$f" = -- ]; then side=b; continue; fi
        if [ $side = t ]; then t+=("$f"); else b+=("$f"); fi
    done
    "$OSSA_CLI" dump "${t[@]}" | grep -v '^file ' >"$tmp/t.dump"
    "$OSSA_CLI" dump "${b[@]}" | grep -v '^file ' >"$tmp/b.dump"
    cmp -s "$tmp/t.dump" "$tmp/b.dump"
}

# -- The option ---------------------------------------------------------------

expect_rc 0 "ossa formats --json" formats --json
check "ill.encoding is a writing option of illmesh, illskel and illanim" json_check "$out" \
    'all([o["name"] for o in f["write_options"]] == ["ill.encoding"] for f in d if f["name"] in ("illmesh", "illskel", "illanim"))'
check "its choices: text (default) or binary" json_check "$out" \
    '[(o["choices"], o["default"]) for f in d if f["name"] == "illmesh" for o in f["write_options"]] == [(["text", "binary"], "text")]'

# -- The demo model: text and binary read back alike ----------------------------

expect_rc 0 "ossa demo" demo -o "$tmp/demo"
mkdir -p "$tmp/t" "$tmp/b"
expect_rc 0 "demo to text" convert "$tmp/demo/demo.iqm" -o "$tmp/t/demo.illmesh"
expect_rc 0 "demo to binary" convert "$tmp/demo/demo.iqm" -o "$tmp/b/demo.illmesh" --ill-encoding binary
check "the names go to an .illanset" grep -qx "wrote $tmp/b/demo.illanset" "$out"
check "mesh magic ILLMESH1" test "$(magic "$tmp/b/demo.illmesh")" = ILLMESH1
check "skeleton magic ILLSKEL0" test "$(magic "$tmp/b/demo.illskel")" = ILLSKEL0
check "animation magic ILLANIM0" test "$(magic "$tmp/b/demo.illanim")" = ILLANIM0
check "names magic ILANSET0" test "$(magic "$tmp/b/demo.illanset")" = ILANSET0
# ILLMESH1 byte 9 is the group count, byte 8 the feature mask: neither is
# text, so the reader takes them as binary
expect_rc 0 "info of the binary mesh" info --json "$tmp/b/demo.illmesh"
check "the binary mesh reads back" json_check "$out" 'd["format"] == "illmesh" and d["vertices"] > 0'
anims=$(cd "$tmp/t" && ls demo.*.illanim)
tset=("$tmp/t/demo.illmesh" "$tmp/t/demo.illskel" "$tmp/t/demo.illanim")
bset=("$tmp/b/demo.illmesh" "$tmp/b/demo.illskel" "$tmp/b/demo.illanim")
for a in $anims; do tset+=("$tmp/t/$a"); bset+=("$tmp/b/$a"); done
check "demo: text and binary dump alike" dump_same "${tset[@]}" -- "${bset[@]}" "$tmp/b/demo.illanset"
expect_rc 0 "pose of the binary set at 0.3 s" pose --json --time 0.3 "${bset[@]}" "$tmp/b/demo.illanset"
cp "$out" "$tmp/b.json"
expect_rc 0 "pose of the text set at 0.3 s" pose --json --time 0.3 "${tset[@]}"
check "same pose at 0.3 s" cmp -s "$out" "$tmp/b.json"

# -- A text set to binary: -W writes binary and reads the text as it is ----------

mkdir -p "$tmp/tb"
expect_rc 1 "--ill-encoding binary forces the text inputs to be read as binary too" convert \
    "${tset[@]}" -o "$tmp/tb/x.illmesh" --ill-encoding binary
check "nothing written" test -z "$(ls "$tmp/tb")"
expect_rc 0 "-W ill.encoding=binary" convert "${tset[@]}" -o "$tmp/tb/demo.illmesh" -W ill.encoding=binary
check "-W: binary mesh" test "$(magic "$tmp/tb/demo.illmesh")" = ILLMESH1
check "-W: the same files as from the IQM" cmp -s "$tmp/tb/demo.illanset" "$tmp/b/demo.illanset"
expect_rc 0 "--write-option=ill.encoding=binary" convert "$tmp/t/demo.illmesh" -o "$tmp/tb/m.illmesh" \
    --write-option=ill.encoding=binary
check "--write-option: binary mesh" cmp -s "$tmp/tb/m.illmesh" "$tmp/b/demo.illmesh"
expect_rc 0 "-O ill.encoding=binary on binary inputs" convert "${bset[@]}" "$tmp/b/demo.illanset" \
    -o "$tmp/tb/again.illmesh" -O ill.encoding=binary
check "binary to binary: the same mesh" cmp -s "$tmp/tb/again.illmesh" "$tmp/b/demo.illmesh"
expect_rc 2 "-W with a reading option" convert "$tmp/t/demo.illmesh" -o "$tmp/tb/y.illmesh" -W ill.md5_fix=on
check "says it is no writing option" grep -qF "no format has a writing option 'ill.md5_fix'" "$err"
expect_rc 2 "-W without NAME=VALUE" convert "$tmp/t/demo.illmesh" -o "$tmp/tb/y.illmesh" -W
expect_rc 2 "-W on a command that only reads" info -W ill.encoding=binary "$tmp/t/demo.illmesh"
expect_rc 2 "an encoding that is none" convert "$tmp/demo/demo.iqm" -o "$tmp/tb/y.illmesh" --ill-encoding base64

# -- Single files ---------------------------------------------------------------

mkdir -p "$tmp/one"
expect_rc 0 "a binary .illskel" convert "$tmp/demo/demo.iqm" -o "$tmp/one/s.illskel" --ill-encoding binary
check "writes s.illskel and s.illanset" test "$(cd "$tmp/one" && ls | tr '\n' ' ')" = "s.illanset s.illskel "
check "the same skeleton as in the set" cmp -s "$tmp/one/s.illskel" "$tmp/b/demo.illskel"
expect_rc 0 "a binary .illanim" convert "$tmp/demo/demo.iqm" -o "$tmp/one/a.illanim" --ill-encoding binary
check "and its names" test -s "$tmp/one/a.illanset"
expect_rc 0 "a binary mesh alone to standard output" convert "$tmp/t/demo.illmesh" -o - --format illmesh \
    -W ill.encoding=binary
check "standard output: the set's mesh" cmp -s "$out" "$tmp/b/demo.illmesh"
expect_rc 1 "a binary skeleton to standard output" convert "$tmp/demo/demo.iqm" -o - --format illskel \
    --ill-encoding binary
check "standard output: the skeleton and its names are two files" \
    grep -qF "this output is 2 files" "$err"

# -- A shared model -------------------------------------------------------------

if [ -f "$shared/data/iqm/guy.iqm" ]; then
    mkdir -p "$tmp/gt" "$tmp/gb"
    expect_rc 0 "guy to text" convert "$shared/data/iqm/guy.iqm" -o "$tmp/gt/guy.illmesh"
    expect_rc 0 "guy to binary" convert "$shared/data/iqm/guy.iqm" -o "$tmp/gb/guy.illmesh" \
        -O ill.encoding=binary
    check "guy: text and binary dump alike" dump_same \
        "$tmp/gt/guy.illmesh" "$tmp/gt/guy.illskel" "$tmp/gt/guy.illanim" "$tmp/gt/guy.dance.illanim" -- \
        "$tmp/gb/guy.illmesh" "$tmp/gb/guy.illskel" "$tmp/gb/guy.illanim" "$tmp/gb/guy.dance.illanim" \
        "$tmp/gb/guy.illanset"
    # 61 frames at 24 fps: 61 keys per channel, the last at 60/24 s, and a
    # duration of 61/24 s
    check "guy: 61 frames at 24 fps read back" sh -c \
        "'$OSSA_CLI' info '$tmp/gb/guy.illanim' | grep -q '61 frames at 24 fps'"
else
    skip_part "$shared/data not found"
fi

summary
