#!/usr/bin/env python3
"""Checks the source layout (README, "Layout"): the layers, by folder.

    base                      libc; the bottom
    math, text                on base
    core                      on base, math, text
    formats                   on core and below; each module (formats/NAME/)
                              on no other module
    runtime                   on base and math only (libossa-runtime)
    render                    on base and math, and on core and runtime
                              through their public API only (libossa-render)

- includes: a folder includes only folders it sits on (quoted paths below
  src/), and of the public headers only those of the libraries it may use
  (ossa/common.h everywhere; ossa/runtime.h in runtime and where the
  runtime's public API is called; ossa/model.h from core up);
- no include cycle between files;
- with a build directory, the same for calls, read from the object files:
  a symbol a file uses must be defined in its own folder or in one it sits
  on (or, across the libraries, be a public ossa_* name of one it may
  call), and no two files may depend on each other through any chain;
- no function is longer than MAX_FUNCTION_LINES lines, counted from the
  first line of its signature to its closing brace.

Usage: check_layout.py [SOURCE_DIR] [BUILD_DIR]   (exit 1 on a violation)
"""
import collections
import glob
import os
import re
import subprocess
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
build = sys.argv[2] if len(sys.argv) > 2 else None
src = os.path.join(root, "src")
problems = []

# The folders a folder sits on, for includes and for calls of internal
# (ossa__*) functions.
BELOW = {
    "base": set(),
    "math": {"base"},
    "text": {"base"},
    "core": {"base", "math", "text"},
    "formats": {"base", "math", "text", "core"},
    "runtime": {"base", "math"},
    "render": {"base", "math"},
}
# Layers of another library a folder may call through their public API
# (ossa_ names, never ossa__) and whose public header it may include.
PUBLIC_ONLY = {
    "core": {"runtime"},
    "formats": {"runtime"},
    "render": {"core", "formats", "runtime"},
}
# The public headers each folder may include.
HEADERS = {
    "base": {"ossa/common.h"},
    "math": {"ossa/common.h"},
    "text": {"ossa/common.h"},
    "core": {"ossa/common.h", "ossa/model.h", "ossa/runtime.h"},
    "formats": {"ossa/common.h", "ossa/model.h", "ossa/runtime.h"},
    "runtime": {"ossa/common.h", "ossa/runtime.h"},
    "render": {"ossa/common.h", "ossa/model.h", "ossa/runtime.h", "ossa/render.h"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit(path):
    """src-relative path without extension: x.c and x.h are one unit."""
    return os.path.splitext(os.path.relpath(path, src))[0]


def folder(rel):
    return rel.split("/")[0]


files = []
for dirpath, _, names in os.walk(src):
    files += [os.path.join(dirpath, n) for n in names if n.endswith((".c", ".h", ".inc"))]

for path in sorted(files):
    rel = os.path.relpath(path, src)
    if folder(rel) not in BELOW:
        problems.append(f"{rel}: src/{folder(rel)}/ is no layer this check knows")

graph = collections.defaultdict(set)
for path in sorted(files):
    rel = os.path.relpath(path, src)
    parts = rel.split(os.sep)
    layer = parts[0]
    if layer not in BELOW:
        continue
    with open(path, encoding="utf-8") as f:
        includes = INCLUDE.findall(f.read())
    for inc in includes:
        if inc.startswith("ossa/") or inc == "ossa.h":
            if inc not in HEADERS[layer]:
                problems.append(f"{rel}: {layer}/ includes the public header \"{inc}\", "
                                f"which it may not use ({', '.join(sorted(HEADERS[layer]))})")
            continue
        target = os.path.join(src, inc)
        if not os.path.exists(target):
            problems.append(f"{rel}: includes \"{inc}\", which is not a path below src/")
            continue
        ip = inc.split("/")
        if ip[0] != layer and ip[0] not in BELOW[layer]:
            problems.append(f"{rel}: {layer}/ includes \"{inc}\" from {ip[0]}/, "
                            f"which is not below it")
        if layer == "formats" and len(parts) > 2 and ip[0] == "formats" and len(ip) > 2 and ip[1] != parts[1]:
            problems.append(f"{rel}: the {parts[1]} module includes another format's file \"{inc}\"")
        graph[rel].add(inc)


def cycles(g):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


for comp in cycles(graph):
    problems.append("include cycle: " + " <-> ".join(comp))


def object_of(path):
    """The object file a build made of src/<layer>/.../x.c."""
    rel = os.path.relpath(path, src)
    found = glob.glob(os.path.join(build, "CMakeFiles", "ossa_*_objects.dir", "src", rel + ".o"))
    return found[0] if found else None


if build:
    defined, used = {}, collections.defaultdict(set)
    for path in sorted(files):
        if not path.endswith(".c"):
            continue
        obj = object_of(path)
        if not obj:
            # A partial build would silently skip the call check.
            problems.append("%s: no object in %s (build the library's object targets)"
                            % (os.path.relpath(path, root), build))
            continue
        out = subprocess.run(["nm", obj], capture_output=True, text=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRV":
                defined[f[2]] = unit(path)
            elif len(f) == 2 and f[0] == "U":
                used[unit(path)].add(f[1])
    calls = collections.defaultdict(set)
    for u, syms in sorted(used.items()):
        me = folder(u)
        for s in sorted(syms):
            if s not in defined or defined[s] == u:
                continue
            d = defined[s]
            calls[u].add(d)
            them = folder(d)
            if them == me or them in BELOW.get(me, ()):
                continue
            public = s.startswith("ossa_") and not s.startswith("ossa__")
            if public and them in PUBLIC_ONLY.get(me, ()):
                continue
            problems.append(f"{u}.c calls {s} of {d}.c: {them}/ is not below {me}/"
                            + (" (and its internal names stay inside its library)"
                               if them in PUBLIC_ONLY.get(me, ()) else ""))
    for comp in cycles(calls):
        problems.append("call cycle between object files: " + " <-> ".join(comp))

# -- Function length ---------------------------------------------------------

MAX_FUNCTION_LINES = 150
# Functions over the limit that are split separately: known here so that
# the check holds for everything else. An entry that is no longer over the
# limit (or no longer exists) is a problem too, so the list only shrinks.
KNOWN_LONG = {
    "runtime/compress.c:ossa__compress",
    "runtime/packed.c:ossa__packed_check",
}


def blank_out(text):
    """The text with comments, string and character literals and
    preprocessor lines turned into spaces (newlines kept)."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            while i < n and text[i] != "\n":
                # a backslash-newline continues the directive
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
            continue
        if c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
            continue
        out.append(c)
        if c == "\n":
            line_start = True
        elif not c.isspace():
            line_start = False
        i += 1
    return "".join(out)


FUNCTION_HEAD = re.compile(r"(\w+)\s*\(")


def functions(text):
    """(name, first line, last line) of every function defined at the
    top level of a C file."""
    code = blank_out(text)
    found, depth, head, head_line, line = [], 0, [], None, 1
    start = None
    for c in code:
        if c == "\n":
            line += 1
        if depth == 0:
            if c == "{":
                decl = "".join(head)
                m = FUNCTION_HEAD.search(decl)
                is_function = (m and "=" not in decl[:m.start()]
                               and not re.match(r"\s*(typedef|struct|union|enum)\b", decl))
                start = (m.group(1), head_line) if is_function else None
                depth = 1
            elif c == ";":
                head, head_line = [], None
            else:
                if head_line is None and not c.isspace():
                    head_line = line
                head.append(c)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if start:
                    found.append((start[0], start[1], line))
                head, head_line, start = [], None, None
    return found


long_seen = set()
for path in sorted(files):
    if not path.endswith((".c", ".inc")):
        continue
    rel = os.path.relpath(path, src)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for name, first, last in functions(text):
        length = last - first + 1
        key = f"{rel}:{name}"
        if length <= MAX_FUNCTION_LINES:
            continue
        if key in KNOWN_LONG:
            long_seen.add(key)
            continue
        problems.append(f"{rel}:{first}: function {name} is {length} lines long "
                        f"(at most {MAX_FUNCTION_LINES}: split it into named steps)")
for key in sorted(KNOWN_LONG - long_seen):
    if os.path.exists(os.path.join(src, key.split(":")[0])):
        problems.append(f"{key} is no longer over {MAX_FUNCTION_LINES} lines: "
                        "remove it from KNOWN_LONG")

for p in problems:
    print("check-layout: " + p)
print(f"check-layout: {len(files)} files, {len(problems)} problems"
      + ("" if build else " (includes only; give a build directory to check calls too)"))
sys.exit(1 if problems else 0)
