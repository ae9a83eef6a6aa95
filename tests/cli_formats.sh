#!/bin/bash
# `ossa formats` and format options on the command line: every option of
# the tables as a --FORMAT-NAME flag or -O FORMAT.NAME=VALUE, values
# checked as usage errors, reading and writing options kept apart, and
# each documented in its format's docs/formats page.
. "$(dirname "$0")/cli_common.bash"

expect_rc 0 "ossa formats" formats
check "the text lists fbx.keep_units" grep -q "^  fbx.keep_units (switch; default off)" "$out"
expect_rc 0 "ossa formats --json" formats --json
cp "$out" "$tmp/formats.json"
json_check "$tmp/formats.json" 'any(f["name"] == "obj" and [o["name"] for o in f["write_options"]] == ["obj.axes", "obj.pose_time"] for f in d)'
json_check "$tmp/formats.json" 'all(o["default"] in o["choices"] for f in d for o in f["read_options"] + f["write_options"] if o["type"] == "choice")'
expect_rc 2 "formats takes no file" formats x.iqm

# Every option is documented in docs/formats/FAMILY.md under its name.
docs=$here/../docs/formats
python3 - "$tmp/formats.json" "$docs" >"$tmp/undocumented" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
for f in d:
    for o in f["read_options"] + f["write_options"]:
        family = o["name"].split(".")[0]
        page = os.path.join(sys.argv[2], family + ".md")
        if not os.path.exists(page) or ("`" + o["name"]) not in open(page, encoding="utf-8").read():
            print(o["name"])
PY
check "every format option is named in its docs/formats page: $(sort -u "$tmp/undocumented" | tr '\n' ' ')" \
    test ! -s "$tmp/undocumented"

# A triangle in OBJ: its first vertex (1 2 3) read with each axis option.
printf 'v 1 2 3\nv 4 5 6\nv 7 8 10\nf 1 2 3\n' >"$tmp/t.obj"
first_vertex() {
    "$OSSA_CLI" convert --keep-front "$@" "$tmp/t.obj" -o "$tmp/t.iqe" >/dev/null 2>&1 &&
        awk '/^vp/ {v = $2 " " $3 " " $4} END {print v}' "$tmp/t.iqe"
}
check "default axes: (z, x, y)" test "$(first_vertex)" = "3 1 2"
check "--obj-axes blender: (x, -z, y)" test "$(first_vertex --obj-axes blender)" = "1 -3 2"
check "--obj-axes=blender" test "$(first_vertex --obj-axes=blender)" = "1 -3 2"
check "-O obj.axes=blender" test "$(first_vertex -O obj.axes=blender)" = "1 -3 2"
check "-Oobj.axes=blender" test "$(first_vertex -Oobj.axes=blender)" = "1 -3 2"
check "--option obj.axes=blender" test "$(first_vertex --option obj.axes=blender)" = "1 -3 2"
check "--obj-blender-axes (older spelling)" test "$(first_vertex --obj-blender-axes)" = "1 -3 2"
# obj.axes is also a writing option: reading and writing Blender's way
# gives the file's numbers back
expect_rc 0 "OBJ -> OBJ with Blender's axes" convert --obj-axes blender "$tmp/t.obj" -o "$tmp/back.obj"
check "the numbers come back" grep -q "^v 1 2 3$" "$tmp/back.obj"

expect_rc 2 "a choice that is none" info --obj-axes yup "$tmp/t.obj"
check "  says which values there are" grep -q "one of sdk blender, not 'yup'" "$err"
expect_rc 2 "a switch with a word that is no switch" info --fbx-keep-units=maybe "$tmp/t.obj"
expect_rc 2 "an option no format has" info -O obj.axis=blender "$tmp/t.obj"
expect_rc 2 "a choice without its value" info "$tmp/t.obj" --obj-axes
expect_rc 2 "two values for one option" info --obj-axes sdk --obj-axes blender "$tmp/t.obj"
expect_rc 0 "the same value twice" info --obj-axes sdk -O obj.axes=sdk "$tmp/t.obj"
expect_rc 2 "a writing option given to a command that only reads" info --gltf-embed "$tmp/t.obj"
check "  says it is for writing" grep -q "applies to writing" "$err"
expect_rc 0 "another format's option is ignored" info --fbx-keep-units --smd-turn "$tmp/t.obj"
expect_rc 0 "a writing option for convert" convert "$tmp/t.obj" --gltf-embed -o "$tmp/t.gltf"
check "  the buffer is inside" test ! -e "$tmp/t.bin"
expect_rc 2 "--time that is no number" convert "$tmp/t.obj" --time soon -o "$tmp/t2.obj"

summary
