#!/usr/bin/env python3
"""Writes the Blender add-on zip (make blender-addon): ossa_blender/ with the
ossa Python package inside it (ossa_blender/ossa) and the three shared
libraries the build made in ossa_blender/ossa/_libs, under their sonames,
where the package looks first after OSSA_LIBRARY_PATH.

usage: make_zip.py BUILD_DIR OUT.zip

The zip is the same bytes for the same inputs (entries sorted, dates
fixed), written to a temporary name and renamed."""

import os
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATE = (2024, 1, 1, 0, 0, 0)
LIBS = ("ossa-runtime", "ossa", "ossa-render")


def sources(folder, prefix):
    """(path on disk, name in the zip) of the package's Python files."""
    out = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and name.endswith((".py", ".pyi", ".typed")) \
                and name != "_libdir.py":
            out.append((path, prefix + name))
    return out


def soname(build, name):
    """The library file under its soname (libNAME.so.MAJOR.MINOR): the
    name the package opens."""
    found = sorted(f for f in os.listdir(build)
                   if f.startswith("lib%s.so." % name) and f.count(".") == 3)
    if not found:
        sys.exit("make_zip: no lib%s.so.X.Y in %s (build the libraries first)" % (name, build))
    return os.path.join(build, found[0]), found[0]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    build, out = sys.argv[1:]
    entries = sources(os.path.join(ROOT, "blender", "ossa_blender"), "ossa_blender/")
    entries += sources(os.path.join(ROOT, "python", "ossa"), "ossa_blender/ossa/")
    for name in LIBS:
        path, so = soname(build, name)
        entries.append((os.path.realpath(path), "ossa_blender/ossa/_libs/" + so))
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for path, arc in sorted(entries, key=lambda e: e[1]):
            info = zipfile.ZipInfo(arc, DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o755 if "/_libs/" in arc else 0o644) << 16
            with open(path, "rb") as f:
                z.writestr(info, f.read())
    os.replace(tmp, out)
    print("wrote %s (%d files)" % (out, len(entries)))


if __name__ == "__main__":
    main()
