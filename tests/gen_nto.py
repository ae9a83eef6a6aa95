#!/usr/bin/env python3
"""Shadow of the Colossus .nto textures made from RGBA pictures, written from
docs/formats/sotc.md §2, §8 and the PS2 GS memory arrangement alone (no game data
is public, and nothing of ossa is used): the tests decode these files with
ossa and compare every texel of every level with the pictures written here.

The swizzle is done the way the game's data came to be: the texels are
written into a simulated GS memory at their PSMT8 or PSMT4 addresses
(page, block and column tables as the GS User's Manual draws them), and
the PSMCT32 rectangle that covers that memory is read back row by row.
ossa's decoder goes the other way by formulas (src/formats/sotc/nto_pixels.c).

usage:
  gen_nto.py cases DIR      every kind, swizzle and level: DIR/NAME.nto,
                            DIR/NAME.LEVEL.rgba (u32 width, u32 height, then
                            RGBA8 rows, top first: what the file must decode
                            to), DIR/NAME.LEVEL.src (RGBA32 only: the picture
                            before PS2 alpha scaling), DIR/cases.txt (one
                            line per case: NAME KIND WIDTH HEIGHT LEVELS
                            SWIZZLE NIBBLES, NIBBLES "low" or "high": where
                            the file keeps the width)
  gen_nto.py texture OUT KIND WIDTH HEIGHT SWIZZLE LEVELS
                            one texture of four coloured quadrants (red,
                            green / blue, white) on every level, and
                            OUT.rgba its level 0 as above
  gen_nto.py seeds DIR      small files of every kind for the fuzz target
"""
import os
import struct
import sys

# -- GS local memory ----------------------------------------------------------

# Block numbers in a page. PSMCT32 and PSMT8 pages are 8 blocks across and
# 4 down; PSMT4 pages (like PSMCT16) 4 across and 8 down.
BLOCKS_32 = [
    [0, 1, 4, 5, 16, 17, 20, 21],
    [2, 3, 6, 7, 18, 19, 22, 23],
    [8, 9, 12, 13, 24, 25, 28, 29],
    [10, 11, 14, 15, 26, 27, 30, 31],
]
BLOCKS_4 = [
    [0, 2, 8, 10],
    [1, 3, 9, 11],
    [4, 6, 12, 14],
    [5, 7, 13, 15],
    [16, 18, 24, 26],
    [17, 19, 25, 27],
    [20, 22, 28, 30],
    [21, 23, 29, 31],
]
# Words of a PSMCT32 column (8 x 2 pixels).
COLUMN_32 = [[0, 1, 4, 5, 8, 9, 12, 13], [2, 3, 6, 7, 10, 11, 14, 15]]
# Bytes of a PSMT8 column (16 x 4 texels in 64 bytes): even columns of a
# block, then odd ones.
COLUMN_8 = [
    [
        [0, 4, 16, 20, 32, 36, 48, 52, 2, 6, 18, 22, 34, 38, 50, 54],
        [8, 12, 24, 28, 40, 44, 56, 60, 10, 14, 26, 30, 42, 46, 58, 62],
        [33, 37, 49, 53, 1, 5, 17, 21, 35, 39, 51, 55, 3, 7, 19, 23],
        [41, 45, 57, 61, 9, 13, 25, 29, 43, 47, 59, 63, 11, 15, 27, 31],
    ],
    [
        [32, 36, 48, 52, 0, 4, 16, 20, 34, 38, 50, 54, 2, 6, 18, 22],
        [40, 44, 56, 60, 8, 12, 24, 28, 42, 46, 58, 62, 10, 14, 26, 30],
        [1, 5, 17, 21, 33, 37, 49, 53, 3, 7, 19, 23, 35, 39, 51, 55],
        [9, 13, 25, 29, 41, 45, 57, 61, 11, 15, 27, 31, 43, 47, 59, 63],
    ],
]


