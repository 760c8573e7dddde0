#!/usr/bin/env python3
"""Measure what `gpustyle detect`'s confidence means: precision and recall against a threshold,
and how well the confidence matches the share of right observations (calibration).

    python3 tools/confidence_curve.py SCENES_DIR [SCENES_DIR ...] [--gpustyle .build/release/gpustyle]
        [--tolerance 10] [--bins 10] [--save RUN.json] [--load RUN.json ...] [--json]

Each folder holds scenes.json as written by tools/make_rectangle_scenes.py (scenes with several
truths carry "quads"). For every image the tool runs
    GPUSTYLE detect --json --maximum-observations 0 --minimum-confidence 0 IMAGE
(every observation, none filtered; scenes with several truths get evaluate_rectangles.py's
--minimum-size 0.05 too, as it scores them) and labels each observation, in the detector's
order, right when it matches a truth not matched by an earlier observation of the scene, all
four corners within --tolerance px (10) under evaluate_rectangles.match's best corner
assignment; otherwise wrong (every observation on a negative is wrong).

Report, over all the folders together:
  * for thresholds 0.00, 0.05, ..., 0.95 (an observation is kept when confidence >= t, as
    `--minimum-confidence t` keeps it): the observations kept, their precision (share right),
    recall of the truths by the first observation of each single-truth positive scene (what
    `detect` reports by default, one observation), and recall of all truths by all
    observations, with the false detections per scene (wrong observations kept / scenes);
  * a reliability table: the observations in --bins equal confidence bins, each bin's mean
    confidence against its share of right observations, and the Expected Calibration Error
    (ECE: the bins' |share right - mean confidence| weighted by their observation counts);
    the same for first observations alone.
The first observation is taken from the every-observation run: the picks are the same, but
with --maximum-observations 1 the detector refines only its best-ranked pick, which is not
always the first one here (so "first" recall is close to, not exactly, a default run's).

--fit (with a run of a build from before the calibration, whose confidence is the raw edge
score, e.g. main at f1ef228) fits the two tables of Sources/GPUStyle/Rectangles/Detection/
DetectConfidence.swift and prints them: for the first observation of each scene and for the
later ones, the share right as a piecewise-linear function of the score at the fixed knots
FIRST_KNOTS and LATER_KNOTS. Each knot's value is the mean label of the observations around
it, weighted by the linear interpolation weights (the "hat" functions), with half a right
observation in one added (so no knot claims 0 or 1 from a few observations); then made
non-decreasing by pooling adjacent violators. --apply-fit shows the report with a run's scores
mapped through freshly fitted tables the way the detector maps them (to compare before/after
on the same run).

--save writes the labelled observations (per scene: folder, file, kind, truth count, and each
observation's confidence, corners and label) to a JSON file; --load reads such files instead
of running the detector (several allowed; the folders then come from the files). --json prints
the report as one JSON object. Exit 0; 2 when the detector cannot run.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate_rectangles as ev  # noqa: E402

BASE_ARGS = "--maximum-observations 0 --minimum-confidence 0"
THRESHOLDS = [round(0.05 * k, 2) for k in range(20)]
# Knots (edge score) of DetectConfidence's tables: where the development runs' share right
# changes (first observations: about 0.55-0.65 up to 0.93, then rising steeply; later ones:
# near 0 up to 0.875, then rising steeply to 0.97).
FIRST_KNOTS = [0.6, 0.75, 0.93, 0.97, 0.99, 1.0]
LATER_KNOTS = [0.7, 0.8, 0.875, 0.915, 0.94, 0.965, 1.0]


def label(observations, truths, tol):
    """Right/wrong per observation (in order): right when it matches a not-yet-matched truth
    with every corner within tol (the closest such truth, by the sum of corner distances)."""
    used, labels = set(), []
    for o in observations:
        best = None
        for ti, t in enumerate(truths):
            if ti in used:
                continue
            errs, _, _ = ev.match(o, t)
            if max(errs) <= tol and (best is None or sum(errs) < best[0]):
                best = (sum(errs), ti)
        if best is not None:
            used.add(best[1])
        labels.append(best is not None)
    return labels


def truths_of(entry):
    if entry["kind"] != "positive":
        return []
    if ev.is_multi(entry):
        return entry["quads"]
    return [entry["quad"]] if entry.get("quad") is not None else []


def run_folder(folder, gpustyle, tol, timeout):
    with open(os.path.join(folder, "scenes.json")) as f:
        manifest = json.load(f)
    scenes = []
    for entry in manifest:
        image = os.path.join(folder, entry["file"])
        extra = ev.MULTI_ARGS.split() if ev.is_multi(entry) else []
        cmd = [gpustyle, "detect", "--json", *BASE_ARGS.split(), *extra, image]
        text, _ = ev.run_detector(cmd, timeout)
        doc = json.loads(text)
        corners, _, _ = ev.parse_observations(text)
        truths = truths_of(entry)
        labels = label(corners, truths, tol)
        scenes.append({"folder": os.path.abspath(folder), "file": entry["file"], "kind": entry["kind"],
                       "multi": ev.is_multi(entry), "truths": len(truths),
                       "observations": [{"confidence": o["confidence"], "corners": c, "right": r}
                                        for o, c, r in zip(doc["observations"], corners, labels)]})
    return scenes


def fit_table(pairs, knots):
    """Non-decreasing probabilities at knots for (score, right) pairs: hat-weighted mean labels
    with half a right observation added per knot, then pooled adjacent violators."""
    num, den = [0.5] * len(knots), [1.0] * len(knots)
    for x, y in pairs:
        x = min(max(x, knots[0]), knots[-1])
        k = next(k for k in range(len(knots) - 1) if x <= knots[k + 1])
        t = (x - knots[k]) / (knots[k + 1] - knots[k])
        num[k] += (1 - t) * y
        den[k] += 1 - t
        num[k + 1] += t * y
        den[k + 1] += t
    blocks = []  # [label sum, weight, knot indices]
    for k in range(len(knots)):
        blocks.append([num[k], den[k], [k]])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            n, d, ks = blocks.pop()
            blocks[-1][0] += n
            blocks[-1][1] += d
            blocks[-1][2] += ks
    values = [0.0] * len(knots)
    for n, d, ks in blocks:
        for k in ks:
            values[k] = n / d
    return values


def interpolate(knots, values, x):
    """DetectConfidence.Table: linear between knots, constant beyond the ends."""
    if x <= knots[0]:
        return values[0]
    for k in range(len(knots) - 1):
        if x <= knots[k + 1]:
            t = (x - knots[k]) / (knots[k + 1] - knots[k])
            return values[k] + t * (values[k + 1] - values[k])
    return values[-1]


def fit(scenes):
    first = [(s["observations"][0]["confidence"], s["observations"][0]["right"]) for s in scenes if s["observations"]]
    later = [(o["confidence"], o["right"]) for s in scenes for o in s["observations"][1:]]
    return fit_table(first, FIRST_KNOTS), fit_table(later, LATER_KNOTS)


def apply_fit(scenes, first, later):
    """The scenes with each score mapped as RectangleDetector maps it: the first observation
    through the first table, the others through the later one, capped at the first's value and
    sorted best first behind it."""
    out = []
    for s in scenes:
        obs = [dict(o) for o in s["observations"]]
        for i, o in enumerate(obs):
            p = interpolate(FIRST_KNOTS, first, o["confidence"]) if i == 0 else \
                min(interpolate(LATER_KNOTS, later, o["confidence"]), obs[0]["confidence"])
            o["confidence"] = round(p, 6)
        out.append(dict(s, observations=obs[:1] + sorted(obs[1:], key=lambda o: -o["confidence"])))
    return out


def reliability(pairs, bins):
    """pairs: (confidence, right). Returns (rows, ece): rows of (low, high, count, mean
    confidence, share right)."""
    rows, ece, n = [], 0.0, len(pairs)
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(c, r) for c, r in pairs if lo <= c < hi or (b == bins - 1 and c == 1.0)]
        if not inside:
            rows.append((lo, hi, 0, None, None))
            continue
        conf = sum(c for c, _ in inside) / len(inside)
        acc = sum(r for _, r in inside) / len(inside)
        ece += len(inside) / n * abs(acc - conf)
        rows.append((lo, hi, len(inside), conf, acc))
    return rows, ece


def curve(scenes):
    single = [s for s in scenes if s["truths"] == 1 and not s["multi"]]
    all_truths = sum(s["truths"] for s in scenes)
    rows = []
    for t in THRESHOLDS:
        kept = [o for s in scenes for o in s["observations"] if o["confidence"] >= t]
        right = sum(o["right"] for o in kept)
        first = sum(1 for s in single if s["observations"] and s["observations"][0]["confidence"] >= t
                    and s["observations"][0]["right"])
        firsts = [s["observations"][0] for s in scenes if s["observations"] and s["observations"][0]["confidence"] >= t]
        rows.append({"threshold": t, "kept": len(kept), "precision": right / len(kept) if kept else None,
                     "first_kept": len(firsts),
                     "first_precision": sum(o["right"] for o in firsts) / len(firsts) if firsts else None,
                     "recall_first": first / len(single) if single else None,
                     "recall_all": right / all_truths if all_truths else None,
                     "false_per_scene": (len(kept) - right) / len(scenes)})
    return rows


def report(scenes, bins):
    pairs = [(o["confidence"], o["right"]) for s in scenes for o in s["observations"]]
    first = [(s["observations"][0]["confidence"], s["observations"][0]["right"]) for s in scenes if s["observations"]]
    rel, ece = reliability(pairs, bins)
    rel1, ece1 = reliability(first, bins)
    return {"scenes": len(scenes), "truths": sum(s["truths"] for s in scenes),
            "single_truth_positives": sum(1 for s in scenes if s["truths"] == 1 and not s["multi"]),
            "observations": len(pairs), "right": sum(r for _, r in pairs),
            "curve": curve(scenes), "reliability": rel, "ece": ece, "reliability_first": rel1, "ece_first": ece1}


def pct(v):
    return "-" if v is None else f"{100 * v:5.1f}%"


def print_report(r, out=sys.stdout):
    w = out.write
    w(f"{r['scenes']} scenes, {r['truths']} truths ({r['single_truth_positives']} single-truth positives), "
      f"{r['observations']} observations, {r['right']} right\n\n")
    w(" thresh  kept  precision  first kept  first prec  recall first  recall all  false/scene\n")
    for c in r["curve"]:
        w(f"  {c['threshold']:.2f}  {c['kept']:5d}    {pct(c['precision']):>6s}     {c['first_kept']:5d}      "
          f"{pct(c['first_precision']):>6s}       {pct(c['recall_first']):>6s}      {pct(c['recall_all']):>6s}"
          f"       {c['false_per_scene']:.2f}\n")
    for name, rel, ece in (("all observations", r["reliability"], r["ece"]),
                           ("first observations", r["reliability_first"], r["ece_first"])):
        w(f"\nreliability, {name}: confidence bin, count, mean confidence, share right\n")
        for lo, hi, n, conf, acc in rel:
            if n:
                w(f"  [{lo:.1f}, {hi:.1f})  {n:5d}   {conf:.3f}   {acc:.3f}\n")
        w(f"  ECE {ece:.3f}\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Precision/recall against --minimum-confidence, and calibration.",
                                 epilog="See the module docstring.")
    ap.add_argument("scenes", nargs="*", help="folders with scenes.json")
    ap.add_argument("--gpustyle", default=".build/release/gpustyle", help="detector binary")
    ap.add_argument("--tolerance", type=float, default=10.0, help="max corner distance (px) for a right observation")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per image")
    ap.add_argument("--bins", type=int, default=10, help="confidence bins of the reliability table")
    ap.add_argument("--save", help="write the labelled observations to this JSON file")
    ap.add_argument("--load", action="append", help="read labelled observations instead of running (repeatable)")
    ap.add_argument("--fit", action="store_true", help="fit DetectConfidence's tables (on raw-score runs) and print them")
    ap.add_argument("--apply-fit", action="store_true", help="report with the scores mapped through the fitted tables")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    scenes = []
    for path in args.load or []:
        with open(path) as f:
            scenes.extend(json.load(f))
    for folder in args.scenes:
        try:
            scenes.extend(run_folder(folder, args.gpustyle, args.tolerance, args.timeout))
        except (OSError, ev.DetectorError) as e:
            print(f"error: {folder}: {e}", file=sys.stderr)
            return 2
    if not scenes:
        print("error: no scenes (give folders or --load)", file=sys.stderr)
        return 2
    if args.save:
        with open(args.save, "w") as f:
            json.dump(scenes, f)
    if args.fit or args.apply_fit:
        first, later = fit(scenes)
        if args.fit:
            for name, knots, values in (("first", FIRST_KNOTS, first), ("later", LATER_KNOTS, later)):
                print(f"{name}: " + ", ".join(f"({k:g}, {v:.3f})" for k, v in zip(knots, values)))
            return 0
        scenes = apply_fit(scenes, first, later)
    r = report(scenes, args.bins)
    if args.json:
        json.dump(r, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_report(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
