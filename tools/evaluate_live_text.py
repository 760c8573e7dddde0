#!/usr/bin/env python3
"""Score `gpustyle live --text` on a clip of tools/make_text_video.py (video.mp4 + truth.json).

    python3 tools/evaluate_live_text.py [--clip Tests/GPUStyleTests/Fixtures/live-text]
        [--gpustyle .build/release/gpustyle] [--device cpu] [--pace realtime] [--rounds 1] [--keep DIR]

gpustyle runs as

    GPUSTYLE live --text --input CLIP/video.mp4 --quad-log LOG.jsonl --output /dev/null --pace PACE
                  --device DEVICE --stats

(realtime: ffmpeg plays the clip at its frame rate, as a camera would; frames that arrive while
one is being processed are dropped). Reported per round: the summary line (fps in and out,
drops, readings a second, median reading, frame and tracking times), and from the log (a line
per output frame, "frame" the input frame's index):
  - drawn: line-frames drawn, and on how many of the frames 0-64 (the sign in full view) each
    truth line was drawn; the first frame with a line drawn;
  - right: drawn line-frames whose string is the truth line's under it (the truth line whose ink
    box's centre lies inside the drawn quad); "on no text": drawn over no truth line;
  - tracking error: the mean distance of the drawn quad's corners from the quad the reading read
    ("read", in its own frame) moved to this frame by the truth's homographies: what carrying
    and tracking added (mean, 95th percentile, max; frames 0-64 and from 65, the pan away);
  - after leaving: line-frames drawn while their truth line is wholly out of view (every corner
    beyond one side of the frame): must be 0;
  - age: how old (video seconds) the reading behind each drawn line was (mean, max).
Coordinates: the truth's are continuous (pixel (i, j) covers [i, i+1]); gpustyle's put pixel
centres at integers, so the truth is moved by -0.5.
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLIP = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "live-text")
HOLD_END = 65  # frames before this show the whole sign (the pan away starts at 65)


def apply(h, points):
    p = np.c_[np.asarray(points, float), np.ones(len(points))] @ h.T
    return p[:, :2] / p[:, 2:]


def contains(quad, point):
    """Point inside a convex quad of either winding."""
    q = np.asarray(quad)
    signs = []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        signs.append((b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0]))
    return all(s >= 0 for s in signs) or all(s <= 0 for s in signs)


def stats(values):
    if not values:
        return "-"
    v = np.sort(np.asarray(values))
    return f"mean {v.mean():.2f} / p95 {v[min(len(v) - 1, int(0.95 * len(v)))]:.2f} / max {v.max():.2f} px ({len(v)})"


def score(truth, log_path):
    w, h = truth["width"], truth["height"]
    shift = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]], float)
    unshift = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]], float)
    homographies = [shift @ np.array(m, float).reshape(3, 3) @ unshift for m in truth["homographies"]]
    lines = truth["lines"]

    def truth_quad(i, k):
        return apply(homographies[k], np.asarray(lines[i]["quad"], float) - 0.5)

    def out_of_view(q):
        return q[:, 0].max() < -0.5 or q[:, 0].min() > w - 0.5 or q[:, 1].max() < -0.5 or q[:, 1].min() > h - 0.5

    drawn = right = on_nothing = after = 0
    held = [0] * len(lines)
    hold_errors, pan_errors, ages = [], [], []
    first = None
    frames = 0
    for text in open(log_path):
        o = json.loads(text)
        k = o["frame"]
        frames += 1
        for line in o["lines"]:
            drawn += 1
            first = k if first is None else first
            quad = np.asarray(line["quad"], float)
            under = [i for i in range(len(lines)) if contains(quad, truth_quad(i, k).mean(axis=0))]
            if not under:
                on_nothing += 1
            else:
                i = under[0]
                right += line["string"] == lines[i]["string"]
                if k < HOLD_END:
                    held[i] += 1
                if out_of_view(truth_quad(i, k)):
                    after += 1
            ages.append(line["age"])
            r = line["reading"]
            if r != k:
                moved = apply(homographies[k] @ np.linalg.inv(homographies[r]), line["read"])
                error = float(np.linalg.norm(moved - quad, axis=1).mean())
                (hold_errors if k < HOLD_END else pan_errors).append(error)
    print(f"  log: {frames} frames out; {drawn} line-frames drawn, first on frame {first}; right string {right}, "
          f"on no text {on_nothing}, after leaving {after}")
    print(f"  drawn on frames 0-{HOLD_END - 1} (of the {HOLD_END} in input): " +
          ", ".join(f"{lines[i]['string']!r} {held[i]}" for i in range(len(lines))))
    print(f"  tracking error, frames 0-{HOLD_END - 1}: {stats(hold_errors)}; from {HOLD_END}: {stats(pan_errors)}")
    if ages:
        print(f"  reading age: mean {np.mean(ages):.2f} s, max {np.max(ages):.2f} s")
    return {"after": after, "on_nothing": on_nothing}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clip", default=CLIP)
    p.add_argument("--gpustyle", default=os.path.join(ROOT, ".build", "release", "gpustyle"))
    p.add_argument("--device", default="cpu")
    p.add_argument("--pace", default="realtime")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--keep", help="keep the logs here")
    a = p.parse_args()
    truth = json.load(open(os.path.join(a.clip, "truth.json")))
    folder = a.keep or tempfile.mkdtemp(prefix="live-text-")
    os.makedirs(folder, exist_ok=True)
    for round in range(a.rounds):
        log = os.path.join(folder, f"text-{round}.jsonl")
        run = subprocess.run([a.gpustyle, "live", "--text", "--input", os.path.join(a.clip, "video.mp4"), "--quad-log", log,
                              "--output", "/dev/null", "--pace", a.pace, "--device", a.device, "--stats"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(run.stderr)
        summary = [line for line in run.stderr.splitlines() if line.startswith("summary:")]
        load = os.getloadavg()[0]
        print(f"round {round + 1} ({truth['width']}x{truth['height']}, {a.pace}, load {load:.1f}):")
        print("  " + (summary[-1] if summary else run.stderr.strip()))
        score(truth, log)


if __name__ == "__main__":
    main()
