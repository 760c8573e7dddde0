#!/usr/bin/env python3
"""gpustyle's style network in fp32 and with --precision bf16 against onnxruntime, side by side.

Each round runs three processes one after the other, in an order that rotates per round:
`gpustyle bench --json --no-rectangles --device cpu --sizes S --runs N` (fp32),
the same with `--precision bf16`, and `tools/bench_onnxruntime.py --json --sizes S --runs N`.
Per size it prints each side's median of the per-process medians and the medians (and ranges) of
the per-round ratios bf16/onnxruntime, fp32/onnxruntime and bf16/fp32.

    python3 tools/bench_precision.py --sizes 512x512,1920x1080 --rounds 5 --runs 5
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_json(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out[out.index("{"):])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpustyle", default=os.path.join(ROOT, ".build", "release", "gpustyle"))
    parser.add_argument("--sizes", default="512x512,1920x1080")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for size in args.sizes.split(","):
        sides = {
            "fp32": [args.gpustyle, "bench", "--json", "--no-rectangles", "--device", "cpu", "--sizes", size,
                     "--runs", str(args.runs)],
            "bf16": [args.gpustyle, "bench", "--json", "--no-rectangles", "--device", "cpu", "--sizes", size,
                     "--runs", str(args.runs), "--precision", "bf16"],
            "onnxruntime": [sys.executable, os.path.join(ROOT, "tools", "bench_onnxruntime.py"), "--json",
                            "--sizes", size, "--runs", str(args.runs)],
        }
        names = list(sides)
        times = {name: [] for name in names}
        for r in range(args.rounds):
            order = names[r % 3:] + names[:r % 3]
            for name in order:
                doc = run_json(sides[name])
                times[name].append(float(doc["results"][0]["median_ms"]))
            print(f"{size} round {r + 1}: " + ", ".join(f"{n} {times[n][-1]:.1f} ms" for n in names), flush=True)

        def ratios(a, b):
            values = [x / y for x, y in zip(times[a], times[b])]
            return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"

        print(f"{size}: fp32 {statistics.median(times['fp32']):.1f} ms, bf16 {statistics.median(times['bf16']):.1f} ms, "
              f"onnxruntime {statistics.median(times['onnxruntime']):.1f} ms; bf16/onnxruntime {ratios('bf16', 'onnxruntime')}, "
              f"fp32/onnxruntime {ratios('fp32', 'onnxruntime')}, bf16/fp32 {ratios('bf16', 'fp32')}", flush=True)


if __name__ == "__main__":
    main()
