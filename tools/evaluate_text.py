#!/usr/bin/env python3
"""Scores `gpustyle text` (or tools/text_reference.py) against generated text scenes.

    python3 tools/evaluate_text.py --scenes /work/textscenes/dev [--binary .build/release/gpustyle]
        [--extra "--some-option 1"] [--out result.json]
    python3 tools/evaluate_text.py --scenes /work/textscenes/dev --json-from reference.jsonl --out r.json
    python3 tools/evaluate_text.py --self-test

Input. The scenes are tools/make_text_scenes.py's (DIR/index.json and DIR/scene-XXXX.json).
Predictions are JSON lines, one object per picture:
  {"file": ..., "width": W, "height": H, "lines": [{"quad": [[x,y] x4], "confidence": c,
   "string": "read text", "characters": [{"quad": [[x,y] x4], "character": "A"}, ...]}, ...]}
either printed by `BINARY text --json FILES...` (run on the scenes in index.json order, 40 files
per run; exit status 1 means "no text in some file" and is not an error) or read from
--json-from. Predictions are matched to scenes by the file's base name. A picture with no
object, or with no "lines", has no predictions. "characters" may be missing.

Matching rule, per picture (truth line t, predicted line p, quads as convex polygons; a
quad that is not convex is replaced by its convex hull):
  C(t), the candidates of t: every p with area(p & t) >= 0.5 area(p) (p lies mostly inside t:
    a piece of a split line) or area(p & t) >= 0.5 area(t) (p covers most of t: one line,
    or several truth lines merged into one prediction).
  The candidates are put in reading order (their centres projected on t's TL->TR axis), and
  their strings joined with single spaces. The truth string is aligned to that text by edit
  distance (unit costs). Characters before the first / after the last aligned character are
  free (not counted) only when the first / last candidate is also a candidate of another
  truth line (a merged prediction: its other words belong to the other line); a prediction
  that is a candidate of t alone is charged in full.
  t is FOUND when the candidates cover >= 50% of t (share of 24x6 sample points of t inside
    at least one candidate) and either some candidate has IoU(p, t) >= 0.5, or the aligned
    text matches: case-insensitive edit distance <= 0.5 x len(truth).
  So a word split into two predictions, a line predicted as its words, and two words merged
  into one predicted line are all found, with their text scored; a box in the right place
  with unrelated text is found only when its IoU is >= 0.5.
Strings are compared after collapsing runs of white space to one space and trimming.
Metrics:
  recall: found truth lines / truth lines.
  exact: found lines whose aligned text equals the truth exactly (case-sensitive) / truth lines
    (an end-to-end accuracy).
  CER: sum of edit distances / sum of truth lengths over found lines (spaces count as
    characters); case-sensitive and case-insensitive.
  char IoU>=0.5: over found lines whose candidates carry "characters": the truth characters
    (non-space, in reading order) are aligned to the predicted characters (non-space, same
    order, same end rule) by edit distance; a truth character counts when it is aligned
    (matched or substituted) to a predicted character whose quad has IoU >= 0.5 with its own.
    Share of such truth characters; "n/a" when no prediction has characters.
  extra lines / picture: predictions that are candidates of no found truth line, per picture
    with text; false lines / negative picture: all predictions on text-free pictures.
Breakdowns: overall, per scene kind, per text-height bucket (the truth's height_px: 12-20,
20-40, 40-80, 80-120 px; below 12 counts as 12-20, above 120 as 80-120).
Polygon intersections use Sutherland-Hodgman clipping of convex polygons (no shapely).

Output: a markdown table on stdout; --out writes the same numbers and per-line details as JSON.
Measured: --self-test checks polygon areas and IoUs, the edit alignment, and the matching on
hand-made split, merge, exclusive, unrelated-text, negative and character cases (runs in <1 s).
Scoring the 60 held-out scenes (322 lines) from a JSON file takes about 3 s. For the
reference's numbers on dev and held-out see docs/text.md.
Needs only the Python standard library.
"""
import argparse
import json
import math
import pathlib
import re
import shlex
import subprocess
import sys

BUCKETS = [("12-20", 0, 20), ("20-40", 20, 40), ("40-80", 40, 80), ("80-120", 80, math.inf)]
SAMPLES_U, SAMPLES_V = 24, 6


