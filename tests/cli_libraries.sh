#!/bin/bash
# The three libraries a program links one at a time:
# - each public header compiles alone, as C11 and as C++ (-Wall -Wextra
#   -Wpedantic -Werror);
# - libossa-runtime needs libc and libm and nothing else (readelf -d), and
#   the runtime example (examples/play_clip.c), built against it alone,
#   plays a clip made by `ossa convert` to the poses `ossa pose` gives;
# - each shared library exports its own layer's names only.
. "$(dirname "$0")/cli_common.bash"

build=$(dirname "$OSSA_CLI")
include=$here/../include
cc=${OSSA_TEST_CC:-${CC:-cc}}
# The build's own flags (empty, or a sanitizer's): word splitting intended.
read -r -a cflags <<<"${OSSA_TEST_CFLAGS:-}"

for h in common model runtime render; do
    printf '#include <ossa/%s.h>\nint ossa_header_alone;\n' "$h" >"$tmp/$h.c"
    check "ossa/$h.h compiles alone as C11" \
        "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$include" -fsyntax-only "$tmp/$h.c"
    cp "$tmp/$h.c" "$tmp/$h.cpp"
    if command -v c++ >/dev/null 2>&1; then
        check "ossa/$h.h compiles alone as C++" \
            c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$include" -fsyntax-only "$tmp/$h.cpp"
    else
        skip_part "no C++ compiler: ossa/$h.h is not compiled as C++"
    fi
done

lib=$build/libossa-runtime.so
if [ ! -f "$lib" ]; then
    skip_part "$lib was not built (a build without shared libraries)"
    summary
fi
# A sanitizer build adds its runtimes to every binary: gcc's as libasan and
# libubsan, clang's linked into the program with what they need (libgcc_s,
# libm). They are the build's, not the library's, and are left out of the
# lists.
sanitized=
if readelf -d "$lib" | grep -q 'lib\(asan\|ubsan\)\.so' || nm -D "$lib" 2>/dev/null | grep -q '__asan_\|__ubsan_'; then
    sanitized=1
    echo "NOTE: a sanitizer build: its runtimes are not counted among the libraries' needs"
fi
needed() {
    readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
        grep -v '^lib\(asan\|ubsan\)\.so' | sort | tr '\n' ' '
}
# The example's needs, without what a sanitizer runtime linked into it
# brings (libgcc_s, libm, libpthread, libdl, librt).
program_needs() {
    if [ -n "$sanitized" ]; then
        needed "$1" | tr ' ' '\n' | grep -v '^lib\(gcc_s\|m\|pthread\|dl\|rt\)\.so' | grep . | tr '\n' ' '
    else
        needed "$1"
    fi
}
check "libossa-runtime needs libc and libm only (it needs: $(needed "$lib"))" \
    test "$(needed "$lib")" = "libc.so.6 libm.so.6 "
check "libossa needs no renderer library" sh -c "! readelf -d '$build/libossa.so' | grep -q 'png\|jpeg\|gif'"

"$cc" "${cflags[@]}" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$include" "$here/../examples/play_clip.c" \
    -L"$build" -lossa-runtime -Wl,-rpath,"$build" -o "$tmp/play_clip"
check "the runtime example builds against libossa-runtime alone" test -x "$tmp/play_clip"
prog_needs=$(program_needs "$tmp/play_clip")
check "the example needs libossa-runtime and libc only (it needs: $prog_needs)" \
    test "$prog_needs" = "libc.so.6 libossa-runtime.so.0.2 "

# A clip of the demo model's first animation, played by the example and
# posed by the CLI from the same clip's error bound.
"$OSSA_CLI" demo -o "$tmp/demo" >/dev/null
expect_rc 0 "a compressed clip of the demo model" convert "$tmp/demo/demo.iqm" -o "$tmp/demo.ossaclip" --anim 0
run_example() { "$tmp/play_clip" "$@" >"$tmp/played" 2>"$err"; }
check "the example plays it" run_example "$tmp/demo.ossaclip" 0.4
expect_rc 0 "ossa pose of the same moment" pose "$tmp/demo/demo.iqm" --anim 0 --time 0.4 --json
cp "$out" "$tmp/pose.json"
check "the example's joints are where ossa pose puts them (within the clip's error)" python3 - "$tmp/played" "$tmp/pose.json" <<'PY'
import json, sys
rows = [l.split() for l in open(sys.argv[1])]
pose = json.load(open(sys.argv[2]))
joints = pose["joints"] if isinstance(pose, dict) else pose[0]["joints"]
assert len(rows) == len(joints), (len(rows), len(joints))
worst = 0
for r, j in zip(rows, joints):
    m = j["model"]
    t = m[12:15] if len(m) == 16 else [m[3][0], m[3][1], m[3][2]]
    worst = max(worst, max(abs(float(a) - b) for a, b in zip(r[1:], t)))
print("largest difference", worst)
sys.exit(0 if worst < 1e-2 else 1)
PY

exports() { nm -D --defined-only "$1" | awk '$2 == "T" {print $3}'; }
check "libossa-runtime exports no internal name" sh -c "! nm -D --defined-only '$lib' | grep -q ' ossa__'"
check "libossa exports the model API and not the shared functions (libossa-runtime's)" \
    sh -c "nm -D --defined-only '$build/libossa.so' | grep -q ' ossa_load_file$' &&
           ! nm -D --defined-only '$build/libossa.so' | grep -q ' ossa_error_format$\| ossa__'"
check "libossa-render exports ossa_render_* only" \
    sh -c "! nm -D --defined-only '$build/libossa-render.so' | awk '\$2 == \"T\" {print \$3}' | grep -v '^ossa_render_'"

summary
