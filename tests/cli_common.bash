# What the shell tests share; sourced (not run: ctest runs tests/*.sh, and
# this name does not match) by each of them with
#   . "$(dirname "$0")/cli_common.bash"
# Expects from ctest
#   OSSA_CLI        path to the ossa binary (required)
#   OSSA_SHARED_DIR path to ../shared (real model files in data/)
#   OSSA_TEST_TMP   a scratch directory
# and sets
#   here    the tests directory
#   shared  ../shared
#   tmp     an empty scratch directory named after the script
#   out err the files where `run` keeps ossa's stdout and stderr
# A script ends with `summary`, which prints "N passed, M failed" and fails
# when a check did. A script that leaves checks out (shared data or a tool
# missing) says so with `skip_part REASON`: summary then exits 77, which
# ctest reports as skipped, and `make test` lists the reason.

: "${OSSA_CLI:?OSSA_CLI must name the ossa binary}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
shared=${OSSA_SHARED_DIR:-$here/../../shared}
tmp=${OSSA_TEST_TMP:-$(mktemp -d)}/$(basename "$0" .sh)
rm -rf "$tmp"
mkdir -p "$tmp"

passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() {
    echo "FAIL: $*"
    failed=$((failed + 1))
}

skipped=
skip_part() {
    echo "SKIP: $*"
    [ -n "$skipped" ] || skipped=$*
}

summary() {
    echo "$passed passed, $failed failed${skipped:+, some skipped ($skipped)}"
    [ "$failed" -eq 0 ] || return 1
    if [ -n "$skipped" ]; then
        if [ -n "${OSSA_TEST_TMP:-}" ]; then
            mkdir -p "$OSSA_TEST_TMP/skipped"
            echo "$skipped" >"$OSSA_TEST_TMP/skipped/$(basename "$0")"
        fi
        exit 77
    fi
}

# run ARGS...: runs ossa, keeping stdout, stderr and the exit code.
out=$tmp/stdout
err=$tmp/stderr
rc=0
run() {
    rc=0
    "$OSSA_CLI" "$@" >"$out" 2>"$err" || rc=$?
}

# expect_rc CODE DESCRIPTION ARGS...: one check on the exit code.
expect_rc() {
    local want=$1 what=$2
    shift 2
    run "$@"
    if [ "$rc" -eq "$want" ]; then
        ok
    else
        fail "$what: exit $rc, expected $want"
        sed 's/^/  stderr: /' "$err"
    fi
}

# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
    local what=$1
    shift
    if "$@"; then ok; else fail "$what"; fi
}

# json_check FILE PYTHON-EXPRESSION: the expression, with the parsed file
# as `d`, must be true.
json_check() {
    python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1], encoding="utf-8"))
    sys.exit(0 if eval(sys.argv[2]) else 1)
except (OSError, ValueError, LookupError, TypeError) as e:
    print("  json:", e)
    sys.exit(1)' "$1" "$2"
}
