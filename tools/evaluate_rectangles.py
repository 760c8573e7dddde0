#!/usr/bin/env python3
"""Score a rectangle detector on a folder of scenes with known ground truth.

    python3 tools/evaluate_rectangles.py [SCENES_DIR] [--gpustyle .build/release/gpustyle]
        [--args "..."] [--multi-args "..."] [--cmd "TEMPLATE"] [--tolerance 10] [--timeout 60] [--only TAG]
        [--json] [--verbose]

SCENES_DIR defaults to Tests/GPUStyleTests/Fixtures/rectangles and must hold scenes.json as
written by tools/make_rectangle_scenes.py: a JSON list of
    {"file": "000.jpg", "kind": "positive" | "negative", "quad": [[x, y] x4] | null,
     "tags": [...], ...}
with the corners in the order top-left, top-right, bottom-right, bottom-left.

Coordinates: pixels, origin top-left, **pixel centres at integer coordinates** (the top-left pixel
covers [-0.5, 0.5]^2). The detector must report in the same convention.

Detector interface
------------------
For each image the evaluator runs
    GPUSTYLE detect --json [ARGS...] IMAGE
(GPUSTYLE from --gpustyle, ARGS from --args, split like a shell would; write --args="--x 1" with
an equals sign when the value is a single option), or, with --cmd, the given
command template with {image} replaced by the image path (e.g. --cmd "python3 my_detector.py
{image}"). The command must print on stdout
    {"width": W, "height": H,
     "observations": [{"corners": {"topLeft": [x, y], "topRight": [x, y],
                                   "bottomRight": [x, y], "bottomLeft": [x, y]},
                       "normalized": {...}, "confidence": c, "boundingBox": [x, y, w, h]}, ...]}
and exit 0, or exit 1 with an empty list (gpustyle's "no rectangle found"). Only the first
observation is scored, except on scenes with several truths (below); an empty list means "no
rectangle". An optional top-level "milliseconds"
(the detector's own timing) is reported too. Another exit code, a timeout, or output that is not
such JSON counts as an error for that scene (scored as no detection, and listed); if the
detector cannot be started at all, or every scene errors, the evaluator stops with exit code 2.

Scoring
-------
* The detected corners are matched to the truth in order, trying the 4 cyclic rotations of the
  detection (and, separately, the reversed winding), keeping the assignment with the smallest
  mean corner distance. A best assignment other than "rotation 0, clockwise" is reported as a
  wrong orientation (start corner or winding), but still scored on its distances.
* A positive counts as detected when all four matched corners are within --tolerance px (10) of
  the truth. A detection on a positive that misses that is "wrong" (counted as not detected).
  Any detection on a negative is a false positive.
* Corner error: distance per corner, over the detected positives: mean, 95th percentile (of the
  per-corner distances) and max. The mean over all positives that returned something (including
  wrong ones) is printed too, for information.
* Scenes with several truths (an entry with "quads": [[[x, y] x4], ...], e.g. the sticky_notes
  kind of make_rectangle_scenes.py; "quad" is then just the largest) are run with --multi-args
  added after --args (default "--maximum-observations 0 --minimum-size 0.05": every observation,
  and notes of 8-20 % of the shorter side are below Vision's default minimum size 0.2; pass
  --multi-args "" to run them like the others; with --cmd the command itself must print them
  all). Each truth counts as one positive, named FILE#k: truths and observations are paired one
  to one, closest first (sum of the matched corner distances), and a truth is detected when its
  pair's four corners are within --tolerance. Observations in no detected pair are extra
  observations (false detections on a positive scene): reported per tag and in the summary
  ("extra_observations"), not in the false-positive rate, which stays per negative scene.
  Entries without "quads" are scored exactly as before.
* Targets (printed as PASS/FAIL): detection rate >= 95 %, false-positive rate <= 5 %,
  mean corner error <= 1.5 px. Exit code 0 when all pass, 1 when one fails, 2 when the
  detector could not be run or errored on any scene (the report is still printed then).
* Per-tag breakdown of all of the above (a scene counts under each of its tags), and the
  detector's wall-clock time per image (process start to exit, so it includes loading).

--json prints one JSON object instead of the table: {"summary": {...}, "targets": {...},
"tags": {tag: {...}}, "scenes": [{"file", "kind", "status", "corner_errors", "rotation",
"reversed", "ms", "detector_ms", "error"}]} (a several-truth scene gives one "scenes" item per
truth, file "NNN.jpg#k" plus "scene": "NNN.jpg"; its first carries "extra_observations" and the
time) where status is one of detected, wrong, missed,
false_positive, true_negative, error; "rotation" r means the detection's corner (k + r) % 4 was
matched to the truth's corner k.
"""
import argparse
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import time

