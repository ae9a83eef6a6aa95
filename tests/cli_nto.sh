#!/usr/bin/env bash
# SOTC .nto textures on the command line: ossa info shows the size, kind
# and levels (the fuzz seeds of fuzz/corpus/nto, a broken file).
# Run by ctest with OSSA_CLI (the ossa binary) and OSSA_TEST_TMP.
set -euo pipefail

. "$(dirname "$0")/cli_common.bash"
seeds="$here/../fuzz/corpus/nto"
cd "$tmp"

# has FILE TEXT WHAT
has() {
    if grep -qF -- "$2" "$1"; then ok; else
        fail "$3: '$2' not in $1"
        sed 's/^/  /' "$1"
    fi
}
expect() { # CODE WHAT ARGS...
    local want=$1 what=$2
    shift 2
    run "$@"
    if [ "$rc" -eq "$want" ]; then ok; else
        fail "$what: exit $rc, expected $want"
        sed 's/^/  /' "$err"
    fi
}

expect 0 "info" info "$seeds/pal4.nto"
has "$out" "format: nto" "format"
has "$out" "width=4 height=4 kind=4bit-palette mips=2 swizzle=0x00" "size and kind"
has "$out" "level 0: 4x4 at 0x20, 8 bytes; level 1: 2x2 at 0x28, 2 bytes" "levels"
has "$out" "joints: 0" "no joints"
has "$out" "ossa.image:pal4.png" "the image"

# 4x16 with the width in the high nibble: the picture tells; the option
# (and its old alias) forces either order.
expect 0 "info, the order by the picture" info "$seeds/pal8_high.nto"
has "$out" "width=4 height=16 kind=8bit-palette" "the smoother order"
has "$out" "width from the high nibble of byte 0x1E (the smoother picture of level 0)" "why"
expect 0 "info, low forced" info --sotc-nto-width low "$seeds/pal8_high.nto"
has "$out" "width=16 height=4 kind=8bit-palette" "the order forced"
expect 0 "info, the old flag" info --nto-swap-size "$seeds/pal8_high.nto"
has "$out" "width=4 height=16" "--nto-swap-size is high"

expect 0 "info --json" info --json "$seeds/rgba32.nto"
has "$out" '"text": "width=2 height=2 kind=rgba32 mips=1' "json text"

# The palette pointer (.rodata 0x100 + header 0x18) moved past the end.
cp "$seeds/pal4.nto" bad.nto
printf '\xf0\xff\x00\x00' | dd of=bad.nto bs=1 seek=$((0x118)) conv=notrunc 2>/dev/null
expect 1 "a bad palette pointer" info bad.nto
has "$err" "bad.nto:byte 280: palette (16 entries)" "the error names the field"

summary
