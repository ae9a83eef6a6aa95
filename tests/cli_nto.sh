#!/usr/bin/env bash
# ossa info on SOTC .nto texture headers (the fuzz seeds of fuzz/corpus/nto):
# the texture facts as text and JSON, --nto-swap-size, a broken file.
# Run by ctest with OSSA_CLI (the ossa binary) and OSSA_TEST_TMP.
set -euo pipefail
ossa=${OSSA_CLI:?}
seeds="$(cd "$(dirname "$0")/../fuzz/corpus/nto" && pwd)"
tmp=$(mktemp -d "${OSSA_TEST_TMP:-/tmp}/cli_nto.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
check() { # WHAT TEXT FILE
    if grep -qF -- "$2" "$3"; then echo "ok - $1"; else
        echo "not ok - $1: '$2' not in:"; sed 's/^/  /' "$3"; failed=1
    fi
}

"$ossa" info "$seeds/pal4.nto" >"$tmp/out"
check "format" "format: nto" "$tmp/out"
check "texture text" "sotc.nto.texture: 89 bytes: width=4 height=4 kind=4bit-palette mips=2 swizzle=0x03" "$tmp/out"
check "no joints" "joints: 0" "$tmp/out"

"$ossa" info --nto-swap-size "$seeds/pal8_start.nto" >"$tmp/out"
check "swapped nibbles" "width=2 height=4 kind=8bit-palette" "$tmp/out"
"$ossa" info "$seeds/pal8_start.nto" >"$tmp/out"
check "default nibbles" "width=4 height=2 kind=8bit-palette" "$tmp/out"

"$ossa" info --json "$seeds/rgba32.nto" >"$tmp/out"
check "json text" '"text": "width=2 height=2 kind=rgba32 mips=1' "$tmp/out"

# The palette pointer (.rodata 0x100 + header 0x18) moved past the end.
cp "$seeds/pal4.nto" "$tmp/bad.nto"
printf '\xf0\xff\x00\x00' | dd of="$tmp/bad.nto" bs=1 seek=$((0x118)) conv=notrunc 2>/dev/null
rc=0
"$ossa" info "$tmp/bad.nto" >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 1 ]; then echo "ok - bad palette exits 1"; else echo "not ok - exit $rc"; failed=1; fi
check "error names the field" "bad.nto:byte 280: palette (16 entries)" "$tmp/err"
exit $failed
