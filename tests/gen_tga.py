#!/usr/bin/env python3
"""Truevision TGA files of every kind with known pixels, written from the
TGA 2.0 specification alone (nothing of ossa is used), for the tests of
ossa's TGA decoder and as seeds for its fuzz target.

usage: gen_tga.py DIR [--small]

Writes DIR/NAME.tga and DIR/NAME.rgba for every case, and DIR/cases.txt
listing the names. NAME.rgba is what a correct decoder gives: width and
height as 32-bit little-endian numbers, then the RGBA bytes, rows from the
top of the picture, each from its left. Alpha is the pixel's own where the
header declares alpha bits and the pixel has room for it, else 255; 5-bit
channels are scaled to the nearest 8-bit level, round(v * 255 / 31).
--small writes pictures of a few pixels (the fuzz seeds, fuzz/corpus/tga).
"""
import os
import struct
import sys


def picture(w, h):
    """The known pixels: (r, g, b, a) per pixel, rows from the top."""
    return [[((x * 37 + y * 11) & 255, (x * 5 + y * 71 + 13) & 255, (x * x + y * 3) & 255,
              (x * 17 + y * 29 + 7) & 255) for x in range(w)] for y in range(h)]


def five(v8):
    return v8 >> 3


def from_five(v5):
    return (v5 * 255 + 15) // 31  # round(v5 * 255 / 31): 31 is odd, no ties


def header(image_type, w, h, depth, desc, id_len=0, map_type=0, map_first=0, map_len=0,
           map_bits=0):
    return struct.pack("<BBBHHBHHHHBB", id_len, map_type, image_type, map_first, map_len,
                       map_bits, 0, 0, w, h, depth, desc)


def file_order(rows, desc):
    """The pixels in the order a file stores them: bottom row first unless
    descriptor bit 5 (top-down), each row from the left unless bit 4."""
    out = rows if desc & 0x20 else rows[::-1]
    return [row[::-1] if desc & 0x10 else row for row in out]


def rle(units, w, cross_rows):
    """Run-length packets over the pixel encodings `units` (bytes each):
    runs of 2 or more equal values become run packets, the rest raw
    packets, at most 128 pixels each; without cross_rows no packet spans
    two rows (TGA 2.0), with it packets run on (TGA 1.0 files)."""
    out = bytearray()
    spans = [units] if cross_rows else [units[i:i + w] for i in range(0, len(units), w)]
    for span in spans:
        i = 0
        while i < len(span):
            j = i
            while j + 1 < len(span) and span[j + 1] == span[i] and j - i < 127:
                j += 1
            if j > i:
                out.append(0x80 | (j - i))
                out += span[i]
                i = j + 1
                continue
            j = i
            while j + 1 < len(span) and j - i < 127 and span[j + 1] != span[j]:
                j += 1
            # a raw packet ends before the first pixel of a coming run
            if j + 1 < len(span) and span[j + 1] == span[j] and j > i:
                j -= 1
            out.append(j - i)
            for k in range(i, j + 1):
                out += span[k]
            i = j + 1
    return bytes(out)


