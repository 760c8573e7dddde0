#!/usr/bin/env python3
"""Peak memory and time of `gpustyle --style 2` from 1 to 100 megapixels, per path.

Each figure is one whole process run under `/usr/bin/time -f "%e %M"` (wall seconds, peak
resident set size in KiB), so it counts everything the program holds: the decoded picture, the
network's buffers or tiles, the encoder, the binary and the driver. Inputs are the bundled
example photo scaled with ffmpeg to each size (smooth content; PNG, made once into --work).

    tools/bench_memory.py [--gpustyle .build/release/gpustyle] [--sizes 1,4,12,24,48,100]
                          [--devices cpu,gpu] [--work /tmp/gpustyle-memory] [--json]
                          [--style-args '--style-image examples/painting.png'] [--no-pairs]

Prints, per device and size: wall time, peak RSS, bytes per pixel, µs per pixel and the layout
(`-v`: whole image, or tiles with their scratch). Then two side-by-side checks, alternating the
two commands of each pair over --rounds rounds:
  - tiled vs whole image at 4 MP (`--max-memory 1G` vs `--max-memory 64G`): time ratio (on the
    gpu path at 2 MP: a 4 MP whole-image plan does not fit lavapipe's heap, so it would tile too);
  - `--max-memory 1G` at 48 MP: peak RSS against 1.1 GB.

Needs: ffmpeg, GNU time (Debian package `time`), a release build.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def picture(work, megapixels):
    """A PNG of about `megapixels` MP with the example photo's 3:2 aspect ratio."""
    width = int(round(math.sqrt(megapixels * 1e6 * 1.5) / 4)) * 4
    height = int(round(megapixels * 1e6 / width / 4)) * 4
    path = os.path.join(work, f"photo_{megapixels}mp.png")
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", os.path.join(ROOT, "examples/photo.png"),
                        "-vf", f"scale={width}:{height}:flags=bicubic", path], check=True)
    return path, width, height


STYLE = ["--style", "2"]


def run(gpustyle, source, device, extra, work):
    out = os.path.join(work, "out.png")
    command = ["/usr/bin/time", "-f", "TIME %e %M", gpustyle, *STYLE, "--device", device, "-v", *extra, source, out]
    result = subprocess.run(command, capture_output=True, text=True)
    lines = result.stderr.strip().splitlines()
    timing = [line for line in lines if line.startswith("TIME ")]
    if result.returncode != 0 or not timing:
        return {"error": " / ".join(line for line in lines if not line.startswith("TIME "))[-300:], "status": result.returncode}
    seconds, kib = timing[-1].split()[1:3]
    layout = "whole image"
    for line in lines:
        match = re.search(r"in tiles \((.*)\)", line)
        if match:
            layout = "tiles: " + match.group(1)
        match = re.search(r"(layer by layer.*)$", line)
        if match:
            layout = match.group(1)
    os.unlink(out)
    return {"seconds": float(seconds), "peak_bytes": int(kib) * 1024, "layout": layout}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpustyle", default=os.path.join(ROOT, ".build/release/gpustyle"))
    parser.add_argument("--sizes", default="1,4,12,24,48,100")
    parser.add_argument("--devices", default="cpu,gpu")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work", default="/tmp/gpustyle-memory")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--style-args", default="--style 2",
                        help="the style options, e.g. '--style-image examples/painting.png' (default '--style 2')")
    parser.add_argument("--no-pairs", action="store_true", help="only the table, not the side-by-side checks")
    args = parser.parse_args()
    STYLE[:] = args.style_args.split()
    os.makedirs(args.work, exist_ok=True)
    cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True)
    report = {"cpu": cpu.stdout.strip(), "sizes": [], "pairs": {}}
    print(f"# {report['cpu']}, {os.cpu_count()} cores", flush=True)

    print("| device | size | pixels | wall s | peak RSS | bytes/pixel | µs/pixel | layout |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    for device in args.devices.split(","):
        for size in args.sizes.split(","):
            megapixels = float(size) if "." in size else int(size)
            source, width, height = picture(args.work, megapixels)
            pixels = width * height
            row = run(args.gpustyle, source, device, [], args.work)
            row.update(device=device, width=width, height=height)
            report["sizes"].append(row)
            if "error" in row:
                print(f"| {device} | {width}x{height} | {pixels / 1e6:.1f} MP | - | - | - | - | failed: {row['error']} |", flush=True)
                continue
            print(f"| {device} | {width}x{height} | {pixels / 1e6:.1f} MP | {row['seconds']:.1f} | "
                  f"{row['peak_bytes'] / 1e6:.0f} MB | {row['peak_bytes'] / pixels:.1f} | "
                  f"{row['seconds'] * 1e6 / pixels:.2f} | {row['layout']} |", flush=True)

    print()
    if args.no_pairs:
        return
    for device in args.devices.split(","):
        # lavapipe's whole-image plans must fit half its 2 GiB heap: 4 MP does not, 2 MP does.
        source, width, height = picture(args.work, 4 if device == "cpu" else 2)
        times = {"tiles": [], "whole": []}
        for round_index in range(args.rounds):
            order = [("tiles", ["--max-memory", "1G"]), ("whole", ["--max-memory", "64G"])]
            for name, extra in (order if round_index % 2 == 0 else order[::-1]):
                result = run(args.gpustyle, source, device, extra, args.work)
                times[name].append(result.get("seconds", float("nan")))
        tiles, whole = min(times["tiles"]), min(times["whole"])
        report["pairs"][f"{device} 4MP tiles/whole"] = {"tiles": times["tiles"], "whole": times["whole"]}
        print(f"{device}, {width}x{height}: tiles {tiles:.2f} s, whole image {whole:.2f} s (best of {args.rounds} each, "
              f"alternating): ratio {tiles / whole:.2f}", flush=True)
    for device in args.devices.split(","):
        source, width, height = picture(args.work, 48)
        result = run(args.gpustyle, source, device, ["--max-memory", "1G"], args.work)
        report["pairs"][f"{device} 48MP --max-memory 1G"] = result
        if "error" in result:
            print(f"{device}, {width}x{height}, --max-memory 1G: failed: {result['error']}")
        else:
            print(f"{device}, {width}x{height}, --max-memory 1G: peak RSS {result['peak_bytes'] / 1e9:.3f} GB "
                  f"(target <= 1.1), {result['seconds']:.1f} s, {result['layout']}", flush=True)
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    main()
