#!/bin/bash
# `ossa iqm` / `ossa-iqm`: the IQM SDK's command line (iqm OUT.iqm IN...
# [options]) gives the IQM that the same conversion through `ossa convert`
# gives, for each of the SDK's documented usage lines; options anywhere,
# long ones in any case, short ones with the next argument; the SDK's exit
# status (0, or 1 for anything else).
. "$(dirname "$0")/cli_common.bash"

iqm_link=$(dirname "$OSSA_CLI")/ossa-iqm
check "ossa-iqm is built beside ossa" test -x "$iqm_link"

# Inputs of every usage line, made from the demo model (iqe, md5, smd,
# obj) and, when ../shared is here, an FBX.
"$OSSA_CLI" demo -o "$tmp/src" >/dev/null
d=$tmp/src
"$OSSA_CLI" convert "$d/demo.iqm" -o "$tmp/m.iqe" >/dev/null
"$OSSA_CLI" convert "$d/demo.iqm" -o "$tmp/m.md5mesh" >/dev/null
"$OSSA_CLI" convert "$d/demo.iqm" -o "$tmp/m.smd" >/dev/null
"$OSSA_CLI" convert "$d/demo.iqm" -o "$tmp/m.obj" >/dev/null
anims_md5=$(ls "$tmp"/m.*.md5anim | sort)
anims_smd=$(ls "$tmp"/m.*.smd | sort)

# same_as_convert NAME SDK-ARGS... -- CONVERT-ARGS...: both give the same bytes.
same_as_convert() {
    local name=$1
    shift
    local sdk=() conv=()
    while [ "$1" != "--" ]; do sdk+=("$1"); shift; done
    shift
    conv=("$@")
    rm -f "$tmp/sdk.iqm" "$tmp/conv.iqm"
    if "$iqm_link" "$tmp/sdk.iqm" "${sdk[@]}" >"$tmp/sdk.out" 2>"$tmp/sdk.err" &&
        "$OSSA_CLI" convert "${conv[@]}" -o "$tmp/conv.iqm" >/dev/null 2>&1 &&
        cmp -s "$tmp/sdk.iqm" "$tmp/conv.iqm"; then
        ok
    else
        fail "$name: ossa-iqm and ossa convert differ"
        sed 's/^/  /' "$tmp/sdk.err"
    fi
}

# iqm [options] output.iqm mesh.iqe anim1.iqe ... animN.iqe
"$OSSA_CLI" convert "$d/demo.iqm" -o "$tmp/a1.iqe" --drop-anim 1 >/dev/null
same_as_convert "IQE mesh and animations" "$tmp/m.iqe" "$tmp/a1.iqe" -- "$tmp/m.iqe" "$tmp/a1.iqe"
# iqm [options] output.iqm mesh.md5mesh anim1.md5anim ... animN.md5anim
same_as_convert "MD5 mesh and animations" "$tmp/m.md5mesh" $anims_md5 -- "$tmp/m.md5mesh" $anims_md5
# iqm [options] output.iqm mesh.smd anim1.smd ... animN.smd
same_as_convert "SMD reference and animations" "$tmp/m.smd" $anims_smd -- "$tmp/m.smd" $anims_smd
# iqm [options] output.iqm mesh.obj
same_as_convert "OBJ" "$tmp/m.obj" -- "$tmp/m.obj"
# iqm [options] output.iqm mesh.fbx anim1.fbx ... animN.fbx
if [ -f "$shared/data/fbx/huesitos.fbx" ]; then
    same_as_convert "FBX" "$shared/data/fbx/huesitos.fbx" -- "$shared/data/fbx/huesitos.fbx"
else
    skip_part "$shared/data not found: the FBX usage line is not run"
fi

# Options: whole-model ones anywhere (short ones take the next argument,
# long ones in any case), per-input ones before their input.
same_as_convert "whole-model options" -s 2 "$tmp/m.iqe" --MESHTRANS 1,2,3 -r 0,0,90 -j -- \
    --scale 2 "$tmp/m.iqe" --meshtrans 1,2,3 --rotate 0,0,90 --forcejoints
same_as_convert "-t with one number is Z" -t 5 "$tmp/m.iqe" -- --meshtrans 0,0,5 "$tmp/m.iqe"
same_as_convert "per-input options" "$tmp/m.md5mesh" --name walk --fps 12 --loop --start 1 --end -3 \
    "$(echo $anims_md5 | cut -d' ' -f1)" -- "$tmp/m.md5mesh" --name walk --fps 12 --loop --start 1 \
    --end -3 "$(echo $anims_md5 | cut -d' ' -f1)"
check "  the SDK's last line" grep -q "^exported: $tmp/sdk.iqm$" "$tmp/sdk.out"
"$OSSA_CLI" iqm "$tmp/viacmd.iqm" "$tmp/m.obj" >/dev/null 2>&1
"$OSSA_CLI" convert "$tmp/m.obj" -o "$tmp/viaconv.iqm" >/dev/null 2>&1
check "ossa iqm writes what ossa-iqm and convert write" cmp -s "$tmp/viacmd.iqm" "$tmp/viaconv.iqm"
same_as_convert "an output without the .iqm extension is an IQM" "$tmp/m.obj" -- "$tmp/m.obj"
"$iqm_link" "$tmp/noext" "$tmp/m.obj" >/dev/null 2>&1
check "  (written as IQM)" cmp -s "$tmp/noext" "$tmp/viaconv.iqm"

# Exit statuses and messages.
run_link() { rc=0; "$iqm_link" "$@" >"$out" 2>"$err" || rc=$?; }
run_link
check "no arguments: status 1" test "$rc" = 1
check "  and the usage on standard error" grep -q "^Usage:" "$err"
run_link --help
check "--help: status 0, the usage on standard output" sh -c "[ $rc = 0 ] && grep -q '^Usage:' '$out'"
run_link -h
check "-h likewise" test "$rc" = 0
run_link "$tmp/x.iqm"
check "no input: status 1" test "$rc" = 1
check "  no input files specified" grep -q "no input files specified" "$err"
run_link "$tmp/x.iqm" "$tmp/missing.iqe"
check "a missing input: status 1" test "$rc" = 1
run_link "$tmp/x.iqm" -s abc "$tmp/m.obj"
check "a scale that is no number: status 1 (the SDK's only failure status)" test "$rc" = 1
run_link "$tmp/u.iqm" --frobnicate "$tmp/m.obj"
check "an unknown option is ignored, as by the SDK" sh -c "[ $rc = 0 ] && grep -q 'unknown option' '$err'"
run_link "$tmp/u.iqm" "$tmp/m.obj" --loop
check "a per-input option after the last input is ignored, with a warning" \
    sh -c "[ $rc = 0 ] && grep -q 'after the last input' '$err'"

summary
