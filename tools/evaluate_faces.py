#!/usr/bin/env python3
"""Score `gpustyle faces` on tools/make_face_scenes.py's photos: recall by face size, faces
reported on face-free photos, extra faces on photos with faces.

    python3 tools/evaluate_faces.py DIR [--binary .build/release/gpustyle] [--args "--device cpu"]

A detection matches a truth face when their boxes' intersection over union is at least 0.4 (the
truth box is the axis-aligned box around the turned face box, larger than a detector's box of an
upright face by up to ~1.5x at 30 degrees); pairs are taken best first, one to one. Sizes are the
face box's longer side before turning.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

MATCH_IOU = 0.4
BINS = [(20, 40), (40, 80), (80, 160), (160, 400.001)]


def iou(a, b):
    ax0, ay0, aw, ah = a
    bx0, by0, bw, bh = b
    w = min(ax0 + aw, bx0 + bw) - max(ax0, bx0)
    h = min(ay0 + ah, by0 + bh) - max(ay0, by0)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / (aw * ah + bw * bh - inter)


def run(binary, paths, extra):
    r = subprocess.run([binary, "faces", "--json", *extra, *paths], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(r.stderr)
    return {os.path.basename(o["file"]): o["faces"] for o in map(json.loads, r.stdout.splitlines())}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder")
    p.add_argument("--binary", default=".build/release/gpustyle")
    p.add_argument("--args", default="")
    p.add_argument("--mesh-gate", action="store_true",
                   help="score only the faces the landmark model also sees a face in (regions not null)")
    a = p.parse_args()
    truth = json.load(open(os.path.join(a.folder, "truth.json")))
    found = run(a.binary, [os.path.join(a.folder, t["file"]) for t in truth], shlex.split(a.args))
    bins = {b: [0, 0] for b in BINS}
    extra = negative_faces = negative_photos = 0
    misses = []
    for t in truth:
        dets = [d["box"] for d in found.get(t["file"], []) if not a.mesh_gate or d.get("regions") is not None]
        if not t["faces"]:
            negative_photos += 1
            negative_faces += len(dets)
            if dets:
                misses.append(f"{t['file']} ({t['background']}): {len(dets)} false faces")
            continue
        pairs = sorted(((iou(f["box"], d), i, j) for i, f in enumerate(t["faces"]) for j, d in enumerate(dets)), reverse=True)
        used_t, used_d = set(), set()
        for score, i, j in pairs:
            if score < MATCH_IOU or i in used_t or j in used_d:
                continue
            used_t.add(i)
            used_d.add(j)
        extra += len(dets) - len(used_d)
        for i, f in enumerate(t["faces"]):
            for b in BINS:
                if b[0] <= f["side"] < b[1]:
                    bins[b][1] += 1
                    bins[b][0] += i in used_t
            if i not in used_t:
                misses.append(f"{t['file']}: missed {f['source']} {f['side']:.0f}px {f['angle']:+.0f} deg")
    print("| face size (px) | found | recall |")
    print("| --- | --- | --- |")
    for (lo, hi), (hit, n) in bins.items():
        print(f"| {lo:.0f}-{hi:.0f} | {hit}/{n} | {100 * hit / max(n, 1):.1f} % |")
    big = [bins[b] for b in BINS if b[0] >= 40]
    hit, n = sum(x[0] for x in big), sum(x[1] for x in big)
    print(f"\nfaces >= 40 px: {hit}/{n} ({100 * hit / max(n, 1):.1f} %)")
    print(f"face-free photos: {negative_faces} faces reported on {negative_photos} photos")
    print(f"extra faces on photos with faces: {extra}")
    for m in misses:
        print("  " + m)


if __name__ == "__main__":
    main()