CORNER_KEYS = ["topLeft", "topRight", "bottomRight", "bottomLeft"]
TARGETS = {"detection_rate": (">=", 0.95), "false_positive_rate": ("<=", 0.05),
           "mean_corner_error_px": ("<=", 1.5)}
# Several-truth scenes (sticky notes, 8-20 % of the shorter side) need every observation and a
# minimum size below Vision's default 0.2.
MULTI_ARGS = "--maximum-observations 0 --minimum-size 0.05"
DEFAULT_SCENES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "GPUStyleTests",
                              "Fixtures", "rectangles")


class DetectorError(Exception):
    pass


def parse_output(text):
    """Returns (first observation's corners [[x, y] x4] (TL, TR, BR, BL) or None, (W, H), the
    detector's own "milliseconds" field or None)."""
    found, size, own_ms = parse_observations(text)
    return (found[0] if found else None), size, own_ms


def parse_observations(text):
    """Returns (every observation's corners, a list of [[x, y] x4] (TL, TR, BR, BL) in the
    detector's order; (W, H); the detector's own "milliseconds" field or None)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise DetectorError(f"output is not JSON ({e}): {text[:200]!r}")
    if not isinstance(doc, dict) or not isinstance(doc.get("observations"), list):
        raise DetectorError(f"no 'observations' list in output: {text[:200]!r}")
    size = (doc.get("width"), doc.get("height"))
    own_ms = doc.get("milliseconds") if isinstance(doc.get("milliseconds"), (int, float)) else None
    found = []
    for n, obs in enumerate(doc["observations"]):
        try:
            corners = [[float(obs["corners"][k][0]), float(obs["corners"][k][1])] for k in CORNER_KEYS]
        except (KeyError, TypeError, IndexError, ValueError) as e:
            raise DetectorError(f"observation {n} has no pixel 'corners' {CORNER_KEYS}: {e!r}")
        if not all(math.isfinite(v) for c in corners for v in c):
            raise DetectorError(f"non-finite corner in {corners}")
        found.append(corners)
    return found, size, own_ms


def match(det, truth):
    """Best assignment of the detected corners to the truth's. Returns (errors[4], rotation,
    reversed): det corner (k + rotation) % 4 (of the possibly reversed list) matched to truth k."""
    best = None
    for rev in (False, True):
        d = [det[0], det[3], det[2], det[1]] if rev else det  # same start, other winding
        for rot in range(4):
            errs = [math.dist(d[(k + rot) % 4], truth[k]) for k in range(4)]
            key = sum(errs)
            if best is None or key < best[0] - 1e-12:
                best = (key, errs, rot, rev)
    return best[1], best[2], best[3]


def percentile(values, p):
    if not values:
        return None
    v = sorted(values)
    k = (len(v) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def mean(values):
    return sum(values) / len(values) if values else None


def is_multi(entry):
    """A scene with several truths ("quads", e.g. sticky notes)."""
    return entry["kind"] == "positive" and isinstance(entry.get("quads"), list)


def score_multi(entry, observations, tol):
    """One result per truth of a "quads" scene. Truths and observations are paired one to one,
    closest pairs (by the sum of the matched corner distances) first; a truth is detected when its
    pair's four corners are within tol. Observations in no detected pair are counted in the first
    result's "extra_observations" (false detections on a positive scene)."""
    truths = entry["quads"]
    pairs = []
    for ti, t in enumerate(truths):
        for oi, o in enumerate(observations):
            errs, rot, rev = match(o, t)
            pairs.append((sum(errs), ti, oi, errs, rot, rev))
    pairs.sort(key=lambda p: (p[0], p[1], p[2]))
    best, used = {}, set()
    for p in pairs:
        if p[1] not in best and p[2] not in used:
            best[p[1]] = p
            used.add(p[2])
    results, hits = [], 0
    for ti in range(len(truths)):
        r = {"file": f"{entry['file']}#{ti}", "scene": entry["file"], "kind": "positive",
             "tags": entry.get("tags", []), "corner_errors": None, "rotation": None, "reversed": None}
        if ti not in best:
            r["status"] = "missed"
        else:
            _, _, _, errs, rot, rev = best[ti]
            r.update(corner_errors=[round(e, 4) for e in errs], rotation=rot, reversed=rev)
            r["status"] = "detected" if max(errs) <= tol else "wrong"
            hits += r["status"] == "detected"
        results.append(r)
    results[0]["extra_observations"] = len(observations) - hits
    return results


