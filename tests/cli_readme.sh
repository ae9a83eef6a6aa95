#!/bin/bash
# The README's command summary lists every command of `ossa --help` and
# every option of every command's --help. Run by ctest.
. "$(dirname "$0")/cli_common.bash"

readme=$here/../README.md
# The first code block after "## Command line".
summary_block=$tmp/summary.txt
awk '/^## Command line/ {on = 1} on && /^```/ {n++; if (n == 2) exit; next} on && n == 1' \
    "$readme" >"$summary_block"
check "the README has a command summary" test -s "$summary_block"

expect_rc 0 "ossa --help" --help
commands=$(awk '/^Commands:/ {on = 1; next} on && /^$/ {exit} on {print $1}' "$out")
check "ossa --help lists commands" test -n "$commands"

for cmd in $commands; do
    check "the summary has 'ossa $cmd'" grep -q "^ossa $cmd\b" "$summary_block"
    expect_rc 0 "ossa $cmd --help" "$cmd" --help
    # Every option name in the option column of the help: on lines that
    # start with spaces and a dash, the words up to the first one that is
    # neither an option nor an argument name (those have capitals).
    for opt in $(grep -E '^ +-' "$out" | awk '{
            for (i = 1; i <= NF; i++) {
                w = $i
                if (w ~ /^-/) { sub(/,$/, "", w); print w }
                else if (w !~ /[A-Z]/) break
            }
        }' | grep -E '^--?[a-zA-Z]' | sort -u); do
        if grep -qE -- "(^|[^a-zA-Z0-9-])$opt([^a-zA-Z0-9-]|\$)" "$summary_block"; then
            ok
        else
            fail "the README's command summary lacks '$opt' of 'ossa $cmd'"
        fi
    done
done

summary
