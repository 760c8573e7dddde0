#!/usr/bin/env python3
"""The rectangle detector's front ends side by side in one run (issue 36), and the study of how
to combine them (`FinderFusion` in Sources/GPUStyle/Rectangles/Finder/FinderFusion.swift).

    python3 tools/finder_fusion.py --gpustyle .build/release/gpustyle --cache /tmp/fusion DIR [DIR ...]
        [--modes fused,classic,learned] [--study] [--verbose]

Each DIR is a make_rectangle_scenes.py folder (scenes.json). For every scene the detector runs
once per mode (`gpustyle detect --json --device cpu --front-end MODE`; several-truth scenes with
evaluate_rectangles.py's MULTI_ARGS, as it scores them), the JSON is kept in --cache (a second
run with the same cache only runs what is missing: delete it after a rebuild), and each mode is
scored as tools/evaluate_rectangles.py scores a detector (the first observation within 10 px on
single-picture scenes, pairs on several-truth scenes, any observation on a negative a false
positive) in one table: found per folder, false positives, mean corner error, extra observations
on several-truth scenes.

--study adds the rules FinderFusion was chosen among, computed from the classic and learned modes'
lists (`learned` runs with --maximum-observations 0): the better of the two per scene (an
oracle, the ceiling of any rule choosing between them), the finder's proposals from a confidence
on, each replaced by a hand-built observation with 4, 3 or 2 corners within a share of the
shorter side of its own, with and without the hand-built observations no proposal took appended.
FinderFusion is "proposals >= 0.5, 3 corners within 0.03, + hand-built".
"""
import argparse
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate_rectangles as ev  # noqa: E402

MODES = {"fused": [], "classic": ["--front-end", "classic"],
         "learned": ["--front-end", "learned", "--maximum-observations", "0"]}
TOLERANCE = 10.0


def collect(gpustyle, cache_dir, dirs, modes):
    data = {}
    os.makedirs(cache_dir, exist_ok=True)
    for d in dirs:
        name = os.path.basename(os.path.normpath(d))
        path = os.path.join(cache_dir, name + ".json")
        res = json.load(open(path)) if os.path.exists(path) else {}
        scenes = json.load(open(os.path.join(d, "scenes.json")))
        for e in scenes:
            r = res.setdefault(e["file"], {})
            for m in modes:
                if m in r:
                    continue
                extra = ev.MULTI_ARGS.split() if ev.is_multi(e) else []
                p = subprocess.run([gpustyle, "detect", "--json", "--device", "cpu", *MODES[m], *extra,
                                    os.path.join(d, e["file"])], capture_output=True, text=True)
                try:
                    r[m] = json.loads(p.stdout)
                except json.JSONDecodeError:
                    sys.exit(f"error: {d}/{e['file']}: {m}: {p.stderr.strip()[-300:]}")
        with open(path + ".tmp", "w") as f:
            json.dump(res, f)
        os.replace(path + ".tmp", path)
        data[name] = (scenes, res)
    return data


def quads(r, mode):
    return [[o["corners"][k] for k in ev.CORNER_KEYS] for o in r.get(mode, {}).get("observations", [])]


def confidences(r, mode):
    return [o["confidence"] for o in r.get(mode, {}).get("observations", [])]


def agrees(a, b, tol, corners):
    """At least `corners` corners of a within tol of b's, in the best of the four rotations."""
    return max(sum(math.dist(a[(k + s) % 4], b[k]) <= tol for k in range(4)) for s in range(4)) >= corners


def score(data, rule):
    """rule(r, entry, shorter_side) -> list of quads. Returns per-folder and total counts."""
    rows = {}
    for name, (scenes, res) in data.items():
        row = rows[name] = {"found": 0, "truths": 0, "fp": 0, "negatives": 0, "errors": [], "extra": 0}
        for e in scenes:
            r = res[e["file"]]
            side = min(r[next(iter(r))]["width"], r[next(iter(r))]["height"])
            found = rule(r, e, side)
            if ev.is_multi(e):
                results = ev.score_multi(e, found, TOLERANCE)
                row["extra"] += results[0]["extra_observations"]
            else:
                results = [ev.score_scene(e, found[0] if found else None, TOLERANCE)]
            for x in results:
                if x["status"] in ("false_positive", "true_negative"):
                    row["negatives"] += 1
                    row["fp"] += x["status"] == "false_positive"
                    continue
                row["truths"] += 1
                if x["status"] == "detected":
                    row["found"] += 1
                    row["errors"] += x["corner_errors"]
    return rows


