#!/usr/bin/env python3
"""End-to-end error of `gpustyle --precision bf16` against the fp32 default, in 8-bit levels.

For every photo and style: `gpustyle --device cpu --style S PHOTO` with and without
`--precision bf16` (optionally at other --isa levels, e.g. the emulation under --isa avx2 is
refused, so only avx512), then the max and mean absolute difference of the two PNGs' RGB bytes.
Prints one row per (photo, style) and a summary; exits 1 when any max exceeds --bound.

    python3 tools/compare_precision.py --binary .build/release/gpustyle \\
        --photos examples/photo.png Tests/GPUStyleTests/Fixtures/photos/*.png --styles all
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np


def read_png_ffmpeg(path):
    """The same through ffmpeg (much faster on large pictures), or None without ffmpeg."""
    head = open(path, "rb").read(24)
    width, height = struct.unpack(">II", head[16:24])
    try:
        raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                             check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return np.frombuffer(raw, dtype=np.uint8).reshape(height, width, 3).astype(np.int32)


def read_png(path):
    """8-bit RGB/RGBA, non-interlaced PNG (what gpustyle writes) as an (h, w, c) uint8 array."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (path, depth, color, interlace)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        kind = raw[y * (stride + 1)]
        cur = line.copy()
        if kind == 1:
            for x in range(channels, stride):
                cur[x] = (cur[x] + cur[x - channels]) & 255
        elif kind == 2:
            cur = (line + prev) & 255
        elif kind == 3:
            for x in range(stride):
                left = cur[x - channels] if x >= channels else 0
                cur[x] = (line[x] + (left + prev[x]) // 2) & 255
        elif kind == 4:
            for x in range(stride):
                a = cur[x - channels] if x >= channels else 0
                b = prev[x]
                c = prev[x - channels] if x >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + pred) & 255
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels)[:, :, :3]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=".build/release/gpustyle")
    parser.add_argument("--photos", nargs="+", default=["examples/photo.png"])
    parser.add_argument("--styles", default="all", help="all, or a comma-separated list of indices")
    parser.add_argument("--bound", type=float, default=2.0, help="largest allowed max difference in levels")
    args = parser.parse_args()
    styles = list(range(26)) if args.styles == "all" else [int(s) for s in args.styles.split(",")]
    worst, means, rows = 0, [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for photo in args.photos:
            for style in styles:
                outs = []
                for extra in ([], ["--precision", "bf16"]):
                    out = os.path.join(tmp, f"{len(outs)}.png")
                    subprocess.run([args.binary, "--device", "cpu", "--style", str(style), *extra, photo, out], check=True)
                    picture = read_png_ffmpeg(out)
                    outs.append(read_png(out) if picture is None else picture)
                diff = np.abs(outs[0] - outs[1])
                over = int((diff > args.bound).sum())
                print(f"{os.path.basename(photo)}\tstyle {style}\tmax {diff.max()}\tmean {diff.mean():.4f}"
                      f"\tover {args.bound:g}: {over} of {diff.size}", flush=True)
                worst = max(worst, int(diff.max()))
                means.append(diff.mean())
                rows += 1
    print(f"{rows} pairs: max {worst} levels, mean of means {np.mean(means):.4f}, largest mean {np.max(means):.4f}")
    return 0 if worst <= args.bound else 1


if __name__ == "__main__":
    sys.exit(main())