# ---------------------------------------------------------------------------------------------
# Convex polygons


def signed_area(poly):
    s = 0.0
    for i in range(len(poly)):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % len(poly)]
        s += x0 * y1 - x1 * y0
    return 0.5 * s


def area(poly):
    return abs(signed_area(poly)) if len(poly) >= 3 else 0.0


def convex_hull(points):
    pts = sorted(set((float(x), float(y)) for x, y in points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]  # counter-clockwise (in x-right, y-up terms)


def is_convex(poly):
    sign = 0
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n], poly[(i + 2) % n]
        c = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1)
        if abs(c) < 1e-12:
            continue
        if sign == 0:
            sign = 1 if c > 0 else -1
        elif (c > 0) != (sign > 0):
            return False
    return True


def as_convex(quad):
    """The quad as a convex polygon with positive signed area (convex hull when it is not)."""
    poly = [(float(x), float(y)) for x, y in quad]
    if len(poly) < 3 or not is_convex(poly):
        poly = convex_hull(poly)
    if signed_area(poly) < 0:
        poly = poly[::-1]
    return poly


def clip(subject, clipper):
    """Sutherland-Hodgman: subject polygon clipped by a convex polygon with positive area."""
    output = list(subject)
    n = len(clipper)
    for i in range(n):
        if not output:
            break
        ax, ay = clipper[i]
        bx, by = clipper[(i + 1) % n]

        def inside(p):
            return (bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax) >= 0

        def crossing(p, q):
            dx, dy = q[0] - p[0], q[1] - p[1]
            ex, ey = bx - ax, by - ay
            denom = ex * dy - ey * dx
            if denom == 0:
                return q
            t = (ex * (ay - p[1]) - ey * (ax - p[0])) / denom
            return (p[0] + t * dx, p[1] + t * dy)

        source, output = output, []
        for j in range(len(source)):
            cur, prev = source[j], source[j - 1]
            if inside(cur):
                if not inside(prev):
                    output.append(crossing(prev, cur))
                output.append(cur)
            elif inside(prev):
                output.append(crossing(prev, cur))
    return output


def intersection_area(a, b):
    if len(a) < 3 or len(b) < 3:
        return 0.0
    return area(clip(a, b))


def iou(a, b):
    inter = intersection_area(a, b)
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


def inside_convex(poly, point):
    x, y = point
    n = len(poly)
    for i in range(n):
        ax, ay = poly[i]
        bx, by = poly[(i + 1) % n]
        if (bx - ax) * (y - ay) - (by - ay) * (x - ax) < 0:
            return False
    return n >= 3


