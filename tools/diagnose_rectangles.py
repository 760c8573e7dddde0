#!/usr/bin/env python3
"""Tell where each missed rectangle was lost inside the detector.

    python3 tools/diagnose_rectangles.py SCENES_DIR [SCENES_DIR ...] [--gpustyle .build/release/gpustyle]
        [--tolerance 10] [--line-tolerance 2.5] [--json]

For every positive scene of each folder (as written by tools/make_rectangle_scenes.py) that
`gpustyle detect` does not find (as tools/evaluate_rectangles.py scores it: the best assignment
of corners, every one within --tolerance px), runs `gpustyle detect --trace` and classifies the miss by the first stage that lost it:

  side-not-found   a true side is near none of the detector's lines (its line never made a
                   Hough or segment shortlist, nor the longer lists of the corner walk); the
                   sides are listed
  no-candidate     every side has a line, but no quad candidate matches the truth: neither
                   formed within a group (the detail says "in a group" when one holds all four
                   sides: a side's edge coverage or the geometry gates rejected it) nor walked
                   from corners (DetectCorners: a corner's arm or a side's coverage fell short)
  outranked        a candidate matches the truth, but another was picked
  refinement       the pick matches the truth; moving sides out (bands, frames, stuck sides) or
                   the sub-pixel refinement lost it

A line is near a side when both of the side's ends lie within --line-tolerance working-map
pixels of it (x the trace's scale in image pixels). Prints one line per miss and the totals;
--json prints {"misses": [...], "totals": {...}} instead. Exit 0; 2 when gpustyle cannot run.
"""
import argparse
import collections
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate_rectangles as ev  # noqa: E402

CLASSES = ["side-not-found", "no-candidate", "outranked", "refinement"]
SIDES = ["top", "right", "bottom", "left"]


def matches(corners, truth, tolerance):
    """Scored as detected by tools/evaluate_rectangles.py."""
    return max(ev.match(corners, truth)[0]) <= tolerance


def lines_near(side, lines, tolerance):
    a, b = side
    near = set()
    for index, (theta, rho) in enumerate(lines):
        c, s = math.cos(theta), math.sin(theta)
        if all(abs(p[0] * c + p[1] * s - rho) <= tolerance for p in (a, b)):
            near.add(index)
    return near


def classify(trace, truth, tolerance, line_tolerance):
    """(class, detail) for a scene the detector missed."""
    sides = [(truth[k], truth[(k + 1) % 4]) for k in range(4)]
    near = [lines_near(side, trace["lines"], line_tolerance * trace["scale"]) for side in sides]
    missing = [SIDES[k] for k in range(4) if not near[k]]
    if missing:
        return "side-not-found", ",".join(missing)
    if not any(matches(c["corners"], truth, tolerance) for c in trace["candidates"]):
        grouped = any(all(near[k] & set(group) for k in range(4)) for group in trace["groups"])
        return "no-candidate", "in a group" if grouped else "in no group"
    if not any(matches(p["corners"], truth, tolerance) for p in trace["picks"]):
        return "outranked", ""
    return "refinement", ""


def detect(gpustyle, image, trace_path):
    run = subprocess.run([gpustyle, "detect", "--json", "--trace", trace_path, image], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError(f"{image}: gpustyle exited {run.returncode}: {run.stderr.strip()}")
    found, _, _ = ev.parse_output(run.stdout)
    with open(trace_path) as f:
        trace = json.load(f)
    return found, trace


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--gpustyle", default=".build/release/gpustyle")
    parser.add_argument("--tolerance", type=float, default=10.0)
    parser.add_argument("--line-tolerance", type=float, default=2.5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    misses, scenes = [], 0
    with tempfile.TemporaryDirectory() as scratch:
        trace_path = os.path.join(scratch, "trace.json")
        for folder in args.folders:
            with open(os.path.join(folder, "scenes.json")) as f:
                for scene in json.load(f):
                    if scene["kind"] != "positive":
                        continue
                    scenes += 1
                    try:
                        found, trace = detect(args.gpustyle, os.path.join(folder, scene["file"]), trace_path)
                    except (OSError, RuntimeError, ValueError, KeyError, ev.DetectorError) as error:
                        print(f"error: {error}", file=sys.stderr)
                        return 2
                    if found and matches(found, scene["quad"], args.tolerance):
                        continue
                    kind, detail = classify(trace, scene["quad"], args.tolerance, args.line_tolerance)
                    misses.append({"folder": folder, "file": scene["file"], "class": kind, "detail": detail,
                                   "detected": found is not None, "tags": scene.get("tags", [])})
    totals = collections.Counter(m["class"] for m in misses)
    if args.json:
        print(json.dumps({"scenes": scenes, "misses": misses, "totals": {k: totals[k] for k in CLASSES}}, indent=1))
        return 0
    for m in misses:
        status = "wrong" if m["detected"] else "missed"
        print(f"{m['folder']}/{m['file']}  {status:6}  {m['class']:16} {m['detail']:18} {' '.join(m['tags'])}")
    print(f"{len(misses)} of {scenes} pictures not found: "
          + ", ".join(f"{k} {totals[k]}" for k in CLASSES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