def score_scene(entry, corners, tol):
    """Scene result dict (without timing/error) for the first observation's corners or None."""
    r = {"file": entry["file"], "kind": entry["kind"], "tags": entry.get("tags", []),
         "corner_errors": None, "rotation": None, "reversed": None}
    if entry["kind"] == "negative" or entry.get("quad") is None:
        r["status"] = "false_positive" if corners is not None else "true_negative"
        return r
    if corners is None:
        r["status"] = "missed"
        return r
    errs, rot, rev = match(corners, entry["quad"])
    r.update(corner_errors=[round(e, 4) for e in errs], rotation=rot, reversed=rev)
    r["status"] = "detected" if max(errs) <= tol else "wrong"
    return r


def summarize(results):
    pos = [r for r in results if r["kind"] == "positive"]
    neg = [r for r in results if r["kind"] != "positive"]
    det = [r for r in pos if r["status"] == "detected"]
    errs = [e for r in det for e in r["corner_errors"]]
    any_errs = [e for r in pos if r["corner_errors"] for e in r["corner_errors"]]
    fp = [r for r in neg if r["status"] == "false_positive"]
    multi = [r for r in pos if r.get("scene")]
    times = [r["ms"] for r in results if r.get("ms") is not None]
    own = [r["detector_ms"] for r in results if r.get("detector_ms") is not None]
    s = {
        "positives": len(pos), "negatives": len(neg),
        "detected": len(det), "wrong": sum(r["status"] == "wrong" for r in pos),
        "missed": sum(r["status"] == "missed" for r in pos),
        "false_positives": len(fp), "errors": sum(r["status"] == "error" for r in results),
        "multi_truths": len(multi), "multi_scenes": len({r["scene"] for r in multi}),
        "extra_observations": sum(r.get("extra_observations") or 0 for r in multi),
        "detection_rate": len(det) / len(pos) if pos else None,
        "false_positive_rate": len(fp) / len(neg) if neg else None,
        "mean_corner_error_px": mean(errs), "p95_corner_error_px": percentile(errs, 95),
        "max_corner_error_px": max(errs) if errs else None,
        "mean_corner_error_any_detection_px": mean(any_errs),
        "wrong_orientation": sum(1 for r in pos if r["rotation"] not in (None, 0) or r["reversed"]),
        "median_ms": percentile(times, 50), "max_ms": max(times) if times else None,
        "median_detector_ms": percentile(own, 50), "max_detector_ms": max(own) if own else None,
    }
    return s


def check_targets(s):
    out = {}
    for k, (op, lim) in TARGETS.items():
        v = s.get(k)
        if v is None:
            ok = None  # nothing to judge (e.g. no negatives, or nothing detected for the error)
            if k == "mean_corner_error_px" and s["positives"]:
                ok = False
        else:
            ok = v >= lim if op == ">=" else v <= lim
        out[k] = {"value": v, "target": f"{op} {lim}", "pass": ok}
    return out


def build_command(args, image, multi=False):
    if args.cmd:
        return [a.replace("{image}", image) for a in shlex.split(args.cmd)]
    extra = shlex.split(args.multi_args or "") if multi else []
    return [args.gpustyle, "detect", "--json", *shlex.split(args.args or ""), *extra, image]


def run_detector(cmd, timeout):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise DetectorError(f"timed out after {timeout} s")
    ms = (time.perf_counter() - t0) * 1000
    # exit 1 with a valid report is `gpustyle detect`'s "no rectangle found"
    if p.returncode not in (0, 1) or (p.returncode == 1 and not p.stdout.strip()):
        msg = (p.stderr or p.stdout).strip()[:300] or "no output"
        raise DetectorError(f"exit {p.returncode}: {msg}")
    return p.stdout, ms