def quad_samples(quad):
    """SAMPLES_U x SAMPLES_V points spread bilinearly over a quad TL, TR, BR, BL."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quad
    points = []
    for j in range(SAMPLES_V):
        v = (j + 0.5) / SAMPLES_V
        for i in range(SAMPLES_U):
            u = (i + 0.5) / SAMPLES_U
            top = (x0 + (x1 - x0) * u, y0 + (y1 - y0) * u)
            bottom = (x3 + (x2 - x3) * u, y3 + (y2 - y3) * u)
            points.append((top[0] + (bottom[0] - top[0]) * v, top[1] + (bottom[1] - top[1]) * v))
    return points


# ---------------------------------------------------------------------------------------------
# Strings


def normalize(text):
    return re.sub(r"\s+", " ", text or "").strip()


def align(truth, pred, free_start=False, free_end=False):
    """Edit-distance alignment of sequence truth to sequence pred (unit costs). With free_start /
    free_end, predicted items before the first / after the last aligned one cost nothing.
    Returns (cost, pairs) where pairs are (truth index, pred index) of matched or substituted
    items."""
    n, m = len(truth), len(pred)
    inf = float("inf")
    d = [[inf] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        d[0][j] = 0 if free_start else j
    for i in range(1, n + 1):
        d[i][0] = i
        ti = truth[i - 1]
        row, prev = d[i], d[i - 1]
        for j in range(1, m + 1):
            sub = prev[j - 1] + (0 if ti == pred[j - 1] else 1)
            dele = prev[j] + 1
            ins = row[j - 1] + 1
            row[j] = min(sub, dele, ins)
    if free_end:
        end = min(range(m + 1), key=lambda j: (d[n][j], -j))
        cost = d[n][end]
    else:
        end, cost = m, d[n][m]
    pairs = []
    i, j = n, end
    while i > 0 and j > 0:
        if d[i][j] == d[i - 1][j - 1] + (0 if truth[i - 1] == pred[j - 1] else 1):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif d[i][j] == d[i - 1][j] + 1:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return cost, pairs


def edit_distance(a, b):
    return align(a, b)[0]


# ---------------------------------------------------------------------------------------------
# Matching one picture


def bucket_of(height):
    for name, lo, hi in BUCKETS:
        if height < hi:
            return name
    return BUCKETS[-1][0]


def score_picture(truth_lines, predictions):
    """Per-truth-line results and the number of predictions used by no found line."""
    tpolys = [as_convex(t["quad"]) for t in truth_lines]
    ppolys = [as_convex(p.get("quad", [])) for p in predictions]
    tareas = [area(p) for p in tpolys]
    pareas = [area(p) for p in ppolys]
    candidates = []
    for ti, tp in enumerate(tpolys):
        cands = []
        for pi, pp in enumerate(ppolys):
            if pareas[pi] <= 0 or tareas[ti] <= 0:
                continue
            inter = intersection_area(pp, tp)
            if inter >= 0.5 * pareas[pi] or inter >= 0.5 * tareas[ti]:
                cands.append((pi, inter / (pareas[pi] + tareas[ti] - inter)))
        candidates.append(cands)
    owners = {}
    for ti, cands in enumerate(candidates):
        for pi, _ in cands:
            owners.setdefault(pi, set()).add(ti)

    results, used = [], set()
    for ti, t in enumerate(truth_lines):
        quad = t["quad"]
        truth_text = normalize(t["string"])
        cands = candidates[ti]
        ax, ay = quad[1][0] - quad[0][0], quad[1][1] - quad[0][1]

        def position(pi):
            q = predictions[pi]["quad"]
            cx, cy = sum(p[0] for p in q) / 4, sum(p[1] for p in q) / 4
            return (cx - quad[0][0]) * ax + (cy - quad[0][1]) * ay

        order = sorted((pi for pi, _ in cands), key=position)
        best_iou = max((v for _, v in cands), default=0.0)
        samples = quad_samples(quad)
        covered = sum(1 for s in samples if any(inside_convex(ppolys[pi], s) for pi in order))
        coverage = covered / len(samples)
        pieces = [normalize(predictions[pi].get("string", "")) for pi in order]
        text = " ".join(p for p in pieces if p)
        free_start = bool(order) and len(owners[order[0]]) > 1
        free_end = bool(order) and len(owners[order[-1]]) > 1
        cost, pairs = align(truth_text, text, free_start, free_end)
        cost_ci, _ = align(truth_text.lower(), text.lower(), free_start, free_end)
        length = max(len(truth_text), 1)
        found = coverage >= 0.5 and (best_iou >= 0.5 or cost_ci <= 0.5 * length)
        if pairs:
            aligned = text[pairs[0][1]:pairs[-1][1] + 1] if (free_start or free_end) else text
        else:
            aligned = "" if (free_start or free_end) else text
        result = {
            "string": truth_text, "read": aligned if found else None, "found": found,
            "height_px": t.get("height_px", 0.0), "bucket": bucket_of(t.get("height_px", 0.0)),
            "coverage": round(coverage, 3), "best_iou": round(best_iou, 3),
            "candidates": order, "length": len(truth_text),
            "edits": cost if found else None, "edits_ci": cost_ci if found else None,
            "exact": found and cost == 0,
            "chars": None, "chars_ok": None,
        }
        if found:
            used.update(order)
            pred_chars = []
            for pi in order:
                pred_chars.extend(c for c in predictions[pi].get("characters", []) or []
                                  if normalize(c.get("character", "")))
            if pred_chars:
                truth_chars = [c for c in t.get("characters", []) if normalize(c["character"])]
                _, cpairs = align([c["character"] for c in truth_chars],
                                  [c["character"] for c in pred_chars], free_start, free_end)
                ok = sum(1 for a, b in cpairs
                         if iou(as_convex(truth_chars[a]["quad"]), as_convex(pred_chars[b]["quad"])) >= 0.5)
                result["chars"], result["chars_ok"] = len(truth_chars), ok
        results.append(result)
    extra = sum(1 for pi in range(len(predictions)) if pi not in used)
    return results, extra


# ---------------------------------------------------------------------------------------------
# Aggregation


def summarize(lines, pictures, extra, negatives, false_lines):
    n = len(lines)
    found = [l for l in lines if l["found"]]
    length = sum(l["length"] for l in found)
    chars = [l for l in found if l["chars"] is not None]
    total_chars = sum(l["chars"] for l in chars)
    return {
        "lines": n,
        "recall": len(found) / n if n else None,
        "exact": sum(1 for l in lines if l["exact"]) / n if n else None,
        "cer": sum(l["edits"] for l in found) / length if length else None,
        "cer_ci": sum(l["edits_ci"] for l in found) / length if length else None,
        "char_iou50": sum(l["chars_ok"] for l in chars) / total_chars if total_chars else None,
        "pictures": pictures,
        "extra_per_picture": extra / pictures if pictures else None,
        "negatives": negatives,
        "false_lines_per_negative": false_lines / negatives if negatives else None,
    }


def fmt(value, percent=True):
    if value is None:
        return "n/a"
    return f"{100 * value:.1f}%" if percent else f"{value:.2f}"


def table(rows):
    out = ["| set | lines | recall | exact | CER | CER (no case) | char IoU>=0.5 | extra lines / picture "
           "| false lines / negative |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, s in rows:
        out.append(f"| {name} | {s['lines']} | {fmt(s['recall'])} | {fmt(s['exact'])} | {fmt(s['cer'])} | "
                   f"{fmt(s['cer_ci'])} | {fmt(s['char_iou50'])} | {fmt(s['extra_per_picture'], False)} | "
                   f"{fmt(s['false_lines_per_negative'], False)} |")
    return "\n".join(out)


def evaluate(scenes, predictions_by_name):
    per_line, per_picture = [], []
    for scene in scenes:
        truth = scene["truth"]
        preds = predictions_by_name.get(pathlib.Path(truth["file"]).name, {}).get("lines", []) or []
        preds = [p for p in preds if p.get("quad") and len(p["quad"]) >= 3]
        kind = truth["kind"]
        if kind == "negative" or not truth["lines"]:
            per_picture.append({"file": truth["file"], "kind": kind, "negative": True, "predictions": len(preds)})
            continue
        results, extra = score_picture(truth["lines"], preds)
        for r in results:
            r["file"], r["kind"] = truth["file"], kind
        per_line.extend(results)
        per_picture.append({"file": truth["file"], "kind": kind, "negative": False, "predictions": len(preds),
                            "extra": extra})

    def subset(kind=None, bucket=None):
        lines = [l for l in per_line if (kind is None or l["kind"] == kind) and (bucket is None or l["bucket"] == bucket)]
        if bucket is None:
            pics = [p for p in per_picture if kind is None or p["kind"] == kind]
        else:
            pics = []
        positives = [p for p in pics if not p["negative"]]
        negatives = [p for p in pics if p["negative"]]
        return summarize(lines, len(positives), sum(p["extra"] for p in positives), len(negatives),
                         sum(p["predictions"] for p in negatives))

    rows = [("all", subset())]
    for kind in sorted({s["truth"]["kind"] for s in scenes}):
        rows.append((kind, subset(kind=kind)))
    for name, _, _ in BUCKETS:
        rows.append((f"height {name} px", subset(bucket=name)))
    return rows, per_line, per_picture


# ---------------------------------------------------------------------------------------------
# Running the binary


def run_binary(binary, files, extra_args):
    objects = []
    for start in range(0, len(files), 40):
        chunk = [str(f) for f in files[start:start + 40]]
        command = [binary, "text", "--json", *extra_args, *chunk]
        try:
            proc = subprocess.run(command, capture_output=True, text=True)
        except FileNotFoundError:
            raise SystemExit(f"evaluate_text: no binary {binary} (build it, pass --binary, or use --json-from)")
        if proc.returncode not in (0, 1):
            sys.stderr.write(proc.stderr)
            raise SystemExit(f"evaluate_text: {shlex.join(command[:4])} ... exited with {proc.returncode}")
        objects.extend(parse_json_lines(proc.stdout))
    return objects


def parse_json_lines(text):
    objects = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            objects.append(json.loads(line))
    return objects


def load_scenes(directory):
    index = json.loads((directory / "index.json").read_text())
    scenes = []
    for entry in index["scenes"]:
        scenes.append({"path": directory / entry["file"],
                       "truth": json.loads((directory / entry["truth"]).read_text())})
    return scenes


# ---------------------------------------------------------------------------------------------
# Self-test


def self_test():
    def box(x0, y0, x1, y1):
        return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]

    def close(a, b, tol=1e-6):
        assert abs(a - b) <= tol, (a, b)

    sq = as_convex(box(0, 0, 1, 1))
    close(area(sq), 1.0)
    close(iou(sq, as_convex(box(0.5, 0, 1.5, 1))), 1 / 3)
    close(iou(sq, as_convex(box(2, 2, 3, 3))), 0.0)
    close(iou(as_convex(box(0, 0, 4, 4)), as_convex(box(1, 1, 3, 3))), 4 / 16)
    # A square and the same square turned 45 degrees about its centre: a regular octagon.
    r = math.sqrt(2)
    diamond = as_convex([[0, -r], [r, 0], [0, r], [-r, 0]])
    octagon = 8 * (math.sqrt(2) - 1)
    close(iou(as_convex(box(-1, -1, 1, 1)), diamond), octagon / (8 - octagon))
    # Orientation and non-convex input: clockwise order and a bow-tie give the hull.
    close(area(as_convex([[0, 0], [0, 1], [1, 1], [1, 0]])), 1.0)
    close(area(as_convex([[0, 0], [1, 1], [1, 0], [0, 1]])), 1.0)
    assert inside_convex(sq, (0.5, 0.5)) and not inside_convex(sq, (1.5, 0.5))

    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("", "abc") == 3 and edit_distance("abc", "") == 3
    cost, pairs = align("SALE", "xx SALE yy", True, True)
    assert cost == 0 and pairs == [(0, 3), (1, 4), (2, 5), (3, 6)], (cost, pairs)
    assert align("SALE", "xx SALE yy")[0] == 6

    def line(text, quad, chars=None):
        return {"string": text, "quad": quad, "height_px": 20.0, "characters": chars or []}

    # One-to-one, exact.
    res, extra = score_picture([line("HELLO", box(0, 0, 100, 20))], [line("HELLO", box(2, 1, 101, 21))])
    assert res[0]["found"] and res[0]["edits"] == 0 and res[0]["exact"] and extra == 0
    # A line predicted as its two words.
    res, extra = score_picture([line("HELLO WORLD", box(0, 0, 200, 20))],
                               [line("WORLD", box(105, 0, 200, 20)), line("HELLO", box(0, 0, 95, 20))])
    assert res[0]["found"] and res[0]["edits"] == 0 and res[0]["read"] == "HELLO WORLD" and extra == 0, res
    # A word split in the middle: one extra space.
    res, _ = score_picture([line("INTERNATIONAL", box(0, 0, 260, 20))],
                           [line("INTER", box(0, 0, 100, 20)), line("NATIONAL", box(104, 0, 260, 20))])
    assert res[0]["found"] and res[0]["edits"] == 1, res
    # Two words merged into one prediction: both found, the other word not charged.
    truths = [line("SALE", box(0, 0, 80, 20)), line("NOW", box(100, 0, 160, 20))]
    res, extra = score_picture(truths, [line("SALE NOW", box(0, 0, 160, 20))])
    assert all(r["found"] and r["edits"] == 0 for r in res) and extra == 0, res
    # ... but the same merged box reading something else finds neither (IoU 0.5 and 0.375 ...).
    res, extra = score_picture(truths, [line("qqqqqqqq", box(0, 0, 170, 20))])
    assert not any(r["found"] for r in res) and extra == 1, res
    # An exclusive prediction with extra characters is charged for them.
    res, _ = score_picture([line("SALE", box(0, 0, 80, 20))], [line("SALE!!", box(0, 0, 84, 20))])
    assert res[0]["found"] and res[0]["edits"] == 2, res
    # Right place (IoU >= 0.5), wrong text: found, with its errors counted.
    res, _ = score_picture([line("SALE", box(0, 0, 80, 20))], [line("BOLT", box(0, 0, 80, 20))])
    assert res[0]["found"] and res[0]["edits"] == 3
    # Covers 60% of the line (IoU 0.3) with unrelated text: not found.
    res, extra = score_picture([line("SALE NOW", box(0, 0, 100, 20))], [line("zzzz", box(40, 0, 200, 20))])
    assert not res[0]["found"] and extra == 1, res
    # Case only: case-insensitive CER 0, case-sensitive 4.
    res, _ = score_picture([line("SALE", box(0, 0, 80, 20))], [line("sale", box(0, 0, 80, 20))])
    assert res[0]["edits"] == 4 and res[0]["edits_ci"] == 0
    # Characters: boxes in place count, shifted ones do not; a missing character shifts nothing.
    tchars = [{"character": c, "quad": box(20 * i, 0, 20 * i + 18, 20)} for i, c in enumerate("ABC")]
    pchars = [{"character": "A", "quad": box(0, 0, 18, 20)}, {"character": "C", "quad": box(40, 0, 58, 20)}]
    res, _ = score_picture([line("ABC", box(0, 0, 58, 20), tchars)],
                           [dict(line("AC", box(0, 0, 58, 20)), characters=pchars)])
    assert res[0]["chars"] == 3 and res[0]["chars_ok"] == 2, res
    pchars = [{"character": c, "quad": box(20 * i + 12, 0, 20 * i + 30, 20)} for i, c in enumerate("ABC")]
    res, _ = score_picture([line("ABC", box(0, 0, 58, 20), tchars)],
                           [dict(line("ABC", box(0, 0, 58, 20)), characters=pchars)])
    assert res[0]["chars_ok"] == 0, res
    # Whole evaluation: a negative picture with two lines, buckets.
    scenes = [{"truth": {"file": "a.png", "kind": "negative", "lines": []}},
              {"truth": {"file": "b.png", "kind": "sign", "lines": [line("OPEN", box(0, 0, 80, 30))]}}]
    preds = {"a.png": {"lines": [line("x", box(0, 0, 9, 9)), line("y", box(20, 0, 29, 9))]},
             "b.png": {"lines": [line("OPEN", box(0, 0, 80, 30)), line("junk", box(200, 0, 240, 20))]}}
    rows, _, _ = evaluate(scenes, preds)
    summary = dict(rows)
    assert summary["all"]["false_lines_per_negative"] == 2.0 and summary["all"]["recall"] == 1.0
    assert summary["all"]["extra_per_picture"] == 1.0 and summary["height 20-40 px"]["lines"] == 1
    assert [bucket_of(h) for h in (5, 12, 19.9, 20, 79, 80, 200)] == \
        ["12-20", "12-20", "12-20", "20-40", "40-80", "80-120", "80-120"]
    print("evaluate_text self-test: all checks passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=pathlib.Path)
    parser.add_argument("--binary", default=".build/release/gpustyle")
    parser.add_argument("--extra", default="", help="more arguments for `BINARY text --json` (one string)")
    parser.add_argument("--json-from", type=pathlib.Path, help="read JSON lines from this file instead")
    parser.add_argument("--out", type=pathlib.Path, help="write the numbers and per-line results as JSON")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return
    if args.scenes is None:
        parser.error("--scenes is required")
    scenes = load_scenes(args.scenes)
    if args.json_from:
        objects = parse_json_lines(args.json_from.read_text())
        source = str(args.json_from)
    else:
        objects = run_binary(args.binary, [s["path"] for s in scenes], shlex.split(args.extra))
        source = f"{args.binary} text --json {args.extra}".strip()
    by_name = {pathlib.Path(o["file"]).name: o for o in objects if "file" in o}
    missing = [s["truth"]["file"] for s in scenes if s["truth"]["file"] not in by_name]
    if missing:
        print(f"evaluate_text: no result for {len(missing)} pictures (counted as no lines): "
              f"{', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}", file=sys.stderr)
    rows, per_line, per_picture = evaluate(scenes, by_name)
    print(f"{args.scenes} ({len(scenes)} pictures), predictions from {source}\n")
    print(table(rows))
    if args.out:
        args.out.write_text(json.dumps({"scenes": str(args.scenes), "source": source,
                                        "summary": {name: s for name, s in rows},
                                        "lines": per_line, "pictures": per_picture}, indent=1) + "\n")


if __name__ == "__main__":
    main()