def blocky(rows):
    """The picture in 3-pixel horizontal blocks, so that runs occur."""
    return [[row[(x // 3) * 3] for x in range(len(row))] for row in rows]


def true_colour(rows, depth, desc, alpha_used):
    """Encodes each pixel; returns (encodings, expected rows)."""
    enc, exp = {}, []
    for row in rows:
        er = []
        for (r, g, b, a) in row:
            if depth == 24:
                e, x = bytes((b, g, r)), (r, g, b, 255)
            elif depth == 32:
                e, x = bytes((b, g, r, a)), (r, g, b, a if alpha_used else 255)
            else:
                abit = 1 if a >= 128 else 0
                v = five(r) << 10 | five(g) << 5 | five(b) | (abit << 15 if depth == 16 else 0)
                e = struct.pack("<H", v)
                x = (from_five(five(r)), from_five(five(g)), from_five(five(b)),
                     (255 if abit else 0) if alpha_used else 255)
            enc[(r, g, b, a)] = e
            er.append(x)
        exp.append(er)
    return enc, exp


def grey(rows, depth, alpha_used):
    enc, exp = {}, []
    for row in rows:
        er = []
        for (r, g, b, a) in row:
            y = (r * 3 + g * 5 + b * 2) // 10
            enc[(r, g, b, a)] = bytes((y, a)) if depth == 16 else bytes((y,))
            er.append((y, y, y, a if alpha_used else 255))
        exp.append(er)
    return enc, exp


def case_true(name, w, h, depth, desc, compressed=False, cross=False, alpha_used=None,
              id_len=0, skip_map=0, footer=False, blocks=False, rows=None):
    rows = rows or picture(w, h)
    if blocks:
        rows = blocky(rows)
    if alpha_used is None:
        alpha_used = bool(desc & 15) and depth in (16, 32)
    enc, exp = true_colour(rows, depth, desc, alpha_used)
    units = [enc[p] for row in file_order(rows, desc) for p in row]
    data = rle(units, w, cross) if compressed else b"".join(units)
    map_bits = 24 if skip_map else 0
    out = header(10 if compressed else 2, w, h, depth, desc, id_len, 1 if skip_map else 0, 0,
                 skip_map, map_bits)
    out += bytes((i * 7) & 255 for i in range(id_len))
    out += bytes(((i * 13) & 255) for i in range(skip_map * 3))
    out += data
    if footer:
        out += tga2_tail(len(out))
    return name, out, exp


def case_grey(name, w, h, depth, desc, compressed=False, blocks=False):
    rows = picture(w, h)
    if blocks:
        rows = blocky(rows)
    alpha_used = bool(desc & 15) and depth == 16
    enc, exp = grey(rows, depth, alpha_used)
    units = [enc[p] for row in file_order(rows, desc) for p in row]
    data = rle(units, w, False) if compressed else b"".join(units)
    return name, header(11 if compressed else 3, w, h, depth, desc) + data, exp


def case_mapped(name, w, h, map_bits, desc, index_bits=8, first=0, compressed=False,
                cross=False, entries=None):
    """Pixels are indices into a colour map of `entries` colours, chosen
    from (x, y); the map starts at index `first`."""
    n = entries or (200 if index_bits == 8 else 300)
    colours = [((i * 53) & 255, (i * 101 + 7) & 255, (i * 29 + 200) & 255, (i * 71 + 3) & 255)
               for i in range(n)]
    alpha_used = bool(desc & 15) and map_bits in (16, 32)
    enc_map, exp_map = true_colour([colours], map_bits, desc, alpha_used)
    table = b"".join(enc_map[c] for c in colours)
    idx_rows = [[(x * 7 + y * 13) % n for x in range(w)] for y in range(h)]
    if compressed:
        idx_rows = blocky(idx_rows)
    exp = [[exp_map[0][i] for i in row] for row in idx_rows]
    fmt = "<B" if index_bits == 8 else "<H"
    units = [struct.pack(fmt, i + first) for row in file_order(idx_rows, desc) for i in row]
    data = rle(units, w, cross) if compressed else b"".join(units)
    out = header(9 if compressed else 1, w, h, index_bits, desc, 0, 1, first, n, map_bits)
    return name, out + table + data, exp


def tga2_tail(extension_at):
    """A TGA 2.0 extension area (495 bytes, its size first) and the
    26-byte footer pointing at it."""
    ext = bytearray(495)
    struct.pack_into("<H", ext, 0, 495)
    ext[2:2 + 5] = b"ossa "  # author name field
    ext[494] = 3  # attributes type: useful alpha
    return bytes(ext) + struct.pack("<II", extension_at, 0) + b"TRUEVISION-XFILE.\0"


def cases(small):
    w, h = (5, 3) if small else (37, 23)
    c = [
        case_true("true24_bottom_up", w, h, 24, 0x00),
        case_true("true24_top_down", w, h, 24, 0x20),
        case_true("true24_right_to_left", w, h, 24, 0x10),
        case_true("true24_top_down_right_to_left", w, h, 24, 0x30),
        case_true("true32_alpha", w, h, 32, 0x08),
        case_true("true32_alpha_top_down", w, h, 32, 0x28),
        case_true("true32_no_alpha_bits", w, h, 32, 0x00),
        case_true("true16_alpha_bit", w, h, 16, 0x01),
        case_true("true16_no_alpha_bits", w, h, 16, 0x00),
        case_true("true15", w, h, 15, 0x00),
        case_true("true24_id_and_unused_map", w, h, 24, 0x00, id_len=11, skip_map=4),
        case_true("true32_tga2_footer", w, h, 32, 0x08, footer=True),
        case_true("rle24", w, h, 24, 0x00, compressed=True, blocks=True),
        case_true("rle24_cross_rows", w, h, 24, 0x20, compressed=True, cross=True, blocks=True),
        case_true("rle32_alpha", w, h, 32, 0x08, compressed=True, blocks=True),
        case_true("rle16_alpha_bit", w, h, 16, 0x31, compressed=True, blocks=True),
        case_true("rle24_raw_only", w, h, 24, 0x00, compressed=True),
        case_grey("grey8", w, h, 8, 0x00),
        case_grey("grey16_alpha", w, h, 16, 0x08),
        case_grey("grey16_no_alpha_bits", w, h, 16, 0x00),
        case_grey("rle_grey8", w, h, 8, 0x20, compressed=True, blocks=True),
        case_grey("rle_grey16_alpha", w, h, 16, 0x08, compressed=True, blocks=True),
        case_mapped("mapped8_24", w, h, 24, 0x00),
        case_mapped("mapped8_32_alpha", w, h, 32, 0x08),
        case_mapped("mapped8_32_no_alpha_bits", w, h, 32, 0x00),
        case_mapped("mapped8_16_alpha_bit", w, h, 16, 0x01),
        case_mapped("mapped8_15", w, h, 15, 0x20),
        case_mapped("mapped8_first_index", w, h, 24, 0x00, first=40),
        case_mapped("mapped16_24", w, h, 24, 0x00, index_bits=16, first=1000),
        case_mapped("rle_mapped8_24", w, h, 24, 0x00, compressed=True),
        case_mapped("rle_mapped8_32_cross_rows", w, h, 32, 0x28, compressed=True, cross=True),
        case_mapped("rle_mapped16_16", w, h, 16, 0x10, index_bits=16, compressed=True),
    ]
    # Declared alpha that is 0 everywhere: read as opaque.
    zero = [[(r, g, b, 0) for (r, g, b, _) in row] for row in picture(w, h)]
    name, data, exp = case_true("true32_alpha_all_zero", w, h, 32, 0x08, rows=zero)
    c.append((name, data, [[(r, g, b, 255) for (r, g, b, _) in row] for row in exp]))
    return c


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    small = "--small" in sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    names = []
    for name, data, exp in cases(small):
        with open(os.path.join(out, name + ".tga"), "wb") as f:
            f.write(data)
        if not small:
            with open(os.path.join(out, name + ".rgba"), "wb") as f:
                f.write(struct.pack("<II", len(exp[0]), len(exp)))
                f.write(bytes(v for row in exp for px in row for v in px))
        names.append(name)
    if not small:
        with open(os.path.join(out, "cases.txt"), "w") as f:
            f.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
