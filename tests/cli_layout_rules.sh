#!/bin/bash
# tests/tools/check_layout.py refuses what the layers forbid: on small
# made-up trees, each breaking one rule, it fails naming the rule; on one
# that breaks none it passes.
. "$(dirname "$0")/cli_common.bash"

checker=$here/tools/check_layout.py
# tree NAME FILE=CONTENT...: a source tree with these files (every layer
# folder present).
tree() {
    local dir=$tmp/$1
    shift
    rm -rf "$dir"
    for layer in base math text core formats/fbx formats/iqm runtime render; do mkdir -p "$dir/src/$layer"; done
    local spec
    for spec in "$@"; do
        mkdir -p "$(dirname "$dir/src/${spec%%=*}")"
        printf '%s\n' "${spec#*=}" >"$dir/src/${spec%%=*}"
    done
    printf '%s' "$dir"
}
expect_problem() {
    local what=$1 needle=$2 dir=$3
    if python3 "$checker" "$dir" >"$tmp/report" 2>&1; then
        fail "$what: passed"
    elif grep -q -- "$needle" "$tmp/report"; then
        ok
    else
        fail "$what: the report lacks '$needle'"
        sed 's/^/  /' "$tmp/report"
    fi
}

base='base/base.h=#include "ossa/common.h"'
good=$(tree good "$base" 'math/math.h=#include "base/base.h"' 'text/text.h=#include "base/base.h"' \
    'core/internal.h=#include "math/math.h"
#include "text/text.h"
#include "ossa/model.h"' \
    'formats/format.h=#include "core/internal.h"' 'formats/fbx/fbx.c=#include "formats/format.h"' \
    'runtime/runtime.h=#include "math/math.h"
#include "ossa/runtime.h"' \
    'render/render.h=#include "base/base.h"
#include "ossa/render.h"')
check "a tree that keeps the layers passes" python3 "$checker" "$good"

expect_problem "text including core" 'text/ includes "core/internal.h" from core/' \
    "$(tree t1 "$base" 'core/internal.h=#include "base/base.h"' 'text/lexer.c=#include "core/internal.h"')"
expect_problem "base including math" 'base/ includes "math/math.h"' \
    "$(tree t2 'math/math.h=#include "ossa/common.h"' 'base/memory.c=#include "math/math.h"')"
expect_problem "the runtime including core" 'runtime/ includes "core/internal.h"' \
    "$(tree t3 'core/internal.h=' 'runtime/clip.c=#include "core/internal.h"')"
expect_problem "the runtime including the model's header" 'the public header "ossa/model.h"' \
    "$(tree t4 'runtime/clip.c=#include "ossa/model.h"')"
expect_problem "core including a format" 'core/ includes "formats/format.h"' \
    "$(tree t5 'formats/format.h=' 'core/merge.c=#include "formats/format.h"')"
expect_problem "render including core's internals" 'render/ includes "core/materials.h"' \
    "$(tree t6 'core/materials.h=' 'render/material.c=#include "core/materials.h"')"
expect_problem "one format including another" "the fbx module includes another format's file" \
    "$(tree t7 'formats/iqm/iqm.h=' 'formats/fbx/x.c=#include "formats/iqm/iqm.h"')"
expect_problem "an include cycle" "include cycle" \
    "$(tree t8 'core/a.h=#include "core/b.h"' 'core/b.h=#include "core/a.h"')"
expect_problem "a folder that is no layer" "src/python/ is no layer" \
    "$(tree t9 'python/x.c=')"

# Function length: at most 150 lines from the signature's first line to
# the closing brace. fn NAME LINES [TYPE]: a function of exactly LINES
# lines returning TYPE (default "static int") whose body has braces in
# comments, strings and characters.
fn() {
    local i
    printf '%s %s(int x,\n                  int y)\n{\n' "${3:-static int}" "$1"
    for ((i = 0; i < $2 - 5; i++)); do
        case $((i % 3)) in
        0) printf '    x += %d; /* } */\n' "$i" ;;
        1) printf "    x += '}' + (int)sizeof \"{{\";\n" ;;
        2) printf '    if (x) { y++; }\n' ;;
        esac
    done
    printf '    return x + y;\n}\n'
}
# A table initializer and a struct longer than any function, and a
# function-like macro with braces, are not functions; nor is a struct whose
# tag a macro makes.
table() {
    local i
    printf 'static const int table[] = {\n'
    for ((i = 0; i < 200; i++)); do printf '    %d,\n' "$i"; done
    printf '};\nstruct big {\n'
    for ((i = 0; i < 200; i++)); do printf '    int f%d;\n' "$i"; done
    printf '};\ntypedef struct K(big) {\n'
    for ((i = 0; i < 200; i++)); do printf '    int f%d;\n' "$i"; done
    printf '} K(big);\n#define LOOP(n) \\\n    for (int i = 0; i < (n); i++) { \\\n    }\n'
}
check "a function of 150 lines, long tables and structs pass" python3 "$checker" \
    "$(tree long_ok "$base" "core/tables.c=$(table)
$(fn just_right 150)")"
# The count starts at the signature, not at the macro call before it
# (line 1) that has no semicolon.
expect_problem "a function of 151 lines" "core/long.c:3: too_long is 151 lines (at most 150)" \
    "$(tree t10 "$base" "core/long.c=MAKE_GROUP(sse2)

$(fn too_long 151 "struct pair")")"
expect_problem "braces that do not balance" "core/open.c: its braces do not balance" \
    "$(tree t11 "$base" 'core/open.c=static int f(void)
{
#if A
    if (1) {
#else
    if (0) {
#endif
    }
}')"

summary
