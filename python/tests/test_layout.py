"""The ctypes mirrors of the C structs (ossa/_structs.py) against the
headers: a C program made from the list of structs and fields prints
sizeof and offsetof of each as the compiler lays them out, and every one
must equal ctypes'. A field added to a header changes a struct's size, and
a field renamed fails to compile: either fails here until _structs.py
follows. Also: the package's version is the library's (common.h)."""

import ctypes
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT
import ossa
from ossa import _structs as S


def _c_program():
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <ossa.h>", "int main(void)", "{"]
    for st in S.STRUCTS:
        lines.append('    printf("%s %%zu\\n", sizeof(%s));' % (st.C_NAME, st.C_NAME))
        for name, _ in st._fields_:
            lines.append('    printf("%s.%s %%zu\\n", offsetof(%s, %s));'
                         % (st.C_NAME, name, st.C_NAME, name))
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def test_struct_layouts(tmp_path):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to lay the structs out")
    src = tmp_path / "layout.c"
    src.write_text(_c_program())
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-I", os.path.join(ROOT, "include"), str(src), "-o", str(exe)],
                   check=True)
    printed = dict(line.rsplit(" ", 1) for line in
                   subprocess.run([str(exe)], check=True, capture_output=True, text=True)
                   .stdout.splitlines())
    mine = {}
    for st in S.STRUCTS:
        mine[st.C_NAME] = str(ctypes.sizeof(st))
        for name, _ in st._fields_:
            mine["%s.%s" % (st.C_NAME, name)] = str(getattr(st, name).offset)
    assert len(S.STRUCTS) >= 30
    assert mine == printed


def test_dtypes_follow_the_structs():
    assert ossa.TRANSFORM.itemsize == ctypes.sizeof(S.Transform) == 40
    assert ossa.BOUNDS.itemsize == ctypes.sizeof(S.Bounds)
    assert S.JOINT.fields["bind"][1] == S.Joint.bind.offset
    assert S.JOINT.fields["parent"][1] == S.Joint.parent.offset


def test_version_is_the_librarys():
    text = open(os.path.join(ROOT, "include", "ossa", "common.h")).read()
    want = ".".join(re.search(r"#define OSSA_VERSION_%s (\d+)" % p, text).group(1)
                    for p in ("MAJOR", "MINOR", "PATCH"))
    assert ossa.__version__ == want
    assert ossa.LIBRARY_VERSION == want
