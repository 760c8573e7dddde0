#!/usr/bin/env python3
"""Score `gpustyle detect` on real photographs shipped in Debian packages (issue 17).

    sudo apt-get install opencv-doc
    python3 tools/evaluate_debian_photos.py [--gpustyle .build/release/gpustyle] [--photos tools/debian_photos.json]
        [--args "..."] [--multi-args "..."] [--tolerance 10] [--keep DIR] [--json]

The photos are not in the repository: tools/debian_photos.json lists where Debian installs them,
as a JSON list of
    {"package": "opencv-doc", "path": "/usr/share/doc/opencv-doc/examples/data/sudoku.png",
     "kind": "positive" | "negative", "quad": [[x, y] x4] | null, "quads": [[[x, y] x4], ...] (optional),
     "what": "one line", "license": "..."}
with the corners of the object a person would outline, in the order top-left, top-right,
bottom-right, bottom-left, pixels with **pixel centres at integer coordinates**, placed by eye on
zoomed crops (within about 3 px; the blurred licence plate within about 5 px). A corner hidden
behind another object, or just outside the frame, is where the visible sides meet. "quads" lists
every object on photos with several (the pair of books, the two boxes); "quad" is then the main one.

A photo whose file is missing is skipped with a note naming the Debian package to install. The
others are linked into a temporary folder with a scenes.json in the format of
tools/make_rectangle_scenes.py and scored by tools/evaluate_rectangles.py with its defaults:
`gpustyle detect --json IMAGE` (Vision's defaults: minimum size 0.2 of the shorter side, one
observation), photos with "quads" with --multi-args ("--maximum-observations 0 --minimum-size
0.05"), and a corner counted right within --tolerance px (10). The tolerance is in pixels, and
these photos are 324x223 to 1296x864, so the image size is printed with each.

Prints one line per photo (per truth on photos with "quads"): name, size, status (found, wrong:
the first observation is not the object, missed: no observation, or for negatives none /
false positive), the largest corner error (px) against the truth of that line, the number of
observations gpustyle returned, the whole process's time (ms), and what the object is; then
evaluate_rectangles' summary. --json prints {"photos": [...], "summary": {...}} instead.
--keep DIR writes the scenes folder to DIR and keeps it (for tools/diagnose_rectangles.py DIR,
or for looking at `gpustyle detect --overlay`). Exit 0, or 2 when no photo is installed or
gpustyle cannot run.
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate_rectangles as ev  # noqa: E402

DEFAULT_PHOTOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debian_photos.json")


def scene_name(index, path):
    """A unique file name in the scenes folder that still says which photo it is."""
    return f"{index:02d}_{os.path.basename(path)}"


def build_scenes(photos, folder):
    """Links the installed photos into folder and writes its scenes.json; returns (the manifest,
    the photos that were skipped)."""
    manifest, skipped = [], []
    for index, photo in enumerate(photos):
        if not os.path.isfile(photo["path"]):
            skipped.append(photo)
            continue
        name = scene_name(index, photo["path"])
        os.symlink(photo["path"], os.path.join(folder, name))
        entry = {"file": name, "kind": photo["kind"], "quad": photo.get("quad"),
                 "tags": [photo["package"]], "what": photo["what"], "source": photo["path"]}
        if photo.get("quads"):
            entry["quads"] = photo["quads"]
        manifest.append(entry)
    with open(os.path.join(folder, "scenes.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest, skipped


def observations(args, image, multi):
    """(number of observations, (W, H)) of the same command evaluate_rectangles ran."""
    run = subprocess.run(ev.build_command(args, image, multi), capture_output=True, text=True)
    if run.returncode not in (0, 1):
        return None, (None, None)
    found, size, _ = ev.parse_observations(run.stdout)
    return len(found), size


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpustyle", default=".build/release/gpustyle")
    ap.add_argument("--photos", default=DEFAULT_PHOTOS, help="the list of photos and their truth")
    ap.add_argument("--args", default="", help="extra gpustyle detect arguments, as in evaluate_rectangles.py")
    ap.add_argument("--multi-args", default=ev.MULTI_ARGS, help="added for photos with several truths")
    ap.add_argument("--tolerance", type=float, default=10.0)
    ap.add_argument("--keep", help="write the scenes folder here and keep it")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    args.cmd = None

    with open(args.photos) as f:
        photos = json.load(f)
    with contextlib.ExitStack() as stack:
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            folder = args.keep
            for name in os.listdir(folder):  # a previous --keep run's links
                if os.path.islink(os.path.join(folder, name)):
                    os.unlink(os.path.join(folder, name))
        else:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="debian_photos_"))
        manifest, skipped = build_scenes(photos, folder)
        for photo in skipped:
            print(f"skipped {photo['path']}: not installed (sudo apt-get install {photo['package']})",
                  file=sys.stderr)
        if not manifest:
            print("error: none of the photos is installed", file=sys.stderr)
            return 2
        report = io.StringIO()
        with contextlib.redirect_stdout(report):
            code = ev.main([folder, "--json", "--gpustyle", args.gpustyle, f"--args={args.args}",
                            f"--multi-args={args.multi_args}", "--tolerance", str(args.tolerance)])
        if code == 2 and not report.getvalue().strip():
            return 2
        result = json.loads(report.getvalue())
        by_scene = {e["file"]: e for e in manifest}
        counts = {}
        for entry in manifest:
            counts[entry["file"]] = observations(args, os.path.join(folder, entry["file"]), ev.is_multi(entry))

    names = {"detected": "found", "wrong": "wrong", "missed": "missed", "false_positive": "false positive",
             "true_negative": "none", "error": "error"}
    lines = []
    for r in result["scenes"]:
        scene = r.get("scene", r["file"])
        entry = by_scene[scene]
        count, (width, height) = counts[scene]
        truth = r["file"].split("#")[1] if "#" in r["file"] else None
        lines.append({"photo": os.path.basename(entry["source"]) + (f"#{truth}" if truth else ""),
                      "path": entry["source"], "kind": entry["kind"], "size": [width, height],
                      "status": names[r["status"]],
                      "max_corner_error_px": max(r["corner_errors"]) if r.get("corner_errors") else None,
                      "observations": count, "ms": r.get("ms"), "what": entry["what"]})
    summary = result["summary"]
    if args.json:
        json.dump({"tolerance_px": args.tolerance, "photos": lines, "summary": summary,
                   "skipped": [p["path"] for p in skipped]}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"{'photo':26s} {'size':>9s} {'result':14s} {'max err':>7s} {'obs':>3s} {'ms':>6s}  what")
    for line in lines:
        size = f"{line['size'][0]}x{line['size'][1]}" if line["size"][0] else "-"
        obs = "-" if line["observations"] is None else str(line["observations"])
        print(f"{line['photo']:26s} {size:>9s} {line['status']:14s} {ev.fmt(line['max_corner_error_px'], '.1f'):>7s}"
              f" {obs:>3s} {ev.fmt(line['ms'], '.0f'):>6s}  {line['what']}")
    s = summary
    print(f"\npositives {s['positives']}: found {s['detected']}, wrong {s['wrong']}, missed {s['missed']}"
          f" (a corner within {args.tolerance:g} px); negatives {s['negatives']}: false positives"
          f" {s['false_positives']}; mean corner error on found {ev.fmt(s['mean_corner_error_px'], '.2f')} px")
    if skipped:
        print(f"{len(skipped)} photo(s) skipped: not installed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
