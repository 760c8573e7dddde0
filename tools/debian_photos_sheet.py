#!/usr/bin/env python3
"""A contact sheet of `gpustyle detect` on Debian's real photos (issue 36: "each, with the picture").

    sudo apt-get install opencv-doc
    python3 tools/debian_photos_sheet.py [--gpustyle .build/release/gpustyle] [--photos tools/debian_photos.json]
        --out docs/images/debian-photos.jpg [--tile 320] [--columns 4]

Each photo of tools/debian_photos.json (issue 17's list; the photos stay in Debian's package)
is detected as tools/evaluate_debian_photos.py scores it (default options; photos with several
objects with --maximum-observations 0 --minimum-size 0.05), and drawn scaled to --tile px wide:
the truth's outline thin green (every object), the first observation thick (blue when it is
within 10 px of a truth at every corner, red when not; photos with several objects, whose every
observation is scored: per object the observation closest to it), and under it the file name
and the result. Nothing is written when no photo is
installed (exit 2). The sheet is a JPEG (quality 85), for the docs.
"""
import argparse
import json
import math
import os
import sys

from PIL import Image, ImageDraw

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate_rectangles as ev  # noqa: E402

TOLERANCE = 10.0
CAPTION = 30  # px of text under each tile
TIMEOUT = 120  # seconds per photo


def detect(gpustyle, path, multi):
    """Every observation's corners, as evaluate_rectangles.py runs and reads `gpustyle detect`."""
    command = argparse.Namespace(cmd=None, gpustyle=gpustyle, args="--device cpu", multi_args=ev.MULTI_ARGS)
    try:
        text, _ = ev.run_detector(ev.build_command(command, path, multi), TIMEOUT)
        return ev.parse_observations(text)[0]
    except ev.DetectorError as e:
        sys.exit(f"error: {path}: gpustyle detect: {e}")


def right(q, truths):
    return any(max(ev.match(q, t)[0]) <= TOLERANCE for t in truths)


def tile(entry, found, width):
    im = Image.open(entry["path"]).convert("RGB")
    s = width / im.width
    im = im.resize((width, max(1, round(im.height * s))), Image.LANCZOS)
    out = Image.new("RGB", (width, im.height + CAPTION), "white")
    out.paste(im, (0, 0))
    d = ImageDraw.Draw(out)

    def poly(q, colour, w):
        pts = [((x + 0.5) * s - 0.5, (y + 0.5) * s - 0.5) for x, y in q]
        d.line(pts + pts[:1], fill=colour, width=w)

    truths = entry.get("quads") or ([entry["quad"]] if entry.get("quad") else [])
    for t in truths:
        poly(t, (0, 200, 0), 1)
    if entry.get("quads"):  # per object, the observation closest to it
        shown = [min(found, key=lambda q: max(ev.match(q, t)[0])) for t in truths] if found else []
    else:
        shown = found[:1]
    for q in shown:
        poly(q, (40, 90, 255) if right(q, truths) else (230, 30, 30), 3)
    name = os.path.basename(entry["path"])
    if not truths:
        result = "no rectangle: " + ("none found" if not found else "FALSE POSITIVE")
    elif entry.get("quads"):
        n = sum(any(max(ev.match(q, t)[0]) <= TOLERANCE for q in found) for t in truths)
        result = f"{n} of {len(truths)} found"
    else:
        result = "found" if found and right(found[0], truths) else ("wrong" if found else "missed")
    d.text((4, im.height + 2), name, fill="black")
    d.text((4, im.height + 15), result, fill="black")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpustyle", default=".build/release/gpustyle")
    ap.add_argument("--photos", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "debian_photos.json"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--tile", type=int, default=320)
    ap.add_argument("--columns", type=int, default=4)
    a = ap.parse_args(argv)
    entries = [e for e in json.load(open(a.photos)) if os.path.exists(e["path"])]
    if not entries:
        print("error: no photo of the list is installed (sudo apt-get install opencv-doc)", file=sys.stderr)
        return 2
    tiles = [tile(e, detect(a.gpustyle, e["path"], bool(e.get("quads"))), a.tile) for e in entries]
    rows = math.ceil(len(tiles) / a.columns)
    heights = [max(t.height for t in tiles[r * a.columns:(r + 1) * a.columns]) for r in range(rows)]
    sheet = Image.new("RGB", (a.columns * (a.tile + 6), sum(h + 6 for h in heights)), "white")
    y = 0
    for r in range(rows):
        for c, t in enumerate(tiles[r * a.columns:(r + 1) * a.columns]):
            sheet.paste(t, (c * (a.tile + 6) + 3, y + 3))
        y += heights[r] + 6
    tmp = a.out + ".tmp.jpg"
    sheet.save(tmp, quality=85)
    os.replace(tmp, a.out)
    print(f"{a.out}: {len(tiles)} photos")
    return 0


if __name__ == "__main__":
    sys.exit(main())
