#!/usr/bin/env python3
"""Writes HEIF files whose primary image is derived from coded ones (a grid, an overlay),
which no encoder on PyPI or in Debian 12 writes but every iPhone photo is (a grid of 512x512
tiles): the boxes are assembled here (ISO/IEC 23008-12, 6.6.2.3 'grid' and 'iovl') around the
one HEVC picture of the pillow-heif fixture heic-webp/plain.heic (coded 64x64).

Into Tests/GPUStyleTests/Fixtures:
  heic-webp/grid.heic        2x2 grid of that picture, 128x128; the tiles' clap is not applied
  heic-webp/grid_gain_map.heic
                             the grid with a 'tmap' gain map item derived from it (decodes as the
                             grid: the box check must leave derivations libheif 1.15 skips alone)
  heic-webp/overlay.heic     overlay: the picture on a 96x80 grey canvas at (16, 8)
  heic-webp/expected/*.png   the reference decode of both: pillow-heif (its own libheif 1.23)
  fuzz/heic-oom-overlay-canvas-beyond-ispe.heic
                             the overlay with its 'ispe' at 64x64 but a 26990x26112 canvas, as
                             the heic fuzz target made it: libheif 1.15 allocated and filled
                             4.1 GB for it (FuzzRegressionTests)
  fuzz/heic-oom-grid-lists-itself.heic
                             the grid with itself as its fourth tile, as the heic target made it
                             from grid.heic: libheif 1.15 recursed, a canvas a level, to 2.1 GB

Usage: python3 tools/make_heic_derived_fixtures.py   (needs numpy, pillow-heif)
"""
import os
import struct
import sys

import numpy as np
import pillow_heif

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_image_fixtures import RGB, encode_png  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "GPUStyleTests", "Fixtures")
SOURCE = os.path.join(FIXTURES, "heic-webp", "plain.heic")


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def children(data, start, end):
    """(type, payload start, box end) of each box in data[start:end]."""
    while start < end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        if size < 8:
            raise ValueError("box sizes of 0 and 1 are not used by the source file")
        yield kind.decode(), start + 8, start + size
        start += size


def coded_picture(path):
    """hvcC box, ispe (width, height) and HEVC data of the single coded image in `path`."""
    data = open(path, "rb").read()
    top = {k: (s, e) for k, s, e in children(data, 0, len(data))}
    meta_start, meta_end = top["meta"]
    meta = {k: (s, e) for k, s, e in children(data, meta_start + 4, meta_end)}
    iprp = {k: (s, e) for k, s, e in children(data, *meta["iprp"])}
    properties = {k: (s, e) for k, s, e in children(data, *iprp["ipco"])}
    hvcc_start, hvcc_end = properties["hvcC"]
    hvcc = data[hvcc_start - 8:hvcc_end]
    ispe_start, _ = properties["ispe"]
    size = struct.unpack(">II", data[ispe_start + 4:ispe_start + 12])
    # iloc version 0, 4-byte offsets, lengths and base offset, one item of one extent: what
    # pillow-heif wrote.
    s, _ = meta["iloc"]
    if data[s] != 0 or data[s + 4] != 0x44 or data[s + 5] != 0x40 or struct.unpack(">H", data[s + 6:s + 8])[0] != 1:
        raise ValueError("unexpected iloc layout in %s" % path)
    _item, _ref, base, extents, offset, length = struct.unpack(">HHIHII", data[s + 8:s + 26])
    if extents != 1:
        raise ValueError("unexpected extent count in %s" % path)
    offset += base
    return hvcc, size, data[offset:offset + length]


