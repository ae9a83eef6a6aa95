#!/usr/bin/env python3
"""Writes what the add-on checks compare Blender with, from the ossa tool
alone: for every shared model file (and the mesh + animation pairs that
are imported together), its animations and `ossa pose --json` of the bind
pose and of three frames (first, middle, last) of each animation.

usage: addon_cases.py OSSA DATA_DIR OUT_DIR  ->  OUT_DIR/cases.json"""

import json
import os
import subprocess
import sys

# Files imported together (the first is the model the others merge into).
TOGETHER = [("iqm/guy.iqm", "iqm/guyanim.iqm")]
SKIP_DIRS = {"invalid"}
EXTS = (".iqm", ".iqe", ".md5mesh", ".smd", ".obj", ".fbx", ".bvh", ".glb", ".gltf", ".skb",
        ".nmo", ".illmesh", ".illskel")


def run(ossa, args):
    r = subprocess.run([ossa] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("ossa %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


def shared_files(data):
    out = []
    for d, dirs, files in os.walk(data):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for f in sorted(files):
            if f.lower().endswith(EXTS):
                out.append(os.path.relpath(os.path.join(d, f), data))
    return sorted(out)


def case(ossa, data, rel, out_dir, k):
    """The poses of one import: the files merged as ossa pose merges them,
    whose animations are each file's in turn."""
    files = [os.path.join(data, r) for r in rel]
    infos = json.loads(run(ossa, ["info", "--json"] + files))
    if isinstance(infos, dict):
        infos = [infos]
    d = os.path.join(out_dir, "case%d" % k)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "bind.json"), "w") as f:
        f.write(run(ossa, ["pose", "--json"] + files))
    anims = []
    for index, a in enumerate(x for i in infos for x in i["animations"]):
        poses, name = {}, a["name"]
        for fr in sorted({0, a["frames"] // 2, max(a["frames"] - 1, 0)}):
            path = os.path.join(d, "a%d_f%d.json" % (index, fr))
            text = run(ossa, ["pose", "--json", "--anim", str(index), "--frame", str(fr)] + files)
            with open(path, "w") as f:
                f.write(text)
            poses[fr] = path
            name = json.loads(text)["animation"]  # as merged (a clash renamed)
        anims.append({"index": index, "name": name, "frames": a["frames"],
                      "framerate": a["framerate"], "poses": poses})
    return {"name": "+".join(rel), "files": files, "bind": os.path.join(d, "bind.json"),
            "animations": anims}


def main():
    ossa, data, out_dir = sys.argv[1:]
    cases = []
    for k, rel in enumerate([(r,) for r in shared_files(data)] + TOGETHER):
        if not all(os.path.exists(os.path.join(data, r)) for r in rel):
            continue
        try:
            cases.append(case(ossa, data, rel, out_dir, k))
        except RuntimeError as e:
            cases.append({"name": "+".join(rel), "error": str(e)})
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
