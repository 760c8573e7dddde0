#!/usr/bin/env python3
"""Score `gpustyle live` on every live-tracking clip and print one Markdown row per clip.

    python3 tools/evaluate_live_clips.py CLIPS_DIR [--gpustyle .build/release/gpustyle]
        [--device cpu] [--pace realtime] [--rounds 1] [--logs DIR]

The clips are the three committed fixtures (Tests/GPUStyleTests/Fixtures/live, live-pan and
live-busy) and the folders CLIPS_DIR/pan, edges, second, lighting, busy and busy2 that
tools/make_live_clips.sh renders (a missing folder gets a row saying so).
Each is scored by tools/evaluate_live.py (its targets: overlay on >= 97 % of the frames with the
picture in full view, mean corner error <= 2 px, 95th percentile <= 6 px, no overlay later than
0.2 s after the picture left, none on the second picture, none more than 10 px off while the
picture is partly out of view, every input frame answered) and issue 35's: acquisition (frames
from the picture fully in view to the first overlay within 10 px) median <= 10 and max <= 20, no
wrong overlay (drawn more than 10 px off the picture, or with no picture in view). With --rounds N each clip is run N
times and every round gets its row (real-time runs vary with the machine's load).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Tests", "GPUStyleTests", "Fixtures")


def clips(clips_dir):
    yield "committed (10 s)", os.path.join(FIXTURES, "live")
    yield "live-pan fixture (3.6 s)", os.path.join(FIXTURES, "live-pan")
    yield "live-busy fixture (3 s)", os.path.join(FIXTURES, "live-busy")
    for name in ("pan", "edges", "second", "lighting", "busy", "busy2"):
        yield name, os.path.join(clips_dir, name)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clips_dir")
    ap.add_argument("--gpustyle", default=os.path.join(HERE, "..", ".build", "release", "gpustyle"))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--pace", default="realtime", choices=["realtime", "lockstep", "all"])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--logs", help="keep each run's quad log and JSON report here")
    args = ap.parse_args(argv)
    print("| clip | coverage | corner error mean / p95 | acquisition median / max (frames) | wrong overlays "
          "| late overlays | unanswered frames | ms/frame median / p95 | on the 2nd picture | lost / found again |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, folder in clips(args.clips_dir):
        if not os.path.isdir(folder):
            print(f"| {name} | (no clip at {folder}) |||||||||")
            continue
        for r in range(args.rounds):
            cmd = [sys.executable, os.path.join(HERE, "evaluate_live.py"), folder, "--gpustyle", args.gpustyle,
                   "--device", args.device, "--pace", args.pace, "--json"]
            if args.logs:
                os.makedirs(args.logs, exist_ok=True)
                cmd += ["--save-log", os.path.join(args.logs, f"{os.path.basename(folder)}-{r}.jsonl")]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                print(f"| {name} | evaluation failed: {run.stderr.strip().splitlines()[-1:]} |||||||||")
                continue
            if args.logs:
                with open(os.path.join(args.logs, f"{os.path.basename(folder)}-{r}.json"), "w") as f:
                    f.write(run.stdout)
            report = json.loads(run.stdout)
            s, t = report["summary"], report["targets"]

            def mark(key, text):
                return f"**{text}**" if key in t and not t[key]["pass"] else text

            share = "%.1f%%" % (100 * s["overlay_share"])
            mean = "%.2f" % s["mean_corner_error_px"]
            p95 = "%.2f" % s["p95_corner_error_px"]
            never = sum(1 for a in s["acquisitions"] if not a["found"])
            acq = (mark("acquisition_median_frames", "%g" % s["acquisition_median_frames"]) + " / "
                   + mark("acquisition_max_frames", str(s["acquisition_max_frames"]))
                   + (f" ({never} never)" if never else "")) if s["acquisition_max_frames"] is not None else "-"
            ms = "-" if s["ms_per_frame_median"] is None else "%.1f / %.1f" % (s["ms_per_frame_median"], s["ms_per_frame_p95"])
            cells = [name, mark("overlay_share", share),
                     mark("mean_corner_error_px", mean) + " / " + mark("p95_corner_error_px", p95) + " px",
                     acq, mark("wrong_overlays", str(s["wrong_overlays"])),
                     mark("late_overlays", str(s["late_overlays"])),
                     mark("unanswered_input_frames", str(s["unanswered_input_frames"])), ms,
                     str(s.get("second_picture_overlays", 0)),
                     "%d / %d" % (s["losses"], s["reacquisitions"])]
            print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