def derived_heif(kind, derived_data, derived_size, tile_count, hvcc, tile_size, hevc, lists_itself=False,
                 gain_map=False):
    """A HEIF whose primary (item 1) is a `kind` ('grid' or 'iovl') of `tile_count` hidden hvc1
    items (2...), all the same coded picture; the derived item's data lives in 'idat'.
    lists_itself: the last input is item 1 itself. gain_map: one more hidden item, a 'tmap'
    (ISO 21496-1 gain map, as recent iPhones write) derived from the primary and a tile, with
    4 bytes of data in 'idat' (libheif 1.15 does not decode it; nor is it meant to be valid)."""
    tiles = list(range(2, 2 + tile_count))
    inputs = tiles[:-1] + [1] if lists_itself else tiles
    tmap = 2 + tile_count
    ftyp = box("ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heic")
    hdlr = full_box("hdlr", 0, 0, struct.pack(">I", 0) + b"pict" + bytes(12) + b"\0")
    pitm = full_box("pitm", 0, 0, struct.pack(">H", 1))
    infe = [full_box("infe", 2, 0, struct.pack(">HH", 1, 0) + kind.encode() + b"\0")]
    infe += [full_box("infe", 2, 1, struct.pack(">HH", t, 0) + b"hvc1\0") for t in tiles]  # flag 1: hidden
    references = box("dimg", struct.pack(">HH", 1, len(inputs)) + b"".join(struct.pack(">H", t) for t in inputs))
    tmap_data = bytes(4)
    if gain_map:
        infe.append(full_box("infe", 2, 1, struct.pack(">HH", tmap, 0) + b"tmap\0"))
        references += box("dimg", struct.pack(">HHHH", tmap, 2, 1, tiles[0]))
    iinf = full_box("iinf", 0, 0, struct.pack(">H", len(infe)) + b"".join(infe))
    iref = full_box("iref", 0, 0, references)
    ipco = box("ipco", hvcc + full_box("ispe", 0, 0, struct.pack(">II", *tile_size))
               + full_box("ispe", 0, 0, struct.pack(">II", *derived_size)))
    # ipma: item, count, then property indices (1-based; 0x80: essential).
    associations = struct.pack(">HB", 1, 1) + bytes([3])
    for t in tiles:
        associations += struct.pack(">HB", t, 2) + bytes([0x81, 2])
    ipma = full_box("ipma", 0, 0, struct.pack(">I", 1 + len(tiles)) + associations)
    iprp = box("iprp", ipco + ipma)
    idat = box("idat", derived_data + (tmap_data if gain_map else b""))

    def iloc(mdat_payload_offset):
        # Version 1 (construction methods), 4-byte offsets and lengths, no base offsets.
        entries = struct.pack(">HHHHII", 1, 1, 0, 1, 0, len(derived_data))  # method 1: idat
        for t in tiles:  # every tile points at the same coded picture in mdat
            entries += struct.pack(">HHHHII", t, 0, 0, 1, mdat_payload_offset, len(hevc))
        if gain_map:
            entries += struct.pack(">HHHHII", tmap, 1, 0, 1, len(derived_data), len(tmap_data))
        count = 1 + len(tiles) + (1 if gain_map else 0)
        return full_box("iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">H", count) + entries)

    def meta(offset):
        return full_box("meta", 0, 0, hdlr + pitm + iloc(offset) + iinf + iref + iprp + idat)

    offset = len(ftyp) + len(meta(0)) + 8
    return ftyp + meta(offset) + box("mdat", hevc)


def grid_data(rows, columns, width, height):
    return struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, width, height)


def overlay_data(fill, width, height, offsets):
    data = struct.pack(">BB4HHH", 0, 0, *fill, width, height)
    return data + b"".join(struct.pack(">hh", x, y) for x, y in offsets)


def reference(path):
    heif = pillow_heif.open_heif(path, convert_hdr_to_8bit=True)
    return np.asarray(heif)


def main():
    hvcc, tile, hevc = coded_picture(SOURCE)
    if tile != (64, 64):
        raise SystemExit("expected the source to be coded 64x64, found %dx%d" % tile)
    grey = (0x8000, 0x8000, 0x8000, 0xFFFF)  # canvas fill, 16 bits a channel (RGBA)
    files = {
        "heic-webp/grid.heic": derived_heif("grid", grid_data(2, 2, 128, 128), (128, 128), 4, hvcc, tile, hevc),
        "heic-webp/grid_gain_map.heic":
            derived_heif("grid", grid_data(2, 2, 128, 128), (128, 128), 4, hvcc, tile, hevc, gain_map=True),
        "heic-webp/overlay.heic": derived_heif("iovl", overlay_data(grey, 96, 80, [(16, 8)]), (96, 80), 1, hvcc, tile, hevc),
        "fuzz/heic-oom-grid-lists-itself.heic":
            derived_heif("grid", grid_data(2, 2, 128, 128), (128, 128), 4, hvcc, tile, hevc, lists_itself=True),
        "fuzz/heic-oom-overlay-canvas-beyond-ispe.heic":
            derived_heif("iovl", overlay_data(grey, 26990, 26112, [(0, 0)]), (64, 64), 1, hvcc, tile, hevc),
    }
    for name, data in files.items():
        with open(os.path.join(FIXTURES, name), "wb") as f:
            f.write(data)
        print("wrote", name, len(data), "bytes")
    single = reference(SOURCE)
    for name in ("grid", "overlay"):
        pixels = reference(os.path.join(FIXTURES, "heic-webp", name + ".heic"))
        print(name, "reference decode", pixels.shape, "corner", pixels[0, 0], "centre", pixels[pixels.shape[0] // 2, pixels.shape[1] // 2])
        with open(os.path.join(FIXTURES, "heic-webp", "expected", name + ".heic.png"), "wb") as f:
            f.write(encode_png(pixels, RGB, 8))
    # The overlay's picture at (16, 8) is the coded 64x64 (no clap on a tile): its top-left 64x48
    # must be the single image's decode, and the canvas around it the grey fill.
    overlay = reference(os.path.join(FIXTURES, "heic-webp", "overlay.heic"))
    assert np.abs(overlay[8:56, 16:80].astype(int) - single.astype(int)).max() <= 1
    assert (overlay[:8] == 128).all() and (overlay[:, :16] == 128).all()


if __name__ == "__main__":
    main()
