#!/usr/bin/env python3
"""Checks the source layout (README, "Layout"): the layers, by folder.

    base                      libc; the bottom
    math, text, image         on base
    core                      on base, math, text, image
    formats                   on core and below; each module (formats/NAME/)
                              on no other module
    runtime                   on base and math only (libossa-runtime)
    render                    on base, math and image, and on core and
                              runtime through their public API only
                              (libossa-render)

- includes: a folder includes only folders it sits on (quoted paths below
  src/), and of the public headers only those of the libraries it may use
  (ossa/common.h everywhere; ossa/runtime.h in runtime and where the
  runtime's public API is called; ossa/model.h from core up);
- no include cycle between files;
- with a build directory, the same for calls, read from the object files:
  a symbol a file uses must be defined in its own folder or in one it sits
  on (or, across the libraries, be a public ossa_* name of one it may
  call), and no two files may depend on each other through any chain;
- no function in src/ is longer than 150 lines, counted from the first line
  of its signature to its closing brace.

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
    "image": {"base"},
    "core": {"base", "math", "text", "image"},
    "formats": {"base", "math", "text", "image", "core"},
    "runtime": {"base", "math"},
    "render": {"base", "math", "image"},
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
    "image": {"ossa/common.h"},
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


# -- Function length ---------------------------------------------------------

MAX_FUNCTION_LINES = 150


def code_only(text):
    """`text` with comments, the insides of string and character literals
    and preprocessor lines (with their continuations) blanked; line breaks
    stay where they were, so line numbers still hold."""
    out, i, n = [], 0, len(text)
    blank = lambda s: re.sub(r"[^\n]", " ", s)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] not in (c, "\n"):
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + blank(text[i + 1:j - 1]) + text[j - 1] if j - i >= 2 else c)
            i = j
            continue
        else:
            out.append(c)
            i += 1
            continue
        out.append(blank(text[i:j]))
        i = j
    lines = "".join(out).split("\n")
    continued = False
    for k, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def functions(text):
    """(name, first line, last line) of every function defined in C source
    `text`, or None when its braces do not balance outside comments,
    literals and preprocessor lines. A definition is a brace at file level
    after text that ends with a parameter list and holds no '=' outside
    parentheses (initializers have one), and that is not a struct, union or
    enum whose tag a macro makes ("struct K(name) {"). Its first line is
    the first of the lines just above the brace that are not blank, so that
    a macro call or a preprocessor line before it is not counted."""
    code = code_only(text)
    found, depth, start, current = [], 0, 0, None
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                head = code[start:i]
                top, level = [], 0
                for ch in head:
                    level += (ch == "(") - (ch == ")")
                    if level == 0 and ch not in "()":
                        top.append(ch)
                sig = re.split(r"\n[ \t]*\n", head.strip())[-1]
                if head.rstrip().endswith(")") and "=" not in top and \
                        not re.match(r"(typedef\s+)?(struct|union|enum)\s+\w+\s*\(", sig):
                    first = start + head.rfind(sig)
                    name = re.search(r"(\w+(?:\s*\(\s*\w+\s*\))?)\s*\(", sig)
                    current = [name.group(1) if name else "?", code.count("\n", 0, first) + 1]
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                if current:
                    found.append((current[0], current[1], code.count("\n", 0, i) + 1))
                    current = None
                start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1
    return found if depth == 0 else None


for path in sorted(files):
    rel = os.path.relpath(path, src)
    with open(path, encoding="utf-8") as f:
        found = functions(f.read())
    if found is None:
        problems.append(f"{rel}: its braces do not balance outside comments, strings and "
                        f"preprocessor lines; the function length check cannot read it")
        continue
    for name, first, last in found:
        if last - first + 1 > MAX_FUNCTION_LINES:
            problems.append(f"{rel}:{first}: {name} is {last - first + 1} lines "
                            f"(at most {MAX_FUNCTION_LINES}): split it into named steps")


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

for p in problems:
    print("check-layout: " + p)
print(f"check-layout: {len(files)} files, {len(problems)} problems"
      + ("" if build else " (includes only; give a build directory to check calls too)"))
sys.exit(1 if problems else 0)
