#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_nto into fuzz/corpus/nto/: small .nto
textures of every kind (RGBA32, 8-bit and 4-bit palettes), swizzled and
not, with mip levels, the width in either size nibble, the header at the
start of .rodata. tests/gen_nto.py makes them from docs/formats/sotc.md §2 and §8
(no game data is public, and none is used).

usage: fuzz/make_nto_corpus.py
"""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.exit(subprocess.call([sys.executable, os.path.join(here, "..", "tests", "gen_nto.py"), "seeds",
                          os.path.join(here, "corpus", "nto")]))