def column_4(parity):
    """Nibbles of a PSMT4 column (32 x 4 texels in 64 bytes): each row of
    eight-texel groups g = 0..3 takes the words its PSMT8 row takes, at
    nibble 2g (rows 0, 1) or 2g + 1 (rows 2, 3) of each word."""
    rows = []
    for yy in range(4):
        row = []
        for xx in range(32):
            byte8 = COLUMN_8[parity][yy][xx % 8]  # group 0 of the PSMT8 row
            word = byte8 // 4
            row.append(word * 8 + 2 * (xx // 8) + (yy >> 1))
        rows.append(row)
    return rows


COLUMN_4 = [column_4(0), column_4(1)]


def addr8(x, y, tbw):
    """Byte address of PSMT8 texel (x, y); pages 128 x 64, blocks 16 x 16."""
    page = (y // 64) * tbw + x // 128
    block = BLOCKS_32[(y // 16) % 4][(x // 16) % 8]
    col = (y // 4) % 4
    return page * 8192 + block * 256 + col * 64 + COLUMN_8[col % 2][y % 4][x % 16]


def addr4(x, y, tbw):
    """Nibble address of PSMT4 texel (x, y); pages 128 x 128, blocks 32 x 16."""
    page = (y // 128) * tbw + x // 128
    block = BLOCKS_4[(y // 16) % 8][(x // 32) % 4]
    col = (y // 4) % 4
    return page * 16384 + block * 512 + col * 128 + COLUMN_4[col % 2][y % 4][x % 32]


def addr32(x, y, dbw):
    """Word address of PSMCT32 pixel (x, y); pages 64 x 32, blocks 8 x 8."""
    page = (y // 32) * dbw + x // 64
    block = BLOCKS_32[(y // 8) % 4][(x // 8) % 8]
    return page * 2048 + block * 64 + ((y // 2) % 4) * 16 + COLUMN_32[y % 2][x % 8]


def upload(bpp, w, h):
    """The PSMCT32 rectangle (width, height, buffer width in pages) that
    holds a swizzled level (docs/formats/sotc.md §8.4)."""
    if bpp == 8:
        return w // 2, h // 2, max(1, w // 128)
    if w >= 128 and h >= 128:
        return w // 2, h // 4, w // 128
    return h // 2, w // 4, max(1, h // 128)


def swizzle(bpp, w, h, indices):
    """The level's bytes: texel indices written to GS memory as PSMT8 or
    PSMT4, read back as the PSMCT32 rectangle in rows."""
    tbw = max(1, w // 128)
    mem = bytearray(w * h * bpp // 8 + 65536)
    written = set()
    for y in range(h):
        for x in range(w):
            v = indices[y * w + x]
            if bpp == 8:
                a = addr8(x, y, tbw)
                mem[a] = v
                written.add(a // 4)
            else:
                a = addr4(x, y, tbw)
                mem[a // 2] |= v << (4 * (a % 2))
                written.add(a // 8)
    rw, rh, dbw = upload(bpp, w, h)
    words = [addr32(x, y, dbw) for y in range(rh) for x in range(rw)]
    # The rectangle must cover exactly the texture's memory, or the game
    # could not have uploaded it whole.
    assert set(words) == written and len(words) == len(written), (bpp, w, h)
    return b"".join(bytes(mem[4 * a:4 * a + 4]) for a in words)


# -- Colours ------------------------------------------------------------------


def ps2_alpha(a):
    """0..255 to the PS2's 0..128."""
    return round(a * 128 / 255)


def alpha_255(a):
    """What ossa makes of a stored alpha: 0..128 scaled and rounded, above
    128 clamped (docs/formats/sotc.md §8.3)."""
    return 255 if a >= 128 else (a * 255 + 64) // 128


def csm1_position(i):
    """Where colour i of a 256-entry CLUT is stored: bits 3 and 4 swapped."""
    return (i & ~0x18) | ((i & 0x08) << 1) | ((i & 0x10) >> 1)


# -- Pictures -----------------------------------------------------------------


def gradient_palette(bpp, level):
    """Colours for a gradient: index ix + n * iy (n = 16 or 4), alpha from
    the values the PS2 range can say."""
    n = 16 if bpp == 8 else 4
    colours = []
    for i in range(n * n):
        ix, iy = i % n, i // n
        r = ix * 255 // (n - 1)
        g = iy * 255 // (n - 1)
        b = (40 * level + 7 * (ix + iy)) % 256
        a = alpha_255(128 - 4 * ((ix + iy) % 5)) if (ix + iy) % 3 else 255
        colours.append((r, g, b, a))
    return colours


def gradient_indices(bpp, w, h):
    n = 16 if bpp == 8 else 4
    return [(x * n // w) + n * (y * n // h) for y in range(h) for x in range(w)]


def quadrant_palette():
    return [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 255)]


def quadrant_indices(w, h):
    return [(1 if 2 * x >= w else 0) + (2 if 2 * y >= h else 0) for y in range(h) for x in range(w)]


def rgba_picture(w, h, level):
    """A smooth RGBA picture with alpha of every value."""
    px = []
    for y in range(h):
        for x in range(w):
            r = x * 255 // max(1, w - 1)
            g = y * 255 // max(1, h - 1)
            b = (30 * level + (x + y) * 255 // max(1, w + h - 2)) % 256
            a = (x * 255 // max(1, w - 1) + 3 * y) % 256
            px.append((r, g, b, a))
    return px


# -- Files --------------------------------------------------------------------


def xff(ro, entry=0):
    """The XFF container (docs/formats/sotc.md §2, §9.2): header, section table at
    0x78, .rodata at 0x100; no symbols or relocations (readers ignore them)."""
    f = bytearray(0x100)
    f[0:4] = b"xff\0"
    struct.pack_into("<I", f, 0x0C, 1)
    struct.pack_into("<I", f, 0x14, 0x100 + len(ro))
    struct.pack_into("<I", f, 0x40, 2)
    struct.pack_into("<I", f, 0x4C, entry)
    struct.pack_into("<I", f, 0x5C, 0x78)
    struct.pack_into("<I", f, 0x78 + 0x10, 8)  # section 0: no bits
    struct.pack_into("<IIII", f, 0x98 + 0x08, len(ro), 16, 1, 0)  # .rodata
    struct.pack_into("<I", f, 0x98 + 0x1C, 0x100)
    return bytes(f + ro)


def nto(kind, w, h, levels, swizzle_bits, nibbles="low"):
    """A texture from per-level pictures. `levels` holds, per level, the
    RGBA texels (kind 0x00) or (palette, indices) with one palette for all
    (kinds 0x13, 0x14). Returns the file and the decoded pictures."""
    bpp = {0x00: 32, 0x13: 8, 0x14: 4}[kind]
    data = bytearray()
    expect = []
    palette = None
    for i, level in enumerate(levels):
        lw, lh = max(1, w >> i), max(1, h >> i)
        swz = (swizzle_bits >> i) & 1
        if bpp == 32:
            stored = [(r, g, b, ps2_alpha(a)) for r, g, b, a in level]
            data += b"".join(bytes(c) for c in stored)
            expect.append((lw, lh, [(r, g, b, alpha_255(a)) for r, g, b, a in stored]))
            continue
        palette, indices = level
        assert len(indices) == lw * lh
        if swz:
            data += swizzle(bpp, lw, lh, indices)
        elif bpp == 8:
            data += bytes(indices)
        else:
            packed = bytearray((lw * lh + 1) // 2)
            for t, v in enumerate(indices):
                packed[t // 2] |= v << (4 * (t % 2))  # first texel in the low nibble
            data += packed
        expect.append((lw, lh, [palette[v] for v in indices]))
    header_size, pixels = 0x20, 0x20
    ro = bytearray(pixels) + data
    pal_at = 0
    if bpp != 32:
        entries = 256 if bpp == 8 else 16
        while len(ro) % 16:
            ro.append(0)
        pal_at = len(ro)
        clut = [(0, 0, 0, 0)] * entries
        for i, (r, g, b, a) in enumerate(palette):
            pos = csm1_position(i) if bpp == 8 else i
            clut[pos] = (r, g, b, ps2_alpha(a))
        ro += b"".join(bytes(c) for c in clut)
    lw, lh = w.bit_length() - 1, h.bit_length() - 1
    size_byte = (lh << 4) | lw if nibbles == "low" else (lw << 4) | lh
    ro[0:header_size] = (b"NTO2" + struct.pack("<I", 3) + bytes(12) +
                         struct.pack("<II4B", pixels, pal_at, kind, len(levels) << 4, size_byte,
                                     swizzle_bits))
    return xff(ro), expect


def palette_levels(bpp, w, h, count, indices_of=gradient_indices, palette=None):
    pal = palette or gradient_palette(bpp, 0)
    return [(pal, indices_of(bpp, max(1, w >> i), max(1, h >> i))) for i in range(count)]


def write_rgba(path, w, h, px):
    with open(path, "wb") as fh:
        fh.write(struct.pack("<II", w, h) + b"".join(bytes(c) for c in px))


def cases():
    """(name, kind, width, height, levels, swizzle bits, nibbles)."""
    return [
        ("rgba32_4x4", 0x00, 4, 4, 1, 0x00, "low"),
        ("rgba32_mips", 0x00, 32, 16, 6, 0x00, "low"),
        ("rgba32_high", 0x00, 8, 32, 2, 0x00, "high"),
        ("pal8_linear", 0x13, 16, 32, 3, 0x00, "low"),
        ("pal8_swz", 0x13, 64, 64, 3, 0x03, "low"),
        ("pal8_swz_wide", 0x13, 256, 32, 2, 0x03, "low"),
        ("pal8_swz_tall", 0x13, 16, 256, 2, 0x01, "low"),
        ("pal8_swz_pages", 0x13, 256, 128, 4, 0x07, "low"),
        ("pal8_high", 0x13, 32, 128, 2, 0x01, "high"),
        ("pal4_linear", 0x14, 32, 8, 4, 0x00, "low"),
        ("pal4_odd", 0x14, 2, 1, 2, 0x00, "low"),
        ("pal4_swz_square", 0x14, 128, 128, 3, 0x07, "low"),
        ("pal4_swz_pages", 0x14, 256, 128, 2, 0x03, "low"),
        ("pal4_swz_wide", 0x14, 256, 32, 2, 0x01, "low"),
        ("pal4_swz_tall", 0x14, 64, 256, 3, 0x03, "low"),
        ("pal4_swz_small", 0x14, 32, 16, 1, 0x01, "low"),
        ("pal4_high", 0x14, 64, 32, 2, 0x03, "high"),
    ]


def make_cases(out):
    os.makedirs(out, exist_ok=True)
    lines = []
    for name, kind, w, h, count, swz, nibbles in cases():
        if kind == 0x00:
            sources = [rgba_picture(max(1, w >> i), max(1, h >> i), i) for i in range(count)]
            data, expect = nto(kind, w, h, sources, swz, nibbles)
            for i, src in enumerate(sources):
                write_rgba(os.path.join(out, "%s.%d.src" % (name, i)), expect[i][0], expect[i][1],
                           src)
        else:
            bpp = 8 if kind == 0x13 else 4
            data, expect = nto(kind, w, h, palette_levels(bpp, w, h, count), swz, nibbles)
        with open(os.path.join(out, name + ".nto"), "wb") as fh:
            fh.write(data)
        for i, (lw, lh, px) in enumerate(expect):
            write_rgba(os.path.join(out, "%s.%d.rgba" % (name, i)), lw, lh, px)
        lines.append("%s %d %d %d %d %d %s" % (name, kind, w, h, count, swz, nibbles))
    with open(os.path.join(out, "cases.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def make_texture(out, kind, w, h, swz, count):
    if kind == 0x00:
        pal = quadrant_palette()
        levels = [[pal[v] for v in quadrant_indices(max(1, w >> i), max(1, h >> i))]
                  for i in range(count)]
    else:
        bpp = 8 if kind == 0x13 else 4
        levels = palette_levels(bpp, w, h, count, lambda b, lw, lh: quadrant_indices(lw, lh),
                                quadrant_palette())
    data, expect = nto(kind, w, h, levels, swz)
    with open(out, "wb") as fh:
        fh.write(data)
    write_rgba(out + ".rgba", *expect[0])


def make_seeds(out):
    os.makedirs(out, exist_ok=True)
    seeds = {
        "rgba32.nto": nto(0x00, 2, 2, [rgba_picture(2, 2, 0)], 0)[0],
        "rgba32_mips.nto": nto(0x00, 4, 2, [rgba_picture(4, 2, 0), rgba_picture(2, 1, 1)], 0)[0],
        "pal4.nto": nto(0x14, 4, 4, palette_levels(4, 4, 4, 2), 0)[0],
        "pal4_swz.nto": nto(0x14, 32, 16, palette_levels(4, 32, 16, 1), 1)[0],
        "pal8_swz.nto": nto(0x13, 16, 16, palette_levels(8, 16, 16, 2), 1)[0],
        "pal8_high.nto": nto(0x13, 4, 16, palette_levels(8, 4, 16, 1), 0, "high")[0],
    }
    # The header at the start of .rodata while the entry points elsewhere
    # (dormin reads it there).
    f = bytearray(nto(0x13, 4, 2, palette_levels(8, 4, 2, 1), 0)[0])
    struct.pack_into("<I", f, 0x4C, 0x20)
    seeds["pal8_start.nto"] = bytes(f)
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)


def main(argv):
    if len(argv) == 3 and argv[1] == "cases":
        make_cases(argv[2])
    elif len(argv) == 3 and argv[1] == "seeds":
        make_seeds(argv[2])
    elif len(argv) == 8 and argv[1] == "texture":
        make_texture(argv[2], int(argv[3], 0), int(argv[4]), int(argv[5]), int(argv[6], 0),
                     int(argv[7]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
