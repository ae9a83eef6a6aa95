#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_nto into fuzz/corpus/nto/: three tiny
.nto textures built byte by byte from docs/formats/sotc.md §2 and §8 (no game
data is public, and none is used). XFF header, section table at 0x78,
.rodata at 0x100 holding the 32-byte "NTO2" header, the pixels and the
palette; no symbols or relocations (readers ignore them).

usage: fuzz/make_nto_corpus.py
"""
import os
import struct


def nto(kind, mips, size_byte, swizzle, pixel_bytes, palette_bytes, lead=0, entry=None):
    hdr = lead
    pixels = (hdr + 0x20 + 15) & ~15
    palette = (pixels + pixel_bytes + 15) & ~15 if palette_bytes else 0
    end = palette + palette_bytes if palette_bytes else pixels + pixel_bytes
    ro = bytearray(end)
    for i in range(pixels, pixels + pixel_bytes):
        ro[i] = (i * 7) & 0xFF
    for i in range(palette, palette + palette_bytes):
        ro[i] = (i * 13) & 0xFF
    ro[hdr:hdr + 0x20] = b"NTO2" + struct.pack("<I", 3) + bytes(12) + struct.pack(
        "<II4B", pixels, palette, kind, mips, size_byte, swizzle)
    total = 0x100 + len(ro)
    f = bytearray(0x100)
    f[0:4] = b"xff\0"
    struct.pack_into("<I", f, 0x0C, 1)
    struct.pack_into("<I", f, 0x14, total)
    struct.pack_into("<I", f, 0x40, 2)
    struct.pack_into("<I", f, 0x4C, hdr if entry is None else entry)
    struct.pack_into("<I", f, 0x5C, 0x78)
    struct.pack_into("<I", f, 0x78 + 0x10, 8)  # section 0: no bits
    struct.pack_into("<IIII", f, 0x98 + 0x08, len(ro), 16, 1, 0)  # .rodata
    struct.pack_into("<I", f, 0x98 + 0x1C, 0x100)
    return bytes(f + ro)


here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus", "nto")
os.makedirs(out, exist_ok=True)
seeds = {
    # 2x2 RGBA32, one mip, not swizzled
    "rgba32.nto": nto(0x00, 0x10, 0x11, 0x00, 2 * 2 * 4, 0),
    # 4x4 4-bit palette, 16 entries, 2 mips, both swizzled
    "pal4.nto": nto(0x14, 0x20, 0x22, 0x03, 4 * 4 // 2, 16 * 4),
    # 4x2 8-bit palette (256 entries), header at .rodata start while the
    # entry points at the pixels (dormin's reading)
    "pal8_start.nto": nto(0x13, 0x10, 0x12, 0x01, 4 * 2, 256 * 4, entry=0x20),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as fh:
        fh.write(data)
