#!/usr/bin/env bash
# Reference dumps: `ossa dump` of every sample model (../shared/data, the
# built-in demo model, and the merges a user would make) must match
# tests/ref/<name>.txt line for line. Any change of what a reader produces
# shows here as a readable diff; when the change is intended, `make
# update-ref` (OSSA_UPDATE_REF=1) rewrites the references, and the diff is
# reviewed in the commit.
. "$(dirname "$0")/cli_common.bash"

refs=$here/ref
update=${OSSA_UPDATE_REF:-0}

# name FILE...: the reference name of a dump of these inputs.
ref_name() {
    local name= f
    for f in "$@"; do
        local rel=${f#"$shared/data/"}
        rel=${rel#"$tmp/"}
        name=${name:+$name+}${rel//\//_}
    done
    printf '%s.txt' "$name"
}

# compare FILE...: dumps the inputs (merged when several) and compares.
seen=()
compare() {
    local name
    name=$(ref_name "$@")
    seen+=("$name")
    "$OSSA_CLI" dump "$@" >"$tmp/dump.txt" 2>/dev/null || true
    if [ "$update" = 1 ]; then
        mkdir -p "$refs"
        if cp "$tmp/dump.txt" "$refs/$name"; then ok; else fail "$name: cannot write the reference"; fi
    elif [ ! -f "$refs/$name" ]; then
        fail "$name: no reference (run make update-ref and review the new file)"
    elif diff -u "$refs/$name" "$tmp/dump.txt" >"$tmp/diff.txt"; then
        ok
    else
        fail "$name differs from its reference (make update-ref rewrites it):"
        head -40 "$tmp/diff.txt" | sed 's/^/  /'
    fi
}

"$OSSA_CLI" demo -o "$tmp" >/dev/null
compare "$tmp/demo.iqm"
compare "$tmp/demo.iqe"

# The extensions of the formats this build reads: files of others (sample
# data may come before their reader) are left out, visibly.
readable=" $("$OSSA_CLI" --help | awk '/^Formats/ {on=1; next} on && NF==0 {exit} on && $2 ~ /r/ {for (i = 3; i <= NF; i++) print $i}' | tr 'A-Z\n' 'a-z ')"
unread=()
if [ -d "$shared/data" ]; then
    while IFS= read -r f; do
        ext=.${f##*.}
        ext=$(printf '%s' "$ext" | tr 'A-Z' 'a-z')
        case $readable in
        *" $ext "*) compare "$f" ;;
        *) unread+=("${f#"$shared/data/"}") ;;
        esac
    done < <(find "$shared/data" -type f ! -name '*.md' ! -name '*.mtl' | LC_ALL=C sort)
    [ ${#unread[@]} = 0 ] || skip_part "no reader in this build for ${#unread[@]} sample files: ${unread[*]}"
    # Merges: a mesh with the animations of another file.
    compare "$shared/data/iqm/guy.iqm" "$shared/data/iqm/guyanim.iqm"
else
    skip_part "$shared/data not found: only the demo model's dumps are checked"
fi

# A reference nothing produces any more is stale.
if [ -d "$shared/data" ]; then
    for r in "$refs"/*.txt; do
        [ -e "$r" ] || continue
        base=$(basename "$r")
        found=0
        for s in "${seen[@]}"; do [ "$s" = "$base" ] && found=1 && break; done
        if [ "$found" = 0 ]; then
            if [ "$update" = 1 ]; then rm -f "$r"; else fail "$base: stale reference (make update-ref removes it)"; fi
        fi
    done
fi

summary
