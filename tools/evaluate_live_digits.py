#!/usr/bin/env python3
"""Score `gpustyle live --digits` on a synthetic clip with known note positions.

    python3 tools/evaluate_live_digits.py [--gpustyle .build/release/gpustyle] [--device cpu]
        [--pace realtime] [--frames 150] [--keep DIR]

The clip: Tests/GPUStyleTests/Fixtures/digits/notes-example.jpg (960x540, four notes with the
digits 6, 9, 8, 4; corners in notes-example.json) seen through an 896x504 window that slides
right and down and back (x = 64 - |64 - 2 (n mod 64)|, y = x / 2: 2 px right and 1 px down per
frame, then back), 30 fps, made by ffmpeg's crop filter (on RGB: an odd offset of a 4:2:0
frame would be rounded down) as a Y4M file (4:2:0). The same motion
as LiveDigitsTests, which checks it in lockstep.

gpustyle runs as

    GPUSTYLE live --digits --input CLIP.y4m --quad-log LOG.jsonl --output /dev/null --pace PACE
                  --device DEVICE

(realtime: ffmpeg plays the clip at 30 fps, as a camera would). Reported: frames in and out (the
summary line), frames with a label, and per note the frames it was drawn on, with the right
digit, and the mean distance of the drawn quad's corners from the true ones (moved by the
window's offset). A drawn note more than 10 px from every true note is a false label.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "digits")


def offset(n):
    x = 64 - abs(64 - 2 * (n % 64))
    return x, x // 2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpustyle", default=os.path.join(ROOT, ".build", "release", "gpustyle"))
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--pace", default="realtime")
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--keep", help="write the clip and the log here")
    args = parser.parse_args()

    folder = args.keep or tempfile.mkdtemp(prefix="live-digits-")
    os.makedirs(folder, exist_ok=True)
    clip = os.path.join(folder, "clip.y4m")
    log = os.path.join(folder, "notes.jsonl")
    # crop evaluates x and y per frame (n: the frame number); the expressions equal offset(n).
    x = "64-abs(64-2*mod(n,64))"
    subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-loop", "1", "-framerate", "30",
                    "-i", os.path.join(FIXTURES, "notes-example.jpg"),
                    "-vf", f"format=rgb24,crop=896:504:'{x}':'floor(({x})/2)'", "-frames:v", str(args.frames),
                    "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", clip], check=True)
    run = subprocess.run([args.gpustyle, "live", "--digits", "--input", clip, "--quad-log", log, "--output", "/dev/null",
                          "--pace", args.pace, "--device", args.device], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"gpustyle failed ({run.returncode}): {run.stderr}")
    summary = [line for line in run.stderr.splitlines() if line.startswith("summary:")]

    truth = json.load(open(os.path.join(FIXTURES, "notes-example.json")))[0]["notes"]
    per_note = {note["digit"]: {"frames": 0, "right": 0, "errors": []} for note in truth}
    false_labels = 0
    lines = [json.loads(line) for line in open(log)]
    labelled = 0
    for line in lines:
        ox, oy = offset(line["frame"])
        if line["notes"]:
            labelled += 1
        for drawn in line["notes"]:
            best = None
            for note in truth:
                error = sum(math.dist((cx - ox, cy - oy), q) for (cx, cy), q in zip(note["corners"], drawn["quad"])) / 4
                if best is None or error < best[0]:
                    best = (error, note)
            error, note = best
            if error > 10:
                false_labels += 1
                continue
            stats = per_note[note["digit"]]
            stats["frames"] += 1
            stats["errors"].append(error)
            if drawn["text"].split(" ")[0] == str(note["digit"]):
                stats["right"] += 1

    print(summary[-1] if summary else run.stderr.strip())
    print(f"output frames logged {len(lines)}, with a label {labelled}, false labels {false_labels}")
    errors = [e for s in per_note.values() for e in s["errors"]]
    for digit, s in per_note.items():
        mean = sum(s["errors"]) / len(s["errors"]) if s["errors"] else float("nan")
        print(f"note {digit}: drawn on {s['frames']} frames, right digit on {s['right']}, mean corner error {mean:.2f} px")
    if errors:
        errors.sort()
        print(f"all notes: mean corner error {sum(errors) / len(errors):.2f} px, median {errors[len(errors) // 2]:.2f}, "
              f"max {errors[-1]:.2f}")


if __name__ == "__main__":
    main()
