#!/bin/sh
# One line after `make test`: which tests skipped something, and why.
# Usage: skip_summary.sh DIR, where DIR holds one file per skipping test
# (written by tests/support.c and tests/cli_common.bash) with its reason.
dir=$1
[ -d "$dir" ] || exit 0
set -- "$dir"/*
[ -e "$1" ] || exit 0
# Reasons grouped by their first clause ("X not found: only Y" -> "X not
# found"), most frequent first, each with the tests that gave it.
for f in "$@"; do
    printf '%s\t%s\n' "$(head -n 1 "$f" | sed 's/: .*//')" "$(basename "$f")"
done | sort | awk -F '\t' -v n="$#" '
    { tests[$1] = tests[$1] (tests[$1] ? " " : "") $2; count[$1]++ }
    END {
        line = sprintf("make test: %d test%s skipped part of their checks:", n, n == 1 ? "" : "s")
        sep = " "
        for (r in count) {
            line = line sep r " (" count[r] ": " tests[r] ")"
            sep = "; "
        }
        print line
    }'
