#!/usr/bin/env python3
"""Checks the source layout (README, "Layout"):

- a format module (src/formats/NAME/) includes no other format's files;
- the layers below the formats (core, math, text, runtime, render, image)
  include nothing from src/formats/, math includes nothing of the library
  but ossa.h, and image (TGA, PNG encoding) nothing but itself and the
  base helpers (core/internal.h);
- no include cycle between files;
- with a build directory, no cycle of calls between object files either:
  a file that uses a symbol defined in another file depends on it, and no
  two files may depend on each other through any chain.

Usage: check_layout.py [SOURCE_DIR] [BUILD_DIR]   (exit 1 on a violation)
"""
import collections
import os
import re
import subprocess
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
build = sys.argv[2] if len(sys.argv) > 2 else None
src = os.path.join(root, "src")
problems = []

LOWER_LAYERS = ("core", "math", "text", "runtime", "render", "image")
# What src/image/ may include besides itself: the allocation and error
# helpers (which are to move to src/base/).
IMAGE_BASE = ("core/internal.h",)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit(path):
    """src-relative path without extension: x.c and x.h are one unit."""
    return os.path.splitext(os.path.relpath(path, src))[0]


files = []
for dirpath, _, names in os.walk(src):
    files += [os.path.join(dirpath, n) for n in names if n.endswith((".c", ".h", ".inc"))]

graph = collections.defaultdict(set)
for path in sorted(files):
    rel = os.path.relpath(path, src)
    parts = rel.split(os.sep)
    with open(path, encoding="utf-8") as f:
        includes = INCLUDE.findall(f.read())
    for inc in includes:
        target = os.path.join(src, inc)
        if not os.path.exists(target):
            if inc != "ossa.h":
                problems.append(f"{rel}: includes \"{inc}\", which is not a path below src/")
            continue
        ip = inc.split("/")
        if parts[0] == "formats" and len(parts) > 2 and ip[0] == "formats" and len(ip) > 2 and ip[1] != parts[1]:
            problems.append(f"{rel}: the {parts[1]} module includes another format's file \"{inc}\"")
        if parts[0] in LOWER_LAYERS and ip[0] == "formats":
            problems.append(f"{rel}: {parts[0]}/ sits below the formats but includes \"{inc}\"")
        if parts[0] == "math" and ip[0] != "math":
            problems.append(f"{rel}: math/ includes \"{inc}\" (it may use ossa.h only)")
        if parts[0] == "image" and ip[0] != "image" and inc not in IMAGE_BASE:
            problems.append(f"{rel}: image/ includes \"{inc}\" (it may use the base helpers only)")
        graph[os.path.relpath(path, src)].add(inc)


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

if build:
    objdir = os.path.join(build, "CMakeFiles", "ossa_objects.dir", "src")
    defined, used = {}, collections.defaultdict(set)
    for path in sorted(files):
        if not path.endswith(".c"):
            continue
        obj = os.path.join(objdir, os.path.relpath(path, src) + ".o")
        if not os.path.exists(obj):
            # A partial build would silently skip the call check.
            problems.append("%s: no object in %s (build the ossa_objects target)"
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
    for u, syms in used.items():
        for s in syms:
            if s in defined and defined[s] != u:
                calls[u].add(defined[s])
    for comp in cycles(calls):
        problems.append("call cycle between object files: " + " <-> ".join(comp))

for p in problems:
    print("check-layout: " + p)
print(f"check-layout: {len(files)} files, {len(problems)} problems"
      + ("" if build else " (includes only; give a build directory to check calls too)"))
sys.exit(1 if problems else 0)