def fmt(v, spec=".2f", none="-"):
    return none if v is None else format(v, spec)


def print_report(summary, targets, tags, results, tol, verbose, out=sys.stdout):
    s = summary
    w = out.write
    if verbose:
        w(f"{'file':10s} {'kind':8s} {'status':15s} {'max err':>8s} {'ms':>8s}  notes\n")
        for r in results:
            notes = []
            if r.get("rotation") not in (None, 0):
                first = ["top-left", "top-right", "bottom-right", "bottom-left"][(-r["rotation"]) % 4]
                notes.append(f"detection starts at the {first} corner")
            if r.get("reversed"):
                notes.append("counter-clockwise")
            if r.get("error"):
                notes.append(r["error"][:80])
            me = max(r["corner_errors"]) if r.get("corner_errors") else None
            w(f"{r['file']:10s} {r['kind']:8s} {r['status']:15s} {fmt(me):>8s} {fmt(r.get('ms'), '.1f'):>8s}  "
              f"{'; '.join(notes)}\n")
        w("\n")
    w(f"positives {s['positives']}: detected {s['detected']}, wrong corners {s['wrong']}, missed {s['missed']}"
      f"  (tolerance {tol:g} px)\n")
    if s["multi_truths"]:
        w(f"  of which {s['multi_truths']} truths in {s['multi_scenes']} several-truth scenes (\"quads\"), with "
          f"{s['extra_observations']} extra observation(s) matching no truth (false detections)\n")
    w(f"negatives {s['negatives']}: false positives {s['false_positives']}\n")
    if s["errors"]:
        w(f"detector errors: {s['errors']} (see --verbose)\n")
    w(f"corner error on detected (px): mean {fmt(s['mean_corner_error_px'], '.3f')}, "
      f"p95 {fmt(s['p95_corner_error_px'], '.3f')}, max {fmt(s['max_corner_error_px'], '.3f')}"
      f"; mean over any detection on a positive {fmt(s['mean_corner_error_any_detection_px'], '.3f')}\n")
    if s["wrong_orientation"]:
        w(f"WARNING: {s['wrong_orientation']} positive(s) matched only after changing the start corner or "
          f"winding (expected TL, TR, BR, BL clockwise)\n")
    w(f"time per image: whole process median {fmt(s['median_ms'], '.1f')} ms, max {fmt(s['max_ms'], '.1f')} ms")
    if s["median_detector_ms"] is not None:
        w(f"; detector's own \"milliseconds\" median {fmt(s['median_detector_ms'], '.1f')} ms,"
          f" max {fmt(s['max_detector_ms'], '.1f')} ms")
    w("\n\n")
    w(f"{'tag':18s} {'pos':>4s} {'det':>4s} {'rate':>6s} {'neg':>4s} {'FP':>3s} {'mean err':>9s} {'p95 err':>8s}"
      f" {'orient':>6s} {'errors':>6s} {'extra':>5s}\n")
    for tag, t in sorted(tags.items()):
        rate = fmt(t["detection_rate"] * 100, '.0f') + "%" if t["detection_rate"] is not None else "-"
        w(f"{tag:18s} {t['positives']:4d} {t['detected']:4d} {rate:>6s} {t['negatives']:4d} {t['false_positives']:3d} "
          f"{fmt(t['mean_corner_error_px'], '.3f'):>9s} {fmt(t['p95_corner_error_px'], '.3f'):>8s}"
          f" {t['wrong_orientation']:6d} {t['errors']:6d} {t['extra_observations']:5d}\n")
    w("\n")
    names = {"detection_rate": "detection rate", "false_positive_rate": "false-positive rate",
             "mean_corner_error_px": "mean corner error"}
    for k, t in targets.items():
        v = t["value"]
        shown = "-" if v is None else (f"{v * 100:.1f}%" if k.endswith("rate") else f"{v:.3f} px")
        target = t["target"].split()
        tshown = target[0] + " " + (f"{float(target[1]) * 100:g}%" if k.endswith("rate") else f"{target[1]} px")
        verdict = {True: "PASS", False: "FAIL", None: "n/a"}[t["pass"]]
        w(f"{verdict:4s}  {names[k]:20s} {shown:>10s}  (target {tshown})\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Score a rectangle detector on scenes with known ground truth.",
                                 epilog="See the module docstring for formats and scoring.")
    ap.add_argument("scenes", nargs="?", default=DEFAULT_SCENES, help="folder with scenes.json (default: the fixtures)")
    ap.add_argument("--gpustyle", default=".build/release/gpustyle", help="detector binary")
    ap.add_argument("--args", default="", help="extra arguments before the image, e.g. \"--min-size 0.2\"")
    ap.add_argument("--multi-args", default=MULTI_ARGS,
                    help=f"added after --args for scenes with several truths (\"quads\"); default \"{MULTI_ARGS}\"")
    ap.add_argument("--cmd", help="command template instead of gpustyle, with {image}")
    ap.add_argument("--tolerance", type=float, default=10.0, help="max corner distance (px) for a detection")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per image")
    ap.add_argument("--only", action="append", help="only scenes with this tag (repeatable: any of them)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the table")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per scene")
    args = ap.parse_args(argv)

    manifest_path = os.path.join(args.scenes, "scenes.json")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"error: cannot read {manifest_path}: {e}", file=sys.stderr)
        return 2
    if args.only:
        manifest = [e for e in manifest if set(args.only) & set(e.get("tags", []))]
    if not manifest:
        print("error: no scenes to evaluate", file=sys.stderr)
        return 2
    if not args.cmd:
        exe = args.gpustyle
        found = (os.path.isfile(exe) and os.access(exe, os.X_OK)) if os.sep in exe else bool(shutil.which(exe))
        if not found:
            print(f"error: detector binary not found or not executable: {exe} "
                  f"(build it with `swift build -c release`, or pass --gpustyle PATH or --cmd)", file=sys.stderr)
            return 2

    results = []
    for entry in manifest:
        image = os.path.join(args.scenes, entry["file"])
        multi = is_multi(entry)
        cmd = build_command(args, image, multi)
        try:
            stdout, ms = run_detector(cmd, args.timeout)
            observations, size, own_ms = parse_observations(stdout)
            if multi:
                scored = score_multi(entry, observations, args.tolerance)
            else:
                scored = [score_scene(entry, observations[0] if observations else None, args.tolerance)]
            r = scored[0]  # the scene's time goes on its first result only
            r["ms"] = round(ms, 2)
            r["detector_ms"] = None if own_ms is None else round(own_ms, 3)
            W, H = entry.get("width"), entry.get("height")
            if W and size[0] is not None and (size[0], size[1]) != (W, H):
                r["warning"] = f"detector reported size {size[0]}x{size[1]}, image is {W}x{H}"
                print(f"warning: {entry['file']}: {r['warning']}", file=sys.stderr)
        except FileNotFoundError as e:
            print(f"error: cannot start detector {cmd[0]!r}: {e}", file=sys.stderr)
            return 2
        except (DetectorError, OSError) as e:
            n = len(entry["quads"]) if multi else 1
            scored = [{"file": f"{entry['file']}#{k}" if multi else entry["file"], "kind": entry["kind"],
                       "tags": entry.get("tags", []), "status": "error", "corner_errors": None,
                       "rotation": None, "reversed": None, "ms": None, "error": str(e)} for k in range(n)]
            if multi:
                for k, r in enumerate(scored):
                    r["scene"] = entry["file"]
            print(f"warning: {entry['file']}: detector error: {e}", file=sys.stderr)
        results.extend(scored)

    if all(r["status"] == "error" for r in results):
        print(f"error: the detector failed on every scene; first error: {results[0]['error']}", file=sys.stderr)
        return 2

    summary = summarize(results)
    targets = check_targets(summary)
    tags = {}
    for tag in sorted({t for r in results for t in r["tags"]}):
        tags[tag] = summarize([r for r in results if tag in r["tags"]])
    if args.json:
        json.dump({"scenes_dir": os.path.abspath(args.scenes), "tolerance_px": args.tolerance,
                   "summary": summary, "targets": targets, "tags": tags, "scenes": results},
                  sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_report(summary, targets, tags, results, args.tolerance, args.verbose)
    if summary["errors"]:
        return 2
    return 0 if all(t["pass"] is not False for t in targets.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
