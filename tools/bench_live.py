#!/usr/bin/env python3
"""Real-time benchmark of `gpustyle live`: does the output keep the input's 30 fps, and how often
does the overlay's style refresh?

    python3 tools/bench_live.py [--gpustyle .build/release/gpustyle] [--video V] [--configs cpu,gpu,...]
        [--gpustyle OTHER ...] [--rounds 1]

With --gpustyle given more than once (e.g. main's build and a branch's), each configuration is run
with each binary in turn, --rounds times (A B A B ...), so that both are measured in one run under
the same machine load; the rows are labelled with the binary's position (#1, #2) and the
binaries are listed first.

Each configuration plays the committed synthetic clip (Tests/GPUStyleTests/Fixtures/live/
video.mp4, 10 s, 640x480, 30 fps) through `ffmpeg -re` (frames arrive at 30 fps, as from a
camera), optionally scaled, into `gpustyle live --stats`, one configuration after the other, and
reads its once-a-second lines:

  fps in / out        frames read and written per second over the run (summary line)
  dropped             input frames skipped because the previous one was still being processed
  refresh/s           new stylized pictures per second, averaged over the seconds in which an
                      overlay was shown on most frames (the picture is in view for the first 7 s)
  frame ms first/last median read-to-written time of a frame in the first and in the last
                      full second: latency that grows shows up as last >> first
Configurations: cpu, gpu (picture mode, 640x480), cpu-full, gpu-full (--full-frame at 640x480),
cpu-full-320, gpu-full-320 (--full-frame at 320x240).
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VIDEO = os.path.join(HERE, "..", "Tests", "GPUStyleTests", "Fixtures", "live", "video.mp4")
CONFIGS = {
    "cpu": (["--device", "cpu"], None),
    "gpu": (["--device", "gpu"], None),
    "cpu-full": (["--device", "cpu", "--full-frame"], None),
    "gpu-full": (["--device", "gpu", "--full-frame"], None),
    "cpu-full-320": (["--device", "cpu", "--full-frame"], "320:240"),
    "gpu-full-320": (["--device", "gpu", "--full-frame"], "320:240"),
}
LINE = re.compile(r"([\d.]+) s: fps in ([\d.]+) out ([\d.]+) \| dropped: input (\d+), detect (\d+), stylize (\d+) \| "
                  r"per second: detections ([\d.]+), style refreshes ([\d.]+), overlaid ([\d.]+) \| "
                  r"(?:picture: lost \d+, found again \d+ \| )?"  # since issue 14; older binaries lack it
                  r"median ms: frame ([\d.-]+), detect ([\d.-]+), track ([\d.-]+), stylize ([\d.-]+)")


def run(gpustyle, video, arguments, scale):
    decode = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-re", "-i", video]
    if scale:
        decode += ["-vf", f"scale={scale}:flags=area"]
    decode += ["-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"]
    source = subprocess.Popen(decode, stdout=subprocess.PIPE)
    live = subprocess.run([gpustyle, "live", "--style", "2", "--stats", "-o", "/dev/null"] + arguments,
                          stdin=source.stdout, capture_output=True, text=True)
    source.stdout.close()
    source.wait()
    if live.returncode != 0:
        raise RuntimeError(live.stderr.strip())
    seconds, summary = [], None
    for text in live.stderr.splitlines():
        match = LINE.search(text)
        if match:
            values = [float(v) if v != "-" else None for v in match.groups()]
            if text.startswith("summary:"):
                summary = values
            else:
                seconds.append(values)
    return seconds, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpustyle", action="append",
                        help="binary (default .build/release/gpustyle); repeat to compare binaries in one run")
    parser.add_argument("--video", default=VIDEO)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--rounds", type=int, default=1, help="runs of each configuration and binary (default 1)")
    args = parser.parse_args()
    binaries = args.gpustyle or [os.path.join(HERE, "..", ".build", "release", "gpustyle")]
    if len(binaries) > 1:
        for k, b in enumerate(binaries, 1):
            print(f"#{k}: {b}")
    print(f"{'config':14} {'fps in':>6} {'out':>6} {'dropped':>7} {'refresh/s':>9} {'frame ms first/last':>20} "
          f"{'detect ms':>9} {'stylize ms':>10}")
    runs = [(name, k, b) for name in args.configs.split(",") for _ in range(args.rounds)
            for k, b in enumerate(binaries, 1)]
    for config, k, binary in runs:
        arguments, scale = CONFIGS[config]
        name = f"{config} #{k}" if len(binaries) > 1 else config
        try:
            seconds, summary = run(binary, args.video, arguments, scale)
        except RuntimeError as error:
            print(f"{name:14} failed: {error}")
            continue
        full = [s for s in seconds if 0.9 <= s[0] <= 1.5]
        shown = [s for s in full if s[8] >= 0.8 * s[1]]
        refresh = sum(s[7] for s in shown) / len(shown) if shown else 0.0
        first = next((s[9] for s in full if s[9] is not None), None)
        last = next((s[9] for s in reversed(full) if s[9] is not None), None)
        print(f"{name:14} {summary[1]:6.1f} {summary[2]:6.1f} {int(summary[3]):7d} {refresh:9.1f} "
              f"{first or 0:9.1f} / {last or 0:8.1f} {summary[10] or 0:9.1f} {summary[12] or 0:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