def table(label, rows):
    found = sum(r["found"] for r in rows.values())
    truths = sum(r["truths"] for r in rows.values())
    errors = [e for r in rows.values() for e in r["errors"]]
    print(f"| {label} | **{found}/{truths} ({100 * found / max(truths, 1):.1f} %)** | "
          + " | ".join(f"{r['found']}/{r['truths']}" for r in rows.values())
          + f" | {sum(r['fp'] for r in rows.values())}/{sum(r['negatives'] for r in rows.values())}"
          + f" | {sum(errors) / max(len(errors), 1):.2f} | {sum(r['extra'] for r in rows.values())} |")


def curve(data, mode):
    """Every observation of `mode` (single-picture scenes: the first; several-truth scenes: each)
    by confidence bin: how many, and the share that is right (a truth within TOLERANCE, each
    truth taken once)."""
    bins = [(0.0, 0.1), (0.1, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 1.01)]
    counts = [[0, 0] for _ in bins]
    for scenes, res in data.values():
        for e in scenes:
            r = res[e["file"]].get(mode, {})
            obs = r.get("observations", [])
            if not ev.is_multi(e):
                obs = obs[:1]
            truths = e.get("quads") if ev.is_multi(e) else ([e["quad"]] if e.get("quad") else [])
            used = set()
            for o in obs:
                q = [o["corners"][k] for k in ev.CORNER_KEYS]
                hit = next((i for i, t in enumerate(truths) if i not in used and max(ev.match(q, t)[0]) <= TOLERANCE), None)
                if hit is not None:
                    used.add(hit)
                b = next(i for i, (lo, hi) in enumerate(bins) if lo <= o["confidence"] < hi)
                counts[b][0] += 1
                counts[b][1] += hit is not None
    print(f"\n| confidence ({mode}) | observations | right |")
    print("|---|---|---|")
    for (lo, hi), (n, right) in zip(bins, counts):
        print(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {n} | {100 * right / n:.1f} % |" if n else f"| {lo:.2f}-{min(hi, 1.0):.2f} | 0 | - |")


def snapped(proposals, confs, hand_built, side, threshold, share, corners, append):
    out, taken = [], set()
    for q, c in zip(proposals, confs):
        if c < threshold:
            continue
        k = next((k for k, h in enumerate(hand_built) if k not in taken and agrees(h, q, share * side, corners)), None)
        if k is None:
            out.append(q)
        else:
            taken.add(k)
            out.append(hand_built[k])
    if not out:
        return hand_built
    return out + ([h for k, h in enumerate(hand_built) if k not in taken] if append else [])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpustyle", default=".build/release/gpustyle")
    ap.add_argument("--cache", required=True)
    ap.add_argument("--modes", default="fused,classic,learned")
    ap.add_argument("--study", action="store_true")
    ap.add_argument("--curve", action="store_true", help="confidence against precision of the first mode's observations")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args(argv)
    modes = a.modes.split(",")
    if a.study:
        modes = sorted(set(modes) | {"classic", "learned"})
    data = collect(a.gpustyle, a.cache, a.dirs, modes)
    print("| front end | found | " + " | ".join(data) + " | false positives | corner error (px) | extra |")
    print("|---" * (len(data) + 5) + "|")
    for m in modes:
        table(m, score(data, lambda r, e, side, m=m: quads(r, m)))
    if a.curve:
        curve(data, modes[0])
    if not a.study:
        return 0

    def oracle(r, e, side):
        c, learned = quads(r, "classic"), quads(r, "learned")
        if ev.is_multi(e):
            return max((c, learned), key=lambda q: sum(x["status"] == "detected" for x in ev.score_multi(e, q, TOLERANCE)))
        for q in c[:1] + learned[:1]:
            if e["kind"] == "positive" and ev.score_scene(e, q, TOLERANCE)["status"] == "detected":
                return [q]
        return c[:1]
    table("either (oracle)", score(data, oracle))
    for threshold in (0.3, 0.5, 0.7):
        for share in (0.03, 0.05):
            for corners in (4, 3, 2):
                for append in (False, True):
                    table(f"proposals >= {threshold}, {corners} corners within {share}{', + hand-built' if append else ''}",
                          score(data, lambda r, e, side, t=threshold, s=share, c=corners, ap_=append: snapped(
                              quads(r, "learned"), confidences(r, "learned"), quads(r, "classic"), side, t, s, c, ap_)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
